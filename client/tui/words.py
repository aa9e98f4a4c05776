"""What the TUI says in words: counted nouns, seat numbers, and a server's
failure as a sentence a person can act on (never grpc's raw text)."""

from __future__ import annotations

from ..sdk import ServerError, ServerUnavailable

#: The SDK's words when a server stops for good.
SHUTTING_DOWN = "the server is shutting down"


def plural(count: int, noun: str, many: str | None = None) -> str:
    """``"1 bot"``, ``"2 bots"`` (``many`` for an irregular plural)."""
    return f"{count} {noun if count == 1 else many or noun + 's'}"


def seat_number(seat: int) -> str:
    """A seat as people count them: seat 0 is "seat 1"."""
    return f"seat {seat + 1}"


def address_problem(target: str) -> str:
    """What is wrong with ``target`` (HOST:PORT) before any network is asked:
    a port that is not a number from 1 to 65535; "" when nothing is."""
    host, colon, port = target.rpartition(":")
    if not colon or not host:
        return ""
    if port.isdigit() and 1 <= int(port) <= 65535:
        return ""
    return f"invalid port {port!r} in {target}: a port is a number from 1 to 65535"


def unreachable(target: str) -> str:
    """Nothing listens at ``target``."""
    return f"nothing answers at {target}: is uno serve running there?"


def error_words(err: Exception, target: str) -> str:
    """``err`` (a call to ``target`` that failed) as a sentence."""
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
            return f"{target} did not answer in time (is the network up?)"
        if "ssl" in low or "handshake" in low or "tls" in low or "certificate" in low:
            return (
                f"{target} refused the connection's security: a server with TLS needs "
                "uno --tls-ca CERT, a plain one none"
            )
        if "resolving" in low or "lookup" in low or "name or service" in low:
            return f"cannot find {target.rsplit(':', 1)[0]} on the network: is the name right?"
        if "failed to connect" in low or "connection refused" in low or "unavailable" in low:
            return unreachable(target)
        return f"{target} is out of reach ({details.split(';')[0]})"
    return details or err.status.lower().replace("_", " ")
