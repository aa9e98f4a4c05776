"""The final standings of a game."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from ..model import FinalResult

if TYPE_CHECKING:
    from ..app import UnoApp


class FinalScreen(Screen[None]):
    """The final standings of a game."""

    app: UnoApp

    BINDINGS = [
        Binding("n", "again", "New game"),
        Binding("l", "lobby", "Lobby"),
        Binding("escape", "back", "Back to the table"),
        Binding("q", "app.quit_now", "Quit"),
    ]

    def __init__(self, result: FinalResult, embedded: bool, target: str = "") -> None:
        super().__init__()
        self.result = result
        self.names, self.scores, self.winners = result.names, result.scores, result.winners
        self.lowest_wins, self.embedded, self.target = result.lowest_wins, embedded, target

    def compose(self) -> ComposeResult:
        winners = " and ".join(self.names[w] for w in self.winners) or "nobody"
        title = Text(" GAME OVER ", style="bold #1a1a1a on #f4c20d")
        title.append(f"  {winners} won the game!", style="bold")
        with Vertical(id="final"):
            yield Static(title, classes="title")
            yield DataTable(id="standings", cursor_type="none", zebra_stripes=True)
            hint = (
                "n new game · Esc look at the table · q quit"
                if self.embedded
                else "l back to the lobby · Esc look at the table · q quit"
            )
            yield Static(hint, classes="hint")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("Place", "Player", "Score")
        order = sorted(
            range(len(self.scores)),
            key=lambda i: self.scores[i] if self.lowest_wins else -self.scores[i],
        )
        place = 0
        last = None
        for rank, i in enumerate(order, 1):
            if self.scores[i] != last:
                place, last = rank, self.scores[i]
            mark = " ★" if i in self.winners else ""
            table.add_row(str(place), self.names[i] + mark, str(self.scores[i]), key=str(i))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """n (a new game) at an embedded table; l (the lobby) at a LAN one."""
        if action == "again":
            return self.embedded
        if action == "lobby":
            return not self.embedded
        return True

    def standings(self) -> dict[str, int]:
        """Player name -> score as shown (for tests)."""
        table = self.query_one(DataTable)
        shown = {}
        for row in range(table.row_count):
            _, name, score = table.get_row_at(row)
            shown[str(name).removesuffix(" ★")] = int(str(score))
        return shown

    def action_again(self) -> None:
        """n: a new game with bots."""
        if self.embedded:
            self.app.start_embedded()

    def action_lobby(self) -> None:
        """l: back to the lobby."""
        if not self.embedded and self.target:
            self.app.show_lobby(self.target)

    def action_back(self) -> None:
        """Esc: look at the table again."""
        if self.is_attached and self.app.screen is self:
            self.dismiss(None)
