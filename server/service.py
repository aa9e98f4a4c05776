"""The gRPC service: lobby rpcs and game streams over ``grpc.aio``.

It translates between the wire and the table layer and holds no rules.
Status codes: INVALID_ARGUMENT (malformed), NOT_FOUND (unknown table),
UNAUTHENTICATED (bad seat token), FAILED_PRECONDITION (wrong state),
OUT_OF_RANGE (resume point beyond the stream), RESOURCE_EXHAUSTED (limits).
"""

from __future__ import annotations

import asyncio
import logging
from typing import AsyncIterator

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from unoplay.v1 import game_pb2 as pb
from unoplay.v1 import game_service_pb2 as gs
from unoplay.v1 import game_service_pb2_grpc as gs_grpc
from unoplay.v1 import lobby_service_pb2 as ls
from unoplay.v1 import lobby_service_pb2_grpc as ls_grpc

from . import wire
from .rules import RuleError
from .table import (Lobby, LobbyError, Message, Refusal, Table, TableInfo, TableState,
                    Update, Welcome)

log = logging.getLogger("unoplay.server")

JOIN_TIMEOUT = 30.0  # seconds a new stream has to send its join message
KEEPALIVE_OPTIONS = [
    ("grpc.keepalive_time_ms", 10_000),
    ("grpc.keepalive_timeout_ms", 5_000),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.min_ping_interval_without_data_ms", 5_000),
    ("grpc.http2.max_pings_without_data", 0),
    ("grpc.max_receive_message_length", 64 * 1024),
]

_STATUS = {
    "invalid": grpc.StatusCode.INVALID_ARGUMENT,
    "not_found": grpc.StatusCode.NOT_FOUND,
    "unauthenticated": grpc.StatusCode.UNAUTHENTICATED,
    "failed_precondition": grpc.StatusCode.FAILED_PRECONDITION,
    "resource_exhausted": grpc.StatusCode.RESOURCE_EXHAUSTED,
    "out_of_range": grpc.StatusCode.OUT_OF_RANGE,
}
_TABLE_STATE = {TableState.WAITING: ls.TABLE_STATE_WAITING,
                TableState.PLAYING: ls.TABLE_STATE_PLAYING,
                TableState.FINISHED: ls.TABLE_STATE_FINISHED}


async def _abort(context: grpc.aio.ServicerContext, err: LobbyError) -> None:
    await context.abort(_STATUS[err.kind], str(err))


def seats_pb(info: TableInfo) -> list[pb.SeatInfo]:
    """Public seat list of a table."""
    return [pb.SeatInfo(seat=s.seat, name=s.name, bot=s.bot, occupied=s.occupied,
                        connected=s.connected) for s in info.seats]


def table_pb(info: TableInfo) -> ls.Table:
    """Public table snapshot as a message."""
    return ls.Table(table_id=info.table_id, title=info.title, seats=seats_pb(info),
                    rules=wire.rules_pb(info.rules), turn_seconds=info.turn_seconds,
                    state=_TABLE_STATE[info.state], scores=info.scores)


def message_pb(seq: int, message: Message, seats: list[pb.SeatInfo]) -> gs.TableMessage:
    """One log entry of a seat as the wire message with sequence number ``seq``."""
    if isinstance(message, Update):
        deadline = int(message.deadline * 1000)
        return gs.TableMessage(seq=seq, update=gs.PlayerUpdate(
            view=wire.view_pb(message.view, seats), legal_actions=wire.legal_pb(message.legal),
            deadline_unix_ms=deadline))
    if isinstance(message, Welcome):
        return gs.TableMessage(seq=seq, welcome=gs.Welcome(
            seat=message.seat, table=table_pb(message.table), seed=message.seed))
    if isinstance(message, Refusal):
        return gs.TableMessage(seq=seq, error=gs.ActionError(
            reason=message.reason, message=message.message, action_id=message.action_id))
    return gs.TableMessage(seq=seq, event=wire.event_pb(message))


MAX_BATCH = 256  # messages per response, so a long resume stays under size limits


async def stream_log(table: Table, seat: int,
                     last_seq: int) -> AsyncIterator[list[gs.TableMessage]]:
    """Batches of ``seat``'s log after ``last_seq``, then new ones as they come,
    until the game is over and everything has been sent."""
    cursor = last_seq
    while True:
        log_ = table.log_for(seat)
        if cursor < len(log_):
            seats = seats_pb(table.info())
            end = min(len(log_), cursor + MAX_BATCH)
            yield [message_pb(seq, log_[seq - 1], seats) for seq in range(cursor + 1, end + 1)]
            cursor = end
            continue
        if table.state is TableState.FINISHED:
            return
        await table.wait_for_change()


class LobbyServicer(ls_grpc.LobbyServiceServicer):
    """Unary lobby rpcs."""

    def __init__(self, lobby: Lobby) -> None:
        self.lobby = lobby

    async def CreateTable(self, request, context):
        try:
            rules = wire.rules_from_pb(request.rules)
            seats = request.seats or 4
            table = self.lobby.create(request.title, seats, rules, request.turn_seconds,
                                      request.bot_delay_seconds)
        except RuleError as err:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(err))
        except LobbyError as err:
            await _abort(context, err)
        log.info("table %s created: %d seats", table.table_id, seats)
        return ls.CreateTableResponse(table=table_pb(table.info()))

    async def ListTables(self, request, context):
        return ls.ListTablesResponse(tables=[table_pb(t.info()) for t in self.lobby.tables.values()])

    async def JoinTable(self, request, context):
        try:
            table = self.lobby.get(request.table_id)
            seat = table.join(request.name, request.seat if request.HasField("seat") else None)
        except LobbyError as err:
            await _abort(context, err)
        return ls.JoinTableResponse(seat=seat.index, seat_token=seat.token,
                                    table=table_pb(table.info()))

    async def AddBot(self, request, context):
        from unoplay.client.bots import make_bot  # pure strategy code shared with clients

        kind = request.kind or "greedy"
        try:
            table = self.lobby.get(request.table_id)
            try:
                bot = make_bot(kind)
            except ValueError as err:
                raise LobbyError("invalid", str(err)) from None
            taken = {s.name for s in table.seats}
            name = next(f"{kind}-{i}" for i in range(1, 100) if f"{kind}-{i}" not in taken)
            seat = table.add_bot(bot, name, request.seat if request.HasField("seat") else None)
        except LobbyError as err:
            await _abort(context, err)
        return ls.AddBotResponse(seat=seat.index, table=table_pb(table.info()))

    async def StartGame(self, request, context):
        try:
            table = self.lobby.get(request.table_id)
            table.seat_for_token(request.seat_token)
            table.start(request.seed if request.HasField("seed") else None)
        except LobbyError as err:
            await _abort(context, err)
        return ls.StartGameResponse(table=table_pb(table.info()))

    async def LeaveTable(self, request, context):
        try:
            table = self.lobby.get(request.table_id)
            table.leave(request.seat_token)
        except LobbyError as err:
            await _abort(context, err)
        return ls.LeaveTableResponse(table=table_pb(table.info()))


class GameServicer(gs_grpc.GameServiceServicer):
    """The game streams."""

    def __init__(self, lobby: Lobby) -> None:
        self.lobby = lobby

    async def Play(self, request_iterator, context):
        try:
            first = await asyncio.wait_for(anext(request_iterator), JOIN_TIMEOUT)
        except (StopAsyncIteration, asyncio.TimeoutError):
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT,
                                "the first message of a stream must be a join")
        if first.WhichOneof("body") != "join":
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT,
                                "the first message of a stream must be a join")
        join = first.join
        try:
            table = self.lobby.get(join.table_id)
            seat = table.seat_for_token(join.seat_token).index
            if join.last_seq > len(table.log_for(seat)):
                raise LobbyError("out_of_range", f"last_seq {join.last_seq} is beyond this stream")
        except LobbyError as err:
            await _abort(context, err)
        table.attach(seat, resuming=join.last_seq > 0)
        reader = asyncio.create_task(self._read_intents(request_iterator, table, seat))
        try:
            async for batch in stream_log(table, seat, join.last_seq):
                yield gs.PlayResponse(messages=batch)
        finally:
            reader.cancel()
            table.detach(seat)

    async def _read_intents(self, requests, table: Table, seat: int) -> None:
        """Apply each intent; malformed ones are refused in the seat's log."""
        async for request in requests:
            kind = request.WhichOneof("body")
            if kind != "intent":
                table.refuse(seat, "malformed", "after join, send only intents", 0)
                continue
            choice = request.intent.WhichOneof("choice")
            if choice == "action_id":
                ident = request.intent.action_id
                action = wire.action_from_id(ident)
                if action is None:
                    table.refuse(seat, "unknown_action_id", f"no action has id {ident}", ident)
                    continue
                table.act(seat, action, ident)
            elif choice == "action":
                table.act(seat, wire.action_from_pb(request.intent.action))
            else:
                table.refuse(seat, "malformed", "an intent needs an action_id or an action", 0)

    async def Spectate(self, request, context):
        try:
            table = self.lobby.get(request.table_id)
            if request.last_seq > len(table.log_for(-1)):
                raise LobbyError("out_of_range", f"last_seq {request.last_seq} is beyond this stream")
        except LobbyError as err:
            await _abort(context, err)
        async for batch in stream_log(table, -1, request.last_seq):
            yield gs.SpectateResponse(messages=batch)


class Server:
    """A running server: the lobby and the ``grpc.aio`` server around it."""

    def __init__(self, grpc_server: grpc.aio.Server, lobby: Lobby, port: int, host: str) -> None:
        self.grpc_server = grpc_server
        self.lobby = lobby
        self.port = port
        self.host = host

    @property
    def address(self) -> str:
        """``host:port`` to connect to (loopback when bound to all interfaces)."""
        host = "127.0.0.1" if self.host in ("0.0.0.0", "[::]", "") else self.host
        return f"{host}:{self.port}"

    async def stop(self, grace: float | None = 1.0) -> None:
        """Stop serving; cancels table timers."""
        self.lobby.close()
        await self.grpc_server.stop(grace)


async def start_server(host: str = "127.0.0.1", port: int = 0,
                       lobby: Lobby | None = None) -> Server:
    """Start serving on ``host:port`` (port 0: an ephemeral port, read back).

    Enables server reflection and the standard health service. Raises
    RuntimeError if the port cannot be bound.
    """
    lobby = lobby or Lobby()
    server = grpc.aio.server(options=KEEPALIVE_OPTIONS)
    ls_grpc.add_LobbyServiceServicer_to_server(LobbyServicer(lobby), server)
    gs_grpc.add_GameServiceServicer_to_server(GameServicer(lobby), server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    names = (
        ls.DESCRIPTOR.services_by_name["LobbyService"].full_name,
        gs.DESCRIPTOR.services_by_name["GameService"].full_name,
        health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
        reflection.SERVICE_NAME,
    )
    reflection.enable_server_reflection(names, server)
    bound = server.add_insecure_port(f"{host}:{port}")
    if not bound:
        raise RuntimeError(f"could not listen on {host}:{port}")
    await server.start()
    for name in names[:2] + ("",):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    return Server(server, lobby, bound, host)
