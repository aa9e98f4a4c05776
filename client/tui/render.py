"""Pure drawing helpers for the TUI: cards as coloured boxes, names, log lines.

Everything here turns values the server sent (card ids, engine events, seat
lists) into Rich ``Text``; nothing decides rules. Every colour is also written
out, so the screen reads on a monochrome terminal.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rich.text import Text

from unoplay.game.actions import Action
from unoplay.game.cards import COLOUR, IS_NUMBER, RANK, WILD, Rank, card_name
from unoplay.game.events import Event
from unoplay.game.events import EventKind as E
from unoplay.game.messages import SeatInfo
from unoplay.game.rules import RuleSet, preset_name

COLOUR_WORDS = ("red", "yellow", "green", "blue", "wild")
#: Card face style per colour index (0..3, 4 for wild): text on the card's colour.
FACE = (
    "bold #ffffff on #c62828",
    "bold #1a1a1a on #f4c20d",
    "bold #ffffff on #2e7d32",
    "bold #ffffff on #1565c0",
    "bold #ffffff on #262626",
)
#: Border / text style per colour index, for the card edges and coloured words.
INK = ("#ef5350", "#f4c20d", "#43a047", "#42a5f5", "#bdbdbd")
_RAINBOW = ("#ef5350", "#f4c20d", "#43a047", "#42a5f5")

_RANK_SHORT = {
    Rank.SKIP: "Skip",
    Rank.REVERSE: "Rev",
    Rank.DRAW_TWO: "+2",
    Rank.WILD: "Wild",
    Rank.WILD_DRAW_FOUR: "Wild+4",
}


def rank_short(card: int) -> str:
    """What the card face shows, at most 6 characters: ``"7"``, ``"Skip"``, ``"Wild+4"``."""
    rank = Rank(RANK[card])
    return _RANK_SHORT.get(rank, str(int(rank)))


def colour_word(colour: int) -> str:
    """``"red"`` .. ``"blue"`` for 0..3, ``"wild"`` for 4, ``"none"`` otherwise."""
    return COLOUR_WORDS[colour] if 0 <= colour <= 4 else "none"


def colour_text(colour: int, upper: bool = False) -> Text:
    """A colour's name written in that colour (readable without colour too)."""
    word = colour_word(colour)
    if 0 <= colour <= 3:
        return Text(word.upper() if upper else word, style=FACE[colour])
    return Text(word.upper() if upper else word, style="bold")


def card_text(card: int, colour: int | None = None) -> Text:
    """A card's name in its colour, e.g. "red 7"; a wild with ``colour`` as "Wild (blue)"."""
    c = COLOUR[card]
    text = Text(card_name(card), style=f"bold {INK[c]}")
    if c == WILD and colour is not None and 0 <= colour <= 3:
        text.append(" (")
        text.append(colour_word(colour), style=f"bold {INK[colour]}")
        text.append(")")
    return text


@dataclass(frozen=True)
class CardSize:
    """The cells of a card drawn by :func:`card_lines`, borders included."""

    width: int
    height: int


#: A terminal too small for the usual cards (one line inside: "R7", "Y+2").
SMALL = CardSize(7, 3)
#: The usual card (80x24): the rank, then the colour's name.
NORMAL = CardSize(8, 4)
#: A large terminal's card, with room around the rank and the colour.
LARGE = CardSize(12, 6)
#: A very large terminal's card (200x60).
HUGE = CardSize(16, 9)

#: Width and height of a :data:`NORMAL` card.
CARD_W, CARD_H = NORMAL.width, NORMAL.height

_RANK_TINY = {"Skip": "Skp", "Wild+4": "W+4"}


def _face_word(card: int, inner: int, face: str, dim: bool) -> Text:
    """The rank as the card face shows it, ``inner`` cells wide (a Wild's
    letters in the four colours)."""
    c = COLOUR[card]
    word = rank_short(card)
    if len(word) > inner or inner <= 5:  # a small card: a colour letter and a short rank
        word = ("" if c == WILD else "RYGB"[c]) + _RANK_TINY.get(word, word)
    word = word.center(inner)
    if c != WILD or dim:
        return Text(word, style=face)
    rank = Text(style=face)
    k = 0
    for ch in word:
        if ch.isalpha() or ch == "+":
            rank.append(ch, style=f"bold {_RAINBOW[k % 4]} on #262626")
            k += 1
        else:
            rank.append(ch, style=face)
    return rank


def card_lines(
    card: int,
    *,
    label: str = "",
    selected: bool = False,
    playable: bool = False,
    dim: bool = False,
    jump: bool = False,
    marked: bool = False,
    size: CardSize = NORMAL,
    named: int = -1,
) -> list[Text]:
    """A card as ``size.height`` lines of ``size.width`` cells.

    ``label`` goes in the top edge (the number key), ``playable`` writes
    "play" in the bottom edge ("jump!" with ``jump``: a play out of turn),
    ``selected`` draws a heavy edge, ``marked`` a ✓ in the top edge (marked to
    be played with others), ``dim`` greys the card out (not playable on your turn).
    A :data:`SMALL` card shows the colour as a letter beside the rank.
    ``named`` (0..3), for a wild on the discard pile: the colour its player
    named, drawn as its edge and written under the rank.
    """
    c = COLOUR[card]
    named = named if c == WILD and 0 <= named <= 3 else -1
    shown = c if named < 0 else named  # the colour its edge and its word show
    edge = INK[shown]
    if dim:
        edge = "#616161"
    face = FACE[c] if not dim else "#9e9e9e on #303030"
    tl, tr, bl, br, h, v = (
        ("┏", "┓", "┗", "┛", "━", "┃") if selected else ("╭", "╮", "╰", "╯", "─", "│")
    )
    edge_style = f"bold {edge}" if selected else edge
    inner = size.width - 2
    top = Text(tl, style=edge_style)
    label = label[: inner - 2]
    top.append(label, style="bold reverse" if selected else "bold")
    if marked:
        top.append(h * (inner - len(label) - 2), style=edge_style)
        top.append("✓", style="bold #1a1a1a on #f4c20d")
        top.append(h + tr, style=edge_style)
    else:
        top.append(h * (inner - len(label)) + tr, style=edge_style)

    def inside(content: Text) -> Text:
        return Text(v, style=edge_style) + content + Text(v, style=edge_style)

    middle = [inside(_face_word(card, inner, face, dim))]
    if size.height > 3:
        word = colour_word(shown)
        style = face if named < 0 else f"bold {INK[named]} on #262626"
        middle.append(inside(Text(word[:inner].center(inner), style=style)))
    blank = inside(Text(" " * inner, style=face))
    while len(middle) < size.height - 2:  # room around the rank and the colour
        middle = [blank, *middle] if len(middle) % 2 == 0 else [*middle, blank]
    mark = ("jump!" if jump else "play") if playable else ""
    mark = mark[: inner - 1]
    bottom = Text(bl + h, style=edge_style)
    bottom.append(mark, style="bold reverse" if playable else "")
    bottom.append(h * (inner - 1 - len(mark)) + br, style=edge_style)
    return [top, *middle, bottom]


#: The log's line at the start of your turn.
YOUR_TURN = "Your turn"

#: Said of a seeded table (``Table.seeded``) on the rules line and in the lobby.
SEEDED_NOTE = "seeded: deals known to its creator"


def rules_label(rules: RuleSet) -> str:
    """A short name for a table's rules, e.g. "official, to 500" or "house, one round":
    the preset they match (whatever the target score), or "custom rules"."""
    name = preset_name(rules)
    if name == "custom":
        name = "custom rules"
    target = rules.target_score
    return f"{name}, to {target}" if target else f"{name}, one round"


def rules_line(preset: str, changes: Sequence[str], width: int) -> Text:
    """The rules line at a table, "Rules house: stacking +4/+2, jump-in · ? explains",
    in at most ``width`` cells: the changes that do not fit are left out for
    "…" (the help lists them all)."""
    for count in range(len(changes), -1, -1):
        shown = ", ".join(changes[:count])
        if count < len(changes):
            shown += ", …" if count else "…"
        line = Text.assemble(
            ("Rules ", "dim"), (preset, "bold"), f": {shown}", (" · ? explains", "dim")
        )
        if line.cell_len <= width:
            return line
    line.truncate(width, overflow="ellipsis")
    return line


def seat_name(seats: Sequence[SeatInfo], seat: int, me: int) -> str:
    """Display name of ``seat``: "you" for the receiver, else the seat's name."""
    if seat == me:
        return "you"
    if 0 <= seat < len(seats) and seats[seat].name:
        return seats[seat].name
    return f"seat {seat + 1}"


def action_words(action: Action, names: Sequence[str]) -> str:
    """``action.describe()`` with players named, not numbered ("swap with Bob")."""

    def name(match: re.Match[str]) -> str:
        seat = int(match.group(1))
        return names[seat] if 0 <= seat < len(names) and names[seat] else f"seat {seat + 1}"

    return re.sub(r"\bplayer (\d+)", name, action.describe())


def _cards(cards: Sequence[int]) -> Text:
    text = Text()
    for i, card in enumerate(cards):
        if i:
            text.append(", ")
        text.append_text(card_text(card))
    return text


def event_line(
    event: Event, seats: Sequence[SeatInfo], me: int, after: E | None = None
) -> Text | None:
    """One log line for ``event`` as seen by seat ``me``; None for events not
    worth a line. ``after``: the kind of the event before it (a reshuffle
    after a returned starter is of the whole deck, not of discards)."""
    k = event.kind
    p = seat_name(seats, event.player, me)
    t = seat_name(seats, event.target, me)
    you = event.player == me
    P = "You" if you else p
    text = Text()
    if k is E.PLAYED:  # several cards under multi_play, the new top card last
        text.append(f"{P} jumped in with " if event.value == 1 else f"{P} played ")
        for i, card in enumerate(event.cards):
            if i:
                text.append(" + ")
            text.append_text(card_text(card, event.colour if COLOUR[card] == WILD else None))
    elif k is E.DREW:
        if you and event.count:
            return None  # the private DREW_CARDS line says more
        text.append(f"{P} drew {event.count} card{'s' if event.count != 1 else ''}")
    elif k is E.DREW_CARDS:
        text.append("You drew ")
        text.append_text(_cards(event.cards))
    elif k is E.KEPT:
        text.append(f"{P} kept the drawn card")
    elif k is E.SKIPPED:
        text.append(f"{P} {'are' if you else 'is'} skipped", style="italic")
    elif k is E.DIRECTION_CHANGED:
        text.append(
            "Direction: " + ("↻ clockwise" if event.value == 1 else "↺ counter-clockwise"),
            style="italic",
        )
    elif k is E.COLOUR_CHOSEN:
        text.append(f"{P} named ")
        text.append_text(colour_text(event.colour))
    elif k is E.UNO_CALLED:
        text.append(f"{P} called UNO!", style="bold #f4c20d")
    elif k is E.UNO_FALSE_CALL:
        text.append(f"{P} called UNO when it was not due: +{event.count}", style="bold")
    elif k is E.UNO_CAUGHT:
        text.append(f"{P} caught {t} without UNO!", style="bold #ef5350")
    elif k is E.CHALLENGED:
        verdict = "guilty" if event.value else "not guilty"
        whose = "your" if event.target == me else f"{t}'s"
        text.append(f"{P} challenged {whose} Wild Draw Four: {verdict}", style="bold")
    elif k is E.HAND_SHOWN:
        text.append(f"{'Your' if you else p + chr(39) + 's'} hand was: ")
        text.append_text(_cards(event.cards))
    elif k is E.PENALTY_ACCEPTED:
        text.append(f"{P} accepted the penalty: +{event.count}")
    elif k is E.DECK_RESHUFFLED and after is E.STARTER_RETURNED:
        text.append(f"The draw pile is reshuffled with it: {event.count} cards", style="italic")
    elif k is E.DECK_RESHUFFLED:
        text.append(f"Discards reshuffled: a new draw pile of {event.count}", style="italic")
    elif k is E.TURN:
        if not you:
            return None
        text.append(YOUR_TURN, style="bold reverse")
    elif k is E.ROUND_STARTED:
        text.append(
            f"── Round {event.value} ── {p} deal{'' if you else 's'} {event.count} each",
            style="bold",
        )
    elif k is E.HAND_DEALT:
        text.append(f"You were dealt {len(event.cards)} cards")
    elif k is E.STARTER_FLIPPED:
        text.append("Starter card: ")
        text.append_text(card_text(event.cards[0]))
    elif k is E.STARTER_RETURNED:
        text.append_text(card_text(event.cards[0]))
        text.append(" went back into the pile")
    elif k is E.DEALER_DRAW:  # RULES.md section 2, "Dealer draw"
        text.append(f"{P} drew ")
        text.append_text(card_text(event.cards[0]))
        text.append(
            " for the deal" if IS_NUMBER[event.cards[0]] else " for the deal: no number, again"
        )
    elif k is E.DEALER_CHOSEN:  # RULES.md section 2, "Dealer draw"
        text.append(f"{P} drew the highest number and deal{'' if you else 's'} first")
    elif k is E.HAND_SCORED:
        text.append(f"{P} held {event.value} point{'' if event.value == 1 else 's'}")
    elif k is E.ROUND_OVER:
        text.append(f"{P} won the round: +{event.value} points", style="bold #43a047")
    elif k is E.GAME_OVER:
        text.append(f"{P} won the game!", style="bold #f4c20d")
    elif k.name == "HANDS_SWAPPED":
        text.append(f"{P} swapped hands with {t}", style="bold")
    elif k.name == "HANDS_ROTATED":
        way = "clockwise" if event.value == 1 else "counter-clockwise"
        text.append(f"Every hand passed one seat {way}", style="bold")
    elif k.name == "HAND_RECEIVED":
        text.append("You now hold ")
        text.append_text(_cards(event.cards))
    elif k.name == "WRONG_PLAY":
        text.append(f"{P} tried a card that may not be played: +{event.count}", style="bold")
    elif k is E.PLAYER_OUT:
        text.append(f"{P} {'are' if you else 'is'} out (place {event.value})", style="bold")
    elif k is E.TIMED_OUT:
        text.append(
            f"{'Your' if you else p + chr(39) + 's'} time ran out: the table plays "
            f"for {'you' if you else 'them'}",
            style="italic",
        )
    elif k.name == "LAST_CARD_NOT_NUMBER":
        text.append(
            f"{P} went out on an action card: draw{'' if you else 's'} one instead", style="bold"
        )
    elif k is E.ROUND_CAPPED:
        text.append(
            f"Cap reached ({event.count:,} actions): the game ends with no winner",
            style="bold",
        )
    else:  # pragma: no cover - a kind added later
        text.append(f"{k.name.lower().replace('_', ' ')}: {p}")
    return text
