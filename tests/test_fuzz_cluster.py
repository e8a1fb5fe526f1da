"""`guandan fuzz` finds the same discrepancies wherever its shards run: on one core
(`--jobs 1`), in processes (`--jobs 2`) and on a Dask cluster (`--scheduler`). The shards are
planned from the budget and the seed alone, and the merge keeps the smallest example of each
signature, so the findings (signatures and shrunk inputs) must be identical for one seed.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.conformance.oracles.fuzz.driver import FuzzConfig, FuzzReport, check_scheduler, fuzz
from harness.errors import UsageError
from harness.frontends.cli import main
from harness.model.loader import load_variant
from tests.conftest import REPO, repo_on_path, system_tool

ENGINE = "py:tests.engines.planted:equal_beats"
"""An engine whose planted bug (an equal play beats) the `beats` target finds in a few hundred
examples."""
SEED = 3
EXAMPLES = 200
SHARD_SIZE = 50
"""Four shards, so that two workers share them and the merge has several findings to choose
from."""

Found = list[tuple[tuple[str, str], object]]


def config(jobs: int = 1, scheduler: str | None = None) -> FuzzConfig:
    """The run compared: huaian with its default options, the beats target, a fixed seed."""
    ruleset = load_variant("huaian")
    ruleset = ruleset.with_options({name: o.default for name, o in ruleset.options.items()})
    return FuzzConfig(
        engine=ENGINE,
        ruleset=ruleset,
        targets=("beats",),
        seed=SEED,
        examples=EXAMPLES,
        jobs=jobs,
        scheduler=scheduler,
        shard_size=SHARD_SIZE,
        insecure_scheduler=True,  # the test's own LocalCluster, on this machine
    )


def found(report: FuzzReport) -> Found:
    """What a run found, as compared: each finding's signature and shrunk input."""
    assert not report.errors, report.errors
    assert not report.interrupted
    return [(f.signature, f.input) for f in report.findings]


@pytest.fixture(scope="module")
def one_core() -> tuple[Found, dict[str, int]]:
    """The findings and examples of `--jobs 1`, the run the others must match."""
    report = fuzz(config(jobs=1))
    findings = found(report)
    # Not vacuous: the planted bug is found.
    assert findings
    assert any(sig == ("beats", "as if compare.equal_beats = true") for sig, _ in findings)
    return findings, dict(report.examples)


@pytest.mark.slow
def test_processes_find_the_same(
    monkeypatch: pytest.MonkeyPatch, one_core: tuple[Found, dict[str, int]]
) -> None:
    repo_on_path(monkeypatch)  # where the pool spawns rather than forks
    report = fuzz(config(jobs=2))
    assert found(report) == one_core[0]
    assert report.examples == one_core[1]


@contextlib.contextmanager
def local_cluster(workers: int, **options: Any) -> Iterator[str]:
    """A local Dask cluster of `workers` processes, one thread each: its scheduler's address."""
    distributed = pytest.importorskip("distributed")
    with pytest.MonkeyPatch.context() as monkeypatch:
        # The workers are spawned processes: they import tests.engines.planted through
        # PYTHONPATH, which must be set before the cluster starts them.
        repo_on_path(monkeypatch)
        with distributed.LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            # The scheduler serves HTTP (its health routes) even with no dashboard, on 8787
            # unless told: two clusters at once (pytest-xdist) would clash. Port 0: a free one.
            dashboard_address="127.0.0.1:0",
            **options,
        ) as local:
            yield local.scheduler_address


@pytest.fixture(scope="module")
def cluster_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The current folder of the module's cluster's processes."""
    return tmp_path_factory.mktemp("cluster-folder")


@pytest.fixture(scope="module")
def cluster(cluster_folder: Path) -> Iterator[str]:
    """A local Dask cluster of two worker processes, started in a folder of their own (as a
    user's cluster is started: no fuzz run set up their environment)."""
    with contextlib.ExitStack() as running:
        with pytest.MonkeyPatch.context() as monkeypatch:
            monkeypatch.chdir(cluster_folder)  # only while the workers start
            address = running.enter_context(local_cluster(2))
        yield address


@pytest.mark.slow
def test_dask_cluster_finds_the_same(
    cluster: str, cluster_folder: Path, one_core: tuple[Found, dict[str, int]]
) -> None:
    """The same findings; and the workers' hypothesis storage is a temporary folder of their
    own, not `.hypothesis/` in their current folder."""
    report = fuzz(config(scheduler=cluster))
    assert found(report) == one_core[0]
    assert report.examples == one_core[1]
    assert not (cluster_folder / ".hypothesis").exists()


@pytest.mark.slow
def test_dask_cluster_runs_until_the_time_is_up(cluster: str) -> None:
    """A time budget keeps the cluster busy until the time is up, not for a few shards."""
    ruleset = config().ruleset
    report = fuzz(
        FuzzConfig(
            engine="reference",
            ruleset=ruleset,
            targets=("classify",),
            examples=None,
            seconds=3.0,
            scheduler=cluster,
            shard_size=20,
            insecure_scheduler=True,
        )
    )
    assert not report.errors
    assert report.seconds >= 2.5
    # More than the 2 shards per worker thread kept in flight at any one time.
    assert report.examples["classify"] > 4 * 20


# ---------------------------------------------------------------------------------------------
# Only a scheduler the user chose to trust (issue 23)

FUZZ = ["fuzz", "--engine", "reference", "--variant", "huaian", "--examples", "20"]


def test_a_plain_tcp_scheduler_is_refused_at_once(capsys: pytest.CaptureFixture[str]) -> None:
    """Dask trusts its scheduler with pickled code: whoever binds the port runs code as the
    user. A tcp:// address without --insecure-scheduler is refused before anything starts."""
    started = time.monotonic()
    code = main([*FUZZ, "--scheduler", "tcp://127.0.0.1:1"], io.StringIO())
    err = capsys.readouterr().err
    assert code == 2 and "tls://" in err and "--insecure-scheduler" in err, err
    assert time.monotonic() - started < 5


def test_a_tls_scheduler_needs_its_certificates(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code = main([*FUZZ, "--scheduler", "tls://127.0.0.1:1"], io.StringIO())
    assert code == 2 and "--tls-ca-file" in capsys.readouterr().err
    cert = tmp_path / "x.pem"
    cert.write_text("not read: the options are refused first\n", encoding="utf-8")
    alone = [*FUZZ, "--scheduler", "tls://127.0.0.1:1", "--tls-cert", str(cert)]
    code = main(alone, io.StringIO())
    assert code == 2 and "go together" in capsys.readouterr().err
    code = main([*alone[:-1], str(tmp_path / "missing.pem")], io.StringIO())
    assert code == 2 and "missing.pem" in capsys.readouterr().err


def test_nothing_listening_is_one_line_within_the_connect_timeout(
    capsys: pytest.CaptureFixture[str],
) -> None:
    pytest.importorskip("distributed")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # free once closed: nothing listens there
    started = time.monotonic()
    code = main(
        [*FUZZ, "--scheduler", f"tcp://127.0.0.1:{port}", "--insecure-scheduler",
         "--connect-timeout", "2"],
        io.StringIO(),
    )  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2, err
    assert time.monotonic() - started < 20, err
    assert "no scheduler answered within 2 s" in err and "Traceback" not in err, err
    assert len(err.strip().splitlines()) == 1, err


@pytest.mark.parametrize("command", ["fuzz", "simulate"])
def test_a_scheduler_that_accepts_and_never_speaks_is_one_line(
    tmp_path: Path, command: str
) -> None:
    """A listener that accepts the connection and says nothing held Dask's client for ever,
    whatever --connect-timeout said: it is asked who it is within the time given. Run in a
    process of its own, the hang it once was fails the test (subprocess timeout) instead of
    holding the suite."""
    pytest.importorskip("distributed")
    accepted: list[socket.socket] = []
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        port = listener.getsockname()[1]

        def accept() -> None:
            with contextlib.suppress(OSError):
                while True:
                    accepted.append(listener.accept()[0])

        threading.Thread(target=accept, daemon=True).start()
        args = {
            "fuzz": [*FUZZ],
            "simulate": ["simulate", "--variant", "huaian", "--matches", "20", "--seed", "1"],
        }[command]
        done = subprocess.run(
            [sys.executable, "-m", "harness.frontends.cli", *args, "--scheduler",
             f"tcp://127.0.0.1:{port}", "--insecure-scheduler", "--connect-timeout", "1",
             "--quiet"],
            capture_output=True, text=True, timeout=120, cwd=tmp_path, check=False,
            env={**os.environ, "PYTHONPATH": str(REPO)},
        )  # fmt: skip
    for peer in accepted:
        peer.close()
    assert accepted, "the command never connected"
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip() == (
        f"guandan: --scheduler tcp://127.0.0.1:{port}: no scheduler answered within 1 s "
        "(TimeoutError)"
    ), done.stderr


def self_signed(folder: Path, name: str) -> tuple[Path, Path]:
    """A self-signed certificate for `name` (its own CA) and its key, made by openssl."""
    openssl = system_tool("openssl", "openssl")
    cert, key = folder / f"{name}.pem", folder / f"{name}.key"
    command = [
        openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
        "-keyout", str(key), "-out", str(cert), "-subj", f"/CN={name}",
        "-addext", f"subjectAltName=DNS:{name},IP:127.0.0.1",
    ]  # fmt: skip
    subprocess.run(command, check=True, capture_output=True)
    return cert, key


@pytest.fixture(scope="module")
def tls_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The cluster's certificate and key (the certificate is its own CA)."""
    cert, key = self_signed(tmp_path_factory.mktemp("tls"), "localhost")
    return {"ca": str(cert), "cert": str(cert), "key": str(key)}


@pytest.fixture(scope="module")
def tls_cluster(tls_files: dict[str, str]) -> Iterator[str]:
    """A local Dask cluster that speaks TLS only, with the certificate above."""
    distributed = pytest.importorskip("distributed")
    files = tls_files
    security = distributed.Security(
        tls_ca_file=files["ca"],
        tls_scheduler_cert=files["cert"],
        tls_scheduler_key=files["key"],
        tls_worker_cert=files["cert"],
        tls_worker_key=files["key"],
        tls_client_cert=files["cert"],
        tls_client_key=files["key"],
        require_encryption=True,
    )
    with local_cluster(1, protocol="tls://", host="127.0.0.1", security=security) as address:
        assert address.startswith("tls://")
        yield address


@pytest.mark.slow
def test_a_tls_cluster_runs_with_the_files_given(
    tls_cluster: str, tls_files: dict[str, str], tmp_path: Path
) -> None:
    """`--scheduler tls://` with `--tls-ca-file`, `--tls-cert` and `--tls-key`, through the
    command line: the cluster runs the shards (the planted bug is found)."""
    summary = tmp_path / "summary.json"
    args = [
        "fuzz", "--engine", ENGINE, "--variant", "huaian", "--operation", "beats",
        "--seed", str(SEED), "--examples", str(EXAMPLES), "--scheduler", tls_cluster,
        "--tls-ca-file", tls_files["ca"], "--tls-cert", tls_files["cert"],
        "--tls-key", tls_files["key"], "--json", str(summary), "--quiet",
    ]  # fmt: skip
    code = main(args, io.StringIO())
    assert code == 1  # found
    data = json.loads(summary.read_text(encoding="utf-8"))
    assert not data["errors"] and data["findings"]


@pytest.mark.slow
def test_a_tls_cluster_refuses_a_client_without_its_ca(
    tls_cluster: str, tls_files: dict[str, str], tmp_path: Path
) -> None:
    """A certificate the scheduler's CA did not sign: one line, within the connect timeout."""
    cert, key = self_signed(tmp_path, "stranger")
    args = [
        "fuzz", "--engine", "reference", "--variant", "huaian", "--operation", "beats",
        "--examples", "10", "--scheduler", tls_cluster, "--tls-ca-file", str(cert),
        "--tls-cert", str(cert), "--tls-key", str(key), "--connect-timeout", "3", "--quiet",
    ]  # fmt: skip
    started = time.monotonic()
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main(args, io.StringIO())
    assert code == 2
    assert time.monotonic() - started < 15
    lines = err.getvalue().strip().splitlines()
    assert len(lines) == 1 and "no scheduler answered" in lines[0], err.getvalue()


def test_tls_files_may_come_from_dask_configuration(tls_files: dict[str, str]) -> None:
    """`tls://` without the options is refused unless Dask's configuration names the files."""
    dask_config = pytest.importorskip("dask.config")
    secure = dataclasses.replace(config(scheduler="tls://127.0.0.1:8786"), insecure_scheduler=False)
    with pytest.raises(UsageError, match="Dask's configuration"):
        check_scheduler(secure)
    names = {
        "distributed.comm.tls.ca-file": tls_files["ca"],
        "distributed.comm.tls.client.cert": tls_files["cert"],
        "distributed.comm.tls.client.key": tls_files["key"],
    }
    with dask_config.set(names):
        check_scheduler(secure)  # accepted: Security() reads these files
