"""The gRPC server over a real loopback port: full games, privacy, errors, resume, timers."""

from __future__ import annotations

import asyncio
import dataclasses

import grpc
import pytest

from unoplay import wire
from unoplay.client.sdk import Received, SeatGone, ServerError, run_bot
from unoplay.game.actions import ActionKind
from unoplay.game.engine import GameState
from unoplay.game.events import EVERYONE, Event, EventKind
from unoplay.game.messages import Refusal, TableState, Update
from unoplay.game.registry import make_bot
from unoplay.game.rules import PRESETS, RuleError, RuleSet
from unoplay.game.search import DEFAULT_ITERATIONS, DEFAULT_TIME_MS
from unoplay.v1 import game_pb2 as pb
from unoplay.v1 import game_service_pb2 as gs

WAIT = 60  # seconds: upper bound for any network wait in these tests


async def seat_players(conn, n=4, rules=None, **kw):
    table = await conn.create_table(seats=n, rules=rules, **kw)
    joins = [await conn.join_table(table.table_id, f"p{i}") for i in range(n)]
    return table.table_id, joins


async def play_game(conn, kinds, seed, rules=None, record=False):
    rules = rules or RuleSet(target_score=0)
    table_id, joins = await seat_players(conn, len(kinds), rules, seed=seed)
    sessions = [conn.session(table_id, j.seat_token) for j in joins]
    received: list[list[Received]] = [[] for _ in kinds]

    async def run(i):
        bot = make_bot(kinds[i], seed=seed + i)
        async for message in sessions[i]:
            received[i].append(message)
            state = sessions[i].state
            if isinstance(message.message, Update) and state.legal:
                action = bot.decide(state.view, state.legal)
                if action is not None:
                    await sessions[i].send(action)
        return sessions[i].state

    tasks = [asyncio.create_task(run(i)) for i in range(len(kinds))]
    await conn.start_game(table_id, joins[0].seat_token)
    states = await asyncio.wait_for(asyncio.gather(*tasks), WAIT)
    return table_id, states, received


async def test_four_bots_play_a_complete_game_scores_match_the_engine(server, conn):
    rules = RuleSet(target_score=200)
    table_id, states, _ = await play_game(conn, ["greedy", "random", "greedy", "random"], 11, rules)
    table = server.lobby.get(table_id)
    assert table.game.is_game_over
    # Replaying the recorded actions on a fresh engine gives the same final scores.
    replay, _ = GameState.new(4, rules, seed=table.game.seed)
    for seat, action in table.history:
        if replay.is_round_over:
            replay.next_round()
        replay.apply(seat, action)
    assert replay.scores == table.game.scores
    for state in states:
        assert state.game_over
        assert state.view.scores == table.game.scores
    listed = (await conn.list_tables())[0]
    assert listed.state is TableState.FINISHED and tuple(listed.scores) == table.game.scores


async def test_no_hidden_card_ever_reaches_another_player(server, conn):
    table_id, _states, received = await play_game(conn, ["random"] * 4, 5)
    table = server.lobby.get(table_id)
    game = table.game
    # Who held which card, over time, comes from the server's private events.
    own_cards: list[set[int]] = [set() for _ in range(4)]
    shown_to: list[set[int]] = [set() for _ in range(4)]
    for seat in range(4):
        for r in received[seat]:
            if isinstance(e := r.message, Event):
                if e.kind in (EventKind.HAND_DEALT, EventKind.DREW_CARDS):
                    assert e.audience == seat == e.player
                    own_cards[seat] |= set(e.cards)
                if e.kind is EventKind.HAND_SHOWN:
                    assert e.audience == seat
                    shown_to[seat] |= set(e.cards)
    public: set[int] = set()
    for r in received[0]:
        if isinstance(r.message, Event) and r.message.audience == EVERYONE:
            public |= set(r.message.cards)
    for seat in range(4):
        for r in received[seat]:
            seen: set[int] = set()
            if isinstance(r.message, Event):
                seen = set(r.message.cards)
            elif isinstance(r.message, Update):
                view = r.message.view
                seen = set(view.hand) | {view.top_card}
                if view.drawn_card >= 0:
                    seen.add(view.drawn_card)
            # Every card a player sees is public, their own, or a hand shown to them.
            allowed = public | own_cards[seat] | shown_to[seat]
            assert seen <= allowed, (seat, seen - allowed)
    assert game.is_game_over


async def test_illegal_intent_gets_an_error_and_the_stream_stays_open(server, conn):
    table_id, joins = await seat_players(conn, 2, seed=3)
    await conn.start_game(table_id, joins[0].seat_token)
    table = server.lobby.get(table_id)
    mover = table.game.current
    other = 1 - mover
    session = conn.session(table_id, joins[other].seat_token)
    messages = aiter(session)
    first_update = None
    while first_update is None:
        m = await asyncio.wait_for(anext(messages), WAIT)
        if isinstance(m.message, Update):
            first_update = m
    # Not this player's turn: refused with the engine's reason, stream open.
    await session.send(wire.action_id(ACTION_DRAW))
    error = await next_of(messages, Refusal)
    assert error.reason == "not_your_turn" and error.action_id == 1
    await session.send(4_000_000_000)  # no such action id (ids end near 3.1 million)
    error = await next_of(messages, Refusal)
    assert error.reason == "unknown_action_id"
    # Both counted against the seat, in a row (no action applied between);
    # a refusal that is not its fault is not.
    table.refuse(other, "internal_error", "the server failed on this intent", 0)
    seat = table.seats[other]
    assert (seat.refusals, seat.refused_in_row) == (2, 2)
    assert seat.last_refusal.startswith("unknown_action_id: ")
    # The mover can still play: the game goes on.
    table.act(mover, table.game.legal_actions(mover)[-1])
    update = await next_of(messages, Update)
    assert update.view.current in (0, 1)
    await session.send(4_000_000_000)  # after an action applied: a new run of refusals
    await next_of(messages, Refusal)
    assert (seat.refusals, seat.refused_in_row, table.seats[mover].refusals) == (3, 1, 0)
    await session.close()


ACTION_DRAW = wire.action_from_id(1)
ACTION_KEEP = wire.action_from_id(2)


async def test_a_refusal_of_an_intent_chosen_on_a_replaced_view_is_a_race_lost(server, conn):
    """RULES.md, "Refused intents": the SDK says what it had seen
    (Intent.seen_seq); an intent refused on the view it was chosen on counts
    against the seat, one chosen on a view a later update had replaced is a
    race lost (ActionError.race), never counted."""
    table_id, joins = await seat_players(conn, 2, seed=3)
    await conn.start_game(table_id, joins[0].seat_token)
    table = server.lobby.get(table_id)
    mover = table.game.current
    other = 1 - mover
    seat = table.seats[other]
    session = conn.session(table_id, joins[other].seat_token)
    messages = aiter(session)
    await next_of(messages, Update)
    # On the newest view it has, not its turn: its own mistake. (Keep is never
    # legal for it here: it has drawn nothing.)
    await session.send(wire.action_id(ACTION_KEEP))
    error = await next_of(messages, Refusal)
    assert (error.reason, error.race) == ("not_your_turn", False)
    assert (seat.refusals, seat.races) == (1, 0)
    # The mover draws: the other's view is replaced by an update it has not
    # read when it sends its next intent.
    table.act(mover, ACTION_DRAW)
    await session.send(wire.action_id(ACTION_KEEP))
    error = await next_of(messages, Refusal)
    assert error.reason in ("not_your_turn", "nothing_to_keep") and error.race
    assert (seat.refusals, seat.races, seat.refused_in_row) == (1, 1, 1)
    # A reason no view excuses counts even so (the newest update not read yet).
    table.act(table.game.current, table.game.legal_actions(table.game.current)[-1])
    await session.send(4_000_000_000)
    error = await next_of(messages, Refusal)
    assert (error.reason, error.race) == ("unknown_action_id", False)
    assert (seat.refusals, seat.races) == (2, 1)
    await session.close()


def test_a_client_that_does_not_say_what_it_saw_loses_races_by_reason_alone():
    from unoplay.protocol import RACE_REASONS
    from unoplay.server.seats import Seat

    seat = Seat(0)
    seat.intent_arrived(7, None)
    assert seat.lost_race("not_one_card", 7) and seat.lost_race("round_over", 7)
    assert not seat.lost_race("not_your_turn", 7) and not seat.lost_race("does_not_match", 7)
    # held in a window while the game moved on: a race, whatever the reason but those no view excuses
    assert seat.lost_race("does_not_match", 8) and not seat.lost_race("no_such_card", 8)
    # the window's own judgements are races for every client
    seat.intent_arrived(7, True)
    assert seat.lost_race("jump_in_lost", 7) and seat.lost_race("jumped_in", 7)
    assert not seat.lost_race("not_one_card", 7)  # chosen on the newest view: its mistake
    assert {"catch_too_late", "already_called", "not_one_card", "round_over"} <= RACE_REASONS


async def next_of(messages, kind):
    """The next message of type ``kind`` (Update, Refusal...) a session yields."""
    while True:
        m = await asyncio.wait_for(anext(messages), WAIT)
        if isinstance(m.message, kind):
            return m.message


async def test_bad_token_unknown_table_and_malformed_requests(server, conn):
    table_id, joins = await seat_players(conn, 2)
    # Unknown table.
    with pytest.raises(ServerError) as err:
        await conn.join_table("nope", "x")
    assert err.value.status == "NOT_FOUND"
    # Bad token on start and on the game stream.
    with pytest.raises(ServerError) as err:
        await conn.start_game(table_id, "forged-token")
    assert err.value.status == "UNAUTHENTICATED"
    session = conn.session(table_id, "forged-token")
    with pytest.raises(SeatGone) as err:
        async for _ in session:
            pass
    assert err.value.status == "UNAUTHENTICATED"
    # A token of another table is useless here.
    _other_id, other_joins = await seat_players(conn, 2)
    with pytest.raises(ServerError) as err:
        await conn.start_game(table_id, other_joins[0].seat_token)
    assert err.value.status == "UNAUTHENTICATED"
    # Malformed: bad seat count, bad rules, empty name.
    for kwargs in ({"seats": 11}, {"seats": 1}):
        with pytest.raises(ServerError) as err:
            await conn.create_table(**kwargs)
        assert err.value.status == "INVALID_ARGUMENT"
    with pytest.raises(ServerError) as err:
        await conn.create_table(preset="nope")
    assert err.value.status == "INVALID_ARGUMENT"
    with pytest.raises(ServerError) as err:
        await conn.create_table(options={"uno_penalty": 99})
    assert err.value.status == "INVALID_ARGUMENT"
    # Options as a command line writes them; what no request can carry is refused here.
    texts = await conn.create_table(options={"target_score": "300", "jump_in": "on"})
    assert (texts.rules.target_score, texts.rules.jump_in) == (300, True)
    for options, named in (
        ({"target": 0}, "did you mean 'target_score'"),
        ({"target_score": -5}, "target_score: -5"),
        ({"jump_in": "maybe"}, "jump_in: expected true or false"),
    ):
        with pytest.raises(RuleError, match=named):
            await conn.create_table(options=options)
    # Combinations that make no sense are refused with a message naming the conflict.
    for seats, rules, conflict in (
        (3, {"format": "teams"}, "4, 6 or 8 players"),
        (4, {"format": "tournament"}, "scoring=penalty"),
        (4, {"format": "elimination"}, "target_score=0"),
    ):
        with pytest.raises(ServerError) as err:
            await conn.create_table(seats=seats, options=rules, seed=8)
        assert err.value.status == "INVALID_ARGUMENT"
        assert conflict in err.value.details
    with pytest.raises(ServerError) as err:
        await conn.join_table(table_id, "   ")
    assert err.value.status == "INVALID_ARGUMENT"
    # Wrong state: full table, starting twice.
    with pytest.raises(ServerError) as err:
        await conn.join_table(table_id, "late")
    assert err.value.status == "FAILED_PRECONDITION"
    await conn.start_game(table_id, joins[0].seat_token)
    with pytest.raises(ServerError) as err:
        await conn.start_game(table_id, joins[0].seat_token)
    assert err.value.status == "FAILED_PRECONDITION"


async def test_stream_must_start_with_join(server, conn):
    call = conn.games.Play()
    await call.write(gs.PlayRequest(intent=gs.Intent(action_id=1)))
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await asyncio.wait_for(call.read(), WAIT)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT


async def test_drop_and_reconnect_with_last_seq_misses_nothing(server, conn):
    table_id, joins = await seat_players(conn, 3)
    await conn.start_game(table_id, joins[0].seat_token)
    table = server.lobby.get(table_id)
    # Seat 0 is watched through a session that drops twice; the others play directly.
    session = conn.session(table_id, joins[0].seat_token)
    bot = make_bot("greedy", seed=1)
    seqs: list[int] = []
    drops = 0

    async def drive():
        nonlocal drops
        async for message in session:
            seqs.append(message.seq)
            if len(seqs) in (15, 60):
                session.drop()
                drops += 1
            if isinstance(message.message, Update) and session.state.legal:
                action = bot.decide(session.state.view, session.state.legal)
                if action is not None:
                    await session.send(action)

    for seat in (1, 2):
        table.seats[seat].bot = make_bot("random", seed=seat)
    table.bots.schedule()
    await asyncio.wait_for(drive(), WAIT)
    assert drops == 2
    assert seqs == list(range(1, len(table.log_for(0)) + 1))  # contiguous, nothing lost
    assert table.game.is_game_over


async def test_turn_timer_plays_draw_then_keep(server, conn):
    table_id, joins = await seat_players(conn, 2, turn_seconds=1, seed=4)
    await conn.start_game(table_id, joins[0].seat_token)
    table = server.lobby.get(table_id)
    game = table.game
    mover = game.current
    hand_before = len(game.hand(mover))
    session = conn.session(table_id, joins[mover].seat_token)
    messages = aiter(session)
    update = await next_of(messages, Update)
    assert update.deadline > 0
    # Nobody acts: the timer draws for the mover and, if the card fits, keeps it.
    while True:
        m = await asyncio.wait_for(anext(messages), WAIT)
        if isinstance(m.message, Update) and m.message.view.current != mover:
            break
    kinds = [a.kind for _, a in table.history]
    assert kinds[0] is ActionKind.DRAW and set(kinds) <= {ActionKind.DRAW, ActionKind.KEEP}
    assert len(game.hand(mover)) == hand_before + 1
    # Everyone is told the timer acted, before the events of what it did.
    events = session.state.events
    i = next(i for i, e in enumerate(events) if e.kind is EventKind.TIMED_OUT)
    assert events[i].player == mover
    assert events[i + 1].kind is EventKind.DREW and events[i + 1].player == mover
    await session.close()


async def test_spectator_sees_public_events_only(server, conn):
    table_id, _states, _received = await play_game(conn, ["greedy", "greedy"], 2)
    stream = conn.games.Spectate(gs.SpectateRequest(table_id=table_id))
    count = 0
    async for response in stream:
        for m in response.messages:
            count += 1
            assert m.seq == count
            if m.WhichOneof("body") == "event":
                assert not m.event.private
                assert m.event.kind not in (pb.EVENT_KIND_HAND_DEALT, pb.EVENT_KIND_DREW_CARDS)
            if m.WhichOneof("body") == "update":
                assert len(m.update.view.hand) == 0 and not m.update.legal_actions
    assert count > 10


async def test_spectator_session_resumes_after_a_drop_with_no_gaps(server, conn):
    """The SDK's SpectatorSession: every message of the spectator log once, in
    order, across a cut stream; nothing private, no hand; it ends with the game."""
    table_id = (await conn.create_table(seats=3, rules=RuleSet(target_score=0), seed=3)).table_id
    me = await conn.join_table(table_id, "me")
    for _ in range(2):
        await conn.add_bot(table_id, "greedy")
    watch = conn.spectate(table_id)
    received: list[Received] = []

    async def read():
        async for message in watch:
            received.append(message)
            if len(received) == 20:
                watch.drop()  # as a network failure would

    reader = asyncio.create_task(read())
    await conn.start_game(table_id, me.seat_token)
    await asyncio.wait_for(run_bot(make_bot("greedy"), conn.session(table_id, me.seat_token)), WAIT)
    await asyncio.wait_for(reader, WAIT)
    assert watch.reconnects >= 1 and watch.status == "closed"
    sent = server.lobby.get(table_id).log_for(-1)
    assert [m.seq for m in received] == list(range(1, len(sent) + 1))
    for m in received:
        if isinstance(e := m.message, Event):
            assert e.audience == EVERYONE and not (e.kind is EventKind.DREW and e.cards)
        if isinstance(u := m.message, Update):
            assert not u.view.hand and not u.legal
    assert watch.state.seat == -1 and watch.state.game_over and watch.state.view.hand == ()
    assert not await watch.send(1)  # a spectator never sends


async def test_server_side_bots_and_health(server, conn):
    table = await conn.create_table(seats=3, rules=RuleSet(target_score=0), seed=1)
    me = await conn.join_table(table.table_id, "me")
    await conn.add_bot(table.table_id, "greedy")
    await conn.add_bot(table.table_id, "random")
    with pytest.raises(ServerError) as err:
        await conn.add_bot(table.table_id, "nonsense")
    assert err.value.status in ("INVALID_ARGUMENT", "FAILED_PRECONDITION")
    await conn.start_game(table.table_id, me.seat_token)
    state = await asyncio.wait_for(
        run_bot(make_bot("greedy"), conn.session(table.table_id, me.seat_token)), WAIT
    )
    assert state.game_over
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    health = health_pb2_grpc.HealthStub(conn.channel)
    reply = await health.Check(health_pb2.HealthCheckRequest(service=""), timeout=WAIT)
    assert reply.status == health_pb2.HealthCheckResponse.SERVING


async def test_add_bot_plays_the_tables_rules_within_the_servers_time_cap(server, conn):
    """A search bot added by AddBot simulates the table's rules, and thinks no
    longer per decision than Limits.bot_ms, whatever budget it asks for; a bad
    kind or budget is INVALID_ARGUMENT and seats nobody."""
    rules = dataclasses.replace(PRESETS["house"], target_score=0)
    table_id = (await conn.create_table(seats=4, rules=rules)).table_id
    table = server.lobby.get(table_id)
    for kind in ("nope", "greedy@50ms", "ismcts@0", "ismcts@soonms"):
        with pytest.raises(ServerError) as err:
            await conn.add_bot(table_id, kind)
        assert err.value.status == "INVALID_ARGUMENT", kind
    assert [s.bot for s in table.seats] == [None] * 4
    await conn.add_bot(table_id, "ismcts@20ms")
    await conn.add_bot(table_id, "ismcts@60000ms")
    await conn.add_bot(table_id, "ismcts")
    bots = [s.bot for s in table.seats[:3]]
    assert all(b.rules == table.rules for b in bots)
    cap = server.lobby.limits.bot_ms
    assert cap > DEFAULT_TIME_MS  # a plain kind keeps its default budget
    assert [b.time_ms for b in bots] == [20, cap, DEFAULT_TIME_MS]
    assert bots[2].iterations == DEFAULT_ITERATIONS
    assert [s.name for s in table.seats[:3]] == ["ismcts@20ms-1", "ismcts@60000ms-1", "ismcts-1"]
