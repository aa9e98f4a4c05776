"""The rules engine: one UNO game as a pure, seeded state machine.

No I/O, no clock, no global random state: a :class:`GameState` is driven only
by :meth:`GameState.apply` and :meth:`GameState.next_round`, and all chance
(dealer draw, shuffles) comes from its own :class:`~.deals.DealRandom` keyed
by the game's secret seed (RULES.md, "Fair deals"). The same seed and the
same actions always give the same events.

Seats are numbered ``0..players-1`` clockwise; "left of" a seat is the next
seat clockwise. Section numbers in docstrings refer to RULES.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from enum import IntEnum
from typing import Any, Iterable, Sequence

from . import actions as A
from .actions import NONE, Action, ActionKind
from .cards import (CLASSIC_POINTS, COLOUR, DECK_SIZE, IS_NUMBER, IS_WILD, RANK,
                    STANDARD_POINTS, WILD, Rank, card_name)
from .deals import DealRandom, new_seed
from .errors import IllegalAction, Reason
from .events import EVERYONE, Event, EventKind as E, new_event
from .rules import (MAX_PLAYERS, MIN_PLAYERS, OFFICIAL, Direction, FirstPlayer, PointValues,
                    GameFormat, MultiPlay, ReverseStarter, RuleSet, Scoring, Stacking, Wd4Restriction, WildStarter)

HAND_SIZE = 7

_SKIP = int(Rank.SKIP)
_REVERSE = int(Rank.REVERSE)
_DRAW_TWO = int(Rank.DRAW_TWO)
_WILD = int(Rank.WILD)
_WD4 = int(Rank.WILD_DRAW_FOUR)

_PLAY = ActionKind.PLAY
_DRAW = ActionKind.DRAW
_DRAW_ACTION = A.DRAW


class Phase(IntEnum):
    """What the round is waiting for."""

    CHOOSE_COLOUR = 1  #: the current player names the colour of a Wild starter
    PLAY = 2  #: the current player plays a card or draws
    DRAWN = 3  #: the current player drew a playable card: play it or keep it
    PENALTY = 4  #: the current player faces a Wild Draw Four: challenge or accept
    ROUND_OVER = 5  #: a player went out; ``next_round()`` deals the next one
    GAME_OVER = 6  #: a score reached the target


_CHOOSE_COLOUR = Phase.CHOOSE_COLOUR
_PLAYING = Phase.PLAY
_DRAWN = Phase.DRAWN
_PENALTY = Phase.PENALTY
_ROUND_OVER = Phase.ROUND_OVER

_EV_PLAYED = E.PLAYED
_EV_TURN = E.TURN
_EV_SKIPPED = E.SKIPPED
_EV_DREW = E.DREW
_EV_DREW_CARDS = E.DREW_CARDS
_EV_UNO_CALLED = E.UNO_CALLED
_EV_HANDS_SWAPPED = E.HANDS_SWAPPED
_EV_HANDS_ROTATED = E.HANDS_ROTATED
_EV_HAND_RECEIVED = E.HAND_RECEIVED
_EV_HAND_DEALT = E.HAND_DEALT
_EV_HAND_SCORED = E.HAND_SCORED
_EV_LAST_NOT_NUMBER = E.LAST_CARD_NOT_NUMBER
_EV_WRONG_PLAY = E.WRONG_PLAY
# Refusals that count as "an illegal play" for wrong_play_penalty (section 8).
_WRONG_PLAYS = frozenset({Reason.DOES_NOT_MATCH, Reason.ONLY_DRAWN_CARD,
                          Reason.PENALTY_PENDING, Reason.NUMBER_FIRST})


# Events of the hot path, made once: events are immutable tuples, so one shared
# instance per value is safe. _TURN[seat], _SKIPPED[seat], _UNO_CALLED[seat],
# _KEPT[seat], _DIRECTION_CHANGED[direction], _PLAYED[seat][card][colour] (not
# for jump-ins), _DREW[seat][count] (count < 9), _DREW_ONE[seat][card] (private).
_SEATS = range(MAX_PLAYERS)
_TURN = tuple(new_event((_EV_TURN, p, EVERYONE, (), 0, NONE, NONE, 0)) for p in _SEATS)
_SKIPPED = tuple(new_event((_EV_SKIPPED, p, EVERYONE, (), 0, NONE, NONE, 0)) for p in _SEATS)
_UNO_CALLED = tuple(new_event((_EV_UNO_CALLED, p, EVERYONE, (), 0, NONE, NONE, 0)) for p in _SEATS)
_DIRECTION_CHANGED = {d: new_event((E.DIRECTION_CHANGED, NONE, EVERYONE, (), 0, NONE, NONE, d))
                      for d in (1, -1)}
_KEPT = tuple(new_event((E.KEPT, p, EVERYONE, (), 0, NONE, NONE, 0)) for p in _SEATS)
_PLAYED = tuple(tuple(tuple(new_event((_EV_PLAYED, p, EVERYONE, (c,), 0, colour, NONE, 0))
                            for colour in range(4)) for c in range(DECK_SIZE)) for p in _SEATS)
_DREW = tuple(tuple(new_event((_EV_DREW, p, EVERYONE, (), k, NONE, NONE, 0)) for k in range(9))
              for p in _SEATS)
_STARTER_FLIPPED = tuple(new_event((E.STARTER_FLIPPED, NONE, EVERYONE, (c,), 0, NONE, NONE, 0))
                         for c in range(DECK_SIZE))
_DREW_ONE = tuple(tuple(new_event((_EV_DREW_CARDS, p, p, (c,), 0, NONE, NONE, 0))
                        for c in range(DECK_SIZE)) for p in _SEATS)

# _FITS[colour][top rank][card]: does ``card`` match the colour in force or the
# top card's number/symbol, or is it a wild (section 3)? colour 4: none named yet.
_FITS = tuple(
    tuple(tuple(COLOUR[c] == colour or RANK[c] == rank or COLOUR[c] == WILD
                for c in range(DECK_SIZE)) for rank in range(15))
    for colour in range(5)
)


@dataclass(frozen=True, slots=True)
class PlayerView:
    """What one seat may know (``seat == -1``: a spectator, who sees no hand).

    Card fields are ids 0..107 (-1 when absent); ``colour`` is 0..3, or 4 while
    a Wild starter has no colour yet; ``direction`` is 1 clockwise, -1 counter.
    """

    seat: int
    hand: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    top_card: int
    colour: int
    direction: int
    current: int
    phase: Phase
    pending_penalty: int  #: cards the current player draws if they accept
    drawn_card: int  #: the card this seat just drew and may play, else -1
    uno_called: tuple[bool, ...]  #: per seat: holds one card and called UNO
    catchable: int  #: seat that may be caught for not calling UNO, else -1
    draw_pile_size: int
    discard_pile_size: int
    scores: tuple[int, ...]
    dealer: int
    round_number: int
    round_winner: int  #: -1 while the round is on
    game_winners: tuple[int, ...]  #: empty until the game is over
    out_seats: tuple[int, ...] = ()  #: seats out of play, in the order they went out (section 9)


class GameState:
    """One game: a sequence of rounds between ``players`` seats (section 7).

    Create with :meth:`new` (plays the dealer draw and deals round 1) or, in
    tests, :meth:`from_position`. Drive with :meth:`legal_actions`,
    :meth:`apply` and :meth:`next_round`.
    """

    __slots__ = (
        "rules", "players", "seed", "_rng", "_hands", "_draw", "_discard", "_colour",
        "_direction", "_current", "_phase", "_pending", "_drawn", "_uno", "_catchable",
        "_wd4_by", "_wd4_guilty", "_wd4_hand", "_after_choice", "_scores", "_dealer",
        "_round", "_round_winner", "_unshuffled", "_house", "_defer_draws", "_stack_rank",
        "_first_play", "_game_winners", "_points", "_plays", "_plays_uno", "_plain",
        "_strict", "_false_uno", "_ring", "_pos", "_out", "_fits", "_start_direction",
    )

    def __init__(self, players: int, rules: RuleSet | None = None, seed: str | int | None = None,
                 rng: Any = None):
        """A game not yet dealt; use :meth:`new` instead.

        Raises ValueError if ``players`` is outside 2..10.
        """
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise ValueError(f"players must be {MIN_PLAYERS}..{MAX_PLAYERS}, got {players}")
        self.rules = rules = rules or OFFICIAL
        rules.check_players(players)
        self.players = players
        self.seed = new_seed() if seed is None else str(seed)
        # The chance source: ``below(n)``, ``shuffle_steps(...)`` and ``copy()`` (deals.DealRandom).
        self._rng = DealRandom(self.seed) if rng is None else rng
        self._hands: list[list[int]] = [[] for _ in range(players)]
        self._draw: list[int] = []
        self._unshuffled = 0  # cards at the bottom of the draw pile not yet shuffled
        self._discard: list[int] = []
        self._colour = WILD
        self._fits = _FITS[WILD][0]  # _FITS row of the colour in force and the top card's rank
        self._start_direction = -1 if rules.initial_direction is Direction.COUNTER_CLOCKWISE else 1
        self._direction = self._start_direction
        self._current = 0
        self._phase = _PLAYING
        self._pending = 0
        self._drawn = NONE
        self._uno = [False] * players
        self._catchable = NONE
        self._wd4_by = NONE
        self._wd4_guilty = False
        self._wd4_hand: tuple[int, ...] = ()
        self._after_choice = NONE
        self._scores = [0] * players
        # Seats in play, clockwise (section 9: formats put players out), each
        # seat's index in it (-1 once out), and the seats out in the order they left.
        self._ring = list(range(players))
        self._pos = list(range(players))
        self._out: list[int] = []
        self._dealer = 0
        self._round = 0
        self._round_winner = NONE
        self._game_winners: tuple[int, ...] = ()
        self._points = CLASSIC_POINTS if rules.point_values is PointValues.CLASSIC else STANDARD_POINTS
        unnamed = rules.unnamed_wild_keeps_colour
        self._plays = A.play_table(False, unnamed)
        self._plays_uno = A.play_table(True, unnamed)
        # Section 8 options that need the general (slower) paths.
        self._house = rules.seven_zero or rules.swap_on_five or rules.number_first_and_last
        self._defer_draws = rules.defers_draws
        # No option that changes how a card is played or refused: plays take the fast path.
        self._plain = not (self._house or self._defer_draws or rules.jump_in
                           or rules.wrong_play_penalty or rules.multi_play is not MultiPlay.OFF)
        self._strict = rules.uno_call_strict
        self._false_uno = rules.false_uno_penalty
        self._stack_rank = NONE  # rank of the last draw card on a pending penalty
        self._first_play = True  # no card played yet this round

    # ------------------------------------------------------------------ set-up

    @classmethod
    def new(cls, players: int, rules: RuleSet | None = None, seed: str | int | None = None, *,
            dealer: int | None = None, deck: Sequence[int] | None = None,
            rng: Any = None) -> tuple[GameState, list[Event]]:
        """Start a game: choose the dealer by draw (section 2) and deal round 1.

        Returns the state and the events of the set-up. ``seed`` is text (an
        int stands for its decimal text); None makes a secret one
        (:func:`~.deals.new_seed`), kept in ``state.seed`` so the game can be
        replayed. For tests and puzzles, ``dealer`` skips the dealer draw and
        ``deck`` stacks round 1's deck instead of shuffling it: all 108 ids,
        the card dealt first last. ``rng`` replaces the seed's
        :class:`~.deals.DealRandom` (anything with its ``below``, ``shuffle_steps`` and ``copy``;
        storage replays games recorded before fair deals with it).
        Raises ValueError for a bad player count, dealer or deck.
        """
        game = cls(players, rules, seed, rng)
        events: list[Event] = []
        if dealer is None:
            game._dealer = game._choose_dealer(events)
        elif 0 <= dealer < players:
            game._dealer = dealer
        else:
            raise ValueError(f"dealer must be a seat 0..{players - 1}")
        if deck is not None and sorted(deck) != list(range(DECK_SIZE)):
            raise ValueError("a stacked deck must hold each of the 108 cards exactly once")
        game._deal(events, deck)
        return game, events

    @classmethod
    def from_position(
        cls,
        hands: Sequence[Iterable[int]],
        top: int,
        *,
        rules: RuleSet | None = None,
        draw_pile: Sequence[int] | None = None,
        discard_under: Sequence[int] = (),
        colour: int | None = None,
        current: int = 0,
        direction: int = 1,
        phase: Phase = Phase.PLAY,
        pending: int = 0,
        wd4_by: int = NONE,
        wd4_guilty: bool = False,
        drawn_card: int = NONE,
        uno_called: Sequence[bool] | None = None,
        catchable: int = NONE,
        scores: Sequence[int] | None = None,
        dealer: int = 0,
        out_seats: Sequence[int] = (),
        seed: int = 0,
    ) -> GameState:
        """Build any position directly, for tests and puzzles.

        ``hands`` per seat, ``top`` the discard pile's top card, ``discard_under``
        the cards below it (bottom first), ``draw_pile`` bottom first with its top
        last. If ``draw_pile`` is None, every card not placed elsewhere goes to
        the draw pile in id order (so the highest unplaced id is drawn first);
        otherwise the cards given must be all 108. ``colour`` defaults to the top
        card's colour. For ``phase=PENALTY`` give ``pending``, ``wd4_by`` (the
        seat that played the Wild Draw Four) and ``wd4_guilty`` (whether that
        play was illegal). ``out_seats`` are out of play (section 9), in the
        order they went out; their hands must be empty. Raises ValueError for
        duplicate or missing cards or an inconsistent position.
        """
        game = cls(len(hands), rules, seed)
        game._hands = [list(h) for h in hands]
        game._discard = list(discard_under) + [top]
        placed = [c for h in game._hands for c in h] + game._discard
        if draw_pile is None:
            used = set(placed)
            game._draw = [c for c in range(DECK_SIZE) if c not in used]
        else:
            game._draw = list(draw_pile)
        every = placed + game._draw
        if sorted(every) != list(range(DECK_SIZE)):
            raise ValueError("a position must hold each of the 108 cards exactly once")
        if direction not in (1, -1):
            raise ValueError("direction must be 1 or -1")
        game._colour = COLOUR[top] if colour is None else colour
        game._fits = _FITS[game._colour][RANK[top]]
        game._current = current
        game._direction = direction
        game._phase = phase
        game._pending = pending
        game._stack_rank = RANK[top] if pending else NONE
        game._first_play = False
        game._drawn = drawn_card
        game._dealer = dealer
        game._round = 1
        game._uno = list(uno_called) if uno_called is not None else [False] * game.players
        game._catchable = catchable
        game._scores = list(scores) if scores is not None else [0] * game.players
        for p in out_seats:
            if game._hands[p]:
                raise ValueError("a seat out of play holds no cards")
            game._take_out(p)
        if phase is _PENALTY:
            if wd4_by == NONE or pending <= 0:
                raise ValueError("a PENALTY position needs wd4_by and pending")
            game._wd4_by = wd4_by
            game._wd4_hand = tuple(game._hands[wd4_by])
            game._wd4_guilty = wd4_guilty
        if phase is _DRAWN and drawn_card not in game._hands[current]:
            raise ValueError("drawn_card must be in the current player's hand")
        if phase is _CHOOSE_COLOUR:
            game._after_choice = current
        return game

    def clone(self) -> GameState:
        """An independent copy (same future chance outcomes), for search bots."""
        other = GameState.__new__(GameState)
        for name in GameState.__slots__:
            setattr(other, name, getattr(self, name))
        other._rng = self._rng.copy()
        other._hands = [h[:] for h in self._hands]
        other._draw = self._draw[:]
        other._discard = self._discard[:]
        other._uno = self._uno[:]
        other._scores = self._scores[:]
        other._ring = self._ring[:]
        other._pos = self._pos[:]
        other._out = self._out[:]
        return other

    def _pop_cards(self, k: int) -> list[int]:
        """Take up to ``k`` cards off the top of the draw pile, in drawing order.

        The pile is shuffled lazily: ``_unshuffled`` cards at its bottom are
        still in no particular order, and a Fisher-Yates step fixes each one
        just before it is drawn. That is the same uniform shuffle as shuffling
        up front, but costs only the cards actually drawn. Positions built by
        :meth:`from_position` have nothing unshuffled, so they draw in order.
        """
        draw = self._draw
        m = len(draw)
        if k > m:
            k = m
        low = m - k
        if low < self._unshuffled:
            self._rng.shuffle_steps(draw, self._unshuffled, low)
            self._unshuffled = low
        got = draw[low:]
        del draw[low:]
        got.reverse()
        return got

    def _choose_dealer(self, events: list[Event]) -> int:
        """Section 2: everyone draws; the highest number deals; action and wild
        cards are drawn again; ties among the highest draw again."""
        below = self._rng.below
        deck = list(range(DECK_SIZE))
        candidates = list(range(self.players))
        while True:
            drawn: dict[int, int] = {}
            for p in candidates:
                while True:
                    if not deck:
                        deck = list(range(DECK_SIZE))
                    i = below(len(deck))
                    deck[i], deck[-1] = deck[-1], deck[i]
                    card = deck.pop()
                    events.append(Event(E.DEALER_DRAW, p, cards=(card,)))
                    if IS_NUMBER[card]:
                        break
                drawn[p] = RANK[card]
            best = max(drawn.values())
            candidates = [p for p in candidates if drawn[p] == best]
            if len(candidates) == 1:
                events.append(Event(E.DEALER_CHOSEN, candidates[0]))
                return candidates[0]

    def _deal(self, events: list[Event], deck: Sequence[int] | None = None) -> None:
        """Shuffle, deal 7 each from the dealer's left, flip the starter (section 2)."""
        n = self.players
        self._round += 1
        self._round_winner = NONE
        self._direction = d = self._start_direction
        self._uno = [False] * n
        self._catchable = NONE
        self._pending = 0
        self._drawn = NONE
        self._wd4_by = NONE
        self._stack_rank = NONE
        self._first_play = True
        self._draw = list(range(DECK_SIZE) if deck is None else deck)
        self._unshuffled = DECK_SIZE if deck is None else 0
        ring = self._ring
        m = len(ring)
        dealt = self._pop_cards(HAND_SIZE * m)
        hands: list[list[int]] = [[] for _ in range(n)]
        at = self._pos[self._dealer]
        for k in range(m):  # one card at a time from the dealer's next seat: every m-th card
            hands[ring[(at + d * (1 + k)) % m]] = dealt[k::m]
        self._hands = hands
        events.append(new_event((E.ROUND_STARTED, self._dealer, EVERYONE, (), HAND_SIZE, NONE,
                                 NONE, self._round)))
        for p in ring:
            events.append(new_event((_EV_HAND_DEALT, p, p, tuple(hands[p]), 0, NONE, NONE, 0)))
        redraw = self.rules.starter_wild_redraw
        while True:
            starter = self._pop_cards(1)[0]
            events.append(_STARTER_FLIPPED[starter])
            if RANK[starter] == _WD4 or (redraw and IS_WILD[starter]):
                self._draw.append(starter)
                self._unshuffled = len(self._draw)
                events.append(Event(E.STARTER_RETURNED, cards=(starter,)))
                events.append(Event(E.DECK_RESHUFFLED, count=len(self._draw)))
                continue
            break
        self._discard = [starter]
        self._colour = COLOUR[starter]
        self._fits = _FITS[COLOUR[starter]][RANK[starter]]
        self._starter_effect(starter, events)

    def _starter_effect(self, starter: int, events: list[Event]) -> None:
        """Apply the starter card table of section 2."""
        rules = self.rules
        dealer = self._dealer
        first = dealer if rules.first_player is FirstPlayer.DEALER else self._step(dealer, 1)
        rank = RANK[starter]
        self._phase = _PLAYING
        current = first
        if rank == _SKIP:
            events.append(_SKIPPED[first])
            current = self._step(first, 1)
        elif rank == _REVERSE:
            self._reverse(events)
            how = rules.reverse_starter
            if how is ReverseStarter.DEALER_FIRST:
                current = dealer
            elif how is ReverseStarter.RIGHT_OF_DEALER_FIRST:
                current = self._step(dealer, 1)
            # FIRST_PLAYER_THEN_REVERSE: the first player plays; play then runs reversed.
        elif rank == _DRAW_TWO:
            if self._defer_draws:  # section 8: a Draw Two starter can be answered
                self._open_penalty(first, 2, _DRAW_TWO, events)
                return
            self._draw_cards(first, 2, events)
            events.append(_SKIPPED[first])
            current = self._step(first, 1)
        elif rank == _WILD:
            self._phase = _CHOOSE_COLOUR
            how = rules.wild_starter
            if how is WildStarter.DEALER_NAMES:
                current, self._after_choice = dealer, first
            elif how is WildStarter.FIRST_PLAYER_NAMES_ONLY:
                self._after_choice = self._step(first, 1)
            else:
                self._after_choice = first
        self._current = current
        events.append(_TURN[current])

    def next_round(self) -> list[Event]:
        """Deal the next round; the previous round's winner deals (section 2).

        Raises IllegalAction (ROUND_IN_PROGRESS or GAME_OVER) when there is no
        round to start.
        """
        if self._phase is Phase.GAME_OVER:
            raise IllegalAction(Reason.GAME_OVER, "the game is over")
        if self._phase is not _ROUND_OVER:
            raise IllegalAction(Reason.ROUND_IN_PROGRESS, "the round is still being played")
        self._dealer = self._round_winner
        events: list[Event] = []
        self._deal(events)
        return events

    # ------------------------------------------------------------------ queries

    @property
    def phase(self) -> Phase:
        """What the round waits for (:class:`Phase`)."""
        return self._phase

    @property
    def current(self) -> int:
        """Seat whose turn it is (or who must answer the pending decision)."""
        return self._current

    @property
    def is_round_over(self) -> bool:
        """True once a player has gone out (also when the game is over)."""
        return self._phase >= _ROUND_OVER

    @property
    def is_game_over(self) -> bool:
        """True once a score reached the target (section 7)."""
        return self._phase is Phase.GAME_OVER

    @property
    def scores(self) -> tuple[int, ...]:
        """Game scores per seat, in points (section 7)."""
        return tuple(self._scores)

    @property
    def top_card(self) -> int:
        """The discard pile's top card id."""
        return self._discard[-1]

    @property
    def colour(self) -> int:
        """The colour in force, 0..3 (4 while a Wild starter waits for a colour)."""
        return self._colour

    @property
    def direction(self) -> int:
        """1 clockwise, -1 counter-clockwise."""
        return self._direction

    @property
    def pending_penalty(self) -> int:
        """Cards the current player draws if they accept (PENALTY phase), else 0."""
        return self._pending

    @property
    def dealer(self) -> int:
        """Seat of this round's dealer."""
        return self._dealer

    @property
    def round_number(self) -> int:
        """1 for the first round."""
        return self._round

    @property
    def round_winner(self) -> int:
        """Seat that went out this round, or -1."""
        return self._round_winner

    @property
    def game_winners(self) -> tuple[int, ...]:
        """Winning seats once the game is over (several on a tie under penalty scoring)."""
        return self._game_winners

    def hand(self, seat: int) -> tuple[int, ...]:
        """The cards held by ``seat`` (hidden information: not for other players)."""
        return tuple(self._hands[seat])

    @property
    def draw_pile(self) -> tuple[int, ...]:
        """Draw pile, bottom first (hidden information). After a shuffle the order
        of the cards not yet drawn is only decided as they are drawn."""
        return tuple(self._draw)

    @property
    def discard_pile(self) -> tuple[int, ...]:
        """Discard pile, bottom first; the last card is the top card."""
        return tuple(self._discard)

    def uno_called(self, seat: int) -> bool:
        """True if ``seat`` holds one card and called UNO for it."""
        return self._uno[seat]

    @property
    def catchable(self) -> int:
        """Seat that holds one card without having called UNO, while it can be caught; else -1."""
        return self._catchable

    def hand_points(self, seat: int) -> int:
        """Points of the cards ``seat`` holds under the rule set's point values."""
        pts = self._points
        return sum(map(pts.__getitem__, self._hands[seat]))

    def view(self, seat: int) -> PlayerView:
        """The information state of ``seat`` (-1 for a spectator): own hand only."""
        own = 0 <= seat < self.players
        return PlayerView(
            seat=seat,
            hand=tuple(self._hands[seat]) if own else (),
            hand_sizes=tuple(len(h) for h in self._hands),
            top_card=self._discard[-1],
            colour=self._colour,
            direction=self._direction,
            current=self._current,
            phase=self._phase,
            pending_penalty=self._pending,
            drawn_card=self._drawn if own and seat == self._current else NONE,
            uno_called=tuple(self._uno),
            catchable=self._catchable,
            draw_pile_size=len(self._draw),
            discard_pile_size=len(self._discard),
            scores=tuple(self._scores),
            dealer=self._dealer,
            round_number=self._round,
            round_winner=self._round_winner,
            game_winners=self._game_winners,
            out_seats=tuple(self._out),
        )

    def legal_actions(self, seat: int) -> list[Action]:
        """Every action ``seat`` may take now, in its turn or out of it.

        Plays come in hand order, each wild once per colour, and with and
        without a UNO call when it leaves one card. Empty when the round is over.
        """
        phase = self._phase
        caught = self._catchable
        if phase is _PLAYING and seat == self._current and self._plain:  # the common case
            hand = self._hands[seat]
            fits = self._fits
            table = self._plays_uno if len(hand) == 2 else self._plays
            acts = []
            for c in hand:
                if fits[c]:
                    acts += table[c]
            acts.append(_DRAW_ACTION)
        elif phase >= _ROUND_OVER or not 0 <= seat < self.players or self._pos[seat] < 0:
            return []
        elif not self._plain:
            acts = []
            if seat == self._current and phase is not _CHOOSE_COLOUR:
                acts += self._play_variants(seat)
                if phase is _PLAYING:
                    acts.append(A.DRAW)
                elif phase is _DRAWN:
                    acts.append(A.KEEP)
                else:
                    if self._wd4_by != NONE:
                        acts.append(A.CHALLENGE)
                    acts.append(A.ACCEPT)
            elif seat == self._current:
                acts += [A.choose_colour(c) for c in range(4)]
            elif self.rules.jump_in and phase is not _CHOOSE_COLOUR:
                acts += self._play_variants(seat)
        elif seat != self._current:  # official rules out of turn: catches and calls only
            acts = []
        elif phase is _DRAWN:
            table = self._plays_uno if len(self._hands[seat]) == 2 else self._plays
            acts = [*table[self._drawn], A.KEEP]
        elif phase is _PENALTY:
            acts = [A.CHALLENGE, A.ACCEPT]
        else:
            acts = [A.choose_colour(c) for c in range(4)]
        if caught != NONE:
            if caught != seat:
                acts.append(A.catch(caught))
            elif not self._strict:
                acts.append(A.CALL_UNO)
        if self._false_uno and caught != seat and self._can_draw():
            acts.append(A.CALL_UNO)  # a false call, which costs cards while there are any
        return acts

    def _play_variants(self, seat: int) -> list[Action]:
        """Every play ``seat`` may make now, found by asking the validator (the
        general path, used when house rules are on)."""
        hand = self._hands[seat]
        table = self._plays_uno if len(hand) == 2 else self._plays
        targets = [NONE] + [p for p in self._ring if p != seat]
        plays = []
        for card in hand:
            for action in table[card]:
                for target in (targets if RANK[card] in (5, 7) and len(hand) > 1 else (NONE,)):
                    if target != NONE:
                        action = A.play(card, None if action.colour == NONE else action.colour,
                                        action.uno, target)
                    try:
                        self._validate_play(seat, action)
                    except IllegalAction:
                        continue
                    plays.append(action)
        if self.rules.multi_play is not MultiPlay.OFF and plays and len(hand) > 1 \
                and seat == self._current and self._phase is not _DRAWN:
            plays += self._multi_plays(seat, targets, {a.card for a in plays})
        return plays

    def _multi_plays(self, seat: int, targets: list[int], firsts: set[int]) -> list[Action]:
        """Section 8 (``multi_play``): every play of several cards. A set of cards
        is listed once, led by its lowest-id card that may be played alone; then
        one action per colour it may leave in force, per UNO call, per swap target."""
        hand = self._hands[seat]
        identical = self.rules.multi_play is MultiPlay.IDENTICAL
        unnamed = self.rules.unnamed_wild_keeps_colour
        plays = []
        for card in sorted(firsts):
            rank = RANK[card]
            mates = [c for c in hand if c != card and RANK[c] == rank
                     and (not identical or COLOUR[c] == COLOUR[card])]
            for size in range(1, len(mates) + 1):
                for extra in combinations(sorted(mates), size):
                    if any(c < card and c in firsts for c in extra):
                        continue  # listed under that lower card
                    left = len(hand) - 1 - size
                    if IS_WILD[card]:
                        colours = [0, 1, 2, 3] + ([NONE] if unnamed else [])
                    else:
                        colours = sorted({COLOUR[c] for c in extra} | {COLOUR[card]})
                        if len(colours) == 1:
                            colours = [NONE]
                    swaps = rank in (5, 7) and left > 0
                    for colour in colours:
                        for uno in ((False, True) if left == 1 else (False,)):
                            for target in (targets if swaps else (NONE,)):
                                action = A.play(card, None if colour == NONE else colour, uno,
                                                target, extra)
                                try:
                                    self._validate_play(seat, action)
                                except IllegalAction:
                                    continue
                                plays.append(action)
        return plays

    # ------------------------------------------------------------------ actions

    def apply(self, seat: int, action: Action) -> list[Event]:
        """Apply ``action`` for the player at ``seat`` and return the events.

        Raises IllegalAction (with a :class:`Reason`) and leaves the state
        exactly as it was when the rules refuse the action.
        """
        kind = action[0]
        if seat == self._current and self._phase < _ROUND_OVER:  # the common cases first
            if kind is _PLAY and self._plain:
                return self._play(seat, action)
            if kind is _DRAW:
                return self._draw_turn(seat)
        if self._phase >= _ROUND_OVER:
            raise IllegalAction(Reason.ROUND_OVER, "the round is over")
        if not 0 <= seat < self.players:
            raise IllegalAction(Reason.NO_SUCH_PLAYER, f"there is no seat {seat}")
        if self._pos[seat] < 0:
            raise IllegalAction(Reason.PLAYER_OUT, "you are out of play")
        if kind is _PLAY:
            if self.rules.wrong_play_penalty:
                return self._play_or_penalise(seat, action)
            return self._play(seat, action)
        if kind is _DRAW:
            return self._draw_turn(seat)
        try:
            kind = ActionKind(kind)
        except ValueError:
            raise IllegalAction(Reason.UNKNOWN_ACTION, f"unknown action kind {kind!r}") from None
        if kind == ActionKind.KEEP:
            return self._keep(seat)
        if kind == ActionKind.CHALLENGE:
            return self._challenge(seat)
        if kind == ActionKind.ACCEPT:
            return self._accept(seat)
        if kind == ActionKind.CALL_UNO:
            return self._call_uno(seat)
        if kind == ActionKind.CATCH:
            return self._catch(seat, action.target)
        return self._choose_colour(seat, action.colour)

    def _require_turn(self, seat: int, phase: Phase, reason: Reason, message: str) -> None:
        """Refuse unless ``seat`` is to move in ``phase`` (``reason`` for a wrong phase)."""
        if seat != self._current:
            raise IllegalAction(Reason.NOT_YOUR_TURN, f"it is player {self._current}'s turn")
        if self._phase is not phase:
            if self._phase is _PENALTY:
                raise IllegalAction(Reason.PENALTY_PENDING,
                                    "answer the pending penalty first (accept it, or challenge or stack)")
            if self._phase is _CHOOSE_COLOUR:
                raise IllegalAction(Reason.COLOUR_CHOICE_PENDING,
                                    "name the colour of the Wild starter first")
            raise IllegalAction(reason, message)

    def _play(self, seat: int, action: Action) -> list[Event]:
        """Section 3: play one matching card (or a wild, naming a colour); with
        house rules also stack, deflect, jump in, or swap hands (section 8)."""
        _, card, colour, uno, target, extra = action
        phase = self._phase
        hand = self._hands[seat]
        top = self._discard[-1]
        # Fast path (no house rule touches plays): accept the common legal play
        # here; anything else goes to the full validator, which refuses it.
        if self._plain and seat == self._current and target == NONE and not extra \
                and 0 <= card < DECK_SIZE and card in hand \
                and (self._fits[card] if phase is _PLAYING
                     else phase is _DRAWN and card == self._drawn) \
                and (0 <= colour <= 3 if IS_WILD[card] else colour == NONE) \
                and (not uno or len(hand) == 2):
            jump = False
            if colour == NONE:
                colour = COLOUR[card]
        else:
            jump, colour = self._validate_play(seat, action)
        rank = RANK[card]

        # Committed: from here on the action happens.
        if rank == _WD4:
            self._wd4_guilty = self._guilty(hand, top)
        if extra:  # section 8: several cards; the one of the colour in force goes on top
            laid = (card, *extra)
            if not IS_WILD[card]:
                on_top = [c for c in laid if COLOUR[c] == colour][-1]
                laid = tuple(c for c in laid if c != on_top) + (on_top,)
            for c in laid:
                hand.remove(c)
            self._discard += laid
            k = len(laid)  # cards laid: each has its effect (section 8)
        else:
            hand.remove(card)
            self._discard.append(card)
            k = 1
        self._colour = colour
        self._fits = _FITS[colour][rank]  # every card laid has this rank
        self._drawn = NONE
        self._catchable = NONE
        self._first_play = False
        left = len(hand)
        events = [new_event((_EV_PLAYED, seat, EVERYONE, laid if extra else (card,), 0, colour,
                             NONE, int(jump))) if jump or extra else _PLAYED[seat][card][colour]]
        if left == 1:
            self._uno[seat] = uno
            if uno:
                events.append(_UNO_CALLED[seat])
            else:
                self._catchable = seat
        out = left == 0  # goes out, unless a house rule makes them draw instead
        if out and self._house and self.rules.number_first_and_last and not IS_NUMBER[card]:
            out = not self._last_card_not_number(seat, events)
        if phase is _PENALTY:
            return self._pass_penalty(seat, rank, k, jump, out, events)
        ring = self._ring  # the seats in play, clockwise (all of them, but for section 9)
        m = len(ring)
        at = self._pos[seat]
        d = self._direction
        if rank <= 9 or rank == _WILD:
            if (target != NONE or (rank == 0 and self._house and self.rules.seven_zero)) and not out:
                self._swap(seat, rank, target, events)
            nxt = ring[(at + d) % m]
        elif rank == _SKIP:  # k Skips skip the next k players, round the table if need be
            skips = 2 if jump else k
            for i in range(1, skips + 1):
                events.append(_SKIPPED[ring[(at + i * d) % m]])
            nxt = ring[(at + (skips + 1) * d) % m]
        elif rank == _REVERSE:
            if m == 2:  # each acts as a Skip (section 3), jumped in or not
                if not jump:
                    for _ in range(k):
                        self._reverse(events)
                for i in range(1, k + 1):
                    events.append(_SKIPPED[ring[(at + i) % 2]])
                nxt = ring[(at + k + 1) % 2]
            elif jump:  # section 8: jumping on a Reverse keeps the direction
                nxt = ring[(at + d) % m]
            else:
                for _ in range(k):
                    self._reverse(events)
                nxt = ring[(at + self._direction) % m]
        elif rank == _DRAW_TWO:
            victim = ring[(at + d) % m]
            if self._defer_draws and not out:
                return self._open_penalty(victim, 2 * k, _DRAW_TWO, events)
            self._draw_cards(victim, 2 * k, events)
            events.append(_SKIPPED[victim])
            nxt = ring[(at + 2 * d) % m]
        else:  # Wild Draw Four
            victim = ring[(at + d) % m]
            if not out:
                self._wd4_by = seat
                self._wd4_hand = tuple(hand)
                return self._open_penalty(victim, 4 * k, _WD4, events)
            self._draw_cards(victim, 4 * k, events)  # section 7: still drawn, no challenge
            nxt = ring[(at + 2 * d) % m]
        if out:
            return self._went_out(seat, nxt, events)
        self._phase = _PLAYING
        self._current = nxt
        events.append(_TURN[nxt])
        return events

    def _went_out(self, seat: int, nxt: int, events: list[Event]) -> list[Event]:
        """``seat`` has played its last card: the round ends (section 7), or under
        ``format=elimination`` play goes on without them, from ``nxt`` (section 9)."""
        if self.rules.format is GameFormat.ELIMINATION:
            ring = self._ring
            after = self._step(seat, 1)
            self._take_out(seat)
            events.append(Event(E.PLAYER_OUT, seat, value=len(self._out)))
            if len(ring) > 1:
                self._catchable = NONE
                self._phase = _PLAYING
                self._current = after if nxt == seat else nxt
                events.append(_TURN[self._current])
                return events
        self._end_round(seat, events)
        return events

    def _take_out(self, seat: int) -> None:
        """Section 9: ``seat`` leaves play (turn order closes up around it)."""
        ring = self._ring
        ring.remove(seat)
        self._out.append(seat)
        pos = self._pos
        pos[seat] = NONE
        for i, p in enumerate(ring):
            pos[p] = i

    def _validate_play(self, seat: int, action: Action) -> tuple[bool, int]:
        """Refuse an illegal play (IllegalAction) without changing anything.

        Returns (is it a jump-in, the colour that will be in force).
        """
        _, card, colour, uno, target, extra = action
        if not 0 <= card < DECK_SIZE:
            raise IllegalAction(Reason.NO_SUCH_CARD, f"there is no card {card}")
        phase = self._phase
        jump = False
        if seat != self._current or phase is not _PLAYING:
            jump = self._check_out_of_phase_play(seat, card)
        hand = self._hands[seat]
        if card not in hand:
            raise IllegalAction(Reason.CARD_NOT_IN_HAND, f"you do not hold the {card_name(card)}")
        if extra:
            self._check_extra(hand, card, extra, jump)
        top = self._discard[-1]
        if COLOUR[card] == WILD:
            if colour == NONE:
                if not self.rules.unnamed_wild_keeps_colour:
                    raise IllegalAction(Reason.COLOUR_MISSING, "name a colour for the wild card")
                colour = self._colour
            elif not 0 <= colour <= 3:
                raise IllegalAction(Reason.BAD_COLOUR, f"there is no colour {colour}")
        else:
            if colour != NONE and not extra:
                raise IllegalAction(Reason.COLOUR_NOT_ALLOWED,
                                    "only a wild card takes a named colour")
            if phase is _PLAYING and not jump and COLOUR[card] != self._colour \
                    and RANK[card] != RANK[top]:
                raise IllegalAction(Reason.DOES_NOT_MATCH,
                                    f"the {card_name(card)} does not match the {card_name(top)}")
            colour = self._multi_colour(card, extra, colour) if extra else COLOUR[card]
        left = len(hand) - 1 - len(extra)
        if uno and left != 1:
            raise IllegalAction(Reason.UNO_NOT_NEEDED, "UNO is called with the play that leaves one card")
        if self._house:
            self._check_house_play(seat, card, RANK[card], target, left + 1)
        elif target != NONE:
            raise IllegalAction(Reason.TARGET_NOT_ALLOWED, "only a swapping 7 or 5 takes a target")
        return jump, colour

    def _check_extra(self, hand: list[int], card: int, extra: tuple[int, ...], jump: bool) -> None:
        """Section 8 (``multi_play``): refuse ``extra`` cards that may not be laid
        with ``card``. Only a play in turn may lay several cards: a jump-in, the
        card just drawn and a deflecting Reverse are played alone."""
        mode = self.rules.multi_play
        if mode is MultiPlay.OFF:
            raise IllegalAction(Reason.MULTI_PLAY_OFF, "one card per play at this table")
        if jump or self._phase is _DRAWN or (self._phase is _PENALTY and RANK[card] == _REVERSE):
            raise IllegalAction(Reason.ONE_CARD_ONLY,
                                "a jump-in, a drawn card or a deflecting Reverse is played alone")
        seen = {card}
        for c in extra:
            if not 0 <= c < DECK_SIZE:
                raise IllegalAction(Reason.NO_SUCH_CARD, f"there is no card {c}")
            if c in seen:
                raise IllegalAction(Reason.CARDS_DO_NOT_GO_TOGETHER,
                                    f"the {card_name(c)} is listed twice")
            seen.add(c)
            if c not in hand:
                raise IllegalAction(Reason.CARD_NOT_IN_HAND, f"you do not hold the {card_name(c)}")
            if RANK[c] != RANK[card]:
                raise IllegalAction(Reason.CARDS_DO_NOT_GO_TOGETHER,
                                    "cards played together must have the same number or symbol")
            if mode is MultiPlay.IDENTICAL and COLOUR[c] != COLOUR[card]:
                raise IllegalAction(Reason.CARDS_DO_NOT_GO_TOGETHER,
                                    "only identical cards may be played together at this table")

    @staticmethod
    def _multi_colour(card: int, extra: tuple[int, ...], colour: int) -> int:
        """Section 8: the colour in force after laying coloured ``card`` + ``extra``:
        the one colour they share (name none), else the named one of theirs."""
        colours = {COLOUR[c] for c in extra}
        colours.add(COLOUR[card])
        if len(colours) == 1:
            if colour != NONE:
                raise IllegalAction(Reason.COLOUR_NOT_ALLOWED,
                                    "the cards share one colour: name none")
            return COLOUR[card]
        if colour == NONE:
            raise IllegalAction(Reason.COLOUR_MISSING,
                                "name the colour in force: one of the colours played")
        if colour not in colours:
            raise IllegalAction(Reason.COLOUR_NOT_PLAYED, "name one of the colours played")
        return colour

    def _play_or_penalise(self, seat: int, action: Action) -> list[Event]:
        """Section 8 (``wrong_play_penalty``): a refused play of a card by the
        player to move is still refused, but costs them cards; the penalty's
        events travel on the exception (``IllegalAction.events``)."""
        try:
            return self._play(seat, action)
        except IllegalAction as err:
            if seat != self._current or err.reason not in _WRONG_PLAYS:
                raise
            count = self.rules.wrong_play_penalty
            err.events = [new_event((_EV_WRONG_PLAY, seat, EVERYONE, (), count, NONE, NONE, 0))]
            self._draw_cards(seat, count, err.events)
            raise

    def _check_out_of_phase_play(self, seat: int, card: int) -> bool:
        """Refuse a play outside the plain PLAY phase unless the rules allow it.

        Returns True for a jump-in (section 8). Allowed otherwise: the drawn card
        (DRAWN), an answer to a pending penalty (PENALTY).
        """
        phase = self._phase
        top = self._discard[-1]
        identical = COLOUR[card] == COLOUR[top] and RANK[card] == RANK[top]
        if seat == self._current:
            if phase is _DRAWN:
                if card != self._drawn:
                    raise IllegalAction(Reason.ONLY_DRAWN_CARD,
                                        f"only the drawn {card_name(self._drawn)} may be played")
                return False
            if phase is _PENALTY:
                if self._answers_penalty(card):
                    return False
                if self.rules.jump_in and identical:
                    return True
            self._require_turn(seat, _PLAYING, Reason.NOT_YOUR_TURN, "")
        if self.rules.jump_in and identical and phase in (_PLAYING, _DRAWN, _PENALTY):
            return True
        raise IllegalAction(Reason.NOT_YOUR_TURN, f"it is player {self._current}'s turn")

    def _answers_penalty(self, card: int) -> bool:
        """Section 8: may ``card`` answer the pending penalty (stack or deflect)?"""
        rules = self.rules
        rank = RANK[card]
        if rank == _REVERSE:
            return rules.reverse_deflects_draw and COLOUR[card] == self._colour
        stacking = rules.stacking
        if rank == _WD4:
            return stacking is Stacking.PLUS_FOUR_OVER_TWO or stacking is Stacking.ANY
        if rank == _DRAW_TWO and stacking is not Stacking.OFF:
            if RANK[self._discard[-1]] == _DRAW_TWO:
                return True  # matches by symbol
            return (self._stack_rank == _DRAW_TWO or stacking is Stacking.ANY) \
                and COLOUR[card] == self._colour
        return False

    def _check_house_play(self, seat: int, card: int, rank: int, target: int, held: int) -> None:
        """Refusals that only house rules add: first/last card numbers, swap targets."""
        rules = self.rules
        if rules.number_first_and_last and self._first_play and not IS_NUMBER[card]:
            raise IllegalAction(Reason.NUMBER_FIRST, "the first card of a round must be a number")
        swaps = (rank == 7 and rules.seven_zero) or (rank == 5 and rules.swap_on_five)
        if swaps and held > 1:
            if target == NONE:
                raise IllegalAction(Reason.TARGET_MISSING,
                                    f"name the player to swap hands with for the {card_name(card)}")
            if not 0 <= target < self.players or target == seat or self._pos[target] < 0:
                raise IllegalAction(Reason.BAD_TARGET, "swap with another seat at the table")
        elif target != NONE:
            raise IllegalAction(Reason.TARGET_NOT_ALLOWED, "only a swapping 7 or 5 takes a target")

    def _open_penalty(self, victim: int, cards: int, rank: int, events: list[Event]) -> list[Event]:
        """Start a pending penalty of ``cards`` for ``victim`` (challenge/stack/accept)."""
        if rank != _WD4:
            self._wd4_by = NONE
        self._pending += cards
        self._stack_rank = rank
        self._phase = _PENALTY
        self._current = victim
        events.append(_TURN[victim])
        return events

    def _pass_penalty(self, seat: int, rank: int, k: int, jump: bool, out: bool,
                      events: list[Event]) -> list[Event]:
        """Section 8: a stack (of ``k`` draw cards), deflect or jump-in passes the penalty on."""
        if rank == _REVERSE and not jump:
            self._reverse(events)  # deflect: back to the player who played the draw card
        victim = self._step(seat, 1)
        added = k * (2 if rank == _DRAW_TWO else 4 if rank == _WD4 else 0)
        if rank == _WD4:
            self._wd4_by = seat
            self._wd4_hand = tuple(self._hands[seat])
        else:
            self._wd4_by = NONE
        if out:  # went out: the next player draws it all (section 7) and loses the turn
            self._draw_cards(victim, self._pending + added, events)
            self._clear_penalty()
            return self._went_out(seat, self._step(seat, 2), events)
        return self._open_penalty(victim, added, rank if added else self._stack_rank, events)

    def _swap(self, seat: int, rank: int, target: int, events: list[Event]) -> None:
        """Section 8: a 7 (or 5) swaps hands with ``target``; a 0 passes every hand
        one seat in the direction of play. Holders of one card after it are safe."""
        hands = self._hands
        if rank == 0:
            d = self._direction
            ring = self._ring
            m = len(ring)
            self._hands = rotated = hands[:]
            for i, p in enumerate(ring):
                rotated[p] = hands[ring[(i - d) % m]]
            hands = rotated
            events.append(new_event((_EV_HANDS_ROTATED, seat, EVERYONE, (), 0, NONE, NONE, d)))
            moved = ring
        else:
            hands[seat], hands[target] = hands[target], hands[seat]
            events.append(new_event((_EV_HANDS_SWAPPED, seat, EVERYONE, (), 0, NONE, target, 0)))
            moved = (seat, target)
        for p in moved:
            self._uno[p] = len(hands[p]) == 1
            events.append(new_event((_EV_HAND_RECEIVED, p, p, tuple(hands[p]), 0, NONE, NONE, 0)))
        self._catchable = NONE

    def _last_card_not_number(self, seat: int, events: list[Event]) -> bool:
        """Section 8 (``number_first_and_last``): going out on an action or wild
        card draws one card instead, and the player must call UNO again. The
        card's effects still apply. Returns False if there was nothing to draw
        (then the player goes out after all)."""
        events.append(new_event((_EV_LAST_NOT_NUMBER, seat, EVERYONE, (), 1, NONE, NONE, 0)))
        if not self._draw_cards(seat, 1, events):
            return False
        self._uno[seat] = False
        self._catchable = seat
        return True

    def _guilty(self, hand: list[int], top: int) -> bool:
        """Section 3/4: would a Wild Draw Four from ``hand`` on ``top`` be illegal?"""
        colour = self._colour
        if self.rules.wd4_restriction is Wd4Restriction.ANY_MATCH:
            top_rank = RANK[top]
            return any(COLOUR[c] == colour or (COLOUR[c] != WILD and RANK[c] == top_rank)
                       for c in hand)
        return any(COLOUR[c] == colour for c in hand)

    def _draw_turn(self, seat: int) -> list[Event]:
        """Section 3: draw one card instead of playing; play it at once if it fits."""
        if seat != self._current or self._phase is not _PLAYING:
            self._require_turn(seat, _PLAYING, Reason.ALREADY_DREW,
                               "you drew already: play the drawn card or keep it")
        self._catchable = NONE
        events: list[Event] = []
        first_number = self._first_play and self._house and self.rules.number_first_and_last
        if first_number and not self._play_variants(seat):
            # Section 8: no number card to lead with: draw 2 and lose the turn.
            self._draw_cards(seat, 2, events)
            events.append(_SKIPPED[seat])
            self._pass_turn(seat, events)
            return events
        got = self._draw_cards(seat, 1, events)
        if got:
            card = got[0]
            if self._fits[card] and not (
                    first_number and not IS_NUMBER[card]):
                self._phase = _DRAWN
                self._drawn = card
                return events
        self._pass_turn(seat, events)
        return events

    def _keep(self, seat: int) -> list[Event]:
        """Section 3: keep the drawn card; the turn passes."""
        if seat != self._current or self._phase is not _DRAWN:
            self._require_turn(seat, _DRAWN, Reason.NOTHING_TO_KEEP,
                               "keep is only for a card you just drew")
        events = [_KEPT[seat]]
        self._drawn = NONE
        self._pass_turn(seat, events)
        return events

    def _challenge(self, seat: int) -> list[Event]:
        """Section 4: challenge the Wild Draw Four; the hand is shown to the challenger."""
        self._require_turn(seat, _PENALTY, Reason.NOTHING_TO_CHALLENGE,
                           "there is no Wild Draw Four to challenge")
        if self._wd4_by == NONE:  # a Draw Two or a deflected penalty (section 8)
            raise IllegalAction(Reason.NOTHING_TO_CHALLENGE,
                                "only a Wild Draw Four played on you can be challenged")
        self._catchable = NONE
        by = self._wd4_by
        guilty = self._wd4_guilty
        events = [
            Event(E.CHALLENGED, seat, target=by, value=int(guilty)),
            Event(E.HAND_SHOWN, by, audience=seat, cards=self._wd4_hand),
        ]
        pending = self._pending
        self._clear_penalty()
        if guilty:
            self._draw_cards(by, pending, events)
            if self.rules.challenge_success_skips_challenger:
                events.append(_SKIPPED[seat])
                self._pass_turn(seat, events)
            else:
                self._phase = _PLAYING
                events.append(_TURN[seat])
        else:
            self._draw_cards(seat, pending + 2, events)
            events.append(_SKIPPED[seat])
            self._pass_turn(seat, events)
        return events

    def _accept(self, seat: int) -> list[Event]:
        """Section 3: accept the Wild Draw Four: draw the penalty and lose the turn."""
        self._require_turn(seat, _PENALTY, Reason.NOTHING_TO_ACCEPT,
                           "there is no penalty to accept")
        self._catchable = NONE
        pending = self._pending
        events = [Event(E.PENALTY_ACCEPTED, seat, count=pending)]
        self._clear_penalty()
        self._draw_cards(seat, pending, events)
        events.append(_SKIPPED[seat])
        self._pass_turn(seat, events)
        return events

    def _clear_penalty(self) -> None:
        self._pending = 0
        self._wd4_by = NONE
        self._wd4_hand = ()

    def _call_uno(self, seat: int) -> list[Event]:
        """Section 5: call UNO on its own, before anyone catches you."""
        if self._catchable == seat:
            if self.rules.uno_call_strict:
                raise IllegalAction(Reason.UNO_CALL_STRICT,
                                    "UNO counts only when called with the play")
            self._uno[seat] = True
            self._catchable = NONE
            return [Event(E.UNO_CALLED, seat)]
        penalty = self.rules.false_uno_penalty
        if not penalty:
            raise IllegalAction(Reason.UNO_NOT_NEEDED, "you have no UNO to call")
        if not self._can_draw():  # it would cost nothing (section 5)
            raise IllegalAction(Reason.UNO_NOT_NEEDED,
                                "you have no UNO to call, and with both piles empty a false "
                                "call would cost nothing")
        events = [Event(E.UNO_FALSE_CALL, seat, count=penalty)]
        self._draw_cards(seat, penalty, events)
        return events

    def _catch(self, seat: int, target: int) -> list[Event]:
        """Section 5: catch a player who holds one card and did not call UNO."""
        if not 0 <= target < self.players:
            raise IllegalAction(Reason.NO_SUCH_PLAYER, f"there is no seat {target}")
        if target == seat:
            raise IllegalAction(Reason.CANNOT_CATCH_SELF, "you cannot catch yourself")
        if len(self._hands[target]) != 1:
            raise IllegalAction(Reason.NOT_ONE_CARD, f"player {target} does not hold one card")
        if self._uno[target]:
            raise IllegalAction(Reason.ALREADY_CALLED, f"player {target} called UNO")
        if self._catchable != target:
            raise IllegalAction(Reason.CATCH_TOO_LATE, "too late: the next player began their turn")
        self._catchable = NONE
        events = [Event(E.UNO_CAUGHT, seat, target=target)]
        self._draw_cards(target, self.rules.uno_penalty, events)
        return events

    def _choose_colour(self, seat: int, colour: int) -> list[Event]:
        """Section 2: name the colour of a Wild starter card."""
        self._require_turn(seat, _CHOOSE_COLOUR, Reason.NO_COLOUR_TO_CHOOSE,
                           "there is no colour to name now")
        if not 0 <= colour <= 3:
            raise IllegalAction(Reason.BAD_COLOUR, f"there is no colour {colour}")
        self._colour = colour
        self._fits = _FITS[colour][RANK[self._discard[-1]]]
        self._phase = _PLAYING
        self._current = self._after_choice
        return [Event(E.COLOUR_CHOSEN, seat, colour=colour), _TURN[self._current]]

    # ------------------------------------------------------------------ helpers

    def _step(self, seat: int, k: int) -> int:
        """The seat ``k`` places after ``seat`` in the direction of play, among seats in play."""
        ring = self._ring
        return ring[(self._pos[seat] + self._direction * k) % len(ring)]

    def _reverse(self, events: list[Event]) -> None:
        self._direction = -self._direction
        events.append(_DIRECTION_CHANGED[self._direction])

    def _pass_turn(self, seat: int, events: list[Event]) -> None:
        ring = self._ring  # self._step(seat, 1), inlined: every draw and keep passes here
        nxt = ring[(self._pos[seat] + self._direction) % len(ring)]
        self._phase = _PLAYING
        self._current = nxt
        events.append(_TURN[nxt])

    def _can_draw(self) -> bool:
        """Is there a card to draw: in the draw pile, or under the top discard (section 6)?"""
        return bool(self._draw) or len(self._discard) > 1

    def _draw_cards(self, seat: int, k: int, events: list[Event]) -> list[int]:
        """Move up to ``k`` cards from the draw pile to ``seat``'s hand (section 6).

        Reshuffles the discard pile (less its top card) when the draw pile runs
        out; draws fewer when there is nothing left. Returns the cards drawn.
        """
        draw = self._draw
        if k == 1 and draw:  # the common case: _pop_cards(1) inlined, one Fisher-Yates step
            m = len(draw) - 1
            if m < self._unshuffled:
                j = self._rng.below(m + 1)
                draw[m], draw[j] = draw[j], draw[m]
                self._unshuffled = m
            got = [draw.pop()]
        else:
            got = self._pop_cards(k) if k > 0 else []
            if len(got) < k:
                discard = self._discard
                if len(discard) > 1:
                    self._draw = discard[:-1]
                    self._unshuffled = len(self._draw)
                    del discard[:-1]
                    events.append(Event(E.DECK_RESHUFFLED, count=len(self._draw)))
                    got += self._pop_cards(k - len(got))
        n = len(got)
        events.append(_DREW[seat][n] if n < 9 else
                      new_event((_EV_DREW, seat, EVERYONE, (), n, NONE, NONE, 0)))
        if got:
            self._hands[seat] += got
            self._uno[seat] = False
            if self._catchable == seat:
                self._catchable = NONE
            events.append(_DREW_ONE[seat][got[0]] if n == 1 else
                          new_event((_EV_DREW_CARDS, seat, seat, tuple(got), 0, NONE, NONE, 0)))
        return got

    def _end_round(self, winner: int, events: list[Event]) -> None:
        """Section 7: score the round and check the target score; section 9: the
        formats' variations (elimination, teams, tournament)."""
        rules = self.rules
        fmt = rules.format
        self._round_winner = winner
        self._catchable = NONE
        self._phase = _ROUND_OVER
        if fmt is GameFormat.ELIMINATION:  # the one player left loses; no points change
            loser = self._ring[0]
            self._take_out(loser)
            events.append(Event(E.PLAYER_OUT, loser, value=len(self._out)))
            events.append(Event(E.HAND_SCORED, loser, value=self.hand_points(loser)))
            self._round_winner = winner = self._out[0]
            events.append(Event(E.ROUND_OVER, winner, value=0))
            self._game_over((winner,), events)
            return
        ring = self._ring
        pts = self._points
        points = [0] * self.players
        for p in ring:
            points[p] = value = sum(map(pts.__getitem__, self._hands[p]))
            events.append(new_event((_EV_HAND_SCORED, p, EVERYONE, (), 0, NONE, NONE, value)))
        scores = self._scores
        won = 0
        if fmt is GameFormat.TEAMS:  # partners p and p + n/2 score as one
            half = self.players // 2
            for team in range(half):
                mates = (team, team + half)
                if rules.scoring is Scoring.WINNER_TAKES:
                    if winner % half == team:
                        won = sum(points) - points[team] - points[team + half]
                        gain = won
                    else:
                        gain = 0
                else:
                    gain = points[team] + points[team + half]
                for p in mates:
                    scores[p] += gain
        elif rules.scoring is Scoring.WINNER_TAKES:
            won = sum(points)
            scores[winner] += won
        else:
            for p in ring:
                scores[p] += points[p]
        events.append(Event(E.ROUND_OVER, winner, value=won))
        if fmt is GameFormat.TOURNAMENT:
            self._tournament_outs(events)
        elif max(scores) >= rules.target_score:
            best = (max if rules.scoring is Scoring.WINNER_TAKES else min)(scores)
            self._game_over(tuple(p for p in range(self.players) if scores[p] == best), events)

    def _tournament_outs(self, events: list[Event]) -> None:
        """Section 9 (challenge tournament): players whose score reached the target
        are out, the highest score first (each takes the last place left); the
        last player left wins. If all who were left reach it together, the lowest
        score among them wins."""
        scores = self._scores
        target = self.rules.target_score
        reached = sorted((p for p in self._ring if scores[p] >= target), key=lambda p: -scores[p])
        if len(reached) == len(self._ring):
            best = min(scores[p] for p in reached)
            reached = [p for p in reached if scores[p] != best]
        for p in reached:
            events.append(Event(E.PLAYER_OUT, p, value=len(self._ring)))
            self._take_out(p)
        ring = self._ring
        if len(ring) == 1 or all(scores[p] >= target for p in ring):
            self._game_over(tuple(ring), events)

    def _game_over(self, winners: tuple[int, ...], events: list[Event]) -> None:
        self._game_winners = winners
        self._phase = Phase.GAME_OVER
        for p in winners:
            events.append(Event(E.GAME_OVER, p))

    def __repr__(self) -> str:
        return (f"<GameState players={self.players} round={self._round} "
                f"phase={self._phase.name} current={self._current} "
                f"top={card_name(self._discard[-1]) if self._discard else None}>")

