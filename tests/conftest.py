"""Hypothesis profiles: `ci` (quick, the default) and `thorough` (HYPOTHESIS_PROFILE=thorough);
bytecode kept for the run; the versions under test in the report's header; the `guandan`
pytester fixture and the arguments that load the plugin in its sessions; the two tiers' helper
(`slow_but`) and the guard that keeps the site out of the fast one; the one check of the system
tools some tests need (`require`, `system_tool`): skipped naming the tool, failed on CI."""

from __future__ import annotations

import atexit
import importlib.metadata
import os
import pickle
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

import pytest
from filelock import FileLock
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "thorough", max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def _bytecode_kept_for_the_run() -> None:
    """Where the environment turns bytecode off (PYTHONDONTWRITEBYTECODE), this run writes it
    to a private folder of its own, removed at its end, and not into the tree.

    The suite starts many Python processes (the CLI, engines, workers, pytester sessions),
    and each compiled the harness from source again: with bytecode kept, a whole run took two
    minutes less processor time on a 2-core machine (20:38 against 22:40). Set in the first
    process, before xdist starts its workers, so that they and every process they start
    inherit it."""
    if not sys.dont_write_bytecode or os.environ.get("PYTEST_XDIST_WORKER"):
        return
    folder = tempfile.mkdtemp(prefix="guandan-tests-bytecode-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = folder
    sys.pycache_prefix = folder
    sys.dont_write_bytecode = False


_bytecode_kept_for_the_run()


REPO = Path(__file__).resolve().parents[1]
PLUGIN_ARGS = ("-p", "harness.conformance.pytest_plugin", "-p", "no:cacheprovider")
"""A pytester session's arguments that load the plugin and nothing it would write."""


def pytest_report_header() -> str:
    """The version of every declared dependency this run tests with: CI runs the suite at both
    ends of the ranges in pyproject.toml, and the header says which end each run was."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    declared = [*project["dependencies"]]
    for extra in project["optional-dependencies"].values():
        declared += extra
    names = dict.fromkeys(re.split(r"[\[<>=!~ ;]", r, maxsplit=1)[0] for r in declared)
    found = []
    for name in names:
        if name == project["name"]:
            continue
        try:
            found.append(f"{name} {importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            found.append(f"{name} (not installed)")
    return "dependencies: " + ", ".join(found)


SLOW_FIXTURES = frozenset({"site_build", "site", "served"})
"""Fixtures of minutes (the site is built with every rulebook's PDF and the mutation run): a
test that asks for one must be marked slow, so that `-m "not slow"` never builds the site."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Stop the run at once where a test needs a fixture of minutes without the `slow` mark."""
    unmarked = [
        item.nodeid
        for item in items
        if SLOW_FIXTURES & set(getattr(item, "fixturenames", ()))
        and item.get_closest_marker("slow") is None
    ]
    if unmarked:
        raise pytest.UsageError(
            "these tests build the site (fixtures "
            f"{', '.join(sorted(SLOW_FIXTURES))}) but are not marked slow: {', '.join(unmarked)}"
        )


@pytest.fixture
def guandan(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """A pytester whose sessions load only the plugins they name and can import tests.engines."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    pytester.syspathinsert(str(REPO))  # for sessions in this process
    repo_on_path(monkeypatch)
    return pytester


def repo_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """`py:tests.engines...` importable here and in the engine and pytest processes tests start."""
    monkeypatch.syspath_prepend(str(REPO))
    paths = [str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(paths))


T = TypeVar("T")


def slow_but(values: Iterable[Any], *fast: Any) -> list[Any]:
    """`values` as parameters (a tuple for several arguments), each marked slow but those in
    `fast`: the fast tier keeps a few of a long parametrisation, CI runs them all."""
    values = list(values)
    unknown = [v for v in fast if v not in values]
    if unknown:
        raise ValueError(f"slow_but: {unknown!r} not among the values {values!r}")
    return [
        pytest.param(*(v if isinstance(v, tuple) else (v,)), marks=() if v in fast else SLOW)
        for v in values
    ]


SLOW = pytest.mark.slow
"""The mark of the slow tier, which `python -m pytest -m "not slow"` leaves out."""


def on_ci() -> bool:
    """Whether this run is CI's (`CI=true`, as .ci/run and hosted CI services set it)."""
    return os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")


def require(present: bool, what: str, package: str) -> None:
    """Go on where a system tool or header the test needs is `present`; else skip the test,
    naming `what` is missing and the Debian `package` that provides it, or, on CI (which
    installs them all), fail it: a skip there would hide a test that never ran."""
    if present:
        return
    message = f"{what} is missing: .ci/run installs it (apt-get install {package})"
    if on_ci():
        pytest.fail(message)
    pytest.skip(message)


def system_tool(name: str, package: str, *others: str) -> str:
    """The path of the command `name` (or of the first of `others` found), as `require` has
    it: skipped naming the command where it is absent, failed on CI."""
    found = next(filter(None, (shutil.which(n) for n in (name, *others))), None)
    require(found is not None, f"`{name}`", package)
    assert found is not None
    return found


def once_per_run(
    tmp_path_factory: pytest.TempPathFactory, name: str, make: Callable[[Path], T]
) -> tuple[Path, T]:
    """A costly session fixture's work done once for the whole run: under xdist the first
    worker to ask does `make` in a folder all workers share, under a file lock, and the others
    read what it returned (pickled); without xdist, simply done. A session fixture alone is made
    once per worker: the site (two minutes) was built by each of them."""
    if os.environ.get("PYTEST_XDIST_WORKER") is None:
        folder = tmp_path_factory.mktemp(name)
        return folder, make(folder)
    folder = tmp_path_factory.getbasetemp().parent / name
    with FileLock(f"{folder}.lock"):
        made = folder / ".made.pickle"
        if made.exists():
            value: T = pickle.loads(made.read_bytes())
            return folder, value
        folder.mkdir(exist_ok=True)
        value = make(folder)
        made.write_bytes(pickle.dumps(value))
        return folder, value


def run_guandan(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """The real `guandan` command in a process of its own, from the checkout."""
    return subprocess.run(
        [sys.executable, "-m", "harness.frontends.cli", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="replace",
        timeout=timeout,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        check=False,
    )


# The documentation site, built once per run: tests/test_docs.py reads its pages and
# tests/test_rulebook_print.py its PDFs.
@pytest.fixture(scope="session")
def site_build(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """`mkdocs build --strict` into a temporary folder (nothing generated is committed): the
    folder, and every line the build printed.

    Never with `-q`: it drops warnings before strict mode counts them, so a broken site built
    "strictly" (13 missing anchors once passed that way)."""

    def build(out: Path) -> tuple[int, list[str]]:
        result = subprocess.run(
            [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(out)],
            cwd=Path(__file__).resolve().parents[1],
            capture_output=True,
            text=True,
            check=False,
        )
        return result.returncode, (result.stdout + result.stderr).splitlines()

    # Each worker reads the one build's output and judges it, so a broken build fails them all.
    out, (code, said) = once_per_run(tmp_path_factory, "site", build)
    assert code == 0, "\n".join(said)
    return out, said


SITE_LOG = (
    "INFO    -  Cleaning site",
    "INFO    -  Building documentation",
    "INFO    -  guandan: ",
    "INFO    -  Documentation built",
)
"""What the site build may print: mkdocs's three progress lines and the hook's stages."""


@pytest.fixture(scope="session")
def site(site_build: tuple[Path, list[str]]) -> Path:
    """The site built: a line the build printed that is not one of `SITE_LOG`'s (a warning, a
    message of a plugin) fails the test."""
    out, said = site_build
    unexpected = [line for line in said if line.strip() and not line.startswith(SITE_LOG)]
    assert unexpected == [], "\n".join(unexpected)
    return out
