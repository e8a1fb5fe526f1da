"""The process protocol (行程協定), client side: JSON lines over stdin/stdout between the harness
and an engine in any language, and the adapter that drives one (`ProcessEngine`). Messages:
`spec/protocol.schema.json`; the server side is `harness.engine.server`.
"""

from __future__ import annotations

import json
import queue
import shlex
import subprocess
import threading
from collections import deque
from collections.abc import Mapping, Sequence
from typing import IO, Any

from harness.engine._variants import as_ruleset, clause_values
from harness.engine.api import EngineBase, EngineInfo, Json, unwrap_response
from harness.errors import EngineError, EngineErrorKind, HarnessError, OptionRefused
from harness.model.ruleset import Ruleset

PROTOCOL_VERSION = 1
_EOF = object()


def _reader(stream: IO[str], lines: queue.Queue[object]) -> None:
    for line in stream:
        lines.put(line)
    lines.put(_EOF)


def _tail(stream: IO[str], buffer: deque[str]) -> None:
    for line in stream:
        buffer.append(line)


class ProcessEngine(EngineBase):
    """An engine in another process, spoken to in the process protocol, for one variant (a
    Ruleset with its options chosen, or a bundled one by slug); restarted when it crashes,
    hangs, prints garbage or answers the wrong id."""

    def __init__(self, command: str, ruleset: Ruleset | str, timeout: float = 10.0) -> None:
        self.argv = shlex.split(command)
        if not self.argv:
            raise HarnessError("engine command is empty")
        self.ruleset = as_ruleset(ruleset)
        self.timeout = timeout
        self._proc: subprocess.Popen[str] | None = None
        self._lines: queue.Queue[object] = queue.Queue()
        self._stderr: deque[str] = deque(maxlen=50)
        self._info: EngineInfo | None = None
        self._next_id = 0
        self._stderr_thread: threading.Thread | None = None
        self.restarts = 0

    # -- the process ---------------------------------------------------------------------------

    def _start(self) -> None:
        try:
            proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                encoding="utf-8",
                bufsize=1,
            )
        except OSError as exc:
            raise EngineError(
                EngineErrorKind.CRASH, f"cannot start {self.argv[0]!r}: {exc}"
            ) from None
        self._proc = proc
        self._lines = queue.Queue()
        self._stderr = deque(maxlen=50)
        assert proc.stdout is not None and proc.stderr is not None
        threading.Thread(target=_reader, args=(proc.stdout, self._lines), daemon=True).start()
        self._stderr_thread = threading.Thread(
            target=_tail, args=(proc.stderr, self._stderr), daemon=True
        )
        self._stderr_thread.start()
        reply = self._exchange(self.hello())
        if reply.get("type") == "error":
            message = str(reply.get("message", "refused"))
            self._stop()
            option = reply.get("option")
            if isinstance(option, str):
                # The engine names the option whose value it does not play.
                value = self.ruleset.chosen.get(option)
                raise OptionRefused(option, value, message)
            raise EngineError(
                EngineErrorKind.UNSUPPORTED, f"the engine refused the handshake: {message}"
            )
        if reply.get("type") != "hello":
            self._stop()
            raise EngineError(
                EngineErrorKind.PROTOCOL, "expected a hello answer", json.dumps(reply)
            )
        if reply.get("protocol") != PROTOCOL_VERSION:
            self._stop()
            raise EngineError(
                EngineErrorKind.PROTOCOL,
                f"the engine speaks protocol {reply.get('protocol')!r}, not {PROTOCOL_VERSION}",
            )
        try:
            self._info = EngineInfo.from_json(reply)
        except HarnessError as exc:
            self._stop()
            raise EngineError(EngineErrorKind.PROTOCOL, str(exc)) from None

    def hello(self) -> Json:
        """The hello this engine is sent: the variant's slug, the options chosen, and every
        clause's value, so that an engine may play a variant it does not know by name."""
        return {
            "type": "hello",
            "protocol": PROTOCOL_VERSION,
            "variant": self.ruleset.slug,
            "options": dict(self.ruleset.chosen),
            "clauses": clause_values(self.ruleset),
        }

    def _stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            if proc.stdin:
                proc.stdin.close()
        except OSError:
            pass
        try:
            proc.wait(timeout=1)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

    def _fail(self, kind: EngineErrorKind, message: str, detail: str = "") -> EngineError:
        """Stop the process (it restarts on the next request) and describe what went wrong."""
        proc = self._proc
        if proc is not None and proc.poll() is None and kind is not EngineErrorKind.CRASH:
            proc.kill()
        self._stop()
        self.restarts += 1
        if self._stderr_thread is not None:
            # The process has ended: let the reader collect the last of its stderr.
            self._stderr_thread.join(timeout=1)
        seen = "".join(self._stderr).strip()
        extra = "\n".join(x for x in (detail, f"stderr: {seen}" if seen else "") if x)
        return EngineError(kind, message, extra)

    def _exchange(self, message: Json) -> Json:
        proc = self._proc
        assert proc is not None and proc.stdin is not None
        try:
            proc.stdin.write(json.dumps(message, ensure_ascii=False) + "\n")
            proc.stdin.flush()
        except OSError:
            raise self._fail(
                EngineErrorKind.CRASH, "the engine closed its input (it has exited)"
            ) from None
        try:
            line = self._lines.get(timeout=self.timeout)
        except queue.Empty:
            raise self._fail(
                EngineErrorKind.TIMEOUT, f"no answer within {self.timeout:g} s"
            ) from None
        if line is _EOF:
            code = proc.wait()
            raise self._fail(
                EngineErrorKind.CRASH, f"the engine exited (status {code}) without answering"
            )
        assert isinstance(line, str)
        try:
            reply = json.loads(line)
        except json.JSONDecodeError:
            raise self._fail(
                EngineErrorKind.PROTOCOL,
                "the engine printed a line that is not JSON",
                f"line: {line.strip()[:300]}",
            ) from None
        if not isinstance(reply, dict):
            raise self._fail(
                EngineErrorKind.PROTOCOL,
                "the engine printed JSON that is not an object",
                f"line: {line.strip()[:300]}",
            )
        return reply

    def _ensure(self) -> EngineInfo:
        if self._proc is None or self._proc.poll() is not None:
            self._stop()
            self._start()
        assert self._info is not None
        return self._info

    # -- the engine API ------------------------------------------------------------------------

    def describe(self) -> EngineInfo:
        """The facts the engine gave in its hello answer."""
        return self._ensure()

    def request(self, operation: str, data: Mapping[str, Any]) -> Json:
        """One request and its answer."""
        return self.batch([(operation, data)])[0]

    def batch(self, requests: Sequence[tuple[str, Mapping[str, Any]]]) -> list[Json]:
        """Several requests in one message; each answer is an output or an EngineError raised
        for the whole batch when the process fails."""
        self._ensure()
        ids = []
        items = []
        for operation, data in requests:
            self._next_id += 1
            ids.append(self._next_id)
            items.append({"id": self._next_id, "operation": operation, "input": dict(data)})
        self._next_id += 1
        batch_id = self._next_id
        if len(items) == 1:
            reply = self._exchange({"type": "request", **items[0]})
            responses = [reply]
        else:
            reply = self._exchange({"type": "batch", "id": batch_id, "requests": items})
            if reply.get("type") != "batch" or reply.get("id") != batch_id:
                raise self._fail(
                    EngineErrorKind.PROTOCOL,
                    f"expected the batch answer with id {batch_id}",
                    json.dumps(reply, ensure_ascii=False)[:300],
                )
            raw = reply.get("responses")
            if not isinstance(raw, list) or len(raw) != len(items):
                raise self._fail(
                    EngineErrorKind.PROTOCOL, "the batch answer has the wrong number of responses"
                )
            responses = raw
        out: list[Json] = []
        for expected_id, response in zip(ids, responses, strict=True):
            if not isinstance(response, dict) or response.get("id") != expected_id:
                got = response.get("id") if isinstance(response, dict) else response
                raise self._fail(
                    EngineErrorKind.PROTOCOL,
                    f"expected the answer to request {expected_id}, got id {got!r}",
                    "answer: " + json.dumps(response, ensure_ascii=False)[:300],
                )
            out.append(response)
        return out

    def answer(self, operation: str, data: Mapping[str, Any]) -> Json:
        """The output of one operation, or EngineError (unsupported, invalid input, ...)."""
        return unwrap_response(self.request(operation, data))

    def close(self) -> None:
        """Say bye and end the process."""
        proc = self._proc
        if proc is not None and proc.poll() is None and proc.stdin is not None:
            try:
                proc.stdin.write(json.dumps({"type": "bye"}) + "\n")
                proc.stdin.flush()
            except OSError:
                pass
        self._stop()
