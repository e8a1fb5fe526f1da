"""The work the main job does (issue 49): each rule set built once and shared, the engine started
once per rule set, each case file read once, and a typed view built whole only from a variant
file; a command imports the module of its own command alone (`guandan --version` none). Work,
not time, is asserted: it is the same on every machine."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness._paths import cases_dir
from harness.conformance.cases import case_loader as corpus
from harness.conformance.running import runner
from harness.conformance.running.runner import RunConfig, Status
from harness.model import loader, mutants, ruleset
from harness.model.loader import bundled_variants, load_variant
from harness.model.mutants import mutants as all_mutants
from harness.model.mutants import mutate
from harness.model.ruleset import Ruleset, build_rules

ROOT = Path(__file__).resolve().parents[1]


class Work:
    """What a run did, counted by spies on the functions that do it."""

    def __init__(self) -> None:
        self.rulesets: list[Ruleset] = []
        self.whole_views = 0
        self.partial_views = 0
        self.mutants: Counter[tuple[int, str, str]] = Counter()
        self.engines: Counter[int] = Counter()
        self.files: Counter[Path] = Counter()


@pytest.fixture
def work(monkeypatch: pytest.MonkeyPatch) -> Iterator[Work]:
    """Spies on the run's work, from fresh bundled variants (nothing built before the test)."""
    loader._bundled.cache_clear()
    mutants._mutant.cache_clear()
    seen = Work()
    made = Ruleset.__init__

    def init(self: Ruleset, *args: Any, **kwargs: Any) -> None:
        made(self, *args, **kwargs)
        seen.rulesets.append(self)

    def counting(name: str, attribute: str, module: Any = ruleset) -> None:
        original = getattr(module, name)

        def spy(*args: Any, **kwargs: Any) -> Any:
            setattr(seen, attribute, getattr(seen, attribute) + 1)
            return original(*args, **kwargs)

        monkeypatch.setattr(module, name, spy)

    monkeypatch.setattr(Ruleset, "__init__", init)
    counting("build_rules", "whole_views", loader)
    counting("rebuild_rules", "partial_views", loader)
    counting("rebuild_rules", "partial_views", ruleset)
    original_mutant = loader.mutant

    def mutant(base: Ruleset, clause_id: str, value: Any, **kwargs: Any) -> Ruleset:
        seen.mutants[id(base), clause_id, json.dumps(value, sort_keys=True)] += 1
        return original_mutant(base, clause_id, value, **kwargs)

    monkeypatch.setattr(mutants, "mutant", mutant)
    original_load = runner.load_engine

    def load_engine(spec: str, chosen: Ruleset, **kwargs: Any) -> Any:
        seen.engines[id(chosen)] += 1
        return original_load(spec, chosen, **kwargs)

    monkeypatch.setattr(runner, "load_engine", load_engine)
    original_read = corpus.read_case_file

    def read_case_file(path: Path) -> Any:
        seen.files[path.resolve()] += 1
        return original_read(path)

    monkeypatch.setattr(corpus, "read_case_file", read_case_file)
    yield seen
    loader._bundled.cache_clear()
    mutants._mutant.cache_clear()


def _identity(made: Ruleset) -> str:
    """What makes two rule sets the same: the name, the options chosen and every value."""
    values = {cid: clause.value for cid, clause in made.clauses.items()}
    return json.dumps([made.slug, dict(made.chosen), values], sort_keys=True, default=str)


def test_the_main_job_builds_each_rule_set_once_and_starts_an_engine_for_each(
    work: Work,
) -> None:
    result = runner.run(RunConfig("reference", bundled_variants()))
    assert result.ok and len(result.results) >= 4915
    # Four variant files, each read and its typed view built whole once; every other rule set
    # (a choice of options, a mutant, a derived variant) rebuilds only the groups it changes.
    assert work.whole_views == 4
    # No two rule sets alike: each choice of options, mutant and derived variant made once.
    twice = [k for k, n in Counter(map(_identity, work.rulesets)).items() if n > 1]
    assert not twice
    assert work.partial_views <= len(work.rulesets)
    assert max(work.mutants.values()) == 1
    # One engine for each rule set the cases run on (the probe's among them), started once.
    played = {(r.variant, json.dumps(dict(r.options), sort_keys=True)) for r in result.results}
    assert len(work.engines) == len(played) and max(work.engines.values()) == 1
    # Each case file read once.
    files = {p.resolve() for p in cases_dir().rglob("*.yaml")}
    assert set(work.files) == files and max(work.files.values()) == 1


def test_a_second_run_in_the_same_process_builds_nothing(work: Work) -> None:
    config = RunConfig("reference", bundled_variants())
    runner.run(config)
    built = len(work.rulesets), sum(work.mutants.values())
    again = runner.run(config)
    assert (len(work.rulesets), sum(work.mutants.values())) == built
    assert all(r.status is Status.PASS for r in again.results)


@pytest.mark.parametrize("slug", ["huaian", "competition"])
def test_a_rebuilt_typed_view_is_the_view_built_whole(slug: str) -> None:
    base = load_variant(slug)
    for found in all_mutants(base):
        changed = mutate(base, found.clause, found.value)
        assert changed is not None
        assert changed.rules == build_rules(changed.clauses), found
    for name, option in base.options.items():
        for choice in option.choices or ():
            chosen = base.with_options({name: choice})
            assert chosen.rules == build_rules(chosen.clauses), (name, choice)


def test_a_rebuilt_view_shares_the_groups_it_does_not_change() -> None:
    base = load_variant("huaian")
    changed = mutate(base, "flow.pass", "when_unable")
    assert changed is not None and changed.rules.flow != base.rules.flow
    assert changed.rules.tribute is base.rules.tribute
    assert changed.rules.combinations is base.rules.combinations


def test_the_same_choice_of_options_is_the_same_object() -> None:
    base = load_variant("huaian")
    assert base.with_options({"target": "8"}) is base.with_options({"target": "8"})
    assert base.with_options({"target": "8"}) is not base.with_options({"target": "A"})


def test_a_run_s_coverage_follows_its_results() -> None:
    """The tally the reports read again and again is counted once, and again if results come."""
    config = RunConfig("reference", [load_variant("huaian")], patterns=["combo-single-"])
    result = runner.run(config)
    before = result.judged
    assert before == len(result.results) == sum(t["judged"] for t in result.coverage().values())
    result.results.append(result.results[0])
    assert result.judged == before + 1


def test_the_reference_describes_itself_once_per_rule_set() -> None:
    from harness.engine.reference import ReferenceEngine

    engine = ReferenceEngine("huaian")
    assert engine.describe() is engine.describe()
    engine.ruleset = load_variant("competition")
    assert engine.describe().variant == "competition"


def _modules_after(command: str) -> tuple[str, set[str]]:
    """What `guandan COMMAND` prints, and the modules imported by then, in a fresh process."""
    code = (
        "import io, sys\n"
        "from harness.frontends.cli import main\n"
        "out = io.StringIO()\n"
        "try:\n"
        f"    main({command.split()!r}, out)\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(out.getvalue().splitlines()[0] if out.getvalue() else '')\n"
        "print(' '.join(sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    *said, modules = done.stdout.splitlines()
    return "\n".join(said), set(modules.split())


def test_guandan_version_imports_no_command() -> None:
    said, loaded = _modules_after("--version")
    assert said.startswith("guandan-harness ")
    heavy = {"yaml", "jsonschema", "fastjsonschema", "harness.interpreter", "harness.engine"}
    assert not heavy & loaded
    commands = {m for m in loaded if m.startswith("harness.frontends.cli.")}
    assert commands <= {"harness.frontends.cli._common", "harness.frontends.cli._parser"}


def test_a_command_imports_only_its_own_module() -> None:
    _, loaded = _modules_after("variants")
    assert {m for m in loaded if m.startswith("harness.frontends.cli.")} == {
        "harness.frontends.cli._common",
        "harness.frontends.cli._parser",
        "harness.frontends.cli._style",
        "harness.frontends.cli.rules",
    }


def test_the_main_job_does_not_import_jsonschema() -> None:
    """jsonschema locates problems; a clean run of the corpus has none to locate."""
    _, loaded = _modules_after("check --engine reference -k combo-single")
    assert "harness.conformance.running.runner" in loaded
    assert "jsonschema" not in loaded


def test_every_command_is_listed_with_the_module_that_adds_it() -> None:
    from harness.frontends import cli
    from harness.frontends.cli._parser import subcommands

    assert list(subcommands(cli.build_parser())) == list(cli.COMMANDS)
    for name, register in cli.COMMANDS.items():
        assert name in subcommands(cli._parser([register]))


def test_a_command_collects_less_and_leaves_the_thresholds_as_they_were(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import gc
    import io

    from harness.collecting import YOUNG
    from harness.frontends.cli import main, rules

    seen: list[tuple[int, int, int]] = []
    variants = rules.cmd_variants

    def spy(args: Any, out: Any) -> int:
        seen.append(gc.get_threshold())
        return variants(args, out)

    monkeypatch.setattr(rules, "cmd_variants", spy)
    before = gc.get_threshold()
    assert main(["variants"], io.StringIO()) == 0
    assert seen and seen[0][0] >= YOUNG
    assert gc.get_threshold() == before


def test_the_command_line_entry_exits_with_the_command_s_status() -> None:
    for argv, status in ((["variants"], 0), (["show", "no-such-variant"], 2)):
        done = subprocess.run(
            [sys.executable, "-m", "harness.frontends.cli", *argv],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == status, done.stderr
