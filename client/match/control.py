"""A running match, seen from outside: :class:`MatchControl` stops it (the
command line's Ctrl-C), :class:`Progress` is what it says after each game."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from .result import GameResult


@dataclass
class MatchControl:
    """Stops a match from outside: :meth:`stop` starts no more games (those
    in flight finish and count), :meth:`abandon` also gives up the games in
    flight (not stored: ``--resume`` plays them)."""

    stopping: str = ""  #: why no more games start ("" while they do)
    abandoned: bool = False
    _abandon: asyncio.Event = field(default_factory=asyncio.Event)

    def stop(self, reason: str = "interrupted") -> None:
        """Start no more games (``reason`` goes in the report); the first reason stays."""
        if not self.stopping:
            self.stopping = reason

    def abandon(self, reason: str = "interrupted") -> None:
        """Start no more games and give up those in flight."""
        self.stop(reason)
        self.abandoned = True
        self._abandon.set()

    async def abandoned_wait(self) -> None:
        """Wait until :meth:`abandon` is called."""
        await self._abandon.wait()


@dataclass(frozen=True)
class Progress:
    """The match so far, after each game."""

    done: int  #: games recorded (resumed ones included)
    total: int
    running: int
    counts: dict[str, int]
    sprt: str
    result: GameResult | None
