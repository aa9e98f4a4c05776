"""The "What happened" log."""

from __future__ import annotations

from collections import deque

from rich.text import Text
from textual import events
from textual.widget import Widget
from textual.widgets import RichLog

from ..render import YOUR_TURN


class LatestLines(Widget):
    """The log's latest lines, one row each (cut at the width), as many as
    fit: the log's stand-in where there is no room for it (a short terminal).
    "Your turn" is left out: the status line says it, and the one row there
    may be is for what the others did."""

    DEFAULT_CSS = """
    LatestLines { height: 1fr; padding: 0 1; }
    """
    #: The most lines ever shown (the log keeps the rest).
    KEPT = 8

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._lines: deque[Text] = deque(maxlen=self.KEPT)

    def add(self, text: Text) -> None:
        """``text`` is the log's new latest line."""
        if text.plain == YOUR_TURN:
            return
        self._lines.append(text)
        self.refresh()

    def clear(self) -> None:
        """The log was emptied."""
        self._lines.clear()
        self.refresh()

    def render(self) -> Text:
        width, rows = self.size.width, max(1, self.size.height)
        shown = []
        for line in list(self._lines)[-rows:]:
            line = line.copy()
            line.truncate(width, overflow="ellipsis")
            shown.append(line)
        return Text("\n").join(shown)


class GameLog(RichLog):
    """The "What happened" log. A RichLog lays each line out once, at the width
    it has then; this one keeps the lines it was given and lays them all out
    again when its width changes, so a resize never leaves them cut off or
    wrapped at the old width. ``latest`` (optional) is given each new line
    too (its stand-in where it does not fit)."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._texts: deque[Text] = deque(maxlen=self.max_lines)
        self._width = 0  # the content width the lines were laid out for
        self.latest: LatestLines | None = None

    def add(self, text: Text) -> None:
        """Write ``text`` as the last line."""
        self._texts.append(text)
        self.write(text)
        if self.latest is not None:
            self.latest.add(text)

    def show_lines(self, texts: list[Text]) -> None:
        """Replace every line with ``texts`` (a replay stepping back and forth)."""
        self._texts.clear()
        self.clear()
        if self.latest is not None:
            self.latest.clear()
        for text in texts:
            self.add(text)

    def on_mount(self) -> None:
        self.anchor()  # kept at the newest line, unless the player scrolls up

    def on_resize(self, event: events.Resize) -> None:
        width = self.scrollable_content_region.width
        if width == self._width:
            return
        known, self._width = self._size_known, width
        if known:  # (the first time, RichLog writes the lines that waited for a size)
            self.clear()
            for text in self._texts:
                self.write(text, scroll_end=False)
