"""A server that holds for a whole LAN night (issue 14): endless rounds end
at the table's cap of actions, endless games at theirs (server/RULES.md,
"Endless rounds")."""

from __future__ import annotations

import asyncio

import pytest

from unoplay.game import DRAW, KEEP, Action, GameState, RuleSet
from unoplay.game.events import EventKind
from unoplay.game.registry import make_bot
from unoplay.game.view import Termination
from unoplay.protocol import LobbyError
from unoplay.server import table as table_module
from unoplay.server.lobby import Lobby

WAIT = 60


class Hoarder:
    """A bot that never sheds a card: it draws, and keeps what it drew."""

    name = "hoarder"

    def decide(self, view, legal: tuple[Action, ...]) -> Action | None:
        for wanted in (DRAW, KEEP):
            if wanted in legal:
                return wanted
        return legal[0] if view.current == view.seat else None


def test_capping_a_round_ends_the_game_with_no_winner_and_the_round_void():
    game, _ = GameState.new(3, RuleSet(target_score=0), seed="cap")
    scores = game.scores
    events = game.cap_round(123)
    assert [(e.kind, e.count) for e in events] == [(EventKind.ROUND_CAPPED, 123)]
    assert game.is_game_over and game.game_winners == () and game.scores == scores
    assert game.outcome().termination is Termination.ROUND_CAPPED
    assert game.returns() == (0.0, 0.0, 0.0) and game.legal_actions(game.current) == []


async def test_a_round_of_hoarders_ends_at_the_tables_cap():
    finished = asyncio.Event()
    lobby = Lobby(on_finish=lambda table: finished.set())
    table = lobby.create("endless", 2, RuleSet(target_score=0), max_round_actions=150)
    table.add_bot(Hoarder(), "h1")
    table.add_bot(Hoarder(), "h2")
    table.start()
    await asyncio.wait_for(finished.wait(), WAIT)
    game = table.game
    assert game.outcome().termination is Termination.ROUND_CAPPED
    assert len(table.history) == 150 and not game.game_winners
    capped = [m for m in table.log_for(-1) if getattr(m, "kind", None) is EventKind.ROUND_CAPPED]
    assert len(capped) == 1 and capped[0].count == 150
    assert table.record().status == "capped" and table.record().winners == ()
    assert table.info().max_round_actions == 150


async def test_a_game_ends_at_its_cap_of_actions_whatever_its_rounds(monkeypatch):
    """A game of many rounds ends at MAX_GAME_ACTIONS (lowered here) like a
    capped round: no winner, the round void, the count in the event."""
    monkeypatch.setattr(table_module, "MAX_GAME_ACTIONS", 300)
    finished = asyncio.Event()
    lobby = Lobby(on_finish=lambda table: finished.set())
    table = lobby.create("long", 3, RuleSet(target_score=100_000), seed="long game")
    for i in range(3):
        table.add_bot(make_bot("greedy", seed=i), f"g{i}")
    table.start()
    await asyncio.wait_for(finished.wait(), WAIT)
    game = table.game
    assert game.round_number > 1  # rounds end normally until the cap (about 60 actions each)
    assert game.outcome().termination is Termination.ROUND_CAPPED and not game.game_winners
    assert len(table.history) == 300
    capped = [m for m in table.log_for(-1) if getattr(m, "kind", None) is EventKind.ROUND_CAPPED]
    assert [m.count for m in capped] == [300]
    assert table.record().status == "capped"


def test_the_cap_is_checked():
    lobby = Lobby()
    for bad in (0, 99, 100_001):
        with pytest.raises(LobbyError, match=r"max_round_actions must be 100\.\.100000"):
            lobby.create("t", 2, RuleSet(), max_round_actions=bad)
    assert lobby.create("t", 2, RuleSet()).max_round_actions == 2000
