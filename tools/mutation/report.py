"""The run's summary for a reader and its results file for the site."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness import __version__
from tools.mutation.runner import Run

RESULTS = Path("spec") / "code-mutants-score.json"


def counts(run: Run) -> dict[str, int]:
    """How many sampled mutants ended each way, and how many survivors are reviewed equivalent."""
    tally = {"sampled": len(run.outcomes)}
    for name in ("killed", "survived", "incompetent", "error"):
        tally[name] = sum(1 for o in run.outcomes if o.outcome == name)
    tally["equivalent"] = sum(1 for o in run.outcomes if o.equivalent is not None)
    return tally


def percent(part: int, whole: int) -> float:
    """`part` of `whole` in per cent, one decimal (0 of nothing is 0)."""
    return round(100 * part / whole, 1) if whole else 0.0


def command(run: Run) -> str:
    """The command line that makes this run."""
    return f"python -m tools.mutation run --sample {run.options.sample} --seed {run.options.seed}"


def results(run: Run) -> dict[str, Any]:
    """The results file's content."""
    tally = counts(run)
    judged = tally["killed"] + tally["survived"]
    return {
        "command": command(run),
        "seed": run.options.seed,
        "sample": run.options.sample,
        "population": run.population,
        "harness_version": __version__,
        "commit": run.commit,
        "date": run.date,
        "timeout_seconds": round(run.timeout, 1),
        "counts": tally,
        "killed_percent": percent(tally["killed"], judged),
        "killed_percent_without_equivalents": percent(
            tally["killed"], judged - tally["equivalent"]
        ),
        "survivors": [
            {
                **o.mutant.to_json(),
                "equivalent": o.equivalent.reason if o.equivalent else None,
                "reviewed_as": o.equivalent.kind if o.equivalent else None,
            }
            for o in run.outcomes
            if o.outcome == "survived"
        ],
        "stale_equivalents": [e.__dict__ for e in run.stale],
    }


def write(run: Run, path: Path) -> None:
    """Write the results file."""
    path.write_text(json.dumps(results(run), indent=2, ensure_ascii=False) + "\n", "utf-8")


def summary(run: Run) -> str:
    """The run for a reader: the counts, the score, each survivor and the stale entries."""
    data = results(run)
    tally = data["counts"]
    lines = [
        f"code mutants of harness/interpreter (simulate.py left out): {tally['sampled']} "
        f"sampled of {run.population} (seed {run.options.seed})",
        f"  killed {tally['killed']}, survived {tally['survived']} "
        f"({tally['equivalent']} reviewed equivalent), incompetent {tally['incompetent']}, "
        f"errors {tally['error']}",
        f"  killed: {data['killed_percent']} % of those judged; "
        f"{data['killed_percent_without_equivalents']} % without the reviewed equivalents",
    ]
    survivors = [o for o in run.outcomes if o.outcome == "survived"]
    if survivors:
        lines.append("survivors:")
    for o in survivors:
        mark = (
            f"{o.equivalent.kind.replace('_', ' ')} (reviewed)" if o.equivalent else "not reviewed"
        )
        m = o.mutant
        lines.append(f"  {m.file}:{m.line} in {m.function} {m.operator}: {mark}")
        lines.append(f"    - {m.before}")
        lines.append(f"    + {m.after}")
    for entry in run.stale:
        lines.append(
            f"stale equivalent: {entry.file} {entry.function} {entry.operator}: {entry.line!r} "
            f"-> {entry.after!r} names no mutant of the code"
        )
    return "\n".join(lines)
