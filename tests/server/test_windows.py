"""The out-of-turn window (server/RULES.md, "Out-of-turn window (server)") over a
real loopback server: jump-in races, a jump-in against the turn player's play,
catches at human speed against a bot next in turn, the caught player's own
call, ``window_ms`` 0, the defaults, the turn timer and shutdown.

Positions are crafted (``GameState.from_position``) and put on a table with
``Table.start(game=...)``. Every network wait is bounded (WAIT); nothing sleeps
to synchronise: tests wait on stream messages or on the table's own change
notifications (a held intent notifies too).
"""

from __future__ import annotations

import asyncio
import dataclasses
import time

import pytest
from helpers import c, cs, until

from unoplay.client.sdk import Refused, run_bot
from unoplay.game import actions as A
from unoplay.game.actions import ActionKind
from unoplay.game.cards import Colour
from unoplay.game.engine import GameState
from unoplay.game.events import Event, EventKind
from unoplay.game.messages import Refusal, Update
from unoplay.game.registry import make_bot
from unoplay.game.rules import RuleSet, preset
from unoplay.settings import DEFAULT_WINDOW_MS

WAIT = 30  # seconds: upper bound for any network wait in these tests
WINDOW = 2000  # ms: long enough that a client answering an update is always inside it
#: A person's reaction time, to send a catch the way a person would. It models
#: the person, it does not synchronise anything: the 2 s window decides.
HUMAN_REACTION = 0.3


class TurnOnly:
    """A server-side bot that plays its turn at once and never catches."""

    name = "turn-only"

    def decide(self, view, legal):
        if view.current != view.seat:
            return None
        return next(a for a in legal if a.kind not in (ActionKind.CATCH, ActionKind.CALL_UNO))


class Player:
    """One seat's game stream, read only as far as a test asks."""

    def __init__(self, conn, table_id: str, token: str) -> None:
        self.session = conn.session(table_id, token)
        self.messages = aiter(self.session)
        self.log: list = []  # every message read, in order

    @property
    def state(self):
        return self.session.state

    async def until(self, condition, what: str) -> None:
        """Read messages (bounded by WAIT) until ``condition()`` holds."""

        async def read():
            while not condition():
                self.log.append(await anext(self.messages))

        try:
            await asyncio.wait_for(read(), WAIT)
        except TimeoutError:
            pytest.fail(f"timed out waiting for {what}")

    def events(self, kind: EventKind, player: int | None = None) -> list:
        return [
            e
            for e in self.state.events
            if e.kind is kind and (player is None or e.player == player)
        ]

    def errors(self, reason: str) -> list:
        return [e for e in self.state.errors if e.reason == reason]

    async def send(self, action) -> None:
        assert await self.session.send(action)

    async def close(self) -> None:
        await self.session.close()


async def crafted(
    server,
    conn,
    hands: list[str],
    top: str,
    rules: RuleSet,
    window_ms: int | None,
    bots: dict[int, object] | None = None,
    **kw,
):
    """A table of len(hands) seats playing the crafted position (seat 0 to move),
    the seats in ``bots`` played by those server-side bots (``"greedy"``: added
    over the wire), the others by people named p<seat>. Returns the table and a
    Player per person (None for bots)."""
    bots = bots or {}
    info = await conn.create_table(
        seats=len(hands), rules=rules, window_ms=window_ms, away_grace=3600, **kw
    )
    table = server.lobby.get(info.table_id)
    players: list[Player | None] = []
    for seat in range(len(hands)):
        bot = bots.get(seat)
        if bot == "greedy":
            await conn.add_bot(info.table_id, "greedy", seat=seat)
            players.append(None)
        elif bot is not None:
            table.add_bot(bot, f"bot{seat}", seat)
            players.append(None)
        else:
            joined = await conn.join_table(info.table_id, f"p{seat}", seat=seat)
            players.append(Player(conn, info.table_id, joined.seat_token))
    game = GameState.from_position([cs(h) for h in hands], c(top), rules=table.rules)
    table.start(game=game)
    for p in players:
        if p is not None:  # every stream is open and has its first update
            await p.until(lambda p=p: p.state.view is not None, "the first update")
    return table, players


def held_by(table, seat: int) -> bool:
    return any(h.seat == seat for h in table.out_of_turn.held)


def jump_ins(player: Player) -> list:
    return [e for e in player.events(EventKind.PLAYED) if e.value == 1]


JUMP = RuleSet(target_score=0, jump_in=True)
SINGLE = RuleSet(target_score=0)
#: Four seats under jump_in: seat 0 plays a Wild (red); seat 1 is then to move;
#: seats 2 and 3 each hold another Wild to jump in with.
WILDS = ["W R1 R2", "R3 G2 G3", "W#1 Y1 Y2", "W#2 B1 B2"]


async def test_two_jump_ins_race_exactly_one_wins_and_everyone_sees_one_play(server, conn):
    table, players = await crafted(server, conn, WILDS, "R5", JUMP, WINDOW)
    p0, _p1, p2, p3 = players
    await p0.send(A.play(c("W"), Colour.RED))
    for p in players:
        await p.until(lambda p=p: p.events(EventKind.PLAYED, 0), "seat 0's Wild")
    jumps = {2: A.play(c("W#1"), Colour.BLUE), 3: A.play(c("W#2"), Colour.YELLOW)}
    for seat, jump in jumps.items():  # out of turn, the update lists the jump-in
        p = players[seat]
        await p.until(lambda p=p: p.state.view.top_card == c("W"), "the update after the Wild")
        assert p.state.view.current == 1 and jump in p.state.legal
    await asyncio.gather(p2.send(jumps[2]), p3.send(jumps[3]))
    for p in players:
        await p.until(lambda p=p: jump_ins(p), "the winning jump-in")
    winner = jump_ins(p0)[0].player
    loser = 5 - winner
    assert winner in (2, 3)
    await players[loser].until(lambda: players[loser].state.errors, "the loser's refusal")
    error = players[loser].state.errors[0]
    assert error.reason == "jump_in_lost" and f"p{winner}" in error.message
    assert error.action_id  # the refusal answers the intent that lost
    for p in players:
        assert [(e.player, e.value) for e in p.events(EventKind.PLAYED)] == [(0, 0), (winner, 1)]
    assert [seat for seat, _ in table.history] == [0, winner]
    assert table.game.current == (winner + 1) % 4  # play continues from the jumper
    assert len(table.game.hand(loser)) == 3  # the loser kept their Wild
    for p in players:
        await p.close()


async def test_a_jump_in_beats_the_turn_players_play_sent_earlier_in_the_same_window(server, conn):
    table, players = await crafted(server, conn, WILDS, "R5", JUMP, WINDOW)
    p0, p1, p2, _p3 = players
    await p0.send(A.play(c("W"), Colour.RED))
    await p1.until(lambda: p1.state.view.top_card == c("W"), "seat 0's Wild")
    await p1.send(A.play(c("R3")))  # seat 1's turn: a normal play...
    await until(table, lambda: held_by(table, 1), "seat 1's play held by the window")
    await p2.until(lambda: p2.state.view.top_card == c("W"), "seat 0's Wild")
    await p2.send(A.play(c("W#1"), Colour.BLUE))  # ...and a later jump-in, same window
    await p1.until(lambda: p1.state.errors, "seat 1's refusal")
    error = p1.state.errors[0]
    assert error.reason == "jumped_in" and error.message == "p2 jumped in first"
    for p in players:
        await p.until(lambda p=p: jump_ins(p), "the jump-in")
        assert [(e.player, e.value) for e in p.events(EventKind.PLAYED)] == [(0, 0), (2, 1)]
    assert [seat for seat, _ in table.history] == [0, 2]
    assert c("R3") in table.game.hand(1) and table.game.current == 3
    for p in players:
        await p.close()


async def test_a_windows_refusals_reach_a_seat_before_the_update_that_follows(server, conn):
    """The refused turn action comes before the update after the jump-in, so a
    bot that drops a refused id from the latest list never drops a live one."""
    table, players = await crafted(server, conn, WILDS, "R5", JUMP, WINDOW)
    p0, p1, p2, _p3 = players
    await p0.send(A.play(c("W"), Colour.RED))
    await p1.until(lambda: p1.state.view.top_card == c("W"), "seat 0's Wild")
    await p1.send(A.DRAW)  # seat 1's turn action...
    await until(table, lambda: held_by(table, 1), "seat 1's draw held by the window")
    await p2.until(lambda: p2.state.view.top_card == c("W"), "seat 0's Wild")
    await p2.send(A.play(c("W#1"), Colour.BLUE))  # ...beaten by a jump-in
    await p1.until(lambda: p1.state.errors and p1.state.view.current == 3, "the window's end")
    messages = [r.message for r in p1.log]
    refused = next(i for i, m in enumerate(messages) if isinstance(m, Refusal))
    jumped = next(
        i
        for i, m in enumerate(messages)
        if isinstance(m, Event) and m.kind is EventKind.PLAYED and m.player == 2
    )
    updates_after = [i for i, m in enumerate(messages) if isinstance(m, Update) and i > jumped]
    assert messages[refused].reason == "jumped_in"
    assert updates_after and refused < updates_after[0]  # the refusal, then the update
    for p in players:
        await p.close()


async def test_a_catch_at_human_speed_beats_the_bot_next_in_turn(server, conn):
    # Seat 0 plays down to one card without UNO; seat 1, a bot with no delay, is next.
    hands = ["R1 G5", "R9 B8 G9", "Y2 Y3 Y4"]
    table, (p0, _, p2) = await crafted(
        server, conn, hands, "R5", SINGLE, WINDOW, bots={1: TurnOnly()}
    )
    sent = time.time()
    await p0.send(A.play(c("R1")))
    await until(table, lambda: held_by(table, 1), "the bot's play, held by the window")
    await p2.until(lambda: p2.state.view.catchable == 0, "the update showing seat 0 catchable")
    assert A.catch(0) in p2.state.legal
    # That update says when the window closes (a client can count down), in whole ms
    # (rounded to the nearest: up to half a millisecond either way).
    closes = p2.state.window_closes_ms / 1000
    assert sent + WINDOW / 1000 - 0.001 <= closes <= time.time() + WINDOW / 1000 + 0.001
    await asyncio.sleep(HUMAN_REACTION)  # a person reacts (see HUMAN_REACTION)
    await p2.send(A.catch(0))
    await p2.until(lambda: p2.state.view.current == 2, "the update after the bot's play")
    kinds = [
        (e.kind, e.player)
        for e in p2.state.events
        if e.kind in (EventKind.UNO_CAUGHT, EventKind.PLAYED)
    ]
    assert kinds == [(EventKind.PLAYED, 0), (EventKind.UNO_CAUGHT, 2), (EventKind.PLAYED, 1)]
    assert p2.state.window_closes_ms == 0  # that play opened no window
    assert not p2.state.errors
    assert len(table.game.hand(0)) == 3  # caught: 1 + uno_penalty 2
    assert [(seat, a.kind) for seat, a in table.history] == [
        (0, ActionKind.PLAY),
        (2, ActionKind.CATCH),
        (1, ActionKind.PLAY),
    ]
    await p0.close()
    await p2.close()


async def test_the_catchable_players_own_call_in_the_window_beats_a_bots_catch(server, conn):
    # Seat 1 is a greedy bot: it catches at once, but the catch is only held.
    hands = ["R1 G5", "R9 B8 G9", "Y2 Y3 Y4"]
    table, (p0, _, p2) = await crafted(
        server, conn, hands, "R5", SINGLE, WINDOW, bots={1: "greedy"}
    )
    await p0.send(A.play(c("R1")))
    await until(
        table,
        lambda: any(
            h.seat == 1 and h.action.kind == ActionKind.CATCH for h in table.out_of_turn.held
        ),
        "the bot's catch, held by the window",
    )
    await p0.until(lambda: p0.state.view.catchable == 0, "the update showing seat 0 catchable")
    assert A.CALL_UNO in p0.state.legal
    await p0.send(A.CALL_UNO)
    await p0.until(lambda: p0.events(EventKind.PLAYED, 1), "the bot's turn")
    assert p0.events(EventKind.UNO_CALLED, 0) and not p0.events(EventKind.UNO_CAUGHT)
    assert not p0.state.errors and len(table.game.hand(0)) == 1
    # (A server-side bot's seat keeps no log: its refused catch shows in the
    # history, which has no catch in it.)
    assert [(seat, a.kind) for seat, a in table.history] == [
        (0, ActionKind.PLAY),
        (0, ActionKind.CALL_UNO),
        (1, ActionKind.PLAY),
    ]
    await p0.close()
    await p2.close()


async def test_window_ms_0_keeps_the_immediate_behaviour(server, conn):
    hands = ["R1 G5", "R9 B8 G9", "Y2 Y3 Y4"]
    table, (p0, _, p2) = await crafted(server, conn, hands, "R5", SINGLE, 0, bots={1: TurnOnly()})
    assert table.window_ms == 0 and p2.state.table.window_ms == 0
    await p0.send(A.play(c("R1")))
    # The bot's play takes effect at once and ends the catch chance...
    await p2.until(lambda: p2.events(EventKind.PLAYED, 1), "the bot's play")
    assert table.out_of_turn.window is None
    await p2.send(A.catch(0))  # ...so a catch after it is too late.
    await p2.until(lambda: p2.state.errors, "the refused catch")
    assert p2.state.errors[0].reason == "catch_too_late"
    assert len(table.game.hand(0)) == 1
    # Two jump-ins under window_ms 0: the first to arrive is applied at once, and the
    # second, identical card is then a jump-in on the first (today's behaviour).
    table2, players = await crafted(server, conn, WILDS, "R5", JUMP, 0)
    await players[0].send(A.play(c("W"), Colour.RED))
    await until(table2, lambda: len(table2.history) == 1, "seat 0's Wild")
    assert table2.out_of_turn.window is None
    await players[2].send(A.play(c("W#1"), Colour.BLUE))
    await until(table2, lambda: len(table2.history) == 2, "the jump-in")
    await players[3].send(A.play(c("W#2"), Colour.YELLOW))
    await until(table2, lambda: len(table2.history) == 3, "the jump-in on the jump-in")
    assert [seat for seat, _ in table2.history] == [0, 2, 3]
    for p in (p0, p2, *players):
        await p.close()


async def test_window_defaults_limits_and_the_table_message(server, conn):
    official = await conn.create_table(seats=2)
    assert official.window_ms == DEFAULT_WINDOW_MS == 1500
    jump = await conn.create_table(seats=2, rules=RuleSet(jump_in=True, uno_penalty=0))
    assert jump.window_ms == 1500
    pointless = await conn.create_table(seats=2, rules=RuleSet(uno_penalty=0))
    assert pointless.window_ms == 0  # no out-of-turn action worth waiting for
    assert (await conn.create_table(seats=2, window_ms=0)).window_ms == 0
    assert (await conn.create_table(seats=2, window_ms=5000)).window_ms == 5000
    with pytest.raises(Refused) as err:
        await conn.create_table(seats=2, window_ms=5001)
    assert err.value.status == "INVALID_ARGUMENT"
    listed = {t.table_id: t.window_ms for t in await conn.list_tables()}
    assert listed[official.table_id] == 1500 and listed[pointless.table_id] == 0


async def test_a_window_opens_only_after_plays_that_give_an_out_of_turn_chance(server, conn):
    # Official rules: a play that leaves no one catchable opens none; under
    # jump_in a 0 (it has no twin) opens none either.
    table, players = await crafted(
        server, conn, ["R1 G5 G6", "R9 B8 G9", "Y2 Y3 Y4"], "R5", SINGLE, WINDOW
    )
    await players[0].send(A.play(c("R1")))
    await until(table, lambda: len(table.history) == 1, "seat 0's play")
    assert table.out_of_turn.window is None and table.game.current == 1
    table2, players2 = await crafted(
        server, conn, ["R0 G5 G6", "R9 B8 G9", "Y2 Y3 Y4"], "R5", JUMP, WINDOW
    )
    await players2[0].send(A.play(c("R0")))
    await until(table2, lambda: len(table2.history) == 1, "seat 0's play")
    assert table2.out_of_turn.window is None
    await players2[0].close()
    await players2[1].send(A.play(c("R9")))  # under jump_in, a 9 has a twin: a window
    await until(table2, lambda: len(table2.history) == 2, "seat 1's play")
    assert table2.out_of_turn.window is not None
    for p in (*players, *players2[1:]):
        await p.close()


async def test_the_turn_timer_waits_for_the_window_and_the_game_goes_on(server, conn):
    # turn_seconds 1 comes due inside a 2.5 s window: the timer acts at the close.
    hands = ["R1 G5", "B7 B8 G9", "Y2 Y3 Y4"]
    table, players = await crafted(server, conn, hands, "R5", SINGLE, 2500, turn_seconds=1)
    await players[0].send(A.play(c("R1")))
    await until(table, lambda: len(table.history) == 2, "the timer's draw for seat 1")
    assert [(seat, a.kind) for seat, a in table.history] == [
        (0, ActionKind.PLAY),
        (1, ActionKind.DRAW),
    ]
    assert table.history.sources[1] == "timer"
    assert (
        table.history.times_ms[1] - table.history.times_ms[0] >= 2500 - 50
    )  # not before the close
    # It drew the draw pile's top, a Wild Draw Four (it fits): with a fresh
    # deadline the timer keeps it a second later. The game never waits on the window.
    await until(table, lambda: len(table.history) == 3, "the timer's keep")
    assert list(table.history)[2] == (1, A.KEEP) and table.history.sources[2] == "timer"
    for p in players:
        await p.close()


async def test_shutting_down_refuses_held_intents_and_cancels_the_window(server, conn):
    hands = ["R1 G5", "R9 B8 G9", "Y2 Y3 Y4"]
    table, (p0, p1, p2) = await crafted(server, conn, hands, "R5", SINGLE, 5000)
    await p0.send(A.play(c("R1")))
    await p2.until(lambda: p2.state.view.catchable == 0, "seat 0 catchable")
    await p2.send(A.catch(0))
    await until(table, lambda: held_by(table, 2), "the catch, held")
    await server.stop(None)
    assert table.out_of_turn.window is None and not table.out_of_turn.held
    assert [m.reason for m in table.log_for(2) if isinstance(m, Refusal)] == ["server_closing"]
    assert len(table.history) == 1  # the window never closed on its own
    for p in (p0, p1, p2):
        await p.close()


async def test_a_streams_answers_keep_their_order_inside_a_window(server, conn):
    # Seat 1 sends its play, then an id that names no action: the refusal of the
    # second waits for the window too, and comes after the play's event.
    hands = ["R1 G5", "R9 B8 G9", "Y2 Y3 Y4"]
    table, (p0, p1, p2) = await crafted(server, conn, hands, "R5", SINGLE, WINDOW)
    await p0.send(A.play(c("R1")))
    await p1.until(lambda: p1.state.view.catchable == 0, "seat 0's play")
    await p1.send(A.play(c("R9")))
    await p1.send(999_999)
    await until(table, lambda: len(table.out_of_turn.held) == 2, "both intents held")
    await p1.until(lambda: p1.state.errors, "the refusal")
    messages = [r.message for r in p1.log]
    played = next(
        i
        for i, m in enumerate(messages)
        if isinstance(m, Event) and m.kind is EventKind.PLAYED and m.player == 1
    )
    refused = next(i for i, m in enumerate(messages) if isinstance(m, Refusal))
    assert played < refused and p1.state.errors[0].reason == "unknown_action_id"
    for p in (p0, p1, p2):
        await p.close()


async def test_bots_play_a_whole_house_rules_game_through_windows(server, conn):
    # Short windows after nearly every play (jump_in), server-side bots racing to
    # catch and jump in, a turn timer: the game finishes and replays exactly.
    rules = dataclasses.replace(preset("house"), target_score=0)
    info = await conn.create_table(seats=4, rules=rules, window_ms=40, turn_seconds=5, seed=21)
    me = await conn.join_table(info.table_id, "me")
    for kind in ("greedy", "random", "greedy"):
        await conn.add_bot(info.table_id, kind)
    await conn.start_game(info.table_id, me.seat_token)
    session = conn.session(info.table_id, me.seat_token)
    state = await asyncio.wait_for(run_bot(make_bot("greedy", seed=1), session), WAIT)
    assert state.game_over
    table = server.lobby.get(info.table_id)
    replay, _ = GameState.new(4, table.rules, seed=table.game.seed)
    for seat, action in table.history:
        replay.apply(seat, action)
    assert replay.scores == table.game.scores and replay.is_game_over


def test_the_judge_orders_calls_catches_jump_ins_then_the_rest_on_its_own():
    """server/window.py's resolve, with fake callbacks: no table, no engine."""
    from unoplay.game.actions import CALL_UNO, DRAW, catch, play
    from unoplay.server.window import HeldIntent, Window, resolve

    held = [
        HeldIntent(0, DRAW, 1, "player", turn=0),  # the turn player's draw
        HeldIntent(2, play(5), 2, "player", turn=0),  # a jump-in
        HeldIntent(3, catch(1), 3, "player", turn=0),  # a catch
        HeldIntent(1, CALL_UNO, 4, "player", turn=0),  # the caught player's own call
        HeldIntent(3, play(6), 5, "player", turn=0),
    ]  # a later jump-in
    taken, refused = [], []

    def take(h: HeldIntent) -> bool:
        taken.append(h.action_id)
        return h.action_id != 3  # the catch fails: the call came first

    resolve(
        Window(turn=0, closes=0.0, catchable=1, held=held),
        take,
        lambda h, reason, message: refused.append((h.action_id, str(reason), message)),
        lambda seat: f"p{seat}",
    )
    assert taken == [4, 3, 2]  # the call, the catch, the first jump-in
    assert refused == [
        (5, "jump_in_lost", "p2 jumped in first"),
        (1, "jumped_in", "p2 jumped in first"),
    ]
