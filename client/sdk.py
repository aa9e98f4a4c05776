"""The Python client SDK: one async connection class for lobby calls and game
streams, used alike by the TUI, the bots and the match runner.

Everything it hands out is a game value (``unoplay.game``): tables are
:class:`~unoplay.game.messages.TableInfo`, a stream yields :class:`Received`
messages (an event, an update, a refusal...), and a refusal of the server is
one of the exceptions below (:class:`ServerError`), so a program on top of it
(the TUI) needs neither grpc nor the generated code. The raw stubs stay
available as ``Connection.lobby`` and ``Connection.games`` for protocol work.
A received update is read from the wire field by field as the program asks
for them (:class:`~unoplay.wire.LazyUpdate`), so a bot that looks at
``state.legal`` first pays for the view only when it has a decision to make.

Create a :class:`Connection` inside a running event loop (grpc.aio channels
bind to the loop that exists when they are made).

TLS: pass ``root_certificates`` (PEM bytes of the CA, or of the server's
self-signed certificate) or set ``UNOPLAY_TLS_CA`` to the path of that file;
every Connection made without an explicit choice then uses TLS.
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, cast

import grpc

from unoplay import wire
from unoplay.channel import CLIENT_OPTIONS, TAB_AGENT, TAB_TAG_ENV  # noqa: F401 (for the TUI)
from unoplay.game.actions import Action
from unoplay.game.deals import DealCheck, DealReveal, check_deals
from unoplay.game.events import Event, EventKind
from unoplay.game.messages import (
    Message,
    Refusal,
    SeatInfo,
    SeatsChanged,
    TableInfo,
    Update,
    Welcome,
)
from unoplay.game.rules import RuleSet
from unoplay.game.view import Phase, PlayerView
from unoplay.v1 import arena_service_pb2 as arena_pb
from unoplay.v1 import arena_service_pb2_grpc as arena_grpc
from unoplay.v1 import game_pb2 as pb
from unoplay.v1 import game_service_pb2 as gs
from unoplay.v1 import game_service_pb2_grpc as gs_grpc
from unoplay.v1 import lobby_service_pb2 as ls
from unoplay.v1 import lobby_service_pb2_grpc as ls_grpc

log = logging.getLogger("unoplay.client")

#: Agrees with the server's keepalive policy (both come from proto/unoplay/channel.py).
CHANNEL_OPTIONS = CLIENT_OPTIONS
#: Environment variable naming a PEM file: its certificates are trusted for TLS.
TLS_CA_ENV = "UNOPLAY_TLS_CA"
#: Stream failures worth reconnecting after.
RETRYABLE = {
    grpc.StatusCode.UNAVAILABLE,
    grpc.StatusCode.INTERNAL,
    grpc.StatusCode.UNKNOWN,
    grpc.StatusCode.CANCELLED,
    grpc.StatusCode.DEADLINE_EXCEEDED,
    grpc.StatusCode.RESOURCE_EXHAUSTED,
}  # a stream over its budget: back off, resume
#: The server's words when it stops for good: its tables are gone, do not retry.
SHUTTING_DOWN = "the server is shutting down"
#: The server's words when it stops to start again with its tables (a clean
#: stop of ``uno serve`` with a file): keep reconnecting, for up to
#: :data:`RESTART_WAIT` seconds, and resume (proto/README.md, section 6).
RESTARTING = "the server is restarting"
RESTART_WAIT = 120.0
#: Seconds a stream write may take at most: grpc.aio's ``write()`` can wait
#: forever on a call cut while it was being set up (grpcio 1.85); such a
#: stream is cancelled and reopened.
WRITE_TIMEOUT = 10.0


class ServerError(Exception):
    """The server refused a call or a stream, or could not be reached.

    ``status`` is the gRPC status code's name (``"NOT_FOUND"``, ...) and the
    ``str()`` is the server's sentence. Subclasses say what it means for a
    client; the grpc error is the ``__cause__``."""

    def __init__(self, status: str, details: str) -> None:
        super().__init__(details)
        self.status = status
        self.details = details


class TableNotFound(ServerError):
    """No such table on this server (NOT_FOUND), or it is gone."""


class SeatGone(ServerError):
    """The seat token does not act for a seat at this table (UNAUTHENTICATED):
    a mistyped token, or a seat that was given up."""


class Refused(ServerError):
    """The server understood and refused: a bad value (INVALID_ARGUMENT), the
    wrong moment (FAILED_PRECONDITION: the game has started, the table is
    full), a limit (RESOURCE_EXHAUSTED), a resume point beyond the stream
    (OUT_OF_RANGE)."""


class ServerUnavailable(ServerError):
    """The server could not be reached or answer in time, or is shutting down
    (UNAVAILABLE, DEADLINE_EXCEEDED, and anything unexpected)."""


_ERRORS: dict[grpc.StatusCode, type[ServerError]] = {
    grpc.StatusCode.NOT_FOUND: TableNotFound,
    grpc.StatusCode.UNAUTHENTICATED: SeatGone,
    grpc.StatusCode.INVALID_ARGUMENT: Refused,
    grpc.StatusCode.FAILED_PRECONDITION: Refused,
    grpc.StatusCode.RESOURCE_EXHAUSTED: Refused,
    grpc.StatusCode.OUT_OF_RANGE: Refused,
    grpc.StatusCode.ALREADY_EXISTS: Refused,
    grpc.StatusCode.PERMISSION_DENIED: Refused,
}


def server_error(err: grpc.aio.AioRpcError) -> ServerError:
    """The :class:`ServerError` that ``err`` means."""
    code = err.code()
    return error_of(code.name, err.details() or code.name.lower().replace("_", " "))


def error_of(status: str, details: str) -> ServerError:
    """The :class:`ServerError` a call that ended with the gRPC status named
    ``status`` ("NOT_FOUND", ...) and ``details`` raises."""
    return _ERRORS.get(grpc.StatusCode[status], ServerUnavailable)(status, details)


_T = TypeVar("_T")


async def _answer(call: Awaitable[_T]) -> _T:
    try:
        return await call
    except grpc.aio.AioRpcError as err:
        raise server_error(err) from err


@dataclass(frozen=True, slots=True)
class ArenaStanding:
    """A name's record in a server's arena: games finished and won, the
    OpenSkill estimate ``mu`` and its uncertainty ``sigma``, ``rating`` =
    ``mu - 3 sigma`` (what the standings rank by), whether it waits in
    the queue or plays now, the distinct names it met in rated games and
    whether its rating is still provisional (too few of them)."""

    name: str
    games: int
    wins: int
    mu: float
    sigma: float
    rating: float
    waiting: bool = False
    playing: bool = False
    opponents: int = 0
    provisional: bool = False


@dataclass(frozen=True, slots=True)
class ArenaWelcome:
    """The first message of an arena entry: the name, its new ``secret`` on
    its first entry ("" after: keep the first one), what the arena plays,
    the name's standing, and the arena's turn timer in seconds (a seat the
    clock plays for twice in a row is given up; 0 from an older server)."""

    name: str
    secret: str
    seats: int
    rules: str
    target_score: int
    standing: ArenaStanding
    turn_seconds: int = 0


@dataclass(frozen=True, slots=True)
class ArenaSeat:
    """A game the arena seats you at: play it with
    ``Connection.session(table_id, seat_token)``."""

    table_id: str
    seat_token: str
    seat: int
    game: int


def _standing(msg: Any) -> ArenaStanding:
    return ArenaStanding(
        msg.name,
        msg.games,
        msg.wins,
        msg.mu,
        msg.sigma,
        msg.rating,
        msg.waiting,
        msg.playing,
        msg.opponents,
        msg.provisional,
    )


@dataclass(frozen=True, slots=True)
class Seated:
    """A seat taken: its index, the secret token that acts for it (empty for a
    server-side bot) and the table after it was taken."""

    seat: int
    seat_token: str
    table: TableInfo


@dataclass(frozen=True, slots=True)
class Received:
    """One message of a stream: its ``seq`` (1, 2, ..., jumping forward only
    after a resume from further back than the server keeps) and the
    ``message``: a :class:`~unoplay.game.messages.Welcome`, an
    :class:`~unoplay.game.events.Event`, an
    :class:`~unoplay.game.messages.Update`, a
    :class:`~unoplay.game.messages.Refusal`, a
    :class:`~unoplay.game.messages.SeatsChanged` or a
    :class:`~unoplay.game.deals.DealReveal`."""

    seq: int
    message: Message


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The opening snapshot of a stream: the receiver's state when it opened.
    Messages up to ``seq`` are history; ``update`` (None before the game
    starts) is the stream's latest update, number ``update_seq``."""

    seq: int
    welcome: Welcome
    update: Update | None
    update_seq: int


def read_root_certificates(path: str | os.PathLike | None = None) -> bytes | None:
    """PEM bytes from ``path``, or from ``$UNOPLAY_TLS_CA``; None for neither."""
    path = path or os.environ.get(TLS_CA_ENV)
    if not path:
        return None
    with open(path, "rb") as f:
        return f.read()


class Connection:
    """A connection to one server. Lobby calls return game values and raise
    :class:`ServerError` (one of its subclasses) when refused."""

    def __init__(
        self,
        target: str,
        timeout: float = 10.0,
        root_certificates: bytes | None = None,
        server_name: str | None = None,
        tls: bool | None = None,
        tab_tag: str | None = None,
    ) -> None:
        """``target`` is ``host:port``; ``timeout`` (seconds) bounds each unary call.

        TLS is used when ``root_certificates`` is given, or ``tls`` is True (the
        system's trusted CAs), or neither is given and ``$UNOPLAY_TLS_CA`` names a
        file. ``server_name`` overrides the name checked against the certificate
        (for a certificate made for another name than the address you dial).
        ``tab_tag``: the tag ``uno web`` gives each tab's session
        (``unoplay.channel.tab_tag``), carried in the channel's user agent.
        """
        self.target = target
        self.timeout = timeout
        if root_certificates is None and tls is None:
            root_certificates = read_root_certificates()
        self.tls = bool(tls) or root_certificates is not None
        options: list[tuple[str, int | str]] = list(CHANNEL_OPTIONS)
        if tab_tag:
            options.append(("grpc.primary_user_agent", TAB_AGENT + tab_tag))
        if self.tls:
            if server_name:
                options.append(("grpc.ssl_target_name_override", server_name))
            credentials = grpc.ssl_channel_credentials(root_certificates=root_certificates)
            self.channel = grpc.aio.secure_channel(target, credentials, options=options)
        else:
            self.channel = grpc.aio.insecure_channel(target, options=options)
        self.lobby = ls_grpc.LobbyServiceStub(self.channel)
        self.games = gs_grpc.GameServiceStub(self.channel)
        self.arena = arena_grpc.ArenaServiceStub(self.channel)

    async def __aenter__(self) -> Connection:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        """Close the channel (open streams end)."""
        await self.channel.close()

    async def wait_ready(self, timeout: float = 10.0) -> None:
        """Wait until the channel is connected. Raises asyncio.TimeoutError."""
        await asyncio.wait_for(self.channel.channel_ready(), timeout)

    async def create_table(
        self,
        seats: int = 4,
        rules: RuleSet | None = None,
        title: str = "",
        turn_seconds: int = 0,
        bot_delay: float = 0.0,
        away_grace: int | None = None,
        window_ms: int | None = None,
        seed: str | int | None = None,
        *,
        max_round_actions: int | None = None,
        preset: str = "",
        options: Mapping[str, Any] | None = None,
    ) -> TableInfo:
        """Create a table. The rules are ``rules`` (None: the official preset), or
        ``preset`` with ``options`` (option name -> value, as a form or a
        command line gives them: ``{"target_score": "300", "jump_in": "on"}``
        or the values themselves) judged by the server, which names the option
        it refuses (Refused). An unknown option or choice, or a value the
        request cannot carry (``-5`` for a count), raises
        :class:`~unoplay.game.rules.RuleError` (a ValueError) before anything
        is sent. ``away_grace`` None is the server's default
        (seconds before a bot plays for an away player); ``window_ms`` None is
        the server's default out-of-turn window (milliseconds; 0: none; see
        ``CreateTableRequest.window_ms``); ``seed`` makes a seeded table, dealt
        from that seed (for repeatable bot games; every seat sees
        ``TableInfo.seeded``); ``max_round_actions`` None is the server's cap on
        a round's actions (RULES.md, "Endless rounds")."""
        if preset or options:
            rules_pb = wire.rules_request_pb(preset or "official", options or {})
        else:
            rules_pb = wire.rules_pb(rules) if rules is not None else pb.RuleSet()
        request = ls.CreateTableRequest(
            title=title,
            seats=seats,
            rules=rules_pb,
            turn_seconds=turn_seconds,
            bot_delay_seconds=bot_delay,
            away_grace_seconds=away_grace,
            window_ms=window_ms,
            seed=None if seed is None else str(seed),
            max_round_actions=max_round_actions,
        )
        reply = await _answer(self.lobby.CreateTable(request, timeout=self.timeout))
        return wire.table_from_pb(reply.table)

    async def list_tables(self) -> list[TableInfo]:
        """Every table on the server, oldest first (a table whose rules this
        version does not know is left out)."""
        reply = await _answer(self.lobby.ListTables(ls.ListTablesRequest(), timeout=self.timeout))
        tables = []
        for table in reply.tables:
            try:
                tables.append(wire.table_from_pb(table))
            except ValueError:
                log.info("table %s: rules unknown to this version; not listed", table.table_id)
        return tables

    async def find_table(self, table_id: str) -> TableInfo | None:
        """The table ``table_id`` as the lobby lists it, or None when the server
        no longer holds it (there is no rpc for one table: this lists them all)."""
        return next((t for t in await self.list_tables() if t.table_id == table_id), None)

    async def join_table(self, table_id: str, name: str, seat: int | None = None) -> Seated:
        """Take a seat (``seat`` None: the lowest free one); the answer holds
        the secret ``seat_token``."""
        request = ls.JoinTableRequest(table_id=table_id, name=name, seat=seat)
        reply = await _answer(self.lobby.JoinTable(request, timeout=self.timeout))
        return Seated(reply.seat, reply.seat_token, wire.table_from_pb(reply.table))

    async def add_bot(
        self, table_id: str, kind: str = "greedy", seat: int | None = None, seat_token: str = ""
    ) -> Seated:
        """Put a server-side bot in a free seat (``kind``: random, greedy, ismcts, or
        a search bot with a budget such as ismcts@80ms: see AddBotRequest). At a
        table this client did not create, ``seat_token`` (a seat's at it) is
        needed: without it the call is refused (PERMISSION_DENIED)."""
        request = ls.AddBotRequest(table_id=table_id, kind=kind, seat=seat, seat_token=seat_token)
        reply = await _answer(self.lobby.AddBot(request, timeout=self.timeout))
        return Seated(reply.seat, "", wire.table_from_pb(reply.table))

    async def start_game(
        self, table_id: str, seat_token: str, seed: int | None = None
    ) -> TableInfo:
        """Start the game (every seat must be taken). ``seed`` only at a seeded
        table (Refused elsewhere)."""
        request = ls.StartGameRequest(table_id=table_id, seat_token=seat_token, seed=seed)
        reply = await _answer(self.lobby.StartGame(request, timeout=self.timeout))
        return wire.table_from_pb(reply.table)

    async def leave_table(self, table_id: str, seat_token: str) -> TableInfo:
        """Give up the seat."""
        request = ls.LeaveTableRequest(table_id=table_id, seat_token=seat_token)
        reply = await _answer(self.lobby.LeaveTable(request, timeout=self.timeout))
        return wire.table_from_pb(reply.table)

    async def rematch(self, table_id: str, seat_token: str) -> TableInfo:
        """Vote to play again once the game is over (RULES.md, "Rematch"); the
        table comes back playing if this was the last vote needed. Then open a
        new :meth:`session` with the old one's ``last_seq``: seq goes on."""
        request = ls.RematchRequest(table_id=table_id, seat_token=seat_token)
        reply = await _answer(self.lobby.Rematch(request, timeout=self.timeout))
        return wire.table_from_pb(reply.table)

    async def enter_arena(
        self, name: str, secret: str = ""
    ) -> AsyncGenerator[ArenaWelcome | ArenaSeat, None]:
        """Enter the server's arena under ``name`` (``secret``: the one the
        name's first entry was given; "" to register a new name) and stay in
        its queue: an :class:`ArenaWelcome`, then an :class:`ArenaSeat` for
        each game it seats you at, until the stream ends (closing the
        iterator leaves the queue). Raises :class:`ServerError` (SeatGone for
        a name registered with another secret)."""
        call = self.arena.Enter(arena_pb.EnterRequest(name=name, secret=secret))
        try:
            async for message in call:
                if message.HasField("welcome"):
                    w = message.welcome
                    yield ArenaWelcome(
                        w.name,
                        w.secret,
                        w.seats,
                        w.rules,
                        w.target_score,
                        _standing(w.standing),
                        w.turn_seconds,
                    )
                else:
                    a = message.seat
                    yield ArenaSeat(a.table_id, a.seat_token, a.seat, a.game)
        except grpc.aio.AioRpcError as err:
            raise server_error(err) from err
        finally:
            call.cancel()

    async def standings(self, limit: int = 0) -> list[ArenaStanding]:
        """The arena's standings, best first (at most ``limit`` rows; 0: all)."""
        reply = await _answer(
            self.arena.Standings(arena_pb.StandingsRequest(limit=limit), timeout=self.timeout)
        )
        return [_standing(row) for row in reply.standings]

    def session(self, table_id: str, seat_token: str, last_seq: int = 0) -> GameSession:
        """A game stream for the seat (not opened until iterated); ``last_seq``
        resumes after a message an earlier session (or process) saw."""
        return GameSession(self, table_id, seat_token, last_seq=last_seq)

    def spectate(self, table_id: str, last_seq: int = 0) -> SpectatorSession:
        """A spectator stream of the table (not opened until iterated): public
        events and views with no hand; ``last_seq`` resumes after a message an
        earlier spectator session saw."""
        return SpectatorSession(self, table_id, last_seq=last_seq)


_V = TypeVar("_V")
#: The private names of SessionState's fields that the latest update sets.
_LATEST_NAMES: list[str] = []


class _Latest(Generic[_V]):
    """A field of :class:`SessionState` that the latest update sets: read from
    it when first asked for (see :class:`~unoplay.wire.LazyUpdate`),
    unless it was set since (a SeatsChanged sets ``seats``)."""

    def __init__(self, default: _V, read: Callable[[Update], _V]) -> None:
        self.default = default
        self.read = read
        self.name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = "_" + name
        _LATEST_NAMES.append(self.name)

    def __get__(self, state: SessionState | None, owner: type | None = None) -> _V:
        if state is None:
            return self.default  # the dataclass's default
        d = state.__dict__
        if self.name in d:
            return cast(_V, d[self.name])
        update = d.get("_update")
        return self.default if update is None else self.read(update)

    def __set__(self, state: SessionState, value: _V) -> None:
        state.__dict__[self.name] = value


@dataclass
class SessionState:
    """What a session knows so far, built only from what the server sent.

    ``view``, ``legal``, ``seats``, ``table`` and ``deadline_ms`` are always the
    latest known: a stream's snapshot sets them first and the backlog it has
    already counted (seq up to ``snapshot_seq``) does not roll them back;
    ``events`` and ``errors`` get every message, backlog included. ``view``,
    ``legal``, ``seats``, ``deadline_ms`` and ``window_closes_ms`` come from
    the latest update (:meth:`take_update`), read from the wire when first
    asked for.
    """

    seat: int = -1
    table: TableInfo | None = None
    #: The commitment to this game's deals (Welcome.deal_commitment); "" before the start.
    commitment: str = ""
    #: The seed and salt, once the game is over (DealRevealed); None until then.
    reveal: DealReveal | None = None
    view: _Latest[PlayerView | None] = _Latest(None, lambda u: u.view)
    seats: _Latest[tuple[SeatInfo, ...]] = _Latest((), lambda u: u.seats)
    legal: _Latest[tuple[Action, ...]] = _Latest((), lambda u: u.legal)
    deadline_ms: _Latest[int] = _Latest(0, lambda u: round(u.deadline * 1000))
    #: an out-of-turn window closes then (Unix ms); 0: none
    window_closes_ms: _Latest[int] = _Latest(0, lambda u: round(u.window_closes * 1000))
    events: list[Event] = field(default_factory=list)
    errors: list[Refusal] = field(default_factory=list)
    snapshot_seq: int = 0  #: messages up to this seq were in the latest snapshot
    decide_from: int = 0  #: updates with a lower seq are stale: do not decide on them
    game_events_from: int = 0  #: index in ``events`` of this game's first event
    #: index in ``events`` of the first event after a gap in this game's
    #: messages (a resume from further back than the server still kept), -1:
    #: none; the deal of a game with a gap cannot be checked
    gap_at: int = -1

    def take_update(self, update: Update) -> None:
        """The latest update: ``view``, ``legal``, ``seats``, ``deadline_ms``
        and ``window_closes_ms`` are its, from now on."""
        d = self.__dict__
        d["_update"] = update
        for name in _LATEST_NAMES:
            d.pop(name, None)

    def deal_check(self) -> DealCheck | None:
        """Once the seed is revealed: every card this receiver saw checked
        against it (``check.fair``, ``check.problems``, ``check.checked``),
        and the commitment against the one sent at the start. None before the
        reveal, or when this session did not see the whole game (resumed in
        a new process, or after the server dropped messages it had not read:
        the deal cannot be replayed)."""
        if self.reveal is None or self.table is None or not self.commitment:
            return None
        if self.gap_at >= 0:
            return None
        events = self.events[self.game_events_from :]
        if not events or events[0].kind not in (EventKind.DEALER_DRAW, EventKind.ROUND_STARTED):
            return None
        return check_deals(
            events,
            self.seat,
            self.reveal,
            table_id=self.table.table_id,
            players=len(self.table.seats),
            rules=self.table.rules.to_dict(),
            commitment_seen=self.commitment,
        )

    @property
    def game_over(self) -> bool:
        """True once a GAME_OVER event arrived, or the view (from a snapshot of a
        stream resumed after the end) shows the game over. The final update
        (the view with the final scores) and the deal's reveal come after
        that event: read the stream to its end (it ends by itself) for them."""
        if self.view is not None and self.view.phase is Phase.GAME_OVER:
            return True
        return any(e.kind is EventKind.GAME_OVER for e in self.events[-12:])

    @property
    def interrupted(self) -> bool:
        """True when the game ended without being over: the server stopped
        during it (its last message, the deal's reveal, came with no GAME_OVER;
        the stream then ends with UNAVAILABLE). Its deals can still be checked."""
        return self.reveal is not None and not self.game_over

    @property
    def away(self) -> list[int]:
        """Seats whose player is away (occupied, not connected)."""
        return [s.seat for s in self.seats if s.occupied and not s.connected]


class GameSession:
    """One seat's game stream. Iterate it for :class:`Received` messages in
    order, with no repeats; it reconnects by itself (with jittered exponential
    backoff) and resumes from the last sequence number seen, with no gaps
    unless it was away longer than the server keeps messages (proto/README.md
    section 6: then the seqs jump once and ``state.gap_at`` says where). Send intents with
    :meth:`send`; decide only on messages :meth:`is_decision` accepts.

    ``status`` is "idle", "connecting", "live", "reconnecting", "restarting"
    (reconnecting after the server said it restarts: retried for up to
    ``restart_wait`` seconds, whatever ``max_retries``) or "closed";
    ``on_status(status)`` (optional) is called on each change, e.g. for a UI
    to show "reconnecting". A server stopping for good (:data:`SHUTTING_DOWN`)
    ends the session (:class:`ServerUnavailable`).
    """

    def __init__(
        self,
        connection: Connection,
        table_id: str,
        seat_token: str,
        max_retries: int = 20,
        last_seq: int = 0,
        max_delay: float = 5.0,
        on_status: Callable[[str], None] | None = None,
        restart_wait: float = RESTART_WAIT,
    ) -> None:
        self.connection = connection
        self.table_id = table_id
        self.seat_token = seat_token
        self.max_retries = max_retries
        self.restart_wait = restart_wait
        self._restart_until = 0.0  # monotonic: keep retrying until then (the server restarts)
        self.max_delay = max_delay
        self.last_seq = last_seq
        self.state = SessionState()
        self.status = "idle"
        self.on_status = on_status
        self.reconnects = 0
        self.snapshot: Snapshot | None = None  #: the latest stream's opening snapshot
        self._call: grpc.aio.StreamStreamCall | None = None
        self._done_writing = False  # half-closed after GAME_OVER: no more intents
        self._dropped = False  # set by drop(): the next local cancellation is ours
        self._batch_update_seq = 0  # seq of the last update in the response being read

    def _set_status(self, status: str) -> None:
        if status != self.status:
            self.status = status
            if self.on_status is not None:
                self.on_status(status)

    async def _open(self) -> None:
        self._done_writing = False
        self._call = self.connection.games.Play()
        join = gs.JoinGame(
            table_id=self.table_id, seat_token=self.seat_token, last_seq=self.last_seq
        )
        await self._write(gs.PlayRequest(join=join))

    async def _write(self, request: gs.PlayRequest) -> None:
        """Write ``request`` on the stream within :data:`WRITE_TIMEOUT`; a
        write that takes longer cancels the stream (the reader reconnects)."""
        call = self._call
        assert call is not None
        try:
            async with asyncio.timeout(WRITE_TIMEOUT):  # (no task of its own, as wait_for's)
                await call.write(request)
        except TimeoutError:
            log.info("a stream write took over %gs: reopening the stream", WRITE_TIMEOUT)
            if self._call is call:
                self._dropped = True
            call.cancel()
            raise

    async def send(self, action: Action | int) -> bool:
        """Send an action (or a wire action id), saying what it was chosen on:
        the newest message received (``Intent.seen_seq``, so that a race lost
        is not counted as a mistake). Returns False if the stream is down (the
        server will send a fresh update after the reconnect)."""
        ident = action if isinstance(action, int) else wire.action_id(action)
        if self._call is None or self._done_writing:
            return False
        intent = gs.Intent(action_id=ident, seen_seq=self.last_seq)
        try:
            await self._write(gs.PlayRequest(intent=intent))
            return True
        except (
            grpc.aio.AioRpcError,
            asyncio.InvalidStateError,
            grpc.aio.UsageError,
            TimeoutError,
        ):
            return False

    def drop(self) -> None:
        """Cut the stream as a network failure would (for tests); it reconnects."""
        if self._call is not None:
            self._dropped = True
            self._call.cancel()

    async def close(self) -> None:
        """End the stream for good."""
        self._set_status("closed")
        if self._call is not None:
            self._call.cancel()
            self._call = None

    def is_decision(self, received: Received) -> bool:
        """True for an update to decide on: the stream's latest, not a stale
        one from a resumed backlog."""
        return (
            isinstance(received.message, Update)
            and received.seq >= self.state.decide_from
            and received.seq >= self._batch_update_seq
        )  # the batch's last update only

    def _backoff(self, retries: int) -> float:
        return min(self.max_delay, 0.05 * 2**retries) * (0.5 + random.random() / 2)

    async def __aiter__(self) -> AsyncIterator[Received]:
        retries = 0
        while True:
            try:
                if self._call is None:
                    if self.reconnects == 0 and retries == 0:
                        self._set_status("connecting")
                    elif time.monotonic() < self._restart_until:
                        self._set_status("restarting")
                    else:
                        self._set_status("reconnecting")
                    await self._open()
                assert self._call is not None
                response = await self._call.read()
            except (grpc.aio.AioRpcError, asyncio.CancelledError, TimeoutError) as err:
                if isinstance(err, TimeoutError):  # the join's write hung: reopen
                    err = asyncio.CancelledError()
                    self._dropped = True  # (_write cancelled the call)
                if isinstance(err, asyncio.CancelledError):
                    if not self._dropped:
                        self._set_status("closed")
                        raise  # our task is being cancelled
                    self._dropped = False
                elif self.state.reveal is not None:
                    # The game's last message came: the game is over (the server
                    # ended the stream while an intent was still being written;
                    # grpc reports that locally as INTERNAL) or was interrupted
                    # by the server's stop (UNAVAILABLE): nothing to resume.
                    self._call = None
                    self._set_status("closed")
                    return
                elif (
                    err.code() not in RETRYABLE
                    or (retries >= self.max_retries and time.monotonic() >= self._restart_until)
                    or SHUTTING_DOWN in (err.details() or "")
                ):
                    self._set_status("closed")
                    raise server_error(err) from err
                elif RESTARTING in (err.details() or ""):
                    self._restart_until = time.monotonic() + self.restart_wait
                    retries = 0
                retries += 1
                self.reconnects += 1
                self._call = None
                restarting = time.monotonic() < self._restart_until
                self._set_status("restarting" if restarting else "reconnecting")
                delay = self._backoff(retries)
                # A write in flight when the server ends the stream (the game just ended,
                # unread here yet) fails the call locally as INTERNAL; resuming is routine.
                race = (
                    isinstance(err, grpc.aio.AioRpcError)
                    and err.code() is grpc.StatusCode.INTERNAL
                    and "from Core" in (err.details() or "")
                )
                log.log(  # once an outage (its further attempts: DEBUG)
                    logging.DEBUG if race or retries > 1 else logging.INFO,
                    "stream dropped (%s); reconnecting in %.2fs",
                    f"{err.code()}: {err.details()}"
                    if isinstance(err, grpc.aio.AioRpcError)
                    else "cut",
                    delay,
                )
                await asyncio.sleep(delay)
                continue
            if response is grpc.aio.EOF:
                self._call = None
                self._set_status("closed")
                return
            response = cast(gs.PlayResponse, response)  # or a SpectateResponse: the same fields
            retries = 0
            self._restart_until = 0.0
            self._set_status("live")
            if response.HasField("snapshot"):
                self._snapshot(response.snapshot)
            seat, last = self.state.seat, self.last_seq
            batch = [  # what was seen before a reconnect is skipped
                (raw.seq, wire.message_from_pb(raw, seat))
                for raw in response.messages
                if raw.seq > last
            ]
            self._batch_update_seq = next(
                (seq for seq, message in reversed(batch) if isinstance(message, Update)), 0
            )
            for seq, message in batch:
                if seq > self.last_seq + 1:  # resumed past what the server still kept
                    self.state.gap_at = len(self.state.events)
                self.last_seq = seq
                if message is None:
                    continue  # a body of a newer server: ignored, as the guide says
                received = Received(seq, message)
                self._track(received)
                if (
                    isinstance(message, Event)
                    and message.kind is EventKind.GAME_OVER
                    and not self._done_writing
                ):
                    await self._finish_writing()  # nothing left to send: half-close
                yield received

    async def _finish_writing(self) -> None:
        self._done_writing = True
        if self._call is None:
            return
        try:
            await self._call.done_writing()
        except (grpc.aio.AioRpcError, asyncio.InvalidStateError, grpc.aio.UsageError):
            pass

    def _snapshot(self, raw: gs.Snapshot) -> None:
        welcome = Welcome(
            raw.welcome.seat, wire.table_from_pb(raw.welcome.table), raw.welcome.deal_commitment
        )
        update = wire.update_from_pb(raw.update) if raw.HasField("update") else None
        self.snapshot = Snapshot(raw.seq, welcome, update, raw.update_seq)
        state = self.state
        state.seat = welcome.seat
        state.table = welcome.table
        state.commitment = welcome.commitment
        state.snapshot_seq = raw.seq
        state.decide_from = raw.update_seq
        if update is not None:
            state.take_update(update)
        state.seats = welcome.table.seats  # now, not when the update was made

    def _track(self, received: Received) -> None:
        state = self.state
        message = received.message
        history = received.seq <= state.snapshot_seq  # the snapshot already counted it
        if isinstance(message, Event):
            state.events.append(message)
        elif isinstance(message, Refusal):
            state.errors.append(message)
        elif isinstance(message, DealReveal):
            state.reveal = message
        elif isinstance(message, Welcome) and message.commitment:
            state.game_events_from = len(state.events)  # the game starts here
            state.reveal = None  # a rematch: the last game's reveal is not this one's
            state.gap_at = -1  # what was lost before does not matter to this game
            state.commitment = message.commitment
            if not history:
                state.seat = message.seat
                state.table = message.table
        elif history:
            return
        elif isinstance(message, Update):
            state.take_update(message)
        elif isinstance(message, SeatsChanged):
            state.seats = message.seats
        elif isinstance(message, Welcome):
            state.seat = message.seat
            state.table = message.table


class SpectatorSession(GameSession):
    """A spectator's stream of one table (``GameService.Spectate``): the public
    events and, after each change, a view with seat -1, no hand and no legal
    actions. Iterate it like a :class:`GameSession`: messages in order with no
    gaps or repeats, reconnecting and resuming by itself. It never sends."""

    def __init__(
        self,
        connection: Connection,
        table_id: str,
        max_retries: int = 20,
        last_seq: int = 0,
        max_delay: float = 5.0,
        on_status: Callable[[str], None] | None = None,
    ) -> None:
        super().__init__(
            connection,
            table_id,
            "",
            max_retries=max_retries,
            last_seq=last_seq,
            max_delay=max_delay,
            on_status=on_status,
        )

    async def _open(self) -> None:
        self._done_writing = True  # a server stream: nothing to write, nothing to half-close
        request = gs.SpectateRequest(table_id=self.table_id, last_seq=self.last_seq)
        self._call = self.connection.games.Spectate(request)

    async def send(self, action: Action | int) -> bool:
        """Spectators cannot act: always False, nothing is sent."""
        return False


async def run_bot(
    bot,
    session: GameSession,
    on_refusal: Callable[[Refusal, int], None] | None = None,
) -> SessionState:
    """Play ``bot`` (``decide(view, legal) -> Action | None``) on ``session``
    until the game is over; returns what the session saw.

    As proto/README.md asks, it decides on the latest update only, and after
    sending an intent it waits for the answer (the next update, or a refusal,
    after which it decides again on what it knows) before sending another.
    A bot with ``observes`` set gets every event first (``observe([event])``).
    ``on_refusal(refusal, in_row)`` is called with each refusal of the bot's
    intents and how many it got in a row (since it last decided on a new
    update: 1 for the first); what it raises ends the bot (a match runner
    stops a bot that keeps sending illegal actions so)."""
    waiting = False  # an intent is out and unanswered
    in_row = 0  # refusals since the bot last decided on a new update
    observes = getattr(bot, "observes", False)
    async for received in session:
        if observes and isinstance(received.message, Event):
            bot.observe([received.message])
        if isinstance(received.message, Refusal):
            if not waiting:
                continue
            in_row += 1
            if on_refusal is not None:
                on_refusal(received.message, in_row)
        elif not session.is_decision(received):
            continue
        else:
            in_row = 0
        waiting = False
        state = session.state
        if state.legal and state.view is not None and not state.game_over:
            action = bot.decide(state.view, state.legal)
            if action is not None:
                await session.send(action)
                waiting = True
    return session.state
