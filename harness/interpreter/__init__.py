"""The interpreter (解釋器), layer 2: classify, compare and list plays, run rounds, tribute,
settle matches, score, simulate, and answer the engine operations on JSON-shaped data.

Imports from the rule model and `harness.errors` only. Each function that applies a clause
declares it to the clause registry (`harness.model.registry`).
"""
