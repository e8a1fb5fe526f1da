"""Where the bundled data (spec, variants, corpus) lives, installed or in a checkout, and the
user's cache, reached safely (`read_cache`, `write_cache`)."""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def data_root() -> Path:
    """The folder holding `spec/`, `variants/` and `conformance_cases/`."""
    bundled = _PACKAGE / "_data"
    # A wheel ships the data inside the package; a source checkout keeps it beside the package.
    if (bundled / "spec").is_dir():
        return bundled
    return _PACKAGE.parent


def spec_dir() -> Path:
    """The bundled `spec/` folder (schemas, notation, sources)."""
    return data_root() / "spec"


def variants_dir() -> Path:
    """The bundled `variants/` folder (one YAML file per rule set)."""
    return data_root() / "variants"


def cases_dir() -> Path:
    """The bundled `conformance_cases/` folder (the corpus)."""
    return data_root() / "conformance_cases"


# The user's cache holds what is read back as trusted (byte code the harness runs, cases it
# judges by), so it is reached through descriptors only: every folder from `/` down is opened
# without following a link and checked on what was opened, and files are read from, and renamed
# into, the folder that was checked. A path checked first and opened after could be swapped.
CACHE_FOLDER = "guandan-harness"
CACHE_FILE_LIMIT = 64 * 1024 * 1024
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)


def read_cache(name: str) -> bytes | None:
    """The whole of the cache file `name`; None when there is no safe cache, the file is
    missing, is no regular file, is larger than `CACHE_FILE_LIMIT`, or is not its user's alone."""
    with _cache_folder() as folder:
        if folder is None:
            return None
        try:
            # Non-blocking, so that a FIFO planted under the name cannot hang the open.
            flags = os.O_RDONLY | _NOFOLLOW | os.O_NONBLOCK
            with _opened(_plain(name), flags, folder) as fd:
                info = os.fstat(fd)
                if not stat.S_ISREG(info.st_mode) or not _private(info):
                    return None
                if info.st_size > CACHE_FILE_LIMIT:
                    return None
                with open(fd, "rb", closefd=False) as fh:
                    data = fh.read(CACHE_FILE_LIMIT + 1)
                return data if len(data) <= CACHE_FILE_LIMIT else None
        except OSError:
            return None


def write_cache(name: str, data: bytes) -> None:
    """Write the cache file `name` whole (a temporary file of an unpredictable name, renamed),
    readable by its user only; nothing when there is no safe cache or the write fails (the
    partial is removed): a cache that cannot be written costs only time."""
    with _cache_folder() as folder:
        if folder is None or len(data) > CACHE_FILE_LIMIT:
            return
        import secrets  # here: a write needs it, and `guandan --version` reads the cache only

        partial = f".{_plain(name)}.{secrets.token_hex(8)}.tmp"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW
        try:
            with _opened(partial, flags, folder, 0o600) as fd:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
            os.replace(partial, name, src_dir_fd=folder, dst_dir_fd=folder)
        except BaseException as error:
            with contextlib.suppress(OSError):
                os.unlink(partial, dir_fd=folder)
            if not isinstance(error, OSError):
                raise


def _plain(name: str) -> str:
    """`name` itself, when it names a file in the folder (no separator, no `.` or `..`)."""
    if not name or name in (".", "..") or "/" in name or (os.altsep and os.altsep in name):
        raise ValueError(f"not a plain file name: {name!r}")
    return name


def _supported() -> bool:
    """Whether this platform opens and renames relative to a folder's descriptor without
    following links; where it does not (Windows), there is no cache at all."""
    needed = {os.open, os.mkdir, os.rename, os.unlink}
    return bool(_NOFOLLOW and _DIRECTORY) and needed <= os.supports_dir_fd


def _cache_base() -> str | None:
    """The real path of the user's cache base (`XDG_CACHE_HOME`, else ~/.cache), links resolved;
    None when it cannot be told (a relative `XDG_CACHE_HOME` is ignored, as XDG says)."""
    configured = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(configured):
        configured = os.path.join(os.path.expanduser("~"), ".cache")
        if not os.path.isabs(configured):
            return None
    return os.path.realpath(configured)


@contextlib.contextmanager
def _cache_folder() -> Iterator[int | None]:
    """A descriptor of the harness's cache folder, made for its user alone where missing; None
    when there is no safe one. Every descriptor opened on the way is closed on leaving."""
    with contextlib.ExitStack() as opened:
        try:
            folder = _open_cache_folder(opened) if _supported() else None
        except OSError:
            folder = None
        yield folder


def _open_cache_folder(opened: contextlib.ExitStack) -> int | None:
    """Open the cache folder component by component from `/`, each without following a link
    and checked on its descriptor: the folders above may hold it (`_may_hold`), and the folder
    itself is the user's alone (`_private`). Links were resolved before, in `_cache_base`: a
    component swapped for a link since then fails to open."""
    base = _cache_base()
    if base is None:
        return None
    names = [part for part in base.split(os.sep) if part]
    fd = opened.enter_context(_opened(os.sep, os.O_RDONLY | _DIRECTORY, None))
    # Not resolved: the harness's own folder may not be a link at all.
    for name in [*names, CACHE_FOLDER]:
        if not _may_hold(os.fstat(fd)):
            return None
        fd = _open_folder(opened, name, fd)
    return fd if _private(os.fstat(fd)) else None


def _open_folder(opened: contextlib.ExitStack, name: str, parent: int) -> int:
    """The folder `name` in `parent`, opened without following a link (closed with `opened`);
    made, for its user alone, when missing."""
    flags = os.O_RDONLY | _DIRECTORY | _NOFOLLOW
    try:
        return opened.enter_context(_opened(name, flags, parent))
    except FileNotFoundError:
        with contextlib.suppress(FileExistsError):
            os.mkdir(name, 0o700, dir_fd=parent)
    return opened.enter_context(_opened(name, flags, parent))


@contextlib.contextmanager
def _opened(name: str, flags: int, dir_fd: int | None, mode: int = 0o777) -> Iterator[int]:
    """A descriptor of `name` (relative to `dir_fd`), closed on leaving."""
    fd = os.open(name, flags, mode, dir_fd=dir_fd)
    try:
        yield fd
    finally:
        os.close(fd)


def _may_hold(info: os.stat_result) -> bool:
    """Whether a folder on the way may hold the cache: it belongs to root or to the user, and no
    one else may rename what is in it (not writable by group or others, unless sticky like /tmp,
    where only an entry's owner may rename it)."""
    owner_ok = info.st_uid in (0, os.getuid())
    return owner_ok and (not info.st_mode & 0o022 or bool(info.st_mode & stat.S_ISVTX))


def _private(info: os.stat_result) -> bool:
    """Whether what `info` describes belongs to the user and no one else may write it."""
    return info.st_uid == os.getuid() and not info.st_mode & 0o022
