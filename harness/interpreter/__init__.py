"""The interpreter (解釋器), layer 2: classify, compare and list plays, run rounds, tribute,
settle matches, score, play whole matches with bots (`bots`, `heuristic`), and answer the engine
operations on JSON-shaped data.

Imports from the rule model and `harness.errors` only. Each function that applies a clause
is marked with `@implements` (`harness.model.declarations`); the clause registry
(`harness.model.registry`) reads the marks of the modules it lists.
"""

from harness.interpreter import (
    bots,
    classify,
    legal,
    match,
    operations,
    readings,
    round,
    scoring,
    tribute,
)

__all__ = [
    "bots",
    "classify",
    "legal",
    "match",
    "operations",
    "readings",
    "round",
    "scoring",
    "tribute",
]
