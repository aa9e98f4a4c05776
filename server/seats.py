"""The seats of a table: who sits where, their secret seat tokens, the bots
seated for good, the person's signs of life, the intents refused to each
and the updates each earned (what refills its message budget, kept by the
service).

A :class:`Seats` is the table's list of :class:`Seat` (indexable and
iterable like a list). It knows nothing of the game's course: the table
says when a seat may be taken (before the game), what a change's events
were and what a seat's log holds (:mod:`.fanout`).
"""

from __future__ import annotations

import hashlib
import secrets
import time
from dataclasses import dataclass, field
from typing import Any

from unoplay.game.events import Event, EventKind
from unoplay.game.messages import SeatInfo
from unoplay.protocol import (
    BLAMELESS_REFUSALS,
    MAX_NAME,
    NEVER_RACES,
    RACE_REASONS,
    WINDOW_RACES,
    LobbyError,
    clean_text,
)

from .names import invisible
from .streamlog import StreamLog

#: Events of a seat's own costly mistake: the update after one earns its
#: message budget nothing (proto/README.md, section 4, the intent budget).
SELF_PAID_KINDS = frozenset({EventKind.UNO_FALSE_CALL, EventKind.WRONG_PLAY})


def clean_name(name: str) -> str:
    """A player's name, cleaned as :func:`clean_text` does (1..:data:`MAX_NAME`
    characters), with no character that prints as nothing
    (:func:`.names.invisible`: ``zoe`` and a Hangul filler would show as
    ``zoe``). Raises LobbyError("invalid"). RULES.md, "The arena": Names."""
    name = clean_text("name", name, MAX_NAME)
    hidden = invisible(name)
    if hidden:
        raise LobbyError("invalid", f"name may not contain {hidden}: it prints as nothing")
    return name


@dataclass(eq=False)
class Seat:
    """One seat: who sits there and the log of messages sent to it. Seats are
    compared (and hashed) by identity: a seat taken again is a new one."""

    index: int
    name: str = ""
    token: str = ""
    bot: Any = None  # a game.bots.Bot seated for good, or None for a person
    stand_in: Any = None  # a greedy bot playing while the person is away
    connections: int = 0
    #: The messages sent to the seat; a placeholder keeping nothing until a
    #: person sits (a server-side bot's seat never keeps any).
    log: StreamLog = field(default_factory=lambda: StreamLog(-1, 0, 0))
    # Updates that refill the seat's message budget: every update it is sent,
    # except the one after its own costly mistake (a false UNO call, a wrong
    # play under wrong_play_penalty), or such moves could fund themselves.
    earned_updates: int = 0
    #: This game's refused intents of the seat's own making (not blameless,
    #: not races: :meth:`count_refusal`); of them, those since the last action
    #: applied at the table (``refused_in_row``; ``refused_at``: the actions
    #: applied then); the last one's "reason: message"; and the races it lost
    #: (``races``). A match runner reads them (uno match).
    refusals: int = 0
    races: int = 0
    #: what the seat's latest intent was chosen on: the table's version when it
    #: arrived, and whether its client had the newest update then (None: the
    #: client did not say; :meth:`intent_arrived`)
    intent_version: int = 0
    intent_fresh: bool | None = None
    refused_in_row: int = 0
    refused_at: int = -1
    last_refusal: str = ""
    last_seen: float = field(default_factory=time.monotonic)  # the person's last sign of life
    #: whom the lobby's seats-per-name limit counts the seat against
    #: (``lobby.holder_of``; "" for the name itself)
    holder: str = ""
    #: SHA-256 of ``token`` (what the server's file keeps, :mod:`.durable`;
    #: tokens are compared by it). A seat restored from the file has this
    #: hash and a placeholder ``token``: the token itself is never stored.
    token_hash: bytes = b""

    @property
    def occupied(self) -> bool:
        """True when someone (a person or a bot) sits here."""
        return bool(self.name)

    @property
    def connected(self) -> bool:
        """True for a bot's seat, or a person's with a stream open."""
        return self.bot is not None or self.connections > 0

    @property
    def player(self) -> Any:
        """The bot that plays this seat now (seated bot or stand-in), or None."""
        return self.bot if self.bot is not None else self.stand_in

    def info(self) -> SeatInfo:
        """The seat's public status."""
        return SeatInfo(
            self.index, self.name, self.player is not None, self.occupied, self.connected
        )

    def intent_arrived(self, version: int, fresh: bool | None) -> None:
        """An intent of the seat arrives while the table is at ``version``;
        ``fresh``: its client had the seat's newest update when it chose it
        (False: a later one had replaced it; None: not said)."""
        self.intent_version = version
        self.intent_fresh = fresh

    def lost_race(self, reason: str, version: int) -> bool:
        """True when a refusal for ``reason`` of the seat's latest intent, at
        table version ``version``, is a race lost (RULES.md, "Refused
        intents"): a window's judgement or the game's end
        (:data:`WINDOW_RACES`), the game changed since the intent arrived (it
        was held in a window), or it was chosen on a view already replaced
        (for a client that does not say: a reason of :data:`RACE_REASONS`);
        never for a reason no view excuses (:data:`NEVER_RACES`)."""
        if reason in NEVER_RACES:
            return False
        if reason in WINDOW_RACES or version != self.intent_version:
            return True
        if self.intent_fresh is None:
            return reason in RACE_REASONS
        return not self.intent_fresh

    def count_refusal(self, reason: str, message: str, applied: int, race: bool) -> None:
        """Count a refused intent against the seat unless it is blameless
        (:data:`BLAMELESS_REFUSALS`) or a race lost (``race``: counted apart,
        :attr:`races`); ``applied``: the actions applied at the table so far
        (refusals with none between them are in a row)."""
        if reason in BLAMELESS_REFUSALS:
            return
        if race:
            self.races += 1
            return
        self.refused_in_row = self.refused_in_row + 1 if self.refused_at == applied else 1
        self.refused_at = applied
        self.refusals += 1
        self.last_refusal = f"{reason}: {message}"

    def forget_refusals(self) -> None:
        """A new game: no refusal counted yet."""
        self.refusals = self.refused_in_row = self.races = 0
        self.refused_at, self.last_refusal = -1, ""


def token_hash(token: str) -> bytes:
    """The SHA-256 of a seat token (what the server keeps of it on disk)."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()


class Seats(list[Seat]):
    """A table's seats, in seat order: a list (iterated on every change, so
    at C speed)."""

    def __init__(self, count: int) -> None:
        """``count`` empty seats."""
        super().__init__(Seat(i) for i in range(count))

    def infos(self) -> tuple[SeatInfo, ...]:
        """Every seat's public status."""
        return tuple(s.info() for s in self)

    def new_game(self) -> None:
        """A new game: no refusal counted yet, no stand-in playing."""
        for seat in self:
            seat.forget_refusals()
            seat.stand_in = None

    def earn(self, events: list[Event], actor: int) -> None:
        """A change made ``events`` (``actor``: the seat whose intent caused
        it, -1 for the table): the update every seat is sent earns it one
        (:attr:`Seat.earned_updates`), but the actor's after its own costly
        mistake (:data:`SELF_PAID_KINDS`)."""
        for seat in self:
            seat.earned_updates += 1
        if actor >= 0:
            for e in events:  # (a loop, not any(): this runs on every change)
                if e.kind in SELF_PAID_KINDS:
                    self[actor].earned_updates -= 1
                    break

    def free(self, wanted: int | None) -> Seat:
        """Seat ``wanted``, or the first free one (None). Raises LobbyError:
        "invalid" for no such seat, "failed_precondition" when it is taken
        or every seat is."""
        if wanted is not None:
            if not 0 <= wanted < len(self):
                raise LobbyError("invalid", f"there is no seat {wanted}")
            if self[wanted].occupied:
                raise LobbyError("failed_precondition", f"seat {wanted} is taken")
            return self[wanted]
        for seat in self:
            if not seat.occupied:
                return seat
        raise LobbyError("failed_precondition", "the table is full")

    def take(self, name: str, wanted: int | None = None) -> Seat:
        """Seat a person named ``name`` (cleaned: :func:`clean_name`) with a new
        secret token (128 random bits). Raises LobbyError (:meth:`free`,
        a bad name)."""
        name = clean_name(name)
        seat = self.free(wanted)
        seat.name = name
        seat.token = secrets.token_urlsafe(16)
        seat.token_hash = token_hash(seat.token)
        seat.last_seen = time.monotonic()
        return seat

    def seat_bot(self, bot: Any, name: str, wanted: int | None = None) -> Seat:
        """Seat a server-side bot for good (no token: no stream ever opens for
        it). Raises LobbyError (:meth:`free`, a bad name)."""
        seat = self.free(wanted)
        seat.name = clean_name(name)
        seat.bot = bot
        seat.token = ""
        seat.token_hash = b""
        return seat

    def for_token(self, token: str) -> Seat:
        """The seat this token acts for (a sign of life of its person). Raises
        LobbyError("unauthenticated")."""
        given = token_hash(token)
        found = None
        for seat in self:  # compare with every seat: the time says nothing
            if seat.token and secrets.compare_digest(seat.token_hash, given):
                found = seat
        if found is None:
            raise LobbyError("unauthenticated", "that seat token is not valid at this table")
        found.last_seen = time.monotonic()
        return found

    def holds(self, seat: Seat, token: str) -> bool:
        """True while ``token`` still acts for ``seat`` (not after leaving)."""
        return (
            self[seat.index] is seat
            and bool(seat.token)
            and (seat.token == token or seat.token_hash == token_hash(token))
        )

    def vacate(self, index: int) -> None:
        """Seat ``index`` is empty again (a new :class:`Seat`: its token is gone)."""
        self[index] = Seat(index)

    def absent(self, grace: float, now: float) -> list[Seat]:
        """Vacate every person's seat with no sign of life (no open stream, no
        call with its token) for ``grace`` seconds (``now``:
        ``time.monotonic()``); returns the seats as they were."""
        gone = [
            s
            for s in self
            if s.token and s.bot is None and s.connections == 0 and now - s.last_seen > grace
        ]
        for seat in gone:
            self.vacate(seat.index)
        return gone
