"""Open streams of one rpc counted per client, and bounded: so many from one
client (its address, as the other per-client limits count it) and so many in
all. For the streams whose only other bound is the server's memory: the
standard health service's Watch (server/health.py), server reflection, and
Spectate (a table's own bound, :attr:`.limits.Limits.max_spectators`, is
anyone's to fill).
"""

from __future__ import annotations

from collections import Counter


class OpenStreams:
    """The open streams of one rpc (``what``, named in refusals): a client may
    have ``per_client`` open, everyone ``total``."""

    def __init__(self, what: str, per_client: int, total: int) -> None:
        self.what = what
        self.per_client = per_client
        self.total = total
        self.open: Counter[str] = Counter()  #: open streams per client (none kept at 0)
        self._count = 0

    def enter(self, who: str) -> str | None:
        """A stream of client ``who`` opens: counted, and None; or, past a
        bound, why it may not (RESOURCE_EXHAUSTED), and not counted."""
        if self.open[who] >= self.per_client:
            return f"a client may have {self.per_client} {self.what} streams open"
        if self._count >= self.total:
            return f"the server has as many {self.what} streams open as it allows"
        self.open[who] += 1
        self._count += 1
        return None

    def leave(self, who: str) -> None:
        """A stream :meth:`enter` counted has ended."""
        self._count -= 1
        self.open[who] -= 1
        if not self.open[who]:
            del self.open[who]

    def __len__(self) -> int:
        """Streams open now."""
        return self._count
