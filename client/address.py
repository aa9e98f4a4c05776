"""How a server is named and why it cannot be reached: the one parser of
``HOST[:PORT]`` that every ``--server`` goes through (``uno play``, ``uno
web``, ``uno bot``, ``uno standings``, ``uno match``), and the sentences the
command line and the TUI say when a call to a server fails.

``HOST`` is a name, an IPv4 address or an IPv6 address in brackets
(``[::1]``); the port is 1..65535 and defaults to :data:`DEFAULT_PORT`, the
port ``uno serve`` listens on unless told otherwise. A canonical address
(``str(ServerAddress)``) is what gRPC dials: without the default a bare host
would be dialled on gRPC's own default port, 443.
"""

from __future__ import annotations

import ipaddress
import os
import re
from dataclasses import dataclass

from .sdk import TLS_CA_ENV, ServerError, ServerUnavailable

#: The port of ``uno serve`` (its --port default) and of an address without one.
DEFAULT_PORT = 50051
#: An address to show in messages.
EXAMPLE = f"192.168.1.20:{DEFAULT_PORT}"
#: The SDK's words when a server stops for good.
SHUTTING_DOWN = "the server is shutting down"

_LABEL = r"(?!-)[A-Za-z0-9_-]{1,63}(?<!-)"
_HOST_NAME = re.compile(rf"{_LABEL}(\.{_LABEL})*\.?")


class AddressError(ValueError):
    """A ``--server`` value that names no server (its text is one line)."""


@dataclass(frozen=True, slots=True)
class ServerAddress:
    """A server: ``host`` (a name or an address, IPv6 without brackets) and ``port``."""

    host: str
    port: int

    def __str__(self) -> str:
        """``host:port`` (``[host]:port`` for IPv6): the target gRPC dials."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"


def parse_server(text: str) -> ServerAddress:
    """The server ``text`` names: ``HOST``, ``HOST:PORT``, ``[IPV6]`` or
    ``[IPV6]:PORT`` (no port: :data:`DEFAULT_PORT`). Raises
    :class:`AddressError` for an empty text, a scheme, an empty host, a host
    that is neither a name nor an address, an IPv6 address without
    brackets, or a port that is not a number from 1 to 65535."""
    given = text.strip()
    if not given:
        raise AddressError(f"no address: give HOST or HOST:PORT, e.g. {EXAMPLE}")
    if "://" in given:
        raise AddressError(f"{given}: give HOST[:PORT] without a scheme, e.g. {EXAMPLE}")
    port_text: str | None
    if given.startswith("["):
        host, bracket, rest = given[1:].partition("]")
        if not bracket:
            raise AddressError(f"{given}: an IPv6 address in brackets ends with ']'")
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            raise AddressError(f"{given}: {host!r} is not an IPv6 address") from None
        if rest and not rest.startswith(":"):
            raise AddressError(f"{given}: only ':PORT' may follow ']'")
        port_text = rest[1:] if rest else None
    elif given.count(":") > 1:
        raise AddressError(
            f"{given}: an IPv6 address goes in brackets, as in [::1] or [::1]:{DEFAULT_PORT}"
        )
    else:
        host, colon, rest = given.partition(":")
        port_text = rest if colon else None
        if not host:
            raise AddressError(f"{given}: no host before the port, e.g. 127.0.0.1{given}")
        _check_host(host, given)
    port = DEFAULT_PORT if port_text is None else _port(port_text, given)
    return ServerAddress(host, port)


def _check_host(host: str, given: str) -> None:
    """Raise AddressError unless ``host`` is a host name or an IPv4 address."""
    numeric = host.rstrip(".").replace(".", "").isdigit()
    if numeric:
        try:
            ipaddress.IPv4Address(host)
        except ValueError:
            raise AddressError(f"{given}: {host!r} is not an IPv4 address") from None
    elif len(host) > 253 or not _HOST_NAME.fullmatch(host):
        raise AddressError(f"{given}: {host!r} is not a host name or address")


def _port(text: str, given: str) -> int:
    """The port ``text`` of the address ``given``; AddressError unless it is 1..65535."""
    if text.isascii() and text.isdigit() and 1 <= int(text) <= 65535:
        return int(text)
    what = f"no port after ':' in {given}" if not text else f"invalid port {text!r} in {given}"
    raise AddressError(f"{what}: a port is a number from 1 to 65535")


def server_target(text: str) -> str:
    """The canonical target of ``text`` (:func:`parse_server`), as gRPC dials it."""
    return str(parse_server(text))


def address_problem(target: str) -> str:
    """What is wrong with ``target`` before any network is asked (the
    reason :func:`parse_server` gives); "" when nothing is, or when there is
    no target at all (no ``--server``: the embedded server)."""
    if not target:
        return ""
    try:
        parse_server(target)
    except AddressError as err:
        return str(err)
    return ""


# ---------------------------------------------------------------- unreachable


def unreachable(target: str) -> str:
    """Nothing listens at ``target``."""
    return f"nothing answers at {target}: is uno serve running there?"


def timed_out(target: str) -> str:
    """``target`` took too long to answer."""
    return f"{target} did not answer in time (is the network up?)"


def error_words(err: Exception, target: str) -> str:
    """``err`` (a call to ``target`` that failed) as a sentence a person can
    act on, never grpc's raw text."""
    if not isinstance(err, ServerError):
        return str(err) or type(err).__name__
    details = err.details or ""
    if isinstance(err, ServerUnavailable):
        if address_problem(target):
            return address_problem(target)
        low = details.lower()
        if SHUTTING_DOWN in low:
            return f"the server at {target} is shutting down"
        if err.status == "DEADLINE_EXCEEDED" or "deadline" in low:
            return timed_out(target)
        if "ssl" in low or "handshake" in low or "tls" in low or "certificate" in low:
            return (
                f"{target} refused the connection's security: a server with TLS needs "
                "uno --tls-ca CERT, a plain one none"
            )
        if "socket closed" in low and not os.environ.get(TLS_CA_ENV):
            # something listens there and closed at once: a TLS server at a plain client
            return (
                f"{target} answered and closed the connection: a server with TLS needs "
                "uno --tls-ca CERT (or it is no uno server)"
            )
        if "resolving" in low or "lookup" in low or "name or service" in low:
            host = parse_server(target).host if target else "the server"
            return f"cannot find {host} on the network: is the name right?"
        if "failed to connect" in low or "connection refused" in low or "unavailable" in low:
            return unreachable(target)
        return f"{target} is out of reach ({details.split(';')[0]})"
    return details or err.status.lower().replace("_", " ")


async def reach_problem(target: str, timeout: float = 30.0) -> str | None:
    """Ask the server at ``target`` for its tables once: None when it
    answers, else why not (:func:`error_words`). For a command that would
    otherwise fail later, or far from the user (``uno match``'s workers)."""
    from .sdk import Connection

    try:
        async with Connection(target, timeout=timeout) as conn:
            await conn.list_tables()
    except ServerError as err:
        return error_words(err, target)
    except TimeoutError:
        return timed_out(target)
    return None


def bind_problem(host: str, port: int, flag: str = "--host") -> str | None:
    """Why a server (``uno serve``, ``uno web``) cannot listen on ``host:port``, found by binding a
    plain socket as grpc binds (SO_REUSEADDR on, so a closed server's
    lingering connections do not count): the name does not resolve, it is
    not an address of this machine, the port is in use, or it needs
    privileges. None when it can. grpc refuses too, but says only that it
    could not bind (and writes a C-level log line)."""
    import errno
    import socket

    name = host.strip("[]")
    try:
        infos = socket.getaddrinfo(
            name or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )
    except OSError as err:  # socket.gaierror: no such name
        return f"{flag} {host}: the name does not resolve ({err.strerror or err})"
    for family, kind, proto, _, address in infos:
        try:
            probe = socket.socket(family, kind, proto)
        except OSError:  # a family this machine lacks (IPv6 off): grpc skips it too
            continue
        with probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(address)
            except OSError as err:
                if err.errno == errno.EADDRINUSE:
                    return f"port {port} is in use (is another server there?)"
                if err.errno == errno.EADDRNOTAVAIL:
                    return f"{flag} {host} is not an address of this machine"
                if err.errno in (errno.EACCES, errno.EPERM):
                    other = f": use --port {DEFAULT_PORT}" if flag == "--host" else ""
                    return (
                        f"no permission to listen on port {port} (ports below 1024 need "
                        f"privileges{other})"
                    )
                return f"cannot listen on {host}:{port}: {err.strerror or err}"
    return None
