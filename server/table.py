"""A table: the coordinator of one game's table. It owns the
:class:`~.engine.GameState`, routes every request to the collaborator that
holds its concern, and decides when (start, rounds, the end):

* :mod:`.seats`: who sits where, seat tokens, refusals counted per seat;
* :mod:`.away`: players away, their grace period and stand-in bots;
* :mod:`.fanout`: the per-seat and spectator logs, and who is woken when;
* :mod:`.outofturn` (with :mod:`.window`): holding and judging intents in an
  out-of-turn window, so that the fastest packet does not win (RULES.md,
  "Out-of-turn window (server)");
* :mod:`.botturns`: server bots' turns and the search queue's thread;
* :mod:`.lifecycle`: dealing a game, rematch votes, the game's record;
* :mod:`.timers` and :mod:`.history`: pending timers; every action applied.

It knows nothing of gRPC (the service converts the logs to the wire) and
runs on one asyncio event loop: every method is called from that loop.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, Literal

from unoplay.game.actions import Action
from unoplay.game.deals import RECEIVED_KINDS, DealReveal, game_seed
from unoplay.game.engine import GameState
from unoplay.game.errors import IllegalAction
from unoplay.game.events import Event, EventKind, visible
from unoplay.game.messages import (
    Refusal,
    SeatInfo,
    TableInfo,
    TableState,
    Welcome,
)
from unoplay.game.registry import make_bot
from unoplay.game.rules import RuleSet
from unoplay.wire import action_from_id

from .away import Away
from .botturns import BotTurns, default_action
from .fanout import Fanout
from .history import History
from .lifecycle import Rematch, deal_game, game_record
from .limits import Limits
from .outofturn import OutOfTurn
from .seats import LobbyError, Seat, Seats, clean_text
from .settings import (
    DEFAULT_AWAY_GRACE,
    DEFAULT_MAX_ROUND_ACTIONS,
    MAX_GAME_ACTIONS,
    MAX_TITLE,
    check_settings,
)
from .storage import GameRecord

if TYPE_CHECKING:
    from .durable import Journal
from .streamlog import StreamLog
from .timers import Timers
from .window import HeldIntent

log = logging.getLogger("unoplay.table")

#: At a strict table (an arena's): the moves in a row the clock may make for a
#: seat before the seat is given up (RULES.md, "The arena": No seat that stalls).
STALL_MOVES = 2

#: Events of a seat's own costly mistake: the update after one earns its
#: message budget nothing (proto/README.md, section 4, the intent budget).
SELF_PAID_KINDS = frozenset({EventKind.UNO_FALSE_CALL, EventKind.WRONG_PLAY})


class Table:
    """One table: seats, a game, message logs and timers. See module docstring."""

    def __init__(
        self,
        table_id: str,
        title: str,
        seats: int,
        rules: RuleSet,
        turn_seconds: int = 0,
        bot_delay: float = 0.0,
        round_pause: float | None = None,
        on_finish: Callable[[Table], None] | None = None,
        away_grace: float = DEFAULT_AWAY_GRACE,
        window_ms: int = 0,
        seed: str | None = None,
        max_round_actions: int = DEFAULT_MAX_ROUND_ACTIONS,
        limits: Limits | None = None,
    ) -> None:
        """A table waiting for players. ``turn_seconds`` 0 is no turn timer;
        ``bot_delay`` and ``away_grace`` are seconds; ``window_ms`` is the
        out-of-turn window in milliseconds, 0..:data:`MAX_WINDOW_MS` (0: none,
        every intent applied as it arrives). ``max_round_actions`` caps a
        round (RULES.md, "Endless rounds"); ``limits`` bound its logs
        (:class:`~.limits.Limits`). ``seed`` makes a seeded table
        (its deals come from that text, not a secret seed: RULES.md, "Fair
        deals"). Raises LobbyError("invalid") for a setting out of range or a
        bad seed, RuleError for rules these seats cannot play."""
        check_settings(
            seats, rules, turn_seconds, bot_delay, away_grace, window_ms, max_round_actions, seed
        )
        self.table_id = table_id
        self.seed = seed  # a seeded table's seed (the creator's), else None
        self.owner = ""  # who created it: the client's address (Lobby's per-client limit)
        self.max_round_actions = max_round_actions
        self._round_actions = 0  # actions applied in the round being played
        self.title = clean_text("title", title, MAX_TITLE)
        self.rules = rules
        self.turn_seconds = turn_seconds
        self.bot_delay = bot_delay
        self.away_grace = away_grace
        self.window_ms = window_ms
        self.round_pause = 3 * bot_delay if round_pause is None else round_pause
        self.state = TableState.WAITING
        self.limits = limits = limits or Limits()
        self.seats = Seats(seats)
        self.fanout = Fanout(self.seats, limits)
        self.timers = Timers()
        self.spectators = 0
        self.game: GameState | None = None
        # every applied action (who, what, from whom, when) and every card dealt
        # or drawn, for the game's record: replays and `uno verify`
        self.history = History()
        self.games_started = 0
        self.rematch = Rematch()  # seats that voted to play again (finished)
        self.rematches = True  # False: one game only (an arena table: the arena seats again)
        self.deal: DealReveal | None = None  # the secret of this game's deals
        self.started_at = 0.0
        self.finished_at = 0.0
        self.closing = False  # the server is stopping: streams end
        self.on_finish = on_finish
        #: keeps the table in the server's file as it changes (:mod:`.durable`), or None
        self.journal: Journal | None = None
        self.durable = True  # False: never kept (a game started from a crafted position)
        self.restarting = False  # the server stops to start again: the game is kept
        self.on_start: Callable[[Table], None] | None = None  # each game's start (the lobby's)
        self.on_seats: Callable[[Table], None] | None = None  # a seat taken or freed (the lobby's)
        #: An arena's table: a seat the clock plays for :data:`STALL_MOVES`
        #: times in a row, or whose person stays away past the grace, is given
        #: up (:meth:`give_up`), and ``on_give_up(table, seat, why)`` is told.
        self.strict = False
        self.on_give_up: Callable[[Table, int, str], None] | None = None
        self._clock_moves: dict[int, int] = {}  # seat -> the clock's moves for it in a row
        self._deadline = 0.0
        self._version = 0  # bumps on every change; stale timers and bot turns check it
        self._turn_timer: asyncio.TimerHandle | None = None
        self.out_of_turn = OutOfTurn(self)
        self.bots = BotTurns(self)
        self.away = Away(self)
        self.fanout.show_seats(self.seats.infos())
        self.spectator_log.append(Welcome(-1, self.info()))

    @property
    def version(self) -> int:
        """Bumps on every change of the game: a timer or a bot's turn set for
        an earlier version finds it stale and does nothing."""
        return self._version

    @property
    def spectator_log(self) -> StreamLog:
        """The spectators' message log."""
        return self.fanout.spectator_log

    @property
    def touched(self) -> float:
        """When the table last changed (``time.monotonic()``; idle tables are evicted)."""
        return self.fanout.touched

    # ------------------------------------------------------------ lobby side

    def seat_infos(self) -> tuple[SeatInfo, ...]:
        """Every seat's public status."""
        return self.seats.infos()

    def info(self) -> TableInfo:
        """A public snapshot of this table."""
        return TableInfo(
            self.table_id,
            self.title,
            self.seat_infos(),
            self.rules,
            self.turn_seconds,
            self.state,
            self.game.scores if self.game else (),
            self.away_grace,
            self.window_ms,
            self.seed is not None,
            self.max_round_actions,
            self.rematch.seats(),
            self.games_started,
        )

    def _waiting(self) -> None:
        if self.state is not TableState.WAITING:
            raise LobbyError("failed_precondition", "the game has already started")

    def join(self, name: str, wanted: int | None = None, holder: str = "") -> Seat:
        """Seat a person; returns the seat with its new secret token. Raises
        LobbyError (the game started, no such or no free seat, a bad name).
        ``holder``: whom the lobby's seats-per-name limit counts it against."""
        self._waiting()
        seat = self.seats.take(name, wanted)
        seat.holder = holder
        self.fanout.open_log(seat, Welcome(seat.index, self.info()))
        self.seats_changed()
        return seat

    def compact(self, now: float) -> bool:
        """Once the game is over, nothing has changed for
        ``Limits.finished_full_seconds`` (``now``: ``time.monotonic()``) and no
        stream is open, keep only the end of each log
        (``Limits.finished_log_messages``) and drop the game's record
        (``on_finish`` had it when the game ended): a stream resumed after
        that gets the final snapshot and the game's last messages; one
        resumed sooner (cut as the game ended) gets every message. Returns
        True if the table is compact now (it was or it became so)."""
        if (
            self.state is not TableState.FINISHED
            or now - self.touched < self.limits.finished_full_seconds
            or self.spectators
            or any(s.connections for s in self.seats)
        ):
            return False
        self.fanout.trim(self.limits.finished_log_messages)
        if self.history:  # its record went to on_finish when the game ended
            self.history = History()
        return True

    def free_absent_seats(self, grace: float, now: float) -> None:
        """Before the game, free every seat whose person has shown no sign of
        life (no open stream, no call with its token) for ``grace`` seconds:
        someone who closed the program without leaving. Their token stops
        working; everyone sees the seat free."""
        if self.state is not TableState.WAITING:
            return
        gone = self.seats.absent(grace, now)
        for seat in gone:
            log.info("table %s: seat %d's player is gone; it is free", self.table_id, seat.index)
        if gone:
            self.seats_changed()

    def add_bot(self, bot: Any, name: str, wanted: int | None = None) -> Seat:
        """Seat a server-side bot (an object with ``decide(view, legal)``; one with
        ``observes`` set is also given every event its seat sees, ``observe(events)``).
        Raises LobbyError (the game started, no such or no free seat, a bad name)."""
        self._waiting()
        seat = self.seats.seat_bot(bot, name, wanted)
        self.fanout.close_log(seat, Welcome(seat.index, self.info()))
        self.seats_changed()
        return seat

    def seat_for_token(self, token: str) -> Seat:
        """The seat this token acts for (a sign of life of its person). Raises
        LobbyError("unauthenticated")."""
        return self.seats.for_token(token)

    def holds(self, seat: Seat, token: str) -> bool:
        """True while ``token`` still acts for ``seat`` (not after leaving)."""
        return self.seats.holds(seat, token)

    def leave(self, token: str) -> None:
        """Give up a seat: freed while waiting; a bot (Limits.stand_in) takes it in a game.
        Streams opened with the token end (the service checks :meth:`holds`)."""
        self._hand_over(self.seat_for_token(token))

    def give_up(self, index: int, why: str) -> None:
        """The server gives up seat ``index`` for its person during the game
        (a strict table's seat that stalled or stayed away: ``why``), as if
        they had left (:meth:`leave`): a bot plays it to the end, its token
        stops working; then ``on_give_up`` is told. Nothing for a seat
        without a person or after the game."""
        seat = self.seats[index]
        if not seat.token or seat.bot is not None or self.state is not TableState.PLAYING:
            return
        log.info("table %s: seat %d is given up (%s)", self.table_id, index, why)
        self._hand_over(seat)
        if self.on_give_up is not None:
            self.on_give_up(self, index, why)

    def _hand_over(self, seat: Seat) -> None:
        seat.token = ""
        seat.token_hash = b""
        if self.state is TableState.WAITING:
            self.seats.vacate(seat.index)
        else:  # a bot plays the seat, in this game and any rematch
            seat.bot = make_bot(self.limits.stand_in, rules=self.rules, max_ms=self.limits.bot_ms)
            seat.stand_in = None
            self.fanout.close_log(seat)  # its token is gone: no stream again
            if self.state is TableState.PLAYING:
                self.bots.schedule()
        self.seats_changed()
        if self.state is TableState.FINISHED:
            self._rematch_if_agreed()

    def vote_rematch(self, token: str) -> None:
        """The seat of ``token`` wants to play again (RULES.md, "Rematch"): once
        every seat held by a person has voted (bots agree at once), a new game
        starts at once with the same seats and rules and a new seed. Raises
        LobbyError: "unauthenticated" for a bad token, "failed_precondition"
        unless the game is over, or at a table of one game (``rematches``
        False: an arena's)."""
        seat = self.seat_for_token(token)
        if self.state is not TableState.FINISHED:
            raise LobbyError("failed_precondition", "a rematch comes after the game is over")
        if not self.rematches:
            raise LobbyError(
                "failed_precondition", "this table plays one game (the arena seats you again)"
            )
        seat.last_seen = time.monotonic()
        self.rematch.vote(seat.index)
        if self.journal is not None:
            self.journal.votes(self)
        self.wake()
        self._rematch_if_agreed()

    def _rematch_if_agreed(self) -> None:
        if self.closing or not self.rematches or not self.rematch.agreed(self.seats):
            return
        log.info(
            "table %s: everyone agreed to play again (game %d)",
            self.table_id,
            self.games_started + 1,
        )
        self.state = TableState.WAITING
        for seat in self.seats:
            seat.stand_in = None
        self.start()

    def start(self, seed: str | int | None = None, game: GameState | None = None) -> None:
        """Deal the first round. Raises LobbyError unless every seat is taken.

        The deal comes from a fresh secret seed, or at a seeded table from its
        seed (:func:`~.deals.game_seed` of it and the game's number: one-way, so
        the seed each game reveals tells nothing of the next); ``seed`` chooses this
        game's seed, at a seeded table only (LobbyError("failed_precondition")
        elsewhere: no player chooses the deal at a table with people). Every
        seat gets the commitment now and the seed when the game ends
        (RULES.md, "Fair deals").

        ``game`` (tests and puzzles) starts from that position instead of
        dealing, e.g. one made by ``GameState.from_position`` with this table's
        seat count and rules (LobbyError("invalid") otherwise). Such a game
        does not replay from its seed, so do not store it."""
        if self.state is not TableState.WAITING:
            raise LobbyError("failed_precondition", "the game has already started")
        if not all(s.occupied for s in self.seats):
            raise LobbyError("failed_precondition", "every seat must be taken to start")
        if seed is not None and self.seed is None:
            raise LobbyError(
                "failed_precondition",
                "this table deals from a secret seed that nobody chooses; "
                "only a seeded table (created with a seed) takes one",
            )
        if game is not None and (game.players != len(self.seats) or game.rules != self.rules):
            raise LobbyError("invalid", "the position must have the table's seats and rules")
        self.games_started += 1
        self.history = History()
        self._clock_moves.clear()
        for s in self.seats:
            s.forget_refusals()
        self.rematch.clear()
        self._round_actions = 0
        self.finished_at = 0.0
        if seed is None and self.seed is not None:
            seed = game_seed(self.seed, self.games_started)
        self.game, events, self.deal = deal_game(
            self.table_id, len(self.seats), self.rules, seed, game
        )
        self.state = TableState.PLAYING
        if self.on_start is not None:
            self.on_start(self)
        self.started_at = time.time()
        if game is not None:
            self.durable = False  # it does not replay from its seed
        if self.journal is not None:
            self.journal.table(self)
        welcome_info = self.info()
        for seat in self.seats:
            seat.log.append(Welcome(seat.index, welcome_info, self.deal.commitment))
        self.spectator_log.append(Welcome(-1, welcome_info, self.deal.commitment))
        for seat in self.seats:  # a player who never connects is away from the start
            if seat.bot is None and seat.connections == 0:
                self.away.wait(seat)
        self._publish(events)

    # ------------------------------------------------------------ game side

    def log_for(self, seat: int) -> StreamLog:
        """The message log of ``seat`` (-1: spectators); seq = index + 1."""
        return self.fanout.log_for(seat)

    def wait_for_change(self, seat: int | None = None) -> Coroutine[Any, Any, Literal[True]]:
        """An awaitable that returns once something may have been appended to
        ``seat``'s log (-1: the spectators'; None: any log, at once), or
        streams must look at their state (:meth:`.fanout.Fanout.wait_for_change`)."""
        return self.fanout.wait_for_change(seat)

    def act(self, seat: int, action: Action, action_id: int = 0, source: str = "player") -> bool:
        """Take an intent of ``seat`` (``source``: player, bot, stand_in or timer).

        Outside an out-of-turn window it is applied at once; while one is open
        it is held and judged when the window closes (:mod:`.outofturn`).
        Returns True if it was applied or held, False if refused now. Every
        refusal, now or at the window's close, is appended to the seat's log
        (with ``action_id``: the wire id ``action`` was read from, 0 for
        none); the game goes on."""
        game = self.game
        if game is None or self.state is not TableState.PLAYING:
            reason = "game_over" if self.state is TableState.FINISHED else "game_not_started"
            self.refuse(seat, reason, "there is no game in progress", action_id)
            return False
        if self.closing:
            self.refuse(seat, "server_closing", "the server is shutting down", action_id)
            return False
        if self.out_of_turn.window is not None:
            self.out_of_turn.hold(HeldIntent(seat, action, action_id, source, turn=game.current))
            return True
        try:
            events = game.apply(seat, action)
        except IllegalAction as err:
            self.refuse(seat, err.reason.value, str(err), action_id)
            penalty = getattr(err, "events", None)
            if penalty:  # refused, but it cost cards (wrong_play_penalty): part of the game
                self._record(seat, action, source)  # (its id may not give it back)
                self._publish(list(penalty), seat)
                self._check_cap()
            return False
        self._record(seat, action, source, action_id)
        if source == "timer":  # say so: the default action is not the player's own
            events = [Event(EventKind.TIMED_OUT, seat), *events]
        self._publish(events, seat)
        self._check_cap()
        if self.strict:
            self._count_clock(seat, source)
        return True

    def _count_clock(self, seat: int, source: str) -> None:
        """At a strict table: the seat's own action clears its count of the
        clock's moves in a row; the clock's :data:`STALL_MOVES`-th gives the
        seat up (:meth:`give_up`)."""
        if source == "player":
            self._clock_moves.pop(seat, None)
        elif source == "timer":
            moves = self._clock_moves[seat] = self._clock_moves.get(seat, 0) + 1
            if moves >= STALL_MOVES:
                self.give_up(seat, f"the clock played for it {moves} times in a row")

    def act_id(self, seat: int, ident: int) -> None:
        """Take an intent sent as a wire id (``Intent.action_id``): the action
        it names (:meth:`act`), or a refusal of an id no action has."""
        action = action_from_id(ident)
        if action is None:
            self.refuse_intent(seat, "unknown_action_id", f"no action has id {ident}", ident)
        else:
            self.act(seat, action, ident)

    def _check_cap(self) -> None:
        """RULES.md, "Endless rounds": a round at its cap of actions, or a game
        at :data:`MAX_GAME_ACTIONS`, ends the game."""
        game = self.game
        if game is None or game.is_round_over or self.state is not TableState.PLAYING:
            return
        if self._round_actions >= self.max_round_actions:
            what, count = f"round {game.round_number}", self._round_actions
        elif len(self.history) >= MAX_GAME_ACTIONS:
            what, count = "the game", len(self.history)
        else:
            return
        log.info(
            "table %s: %s reached %d actions; the game ends with no winner",
            self.table_id,
            what,
            count,
        )
        self._publish(game.cap_round(count))

    def refuse_intent(self, seat: int, reason: str, message: str, action_id: int = 0) -> None:
        """Refuse an intent the service could not turn into an action (an
        unknown action id, a malformed message). While an out-of-turn window is
        open the refusal is held with the other intents and given at its close,
        so a stream's answers never overtake those of intents it sent earlier."""
        if self.out_of_turn.window is not None:
            self.out_of_turn.hold(HeldIntent(seat, None, action_id, "player", (reason, message)))
        else:
            self.refuse(seat, reason, message, action_id)

    def _record(self, seat: int, action: Action, source: str, action_id: int = 0) -> None:
        """Count and record an action applied (``action_id``: the wire id it
        was read from, 0 for none)."""
        self._round_actions += 1
        ms = int((time.time() - self.started_at) * 1000)
        self.history.append(seat, action, source, ms, action_id)
        if self.journal is not None:
            self.journal.action(self, seat, action, source, ms)

    def attach(self, seat: int | Seat, resuming: bool = False) -> None:
        """A stream for ``seat`` opened. The person is back: a stand-in stops.

        When ``resuming`` mid-game, a fresh update is appended to the seat's
        log, so the resumed stream ends its backlog with the current view and
        legal actions (an intent lost in the drop is simply decided again)."""
        s = self._seat(seat)
        self.away.back(s)
        self.seats_changed()
        game = self.game
        if resuming and game is not None and self.state is TableState.PLAYING:
            encoder = self.fanout.encoder(game, self._deadline, self.out_of_turn.closes)
            s.log.append_update(self.fanout.update_of(game, s.index, encoder))
            if self.journal is not None:
                self.journal.seqs(self)
        self.wake()

    def watched(self) -> None:
        """A spectator stream opens: a log kept for nobody is kept again (:meth:`.fanout.Fanout.watched`)."""
        over = self.deal if self.state is TableState.FINISHED else None
        self.fanout.watched(self.game, self._deadline, self.out_of_turn.closes, over)

    def detach(self, seat: int | Seat) -> None:
        """A stream for ``seat`` closed; the seat is kept. When its last stream
        closes during a game, the player is away: after the grace period a
        stand-in bot plays for them until they are back."""
        s = self._seat(seat)
        self.away.gone(s)
        if self.seats[s.index] is s:  # (else the seat was given up: the stream was stale)
            self.seats_changed()

    def _seat(self, seat: int | Seat) -> Seat:
        return seat if isinstance(seat, Seat) else self.seats[seat]

    def close(self) -> None:
        """Cancel timers, the out-of-turn window's too (server shutdown, or the
        game is over)."""
        self.timers.cancel_all()
        self.out_of_turn.cancel()

    def shut_down(self, restarting: bool = False) -> None:
        """The server is stopping: no more moves; intents held by an open
        window are refused (``server_closing``); streams see ``closing`` and end.
        ``restarting``: the server starts again on the same file and the game
        goes on there (:mod:`.durable`): its deals stay secret; else the game
        ends here and its seed and salt are sent."""
        self.closing = True
        self.restarting = restarting
        for intent in self.out_of_turn.held:
            self.refuse(
                intent.seat, "server_closing", "the server is shutting down", intent.action_id
            )
        if self.state is TableState.PLAYING and not restarting:
            self._reveal()  # the game ends here: its deals may be checked
        self.close()
        self.wake()

    def _reveal(self) -> None:
        """The game is over: send its seed and salt to everyone at the table."""
        if self.deal is not None:
            self.fanout.to_everyone(self.deal)

    def refuse(self, seat: int, reason: str, message: str, action_id: int) -> None:
        """Append a refusal to ``seat``'s log, count it against the seat unless
        it is blameless or a race lost (:meth:`.seats.Seat.lost_race`; the
        refusal says so), and wake its streams (only theirs) and the watchers
        in this process."""
        s = self.seats[seat]
        race = s.lost_race(reason, self._version)
        s.count_refusal(reason, message, len(self.history), race)
        self.fanout.refusal(seat, Refusal(reason, message, action_id, race))
        if self.journal is not None:
            self.journal.seqs(self)

    def record(self) -> GameRecord:
        """This table's game, for storage (:func:`.lifecycle.game_record`)."""
        return game_record(self)

    def wake(self) -> None:
        """Wake every stream of the table to look at its state (no new message)."""
        self.fanout.notify()

    def seats_changed(self) -> None:
        """Tell everyone at the table when a seat's public status changed."""
        if self.on_seats is not None:
            self.on_seats(self)
        if self.state is not TableState.FINISHED:
            self.fanout.seats_changed(self.seats.infos())
            if self.journal is not None:
                self.journal.seats(self)
        self.wake()

    def _publish(self, events: list[Event], actor: int = -1) -> None:
        """Append the events each seat may see, then every seat's update
        (``actor``: the seat whose action caused them, -1 for the table)."""
        game = self.game
        assert game is not None
        game_over, round_over = game.is_game_over, game.is_round_over
        self._version += 1
        self._deadline = 0.0
        if not round_over and self.turn_seconds:
            self._deadline = time.time() + self.turn_seconds
        window = self.out_of_turn.opens(events)
        closes = time.time() + self.window_ms / 1000 if window else 0.0
        self.fanout.events(events)
        history = self.history
        mistake = False  # the actor's own costly mistake: its update earns it nothing
        for e in events:
            if e.kind in RECEIVED_KINDS:
                history.receive(int(e.kind), e.player, e.cards)
            elif e.kind in SELF_PAID_KINDS:
                mistake = actor >= 0
        for seat in self.seats:
            seat.earned_updates += 1
            player = seat.player
            if player is not None and getattr(player, "observes", False):
                self.bots.observe(seat.index, player, visible(events, seat.index))  # it learns
        if mistake:
            self.seats[actor].earned_updates -= 1
        movers = None
        if self.out_of_turn.judging and not game_over:
            self.out_of_turn.updates_due = closes  # written at the close, after its refusals
        else:
            movers = self.fanout.updates(game, self._deadline, closes)
        if self.journal is not None:
            self.journal.seqs(self)  # the logs' counters after this change
        if game_over:
            self.state = TableState.FINISHED
            self.finished_at = time.time()
            self._reveal()
            self.close()
        if movers is None or actor < 0 or round_over:
            self.wake()  # a table's own change, a window's, a round's end: everyone
        else:
            movers.append(actor)
            self.fanout.notify_soon(movers)
        if game_over:
            if self.on_finish:
                self.on_finish(self)
        elif round_over:
            self.later(self.round_pause, self._next_round, self._version)
        else:
            if self.turn_seconds:  # one turn timer a table: the last change's
                if self._turn_timer is not None:
                    self._turn_timer.cancel()
                self._turn_timer = self.later(self.turn_seconds, self.timeout, self._version)
            if window:
                self.out_of_turn.open(closes)
            self.bots.schedule()

    def resume(self) -> None:
        """A game restored from the server's file (:func:`.durable.restore`)
        goes on from its last action: every seat's log gets the update of now,
        the turn timer starts from now, the people (none connected yet) have
        the away grace from now, and a bot to move moves."""
        self.state = TableState.PLAYING
        for seat in self.seats:
            if seat.bot is None and seat.connections == 0:
                self.away.wait(seat)
        self._publish([])

    def later(
        self, delay: float, callback: Callable[..., None], *args: Any
    ) -> asyncio.TimerHandle | None:
        """Call ``callback(*args)`` in ``delay`` seconds (None: the table is closing)."""
        if self.closing:
            return None
        return self.timers.later(delay, callback, *args)

    def _next_round(self, version: int) -> None:
        if version == self._version and self.game and self.state is TableState.PLAYING:
            self._round_actions = 0
            self._publish(self.game.next_round())

    def timeout(self, version: int) -> None:
        """Turn timer: play the default action for the player to move, if the
        game is still where it was (``version``). Inside an out-of-turn window
        it waits for the window's close instead."""
        game = self.game
        if version != self._version or game is None or game.is_round_over:
            return
        if self.out_of_turn.timer_due():
            return
        self.act(game.current, default_action(game), source="timer")

    def send_updates(self, closes: float) -> None:
        """Every seat's update of now, with the window's close ``closes``, and
        wake every stream (a window's judgement, written once at its end)."""
        if self.state is TableState.PLAYING and self.game is not None:
            self.fanout.updates(self.game, self._deadline, closes)
            if self.journal is not None:
                self.journal.seqs(self)
            self.wake()

    def name_of(self, seat: int) -> str:
        """The name of whoever sits at ``seat``, for messages."""
        return self.seats[seat].name or f"player {seat}"


__all__ = ["Table"]
