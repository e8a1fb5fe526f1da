"""Headless Chromium for the tests that open pages as a person would (Debian's `chromium`)."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest


def load(url: str, budget_ms: int = 5000) -> tuple[str, list[str]]:
    """The page at `url` after its scripts ran: its DOM, and the lines it logged to the console.

    Skips where Chromium is absent, except on CI, which installs it and must run these tests.
    """
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed; .ci/run installs it (apt-get install chromium)")
        pytest.skip("chromium is not installed here (CI installs it and runs this test)")
    result = subprocess.run(
        [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--enable-logging=stderr",
            "--v=0",
            f"--virtual-time-budget={budget_ms}",
            "--dump-dom",
            url,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    console = [line for line in result.stderr.splitlines() if ":CONSOLE" in line]
    return result.stdout, console
