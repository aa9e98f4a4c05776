"""One browser tab of ``uno web``: its websocket and its ``uno play`` process.

The bridge between the two speaks the protocol of Textual's web driver (the
one textual-serve speaks; its page and scripts are served unchanged):

* the child writes ``__GANGLION__`` on a line of its own once it runs, then
  packets: a type byte (``D`` screen data, ``M`` a JSON meta message, ``P``
  packed data such as file downloads), a 4-byte big-endian size, the payload;
* the child reads packets of the same form: ``D`` keys and mouse, ``M`` meta
  (``resize``, ``focus``, ``blur``, ``quit``);
* the page sends JSON lists: ``["stdin", text]``, ``["resize", {"width": w,
  "height": h}]``, ``["ping", x]`` (answered ``["pong", x]``), ``["focus"]``,
  ``["blur"]``.

What it owns that textual-serve did not: the child's output is always read,
whatever the tab does, so a child is never stuck writing to a full pipe;
a tab that stops reading (a send that does not complete in
:data:`SEND_TIMEOUT`, or more than :data:`MAX_UNSENT` bytes waiting) is ended;
and a tab that ends, however it ends, asks its child to quit, then terminates
and kills it after :data:`QUIT_GRACE` seconds each, and waits for it, so a
live tab is a live process and nothing else. A tab's keys and mouse reach its
child at a bounded rate (:data:`KEYS_PER_SECOND` messages and
:data:`KEY_BYTES_PER_SECOND` bytes, beyond a burst: the rest are dropped),
so a flood of input cannot pile up in the child's queue, and the child's
data is capped (:data:`MAX_SESSION_DATA`, ``ulimit -d``): past it, it fails
and the tab ends, whatever it is sent.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
from collections import deque
from importlib.metadata import version
from typing import Any

from aiohttp import WSMsgType, web

from unoplay.throttle import TokenBucket

log = logging.getLogger("unoplay.web")

#: terminal sizes a tab may ask for, in cells (a larger ask is clamped)
MIN_WIDTH, MAX_WIDTH = 20, 300
MIN_HEIGHT, MAX_HEIGHT = 8, 100
#: seconds one websocket send may take before the tab counts as gone
SEND_TIMEOUT = 10.0
#: bytes of screen output that may wait for a slow tab before it is ended
MAX_UNSENT = 4 * 1024 * 1024
#: seconds the child has to print its first line (a `uno play` prints it in
#: under a second alone, but 32 tabs opened at once on a loaded 2-core
#: machine took over 30 s: it is there to reap a child that hangs, not to
#: end a slow one), and (each) to quit when asked, then when terminated,
#: before the next step
START_TIMEOUT = 120.0
QUIT_GRACE = 3.0
#: the longest message a tab may send (a key, a paste, a resize)
MAX_MESSAGE = 64 * 1024
#: bytes of the child's error output kept (the end of it) for the log
STDERR_KEPT = 16 * 1024
#: seconds between pings on the websocket; a tab that misses one is closed
HEARTBEAT = 10.0
#: keys and mouse events (``stdin`` messages) a tab may send its child a
#: second, and bytes of them, each beyond a burst; the rest are dropped (a
#: person types a few keys a second; a mouse sends tens of moves)
KEYS_PER_SECOND, KEY_BURST = 60.0, 240.0
KEY_BYTES_PER_SECOND, KEY_BYTES_BURST = 4096.0, 16384.0
#: the most data (heap and other private memory) a tab's child may hold, in
#: bytes: ``uno play`` holds about 110 MB of it
MAX_SESSION_DATA = 384 * 1024 * 1024


def clamp_size(width: object, height: object) -> tuple[int, int]:
    """A terminal size within bounds: ``(width, height)`` in cells, from what
    a tab asked (anything not an integer counts as 80x24)."""

    def whole(value: object, default: int) -> int:
        try:
            return int(str(value))
        except ValueError:
            return default

    w = min(max(whole(width, 80), MIN_WIDTH), MAX_WIDTH)
    h = min(max(whole(height, 24), MIN_HEIGHT), MAX_HEIGHT)
    return w, h


def packet(kind: bytes, payload: bytes) -> bytes:
    """A packet of the web driver's protocol: ``kind`` (``b"D"`` or ``b"M"``),
    the payload's size (4 bytes, big-endian), the payload."""
    return kind + len(payload).to_bytes(4, "big") + payload


class Tab:
    """One tab: its websocket, its child process and the tasks between them.

    ``command`` is the shell command of the child; ``env`` is added to this
    process's environment for it. :meth:`run` returns when the tab is over
    and the child has exited (or was killed and reaped)."""

    def __init__(self, command: str, env: dict[str, str] | None = None) -> None:
        self.command = command
        #: done once the tab is over and its child reaped (set by :meth:`run`)
        self.finished: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.env = env or {}
        self.process: asyncio.subprocess.Process | None = None
        self.websocket: web.WebSocketResponse | None = None
        self._unsent: deque[bytes | str] = deque()
        self._unsent_bytes = 0
        self._ready = asyncio.Event()  # output waits to be sent
        self._over = asyncio.Event()  # the tab is over: stop sending, end the child
        self._stderr: deque[bytes] = deque()
        self.why = ""  #: why the tab ended (for the log)
        now = asyncio.get_running_loop().time()
        self._keys = TokenBucket(KEYS_PER_SECOND, KEY_BURST, now)
        self._key_bytes = TokenBucket(KEY_BYTES_PER_SECOND, KEY_BYTES_BURST, now)
        self.dropped = 0  #: stdin messages dropped over the rate

    def _environment(self, width: int, height: int) -> dict[str, str]:
        env = dict(os.environ)
        env.update(
            TEXTUAL_DRIVER="textual.drivers.web_driver:WebDriver",
            TEXTUAL_FPS="60",
            TEXTUAL_COLOR_SYSTEM="truecolor",
            TERM_PROGRAM="textual",
            TERM_PROGRAM_VERSION=version("textual-serve"),
            COLUMNS=str(width),
            ROWS=str(height),
        )
        env.update(self.env)
        return env

    async def run(self, request: web.Request) -> web.WebSocketResponse:
        """Serve the tab of ``request`` (a websocket upgrade) until it ends;
        :attr:`finished` is done once its child is reaped, even when this is
        cancelled."""
        try:
            websocket = web.WebSocketResponse(heartbeat=HEARTBEAT, max_msg_size=MAX_MESSAGE)
            self.websocket = websocket
            width, height = clamp_size(
                request.query.get("width", "80"), request.query.get("height", "24")
            )
            await websocket.prepare(request)
            self.process = await asyncio.create_subprocess_shell(
                f"ulimit -d {MAX_SESSION_DATA // 1024}; {self.command}",
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                env=self._environment(width, height),
            )
        except BaseException:
            self.finished.set_result(None)
            raise
        tasks = [
            asyncio.create_task(self._read_child(), name="tab-stdout"),
            asyncio.create_task(self._read_stderr(), name="tab-stderr"),
            asyncio.create_task(self._send(), name="tab-send"),
        ]
        try:
            await self._read_tab()
            self.end("the tab closed")
        finally:
            self.end("the tab's handler was cancelled")
            finish = asyncio.ensure_future(self._finish(tasks))
            finish.add_done_callback(lambda _: self.finished.set_result(None))
            await asyncio.shield(finish)
        return websocket

    def end(self, why: str) -> None:
        """The tab is over (``why``, for the log): nothing more is sent to it,
        and its child is asked to quit. Idempotent; the first reason stays."""
        if not self._over.is_set():
            self.why = self.why or why
            self._over.set()
            self._ready.set()

    # ------------------------------------------------------------ the child

    async def _read_child(self) -> None:
        """Read the child's output to its end, whatever the tab does: packets
        go to the tab while it lasts, and are dropped after."""
        assert self.process is not None and self.process.stdout is not None
        stdout = self.process.stdout
        try:
            async with asyncio.timeout(START_TIMEOUT):
                while (line := await stdout.readline()) != b"__GANGLION__\n":
                    if not line:
                        self.end("the session ended before it started")
                        return
            while True:
                head = await stdout.readexactly(5)
                payload = await stdout.readexactly(int.from_bytes(head[1:], "big"))
                kind = head[:1]
                if kind == b"D":
                    self._queue(payload)
                elif kind == b"M":
                    self._meta(payload)
                # b"P": packed data (file downloads) the game never sends
        except TimeoutError:
            self.end(f"the session printed nothing in {START_TIMEOUT:.0f}s")
            await self._drain(stdout)
        except (asyncio.IncompleteReadError, ConnectionError):
            self.end("the session ended")
        except ValueError:  # a line longer than the stream's limit before the start
            self.end("the session's output is not the web driver's")
            await self._drain(stdout)

    @staticmethod
    async def _drain(stdout: asyncio.StreamReader) -> None:
        while await stdout.read(65536):
            pass

    def _meta(self, payload: bytes) -> None:
        try:
            meta = json.loads(payload)
        except ValueError:
            return
        if not isinstance(meta, dict):
            return
        if meta.get("type") == "exit":
            self.end("the session quit")
        elif meta.get("type") == "open_url" and isinstance(meta.get("url"), str):
            message = ["open_url", {"url": meta["url"], "new_tab": bool(meta.get("new_tab"))}]
            self._queue(json.dumps(message))

    async def _read_stderr(self) -> None:
        """Keep the end of the child's error output (bounded) for the log."""
        assert self.process is not None and self.process.stderr is not None
        kept = 0
        while data := await self.process.stderr.read(4096):
            self._stderr.append(data)
            kept += len(data)
            while kept - len(self._stderr[0]) >= STDERR_KEPT:
                kept -= len(self._stderr.popleft())

    async def _to_child(self, kind: bytes, payload: bytes) -> None:
        """Write a packet to the child; a child that does not read its input
        in :data:`SEND_TIMEOUT` ends the tab."""
        process = self.process
        if process is None or process.stdin is None or process.stdin.is_closing():
            return
        try:
            process.stdin.write(packet(kind, payload))
            async with asyncio.timeout(SEND_TIMEOUT):
                await process.stdin.drain()
        except TimeoutError:
            self.end("the session stopped reading its input")
        except (ConnectionError, RuntimeError):
            self.end("the session ended")

    async def _finish(self, tasks: list[asyncio.Task]) -> None:
        """End the child (quit, then SIGTERM, then SIGKILL, :data:`QUIT_GRACE`
        seconds apart), wait for it and its readers, close the websocket."""
        process = self.process
        if process is not None:
            await self._to_child(b"M", json.dumps({"type": "quit"}).encode())
            if process.stdin is not None:
                process.stdin.close()
            for sig in (None, signal.SIGTERM, signal.SIGKILL):
                if sig is not None and process.returncode is None:
                    with contextlib.suppress(ProcessLookupError):
                        process.send_signal(sig)
                try:
                    async with asyncio.timeout(QUIT_GRACE):
                        await process.wait()
                    break
                except TimeoutError:
                    continue
            await process.wait()
        for task in tasks:
            if task.get_name() == "tab-send":
                task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if self.websocket is not None and not self.websocket.closed:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(QUIT_GRACE):
                    await self.websocket.close()
        code = process.returncode if process is not None else None
        if code not in (0, None):
            tail = b"".join(self._stderr).decode("utf-8", "replace").strip()
            log.warning(
                "a tab's session exited %s (%s)%s", code, self.why, f": {tail}" * bool(tail)
            )
        else:
            log.info("a tab ended: %s", self.why)
        if self.dropped:
            log.info("that tab sent %d keys over the rate; they were dropped", self.dropped)

    # -------------------------------------------------------------- the tab

    def _queue(self, message: bytes | str) -> None:
        """Output for the tab; too much of it unsent ends the tab."""
        if self._over.is_set():
            return
        self._unsent.append(message)
        self._unsent_bytes += len(message)
        if self._unsent_bytes > MAX_UNSENT:
            self.end(f"the tab read nothing of {self._unsent_bytes} bytes")
            self._unsent.clear()
        self._ready.set()

    async def _send(self) -> None:
        """Send queued output to the tab; a send that takes over
        :data:`SEND_TIMEOUT` seconds, or fails, ends the tab."""
        websocket = self.websocket
        assert websocket is not None
        while not self._over.is_set():
            await self._ready.wait()
            self._ready.clear()
            while self._unsent and not self._over.is_set():
                message = self._unsent.popleft()
                self._unsent_bytes -= len(message)
                try:
                    async with asyncio.timeout(SEND_TIMEOUT):
                        if isinstance(message, bytes):
                            await websocket.send_bytes(message)
                        else:
                            await websocket.send_str(message)
                except TimeoutError:
                    self.end(f"the tab read nothing for {SEND_TIMEOUT:.0f}s")
                except Exception as err:  # the connection is gone
                    self.end(f"a send to the tab failed ({type(err).__name__})")

    async def _read_tab(self) -> None:
        """Pass the tab's keys, mouse and size to the child until the tab or
        the child is over. Malformed messages are ignored."""
        websocket = self.websocket
        assert websocket is not None
        over = asyncio.create_task(self._over.wait())
        try:
            while not self._over.is_set():
                receive = asyncio.ensure_future(websocket.receive())
                await asyncio.wait((receive, over), return_when=asyncio.FIRST_COMPLETED)
                if not receive.done():
                    receive.cancel()
                    with contextlib.suppress(BaseException):
                        await receive
                    return
                message = receive.result()
                if message.type in (WSMsgType.CLOSE, WSMsgType.CLOSING, WSMsgType.CLOSED):
                    self.end("the tab closed")
                    return
                if message.type is WSMsgType.ERROR:
                    self.end(f"the tab's connection failed ({websocket.exception()})")
                    return
                if message.type is WSMsgType.TEXT:
                    await self._from_tab(message.data)
        finally:
            over.cancel()

    async def _from_tab(self, text: str) -> None:
        try:
            envelope: Any = json.loads(text)
        except (ValueError, RecursionError):  # not JSON, or nested past Python's stack
            return
        if not isinstance(envelope, list) or not envelope or not isinstance(envelope[0], str):
            return
        kind, data = envelope[0], (envelope[1] if len(envelope) > 1 else None)
        if kind == "stdin" and isinstance(data, str):
            payload = data.encode("utf-8", "replace")
            now = asyncio.get_running_loop().time()
            if self._key_bytes.take(now, len(payload)) and self._keys.take(now):
                await self._to_child(b"D", payload)
            else:
                self.dropped += 1
        elif kind == "resize" and isinstance(data, dict):
            width, height = clamp_size(data.get("width"), data.get("height"))
            meta = {"type": "resize", "width": width, "height": height}
            await self._to_child(b"M", json.dumps(meta).encode())
        elif kind in ("focus", "blur"):
            await self._to_child(b"M", json.dumps({"type": kind}).encode())
        elif kind == "ping":
            self._queue(json.dumps(["pong", data if isinstance(data, (str, int)) else None]))
