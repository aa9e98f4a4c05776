"""Tables and the lobby: seats, secret seat tokens, bots in seats, the turn
timer, per-seat message logs for streaming and resuming, rounds of one game.

This layer owns one :class:`~.engine.GameState` per table and turns its events
into per-seat message logs. It knows nothing of gRPC: the service reads the
logs and converts them to the wire. It runs on one asyncio event loop (timers
and bot turns are loop callbacks); every method is called from that loop.
"""

from __future__ import annotations

import asyncio
import itertools
import secrets
import time
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Callable

from .actions import ACCEPT, DRAW, KEEP, Action, ActionKind, choose_colour
from .cards import COLOUR, WILD
from .engine import GameState, Phase, PlayerView
from .errors import IllegalAction, Reason
from .events import EVERYONE, Event
from .rules import MAX_PLAYERS, MIN_PLAYERS, RuleSet

MAX_TITLE = 40
MAX_NAME = 24
MAX_TURN_SECONDS = 3600
MAX_BOT_DELAY = 10.0


class TableState(Enum):
    """Lifecycle of a table."""

    WAITING = 1
    PLAYING = 2
    FINISHED = 3


class LobbyError(Exception):
    """A lobby request that cannot be served. ``kind`` maps to a gRPC status:
    ``invalid`` (INVALID_ARGUMENT), ``not_found``, ``unauthenticated``,
    ``failed_precondition``."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


@dataclass(frozen=True, slots=True)
class Welcome:
    """First message of every stream: the seat (-1 spectator) and table snapshot."""

    seat: int
    table: Any  # a TableInfo
    seed: int


@dataclass(frozen=True, slots=True)
class Update:
    """The seat's view after a change, its legal actions and the turn deadline.

    ``deadline`` is Unix seconds (0.0: no limit).
    """

    view: PlayerView
    legal: tuple[Action, ...]
    deadline: float


@dataclass(frozen=True, slots=True)
class Refusal:
    """An intent the seat sent that was refused; ``action_id`` 0 if none."""

    reason: str
    message: str
    action_id: int


Message = Welcome | Event | Update | Refusal


@dataclass
class Seat:
    """One seat: who sits there and the log of messages sent to it."""

    index: int
    name: str = ""
    token: str = ""
    bot: Any = None  # a client.bots.Bot, or None for a person
    connections: int = 0
    log: list[Message] = field(default_factory=list)

    @property
    def occupied(self) -> bool:
        return bool(self.name)

    @property
    def connected(self) -> bool:
        return self.bot is not None or self.connections > 0


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """Public facts about a seat."""

    seat: int
    name: str
    bot: bool
    occupied: bool
    connected: bool


@dataclass(frozen=True, slots=True)
class TableInfo:
    """Public snapshot of a table, for the lobby and Welcome messages."""

    table_id: str
    title: str
    seats: tuple[SeatInfo, ...]
    rules: RuleSet
    turn_seconds: int
    state: TableState
    scores: tuple[int, ...]


def _check_text(what: str, text: str, limit: int) -> str:
    text = text.strip()
    if not 1 <= len(text) <= limit or not text.isprintable():
        raise LobbyError("invalid", f"{what} must be 1..{limit} printable characters")
    return text


class Table:
    """One table: seats, a game, message logs and timers. See module docstring."""

    def __init__(self, table_id: str, title: str, seats: int, rules: RuleSet,
                 turn_seconds: int = 0, bot_delay: float = 0.0,
                 round_pause: float | None = None,
                 on_finish: Callable[[Table], None] | None = None) -> None:
        if not MIN_PLAYERS <= seats <= MAX_PLAYERS:
            raise LobbyError("invalid", f"seats must be {MIN_PLAYERS}..{MAX_PLAYERS}")
        if not 0 <= turn_seconds <= MAX_TURN_SECONDS:
            raise LobbyError("invalid", f"turn_seconds must be 0..{MAX_TURN_SECONDS}")
        if not 0 <= bot_delay <= MAX_BOT_DELAY:
            raise LobbyError("invalid", f"bot_delay_seconds must be 0..{MAX_BOT_DELAY:g}")
        self.table_id = table_id
        self.title = _check_text("title", title, MAX_TITLE)
        self.rules = rules
        self.turn_seconds = turn_seconds
        self.bot_delay = bot_delay
        self.round_pause = (3 * bot_delay if round_pause is None else round_pause)
        self.state = TableState.WAITING
        self.seats = [Seat(i) for i in range(seats)]
        self.spectator_log: list[Message] = []
        self.game: GameState | None = None
        self.history: list[tuple[int, Action]] = []  # every applied action, for replays
        self.on_finish = on_finish
        self._changed = asyncio.Event()
        self._deadline = 0.0
        self._version = 0  # bumps on every change; stale timers and bot turns check it
        self._timers: list[asyncio.TimerHandle] = []
        self.spectator_log.append(Welcome(-1, self.info(), 0))

    # ------------------------------------------------------------ lobby side

    def info(self) -> TableInfo:
        """A public snapshot of this table."""
        return TableInfo(
            self.table_id, self.title,
            tuple(SeatInfo(s.index, s.name, s.bot is not None, s.occupied, s.connected)
                  for s in self.seats),
            self.rules, self.turn_seconds, self.state,
            self.game.scores if self.game else ())

    def _free_seat(self, wanted: int | None) -> Seat:
        if self.state is not TableState.WAITING:
            raise LobbyError("failed_precondition", "the game has already started")
        if wanted is not None:
            if not 0 <= wanted < len(self.seats):
                raise LobbyError("invalid", f"there is no seat {wanted}")
            if self.seats[wanted].occupied:
                raise LobbyError("failed_precondition", f"seat {wanted} is taken")
            return self.seats[wanted]
        for seat in self.seats:
            if not seat.occupied:
                return seat
        raise LobbyError("failed_precondition", "the table is full")

    def join(self, name: str, wanted: int | None = None) -> Seat:
        """Seat a person; returns the seat with its new secret token."""
        name = _check_text("name", name, MAX_NAME)
        seat = self._free_seat(wanted)
        seat.name = name
        seat.token = secrets.token_urlsafe(16)  # 128 random bits
        seat.log = [Welcome(seat.index, self.info(), 0)]
        self._notify()
        return seat

    def add_bot(self, bot: Any, name: str, wanted: int | None = None) -> Seat:
        """Seat a server-side bot (an object with ``decide(view, legal)``)."""
        seat = self._free_seat(wanted)
        seat.name = _check_text("name", name, MAX_NAME)
        seat.bot = bot
        seat.token = ""
        seat.log = [Welcome(seat.index, self.info(), 0)]
        self._notify()
        return seat

    def seat_for_token(self, token: str) -> Seat:
        """The seat this token acts for. Raises LobbyError("unauthenticated")."""
        for seat in self.seats:
            if seat.token and secrets.compare_digest(seat.token, token):
                return seat
        raise LobbyError("unauthenticated", "that seat token is not valid at this table")

    def leave(self, token: str) -> None:
        """Give up a seat: freed while waiting; a greedy bot takes it in a game."""
        seat = self.seat_for_token(token)
        seat.token = ""
        if self.state is TableState.WAITING:
            self.seats[seat.index] = Seat(seat.index)
        else:
            from unoplay.client.bots import make_bot  # bots are pure strategy code

            seat.bot = make_bot("greedy")
            self._schedule_bots()
        self._notify()

    def start(self, seed: int | None = None) -> None:
        """Deal the first round. Raises LobbyError unless every seat is taken."""
        if self.state is not TableState.WAITING:
            raise LobbyError("failed_precondition", "the game has already started")
        if not all(s.occupied for s in self.seats):
            raise LobbyError("failed_precondition", "every seat must be taken to start")
        self.game, events = GameState.new(len(self.seats), self.rules, seed)
        self.state = TableState.PLAYING
        welcome_info = self.info()
        for seat in self.seats:
            seat.log.append(Welcome(seat.index, welcome_info, self.game.seed))
        self.spectator_log.append(Welcome(-1, welcome_info, self.game.seed))
        self._publish(events)

    # ------------------------------------------------------------ game side

    def log_for(self, seat: int) -> list[Message]:
        """The message log of ``seat`` (-1: spectators); seq = index + 1."""
        return self.spectator_log if seat < 0 else self.seats[seat].log

    async def wait_for_change(self) -> None:
        """Return once anything has been appended to any log."""
        await self._changed.wait()

    def act(self, seat: int, action: Action, action_id: int = 0) -> bool:
        """Apply an intent of ``seat``. Returns True if accepted; a refusal is
        appended to the seat's log (the game goes on)."""
        game = self.game
        if game is None or self.state is not TableState.PLAYING:
            reason = "game_over" if self.state is TableState.FINISHED else "game_not_started"
            self.refuse(seat, reason, "there is no game in progress", action_id)
            return False
        try:
            events = game.apply(seat, action)
        except IllegalAction as err:
            self.refuse(seat, err.reason.value, str(err), action_id)
            return False
        self.history.append((seat, action))
        self._publish(events)
        return True

    def attach(self, seat: int, resuming: bool = False) -> None:
        """A stream for ``seat`` opened. When ``resuming`` mid-game, a fresh
        update is appended to the seat's log, so the resumed stream ends its
        backlog with the current view and legal actions (an intent lost in the
        drop is simply decided again)."""
        self.seats[seat].connections += 1
        game = self.game
        if resuming and game is not None and self.state is TableState.PLAYING:
            self.seats[seat].log.append(
                Update(game.view(seat), tuple(game.legal_actions(seat)), self._deadline))
        self._notify()

    def detach(self, seat: int) -> None:
        """A stream for ``seat`` closed; the seat is kept."""
        self.seats[seat].connections -= 1
        self._notify()

    def close(self) -> None:
        """Cancel timers (server shutdown)."""
        for handle in self._timers:
            handle.cancel()
        self._timers.clear()

    def refuse(self, seat: int, reason: str, message: str, action_id: int) -> None:
        self.seats[seat].log.append(Refusal(reason, message, action_id))
        self._notify()

    def _notify(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    def _publish(self, events: list[Event]) -> None:
        """Append the events each seat may see, then every seat's update."""
        game = self.game
        assert game is not None
        self._version += 1
        self._deadline = 0.0
        if not game.is_round_over and self.turn_seconds:
            self._deadline = time.time() + self.turn_seconds
        for seat in self.seats:
            i = seat.index
            seat.log.extend(e for e in events if e.audience == EVERYONE or e.audience == i)
            seat.log.append(Update(game.view(i), tuple(game.legal_actions(i)), self._deadline))
        self.spectator_log.extend(e for e in events if e.audience == EVERYONE)
        self.spectator_log.append(Update(game.view(-1), (), self._deadline))
        self._notify()
        if game.is_game_over:
            self.state = TableState.FINISHED
            self.close()
            if self.on_finish:
                self.on_finish(self)
        elif game.is_round_over:
            self._later(self.round_pause, self._next_round, self._version)
        else:
            if self.turn_seconds:
                self._later(self.turn_seconds, self._timeout, self._version)
            self._schedule_bots()

    def _later(self, delay: float, callback: Callable[..., None], *args: Any) -> None:
        loop = asyncio.get_running_loop()
        self._timers = [h for h in self._timers if not h.cancelled() and h.when() > loop.time()]
        self._timers.append(loop.call_later(delay, callback, *args))

    def _next_round(self, version: int) -> None:
        if version == self._version and self.game and self.state is TableState.PLAYING:
            self._publish(self.game.next_round())

    def _timeout(self, version: int) -> None:
        """Turn timer: play the default action for the player to move."""
        game = self.game
        if version != self._version or game is None or game.is_round_over:
            return
        self.act(game.current, default_action(game))

    def _schedule_bots(self) -> None:
        game = self.game
        if game is None:
            return
        for seat in self.seats:
            if seat.bot is not None and game.legal_actions(seat.index):
                self._later(self.bot_delay, self._bot_turn, seat.index, self._version)

    def _bot_turn(self, seat: int, version: int) -> None:
        game = self.game
        if version != self._version or game is None or game.is_round_over:
            return
        legal = game.legal_actions(seat)
        if not legal:
            return
        bot = self.seats[seat].bot
        action = bot.decide(game.view(seat), legal)
        if action is None:
            return
        self.act(seat, action)


def default_action(game: GameState) -> Action:
    """The turn timer's move for the player to move: draw, then keep; accept a
    penalty; name the colour held most for a Wild starter."""
    phase = game.phase
    if phase is Phase.PLAY:
        return DRAW
    if phase is Phase.DRAWN:
        return KEEP
    if phase is Phase.PENALTY:
        return ACCEPT
    hand = game.hand(game.current)
    counts = [sum(1 for c in hand if COLOUR[c] == k) for k in range(4)]
    return choose_colour(counts.index(max(counts)))


class Lobby:
    """Every table of one server."""

    def __init__(self, max_tables: int = 1000) -> None:
        self.tables: dict[str, Table] = {}
        self.max_tables = max_tables
        self._ids = itertools.count(1)
        self.finished: list[Table] = []

    def create(self, title: str, seats: int, rules: RuleSet, turn_seconds: int = 0,
               bot_delay: float = 0.0) -> Table:
        """Create a table. Raises LobbyError for bad settings or too many tables."""
        if len(self.tables) >= self.max_tables:
            raise LobbyError("resource_exhausted", f"at most {self.max_tables} tables")
        number = next(self._ids)
        table_id = f"t{number}-{secrets.token_hex(3)}"
        table = Table(table_id, title or f"Table {number}", seats, rules, turn_seconds,
                      bot_delay, on_finish=self.finished.append)
        self.tables[table_id] = table
        return table

    def get(self, table_id: str) -> Table:
        """The table with this id. Raises LobbyError("not_found")."""
        table = self.tables.get(table_id)
        if table is None:
            raise LobbyError("not_found", f"no table {table_id!r}")
        return table

    def close(self) -> None:
        """Cancel every table's timers."""
        for table in self.tables.values():
            table.close()


__all__ = ["Lobby", "LobbyError", "Refusal", "Seat", "Table", "TableInfo", "TableState",
           "Update", "Welcome", "default_action", "Reason", "WILD", "ActionKind"]
