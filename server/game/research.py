"""The researchers' face of the engine, in the style of OpenSpiel's
``Game``/``State``: a :class:`Game` holds the rules and the seat count, makes
states (:class:`~.engine.GameState`) and numbers every action the rules allow
densely, 0..``num_distinct_actions() - 1``, for fixed-size action spaces and
masks (reinforcement learning, search).

>>> from unoplay.game import Game, DRAW
>>> game = Game(players=2)
>>> game.num_distinct_actions(), game.action_index(DRAW)
(275, 0)
>>> state = game.new_initial_state(seed="doc")
>>> mask = game.legal_mask(state, state.current)
>>> sum(mask) == len(state.legal_actions(state.current))
True
>>> game.action_from_index(game.action_index(DRAW)) == DRAW
True

The index depends on the rules (a table without multi-play has no
multi-card plays; without ``seven_zero`` a 7 takes no target) and the seat
count (one catch per seat). A play of several cards is numbered by its set of
cards, whichever of them leads: the engine lists each set once, so a seat's
legal actions never share an index.

**Canonical actions** (``Game(..., canonical=True)``): one index per distinct
decision, cards named by face (colour and rank, :data:`~.search.KIND`) rather
than by copy: the two red 7s are one action (a play of both, one more),
each with the UNO flag or without, a wild with each colour named, a catch by
its target. When a seat holds two copies, :meth:`Game.legal_actions_by_index`
maps the index to the first the engine lists (the engine's choice of copy);
:meth:`Game.action_from_index` gives the copies of lowest id.

>>> Game(players=2, canonical=True).num_distinct_actions()
131
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from .actions import (
    ACCEPT,
    CALL_UNO,
    CHALLENGE,
    DRAW,
    KEEP,
    NONE,
    Action,
    ActionKind,
    catch,
    choose_colour,
    play,
)
from .cards import COLOUR, DECK_SIZE, IS_WILD, RANK, WILD
from .engine import GameState
from .rules import OFFICIAL, MultiPlay, RuleSet
from .search import KIND

#: (kind, cards, colour, uno, target): an action, whichever of its cards leads.
_Key = tuple[int, tuple[int, ...], int, bool, int]
_IDENTITY = tuple(range(DECK_SIZE))


def _key(action: Action, names: Sequence[int] = _IDENTITY) -> _Key:
    """``action``'s key, its cards as ``names[card]`` (ids, or faces: KIND)."""
    kind, card, colour, uno, target, extra = action
    if kind is ActionKind.PLAY:
        return (kind, tuple(sorted([names[card], *[names[c] for c in extra]])), colour, uno, target)
    return (kind, (), colour, False, target)


class Game:
    """One kind of game: ``players`` seats (2..10) under ``rules`` (default
    official); ``canonical`` numbers cards by face, not by copy (see the
    module docstring). Raises ValueError / RuleError like :class:`~.engine.GameState`."""

    def __init__(
        self, players: int = 4, rules: RuleSet | None = None, canonical: bool = False
    ) -> None:
        self.players = players
        self.rules = rules = rules or OFFICIAL
        self.canonical = canonical
        rules.check_players(players)
        GameState(players, rules, seed="check")  # the same checks as a state's
        self._names: Sequence[int] = KIND if canonical else _IDENTITY
        self._actions: list[Action] = []
        self._index: dict[_Key, int] = {}
        for action in self._enumerate():  # the first of each key (lowest card ids) stands for it
            key = _key(action, self._names)
            if key not in self._index:
                self._index[key] = len(self._actions)
                self._actions.append(action)
        # Each action as the engine lists it (any lead), its index: filled as met.
        self._seen: dict[Action, int] = {}

    def new_initial_state(self, seed: str | int | None = None) -> GameState:
        """A new game, dealt (the dealer draw and round 1); ``seed`` None is a
        fresh secret one (RULES.md, "Fair deals")."""
        state, _ = GameState.new(self.players, self.rules, seed)
        return state

    def num_distinct_actions(self) -> int:
        """How many actions these rules and seats allow at all: the size of the index."""
        return len(self._actions)

    def action_index(self, action: Action) -> int:
        """The dense index of ``action``. Raises ValueError for an action these
        rules can never allow (a target without a swapping rule, say)."""
        try:
            return self._index[_key(action, self._names)]
        except KeyError:
            raise ValueError(f"{action.describe()!r} is not an action of this game") from None

    def action_from_index(self, index: int) -> Action:
        """The action numbered ``index`` (a multi-card play led by its lowest
        card id; :meth:`legal_actions_by_index` gives the lead the engine
        lists). Raises IndexError outside 0..num_distinct_actions() - 1."""
        if not 0 <= index < len(self._actions):
            raise IndexError(f"action index {index} is outside 0..{len(self._actions) - 1}")
        return self._actions[index]

    def legal_actions_by_index(self, state: GameState, seat: int) -> dict[int, Action]:
        """``seat``'s legal actions now, keyed by their dense index (canonical:
        of actions that share an index, the first the engine lists)."""
        seen = self._seen
        out: dict[int, Action] = {}
        for a in state.legal_actions(seat):
            i = seen.get(a)
            if i is None:
                i = seen[a] = self._index[_key(a, self._names)]
            if i not in out:
                out[i] = a
        return out

    def legal_mask(self, state: GameState, seat: int) -> list[bool]:
        """One flag per index: may ``seat`` take that action now?"""
        mask = [False] * len(self._actions)
        for i in self.legal_actions_by_index(state, seat):
            mask[i] = True
        return mask

    def _enumerate(self) -> list[Action]:
        rules, n = self.rules, self.players
        actions = [DRAW, KEEP, CHALLENGE, ACCEPT, CALL_UNO]
        actions += [choose_colour(c) for c in range(4)] + [catch(p) for p in range(n)]
        wild_colours = [0, 1, 2, 3] + ([NONE] if rules.unnamed_wild_keeps_colour else [])

        def targets(rank: int) -> Sequence[int]:
            swaps = (rank == 7 and rules.seven_zero) or (rank == 5 and rules.swap_on_five)
            return [NONE, *range(n)] if swaps else [NONE]

        for card in range(DECK_SIZE):
            for colour in wild_colours if IS_WILD[card] else [NONE]:
                for uno in (False, True):
                    for target in targets(RANK[card]):
                        actions.append(play(card, None if colour == NONE else colour, uno, target))
        if rules.multi_play is MultiPlay.OFF:
            return actions
        identical = rules.multi_play is MultiPlay.IDENTICAL
        for rank in range(15):
            group = [c for c in range(DECK_SIZE) if RANK[c] == rank]
            for size in range(2, len(group) + 1):
                for cards in combinations(group, size):
                    kinds = {COLOUR[c] for c in cards}
                    if identical and len(kinds) > 1:
                        continue
                    if WILD in kinds:
                        colours = wild_colours
                    else:
                        colours = sorted(kinds) if len(kinds) > 1 else [NONE]
                    for colour in colours:
                        for uno in (False, True):
                            for target in targets(rank):
                                actions.append(
                                    play(
                                        cards[0],
                                        None if colour == NONE else colour,
                                        uno,
                                        target,
                                        cards[1:],
                                    )
                                )
        return actions
