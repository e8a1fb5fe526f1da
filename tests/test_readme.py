"""The README a newcomer reads (issue 51): short, with no measurement history, the two set-up
commands exactly as CI runs the second, a first check of one's own engine, and a link to the
page of each job; every page it links exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")

INSTALL_AND_RUN = "python -m pip install . && guandan check --engine reference"
TEST = 'python -m pip install ".[test]" && python -m pytest'


def test_the_readme_is_at_most_200_lines() -> None:
    assert len(README.splitlines()) <= 200


def test_the_readme_tells_no_history_and_no_computer() -> None:
    """No date, no "machine", no "slower": a figure that depends on when and where it was
    measured belongs to the Performance page, with its date and command."""
    assert re.findall(r"\b(?:19|20)\d\d-\d\d-\d\d\b", README) == []
    assert re.findall(r"\bmachines?\b|\bslower\b", README, re.I) == []


def test_the_readme_gives_no_speed_figure_of_its_own() -> None:
    """Every speed figure is on the Performance page, generated from the benchmark results; the
    README points there and writes none."""
    unit = r"(?:rounds|cases|sets|matches|examples|actions|runs|instructions)/s|ms\b|s wall"
    assert re.findall(rf"\d[\d,.]*\s*(?:{unit})", README) == []
    assert "benchmarks/results.json" in README and "Performance" in README


def test_the_two_commands_are_as_ci_runs_them() -> None:
    """The first installs and runs the main job, the second runs the tests; .ci/run runs the
    second exactly."""
    blocks = re.findall(r"```sh\n(.*?)\n```", README, re.S)
    assert blocks[0] == INSTALL_AND_RUN
    assert blocks[1] == TEST
    assert TEST in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_the_readme_says_which_tier_to_run_when() -> None:
    text = " ".join(README.split())
    assert 'python -m pytest -m "not slow" # between commits' in text
    assert "python -m pytest # before pushing" in text
    assert "CI=true" in text and ".ci/run" in text


def test_each_job_has_its_page_and_the_readme_links_it() -> None:
    pages = [
        "engine-authors.md",
        "fuzzing.md",
        "playing.md",
        "variants.md",
        "rulebooks.md",
        "cluster.md",
        "security.md",
        "contributing.md",
    ]
    for name in pages:
        assert (ROOT / "docs" / "guide" / name).is_file(), name
        assert f"](docs/guide/{name})" in README, name
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert all(f"guide/{name}" in nav for name in pages)


def test_the_license_is_mit_as_the_package_says() -> None:
    license_text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert license_text.startswith("MIT License")
    assert "Copyright (c) The guandan-harness authors" in license_text
    assert 'license = "MIT"' in (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert (ROOT / "CHANGELOG.md").read_text(encoding="utf-8").startswith("# Changelog")
