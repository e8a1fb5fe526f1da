"""The compiled schema check (fastjsonschema) agrees with jsonschema, so that trusting it for valid
data hides nothing: on every bundled case and variant file, and on broken copies of them."""

from __future__ import annotations

import copy
import json
import marshal
import random
from pathlib import Path
from typing import Any

import pytest
import yaml

from harness._paths import cases_dir, variants_dir
from harness.model import _schemas
from harness.model._schemas import SHARED_KEYWORDS, is_valid, load_schema, schema_validator


def _docs(folder: Path) -> list[Any]:
    return [yaml.safe_load(p.read_text(encoding="utf-8")) for p in sorted(folder.rglob("*.yaml"))]


def _agree(name: str, doc: Any) -> None:
    slow = not any(True for _ in schema_validator(name).iter_errors(doc))
    assert is_valid(name)(doc) is slow, json.dumps(doc, ensure_ascii=False)[:500]


def _keywords(node: Any, found: set[str]) -> None:
    if isinstance(node, dict):
        for key, value in node.items():
            if key != "properties" and key != "$defs":
                found.add(key)
            if key in ("properties", "$defs"):
                for sub in value.values():
                    _keywords(sub, found)
            else:
                _keywords(value, found)
    elif isinstance(node, list):
        for item in node:
            _keywords(item, found)


@pytest.mark.parametrize(
    "name", ["case.schema.json", "ruleset.schema.json", "protocol.schema.json"]
)
def test_the_schemas_use_only_keywords_both_drafts_read_alike(name: str) -> None:
    found: set[str] = set()
    _keywords(load_schema(name), found)
    assert found <= SHARED_KEYWORDS, found - SHARED_KEYWORDS


def _broken(doc: Any, rng: random.Random) -> Any:
    """A copy of `doc` with one thing wrong somewhere: a key gone, a stray key, a wrong type."""
    out = copy.deepcopy(doc)
    node = out
    for _ in range(rng.randrange(1, 6)):
        children = list(node.values()) if isinstance(node, dict) else node
        inner = [c for c in children if isinstance(c, dict | list) and c]
        if not inner:
            break
        node = rng.choice(inner)
    if isinstance(node, dict) and node:
        key = rng.choice(sorted(node))
        move = rng.randrange(3)
        if move == 0:
            del node[key]
        elif move == 1:
            node["stray_key"] = 1
        else:
            node[key] = rng.choice([None, 7, "x", [], {}, True])
    elif isinstance(node, list) and node:
        node[rng.randrange(len(node))] = rng.choice([None, 7, "x", {}, True])
    return out


@pytest.mark.parametrize(
    ("name", "folder"),
    [("case.schema.json", cases_dir), ("ruleset.schema.json", variants_dir)],
)
def test_fast_and_full_checks_agree(name: str, folder: Any) -> None:
    """Every bundled file, and broken copies of it (six each: the full check is slow, and
    the corpus has a hundred files), gets the same verdict from both checks."""
    rng = random.Random(12)
    for doc in _docs(folder()):
        _agree(name, doc)
        for _ in range(6):
            _agree(name, _broken(doc, rng))


def test_without_a_writable_cache_the_check_is_compiled_in_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a folder", encoding="utf-8")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    check = _schemas._compiled({**load_schema("case.schema.json"), "$schema": _schemas.DRAFT_7})
    check(_docs(cases_dir())[0])  # a valid file passes; an invalid one would raise
    with pytest.raises(Exception, match="cases"):
        check({"title": "t", "cases": []})
    assert not list(blocked.parent.glob("**/*.code"))


def test_byte_code_others_may_write_is_never_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cache holds byte code the harness runs: a file or folder that others may write is
    not trusted (the check is compiled in memory), and what it writes only its user may."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    schema = {**load_schema("case.schema.json"), "$schema": _schemas.DRAFT_7}
    _schemas._compiled(schema)
    (cached,) = (tmp_path / "guandan-harness").glob("*.code")
    assert not cached.stat().st_mode & 0o077
    # Planted code in a file others may write: never run.
    cached.write_bytes(marshal.dumps(compile("raise SystemExit('planted')", "x", "exec")))
    cached.chmod(0o666)
    check = _schemas._compiled(schema)
    with pytest.raises(Exception, match="cases"):
        check({"title": "t", "cases": []})
    # And in a folder others may write, even with a file of the user's own.
    cached.chmod(0o600)
    (tmp_path / "guandan-harness").chmod(0o777)
    check = _schemas._compiled(schema)
    with pytest.raises(Exception, match="cases"):
        check({"title": "t", "cases": []})
