"""What ``uno web`` lets in: its own hosts only, and a bounded number of
connections, each of which must send a request soon.

* :class:`HostCheck`: the Host header of every request must name this server
  (the address it listens on, the address the connection came to, loopback,
  this machine's names, or a name given with ``--allow-host``): a page of
  another site whose name was made to point here (DNS rebinding) gets 421.
* :class:`ConnectionGuard`: at most :data:`MAX_PER_ADDRESS` connections from
  one address and a total set by the open-file limit (raised to its hard
  limit at start, with room kept for the tabs' processes); a connection that
  has not sent a whole request in :data:`FIRST_REQUEST_TIMEOUT` seconds is
  closed. (aiohttp closes idle keep-alive connections after its
  ``keepalive_timeout``; websockets are pinged by their heartbeat.)
* :func:`quiet_accept_errors`: the event loop's "out of system resource"
  accept errors logged once per :data:`ACCEPT_LOG_EVERY` seconds with a count,
  never in a loop; :func:`quiet_bad_requests`: so are malformed requests
  (aiohttp logs each with its traceback).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import resource
import socket
from collections import Counter
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError

from unoplay.throttle import LogEvery

log = logging.getLogger("unoplay.web")

#: connections one client address may hold at once (a browser opens a few for
#: the page and one websocket a tab)
MAX_PER_ADDRESS = 128
#: seconds a new connection has to send its first whole request
FIRST_REQUEST_TIMEOUT = 10.0
#: seconds an idle keep-alive HTTP connection is kept
KEEPALIVE_TIMEOUT = 15.0
#: file descriptors kept for everything but connections: the tabs' pipes, the
#: game server, logs, the interpreter
FD_RESERVE_BASE = 64
FD_PER_TAB = 8
#: connections at once, whatever the open-file limit allows
MAX_CONNECTIONS = 4096
#: seconds between two log lines of the same accept error
ACCEPT_LOG_EVERY = 10.0
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
#: the listening addresses that mean every interface
ALL_INTERFACES = ("0.0.0.0", "", "::", "[::]")


def _bare(host: str) -> str:
    """A host name compared as such: lower case, no brackets, no final dot."""
    return host.strip("[]").rstrip(".").lower()


def machine_names() -> set[str]:
    """This machine's names and the addresses they resolve to (bare)."""
    names = {socket.gethostname(), socket.getfqdn()}
    names |= {name.split(".")[0] + ".local" for name in list(names) if name}
    addresses: set[str] = set()
    for name in names:
        with contextlib.suppress(OSError):
            for info in socket.getaddrinfo(name, None):
                addresses.add(str(info[4][0]))
    return {_bare(n) for n in names | addresses if n}


class HostCheck:
    """The Host names a request may carry (see the module's docstring).

    ``listen`` is the address listened on ("" or a wildcard for every
    interface), ``allowed`` more names (``--allow-host``); :attr:`port` is set
    once the site listens."""

    def __init__(self, listen: str, allowed: Iterable[str] = ()) -> None:
        self.names = {_bare(n) for n in (*LOOPBACK_NAMES, *allowed) if n}
        if listen not in ALL_INTERFACES:
            self.names.add(_bare(listen))
        self.names |= machine_names()
        self.port = 0

    def allows(self, request: web.Request) -> bool:
        """Whether ``request``'s Host names this server on its port."""
        try:
            parts = urlsplit("//" + request.host)
            name, port = parts.hostname, parts.port
        except ValueError:
            return False
        if "@" in parts.netloc or parts.path or parts.query or parts.fragment:
            return False  # not a host[:port]: the page would write it into its URLs
        if not name or (port or 80) != self.port:
            return False
        name = _bare(name)
        if name in self.names:
            return True
        sockname = request.transport.get_extra_info("sockname") if request.transport else None
        return sockname is not None and name == _bare(str(sockname[0]))


def raise_open_files() -> int:
    """Raise this process's soft limit of open files to its hard limit (as
    far as the system lets); returns the soft limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY:
        hard = max(soft, 65536)
    if soft < hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError):
            pass
    return soft


class ConnectionGuard:
    """Counts the web server's connections and closes those beyond its caps
    or without a request in time. Installed on an aiohttp server (its
    ``connection_made`` and ``connection_lost``) by :meth:`install`."""

    def __init__(self, max_total: int, max_per_address: int | None = None) -> None:
        self.max_total = max_total
        self.max_per_address = max_per_address or MAX_PER_ADDRESS
        self.by_address: Counter[str] = Counter()
        self._address: dict[asyncio.BaseTransport, str] = {}
        self._unserved: dict[asyncio.BaseTransport, asyncio.TimerHandle] = {}
        self.refused = 0  #: connections closed at once, over a cap

    @classmethod
    def for_open_files(cls, open_files: int, tabs: int) -> ConnectionGuard:
        """A guard whose total leaves room in ``open_files`` for ``tabs`` tabs."""
        room = open_files - FD_RESERVE_BASE - FD_PER_TAB * tabs
        return cls(max(16, min(MAX_CONNECTIONS, room)))

    def install(self, server: Any) -> None:
        """Wrap ``server``'s (an aiohttp ``web.Server``) connection callbacks."""
        made, lost = server.connection_made, server.connection_lost

        def connection_made(handler: Any, transport: asyncio.Transport) -> None:
            made(handler, transport)
            self.made(transport)

        def connection_lost(handler: Any, exc: BaseException | None = None) -> None:
            transport = getattr(handler, "transport", None)
            lost(handler, exc)
            if transport is not None:
                self.lost(transport)

        server.connection_made = connection_made
        server.connection_lost = connection_lost

    def made(self, transport: asyncio.Transport) -> None:
        """A connection opened: counted, or closed at once over a cap."""
        peer = transport.get_extra_info("peername")
        address = str(peer[0]) if peer else "?"
        total = len(self._address)
        if total >= self.max_total or self.by_address[address] >= self.max_per_address:
            self.refused += 1
            # Once aiohttp's handler has started (it is made after this call):
            # aborted now, its start would find the connection already lost.
            asyncio.get_running_loop().call_soon(transport.abort)
            return
        self._address[transport] = address
        self.by_address[address] += 1
        loop = asyncio.get_running_loop()
        self._unserved[transport] = loop.call_later(
            FIRST_REQUEST_TIMEOUT, self._too_slow, transport
        )

    def served(self, transport: asyncio.BaseTransport) -> None:
        """A whole request came on ``transport``: no first-request deadline."""
        handle = self._unserved.pop(transport, None)
        if handle is not None:
            handle.cancel()

    def _too_slow(self, transport: asyncio.Transport) -> None:
        if self._unserved.pop(transport, None) is not None:
            transport.abort()

    def lost(self, transport: asyncio.BaseTransport) -> None:
        """A connection closed."""
        self.served(transport)
        address = self._address.pop(transport, None)
        if address is not None:
            self.by_address[address] -= 1
            if self.by_address[address] <= 0:
                del self.by_address[address]

    @property
    def open(self) -> int:
        """Connections counted now."""
        return len(self._address)


#: uno web's rate-limited lines (one a key every ACCEPT_LOG_EVERY seconds)
log_every = LogEvery(log, ACCEPT_LOG_EVERY)


def quiet_accept_errors(loop: asyncio.AbstractEventLoop) -> None:
    """Log the loop's accept errors (``socket.accept() out of system
    resource``) through :data:`log_every`: once per :data:`ACCEPT_LOG_EVERY`
    seconds, with how many were not logged, never in a loop; everything else
    goes to the loop's default handler."""

    def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        message = str(context.get("message", ""))
        if "accept" not in message:
            loop.default_exception_handler(context)
            return
        log_every(logging.ERROR, message, "%s: %s", message, context.get("exception"))

    loop.set_exception_handler(handler)


class QuietBadRequests(logging.Filter):
    """A filter for aiohttp's server log: a malformed request (no Host, a
    header line past its limit, not HTTP) is logged by aiohttp with its
    traceback, some 700 bytes each, so a client sending them in a loop
    would write megabytes a second. Those go through :data:`log_every`
    instead: one line an interval, with a count."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, HttpProcessingError):
            log_every(
                logging.WARNING,
                "bad-request",
                "refused a malformed request (%s %s)",
                type(exc).__name__,
                exc.code,
            )
            return False
        return True


def quiet_bad_requests() -> None:
    """Install :class:`QuietBadRequests` on aiohttp's server log (once)."""
    logger = logging.getLogger("aiohttp.server")
    if not any(isinstance(f, QuietBadRequests) for f in logger.filters):
        logger.addFilter(QuietBadRequests())
