"""The bots' turns at a table: server-side bots seated for good and the
stand-ins of away players decide when they may act, after the table's bot
delay; a bot that searches (a budgeted kind, such as ``ismcts``) decides on
the search thread of its event loop (:class:`SearchQueue`), and only its
answer comes back to the loop, never before the search's whole time budget
has passed (RULES.md, "Server bots' timing"). A decision refused, or a search that fails,
plays the turn timer's move (:func:`default_action`), so a table never
stalls on a bot.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections import deque
from collections.abc import Callable
from concurrent.futures import Executor, ThreadPoolExecutor
from typing import Any, Protocol

from unoplay.game.actions import ACCEPT, DRAW, KEEP, Action, choose_colour
from unoplay.game.cards import COLOUR
from unoplay.game.engine import GameState
from unoplay.game.events import Event, visible
from unoplay.game.view import Phase
from unoplay.protocol import ActionSource

from .seats import Seats

log = logging.getLogger("unoplay.table")


def default_action(game: GameState) -> Action:
    """The turn timer's move for the player to move: draw, then keep; accept a
    penalty; name the colour held most for a Wild starter."""
    phase = game.phase
    if phase is Phase.PLAY:
        return DRAW
    if phase is Phase.DRAWN:
        return KEEP
    if phase is Phase.PENALTY:
        return ACCEPT
    hand = game.hand(game.current)
    counts = [sum(1 for c in hand if COLOUR[c] == k) for k in range(4)]
    return choose_colour(counts.index(max(counts)))


class BotTable(Protocol):
    """What :class:`BotTurns` reads of its table and acts through (a
    :class:`.table.Table`)."""

    @property
    def game(self) -> GameState | None:
        """The game being played (None: not yet)."""
        ...

    @property
    def version(self) -> int:
        """Bumps on every change of the game."""
        ...

    @property
    def closing(self) -> bool:
        """True once the server is stopping."""
        ...

    def later(
        self, delay: float, callback: Callable[..., None], *args: Any
    ) -> asyncio.TimerHandle | None:
        """Call ``callback(*args)`` in ``delay`` seconds (None: not at all)."""
        ...

    def act(self, seat: int, action: Action, action_id: int = 0, source: str = "player") -> bool:
        """Take an intent of ``seat``; False if it was refused now."""
        ...


class BotTurns:
    """The turns of the bots playing a table's seats. It reads the table's
    game and version, and acts through :meth:`BotTable.act` like any
    player; what it keeps is the searches under way."""

    def __init__(self, table: BotTable, seats: Seats, delay: float, table_id: str) -> None:
        """The turns of the bots at ``seats`` of ``table`` (``table_id``, for
        the log), each after ``delay`` seconds."""
        self.table = table
        self.seats = seats
        self.delay = delay
        self.table_id = table_id
        #: seat -> (its bot, the events it saw since) while that bot searches
        self.searching: dict[int, tuple[Any, list[Event]]] = {}

    def schedule(self) -> None:
        """Give every bot that may act now its turn, after the bot delay."""
        for seat in self.seats:
            if seat.player is not None:
                self.schedule_one(seat.index)

    def schedule_one(self, seat: int) -> None:
        """Give the bot of ``seat`` its turn after the bot delay, if it may act now."""
        game = self.table.game
        if game is not None and game.legal_actions(seat):
            self.table.later(self.delay, self.turn, seat, self.table.version)

    def observe(self, events: list[Event]) -> None:
        """What each seat saw of a change's ``events``, for its bot that learns
        from it (``observes``): now, or after its answer while it searches (a
        bot's state is never touched by two threads)."""
        for seat in self.seats:
            player = seat.player
            if player is None or not getattr(player, "observes", False):
                continue
            seen = visible(events, seat.index)
            searching = self.searching.get(seat.index)
            if searching is not None and searching[0] is player:
                searching[1].extend(seen)
            else:
                player.observe(seen)

    def turn(self, seat: int, version: int) -> None:
        """A server-side bot's (or stand-in's) turn, if the game is still where
        it was (``version``). A bot that searches (a budgeted kind) thinks on
        the search thread instead, in its turn among the searching bots of
        every table (:class:`SearchQueue`)."""
        legal = self._legal(seat, version)
        if legal is None:
            return
        game, bot = self.table.game, self.seats[seat].player
        assert game is not None  # (_legal checked)
        if getattr(bot, "budgeted", False):
            SearchQueue.of_loop().add(self.search, seat, version)
            return
        self._decided(seat, version, bot, bot.decide(game.view(seat), legal))

    def _legal(self, seat: int, version: int) -> list[Action] | None:
        """The legal actions of the bot playing ``seat``, if the game is still
        where it was (``version``) and it has any; else None."""
        table = self.table
        game = table.game
        if version != table.version or game is None or game.is_round_over or table.closing:
            return None
        if self.seats[seat].player is None:
            return None
        return game.legal_actions(seat) or None

    def search(self, seat: int, version: int, executor: Executor) -> asyncio.Future[Any] | None:
        """Start the searching bot of ``seat`` deciding on ``executor`` (its
        thread), if its turn still stands; the future of its decision, or None.
        Until it answers, what its seat sees is held for it (:meth:`observe`)
        and given in order before its move."""
        legal = self._legal(seat, version)
        if legal is None:
            return None
        game = self.table.game
        assert game is not None
        bot = self.seats[seat].player
        self.searching[seat] = (bot, [])
        loop = asyncio.get_running_loop()
        release = loop.time() + (getattr(bot, "time_ms", None) or 0) / 1000
        future = loop.run_in_executor(executor, bot.decide, game.view(seat), legal)
        future.add_done_callback(lambda done: self._searched(seat, version, bot, release, done))
        return future

    def _searched(
        self, seat: int, version: int, bot: Any, release: float, done: asyncio.Future[Any]
    ) -> None:
        """A search of :meth:`search` ended: the events its seat saw meanwhile
        go to the bot, then its move is played if its turn still stands (a
        search that failed plays the turn timer's move), never before
        ``release`` (loop time: the search's start plus the bot's whole time
        budget, ``time_ms``), however soon it answered: how long a bot takes
        must not tell what it holds (RULES.md, "Server bots' timing")."""
        _, held = self.searching.pop(seat)
        if held:
            bot.observe(held)
        if done.cancelled():
            return
        error = done.exception()
        if error is not None:
            log.error(
                "table %s seat %d: the bot failed to decide",
                self.table_id,
                seat,
                exc_info=error,
            )
        action, failed = None if error else done.result(), error is not None
        wait = release - asyncio.get_running_loop().time()
        if wait > 0:
            self.table.later(wait, self._decided, seat, version, bot, action, failed)
        else:
            self._decided(seat, version, bot, action, failed)

    def _decided(
        self, seat: int, version: int, bot: Any, action: Action | None, failed: bool = False
    ) -> None:
        """Play ``bot``'s decision for ``seat`` if the game is still where it
        was (``version``) and the bot still plays the seat; a refused (or
        failed) decision on its turn plays the turn timer's move instead."""
        table = self.table
        game = table.game
        s = self.seats[seat]
        if version != table.version or game is None or table.closing or s.player is not bot:
            return
        if action is None and not failed:
            return
        source = ActionSource.BOT if s.bot is not None else ActionSource.STAND_IN
        if (
            (action is None or not table.act(seat, action, source=source))
            and game.current == seat
            and version == table.version
        ):
            table.act(seat, default_action(game), source=source)  # never stall on a bot


class SearchQueue:
    """The decisions of the searching bots on one event loop, one at a time,
    in order, each on this queue's thread. A search thinks for up to
    ``Limits.bot_ms`` and the loop goes on meanwhile (sharing the interpreter
    with it: a few milliseconds at a time), so however many bots search at
    once, at any tables, nobody's move waits for a search to end."""

    _of: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, SearchQueue] = (
        weakref.WeakKeyDictionary()
    )

    def __init__(self) -> None:
        # (no reference to its loop: the loop is this queue's weak key)
        self.waiting: deque[tuple[Callable[..., asyncio.Future[Any] | None], tuple[Any, ...]]] = (
            deque()
        )
        self.busy = False  # a search runs, or _next is due
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="unoplay-search")

    @classmethod
    def of_loop(cls) -> SearchQueue:
        """The running loop's queue."""
        loop = asyncio.get_running_loop()
        searches = cls._of.get(loop)
        if searches is None:
            searches = cls._of[loop] = cls()
            weakref.finalize(searches, searches.executor.shutdown, wait=False)
        return searches

    def add(self, start: Callable[..., asyncio.Future[Any] | None], *args: Any) -> None:
        """Queue ``start(*args, executor)``, called on the running loop when the
        searches before it are over; it returns the future of the search it
        began, or None when there is nothing to search any more."""
        self.waiting.append((start, args))
        if not self.busy:
            self.busy = True
            asyncio.get_running_loop().call_soon(self._next)

    def _next(self, _done: object = None) -> None:
        while self.waiting:
            start, args = self.waiting.popleft()
            try:
                future = start(*args, self.executor)
            except Exception:  # that table's bot turn is lost; the others' are not
                log.exception("a search could not start")
                continue
            if future is not None:
                future.add_done_callback(self._next)  # after the table's own callback
                return
        self.busy = False
