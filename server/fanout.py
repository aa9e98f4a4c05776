"""Who is told what, and when: a table's per-seat message logs and the
spectators', and the streams woken to send them.

Every log entry is fixed when it is appended (an update carries the seat
list as it was then), so a stream resumed at any sequence number sends
exactly what the first stream sent.

A change wakes at once the streams of the seat whose intent caused it and
of every seat that may act after it (legal actions: its turn, a catch, a
jump-in); the other seats' streams and the spectators' are woken at most
:data:`OBSERVER_DELAY` later, or sooner when they may act, and then send
every change since in one response (proto/README.md, section 2). A seat
that can do nothing with a change learns it a few tens of milliseconds
late; a busy table writes to them a fraction of the time. While the
server is saturated (:data:`BUSY_CHANGES` or more changes of its tables in
50 ms), the delay is :data:`OBSERVER_DELAY_BUSY` instead: at a hundred
tables of bots that never wait, most changes reached an observer on a write
of its own at 50 ms (3.5 writes an action; about 2.6 at 200 ms), and the
writes are most of the server's work. The seats that may act are never
delayed.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Coroutine, Iterable, Sequence
from typing import Any, Literal

from unoplay.game.actions import NONE, Action
from unoplay.game.deals import DealReveal
from unoplay.game.engine import GameState
from unoplay.game.events import EVERYONE, Event, visible
from unoplay.game.messages import Message, Refusal, SeatInfo, SeatsChanged, TableInfo, Welcome
from unoplay.wire import UpdateEncoder, event_body, seat_list_bytes, seat_list_pb

from .limits import Limits
from .seats import Seat, Seats
from .streamlog import StreamLog

#: Seconds a change may wait before it wakes the streams of the seats that
#: cannot act on it (and the spectators'): see the module docstring.
OBSERVER_DELAY = 0.05

#: The delay, and so the bound on how late an observer hears, while the
#: server is busy: :data:`BUSY_CHANGES` or more changes (of all its tables)
#: in the last :data:`OBSERVER_DELAY`.
OBSERVER_DELAY_BUSY = 0.2
BUSY_CHANGES = 50  # in 50 ms: 1,000 changes a second
#: Changes of one table an observer may be behind at most: past them the flush
#: comes at once, whatever the delay, so that a fast table never runs an
#: observer's stream past what its log keeps (``Limits.log_messages``, 1,024;
#: a change appends a few messages to each log).
MAX_HELD_CHANGES = 64


class _Pace:
    """The observers' delay of the whole process (every table's fan-out):
    each :data:`OBSERVER_DELAY` the changes of the last one are counted,
    and the next flushes wait :data:`OBSERVER_DELAY_BUSY` when they were
    :data:`BUSY_CHANGES` or more (a saturated server), else OBSERVER_DELAY
    (a realistic load: hundreds of tables of people or thinking bots)."""

    delay = OBSERVER_DELAY
    until = 0.0  # (time.monotonic) when the current count ends
    changes = 0  # changes since until - OBSERVER_DELAY

    @classmethod
    def change(cls, now: float) -> None:
        """Count a change at ``now``."""
        if now >= cls.until:
            busy = cls.changes >= BUSY_CHANGES and now < cls.until + OBSERVER_DELAY
            cls.delay = OBSERVER_DELAY_BUSY if busy else OBSERVER_DELAY
            cls.changes = 0
            cls.until = now + OBSERVER_DELAY
        cls.changes += 1


class LocalFeed:
    """What the seats of a table played in this process (:mod:`.localseat`)
    are told instead of logs, as game values their player takes as it reads
    them: the events each observing seat may see (``events``, by seat), and
    the seats whose intents were refused, in order (``refused``). Their views
    and legal actions the player reads from the game itself."""

    def __init__(self) -> None:
        self.seats: set[int] = set()  #: the seats played in this process
        self.events: dict[int, list[Event]] = {}  #: of the seats whose bot observes
        self.refused: list[int] = []


class Fanout:
    """The logs of a table's seats and spectators, and the wakes of their
    streams (see the module docstring). Runs on the table's event loop."""

    def __init__(self, seats: Seats, limits: Limits) -> None:
        """Logs for ``seats`` (each seat holds its own log) and the spectators,
        bounded by ``limits``."""
        self.seats = seats
        self.limits = limits
        self.spectator_log = StreamLog(-1, limits.log_messages, limits.log_bytes)
        self.touched = time.monotonic()  # the last change, for evicting idle tables
        self._changed = asyncio.Event()  # any change (watchers in this process)
        # what a stream of seat i waits on (index -1, the last: the spectators'),
        # made when a stream first waits (a bot's seat never has one)
        self._wakes: list[asyncio.Event | None] = [None] * (len(seats) + 1)
        self._streams = False  # has a stream waited (made one of those events)?
        self._deferred: set[int] = set()  # streams to wake at the flush (_Pace.delay later)
        self._flush: asyncio.TimerHandle | None = None
        self._held = 0  # changes since the flush was due (MAX_HELD_CHANGES)
        self._shown: tuple[SeatInfo, ...] = ()  # the seat list the table shows now
        self._shown_pb: bytes | None = None  # ... and as every update carries it
        #: the seats played in this process, with no log (:mod:`.localseat`)
        self.local = LocalFeed()

    # ------------------------------------------------------------ the logs

    def log_for(self, seat: int) -> StreamLog:
        """The message log of ``seat`` (-1: spectators); seq = index + 1."""
        return self.spectator_log if seat < 0 else self.seats[seat].log

    def open_log(self, seat: Seat, first: Message) -> None:
        """A new log for a person who sat at ``seat``, starting with ``first``."""
        seat.log = StreamLog(seat.index, self.limits.log_messages, self.limits.log_bytes)
        seat.log.append(first)

    def trim(self, keep: int) -> None:
        """Keep only the last ``keep`` messages of every log (a finished
        table's, once nobody reads it: ``Table.compact``)."""
        for seat in self.seats:
            seat.log.trim(keep)
        self.spectator_log.trim(keep)

    def play_here(self, seat: Seat, observes: bool) -> None:
        """``seat`` is played in this process (:mod:`.localseat`): its log
        keeps nothing (no update is encoded for it), and its events go to
        :attr:`local` when its player ``observes``."""
        self.close_log(seat)
        self.local.seats.add(seat.index)
        if observes:
            self.local.events[seat.index] = []

    def played_elsewhere(self, seat: Seat) -> None:
        """``seat`` is no longer played in this process (:meth:`play_here`)."""
        self.local.seats.discard(seat.index)
        self.local.events.pop(seat.index, None)

    def close_log(self, seat: Seat, first: Message | None = None) -> None:
        """A log that keeps nothing, for a seat no stream will open again (a
        bot's, a seat given up), counting from ``first`` when given."""
        seat.log = StreamLog(seat.index, 0, 0)
        if first is not None:
            seat.log.append(first)

    def welcome(self, info: TableInfo, commitment: str) -> None:
        """A game starts: every seat's log and the spectators' get the table's
        ``info`` and the deal's ``commitment`` (a Welcome of their own)."""
        for seat in self.seats:
            seat.log.append(Welcome(seat.index, info, commitment))
        self.spectator_log.append(Welcome(-1, info, commitment))

    def to_everyone(self, message: Message) -> None:
        """Append ``message`` to every seat's log that has one and the spectators'."""
        for seat in self.seats:
            if seat.log:
                seat.log.append(message)
        self.spectator_log.append(message)

    def reveal(self, deal: DealReveal | None) -> None:
        """The game is over: its ``deal``'s seed and salt to everyone at the
        table, so that its deals may be checked (nothing for no deal)."""
        if deal is not None:
            self.to_everyone(deal)

    def unwatched(self) -> None:
        """Keep no spectators' log until a spectator stream opens
        (:meth:`watched`): for a table whose seats are played in this process
        (a match's), where it would be encoded for nobody. A spectator who
        comes starts from an update of then, numbered on from the log's last
        message kept or counted (the changes meanwhile have no number)."""
        self.spectator_log.keep(0, 0)

    def watched(
        self,
        game: GameState | None,
        deadline: float,
        closes: float,
        reveal: DealReveal | None = None,
    ) -> None:
        """A spectator stream opens: a log kept nothing since :meth:`unwatched`
        keeps messages again, starting with the spectators' update of ``game``
        now (None: no game yet) and, for a game over, its ``reveal``;
        ``deadline`` and ``closes`` as :meth:`updates`."""
        log = self.spectator_log
        if log.max_messages:
            return
        log.keep(self.limits.log_messages, self.limits.log_bytes)
        if game is not None:
            self.update_now(-1, game, deadline, closes)
        if reveal is not None:
            log.append(reveal)

    def update_now(self, seat: int, game: GameState, deadline: float, closes: float) -> None:
        """Append ``seat``'s update of ``game`` now to its log (-1: the
        spectators'), ``deadline`` and ``closes`` as :meth:`updates`: a stream
        resumed, or watched again, ends its backlog with the view of now."""
        encoder = self.encoder(game, deadline, closes)
        self.log_for(seat).append_update(self.update_of(game, seat, encoder))

    def events(self, events: Sequence[Event]) -> None:
        """Append each of ``events`` to the logs of those who may see it
        (everyone's and a seat's own), each encoded once."""
        logs = [seat.log for seat in self.seats if seat.log.max_messages]  # not a bot's
        if self.spectator_log.max_messages:
            logs.append(self.spectator_log)
        if logs:
            bodies = [(e.audience, event_body(e)) for e in events]
            if all(audience == EVERYONE for audience, _ in bodies):  # most changes: one list
                public = [body for _, body in bodies]
                for log in logs:
                    log.extend(public)
            else:
                for log in logs:
                    _add_visible(log, bodies)
        if self.local.events:
            seen = list(events)
            for index, got in self.local.events.items():
                got += visible(seen, index)

    def refusal(self, seat: int, refusal: Refusal) -> None:
        """Append ``refusal`` to ``seat``'s log and wake its streams (only theirs)."""
        self.seats[seat].log.append(refusal)
        if seat in self.local.seats:
            self.local.refused.append(seat)
        self.touch()
        self.wake(seat)

    def show_seats(self, infos: tuple[SeatInfo, ...]) -> None:
        """The seat list the table shows from now on (every update carries it,
        encoded when the first one is)."""
        self._shown = infos
        self._shown_pb = None

    def seats_changed(self, infos: tuple[SeatInfo, ...]) -> None:
        """When ``infos`` differs from the seat list shown, show it and tell
        everyone seated and the spectators (SeatsChanged)."""
        if infos == self._shown:
            return
        self.show_seats(infos)
        message = SeatsChanged(infos)
        for seat in self.seats:
            if seat.occupied and seat.log:
                seat.log.append(message)
        self.spectator_log.append(message)

    def encoder(self, game: GameState, deadline: float, closes: float) -> UpdateEncoder:
        """The encoder of the updates of now (``deadline``: the turn timer's,
        ``closes``: the window's close, or 0.0)."""
        if self._shown_pb is None:
            self._shown_pb = seat_list_bytes(seat_list_pb(self._shown))
        return UpdateEncoder(game.view(-1), self._shown_pb, deadline, closes)

    def update_of(
        self,
        game: GameState,
        seat: int,
        encoder: UpdateEncoder,
        legal: list[Action] | None = None,
    ) -> bytes:
        """``seat``'s encoded update now: its hand, drawn card and legal actions
        (``legal``, when the caller has them already); -1, the spectators':
        none of them."""
        if seat < 0:
            return encoder.encode(-1, (), NONE, ())
        drawn = game.drawn_card if seat == game.current else NONE
        if legal is None:
            legal = game.legal_actions(seat)
        return encoder.encode(seat, game.hand(seat), drawn, legal)

    def updates(self, game: GameState, deadline: float, closes: float) -> list[int]:
        """Every seat's update (and the spectators'): its view now, its legal
        actions, the deadline, every seat's status, the window's close.
        Returns the seats with a stream that may act now (legal actions)."""
        encoder = None  # made when a log needs it (a match's table may have none)
        movers = []
        for seat in self.seats:
            if seat.log.max_messages:
                i = seat.index
                legal = game.legal_actions(i)
                if legal:
                    movers.append(i)
                encoder = encoder or self.encoder(game, deadline, closes)
                seat.log.append_update(self.update_of(game, i, encoder, legal))
        if self.spectator_log.max_messages:
            encoder = encoder or self.encoder(game, deadline, closes)
            self.spectator_log.append_update(self.update_of(game, -1, encoder))
        return movers

    # ------------------------------------------------------------ the wakes

    def wait_for_change(self, seat: int | None = None) -> Coroutine[Any, Any, Literal[True]]:
        """An awaitable that returns once something may have been appended to
        ``seat``'s log (-1: the spectators'; None: any log, at once), or
        streams must look at their state (the server is closing, a seat was
        given up); a seat that cannot act on a change is woken up to
        :data:`OBSERVER_DELAY` later (:data:`OBSERVER_DELAY_BUSY` when busy).
        The event's own ``wait()``: a stream
        waits after every change, so a coroutine of ours around it would be
        one more object each time for the collector."""
        if seat is None:
            return self._changed.wait()
        wake = self._wakes[seat]
        if wake is None:
            wake = self._wakes[seat] = asyncio.Event()
            self._streams = True
        return wake.wait()

    def notify(self) -> None:
        """Wake every stream of the table now."""
        self.touch()
        self._deferred.clear()
        self._held = 0
        for i in range(-1, len(self.seats)):
            self.wake(i)

    def notify_soon(self, now: Iterable[int]) -> None:
        """After a change every log got: wake the streams of the seats ``now``
        at once, the others' and the spectators' at the flush."""
        self.touch()
        if not self._streams:  # no stream has waited here (a match's table): nobody to wake
            return
        _Pace.change(self.touched)
        deferred = self._deferred
        deferred.update(range(-1, len(self.seats)))
        for i in now:
            if i in deferred:
                deferred.remove(i)
                self.wake(i)
        self._held += 1
        if self._held >= MAX_HELD_CHANGES:  # a fast table: flush now, not past the logs
            if self._flush is not None:
                self._flush.cancel()
            self._wake_deferred()
        elif self._flush is None:
            self._flush = asyncio.get_running_loop().call_later(_Pace.delay, self._wake_deferred)

    def _wake_deferred(self) -> None:
        """The flush: wake the streams whose change has waited."""
        self._flush = None
        self._held = 0
        for i in self._deferred:
            self.wake(i)
        self._deferred.clear()

    def touch(self) -> None:
        """A change: note its time (idle tables are evicted) and wake the watchers."""
        self.touched = time.monotonic()
        self._changed.set()
        self._changed.clear()

    def wake(self, seat: int) -> None:
        """Wake the streams of ``seat`` (-1: the spectators') now."""
        wake = self._wakes[seat]
        if wake is not None:
            wake.set()
            wake.clear()


def _add_visible(log: StreamLog, bodies: list[tuple[int, bytes]]) -> None:
    """Append to ``log`` the encoded events of ``bodies`` (audience, body) its
    seat (-1: the spectators) may see: everyone's and its own."""
    seat = log.seat
    log.extend([body for audience, body in bodies if audience in (EVERYONE, seat)])
