"""The screens' door to the app they run in (``UnoApp``, which they never import).

What a screen asks of the app is :class:`Host` (the connection to a server,
the seats this machine holds), reached through :func:`host`. Where to go next
a screen says with a message that bubbles up to the app (Textual's idiom):
:class:`ShowConnect`, :class:`ShowLobby`, :class:`ShowTable`,
:class:`ShowWatch`, :class:`ShowFinal` and :class:`NewGame`; quitting is the
app's action ``quit_now``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, cast

from textual.message import Message
from textual.screen import Screen

from unoplay.game.messages import TableInfo

from ...sdk import Connection
from ..model import FinalResult
from ..seats import SeatStore


@dataclass
class Seating:
    """Where a GameScreen plays: a server, a table and the seat's token."""

    target: str
    table_id: str
    token: str
    name: str
    embedded: bool = False
    last_seq: int = 0  #: resume the table's stream after this message (a rematch)
    #: an embedded game's table made on another server (uno play --server
    #: --new-table): it goes on there when this app quits
    remote: bool = False


class Host(Protocol):
    """What the screens ask of the app they run in."""

    #: The seat tokens this machine keeps (server, table, name -> token).
    store: SeatStore

    def connection(self, target: str) -> Connection:
        """The connection to ``target`` (``host:port``), made on first use."""
        ...

    async def table_now(self, target: str, table_id: str) -> TableInfo | None:
        """The table as the lobby at ``target`` lists it now; None when it is
        gone or the server cannot be reached."""
        ...

    async def drop_connection(self, target: str) -> None:
        """Close the connection to ``target`` (made again on next use)."""
        ...


def host(screen: Screen[Any]) -> Host:
    """The app ``screen`` runs in, as the screens see it."""
    return cast(Host, screen.app)


@dataclass
class ShowConnect(Message):
    """Open the connect screen, ``address`` typed in already."""

    address: str


@dataclass
class ShowLobby(Message):
    """Open the lobby of the server ``target``."""

    target: str


@dataclass
class ShowTable(Message):
    """Sit at a table: open the game screen of ``seating``."""

    seating: Seating


@dataclass
class ShowWatch(Message):
    """Watch ``table_id`` on ``target`` as a spectator (``last_seq``: go on
    after that message of the table's stream, into its next game)."""

    target: str
    table_id: str
    last_seq: int = 0


@dataclass
class ShowFinal(Message):
    """Push the final standings over the table screen; with ``seating`` (a
    player's) they offer to play again, with ``table_id`` (a spectator's) they
    show the votes to."""

    result: FinalResult
    embedded: bool
    target: str = ""
    seating: Seating | None = None
    last_seq: int = 0
    table_id: str = ""


class NewGame(Message):
    """A new local game with bots (the embedded server's)."""


def show_table_id(screen: Any, target: str, table_id: str) -> None:
    """i: a notice of ``table_id`` at ``target``, as ``uno bot --table`` wants it."""
    screen.notify(
        f"uno bot --server {target} --table {table_id}",
        title=f"Table id: {table_id}",
        timeout=15,
    )
