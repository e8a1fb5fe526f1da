"""Headless Chromium for the tests that open pages as a person would (Debian's `chromium`)."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

from tests.conftest import system_tool


def _chromium(*args: str, budget_ms: int) -> subprocess.CompletedProcess[str]:
    """Headless Chromium run once on `args`, with no network of its own (this machine's is
    closed, and a test page needs none).

    Skips where Chromium is absent, except on CI, which installs it and must run these tests.
    """
    browser = system_tool("chromium", "chromium", "chromium-browser")
    with tempfile.TemporaryDirectory() as profile:
        result = subprocess.run(
            [
                browser,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                f"--user-data-dir={profile}",
                "--enable-logging=stderr",
                "--v=0",
                f"--virtual-time-budget={budget_ms}",
                *args,
            ],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    assert result.returncode == 0, result.stderr[-2000:]
    return result


def load(url: str, budget_ms: int = 5000, size: str | None = None) -> tuple[str, list[str]]:
    """The page at `url` after its scripts ran, in a window of `size` ("width,height") or
    Chromium's own: its DOM, and the lines it logged to the console."""
    window = [f"--window-size={size}"] if size else []
    result = _chromium(*window, "--dump-dom", url, budget_ms=budget_ms)
    console = [line for line in result.stderr.splitlines() if ":CONSOLE" in line]
    return result.stdout, console


def screenshot(url: str, png: Path, size: str = "1280,1600", budget_ms: int = 5000) -> Path:
    """A picture of the page at `url` as a person sees it, written to `png`."""
    _chromium(f"--screenshot={png}", f"--window-size={size}", url, budget_ms=budget_ms)
    assert png.stat().st_size > 10_000, f"{png} is nearly empty"
    return png
