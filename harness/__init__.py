"""Reference specification and conformance harness for Guandan (摜蛋)."""

import importlib as _importlib
import typing as _typing

# harness.engine.api reads it with `from harness import __version__`.
__version__ = "0.1.0"

if _typing.TYPE_CHECKING:
    from harness.engine import (
        Engine,
        EngineBase,
        EngineError,
        EngineInfo,
        OptionRefused,
        Unsupported,
    )
    from harness.errors import HarnessError
    from harness.interpreter.classify import Classification, classify
    from harness.interpreter.legal import legal_plays
    from harness.interpreter.readings import Play, Reading, beats
    from harness.model.loader import load_variant, load_variant_file, variant_slugs
    from harness.model.ruleset import CombinationType, Ruleset

# Each public name and the module it comes from: the facade imports a module only when one of
# its names is first asked for, so that `import harness.model.cards` (which imports this
# package first) does not load the interpreter and the engines.
_SOURCES = {
    "Classification": "harness.interpreter.classify",
    "CombinationType": "harness.model.ruleset",
    "Engine": "harness.engine",
    "EngineBase": "harness.engine",
    "EngineError": "harness.engine",
    "EngineInfo": "harness.engine",
    "HarnessError": "harness.errors",
    "OptionRefused": "harness.engine",
    "Play": "harness.interpreter.readings",
    "Reading": "harness.interpreter.readings",
    "Ruleset": "harness.model.ruleset",
    "Unsupported": "harness.engine",
    "beats": "harness.interpreter.readings",
    "classify": "harness.interpreter.classify",
    "legal_plays": "harness.interpreter.legal",
    "load_variant": "harness.model.loader",
    "load_variant_file": "harness.model.loader",
    "variant_slugs": "harness.model.loader",
}

__all__ = [
    "Classification",
    "CombinationType",
    "Engine",
    "EngineBase",
    "EngineError",
    "EngineInfo",
    "HarnessError",
    "OptionRefused",
    "Play",
    "Reading",
    "Ruleset",
    "Unsupported",
    "beats",
    "classify",
    "legal_plays",
    "load_variant",
    "load_variant_file",
    "variant_slugs",
]


def __getattr__(name: str) -> _typing.Any:
    """A public name of the facade (門面), imported from its module when first asked for."""
    source = _SOURCES.get(name)
    if source is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(_importlib.import_module(source), name)
    # Kept, so that the next look-up finds it without calling this function.
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The module's names, the public ones not yet imported included (as before: dir())."""
    return sorted({*globals(), *__all__})
