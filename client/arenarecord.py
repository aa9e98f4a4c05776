"""What ``uno bot --arena`` says of its games: per game its seat, its place,
its points and its new rating; and, when it stops, a summary of its stay.

The arena's messages (arena_service.proto) give the seat and the game's
number (``ArenaSeat``) and the standing on entry (``ArenaWelcome``); the
game's own final update gives every seat's points and the winners; the
rating after a game is the name's row of the standings, asked once the game
is over (the server rates a game as it ends, before its last update leaves).
"""

from __future__ import annotations

from dataclasses import dataclass

from unoplay.game.view import PlayerView

from .sdk import ArenaSeat, ArenaStanding


def place(view: PlayerView, seat: int) -> int:
    """``seat``'s place in the finished game of ``view``: 1 + the seats ahead
    of it, a winner ahead of every other seat, then more points ahead of
    fewer (seats level share a place, as the arena rates them)."""

    def rank(s: int) -> tuple[bool, int]:
        return s in view.game_winners, view.scores[s]

    return 1 + sum(rank(s) > rank(seat) for s in range(len(view.scores)))


@dataclass
class ArenaRecord:
    """One ``uno bot --arena`` run: the games it finished, won, and its
    rating on entry and after its last game."""

    name: str
    games: int = 0
    wins: int = 0
    first_rating: float | None = None
    rating: float | None = None
    rated: int | None = None  #: the name's rated games, as the standings last said

    def entered(self, standing: ArenaStanding) -> None:
        """The standing an ``ArenaWelcome`` gave (the first one is kept)."""
        if self.first_rating is None:
            self.first_rating = standing.rating
        self.rating = standing.rating
        self.rated = standing.games

    def game(
        self, seat: ArenaSeat, view: PlayerView | None, over: bool, standing: ArenaStanding | None
    ) -> str:
        """Count the game the bot played at ``seat`` (its last ``view``,
        ``over`` if it ended; ``standing``: the name's row after it, None if
        the standings do not show it); returns its line."""
        head = f"arena game {seat.game}: seat {seat.seat + 1}"
        if view is None or not over:
            return f"{head}: not finished (the server stopped it); not rated"
        players = len(view.scores)
        if not view.game_winners:
            return f"{head} of {players}: void (a round reached its cap of actions); not rated"
        self.games += 1
        won = seat.seat in view.game_winners
        self.wins += won
        points = view.scores[seat.seat]
        line = (
            f"{head} of {players}, place {place(view, seat.seat)}"
            f"{' (won)' if won else ''}, {points} point{'' if points == 1 else 's'}"
        )
        if standing is None:
            return f"{line}; rating not shown (not among the standings' rows)"
        before, self.rating = self.rating, standing.rating
        counted, self.rated = self.rated, standing.games
        if counted is not None and standing.games == counted:  # the server did not rate it
            return (
                f"{line}; not rated (two seats of one address, or a seat its player left "
                f"to the server: RULES.md, The arena); rating {standing.rating:.2f}"
            )
        change = f" ({standing.rating - before:+.2f})" if before is not None else ""
        return f"{line}; rating {standing.rating:.2f}{change}"

    def summary(self) -> str:
        """``4 arena games (1 won), rating 3.10 (from 0.00)``."""
        games = f"{self.games} arena game{'' if self.games == 1 else 's'} ({self.wins} won)"
        if self.rating is None:
            return games
        since = f" (from {self.first_rating:.2f})" if self.first_rating is not None else ""
        return f"{games}, rating {self.rating:.2f}{since}"
