"""The arena: a queue of entrants that the server seats at rated games
(server/RULES.md, "The arena"; the contract: arena_service.proto).

An entrant enters under a name (the book checks its secret,
:mod:`.ratings`) and waits in the queue. Whenever enough entrants wait, the
one that has waited longest is seated with those nearest it in rating, one
per address (unless only one address waits), at a new table of the arena's
settings, dealt from a secret seed like every table with people; its seats
are shuffled. After ``fill_after`` seconds (when the operator allows it), a
group short of seats is seated with server bots in the seats left (bots are
not rated). Arena tables are strict (:attr:`.table.Table.strict`): a seat
the clock plays for twice in a row, or whose player stays away past the
grace, is given up for the rest of the game and its entry leaves the queue.
When a game ends it is rated by :meth:`Arena.rate_game`'s rule and the
entrants still connected go back to the queue. Nobody is seated twice at
once; no address holds more than its share of the queue.

With the server's file (a :class:`.durable.Journal`), the queue and the
games outlive a restart (issue 48): each entrant is kept with when it joined
the queue, each game with who holds its seats, and its rating marks it rated
in the same transaction. Restored (:mod:`.restore`), an entrant waits in its
place until it enters again (for :data:`RESTORED_GRACE` seconds), and a
game goes on to be rated once.
"""

from __future__ import annotations

import asyncio
import logging
import math
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from unoplay.game.registry import make_bot
from unoplay.game.rules import PRESETS, RuleSet
from unoplay.protocol import ActionSource, LobbyError
from unoplay.settings import (
    DEFAULT_AWAY_GRACE,
    DEFAULT_MAX_ROUND_ACTIONS,
    check_settings,
    default_window_ms,
)
from unoplay.throttle import LogEvery, network_of

from .lobby import Lobby, holder_of
from .ratings import ArenaBook, Standing, fair_to_take
from .seats import clean_name
from .table import ARENA_OWNER, Table

if TYPE_CHECKING:
    from .durable import Journal

log = logging.getLogger("unoplay.arena")
#: the arena's lines that entrants can cause (refusals, dropped entries)
log_every = LogEvery(log, 60.0)

_shuffle = random.SystemRandom().shuffle
#: seconds before the arena tries again to open a table the lobby refused
RETRY = 1.0
#: the queue's share an address may hold: 1/ENTRANT_SHARES of its entrants
#: (at least a table's seats)
ENTRANT_SHARES = 16
#: seconds an entrant restored from the server's file keeps its place in
#: the queue without a stream (the clients retry for two minutes)
RESTORED_GRACE = 120.0


def address_of(client: str) -> str:
    """The address an entrant counts against: the client's (``_client`` of
    the service: "ipv4:1.2.3.4", a ``uno web`` tab's "tab:<id>"), an IPv6
    address by its /64 network (:func:`.limits.network_of`)."""
    kind, _, host = client.partition(":")
    if kind in ("ipv4", "ipv6") and host:
        network = network_of(host)
        return f"{'ipv6' if ':' in network else 'ipv4'}:{network}"
    return client


@dataclass(frozen=True)
class ArenaSettings:
    """What the arena plays and its bounds: ``seats`` a table, the ``rules``
    preset and ``target`` score (0: single rounds), ``turn_seconds`` of the
    turn timer, ``fill_after`` seconds before a group short of seats is
    seated with server bots (None: never); the queue's caps: entrants at
    once, and from one address (None: 1/:data:`ENTRANT_SHARES` of them, at
    least ``seats``); the book's: names in all, names one address may have
    registered (None: 1/:data:`.ratings.NAME_SHARES` of them), and
    ``forget_after`` seconds a name may go unused before it is released
    (None: never)."""

    seats: int = 4
    rules: str = "official"
    target: int = 0
    turn_seconds: int = 10
    fill_after: float | None = None
    max_entrants: int = 256
    max_per_client: int | None = None
    max_names: int = 10_000
    max_names_per_client: int | None = None
    forget_after: float | None = 30 * 86400.0

    def ruleset(self) -> RuleSet:
        """The rules of the arena's tables."""
        return PRESETS[self.rules].replace(target_score=self.target)

    @property
    def per_address(self) -> int:
        """Entrants one address may have in the queue at once."""
        return self.max_per_client or max(self.seats, self.max_entrants // ENTRANT_SHARES)

    def check(self) -> None:
        """Raise ValueError for settings no arena table can have (seats
        outside 2..10, no turn timer or one past a table's bound, a fill time
        or a forget time that is not a finite number of seconds, 0 or more),
        or RuleError (a ValueError) for rules its seats cannot play."""
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
        for what, value in (("fill_after", self.fill_after), ("forget_after", self.forget_after)):
            if value is not None and not (math.isfinite(value) and value >= 0):
                raise ValueError(f"{what} must be 0 or more seconds, not {value}")


@dataclass(frozen=True)
class Assignment:
    """A seat at an arena game (what an ArenaSeat message carries)."""

    table_id: str
    seat_token: str
    seat: int
    game: int


@dataclass(frozen=True)
class Gone:
    """The end of an entry's stream by the server: ``status`` (a LobbyError
    kind: "failed_precondition" a stalled seat, "resource_exhausted" room
    made for another address, "unauthenticated" the name's secret reset or
    the name forgotten) and why."""

    status: str
    message: str


Message = Assignment | Gone | None  # None: the stream ends OK (another took over)


class Entrant:
    """A name in the arena: its standing, its open stream (if any), where it
    waits or plays, the address it counts against."""

    def __init__(self, key: str, standing: Standing, address: str) -> None:
        self.key = key
        self.standing = standing
        self.address = address
        self.outbox: asyncio.Queue[Message] | None = None  # the open stream's
        self.since = 0.0  # when it joined the queue (loop time)
        self.assignment: Assignment | None = None  # the game it plays now
        self.restored = False  # from the server's file, not entered since: keeps its place

    @property
    def waiting(self) -> bool:
        """In the queue: a stream open and no game under way."""
        return self.outbox is not None and self.assignment is None


@dataclass
class ArenaGame:
    """An arena game under way: seat -> entrant key, and each seat's address."""

    seated: dict[int, str] = field(default_factory=dict)
    addresses: dict[int, str] = field(default_factory=dict)
    rated: bool = False  # rated before the server restarted: not again


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
        self.games: dict[str, ArenaGame] = {}  # by table id
        self.played = 0  # arena games started
        self._by_address: Counter[str] = Counter()
        self._timer: asyncio.TimerHandle | None = None
        #: keeps the queue and the games in the server's file, the book's
        #: own (:mod:`.durable`), or None
        self.journal: Journal | None = None
        self.restarting = False  # the server stops to start again: the queue is kept as is
        previous = lobby.on_finish

        def finished(table: Table) -> None:
            try:  # rated (and marked so in the file) before the game is stored
                self._finished(table)
            finally:
                if previous is not None:
                    previous(table)

        lobby.on_finish = finished

    # ----------------------------------------------------------- entering

    def enter(
        self, name: str, secret: str, client: str
    ) -> tuple[Entrant, asyncio.Queue[Message], str]:
        """Let ``name`` in (``client``: who asks, :func:`address_of` its
        address): ``(its entrant, the queue its stream reads, a new secret or
        "")``. A stream already open for the name is ended (a reconnection); a
        game under way is sent again at once. When the arena is full, the
        latest waiting entry of the address holding the most leaves to make
        room, if that is fair (:func:`.ratings.fair_to_take`). Raises
        LobbyError (a bad name, a wrong secret, a look-alike name, the
        address's share of the queue or of the book taken, the arena full,
        the server closing)."""
        if self.lobby.closing:
            raise LobbyError("unavailable", "the server is shutting down")
        self.sync()
        name = clean_name(name)
        key = name.casefold()
        address = address_of(client)
        entrant = self.entrants.get(key)
        evicted = None
        if entrant is None:
            share = self.settings.per_address
            mine = self._by_address[address]
            if mine >= share:
                raise LobbyError(
                    "resource_exhausted",
                    f"{share} entrants from your address are in the arena, its share",
                )
            if len(self.entrants) >= self.settings.max_entrants:
                evicted = self._to_make_room(mine)
                if evicted is None:
                    raise LobbyError(
                        "resource_exhausted",
                        f"the arena holds {self.settings.max_entrants} entrants",
                    )
        standing, new_secret = self.book.enter(name, secret, address, self.entrants)
        if evicted is not None:  # (only once the name is let in)
            self.drop(
                evicted,
                Gone(
                    "resource_exhausted",
                    "the arena is full: your address holds the most entries, and "
                    "this one made room for another address",
                ),
            )
        if entrant is None:
            entrant = self.entrants[key] = Entrant(key, standing, address)
            self._by_address[address] += 1
        elif entrant.outbox is not None:
            entrant.outbox.put_nowait(None)  # the old stream ends
        outbox: asyncio.Queue[Message] = asyncio.Queue()
        entrant.outbox = outbox
        if entrant.restored:  # its place in the queue, kept across the restart
            entrant.restored = False
        else:
            entrant.since = asyncio.get_running_loop().time()
            self._keep(entrant)
        if entrant.assignment is not None:
            if entrant.assignment.seat_token:  # (a restored game's: only its hash is known)
                outbox.put_nowait(entrant.assignment)
        else:
            try:
                self.pair()
            except BaseException:  # no stream will read the outbox: not left waiting
                self.left(entrant, outbox)
                raise
        return entrant, outbox, new_secret

    def _to_make_room(self, mine: int) -> Entrant | None:
        """The arena is full: the entry that leaves to make room for an
        address holding ``mine``, if that is fair (:func:`.ratings.fair_to_take`):
        the latest waiting entry of the address holding the most. None if none."""
        for address, most in self._by_address.most_common():
            if not fair_to_take(most, mine):
                return None
            for entrant in reversed(self.entrants.values()):
                if entrant.address == address and entrant.waiting:
                    return entrant
        return None

    def drop(self, entrant: Entrant, why: Gone) -> None:
        """``entrant`` leaves the arena now: its stream ends with ``why``; a
        game of it under way goes on without it (it is not sent again)."""
        log_every(
            logging.INFO, why.status, "arena: %s leaves: %s", entrant.standing.name, why.message
        )
        if entrant.outbox is not None:
            entrant.outbox.put_nowait(why)
            entrant.outbox = None
        entrant.assignment = None
        self._forget_if_idle(entrant)

    def left(self, entrant: Entrant, outbox: asyncio.Queue[Message]) -> None:
        """The stream that read ``outbox`` closed: out of the queue (a game
        under way goes on). An entrant with no stream and no game is dropped."""
        if entrant.outbox is not outbox:
            return  # a newer stream took over
        entrant.outbox = None
        self._forget_if_idle(entrant)

    def _forget_if_idle(self, entrant: Entrant) -> None:
        idle = entrant.outbox is None and entrant.assignment is None
        if idle and self.entrants.get(entrant.key) is entrant and not self.restarting:
            del self.entrants[entrant.key]
            self._by_address[entrant.address] -= 1
            if self._by_address[entrant.address] <= 0:
                del self._by_address[entrant.address]
            if self.journal is not None:
                self.journal.entrant_gone(entrant.key)

    def _keep(self, entrant: Entrant) -> None:
        """Keep ``entrant`` in the server's file, with when it joined the
        queue (as Unix time)."""
        if self.journal is not None:
            waited = asyncio.get_running_loop().time() - entrant.since
            self.journal.entrant(entrant.key, entrant.address, time.time() - waited)

    def sync(self) -> None:
        """Take the operator's changes to the book (a secret reset, a name
        forgotten): the entries of those names leave (UNAUTHENTICATED)."""
        for key in self.book.sync():
            entrant = self.entrants.get(key)
            if entrant is not None:
                self.drop(
                    entrant,
                    Gone(
                        "unauthenticated",
                        "the operator reset this name's secret or removed the name",
                    ),
                )

    # ------------------------------------------------------------ pairing

    def _group(self, waiting: list[Entrant]) -> list[Entrant]:
        """The next table's entrants: the longest waiting (``waiting[0]``)
        and those nearest it in rating (ties: who waited longer), one per
        address unless every one waiting has the same address."""
        first = waiting[0]
        alone = all(e.address == first.address for e in waiting)
        rest = sorted(
            waiting[1:],
            key=lambda e: (abs(e.standing.rating - first.standing.rating), e.since),
        )
        group, addresses = [first], {first.address}
        for entrant in rest:
            if len(group) == self.settings.seats:
                break
            if alone or entrant.address not in addresses:
                group.append(entrant)
                addresses.add(entrant.address)
        return group

    def pair(self) -> None:
        """Seat the waiting: full groups (:meth:`_group`) at once; a group
        short of seats, once its first has waited ``fill_after`` seconds, with
        server bots (if the operator allows it); the others wait."""
        settings = self.settings
        loop = asyncio.get_running_loop()
        waiting = sorted((e for e in self.entrants.values() if e.waiting), key=lambda e: e.since)
        fill = settings.fill_after
        while waiting:
            group = self._group(waiting)
            due = fill is not None and loop.time() >= waiting[0].since + fill
            if len(group) < settings.seats and not due:
                break
            if not self._seat(group):
                return
            waiting = [e for e in waiting if e not in group]
        if not waiting or fill is None:
            return
        due_at = waiting[0].since + fill
        if self._timer is None or self._timer.when() > due_at:
            if self._timer is not None:
                self._timer.cancel()
            self._timer = loop.call_at(due_at, self._fill)

    def _fill(self) -> None:
        self._timer = None
        self.pair()

    def _seat(self, group: list[Entrant]) -> bool:
        """Seat ``group`` (and server bots in the seats left) at a new strict
        table and start its game; False when the server has no room for a
        table (tried again in :data:`RETRY` seconds, or when a game ends)."""
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
                rematches=False,  # one game: its players are back in the queue after it
                on_give_up=self.given_up,
            )
        except LobbyError as err:
            log_every(
                logging.WARNING,
                "no-table",
                "the arena cannot open a table now (tried again in %gs): %s",
                RETRY,
                err,
            )
            if self._timer is None:
                self._timer = asyncio.get_running_loop().call_later(RETRY, self._fill)
            return False
        self.played += 1
        order = list(range(settings.seats))
        _shuffle(order)
        game = ArenaGame()
        tokens = []
        for entrant, seat in zip(group, order):
            # Counted apart from the name's seats at the lobby's tables: seats
            # held there under the name (by anyone) must not keep it from its
            # one arena seat.
            name = entrant.standing.name
            taken = table.join(name, seat, holder=holder_of(name, ARENA_OWNER))
            game.seated[seat] = entrant.key
            game.addresses[seat] = entrant.address
            tokens.append((entrant, taken.token))
        for i, seat in enumerate(order[len(group) :]):
            table.add_bot(make_bot("greedy", rules=self.rules), f"greedy-{i + 1}", seat)
        self.games[table.table_id] = game
        if self.journal is not None:
            self.journal.arena_game(table.table_id, game.seated, game.addresses, self.played)
        table.start()
        for (entrant, token), seat in zip(tokens, order):
            entrant.assignment = Assignment(table.table_id, token, seat, self.played)
            if entrant.outbox is not None:
                entrant.outbox.put_nowait(entrant.assignment)
        log.debug("arena game %d: %s", self.played, ", ".join(e.standing.name for e in group))
        return True

    def given_up(self, table: Table, seat: int, why: str) -> None:
        """A seat of an arena game was given up by the server (it stalled or
        stayed away: ``why``): its entry leaves the queue (FAILED_PRECONDITION)
        until it enters again."""
        game = self.games.get(table.table_id)
        key = game.seated.get(seat) if game is not None else None
        entrant = self.entrants.get(key) if key is not None else None
        if entrant is None or entrant.assignment is None:
            return
        if entrant.assignment.table_id != table.table_id:
            return
        self.drop(
            entrant,
            Gone(
                "failed_precondition",
                f"your seat at arena game {entrant.assignment.game} was given up ({why}; "
                f"the turn timer is {self.settings.turn_seconds}s): the game counts as a loss, "
                "and you left the queue: enter again to play",
            ),
        )

    # ------------------------------------------------------------ results

    def _finished(self, table: Table) -> None:
        """An arena game is over: rate it, and put its entrants back in the
        queue (those still connected)."""
        game = self.games.pop(table.table_id, None)
        if game is None:
            return
        self.sync()
        if not game.rated:
            self.rate_game(table, game)
        now = asyncio.get_running_loop().time()
        for key in game.seated.values():
            entrant = self.entrants.get(key)
            if entrant is None or entrant.assignment is None:
                continue
            if entrant.assignment.table_id != table.table_id:
                continue
            entrant.assignment = None
            entrant.since = now
            self._forget_if_idle(entrant)
            if self.entrants.get(key) is entrant:
                self._keep(entrant)
        self.pair()

    def rate_game(self, table: Table, game: ArenaGame) -> None:
        """Rate a finished arena game (RULES.md, "The arena": Ratings):

        * an address holding two seats or more: nobody is rated;
        * else, a seat played more by the server (the clock, a stand-in, the
          bot of a seat given up) than by its player, a seat that never
          acted included, is *absent*: if there is one, the absent seats
          alone are rated, each a loss below every other seat, against the
          others' ratings as they stand (the others gain nothing);
        * else every seat is rated: the winner first, the others second
          (tied), a seat given up or played by a stand-in at any point third.

        Server bots take part at a first rating and are never updated. A game
        with no winner (the server stopped) is not rated. With the server's
        file, the rating's transaction marks the game rated there
        (:meth:`.durable.Journal.rated_note`)."""
        outcome = table.game.outcome() if table.game is not None else None
        if outcome is None or not outcome.winners:
            return
        if len(set(game.addresses.values())) < len(game.addresses):
            return
        tally = table.history.tally()
        ranks: dict[str, int] = {}
        winners: set[str] = set()
        absent: set[str] = set()
        for seat, key in game.seated.items():
            own = tally.get((seat, ActionSource.PLAYER), 0)
            helped = tally.get((seat, ActionSource.STAND_IN), 0) + tally.get(
                (seat, ActionSource.BOT), 0
            )
            made = helped + tally.get((seat, ActionSource.TIMER), 0)
            if made > own:
                absent.add(key)
                ranks[key] = 4
            elif helped or not table.seats[seat].token:
                ranks[key] = 3  # it left its game: a loss below every other
            elif seat in outcome.winners:
                ranks[key] = 1
                winners.add(key)
            else:
                ranks[key] = 2
        bots = [
            1 if seat in outcome.winners else 2
            for seat in range(len(table.seats))
            if seat not in game.seated
        ]
        kept: dict[str, Any] = {}  # the file marks the game rated, in the rating's transaction
        if self.journal is not None:
            kept["note"] = self.journal.rated_note(table.table_id)
        if absent:
            ranks = {k: (4 if k in absent else min(r, 2)) for k, r in ranks.items()}
            self.book.rate(ranks, set(), bots, only=absent, **kept)
        else:
            self.book.rate(ranks, winners, bots, **kept)

    # ------------------------------------------------------------ standings

    def standings(self, limit: int = 0) -> list[tuple[Standing, bool, bool]]:
        """``(standing, waiting, playing)`` of every registered name, best first."""
        self.sync()
        self.book.release_unused(self.entrants)
        rows = []
        for standing in self.book.standings(limit):
            entrant = self.entrants.get(standing.name.casefold())
            waiting = entrant is not None and entrant.waiting
            playing = entrant is not None and entrant.assignment is not None
            rows.append((standing, waiting, playing))
        return rows

    # ------------------------------------------------------------ restarts

    def number_from(self, started: int) -> None:
        """``started`` arena games were started on the server's file before
        this run (:mod:`.restore`): the next is numbered ``started + 1``, so
        an arena game's number is never used twice on one file."""
        self.played = max(self.played, started)

    def readmit(self, key: str, address: str, since: float) -> None:
        """An entrant kept in the server's file (:mod:`.restore`): name
        ``key`` of ``address``, in the queue since ``since`` (Unix time). It
        keeps its place (or its game, :meth:`adopt_game`) until it enters
        again; one that does not within :data:`RESTORED_GRACE` seconds and
        has no game leaves. A name no longer in the book is not readmitted."""
        standing = self.book.standing.get(key)
        if standing is None or key in self.entrants:
            return
        loop = asyncio.get_running_loop()
        entrant = self.entrants[key] = Entrant(key, standing, address)
        entrant.since = loop.time() - max(0.0, time.time() - since)
        entrant.restored = True
        self._by_address[address] += 1
        loop.call_later(RESTORED_GRACE, self._forget_if_idle, entrant)

    def adopt_game(self, table_id: str, kept: dict[str, Any], rated: bool) -> None:
        """The table ``table_id``, restored from the server's file
        (:mod:`.restore`, made strict with :meth:`given_up` told of a seat
        given up), is the arena's game ``kept`` (its number, who holds each
        seat and their addresses): its entrants (readmitted) playing it, rated
        at its end unless ``rated`` already."""
        game = ArenaGame(
            {int(s): k for s, k in kept["seated"].items()},
            {int(s): a for s, a in kept["addresses"].items()},
            rated,
        )
        number = kept["number"]
        self.games[table_id] = game
        self.played = max(self.played, number)
        for seat, key in game.seated.items():
            entrant = self.entrants.get(key)
            if entrant is not None and entrant.assignment is None:
                # (its token is only a hash here: its client has it)
                entrant.assignment = Assignment(table_id, "", seat, number)
        if self.journal is not None:
            self.journal.arena_game(table_id, game.seated, game.addresses, number)

    def forget_game(self, table_id: str) -> None:
        """The arena game at ``table_id`` could not be restored (:mod:`.restore`):
        its entrants play it no more (those without a stream leave)."""
        game = self.games.pop(table_id, None)
        for key in game.seated.values() if game is not None else ():
            entrant = self.entrants.get(key)
            assignment = entrant.assignment if entrant is not None else None
            if entrant is not None and assignment is not None and assignment.table_id == table_id:
                entrant.assignment = None
                self._forget_if_idle(entrant)

    def close(self, restarting: bool = False) -> None:
        """The server stops: every stream ends, the book is closed.
        ``restarting``: the server starts again on its file, where the queue
        stays as it stands (else its entrants are forgotten there)."""
        self.restarting = restarting
        if self.journal is not None and not restarting:
            for key in self.entrants:
                self.journal.entrant_gone(key)
        if self._timer is not None:
            self._timer.cancel()
        for entrant in self.entrants.values():
            if entrant.outbox is not None:
                entrant.outbox.put_nowait(None)
        self.book.close()
