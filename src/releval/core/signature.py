"""sacreBLEU-style signatures: every setting that can change a number, in a short and a long form.

`key:value|key:value|...`; `parse()` reads either form back, so a saved signature can be compared field by field.
"""

from __future__ import annotations

import hashlib
import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from releval._version import __version__
from releval.core.label_codes import sorted_codes

# Long name -> short name, in printing order. Fields a task does not use are simply absent.
FIELDS: dict[str, str] = {
    "task": "t",
    "view": "v",
    "criterion": "crit",
    "negative": "neg",
    "average": "avg",
    "weighted_classes": "wc",
    "entropy_n": "eN",
    "beta": "b",
    "zero_division": "zd",
    "missing": "miss",
    "alignment": "al",
    "patch": "patch",
    "train": "tr",
    "distant": "dtr",
    "scorer": "scr",
    "evidence": "evi",
    "labels": "lab",
    "gold": "gold",
    "n": "n",
    "test": "test",
    "scenario": "sc",
    "resamples": "R",
    "seed": "seed",
    "confidence": "ci",
    "class_set": "cs",
    "alpha": "a",
    "methods": "m",
    "dependence": "dep",
    "version": "ver",
}
_SHORT_TO_LONG = {short: long for long, short in FIELDS.items()}


def _encode(value: str) -> str:
    return value.replace("%", "%25").replace("|", "%7C")


def _decode(value: str) -> str:
    return value.replace("%7C", "|").replace("%25", "%")


#: Items hashed per chunk by `short_hash`: large enough that the per-chunk cost vanishes, small enough that the
#: chunk's text stays small next to the items themselves.
_HASH_CHUNK = 1 << 16


def short_hash(items: Iterable[str] | bytes, length: int = 8) -> str:
    """A stable hex digest prefix of a byte string or of an ordered sequence of strings (sha256).

    A sequence is hashed as its items' UTF-8 text, each followed by NUL, fed to sha256 in chunks: the digest is
    that of the whole text, without building one string per item or the whole text at once (10^7 gold labels hash
    in a fraction of a second).

    >>> short_hash(["a", "b"]) == short_hash("a|b|".replace("|", chr(0)).encode())
    True
    """
    if isinstance(items, bytes):
        return hashlib.sha256(items).hexdigest()[:length]
    digest = hashlib.sha256()
    rest = iter(items)
    while chunk := list(itertools.islice(rest, _HASH_CHUNK)):
        digest.update(("\0".join(chunk) + "\0").encode("utf-8"))
    return digest.hexdigest()[:length]


def sequence_digest(labels: Sequence[object], coded: tuple[Sequence[str], Any] | None = None) -> str:
    """The fingerprint of a label sequence in its order — the signature's `gold` field — the same for any file
    format that holds the same labels in the same order.

    What is hashed (sha256, first 8 hex digits) is the sorted distinct labels (their count, then each as its UTF-8
    length in 4 bytes and its bytes) followed by each item's index into them, as unsigned little-endian integers of
    1, 2 or 4 bytes (the fewest that hold the number of labels): a one-to-one image of the sequence, about a tenth
    of its text, so 10^6 labels hash in about a millisecond once coded. `coded` passes (sorted labels, codes) when
    the caller has them (`releval.core.label_codes.sorted_codes`); the codes may be of any integer type and may
    come from a label list that continues past these labels.

    >>> sequence_digest(["b", "a", "b"]) == sequence_digest(("b", "a", "b"), (["a", "b"], [1, 0, 1]))
    True
    >>> sequence_digest(["a", "b"]) == sequence_digest(["b", "a"])
    False
    """
    import numpy as np

    vocabulary: Sequence[str]
    if coded is None:
        vocabulary, (codes,) = sorted_codes([labels])
    else:
        vocabulary, codes = coded
    width = 1 if len(vocabulary) <= 256 else 2 if len(vocabulary) <= 65536 else 4
    digest = hashlib.sha256(len(vocabulary).to_bytes(4, "little"))
    for label in vocabulary:
        data = label.encode("utf-8", "surrogatepass")
        digest.update(len(data).to_bytes(4, "little") + data)
    digest.update(np.asarray(codes).astype(f"<u{width}", copy=False).tobytes())
    return digest.hexdigest()[:8]


@dataclass(frozen=True)
class Signature:
    """An ordered mapping of evaluation settings; `str()` is the long form."""

    fields: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def build(cls, **settings: object) -> Signature:
        """From keyword settings (None values dropped), with releval's version appended."""
        values = {k: _stringify(v) for k, v in settings.items() if v is not None}
        values.setdefault("version", __version__)
        unknown = set(values) - set(FIELDS)
        if unknown:
            raise ValueError(f"unknown signature field(s): {', '.join(sorted(unknown))}")
        return cls({k: values[k] for k in FIELDS if k in values})

    def format(self, short: bool = False) -> str:
        """`key:value|...` with long (default) or short keys."""
        return "|".join(f"{FIELDS[k] if short else k}:{_encode(v)}" for k, v in self.fields.items())

    def __str__(self) -> str:
        return self.format()

    def to_json(self) -> dict[str, str]:
        """The two keys every saved result carries: `signature` (long form) and `signature_short`."""
        return {"signature": self.format(), "signature_short": self.format(short=True)}

    def __getitem__(self, key: str) -> str:
        return self.fields[key]

    def get(self, key: str, default: str | None = None) -> str | None:
        return self.fields.get(key, default)

    def differences(self, other: Signature) -> dict[str, tuple[str | None, str | None]]:
        """Fields whose values differ (or exist on one side only), ignoring the version."""
        keys = [k for k in FIELDS if (k in self.fields or k in other.fields) and k != "version"]
        return {k: (self.get(k), other.get(k)) for k in keys if self.get(k) != other.get(k)}


def format_number(value: float) -> str:
    """A float as a signature writes it: %g (six significant digits) when that reads back as the same float, so
    every signature written so far keeps its text; else the shortest exact form, because beta 1.0000001 must not
    sign as 1 (its F values differ).

    >>> format_number(0.5), format_number(1.0), format_number(0.5000001)
    ('0.5', '1', '0.5000001')
    """
    short = f"{value:g}"
    return short if math.isnan(value) or float(short) == value else repr(value)


def _stringify(value: object) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return format_number(value)
    if isinstance(value, (list, tuple)):
        return ",".join(_stringify(v) for v in value)
    return str(value)


def parse(text: str) -> Signature:
    """Read a long- or short-form signature back; unknown keys are an error."""
    values: dict[str, str] = {}
    for part in text.strip().split("|"):
        if not part:
            continue
        key, sep, value = part.partition(":")
        if not sep:
            raise ValueError(f"signature part '{part}' has no ':'")
        long = key if key in FIELDS else _SHORT_TO_LONG.get(key)
        if long is None:
            raise ValueError(f"unknown signature key '{key}'")
        values[long] = _decode(value)
    return Signature({k: values[k] for k in FIELDS if k in values})
