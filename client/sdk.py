"""The Python client SDK: one async connection class for lobby calls and game
streams, used alike by the TUI, the bots and the match runner.

Create a :class:`Connection` inside a running event loop (grpc.aio channels
bind to the loop that exists when they are made).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import AsyncIterator

import grpc

from unoplay.server import wire
from unoplay.server.actions import Action
from unoplay.server.engine import PlayerView
from unoplay.server.events import Event, EventKind
from unoplay.server.rules import RuleSet
from unoplay.v1 import game_pb2 as pb
from unoplay.v1 import game_service_pb2 as gs
from unoplay.v1 import game_service_pb2_grpc as gs_grpc
from unoplay.v1 import lobby_service_pb2 as ls
from unoplay.v1 import lobby_service_pb2_grpc as ls_grpc

log = logging.getLogger("unoplay.client")

#: Matches the server's keepalive settings (server/service.py).
CHANNEL_OPTIONS = [
    ("grpc.keepalive_time_ms", 10_000),
    ("grpc.keepalive_timeout_ms", 5_000),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.max_pings_without_data", 0),
]
#: Stream failures worth reconnecting after.
RETRYABLE = {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN,
             grpc.StatusCode.CANCELLED, grpc.StatusCode.DEADLINE_EXCEEDED}


class Connection:
    """A connection to one server. Lobby rpcs raise ``grpc.aio.AioRpcError``
    with the server's status code and message when refused."""

    def __init__(self, target: str, timeout: float = 10.0) -> None:
        """``target`` is ``host:port``; ``timeout`` (seconds) bounds each unary call."""
        self.target = target
        self.timeout = timeout
        self.channel = grpc.aio.insecure_channel(target, options=CHANNEL_OPTIONS)
        self.lobby = ls_grpc.LobbyServiceStub(self.channel)
        self.games = gs_grpc.GameServiceStub(self.channel)

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

    async def create_table(self, seats: int = 4, rules: RuleSet | pb.RuleSet | None = None,
                           title: str = "", turn_seconds: int = 0,
                           bot_delay: float = 0.0) -> ls.Table:
        """Create a table; ``rules`` None is the official preset."""
        if isinstance(rules, RuleSet):
            rules = wire.rules_pb(rules)
        request = ls.CreateTableRequest(title=title, seats=seats, rules=rules or pb.RuleSet(),
                                        turn_seconds=turn_seconds, bot_delay_seconds=bot_delay)
        return (await self.lobby.CreateTable(request, timeout=self.timeout)).table

    async def list_tables(self) -> list[ls.Table]:
        """Every table on the server."""
        return list((await self.lobby.ListTables(ls.ListTablesRequest(),
                                                 timeout=self.timeout)).tables)

    async def join_table(self, table_id: str, name: str,
                         seat: int | None = None) -> ls.JoinTableResponse:
        """Take a seat; the response holds the secret ``seat_token``."""
        request = ls.JoinTableRequest(table_id=table_id, name=name, seat=seat)
        return await self.lobby.JoinTable(request, timeout=self.timeout)

    async def add_bot(self, table_id: str, kind: str = "greedy",
                      seat: int | None = None) -> ls.AddBotResponse:
        """Put a server-side bot in a free seat."""
        request = ls.AddBotRequest(table_id=table_id, kind=kind, seat=seat)
        return await self.lobby.AddBot(request, timeout=self.timeout)

    async def start_game(self, table_id: str, seat_token: str,
                         seed: int | None = None) -> ls.Table:
        """Start the game (every seat must be taken)."""
        request = ls.StartGameRequest(table_id=table_id, seat_token=seat_token, seed=seed)
        return (await self.lobby.StartGame(request, timeout=self.timeout)).table

    async def leave_table(self, table_id: str, seat_token: str) -> ls.Table:
        """Give up the seat."""
        request = ls.LeaveTableRequest(table_id=table_id, seat_token=seat_token)
        return (await self.lobby.LeaveTable(request, timeout=self.timeout)).table

    def session(self, table_id: str, seat_token: str) -> GameSession:
        """A game stream for the seat (not opened until iterated)."""
        return GameSession(self, table_id, seat_token)


@dataclass
class SessionState:
    """What a session knows so far, built only from what the server sent."""

    seat: int = -1
    table: ls.Table | None = None
    seed: int = 0
    view: PlayerView | None = None
    seats: list[pb.SeatInfo] = field(default_factory=list)
    legal: list[Action] = field(default_factory=list)
    deadline_ms: int = 0
    events: list[Event] = field(default_factory=list)
    errors: list[gs.ActionError] = field(default_factory=list)

    @property
    def game_over(self) -> bool:
        """True once a GAME_OVER event arrived."""
        return any(e.kind is EventKind.GAME_OVER for e in self.events[-12:])


class GameSession:
    """One seat's game stream. Iterate it for :class:`gs.TableMessage` in order,
    with no gaps or repeats; it reconnects by itself (with backoff) and resumes
    from the last sequence number seen. Send intents with :meth:`send`."""

    def __init__(self, connection: Connection, table_id: str, seat_token: str,
                 max_retries: int = 8) -> None:
        self.connection = connection
        self.table_id = table_id
        self.seat_token = seat_token
        self.max_retries = max_retries
        self.last_seq = 0
        self.state = SessionState()
        self._call: grpc.aio.StreamStreamCall | None = None
        self._dropped = False  # set by drop(): the next local cancellation is ours

    async def _open(self) -> None:
        self._call = self.connection.games.Play()
        join = gs.JoinGame(table_id=self.table_id, seat_token=self.seat_token,
                           last_seq=self.last_seq)
        await self._call.write(gs.PlayRequest(join=join))

    async def send(self, action: Action | int) -> bool:
        """Send an action (or a wire action id). Returns False if the stream is
        down (the server will send a fresh update after the reconnect)."""
        ident = action if isinstance(action, int) else wire.action_id(action)
        if self._call is None:
            return False
        try:
            await self._call.write(gs.PlayRequest(intent=gs.Intent(action_id=ident)))
            return True
        except (grpc.aio.AioRpcError, asyncio.InvalidStateError, grpc.aio.UsageError):
            return False

    def drop(self) -> None:
        """Cut the stream as a network failure would (for tests); it reconnects."""
        if self._call is not None:
            self._dropped = True
            self._call.cancel()

    async def close(self) -> None:
        """End the stream for good."""
        if self._call is not None:
            self._call.cancel()
            self._call = None

    async def __aiter__(self) -> AsyncIterator[gs.TableMessage]:
        retries = 0
        while True:
            if self._call is None:
                await self._open()
            try:
                response = await self._call.read()
            except (grpc.aio.AioRpcError, asyncio.CancelledError) as err:
                if isinstance(err, asyncio.CancelledError):
                    if not self._dropped:
                        raise  # our task is being cancelled
                    self._dropped = False
                elif err.code() not in RETRYABLE or retries >= self.max_retries:
                    raise
                retries += 1
                delay = min(2.0, 0.05 * 2 ** retries)
                log.info("stream dropped (%r); reconnecting in %.2fs", err, delay)
                self._call = None
                await asyncio.sleep(delay)
                continue
            if response is grpc.aio.EOF:
                self._call = None
                return
            retries = 0
            for message in response.messages:
                if message.seq <= self.last_seq:
                    continue  # already seen before a reconnect
                self.last_seq = message.seq
                self._track(message)
                yield message

    def _track(self, message: gs.TableMessage) -> None:
        state = self.state
        body = message.WhichOneof("body")
        if body == "welcome":
            state.seat = message.welcome.seat
            state.table = message.welcome.table
            state.seed = message.welcome.seed
        elif body == "event":
            state.events.append(wire.event_from_pb(message.event, state.seat))
        elif body == "update":
            update = message.update
            state.view = wire.view_from_pb(update.view)
            state.seats = list(update.view.seats)
            state.legal = [wire.action_from_pb(a.action) for a in update.legal_actions]
            state.deadline_ms = update.deadline_unix_ms
        elif body == "error":
            state.errors.append(message.error)


async def run_bot(bot, session: GameSession) -> SessionState:
    """Play ``bot`` (``decide(view, legal) -> Action | None``) on ``session``
    until the game is over; returns what the session saw."""
    async for message in session:
        if message.WhichOneof("body") != "update":
            continue
        state = session.state
        if state.legal and state.view is not None:
            action = bot.decide(state.view, state.legal)
            if action is not None:
                await session.send(action)
    return session.state
