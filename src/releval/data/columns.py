"""Compact columns of a loaded label file: ids as one UTF-8 buffer, labels as small integer codes (issue 13).

A Python str costs about 57 bytes before its characters, so a 10^7-line gold + prediction pair held as lists of
str ids and labels took 3 GB. Here a file's ids are one `bytes` of their UTF-8 text with an offset per id and a
64-bit hash per id (`IdColumn`: about 16 bytes per id beyond its characters), and its labels a `uint8` (or wider)
code per item into a vocabulary (`LabelColumn`). Both are read-only sequences of str, so code that iterates,
indexes or compares a file's ids or labels works as with the lists; the loaders (`ColumnBuilder`) fill them
block by block, never holding a str per item of the whole file.

Matching ids (`locate`, `has_repeats`) groups them by hash and then compares their bytes exactly: a hash collision
costs time, never a wrong match. The hashes are Python's `hash()` of each id, computed while the loader holds the
id as a str anyway; they are salted per process, so they are not pickled but computed again after unpickling.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import chain
from operator import itemgetter
from typing import Any, overload

import numpy as np
from numpy.typing import NDArray

#: Items per step where a column is turned back into str (iteration, `take`) or ids are compared.
CHUNK = 1 << 16


# ----------------------------------------------------------------------------------------------- ids


def _lengths(ids: Sequence[str], encoded: bytes, chars: int) -> NDArray[np.int64]:
    """The UTF-8 length of each id; `encoded` is their joined encoding, `chars` their joined length."""
    if len(encoded) == chars:  # ASCII: one byte per character
        return np.fromiter(map(len, ids), dtype=np.int64, count=len(ids))
    return np.fromiter((len(x.encode("utf-8", "surrogatepass")) for x in ids), dtype=np.int64, count=len(ids))


def _hashes(ids: Sequence[str]) -> NDArray[np.int64]:
    return np.fromiter(map(hash, ids), dtype=np.int64, count=len(ids))


class IdColumn(Sequence[str]):
    """Ids as one UTF-8 buffer (`data`), the offset of each id in it (`offsets`, one more than ids) and each id's
    `hash()` (`hashes`). Equal to another IdColumn or a list holding the same ids in the same order.

    >>> ids = IdColumn.from_strings(["a1", "é2", "a1"])
    >>> len(ids), ids[1], list(ids), ids == ["a1", "é2", "a1"]
    (3, 'é2', ['a1', 'é2', 'a1'], True)
    """

    __slots__ = ("_hashes", "data", "offsets")

    def __init__(self, data: bytes, offsets: NDArray[np.int64], hashes: NDArray[np.int64] | None = None) -> None:
        self.data = data
        self.offsets = offsets
        self._hashes = hashes

    @classmethod
    def from_strings(cls, ids: Iterable[str]) -> IdColumn:
        """The column of a sequence of ids (anything not a str is read as its str())."""
        items = [x if type(x) is str else str(x) for x in ids]
        joined = "".join(items)
        data = joined.encode("utf-8", "surrogatepass")
        offsets = np.zeros(len(items) + 1, dtype=np.int64)
        np.cumsum(_lengths(items, data, len(joined)), out=offsets[1:])
        return cls(data, offsets, _hashes(items))

    @property
    def hashes(self) -> NDArray[np.int64]:
        """Each id's `hash()` in this process (computed again when the column was unpickled)."""
        if self._hashes is None:
            self._hashes = np.concatenate(
                [_hashes(self.take(np.arange(s, min(s + CHUNK, len(self))))) for s in range(0, len(self), CHUNK)]
                or [np.zeros(0, dtype=np.int64)]
            )
        return self._hashes

    def __getstate__(self) -> tuple[bytes, NDArray[np.int64]]:
        return self.data, self.offsets  # hashes are salted per process: never carried to another one

    def __setstate__(self, state: tuple[bytes, NDArray[np.int64]]) -> None:
        self.data, self.offsets = state
        self._hashes = None

    def __len__(self) -> int:
        return len(self.offsets) - 1

    @overload
    def __getitem__(self, i: int) -> str: ...

    @overload
    def __getitem__(self, i: slice) -> list[str]: ...

    def __getitem__(self, i: int | slice) -> str | list[str]:
        if isinstance(i, slice):
            return self.take(np.arange(len(self))[i])
        n = len(self)
        if not -n <= i < n:
            raise IndexError("id index out of range")
        i %= n
        return self.data[int(self.offsets[i]) : int(self.offsets[i + 1])].decode("utf-8", "surrogatepass")

    def take(self, index: NDArray[np.integer] | Sequence[int]) -> list[str]:
        """The ids at the positions `index`, as a list of str."""
        at = np.asarray(index, dtype=np.int64)
        data = self.data
        return [
            data[a:b].decode("utf-8", "surrogatepass")
            for a, b in zip(self.offsets[at].tolist(), self.offsets[at + 1].tolist())
        ]

    def __iter__(self) -> Iterator[str]:
        n = len(self)
        return chain.from_iterable(self.take(np.arange(s, min(s + CHUNK, n))) for s in range(0, n, CHUNK))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, IdColumn):
            return self.data == other.data and np.array_equal(self.offsets, other.offsets)
        if isinstance(other, (list, tuple)):
            return len(self) == len(other) and list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable-looking, like the list it stands for

    def __repr__(self) -> str:
        more = f", … ({len(self)} ids)" if len(self) > 5 else ""
        return f"IdColumn({self.take(np.arange(min(5, len(self))))!r}{more})"


def id_column(ids: Sequence[str]) -> IdColumn:
    """`ids` as an IdColumn (itself when it is one)."""
    return ids if isinstance(ids, IdColumn) else IdColumn.from_strings(ids)


def _same_bytes(a: IdColumn, ai: NDArray[np.int64], b: IdColumn, bi: NDArray[np.int64]) -> NDArray[np.bool_]:
    """For each pair (a[ai[j]], b[bi[j]]): are the two ids the same bytes? Vectorised, CHUNK pairs at a time: the
    bytes of a chunk's `a` ids are gathered into one run and compared with those of its `b` ids, which are one slice
    of `b`'s buffer when `bi` runs through consecutive positions (the usual case: `bi` ascending, none missing)."""
    out = np.zeros(len(ai), dtype=bool)
    abuf = np.frombuffer(a.data, dtype=np.uint8)
    bbuf = np.frombuffer(b.data, dtype=np.uint8)
    for s in range(0, len(ai), CHUNK):
        x, y = ai[s : s + CHUNK], bi[s : s + CHUNK]
        xs, ys = a.offsets[x], b.offsets[y]
        lengths = a.offsets[x + 1] - xs
        equal = lengths == b.offsets[y + 1] - ys
        lengths[~equal] = 0  # pairs of different lengths differ: compare none of their bytes
        ends = np.cumsum(lengths)
        starts = ends - lengths  # where each pair's bytes begin in the gathered run
        run = np.arange(ends[-1], dtype=np.int64)
        left = abuf[np.repeat(xs - starts, lengths) + run]
        if equal.all() and y[-1] - y[0] == len(y) - 1:
            right = bbuf[ys[0] : b.offsets[y[-1] + 1]]
        else:
            right = bbuf[np.repeat(ys - starts, lengths) + run]
        if equal.all() and np.array_equal(left, right):
            out[s : s + CHUNK] = True
            continue
        differs = np.zeros(len(x), dtype=bool)
        differs[np.repeat(np.arange(len(x)), lengths)[left != right]] = True
        out[s : s + CHUNK] = equal & ~differs
    return out


def _sorted_by_hash(hashes: NDArray[np.int64], shift: int) -> tuple[NDArray[np.uint64], NDArray[np.int64]]:
    """(the hashes' top 64 - `shift` bits in ascending order, the position of each): the positions ride in the low
    bits of one sorted uint64 array, which sorts several times faster than an argsort of the hashes."""
    packed = hashes.view(np.uint64) >> np.uint64(shift)
    packed <<= np.uint64(shift)
    packed |= np.arange(len(hashes), dtype=np.uint64)
    packed.sort()
    positions = (packed & np.uint64((1 << shift) - 1)).astype(np.int64)
    packed >>= np.uint64(shift)
    return packed, positions


def _among(values: NDArray[np.uint64], few: NDArray[np.uint64]) -> NDArray[np.bool_]:
    """Which of `values` are in the sorted, short `few` (a binary search each: `np.isin` would sort `values`)."""
    if not len(few):
        return np.zeros(len(values), dtype=bool)
    at = np.searchsorted(few, values)
    np.minimum(at, len(few) - 1, out=at)
    return few[at] == values  # type: ignore[no-any-return]


def locate(keys: IdColumn, queries: IdColumn) -> NDArray[np.int64]:
    """For every query id, the position of the same id among `keys` (the last one when `keys` repeats it, as a
    dict built in order would say), or -1.

    Ids are grouped by the top bits of their hash (both sides sorted, then merged); a query whose group holds one
    key is that key only if their bytes are equal (`_same_bytes`), and groups of several keys — a collision or a
    repeated key — are settled by comparing the ids as str.
    """
    n, m = len(keys), len(queries)
    out = np.full(m, -1, dtype=np.int64)
    if n == 0 or m == 0:
        return out
    shift = max(1, (max(n, m) - 1).bit_length())  # the low bits that hold a position
    sorted_keys, key_at = _sorted_by_hash(keys.hashes, shift)
    twice = sorted_keys[1:] == sorted_keys[:-1]
    shared = np.unique(sorted_keys[1:][twice])
    members = np.sort(key_at[_among(sorted_keys, shared)])
    del twice
    sorted_queries, query_at = _sorted_by_hash(queries.hashes, shift)
    at = np.searchsorted(sorted_keys, sorted_queries)
    np.minimum(at, n - 1, out=at)
    hit = sorted_keys[at] == sorted_queries
    if len(shared):
        in_shared = _among(sorted_queries, shared)
        hit &= ~in_shared
        asked = np.sort(query_at[in_shared])
        table = dict(zip(keys.take(members), members.tolist()))  # in key order: the last repetition wins
        out[asked] = [table.get(q, -1) for q in queries.take(asked)]
    del sorted_keys, sorted_queries
    candidate = np.full(m, -1, dtype=np.int64)
    candidate[query_at[hit]] = key_at[at[hit]]
    del query_at, key_at, at, hit
    single = np.flatnonzero(candidate >= 0)
    found = candidate[single]
    same = _same_bytes(keys, found, queries, single)
    out[single[same]] = found[same]
    return out


def has_repeats(ids: IdColumn) -> bool:
    """True when some id occurs twice (equal hashes are confirmed by comparing the ids). The first few pairs of
    equal hashes are compared first: a file that repeats ids answers at once, without building a str for every
    suspect (a million copies of one id took seconds).

    >>> has_repeats(IdColumn.from_strings(["a", "b", "a"])), has_repeats(IdColumn.from_strings(["a", "b"]))
    (True, False)
    """
    hashes = np.sort(ids.hashes)
    twice = hashes[1:] == hashes[:-1]
    if not twice.any():
        return False
    for value in hashes[1:][twice][:16].tolist():
        first, second = np.flatnonzero(ids.hashes == value)[:2].tolist()
        if ids[first] == ids[second]:
            return True
    suspects = ids.take(np.flatnonzero(np.isin(ids.hashes, hashes[1:][twice])))
    return len(set(suspects)) < len(suspects)


# ----------------------------------------------------------------------------------------------- labels


def _narrow(codes: NDArray[np.integer], size: int) -> NDArray[np.integer]:
    """Codes in the smallest unsigned type that holds `size` distinct values."""
    dtype = np.uint8 if size <= 1 << 8 else np.uint16 if size <= 1 << 16 else np.int64
    return codes.astype(dtype, copy=False)


class LabelColumn(Sequence[str]):
    """Labels as integer `codes` into a `vocabulary` (distinct labels in the order first seen). Equal to another
    column or a list holding the same labels in the same order.

    >>> labels = LabelColumn.from_strings(["b", "a", "b"])
    >>> labels.vocabulary, labels.codes.tolist(), labels[2], labels == ["b", "a", "b"]
    (['b', 'a'], [0, 1, 0], 'b', True)
    """

    __slots__ = ("codes", "vocabulary")

    def __init__(self, codes: NDArray[np.integer], vocabulary: list[str]) -> None:
        self.codes = codes
        self.vocabulary = vocabulary

    @classmethod
    def from_strings(cls, labels: Sequence[str]) -> LabelColumn:
        """The column of a sequence of (hashable) labels."""
        coder = LabelCoder()
        coder.add(labels)
        return coder.column()

    def __len__(self) -> int:
        return len(self.codes)

    @overload
    def __getitem__(self, i: int) -> str: ...

    @overload
    def __getitem__(self, i: slice) -> list[str]: ...

    def __getitem__(self, i: int | slice) -> str | list[str]:
        if isinstance(i, slice):
            return self.take(np.arange(len(self))[i])
        return self.vocabulary[int(self.codes[i])]

    def take(self, index: NDArray[np.integer], fill: str | None = None) -> list[str]:
        """The labels at the positions `index`, as a list; a position -1 gives `fill`."""
        table = np.array([*self.vocabulary, fill], dtype=object)
        codes = self.codes[index].astype(np.int64)
        codes[np.asarray(index) < 0] = len(self.vocabulary)
        return table[codes].tolist()  # type: ignore[no-any-return]

    def tolist(self) -> list[str]:
        """Every label, as a list of str (each distinct label one object)."""
        table = np.array(self.vocabulary, dtype=object)
        return table[self.codes].tolist()  # type: ignore[no-any-return]

    def __iter__(self) -> Iterator[str]:
        table = np.array(self.vocabulary, dtype=object)
        n = len(self)
        return chain.from_iterable(table[self.codes[s : s + CHUNK]].tolist() for s in range(0, n, CHUNK))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LabelColumn):
            return len(self) == len(other) and self.tolist() == other.tolist()
        if isinstance(other, (list, tuple)):
            return len(self) == len(other) and self.tolist() == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        more = f", … ({len(self)} labels)" if len(self) > 5 else ""
        return f"LabelColumn({self[:5]!r}{more})"


def as_list(labels: Sequence[str]) -> list[str]:
    """A new list of the labels (a LabelColumn's without a Python call per item)."""
    return labels.tolist() if isinstance(labels, LabelColumn) else list(labels)


def labels_at(labels: Sequence[str], index: NDArray[np.integer], fill: str | None = None) -> list[str]:
    """The labels at the positions `index` (-1: `fill`)."""
    if isinstance(labels, LabelColumn):
        return labels.take(index, fill)
    return [labels[i] if i >= 0 else fill for i in index.tolist()]  # type: ignore[misc]


def distinct(labels: Sequence[str]) -> set[str]:
    """The set of the labels (a LabelColumn's from its codes)."""
    if isinstance(labels, LabelColumn):
        present = np.bincount(labels.codes, minlength=len(labels.vocabulary))
        return {labels.vocabulary[k] for k in np.flatnonzero(present).tolist()}
    return set(labels)


class LabelCoder:
    """Codes for labels met block by block: one vocabulary in the order first seen.

    While the vocabulary has at most 256 labels, a block is coded in C: `itemgetter` maps its labels to
    one-character strings whose Latin-1 encoding is the codes (a new label shows as a KeyError, so a block of known
    labels is never scanned for new ones); a larger vocabulary takes one dictionary lookup per item.
    """

    def __init__(self) -> None:
        self.vocabulary: dict[str, int] = {}
        self._chars: dict[str, str] = {}
        self._codes = Growing(np.uint8)

    def codes(self, labels: Sequence[str], accept: Callable[[str], bool] | None = None) -> NDArray[np.integer] | None:
        """The codes of `labels`, new labels added to the vocabulary; None, adding nothing, when `accept` refuses
        one of the new labels."""
        if not labels:
            return np.zeros(0, dtype=np.uint8)
        if len(self.vocabulary) <= 256:
            try:
                return self._small(labels)
            except KeyError:
                pass
        new = [x for x in dict.fromkeys(labels) if x not in self.vocabulary]
        if accept is not None and not all(map(accept, new)):
            return None
        for label in new:
            if len(self.vocabulary) < 256:
                self._chars[label] = chr(len(self.vocabulary))
            self.vocabulary[label] = len(self.vocabulary)
        if len(self.vocabulary) <= 256:
            return self._small(labels)
        return np.fromiter(map(self.vocabulary.__getitem__, labels), dtype=np.int64, count=len(labels))

    def _small(self, labels: Sequence[str]) -> NDArray[np.uint8]:
        chars: Any = itemgetter(*labels)(self._chars)  # one label: the character itself, which joins the same
        return np.frombuffer("".join(chars).encode("latin-1"), dtype=np.uint8)

    def add(self, labels: Sequence[str], accept: Callable[[str], bool] | None = None) -> bool:
        """Code a block of labels and keep the codes for `column`; False, keeping nothing, when `accept` refuses a
        new label."""
        codes = self.codes(labels, accept)
        if codes is not None:
            self._codes.extend(codes)
        return codes is not None

    def column(self, codes: NDArray[np.integer] | None = None) -> LabelColumn:
        """The LabelColumn of `codes`, or of every block added."""
        if codes is None:
            codes = self._codes.finish()
        return LabelColumn(_narrow(codes, len(self.vocabulary)), list(self.vocabulary))


class Growing:
    """A 1-D array filled block by block: grown in place by a half (`ndarray.resize`, a realloc that moves no bytes
    once the array has its own memory mapping), so no block stays behind as an object of its own — kept blocks
    scattered through the heap would keep it from shrinking after the reading's temporary objects are freed."""

    def __init__(self, dtype: type[np.generic], start: int = 0) -> None:
        self.array = np.zeros(start, dtype=dtype)
        self.n = start

    def extend(self, values: NDArray[Any]) -> None:
        need = self.n + len(values)
        if need > len(self.array):
            self.array.resize(max(need, len(self.array) * 3 // 2 + 1024), refcheck=False)
        if not np.can_cast(values.dtype, self.array.dtype):
            self.array = self.array.astype(np.result_type(values.dtype, self.array.dtype))
        self.array[self.n : need] = values
        self.n = need

    def finish(self) -> NDArray[Any]:
        """The array of every value added (the object holds nothing after)."""
        out = self.array
        out.resize(self.n, refcheck=False)
        self.array, self.n = np.zeros(0, dtype=out.dtype), 0
        return out


class IdBuilder:
    """An IdColumn assembled block by block (each block's ids as str, then dropped)."""

    def __init__(self) -> None:
        self._data = io.BytesIO()
        self._ends = Growing(np.int64, 1)  # offsets: 0, then where each id ends
        self._hashes = Growing(np.int64)

    def add(self, ids: list[str]) -> None:
        if not ids:
            return
        joined = "".join(ids)
        data = joined.encode("utf-8", "surrogatepass")
        ends = _lengths(ids, data, len(joined))
        ends[0] += self._data.tell()
        self._ends.extend(np.cumsum(ends, out=ends))
        self._data.write(data)
        self._hashes.extend(_hashes(ids))

    def column(self) -> IdColumn:
        column = IdColumn(self._data.getvalue(), self._ends.finish(), self._hashes.finish())
        self._data = io.BytesIO()
        return column
