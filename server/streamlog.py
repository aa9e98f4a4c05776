"""One stream's messages: what a seat (or the spectators) of a table has been
sent, numbered 1, 2, ..., bounded, kept in the form the wire sends.

A message is encoded once, when it is appended (:func:`.wire.message_body`);
public events are encoded once for every seat's log and share their bytes.
A log keeps the newest ``max_messages`` messages and at most ``max_bytes`` of
them (always the newest one), and the latest update for snapshots: what a
stream that dropped for a while needs to resume exactly. A stream resumed from
before the oldest message kept starts with a snapshot of now and goes on with
the messages kept (proto/README.md, section 6). A log of a seat no stream can
ever open (a server-side bot's) keeps nothing but its count.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator

from unoplay.game.messages import Message, Update

from . import wire


class StreamLog:
    """The messages of one stream (see the module docstring). ``len()`` is the
    seq of the newest message, ``first_seq`` the seq of the oldest kept;
    indexing by ``seq - 1`` and iterating give the kept messages as game
    values (decoded again: for tests and tools, not the hot path)."""

    __slots__ = (
        "_bodies",
        "bytes",
        "first_seq",
        "max_bytes",
        "max_messages",
        "next_seq",
        "seat",
        "update",
        "update_seq",
    )

    def __init__(self, seat: int, max_messages: int, max_bytes: int) -> None:
        """A log for ``seat`` (-1: the spectators); ``max_messages`` 0 keeps nothing."""
        self.seat = seat
        self.max_messages = max_messages
        self.max_bytes = max_bytes
        self._bodies: deque[bytes] = deque()
        self.bytes = 0  # of the bodies kept
        self.first_seq = 1
        self.next_seq = 1
        self.update = b""  # the newest update, an encoded PlayerUpdate (b"": none yet)
        self.update_seq = 0

    def __len__(self) -> int:
        return self.next_seq - 1

    def append(self, message: Message) -> int:
        """Add ``message``; returns its seq. Drops the oldest messages past the bounds."""
        if isinstance(message, Update):
            return self.append_update(wire.update_pb(message) if self.max_messages else b"")
        return self._add(wire.message_body(message) if self.max_messages else b"")

    def append_update(self, update: bytes) -> int:
        """Add an update already encoded (a PlayerUpdate: :class:`wire.UpdateEncoder`);
        returns its seq."""
        seq = self._add(wire._field(wire._UPDATE, update) if self.max_messages else b"")
        if self.max_messages:
            self.update = update
            self.update_seq = seq
        return seq

    def _add(self, body: bytes) -> int:
        seq = self.next_seq
        self.next_seq = seq + 1
        if not self.max_messages:
            self.first_seq = self.next_seq
            return seq
        bodies = self._bodies
        bodies.append(body)
        self.bytes += len(body)
        while len(bodies) > 1 and (len(bodies) > self.max_messages or self.bytes > self.max_bytes):
            self.bytes -= len(bodies.popleft())
            self.first_seq += 1
        return seq

    def extend(self, messages: Iterable[Message]) -> None:
        for message in messages:
            self.append(message)

    def trim(self, keep: int) -> None:
        """Keep only the newest ``keep`` (>= 1) messages."""
        bodies = self._bodies
        while len(bodies) > keep:
            self.bytes -= len(bodies.popleft())
            self.first_seq += 1

    def bodies(self, after: int, limit: int, limit_bytes: int) -> tuple[int, list[bytes]]:
        """(seq of the first, encoded bodies) of the messages after seq
        ``after``, from the oldest kept if ``after`` is older, at most
        ``limit`` of them and about ``limit_bytes`` (at least one)."""
        start = max(after + 1, self.first_seq)
        out: list[bytes] = []
        size = 0
        bodies = self._bodies
        for i in range(start - self.first_seq, len(bodies)):
            body = bodies[i]
            if out and (len(out) >= limit or size + len(body) > limit_bytes):
                break
            out.append(body)
            size += len(body)
        return start, out

    def __iter__(self) -> Iterator[Message]:
        for body in self._bodies:
            message = wire.body_message(body, self.seat)
            assert message is not None
            yield message

    def __getitem__(self, index: int) -> Message:
        seq = index + 1 if index >= 0 else self.next_seq + index
        if not self.first_seq <= seq < self.next_seq:
            raise IndexError(f"message {seq} is not kept (kept: {self.first_seq}..{len(self)})")
        message = wire.body_message(self._bodies[seq - self.first_seq], self.seat)
        assert message is not None
        return message
