"""What a table keeps of the game in progress for its record: every action
applied (who, what, from whom, when) and every card dealt or drawn.

A long game (ten seats to 100,000 points is about 200,000 actions) must not
cost its table tens of megabytes, so the record is kept in flat arrays of
numbers, a few bytes an action, and turned back into game values only when
the game is stored, replayed or tested. An action is kept as its wire id
(:func:`.wire.action_id`); the rare one that id does not give back exactly
(a refused play kept for its penalty, with fields no legal action has) is
kept as it is.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator

from unoplay.game.actions import Action
from unoplay.protocol import ActionSource
from unoplay.wire import action_from_id, action_id

#: The sources of an action, by their code in the record.
SOURCES = (ActionSource.PLAYER, ActionSource.BOT, ActionSource.STAND_IN, ActionSource.TIMER)
_SOURCE_CODE: dict[str, int] = {name: code for code, name in enumerate(SOURCES)}
_SERVER_CODES = (
    bytes((_SOURCE_CODE[ActionSource.TIMER],)),
    bytes((_SOURCE_CODE[ActionSource.STAND_IN],)),
)


class History:
    """The record of one game in progress (see the module docstring).

    Iterating gives ``(seat, action)`` per applied action, in order;
    ``len()`` is their count. ``sources`` and ``times_ms`` give, per action,
    who made it (one of :data:`SOURCES`) and its time in milliseconds after
    the game's start; ``received`` every card dealt or drawn as ``(actions
    applied before, event kind, player, cards)``, for ``uno verify``."""

    __slots__ = ("_ids", "_ms", "_odd", "_received", "_seats", "_sources")

    def __init__(self) -> None:
        self._seats = array("b")
        self._ids = array("i")  # wire ids: under 2**31
        self._sources = bytearray()
        self._ms = array("q")
        self._odd: dict[int, Action] = {}  # index -> an action its id does not give back
        # flat: actions applied before, kind, player, count, then that many cards
        self._received = array("i")

    def append(self, seat: int, action: Action, source: str, ms: int, ident: int = 0) -> None:
        """Record ``action`` of ``seat`` from ``source`` (one of :data:`SOURCES`;
        KeyError otherwise) at ``ms`` milliseconds after the start. ``ident``:
        the wire id ``action`` was read from (0: none, it is computed)."""
        if not ident:
            ident = action_id(action)
            if action_from_id(ident) != action:
                self._odd[len(self._ids)] = action
        self._sources.append(_SOURCE_CODE[source])
        self._seats.append(seat)
        self._ids.append(ident)
        self._ms.append(ms)

    def receive(self, kind: int, player: int, cards: tuple[int, ...]) -> None:
        """Record ``cards`` dealt or drawn by ``player`` (event ``kind``) now."""
        self._received.extend((len(self._ids), kind, player, len(cards)))
        self._received.extend(cards)

    def __len__(self) -> int:
        return len(self._ids)

    def server_made(self) -> bool:
        """True when the timer or a stand-in made an action of this game."""
        sources = self._sources
        return _SERVER_CODES[0] in sources or _SERVER_CODES[1] in sources

    def tally(self) -> dict[tuple[int, str], int]:
        """How many actions each ``(seat, source)`` made (sources: :data:`SOURCES`)."""
        counts: dict[tuple[int, str], int] = {}
        for seat, code in zip(self._seats, self._sources):
            key = (seat, SOURCES[code])
            counts[key] = counts.get(key, 0) + 1
        return counts

    def __iter__(self) -> Iterator[tuple[int, Action]]:
        odd = self._odd
        for i, (seat, ident) in enumerate(zip(self._seats, self._ids)):
            action = odd.get(i) if odd else None
            if action is None:
                action = action_from_id(ident)
                assert action is not None
            yield seat, action

    @property
    def sources(self) -> list[str]:
        """Who made each action: one of :data:`SOURCES` per action."""
        return [SOURCES[code] for code in self._sources]

    @property
    def times_ms(self) -> list[int]:
        """Each action's time, in milliseconds after the game's start."""
        return self._ms.tolist()

    @property
    def received(self) -> list[tuple[int, int, int, tuple[int, ...]]]:
        """Every card dealt or drawn: ``(actions applied before, event kind,
        player, cards)`` in the order they were received."""
        flat = self._received
        out = []
        i = 0
        while i < len(flat):
            step, kind, player, n = flat[i : i + 4]
            out.append((step, kind, player, tuple(flat[i + 4 : i + 4 + n])))
            i += 4 + n
        return out

    def nbytes(self) -> int:
        """About how many bytes the record holds (its arrays' contents)."""
        arrays = (self._seats, self._ids, self._ms, self._received)
        return len(self._sources) + sum(a.itemsize * len(a) for a in arrays)
