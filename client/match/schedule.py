"""Which game is played where: the seats of every game and its deal's seed.

A match is a list of games numbered 0, 1, 2...; game ``i``'s seats and seed
follow from the match's settings alone (:meth:`Schedule.spec`), so a resumed
run, another process or another machine plays exactly the same game ``i``.

Schedules (the seatings of a cycle):

* ``rotation`` (every entrant at one table): game ``g`` seats entrant
  ``(g + s) % n`` in seat ``s``; the seats rotate every game.
* ``round-robin`` (more entrants than ``table_size`` seats): every set of
  ``table_size`` entrants in turn, each set for every rotation of its seats.
* ``partner-rotation`` (RULES.md section 9 of the seeds; teams format, 4
  seats, partners opposite): with 4 entrants each of the others is your
  partner in turn, 4 rounds each, 12 a cycle; with 8 entrants two tables a
  round, each pair partners for 4 rounds, 28 rounds (56 games) a cycle.
  Within a partnership's 4 rounds the seats rotate.

Deals: without duplicates every game has a deal of its own, seeded
``seed + i`` (the table is a seeded table: RULES.md, "Fair deals"). With
``duplicate="rotations"`` every deal is played once for every rotation of
its table's seats (as in duplicate bridge: every entrant holds every hand,
from every seat), and with ``duplicate="permutations"`` once for every
distinct arrangement of the entrants (entrants with one identity are
interchangeable), all with seed ``seed + deal``.

Pairs (``--sprt``: candidate against baseline, :mod:`.sprt`): every deal's
games come in pairs that differ only by the candidate and the baseline
swapping seats, so both meet the same field in the same seats with the same
cards. Without ``--duplicate`` a deal is one pair (``duplicate="pairs"``:
the seating of rotation ``deal % seats`` and its swap); with ``rotations``
every rotation and its swap (2 x seats games); ``permutations`` is a swap's
own closure once the two are told apart.
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

Seating = tuple[int, ...]

SCHEDULES = ("rotation", "round-robin", "partner-rotation")
DUPLICATES = ("rotations", "permutations")
#: The duplicate of a candidate-baseline SPRT without ``--duplicate``: a deal is one pair.
PAIRS = "pairs"
#: Most distinct tables a round-robin may have.
MAX_TABLES = 10_000


@dataclass(frozen=True)
class GameSpec:
    """One game to play: ``seats[s]`` is the entrant index in seat ``s``; the
    table is dealt from ``seed``. ``rotation`` is the game's place among its
    deal's games (duplicate; 0 otherwise). ``attempt`` counts replays of a
    game whose worker was lost; ``fault`` is for tests ("exit-worker": the
    worker process exits in the middle of the game, as a lost machine would)."""

    index: int
    deal: int
    rotation: int
    seed: int
    seats: Seating
    attempt: int = 0
    fault: str = ""

    def bot_seed(self, seat: int) -> int:
        """The seed of the built-in bot in ``seat`` (a deal's seat, whoever sits there)."""
        return self.seed * 31 + seat

    def to_dict(self) -> dict[str, Any]:
        """Plain values (JSON), for workers."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameSpec:
        """The game of :meth:`to_dict`'s values."""
        return cls(**{**data, "seats": tuple(data["seats"])})


def rotate(seating: Seating, r: int) -> Seating:
    """``seating`` with every entrant moved ``r`` seats down: seat ``s`` gets
    what seat ``s + r`` had."""
    r %= len(seating)
    return seating[r:] + seating[:r]


def rotations(seating: Seating) -> list[Seating]:
    """Every rotation of ``seating``: each entrant in each seat once."""
    return [rotate(seating, r) for r in range(len(seating))]


def permutations(seating: Seating, identities: Sequence[str]) -> list[Seating]:
    """Every distinct arrangement of ``seating``'s entrants, entrants of one
    identity being interchangeable (the first arrangement found stands for
    its class), in a fixed order."""
    seen: set[tuple[str, ...]] = set()
    out = []
    for perm in itertools.permutations(seating):
        key = tuple(identities[e] for e in perm)
        if key not in seen:
            seen.add(key)
            out.append(perm)
    return out


def swap(seating: Seating, a: int, b: int) -> Seating:
    """``seating`` with entrants ``a`` and ``b`` in each other's seat."""
    return tuple(b if e == a else a if e == b else e for e in seating)


def partner_pairings(n: int) -> list[list[tuple[tuple[int, int], tuple[int, int]]]]:
    """The partnerships of a cycle of partner rotation: one list of tables a
    round, each table two pairs of partners. 4 entrants: 3 pairings of one
    table; 8 entrants: the 7 perfect matchings of the circle method (every
    pair partners exactly once), two tables each."""
    if n == 4:
        return [[((0, 1), (2, 3))], [((0, 2), (1, 3))], [((0, 3), (1, 2))]]
    if n == 8:
        rounds = []
        for r in range(7):
            pairs = [(7, r)] + [((r + k) % 7, (r - k) % 7) for k in (1, 2, 3)]
            rounds.append([(pairs[0], pairs[1]), (pairs[2], pairs[3])])
        return rounds
    raise ValueError(f"partner rotation needs 4 or 8 entrants, not {n}")


def partner_table(pairs: tuple[tuple[int, int], tuple[int, int]]) -> Seating:
    """Seats of a teams table: partners opposite (seats p and p + 2)."""
    (a, b), (c, d) = pairs
    return (a, c, b, d)


@dataclass(frozen=True)
class Schedule:
    """The seatings of a match (see the module docstring). ``cycle`` is the
    order of seatings without duplicates; ``groups[k]`` the seatings of a deal
    of base ``k`` with duplicates, deal ``d`` taking base ``d % len(groups)``."""

    kind: str
    duplicate: str
    table_size: int
    cycle: tuple[Seating, ...]
    groups: tuple[tuple[Seating, ...], ...]

    @property
    def per_deal(self) -> tuple[int, ...]:
        """Games of a deal of each base (1 each without duplicates)."""
        return tuple(len(g) for g in self.groups) if self.duplicate else (1,)

    def deal_games(self, deal: int) -> int:
        """How many games deal ``deal`` has."""
        if not self.duplicate:
            return 1
        return len(self.groups[deal % len(self.groups)])

    def total(self, games: int) -> int:
        """Games played for ``games`` asked: with duplicates, rounded up to
        whole deals."""
        if not self.duplicate:
            return games
        n, index, deal = 0, 0, 0
        while index < games:
            index += self.deal_games(deal)
            deal += 1
            n = index
        return n

    def _locate(self, index: int) -> tuple[int, int]:
        """(deal, rotation) of game ``index`` with duplicates."""
        sizes = self.per_deal
        cycle_games = sum(sizes)
        cycles, rest = divmod(index, cycle_games)
        starts = list(itertools.accumulate(sizes, initial=0))
        base = bisect.bisect_right(starts, rest) - 1
        return cycles * len(sizes) + base, rest - starts[base]

    def spec(self, index: int, seed: int) -> GameSpec:
        """Game ``index`` of a match seeded ``seed``."""
        if not self.duplicate:
            return GameSpec(index, index, 0, seed + index, self.cycle[index % len(self.cycle)])
        deal, rotation = self._locate(index)
        seats = self.groups[deal % len(self.groups)][rotation]
        return GameSpec(index, deal, rotation, seed + deal, seats)

    def specs(self, games: int, seed: int) -> list[GameSpec]:
        """Every game of a match of ``games`` games (:meth:`total`)."""
        return [self.spec(i, seed) for i in range(self.total(games))]

    def describe(self) -> str:
        """A line for people: the schedule, its cycle and its deals."""
        what = {
            "rotation": f"seats rotate ({len(self.cycle)} a cycle)",
            "round-robin": f"round-robin at tables of {self.table_size} "
            f"({len(self.groups)} tables, {len(self.cycle)} games a cycle)",
            "partner-rotation": f"partner rotation ({len(self.cycle)} games a cycle)",
        }[self.kind]
        if self.duplicate == PAIRS:
            what += ", every deal twice: candidate and baseline swap seats"
        elif self.duplicate:
            sizes = sorted(set(self.per_deal))
            what += f", duplicate deals ({'/'.join(map(str, sizes))} games each, {self.duplicate})"
        return what


def make_schedule(
    identities: Sequence[str],
    kind: str = "rotation",
    table_size: int | None = None,
    duplicate: str = "",
    pair: tuple[int, int] | None = None,
) -> Schedule:
    """The schedule of entrants with these ``identities`` (see the module
    docstring). ``table_size`` None seats every entrant at one table.
    ``pair``: (candidate, baseline) entrant indices whose seats every deal
    swaps (the SPRT's pairs; every entrant must sit at every table).
    Raises ValueError for a schedule these entrants cannot play."""
    n = len(identities)
    if kind not in SCHEDULES:
        raise ValueError(f"unknown schedule {kind!r}; known: {', '.join(SCHEDULES)}")
    if duplicate and duplicate not in DUPLICATES:
        raise ValueError(f"--duplicate is {' or '.join(DUPLICATES)}, not {duplicate!r}")
    if kind == "partner-rotation":
        if table_size not in (None, 4):
            raise ValueError("partner rotation plays at tables of 4")
        if duplicate == "permutations":
            raise ValueError(
                "partner rotation keeps partners opposite: use --duplicate rotations with it"
            )
        pairings = partner_pairings(n)  # ValueError unless 4 or 8
        cycle = [
            rotate(partner_table(table), r)
            for tables in pairings
            for r in range(4)
            for table in tables
        ]
        bases = [partner_table(table) for tables in pairings for table in tables]
        groups = [tuple(rotations(b)) for b in bases]
        return Schedule(kind, duplicate, 4, tuple(cycle), tuple(groups))
    size = n if table_size is None else table_size
    if not 2 <= size <= 10:
        raise ValueError(f"a table has 2..10 seats, not {size}")
    if size > n:
        raise ValueError(f"{n} entrants cannot fill tables of {size}")
    if kind == "rotation" and size < n:
        kind = "round-robin"
    if kind == "round-robin" and size == n:
        kind = "rotation"
    if pair is not None:
        return _paired(identities, kind, size, duplicate, pair)
    if math.comb(n, size) > MAX_TABLES:
        raise ValueError(
            f"{n} entrants at tables of {size} make {math.comb(n, size)} tables, "
            f"more than {MAX_TABLES}"
        )
    bases = list(itertools.combinations(range(n), size))
    cycle = [rotate(b, r) for b in bases for r in range(size)]
    if duplicate == "permutations":
        groups = [tuple(permutations(b, identities)) for b in bases]
    else:
        groups = [tuple(rotations(b)) for b in bases]
    return Schedule(kind, duplicate, size, tuple(cycle), tuple(groups))


def _paired(
    identities: Sequence[str], kind: str, size: int, duplicate: str, pair: tuple[int, int]
) -> Schedule:
    """The schedule of a candidate-baseline SPRT (the module docstring's
    "Pairs"). Raises ValueError unless every entrant sits at every table."""
    n = len(identities)
    a, b = pair
    if kind != "rotation" or size != n:
        raise ValueError(
            "--sprt compares two entrants at the same tables: every entrant at every table "
            "(no round-robin, no --table-size below the entrants)"
        )
    if a == b or not (0 <= a < n and 0 <= b < n):
        raise ValueError("the candidate and the baseline must be two different entrants")
    base = tuple(range(n))
    cycle = tuple(rotations(base))
    if duplicate == "permutations":
        told_apart = list(identities)
        told_apart[a] += "\0candidate"
        told_apart[b] += "\0baseline"
        groups: tuple[tuple[Seating, ...], ...] = (tuple(permutations(base, told_apart)),)
    elif duplicate == "rotations":
        groups = (cycle + tuple(swap(s, a, b) for s in cycle),)
    else:
        duplicate = PAIRS
        groups = tuple((s, swap(s, a, b)) for s in cycle)
    return Schedule(kind, duplicate, size, cycle, groups)
