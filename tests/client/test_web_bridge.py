"""``uno web``'s bridge between a tab and its process, attacked over raw sockets.

Each test serves ``client/web.py``'s site in this process on an ephemeral
loopback port with a small stand-in for ``uno play``: a script that speaks
Textual's web driver protocol (client/webtab.py) and can flood its output,
ignore the quit it is sent, and report the size and messages it got. The
tab's side is a raw socket doing the websocket handshake itself, so a test
can stop reading, drop the connection without a close, or never finish a
request. No sleeps as synchronisation: every wait polls a condition under a
timeout.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import os
import re
import socket
import struct
import sys
import textwrap

import pytest
from helpers import alive

from unoplay.client import web, webguard, webtab

WAIT = 30.0

CHILD = textwrap.dedent(
    """
    import json, os, resource, signal, sys, threading, time
    out, lock = sys.stdout.buffer, threading.Lock()
    def send(kind, payload):
        with lock:
            out.write(kind + len(payload).to_bytes(4, "big") + payload)
            out.flush()
    if os.environ.get("STUBBORN"):
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    out.write(b"__GANGLION__\\n")
    send(b"D", ("size %sx%s" % (os.environ["COLUMNS"], os.environ["ROWS"])).encode())
    if os.environ.get("LIMITS"):
        send(b"D", b"data %d" % resource.getrlimit(resource.RLIMIT_DATA)[0])
    def read():
        stdin = sys.stdin.buffer
        while len(head := stdin.read(5)) == 5:
            payload = stdin.read(int.from_bytes(head[1:], "big"))
            meta = json.loads(payload) if head[:1] == b"M" else None
            if meta and meta["type"] == "quit" and not os.environ.get("STUBBORN"):
                os._exit(0)
            send(b"D", b"got " + head[:1] + payload)
        if not os.environ.get("STUBBORN"):
            os._exit(0)
    threading.Thread(target=read, daemon=True).start()
    while True:
        if os.environ.get("FLOOD"):
            send(b"D", b"x" * 65536)
        else:
            time.sleep(0.05)
    """
)


@pytest.fixture
def serve(tmp_path, monkeypatch):
    """A function starting the site with the stand-in child (``FLOOD=1``,
    ``STUBBORN=1`` as environment assignments in ``child_env``); it returns
    ``(site, port)``, and each test stops its site."""
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    monkeypatch.setattr(webtab, "QUIT_GRACE", 0.5)

    async def start(child_env: str = "", **kwargs) -> tuple[web.WebSite, int]:
        site = web.WebSite(f"{child_env} exec {sys.executable} {script}", **kwargs)
        return site, await site.start("127.0.0.1", 0)

    return start


async def until(condition, what: str) -> None:
    """Wait (polling) until ``condition()`` holds."""
    async with asyncio.timeout(WAIT):
        while not condition():
            await asyncio.sleep(0.02)
    assert condition(), what


async def get(port: int, path: str = "/", host: str = "", source: str = "127.0.0.1") -> bytes:
    """The whole answer to a GET of ``path`` (from the address ``source``)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    host = host or f"127.0.0.1:{port}"
    writer.write(f"GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
    async with asyncio.timeout(WAIT):
        answer = await reader.read()
    writer.close()
    return answer


async def page_token(port: int, host: str = "", source: str = "127.0.0.1") -> str:
    """The one-time token in the websocket URL of a page served to ``source``
    ("" when no page is served)."""
    found = re.search(
        rb'data-session-websocket-url="[^"]*/ws/([^"/]+)"', await get(port, "/", host, source)
    )
    return found.group(1).decode() if found else ""


async def open_tab(
    port: int,
    query: str = "width=80&height=24",
    host: str | None = None,
    origin: str = "",
    token: str | None = None,
    source: str = "127.0.0.1",
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter, bytes]:
    """Do a websocket handshake by hand, from the address ``source``, with
    ``token`` (None: a page's, fetched first; "": none); returns the streams
    and the status line."""
    host = host or f"127.0.0.1:{port}"
    if token is None:
        token = await page_token(port, host, source)
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    key = base64.b64encode(os.urandom(16)).decode()
    path = f"/ws/{token}" if token else "/ws"
    lines = [
        f"GET {path}?{query} HTTP/1.1",
        f"Host: {host}",
        "Upgrade: websocket",
        "Connection: Upgrade",
        f"Sec-WebSocket-Key: {key}",
        "Sec-WebSocket-Version: 13",
    ]
    if origin:
        lines.append(f"Origin: {origin}")
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
    await writer.drain()
    async with asyncio.timeout(WAIT):
        head = await reader.readuntil(b"\r\n\r\n")
    return reader, writer, head.split(b"\r\n", 1)[0]


def frame(text: str) -> bytes:
    """A masked text frame (as a browser sends)."""
    data, mask = text.encode(), os.urandom(4)
    size = len(data)
    head = bytes([0x81]) + (
        bytes([0x80 | size]) if size < 126 else bytes([0x80 | 126]) + struct.pack(">H", size)
    )
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data))


async def read_frame(reader: asyncio.StreamReader) -> bytes:
    """The payload of the next frame from the server (unmasked)."""
    async with asyncio.timeout(WAIT):
        _first, second = await reader.readexactly(2)
        size = second & 0x7F
        if size == 126:
            size = struct.unpack(">H", await reader.readexactly(2))[0]
        elif size == 127:
            size = struct.unpack(">Q", await reader.readexactly(8))[0]
        return await reader.readexactly(size)


def only_tab(site: web.WebSite) -> webtab.Tab:
    assert site.server is not None and len(site.server.tabs) == 1
    return next(iter(site.server.tabs))


async def started(site: web.WebSite) -> int:
    """The pid of the site's one tab's process, once it runs."""
    await until(lambda: site.server is not None and len(site.server.tabs) == 1, "a tab")
    tab = only_tab(site)
    await until(lambda: tab.process is not None, "its process")
    assert tab.process is not None
    return tab.process.pid


async def test_a_vanished_tab_ends_its_process(serve):
    """A tab whose TCP connection is reset (no close frame) while its process
    floods output: the process is asked to quit, then killed when it ignores
    that, and reaped; the cap counts it until then, not after."""
    site, port = await serve("FLOOD=1 STUBBORN=1")
    try:
        _reader, writer, status = await open_tab(port)
        assert b"101" in status
        pid = await started(site)
        sock = writer.get_extra_info("socket")
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        writer.transport.abort()  # RST: the tab is gone without a word
        await until(lambda: not site.server.tabs, "the tab is ended")
        assert not alive(pid)
    finally:
        await site.stop()


async def test_a_tab_that_stops_reading_is_ended(serve):
    """A tab that reads nothing while its process writes: the process is
    never blocked (its output is always read), and the tab is ended once
    MAX_UNSENT bytes wait for it; its process is gone."""
    site, port = await serve("FLOOD=1")
    try:
        _reader, writer, status = await open_tab(port)
        assert b"101" in status
        pid = await started(site)
        tab = only_tab(site)
        await until(lambda: not site.server.tabs, "the slow tab is ended")
        assert "read nothing" in tab.why
        assert not alive(pid)
        writer.close()
    finally:
        await site.stop()


async def test_closing_a_tab_ends_its_process(serve):
    """A close frame: the process quits when asked."""
    site, port = await serve()
    try:
        reader, writer, _ = await open_tab(port)
        pid = await started(site)
        assert (await read_frame(reader)).startswith(b"size")
        writer.write(bytes([0x88, 0x80]) + os.urandom(4))  # close, masked, no payload
        await writer.drain()
        await until(lambda: not site.server.tabs, "the closed tab is ended")
        assert not alive(pid)
    finally:
        await site.stop()


async def test_a_huge_terminal_is_clamped(serve):
    """10000x10000 asked at the start and by a resize: 300x100 given;
    malformed messages (not JSON, not a list, JSON nested deeper than the
    parser goes) are ignored and the tab goes on."""
    site, port = await serve()
    try:
        reader, writer, _ = await open_tab(port, "width=10000&height=10000")
        assert await read_frame(reader) == b"size 300x100"
        writer.write(frame(json.dumps(["resize", {"width": 99999, "height": "x"}])))
        writer.write(frame("not json") + frame(json.dumps({"stdin": 1})))  # ignored
        writer.write(frame("[" * 60000))  # JSON nested past the parser's recursion: ignored
        writer.write(frame(json.dumps(["stdin", "k"])))
        await writer.drain()
        got = [await read_frame(reader), await read_frame(reader)]
        assert b'got M{"type": "resize", "width": 300, "height": 24}' in got
        assert b"got Dk" in got
        writer.close()
    finally:
        await site.stop()


async def test_only_its_own_hosts_are_served(serve):
    """A Host naming another site (DNS rebinding) gets 421 and no page, for
    the page and the websocket alike; loopback names, this machine's, and
    --allow-host names are served; a foreign Origin gets 403."""
    site, port = await serve(allow_hosts=["uno.lan"])
    try:
        for host in (
            f"attacker.example:{port}",
            "127.0.0.1:1",
            f"127.0.0.1.evil:{port}",
            # not a host[:port] (no browser sends these; the page would name them)
            f"attacker.example@127.0.0.1:{port}",
            f"127.0.0.1:{port}/x",
            f"127.0.0.1:{port}?x",
            f"127.0.0.1:{port}#x",
        ):
            answer = await get(port, "/", host)
            assert answer.startswith(b"HTTP/1.1 421"), (host, answer[:80])
            assert b"/ws" not in answer
        for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"uno.lan:{port}"):
            answer = await get(port, "/", host)
            assert answer.startswith(b"HTTP/1.1 200"), (host, answer[:80])
            assert f"ws://{host}/ws".encode() in answer
        attacker = f"attacker.example:{port}"
        *_, status = await open_tab(port, host=attacker, origin=f"http://{attacker}")
        assert b"421" in status
        *_, status = await open_tab(port, origin="http://evil.example")
        assert b"403" in status
        assert not site.server.tabs
    finally:
        await site.stop()


async def test_idle_and_excess_connections_are_closed(serve, monkeypatch):
    """Connections that send no request, or half a one, are closed after
    FIRST_REQUEST_TIMEOUT; past MAX_PER_ADDRESS, a connection is closed at
    once; the page is still served meanwhile."""
    monkeypatch.setattr(webguard, "FIRST_REQUEST_TIMEOUT", 0.5)
    monkeypatch.setattr(webguard, "MAX_PER_ADDRESS", 4)
    site, port = await serve()
    try:
        idle = [await asyncio.open_connection("127.0.0.1", port) for _ in range(3)]
        idle[0][1].write(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # never finished
        extra = [await asyncio.open_connection("127.0.0.1", port) for _ in range(3)]
        for reader, _ in idle + extra:
            async with asyncio.timeout(WAIT):
                assert await reader.read() == b""  # closed by the server
        assert site.guard is not None and site.guard.refused >= 2
        await until(lambda: site.guard.open == 0, "no connection counted")
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        async with asyncio.timeout(WAIT):
            assert (await reader.readline()).startswith(b"HTTP/1.1 200")
        writer.close()
    finally:
        await site.stop()


def test_the_connection_cap_leaves_room_for_the_tabs():
    """The total follows the open-file limit, less what the tabs need."""
    assert webguard.ConnectionGuard.for_open_files(1024, 32).max_total == 1024 - 64 - 8 * 32
    assert webguard.ConnectionGuard.for_open_files(10**6, 32).max_total == 4096
    assert webguard.raise_open_files() >= 1024 or webguard.raise_open_files() > 0


async def test_accept_errors_are_logged_once_an_interval(caplog):
    """A storm of accept errors (a full file table) gives one log line."""
    loop = asyncio.get_running_loop()
    old = loop.get_exception_handler()
    webguard.quiet_accept_errors(loop)
    try:
        with caplog.at_level(logging.ERROR, logger="unoplay.web"):
            for _ in range(10_000):
                loop.call_exception_handler(
                    {
                        "message": "socket.accept() out of system resource",
                        "exception": OSError(24, "Too many open files"),
                    }
                )
        assert len(caplog.records) == 1
        assert "Too many open files" in caplog.records[0].getMessage()
    finally:
        loop.set_exception_handler(old)


async def test_malformed_requests_are_logged_once_an_interval(serve, caplog):
    """Requests with no Host or a header line past aiohttp's limit, in a
    loop: each answered 400, one log line in all, no traceback."""
    site, port = await serve()
    try:
        with caplog.at_level(logging.DEBUG):
            for i in range(20):
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
                header = "" if i % 2 else f"Host: 127.0.0.1:{port}\r\nX: {'a' * 10_000}\r\n"
                writer.write(f"GET / HTTP/1.1\r\n{header}\r\n".encode())
                async with asyncio.timeout(WAIT):
                    answer = await reader.read()
                writer.close()
                assert b" 400 " in answer.split(b"\r\n", 1)[0], answer[:80]
        assert not [r for r in caplog.records if r.exc_info], "a traceback was logged"
        said = [r.getMessage() for r in caplog.records if "malformed" in r.getMessage()]
        assert len(said) <= 1
    finally:
        await site.stop()


def test_a_tab_tag_verifies_only_under_its_key():
    """A tag made with the web server's key names its tab; a made-up one, one
    under another key, or any other user agent counts as the address."""
    from unoplay.channel import TAB_AGENT, tab_of, tab_tag

    key, other = os.urandom(32), os.urandom(32)
    tag = tab_tag(key, "ab12")
    agent = f"{TAB_AGENT}{tag} grpc-python-asyncio/1.70.0 grpc-c/45.0.0 (linux; chttp2)"
    assert tab_of(key, agent) == "ab12"
    assert tab_of(other, agent) is None
    assert tab_of(key, f"{TAB_AGENT}ab12.{'0' * 32}") is None
    assert tab_of(key, f"{TAB_AGENT}ab13.{tag.split('.')[1]}") is None
    assert tab_of(key, "grpc-python-asyncio/1.70.0") is None
    assert tab_of(key, f"{TAB_AGENT}../x.{tag.split('.')[1]}") is None


async def test_a_websocket_needs_its_page_s_one_time_token(serve):
    """A websocket opened without the page (no token, a made-up one, one
    already used, one given to another address's page) is refused (403)
    and starts no process; the page's own token opens one tab."""
    site, port = await serve()
    try:
        for token in ("", "made-up"):
            *_, status = await open_tab(port, token=token)
            assert b"403" in status, status
        token = await page_token(port, source="127.0.0.2")
        *_, status = await open_tab(port, token=token)  # from 127.0.0.1
        assert b"403" in status, status
        token = await page_token(port)
        _reader, writer, status = await open_tab(port, token=token)
        assert b"101" in status, status
        await started(site)
        *_, status = await open_tab(port, token=token)
        assert b"403" in status, status
        assert len(site.server.tabs) == 1
        writer.close()
    finally:
        await site.stop()


async def test_one_address_holds_at_most_its_share_of_tabs(serve, monkeypatch):
    """Of MAX_SESSIONS tabs, one address holds its share
    (MAX_SESSIONS // TAB_SHARES): the next from it is refused (429), while
    another address still opens one; a tab closed gives its place back."""
    monkeypatch.setattr(web, "MAX_SESSIONS", 8)
    share = 2  # a quarter
    site, port = await serve()
    try:
        tabs = []
        for _ in range(share):
            reader, writer, status = await open_tab(port)
            assert b"101" in status, status
            tabs.append((reader, writer))
        *_, status = await open_tab(port)
        assert b"429" in status, status
        _, other, status = await open_tab(port, source="127.0.0.2")
        assert b"101" in status, status
        await until(lambda: len(site.server.tabs) == share + 1, "the tabs")
        reader, writer = tabs.pop()
        writer.write(bytes([0x88, 0x80]) + os.urandom(4))  # close
        await writer.drain()
        await until(lambda: len(site.server.tabs) == share, "a tab ended")
        _, again, status = await open_tab(port)
        assert b"101" in status, status
        assert web.tabs_per_address() == share == web.MAX_SESSIONS // web.TAB_SHARES
        for _, writer in tabs:
            writer.close()
        other.close()
        again.close()
    finally:
        await site.stop()


async def test_static_directories_are_not_listed(serve):
    """/static/ and its folders list nothing; its files are served."""
    site, port = await serve()
    try:
        for path in ("/static/", "/static/js/", "/static/css"):
            answer = await get(port, path)
            assert not answer.startswith(b"HTTP/1.1 200"), (path, answer[:80])
            assert b"textual.js" not in answer and b"xterm.css" not in answer
        assert (await get(port, "/static/js/textual.js")).startswith(b"HTTP/1.1 200")
    finally:
        await site.stop()


async def test_a_key_flood_reaches_the_process_at_a_bounded_rate(serve, monkeypatch):
    """A tab that sends keys far past KEYS_PER_SECOND: beyond the burst they
    are dropped (here with no refill: exactly the burst gets through), a
    paste beyond KEY_BYTES_BURST too, and the resize after them still comes;
    the process runs under the data cap (MAX_SESSION_DATA)."""
    monkeypatch.setattr(webtab, "KEYS_PER_SECOND", 0.0)
    monkeypatch.setattr(webtab, "KEY_BURST", 20.0)
    site, port = await serve("LIMITS=1")
    try:
        reader, writer, status = await open_tab(port)
        assert b"101" in status
        assert (await read_frame(reader)).startswith(b"size")
        assert await read_frame(reader) == b"data %d" % webtab.MAX_SESSION_DATA
        writer.write(frame(json.dumps(["stdin", "v" * int(webtab.KEY_BYTES_BURST + 1)])))
        for _ in range(500):
            writer.write(frame(json.dumps(["stdin", "k"])))
        writer.write(frame(json.dumps(["resize", {"width": 81, "height": 25}])))
        await writer.drain()
        keys = 0
        while not (got := await read_frame(reader)).startswith(b"got M"):
            assert got == b"got Dk", got[:40]
            keys += 1
        assert keys == 20
        assert only_tab(site).dropped == 481
        writer.close()
    finally:
        await site.stop()
