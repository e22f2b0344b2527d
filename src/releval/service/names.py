"""Entry names compared as they look: the skeleton of a name (after Unicode TR 39, "Unicode Security
Mechanisms", §4 Confusable Detection), so a homoglyph copy of another entry's name — `R-ВЕRТ` with Cyrillic
letters, `ｒ－ｂｅｒｔ` in full width, `R‐BERT` with a hyphen from another block — is refused (409) instead of
standing on the board next to the original, looking the same (owners are not shown on the board).

The skeleton: NFKC (full-width and mathematical letters, ligatures, compatibility spaces), capital I as l (TR 39
maps I, l, 1 and | to l), case folded, accents dropped (NFD, combining marks removed), the Cyrillic, Greek and
Latin letters that look like Latin letters mapped to them (CONFUSABLE: a subset of TR 39's confusables.txt, the
letters of the scripts names are typed in), every dash to -, `rn` to m, runs of spaces to one.

>>> skeleton("R-ВЕRТ") == skeleton("r-bert") == skeleton("ｒ－ｂｅｒｔ") == skeleton("R\u2010BERT")
True
>>> skeleton("R-BERT") == skeleton("R-BERT-2")
False
"""

from __future__ import annotations

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


def skeleton(name: str) -> str:
    """What `name` looks like (module notes): two names with the same skeleton are confusable."""
    s = unicodedata.normalize("NFKC", name).replace("I", "l").casefold()
    s = "".join(c for c in unicodedata.normalize("NFD", s) if unicodedata.category(c) != "Mn")
    s = "".join("-" if unicodedata.category(c) == "Pd" or c == "\u2212" else c for c in s.translate(CONFUSABLE))
    s = re.sub(r"\s+", " ", s.replace("rn", "m")).strip()
    return unicodedata.normalize("NFC", s)
