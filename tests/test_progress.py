"""Progress on every long command (issue 49, item 3): a live line on a terminal, rewritten in
place, for the rulebook PDF, mutate, fingerprint and check (as for fuzz, simulate and
compare-play); nothing with `--quiet` or off a terminal; the site build says each stage in its
log."""

from __future__ import annotations

import functools
import io
import logging
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.conformance.cases.case_loader import Case, load_cases
from harness.conformance.oracles.mutation import mutate_variants
from harness.frontends import mkdocs_hooks
from harness.frontends.cli import main, strength
from harness.frontends.cli._progress import LiveLine, clipped
from harness.model.loader import load_variant
from harness.model.mutants import mutants


class Tty(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def on_stderr(monkeypatch: pytest.MonkeyPatch, terminal: bool = True) -> io.StringIO:
    """A new stream as the command's stderr, a terminal or not (set in the test itself:
    pytest's capture puts its own back between a fixture and the test)."""
    stream = Tty() if terminal else io.StringIO()
    monkeypatch.setattr(sys, "stderr", stream)
    return stream


UNSHOWN = pytest.mark.parametrize(
    ("terminal", "quiet"), [(True, ["--quiet"]), (False, [])], ids=["quiet", "a pipe"]
)
"""A terminal with `--quiet`, and a pipe (a stream that is no terminal)."""


# --- the line itself --------------------------------------------------------------------------


def test_the_line_is_rewritten_in_place_and_erased_at_the_end() -> None:
    stream = Tty()
    with LiveLine(stream) as line:
        line.show("mutant 10/157")
        line.show("mutant 9")
    written = stream.getvalue()
    # The shorter line blanks what is left of the longer one; the end erases it all.
    assert written == "\rmutant 10/157\rmutant 9     " + "\r" + " " * 8 + "\r"


def test_end_keeps_the_line_and_goes_to_the_next() -> None:
    stream = Tty()
    line = LiveLine(stream)
    line.show("simulate: 7/7 matches")
    line.end()
    line.end()  # nothing more: the line was already ended
    assert stream.getvalue() == "\rsimulate: 7/7 matches\n"


@pytest.mark.parametrize(
    ("stream", "quiet"),
    [(io.StringIO(), False), (Tty(), True)],
    ids=["off a terminal", "quiet"],
)
def test_nothing_is_written_off_a_terminal_or_quiet(stream: io.StringIO, quiet: bool) -> None:
    with LiveLine(stream, quiet=quiet) as line:
        line.show("mutant 1/2")
        line.end()
    assert stream.getvalue() == ""


def test_a_closed_stream_is_no_terminal() -> None:
    stream = io.StringIO()
    stream.close()
    with pytest.raises(ValueError):
        stream.isatty()
    assert not LiveLine(stream).live


def test_what_is_shown_is_escaped_and_fits_the_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """A name from a file or an engine cannot move the cursor or colour the terminal, and a
    long line is cut to the terminal's width (a Chinese character takes two columns)."""
    monkeypatch.setenv("COLUMNS", "30")
    stream = Tty()
    line = LiveLine(stream)
    line.show("engine \x1b[2J\rname")
    assert stream.getvalue() == "\rengine \\x1b[2J\\rname"
    line.show("雙下" * 40)
    assert stream.getvalue().endswith("\r" + "雙下" * 7)  # 28 columns of the 29
    assert clipped("a雙b", 2) == "a" and clipped("a雙b", 3) == "a雙"


# --- the commands -------------------------------------------------------------------------------


def test_rulebook_shows_its_stages_on_a_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stderr = on_stderr(monkeypatch)
    target = tmp_path / "huaian.md"
    assert main(["rulebook", "huaian", "--lang", "zh-Hant", "-o", str(target)], io.StringIO()) == 0
    err = stderr.getvalue()
    assert "\rrulebook: huaian in zh-Hant: reading the cases" in err
    assert "\rrulebook: huaian in zh-Hant: building the book" in err
    assert err.endswith("\r"), "the line is erased before the command ends"
    assert target.read_text(encoding="utf-8").startswith("# ")


def test_rulebook_on_stdout_starts_after_the_line_is_erased(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The book goes to stdout only once the line on stderr (the same terminal) is gone."""
    stderr = on_stderr(monkeypatch)
    erased: list[bool] = []

    class Out(io.StringIO):
        def write(self, text: str) -> int:
            line = stderr.getvalue()
            erased.append("\r" in line and line.endswith(" \r"))
            return super().write(text)

    assert main(["rulebook", "huaian"], Out()) == 0
    assert erased and all(erased), erased


@UNSHOWN
def test_rulebook_says_nothing_quiet_or_off_a_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, terminal: bool, quiet: list[str]
) -> None:
    stderr = on_stderr(monkeypatch, terminal)
    target = tmp_path / "huaian.html"
    argv = ["rulebook", "huaian", "--format", "html", "-o", str(target), *quiet]
    assert main(argv, io.StringIO()) == 0
    assert stderr.getvalue() == ""
    assert target.exists()


def few_cases() -> list[Case]:
    """A handful of the corpus's cases: a mutation run on them takes a second."""
    return [c for c in load_cases()[0] if c.area == "levels"][:5]


def test_mutate_counts_its_mutants_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Mutant by mutant, each variant by its place among those asked for (on a few cases: the
    whole corpus takes a minute where the code changed since the last run)."""
    monkeypatch.setattr(
        strength, "mutate_variants", functools.partial(mutate_variants, cases=few_cases())
    )
    stderr = on_stderr(monkeypatch)
    out = io.StringIO()
    assert main(["mutate", "--variant", "huaian", "--variant", "competition"], out) == 1
    err = stderr.getvalue()
    for n, slug in enumerate(["huaian", "competition"], 1):
        total = len(list(mutants(load_variant(slug))))
        assert f"\rmutate: {slug} ({n}/2): mutant 0/{total}" in err
        assert f"\rmutate: {slug} ({n}/2): mutant 1/{total}" in err
        assert f"\rmutate: {slug} ({n}/2): mutant {total}/{total}" in err
    assert err.endswith("\r") and "\r" not in out.getvalue()
    assert "survives: " in out.getvalue()


@UNSHOWN
def test_mutate_says_nothing_quiet_or_off_a_terminal(
    monkeypatch: pytest.MonkeyPatch, terminal: bool, quiet: list[str]
) -> None:
    def scoring(*args: Any, progress: Any, **kwargs: Any) -> None:
        progress("huaian", 0, 2)
        progress("huaian", 2, 2)

    monkeypatch.setattr(strength, "mutate_variants", scoring)
    stderr = on_stderr(monkeypatch, terminal)
    assert main(["mutate", "--variant", "huaian", *quiet], io.StringIO()) == 0
    assert stderr.getvalue() == ""


def test_each_mutant_scored_is_told() -> None:
    """Mutant by mutant in one process, piece by piece in several."""
    ruleset = load_variant("huaian")
    cases = few_cases()
    total = len(list(mutants(ruleset)))
    for jobs in (1, 2):
        told: list[tuple[str, int, int]] = []
        mutate_variants(
            [ruleset], jobs=jobs, cases=cases, progress=lambda *t, to=told: to.append(t)
        )
        assert told[0] == ("huaian", 0, total) and told[-1] == ("huaian", total, total)
        done = [n for _, n, _ in told]
        assert done == sorted(done) and len(told) > 2
        if jobs == 1:
            assert done == list(range(total + 1))


def test_fingerprint_shows_the_questions_asked_on_stderr(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stderr = on_stderr(monkeypatch)
    out = io.StringIO()
    argv = ["fingerprint", "--engine", "reference", "--variant", "huaian"]
    assert main([*argv, "--out", str(tmp_path / "f.yaml")], out) == 0
    err = stderr.getvalue()
    assert "\rasking the engine: question 0/" in err
    assert err.endswith("\r") and "\r" not in out.getvalue()


@UNSHOWN
def test_fingerprint_says_nothing_quiet_or_off_a_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, terminal: bool, quiet: list[str]
) -> None:
    def asking(*args: Any, progress: Any, **kwargs: Any) -> None:
        progress("asking the engine: question 0/9")
        raise KeyboardInterrupt

    monkeypatch.setattr(strength, "fingerprint", asking)
    stderr = on_stderr(monkeypatch, terminal)
    argv = ["fingerprint", "--engine", "reference", "--out", str(tmp_path / "f.yaml")]
    assert main([*argv, *quiet], io.StringIO()) == 130
    said = stderr.getvalue()
    assert said == "\nguandan: interrupted while the engine answered: nothing written\n"


def test_fuzz_and_simulate_keep_their_line_and_end_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Their last count stays on the terminal, the summary under it."""
    stderr = on_stderr(monkeypatch)
    fuzzing = ["fuzz", "--engine", "reference", "--variant", "huaian", "--operation", "classify"]
    assert main([*fuzzing, "--examples", "20", "--seed", "1"], io.StringIO()) == 0
    assert re.search(
        r"\rfuzz: 20 examples \([\d,]+/s\) · found: classify 0[^\r]*\n$", stderr.getvalue()
    )
    stderr = on_stderr(monkeypatch)
    simulating = ["simulate", "--variant", "huaian", "--matches", "1", "--bots", "random"]
    assert main([*simulating, "--seed", "1"], io.StringIO()) == 0
    assert re.search(r"\rsimulate: 1/1 matches \([\d.,]+/s\) *\n$", stderr.getvalue())
    for argv in ([*fuzzing, "--examples", "20"], [*simulating, "--seed", "1"]):
        stderr = on_stderr(monkeypatch)
        assert main([*argv, "--quiet"], io.StringIO()) == 0 and stderr.getvalue() == ""


CHECK = ["check", "--engine", "reference", "--variant", "huaian", "-k", "combo-straight"]


def test_check_shows_its_line_where_its_words_go_unless_quiet() -> None:
    shown = Tty()
    assert main(CHECK, shown) == 0
    assert "\r[1/" in shown.getvalue()
    quiet = Tty()
    assert main([*CHECK, "--quiet"], quiet) == 0
    assert "\r" not in quiet.getvalue() and " cases: " in quiet.getvalue()


# --- the site build -----------------------------------------------------------------------------


def test_the_site_build_logs_each_stage_for_mkdocs_to_show(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The hook hands each part of the site a way to say what it makes, which logs at INFO under
    `mkdocs.plugins` (what `mkdocs build` shows, and `-q` hides); tests/test_docs.py reads the
    lines of the real build."""

    def part(name: str, content: Any) -> Any:
        def made(stage: Any) -> dict[str, Any]:
            stage(f"making the {name}")
            return {f"{name}.md": content}

        return made

    monkeypatch.setattr(mkdocs_hooks, "generate", part("pages", "# pages\n"))
    monkeypatch.setattr(mkdocs_hooks, "site_binaries", part("pdfs", b"%PDF"))
    monkeypatch.setattr(mkdocs_hooks, "site_files", part("conformance", "# c\n"))
    monkeypatch.setattr(mkdocs_hooks, "FROM_SPEC", {})
    panel = part("tryit", "// the panel\n")
    monkeypatch.setattr(mkdocs_hooks, "panel_files", lambda config, stage: panel(stage))
    monkeypatch.setattr(mkdocs_hooks, "_SITE", {})
    monkeypatch.setattr(mkdocs_hooks.File, "generated", lambda config, path, content: path)
    added: Any = []
    with caplog.at_level(logging.INFO, logger="mkdocs"):
        mkdocs_hooks.on_files(added, config=None)
    said = [(r.name, r.levelno, r.getMessage()) for r in caplog.records]
    assert said == [
        ("mkdocs.plugins.guandan", logging.INFO, f"guandan: making the {name}")
        for name in ("pages", "pdfs", "conformance", "tryit")
    ]
    assert added == ["pages.md", "pdfs.md", "conformance.md", "tryit.md"]
