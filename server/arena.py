"""The arena: a queue of entrants that the server seats at rated games
(server/RULES.md, "The arena"; the contract: arena_service.proto).

An entrant enters under a name (the book checks its secret,
:mod:`.ratings`) and waits in the queue. Whenever enough entrants wait, the
one that has waited longest is seated with those nearest it in rating, at a
new table of the arena's settings, dealt from a secret seed like every
table with people; its seats are shuffled. After ``fill_after`` seconds
alone (when the operator allows it), the waiting are seated with server
bots in the seats left (bots are not rated). When a game ends, every seat
held by an entrant is rated by the game's result (a seat a stand-in played
ranks last: leaving a game loses it) and the entrants still connected go
back to the queue. Nobody is seated twice at once.
"""

from __future__ import annotations

import asyncio
import logging
import math
import random
from collections import Counter
from dataclasses import dataclass

from unoplay.game.bots import make_bot
from unoplay.game.rules import PRESETS, RuleSet

from .lobby import Lobby, holder_of
from .ratings import ArenaBook, Standing
from .seats import MAX_NAME, LobbyError, clean_text
from .settings import (
    DEFAULT_AWAY_GRACE,
    DEFAULT_MAX_ROUND_ACTIONS,
    check_settings,
    default_window_ms,
)
from .table import Table

log = logging.getLogger("unoplay.arena")

_shuffle = random.SystemRandom().shuffle
#: the owner of the arena's tables in the lobby (its per-client limits)
ARENA_OWNER = "arena"
#: seconds before the arena tries again to open a table the lobby refused
RETRY = 1.0


@dataclass(frozen=True)
class ArenaSettings:
    """What the arena plays and its bounds: ``seats`` a table, the ``rules``
    preset and ``target`` score (0: single rounds), ``turn_seconds`` of the
    turn timer, ``fill_after`` seconds before the waiting are seated with
    server bots (None: never), and the caps of the queue: entrants at once,
    entries from one client address, names one address may register while
    the server runs (the book is shared: one client must not fill it)."""

    seats: int = 4
    rules: str = "official"
    target: int = 0
    turn_seconds: int = 10
    fill_after: float | None = None
    max_entrants: int = 256
    max_per_client: int = 16
    max_names_per_client: int = 64

    def ruleset(self) -> RuleSet:
        """The rules of the arena's tables."""
        return PRESETS[self.rules].replace(target_score=self.target)

    def check(self) -> None:
        """Raise ValueError for settings no arena table can have (seats
        outside 2..10, no turn timer or one past a table's bound, a fill time
        that is not a finite number of seconds, 0 or more), or RuleError (a
        ValueError) for rules its seats cannot play."""
        if self.rules not in PRESETS:
            raise ValueError(f"rules must be one of {', '.join(PRESETS)}, not {self.rules!r}")
        rules = self.ruleset()
        if self.turn_seconds < 1:
            raise ValueError("turn_seconds must be 1 or more (the arena's turn timer is on)")
        try:
            check_settings(
                self.seats,
                rules,
                self.turn_seconds,
                0.0,
                DEFAULT_AWAY_GRACE,
                default_window_ms(rules),
                DEFAULT_MAX_ROUND_ACTIONS,
                None,
            )
        except LobbyError as err:
            raise ValueError(str(err)) from None
        fill = self.fill_after
        if fill is not None and not (math.isfinite(fill) and fill >= 0):
            raise ValueError(f"fill_after must be 0 or more seconds, not {fill}")


@dataclass(frozen=True)
class Assignment:
    """A seat at an arena game (what an ArenaSeat message carries)."""

    table_id: str
    seat_token: str
    seat: int
    game: int


class Entrant:
    """A name in the arena: its standing, its open stream (if any), where it
    waits or plays."""

    def __init__(self, key: str, standing: Standing, client: str) -> None:
        self.key = key
        self.standing = standing
        self.client = client
        self.outbox: asyncio.Queue[Assignment | None] | None = None  # the open stream's
        self.since = 0.0  # when it joined the queue (loop time)
        self.assignment: Assignment | None = None  # the game it plays now

    @property
    def waiting(self) -> bool:
        """In the queue: a stream open and no game under way."""
        return self.outbox is not None and self.assignment is None


class Arena:
    """The queue and the games of one server's arena. Runs on the server's
    event loop; ``book`` keeps the names and ratings."""

    def __init__(self, lobby: Lobby, book: ArenaBook, settings: ArenaSettings) -> None:
        self.lobby = lobby
        self.book = book
        self.settings = settings
        settings.check()
        self.rules = settings.ruleset()
        self.entrants: dict[str, Entrant] = {}
        self.games: dict[str, dict[int, str]] = {}  # table id -> seat -> entrant key
        self.played = 0  # arena games started
        self._by_client: Counter[str] = Counter()
        self._registered_by: Counter[str] = Counter()  # names registered, by address
        self._timer: asyncio.TimerHandle | None = None
        previous = lobby.on_finish

        def finished(table: Table) -> None:
            if previous is not None:
                previous(table)
            self._finished(table)

        lobby.on_finish = finished

    # ----------------------------------------------------------- entering

    def enter(
        self, name: str, secret: str, client: str
    ) -> tuple[Entrant, asyncio.Queue[Assignment | None], str]:
        """Let ``name`` in (``client``: its address, for the per-client cap):
        ``(its entrant, the queue its stream reads, a new secret or "")``.
        A stream already open for the name is ended (a reconnection); a game
        under way is sent again at once. Raises LobbyError (a bad name, a
        wrong secret, the arena full, the server closing)."""
        if self.lobby.closing:
            raise LobbyError("unavailable", "the server is shutting down")
        name = clean_text("name", name, MAX_NAME)
        key = name.casefold()
        entrant = self.entrants.get(key)
        if entrant is None:
            if len(self.entrants) >= self.settings.max_entrants:
                raise LobbyError(
                    "resource_exhausted", f"the arena holds {self.settings.max_entrants} entrants"
                )
            if self._by_client[client] >= self.settings.max_per_client:
                raise LobbyError(
                    "resource_exhausted",
                    f"{self.settings.max_per_client} entrants from your address are in the arena",
                )
        new_name = key not in self.book.standing
        if new_name and self._registered_by[client] >= self.settings.max_names_per_client:
            raise LobbyError(
                "resource_exhausted",
                f"your address registered {self.settings.max_names_per_client} names already",
            )
        standing, new_secret = self.book.enter(name, secret)
        self._registered_by[client] += new_name
        if entrant is None:
            entrant = self.entrants[key] = Entrant(key, standing, client)
            self._by_client[client] += 1
        elif entrant.outbox is not None:
            entrant.outbox.put_nowait(None)  # the old stream ends
        outbox: asyncio.Queue[Assignment | None] = asyncio.Queue()
        entrant.outbox = outbox
        entrant.since = asyncio.get_running_loop().time()
        if entrant.assignment is not None:
            outbox.put_nowait(entrant.assignment)
        else:
            try:
                self.pair()
            except BaseException:  # no stream will read the outbox: not left waiting
                self.left(entrant, outbox)
                raise
        return entrant, outbox, new_secret

    def left(self, entrant: Entrant, outbox: asyncio.Queue[Assignment | None]) -> None:
        """The stream that read ``outbox`` closed: out of the queue (a game
        under way goes on). An entrant with no stream and no game is dropped."""
        if entrant.outbox is not outbox:
            return  # a newer stream took over
        entrant.outbox = None
        self._forget_if_idle(entrant)

    def _forget_if_idle(self, entrant: Entrant) -> None:
        idle = entrant.outbox is None and entrant.assignment is None
        if idle and self.entrants.pop(entrant.key, None) is entrant:
            self._by_client[entrant.client] -= 1
            if self._by_client[entrant.client] <= 0:
                del self._by_client[entrant.client]

    # ------------------------------------------------------------ pairing

    def pair(self) -> None:
        """Seat the waiting: groups of ``seats``, each the longest waiting
        and those nearest it in rating; then, if allowed, those who waited
        ``fill_after`` seconds with server bots."""
        seats = self.settings.seats
        loop = asyncio.get_running_loop()
        waiting = sorted((e for e in self.entrants.values() if e.waiting), key=lambda e: e.since)
        while len(waiting) >= seats:
            first, rest = waiting[0], waiting[1:]
            rest.sort(key=lambda e: (abs(e.standing.rating - first.standing.rating), e.since))
            group = [first, *rest[: seats - 1]]
            if not self._seat(group):
                return
            waiting = [e for e in waiting if e not in group]
        if not waiting or self.settings.fill_after is None:
            return
        due = waiting[0].since + self.settings.fill_after
        if loop.time() >= due:
            self._seat(waiting)
        elif self._timer is None or self._timer.when() > due:
            if self._timer is not None:
                self._timer.cancel()
            self._timer = loop.call_at(due, self._fill)

    def _fill(self) -> None:
        self._timer = None
        self.pair()

    def _seat(self, group: list[Entrant]) -> bool:
        """Seat ``group`` (and server bots in the seats left) at a new table
        and start its game; False when the server has no room for a table
        (tried again in :data:`RETRY` seconds, or when a game ends)."""
        settings = self.settings
        try:
            # owned by "arena": as any client's, its finished tables beyond
            # Limits.max_tables_per_client are dropped as it makes more (they
            # are stored), and so are its games at once
            table = self.lobby.create(
                f"arena game {self.played + 1}",
                settings.seats,
                self.rules,
                turn_seconds=settings.turn_seconds,
                window_ms=default_window_ms(self.rules),
                owner=ARENA_OWNER,
            )
        except LobbyError as err:
            log.warning("the arena cannot open a table now (tried again in %gs): %s", RETRY, err)
            if self._timer is None:
                self._timer = asyncio.get_running_loop().call_later(RETRY, self._fill)
            return False
        self.played += 1
        order = list(range(settings.seats))
        _shuffle(order)
        seated: dict[int, str] = {}
        tokens = []
        table.rematches = False  # one game: its players are back in the queue after it
        for entrant, seat in zip(group, order):
            # Counted apart from the name's seats at the lobby's tables: seats
            # held there under the name (by anyone) must not keep it from its
            # one arena seat.
            name = entrant.standing.name
            taken = table.join(name, seat, holder=holder_of(name, ARENA_OWNER))
            seated[seat] = entrant.key
            tokens.append((entrant, taken.token))
        for i, seat in enumerate(order[len(group) :]):
            table.add_bot(make_bot("greedy", rules=self.rules), f"greedy-{i + 1}", seat)
        self.games[table.table_id] = seated
        table.start()
        for (entrant, token), seat in zip(tokens, order):
            entrant.assignment = Assignment(table.table_id, token, seat, self.played)
            if entrant.outbox is not None:
                entrant.outbox.put_nowait(entrant.assignment)
        log.info("arena game %d: %s", self.played, ", ".join(e.standing.name for e in group))
        return True

    # ------------------------------------------------------------ results

    def _finished(self, table: Table) -> None:
        """An arena game is over: rate it, and put its entrants back in the
        queue (those still connected)."""
        seated = self.games.pop(table.table_id, None)
        if seated is None:
            return
        game = table.game
        outcome = game.outcome() if game is not None else None
        if outcome is not None and outcome.winners:
            played_out = {
                seat
                for (seat, _), source in zip(table.history, table.history.sources)
                if source == "stand_in"
            }
            ranks = {}
            winners = set()
            bots = [
                1 if seat in outcome.winners else 2
                for seat in range(len(table.seats))
                if seat not in seated
            ]
            for seat, key in seated.items():
                if seat in played_out or not table.seats[seat].token:
                    ranks[key] = 3  # it left its game: a loss below every other
                elif seat in outcome.winners:
                    ranks[key] = 1
                    winners.add(key)
                else:
                    ranks[key] = 2
            self.book.rate(ranks, winners, bots)
        now = asyncio.get_running_loop().time()
        for key in seated.values():
            entrant = self.entrants.get(key)
            if entrant is None:
                continue
            entrant.assignment = None
            entrant.since = now
            self._forget_if_idle(entrant)
        self.pair()

    # ------------------------------------------------------------ standings

    def standings(self, limit: int = 0) -> list[tuple[Standing, bool, bool]]:
        """``(standing, waiting, playing)`` of every registered name, best first."""
        rows = []
        for standing in self.book.standings(limit):
            entrant = self.entrants.get(standing.name.casefold())
            waiting = entrant is not None and entrant.waiting
            playing = entrant is not None and entrant.assignment is not None
            rows.append((standing, waiting, playing))
        return rows

    def close(self) -> None:
        """The server stops: every stream ends, the book is closed."""
        if self._timer is not None:
            self._timer.cancel()
        for entrant in self.entrants.values():
            if entrant.outbox is not None:
                entrant.outbox.put_nowait(None)
        self.book.close()
