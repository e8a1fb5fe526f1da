"""The clause registry (條款登記): every clause id of the schema is applied by code that declares it
or is declared informational; the loader refuses what no code implements; every clause id the
code names (refusals included) is a clause of the schema; ranks.natural is honoured everywhere.
The registry is a frozen value built from a fixed list of modules and handed to the loader, and
importing the package or the card notation loads neither the interpreter nor the engines.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import os
import random
import re
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest

import harness
from harness.engine.fast.tables import FAST_MODULES
from harness.errors import DataError, HarnessError, IllegalAction, RegistryError
from harness.frontends.cli import main
from harness.interpreter.bots import deal
from harness.interpreter.match import MatchState, settle
from harness.interpreter.readings import play_rules
from harness.interpreter.round import PassAction, start_round
from harness.interpreter.tribute import return_cards
from harness.model import registry
from harness.model.cards import Rank, parse_cards, two_deck_pack
from harness.model.declarations import ALL, Implementation, only
from harness.model.diagnostics import Problem
from harness.model.loader import (
    clause_specs,
    load_variant,
    load_variant_file,
    mutant,
    variant_slugs,
)
from harness.model.registry import REFERENCE_MODULES, Registry, build, reference_registry
from harness.model.seats import Finish

HARNESS = Path(harness.__file__).resolve().parent
ROOT = HARNESS.parent
FAMILIES = {cid.split(".")[0] for cid in clause_specs()}


def test_every_clause_is_implemented_or_informational() -> None:
    """Each clause id of the schema has code that applies it, or a reason it is prose only."""
    for clause_id in clause_specs():
        code = reference_registry().implementations(clause_id)
        reason = reference_registry().informational_reason(clause_id)
        assert bool(code) != bool(reason), clause_id


def test_every_implementation_names_its_clause_beside_the_function() -> None:
    """`grep -rn CLAUSE_ID harness/` finds the function: the id is written in its decorators."""
    modules = {name: m for name, m in sys.modules.items() if name.startswith("harness.")}
    for entry in reference_registry().all_implementations():
        module_name, _, qualname = entry.function.rpartition(".")
        while module_name not in modules:  # a method: Class.method
            module_name, _, outer = module_name.rpartition(".")
            qualname = f"{outer}.{qualname}"
        source = inspect.getsource(modules[module_name])
        function = _find(ast.parse(source), qualname)
        assert function is not None, entry.function
        decorators = "\n".join(
            ast.get_source_segment(source, d) or "" for d in function.decorator_list
        )
        assert f'"{entry.clause}"' in decorators, (entry.clause, entry.function)


def test_informational_clauses_are_unobservable_in_every_variant() -> None:
    """A clause no code applies cannot be observed by any operation in any bundled variant."""
    for slug in variant_slugs():
        ruleset = load_variant(slug)
        for clause_id in registry.INFORMATIONAL:
            assert not ruleset.clause(clause_id).observable, (slug, clause_id)


def test_every_clause_id_the_code_names_is_a_clause() -> None:
    """Every text in harness/ shaped like a clause id (family.name…) is a clause of the schema."""
    known = set(clause_specs())
    shaped = re.compile(r"^(" + "|".join(sorted(FAMILIES)) + r")(\.[a-z_]+)+$")
    found = []
    for path in HARNESS.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            text = node.value if isinstance(node, ast.Constant) else None
            if isinstance(text, str) and shaped.match(text) and text not in known:
                found.append(f"{path.name}: {text}")
    assert not found


def test_every_refusal_rule_is_a_clause_id() -> None:
    """The clause ids an IllegalAction may name are clauses of the schema."""
    assert reference_registry().verdicts <= set(clause_specs())
    assert {"flow.turn", "flow.own_cards", "combinations.only_listed", "bombs.ladder"} <= (
        reference_registry().verdicts
    )


@pytest.mark.parametrize("slug", variant_slugs())
def test_rules_emitted_in_random_rounds_are_declared(slug: str) -> None:
    """Random actions, legal and not, in random deals: every refusal names a declared clause."""
    ruleset = load_variant(slug)
    declared = reference_registry().verdicts
    rng = random.Random(7)
    pack = list(two_deck_pack())
    seen: set[str] = set()
    for _ in range(30):
        hands, leader, _card = deal(rng)
        state = start_round(hands, Rank(rng.choice("23456789TJQKA")), ruleset, leader)
        for _ in range(300):
            seat = rng.randrange(4)
            if rng.random() < 0.3:
                cards = rng.sample(pack, rng.randrange(0, 6))
                try:
                    action = state.play_action(seat, cards, None)
                    state.verify(action)
                except IllegalAction as exc:
                    assert exc.rule in declared, exc.rule
                    seen.add(exc.rule)
                continue
            if state.over:
                break
            turn = state.turn
            assert turn is not None
            plays = state.legal_plays()
            moves = [*(p for p in plays), *([None] if state.may_pass() else [])]
            move = rng.choice(moves)
            state = state.apply(
                PassAction(turn)
                if move is None
                else state.play_action(turn, move.cards, move.reading)
            )
    assert "flow.turn" in seen and "flow.own_cards" in seen


LISTED = """
id: club
extends: huaian
title: A club
title_zh: 俱樂部
rules:
  compare:
    suits_rank: {value: true, assumed: {reason: club, alternatives: [none]}}
    wild_same_strength: {value: false, assumed: {reason: club, alternatives: [none]}}
    full_house_key: {value: pair, assumed: {reason: club, alternatives: [none]}}
  seats:
    players: {value: 6, assumed: {reason: club, alternatives: [none]}}
  deck:
    hand_size: {value: 10, assumed: {reason: club, alternatives: [none]}}
  tribute:
    card: {value: lowest, assumed: {reason: club, alternatives: [none]}}
    double:
      assignment: {value: first_chooses, assumed: {reason: club, alternatives: [none]}}
      tie: {value: first_chooses, assumed: {reason: club, alternatives: [none]}}
  levels:
    failures:
      counts: {value: won_without_finish, assumed: {reason: club, alternatives: [none]}}
"""


def test_values_nobody_implements_are_refused_one_located_error_each(tmp_path: Path) -> None:
    """A club's file with nine values the interpreter does not play: nine located errors."""
    path = tmp_path / "club.yaml"
    path.write_text(LISTED, encoding="utf-8")
    out = StringIO()
    assert main(["validate", str(path)], out=out) == 1
    lines = [line for line in out.getvalue().splitlines() if ": " in line and "problem" not in line]
    expected = {
        "compare.suits_rank": 8,
        "compare.wild_same_strength": 9,
        "compare.full_house_key": 10,
        "seats.players": 12,
        "deck.hand_size": 14,
        "tribute.card": 16,
        "tribute.double.assignment": 18,
        "tribute.double.tie": 19,
        "levels.failures.counts": 22,
    }
    assert len(lines) == len(expected), out.getvalue()
    for clause_id, line in expected.items():
        hits = [x for x in lines if f":{line}:" in x and clause_id in x]
        assert len(hits) == 1, (clause_id, out.getvalue())
    refused = [x for x in lines if "not implemented by the reference interpreter" in x]
    assert {x.split(": ")[1] for x in refused} == {
        "compare.suits_rank",
        "compare.wild_same_strength",
        "seats.players",
        "deck.hand_size",
    }
    assert any(
        "seats.players: value 6 is not implemented" in x and "(implemented: 4)" in x
        for x in refused
    )


def test_a_shape_the_interpreter_cannot_play_is_refused_with_the_reason(tmp_path: Path) -> None:
    """combinations.*.shape: two pairs that need not be consecutive are no shape it plays."""
    path = tmp_path / "two-pairs.yaml"
    path.write_text(
        "id: two-pairs\nextends: huaian\ntitle: t\ntitle_zh: t\nrules:\n  combinations:\n"
        "    pair:\n      shape:\n        value: {groups: {min: 1, max: 2}, group_size: {min: 2,"
        " max: 2}, consecutive: false, same_suit: false, kicker: null, jokers: allowed}\n"
        "        assumed: {reason: t, alternatives: [t]}\n",
        encoding="utf-8",
    )
    with pytest.raises(DataError) as caught:
        load_variant_file(path)
    (problem,) = caught.value.problems
    assert problem.path == "combinations.pair.shape"
    assert "not implemented by the reference interpreter" in problem.message
    assert "groups that are not consecutive come one at a time" in problem.message


def _variant(tmp_path: Path, name: str, rules: str) -> Path:
    """A variant file extending huaian with `rules` (YAML under `rules:`, indented by two)."""
    path = tmp_path / f"{name}.yaml"
    head = f"id: {name}\nextends: huaian\ntitle: t\ntitle_zh: t\nrules:\n"
    path.write_text(head + rules, encoding="utf-8")
    return path


def _only_problem(path: Path) -> Problem:
    """The one problem the loader finds in the file at `path`."""
    with pytest.raises(DataError) as caught:
        load_variant_file(path)
    (problem,) = caught.value.problems
    return problem


def _shape_variant(tmp_path: Path, kind: str, shape: str) -> Path:
    rules = (
        f"  combinations:\n    {kind}:\n      shape:\n        value: {{{shape}}}\n"
        "        assumed: {reason: t, alternatives: [t]}\n"
    )
    return _variant(tmp_path, kind.replace("_", "-"), rules)


@pytest.mark.parametrize(
    ("kind", "shape", "reason"),
    [
        (
            "straight",
            "groups: {min: 5, max: 5}, group_size: {min: 1, max: 1}, consecutive: true,"
            " same_suit: false, kicker: null, jokers: allowed",
            "jokers have no place in a run, so its groups",
        ),
        (
            "bomb",
            "groups: {min: 1, max: 1}, group_size: {min: 4, max: null}, consecutive: false,"
            " same_suit: false, kicker: null, jokers: allowed",
            "two decks hold 2 of each joker, so no group of 4 or more can be jokers",
        ),
        (
            "full_house",
            "groups: {min: 1, max: 1}, group_size: {min: 3, max: 3}, consecutive: false,"
            " same_suit: false, kicker: {group_size: 2, distinct_rank: true, jokers: true},"
            " jokers: allowed",
            "no group of 3 or more can be jokers",
        ),
        (
            "joker_bomb",
            "groups: {min: 2, max: 2}, group_size: {min: 1, max: 2}, consecutive: false,"
            " same_suit: false, kicker: null, jokers: only",
            "a shape of jokers only needs one count of groups and one group size",
        ),
        (
            "joker_bomb",
            "groups: {min: 1, max: 2}, group_size: {min: 2, max: 2}, consecutive: false,"
            " same_suit: false, kicker: null, jokers: only",
            "a shape of jokers only needs one count of groups and one group size",
        ),
        (
            "joker_bomb",
            "groups: {min: 2, max: 2}, group_size: {min: 2, max: 2}, consecutive: true,"
            " same_suit: false, kicker: null, jokers: only",
            "a shape of jokers only is one plain set of joker groups",
        ),
        (
            "joker_bomb",
            "groups: {min: 1, max: 1}, group_size: {min: 2, max: 2}, consecutive: false,"
            " same_suit: false, kicker: {group_size: 1, distinct_rank: true, jokers: true},"
            " jokers: only",
            "a shape of jokers only is one plain set of joker groups",
        ),
    ],
)
def test_jokers_allowed_where_no_joker_group_fits_is_refused(
    tmp_path: Path, kind: str, shape: str, reason: str
) -> None:
    """combinations.*.shape jokers: allowed on a run or on groups bigger than a joker's copies
    would change nothing, so the loader refuses it rather than ignore it; a shape of jokers only
    with a count left free is one the interpreter cannot play, refused likewise."""
    problem = _only_problem(_shape_variant(tmp_path, kind, shape))
    assert problem.path == f"combinations.{kind}.shape"
    assert reason in problem.message


def test_jokers_allowed_where_a_joker_group_fits_loads(tmp_path: Path) -> None:
    """A triple whose group may hold two cards can be two identical jokers: allowed is kept."""
    shape = (
        "groups: {min: 1, max: 1}, group_size: {min: 2, max: 3}, consecutive: false,"
        " same_suit: false, kicker: null, jokers: allowed"
    )
    ruleset = load_variant_file(_shape_variant(tmp_path, "triple", shape))
    assert ruleset.rules.combinations.triple is not None


def test_a_default_for_a_play_of_jokers_only_is_refused(tmp_path: Path) -> None:
    """wild.default: four jokers hold no wild card and read one way, so a default for the joker
    bomb would change nothing; the loader refuses it at the value."""
    rules = (
        "  wild:\n    default:\n"
        "      value: {choice: lowest, applies_to: [full_house, joker_bomb]}\n"
        "      assumed: {reason: t, alternatives: [t]}\n"
    )
    problem = _only_problem(_variant(tmp_path, "joker-default", rules))
    assert (problem.location.line, problem.path) == (8, "wild.default")
    assert "applies to 'joker_bomb', a play of jokers only" in problem.message


def test_a_default_for_jokers_another_combination_reads_loads(tmp_path: Path) -> None:
    """Where a full house may be a joker pair with a joker pair (SB SB BB BB), four jokers read
    two ways, so a default for the joker bomb is kept."""
    rules = (
        "  wild:\n    default:\n"
        "      value: {choice: lowest, applies_to: [full_house, joker_bomb]}\n"
        "      assumed: {reason: t, alternatives: [t]}\n  combinations:\n    full_house:\n"
        "      shape:\n        value: {groups: {min: 1, max: 1}, group_size: {min: 2, max: 2},"
        " consecutive: false, same_suit: false, kicker: {group_size: 2, distinct_rank: true,"
        " jokers: true}, jokers: allowed}\n        assumed: {reason: t, alternatives: [t]}\n"
    )
    path = _variant(tmp_path, "joker-house", rules)
    ruleset = load_variant_file(path)
    assert ruleset.rules.wild.default is not None


def test_a_place_that_names_nobody_is_refused(tmp_path: Path) -> None:
    """tribute.lead.anti: no tribute is paid on anti-tribute, so 'payer' names nobody."""
    path = tmp_path / "anti.yaml"
    path.write_text(
        "id: anti\nextends: huaian\ntitle: t\ntitle_zh: t\nrules:\n  tribute:\n    lead:\n"
        "      anti: {value: payer, assumed: {reason: t, alternatives: [t]}}\n",
        encoding="utf-8",
    )
    with pytest.raises(DataError) as caught:
        load_variant_file(path)
    (problem,) = caught.value.problems
    assert (problem.location.line, problem.path) == (8, "tribute.lead.anti")
    assert "'payer' names nobody when no tribute is paid" in problem.message


TWO_HIGH = """
id: two-high
extends: competition
title: Two ranks above the ace
title_zh: 二最大
rules:
  ranks:
    natural:
      value: ["3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A", "2"]
      assumed: {reason: test, alternatives: [2 lowest]}
  levels:
    start: {value: "3", assumed: {reason: test, alternatives: ["2"]}}
    final: {value: "2", assumed: {reason: test, alternatives: [A]}}
    floor: {value: "3", assumed: {reason: test, alternatives: ["2"]}}
"""


def test_ranks_natural_orders_levels_and_returns(tmp_path: Path) -> None:
    """ranks.natural: levels climb the variant's order, and the return limit reads it too."""
    path = tmp_path / "two-high.yaml"
    path.write_text(TWO_HIGH, encoding="utf-8")
    ruleset = load_variant_file(path)
    # A double-down gains 3 levels: from K, past A to 2, the final level (capped there).
    state = MatchState((Rank.KING, Rank.THREE), 0, (0, 0), (0, 0, 0, 0), (0, 0, 0, 0), None)
    after = settle(state, Finish.of([0, 2, 1, 3]), ruleset)
    assert after.state.levels == (Rank.TWO, Rank.THREE)
    assert after.changes == (2, 0)
    # From 3, the floor, a 1st+4th gains one level: 4.
    after = settle(
        MatchState((Rank.THREE, Rank.THREE), 1, (0, 0), (0, 0, 0, 0), (0, 0, 0, 0), None),
        Finish.of([1, 2, 0, 3]),
        ruleset,
    )
    assert after.state.levels == (Rank.THREE, Rank.FOUR)
    # Returns of 10 or lower: a 2 ranks above the ace here, so it may not go back.
    rules = play_rules(ruleset, Rank.THREE)
    hand = parse_cards("S2 ST S9 SA")
    assert {c.code for c in return_cards(hand, Rank.TEN, rules)} == {"ST", "S9"}


def _find(tree: ast.Module, qualname: str) -> ast.FunctionDef | None:
    node: ast.AST = tree
    for part in qualname.split("."):
        body = getattr(node, "body", [])
        match = [
            n for n in body if isinstance(n, ast.FunctionDef | ast.ClassDef) and n.name == part
        ]
        if not match:
            return None
        node = match[0]
    return node if isinstance(node, ast.FunctionDef) else None


def test_the_schema_says_which_values_are_implemented() -> None:
    """A clause whose values the interpreter plays only in part says so in its description."""
    for clause_id, spec in clause_specs().items():
        restricted = reference_registry().implemented_values(clause_id) != ALL.description
        said = "Implemented by the reference interpreter: " in spec.description
        assert restricted == said, clause_id
        if said:
            assert reference_registry().implemented_values(clause_id) in spec.description, clause_id


def test_an_option_cannot_offer_a_value_nobody_implements(tmp_path: Path) -> None:
    """An option's choices are clause values too: one the interpreter does not play is refused."""
    path = tmp_path / "tables.yaml"
    path.write_text(
        "id: tables\nextends: huaian\ntitle: t\ntitle_zh: t\noptions:\n  players:\n"
        "    sets: seats.players\n    description: how many play\n    choices: [4, 6]\n"
        "    assumed: {reason: t, alternatives: [t]}\n",
        encoding="utf-8",
    )
    with pytest.raises(DataError) as caught:
        load_variant_file(path)
    (problem,) = caught.value.problems
    assert problem.path == "options.players.choices"
    assert "seats.players: value 6 is not implemented by the reference interpreter" in (
        problem.message
    )


def test_an_option_range_over_a_clause_played_only_in_part_is_refused(tmp_path: Path) -> None:
    """A range of whole numbers cannot stand for seats.players, which is played only at 4."""
    path = tmp_path / "range.yaml"
    path.write_text(
        "id: range\nextends: huaian\ntitle: t\ntitle_zh: t\noptions:\n  players:\n"
        "    sets: seats.players\n    description: how many play\n    minimum: 4\n"
        "    maximum: 6\n    assumed: {reason: t, alternatives: [t]}\n",
        encoding="utf-8",
    )
    with pytest.raises(DataError) as caught:
        load_variant_file(path)
    (problem,) = caught.value.problems
    assert problem.path == "options.players"
    assert "implemented only for 4: give `choices` among them" in problem.message


# ---------------------------------------------------------------------------------------------
# The registry as a value


def _without(given: Registry, clause_id: str) -> Registry:
    """`given` with no function that applies `clause_id` (as if the code forgot it)."""
    kept = {c: e for c, e in given.implemented.items() if c != clause_id}
    return dataclasses.replace(given, implemented=kept)


def test_the_registry_is_a_frozen_value() -> None:
    """No field can be assigned, no mapping written to, and no caller's dict changes it later."""
    value = reference_registry()
    with pytest.raises(dataclasses.FrozenInstanceError):
        value.verdicts = frozenset()  # type: ignore[misc]
    with pytest.raises(TypeError):
        value.implemented["tribute.enabled"] = ()  # type: ignore[index]
    with pytest.raises(TypeError):
        value.informational["tribute.enabled"] = "no"  # type: ignore[index]
    given: dict[str, tuple[Implementation, ...]] = {"seats.players": ()}
    made = dataclasses.replace(value, implemented=given)
    given["tribute.enabled"] = ()
    assert "tribute.enabled" not in made.implemented


def test_building_the_registry_twice_gives_equal_values() -> None:
    """Built from the same modules it is the same value; the reference one is built once."""
    modules = [importlib.import_module(name) for name in REFERENCE_MODULES]
    assert build(modules) == build(modules) == reference_registry()
    assert build(modules) is not build(modules)
    assert reference_registry() is reference_registry()
    assert _without(reference_registry(), "tribute.enabled") != reference_registry()


def test_building_from_too_few_modules_lists_every_clause_left_over() -> None:
    """The check `build` makes: the card notation alone applies only a few clauses."""
    with pytest.raises(RegistryError) as caught:
        build([importlib.import_module("harness.model.cards")])
    message = str(caught.value)
    assert "tribute.enabled is neither implemented nor declared informational" in message
    assert "flow.jiefeng is neither implemented nor declared informational" in message
    assert "deck.decks is neither" not in message  # the card notation applies that one


ENABLED = """id: plain
extends: huaian
title: t
title_zh: t
rules:
  tribute:
    enabled:
      value: true
      assumed: {reason: t, alternatives: [t]}
"""


def test_a_loader_given_a_registry_lacking_an_implementation_refuses_its_value(
    tmp_path: Path,
) -> None:
    """The loader reads the registry it is given: no code for tribute.enabled, no value of it."""
    path = tmp_path / "plain.yaml"
    path.write_text(ENABLED, encoding="utf-8")
    assert load_variant_file(path).clause("tribute.enabled").value is True
    lacking = _without(reference_registry(), "tribute.enabled")
    with pytest.raises(DataError) as caught:
        load_variant_file(path, registry=lacking)
    (problem,) = caught.value.problems
    assert problem.path == "tribute.enabled"
    assert (Path(problem.location.file).name, problem.location.line) == ("plain.yaml", 8)
    assert "value true is not implemented by the reference interpreter" in problem.message
    assert "no function applies tribute.enabled" in problem.message
    # A bundled variant and a mutant are checked against the registry given too.
    with pytest.raises(DataError) as bundled:
        load_variant("huaian", registry=lacking)
    assert [p.path for p in bundled.value.problems] == ["tribute.enabled"]
    with pytest.raises(HarnessError, match=re.escape("no function applies tribute.enabled")):
        mutant(load_variant("huaian"), "tribute.enabled", False, registry=lacking)


def test_a_loader_given_a_registry_that_plays_fewer_values_refuses_the_others(
    tmp_path: Path,
) -> None:
    """An implementation of tribute.enabled for `false` only: `true` is refused where written."""
    path = tmp_path / "plain.yaml"
    path.write_text(ENABLED, encoding="utf-8")
    narrow = Implementation("tribute.enabled", "tests.no_tribute", only(False))
    given = {**reference_registry().implemented, "tribute.enabled": (narrow,)}
    fewer = dataclasses.replace(reference_registry(), implemented=given)
    with pytest.raises(DataError) as caught:
        load_variant_file(path, registry=fewer)
    (problem,) = caught.value.problems
    assert (problem.path, problem.location.line) == ("tribute.enabled", 8)
    assert "value true is not implemented" in problem.message
    assert "(implemented: false)" in problem.message


def _reference_sources() -> list[Path]:
    """The package's modules, but for the fast engine's: it declares the clauses it reads with
    the same marks, read by its own list (`harness.engine.fast.tables.FAST_MODULES`)."""
    fast = {Path(HARNESS.parent, *name.split(".")).with_suffix(".py") for name in FAST_MODULES}
    return [p for p in HARNESS.rglob("*.py") if p not in fast]


def _declaring_modules() -> set[str]:
    """The modules whose source marks a function with `@implements` or lists VERDICTS."""
    found = set()
    for path in _reference_sources():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            marked = isinstance(node, ast.FunctionDef) and any(
                isinstance(d, ast.Call) and getattr(d.func, "id", None) == "implements"
                for d in node.decorator_list
            )
            listed = isinstance(node, ast.Assign) and any(
                getattr(t, "id", None) == "VERDICTS" for t in node.targets
            )
            if marked or listed:
                parts = path.relative_to(ROOT).with_suffix("").parts
                found.add(".".join(parts))
    return found


def test_the_registry_reads_every_module_that_declares_clauses() -> None:
    """REFERENCE_MODULES is the fixed list, and it forgets no module that declares a clause;
    they are all of the rule model or the interpreter, none above."""
    assert set(REFERENCE_MODULES) == _declaring_modules()
    assert len(REFERENCE_MODULES) == len(set(REFERENCE_MODULES))
    assert all(m.startswith(("harness.model.", "harness.interpreter.")) for m in REFERENCE_MODULES)


def _marked_in_source() -> set[tuple[str, str]]:
    """(clause, module.qualname) for every `@implements` written in harness/, read as text."""
    found = set()

    def visit(node: ast.AST, module: str, prefix: str) -> None:
        for child in getattr(node, "body", []):
            if isinstance(child, ast.ClassDef):
                visit(child, module, f"{prefix}{child.name}.")
            if not isinstance(child, ast.FunctionDef):
                continue
            for decorator in child.decorator_list:
                if isinstance(decorator, ast.Call) and (
                    getattr(decorator.func, "id", None) == "implements"
                ):
                    for arg in decorator.args:
                        assert isinstance(arg, ast.Constant), ast.dump(arg)
                        found.add((arg.value, f"{module}.{prefix}{child.name}"))

    for path in _reference_sources():
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        visit(ast.parse(path.read_text(encoding="utf-8")), module, "")
    return found


def test_every_mark_in_the_source_is_in_the_registry() -> None:
    """Each `@implements` written reaches the registry (none hidden where it is not read)."""
    built = {(i.clause, i.function) for i in reference_registry().all_implementations()}
    assert built == _marked_in_source()


def _harness_modules_after(statement: str) -> list[str]:
    """The package's modules loaded by `statement` in a fresh interpreter on this checkout."""
    code = f"{statement}; import sys; print(harness.__file__); print(*sorted(sys.modules))"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, check=True
    )
    where, loaded = done.stdout.splitlines()
    assert Path(where).resolve() == HARNESS / "__init__.py", done.stdout
    return [m for m in loaded.split() if m == "harness" or m.startswith("harness.")]


@pytest.mark.parametrize(
    ("statement", "most"),
    [
        # Measured: 1 (the facade alone) and 5 (the facade, harness.model, errors,
        # declarations, cards); before the facade was lazy both loaded 30.
        ("import harness", 2),
        ("import harness.model.cards", 6),
    ],
)
def test_importing_the_package_loads_few_modules(statement: str, most: int) -> None:
    """`import harness` and the card notation load neither the interpreter nor the engines."""
    loaded = _harness_modules_after(statement)
    assert len(loaded) <= most, loaded
    assert not [m for m in loaded if m.startswith(("harness.interpreter", "harness.engine"))]


def test_the_facade_names_every_public_name_when_asked() -> None:
    """The lazy facade: each name of __all__ is found (and listed by dir()), others are not."""
    modules = _harness_modules_after("import harness; harness.load_variant")
    assert "harness.model.loader" in modules and "harness.engine" not in modules
    for name in harness.__all__:
        assert getattr(harness, name) is not None, name
    assert set(harness.__all__) <= set(dir(harness))
    with pytest.raises(AttributeError, match="no_such_name"):
        harness.no_such_name  # type: ignore[attr-defined]  # noqa: B018
    namespace: dict[str, object] = {}
    exec("from harness import *", namespace)
    assert set(harness.__all__) <= set(namespace)
