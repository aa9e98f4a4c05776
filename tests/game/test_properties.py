"""Invariants over many seeds and random legal play, 2 to 10 players (hypothesis)."""

from __future__ import annotations

import random

import pytest
from helpers import all_cards, assert_conserved, rule_sets, snapshot
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from unoplay.game import actions as A
from unoplay.game.actions import ActionKind
from unoplay.game.cards import COLOUR, RANK, WILD
from unoplay.game.engine import GameState
from unoplay.game.errors import IllegalAction
from unoplay.game.events import EventKind as E
from unoplay.game.rules import GameFormat, RuleSet, Scoring, preset
from unoplay.game.view import Phase

MAX_STEPS = 60_000  # far above any round seen; reaching it means a round that never ends
OUT_OF_TURN = (ActionKind.CALL_UNO, ActionKind.CATCH)


def candidate_actions(game: GameState, rng: random.Random) -> list[A.Action]:
    """A spread of actions, legal or not, to probe the engine's refusals."""
    cards = rng.sample(range(108), 6) + list(game.hand(game.current))[:4]
    out = [A.play(card, rng.choice([None, 0, 1, 2, 3]), rng.random() < 0.3) for card in cards]
    hand = list(game.hand(game.current))
    if len(hand) > 2:  # several cards at once, going together or not (multi_play)
        first, *extra = rng.sample(hand, 3)
        out += [
            A.play(first, rng.choice([None, 0, 1, 2, 3]), False, extra=tuple(extra[:k]))
            for k in (1, 2)
        ]
    out += [
        A.DRAW,
        A.KEEP,
        A.CHALLENGE,
        A.ACCEPT,
        A.CALL_UNO,
        A.choose_colour(rng.randrange(4)),
        A.catch(rng.randrange(game.players)),
    ]
    return out


def laid(action: A.Action) -> tuple:
    """An action with a multi-card play's cards as a set: laying the same cards
    led by another of them is the same play (multi_play)."""
    if action.kind is ActionKind.PLAY and action.extra:
        return (
            action.kind,
            action.colour,
            action.uno,
            action.target,
            frozenset((action.card, *action.extra)),
        )
    return tuple(action)


def play_round(
    game: GameState, rng: random.Random, probe_every: int = 0, trace: list | None = None
) -> int:
    """Random legal play until the round ends, checking invariants after every action."""
    steps = 0
    while not game.is_round_over:
        assert steps < MAX_STEPS, "round did not end"
        seat = game.current
        legal = game.legal_actions(seat)
        assert legal, "the player to move always has an action"
        if game.phase is Phase.PLAY:  # section 3: the cards offered in turn are those that match
            top = game.top_card
            fit = {
                c
                for c in game.hand(seat)
                if COLOUR[c] in (game.colour, WILD) or RANK[c] == RANK[top]
            }
            offered = {a.card for a in legal if a.kind is ActionKind.PLAY}
            assert offered <= fit
            if not game.rules.number_first_and_last:  # which may hold back all but numbers
                assert offered == fit
        other = rng.randrange(game.players)
        # Out of turn (catch, call UNO, jump in); false UNO calls stay rare.
        options = [
            a
            for a in game.legal_actions(other)
            if a.kind is not ActionKind.CALL_UNO or game.catchable == other
        ]
        if rng.random() < 0.1 and options:
            seat, legal = other, options
        elif rng.random() < 0.9:  # mostly a turn action: calls and catches stay occasional
            legal = [a for a in legal if a.kind not in OUT_OF_TURN] or legal
        if probe_every and steps % probe_every == 0:
            before = snapshot(game)
            penalised = (
                False  # one wrong_play_penalty per probe: probes must not make rounds endless
            )
            for action in candidate_actions(game, rng):
                for probe_seat in (seat, rng.randrange(game.players)):
                    if laid(action) in {laid(a) for a in game.legal_actions(probe_seat)}:
                        continue
                    if action.kind is ActionKind.CALL_UNO and game.rules.false_uno_penalty:
                        continue  # a false call: accepted when sent, never listed
                    if penalised and probe_seat == game.current and action.kind is ActionKind.PLAY:
                        continue
                    with pytest.raises(IllegalAction) as err:
                        game.apply(probe_seat, action)
                    assert err.value.reason and str(err.value)
                    if err.value.events:  # only wrong_play_penalty changes the state
                        assert_conserved(game)
                        before = snapshot(game)
                        penalised = True
            assert snapshot(game) == before
            legal = game.legal_actions(seat)
        action = rng.choice(legal)
        events = game.apply(seat, action)  # an offered action is always accepted
        if trace is not None:
            trace.append((seat, action, events))
        assert_conserved(game)
        steps += 1
    return steps


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), players=st.integers(2, 10))
def test_official_rounds_end_conserve_cards_and_score_correctly(seed, players):
    game, _ = GameState.new(players, RuleSet(target_score=10_000), seed=seed)
    rng = random.Random(seed)
    for _ in range(2):
        scores_before = game.scores
        play_round(game, rng, probe_every=25)
        winner = game.round_winner
        assert len(game.hand(winner)) == 0
        # The winner's round score is exactly the sum of the other hands.
        others = sum(game.hand_points(p) for p in range(players) if p != winner)
        assert game.scores[winner] - scores_before[winner] == others
        assert game.view(0).round_winner == winner
        events = game.next_round()
        assert game.dealer == winner and events[0].kind is E.ROUND_STARTED
        assert_conserved(game)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), players=st.integers(2, 10), rules=rule_sets)
def test_any_rule_combination_rounds_end_and_conserve_cards(seed, players, rules):
    game, _ = GameState.new(players, rules, seed=seed)
    rng = random.Random(seed)
    while True:
        scores_before = game.scores
        play_round(game, rng, probe_every=40)
        winner = game.round_winner
        points = [game.hand_points(p) for p in range(players)]
        gained = [a - b for a, b in zip(game.scores, scores_before)]
        if rules.scoring is Scoring.WINNER_TAKES:
            assert gained == [sum(points) if p == winner else 0 for p in range(players)]
        else:
            assert gained == points
        if game.is_game_over:
            assert game.game_winners
            break
        game.next_round()


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32),
    players=st.sampled_from([2, 3, 4, 6, 8, 10]),
    fmt=st.sampled_from(GameFormat),
    rules=rule_sets,
)
def test_every_format_ends_with_winners_and_conserves_cards(seed, players, fmt, rules):
    assume(fmt is not GameFormat.TEAMS or players in (4, 6, 8))
    change: dict = {"format": fmt}
    if fmt is GameFormat.ELIMINATION:
        change["target_score"] = 0
    elif fmt is GameFormat.TOURNAMENT:
        change.update(scoring="penalty", target_score=max(rules.target_score, 30))
    rules = rules.replace(**change)
    game, _ = GameState.new(players, rules, seed=seed)
    rng = random.Random(seed)
    for _ in range(500):
        play_round(game, rng, probe_every=40)
        if game.is_game_over:
            break
        game.next_round()
    assert game.is_game_over and game.game_winners
    out = game.view(-1).out_seats
    if fmt is GameFormat.ELIMINATION:
        assert sorted(out) == list(range(players)) and game.game_winners == (out[0],)
    elif fmt is GameFormat.TOURNAMENT:
        assert not set(out) & set(game.game_winners)
        assert sorted(out + game.game_winners) == list(range(players))
    elif fmt is GameFormat.TEAMS:
        half = players // 2
        assert all(game.scores[p] == game.scores[p + half] for p in range(half))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), players=st.integers(2, 10))
def test_house_preset_rounds_end_conserve_cards_and_score(seed, players):
    rules = preset("house").replace(target_score=0)
    game, _ = GameState.new(players, rules, seed=seed)
    play_round(game, random.Random(seed), probe_every=30)
    winner = game.round_winner
    assert game.scores[winner] == sum(game.hand_points(p) for p in range(players))


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(2, 10))
def test_same_seed_and_actions_give_the_same_events(seed, players):
    first, setup1 = GameState.new(players, seed=seed)
    trace: list = []
    play_round(first, random.Random(seed), trace=trace)
    second, setup2 = GameState.new(players, seed=seed)
    assert setup1 == setup2
    for seat, action, events in trace:
        assert second.apply(seat, action) == events
    assert second.scores == first.scores and all_cards(second) == all_cards(first)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(2, 10))
def test_views_show_own_hand_and_only_sizes_of_others(seed, players):
    game, _ = GameState.new(players, seed=seed)
    rng = random.Random(seed)
    for _ in range(40):
        if game.is_round_over:
            break
        for seat in range(players):
            view = game.view(seat)
            assert view.hand == game.hand(seat)
            assert view.hand_sizes == tuple(len(game.hand(p)) for p in range(players))
            assert view.current == game.current and view.top_card == game.top_card
        spectator = game.view(-1)
        assert spectator.hand == () and spectator.drawn_card == -1
        seat = game.current
        game.apply(seat, rng.choice(game.legal_actions(seat)))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(2, 6))
def test_clone_is_independent_and_plays_the_same_future(seed, players):
    game, _ = GameState.new(players, seed=seed)
    rng = random.Random(seed)
    for _ in range(10):
        if game.is_round_over:
            return
        seat = game.current
        game.apply(seat, rng.choice(game.legal_actions(seat)))
    copy = game.clone()
    before = snapshot(game)
    seat = copy.current
    action = copy.legal_actions(seat)[-1]
    copy_events = copy.apply(seat, action)
    assert snapshot(game) == before  # the original did not move
    assert game.apply(seat, action) == copy_events


def test_every_event_private_or_public_as_documented():
    game, events = GameState.new(4, seed=7)
    rng = random.Random(7)
    while not game.is_round_over:
        seat = game.current
        events += game.apply(seat, rng.choice(game.legal_actions(seat)))
    private = {E.HAND_DEALT, E.DREW_CARDS, E.HAND_SHOWN}
    for e in events:
        assert (e.audience != -1) == (e.kind in private), e


def test_player_to_move_always_has_a_legal_action_in_every_phase():
    for seed in range(40):
        game, _ = GameState.new(3, seed=seed)
        rng = random.Random(seed)
        seen = set()
        while not game.is_round_over:
            seen.add(game.phase)
            legal = game.legal_actions(game.current)
            assert legal
            kinds = {a.kind for a in legal}
            if game.phase is Phase.PENALTY:
                assert {ActionKind.CHALLENGE, ActionKind.ACCEPT} <= kinds
            game.apply(game.current, rng.choice(legal))
