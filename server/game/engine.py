"""The rules engine: one UNO game as a pure, seeded state machine.

No I/O, no clock, no global random state: a :class:`GameState` is driven only
by :meth:`GameState.apply` and :meth:`GameState.next_round`, and all chance
(dealer draw, shuffles) comes from its own :class:`~.deals.DealRandom` keyed
by the game's secret seed (RULES.md, "Fair deals"). The same seed and the
same actions always give the same events.

Seats are numbered ``0..players-1`` clockwise; "left of" a seat is the next
seat clockwise. Section numbers in docstrings refer to RULES.md. The house
rules (section 8) are in :mod:`.house`, the end of a round and the formats
(sections 7, 9) in :mod:`.scoring`. The surface those rules modules (and the
search, :mod:`.search`) work on is :class:`~.state.Position`, the state's
data and primitive steps (``draw_cards``, ``seat_after``,
``reverse``, ``open_penalty``, ``clear_penalty``, ``require_turn``...),
which ``GameState`` is: house and scoring import ``state``, never this
module, and this module calls them (one way, no circle). Where the house rules must judge a
whole play they are given the engine's validator.

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
)
from .cards import (
    COLOUR,
    DECK_SIZE,
    IS_NUMBER,
    IS_WILD,
    RANK,
    WILD,
    card_name,
)
from .errors import IllegalAction, Reason
from .events import EVERYONE, Event, new_event
from .events import EventKind as E
from .hotpath import (
    CHOOSE_COLOUR,
    DRAW_TWO,
    DRAWN,
    EV_CHALLENGED,
    EV_HAND_DEALT,
    EV_HAND_SHOWN,
    EV_PENALTY_ACCEPTED,
    EV_PLAYED,
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
    FirstPlayer,
    ReverseStarter,
    RuleSet,
    Wd4Restriction,
    WildStarter,
)
from .state import Position
from .view import Outcome, Phase, PlayerView, Termination


def illegal_wild_draw_four(hand: Sequence[int], colour: int, top: int, rules: RuleSet) -> bool:
    """RULES.md sections 3 and 4: whether a Wild Draw Four played from
    ``hand`` (the cards left beside it) on ``top`` with ``colour`` in force
    breaks ``rules.wd4_restriction``, i.e. whether a challenge of it wins."""
    if rules.wd4_restriction is Wd4Restriction.ANY_MATCH:
        top_rank = RANK[top]
        return any(COLOUR[c] == colour or (COLOUR[c] != WILD and RANK[c] == top_rank) for c in hand)
    return any(COLOUR[c] == colour for c in hand)


class GameState(Position):
    """One game: a sequence of rounds between ``players`` seats (section 7).

    Create with :meth:`new` (plays the dealer draw and deals round 1) or, in
    tests, :meth:`from_position`. Drive with :meth:`legal_actions`,
    :meth:`apply` and :meth:`next_round`. Read it with the queries below and
    the attributes of :class:`~.state.Position` (``phase``, ``current``,
    ``direction``, ``pending_penalty``, ``dealer``, ``round_number``,
    ``round_winner``, ``game_winners``, ``drawn_card``, ``catchable``...).
    """

    __slots__ = ()  # every attribute is a Position's (state.py)

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
            game.dealer = game._choose_dealer(events)
        elif 0 <= dealer < players:
            game.dealer = dealer
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
        game.hands = [list(h) for h in hands]
        game.discards = list(discard_under) + [top]
        placed = [c for h in game.hands for c in h] + game.discards
        if draw_pile is None:
            used = set(placed)
            game.stock = [c for c in range(DECK_SIZE) if c not in used]
        else:
            game.stock = list(draw_pile)
        every = placed + game.stock
        if sorted(every) != list(range(DECK_SIZE)):
            raise ValueError("a position must hold each of the 108 cards exactly once")
        if direction not in (1, -1):
            raise ValueError("direction must be 1 or -1")
        game.colour_in_force = COLOUR[top] if colour is None else WILD if colour == NONE else colour
        game.fits = FITS[game.colour_in_force][RANK[top]]
        game.current = current
        game.direction = direction
        game.phase = phase
        game.pending_penalty = pending
        game.stack_rank = RANK[top] if pending else NONE
        game.first_play = False
        game.drawn_card = drawn_card
        game.dealer = dealer
        game.round_number = 1
        game.uno_calls = list(uno_called) if uno_called is not None else [False] * game.players
        game.catchable = catchable
        game.score_sheet = list(scores) if scores is not None else [0] * game.players
        for p in out_seats:
            if game.hands[p]:
                raise ValueError("a seat out of play holds no cards")
            scoring.take_out(game, p)
        if phase is PENALTY:
            if wd4_by == NONE or pending <= 0:
                raise ValueError("a PENALTY position needs wd4_by and pending")
            game.wd4_by = wd4_by
            game.wd4_hand = tuple(game.hands[wd4_by])
            game.wd4_guilty = wd4_guilty
        if phase is DRAWN and drawn_card not in game.hands[current]:
            raise ValueError("drawn_card must be in the current player's hand")
        if phase is CHOOSE_COLOUR:
            game.after_choice = current
        return game

    def clone(self) -> GameState:
        """An independent copy (same future chance outcomes), for search bots.

        Cheap: the lists are copied, every other attribute is an immutable value
        shared by both (a search clones once per iteration)."""
        other = GameState.__new__(GameState)
        other.players = self.players
        other.rules = self.rules
        other.seed = self.seed
        other.rng = self.rng.copy()
        other.hands = [h[:] for h in self.hands]
        other.stock = self.stock[:]
        other.unshuffled = self.unshuffled
        other.discards = self.discards[:]
        other.colour_in_force = self.colour_in_force
        other.fits = self.fits
        other.start_direction = self.start_direction
        other.direction = self.direction
        other.current = self.current
        other.phase = self.phase
        other.pending_penalty = self.pending_penalty
        other.drawn_card = self.drawn_card
        other.uno_calls = self.uno_calls[:]
        other.catchable = self.catchable
        other.wd4_by = self.wd4_by
        other.wd4_guilty = self.wd4_guilty
        other.wd4_hand = self.wd4_hand
        other.after_choice = self.after_choice
        other.score_sheet = self.score_sheet[:]
        other.ring = self.ring[:]
        other.ring_pos = self.ring_pos[:]
        other.out_seats = self.out_seats[:]
        other.dealer = self.dealer
        other.round_number = self.round_number
        other.round_winner = self.round_winner
        other.game_winners = self.game_winners
        other.card_points = self.card_points
        other.plays = self.plays
        other.plays_uno = self.plays_uno
        other.house_effects = self.house_effects
        other.defer_draws = self.defer_draws
        other.plain = self.plain
        other.strict_uno = self.strict_uno
        other.stack_rank = self.stack_rank
        other.first_play = self.first_play
        return other

    def _choose_dealer(self, events: list[Event]) -> int:
        """Section 2: everyone draws; the highest number deals; action and wild
        cards are drawn again; ties among the highest draw again."""
        below = self.rng.below
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
        self.round_number += 1
        self.round_winner = NONE
        self.direction = d = self.start_direction
        self.uno_calls = [False] * n
        self.catchable = NONE
        self.pending_penalty = 0
        self.drawn_card = NONE
        self.wd4_by = NONE
        self.stack_rank = NONE
        self.first_play = True
        self.stock = list(range(DECK_SIZE) if deck is None else deck)
        self.unshuffled = DECK_SIZE if deck is None else 0
        ring = self.ring
        m = len(ring)
        dealt = self.pop_cards(HAND_SIZE * m)
        hands: list[list[int]] = [[] for _ in range(n)]
        at = self.ring_pos[self.dealer]
        for k in range(m):  # one card at a time from the dealer's next seat: every m-th card
            hands[ring[(at + d * (1 + k)) % m]] = dealt[k::m]
        self.hands = hands
        events.append(
            new_event(
                (
                    E.ROUND_STARTED,
                    self.dealer,
                    EVERYONE,
                    (),
                    HAND_SIZE,
                    NONE,
                    NONE,
                    self.round_number,
                )
            )
        )
        for p in ring:
            events.append(new_event((EV_HAND_DEALT, p, p, tuple(hands[p]), 0, NONE, NONE, 0)))
        redraw = self.rules.starter_wild_redraw
        while True:
            starter = self.pop_cards(1)[0]
            events.append(STARTER_FLIPPED[starter])
            if RANK[starter] == WD4 or (redraw and IS_WILD[starter]):
                self.stock.append(starter)
                self.unshuffled = len(self.stock)
                events.append(Event(E.STARTER_RETURNED, cards=(starter,)))
                events.append(Event(E.DECK_RESHUFFLED, count=len(self.stock)))
                continue
            break
        self.discards = [starter]
        self.colour_in_force = COLOUR[starter]
        self.fits = FITS[COLOUR[starter]][RANK[starter]]
        self._starter_effect(starter, events)

    def _starter_effect(self, starter: int, events: list[Event]) -> None:
        """Apply the starter card table of section 2."""
        rules = self.rules
        dealer = self.dealer
        first = dealer if rules.first_player is FirstPlayer.DEALER else self.seat_after(dealer, 1)
        rank = RANK[starter]
        self.phase = PLAYING
        current = first
        if rank == SKIP:
            events.append(SKIPPED[first])
            current = self.seat_after(first, 1)
        elif rank == REVERSE:
            self.reverse(events)
            how = rules.reverse_starter
            if how is ReverseStarter.DEALER_FIRST:
                current = dealer
            elif how is ReverseStarter.RIGHT_OF_DEALER_FIRST:
                current = self.seat_after(dealer, 1)
            # FIRST_PLAYER_THEN_REVERSE: the first player plays; play then runs reversed.
        elif rank == DRAW_TWO:
            if self.defer_draws:  # section 8: a Draw Two starter can be answered
                self.open_penalty(first, 2, DRAW_TWO, events)
                return
            self.draw_cards(first, 2, events)
            events.append(SKIPPED[first])
            current = self.seat_after(first, 1)
        elif rank == WILD_RANK:
            self.phase = CHOOSE_COLOUR
            names = rules.wild_starter
            if names is WildStarter.DEALER_NAMES:
                current, self.after_choice = dealer, first
            elif names is WildStarter.FIRST_PLAYER_NAMES_ONLY:
                self.after_choice = self.seat_after(first, 1)
            else:
                self.after_choice = first
        self.current = current
        events.append(TURN[current])

    def next_round(self) -> list[Event]:
        """Deal the next round; the previous round's winner deals (section 2).

        Raises IllegalAction (ROUND_IN_PROGRESS or GAME_OVER) when there is no
        round to start.
        """
        if self.phase is Phase.GAME_OVER:
            raise IllegalAction(Reason.GAME_OVER, "the game is over")
        if self.phase is not ROUND_OVER:
            raise IllegalAction(Reason.ROUND_IN_PROGRESS, "the round is still being played")
        self.dealer = self.round_winner
        events: list[Event] = []
        self._deal(events)
        return events

    # ------------------------------------------------------------------ queries

    @property
    def is_round_over(self) -> bool:
        """True once a player has gone out (also when the game is over)."""
        return self.phase >= ROUND_OVER

    @property
    def is_game_over(self) -> bool:
        """True once a score reached the target (section 7)."""
        return self.phase is Phase.GAME_OVER

    @property
    def scores(self) -> tuple[int, ...]:
        """Game scores per seat, in points (section 7)."""
        return tuple(self.score_sheet)

    def outcome(self) -> Outcome | None:
        """How the game ended (:class:`~.view.Outcome`), or None while it goes on."""
        if self.phase is not Phase.GAME_OVER:
            return None
        how = Termination.GAME_WON if self.game_winners else Termination.ROUND_CAPPED
        return Outcome(how, self.game_winners, tuple(self.score_sheet))

    def cap_round(self, actions: int) -> list[Event]:
        """End the game at once because this round reached a cap of ``actions``
        actions (RULES.md, "Endless rounds"): the round is void (nobody scores
        it), the game is over with no winner (``outcome().termination`` is
        ROUND_CAPPED). Returns the events (one ROUND_CAPPED). Raises
        IllegalAction (GAME_OVER) when the game is already over."""
        if self.phase is Phase.GAME_OVER:
            raise IllegalAction(Reason.GAME_OVER, "the game is over")
        self.phase = Phase.GAME_OVER
        self.catchable = NONE
        self.game_winners = ()
        return [Event(E.ROUND_CAPPED, NONE, count=actions)]

    def returns(self) -> tuple[float, ...]:
        """Per seat: 1.0 for a winner of the game, 0.0 for the others; all 0.0
        while it goes on (OpenSpiel's ``State.returns()``)."""
        winners = self.game_winners
        return tuple(1.0 if p in winners else 0.0 for p in range(self.players))

    @property
    def top_card(self) -> int:
        """The discard pile's top card id."""
        return self.discards[-1]

    @property
    def colour(self) -> int:
        """The colour in force, 0..3, or -1 (``NONE``) while a Wild starter waits for one."""
        return self.colour_in_force if self.colour_in_force != WILD else NONE

    def hand(self, seat: int) -> tuple[int, ...]:
        """The cards held by ``seat`` (hidden information: not for other players)."""
        return tuple(self.hands[seat])

    @property
    def draw_pile(self) -> tuple[int, ...]:
        """Draw pile, bottom first (hidden information). After a shuffle the order
        of the cards not yet drawn is only decided as they are drawn."""
        return tuple(self.stock)

    @property
    def discard_pile(self) -> tuple[int, ...]:
        """Discard pile, bottom first; the last card is the top card."""
        return tuple(self.discards)

    def uno_called(self, seat: int) -> bool:
        """True if ``seat`` holds one card and called UNO for it."""
        return self.uno_calls[seat]

    def view(self, seat: int) -> PlayerView:
        """The information state of ``seat`` (-1 for a spectator): own hand only."""
        own = 0 <= seat < self.players
        return PlayerView(
            seat=seat,
            hand=tuple(self.hands[seat]) if own else (),
            hand_sizes=tuple(len(h) for h in self.hands),
            top_card=self.discards[-1],
            colour=self.colour_in_force if self.colour_in_force != WILD else NONE,
            direction=self.direction,
            current=self.current,
            phase=self.phase,
            pending_penalty=self.pending_penalty,
            drawn_card=self.drawn_card if own and seat == self.current else NONE,
            uno_called=tuple(self.uno_calls),
            catchable=self.catchable,
            draw_pile_size=len(self.stock),
            discard_pile_size=len(self.discards),
            scores=tuple(self.score_sheet),
            dealer=self.dealer,
            round_number=self.round_number,
            round_winner=self.round_winner,
            game_winners=self.game_winners,
            out_seats=tuple(self.out_seats),
        )

    def legal_actions(self, seat: int) -> list[Action]:
        """Every action ``seat`` may take now, in its turn or out of it.

        Plays come in hand order, each wild once per colour, and with and
        without a UNO call when it leaves one card. Empty when the round is over.
        """
        phase = self.phase
        caught = self.catchable
        if phase is PLAYING and seat == self.current and self.plain:  # the common case
            hand = self.hands[seat]
            fits = self.fits
            table = self.plays_uno if len(hand) == 2 else self.plays
            acts: list[Action] = []
            for c in hand:
                if fits[c]:
                    acts += table[c]
            acts.append(DRAW)
        elif phase >= ROUND_OVER or not 0 <= seat < self.players or self.ring_pos[seat] < 0:
            return []
        elif not self.plain:
            acts = []
            if seat == self.current and phase is not CHOOSE_COLOUR:
                acts += house.play_variants(self, seat, self._validate_play)
                if phase is PLAYING:
                    acts.append(DRAW)
                elif phase is DRAWN:
                    acts.append(KEEP)
                else:
                    if self.wd4_by != NONE:
                        acts.append(CHALLENGE)
                    acts.append(ACCEPT)
            elif seat == self.current:
                acts += [choose_colour(c) for c in range(4)]
            elif self.rules.jump_in and phase is not CHOOSE_COLOUR:
                acts += house.play_variants(self, seat, self._validate_play)
        elif seat != self.current:  # official rules out of turn: catches and calls only
            acts = []
        elif phase is DRAWN:
            table = self.plays_uno if len(self.hands[seat]) == 2 else self.plays
            acts = [*table[self.drawn_card], KEEP]
        elif phase is PENALTY:
            acts = [CHALLENGE, ACCEPT]
        else:
            acts = [choose_colour(c) for c in range(4)]
        if caught != NONE:
            if caught != seat:
                acts.append(catch(caught))
            elif not self.strict_uno:
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
        if seat == self.current and self.phase < ROUND_OVER:  # the common cases first
            if kind is KIND_PLAY and self.plain:
                return self._play(seat, action)
            if kind is KIND_DRAW:
                return self._draw_turn(seat)
        if self.phase >= ROUND_OVER:
            raise IllegalAction(Reason.ROUND_OVER, "the round is over")
        if not 0 <= seat < self.players:
            raise IllegalAction(Reason.NO_SUCH_PLAYER, f"there is no seat {seat}")
        if self.ring_pos[seat] < 0:
            raise IllegalAction(Reason.PLAYER_OUT, "you are out of play")
        if kind is KIND_PLAY:
            if self.rules.wrong_play_penalty:
                try:
                    return self._play(seat, action)
                except IllegalAction as refused:
                    house.penalise_wrong_play(self, seat, refused)
                    raise
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

    def _play(self, seat: int, action: Action) -> list[Event]:
        """Section 3: play one matching card (or a wild, naming a colour); with
        house rules also stack, deflect, jump in, or swap hands (section 8)."""
        _, card, colour, uno, target, extra = action
        phase = self.phase
        hand = self.hands[seat]
        top = self.discards[-1]
        # Fast path (no house rule touches plays): accept the common legal play
        # here; anything else goes to the full validator, which refuses it.
        if (
            self.plain
            and seat == self.current
            and target == NONE
            and not extra
            and 0 <= card < DECK_SIZE
            and card in hand
            and (
                self.fits[card] if phase is PLAYING else phase is DRAWN and card == self.drawn_card
            )
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
            self.wd4_guilty = self._guilty(hand, top)
        if extra:  # section 8: several cards; the one of the colour in force goes on top
            laid = house.laid_in_order(card, extra, colour)
            for c in laid:
                hand.remove(c)
            self.discards += laid
            k = len(laid)  # cards laid: each has its effect (section 8)
        else:
            hand.remove(card)
            self.discards.append(card)
            k = 1
        if rank == WD4:  # shown if challenged: the hand as the play left it (section 4)
            self.wd4_hand = tuple(hand)
        self.colour_in_force = colour
        self.fits = FITS[colour][rank]  # every card laid has this rank
        self.drawn_card = NONE
        self.catchable = NONE
        self.first_play = False
        left = len(hand)
        events = [
            new_event(
                (EV_PLAYED, seat, EVERYONE, laid if extra else (card,), 0, colour, NONE, int(jump))
            )
            if jump or extra
            else PLAYED[seat][card][colour]
        ]
        if left == 1:
            self.uno_calls[seat] = uno
            if uno:
                events.append(UNO_CALLED[seat])
            else:
                self.catchable = seat
        out = left == 0  # goes out, unless a house rule makes them draw instead
        if out and self._draws_for_last_card(card):
            out = not house.last_card_not_number(self, seat, uno, events)
        if phase is PENALTY:
            return house.pass_penalty(self, seat, rank, k, jump, out, events)
        ring = self.ring  # the seats in play, clockwise (all of them, but for section 9)
        m = len(ring)
        at = self.ring_pos[seat]
        d = self.direction
        if rank <= 9 or rank == WILD_RANK:
            if (
                target != NONE or (rank == 0 and self.house_effects and self.rules.seven_zero)
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
                        self.reverse(events)
                for i in range(1, k + 1):
                    events.append(SKIPPED[ring[(at + i) % 2]])
                nxt = ring[(at + k + 1) % 2]
            elif jump:  # section 8: jumping on a Reverse keeps the direction
                nxt = ring[(at + d) % m]
            else:
                for _ in range(k):
                    self.reverse(events)
                nxt = ring[(at + self.direction) % m]
        elif rank == DRAW_TWO:
            victim = ring[(at + d) % m]
            if self.defer_draws and not out:
                return self.open_penalty(victim, 2 * k, DRAW_TWO, events)
            self.draw_cards(victim, 2 * k, events)
            events.append(SKIPPED[victim])
            nxt = ring[(at + 2 * d) % m]
        else:  # Wild Draw Four
            victim = ring[(at + d) % m]
            if not out:
                self.wd4_by = seat
                return self.open_penalty(victim, 4 * k, WD4, events)
            self.draw_cards(victim, 4 * k, events)  # section 7: still drawn, no challenge
            nxt = ring[(at + 2 * d) % m]
        if out:
            return scoring.went_out(self, seat, nxt, events)
        self.phase = PLAYING
        self.current = nxt
        events.append(TURN[nxt])
        return events

    def _validate_play(self, seat: int, action: Action) -> tuple[bool, int]:
        """Refuse an illegal play (IllegalAction) without changing anything.

        Returns (is it a jump-in, the colour that will be in force).
        """
        _, card, colour, uno, target, extra = action
        if not 0 <= card < DECK_SIZE:
            raise IllegalAction(Reason.NO_SUCH_CARD, f"there is no card {card}")
        phase = self.phase
        jump = False
        if seat != self.current or phase is not PLAYING:
            jump = house.check_out_of_phase_play(self, seat, card)
        hand = self.hands[seat]
        if card not in hand:
            raise IllegalAction(Reason.CARD_NOT_IN_HAND, f"you do not hold the {card_name(card)}")
        if extra:
            house.check_extra(self, hand, card, extra, jump)
        top = self.discards[-1]
        if COLOUR[card] == WILD:
            if colour == NONE:
                if not self.rules.unnamed_wild_keeps_colour:
                    raise IllegalAction(Reason.COLOUR_MISSING, "name a colour for the wild card")
                colour = self.colour_in_force
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
                and COLOUR[card] != self.colour_in_force
                and RANK[card] != RANK[top]
            ):
                raise IllegalAction(
                    Reason.DOES_NOT_MATCH,
                    f"the {card_name(card)} does not match the {card_name(top)}",
                )
            colour = house.multi_colour(card, extra, colour) if extra else COLOUR[card]
        left = len(hand) - 1 - len(extra)
        if uno and left != 1 and not (left == 0 and self._draws_for_last_card(card)):
            raise IllegalAction(
                Reason.UNO_NOT_NEEDED, "UNO is called with the play that leaves one card"
            )
        if self.house_effects:
            house.check_house_play(self, seat, card, RANK[card], target, left + 1)
        elif target != NONE:
            raise IllegalAction(Reason.TARGET_NOT_ALLOWED, "only a swapping 7 or 5 takes a target")
        return jump, colour

    def _guilty(self, hand: list[int], top: int) -> bool:
        """Section 3/4: would a Wild Draw Four from ``hand`` on ``top`` be illegal?"""
        return illegal_wild_draw_four(hand, self.colour_in_force, top, self.rules)

    def _draw_turn(self, seat: int) -> list[Event]:
        """Section 3: draw one card instead of playing; play it at once if it fits."""
        if seat != self.current or self.phase is not PLAYING:
            self.require_turn(
                seat,
                PLAYING,
                Reason.ALREADY_DREW,
                "you drew already: play the drawn card or keep it",
            )
        self.catchable = NONE
        events: list[Event] = []
        first_number = self.first_play and self.house_effects and self.rules.number_first_and_last
        if first_number and not house.play_variants(self, seat, self._validate_play):
            # Section 8: no number card to lead with: draw 2 and lose the turn.
            self.draw_cards(seat, 2, events)
            events.append(SKIPPED[seat])
            self.pass_turn(seat, events)
            return events
        got = self.draw_cards(seat, 1, events)
        if got:
            card = got[0]
            if self.fits[card] and not (first_number and not IS_NUMBER[card]):
                self.phase = DRAWN
                self.drawn_card = card
                return events
        self.pass_turn(seat, events)
        return events

    def _keep(self, seat: int) -> list[Event]:
        """Section 3: keep the drawn card; the turn passes."""
        if seat != self.current or self.phase is not DRAWN:
            self.require_turn(
                seat, DRAWN, Reason.NOTHING_TO_KEEP, "keep is only for a card you just drew"
            )
        events = [KEPT[seat]]
        self.drawn_card = NONE
        self.pass_turn(seat, events)
        return events

    def _challenge(self, seat: int) -> list[Event]:
        """Section 4: challenge the Wild Draw Four; the hand is shown to the challenger."""
        self.require_turn(
            seat, PENALTY, Reason.NOTHING_TO_CHALLENGE, "there is no Wild Draw Four to challenge"
        )
        if self.wd4_by == NONE:  # a Draw Two or a deflected penalty (section 8)
            raise IllegalAction(
                Reason.NOTHING_TO_CHALLENGE, "only a Wild Draw Four played on you can be challenged"
            )
        self.catchable = NONE
        by = self.wd4_by
        guilty = self.wd4_guilty
        events = [
            new_event((EV_CHALLENGED, seat, EVERYONE, (), 0, NONE, by, int(guilty))),
            new_event((EV_HAND_SHOWN, by, seat, self.wd4_hand, 0, NONE, NONE, 0)),
        ]
        pending = self.pending_penalty
        self.clear_penalty()
        if guilty:
            self.draw_cards(by, pending, events)
            if self.rules.challenge_success_skips_challenger:
                events.append(SKIPPED[seat])
                self.pass_turn(seat, events)
            else:
                self.phase = PLAYING
                events.append(TURN[seat])
        else:
            self.draw_cards(seat, pending + 2, events)
            events.append(SKIPPED[seat])
            self.pass_turn(seat, events)
        return events

    def _accept(self, seat: int) -> list[Event]:
        """Section 3: accept the Wild Draw Four: draw the penalty and lose the turn."""
        self.require_turn(seat, PENALTY, Reason.NOTHING_TO_ACCEPT, "there is no penalty to accept")
        self.catchable = NONE
        pending = self.pending_penalty
        events = [new_event((EV_PENALTY_ACCEPTED, seat, EVERYONE, (), pending, NONE, NONE, 0))]
        self.clear_penalty()
        self.draw_cards(seat, pending, events)
        events.append(SKIPPED[seat])
        self.pass_turn(seat, events)
        return events

    def _draws_for_last_card(self, card: int) -> bool:
        """Section 8 (``number_first_and_last``): does a player going out on
        ``card`` draw one card instead (and may that play carry the call)?"""
        return self.house_effects and self.rules.number_first_and_last and not IS_NUMBER[card]

    def _call_uno(self, seat: int) -> list[Event]:
        """Section 5: call UNO on its own, before anyone catches you."""
        if self.catchable == seat:
            if self.rules.uno_call_strict:
                raise IllegalAction(
                    Reason.UNO_CALL_STRICT, "UNO counts only when called with the play"
                )
            self.uno_calls[seat] = True
            self.catchable = NONE
            return [UNO_CALLED[seat]]
        penalty = self.rules.false_uno_penalty
        if not penalty:
            raise IllegalAction(Reason.UNO_NOT_NEEDED, "you have no UNO to call")
        held = len(self.hands[seat])
        if held == 1:  # about to hold one card is no false call (section 5): it costs nothing
            raise IllegalAction(
                Reason.UNO_NOT_NEEDED, "you hold one card: there is no UNO to call now"
            )
        if held == 2 and seat == self.current and self.phase in (PLAYING, DRAWN):
            raise IllegalAction(
                Reason.UNO_NOT_NEEDED, "UNO is called with the play that leaves one card"
            )
        if not self.can_draw():  # it would cost nothing (section 5)
            raise IllegalAction(
                Reason.UNO_NOT_NEEDED,
                "you have no UNO to call, and with both piles empty a false "
                "call would cost nothing",
            )
        events = [Event(E.UNO_FALSE_CALL, seat, count=penalty)]
        self.draw_cards(seat, penalty, events)
        return events

    def _catch(self, seat: int, target: int) -> list[Event]:
        """Section 5: catch a player who holds one card and did not call UNO."""
        if not 0 <= target < self.players:
            raise IllegalAction(Reason.NO_SUCH_PLAYER, f"there is no seat {target}")
        if target == seat:
            raise IllegalAction(Reason.CANNOT_CATCH_SELF, "you cannot catch yourself")
        if len(self.hands[target]) != 1:
            raise IllegalAction(Reason.NOT_ONE_CARD, f"player {target} does not hold one card")
        if self.uno_calls[target]:
            raise IllegalAction(Reason.ALREADY_CALLED, f"player {target} called UNO")
        if self.catchable != target:
            raise IllegalAction(Reason.CATCH_TOO_LATE, "too late: the next player began their turn")
        self.catchable = NONE
        events = [new_event((EV_UNO_CAUGHT, seat, EVERYONE, (), 0, NONE, target, 0))]
        self.draw_cards(target, self.rules.uno_penalty, events)
        return events

    def _choose_colour(self, seat: int, colour: int) -> list[Event]:
        """Section 2: name the colour of a Wild starter card."""
        self.require_turn(
            seat, CHOOSE_COLOUR, Reason.NO_COLOUR_TO_CHOOSE, "there is no colour to name now"
        )
        if not 0 <= colour <= 3:
            raise IllegalAction(Reason.BAD_COLOUR, f"there is no colour {colour}")
        self.colour_in_force = colour
        self.fits = FITS[colour][RANK[self.discards[-1]]]
        self.phase = PLAYING
        self.current = self.after_choice
        return [Event(E.COLOUR_CHOSEN, seat, colour=colour), TURN[self.current]]

    # ------------------------------------------------------------------ helpers

    def __repr__(self) -> str:
        return (
            f"<GameState players={self.players} round={self.round_number} "
            f"phase={self.phase.name} current={self.current} "
            f"top={card_name(self.discards[-1]) if self.discards else None}>"
        )
