"""Search over what a seat may know: determinisations and the ``ismcts`` bot.

A seat never sees the other hands, the order of the draw pile or the cards
under the top of the discard pile. :func:`determinize` samples one complete
position (a :class:`~.engine.GameState`) that agrees with everything the
seat's :class:`~.view.PlayerView` shows: its own hand, the top card, the
colour in force, every hand size and pile size, the UNO flags, the scores,
the seats out of play. Cards the seat knows to be in another hand (it saw
them taken by a challenge, or gave them away in a swap) can be placed there
with ``known``, and what the others' hidden cards cannot be is met with
``constraints``: :class:`HandTracker` infers both from the events the seat
saw. Every other card is dealt at random from the cards the seat
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
from functools import lru_cache

from .actions import ACCEPT, DRAW, NONE, Action, ActionKind
from .bots import Bot, GreedyBot, seat_after
from .cards import COLOUR, DECK_SIZE, RANK, WILD
from .deals import DealRandom
from .engine import GameState, illegal_wild_draw_four
from .events import Event, EventKind
from .playorder import ATTACKING, NOT_ATTACKING, play_key
from .rules import OFFICIAL, Direction, GameFormat, RuleSet
from .view import Phase, PlayerView

_PLAY = ActionKind.PLAY
_CATCH = ActionKind.CATCH
_CHALLENGE = ActionKind.CHALLENGE
_CALL_UNO = ActionKind.CALL_UNO
_DRAW = ActionKind.DRAW
_KEEP = ActionKind.KEEP
_PLAYING = Phase.PLAY
_DRAWN = Phase.DRAWN
_ROUND_OVER = Phase.ROUND_OVER
_WILD_RANK = 13

#: The budget per decision when none is given: this many samples, and at
#: most :data:`DEFAULT_TIME_MS` milliseconds (whichever ends first). Here, on
#: this project's 2-core machine with the other core busy, 100 samples take
#: about 27 ms on average at four seats with the compiled build (55 ms pure
#: Python) and up to about 130 ms (a decision of many moves).
DEFAULT_ITERATIONS = 100
DEFAULT_TIME_MS = 90.0
#: After how many samples a depth-1 search drops the moves clearly worse
#: than greedy's (``IsmctsBot(prune=...)``).
PRUNE_AFTER = (20, 40)

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
    constraints: Mapping[int, Sequence[Constraint]] | None = None,
    wd4_before: tuple[int, int] | None = None,
) -> GameState:
    """A complete position consistent with ``view`` (seat ``view.seat``'s
    information state), the hidden cards dealt at random by ``rng``.

    ``rules`` are the table's (the view does not carry them). ``known`` maps
    a seat to cards the viewer knows it holds (each must be unseen by the
    view, and at most that seat's hand size). ``constraints`` maps a seat to
    what some of its other cards cannot be (one :data:`Constraint` per card,
    as :class:`HandTracker` infers them): each is dealt a card that meets it
    when one is left, the most constrained first. Hidden facts that are not
    cards are sampled as well: under a pending Wild Draw Four, whether its
    play was illegal (RULES.md section 4), and another seat's just-drawn card
    (a card of its sampled hand). The play is judged on the sampled hand of
    its player when ``wd4_before`` gives the (colour in force, top card) it
    was played on (:attr:`HandTracker.wd4_before`), so that the guilt agrees
    with what the viewer inferred of that hand; without it, guilty with
    probability ``1 - 0.75 ** hand size`` (a hand of random cards).

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
    for other, wanted in (constraints or {}).items():
        if other == seat or not 0 <= other < n:
            continue
        room = view.hand_sizes[other] - len(placed[other])
        for excluded in sorted(wanted, key=_strictness, reverse=True)[: max(room, 0)]:
            for i in range(len(unseen) - 1, -1, -1):
                card = unseen[i]
                if not excluded >> card & 1:
                    placed[other].append(card)
                    unseen[i] = unseen[-1]
                    unseen.pop()
                    break
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
        if wd4_before is None:
            guilty = rng.random() < 1.0 - 0.75 ** len(placed[wd4_by])
        else:
            guilty = illegal_wild_draw_four(placed[wd4_by], *wd4_before, rules)
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
    state.round_number = view.round_number
    state.rng = DealRandom(str(rng.getrandbits(64)))
    return state


#: A constraint on one hidden card: the cards it cannot be, as a bit mask
#: over card ids (bit ``c`` set: not card ``c``); 0 allows any card.
Constraint = int
_EVERY_CARD = (1 << DECK_SIZE) - 1
#: The cards of each colour (index 4: the wilds) and of each rank, as masks.
_OF_COLOUR = tuple(sum(1 << c for c in range(DECK_SIZE) if COLOUR[c] == k) for k in range(5))
_OF_RANK = tuple(sum(1 << c for c in range(DECK_SIZE) if RANK[c] == r) for r in range(15))


def excluding(colours: Collection[int] = (), ranks: Collection[int] = ()) -> Constraint:
    """The constraint of a card that is of none of ``colours`` (0..3, 4 for
    the wilds) and none of ``ranks`` (0..14)."""
    mask = 0
    for colour in colours:
        mask |= _OF_COLOUR[colour]
    for rank in ranks:
        mask |= _OF_RANK[rank]
    return mask


def allows(constraint: Constraint, card: int) -> bool:
    """Whether ``card`` may be the hidden card under ``constraint``."""
    return not constraint >> card & 1


@lru_cache(maxsize=4096)
def preferred_over(card: int, colour: int, top: int, attack: bool) -> Constraint:
    """The cards :class:`~.bots.GreedyBot` would have played rather than the
    coloured ``card`` on ``top`` with ``colour`` in force (``attack``: the
    next seat held 2 cards or fewer), whatever else its hand held: a fitting
    attack card ranked above ``card``'s attack rank (Draw Two, Skip,
    Reverse) when attacking, and a fitting card of ``card``'s colour and the
    same attack rank worth more points. (Which colour it leaves in force
    depends on its whole hand, so other colours tell nothing.)"""
    rank_top = RANK[top] if top >= 0 else NONE
    attacks = ATTACKING if attack else NOT_ATTACKING
    own = play_key(card, 0, 0, attacks)
    mask = 0
    for other in range(DECK_SIZE):
        if COLOUR[other] == WILD or not (COLOUR[other] == colour or RANK[other] == rank_top):
            continue
        if COLOUR[other] == COLOUR[card]:  # as many of the colour held: the order decides
            better = play_key(other, 0, 0, attacks) > own
        else:  # the colours held decide, after the attack worth
            better = attacks[RANK[other]] > attacks[RANK[card]]
        if better:
            mask |= 1 << other
    return mask


def greedy_would_play(
    hand: Sequence[int], card: int, named: int, colour: int, top: int, attack: bool
) -> bool:
    """Whether :class:`~.bots.GreedyBot` holding ``hand`` (``card`` among it)
    could play ``card`` (naming ``named`` for a wild) on ``top`` with
    ``colour`` in force (``attack``: the next seat holds 2 cards or fewer):
    no fitting coloured card ranks above it (attack rank, then the count of
    its colour left in the hand, then points), and a wild names a colour
    held most. Whether a wild could be played at all is not checked (the
    tracker's constraints see to that)."""
    counts = [0, 0, 0, 0, 0]
    for c in hand:
        counts[COLOUR[c]] += 1
    if RANK[card] >= _WILD_RANK:
        return not 0 <= named < 4 or counts[named] == max(counts[:4])
    attacks = ATTACKING if attack else NOT_ATTACKING
    rank_top = RANK[top] if top >= 0 else NONE
    key = play_key(card, 0, counts[COLOUR[card]], attacks)
    for other in hand:
        if COLOUR[other] == WILD or not (COLOUR[other] == colour or RANK[other] == rank_top):
            continue
        if play_key(other, 0, counts[COLOUR[other]], attacks) > key:
            return False
    return True


class HandTracker:
    """What one seat learns of the other hands from the events it sees
    (:meth:`observe`), for :func:`determinize`: cards it knows a seat holds
    (shown by a challenge, or its own hand given away by a swap or a
    rotation), and what the other hidden cards cannot be.

    The inference assumes players who play when they can, as
    :class:`~.bots.GreedyBot` and most people do: a seat that draws at the
    start of its turn held nothing that fitted (no card of the colour in
    force, none of the top card's rank, no wild), and the drawn card did not
    fit either when the turn passed at once (a fact); a seat that plays a
    Wild held no coloured card that fitted, and one that plays a Wild Draw
    Four no Wild either; one that names a colour for its wild holds a card
    of it (the colour it holds most), if it holds any; and under rules that
    play cards plainly, one that plays a coloured card at the start of its
    turn held none that :class:`~.bots.GreedyBot` would have played instead
    (:func:`preferred_over`: the search's model of the other seats is greedy,
    in its playouts and here alike). Each hidden card is a
    slot with the constraints known while it was in the hand; a card played
    leaves by the strictest slot that allows it (the drawn one, if it was
    just drawn), so that what is left claims the least. Against players who
    draw with a playable card the constraints are wrong; :func:`determinize`
    then relaxes what it cannot meet. ``slots[seat]`` is a list of ``(known
    card or -1, constraint)``.
    """

    def __init__(self, rules: RuleSet | None = None) -> None:
        rules = rules or OFFICIAL
        #: Whether a coloured card played at the start of a turn tells what
        #: GreedyBot would have played instead (:func:`preferred_over`):
        #: under rules that play cards plainly (RuleSet.plain_plays).
        self.greedy_plays = rules.plain_plays
        self._start_direction = -1 if rules.initial_direction is Direction.COUNTER_CLOCKWISE else 1
        self.direction = self._start_direction
        self.me = NONE
        self.slots: dict[int, list[tuple[int, Constraint]]] = {}
        self.mine: list[int] = []  # this seat's hand, from its private events
        self.top = NONE
        self.colour = NONE
        self.ring: list[int] = []  # seats in play, clockwise
        self._turn = NONE  # the seat whose turn just began (no action yet)
        self._drew = NONE  # the seat that just drew at the start of its turn
        #: (colour in force, top card) that another seat's latest Wild Draw
        #: Four this round was played on, for :func:`determinize`; or None.
        self.wd4_before: tuple[int, int] | None = None
        #: seat -> its latest play at the start of a turn, while its hand has
        #: not changed since: (card, colour named, colour in force and top
        #: card it was played on, attacking, cards left), for :meth:`agrees`.
        self.last_play: dict[int, tuple[int, int, int, int, bool, int]] = {}

    def _no_fit(self, wild_ok: bool = False) -> Constraint:
        """No card that fits the top card and the colour in force (nor a wild)."""
        mask = _OF_COLOUR[self.colour] if 0 <= self.colour < 4 else 0
        if self.top >= 0 and RANK[self.top] < _WILD_RANK:
            mask |= _OF_RANK[RANK[self.top]]
        return mask if wild_ok else mask | _OF_COLOUR[WILD]

    def _constrain(self, seat: int, constraint: Constraint) -> None:
        slots = self.slots.get(seat, [])
        for i in range(len(slots)):
            card, excluded = slots[i]
            if card < 0:
                slots[i] = (card, excluded | constraint)

    def _holds_colour(self, seat: int, colour: int) -> None:
        """``seat`` named ``colour`` for its wild: it holds a card of it (the
        colour it holds most), if it holds any: one slot that allows it must be it."""
        slots = self.slots.get(seat, [])
        of_colour = _OF_COLOUR[colour]
        if any(card >= 0 and COLOUR[card] == colour for card, _ in slots):
            return  # a card known already
        free = [
            i for i, (card, rule) in enumerate(slots) if card < 0 and rule & of_colour != of_colour
        ]
        if free:
            i = min(free, key=lambda i: _strictness(slots[i][1]))
            slots[i] = (NONE, slots[i][1] | (_EVERY_CARD & ~of_colour))

    def _remove(self, seat: int, card: int, newest: bool) -> None:
        slots = self.slots.get(seat)
        if not slots:
            return
        for i, (known, _) in enumerate(slots):
            if known == card:
                del slots[i]
                return
        if newest and slots[-1][0] < 0:
            del slots[-1]
            return
        fits = [i for i, (known, c) in enumerate(slots) if known < 0 and allows(c, card)]
        if fits:  # the strictest slot the card meets: what is left claims the least
            del slots[max(fits, key=lambda i: _strictness(slots[i][1]))]
            return
        unknown = [i for i, (known, _) in enumerate(slots) if known < 0] or [0]
        del slots[min(unknown, key=lambda i: _strictness(slots[i][1]))]

    def observe(self, events: Sequence[Event]) -> None:
        """Take the events this seat saw, in order (its private ones too)."""
        for e in events:
            k, p = e.kind, e.player
            drew, turn = self._drew, self._turn
            self._drew = self._turn = NONE
            if k is EventKind.DEALER_DRAW:
                if p >= len(self.ring):
                    self.ring = list(range(p + 1))
            elif k is EventKind.ROUND_STARTED:
                self.slots = {}
                self.last_play = {}
                self.direction = self._start_direction
                self.wd4_before = None
            elif k is EventKind.HAND_DEALT:
                self.me = p
                self.mine = list(e.cards)
                for seat in self.ring or ():
                    if seat != p:  # every hand is dealt as many cards as this one
                        self.slots[seat] = [(NONE, 0)] * len(e.cards)
            elif k is EventKind.STARTER_FLIPPED:
                self.top, self.colour = e.cards[0], COLOUR[e.cards[0]]
            elif k is EventKind.COLOUR_CHOSEN:
                self.colour = e.colour
            elif k is EventKind.DIRECTION_CHANGED:
                self.direction = e.value
            elif k is EventKind.TURN:
                if drew >= 0:  # the drawn card did not fit: the turn passed at once
                    slots = self.slots.get(drew)
                    if slots and slots[-1][0] < 0:
                        slots[-1] = (NONE, slots[-1][1] | self._no_fit())
                self._turn = p
            elif k is EventKind.DREW:
                if p == self.me:
                    continue
                if turn == p and e.count == 1:  # drew rather than play: nothing fitted
                    self._constrain(p, self._no_fit())
                    self._drew = p
                self.slots.setdefault(p, []).extend([(NONE, 0)] * e.count)
                self.last_play.pop(p, None)
            elif k is EventKind.DREW_CARDS:
                if p == self.me:
                    self.mine += e.cards
            elif k is EventKind.PLAYED:
                if p == self.me:
                    for card in e.cards:
                        if card in self.mine:
                            self.mine.remove(card)
                else:
                    rank = RANK[e.cards[0]]
                    if rank == _WILD_RANK + 1:
                        self.wd4_before = (self.colour, self.top)
                    if turn == p and rank >= _WILD_RANK and not e.value:
                        excluded = self._no_fit(wild_ok=True)
                        if rank == _WILD_RANK + 1:
                            excluded |= _OF_RANK[_WILD_RANK]  # a Wild Draw Four: no Wild either
                        self._constrain(p, excluded)
                    self.last_play.pop(p, None)
                    greedy = turn == p and self.greedy_plays and len(e.cards) == 1
                    if greedy:
                        after = self._next(p)
                        size = (
                            len(self.mine) if after == self.me else len(self.slots.get(after, ()))
                        )
                        attack = size <= 2
                        if rank < _WILD_RANK:
                            self._constrain(
                                p, preferred_over(e.cards[0], self.colour, self.top, attack)
                            )
                    for card in e.cards:
                        self._remove(p, card, newest=drew == p)
                    if rank >= _WILD_RANK and 0 <= e.colour < 4:
                        self._holds_colour(p, e.colour)
                    if greedy:
                        left = len(self.slots.get(p, ()))
                        self.last_play[p] = (
                            e.cards[0],
                            e.colour,
                            self.colour,
                            self.top,
                            attack,
                            left,
                        )
                self.top, self.colour = e.cards[-1], e.colour
            elif k is EventKind.HAND_SHOWN:
                self.slots[p] = [(card, 0) for card in e.cards]  # p: whose hand
            elif k is EventKind.HANDS_SWAPPED:
                self.last_play.clear()
                a, b = p, e.target
                sa, sb = self.slots.get(a, []), self.slots.get(b, [])
                if self.me in (a, b):
                    other = b if self.me == a else a
                    self.slots[other] = [(card, 0) for card in self.mine]
                    self.slots.pop(self.me, None)
                else:
                    self.slots[a], self.slots[b] = sb, sa
            elif k is EventKind.HANDS_ROTATED:
                self.last_play.clear()
                ring = self.ring
                m = len(ring)
                old = {q: self.slots.get(q, []) for q in ring}
                old[self.me] = [(card, 0) for card in self.mine]
                self.slots = {q: old[ring[(i - e.value) % m]] for i, q in enumerate(ring)}
                self.slots.pop(self.me, None)
            elif k is EventKind.HAND_RECEIVED:
                self.mine = list(e.cards)
            elif k is EventKind.PLAYER_OUT:
                if p in self.ring:
                    self.ring.remove(p)
                self.slots.pop(p, None)

    def agrees(self, sample: GameState) -> bool:
        """Whether every other seat's sampled hand, with the card it played
        last added back, is one from which :class:`~.bots.GreedyBot` would
        have made that play (:func:`greedy_would_play`): the colour it left
        or named is one it held most of. Seats whose hand changed since
        are not checked."""
        for seat, (card, named, colour, top, attack, left) in self.last_play.items():
            hand = sample.hands[seat]
            if len(hand) == left and not greedy_would_play(
                [*hand, card], card, named, colour, top, attack
            ):
                return False
        return True

    def _next(self, seat: int) -> int:
        """The seat in play after ``seat`` in the direction of play."""
        ring = self.ring
        if seat not in ring:
            return NONE
        return ring[(ring.index(seat) + self.direction) % len(ring)]

    def sync(self, view: PlayerView) -> None:
        """Line up with ``view`` (this seat's, now): its hand, the seats in
        play, the top card, and one slot per card of every other hand (slots
        are added unconstrained, or the least known dropped, where the events
        seen do not account for a hand: a tracker that began mid-round)."""
        self.me = view.seat
        self.mine = list(view.hand)
        self.top, self.colour = view.top_card, view.colour
        self.direction = view.direction
        if view.phase is Phase.PLAY:
            self._turn = view.current  # its turn has begun: no action yet
        n = len(view.hand_sizes)
        self.ring = [s for s in range(n) if s not in view.out_seats]
        for seat in self.ring:
            if seat == self.me:
                continue
            slots = self.slots.setdefault(seat, [])
            size = view.hand_sizes[seat]
            while len(slots) < size:
                slots.append((NONE, 0))
            if len(slots) > size:
                slots.sort(key=lambda slot: (slot[0] < 0, -_strictness(slot[1])))
                del slots[size:]

    def beliefs(self, view: PlayerView) -> tuple[dict[int, list[int]], dict[int, list[Constraint]]]:
        """(known cards, constraints of the other hidden cards) per other
        seat, for :func:`determinize`, after :meth:`sync` with ``view``."""
        self.sync(view)
        known: dict[int, list[int]] = {}
        constraints: dict[int, list[Constraint]] = {}
        seen = set(view.hand)
        seen.add(view.top_card)
        for seat, slots in self.slots.items():
            if seat == view.seat or seat not in self.ring:
                continue
            cards = [card for card, _ in slots if card >= 0 and card not in seen]
            wanted = [rule for card, rule in slots if card < 0 and rule]
            if cards:
                known[seat] = cards
            if wanted:
                constraints[seat] = wanted
        return known, constraints


def _strictness(constraint: Constraint) -> int:
    return constraint.bit_count()


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
    return calling_moves(state.legal_actions(seat))


def calling_moves(legal: Sequence[Action]) -> list[Action]:
    """``legal`` without catches and lone UNO calls, and without a play that
    could call UNO but does not (its calling twin is kept)."""
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
    if caught < 0 or state.phase >= _ROUND_OVER:
        return
    if not state.uno_called(caught) and _offers(state.legal_actions(caught), _CALL_UNO):
        state.apply(caught, Action(_CALL_UNO))
        return
    for other in range(state.players):
        if other != caught and _offers(state.legal_actions(other), _CATCH):
            state.apply(other, Action(_CATCH, target=caught))
            return


def _offers(legal: Sequence[Action], kind: ActionKind) -> bool:
    """Whether one of ``legal`` is of ``kind`` (a loop: the compiled build
    cannot compile a generator inside a C function)."""
    for a in legal:  # noqa: SIM110
        if a.kind is kind:
            return True
    return False


def rollout_move(state: GameState, seat: int, rng: random.Random) -> Action:
    """A fast greedy-like move for a playout (the order of
    :class:`~.bots.GreedyBot`, without building a view), from ``seat``'s
    :func:`turn_moves`: a coloured card before a Wild before a Wild Draw Four;
    among coloured cards an attack (Draw Two, Skip, Reverse) when the next
    seat holds 2 cards or fewer, then more cards laid, then leaving the
    colour held most in force, then more points; a wild names the colour
    held most. With no play, a uniform choice (draw, keep, accept, challenge).

    Under rules where no option changes how a card is played (the engine's
    fast path), a turn or a drawn card is decided from the hand directly,
    without listing the legal actions: the same move, a playout about 1.5x
    as fast."""
    phase = state.phase
    if state.plain and (phase is _PLAYING or phase is _DRAWN):
        return _plain_move(state, seat, phase is _DRAWN)
    return listed_move(state, seat, rng)


def listed_move(state: GameState, seat: int, rng: random.Random) -> Action:
    """:func:`rollout_move` chosen from the listed :func:`turn_moves`: any
    rules and phase (the general way; a turn under fast-path rules gives the
    same move as the hand-scanning way, which tests check)."""
    moves = turn_moves(state, seat)
    hand = state.hands[seat]
    counts = [0, 0, 0, 0, 0]
    for c in hand:
        counts[COLOUR[c]] += 1
    nxt = state.seat_after(seat, 1)
    attacks = ATTACKING if len(state.hands[nxt]) <= 2 else NOT_ATTACKING
    best, best_key = None, -1
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
        key = play_key(card, len(a.extra), counts[COLOUR[card]], attacks)
        if key > best_key:
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


def _plain_move(state: GameState, seat: int, drawn: bool) -> Action:
    """:func:`rollout_move` on a turn (``drawn``: the drawn card may be
    played) under rules the engine plays on its fast path: the card chosen
    from the hand by the same order, the action taken from the engine's play
    tables (the variant calling UNO when it leaves one card)."""
    hand = state.hands[seat]
    if drawn:
        cards = [state.drawn_card]
    else:
        fits = state.fits
        cards = [c for c in hand if fits[c]]
        if not cards:
            return DRAW
    counts = [0, 0, 0, 0, 0]
    for c in hand:
        counts[COLOUR[c]] += 1
    attack = ATTACKING if len(state.hands[state.seat_after(seat, 1)]) <= 2 else NOT_ATTACKING
    best, best_key, wild = NONE, -1, NONE
    for card in cards:
        rank = RANK[card]
        if rank >= _WILD_RANK:
            if wild < 0 or rank < RANK[wild]:
                wild = card
            continue
        key = play_key(card, 0, counts[COLOUR[card]], attack)
        if key > best_key:
            best, best_key = card, key
    variants = (state.plays_uno if len(hand) == 2 else state.plays)[best if best >= 0 else wild]
    uno = len(hand) == 2
    colour = NONE if best >= 0 else max(range(4), key=counts.__getitem__)
    for a in variants:
        if a.uno == uno and a.colour in (colour, NONE):
            return a
    return variants[0]


def _one_opponent(view: PlayerView) -> bool:
    """Whether two seats are in play (the viewer's and one other)."""
    return len(view.hand_sizes) - len(view.out_seats) <= 2


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

    Budget per decision: ``iterations`` (samples) and/or ``time_ms``
    milliseconds (wall clock from the call of :meth:`decide`, whichever ends
    first; at least one sample); when neither is given,
    :data:`DEFAULT_ITERATIONS` and :data:`DEFAULT_TIME_MS`. ``rules`` are
    the table's (default official): the view does not carry them.
    ``max_depth`` and ``margin``: see the module docstring (``margin`` by
    default 0.5 against one opponent, 1.5 against more; these defaults were
    measured against greedy, README "A search bot to beat").
    ``rollout``: ``"fast"`` (:func:`rollout_move`) or ``"greedy"`` (a
    :class:`~.bots.GreedyBot` on every seat's view: its exact opponent model
    against greedy, about 3x slower). ``infer`` (default True): sample the
    other hands from what :class:`HandTracker` learned from the events given
    to :meth:`observe` (a model of the others as greedy players: right
    against greedy, an approximation against people); False: uniformly from
    the unseen cards.
    ``prune_draws`` (default True): with a card to play, drawing or keeping
    the drawn card is not searched (the samples overrated it, at a cost).
    ``prune`` (default 0.0; None: never): after :data:`PRUNE_AFTER`
    samples, a move whose paired gain over greedy's is below ``-prune``
    standard errors is no longer played out (at four seats, decisions 1.5x
    as fast and as strong; README "A search bot to beat").
    ``tries``: determinisations drawn per sample until one agrees with the
    others' last plays (:meth:`HandTracker.agrees`; with ``infer``); by
    default 1 against one opponent and 3 against more. ``exploration`` is
    UCB1's constant (the tree search); ``rollout_cap`` bounds a playout in
    actions (a playout that reaches it scores each seat by how few cards it
    holds). Raises ValueError for an unknown ``rollout``.
    ``seed`` makes it replayable under an iteration
    budget. ``clock`` (seconds, default ``time.perf_counter``) is the one
    clock of the game package: only a ``time_ms`` budget and the counters
    of its searched decisions read it (``decisions``, their total
    ``seconds`` and the ``longest`` one, in seconds, each from the call of
    :meth:`decide` to its answer).
    """

    name = "ismcts"
    needs_rules = True
    observes = True
    budgeted = True

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
        margin: float | None = None,
        rollout: str = "fast",
        infer: bool = True,
        prune_draws: bool = True,
        tries: int | None = None,
        prune: float | None = 0.0,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.rng = random.Random(seed)
        self.rules = rules or OFFICIAL
        if iterations is None and not time_ms:
            iterations, time_ms = DEFAULT_ITERATIONS, DEFAULT_TIME_MS
        self.iterations = iterations
        self.time_ms = time_ms
        self.exploration = exploration
        self.rollout_cap = rollout_cap
        self.max_depth = max_depth
        self.margin = margin
        if rollout not in ("fast", "greedy"):
            raise ValueError(f"rollout must be 'fast' or 'greedy', not {rollout!r}")
        self._rollout_bot = GreedyBot(seed) if rollout == "greedy" else None
        self.clock = clock
        self.tracker = HandTracker(self.rules) if infer else None
        self.prune_draws = prune_draws
        self.tries = tries
        self.prune = prune
        self._greedy = GreedyBot(seed)
        self.decisions = 0
        self.seconds = 0.0
        self.longest = 0.0

    def observe(self, events: Sequence[Event]) -> None:
        """The events this seat saw (see :meth:`.bots.Bot.observe`): what its
        :class:`HandTracker` infers of the other hands."""
        if self.tracker is not None:
            self.tracker.observe(events)

    def decide(self, view: PlayerView, legal: Sequence[Action]) -> Action | None:
        """Out of turn, or when it can catch or must call UNO: greedy's
        answer. On its turn with more than one move: the move the search
        visited most."""
        start = self.clock()
        seat = view.seat
        if self.tracker is not None:
            self.tracker.sync(view)
        if view.current != seat or any(
            a.kind is _CATCH or (a.kind is _CALL_UNO and view.catchable == seat) for a in legal
        ):
            return self._greedy.decide(view, legal)
        # A play that leaves one card always calls UNO: the samples settle
        # calls at once and cannot tell the two apart, but a real table can
        # catch the one that does not.
        moves = calling_moves(legal)
        if self.prune_draws and any(a.kind is _PLAY for a in moves):
            moves = [a for a in moves if a.kind is not _DRAW and a.kind is not _KEEP]
        if view.phase is Phase.PENALTY and not self._may_be_guilty(view):
            moves = [a for a in moves if a.kind is not _CHALLENGE]
        by_key = {move_key(a): a for a in moves}
        if len(by_key) <= 1:
            return moves[0] if moves else self._greedy.decide(view, legal)
        if self.max_depth <= 1:
            base = self._greedy.decide(view, legal)
            if base is not None and base.kind is _CHALLENGE:
                # Greedy's rule of thumb (challenge a big hand) is not the
                # default here: the samples judge the play, and a challenge
                # is made only where they show it pays.
                base = ACCEPT
            base_key = move_key(base) if base is not None else next(iter(by_key))
            if base_key not in by_key:
                return base
            choice = self._paired(view, by_key, base_key, start)
        else:
            root = self._search(view, by_key, start)
            visits = {k: node.visits for (_, k), node in root.children.items() if k in by_key}
            choice = max(visits, key=visits.__getitem__)
        took = self.clock() - start
        self.decisions += 1
        self.seconds += took
        self.longest = max(self.longest, took)
        return by_key[choice]

    def _sample(
        self,
        view: PlayerView,
        known: Mapping[int, Collection[int]] | None,
        constraints: Mapping[int, Sequence[Constraint]] | None,
        wd4_before: tuple[int, int] | None,
    ) -> GameState:
        """A determinisation that :meth:`HandTracker.agrees` with, if one of
        :attr:`tries` does (else the last one drawn)."""
        sample = determinize(view, self.rules, self.rng, known, constraints, wd4_before)
        tracker = self.tracker
        if tracker is not None and tracker.last_play:
            for _ in range(self._tries(view) - 1):
                if tracker.agrees(sample):
                    break
                sample = determinize(view, self.rules, self.rng, known, constraints, wd4_before)
        return sample

    def _may_be_guilty(self, view: PlayerView, samples: int = 16) -> bool:
        """Whether the pending Wild Draw Four may have been illegal: some of
        ``samples`` determinisations judge it so. When none does (the
        tracker saw its player hold nothing of the colour in force), a
        challenge only costs 2 more cards and is not searched."""
        if self.tracker is None or self.tracker.wd4_before is None:
            return True
        known, constraints = self.tracker.beliefs(view)
        before = self.tracker.wd4_before
        return any(
            determinize(view, self.rules, self.rng, known, constraints, before).wd4_guilty
            for _ in range(samples)
        )

    def _margin(self, view: PlayerView) -> float:
        """``margin``, or by default 0.5 standard errors against one opponent
        and 1.5 against more: with more hidden hands inferred, a sample's
        bias as much as its noise can make another move look better."""
        if self.margin is not None:
            return self.margin
        return 0.5 if _one_opponent(view) else 1.5

    def _tries(self, view: PlayerView) -> int:
        """``tries``, or by default 1 against one opponent and 3 against more."""
        if self.tries is not None:
            return self.tries
        return 1 if _one_opponent(view) else 3

    def _budget(self, start: float) -> Callable[[int], bool]:
        """Whether iteration ``done`` (0-based) may start, under the budget of
        a decision that began at ``start`` (``clock`` seconds)."""
        clock, limit = self.clock, self.iterations
        deadline = None if not self.time_ms else start + self.time_ms / 1000
        return lambda done: (
            (limit is None or done < limit)
            and (deadline is None or done == 0 or clock() < deadline)
        )

    def _paired(
        self, view: PlayerView, allowed: Mapping[_Key, Action], base: _Key, start: float
    ) -> _Key:
        """The depth-1 search: every iteration samples one determinisation and
        plays each root move out from it with the same random numbers, so the
        moves are compared on the same hidden cards (common random numbers:
        a far smaller error than one move per sample). It keeps ``base``
        (greedy's move) unless another move's mean paired gain over it is
        above ``margin`` standard errors: the search only overrides the
        heuristic where the samples show it is wrong. With ``prune``, a move
        whose gain is below ``-prune`` standard errors after
        :data:`PRUNE_AFTER` samples is played out no more: it could hardly end
        above the margin, and the samples go further on the others."""
        rng, seat = self.rng, view.seat
        out = len(view.out_seats)
        live = dict(allowed)
        gain = dict.fromkeys(allowed, 0.0)
        square = dict.fromkeys(allowed, 0.0)
        known, constraints = self.tracker.beliefs(view) if self.tracker else (None, None)
        wd4_before = self.tracker.wd4_before if self.tracker else None
        more = self._budget(start)
        done = 0

        def z(key: _Key) -> float:
            variance = square[key] / done - (gain[key] / done) ** 2
            return (gain[key] / done) / math.sqrt(max(variance, 1e-9) / done)

        while more(done):
            sample = self._sample(view, known, constraints, wd4_before)
            stream = rng.getrandbits(32)
            result = {}
            for key, action in live.items():
                state = sample.clone()
                state.apply(seat, action)
                settle(state)
                result[key] = self._playout(state, out, random.Random(stream))[seat]
            for key, value in result.items():
                d = value - result[base]
                gain[key] += d
                square[key] += d * d
            done += 1
            if self.prune is not None and done in PRUNE_AFTER:
                live = {k: a for k, a in live.items() if k == base or z(k) >= -self.prune}
        best, best_z = base, self._margin(view)
        for key in live:
            if gain[key] > 0 and (score := z(key)) > best_z:
                best, best_z = key, score
        return best

    def _search(self, view: PlayerView, allowed: Mapping[_Key, Action], start: float) -> _Node:
        """The tree search (``max_depth`` above 1): one shared tree over
        every sample, UCB1 with availability counts (Cowling et al.)."""
        rng, c = self.rng, self.exploration
        root = _Node(NONE)
        known, constraints = self.tracker.beliefs(view) if self.tracker else (None, None)
        wd4_before = self.tracker.wd4_before if self.tracker else None
        more = self._budget(start)
        done = 0
        while more(done):
            done += 1
            state = self._sample(view, known, constraints, wd4_before)
            node, path = root, [root]
            while (
                state.phase < Phase.ROUND_OVER
                and len(state.out_seats) == len(view.out_seats)
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
        """Play the round out from ``state`` (:func:`playout`, or with greedy
        bots' views under ``rollout="greedy"``); per seat 1.0 for whoever goes
        out first (and a partner under ``format=teams``), else 0.0."""
        n = state.players
        winner = playout(state, out_before, self.rollout_cap, rng, self._rollout_bot)
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


def playout(
    state: GameState, out_before: int, cap: int, rng: random.Random, bot: Bot | None = None
) -> int:
    """Play the round on from ``state`` (in place) by :func:`rollout_move`
    (or ``bot`` deciding on every seat's view) and :func:`settle`, for at
    most ``cap`` actions, until it is over or a seat goes out beyond the
    ``out_before`` already out: that seat (or the round's winner), NONE when
    the cap is reached first."""
    for _ in range(cap):
        if state.phase >= _ROUND_OVER or len(state.out_seats) > out_before:
            break
        mover = state.current
        if bot is None:
            move = rollout_move(state, mover, rng)
        else:
            legal = state.legal_actions(mover)
            move = bot.decide(state.view(mover), legal) or legal[0]
        state.apply(mover, move)
        settle(state)
    if len(state.out_seats) > out_before:
        return int(state.out_seats[out_before])
    return int(state.round_winner)
