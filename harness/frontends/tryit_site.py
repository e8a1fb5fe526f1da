"""The try-it panel (試玩) on the site: its HTML on the rulebook and comparison pages, and the
files the site build puts beside the pages for it.

The panel runs the package's own interpreter (`harness.frontends.tryit`) in the page with
Pyodide. The build writes, under `tryit/`:

- `tryit.js`, the panel's script, and `tryit.css`;
- `data/harness.zip.js`, the package's Python files, and `data/variants.json.js`, the bundled
  variants as `Ruleset.to_json` writes them (loaded and checked by this build), so the page
  needs neither PyYAML nor jsonschema;
- the Pyodide runtime, from the npm package `pyodide` that `package.json` and
  `package-lock.json` pin: `runtime/pyodide.js` as it is, and its other files as scripts that
  hold their bytes (`data/NAME.js`). A page opened from disk may load scripts but may not fetch
  files (Chromium refuses `file:` URLs to `fetch` and to module imports), so the panel hands
  Pyodide those bytes itself: it works from disk, offline, as well as from a server.

The build runs `npm ci` in the checkout when `node_modules/pyodide` is not the locked version.
Where npm is absent (or fails), or where `extra: {tryit_runtime: URL}` in `mkdocs.yml` names a
hosted Pyodide (its `indexURL`, such as `https://cdn.jsdelivr.net/pyodide/v314.0.8/full/`),
no runtime is copied; the panel then says why, or loads the hosted one.
`tryit/runtime.json` records which it is.
"""

from __future__ import annotations

import base64
import html
import io
import json
import shutil
import subprocess
import zipfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from harness.model.cards import NATURAL_RANKS, Rank
from harness.model.ruleset import CombinationType, Ruleset
from harness.rulebook.language import Lang
from harness.rulebook.templates import Context, phrase, tables

ASSETS = Path(__file__).resolve().parent / "assets"
SCRIPT = "tryit/tryit.js"
STYLESHEET = "tryit/tryit.css"
RECORD = "tryit/runtime.json"
"""What the build put in: `{"runtime": "local" | "hosted" | "absent", "reason", "pyodide"}`."""

RUNTIME_FILES = (
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
)
"""The runtime's files handed to Pyodide as bytes (those its release has: `pyodide.asm.mjs`
from 0.29 on; before it, `pyodide.asm.js`, a classic script copied as it is)."""

EXAMPLE = {"cards": "♥7 S8 S9 ST SJ", "level": "7", "previous": "S9 S9"}
"""The question the panel opens with: the issue's own example."""


@dataclass(frozen=True)
class Runtime:
    """Where the panel's Pyodide comes from: copied beside the pages (`folder`), hosted
    (`url`), or absent (`reason`)."""

    kind: str
    folder: Path | None = None
    url: str | None = None
    reason: str = ""
    version: str | None = None


def locked_version(root: Path) -> str:
    """The Pyodide version `package-lock.json` pins."""
    lock = json.loads((root / "package-lock.json").read_text(encoding="utf-8"))
    return str(lock["packages"]["node_modules/pyodide"]["version"])


def installed_version(root: Path) -> str | None:
    """The Pyodide version installed in `root/node_modules`, or None."""
    found = root / "node_modules" / "pyodide" / "package.json"
    if not found.is_file():
        return None
    return str(json.loads(found.read_text(encoding="utf-8")).get("version"))


def find_runtime(root: Path, hosted: str | None, told: Callable[[str], None]) -> Runtime:
    """The runtime for this build: hosted where configured, else the locked npm package,
    installed with `npm ci` where it is missing or another version (`root`: the checkout)."""
    if hosted:
        url = hosted if hosted.endswith("/") else hosted + "/"
        return Runtime("hosted", url=url)
    if not (root / "package-lock.json").is_file():
        return Runtime("absent", reason=f"no package-lock.json in {root}")
    wanted = locked_version(root)
    if installed_version(root) != wanted:
        npm = shutil.which("npm")
        if npm is None:
            return Runtime("absent", reason="npm is not installed (apt-get install npm)")
        told(f"the try-it panel: npm ci (pyodide {wanted})")
        done = subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts"],
            cwd=root,
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0 or installed_version(root) != wanted:
            last = (done.stderr.strip().splitlines() or ["no message"])[-1]
            return Runtime("absent", reason=f"npm ci failed: {last}")
    return Runtime("local", folder=root / "node_modules" / "pyodide", version=wanted)


def data_script(name: str, data: bytes) -> str:
    """A script that holds a file's bytes (base64) for the panel: a page opened from disk may
    load a script, but not fetch a file."""
    encoded = base64.b64encode(data).decode("ascii")
    store = "(window.GD_TRYIT_DATA = window.GD_TRYIT_DATA || {})"
    return f'{store}[{json.dumps(name)}] = "{encoded}";\n'


def package_zip() -> bytes:
    """The package's Python files, as the page unpacks them (fixed times: the same bytes for
    the same code)."""
    package = Path(__file__).resolve().parents[1]  # harness/, this file's package
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zipped:
        for path in sorted(package.rglob("*.py")):
            name = path.relative_to(package.parent).as_posix()
            if "/_data/" in name:
                continue
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            zipped.writestr(info, path.read_bytes())
    return out.getvalue()


def variants_export(rulesets: Sequence[Ruleset]) -> str:
    """The variants as the page loads them: a JSON list of `Ruleset.to_json`."""
    return json.dumps([r.to_json() for r in rulesets], ensure_ascii=False)


def site_files(
    rulesets: Sequence[Ruleset], runtime: Runtime, told: Callable[[str], None]
) -> dict[str, str | bytes]:
    """Every file of the panel, by its path on the site."""
    told(f"the try-it panel: the package, the variants and the runtime ({runtime.kind})")
    record = {"runtime": runtime.kind, "reason": runtime.reason, "pyodide": runtime.version}
    config: dict[str, str | None] = {
        "runtime": runtime.kind,
        "url": runtime.url,
        "reason": runtime.reason,
        # The core of the runtime: a module from Pyodide 0.29 on, a classic script before.
        "core": "pyodide.asm.js",
    }
    script = (ASSETS / "tryit.js").read_text(encoding="utf-8")
    files: dict[str, str | bytes] = {
        RECORD: json.dumps(record) + "\n",
        STYLESHEET: (ASSETS / "tryit.css").read_text(encoding="utf-8"),
        "tryit/data/harness.zip.js": data_script("harness.zip", package_zip()),
        "tryit/data/variants.json.js": data_script(
            "variants.json", variants_export(rulesets).encode("utf-8")
        ),
    }
    if runtime.folder is not None:
        files["tryit/runtime/pyodide.js"] = (runtime.folder / "pyodide.js").read_bytes()
        classic = runtime.folder / "pyodide.asm.js"
        if classic.is_file():
            files["tryit/runtime/pyodide.asm.js"] = classic.read_bytes()
        else:
            config["core"] = "pyodide.asm.mjs"
        for name in RUNTIME_FILES:
            path = runtime.folder / name
            if path.is_file():
                files[f"tryit/data/{name}.js"] = data_script(name, path.read_bytes())
    files[SCRIPT] = f"window.GD_TRYIT_CONFIG = {json.dumps(config)};\n{script}"
    return files


# ---------------------------------------------------------------------------------------------
# The panel on a page


def _words(lang: Lang) -> dict[str, str]:
    """The words the panel's script puts around an answer, in the page's language."""
    context = Context(lang, tables(), {})
    names = [
        *("readings", "no_play", "default", "wild_as", "beats", "not_beats", "decided_by"),
        *("leader", "follower", "none", "to", "of", "cards", "differs", "same", "together"),
        *("alone", "previous", "loading", "ready", "failed", "absent", "error", "asking"),
        "comma",
    ]
    words = {name: phrase(f"tryit.{name}", None, context) for name in names}
    glossary = tables().glossary
    for kind in CombinationType:
        words[f"type.{kind.value}"] = glossary[kind.value][lang]
    words["rank.SB"] = glossary["small_joker"][lang]
    words["rank.HR"] = glossary["big_joker"][lang]
    return words


def panel(
    rulesets: Sequence[Ruleset], lang: Lang, names: Mapping[str, str], clause_base: str = ""
) -> str:
    """The try-it panel of a page (a raw HTML block): closed until the reader opens it, which
    starts the interpreter; one variant on a rulebook page, several on the comparison page.
    A clause the answer names links to `clause_base#CLAUSE` (this page where empty)."""
    context = Context(lang, tables(), {})

    def say(name: str) -> str:
        return html.escape(phrase(f"tryit.{name}", None, context))

    slugs = [r.slug for r in rulesets]
    levels = "".join(
        f'<option value="{r.value}"{" selected" if r.value == EXAMPLE["level"] else ""}>'
        f"{'10' if r is Rank.TEN else r.value}</option>"
        for r in NATURAL_RANKS
    )
    kinds = "".join(
        f'<option value="{k.value}">{html.escape(tables().glossary[k.value][lang])}</option>'
        for k in CombinationType
    )
    data = {
        "variants": slugs,
        "names": {s: names[s] for s in slugs},
        "lang": lang.value,
        "words": _words(lang),
    }
    intro = "intro_compare" if len(slugs) > 1 else "intro"
    attrs = html.escape(json.dumps(data, ensure_ascii=False), quote=True)
    parts = [
        f'<details class="gd-tryit" data-tryit="{attrs}" '
        f'data-clause-base="{html.escape(clause_base, quote=True)}">',
        f"<summary>{say('title')}</summary>",
        f'<p class="gd-tryit-intro">{say(intro)}</p>',
        '<form class="gd-tryit-form">',
        f'<label>{say("cards_label")} <input name="cards" class="gd-tryit-cards" '
        f'value="{html.escape(EXAMPLE["cards"])}" autocomplete="off" spellcheck="false"></label>',
        f'<label>{say("level_label")} <select name="level">{levels}</select></label>',
        f'<label>{say("previous_label")} <input name="previous" '
        f'value="{html.escape(EXAMPLE["previous"])}" autocomplete="off" spellcheck="false">'
        "</label>",
        f'<label>{say("previous_type_label")} <select name="previous_type">'
        f'<option value="">—</option>{kinds}</select></label>',
        f'<button type="submit">{say("ask")}</button>',
        "</form>",
        f'<div class="gd-tryit-picker" title="{say("picker")}"></div>',
        '<div class="gd-tryit-status" role="status" aria-live="polite"></div>',
        '<div class="gd-tryit-answer"></div>',
        "</details>",
    ]
    return "\n".join(parts) + "\n"
