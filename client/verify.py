"""``uno verify FILE``: an export of ``uno replay --jsonl`` read with bounds
and checked, line by line, against its replay.

Reading (:func:`record_from_jsonl`, :func:`read_export`): at most
:data:`MAX_EXPORT_BYTES`, every line a JSON object nested at most
:data:`MAX_DEPTH` deep, the first one the game line; the game line's fields
and every action line's have the types the export writes. Anything else is a
:class:`MalformedExport` (``uno verify`` prints one line and exits 2).

Checking (:func:`export_difference`): replaying the game line's seed and the
action lines, and exporting that replay with the result it gives, must give
every line of the file, apart from what no replay can know: the game line's
id, title and times, and each action's source and time. The first line that
differs is named: its number, which event or action, the field, what the
file has and what the replay gives. :func:`verify_export` adds the
commitment and deal checks of :func:`unoplay.audit.verify`.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Iterable, Iterator
from typing import Any, TextIO

from unoplay.audit import Verdict, refusal, replay_final, verify
from unoplay.game.actions import Action, ActionKind
from unoplay.game.cards import DECK_SIZE
from unoplay.game.events import EventKind
from unoplay.record import LEGACY_PRNG, PRNG, GameRecord, game_status

from .replay import COLOURS, jsonl_lines

#: The largest export ``uno verify`` reads (a long game is a few MB).
MAX_EXPORT_BYTES = 64 * 2**20
#: How deep a line's JSON may nest (an export's lines nest at most 4 deep).
MAX_DEPTH = 8
#: Fields no replay can know: not compared, and not bound by the commitment.
UNCHECKED = {"game": ("id", "title", "started_at", "finished_at"), "action": ("source", "t_ms")}
#: Fields compared before the others (the game line's action count says more
#: than the status a dropped action changes).
FIRST = {"game": ("actions",)}
_NOT_AN_EXPORT = "not an export of `uno replay --jsonl`"


class MalformedExport(ValueError):
    """A file that is not an export of ``uno replay --jsonl`` (one line of text)."""


# ------------------------------------------------------------------ reading


def _depth_exceeds(value: Any, limit: int) -> bool:
    """True if ``value`` nests lists and objects more than ``limit`` deep."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if not isinstance(item, (dict, list)):
            continue
        if depth > limit:
            return True
        stack.extend(
            (child, depth + 1) for child in (item.values() if isinstance(item, dict) else item)
        )
    return False


def iter_docs(lines: Iterable[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, JSON object)`` for each non-blank line. Raises
    :class:`MalformedExport` past :data:`MAX_EXPORT_BYTES` characters, for a
    line that is not a JSON object nested at most :data:`MAX_DEPTH` deep, or
    for text that is not UTF-8."""
    size = 0
    number = 0
    try:
        for number, line in enumerate(lines, 1):
            size += len(line)
            if size > MAX_EXPORT_BYTES:
                raise MalformedExport(f"{_NOT_AN_EXPORT}: longer than {_limit()}")
            if not line.strip():
                continue
            try:
                doc = json.loads(line)
            except RecursionError:
                doc = None
            except ValueError as err:  # not JSON, or a number of thousands of digits
                raise MalformedExport(f"{_NOT_AN_EXPORT}: line {number}: {err}") from None
            if not isinstance(doc, dict) or _depth_exceeds(doc, MAX_DEPTH):
                raise MalformedExport(
                    f"{_NOT_AN_EXPORT}: line {number} is not a JSON object nested "
                    f"at most {MAX_DEPTH} deep"
                )
            yield number, doc
    except UnicodeDecodeError:
        raise MalformedExport(f"{_NOT_AN_EXPORT}: line {number + 1} is not UTF-8 text") from None


def _limit() -> str:
    return f"{MAX_EXPORT_BYTES // 2**20} MiB"


def _field(doc: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    """``doc[key]``, which must be of ``kind`` (an int is never a bool).
    Raises MalformedExport naming ``where`` otherwise."""
    value = doc.get(key)
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if (
        key not in doc
        or not isinstance(value, kinds)
        or (isinstance(value, bool) and bool not in kinds)
    ):
        names = " or ".join("null" if k is type(None) else k.__name__ for k in kinds)
        raise MalformedExport(f"{_NOT_AN_EXPORT}: {where}: {key!r} is not {names}")
    return value


def _ints(values: Any, where: str, low: int, high: int) -> tuple[int, ...]:
    """``values`` as ints in ``low..high - 1``. Raises MalformedExport otherwise."""
    if not isinstance(values, list) or not all(type(v) is int and low <= v < high for v in values):
        raise MalformedExport(f"{_NOT_AN_EXPORT}: {where}: not a list of numbers {low}..{high - 1}")
    return tuple(values)


def _number(doc: dict[str, Any], key: str, where: str, low: int, high: int) -> int:
    """``doc[key]``, an int in ``low..high - 1``. Raises MalformedExport otherwise."""
    value = _field(doc, key, int, where)
    if not low <= value < high:
        raise MalformedExport(f"{_NOT_AN_EXPORT}: {where}: {key!r} is not {low}..{high - 1}")
    return value


def _int_tuple(value: Any) -> tuple[int, ...] | None:
    """``value`` as a tuple if it is a list of ints, else None."""
    return tuple(value) if isinstance(value, list) and all(type(x) is int for x in value) else None


def _players(doc: dict[str, Any], where: str) -> list[dict[str, Any]]:
    players = _field(doc, "players", list, where)
    for i, p in enumerate(players):
        if not isinstance(p, dict):
            raise MalformedExport(f"{_NOT_AN_EXPORT}: {where}: player {i + 1} is not an object")
        if _field(p, "seat", int, f"{where}, player {i + 1}") != i:
            raise MalformedExport(f"{_NOT_AN_EXPORT}: {where}: player {i + 1} is not seat {i}")
        _field(p, "name", str, f"{where}, player {i + 1}")
        _field(p, "bot", str, f"{where}, player {i + 1}")
    return players


def _received(doc: dict[str, Any], where: str) -> list[tuple[int, int, int, tuple[int, ...]]]:
    entries = []
    for i, entry in enumerate(_field(doc, "received", list, where)):
        at = f"{where}, received {i + 1}"
        if not (isinstance(entry, list) and len(entry) == 4 and entry[1] in EventKind.__members__):
            raise MalformedExport(f"{_NOT_AN_EXPORT}: {at}: not [step, kind, player, cards]")
        step, kind, player, cards = entry
        _ints([step, player], at, -1, 2**31)
        entries.append((step, int(EventKind[kind]), player, _ints(cards, at, 0, DECK_SIZE)))
    return entries


def _game(doc: dict[str, Any], number: int) -> GameRecord:
    """The record of a game line (no actions yet). Raises MalformedExport."""
    where = f"line {number} (the game line)"
    rules = _field(doc, "rules", dict, where)
    prng = _field(doc, "prng", str, where)
    if prng not in (PRNG, LEGACY_PRNG):
        raise MalformedExport(f"{_NOT_AN_EXPORT}: {where}: unknown prng {prng[:40]!r}")
    record = GameRecord(
        table_id=_field(doc, "table_id", str, where),
        title=_field(doc, "title", str, where),
        seed=_field(doc, "seed", str, where),
        rules=rules,
        players=_players(doc, where),
        actions=[],
        status=_field(doc, "status", str, where),
        started_at=_field(doc, "started_at", (int, float), where),
        finished_at=_field(doc, "finished_at", (int, float), where),
        game_id=_field(doc, "id", (int, type(None)), where),
        prng=prng,
        salt=_field(doc, "salt", str, where),
        commitment=_field(doc, "commitment", str, where),
        received=_received(doc, where),
    )
    _field(doc, "actions", int, where)
    try:
        record.new_game()  # rules the engine knows, a seat count it deals
    except (ValueError, TypeError) as err:
        raise MalformedExport(f"{_NOT_AN_EXPORT}: {where}: cannot be dealt: {err}") from None
    return record


def _action(doc: dict[str, Any], number: int, players: int) -> tuple[int, Action]:
    """``(seat, action)`` of an action line. Raises MalformedExport."""
    where = f"line {number} (an action line)"
    seat = _number(doc, "seat", where, 0, players)
    a = _field(doc, "action", dict, where)
    kind = _field(a, "kind", str, where)
    colour = _field(a, "colour", (str, type(None)), where)
    if kind not in ActionKind.__members__ or (colour is not None and colour not in COLOURS):
        raise MalformedExport(f"{_NOT_AN_EXPORT}: {where}: not an action")
    card = _number(a, "card", where, -1, DECK_SIZE)
    target = _number(a, "target", where, -1, players)
    extra = _ints(a.get("extra", []), where, 0, DECK_SIZE)
    uno = _field(a, "uno", bool, where)
    colour_value = -1 if colour is None else COLOURS.index(colour)
    return seat, Action(ActionKind[kind], card, colour_value, uno, target, extra)


def record_from_jsonl(lines: Iterable[str]) -> GameRecord:
    """The game of a :func:`~.replay.jsonl_lines` export: its game line, its
    actions (with their sources and times), the cards received as stored and
    the scores and winners of its result line (when they are lists of
    numbers). Raises :class:`MalformedExport` (a ValueError) for a text that
    is not such an export; see the module's bounds."""
    record = None
    for number, doc in iter_docs(lines):
        if record is None:
            if doc.get("type") != "game":
                raise MalformedExport(f"{_NOT_AN_EXPORT}: line {number} is not its game line")
            record = _game(doc, number)
        elif doc.get("type") == "action":
            record.actions.append(_action(doc, number, len(record.players)))
            record.sources.append(str(doc.get("source", "player")))
            t_ms = doc.get("t_ms")
            record.times_ms.append(t_ms if type(t_ms) is int else 0)
        elif doc.get("type") == "result":
            scores, winners = _int_tuple(doc.get("stored_scores")), _int_tuple(doc.get("winners"))
            if scores is not None and winners is not None:
                record.scores, record.winners = scores, winners
    if record is None:
        raise MalformedExport(f"{_NOT_AN_EXPORT}: no game line")
    return record


def read_export(path: str | os.PathLike[str]) -> GameRecord:
    """:func:`record_from_jsonl` of a file. Raises :class:`MalformedExport` for
    a file over :data:`MAX_EXPORT_BYTES` or not an export, OSError if it
    cannot be read."""
    size = os.path.getsize(path)
    if size > MAX_EXPORT_BYTES:
        raise MalformedExport(f"{_NOT_AN_EXPORT}: {size} bytes, more than {_limit()}")
    with open(path, encoding="utf-8") as f:
        return record_from_jsonl(f)


# ------------------------------------------------------------------ checking


def _replayed(record: GameRecord) -> GameRecord:
    """``record`` with the result its replay gives (scores, winners, and the
    status, where a replay can tell: "capped" and "interrupted" were the
    server's decisions, "finished" is the engine's); ``record`` as it is if
    the engine refuses an action (the line of that action says so)."""
    game, refused = replay_final(record)
    if refused:
        return record
    status = game_status(game)
    if status != "finished" and record.status in ("capped", "interrupted"):
        status = record.status
    return dataclasses.replace(
        record, scores=tuple(game.scores), winners=tuple(game.game_winners), status=status
    )


def _short(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _what(doc: dict[str, Any], events: int) -> str:
    """Which line ``doc`` (a line the replay gives) is, for people."""
    kind = doc.get("type")
    if kind == "event":
        step = doc["step"]
        when = "the deal" if step < 0 else f"action {step + 1}"
        return f"event {events} ({doc['kind']}, of {when})"
    if kind == "action":
        return f"action {doc['n'] + 1}"
    if kind == "deal":
        before = doc["before_action"]
        return "the deal" if before < 0 else f"the deal before action {before + 1}"
    return f"the {kind} line"


def _doc_difference(found: dict[str, Any], want: dict[str, Any]) -> str | None:
    """``field: the file has X, the replay gives Y`` for the first field that
    differs (fields in :data:`UNCHECKED` aside), or None."""
    kind = str(want.get("type"))
    skip = UNCHECKED.get(kind, ())
    for key in [*FIRST.get(kind, ()), *want, *(k for k in found if k not in want)]:
        if key in skip or found.get(key, ...) == want.get(key, ...):
            continue
        has = _short(found[key]) if key in found else "nothing"
        gives = _short(want[key]) if key in want else "nothing"
        return f"{key}: the file has {has}, the replay gives {gives}"
    return None


def export_difference(record: GameRecord, lines: Iterable[str]) -> str | None:
    """The first line of an export (``lines``, the file ``record`` was read
    from) that is not what replaying ``record`` exports, named for people; or
    None if every line is. Raises :class:`MalformedExport` like
    :func:`iter_docs`."""
    expected = jsonl_lines(_replayed(record))
    events = actions = 0
    last = 0
    for number, found in iter_docs(lines):
        last = number
        try:
            want = json.loads(next(expected))
        except StopIteration:
            return f"line {number}: the replay has ended, the file goes on"
        except ValueError as err:  # the engine refuses the next action
            return f"line {number}: {refusal(record, actions, err)}"
        events += want["type"] == "event"
        actions += want["type"] == "action"
        if found.get("type") == "game" != want["type"]:
            return f"line {number}: a second game line (an export holds one game), not {_what(want, events)}"
        if diff := _doc_difference(found, want):
            return f"line {number}, {_what(want, events)}: {diff}"
    try:
        want = json.loads(next(expected))
    except StopIteration:
        return None
    except ValueError as err:
        return f"after line {last}: {refusal(record, actions, err)}"
    return f"the file ends at line {last}; the replay goes on with {_what(want, events + 1)}"


def verify_export(path: str | os.PathLike[str]) -> tuple[GameRecord, Verdict]:
    """Read and check an export: its record and :func:`~.audit.verify`'s
    verdict, with :func:`export_difference` as the replay's check. Raises
    :class:`MalformedExport` for a file that is not an export (or one the
    engine cannot replay at all), OSError if it cannot be read."""
    record = read_export(path)

    def difference(record: GameRecord) -> str | None:
        with open(path, encoding="utf-8") as f:
            return export_difference(record, f)

    try:
        verdict = verify(record, difference)
    except (ValueError, LookupError, TypeError, AttributeError) as err:
        if isinstance(err, MalformedExport):
            raise
        raise MalformedExport(f"cannot be replayed: {type(err).__name__}: {err}") from None
    verdict.compared = "every event and hand in the file and its result"
    return record, verdict


def write_verdict(record: GameRecord, verdict: Verdict, out: TextIO) -> None:
    """What `uno verify` found, for people."""
    name = f"game {record.game_id}" if record.game_id is not None else "the game"
    out.write(f"{name} at table {record.table_id} ({record.title}), {record.status}\n")
    if verdict.status == "unverifiable":
        out.write(f"cannot be verified: {verdict.problems[0]}\n")
        return
    out.write(f"seed {record.seed}\nsalt {record.salt}\ncommitment {record.commitment}\n")
    if verdict.fair:
        out.write(
            f"FAIR: the commitment opens with this seed and salt, the "
            f"{verdict.cards} cards dealt and drawn in {verdict.rounds} round(s) are "
            f"exactly those the seed deals, and replaying the {verdict.actions} "
            f"actions gives {verdict.compared}\n"
        )
    else:
        out.write("NOT FAIR:\n" + "".join(f"  {p}\n" for p in verdict.problems))
