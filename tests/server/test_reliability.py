"""Reliability and security of the live server (issue 7): keepalive agreement,
away players and the stand-in bot, snapshot-first resume, limits, names,
tokens, TLS, a clean shutdown; then a hypothesis fuzz of a live server and a
fault test that kills and reconnects clients mid-game.

Every network wait is bounded (WAIT); nothing sleeps to synchronise: tests
wait on the server's own change notifications or on stream messages.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import random

import grpc
import pytest
from helpers import AddressRelay, assert_conserved, make_certificate, until
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from unoplay import wire
from unoplay.channel import CLIENT_OPTIONS, SERVER_OPTIONS, keepalive_problems
from unoplay.client.sdk import (
    CHANNEL_OPTIONS,
    Connection,
    Received,
    Refused,
    SeatGone,
    ServerError,
    Snapshot,
    run_bot,
)
from unoplay.game import actions as A
from unoplay.game.actions import ActionKind
from unoplay.game.errors import Reason
from unoplay.game.events import EventKind
from unoplay.game.messages import Refusal, SeatsChanged, TableState
from unoplay.game.registry import make_bot
from unoplay.game.rules import RuleSet
from unoplay.game.rules import preset as rule_preset
from unoplay.server import service
from unoplay.server.limits import Limits
from unoplay.server.service import start_server
from unoplay.throttle import TokenBucket
from unoplay.v1 import game_pb2 as pb
from unoplay.v1 import game_service_pb2 as gs
from unoplay.v1 import lobby_service_pb2 as ls
from unoplay.wire import message_pb

WAIT = 60  # seconds: upper bound for any network wait in these tests
SINGLE = RuleSet(target_score=0)


async def read_response(call):
    response = await asyncio.wait_for(call.read(), WAIT)
    assert response is not grpc.aio.EOF
    return response


async def expect_status(awaitable, *codes):
    """``awaitable`` fails with one of the gRPC status ``codes``: a raw call's
    AioRpcError, or the SDK's ServerError of the same status."""
    with pytest.raises((grpc.aio.AioRpcError, ServerError)) as err:
        await asyncio.wait_for(awaitable, WAIT)
    got = err.value
    status = got.status if isinstance(got, ServerError) else got.code().name
    assert status in {c.name for c in codes}, (status, str(got))
    return got


def _wire(received) -> list[bytes]:
    """What the SDK yielded, serialized again as the wire's messages."""
    return [message_pb(r.seq, r.message).SerializeToString() for r in received]


async def open_play(conn, table_id, token, last_seq=0):
    call = conn.games.Play()
    await call.write(
        gs.PlayRequest(join=gs.JoinGame(table_id=table_id, seat_token=token, last_seq=last_seq))
    )
    return call


async def playing_against_a_bot(conn, name: str, seed: int, rules: RuleSet = SINGLE, **create):
    """A two-seat table: ``name`` against a greedy bot, the game started with
    ``seed``, and ``name``'s game stream opened. Returns (table_id, joined, call)."""
    table_id = (await conn.create_table(seats=2, rules=rules, **create, seed=seed)).table_id
    me = await conn.join_table(table_id, name)
    await conn.add_bot(table_id, "greedy")
    await conn.start_game(table_id, me.seat_token)
    return table_id, me, await open_play(conn, table_id, me.seat_token)


async def read_until_eof(call):
    """Every message of a stream until it ends; raises its error status."""
    messages = []
    while True:
        response = await asyncio.wait_for(call.read(), WAIT)
        if response is grpc.aio.EOF:
            return messages
        messages.extend(response.messages)


# ------------------------------------------------------------------ keepalive


def test_keepalive_settings_of_server_and_sdk_agree():
    assert service.KEEPALIVE_OPTIONS is SERVER_OPTIONS
    assert CHANNEL_OPTIONS is CLIENT_OPTIONS
    assert keepalive_problems(SERVER_OPTIONS, CLIENT_OPTIONS) == []
    server, client = dict(SERVER_OPTIONS), dict(CLIENT_OPTIONS)
    # A dead peer is noticed within seconds on a LAN, on both sides.
    for side in (server, client):
        assert side["grpc.keepalive_time_ms"] + side["grpc.keepalive_timeout_ms"] <= 10_000
    assert server["grpc.max_receive_message_length"] == 64 * 1024
    # The checker does catch a client that pings faster than the server allows.
    eager = dict(client, **{"grpc.keepalive_time_ms": 1_000})
    assert keepalive_problems(SERVER_OPTIONS, list(eager.items()))
    assert keepalive_problems([("grpc.keepalive_time_ms", 1)], CLIENT_OPTIONS)


def test_token_bucket():
    bucket = TokenBucket(rate=10, burst=3, now=0.0)
    assert [bucket.take(0.0) for _ in range(4)] == [True, True, True, False]
    assert bucket.take(0.1)  # 0.1 s refills one token
    assert not bucket.take(0.1)
    bucket.credit(2)
    assert bucket.take(0.1) and bucket.take(0.1) and not bucket.take(0.1)


# ------------------------------------------------------------------ away, stand-in, resume


async def test_dropped_player_is_shown_away_then_a_bot_plays_until_they_return(server, conn):
    table_info = await conn.create_table(
        seats=2, rules=RuleSet(target_score=150), away_grace=0, seed=3
    )
    table = server.lobby.get(table_info.table_id)
    joins = [await conn.join_table(table.table_id, name) for name in ("stays", "drops")]
    stays = asyncio.create_task(
        run_bot(make_bot("greedy", seed=1), conn.session(table.table_id, joins[0].seat_token))
    )
    # The dropping player connects on a channel of its own, plays, then loses it.
    other = Connection(server.address)
    session = other.session(table.table_id, joins[1].seat_token)
    seen: list[gs.TableMessage] = []
    bot = make_bot("greedy", seed=2)

    async def play_until(stop_after):
        async for message in session:
            seen.append(message)
            if session.is_decision(message) and session.state.legal:
                action = bot.decide(session.state.view, session.state.legal)
                if action is not None:
                    await session.send(action)
            if stop_after(message):
                return

    await conn.start_game(table.table_id, joins[0].seat_token)
    await asyncio.wait_for(play_until(lambda m: len(table.history) >= 6), WAIT)
    actions_before = len(table.history)
    await other.close()  # the laptop's Wi-Fi is gone
    # Everyone is told promptly: seat 1 is away, then the stand-in plays it.
    await until(table, lambda: table.seats[1].stand_in is not None, "the stand-in")
    away = [m for m in table.log_for(0) if isinstance(m, SeatsChanged)]
    assert any(not s.seats[1].connected and not s.seats[1].bot for s in away)
    assert any(not s.seats[1].connected and s.seats[1].bot for s in away)
    await until(
        table,
        lambda: (
            any(src == "stand_in" for src in table.history.sources)
            or table.state is TableState.FINISHED
        ),
        "a stand-in move",
    )
    # The player comes back on a new channel, resuming after the last seq seen.
    back = Connection(server.address)
    resumed = back.session(table.table_id, joins[1].seat_token, last_seq=session.last_seq)
    session = resumed
    if table.state is not TableState.FINISHED:
        await asyncio.wait_for(play_until(lambda m: False), WAIT)
    else:
        async for message in resumed:
            seen.append(message)
    await asyncio.wait_for(stays, WAIT)
    await back.close()
    assert table.state is TableState.FINISHED and len(table.history) > actions_before
    assert "stand_in" in table.history.sources
    # The player's messages across both connections are the server's log, exactly.
    # (A long game's log keeps its newest Limits.log_messages only: from first_seq.)
    log_ = table.log_for(1)
    assert [m.seq for m in seen] == list(range(1, len(log_) + 1))
    first = log_.first_seq
    kept = [message_pb(first + i, e).SerializeToString() for i, e in enumerate(log_)]
    assert _wire(seen[first - 1 :]) == kept and len(kept) == len(log_) - first + 1
    assert resumed.state.view == table.game.view(1)
    # Once back, the player took over again: no stand-in move after the return.
    assert table.seats[1].stand_in is None


async def test_resumed_stream_starts_with_a_snapshot_and_keeps_seq_contiguous(server, conn):
    table_id = (await conn.create_table(seats=2, rules=SINGLE, seed=12)).table_id
    table = server.lobby.get(table_id)
    me = await conn.join_table(table_id, "me")
    await conn.add_bot(table_id, "greedy")
    call = await open_play(conn, table_id, me.seat_token)
    first = await read_response(call)
    assert first.HasField("snapshot") and first.snapshot.seq >= 1
    assert first.snapshot.welcome.seat == 0 and not first.snapshot.HasField("update")
    await conn.start_game(table_id, me.seat_token)
    messages = list(first.messages)
    while not any(m.WhichOneof("body") == "update" for m in messages):
        messages.extend((await read_response(call)).messages)
    call.cancel()
    last = messages[-1].seq
    await until(table, lambda: table.seats[0].connections == 0, "the drop to be noticed")
    resumed = await open_play(conn, table_id, me.seat_token, last_seq=last)
    response = await read_response(resumed)
    snap = response.snapshot
    log_ = table.log_for(0)
    # Snapshot first: the state now, then the missed messages after last_seq.
    assert snap.seq == len(log_) and snap.update_seq == len(log_)  # the fresh update
    assert snap.update.view.hand == message_pb(len(log_), log_[-1]).update.view.hand
    assert [m.seq for m in response.messages] == list(
        range(last + 1, last + 1 + len(response.messages))
    )
    assert response.messages[-1].WhichOneof("body") == "update"
    assert snap.welcome.table.seats[0].connected
    # A stale (already acknowledged) resume point is fine: it repeats, identically.
    again = await open_play(conn, table_id, me.seat_token, last_seq=1)
    repeat = (await read_response(again)).messages
    assert repeat[0].seq == 2 and repeat[0] == message_pb(2, table.log_for(0)[1])
    again.cancel()
    resumed.cancel()
    # Beyond the stream: OUT_OF_RANGE.
    beyond = await open_play(conn, table_id, me.seat_token, last_seq=10_000)
    await expect_status(beyond.read(), grpc.StatusCode.OUT_OF_RANGE)


# ------------------------------------------------------------------ limits


async def test_only_a_tables_creator_or_its_players_add_bots(server, conn):
    """AddBot: the client that created a table may call it as is; another
    (another address) is refused PERMISSION_DENIED, and nothing changes at
    the table, unless it gives a seat token of the table (a bad one:
    UNAUTHENTICATED); so nobody fills a stranger's table with bots."""
    table = await conn.create_table(seats=4)
    await conn.join_table(table.table_id, "host")
    await conn.add_bot(table.table_id)  # the creator: no token needed
    async with AddressRelay(server.port, "127.0.0.2") as other, Connection(other) as stranger:
        with pytest.raises(Refused, match="creator, or a player seated"):
            await stranger.add_bot(table.table_id)
        assert [s.name for s in server.lobby.get(table.table_id).seats if s.name] == [
            "host",
            "greedy-1",
        ]
        with pytest.raises(SeatGone):
            await stranger.add_bot(table.table_id, seat_token="not-a-token")
        guest = await stranger.join_table(table.table_id, "guest")
        added = await stranger.add_bot(table.table_id, seat_token=guest.seat_token)
    assert added.table.seats[added.seat].name == "greedy-2"


async def test_table_and_seat_and_stream_limits():
    srv = await start_server(
        "127.0.0.1",
        0,
        limits=Limits(max_tables=2, max_seats_per_name=2, max_streams_per_seat=1, max_spectators=1),
    )
    try:
        async with Connection(srv.address) as conn:
            a = await conn.create_table(seats=2, rules=SINGLE)
            b = await conn.create_table(seats=2, rules=SINGLE)
            await expect_status(conn.create_table(seats=2), grpc.StatusCode.RESOURCE_EXHAUSTED)
            # Seats per name, across tables, ignoring case.
            ja = await conn.join_table(a.table_id, "Sam")
            await conn.join_table(b.table_id, "sam")
            await expect_status(
                conn.join_table(b.table_id, "SAM"), grpc.StatusCode.RESOURCE_EXHAUSTED
            )
            # Streams per seat and spectators per table.
            first = await open_play(conn, a.table_id, ja.seat_token)
            await read_response(first)
            second = await open_play(conn, a.table_id, ja.seat_token)
            await expect_status(second.read(), grpc.StatusCode.RESOURCE_EXHAUSTED)
            watcher = conn.games.Spectate(gs.SpectateRequest(table_id=a.table_id))
            await read_response(watcher)
            extra = conn.games.Spectate(gs.SpectateRequest(table_id=a.table_id))
            await expect_status(extra.read(), grpc.StatusCode.RESOURCE_EXHAUSTED)
            # A finished table counts against the limit until it is dropped.
            await conn.add_bot(a.table_id, "greedy")
            await conn.start_game(a.table_id, ja.seat_token)
            await conn.leave_table(a.table_id, ja.seat_token)  # a bot finishes it
            await read_until_eof(watcher)
            assert srv.lobby.get(a.table_id).state is TableState.FINISHED
            await expect_status(conn.create_table(seats=2), grpc.StatusCode.RESOURCE_EXHAUSTED)
            srv.lobby.limits = dataclasses.replace(srv.lobby.limits, finished_ttl=0)
            await conn.create_table(seats=2)  # the finished table was dropped to make room
            first.cancel()
    finally:
        await srv.stop(None)


async def test_oversized_messages_are_refused_and_the_server_goes_on(server, conn):
    huge = "x" * (70 * 1024)
    await expect_status(conn.join_table("t1", huge), grpc.StatusCode.RESOURCE_EXHAUSTED)
    await expect_status(conn.create_table(title=huge), grpc.StatusCode.RESOURCE_EXHAUSTED)
    table_id = (await conn.create_table(seats=2, rules=SINGLE, seed=2)).table_id
    me = await conn.join_table(table_id, "me")
    call = await open_play(conn, table_id, me.seat_token)
    await read_response(call)
    await call.write(gs.PlayRequest(join=gs.JoinGame(table_id=huge)))
    await expect_status(read_until_eof(call), grpc.StatusCode.RESOURCE_EXHAUSTED)
    # Nothing harmed: the seat plays a whole game afterwards.
    await conn.add_bot(table_id, "greedy")
    await conn.start_game(table_id, me.seat_token)
    state = await asyncio.wait_for(
        run_bot(make_bot("greedy"), conn.session(table_id, me.seat_token)), WAIT
    )
    assert state.game_over


async def test_a_long_id_quoted_back_is_clipped_so_the_real_status_arrives(server, conn):
    long_id = "t" * 20_000  # under the message limit, over grpc's limit for a status
    err = await expect_status(conn.join_table(long_id, "me"), grpc.StatusCode.NOT_FOUND)
    assert len(str(err)) <= 300 and str(err).endswith("…")
    err = await expect_status(conn.create_table(preset=long_id), grpc.StatusCode.INVALID_ARGUMENT)
    assert len(str(err)) <= 300


async def test_a_flood_of_messages_ends_the_stream_with_resource_exhausted_game_unharmed():
    srv = await start_server("127.0.0.1", 0, limits=Limits(intents_per_second=5, intent_burst=10))
    try:
        async with Connection(srv.address) as conn:
            table_id, me, call = await playing_against_a_bot(conn, "flooder", seed=5)
            table = srv.lobby.get(table_id)
            await read_response(call)
            # The burst (10), then one more. (Writing on after the server ended
            # the call would make grpc's Python client report a local INTERNAL
            # error instead of the server's status.)
            for _ in range(11):
                await call.write(gs.PlayRequest(intent=gs.Intent(action_id=999_999)))
            err = await expect_status(read_until_eof(call), grpc.StatusCode.RESOURCE_EXHAUSTED)
            assert "per second" in err.details()
            refusals = [m for m in table.log_for(0) if isinstance(m, Refusal)]
            assert len(refusals) == 10  # the burst was served (refused), the rest cut off
            # The seat is still there: resume and play the game out.
            session = conn.session(table_id, me.seat_token)
            state = await asyncio.wait_for(run_bot(make_bot("greedy"), session), WAIT)
            assert state.game_over and table.state is TableState.FINISHED
    finally:
        await srv.stop(None)


async def test_costly_mistakes_that_only_feed_themselves_do_not_refill_the_budget():
    """False UNO calls are legal (false_uno_penalty) and each one sends the caller
    an update; the update after a seat's own costly mistake refills nothing, so endless
    calls end the stream instead of growing the table's logs without bound."""
    srv = await start_server("127.0.0.1", 0, limits=Limits(intents_per_second=0.5, intent_burst=10))
    try:
        async with Connection(srv.address) as conn:
            rules = RuleSet(target_score=0, false_uno_penalty=1)
            table_id, me, call = await playing_against_a_bot(
                conn, "caller", seed=5, rules=rules, window_ms=0
            )
            table = srv.lobby.get(table_id)
            current = -1
            while current != me.seat:  # on my turn the bot waits: no update but my own
                for m in (await read_response(call)).messages:
                    if m.HasField("update"):
                        current = m.update.view.current
            call_uno = wire.action_id(A.CALL_UNO)
            for _ in range(11):  # the burst, then one more
                await call.write(gs.PlayRequest(intent=gs.Intent(action_id=call_uno)))
            await expect_status(read_until_eof(call), grpc.StatusCode.RESOURCE_EXHAUSTED)
            false_calls = [
                m
                for m in table.log_for(me.seat)
                if getattr(m, "kind", None) is EventKind.UNO_FALSE_CALL
            ]
            assert len(false_calls) == 10
    finally:
        await srv.stop(None)


@pytest.mark.parametrize("preset", ["official", "house"])
async def test_a_bot_sending_one_intent_per_update_is_never_limited(preset):
    """The guide's rule (section 4): at most one intent per update is never
    limited, under any rules, even in a 2-seat house game where the same seat
    moves again and again (Skip, Reverse, stacking, a drawn card played). With
    no refill by time at all, only the updates pay for the intents (a burst of
    6 covers the few intents a lost race adds: after a refusal the loop
    decides again before the next update)."""
    limits = Limits(intents_per_second=0.0, intent_burst=6)
    srv = await start_server("127.0.0.1", 0, limits=limits)
    try:
        async with Connection(srv.address) as conn:
            # to 500: a game to 200 (random deals) was now and then over before
            # this seat had made 3 bursts' worth of moves
            rules = dataclasses.replace(rule_preset(preset), target_score=500)
            table_id = (await conn.create_table(seats=2, rules=rules, window_ms=0)).table_id
            me = await conn.join_table(table_id, "steady")
            await conn.add_bot(table_id, "greedy")
            await conn.start_game(table_id, me.seat_token)
            session = conn.session(table_id, me.seat_token)
            state = await asyncio.wait_for(run_bot(make_bot("greedy", seed=3), session), WAIT)
            table = srv.lobby.get(table_id)
            assert state.game_over and table.state is TableState.FINISHED
            assert session.reconnects == 0  # never cut off
            mine = sum(1 for s, _ in table.history if s == me.seat)
            assert mine > 3 * limits.intent_burst  # far more than the burst: updates paid
    finally:
        await srv.stop(None)


async def test_the_budget_is_the_seats_a_new_stream_starts_with_what_the_last_left():
    srv = await start_server("127.0.0.1", 0, limits=Limits(intents_per_second=0.1, intent_burst=10))
    try:
        async with Connection(srv.address) as conn:
            table_id, me, call = await playing_against_a_bot(conn, "flooder", seed=5)
            await read_response(call)
            for _ in range(11):
                await call.write(gs.PlayRequest(intent=gs.Intent(action_id=999_999)))
            await expect_status(read_until_eof(call), grpc.StatusCode.RESOURCE_EXHAUSTED)
            again = await open_play(conn, table_id, me.seat_token, last_seq=1)
            await read_response(again)
            await again.write(gs.PlayRequest(intent=gs.Intent(action_id=999_999)))
            await expect_status(read_until_eof(again), grpc.StatusCode.RESOURCE_EXHAUSTED)
            refusals = [m for m in srv.lobby.get(table_id).log_for(0) if isinstance(m, Refusal)]
            assert len(refusals) == 10  # the second stream got nothing more through
    finally:
        await srv.stop(None)


async def test_a_seat_reconnecting_in_a_loop_is_refused_then_let_back():
    srv = await start_server("127.0.0.1", 0, limits=Limits(joins_per_second=0.001, join_burst=3))
    try:
        async with Connection(srv.address) as conn:
            table_id = (await conn.create_table(seats=2, rules=SINGLE)).table_id
            me = await conn.join_table(table_id, "churner")
            table = srv.lobby.get(table_id)
            for _ in range(3):
                call = await open_play(conn, table_id, me.seat_token)
                await read_response(call)
                call.cancel()
                await until(table, lambda: table.seats[0].connections == 0, "the stream to close")
            log_size = len(table.log_for(0))
            call = await open_play(conn, table_id, me.seat_token)
            err = await expect_status(read_until_eof(call), grpc.StatusCode.RESOURCE_EXHAUSTED)
            assert "reconnects too often" in err.details()
            assert len(table.log_for(0)) == log_size  # the refused join appended nothing
    finally:
        await srv.stop(None)


async def test_an_undecodable_message_ends_the_stream_with_invalid_argument(server, conn):
    table_id = (await conn.create_table(seats=2, rules=SINGLE)).table_id
    me = await conn.join_table(table_id, "garbler")
    async with grpc.aio.insecure_channel(server.address) as channel:
        raw = channel.stream_stream("/unoplay.v1.GameService/Play")  # bytes in, bytes out
        first = raw()
        await first.write(b"\x0a\x04\x0a\x02\xc3\x28")  # a join whose table id is not UTF-8
        await expect_status(read_until_eof(first), grpc.StatusCode.INVALID_ARGUMENT)
        later = raw()
        join = gs.JoinGame(table_id=table_id, seat_token=me.seat_token)
        await later.write(gs.PlayRequest(join=join).SerializeToString())
        assert await asyncio.wait_for(later.read(), WAIT)
        await later.write(b"\xff\xff\xff")
        err = await expect_status(read_until_eof(later), grpc.StatusCode.INVALID_ARGUMENT)
        assert "could not be decoded" in err.details()


# ------------------------------------------------------------------ names and titles

BAD_NAMES = [
    "",
    "   ",
    "a" * 25,
    "tab\there",
    "new\nline",
    "bell\x07",
    "rtl\u202eevil",
    "zero\u200dwidth",
    "\u0301accent first",
    "zalgo" + "\u0301\u0302\u0303\u0304",
    "private\ue000use",
    "nul\x00",
    "line\u2028sep",
    "ideo\u3000space",
]
GOOD_NAMES = {
    "Zoë": "Zoë",
    "  Ana  María  ": "Ana María",
    "李小龍": "李小龍",
    "🦊 fox": "🦊 fox",
    "Zoe\u0308": "Zoë",
    "a" * 24: "a" * 24,
}


async def test_names_and_titles_are_validated(server, conn):
    table_id = (await conn.create_table(seats=10)).table_id
    for bad in BAD_NAMES:
        await expect_status(conn.join_table(table_id, bad), grpc.StatusCode.INVALID_ARGUMENT)
    for typed, stored in GOOD_NAMES.items():
        joined = await conn.join_table(table_id, typed)
        assert joined.table.seats[joined.seat].name == stored
    for bad in ("x" * 41, "bidi\u202e", "two\nlines"):
        await expect_status(conn.create_table(title=bad), grpc.StatusCode.INVALID_ARGUMENT)
    assert (await conn.create_table(title="  Friday   night  ")).title == "Friday night"


# ------------------------------------------------------------------ secrets


async def test_tokens_are_unguessable_private_and_bound_to_their_table(server, conn):
    rules = RuleSet(target_score=0)
    tables, tokens = [], {}
    for t in range(2):
        table_id = (await conn.create_table(seats=3, rules=rules, window_ms=0, seed=9)).table_id
        joins = [await conn.join_table(table_id, f"p{t}{s}") for s in range(3)]
        tables.append((table_id, joins))
        for j in joins:
            tokens[j.seat_token] = (table_id, j.seat)
    assert len(tokens) == 6 and all(len(t) >= 22 for t in tokens)  # 128 bits, url-safe
    (a_id, a_joins), (_b_id, b_joins) = tables
    foreign = b_joins[0].seat_token
    # A token of table B is useless at table A: start, leave, play.
    await expect_status(conn.start_game(a_id, foreign), grpc.StatusCode.UNAUTHENTICATED)
    await expect_status(conn.leave_table(a_id, foreign), grpc.StatusCode.UNAUTHENTICATED)
    call = await open_play(conn, a_id, foreign)
    await expect_status(call.read(), grpc.StatusCode.UNAUTHENTICATED)
    # Odd tokens are refused the same way, never with an internal error.
    for odd in ("", "é" * 22, "\x00", a_joins[0].seat_token[:-1]):
        call = await open_play(conn, a_id, odd)
        await expect_status(call.read(), grpc.StatusCode.UNAUTHENTICATED)
    # Play both games out, recording every byte anyone received.
    received: list[bytes] = []
    for table_id, joins in tables:
        sessions = [conn.session(table_id, j.seat_token) for j in joins]
        tasks = [
            asyncio.create_task(run_bot(make_bot("random", seed=i), s))
            for i, s in enumerate(sessions)
        ]
        watcher = conn.games.Spectate(gs.SpectateRequest(table_id=table_id))

        async def watch(call=watcher) -> None:  # read as it goes: a spectator keeps up
            async for response in call:
                received.append(response.SerializeToString())

        watching = asyncio.create_task(watch())
        await conn.start_game(table_id, joins[0].seat_token)
        await asyncio.wait_for(asyncio.gather(*tasks), WAIT)
        await asyncio.wait_for(watching, WAIT)
        for seat, _session in enumerate(sessions):
            log_ = server.lobby.get(table_id).log_for(seat)
            received += [message_pb(i + 1, m).SerializeToString() for i, m in enumerate(log_)]
    received += [wire.table_pb(t).SerializeToString() for t in await conn.list_tables()]
    blob = b"".join(received)
    for token in tokens:
        assert token.encode() not in blob


async def test_leaving_revokes_the_token_and_ends_its_streams(server, conn):
    table_id, me, call = await playing_against_a_bot(
        conn, "me", seed=4, rules=RuleSet(target_score=300)
    )
    table = server.lobby.get(table_id)
    await read_response(call)
    await conn.leave_table(table_id, me.seat_token)
    left_at = len(table.history)
    err = await expect_status(read_until_eof(call), grpc.StatusCode.UNAUTHENTICATED)
    assert "given up" in err.details()
    again = await open_play(conn, table_id, me.seat_token)
    await expect_status(again.read(), grpc.StatusCode.UNAUTHENTICATED)
    await until(table, lambda: table.state is TableState.FINISHED, "the bots to finish")
    after = list(zip(table.history, table.history.sources))[left_at:]
    assert after and all(source == "bot" for (seat, _), source in after if seat == 0)


async def test_a_seat_given_up_before_the_game_leaks_nothing_to_an_old_stream(server, conn):
    table_id = (await conn.create_table(seats=2, rules=SINGLE)).table_id
    first = await conn.join_table(table_id, "first")
    old = await open_play(conn, table_id, first.seat_token)
    await read_response(old)
    await conn.leave_table(table_id, first.seat_token)
    await expect_status(read_until_eof(old), grpc.StatusCode.UNAUTHENTICATED)
    second = await conn.join_table(table_id, "second")
    assert second.seat == first.seat and second.seat_token != first.seat_token


# ------------------------------------------------------------------ TLS


async def test_tls_with_a_self_signed_certificate(tmp_path):
    cert, key = make_certificate(tmp_path)
    srv = await start_server("127.0.0.1", 0, tls=(cert.read_bytes(), key.read_bytes()))
    try:
        async with Connection(srv.address, root_certificates=cert.read_bytes()) as conn:
            table = await conn.create_table(seats=2, rules=SINGLE, seed=1)
            me = await conn.join_table(table.table_id, "secure")
            await conn.add_bot(table.table_id, "greedy")
            await conn.start_game(table.table_id, me.seat_token)
            state = await asyncio.wait_for(
                run_bot(make_bot("greedy"), conn.session(table.table_id, me.seat_token)), WAIT
            )
            assert state.game_over
        # Plain text to a TLS port, or TLS without trusting the certificate: no way in.
        async with Connection(srv.address, tls=False, timeout=WAIT) as plain:
            await expect_status(plain.list_tables(), grpc.StatusCode.UNAVAILABLE)
        async with Connection(srv.address, tls=True, timeout=WAIT) as untrusted:
            await expect_status(untrusted.list_tables(), grpc.StatusCode.UNAVAILABLE)
    finally:
        await srv.stop(None)


async def test_tls_ca_from_the_environment(tmp_path, monkeypatch):
    cert, key = make_certificate(tmp_path)
    srv = await start_server("127.0.0.1", 0, tls=(cert.read_bytes(), key.read_bytes()))
    monkeypatch.setenv("UNOPLAY_TLS_CA", str(cert))
    try:
        async with Connection(srv.address) as conn:
            assert conn.tls
            assert await conn.list_tables() == []
    finally:
        await srv.stop(None)


# ------------------------------------------------------------------ shutdown


async def test_stopping_the_server_ends_streams_with_unavailable(conn, server):
    table_id, _me, call = await playing_against_a_bot(
        conn, "me", seed=6, rules=RuleSet(target_score=500)
    )
    await read_response(call)
    watcher = conn.games.Spectate(gs.SpectateRequest(table_id=table_id))
    await read_response(watcher)
    assert len(server.games.streams) == 2  # the game stream's rpc and the spectator's
    stopping = asyncio.create_task(server.stop(5.0))
    for stream in (call, watcher):
        err = await expect_status(read_until_eof(stream), grpc.StatusCode.UNAVAILABLE)
        assert "shutting down" in err.details()
    await asyncio.wait_for(stopping, WAIT)
    assert server.lobby.closing and server.lobby.get(table_id).closing
    assert not server.games.streams  # every stream's rpc is over once stop returns


# ------------------------------------------------------------------ fuzz
#
# One live loopback server; hypothesis throws random and malformed intents,
# out-of-turn actions, stale and impossible resume points, wrong tokens,
# oversized messages and garbage lobby calls at it, between the moves of games
# it drives itself. After every example: every refusal carries a known reason,
# every failed rpc the status its abuse calls for, every seat's stream is
# exactly the server's log (contiguous, nothing lost or repeated), every
# seat's latest view is the server's, and all 108 cards are accounted for.

REASONS = {r.value for r in Reason} | {
    "unknown_action_id",
    "malformed",
    "game_not_started",
    "game_over",
}
FUZZ_EXAMPLES = int(os.environ.get("UNOPLAY_FUZZ_EXAMPLES", "1000"))  # more: a longer soak
PROBE_BASE = 12_000_000  # intent ids from here on name no action: refused, echoed back


class FuzzSeat:
    """One seat's stream as the fuzzer holds it: every message received, checked."""

    def __init__(self, table, index: int, token: str) -> None:
        self.table = table
        self.index = index
        self.token = token
        self.messages: list[gs.TableMessage] = []
        self.call = None
        self.ended = False
        self.repeats = 0
        self.probes_back: set[int] = set()

    @property
    def last_seq(self) -> int:
        return len(self.messages)

    async def open(self, conn, last_seq: int = 0) -> None:
        self.call = await open_play(conn, self.table.table_id, self.token, last_seq)
        self.ended = False
        response = await read_response(self.call)
        snap = response.snapshot
        log_ = self.table.log_for(self.index)
        assert response.HasField("snapshot") and snap.seq == len(log_)
        assert snap.welcome.seat == self.index
        if snap.update_seq:
            assert snap.update == message_pb(snap.update_seq, log_[snap.update_seq - 1]).update
        self.repeats = self.last_seq  # resumed from a stale point: these come again
        self.take(response.messages)

    def take(self, messages) -> None:
        log_ = self.table.log_for(self.index)
        for m in messages:
            if m.seq <= self.last_seq:  # a resume from a stale point repeats, identically
                assert m.seq <= self.repeats and m == self.messages[m.seq - 1]
                continue
            assert m.seq == self.last_seq + 1, "a gap in the stream"
            assert m == message_pb(m.seq, log_[m.seq - 1])
            if m.WhichOneof("body") == "error":
                assert m.error.reason in REASONS, m.error
                if m.error.action_id >= PROBE_BASE:
                    self.probes_back.add(m.error.action_id)
            self.messages.append(m)

    async def read_more(self) -> bool:
        response = await asyncio.wait_for(self.call.read(), WAIT)
        if response is grpc.aio.EOF:
            self.ended = True
            return False
        self.take(response.messages)
        return True

    async def drain(self) -> None:
        """Read until this stream holds the seat's whole log (or it ended)."""
        while not self.ended and self.last_seq < len(self.table.log_for(self.index)):
            await self.read_more()

    async def probe(self, ident: int) -> None:
        """Send an intent that is refused and wait for its refusal: every message
        sent before it on this stream has been handled by then."""
        await self.call.write(gs.PlayRequest(intent=gs.Intent(action_id=ident)))
        while ident not in self.probes_back:
            if not await self.read_more():  # the game ended first: the stream is complete
                assert self.table.state is TableState.FINISHED, "stream ended early"
                return

    def latest_update(self):
        return next(
            (m.update for m in reversed(self.messages) if m.WhichOneof("body") == "update"), None
        )


class Fuzzer:
    """The games the fuzz examples play; a new one starts when one ends."""

    def __init__(self, server, conn) -> None:
        self.server = server
        self.conn = conn
        self.table = None
        self.seats: list[FuzzSeat] = []
        self.games = 0
        self.finished = 0
        self.probes = PROBE_BASE
        self.statuses: dict[str, int] = {}
        self.side_table = ""
        self.examples = 0

    async def new_game(self) -> None:
        self.games += 1
        n = 2 + self.games % 3
        # (Not false_uno_penalty: random garbage would call UNO falsely for ever.)
        options = [
            {},
            {"scoring": "penalty", "challenge_success_skips_challenger": False},
            {"uno_call_strict": True, "uno_penalty": 4},
        ]
        rules = RuleSet(target_score=0, **options[self.games % 3])
        # A short out-of-turn window: garbage meets held intents, and the run stays quick.
        table_id = (
            await self.conn.create_table(seats=n, rules=rules, window_ms=50, seed=self.games)
        ).table_id
        self.table = self.server.lobby.get(table_id)
        joins = [await self.conn.join_table(table_id, f"fuzz{self.games}-{i}") for i in range(n)]
        self.seats = [FuzzSeat(self.table, j.seat, j.seat_token) for j in joins]
        for seat in self.seats:
            await seat.open(self.conn)
        await self.conn.start_game(table_id, joins[0].seat_token)

    def note(self, code) -> None:
        self.statuses[code.name] = self.statuses.get(code.name, 0) + 1

    async def expect(self, awaitable, *codes) -> None:
        """An rpc that must fail with one of ``codes`` (or, if OK is listed, succeed)."""
        try:
            await asyncio.wait_for(awaitable, WAIT)
        except grpc.aio.AioRpcError as err:
            assert err.code() in codes, (err.code(), err.details())
            self.note(err.code())
            return
        except ServerError as err:  # a lobby call through the SDK
            code = grpc.StatusCode[err.status]
            assert code in codes, (err.status, str(err))
            self.note(code)
            return
        assert grpc.StatusCode.OK in codes, "expected a refusal"
        self.note(grpc.StatusCode.OK)

    async def bad_stream(self, variant: int, text: str) -> None:
        table_id = self.table.table_id
        other = self.seats[0].token
        if variant == 0:  # a wrong token: random text, or a token of another seat's table
            call = await open_play(self.conn, table_id, text or "forged")
            await self.expect(call.read(), grpc.StatusCode.UNAUTHENTICATED)
        elif variant == 1:
            call = await open_play(self.conn, "no-such-" + text, other)
            await self.expect(call.read(), grpc.StatusCode.NOT_FOUND)
        elif variant == 2:  # the first message is not a join
            call = self.conn.games.Play()
            await call.write(gs.PlayRequest(intent=gs.Intent(action_id=1)))
            await self.expect(call.read(), grpc.StatusCode.INVALID_ARGUMENT)
        elif variant == 3:  # resume beyond the stream
            call = await open_play(self.conn, table_id, other, 10**9 + len(text))
            await self.expect(call.read(), grpc.StatusCode.OUT_OF_RANGE)
        elif variant == 4 and len(text) % 4 == 1:  # oversized (slow: a flow-control wait)
            call = await open_play(self.conn, table_id, "x" * (70_000 + len(text)))
            await self.expect(call.read(), grpc.StatusCode.RESOURCE_EXHAUSTED)
        elif variant == 5:  # no message at all
            call = self.conn.games.Play()
            await call.done_writing()
            await self.expect(call.read(), grpc.StatusCode.INVALID_ARGUMENT)
        elif variant == 4:  # an impossibly long token that still fits in a message
            call = await open_play(self.conn, table_id, "t" * 60_000)
            await self.expect(call.read(), grpc.StatusCode.UNAUTHENTICATED)
        else:  # spectators: beyond the stream, or a look and go
            watcher = self.conn.games.Spectate(
                gs.SpectateRequest(table_id=table_id, last_seq=10**9 if text else 0)
            )
            if text:
                await self.expect(watcher.read(), grpc.StatusCode.OUT_OF_RANGE)
            else:
                assert (await read_response(watcher)).HasField("snapshot")
                watcher.cancel()

    async def lobby_call(self, variant: int, number: int, text: str) -> None:
        ok, invalid = grpc.StatusCode.OK, grpc.StatusCode.INVALID_ARGUMENT
        exhausted, failed = grpc.StatusCode.RESOURCE_EXHAUSTED, grpc.StatusCode.FAILED_PRECONDITION
        if variant == 0:
            rules = pb.RuleSet(
                preset=text[:8] if number % 3 == 0 else "",
                uno_penalty=number % 14,
                target_score=number % 200_000,
            )
            await self.expect(
                self.conn.lobby.CreateTable(
                    ls.CreateTableRequest(
                        title=text,
                        seats=number % 13,
                        rules=rules,
                        turn_seconds=number % 5000,
                        away_grace_seconds=number % 4000,
                        bot_delay_seconds=(number % 15) / 1.0,
                    ),
                    timeout=WAIT,
                ),
                ok,
                invalid,
                exhausted,
            )
        elif variant == 1:
            if not self.side_table:
                self.side_table = (await self.conn.create_table(seats=10)).table_id
            table_id = self.side_table if number % 2 else self.table.table_id
            seat = number % 12 if number % 3 == 0 else None
            await self.expect(
                self.conn.join_table(table_id, text, seat), ok, invalid, exhausted, failed
            )
        elif variant == 2:
            await self.expect(
                self.conn.start_game(self.table.table_id, text or "x"),
                grpc.StatusCode.UNAUTHENTICATED,
            )
            await self.expect(
                self.conn.leave_table(self.table.table_id, text or "x"),
                grpc.StatusCode.UNAUTHENTICATED,
            )
        else:
            await self.expect(
                self.conn.add_bot(self.table.table_id, text, number % 12), invalid, failed
            )

    async def example(self, ops, advance: int) -> None:
        self.examples += 1
        if self.table is None or all(s.ended for s in self.seats):
            await self.new_game()
        game = self.table.game
        touched = set()
        for op in ops:
            kind = op[0]
            if kind in ("id", "other", "action", "malformed", "resume"):
                seat = self.seats[op[1] % len(self.seats)]
                if seat.ended:
                    continue
                touched.add(seat)
            if kind == "id":
                await seat.call.write(gs.PlayRequest(intent=gs.Intent(action_id=op[2])))
            elif kind == "other":  # another seat's legal action, out of turn
                legal = game.legal_actions((seat.index + 1) % len(self.seats))
                if legal:
                    ident = wire.action_id(legal[op[2] % len(legal)])
                    await seat.call.write(gs.PlayRequest(intent=gs.Intent(action_id=ident)))
            elif kind == "action":
                _, _, k, card, colour, uno, target = op
                action = pb.Action(kind=k, colour=colour, uno=uno, card_id=card, target=target)
                await seat.call.write(gs.PlayRequest(intent=gs.Intent(action=action)))
            elif kind == "malformed":
                requests = [
                    gs.PlayRequest(join=gs.JoinGame(table_id="x")),
                    gs.PlayRequest(intent=gs.Intent()),
                    gs.PlayRequest(),
                ]
                await seat.call.write(requests[op[2] % 3])
            elif kind == "resume":  # drop the stream, resume from an earlier (stale) seq
                seat.call.cancel()
                await until(
                    self.table,
                    lambda s=seat: (
                        s.table.seats[s.index].connections == 0
                        or self.table.state is TableState.FINISHED
                    ),
                    "the drop",
                )
                if self.table.state is TableState.FINISHED:
                    seat.ended = True
                    continue
                await seat.open(self.conn, min(seat.last_seq, op[2] % (seat.last_seq + 1)))
            elif kind == "stream":
                await self.bad_stream(op[1], op[2])
            else:
                await self.lobby_call(op[1], op[2], op[3])
        await self.settle(touched)
        if self.table.state is not TableState.FINISHED:
            # The player to move, mostly playing a card (random calls and draws
            # can make a game go on for ever), now and then another legal action
            # of anyone (a catch, a UNO call).
            extra = [
                (s, a)
                for s in self.seats
                for a in game.legal_actions(s.index)
                if a.kind is ActionKind.CATCH
                or (a.kind is ActionKind.CALL_UNO and game.catchable == s.index)
            ]
            if extra and advance % 3 == 0:
                seat, action = extra[advance % len(extra)]
            else:
                seat = self.seats[game.current]
                legal = game.legal_actions(seat.index)
                plays = [a for a in legal if a.kind is ActionKind.PLAY]
                pool = plays if plays and advance % 5 else legal
                pool = [a for a in pool if a.kind is not ActionKind.CALL_UNO] or pool
                action = pool[advance // 7 % len(pool)]
            before = len(self.table.history)
            if advance % 2:
                await seat.call.write(
                    gs.PlayRequest(intent=gs.Intent(action_id=wire.action_id(action)))
                )
            else:
                await seat.call.write(
                    gs.PlayRequest(intent=gs.Intent(action=wire.action_pb(action)))
                )
            await self.settle({seat})
            assert len(self.table.history) == before + 1, "a legal move was not applied"
        await self.check()

    async def settle(self, seats) -> None:
        """Wait until the server has handled everything sent, and every stream
        holds its seat's whole log."""
        for seat in seats:
            if not seat.ended and self.table.state is not TableState.FINISHED:
                self.probes += 1
                await seat.probe(self.probes)
        for seat in self.seats:
            await seat.drain()

    async def check(self) -> None:
        table, game = self.table, self.table.game
        assert_conserved(game)
        for seat in self.seats:
            assert seat.last_seq == len(table.log_for(seat.index))
            update = seat.latest_update()
            if update is not None:
                assert [c.id for c in update.view.hand] == list(game.hand(seat.index))
                assert update.view.current == game.current
        if table.state is TableState.FINISHED:
            for seat in self.seats:  # the streams end cleanly once everything is sent
                while not seat.ended:
                    await seat.read_more()
                assert seat.last_seq == len(table.log_for(seat.index))
            assert game.is_game_over
            self.finished += 1


texts = st.text(max_size=30)
fuzz_ops = st.lists(
    st.one_of(
        st.tuples(
            st.just("id"),
            st.integers(0, 9),
            st.one_of(st.integers(0, 2**32 - 1), st.integers(0, 30), st.integers(100, 12_100)),
        ),
        st.tuples(st.just("other"), st.integers(0, 9), st.integers(0, 50)),
        st.tuples(
            st.just("action"),
            st.integers(0, 9),
            st.integers(0, 12),
            st.integers(0, 130),
            st.integers(0, 7),
            st.booleans(),
            st.integers(0, 12),
        ),
        st.tuples(st.just("malformed"), st.integers(0, 9), st.integers(0, 2)),
        st.tuples(st.just("resume"), st.integers(0, 9), st.integers(0, 10**6)),
        st.tuples(st.just("stream"), st.integers(0, 6), texts),
        st.tuples(st.just("lobby"), st.integers(0, 3), st.integers(0, 10**6), texts),
    ),
    max_size=6,
)


@pytest.fixture
async def fuzzer():
    # Generous message, join and waiting-table budgets here: floods and the
    # per-client table cap are the subjects of their own tests.
    srv = await start_server(
        "127.0.0.1",
        0,
        limits=Limits(
            intents_per_second=1e9,
            intent_burst=1e9,
            joins_per_second=1e9,
            join_burst=1e9,
            max_waiting_tables_per_client=10**6,
        ),
    )
    async with Connection(srv.address) as conn:
        await conn.wait_ready()
        fuzzer = Fuzzer(srv, conn)
        yield fuzzer
        # After the run: games did finish, and the server still serves.
        if fuzzer.examples >= 200:
            assert fuzzer.finished >= 3, (fuzzer.games, fuzzer.finished)
            assert {"UNAUTHENTICATED", "NOT_FOUND", "INVALID_ARGUMENT"} <= set(fuzzer.statuses)
        from grpc_health.v1 import health_pb2, health_pb2_grpc

        reply = await health_pb2_grpc.HealthStub(conn.channel).Check(
            health_pb2.HealthCheckRequest(service=""), timeout=WAIT
        )
        assert reply.status == health_pb2.HealthCheckResponse.SERVING
    await srv.stop(None)


# No shrinking: the server keeps its state between examples, so a smaller
# example would not replay the same situation; the failing one is reported.
# Derandomised (the same cases every run, so never flaky); UNOPLAY_FUZZ_RANDOM=1
# explores new ones, UNOPLAY_FUZZ_EXAMPLES=N runs longer.
@settings(
    max_examples=FUZZ_EXAMPLES,
    deadline=None,
    database=None,
    derandomize=os.environ.get("UNOPLAY_FUZZ_RANDOM", "0") != "1",
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(ops=fuzz_ops, advance=st.integers(0, 10**6))
async def test_fuzz_a_live_server_with_garbage_between_moves(fuzzer, ops, advance):
    await fuzzer.example(ops, advance)


async def test_fuzz_bookkeeping_on_a_short_run(fuzzer):
    """The fuzzer's own bookkeeping: games do finish and refusals are met."""
    rng = random.Random(7)
    while fuzzer.finished < 2:
        ops = [
            ("id", rng.randrange(4), rng.randrange(2**32)),
            ("stream", rng.randrange(7), "t" * rng.randrange(3)),
            ("lobby", rng.randrange(4), rng.randrange(10**6), "n"),
        ]
        await asyncio.wait_for(fuzzer.example(ops[: rng.randrange(4)], rng.randrange(10**6)), WAIT)
    assert fuzzer.games >= 2
    assert {"UNAUTHENTICATED", "NOT_FOUND", "OUT_OF_RANGE"} & set(fuzzer.statuses)


# ------------------------------------------------------------------ faults
#
# Clients killed at random moments mid-game (a stream cut, a channel closed as
# a dying process would, a player away long enough for the stand-in bot to
# play) and reconnected, each new life resuming from the last seq it saw.


class FaultyPlayer:
    """One seat's player, killed now and then, always coming back."""

    def __init__(
        self, server, table, token: str, seat: int, rng: random.Random, kills: int
    ) -> None:
        self.server = server
        self.table = table
        self.token = token
        self.seat = seat
        self.rng = rng
        self.kills = kills
        self.received: list[Received] = []
        self.lives = 0
        self.snapshots: list[Snapshot] = []
        self.session = None

    def note_snapshot(self, session) -> None:
        if session.snapshot is not None and (
            not self.snapshots or session.snapshot is not self.snapshots[-1]
        ):
            self.snapshots.append(session.snapshot)

    async def play(self) -> None:
        bot = make_bot("greedy", seed=self.seat)
        while True:
            self.lives += 1
            conn = Connection(self.server.address)
            session = conn.session(self.table.table_id, self.token, last_seq=len(self.received))
            self.session = session
            mode = self.rng.choice(["drop", "close", "away"]) if self.kills else None
            kill_at = self.rng.randint(1, 80)
            count = 0
            try:
                async for message in session:
                    self.note_snapshot(session)
                    assert message.seq == len(self.received) + 1, "gap or repeat"
                    self.received.append(message)
                    if session.is_decision(message) and session.state.legal:
                        action = bot.decide(session.state.view, session.state.legal)
                        if action is not None:
                            await session.send(action)
                    count += 1
                    if mode == "drop" and count == kill_at:
                        session.drop()  # the SDK reconnects by itself and resumes
                        self.kills -= 1
                        mode = self.rng.choice(["drop", "close", "away"]) if self.kills else None
                        kill_at = count + self.rng.randint(1, 80)
                    elif mode in ("close", "away") and count == kill_at:
                        break
                else:
                    return  # the game is over and every message arrived
            finally:
                self.note_snapshot(session)
                await session.close()
                await conn.close()
            self.kills -= 1
            if mode == "away":  # stay away until the server has noticed, and a bit more
                table, seat = self.table, self.table.seats[self.seat]
                await until(table, lambda: seat.connections == 0, "the drop")
                if table.away_grace == 0:
                    version = table.version
                    await until(
                        table,
                        lambda: table.version >= version + 3 or table.state is TableState.FINISHED,
                        "moves while away",
                    )


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_clients_killed_at_random_and_reconnected_finish_every_game(server, conn, seed):
    rng = random.Random(seed)
    players: list[FaultyPlayer] = []
    tables = []
    for t, (seats, grace, target) in enumerate(
        [(2, 0, 0), (3, None, 0), (4, 0, 100), (3, 0, 0), (2, None, 60)]
    ):
        info = await conn.create_table(
            seats=seats, rules=RuleSet(target_score=target), away_grace=grace, seed=seed
        )
        table = server.lobby.get(info.table_id)
        joins = [await conn.join_table(table.table_id, f"f{t}-{s}") for s in range(seats)]
        players += [
            FaultyPlayer(
                server,
                table,
                j.seat_token,
                j.seat,
                random.Random(rng.random()),
                kills=rng.randint(1, 4),
            )
            for j in joins
        ]
        tables.append((table, joins[0].seat_token))
    tasks = [asyncio.create_task(p.play()) for p in players]
    for table, token in tables:
        await conn.start_game(table.table_id, token)
    await asyncio.wait_for(asyncio.gather(*tasks), WAIT)
    stand_in_moves = 0
    for p in players:
        table = p.table
        assert table.state is TableState.FINISHED and table.game.is_game_over
        assert_conserved(table.game)
        log_ = table.log_for(p.seat)
        # Nothing lost, nothing twice: the lives' messages are the server's log
        # (as far as it still keeps them: a long game's log keeps its newest
        # messages, Limits.log_messages and log_bytes, and the lives got all).
        assert [m.seq for m in p.received] == list(range(1, len(log_) + 1))
        kept = len(log_) - log_.first_seq + 1
        assert kept >= min(len(log_), 64)
        assert _wire(p.received)[log_.first_seq - 1 :] == [
            message_pb(log_.first_seq + i, e).SerializeToString() for i, e in enumerate(log_)
        ]
        # Each (re)connection opened with a snapshot that is the stream's state then:
        # its update is the one the stream carries at that seq.
        assert len(p.snapshots) >= p.lives
        for snap in p.snapshots:
            if snap.update_seq:
                assert message_pb(snap.update_seq, snap.update) == message_pb(
                    snap.update_seq, p.received[snap.update_seq - 1].message
                )
        # And the last life's view is the server's.
        assert p.session.state.view == table.game.view(p.seat)
        assert p.session.state.game_over
        stand_in_moves += table.history.sources.count("stand_in")
    assert sum(p.lives for p in players) > len(players)
    print(
        f"lives {sum(p.lives for p in players)} reconnects "
        f"{sum(p.session.reconnects for p in players)} stand-in moves {stand_in_moves} "
        f"messages {sum(len(p.received) for p in players)}"
    )
