"""RULES.md, "Server bots' timing": a searching bot's move is released when
its whole time budget has passed since its search began, however soon it
answered, so the time it takes tells nothing of its hand."""

from __future__ import annotations

import time

from helpers import until

from unoplay.game import RuleSet
from unoplay.game.messages import TableState
from unoplay.server.lobby import Lobby

BUDGET_MS = 20.0


class QuickSearcher:
    """A bot with a time budget that answers at once (as ismcts does with one
    distinct move); it notes when each of its searches began."""

    budgeted = True
    name = "quick"

    def __init__(self, time_ms: float | None) -> None:
        self.time_ms = time_ms
        self.began: float | None = None  # time.monotonic() of the last search
        self.choices: list[int] = []  # how many legal actions each search had

    def decide(self, view, legal):
        self.began = time.monotonic()  # the event loop's clock (asyncio's default)
        self.choices.append(len(legal))
        return legal[0]


async def _play(time_ms: float | None) -> tuple[list[float], list[int], int]:
    """A one-round game of two QuickSearchers; for every move a bot played,
    how long after its search began it was applied (seconds), how many
    legal actions each search had, and how many moves waited for a timer."""
    lobby = Lobby()
    table = lobby.create("timing", 2, RuleSet(target_score=0), seed="bot-timing")
    bots = [QuickSearcher(time_ms), QuickSearcher(time_ms)]
    for i, bot in enumerate(bots):
        table.add_bot(bot, f"b{i}")
    after: list[float] = []
    act = table.act

    def spy(seat, action, action_id=0, source="player"):
        if source == "bot":
            after.append(time.monotonic() - bots[seat].began)
        return act(seat, action, action_id, source)

    table.act = spy
    held = 0
    later = table.later

    def spy_later(delay, callback, *args):
        nonlocal held
        held += callback == table.bots._decided
        return later(delay, callback, *args)

    table.later = spy_later
    table.start()
    await until(table, lambda: table.state is TableState.FINISHED, "the bots' game")
    lobby.close()
    return after, [n for bot in bots for n in bot.choices], held


async def test_a_searching_bot_answers_after_its_whole_budget_whatever_it_holds():
    after, choices, _ = await _play(BUDGET_MS)
    assert 1 in choices and max(choices) > 1  # forced moves and real choices both seen
    assert len(after) > 10
    # asyncio never runs a timer early (its clock: time.monotonic)
    assert min(after) >= BUDGET_MS / 1000, min(after)


async def test_a_bot_without_a_time_budget_is_not_held_back():
    """A bot object with no ``time_ms`` (an iteration budget only, given
    through the Python API) is played as soon as it answers: its own budget
    is what it says."""
    after, _, held = await _play(None)
    assert len(after) > 10 and held == 0
