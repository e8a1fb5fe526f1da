"""The tools built on the interpreter as oracle (神諭), layer 4: fuzz, fingerprint, mutation, and
the verdicts `check` gives its failures (the explainer run over a finished run)."""
