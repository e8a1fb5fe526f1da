"""The fast engine's kernel (快速引擎核心): C compiled with the system's compiler at first use,
kept in the user's cache, loaded with ctypes; absent (and said why) where there is no compiler.

Why this way (docs/guide/fast-engine.md): `pip install .` needs only Python and pip, the
build backend stays hatchling, and the kernel is plain C with no Python headers, so one file
builds wherever a C compiler exists and nothing is built where none does (the Python path then
answers, as PyYAML falls back without libyaml). The shared object is built once per machine
and kernel source (about a second), kept in the cache through its descriptors like the
compiled schema check, and loaded from memory (memfd) so that no path is opened after it was
checked. `GUANDAN_FAST=off` switches the kernel off, as on a machine without a compiler.
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import os
import shutil
import sys
from typing import NamedTuple

from harness._paths import read_cache, write_cache
from harness.kernel.layout import LAYOUT, c_defines
from harness.kernel.view import LISTER, GdRoundView

SWITCH = "GUANDAN_FAST"
"""The environment variable that switches the kernel off (`off`, `0` or `no`)."""
COMPILE_SECONDS = 120


class KernelStatus(NamedTuple):
    """Whether the fast engine's kernel is active (快速引擎狀態), and if not, why.

    A named tuple, not a dataclass: `guandan --version` asks for it, and importing
    `dataclasses` (with `inspect`, `ast` and `dis`) would double that command's start-up."""

    active: bool
    detail: str

    def __str__(self) -> str:
        return f"fast engine {'on' if self.active else 'off'} ({self.detail})"


class Kernel:
    """The loaded kernel: its C functions, with their argument types set."""

    def __init__(self, library: ctypes.CDLL) -> None:
        i32p = ctypes.POINTER(ctypes.c_int32)
        self.library = library
        self.classify = library.gd_classify
        self.classify.argtypes = [i32p, i32p, ctypes.c_int, ctypes.c_int, ctypes.c_int, i32p]
        self.classify.argtypes += [ctypes.c_int]
        self.classify.restype = ctypes.c_int
        self.beats = library.gd_beats
        self.beats.argtypes = [i32p, ctypes.c_int32, ctypes.c_int32]
        self.beats.restype = ctypes.c_int
        self.list = library.gd_list
        self.list.argtypes = [i32p, i32p, ctypes.c_int64, i32p, ctypes.c_int, ctypes.c_int32]
        self.list.argtypes += [ctypes.c_int, i32p, ctypes.c_int64]
        self.list.restype = ctypes.c_int64
        self.hand_plays = library.gd_hand_plays
        self.hand_plays.argtypes = [i32p, i32p, ctypes.c_int32, ctypes.c_int32, ctypes.c_int32]
        self.hand_plays.argtypes += [i32p, ctypes.c_int64]
        self.hand_plays.restype = ctypes.c_int64
        self.cache_words: int = library.gd_cache_words()
        # The heuristic bot (_bot.c): one per seat, its memory kept across rounds.
        bot = ctypes.c_void_p
        self.bot_new = library.gd_bot_new
        self.bot_new.argtypes = []
        self.bot_new.restype = bot
        self.bot_free = library.gd_bot_free
        self.bot_free.argtypes = [bot]
        self.bot_free.restype = None
        self.bot_act = library.gd_bot_act
        self.bot_act.argtypes = [bot, ctypes.POINTER(GdRoundView), ctypes.c_int32, i32p, i32p]
        self.bot_act.argtypes += [i32p]
        self.bot_act.restype = ctypes.c_int32
        self.bot_give_back = library.gd_bot_give_back
        self.bot_give_back.argtypes = [bot, i32p, i32p, ctypes.c_int32, LISTER, i32p]
        self.bot_give_back.argtypes += [ctypes.c_int32, i32p, ctypes.c_int32]
        self.bot_give_back.restype = ctypes.c_int32
        self.bot_choose = library.gd_bot_choose
        self.bot_choose.argtypes = [i32p, ctypes.c_int32]
        self.bot_choose.restype = ctypes.c_int32
        self.bot_plan = library.gd_bot_plan
        self.bot_plan.argtypes = [bot, i32p, i32p, LISTER, i32p, ctypes.c_int32, i32p]
        self.bot_plan.argtypes += [ctypes.c_int32, i32p, ctypes.c_int64]
        self.bot_plan.restype = ctypes.c_int64
        self.bot_tables_size: int = library.gd_bot_tables_size()


SOURCES = ("_kernel.c", "_listing.c", "_bot.c", "_round.c", "_tribute.c")
"""The kernel's C files, each its own translation unit (its static names its own), linked into
one shared object: the operations on counts, the listing in the reference's order, the
heuristic bot, the round it plays in and the tribute between rounds."""
HEADER = "_round.h"
"""What the files share, put before each (the build writes the files alone, with no folder to
include from)."""


def sources() -> tuple[str, ...]:
    """The kernel's C sources as compiled: each file of `SOURCES` after the table layout's
    defines and `HEADER`."""
    # Beside this module, read without importlib.resources, whose import alone costs
    # `guandan --version` (which asks for the kernel's status) more than the rest of it.
    here = os.path.dirname(__file__)
    with open(os.path.join(here, HEADER), encoding="utf-8") as fh:
        defines = c_defines() + fh.read()
    texts = []
    for name in SOURCES:
        with open(os.path.join(here, name), encoding="utf-8") as fh:
            texts.append(defines + fh.read())
    return tuple(texts)


def _compiler() -> str | None:
    """The C compiler to use: `$CC`, else `cc`, `gcc` or `clang` on the PATH."""
    named = os.environ.get("CC")
    if named:
        return shutil.which(named)
    for name in ("cc", "gcc", "clang"):
        found = shutil.which(name)
        if found:
            return found
    return None


def _switched_off() -> bool:
    return os.environ.get(SWITCH, "").strip().lower() in ("off", "0", "no", "false")


@functools.cache
def load() -> tuple[Kernel | None, KernelStatus]:
    """The kernel, built and cached at first use, and its status; (None, why) where it cannot
    be had. Once per process."""
    if _switched_off():
        return None, KernelStatus(False, f"switched off by {SWITCH}")
    texts = sources()
    identity = "\n".join((*texts, _machine(), sys.platform, str(LAYOUT)))
    name = f"fast-kernel-{hashlib.sha256(identity.encode()).hexdigest()[:24]}.so"
    data = read_cache(name)
    how = "cached"
    if data is None:
        compiler = _compiler()
        if compiler is None:
            return None, KernelStatus(False, "no C compiler found: the Python path answers")
        built = _build(compiler, texts)
        if isinstance(built, str):
            return None, KernelStatus(False, built)
        data = built
        how = f"built with {os.path.basename(compiler)}"
        write_cache(name, data)
    try:
        library = _load(data)
        kernel = Kernel(library)
        if library.gd_layout() != LAYOUT:
            return None, KernelStatus(False, "the cached kernel is of another table layout")
    except (OSError, AttributeError) as exc:
        return None, KernelStatus(False, f"the kernel could not be loaded: {exc}")
    return kernel, KernelStatus(True, f"C kernel, {how}")


def _machine() -> str:
    """The machine's architecture, as `platform.machine()` gives it, without importing
    `platform` where `os.uname` answers (every POSIX system)."""
    uname = getattr(os, "uname", None)
    if uname is not None:
        return str(uname().machine)
    import platform

    return platform.machine()


def _build(compiler: str, texts: tuple[str, ...]) -> bytes | str:
    """The shared object compiled from `texts` (one translation unit each), or why it could
    not be."""
    # Imported here: only a build needs them, and a cached kernel (`--version`) does not.
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory(prefix="guandan-fast-") as folder:
        out = os.path.join(folder, "kernel.so")
        files = []
        for i, text in enumerate(texts):
            files.append(os.path.join(folder, f"kernel{i}.c"))
            with open(files[-1], "w", encoding="utf-8") as fh:
                fh.write(text)
        command = [compiler, "-O2", "-shared", "-fPIC", "-o", out, *files]
        try:
            done = subprocess.run(
                command, capture_output=True, text=True, timeout=COMPILE_SECONDS, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"the C compiler could not run: {exc}"
        if done.returncode != 0 or not os.path.exists(out):
            said = (done.stderr.strip().splitlines() or ["no message"])[-1][:200]
            return f"the C compiler failed ({os.path.basename(compiler)}: {said})"
        with open(out, "rb") as fh:
            return fh.read()


def _load(data: bytes) -> ctypes.CDLL:
    """Load the shared object `data`: from an anonymous memory file where the system has them
    (Linux), so that no path is opened after it was checked; else from a private folder."""
    import contextlib
    import tempfile

    memfd_create = getattr(os, "memfd_create", None)
    if memfd_create is not None and os.path.isdir("/proc/self/fd"):
        fd = memfd_create("guandan-fast-kernel")
        try:
            with open(fd, "wb", closefd=False) as fh:
                fh.write(data)
            return ctypes.CDLL(f"/proc/self/fd/{fd}")
        finally:
            os.close(fd)
    with tempfile.TemporaryDirectory(prefix="guandan-fast-") as folder:
        path = os.path.join(folder, "kernel.so")
        with open(path, "wb") as fh:
            fh.write(data)
        library = ctypes.CDLL(path)
        with contextlib.suppress(OSError):
            os.unlink(path)
        return library


def status() -> KernelStatus:
    """Whether the fast engine is active here, and why not when it is not."""
    return load()[1]
