"""Search over what a seat may know: determinisations and the ``ismcts`` bot.

A seat never sees the other hands, the order of the draw pile or the cards
under the top of the discard pile. :func:`determinize` samples one complete
position (a :class:`~.engine.GameState`) that agrees with everything the
seat's :class:`~.view.PlayerView` shows: its own hand, the top card, the
colour in force, every hand size and pile size, the UNO flags, the scores,
the seats out of play. Cards the seat knows to be in another hand (it saw
them taken by a challenge, or gave them away in a swap) can be placed there
with ``known``. Every other card is dealt at random from the cards the seat
has not seen, and the sampled position's own future chance (reshuffles) is
seeded from ``rng`` too, so it holds nothing of the real deck's order.

:class:`IsmctsBot` is single-observer information-set Monte Carlo tree
search (Cowling, Powley and Whitehouse, 2012): each iteration samples a
determinisation, walks one tree shared by all of them (actions keyed by card
kind, not card id, so the two red 7s of two samples are one move), expands
one move, plays the round out with a light random policy and backs up who
went out first. Its budget per decision is a number of iterations, a number
of milliseconds, or both (whichever ends first).

>>> from unoplay.game import GameState, RuleSet
>>> from unoplay.game.search import IsmctsBot, determinize
>>> import random
>>> state, _ = GameState.new(3, RuleSet(), seed="doc")
>>> sample = determinize(state.view(0), RuleSet(), random.Random(1))
>>> sample.hand(0) == state.hand(0), [len(sample.hand(s)) for s in range(3)]
(True, [7, 7, 7])
>>> bot = IsmctsBot(seed=1, iterations=50)
>>> seat = state.current
>>> bot.decide(state.view(seat), state.legal_actions(seat)) in state.legal_actions(seat)
True
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Collection, Mapping, Sequence

from .actions import NONE, Action, ActionKind
from .bots import Bot, GreedyBot, seat_after
from .cards import COLOUR, DECK_SIZE, RANK, WILD
from .deals import DealRandom
from .engine import GameState
from .rules import OFFICIAL, GameFormat, RuleSet
from .view import Phase, PlayerView

_PLAY = ActionKind.PLAY
_CATCH = ActionKind.CATCH
_CALL_UNO = ActionKind.CALL_UNO
_WILD_RANK = 13

#: A card's kind 0..53: colour * 13 + rank for the coloured cards, 52 Wild, 53
#: Wild Draw Four. Two cards of one kind play alike.
KIND: tuple[int, ...] = tuple(
    COLOUR[c] * 13 + RANK[c] if COLOUR[c] != WILD else 52 + RANK[c] - 13 for c in range(DECK_SIZE)
)

#: (kind, kinds of the cards played, colour, uno, target): a move as a tree edge.
_Key = tuple[int, tuple[int, ...], int, bool, int]


def determinize(
    view: PlayerView,
    rules: RuleSet,
    rng: random.Random,
    known: Mapping[int, Collection[int]] | None = None,
) -> GameState:
    """A complete position consistent with ``view`` (seat ``view.seat``'s
    information state), the hidden cards dealt at random by ``rng``.

    ``rules`` are the table's (the view does not carry them). ``known`` maps
    a seat to cards the viewer knows it holds (each must be unseen by the
    view, and at most that seat's hand size). Hidden facts that are not
    cards are sampled as well: under a pending Wild Draw Four, whether its
    play was illegal (probability ``1 - 0.75 ** hand size`` of its player's
    hand; RULES.md section 4), and another seat's just-drawn card (a card of
    its sampled hand).

    Raises ValueError when the view is not one seat's (a spectator's,
    ``seat == -1``) or ``known`` does not fit it.
    """
    seat = view.seat
    n = len(view.hand_sizes)
    if not 0 <= seat < n:
        raise ValueError("determinize needs a seat's view, not a spectator's")
    seen = set(view.hand)
    seen.add(view.top_card)
    placed: list[list[int]] = [[] for _ in range(n)]
    placed[seat] = list(view.hand)
    for other, cards in (known or {}).items():
        cards = [c for c in cards if c not in seen]
        if other == seat or len(cards) > view.hand_sizes[other]:
            raise ValueError(f"known cards of seat {other} do not fit the view")
        seen.update(cards)
        placed[other] = cards
    unseen = [c for c in range(DECK_SIZE) if c not in seen]
    draw = rng.random
    unseen.sort(key=lambda _: draw())  # a uniform shuffle, faster than rng.shuffle
    for other in range(n):
        if other != seat:
            need = view.hand_sizes[other] - len(placed[other])
            placed[other] += unseen[len(unseen) - need :] if need else []
            del unseen[len(unseen) - need :]
    under = view.discard_pile_size - 1
    discard_under, draw_pile = unseen[:under], unseen[under:]
    if len(draw_pile) != view.draw_pile_size:
        raise ValueError("the view's hand and pile sizes do not add up to 108 cards")
    phase = view.phase
    current = view.current
    wd4_by, guilty = NONE, False
    if phase is Phase.PENALTY:
        wd4_by = seat_after(view, current, -1)
        guilty = rng.random() < 1.0 - 0.75 ** len(placed[wd4_by])
    drawn = view.drawn_card
    if phase is Phase.DRAWN and current != seat:
        drawn = placed[current][-1]
    state = GameState.from_position(
        placed,
        view.top_card,
        rules=rules,
        draw_pile=draw_pile,
        discard_under=discard_under,
        colour=view.colour,
        current=current,
        direction=view.direction,
        phase=phase if phase < Phase.ROUND_OVER else Phase.PLAY,
        pending=view.pending_penalty,
        wd4_by=wd4_by,
        wd4_guilty=guilty,
        drawn_card=drawn,
        uno_called=view.uno_called,
        catchable=view.catchable,
        scores=view.scores,
        dealer=view.dealer,
        out_seats=view.out_seats,
    )
    state._round = view.round_number
    state._rng = DealRandom(str(rng.getrandbits(64)))
    return state


def move_key(action: Action) -> _Key:
    """``action`` as a tree edge: its cards by kind (:data:`KIND`), so the
    same move made with either copy of a card is one edge, and a multi-card
    play by its set of kinds, whichever leads (as the dense index numbers it)."""
    kind, card, colour, uno, target, extra = action
    if kind is _PLAY:
        if not extra:
            return (kind, (KIND[card],), colour, uno, target)
        return (kind, tuple(sorted([KIND[card], *[KIND[c] for c in extra]])), colour, uno, target)
    return (kind, (), colour, False, target)


def turn_moves(state: GameState, seat: int) -> list[Action]:
    """``seat``'s moves the search considers: its legal actions without
    catches and lone UNO calls (the simulation settles those at once, see
    :func:`settle`), and a play that may call UNO always calls it."""
    legal = state.legal_actions(seat)
    calls = {(a.card, a.colour, a.target, a.extra) for a in legal if a.kind is _PLAY and a.uno}
    return [
        a
        for a in legal
        if a.kind is not _CATCH
        and a.kind is not _CALL_UNO
        and not (a.kind is _PLAY and not a.uno and (a.card, a.colour, a.target, a.extra) in calls)
    ]


def settle(state: GameState) -> None:
    """The out-of-turn actions of a simulated position, taken at once: a seat
    holding one card uncalled calls UNO (or, if it cannot, the next seat
    catches it). Jump-ins are not simulated."""
    caught = state.catchable
    if caught >= 0 and state.phase < Phase.ROUND_OVER:
        if not state.uno_called(caught) and any(
            a.kind is _CALL_UNO for a in state.legal_actions(caught)
        ):
            state.apply(caught, Action(_CALL_UNO))
        else:
            for other in range(state.players):
                if other != caught and any(a.kind is _CATCH for a in state.legal_actions(other)):
                    state.apply(other, Action(_CATCH, target=caught))
                    break


class _Node:
    """One edge's statistics in the shared tree: who moved (``seat``), how
    often the edge was taken (``visits``) and available (``avail``), and the
    mover's total reward over its visits. Children are keyed by (mover, move):
    after a draw, the next mover depends on the sample."""

    __slots__ = ("avail", "children", "reward", "seat", "visits")

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.visits = 0
        self.avail = 1
        self.reward = 0.0
        self.children: dict[tuple[int, _Key], _Node] = {}


class IsmctsBot(Bot):
    """Information-set MCTS (single observer) on the bot's turns; out of turn
    (catches, its own UNO call, jump-ins) it acts as :class:`~.bots.GreedyBot`.

    Budget per decision: ``iterations`` (default 300 when ``time_ms`` is not
    given) and/or ``time_ms`` milliseconds (wall clock, whichever ends
    first). ``rules`` are the table's (default official): the view does not
    carry them. ``exploration`` is UCB1's constant; ``rollout_cap`` bounds a
    playout in actions (a playout that reaches it scores each seat by how
    few cards it holds). ``seed`` makes it replayable under an iteration
    budget. ``decisions`` and ``seconds`` count its searches and their time.
    """

    name = "ismcts"
    needs_rules = True

    def __init__(
        self,
        seed: int | None = None,
        rules: RuleSet | None = None,
        *,
        iterations: int | None = None,
        time_ms: float | None = None,
        exploration: float = 0.7,
        rollout_cap: int = 400,
    ) -> None:
        self.rng = random.Random(seed)
        self.rules = rules or OFFICIAL
        self.iterations = iterations if iterations is not None or time_ms else 300
        self.time_ms = time_ms
        self.exploration = exploration
        self.rollout_cap = rollout_cap
        self._greedy = GreedyBot(seed)
        self.decisions = 0
        self.seconds = 0.0

    def decide(self, view: PlayerView, legal: Sequence[Action]) -> Action | None:
        """Out of turn, or when it can catch or must call UNO: greedy's
        answer. On its turn with more than one move: the move the search
        visited most."""
        seat = view.seat
        if view.current != seat or any(
            a.kind is _CATCH or (a.kind is _CALL_UNO and view.catchable == seat) for a in legal
        ):
            return self._greedy.decide(view, legal)
        moves = [a for a in legal if a.kind is not _CALL_UNO]
        by_key = {move_key(a): a for a in moves}
        if len(by_key) <= 1:
            return moves[0] if moves else self._greedy.decide(view, legal)
        start = time.perf_counter()
        root = self._search(view, by_key)
        self.decisions += 1
        self.seconds += time.perf_counter() - start
        visits = {k: node.visits for (_, k), node in root.children.items() if k in by_key}
        return by_key[max(visits, key=visits.__getitem__)]

    def _search(self, view: PlayerView, allowed: Mapping[_Key, Action]) -> _Node:
        rng, rules, c = self.rng, self.rules, self.exploration
        root = _Node(NONE)
        deadline = None if not self.time_ms else time.perf_counter() + self.time_ms / 1000
        limit = self.iterations
        done = 0
        while (limit is None or done < limit) and (
            deadline is None or time.perf_counter() < deadline
        ):
            done += 1
            state = determinize(view, rules, rng)
            node, path = root, [root]
            while state.phase < Phase.ROUND_OVER and len(state._out) == len(view.out_seats):
                mover = state.current
                moves = turn_moves(state, mover)
                if node is root:
                    moves = [a for a in moves if move_key(a) in allowed] or moves
                keyed = {(mover, move_key(a)): a for a in moves}
                children = node.children
                untried = [k for k in keyed if k not in children]
                if untried:
                    key = untried[int(rng.random() * len(untried))]
                    child = children[key] = _Node(mover)
                    state.apply(mover, keyed[key])
                    settle(state)
                    path.append(child)
                    break
                log_total = 0.0
                best_key, best_value = None, -1.0
                for key in keyed:
                    child = children[key]
                    child.avail += 1
                    log_total = math.log(child.avail)
                    value = child.reward / child.visits + c * math.sqrt(log_total / child.visits)
                    if value > best_value:
                        best_key, best_value = key, value
                assert best_key is not None
                node = children[best_key]
                state.apply(mover, keyed[best_key])
                settle(state)
                path.append(node)
            rewards = self._playout(state, len(view.out_seats))
            for node in path:
                node.visits += 1
                if node.seat >= 0:
                    node.reward += rewards[node.seat]
        return root

    def _playout(self, state: GameState, out_before: int) -> list[float]:
        """Play the round out from ``state`` by a light random policy (a play
        rather than a draw, a coloured card rather than a wild); per seat 1.0 for whoever goes out
        first (and a partner under ``format=teams``), else 0.0."""
        rng = self.rng
        n = state.players
        for _ in range(self.rollout_cap):
            if state.phase >= Phase.ROUND_OVER or len(state._out) > out_before:
                break
            mover = state.current
            moves = turn_moves(state, mover)
            plays = [a for a in moves if a.kind is _PLAY]
            pick = [a for a in plays if RANK[a.card] < _WILD_RANK] or plays or moves
            state.apply(mover, pick[int(rng.random() * len(pick))])
            settle(state)
        winner = state.round_winner
        if len(state._out) > out_before:
            winner = state._out[out_before]
        rewards = [0.0] * n
        if winner >= 0:
            rewards[winner] = 1.0
            if self.rules.format is GameFormat.TEAMS:
                rewards[(winner + n // 2) % n] = 1.0
        else:  # capped: fewer cards is better
            sizes = [len(state.hand(s)) for s in range(n)]
            low = min(sizes)
            for s in range(n):
                rewards[s] = 1.0 / (1 + sizes[s] - low)
        return rewards
