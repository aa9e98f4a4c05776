"""What a server of ours uses to protect itself from its clients, the gRPC
server and ``uno web``'s page server alike: a token bucket per stream
(:class:`TokenBucket`), the network an address is counted as
(:func:`network_of`), a count that forgets what drops to zero
(:func:`uncount`) and log lines a client can cause, rate-limited
(:class:`LogEvery`: a flood of them writes a line an interval with a count,
never one each).

Plain values and the standard library: no gRPC objects, no I/O but the log.
"""

from __future__ import annotations

import ipaddress
import logging
import time
from collections import Counter


class TokenBucket:
    """Rate limiter for one stream: ``take()`` is False once the bucket is empty.

    ``now`` is a clock in seconds (the event loop's time); ``credit(n)`` adds
    tokens (capped at the burst size) for work the server asked of the client.
    """

    __slots__ = ("burst", "rate", "stamp", "tokens")

    def __init__(self, rate: float, burst: float, now: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.stamp = now

    def credit(self, tokens: float) -> None:
        self.tokens = min(self.burst, self.tokens + tokens)

    def take(self, now: float, cost: float = 1.0) -> bool:
        """Take ``cost`` tokens (refilled at ``rate`` a second since the last
        take, up to ``burst``) if the bucket holds them; False (nothing
        taken) otherwise."""
        tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if tokens < cost:
            self.tokens = tokens
            return False
        self.tokens = tokens - cost
        return True


def network_of(host: str) -> str:
    """What per-address limits count ``host`` (an IP address as text) as:
    itself, an IPv4-mapped IPv6 address as its IPv4 address, any other IPv6
    address as its /64 network (one machine gets a /64 to itself). Anything
    that is not an IP address is itself."""
    try:
        address = ipaddress.ip_address(host.strip("[]").split("%")[0])
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


def uncount(counts: Counter[str], key: str) -> None:
    """Take one from ``counts[key]`` and forget ``key`` at zero, so a count of
    what each client holds (tables, streams) keeps no key for a client that
    holds nothing."""
    left = counts[key] - 1
    if left > 0:
        counts[key] = left
    else:
        del counts[key]


class LogEvery:
    """Log lines of one kind (a key) to ``logger`` at most once per ``every``
    seconds, the next one saying how many were not logged."""

    def __init__(self, logger: logging.Logger, every: float = 10.0) -> None:
        self.logger = logger
        self.every = every
        self._last: dict[str, float] = {}
        self._skipped: Counter[str] = Counter()

    def __call__(self, level: int, key: str, message: str, *args: object) -> None:
        """Log ``message % args`` at ``level`` unless a line of ``key`` was
        logged less than ``every`` seconds ago (``time.monotonic()``)."""
        now = time.monotonic()
        if now - self._last.get(key, -self.every) < self.every:
            self._skipped[key] += 1
            return
        self._last[key] = now
        skipped = self._skipped.pop(key, 0)
        more = f" ({skipped} more since the last line)" if skipped else ""
        self.logger.log(level, message + more, *args)
