"""The arena's book: the names registered in it, their secrets, their
ratings (server/RULES.md, "The arena").

A name is registered by its first entry, with a secret the server makes and
the client keeps; only a SHA-256 of the secret is kept here. Ratings are
OpenSkill's Plackett-Luce model over every arena game; the standings rank by
``mu - 3 sigma``. With a path, the book lives in that SQLite file (the one
``uno serve`` stores its games in, a table of its own) and lasts from one
run to the next; without, in memory.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

from .seats import LobbyError

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
)
"""


@dataclass
class Standing:
    """One name's record: games finished and won, the skill estimate ``mu``
    and its uncertainty ``sigma`` (OpenSkill units: 25 and 8.33 at first)."""

    name: str
    games: int = 0
    wins: int = 0
    mu: float = _MODEL.mu
    sigma: float = _MODEL.sigma

    @property
    def rating(self) -> float:
        """``mu - 3 sigma``: what the standings rank by."""
        return self.mu - 3 * self.sigma


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


class ArenaBook:
    """Registered names, their secrets' digests and their standings. ``path``:
    the SQLite file (None: in memory only); ``max_names``: names it registers
    at most."""

    def __init__(self, path: str | None = None, max_names: int = 10_000) -> None:
        self.max_names = max_names
        self.path = path
        self._db: sqlite3.Connection | None = None
        self.standing: dict[str, Standing] = {}
        if path is None or os.path.exists(path):  # (a new file is made with the first name)
            for key, name, mu, sigma, games, wins in self.db.execute(
                "SELECT key, name, mu, sigma, games, wins FROM arena_names"
            ):
                self.standing[key] = Standing(name, games, wins, mu, sigma)

    @property
    def db(self) -> sqlite3.Connection:
        """The book's SQLite connection, opened (and the file and its
        directory made) on first use."""
        if self._db is None:
            if self.path is not None:
                os.makedirs(os.path.dirname(os.path.abspath(self.path)), exist_ok=True)
            self._db = sqlite3.connect(self.path or ":memory:", timeout=5.0)
            self._db.execute(_SCHEMA)
            self._db.commit()
        return self._db

    def enter(self, name: str, secret: str) -> tuple[Standing, str]:
        """Let ``name`` in with ``secret``: ``(its standing, "")``, or for a
        name not registered yet (and an empty ``secret``) ``(a new standing,
        the new secret)``. Raises LobbyError: "unauthenticated" for a wrong
        secret (or a secret given for a name nobody registered),
        "resource_exhausted" when the book is full."""
        key = name.casefold()
        row = self.db.execute(
            "SELECT secret_sha256 FROM arena_names WHERE key = ?", (key,)
        ).fetchone()
        if row is not None and row[0] == "" and not secret:  # reset by the operator
            new_secret = secrets.token_urlsafe(16)
            self.db.execute(
                "UPDATE arena_names SET secret_sha256 = ? WHERE key = ?", (_digest(new_secret), key)
            )
            self.db.commit()
            return self.standing[key], new_secret
        if row is not None:
            if not hmac.compare_digest(row[0], _digest(secret)):
                raise LobbyError(
                    "unauthenticated", f"{name!r} is registered in this arena with another secret"
                )
            return self.standing[key], ""
        if secret:
            raise LobbyError(
                "unauthenticated", f"{name!r} is not registered here: enter without a secret"
            )
        if len(self.standing) >= self.max_names:
            raise LobbyError("resource_exhausted", f"this arena has {self.max_names} names")
        new_secret = secrets.token_urlsafe(16)
        standing = self.standing[key] = Standing(name)
        self.db.execute(
            "INSERT INTO arena_names (key, name, secret_sha256, mu, sigma) VALUES (?, ?, ?, ?, ?)",
            (key, name, _digest(new_secret), standing.mu, standing.sigma),
        )
        self.db.commit()
        return standing, new_secret

    def rate(self, ranks: dict[str, int], winners: set[str], unrated: Sequence[int] = ()) -> None:
        """One arena game's result: ``ranks`` maps each rated name (its key)
        to its rank (1 best; equal ranks tie); ``winners`` are the keys that
        won it; ``unrated``: the ranks of the seats no rated name held
        (server bots, at a first rating each time). Updates and stores every
        rated standing."""
        keys = list(ranks)
        if not keys or len(keys) + len(unrated) < 2:
            return
        teams = [
            [_MODEL.rating(mu=self.standing[k].mu, sigma=self.standing[k].sigma)] for k in keys
        ]
        teams += [[_MODEL.rating()] for _ in unrated]
        order = [float(ranks[k]) for k in keys] + [float(r) for r in unrated]
        rated = _MODEL.rate(teams, ranks=order)
        for key, (player,) in zip(keys, rated):
            standing = self.standing[key]
            standing.mu, standing.sigma = player.mu, player.sigma
            standing.games += 1
            standing.wins += key in winners
            self.db.execute(
                "UPDATE arena_names SET mu = ?, sigma = ?, games = ?, wins = ? WHERE key = ?",
                (standing.mu, standing.sigma, standing.games, standing.wins, key),
            )
        self.db.commit()

    def standings(self, limit: int = 0) -> list[Standing]:
        """Every standing, best rating first (at most ``limit``; 0: all)."""
        rows = sorted(self.standing.values(), key=lambda s: (-s.rating, s.name.casefold()))
        return rows[:limit] if limit else rows

    def close(self) -> None:
        """Close the file (if it was opened)."""
        if self._db is not None:
            self._db.close()
            self._db = None


def reset_secret(path: str, name: str) -> bool:
    """The operator's reset of ``name``'s secret in the book at ``path``: the
    next entry under the name registers a new one (its standing stays).
    Returns False when no such name is registered."""
    db = sqlite3.connect(path, timeout=5.0)
    try:
        db.execute(_SCHEMA)
        done = db.execute(
            "UPDATE arena_names SET secret_sha256 = '' WHERE key = ?", (name.casefold(),)
        ).rowcount
        db.commit()
        return bool(done)
    finally:
        db.close()
