"""The gRPC service: lobby rpcs and game streams over ``grpc.aio``.

It translates between the wire and the table layer and holds no rules.
Status codes: INVALID_ARGUMENT (malformed, or undecodable bytes: on every rpc,
health's and reflection's included), NOT_FOUND (unknown table),
UNAUTHENTICATED (bad seat token), FAILED_PRECONDITION (wrong state),
OUT_OF_RANGE (resume point beyond the stream), RESOURCE_EXHAUSTED (limits),
UNAVAILABLE (the server is shutting down).

A stream has no queue of its own: it reads its seat's log (a
:class:`~.streamlog.StreamLog`, messages kept as the wire's bytes) with a
cursor, and writes responses put together from those bytes, so a message is
encoded once however many times it is sent. A client that stops reading holds
back only its own stream (HTTP/2 flow control), never the table; if it falls
behind what the log keeps, its stream ends (RESOURCE_EXHAUSTED) and it
resumes from a snapshot.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import weakref
from collections import Counter
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any, NoReturn, TypeVar

import grpc
from google.protobuf.message import DecodeError, Message
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection, reflection_pb2_grpc

from unoplay import wire
from unoplay.channel import SERVER_OPTIONS, tab_of
from unoplay.game.messages import TableState
from unoplay.game.registry import make_bot
from unoplay.game.rules import RuleError
from unoplay.protocol import LobbyError
from unoplay.settings import DEFAULT_MAX_ROUND_ACTIONS, default_window_ms
from unoplay.throttle import LogEvery, TokenBucket, uncount
from unoplay.v1 import arena_service_pb2 as arena_pb
from unoplay.v1 import arena_service_pb2_grpc as as_grpc
from unoplay.v1 import game_service_pb2 as gs
from unoplay.v1 import game_service_pb2_grpc as gs_grpc
from unoplay.v1 import lobby_service_pb2 as ls
from unoplay.v1 import lobby_service_pb2_grpc as ls_grpc

from .arena import Arena, ArenaSettings, Gone, address_of
from .durable import Journal
from .limits import Limits
from .lobby import Lobby
from .openstreams import OpenStreams
from .ratings import ArenaBook, Standing
from .restore import restore
from .seats import Seat
from .standard import BoundedHealth, BoundedReflection
from .storage import GameStore, Recorder
from .table import Table

log = logging.getLogger("unoplay.server")

#: The server's channel options (keepalive policy, message size): see limits.py.
KEEPALIVE_OPTIONS = SERVER_OPTIONS

UNDECODABLE = "a message of this stream could not be decoded"
UNDECODABLE_REQUEST = "the request could not be decoded"
SHUTTING_DOWN = "the server is shutting down"
#: A clean stop of a server that keeps its open tables (``uno serve`` with a
#: file, without ``--final``): streams end UNAVAILABLE with these words, and
#: clients reconnect and resume once it is back (proto/README.md, section 6).
RESTARTING = "the server is restarting: reconnect and resume"
MAX_STANDINGS = 1000  #: rows of a StandingsResponse at most
FELL_BEHIND = "this stream fell behind what the server keeps of it: resume with last_seq"

Context = grpc.aio.ServicerContext[Any, Any]
_T = TypeVar("_T")


async def _abort(context: Context, err: LobbyError) -> NoReturn:
    await context.abort(grpc.StatusCode[err.status], clip(str(err)))
    raise AssertionError("abort returns no more")  # pragma: no cover


def clip(details: str, limit: int = 300) -> str:
    """A status message short enough to send: it may quote what the client sent
    (an unknown table id, a rule value), and grpc refuses status metadata over
    16 KiB (the client would see RESOURCE_EXHAUSTED instead of the real status)."""
    return details if len(details) <= limit else details[: limit - 1] + "…"


# ----------------------------------------------------------------- undecodable requests


class _Undecodable:
    """What a request that could not be decoded becomes (never an exception:
    grpc would answer UNKNOWN with the parser's text and log a traceback)."""

    __slots__ = ()


UNDECODED = _Undecodable()


#: Undecodable requests are logged at most once per 10 s, with a count.
_undecodable_log = LogEvery(log)


class GoneDuringWrite(logging.Filter):
    """On grpc's own logger: a servicer's write that failed in grpc's core
    (``ExecuteBatchError``, which grpc logs with its traceback at ERROR) is a
    client that went away while the server wrote to it, not a fault: it is
    logged as one line at INFO instead, at most once per 10 s with a count.
    Any other record passes."""

    def __init__(self) -> None:
        super().__init__()
        self._log = LogEvery(log)

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if type(error).__name__ != "ExecuteBatchError":
            return True
        said = record.getMessage()  # "... by servicer method [/unoplay.v1.GameService/Play]"
        method = said[said.rfind("[") + 1 : -1] if said.endswith("]") else "?"
        self._log(logging.INFO, "gone", "a client went away during a write to %s", method)
        return False


def _quiet_gone_clients() -> None:
    """Put :class:`GoneDuringWrite` on grpc's logger, once per process."""
    grpc_log = logging.getLogger("grpc._cython.cygrpc")
    if not any(isinstance(f, GoneDuringWrite) for f in grpc_log.filters):
        grpc_log.addFilter(GoneDuringWrite())


def _safe(parse: Callable[[bytes], Message]) -> Callable[[bytes], Message | _Undecodable]:
    def decode(data: bytes) -> Message | _Undecodable:
        try:
            return parse(data)
        except DecodeError:
            return UNDECODED

    return decode


async def _refuse_undecodable(context: Context, method: str) -> NoReturn:
    _undecodable_log(
        logging.WARNING, "undecodable", "undecodable request to %s from %s", method, context.peer()
    )
    await context.abort(grpc.StatusCode.INVALID_ARGUMENT, UNDECODABLE_REQUEST)
    raise AssertionError("abort returns no more")  # pragma: no cover


def _guard(
    handler: grpc.RpcMethodHandler[Any, Any], method: str, raw: bool
) -> grpc.RpcMethodHandler[Any, Any]:
    """``handler`` with a request decoder that never raises: undecodable bytes
    are refused with INVALID_ARGUMENT (before the servicer sees them, except
    inside a stream of ours, which ends itself). ``raw``: the servicer yields
    responses already encoded."""
    h: Any = handler
    changes: dict[str, Any] = {"request_deserializer": _safe(h.request_deserializer)}
    if raw:
        changes["response_serializer"] = None
    if h.unary_unary is not None:
        behaviour = h.unary_unary

        async def unary_unary(request: Any, context: Context) -> Any:
            if request is UNDECODED:
                await _refuse_undecodable(context, method)
            return await behaviour(request, context)

        changes["unary_unary"] = unary_unary
    elif h.unary_stream is not None and not inspect.isasyncgenfunction(h.unary_stream):
        writes = h.unary_stream  # a coroutine that writes (Health.Watch): no iterator

        async def unary_stream_writes(request: Any, context: Context) -> Any:
            if request is UNDECODED:
                await _refuse_undecodable(context, method)
            return await writes(request, context)

        changes["unary_stream"] = unary_stream_writes
    elif h.unary_stream is not None:
        streams = h.unary_stream

        async def unary_stream(request: Any, context: Context) -> AsyncIterator[Any]:
            if request is UNDECODED:
                await _refuse_undecodable(context, method)
            async for response in streams(request, context):
                yield response

        changes["unary_stream"] = unary_stream
    elif h.stream_stream is not None and not raw:  # ours check each message themselves
        behaviour_ss = h.stream_stream

        async def stream_stream(requests: AsyncIterator[Any], context: Context) -> Any:
            async def checked() -> AsyncIterator[Any]:
                async for request in requests:
                    if request is UNDECODED:
                        await _refuse_undecodable(context, method)
                    yield request

            async for response in behaviour_ss(checked(), context):
                yield response

        changes["stream_stream"] = stream_stream
    return h._replace(**changes)  # type: ignore[no-any-return]


def _add_guarded(
    add: Callable[[Any, Any], None], servicer: object, server: grpc.aio.Server, raw: bool = False
) -> None:
    """Register ``servicer`` with its generated ``add_..._to_server`` function,
    every method :func:`_guard`-ed."""

    class _Collect:
        def __init__(self) -> None:
            self.service = ""
            self.handlers: dict[str, grpc.RpcMethodHandler[Any, Any]] = {}

        def add_generic_rpc_handlers(self, handlers: Any) -> None:
            pass  # the same handlers come again below, by name

        def add_registered_method_handlers(self, service: str, handlers: Any) -> None:
            self.service, self.handlers = service, dict(handlers)

    collected = _Collect()
    add(servicer, collected)
    guarded = {
        name: _guard(handler, f"/{collected.service}/{name}", raw)
        for name, handler in collected.handlers.items()
    }
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler(collected.service, guarded),)
    )
    server.add_registered_method_handlers(collected.service, guarded)


# ----------------------------------------------------------------- streams


def snapshot_bytes(table: Table, seat: int) -> bytes:
    """The encoded Snapshot of ``seat``'s stream now (-1: a spectator's)."""
    log_ = table.log_for(seat)
    snapshot = gs.Snapshot(
        seq=len(log_),
        welcome=gs.Welcome(
            seat=seat,
            table=wire.table_pb(table.info()),
            deal_commitment=table.deal.commitment if table.deal else "",
        ),
        update_seq=log_.update_seq,
    ).SerializeToString()
    if log_.update:
        snapshot += b"\x1a" + wire.varint(len(log_.update)) + log_.update
    return snapshot


MAX_BATCH = 256  # messages per response, so a long resume stays under size limits
MAX_BATCH_BYTES = 512 * 1024  # and bytes per response (clients accept 16 MiB)


class FellBehind(Exception):
    """A live stream's cursor fell behind what its log keeps."""


async def stream_log(
    table: Table, seat: int, last_seq: int, snapshot: bytes, stop: Callable[[], bool] | None = None
) -> AsyncIterator[bytes]:
    """Encoded responses (a PlayResponse or SpectateResponse: the same fields)
    carrying ``seat``'s log after ``last_seq``, the first one at once with
    ``snapshot`` (even with no message), then new ones as they come, until the
    game is over and everything has been sent, the server is closing (after
    sending what there is) or ``stop()`` is true. A resume from before what
    the log keeps starts at its oldest message (the snapshot covers the gap);
    a live stream that falls behind it raises :class:`FellBehind`."""
    cursor = last_seq
    log_ = table.log_for(seat)
    while True:
        if stop is not None and stop():
            return
        if snapshot == b"" and cursor < log_.first_seq - 1:
            raise FellBehind
        if cursor < len(log_):
            first, bodies = log_.bodies(cursor, MAX_BATCH, MAX_BATCH_BYTES)
            cursor = first + len(bodies) - 1
            yield wire.response_bytes(first, bodies, snapshot)
            snapshot = b""
            continue
        if snapshot:
            yield wire.response_bytes(0, (), snapshot)
            snapshot = b""
            continue
        if table.state is TableState.FINISHED or table.closing:
            return
        await table.wait_for_change(seat)
        log_ = table.log_for(seat)  # a rematch keeps the log; a new sitter has a new one


# ----------------------------------------------------------------- the lobby


def _peer_host(context: Context) -> str:
    """The client's address without its port ("ipv4:127.0.0.1:5000" -> "ipv4:127.0.0.1")."""
    peer = context.peer() or ""
    return peer.rsplit(":", 1)[0] if peer.count(":") >= 2 else peer


def _client(context: Context, tab_key: bytes | None) -> str:
    """Who the per-client limits count a request against: a ``uno web`` tab
    whose user agent carries a tag that verifies under ``tab_key``
    (``unoplay.channel.tab_tag``) is ``"tab:<id>"``; anyone else is their
    address (:func:`_peer_host`)."""
    if tab_key is not None:
        for key, value in context.invocation_metadata() or ():
            if key == "user-agent":
                tab = tab_of(tab_key, value if isinstance(value, str) else value.decode())
                if tab is not None:
                    return f"tab:{tab}"
    return _peer_host(context)


class LobbyServicer(ls_grpc.LobbyServiceServicer):
    """Unary lobby rpcs. ``tab_key``: the key of ``uno web``'s tabs' tags, if
    this server is one's (:func:`_client`)."""

    def __init__(self, lobby: Lobby, tab_key: bytes | None = None) -> None:
        self.lobby = lobby
        self.tab_key = tab_key

    async def CreateTable(
        self, request: ls.CreateTableRequest, context: Context
    ) -> ls.CreateTableResponse:
        try:
            rules = wire.rules_from_pb(request.rules)
            seats = request.seats or 4
            grace = request.away_grace_seconds if request.HasField("away_grace_seconds") else None
            window = (
                request.window_ms if request.HasField("window_ms") else default_window_ms(rules)
            )
            table = self.lobby.create(
                request.title,
                seats,
                rules,
                request.turn_seconds,
                request.bot_delay_seconds,
                away_grace=grace,
                window_ms=window,
                seed=request.seed if request.HasField("seed") else None,
                max_round_actions=(
                    request.max_round_actions
                    if request.HasField("max_round_actions")
                    else DEFAULT_MAX_ROUND_ACTIONS
                ),
                owner=_client(context, self.tab_key),
            )
        except RuleError as err:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, clip(str(err)))
            raise  # pragma: no cover - abort raised
        except LobbyError as err:
            await _abort(context, err)
        log.debug("table %s created: %d seats", table.table_id, seats)
        return ls.CreateTableResponse(table=wire.table_pb(table.info()))

    async def ListTables(
        self, request: ls.ListTablesRequest, context: Context
    ) -> ls.ListTablesResponse:
        self.lobby.sweep()
        return ls.ListTablesResponse(
            tables=[wire.table_pb(t.info()) for t in self.lobby.tables.values()]
        )

    async def JoinTable(
        self, request: ls.JoinTableRequest, context: Context
    ) -> ls.JoinTableResponse:
        try:
            table, seat = self.lobby.join(
                request.table_id,
                request.name,
                request.seat if request.HasField("seat") else None,
                client=_client(context, self.tab_key),
            )
        except LobbyError as err:
            await _abort(context, err)
        return ls.JoinTableResponse(
            seat=seat.index, seat_token=seat.token, table=wire.table_pb(table.info())
        )

    async def AddBot(self, request: ls.AddBotRequest, context: Context) -> ls.AddBotResponse:
        kind = request.kind or "greedy"
        try:
            table = self.lobby.get(request.table_id)
            if request.seat_token:
                table.seat_for_token(request.seat_token)
            elif table.owner != _client(context, self.tab_key):
                raise LobbyError(
                    "permission_denied",
                    "only the table's creator, or a player seated at it (seat_token), "
                    "may add a bot",
                )
            try:
                bot = make_bot(kind, rules=table.rules, max_ms=self.lobby.limits.bot_ms)
            except ValueError as err:
                raise LobbyError("invalid", str(err)) from None
            taken = {s.name for s in table.seats}
            name = next(f"{kind}-{i}" for i in range(1, 100) if f"{kind}-{i}" not in taken)
            seat = table.add_bot(bot, name, request.seat if request.HasField("seat") else None)
        except LobbyError as err:
            await _abort(context, err)
        return ls.AddBotResponse(seat=seat.index, table=wire.table_pb(table.info()))

    async def StartGame(
        self, request: ls.StartGameRequest, context: Context
    ) -> ls.StartGameResponse:
        try:
            table = self.lobby.get(request.table_id)
            table.seat_for_token(request.seat_token)
            if self.lobby.closing:
                raise LobbyError("unavailable", SHUTTING_DOWN)
            table.start(str(request.seed) if request.HasField("seed") else None)
        except LobbyError as err:
            await _abort(context, err)
        return ls.StartGameResponse(table=wire.table_pb(table.info()))

    async def LeaveTable(
        self, request: ls.LeaveTableRequest, context: Context
    ) -> ls.LeaveTableResponse:
        try:
            table = self.lobby.get(request.table_id)
            table.leave(request.seat_token)
        except LobbyError as err:
            await _abort(context, err)
        return ls.LeaveTableResponse(table=wire.table_pb(table.info()))

    async def Rematch(self, request: ls.RematchRequest, context: Context) -> ls.RematchResponse:
        try:
            table = self.lobby.get(request.table_id)
            if self.lobby.closing:
                raise LobbyError("unavailable", SHUTTING_DOWN)
            table.vote_rematch(request.seat_token)
        except LobbyError as err:
            await _abort(context, err)
        return ls.RematchResponse(table=wire.table_pb(table.info()))


# ----------------------------------------------------------------- the game


@dataclass
class _Stream:
    """Why a game stream must end early (set by its intent reader)."""

    code: grpc.StatusCode | None = None
    details: str = ""


@dataclass
class _Budgets:
    """A seat's join budget and message budget, made on first use and shared
    by all its streams, so reconnecting earns nothing."""

    joins: TokenBucket | None = None
    messages: TokenBucket | None = None
    #: the seat's ``earned_updates`` already credited to ``messages``
    credited: int = 0


class ArenaServicer(as_grpc.ArenaServiceServicer):
    """The arena's rpcs (arena_service.proto): the Enter stream of a name's
    seat assignments, and the standings."""

    def __init__(self, arena: Arena, tab_key: bytes | None = None) -> None:
        self.arena = arena
        self.tab_key = tab_key  # as LobbyServicer's

    async def Enter(  # type: ignore[override]
        self, request: arena_pb.EnterRequest, context: Context
    ) -> AsyncIterator[arena_pb.EnterResponse]:
        try:
            entrant, outbox, secret = self.arena.enter(
                request.name, request.secret, _client(context, self.tab_key)
            )
        except LobbyError as err:
            await _abort(context, err)
        settings = self.arena.settings
        try:
            yield arena_pb.EnterResponse(
                welcome=arena_pb.ArenaWelcome(
                    name=entrant.standing.name,
                    secret=secret,
                    seats=settings.seats,
                    rules=settings.rules,
                    target_score=settings.target,
                    standing=_standing_pb(entrant.standing, entrant.waiting, False),
                    turn_seconds=settings.turn_seconds,
                )
            )
            while (seat := await outbox.get()) is not None:
                if isinstance(seat, Gone):  # the server ended the entry (arena.Gone)
                    await _abort(context, LobbyError(seat.status, seat.message))
                yield arena_pb.EnterResponse(
                    seat=arena_pb.ArenaSeat(
                        table_id=seat.table_id,
                        seat_token=seat.seat_token,
                        seat=seat.seat,
                        game=seat.game,
                    )
                )
            if self.arena.lobby.closing:
                words = RESTARTING if self.arena.restarting else SHUTTING_DOWN
                await context.abort(grpc.StatusCode.UNAVAILABLE, words)
        finally:
            self.arena.left(entrant, outbox)

    async def Standings(
        self, request: arena_pb.StandingsRequest, context: Context
    ) -> arena_pb.StandingsResponse:
        rows = self.arena.standings(min(request.limit, MAX_STANDINGS) or MAX_STANDINGS)
        return arena_pb.StandingsResponse(standings=[_standing_pb(*row) for row in rows])


def _standing_pb(standing: Standing, waiting: bool, playing: bool) -> arena_pb.Standing:
    return arena_pb.Standing(
        name=standing.name,
        games=standing.games,
        wins=standing.wins,
        mu=standing.mu,
        sigma=standing.sigma,
        rating=standing.rating,
        waiting=waiting,
        playing=playing,
        opponents=standing.opponents,
        provisional=standing.provisional,
    )


class GameServicer(gs_grpc.GameServiceServicer):
    """The game streams. Their responses are yielded already encoded."""

    def __init__(self, lobby: Lobby, tab_key: bytes | None = None) -> None:
        self.lobby = lobby
        self.tab_key = tab_key  # as LobbyServicer's
        self._joining: Counter[str] = Counter()  # streams waiting for their join, by address
        #: the rpc tasks of the open game and spectator streams, until each is
        #: over: Server.stop lets them finish before grpc's stop, which would
        #: cancel an aborted one still ending (grpc/grpc#37239)
        self.streams: set[asyncio.Task[Any]] = set()
        #: each seat's budgets, as long as the seat is kept
        self._budgets: weakref.WeakKeyDictionary[Seat, _Budgets] = weakref.WeakKeyDictionary()
        limits = lobby.limits
        #: the open Spectate streams, by client (any table's, so bounded per client)
        self.spectating = OpenStreams(
            "Spectate", limits.max_spectate_streams_per_client, limits.max_spectate_streams
        )

    def _opened(self) -> None:
        """Note the running rpc task as an open stream until it is done."""
        task = asyncio.current_task()
        if task is not None and task not in self.streams:
            self.streams.add(task)
            task.add_done_callback(self.streams.discard)

    async def Play(  # type: ignore[override]
        self, request_iterator: AsyncIterator[gs.PlayRequest | _Undecodable], context: Context
    ) -> AsyncIterator[bytes]:
        self._opened()
        limits = self.lobby.limits
        host = _client(context, self.tab_key)
        joining = self._joining
        if joining[host] >= limits.max_joining_per_client:
            await context.abort(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"{limits.max_joining_per_client} game streams from your address "
                "are waiting to send their join",
            )
        joining[host] += 1
        late = False
        try:
            first = await asyncio.wait_for(anext(request_iterator), limits.join_timeout)
        except TimeoutError:
            first, late = None, True
        except StopAsyncIteration:
            first = None
        finally:
            uncount(joining, host)
        if first is UNDECODED:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, UNDECODABLE)
        if late:
            await context.abort(
                grpc.StatusCode.INVALID_ARGUMENT,
                f"no join within {limits.join_timeout:g} s: the first message of a stream "
                "must be a join",
            )
        if not isinstance(first, gs.PlayRequest) or first.WhichOneof("body") != "join":
            await context.abort(
                grpc.StatusCode.INVALID_ARGUMENT, "the first message of a stream must be a join"
            )
            return
        join = first.join
        token = join.seat_token
        try:
            table = self.lobby.get(join.table_id)
            seat = table.seat_for_token(token)
            last_seq = seat.log.resume(join.last_seq)
            if last_seq is None:
                raise LobbyError("out_of_range", f"last_seq {join.last_seq} is beyond this stream")
            if table.closing:
                raise LobbyError("unavailable", _stopping(table))
            if seat.connections >= limits.max_streams_per_seat:
                raise LobbyError(
                    "resource_exhausted",
                    f"a seat may have {limits.max_streams_per_seat} open streams",
                )
            now = asyncio.get_running_loop().time()
            budgets = self._budgets.setdefault(seat, _Budgets())
            if budgets.joins is None:
                budgets.joins = TokenBucket(limits.joins_per_second, limits.join_burst, now)
            if not budgets.joins.take(now):
                raise LobbyError(
                    "resource_exhausted",
                    "this seat reconnects too often: wait a second and try again",
                )
        except LobbyError as err:
            await _abort(context, err)
        stream = _Stream()

        def stop() -> bool:
            if stream.code is None and not table.seats.holds(seat, token):
                stream.code = grpc.StatusCode.UNAUTHENTICATED
                stream.details = "the seat was given up; its token is no longer valid"
            return stream.code is not None

        reader = None
        try:
            table.attach(seat, resuming=join.last_seq > 0)  # (undone below whatever happens)
            snapshot = snapshot_bytes(table, seat.index)
            reader = asyncio.create_task(
                self._read_intents(request_iterator, table, seat, budgets, token, stream)
            )
            reader.add_done_callback(_consume)
            try:
                async for response in stream_log(table, seat.index, last_seq, snapshot, stop):
                    yield response
            except FellBehind:
                stream.code, stream.details = grpc.StatusCode.RESOURCE_EXHAUSTED, FELL_BEHIND
            if stream.code is not None:
                await context.abort(stream.code, stream.details)
            if table.closing and table.state is not TableState.FINISHED:
                await context.abort(grpc.StatusCode.UNAVAILABLE, _stopping(table))
        finally:
            if reader is not None:
                reader.cancel()
            table.detach(seat)

    async def _read_intents(
        self,
        requests: AsyncIterator[gs.PlayRequest | _Undecodable],
        table: Table,
        seat: Seat,
        budgets: _Budgets,
        token: str,
        stream: _Stream,
    ) -> None:
        """Apply each intent; malformed ones are refused in the seat's log. More
        messages than the seat's budget (shared by its streams) end the stream
        (RESOURCE_EXHAUSTED); a message that cannot be decoded ends it too
        (INVALID_ARGUMENT)."""
        limits = self.lobby.limits
        loop = asyncio.get_running_loop()
        if budgets.messages is None:
            budgets.messages = TokenBucket(
                limits.intents_per_second, limits.intent_burst, loop.time()
            )
            budgets.credited = seat.earned_updates
        async for request in requests:
            if isinstance(request, _Undecodable):
                _undecodable_log(
                    logging.WARNING,
                    "undecodable",
                    "undecodable message on a stream of table %s",
                    table.table_id,
                )
                stream.code, stream.details = grpc.StatusCode.INVALID_ARGUMENT, UNDECODABLE
                table.wake()
                return
            if not self._take_intent(request, table, seat, budgets, token, stream, loop.time()):
                return

    def _take_intent(
        self,
        request: gs.PlayRequest,
        table: Table,
        seat: Seat,
        budgets: _Budgets,
        token: str,
        stream: _Stream,
        now: float,
    ) -> bool:
        """Charge one message to the seat's budget and apply it; False when the
        stream must end (over budget, seat given up, server closing)."""
        limits = self.lobby.limits
        bucket, index = budgets.messages, seat.index
        assert bucket is not None
        if seat.earned_updates != budgets.credited:
            bucket.credit((seat.earned_updates - budgets.credited) * limits.intents_per_update)
            budgets.credited = seat.earned_updates
        if not bucket.take(now):
            stream.code = grpc.StatusCode.RESOURCE_EXHAUSTED
            stream.details = (
                f"more than {limits.intents_per_second:g} messages per second "
                "beyond what the game asked for"
            )
            log.info("table %s seat %d: stream over its message budget", table.table_id, index)
            table.wake()
            return False
        if not table.seats.holds(seat, token) or table.closing:
            table.wake()
            return False
        try:
            self._intent(request, table, index)
        except Exception:
            log.exception("table %s seat %d: intent %r failed", table.table_id, index, request)
            table.refuse(index, "internal_error", "the server failed on this intent", 0)
        return True

    @staticmethod
    def _intent(request: gs.PlayRequest, table: Table, seat: int) -> None:
        kind = request.WhichOneof("body")
        s = table.seats[seat]
        seen = request.intent.seen_seq if kind == "intent" else 0
        # chosen on the newest update the seat was sent? (RULES.md, "Refused intents")
        s.intent_arrived(table.version, seen >= s.log.update_seq if seen else None)
        if kind != "intent":
            table.refuse_intent(seat, "malformed", "after join, send only intents", 0)
            return
        choice = request.intent.WhichOneof("choice")
        if choice == "action_id":
            table.act_id(seat, request.intent.action_id)
        elif choice == "action":
            table.act(seat, wire.action_from_pb(request.intent.action))
        else:
            table.refuse_intent(seat, "malformed", "an intent needs an action_id or an action", 0)

    async def Spectate(  # type: ignore[override]
        self, request: gs.SpectateRequest, context: Context
    ) -> AsyncIterator[bytes]:
        self._opened()
        who = address_of(_client(context, self.tab_key))
        refusal = self.spectating.enter(who)
        if refusal is not None:
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, refusal)
        try:
            async for response in self._spectate(request, context):
                yield response
        finally:
            self.spectating.leave(who)

    async def _spectate(
        self, request: gs.SpectateRequest, context: Context
    ) -> AsyncIterator[bytes]:
        """Spectate, once its stream is counted."""
        limits = self.lobby.limits
        try:
            table = self.lobby.get(request.table_id)
            last_seq = table.log_for(-1).resume(request.last_seq, shared=True)
            if last_seq is None:
                raise LobbyError(
                    "out_of_range", f"last_seq {request.last_seq} is beyond this stream"
                )
            if table.closing:
                raise LobbyError("unavailable", _stopping(table))
            if table.spectators >= limits.max_spectators:
                raise LobbyError(
                    "resource_exhausted", f"a table may have {limits.max_spectators} spectators"
                )
        except LobbyError as err:
            await _abort(context, err)
        table.watched()
        try:
            try:
                async for response in stream_log(table, -1, last_seq, snapshot_bytes(table, -1)):
                    yield response
            except FellBehind:
                await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, FELL_BEHIND)
            if table.closing and table.state is not TableState.FINISHED:
                await context.abort(grpc.StatusCode.UNAVAILABLE, _stopping(table))
        finally:
            table.unwatched()


def _stopping(table: Table) -> str:
    """Why ``table``'s streams end as the server stops: it restarts (the game
    goes on there) or stops for good."""
    return RESTARTING if table.restarting else SHUTTING_DOWN


def _consume(task: asyncio.Task[None]) -> None:
    """Retrieve a finished reader's exception (a client that went away)."""
    if not task.cancelled():
        task.exception()


class Server:
    """A running server: the lobby and the ``grpc.aio`` server around it."""

    def __init__(
        self,
        grpc_server: grpc.aio.Server,
        lobby: Lobby,
        port: int,
        host: str,
        health_servicer: health.aio.HealthServicer | None = None,
        recorder: Recorder | None = None,
        tls: bool = False,
        games: GameServicer | None = None,
        arena: Arena | None = None,
        journal: Journal | None = None,
    ) -> None:
        self.grpc_server = grpc_server
        self.journal = journal
        self.arena = arena
        self.lobby = lobby
        self.port = port
        self.host = host
        self.health = health_servicer
        self.recorder = recorder
        self.tls = tls
        self.games = games
        self._stopped = False

    @property
    def address(self) -> str:
        """``host:port`` to connect to (loopback when bound to all interfaces)."""
        host = "127.0.0.1" if self.host in ("0.0.0.0", "[::]", "") else self.host
        return f"{host}:{self.port}"

    async def stop(self, grace: float | None = 1.0, final: bool = False) -> None:
        """Stop serving, cleanly: health says NOT_SERVING, tables stop (their
        timers too), every stream ends with UNAVAILABLE, and every write
        finishes before this returns. With a file (a journal), the open
        tables stay in it and the server started again on it restores them:
        streams end with :data:`RESTARTING`; ``final`` (``uno serve
        --final``), or without a file, games in progress are stored as
        interrupted (their deals revealed) and streams end with
        :data:`SHUTTING_DOWN`. The arena's queue and games are kept as the
        tables are.
        ``grace`` None cancels open rpcs at once instead of letting them end."""
        if self._stopped:
            return
        self._stopped = True
        if self.health is not None:
            await self.health.enter_graceful_shutdown()
        restarting = self.journal is not None and not final
        interrupted = self.lobby.shut_down(restarting)
        if self.arena is not None:
            self.arena.close(restarting)
        if self.journal is not None:
            for table in interrupted:
                self.journal.finish(table, table.record())
        elif self.recorder is not None:
            for table in interrupted:
                self.recorder.submit(table.record())
        if grace:
            await asyncio.sleep(0)  # let the woken streams send their last messages
            if self.games is not None and self.games.streams:  # and end (grpc/grpc#37239)
                await asyncio.wait(set(self.games.streams), timeout=grace)
        await self.grpc_server.stop(grace)
        if self.journal is not None:
            await asyncio.to_thread(self.journal.close)
        if self.recorder is not None:
            await self.recorder.close()


async def start_server(
    host: str = "127.0.0.1",
    port: int = 0,
    lobby: Lobby | None = None,
    *,
    limits: Limits | None = None,
    store: GameStore | str | None = None,
    tls: tuple[bytes, bytes] | None = None,
    tab_key: bytes | None = None,
    arena: ArenaSettings | None = None,
) -> Server:
    """Start serving on ``host:port`` (port 0: an ephemeral port, read back).

    ``limits`` bound what clients may do; ``store`` (a GameStore or a path)
    keeps every finished game; ``tls`` is (certificate chain PEM, private key
    PEM) to serve TLS only; ``tab_key``: the key of ``uno web``'s tabs' tags
    when it serves them (each tab then has its own per-client and per-name
    limits, ``unoplay.channel``); ``arena``: what its arena plays (None: the
    defaults of :class:`~.arena.ArenaSettings`; its names and ratings are
    kept in ``store``'s file, in memory without one). Enables server reflection and the standard health
    service. Raises RuntimeError if the port cannot be bound (also when
    another server holds it: SO_REUSEPORT is off) or ValueError for a port
    outside 0..65535.
    """
    if not 0 <= port <= 65535:
        raise ValueError(f"port {port} is outside 0..65535")
    _quiet_gone_clients()
    lobby = lobby or Lobby(limits=limits)
    recorder = journal = None
    if store is not None:
        recorder = Recorder(store if isinstance(store, GameStore) else GameStore(store))
        journal = Journal(recorder.store, recorder)
        lobby.journal = journal

        def save(table: Table) -> None:
            assert journal is not None
            journal.finish(table, table.record())

        lobby.on_finish = save
    server = grpc.aio.server(options=[*SERVER_OPTIONS, ("grpc.so_reuseport", 0)])
    _add_guarded(ls_grpc.add_LobbyServiceServicer_to_server, LobbyServicer(lobby, tab_key), server)
    games = GameServicer(lobby, tab_key)
    _add_guarded(gs_grpc.add_GameServiceServicer_to_server, games, server, raw=True)
    book_path = None
    if isinstance(store, GameStore):
        book_path = str(store.path)
    elif store is not None:
        book_path = str(store)
    arena = arena or ArenaSettings()
    book = ArenaBook(book_path, arena.max_names, arena.max_names_per_client, arena.forget_after)
    the_arena = Arena(lobby, book, arena)
    if journal is not None and recorder is not None:
        if book_path != ":memory:":  # the book is in the journal's file
            the_arena.journal = journal
        if recorder.store.path.exists() or str(recorder.store.path) == ":memory:":
            restore(lobby, recorder.store, the_arena)
    _add_guarded(
        as_grpc.add_ArenaServiceServicer_to_server, ArenaServicer(the_arena, tab_key), server
    )
    limits = lobby.limits

    def client(context: Context) -> str:
        return address_of(_client(context, tab_key))

    health_servicer = BoundedHealth(
        client, limits.max_health_watches_per_client, limits.max_health_watches
    )
    _add_guarded(health_pb2_grpc.add_HealthServicer_to_server, health_servicer, server)
    names = (
        ls.DESCRIPTOR.services_by_name["LobbyService"].full_name,
        gs.DESCRIPTOR.services_by_name["GameService"].full_name,
        arena_pb.DESCRIPTOR.services_by_name["ArenaService"].full_name,
        health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
        reflection.SERVICE_NAME,
    )
    _add_guarded(
        reflection_pb2_grpc.add_ServerReflectionServicer_to_server,
        BoundedReflection(
            names, client, limits.max_reflection_streams_per_client, limits.max_reflection_streams
        ),
        server,
    )
    address = f"{host}:{port}"
    try:
        if tls is not None:
            chain, key = tls
            credentials = grpc.ssl_server_credentials([(key, chain)])
            bound = server.add_secure_port(address, credentials)
        else:
            bound = server.add_insecure_port(address)
    except RuntimeError:
        bound = 0
    if not bound:
        raise RuntimeError(f"could not listen on {host}:{port} (is another server there?)")
    await server.start()
    for name in (*names[:3], ""):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    return Server(
        server,
        lobby,
        bound,
        host,
        health_servicer,
        recorder,
        tls is not None,
        games,
        the_arena,
        journal,
    )
