"""What one game of a match left: a plain record, stored as it finishes.

``status`` says what the game counts for:

* ``finished``: played to its end by the entrants themselves; counted.
* ``adjudicated``: a round reached the table's cap of actions
  (``--max-actions``: RULES.md, "Endless rounds"), so the game ended with no
  winner; reported apart, never a win.
* ``void``: the server played a seat for some decision: its turn timer
  (``--move-time``: a time forfeit, announced by EVENT_KIND_TIMED_OUT) or
  its stand-in bot (a seat whose player was away); or a bot forfeited the
  game for illegal actions (``forfeit``: more than ``--illegal-limit``
  intents refused in one decision, or more than ``--illegal-budget`` in the
  game). Reported apart, never credited to the seat's entrant (nor to the
  others).
* ``crashed``: an external bot exited before its game ended (``crash``:
  the seat, its exit code and the end of its error output), or a bot
  running in the match's workers (built-in, ``module:attr``,
  ``file.py:attr``) raised (``crash``: the seat, no code, the end of its
  traceback).
* ``error``: the game could not be played (the server refused, a timeout).
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
    crash: dict[str, Any] | None = None  #: {"seat", "label", "code", "stderr"}
    #: per seat: its intents the server refused (not for a reason that is no fault
    #: of its own: RULES.md, "Refused intents"); None: not known (an external bot
    #: on a remote server)
    refusals: list[int | None] = field(default_factory=list)
    forfeit: dict[str, Any] | None = None  #: illegal actions: {"seat", "label", "why"}
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

    def credits(self, teams: bool) -> list[float]:
        """The win credited to each seat: 1 for a sole winner, a share for a
        tie for first, 1 for each partner of a winning team (``teams``);
        all 0 unless the game counts."""
        n = len(self.seats)
        out = [0.0] * n
        if not self.counted or not self.winners:
            return out
        share = 1.0 if teams else 1.0 / len(self.winners)
        for seat in self.winners:
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
