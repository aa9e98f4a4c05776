"""Names compared as people read them (server/RULES.md, "The arena": Names).

Two checks, on top of :func:`.seats.clean_text`:

* :func:`invisible`: a character that prints as nothing (a default-ignorable
  code point such as a Hangul filler or a variation selector, a blank such
  as the Braille blank or a space other than U+0020) is refused in every
  name (lobby, arena, the TUI's): ``zoe`` followed by one prints as ``zoe``.
* :func:`lookalike_key`: the Unicode confusable skeleton of UTS #39 (ICU's
  ``SpoofChecker``, with its confusables data), taken after NFKC and case
  folding, so that Cyrillic, Greek and fullwidth letters and case give the
  same key as the Latin name they look like. The arena's book refuses a new
  name whose key is a registered name's.
"""

from __future__ import annotations

import unicodedata

import icu

_CHECKER = icu.SpoofChecker()
_IGNORABLE = icu.UProperty.DEFAULT_IGNORABLE_CODE_POINT
_WHITE = icu.UProperty.WHITE_SPACE
#: printable, not default-ignorable, and still blank (no ink at all)
_BLANKS = frozenset("\u2800")  # BRAILLE PATTERN BLANK


def invisible(name: str) -> str | None:
    """The first character of ``name`` that prints as nothing, as ``U+XXXX
    NAME`` (None when every character shows): a default-ignorable code point
    (Unicode's Default_Ignorable_Code_Point: Hangul fillers, variation
    selectors, the combining grapheme joiner, format characters), a white
    space other than U+0020, or a blank glyph (U+2800)."""
    for ch in name:
        if ch == " ":
            continue
        if (
            ch in _BLANKS
            or icu.Char.hasBinaryProperty(ch, _IGNORABLE)
            or icu.Char.hasBinaryProperty(ch, _WHITE)
        ):
            return f"U+{ord(ch):04X} {unicodedata.name(ch, 'unnamed')}"
    return None


def skeleton(text: str) -> str:
    """UTS #39's confusable skeleton of ``text`` (ICU's ``getSkeleton``):
    equal for strings that look alike, e.g. ``zoe`` and ``zoe`` written with
    Cyrillic o and e."""
    return str(_CHECKER.getSkeleton(0, text))


def lookalike_key(name: str) -> str:
    """What ``name`` looks like, for comparing names (the arena's book):
    the skeleton of its NFKC form (fullwidth and mathematical letters are
    their plain ones), case-folded, and the skeleton again (so ``ZOE`` in
    Greek capitals, whose skeleton is Latin ``ZOE``, ends as ``zoe``)."""
    first = skeleton(unicodedata.normalize("NFKC", name))
    return skeleton(unicodedata.normalize("NFKC", first.casefold()))
