"""`python -m tools.mutation`: cosmic-ray mutants of the interpreter judged by the corpus, on a
copy, seeded, with reviewed equivalents; the working tree is never changed."""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import cosmic_ray.plugins
import pytest
from cosmic_ray.work_item import MutationSpec, WorkItem

from tools.mutation import equivalents, report, session
from tools.mutation.runner import Options, run

ROOT = Path(__file__).resolve().parents[1]
INTERPRETER = ROOT / "harness" / "interpreter"


def interpreter_digest() -> str:
    """One hash over every file of the working tree's interpreter."""
    digest = hashlib.sha256()
    for path in sorted(INTERPRETER.rglob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def items(count: int, salt: str) -> list[WorkItem]:
    """`count` work items of made-up mutations, their job ids depending on `salt`."""
    return [
        WorkItem.single(
            f"{salt}{n}",
            MutationSpec(
                f"harness/interpreter/m{n % 3}.py", "core/AddNot", n, (n + 1, 0), (n + 1, 1)
            ),
        )
        for n in range(count)
    ]


def test_the_sample_is_the_seeds_alone() -> None:
    first = session.sample(items(40, "a"), 7, seed=3)
    # Other job ids, another order: cosmic-ray's ids are random and its pending items shuffled.
    again = session.sample(list(reversed(items(40, "b"))), 7, seed=3)
    assert [session.key(i) for i in first] == [session.key(i) for i in again]
    assert len(first) == 7
    other = session.sample(items(40, "a"), 7, seed=4)
    assert [session.key(i) for i in other] != [session.key(i) for i in first]
    assert len(session.sample(items(5, "a"), 7, seed=3)) == 5


def test_the_filter_keeps_exactly_the_chosen_operators() -> None:
    kept = session.kept_operators()
    names = set(cosmic_ray.plugins.operator_names())
    assert set(kept) <= names, set(kept) - names
    config = session.session_config(session.Settings("true", 5.0))
    (pattern,) = config["filters"]["operators-filter"]["exclude-operators"]
    # cr-filter-operators skips an item when the pattern matches its operator's name.
    skipped = {name for name in names if re.match(pattern, name)}
    every = [WorkItem.single(name, MutationSpec("m.py", name, 0, (1, 0), (1, 1))) for name in names]
    assert {i.job_id for i in session.filtered(every, [pattern])} == skipped
    assert names - skipped == set(kept)
    assert "core/RemoveDecorator" in skipped and "core/ReplaceBinaryOperator_Add_BitXor" in skipped
    assert config["excluded-modules"] == [
        "harness/interpreter/bots.py",
        "harness/interpreter/heuristic.py",
    ]


@pytest.mark.slow
def test_every_reviewed_equivalent_names_a_mutant_of_the_code() -> None:
    entries = equivalents.load(ROOT)
    assert equivalents.stale(ROOT, entries) == []
    assert all(entry.reason for entry in entries)


def test_an_entry_whose_line_changed_is_stale(tmp_path: Path) -> None:
    (tmp_path / "spec").mkdir()
    (tmp_path / "harness" / "interpreter").mkdir(parents=True)
    code = "def f(x):\n    return x == 1\n"
    (tmp_path / "harness" / "interpreter" / "m.py").write_text(code, encoding="utf-8")
    entry = {
        "file": "harness/interpreter/m.py",
        "function": "f",
        "operator": "core/ReplaceComparisonOperator_Eq_NotEq",
        "line": "return x == 1",
        "after": "return x != 1",
        "reason": "made up",
    }
    moved = {**entry, "line": "return x == 2", "after": "return x != 2"}
    listed = {"equivalent": [entry, moved]}
    (tmp_path / equivalents.LIST).write_text(json.dumps(listed), encoding="utf-8")
    found = equivalents.load(tmp_path)
    assert equivalents.stale(tmp_path, found) == [found[1]]


@pytest.mark.slow
def test_a_small_real_run_counts_the_killed_and_the_surviving() -> None:
    before = interpreter_digest()
    # The two `==` of scoring.py against one case that ends the match: `team(s) == winner`
    # negated swaps the amounts (killed); `settle == "match_end" and not match_over` negated is
    # still false when the match is over (survives).
    options = Options(
        sample=10,
        seed=0,
        jobs=1,
        module_paths=("harness/interpreter/scoring.py",),
        operators=("core/ReplaceComparisonOperator_Eq_NotEq",),
        check_args=("-k", "score-double-down-at-ace-default-room"),
    )
    done = run(options)
    verdicts = {o.mutant.before: o.outcome for o in done.outcomes}
    assert verdicts == {
        'if scoring.settle == "match_end" and not match_over:': "survived",
        "a, b, c, d = (win if team(s) == winner else -lose for s in range(4))": "killed",
    }
    survivor = next(o.mutant for o in done.outcomes if o.outcome == "survived")
    assert survivor.function == "score" and survivor.after.startswith("if scoring.settle !=")
    counted = report.results(done)["counts"]
    assert (counted["killed"], counted["survived"], counted["sampled"]) == (1, 1, 2)
    assert interpreter_digest() == before


@pytest.mark.slow
def test_an_interrupted_run_leaves_the_tree_and_no_copy(tmp_path: Path) -> None:
    before = interpreter_digest()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(tmp_path)}
    # The runner as `python -m tools.mutation run` calls it, on one small module (the whole
    # interpreter's cosmic-ray init alone takes 10 s).
    script = (
        "from tools.mutation.runner import Options, run; "
        "run(Options(sample=3, seed=1, jobs=2, module_paths=('harness/interpreter/scoring.py',)),"
        " progress=True)"
    )
    argv = [sys.executable, "-c", script]
    # SIGINT as a terminal gives it: a run started in the background (`cmd &` in a script, as a
    # CI job may be) inherits SIGINT ignored, and the runner would then finish, not stop.
    process = subprocess.Popen(
        argv,
        cwd=ROOT,
        env=env,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert process.stderr is not None
    line = process.stderr.readline()
    assert "sampled" in line, line
    time.sleep(1.5)  # a mutant is on disk in a copy, its corpus run going
    process.send_signal(signal.SIGINT)
    assert process.wait(timeout=30) != 0
    assert interpreter_digest() == before
    assert not list(tmp_path.glob("guandan-mutation-*"))


def test_mutants_of_a_decorators_arguments_are_left_out(tmp_path: Path) -> None:
    code = "import dataclasses\n\n\n@dataclasses.dataclass(\n    frozen=True\n)\n"
    code += "class C:\n    x: bool = True\n"
    (tmp_path / "m.py").write_text(code, encoding="utf-8")
    found = [
        WorkItem.single(
            str(line), MutationSpec("m.py", "core/ReplaceTrueWithFalse", 0, (line, 4), (line, 8))
        )
        for line in (5, 8)
    ]
    assert [item.job_id for item in session.on_decorators(tmp_path, found)] == ["5"]


def test_the_committed_score_is_on_the_strength_page_and_in_the_readme() -> None:
    from harness.frontends.docs import code_mutants_section

    data = json.loads((ROOT / report.RESULTS).read_text(encoding="utf-8"))
    counts = data["counts"]
    assert (
        counts["killed"] + counts["survived"] + counts["incompetent"] + counts["error"]
        == (counts["sampled"])
    )
    assert data["killed_percent"] == report.percent(
        counts["killed"], counts["killed"] + counts["survived"]
    )
    section = code_mutants_section()
    assert f"**{data['killed_percent']} %** killed" in section
    assert data["command"] in section and data["date"] in section
    assert f"seed {data['seed']}" in section
    assert len(re.findall(r"^- `harness/interpreter/", section, re.M)) == counts["survived"]
    guide = (ROOT / "docs" / "guide" / "fuzzing.md").read_text(encoding="utf-8")
    assert data["command"] in " ".join(guide.split())
    assert f"{data['killed_percent']} % of {counts['killed'] + counts['survived']}" in guide
