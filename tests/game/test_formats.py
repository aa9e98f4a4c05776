"""RULES.md section 9: game formats (elimination, teams, challenge tournament)."""

import random

import pytest
from helpers import assert_conserved, c, of_kind, pos, refused

from unoplay.game import actions as A
from unoplay.game.engine import GameState
from unoplay.game.errors import Reason
from unoplay.game.events import EventKind as E
from unoplay.game.rules import RuleError, RuleSet
from unoplay.game.view import Phase

ELIMINATION = RuleSet(format="elimination", target_score=0)
TOURNAMENT = RuleSet(format="tournament", scoring="penalty", target_score=100)


# ------------------------------------------------------------------ elimination


def test_elimination_play_goes_on_without_the_player_who_went_out():
    game = pos(["R1", "R2 G5", "R3 B7", "Y9 B9"], "R5", rules=ELIMINATION)
    events = game.apply(0, A.play(c("R1")))
    assert [(e.player, e.value) for e in of_kind(events, E.PLAYER_OUT)] == [(0, 1)]
    assert not game.is_round_over and game.current == 1
    assert game.view(2).out_seats == (0,)
    assert game.legal_actions(0) == []
    refused(game, 0, A.DRAW, Reason.PLAYER_OUT)
    game.apply(1, A.play(c("R2")))
    game.apply(2, A.play(c("R3")))
    game.apply(3, A.DRAW)  # draws the top of the pile; the turn then skips seat 0
    if game.phase is Phase.DRAWN:
        game.apply(3, A.KEEP)
    assert game.current == 1
    assert_conserved(game)


def test_elimination_turn_order_skips_players_out():
    game = pos(["", "RS G5", "R3 B7", "Y9 R9"], "R5", rules=ELIMINATION, out_seats=(0,), current=3)
    game.apply(3, A.play(c("R9")))
    assert game.current == 1  # seat 0 is out
    events = game.apply(1, A.play(c("RS")))
    assert [e.player for e in of_kind(events, E.SKIPPED)] == [2] and game.current == 3


def test_elimination_ends_when_one_player_is_left_who_loses():
    game = pos(["", "R2", "R3 B7", "R7 Y9"], "R5", rules=ELIMINATION, out_seats=(0,), current=1)
    events = game.apply(1, A.play(c("R2")))
    assert [(e.player, e.value) for e in of_kind(events, E.PLAYER_OUT)] == [(1, 2)]
    assert not game.is_round_over and game.current == 2  # two players left
    game.apply(2, A.play(c("R3"), uno=True))
    game.apply(3, A.play(c("R7")))
    events = game.apply(2, A.play(c("B7")))
    assert game.is_game_over
    outs = [(e.player, e.value) for e in of_kind(events, E.PLAYER_OUT)]
    assert outs == [(2, 3), (3, 4)]  # seat 3, left holding cards, loses
    assert game.view(0).out_seats == (0, 1, 2, 3)
    assert game.game_winners == (0,) and game.round_winner == 0
    assert game.scores == (0, 0, 0, 0)


def test_elimination_needs_a_single_round():
    with pytest.raises(RuleError, match=r"elimination.*target_score=0"):
        RuleSet(format="elimination")


@pytest.mark.parametrize("seed", range(8))
def test_elimination_from_a_deal_ranks_every_player(seed):
    game, _ = GameState.new(5, ELIMINATION, seed=seed)
    rng = random.Random(seed)
    while not game.is_round_over:
        seat = game.current
        game.apply(seat, rng.choice(game.legal_actions(seat)))
        assert_conserved(game)
    order = game.view(0).out_seats
    assert sorted(order) == list(range(5)) and game.game_winners == (order[0],)


# ------------------------------------------------------------------ teams


def test_teams_winner_takes_scores_the_opponents_hands_for_both_partners():
    rules = RuleSet(format="teams")
    # Seats 0 and 2 are partners, as are 1 and 3.
    game = pos(["R1", "R9 G5", "R8 B7", "RS"], "R5", rules=rules)
    events = game.apply(0, A.play(c("R1")))
    assert game.is_round_over
    opponents = (9 + 5) + 20  # seats 1 and 3; the partner's 8 + 7 do not count
    assert game.scores == (opponents, 0, opponents, 0)
    assert of_kind(events, E.ROUND_OVER)[0].value == opponents


def test_teams_penalty_scoring_adds_each_teams_hands():
    rules = RuleSet(format="teams", scoring="penalty", target_score=30)
    game = pos(["R1", "R9 G5", "R8 B7", "RS"], "R5", rules=rules)
    game.apply(0, A.play(c("R1")))
    assert game.scores == (15, 34, 15, 34)
    assert game.is_game_over and game.game_winners == (0, 2)  # the lowest team wins


@pytest.mark.parametrize("players", [2, 3, 5, 7, 9, 10])
def test_teams_need_four_six_or_eight_players(players):
    with pytest.raises(RuleError, match="4, 6 or 8"):
        GameState.new(players, RuleSet(format="teams"), seed=1)


# ------------------------------------------------------------------ tournament


def test_tournament_puts_out_a_player_who_reaches_the_target_and_deals_without_them():
    game = pos(["R1", "R9 G5", "R8 B7", "W"], "R5", rules=TOURNAMENT, scores=[0, 10, 50, 60])
    events = game.apply(0, A.play(c("R1")))
    # Penalty scoring: 14, 15 and 50 points; seat 3 (110) is out in 4th place.
    assert game.scores == (0, 24, 65, 110)
    assert [(e.player, e.value) for e in of_kind(events, E.PLAYER_OUT)] == [(3, 4)]
    assert game.phase is Phase.ROUND_OVER
    events = game.next_round()
    assert game.hand(3) == () and len(game.hand(0)) == 7
    assert {e.player for e in of_kind(events, E.HAND_DEALT)} == {0, 1, 2}
    assert game.view(0).out_seats == (3,) and game.legal_actions(3) == []
    assert game.current != 3
    assert_conserved(game)


def test_tournament_two_left_play_the_two_player_rules_and_the_last_one_wins():
    game = pos(
        ["RR R4", "R9 B5", "", ""],
        "R5",
        rules=TOURNAMENT,
        out_seats=(3, 2),
        scores=[40, 95, 120, 130],
    )
    game.apply(0, A.play(c("RR"), uno=True))  # two in play: the Reverse acts as a Skip
    assert game.current == 0
    events = game.apply(0, A.play(c("R4")))
    assert game.scores == (40, 95 + 14, 120, 130)  # R9 + B5
    assert [(e.player, e.value) for e in of_kind(events, E.PLAYER_OUT)] == [(1, 2)]
    assert game.is_game_over and game.game_winners == (0,)


def test_tournament_several_over_the_target_go_out_highest_first():
    game = pos(["R1", "R9 G5", "R8 B7"], "R5", rules=TOURNAMENT, scores=[99, 90, 90])
    events = game.apply(0, A.play(c("R1")))  # 99, 104, 105: only seat 0 stays under
    assert [(e.player, e.value) for e in of_kind(events, E.PLAYER_OUT)] == [(2, 3), (1, 2)]
    assert game.is_game_over and game.game_winners == (0,)


def test_tournament_needs_penalty_scoring_and_a_target():
    with pytest.raises(RuleError, match="scoring=penalty"):
        RuleSet(format="tournament")
    with pytest.raises(RuleError, match="target_score above 0"):
        RuleSet(format="tournament", scoring="penalty", target_score=0)


@pytest.mark.parametrize("seed", range(4))
def test_tournament_from_a_deal_ends_with_one_winner(seed):
    rules = RuleSet(format="tournament", scoring="penalty", target_score=60)
    game, _ = GameState.new(4, rules, seed=seed)
    rng = random.Random(seed)
    rounds = 0
    while True:
        while not game.is_round_over:
            seat = game.current
            game.apply(seat, rng.choice(game.legal_actions(seat)))
        rounds += 1
        if game.is_game_over:
            break
        game.next_round()
        assert_conserved(game)
    out = game.view(0).out_seats
    assert len(game.game_winners) >= 1 and not set(out) & set(game.game_winners)
    assert sorted(out + game.game_winners) == [0, 1, 2, 3]
