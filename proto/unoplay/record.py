"""A game's record: everything needed to play it again exactly, in the form
the server stores it and its clients replay and verify it.

A game is its seed, its rule set (``RuleSet.to_dict()``), its players and
every applied action in order. The engine is deterministic, so that is the
whole game: :func:`replay` deals again from the seed and applies the actions
(calling ``next_round`` whenever a round is over and another action follows),
reproducing every event, private ones included, and the scores. Beside it,
the commitment sent to the players and its salt, and every card dealt or
drawn as the players received it, so that :mod:`unoplay.audit` can check the
game against its seed (RULES.md, "Fair deals").

The server's SQLite store (``unoplay.server.storage``) writes and reads these
records; ``uno replay``, ``uno verify`` and ``uno match`` read them.
"""

from __future__ import annotations

import functools
import json
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from unoplay.game.actions import Action, ActionKind
from unoplay.game.engine import GameState
from unoplay.game.errors import IllegalAction
from unoplay.game.events import Event
from unoplay.game.rules import RuleSet
from unoplay.game.view import Termination

#: ``games.prng``: the chance source a game was dealt from.
PRNG = "shake256-v1"  # deals.DealRandom (fair deals, format 2)
LEGACY_PRNG = "mt19937"  # random.Random(int(seed)), format 1 games


@dataclass
class GameRecord:
    """Everything needed to replay one game exactly."""

    table_id: str
    title: str
    seed: str
    rules: dict[str, Any]
    players: list[dict[str, Any]]  # {"seat": i, "name": str, "bot": kind or ""}
    actions: list[tuple[int, Action]]  # (seat, action) in the order applied
    sources: list[str] = field(default_factory=list)  # per action: player/bot/stand_in/timer
    times_ms: list[int] = field(default_factory=list)  # per action: ms after the start
    scores: tuple[int, ...] = ()
    winners: tuple[int, ...] = ()
    status: str = "finished"
    started_at: float = 0.0
    finished_at: float = 0.0
    game_id: int | None = None  # set once stored
    salt: str = ""  # the commitment's salt ("" for format 1 games)
    commitment: str = ""  # the commitment the players got at the start
    #: Every card dealt or drawn as it was received: (actions applied before,
    #: EventKind value, player, cards), in order.
    received: list[tuple[int, int, int, tuple[int, ...]]] = field(default_factory=list)
    prng: str = PRNG

    def rule_set(self) -> RuleSet:
        """The rules as a :class:`RuleSet` (options missing from old records take
        the official value)."""
        return RuleSet.from_dict(self.rules)

    def new_game(self) -> tuple[GameState, list[Event]]:
        """The game as dealt at its start, from its seed and chance source."""
        rng = LegacyRandom(int(self.seed)) if self.prng == LEGACY_PRNG else None
        return GameState.new(len(self.players), self.rule_set(), self.seed, rng=rng)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON values: the store's columns of the game (``actions``: its
        row count; ``game_id``: ``id``), and ``moves``, its rows of the
        ``actions`` table in order: ``[seat, action, source, t_ms]`` with the
        action as the store writes it (``[kind, card, colour, uno, target]``
        and the extra cards of a multi-card play). ``uno match`` keeps its
        games' records in this form (:meth:`from_dict` reads it back)."""
        n = len(self.actions)
        sources = self.sources or ["player"] * n
        times = self.times_ms or [0] * n
        return {
            "id": self.game_id,
            "table_id": self.table_id,
            "title": self.title,
            "seed": str(self.seed),
            "rules": self.rules,
            "players": self.players,
            "scores": list(self.scores),
            "winners": list(self.winners),
            "status": self.status,
            "started_at": self.started_at,
            "finished_at": self.finished_at,
            "actions": n,
            "prng": self.prng,
            "salt": self.salt,
            "commitment": self.commitment,
            "received": received_rows(self.received),
            "moves": [
                [seat, action_fields(action), sources[i], times[i]]
                for i, (seat, action) in enumerate(self.actions)
            ],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameRecord:
        """The record of :meth:`to_dict`'s values. Raises KeyError or
        ValueError for values that are not such a record."""
        moves = data["moves"]
        if len(moves) != data["actions"]:
            raise ValueError(f"{len(moves)} of {data['actions']} actions in the record")
        return cls(
            table_id=data["table_id"],
            title=data["title"],
            seed=data["seed"],
            rules=data["rules"],
            players=data["players"],
            actions=[(seat, action_from_fields(a)) for seat, a, _, _ in moves],
            sources=[source for _, _, source, _ in moves],
            times_ms=[t for _, _, _, t in moves],
            scores=tuple(data["scores"]),
            winners=tuple(data["winners"]),
            status=data["status"],
            started_at=data["started_at"],
            finished_at=data["finished_at"],
            game_id=data.get("id"),
            prng=data["prng"],
            salt=data["salt"],
            commitment=data["commitment"],
            received=received_tuples(data["received"]),
        )


def received_rows(
    received: list[tuple[int, int, int, tuple[int, ...]]],
) -> list[list[Any]]:
    """The cards received as JSON rows: ``[step, event kind, player, [cards]]``."""
    return [[s, k, p, list(c)] for s, k, p, c in received]


def received_tuples(rows: list[list[Any]]) -> list[tuple[int, int, int, tuple[int, ...]]]:
    """:func:`received_rows`' rows as the record holds them."""
    return [(s, k, p, tuple(c)) for s, k, p, c in rows]


class LegacyRandom(random.Random):
    """The chance source of games stored before fair deals (format 1): Mersenne
    Twister, where the engine drew ``int(random() * n)``. Only for replays."""

    def below(self, n: int) -> int:
        """``int(random() * n)``, as the engine drew then."""
        return int(self.random() * n)

    def shuffle_steps(self, items: list[int], start: int, stop: int) -> None:
        """The engine's lazy Fisher-Yates steps of that time."""
        for i in range(start - 1, stop - 1, -1):
            j = int(self.random() * (i + 1))
            items[i], items[j] = items[j], items[i]

    def copy(self) -> LegacyRandom:
        """A generator at the same point."""
        other = LegacyRandom()
        other.setstate(self.getstate())
        return other


def action_fields(action: Action) -> list[Any]:
    """``[kind, card, colour, uno, target]``, plus the list of extra cards of a
    multi-card play (section 8) when there are any."""
    kind, card, colour, uno, target, extra = action
    fields: list[Any] = [int(kind), int(card), int(colour), bool(uno), int(target)]
    if extra:
        fields.append(list(extra))
    return fields


@functools.lru_cache(maxsize=4096)
def action_json(action: Action) -> str:
    """An action as the ``action`` column keeps it: JSON text of
    ``[kind, card, colour, uno, target]`` (plus a multi-card play's extra
    cards). Cached: a game repeats a few hundred distinct actions, and
    encoding them was half of a save."""
    return json.dumps(action_fields(action))


def action_from_json(text: str) -> Action:
    """The action of an ``action`` column's text (:func:`action_json`).
    Raises ValueError (a JSON error) for text that is not one."""
    return action_from_fields(json.loads(text))


def action_from_fields(fields: list[Any]) -> Action:
    """The action of :func:`action_fields`' list (a kind this engine does not
    know stays an int, for the replay to refuse)."""
    kind = fields[0]
    try:
        kind = ActionKind(kind)
    except ValueError:
        pass
    card, colour, uno, target = fields[1:5]
    return Action(kind, card, colour, uno, target, tuple(fields[5]) if len(fields) > 5 else ())


@dataclass(frozen=True, slots=True)
class ReplayStep:
    """One step of a replayed game: the deal (``index`` -1, no action), a new
    round's deal (``action`` None), or action number ``index`` by ``seat``;
    with every event it caused (private ones included, with their audience)."""

    index: int
    seat: int
    action: Action | None
    source: str
    events: tuple[Event, ...]


def replay(record: GameRecord) -> Iterator[ReplayStep]:
    """Play ``record`` again on a fresh engine, step by step.

    Raises ValueError if a stored action is refused (the record does not
    belong to this engine version); the engine's IllegalAction is a ValueError.
    """
    game, events = record.new_game()
    yield ReplayStep(-1, -1, None, "deal", tuple(events))
    sources = record.sources or ["player"] * len(record.actions)
    for i, (seat, action) in enumerate(record.actions):
        if game.is_round_over and not game.is_game_over:
            yield ReplayStep(i, -1, None, "deal", tuple(game.next_round()))
        yield ReplayStep(i, seat, action, sources[i], tuple(apply_recorded(game, seat, action)))


def apply_recorded(game: GameState, seat: int, action: Action) -> list[Event]:
    """``game.apply``, where a refusal that still cost cards (the
    wrong_play_penalty house rule: the events travel on the exception) counts
    as a step; any other refusal means the record does not fit this engine."""
    try:
        return game.apply(seat, action)
    except IllegalAction as err:
        events = getattr(err, "events", None)
        if events:
            return list(events)
        raise


def game_status(game: GameState) -> str:
    """A game's status for its record: "finished" (won), "capped" (a round or
    the game reached its cap: no winner) or "interrupted" (not over: the
    server stopped)."""
    outcome = game.outcome()
    if outcome is None:
        return "interrupted"
    return "capped" if outcome.termination is Termination.ROUND_CAPPED else "finished"


def final_state(record: GameRecord) -> GameState:
    """The engine state after every stored action."""
    game, _ = record.new_game()
    for seat, action in record.actions:
        if game.is_round_over and not game.is_game_over:
            game.next_round()
        apply_recorded(game, seat, action)
    return game
