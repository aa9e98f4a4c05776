"""The pile: the top card, the colour in force, the draw pile."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.message import Message
from textual.widget import Widget

from unoplay.game.view import Phase, PlayerView

from ..render import card_lines, colour_text, seat_name


class PileView(Widget):
    """The top card, the colour in force, the draw pile, the direction and any
    pending penalty. Click it to draw."""

    DEFAULT_CSS = """
    PileView { height: 4; }
    """

    class Clicked(Message):
        """The draw pile was clicked."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.view: PlayerView | None = None
        self.seats: Sequence = ()
        self.me = -1

    def show(self, view: PlayerView | None, seats: Sequence, me: int = -1) -> None:
        self.view, self.seats, self.me = view, seats, me
        self.refresh()

    def render(self) -> Text:
        view = self.view
        if view is None:
            return Text("\n  Waiting for the game to start…", style="italic")
        me = view.seat
        card = card_lines(view.top_card)
        info = [Text(), Text(), Text(), Text()]
        info[0].append("Colour ")
        info[0].append_text(
            colour_text(view.colour, upper=True)
            if 0 <= view.colour <= 3
            else Text("(to be named)", style="italic")
        )
        info[1].append(f"Draw pile {view.draw_pile_size}", style="bold")
        info[1].append(f" · discards {view.discard_pile_size}", style="dim")
        info[2].append("↻ clockwise" if view.direction == 1 else "↺ counter-clockwise")
        if view.pending_penalty:
            who = seat_name(self.seats, view.current, me)
            info[3].append(
                f"+{view.pending_penalty} pending on {who}", style="bold #ffffff on #c62828"
            )
        elif view.phase >= Phase.ROUND_OVER:
            info[3].append(
                "Game over" if view.phase is Phase.GAME_OVER else "Round over", style="bold"
            )
        else:
            info[3].append(f"Round {view.round_number}", style="dim")
        lines = []
        for left, right in zip(card, info):
            lines.append(Text.assemble(left, "  ", right))
        return Text("\n").join(lines)

    def on_click(self) -> None:
        self.post_message(self.Clicked())
