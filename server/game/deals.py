"""Fair deals: the secret seed, the chance stream it keys, the commitment, and
a check of every card a seat saw against the revealed seed (RULES.md, "Fair
deals"; proto/README.md section 11 specifies the same for other languages).

* A game's **seed** is text: the server makes 64 hex digits (256 bits) with
  :func:`new_seed` from the operating system's CSPRNG; a seeded table's seed
  is the creator's (1..64 printable ASCII characters). It is never sent while
  the game is played.
* All chance of the engine (dealer draw, deals, reshuffles) comes from
  :class:`DealRandom`, a generator keyed by the seed that is a cryptographic
  PRF: SHAKE-256 (FIPS 202) in counter mode. The same seed gives the same game; no number
  of cards seen says anything about those not seen (unlike Mersenne Twister,
  whose whole state follows from 624 outputs).
* At the start every seat and spectator gets :func:`commitment`: SHA-256 over
  the seed, a fresh secret salt, the table, the seat count and the rules. At
  the end the seed and the salt are revealed; :class:`DealCheck` then replays
  the piles from the public events and checks every card the receiver saw.

No I/O, no clock: pure functions and values.
"""

from __future__ import annotations

import hashlib
import random
import secrets
import sys
from array import array
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from .cards import CLASSIC_POINTS, DECK_SIZE, RANK, STANDARD_POINTS, Rank
from .events import EVERYONE, Event, EventKind

#: Bytes of a server-made seed (64 hex digits) and of a salt (32 hex digits).
SEED_BYTES = 32
SALT_BYTES = 16
#: Longest seed text a seeded table may be given.
MAX_SEED_CHARS = 64

_KEY_TAG = b"unoplay deal v1\n"
_COMMITMENT_TAG = "unoplay deal commitment v1"
#: Bytes of one block of the stream: 256 words of 32 bits.
BLOCK_BYTES = 1024
_BIG_ENDIAN_HOST = sys.byteorder == "big"
assert array("I").itemsize == 4


def new_seed() -> str:
    """A fresh secret seed: 64 lowercase hex digits (256 bits) from ``secrets``."""
    return secrets.token_hex(SEED_BYTES)


def new_salt() -> str:
    """A fresh secret salt for a commitment: 32 lowercase hex digits (128 bits)."""
    return secrets.token_hex(SALT_BYTES)


def check_seed_text(seed: str) -> str:
    """``seed`` if it is a seed a table may be given (1..64 printable ASCII
    characters, no blanks at either end); raises ValueError otherwise."""
    if (
        not 1 <= len(seed) <= MAX_SEED_CHARS
        or not seed.isascii()
        or not seed.isprintable()
        or seed != seed.strip()
    ):
        raise ValueError(f"a seed is 1..{MAX_SEED_CHARS} printable ASCII characters")
    return seed


def game_seed(table_seed: str, number: int) -> str:
    """The seed of game ``number`` (1, 2, ...) of a seeded table: 64 hex
    digits, SHA-256("unoplay game seed v1\n" + table_seed + "\n" + number).
    One-way: the seed a game reveals at its end says nothing of the table's,
    so nobody who saw it learns the deals of the games after it; its creator
    derives them all (RULES.md, "Fair deals")."""
    return hashlib.sha256(f"unoplay game seed v1\n{table_seed}\n{number}".encode()).hexdigest()


def seed_key(seed: str | int) -> bytes:
    """The 32-byte key of the chance stream: SHA-256("unoplay deal v1\\n" + seed
    as UTF-8). An int seed stands for its decimal text."""
    return hashlib.sha256(_KEY_TAG + str(seed).encode()).digest()


class DealRandom(random.Random):
    """The engine's chance: a stream of 32-bit words keyed by a seed.

    Block ``i`` (i = 0, 1, 2, ...) is the first 1024 bytes of SHAKE-256(key ||
    i as 8 little-endian bytes), read as 256 little-endian uint32 words; the
    stream is the blocks in order (key: :func:`seed_key`). Every draw takes
    the next words of that one stream:

    * :meth:`below` ``(n)``: one word ``w``, returns ``(w * n) >> 32`` (0..n-1);
    * :meth:`getrandbits` ``(k)``: ``ceil(k / 32)`` words, concatenated (first
      word most significant), keeping the top ``k`` bits;
    * :meth:`random`: ``getrandbits(53) / 2**53``.

    So the other ``random.Random`` methods (``shuffle``, ``choice``, ...) draw
    from the stream too. ``seed`` is text (an int stands for its decimal text).
    """

    def __init__(self, seed: str | int = "") -> None:
        self._words: list[int] = []
        super().__init__(seed)

    def seed(self, a: object = "", version: int = 2) -> None:
        """Restart the stream at block 0 of the key of ``a`` (text; an int is its decimal)."""
        self._key = seed_key(a if isinstance(a, (str, int)) else str(a))
        self._counter = 0
        self._words = []
        self.gauss_next = None

    def _refill(self) -> list[int]:
        block = array(
            "I",
            hashlib.shake_256(self._key + self._counter.to_bytes(8, "little")).digest(BLOCK_BYTES),
        )
        if _BIG_ENDIAN_HOST:
            block.byteswap()
        self._counter += 1
        block.reverse()  # popped from the end: the block's first word first
        self._words = words = block.tolist()
        return words

    def shuffle_steps(self, items: list[int], start: int, stop: int) -> None:
        """Fisher-Yates steps on ``items`` in place: for ``i`` from ``start - 1``
        down to ``stop``, swap ``items[i]`` with ``items[below(i + 1)]``. With
        ``start = len(items)`` and ``stop = 0`` it is a whole uniform shuffle;
        the engine shuffles its draw pile lazily, a few positions at a time."""
        _steps(self._words, self._refill, items, start, stop)

    def below(self, n: int) -> int:
        """A number in ``0..n-1`` (``1 <= n <= 2**32``) from the next word: ``(w * n) >> 32``.

        Its bias is at most ``n / 2**32`` (below 3e-8 for a deck of 108 cards)."""
        words = self._words or self._refill()
        return _scale(words.pop(), n)

    def _word(self) -> int:
        words = self._words or self._refill()
        return words.pop()

    def getrandbits(self, k: int) -> int:
        """``k`` random bits (``k >= 0``) from ``ceil(k / 32)`` words of the stream."""
        if k < 0:
            raise ValueError("number of bits must be non-negative")
        n = -(-k // 32)
        value = 0
        for _ in range(n):
            value = value << 32 | self._word()
        return value >> (32 * n - k)

    def random(self) -> float:
        """A float in [0, 1): ``getrandbits(53) / 2**53``."""
        return self.getrandbits(53) * (1.0 / 9007199254740992.0)

    def getstate(self) -> tuple[bytes, int, tuple[int, ...]]:  # type: ignore[override]
        """(key, next block, words left of the current block): a point in the stream."""
        return (self._key, self._counter, tuple(self._words))

    def setstate(self, state: tuple[bytes, int, tuple[int, ...]]) -> None:  # type: ignore[override]
        """Go back to a point given by :meth:`getstate`."""
        key, counter, words = state
        self._key = key
        self._counter = counter
        self._words = list(words)

    def copy(self) -> DealRandom:
        """An independent generator at the same point of the same stream."""
        other: DealRandom = DealRandom.__new__(DealRandom)
        other._key = self._key
        other._counter = self._counter
        other._words = self._words[:]
        other.gauss_next = None
        return other


# The two loops of the stream, as functions so that the compiled build
# (deals.pxd) runs them on C integers; plain Python runs them as written.


def _steps(
    words: list[int], refill: Callable[[], list[int]], items: list[int], start: int, stop: int
) -> None:
    """:meth:`DealRandom.shuffle_steps`: for ``i`` from ``start - 1`` down to
    ``stop``, swap ``items[i]`` with ``items[(w * (i + 1)) >> 32]``, ``w`` the
    next word of the stream (popped from ``words``; ``refill()`` gives the
    next block's once they run out)."""
    for i in range(start - 1, stop - 1, -1):
        if not words:
            words = refill()
        w = words.pop()
        j = (w * (i + 1)) >> 32
        items[i], items[j] = items[j], items[i]


def _scale(word: int, n: int) -> int:
    """A 32-bit ``word`` scaled to ``0..n-1``: ``(word * n) >> 32`` (``n <= 2**32``)."""
    return (word * n) >> 32


# ------------------------------------------------------------------ commitment


def rules_text(rules: Mapping[str, object]) -> str:
    """Every option of a rule set as ``name=value``, sorted by name and joined
    by commas; values as ``RuleSet.to_dict()`` gives them (true/false, decimal,
    a choice's name). E.g. ``challenge_success_skips_challenger=true,...``."""

    def plain(value: object) -> str:
        if isinstance(value, bool):
            return "true" if value else "false"
        return str(value)

    return ",".join(f"{name}={plain(rules[name])}" for name in sorted(rules))


def commitment_text(
    seed: str, salt: str, table_id: str, seats: int, rules: Mapping[str, object]
) -> str:
    """The text whose SHA-256 is the commitment: six lines, each ending in a line feed."""
    return (
        f"{_COMMITMENT_TAG}\ntable: {table_id}\nseats: {seats}\n"
        f"rules: {rules_text(rules)}\nsalt: {salt}\nseed: {seed}\n"
    )


def commitment(seed: str, salt: str, table_id: str, seats: int, rules: Mapping[str, object]) -> str:
    """The commitment to a game's deals (64 lowercase hex digits): SHA-256 of
    :func:`commitment_text`. ``rules`` is ``RuleSet.to_dict()``. The salt
    keeps a short, guessable seed (a seeded table's) from being found by trying."""
    return hashlib.sha256(commitment_text(seed, salt, table_id, seats, rules).encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class DealReveal:
    """The secret of a game's deals, revealed when the game ends (finished,
    or interrupted by the server's stop)."""

    seed: str
    salt: str
    commitment: str


# ------------------------------------------------------------------ checking


#: Events that give someone cards (what a stored game keeps to be verified).
RECEIVED_KINDS = frozenset(
    {EventKind.DEALER_DRAW, EventKind.HAND_DEALT, EventKind.STARTER_FLIPPED, EventKind.DREW_CARDS}
)


@dataclass
class DealCheck:
    """Replays the piles of one game from the events one receiver saw and
    checks every card it could see against the revealed seed.

    ``seat`` is the receiver (-1 a spectator); ``rules`` is
    ``RuleSet.to_dict()``. Feed the events in the order received with
    :meth:`feed` (all of them, from the game's first DEALER_DRAW or
    ROUND_STARTED), then read :attr:`problems` (empty: fair) and
    :attr:`checked` (cards compared). What is checked: the dealer draw, every
    starter card, the receiver's own hands and draws, every hand it was shown
    (a challenge, a swap), that every card played was in its player's hand as
    the seed dealt it, and every hand's points at the end of a round.
    """

    seed: str
    seat: int
    players: int
    rules: Mapping[str, object]
    checked: int = 0
    problems: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._rng = DealRandom(self.seed)
        self._points = (
            CLASSIC_POINTS if self.rules.get("point_values") == "classic" else STANDARD_POINTS
        )
        self._direction = -1 if self.rules.get("initial_direction") == "counter_clockwise" else 1
        self._ring = list(range(self.players))  # seats in play, clockwise
        self._hands: list[list[int]] = [[] for _ in range(self.players)]
        self._draw: list[int] = []
        self._unshuffled = 0
        self._discard: list[int] = []
        self._dealer_deck = list(range(DECK_SIZE))
        self._round = 0
        self._my_draws: list[list[int]] = []  # my predicted draws not yet shown to me
        self._shown: dict[int, list[int]] = {}  # seat -> its hand after its last Wild Draw Four

    # The pile algorithm, step by step as proto/README.md section 11 states it.

    def _pop(self, k: int) -> list[int]:
        draw = self._draw
        m = len(draw)
        k = min(k, m)
        low = m - k
        if low < self._unshuffled:
            for i in range(self._unshuffled - 1, low - 1, -1):
                j = self._rng.below(i + 1)
                draw[i], draw[j] = draw[j], draw[i]
            self._unshuffled = low
        got = draw[low:]
        del draw[low:]
        got.reverse()
        return got

    def _draw_cards(self, n: int) -> list[int]:
        got = self._pop(n)
        if len(got) < n and len(self._discard) > 1:
            self._draw = self._discard[:-1]
            self._unshuffled = len(self._draw)
            del self._discard[:-1]
            got += self._pop(n - len(got))
        return got

    def _expect(
        self, what: str, seen: Iterable[int], predicted: Iterable[int], as_set: bool = False
    ) -> None:
        seen, predicted = list(seen), list(predicted)
        if as_set:
            seen, predicted = sorted(seen), sorted(predicted)
        self.checked += len(seen)
        if seen != predicted:
            self.problems.append(
                f"round {self._round}: {what}: seen {seen}, the seed deals {predicted}"
            )

    def feed(self, event: Event) -> None:
        """Take the next event the receiver got (private ones are its own)."""
        k = event.kind
        p = event.player
        if k is EventKind.DEALER_DRAW:
            deck = self._dealer_deck
            if not deck:
                deck.extend(range(DECK_SIZE))
            i = self._rng.below(len(deck))
            deck[i], deck[-1] = deck[-1], deck[i]
            self._expect(f"the dealer draw of seat {p}", event.cards, [deck.pop()])
        elif k is EventKind.ROUND_STARTED:
            self._round = event.value
            self._draw = list(range(DECK_SIZE))
            self._unshuffled = DECK_SIZE
            self._discard = []
            ring = self._ring
            m = len(ring)
            dealt = self._pop(event.count * m)
            at = ring.index(p) if p in ring else -1
            hands: list[list[int]] = [[] for _ in range(self.players)]
            for i in range(m):
                hands[ring[(at + self._direction * (1 + i)) % m]] = dealt[i::m]
            self._hands = hands
        elif k is EventKind.HAND_DEALT:
            self._expect(f"the hand dealt to seat {p}", event.cards, self._hands[p])
        elif k is EventKind.STARTER_FLIPPED:
            self._expect("the starter card", event.cards, self._pop(1))
            self._discard = list(event.cards)
        elif k is EventKind.STARTER_RETURNED:
            self._draw.extend(event.cards)
            self._unshuffled = len(self._draw)
            self._discard = []
        elif k is EventKind.DREW:
            got = self._draw_cards(event.count)
            if len(got) != event.count:
                self.problems.append(
                    f"round {self._round}: seat {p} drew {event.count} "
                    f"cards, the piles held {len(got)}"
                )
            self._hands[p] += got
            if p == self.seat and got:
                self._my_draws.append(got)
        elif k is EventKind.DREW_CARDS:
            predicted = self._my_draws.pop(0) if self._my_draws else []
            self._expect(f"the cards drawn by seat {p}", event.cards, predicted)
        elif k is EventKind.PLAYED:
            hand = self._hands[p]
            for card in event.cards:
                if card in hand:
                    hand.remove(card)
                else:
                    self.problems.append(
                        f"round {self._round}: seat {p} played card {card}, "
                        "which the seed did not give them"
                    )
            self._discard += event.cards
            self.checked += len(event.cards)
            if any(RANK[c] == Rank.WILD_DRAW_FOUR for c in event.cards):
                self._shown[p] = hand[:]  # a challenge shows the hand the play left
        elif k is EventKind.HANDS_SWAPPED:
            hands = self._hands
            hands[p], hands[event.target] = hands[event.target], hands[p]
        elif k is EventKind.HANDS_ROTATED:
            ring, hands = self._ring, self._hands
            m = len(ring)
            rotated = hands[:]
            for i, q in enumerate(ring):
                rotated[q] = hands[ring[(i - event.value) % m]]
            self._hands = rotated
        elif k is EventKind.HAND_RECEIVED:
            self._expect(f"the hand seat {p} received", event.cards, self._hands[p], as_set=True)
        elif k is EventKind.HAND_SHOWN:
            self._expect(
                f"the hand seat {p} showed", event.cards, self._shown.get(p, []), as_set=True
            )
        elif k is EventKind.HAND_SCORED:
            points = sum(self._points[c] for c in self._hands[p])
            self.checked += len(self._hands[p])
            if points != event.value:
                self.problems.append(
                    f"round {self._round}: seat {p}'s hand scored "
                    f"{event.value} points, the seed's hand holds {points}"
                )
        elif k is EventKind.PLAYER_OUT and p in self._ring:
            self._ring.remove(p)

    @property
    def fair(self) -> bool:
        """True while no card seen differs from what the seed deals."""
        return not self.problems


def check_deals(
    events: Iterable[Event],
    seat: int,
    reveal: DealReveal,
    *,
    table_id: str,
    players: int,
    rules: Mapping[str, object],
    commitment_seen: str = "",
) -> DealCheck:
    """Check a receiver's events against a revealed seed (see :class:`DealCheck`).

    ``commitment_seen`` is the commitment the receiver got at the start; the
    reveal must match it, and the commitment recomputed from the seed, salt,
    table, seat count and rules must match both. Events with an audience other
    than ``seat`` (a server-side record holds every seat's) are skipped.
    """
    check = DealCheck(reveal.seed, seat, players, rules)
    expected = commitment(reveal.seed, reveal.salt, table_id, players, rules)
    if expected != reveal.commitment:
        check.problems.append("the revealed seed and salt do not give the revealed commitment")
    if commitment_seen and commitment_seen != reveal.commitment:
        check.problems.append("the revealed commitment is not the one sent at the start")
    for event in events:
        if event.audience == EVERYONE or event.audience == seat:
            check.feed(event)
    return check
