"""The SDK's session state: what it knows from the messages of one stream."""

from unoplay import wire
from unoplay.client.sdk import SessionState
from unoplay.game.engine import GameState
from unoplay.game.messages import SeatInfo, Update
from unoplay.v1 import game_service_pb2 as gs


def _received(update: Update) -> Update:
    """``update`` as a stream brings it (a LazyUpdate, nothing read yet)."""
    message = wire.message_from_pb(gs.TableMessage.FromString(wire.message_body(update)), 0)
    assert isinstance(message, Update)
    return message


def test_the_state_shows_the_latest_update_and_what_was_set_since():
    game, _ = GameState.new(4, seed=2)
    seats = tuple(SeatInfo(i, f"p{i}", False, True, True) for i in range(4))
    first = Update(game.view(0), tuple(game.legal_actions(0)), 1.5, seats, 0.25)
    state = SessionState()
    assert (state.view, state.legal, state.seats, state.deadline_ms) == (None, (), (), 0)
    state.take_update(_received(first))
    assert state.legal == first.legal and state.view == first.view
    assert (state.seats, state.deadline_ms, state.window_closes_ms) == (seats, 1500, 250)
    # A SeatsChanged after it: its seats, the update's view.
    gone = tuple(s if s.seat != 3 else SeatInfo(3, "p3", False, True, False) for s in seats)
    state.seats = gone
    assert state.seats == gone and state.view == first.view
    # The next update is the state again, its seats too.
    seat = game.current
    game.apply(seat, game.legal_actions(seat)[0])
    second = Update(game.view(0), tuple(game.legal_actions(0)), 0.0, seats, 0.0)
    state.take_update(_received(second))
    assert (state.view, state.legal, state.seats) == (second.view, second.legal, seats)
    assert (state.deadline_ms, state.window_closes_ms) == (0, 0)
    assert state == SessionState(
        view=second.view, legal=second.legal, seats=seats
    )  # a state made by hand (a TUI demo, a test) compares alike
