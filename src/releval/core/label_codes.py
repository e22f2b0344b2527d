"""Label sequences as small integer codes over a sorted vocabulary, without a Python call per item.

Scoring needs each label as an integer (one `np.bincount` then gives every count). The obvious
`np.fromiter(map(code.__getitem__, labels))` pays a Python-level call per item (about 38 ns); here each chunk of
labels is looked up by one `operator.itemgetter(*chunk)` call (a C loop of dictionary lookups) in a table that maps
a label to its code, and the chunk's codes become the bytes of the array in one C call — `bytes(codes)` for at most
256 labels, `array("H", codes)` for at most 65,536: about 12 ns per item. Vocabularies larger than that (never
seen in relation extraction) take the `fromiter` path.

Items that are not `str` are converted with `str()` (a list of ints is scored as the labels "0", "1", …), decided
per distinct item, so a list of str is never copied.

Codes are `uint8` or `uint16` (one or two bytes per item) or `int64` for the rare huge vocabulary: callers that
multiply codes must widen them first.

Example
-------
>>> labels, (a, b) = sorted_codes([["b", "a", "b"], ["a", "c", "a"]])
>>> labels, a.tolist(), b.tolist()
(['a', 'b', 'c'], [1, 0, 1], [0, 2, 0])
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Sequence
from itertools import islice
from operator import itemgetter
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    Codes = NDArray[np.integer]

#: Items looked up per `itemgetter` call: the call's argument tuple and result stay small (0.5 MB) next to the
#: labels themselves, and the per-chunk overhead vanishes.
CHUNK = 1 << 16

#: The code widths: (vocabulary size it holds, NumPy dtype).
_WIDTHS = ((256, "u1"), (65536, "=u2"))


class _NotStr(Exception):
    """A distinct item is not a str (or is unhashable): the sequence must be converted with str() first."""


class _TooMany(Exception):
    """The vocabulary outgrew what the current code width holds."""


def as_str_labels(items: Iterable[object]) -> list[str]:
    """`items` as a new list with every non-str item replaced by `str(item)`."""
    return [x if type(x) is str else str(x) for x in items]


def _chunks(seq: Sequence[object]) -> Iterator[Sequence[object]]:
    """`seq` in chunks of CHUNK items: slices of a list or tuple, else lists read from its iterator."""
    if isinstance(seq, (list, tuple)):
        for start in range(0, len(seq), CHUNK):
            yield seq[start : start + CHUNK]
        return
    rest = iter(seq)
    while chunk := list(islice(rest, CHUNK)):
        yield chunk


def _add_new(chunk: Sequence[object], table: dict[str, int], limit: int) -> None:
    """Give the chunk's unseen items the next codes, in the order first seen."""
    try:
        distinct = dict.fromkeys(chunk)
    except TypeError as error:  # an unhashable item (a list)
        raise _NotStr from error
    for item in distinct:
        if item not in table:
            if type(item) is not str:
                raise _NotStr
            if len(table) == limit:
                raise _TooMany
            table[item] = len(table)


def _encode_one(seq: Sequence[object], table: dict[str, int], width: int) -> Codes:
    """`seq` as codes of `table`, which is extended with the items it has not seen."""
    import numpy as np

    limit, dtype = _WIDTHS[width]
    out = np.empty(len(seq), dtype=dtype)
    start = 0
    for chunk in _chunks(seq):
        get = itemgetter(*chunk)
        try:
            codes = get(table)
        except KeyError:
            _add_new(chunk, table, limit)
            codes = get(table)
        except TypeError as error:  # an unhashable item
            raise _NotStr from error
        if len(chunk) == 1:
            codes = (codes,)  # one item: itemgetter returned the code itself
        data = bytes(codes) if width == 0 else array("H", codes).tobytes()
        out[start : start + len(chunk)] = np.frombuffer(data, dtype=dtype)
        start += len(chunk)
    return out


def _first_seen(sequences: list[Sequence[object]]) -> tuple[dict[str, int], list[Codes]]:
    """Codes of every sequence over one table numbered in the order first seen. Sequences holding a non-str
    item are replaced in `sequences` by their str() conversion."""
    import numpy as np

    for width in range(len(_WIDTHS)):
        table: dict[str, int] = {}
        arrays: list[Codes] = []
        try:
            for i in range(len(sequences)):
                try:
                    arrays.append(_encode_one(sequences[i], table, width))
                except _NotStr:  # the items added so far keep their codes: the converted items match them
                    sequences[i] = as_str_labels(sequences[i])
                    arrays.append(_encode_one(sequences[i], table, width))
        except _TooMany:
            continue
        return table, arrays
    code: dict[str, int] = {}
    strings = [as_str_labels(seq) for seq in sequences]
    for strs in strings:
        for item in dict.fromkeys(strs):
            code.setdefault(item, len(code))
    wide: list[Codes] = [np.fromiter(map(code.__getitem__, s), dtype=np.int64, count=len(s)) for s in strings]
    return code, wide


def sorted_codes(sequences: Sequence[Sequence[object]], missing: str | None = None) -> tuple[list[str], list[Codes]]:
    """One label list — the first sequence's labels sorted, then the labels only the others hold, sorted, with
    `missing` (a placeholder for missing predictions) last — and every sequence's codes into it.

    >>> labels, (g, p) = sorted_codes([["B", "A"], ["<m>", "C"]], missing="<m>")
    >>> labels, g.tolist(), p.tolist()
    (['A', 'B', 'C', '<m>'], [1, 0], [3, 2])
    """
    import numpy as np

    seqs = list(sequences)
    code, arrays = _first_seen(seqs)
    n_first = int(arrays[0].max()) + 1 if len(arrays[0]) else 0  # first-seen numbering: the first sequence's
    found = list(code)  # labels are exactly the codes below the largest one it uses
    first_labels = sorted(found[:n_first])
    rest = sorted(found[n_first:], key=lambda x: (x == missing, x))
    labels = first_labels + rest
    final = {label: i for i, label in enumerate(labels)}
    dtype = arrays[0].dtype if arrays else np.dtype(np.uint8)
    remap = np.array([final[label] for label in found], dtype=dtype)
    if np.array_equal(remap, np.arange(len(found))):
        return labels, arrays
    for codes in arrays:  # renumbered in place, a chunk at a time: no second array as large as the labels
        for start in range(0, len(codes), CHUNK):
            codes[start : start + CHUNK] = remap[codes[start : start + CHUNK]]
    return labels, arrays
