"""RULES.md section 8, multi_play: several cards of one rank in one play."""

import pytest
from helpers import assert_conserved, c, cs, drew, of_kind, pos, refused

from unoplay import wire
from unoplay.game import actions as A
from unoplay.game.cards import Colour
from unoplay.game.errors import Reason
from unoplay.game.events import EventKind as E
from unoplay.game.rules import RuleSet
from unoplay.game.view import Phase

SAME_RANK = RuleSet(multi_play="same_rank")
IDENTICAL = RuleSet(multi_play="identical")


def plays_of(game, seat):
    return {
        (a.card, a.extra, a.colour) for a in game.legal_actions(seat) if a.kind is A.ActionKind.PLAY
    }


def test_same_rank_lays_numbers_of_several_colours_and_the_named_one_stays():
    game = pos(["R7 B7 G7 Y1", "G2 G3", "Y4 Y5"], "R3", rules=SAME_RANK)
    events = game.apply(0, A.play(c("R7"), Colour.BLUE, extra=(c("B7"), c("G7"))))
    assert game.hand(0) == (c("Y1"),)
    assert game.top_card == c("B7") and game.colour == Colour.BLUE  # the named colour on top
    played = of_kind(events, E.PLAYED)
    assert len(played) == 1 and set(played[0].cards) == set(cs("R7 B7 G7"))
    assert played[0].cards[-1] == c("B7")
    assert game.current == 1
    assert_conserved(game)


def test_legal_actions_list_each_set_once_with_each_colour_it_may_leave():
    game = pos(["R7 B7 Y1", "G2 G3", "Y4 Y5"], "R3", rules=SAME_RANK)
    plays = plays_of(game, 0)
    # R7 alone; R7+B7 leaving red or blue; B7 cannot lead (blue on red 3), Y1 does not fit.
    assert plays == {
        (c("R7"), (), -1),
        (c("R7"), (c("B7"),), Colour.RED),
        (c("R7"), (c("B7"),), Colour.BLUE),
    }
    # Both lead on a 7: the pair is listed once, under the lower id.
    game = pos(["R7 B7 Y1", "G2 G3", "Y4 Y5"], "G7", rules=SAME_RANK)
    pairs = [p for p in plays_of(game, 0) if p[1]]
    assert len(pairs) == 2 and {p[0] for p in pairs} == {min(cs("R7 B7"))}


def test_the_first_card_must_be_playable_and_the_colour_one_of_those_played():
    game = pos(["R7 B7 Y1", "G2 G3", "Y4 Y5"], "R3", rules=SAME_RANK)
    refused(game, 0, A.play(c("B7"), Colour.RED, extra=(c("R7"),)), Reason.DOES_NOT_MATCH)
    refused(game, 0, A.play(c("R7"), extra=(c("B7"),)), Reason.COLOUR_MISSING)
    refused(game, 0, A.play(c("R7"), Colour.GREEN, extra=(c("B7"),)), Reason.COLOUR_NOT_PLAYED)
    refused(game, 0, A.play(c("R7"), extra=(c("Y1"),)), Reason.CARDS_DO_NOT_GO_TOGETHER)
    refused(game, 0, A.play(c("R7"), extra=(c("G7"),)), Reason.CARD_NOT_IN_HAND)
    refused(
        game,
        0,
        A.play(c("R7"), Colour.RED, extra=(c("B7"), c("B7"))),
        Reason.CARDS_DO_NOT_GO_TOGETHER,
    )


def test_identical_allows_only_copies_of_one_card():
    game = pos(["R7 R7#1 B7 Y1", "G2 G3", "Y4 Y5"], "R3", rules=IDENTICAL)
    refused(
        game, 0, A.play(c("R7"), Colour.BLUE, extra=(c("B7"),)), Reason.CARDS_DO_NOT_GO_TOGETHER
    )
    assert (c("R7"), (c("R7#1"),), -1) in plays_of(game, 0)
    game.apply(0, A.play(c("R7"), extra=(c("R7#1"),)))  # same colour: no colour to name
    assert game.colour == Colour.RED and len(game.hand(0)) == 2


def test_off_refuses_several_cards():
    game = pos(["R7 B7 Y1", "G2 G3", "Y4 Y5"], "R3")
    refused(game, 0, A.play(c("R7"), Colour.BLUE, extra=(c("B7"),)), Reason.MULTI_PLAY_OFF)


@pytest.mark.parametrize(
    "skips, players, nxt",
    [
        (2, 4, 3),  # skip 1 and 2
        (3, 4, 0),  # skip 1, 2 and 3: the player plays again
        (2, 3, 0),  # k = other players: back to the player
        (3, 3, 1),  # k > other players: round the table, the player too is skipped once
        (2, 2, 1),  # two players: the other, then the player; the other plays
    ],
)
def test_k_skips_skip_the_next_k_players_round_the_table(skips, players, nxt):
    cards = ["RS", "RS#1", "BS"][:skips]
    hands = [" ".join(cards + ["Y1"])] + ["G2 G3", "B4 B5", "Y4 Y5"][: players - 1]
    game = pos(hands, "R3", rules=SAME_RANK)
    colour = Colour.RED if len({x[0] for x in cards}) > 1 else None
    events = game.apply(0, A.play(c(cards[0]), colour, extra=tuple(cs(" ".join(cards[1:])))))
    skipped = [e.player for e in of_kind(events, E.SKIPPED)]
    assert skipped == [i % players for i in range(1, skips + 1)]
    assert game.current == nxt


def test_two_reverses_keep_the_direction_and_three_turn_it():
    game = pos(["RR RR#1 Y1", "G2 G3", "B4 B5", "Y4 Y5"], "R3", rules=SAME_RANK)
    game.apply(0, A.play(c("RR"), extra=(c("RR#1"),)))
    assert game.direction == 1 and game.current == 1
    game = pos(["RR RR#1 BR Y1", "G2 G3", "B4 B5", "Y4 Y5"], "R3", rules=SAME_RANK)
    game.apply(0, A.play(c("RR"), Colour.RED, extra=cs("RR#1 BR")))
    assert game.direction == -1 and game.current == 3


def test_draw_twos_add_up_and_wild_draw_fours_are_judged_as_one():
    game = pos(["R+2 B+2 Y1", "G2 G3", "B4 B5"], "R3", rules=SAME_RANK)
    events = game.apply(0, A.play(c("R+2"), Colour.BLUE, extra=(c("B+2"),)))
    assert drew(events, 1) == 4 and game.current == 2
    game = pos(["W+4 W+4#1 Y1", "G2 G3", "B4 B5"], "R3", rules=SAME_RANK)
    game.apply(0, A.play(c("W+4"), Colour.GREEN, extra=(c("W+4#1"),)))
    assert game.phase is Phase.PENALTY and game.pending_penalty == 8
    events = game.apply(1, A.CHALLENGE)  # not guilty: player 0 held no red card
    assert drew(events, 1) == 10 and game.current == 2


def test_stacked_draw_twos_answer_a_pending_penalty_together():
    rules = RuleSet(multi_play="same_rank", stacking="draw_two")
    game = pos(["R+2 Y3 Y4", "B+2 G+2 G4", "Y5 Y6 Y7"], "R7", rules=rules)
    game.apply(0, A.play(c("R+2")))
    game.apply(1, A.play(c("B+2"), Colour.GREEN, extra=(c("G+2"),)))
    assert game.current == 2 and game.pending_penalty == 6 and game.colour == Colour.GREEN


def test_jump_in_drawn_card_and_deflect_are_one_card():
    rules = RuleSet(multi_play="same_rank", jump_in=True, reverse_deflects_draw=True)
    game = pos(["G2 G3", "R3#1 B3 Y1", "Y4 Y5"], "R3", rules=rules)
    refused(game, 1, A.play(c("R3#1"), Colour.RED, extra=(c("B3"),)), Reason.ONE_CARD_ONLY)
    assert A.play(c("R3#1")) in game.legal_actions(1)  # the single jump-in is offered
    game = pos(["R+2 Y3 Y4", "RR RR#1 G4", "Y5 Y6 Y7"], "R7", rules=rules)
    game.apply(0, A.play(c("R+2")))
    refused(game, 1, A.play(c("RR"), extra=(c("RR#1"),)), Reason.ONE_CARD_ONLY)


def test_uno_with_a_multi_play_that_leaves_one_card():
    game = pos(["R7 B7 Y1", "G2 G3", "Y4 Y5"], "R3", rules=SAME_RANK)
    assert A.play(c("R7"), Colour.BLUE, True, extra=(c("B7"),)) in game.legal_actions(0)
    refused(game, 0, A.play(c("R7"), uno=True), Reason.UNO_NOT_NEEDED)  # two would be left
    game.apply(0, A.play(c("R7"), Colour.BLUE, extra=(c("B7"),)))  # no call: catchable
    assert game.catchable == 0


def test_going_out_on_several_cards_scores_the_round():
    game = pos(["R7 B7", "G2 G3", "Y4 Y5"], "R3", rules=SAME_RANK.replace(target_score=0))
    game.apply(0, A.play(c("R7"), Colour.RED, extra=(c("B7"),)))
    assert game.is_round_over and game.round_winner == 0


def test_multi_play_ids_round_trip_on_the_wire():
    action = A.play(c("R7"), Colour.BLUE, True, extra=cs("B7 G7"))
    ident = wire.action_id(action)
    assert 20000 <= ident < 3_100_000
    assert wire.action_from_id(ident) == action
    assert wire.action_from_pb(wire.action_pb(action)) == action
    assert wire.action_from_id(ident + 11 * 2 * 5 * 256 * 200) is None  # no such card


def test_a_hoarded_hand_lists_its_largest_sets_and_at_most_the_cap():
    """A hand of dozens of cards of one rank holds thousands of sets: the list
    keeps each lead's largest set and stops at MAX_LISTED_MULTI_PLAYS; every
    other set is still legal spelled out (RULES.md section 8, multi_play)."""
    from unoplay.game.house import MAX_LISTED_MULTI_PLAYS

    fives = "R5 R5#1 Y5 Y5#1 G5 G5#1 B5 B5#1"
    sixes = "R6 R6#1 Y6 Y6#1 G6 G6#1 B6 B6#1"
    game = pos([f"{fives} {sixes} Y1", "G2 G3", "Y4 Y8"], "R9", rules=SAME_RANK)
    multi = [a for a in game.legal_actions(0) if a.kind is A.ActionKind.PLAY and a.extra]
    assert len(multi) == MAX_LISTED_MULTI_PLAYS
    all_fives = tuple(sorted(cs(fives)[1:]))
    assert any(a.card == c("R5") and a.extra == all_fives for a in multi)  # the largest set
    all_sixes = tuple(sorted(cs(sixes)[1:]))
    assert any(a.card == c("R6") and a.extra == all_sixes for a in multi)
    listed = {(a.card, a.extra) for a in multi}
    unlisted = (c("R5"), tuple(sorted(cs("Y5 G5#1 B5 B5#1 R5#1"))))
    assert unlisted not in listed
    game.apply(0, A.play(unlisted[0], Colour.BLUE, extra=unlisted[1]))  # still legal
    assert game.top_card in cs("B5 B5#1") and len(game.hand(0)) == 17 - 6
