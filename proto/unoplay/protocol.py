"""The protocol's vocabulary, shared by the server and its clients: who made
an action (:class:`ActionSource`), how a refused intent is counted (the
refusal classes over :class:`unoplay.game.errors.Reason`), the lobby's
error (:class:`LobbyError`) and how a name or title is cleaned
(:func:`clean_text`).

Plain values, no gRPC objects: the server refuses with them, and a client
(the SDK's users, ``uno match``, the command line) checks and counts with the
same words before it ever dials. The refusal reasons themselves are the
engine's :class:`~unoplay.game.errors.Reason` (the table's and the server's
own reasons included), as the contract's ``Refusal.reason`` carries them.
"""

from __future__ import annotations

import re
import unicodedata
from enum import StrEnum

from unoplay.game.errors import Reason


class ActionSource(StrEnum):
    """Who made an action, as game records and histories store it
    (server/RULES.md, "Timers" and "Away players")."""

    PLAYER = "player"  #: the person or bot in the seat, by an intent
    BOT = "bot"  #: a bot the table seated for good (a bot seat, a player who left)
    STAND_IN = "stand_in"  #: the stand-in bot playing for a player who is away
    TIMER = "timer"  #: the turn timer's default action, the player's time out


#: Refusal reasons that are no fault of the seat and no race either: the
#: game has not started, the server is stopping or failed. Neither counted
#: nor shown as a race (RULES.md, "Refused intents").
BLAMELESS_REFUSALS = frozenset(
    {Reason.GAME_NOT_STARTED, Reason.SERVER_CLOSING, Reason.INTERNAL_ERROR}
)

#: Reasons that are always a race lost: an out-of-turn window's judgement
#: (another jump-in came first; someone jumped in before this turn action),
#: or the game ended meanwhile.
WINDOW_RACES = frozenset({Reason.JUMP_IN_LOST, Reason.JUMPED_IN, Reason.GAME_OVER})

#: Reasons no view can excuse: the intent was malformed or named what never
#: exists (an unknown id, card or colour, a target where none is taken), so
#: it is counted even when chosen on a replaced view.
NEVER_RACES = frozenset(
    {
        Reason.MALFORMED,
        Reason.UNKNOWN_ACTION_ID,
        Reason.UNKNOWN_ACTION,
        Reason.NO_SUCH_PLAYER,
        Reason.NO_SUCH_CARD,
        Reason.BAD_COLOUR,
        Reason.COLOUR_MISSING,
        Reason.COLOUR_NOT_ALLOWED,
        Reason.CANNOT_CATCH_SELF,
        Reason.TARGET_MISSING,
        Reason.BAD_TARGET,
        Reason.TARGET_NOT_ALLOWED,
        Reason.MULTI_PLAY_OFF,
        Reason.CARDS_DO_NOT_GO_TOGETHER,
    }
)

#: For an intent that does not say what its client had seen (``Intent.seen_seq``
#: 0), the reasons taken for a race lost: those a bot choosing from its latest
#: legal actions gets only when another seat moved first (the round ended,
#: the next player began their turn, the UNO was called or caught already).
RACE_REASONS = WINDOW_RACES | frozenset(
    {Reason.ROUND_OVER, Reason.CATCH_TOO_LATE, Reason.ALREADY_CALLED, Reason.NOT_ONE_CARD}
)

#: The longest name a seat, an arena entrant or a player may have (characters).
MAX_NAME = 24


class LobbyError(Exception):
    """A lobby request that cannot be served. ``kind`` maps to a gRPC status:
    ``invalid`` (INVALID_ARGUMENT), ``not_found``, ``unauthenticated``,
    ``permission_denied``, ``failed_precondition``, ``resource_exhausted``,
    ``out_of_range``, ``unavailable``."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind

    @property
    def status(self) -> str:
        """The name of the gRPC status ``kind`` maps to ("INVALID_ARGUMENT", ...)."""
        return "INVALID_ARGUMENT" if self.kind == "invalid" else self.kind.upper()


_SPACES = re.compile(r" {2,}")


def clean_text(what: str, text: str, limit: int) -> str:
    """``text`` normalised (NFC, outer blanks stripped, runs of spaces made one)
    if it is 1..``limit`` printable characters that are not all decoration.
    Raises LobbyError("invalid") otherwise, naming ``what`` ("name", "title").

    Printable excludes control and format characters (bidi overrides, zero
    width joiners), line breaks, private-use and unassigned code points. A
    combining mark may not start the text, nor follow more than one other.
    """
    text = _SPACES.sub(" ", unicodedata.normalize("NFC", text).strip())
    problem = None
    if not 1 <= len(text) <= limit:
        problem = f"must be 1..{limit} characters"
    elif not text.isprintable():
        problem = "may contain only printable characters (no control or format characters)"
    else:
        run = 0
        for i, ch in enumerate(text):
            if unicodedata.category(ch).startswith("M"):
                run += 1
                if i == 0 or run > 2:
                    problem = "has too many combining marks"
                    break
            else:
                run = 0
    if problem:
        raise LobbyError("invalid", f"{what} {problem}")
    return text
