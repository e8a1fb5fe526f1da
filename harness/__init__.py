"""Reference specification and conformance harness for Guandan (摜蛋)."""

from harness.classify import Classification, classify
from harness.errors import HarnessError
from harness.legal import legal_plays
from harness.loader import load_variant, load_variant_file, variant_slugs
from harness.readings import Play, Reading, beats
from harness.ruleset import CombinationType, Ruleset

__all__ = [
    "Classification",
    "CombinationType",
    "HarnessError",
    "Play",
    "Reading",
    "Ruleset",
    "beats",
    "classify",
    "legal_plays",
    "load_variant",
    "load_variant_file",
    "variant_slugs",
]
__version__ = "0.1.0"
