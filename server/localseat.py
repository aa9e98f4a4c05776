"""People's seats played in this process, without the wire: for a match
runner whose bots run beside its embedded server (``uno match``'s Python
entrants).

Each bot sees exactly what a bot on the network sees through a bot loop
that follows proto/README.md, section 7 (the SDK's ``run_bot`` is one),
decided at the same points: every event its seat may see
(``observe([event])``, in order, for a bot that observes), its view and
legal actions after every change that leaves it some (``decide(view,
legal)``), a refusal of its intent (and then a new decision on what it
knows), nothing while an intent of its own is unanswered. The table is the
same (seats, window, timers, record, refusals counted per seat); what goes
is the encoding of the seats' updates (and of the spectators' log until a
spectator comes: :meth:`.table.Table.keep_no_spectator_log`), the streams, gRPC and
the SDK's decoding: the view and the legal actions are read from the game,
the events and refusals come as game values (:attr:`.table.Table.local_feed`).

A table's local seats are played by one task: after a change, each seat
that may act decides on it in the order the engine's own loop asks them
(:func:`unoplay.game.bots.play_game`: those that may act out of turn, in seat
order from the one after the player to move, then the player to move), and
a change made by one makes the others decide again on it; so a game of
deterministic bots of this process is the engine's game exactly. The task
waits for the table only when none of them can act (a window's close, a
server bot's turn, the next round), so a game between bots of this process
costs no switch between tasks a move (it lets the loop run every
:data:`YIELD_AFTER` seconds).

The turn timer binds these bots as it binds one over the wire: at a table
with one (``turn_seconds``), every decision is timed, and one that took
longer than the timer allows is a time forfeit (:class:`SlowDecision`, which
ends the task): its answer is dropped and, when it was the player to move,
the timer's own move is made for it, as the server's timer would have. The
decision runs in this task (measure and forfeit), not in a thread: a thread
would cost more than the engine's move on every decision, and could not be
stopped either; a bot that blocks holds this process's loop for as long as
it blocks, and forfeits when it returns (``uno match`` plays one game at a
time per worker, so no other table waits on it).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from unoplay.game.messages import TableState
from unoplay.wire import action_id

if TYPE_CHECKING:
    from .seats import Seat
    from .table import Table

#: Seconds a table's local seats may decide in a row before their task lets
#: the event loop run (timers, other tables, the match's own tasks). At a
#: table with a seat played over the network it lets it run after every
#: move, so that intents already received are taken before the next one.
YIELD_AFTER = 0.01


class BotRaised(Exception):
    """A bot played by :class:`LocalSeats` raised (``sys.exit()`` included):
    ``seat`` is its seat, the bot's own exception is the ``__cause__``."""

    def __init__(self, seat: int) -> None:
        super().__init__(f"the bot of seat {seat} raised")
        self.seat = seat


class SlowDecision(Exception):
    """A bot took ``seconds`` to decide, more than the table's turn timer
    allows (``limit``, seconds): a time forfeit of seat ``seat``, the clock
    binding a bot of this process as it binds one over the wire."""

    def __init__(self, seat: int, seconds: float, limit: float) -> None:
        super().__init__(
            f"time forfeit: a decision took {seconds:.1f} s, more than the {limit:g} s "
            "the turn timer allows (--move-time)"
        )
        self.seat = seat
        self.seconds = seconds
        self.limit = limit


class LocalSeats:
    """The seats of ``table`` played in this process (see the module
    docstring), by one task (:attr:`task`) that runs until the game is over,
    the table closes or it is cancelled; its seats count as connected
    meanwhile (no stand-in). A bot's exception ends the task with
    :class:`BotRaised`."""

    def __init__(self, table: Table, halt: Callable[[], bool] | None = None) -> None:
        """Start the task (on the running loop); add seats with :meth:`add`.
        From now on the table keeps no spectators' log until a spectator comes
        (unless one watches already: :meth:`.table.Table.keep_no_spectator_log`).
        ``halt`` is asked after every refusal: True ends the task, the bots
        asked nothing more (a match's forfeit for illegal actions: the count
        stops where its limit was passed)."""
        self.table = table
        self.halt = halt
        table.keep_no_spectator_log()
        self.bots: dict[int, Any] = {}
        self._seats: list[Seat] = []
        self.alone = False
        #: the seats' indices in the order they decide, by the player to move
        self._orders: list[list[int]] = []
        self.task = asyncio.create_task(self._play())
        self.task.add_done_callback(self._leave)

    def add(self, index: int, bot: Any) -> None:
        """Play seat ``index`` (a person's, taken with ``Lobby.join``) with ``bot``."""
        table = self.table
        seat = table.seats[index]
        self._seats.append(seat)
        self.bots[index] = bot
        #: every seat of the table is played here: nothing else moves it on (but its timers)
        self.alone = len(self.bots) == len(table.seats)
        n = len(table.seats)  # by the player to move: the order they decide in
        self._orders = [
            [i for i in ((current + k) % n for k in range(1, n + 1)) if i in self.bots]
            for current in range(n)
        ]
        table.play_here(seat, getattr(bot, "observes", False))

    async def stop(self) -> None:
        """Cancel the task if it still runs, and wait for its end."""
        self.task.cancel()
        await asyncio.wait({self.task})

    def _leave(self, _task: asyncio.Task[None]) -> None:
        """The task ended (however): the seats are no longer played here."""
        for seat in self._seats:
            self.table.played_elsewhere(seat)

    async def _play(self) -> None:
        table = self.table
        feed = table.local_feed
        bots = self.bots
        finished, playing = TableState.FINISHED, TableState.PLAYING
        waiting: set[int] = set()  # seats with an intent out and unanswered
        seen = -1  # the table's version the bots last looked at
        limit = float(table.turn_seconds)  # seconds a decision may take (0: no clock)
        clock = time.perf_counter
        ran = clock()  # when the loop last ran
        while True:
            deciding: list[int] = []  # seats to decide: refused ones (a new change: all)
            if feed.refused:
                await asyncio.sleep(0)  # a watcher counts refusals before they decide again
                if self.halt is not None and self.halt():
                    return
                deciding = [i for i in waiting if i in feed.refused]
                waiting.difference_update(deciding)
                feed.refused.clear()
            for index, events in feed.events.items():  # then every event, first
                if events:
                    feed.events[index] = []
                    for event in events:
                        try:
                            bots[index].observe([event])
                        except (Exception, SystemExit) as err:
                            raise BotRaised(index) from err
            if table.state is finished or table.closing:
                return
            game = table.game
            if game is None or not self._orders:
                deciding = []
            elif table.version != seen:
                seen = table.version
                waiting.clear()
                deciding = self._orders[game.current]
            elif len(deciding) > 1:  # refused ones, in that order too
                order = self._orders[game.current]
                deciding = sorted(deciding, key=order.index)
            acted = False
            passed = -1  # the player to move, if it answered no action
            if deciding and game is not None and table.state is playing:
                for index in deciding:
                    if game.is_round_over:
                        break
                    legal = game.legal_actions(index)
                    if not legal:
                        continue
                    view = game.view(index)
                    try:
                        asked = clock() if limit else 0.0
                        action = bots[index].decide(view, legal)
                        if limit and (took := clock() - asked) > limit:
                            self._time_forfeit(index, took, limit)
                        if action is None:
                            if index == game.current:
                                passed = index
                            continue
                        # as the SDK sends it: its wire id (an int is one already)
                        ident = action if isinstance(action, int) else action_id(action)
                    except SlowDecision:
                        raise
                    except (Exception, SystemExit) as err:
                        raise BotRaised(index) from err
                    waiting.add(index)
                    acted = True
                    table.seats[index].intent_arrived(table.version, True)  # on the newest view
                    table.act_id(index, ident)  # as the service takes it
                    if table.version != seen:
                        break  # a change: everyone decides again on it
            if not acted and passed >= 0 and self.alone and not table.turn_seconds:
                raise BotRaised(passed) from ValueError(
                    "answered no action on its own turn, at a table with no turn timer "
                    "(uno match --move-time): the game could not go on"
                )
            if acted:  # its answer (a change, a refusal) is here already
                now = clock()
                if now - ran >= YIELD_AFTER or not self.alone:
                    await asyncio.sleep(0)
                    ran = now
                continue
            await table.wait_for_change()
            ran = clock()

    def _time_forfeit(self, index: int, took: float, limit: float) -> None:
        """Seat ``index``'s decision took ``took`` seconds, past ``limit``: its
        answer is dropped, the timer's move made for it if it was the player to
        move (as the server's timer, overdue while the bot held the loop, would
        make it), and :class:`SlowDecision` raised."""
        table = self.table
        game = table.game
        if game is not None and game.current == index and not game.is_round_over:
            table.timeout(table.version)
        raise SlowDecision(index, took, limit)
