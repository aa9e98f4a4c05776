"""``uno replay``: a stored game, replayed by the engine, as JSON Lines or as
a move list for people.

The store holds only the seed, the rules, the players and the actions; every
event shown here is produced again by the engine (server/storage.py). The
last line (or paragraph) compares the replayed scores with the stored ones.
The JSON Lines export also carries the deal commitment, its salt and every
card received as it was received, so ``uno verify FILE`` can check it
(client/verify.py).
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, TextIO

from unoplay.client.tui.render import action_words
from unoplay.game.actions import Action
from unoplay.game.cards import card_name
from unoplay.game.events import EVERYONE, Event, EventKind
from unoplay.game.view import PlayerView
from unoplay.protocol import ActionSource
from unoplay.record import GameRecord, ReplayStep, apply_recorded, replay

#: Colour names by value, as the export writes them.
COLOURS = ("red", "yellow", "green", "blue")


def _colour(value: int) -> str | None:
    return COLOURS[value] if 0 <= value <= 3 else None


def event_dict(event: Event) -> dict:
    """An event as plain JSON values (private events name their only audience)."""
    kind = event.kind.name if isinstance(event.kind, EventKind) else int(event.kind)
    return {
        "kind": kind,
        "player": event.player,
        "audience": "everyone" if event.audience == EVERYONE else event.audience,
        "cards": list(event.cards),
        "card_names": [card_name(c) for c in event.cards],
        "count": event.count,
        "colour": _colour(event.colour),
        "target": event.target,
        "value": event.value,
    }


def action_dict(step: ReplayStep) -> dict:
    action = step.action
    assert action is not None
    kind = getattr(action.kind, "name", int(action.kind))
    return {
        "kind": kind,
        "card": action.card,
        "colour": _colour(action.colour),
        "uno": bool(action.uno),
        "target": action.target,
        "extra": list(action.extra),
    }


def jsonl_lines(record: GameRecord) -> Iterator[str]:
    """One JSON document per line: the game, then per step its action (if any)
    and every event it caused, then the result."""
    names = {p["seat"]: p["name"] for p in record.players}
    yield json.dumps(
        {
            "type": "game",
            "id": record.game_id,
            "table_id": record.table_id,
            "title": record.title,
            "seed": record.seed,
            "rules": record.rules,
            "players": record.players,
            "status": record.status,
            "started_at": record.started_at,
            "finished_at": record.finished_at,
            "actions": len(record.actions),
            "prng": record.prng,
            "commitment": record.commitment,
            "salt": record.salt,
            "received": [
                [step, EventKind(kind).name, player, list(cards)]
                for step, kind, player, cards in record.received
            ],
        }
    )
    last = None
    for step in replay(record):
        last = step
        if step.action is not None:
            i = step.index
            yield json.dumps(
                {
                    "type": "action",
                    "n": i,
                    "seat": step.seat,
                    "name": names.get(step.seat, ""),
                    "source": step.source,
                    "t_ms": record.times_ms[i] if i < len(record.times_ms) else None,
                    "action": action_dict(step),
                    "label": step.action.describe(),
                }
            )
        else:
            yield json.dumps({"type": "deal", "before_action": step.index})
        for event in step.events:
            yield json.dumps({"type": "event", "step": step.index, **event_dict(event)})
    scores = _final_scores(record)
    yield json.dumps(
        {
            "type": "result",
            "scores": list(scores),
            "stored_scores": list(record.scores),
            "winners": list(record.winners),
            "matches": tuple(scores) == tuple(record.scores),
            "steps": 0 if last is None else last.index + 1,
        }
    )


def _final_scores(record: GameRecord) -> tuple[int, ...]:
    from unoplay.record import final_state

    return final_state(record).scores


def _describe(event: Event, names: dict[int, str]) -> str | None:
    """A short public sentence for the events worth showing in a move list."""
    k = event.kind
    who = names.get(event.player, f"seat {event.player + 1}")
    if k is EventKind.ROUND_STARTED:
        return f"round {event.value}: {who} deals"
    if k is EventKind.STARTER_FLIPPED:
        return f"starter {card_name(event.cards[0])}"
    if k is EventKind.DREW and event.count:
        return f"{who} draws {event.count}"
    if k is EventKind.SKIPPED:
        return f"{who} is skipped"
    if k is EventKind.DIRECTION_CHANGED:
        return "direction " + ("clockwise" if event.value == 1 else "counter-clockwise")
    if k is EventKind.UNO_CALLED:
        return f"{who} calls UNO"
    if k is EventKind.UNO_CAUGHT:
        return f"{who} catches {names.get(event.target, f'seat {event.target + 1}')}"
    if k is EventKind.CHALLENGED:
        return f"challenge: {'guilty' if event.value else 'not guilty'}"
    if k is EventKind.DECK_RESHUFFLED:
        return f"reshuffled {event.count} cards"
    if k is EventKind.ROUND_OVER:
        return f"{who} wins the round, +{event.value}"
    if k is EventKind.GAME_OVER:
        return f"{who} wins the game"
    return None


def write_move_list(record: GameRecord, out: TextIO) -> None:
    """The game move by move, for people."""
    names = {p["seat"]: p["name"] for p in record.players}
    rules = ", ".join(f"{k}={v}" for k, v in sorted(record.rules.items()))
    out.write(
        f"game {record.game_id} at table {record.table_id} ({record.title}), "
        f"{record.status}, seed {record.seed}\n"
    )
    out.write(
        "players: "
        + ", ".join(
            f"{p['seat'] + 1} {p['name']}" + (f" ({p['bot']} bot)" if p.get("bot") else "")
            for p in record.players
        )
        + "\n"
    )
    out.write(f"rules: {rules}\n")
    for step in replay(record):
        notes = [text for e in step.events if (text := _describe(e, names))]
        if step.action is None:
            for note in notes:
                out.write(f"-- {note}\n")
            continue
        who = names.get(step.seat, f"seat {step.seat + 1}")
        by = "" if step.source == ActionSource.PLAYER else f" [{step.source}]"
        said = action_words(step.action, [names.get(i, "") for i in range(len(record.players))])
        line = f"{step.index + 1:4d}. {who}{by}: {said}"
        if notes:
            line += "  (" + "; ".join(notes) + ")"
        out.write(line + "\n")
    scores = _final_scores(record)
    out.write("scores: " + ", ".join(f"{names.get(i, i)} {s}" for i, s in enumerate(scores)))
    out.write(
        "  (as stored)\n"
        if tuple(scores) == tuple(record.scores)
        else f"  (stored: {list(record.scores)}: MISMATCH)\n"
    )


def game_rows(games: list[dict[str, Any]]) -> list[tuple[str, ...]]:
    """The list's cells for stored games (``GameStore.games``): id, date,
    table id, title, players, winner, scores, status, actions."""
    rows: list[tuple[str, ...]] = []
    for g in games:
        names = [p["name"] for p in g["players"]]
        when = (
            datetime.datetime.fromtimestamp(g["started_at"]).strftime("%Y-%m-%d %H:%M")
            if g.get("started_at")
            else "-"
        )
        winners = " and ".join(names[w] for w in g.get("winners") or () if 0 <= w < len(names))
        rows.append(
            (
                str(g["id"]),
                when,
                g["table_id"],
                g.get("title") or "",
                ", ".join(names),
                winners or "-",
                " ".join(str(s) for s in g["scores"]),
                g["status"],
                str(g["actions"]),
            )
        )
    return rows


#: The columns of :func:`game_rows`.
GAME_COLUMNS = (
    "Game",
    "Date",
    "Table",
    "Title",
    "Players",
    "Winner",
    "Scores",
    "Status",
    "Actions",
)


def write_game_list(games: list[dict], out: TextIO) -> None:
    """Stored games, newest first, under a header."""
    if not games:
        out.write("no stored games\n")
        return
    rows = [GAME_COLUMNS, *game_rows(games)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(GAME_COLUMNS))]
    for row in rows:
        out.write("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() + "\n")


@dataclass(frozen=True)
class Frame:
    """The table after ``step`` actions of a stored game (0: as dealt): every
    seat's view, and how many of the game's events (:attr:`Frames.events`)
    had happened. ``seat``, ``action`` and ``source`` say what the step was
    (-1, None, "deal" for the deal)."""

    step: int
    seat: int
    action: Action | None
    source: str
    views: tuple[PlayerView, ...]
    events: int


@dataclass(frozen=True)
class Frames:
    """A stored game played again for stepping through: a :class:`Frame` per
    action (and one for the deal) and every event in order, private ones with
    their audience."""

    record: GameRecord
    frames: tuple[Frame, ...]
    events: tuple[Event, ...]

    @classmethod
    def of(cls, record: GameRecord) -> Frames:
        """Replay ``record`` on the engine (ValueError if it does not fit it)."""
        game, dealt = record.new_game()
        events = list(dealt)
        players = range(len(record.players))

        def views() -> tuple[PlayerView, ...]:
            return tuple(game.view(p) for p in players)

        frames = [Frame(0, -1, None, "deal", views(), len(events))]
        sources = record.sources or ["player"] * len(record.actions)
        for i, (seat, action) in enumerate(record.actions):
            if game.is_round_over and not game.is_game_over:
                events.extend(game.next_round())
            events.extend(apply_recorded(game, seat, action))
            frames.append(Frame(i + 1, seat, action, sources[i], views(), len(events)))
        return cls(record, tuple(frames), tuple(events))

    def events_for(self, frame: Frame, seat: int) -> list[Event]:
        """The events up to ``frame`` that ``seat`` saw (-1: the public ones)."""
        return [e for e in self.events[: frame.events] if e.audience in (EVERYONE, seat)]
