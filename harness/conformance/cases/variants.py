"""Variants as values (變體): the conformance tools pass loaded `Ruleset`s around and never
reload a variant by its slug, so a club's own file is checked exactly as a bundled variant is.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path

from harness._paths import cases_dir
from harness.conformance.cases.case_loader import Case
from harness.errors import UsageError
from harness.model.loader import bundled_variants
from harness.model.ruleset import Ruleset


def by_slug(rulesets: Sequence[Ruleset]) -> dict[str, Ruleset]:
    """The variants by slug; two variants with one slug are a UsageError."""
    out: dict[str, Ruleset] = {}
    for ruleset in rulesets:
        if ruleset.slug in out and out[ruleset.slug] is not ruleset:
            raise UsageError(f"two variants are named {ruleset.slug!r}; give each its own id")
        out[ruleset.slug] = ruleset
    return out


@functools.cache
def _bundled() -> dict[str, Ruleset]:
    return {r.slug: r for r in bundled_variants()}


def is_bundled(ruleset: Ruleset) -> bool:
    """Whether `ruleset` is a bundled variant (with some options chosen): same id, same files,
    every clause the same value. A club's file, or a mutant, is not."""
    bundled = _bundled().get(ruleset.slug)
    if bundled is None or bundled.files != ruleset.files:
        return False
    base = bundled.with_options(dict(ruleset.chosen)) if ruleset.chosen else bundled
    return all(base.value(cid) == c.value for cid, c in ruleset.clauses.items())


def is_bundled_case(case: Case) -> bool:
    """Whether the case is one of the bundled corpus's (not one's own)."""
    return Path(case.location.file).resolve().is_relative_to(cases_dir().resolve())
