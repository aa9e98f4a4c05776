"""The hand: your cards in a row of coloured boxes."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import events
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from ..model import HandState
from ..render import NORMAL, CardSize, card_lines


class HandView(Widget):
    """Your cards in one row of coloured boxes.

    The number keys' labels are in each card's top edge, "play" in the bottom
    edge of a card the server lists as playable ("jump!" when that play is out
    of turn: a jump-in), the selected card has a heavy edge and a ▲ under it,
    a card marked to be played with others a ✓. Cards that do not fit are
    scrolled, with ◀ n / n ▶ counts of the hidden ones. Click a card to select
    it, click it again to play it. ``card_size`` follows the terminal
    (:meth:`~.board.TableBoard.lay_out`); the widget is one row taller than a
    card, for the ▲ and ✓ under it, unless ``under`` is off (a short terminal:
    the heavy edge and the ✓ in the top edge say as much).
    """

    DEFAULT_CSS = """
    HandView { height: 5; }
    """

    class Clicked(Message):
        """A card was clicked: ``index`` into the hand."""

        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    cards: reactive[tuple[int, ...]] = reactive((), layout=False)
    playable: reactive[frozenset[int]] = reactive(frozenset())
    selected: reactive[int] = reactive(0)
    my_turn: reactive[bool] = reactive(False)
    jump: reactive[bool] = reactive(False)  #: the plays listed are jump-ins (out of turn)
    partners: reactive[frozenset[int]] = reactive(frozenset())  #: playable only with others
    marked: reactive[frozenset[int]] = reactive(frozenset())  #: marked to play together

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.card_size: CardSize = NORMAL
        self.under = True  #: a row under the cards for the ▲ of the selected one
        self._start = 0  # first card shown
        self._layout: tuple[int, int, int] = (0, 0, 0)  # left pad, first, count

    def show(self, hand: HandState) -> None:
        """Draw ``hand``."""
        self.cards = hand.cards
        self.playable = hand.playable
        self.partners = hand.partners
        self.jump = hand.jump
        self.marked = hand.marked
        self.my_turn = hand.my_turn
        self.selected = hand.selected
        self.refresh()

    def resize_cards(self, size: CardSize, under: bool = True) -> None:
        """Draw the cards at ``size`` from now on, with a row under them or not."""
        if (size, under) != (self.card_size, self.under):
            self.card_size, self.under = size, under
            self.styles.height = size.height + under
            self.refresh()

    def _window(self, width: int) -> tuple[int, int, int]:
        """(left pad, first card, cards shown) for ``width`` cells."""
        n = len(self.cards)
        card_w = self.card_size.width
        fit = max(1, width // card_w)
        if n <= fit:
            self._start = 0
            return 0, 0, n
        fit = max(1, (width - 8) // card_w)  # room for the ◀ n / n ▶ marks
        sel = min(max(self.selected, 0), n - 1)
        start = min(self._start, n - fit)
        if sel < start:
            start = sel
        elif sel >= start + fit:
            start = sel - fit + 1
        self._start = start
        return 4, start, fit

    def render(self) -> Text:
        width = self.size.width or 80
        pad, first, count = self._layout = self._window(width)
        n = len(self.cards)
        if not n:
            return Text("\n  (no cards)", style="dim")
        size = self.card_size
        rows = [Text() for _ in range(size.height + 1)]  # the last: under the cards
        if pad:
            left = f"◀{first}" if first else ""
            for i, row in enumerate(rows):
                row.append((left if i == 1 else "").ljust(pad), style="bold")
        for i in range(first, first + count):
            card = self.cards[i]
            playable = card in self.playable
            label = str(i + 1) if i < 9 else ("0" if i == 9 else "")
            marked = card in self.marked
            dim = self.my_turn and not playable and card not in self.partners
            lines = card_lines(
                card,
                label=label,
                selected=i == self.selected,
                playable=playable,
                dim=dim,
                jump=self.jump,
                marked=marked,
                size=size,
            )
            for row, line in zip(rows, lines):
                row.append_text(line)
            under = ("▲" if i == self.selected else "") + ("✓" if marked else "")
            rows[size.height].append(under.center(size.width), style="bold")
        hidden = n - first - count
        if pad and hidden:
            rows[1].append(f" {hidden}▶", style="bold")
        return Text("\n").join(rows if self.under else rows[:-1])

    def on_click(self, event: events.Click) -> None:
        pad, first, count = self._layout
        at = event.get_content_offset(self)
        if at is None or at.x < pad or at.y >= self.card_size.height:
            return
        index = first + (at.x - pad) // self.card_size.width
        if first <= index < first + count:
            self.post_message(self.Clicked(index))
