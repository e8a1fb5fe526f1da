"""The journal of a run (結果日誌): results appended as they come, and read back to resume."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterable
from pathlib import Path

from harness.conformance.running.jsonread import read_json
from harness.conformance.running.results import CaseResult, json_text
from harness.errors import HarnessError
from harness.model._files import read_regular_text


class Journal:
    """Results appended as JSON lines as they come, so an interrupted run loses nothing. A
    journal that cannot be written (a full disk) is given up, not the run: the report, written
    at the end, says whether the disk has room again; an empty journal is not left behind."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.lock = threading.Lock()
        self.written: set[str] = set()
        self.failed: OSError | None = None
        self.found = path is not None and path.exists()
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            # A line cut short by an interruption is ended, so that the next result is not
            # appended to it (and lost with it).
            if path.exists() and path.stat().st_size:
                with path.open("rb+") as fh:
                    fh.seek(-1, 2)
                    if fh.read(1) != b"\n":
                        fh.write(b"\n")

    def write(self, result: CaseResult) -> None:
        """Append one result (one whole line, in one write)."""
        if self.path is None or self.failed is not None:
            return
        line = json_text(result.to_json()) + "\n"
        with self.lock:
            try:
                with self.path.open("a", encoding="utf-8") as fh:
                    fh.write(line)
            except OSError as exc:
                self.failed = exc
                # A line cut short is skipped when read back; a journal this run made that
                # holds no whole line (empty, or a line's start) is nothing: it goes.
                if not self.written and not self.found:
                    with contextlib.suppress(OSError):
                        self.path.unlink()
                return
        self.written.add(result.key)

    def catch_up(self, results: Iterable[CaseResult]) -> None:
        """Append the results a Ctrl-C kept from being written, so that the journal holds every
        result the report does (a result is recorded before it is journalled)."""
        for result in results:
            if result.key not in self.written:
                self.write(result)


def read_previous(path: Path) -> list[CaseResult]:
    """The results already written for a report: the report itself, or its journal."""
    results: list[CaseResult] = []
    journal = journal_path(path)
    if path.exists():
        try:
            data = read_json(read_regular_text(path))
            cases = data.get("cases", []) if isinstance(data, dict) else None
            if not isinstance(cases, list):
                raise ValueError("no list of `cases`")
            results = [CaseResult.from_json(c) for c in cases]
        except OSError as exc:
            raise HarnessError(f"--resume {path}: cannot read it ({exc.strerror})") from None
        except (KeyError, TypeError, ValueError) as exc:
            raise HarnessError(f"--resume {path}: not a report ({exc})") from None
    if journal.exists():
        try:
            text = read_regular_text(journal)
        except OSError as exc:
            raise HarnessError(f"--resume {journal}: cannot read it ({exc.strerror})") from None
        # Lines end at \n only: `splitlines` would also cut at characters a string may hold.
        for line in text.split("\n"):
            if not line.strip():
                continue
            try:
                results.append(CaseResult.from_json(read_json(line)))
            except (KeyError, TypeError, ValueError):
                continue  # a line cut short by the interruption, or one no run wrote
    seen: dict[str, CaseResult] = {}
    for result in results:
        seen[result.key] = result
    return list(seen.values())


def journal_path(report: Path) -> Path:
    """Where the results of a run that writes `report` are journalled as they come."""
    return report.with_name(report.name + ".partial.jsonl")
