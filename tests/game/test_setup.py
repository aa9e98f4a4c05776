"""RULES.md sections 1-2: the deck, the dealer draw, the deal, the starter card table."""

import pytest
from helpers import assert_conserved, c, number_hands, of_kind, stacked_deck

from unoplay.game.actions import DRAW
from unoplay.game.cards import (
    CLASSIC_POINTS,
    COLOUR,
    DECK_SIZE,
    IS_NUMBER,
    RANK,
    STANDARD_POINTS,
    WILD,
    Colour,
    Rank,
    card_code,
    card_name,
)
from unoplay.game.engine import GameState
from unoplay.game.events import EVERYONE
from unoplay.game.events import EventKind as E
from unoplay.game.rules import RuleSet
from unoplay.game.view import Phase


def test_deck_has_108_cards_as_section_1_lists():
    assert len(COLOUR) == DECK_SIZE == 108
    for colour in Colour:
        ranks = sorted(RANK[i] for i in range(108) if COLOUR[i] == colour)
        assert len(ranks) == 25
        assert ranks.count(0) == 1
        for n in range(1, 10):
            assert ranks.count(n) == 2
        for r in (Rank.SKIP, Rank.REVERSE, Rank.DRAW_TWO):
            assert ranks.count(r) == 2
    wild = [RANK[i] for i in range(108) if COLOUR[i] == WILD]
    assert sorted(wild) == [Rank.WILD] * 4 + [Rank.WILD_DRAW_FOUR] * 4


def test_card_names_and_codes_are_stable():
    assert card_name(0) == "red 0" and card_code(0) == "R0"
    assert card_name(c("B+2")) == "blue Draw Two"
    assert card_name(107) == "Wild Draw Four" and card_code(107) == "W+4"
    assert c("R7") != c("R7#1") and card_code(c("R7#1")) == "R7"


def test_point_tables_of_section_7():
    assert STANDARD_POINTS[c("G9")] == 9 and STANDARD_POINTS[c("GS")] == 20
    assert STANDARD_POINTS[c("W")] == 50 and STANDARD_POINTS[c("W+4")] == 50
    assert CLASSIC_POINTS[c("YR")] == 10 and CLASSIC_POINTS[c("Y+2")] == 10
    assert CLASSIC_POINTS[c("W")] == 20 and CLASSIC_POINTS[c("W+4")] == 40
    assert sum(STANDARD_POINTS) == 4 * (2 * 45 + 6 * 20) + 8 * 50


@pytest.mark.parametrize("seed", range(60))
def test_dealer_draw_highest_number_deals(seed):
    players = 2 + seed % 9
    game, events = GameState.new(players, seed=seed)
    draws = of_kind(events, E.DEALER_DRAW)
    # Each candidate's last draw in a pass is a number card; actions/wilds are redrawn.
    last: dict[int, int] = {}
    passes: list[dict[int, int]] = [{}]
    for e in draws:
        card = e.cards[0]
        if e.player in passes[-1]:
            passes.append({})
        if IS_NUMBER[card]:
            passes[-1][e.player] = RANK[card]
            last[e.player] = RANK[card]
    assert set(passes[0]) == set(range(players))
    final = passes[-1]
    best = max(final.values())
    winners = [p for p, r in final.items() if r == best]
    assert winners == [game.dealer]
    for earlier in passes[:-1]:  # every earlier pass ended in a tie for the highest
        top = max(earlier.values())
        assert sum(1 for r in earlier.values() if r == top) > 1
    assert of_kind(events, E.DEALER_CHOSEN)[0].player == game.dealer


def test_deal_seven_each_from_the_dealers_left_and_private():
    hands = number_hands(4, avoid=[c("R5")])
    deck = stacked_deck(hands, c("R5"), dealer=2)
    game, events = GameState.new(4, seed=1, dealer=2, deck=deck)
    for seat in range(4):
        assert sorted(game.hand(seat)) == sorted(hands[seat])
    dealt = of_kind(events, E.HAND_DEALT)
    assert [(e.player, e.audience) for e in dealt] == [(p, p) for p in range(4)]
    assert len(game.draw_pile) == 108 - 28 - 1
    assert_conserved(game)


def start(starter: str, players: int = 4, dealer: int = 0, rules=None, then=()):
    hands = number_hands(players, avoid=[c(starter)] + list(then))
    deck = stacked_deck(
        hands,
        c(starter),
        dealer=dealer,
        then=then,
        direction=-1 if rules and rules.initial_direction == "counter_clockwise" else 1,
    )
    return GameState.new(players, rules, seed=5, dealer=dealer, deck=deck)


def test_starter_number_left_of_dealer_plays_first_clockwise():
    game, _events = start("R5")
    assert game.current == 1 and game.direction == 1
    assert game.colour == Colour.RED and game.top_card == c("R5")
    assert game.phase is Phase.PLAY


def test_starter_skip_skips_the_first_player():
    game, events = start("GS")
    assert game.current == 2
    assert [e.player for e in of_kind(events, E.SKIPPED)] == [1]


def test_starter_reverse_dealer_plays_first_counter_clockwise():
    game, _ = start("BR", dealer=1)
    assert game.direction == -1 and game.current == 1


def test_starter_reverse_right_of_dealer_option():
    game, _ = start("BR", dealer=1, rules=RuleSet(reverse_starter="right_of_dealer_first"))
    assert game.direction == -1 and game.current == 0


def test_starter_reverse_first_player_then_reverse_option():
    game, _ = start(
        "BR", dealer=1, then=[c("R3")], rules=RuleSet(reverse_starter="first_player_then_reverse")
    )
    assert game.current == 2 and game.direction == -1  # left of the dealer plays first
    game.apply(2, DRAW)  # draws the red 3, which does not fit: the turn passes
    assert game.current == 1  # back past the dealer: play runs counter-clockwise


def test_starter_draw_two_first_player_draws_two_and_is_skipped():
    game, events = start("Y+2")
    assert len(game.hand(1)) == 9 and game.current == 2
    assert [e.player for e in of_kind(events, E.SKIPPED)] == [1]
    private = of_kind(events, E.DREW_CARDS)
    assert private[0].audience == 1 and len(private[0].cards) == 2


def test_starter_wild_first_player_names_colour_then_plays():
    game, _events = start("W")
    assert game.phase is Phase.CHOOSE_COLOUR and game.current == 1
    assert {a.colour for a in game.legal_actions(1)} == {0, 1, 2, 3}
    game.apply(1, game.legal_actions(1)[2])  # green
    assert game.colour == Colour.GREEN and game.current == 1 and game.phase is Phase.PLAY


def test_starter_wild_first_player_names_only_option():
    game, _ = start("W", rules=RuleSet(wild_starter="first_player_names_only"))
    game.apply(1, game.legal_actions(1)[3])
    assert game.colour == Colour.BLUE and game.current == 2


def test_starter_wild_dealer_names_option():
    game, _ = start("W", dealer=3, rules=RuleSet(wild_starter="dealer_names"))
    assert game.current == 3 and game.phase is Phase.CHOOSE_COLOUR
    game.apply(3, game.legal_actions(3)[0])
    assert game.colour == Colour.RED and game.current == 0


def test_starter_wild_draw_four_is_put_back_and_another_flipped():
    game, events = start("W+4", then=[c("G7")])
    flips = [e.cards[0] for e in of_kind(events, E.STARTER_FLIPPED)]
    assert flips[0] == c("W+4") and len(flips) >= 2
    assert RANK[game.top_card] != Rank.WILD_DRAW_FOUR
    assert of_kind(events, E.STARTER_RETURNED)[0].cards == (c("W+4"),)
    assert_conserved(game)


def test_starter_wild_redraw_option_puts_a_plain_wild_back_too():
    game, events = start("W", rules=RuleSet(starter_wild_redraw=True))
    assert of_kind(events, E.STARTER_RETURNED)[0].cards == (c("W"),)
    assert COLOUR[game.top_card] != WILD and game.phase is not Phase.CHOOSE_COLOUR


def test_initial_direction_counter_clockwise_option():
    game, _ = start("R5", dealer=0, rules=RuleSet(initial_direction="counter_clockwise"))
    assert game.direction == -1 and game.current == 3


def test_first_player_dealer_option():
    game, _ = start("R5", dealer=2, rules=RuleSet(first_player="dealer"))
    assert game.current == 2


def test_two_players_reverse_starter_dealer_plays():
    game, _ = start("BR", players=2, dealer=0)
    assert game.current == 0


def test_setup_events_public_except_hands():
    _, events = GameState.new(5, seed=9)
    for e in events:
        if e.kind in (E.HAND_DEALT, E.DREW_CARDS):
            assert e.audience == e.player
        else:
            assert e.audience == EVERYONE


@pytest.mark.parametrize("players", [1, 11, 0])
def test_player_count_outside_2_to_10_is_refused(players):
    with pytest.raises(ValueError):
        GameState.new(players, seed=1)
