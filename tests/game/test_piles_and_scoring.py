"""RULES.md sections 6 and 7: the empty draw pile, the end of a round, scoring, the game."""

import pytest
from helpers import assert_conserved, c, cs, drew, everything_else, of_kind, pos

from unoplay.game import actions as A
from unoplay.game.cards import Colour
from unoplay.game.engine import GameState
from unoplay.game.errors import IllegalAction, Reason
from unoplay.game.events import EventKind as E
from unoplay.game.rules import RuleSet
from unoplay.game.view import Phase


def test_empty_draw_pile_reshuffles_the_discard_pile_except_its_top():
    under = everything_else("R1 Y3", "R2 G3", "Y4 Y5", "R7")
    game = pos(["R1 Y3", "R2 G3", "Y4 Y5"], "R7", draw_pile=[], discard_under=under)
    events = game.apply(0, A.DRAW)
    assert of_kind(events, E.DECK_RESHUFFLED)[0].count == len(under)
    assert game.discard_pile == (c("R7"),)
    assert len(game.draw_pile) == len(under) - 1 and len(game.hand(0)) == 3
    assert_conserved(game)


def test_wild_loses_its_named_colour_in_the_reshuffle():
    # A Wild once named blue lies under the red 7; the draw pile is empty.
    rest = everything_else("W", "R7", "Y3")
    hands = [cs("Y3"), rest[:50], rest[50:]]
    game = GameState.from_position(
        hands, c("R7"), draw_pile=[], discard_under=[c("W")], uno_called=[True, False, False]
    )
    game.apply(0, A.DRAW)
    assert game.hand(0)[-1] == c("W") and game.phase is Phase.DRAWN
    assert game.colour == Colour.RED
    assert {a.colour for a in game.legal_actions(0) if a.kind is A.ActionKind.PLAY} == {0, 1, 2, 3}


def test_both_piles_empty_drawing_gives_nothing_and_play_goes_on():
    # Every card is in a hand except the top card.
    rest = everything_else("R7")
    hands = [rest[:36], rest[36:72], rest[72:]]
    game = GameState.from_position(hands, c("R7"), draw_pile=[])
    events = game.apply(0, A.DRAW)
    assert drew(events, 0) == 0 and game.current == 1 and game.phase is Phase.PLAY
    assert_conserved(game)


def test_penalty_that_cannot_be_paid_in_full_is_paid_in_part():
    # One card in the draw pile, one under the top card: a Wild Draw Four pays 2 of 4.
    rest = everything_else("W+4 Y3 Y8", "R7", "B9", "G1")
    hands = [cs("W+4 Y3 Y8"), rest, cs("G1")]
    game = GameState.from_position(hands, c("R7"), draw_pile=[c("B9")])
    game.apply(0, A.play(c("W+4"), Colour.BLUE))
    events = game.apply(1, A.ACCEPT)
    assert drew(events, 1) == 2 and game.current == 2
    assert set(cs("B9 R7")) <= set(game.hand(1))
    assert game.discard_pile == (c("W+4"),) and game.draw_pile == ()
    assert_conserved(game)


def test_round_ends_when_a_player_plays_their_last_card():
    game = pos(["R1", "R2 G3", "Y4 Y5"], "R7", uno_called=[True, False, False])
    events = game.apply(0, A.play(c("R1")))
    assert game.is_round_over and game.round_winner == 0
    assert of_kind(events, E.ROUND_OVER)[0].value == 2 + 3 + 4 + 5
    assert game.scores == (14, 0, 0)
    assert game.legal_actions(1) == []
    with pytest.raises(IllegalAction) as err:
        game.apply(1, A.DRAW)
    assert err.value.reason is Reason.ROUND_OVER


@pytest.mark.parametrize("last, drawn", [("R+2", 2), ("W+4", 4)])
def test_last_card_draw_two_or_wild_draw_four_next_still_draws(last, drawn):
    game = pos([last, "R2 G3", "Y4 Y5"], "R7", uno_called=[True, False, False])
    colour = Colour.GREEN if last == "W+4" else None
    events = game.apply(0, A.play(c(last), colour))
    assert drew(events, 1) == drawn and len(game.hand(1)) == 2 + drawn
    assert game.is_round_over and not of_kind(events, E.CHALLENGED)
    # The drawn cards count for the winner.
    assert game.scores[0] == game.hand_points(1) + game.hand_points(2)


HANDS = ["R1", "RS W+4 G3", "Y4 Y5 B+2"]  # hands after seat 0 goes out: 70 + 9 + 20


@pytest.mark.parametrize(
    "values, points",
    [("standard", [0, 20 + 50 + 3, 4 + 5 + 20]), ("classic", [0, 10 + 40 + 3, 4 + 5 + 10])],
)
def test_winner_takes_scoring_both_point_tables(values, points):
    rules = RuleSet(point_values=values)
    game = pos(HANDS, "R7", rules=rules, uno_called=[True, False, False])
    events = game.apply(0, A.play(c("R1")))
    assert [e.value for e in of_kind(events, E.HAND_SCORED)] == points
    assert game.scores == (sum(points), 0, 0)


@pytest.mark.parametrize("values, points", [("standard", [0, 73, 29]), ("classic", [0, 53, 19])])
def test_penalty_scoring_each_adds_their_own_hand(values, points):
    rules = RuleSet(point_values=values, scoring="penalty")
    game = pos(HANDS, "R7", rules=rules, uno_called=[True, False, False], scores=[10, 20, 30])
    game.apply(0, A.play(c("R1")))
    assert game.scores == (10, 20 + points[1], 30 + points[2])
    assert not game.is_game_over


def test_target_score_ends_the_game_highest_wins_under_winner_takes():
    game = pos(HANDS, "R7", uno_called=[True, False, False], scores=[450, 480, 0])
    events = game.apply(0, A.play(c("R1")))
    assert game.is_game_over and game.game_winners == (0,)
    assert of_kind(events, E.GAME_OVER)[0].player == 0
    with pytest.raises(IllegalAction) as err:
        game.next_round()
    assert err.value.reason is Reason.GAME_OVER


def test_penalty_scoring_ends_at_target_lowest_wins():
    rules = RuleSet(scoring="penalty", target_score=100)
    game = pos(HANDS, "R7", rules=rules, uno_called=[True, False, False], scores=[50, 40, 0])
    game.apply(0, A.play(c("R1")))
    assert game.scores == (50, 113, 29)
    assert game.is_game_over and game.game_winners == (2,)


def test_single_round_game_with_target_zero():
    game = pos(HANDS, "R7", rules=RuleSet(target_score=0), uno_called=[True, False, False])
    game.apply(0, A.play(c("R1")))
    assert game.is_game_over and game.game_winners == (0,)


@pytest.mark.parametrize("scoring", ["winner_takes", "penalty"])
@pytest.mark.parametrize("fmt, winners", [("standard", (0,)), ("teams", (0, 2))])
def test_a_single_round_game_is_won_by_who_went_out_even_against_a_hand_of_zeros(
    scoring, fmt, winners
):
    # Everyone else holds only 0 cards: every score is 0 after the round, and
    # still only seat 0 (with its partner, under teams) went out and wins.
    rules = RuleSet(target_score=0, scoring=scoring, format=fmt)
    game = pos(["R1", "Y0", "G0 B0", "R0"], "R7", rules=rules)
    game.apply(0, A.play(c("R1")))
    assert game.scores == (0, 0, 0, 0)
    assert game.is_game_over and game.game_winners == winners
    assert game.returns() == tuple(1.0 if p in winners else 0.0 for p in range(4))


def test_winner_deals_the_next_round_and_scores_carry_over():
    game = pos(HANDS, "R7", uno_called=[True, False, False], dealer=2)
    game.apply(0, A.play(c("R1")))
    with pytest.raises(IllegalAction):
        GameState.from_position([cs(h) for h in HANDS], c("R7")).next_round()
    events = game.next_round()
    assert game.dealer == 0 and game.round_number == 2
    assert of_kind(events, E.ROUND_STARTED)[0].player == 0
    assert game.scores == (102, 0, 0)
    assert all(len(game.hand(p)) in (7, 9) for p in range(3))
    assert_conserved(game)
