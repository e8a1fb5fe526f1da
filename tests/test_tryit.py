"""The try-it panel's Python side (issue 53): the interpreter imported without the loader's
dependencies, variants rebuilt from the JSON the site exports, the answers the page shows (the
CLI's parsing and messages, the wild card's stand-in, the deciding clause, the clause named
where variants differ), and the files the site build writes for the panel.

The page itself, in a browser, is tests/test_tryit_browser.py (slow)."""

from __future__ import annotations

import base64
import dataclasses
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.conformance.cases.case_loader import Case, applies, load_cases
from harness.conformance.judging.judge import Judgement, Status, weigh
from harness.errors import HarnessError
from harness.frontends import tryit_site
from harness.frontends.tryit import ask, compare, load_rulesets
from harness.frontends.tryit_site import Runtime, find_runtime, panel, variants_export
from harness.model.loader import bundled_variants, load_variant
from harness.model.ruleset import ruleset_from_json
from harness.rulebook.language import LANGS, Lang
from tests.conftest import REPO, run_guandan

BLOCKED = ("yaml", "jsonschema", "fastjsonschema", "referencing")


def _blocked_run(code: str) -> subprocess.CompletedProcess[str]:
    """`code` run in a fresh interpreter where importing the loader's dependencies fails."""
    guard = (
        "import sys\n"
        "class Blocked:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        f"        if name.split('.')[0] in {BLOCKED!r}:\n"
        "            raise ImportError(f'blocked: {name}')\n"
        "sys.meta_path.insert(0, Blocked())\n"
    )
    return subprocess.run(
        [sys.executable, "-c", guard + code],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=False,
        timeout=120,
    )


def test_the_interpreter_imports_without_the_loaders_dependencies() -> None:
    done = _blocked_run(
        "import harness.interpreter, harness.interpreter.operations\n"
        "import harness.frontends.tryit\n"
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {BLOCKED!r}))\n"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_the_block_itself_stops_the_loader() -> None:
    # The guard works: the loader, which needs PyYAML and jsonschema, cannot be imported.
    done = _blocked_run("import harness.model.loader\n")
    assert done.returncode != 0 and "blocked: " in done.stderr


def test_the_page_answers_from_the_export_with_the_loader_blocked() -> None:
    export = variants_export(bundled_variants())
    done = _blocked_run(
        "import json\n"
        "from harness.frontends.tryit import answer_json, load_rulesets\n"
        f"rulesets = load_rulesets({export!r})\n"
        "q = json.dumps({'level': '7', 'cards': 'S5 C5 D5 S5'})\n"
        "print(answer_json(rulesets, ['huaian'], q))\n"
    )
    assert done.returncode == 0, done.stderr
    readings = json.loads(done.stdout)["readings"]
    # Four 5s are a four-card bomb of 5s, and nothing else.
    assert [(r["type"], r["rank"], r["size"]) for r in readings] == [("bomb", "5", 4)]


def test_a_variant_comes_back_from_its_json_whole() -> None:
    for ruleset in bundled_variants():
        back = ruleset_from_json(json.loads(json.dumps(ruleset.to_json())))
        # The file a clause was written in is the loader's to know, not the export's.
        assert back.clauses == {
            cid: dataclasses.replace(c, file=None) for cid, c in ruleset.clauses.items()
        }
        assert back.rules == ruleset.rules
        assert back.options == ruleset.options
        assert (back.slug, back.title, back.title_zh) == (
            ruleset.slug,
            ruleset.title,
            ruleset.title_zh,
        )


def test_chosen_options_come_back_chosen() -> None:
    eight = load_variant("huaian").with_options({"target": "8"})
    back = ruleset_from_json(json.loads(json.dumps(eight.to_json())))
    assert dict(back.chosen) == {"target": "8"}
    assert back.value("levels.final") == eight.value("levels.final")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.pop("rules"), "`rules`: expected Mapping"),
        (lambda d: d["rules"]["deck"].update(decks=[]), "rules.deck.decks: expected a clause"),
        (
            lambda d: d["rules"]["deck"]["decks"].pop("stated"),
            "rules.deck.decks: expected one of stated, read, assumed",
        ),
        (lambda d: d["rules"].pop("tribute"), "rules: "),
        (lambda d: d.update(id=7), "`id`: expected str"),
    ],
)
def test_a_bad_export_is_a_located_error(change: object, message: str) -> None:
    data = json.loads(json.dumps(load_variant("huaian").to_json()))
    assert callable(change)
    change(data)
    with pytest.raises(HarnessError, match=re.escape(message)):
        ruleset_from_json(data, "huaian.json")


def test_not_a_list_of_variants_is_refused() -> None:
    with pytest.raises(HarnessError, match="expected a list of variants"):
        load_rulesets("{}")


# ---------------------------------------------------------------------------------------------
# The answers


def _rows(rows: list[dict[str, object]]) -> list[tuple[object, ...]]:
    return [(r["type"], r["rank"], r["size"]) for r in rows]


EXAMPLE_READINGS = [
    ("straight", "J", 5),
    ("straight", "Q", 5),
    ("straight_flush", "J", 5),
    ("straight_flush", "Q", 5),
]
"""The readings of ♥7 S8 S9 ST SJ at level 7 (the issue's example), from the rules: ♥7 is the
wild card, the 7 or the Q of a run whose other cards are spades."""

EXAMPLE_BEATING = [
    ("pair", "T", 2),
    ("pair", "J", 2),
    ("straight_flush", "J", 5),
    ("straight_flush", "Q", 5),
]
"""The plays of those cards that beat S9 S9: the 10 or the J with the wild card, and the
straight flushes (bombs); the 9 with the wild card only equals the 9s."""


def test_the_issues_example_at_level_7() -> None:
    huaian = load_rulesets(variants_export([load_variant("huaian")]))["huaian"]
    found = ask(huaian, {"cards": "♥7 S8 S9 ST SJ", "level": "7", "previous": "S9 S9"})
    # ♥7 is the wild card at level 7 (逢人配): it stands for the 7 (8-9-10-J below it) or the Q
    # (above J), and the other four are spades, so each is a straight and a straight flush.
    assert _rows(found["readings"]) == EXAMPLE_READINGS
    stand_ins = [(w["card"], w["as"][1:]) for r in found["readings"] for w in r["wild"]]
    assert stand_ins == [("H7", "7"), ("H7", "Q"), ("H7", "7"), ("H7", "Q")]
    # A straight cannot follow a pair (another type); a straight flush is a bomb over it.
    assert [(v["beats"], v["clause"]) for v in found["beats"]] == [
        (False, "compare.same_type_and_size"),
        (False, "compare.same_type_and_size"),
        (True, "bombs.ladder"),
        (True, "bombs.ladder"),
    ]
    # Over a pair of 9s: the 10 or the J paired with the wild card, and the straight flushes;
    # the 9 paired with the wild card only equals it.
    assert found["role"] == "follower"
    assert _rows(found["plays"]) == EXAMPLE_BEATING


def test_as_leader_without_a_play_to_beat() -> None:
    huaian = load_rulesets(variants_export([load_variant("huaian")]))["huaian"]
    found = ask(huaian, {"cards": "S3 S3", "level": "2"})
    assert found["role"] == "leader" and found["previous"] is None and found["beats"] == []
    assert _rows(found["plays"]) == [("single", "3", 1), ("pair", "3", 2)]


@pytest.mark.parametrize(
    ("request_", "argv"),
    [
        ({"cards": "X9 S8", "level": "7"}, ["--level", "7", "X9", "S8"]),
        ({"cards": "HR HR HR", "level": "7"}, ["--level", "7", "HR", "HR", "HR"]),
        ({"cards": "S8", "level": "1"}, ["--level", "1", "S8"]),
        ({"cards": "S8", "level": "SB"}, ["--level", "SB", "S8"]),
    ],
)
def test_a_bad_input_is_the_clis_own_message(request_: dict[str, str], argv: list[str]) -> None:
    huaian = load_rulesets(variants_export([load_variant("huaian")]))["huaian"]
    said = run_guandan("classify", "--variant", "huaian", *argv)
    assert said.returncode == 2
    assert ask(huaian, request_) == {
        "variant": "huaian",
        "error": said.stderr.strip().removeprefix("guandan: "),
    }


def test_a_bad_play_to_beat_is_the_clis_own_message() -> None:
    huaian = load_rulesets(variants_export([load_variant("huaian")]))["huaian"]
    said = run_guandan(
        "plays", "--variant", "huaian", "--level", "7", "--previous", "S3 S4", "S5", "S6"
    )
    assert said.returncode == 2
    found = ask(huaian, {"cards": "S5 S6", "level": "7", "previous": "S3 S4"})
    assert found["error"] == said.stderr.strip().removeprefix("guandan: ")
    assert "is no play at level 7" in found["error"]


def corpus_sample(operation: str, slug: str, count: int) -> list[Case]:
    """About `count` cases of `operation` that apply to the variant, spread over the corpus
    (those without options, expecting an answer)."""
    cases, _ = load_cases()
    ruleset = load_variant(slug)
    found = [
        c
        for c in cases
        if c.operation == operation
        and not c.options
        and not c.expects_refusal
        and applies(c, ruleset)
    ]
    return found[:: max(1, len(found) // count)][:count]


def classify_verdict(case: Case, shown: list[dict[str, Any]]) -> Judgement:
    """The judge's verdict on readings as the panel shows them (each marked default or not)."""
    readings = [{k: r[k] for k in ("type", "rank", "size")} for r in shown]
    default = next((r for r, f in zip(readings, shown, strict=True) if f["default"]), None)
    return weigh(case.expected, {"readings": readings, "default": default})


@pytest.mark.parametrize("slug", ["huaian", "online-app", "competition", "match-rules"])
def test_classify_cases_through_the_panels_answer(slug: str) -> None:
    rulesets = load_rulesets(variants_export(bundled_variants()))
    for case in corpus_sample("classify", slug, 25):
        cards = " ".join(case.input["cards"])
        found = ask(rulesets[slug], {"cards": cards, "level": case.input["level"]})
        judged = classify_verdict(case, found["readings"])
        assert judged.status is Status.PASS, (case.id, judged.message)


def test_a_difference_between_variants_names_its_clause() -> None:
    rulesets = load_rulesets(variants_export(bundled_variants()))
    # A full house of level cards against one of aces: competition keeps the level card above
    # A in a full house, match-rules counts it at its natural rank (ranks.level_card
    # .in_full_house), so the 7s beat the aces in one and not in the other.
    both = [rulesets["competition"], rulesets["match-rules"]]
    found = compare(both, {"cards": "S7 S7 C7 S3 S3", "level": "7", "previous": "SA SA CA S4 S4"})
    verdicts = [a["beats"][0]["beats"] for a in found["answers"]]
    assert verdicts[0] != verdicts[1]
    beats = [d for d in found["differences"] if d["part"] == "beats"]
    assert beats == [
        {
            "part": "beats",
            "variants": ["competition", "match-rules"],
            "clauses": ["ranks.level_card.in_full_house"],
            "alone": True,
        }
    ]


def test_variants_that_agree_show_no_difference() -> None:
    rulesets = list(load_rulesets(variants_export(bundled_variants())).values())
    found = compare(rulesets, {"cards": "S5 C5 D5 S5", "level": "7", "previous": "S3 S4 S5 S6 C7"})
    assert found["differences"] == []
    assert len(found["answers"]) == 4


# ---------------------------------------------------------------------------------------------
# The site's files


def test_without_npm_the_build_says_why(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / "package-lock.json").write_text(
        (REPO / "package-lock.json").read_text(encoding="utf-8"), encoding="utf-8"
    )
    monkeypatch.setattr(tryit_site.shutil, "which", lambda name: None)
    found = find_runtime(tmp_path, None, lambda what: None)
    assert found.kind == "absent" and "npm is not installed" in found.reason


def test_a_hosted_runtime_copies_nothing(tmp_path: Path) -> None:
    found = find_runtime(tmp_path, "https://cdn.example/pyodide/full", lambda what: None)
    assert found == Runtime("hosted", url="https://cdn.example/pyodide/full/")
    files = tryit_site.site_files([load_variant("huaian")], found, lambda what: None)
    assert not any(p.startswith("tryit/runtime/") for p in files)
    script = files["tryit/tryit.js"]
    assert isinstance(script, str) and '"url": "https://cdn.example/pyodide/full/"' in script


def test_the_runtime_files_hold_their_bytes(tmp_path: Path) -> None:
    for name, data in [
        ("pyodide.js", b"var loadPyodide;"),
        ("pyodide.asm.wasm", bytes(range(256))),
        ("python_stdlib.zip", b"PK\x03\x04"),
        ("pyodide-lock.json", b"{}"),
        ("pyodide.asm.mjs", b"export default 1"),
    ]:
        (tmp_path / name).write_bytes(data)
    runtime = Runtime("local", folder=tmp_path, version="0")
    files = tryit_site.site_files([load_variant("huaian")], runtime, lambda what: None)
    assert files["tryit/runtime/pyodide.js"] == b"var loadPyodide;"
    wasm = files["tryit/data/pyodide.asm.wasm.js"]
    assert isinstance(wasm, str)
    encoded = re.fullmatch(r'.*\["pyodide\.asm\.wasm"\] = "([A-Za-z0-9+/=]*)";\n', wasm)
    assert encoded is not None and base64.b64decode(encoded.group(1)) == bytes(range(256))
    assert json.loads(str(files["tryit/runtime.json"]))["runtime"] == "local"


def test_the_package_zip_holds_the_interpreter_and_no_data() -> None:
    import io
    import zipfile

    names = zipfile.ZipFile(io.BytesIO(tryit_site.package_zip())).namelist()
    assert "harness/frontends/tryit.py" in names
    assert "harness/interpreter/classify.py" in names
    assert not any("/_data/" in n or not n.endswith(".py") for n in names)
    assert tryit_site.package_zip() == tryit_site.package_zip()


@pytest.mark.parametrize("lang", LANGS)
def test_the_panel_speaks_the_pages_language(lang: Lang) -> None:
    huaian = load_variant("huaian")
    made = panel([huaian], lang, {"huaian": "H"}, "../spec/")
    words = {
        Lang.EN: ("Try the rules", "Level"),
        Lang.ZH_HANT: ("試一試", "級數"),
        Lang.ZH_HANS: ("试一试", "级数"),
    }[lang]
    assert all(w in made for w in words)
    assert '<details class="gd-tryit"' in made and "\n\n" not in made
    assert 'data-clause-base="../spec/"' in made


def test_the_odd_variant_out_is_named_against_the_others() -> None:
    variants = bundled_variants()
    rulesets = list(load_rulesets(variants_export(variants)).values())
    # Which reading ♥7 8 8 9 9 takes when none is declared is wild.default: the variant whose
    # value differs from the other three's is the one answer that differs.
    values = {r.slug: json.dumps(r.value("wild.default"), sort_keys=True) for r in variants}
    odd = [s for s, v in values.items() if list(values.values()).count(v) == 1]
    assert len(odd) == 1
    found = compare(rulesets, {"cards": "♥7 S8 S8 S9 S9", "level": "7"})
    assert len(found["differences"]) == 1
    difference = found["differences"][0]
    assert difference["part"] == "readings" and difference["variants"][1:] == odd
    assert difference["variants"][0] != odd[0]
    assert (difference["clauses"], difference["alone"]) == (["wild.default"], True)
