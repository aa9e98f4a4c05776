"""RULES.md sections 4 and 5: the Wild Draw Four challenge, calling and catching UNO."""

from helpers import (
    assert_conserved,
    c,
    cs,
    drew,
    everything_else,
    of_kind,
    pos,
    refused,
)

from unoplay.game import actions as A
from unoplay.game.cards import Colour
from unoplay.game.engine import GameState
from unoplay.game.errors import Reason
from unoplay.game.events import EVERYONE, visible
from unoplay.game.events import EventKind as E
from unoplay.game.rules import RuleSet
from unoplay.game.view import Phase


def wd4_position(hand0: str, top: str = "R7", rules=None):
    game = pos([hand0, "R2 G3 B4", "Y4 Y5 Y6"], top, rules=rules)
    game.apply(0, A.play(c("W+4"), Colour.BLUE))
    return game


def test_challenge_guilty_player_draws_four_challenger_nothing_and_loses_turn():
    game = wd4_position("W+4 R1 Y3")  # holds the red 1: the colour in force was red
    events = game.apply(1, A.CHALLENGE)
    assert of_kind(events, E.CHALLENGED)[0].value == 1
    assert drew(events, 0) == 4 and drew(events, 1) == 0
    assert len(game.hand(0)) == 6 and len(game.hand(1)) == 3
    assert game.current == 2  # default: challenge_success_skips_challenger
    assert game.colour == Colour.BLUE  # the named colour stays in force
    assert_conserved(game)


def test_challenge_guilty_without_skip_option_challenger_plays():
    game = wd4_position("W+4 R1 Y3", rules=RuleSet(challenge_success_skips_challenger=False))
    game.apply(1, A.CHALLENGE)
    assert game.current == 1 and game.phase is Phase.PLAY and game.colour == Colour.BLUE


def test_challenge_not_guilty_challenger_draws_six_and_loses_turn():
    game = wd4_position("W+4 G1 Y7")  # a 7 matches by number, but not by colour: legal
    events = game.apply(1, A.CHALLENGE)
    assert of_kind(events, E.CHALLENGED)[0].value == 0
    assert drew(events, 1) == 6 and drew(events, 0) == 0
    assert game.current == 2 and game.colour == Colour.BLUE


def test_other_wilds_do_not_count_as_the_colour():
    game = wd4_position("W+4 W Y3")
    events = game.apply(1, A.CHALLENGE)
    assert of_kind(events, E.CHALLENGED)[0].value == 0


def test_colour_named_by_a_wild_is_the_colour_judged():
    # Top is a Wild named green: holding green is guilty, holding the wild's "black" is not.
    game = pos(["W+4 G1 R3", "R2 G3 B4", "Y4 Y5 Y6"], "W", colour=Colour.GREEN)
    game.apply(0, A.play(c("W+4"), Colour.RED))
    assert of_kind(game.apply(1, A.CHALLENGE), E.CHALLENGED)[0].value == 1


def test_wd4_restriction_any_match_judges_numbers_too():
    rules = RuleSet(wd4_restriction="any_match")
    game = wd4_position("W+4 G1 Y7", rules=rules)  # the yellow 7 matches the red 7
    assert of_kind(game.apply(1, A.CHALLENGE), E.CHALLENGED)[0].value == 1


def test_challenged_hand_is_shown_to_the_challenger_alone():
    game = wd4_position("W+4 R1 Y3")
    events = game.apply(1, A.CHALLENGE)
    shown = of_kind(events, E.HAND_SHOWN)
    assert len(shown) == 1
    assert shown[0].audience == 1 and shown[0].player == 0
    assert sorted(shown[0].cards) == sorted(cs("R1 Y3"))
    for seat in (0, 2):
        assert not of_kind(visible(events, seat), E.HAND_SHOWN)
    assert not of_kind(visible(events, EVERYONE), E.HAND_SHOWN)


def test_only_the_player_who_must_draw_may_challenge():
    game = wd4_position("W+4 R1 Y3")
    refused(game, 2, A.CHALLENGE, Reason.NOT_YOUR_TURN)
    refused(game, 0, A.ACCEPT, Reason.NOT_YOUR_TURN)


# ---------------------------------------------------------------- UNO (section 5)


def test_uno_called_with_the_play_is_safe():
    game = pos(["R1 Y3", "R2 G3 B4", "Y4 Y5 Y6"], "R7")
    assert A.play(c("R1"), uno=True) in game.legal_actions(0)
    events = game.apply(0, A.play(c("R1"), uno=True))
    assert of_kind(events, E.UNO_CALLED)[0].player == 0
    assert game.uno_called(0) and game.catchable == -1
    refused(game, 1, A.catch(0), Reason.ALREADY_CALLED)


def test_uno_called_on_its_own_after_the_play_before_a_catch():
    game = pos(["R1 Y3", "R2 G3 B4", "Y4 Y5 Y6"], "R7")
    game.apply(0, A.play(c("R1")))
    assert A.CALL_UNO in game.legal_actions(0)
    game.apply(0, A.CALL_UNO)
    assert game.uno_called(0)
    refused(game, 2, A.catch(0), Reason.ALREADY_CALLED)


def test_uno_caught_before_the_next_player_acts_draws_two():
    game = pos(["R1 Y3", "R2 G3 B4", "Y4 Y5 Y6"], "R7")
    game.apply(0, A.play(c("R1")))
    assert A.catch(0) in game.legal_actions(2)  # any other player, out of turn
    events = game.apply(2, A.catch(0))
    assert of_kind(events, E.UNO_CAUGHT)[0].target == 0
    assert drew(events, 0) == 2 and len(game.hand(0)) == 3
    assert game.current == 1  # the turn order is untouched


def test_uno_catch_too_late_after_the_next_player_began():
    game = pos(["R1 Y3", "R2 G3 B4", "Y4 Y5 Y6"], "R7")
    game.apply(0, A.play(c("R1")))
    game.apply(1, A.play(c("R2")))
    assert A.catch(0) not in game.legal_actions(2)
    refused(game, 2, A.catch(0), Reason.CATCH_TOO_LATE)


def test_uno_catch_window_closes_when_next_player_draws_too():
    game = pos(["R1 Y3", "R2 G3 B4", "Y4 Y5 Y6"], "R7")
    game.apply(0, A.play(c("R1")))
    game.apply(1, A.DRAW)
    refused(game, 2, A.catch(0), Reason.CATCH_TOO_LATE)


def test_catch_rejections_cost_nothing():
    game = pos(["R1 Y3 B5", "R2 G3 B4", "Y4 Y5 Y6"], "R7")
    refused(game, 1, A.catch(0), Reason.NOT_ONE_CARD)
    refused(game, 0, A.catch(0), Reason.CANNOT_CATCH_SELF)
    refused(game, 0, A.catch(9), Reason.NO_SUCH_PLAYER)
    refused(game, 0, A.CALL_UNO, Reason.UNO_NOT_NEEDED)
    refused(game, 0, A.play(c("R1"), uno=True), Reason.UNO_NOT_NEEDED)


def test_uno_penalty_option():
    game = pos(["R1 Y3", "R2 G3 B4", "Y4 Y5 Y6"], "R7", rules=RuleSet(uno_penalty=1))
    game.apply(0, A.play(c("R1")))
    assert drew(game.apply(1, A.catch(0)), 0) == 1


def test_uno_call_strict_option_only_the_play_counts():
    game = pos(["R1 Y3", "R2 G3 B4", "Y4 Y5 Y6"], "R7", rules=RuleSet(uno_call_strict=True))
    game.apply(0, A.play(c("R1")))
    assert A.CALL_UNO not in game.legal_actions(0)
    refused(game, 0, A.CALL_UNO, Reason.UNO_CALL_STRICT)
    assert drew(game.apply(2, A.catch(0)), 0) == 2


def test_false_uno_penalty_option():
    game = pos(["R1 Y3 B5", "R2 G3 B4", "Y4 Y5 Y6"], "R7", rules=RuleSet(false_uno_penalty=2))
    assert A.CALL_UNO not in game.legal_actions(1)  # not listed: it only costs the caller
    events = game.apply(1, A.CALL_UNO)  # but accepted when sent
    assert of_kind(events, E.UNO_FALSE_CALL)[0].player == 1
    assert drew(events, 1) == 2 and len(game.hand(1)) == 5


def test_a_call_by_a_player_about_to_hold_one_card_is_no_false_call():
    # Section 5: false is a call "when not about to hold one card": one who
    # holds one card (called or not, catchable or not any more), or two on
    # their turn, is refused at no cost; one with two cards out of turn pays.
    rules = RuleSet(false_uno_penalty=2)
    game = pos(["R1 Y3", "R2 G3 B4", "Y4 Y5 Y6"], "R7", rules=rules)
    refused(game, 0, A.CALL_UNO, Reason.UNO_NOT_NEEDED)  # two cards, their turn
    game.apply(0, A.play(c("R1"), uno=True))
    refused(game, 0, A.CALL_UNO, Reason.UNO_NOT_NEEDED)  # called already
    game = pos(["R1 Y3", "R2 G3 B4", "Y4 Y5 Y6"], "R7", rules=rules)
    game.apply(0, A.play(c("R1")))
    game.apply(1, A.play(c("R2")))  # the window closed: not called, not catchable
    refused(game, 0, A.CALL_UNO, Reason.UNO_NOT_NEEDED)
    assert len(game.hand(0)) == 1
    game = pos(["R1 Y3", "R2 G3", "Y4 Y5 Y6"], "R7", rules=rules)
    assert drew(game.apply(1, A.CALL_UNO), 1) == 2  # two cards, not their turn: false


def test_false_uno_call_with_both_piles_empty_is_refused_since_it_would_cost_nothing():
    rest = everything_else("R7", "R1 Y3 B5", "Y4 Y5 Y6")
    game = GameState.from_position(
        [cs("R1 Y3 B5"), rest, cs("Y4 Y5 Y6")],
        c("R7"),
        draw_pile=[],
        rules=RuleSet(false_uno_penalty=2),
    )
    refused(game, 1, A.CALL_UNO, Reason.UNO_NOT_NEEDED)
    game.apply(0, A.play(c("R1")))  # a card under the top: a false call costs one again
    assert drew(game.apply(1, A.CALL_UNO), 1) == 1


def test_catch_the_wild_draw_four_player_before_the_challenge():
    game = pos(["W+4 R1", "R2 G3 B4", "Y4 Y5 Y6"], "R7")
    game.apply(0, A.play(c("W+4"), Colour.BLUE))
    assert A.catch(0) in game.legal_actions(1) and A.catch(0) in game.legal_actions(2)
    game.apply(2, A.catch(0))
    assert len(game.hand(0)) == 3 and game.phase is Phase.PENALTY and game.current == 1


def test_two_players_uno_after_a_skip_can_still_be_called_on_own_turn():
    game = pos(["RS Y3", "R2 G3"], "R7")
    game.apply(0, A.play(c("RS")))
    assert game.current == 0 and A.CALL_UNO in game.legal_actions(0)
    assert A.catch(0) in game.legal_actions(1)


def test_drawing_clears_uno_state():
    game = pos(["R1 Y3", "R2 G3 B4", "Y4 Y5 Y6"], "R7")
    game.apply(0, A.play(c("R1"), uno=True))
    game.apply(1, A.play(c("R2")))
    game.apply(2, A.DRAW)
    if game.phase is Phase.DRAWN:
        game.apply(2, A.KEEP)
    game.apply(0, A.DRAW)  # player 0 draws: two cards again, no longer "UNO"
    assert not game.uno_called(0)
