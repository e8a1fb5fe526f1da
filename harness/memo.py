"""A bounded memo (備忘): a function's answers kept by its arguments, at most so many, the one
used least recently dropped first (`functools.lru_cache` underneath).

It lives outside `harness/interpreter/` on purpose: the code-mutation run mutates the
interpreter, and a memo's bookkeeping changes how soon an answer comes, never the answer.

A memo holds its keys, so an object passed as an argument stays alive while it is kept and its
`id()` cannot be reused for another: key by the object, never by its `id()`. Arguments that
compare equal are one key (as in a dict): the function must give them one answer.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec, Protocol, TypeVar, cast

P = ParamSpec("P")
T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)


class Memoized(Protocol[P, T_co]):
    """A memoized function: called like the function, with its memo's figures and a reset."""

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> T_co:
        """The function's answer, from the memo when these arguments were seen lately."""
        ...

    def cache_info(self) -> functools._CacheInfo:
        """Hits, misses, the bound and how many answers are kept."""
        ...

    def cache_clear(self) -> None:
        """Forget every answer (tests start from an empty memo with it)."""
        ...


def memo(size: int) -> Callable[[Callable[P, T]], Memoized[P, T]]:
    """A decorator keeping the answers of a function of hashable arguments: the `size` used
    most recently, the least recently used evicted first."""
    if size < 1:
        raise ValueError(f"a memo keeps at least one answer, not {size}")

    def wrap(function: Callable[P, T]) -> Memoized[P, T]:
        return cast("Memoized[P, T]", functools.lru_cache(maxsize=size)(function))

    return wrap
