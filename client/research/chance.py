"""The engine with its chance taken from outside, one outcome at a time: the
core of the OpenSpiel game (:mod:`.openspiel`), free of OpenSpiel itself.

The engine draws all its chance through one object, its ``rng`` (RULES.md,
"Fair deals"): ``below(n)``, a number ``0..n-1``, for every card taken from
a part of a pile not shuffled yet (the dealer draw, the deal, the starter,
a draw after a reshuffle; the engine shuffles lazily, one Fisher-Yates step
per card drawn), and ``shuffle_steps`` built on the same steps. The server's
games keep their seeded :class:`~unoplay.game.deals.DealRandom`, unchanged;
here a :class:`ScriptedChance` stands in for it: it answers ``below(n)`` from
a list of outcomes and raises :class:`NeedChance` ``(n)`` when the list is
used up. :class:`Table` runs each engine call (the set-up, an action, the
next round's deal) on a copy of the last settled state with the outcomes
chosen so far; a :class:`NeedChance` makes the table a chance node with ``n``
equally likely outcomes, and once an outcome is chosen the call is run again
from the settled state with one more. So a game is a history: the outcomes
and actions in order, nothing else. (Calls that draw ``k`` cards are run up
to ``k + 1`` times: at most 109 times for the deal, a few milliseconds.)

A chance outcome ``j`` of ``below(n)`` swaps the ``j``-th card of the
unshuffled part of the pile to its top: the outcomes name positions, not
cards, and every position is equally likely (the engine's deals are uniform
whatever the order of the pile). A node with one outcome is taken at once.

Out-of-turn actions (catches, late UNO calls, jump-ins) are asked as the
PettingZoo environment asks them (:mod:`.env`): after every action each seat
that may act out of turn (:func:`~unoplay.game.bots.waiting_seats`) is asked
in seat order, with those actions and the pass; the first that acts wins,
then a new window opens; when all passed, the current player moves.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from copy import copy
from typing import Any

from unoplay.game import GameState, RuleSet
from unoplay.game.actions import Action
from unoplay.game.bots import waiting_seats
from unoplay.game.cards import card_name
from unoplay.game.events import Event, EventKind
from unoplay.game.search import KIND, HandTracker, determinize

#: A settled table's next engine call: set-up, an action of a seat, the next deal.
_NEW, _APPLY, _NEXT = "new", "apply", "next"


class NeedChance(Exception):
    """The engine asked for a chance outcome beyond those given: ``n`` of them."""

    def __init__(self, n: int) -> None:
        super().__init__(n)
        self.n = n


class ScriptedChance:
    """A chance source for :class:`~unoplay.game.GameState` (``rng=``) that
    answers from ``outcomes`` in order and raises :class:`NeedChance` when
    they are used up. ``below(n)`` checks ``0 <= outcome < n`` (ValueError)."""

    __slots__ = ("at", "outcomes")

    def __init__(self, outcomes: Sequence[int] = ()) -> None:
        self.outcomes = list(outcomes)
        self.at = 0

    def below(self, n: int) -> int:
        """The next outcome, a number in ``0..n-1``."""
        if self.at == len(self.outcomes):
            raise NeedChance(n)
        value = self.outcomes[self.at]
        if not 0 <= value < n:
            raise ValueError(f"chance outcome {value} is outside 0..{n - 1}")
        self.at += 1
        return value

    def shuffle_steps(self, items: list[int], start: int, stop: int) -> None:
        """Fisher-Yates steps as :meth:`~unoplay.game.deals.DealRandom.shuffle_steps`,
        each from :meth:`below`."""
        for i in range(start - 1, stop - 1, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def copy(self) -> ScriptedChance:
        """An independent source at the same point."""
        return ScriptedChance(self.outcomes[self.at :])


def event_text(event: Event) -> str:
    """``event`` in a few words, cards by face (two copies of a card read
    the same), e.g. ``"played 2 [red 7] colour 0"``."""
    parts = [event.kind.name.lower(), str(event.player)]
    if event.cards:
        parts.append("[" + ",".join(card_name(c) for c in event.cards) + "]")
    for name in ("count", "colour", "target", "value"):
        value = getattr(event, name)
        if value != (0 if name in ("count", "value") else -1):
            parts.append(f"{name} {value}")
    return " ".join(parts)


class Table:
    """One game (``players`` seats under ``rules``) whose chance comes from
    outside: see the module docstring. Read :attr:`state` (the settled
    :class:`~unoplay.game.GameState`, None before the set-up is dealt),
    :meth:`chance_outcomes` (``n`` while a chance outcome is wanted, else 0)
    and :meth:`to_move`; drive with :meth:`apply_chance`, :meth:`apply`,
    :meth:`pass_turn`. A round reaching ``max_round_actions`` actions ends
    the game with no winner (``state.cap_round``)."""

    def __init__(self, players: int, rules: RuleSet, max_round_actions: int = 2000) -> None:
        self.players = players
        self.rules = rules
        self.max_round_actions = max_round_actions
        self.state: GameState | None = None
        #: every event so far, private ones too
        self.log: list[Event] = []
        #: (audience, words) of every event and pass so far (audience -1: everyone)
        self.texts: list[tuple[int, str]] = []
        #: per card kind (54): cards played this round, as a public memory
        self.played = [0] * 54
        self.window: list[int] = []
        self.round_actions = 0
        self._call: tuple[Any, ...] | None = (_NEW,)
        self._outcomes: list[int] = []
        self._need = 0
        self._run()

    def __deepcopy__(self, memo: dict[int, Any]) -> Table:
        """A cheap independent copy (OpenSpiel clones states by deep copy)."""
        other: Table = copy(self)
        other.state = None if self.state is None else self.state.clone()
        other.log = self.log[:]
        other.texts = self.texts[:]
        other.played = self.played[:]
        other.window = self.window[:]
        other._outcomes = self._outcomes[:]
        return other

    # ------------------------------------------------------------ queries

    def chance_outcomes(self) -> int:
        """How many equally likely chance outcomes are wanted now (0: none)."""
        return self._need

    @property
    def is_over(self) -> bool:
        """True once the game is over (won, or capped)."""
        return self.state is not None and self._need == 0 and self.state.is_game_over

    def to_move(self) -> int:
        """The seat to act: the first seat of the out-of-turn window, else the
        current player. Only meaningful when no chance is wanted and the game is on."""
        assert self.state is not None
        return self.window[0] if self.window else self.state.current

    def legal_actions(self, seat: int) -> list[Action]:
        """The engine's legal actions of ``seat`` now (the pass not included)."""
        assert self.state is not None
        return self.state.legal_actions(seat)

    def may_pass(self, seat: int) -> bool:
        """Whether ``seat`` is asked out of turn now (and so may pass)."""
        return bool(self.window) and self.window[0] == seat

    # ------------------------------------------------------------ actions

    def apply_chance(self, outcome: int) -> None:
        """Take chance ``outcome`` (``0..chance_outcomes() - 1``; ValueError otherwise)."""
        if not 0 <= outcome < self._need:
            raise ValueError(f"chance outcome {outcome} is outside 0..{self._need - 1}")
        self._outcomes.append(outcome)
        self._run()

    def apply(self, seat: int, action: Action) -> None:
        """``seat`` takes ``action``, one of its listed legal actions
        (ValueError otherwise, the table unchanged)."""
        assert self.state is not None and self._need == 0
        if action not in self.state.legal_actions(seat):
            raise ValueError(f"{action.describe()!r} is not legal for seat {seat} now")
        self.window = []
        self._call = (_APPLY, seat, action)
        self._outcomes = []
        self._run()

    def pass_turn(self, seat: int) -> None:
        """``seat``, asked out of turn, passes. ValueError if it is not asked."""
        if not self.may_pass(seat):
            raise ValueError(f"seat {seat} is not asked out of turn")
        self.window.pop(0)
        self.texts.append((-1, f"pass {seat}"))

    def _run(self) -> None:
        """Run the pending engine call with the outcomes so far; settle it if
        it needs no more (taking single-outcome chance at once)."""
        call = self._call
        assert call is not None
        while True:
            chance = ScriptedChance(self._outcomes)
            try:
                if call[0] == _NEW:
                    state, events = GameState.new(self.players, self.rules, "outside", rng=chance)
                else:
                    assert self.state is not None
                    state = self.state.clone()
                    state.rng = chance
                    events = (
                        state.apply(call[1], call[2]) if call[0] == _APPLY else state.next_round()
                    )
            except NeedChance as need:
                if need.n == 1:
                    self._outcomes.append(0)
                    continue
                self._need = need.n
                return
            break
        self._need = 0
        self._call = None
        state.rng = ScriptedChance()
        self.state = state
        self._record(events)
        if call[0] == _APPLY:
            self.round_actions += 1
            if state.is_round_over and not state.is_game_over:
                self._call = (_NEXT,)
                self._outcomes = []
                self._run()
                return
            if not state.is_round_over and self.round_actions >= self.max_round_actions:
                self._record(state.cap_round(self.round_actions))
        else:
            self.round_actions = 0
        if not state.is_game_over:
            self.window = waiting_seats(state)

    def _record(self, events: list[Event]) -> None:
        played = self.played
        for e in events:
            if e.kind is EventKind.ROUND_STARTED:
                played[:] = [0] * 54
            elif e.kind is EventKind.PLAYED:
                for card in e.cards:
                    played[KIND[card]] += 1
        self.log += events
        self.texts += [(e.audience, event_text(e)) for e in events]

    # ------------------------------------------------------------ information

    def seen(self, seat: int) -> list[str]:
        """What ``seat`` saw, in order: every event it may see and every pass,
        in words (:func:`event_text`). Its information state, perfect recall."""
        return [text for audience, text in self.texts if audience < 0 or audience == seat]

    def resample(self, seat: int, rng: random.Random) -> Table:
        """A copy of this table whose hidden cards (the other hands, the piles'
        order, a pending Wild Draw Four's guilt) are dealt again at random,
        agreeing with ``seat``'s view and with the cards it knows another
        seat holds (shown to it by a challenge, given away by a swap):
        :func:`~unoplay.game.search.determinize`. What ``seat`` saw is kept,
        so its information state is the same. Not every fact of the history
        is kept: a seat that drew may be dealt a card that fitted. Only for a
        settled table (no chance wanted) whose game is on."""
        assert self.state is not None and self._need == 0 and not self.state.is_game_over
        view = self.state.view(seat)
        tracker = HandTracker(self.rules)
        tracker.observe([e for e in self.log if e.visible_to(seat)])
        known, _ = tracker.beliefs(view)
        sample = determinize(view, self.rules, rng, known)
        sample.first_play = self.state.first_play
        sample.rng = ScriptedChance()
        other = self.__deepcopy__({})
        other.state = sample
        return other
