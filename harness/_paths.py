"""Where the bundled data (spec, variants, corpus) lives, installed or in a checkout."""

from __future__ import annotations

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
