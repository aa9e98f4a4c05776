"""``uno verify``'s checks of a game's record against its revealed seed
(RULES.md, "Fair deals"): the commitment must open, replaying the recorded
actions from the seed must give the cards recorded as received and the
result recorded (scores, winners, status), and every seat's deal check must
pass. :func:`verify` says which; it names the first difference it finds.

An export of ``uno replay --jsonl`` holds more than a stored record (every
event); ``client/verify.py`` compares those lines with the replay and hands
its first difference to :func:`verify`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from unoplay.game.cards import card_code
from unoplay.game.deals import RECEIVED_KINDS, DealReveal, check_deals, commitment
from unoplay.game.engine import GameState
from unoplay.game.events import Event, EventKind
from unoplay.record import LEGACY_PRNG, GameRecord, apply_recorded, game_status, replay

#: A received entry: (actions applied before, EventKind value, player, cards).
Received = tuple[int, int, int, tuple[int, ...]]


@dataclass
class Verdict:
    """What :func:`verify` found. ``status`` is "fair" (the commitment opens,
    every card received is the seed's and the replay gives the record),
    "unfair" (``problems`` says where they differ, the first difference
    first after the commitment's) or "unverifiable" (a format 1 game, dealt
    before commitments)."""

    status: str
    problems: list[str]
    cards: int = 0  #: cards dealt or drawn that were compared
    rounds: int = 0
    actions: int = 0  #: actions replayed
    #: What the replay was compared with, for the FAIR line.
    compared: str = "the result recorded"

    @property
    def fair(self) -> bool:
        """True when nothing differs."""
        return self.status == "fair"


def _who(record: GameRecord, seat: int) -> str:
    """``seat 2 (ann)`` for seat index 1."""
    names = {p["seat"]: p["name"] for p in record.players}
    return f"seat {seat + 1} ({names.get(seat, '?')})"


def refusal(record: GameRecord, index: int, err: Exception) -> str:
    """The problem of action ``index`` (0-based) refused by the engine."""
    seat, action = record.actions[index]
    return (
        f"action {index + 1} ({_who(record, seat)}: {action.describe()}) does not "
        f"replay: the engine refuses it ({err})"
    )


def replay_final(record: GameRecord) -> tuple[GameState, str | None]:
    """The engine state after replaying ``record``'s actions, and None; or the
    state where it stopped and :func:`refusal`'s text for the action the engine
    refused."""
    game, _ = record.new_game()
    for i, (seat, action) in enumerate(record.actions):
        if game.is_round_over and not game.is_game_over:
            game.next_round()
        try:
            apply_recorded(game, seat, action)
        except ValueError as err:  # IllegalAction, or a value the engine cannot take
            return game, refusal(record, i, err)
    return game, None


def result_difference(record: GameRecord) -> str | None:
    """The first difference between ``record``'s result (scores, winners,
    status) and the one its replay gives, or a refused action; None if they
    agree. Status: "finished" must end the game, "capped" or "interrupted"
    (the server ended it) must not."""
    game, refused = replay_final(record)
    if refused:
        return refused
    if tuple(record.scores) != tuple(game.scores):
        return (
            f"the result: the record's scores are {list(record.scores)}, "
            f"the replay gives {list(game.scores)}"
        )
    if tuple(record.winners) != tuple(game.game_winners):
        return (
            f"the result: the record's winners are seats {_seats(record.winners)}, "
            f"the replay gives {_seats(game.game_winners)}"
        )
    replayed = game_status(game)
    if (record.status == "finished") != (replayed == "finished"):
        return f"the result: the record says {record.status!r}, the replay's game is {replayed!r}"
    return None


def _seats(seats: tuple[int, ...] | list[int]) -> str:
    return "[" + ", ".join(str(s + 1) for s in seats) + "]" if seats else "none"


def _received_name(entry: Received, round_no: int, record: GameRecord) -> str:
    step, kind, player, _ = entry
    who = _who(record, player)
    if kind == EventKind.DEALER_DRAW:
        return f"the dealer draw of {who}"
    if kind == EventKind.HAND_DEALT:
        return f"round {round_no}'s deal to {who}"
    if kind == EventKind.STARTER_FLIPPED:
        return f"round {round_no}'s starter card"
    return f"the cards {who} drew after action {step}"


def _replayed_deals(record: GameRecord) -> tuple[list[Received], list[int], list[Event], bool]:
    """Replay ``record``: the cards received (as the record keeps them), the
    round of each, every event, and whether every action replayed."""
    replayed: list[Received] = []
    rounds: list[int] = []
    events: list[Event] = []
    round_no = 0
    try:
        for step in replay(record):
            done = step.index + 1 if step.action is not None else max(step.index, 0)
            for e in step.events:
                events.append(e)
                if e.kind is EventKind.ROUND_STARTED:
                    round_no = e.value
                if e.kind in RECEIVED_KINDS:
                    replayed.append((done, int(e.kind), e.player, tuple(e.cards)))
                    rounds.append(round_no)
    except ValueError:  # a refused action: the difference says which
        return replayed, rounds, events, False
    return replayed, rounds, events, True


def _deal_difference(record: GameRecord, replayed: list[Received], rounds: list[int]) -> str | None:
    """The first card received that differs from what the seed deals."""
    stored = [(s, int(k), p, tuple(c)) for s, k, p, c in record.received]
    for i, (got, want) in enumerate(zip(stored, replayed)):
        if got != want:
            return (
                f"{_received_name(want, rounds[i], record)} differs: stored "
                f"{' '.join(map(card_code, got[3]))}, the seed deals "
                f"{' '.join(map(card_code, want[3]))}"
            )
    if len(stored) != len(replayed):
        return (
            f"{len(stored)} deals and draws are stored, the seed and the "
            f"actions give {len(replayed)}"
        )
    return None


def verify(
    record: GameRecord,
    difference: Callable[[GameRecord], str | None] = result_difference,
) -> Verdict:
    """Check a stored (or exported) game against its revealed seed.

    In order: the commitment recomputed from seed, salt, table, seat count and
    rules must be the one the players got; ``difference(record)`` must find
    nothing (default :func:`result_difference`: the replay's result is the
    record's; an export's check compares every line, ``client/verify.py``);
    replaying the deals must give exactly the cards recorded as received (every
    hand dealt, every starter, every draw, the dealer draw); and the published
    deal check (:func:`~.deals.check_deals`) must agree for every seat. Each
    failure is one of the verdict's ``problems``; a refused action is a
    problem, not an exception. Raises ValueError only for rules or a seat
    count the engine cannot deal."""
    if record.prng == LEGACY_PRNG and not (record.commitment or record.salt):
        return Verdict(
            "unverifiable",
            [
                "stored before fair deals (format 1): its seed was "
                "never committed to, so there is nothing to check"
            ],
        )
    problems = []
    seats = len(record.players)
    expected = commitment(record.seed, record.salt, record.table_id, seats, record.rules)
    if record.prng == LEGACY_PRNG:
        problems.append("it claims to be dealt before fair deals (format 1), yet has a commitment")
    if expected != record.commitment:
        problems.append(
            f"the commitment the players got ({record.commitment or 'none'}) is "
            f"not the one of the seed and salt ({expected})"
        )
    if found := difference(record):
        problems.append(found)
    replayed, rounds, events, complete = _replayed_deals(record)
    if complete:
        if deal := _deal_difference(record, replayed, rounds):
            problems.append(deal)
        reveal = DealReveal(record.seed, record.salt, expected)
        for seat in range(seats):
            check = check_deals(
                events, seat, reveal, table_id=record.table_id, players=seats, rules=record.rules
            )
            problems += [f"seat {seat + 1}: {p}" for p in check.problems]
    return Verdict(
        "unfair" if problems else "fair",
        problems,
        sum(len(c) for *_, c in replayed),
        rounds[-1] if rounds else 0,
        len(record.actions),
    )
