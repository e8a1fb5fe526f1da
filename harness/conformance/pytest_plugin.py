"""The pytest plugin (測試外掛): `pytest --guandan-engine=SPEC --guandan-variant=V` collects the
corpus as tests named by case id, and adds property tests run through the engine's adapter.

Property tests: readings do not depend on card order or on renaming suits (where no flush is
involved); beats is irreflexive and asymmetric; every legal play classifies to its reading; and
the engine agrees with the reference interpreter on random hands. A failing example is printed
as a ready-to-add case.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.conformance.corpus import Case, compare_output, load_cases
from harness.conformance.runner import RunConfig, select
from harness.conformance.strategies import hands_with_wilds, levels
from harness.engine import Engine, EngineError, ReferenceEngine, call, load_engine
from harness.errors import HarnessError
from harness.model.cards import Card, Rank, Suit
from harness.model.loader import load_variant_spec
from harness.model.ruleset import Ruleset

# One engine per variant and choice of options (`with_options` makes each choice one object).
_ENGINES: dict[Ruleset, Engine] = {}


def pytest_addoption(parser: pytest.Parser) -> None:
    """The plugin's options."""
    group = parser.getgroup("guandan", "Guandan conformance (摜蛋)")
    group.addoption(
        "--guandan-engine",
        metavar="SPEC",
        help="check this engine: reference, py:module:attribute or exec:COMMAND",
    )
    group.addoption(
        "--guandan-variant",
        metavar="SLUG|FILE",
        help="the variant the engine plays: a bundled slug or a variant file",
    )
    group.addoption(
        "--guandan-option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="an option the engine plays with (e.g. target=8)",
    )
    group.addoption(
        "--guandan-timeout",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="seconds the engine may take to answer",
    )
    group.addoption(
        "--guandan-examples",
        type=int,
        default=50,
        metavar="N",
        help="hypothesis examples per property test",
    )


def _engine(config: pytest.Config, ruleset: Ruleset) -> Engine:
    if ruleset not in _ENGINES:
        _ENGINES[ruleset] = load_engine(
            config.getoption("guandan_engine"),
            ruleset,
            timeout=config.getoption("guandan_timeout"),
        )
    return _ENGINES[ruleset]


def pytest_unconfigure(config: pytest.Config) -> None:
    """Close every engine the session started."""
    for engine in _ENGINES.values():
        engine.close()
    _ENGINES.clear()


class CaseItem(pytest.Item):
    """One corpus case run on the engine, for a variant with the case's options chosen."""

    def __init__(self, *, case: Case, ruleset: Ruleset, **kwargs: Any):
        super().__init__(**kwargs)
        self.case = case
        self.ruleset = ruleset

    def runtest(self) -> None:
        """Ask the engine and compare with the expected output."""
        engine = _engine(self.config, self.ruleset)
        try:
            actual = call(engine, self.case.operation, self.case.input)
        except EngineError as exc:
            if exc.kind == "unsupported":
                pytest.skip(f"unsupported: {exc}")
            raise
        differences = compare_output(self.case.expected, actual)
        if differences:
            raise CaseFailed(self.case, actual, differences)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        """The case, what was expected and what came back."""
        if isinstance(excinfo.value, CaseFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[str, int, str]:
        """Where the case is written."""
        return self.case.location.file, self.case.location.line - 1, self.name


class CaseFailed(AssertionError):
    """A case whose output differs from the expected one."""

    def __init__(self, case: Case, actual: Any, differences: list[str]) -> None:
        lines = [
            f"{case.id}: {case.description}",
            f"  at {case.location}",
            f"  clauses:  {', '.join(case.clauses)}",
            f"  input:    {json.dumps(case.input, ensure_ascii=False)}",
            f"  expected: {json.dumps(case.expected, ensure_ascii=False)}",
            f"  actual:   {json.dumps(actual, ensure_ascii=False)}",
        ]
        lines += [f"  differs:  {d}" for d in differences]
        super().__init__("\n".join(lines))


class PropertyItem(pytest.Item):
    """One property test, run through the engine's adapter with hypothesis."""

    def __init__(
        self,
        *,
        check: Callable[[Engine, Engine, int], None],
        ruleset: Ruleset,
        **kwargs: Any,
    ):
        super().__init__(**kwargs)
        self.check = check
        self.ruleset = ruleset

    def runtest(self) -> None:
        """Run the property."""
        engine = _engine(self.config, self.ruleset)
        reference = ReferenceEngine(self.ruleset)
        self.check(engine, reference, self.config.getoption("guandan_examples"))


class GuandanCollector(pytest.Collector):
    """The corpus and the properties for the engine under test."""

    def collect(self) -> Iterator[pytest.Item]:
        """One item per applicable case, then the property tests."""
        config = self.config
        variant = config.getoption("guandan_variant")
        if not variant:
            raise pytest.UsageError("--guandan-engine needs --guandan-variant")
        options = {}
        for pair in config.getoption("guandan_option"):
            name, _, value = pair.partition("=")
            options[name] = value
        try:
            base = load_variant_spec(variant)
            played = base.with_options(options)
        except HarnessError as exc:
            raise pytest.UsageError(f"--guandan-variant {variant}: {exc}") from None
        cases, problems = load_cases()
        if problems:
            raise pytest.UsageError(
                "the corpus has problems:\n" + "\n".join(str(p) for p in problems)
            )
        run = RunConfig(engine=config.getoption("guandan_engine"), variants=[base], options=options)
        for item in select(run, cases):
            yield CaseItem.from_parent(
                self, name=item.case.id, case=item.case, ruleset=item.ruleset
            )
        for name, check in PROPERTIES.items():
            yield PropertyItem.from_parent(
                self, name=f"property-{name}", check=check, ruleset=played
            )


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    """Add the corpus and the properties when an engine is named (before -k selects)."""
    if not config.getoption("guandan_engine"):
        return
    collector = GuandanCollector.from_parent(session, name="guandan")
    items.extend(collector.collect())


# ---------------------------------------------------------------------------------------------
# Properties


def strip(play: dict[str, Any]) -> dict[str, Any]:
    """A play's reading alone (its cards left out)."""
    return {k: play[k] for k in ("type", "rank", "size")}


def _codes(cards: list[Card]) -> list[str]:
    return [c.code for c in cards]


def _readings(output: dict[str, Any]) -> list[str]:
    return sorted(json.dumps(r, sort_keys=True) for r in output.get("readings", []))


def ready_case(operation: str, data: dict[str, Any], expected: dict[str, Any]) -> str:
    """A failing example as a case to add to a corpus (its expected output from the reference
    interpreter, to be checked against the rules before it is added)."""
    case = {
        "cases": [
            {
                "id": f"found-{operation}-{abs(hash(json.dumps(data))) % 10**8}",
                "description": "Found by a property test; check it against the rules.",
                "operation": operation,
                "clauses": ["FILL-IN.the.clause.ids"],
                "input": data,
                "expected": expected,
            }
        ]
    }
    return (
        "# expected output taken from the reference interpreter: check it against the "
        "rule texts, and name the clauses it checks, before adding this case\n"
        + yaml.safe_dump(case, allow_unicode=True, sort_keys=False)
    )


def _hands(max_size: int) -> st.SearchStrategy[tuple[Rank, list[Card]]]:
    return levels().flatmap(lambda lv: st.tuples(st.just(lv), hands_with_wilds(lv, 1, max_size)))


def prop_order(engine: Engine, reference: Engine, examples: int) -> None:
    """A reading never depends on the order of the cards given."""

    @settings(max_examples=examples, deadline=None, database=None)
    @given(_hands(8), st.randoms(use_true_random=False))
    def check(drawn: tuple[Rank, list[Card]], rng: random.Random) -> None:
        level, cards = drawn
        shuffled = list(cards)
        rng.shuffle(shuffled)
        a = call(engine, "classify", {"cards": _codes(cards), "level": level.value})
        b = call(engine, "classify", {"cards": _codes(shuffled), "level": level.value})
        assert _readings(a) == _readings(b), f"{_codes(cards)} vs {_codes(shuffled)}"

    check()


def prop_suits(engine: Engine, reference: Engine, examples: int) -> None:
    """Renaming suits (keeping hearts, the wild's suit) changes no reading but flushes'."""
    others = [Suit.SPADES, Suit.CLUBS, Suit.DIAMONDS]

    @settings(max_examples=examples, deadline=None, database=None)
    @given(_hands(8), st.permutations(others))
    def check(drawn: tuple[Rank, list[Card]], order: list[Suit]) -> None:
        level, cards = drawn
        rename = dict(zip(others, order, strict=True))
        renamed = [
            c if c.suit in (None, Suit.HEARTS) else Card(c.rank, rename[c.suit]) for c in cards
        ]
        a = call(engine, "classify", {"cards": _codes(cards), "level": level.value})
        b = call(engine, "classify", {"cards": _codes(renamed), "level": level.value})
        plain = [r for r in _readings(a) if "straight_flush" not in r]
        assert plain == [r for r in _readings(b) if "straight_flush" not in r]

    check()


def prop_beats(engine: Engine, reference: Engine, examples: int) -> None:
    """beats is irreflexive and asymmetric over the plays of random hands."""

    @settings(max_examples=examples, deadline=None, database=None)
    @given(_hands(10), _hands(10))
    def check(first: tuple[Rank, list[Card]], second: tuple[Rank, list[Card]]) -> None:
        level = first[0]
        mine = call(engine, "legal_plays", {"hand": _codes(first[1]), "level": level.value})
        theirs = call(engine, "legal_plays", {"hand": _codes(second[1]), "level": level.value})
        for a in mine["plays"][:6]:
            itself = call(
                engine, "beats", {"play": strip(a), "previous": strip(a), "level": level.value}
            )["beats"]
            assert not itself, f"{strip(a)} beats itself at level {level.value}"
            for b in theirs["plays"][:6]:
                ab = call(
                    engine, "beats", {"play": strip(a), "previous": strip(b), "level": level.value}
                )["beats"]
                ba = call(
                    engine, "beats", {"play": strip(b), "previous": strip(a), "level": level.value}
                )["beats"]
                assert not (ab and ba), f"{strip(a)} and {strip(b)} beat each other"

    check()


def prop_plays_classify(engine: Engine, reference: Engine, examples: int) -> None:
    """Every legal play's cards classify to its reading."""

    @settings(max_examples=examples, deadline=None, database=None)
    @given(_hands(12))
    def check(drawn: tuple[Rank, list[Card]]) -> None:
        level, cards = drawn
        plays = call(engine, "legal_plays", {"hand": _codes(cards), "level": level.value})
        for play in plays["plays"]:
            if "cards" not in play:
                continue
            found = call(engine, "classify", {"cards": play["cards"], "level": level.value})
            reading = strip(play)
            assert reading in found["readings"], (play, found)

    check()


def prop_agreement(engine: Engine, reference: Engine, examples: int) -> None:
    """The engine agrees with the reference interpreter on random hands (classify, plays)."""

    @settings(max_examples=examples, deadline=None, database=None)
    @given(_hands(10))
    def check(drawn: tuple[Rank, list[Card]]) -> None:
        level, cards = drawn
        for operation, data in (
            ("classify", {"cards": _codes(cards[:6]), "level": level.value}),
            ("legal_plays", {"hand": _codes(cards), "level": level.value, "previous": None}),
        ):
            want = call(reference, operation, data)
            if operation == "legal_plays":
                want = {
                    "plays": [{k: p[k] for k in ("type", "rank", "size")} for p in want["plays"]]
                }
            got = call(engine, operation, data)
            differences = compare_output(want, got)
            assert not differences, (
                "; ".join(differences) + "\nAs a case:\n" + ready_case(operation, data, want)
            )

    check()


PROPERTIES: dict[str, Callable[[Engine, Engine, int], None]] = {
    "card-order": prop_order,
    "suit-renaming": prop_suits,
    "beats-irreflexive-asymmetric": prop_beats,
    "legal-plays-classify": prop_plays_classify,
    "agrees-with-reference": prop_agreement,
}
