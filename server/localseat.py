"""A person's seat played in this process, without the wire: for a match
runner whose bots run beside its embedded server (``uno match``'s Python
entrants).

The bot sees exactly what a bot on the network sees through a bot loop that
follows proto/README.md, section 7 (the SDK's ``run_bot`` is one), decided at
the same points: every event
its seat may see (``observe([event])``, in order, for a bot that observes),
its view and legal actions after every change that leaves it some
(``decide(view, legal)``), a refusal of its intent (and then a new decision
on what it knows), nothing while an intent of its own is unanswered. The
table is the same (seats, window, timers, record, refusals counted per
seat); what goes is the encoding of the seat's updates, the stream, gRPC and
the SDK's decoding: the view and the legal actions are read from the game,
the events and refusals come as game values (:class:`.fanout.LocalFeed`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from unoplay.game.messages import Refusal, TableState

from .fanout import LocalFeed

if TYPE_CHECKING:
    from .table import Table


async def play_local(
    table: Table,
    index: int,
    bot: Any,
    on_refusal: Callable[[Refusal, int], None] | None = None,
) -> None:
    """Play seat ``index`` of ``table`` (a person's, taken with
    ``Lobby.join``) with ``bot`` until the game is over, the table closes or
    this is cancelled; the seat counts as connected meanwhile (no stand-in).
    ``on_refusal(refusal, in_row)`` is called with each refusal of the bot's
    intents and how many it got in a row since it last decided on a new
    change; what it (or the bot) raises ends the play."""
    fanout = table.fanout
    seat = table.seats[index]
    fanout.close_log(seat)  # nobody reads it: no update is encoded for it
    feed = fanout.local[index] = LocalFeed()
    table.attach(seat)
    observes = getattr(bot, "observes", False)
    waiting = False  # an intent is out and unanswered
    in_row = 0  # refusals since the bot last decided on a new change
    seen = -1  # the table's version the bot last looked at
    try:
        while True:
            events, feed.events = feed.events, []
            if observes:
                for event in events:
                    bot.observe([event])
            decide = False
            refusals, feed.refusals = feed.refusals, []
            for refusal in refusals:
                if waiting:
                    in_row += 1
                    if on_refusal is not None:
                        on_refusal(refusal, in_row)
                    waiting, decide = False, True
            if refusals:  # let the others run (a watcher counting refusals) before
                await asyncio.sleep(0)  # the bot decides again
            if table.version != seen:
                seen, in_row, waiting, decide = table.version, 0, False, True
            game = table.game
            if table.state is TableState.FINISHED or table.closing:
                return
            if decide and game is not None and table.state is TableState.PLAYING:
                legal = game.legal_actions(index)
                if legal and not game.is_round_over:
                    action = bot.decide(game.view(index), legal)
                    if action is not None:
                        waiting = True
                        table.act(index, action)
                        continue  # its answer (a change, a refusal) may be here already
            await fanout.wait_for_change(index)
    finally:
        if fanout.local.get(index) is feed:
            del fanout.local[index]
        if table.seats[index] is seat:
            table.detach(seat)
