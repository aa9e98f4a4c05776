"""The data of one game of UNO and the primitive steps the rules are made of.

:class:`Position` holds every fact of a game in progress (hands, piles, the
colour in force, whose turn, the pending penalty, the seats in play, the
scores) as plain attributes, and the few steps every rule is built from
(drawing cards, passing the turn, opening and clearing a penalty,
reversing). It judges nothing: :class:`~.engine.GameState` (engine.py), a
``Position``, is the rules engine players drive, and applies the official
rules; :mod:`.house` (section 8 of RULES.md) and :mod:`.scoring` (sections
7 and 9) are functions on a ``Position``; the search (:mod:`.search`) reads
it and steps copies of it. This module is the surface those rules modules
share with the engine: they import it, never the engine, and need no
private member of it.

A program that plays reads a game through :class:`~.engine.GameState`'s
queries and views (``view``, ``legal_actions``, ``hand``...); it writes the
attributes here only to build a position (tests, puzzles, the search).
"""

from __future__ import annotations

from typing import Any

from .actions import NONE, play_table
from .cards import CLASSIC_POINTS, STANDARD_POINTS, WILD
from .deals import DealRandom, new_seed
from .errors import IllegalAction, Reason
from .events import EVERYONE, Event, new_event
from .hotpath import (
    CHOOSE_COLOUR,
    DIRECTION_CHANGED,
    DREW,
    DREW_ONE,
    EV_DREW,
    EV_DREW_CARDS,
    EV_RESHUFFLED,
    FITS,
    PENALTY,
    PLAYING,
    TURN,
    WD4,
)
from .rules import MAX_PLAYERS, MIN_PLAYERS, OFFICIAL, Direction, PointValues, RuleSet
from .view import Phase


class Position:
    """The facts of one game between ``players`` seats, and its primitive steps.

    Seats are ``0..players-1`` clockwise; ``NONE`` (-1) stands for no seat or
    no card. Attributes (lists are mutated in place by the steps):

    * ``players``, ``rules`` (:class:`~.rules.RuleSet`), ``seed`` (text), and
      ``rng``: the chance source (``below(n)``, ``shuffle_steps(...)``,
      ``copy()``: a :class:`~.deals.DealRandom` keyed by the seed).
    * ``hands``: per seat, the card ids it holds. ``stock``: the draw pile,
      bottom first, its top last; its ``unshuffled`` bottom cards are not
      shuffled yet (:meth:`pop_cards`). ``discards``: the discard pile,
      bottom first, the top card last.
    * ``colour_in_force``: 0..3, or ``WILD`` (4) while a Wild starter waits
      for its colour; ``fits``: the ``FITS`` row of that colour and the top
      card's rank (``fits[card]``: may ``card`` be played on it).
    * ``phase`` (:class:`~.view.Phase`), ``current`` (the seat to move, or to
      answer), ``direction`` (1 clockwise, -1 counter-clockwise; a round
      starts with ``start_direction``), ``after_choice`` (who plays once a
      Wild starter's colour is named), ``drawn_card`` (the card the player to
      move just drew and may play, else NONE).
    * The pending penalty (section 3, 4, 8): ``pending_penalty`` cards,
      ``stack_rank`` (the rank of the last draw card on it), ``wd4_by`` (the
      seat whose Wild Draw Four it is, else NONE), ``wd4_guilty`` (whether
      that play broke the rules), ``wd4_hand`` (that seat's hand beside it,
      shown to a challenger).
    * UNO (section 5): ``uno_calls`` (per seat: called UNO for its one card),
      ``catchable`` (the seat that may be caught, else NONE).
    * ``ring``: the seats in play, clockwise (section 9 formats put seats
      out); ``ring_pos``: each seat's index in ``ring``, -1 once out;
      ``out_seats``: the seats out, in the order they left.
    * ``dealer``, ``round_number`` (1 for the first round), ``round_winner``
      (the seat that went out, else NONE), ``score_sheet`` (game scores per
      seat, a list), ``game_winners`` (once the game is over),
      ``first_play`` (no card played yet this round).
    * Read-only facts of the rule set, for the engine's fast paths:
      ``card_points`` (points per card id), ``plays`` and ``plays_uno``
      (per card, its play actions without and with a UNO call),
      ``house_effects`` (an option that changes a play's effect is on:
      seven_zero, swap_on_five, number_first_and_last), ``defer_draws``
      (draw cards can be answered), ``plain`` (no option changes how a card
      is played or refused), ``strict_uno`` (UNO counts only with the play).

    The steps :meth:`pop_cards`, :meth:`pass_turn` and :meth:`can_draw` are
    the engine's alone: the compiled build (state.pxd) makes them C
    functions, not callable from Python.
    """

    __slots__ = (
        "after_choice",
        "card_points",
        "catchable",
        "colour_in_force",
        "current",
        "dealer",
        "defer_draws",
        "direction",
        "discards",
        "drawn_card",
        "first_play",
        "fits",
        "game_winners",
        "hands",
        "house_effects",
        "out_seats",
        "pending_penalty",
        "phase",
        "plain",
        "players",
        "plays",
        "plays_uno",
        "ring",
        "ring_pos",
        "rng",
        "round_number",
        "round_winner",
        "rules",
        "score_sheet",
        "seed",
        "stack_rank",
        "start_direction",
        "stock",
        "strict_uno",
        "uno_calls",
        "unshuffled",
        "wd4_by",
        "wd4_guilty",
        "wd4_hand",
    )

    def __init__(
        self,
        players: int,
        rules: RuleSet | None = None,
        seed: str | int | None = None,
        rng: Any = None,
    ):
        """A game not yet dealt; use :meth:`.engine.GameState.new` instead.

        Raises ValueError if ``players`` is outside 2..10.
        """
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise ValueError(f"players must be {MIN_PLAYERS}..{MAX_PLAYERS}, got {players}")
        self.rules = rules = rules or OFFICIAL
        rules.check_players(players)
        self.players = players
        self.seed = new_seed() if seed is None else str(seed)
        # The chance source: ``below(n)``, ``shuffle_steps(...)`` and ``copy()`` (deals.DealRandom).
        self.rng = DealRandom(self.seed) if rng is None else rng
        self.hands: list[list[int]] = [[] for _ in range(players)]
        self.stock: list[int] = []
        self.unshuffled = 0  # cards at the bottom of the draw pile not yet shuffled
        self.discards: list[int] = []
        self.colour_in_force = WILD
        self.fits = FITS[WILD][0]  # FITS row of the colour in force and the top card's rank
        self.start_direction = -1 if rules.initial_direction is Direction.COUNTER_CLOCKWISE else 1
        self.direction = self.start_direction
        self.current = 0
        self.phase = PLAYING
        self.pending_penalty = 0
        self.drawn_card = NONE
        self.uno_calls = [False] * players
        self.catchable = NONE
        self.wd4_by = NONE
        self.wd4_guilty = False
        self.wd4_hand: tuple[int, ...] = ()
        self.after_choice = NONE
        self.score_sheet = [0] * players
        # Seats in play, clockwise (section 9: formats put players out), each
        # seat's index in it (-1 once out), and the seats out in the order they left.
        self.ring = list(range(players))
        self.ring_pos = list(range(players))
        self.out_seats: list[int] = []
        self.dealer = 0
        self.round_number = 0
        self.round_winner = NONE
        self.game_winners: tuple[int, ...] = ()
        self.card_points = (
            CLASSIC_POINTS if rules.point_values is PointValues.CLASSIC else STANDARD_POINTS
        )
        unnamed = rules.unnamed_wild_keeps_colour
        self.plays = play_table(False, unnamed)
        self.plays_uno = play_table(True, unnamed)
        # Section 8 options that need the general (slower) paths.
        self.house_effects = rules.seven_zero or rules.swap_on_five or rules.number_first_and_last
        self.defer_draws = rules.defers_draws
        # No option that changes how a card is played or refused: plays take the fast path.
        self.plain = rules.plain_plays
        self.strict_uno = rules.uno_call_strict
        self.stack_rank = NONE  # rank of the last draw card on a pending penalty
        self.first_play = True  # no card played yet this round

    # ------------------------------------------------------------------ steps

    def pop_cards(self, k: int) -> list[int]:
        """Take up to ``k`` cards off the top of the draw pile, in drawing order.

        The pile is shuffled lazily: ``unshuffled`` cards at its bottom are
        still in no particular order, and a Fisher-Yates step fixes each one
        just before it is drawn. That is the same uniform shuffle as shuffling
        up front, but costs only the cards actually drawn. Positions built by
        :meth:`~.engine.GameState.from_position` have nothing unshuffled, so they draw in order.
        """
        draw = self.stock
        m = len(draw)
        if k > m:
            k = m
        low = m - k
        if low < self.unshuffled:
            self.rng.shuffle_steps(draw, self.unshuffled, low)
            self.unshuffled = low
        got = draw[low:]
        del draw[low:]
        got.reverse()
        return got

    def require_turn(self, seat: int, phase: Phase, reason: Reason, message: str) -> None:
        """Refuse unless ``seat`` is to move in ``phase`` (``reason`` for a wrong phase)."""
        if seat != self.current:
            raise IllegalAction(Reason.NOT_YOUR_TURN, f"it is player {self.current}'s turn")
        if self.phase is not phase:
            if self.phase is PENALTY:
                raise IllegalAction(
                    Reason.PENALTY_PENDING,
                    "answer the pending penalty first (accept it, or challenge or stack)",
                )
            if self.phase is CHOOSE_COLOUR:
                raise IllegalAction(
                    Reason.COLOUR_CHOICE_PENDING, "name the colour of the Wild starter first"
                )
            raise IllegalAction(reason, message)

    def open_penalty(self, victim: int, cards: int, rank: int, events: list[Event]) -> list[Event]:
        """Start a pending penalty of ``cards`` for ``victim`` (challenge/stack/accept)."""
        if rank != WD4:
            self.wd4_by = NONE
        self.pending_penalty += cards
        self.stack_rank = rank
        self.phase = PENALTY
        self.current = victim
        events.append(TURN[victim])
        return events

    def clear_penalty(self) -> None:
        """No penalty pending any more (it was drawn or passed on)."""
        self.pending_penalty = 0
        self.wd4_by = NONE
        self.wd4_hand = ()

    def seat_after(self, seat: int, k: int) -> int:
        """The seat ``k`` places after ``seat`` in the direction of play, among seats in play."""
        ring = self.ring
        at = self.ring_pos[seat]
        return ring[(at + self.direction * k) % len(ring)]

    def reverse(self, events: list[Event]) -> None:
        """Reverse the direction of play (section 3), with its event."""
        self.direction = -self.direction
        events.append(DIRECTION_CHANGED[self.direction])

    def pass_turn(self, seat: int, events: list[Event]) -> None:
        """The turn passes from ``seat`` to the next seat in play (phase PLAY)."""
        ring = self.ring  # self.seat_after(seat, 1), inlined: every draw and keep passes here
        at = self.ring_pos[seat]
        nxt = ring[(at + self.direction) % len(ring)]
        self.phase = PLAYING
        self.current = nxt
        events.append(TURN[nxt])

    def can_draw(self) -> bool:
        """Is there a card to draw: in the draw pile, or under the top discard (section 6)?"""
        return bool(self.stock) or len(self.discards) > 1

    def draw_cards(self, seat: int, k: int, events: list[Event]) -> list[int]:
        """Move up to ``k`` cards from the draw pile to ``seat``'s hand (section 6).

        Reshuffles the discard pile (less its top card) when the draw pile runs
        out; draws fewer when there is nothing left. Returns the cards drawn.
        """
        draw = self.stock
        if k == 1 and draw:  # the common case: pop_cards(1) inlined, one Fisher-Yates step
            m = len(draw) - 1
            if m < self.unshuffled:
                j = self.rng.below(m + 1)
                draw[m], draw[j] = draw[j], draw[m]
                self.unshuffled = m
            got = [draw.pop()]
        else:
            got = self.pop_cards(k) if k > 0 else []
            if len(got) < k:
                discard = self.discards
                if len(discard) > 1:
                    self.stock = discard[:-1]
                    self.unshuffled = len(self.stock)
                    del discard[:-1]
                    events.append(
                        new_event(
                            (EV_RESHUFFLED, NONE, EVERYONE, (), len(self.stock), NONE, NONE, 0)
                        )
                    )
                    got += self.pop_cards(k - len(got))
        n = len(got)
        events.append(
            DREW[seat][n] if n < 9 else new_event((EV_DREW, seat, EVERYONE, (), n, NONE, NONE, 0))
        )
        if got:
            self.hands[seat].extend(got)
            self.uno_calls[seat] = False
            if self.catchable == seat:
                self.catchable = NONE
            events.append(
                DREW_ONE[seat][got[0]]
                if n == 1
                else new_event((EV_DREW_CARDS, seat, seat, tuple(got), 0, NONE, NONE, 0))
            )
        return got

    def hand_points(self, seat: int) -> int:
        """Points of the cards ``seat`` holds under the rule set's point values."""
        pts = self.card_points
        return sum(map(pts.__getitem__, self.hands[seat]))
