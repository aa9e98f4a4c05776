"""UNO for reinforcement learning: a PettingZoo AEC environment with every rule
of the engine (2-10 players, any :class:`~unoplay.game.rules.RuleSet`: house
rules, every option, every format), and a Gymnasium single-agent wrapper
against the built-in bots. Needs the ``rl`` extra (PettingZoo, Gymnasium,
NumPy): ``pip install 'unoplay[rl]'``.

>>> from unoplay.client.research.env import UnoEnv
>>> env = UnoEnv(players=3)
>>> env.reset(seed=7)
>>> for agent in env.agent_iter():
...     obs, reward, terminated, truncated, info = env.last()
...     action = None if terminated or truncated else int(obs["action_mask"].nonzero()[0][0])
...     env.step(action)
>>> sorted(env.possible_agents)
['player_0', 'player_1', 'player_2']

**Agents** are ``player_0`` .. ``player_{n-1}``, one per seat.

**Actions** are a fixed ``Discrete(A + 1)``: 0..A-1 the game package's dense
action index (:class:`unoplay.game.Game`: every action these rules and
seats allow at all, a multi-card play numbered by its set of cards),
canonical by default: one index per distinct decision (card face and
colour named, UNO flag, catch target), so the two copies of a card are one
action and the engine picks the copy (``canonical=False``: one per copy); and A
(:attr:`UnoEnv.pass_action`) "nothing now". Sizes ``A + 1``: 132 at two
seats and 134 at four under the official rules (276 and 278 by copy), 5,324
and 5,326 under ``house`` (multi-card plays; 18,748 and 18,750 by copy). Every observation carries an
``action_mask`` (int8, 1 = legal): exactly the engine's legal actions of
that seat at that moment, plus the pass when the seat is asked out of turn.

**Out-of-turn actions** (catching a player who did not call UNO, one's own
late UNO call, a jump-in under ``jump_in``) do not fit the AEC model as
they are at a table, where anyone may act at any moment and the first
intent wins a race: AEC steps one agent at a time. So after every action
the environment opens a *window*, as the server's out-of-turn window does:
every seat other than the current player's that has a legal action now is
selected in turn, in seat order from the current player's, with a mask of
its out-of-turn actions plus the pass. The first that acts wins (its action
is applied and a new window opens on the new position); when all have
passed, the current player is selected. So no action the rules allow is
hidden from an agent, nobody wins by reflexes, and an agent that never
wants to act out of turn just passes (the pass is the only extra index).
The current player's own catches and UNO call are in its mask on its turn.

**Observations** (:meth:`UnoEnv.observe`) are built from that seat's
:class:`~unoplay.game.view.PlayerView` only (never from the state), as
``{"observation": float32[D], "action_mask": int8[A + 1]}``. Seats are
relative (index 0 is the observer, 1 the next seat clockwise, ...). The
vector, in order (:data:`CARD_KINDS` = 54 kinds, a kind being colour and
rank, 52 Wild, 53 Wild Draw Four; ``n`` seats):

* own hand: count per card kind (54);
* top card kind, one-hot (54); the colour in force, one-hot (4, all 0 while a
  Wild starter waits for one); this seat's just-drawn card, one-hot (54);
* per seat: hand size, UNO called, catchable, current player, out of play,
  score (6 x ``n``);
* direction (1 clockwise, 0 counter-clockwise), pending penalty, draw and
  discard pile sizes (4); the phase, one-hot over the six phases (6);
* with ``memory=True``, the played-cards memory (2 x 54): per card kind, the
  cards played this round, then this game (several in one multi-card play
  each count; the starter card turned up is not a play). Only public events
  go into it (every seat sees every play), so it is the same for every seat
  and holds nothing hidden: it is what a player who watched the table could
  count.

So D = 3 x 54 + 4 + 6n + 10 (188 at two seats, 200 at four), + 108 with
``memory`` (:func:`observation_size`, :attr:`UnoEnv.observation_size`).
Without ``normalize`` the values are counts and raw numbers, all >= 0 (the
space's bound is 1e6). With ``normalize=True`` every feature is in [0, 1]
(the space is ``Box(0, 1)``), block by block:

* own hand: count / copies of that kind in the deck (1 for a zero, 2 for the
  other coloured cards, 4 for either wild: :data:`.features.COPIES`);
* top card, colour, drawn card, UNO called, catchable, current, out,
  direction, phase: 0/1 as they are;
* hand sizes, draw and discard pile sizes: / 108 (the deck); pending
  penalty: / 108, capped at 1;
* scores: / :attr:`UnoEnv.score_scale` (the target score, 500 in a
  one-round game), capped at 1;
* memory, this round: count / copies, capped at 1 (a reshuffle may bring a
  card back into play); this game: ``c / (c + copies)`` for a count ``c``
  (0 for none, 0.5 when each copy was played once, never 1).

**Rewards** (``reward=``, :data:`REWARDS`):

* ``"points"`` (the default) come at the end of each round and game, by the
  table's scoring (RULES.md sections 7 and 9): at a round's end each seat
  gets the points it scored in that round divided by
  :attr:`UnoEnv.points_scale` (negated under ``scoring=penalty``, where
  points are bad); at the game's end each winner also gets 1.0. Not
  zero-sum: the losers get 0, a winner often above 3.
* ``"zero_sum"``: only at the game's end, +1 shared by the winners (1/w each
  of w) and -1 shared by the others (-1/(n - w) each): a win against three
  is +1 for the winner, -1/3 for each loser. A capped game (truncated) gives
  0 to all.
* ``"zero_sum_points"``: at each round's end, each seat's points of the
  round minus the mean of all seats' points of the round, over
  ``points_scale`` (negated under penalty scoring): the table's scoring made
  zero-sum, round by round, with no bonus for the game's winner (a capped
  round adds nothing; the earlier rounds' rewards stand).

Under the zero-sum schemes the rewards of every step sum to 0 over the seats.
Everything else is 0.

**Built-in bots as opponents** in the AEC loop: :meth:`UnoEnv.bot_action`
(``env.step(env.bot_action(agent, "greedy"))``) or a :class:`BotPolicy`,
which feed an observing bot its seat's events and map its move to an index.

The game ends (every agent terminated) when a score reaches the target;
a round that reaches ``max_round_actions`` ends it with no winner (RULES.md,
"Endless rounds"): every agent truncated.
"""

from __future__ import annotations

import random
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from unoplay.game import GameState, RuleSet
from unoplay.game.bots import Bot, waiting_seats
from unoplay.game.events import EVERYONE, Event, EventKind, visible
from unoplay.game.registry import make_bot
from unoplay.game.research import Game
from unoplay.game.rules import Scoring
from unoplay.game.search import KIND

from .features import CARD_KINDS, encode, observation_size

__all__ = [
    "CARD_KINDS",
    "REWARDS",
    "BotPolicy",
    "UnoEnv",
    "UnoGymEnv",
    "encode",
    "observation_size",
]

_PLAYED, _ROUND_STARTED = EventKind.PLAYED, EventKind.ROUND_STARTED

#: The reward schemes of :class:`UnoEnv` (its ``reward`` option).
REWARDS = ("points", "zero_sum", "zero_sum_points")


class UnoEnv(AECEnv):  # type: ignore[misc]
    """A PettingZoo AEC environment of one UNO game (see the module docstring
    for agents, actions, the out-of-turn window, observations and rewards).

    ``players`` 2..10, ``rules`` any RuleSet (default official; ``target_score
    =0`` for one-round games), ``points_scale`` divides the round rewards,
    ``max_round_actions`` caps a round (>= 1), ``canonical`` numbers actions
    by card face (the default) or by copy; ``reward`` one of :data:`REWARDS`
    (default ``"points"``), ``normalize`` every feature in [0, 1],
    ``memory`` the played-cards planes (module docstring, "Observations" and
    "Rewards"). ``reset(seed=...)`` makes the deal and everything after it
    replayable. Raises ValueError for an unknown ``reward``, ValueError /
    RuleError for a seat count the rules do not allow.
    """

    metadata = {"render_modes": ["ansi"], "name": "unoplay_uno_v0", "is_parallelizable": False}

    def __init__(
        self,
        players: int = 4,
        rules: RuleSet | None = None,
        points_scale: float = 100.0,
        max_round_actions: int = 2000,
        render_mode: str | None = None,
        canonical: bool = True,
        reward: str = "points",
        normalize: bool = False,
        memory: bool = False,
    ) -> None:
        super().__init__()
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}")
        self.game = Game(players, rules, canonical)
        self.rules = self.game.rules
        self.players = players
        self.points_scale = points_scale
        self.max_round_actions = max_round_actions
        self.render_mode = render_mode
        self.reward = reward
        self.normalize = normalize
        self.memory = memory
        #: what a score is divided by under ``normalize``: the target, or 500
        #: in a one-round game
        self.score_scale = float(self.rules.target_score or 500)
        self.pass_action = self.game.num_distinct_actions()
        self.possible_agents = [f"player_{s}" for s in range(players)]
        #: D, the observation vector's length (:func:`observation_size`)
        self.observation_size = size = observation_size(players, memory)
        high = 1.0 if normalize else 1e6
        self._obs_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, high, (size,), np.float32),
                "action_mask": spaces.Box(0, 1, (self.pass_action + 1,), np.int8),
            }
        )
        self._act_space = spaces.Discrete(self.pass_action + 1)
        self._sign = -1.0 if self.rules.scoring is Scoring.PENALTY else 1.0
        self.state: GameState | None = None
        #: whether :attr:`events` keeps this game's events (needed by observing
        #: bots, :class:`BotPolicy`); UnoGymEnv sets it only when a bot observes
        self.keep_events = True
        #: games dealt so far by :meth:`reset` (how a :class:`BotPolicy` tells a new game)
        self.games = 0
        #: the seed of this game's deal (None: a fresh secret deal)
        self.game_seed: int | None = None
        #: the played-cards memory: per card kind, played this round, this game
        self.played = np.zeros((2, CARD_KINDS), np.float32)
        self._policies: dict[tuple[str, str | None], BotPolicy] = {}

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The same Dict space for every agent (see :func:`observation_size`)."""
        return self._obs_space

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """``Discrete(A + 1)``: the dense action index and the pass."""
        return self._act_space

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new game. ``seed`` s deals game ``"env-s"`` and seeds a
        generator that the later resets without a seed draw their deals from
        (s, then the k-th unseeded reset: the same games every run); before
        any seed, a fresh secret deal."""
        if seed is not None:
            self._seeder: random.Random | None = random.Random(seed)
            deal_seed: str | None = f"env-{seed}"
            self.game_seed = seed
        elif getattr(self, "_seeder", None) is not None:
            assert self._seeder is not None
            self.game_seed = self._seeder.getrandbits(64)
            deal_seed = f"env-next-{self.game_seed}"
        else:
            deal_seed = self.game_seed = None
        self.games += 1
        self.state, events = GameState.new(self.players, self.rules, deal_seed)
        #: with ``keep_events`` set, every event of this game, private ones too
        #: (for bots that observe: :class:`BotPolicy`, UnoGymEnv's opponents)
        self.events: list[Event] = list(events) if self.keep_events else []
        if self.memory:
            self.played.fill(0.0)
            self._remember(events)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._round_actions = 0
        self._round_start = list(self.state.scores)
        self._open_window()

    def _open_window(self) -> None:
        """Select the next seat to ask: the seats that may act out of turn
        (each once, in seat order from the current player's), then the
        current player."""
        assert self.state is not None
        self._window = waiting_seats(self.state)
        self._select()

    @property
    def selected_seat(self) -> int:
        """The seat of the agent selected now (:attr:`agent_selection`)."""
        return self._seat

    def _select(self) -> None:
        assert self.state is not None
        seat = self._window[0] if self._window else self.state.current
        self._seat = seat
        self.agent_selection = self.possible_agents[seat]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``agent``'s observation: its view's vector and its action mask
        (all 0 for an agent not selected now; once the game is over, the pass
        alone, so that a masked softmax of the final observation is defined)."""
        obs = np.empty(self.observation_size, np.float32)
        mask = np.empty(self.pass_action + 1, np.int8)
        self.observe_into(agent, obs, mask)
        return {"observation": obs, "action_mask": mask}

    def observe_into(self, agent: str, obs: np.ndarray, mask: np.ndarray) -> None:
        """:meth:`observe`, written into ``obs`` (float32, shape ``(D,)``) and
        ``mask`` (int8, shape ``(A + 1,)``): rows of a batch, say."""
        assert self.state is not None
        seat = self.possible_agents.index(agent)
        mask.fill(0)
        if self.state.is_game_over:
            mask[self.pass_action] = 1
        elif agent == self.agent_selection:
            for index in self.game.legal_actions_by_index(self.state, seat):
                mask[index] = 1
            if seat != self.state.current:
                mask[self.pass_action] = 1
        encode(
            self.state.view(seat),
            obs,
            self.normalize,
            self.score_scale,
            self.played if self.memory else None,
        )

    def _remember(self, events: list[Event]) -> None:
        """Count the cards played in ``events`` (public ones only) into the memory."""
        this_round, this_game = self.played
        for e in events:
            kind = e.kind
            if kind is _PLAYED and e.audience == EVERYONE:
                for card in e.cards:
                    k = KIND[card]
                    this_round[k] += 1
                    this_game[k] += 1
            elif kind is _ROUND_STARTED:
                this_round.fill(0.0)

    def bot_action(self, agent: str, bot: str | Bot | BotPolicy = "greedy") -> int | None:
        """The action a built-in bot would take as ``agent`` now: an index of
        its mask (:attr:`pass_action` for the bot's "nothing now"), or None
        once ``agent`` is terminated or truncated, ready for :meth:`step`.
        ``bot`` is a kind (``"random"``, ``"greedy"``, ``"ismcts@300"``...:
        :func:`unoplay.game.parse_kind`), a :class:`~unoplay.game.bots.Bot`
        or a :class:`BotPolicy`; a kind or a Bot is wrapped in a BotPolicy
        kept for this agent (a kind's bot is made anew, seeded from the
        game's seed, every game; a Bot is kept until another is given for
        this agent). Raises ValueError for an unknown kind."""
        if isinstance(bot, BotPolicy):
            return bot(self, agent)
        key = (agent, bot if isinstance(bot, str) else None)  # one Bot kept per agent
        policy = self._policies.get(key)
        if policy is None or (policy.bot is not bot and not isinstance(bot, str)):
            policy = self._policies[key] = BotPolicy(bot)
        return policy(self, agent)

    def step(self, action: int | None) -> None:
        """Take the selected agent's ``action`` (an index its mask allows; None
        once it is terminated or truncated). Raises ValueError for an index
        its mask does not allow."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self.state
        assert state is not None and action is not None
        seat = self._seat
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: 0.0 for a in self.agents}
        if action == self.pass_action and seat != state.current:
            self._window.pop(0)
            self._select()
            self._accumulate_rewards()
            return
        legal = self.game.legal_actions_by_index(state, seat)
        if action not in legal:
            raise ValueError(f"action {action} is not legal for {agent} now")
        events = state.apply(seat, legal[int(action)])
        if self.keep_events:
            self.events += events
        if self.memory:
            self._remember(events)
        self._round_actions += 1
        if state.is_round_over:
            self._end_round()
        elif self._round_actions >= self.max_round_actions:
            state.cap_round(self._round_actions)
            self.truncations = {a: True for a in self.agents}
        if not state.is_game_over:
            self._open_window()
        self._accumulate_rewards()

    def _end_round(self) -> None:
        """Round and game rewards; the next round is dealt unless the game is over."""
        state = self.state
        assert state is not None
        scores = state.scores
        if self.reward != "zero_sum":
            gained = [scores[s] - self._round_start[s] for s in range(self.players)]
            mean = sum(gained) / self.players if self.reward == "zero_sum_points" else 0.0
            for s, a in enumerate(self.possible_agents):
                self.rewards[a] = self._sign * (gained[s] - mean) / self.points_scale
        if state.is_game_over:
            winners = state.game_winners
            if self.reward == "points":
                for s in winners:
                    self.rewards[self.possible_agents[s]] += 1.0
            elif self.reward == "zero_sum" and 0 < len(winners) < self.players:
                win, lose = 1.0 / len(winners), -1.0 / (self.players - len(winners))
                for s, a in enumerate(self.possible_agents):
                    self.rewards[a] = win if s in winners else lose
            self.terminations = {a: True for a in self.agents}
            return
        events = state.next_round()
        if self.keep_events:
            self.events += events
        if self.memory:
            self._remember(events)
        self._round_actions = 0
        self._round_start = list(state.scores)

    def render(self) -> str | None:
        """``ansi``: the engine's one-line description of the state."""
        return repr(self.state) if self.render_mode == "ansi" else None

    def close(self) -> None:
        """Nothing to release."""


class BotPolicy:
    """A built-in bot as the policy of agents of a :class:`UnoEnv`, inside the
    AEC loop, without touching ``env.state`` or ``env.game``:

    >>> from unoplay.client.research.env import BotPolicy, UnoEnv
    >>> env = UnoEnv(players=3)
    >>> bots = {"player_1": BotPolicy("greedy"), "player_2": BotPolicy("ismcts@20")}
    >>> env.reset(seed=4)
    >>> for agent in env.agent_iter():
    ...     obs, reward, terminated, truncated, info = env.last()
    ...     if terminated or truncated:
    ...         action = None
    ...     elif agent in bots:
    ...         action = bots[agent](env, agent)  # or env.bot_action(agent, "greedy")
    ...     else:
    ...         action = int(obs["action_mask"].nonzero()[0][0])  # your policy here
    ...     env.step(action)

    ``policy(env, agent)`` is the action index the bot takes as ``agent`` now
    (:attr:`UnoEnv.pass_action` for its "nothing now" out of turn), or None
    once ``agent`` is terminated or truncated (or gone). ``bot`` is a kind
    (:data:`unoplay.game.BOT_KINDS`, a search bot with its budget as in
    ``"ismcts@300"``: :func:`unoplay.game.parse_kind`) or a
    :class:`~unoplay.game.bots.Bot` instance. A kind's bot is made anew for
    each game (and each seat the policy plays), seeded from ``seed`` when
    given (a generator of per-game seeds), else from the game's seed
    (``reset(seed=s)``: ``s * 31 + seat``, the seeds UnoGymEnv gives its
    opponents, so the same game plays the same; unseeded before any seed).
    A Bot instance is used as it is, every game: give a fresh one per game
    if it keeps memory. A bot that observes (``ismcts``) is given every event
    its seat saw before each decision, from ``env.events``: the env must
    keep them (``keep_events``, the default). Raises ValueError for an
    unknown kind or a bad budget.
    """

    def __init__(self, bot: str | Bot = "greedy", seed: int | None = None) -> None:
        if isinstance(bot, str):
            make_bot(bot)  # raises for an unknown kind or a bad budget
        self.bot = bot
        self.seed = seed
        self._seeds = random.Random(seed)
        #: per seat: (env, game number, bot, events of env.events given to it)
        self._seats: dict[int, tuple[UnoEnv, int, Bot, int]] = {}

    def __call__(self, env: UnoEnv, agent: str) -> int | None:
        if agent not in env.agents or env.terminations[agent] or env.truncations[agent]:
            return None
        state = env.state
        assert state is not None
        seat = env.possible_agents.index(agent)
        if agent != env.agent_selection:
            raise ValueError(f"{agent} is not selected now ({env.agent_selection} is)")
        mine = self._seats.get(seat)
        if mine is None or mine[0] is not env or mine[1] != env.games:
            mine = (env, env.games, self._new_bot(env, seat), 0)
        _env, games, bot, seen = mine
        if bot.observes:
            if not env.keep_events:
                raise ValueError("an observing bot needs env.keep_events set before reset")
            bot.observe(visible(env.events[seen:], seat))
            seen = len(env.events)
        self._seats[seat] = (env, games, bot, seen)
        action = bot.decide(state.view(seat), state.legal_actions(seat))
        return env.pass_action if action is None else env.game.action_index(action)

    def _new_bot(self, env: UnoEnv, seat: int) -> Bot:
        if not isinstance(self.bot, str):
            return self.bot
        if self.seed is not None:
            seed: int | None = self._seeds.getrandbits(62)
        else:
            seed = None if env.game_seed is None else env.game_seed * 31 + seat
        return make_bot(self.bot, seed=seed, rules=env.rules)


class UnoGymEnv(gymnasium.Env):  # type: ignore[misc]
    """One learner against built-in bots, as a Gymnasium environment
    (``gymnasium.make("unoplay/Uno-v0", opponents=["greedy", ...])`` once
    this module is imported; or ``gymnasium.make("unoplay.client.research.env:unoplay/Uno-v0")``).

    The learner sits at ``seat`` (default 0) of ``len(opponents) + 1`` seats;
    each opponent is a bot kind (:data:`unoplay.game.BOT_KINDS`, a search
    bot with its budget as in ``"ismcts@300"``: :func:`unoplay.game.parse_kind`) asked
    whenever the AEC environment selects its seat (None out of turn is the
    pass). Observations, actions and masks are the learner's in
    :class:`UnoEnv`, whose keyword options it takes too (``reward``,
    ``normalize``, ``memory``, ``points_scale``, ``max_round_actions``,
    ``canonical``); a step's reward is the learner's total since its last
    step (under ``reward="zero_sum"``: +1 for a win, -1/(n-1) for a loss); ``terminated`` when the game is over, ``truncated`` when it was
    capped. ``info["action_mask"]`` repeats the mask. An action the mask does
    not allow ends the episode (``terminated``, reward ``illegal_reward``,
    ``info["illegal_action"]`` True) under ``illegal_action="end"``, the
    default, so that any action of the space is a valid step (Gymnasium's
    ``check_env`` steps unmasked samples); ``"raise"`` raises ValueError
    instead. Once the episode is over the mask holds the pass alone. Raises
    ValueError for an unknown bot kind or a bad budget.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(
        self,
        opponents: list[str] | tuple[str, ...] = ("greedy",),
        rules: RuleSet | None = None,
        seat: int = 0,
        render_mode: str | None = None,
        illegal_action: str = "end",
        illegal_reward: float = -1.0,
        **kwargs: Any,
    ) -> None:
        if illegal_action not in ("end", "raise"):
            raise ValueError("illegal_action must be 'end' or 'raise'")
        self.illegal_action = illegal_action
        self.illegal_reward = illegal_reward
        self.aec = UnoEnv(len(opponents) + 1, rules, render_mode=render_mode, **kwargs)
        self.kinds = list(opponents)
        for kind in self.kinds:
            make_bot(kind)  # raises for an unknown kind or a bad budget
        self.seat = seat
        self.me = self.aec.possible_agents[seat]
        self.observation_space = self.aec.observation_space(self.me)
        self.action_space = self.aec.action_space(self.me)
        self.render_mode = render_mode

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """A new game; the opponents' bots are seeded from the game's seed
        too. ``seed`` None after a seeded reset: a seed drawn from
        ``np_random`` (seeded by that seed, as Gymnasium asks), so the run
        repeats; before any seed, a fresh one."""
        super().reset(seed=seed)
        self.new_game(seed)
        return self._observation()

    def new_game(self, seed: int | None = None) -> None:
        """:meth:`reset`'s game and bots, without making the observation
        (``seed`` None: drawn from ``np_random``; the vector env's auto-reset)."""
        if seed is None:
            seed = int(self.np_random.integers(2**62))
        self._ended = False  # by an illegal action
        base = seed * 31
        others = [s for s in range(self.aec.players) if s != self.seat]
        self.bots = {
            s: make_bot(kind, seed=base + s, rules=self.aec.rules)
            for s, kind in zip(others, self.kinds, strict=True)
        }
        self.aec.keep_events = any(bot.observes for bot in self.bots.values())
        self.aec.reset(seed=seed)
        self._seen = dict.fromkeys(others, 0)  # per bot: events of aec.events given to it
        self._reward = 0.0
        self._advance()

    def _observation(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        obs = np.empty(self.aec.observation_size, np.float32)
        mask = np.empty(self.aec.pass_action + 1, np.int8)
        self.observe_into(obs, mask)
        return {"observation": obs, "action_mask": mask}, {"action_mask": mask}

    def observe_into(self, obs: np.ndarray, mask: np.ndarray) -> None:
        """The learner's observation written into ``obs`` (float32, ``(D,)``)
        and ``mask`` (int8, ``(A + 1,)``); the pass alone once the episode is over."""
        self.aec.observe_into(self.me, obs, mask)
        if self._ended:
            mask.fill(0)
            mask[self.aec.pass_action] = 1

    def _advance(self) -> None:
        """Let the bots act until the learner is selected or the game is over."""
        aec = self.aec
        state = aec.state
        assert state is not None
        while not (aec.terminations[self.me] or aec.truncations[self.me]):
            seat = aec.possible_agents.index(aec.agent_selection)
            if seat == self.seat:
                break
            bot = self.bots[seat]
            if bot.observes:
                events = aec.events
                bot.observe(visible(events[self._seen[seat] :], seat))
                self._seen[seat] = len(events)
            action = bot.decide(state.view(seat), state.legal_actions(seat))
            aec.step(aec.pass_action if action is None else aec.game.action_index(action))
            self._reward += aec.rewards[self.me]

    def step(self, action: int) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        """The learner's ``action``, then the bots' until its next decision."""
        reward, terminated, truncated = self.act(action)
        obs, info = self._observation()
        if self._ended:
            info["illegal_action"] = True
        return obs, reward, terminated, truncated, info

    def act(self, action: int, legal: bool | None = None) -> tuple[float, bool, bool]:
        """:meth:`step` without the observation: (reward, terminated,
        truncated). ``legal``: whether the mask allows ``action``, when the
        caller has the mask at hand (None: worked out again)."""
        aec = self.aec
        self._reward = 0.0
        if legal is None and self.illegal_action == "end":
            legal = self._legal(int(action))
        if self.illegal_action == "end" and not legal:
            self._ended = True
            return self.illegal_reward, True, False
        aec.step(int(action))
        self._reward += aec.rewards[self.me]
        self._advance()
        return self._reward, aec.terminations[self.me], aec.truncations[self.me]

    def _legal(self, action: int) -> bool:
        """Whether the learner's mask allows ``action`` now."""
        aec = self.aec
        state = aec.state
        assert state is not None
        if state.is_game_over or not 0 <= action <= aec.pass_action:
            return False
        if action == aec.pass_action:
            return aec.selected_seat != state.current
        return action in aec.game.legal_actions_by_index(state, self.seat)

    def render(self) -> str | None:
        """``ansi``: the engine's one-line description of the state."""
        return self.aec.render()


if "unoplay/Uno-v0" not in gymnasium.registry:
    gymnasium.register("unoplay/Uno-v0", entry_point="unoplay.client.research.env:UnoGymEnv")
