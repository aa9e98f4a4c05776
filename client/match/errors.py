"""The error a match ends with when it cannot go on."""

from __future__ import annotations

from typing import Any


class MatchError(RuntimeError):
    """The match cannot go on (an external bot failed and ``on_crash`` is
    "stop", workers cannot start, nothing to resume); the message says why.
    ``report`` is the report of the games played so far, when there is one."""

    def __init__(self, message: str, report: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.report = report
