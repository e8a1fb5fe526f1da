"""A variant as the engines take it: a loaded `Ruleset`, or for convenience a bundled slug."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from harness.model.loader import load_variant
from harness.model.ruleset import Ruleset


def as_ruleset(variant: Ruleset | str, options: Mapping[str, Any] | None = None) -> Ruleset:
    """A Ruleset as given, or the bundled variant with this slug; `options` chosen on it."""
    if isinstance(variant, str):
        return load_variant(variant, options)
    return variant.with_options(options) if options else variant


def clause_values(ruleset: Ruleset) -> dict[str, Any]:
    """Every clause's value by clause id, options applied: the rules as data, for the hello."""
    return {clause_id: clause.value for clause_id, clause in ruleset.clauses.items()}
