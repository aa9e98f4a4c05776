"""The one exception the engine raises for a refused action, with its reasons."""

from __future__ import annotations

from enum import StrEnum

from .events import Event


class Reason(StrEnum):
    """Machine-readable reason an action was refused. Values are stable wire strings."""

    ROUND_OVER = "round_over"  #: the round (or game) has ended
    ROUND_IN_PROGRESS = "round_in_progress"  #: the next round starts only after this one
    GAME_OVER = "game_over"  #: the game has ended
    NO_SUCH_PLAYER = "no_such_player"  #: seat index out of range
    UNKNOWN_ACTION = "unknown_action"  #: action kind not known
    NOT_YOUR_TURN = "not_your_turn"  #: only the player to move may do this
    NO_SUCH_CARD = "no_such_card"  #: card id outside 0..107
    CARD_NOT_IN_HAND = "card_not_in_hand"  #: the player does not hold that card
    DOES_NOT_MATCH = "does_not_match"  #: card matches neither colour, number nor symbol
    COLOUR_MISSING = "colour_missing"  #: a wild needs a named colour
    COLOUR_NOT_ALLOWED = "colour_not_allowed"  #: a colour was named with a non-wild card
    BAD_COLOUR = "bad_colour"  #: colour outside 0..3
    ONLY_DRAWN_CARD = "only_drawn_card"  #: after drawing, only the drawn card may be played
    ALREADY_DREW = "already_drew"  #: the player drew this turn: play the card or keep it
    NOTHING_TO_KEEP = "nothing_to_keep"  #: keep is only for a card just drawn
    PENALTY_PENDING = "penalty_pending"  #: answer the pending Wild Draw Four first
    NOTHING_TO_CHALLENGE = "nothing_to_challenge"  #: no Wild Draw Four is waiting for you
    NOTHING_TO_ACCEPT = "nothing_to_accept"  #: no penalty is pending
    COLOUR_CHOICE_PENDING = "colour_choice_pending"  #: the starter Wild needs a colour first
    NO_COLOUR_TO_CHOOSE = "no_colour_to_choose"  #: there is no colour to name now
    UNO_NOT_NEEDED = "uno_not_needed"  #: calling UNO now is not due
    UNO_CALL_STRICT = "uno_call_strict"  #: the call counts only together with the play
    CANNOT_CATCH_SELF = "cannot_catch_self"  #: a player cannot catch themselves
    ALREADY_CALLED = "already_called"  #: that player called UNO
    NOT_ONE_CARD = "not_one_card"  #: that player does not hold exactly one card
    CATCH_TOO_LATE = "catch_too_late"  #: the next player already began their turn
    # Given by the table, not the engine, when an out-of-turn window closes:
    JUMP_IN_LOST = "jump_in_lost"  #: another jump-in in the same window came first
    JUMPED_IN = "jumped_in"  #: someone jumped in before this turn action took effect
    TARGET_MISSING = "target_missing"  #: this card needs a player to swap hands with
    BAD_TARGET = "bad_target"  #: the target must be another seat at the table
    TARGET_NOT_ALLOWED = "target_not_allowed"  #: only a 7 or 5 that swaps takes a target
    NUMBER_FIRST = "number_first"  #: the first card of a round must be a number card
    PLAYER_OUT = "player_out"  #: the seat is out of play (elimination, tournament)
    MULTI_PLAY_OFF = "multi_play_off"  #: one card per play at this table
    CARDS_DO_NOT_GO_TOGETHER = (
        "cards_do_not_go_together"  #: multi_play: not the same rank (or not identical)
    )
    ONE_CARD_ONLY = (
        "one_card_only"  #: a jump-in, the drawn card or a deflecting Reverse is one card
    )
    COLOUR_NOT_PLAYED = "colour_not_played"  #: multi_play: name one of the colours played
    # Given by the server, not the engine, to an intent it cannot take:
    GAME_NOT_STARTED = "game_not_started"  #: the table is still waiting for players
    SERVER_CLOSING = "server_closing"  #: the server is shutting down or restarting
    INTERNAL_ERROR = "internal_error"  #: the server failed on this intent (its fault, not yours)
    MALFORMED = "malformed"  #: the message is not an intent the protocol knows
    UNKNOWN_ACTION_ID = "unknown_action_id"  #: no legal action of this decision has that id


class IllegalAction(ValueError):
    """An action the rules refuse. The game state is left exactly as it was,
    except for a ``wrong_play_penalty`` draw, reported in ``events``.

    Attributes: ``reason`` (:class:`Reason`), and the ``str()`` is a sentence
    for people.
    """

    def __init__(self, reason: Reason, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        #: Events of a penalty for the refusal (``wrong_play_penalty``); the one
        #: case where a refused action changes the state. Empty otherwise.
        self.events: list[Event] = []
