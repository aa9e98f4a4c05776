"""``uno web``: the terminal client in a browser.

textual-serve serves one page (a terminal drawn by xterm.js) and, for every
browser tab that opens it, starts one ``uno play`` process of its own and
relays its screen and the tab's keys and mouse over a websocket. So every tab
is a separate player with a separate connection to the game server:

* ``uno web``: one game server on loopback, in this process, shared by every
  tab; each tab runs ``uno play --server <it> --new-table``, which creates a
  table with bots there and sits straight down (``make play`` in a tab).
* ``uno web --server HOST:PORT``: each tab opens the lobby of that server
  (with ``--new-table``: a table with bots there, as above).
* ``uno serve --web PORT``: a LAN server and, beside it, its lobby for browsers.

Every session runs with ``--memory-seats``: its seat tokens stay in its own
process, since all of them run as the same user on this machine and would
otherwise share (and take each other's seats through) ``seats.json``.

The web server binds to loopback unless told otherwise; the page's websocket
is refused to pages of other origins, so a site the user visits cannot open
a session in the background, and past :data:`MAX_SESSIONS` tabs at once.
Each page carries a one-time token in its websocket's URL (``/ws/<token>``,
:class:`PageTokens`): a websocket without one, or with one used or made for
another address, is refused, so every tab comes from a page. One address
holds at most its share of the tabs (:data:`TAB_SHARES`). Directories under
``/static/`` are not listed.
"""

from __future__ import annotations

import asyncio
import logging
import re
import secrets
import shlex
import socket
import sys
import time
from collections import Counter, OrderedDict
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

import aiohttp_jinja2
import jinja2
from aiohttp import web
from textual_serve.server import Server

from unoplay.channel import TAB_TAG_ENV, tab_tag
from unoplay.throttle import network_of, uncount

from .webguard import (
    ALL_INTERFACES,
    KEEPALIVE_TIMEOUT,
    ConnectionGuard,
    HostCheck,
    log_every,
    quiet_accept_errors,
    quiet_bad_requests,
    raise_open_files,
)
from .webtab import QUIT_GRACE, Tab

TITLE = "UNO"  #: the page's title (and the name on its loading screen)
#: tabs served at once: each is a process of about 70 MB on this machine
MAX_SESSIONS = 32
#: one address may hold 1/TAB_SHARES of the tabs (at least one)
TAB_SHARES = 4
#: seconds a page's websocket token lasts (the page opens its websocket as it loads)
TOKEN_TTL = 120.0


def tabs_per_address() -> int:
    """The tabs one address may hold at once: its share of :data:`MAX_SESSIONS`."""
    return max(1, MAX_SESSIONS // TAB_SHARES)


class PageTokens:
    """The one-time tokens of the pages served: each page's websocket URL
    carries one (``/ws/<token>``), good for one websocket from the address
    that got the page, within :data:`TOKEN_TTL` seconds. At most twice an
    address's share of tabs wait per address, and four times
    :data:`MAX_SESSIONS` in all: the oldest go first."""

    def __init__(self) -> None:
        self._tokens: OrderedDict[str, tuple[str, float]] = OrderedDict()
        self._by_address: Counter[str] = Counter()

    def issue(self, address: str) -> str:
        """A new token for a page served to ``address``."""
        self._expire()
        while self._by_address[address] >= 2 * tabs_per_address():
            oldest = next(t for t, (a, _) in self._tokens.items() if a == address)
            self._drop(oldest)
        while len(self._tokens) >= max(1, 4 * MAX_SESSIONS):
            self._drop(next(iter(self._tokens)))
        token = secrets.token_urlsafe(16)
        self._tokens[token] = (address, time.monotonic() + TOKEN_TTL)
        self._by_address[address] += 1
        return token

    def take(self, token: str, address: str) -> bool:
        """Whether ``token`` was issued to ``address`` and is still good; it
        is used up either way."""
        self._expire()
        entry = self._tokens.get(token)
        if entry is None:
            return False
        self._drop(token)
        return secrets.compare_digest(entry[0], address)

    def _drop(self, token: str) -> None:
        address, _ = self._tokens.pop(token)
        uncount(self._by_address, address)

    def _expire(self) -> None:
        now = time.monotonic()
        while self._tokens:
            token, (_, expires) = next(iter(self._tokens.items()))
            if expires > now:
                break
            self._drop(token)


log = logging.getLogger("unoplay.web")


def session_command(
    target: str, play_args: Sequence[str] = (), *, tls_ca: str | None = None
) -> str:
    """The shell command one browser tab runs: ``uno play`` against ``target``."""
    argv = [sys.executable, "-m", "unoplay.client.cli"]
    if tls_ca:
        argv += ["--tls-ca", tls_ca]
    argv += ["play", "--server", target, "--memory-seats", *play_args]
    # exec: the session is this server's own child, so it sees this server go
    # (client/tui/app.py quits when its parent changes: its stdin's end does not).
    return "exec " + shlex.join(argv)


# textual-serve's page leaves the terminal unfocused: keys do nothing until a
# click (which the game takes too, as a click on a card or the pile), and the
# app, which starts blurred, hides its footer of keys. Focus the terminal once
# the app has drawn its first screen, so that the "focus" textual.js sends on
# it reaches a running app (sent earlier, it is lost or undone by the app's start).
_FOCUS = """    <script>
      new MutationObserver((changes, observer) => {
        if (!document.body.classList.contains("-first-byte")) return;
        observer.disconnect();
        const input = document.querySelector(".xterm-helper-textarea");
        if (input) { input.blur(); input.focus(); }
      }).observe(document.body, {attributes: true, attributeFilter: ["class"]});
    </script>
"""


class UnoWebServer(Server):
    """textual-serve's page and assets, with the game's title, URLs taken from
    the request and no font fetched from the internet; the tabs' websockets are
    this module's own (:class:`.webtab.Tab`), with their own checks: the Host
    and Origin of every request, :data:`MAX_SESSIONS` live tabs at most."""

    def __init__(self, command: str, hosts: HostCheck, tab_key: bytes | None = None) -> None:
        super().__init__(command, title=TITLE)
        self.hosts = hosts
        self.tab_key = tab_key
        self.tabs: set[Tab] = set()  #: tabs whose process has not been reaped yet
        self.tabs_of: Counter[str] = Counter()  #: those tabs, by address (network_of)
        self.tokens = PageTokens()
        #: the connections' guard, once listening (a request marks its connection served)
        self.guard: ConnectionGuard | None = None

    async def make_app(self) -> web.Application:
        """textual-serve's routes, but: the websocket at ``/ws/<token>`` only
        (``/ws``, which the template names, is refused), no downloads (the
        game has none), no directory listings under ``/static/``."""
        app = web.Application(middlewares=[self._only_own_hosts])
        aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(self.templates_path))
        app.add_routes(
            [
                web.get("/", self.handle_index, name="index"),
                web.get("/ws", self.handle_tokenless, name="websocket"),
                web.get("/ws/{token}", self.handle_websocket, name="tab"),
                web.static("/static", self.statics_path, show_index=False, name="static"),
            ]
        )
        app.on_startup.append(self.on_startup)
        app.on_shutdown.append(self.on_shutdown)
        return app

    @web.middleware
    async def _only_own_hosts(self, request: web.Request, handler: Any) -> web.StreamResponse:
        """421 for a Host that is not this server's (DNS rebinding), 403 for a
        websocket from a page of another origin."""
        if self.guard is not None and request.transport is not None:
            self.guard.served(request.transport)
        if not self.hosts.allows(request):
            log_every(logging.WARNING, "host", "refused a request for host %r", request.host)
            raise web.HTTPMisdirectedRequest(text="uno web: not a host of this server")
        origin = request.headers.get("Origin")
        if origin and urlsplit(origin).netloc.lower() != request.host.lower():
            raise web.HTTPForbidden(text="uno web: sessions are opened by its own page only")
        return await handler(request)

    async def on_startup(self, app: web.Application) -> None:
        """No banner: ``uno web`` prints where to point a browser itself."""

    async def on_shutdown(self, app: web.Application) -> None:
        """End every tab now: each child is asked to quit (then terminated,
        then killed) and reaped (aiohttp would first wait for the tabs)."""
        for tab in self.tabs:
            tab.end("the web server stops")
        if self.tabs:
            await asyncio.wait([tab.finished for tab in self.tabs], timeout=4 * QUIT_GRACE)

    async def handle_index(self, request: web.Request) -> web.StreamResponse:
        # The page's URLs (its websocket above all) are the ones this browser
        # came by (a Host checked above), so a browser on another machine
        # reaches back to this one whatever --host is (textual-serve would
        # write ws://0.0.0.0:PORT). Nothing in between awaits, so a concurrent
        # request cannot change it.
        self.public_url = f"{request.scheme}://{request.host}"
        response = await super().handle_index(request)
        if isinstance(response, web.Response) and response.text:
            page = response.text.replace("<head>", f"<head>\n    <title>{TITLE}</title>", 1)
            page = page.replace("</body>", _FOCUS + "  </body>", 1)
            token = self.tokens.issue(network_of(request.remote or ""))
            page = re.sub(
                r'(data-session-websocket-url="[^"]*/ws)"', rf'\1/{token}"', page, count=1
            )
            # The template asks Google Fonts for Roboto Mono: a request to the
            # internet from every LAN browser, which without one can hold the
            # page's start. The terminal falls back to the system's monospace.
            response.text = re.sub(r"<link[^>]*fonts\.googleapis\.com[^>]*>\s*", "", page)
        return response

    async def handle_tokenless(self, request: web.Request) -> web.StreamResponse:
        """A websocket without its page's token: refused."""
        raise web.HTTPForbidden(text="uno web: a tab is opened by its page only")

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        """A tab: its page's one-time token (403 without), within the caps:
        :data:`MAX_SESSIONS` in all (503), an address's share
        (:func:`tabs_per_address`, 429)."""
        address = network_of(request.remote or "")
        if not self.tokens.take(request.match_info.get("token", ""), address):
            log_every(logging.WARNING, "token", "refused a tab without its page's token")
            raise web.HTTPForbidden(text="uno web: a tab is opened by its page only")
        if len(self.tabs) >= MAX_SESSIONS:
            log_every(logging.WARNING, "tabs", "refused a tab: %d tabs are open", len(self.tabs))
            raise web.HTTPServiceUnavailable(text=f"uno web: {MAX_SESSIONS} tabs at most")
        share = tabs_per_address()
        if self.tabs_of[address] >= share:
            log_every(logging.WARNING, "share", "refused a tab: %s has %d tabs", address, share)
            raise web.HTTPTooManyRequests(text=f"uno web: {share} tabs an address at most")
        env = {}
        if self.tab_key is not None:  # a client of its own to the game server (unoplay.channel)
            env[TAB_TAG_ENV] = tab_tag(self.tab_key, secrets.token_hex(8))
        tab = Tab(self.command, env)
        self.tabs.add(tab)
        self.tabs_of[address] += 1

        def reaped(_: object) -> None:
            self.tabs.discard(tab)
            uncount(self.tabs_of, address)

        tab.finished.add_done_callback(reaped)
        return await tab.run(request)


class WebSite:
    """The web server, started inside the running event loop. ``allow_hosts``:
    Host names it answers to beyond its own (``--allow-host``); ``tab_key``:
    the key the game server checks the tabs' tags with, when it has one
    (``start_server(tab_key=...)``: each tab is then a client of its own)."""

    def __init__(
        self, command: str, allow_hosts: Sequence[str] = (), tab_key: bytes | None = None
    ) -> None:
        self.command = command
        self.allow_hosts = tuple(allow_hosts)
        self.tab_key = tab_key
        self.server: UnoWebServer | None = None
        self.guard: ConnectionGuard | None = None
        self.runner: web.AppRunner | None = None
        self.port = 0

    async def start(self, host: str, port: int) -> int:
        """Listen on ``host:port`` (0: any free port); returns the port.
        Raises RuntimeError when it cannot listen there."""
        hosts = HostCheck(host, self.allow_hosts)
        self.server = UnoWebServer(self.command, hosts, self.tab_key)
        app = await self.server.make_app()
        quiet_accept_errors(asyncio.get_running_loop())
        quiet_bad_requests()
        # Tabs are ended by on_shutdown; anything else gets 2 s, not aiohttp's 60.
        self.runner = web.AppRunner(
            app, shutdown_timeout=2.0, access_log=None, keepalive_timeout=KEEPALIVE_TIMEOUT
        )
        await self.runner.setup()
        assert self.runner.server is not None
        self.guard = self.server.guard = ConnectionGuard.for_open_files(
            raise_open_files(), MAX_SESSIONS
        )
        self.guard.install(self.runner.server)
        site = web.TCPSite(self.runner, host or None, port)
        try:
            await site.start()
        except OSError as err:
            await self.stop()
            raise RuntimeError(f"cannot listen on {host}:{port}: {err.strerror or err}") from None
        self.port = hosts.port = self.runner.addresses[0][1]
        return self.port

    async def stop(self) -> None:
        """Stop listening and end every tab (each ``uno play`` is told to quit,
        and made to)."""
        runner, self.runner = self.runner, None
        if runner is not None:
            await runner.cleanup()


def urls(host: str, port: int) -> list[str]:
    """Where a browser finds the page: this machine, then (when listening on
    every interface) the LAN name of this machine."""
    if host in ALL_INTERFACES:
        return [f"http://127.0.0.1:{port}/", f"http://{socket.gethostname()}:{port}/"]
    shown = f"[{host}]" if ":" in host and not host.startswith("[") else host
    return [f"http://{shown}:{port}/"]


def announce(host: str, port: int, what: str) -> None:
    """Print (stdout, flushed) where to open the page."""
    first, *others = urls(host, port)
    line = f"uno web: open {first} in a browser ({what})"
    if others:
        line += "; from another machine: " + " or ".join(others)
    print(line, flush=True)


def play_arguments(args: Any) -> list[str]:
    """The ``uno play`` options of ``uno web`` (or ``uno serve --web``), for each tab."""
    out: list[str] = []
    if getattr(args, "new_table", False):
        out.append("--new-table")
    if getattr(args, "name", ""):
        out += ["--name", args.name]
    for flag, name in (
        ("--bots", "bots"),
        ("--rules", "rules"),
        ("--turn-seconds", "turn_seconds"),
        ("--target", "target"),
        ("--bot-delay", "bot_delay"),
        ("--seed", "seed"),
    ):
        value = getattr(args, name, None)
        if value is not None:
            out += [flag, str(value)]
    for rule in getattr(args, "rule", None) or ():
        out += ["--rule", rule]
    return out
