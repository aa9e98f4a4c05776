"""Which streams a table's change wakes, and when (server/table.py's module
docstring; proto/README.md, section 2): at once the seat that acted and every
seat that may act, the others and the spectators at the flush
(OBSERVER_DELAY later, OBSERVER_DELAY_BUSY while saturated), each
then with every message since."""

from __future__ import annotations

import asyncio

from unoplay.game.actions import Action, ActionKind
from unoplay.game.registry import make_bot
from unoplay.game.rules import RuleSet
from unoplay.server import fanout
from unoplay.server.lobby import Lobby
from unoplay.server.table import Table

WAIT = 30  # seconds: upper bound for the flush to come


def _four_seats(name: str, rules: RuleSet) -> Table:
    """A seeded table of four people, its game started (no streams)."""
    table = Lobby().create(name, 4, rules, seed=name)
    for seat in "abcd":
        table.join(seat)
    table.start()
    return table


async def _waiting(table) -> dict[int, asyncio.Task]:
    """A task waiting on each seat's wake and the spectators' (-1), all registered."""
    waits = {i: asyncio.create_task(table.wait_for_change(i)) for i in (-1, 0, 1, 2, 3)}
    await asyncio.sleep(0)  # one loop step: each task is now waiting on its event
    assert not any(w.done() for w in waits.values())
    return waits


async def test_a_change_wakes_the_actor_and_the_seats_that_may_act_at_once_the_rest_soon():
    table = _four_seats("wakes", RuleSet(target_score=0))
    game = table.game
    bot = make_bot("greedy", seed=1)
    checked = deferred = 0
    while checked < 12 and not game.is_round_over:  # a dozen actions, each checked
        actor = game.current
        lengths = [len(table.log_for(i)) for i in (-1, 0, 1, 2, 3)]
        waits = await _waiting(table)
        assert table.act(actor, bot.decide(game.view(actor), game.legal_actions(actor)))
        await asyncio.sleep(0)  # the woken tasks finish
        # every log has the change already; only the streams' wakes differ
        assert all(len(table.log_for(i)) > n for i, n in zip((-1, 0, 1, 2, 3), lengths))
        woken = {i for i, w in waits.items() if w.done()}
        if game.is_round_over:
            assert woken == {-1, 0, 1, 2, 3}
            break
        movers = {i for i in range(4) if game.legal_actions(i)} | {actor}
        assert woken == movers and game.current in movers and -1 not in woken
        await asyncio.wait_for(asyncio.gather(*waits.values()), WAIT)  # the flush wakes the rest
        checked += 1
        deferred += 4 - len(movers)
    assert checked == 12 and deferred >= 12  # the seeded round is longer than that
    table.close()


async def test_a_refusal_wakes_only_the_refused_seat():
    table = _four_seats("refusal", RuleSet(target_score=0))
    seat = (table.game.current + 1) % 4  # not its turn
    waits = await _waiting(table)
    assert not table.act(seat, Action(ActionKind.PLAY, card=500), action_id=9)
    await asyncio.sleep(0)
    assert {i for i, w in waits.items() if w.done()} == {seat}
    for w in waits.values():
        w.cancel()
    table.close()


async def test_every_seat_is_woken_at_once_when_a_round_ends():
    table = _four_seats("round-end", RuleSet(target_score=500))
    game = table.game
    bots = [make_bot("greedy", seed=s) for s in range(4)]
    while True:
        actor = game.current
        action = bots[actor].decide(game.view(actor), game.legal_actions(actor))
        probe = game.clone()
        probe.apply(actor, action)
        if probe.is_round_over:
            break  # the next action ends the round
        assert table.act(actor, action)
    waits = await _waiting(table)
    assert table.act(actor, action)
    await asyncio.sleep(0)
    assert all(w.done() for w in waits.values())
    table.close()


def test_observers_wait_longer_while_the_server_is_saturated_and_never_past_the_bound():
    """The observers' delay (server/fanout.py, _Pace): OBSERVER_DELAY under
    fewer than BUSY_CHANGES changes in 50 ms, OBSERVER_DELAY_BUSY (the
    guide's bound) after a window with that many, back when they stop."""
    pace = fanout._Pace
    delay, busy = fanout.OBSERVER_DELAY, fanout.OBSERVER_DELAY_BUSY
    saved = pace.delay, pace.until, pace.changes
    try:
        pace.delay, pace.until, pace.changes = delay, 0.0, 0
        t = 1000.0
        for _ in range(fanout.BUSY_CHANGES - 1):  # one change short of busy
            pace.change(t)
            assert pace.delay == delay
        t += delay
        pace.change(t)
        assert pace.delay == delay
        for _ in range(fanout.BUSY_CHANGES):  # busy: that many in one window
            pace.change(t + 0.01)
        t += delay
        pace.change(t)
        assert pace.delay == busy
        for _ in range(fanout.BUSY_CHANGES):
            pace.change(t + 0.01)
            assert pace.delay == busy
        t += delay
        pace.change(t)
        assert pace.delay == busy  # still busy
        t += delay
        pace.change(t)  # the window before had one change
        assert pace.delay == delay
        for _ in range(fanout.BUSY_CHANGES):
            pace.change(t + 0.01)
        t += 10 * delay  # quiet since: a busy window long past does not count
        pace.change(t)
        assert pace.delay == delay
        assert delay < busy <= 0.2  # proto/README.md, section 2
    finally:
        pace.delay, pace.until, pace.changes = saved
