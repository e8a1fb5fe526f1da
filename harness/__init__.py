"""Reference specification and conformance harness for Guandan (摜蛋)."""

# Set before the imports: harness.engine.api reads it while the package is being imported.
__version__ = "0.1.0"

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
