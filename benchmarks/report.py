"""Benchmark: `guandan report` on a JSON report of many failing entries, as a user runs it (a
fresh process), to the HTML dashboard and to Markdown.

Run `python benchmarks/report.py [--entries N]`; prints `name: value unit` lines: the time for
N entries, and its ratio to the time for an eighth of them in the same run. Target: that ratio
at most 8, the work no worse than linear in the entries (issue 23: the rerun command of each
failure once compared every case id with every other, 4 minutes for 32,000).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import report

ROOT = Path(__file__).resolve().parents[1]


def entries(n: int) -> list[dict[str, object]]:
    """`n` failing classify entries, as a JSON report holds them."""
    return [
        {
            "id": f"case-{i}-of-many",
            "variant": "huaian",
            "status": "fail",
            "operation": "classify",
            "clauses": [f"combinations.c{i % 50}.shape"],
            "options": {},
            "message": "readings differ",
            "differences": ['readings: missing [], unexpected [{"type": "single"}]'],
            "expected": {"readings": []},
            "actual": {"readings": [{"type": "single", "rank": "3", "size": 1}]},
            "input": {"cards": ["S3"], "level": "2"},
            "location": "mine.yaml:1:1",
        }
        for i in range(n)
    ]


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--entries", type=int, default=32000)
    args = parser.parse_args()
    cli = [sys.executable, "-m", "harness.frontends.cli", "report"]
    with tempfile.TemporaryDirectory() as tmp:
        seconds = {}
        for n in (args.entries, max(1, args.entries // 8)):
            path = Path(tmp) / f"report-{n}.json"
            doc = {
                "engine": {"spec": "exec:./mine", "name": "mine", "version": "1"},
                "variant": "huaian",
                "summary": {"fail": n},
                "ok": False,
                "cases": entries(n),
            }
            path.write_text(json.dumps(doc), encoding="utf-8")
            for kind in ("html", "markdown"):
                start = time.perf_counter()
                subprocess.run(
                    [*cli, str(path), f"--{kind}", str(Path(tmp) / f"out.{kind}")],
                    cwd=ROOT,
                    check=True,
                    capture_output=True,
                )
                seconds[n, kind] = time.perf_counter() - start
        for kind in ("html", "markdown"):
            whole = seconds[args.entries, kind]
            report(f"report_{args.entries}_failures_{kind}", whole, "s")
            eighth = seconds[max(1, args.entries // 8), kind]
            report(f"report_{kind}_over_an_eighth", whole / eighth, "x")


if __name__ == "__main__":
    main()
