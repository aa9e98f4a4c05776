"""The record a table keeps of the game in progress (server/history.py): it
gives back exactly what was applied, in a few bytes an action."""

from __future__ import annotations

import asyncio

from unoplay.game import RuleSet
from unoplay.game.actions import Action, ActionKind, play
from unoplay.game.deals import RECEIVED_KINDS
from unoplay.game.events import EventKind
from unoplay.game.registry import make_bot
from unoplay.server.history import History
from unoplay.server.lobby import Lobby

WAIT = 60


def test_a_history_gives_back_every_action_source_time_and_card():
    history = History()
    odd = Action(ActionKind.PLAY, card=3, target=40)  # no wire id gives it back
    applied = [
        (0, play(3), "player", 10),
        (1, odd, "timer", 20),
        (2, play(99, colour=2, uno=True), "bot", 5_000_000_000),  # a game of two months
        (1, Action(ActionKind.DRAW), "stand_in", 30),
    ]
    for seat, action, source, ms in applied:
        history.append(seat, action, source, ms)
    history.receive(int(EventKind.DREW), 1, (7,))
    history.receive(int(EventKind.DREW_CARDS), 2, (8, 9, 10, 11))
    assert list(history) == [(seat, action) for seat, action, _, _ in applied]
    assert history.sources == ["player", "timer", "bot", "stand_in"]
    assert history.times_ms == [10, 20, 5_000_000_000, 30]
    assert history.received == [
        (4, int(EventKind.DREW), 1, (7,)),
        (4, int(EventKind.DREW_CARDS), 2, (8, 9, 10, 11)),
    ]
    assert len(history) == 4 and not History()


async def test_a_tables_record_is_the_game_as_applied_in_a_few_bytes_an_action():
    """Four bots to 500 points: the record replays the very game (the same
    actions and cards the events showed), at under 32 bytes an action."""
    finished = asyncio.Event()
    lobby = Lobby(on_finish=lambda table: finished.set())
    table = lobby.create("record", 4, RuleSet(target_score=500), seed="a record")
    applied: list[tuple[int, Action]] = []
    received: list[tuple[int, int, int, tuple[int, ...]]] = []
    act, publish = table.act, table._publish

    def spy_act(seat, action, action_id=0, source="player"):  # type: ignore[no-untyped-def]
        before = len(table.history)
        taken = act(seat, action, action_id, source)
        if len(table.history) > before:
            applied.append((seat, action))
        return taken

    def spy_publish(events, actor=-1):  # type: ignore[no-untyped-def]
        step = len(table.history)
        received.extend(
            (step, int(e.kind), e.player, e.cards) for e in events if e.kind in RECEIVED_KINDS
        )
        publish(events, actor)

    table.act, table._publish = spy_act, spy_publish  # type: ignore[method-assign]
    for i in range(4):
        table.add_bot(make_bot("greedy", seed=i), f"g{i}")
    table.start()
    await asyncio.wait_for(finished.wait(), WAIT)
    history = table.history
    assert len(history) > 300 and list(history) == applied
    assert history.received == received and len(received) > 40
    assert set(history.sources) == {"bot"} and history.times_ms == sorted(history.times_ms)
    record = table.record()
    assert record.actions == applied and record.received == received
    assert history.nbytes() < 32 * len(history)
