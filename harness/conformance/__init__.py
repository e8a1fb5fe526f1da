"""Conformance tools (一致性), layer 4, in rooms by what they do, each importing only from the
rooms before it in this order:

- `judging`: the one judge, an output compared with its expectation, the interpreter's own
  outcome, the soundness of a listing;
- `cases`: the corpus (bundled and one's own), variants as values, what the corpus covers;
- `running`: the cases a run covers, the runner, the engine session, a run's results and journal;
- `explaining`: why one case failed, and the one explainer (which clause value an engine
  behaves as);
- `reporting`: a run's reports (terminal, JSON, JUnit XML, Markdown) and the dashboard's model;
- `oracles`: the tools built on the interpreter as oracle: fuzz, fingerprint, mutation, and the
  verdicts `check` gives its failures;
- `pytest_plugin`: the pytest plugin, where its entry point names it.

Imports from the engines, the interpreter, the rule model and layer 0 (`harness.errors`,
`harness._paths`); never from the front ends. Variants travel as loaded `Ruleset` values
(`cases/variants.py`), never as slugs to reload.
"""
