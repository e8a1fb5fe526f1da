"""Headless Chromium for the tests that open pages as a person would (Debian's `chromium`)."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import select
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tests.conftest import system_tool

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
"""Chromium without a window, a sandbox (none in a container), a GPU or any network of its own."""


def _browser() -> str:
    """Debian's Chromium; the test is skipped where it is absent, naming it, except on CI,
    which installs it and must run the browser tests."""
    return system_tool("chromium", "chromium", "chromium-browser")


def _chromium(*args: str, budget_ms: int) -> subprocess.CompletedProcess[str]:
    """Headless Chromium run once on `args`, with no network of its own (this machine's is
    closed, and a test page needs none).

    Skips where Chromium is absent, except on CI, which installs it and must run these tests.
    """
    browser = _browser()
    with tempfile.TemporaryDirectory() as profile:
        result = subprocess.run(
            [
                browser,
                *FLAGS,
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


class Page:
    """A page open in headless Chromium, driven over the DevTools protocol through a pipe
    (`--remote-debugging-pipe`: no port, no network, and no client library), to type into it
    and read it as a reader would."""

    def __init__(self, process: subprocess.Popen[bytes], send: int, receive: int) -> None:
        self._process = process
        self._send = send
        self._receive = receive
        self._buffer = b""
        self._next = 0
        self.console: list[str] = []
        self.requests: list[str] = []
        """The URL of every request the page made (data: URLs cut short)."""
        self._session: str | None = None
        targets = self.command("Target.getTargets")["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        attached = self.command("Target.attachToTarget", targetId=page["targetId"], flatten=True)
        self._session = attached["sessionId"]
        self.command("Runtime.enable")
        self.command("Network.enable")

    def command(self, method: str, timeout: float = 120, **params: object) -> dict[str, Any]:
        """Send one protocol command and wait for its answer (events meanwhile are kept only
        as console lines)."""
        self._next += 1
        message: dict[str, object] = {"id": self._next, "method": method, "params": params}
        if self._session is not None:
            message["sessionId"] = self._session
        os.write(self._send, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            while b"\0" not in self._buffer:
                left = deadline - time.monotonic()
                ready, _, _ = select.select([self._receive], [], [], max(left, 0))
                if not ready:
                    raise TimeoutError(f"{method}: no answer in {timeout} s")
                chunk = os.read(self._receive, 1 << 20)
                if not chunk:
                    raise RuntimeError(f"{method}: chromium closed the pipe")
                self._buffer += chunk
            raw, self._buffer = self._buffer.split(b"\0", 1)
            got = json.loads(raw)
            if got.get("method") == "Network.requestWillBeSent":
                self.requests.append(got["params"]["request"]["url"][:100])
            if got.get("method") == "Runtime.consoleAPICalled":
                args = got["params"]["args"]
                self.console.append(
                    " ".join(str(a.get("value", a.get("description"))) for a in args)
                )
            if got.get("id") == self._next:
                if "error" in got:
                    raise RuntimeError(f"{method}: {got['error']}")
                result: dict[str, Any] = got.get("result", {})
                return result

    def evaluate(self, expression: str, timeout: float = 120) -> Any:
        """The value of a JavaScript expression in the page (a promise is awaited)."""
        found = self.command(
            "Runtime.evaluate",
            timeout=timeout,
            expression=expression,
            awaitPromise=True,
            returnByValue=True,
        )
        if "exceptionDetails" in found:
            raise RuntimeError(f"{expression[:80]}: {found['exceptionDetails']}")
        return found["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 180) -> Any:
        """Wait until a JavaScript expression is truthy in the page, and give its value."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = self.evaluate(expression)
            if value:
                return value
            time.sleep(0.1)
        raise TimeoutError(f"not true after {timeout} s: {expression}")

    def type_into(self, selector: str, text: str) -> None:
        """Type `text` into the field `selector` names, in place of what it held, as keys do."""
        self.evaluate(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)});"
            " e.focus(); e.select(); })()"
        )
        self.command("Input.insertText", text=text)

    def close(self) -> None:
        """End the browser (asked to close, so that its own processes end with it; killed if
        it does not) and close the pipes."""
        self._session = None
        with contextlib.suppress(OSError, RuntimeError, TimeoutError):
            self.command("Browser.close", timeout=10)
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        os.close(self._send)
        os.close(self._receive)


@contextlib.contextmanager
def open_page(url: str) -> Iterator[Page]:
    """`url` open in headless Chromium (no network of its own), loaded, as a `Page`."""
    browser = _browser()
    to_browser_r, to_browser_w = os.pipe()
    from_browser_r, from_browser_w = os.pipe()

    def pipes() -> None:  # the protocol's pipe is fd 3 (commands in) and fd 4 (answers out)
        # Moved above 4 first: either end may already be 3 or 4, and dup2 onto itself would
        # keep the close-on-exec flag.
        commands = fcntl.fcntl(to_browser_r, fcntl.F_DUPFD, 10)
        answers = fcntl.fcntl(from_browser_w, fcntl.F_DUPFD, 10)
        os.dup2(commands, 3)
        os.dup2(answers, 4)

    # A renderer may still be writing to the profile as the browser ends: what it left is not
    # worth failing a test for.
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as profile:
        process = subprocess.Popen(
            [
                browser,
                *FLAGS,
                f"--user-data-dir={profile}",
                "--remote-debugging-pipe",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            close_fds=False,
            preexec_fn=pipes,
        )
        os.close(to_browser_r)
        os.close(from_browser_w)
        page = Page(process, to_browser_w, from_browser_r)
        try:
            # Navigated once attached: the blank page it starts on is complete at once too.
            page.command("Page.navigate", url=url)
            page.wait_for(
                f"location.href === {json.dumps(url)} && document.readyState === 'complete'",
                timeout=60,
            )
            yield page
        finally:
            page.close()
