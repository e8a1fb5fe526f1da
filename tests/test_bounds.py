"""Every number option bounded, parallelism bounded by the work and the machine (issue 50,
items 2 and 3): `--timeout`, `--connect-timeout` and the counts take finite numbers in range
only (a usage error naming the option, exit 2, before any work); `--jobs` runs at most one
process per CPU and per shard, a larger value taken with a one-line notice; Ctrl-C at a
terminal stops a pool with no worker's traceback."""

from __future__ import annotations

import io
import os
import signal
from pathlib import Path

import pytest
from _pytest.capture import CaptureFixture

from harness.engine.cluster import Workers, bounded_jobs, run_tasks, usable_cpus
from harness.frontends.cli import main
from tests.test_stop_signals import stopped

SMOKE = ["smoke", "--engine", "exec:guandan serve"]
CHECK = ["check", "--engine", "reference", "--variant", "huaian"]
FUZZ = ["fuzz", "--engine", "reference", "--variant", "huaian"]
SIMULATE = ["simulate", "--variant", "huaian", "--seed", "1", "--matches", "1"]

# (command, option): every number option of the commands.
SECONDS_OPTIONS = [
    (SMOKE, "--timeout"),
    (CHECK, "--timeout"),
    (FUZZ, "--timeout"),
    (FUZZ, "--connect-timeout"),
    (FUZZ, "--shrink-seconds"),
    (SIMULATE, "--connect-timeout"),
    (["fingerprint", "--engine", "reference"], "--timeout"),
]
COUNT_OPTIONS = [
    (CHECK, "--jobs"),
    (FUZZ, "--jobs"),
    (FUZZ, "--examples"),
    (SIMULATE, "--jobs"),
    (["simulate", "--variant", "huaian", "--seed", "1"], "--matches"),
    (["compare-play", "huaian", "competition", "--seed", "1"], "--matches"),
    (["mutate", "--variant", "huaian"], "--jobs"),
    (["coverage"], "--minimum"),
]
SEED_OPTIONS = [
    (["simulate", "--variant", "huaian", "--matches", "1"], "--seed"),
    (["play", "--variant", "huaian"], "--seed"),
    (FUZZ, "--seed"),
]


def _refused(capsys: CaptureFixture[str], args: list[str], option: str) -> None:
    out = io.StringIO()
    code = main(args, out)
    err = capsys.readouterr().err
    assert code == 2, (args, err)
    assert f"argument {option}: expected " in err, err
    assert "Traceback" not in err and out.getvalue() == ""


@pytest.mark.parametrize(("command", "option"), SECONDS_OPTIONS)
@pytest.mark.parametrize("value", ["0", "-1", "inf", "-inf", "nan", "1e308", "86401", "ten"])
def test_a_wait_is_a_positive_finite_number_of_seconds(
    capsys: CaptureFixture[str], command: list[str], option: str, value: str
) -> None:
    _refused(capsys, [*command, f"{option}={value}"], option)


@pytest.mark.parametrize(("command", "option"), COUNT_OPTIONS)
@pytest.mark.parametrize("value", ["0", "-3", "1.5", "nan", "1e3", "1000000001"])
def test_a_count_is_a_whole_number_in_range(
    capsys: CaptureFixture[str], command: list[str], option: str, value: str
) -> None:
    _refused(capsys, [*command, f"{option}={value}"], option)


@pytest.mark.parametrize(("command", "option"), SEED_OPTIONS)
@pytest.mark.parametrize("value", ["-1", "1.0", str(2**64)])
def test_a_seed_is_a_whole_number_from_0_below_2_to_the_64(
    capsys: CaptureFixture[str], command: list[str], option: str, value: str
) -> None:
    _refused(capsys, [*command, f"{option}={value}"], option)


def test_the_largest_values_in_range_are_taken(capsys: CaptureFixture[str]) -> None:
    """The bounds are inclusive: a day of timeout, seed 2**64 - 1."""
    args = ["play", "--variant", "huaian", "--seed", str(2**64 - 1), "--json", os.devnull]
    assert main(args, io.StringIO()) == 0, capsys.readouterr().err


def test_a_line_separator_in_a_refused_value_is_shown_escaped(capsys: CaptureFixture[str]) -> None:
    main([*SMOKE, "--timeout", "1\u20282\x85"], io.StringIO())
    err = capsys.readouterr().err
    assert "\u2028" not in err and "\x85" not in err
    assert "1\\u20282\\x85" in err


def test_jobs_are_bounded_by_the_cpus_and_the_shards() -> None:
    cpus = usable_cpus()
    assert 1 <= cpus <= (os.cpu_count() or 1)
    assert bounded_jobs(100_000) == cpus
    assert bounded_jobs(100_000, 1) == 1
    assert bounded_jobs(1, 10) == 1
    assert bounded_jobs(2, 0) == 1


def pid(_task: int) -> int:
    """The process a task runs in."""
    return os.getpid()


def test_one_task_runs_in_this_process_whatever_the_jobs() -> None:
    """`--jobs 3` for one shard starts no process: the one task runs here."""
    seen: list[int] = []
    run_tasks(pid, [1], Workers(jobs=3), seen.append)
    assert seen == [os.getpid()]


def test_no_more_processes_than_cpus_run_the_tasks() -> None:
    seen: list[int] = []
    run_tasks(pid, range(40), Workers(jobs=usable_cpus() + 2), seen.append)
    assert len(seen) == 40
    assert len(set(seen)) <= usable_cpus()


def test_a_larger_jobs_is_taken_with_a_notice(capsys: CaptureFixture[str]) -> None:
    code = main([*SIMULATE, "--jobs", "100000", "--quiet"], io.StringIO())
    err = capsys.readouterr().err
    assert code == 0, err
    cpus = usable_cpus()
    processes = "process" if cpus == 1 else "processes"
    cpu_word = "CPU" if cpus == 1 else "CPUs"
    assert err.splitlines() == [
        f"guandan: --jobs 100000: {cpus} {cpu_word} here, so at most {cpus} {processes} run"
    ]


POOLS = [
    ["simulate", "--variant", "huaian", "--seed", "1", "--matches", "40", "--jobs", "2"],
    ["compare-play", "huaian", "competition", "--seed", "1", "--matches", "20", "--bots",
     "random", "--jobs", "2"],
]  # fmt: skip


@pytest.mark.parametrize("args", POOLS, ids=["simulate", "compare-play"])
def test_ctrl_c_stops_a_pool_with_no_worker_traceback(tmp_path: Path, args: list[str]) -> None:
    """Held in a worker's shard: SIGINT reaches the whole group, as a terminal's Ctrl-C does;
    the workers leave it to the harness, which ends them (`stopped` asserts no traceback, no
    process left, and the end within its bound)."""
    done = stopped(tmp_path, "harness.simulation.run:run_shard", [*args, "--quiet"])
    assert done.returncode == 130, done.stderr
    assert "KeyboardInterrupt" not in done.stderr


def test_sigterm_stops_a_pool_of_many_jobs_at_once(tmp_path: Path) -> None:
    done = stopped(
        tmp_path,
        "harness.simulation.run:run_shard",
        ["simulate", "--variant", "huaian", "--seed", "1", "--matches", "40", "--jobs", "100000"],
        sig=signal.SIGTERM,
    )
    assert done.returncode == 143, done.stderr


def test_a_fuzz_stopped_before_any_example_says_nothing_was_compared(tmp_path: Path) -> None:
    """SIGTERM before the first example (a scheduler or an engine that never answers): the
    summary says nothing was compared, never "no discrepancy found"."""
    done = stopped(
        tmp_path,
        "harness.conformance.oracles.fuzz.driver:run_shard",
        ["fuzz", "--engine", "reference", "--variant", "huaian", "--examples", "50", "--quiet"],
        sig=signal.SIGTERM,
    )
    assert done.returncode == 143, done.stderr
    assert "no discrepancy found" not in done.stdout
    assert "interrupted before any example was run: nothing was compared" in done.stdout
