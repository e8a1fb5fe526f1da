"""Print a pip constraints file pinning every declared dependency to the lowest version its range
allows (`name>=X` gives `name==X`), so that CI can test the bottom of each range as well as the
top. Direct dependencies only, as `uv pip install --resolution lowest-direct` would: what they
need in turn resolves as usual. A requirement without a lower bound is an error: a range we
declare is a range we test at both ends.

Usage: python .ci/lowest_constraints.py [pyproject.toml] > lowest.txt
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

# name[extras] (specifier, specifier, ...)  ; the markers this project does not use are refused
_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*(.*)$")


def lowest(requirement: str) -> tuple[str, str] | None:
    """The (name, lowest version) of one requirement; None for the project itself."""
    match = _REQUIREMENT.match(requirement)
    if match is None or ";" in requirement:
        raise SystemExit(f"cannot read the requirement {requirement!r}")
    name, _extras, specifiers = match.groups()
    if name.lower().replace("_", "-") == "guandan-harness":
        return None
    bounds = [s.strip() for s in specifiers.split(",") if s.strip()]
    floors = [b[2:].strip() for b in bounds if b.startswith(">=")]
    if len(floors) != 1:
        raise SystemExit(f"{requirement!r}: expected one lower bound (>=), found {bounds}")
    return name, floors[0]


def main(argv: list[str]) -> int:
    path = Path(argv[1] if len(argv) > 1 else "pyproject.toml")
    project = tomllib.loads(path.read_text(encoding="utf-8"))["project"]
    requirements = list(project.get("dependencies", []))
    for extra in project.get("optional-dependencies", {}).values():
        requirements += extra
    pins: dict[str, str] = {}
    for requirement in requirements:
        found = lowest(requirement)
        if found is not None:
            pins.setdefault(found[0].lower(), found[1])
    for name, version in sorted(pins.items()):
        print(f"{name}=={version}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
