"""RULES.md section 8: house rules as options, crafted positions, exact outcomes."""

import pytest
from helpers import assert_conserved, c, cs, drew, of_kind, pos, refused, snapshot

from unoplay.game import actions as A
from unoplay.game.cards import Colour
from unoplay.game.engine import GameState
from unoplay.game.errors import IllegalAction, Reason
from unoplay.game.events import EventKind as E
from unoplay.game.events import visible
from unoplay.game.rules import PRESETS, RuleError, RuleSet
from unoplay.game.view import Phase

STACK_24 = RuleSet(stacking="plus_four_over_two")


# ------------------------------------------------------------------ stacking


def test_stacking_draw_two_on_draw_two_passes_the_sum_on():
    game = pos(["R+2 Y3 Y4", "B+2 G3 G4", "Y5 Y6 Y7"], "R7", rules=RuleSet(stacking="draw_two"))
    game.apply(0, A.play(c("R+2")))
    assert game.phase is Phase.PENALTY and game.current == 1 and game.pending_penalty == 2
    assert A.play(c("B+2")) in game.legal_actions(1)
    game.apply(1, A.play(c("B+2")))
    assert game.current == 2 and game.pending_penalty == 4
    events = game.apply(2, A.ACCEPT)  # cannot answer: draws it all and loses the turn
    assert drew(events, 2) == 4 and game.current == 0 and game.pending_penalty == 0
    assert_conserved(game)


def test_stacking_levels_which_card_answers_which():
    # draw_two: no +4 on +2; plus_four_over_two: +4 on +2 and +4 on +4 but never +2 on +4.
    game = pos(["R+2 Y3 Y4", "W+4 G3 G4", "Y5 Y6 Y7"], "R7", rules=RuleSet(stacking="draw_two"))
    game.apply(0, A.play(c("R+2")))
    assert not [a for a in game.legal_actions(1) if a.kind is A.ActionKind.PLAY]
    game = pos(["R+2 Y3 Y4", "W+4 G3 G4", "Y+2 Y6 W+4#1"], "R7", rules=STACK_24)
    game.apply(0, A.play(c("R+2")))
    game.apply(1, A.play(c("W+4"), Colour.YELLOW))
    assert game.pending_penalty == 6 and game.current == 2
    legal = game.legal_actions(2)
    assert A.play(c("Y+2")) not in legal  # never +2 on +4
    assert A.play(c("W+4#1"), Colour.RED) in legal  # +4 on +4
    assert A.CHALLENGE in legal  # the Wild Draw Four on top can be challenged
    refused(game, 2, A.play(c("Y+2")), Reason.PENALTY_PENDING)


def test_stacking_any_allows_draw_two_of_the_named_colour_on_wild_draw_four():
    game = pos(["W+4 Y3 Y4", "B+2 G+2 G4", "Y5 Y6 Y7"], "R7", rules=RuleSet(stacking="any"))
    game.apply(0, A.play(c("W+4"), Colour.GREEN))
    legal = game.legal_actions(1)
    assert A.play(c("G+2")) in legal and A.play(c("B+2")) not in legal
    game.apply(1, A.play(c("G+2")))
    assert game.pending_penalty == 6 and game.current == 2


def test_plain_wild_cannot_be_played_while_a_penalty_is_pending():
    game = pos(["R+2 Y3 Y4", "W G3 G4", "Y5 Y6 Y7"], "R7", rules=STACK_24)
    game.apply(0, A.play(c("R+2")))
    refused(game, 1, A.play(c("W"), Colour.RED), Reason.PENALTY_PENDING)


def test_challenge_of_a_stacked_wild_draw_four_guilty_player_draws_the_whole_stack():
    game = pos(["R+2 Y3 Y4", "W+4 B3 R4", "Y5 Y6 Y7"], "R7", rules=STACK_24)
    game.apply(0, A.play(c("R+2")))
    game.apply(1, A.play(c("W+4"), Colour.YELLOW))  # held the red 4: guilty
    events = game.apply(2, A.CHALLENGE)
    assert drew(events, 1) == 6 and drew(events, 2) == 0
    assert game.pending_penalty == 0 and game.current == 0


def test_stacking_with_two_players_bounces_between_them():
    game = pos(["R+2 Y3 Y4", "B+2 G3 G4"], "R7", rules=STACK_24)
    game.apply(0, A.play(c("R+2")))
    game.apply(1, A.play(c("B+2")))
    assert game.current == 0 and game.pending_penalty == 4
    events = game.apply(0, A.ACCEPT)
    assert drew(events, 0) == 4 and game.current == 1


def test_draw_two_starter_can_be_answered_with_stacking():
    from helpers import number_hands, stacked_deck

    hands = number_hands(3, avoid=cs("Y+2 B+2"))
    hands[1][0] = c("B+2")
    deck = stacked_deck(hands, c("Y+2"), dealer=0)
    game, _ = GameState.new(3, STACK_24, seed=1, dealer=0, deck=deck)
    assert game.phase is Phase.PENALTY and game.current == 1 and game.pending_penalty == 2
    game.apply(1, A.play(c("B+2")))
    assert game.current == 2 and game.pending_penalty == 4


def test_last_card_on_a_stack_next_player_draws_it_all():
    game = pos(
        ["R+2 Y3 Y4", "B+2", "Y5 Y6 Y7"], "R7", rules=STACK_24, uno_called=[False, True, False]
    )
    game.apply(0, A.play(c("R+2")))
    events = game.apply(1, A.play(c("B+2")))
    assert game.is_round_over and game.round_winner == 1 and drew(events, 2) == 4


# ------------------------------------------------------------------ deflect


def test_reverse_of_the_colour_in_force_sends_the_penalty_back_and_back_again():
    rules = RuleSet(reverse_deflects_draw=True)
    game = pos(["R+2 RR#1 Y4", "RR G3 G4", "Y5 Y6 Y7"], "R7", rules=rules)
    game.apply(0, A.play(c("R+2")))
    assert game.phase is Phase.PENALTY and game.current == 1
    game.apply(1, A.play(c("RR")))
    assert game.current == 0 and game.pending_penalty == 2 and game.direction == -1
    game.apply(0, A.play(c("RR#1")))  # deflects again
    assert game.current == 1 and game.direction == 1
    events = game.apply(1, A.ACCEPT)
    assert drew(events, 1) == 2 and game.current == 2


def test_reverse_of_another_colour_does_not_deflect():
    game = pos(
        ["R+2 Y3 Y4", "BR G3 G4", "Y5 Y6 Y7"], "R7", rules=RuleSet(reverse_deflects_draw=True)
    )
    game.apply(0, A.play(c("R+2")))
    refused(game, 1, A.play(c("BR")), Reason.PENALTY_PENDING)


def test_deflected_wild_draw_four_cannot_be_challenged_by_its_player():
    game = pos(
        ["W+4 Y3 Y4", "BR G3 G4", "Y5 Y6 Y7"], "R7", rules=RuleSet(reverse_deflects_draw=True)
    )
    game.apply(0, A.play(c("W+4"), Colour.BLUE))
    game.apply(1, A.play(c("BR")))
    assert game.current == 0 and A.CHALLENGE not in game.legal_actions(0)
    assert drew(game.apply(0, A.ACCEPT), 0) == 4


# ------------------------------------------------------------------ jump-in

JUMP = RuleSet(jump_in=True)


def test_jump_in_with_an_identical_card_out_of_turn_play_continues_from_the_jumper():
    game = pos(["R5 Y3 Y4", "G2 G3 G4", "Y5 Y6 Y7", "R5#1 B1 B2"], "R7", rules=JUMP)
    game.apply(0, A.play(c("R5")))
    assert A.play(c("R5#1")) in game.legal_actions(3)
    refused(game, 3, A.play(c("B1")), Reason.NOT_YOUR_TURN)
    events = game.apply(3, A.play(c("R5#1")))
    assert of_kind(events, E.PLAYED)[0].value == 1
    assert game.current == 0  # seats 1 and 2 lost their chance


def test_jump_in_on_a_skip_skips_the_next_two():
    game = pos(["RS Y3 Y4", "G2 G3 G4", "Y5 Y6 Y7", "B8 B9", "RS#1 B1 B2"], "R7", rules=JUMP)
    game.apply(0, A.play(c("RS")))
    game.apply(4, A.play(c("RS#1")))
    assert game.current == 2  # seats 0 and 1 skipped from the jumper (seat 4)


def test_jump_in_on_a_reverse_keeps_the_direction():
    game = pos(["RR Y3 Y4", "RR#1 G3 G4", "Y5 Y6 Y7", "B1 B2"], "R7", rules=JUMP)
    game.apply(0, A.play(c("RR")))
    assert game.direction == -1 and game.current == 3
    game.apply(1, A.play(c("RR#1")))  # seat 1 jumps in out of turn
    assert game.direction == -1 and game.current == 0


def test_jump_in_on_a_draw_two_passes_the_sum_to_the_jumpers_next():
    game = pos(["R+2 Y3 Y4", "G2 G3 G4", "Y5 Y6 Y7", "R+2#1 B1 B2"], "R7", rules=JUMP)
    game.apply(0, A.play(c("R+2")))
    assert game.phase is Phase.PENALTY and game.current == 1 and game.pending_penalty == 2
    game.apply(3, A.play(c("R+2#1")))
    assert game.current == 0 and game.pending_penalty == 4
    assert drew(game.apply(0, A.ACCEPT), 0) == 4


def test_jump_in_on_a_wild_the_jumpers_colour_counts():
    game = pos(["W Y3 Y4", "G2 G3 G4", "W#1 Y6 Y7"], "R7", rules=JUMP)
    game.apply(0, A.play(c("W"), Colour.BLUE))
    game.apply(2, A.play(c("W#1"), Colour.GREEN))
    assert game.colour == Colour.GREEN and game.current == 0


def test_not_identical_no_jump_in():
    game = pos(["R5 Y3 Y4", "G2 G3 G4", "B5 Y6 Y7"], "R7", rules=JUMP)
    game.apply(0, A.play(c("R5")))
    refused(game, 2, A.play(c("B5")), Reason.NOT_YOUR_TURN)


# ------------------------------------------------------------------ seven_zero / swap_on_five


def test_seven_swaps_hands_with_the_chosen_player_and_each_sees_only_their_new_hand():
    game = pos(["R7 Y3 Y4", "G2 G3", "Y5 Y6 Y7 Y8"], "R1", rules=RuleSet(seven_zero=True))
    refused(game, 0, A.play(c("R7")), Reason.TARGET_MISSING)
    refused(game, 0, A.play(c("R7"), target=0), Reason.BAD_TARGET)
    assert A.play(c("R7"), target=2) in game.legal_actions(0)
    events = game.apply(0, A.play(c("R7"), target=2))
    assert sorted(game.hand(0)) == sorted(cs("Y5 Y6 Y7 Y8"))
    assert sorted(game.hand(2)) == sorted(cs("Y3 Y4"))
    assert of_kind(events, E.HANDS_SWAPPED)[0].target == 2
    for seat in range(3):
        received = of_kind(visible(events, seat), E.HAND_RECEIVED)
        assert [e.player for e in received] == ([seat] if seat in (0, 2) else [])
    assert game.current == 1


def test_zero_passes_every_hand_one_seat_in_the_direction_of_play():
    game = pos(["R0 Y3 Y4", "G2 G3", "Y5 Y6 Y7 Y8"], "R1", rules=RuleSet(seven_zero=True))
    game.apply(0, A.play(c("R0")))
    assert sorted(game.hand(1)) == sorted(cs("Y3 Y4"))
    assert sorted(game.hand(2)) == sorted(cs("G2 G3"))
    assert sorted(game.hand(0)) == sorted(cs("Y5 Y6 Y7 Y8"))


def test_swap_changes_who_must_call_uno_one_card_after_a_swap_is_safe():
    game = pos(
        ["R7 Y3", "G2", "Y5 Y6 Y7"],
        "R1",
        rules=RuleSet(seven_zero=True),
        uno_called=[False, True, False],
    )
    game.apply(0, A.play(c("R7"), target=2))  # 0 now holds 3 cards, 2 holds the yellow 3
    assert len(game.hand(2)) == 1 and game.uno_called(2)
    assert game.catchable == -1 and not any(
        a.kind is A.ActionKind.CATCH for a in game.legal_actions(1)
    )


def test_last_card_seven_goes_out_without_a_swap():
    game = pos(
        ["R7", "G2 G3", "Y5 Y6"],
        "R1",
        rules=RuleSet(seven_zero=True),
        uno_called=[True, False, False],
    )
    assert A.play(c("R7")) in game.legal_actions(0)
    game.apply(0, A.play(c("R7")))
    assert game.is_round_over and game.round_winner == 0


def test_swap_on_five():
    game = pos(["R5 Y3 Y4", "G2 G3", "Y5 Y6 Y7 Y8"], "R1", rules=RuleSet(swap_on_five=True))
    refused(game, 0, A.play(c("R5")), Reason.TARGET_MISSING)
    game.apply(0, A.play(c("R5"), target=1))
    assert sorted(game.hand(0)) == sorted(cs("G2 G3"))


# ------------------------------------------------------------------ number_first_and_last

NUMBERS = RuleSet(number_first_and_last=True)


def test_first_card_of_a_round_must_be_a_number():
    from helpers import number_hands, stacked_deck

    hands = number_hands(3, avoid=cs("R7 RS"))
    hands[1][0] = c("RS")
    deck = stacked_deck(hands, c("R7"), dealer=0)
    game, _ = GameState.new(3, NUMBERS, seed=1, dealer=0, deck=deck)
    refused(game, 1, A.play(c("RS")), Reason.NUMBER_FIRST)
    assert A.play(c("RS")) not in game.legal_actions(1)


def test_first_player_without_a_number_to_lead_draws_two_and_loses_the_turn():
    from helpers import stacked_deck

    hands = [cs("B1 B2 B3 B4 B5 B6 B8"), cs("RS GS BS W Y+2 G+2 B+2"), cs("G1 G2 G3 G4 G5 G6 G8")]
    deck = stacked_deck(hands, c("R7"), dealer=0)
    game, _ = GameState.new(3, NUMBERS, seed=1, dealer=0, deck=deck)
    assert game.legal_actions(1) == [A.DRAW]
    events = game.apply(1, A.DRAW)
    assert drew(events, 1) == 2 and game.current == 2


def test_last_card_not_a_number_draws_one_and_must_call_again():
    game = pos(["RS", "G2 G3", "Y5 Y6"], "R1", rules=NUMBERS, uno_called=[True, False, False])
    events = game.apply(0, A.play(c("RS")))
    assert not game.is_round_over and len(game.hand(0)) == 1
    assert of_kind(events, E.LAST_CARD_NOT_NUMBER)
    assert game.catchable == 0 and game.current == 2  # the Skip still skipped seat 1


@pytest.mark.parametrize("strict", [False, True])
def test_a_last_card_that_draws_one_may_carry_the_call_again(strict):
    # The call made with the play counts for the card drawn: nobody can
    # catch them, under uno_call_strict too (where a call on its own is refused).
    rules = RuleSet(number_first_and_last=True, uno_call_strict=strict)
    game = pos(["RS", "G2 G3", "Y5 Y6"], "R1", rules=rules, uno_called=[True, False, False])
    assert A.play(c("RS"), uno=True) in game.legal_actions(0)
    assert A.play(c("RS")) in game.legal_actions(0)
    events = game.apply(0, A.play(c("RS"), uno=True))
    assert len(game.hand(0)) == 1 and of_kind(events, E.UNO_CALLED)[0].player == 0
    assert game.catchable == -1 and game.uno_called(0)
    refused(game, 2, A.catch(0), Reason.ALREADY_CALLED)
    # a number card does not draw: no call rides on going out with it
    game = pos(["R5", "G2 G3", "Y5 Y6"], "R1", rules=rules, uno_called=[True, False, False])
    assert A.play(c("R5"), uno=True) not in game.legal_actions(0)
    refused(game, 0, A.play(c("R5"), uno=True), Reason.UNO_NOT_NEEDED)


def test_a_last_card_that_draws_one_without_the_call_is_caught_under_strict_calls():
    rules = RuleSet(number_first_and_last=True, uno_call_strict=True)
    game = pos(["RS", "G2 G3", "Y5 Y6"], "R1", rules=rules, uno_called=[True, False, False])
    game.apply(0, A.play(c("RS")))
    refused(game, 0, A.CALL_UNO, Reason.UNO_CALL_STRICT)
    assert drew(game.apply(2, A.catch(0)), 0) == 2


def test_a_challenged_last_wild_draw_four_shows_the_hand_it_left_not_the_card_drawn():
    # Section 4: the hand as the Wild Draw Four left it, which here is empty;
    # the card drawn for going out on a wild (section 8) is not shown.
    game = pos(["W+4", "R2 G3 B4", "Y4 Y5 Y6"], "R7", rules=NUMBERS)
    game.apply(0, A.play(c("W+4"), Colour.BLUE))
    drawn = game.hand(0)
    assert len(drawn) == 1
    events = game.apply(1, A.CHALLENGE)
    assert of_kind(events, E.HAND_SHOWN)[0].cards == ()
    assert of_kind(events, E.CHALLENGED)[0].value == 0  # not guilty: it matched nothing


# ------------------------------------------------------------------ wrong_play_penalty


def test_wrong_play_is_refused_and_costs_a_card():
    game = pos(["G1 Y3", "R2 G3", "Y4 Y5"], "R7", rules=RuleSet(wrong_play_penalty=1))
    with pytest.raises(IllegalAction) as err:
        game.apply(0, A.play(c("G1")))
    assert err.value.reason is Reason.DOES_NOT_MATCH
    assert drew(err.value.events, 0) == 1 and len(game.hand(0)) == 3
    assert game.current == 0  # still their turn
    before = snapshot(game)
    with pytest.raises(IllegalAction) as err:  # not a wrong play: no penalty
        game.apply(1, A.play(c("R2")))
    assert err.value.events == [] and snapshot(game) == before


# ------------------------------------------------------------------ presets and validation


def test_house_preset():
    house = PRESETS["house"]
    assert house.stacking == "plus_four_over_two" and house.jump_in and house.reverse_deflects_draw
    assert house.false_uno_penalty == 2


def test_bad_house_options_are_refused():
    with pytest.raises(RuleError, match="stacking"):
        RuleSet(stacking="sometimes")
    with pytest.raises(RuleError, match="wrong_play_penalty"):
        RuleSet(wrong_play_penalty=11)


# ------------------------------------------------------------------ bots under house rules


def test_greedy_stacks_and_jumps_in_when_it_can():
    from unoplay.game.bots import GreedyBot

    game = pos(["R+2 Y3 Y4", "B+2 G3 G4", "Y5 Y6 Y7", "R+2#1 B1 B2"], "R7", rules=PRESETS["house"])
    game.apply(0, A.play(c("R+2")))
    bot = GreedyBot(seed=1)
    # Seat 3 holds the identical red Draw Two: it jumps in out of turn.
    assert bot.decide(game.view(3), game.legal_actions(3)) == A.play(c("R+2#1"))
    # Seat 1, facing the penalty, stacks its Draw Two instead of accepting.
    assert bot.decide(game.view(1), game.legal_actions(1)) == A.play(c("B+2"))


def test_greedy_swaps_into_the_smallest_hand():
    from unoplay.game.bots import GreedyBot

    game = pos(["R7 Y3 Y4 Y8", "G2 G3", "Y5 Y6 Y7 B1 B2"], "R1", rules=RuleSet(seven_zero=True))
    assert GreedyBot(seed=1).decide(game.view(0), game.legal_actions(0)) == A.play(
        c("R7"), target=1
    )
