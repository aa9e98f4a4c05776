"""The pile: the top card, the colour in force, the draw pile."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual import events
from textual.message import Message
from textual.widget import Widget

from unoplay.game.view import Phase, PlayerView

from ..render import NORMAL, CardSize, card_lines, colour_text, seat_name


class PileView(Widget):
    """The top card, the colour in force, the draw pile, the direction and any
    pending penalty, beside the top card drawn at ``card_size`` (the
    terminal's, see :meth:`~.board.TableBoard.lay_out`). Click it to draw."""

    DEFAULT_CSS = """
    PileView { height: 4; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    class Clicked(Message):
        """The draw pile was clicked."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.view: PlayerView | None = None
        self.seats: Sequence = ()
        self.me = -1
        self.card_size: CardSize = NORMAL
        self.drawn = (0, 0)  #: the cells drawn at the last render: (width, height)

    def show(self, view: PlayerView | None, seats: Sequence, me: int = -1) -> None:
        """Draw the pile of ``view`` (None: the game has not started) for the
        receiver at seat ``me`` ("you"; -1: a spectator, or a replay's every
        hand, whose view is a seat's but who is none of them)."""
        self.view, self.seats, self.me = view, seats, me
        self.refresh()

    def resize_cards(self, size: CardSize) -> None:
        """Draw the top card at ``size`` from now on."""
        if size != self.card_size:
            self.card_size = size
            self.refresh()

    def render(self) -> Text:
        view = self.view
        if view is None:
            return Text("\n  Waiting for the game to start…", style="italic")
        size = self.card_size
        card = card_lines(view.top_card, size=size, named=view.colour)
        info = [Text(), Text(), Text(), Text()]
        info[0].append("Colour " if size.height > 3 else "")
        info[0].append_text(
            colour_text(view.colour, upper=True)
            if 0 <= view.colour <= 3
            else Text("(to be named)", style="italic")
        )
        small = size.height <= 3  # three short lines beside the card
        info[1].append(f"{'pile' if small else 'Draw pile'} {view.draw_pile_size}", style="bold")
        if not small:
            info[1].append(f" · discards {view.discard_pile_size}", style="dim")
        clockwise = view.direction == 1
        if small:
            info[2].append(f"{'↻' if clockwise else '↺'} rnd {view.round_number}")
        else:
            info[2].append("↻ clockwise" if clockwise else "↺ counter-clockwise")
        if view.pending_penalty:
            who = seat_name(self.seats, view.current, self.me)
            info[3].append(
                f"+{view.pending_penalty} on {who}"
                if small
                else f"+{view.pending_penalty} pending on {who}",
                style="bold #ffffff on #c62828",
            )
        elif view.phase >= Phase.ROUND_OVER:
            info[3].append(
                "Game over" if view.phase is Phase.GAME_OVER else "Round over", style="bold"
            )
        else:
            info[3].append(f"Round {view.round_number}", style="dim")
        if small:
            pending = info[3].plain and not info[3].plain.startswith("Round")
            info = [info[0], info[3] if pending else info[1], info[2]]
        pad = (len(card) - len(info)) // 2  # the words in the middle of a large card
        info = [Text()] * pad + info + [Text()] * (len(card) - len(info) - pad)
        gap = " " if small else "  "
        lines = [Text.assemble(left, gap, right) for left, right in zip(card, info)]
        self.drawn = (max(line.cell_len for line in lines), len(lines))
        return Text("\n").join(lines)  # (a line too long ends in …: DEFAULT_CSS)

    def on_click(self, event: events.Click) -> None:
        """A click on the pile as drawn draws a card; elsewhere in the
        widget (the empty rest of the panel), nothing."""
        width, height = self.drawn
        if self.view is not None and 0 <= event.x < width and 0 <= event.y < height:
            self.post_message(self.Clicked())
