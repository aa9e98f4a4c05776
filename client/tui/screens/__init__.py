"""The TUI's screens: connect, lobby, the create-table form, the game (a seat),
watching (a spectator), the final standings, and the modal prompts."""

from .connect import ConnectScreen, StartingScreen
from .create import CreateTableScreen, NewTable
from .final import FinalScreen
from .game import GameScreen
from .host import Seating
from .lobby import LobbyScreen
from .watch import WatchHelpScreen, WatchScreen

__all__ = [
    "ConnectScreen",
    "CreateTableScreen",
    "FinalScreen",
    "GameScreen",
    "LobbyScreen",
    "NewTable",
    "Seating",
    "StartingScreen",
    "WatchHelpScreen",
    "WatchScreen",
]
