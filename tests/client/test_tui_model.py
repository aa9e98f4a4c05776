"""The table model of the TUI, without Textual: playable cards, the prompt the
legal actions ask for, the status and hint lines, and which legal action a
key or a choice maps to. Positions come from the engine, as a seat's stream
would deliver them."""

from __future__ import annotations

from helpers import c, cs

from unoplay.client.sdk import SessionState
from unoplay.client.tui.model import (
    AskColour,
    AskTarget,
    Notice,
    PlayRequest,
    PromptKind,
    Refuse,
    Reopen,
    Role,
    Send,
    TableModel,
)
from unoplay.game.actions import ActionKind, play
from unoplay.game.engine import GameState
from unoplay.game.events import Event, EventKind
from unoplay.game.messages import SeatInfo, TableInfo, TableState
from unoplay.game.rules import OFFICIAL, PRESETS, RuleSet
from unoplay.game.view import Phase

NOW = 1_800_000_000.0


def seat_infos(n: int, me: int = 0) -> tuple[SeatInfo, ...]:
    return tuple(
        SeatInfo(
            seat=i,
            name="Ada" if i == me else f"bot-{i}",
            bot=i != me,
            occupied=True,
            connected=True,
        )
        for i in range(n)
    )


def model_of(game: GameState, seat: int = 0, role: Role = Role.PLAYER, **state) -> TableModel:
    """The model of ``seat`` on ``game``'s position."""
    seats = seat_infos(game.players, seat)
    table = TableInfo(
        table_id="t1-test",
        title="Test",
        seats=seats,
        rules=game.rules,
        turn_seconds=0,
        state=TableState.PLAYING,
        scores=(),
        away_grace=30.0,
    )
    session = SessionState(
        seat=seat if role is Role.PLAYER else -1,
        table=table,
        view=game.view(seat if role is Role.PLAYER else -1),
        seats=seats,
        legal=tuple(game.legal_actions(seat)) if role is Role.PLAYER else (),
        **state,
    )
    return TableModel(session, role=role, clock=lambda: NOW)


def position(hands: list[str], top: str, current: int = 0, rules: RuleSet = OFFICIAL) -> GameState:
    return GameState.from_position([cs(h) for h in hands], c(top), rules=rules, current=current)


def test_only_the_cards_the_server_lists_are_playable_and_the_first_is_selected():
    model = model_of(position(["Y3 R7 G2 B+2", "R1 R2", "B1 B3"], "R4"))
    hand = model.hand()
    assert hand.cards == tuple(cs("Y3 R7 G2 B+2"))
    assert hand.playable == {c("R7")}
    assert hand.my_turn and hand.selected == 1  # the red 7, the first playable card
    model.move(1)
    assert model.hand().selected == 2
    model.move_to(-1)
    assert model.hand().selected == 3


def test_enter_sends_the_selected_card_or_says_why_not():
    model = model_of(position(["Y3 R7", "R1 R2", "B1 B3"], "R4"))
    model.hand()
    assert model.resolve_enter() == Send(play(c("R7")))
    model.select(0)
    refused = model.resolve_enter()
    assert isinstance(refused, Refuse) and refused.message == "The yellow 3 cannot be played now"


def test_a_wild_asks_its_colour_then_sends_the_play_of_that_colour():
    model = model_of(position(["W R7", "R1 R2", "B1 B3"], "R4"))
    model.hand()
    model.select(0)
    asked = model.resolve_enter()
    assert isinstance(asked, AskColour) and asked.colours == (0, 1, 2, 3)
    answered = model.resolve_play(PlayRequest(asked.request.card, colour=3))
    assert answered == Send(play(c("W"), colour=3))


def test_a_seven_under_seven_zero_asks_whom_to_swap_with_by_name():
    rules = PRESETS["house"].replace(seven_zero=True)
    model = model_of(position(["R7 G2", "R1 R2 R3", "B1 B3"], "R4", rules=rules))
    model.hand()
    asked = model.resolve_play(PlayRequest(c("R7")))
    assert isinstance(asked, AskTarget)
    assert asked.choices == ((1, "bot-1", 3), (2, "bot-2", 2))
    sent = model.resolve_play(PlayRequest(c("R7"), colour=asked.request.colour, target=2))
    assert isinstance(sent, Send) and sent.action.target == 2 and sent.action.card == c("R7")


def test_u_arms_the_call_that_rides_on_the_play_and_a_draw_disarms_it():
    game = position(["R7 G2", "R1 R2 R3", "B1 B3"], "R4")
    model = model_of(game)
    model.hand()
    assert model.resolve_uno() == Notice("UNO armed: your next play calls UNO")
    assert model.resolve_enter() == Send(play(c("R7"), uno=True))
    game.apply(0, game.legal_actions(0)[-1])  # draw instead (the last legal action)
    model.state.view = game.view(0)
    model.state.legal = tuple(game.legal_actions(0))
    model.hand()
    assert not model.uno_armed  # the plan changed


def test_marked_cards_go_down_together_as_one_legal_play():
    rules = PRESETS["house"].replace(multi_play="same_rank")
    model = model_of(position(["R7 B7 G2", "R1 R2 R3", "B1 B3"], "R4", rules=rules))
    hand = model.hand()
    assert c("B7") in hand.partners  # playable only with the red 7
    for card in ("R7", "B7"):
        model.select(model.shown.index(c(card)))
        model.toggle_mark()
    asked = model.resolve_enter()
    assert isinstance(asked, AskColour) and asked.colours == (0, 3)
    assert asked.request.extra == (c("B7"),)
    model.select(model.shown.index(c("G2")))
    model.toggle_mark()
    refused = model.resolve_enter()
    assert isinstance(refused, Refuse) and "no play lays exactly these cards" in refused.message


def test_a_wild_draw_four_on_you_asks_the_penalty_prompt_and_names_who_played_it():
    game = position(["R1 G2", "W+4 B3 B4", "Y1 Y3"], "R4", current=1)
    game.apply(1, play(c("W+4"), colour=1))
    events = [Event(EventKind.PLAYED, 1, cards=(c("W+4"),), colour=1)]
    model = model_of(game, seat=2, events=events)
    assert model.wanted_prompt() is PromptKind.PENALTY
    info = model.penalty_info()
    assert (info.by, info.penalty, info.colour, info.can_challenge) == ("bot-1", 4, 1, True)
    line, _ = model.status()
    assert "+4 on you: Enter accepts, c challenges" in line.plain
    # Answered "from the hand" (no such answer here), Enter on a card brings the prompt back.
    model.declined = model.decision_key()
    assert model.answering_from_hand()
    model.hand()
    assert isinstance(model.resolve_enter(), Reopen)
    assert model.declined is None


def test_the_status_line_says_whose_turn_and_counts_down():
    game = position(["R1 G2", "R5 B3", "Y1 Y3"], "R4", current=1)
    model = model_of(game, deadline_ms=int((NOW + 12.5) * 1000))
    line, hint = model.status()
    assert line.plain.startswith("bot-1's turn")
    assert "13s left" not in line.plain  # a bot's countdown is not shown
    model.state.seats = tuple(
        s if s.seat != 1 else SeatInfo(1, "Bob", False, True, True) for s in model.state.seats
    )
    assert "Bob's turn  13s left" in model.status()[0].plain
    assert "Enter play" in hint.plain


def test_a_spectator_sees_no_hand_and_cannot_act():
    game = position(["R1 G2", "R5 B3", "Y1 Y3"], "R4", current=1)
    model = model_of(game, role=Role.SPECTATOR)
    assert model.hand().cards == ()
    assert model.resolve_enter() is None and model.resolve_draw() is None
    line, hint = model.status()
    assert line.plain.startswith(" WATCHING  bot-1's turn")
    assert "never cards" in hint.plain


def test_an_answer_to_the_intent_in_flight_is_an_update_with_other_legal_actions():
    game = position(["R1 G2", "R5 B3", "Y1 Y3"], "R4")
    model = model_of(game)
    model.sent(play(c("R1")))
    assert model.sending and not model.ready
    model.answered()
    assert model.sending  # the same legal actions: not answered yet
    model.state.legal = ()
    model.answered()
    assert not model.sending


def test_the_round_result_names_the_winner_and_the_points_left():
    game = position(["R1", "R5 B3", "Y1 W"], "R4")
    events = list(game.apply(0, play(c("R1"))))
    model = model_of(game, events=events)
    assert model.view is not None and model.view.phase is Phase.ROUND_OVER
    result = model.round_result()
    assert result.winner == "You" and result.names == ["You", "bot-1", "bot-2"]
    assert result.hand_cards == [0, 2, 2] and result.points == sum(result.hand_points)
    assert ActionKind.PLAY not in {a.kind for a in model.state.legal}


def test_the_hand_sorts_by_colour_or_rank_and_a_drawn_card_lands_in_its_place():
    from unoplay.client.tui.model import sort_hand

    hand = cs("B5 R7 W R2 G5")
    assert sort_hand(hand, "dealt") == tuple(hand)
    assert sort_hand(hand, "colour") == tuple(cs("R2 R7 G5 B5 W"))
    assert sort_hand(hand, "rank") == tuple(cs("R2 G5 B5 R7 W"))
    drawn = (*hand, c("R4"))  # a drawn card comes last in the view
    assert sort_hand(drawn, "colour") == tuple(cs("R2 R4 R7 G5 B5 W"))


def test_texts_name_players_and_count_seats_from_one():
    from unoplay.client.tui.render import action_words, seat_name
    from unoplay.game.actions import Action

    swap = Action(ActionKind.PLAY, c("R7"), target=1)
    assert "swap with Bob" in action_words(swap, ["Ada", "Bob"])
    assert "player" not in action_words(swap, ["Ada", "Bob"])
    assert seat_name((), 0, -1) == "seat 1"
    held = Event(EventKind.HAND_SCORED, 0, value=1)
    from unoplay.client.tui.render import event_line

    line = event_line(held, (), -1)
    assert line is not None and "held 1 point" in line.plain and "points" not in line.plain


def test_uno_play_refuses_an_empty_name_and_counts_its_bots():
    import pytest

    from unoplay.client.cli import build_parser
    from unoplay.client.tui.app import PlayOptions

    with pytest.raises(SystemExit, match="--name must not be empty"):
        PlayOptions.from_args(build_parser().parse_args(["play", "--name", ""]))
    assert PlayOptions.from_args(build_parser().parse_args(["play"])).name  # the login's


def test_a_draw_or_a_keep_that_ends_your_turn_says_the_turn_passes():
    from unoplay.game.actions import Action

    hands = [cs("Y3"), cs("R1 R2"), cs("B1 B3")]
    top = c("R4")
    used = {*hands[0], *hands[1], *hands[2], top}
    rest = [card for card in range(108) if card not in used and card != c("B9")]
    game = GameState.from_position(hands, top, rules=OFFICIAL, draw_pile=[*rest, c("B9")])
    model = model_of(game)
    model.state.events.extend(game.apply(0, Action(ActionKind.DRAW)))  # B9 does not fit on R4
    lines = [line.plain for line in model.new_log_lines()]
    assert lines[-2:] == ["You drew blue 9", "Your turn passes"], lines
    model.state.events.extend(game.apply(1, play(c("R1"))))  # another seat's turn ends: no line
    assert "Your turn passes" not in [line.plain for line in model.new_log_lines()]
    # A drawn card that fits: no line until it is kept.
    rest = [card for card in range(108) if card not in used and card != c("R9")]
    game = GameState.from_position(hands, top, rules=OFFICIAL, draw_pile=[*rest, c("R9")])
    model = model_of(game)
    model.state.events.extend(game.apply(0, Action(ActionKind.DRAW)))
    assert [line.plain for line in model.new_log_lines()][-1] == "You drew red 9"
    model.state.events.extend(game.apply(0, Action(ActionKind.KEEP)))
    lines = [line.plain for line in model.new_log_lines()]
    assert lines == ["You kept the drawn card", "Your turn passes"], lines


def test_the_dealer_draw_says_why_a_card_is_drawn_again_and_who_deals():
    from unoplay.client.tui.render import event_line

    seats = seat_infos(3)
    again = event_line(Event(EventKind.DEALER_DRAW, 1, cards=(c("R+2"),)), seats, 0)
    kept = event_line(Event(EventKind.DEALER_DRAW, 1, cards=(c("R1"),)), seats, 0)
    dealer = event_line(Event(EventKind.DEALER_CHOSEN, 1), seats, 0)
    assert again is not None and again.plain.endswith("for the deal: no number, again")
    assert kept is not None and kept.plain == "bot-1 drew red 1 for the deal"
    assert dealer is not None and dealer.plain == "bot-1 drew the highest number and deals first"


def test_a_tie_in_the_dealer_draw_is_said_before_the_tied_draw_again():
    """RULES.md section 2: players tied for the highest number draw again;
    the log says so once, before their draws (they read as a mystery)."""
    hands = [cs("Y3"), cs("R1 R2"), cs("B1 B3")]
    model = model_of(GameState.from_position(hands, c("R4"), rules=OFFICIAL))
    draws = [(0, "R9"), (1, "B+2"), (1, "G9"), (2, "Y4"), (0, "B5"), (1, "R7")]
    model.state.events.extend(
        Event(EventKind.DEALER_DRAW, p, cards=(c(card),)) for p, card in draws
    )
    model.state.events.append(Event(EventKind.DEALER_CHOSEN, 1))
    lines = [line.plain for line in model.new_log_lines()]
    tie = "A tie for the highest number, 9: you and bot-1 draw again"
    assert lines.count(tie) == 1 and lines.index(tie) == 4, lines
    assert lines[-1] == "bot-1 drew the highest number and deals first"
