"""Conformance tools (一致性), layer 4: the corpus (bundled and one's own), comparing outputs,
the runner and its reports, coverage, the hypothesis strategies and the pytest plugin.

Imports from the engines, the interpreter, the rule model and layer 0 (`harness.errors`,
`harness._paths`); never from the front ends. Variants travel as loaded `Ruleset` values
(`variants.py`), never as slugs to reload.
"""
