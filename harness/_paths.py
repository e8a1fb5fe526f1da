"""Where the bundled data (spec, variants, corpus) lives, installed or in a checkout."""

from __future__ import annotations

import os
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


def cache_dir() -> Path | None:
    """The harness's folder in the user's cache (`XDG_CACHE_HOME`, else ~/.cache), made for its
    user alone; None when it cannot be made, or when it is not the user's own or others may
    write it (what is cached there is read back as trusted)."""
    folder = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "guandan-harness"
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        return folder if private(folder) else None
    except OSError:
        return None


def private(path: Path) -> bool:
    """Whether `path` belongs to this user and no one else may write it (OSError if missing)."""
    info = path.stat()
    return info.st_uid == os.getuid() and not info.st_mode & 0o022


def write_private(path: Path, data: bytes) -> None:
    """Write `path` whole (through a temporary file, then a rename), readable by its user only."""
    partial = path.with_suffix(f".{os.getpid()}.tmp")
    with os.fdopen(os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as fh:
        fh.write(data)
    os.replace(partial, path)
