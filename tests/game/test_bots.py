"""server/game/bots.py: crafted decisions of the greedy bot, legality of both bots, a match."""

from __future__ import annotations

import re

import pytest
from helpers import c, cs

from unoplay.game import actions as A
from unoplay.game.actions import NONE, ActionKind
from unoplay.game.bots import Bot, GreedyBot, RandomBot
from unoplay.game.cards import Colour
from unoplay.game.engine import GameState
from unoplay.game.registry import BOT_KINDS, make_bot, parse_kind
from unoplay.game.rules import PRESETS, RuleSet, Wd4Restriction
from unoplay.game.search import DEFAULT_ITERATIONS, DEFAULT_TIME_MS, IsmctsBot
from unoplay.game.view import Phase

OUT_OF_TURN = (ActionKind.CATCH, ActionKind.CALL_UNO)


def pos(hands, top, **kw):
    return GameState.from_position([cs(h) for h in hands], c(top), **kw)


def greedy(game, seat):
    return GreedyBot(0).decide(game.view(seat), game.legal_actions(seat))


# ------------------------------------------------------------------ greedy, crafted


def test_greedy_catches_out_of_turn_and_on_its_turn():
    # Seat 1 played down to one card without calling UNO; seat 2 is to move.
    game = pos(["R1 R2 R3", "Y4", "G5 G6", "B7 B8"], "R7", current=2, catchable=1)
    assert greedy(game, 0) == A.catch(1)
    assert greedy(game, 2) == A.catch(1)  # before its own move
    assert greedy(game, 3) == A.catch(1)
    game.apply(0, A.catch(1))
    assert len(game.hand(1)) == 3
    assert greedy(game, 0) is None  # nothing more to do out of turn


def test_greedy_calls_uno_with_the_play():
    game = pos(["R1 R5", "Y4 Y5", "G5 G6"], "R7")
    assert A.play(c("R5"), uno=True) in game.legal_actions(0)
    assert greedy(game, 0) == A.play(c("R5"), uno=True)


def test_greedy_calls_uno_on_its_own_when_catchable():
    game = pos(["R1", "Y4 Y5", "G5 G6"], "R7", current=1, catchable=0)
    assert greedy(game, 0) == A.CALL_UNO
    game.apply(0, A.CALL_UNO)
    assert game.uno_called(0) and greedy(game, 0) is None


def test_greedy_makes_no_false_uno_call():
    game = pos(["R1 R2", "Y4 Y5", "G5 G6"], "R7", current=1, rules=RuleSet(false_uno_penalty=2))
    assert A.CALL_UNO not in game.legal_actions(0)  # never listed: it only costs cards
    assert greedy(game, 0) is None


def test_greedy_prefers_a_non_wild_then_wild_before_wild_draw_four():
    game = pos(["W W+4 R1 G5", "R2 G3", "Y4 Y5"], "R7")
    assert greedy(game, 0) == A.play(c("R1"))
    game = pos(["W+4 W G5 G6", "R2 G3", "Y4 Y5"], "R7")
    assert greedy(game, 0) == A.play(c("W"), Colour.GREEN)
    game = pos(["W+4 B5 B6 G8", "R2 G3", "Y4 Y5"], "R7")
    assert greedy(game, 0) == A.play(c("W+4"), Colour.BLUE)


def test_greedy_sheds_its_main_colour_then_high_points():
    # Colour held most wins over points: blue 3 is played from three blues.
    game = pos(["B3 B4 B5 R9 RS", "R2 G3", "Y4 Y5"], "B9", colour=Colour.BLUE)
    assert greedy(game, 0) == A.play(c("B5"))
    # Within one colour: action card before numbers, higher numbers first.
    game = pos(["R1 R9 RS", "R2 G3 G4", "Y4 Y5"], "R7")
    assert greedy(game, 0) == A.play(c("RS"))
    game = pos(["R1 R9 G2", "R2 G3 G4", "Y4 Y5"], "R7")
    assert greedy(game, 0) == A.play(c("R9"))


def test_greedy_lays_the_most_cards_and_leaves_its_main_colour_under_multi_play():
    rules = RuleSet(multi_play="same_rank")
    game = pos(["R7 B7 G7 B1 B2 Y9", "Y4 Y5 Y6", "G5 G6 G8"], "R3", rules=rules)
    action = greedy(game, 0)
    assert action.card == c("R7") and set(action.extra) == set(cs("B7 G7"))
    assert action.colour == Colour.BLUE  # two blue cards stay in hand


def test_greedy_names_the_colour_it_holds_most():
    game = pos(["W G1 G2 B3", "R2 G3", "Y4 Y5"], "R7")
    assert greedy(game, 0) == A.play(c("W"), Colour.GREEN)
    # A Wild starter waits for the first player to name the colour.
    game = pos(["Y1 Y2 B3 R4", "R2 G3", "Y4 Y5"], "W", colour=NONE, phase=Phase.CHOOSE_COLOUR)
    assert greedy(game, 0) == A.choose_colour(Colour.YELLOW)


def test_greedy_attacks_a_next_player_close_to_going_out():
    hands = ["B7 B8 B9 R7 G+2", "Y4 Y5 Y6", "Y1 Y2"]
    game = pos(hands, "G7")
    assert greedy(game, 0) == A.play(c("B7"))  # no threat: keep to blue
    hands[1] = "Y4"
    game = pos(hands, "G7", uno_called=[False, True, False])
    assert greedy(game, 0) == A.play(c("G+2"))
    game.apply(0, A.play(c("G+2")))
    assert len(game.hand(1)) == 3 and game.current == 2


def test_greedy_attacks_the_next_player_counter_clockwise():
    game = pos(
        ["B7 B8 GS", "Y1 Y2 Y3", "Y4 Y5 Y6", "Y7"],
        "G7",
        direction=-1,
        uno_called=[False, False, False, True],
    )
    assert greedy(game, 0) == A.play(c("GS"))


def test_greedy_attacks_the_next_player_in_play_passing_over_players_out():
    rules = RuleSet(format="elimination", target_score=0)
    game = pos(["RS G7 G8 G9", "", "B7 B8 B9 B1", "Y1"], "R7", rules=rules, out_seats=(1,))
    # Next in play is seat 2 with four cards (seat 1, out, holds none): no attack,
    # so it sheds its main colour rather than the Skip.
    assert greedy(game, 0) == A.play(c("G7"))


def test_greedy_draws_when_nothing_fits():
    game = pos(["B1 Y2", "R2 G3", "Y4 Y5"], "R7")
    assert greedy(game, 0) == A.DRAW


def test_greedy_plays_the_drawn_card_when_it_fits():
    game = pos(["B1 Y2 R5", "R2 G3", "Y4 Y5"], "R7", phase=Phase.DRAWN, drawn_card=c("R5"))
    assert game.legal_actions(0) == [A.play(c("R5")), A.KEEP]
    assert greedy(game, 0) == A.play(c("R5"))
    game = pos(["B1 W", "R2 G3", "Y4 Y5"], "R7", phase=Phase.DRAWN, drawn_card=c("W"))
    assert greedy(game, 0) == A.play(c("W"), Colour.BLUE, uno=True)


def test_greedy_keeps_when_the_drawn_card_is_not_offered():
    game = pos(["B1 Y2 R5", "R2 G3", "Y4 Y5"], "R7", phase=Phase.DRAWN, drawn_card=c("R5"))
    legal = [a for a in game.legal_actions(0) if a.kind is not ActionKind.PLAY]
    assert GreedyBot().decide(game.view(0), legal) == A.KEEP


@pytest.mark.parametrize(
    "offender_hand, expected",
    [
        ("B1 B2 B3 B4", A.CHALLENGE),  # 4 cards left: likely held the colour
        ("B1 B2 B3", A.ACCEPT),
    ],
)
@pytest.mark.parametrize("direction", [1, -1])
def test_greedy_challenges_a_wild_draw_four_by_the_offenders_hand_size(
    offender_hand, expected, direction
):
    offender = 0 if direction == 1 else 2
    hands = ["Y5", "R2 G3", "Y6"]
    hands[offender] = offender_hand
    game = pos(
        hands,
        "W+4",
        colour=Colour.GREEN,
        current=1,
        direction=direction,
        phase=Phase.PENALTY,
        pending=4,
        wd4_by=offender,
    )
    assert greedy(game, 1) == expected
    assert greedy(game, 3 - 1 - offender) is None  # the bystander has nothing to do


def test_greedy_is_deterministic_for_a_seed_and_breaks_colour_ties():
    game = pos(["W G1 B3", "R2 G3", "Y4 Y5"], "R7")
    view, legal = game.view(0), game.legal_actions(0)
    picks = {GreedyBot(seed).decide(view, legal) for seed in range(30)}
    assert picks == {A.play(c("W"), Colour.GREEN), A.play(c("W"), Colour.BLUE)}
    assert GreedyBot(5).decide(view, legal) == GreedyBot(5).decide(view, legal)


# ------------------------------------------------------------------ random bot


def test_random_bot_returns_legal_actions_or_none_out_of_turn():
    for seed in range(20):
        game, _ = GameState.new(3, RuleSet(target_score=0), seed=seed)
        bots = [RandomBot(seed * 3 + s) for s in range(3)]
        nones = 0
        for _ in range(2000):
            if game.is_round_over:
                break
            for seat in range(3):
                legal = game.legal_actions(seat)
                action = bots[seat].decide(game.view(seat), legal)
                if action is None:
                    assert seat != game.current
                    nones += 1
                else:
                    assert action in legal
                    game.apply(seat, action)
                if game.is_round_over:
                    break
        assert game.is_round_over and nones


def test_random_bot_out_of_turn_acts_about_half_the_time():
    game = pos(["R1", "Y4 Y5", "G5 G6"], "R7", current=1, catchable=0)
    bot = RandomBot(1)
    view, legal = game.view(2), game.legal_actions(2)
    picks = [bot.decide(view, legal) for _ in range(1000)]
    assert set(picks) == {None, A.catch(0)}
    assert 400 < picks.count(None) < 600
    assert bot.decide(game.view(2), []) is None


def test_random_bot_never_makes_a_false_uno_call():
    game = pos(["R1 R2", "Y4 Y5", "G5 G6"], "R7", rules=RuleSet(false_uno_penalty=2))
    bot = RandomBot(2)
    for seat in range(3):
        legal = game.legal_actions(seat)
        assert A.CALL_UNO not in legal  # accepted if sent, never listed (RULES.md section 5)
        picks = {bot.decide(game.view(seat), legal) for _ in range(300)}
        assert A.CALL_UNO not in picks


def test_random_bot_on_its_turn_is_uniform_over_legal():
    game = pos(["R1 R2 W", "Y4 Y5", "G5 G6"], "R7")
    legal = game.legal_actions(0)
    bot = RandomBot(3)
    picks = [bot.decide(game.view(0), legal) for _ in range(len(legal) * 300)]
    assert all(200 < picks.count(a) < 400 for a in legal)


# ------------------------------------------------------------------ registry


def test_make_bot_kinds_and_unknown_kind():
    assert set(BOT_KINDS) == {"random", "greedy", "ismcts"}
    for kind, cls in BOT_KINDS.items():
        bot = make_bot(kind, seed=1)
        assert type(bot) is cls and isinstance(bot, Bot) and bot.name == kind
    with pytest.raises(ValueError, match=r"greedy.*ismcts.*random"):
        make_bot("clever")


# ------------------------------------------------------------------ matches


def play_round(game: GameState, bots: list[Bot]) -> int:
    """Play one round with ``bots``: after every action each other seat may act
    out of turn. Checks every decision is legal; returns the winner."""
    n = game.players
    steps = 0
    while not game.is_round_over:
        steps += 1
        assert steps < 20_000, "round did not end"
        seat = game.current
        legal = game.legal_actions(seat)
        action = bots[seat].decide(game.view(seat), legal)
        assert action is not None and action in legal, (seat, action, legal)
        game.apply(seat, action)
        for k in range(1, n + 1):  # the seat that just acted too (it may call UNO)
            if game.is_round_over:
                break
            other = (seat + k) % n
            if other == game.current:
                continue
            legal = game.legal_actions(other)
            action = bots[other].decide(game.view(other), legal)
            if action is not None:
                assert action in legal, (other, action, legal)
                game.apply(other, action)
    return game.round_winner


@pytest.mark.parametrize(
    "rules",
    [
        RuleSet(target_score=0),
        RuleSet(target_score=0, unnamed_wild_keeps_colour=True, uno_call_strict=True),
        RuleSet(
            target_score=0,
            false_uno_penalty=2,
            challenge_success_skips_challenger=False,
            wd4_restriction=Wd4Restriction.ANY_MATCH,
        ),
        RuleSet(target_score=0, multi_play="same_rank", stacking="any", seven_zero=True),
        RuleSet(target_score=0, multi_play="identical", jump_in=True),
    ],
    ids=["official", "unnamed-strict", "false-uno", "multi-same-rank", "multi-identical"],
)
@pytest.mark.parametrize("players", [2, 3, 6])
def test_bots_only_ever_choose_legal_actions(rules, players):
    for seed in range(15):
        game, _ = GameState.new(players, rules, seed=seed)
        kinds = [RandomBot, GreedyBot]  # no false UNO call is ever listed for them
        bots = [kinds[(seat + seed) % len(kinds)](seed + seat) for seat in range(players)]
        assert 0 <= play_round(game, bots) < players


def test_greedy_beats_three_random_bots():
    # Measured: greedy wins 287 of these 300 rounds (0.957); random's share is 0.25.
    rounds = 300
    wins = 0
    for i in range(rounds):
        seat = i % 4
        bots = [GreedyBot(i) if s == seat else RandomBot(4 * i + s) for s in range(4)]
        game, _ = GameState.new(4, RuleSet(target_score=0), seed=i)
        wins += play_round(game, bots) == seat
    assert wins / rounds > 0.80


def test_a_kind_spec_gives_a_search_bot_its_budget_and_refuses_a_bad_one():
    assert parse_kind("greedy") == (GreedyBot, {})
    assert parse_kind("ismcts@80ms") == (IsmctsBot, {"time_ms": 80.0})
    assert parse_kind("ismcts@300") == (IsmctsBot, {"iterations": 300})
    timed = make_bot("ismcts@80ms", rules=PRESETS["house"])
    assert isinstance(timed, IsmctsBot) and timed.time_ms == 80 and timed.iterations is None
    assert timed.rules == PRESETS["house"]
    counted = make_bot("ismcts@300")
    assert counted.iterations == 300 and counted.time_ms is None  # type: ignore[attr-defined]
    capped = make_bot("ismcts@300", max_ms=150)  # a server's cap on any budget
    assert capped.iterations == 300 and capped.time_ms == 150  # type: ignore[attr-defined]
    assert make_bot("ismcts@1000ms", max_ms=150).time_ms == 150  # type: ignore[attr-defined]
    plain = make_bot("ismcts", max_ms=150)  # keeps its default budget, within the cap
    assert (plain.iterations, plain.time_ms) == (DEFAULT_ITERATIONS, DEFAULT_TIME_MS)  # type: ignore[attr-defined]
    assert make_bot("ismcts", max_ms=50).time_ms == 50  # type: ignore[attr-defined]
    assert make_bot("greedy", max_ms=150).name == "greedy"
    for bad, said in [
        ("nope", "unknown bot kind 'nope'; known kinds: greedy, ismcts, random"),
        ("greedy@80ms", "takes no budget"),
        ("ismcts@", "bad budget"),
        ("ismcts@fastms", "bad budget"),
        ("ismcts@0", "bad budget"),
        ("ismcts@-5ms", "bad budget"),
        ("ismcts@1.5", "bad budget"),
        ("ismcts@100001", "bad budget"),
        ("ismcts@nanms", "bad budget"),
        ("ismcts@1.5ms", "bad budget"),  # whole numbers only
        ("ismcts@1e3ms", "bad budget"),
        ("ismcts@1_000", "bad budget"),
        ("ismcts@+5", "bad budget"),
        ("ismcts@ 50ms", "bad budget"),
        ("ismcts@٣ms", "bad budget"),  # digits of another script
        ("ismcts@" + "9" * 5000, "bad budget"),  # beyond what int() reads
    ]:
        with pytest.raises(ValueError, match=re.escape(said)):
            parse_kind(bad)
