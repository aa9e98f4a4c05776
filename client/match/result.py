"""What one game of a match left: a plain record, stored as it finishes.

``status`` says how the game ended:

* ``finished``: played to its end by the entrants themselves; counted.
* ``adjudicated``: a round reached the table's cap of actions
  (``--max-actions``: RULES.md, "Endless rounds"), so the game ended with no
  winner; reported apart, never a win: a draw between every two seats.
* ``void``: the server played a seat for some decision: its turn timer
  (``--move-time``: a time forfeit, announced by EVENT_KIND_TIMED_OUT, or a
  decision of a bot of the worker's process that took longer than the timer
  allows) or its stand-in bot (a seat whose player was away); or a bot
  forfeited the game for illegal actions (``forfeit``: more than
  ``--illegal-limit`` intents refused in one decision, or more than
  ``--illegal-budget`` in the game).
* ``crashed``: an external bot exited before its game ended (``crash``:
  the seat, its exit code and the end of its error output), or a bot
  running in the match's workers (built-in, ``module:attr``,
  ``file.py:attr``) raised or called ``sys.exit()`` (``crash``: the seat, no
  code, the end of its traceback).
* ``error``: the game could not be played (the server refused, a timeout).

**Forfeits score, never vanish** (as fishtest, cutechess and fastchess
score a time loss, an illegal move or a crash): the seats that forfeited a
void or crashed game (:meth:`GameResult.forfeiters`: its illegal actions,
its time forfeits, the stand-in's moves for it, its crash) lost it to every
seat that did not, which drew among themselves (:meth:`GameResult.head_to_head`);
an adjudicated game is a draw between every two seats. Only an ``error``
game (no seat to blame) scores nothing.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

FINISHED = "finished"
ADJUDICATED = "adjudicated"
VOID = "void"
CRASHED = "crashed"
ERROR = "error"
STATUSES = (FINISHED, ADJUDICATED, VOID, CRASHED, ERROR)


@dataclass
class GameResult:
    """One game: who sat where (``seats[s]``: entrant index), how it ended,
    and per seat (lists indexed by seat) its decisions, their time, the turn
    timer's and the stand-in's actions."""

    index: int
    deal: int
    rotation: int
    seed: int
    seats: list[int]
    status: str
    reason: str = ""
    scores: list[int] = field(default_factory=list)
    winners: list[int] = field(default_factory=list)  #: winning seats (a team: both)
    actions: int = 0  #: actions applied, every round
    rounds: int = 0
    duration: float = 0.0  #: seconds from the start to the game's end
    started_at: float = 0.0  #: Unix time of the start
    decisions: list[int] = field(default_factory=list)  #: per seat: actions of its own
    think_ms: list[float | None] = field(default_factory=list)  #: per seat: their total ms
    timeouts: list[int] = field(default_factory=list)  #: per seat: turn-timer actions
    stand_in: list[int] = field(default_factory=list)  #: per seat: stand-in actions
    #: {"seat", "label", "code", "stderr"}; "seat" is an index from 0, as in
    #: ``seats`` (the reason, for people, numbers seats from 1: index 0 is "seat 1")
    crash: dict[str, Any] | None = None
    #: per seat: its intents the server refused (not for a reason that is no fault
    #: of its own, nor races lost: RULES.md, "Refused intents"); None: not known
    #: (an external bot on a remote server)
    refusals: list[int | None] = field(default_factory=list)
    #: per seat: its races lost (intents refused because another seat, the timer
    #: or a window's judgement changed the game first); None: not known
    races: list[int | None] = field(default_factory=list)
    forfeit: dict[str, Any] | None = None  #: illegal actions: {"seat" (from 0), "label", "why"}
    #: the game's full record (server/storage.py's, :func:`.store.pack_record`), on
    #: its way from the worker to the results file; None once stored, or when not
    #: known (a remote server: its own store may hold the game, as ``table_id``)
    packed_record: str | None = None
    table_id: str = ""
    worker: str = ""
    attempt: int = 0

    @property
    def counted(self) -> bool:
        """True when the game counts for the statistics (status ``finished``)."""
        return self.status == FINISHED

    @property
    def scored(self) -> bool:
        """True when the game has a head-to-head score (:meth:`head_to_head`):
        every status but ``error``."""
        return self.status != ERROR

    def forfeiters(self) -> set[int]:
        """The seats that forfeited the game: an illegal-action forfeit, a
        crash, a time forfeit (the turn timer moved for it) or the stand-in
        played for it (it left). Empty for a game played out or adjudicated."""
        if self.status == FINISHED:
            return set()
        seats = {s for s, n in enumerate(self.timeouts) if n}
        seats.update(s for s, n in enumerate(self.stand_in) if n)
        for record in (self.forfeit, self.crash):
            if record is not None and record.get("seat") is not None:
                seats.add(int(record["seat"]))
        return seats

    def head_to_head(self, a: int, b: int, teams: bool) -> float:
        """The head-to-head score (0..1) of entrant ``a`` against entrant ``b``
        in this game: 1 when ``a`` won it and ``b`` did not, 0 the reverse,
        1/2 when neither did or both (another seat won; a tie for first; an
        adjudicated game; a game forfeited by other seats only). A forfeit is a
        loss: 0 when ``a`` forfeited and ``b`` did not, 1 the reverse. Not
        meaningful for an ``error`` game (:attr:`scored`)."""
        forfeited = self.forfeiters()
        if forfeited:
            fa = any(e == a and s in forfeited for s, e in enumerate(self.seats))
            fb = any(e == b and s in forfeited for s, e in enumerate(self.seats))
            if fa != fb:
                return 0.0 if fa else 1.0
            return 0.5
        if not self.counted:
            return 0.5
        credits = self.credits(teams)
        c = sum(credits[s] for s, e in enumerate(self.seats) if e == a)
        d = sum(credits[s] for s, e in enumerate(self.seats) if e == b)
        return 0.5 + (c - d) / 2

    def credits(self, teams: bool) -> list[float]:
        """The win credited to each seat: 1 for a sole winner, a share for a
        tie for first, 1 for each partner of a winning team (``teams``). In a
        game forfeited by some seats (:meth:`forfeiters`) the others won it,
        as a tie for first (each partner of a team with no forfeiter: 1; a
        forfeiter's partner lost with it). All 0 for other games (adjudicated,
        errors, a crash no seat is blamed for)."""
        n = len(self.seats)
        out = [0.0] * n
        winners: list[int] = list(self.winners) if self.counted else []
        if not self.counted and (forfeited := self.forfeiters()):
            if teams and n % 2 == 0:
                half = n // 2
                winners = [s for s in range(n) if not {s % half, s % half + half} & forfeited]
            else:
                winners = [s for s in range(n) if s not in forfeited]
        if not winners:
            return out
        share = 1.0 if teams else 1.0 / len(winners)
        for seat in winners:
            out[seat] = share
        return out

    def to_dict(self) -> dict[str, Any]:
        """Plain values (JSON), as stored and exported."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameResult:
        """The record of :meth:`to_dict`'s values (keys it does not know are ignored)."""
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})
