"""The table as a model: what the table screen shows and what a key means,
in plain Python (no Textual), so it is tested without a pilot.

A :class:`TableModel` holds one receiver's :class:`~unoplay.client.sdk.SessionState`
(what the server sent, and nothing guessed about the rules) and the few
things the person chose on this side: the selected card, the cards marked to
be played together, an armed UNO call, a decision answered "from the hand".
From them it says which cards are playable, which prompt the server's legal
actions ask for, the status and hint lines, and which legal action a choice
maps to (:meth:`TableModel.resolve_play` and friends return a
:class:`Resolution`: send this action, ask for a colour, ask for a player, or
refuse with a message).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Literal

from rich.text import Text

from unoplay.game.actions import Action, ActionKind
from unoplay.game.bots import seat_after
from unoplay.game.cards import COLOUR, IS_NUMBER, IS_WILD, RANK
from unoplay.game.events import Event, EventKind
from unoplay.game.messages import SeatInfo, TableInfo
from unoplay.game.rules import GameFormat, MultiPlay, RuleSet, Scoring
from unoplay.game.view import Phase, PlayerView

from ..sdk import SessionState
from .render import (
    SEEDED_NOTE,
    action_words,
    card_text,
    event_line,
    rules_label,
    seat_name,
)
from .ruleinfo import differences, preset_name, short_text

PLAY, DRAW, KEEP = ActionKind.PLAY, ActionKind.DRAW, ActionKind.KEEP
CHALLENGE, ACCEPT = ActionKind.CHALLENGE, ActionKind.ACCEPT
CALL_UNO, CATCH, CHOOSE = ActionKind.CALL_UNO, ActionKind.CATCH, ActionKind.CHOOSE_COLOUR


class Role(Enum):
    """Who looks at the table: a seated player, or a spectator (no hand, no keys)."""

    PLAYER = "player"
    SPECTATOR = "spectator"


class PromptKind(Enum):
    """A decision the server's legal actions ask of this seat, answered in a prompt."""

    PENALTY = "penalty"  #: a draw card played on you: accept, challenge, or answer
    DRAWN = "drawn"  #: the card you drew fits: play it or keep it
    STARTER = "starter"  #: name the colour of a Wild starter card


# ---------------------------------------------------------------- resolutions


@dataclass(frozen=True, slots=True)
class PlayRequest:
    """A play being put together: the card (and ``extra`` cards played with it),
    UNO (None: as armed), and the colour and swap target once chosen."""

    card: int
    uno: bool | None = None
    colour: int | None = None
    target: int | None = None
    extra: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Send:
    """Send ``action``: an element of the server's legal actions."""

    action: Action


@dataclass(frozen=True, slots=True)
class AskColour:
    """The play leaves a colour to name: ask among ``colours``, then resolve
    ``request`` again with the colour."""

    request: PlayRequest
    colours: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class AskTarget:
    """The play swaps hands: ask among ``choices`` (seat, name, cards held),
    then resolve ``request`` again with the seat."""

    request: PlayRequest
    choices: tuple[tuple[int, str, int], ...]


@dataclass(frozen=True, slots=True)
class Refuse:
    """Nothing to send: tell the person why."""

    message: str
    severity: Literal["information", "warning", "error"] = "warning"
    timeout: float | None = None  #: seconds shown; None: the usual


@dataclass(frozen=True, slots=True)
class Reopen:
    """Bring back the prompt of the decision answered "from the hand"."""


@dataclass(frozen=True, slots=True)
class Notice:
    """Nothing to send; a short note (UNO armed or disarmed)."""

    message: str
    timeout: float = 2.0


Resolution = Send | AskColour | AskTarget | Refuse | Reopen | Notice | None


# ---------------------------------------------------------------- what is drawn


@dataclass(frozen=True, slots=True)
class HandState:
    """The hand as the hand widget draws it."""

    cards: tuple[int, ...] = ()
    playable: frozenset[int] = frozenset()
    partners: frozenset[int] = frozenset()  #: playable only together with others
    jump: bool = False  #: the plays listed are jump-ins (out of turn)
    marked: frozenset[int] = frozenset()
    my_turn: bool = False
    selected: int = 0


@dataclass(frozen=True, slots=True)
class PenaltyInfo:
    """What the penalty prompt says: who played ``card`` on you (None: the
    round's starter), the penalty, the colour named, what else you may do."""

    by: str | None
    card: int
    penalty: int
    colour: int
    can_challenge: bool
    can_answer: bool
    judged: int = -1  #: the colour in force before the card (a challenge judges it); -1 unknown


@dataclass
class RoundResult:
    """What the round-results screen shows."""

    round_number: int
    winner: str
    points: int
    names: list[str]
    hand_cards: list[int]  #: cards each player was left holding
    hand_points: list[int]  #: what those cards count
    scores: list[int]
    target: int


@dataclass(frozen=True, slots=True)
class FinalResult:
    """What the final standings show."""

    names: tuple[str, ...]
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    lowest_wins: bool


# ---------------------------------------------------------------- the model


#: Your events that, followed by another player's turn, mean your turn passed.
_ENDS_YOUR_TURN = (EventKind.DREW_CARDS, EventKind.KEPT)

#: The orders the hand can be shown in (the "o" key cycles them).
HAND_ORDERS = ("dealt", "colour", "rank")


def sort_hand(cards: Sequence[int], order: str) -> tuple[int, ...]:
    """``cards`` in ``order``: as dealt and drawn, by colour (then rank), or by
    rank (then colour); wilds last by colour."""
    if order == "colour":
        return tuple(sorted(cards, key=lambda c: (COLOUR[c], RANK[c], c)))
    if order == "rank":
        return tuple(sorted(cards, key=lambda c: (RANK[c], COLOUR[c], c)))
    return tuple(cards)


def colour_before(events: Sequence[Event], at: int) -> int:
    """The colour in force before ``events[at]`` (a play), from the round's
    events before it: -1 when they do not say (no history here)."""
    for e in reversed(events[:at]):
        if e.kind is EventKind.ROUND_STARTED:
            return -1
        if e.kind in (EventKind.PLAYED, EventKind.COLOUR_CHOSEN):
            return e.colour
        if e.kind is EventKind.STARTER_FLIPPED and e.cards and not IS_WILD[e.cards[0]]:
            return COLOUR[e.cards[0]]
    return -1


@dataclass
class TableModel:
    """One receiver's table: the session's state and this side's choices.

    ``role`` SPECTATOR: no hand, nothing to act on, the spectator's status line.
    ``clock`` gives Unix seconds (a frozen one for snapshots).
    """

    state: SessionState = field(default_factory=SessionState)
    role: Role = Role.PLAYER
    clock: Callable[[], float] = time.time
    table: TableInfo | None = None
    uno_armed: bool = False
    sending: bool = False
    finished: bool = False  #: the stream ended (the game is over)
    failed: str = ""  #: why the stream ended in failure ("" while it did not)
    reconnecting: bool = False  #: the stream is down and being reopened
    restarting: bool = False  #: ... after the server said it restarts
    declined: tuple | None = None  #: the penalty decision answered "from the hand"
    selected_card: int = -1
    marked: set[int] = field(default_factory=set)
    marked_round: int = 0
    was_my_turn: bool = False
    logged: int = 0  #: events already turned into log lines
    #: the dealer draw's numbers so far, by player (RULES.md section 2): who is tied
    deal_numbers: dict[int, int] = field(default_factory=dict)
    sent_legal: tuple[Action, ...] | None = None
    sent_action: Action | None = None  #: the intent in flight (while ``sending``)
    shown: tuple[int, ...] = ()  #: the hand as last drawn
    order: str = "dealt"  #: the hand's order, one of HAND_ORDERS
    selected: int = 0  #: index into ``shown``
    held_until: float = 0.0  #: Enter and Space do nothing until then (``clock`` time)

    def __post_init__(self) -> None:
        if self.table is None:
            self.table = self.state.table

    # ------------------------------------------------------------- facts

    @property
    def view(self) -> PlayerView | None:
        """The latest view, None before the game starts."""
        return self.state.view

    @property
    def me(self) -> int:
        """This receiver's seat (-1: a spectator)."""
        return self.state.seat

    @property
    def spectator(self) -> bool:
        """True when watching: no hand, no game keys."""
        return self.role is Role.SPECTATOR

    @property
    def my_turn(self) -> bool:
        """True when the turn is this seat's and the round is on."""
        view = self.view
        return view is not None and view.current == self.me and view.phase < Phase.ROUND_OVER

    @property
    def rules(self) -> RuleSet | None:
        """The table's rule set, once known (None before)."""
        return self.table.rules if self.table is not None else None

    @property
    def multi_play(self) -> bool:
        """True at a table whose rules let several cards be played together."""
        rules = self.rules
        return rules is not None and rules.multi_play is not MultiPlay.OFF

    @property
    def teams(self) -> bool:
        """True at a teams table (partners sit opposite)."""
        rules = self.rules
        return rules is not None and rules.format is GameFormat.TEAMS

    @property
    def ready(self) -> bool:
        """True when waiting for this player's decision."""
        return bool(self.state.legal) and self.my_turn and not self.sending

    @property
    def waiting(self) -> bool:
        """True before the game starts (no view yet)."""
        return self.view is None

    @property
    def offline(self) -> bool:
        """True while no move can reach the server: the stream ended in failure
        or is down and being reopened."""
        return bool(self.failed) or self.reconnecting

    @property
    def game_over(self) -> bool:
        """True once the view shows the game over."""
        view = self.view
        return view is not None and view.phase is Phase.GAME_OVER

    def seats(self) -> Sequence[SeatInfo]:
        """Every seat's public facts, the latest known."""
        if self.state.seats:
            return self.state.seats
        return list(self.table.seats) if self.table is not None else []

    def name_of(self, seat: int) -> str:
        """A seat's name as a sentence's object ("you" for this seat)."""
        return seat_name(self.seats(), seat, self.me)

    def name_of_cap(self, seat: int) -> str:
        """Like :meth:`name_of`, for the start of a sentence ("You")."""
        return "You" if seat == self.me else self.name_of(seat)

    def seconds_left(self) -> int | None:
        """Whole seconds to the turn deadline, None without one."""
        deadline, view = self.state.deadline_ms, self.view
        if not deadline or view is None or view.phase >= Phase.ROUND_OVER:
            return None
        return max(0, int(deadline / 1000 - self.clock() + 0.999))

    def window_left(self) -> float | None:
        """Seconds (to a tenth) until the open out-of-turn window closes, else None."""
        closes, view = self.state.window_closes_ms, self.view
        if not closes or view is None or view.phase >= Phase.ROUND_OVER:
            return None
        left = math.ceil((closes - self.clock() * 1000) / 100) / 10
        return left if left > 0 else None

    def legal_of(self, kind: ActionKind) -> list[Action]:
        """The legal actions of one kind."""
        return [a for a in self.state.legal if a.kind is kind]

    # ------------------------------------------------------------- the hand

    def hand(self) -> HandState:
        """The hand to draw now. Keeps the selected card selected as the hand
        changes, selects the first playable card when a turn begins, forgets
        marks at a new round and an armed UNO once a card was drawn or the
        round ended."""
        view, state = self.view, self.state
        if view is None or self.spectator:
            return HandState()
        cards = sort_hand(view.hand, self.order)
        if self.uno_armed and (len(cards) > len(self.shown) > 0 or view.phase >= Phase.ROUND_OVER):
            self.uno_armed = False  # you drew, or the round ended: the plan changed
        # offline: nothing can be sent, so no card is marked "play"
        plays = [] if self.offline else [a for a in state.legal if a.kind is PLAY]
        playable = frozenset(a.card for a in plays)
        if view.round_number != self.marked_round:
            self.marked_round = view.round_number
            self.marked.clear()
        self.marked &= set(cards)
        my_turn = self.my_turn and view.phase in (Phase.PLAY, Phase.DRAWN)
        if my_turn and not self.was_my_turn and self.selected_card not in playable:
            first = next((c for c in cards if c in playable), None)
            if first is not None:
                self.selected_card = first
        self.was_my_turn = my_turn
        if self.selected_card in cards:
            index = cards.index(self.selected_card)
        else:
            index = min(self.selected, max(len(cards) - 1, 0))
        self.shown = cards
        self.selected = index
        self.selected_card = cards[index] if cards else -1
        return HandState(
            cards=cards,
            playable=playable,
            partners=frozenset(c for a in plays for c in a.extra),
            jump=bool(plays) and not self.my_turn,
            marked=frozenset(self.marked),
            my_turn=my_turn,
            selected=index,
        )

    def select(self, index: int) -> None:
        """Select the card at ``index`` of the hand shown."""
        if 0 <= index < len(self.shown):
            self.selected = index
            self.selected_card = self.shown[index]

    def move(self, step: int) -> None:
        """Move the selection ``step`` cards, round the ends."""
        if self.shown:
            self.select((self.selected + step) % len(self.shown))

    def move_to(self, index: int) -> None:
        """Select card ``index`` (-1: the last), if the hand has it."""
        if not self.shown:
            return
        if index < 0:
            index = len(self.shown) - 1
        self.select(index)

    def next_order(self) -> str:
        """Show the hand in the next of :data:`HAND_ORDERS`; returns it."""
        self.order = HAND_ORDERS[(HAND_ORDERS.index(self.order) + 1) % len(HAND_ORDERS)]
        return self.order

    def hold_keys(self, seconds: float) -> None:
        """Let Enter and Space do nothing for ``seconds``: a box that closed by
        itself must not pass on to the table a key that was meant for it."""
        self.held_until = self.clock() + seconds

    @property
    def keys_held(self) -> bool:
        """True while Enter and Space do nothing (:meth:`hold_keys`)."""
        return self.clock() < self.held_until

    def toggle_mark(self) -> None:
        """Mark (or unmark) the selected card, to play several together."""
        if self.shown and self.view is not None and not self.keys_held:
            self.marked ^= {self.shown[self.selected]}

    def clear_marks(self) -> None:
        """Forget every mark."""
        self.marked.clear()

    # ------------------------------------------------------------- prompts

    def wanted_prompt(self) -> PromptKind | None:
        """The decision the legal actions ask for now, if it takes a prompt."""
        view, legal = self.view, self.state.legal
        if view is None or view.current != self.me or self.spectator:
            return None
        kinds = {a.kind for a in legal}
        if view.phase is Phase.PENALTY and ACCEPT in kinds:
            return PromptKind.PENALTY
        if view.phase is Phase.DRAWN and KEEP in kinds:
            return PromptKind.DRAWN
        if view.phase is Phase.CHOOSE_COLOUR and CHOOSE in kinds:
            return PromptKind.STARTER
        return None

    def decision_key(self) -> tuple:
        """What identifies the decision now (a decision answered "from the hand"
        stays answered until it changes)."""
        view = self.view
        if view is None:
            return ()
        return (
            view.round_number,
            view.current,
            view.phase,
            view.pending_penalty,
            view.top_card,
            view.discard_pile_size,
        )

    def answering_from_hand(self) -> bool:
        """True when the penalty decision was answered "pick a card"."""
        return self.declined is not None and self.declined == self.decision_key()

    def penalty_info(self) -> PenaltyInfo:
        """What the penalty prompt says now."""
        view = self.view
        assert view is not None
        kinds = {a.kind for a in self.state.legal}
        by: str | None = None  # the round's starter card, unless a play this round put it there
        events = self.state.events
        at = len(events)
        for at in range(len(events) - 1, -1, -1):
            e = events[at]
            if e.kind is EventKind.ROUND_STARTED:
                break
            if e.kind is EventKind.PLAYED:
                by = self.name_of_cap(e.player)
                break
        else:  # no history of this round here: the player before
            by = self.name_of_cap(seat_after(view, view.current, -1))
        return PenaltyInfo(
            by,
            view.top_card,
            view.pending_penalty,
            view.colour,
            CHALLENGE in kinds,
            PLAY in kinds,
            colour_before(events, at) if by is not None else -1,
        )

    def drawn_with_uno(self) -> bool:
        """True when the drawn card may be played with a UNO call."""
        return any(a.kind is PLAY and a.uno for a in self.state.legal)

    def starter_colours(self) -> list[int]:
        """The colours a Wild starter may be given."""
        return [a.colour for a in self.legal_of(CHOOSE)]

    def still_playable(self, card: int | None) -> bool:
        """True while the server still lists a play of ``card``."""
        return any(a.kind is PLAY and a.card == card for a in self.state.legal)

    # ------------------------------------------------------------- choices

    def action_of(self, kind: ActionKind) -> Send | Refuse:
        """The legal action of ``kind``, or why there is none."""
        for a in self.state.legal:
            if a.kind is kind:
                return Send(a)
        return Refuse(f"You cannot {kind.name.lower().replace('_', ' ')} now")

    def can_act(self) -> bool:
        """True when keys may act: a view, nothing in flight, not a spectator."""
        return self.view is not None and not self.sending and not self.spectator

    def resolve_play(self, request: PlayRequest) -> Resolution:
        """The legal play ``request`` means, or what is still to ask (a colour,
        the player to swap with), or why it cannot be played."""
        card, extra, colour, target = request.card, request.extra, request.colour, request.target
        plays = [
            a for a in self.state.legal if a.kind is PLAY and a.card == card and a.extra == extra
        ]
        if not plays:
            if colour is not None or target is not None:
                return Refuse("That play is no longer possible")
            if self.my_turn:
                return Refuse(Text.assemble("The ", card_text(card), " cannot be played now").plain)
            if self.view is not None and self.view.phase < Phase.ROUND_OVER:
                return Refuse("It is not your turn", timeout=2)
            return None
        want_uno = self.uno_armed if request.uno is None else request.uno
        if want_uno and not any(a.uno for a in plays):
            want_uno = False
        plays = [a for a in plays if a.uno == want_uno] or plays
        if colour is not None:
            plays = [a for a in plays if a.colour == colour]
        if target is not None:
            plays = [a for a in plays if a.target == target]
        if not plays:
            return Refuse("That play is no longer possible")
        request = PlayRequest(card, want_uno, colour, target, extra)
        colours = sorted({a.colour for a in plays})
        if len(colours) > 1:
            return AskColour(request, tuple(c for c in colours if c >= 0))
        targets = sorted({a.target for a in plays})
        if len(targets) > 1:
            assert self.view is not None
            sizes = self.view.hand_sizes
            choices = tuple(
                (t, self.name_of(t), sizes[t] if 0 <= t < len(sizes) else 0)
                for t in targets
                if t >= 0
            )
            return AskTarget(PlayRequest(card, want_uno, colours[0], None, extra), choices)
        return Send(plays[0])

    def resolve_marked(self) -> Resolution:
        """The legal play that lays exactly the marked cards, or why none does."""
        marked = frozenset(self.marked)
        plays = [
            a
            for a in self.state.legal
            if a.kind is PLAY and frozenset((a.card, *a.extra)) == marked
        ]
        if plays:
            return self.resolve_play(PlayRequest(plays[0].card, extra=plays[0].extra))
        cards = [c for c in self.shown if c in marked]
        names = " + ".join(card_text(c).plain for c in cards)
        if not self.my_turn:
            reason = "it is not your turn"
        elif len(cards) > 1 and not self.multi_play:
            reason = "this table plays one card at a time"
        else:
            reason = "no play lays exactly these cards now"
        return Refuse(f"Cannot play {names}: {reason}. Space unmarks, Esc clears the marks.")

    def resolve_enter(self) -> Resolution:
        """Enter: play the marked cards if any are marked, else the selected
        card; a card that cannot answer an open decision brings its prompt back.
        Nothing while the keys are held (:meth:`hold_keys`)."""
        if not self.can_act() or self.keys_held or not self.shown:
            return None
        if self.marked:
            return self.resolve_marked()
        card = self.shown[self.selected]
        if not self.still_playable(card) and self.wanted_prompt() is not None:
            self.declined = None  # bring the decision back
            return Reopen()
        return self.resolve_play(PlayRequest(card))

    def resolve_draw(self) -> Resolution:
        """d: draw, on your turn."""
        if not self.can_act():
            return None
        if not self.my_turn:
            return Refuse("It is not your turn")
        return self.action_of(DRAW)

    def resolve_uno(self) -> Resolution:
        """u: call UNO now if you can be caught, else arm (or disarm) the call
        that rides on your next play; with one card left and UNO called,
        say that it is."""
        if not self.can_act():
            return None
        view = self.view
        assert view is not None
        call = self.legal_of(CALL_UNO)
        if call and view.catchable == self.me:
            return Send(call[0])
        if len(view.hand) == 1 and self.me < len(view.uno_called) and view.uno_called[self.me]:
            return Notice("UNO already called: you cannot be caught with your last card")
        self.uno_armed = not self.uno_armed
        return Notice("UNO armed: your next play calls UNO" if self.uno_armed else "UNO disarmed")

    def resolve_catch(self) -> Resolution:
        """c: catch the player who did not call UNO."""
        if not self.can_act():
            return None
        catch = self.legal_of(CATCH)
        if catch:
            return Send(catch[0])
        return Refuse("Nobody can be caught now", timeout=2)

    # ------------------------------------------------------------- sending

    def sent(self, action: Action) -> None:
        """``action`` went out: wait for the server's answer (the marks are
        spent on it; the status line says it is on its way)."""
        if action.kind is PLAY and action.uno:
            self.uno_armed = False
        self.sending = True
        self.sent_legal = self.state.legal
        self.sent_action = action
        self.marked.clear()

    def answered(self) -> None:
        """An update came: the intent in flight is answered if the legal actions moved."""
        if self.sending and self.state.legal != self.sent_legal:
            self.sending = False

    # ------------------------------------------------------------- the log

    def new_log_lines(self) -> list[Text]:
        """Lines for the events not logged yet."""
        events, seats, me = self.state.events, self.seats(), self.me
        lines = []
        while self.logged < len(events):
            event = events[self.logged]
            after = events[self.logged - 1].kind if self.logged else None
            if event.kind is EventKind.DEALER_DRAW:
                tie = self._tie_line(event, seats, me)
                if tie is not None:
                    lines.append(tie)
            elif event.kind is EventKind.DEALER_CHOSEN:
                self.deal_numbers.clear()
            line = event_line(event, seats, me, after)
            if (  # a draw (or a keep) that ends your turn: say so, not only who is next
                line is None
                and event.kind is EventKind.TURN
                and event.player != me
                and self.logged > 0
                and events[self.logged - 1].kind in _ENDS_YOUR_TURN
                and events[self.logged - 1].player == me >= 0
            ):
                line = Text("Your turn passes", style="italic")
            self.logged += 1
            if line is not None:
                lines.append(line)
        return lines

    def _tie_line(self, event: Event, seats: Sequence[SeatInfo], me: int) -> Text | None:
        """RULES.md section 2, "Dealer draw": a player who drew a number draws
        again only when tied for the highest; before the first draw of a tie,
        the line that says so (else the draws again read as a mystery)."""
        drawn, tie = self.deal_numbers, None
        if event.player in drawn:
            best = max(drawn.values())
            tied = " and ".join(seat_name(seats, p, me) for p, n in drawn.items() if n == best)
            tie = Text(f"A tie for the highest number, {best}: {tied} draw again", style="italic")
            drawn.clear()
        if IS_NUMBER[event.cards[0]]:  # (as its own line reads it: render.event_line)
            drawn[event.player] = int(RANK[event.cards[0]])
        return tie

    # ------------------------------------------------------------- results

    def round_result(self) -> RoundResult:
        """The last round's results, from the events and the view."""
        view = self.view
        assert view is not None
        n = len(view.hand_sizes)
        hands = [0] * n
        points = 0
        for event in reversed(self.state.events):
            if event.kind is EventKind.ROUND_STARTED:
                break
            if event.kind is EventKind.HAND_SCORED and 0 <= event.player < n:
                hands[event.player] = event.value
            if event.kind is EventKind.ROUND_OVER:
                points = event.value
        names = [self.name_of_cap(i) for i in range(n)]
        target = self.table.rules.target_score if self.table is not None else 500
        return RoundResult(
            view.round_number,
            names[view.round_winner] if view.round_winner >= 0 else "?",
            points,
            names,
            list(view.hand_sizes),
            hands,
            list(view.scores),
            target,
        )

    def final_result(self) -> FinalResult:
        """The final standings."""
        view = self.view
        assert view is not None
        return FinalResult(
            tuple(self.name_of_cap(i) for i in range(len(view.hand_sizes))),
            tuple(view.scores),
            tuple(view.game_winners),
            self.rules is not None and self.rules.scoring is Scoring.PENALTY,
        )

    # ------------------------------------------------------------- top lines

    def topbar(self, target: str = "") -> Text:
        """The top bar: the title, the rules, the round and direction, the server."""
        view = self.view
        title = self.table.title if self.table is not None else "UNO"
        text = Text(" UNO ", style="bold #ffffff on #c62828")
        text.append(f" {title}", style="bold")
        rules = rules_label(self.table.rules) if self.table is not None else ""
        if rules:
            text.append(f" · {rules}", style="dim")
        if view is not None:
            text.append(f" · round {view.round_number}")
            text.append(" · ↻" if view.direction == 1 else " · ↺")
        if target:
            text.append(f" · {target}", style="dim")
        return text

    def rules_notes(self) -> tuple[str, list[str]] | None:
        """The rules line: the preset and the notes (seeded, then each option
        that differs from official); None at an official table that is not seeded."""
        rules = self.rules
        changed = differences(rules) if rules is not None else []
        seeded = self.table is not None and self.table.seeded
        if not changed and not seeded:
            return None
        notes = [SEEDED_NOTE] if seeded else []
        return (
            preset_name(rules) if rules is not None else "custom",
            notes + [short_text(n, v) for n, v in changed],
        )

    def status(self) -> tuple[Text, Text]:
        """The status line and the hint line under it."""
        if self.spectator:
            return self._spectator_status()
        return self._player_status()

    def _waiting_line(self) -> str:
        seats = self.seats()
        taken = sum(1 for s in seats if s.occupied)
        return f"Waiting for the game to start: {taken}/{len(seats)} seats taken"

    def _spectator_status(self) -> tuple[Text, Text]:
        view = self.view
        seconds, window = self.seconds_left(), self.window_left()
        line = Text()
        line.append(" WATCHING ", style="bold #ffffff on #1565c0")
        line.append(" ")
        if self.failed:
            line.append(self.failed, style="bold #ef5350")
        elif self.reconnecting:
            line.append(_reconnect_line(self.restarting), style="italic")
        elif view is None:
            line.append(self._waiting_line())
        elif view.phase is Phase.GAME_OVER:
            winners = " and ".join(self.name_of(w) for w in view.game_winners)
            line.append(f"Game over: {winners} won", style="bold")
        elif view.phase is Phase.ROUND_OVER:
            line.append(f"Round over: {self.name_of(view.round_winner)} went out", style="bold")
        else:
            line.append(f"{self.name_of(view.current)}'s turn", style="bold")
            if seconds is not None:
                line.append(f"  {seconds}s left", style="dim")
        if window is not None:
            line.append(f"  ⏳ {window:.1f}s", style="dim")
        hint = Text(
            "You watch: hand sizes, never cards · q or Esc back to the lobby · ? help", style="dim"
        )
        return line, hint

    def _player_status(self) -> tuple[Text, Text]:
        view = self.view
        seconds, window = self.seconds_left(), self.window_left()
        line = Text()
        hint = Text(style="dim")
        if self.failed:
            line.append(self.failed, style="bold #ef5350")
            hint.append("q leave")
        elif self.reconnecting:
            line.append(_reconnect_line(self.restarting), style="bold #f4c20d")
            hint.append("no move can be sent until it is back · q leave")
        elif view is None:
            line.append(self._waiting_line(), style="bold")
            seats = self.seats()
            if all(s.occupied for s in seats):
                hint.append("s start · q leave")
            else:
                hint.append(
                    "b add a bot to an empty seat · s start when every seat is taken · q leave"
                )
        elif view.phase is Phase.GAME_OVER:
            winners = " and ".join(self.name_of(w) for w in view.game_winners)
            line.append(f"Game over: {winners} won", style="bold")
            hint.append("q final standings")
        elif view.phase is Phase.ROUND_OVER:
            line.append(
                f"Round over: {self.name_of(view.round_winner)} went out. "
                "The next round starts shortly…",
                style="bold",
            )
        elif self.sending and self.sent_action is not None:
            names = [self.name_of(i) for i in range(len(view.hand_sizes))]
            line.append(" SENDING ", style="bold #1a1a1a on #90caf9")
            line.append(f" {action_words(self.sent_action, names)}…", style="bold")
        elif self.my_turn:
            line.append(" YOUR TURN ", style="bold #1a1a1a on #f4c20d")
            line.append_text(self._turn_words())
            if seconds is not None:
                line.append(f"  {seconds}s left", style="bold")
        else:
            line.append(f"{self.name_of(view.current)}'s turn")
            seats = self.seats()
            bot = 0 <= view.current < len(seats) and seats[view.current].bot
            if seconds is not None and not bot:
                line.append(f"  {seconds}s left", style="dim")
            if self.legal_of(PLAY):
                line.append(
                    "  You may jump in: Enter on a card marked “jump!”", style="bold #f4c20d"
                )
        if window is not None:
            line.append(f"  ⏳ {window:.1f}s", style="dim")  # the window: see ? help
        if view is not None and view.phase < Phase.ROUND_OVER and not self.offline:
            hint = self._hint(view, window)
        return line, hint

    def _turn_words(self) -> Text:
        """What to do on your turn, after "YOUR TURN"."""
        view = self.view
        assert view is not None
        if view.phase is Phase.PLAY:
            can_draw = bool(self.legal_of(DRAW))
            if not self.legal_of(PLAY):
                return Text(" no card fits: d draws" if can_draw else " nothing to play")
            return Text(" play a card marked “play”" + (", or d to draw" if can_draw else ""))
        if view.phase is Phase.DRAWN:
            return Text(" play the card you drew, or keep it")
        if view.phase is Phase.PENALTY:
            if self.answering_from_hand():
                return Text(
                    " answer with a card marked “play” (Enter on another card: back to the choice)"
                )
            return Text(f" +{view.pending_penalty} on you: {', '.join(self._penalty_keys())}")
        return Text(" name the colour of the starter card")

    def _penalty_keys(self) -> list[str]:
        """The keys of the penalty decision (its prompt's): Enter accepts,
        c challenges (a Wild Draw Four), h answers with a card (house rules)."""
        kinds = {a.kind for a in self.state.legal}
        keys = ["Enter accepts"]
        if CHALLENGE in kinds:
            keys.append("c challenges")
        if PLAY in kinds:
            keys.append("h answers with a card")
        return keys

    def _hint(self, view: PlayerView, window: float | None) -> Text:
        """The hint line while a round is on."""
        if view.phase is Phase.PENALTY and self.my_turn and not self.answering_from_hand():
            return Text(" · ".join(self._penalty_keys()), style="dim")
        catch = self.legal_of(CATCH)
        if window is not None and self.sending:
            return Text(
                "Sent: your move is judged when the out-of-turn window closes", style="bold"
            )
        if catch:
            return Text(
                f"{self.name_of(catch[0].target)} did not call UNO: press c to catch!",
                style="bold #ef5350",
            )
        if self.legal_of(CALL_UNO) and view.catchable == self.me:
            return Text(
                "You have one card: press u to call UNO before you are caught!",
                style="bold #f4c20d",
            )
        if self.marked:
            hint = Text("Marked: ", style="bold")
            for i, card in enumerate(c for c in view.hand if c in self.marked):
                hint.append_text(Text(" + ") + card_text(card) if i else card_text(card))
            hint.append(" · Enter plays them · Space unmarks · Esc clears", style="dim")
            return hint
        if self.uno_armed:
            return Text("UNO armed: your next play calls UNO (u to disarm)", style="bold #f4c20d")
        if len(view.hand) == 2 and self.legal_of(PLAY):
            return Text("Two cards left: press u so your play calls UNO", style="bold #f4c20d")
        if self.multi_play:
            return Text(
                "←/→ 1-9 select · Space mark · Enter play · d draw · u UNO · c catch · ? help",
                style="dim",
            )
        return Text(
            "←/→ or 1-9 select · Enter play · d draw · u UNO · c catch · ? help", style="dim"
        )


def _reconnect_line(restarting: bool) -> str:
    """The status line while the stream is being reopened."""
    return "Server restarting, reconnecting…" if restarting else "Connection lost: reconnecting…"
