"""A server whose memory is bounded whatever clients do (issue 14): a seat's
log after 100,000 messages and after 10,000 refused intents, finished tables
kept small and counted against the limit, one client's waiting tables capped,
no cache that grows with values a client chooses, undecodable bytes to every
rpc answered with INVALID_ARGUMENT and no traceback, and ``uno serve`` that
refuses a port in use and does not advertise a loopback server."""

from __future__ import annotations

import asyncio
import gc
import itertools
import logging
import os
import random
import signal
import socket
import sys
import threading
import time
import tracemalloc
import types
import weakref

import grpc
import pytest
from grpc_health.v1 import health_pb2
from helpers import AddressRelay, until

from unoplay import wire
from unoplay.client.sdk import Connection, ServerError
from unoplay.game import RuleSet, actions
from unoplay.game.actions import Action, ActionKind
from unoplay.game.engine import GameState
from unoplay.game.events import visible
from unoplay.game.messages import Refusal, TableState, Update
from unoplay.game.registry import make_bot
from unoplay.game.rules import preset
from unoplay.protocol import LobbyError
from unoplay.server import lobby as lobby_module
from unoplay.server.botturns import default_action
from unoplay.server.limits import Limits
from unoplay.server.lobby import Lobby
from unoplay.server.service import UNDECODABLE_REQUEST, start_server
from unoplay.server.streamlog import MAX_ANCHOR, MAX_LOST, MAX_SEQ, StreamLog
from unoplay.server.table import Table
from unoplay.v1 import game_service_pb2 as gs
from unoplay.v1 import lobby_service_pb2 as ls

WAIT = 60
LIMITS = Limits()


def _messages_of_play(count: int) -> list:
    """``count`` messages seat 0 of four-seat house games is sent: the events
    it may see and an update after each action, from random games."""
    rng = random.Random(7)
    out: list = []
    game_no = 0
    while len(out) < count:
        game, events = GameState.new(4, preset("house"), seed=f"bound-{game_no}")
        game_no += 1
        while not game.is_round_over and len(out) < count:
            out.extend(e for e in events if e.audience in (-1, 0))
            out.append(Update(game.view(0), tuple(game.legal_actions(0)), 0.0, (), 0.0))
            seat = game.current
            events = game.apply(seat, rng.choice(game.legal_actions(seat)))
    return out[:count]


def test_a_seats_log_keeps_the_newest_messages_within_its_bound_after_100000():
    sent = _messages_of_play(2_000)
    log = StreamLog(0, LIMITS.log_messages, LIMITS.log_bytes)
    largest = 0
    for i in range(100_000):
        log.append(sent[i % len(sent)])
        largest = max(largest, log.bytes)
    assert len(log) == 100_000
    kept = 100_000 - log.first_seq + 1
    assert 0 < kept <= LIMITS.log_messages
    assert largest <= LIMITS.log_bytes
    # exactly the newest messages, in order, numbered to the end
    newest = [sent[i % len(sent)] for i in range(100_000 - kept, 100_000)]
    assert list(log) == newest
    assert log[99_999] == newest[-1]
    with pytest.raises(IndexError):
        log[0]  # the first message is long gone


@pytest.mark.parametrize(("max_messages", "max_bytes"), [(0, 0), (5, 10**6), (50, 300), (3, 40)])
def test_a_batch_of_messages_is_kept_as_one_at_a_time_would_be(max_messages, max_bytes):
    """StreamLog.extend (a change's events, in one step) keeps exactly what
    append_body called on each would: the same seqs, messages and bytes."""
    rng = random.Random(max_messages * 7 + max_bytes)
    one, batch = (StreamLog(0, max_messages, max_bytes) for _ in range(2))
    for _ in range(300):
        bodies = [bytes(rng.randrange(1, 60)) for _ in range(rng.randrange(0, 6))]
        for body in bodies:
            one.append_body(body)
        batch.extend(bodies)
        assert (len(batch), batch.first_seq, batch.bytes) == (len(one), one.first_seq, one.bytes)
        assert batch.bodies(0, 10**6, 10**9) == one.bodies(0, 10**6, 10**9)


def test_a_resume_past_a_log_is_refused_and_a_restored_one_moves_only_a_little():
    """StreamLog.resume: past a log's end is OUT_OF_RANGE (None); a restored
    log is numbered on from its first stream, within MAX_SEQ; past its end by
    at most MAX_LOST a seat's log goes on after it, the spectators' (shared)
    stays where it is."""
    log = StreamLog(0, 50, 10**6)
    for _ in range(5):
        log.append_body(b"m")
    assert log.resume(5) == 5 and log.resume(6) is None
    for shared in (False, True):
        restored = StreamLog(0, 50, 10**6)
        restored.append_body(b"update of now")
        restored.restored = restored.unanchored = True
        assert restored.resume(MAX_SEQ + 1, shared) is None and restored.unanchored
        assert restored.resume(40, shared) == 40 and len(restored) == 41  # anchored
        assert restored.resume(41 + MAX_LOST + 1, shared) is None and len(restored) == 41
        assert restored.resume(41 + MAX_LOST, shared) == (41 if shared else 41 + MAX_LOST)
        assert len(restored) == (41 if shared else 41 + MAX_LOST)
    # The first stream of a restored log numbers it (the spectators' is anyone's
    # to open), but never where its seqs would run out: past MAX_ANCHOR it is
    # refused, and numbered there the log still has room; an earlier
    # spectator's resume is not refused.
    for shared in (False, True):
        restored = StreamLog(-1, 50, 10**6)
        restored.append_body(b"update of now")
        restored.restored = restored.unanchored = True
        assert restored.resume(MAX_ANCHOR + 1, shared) is None and restored.unanchored
        assert restored.resume(MAX_ANCHOR, shared) == MAX_ANCHOR
        for _ in range(3):
            restored.append_body(b"m")
        last = len(restored)
        assert last == MAX_ANCHOR + 4 <= MAX_SEQ
        assert restored.resume(last, shared) == last
        assert restored.resume(14, shared) == 14  # sent from the oldest kept: seqs jump on


async def test_10000_refused_intents_are_answered_and_the_log_stays_bounded():
    lobby = Lobby()
    table = lobby.create("refusals", 2, RuleSet(target_score=0))
    seat = table.join("flooder")
    table.add_bot(_Idle(), "idle")
    table.start()
    log = table.log_for(seat.index)
    before = len(log)
    not_a_card = Action(ActionKind.PLAY, card=500)
    for _ in range(10_000):
        assert not table.act(seat.index, not_a_card, action_id=9)
    assert len(log) == before + 10_000  # each refusal was sent, with its seq
    last = log[-1]
    assert isinstance(last, Refusal) and last.action_id == 9
    assert len(log) - log.first_seq + 1 <= LIMITS.log_messages
    assert log.bytes <= LIMITS.log_bytes
    table.close()


async def test_a_table_with_a_turn_timer_holds_one_timer_however_fast_it_is_played():
    """Each change re-arms the turn timer: the previous one is cancelled, not
    left in the event loop until its time (1,000 actions of a 60 s timer
    held 1,000 handles)."""
    lobby = Lobby()
    table = lobby.create("fast", 2, RuleSet(), turn_seconds=60, seed="timers")
    seats = [table.join("a"), table.join("b")]
    table.start()
    game = table.game
    bots = [make_bot("greedy", seed=s) for s in range(2)]
    actions_taken = 0
    most = rounds = 0
    while table.state is TableState.PLAYING:
        if game.is_round_over:  # deal the next round now, not after its pause
            table._next_round(table.version)
            rounds += 1
            continue
        seat = game.current
        assert table.act(seat, bots[seat].decide(game.view(seat), game.legal_actions(seat)))
        actions_taken += 1
        most = max(most, table.timers.live())
    # the one turn timer, and each round's pause that this test did not wait for
    assert actions_taken > 100 and most <= 1 + rounds, (actions_taken, most, rounds)
    assert all(s.occupied for s in seats)
    table.close()


async def test_searching_bots_take_turns_one_decision_a_loop_iteration():
    """Bots that search decide one at a time, at many tables at once, each
    decision between two turns of the loop (a ticker that runs every loop
    iteration is seen between any two), so they never pile up on the
    interpreter at once (an attack with tables of ismcts bots held every
    lobby call for seconds)."""
    seen: list[str] = []

    class Searcher:
        budgeted = True  # a kind that searches, within Limits.bot_ms
        name = "searcher"

        def decide(self, view, legal):
            seen.append("decide")
            return legal[0]

    lobby = Lobby()
    tables = []
    for t in range(3):
        table = lobby.create(f"s{t}", 2, RuleSet(target_score=0), seed=f"search-{t}")
        table.add_bot(Searcher(), "a")
        table.add_bot(Searcher(), "b")
        tables.append(table)
    loop = asyncio.get_running_loop()

    def tick() -> None:
        seen.append("tick")
        if not all(t.state is TableState.FINISHED for t in tables):
            loop.call_soon(tick)

    for table in tables:
        table.start()
    tick()
    for table in tables:
        await until(table, lambda t=table: t.state is TableState.FINISHED, "the bots' game")
    decisions = seen.count("decide")
    assert decisions > 30  # three whole rounds
    assert ("decide", "decide") not in set(itertools.pairwise(seen)), "two decisions in a row"
    lobby.close()


async def test_a_searching_bot_thinks_on_its_thread_while_the_table_goes_on():
    """A bot that searches decides on the search thread: while it thinks,
    the loop serves the table (here the turn timer's move for it, which a
    search on the loop could not let happen before it ended), its stale
    decision is dropped, and what its seat saw meanwhile reaches it after it
    answered, in order, never while it decides."""
    thinking, go = threading.Event(), threading.Event()
    main = threading.current_thread()

    class Searcher:
        budgeted = observes = True
        name = "searcher"

        def __init__(self) -> None:
            self.observed: list = []
            self.threads: set = set()
            self.deciding = False
            self.overlaps = 0

        def decide(self, view, legal):
            self.deciding = True
            self.threads.add(threading.current_thread())
            if not thinking.is_set():
                thinking.set()
                assert go.wait(WAIT), "the loop never let the first search end"
            self.deciding = False
            return legal[0]

        def observe(self, events):
            self.overlaps += self.deciding
            self.observed.extend(events)

    lobby = Lobby()
    table = lobby.create("think", 2, RuleSet(target_score=0), seed="search-thread")
    searcher = Searcher()
    seat = table.add_bot(searcher, "s").index
    table.add_bot(make_bot("greedy", seed=1), "g")
    published: list = []
    publish = table._publish

    def spy(events, actor=-1):
        published.extend(visible(events, seat))
        publish(events, actor)

    table._publish = spy
    table.start()
    loop = asyncio.get_running_loop()
    assert await loop.run_in_executor(None, thinking.wait, WAIT), "no search began"
    game = table.game
    assert game.current == seat
    timed_out = len(table.history)
    assert table.act(seat, default_action(game), source="timer")  # events while it thinks
    go.set()
    await until(table, lambda: table.state is TableState.FINISHED, "the game")
    assert main not in searcher.threads and len(searcher.threads) == 1
    assert searcher.overlaps == 0
    assert searcher.observed == published  # every event its seat saw, in order
    sources = table.history.sources
    assert sources[timed_out] == "timer" and "bot" in sources[timed_out + 1 :]
    lobby.close()


async def test_a_search_that_fails_plays_the_turn_timers_move(caplog):
    """A searching bot that raises does not stall its table: the turn timer's
    move is played for it at once, and the failure is logged."""

    class Broken:
        budgeted = True
        name = "broken"
        calls = 0

        def decide(self, view, legal):
            Broken.calls += 1
            if Broken.calls == 1:
                raise RuntimeError("search blew up")
            return legal[0]

    lobby = Lobby()
    table = lobby.create("broken", 2, RuleSet(target_score=0), seed="search-fails")
    seat = table.add_bot(Broken(), "b").index
    table.add_bot(make_bot("greedy", seed=2), "g")
    with caplog.at_level(logging.ERROR, logger="unoplay.server.table"):
        table.start()
        await until(table, lambda: table.state is TableState.FINISHED, "the game")
    first = next(i for i, (s, _) in enumerate(table.history) if s == seat)
    game = GameState.new(2, RuleSet(target_score=0), table.game.seed)[0]
    for s, action in list(table.history)[:first]:
        game.apply(s, action)
    assert list(table.history)[first][1] == default_action(game)
    assert "the bot failed to decide" in caplog.text
    lobby.close()


async def test_a_search_that_cannot_start_does_not_stop_the_other_tables(caplog):
    """A search whose start fails (here: always, at one table) is logged and
    the queue goes on: the other table's searching bots finish their game."""

    class Searcher:
        budgeted = True
        name = "searcher"

        def decide(self, view, legal):
            return legal[0]

    lobby = Lobby()
    broken, fine = (
        lobby.create(name, 2, RuleSet(target_score=0), seed=f"search-{name}")
        for name in ("broken", "fine")
    )
    for table in (broken, fine):
        table.add_bot(Searcher(), "a")
        table.add_bot(Searcher(), "b")

    def cannot_start(seat, version, executor):
        raise RuntimeError("no view")

    broken.bots.search = cannot_start
    with caplog.at_level(logging.ERROR, logger="unoplay.server.table"):
        broken.start()
        fine.start()
        await until(fine, lambda: fine.state is TableState.FINISHED, "the other table's game")
    assert "a search could not start" in caplog.text
    assert broken.state is TableState.PLAYING
    lobby.close()


class _Idle:
    """A bot that never acts (the table waits for it)."""

    name = "idle"

    def decide(self, view, legal):
        return None


def test_catch_actions_are_made_once_per_seat_and_never_kept_for_other_values():
    assert actions.catch(3) is actions.catch(3)
    made = [actions.catch(random.randrange(10, 10**9)) for _ in range(10_000)]
    assert all(a.kind is ActionKind.CATCH for a in made)
    assert actions.catch(123_456) is not actions.catch(123_456)  # made, judged, forgotten
    assert len(actions._CATCHES) == 10


# ------------------------------------------------------------------ finished tables


async def _quick_table(lobby: Lobby, seats: int, seed: str | None = None) -> Table:
    """The cheap table of the report: a one-round game, bots in every seat but
    the creator's, started at once; the person never connects (a stand-in
    plays for them at once): random bots, or with ``seed`` a seeded table of
    greedy bots, the same game every run. Returns the table once its game is over."""
    table = lobby.create("quick", seats, RuleSet(target_score=0), away_grace=0, seed=seed)
    table.join("quick")
    for _ in range(seats - 1):
        table.add_bot(make_bot("random" if seed is None else "greedy"), "bot")
    table.start()
    await asyncio.wait_for(_finished(table), WAIT)
    return table


async def _finished(table: Table) -> None:
    while table.state is not TableState.FINISHED:
        await table.wait_for_change()


def _forget_shared_caches() -> None:
    """Empty the wire's bounded caches (shared by every table, so not a table's cost)."""
    for value in vars(wire).values():
        if hasattr(value, "cache_clear"):
            value.cache_clear()


async def test_a_sweep_looks_only_at_the_tables_due_and_a_rematch_reopens_a_table(monkeypatch):
    """The lobby sweeps on every table made: it looks at a finished table
    when it is due (to be compacted, then dropped), not at every table each
    time, and counts the seats held at open tables only, a table playing
    again after a rematch included."""
    looked: list[Table] = []
    compact = Table.compact

    def counting(table: Table, now: float) -> bool:
        looked.append(table)
        return compact(table, now)

    monkeypatch.setattr(Table, "compact", counting)
    lobby = Lobby(limits=Limits(finished_full_seconds=0))
    tables = [await _quick_table(lobby, 2) for _ in range(5)]
    assert looked == tables[:-1]  # each made table's sweep compacted the one before
    looked.clear()
    lobby.sweep()
    assert looked == tables[-1:]
    looked.clear()
    lobby.sweep()
    assert looked == []  # the next look is when they are to be dropped
    table = lobby.create("again", 2, RuleSet(target_score=0), away_grace=0)
    table, seat = lobby.join(table.table_id, "Sam")
    table.add_bot(make_bot("random"), "bot")
    assert lobby.seats_held("sam") == 1
    table.start()
    await asyncio.wait_for(_finished(table), WAIT)
    assert lobby.seats_held("sam") == 0  # a finished table holds no seat
    table.vote_rematch(seat.token)
    assert table.state is TableState.PLAYING and lobby.seats_held("sam") == 1
    await asyncio.wait_for(_finished(table), WAIT)
    looked.clear()
    lobby.sweep()
    assert looked == [table]  # once: the first game's entry is stale


async def test_a_finished_table_keeps_every_message_for_a_while_then_the_end():
    """A stream cut as the game ends (a write racing the end fails the call
    and its unread messages with it) resumes with every message while the
    game has been over less than ``finished_full_seconds``; a sweep after that
    keeps only the last ``finished_log_messages`` of each log."""
    lobby = Lobby()
    table = await _quick_table(lobby, 10)  # ten seats: a round is always over 64 messages
    log_ = table.seats[0].log
    kept = log_.first_seq  # (a long game: the log's own bound may have dropped the oldest)
    assert len(log_) - kept + 1 > 64
    lobby.sweep()  # just over: nothing more is dropped
    assert log_.first_seq == kept and table.history
    table.compact(table.touched + lobby.limits.finished_full_seconds - 0.001)
    assert log_.first_seq == kept
    table.compact(table.touched + lobby.limits.finished_full_seconds)
    assert len(log_) - log_.first_seq + 1 == lobby.limits.finished_log_messages
    assert len(table.history) == 0 and table.history.received == []


async def test_a_finished_table_keeps_a_small_summary():
    """Ten seats (the costliest table): once over and compacted, a table keeps
    its final state and the last ``finished_log_messages`` of each log."""
    lobby = Lobby(limits=Limits(finished_full_seconds=0))
    await _quick_table(lobby, 10, "warm")  # warm up the engine's and the server's interned values
    count = 6
    _forget_shared_caches()
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        # seeded games, so that the figure is the same every run
        tables = [await _quick_table(lobby, 10, f"summary-{i}") for i in range(count)]
        lobby.sweep()  # compacts what no stream is reading
        _forget_shared_caches()
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    per_table = grown / count
    assert per_table < 64 * 1024, f"{per_table:.0f} bytes per finished table"
    for table in tables:
        assert all(len(s.log) - s.log.first_seq + 1 <= 64 for s in table.seats)
        assert len(table.history) == 0 and table.history.received == []
        assert table.game is not None and table.game.is_game_over  # the final snapshot


async def test_finished_tables_count_against_the_limit_and_the_next_is_refused():
    count = 300
    lobby = Lobby(limits=Limits(max_tables=count))
    for _ in range(count):
        await _quick_table(lobby, 2)
    assert all(t.state is TableState.FINISHED for t in lobby.tables.values())
    with pytest.raises(LobbyError) as err:
        lobby.create("one more", 2, RuleSet())
    assert err.value.kind == "resource_exhausted" and "limit" in str(err.value)
    assert len(lobby.tables) == count


async def test_one_client_may_leave_only_so_many_tables_waiting():
    lobby = Lobby(limits=Limits(max_waiting_tables_per_client=3))
    mine = [lobby.create("t", 2, RuleSet(), owner="ipv4:10.0.0.5:4000") for _ in range(3)]
    with pytest.raises(LobbyError) as err:
        lobby.create("t", 2, RuleSet(), owner="ipv4:10.0.0.5:4000")
    assert err.value.kind == "resource_exhausted" and "3 tables waiting" in str(err.value)
    lobby.create("t", 2, RuleSet(), owner="ipv4:10.0.0.6:4000")  # someone else may
    seat = mine[0].join("a")
    mine[0].add_bot(_Idle(), "b")
    mine[0].start()
    assert seat.index == 0
    lobby.create("t", 2, RuleSet(), owner="ipv4:10.0.0.5:4000")  # one is playing now
    with pytest.raises(LobbyError):
        lobby.create("t", 2, RuleSet(), owner="ipv4:10.0.0.5:4000")
    lobby.limits = Limits(max_waiting_tables_per_client=3, waiting_ttl=0)
    lobby.create("t", 2, RuleSet(), owner="ipv4:10.0.0.5:4000")  # the idle ones were dropped
    assert lobby._waiting_owned == {"ipv4:10.0.0.5:4000": 1}
    lobby.close()


async def test_one_client_may_have_only_so_many_tables_open_and_its_finished_ones_make_room():
    """A client that starts games nobody plays (an absent player, a long away
    grace) cannot fill the server: its open tables are capped; and its
    finished games do not fill it either: the oldest beyond the cap go."""
    me, other = "ipv4:10.0.0.5", "ipv4:10.0.0.6"
    lobby = Lobby(limits=Limits(max_tables_per_client=3, max_waiting_tables_per_client=16))

    def started(owner: str) -> tuple[Table, str]:
        table = lobby.create("t", 2, RuleSet(target_score=0), owner=owner, away_grace=3600)
        token = table.join("absent").token
        table.add_bot(make_bot("random", seed=1), "bot")
        table.start()
        return table, token

    async def finish(games: list[tuple[Table, str]]) -> None:
        for table, token in games:  # the absent player gives up: a stand-in ends the game
            table.leave(token)
        for table, _ in games:
            await until(table, lambda t=table: t.state is TableState.FINISHED, "the game's end")

    playing = [started(me) for _ in range(3)]
    with pytest.raises(LobbyError) as err:
        started(me)
    assert err.value.kind == "resource_exhausted" and "3 tables open" in str(err.value)
    started(other)  # someone else may
    await finish(playing)
    assert {o: len(ids) for o, ids in lobby._open_owned.items()} == {other: 1}
    newer = [started(me) for _ in range(3)]  # room again
    assert all(t.table_id in lobby.tables for t, _ in playing)  # 3 finished: none dropped yet
    await finish(newer)
    started(me)  # 6 finished: the oldest beyond 3 go
    assert [t.table_id in lobby.tables for t, _ in playing + newer] == [False] * 3 + [True] * 3
    assert sum(1 for t in lobby.tables.values() if t.owner == me) == 4
    assert len(lobby._finished_owned[me]) == 3
    assert sum(map(len, lobby._open_owned.values())) == 2
    lobby.close()


async def test_a_finished_table_dropped_to_make_room_is_freed_at_once():
    """A client's finished tables dropped as it makes more (its oldest beyond
    its cap) are freed then, not kept for their next look
    (``finished_full_seconds`` later): a client finishing games fast, such
    as the arena's bots, would otherwise keep the last minute's tables
    alive, every log of each."""
    lobby = Lobby(limits=Limits(max_tables_per_client=2))
    kept, ids = [], []
    for _ in range(6):
        table = lobby.create("t", 2, RuleSet(target_score=0), owner="ipv4:10.0.0.5", away_grace=0)
        table.join("absent")  # (never comes: a stand-in plays at once)
        table.add_bot(make_bot("random", seed=1), "bot")
        table.start()
        await asyncio.wait_for(_finished(table), WAIT)
        kept.append(weakref.ref(table))
        ids.append(table.table_id)
    del table
    assert [i in lobby.tables for i in ids] == [False] * 3 + [True] * 3
    lobby.finished.clear()  # (the latest finished tables, kept for tests and tools)
    gc.collect()
    assert [ref() is not None for ref in kept] == [False] * 3 + [True] * 3
    lobby.close()


def test_a_start_storm_looks_at_the_waiting_tables_once_a_second(monkeypatch):
    """Every table made sweeps the lobby, but the waiting tables are looked at
    once every WAITING_SWEEP_EVERY seconds: N tables made at once cost N looks,
    not N**2/2."""
    clock = [time.monotonic()]  # the lobby's clock, stopped
    monkeypatch.setattr(lobby_module, "time", types.SimpleNamespace(monotonic=lambda: clock[0]))
    looked: list[str] = []
    monkeypatch.setattr(
        Table, "free_absent_seats", lambda self, grace, now: looked.append(self.table_id)
    )
    lobby = Lobby()
    tables = [lobby.create("t", 2, RuleSet()) for _ in range(50)]
    assert looked == []  # the first sweep found nothing waiting; the next 49 did not look
    clock[0] += lobby_module.WAITING_SWEEP_EVERY
    lobby.create("t", 2, RuleSet())
    assert looked == [t.table_id for t in tables]
    lobby.close()


@pytest.mark.parametrize(
    ("limits", "words"),
    [
        (Limits(max_tables=2), "2 tables, its limit"),
        (Limits(max_waiting_tables_per_client=2), "you have 2 tables waiting"),
    ],
    ids=["tables", "waiting tables of one client"],
)
async def test_the_third_table_is_refused_over_the_wire(limits, words):
    srv = await start_server("127.0.0.1", 0, limits=limits)
    try:
        async with Connection(srv.address) as conn:
            await conn.wait_ready()
            for _ in range(2):
                await conn.create_table(seats=2)
            with pytest.raises(ServerError) as err:
                await conn.create_table(seats=2)
            assert err.value.status == "RESOURCE_EXHAUSTED" and words in str(err.value)
            assert len(srv.lobby.tables) == 2
    finally:
        await srv.stop(None)


# ------------------------------------------------------------------ undecodable bytes


def _methods():
    """Every rpc of the server: (path, request streaming, response streaming)."""
    from grpc_health.v1 import health_pb2 as h
    from grpc_reflection.v1alpha import reflection_pb2 as r

    services = [
        ls.DESCRIPTOR.services_by_name["LobbyService"],
        gs.DESCRIPTOR.services_by_name["GameService"],
        h.DESCRIPTOR.services_by_name["Health"],
        r.DESCRIPTOR.services_by_name["ServerReflection"],
    ]
    return [
        (f"/{s.full_name}/{m.name}", m.client_streaming, m.server_streaming)
        for s in services
        for m in s.methods
    ]


def test_the_list_of_rpcs_is_complete():
    paths = {p for p, _, _ in _methods()}
    assert {
        "/unoplay.v1.LobbyService/CreateTable",
        "/unoplay.v1.LobbyService/Rematch",
        "/unoplay.v1.GameService/Play",
        "/unoplay.v1.GameService/Spectate",
        "/grpc.health.v1.Health/Check",
        "/grpc.health.v1.Health/Watch",
        "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
    } <= paths
    assert len(paths) >= 13


@pytest.mark.parametrize(("path", "streaming_in", "streaming_out"), _methods())
async def test_undecodable_bytes_get_invalid_argument_and_no_traceback(
    server, caplog, path, streaming_in, streaming_out
):
    caplog.set_level(logging.DEBUG)
    garbage = b"\xff\xff\xff\xff"
    async with grpc.aio.insecure_channel(server.address) as channel:
        if streaming_in:
            call = channel.stream_stream(path)()
            await call.write(garbage)
            with pytest.raises(grpc.aio.AioRpcError) as err:
                while await asyncio.wait_for(call.read(), WAIT) is not grpc.aio.EOF:
                    pass
                raise AssertionError("the stream ended with OK")
        elif streaming_out:
            call = channel.unary_stream(path)(garbage)
            with pytest.raises(grpc.aio.AioRpcError) as err:
                while await asyncio.wait_for(call.read(), WAIT) is not grpc.aio.EOF:
                    pass
                raise AssertionError("the stream ended with OK")
        else:
            with pytest.raises(grpc.aio.AioRpcError) as err:
                await asyncio.wait_for(channel.unary_unary(path)(garbage), WAIT)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT, err.value
    assert "could not be decoded" in err.value.details()
    assert len(err.value.details()) < 100  # ours, not the parser's internals
    for record in caplog.records:
        assert record.exc_info is None, record.getMessage()
        assert "Traceback" not in record.getMessage()


async def test_the_server_goes_on_after_garbage_to_every_rpc(server, conn):
    from grpc_health.v1 import health_pb2_grpc

    async with grpc.aio.insecure_channel(server.address) as channel:
        for path, streaming_in, streaming_out in _methods():
            if not streaming_in and not streaming_out:
                with pytest.raises(grpc.aio.AioRpcError) as err:
                    await asyncio.wait_for(channel.unary_unary(path)(b"\xff\xff"), WAIT)
                assert err.value.details() == UNDECODABLE_REQUEST
        health = health_pb2_grpc.HealthStub(channel)
        answer = await asyncio.wait_for(health.Check(health_pb2.HealthCheckRequest()), WAIT)
        watch = health.Watch(health_pb2.HealthCheckRequest())  # a stream written by a coroutine
        watched = await asyncio.wait_for(watch.read(), WAIT)
        watch.cancel()
    assert answer.status == watched.status == health_pb2.HealthCheckResponse.SERVING
    assert (await conn.create_table(seats=2)).table_id in server.lobby.tables


async def _streams_down_to(streams, count: int) -> None:
    """Wait (polling, at most WAIT s) until the server's :class:`OpenStreams`
    ``streams`` counts ``count``: it ends a cancelled stream soon after."""
    for _ in range(WAIT * 100):
        if len(streams) == count:
            return
        await asyncio.sleep(0.01)
    pytest.fail(f"the server still counts {len(streams)} {streams.what} streams")


async def test_health_watch_streams_are_bounded_per_client_and_in_all():
    """A client may have so many health Watch streams open, the server so many
    in all; past either, Watch is RESOURCE_EXHAUSTED and the others go on. A
    stream ended frees its place; Check is never limited; a service name too
    long to be one is INVALID_ARGUMENT."""
    from grpc_health.v1 import health_pb2_grpc

    limits = Limits(max_health_watches_per_client=3, max_health_watches=5)
    srv = await start_server("127.0.0.1", 0, limits=limits)
    request = health_pb2.HealthCheckRequest()

    async def watch(stub):
        """A Watch stream whose first answer (SERVING) has come."""
        call = stub.Watch(request)
        first = await asyncio.wait_for(call.read(), WAIT)
        assert first.status == health_pb2.HealthCheckResponse.SERVING
        return call

    async def refused(stub, why=request):
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await asyncio.wait_for(stub.Watch(why).read(), WAIT)
        return err.value

    async def settled(count):
        await _streams_down_to(srv.health.watches, count)

    try:
        async with (
            AddressRelay(srv.port, "127.0.0.2") as other,
            grpc.aio.insecure_channel(srv.address) as a,
            grpc.aio.insecure_channel(other) as b,
        ):
            mine, theirs = health_pb2_grpc.HealthStub(a), health_pb2_grpc.HealthStub(b)
            calls = [await watch(mine) for _ in range(3)]
            err = await refused(mine)
            assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert "a client may have 3" in err.details()
            calls += [await watch(theirs) for _ in range(2)]  # another address: its own 3
            err = await refused(theirs)  # but the server's 5 are open
            assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert "the server has as many health Watch streams" in err.details()
            checked = await asyncio.wait_for(mine.Check(request), WAIT)
            assert checked.status == health_pb2.HealthCheckResponse.SERVING
            calls.pop(0).cancel()  # one of the first client's ends
            await settled(4)
            calls.append(await watch(theirs))
            err = await refused(mine, health_pb2.HealthCheckRequest(service="x" * 10_000))
            assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
            for call in calls:
                call.cancel()
            await settled(0)
            assert not srv.health.watches.open  # nothing kept for a client with none open
    finally:
        await srv.stop(None)


async def test_spectate_and_reflection_streams_are_bounded_per_client_and_in_all():
    """Spectate streams (of any tables) and server reflection streams: a
    client may have so many open, the server so many in all; past either the
    stream is RESOURCE_EXHAUSTED before it is served, the others go on, and
    one ended frees its place."""
    from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

    limits = Limits(
        max_spectate_streams_per_client=2,
        max_spectate_streams=3,
        max_reflection_streams_per_client=1,
        max_reflection_streams=2,
    )
    srv = await start_server("127.0.0.1", 0, limits=limits)

    async def settled(count):
        await _streams_down_to(srv.games.spectating, count)

    async def first(call):
        return await asyncio.wait_for(call.read(), WAIT)

    async def refusal(call):
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await first(call)
        assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        return err.value.details()

    try:
        async with (
            AddressRelay(srv.port, "127.0.0.2") as other,
            grpc.aio.insecure_channel(srv.address) as a,
            grpc.aio.insecure_channel(other) as b,
            Connection(srv.address) as conn,
        ):
            tables = [(await conn.create_table(seats=2)).table_id for _ in range(2)]
            mine, theirs = game_stub(a), game_stub(b)
            calls = [mine.Spectate(gs.SpectateRequest(table_id=t)) for t in tables]
            for call in calls:
                assert (await first(call)).HasField("snapshot")
            said = await refusal(mine.Spectate(gs.SpectateRequest(table_id=tables[0])))
            assert "a client may have 2 Spectate streams" in said
            calls.append(theirs.Spectate(gs.SpectateRequest(table_id=tables[1])))
            assert (await first(calls[-1])).HasField("snapshot")  # its own address: its own 2
            said = await refusal(theirs.Spectate(gs.SpectateRequest(table_id=tables[1])))
            assert "the server has as many Spectate streams" in said
            calls.pop(0).cancel()
            await settled(2)
            calls.append(theirs.Spectate(gs.SpectateRequest(table_id=tables[0])))
            assert (await first(calls[-1])).HasField("snapshot")

            ask = reflection_pb2.ServerReflectionRequest(list_services="")
            reflecting = reflection_pb2_grpc.ServerReflectionStub(a).ServerReflectionInfo()
            await reflecting.write(ask)
            assert (await first(reflecting)).HasField("list_services_response")
            again = reflection_pb2_grpc.ServerReflectionStub(a).ServerReflectionInfo()
            await again.write(ask)
            assert "a client may have 1 server reflection streams" in await refusal(again)
            for call in (*calls, reflecting):
                call.cancel()
            await settled(0)
    finally:
        await srv.stop(None)


async def test_a_client_gone_during_a_write_is_one_quiet_line_not_a_traceback(caplog):
    """grpc logs a servicer's write that failed in its core (a client that
    went away while written to: ExecuteBatchError) at ERROR with a
    traceback, from any client, as often as it likes. Once a server has
    started, it is one INFO line naming the rpc, at most once per 10 s;
    other grpc errors still pass. (The record is grpc's, as its aio server
    writes it; a raw HTTP/2 client that grants no flow-control window and
    closes its socket makes one, but not at a moment a test can wait for.)"""
    from grpc._cython import cygrpc

    from unoplay.server.service import GoneDuringWrite

    srv = await start_server("127.0.0.1", 0)
    await srv.stop(None)
    grpc_log = logging.getLogger("grpc._cython.cygrpc")
    (installed,) = [f for f in grpc_log.filters if isinstance(f, GoneDuringWrite)]
    grpc_log.removeFilter(installed)  # a fresh one: not one that logged for another test
    grpc_log.addFilter(GoneDuringWrite())
    caplog.set_level(logging.INFO)
    method = "/unoplay.v1.GameService/Spectate"
    for _ in range(3):
        try:
            raise cygrpc.ExecuteBatchError('Failed "execute_batch"')
        except cygrpc.ExecuteBatchError:
            grpc_log.exception("ExecuteBatchError raised in core by servicer method [%s]", method)
    try:
        raise RuntimeError("something else")
    except RuntimeError:
        grpc_log.exception("Unexpected error raised by servicer method [%s]", method)
    lines = [(r.levelno, r.getMessage()) for r in caplog.records]
    assert lines == [
        (logging.INFO, f"a client went away during a write to {method}"),
        (logging.ERROR, f"Unexpected error raised by servicer method [{method}]"),
    ]


def game_stub(channel):
    """The game service's stub on ``channel``."""
    from unoplay.v1 import game_service_pb2_grpc

    return game_service_pb2_grpc.GameServiceStub(channel)


# ------------------------------------------------------------------ uno serve


async def _uno(*args: str) -> asyncio.subprocess.Process:
    """``uno ARGS`` in a child process, its output (stdout and stderr) piped."""
    env = {**os.environ, "UNOPLAY_MDNS": "1", "PYTHONUNBUFFERED": "1"}
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "unoplay.client.cli",
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        env=env,
    )


async def _output_of(*args: str) -> tuple[int, str]:
    """(exit code, output) of ``uno ARGS`` run to its end (within WAIT s)."""
    process = await _uno(*args)
    out, _ = await asyncio.wait_for(process.communicate(), WAIT)
    assert process.returncode is not None
    return process.returncode, out.decode()


async def _read_until(process: asyncio.subprocess.Process, wanted: str, seen: list[str]) -> None:
    """Read ``process``'s lines into ``seen`` up to one containing ``wanted``."""
    assert process.stdout is not None
    while not any(wanted in line for line in seen):
        line = (await asyncio.wait_for(process.stdout.readline(), WAIT)).decode()
        assert line, f"{wanted!r} never printed: {''.join(seen)}"
        seen.append(line)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def test_a_second_uno_serve_on_a_port_in_use_exits_with_one_line():
    port = _free_port()
    first = await _uno("serve", "--host", "127.0.0.1", "--port", str(port), "--no-db")
    seen: list[str] = []
    try:
        await _read_until(first, "listening on", seen)
        code, out = await _output_of("serve", "--host", "127.0.0.1", "--port", str(port), "--no-db")
        assert code != 0
        assert out.strip().splitlines() == [
            f"uno serve: port {port} is in use (is another server there?)"
        ], out
        code, out = await _output_of("serve", "--port", "80000", "--no-db")
        assert code != 0
        assert out.strip() == (
            "uno serve: --port: must be 0..65535, not 80000 (see uno serve --help)"
        ), out
        await _read_until(first, "not advertised on the LAN", seen)  # bound to loopback
    finally:
        first.send_signal(signal.SIGTERM)
        rest, _ = await asyncio.wait_for(first.communicate(), WAIT)
    assert first.returncode == 0
    assert "advertised on the LAN as" not in "".join(seen) + rest.decode()


def _play(channel: grpc.aio.Channel):  # type: ignore[no-untyped-def]
    """The Play method of ``channel``, raw: a stream that may never send a join."""
    return channel.stream_stream(
        "/unoplay.v1.GameService/Play",
        gs.PlayRequest.SerializeToString,
        gs.PlayResponse.FromString,
    )


async def test_a_game_stream_that_sends_no_join_in_time_is_refused_as_invalid():
    """proto/README.md: no join within the limit is INVALID_ARGUMENT (do not
    retry), not a cancelled stream a client would retry."""
    srv = await start_server("127.0.0.1", 0, limits=Limits(join_timeout=0.2))
    try:
        async with grpc.aio.insecure_channel(srv.address) as channel:
            call = _play(channel)(timeout=10)
            with pytest.raises(grpc.aio.AioRpcError) as err:
                await call.read()
            assert err.value.code() is grpc.StatusCode.INVALID_ARGUMENT, err.value
            assert "no join within 0.2 s" in err.value.details()
    finally:
        await srv.stop(None)


async def test_game_streams_that_never_join_are_capped_per_address():
    """Streams waiting for their join cost memory until the join timeout: one
    address may have only so many (4 for each table it may have open). Of five
    at a cap of four, one is refused at once, the rest time out as usual."""
    limits = Limits(max_tables_per_client=1, join_timeout=3)
    assert limits.max_joining_per_client == 4
    srv = await start_server("127.0.0.1", 0, limits=limits)
    try:
        async with grpc.aio.insecure_channel(srv.address) as channel:
            calls = [_play(channel)(timeout=WAIT) for _ in range(5)]

            async def code(call) -> grpc.StatusCode:
                try:
                    await call.read()
                except grpc.aio.AioRpcError as err:
                    return err.code()
                raise AssertionError("a stream without a join got an answer")

            codes = await asyncio.wait_for(asyncio.gather(*map(code, calls)), WAIT)
    finally:
        await srv.stop(None)
    assert sorted(c.name for c in codes) == ["INVALID_ARGUMENT"] * 4 + ["RESOURCE_EXHAUSTED"]


async def test_the_seats_a_name_holds_are_counted_as_seats_are_taken_freed_and_tables_close():
    """Lobby.seats_held is kept as seats change (JoinTable no longer walks
    every open table): it always equals a count over the open tables."""
    lobby = Lobby(limits=Limits(max_seats_per_name=3))

    def counted(name: str) -> int:
        key = name.casefold()
        return sum(
            1
            for t in lobby.tables.values()
            if t.state is not TableState.FINISHED
            for s in t.seats
            if s.token and s.name.casefold() == key
        )

    def check() -> None:
        for name in ("sam", "ada", "bo"):
            assert lobby.seats_held(name) == counted(name), name

    tables = [lobby.create(f"t{i}", 3, RuleSet(target_score=0), away_grace=0) for i in range(3)]
    tokens = [lobby.join(t.table_id, name)[1].token for t in tables for name in ("Sam", "ada")]
    check()
    assert lobby.seats_held("SAM") == 3
    with pytest.raises(LobbyError, match="already holds 3 seats"):
        lobby.join(tables[0].table_id, "sam")
    tables[0].leave(tokens[0])  # a waiting seat given up is free again
    check()
    assert lobby.seats_held("sam") == 2
    playing = tables[1]
    playing.add_bot(make_bot("random"), "bot")
    playing.start()
    playing.leave(tokens[3])  # ada gives up in a game: a stand-in plays, she holds nothing
    check()
    await asyncio.wait_for(_finished(playing), WAIT)
    check()  # a finished table holds no seat
    assert lobby.seats_held("sam") == 1
    lobby.limits = Limits(max_seats_per_name=3, waiting_ttl=0)
    lobby.sweep()  # waiting_ttl 0: the waiting tables nobody streams are dropped
    check()
    assert (lobby.seats_held("sam"), lobby.seats_held("ada")) == (0, 0)
    assert not lobby._held and not lobby._held_at  # nothing kept for tables gone
