"""The user's cache is reached through descriptors, never by a path checked first and opened
after: a cache file or folder that is a link, a folder on the way that others may write (unless
sticky like /tmp), a file or folder not the user's alone, or a name swapped for a link while the
cache is read, means no cache (the slow way, never a planted file), for the compiled schema check
(byte code the harness runs) and for the corpus cache (cases it judges by) alike. Writes leave
no partial file behind."""

from __future__ import annotations

import contextlib
import errno
import marshal
import os
import stat
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import fastjsonschema
import pytest

from harness._paths import read_cache, write_cache
from harness.conformance.cases.case_loader import read_case_file
from harness.model import _schemas
from tests import test_corpus_cache
from tests.test_corpus_cache import CASE_FILE

cache = test_corpus_cache.cache  # the fixture: an empty cache folder of the test's own

# A small schema compiles in milliseconds, so that a load missing the cache is cheap enough to
# repeat hundreds of times; its check is `validate_tiny` and refuses an object without `a`.
TINY = {"$id": "tiny", "$schema": _schemas.DRAFT_7, "type": "object", "required": ["a"]}


@dataclass(frozen=True)
class Kind:
    """One of the two caches: the file it keeps, what an attacker would plant instead, and a
    load that says whether it gave the genuine result (and never ran the planted code)."""

    cached: Path
    poison: bytes
    genuine: Callable[[], bool]


def _schema_kind(cache: Path, tmp_path: Path) -> Kind:
    marker = tmp_path / "planted code ran"
    planted = f"open({str(marker)!r}, 'w').close()\ndef validate_tiny(data):\n    return data\n"

    def genuine() -> bool:
        check = _schemas._compiled(TINY)
        try:
            check({})
        except fastjsonschema.JsonSchemaException:
            return not marker.exists()
        return False  # the planted check lets everything through

    assert genuine()
    (cached,) = cache.glob("schema-*.code")
    return Kind(cached, marshal.dumps(compile(planted, "planted", "exec")), genuine)


def _cases_kind(cache: Path, tmp_path: Path) -> Kind:
    path = tmp_path / "cases.yaml"
    path.write_text(CASE_FILE, encoding="utf-8")

    def genuine() -> bool:
        cases, problems = read_case_file(path)
        return not problems and [c.description for c in cases] == ["A five is a single."]

    assert genuine()
    (cached,) = cache.glob("cases-*.json")
    poison = cached.read_bytes().replace(b"A five is a single.", b"Planted.")
    return Kind(cached, poison, genuine)


@pytest.fixture(params=["schema code", "cases"])
def kind(request: pytest.FixtureRequest, cache: Path, tmp_path: Path) -> Kind:
    """Each cache, filled once."""
    make = _schema_kind if request.param == "schema code" else _cases_kind
    return make(cache, tmp_path)


def _attacker_file(tmp_path: Path, kind: Kind, mode: int = 0o600) -> Path:
    attacker = tmp_path / "attacker"
    attacker.write_bytes(kind.poison)
    attacker.chmod(mode)
    return attacker


def _owned_by(monkeypatch: pytest.MonkeyPatch, path: Path, uid: int) -> None:
    """Make `path` look owned by `uid` to the cache's checks (a test run as root, or as anyone,
    cannot give a file away for real)."""
    target = path.lstat()
    real = os.fstat

    def fstat(fd: int) -> os.stat_result:
        info = real(fd)
        if (info.st_dev, info.st_ino) != (target.st_dev, target.st_ino):
            return info
        fields = list(info[:10])
        fields[stat.ST_UID] = uid
        return os.stat_result(fields)

    monkeypatch.setattr(os, "fstat", fstat)


def _works() -> bool:
    """Whether the cache is used: what is written is read back."""
    write_cache("probe", b"probe")
    return read_cache("probe") == b"probe"


def test_a_second_load_hits_the_cache(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _schemas._compiled(TINY)

    def unused(*args: Any) -> None:
        raise AssertionError("compiled again")

    monkeypatch.setattr(fastjsonschema, "compile_to_code", unused)
    monkeypatch.setattr(fastjsonschema, "compile", unused)
    with pytest.raises(fastjsonschema.JsonSchemaException):
        _schemas._compiled(TINY)({})
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in cache.iterdir())


def test_a_cache_file_that_is_a_link_is_never_read(kind: Kind, tmp_path: Path) -> None:
    attacker = _attacker_file(tmp_path, kind)  # the user's own, 0600: only the link is wrong
    kind.cached.unlink()
    kind.cached.symlink_to(attacker)
    assert kind.genuine()
    # The link itself was replaced by the genuine file; what it pointed at is untouched.
    assert not kind.cached.is_symlink() and kind.cached.read_bytes() != kind.poison
    assert attacker.read_bytes() == kind.poison


@pytest.mark.parametrize("spoil", ["mode 0666", "another owner", "a FIFO", "a folder"])
def test_a_cache_file_not_the_users_alone_or_not_a_file_is_never_read(
    kind: Kind, monkeypatch: pytest.MonkeyPatch, spoil: str
) -> None:
    kind.cached.unlink()
    if spoil == "a FIFO":
        os.mkfifo(kind.cached, 0o600)  # opened non-blocking: it cannot hang the load
    elif spoil == "a folder":
        kind.cached.mkdir(0o700)
    else:
        kind.cached.write_bytes(kind.poison)
        kind.cached.chmod(0o666 if spoil == "mode 0666" else 0o600)
        if spoil == "another owner":
            _owned_by(monkeypatch, kind.cached, 4242)
    assert kind.genuine()


def test_the_cache_folder_may_not_be_a_link(
    kind: Kind, cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(0o700)
    (elsewhere / kind.cached.name).write_bytes(kind.poison)
    (elsewhere / kind.cached.name).chmod(0o600)
    for item in cache.iterdir():
        item.unlink()
    cache.rmdir()
    cache.symlink_to(elsewhere)
    assert kind.genuine()
    assert not _works()
    assert sorted(p.name for p in elsewhere.iterdir()) == [kind.cached.name]


def test_links_in_the_configured_path_are_resolved_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "link" / "base"))
    assert _works()
    assert (real / "base" / "guandan-harness" / "probe").read_bytes() == b"probe"
    # A component that is a link when the chain is opened (swapped in after the path was
    # resolved, here by resolving nothing) fails to open: no cache.
    monkeypatch.setattr(os.path, "realpath", lambda path: path)
    assert read_cache("probe") is None


def test_a_relative_cache_home_is_ignored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CACHE_HOME", "relative")
    monkeypatch.chdir(tmp_path)
    assert _works()
    assert (home / ".cache" / "guandan-harness" / "probe").exists()
    assert not (tmp_path / "relative").exists()


@pytest.mark.parametrize(
    ("where", "mode", "used"),
    [
        ("base", 0o777, False),
        ("base", 0o1777, True),  # sticky, like /tmp: others cannot rename the folder in it
        ("above", 0o770, False),  # group-writable, no sticky bit
        ("above", 0o1770, True),
        ("cache folder", 0o770, False),  # the folder itself: never, sticky or not
        ("cache folder", 0o1777, False),
        ("cache folder", 0o755, True),
    ],
)
def test_folders_others_may_write_disable_the_cache(
    cache: Path, tmp_path: Path, where: str, mode: int, used: bool
) -> None:
    assert _works()
    folder = {"base": cache.parent, "above": tmp_path, "cache folder": cache}[where]
    folder.chmod(mode)
    assert _works() is used
    assert read_cache("probe") == (b"probe" if used else None)


@pytest.mark.parametrize(
    ("where", "owner", "used"),
    [
        ("above", 4242, False),
        ("above", 0, True),  # root owns the folders above a user's home
        ("cache folder", 4242, False),
    ],
)
def test_folders_owned_by_another_user_disable_the_cache(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str, owner: int, used: bool
) -> None:
    assert _works()
    _owned_by(monkeypatch, cache if where == "cache folder" else tmp_path, owner)
    assert (read_cache("probe") == b"probe") is used


@pytest.mark.parametrize(("owner", "used"), [(4242, True), (0, False)])
def test_root_may_own_the_folders_above_not_the_cache_folder(
    cache: Path, monkeypatch: pytest.MonkeyPatch, owner: int, used: bool
) -> None:
    """Seen by a user 4242 (the test may run as root): every folder above is root's."""
    assert _works()
    for folder in cache.parents:
        _owned_by(monkeypatch, folder, 0)
    for path in (cache, cache / "probe"):
        _owned_by(monkeypatch, path, owner)
    monkeypatch.setattr(os, "getuid", lambda: 4242)
    assert (read_cache("probe") == b"probe") is used


def test_without_descriptor_relative_calls_there_is_no_cache(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _works()
    monkeypatch.setattr(os, "supports_dir_fd", set())
    assert read_cache("probe") is None
    write_cache("other", b"x")
    assert not (cache / "other").exists()
    with pytest.raises(fastjsonschema.JsonSchemaException):
        _schemas._compiled(TINY)({})


def _failing_write(fail: BaseException) -> Callable[[int, Any], int]:
    """`os.write` writing part of the first buffer, then raising `fail`."""
    real = os.write
    calls: list[int] = []

    def write(fd: int, data: Any) -> int:
        calls.append(fd)
        if len(calls) == 1:
            return real(fd, bytes(data)[:3])
        raise fail

    return write


@pytest.mark.parametrize("step", ["write", "replace"])
def test_a_failed_write_leaves_no_partial(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, step: str
) -> None:
    assert _works()
    with monkeypatch.context() as failing:
        if step == "write":
            failing.setattr(os, "write", _failing_write(OSError(errno.ENOSPC, "disk full")))
        else:

            def replace(*args: Any, **kwargs: Any) -> None:
                raise OSError(errno.EROFS, "read-only")

            failing.setattr(os, "replace", replace)
        write_cache("probe", b"something else")
        path = tmp_path / "cases.yaml"
        path.write_text(CASE_FILE, encoding="utf-8")
        (case,), problems = read_case_file(path)  # a cache that cannot be written costs only time
        assert not problems and case.description == "A five is a single."
    assert sorted(p.name for p in cache.iterdir()) == ["probe"]
    assert read_cache("probe") == b"probe"


def test_an_interrupted_write_leaves_no_partial(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _works()
    with monkeypatch.context() as failing:
        failing.setattr(os, "write", _failing_write(KeyboardInterrupt()))
        with pytest.raises(KeyboardInterrupt):
            write_cache("other", b"something")
    assert sorted(p.name for p in cache.iterdir()) == ["probe"]


def test_partial_files_have_unpredictable_names_and_are_made_new(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _works()
    made: list[tuple[str, int]] = []
    real = os.open

    def recording(name: str, flags: int, *args: Any, **kwargs: Any) -> int:
        if flags & os.O_CREAT:
            made.append((name, flags))
        return real(name, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", recording)
    monkeypatch.setattr(os, "supports_dir_fd", os.supports_dir_fd | {recording})
    write_cache("probe", b"one")
    write_cache("probe", b"two")
    (first, flags), (second, _) = made
    assert first != second and str(os.getpid()) not in first
    assert flags & os.O_EXCL and flags & os.O_NOFOLLOW


def _descriptors() -> int:
    return len(os.listdir("/proc/self/fd" if os.path.isdir("/proc/self/fd") else "/dev/fd"))


def test_every_descriptor_is_closed(kind: Kind, tmp_path: Path) -> None:
    before = _descriptors()
    for _ in range(20):
        assert kind.genuine()
    kind.cached.unlink()
    kind.cached.symlink_to(_attacker_file(tmp_path, kind))
    assert kind.genuine()
    assert read_cache("missing") is None
    assert _descriptors() == before


# The attacker: another process (as a real one would be, and so truly in parallel), swapping a
# link to its file in and out of the cache file's name, each swap a rename, until told to stop;
# it prints how many swaps it made.
SWAPPER = """
import os, sys
cached, attacker, good, stop = sys.argv[1:]
folder = os.path.dirname(cached)
link, hard = os.path.join(folder, "link"), os.path.join(folder, "hard")
swaps = 0
print("ready", flush=True)
while not os.path.exists(stop):
    for _ in range(100):
        os.symlink(attacker, link)
        os.replace(link, cached)
        os.link(good, hard)
        os.replace(hard, cached)
    swaps += 100
print(swaps)
"""


@contextlib.contextmanager
def _swapping(cached: Path, attacker: Path) -> Iterator[list[int]]:
    """Run the attacker against `cached` (a genuine file, kept aside as `good` to swap back in);
    yields a list that holds the count of swaps once it stopped."""
    good = cached.parent / "good"
    os.link(cached, good)
    stop = attacker.parent / "stop"
    args = [sys.executable, "-c", SWAPPER, str(cached), str(attacker), str(good), str(stop)]
    swaps: list[int] = []
    with subprocess.Popen(args, stdout=subprocess.PIPE, text=True) as swapper:
        assert swapper.stdout is not None
        assert swapper.stdout.readline() == "ready\n"
        try:
            yield swaps
        finally:
            stop.touch()
            out, _ = swapper.communicate(timeout=60)
        assert swapper.returncode == 0
        swaps.append(int(out))


def test_a_link_swapped_in_while_the_cache_is_read_is_never_followed(
    kind: Kind, tmp_path: Path
) -> None:
    # The planted file is one a check by path would refuse (others may write it): only a check
    # on one path and a read on another could reach it.
    attacker = _attacker_file(tmp_path, kind, 0o666)
    with _swapping(kind.cached, attacker) as swaps:
        for _ in range(300):
            assert kind.genuine()
    (count,) = swaps
    assert count >= 100  # the attacker swapped all along (hundreds to thousands of times)
    assert attacker.read_bytes() == kind.poison
