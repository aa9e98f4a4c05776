"""The rules engine: one UNO game as a pure, seeded state machine.

No I/O, no clock, no global random state: a :class:`GameState` is driven only
by :meth:`GameState.apply` and :meth:`GameState.next_round`, and all chance
(dealer draw, shuffles) comes from its own :class:`~.deals.DealRandom` keyed
by the game's secret seed (RULES.md, "Fair deals"). The same seed and the
same actions always give the same events.

Seats are numbered ``0..players-1`` clockwise; "left of" a seat is the next
seat clockwise. Section numbers in docstrings refer to RULES.md. The house
rules (section 8) are in :mod:`.house`, the end of a round and the formats
(sections 7, 9) in :mod:`.scoring`.

A round between random players:

>>> import random
>>> from unoplay.game import GameState, RuleSet
>>> state, setup = GameState.new(3, RuleSet(target_score=0), seed="example")
>>> state.round_number, [len(state.hand(p)) for p in range(3)]
(1, [7, 7, 7])
>>> rng = random.Random(1)
>>> while not state.is_game_over:
...     seat = state.current
...     events = state.apply(seat, rng.choice(state.legal_actions(seat)))
>>> outcome = state.outcome()
>>> outcome.termination.name, outcome.winners == (state.round_winner,)
('GAME_WON', True)
>>> state.returns()[state.round_winner]
1.0
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from . import house, scoring
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
    play_table,
)
from .cards import (
    CLASSIC_POINTS,
    COLOUR,
    DECK_SIZE,
    IS_NUMBER,
    IS_WILD,
    RANK,
    STANDARD_POINTS,
    WILD,
    card_name,
)
from .deals import DealRandom, new_seed
from .errors import IllegalAction, Reason
from .events import EVERYONE, Event, new_event
from .events import EventKind as E
from .hotpath import (
    CHOOSE_COLOUR,
    DIRECTION_CHANGED,
    DRAW_TWO,
    DRAWN,
    DREW,
    DREW_ONE,
    EV_CHALLENGED,
    EV_DREW,
    EV_DREW_CARDS,
    EV_HAND_DEALT,
    EV_HAND_SHOWN,
    EV_PENALTY_ACCEPTED,
    EV_PLAYED,
    EV_RESHUFFLED,
    EV_UNO_CAUGHT,
    FITS,
    HAND_SIZE,
    KEPT,
    KIND_ACCEPT,
    KIND_CALL_UNO,
    KIND_CATCH,
    KIND_CHALLENGE,
    KIND_CHOOSE_COLOUR,
    KIND_DRAW,
    KIND_KEEP,
    KIND_PLAY,
    PENALTY,
    PLAYED,
    PLAYING,
    REVERSE,
    ROUND_OVER,
    SKIP,
    SKIPPED,
    STARTER_FLIPPED,
    TURN,
    UNO_CALLED,
    WD4,
    WILD_RANK,
)
from .rules import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    OFFICIAL,
    Direction,
    FirstPlayer,
    PointValues,
    ReverseStarter,
    RuleSet,
    Wd4Restriction,
    WildStarter,
)
from .view import Outcome, Phase, PlayerView, Termination


def illegal_wild_draw_four(hand: Sequence[int], colour: int, top: int, rules: RuleSet) -> bool:
    """RULES.md sections 3 and 4: whether a Wild Draw Four played from
    ``hand`` (the cards left beside it) on ``top`` with ``colour`` in force
    breaks ``rules.wd4_restriction``, i.e. whether a challenge of it wins."""
    if rules.wd4_restriction is Wd4Restriction.ANY_MATCH:
        top_rank = RANK[top]
        return any(COLOUR[c] == colour or (COLOUR[c] != WILD and RANK[c] == top_rank) for c in hand)
    return any(COLOUR[c] == colour for c in hand)


class GameState:
    """One game: a sequence of rounds between ``players`` seats (section 7).

    Create with :meth:`new` (plays the dealer draw and deals round 1) or, in
    tests, :meth:`from_position`. Drive with :meth:`legal_actions`,
    :meth:`apply` and :meth:`next_round`.
    """

    __slots__ = (
        "_after_choice",
        "_catchable",
        "_colour",
        "_current",
        "_dealer",
        "_defer_draws",
        "_direction",
        "_discard",
        "_draw",
        "_drawn",
        "_first_play",
        "_fits",
        "_game_winners",
        "_hands",
        "_house",
        "_out",
        "_pending",
        "_phase",
        "_plain",
        "_plays",
        "_plays_uno",
        "_points",
        "_pos",
        "_ring",
        "_rng",
        "_round",
        "_round_winner",
        "_scores",
        "_stack_rank",
        "_start_direction",
        "_strict",
        "_uno",
        "_unshuffled",
        "_wd4_by",
        "_wd4_guilty",
        "_wd4_hand",
        "players",
        "rules",
        "seed",
    )

    def __init__(
        self,
        players: int,
        rules: RuleSet | None = None,
        seed: str | int | None = None,
        rng: Any = None,
    ):
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
        self._fits = FITS[WILD][0]  # FITS row of the colour in force and the top card's rank
        self._start_direction = -1 if rules.initial_direction is Direction.COUNTER_CLOCKWISE else 1
        self._direction = self._start_direction
        self._current = 0
        self._phase = PLAYING
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
        self._points = (
            CLASSIC_POINTS if rules.point_values is PointValues.CLASSIC else STANDARD_POINTS
        )
        unnamed = rules.unnamed_wild_keeps_colour
        self._plays = play_table(False, unnamed)
        self._plays_uno = play_table(True, unnamed)
        # Section 8 options that need the general (slower) paths.
        self._house = rules.seven_zero or rules.swap_on_five or rules.number_first_and_last
        self._defer_draws = rules.defers_draws
        # No option that changes how a card is played or refused: plays take the fast path.
        self._plain = rules.plain_plays
        self._strict = rules.uno_call_strict
        self._stack_rank = NONE  # rank of the last draw card on a pending penalty
        self._first_play = True  # no card played yet this round

    # ------------------------------------------------------------------ set-up

    @classmethod
    def new(
        cls,
        players: int,
        rules: RuleSet | None = None,
        seed: str | int | None = None,
        *,
        dealer: int | None = None,
        deck: Sequence[int] | None = None,
        rng: Any = None,
    ) -> tuple[GameState, list[Event]]:
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
        card's colour (``NONE``: a Wild starter's colour not named yet). For ``phase=PENALTY`` give ``pending``, ``wd4_by`` (the
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
        game._colour = COLOUR[top] if colour is None else WILD if colour == NONE else colour
        game._fits = FITS[game._colour][RANK[top]]
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
            scoring.take_out(game, p)
        if phase is PENALTY:
            if wd4_by == NONE or pending <= 0:
                raise ValueError("a PENALTY position needs wd4_by and pending")
            game._wd4_by = wd4_by
            game._wd4_hand = tuple(game._hands[wd4_by])
            game._wd4_guilty = wd4_guilty
        if phase is DRAWN and drawn_card not in game._hands[current]:
            raise ValueError("drawn_card must be in the current player's hand")
        if phase is CHOOSE_COLOUR:
            game._after_choice = current
        return game

    def clone(self) -> GameState:
        """An independent copy (same future chance outcomes), for search bots.

        Cheap: the lists are copied, every other attribute is an immutable value
        shared by both (a search clones once per iteration)."""
        other = GameState.__new__(GameState)
        other.players = self.players
        other.rules = self.rules
        other.seed = self.seed
        other._rng = self._rng.copy()
        other._hands = [h[:] for h in self._hands]
        other._draw = self._draw[:]
        other._unshuffled = self._unshuffled
        other._discard = self._discard[:]
        other._colour = self._colour
        other._fits = self._fits
        other._start_direction = self._start_direction
        other._direction = self._direction
        other._current = self._current
        other._phase = self._phase
        other._pending = self._pending
        other._drawn = self._drawn
        other._uno = self._uno[:]
        other._catchable = self._catchable
        other._wd4_by = self._wd4_by
        other._wd4_guilty = self._wd4_guilty
        other._wd4_hand = self._wd4_hand
        other._after_choice = self._after_choice
        other._scores = self._scores[:]
        other._ring = self._ring[:]
        other._pos = self._pos[:]
        other._out = self._out[:]
        other._dealer = self._dealer
        other._round = self._round
        other._round_winner = self._round_winner
        other._game_winners = self._game_winners
        other._points = self._points
        other._plays = self._plays
        other._plays_uno = self._plays_uno
        other._house = self._house
        other._defer_draws = self._defer_draws
        other._plain = self._plain
        other._strict = self._strict
        other._stack_rank = self._stack_rank
        other._first_play = self._first_play
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
        events.append(
            new_event(
                (E.ROUND_STARTED, self._dealer, EVERYONE, (), HAND_SIZE, NONE, NONE, self._round)
            )
        )
        for p in ring:
            events.append(new_event((EV_HAND_DEALT, p, p, tuple(hands[p]), 0, NONE, NONE, 0)))
        redraw = self.rules.starter_wild_redraw
        while True:
            starter = self._pop_cards(1)[0]
            events.append(STARTER_FLIPPED[starter])
            if RANK[starter] == WD4 or (redraw and IS_WILD[starter]):
                self._draw.append(starter)
                self._unshuffled = len(self._draw)
                events.append(Event(E.STARTER_RETURNED, cards=(starter,)))
                events.append(Event(E.DECK_RESHUFFLED, count=len(self._draw)))
                continue
            break
        self._discard = [starter]
        self._colour = COLOUR[starter]
        self._fits = FITS[COLOUR[starter]][RANK[starter]]
        self._starter_effect(starter, events)

    def _starter_effect(self, starter: int, events: list[Event]) -> None:
        """Apply the starter card table of section 2."""
        rules = self.rules
        dealer = self._dealer
        first = dealer if rules.first_player is FirstPlayer.DEALER else self._step(dealer, 1)
        rank = RANK[starter]
        self._phase = PLAYING
        current = first
        if rank == SKIP:
            events.append(SKIPPED[first])
            current = self._step(first, 1)
        elif rank == REVERSE:
            self._reverse(events)
            how = rules.reverse_starter
            if how is ReverseStarter.DEALER_FIRST:
                current = dealer
            elif how is ReverseStarter.RIGHT_OF_DEALER_FIRST:
                current = self._step(dealer, 1)
            # FIRST_PLAYER_THEN_REVERSE: the first player plays; play then runs reversed.
        elif rank == DRAW_TWO:
            if self._defer_draws:  # section 8: a Draw Two starter can be answered
                self._open_penalty(first, 2, DRAW_TWO, events)
                return
            self._draw_cards(first, 2, events)
            events.append(SKIPPED[first])
            current = self._step(first, 1)
        elif rank == WILD_RANK:
            self._phase = CHOOSE_COLOUR
            names = rules.wild_starter
            if names is WildStarter.DEALER_NAMES:
                current, self._after_choice = dealer, first
            elif names is WildStarter.FIRST_PLAYER_NAMES_ONLY:
                self._after_choice = self._step(first, 1)
            else:
                self._after_choice = first
        self._current = current
        events.append(TURN[current])

    def next_round(self) -> list[Event]:
        """Deal the next round; the previous round's winner deals (section 2).

        Raises IllegalAction (ROUND_IN_PROGRESS or GAME_OVER) when there is no
        round to start.
        """
        if self._phase is Phase.GAME_OVER:
            raise IllegalAction(Reason.GAME_OVER, "the game is over")
        if self._phase is not ROUND_OVER:
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
        return self._phase >= ROUND_OVER

    @property
    def is_game_over(self) -> bool:
        """True once a score reached the target (section 7)."""
        return self._phase is Phase.GAME_OVER

    @property
    def scores(self) -> tuple[int, ...]:
        """Game scores per seat, in points (section 7)."""
        return tuple(self._scores)

    def outcome(self) -> Outcome | None:
        """How the game ended (:class:`~.view.Outcome`), or None while it goes on."""
        if self._phase is not Phase.GAME_OVER:
            return None
        how = Termination.GAME_WON if self._game_winners else Termination.ROUND_CAPPED
        return Outcome(how, self._game_winners, tuple(self._scores))

    def cap_round(self, actions: int) -> list[Event]:
        """End the game at once because this round reached a cap of ``actions``
        actions (RULES.md, "Endless rounds"): the round is void (nobody scores
        it), the game is over with no winner (``outcome().termination`` is
        ROUND_CAPPED). Returns the events (one ROUND_CAPPED). Raises
        IllegalAction (GAME_OVER) when the game is already over."""
        if self._phase is Phase.GAME_OVER:
            raise IllegalAction(Reason.GAME_OVER, "the game is over")
        self._phase = Phase.GAME_OVER
        self._catchable = NONE
        self._game_winners = ()
        return [Event(E.ROUND_CAPPED, NONE, count=actions)]

    def returns(self) -> tuple[float, ...]:
        """Per seat: 1.0 for a winner of the game, 0.0 for the others; all 0.0
        while it goes on (OpenSpiel's ``State.returns()``)."""
        winners = self._game_winners
        return tuple(1.0 if p in winners else 0.0 for p in range(self.players))

    @property
    def top_card(self) -> int:
        """The discard pile's top card id."""
        return self._discard[-1]

    @property
    def colour(self) -> int:
        """The colour in force, 0..3, or -1 (``NONE``) while a Wild starter waits for one."""
        return self._colour if self._colour != WILD else NONE

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
    def drawn_card(self) -> int:
        """The card the player to move drew and may still play, else NONE
        (hidden information: only for that player, as its view shows it)."""
        return self._drawn

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
            colour=self._colour if self._colour != WILD else NONE,
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
        if phase is PLAYING and seat == self._current and self._plain:  # the common case
            hand = self._hands[seat]
            fits = self._fits
            table = self._plays_uno if len(hand) == 2 else self._plays
            acts: list[Action] = []
            for c in hand:
                if fits[c]:
                    acts += table[c]
            acts.append(DRAW)
        elif phase >= ROUND_OVER or not 0 <= seat < self.players or self._pos[seat] < 0:
            return []
        elif not self._plain:
            acts = []
            if seat == self._current and phase is not CHOOSE_COLOUR:
                acts += house.play_variants(self, seat)
                if phase is PLAYING:
                    acts.append(DRAW)
                elif phase is DRAWN:
                    acts.append(KEEP)
                else:
                    if self._wd4_by != NONE:
                        acts.append(CHALLENGE)
                    acts.append(ACCEPT)
            elif seat == self._current:
                acts += [choose_colour(c) for c in range(4)]
            elif self.rules.jump_in and phase is not CHOOSE_COLOUR:
                acts += house.play_variants(self, seat)
        elif seat != self._current:  # official rules out of turn: catches and calls only
            acts = []
        elif phase is DRAWN:
            table = self._plays_uno if len(self._hands[seat]) == 2 else self._plays
            acts = [*table[self._drawn], KEEP]
        elif phase is PENALTY:
            acts = [CHALLENGE, ACCEPT]
        else:
            acts = [choose_colour(c) for c in range(4)]
        if caught != NONE:
            if caught != seat:
                acts.append(catch(caught))
            elif not self._strict:
                acts.append(CALL_UNO)
        # A false UNO call (false_uno_penalty) is accepted when sent, but never
        # listed: its only effect is a penalty for the caller (section 5).
        return acts

    # ------------------------------------------------------------------ actions

    def apply(self, seat: int, action: Action) -> list[Event]:
        """Apply ``action`` for the player at ``seat`` and return the events.

        Raises IllegalAction (with a :class:`Reason`) and leaves the state
        exactly as it was when the rules refuse the action.
        """
        kind = action.kind  # not action[0]: compiled, a tuple subclass indexes slowly
        if seat == self._current and self._phase < ROUND_OVER:  # the common cases first
            if kind is KIND_PLAY and self._plain:
                return self._play(seat, action)
            if kind is KIND_DRAW:
                return self._draw_turn(seat)
        if self._phase >= ROUND_OVER:
            raise IllegalAction(Reason.ROUND_OVER, "the round is over")
        if not 0 <= seat < self.players:
            raise IllegalAction(Reason.NO_SUCH_PLAYER, f"there is no seat {seat}")
        if self._pos[seat] < 0:
            raise IllegalAction(Reason.PLAYER_OUT, "you are out of play")
        if kind is KIND_PLAY:
            if self.rules.wrong_play_penalty:
                return house.play_or_penalise(self, seat, action)
            return self._play(seat, action)
        if kind is KIND_DRAW:
            return self._draw_turn(seat)
        if kind == KIND_KEEP:  # (an int equal to a kind is that kind)
            return self._keep(seat)
        if kind == KIND_CHALLENGE:
            return self._challenge(seat)
        if kind == KIND_ACCEPT:
            return self._accept(seat)
        if kind == KIND_CALL_UNO:
            return self._call_uno(seat)
        if kind == KIND_CATCH:
            return self._catch(seat, action.target)
        if kind == KIND_CHOOSE_COLOUR:
            return self._choose_colour(seat, action.colour)
        if kind in (KIND_PLAY, KIND_DRAW):
            return self.apply(seat, action._replace(kind=ActionKind(kind)))
        raise IllegalAction(Reason.UNKNOWN_ACTION, f"unknown action kind {kind!r}")

    def _require_turn(self, seat: int, phase: Phase, reason: Reason, message: str) -> None:
        """Refuse unless ``seat`` is to move in ``phase`` (``reason`` for a wrong phase)."""
        if seat != self._current:
            raise IllegalAction(Reason.NOT_YOUR_TURN, f"it is player {self._current}'s turn")
        if self._phase is not phase:
            if self._phase is PENALTY:
                raise IllegalAction(
                    Reason.PENALTY_PENDING,
                    "answer the pending penalty first (accept it, or challenge or stack)",
                )
            if self._phase is CHOOSE_COLOUR:
                raise IllegalAction(
                    Reason.COLOUR_CHOICE_PENDING, "name the colour of the Wild starter first"
                )
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
        if (
            self._plain
            and seat == self._current
            and target == NONE
            and not extra
            and 0 <= card < DECK_SIZE
            and card in hand
            and (self._fits[card] if phase is PLAYING else phase is DRAWN and card == self._drawn)
            and (0 <= colour <= 3 if IS_WILD[card] else colour == NONE)
            and (not uno or len(hand) == 2)
        ):
            jump = False
            if colour == NONE:
                colour = COLOUR[card]
        else:
            jump, colour = self._validate_play(seat, action)
        rank = RANK[card]

        # Committed: from here on the action happens.
        if rank == WD4:
            self._wd4_guilty = self._guilty(hand, top)
        if extra:  # section 8: several cards; the one of the colour in force goes on top
            laid = house.laid_in_order(card, extra, colour)
            for c in laid:
                hand.remove(c)
            self._discard += laid
            k = len(laid)  # cards laid: each has its effect (section 8)
        else:
            hand.remove(card)
            self._discard.append(card)
            k = 1
        self._colour = colour
        self._fits = FITS[colour][rank]  # every card laid has this rank
        self._drawn = NONE
        self._catchable = NONE
        self._first_play = False
        left = len(hand)
        events = [
            new_event(
                (EV_PLAYED, seat, EVERYONE, laid if extra else (card,), 0, colour, NONE, int(jump))
            )
            if jump or extra
            else PLAYED[seat][card][colour]
        ]
        if left == 1:
            self._uno[seat] = uno
            if uno:
                events.append(UNO_CALLED[seat])
            else:
                self._catchable = seat
        out = left == 0  # goes out, unless a house rule makes them draw instead
        if out and self._house and self.rules.number_first_and_last and not IS_NUMBER[card]:
            out = not house.last_card_not_number(self, seat, events)
        if phase is PENALTY:
            return house.pass_penalty(self, seat, rank, k, jump, out, events)
        ring = self._ring  # the seats in play, clockwise (all of them, but for section 9)
        m = len(ring)
        at = self._pos[seat]
        d = self._direction
        if rank <= 9 or rank == WILD_RANK:
            if (
                target != NONE or (rank == 0 and self._house and self.rules.seven_zero)
            ) and not out:
                house.swap(self, seat, rank, target, events)
            nxt = ring[(at + d) % m]
        elif rank == SKIP:  # k Skips skip the next k players, round the table if need be
            skips = 2 if jump else k
            for i in range(1, skips + 1):
                events.append(SKIPPED[ring[(at + i * d) % m]])
            nxt = ring[(at + (skips + 1) * d) % m]
        elif rank == REVERSE:
            if m == 2:  # each acts as a Skip (section 3), jumped in or not
                if not jump:
                    for _ in range(k):
                        self._reverse(events)
                for i in range(1, k + 1):
                    events.append(SKIPPED[ring[(at + i) % 2]])
                nxt = ring[(at + k + 1) % 2]
            elif jump:  # section 8: jumping on a Reverse keeps the direction
                nxt = ring[(at + d) % m]
            else:
                for _ in range(k):
                    self._reverse(events)
                nxt = ring[(at + self._direction) % m]
        elif rank == DRAW_TWO:
            victim = ring[(at + d) % m]
            if self._defer_draws and not out:
                return self._open_penalty(victim, 2 * k, DRAW_TWO, events)
            self._draw_cards(victim, 2 * k, events)
            events.append(SKIPPED[victim])
            nxt = ring[(at + 2 * d) % m]
        else:  # Wild Draw Four
            victim = ring[(at + d) % m]
            if not out:
                self._wd4_by = seat
                self._wd4_hand = tuple(hand)
                return self._open_penalty(victim, 4 * k, WD4, events)
            self._draw_cards(victim, 4 * k, events)  # section 7: still drawn, no challenge
            nxt = ring[(at + 2 * d) % m]
        if out:
            return scoring.went_out(self, seat, nxt, events)
        self._phase = PLAYING
        self._current = nxt
        events.append(TURN[nxt])
        return events

    def _validate_play(self, seat: int, action: Action) -> tuple[bool, int]:
        """Refuse an illegal play (IllegalAction) without changing anything.

        Returns (is it a jump-in, the colour that will be in force).
        """
        _, card, colour, uno, target, extra = action
        if not 0 <= card < DECK_SIZE:
            raise IllegalAction(Reason.NO_SUCH_CARD, f"there is no card {card}")
        phase = self._phase
        jump = False
        if seat != self._current or phase is not PLAYING:
            jump = house.check_out_of_phase_play(self, seat, card)
        hand = self._hands[seat]
        if card not in hand:
            raise IllegalAction(Reason.CARD_NOT_IN_HAND, f"you do not hold the {card_name(card)}")
        if extra:
            house.check_extra(self, hand, card, extra, jump)
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
                raise IllegalAction(
                    Reason.COLOUR_NOT_ALLOWED, "only a wild card takes a named colour"
                )
            if (
                phase is PLAYING
                and not jump
                and COLOUR[card] != self._colour
                and RANK[card] != RANK[top]
            ):
                raise IllegalAction(
                    Reason.DOES_NOT_MATCH,
                    f"the {card_name(card)} does not match the {card_name(top)}",
                )
            colour = house.multi_colour(card, extra, colour) if extra else COLOUR[card]
        left = len(hand) - 1 - len(extra)
        if uno and left != 1:
            raise IllegalAction(
                Reason.UNO_NOT_NEEDED, "UNO is called with the play that leaves one card"
            )
        if self._house:
            house.check_house_play(self, seat, card, RANK[card], target, left + 1)
        elif target != NONE:
            raise IllegalAction(Reason.TARGET_NOT_ALLOWED, "only a swapping 7 or 5 takes a target")
        return jump, colour

    def _open_penalty(self, victim: int, cards: int, rank: int, events: list[Event]) -> list[Event]:
        """Start a pending penalty of ``cards`` for ``victim`` (challenge/stack/accept)."""
        if rank != WD4:
            self._wd4_by = NONE
        self._pending += cards
        self._stack_rank = rank
        self._phase = PENALTY
        self._current = victim
        events.append(TURN[victim])
        return events

    def _guilty(self, hand: list[int], top: int) -> bool:
        """Section 3/4: would a Wild Draw Four from ``hand`` on ``top`` be illegal?"""
        return illegal_wild_draw_four(hand, self._colour, top, self.rules)

    def _draw_turn(self, seat: int) -> list[Event]:
        """Section 3: draw one card instead of playing; play it at once if it fits."""
        if seat != self._current or self._phase is not PLAYING:
            self._require_turn(
                seat,
                PLAYING,
                Reason.ALREADY_DREW,
                "you drew already: play the drawn card or keep it",
            )
        self._catchable = NONE
        events: list[Event] = []
        first_number = self._first_play and self._house and self.rules.number_first_and_last
        if first_number and not house.play_variants(self, seat):
            # Section 8: no number card to lead with: draw 2 and lose the turn.
            self._draw_cards(seat, 2, events)
            events.append(SKIPPED[seat])
            self._pass_turn(seat, events)
            return events
        got = self._draw_cards(seat, 1, events)
        if got:
            card = got[0]
            if self._fits[card] and not (first_number and not IS_NUMBER[card]):
                self._phase = DRAWN
                self._drawn = card
                return events
        self._pass_turn(seat, events)
        return events

    def _keep(self, seat: int) -> list[Event]:
        """Section 3: keep the drawn card; the turn passes."""
        if seat != self._current or self._phase is not DRAWN:
            self._require_turn(
                seat, DRAWN, Reason.NOTHING_TO_KEEP, "keep is only for a card you just drew"
            )
        events = [KEPT[seat]]
        self._drawn = NONE
        self._pass_turn(seat, events)
        return events

    def _challenge(self, seat: int) -> list[Event]:
        """Section 4: challenge the Wild Draw Four; the hand is shown to the challenger."""
        self._require_turn(
            seat, PENALTY, Reason.NOTHING_TO_CHALLENGE, "there is no Wild Draw Four to challenge"
        )
        if self._wd4_by == NONE:  # a Draw Two or a deflected penalty (section 8)
            raise IllegalAction(
                Reason.NOTHING_TO_CHALLENGE, "only a Wild Draw Four played on you can be challenged"
            )
        self._catchable = NONE
        by = self._wd4_by
        guilty = self._wd4_guilty
        events = [
            new_event((EV_CHALLENGED, seat, EVERYONE, (), 0, NONE, by, int(guilty))),
            new_event((EV_HAND_SHOWN, by, seat, self._wd4_hand, 0, NONE, NONE, 0)),
        ]
        pending = self._pending
        self._clear_penalty()
        if guilty:
            self._draw_cards(by, pending, events)
            if self.rules.challenge_success_skips_challenger:
                events.append(SKIPPED[seat])
                self._pass_turn(seat, events)
            else:
                self._phase = PLAYING
                events.append(TURN[seat])
        else:
            self._draw_cards(seat, pending + 2, events)
            events.append(SKIPPED[seat])
            self._pass_turn(seat, events)
        return events

    def _accept(self, seat: int) -> list[Event]:
        """Section 3: accept the Wild Draw Four: draw the penalty and lose the turn."""
        self._require_turn(seat, PENALTY, Reason.NOTHING_TO_ACCEPT, "there is no penalty to accept")
        self._catchable = NONE
        pending = self._pending
        events = [new_event((EV_PENALTY_ACCEPTED, seat, EVERYONE, (), pending, NONE, NONE, 0))]
        self._clear_penalty()
        self._draw_cards(seat, pending, events)
        events.append(SKIPPED[seat])
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
                raise IllegalAction(
                    Reason.UNO_CALL_STRICT, "UNO counts only when called with the play"
                )
            self._uno[seat] = True
            self._catchable = NONE
            return [UNO_CALLED[seat]]
        penalty = self.rules.false_uno_penalty
        if not penalty:
            raise IllegalAction(Reason.UNO_NOT_NEEDED, "you have no UNO to call")
        if not self._can_draw():  # it would cost nothing (section 5)
            raise IllegalAction(
                Reason.UNO_NOT_NEEDED,
                "you have no UNO to call, and with both piles empty a false "
                "call would cost nothing",
            )
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
        events = [new_event((EV_UNO_CAUGHT, seat, EVERYONE, (), 0, NONE, target, 0))]
        self._draw_cards(target, self.rules.uno_penalty, events)
        return events

    def _choose_colour(self, seat: int, colour: int) -> list[Event]:
        """Section 2: name the colour of a Wild starter card."""
        self._require_turn(
            seat, CHOOSE_COLOUR, Reason.NO_COLOUR_TO_CHOOSE, "there is no colour to name now"
        )
        if not 0 <= colour <= 3:
            raise IllegalAction(Reason.BAD_COLOUR, f"there is no colour {colour}")
        self._colour = colour
        self._fits = FITS[colour][RANK[self._discard[-1]]]
        self._phase = PLAYING
        self._current = self._after_choice
        return [Event(E.COLOUR_CHOSEN, seat, colour=colour), TURN[self._current]]

    # ------------------------------------------------------------------ helpers

    def _step(self, seat: int, k: int) -> int:
        """The seat ``k`` places after ``seat`` in the direction of play, among seats in play."""
        ring = self._ring
        at = self._pos[seat]
        return ring[(at + self._direction * k) % len(ring)]

    def _reverse(self, events: list[Event]) -> None:
        self._direction = -self._direction
        events.append(DIRECTION_CHANGED[self._direction])

    def _pass_turn(self, seat: int, events: list[Event]) -> None:
        ring = self._ring  # self._step(seat, 1), inlined: every draw and keep passes here
        at = self._pos[seat]
        nxt = ring[(at + self._direction) % len(ring)]
        self._phase = PLAYING
        self._current = nxt
        events.append(TURN[nxt])

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
                    events.append(
                        new_event(
                            (EV_RESHUFFLED, NONE, EVERYONE, (), len(self._draw), NONE, NONE, 0)
                        )
                    )
                    got += self._pop_cards(k - len(got))
        n = len(got)
        events.append(
            DREW[seat][n] if n < 9 else new_event((EV_DREW, seat, EVERYONE, (), n, NONE, NONE, 0))
        )
        if got:
            self._hands[seat].extend(got)
            self._uno[seat] = False
            if self._catchable == seat:
                self._catchable = NONE
            events.append(
                DREW_ONE[seat][got[0]]
                if n == 1
                else new_event((EV_DREW_CARDS, seat, seat, tuple(got), 0, NONE, NONE, 0))
            )
        return got

    def __repr__(self) -> str:
        return (
            f"<GameState players={self.players} round={self._round} "
            f"phase={self._phase.name} current={self._current} "
            f"top={card_name(self._discard[-1]) if self._discard else None}>"
        )
