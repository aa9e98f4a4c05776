"""Log lines that a client can cause, rate-limited: a flood of them writes a
line an interval with a count, never one each (``uno web``'s bad requests
and accept errors, the arena's refusals and dropped entries)."""

from __future__ import annotations

import logging
import time
from collections import Counter


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
