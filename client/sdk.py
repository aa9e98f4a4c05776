"""The Python client SDK: one async connection class for lobby calls and game
streams, used alike by the TUI, the bots and the match runner.

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
from dataclasses import dataclass, field
from typing import AsyncIterator, Callable

import grpc

from unoplay.server import wire
from unoplay.game.actions import Action
from unoplay.game.deals import DealCheck, DealReveal, check_deals
from unoplay.game.view import Phase, PlayerView
from unoplay.game.events import Event, EventKind
from unoplay.server.limits import CLIENT_OPTIONS
from unoplay.game.rules import RuleSet
from unoplay.v1 import game_pb2 as pb
from unoplay.v1 import game_service_pb2 as gs
from unoplay.v1 import game_service_pb2_grpc as gs_grpc
from unoplay.v1 import lobby_service_pb2 as ls
from unoplay.v1 import lobby_service_pb2_grpc as ls_grpc

log = logging.getLogger("unoplay.client")

#: Agrees with the server's keepalive policy (both come from server/limits.py).
CHANNEL_OPTIONS = CLIENT_OPTIONS
#: Environment variable naming a PEM file: its certificates are trusted for TLS.
TLS_CA_ENV = "UNOPLAY_TLS_CA"
#: Stream failures worth reconnecting after.
RETRYABLE = {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN,
             grpc.StatusCode.CANCELLED, grpc.StatusCode.DEADLINE_EXCEEDED,
             grpc.StatusCode.RESOURCE_EXHAUSTED}  # a stream over its budget: back off, resume
#: The server's words when it stops for good: its tables are gone, do not retry.
SHUTTING_DOWN = "the server is shutting down"


def read_root_certificates(path: str | os.PathLike | None = None) -> bytes | None:
    """PEM bytes from ``path``, or from ``$UNOPLAY_TLS_CA``; None for neither."""
    path = path or os.environ.get(TLS_CA_ENV)
    if not path:
        return None
    with open(path, "rb") as f:
        return f.read()


class Connection:
    """A connection to one server. Lobby rpcs raise ``grpc.aio.AioRpcError``
    with the server's status code and message when refused."""

    def __init__(self, target: str, timeout: float = 10.0,
                 root_certificates: bytes | None = None, server_name: str | None = None,
                 tls: bool | None = None) -> None:
        """``target`` is ``host:port``; ``timeout`` (seconds) bounds each unary call.

        TLS is used when ``root_certificates`` is given, or ``tls`` is True (the
        system's trusted CAs), or neither is given and ``$UNOPLAY_TLS_CA`` names a
        file. ``server_name`` overrides the name checked against the certificate
        (for a certificate made for another name than the address you dial).
        """
        self.target = target
        self.timeout = timeout
        if root_certificates is None and tls is None:
            root_certificates = read_root_certificates()
        self.tls = bool(tls) or root_certificates is not None
        options = list(CHANNEL_OPTIONS)
        if self.tls:
            if server_name:
                options.append(("grpc.ssl_target_name_override", server_name))
            credentials = grpc.ssl_channel_credentials(root_certificates=root_certificates)
            self.channel = grpc.aio.secure_channel(target, credentials, options=options)
        else:
            self.channel = grpc.aio.insecure_channel(target, options=options)
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
                           bot_delay: float = 0.0, away_grace: int | None = None,
                           window_ms: int | None = None, seed: str | int | None = None) -> ls.Table:
        """Create a table; ``rules`` None is the official preset; ``away_grace``
        None is the server's default (seconds before a bot plays for an away
        player); ``window_ms`` None is the server's default out-of-turn window
        (milliseconds; 0: none; see ``CreateTableRequest.window_ms``); ``seed``
        makes a seeded table, dealt from that seed (for repeatable bot games;
        every seat sees ``Table.seeded``)."""
        if isinstance(rules, RuleSet):
            rules = wire.rules_pb(rules)
        request = ls.CreateTableRequest(title=title, seats=seats, rules=rules or pb.RuleSet(),
                                        turn_seconds=turn_seconds, bot_delay_seconds=bot_delay,
                                        away_grace_seconds=away_grace, window_ms=window_ms,
                                        seed=None if seed is None else str(seed))
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
        """Start the game (every seat must be taken). ``seed`` only at a seeded
        table (FAILED_PRECONDITION elsewhere)."""
        request = ls.StartGameRequest(table_id=table_id, seat_token=seat_token, seed=seed)
        return (await self.lobby.StartGame(request, timeout=self.timeout)).table

    async def leave_table(self, table_id: str, seat_token: str) -> ls.Table:
        """Give up the seat."""
        request = ls.LeaveTableRequest(table_id=table_id, seat_token=seat_token)
        return (await self.lobby.LeaveTable(request, timeout=self.timeout)).table

    def session(self, table_id: str, seat_token: str, last_seq: int = 0) -> GameSession:
        """A game stream for the seat (not opened until iterated); ``last_seq``
        resumes after a message an earlier session (or process) saw."""
        return GameSession(self, table_id, seat_token, last_seq=last_seq)

    def spectate(self, table_id: str, last_seq: int = 0) -> SpectatorSession:
        """A spectator stream of the table (not opened until iterated): public
        events and views with no hand; ``last_seq`` resumes after a message an
        earlier spectator session saw."""
        return SpectatorSession(self, table_id, last_seq=last_seq)


@dataclass
class SessionState:
    """What a session knows so far, built only from what the server sent.

    ``view``, ``legal``, ``seats``, ``table`` and ``deadline_ms`` are always the
    latest known: a stream's snapshot sets them first and the backlog it has
    already counted (seq up to ``snapshot_seq``) does not roll them back;
    ``events`` and ``errors`` get every message, backlog included.
    """

    seat: int = -1
    table: ls.Table | None = None
    #: The commitment to this game's deals (Welcome.deal_commitment); "" before the start.
    commitment: str = ""
    #: The seed and salt, once the game is over (DealRevealed); None until then.
    reveal: DealReveal | None = None
    view: PlayerView | None = None
    seats: list[pb.SeatInfo] = field(default_factory=list)
    legal: list[Action] = field(default_factory=list)
    deadline_ms: int = 0
    window_closes_ms: int = 0  #: an out-of-turn window closes then (Unix ms); 0: none
    events: list[Event] = field(default_factory=list)
    errors: list[gs.ActionError] = field(default_factory=list)
    snapshot_seq: int = 0  #: messages up to this seq were in the latest snapshot
    decide_from: int = 0  #: updates with a lower seq are stale: do not decide on them
    game_events_from: int = 0  #: index in ``events`` of this game's first event

    def deal_check(self) -> DealCheck | None:
        """Once the seed is revealed: every card this receiver saw checked
        against it (``check.fair``, ``check.problems``, ``check.checked``),
        and the commitment against the one sent at the start. None before the
        reveal, or when this session did not see the game from its start
        (resumed in a new process: the deal cannot be replayed)."""
        if self.reveal is None or self.table is None or not self.commitment:
            return None
        events = self.events[self.game_events_from:]
        if not events or events[0].kind not in (EventKind.DEALER_DRAW, EventKind.ROUND_STARTED):
            return None
        rules = wire.rules_from_pb(self.table.rules).to_dict()
        return check_deals(events, self.seat, self.reveal, table_id=self.table.table_id,
                           players=len(self.table.seats), rules=rules,
                           commitment_seen=self.commitment)

    @property
    def game_over(self) -> bool:
        """True once a GAME_OVER event arrived, or the view (from a snapshot of a
        stream resumed after the end) shows the game over."""
        if self.view is not None and self.view.phase is Phase.GAME_OVER:
            return True
        return any(e.kind is EventKind.GAME_OVER for e in self.events[-12:])

    @property
    def away(self) -> list[int]:
        """Seats whose player is away (occupied, not connected)."""
        return [s.seat for s in self.seats if s.occupied and not s.connected]


class GameSession:
    """One seat's game stream. Iterate it for :class:`gs.TableMessage` in order,
    with no gaps or repeats; it reconnects by itself (with jittered exponential
    backoff) and resumes from the last sequence number seen. Send intents with
    :meth:`send`; decide only on messages :meth:`is_decision` accepts.

    ``status`` is "idle", "connecting", "live", "reconnecting" or "closed";
    ``on_status(status)`` (optional) is called on each change, e.g. for a UI
    to show "reconnecting".
    """

    def __init__(self, connection: Connection, table_id: str, seat_token: str,
                 max_retries: int = 20, last_seq: int = 0, max_delay: float = 5.0,
                 on_status: Callable[[str], None] | None = None) -> None:
        self.connection = connection
        self.table_id = table_id
        self.seat_token = seat_token
        self.max_retries = max_retries
        self.max_delay = max_delay
        self.last_seq = last_seq
        self.state = SessionState()
        self.status = "idle"
        self.on_status = on_status
        self.reconnects = 0
        self.snapshot: gs.Snapshot | None = None  # the latest stream's opening snapshot
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
        join = gs.JoinGame(table_id=self.table_id, seat_token=self.seat_token,
                           last_seq=self.last_seq)
        await self._call.write(gs.PlayRequest(join=join))

    async def send(self, action: Action | int) -> bool:
        """Send an action (or a wire action id). Returns False if the stream is
        down (the server will send a fresh update after the reconnect)."""
        ident = action if isinstance(action, int) else wire.action_id(action)
        if self._call is None or self._done_writing:
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
        self._set_status("closed")
        if self._call is not None:
            self._call.cancel()
            self._call = None

    def is_decision(self, message: gs.TableMessage) -> bool:
        """True for a PlayerUpdate to decide on: the stream's latest, not a stale
        one from a resumed backlog."""
        return (message.WhichOneof("body") == "update" and message.seq >= self.state.decide_from
                and message.seq >= self._batch_update_seq)  # the batch's last update only

    def _backoff(self, retries: int) -> float:
        return min(self.max_delay, 0.05 * 2 ** retries) * (0.5 + random.random() / 2)

    async def __aiter__(self) -> AsyncIterator[gs.TableMessage]:
        retries = 0
        while True:
            try:
                if self._call is None:
                    self._set_status("connecting" if self.reconnects == 0 and retries == 0
                                     else "reconnecting")
                    await self._open()
                response = await self._call.read()
            except (grpc.aio.AioRpcError, asyncio.CancelledError) as err:
                if isinstance(err, asyncio.CancelledError):
                    if not self._dropped:
                        self._set_status("closed")
                        raise  # our task is being cancelled
                    self._dropped = False
                elif self.state.game_over and self.state.reveal is not None:
                    # The server ended the stream after game over while an intent was
                    # still being written; grpc reports that locally as INTERNAL.
                    self._call = None
                    self._set_status("closed")
                    return
                elif (err.code() not in RETRYABLE or retries >= self.max_retries
                      or SHUTTING_DOWN in (err.details() or "")):
                    self._set_status("closed")
                    raise
                retries += 1
                self.reconnects += 1
                self._call = None
                self._set_status("reconnecting")
                delay = self._backoff(retries)
                # A write in flight when the server ends the stream (the game just ended,
                # unread here yet) fails the call locally as INTERNAL; resuming is routine.
                race = isinstance(err, grpc.aio.AioRpcError) and \
                    err.code() is grpc.StatusCode.INTERNAL and "from Core" in (err.details() or "")
                log.log(logging.DEBUG if race else logging.INFO,
                        "stream dropped (%s); reconnecting in %.2fs",
                        f"{err.code()}: {err.details()}" if isinstance(err, grpc.aio.AioRpcError)
                        else "cut", delay)
                await asyncio.sleep(delay)
                continue
            if response is grpc.aio.EOF:
                self._call = None
                self._set_status("closed")
                return
            retries = 0
            self._set_status("live")
            if response.HasField("snapshot"):
                self._snapshot(response.snapshot)
            updates = [m.seq for m in response.messages if m.WhichOneof("body") == "update"]
            self._batch_update_seq = updates[-1] if updates else 0
            for message in response.messages:
                if message.seq <= self.last_seq:
                    continue  # already seen before a reconnect
                self.last_seq = message.seq
                self._track(message)
                if message.event.kind == pb.EVENT_KIND_GAME_OVER and not self._done_writing:
                    await self._finish_writing()  # nothing left to send: half-close
                yield message

    async def _finish_writing(self) -> None:
        self._done_writing = True
        try:
            await self._call.done_writing()
        except (grpc.aio.AioRpcError, asyncio.InvalidStateError, grpc.aio.UsageError):
            pass

    def _snapshot(self, snapshot: gs.Snapshot) -> None:
        self.snapshot = snapshot
        state = self.state
        welcome = snapshot.welcome
        state.seat = welcome.seat
        state.table = welcome.table
        state.commitment = welcome.deal_commitment
        state.seats = list(welcome.table.seats)
        state.snapshot_seq = snapshot.seq
        state.decide_from = snapshot.update_seq
        if snapshot.HasField("update"):
            self._take_update(snapshot.update)
            state.seats = list(welcome.table.seats)  # now, not when the update was made

    def _take_update(self, update: gs.PlayerUpdate) -> None:
        state = self.state
        state.view = wire.view_from_pb(update.view)
        state.seats = list(update.view.seats)
        state.legal = [wire.action_from_pb(a.action) for a in update.legal_actions]
        state.deadline_ms = update.deadline_unix_ms
        state.window_closes_ms = update.window_closes_unix_ms

    def _track(self, message: gs.TableMessage) -> None:
        state = self.state
        body = message.WhichOneof("body")
        history = message.seq <= state.snapshot_seq  # the snapshot already counted it
        if body == "event":
            state.events.append(wire.event_from_pb(message.event, state.seat))
        elif body == "error":
            state.errors.append(message.error)
        elif body == "deal_revealed":
            revealed = message.deal_revealed
            state.reveal = DealReveal(revealed.seed, revealed.salt, revealed.commitment)
        elif body == "welcome" and message.welcome.deal_commitment:
            state.game_events_from = len(state.events)  # the game starts here
            state.commitment = message.welcome.deal_commitment
            if not history:
                state.seat = message.welcome.seat
                state.table = message.welcome.table
        elif history:
            return
        elif body == "update":
            self._take_update(message.update)
        elif body == "seats_changed":
            state.seats = list(message.seats_changed.seats)
        elif body == "welcome":
            state.seat = message.welcome.seat
            state.table = message.welcome.table


class SpectatorSession(GameSession):
    """A spectator's stream of one table (``GameService.Spectate``): the public
    events and, after each change, a view with seat -1, no hand and no legal
    actions. Iterate it like a :class:`GameSession`: messages in order with no
    gaps or repeats, reconnecting and resuming by itself. It never sends."""

    def __init__(self, connection: Connection, table_id: str, max_retries: int = 20,
                 last_seq: int = 0, max_delay: float = 5.0,
                 on_status: Callable[[str], None] | None = None) -> None:
        super().__init__(connection, table_id, "", max_retries=max_retries, last_seq=last_seq,
                         max_delay=max_delay, on_status=on_status)

    async def _open(self) -> None:
        self._done_writing = True  # a server stream: nothing to write, nothing to half-close
        request = gs.SpectateRequest(table_id=self.table_id, last_seq=self.last_seq)
        self._call = self.connection.games.Spectate(request)

    async def send(self, action: Action | int) -> bool:
        """Spectators cannot act: always False, nothing is sent."""
        return False


async def run_bot(bot, session: GameSession) -> SessionState:
    """Play ``bot`` (``decide(view, legal) -> Action | None``) on ``session``
    until the game is over; returns what the session saw.

    As proto/README.md asks, it decides on the latest update only, and after
    sending an intent it waits for the answer (the next update, or a refusal,
    after which it decides again on what it knows) before sending another."""
    waiting = False  # an intent is out and unanswered
    async for message in session:
        if message.WhichOneof("body") == "error":
            if not waiting:
                continue
        elif not session.is_decision(message):
            continue
        waiting = False
        state = session.state
        if state.legal and state.view is not None and not state.game_over:
            action = bot.decide(state.view, state.legal)
            if action is not None:
                await session.send(action)
                waiting = True
    return session.state
