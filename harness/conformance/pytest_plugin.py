"""The pytest plugin (測試外掛): `pytest --guandan-engine=SPEC --guandan-variant=V` collects the
corpus as tests named by case id, and adds property tests run through the engine's adapter.

`--guandan-cases PATH` adds one's own case files (or folders), `--guandan-no-bundled` leaves the
bundled corpus out; each problem in a case file is a failing test of its own, located, and the
valid cases still run. Fields the engine does not model (`EngineInfo.not_modelled`) are not
compared; a case that passes only with such omissions passes with an `OmittedFields` warning and
the user property `guandan_status=omitted`. An engine that refuses a case's option set
(`OptionRefused`, or a refused hello) has those cases skipped as unsupported.

Property tests: readings do not depend on card order or on renaming suits (where no flush is
involved); beats is irreflexive and asymmetric; every legal play classifies to its reading; and
`guandan fuzz`'s targets (one per operation the engine supports, and whole matches) with the
same generators and comparisons: each discrepancy is shrunk and printed as a ready-to-add case.
`--guandan-examples` is the budget of each property, `--guandan-seed` its seed.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, reject, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable

from harness.conformance.cases.case_loader import Case, load_corpus
from harness.conformance.judging.judge import refused_as_expected, weigh
from harness.conformance.judging.soundness import soundness
from harness.conformance.oracles.fuzz.driver import case_yaml
from harness.conformance.oracles.fuzz.findings import Finding
from harness.conformance.oracles.fuzz.search import Shard, search
from harness.conformance.oracles.fuzz.targets import TARGETS
from harness.conformance.running.results import RunConfig
from harness.conformance.running.selection import select
from harness.conformance.running.session import EnginePool
from harness.engine import Engine, EngineError, Json, ReferenceEngine, call
from harness.errors import EngineErrorKind, HarnessError
from harness.model.bounds import COUNT, SECONDS
from harness.model.cards import Card, Rank, Suit
from harness.model.derived import is_derived
from harness.model.diagnostics import Problem
from harness.model.loader import load_variant_spec
from harness.model.ruleset import Ruleset
from harness.strategies import hands_with_wilds, levels

# One engine per variant and choice of options, and the option sets the engine refused to start
# for (asked once, not once per case).
_ENGINES = EnginePool()


class OmittedFields(pytest.PytestWarning):
    """A case passed with omissions: fields the engine does not model were not compared."""


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
        "--guandan-cases",
        action="append",
        default=[],
        metavar="PATH",
        help="your own case file or folder of case files, run with the bundled corpus",
    )
    group.addoption(
        "--guandan-no-bundled",
        action="store_true",
        default=False,
        help="leave the bundled corpus out: run only the cases of --guandan-cases",
    )
    group.addoption(
        "--guandan-timeout",
        type=SECONDS,
        default=10.0,
        metavar="SECONDS",
        help="seconds the engine may take to answer",
    )
    group.addoption(
        "--guandan-examples",
        type=COUNT,
        default=50,
        metavar="N",
        help="hypothesis examples per property test and per fuzzed operation",
    )
    group.addoption(
        "--guandan-seed",
        type=int,
        default=0,
        metavar="S",
        help="the seed of the property tests and the fuzzing (the same seed, the same examples)",
    )


def _engine(config: pytest.Config, ruleset: Ruleset, asked: Ruleset | None = None) -> Engine:
    """The engine for `ruleset`, started once; a refusal to start for it skips the test.

    A variant derived for cases on values no bundled variant plays (`huaian[...]`) was not
    asked for: its cases apply only to an engine whose hello for the variant `asked` says it
    plays derived variants (`rulesets`), and are skipped as not applicable for any other,
    without starting it for them (as `guandan check` judges it); an engine that claims them yet
    cannot start for one, or plays another, has its cases skipped as unsupported."""
    spec = config.getoption("guandan_engine")
    derived = is_derived(ruleset)
    if derived and asked is not None:
        try:
            claims = _ENGINES.engine(spec, asked, config.getoption("guandan_timeout"))
        except HarnessError:
            claims = None
        if claims is None or not claims.describe().plays_derived:
            pytest.skip(
                f"not applicable: {ruleset.slug} is derived for cases, and the engine does not "
                "claim to play derived variants (`rulesets` in its hello)"
            )
    try:
        engine = _ENGINES.engine(spec, ruleset, config.getoption("guandan_timeout"))
    except EngineError as exc:
        if exc.kind is not EngineErrorKind.UNSUPPORTED and not derived:
            raise
        pytest.skip(f"unsupported: the engine refused {ruleset.slug}: {exc}")
    except HarnessError as exc:
        if not derived:
            raise
        pytest.skip(f"unsupported: the engine did not start for {ruleset.slug}: {exc}")
    if derived and engine.describe().variant != ruleset.slug:
        pytest.skip(
            f"unsupported: the engine plays {engine.describe().variant!r}, not {ruleset.slug!r}"
        )
    return engine


def pytest_unconfigure(config: pytest.Config) -> None:
    """Close every engine the session started."""
    _ENGINES.close()


class CaseItem(pytest.Item):
    """One corpus case run on the engine, for a variant with the case's options chosen."""

    def __init__(self, *, case: Case, ruleset: Ruleset, asked: Ruleset, **kwargs: Any):
        super().__init__(**kwargs)
        self.case = case
        self.ruleset = ruleset
        self.asked = asked

    def runtest(self) -> None:
        """Ask the engine and compare with the expected output."""
        engine = _engine(self.config, self.ruleset, self.asked)
        try:
            actual = call(engine, self.case.operation, self.case.input)
        except EngineError as exc:
            if exc.kind == "unsupported":
                pytest.skip(f"unsupported: {exc}")
            if refused_as_expected(self.case.expected, exc):
                return  # the impossible input refused, as the case expects
            raise
        not_modelled = engine.describe().not_modelled
        case = self.case
        sound = soundness(case.operation, case.input, self.ruleset, not_modelled)
        found = weigh(
            case.expected,
            actual,
            not_modelled=not_modelled,
            sound=sound,
            impossible=case.description,
        )
        if not found.agrees:
            raise CaseFailed(self.case, actual, list(found.differences))
        omitted = found.omitted
        if omitted:
            # Passed with omissions: told apart from a plain pass, never counted as a failure.
            self.user_properties.append(("guandan_status", "omitted"))
            self.user_properties.append(("guandan_omitted", ", ".join(omitted)))
            self.warn(
                OmittedFields(
                    f"{self.case.id}: passed with omissions ({', '.join(omitted)} not "
                    "compared: the engine does not model it)"
                )
            )

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


class ProblemItem(pytest.Item):
    """A problem in a case file: a failing test, located, so that the session fails while the
    valid cases still run."""

    def __init__(self, *, problem: Problem, **kwargs: Any):
        super().__init__(**kwargs)
        self.problem = problem

    def runtest(self) -> None:
        """Fail with the problem."""
        raise CaseFileProblem(str(self.problem))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        """The problem, located."""
        return str(excinfo.value)

    def reportinfo(self) -> tuple[str, int, str]:
        """Where the problem is."""
        return self.problem.location.file, self.problem.location.line - 1, self.name


class CaseFileProblem(AssertionError):
    """A problem in a case file (the case it concerns did not run)."""


class PropertyItem(pytest.Item):
    """One property test, run through the engine's adapter with hypothesis."""

    def __init__(
        self,
        *,
        check: Callable[[Engine, ReferenceEngine, int, int], None],
        ruleset: Ruleset,
        operations: tuple[str, ...] = (),
        **kwargs: Any,
    ):
        super().__init__(**kwargs)
        self.check = check
        self.ruleset = ruleset
        self.operations = operations

    def runtest(self) -> None:
        """Run the property, if the engine declares every operation it asks; skip it when the
        engine answered none of the inputs drawn (a partial engine is judged on what it does)."""
        engine = _engine(self.config, self.ruleset)
        missing = [op for op in self.operations if op not in engine.describe().operations]
        if missing:
            pytest.skip(f"unsupported: the engine does not declare {', '.join(missing)}")
        reference = ReferenceEngine(self.ruleset)
        try:
            self.check(
                engine,
                reference,
                self.config.getoption("guandan_examples"),
                self.config.getoption("guandan_seed"),
            )
        except Unsatisfiable:
            pytest.skip("unsupported: the engine answered none of the inputs drawn")

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        """The property, what differs and the shrunk input, without the harness's internals."""
        error = excinfo.value
        said = str(error) if isinstance(error, AssertionError) else f"the engine failed: {error}"
        notes = [str(n) for n in getattr(error, "__notes__", ())]
        doc = (self.check.__doc__ or "").strip().splitlines()
        head = f"{self.name}: {doc[0]}" if doc else self.name
        return "\n".join([head, *(f"  {line}" for line in said.splitlines()), *notes])


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
            # Every option with a value, as the cases get them: the defaults where none is given.
            played = base.with_options(
                {**{n: o.default for n, o in base.options.items()}, **options}
            )
        except HarnessError as exc:
            raise pytest.UsageError(f"--guandan-variant {variant}: {exc}") from None
        paths = [Path(p) for p in config.getoption("guandan_cases")]
        for path in paths:
            if not path.exists():
                raise pytest.UsageError(f"--guandan-cases {path}: no such case file or folder")
        no_bundled = config.getoption("guandan_no_bundled")
        if no_bundled and not paths:
            raise pytest.UsageError("--guandan-no-bundled needs --guandan-cases PATH")
        cases, problems = load_corpus(paths, bundled=not no_bundled)
        for problem in problems:
            where = problem.location
            yield ProblemItem.from_parent(
                self,
                name=f"case-file-problem[{where.file}:{where.line}:{where.column}]",
                problem=problem,
            )
        run = RunConfig(engine=config.getoption("guandan_engine"), variants=[base], options=options)
        for item in select(run, cases):
            yield CaseItem.from_parent(
                self, name=item.case.id, case=item.case, ruleset=item.ruleset, asked=played
            )
        for name, check in PROPERTIES.items():
            yield PropertyItem.from_parent(
                self,
                name=f"property-{name}",
                check=check,
                ruleset=played,
                operations=PROPERTY_OPERATIONS.get(name, ()),
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


def _hands(max_size: int) -> st.SearchStrategy[tuple[Rank, list[Card]]]:
    return levels().flatmap(lambda lv: st.tuples(st.just(lv), hands_with_wilds(lv, 1, max_size)))


def _property_settings(examples: int) -> settings:
    """The settings of one property run (性質測試): the hypothesis profile loaded when it runs,
    with `examples` inputs, no deadline, no database and no explain phase."""
    # Read at run time, not at import: the plugin is imported before the session's conftest
    # files, so a profile they load (phases, verbosity, derandomize) would be ignored.
    loaded = settings()
    return settings(
        loaded,
        max_examples=examples,
        deadline=None,
        database=None,
        # Many inputs may be dropped, not failed: those a partial engine answers `unsupported`,
        # so many that hypothesis would call the property a filter.
        suppress_health_check=[
            *loaded.suppress_health_check,
            HealthCheck.filter_too_much,
            HealthCheck.too_slow,
        ],
        # The explain phase varies each part of the shrunk failure to say which parts do not
        # matter: some 400 more runs of the beats property in the plugin's test, each asking
        # the engine dozens of times, for a note on hypothesis's drawing, not on the engine's
        # answers. The shrunk input stands.
        phases=[p for p in loaded.phases if p is not Phase.explain],
    )


def _ask(engine: Engine, operation: str, data: dict[str, Any]) -> Json:
    """The engine's answer; an input it answers `unsupported` is dropped from the property."""
    try:
        return call(engine, operation, data)
    except EngineError as exc:
        if exc.kind is EngineErrorKind.UNSUPPORTED:
            reject()
        raise


def prop_order(engine: Engine, reference: ReferenceEngine, examples: int, seed: int) -> None:
    """A reading never depends on the order of the cards given."""

    @hypothesis_seed(seed)
    @settings(_property_settings(examples))
    @given(_hands(8), st.randoms(use_true_random=False))
    def check(drawn: tuple[Rank, list[Card]], rng: random.Random) -> None:
        level, cards = drawn
        shuffled = list(cards)
        rng.shuffle(shuffled)
        a = _ask(engine, "classify", {"cards": _codes(cards), "level": level.value})
        b = _ask(engine, "classify", {"cards": _codes(shuffled), "level": level.value})
        assert _readings(a) == _readings(b), f"{_codes(cards)} vs {_codes(shuffled)}"

    check()


def prop_suits(engine: Engine, reference: ReferenceEngine, examples: int, seed: int) -> None:
    """Renaming suits (keeping hearts, the wild's suit) changes no reading but flushes'."""
    others = [Suit.SPADES, Suit.CLUBS, Suit.DIAMONDS]

    @hypothesis_seed(seed)
    @settings(_property_settings(examples))
    @given(_hands(8), st.permutations(others))
    def check(drawn: tuple[Rank, list[Card]], order: list[Suit]) -> None:
        level, cards = drawn
        rename = dict(zip(others, order, strict=True))
        renamed = [
            c if c.suit is None or c.suit is Suit.HEARTS else Card(c.rank, rename[c.suit])
            for c in cards
        ]
        a = _ask(engine, "classify", {"cards": _codes(cards), "level": level.value})
        b = _ask(engine, "classify", {"cards": _codes(renamed), "level": level.value})
        plain = [r for r in _readings(a) if "straight_flush" not in r]
        assert plain == [r for r in _readings(b) if "straight_flush" not in r]

    check()


def prop_beats(engine: Engine, reference: ReferenceEngine, examples: int, seed: int) -> None:
    """beats is irreflexive and asymmetric over the plays of random hands."""

    @hypothesis_seed(seed)
    @settings(_property_settings(examples))
    @given(_hands(10), _hands(10))
    def check(first: tuple[Rank, list[Card]], second: tuple[Rank, list[Card]]) -> None:
        level = first[0]
        mine = _ask(engine, "legal_plays", {"hand": _codes(first[1]), "level": level.value})
        theirs = _ask(engine, "legal_plays", {"hand": _codes(second[1]), "level": level.value})
        for a in mine["plays"][:6]:
            itself = _ask(
                engine, "beats", {"play": strip(a), "previous": strip(a), "level": level.value}
            )["beats"]
            assert not itself, f"{strip(a)} beats itself at level {level.value}"
            for b in theirs["plays"][:6]:
                ab = _ask(
                    engine, "beats", {"play": strip(a), "previous": strip(b), "level": level.value}
                )["beats"]
                ba = _ask(
                    engine, "beats", {"play": strip(b), "previous": strip(a), "level": level.value}
                )["beats"]
                assert not (ab and ba), f"{strip(a)} and {strip(b)} beat each other"

    check()


def prop_plays_classify(
    engine: Engine, reference: ReferenceEngine, examples: int, seed: int
) -> None:
    """Every legal play's cards classify to its reading."""

    @hypothesis_seed(seed)
    @settings(_property_settings(examples))
    @given(_hands(12))
    def check(drawn: tuple[Rank, list[Card]]) -> None:
        level, cards = drawn
        plays = _ask(engine, "legal_plays", {"hand": _codes(cards), "level": level.value})
        for play in plays["plays"]:
            if "cards" not in play:
                continue
            found = _ask(engine, "classify", {"cards": play["cards"], "level": level.value})
            reading = strip(play)
            assert reading in found["readings"], (play, found)

    check()


def fuzz_property(target: str) -> Callable[[Engine, ReferenceEngine, int, int], None]:
    """The engine agrees with the reference interpreter on one `guandan fuzz` target: the same
    generators and comparisons, each discrepancy shrunk and shown as a ready-to-add case."""

    def check(engine: Engine, reference: ReferenceEngine, examples: int, seed: int) -> None:
        info = engine.describe()
        if not set(TARGETS[target].operations) & set(info.operations):
            pytest.skip(f"unsupported: the engine supports none of {TARGETS[target].operations}")
        shard = Shard(
            "plugin",
            reference.ruleset,
            target,
            seed,
            0,
            examples,
            tuple(info.operations),
            tuple(info.not_modelled),
        )
        result = search(engine, shard)
        if result.findings:
            raise FuzzFailed(result.findings, reference.ruleset, info.name, seed)

    check.__doc__ = (
        f"The engine agrees with the reference on {target} ({TARGETS[target].description})."
    )
    return check


class FuzzFailed(AssertionError):
    """Discrepancies found by fuzzing, each with its case."""

    def __init__(self, findings: list[Finding], ruleset: Ruleset, engine: str, seed: int) -> None:
        lines = []
        for f in findings:
            lines.append(f"{f.operation}: {f.clause} ({f.kind})")
            lines.append(f"  {f.verdict}")
            lines += [f"  differs: {d}" for d in f.differences[:5]]
            lines.append("  as a case (save it and run it with --guandan-cases):")
            lines += ["    " + x for x in case_yaml(f, ruleset, engine, seed).splitlines()]
        super().__init__("\n".join(lines))


# The operations each property asks: it runs only for an engine that declares them all (the
# fuzz properties skip by themselves unless the engine declares one of their target's).
PROPERTY_OPERATIONS: dict[str, tuple[str, ...]] = {
    "card-order": ("classify",),
    "suit-renaming": ("classify",),
    "beats-irreflexive-asymmetric": ("legal_plays", "beats"),
    "legal-plays-classify": ("legal_plays", "classify"),
}

PROPERTIES: dict[str, Callable[[Engine, ReferenceEngine, int, int], None]] = {
    "card-order": prop_order,
    "suit-renaming": prop_suits,
    "beats-irreflexive-asymmetric": prop_beats,
    "legal-plays-classify": prop_plays_classify,
    **{f"fuzz-{name}": fuzz_property(name) for name in TARGETS},
}
