"""LAN discovery over mDNS / DNS-SD with the ``zeroconf`` library.

``uno serve`` advertises itself as a ``_unoplay._tcp.local.`` service
(:class:`Advertiser`); the TUI's connect screen browses for such services
(:class:`Browser`) and lists what it finds next to a manual address field.

Both classes use ``zeroconf.asyncio`` and must be started inside a running
event loop. Nothing here is required to play: a failure to advertise or to
browse (no multicast, port 5353 taken) is reported to the caller, who carries on.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import socket
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from zeroconf import IPVersion, ServiceStateChange
from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf

log = logging.getLogger("unoplay.discovery")

#: The DNS-SD service type of an unoplay gRPC server.
SERVICE_TYPE = "_unoplay._tcp.local."
#: Bumped if the TXT properties change meaning.
TXT_VERSION = "1"
#: Milliseconds to wait for a service's address and port once it is seen.
RESOLVE_TIMEOUT_MS = 3000


@dataclass(frozen=True, slots=True)
class FoundServer:
    """A server seen on the LAN."""

    name: str  #: the service instance name, e.g. ``"uno on alice-laptop"``
    host: str  #: an IPv4 address (or host name) to connect to
    port: int  #: the gRPC port
    addresses: tuple[str, ...] = ()  #: every address it advertised

    @property
    def target(self) -> str:
        """``host:port`` for :class:`~unoplay.client.sdk.Connection`."""
        return f"{self.host}:{self.port}"


def local_ipv4_addresses() -> list[str]:
    """Non-loopback IPv4 addresses of this machine (may be empty)."""
    try:
        import ifaddr  # a dependency of zeroconf
    except ImportError:  # pragma: no cover - zeroconf always brings it
        return []
    found: list[str] = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            if isinstance(ip.ip, str):
                addr = ipaddress.IPv4Address(ip.ip)
                if not addr.is_loopback and not addr.is_link_local and ip.ip not in found:
                    found.append(ip.ip)
    return found


def _instance_label(text: str) -> str:
    """A DNS-SD instance label: at most 63 bytes, no dots."""
    text = text.replace(".", "-").strip() or "uno"
    return text.encode()[:63].decode(errors="ignore")


class Advertiser:
    """Advertise one server as ``SERVICE_TYPE`` until :meth:`close`.

    ``interfaces`` is a list of local IP addresses to answer on (default: all);
    ``addresses`` the addresses announced for the server (default: every
    non-loopback IPv4 address, or loopback when there is none).
    """

    def __init__(
        self,
        port: int,
        name: str | None = None,
        addresses: Sequence[str] | None = None,
        interfaces: Sequence[str] | None = None,
        properties: dict[str, str] | None = None,
    ) -> None:
        self.port = port
        self.name = _instance_label(name or f"uno on {socket.gethostname()}")
        self.addresses = list(addresses) if addresses else (local_ipv4_addresses() or ["127.0.0.1"])
        self.interfaces = list(interfaces) if interfaces else None
        self.properties = {"v": TXT_VERSION} | (properties or {})
        self._zc: AsyncZeroconf | None = None
        self._info: AsyncServiceInfo | None = None

    @property
    def registered_name(self) -> str:
        """The full service name actually registered (it may have been renamed)."""
        return self._info.name if self._info else f"{self.name}.{SERVICE_TYPE}"

    async def start(self) -> None:
        """Register the service (takes about a second: mDNS probes the name first).

        Raises OSError or a ``zeroconf`` exception when advertising is impossible.
        """
        kwargs: dict[str, Any] = {"ip_version": IPVersion.V4Only}
        if self.interfaces:
            kwargs["interfaces"] = self.interfaces
        self._zc = AsyncZeroconf(**kwargs)
        host = _instance_label(socket.gethostname()).replace(" ", "-")
        self._info = AsyncServiceInfo(
            SERVICE_TYPE,
            f"{self.name}.{SERVICE_TYPE}",
            port=self.port,
            addresses=[socket.inet_aton(a) for a in self.addresses],
            # A host name of its own per server: two servers on one machine (or a
            # server bound to one address) must not share address records.
            properties=self.properties,
            server=f"{host}-unoplay-{self.port}.local.",
        )
        try:
            await self._zc.async_register_service(self._info, allow_name_change=True)
        except BaseException:
            await self.close()
            raise
        log.info("advertising %s on %s port %d", self._info.name, self.addresses, self.port)

    async def close(self) -> None:
        """Withdraw the service and close the mDNS socket."""
        zc, self._zc = self._zc, None
        if zc is None:
            return
        try:
            if self._info is not None:
                await zc.async_unregister_service(self._info)
        except Exception:
            log.debug("unregister failed", exc_info=True)
        await zc.async_close()


class Browser:
    """Browse the LAN for servers until :meth:`close`.

    ``on_change`` (optional) is called with no arguments, from the event loop,
    whenever :attr:`servers` changes.
    """

    def __init__(
        self, on_change: Callable[[], None] | None = None, interfaces: Sequence[str] | None = None
    ) -> None:
        self.on_change = on_change
        self.interfaces = list(interfaces) if interfaces else None
        #: Full service name -> server, for every server resolved so far.
        self.servers: dict[str, FoundServer] = {}
        self._zc: AsyncZeroconf | None = None
        self._browser: AsyncServiceBrowser | None = None
        self._tasks: set[asyncio.Task] = set()
        self._changed = asyncio.Event()

    async def start(self) -> None:
        """Start browsing. Raises OSError when mDNS is not available here."""
        kwargs: dict[str, Any] = {"ip_version": IPVersion.V4Only}
        if self.interfaces:
            kwargs["interfaces"] = self.interfaces
        self._zc = AsyncZeroconf(**kwargs)
        self._browser = AsyncServiceBrowser(
            self._zc.zeroconf, SERVICE_TYPE, handlers=[self._on_service]
        )

    def _on_service(
        self, zeroconf, service_type: str, name: str, state_change: ServiceStateChange
    ) -> None:
        if state_change is ServiceStateChange.Removed:
            if self.servers.pop(name, None) is not None:
                self._notify()
            return
        task = asyncio.ensure_future(self._resolve(name))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _resolve(self, name: str) -> None:
        zc = self._zc
        if zc is None:
            return
        info = AsyncServiceInfo(SERVICE_TYPE, name)
        if not await info.async_request(zc.zeroconf, RESOLVE_TIMEOUT_MS):
            log.debug("could not resolve %s", name)
            return
        addresses = tuple(info.parsed_addresses(IPVersion.V4Only))
        if not addresses or not info.port:
            return
        label = name.removesuffix("." + SERVICE_TYPE)
        found = FoundServer(label, addresses[0], info.port, addresses)
        if self.servers.get(name) != found:
            self.servers[name] = found
            self._notify()

    def _notify(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()
        if self.on_change is not None:
            self.on_change()

    async def wait_for(
        self, predicate: Callable[[dict[str, FoundServer]], bool], timeout: float
    ) -> dict[str, FoundServer]:
        """Wait until ``predicate(servers)`` holds; raises asyncio.TimeoutError."""

        async def wait() -> None:
            while not predicate(self.servers):
                await self._changed.wait()

        await asyncio.wait_for(wait(), timeout)
        return self.servers

    async def close(self) -> None:
        """Stop browsing."""
        for task in list(self._tasks):
            task.cancel()
        browser, self._browser = self._browser, None
        if browser is not None:
            await browser.async_cancel()
        zc, self._zc = self._zc, None
        if zc is not None:
            await zc.async_close()
