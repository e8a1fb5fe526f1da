"""Variants as values (變體): the conformance tools pass loaded `Ruleset`s around and never
reload a variant by its slug, so a club's own file is checked exactly as a bundled variant is.
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.errors import UsageError
from harness.model.ruleset import Ruleset


def by_slug(rulesets: Sequence[Ruleset]) -> dict[str, Ruleset]:
    """The variants by slug; two variants with one slug are a UsageError."""
    out: dict[str, Ruleset] = {}
    for ruleset in rulesets:
        if ruleset.slug in out and out[ruleset.slug] is not ruleset:
            raise UsageError(f"two variants are named {ruleset.slug!r}; give each its own id")
        out[ruleset.slug] = ruleset
    return out
