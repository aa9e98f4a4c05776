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

:class:`IsmctsBot` is information-set Monte Carlo search (Cowling, Powley
and Whitehouse, 2012) over those samples: every iteration samples a
determinisation and plays rounds out from it with a fast greedy-like policy
(:func:`rollout_move`), scoring who goes out first. By default
(``max_depth=1``) it searches the root only, every move on the same sample
with the same random numbers, and keeps greedy's move unless the samples
show another is better by ``margin`` standard errors; with ``max_depth`` above
1 it grows one single-observer tree shared by all samples (UCB1 with
availability counts; moves keyed by mover and card kind, not card id, so the
two red 7s of two samples are one move). Its budget per decision is a number
of iterations (samples), of milliseconds, or both (whichever ends first).

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
from collections.abc import Callable, Collection, Mapping, Sequence

from .actions import NONE, Action, ActionKind
from .bots import Bot, GreedyBot, seat_after
from .cards import COLOUR, DECK_SIZE, RANK, WILD
from .cards import STANDARD_POINTS as POINTS
from .deals import DealRandom
from .engine import GameState
from .rules import OFFICIAL, GameFormat, RuleSet
from .view import Phase, PlayerView

_PLAY = ActionKind.PLAY
_CATCH = ActionKind.CATCH
_CALL_UNO = ActionKind.CALL_UNO
_WILD_RANK = 13
_ATTACK = {12: 3, 10: 2, 11: 1}  # Draw Two, Skip, Reverse (as GreedyBot)

#: Samples per decision when no budget is given: about 30-60 ms a decision
#: on this project's 2-core machine (pure Python, 2-4 seats).
DEFAULT_ITERATIONS = 60

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


def rollout_move(state: GameState, seat: int, rng: random.Random) -> Action:
    """A fast greedy-like move for a playout (the order of
    :class:`~.bots.GreedyBot`, without building a view), from ``seat``'s
    :func:`turn_moves`: a coloured card before a Wild before a Wild Draw Four;
    among coloured cards an attack (Draw Two, Skip, Reverse) when the next
    seat holds 2 cards or fewer, then more cards laid, then leaving the
    colour held most in force, then more points; a wild names the colour
    held most. With no play, a uniform choice (draw, keep, accept, challenge)."""
    moves = turn_moves(state, seat)
    hand = state._hands[seat]
    counts = [0, 0, 0, 0, 0]
    for c in hand:
        counts[COLOUR[c]] += 1
    nxt = state._step(seat, 1)
    attack = len(state._hands[nxt]) <= 2
    best, best_key = None, None
    wild = None
    for a in moves:
        if a.kind is not _PLAY:
            continue
        card = a.card
        rank = RANK[card]
        if rank >= _WILD_RANK:
            if wild is None or rank < RANK[wild.card]:
                wild = a
            continue
        key = (
            _ATTACK.get(rank, 0) if attack else 0,
            len(a.extra),
            counts[COLOUR[card]],
            POINTS[card],
        )
        if best_key is None or key > best_key:
            best, best_key = a, key
    if best is not None:
        return best
    if wild is not None:
        colour = max(range(4), key=counts.__getitem__)
        for a in moves:
            if a.kind is _PLAY and a.card == wild.card and a.colour in (colour, NONE):
                return a
        return wild
    return moves[int(rng.random() * len(moves))]


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

    Budget per decision: ``iterations`` (samples; default
    :data:`DEFAULT_ITERATIONS` when ``time_ms`` is not given) and/or
    ``time_ms`` milliseconds (wall clock, whichever ends first; at least one
    sample). ``rules`` are the table's (default official): the view does not
    carry them. ``max_depth`` and ``margin``: see the module docstring.
    ``rollout``: ``"fast"`` (:func:`rollout_move`) or ``"greedy"`` (a
    :class:`~.bots.GreedyBot` on every seat's view: its exact opponent model
    against greedy, about 3x slower).
    ``exploration`` is UCB1's constant (the tree search); ``rollout_cap`` bounds a
    playout in actions (a playout that reaches it scores each seat by how
    few cards it holds). Raises ValueError for an unknown ``rollout``.
    ``seed`` makes it replayable under an iteration
    budget. ``clock`` (seconds, default ``time.perf_counter``) is the one
    clock of the game package: only a ``time_ms`` budget and the
    ``decisions``/``seconds`` counters of its searches read it.
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
        max_depth: int = 1,
        margin: float = 1.0,
        rollout: str = "fast",
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.rng = random.Random(seed)
        self.rules = rules or OFFICIAL
        self.iterations = iterations if iterations is not None or time_ms else DEFAULT_ITERATIONS
        self.time_ms = time_ms
        self.exploration = exploration
        self.rollout_cap = rollout_cap
        self.max_depth = max_depth
        self.margin = margin
        if rollout not in ("fast", "greedy"):
            raise ValueError(f"rollout must be 'fast' or 'greedy', not {rollout!r}")
        self._rollout_bot = GreedyBot(seed) if rollout == "greedy" else None
        self.clock = clock
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
        start = self.clock()
        if self.max_depth <= 1:
            base = self._greedy.decide(view, legal)
            base_key = move_key(base) if base is not None else next(iter(by_key))
            if base_key not in by_key:
                return base
            choice = self._paired(view, by_key, base_key)
        else:
            root = self._search(view, by_key)
            visits = {k: node.visits for (_, k), node in root.children.items() if k in by_key}
            choice = max(visits, key=visits.__getitem__)
        self.decisions += 1
        self.seconds += self.clock() - start
        return by_key[choice]

    def _budget(self) -> Callable[[int], bool]:
        """Whether iteration ``done`` (0-based) may start, under the budget."""
        clock, limit = self.clock, self.iterations
        deadline = None if not self.time_ms else clock() + self.time_ms / 1000
        return lambda done: (
            (limit is None or done < limit)
            and (deadline is None or done == 0 or clock() < deadline)
        )

    def _paired(self, view: PlayerView, allowed: Mapping[_Key, Action], base: _Key) -> _Key:
        """The depth-1 search: every iteration samples one determinisation and
        plays each root move out from it with the same random numbers, so the
        moves are compared on the same hidden cards (common random numbers:
        a far smaller error than one move per sample). It keeps ``base``
        (greedy's move) unless another move's mean paired gain over it is
        above ``margin`` standard errors: the search only overrides the
        heuristic where the samples show it is wrong."""
        rng, rules, seat = self.rng, self.rules, view.seat
        out = len(view.out_seats)
        gain = dict.fromkeys(allowed, 0.0)
        square = dict.fromkeys(allowed, 0.0)
        more = self._budget()
        done = 0
        while more(done):
            sample = determinize(view, rules, rng)
            stream = rng.getrandbits(32)
            result = {}
            for key, action in allowed.items():
                state = sample.clone()
                state.apply(seat, action)
                settle(state)
                result[key] = self._playout(state, out, random.Random(stream))[seat]
            for key, value in result.items():
                d = value - result[base]
                gain[key] += d
                square[key] += d * d
            done += 1
        best, best_z = base, self.margin
        for key in allowed:
            if gain[key] <= 0:
                continue
            variance = square[key] / done - (gain[key] / done) ** 2
            z = (gain[key] / done) / math.sqrt(max(variance, 1e-9) / done)
            if z > best_z:
                best, best_z = key, z
        return best

    def _search(self, view: PlayerView, allowed: Mapping[_Key, Action]) -> _Node:
        """The tree search (``max_depth`` above 1): one shared tree over
        every sample, UCB1 with availability counts (Cowling et al.)."""
        rng, rules, c = self.rng, self.rules, self.exploration
        root = _Node(NONE)
        more = self._budget()
        done = 0
        while more(done):
            done += 1
            state = determinize(view, rules, rng)
            node, path = root, [root]
            while (
                state.phase < Phase.ROUND_OVER
                and len(state._out) == len(view.out_seats)
                and len(path) <= self.max_depth
            ):
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
            rewards = self._playout(state, len(view.out_seats), rng)
            for node in path:
                node.visits += 1
                if node.seat >= 0:
                    node.reward += rewards[node.seat]
        return root

    def _playout(self, state: GameState, out_before: int, rng: random.Random) -> list[float]:
        """Play the round out from ``state`` by :func:`rollout_move`; per seat 1.0 for whoever goes out
        first (and a partner under ``format=teams``), else 0.0."""
        n = state.players
        for _ in range(self.rollout_cap):
            if state.phase >= Phase.ROUND_OVER or len(state._out) > out_before:
                break
            mover = state.current
            if self._rollout_bot is not None:
                legal = state.legal_actions(mover)
                move = self._rollout_bot.decide(state.view(mover), legal) or legal[0]
            else:
                move = rollout_move(state, mover, rng)
            state.apply(mover, move)
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
