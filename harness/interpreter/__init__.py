"""The interpreter (解釋器), layer 2: classify, compare and list plays, run rounds, tribute,
settle matches, score, simulate, and answer the engine operations on JSON-shaped data.

Imports from the rule model and `harness.errors` only. Each function that applies a clause
declares it to the clause registry (`harness.model.registry`).
"""

from harness.interpreter import (
    classify,
    legal,
    match,
    operations,
    readings,
    round,
    scoring,
    simulate,
    tribute,
)
from harness.model import registry

# Every function that applies a clause has now declared it: check the registry is complete.
registry.seal()

__all__ = [
    "classify",
    "legal",
    "match",
    "operations",
    "readings",
    "round",
    "scoring",
    "simulate",
    "tribute",
]
