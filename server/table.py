"""A table: the coordinator of one game's table. It owns the
:class:`~.engine.GameState`, routes every request to the collaborator that
holds its concern, giving each what it needs (values, callbacks or a small
Protocol; never the table), publishes what they did, and decides when
(start, rounds, the end). The collaborators: :mod:`.seats` (who sits where,
tokens, refusals), :mod:`.away` (players away, their grace), :mod:`.fanout`
(the seats' and spectators' logs, who is woken when), :mod:`.outofturn` and
:mod:`.window` (intents held in an out-of-turn window, RULES.md), :mod:`.botturns`
(server bots' turns), :mod:`.lifecycle` (dealing, caps, rematch votes, the
record), :mod:`.timers` (timers, the turn clock) and :mod:`.history`.

It knows nothing of gRPC (the service converts the logs to the wire) and
runs on one asyncio event loop: every method is called from that loop.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any

from unoplay.game.actions import Action
from unoplay.game.deals import RECEIVED_KINDS, DealReveal
from unoplay.game.engine import GameState
from unoplay.game.errors import IllegalAction
from unoplay.game.events import Event, EventKind
from unoplay.game.messages import Refusal, TableInfo, TableState, Welcome
from unoplay.game.registry import make_bot
from unoplay.game.rules import RuleSet
from unoplay.protocol import LobbyError, clean_text
from unoplay.record import GameRecord
from unoplay.settings import (
    DEFAULT_AWAY_GRACE,
    DEFAULT_MAX_ROUND_ACTIONS,
    MAX_GAME_ACTIONS,
    MAX_TITLE,
    check_settings,
)
from unoplay.wire import action_from_id

from .away import Away
from .botturns import BotTurns, default_action
from .fanout import Fanout
from .history import History
from .lifecycle import Journal, Rematch, capped, deal_game, game_record
from .limits import Limits
from .outofturn import OutOfTurn
from .seats import Seat, Seats
from .timers import Timers, TurnClock
from .window import HeldIntent, Window

log = logging.getLogger("unoplay.table")

#: At a strict table (an arena's): the moves in a row the clock may make for a
#: seat before the seat is given up (RULES.md, "The arena": No seat that stalls).
STALL_MOVES = 2

#: The owner of the arena's tables in the lobby (its per-client limits): no
#: client's address, so a table owned so is the arena's (``TableInfo.arena``).
ARENA_OWNER = "arena"


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
        *,
        owner: str = "",
        rematches: bool = True,
        on_start: Callable[[Table], None] | None = None,
        on_seats: Callable[[Table], None] | None = None,
        on_give_up: Callable[[Table, int, str], None] | None = None,
    ) -> None:
        """A table waiting for players. ``turn_seconds`` 0 is no turn timer;
        ``bot_delay`` and ``away_grace`` are seconds; ``window_ms`` is the
        out-of-turn window in milliseconds, 0..:data:`MAX_WINDOW_MS` (0: none,
        every intent applied as it arrives). ``max_round_actions`` caps a
        round (RULES.md, "Endless rounds"); ``limits`` bound its logs
        (:class:`~.limits.Limits`). ``seed`` makes a seeded table (its deals
        come from that text, not a secret seed: RULES.md, "Fair deals").
        ``owner``: who created it (the client's address: the lobby's
        per-client limit). ``on_finish``, ``on_start`` and ``on_seats`` are
        told of each game's end and start, and of a seat taken or freed.

        An arena's table plays one game (``rematches`` False) and is strict
        (``on_give_up`` given): a seat the clock plays for :data:`STALL_MOVES`
        times in a row, or whose person stays away past the grace, is given
        up (:meth:`give_up`), and ``on_give_up(table, seat, why)`` is told.
        Raises LobbyError("invalid") for a setting out of range or a bad
        seed, RuleError for rules these seats cannot play."""
        check_settings(
            seats, rules, turn_seconds, bot_delay, away_grace, window_ms, max_round_actions, seed
        )
        self.table_id = table_id
        self.seed = seed  # a seeded table's seed (the creator's), else None
        self.owner = owner
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
        self.history = History()  # every action applied and card dealt: the game's record
        self.games_started = 0
        self.rematch = Rematch(rematches)  # rematch votes; allowed False: one game only
        self.deal: DealReveal | None = None  # the secret of this game's deals
        self.started_at = self.finished_at = 0.0  # the game's (Unix seconds; 0.0: not yet)
        self.closing = False  # the server is stopping: streams end
        self.on_finish = on_finish
        #: keeps the table in the server's file as it changes (:mod:`.durable`), or None
        self.journal: Journal[Table] | None = None
        self.durable = True  # False: never kept (a game started from a crafted position)
        self.restarting = False  # the server stops to start again: the game is kept
        self.on_start, self.on_seats, self.on_give_up = on_start, on_seats, on_give_up
        self.strict = on_give_up is not None  # an arena's table
        self.clock = TurnClock(turn_seconds, self.later, self.timeout)
        self.version = 0  #: bumps on every change: a stale timer or bot's turn does nothing
        self.out_of_turn = OutOfTurn(window_ms, rules.jump_in, self.seats, self.act, self.refuse)
        self.bots = BotTurns(self, self.seats, bot_delay, table_id)
        self.away = Away(self.seats, away_grace, self)
        # what streams and the lobby use of the collaborators, as it is
        self.log_for = self.fanout.log_for  # a seat's log (-1: the spectators')
        self.spectator_log = self.fanout.spectator_log
        self.wait_for_change = self.fanout.wait_for_change
        self.wake = self.fanout.notify  # every stream looks at the table's state
        self.seat_for_token = self.seats.for_token
        #: what the seats played in this process are told (:meth:`play_here`)
        self.local_feed = self.fanout.local
        self.show_seats()
        self.spectator_log.append(Welcome(-1, self.info()))

    @property
    def playing(self) -> bool:
        """True while a game is in progress and the server is not stopping."""
        return self.state is TableState.PLAYING and not self.closing

    @property
    def touched(self) -> float:
        """When the table last changed (``time.monotonic()``; idle tables are evicted)."""
        return self.fanout.touched

    def info(self) -> TableInfo:
        """A public snapshot of this table."""
        return TableInfo(
            self.table_id,
            self.title,
            self.seats.infos(),
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
            self.owner == ARENA_OWNER,
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
        """Once the game is over, unchanged for ``Limits.finished_full_seconds``
        (``now``: ``time.monotonic()``) and no stream is open, keep only the
        end of each log (``Limits.finished_log_messages``) and drop the game's
        record (``on_finish`` had it): a stream resumed after that gets the
        final snapshot and the last messages; one resumed sooner gets every
        message. Returns True if the table is compact now."""
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
        life (no open stream, no call with its token) for ``grace`` seconds
        (they closed the program without leaving): their token stops working."""
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

    def leave(self, token: str) -> None:
        """Give up a seat: freed while waiting; a bot (Limits.stand_in) takes it in a game.
        Streams opened with the token end (the service checks :meth:`.seats.Seats.holds`)."""
        self._hand_over(self.seat_for_token(token))

    def give_up(self, index: int, why: str) -> None:
        """The server gives up seat ``index`` for its person during the game (a
        strict table's seat that stalled or stayed away: ``why``) as if they
        had left (:meth:`leave`), and tells ``on_give_up``. Nothing for a seat
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
        """The seat of ``token`` wants to play again (:class:`.lifecycle.Rematch`):
        once everyone agreed, a new game starts with the same seats and rules
        and a new seed. Raises LobbyError: "unauthenticated" for a bad token,
        "failed_precondition" before the game's end or at a table of one game."""
        seat = self.seat_for_token(token)
        self.rematch.vote(seat.index, over=self.state is TableState.FINISHED)
        seat.last_seen = time.monotonic()
        if self.journal is not None:
            self.journal.votes(self)
        self.wake()
        self._rematch_if_agreed()

    def _rematch_if_agreed(self) -> None:
        if self.closing or not self.rematch.agreed(self.seats):
            return
        log.info("table %s: a rematch agreed (game %d)", self.table_id, self.games_started + 1)
        self.state = TableState.WAITING
        self.start()

    def start(self, seed: str | int | None = None, game: GameState | None = None) -> None:
        """Deal the first round (:func:`.lifecycle.deal_game`: from a secret seed,
        or at a seeded table from its seed; ``seed`` chooses it there, ``game``
        is a position to start from, not stored). Every seat gets the
        commitment now and the seed when the game ends (RULES.md, "Fair
        deals"). Raises LobbyError unless the table waits and every seat is
        taken, or for a seed or position it cannot take."""
        self._waiting()
        self.game, events, self.deal = deal_game(
            self.table_id, self.seats, self.rules, self.seed, self.games_started + 1, seed, game
        )
        self.games_started += 1
        self.history = History()
        self.clock.new_game()
        self.seats.new_game()
        self.rematch.clear()
        self._round_actions = 0
        self.finished_at = 0.0
        self.state = TableState.PLAYING
        if self.on_start is not None:
            self.on_start(self)
        self.started_at = time.time()
        if game is not None:
            self.durable = False  # it does not replay from its seed
        if self.journal is not None:
            self.journal.table(self)
        self.fanout.welcome(self.info(), self.deal.commitment)
        self.away.start()  # a player who never connects is away from the start
        self._publish(events)

    def act(self, seat: int, action: Action, action_id: int = 0, source: str = "player") -> bool:
        """Take an intent of ``seat`` (``source``: player, bot, stand_in or timer):
        applied at once, or while an out-of-turn window is open held and judged
        at its close (:mod:`.outofturn`). Returns True if it was applied or
        held, False if refused now. Every refusal, now or at the close, goes
        to the seat's log (with ``action_id``: the wire id ``action`` was read
        from, 0 for none); the game goes on."""
        game = self.game
        if game is None or self.state is not TableState.PLAYING:
            reason = "game_over" if self.state is TableState.FINISHED else "game_not_started"
            self.refuse(seat, reason, "there is no game in progress", action_id)
            return False
        if self.closing:
            self.refuse(seat, "server_closing", "the server is shutting down", action_id)
            return False
        if self.out_of_turn.window is not None:  # held for the window's close
            self.out_of_turn.hold(HeldIntent(seat, action, action_id, source, turn=game.current))
            self.wake()
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
        if self.strict and self.clock.moved(seat, source) >= STALL_MOVES:  # it stalls
            self.give_up(seat, f"the clock played for it {STALL_MOVES} times in a row")
        return True

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
        actions = len(self.history)
        if self._round_actions < self.max_round_actions and actions < MAX_GAME_ACTIONS:
            return
        if game is None or game.is_round_over or self.state is not TableState.PLAYING:
            return
        rounds = game.round_number
        cap = capped(rounds, self._round_actions, self.max_round_actions, actions, MAX_GAME_ACTIONS)
        if cap is not None:
            log.info(
                "table %s: %s reached %d actions; the game ends with no winner", self.table_id, *cap
            )
            self._publish(game.cap_round(cap[1]))

    def refuse_intent(self, seat: int, reason: str, message: str, action_id: int = 0) -> None:
        """Refuse an intent the service could not turn into an action (an
        unknown action id, a malformed message). While an out-of-turn window is
        open the refusal is held with the other intents and given at its close,
        so a stream's answers never overtake those of intents it sent earlier."""
        if self.out_of_turn.hold(HeldIntent(seat, None, action_id, "player", (reason, message))):
            self.wake()
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

    def attach(self, seat: Seat, resuming: bool = False) -> None:
        """A stream for ``seat`` opened: the person is back, a stand-in stops.
        ``resuming`` mid-game, the stream's backlog ends with the update of now
        (an intent lost in the drop is simply decided again)."""
        self.away.back(seat)
        self.seats_changed()
        if resuming and self.game is not None and self.state is TableState.PLAYING:
            self.fanout.update_now(
                seat.index, self.game, self.clock.deadline, self.out_of_turn.closes
            )
        self.wake()

    def play_here(self, seat: Seat, observes: bool) -> None:
        """``seat`` (a person's, taken with ``Lobby.join``) is played in this
        process from now on (:mod:`.localseat`): its log keeps nothing (no
        update is encoded for it), its events go to :attr:`local_feed` when
        it ``observes``, and it counts as connected (:meth:`attach`). Undone
        by :meth:`played_elsewhere`."""
        self.fanout.play_here(seat, observes)
        self.attach(seat)

    def played_elsewhere(self, seat: Seat) -> None:
        """``seat`` is no longer played in this process (:meth:`play_here`):
        its stream closed (:meth:`detach`), if it still holds its place."""
        if self.seats[seat.index] is seat:
            self.fanout.played_elsewhere(seat)
            self.detach(seat)

    def keep_no_spectator_log(self) -> None:
        """Unless a spectator watches already, keep no spectators' log until
        one comes (:meth:`.fanout.Fanout.unwatched`): a table whose seats are
        all played in this process would encode it for nobody."""
        if not self.spectators:
            self.fanout.unwatched()

    def show_seats(self) -> None:
        """The seat list every update carries is the seats' as they are now,
        with no SeatsChanged said (a table restored from the server's file)."""
        self.fanout.show_seats(self.seats.infos())

    def watched(self) -> None:
        """A spectator stream opens: counted in :attr:`spectators` until
        :meth:`unwatched`; a log kept for nobody is kept again
        (:meth:`.fanout.Fanout.watched`)."""
        self.spectators += 1
        over = self.deal if self.state is TableState.FINISHED else None
        self.fanout.watched(self.game, self.clock.deadline, self.out_of_turn.closes, over)

    def unwatched(self) -> None:
        """A spectator stream closed."""
        self.spectators -= 1

    def detach(self, seat: Seat) -> None:
        """A stream for ``seat`` closed; the seat is kept. Its last closed during
        a game, the player is away (:class:`.away.Away`)."""
        self.away.gone(seat)
        if self.seats[seat.index] is seat:  # (else the seat was given up: the stream was stale)
            self.seats_changed()

    def close(self) -> None:
        """Cancel timers, the out-of-turn window's too (server shutdown, or the
        game is over)."""
        self.timers.cancel_all()
        self.out_of_turn.cancel()

    def shut_down(self, restarting: bool = False) -> None:
        """The server is stopping: no more moves, held intents are refused,
        streams see ``closing`` and end. ``restarting``: the game goes on in
        the server started again on the same file (:mod:`.durable`), its deals
        secret; else it ends here and its seed and salt are sent."""
        self.closing = True
        self.restarting = restarting
        self.out_of_turn.refuse_held("server_closing", "the server is shutting down")
        if self.state is TableState.PLAYING and not restarting:
            self.fanout.reveal(self.deal)  # the game ends here: its deals may be checked
        self.close()
        self.wake()

    def refuse(self, seat: int, reason: str, message: str, action_id: int) -> None:
        """Append a refusal to ``seat``'s log, count it against the seat unless
        blameless or a race lost (:meth:`.seats.Seat.lost_race`; the refusal
        says so), and wake its streams (only theirs) and this process's watchers."""
        s = self.seats[seat]
        race = s.lost_race(reason, self.version)
        s.count_refusal(reason, message, len(self.history), race)
        self.fanout.refusal(seat, Refusal(reason, message, action_id, race))

    def record(self) -> GameRecord:
        """This table's game, for storage (:func:`.lifecycle.game_record`)."""
        return game_record(self)

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
        self.version += 1
        self.clock.changed(not round_over)
        closes = self.out_of_turn.opens(game, events)  # (0.0: no window)
        self.fanout.events(events)
        for e in events:
            if e.kind in RECEIVED_KINDS:
                self.history.receive(int(e.kind), e.player, e.cards)
        self.seats.earn(events, actor)
        self.bots.observe(events)  # the bots that learn
        movers = None
        if game_over or not self.out_of_turn.defer(closes):  # (else written at the judgement's end)
            movers = self.fanout.updates(game, self.clock.deadline, closes)
        if game_over:
            self.state = TableState.FINISHED
            self.finished_at = time.time()
            self.fanout.reveal(self.deal)
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
            self.later(self.round_pause, self._next_round, self.version)
        else:
            self.clock.start(self.version)
            if closes:
                opened = self.out_of_turn.open(game, closes)
                self.later(self.window_ms / 1000, self._window_closed, opened)
            self.bots.schedule()

    def resume(self, game: GameState, round_actions: int, finished: bool = False) -> None:
        """``game``, restored from the server's file (:mod:`.restore`) with
        ``round_actions`` applied in its round, goes on from its last action:
        every seat's log gets the update of now, the turn timer starts from
        now, the people (none connected yet) have the away grace from now,
        and a bot to move moves. ``finished``: a game over and stored before
        (a table awaiting its rematch): shown over again, not stored again."""
        self.game = game
        self._round_actions = round_actions
        if finished:
            self.state = TableState.FINISHED
            self.fanout.updates(game, 0.0, 0.0)
            self.fanout.reveal(self.deal)
            self.wake()
            return
        self.state = TableState.PLAYING
        self.away.start()
        self._publish([])

    def later(
        self, delay: float, callback: Callable[..., None], *args: Any
    ) -> asyncio.TimerHandle | None:
        """Call ``callback(*args)`` in ``delay`` seconds (None: the table is closing)."""
        if self.closing:
            return None
        return self.timers.later(delay, callback, *args)

    def _next_round(self, version: int) -> None:
        if version == self.version and self.game and self.state is TableState.PLAYING:
            self._round_actions = 0
            self._publish(self.game.next_round())

    def timeout(self, version: int) -> None:
        """Turn timer: play the default action for the player to move, if the
        game is still where it was (``version``). Inside an out-of-turn window
        it waits for the window's close instead."""
        game = self.game
        if version != self.version or game is None or game.is_round_over:
            return
        if self.out_of_turn.timer_due():
            return
        self.act(game.current, default_action(game), source="timer")

    def _window_closed(self, window: Window) -> None:
        """An out-of-turn window's timer: judge it (:meth:`.outofturn.OutOfTurn.judge`),
        then write the updates of what took effect, once; if nothing did, the
        turn timer (come due meanwhile) or the bots act now."""
        if not self.out_of_turn.closed(window) or self.game is None or not self.playing:
            return
        version = self.version
        due = self.out_of_turn.judge(window)
        if due is not None and self.state is TableState.PLAYING:
            self.fanout.updates(self.game, self.clock.deadline, due)
            self.wake()
        if self.version == version:
            if window.timer_due:
                self.timeout(version)
            else:
                self.bots.schedule()  # a bot whose held intent was refused decides again

    def grace_over(self, index: int) -> None:
        """The person of seat ``index`` stayed away past the grace
        (:class:`.away.Away`): at an arena's table the seat is given up
        (:meth:`give_up`); elsewhere a stand-in plays it until they are back."""
        if self.strict:
            self.give_up(index, f"away past the grace of {self.away_grace:g}s")
            return
        limits = self.limits
        self.seats[index].stand_in = make_bot(
            limits.stand_in, rules=self.rules, max_ms=limits.bot_ms
        )
        log.info("table %s: seat %d is away; a bot plays for them", self.table_id, index)
        self.seats_changed()
        self.bots.schedule_one(index)


__all__ = ["Table"]
