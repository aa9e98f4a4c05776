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
from collections.abc import Iterator

from unoplay import wire
from unoplay.game.messages import Message, Update

#: The highest seq a stream may resume after: far beyond any real stream, and
#: exact in every client's integers (JavaScript's too). A client's larger
#: ``last_seq`` is refused, never taken as the numbering of a restored log.
MAX_SEQ = 2**48

#: The highest seq a restored log may be numbered on from (:meth:`StreamLog.anchor`):
#: room for 2^32 messages after it before :data:`MAX_SEQ`, so that no first
#: stream (the spectators' log's is anyone's) can number a log where its
#: seqs run out and every later resume is refused.
MAX_ANCHOR = MAX_SEQ - 2**32

#: The most messages past a restored log's end that a client may have seen
#: (the crash lost them: its last 10-20 ms of changes, a few messages each):
#: a ``last_seq`` further on is refused.
MAX_LOST = 1024


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
        "restored",
        "seat",
        "unanchored",
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
        #: restored from the server's file (:mod:`.durable`): a client may have
        #: seen messages the crash lost (:meth:`skip_to`)
        self.restored = False
        #: restored, and no stream has opened since: its numbers are not fixed
        #: yet (:meth:`anchor`)
        self.unanchored = False

    def __len__(self) -> int:
        return self.next_seq - 1

    def keep(self, max_messages: int, max_bytes: int) -> None:
        """Keep up to ``max_messages`` messages and ``max_bytes`` of them
        from now on; 0 drops every message kept (only the count goes on)."""
        self.max_messages, self.max_bytes = max_messages, max_bytes
        if not max_messages:
            self._bodies.clear()
            self.bytes = 0
            self.first_seq = self.next_seq
            self.update, self.update_seq = b"", 0

    def append(self, message: Message) -> int:
        """Add ``message``; returns its seq. Drops the oldest messages past the bounds."""
        if isinstance(message, Update):
            return self.append_update(wire.update_pb(message) if self.max_messages else b"")
        return self.append_body(wire.message_body(message) if self.max_messages else b"")

    def append_update(self, update: bytes) -> int:
        """Add an update already encoded (a PlayerUpdate: :class:`wire.UpdateEncoder`);
        returns its seq."""
        seq = self.append_body(wire.update_body(update) if self.max_messages else b"")
        if self.max_messages:
            self.update = update
            self.update_seq = seq
        return seq

    def append_body(self, body: bytes) -> int:
        """Add a message already encoded (a TableMessage body:
        :func:`wire.message_body`); returns its seq."""
        seq = self.next_seq
        self.next_seq = seq + 1
        bodies = self._bodies
        if len(bodies) >= self.max_messages:  # full (or keeping nothing): the oldest goes
            if not self.max_messages:
                self.first_seq = seq + 1
                return seq
            self.bytes -= len(bodies.popleft())
            self.first_seq += 1
        bodies.append(body)
        self.bytes += len(body)
        if self.bytes > self.max_bytes:
            self.trim(1, self.max_bytes)
        return seq

    def extend(self, new: list[bytes]) -> None:
        """Add the messages ``new``, already encoded, as :meth:`append_body`
        each in turn would (the same messages kept), in one step."""
        count = len(new)
        if not count:
            return
        self.next_seq += count
        if not self.max_messages:
            self.first_seq = self.next_seq
            return
        bodies = self._bodies
        bodies.extend(new)
        self.bytes += sum(map(len, new))
        over = len(bodies) - self.max_messages
        while over > 0:
            self.bytes -= len(bodies.popleft())
            self.first_seq += 1
            over -= 1
        if self.bytes > self.max_bytes:
            self.trim(1, self.max_bytes)

    def resume(self, seen: int, shared: bool = False) -> int | None:
        """Ready the log for a stream resuming after seq ``seen`` (0: from
        the start); returns the seq to send after, or None for a ``seen``
        beyond what this stream can have sent (OUT_OF_RANGE). A restored log
        not numbered yet is numbered on from ``seen`` (:meth:`anchor`), at
        most :data:`MAX_ANCHOR`. Past
        the end of a restored log by at most :data:`MAX_LOST`, a seat's log
        goes on after ``seen`` (:meth:`skip_to`); a ``shared`` log (the
        spectators', anyone's to open) is not moved: that stream resumes from
        its end, its client skipping the seqs it saw, so that nobody can end
        the others' streams by moving it."""
        if seen > MAX_SEQ:
            return None
        if self.unanchored:  # the first stream since a restart: seqs go on from it
            if seen > MAX_ANCHOR:
                return None
            self.anchor(seen)
        end = len(self)
        if seen <= end:
            return seen
        if not self.restored or seen - end > MAX_LOST:
            return None
        if shared:
            return end
        # the client saw messages a crash lost: go on after them (a resume
        # appends the update of now)
        self.skip_to(seen)
        return seen

    def anchor(self, seen: int) -> None:
        """Number the messages of a restored log (:mod:`.durable`) on from
        ``seen``, the last seq its first stream since the restart saw: what
        it missed before the crash is gone (its state comes with the update
        of now), what it saw that the crash lost is never numbered again, so
        the stream goes on with no gap and no repeat."""
        shift = seen + 1 - self.first_seq
        self.first_seq += shift
        self.next_seq += shift
        if self.update_seq:
            self.update_seq += shift
        self.unanchored = False

    def skip_to(self, seq: int) -> None:
        """Go on after ``seq`` (beyond the newest message): a client of a
        restored log saw messages the crash lost; they are never numbered
        again. The messages kept go (the latest update stays, for snapshots)."""
        if seq >= self.next_seq:
            self._bodies.clear()
            self.bytes = 0
            self.next_seq = self.first_seq = seq + 1

    def trim(self, keep: int, max_bytes: int = 0) -> None:
        """Keep only the newest ``keep`` (>= 1) messages, or with ``max_bytes``
        the fewest newest ones, at least ``keep``, that fit in it."""
        bodies = self._bodies
        while len(bodies) > keep and (not max_bytes or self.bytes > max_bytes):
            self.bytes -= len(bodies.popleft())
            self.first_seq += 1

    def bodies(self, after: int, limit: int, limit_bytes: int) -> tuple[int, list[bytes]]:
        """(seq of the first, encoded bodies) of the messages after seq
        ``after``, from the oldest kept if ``after`` is older, at most
        ``limit`` of them and about ``limit_bytes`` (at least one)."""
        start = max(after + 1, self.first_seq)
        bodies = self._bodies
        count = self.next_seq - start
        if count <= limit and count <= 8:  # a live stream's usual few: read from the end
            out = [bodies[-k] for k in range(count, 0, -1)]
            if count <= 1 or sum(map(len, out)) <= limit_bytes:
                return start, out
        out = []
        size = 0
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
