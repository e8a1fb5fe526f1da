"""Comparing an engine's output with a case's expected output (比對).

Keys the expected output leaves out are not compared, but for a replay step's `out`, `lead` and
`told` (`ABSENT_IS_NONE`): a listed step without one says the engine's step carries none. Lists
of readings, plays, payments, returns and cards are multisets (order free, each element as often
as expected); `events` and `reason` are never compared; `counts` mappings are compared whole.
Fields an engine declares it does not model (`EngineInfo.not_modelled`) are cut from the
expected output, wherever they are, before the comparison (`without_fields`).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Collection, Mapping
from typing import Any

# Lists compared as multisets (order does not matter, duplicates do), and keys never compared.
UNORDERED = frozenset({"readings", "plays", "actions", "payments", "returns", "cards"})
NOT_COMPARED = frozenset({"events", "reason"})
# Mappings compared whole: their keys are data (seats), not fields an expectation may leave out.
WHOLE = frozenset({"counts"})
# A replay step's fields whose absence is itself an answer (nobody went out, the trick did not
# end, nothing was told): a listed step without one says the engine's step must not carry it.
ABSENT_IS_NONE = ("out", "lead", "told")


class _Missing:
    """Stands for a key the actual output lacks; equal to nothing."""

    def __repr__(self) -> str:
        return "<missing>"


MISSING = _Missing()


class _NoneExpected:
    """Stands for a field an expected replay step leaves out: its absence, equal to MISSING."""

    def __repr__(self) -> str:
        return "none"


NONE = _NoneExpected()


# `json.dumps(value, sort_keys=True, ensure_ascii=False, default=repr)`, its encoder made once:
# `json.dumps` makes one for each call given options, and a long answer sorts thousands.
_ENCODER = json.JSONEncoder(sort_keys=True, ensure_ascii=False, default=repr)


# A mapping, a dict tried first (what answers hold: the abstract class's check is dearer).
_MAPPING = (dict, Mapping)


def _dump(value: Any) -> str:
    return _ENCODER.encode(value)


def without_fields(expected: Any, names: Collection[str]) -> tuple[Any, tuple[str, ...]]:
    """`expected` with every key in `names` taken out at any depth, and the names that were
    actually there (sorted): the fields an engine does not model are not compared."""
    if not names:
        return expected, ()
    found: set[str] = set()

    def cut(value: Any, key: str | None) -> Any:
        if key in WHOLE:
            return value  # its keys are seats, not field names
        if isinstance(value, Mapping):
            kept = {}
            for k, v in value.items():
                if k in names:
                    found.add(k)
                else:
                    kept[k] = cut(v, k)
            return kept
        if isinstance(value, list):
            return [cut(v, None) for v in value]
        return value

    return cut(expected, None), tuple(sorted(found))


def _with_absences(expected: Any, omit: Collection[str] = ()) -> Any:
    """`expected` with NONE for each `ABSENT_IS_NONE` field a replay step leaves out (but those
    in `omit`), so that an engine's step carrying one differs and one lacking it agrees."""
    if not (isinstance(expected, _MAPPING) and isinstance(expected.get("steps"), list)):
        return expected
    fields = [f for f in ABSENT_IS_NONE if f not in omit]
    steps = [
        {**{f: NONE for f in fields}, **step} if isinstance(step, _MAPPING) else step
        for step in expected["steps"]
    ]
    return {**expected, "steps": steps}


def _canon(value: Any, key: str | None = None) -> Any:
    if isinstance(value, dict):
        return {k: _canon(v, k) for k, v in value.items() if k not in NOT_COMPARED}
    if isinstance(value, list):
        items = [_canon(v) for v in value]
        return sorted(items, key=_dump) if key in UNORDERED else items
    return value


def _project(actual: Any, expected: Any, key: str | None = None) -> Any:
    """`actual` cut down to the keys `expected` names, so that left-out keys are not compared."""
    if key in WHOLE:
        return actual
    if isinstance(expected, dict) and isinstance(actual, dict):
        return {
            k: _project(actual[k], v, k) if k in actual else MISSING for k, v in expected.items()
        }
    if not (isinstance(expected, list) and isinstance(actual, list) and expected):
        return actual
    if key not in UNORDERED:
        # An ordered list: each element against the expected element at its place.
        return [_project(a, e) for a, e in zip(actual, expected, strict=False)] + actual[
            len(expected) :
        ]
    if all(isinstance(e, dict) for e in expected):
        # A multiset of objects: each actual one cut to the keys the expected ones name.
        keys: set[str] = set().union(*(e.keys() for e in expected))
        template = {k: next(e[k] for e in expected if k in e) for k in keys}
        return [_project(a, template) if isinstance(a, dict) else a for a in actual]
    return actual


def project(actual: Any, expected: Any) -> Any:
    """`actual` cut down to the keys `expected` names (a key `actual` lacks stays absent): an
    answer as a case with that expectation would compare it."""

    def clean(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items() if not isinstance(v, _Missing)}
        if isinstance(value, list):
            return [clean(v) for v in value]
        return value

    return clean(_project(actual, _with_absences(expected)))


def compare_output(
    expected: Mapping[str, Any], actual: Any, omit: Collection[str] = ()
) -> list[str]:
    """The differences between an expected output and an actual one (empty when they agree).

    Keys the expected output leaves out, and the fields named in `omit` wherever they are, are
    not compared, but a replay step's `out`, `lead` and `told`: absent in a listed step, the
    engine's step must not carry them either. Lists of readings, plays, payments, returns and
    cards are compared as multisets (order free, duplicates count).
    """
    if not isinstance(actual, dict):
        return [f"expected an object, found {_dump(actual)}"]
    return [f"{path}: {what}" for path, what in _differences(expected, actual, omit, False)]


def differing_paths(
    expected: Mapping[str, Any], actual: Any, omit: Collection[str] = ()
) -> frozenset[str]:
    """Where an actual output differs from an expected one, compared as `compare_output`
    compares them, as paths (`default.rank`, `steps[3].legal`): an ordered list of another
    length differs at each place it does (`steps[4]` for a step one lacks), a multiset at each
    element listed fewer or more times (`readings[-{...}]`, `readings[+{...}]`), not as a
    whole; an actual output that is no object differs everywhere (the path `""`)."""
    if not isinstance(actual, dict):
        return frozenset({""})
    return frozenset(path for path, _ in _differences(expected, actual, omit, True))


def overlaps(path: str, other: str) -> bool:
    """Whether two paths of `differing_paths` meet: the same, or one inside the other."""
    short, long = sorted((path, other), key=len)
    return long == short or not short or long.startswith((f"{short}.", f"{short}["))


def _differences(
    expected: Mapping[str, Any], actual: dict[str, Any], omit: Collection[str], places: bool
) -> list[tuple[str, str]]:
    """`compare_output`'s differences as (path, what); with `places`, ordered lists of
    another length place by place."""
    cut, _ = without_fields(dict(expected), omit)
    wanted = _with_absences(cut, omit)
    projected = _project(actual, wanted)
    # An answer that is the expected output as written, lists in the same order, agrees: the
    # common case is settled at C speed, without sorting every list. JSON text equal as well
    # as ==, so that 1, 1.0 and true are told apart as the comparison below tells them.
    if projected == wanted and _same_text(projected, wanted):
        return []
    want = _canon(wanted)
    got = _canon(projected)
    if isinstance(want.get("finish"), list) and isinstance(got.get("finish"), list):
        want["finish"], got["finish"] = _group_finish(want["finish"], got["finish"])
    diffs: list[tuple[str, str]] = []
    _diff(want, got, "", diffs, places)
    return diffs


def _same_text(one: Any, other: Any) -> bool:
    """Whether two values have the same JSON text (False where one has none: keys that do not
    sort, say)."""
    try:
        return _dump(one) == _dump(other)
    except (TypeError, ValueError):
        return False


def _group_finish(want: list[Any], got: list[Any]) -> tuple[list[Any], list[Any]]:
    """A finish whose places may hold a list of seats (seats that never went out, 雙下), in the
    expected output or in the engine's (the grouped form the case README documents): the actual
    seats at the expected groups' places are grouped the same way, and each group is compared
    as a set. An actual group must stand where the expected output has a group of the same
    size: a group where an order is expected leaves the finish as answered, so it differs."""
    flat: list[Any] = []
    groups: set[tuple[int, int]] = set()
    for place in got:
        if isinstance(place, list):
            groups.add((len(flat), len(place)))
            flat.extend(place)
        else:
            flat.append(place)
    wanted: set[tuple[int, int]] = set()
    at = 0
    for place in want:
        if isinstance(place, list):
            wanted.add((at, len(place)))
        at += len(place) if isinstance(place, list) else 1
    if not wanted and not groups:
        return want, got
    if not {g for g in groups if g[1] > 1} <= wanted:
        return want, got
    grouped: list[Any] = []
    at = 0
    for place in want:
        if isinstance(place, list):
            grouped.append(sorted(flat[at : at + len(place)], key=_dump))
            at += len(place)
        else:
            grouped.append(flat[at] if at < len(flat) else MISSING)
            at += 1
    grouped += flat[at:]
    sets = [sorted(p, key=_dump) if isinstance(p, list) else p for p in want]
    return sets, grouped


def _times(n: int) -> str:
    return "once" if n == 1 else f"{n} times"


def _multiset_diff(want: list[Any], got: list[Any]) -> str | None:
    """What differs between two lists taken as multisets, in one line, or None."""
    if want == got:
        return None  # both canonical, so sorted alike: the common case costs one comparison
    wanted = Counter(_dump(x) for x in want)
    found = Counter(_dump(x) for x in got)
    if wanted == found:
        return None
    values = {_dump(x): x for x in [*want, *got]}
    # An element listed in both but a different number of times is told as such: a reading
    # given twice is a duplicate, not a missing or an unexpected reading.
    missing = [values[k] for k in wanted if k not in found]
    extra = [values[k] for k in found if k not in wanted]
    counts = [
        f"{k} listed {_times(found[k])}, expected {_times(wanted[k])}"
        for k in sorted(wanted.keys() & found.keys())
        if wanted[k] != found[k]
    ]
    parts = []
    if missing or extra:
        parts.append(f"missing {_dump(missing)}, unexpected {_dump(extra)}")
    parts += counts
    return "; ".join(parts)


def _diff(want: Any, got: Any, path: str, out: list[tuple[str, str]], places: bool) -> None:
    whole = path.rsplit(".", 1)[-1] in WHOLE
    if isinstance(want, dict) and isinstance(got, dict) and not whole:
        for key, value in want.items():
            _diff(value, got.get(key, MISSING), f"{path}.{key}" if path else key, out, places)
        return
    unordered = path.rsplit(".", 1)[-1] in UNORDERED
    if isinstance(want, list) and isinstance(got, list):
        if unordered and places:
            # Each element listed more or fewer times than expected is a place of its own.
            wanted, found = Counter(map(_dump, want)), Counter(map(_dump, got))
            for element in sorted(wanted.keys() | found.keys()):
                if wanted[element] > found[element]:
                    out.append((f"{path}[-{element}]", "missing"))
                elif wanted[element] < found[element]:
                    out.append((f"{path}[+{element}]", "unexpected"))
            return
        if unordered:
            difference = _multiset_diff(want, got)
            if difference is not None:
                out.append((path, difference))
            return
        if len(want) == len(got) or places:
            for i in range(max(len(want), len(got))):
                w = want[i] if i < len(want) else MISSING
                g = got[i] if i < len(got) else MISSING
                _diff(w, g, f"{path}[{i}]", out, places)
            return
    if isinstance(want, _NoneExpected):
        if not isinstance(got, _Missing):
            out.append((path, f"expected none, found {_dump(got)}"))
    elif isinstance(got, _Missing):
        out.append((path, f"expected {_dump(want)}, found nothing"))
    elif isinstance(want, _Missing):
        out.append((path, f"expected nothing, found {_dump(got)}"))
    elif want != got:
        out.append((path, f"expected {_dump(want)}, found {_dump(got)}"))


def step_differences(expected: Any, actual: Any, omit: Collection[str] = ()) -> list[str]:
    """The differences between one expected replay step and an engine's, compared as a step of
    a replay output is (absent `out`, `lead` and `told` mean none)."""
    return compare_output({"steps": [expected]}, {"steps": [actual]}, omit)
