"""The arena's book: the names registered in it, their secrets, their
ratings (server/RULES.md, "The arena").

A name is registered by its first entry, with a secret the server makes and
the client keeps; only a SHA-256 of the secret is kept here. A new name that
looks like a registered one (:func:`.names.lookalike_key`) is refused. Each
name remembers the address that registered it (an address registers a share
of the book, counted in the file: across restarts) and when it was last
used; names unused for ``forget_after`` seconds are released, and a full
book makes room for a newcomer's name from the address holding the most.
Ratings are OpenSkill's Plackett-Luce model over the rated arena games; the
standings rank by ``mu - 3 sigma`` and count each name's distinct opponents.

With a path, the book lives in that SQLite file (the one ``uno serve``
stores its games in, tables of their own) and lasts from one run to the
next; without, in memory. The operator's tools (:func:`reset_secret`,
:func:`forget_name`) write the file while the server runs; the server reads
their changes at its next entry, standings or game end (:meth:`ArenaBook.sync`).
"""

from __future__ import annotations

import hashlib
import hmac
import math
import os
import secrets
import sqlite3
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any

from openskill.models import PlackettLuce

from unoplay.protocol import LobbyError

from .names import lookalike_key

_MODEL = PlackettLuce()
_SCHEMA = """
CREATE TABLE IF NOT EXISTS arena_names (
    key TEXT PRIMARY KEY,  -- the name, case-folded
    name TEXT NOT NULL,  -- as first entered
    secret_sha256 TEXT NOT NULL,
    mu REAL NOT NULL,
    sigma REAL NOT NULL,
    games INTEGER NOT NULL DEFAULT 0,
    wins INTEGER NOT NULL DEFAULT 0
);
-- the distinct names each name met in rated games (up to OPPONENTS_COUNTED)
CREATE TABLE IF NOT EXISTS arena_opponents (
    key TEXT NOT NULL,
    opponent TEXT NOT NULL,
    PRIMARY KEY (key, opponent)
) WITHOUT ROWID;
-- bumped by the operator's tools: a running server reloads the names
CREATE TABLE IF NOT EXISTS arena_changes (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    changes INTEGER NOT NULL
);
"""
#: columns added since the first book (a book of an older version gets them)
_COLUMNS = (
    ("last_used", "REAL NOT NULL DEFAULT 0"),  # unix time of its last entry or rated game
    ("registered_by", "TEXT NOT NULL DEFAULT ''"),  # the registering address ("" if unknown)
    ("opponents", "INTEGER NOT NULL DEFAULT 0"),  # distinct opponents in rated games
)
_INDEXES = """
CREATE INDEX IF NOT EXISTS arena_names_by_address ON arena_names (registered_by, last_used);
CREATE INDEX IF NOT EXISTS arena_names_by_use ON arena_names (last_used);
"""
#: the book's share an address may register: 1/NAME_SHARES of its names
NAME_SHARES = 128
#: distinct opponents a standing needs to stop being provisional
PROVISIONAL_OPPONENTS = 5
#: distinct opponents counted (and kept in the file) per name at most
OPPONENTS_COUNTED = 100
#: seconds between two looks for unused names; and a name's last use is
#: written at most this often (an entry a second must not write each)
RELEASE_EVERY = 60.0


@dataclass
class Standing:
    """One name's record: rated games finished and won, the skill estimate
    ``mu`` and its uncertainty ``sigma`` (OpenSkill units: 25 and 8.33 at
    first), and the distinct names met in rated games (up to
    :data:`OPPONENTS_COUNTED`)."""

    name: str
    games: int = 0
    wins: int = 0
    mu: float = _MODEL.mu
    sigma: float = _MODEL.sigma
    opponents: int = 0

    @property
    def rating(self) -> float:
        """``mu - 3 sigma``: what the standings rank by."""
        return self.mu - 3 * self.sigma

    @property
    def provisional(self) -> bool:
        """True while the name met fewer than :data:`PROVISIONAL_OPPONENTS`
        distinct opponents in rated games (its rating says little yet)."""
        return self.opponents < PROVISIONAL_OPPONENTS


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def fair_to_take(most: int, mine: int) -> bool:
    """Whether an address holding ``mine`` of a full capacity may take one
    from the address holding the ``most``: only when that leaves it holding
    no more than the other (max-min fairness, no flip-flop)."""
    return most >= mine + 2


def _connect(path: str | None) -> sqlite3.Connection:
    """The book's tables in the SQLite file at ``path`` (None: in memory),
    made or brought up to date (older books get the columns added since;
    their names count as used now)."""
    if path is not None:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    db = sqlite3.connect(path or ":memory:", timeout=5.0)
    db.executescript(_SCHEMA)
    have = {row[1] for row in db.execute("PRAGMA table_info(arena_names)")}
    for column, kind in _COLUMNS:
        if column not in have:
            db.execute(f"ALTER TABLE arena_names ADD COLUMN {column} {kind}")
    db.execute("UPDATE arena_names SET last_used = ? WHERE last_used = 0", (time.time(),))
    db.executescript(_INDEXES)
    db.commit()
    return db


def _changed(db: sqlite3.Connection) -> None:
    """Tell a running server the names changed (:meth:`ArenaBook.sync`)."""
    db.execute(
        "INSERT INTO arena_changes (id, changes) VALUES (1, 1) "
        "ON CONFLICT (id) DO UPDATE SET changes = changes + 1"
    )


class ArenaBook:
    """Registered names, their secrets' digests and their standings.

    ``path``: the SQLite file (None: in memory only); ``max_names``: names it
    registers at most; ``per_address``: names one address may have
    registered (None: 1/:data:`NAME_SHARES` of ``max_names``, at least 1);
    ``forget_after``: seconds a name may go unused before it is released
    (None: never); ``clock``: unix time in seconds (tests set their own)."""

    def __init__(
        self,
        path: str | None = None,
        max_names: int = 10_000,
        per_address: int | None = None,
        forget_after: float | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.max_names = max_names
        self.per_address = per_address or max(1, max_names // NAME_SHARES)
        self.forget_after = forget_after
        self.clock = clock
        self.path = path
        self._db: sqlite3.Connection | None = None
        self.standing: dict[str, Standing] = {}
        self._used: dict[str, float] = {}  # key -> last use (unix time)
        self._digests: dict[str, str] = {}  # key -> its secret's digest, as last read
        self._looks: dict[str, str] = {}  # lookalike key -> name key
        self._version: tuple[int, int] = (-1, -1)  # the file's data version, changes
        self._released_at = -math.inf
        if path is None or os.path.exists(path):  # (a new file is made with the first name)
            self.sync()

    @property
    def db(self) -> sqlite3.Connection:
        """The book's SQLite connection, opened (and the file and its
        directory made) on first use."""
        if self._db is None:
            self._db = _connect(self.path)
        return self._db

    # ------------------------------------------------------------ reading

    def sync(self) -> set[str]:
        """Read the names again if the operator's tools changed them since
        the last look (:func:`reset_secret`, :func:`forget_name`); returns
        the keys whose secret changed or that are gone (their entrants must
        leave). Cheap when nothing changed: one pragma."""
        db = self.db
        data = db.execute("PRAGMA data_version").fetchone()[0]
        if data == self._version[0]:
            return set()
        row = db.execute("SELECT changes FROM arena_changes WHERE id = 1").fetchone()
        changes = row[0] if row else 0
        first = self._version[1] < 0
        if changes == self._version[1]:
            self._version = (data, changes)
            return set()
        self._version = (data, changes)
        return self._load(first)

    def _load(self, first: bool) -> set[str]:
        rows = self.db.execute(
            "SELECT key, name, secret_sha256, mu, sigma, games, wins, opponents, last_used "
            "FROM arena_names"
        ).fetchall()
        changed: set[str] = set()
        digests: dict[str, str] = {}
        for key, name, digest, mu, sigma, games, wins, opponents, used in rows:
            standing = self.standing.get(key)
            if standing is None:
                self.standing[key] = Standing(name, games, wins, mu, sigma, opponents)
            else:  # in place: the arena's entrants hold these
                standing.name, standing.games, standing.wins = name, games, wins
                standing.mu, standing.sigma, standing.opponents = mu, sigma, opponents
            if not first and self._digests.get(key, digest) != digest:
                changed.add(key)
            digests[key] = digest
            self._used[key] = used
        for key in set(self.standing) - set(digests):
            changed.add(key)
            del self.standing[key]
            self._used.pop(key, None)
        self._digests = digests
        self._looks = {lookalike_key(s.name): key for key, s in self.standing.items()}
        return changed

    # ------------------------------------------------------------ entering

    def enter(
        self, name: str, secret: str, address: str, in_use: Collection[str] = ()
    ) -> tuple[Standing, str]:
        """Let ``name`` in with ``secret``: ``(its standing, "")``, or for a
        name not registered yet (and an empty ``secret``) ``(a new standing,
        the new secret)``, registered by ``address``. ``in_use``: the keys of
        names in the arena now (never released to make room).

        Raises LobbyError: "unauthenticated" for a wrong secret (or a secret
        given for a name nobody registered), or a new name that looks like a
        registered one (:func:`.names.lookalike_key`); "resource_exhausted"
        when ``address`` registered its share (:attr:`per_address`, names
        still in the book) or the book is full and no address holds more
        than its fair share (:func:`fair_to_take`)."""
        key = name.casefold()
        now = self.clock()
        row = self.db.execute(
            "SELECT secret_sha256 FROM arena_names WHERE key = ?", (key,)
        ).fetchone()
        if row is not None:
            # (a digest of "" left by an older reset matches no secret: the
            # name waits for the operator's new one, never for the first comer)
            if not hmac.compare_digest(row[0], _digest(secret)):
                raise LobbyError(
                    "unauthenticated", f"{name!r} is registered in this arena with another secret"
                )
            self._use(key, now)
            return self.standing[key], ""
        if secret:
            raise LobbyError(
                "unauthenticated", f"{name!r} is not registered here: enter without a secret"
            )
        look = lookalike_key(name)
        twin = self._looks.get(look)
        if twin is not None and twin in self.standing:
            raise LobbyError(
                "unauthenticated",
                f"{name!r} looks like {self.standing[twin].name!r}, a name registered "
                "in this arena: choose another",
            )
        self.release_unused(in_use)
        mine = self._registered_by(address)
        if mine >= self.per_address:
            raise LobbyError(
                "resource_exhausted",
                f"your address has registered {self.per_address} names in this arena",
            )
        if len(self.standing) >= self.max_names and not self._make_room(address, mine, in_use):
            raise LobbyError("resource_exhausted", f"this arena has {self.max_names} names")
        new_secret = secrets.token_urlsafe(16)
        standing = self.standing[key] = Standing(name)
        self._digests[key] = digest = _digest(new_secret)
        self._looks[look] = key
        self._used[key] = now
        self.db.execute(
            "INSERT INTO arena_names (key, name, secret_sha256, mu, sigma, last_used, "
            "registered_by) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (key, name, digest, standing.mu, standing.sigma, now, address),
        )
        self.db.commit()
        return standing, new_secret

    def _use(self, key: str, now: float) -> None:
        """``key`` was used now (its last use written at most every
        :data:`RELEASE_EVERY` seconds)."""
        if now - self._used.get(key, 0.0) >= RELEASE_EVERY:
            self._used[key] = now
            self.db.execute("UPDATE arena_names SET last_used = ? WHERE key = ?", (now, key))
            self.db.commit()

    def _registered_by(self, address: str) -> int:
        row = self.db.execute(
            "SELECT COUNT(*) FROM arena_names WHERE registered_by = ?", (address,)
        ).fetchone()
        return int(row[0])

    def _make_room(self, address: str, mine: int, in_use: Collection[str]) -> bool:
        """The book is full: release the least recently used name (not in the
        arena now) of the address that registered the most, if that is fair
        to ``address`` holding ``mine`` (:func:`fair_to_take`). True if done."""
        row = self.db.execute(
            "SELECT registered_by, COUNT(*) AS n FROM arena_names WHERE registered_by != '' "
            "AND registered_by != ? GROUP BY registered_by ORDER BY n DESC LIMIT 1",
            (address,),
        ).fetchone()
        if row is None or not fair_to_take(row[1], mine):
            return False
        for (key,) in self.db.execute(
            "SELECT key FROM arena_names WHERE registered_by = ? ORDER BY last_used", (row[0],)
        ).fetchall():
            if key not in in_use:
                self._release([key])
                return True
        return False

    def release_unused(self, in_use: Collection[str] = (), force: bool = False) -> list[str]:
        """Release every name unused for :attr:`forget_after` seconds (not in
        the arena now: ``in_use``), at most once per :data:`RELEASE_EVERY`
        seconds unless ``force``; returns their keys."""
        now = self.clock()
        if self.forget_after is None or (not force and now - self._released_at < RELEASE_EVERY):
            return []
        self._released_at = now
        cutoff = now - self.forget_after
        stale = [k for k, used in self._used.items() if used < cutoff and k not in in_use]
        self._release(stale)
        return stale

    def _release(self, keys: Sequence[str]) -> None:
        """Forget ``keys`` (their names, secrets, standings and opponents)."""
        if not keys:
            return
        for key in keys:
            standing = self.standing.pop(key, None)
            self._used.pop(key, None)
            self._digests.pop(key, None)
            if standing is not None:
                look = lookalike_key(standing.name)
                if self._looks.get(look) == key:
                    del self._looks[look]
        self.db.executemany("DELETE FROM arena_names WHERE key = ?", [(k,) for k in keys])
        self.db.executemany("DELETE FROM arena_opponents WHERE key = ?", [(k,) for k in keys])
        self.db.commit()

    # ------------------------------------------------------------ rating

    def rate(
        self,
        ranks: dict[str, int],
        winners: set[str],
        unrated: Sequence[int] = (),
        only: Collection[str] | None = None,
        note: tuple[str, Sequence[Any]] | None = None,
    ) -> None:
        """One arena game's result: ``ranks`` maps each named seat's key to
        its rank (1 best; equal ranks tie); ``winners`` are the keys that won
        it; ``unrated``: the ranks of the seats no name held (server bots, at
        a first rating each time). ``only``: the keys whose standing this
        game updates (None: all of ``ranks``); the others take part at their
        ratings as they stand and keep them. Updates and stores each updated
        standing, its games, wins and distinct opponents (names not in the
        book any more are left out). ``note``: a statement (SQL, parameters)
        run in the same transaction (the server's file marks the game rated:
        :meth:`.durable.Journal.rated_note`)."""
        ranks = {k: r for k, r in ranks.items() if k in self.standing}
        keys = list(ranks)
        updated = set(keys) if only is None else set(only) & set(keys)
        if not updated or len(keys) + len(unrated) < 2:
            return
        teams = [
            [_MODEL.rating(mu=self.standing[k].mu, sigma=self.standing[k].sigma)] for k in keys
        ]
        teams += [[_MODEL.rating()] for _ in unrated]
        order = [float(ranks[k]) for k in keys] + [float(r) for r in unrated]
        rated = _MODEL.rate(teams, ranks=order)
        now = self.clock()
        db = self.db
        if note is not None:
            db.execute(*note)
        for key, (player,) in zip(keys, rated):
            if key not in updated:
                continue
            standing = self.standing[key]
            standing.mu, standing.sigma = player.mu, player.sigma
            standing.games += 1
            standing.wins += key in winners
            for other in keys:
                if other != key and standing.opponents < OPPONENTS_COUNTED:
                    standing.opponents += db.execute(
                        "INSERT OR IGNORE INTO arena_opponents (key, opponent) VALUES (?, ?)",
                        (key, other),
                    ).rowcount
            self._used[key] = now
            db.execute(
                "UPDATE arena_names SET mu = ?, sigma = ?, games = ?, wins = ?, opponents = ?, "
                "last_used = ? WHERE key = ?",
                (
                    standing.mu,
                    standing.sigma,
                    standing.games,
                    standing.wins,
                    standing.opponents,
                    now,
                    key,
                ),
            )
        db.commit()

    def standings(self, limit: int = 0) -> list[Standing]:
        """Every standing, best rating first (at most ``limit``; 0: all)."""
        rows = sorted(self.standing.values(), key=lambda s: (-s.rating, s.name.casefold()))
        return rows[:limit] if limit else rows

    def close(self) -> None:
        """Close the file (if it was opened)."""
        if self._db is not None:
            self._db.close()
            self._db = None


# ------------------------------------------------------------ the operator's tools


def reset_secret(path: str, name: str) -> str | None:
    """The operator's reset of ``name``'s secret in the book at ``path``: a
    new secret, returned for the operator to hand to the name's owner (only
    it enters from now on; the standing stays; a running server ends the
    streams entered with the old one). None when no such name is registered.
    The name is never open to whoever enters first."""
    db = _connect(path)
    try:
        secret = secrets.token_urlsafe(16)
        done = db.execute(
            "UPDATE arena_names SET secret_sha256 = ? WHERE key = ?",
            (_digest(secret), name.casefold()),
        ).rowcount
        if done:
            _changed(db)
        db.commit()
        return secret if done else None
    finally:
        db.close()


def forget_name(path: str, name: str) -> bool:
    """The operator's removal of ``name`` from the book at ``path`` (its
    secret, standing and opponents): anyone may register it again (a running
    server ends its streams). False when no such name is registered."""
    db = _connect(path)
    try:
        key = name.casefold()
        done = db.execute("DELETE FROM arena_names WHERE key = ?", (key,)).rowcount
        db.execute("DELETE FROM arena_opponents WHERE key = ?", (key,))
        if done:
            _changed(db)
        db.commit()
        return bool(done)
    finally:
        db.close()
