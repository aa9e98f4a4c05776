"""The game of UNO, as values and rules: no I/O, no grpc, asyncio, protobuf or clock.

``unoplay.game`` is what both sides share: cards, actions, events, refusal
reasons, the rule set, fair deals, the player's view, the engine and the pure
bot strategies. The server deals and judges with it; the players' programs
(the SDK, the TUI, bots) read views and choose actions with it. Nothing here
imports anything outside this package and the standard library.

The names most programs need are here; the modules hold the rest.
"""

if __name__ != "unoplay.game":  # it lives in server/game/, but is one package, imported once
    raise ImportError(
        f"import unoplay.game, not {__name__}: two copies would hold two sets of enums"
    )

from .actions import ACCEPT, CALL_UNO, CHALLENGE, DRAW, KEEP, NONE, Action, ActionKind
from .bots import Bot, GreedyBot, RandomBot
from .cards import DECK_SIZE, Colour, Rank, card_name
from .engine import GameState
from .errors import IllegalAction, Reason
from .events import EVERYONE, Event, EventKind
from .registry import BOT_KINDS, make_bot, parse_kind
from .research import Game
from .rules import OFFICIAL, PRESETS, RuleError, RuleSet
from .view import Outcome, Phase, PlayerView, Termination

__all__ = [
    "ACCEPT",
    "BOT_KINDS",
    "CALL_UNO",
    "CHALLENGE",
    "DECK_SIZE",
    "DRAW",
    "EVERYONE",
    "KEEP",
    "NONE",
    "OFFICIAL",
    "PRESETS",
    "Action",
    "ActionKind",
    "Bot",
    "Colour",
    "Event",
    "EventKind",
    "Game",
    "GameState",
    "GreedyBot",
    "IllegalAction",
    "Outcome",
    "Phase",
    "PlayerView",
    "RandomBot",
    "Rank",
    "Reason",
    "RuleError",
    "RuleSet",
    "Termination",
    "card_name",
    "make_bot",
    "parse_kind",
]
