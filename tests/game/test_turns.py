"""RULES.md section 3: a turn. Crafted positions, exact outcomes."""

import pytest
from helpers import assert_conserved, c, cs, drew, of_kind, pos, refused

from unoplay.game import actions as A
from unoplay.game.cards import Colour
from unoplay.game.errors import Reason
from unoplay.game.events import EventKind as E
from unoplay.game.rules import RuleSet
from unoplay.game.view import Phase


@pytest.mark.parametrize("card", ["R2", "B7", "W"])
def test_play_matching_colour_number_or_wild(card):
    game = pos(["R2 B7 W G1", "G2 G3", "Y4 Y5"], "R7")
    colour = Colour.BLUE if card == "W" else None
    game.apply(0, A.play(c(card), colour))
    assert game.top_card == c(card) and game.current == 1
    assert c(card) not in game.hand(0)


def test_play_matching_symbol():
    game = pos(["BS G1", "G2 G3", "Y4 Y5"], "RS")
    events = game.apply(0, A.play(c("BS")))
    assert game.current == 2 and game.colour == Colour.BLUE
    assert [e.player for e in of_kind(events, E.SKIPPED)] == [1]


def test_card_that_does_not_match_is_refused_with_reason():
    game = pos(["G1 Y3", "G2 G3", "Y4 Y5"], "R7")
    err = refused(game, 0, A.play(c("G1")), Reason.DOES_NOT_MATCH)
    assert "green 1" in str(err)


def test_named_wild_colour_not_the_card_colour_counts():
    game = pos(["R1 Y3", "G2 G3", "Y4 Y5"], "W", colour=Colour.YELLOW)
    refused(game, 0, A.play(c("R1")), Reason.DOES_NOT_MATCH)
    game.apply(0, A.play(c("Y3")))
    assert game.colour == Colour.YELLOW


def test_not_your_turn_card_not_in_hand_and_bad_ids():
    game = pos(["R1 Y3", "R2 G3", "Y4 Y5"], "R7")
    refused(game, 1, A.play(c("R2")), Reason.NOT_YOUR_TURN)
    refused(game, 0, A.play(c("R2")), Reason.CARD_NOT_IN_HAND)
    refused(game, 0, A.play(200), Reason.NO_SUCH_CARD)
    refused(game, 7, A.DRAW, Reason.NO_SUCH_PLAYER)
    refused(game, 0, A.KEEP, Reason.NOTHING_TO_KEEP)
    refused(game, 0, A.CHALLENGE, Reason.NOTHING_TO_CHALLENGE)
    refused(game, 0, A.ACCEPT, Reason.NOTHING_TO_ACCEPT)
    refused(game, 0, A.choose_colour(1), Reason.NO_COLOUR_TO_CHOOSE)
    refused(game, 0, A.Action(99), Reason.UNKNOWN_ACTION)


def test_wild_needs_a_colour_and_only_a_wild_takes_one():
    game = pos(["W R1 Y3", "R2 G3", "Y4 Y5"], "R7")
    refused(game, 0, A.play(c("W")), Reason.COLOUR_MISSING)
    refused(game, 0, A.play(c("W"), 7), Reason.BAD_COLOUR)
    refused(game, 0, A.play(c("R1"), Colour.RED), Reason.COLOUR_NOT_ALLOWED)
    game.apply(0, A.play(c("W"), Colour.GREEN))
    assert game.colour == Colour.GREEN


def test_unnamed_wild_keeps_colour_option():
    rules = RuleSet(unnamed_wild_keeps_colour=True)
    game = pos(["W R1 Y3", "R2 G3", "Y4 Y5"], "R7", rules=rules)
    assert A.play(c("W")) in game.legal_actions(0)
    game.apply(0, A.play(c("W")))
    assert game.colour == Colour.RED


def test_wild_draw_four_is_offered_even_when_holding_the_colour():
    game = pos(["W+4 R1", "R2 G3", "Y4 Y5"], "R7")
    assert A.play(c("W+4"), Colour.BLUE) in game.legal_actions(0)


def test_draw_instead_of_playing_even_with_a_playable_card_then_keep():
    game = pos(["R1 Y3", "R2 G3", "Y4 Y5"], "R7", draw_pile=None)
    top_of_pile = game.draw_pile[-1]
    events = game.apply(0, A.DRAW)
    assert drew(events, 0) == 1 and top_of_pile in game.hand(0)
    if game.phase is Phase.DRAWN:
        game.apply(0, A.KEEP)
    assert game.current == 1 and len(game.hand(0)) == 3


def test_drawn_playable_card_may_be_played_at_once_but_no_other():
    # Draw pile top is the red 5, which fits the red 7.
    rest = [x for x in range(108) if x not in cs("R1 Y3 R2 G3 Y4 Y5 R7 R5")]
    game = pos(["R1 Y3", "R2 G3", "Y4 Y5"], "R7", draw_pile=rest + [c("R5")])
    game.apply(0, A.DRAW)
    assert game.phase is Phase.DRAWN and game.view(0).drawn_card == c("R5")
    assert set(game.legal_actions(0)) == {A.play(c("R5")), A.KEEP}
    refused(game, 0, A.play(c("R1")), Reason.ONLY_DRAWN_CARD)
    refused(game, 0, A.DRAW, Reason.ALREADY_DREW)
    game.apply(0, A.play(c("R5")))
    assert game.top_card == c("R5") and game.current == 1


def test_drawn_card_that_does_not_fit_passes_the_turn():
    rest = [x for x in range(108) if x not in cs("R1 Y3 R2 G3 Y4 Y5 R7 G9")]
    game = pos(["R1 Y3", "R2 G3", "Y4 Y5"], "R7", draw_pile=rest + [c("G9")])
    events = game.apply(0, A.DRAW)
    assert game.phase is Phase.PLAY and game.current == 1
    assert of_kind(events, E.TURN)[-1].player == 1


def test_skip_next_player_loses_turn():
    game = pos(["RS Y3", "R2 G3", "Y4 Y5", "B1 B2"], "R7")
    game.apply(0, A.play(c("RS")))
    assert game.current == 2


def test_reverse_flips_direction():
    game = pos(["RR Y3", "R2 G3", "Y4 Y5", "B1 B2"], "R7", current=0)
    game.apply(0, A.play(c("RR")))
    assert game.direction == -1 and game.current == 3


def test_draw_two_next_draws_two_and_loses_turn():
    game = pos(["R+2 Y3", "R2 G3", "Y4 Y5", "B1 B2"], "R7")
    events = game.apply(0, A.play(c("R+2")))
    assert drew(events, 1) == 2 and len(game.hand(1)) == 4 and game.current == 2


def test_counter_clockwise_skip():
    game = pos(["RS Y3", "R2 G3", "Y4 Y5", "B1 B2"], "R7", direction=-1)
    game.apply(0, A.play(c("RS")))
    assert game.current == 2
    game2 = pos(["R1 Y3", "R2 G3", "Y4 Y5", "B1 B2"], "R7", direction=-1)
    game2.apply(0, A.play(c("R1")))
    assert game2.current == 3


@pytest.mark.parametrize("card", ["RR", "RS", "R+2"])
def test_two_players_reverse_skip_draw_two_give_the_turn_back(card):
    game = pos([f"{card} Y3 Y6", "R2 G3"], "R7")
    events = game.apply(0, A.play(c(card)))
    assert game.current == 0
    if card == "R+2":
        assert drew(events, 1) == 2


def test_two_players_wild_draw_four_gives_the_turn_back():
    game = pos(["W+4 Y3 Y6", "R2 G3"], "R7")
    game.apply(0, A.play(c("W+4"), Colour.GREEN))
    assert game.phase is Phase.PENALTY and game.current == 1
    game.apply(1, A.ACCEPT)
    assert game.current == 0 and len(game.hand(1)) == 6


def test_wild_draw_four_next_draws_four_and_loses_turn_when_accepted():
    game = pos(["W+4 Y3 Y6", "R2 G3", "Y4 Y5"], "R7")
    game.apply(0, A.play(c("W+4"), Colour.YELLOW))
    assert game.legal_actions(1) == [A.CHALLENGE, A.ACCEPT]
    refused(game, 1, A.play(c("R2")), Reason.PENALTY_PENDING)
    refused(game, 1, A.DRAW, Reason.PENALTY_PENDING)
    events = game.apply(1, A.ACCEPT)
    assert drew(events, 1) == 4 and game.current == 2 and game.colour == Colour.YELLOW
    assert_conserved(game)


def test_legal_actions_lists_each_wild_per_colour_and_draw():
    game = pos(["W R1 G5", "R2 G3", "Y4 Y5"], "R7")
    legal = game.legal_actions(0)
    assert legal == [A.play(c("W"), k) for k in range(4)] + [A.play(c("R1")), A.DRAW]
    assert game.legal_actions(1) == []
