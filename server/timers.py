"""A table's pending timers (the turn timer, away grace, the round pause, the
out-of-turn window's close, bot turns): started on the running loop, and all
cancelled at once when the game ends or the server stops."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any


class Timers:
    """Loop callbacks due later, kept so that :meth:`cancel_all` can cancel them."""

    def __init__(self) -> None:
        #: (when, handle) of every timer not known to be done
        self._pending: list[tuple[float, asyncio.TimerHandle]] = []

    def live(self) -> int:
        """How many timers kept are not cancelled (some may have run already)."""
        return sum(not h.cancelled() for _, h in self._pending)

    def later(self, delay: float, callback: Callable[..., None], *args: Any) -> asyncio.TimerHandle:
        """Call ``callback(*args)`` in ``delay`` seconds on the running loop;
        returns its handle. Timers already due or cancelled are forgotten."""
        loop = asyncio.get_running_loop()
        now = loop.time()
        self._pending = [(w, h) for w, h in self._pending if not h.cancelled() and w > now]
        handle = loop.call_later(delay, callback, *args)
        self._pending.append((now + delay, handle))  # (a Handle may have no when(): uvloop's)
        return handle

    def cancel_all(self) -> None:
        """Cancel every pending timer."""
        for _, handle in self._pending:
            handle.cancel()
        self._pending.clear()
