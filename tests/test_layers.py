"""The package is layered, and its modules import one another without cycles.

Layers: 0 `harness.errors`, `harness._paths`, `harness.memo`, `harness.collecting`,
`harness.stopping`, `harness.wording`, `harness.kernel` (the fast engine's C kernel); 1
`harness.model`; 2 `harness.interpreter`; 3 `harness.engine`; 4 `harness.conformance`,
`harness.simulation`; 5 `harness.frontends`, `harness.rulebook`. A module imports from its own
layer or lower, never higher. `harness/__init__.py` is the public facade: it is exempt, and no
module imports it but for `from harness import __version__` (the package's attribute).
Every import counts, those inside functions and under TYPE_CHECKING included.

Within layer 4, the conformance floor is in rooms (`ROOMS`), each importing only from the rooms
before it; the floor has at most 8 entries; and no two modules of the package share a stem, so
that a name says which module it is (issue 51).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "harness"
FACADE = "harness"
LAYERS = {
    "harness.errors": 0,
    "harness._paths": 0,
    "harness.memo": 0,
    "harness.collecting": 0,
    "harness.stopping": 0,
    "harness.wording": 0,
    "harness.kernel": 0,
    "harness.model": 1,
    "harness.interpreter": 2,
    "harness.engine": 3,
    "harness.conformance": 4,
    "harness.strategies": 4,
    "harness.simulation": 4,
    "harness.rulebook": 5,
    "harness.frontends": 5,
}


def module_name(path: Path) -> str:
    """`harness/engine/api.py` → `harness.engine.api`; a package is named by its folder."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py")) if "_data" not in p.parts}


def layer(module: str) -> int:
    """The layer of a module of the package."""
    for prefix, number in LAYERS.items():
        if module == prefix or module.startswith(prefix + "."):
            return number
    raise AssertionError(f"{module} belongs to no layer: add it to LAYERS and DESIGN.md")


def _known(dotted: str) -> str:
    """The longest prefix of `dotted` that is a module of the package."""
    parts = dotted.split(".")
    while parts and ".".join(parts) not in MODULES:
        parts.pop()
    return ".".join(parts)


def imports(module: str) -> list[tuple[str, int]]:
    """The package modules `module` imports, with the line of each import."""
    path = MODULES[module]
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    is_package = path.name == "__init__.py"
    found: list[tuple[str, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == FACADE or alias.name.startswith(FACADE + "."):
                    found.append((_known(alias.name), node.lineno))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = module if is_package else module.rpartition(".")[0]
                for _ in range(node.level - 1):
                    package = package.rpartition(".")[0]
                base = f"{package}.{base}" if base else package
            if base != FACADE and not base.startswith(FACADE + "."):
                continue
            for alias in node.names:
                full = f"{base}.{alias.name}"
                if full in MODULES:
                    found.append((full, node.lineno))
                elif not (base == FACADE and alias.name == "__version__"):
                    found.append((_known(base), node.lineno))
    return found


def graph() -> dict[str, set[str]]:
    """Module → the package modules it imports (the facade left out: it is exempt)."""
    return {m: {t for t, _ in imports(m)} for m in MODULES if m != FACADE}


def test_the_package_has_every_layer() -> None:
    """The test reads the package it means to: every layer has modules, every module a layer."""
    for module in MODULES:
        if module != FACADE:
            layer(module)
    assert {layer(m) for m in MODULES if m != FACADE} == set(LAYERS.values())


@pytest.mark.parametrize("module", [m for m in MODULES if m != FACADE])
def test_imports_come_from_the_same_layer_or_below(module: str) -> None:
    mine = layer(module)
    wrong = []
    for target, line in imports(module):
        if target == FACADE:
            wrong.append(f"line {line}: imports the facade `harness` (only __version__ may be)")
        elif layer(target) > mine:
            wrong.append(f"line {line}: {target} is layer {layer(target)}")
    where = MODULES[module].relative_to(ROOT)
    assert not wrong, f"{where} (layer {mine}) imports from above:\n" + "\n".join(wrong)


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as the modules along it (first = last), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for start in sorted(edges):
        if start not in state:
            found = visit(start)
            if found:
                return found
    return None


def test_no_import_cycle() -> None:
    cycle = find_cycle(graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_the_cycle_finder_finds_a_cycle() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set()}
    assert find_cycle(edges) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_the_import_reader_sees_every_kind_of_import() -> None:
    """Imports in functions and under TYPE_CHECKING count; `__version__` from the facade not."""
    found = {t for t, _ in imports("harness.frontends.docs")}
    assert "harness.frontends.cli" in found  # imported inside a function
    assert "harness.conformance.cases.case_loader" in found
    assert FACADE not in {t for t, _ in imports("harness.engine.reference")}


@pytest.mark.parametrize(
    "prefix", [p for p in LAYERS if (PACKAGE.parent / p.replace(".", "/")).is_dir()]
)
def test_each_subpackage_says_its_layer(prefix: str) -> None:
    """Each layer's `__init__.py` says, in its docstring, which layer it is."""
    path = MODULES[prefix]
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    assert f"layer {LAYERS[prefix]}" in doc, f"{path}: the docstring should name its layer"


CONFORMANCE = PACKAGE / "conformance"
ROOMS = ("judging", "cases", "running", "explaining", "reporting", "oracles", "pytest_plugin")
"""The rooms of the conformance floor, in order: each imports only from those before it."""


def room(module: str) -> str | None:
    """The room of the conformance floor `module` is in (None outside the floor, or for the
    floor's own `__init__`)."""
    parts = module.split(".")
    if parts[:2] != ["harness", "conformance"] or len(parts) < 3:
        return None
    return parts[2]


def test_the_conformance_floor_is_its_rooms_and_at_most_8_entries() -> None:
    entries = sorted(p.name for p in CONFORMANCE.iterdir() if p.name != "__pycache__")
    assert len(entries) <= 8, entries
    rooms = {p.removesuffix(".py") for p in entries if p != "__init__.py"}
    assert rooms == set(ROOMS)


@pytest.mark.parametrize("module", [m for m in MODULES if room(m) not in (None, *ROOMS[:1])])
def test_a_room_imports_only_from_the_rooms_before_it(module: str) -> None:
    mine = ROOMS.index(room(module) or "")
    wrong = [
        f"line {line}: {target} ({room(target)})"
        for target, line in imports(module)
        if room(target) is not None and ROOMS.index(room(target) or "") > mine
    ]
    assert not wrong, f"{module} ({room(module)}) imports from a later room:\n" + "\n".join(wrong)


def test_the_first_room_imports_no_other() -> None:
    judging = [m for m in MODULES if room(m) == ROOMS[0]]
    assert judging
    for module in judging:
        assert {room(t) for t, _ in imports(module)} <= {None, ROOMS[0]}, module


def test_the_room_order_would_catch_an_import_from_a_later_room() -> None:
    """The check reads real imports: the runner (running) imports the judge (judging), before
    it, and reports (reporting) import from explaining, before them."""
    assert room("harness.conformance.running.runner") == "running"
    assert "harness.conformance.judging.judge" in {
        t for t, _ in imports("harness.conformance.running.runner")
    }
    assert ROOMS.index("judging") < ROOMS.index("running")


def test_no_two_modules_share_a_stem() -> None:
    """`explain.py` beside `explainer.py`, `conformance/dashboard.py` beside
    `frontends/dashboard.py`: a stem names one module (a package's `__init__` aside)."""
    stems: dict[str, list[str]] = {}
    for name, path in MODULES.items():
        if path.name != "__init__.py":
            stems.setdefault(path.stem, []).append(name)
    shared = {stem: names for stem, names in stems.items() if len(names) > 1}
    assert shared == {}
    assert not [s for s in stems if s + "er" in stems or s + "s" in stems], "near twins"
