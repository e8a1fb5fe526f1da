"""`guandan fuzz`: each planted bug is found, shrunk, explained by its clause and written as one
case that fails the buggy engine and passes the reference; the reference finds nothing against
itself; the same seed gives the same findings; engines that fail are findings, not crashes."""

from __future__ import annotations

import importlib.util
import io
import json
import os
import pty
import re
import select
import shlex
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml

from harness.conformance.cases.case_loader import load_corpus
from harness.conformance.oracles.fuzz import driver, search
from harness.conformance.oracles.fuzz.driver import FuzzConfig, FuzzReport, fuzz, merge
from harness.conformance.oracles.fuzz.findings import Finding, Found
from harness.conformance.oracles.fuzz.targets import TARGETS
from harness.errors import UsageError
from harness.frontends.cli import main
from harness.frontends.cli.fuzz import parse_duration, progress_line
from harness.model.loader import load_variant
from harness.model.ruleset import Ruleset
from harness.stopping import handling_stops
from tests.conftest import slow_but

REPO = Path(__file__).resolve().parents[1]
# The profile scales the reference's own budget: a quick run by default, a long one on demand.
THOROUGH = os.environ.get("HYPOTHESIS_PROFILE") == "thorough"

# engine (tests/engines/planted.py), variant, operation, the clause the bug is in, budget.
PLANTED = [
    ("level_natural_in_tribute", "huaian", "tribute", "ranks.level_card.position", 150),
    ("wrapping_sequences", "huaian", "classify", "sequences.wrap", 300),
    ("equal_beats", "competition", "beats", "compare.equal_beats", 300),
    ("double_down_two", "huaian", "settle", "levels.up.double_down", 300),
    ("wrong_return_seat", "huaian", "tribute", "tribute.return.double_to", 150),
    ("jiefeng_next", "match-rules", "replay", "flow.jiefeng", 100),
    ("no_first_streak", "online-app", "settle", "levels.streak.firsts", 300),
    ("NoTenCardBomb", "huaian", "classify", "combinations.bomb.shape", 400),
    ("no_end_bonus", "online-app", "score", "scoring.end_bonus", 300),
    ("counts_on_request", "match-rules", "replay", "disclosure.hand_count", 100),
]


def run(*args: str) -> tuple[int, str]:
    """`guandan ARGS` in this process: exit status and what it printed."""
    out = io.StringIO()
    return main(list(args), out), out.getvalue()


# The fast tier finds the bugs whose runs take a second or two; CI finds them all.
QUICK = [p for p in PLANTED if p[0] in ("double_down_two", "wrong_return_seat", "no_end_bonus")]


@pytest.mark.parametrize(
    ("engine", "slug", "operation", "clause", "budget"), slow_but(PLANTED, *QUICK)
)
def test_each_planted_bug_is_found_shrunk_and_written_as_one_case(
    tmp_path: Path, engine: str, slug: str, operation: str, clause: str, budget: int
) -> None:
    """The bug is found within the budget, deduplicated to one case naming its clause; the case
    is valid, fails the buggy engine and passes the reference (`guandan check --cases`)."""
    spec = f"py:tests.engines.planted:{engine}"
    found, summary = tmp_path / "found", tmp_path / "summary.json"
    code, printed = run(
        "fuzz", "--engine", spec, "--variant", slug, "--operation", operation, "--seed", "0",
        "--examples", str(budget), "--out", str(found), "--json", str(summary), "--quiet",
    )  # fmt: skip
    assert code == 1, printed
    files = sorted(found.glob("*.yaml"))
    assert len(files) == 1, printed
    report = json.loads(summary.read_text(encoding="utf-8"))
    assert [f["clause"] for f in report["findings"]] == [clause], printed
    assert report["findings"][0]["case"] == str(files[0])
    assert report["examples"][operation] <= 3000
    cases, problems = load_corpus([files[0]], bundled=False)
    assert not problems, problems
    (case,) = cases
    assert case.operation == operation and case.clauses[0] == clause
    assert case.variants == (slug,) or list(case.variants) == [slug]
    checked = ("--variant", slug, "--cases", str(found), "--no-bundled")
    assert run("check", "--engine", spec, *checked)[0] == 1
    assert run("check", "--engine", "reference", *checked)[0] == 0


@pytest.mark.slow
def test_a_found_case_is_shrunk(tmp_path: Path) -> None:
    """Hypothesis's shrinker leaves a wrapping straight of five cards, not a random set."""
    code, _ = run(
        "fuzz", "--engine", "py:tests.engines.planted:wrapping_sequences", "--variant", "huaian",
        "--operation", "classify", "--examples", "300", "--out", str(tmp_path), "--quiet",
        "--shrink-seconds", "600",
    )  # fmt: skip
    assert code == 1
    (path,) = tmp_path.glob("*.yaml")
    (case,) = yaml.safe_load(path.read_text(encoding="utf-8"))["cases"]
    assert len(case["input"]["cards"]) == 5
    assert case["expected"]["readings"] == []  # the reference reads no play in J Q K A 2


def _shrink_tries(tmp_path: Path, calls: int) -> int:
    """How often the classify target explores after it first finds the planted wrapping bug, in
    that hypothesis run (its shrinker at work), the shrinker allowed `calls` candidates and 600 s;
    later runs generate examples of their own."""
    counts: list[int] = []  # per hypothesis run: explored since its first finding, or -1
    target, chunk = search.TARGETS["classify"], search._chunk

    def explore(*args: Any) -> None:
        if counts[-1] >= 0:
            counts[-1] += 1
        try:
            target.explore(*args)
        except Found:
            counts[-1] = max(counts[-1], 0)
            raise

    def one_run(*args: Any) -> Any:
        counts.append(-1)
        return chunk(*args)

    with pytest.MonkeyPatch.context() as patched:
        patched.setitem(search.TARGETS, "classify", replace(target, explore=explore))
        patched.setattr(search, "_chunk", one_run)
        patched.setattr(search, "SHRINK_CALLS", calls)
        code, _ = run(
            "fuzz", "--engine", "py:tests.engines.planted:wrapping_sequences", "--variant",
            "huaian", "--operation", "classify", "--examples", "300", "--out",
            str(tmp_path / str(calls)), "--quiet", "--shrink-seconds", "600",
        )  # fmt: skip
    assert code == 1
    return next(n for n in counts if n >= 0)


@pytest.mark.slow
def test_shrinking_is_bounded_by_its_tries_not_only_by_the_clock(tmp_path: Path) -> None:
    """Hypothesis's shrinker gets `SHRINK_CALLS` candidates whatever time is left (its cost
    differs by release): allowed 5, it explores 5 inputs after the finding at most; allowed
    the default, more."""
    assert 0 <= _shrink_tries(tmp_path, 5) <= 5
    assert _shrink_tries(tmp_path, search.SHRINK_CALLS) > 5


@pytest.mark.parametrize(
    "slug", slow_but(["huaian", "competition", "match-rules", "online-app"], "huaian")
)
def test_the_reference_finds_nothing_against_itself(slug: str) -> None:
    """Every target, the reference against the reference: no discrepancy, no error."""
    report = fuzz(
        FuzzConfig(
            engine="reference",
            ruleset=_played(slug),
            seed=7,
            examples=4000 if THOROUGH else 250,
        )
    )
    assert not report.findings, [f.to_json() for f in report.findings]
    assert not report.errors
    assert set(report.examples) == {
        "classify", "beats", "legal_plays", "legal_actions", "tribute", "settle", "score",
        "replay", "match",
    }  # fmt: skip
    assert all(n > 0 for n in report.examples.values()), report.examples


@pytest.mark.parametrize(
    ("examples", "jobs", "shard_size"),
    slow_but([(1, 1, 200), (9, 1, 200), (150, 1, 200), (150, 2, 7)], (1, 1, 200), (9, 1, 200)),
)
def test_the_budget_is_the_number_of_examples_run(
    examples: int, jobs: int, shard_size: int
) -> None:
    """`--examples N` runs N examples, reported and asked, however the targets share them (by
    weight, each target's examples a multiple of its batch or not) and in however many shards
    and processes they run: without `match` (an example of it is a whole match) the engine is
    asked N inputs."""
    config = FuzzConfig(
        engine="reference",
        ruleset=_played("huaian"),
        targets=tuple(t for t in TARGETS if t != "match"),
        seed=5,
        examples=examples,
        jobs=jobs,
        shard_size=shard_size,
    )
    report = fuzz(config)
    assert report.total == examples, report.examples
    assert sum(report.asked.values()) == examples, report.asked
    whole = fuzz(replace(config, targets=None))
    assert whole.total == examples, whole.examples


def test_the_budget_is_shared_out_whole() -> None:
    """The split of a budget among targets sums to the budget: each gets its share rounded
    down, the largest remainders one more; fewer examples than targets leave some with none."""
    weights = {name: target.weight for name, target in TARGETS.items()}
    for examples in (1, 5, 8, 150, 1000, 1001):
        shares = driver.split(examples, weights)
        assert sum(shares.values()) == examples
        assert all(n >= 0 for n in shares.values())
    # Weights 1 and 0.5: 10 examples are 6.67 and 3.33, so 7 and 3.
    assert driver.split(10, {"a": 1.0, "b": 0.5}) == {"a": 7, "b": 3}
    assert driver.split(1, {"a": 1.0, "b": 1.0}) == {"a": 1, "b": 0}


def _played(slug: str) -> Ruleset:
    """The bundled variant with its default options chosen."""
    ruleset = load_variant(slug)
    return ruleset.with_options({n: o.default for n, o in ruleset.options.items()})


def _findings(report: FuzzReport) -> list[tuple[object, object]]:
    return [(f.signature, f.input) for f in report.findings]


@pytest.mark.slow
def test_the_same_seed_gives_the_same_findings() -> None:
    """Two runs with one seed find the same discrepancies on the same inputs."""
    config = FuzzConfig(
        engine="py:tests.engines.planted:equal_beats",
        ruleset=_played("competition"),
        targets=("beats", "classify"),
        seed=3,
        examples=200,
    )
    first, second = fuzz(config), fuzz(config)
    assert first.findings
    assert _findings(first) == _findings(second)
    assert first.examples == second.examples


def test_an_engine_that_raises_is_a_finding_and_the_run_goes_on(tmp_path: Path) -> None:
    """A Python engine raising in classify: one finding (error:exception), case written, and
    operations it does not declare are not fuzzed."""
    code, printed = run(
        "fuzz", "--engine", "py:tests.engines.pyengines:Raises", "--variant", "huaian",
        "--examples", "40", "--out", str(tmp_path), "--json", "-", "--quiet",
    )  # fmt: skip
    assert code == 1
    summary = json.loads(printed)  # `--json -`: stdout is the summary alone
    assert [f["kind"] for f in summary["findings"]] == ["error:exception"]
    assert "ZeroDivisionError" in summary["findings"][0]["error"]
    assert summary["targets"] == ["classify"]
    assert len(list(tmp_path.glob("*.yaml"))) == 1


def test_a_crashing_process_engine_is_a_finding(tmp_path: Path) -> None:
    """An engine process that exits on classify: an error finding whose case fails it."""
    engine = f"exec:{sys.executable} {REPO / 'tests/engines/broken.py'} crash-on-classify"
    code, printed = run(
        "fuzz", "--engine", engine, "--variant", "huaian", "--operation", "classify",
        "--examples", "20", "--out", str(tmp_path), "--quiet",
    )  # fmt: skip
    assert code == 1, printed
    assert "error:crash" in printed
    checked = ("--variant", "huaian", "--cases", str(tmp_path), "--no-bundled")
    assert run("check", "--engine", engine, *checked)[0] == 1
    assert run("check", "--engine", "reference", *checked)[0] == 0


@pytest.mark.slow
def test_fields_not_modelled_are_left_out() -> None:
    """An engine without hand counts that says so is clean; one that does not say so is not."""
    declared = FuzzConfig(
        engine="py:tests.engines.pyengines:NoCounts",
        ruleset=_played("match-rules"),
        targets=("replay",),
        examples=30,
    )
    assert not fuzz(declared).findings
    undeclared = FuzzConfig(
        engine="py:tests.engines.pyengines:make_no_counts_undeclared",
        ruleset=_played("match-rules"),
        targets=("replay",),
        examples=60,
    )
    kinds = {f.kind for f in fuzz(undeclared).findings}
    assert kinds and all("counts" in k for k in kinds), kinds


def test_a_time_budget_ends_the_run() -> None:
    """`--time 2s`: some examples run, and the run stops soon after the time is up."""
    report = fuzz(
        FuzzConfig(
            engine="reference",
            ruleset=_played("huaian"),
            targets=("classify",),
            examples=None,
            seconds=2,
        )
    )
    assert report.total > 0
    assert report.seconds < 15


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--operation", "shuffle"], "unknown operation shuffle"),
        (["--time", "soon"], "expected a duration"),
        (["--time", "0s"], "expected a duration"),
        (["--time", "200h"], "at most a week"),
        (["--examples", "0"], "at least 1"),
        (["--jobs", "0"], "at least 1"),
    ],
)
def test_usage_errors(args: list[str], words: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Bad arguments are usage errors (exit 2) with a message, not tracebacks."""
    code, _ = run("fuzz", "--engine", "reference", "--variant", "huaian", *args)
    assert code == 2
    assert words in capsys.readouterr().err


def test_the_operations_named_in_the_help_are_the_targets() -> None:
    """`--operation`'s help (written out, so that `guandan` starts without hypothesis) lists
    exactly the fuzz targets."""
    from harness.conformance.oracles.fuzz.targets import TARGETS
    from harness.frontends.cli.fuzz import OPERATIONS

    assert OPERATIONS.split(", ") == list(TARGETS)


def test_parse_duration() -> None:
    """Durations in seconds, minutes or hours."""
    assert parse_duration("60") == 60
    assert parse_duration("1.5s") == 1.5
    assert parse_duration("5m") == 300
    assert parse_duration("1h") == 3600
    with pytest.raises(UsageError):
        parse_duration("-1s")


def _finding(cards: list[str], clause: str = "sequences.wrap") -> Finding:
    return Finding(
        "classify",
        {"cards": cards, "level": "2"},
        {"readings": [], "default": None},
        {"readings": [{"type": "straight", "rank": "2", "size": 5}]},
        ("readings: unexpected",),
        "readings:extra",
        clause=clause,
        explained_by=f"{clause}: true",
    )


def test_findings_merge_by_signature_keeping_the_smallest() -> None:
    """One finding per signature, the smallest example, whatever order the shards came in."""
    big = _finding(["SJ", "SQ", "SK", "SA", "S2", "D9"])
    small = _finding(["SJ", "SQ", "SK", "SA", "S2"])
    other = _finding(["SJ", "SQ", "SK", "SA", "S2"], clause="combinations.straight.shape")
    for order in ([[big], [small, other]], [[other, small], [big]]):
        merged = merge(order)
        assert [f.input["cards"] for f in merged] == [small.input["cards"]] * 2
        assert {f.clause for f in merged} == {"sequences.wrap", "combinations.straight.shape"}


def test_findings_explained_by_a_value_in_common_are_one() -> None:
    """One planted bug (no streak of firsts) seen twice: one example only `null` explains, the
    other `null` or a later streak equally; they are one finding, the one with one fit kept,
    whatever order the shards came in. A finding of another value stays apart."""
    null = "levels.streak.firsts = null"
    later = 'levels.streak.firsts = {"from": 4, "levels": 1, "step": 1}'

    def settle(fits: tuple[str, ...], size: int) -> Finding:
        return Finding(
            "settle",
            {"state": {"levels": ["2"] * size}, "finish": [0, 2, 1, 3]},
            {"changes": [6, 0]},
            {"changes": [3, 0]},
            ("changes[0]: expected 6, found 3",),
            "changes",
            clause="levels.streak.firsts",
            explained_by=", or ".join(fits),
            fits=fits,
        )

    alone, both = settle((null,), 3), settle((null, later), 1)
    apart = settle(('levels.streak.firsts = {"from": 2, "levels": 1, "step": 1}',), 1)
    for order in ([[both], [alone, apart]], [[apart, alone], [both]]):
        merged = merge(order)
        assert len(merged) == 2
        assert alone in merged and apart in merged


@pytest.mark.slow
def test_the_progress_line_counts_by_operation() -> None:
    """The live line: examples, rate and discrepancies per operation."""
    report = fuzz(
        FuzzConfig(
            engine="py:tests.engines.planted:equal_beats",
            ruleset=_played("competition"),
            targets=("beats",),
            examples=100,
        )
    )
    line = progress_line(report, report.total)
    assert line.startswith(f"fuzz: {report.total:,} examples (")
    assert "beats 1" in line and "classify 0" in line


def test_an_interrupt_a_library_wraps_is_still_the_stop(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C that lands in hypothesis' own code reaches the driver as an AssertionError (seen
    in CI): once SIGINT was received, the run is interrupted, not failed with a traceback."""

    def shard_interrupted_inside_a_library(shard: object, progress: object) -> object:
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(5)  # the handler raises before this ends
        except KeyboardInterrupt:
            raise AssertionError("state._runner is not None") from None
        raise AssertionError("SIGINT did not arrive")

    monkeypatch.setattr(driver, "run_shard", shard_interrupted_inside_a_library)
    config = FuzzConfig(
        engine="reference", ruleset=_played("huaian"), targets=("classify",), examples=10
    )
    with handling_stops():
        report = fuzz(config)
    assert report.interrupted
    # Without a stop received, the same error is the run's failure.
    monkeypatch.setattr(driver, "run_shard", _raises_assertion)
    with pytest.raises(AssertionError, match="a real bug"):
        fuzz(config)


def _raises_assertion(shard: object, progress: object) -> object:
    raise AssertionError("a real bug")


@pytest.mark.parametrize("jobs", slow_but(["1", "2"], "1"))
def test_ctrl_c_stops_promptly_with_the_report_of_what_finished(tmp_path: Path, jobs: str) -> None:
    """SIGINT stops a time-budgeted run at once (its worker processes too), with exit 130 and
    the summary of the shards that finished."""
    summary = tmp_path / "summary.json"
    command = [
        sys.executable, "-m", "harness.frontends.cli", "fuzz", "--engine", "reference",
        "--variant", "huaian", "--operation", "classify", "--time", "120s", "--jobs", jobs,
        "--json", str(summary),
    ]  # fmt: skip
    # stderr is a terminal, so the run shows its progress line: SIGINT goes once the fuzzing
    # has begun, however long the start takes on a loaded machine.
    terminal, stderr = pty.openpty()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=stderr, text=True)
    os.close(stderr)
    try:
        err = _read_until(terminal, "fuzz:", seconds=120)
        assert "fuzz:" in err, err
        process.send_signal(signal.SIGINT)
        started = time.monotonic()
        out, _ = process.communicate(timeout=60)
        err += _read_until(terminal, None, seconds=10)
    finally:
        process.kill()
        os.close(terminal)
    assert time.monotonic() - started < 10
    assert process.returncode == 130, err
    assert "(interrupted)" in out
    report = json.loads(summary.read_text(encoding="utf-8"))
    assert report["interrupted"] is True
    assert "Traceback" not in err


def _read_until(terminal: int, words: str | None, seconds: float) -> str:
    """What the terminal `terminal` shows until it shows `words` (None: until it closes), for
    at most `seconds`."""
    text = ""
    deadline = time.monotonic() + seconds
    while (words is None or words not in text) and time.monotonic() < deadline:
        ready, _, _ = select.select([terminal], [], [], 0.5)
        if not ready:
            continue
        try:
            chunk = os.read(terminal, 4096)
        except OSError:  # the other side closed
            break
        if not chunk:
            break
        text += chunk.decode("utf-8", "replace")
    return text


# ---------------------------------------------------------------------------------------------
# Coverage: what was compared, never a silent green (issue 22)


def test_an_engine_that_refuses_every_input_is_no_clean_bill(tmp_path: Path) -> None:
    summary = tmp_path / "summary.json"
    code, printed = run(
        "fuzz", "--engine", "py:tests.engines.pyengines:RefusesEveryInput", "--variant", "huaian",
        "--examples", "60", "--json", str(summary),
    )  # fmt: skip
    assert code == 1, printed
    data = json.loads(summary.read_text(encoding="utf-8"))
    asked = data["asked"]["classify"]
    assert asked >= 60 and data["refused"] == {"classify": asked} and data["compared"] == 0
    assert f"classify: the engine refused {asked} of {asked} inputs (unsupported)" in printed
    assert "NOT PASSED: nothing was compared" in printed
    assert "no discrepancy found" not in printed


def test_a_correct_partial_engine_is_not_blamed_and_its_refusals_are_told(tmp_path: Path) -> None:
    """Classify for one to three cards only, as a day-one engine: nothing found, exit 0, and the
    share of inputs it refused is said."""
    summary = tmp_path / "summary.json"
    code, printed = run(
        "fuzz", "--engine", "py:tests.engines.pyengines:SmallClassifier", "--variant", "huaian",
        "--examples", "200", "--json", str(summary),
    )  # fmt: skip
    assert code == 0, printed
    assert "no discrepancy found" in printed
    data = json.loads(summary.read_text(encoding="utf-8"))
    refused = data["refused"]["classify"]
    assert 0 < refused < data["asked"]["classify"] == 200
    assert data["compared"] == 200 - refused
    assert f"classify: the engine refused {refused} of 200 inputs" in printed


@pytest.mark.slow
def test_the_command_it_prints_is_shell_quoted(tmp_path: Path) -> None:
    """An exec: engine's spec holds spaces: the `check them:` line runs as printed."""
    engine = f"exec:{sys.executable} {REPO / 'tests' / 'engines' / 'broken.py'} wrong-reading"
    found = tmp_path / "found dir"
    code, printed = run(
        "fuzz", "--engine", engine, "--variant", "huaian", "--operation", "classify",
        "--examples", "100", "--out", str(found),
    )  # fmt: skip
    assert code == 1, printed
    (line,) = [x for x in printed.splitlines() if x.startswith("check them: ")]
    argv = shlex.split(line.removeprefix("check them: "))
    assert argv == [
        "guandan", "check", "--engine", engine, "--variant", "huaian", "--cases", str(found),
        "--no-bundled",
    ]  # fmt: skip


def test_names_an_engine_answers_never_become_paths(tmp_path: Path) -> None:
    """Issue 23: a reading type `../../escaped/xxx…` (300 characters) gives case files named from
    a fixed alphabet and length, all in `--out`, and the summary is written."""
    out, summary = tmp_path / "found", tmp_path / "summary.json"
    code, printed = run(
        "fuzz", "--engine", "py:tests.engines.pyengines:PathLikeTypes", "--variant", "huaian",
        "--examples", "20", "--out", str(out), "--json", str(summary), "--quiet",
    )  # fmt: skip
    assert code == 1, printed
    written = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    cases = [p for p in written if p.parent == Path("found")]
    assert cases and set(written) == {*cases, Path("summary.json")}, written
    assert all(re.fullmatch(r"fuzz-[a-z0-9-]{1,90}\.yaml", p.name) for p in cases), cases
    findings = json.loads(summary.read_text(encoding="utf-8"))["findings"]
    clauses = load_variant("huaian").clauses
    assert all(f["clause"] is None or f["clause"] in clauses for f in findings), findings


@pytest.mark.parametrize("jobs", slow_but(["1", "2"], "1"))
def test_a_fuzz_run_leaves_nothing_in_the_current_folder(tmp_path: Path, jobs: str) -> None:
    """Hypothesis keeps its storage in a folder of the run's own, removed after it (newer
    releases write the constants they read off the source there, and the default is
    `.hypothesis/` in the current folder), in the worker processes too; a folder the user
    names for it is used."""
    here, mine, temporary = tmp_path / "here", tmp_path / "mine", tmp_path / "tmp"
    for folder in (here, temporary):
        folder.mkdir()
    command = [sys.executable, "-m", "harness.frontends.cli", "fuzz", "--engine", "reference"]
    command += ["--variant", "huaian", "--examples", "30", "--quiet", "--jobs", jobs]
    env = {**os.environ, "PYTHONPATH": str(REPO), "TMPDIR": str(temporary)}
    env.pop("HYPOTHESIS_STORAGE_DIRECTORY", None)
    done = subprocess.run(command, cwd=here, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert list(here.iterdir()) == []
    assert list(temporary.iterdir()) == []  # its own folder is gone too
    env["HYPOTHESIS_STORAGE_DIRECTORY"] = str(mine)
    done = subprocess.run(command, cwd=here, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert list(here.iterdir()) == []
    # Only the releases that read constants write anything with the example database off.
    reads_constants = importlib.util.find_spec("hypothesis.internal.constants_ast") is not None
    assert mine.exists() == reads_constants
