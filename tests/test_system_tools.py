"""Tests that need a system tool (Node.js, g++, nlohmann-json, openssl, Chromium, poppler) skip
where it is absent, naming it and the Debian package that provides it, and fail instead on CI
(`CI=true`), which installs them all (issue 51)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import require, system_tool
from tests.test_skeletons import Commands


def test_a_missing_tool_skips_the_test_naming_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match=r"`no-such-tool-51` is missing: .* pkg"):
        system_tool("no-such-tool-51", "pkg")


@pytest.mark.parametrize("value", ["true", "1", "TRUE"])
def test_on_ci_a_missing_tool_fails_the_test(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("CI", value)
    with pytest.raises(pytest.fail.Exception, match=r"`no-such-tool-51` is missing"):
        system_tool("no-such-tool-51", "pkg")
    with pytest.raises(pytest.fail.Exception, match=r"the header <x.h> is missing"):
        require(False, "the header <x.h>", "x-dev")


def test_ci_false_is_not_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "false")
    with pytest.raises(pytest.skip.Exception):
        system_tool("no-such-tool-51", "pkg")


def test_a_present_tool_is_found_and_the_next_name_tried(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    require(True, "anything", "pkg")
    assert Path(system_tool("no-such-tool-51", "pkg", "sh")).name == "sh"


def test_without_node_on_the_path_only_node_is_skipped(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """A PATH without Node.js and g++: the Python skeleton still runs, the Node.js one and the
    C++ build are skipped naming the command; with CI=true they fail."""
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("CI", raising=False)
    commands = Commands(tmp_path_factory)
    assert commands["python"]
    with pytest.raises(pytest.skip.Exception, match=r"`node` is missing.*nodejs"):
        commands["node"]
    with pytest.raises(pytest.skip.Exception, match=r"`g\+\+` is missing"):
        commands["cpp"]
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="`node` is missing"):
        commands["node"]
