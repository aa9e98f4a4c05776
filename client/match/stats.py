"""Statistics of a match: per entrant, per seat, head to head and per deal,
from the games' records (:class:`~.result.GameResult`), in any order.

A game some seats forfeited (illegal actions, the clock, a crash, leaving:
:meth:`~.result.GameResult.forfeiters`) counts for every seat: the
forfeiters lost it, the others won it as a tie for first
(:meth:`~.result.GameResult.credits`), in the win rates, the deal scores,
head to head and the ratings; its points do not enter the mean scores. An
adjudicated game counts for no one's win rate, and is a draw for the SPRT.

Intervals (95%):

* per game, the Wilson score interval of the win rate (E. B. Wilson, 1927):
  right for independent games, as with plain rotation;
* per deal (``--duplicate``), the normal interval of the mean of the deal
  scores (a deal's score: the share of its games the entrant won), so the
  paired structure counts: the games of one deal share its luck, and the
  spread between deals is what is left once every entrant held every hand.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .entrants import Entrant
from .result import ADJUDICATED, CRASHED, ERROR, VOID, GameResult
from .schedule import Schedule

Z95 = 1.959963984540054


def wilson_interval(wins: float, n: int, z: float = Z95) -> tuple[float, float]:
    """95% Wilson score interval for a proportion ``wins / n`` (0..1 bounds)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(max(0.0, p * (1 - p) / n + z * z / (4 * n * n))) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def mean_interval(values: Sequence[float], z: float = Z95) -> tuple[float, float, float]:
    """(mean, low, high): the normal 95% interval of the mean of ``values``
    (sample standard deviation; bounds clipped to 0..1). (0, 0, 1) for fewer
    than two values."""
    n = len(values)
    if n < 2:
        return (values[0] if values else 0.0), 0.0, 1.0
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    half = z * math.sqrt(var / n)
    return mean, max(0.0, mean - half), min(1.0, mean + half)


@dataclass
class Totals:
    """An entrant's (or a seat's) sums over the games."""

    games: int = 0  #: games that count (forfeited ones included)
    played: int = 0  #: games it sat in, whatever their status
    wins: float = 0.0
    score: int = 0  #: points, in the games played out (``scored_games``)
    scored_games: int = 0
    decisions: int = 0
    timed: int = 0  #: decisions whose time is known
    think_ms: float = 0.0
    timeouts: int = 0  #: turn-timer actions (time forfeits), in any game
    illegal_forfeits: int = 0  #: games it forfeited for illegal actions (void)
    forfeits: int = 0  #: games it forfeited, of any kind (each counts in ``games``: a loss)
    refusals: int = 0  #: its intents the server refused, in any game (where known)
    races: int = 0  #: its races lost, in any game (where known; never a fault)
    stand_in: int = 0  #: games where the server's stand-in played its seat
    crashes: int = 0
    adjudicated: int = 0
    void: int = 0
    errors: int = 0

    @property
    def win_rate(self) -> float:
        """Wins per game that counts (forfeits included, as losses), 0..1 (0 without games)."""
        return self.wins / self.games if self.games else 0.0

    @property
    def mean_score(self) -> float:
        """Points per game played out (0 without one): a forfeited game's
        points are not a result."""
        return self.score / self.scored_games if self.scored_games else 0.0

    @property
    def ms_per_decision(self) -> float | None:
        """Milliseconds per decision whose time is known; None if none is."""
        return self.think_ms / self.timed if self.timed else None


@dataclass
class MatchStats:
    """Running statistics of a match; :meth:`add` every game's record once."""

    entrants: list[Entrant]
    schedule: Schedule
    teams: bool = False  #: the teams format: both partners of the winning team win
    totals: list[Totals] = field(default_factory=list)
    seats: list[Totals] = field(default_factory=list)
    by_seat: dict[tuple[int, int], Totals] = field(default_factory=dict)  #: (entrant, seat)
    head: dict[tuple[int, int], list[float]] = field(default_factory=dict)  #: [n, wins a, wins b]
    statuses: Counter[str] = field(default_factory=Counter)
    results: dict[int, GameResult] = field(default_factory=dict)
    deal_results: dict[int, list[GameResult]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.totals:
            self.totals = [Totals() for _ in self.entrants]
        if not self.seats:
            self.seats = [Totals() for _ in range(self.schedule.table_size)]

    def add(self, result: GameResult) -> bool:
        """Count one game (a replayed index a second time is ignored: False)."""
        if result.index in self.results:
            return False
        self.results[result.index] = result
        self.statuses[result.status] += 1
        self.deal_results.setdefault(result.deal, []).append(result)
        credits = result.credits(self.teams)
        forfeited = result.forfeiters()
        for seat, e in enumerate(result.seats):
            t = self.totals[e]
            t.played += 1
            if seat < len(result.timeouts):
                t.timeouts += result.timeouts[seat]
            if seat < len(result.stand_in) and result.stand_in[seat]:
                t.stand_in += 1
            if result.crash is not None and result.crash.get("seat") == seat:
                t.crashes += 1
            if result.forfeit is not None and result.forfeit.get("seat") == seat:
                t.illegal_forfeits += 1
            if seat < len(result.refusals):
                t.refusals += result.refusals[seat] or 0
            if seat < len(result.races):
                t.races += result.races[seat] or 0
            if result.status == ADJUDICATED:
                t.adjudicated += 1
            elif result.status == VOID:
                t.void += 1
            elif result.status == ERROR:
                t.errors += 1
            if seat < len(result.decisions):
                t.decisions += result.decisions[seat]
                ms = result.think_ms[seat] if seat < len(result.think_ms) else None
                if ms is not None:
                    t.timed += result.decisions[seat]
                    t.think_ms += ms
            if seat in forfeited:
                t.forfeits += 1
            if not (result.counted or forfeited):
                continue
            played_out = result.counted and seat < len(result.scores)
            for totals in (t, self.seats[seat], self.by_seat.setdefault((e, seat), Totals())):
                totals.games += 1
                totals.wins += credits[seat]
                if played_out:
                    totals.scored_games += 1
                    totals.score += result.scores[seat]
        if result.counted or forfeited:
            for i, a in enumerate(result.seats):
                for j, b in enumerate(result.seats):
                    if a != b:
                        cell = self.head.setdefault((a, b), [0, 0.0, 0.0])
                        cell[0] += 1
                        cell[1] += credits[i]
                        cell[2] += credits[j]
        return True

    def add_all(self, results: Iterable[GameResult]) -> None:
        """Count every one of ``results``, by game index."""
        for result in sorted(results, key=lambda r: r.index):
            self.add(result)

    # -------------------------------------------------------------- deals

    def deal_complete(self, deal: int) -> bool:
        """True when every game of ``deal`` was played and has a score (every
        status but ``error``: a forfeit is a loss, an adjudication a draw)."""
        games = self.deal_results.get(deal, [])
        return len(games) == self.schedule.deal_games(deal) and all(g.scored for g in games)

    def complete_deals(self) -> list[int]:
        """The deals whose every game was played and has a score, in order."""
        return sorted(d for d in self.deal_results if self.deal_complete(d))

    def deal_scores(self, entrant: int) -> list[float]:
        """The entrant's score of every complete deal it played (share of its
        games of the deal that it won, its forfeits counted as losses; games
        that count for it only)."""
        out = []
        for deal in self.complete_deals():
            games = wins = 0.0
            for r in self.deal_results[deal]:
                credits = r.credits(self.teams)
                forfeited = r.forfeiters()
                for seat, e in enumerate(r.seats):
                    if e == entrant and (r.counted or forfeited):
                        games += 1
                        wins += credits[seat]
            if games:
                out.append(wins / games)
        return out

    def pair_score(self, deal: int, candidate: int, baseline: int) -> tuple[float, int]:
        """(score, games) of a complete ``deal`` for the SPRT (:mod:`.sprt`):
        the mean over its games of the head-to-head score of entrant
        ``candidate`` against ``baseline`` (:meth:`.result.GameResult.head_to_head`:
        1: the candidate won, 0: the baseline did, 1/2: neither, a tie between
        them, or an adjudication; a forfeit is a loss for the forfeiter)."""
        games = self.deal_results[deal]
        total = sum(r.head_to_head(candidate, baseline, self.teams) for r in games)
        return total / len(games), len(games)

    def forfeited_all(self, entrant: int, at_least: int) -> bool:
        """True when ``entrant`` forfeited every game it played, and played at
        least ``at_least`` (a broken bot: a match of it says nothing)."""
        t = self.totals[entrant]
        return t.forfeits >= at_least and t.forfeits == t.played

    # -------------------------------------------------------------- ratings

    def ratings(self) -> dict[int, tuple[float, float, float]]:
        """OpenSkill (Plackett-Luce) ratings from every counted or forfeited
        game's ranking, in game order: entrant -> (mu, sigma, ordinal = mu - 3
        sigma). Winners rank first, the others share second (in a forfeited
        game: the forfeiters last, the others share first); a team's partners
        are one team."""
        from openskill.models import PlackettLuce

        model = PlackettLuce()
        ratings = {i: model.rating(name=e.label) for i, e in enumerate(self.entrants)}
        for index in sorted(self.results):
            r = self.results[index]
            forfeited = r.forfeiters()
            if not (r.counted and r.winners) and not forfeited:
                continue
            n = len(r.seats)
            if self.teams and n % 2 == 0:
                sides = [[s, s + n // 2] for s in range(n // 2)]
            else:
                sides = [[s] for s in range(n)]
            teams = [[ratings[r.seats[s]] for s in side] for side in sides]
            if forfeited:  # the forfeiters last, the others tied before them
                ranks = [1.0 if any(s in forfeited for s in side) else 0.0 for side in sides]
            else:
                ranks = [0.0 if any(s in r.winners for s in side) else 1.0 for side in sides]
            updated = model.rate(teams, ranks=ranks)
            for side, team in zip(sides, updated):
                for s, rating in zip(side, team):
                    ratings[r.seats[s]] = rating
        return {i: (r.mu, r.sigma, r.ordinal()) for i, r in ratings.items()}

    def summary(self) -> dict[str, Any]:
        """Counts of games by status."""
        return {
            "played": len(self.results),
            "counted": self.statuses.get("finished", 0),
            "adjudicated": self.statuses.get(ADJUDICATED, 0),
            "void": self.statuses.get(VOID, 0),
            "crashed": self.statuses.get(CRASHED, 0),
            "errors": self.statuses.get(ERROR, 0),
        }
