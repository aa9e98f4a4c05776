"""Determinisations and the ismcts bot (unoplay.game.search): a sample agrees
with everything the seat sees and places only cards the seat has not seen;
the bot answers legal actions under any rules; play_game drives bots."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from unoplay.game import PRESETS, GameState, RuleSet, make_bot
from unoplay.game.bots import GreedyBot, RandomBot, play_game
from unoplay.game.search import IsmctsBot, determinize


def _positions(rules: RuleSet, players: int, seed: int, count: int):
    """``count`` positions of a random game (each a state in a round)."""
    state, _ = GameState.new(players, rules, seed=f"search-{seed}")
    rng = random.Random(seed)
    for _ in range(count):
        if state.is_game_over:
            return
        if state.is_round_over:
            state.next_round()
        yield state
        seat = state.current
        state.apply(seat, rng.choice(state.legal_actions(seat)))


@pytest.mark.parametrize("preset", ["official", "house"])
@pytest.mark.parametrize("players", [2, 4])
def test_a_determinisation_agrees_with_the_view_and_places_only_unseen_cards(preset, players):
    rules = PRESETS[preset]
    rng = random.Random(0)
    for state in _positions(rules, players, players, 120):
        for seat in range(players):
            view = state.view(seat)
            sample = determinize(view, rules, rng)
            assert sample.view(seat) == view  # everything the seat sees, the same
            assert sorted(
                sample.draw_pile
                + sample.discard_pile
                + sum((sample.hand(s) for s in range(players)), ())
            ) == list(range(108))
            for other in range(players):
                if other != seat:  # no card the seat holds or sees elsewhere
                    assert not set(sample.hand(other)) & (set(view.hand) | {view.top_card})


def test_known_cards_go_to_their_seat_and_hidden_cards_vary():
    state, _ = GameState.new(3, RuleSet(), seed="known")
    view = state.view(0)
    known = state.hand(1)[:2]
    hands = Counter()
    for k in range(20):
        sample = determinize(view, RuleSet(), random.Random(k), known={1: known})
        assert set(known) <= set(sample.hand(1))
        hands[sample.hand(2)] += 1
    assert len(hands) > 1
    with pytest.raises(ValueError, match="seat 1"):
        determinize(view, RuleSet(), random.Random(0), known={1: state.hand(1) + state.hand(2)})
    with pytest.raises(ValueError, match="spectator"):
        determinize(state.view(-1), RuleSet(), random.Random(0))


@pytest.mark.parametrize("preset", ["official", "house"])
def test_ismcts_answers_a_legal_action_on_every_decision(preset):
    rules = PRESETS[preset].replace(target_score=0)
    bots = [IsmctsBot(seed=1, rules=rules, iterations=12), GreedyBot(2), RandomBot(3)]
    state = play_game(bots, rules, seed="ismcts-legal")  # apply() raises on an illegal one
    assert state.is_game_over and bots[0].decisions > 0


def test_make_bot_gives_ismcts_the_tables_rules_and_a_budget():
    rules = PRESETS["house"]
    bot = make_bot("ismcts", seed=1, rules=rules)
    assert isinstance(bot, IsmctsBot) and bot.rules is rules and bot.iterations
    timed = IsmctsBot(seed=1, time_ms=5)
    assert timed.iterations is None and timed.time_ms == 5
    state, _ = GameState.new(2, RuleSet(), seed="timed")
    seat = state.current
    assert timed.decide(state.view(seat), state.legal_actions(seat)) in state.legal_actions(seat)


def test_play_game_ends_every_game_and_caps_endless_rounds():
    state = play_game([GreedyBot(1), RandomBot(2)], RuleSet(), seed="play")
    assert state.outcome() is not None and state.outcome().winners
    capped = play_game([RandomBot(1), RandomBot(2)], RuleSet(), seed="cap", max_round_actions=3)
    assert capped.outcome().winners == () and capped.returns() == (0.0, 0.0)


def test_the_module_examples_run():
    import doctest

    import unoplay.game.search

    result = doctest.testmod(unoplay.game.search)
    assert result.attempted >= 5 and result.failed == 0
