"""The "What happened" log."""

from __future__ import annotations

from collections import deque

from rich.text import Text
from textual import events
from textual.widgets import RichLog


class GameLog(RichLog):
    """The "What happened" log. A RichLog lays each line out once, at the width
    it has then; this one keeps the lines it was given and lays them all out
    again when its width changes, so a resize never leaves them cut off or
    wrapped at the old width."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._texts: deque[Text] = deque(maxlen=self.max_lines)
        self._width = 0  # the content width the lines were laid out for

    def add(self, text: Text) -> None:
        """Write ``text`` as the last line."""
        self._texts.append(text)
        self.write(text)

    def show_lines(self, texts: list[Text]) -> None:
        """Replace every line with ``texts`` (a replay stepping back and forth)."""
        self._texts.clear()
        self.clear()
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
