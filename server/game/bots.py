"""Bot strategies: pure decision functions over a seat's view and legal actions.

No I/O, no clock, no asyncio: a bot sees only what its seat may know (a
:class:`~unoplay.game.engine.PlayerView`) and the list the engine gives from
``GameState.legal_actions(seat)``, and answers with one element of that list,
or None to do nothing for now (allowed only when it is not the bot's turn).

Drive a bot by asking it after every action, in turn or not::

    action = bot.decide(game.view(seat), game.legal_actions(seat))
    if action is not None:
        game.apply(seat, action)
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .actions import Action, ActionKind
from .cards import COLOUR, RANK, Rank
from .events import Event, visible
from .playorder import ATTACKING, NOT_ATTACKING, play_key
from .rules import RuleSet
from .view import Phase, PlayerView

if TYPE_CHECKING:
    from .engine import GameState

_PLAY = ActionKind.PLAY
_CATCH = ActionKind.CATCH
_CALL_UNO = ActionKind.CALL_UNO
_CHALLENGE = ActionKind.CHALLENGE
_ACCEPT = ActionKind.ACCEPT
_DRAW = ActionKind.DRAW
_KEEP = ActionKind.KEEP
_OUT_OF_TURN = (_CATCH, _CALL_UNO)

_WILD = int(Rank.WILD)
_WD4 = int(Rank.WILD_DRAW_FOUR)

#: Greedy challenges a Wild Draw Four when its player still holds this many cards.
CHALLENGE_MIN_HAND = 4


class Bot:
    """A strategy for one seat. Subclasses override :meth:`decide`.

    ``name`` is a short label for logs and tables (the kind, e.g. ``"greedy"``).
    """

    name: str = "bot"
    #: Whether the kind's constructor takes the table's rules after its seed
    #: (a search bot simulates them; :func:`~.registry.make_bot` passes them).
    needs_rules: bool = False
    #: Whether the kind learns from the events it sees: whoever runs the bot
    #: then passes it every event its seat sees, in order, to :meth:`observe`.
    observes: bool = False
    #: Whether the kind takes a budget per decision (keywords ``time_ms`` and
    #: ``iterations``, given in a kind spec after ``@``: :func:`~.registry.parse_kind`);
    #: such a bot keeps its ``time_ms`` (None: no time limit) as an attribute.
    budgeted: bool = False

    def observe(self, events: Sequence[Event]) -> None:
        """The events this seat saw since the last call (its private ones
        too), in order; called only for kinds with ``observes`` set. The
        default ignores them."""

    def decide(self, view: PlayerView, legal: Sequence[Action]) -> Action | None:
        """The action to take now, given ``view`` (this seat's information) and
        ``legal`` (``GameState.legal_actions(view.seat)``).

        Returns an element of ``legal``, or None for "nothing now", which is
        allowed only when it is not this seat's turn (``view.current != view.seat``).
        """
        raise NotImplementedError


_SYSTEM_RANDOM = random.SystemRandom()  # no state of its own: one serves every bot


def bot_random(seed: int | None) -> random.Random:
    """A bot's source of chance: ``random.Random(seed)`` for a seeded bot
    (matches and tests replay), else the operating system's generator, shared:
    a server's unseeded bots keep no 2.5 KB generator state each, and nobody
    can predict them from their moves."""
    return _SYSTEM_RANDOM if seed is None else random.Random(seed)


class RandomBot(Bot):
    """Uniformly random legal play, for baselines and fuzzing.

    On its turn: a uniform choice over all of ``legal`` (so also a catch or
    a due UNO call when one is listed; never a false UNO call, which only
    costs cards). Out of turn: with probability 1/2 a uniform choice over
    ``legal`` (catches, a due UNO call, jump-ins), otherwise None. All chance
    comes from :func:`bot_random` (its own ``random.Random(seed)``, or with
    ``seed`` None the operating system's generator).
    """

    name = "random"

    def __init__(self, seed: int | None = None):
        self.rng = bot_random(seed)

    def decide(self, view: PlayerView, legal: Sequence[Action]) -> Action | None:
        """A uniform legal action on its turn; out of turn one half of the time, else None."""
        if view.catchable != view.seat:  # a false UNO call (false_uno_penalty) only costs
            legal = [a for a in legal if a.kind is not _CALL_UNO]
        if not legal:
            return None
        rng = self.rng
        if view.current != view.seat and rng.random() >= 0.5:
            return None
        return legal[int(rng.random() * len(legal))]


class GreedyBot(Bot):
    """A one-ply heuristic player.

    Out of turn (and first thing on its turn): catch whoever can be caught;
    call UNO for itself if it holds one card uncalled; jump in when the house
    rules allow it; otherwise nothing. Under house rules it also stacks or
    deflects a pending penalty whenever it can, and swaps hands (7 or 5) with
    the player holding the fewest cards.

    On its turn:

    * ``PENALTY`` (a Wild Draw Four is pending): accepting costs 4 cards;
      challenging costs 6 if the play was legal and 0 if not, so challenging
      pays when P(guilty) > 1/3. A player left with many cards is likely to
      have held the colour in force, so it challenges when the offender (the
      previous seat) still holds at least :data:`CHALLENGE_MIN_HAND` cards.
    * ``CHOOSE_COLOUR``: the colour it holds most.
    * ``PLAY`` / ``DRAWN``: the best playable card, by in order: a non-wild
      card before a Wild before a Wild Draw Four; Draw Two, Skip, Reverse (in
      that order) when the next player holds 2 cards or fewer; under
      ``multi_play`` the play laying the most cards; leaving in force the
      colour it holds most; higher points first (action cards before numbers,
      high numbers before low). A wild names the colour it holds most among its
      other cards. A variant calling UNO is always taken when offered. With no
      playable card it draws; a drawn card that fits is always played.

    ``seed`` only breaks ties between colours held equally often.
    """

    name = "greedy"

    def __init__(self, seed: int | None = None):
        self.rng = bot_random(seed)

    def decide(self, view: PlayerView, legal: Sequence[Action]) -> Action | None:
        """The heuristic's action (see the class docstring); None out of turn
        when there is nobody to catch and no UNO to call."""
        seat = view.seat
        call = None
        for a in legal:
            kind = a.kind
            if kind is _CATCH:
                return a
            if kind is _CALL_UNO and view.catchable == seat:
                call = a
        if call is not None:
            return call
        if view.current != seat:
            # A jump-in (house rule) sheds a card and cuts others out: always worth it.
            return self._play(view, legal) if any(a.kind is _PLAY for a in legal) else None
        phase = view.phase
        if phase is Phase.PLAY or phase is Phase.DRAWN:
            return self._play(view, legal)
        if phase is Phase.PENALTY:
            if any(a.kind is _PLAY for a in legal):  # stack or deflect (house rules)
                return self._play(view, legal)
            offender = seat_after(view, view.current, -1)
            want = _CHALLENGE if view.hand_sizes[offender] >= CHALLENGE_MIN_HAND else _ACCEPT
            for a in legal:
                if a.kind is want:
                    return a
        elif phase is Phase.CHOOSE_COLOUR:
            colour = self._best_colour(view.hand)
            for a in legal:
                if a.colour == colour:
                    return a
        return _first_turn_action(legal)

    def _best_colour(self, hand: Sequence[int]) -> int:
        """The colour (0..3) of most cards in ``hand``; ties broken at random."""
        counts = [0, 0, 0, 0, 0]
        for card in hand:
            counts[COLOUR[card]] += 1
        counts.pop()  # wilds
        most = max(counts)
        best = [k for k in range(4) if counts[k] == most]
        return best[0] if len(best) == 1 else best[int(self.rng.random() * len(best))]

    def _play(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        """The best PLAY in ``legal`` by the class docstring's order, else DRAW / KEEP."""
        hand = view.hand
        counts = [0, 0, 0, 0, 0]
        for card in hand:
            counts[COLOUR[card]] += 1
        sizes = view.hand_sizes
        attacks = ATTACKING if sizes[seat_after(view, view.seat, 1)] <= 2 else NOT_ATTACKING
        wild_colour = -2  # chosen lazily: most wild plays are never looked at
        best = None
        best_key = None
        for a in legal:
            if a.kind is not _PLAY:
                continue
            card = a.card
            rank = RANK[card]
            shed = len(a.extra)  # multi_play: more cards laid at once
            if rank >= _WILD:
                if wild_colour == -2:
                    wild_colour = self._best_colour(hand)
                if a.colour != wild_colour:
                    continue
                key = (a.uno, _WD4 - rank, shed, 0)
            else:
                colour = COLOUR[card] if a.colour < 0 else a.colour
                kept = counts[colour] - sum(COLOUR[c] == colour for c in (card, *a.extra))
                key = (
                    a.uno,
                    2,
                    play_key(card, shed, kept, attacks),
                    -sizes[a.target] if a.target >= 0 else 0,
                )  # swap into the smallest hand
            if best_key is None or key > best_key:
                best, best_key = a, key
        if best is not None:
            return best
        return _first_turn_action(legal)


def seat_after(view: PlayerView, seat: int, step: int) -> int:
    """The seat in play next to ``seat``: ``step`` 1 after it in the direction
    of play, -1 before it. Seats out of play (section 9 formats) are passed over."""
    n = len(view.hand_sizes)
    out = view.out_seats
    nxt = (seat + step * view.direction) % n
    while nxt in out and nxt != seat:
        nxt = (nxt + step * view.direction) % n
    return nxt


def _first_turn_action(legal: Sequence[Action]) -> Action:
    """DRAW or KEEP if listed, else the first action that is not a catch or call."""
    for a in legal:
        if a.kind is _DRAW or a.kind is _KEEP:
            return a
    for a in legal:
        if a.kind not in _OUT_OF_TURN:
            return a
    return legal[0]


def waiting_seats(state: GameState) -> list[int]:
    """The seats other than the current player's that may act out of turn now
    (a catch, their own UNO call, a jump-in), from the one after the current
    player in seat order. The same seats a table's out-of-turn window asks."""
    n = state.players
    cur = state.current
    return [s % n for s in range(cur + 1, cur + n) if state.legal_actions(s % n)]


def play_game(
    bots: Sequence[Bot],
    rules: RuleSet | None = None,
    seed: str | int | None = None,
    max_round_actions: int = 2000,
) -> GameState:
    """Play one game between ``bots`` (one per seat) without a server: after
    every action the seats that may act out of turn (:func:`waiting_seats`)
    are asked first, in seat order from the current player's, then the
    current player. A round that reaches ``max_round_actions`` caps the game
    (RULES.md, "Endless rounds"). Returns the finished state (its
    ``outcome()``). Raises IllegalAction if a bot answers an illegal action,
    ValueError if its turn's bot answers None."""
    from .engine import GameState

    watchers = [(seat, bot) for seat, bot in enumerate(bots) if bot.observes]

    def seen(events: list[Event]) -> None:
        for seat, bot in watchers:
            bot.observe(visible(events, seat))

    state, events = GameState.new(len(bots), rules, seed)
    seen(events)
    actions = 0
    while not state.is_game_over:
        if state.is_round_over:
            seen(state.next_round())
            actions = 0
            continue
        if actions >= max_round_actions:
            state.cap_round(actions)
            break
        acted = False
        for seat in waiting_seats(state):
            action = bots[seat].decide(state.view(seat), state.legal_actions(seat))
            if action is not None:
                seen(state.apply(seat, action))
                acted = True
                break
        if not acted:
            seat = state.current
            action = bots[seat].decide(state.view(seat), state.legal_actions(seat))
            if action is None:
                raise ValueError(f"{bots[seat].name} at seat {seat} did nothing on its turn")
            seen(state.apply(seat, action))
        actions += 1
    return state
