"""Entry names compared as they look: the skeleton of a name (after Unicode TR 39, "Unicode Security
Mechanisms", §4 Confusable Detection), so a homoglyph copy of another entry's name — `R-ВЕRТ` with Cyrillic
letters, `ｒ－ｂｅｒｔ` in full width, `R‐BERT` with a hyphen from another block — is refused (409) instead of
standing on the board next to the original, looking the same (owners are not shown on the board).

The skeleton: the Default_Ignorable_Code_Point characters removed (Unicode's DerivedCoreProperties: the soft
hyphen U+00AD, the Mongolian vowel separator U+180E, the zero-width and joiner characters, variation selectors,
Hangul fillers, tags — characters a renderer shows as nothing, so `rbert` followed by one looks like `rbert`), NFKC
(full-width and mathematical letters, ligatures, compatibility spaces), capital I as l (TR 39
maps I, l, 1 and | to l), case folded, accents dropped (NFD, combining marks removed), the Cyrillic, Greek and
Latin letters that look like Latin letters mapped to them (CONFUSABLE: a subset of TR 39's confusables.txt, the
letters of the scripts names are typed in), every dash to -, `rn` to m, runs of spaces to one.

>>> skeleton("R-ВЕRТ") == skeleton("r-bert") == skeleton("ｒ－ｂｅｒｔ") == skeleton("R\u2010BERT")
True
>>> skeleton("rbert\u00ad") == skeleton("rbert\u180e") == skeleton("r\ufe0fbert") == skeleton("rbert")
True
>>> skeleton("R-BERT") == skeleton("R-BERT-2")
False
"""

from __future__ import annotations

import functools
import re
import unicodedata

#: Letters that look like a Latin letter (after case folding), from Unicode TR 39's confusables.txt: Cyrillic,
#: Greek, and Latin letters of other blocks; digits and the bar that look like letters.
CONFUSABLE = str.maketrans(
    {
        # Cyrillic
        "а": "a",
        "в": "b",
        "г": "r",
        "е": "e",
        "з": "3",
        "і": "i",
        "ј": "j",
        "к": "k",
        "м": "m",
        "н": "h",
        "о": "o",
        "п": "n",
        "р": "p",
        "с": "c",
        "т": "t",
        "у": "y",
        "х": "x",
        "ѕ": "s",
        "ԁ": "d",
        "ԛ": "q",
        "ԝ": "w",
        "ү": "y",
        "һ": "h",
        "ӏ": "l",
        "ь": "b",
        "ѵ": "v",
        "ɡ": "g",
        # Greek
        "α": "a",
        "β": "b",
        "γ": "y",
        "ε": "e",
        "ζ": "z",
        "η": "n",
        "ι": "i",
        "κ": "k",
        "ν": "v",
        "ο": "o",
        "ρ": "p",
        "τ": "t",
        "υ": "u",
        "χ": "x",
        "ω": "w",
        "ϲ": "c",
        "ϳ": "j",
        "ϐ": "b",
        # Latin lookalikes, digits, the bar
        "ı": "i",
        "ȷ": "j",
        "ɑ": "a",
        "ʏ": "y",
        "ɩ": "i",
        "ꞵ": "b",
        "1": "l",
        "|": "l",
        "0": "o",
    }
)


#: Unicode's Default_Ignorable_Code_Point property (DerivedCoreProperties.txt, Unicode 15.1), as ranges of code
#: points: characters that render as nothing unless a font has a glyph for them.
DEFAULT_IGNORABLE: tuple[tuple[int, int], ...] = (
    (0x00AD, 0x00AD),  # soft hyphen
    (0x034F, 0x034F),  # combining grapheme joiner
    (0x061C, 0x061C),  # Arabic letter mark
    (0x115F, 0x1160),  # Hangul choseong and jungseong fillers
    (0x17B4, 0x17B5),  # Khmer inherent vowels
    (0x180B, 0x180F),  # Mongolian free variation selectors, vowel separator
    (0x200B, 0x200F),  # zero width space, non-joiner, joiner, direction marks
    (0x202A, 0x202E),  # bidirectional embeddings and overrides
    (0x2060, 0x206F),  # word joiner, invisible operators, isolates, deprecated format characters
    (0x3164, 0x3164),  # Hangul filler
    (0xFE00, 0xFE0F),  # variation selectors
    (0xFEFF, 0xFEFF),  # zero width no-break space
    (0xFFA0, 0xFFA0),  # halfwidth Hangul filler
    (0xFFF0, 0xFFF8),  # unassigned, reserved ignorable
    (0x1BCA0, 0x1BCA3),  # shorthand format controls
    (0x1D173, 0x1D17A),  # musical symbol format controls
    (0xE0000, 0xE0FFF),  # tags, variation selectors supplement, reserved ignorable
)


#: One character class of DEFAULT_IGNORABLE's ranges: a name is cleared of them in one pass.
_IGNORABLE = re.compile(
    "[" + "".join(f"{re.escape(chr(low))}-{re.escape(chr(high))}" for low, high in DEFAULT_IGNORABLE) + "]"
)


def is_default_ignorable(ch: str) -> bool:
    """Whether `ch` has Unicode's Default_Ignorable_Code_Point property.

    >>> is_default_ignorable("\u00ad"), is_default_ignorable("\u180e"), is_default_ignorable("-")
    (True, True, False)
    """
    return _IGNORABLE.fullmatch(ch) is not None


def _visible(s: str) -> str:
    return _IGNORABLE.sub("", s)


@functools.lru_cache(maxsize=1 << 16)
def skeleton(name: str) -> str:
    """What `name` looks like (module notes): two names with the same skeleton are confusable.

    Kept for the last 65,536 names: a new entry is compared with every entry of its benchmark, so on a board of
    1,000 entries each name's skeleton was computed again for every submission (the submissions' cost grew with
    the square of the entries).
    """
    s = _visible(unicodedata.normalize("NFKC", _visible(name))).replace("I", "l").casefold()
    s = "".join(c for c in unicodedata.normalize("NFD", s) if unicodedata.category(c) != "Mn")
    s = "".join("-" if unicodedata.category(c) == "Pd" or c == "\u2212" else c for c in s.translate(CONFUSABLE))
    s = re.sub(r"\s+", " ", s.replace("rn", "m")).strip()
    return unicodedata.normalize("NFC", s)
