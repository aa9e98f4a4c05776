"""Seats played in the server's own process (server/localseat.py), as
``uno match`` plays its Python entrants: one task plays the table's bots
without the wire; a bot's error names its seat; the spectators' log is kept
only from the first spectator on, who starts from an update of then and
sees every message after it."""

from __future__ import annotations

import asyncio

import pytest

from unoplay.game.deals import DealReveal
from unoplay.game.events import EVERYONE, Event
from unoplay.game.messages import TableState, Update
from unoplay.game.registry import make_bot
from unoplay.game.rules import RuleSet
from unoplay.server.localseat import BotRaised, LocalSeats

WAIT = 60  # seconds: the bound of every wait


class Gate:
    """Greedy, but it lets its first decision pass (answers None) until it is
    opened: the game waits on it there, as on a bot that thinks."""

    observes = False

    def __init__(self) -> None:
        self.bot = make_bot("greedy", seed=1)
        self.open = False
        self.waiting = asyncio.Event()

    def decide(self, view, legal):
        if not self.open and view.current == view.seat:
            self.waiting.set()
            return None
        return self.bot.decide(view, legal)


class Raises:
    """A bot of one's own that fails on its first decision."""

    observes = False

    def decide(self, view, legal):
        raise ZeroDivisionError("my bug")


def _table(server, seats: int = 2, turn_seconds: int = 0):
    rules = RuleSet(target_score=0)
    table = server.lobby.create("local", seats, rules, turn_seconds, seed="11")
    joined = [server.lobby.join(table.table_id, f"bot{i}")[1] for i in range(seats)]
    return table, [seat.index for seat in joined]


async def test_a_spectator_of_a_table_played_here_starts_from_its_arrival(server, conn):
    table, (first, second) = _table(server, turn_seconds=60)  # (a turn may wait on the gate)
    gate = Gate()
    local = LocalSeats(table)
    local.add(first, gate)
    local.add(second, make_bot("random", seed=2))
    table.start()
    await asyncio.wait_for(gate.waiting.wait(), WAIT)  # mid-game, nobody watching
    log = table.log_for(-1)
    assert list(log) == [] and log.bytes == 0  # none kept (none encoded)
    counted = len(log)

    watch = conn.spectate(table.table_id)
    received = []
    arrived = asyncio.Event()

    async def read():
        async for message in watch:
            received.append(message)
            arrived.set()

    reader = asyncio.create_task(read())
    await asyncio.wait_for(arrived.wait(), WAIT)  # the stream is open: its first message
    # The gated seat's move is made for it; from then on its bot plays.
    gate.open = True
    game = table.game
    assert game.current == first
    assert table.act(first, gate.bot.decide(game.view(first), game.legal_actions(first)))
    await asyncio.wait_for(reader, WAIT)
    await asyncio.wait_for(local.task, WAIT)

    assert table.state is TableState.FINISHED and watch.state.game_over
    seqs = [m.seq for m in received]
    assert seqs == list(range(counted + 1, len(log) + 1))  # from its arrival, no gap
    arrival = received[0].message
    assert isinstance(arrival, Update) and arrival.view.seat == -1  # the update of then
    assert not arrival.view.hand and not arrival.legal
    for m in received:
        if isinstance(m.message, Event):
            assert m.message.audience == EVERYONE
        if isinstance(m.message, Update):
            assert not m.message.view.hand and not m.message.legal
    assert isinstance(received[-1].message, DealReveal)
    assert watch.state.view.scores == table.game.scores


async def test_a_table_played_here_that_nobody_watches_keeps_no_spectators_log(server):
    table, (first, second) = _table(server, 2)
    local = LocalSeats(table)
    local.add(first, make_bot("greedy", seed=1))
    local.add(second, make_bot("random", seed=2))
    table.start()
    await asyncio.wait_for(local.task, WAIT)
    log = table.log_for(-1)
    assert table.state is TableState.FINISHED
    assert len(table.history) > 10 and list(log) == [] and log.bytes == 0  # nothing encoded
    assert all(not s.connected for s in table.seats)  # the seats were let go at the end


@pytest.mark.parametrize("seats", [2, 4])
async def test_a_bot_that_raises_ends_the_play_naming_its_seat(server, seats):
    table, indices = _table(server, seats)
    local = LocalSeats(table)
    failing = indices[-1]
    for i in indices:
        local.add(i, Raises() if i == failing else make_bot("greedy", seed=i))
    table.start()
    with pytest.raises(BotRaised) as err:
        await asyncio.wait_for(local.task, WAIT)
    assert err.value.seat == failing and isinstance(err.value.__cause__, ZeroDivisionError)
    assert table.state is TableState.PLAYING  # the game itself is left as it was
    assert not table.seats[failing].connected  # its seat let go: the stand-in plays on


class Junk:
    """A bot of one's own that answers what is not an action: a string, or
    the wire id of no action at all."""

    observes = False

    def __init__(self, answer) -> None:
        self.answer = answer

    def decide(self, view, legal):
        return self.answer


async def test_an_answer_that_is_not_an_action_is_the_bots_fault(server):
    table, (first, second) = _table(server)
    local = LocalSeats(table)
    local.add(first, make_bot("greedy", seed=1))
    local.add(second, Junk("draw"))
    table.start()
    with pytest.raises(BotRaised) as err:
        await asyncio.wait_for(local.task, WAIT)
    assert err.value.seat == second and isinstance(err.value.__cause__, AttributeError)


async def test_an_unknown_action_id_is_refused_as_over_the_wire(server):
    table, (first, second) = _table(server)
    local = LocalSeats(table)
    local.add(first, Junk(999_999))  # no action has this id: refused, asked again
    local.add(second, make_bot("random", seed=2))
    table.start()
    seat = table.seats[first]
    while seat.refusals < 5:  # the bot is asked again after every refusal
        await asyncio.wait_for(table.wait_for_change(), WAIT)
    assert seat.last_refusal == "unknown_action_id: no action has id 999999"
    await local.stop()


async def test_a_spectator_who_comes_after_the_end_sees_the_result(server, conn):
    table, (first, second) = _table(server)
    local = LocalSeats(table)
    local.add(first, make_bot("greedy", seed=1))
    local.add(second, make_bot("random", seed=2))
    table.start()
    await asyncio.wait_for(local.task, WAIT)
    watch = conn.spectate(table.table_id)
    received = [m async for m in watch]
    final, reveal = (m.message for m in received)
    assert isinstance(final, Update) and final.view.scores == table.game.scores
    assert isinstance(reveal, DealReveal) and reveal == table.deal
    assert watch.state.game_over


async def test_no_answer_on_its_own_turn_with_no_timer_is_the_bots_fault(server):
    table, (first, second) = _table(server)  # no turn timer: nothing else moves the game
    local = LocalSeats(table)
    local.add(first, Junk(None))
    local.add(second, make_bot("random", seed=2))
    table.start()
    with pytest.raises(BotRaised) as err:
        await asyncio.wait_for(local.task, WAIT)
    assert err.value.seat == first and "own turn" in str(err.value.__cause__)
