"""The table's widgets: the hand, the players, the pile, the log, the rules
line, and the board that composes them for every table screen."""

from .board import TableBoard
from .hand import HandView
from .log import GameLog
from .pile import PileView
from .players import PlayersPanel
from .rules import RulesLine

__all__ = ["GameLog", "HandView", "PileView", "PlayersPanel", "RulesLine", "TableBoard"]
