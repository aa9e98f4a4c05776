"""UNO as an OpenSpiel game: ``python_unoplay``, registered with
``pyspiel.register_game`` when this module is imported. Needs the
``openspiel`` extra (``pip install 'unoplay[openspiel]'``).

>>> import pyspiel
>>> import unoplay.client.research.openspiel  # registers python_unoplay
>>> game = pyspiel.load_game("python_unoplay", {"players": 3, "target_score": 0})
>>> state = game.new_initial_state()
>>> state.is_chance_node(), len(state.chance_outcomes())  # the dealer draw
(True, 108)

**Parameters**: ``players`` (2..10, default 4); ``rules``, a preset name
(:data:`unoplay.game.PRESETS`: ``official``, ``house``); ``target_score``
(-1: the preset's, 500; 0: a one-round game); ``max_round_actions`` (a round
that reaches it ends the game with no winner, RULES.md "Endless rounds");
``utility``, ``points`` or ``win``; ``points_scale``, dividing points;
``canonical_actions`` (default true: actions by card face, see below).

**Chance** is explicit (:mod:`.chance`): the dealer draw, the deal, the
starter and every card taken from an unshuffled pile are chance nodes of
``n`` equally likely outcomes (``n`` the cards left to choose from, at most
108 = ``max_chance_outcomes``), sampled by OpenSpiel, so a state is its
history. The server's games are untouched: they keep their seeded deals.

**Actions**: ``0..A-1`` the engine's dense index (:class:`unoplay.game.Game`,
as in the PettingZoo environment), canonical: one per distinct decision
(card face, colour named, UNO flag, catch target; the engine picks which
copy of a card is played), and ``A`` the pass of a seat asked out of turn.
``num_distinct_actions()`` is 132 at two seats, 134 at four (official). Out-of-turn actions (catches, a late UNO call, jump-ins) are asked in
a window after every action, seat by seat, as in :mod:`.env`; the current
player moves when all have passed.

**Information**: ``information_state_string(p)`` is everything seat ``p``
saw, in order (every event it may see, every pass; cards by face):
perfect recall. ``information_state_tensor(p)`` is seat ``p``'s view
(:func:`.features.encode`), then the cards of each kind played this round
(54), then 1.0 when ``p`` is asked out of turn: a summary, not perfect
recall. ``observation_tensor(p)`` is the view and the flag;
``observation_string(p)`` the view in words. Nothing of another seat's hand
or the piles' order is read.

**Returns** (terminal only, zero-sum): under ``utility=points`` each seat's
game score minus the mean score, divided by ``points_scale`` (negated under
``scoring=penalty``, where points are bad); under ``utility=win`` each of
``w`` game winners gets ``(n - w) / w`` and every other seat -1. A capped
game is a draw: 0 for every seat.

**Resampling**: ``state.resample_from_infostate(p, sampler)`` deals the
cards ``p`` cannot see again (:meth:`.chance.Table.resample`), for
OpenSpiel's Python ``ISMCTSBot``. The sampled state's ``history()`` is not
a history that leads to it.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pyspiel

from unoplay.game import PRESETS, RuleSet
from unoplay.game.cards import DECK_SIZE, STANDARD_POINTS
from unoplay.game.research import Game
from unoplay.game.rules import MAX_PLAYERS, MIN_PLAYERS, Scoring

from .chance import Table
from .features import CARD_KINDS, encode, observation_size

DEFAULTS: dict[str, Any] = {
    "players": 4,
    "rules": "official",
    "target_score": -1,
    "max_round_actions": 1000,
    "utility": "points",
    "points_scale": 100.0,
    "canonical_actions": True,
}

GAME_TYPE = pyspiel.GameType(
    short_name="python_unoplay",
    long_name="UNO (unoplay)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=MAX_PLAYERS,
    min_num_players=MIN_PLAYERS,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=DEFAULTS,
)


class _Spec:
    """What every state of one game shares (the rules, the action index):
    never copied when OpenSpiel deep-copies a state."""

    def __init__(self, params: dict[str, Any]) -> None:
        self.params = params
        self.players = players = int(params["players"])
        if params["rules"] not in PRESETS:
            raise ValueError(f"rules must be one of {', '.join(PRESETS)}")
        rules: RuleSet = PRESETS[params["rules"]]
        if params["target_score"] >= 0:
            rules = rules.replace(target_score=int(params["target_score"]))
        self.rules = rules
        self.max_round_actions = int(params["max_round_actions"])
        if params["utility"] not in ("points", "win"):
            raise ValueError("utility must be points or win")
        self.utility = params["utility"]
        self.points_scale = float(params["points_scale"])
        self.codec = Game(players, rules, bool(params["canonical_actions"]))
        self.pass_action = self.codec.num_distinct_actions()

    def __deepcopy__(self, memo: dict[int, Any]) -> _Spec:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (_Spec, (self.params,))  # pickled (serialised states) as its parameters

    def max_utility(self) -> float:
        """A bound on any return: ``n - 1`` wins, or a score below the target
        plus every card's points, over ``points_scale``."""
        if self.utility == "win":
            return float(self.players - 1)
        return (max(self.rules.target_score, 0) + sum(STANDARD_POINTS)) / self.points_scale

    def max_game_length(self) -> int:
        """A bound on the decisions of a game, assuming a round scores at
        least one point (a round where every loser holds only zeros scores
        none): ``max_round_actions`` actions a round, each followed by at
        most ``players - 1`` passes, ``target_score + 1`` rounds."""
        rounds = max(self.rules.target_score, 0) + 1
        return self.max_round_actions * self.players * rounds


class UnoGame(pyspiel.Game):  # type: ignore[misc]
    """The OpenSpiel game ``python_unoplay`` (see the module docstring).
    Raises ValueError for an unknown preset or utility, RuleError for a seat
    count the rules do not allow."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        merged = {**DEFAULTS, **(params or {})}
        spec = _Spec(merged)
        info = pyspiel.GameInfo(
            num_distinct_actions=spec.pass_action + 1,
            max_chance_outcomes=DECK_SIZE,
            num_players=spec.players,
            min_utility=-spec.max_utility(),
            max_utility=spec.max_utility(),
            utility_sum=0.0,
            max_game_length=spec.max_game_length(),
        )
        super().__init__(GAME_TYPE, info, merged)
        self.spec = spec

    def new_initial_state(self) -> UnoState:
        """The game before the dealer draw: a chance node."""
        return UnoState(self)

    def max_chance_nodes_in_history(self) -> int:
        """A bound on the chance nodes of a history: every card drawn at most
        once per decision (a loose bound; the deal is at most 108)."""
        return DECK_SIZE * (self.spec.max_game_length() + 1)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> UnoObserver:
        """The observer of information states (perfect recall) or observations."""
        recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        return UnoObserver(self.spec.players, recall)


class UnoState(pyspiel.State):  # type: ignore[misc]
    """One state of ``python_unoplay``: a :class:`.chance.Table` and the
    game's shared spec."""

    def __init__(self, game: UnoGame) -> None:
        super().__init__(game)
        self.spec = spec = game.spec
        self.table = Table(spec.players, spec.rules, spec.max_round_actions)

    def current_player(self) -> int:
        """The seat to act, CHANCE while a chance outcome is wanted, or TERMINAL."""
        table = self.table
        if table.chance_outcomes():
            return int(pyspiel.PlayerId.CHANCE)
        if table.is_over:
            return int(pyspiel.PlayerId.TERMINAL)
        return table.to_move()

    def _legal_actions(self, player: int) -> list[int]:
        """The sorted action ids ``player`` may take (the pass last, when asked out of turn)."""
        table = self.table
        assert table.state is not None
        actions = sorted(self.spec.codec.legal_actions_by_index(table.state, player))
        if table.may_pass(player):
            actions.append(self.spec.pass_action)
        return actions

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """``n`` outcomes, each ``1/n``."""
        n = self.table.chance_outcomes()
        return [(i, 1.0 / n) for i in range(n)]

    def _apply_action(self, action: int) -> None:
        table = self.table
        if table.chance_outcomes():
            table.apply_chance(action)
            return
        seat = table.to_move()
        if action == self.spec.pass_action:
            table.pass_turn(seat)
            return
        assert table.state is not None
        legal = self.spec.codec.legal_actions_by_index(table.state, seat)
        table.apply(seat, legal[action])

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"chance {action}"
        if action == self.spec.pass_action:
            return "pass"
        text = self.spec.codec.action_from_index(action).describe()
        # by copy, two actions read alike: the index tells them apart
        return text if self.spec.codec.canonical else f"{text} #{action}"

    def is_terminal(self) -> bool:
        """True once the game is over (won or capped)."""
        return self.table.is_over

    def returns(self) -> list[float]:
        """Zero-sum returns (see the module docstring); zeros until the end."""
        spec = self.spec
        n = spec.players
        state = self.table.state
        if not self.table.is_over or state is None or not state.game_winners:
            return [0.0] * n
        if spec.utility == "win":
            w = len(state.game_winners)
            return [(n - w) / w if s in state.game_winners else -1.0 for s in range(n)]
        scores = state.scores
        mean = sum(scores) / n
        sign = -1.0 if spec.rules.scoring is Scoring.PENALTY else 1.0
        return [sign * (s - mean) / spec.points_scale for s in scores]

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> UnoState:
        """A state with the same information state for ``player_id``, the cards
        it cannot see dealt again (``probability_sampler()``, a float in
        [0, 1), seeds the deal). For OpenSpiel's Python ISMCTSBot."""
        rng = random.Random(int(probability_sampler() * 2**53))
        other = UnoState(self.get_game())
        other.table = self.table.resample(player_id, rng)
        return other

    def __str__(self) -> str:
        table = self.table
        state = table.state
        if state is None:
            return f"setting up: chance {table.chance_outcomes()}"
        hands = " | ".join(" ".join(map(str, state.hand(s))) for s in range(state.players))
        return (
            f"{state!r} hands: {hands} draw: {state.draw_pile} discard: {state.discard_pile} "
            f"colour {state.colour} window {table.window} chance {table.chance_outcomes()} "
            f"scores {state.scores}"
        )


class UnoObserver:
    """OpenSpiel's Python observer: ``tensor`` (float32) and ``dict`` of named
    views of it, ``set_from(state, player)``, ``string_from(state, player)``.
    With ``perfect_recall`` the information state, else the observation
    (sizes: :func:`.features.observation_size` + 54 + 1, or + 1)."""

    def __init__(self, players: int, perfect_recall: bool) -> None:
        self.recall = perfect_recall
        size = observation_size(players)
        pieces = [("view", size)] + ([("played", CARD_KINDS)] if perfect_recall else [])
        pieces.append(("asked_out_of_turn", 1))
        self.tensor = np.zeros(sum(k for _, k in pieces), np.float32)
        self.dict: dict[str, np.ndarray] = {}
        at = 0
        for name, k in pieces:
            self.dict[name] = self.tensor[at : at + k]
            at += k

    def set_from(self, state: UnoState, player: int) -> None:
        """Fill ``tensor`` from ``player``'s view of ``state`` (zeros before the deal)."""
        self.tensor.fill(0.0)
        table = state.table
        if table.state is None:
            return
        self.dict["view"][:] = encode(table.state.view(player))
        if self.recall:
            self.dict["played"][:] = table.played
        self.dict["asked_out_of_turn"][0] = float(table.may_pass(player))

    def string_from(self, state: UnoState, player: int) -> str:
        """Everything ``player`` saw (perfect recall), or its view now."""
        table = state.table
        if self.recall:
            return f"seat {player}\n" + "\n".join(table.seen(player))
        if table.state is None:
            return f"seat {player}"
        view = table.state.view(player)
        return f"seat {player} asked {table.may_pass(player)} {view!r}"


pyspiel.register_game(GAME_TYPE, UnoGame)
