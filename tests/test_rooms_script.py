"""tools/rooms.py, the script that moved the modules into rooms (issue 51, item 5): it rewrites
every kind of reference to a moved module, keeps what did not move, and a second run changes
nothing, so that it can be run again over work merged from the old layout."""

from __future__ import annotations

from tools.rooms import MOVES, rewrite

SAMPLE_MOVES = {
    "pkg.conf.corpus": "pkg.conf.cases.loading",
    "pkg.conf.selection": "pkg.conf.cases.selection",
    "pkg.conf.fuzz": "pkg.conf.oracles.fuzz",
    "pkg.conf.mdescape": "pkg.conf.reporting.mdescape",
    "pkg.interp.simulate": "pkg.interp.bots",
}

OLD = """\
import pkg.conf.corpus as corpus_module
from pkg.conf import corpus, runner
from pkg.conf import mdescape as md
    from pkg.conf import selection
from pkg.conf.fuzz import driver, search
from pkg.conf.fuzz.driver import run_fuzz
from pkg.interp import simulate
x = pkg.conf.corpus.load_cases
path = "pkg/conf/fuzz/driver.py and pkg/conf/corpus.py"
kept = "pkg.conf.corpus_extra, mypkg.conf.corpus, pkg.conf.runner"
"""

NEW = """\
import pkg.conf.cases.loading as corpus_module
from pkg.conf import runner
from pkg.conf.cases import loading as corpus
from pkg.conf.reporting import mdescape as md
    from pkg.conf.cases import selection
from pkg.conf.oracles.fuzz import driver, search
from pkg.conf.oracles.fuzz.driver import run_fuzz
from pkg.interp import bots as simulate
x = pkg.conf.cases.loading.load_cases
path = "pkg/conf/oracles/fuzz/driver.py and pkg/conf/cases/loading.py"
kept = "pkg.conf.corpus_extra, mypkg.conf.corpus, pkg.conf.runner"
"""


def test_every_kind_of_reference_is_rewritten_and_the_rest_kept() -> None:
    assert rewrite(OLD, SAMPLE_MOVES) == NEW


def test_a_second_run_changes_nothing() -> None:
    assert rewrite(NEW, SAMPLE_MOVES) == NEW
    once = rewrite(OLD, MOVES)
    assert rewrite(once, MOVES) == once


def test_a_package_names_a_module_renamed_within_it_by_its_new_name() -> None:
    """The package's own `__init__.py` imports and exports the new name, never an alias that
    keeps the old one alive."""
    old = (
        "from pkg.interp import (\n    classify,\n    simulate,\n)\n\n"
        '__all__ = ["classify", "simulate"]\n'
    )
    new = rewrite(old, SAMPLE_MOVES, package="pkg.interp")
    assert "bots," in new and "simulate" not in new
    assert '"bots"' in new


def test_no_move_lands_on_a_name_another_move_leaves() -> None:
    """A new name is never an old one (or inside one), so a rerun cannot move a module twice."""
    for new in MOVES.values():
        for old in MOVES:
            assert not (new == old or new.startswith(old + ".")), (old, new)


def test_a_docstring_or_comment_made_too_long_is_broken_at_a_space_and_code_kept() -> None:
    from tools.rooms import WIDTH, wrap_prose

    long_words = " ".join(["word"] * 30)
    text = f'"""{long_words}"""\n\ndef f() -> None:\n    # {long_words}\n    x = \'{long_words}\'\n'
    wrapped = wrap_prose(text)
    lines = wrapped.splitlines()
    assert all(len(line) <= WIDTH for line in lines if "x = " not in line)
    assert f"    x = '{long_words}'" in lines  # code, however long, is not touched
    assert "    # word" in wrapped
    assert wrapped.split().count("word") + wrapped.count("'word") >= text.split().count("word")
    compile(wrapped, "t.py", "exec")
