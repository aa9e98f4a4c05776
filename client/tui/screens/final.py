"""The final standings of a game, and the vote to play again (a rematch)."""

from __future__ import annotations

from dataclasses import replace

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from unoplay.game.messages import TableInfo, TableState

from ...sdk import ServerError
from ..model import FinalResult
from ..words import error_words
from .host import NewGame, Seating, ShowLobby, ShowTable, host


def rematch_text(table: TableInfo, me: int = -1) -> Text:
    """Who voted to play again at ``table`` and who is still to vote (bots
    agree at once)."""
    people = [s for s in table.seats if s.occupied and not s.bot]
    votes = set(table.rematch_votes)
    text = Text("Play again: ", style="bold")
    for i, seat in enumerate(people):
        if i:
            text.append(", ")
        name = "you" if seat.seat == me else seat.name
        if seat.seat in votes:
            text.append(f"{name} ✓", style="bold #66bb6a")
        else:
            text.append(f"{name} …", style="dim")
    if len(votes) < len(people):
        text.append(
            f"  ({len(votes)}/{len(people)}: the next game starts when everyone agrees)",
            style="dim",
        )
    return text


class FinalScreen(Screen[None]):
    """The final standings of a game. At a table of a server (``seating``) a
    seated player votes to play again (a rematch: the same table, seats and
    rules, a new secret seed); the screen shows the votes and opens the next
    game once everyone agreed. Spectators (``seating`` None) see the votes of
    the table ``table_id`` (its spectator view below follows it into the next
    game).

    Enter does the obvious thing: a seated player's is to play again (a
    vote, once), a spectator's to go back to the lobby."""

    BINDINGS = [
        # Enter: before the standings' table, which would take it (priority)
        Binding("enter", "rematch", "Play again", priority=True),
        Binding("a", "rematch", "Play again", show=False),
        Binding("n", "again", "New game"),
        Binding("l", "lobby", "Lobby"),
        Binding("enter", "leave", "Lobby", show=False, priority=True),  # a spectator's Enter
        Binding("escape", "back", "Back to the table"),
        Binding("q", "app.quit_now", "Quit"),
    ]

    def __init__(
        self,
        result: FinalResult,
        embedded: bool,
        target: str = "",
        seating: Seating | None = None,
        last_seq: int = 0,
        table_id: str = "",
    ) -> None:
        """``table_id``: the table a spectator watched (a seat's is its seating's)."""
        super().__init__()
        self.result = result
        self.names, self.scores, self.winners = result.names, result.scores, result.winners
        self.lowest_wins, self.embedded, self.target = result.lowest_wins, embedded, target
        self.seating, self.last_seq = seating, last_seq
        self.table_id = seating.table_id if seating is not None else table_id
        self.voted = False
        self.games = 0  #: the table's game count when this game ended (0: unknown yet)
        self.table: TableInfo | None = None
        self.standings_table: DataTable[str | Text] = DataTable(
            id="standings", cursor_type="none", zebra_stripes=True
        )
        self.votes = Static(id="rematch")

    def compose(self) -> ComposeResult:
        winners = " and ".join(self.names[w] for w in self.winners) or "nobody"
        title = Text(" GAME OVER ", style="bold #1a1a1a on #f4c20d")
        title.append(f"  {winners} won the game!", style="bold")
        with Vertical(id="final"):
            yield Static(title, classes="title")
            yield self.standings_table
            yield self.votes
            if self.seating is None:  # a spectator
                hint = "Enter or l back to the lobby · Esc look at the table · q quit"
            elif self.embedded:
                hint = "Enter play again · n new game · Esc look at the table · q quit"
            else:
                hint = "Enter play again · l back to the lobby · Esc look at the table · q quit"
            yield Static(hint, classes="hint")
        yield Footer()

    def on_mount(self) -> None:
        table = self.standings_table
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
            name = Text(self.names[i] + mark)  # literal: a name is never markup
            table.add_row(str(place), name, str(self.scores[i]), key=str(i))
        self.votes.display = False
        if self.table_id and self.target:
            self.watch_table()
            self.set_interval(1.5, self.watch_table)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """n (a new game) at an embedded table; l (the lobby) at a LAN one;
        Enter or a (play again) for a seated player who has not voted yet,
        Enter (the lobby) for a spectator."""
        if action == "again":
            return self.embedded
        if action == "lobby":
            return not self.embedded
        if action == "rematch":
            return self.seating is not None and not self.voted
        if action == "leave":
            return self.seating is None and not self.embedded
        return True

    def standings(self) -> dict[str, int]:
        """Player name -> score as shown (for tests)."""
        table = self.standings_table
        shown = {}
        for row in range(table.row_count):
            _, name, score = table.get_row_at(row)
            shown[str(name).removesuffix(" ★")] = int(str(score))
        return shown

    # ------------------------------------------------------------- rematch

    def action_rematch(self) -> None:
        """Enter or a: vote to play again."""
        if self.seating is not None and not self.voted:
            self.vote()

    @work(exclusive=True, group="vote")
    async def vote(self) -> None:
        """Send this seat's vote; the table restarts if it was the last one."""
        seating = self.seating
        assert seating is not None
        try:
            conn = host(self).connection(seating.target)
            table = await conn.rematch(seating.table_id, seating.token)
        except ServerError as err:
            self.notify(
                error_words(err, seating.target), title="Cannot play again", severity="error"
            )
            return
        self.voted = True
        self.refresh_bindings()
        self.show_table(table)

    @work(exclusive=True, group="watch")
    async def watch_table(self) -> None:
        """The table as the lobby lists it: the votes, or the next game begun
        (the votes reach nobody's stream: players and spectators look here)."""
        table = await host(self).table_now(self.target, self.table_id)
        if table is not None:
            self.show_table(table)

    def show_table(self, table: TableInfo) -> None:
        """Show the votes at ``table``; a seated player's next game opens once
        it has begun (a spectator's view below follows it by itself)."""
        seating = self.seating
        if not self.is_attached:
            return
        if not self.games:
            self.games = table.games
        self.table = table
        if table.state is TableState.PLAYING and table.games > self.games:
            if seating is not None:
                self.next_game()
            return
        if table.state is TableState.FINISHED and (table.rematch_votes or self.voted):
            name = seating.name if seating is not None else None
            me = next((s.seat for s in table.seats if s.name == name), -1)
            self.votes.update(rematch_text(table, me))
            self.votes.display = True

    def next_game(self) -> None:
        """Everyone agreed: sit at the same seat for the next game."""
        seating = self.seating
        assert seating is not None
        if not seating.embedded and self.table is not None:
            seat = next((s.seat for s in self.table.seats if s.name == seating.name), 0)
            store = host(self).store
            store.put(seating.target, seating.table_id, seating.name, seating.token, seat)
        self.post_message(ShowTable(replace(seating, last_seq=self.last_seq)))

    # ------------------------------------------------------------- leaving

    def action_again(self) -> None:
        """n: a new game with bots."""
        if self.embedded:
            self.post_message(NewGame())

    def action_lobby(self) -> None:
        """l: back to the lobby."""
        if not self.embedded and self.target:
            self.post_message(ShowLobby(self.target))

    def action_leave(self) -> None:
        """Enter (a spectator): back to the lobby."""
        self.action_lobby()

    def action_back(self) -> None:
        """Esc: look at the table again."""
        if self.is_attached and self.app.screen is self:
            self.dismiss(None)
