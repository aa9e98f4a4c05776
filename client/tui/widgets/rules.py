"""The rules line of a house-rules (or seeded) table."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.widget import Widget

from ..render import rules_line


class RulesLine(Widget):
    """The rules at a house-rules table on one line: the preset and the options
    that differ from official, as many as the width holds (see
    :func:`.render.rules_line`)."""

    DEFAULT_CSS = """
    RulesLine { height: 1; }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.preset = ""
        self.changes: list[str] = []  #: a few words for each option that differs

    def show(self, preset: str, changes: Sequence[str]) -> None:
        self.preset, self.changes = preset, list(changes)
        self.refresh()

    def render(self) -> Text:
        return rules_line(self.preset, self.changes, self.size.width)
