"""The options that say where a command's tasks run: `--jobs`, `--scheduler` and its TLS files
(`guandan fuzz` and `guandan simulate`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from harness.engine.cluster import SchedulerSecurity, Workers
from harness.errors import UsageError
from harness.frontends.cli._common import input_file, jobs_to_run
from harness.model.bounds import COUNT, SECONDS


def add_workers(parser: argparse.ArgumentParser, jobs_help: str) -> None:
    """`--jobs`, `--scheduler`, `--tls-ca-file`, `--tls-cert`, `--tls-key`,
    `--insecure-scheduler` and `--connect-timeout`."""
    parser.add_argument("--jobs", type=COUNT, default=1, metavar="N", help=jobs_help)
    parser.add_argument(
        "--scheduler",
        metavar="tls://HOST:8786",
        help="run the shards on this Dask scheduler, over TLS with the certificates below "
        "(pip install 'guandan-harness[cluster]')",
    )
    parser.add_argument(
        "--tls-ca-file", metavar="FILE", type=input_file,
        help="the CA that signed the scheduler's certificate (tls:// schedulers)",
    )  # fmt: skip
    parser.add_argument(
        "--tls-cert", metavar="FILE", type=input_file, help="this client's certificate (tls://)"
    )
    parser.add_argument(
        "--tls-key", metavar="FILE", type=input_file, help="this client's private key (tls://)"
    )
    parser.add_argument(
        "--insecure-scheduler", action="store_true",
        help="allow a plain tcp:// scheduler. RISK: Dask trusts its scheduler with pickled "
        "code, so whoever answers at that address (anyone who binds the port first) runs code "
        "as you; use only on a machine and network you control",
    )  # fmt: skip
    parser.add_argument("--connect-timeout", type=SECONDS, default=10.0, metavar="SECONDS",
                        help="seconds to wait for the scheduler (default 10)")  # fmt: skip


def scheduler_security(args: argparse.Namespace) -> SchedulerSecurity | None:
    """The TLS files asked for (all three, or none); a usage error otherwise."""
    files = (args.tls_ca_file, args.tls_cert, args.tls_key)
    if not any(files):
        return None
    if not all(files):
        raise UsageError("--tls-ca-file, --tls-cert and --tls-key go together")
    for name, path in zip(("--tls-ca-file", "--tls-cert", "--tls-key"), files, strict=True):
        if not Path(path).is_file():
            raise UsageError(f"{name} {path}: no such file")
    return SchedulerSecurity(*files)


def workers(args: argparse.Namespace) -> Workers:
    """Where the tasks run, from the options `add_workers` added (`--jobs` at most one process
    per CPU, `jobs_to_run`; a scheduler's cluster has its own workers)."""
    return Workers(
        args.jobs if args.scheduler else jobs_to_run(args.jobs),
        args.scheduler,
        scheduler_security(args),
        args.insecure_scheduler,
        args.connect_timeout,
    )
