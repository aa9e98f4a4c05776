"""Names compared as people read them (server/RULES.md, "The arena": Names).

Two checks, on top of :func:`unoplay.protocol.clean_text`:

* :func:`invisible`: a character that prints as nothing (a format
  character, a default-ignorable code point such as a Hangul filler or a
  variation selector, a blank such as the Braille blank or a space other
  than U+0020) is refused in every name (lobby, arena, the TUI's): ``zoe``
  followed by one prints as ``zoe``.
* :func:`lookalike_key`: a confusable skeleton in the manner of UTS #39,
  from Unicode's confusables data (``confusables.txt``, as the pure-Python
  ``confusable-homoglyphs`` package ships it: no compiled library, so every
  install has it), taken after NFKC and case folding, so that Cyrillic,
  Greek and fullwidth letters and case give the same key as the Latin name
  they look like. The arena's book refuses a new name whose key is a
  registered name's.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

from confusable_homoglyphs import confusables

#: confusables.txt as a map: a character -> the characters it is confusable with
_CONFUSABLE: dict[str, list[dict[str, str]]] = confusables.confusables_data

#: Code points that print as nothing but are not of a blank category:
#: Hangul fillers, the combining grapheme joiner, the Braille blank, the
#: Mongolian free variation selectors.
_BLANKS = frozenset("\u115f\u1160\u3164\uffa0\u034f\u2800\u180b\u180c\u180d\u180e\u180f")
#: Categories with no ink: format (zero-width joiners, direction marks, tags),
#: controls, separators (spaces but U+0020, line and paragraph separators),
#: private use and unassigned code points.
_INKLESS = frozenset({"Cf", "Cc", "Zs", "Zl", "Zp", "Co", "Cn"})


def invisible(name: str) -> str | None:
    """The first character of ``name`` that prints as nothing, as ``U+XXXX
    NAME`` (None when every character shows): a format, control, separator,
    private-use or unassigned code point, a space other than U+0020, a
    variation selector, a Hangul filler or another blank glyph
    (:data:`_BLANKS`)."""
    for ch in name:
        if ch == " ":
            continue
        if (
            ch in _BLANKS
            or unicodedata.category(ch) in _INKLESS
            or "VARIATION SELECTOR" in unicodedata.name(ch, "")
        ):
            return f"U+{ord(ch):04X} {unicodedata.name(ch, 'unnamed')}"
    return None


@lru_cache(maxsize=4096)
def _prototype(ch: str) -> str:
    """The one character ``ch`` and its confusables stand for: of ``ch`` and
    every single character confusable with it, an ASCII letter first, then
    any ASCII character, then the lowest code point (so the Cyrillic and the
    fullwidth small o, U+043E and U+FF4F, are ``o``, and ``0`` is ``O``)."""
    entries = _CONFUSABLE.get(ch)
    if not entries:
        return ch
    options = [ch] + [e["c"].replace("\u200e", "") for e in entries]
    return min(
        (o for o in options if len(o) == 1),
        key=lambda o: (not o.isascii(), not o.isalpha(), ord(o)),
    )


def skeleton(text: str) -> str:
    """The confusable skeleton of ``text`` (UTS #39's shape: NFD, each
    character its prototype, NFD again): equal for strings that look alike,
    e.g. ``zoe`` and ``zoe`` written with Cyrillic o and e."""
    mapped = "".join(_prototype(ch) for ch in unicodedata.normalize("NFD", text))
    return unicodedata.normalize("NFD", mapped)


def lookalike_key(name: str) -> str:
    """What ``name`` looks like, for comparing names (the arena's book):
    the skeleton of its NFKC form (fullwidth and mathematical letters are
    their plain ones), case-folded, and the skeleton again (so ``ZOE`` in
    Greek capitals, whose skeleton is Latin ``ZOE``, ends as ``zoe``)."""
    first = skeleton(unicodedata.normalize("NFKC", name))
    return skeleton(unicodedata.normalize("NFKC", first.casefold()))
