"""Section 8 of RULES.md, the house rules: which plays they allow (several
cards at once, stacking and deflecting a penalty, jumping in, swapping
hands), the refusals they add, and their effects.

Functions on a :class:`~.state.Position` (the engine's state), called by the
engine only when a rule set turns the option on; the official turn never
comes here. Where a play must be judged in full they take the engine's
validator as ``validate``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import combinations

from . import actions as A
from . import scoring
from .actions import NONE, Action
from .cards import COLOUR, DECK_SIZE, IS_NUMBER, IS_WILD, RANK, card_name
from .errors import IllegalAction, Reason
from .events import EVERYONE, Event, new_event
from .hotpath import (
    DRAW_TWO,
    DRAWN,
    EV_HAND_RECEIVED,
    EV_HANDS_ROTATED,
    EV_HANDS_SWAPPED,
    EV_LAST_NOT_NUMBER,
    EV_WRONG_PLAY,
    PENALTY,
    PLAYING,
    REVERSE,
    UNO_CALLED,
    WD4,
    WRONG_PLAYS,
)
from .rules import MultiPlay, Stacking
from .state import Position

#: The engine's validator of a play (``GameState._validate_play``): raises
#: IllegalAction for a play ``seat`` may not make now, and changes nothing.
Validate = Callable[[int, Action], object]


def play_variants(game: Position, seat: int, validate: Validate) -> list[Action]:
    """Every play ``seat`` may make now, found by asking ``validate`` (the
    general path, used when house rules are on)."""
    hand = game.hands[seat]
    # (a last card that draws one may carry the call: number_first_and_last)
    calls = len(hand) == 2 or (len(hand) == 1 and game.rules.number_first_and_last)
    table = game.plays_uno if calls else game.plays
    targets = [NONE] + [p for p in game.ring if p != seat]
    plays = []
    for card in hand:
        for action in table[card]:
            for target in targets if RANK[card] in (5, 7) and len(hand) > 1 else (NONE,):
                if target != NONE:
                    action = A.play(
                        card, None if action.colour == NONE else action.colour, action.uno, target
                    )
                try:
                    validate(seat, action)
                except IllegalAction:
                    continue
                plays.append(action)
    if (
        game.rules.multi_play is not MultiPlay.OFF
        and plays
        and len(hand) > 1
        and seat == game.current
        and game.phase is not DRAWN
    ):
        plays += multi_plays(game, seat, targets, {a.card for a in plays}, validate)
    return plays


#: Most multi-card plays listed in one update (RULES.md section 8, "multi_play":
#: a hoarded hand holds thousands of sets; any other is still legal spelled out).
MAX_LISTED_MULTI_PLAYS = 256


def multi_plays(
    game: Position, seat: int, targets: list[int], firsts: set[int], validate: Validate
) -> list[Action]:
    """Section 8 (``multi_play``): the plays of several cards. A set of cards
    is listed once, led by its lowest-id card that may be played alone; then
    one action per colour it may leave in force, per UNO call, per swap target.
    Every lead's largest set comes first, then the other sets from the smallest
    up, at most :data:`MAX_LISTED_MULTI_PLAYS` actions in all (a hand of
    dozens of cards of one rank has thousands; the others stay legal)."""
    hand = game.hands[seat]
    identical = game.rules.multi_play is MultiPlay.IDENTICAL
    leads = []
    for card in sorted(firsts):
        rank = RANK[card]
        mates = sorted(
            c
            for c in hand
            if c != card and RANK[c] == rank and (not identical or COLOUR[c] == COLOUR[card])
        )
        if mates:
            leads.append((card, mates))
    plays: list[Action] = []
    for card, mates in leads:  # the largest set of each lead first
        extra = tuple(c for c in mates if not (c < card and c in firsts))
        if len(extra) == len(mates):
            _add_set(game, seat, targets, card, extra, plays, validate)
    longest = max((len(mates) for _, mates in leads), default=0)
    for size in range(1, longest):
        for card, mates in leads:
            if size >= len(mates):
                continue
            for extra in combinations(mates, size):
                if any(c < card and c in firsts for c in extra):
                    continue  # listed under that lower card
                if len(plays) >= MAX_LISTED_MULTI_PLAYS:
                    return plays[:MAX_LISTED_MULTI_PLAYS]
                _add_set(game, seat, targets, card, extra, plays, validate)
    return plays[:MAX_LISTED_MULTI_PLAYS]


def _add_set(
    game: Position,
    seat: int,
    targets: list[int],
    card: int,
    extra: tuple[int, ...],
    plays: list[Action],
    validate: Validate,
) -> None:
    """Append to ``plays`` every legal play of ``card`` with ``extra``: one per
    colour it may leave in force, per UNO call, per swap target."""
    hand = game.hands[seat]
    rank = RANK[card]
    left = len(hand) - 1 - len(extra)
    if IS_WILD[card]:
        colours = [0, 1, 2, 3] + ([NONE] if game.rules.unnamed_wild_keeps_colour else [])
    else:
        colours = sorted({COLOUR[c] for c in extra} | {COLOUR[card]})
        if len(colours) == 1:
            colours = [NONE]
    swaps = rank in (5, 7) and left > 0
    for colour in colours:
        for uno in [False, True] if left == 1 else [False]:
            for target in targets if swaps else (NONE,):
                action = A.play(card, None if colour == NONE else colour, uno, target, extra)
                try:
                    validate(seat, action)
                except IllegalAction:
                    continue
                plays.append(action)


def laid_in_order(card: int, extra: tuple[int, ...], colour: int) -> tuple[int, ...]:
    """Section 8 (``multi_play``): the cards of a play of ``card`` + ``extra``
    in the order laid, bottom first: of coloured cards, one of the colour
    left in force (``colour``) goes on top; wilds as listed."""
    laid = (card, *extra)
    if IS_WILD[card]:
        return laid
    on_top = [c for c in laid if COLOUR[c] == colour][-1]
    return tuple([c for c in laid if c != on_top]) + (on_top,)


def check_extra(
    game: Position, hand: list[int], card: int, extra: tuple[int, ...], jump: bool
) -> None:
    """Section 8 (``multi_play``): refuse ``extra`` cards that may not be laid
    with ``card``. Only a play in turn may lay several cards: a jump-in, the
    card just drawn and a deflecting Reverse are played alone."""
    mode = game.rules.multi_play
    if mode is MultiPlay.OFF:
        raise IllegalAction(Reason.MULTI_PLAY_OFF, "one card per play at this table")
    if jump or game.phase is DRAWN or (game.phase is PENALTY and RANK[card] == REVERSE):
        raise IllegalAction(
            Reason.ONE_CARD_ONLY, "a jump-in, a drawn card or a deflecting Reverse is played alone"
        )
    seen = {card}
    for c in extra:
        if not 0 <= c < DECK_SIZE:
            raise IllegalAction(Reason.NO_SUCH_CARD, f"there is no card {c}")
        if c in seen:
            raise IllegalAction(
                Reason.CARDS_DO_NOT_GO_TOGETHER, f"the {card_name(c)} is listed twice"
            )
        seen.add(c)
        if c not in hand:
            raise IllegalAction(Reason.CARD_NOT_IN_HAND, f"you do not hold the {card_name(c)}")
        if RANK[c] != RANK[card]:
            raise IllegalAction(
                Reason.CARDS_DO_NOT_GO_TOGETHER,
                "cards played together must have the same number or symbol",
            )
        if mode is MultiPlay.IDENTICAL and COLOUR[c] != COLOUR[card]:
            raise IllegalAction(
                Reason.CARDS_DO_NOT_GO_TOGETHER,
                "only identical cards may be played together at this table",
            )


def multi_colour(card: int, extra: tuple[int, ...], colour: int) -> int:
    """Section 8: the colour in force after laying coloured ``card`` + ``extra``:
    the one colour they share (name none), else the named one of theirs."""
    colours = {COLOUR[c] for c in extra}
    colours.add(COLOUR[card])
    if len(colours) == 1:
        if colour != NONE:
            raise IllegalAction(Reason.COLOUR_NOT_ALLOWED, "the cards share one colour: name none")
        return COLOUR[card]
    if colour == NONE:
        raise IllegalAction(
            Reason.COLOUR_MISSING, "name the colour in force: one of the colours played"
        )
    if colour not in colours:
        raise IllegalAction(Reason.COLOUR_NOT_PLAYED, "name one of the colours played")
    return colour


def penalise_wrong_play(game: Position, seat: int, refused: IllegalAction) -> None:
    """Section 8 (``wrong_play_penalty``): a play ``refused`` to the player to
    move for a wrong card (:data:`~.hotpath.WRONG_PLAYS`) is still refused,
    but costs them cards; the penalty's events travel on the exception
    (``refused.events``). Any other refusal costs nothing."""
    if seat != game.current or refused.reason not in WRONG_PLAYS:
        return
    count = game.rules.wrong_play_penalty
    refused.events = [new_event((EV_WRONG_PLAY, seat, EVERYONE, (), count, NONE, NONE, 0))]
    game.draw_cards(seat, count, refused.events)


def check_out_of_phase_play(game: Position, seat: int, card: int) -> bool:
    """Refuse a play outside the plain PLAY phase unless the rules allow it.

    Returns True for a jump-in (section 8). Allowed otherwise: the drawn card
    (DRAWN), an answer to a pending penalty (PENALTY).
    """
    phase = game.phase
    top = game.discards[-1]
    identical = COLOUR[card] == COLOUR[top] and RANK[card] == RANK[top]
    if seat == game.current:
        if phase is DRAWN:
            if card != game.drawn_card:
                raise IllegalAction(
                    Reason.ONLY_DRAWN_CARD,
                    f"only the drawn {card_name(game.drawn_card)} may be played",
                )
            return False
        if phase is PENALTY:
            if answers_penalty(game, card):
                return False
            if game.rules.jump_in and identical:
                return True
        game.require_turn(seat, PLAYING, Reason.NOT_YOUR_TURN, "")
    if game.rules.jump_in and identical and phase in (PLAYING, DRAWN, PENALTY):
        return True
    raise IllegalAction(Reason.NOT_YOUR_TURN, f"it is player {game.current}'s turn")


def answers_penalty(game: Position, card: int) -> bool:
    """Section 8: may ``card`` answer the pending penalty (stack or deflect)?"""
    rules = game.rules
    rank = RANK[card]
    if rank == REVERSE:
        return rules.reverse_deflects_draw and COLOUR[card] == game.colour_in_force
    stacking = rules.stacking
    if rank == WD4:
        return stacking is Stacking.PLUS_FOUR_OVER_TWO or stacking is Stacking.ANY
    if rank == DRAW_TWO and stacking is not Stacking.OFF:
        if RANK[game.discards[-1]] == DRAW_TWO:
            return True  # matches by symbol
        return (game.stack_rank == DRAW_TWO or stacking is Stacking.ANY) and COLOUR[
            card
        ] == game.colour_in_force
    return False


def check_house_play(
    game: Position, seat: int, card: int, rank: int, target: int, held: int
) -> None:
    """Refusals that only house rules add: first/last card numbers, swap targets."""
    rules = game.rules
    if rules.number_first_and_last and game.first_play and not IS_NUMBER[card]:
        raise IllegalAction(Reason.NUMBER_FIRST, "the first card of a round must be a number")
    swaps = (rank == 7 and rules.seven_zero) or (rank == 5 and rules.swap_on_five)
    if swaps and held > 1:
        if target == NONE:
            raise IllegalAction(
                Reason.TARGET_MISSING,
                f"name the player to swap hands with for the {card_name(card)}",
            )
        if not 0 <= target < game.players or target == seat or game.ring_pos[target] < 0:
            raise IllegalAction(Reason.BAD_TARGET, "swap with another seat at the table")
    elif target != NONE:
        raise IllegalAction(Reason.TARGET_NOT_ALLOWED, "only a swapping 7 or 5 takes a target")


def pass_penalty(
    game: Position, seat: int, rank: int, k: int, jump: bool, out: bool, events: list[Event]
) -> list[Event]:
    """Section 8: a stack (of ``k`` draw cards), deflect or jump-in passes the penalty on."""
    if rank == REVERSE and not jump:
        game.reverse(events)  # deflect: back to the player who played the draw card
    victim = game.seat_after(seat, 1)
    added = k * (2 if rank == DRAW_TWO else 4 if rank == WD4 else 0)
    if rank == WD4:  # (its hand as the play left it is kept: GameState._play)
        game.wd4_by = seat
    else:
        game.wd4_by = NONE
    if out:  # went out: the next player draws it all (section 7) and loses the turn
        game.draw_cards(victim, game.pending_penalty + added, events)
        game.clear_penalty()
        return scoring.went_out(game, seat, game.seat_after(seat, 2), events)
    return game.open_penalty(victim, added, rank if added else game.stack_rank, events)


def swap(game: Position, seat: int, rank: int, target: int, events: list[Event]) -> None:
    """Section 8: a 7 (or 5) swaps hands with ``target``; a 0 passes every hand
    one seat in the direction of play. Holders of one card after it are safe."""
    hands = game.hands
    if rank == 0:
        d = game.direction
        ring = game.ring
        m = len(ring)
        game.hands = rotated = hands[:]
        for i, p in enumerate(ring):
            rotated[p] = hands[ring[(i - d) % m]]
        hands = rotated
        events.append(new_event((EV_HANDS_ROTATED, seat, EVERYONE, (), 0, NONE, NONE, d)))
        moved: Sequence[int] = ring
    else:
        hands[seat], hands[target] = hands[target], hands[seat]
        events.append(new_event((EV_HANDS_SWAPPED, seat, EVERYONE, (), 0, NONE, target, 0)))
        moved = (seat, target)
    for p in moved:
        game.uno_calls[p] = len(hands[p]) == 1
        events.append(new_event((EV_HAND_RECEIVED, p, p, tuple(hands[p]), 0, NONE, NONE, 0)))
    game.catchable = NONE


def last_card_not_number(game: Position, seat: int, uno: bool, events: list[Event]) -> bool:
    """Section 8 (``number_first_and_last``): going out on an action or wild
    card draws one card instead, and the player must call UNO again: ``uno``,
    the call carried by that play, counts for the card drawn (else the
    player is catchable). The card's effects still apply. Returns False if
    there was nothing to draw (then the player goes out after all)."""
    events.append(new_event((EV_LAST_NOT_NUMBER, seat, EVERYONE, (), 1, NONE, NONE, 0)))
    if not game.draw_cards(seat, 1, events):
        return False
    game.uno_calls[seat] = uno
    if uno:
        events.append(UNO_CALLED[seat])
    else:
        game.catchable = seat
    return True
