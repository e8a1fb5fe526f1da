"""Command-line conventions (issue 24, part 6): help on bare `guandan`, "did you mean", `-` for
stdout on every one-file output, old option names kept, examples and exit codes in `--help`,
colour (NO_COLOR, FORCE_COLOR), shell completion, `diff --exit-code` and `--format json`,
`--version`."""

from __future__ import annotations

import io
import json
import re
import shutil
import subprocess
import unicodedata
from pathlib import Path

import pytest
from _pytest.capture import CaptureFixture

from harness import __version__
from harness.frontends.cli import build_parser, main
from harness.frontends.cli._common import padded
from harness.frontends.cli._parser import subcommands
from harness.frontends.cli._style import colour_wanted, paint_check
from harness.model.loader import variant_slugs

CHECK = ["check", "--engine", "reference", "--variant", "huaian", "-k", "combo-straight"]


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return main(list(argv), out=out), out.getvalue()


class Tty(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


# --- bare `guandan`, --version ----------------------------------------------------------------


def test_bare_guandan_prints_the_command_list_and_exits_2() -> None:
    code, text = run()
    assert code == 2
    assert text.startswith("usage: guandan")
    listed = [line.split()[0] for line in text.splitlines() if line.startswith("    ")]
    assert {"check", "fuzz", "diff", "completion"} <= set(listed)
    assert "`guandan` alone prints this help and exits 2" in text


def test_a_group_without_its_subcommand_prints_its_help() -> None:
    code, text = run("cases")
    assert code == 2
    assert "usage: guandan cases" in text and "check" in text


def test_version(capsys: CaptureFixture[str]) -> None:
    """The version, then whether the fast engine is active (issue 52)."""
    assert run("--version")[0] == 0
    said = capsys.readouterr().out
    assert said.startswith(f"guandan-harness {__version__} (fast engine ")
    assert said.endswith(")\n")
    assert "fast engine on (" in said or "fast engine off (" in said


# --- did you mean -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "hint"),
    [
        (["chek"], "did you mean 'check'?"),
        (["fingerprnt"], "did you mean 'fingerprint'?"),
        (["cases", "chek"], "did you mean 'check'?"),
        (["check", "--varient", "huaian"], "did you mean '--variant'?"),
        (["check", "--varient=huaian"], "did you mean '--variant'?"),
        (["fuzz", "--engine", "reference", "--varient", "huaian"], "did you mean '--variant'?"),
        (["diff", "huaian", "competition", "--format", "jsn"], "did you mean 'json'?"),
    ],
)
def test_a_mistyped_word_gets_a_suggestion(
    capsys: CaptureFixture[str], argv: list[str], hint: str
) -> None:
    assert run(*argv)[0] == 2
    assert hint in capsys.readouterr().err


def test_no_suggestion_when_nothing_is_close(capsys: CaptureFixture[str]) -> None:
    assert run("zzzzzz")[0] == 2
    err = capsys.readouterr().err
    assert "invalid choice" in err and "did you mean" not in err


def test_an_abbreviated_option_is_no_mistake(capsys: CaptureFixture[str]) -> None:
    # argparse takes a prefix: `--var` is `--variant`, so only the unknown word is suggested for.
    assert run("check", "--var", "huaian", "--enginee", "reference")[0] == 2
    err = capsys.readouterr().err
    assert "did you mean '--engine'?" in err and "'--variant'" not in err


# --- `-` for stdout ---------------------------------------------------------------------------


@pytest.mark.parametrize("option", ["--report", "--json"])
def test_check_report_to_stdout_is_pure_json(capsys: CaptureFixture[str], option: str) -> None:
    code, printed = run(*CHECK, option, "-")
    assert code == 0
    report = json.loads(printed)
    assert report["summary"]["failed"] == 0 and report["cases"]
    # The words for people went to stderr.
    assert " cases: " in capsys.readouterr().err
    assert not Path("-").exists()


def test_check_junit_and_markdown_to_stdout(capsys: CaptureFixture[str]) -> None:
    code, printed = run(*CHECK, "--junit", "-")
    assert code == 0 and printed.startswith("<?xml") and "<testsuites" in printed
    code, printed = run(*CHECK, "--markdown", "-")
    assert code == 0 and printed.startswith("# Guandan conformance")


def test_two_outputs_on_stdout_are_a_usage_error(capsys: CaptureFixture[str]) -> None:
    code, printed = run(*CHECK, "--json", "-", "--junit", "-")
    assert code == 2 and printed == ""
    assert "--json and --junit cannot both write to stdout" in capsys.readouterr().err


def test_the_old_check_report_name_still_writes_a_file(tmp_path: Path) -> None:
    target = tmp_path / "r.json"
    assert run(*CHECK, "--report", str(target))[0] == 0
    assert json.loads(target.read_text(encoding="utf-8"))["cases"]


def test_report_html_and_markdown_to_stdout(tmp_path: Path, capsys: CaptureFixture[str]) -> None:
    report = tmp_path / "r.json"
    assert run(*CHECK, "--json", str(report))[0] == 0
    code, printed = run("report", str(report), "--html", "-")
    assert code == 0 and printed.lstrip().lower().startswith("<!doctype html")
    assert "wrote" not in printed
    code, printed = run("report", str(report), "--markdown", "-")
    assert code == 0 and "reference" in printed and "wrote" not in printed


@pytest.mark.slow
def test_mutate_json_to_stdout(capsys: CaptureFixture[str]) -> None:
    # A variant file whose mutants are few would be quicker; the smallest bundled one will do.
    code, printed = run("mutate", "--variant", "huaian", "--json", "-")
    assert code in (0, 1)
    scores = json.loads(printed)
    assert scores[0]["variant"] == "huaian" or "huaian" in json.dumps(scores[0])
    assert "mutants killed" in capsys.readouterr().err


@pytest.mark.slow
def test_fingerprint_out_and_json_to_stdout(capsys: CaptureFixture[str]) -> None:
    code, printed = run("fingerprint", "--engine", "reference", "--variant", "huaian", "--out", "-")
    assert code == 0
    assert "extends: huaian" in printed
    assert "clauses agree" in capsys.readouterr().err
    code, printed = run("fingerprint", "--engine", "reference", "--variant", "huaian",
                        "--out", "-", "--json", "-")  # fmt: skip
    assert code == 2


def test_play_json_to_stdout(capsys: CaptureFixture[str]) -> None:
    code, printed = run("play", "--variant", "huaian", "--seed", "1", "--summary", "--json", "-")
    assert code == 0
    assert json.loads(printed)["variant"] == "huaian"
    assert "Winner: team" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [
        ["classify", "--variant", "huaian", "--level", "10", "H9", "H9"],
        ["plays", "--variant", "huaian", "--level", "10", "H9", "H9"],
    ],
)
def test_format_json_and_the_old_json_flag_agree(argv: list[str]) -> None:
    new = run(*argv, "--format", "json")
    assert new == run(*argv, "--json")
    assert new[0] == 0 and json.loads(new[1])


def test_old_names_are_hidden_from_help_with_a_note() -> None:
    text = " ".join(subcommands(build_parser())["check"].format_help().split())
    assert "--json FILE.json" in text
    assert "(old name: --report, kept for one release)" in text
    assert "--report FILE" not in text


# --- --help: examples and exit codes ----------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    ["check", "fuzz", "fingerprint", "mutate", "report", "diff", "validate", "serve"],
)
def test_help_shows_examples_and_exit_codes(command: str) -> None:
    text = subcommands(build_parser())[command].format_help()
    assert "examples:\n  guandan " in text  # kept on their own lines
    assert "exit status: 0 " in text
    assert "2 usage or input error, 130 after Ctrl-C, 143 after SIGTERM" in text


def test_every_command_has_examples() -> None:
    parser = build_parser()
    for name, sub in subcommands(parser).items():
        inner = subcommands(sub) or {name: sub}
        for leaf in inner.values():
            assert "examples:" in leaf.format_help(), leaf.prog


# --- colour -----------------------------------------------------------------------------------


def test_colour_wanted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    assert colour_wanted(Tty()) and not colour_wanted(io.StringIO())
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert colour_wanted(io.StringIO())
    monkeypatch.setenv("NO_COLOR", "1")  # wins over FORCE_COLOR
    assert not colour_wanted(io.StringIO()) and not colour_wanted(Tty())
    monkeypatch.setenv("NO_COLOR", "")  # empty: as if unset
    assert colour_wanted(io.StringIO())
    monkeypatch.delenv("FORCE_COLOR")
    monkeypatch.setenv("TERM", "dumb")
    assert not colour_wanted(Tty())


def test_check_in_colour_has_the_same_words(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    engine = "py:tests.engines.pyengines:Raises"
    argv = ["check", "--engine", engine, "--variant", "huaian", "-k", "combo-", "--no-explain"]
    plain = run(*argv)
    monkeypatch.setenv("FORCE_COLOR", "1")
    coloured = run(*argv)
    assert plain[0] == coloured[0] == 1
    assert "\x1b[" not in plain[1]
    assert "\x1b[31m" in coloured[1]
    assert _strip(coloured[1]) == _strip(plain[1])
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\x1b[" not in run(*argv)[1]


def _strip(text: str) -> str:
    """`text` without its colour codes, and without the run's time (which varies)."""
    import re

    return re.sub(r"\(\d+\.\d s\)", "", re.sub(r"\x1b\[\d+m", "", text))


def test_paint_check_colours_the_summary_by_the_verdict(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.delenv("NO_COLOR", raising=False)
    summary = "x: 3 cases: 3 passed, 0 failed (0.1 s)"
    assert paint_check(summary, True, io.StringIO()) == f"\x1b[32m{summary}\x1b[0m"
    assert paint_check(summary, False, io.StringIO()) == f"\x1b[31m{summary}\x1b[0m"
    one = "x: 1 case: 1 passed, 0 failed (0.1 s)"
    assert paint_check(one, True, io.StringIO()) == f"\x1b[32m{one}\x1b[0m"
    assert paint_check("FAIL a[b]\n  decided by c", False, io.StringIO()).startswith("\x1b[31m")


def test_fuzz_and_diff_in_colour(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("FORCE_COLOR", "1")
    code, text = run("fuzz", "--engine", "reference", "--variant", "huaian", "--examples", "20",
                     "--operation", "classify", "--quiet")  # fmt: skip
    assert code == 0 and "\x1b[32mno discrepancy found\x1b[0m" in text
    code, text = run("diff", "huaian", "competition")
    assert code == 0 and "\x1b[33m" in text and "clauses differ" in text
    # JSON is never coloured.
    assert "\x1b" not in run("diff", "huaian", "competition", "--format", "json")[1]


# --- completion -------------------------------------------------------------------------------


def _script(shell: str) -> str:
    code, text = run("completion", shell)
    assert code == 0
    return text


def _bash_complete(script: Path, *words: str) -> list[str]:
    cword = len(words) - 1
    quoted = " ".join(f"'{w}'" for w in words)
    done = subprocess.run(
        ["bash", "-c", f'source {script}; COMP_WORDS=({quoted}); COMP_CWORD={cword}; _guandan; '
         'printf "%s\\n" "${COMPREPLY[@]}"'],
        capture_output=True, text=True, check=True, cwd=script.parent,
    )  # fmt: skip
    return done.stdout.split()


def test_bash_completion_is_valid_and_completes(tmp_path: Path) -> None:
    script = tmp_path / "guandan.bash"
    script.write_text(_script("bash"), encoding="utf-8")
    subprocess.run(["bash", "-n", str(script)], check=True)
    assert _bash_complete(script, "guandan", "ch") == ["check"]
    assert _bash_complete(script, "guandan", "check", "--var") == ["--variant"]
    assert _bash_complete(script, "guandan", "check", "--variant", "hu") == ["huaian"]
    assert _bash_complete(script, "guandan", "diff", "--format", "") == ["text", "json"]
    assert _bash_complete(script, "guandan", "cases", "") == ["check", "-h", "--help"]
    # The old names are accepted but not offered.
    assert "--report" not in _bash_complete(script, "guandan", "check", "--")
    # A file option completes file names.
    (tmp_path / "mine.json").write_text("{}", encoding="utf-8")
    assert _bash_complete(script, "guandan", "check", "--json", "mi") == ["mine.json"]


@pytest.mark.parametrize("shell", ["zsh", "fish"])
def test_zsh_and_fish_scripts_name_every_command_and_variant(shell: str, tmp_path: Path) -> None:
    text = _script(shell)
    for name in subcommands(build_parser()):
        assert name in text
    for slug in variant_slugs():
        assert slug in text
    if shutil.which(shell):
        script = tmp_path / f"guandan.{shell}"
        script.write_text(text, encoding="utf-8")
        subprocess.run([shell, "-n", str(script)], check=True)


# --- diff -------------------------------------------------------------------------------------


def test_diff_exit_code() -> None:
    assert run("diff", "huaian", "competition")[0] == 0
    assert run("diff", "huaian", "competition", "--exit-code")[0] == 1
    code, text = run("diff", "huaian", "huaian", "--exit-code")
    assert code == 0 and text.startswith("0 clauses differ")


def test_diff_json_shape() -> None:
    code, text = run("diff", "huaian", "competition", "--format", "json", "--exit-code")
    assert code == 1
    data = json.loads(text)
    assert (data["a"], data["b"]) == ("huaian", "competition")
    assert data["clauses"]
    for clause in data["clauses"]:
        assert set(clause) == {"id", "huaian", "competition"}
        assert clause["huaian"]["value"] != clause["competition"]["value"]
        for side in ("huaian", "competition"):
            assert {"stated", "read", "assumed"} & set(clause[side])
    same = json.loads(run("diff", "huaian", "huaian", "--format", "json")[1])
    assert same["clauses"] == [] and same["options"] == {}


# --- tables line up in a terminal, Chinese terms included --------------------------------------


def terminal_width(text: str) -> int:
    """Columns a terminal draws `text` in: two for a wide or full-width character (UAX #11)."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def test_padded_counts_a_chinese_character_as_two_columns() -> None:
    assert padded("雙下", 6) == "雙下  "
    assert padded("pair", 6) == "pair  "
    assert padded("longer than", 4) == "longer than"  # never cut


def test_the_simulate_table_lines_up_in_a_terminal() -> None:
    """Every row's last column (n) starts at one terminal column, on the rows whose label
    holds a Chinese term (雙下, 進貢) as on the others."""
    code, text = run("simulate", "--variant", "huaian", "--matches", "3", "--seed", "1",
                     "--bots", "greedy", "--quiet")  # fmt: skip
    assert code == 0, text
    rows = text.splitlines()[1:]
    assert any("雙下" in row for row in rows) and any("rounds per match" in row for row in rows)
    assert len({terminal_width(row.rsplit(" ", 1)[0]) for row in rows}) == 1, text


@pytest.mark.slow
def test_the_compare_play_table_lines_up_in_a_terminal(tmp_path: Path) -> None:
    """Each row's difference starts at one terminal column, Chinese-labelled rows included."""
    code, text = run("compare-play", "huaian", "match-rules", "--matches", "2", "--seed", "1",
                     "--bots", "greedy", "--quiet")  # fmt: skip
    assert code == 0, text
    table = text.split("  each clause of")[0].splitlines()[2:]
    # A value is a number, a rate with its `%`, or `-` where there is none.
    value = r"(?:-|[\d.]+(?: %)?)"
    found = [re.match(rf"(.*\S +{value} +{value})   [+-]", row) for row in table]
    assert all(found) and any("雙下" in row for row in table), text
    ends = {terminal_width(m.group(1)) for m in found if m is not None}
    assert len(ends) == 1, text


def test_the_top_level_help_gives_each_exit_status_its_own_line() -> None:
    """Each status beside its meaning, the note on inputs beside 2, where it belongs (issue 51:
    it followed 143, and the line compared git and pip)."""
    text = build_parser().format_help()
    statuses = text.split("exit status:", 1)[1]
    for code, meaning in [
        ("0", "ok"),
        ("1", "failed, or a problem found"),
        ("2", "usage or input error (an input that is a FIFO, a device or no regular"),
        ("130", "stopped by Ctrl-C"),
        ("143", "stopped by SIGTERM"),
    ]:
        assert re.search(rf"^  {code} +{re.escape(meaning)}", statuses, re.M), code
    assert "git" not in text and "pip" not in text


@pytest.mark.parametrize(
    ("argv", "usage"),
    [
        (["show", "huaian", "--formt", "json"], "usage: guandan show "),
        (["cases", "check", "--bogus"], "usage: guandan cases check "),
        (["--bogus"], "usage: guandan [-h]"),
    ],
)
def test_an_unknown_option_shows_its_commands_usage(
    argv: list[str], usage: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """An option no parser takes is told with the usage of the command it was given to, not the
    top-level one (issue 51), and the nearest option where there is one."""
    assert main(argv, io.StringIO()) == 2
    err = capsys.readouterr().err
    assert err.startswith(usage), err
    assert "unrecognized arguments" in err
    if "--formt" in argv:
        assert "guandan show: error:" in err and "did you mean '--format'?" in err
