"""FewRel few-shot episodes: the reference test-input format, answers, predictions, and a deterministic sampler.

FewRel (Han et al. 2018; FewRel 2.0, Gao et al. 2019, thunlp/FewRel) evaluates N-way K-shot relation
classification on *episodes*. Its official test input (`test_wiki_input-5-1.json`) is a JSON list with one entry
per query::

    [{"meta_train": [[instance × K] × N], "meta_test": instance, "relation": [name × N]}, ...]

an instance being `{"tokens": [...], "h": [name, id, [[positions]]], "t": [...]}` and `relation` (present in the
FewRel 2.0 files) naming the N support relations in order. A submission is a JSON list of integers, one per entry:
the index 0..N-1 of the predicted support relation, or N for none-of-the-above (NOTA). The hidden answers are a
list of integers of the same form.

releval reads gold as one self-contained file, in either of two shapes:

* the entries above with an integer `"answer"` each (what `write_episodes` writes as gold);
* a JSON object `{"episodes": E, "answers": A}`, each of E and A a list (the official input and the official
  answer list) or the path of a file holding it (relative to the object's own file): the official files kept as
  they are.

Queries of one episode: an entry may carry `"episode": <int>`; entries with the same number are the queries of one
episode (they must share N, K and the relation names). Without it every entry is an episode of its own, as in the
official files. Accuracy is the mean over episodes of each episode's share of correct queries (FewRel's
`fewshot_re_kit` framework averages per-batch accuracies the same way).

`sample_episodes` builds episodes from a FewRel validation file (`{relation: [instance, ...]}`) the way
`fewshot_re_kit.data_loader.FewRelDataset.__getitem__` samples them, with a seeded generator so the same call
gives the same episodes everywhere:

1. the N relations: `rng.sample(relations, N)`, relations in the file's order;
2. per relation, in that order: `rng.sample(range(len(instances)), K + Q)`; the first K are its support, the next
   Q its queries (answer = the relation's index);
3. `int(na_rate * Q)` NOTA queries (answer N): each from a relation drawn uniformly among those not in the
   episode (`rng.randrange`), its instance drawn uniformly (`rng.randrange`), independently, so two NOTA queries
   may repeat an instance (as in `fewshot_re_kit`);

`rng` is Python's `random.Random(seed)` (Mersenne Twister, stable across Python versions and platforms). In
`fewshot_re_kit` `na_rate` is the number of NOTA queries per positive query of one relation: with N = 5 and Q = 1,
na_rate 1, 2 and 5 give 1/6, 2/7 and 5/10 of the queries (its README: "15 %, 30 % and 50 %").

>>> data = {r: [{"tokens": [r, str(i)], "h": ["a", "Q1", [[0]]], "t": ["b", "Q2", [[1]]]} for i in range(4)]
...         for r in ("P1", "P2", "P3")}
>>> entries = sample_episodes(data, n_way=2, k_shot=1, q_query=1, episodes=2, seed=7)
>>> len(entries), sorted(entries[0])
(4, ['answer', 'episode', 'meta_test', 'meta_train', 'relation'])
>>> [e["answer"] for e in entries] == [0, 1, 0, 1]
True
"""

from __future__ import annotations

import os
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec
import numpy as np
import orjson
from numpy.typing import NDArray

from releval.core.errors import InputError, OptionError
from releval.core.signature import short_hash
from releval.data.decoding import (
    DECODE_FAILURES,
    MAX_INDEX,
    excerpt,
    keys_may_repeat,
    parse_json_exact,
    read_utf8,
    refuse_repeated_record_keys,
    shown_int,
)

PathLike = str | os.PathLike[str]
#: The relation name that stands for a none-of-the-above query in per-relation tables and statistics.
NOTA = "none-of-the-above"


@dataclass(frozen=True)
class Episodes:
    """Gold episodes, one entry per query: N and K of its episode, the episode's number, its relation names (or
    None), and the gold answer (0..N-1, or N for none-of-the-above).

    `episode` numbers the episodes 0..E-1 in order of first appearance; `digest` identifies the episodes and
    answers (the signature's gold field): the same whichever of the two gold shapes holds them, and whatever white
    space the files have."""

    path: str
    n_way: NDArray[np.int64]
    k_shot: NDArray[np.int64]
    episode: NDArray[np.int64]
    relations: list[tuple[str, ...] | None]
    answers: NDArray[np.int64]
    digest: str
    #: the file the answers were read from (gold's own file when its entries carry them)
    answers_path: str | None = None

    @property
    def n_queries(self) -> int:
        return int(self.answers.shape[0])

    @property
    def n_episodes(self) -> int:
        return int(self.episode.max()) + 1 if self.answers.shape[0] else 0

    @property
    def nota(self) -> NDArray[np.bool_]:
        """Whether each query's answer is none-of-the-above."""
        return self.answers == self.n_way

    def settings(self) -> list[tuple[int, int, bool]]:
        """(N, K, NOTA setting) of each setting in order of first appearance; a setting is a NOTA setting when
        one of its gold answers is none-of-the-above (then a prediction N is allowed in it)."""
        out: dict[tuple[int, int], bool] = {}
        for n, k, nota in zip(self.n_way.tolist(), self.k_shot.tolist(), self.nota.tolist()):
            out[(n, k)] = out.get((n, k), False) or nota
        return [(n, k, nota) for (n, k), nota in out.items()]

    def gold_relation(self, i: int) -> str | None:
        """The relation name of query i's answer (NOTA for none-of-the-above), or None without names."""
        names = self.relations[i]
        answer = int(self.answers[i])
        if answer == int(self.n_way[i]):
            return NOTA
        return None if names is None else names[answer]


def _shown(value: Any) -> str:
    """A JSON value for a message: a string quoted, anything else as JSON writes it; cut short."""
    if isinstance(value, str):
        return excerpt(value)

    try:
        text = orjson.dumps(value).decode("utf-8")
    except TypeError:
        text = repr(value)
    return text if len(text) <= 40 else text[:40] + "…"


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _instance_problem(value: Any) -> str | None:
    """Why `value` is not a FewRel instance ({"tokens": [...], "h": [...], "t": [...]}), or None."""
    if not isinstance(value, dict):
        return f"expected an instance object with tokens, h and t, got {type(value).__name__}"
    for key in ("tokens", "h", "t"):
        if not isinstance(value.get(key), list):
            return f"an instance needs a list {key!r}"
    return None


def _read_json(path: PathLike) -> Any:
    return _parse(read_utf8(path), str(path))


_parse = parse_json_exact


_ENTRY_KEYS = ("meta_train", "meta_test", "relation", "episode", "answer")
_INSTANCE_KEYS = ("tokens", "h", "t")


def _key_counts(entries: Any) -> dict[str, int]:
    """How many objects of parsed entries hold each key the reader reads (entry keys, instance keys)."""
    counts = dict.fromkeys((*_ENTRY_KEYS, *_INSTANCE_KEYS), 0)
    if not isinstance(entries, list):
        return counts
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        for key in _ENTRY_KEYS:
            counts[key] += key in entry
        support = entry.get("meta_train")
        instances = [x for s in support if isinstance(s, list) for x in s] if isinstance(support, list) else []
        for instance in [*instances, entry.get("meta_test")]:
            if isinstance(instance, dict):
                for key in _INSTANCE_KEYS:
                    counts[key] += key in instance
    return counts


def _int_problem(value: int, what: str) -> str | None:
    """Why the integer `value` cannot be an answer, a prediction or an episode number (beyond 64 bits), or None:
    checked before any conversion, so 10^20 is refused with its digits instead of overflowing numpy."""
    if abs(value) > MAX_INDEX:
        return f"{what} {shown_int(value)} is out of range (at most {MAX_INDEX:,})"
    return None


def _entries(raw: Any, name: str, where: str = "episodes") -> list[dict[str, Any]]:
    if not isinstance(raw, list):
        raise InputError(
            f"expected a JSON list of episodes (FewRel's test input), got {type(raw).__name__}", file=name, field=where
        )
    if raw and all(_is_int(x) for x in raw):
        raise InputError(
            'this is a list of answers: give the episodes with them, as {"episodes": ..., "answers": ...} '
            "or as episodes with an 'answer' each",
            file=name,
        )
    return raw


def _answers(raw: Any, name: str, n: int, what: str = "answer") -> list[int]:
    """A JSON list of n integers (answers or predictions), each checked to be an integer (located by record)."""
    if not isinstance(raw, list):
        raise InputError(f"expected a JSON list of integers, got {type(raw).__name__}", file=name)
    for i, value in enumerate(raw, 1):
        if not _is_int(value):
            raise InputError(f"expected an integer index, got {_shown(value)}", file=name, record=i, field=what)
        if (problem := _int_problem(value, what)) is not None:
            raise InputError(problem, file=name, record=i, field=what)
    if len(raw) != n:
        raise InputError(f"{len(raw)} {what}s for {n} queries (one per episode entry, in order)", file=name)
    return raw


def load_episodes(source: PathLike | Sequence[Any] | Mapping[str, Any], name: str | None = None) -> Episodes:
    """Gold episodes from a file (or its parsed JSON): entries with an 'answer' each, or an object
    {"episodes": ..., "answers": ...} whose values are lists or paths relative to the file (see the module).

    Every entry is checked: meta_train a non-empty list of N non-empty lists of K instances each (the same K),
    meta_test one instance, relation (if any) N distinct names, episode (if any) an integer on every entry, the
    answer an integer in 0..N (N: none-of-the-above). A problem is an InputError naming the file, the entry
    (record, 1-based) and the field.
    """
    if isinstance(source, (str, os.PathLike)):
        path = str(source)
        data = read_utf8(source)
        fast = _fast(data, None, path) if data.lstrip()[:1] == b"[" else None
        if fast is not None:
            return fast
        raw: Any = _parse(data, path)
        refuse_repeated_record_keys(data, path, _key_counts(raw))
    else:
        path = name or "<episodes>"
        raw = source
    answers_name = path
    if isinstance(raw, dict):
        if "episodes" not in raw or "answers" not in raw:
            raise InputError(
                "expected a list of episodes, or an object with 'episodes' and 'answers'",
                file=path,
                field="episodes" if "episodes" not in raw else "answers",
            )
        base = Path(path).parent if isinstance(source, (str, os.PathLike)) else Path(".")
        parts: dict[str, Any] = {}
        for key in ("episodes", "answers"):
            value = raw[key]
            if isinstance(value, str):
                target = base / value
                if not target.is_file():
                    raise InputError(f"no file {str(target)!r}", file=path, field=key)
                parts[key] = (read_utf8(target) if key == "episodes" else _read_json(target), str(target))
            else:
                parts[key] = (value, path)
        episodes_data, episodes_name = parts["episodes"]
        answers_value, answers_file = parts["answers"]
        if isinstance(episodes_data, bytes) and isinstance(answers_value, list):
            if episodes_data.lstrip()[:1] == b"[" and all(_is_int(x) for x in answers_value):
                fast = _fast(episodes_data, answers_value, episodes_name, answers_file, path)
                if fast is not None:
                    return fast
        if isinstance(episodes_data, bytes):
            parts["episodes"] = (_parse(episodes_data, episodes_name), episodes_name)
            refuse_repeated_record_keys(episodes_data, episodes_name, _key_counts(parts["episodes"][0]))
        entries, entries_name = _entries(parts["episodes"][0], parts["episodes"][1]), parts["episodes"][1]
        answers_raw, answers_name = parts["answers"]
        answers = _answers(answers_raw, answers_name, len(entries))
    else:
        entries, entries_name = _entries(raw, path), path
        answers = []
        for i, entry in enumerate(entries, 1):
            if not isinstance(entry, dict):
                raise InputError(f"expected an episode object, got {type(entry).__name__}", file=path, record=i)
            if "answer" not in entry:
                raise InputError(
                    'no \'answer\': gold episodes carry their answer (or give {"episodes": ..., "answers": ...})',
                    file=path,
                    record=i,
                    field="answer",
                )
            value = entry["answer"]
            if not _is_int(value):
                raise InputError(f"expected an integer, got {_shown(value)}", file=path, record=i, field="answer")
            if (problem := _int_problem(value, "answer")) is not None:
                raise InputError(problem, file=path, record=i, field="answer")
            answers.append(value)
    return _build(entries, entries_name, answers, answers_name, path)


class _Instance(msgspec.Struct):
    """A FewRel instance as the fast reader checks it: tokens, h and t kept as raw JSON (checked to be lists)."""

    tokens: msgspec.Raw
    h: msgspec.Raw
    t: msgspec.Raw


class _Entry(msgspec.Struct):
    """One entry as the fast reader takes it: its support and query as raw JSON (checked, then digested)."""

    meta_train: msgspec.Raw
    meta_test: msgspec.Raw
    relation: list[str] | None = None
    episode: int | None = None
    answer: int | None = None


def _lists(instance: _Instance) -> bool:
    return all(bytes(x)[:1] == b"[" for x in (instance.tokens, instance.h, instance.t))


def _fast(
    data: bytes,
    answers: list[int] | None,
    name: str,
    answers_name: str | None = None,
    path: str | None = None,
) -> Episodes | None:
    """The episodes of a well-formed file without building Python objects for its tokens (msgspec, raw JSON for
    the instances): a 10-way 5-shot test file of 10,000 entries is read in well under a second, where a full parse
    takes ten. None whenever anything is amiss: the caller then reads the file again in full and locates the problem
    (`_build`)."""
    try:
        entries = msgspec.json.decode(data, type=list[_Entry])
        n = len(entries)
        if n == 0 or (answers is not None and len(answers) != n):
            return None
        n_way, k_shot = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
        relations: list[tuple[str, ...] | None] = []
        numbers: list[int | None] = []
        gold: list[int] = []
        parts: list[str] = []
        instances = 0
        for i, entry in enumerate(entries):
            support = msgspec.json.decode(entry.meta_train, type=list[list[_Instance]])
            shots = {len(s) for s in support}
            if not support or len(shots) != 1 or 0 in shots or not all(_lists(x) for s in support for x in s):
                return None
            if not _lists(msgspec.json.decode(entry.meta_test, type=_Instance)):
                return None
            n_way[i], k_shot[i] = len(support), shots.pop()
            instances += int(n_way[i] * k_shot[i]) + 1
            names = entry.relation
            if names is not None and (
                len(names) != len(support) or len(set(names)) != len(names) or not all(x.strip() for x in names)
            ):
                return None
            relations.append(None if names is None else tuple(names))
            if entry.episode is not None and not 0 <= entry.episode <= MAX_INDEX:
                return None
            numbers.append(entry.episode)
            if answers is None:
                if entry.answer is None or abs(entry.answer) > MAX_INDEX:
                    return None
                gold.append(entry.answer)
            train = msgspec.json.format(entry.meta_train, indent=-1).decode("utf-8")
            test = msgspec.json.format(entry.meta_test, indent=-1).decode("utf-8")
            parts.append(_entry_digest_text(train, test, names, entry.episode))
    except DECODE_FAILURES:  # also deep nesting and invalid UTF-8: the careful reader locates them
        return None
    given = [x is not None for x in numbers]
    if any(given) and not all(given):
        return None
    present = {
        "meta_train": n,
        "meta_test": n,
        "relation": sum(r is not None for r in relations),
        "episode": sum(given),
        "answer": sum(e.answer is not None for e in entries),
        **dict.fromkeys(_INSTANCE_KEYS, instances),
    }
    if keys_may_repeat(data, present, present):
        return None  # perhaps a key written twice (or a null value): the careful reader decides
    return _finish(
        n_way,
        k_shot,
        relations,
        numbers,
        answers if answers is not None else gold,
        parts,
        name,
        answers_name or name,
        path or name,
    )


def _entry_digest_text(train: str, test: str, names: Any, episode: Any) -> str:
    """What an entry contributes to the gold digest: its support and query as compact JSON, its relation names
    and its episode number (its answer goes in with the answers)."""
    return "\x1f".join(
        (train, test, ",".join(names) if names is not None else "", "" if episode is None else str(episode))
    )


def _build(entries: list[Any], name: str, answers: list[int], answers_name: str, path: str) -> Episodes:
    n = len(entries)
    if n == 0:
        raise InputError("no episodes", file=name)
    n_way = np.empty(n, dtype=np.int64)
    k_shot = np.empty(n, dtype=np.int64)
    relations: list[tuple[str, ...] | None] = []
    numbers: list[int | None] = []
    for i, entry in enumerate(entries, 1):
        if not isinstance(entry, dict):
            raise InputError(f"expected an episode object, got {type(entry).__name__}", file=name, record=i)
        support = entry.get("meta_train")
        if not isinstance(support, list) or not support or not all(isinstance(s, list) and s for s in support):
            raise InputError(
                "expected a non-empty list of N non-empty lists of K support instances",
                file=name,
                record=i,
                field="meta_train",
            )
        shots = {len(s) for s in support}
        if len(shots) > 1:
            raise InputError(
                f"the relations have different numbers of support instances: {sorted(shots)} (K must be the same)",
                file=name,
                record=i,
                field="meta_train",
            )
        for s in support:
            for instance in s:
                if (problem := _instance_problem(instance)) is not None:
                    raise InputError(problem, file=name, record=i, field="meta_train")
        if "meta_test" not in entry:
            raise InputError("no query", file=name, record=i, field="meta_test")
        if (problem := _instance_problem(entry["meta_test"])) is not None:
            if isinstance(entry["meta_test"], list):
                problem = (
                    "expected one query instance; several queries of one episode are entries sharing an 'episode' "
                    "number"
                )
            raise InputError(problem, file=name, record=i, field="meta_test")
        n_way[i - 1], k_shot[i - 1] = len(support), shots.pop()
        names = entry.get("relation")
        if names is not None:
            if (
                not isinstance(names, list)
                or len(names) != len(support)
                or not all(isinstance(x, str) and x.strip() for x in names)
                or len(set(names)) != len(names)
            ):
                raise InputError(
                    f"expected {len(support)} distinct relation names (one per support relation)",
                    file=name,
                    record=i,
                    field="relation",
                )
            relations.append(tuple(names))
        else:
            relations.append(None)
        number = entry.get("episode")
        if number is not None and (not _is_int(number) or number < 0):
            raise InputError(f"expected an integer >= 0, got {_shown(number)}", file=name, record=i, field="episode")
        if number is not None and (problem := _int_problem(number, "episode")) is not None:
            raise InputError(problem, file=name, record=i, field="episode")
        numbers.append(number)
    given = [x is not None for x in numbers]
    if any(given) and not all(given):
        first = given.index(not given[0]) + 1
        raise InputError(
            "some entries have an episode number and others not: give it on every entry or on none",
            file=name,
            record=first,
            field="episode",
        )
    parts = [
        _entry_digest_text(
            orjson.dumps(e["meta_train"]).decode("utf-8"),
            orjson.dumps(e["meta_test"]).decode("utf-8"),
            e.get("relation"),
            e.get("episode"),
        )
        for e in entries
    ]
    return _finish(n_way, k_shot, relations, numbers, answers, parts, name, answers_name, path)


def _finish(
    n_way: NDArray[np.int64],
    k_shot: NDArray[np.int64],
    relations: list[tuple[str, ...] | None],
    numbers: list[int | None],
    answers: list[int],
    parts: list[str],
    name: str,
    answers_name: str,
    path: str,
) -> Episodes:
    """The checks both readers share (episodes consistent, answers in range) and the Episodes."""
    n = n_way.shape[0]
    episode = _episode_ids(numbers if numbers and numbers[0] is not None else None, n)
    _check_episodes(episode, n_way, k_shot, relations, name)
    for i, value in enumerate(answers, 1):
        if (problem := _int_problem(value, "answer")) is not None:  # before numpy, which would overflow
            raise InputError(problem, file=answers_name, record=i, field="answer")
    gold = np.asarray(answers, dtype=np.int64)
    bad = np.flatnonzero((gold < 0) | (gold > n_way))
    if bad.size:
        i = int(bad[0])
        raise InputError(
            f"answer {int(gold[i])} is out of range 0..{int(n_way[i])} for a {int(n_way[i])}-way episode "
            f"({int(n_way[i])} = none-of-the-above)",
            file=answers_name,
            record=i + 1,
            field="answer",
        )
    digest = short_hash([*parts, ",".join(map(str, gold.tolist()))])
    return Episodes(path, n_way, k_shot, episode, relations, gold, digest, answers_name)


def _episode_ids(numbers: list[int | None] | None, n: int) -> NDArray[np.int64]:
    if numbers is None:
        return np.arange(n, dtype=np.int64)
    _, first, inverse = np.unique(np.asarray(numbers, dtype=np.int64), return_index=True, return_inverse=True)
    order = np.argsort(np.argsort(first, kind="stable"), kind="stable")  # renumbered in order of appearance
    return order[inverse.ravel()].astype(np.int64)


def _check_episodes(
    episode: NDArray[np.int64],
    n_way: NDArray[np.int64],
    k_shot: NDArray[np.int64],
    relations: list[tuple[str, ...] | None],
    name: str,
) -> None:
    """The queries of one episode share N, K and the relation names."""
    seen: dict[int, tuple[int, int, tuple[str, ...] | None, int]] = {}
    for i, (e, n, k, r) in enumerate(zip(episode.tolist(), n_way.tolist(), k_shot.tolist(), relations), 1):
        if e not in seen:
            seen[e] = (n, k, r, i)
            continue
        n0, k0, r0, first = seen[e]
        if (n, k, r) != (n0, k0, r0):
            raise InputError(
                f"this entry's episode (first seen at record {first}) has {n0}-way {k0}-shot support"
                + (" with other relation names" if (n, k) == (n0, k0) else "")
                + f"; this entry has {n}-way {k}-shot",
                file=name,
                record=i,
                field="episode",
            )


def load_predictions(source: PathLike | Sequence[Any], gold: Episodes, name: str | None = None) -> NDArray[np.int64]:
    """A system's predictions: a JSON list of integers, one per gold entry in order (the official submission
    format). A wrong count, a value that is not an integer, or an index outside 0..N-1 (0..N in a NOTA setting:
    one where some gold answer is none-of-the-above) is an InputError naming the file and the entry."""
    if isinstance(source, (str, os.PathLike)):
        path = str(source)
        raw: Any = _read_json(source)
    else:
        path = name or "<predictions>"
        raw = list(source)
    values = np.asarray(_answers(raw, path, gold.n_queries, "prediction"), dtype=np.int64)
    allowed = {(n, k): nota for n, k, nota in gold.settings()}
    top = np.array([n if allowed[(n, k)] else n - 1 for n, k in zip(gold.n_way.tolist(), gold.k_shot.tolist())])
    bad = np.flatnonzero((values < 0) | (values > top))
    if bad.size:
        i = int(bad[0])
        n, value = int(gold.n_way[i]), int(values[i])
        if value == n:
            why = (
                f"{n} means none-of-the-above, but no gold answer of the {n}-way {int(gold.k_shot[i])}-shot episodes "
                f"is: not a NOTA setting (allowed 0..{n - 1})"
            )
        else:
            why = f"index {value} is out of range 0..{int(top[i])} for a {n}-way episode"
        raise InputError(why, file=path, record=i + 1, field="prediction")
    return values


# ------------------------------------------------------------------------------------------------ sampling


def load_relations(source: PathLike | Mapping[str, Any], name: str | None = None) -> dict[str, list[Any]]:
    """A FewRel data file `{relation: [instance, ...]}` (train_wiki.json, val_wiki.json, val_pubmed.json …),
    checked: an object of non-empty lists of instances."""
    if isinstance(source, (str, os.PathLike)):
        path = str(source)
        raw: Any = _read_json(source)
    else:
        path = name or "<relations>"
        raw = source
    if not isinstance(raw, dict) or not raw:
        raise InputError(
            "expected a FewRel data file: an object {relation: [instances]}"
            + (f", got {type(raw).__name__}" if not isinstance(raw, dict) else " (it is empty)"),
            file=path,
        )
    for relation, instances in raw.items():
        if not relation.strip():
            raise InputError("an empty relation name", file=path, field=relation)
        if not isinstance(instances, list) or not instances:
            raise InputError("expected a non-empty list of instances", file=path, field=relation)
        for i, instance in enumerate(instances, 1):
            if (problem := _instance_problem(instance)) is not None:
                raise InputError(problem, file=path, record=i, field=relation)
    return dict(raw)


def sample_episodes(
    data: PathLike | Mapping[str, Sequence[Any]],
    *,
    n_way: int,
    k_shot: int,
    q_query: int = 1,
    na_rate: float = 0.0,
    episodes: int = 1000,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """`episodes` N-way K-shot episodes sampled from a FewRel data file as `fewshot_re_kit` samples them (the
    module's steps 1–3), with `random.Random(seed)`; one entry per query, each with meta_train, meta_test,
    relation, episode and answer (write them with `write_episodes`).

    Raises OptionError for settings the data cannot give: N above the number of relations (NOTA needs one more
    relation), K + Q above a relation's number of instances.
    """
    relations: dict[str, list[Any]] = (
        load_relations(data)
        if isinstance(data, (str, os.PathLike))
        else {name: list(items) for name, items in data.items()}
    )
    for value, what, low in (
        (n_way, "n_way", 1),
        (k_shot, "k_shot", 1),
        (q_query, "q_query", 1),
        (episodes, "episodes", 1),
    ):
        if not _is_int(value) or value < low:
            raise OptionError(f"{what}: expected an integer >= {low}, got {value!r}", option=what)
    if not _is_int(seed) or seed < 0:
        raise OptionError(f"seed: expected an integer >= 0, got {seed!r}", option="seed")
    rate = float(na_rate)
    if not (rate >= 0.0 and np.isfinite(rate)):
        raise OptionError(f"na_rate: expected a number >= 0, got {na_rate!r}", option="na_rate")
    q_na = int(rate * q_query)
    names = list(relations)
    if n_way + (1 if q_na else 0) > len(names):
        raise OptionError(
            f"n_way: {n_way}-way episodes{' with none-of-the-above queries' if q_na else ''} need "
            f"{n_way + (1 if q_na else 0)} relations; the data has {len(names)}",
            option="n_way",
        )
    small = [r for r in names if len(relations[r]) < k_shot + q_query]
    if small:
        raise OptionError(
            f"k_shot: K + Q = {k_shot + q_query} instances per relation, but {small[0]!r} has "
            f"{len(relations[small[0]])}",
            option="k_shot",
        )
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    for e in range(episodes):
        targets = rng.sample(names, n_way)
        support: list[list[Any]] = []
        queries: list[tuple[Any, int]] = []
        for i, relation in enumerate(targets):
            pool = relations[relation]
            chosen = rng.sample(range(len(pool)), k_shot + q_query)
            support.append([pool[j] for j in chosen[:k_shot]])
            queries += [(pool[j], i) for j in chosen[k_shot:]]
        others = [r for r in names if r not in targets]
        for _ in range(q_na):
            pool = relations[others[rng.randrange(len(others))]]
            queries.append((pool[rng.randrange(len(pool))], n_way))
        for query, answer in queries:
            out.append(
                {"meta_train": support, "meta_test": query, "relation": list(targets), "episode": e, "answer": answer}
            )
    return out


def write_episodes(
    entries: Sequence[Mapping[str, Any]],
    input_path: PathLike | None = None,
    gold_path: PathLike | None = None,
    answers_path: PathLike | None = None,
) -> None:
    """Write sampled entries: `input_path` the official test input (no answers: what a system reads),
    `gold_path` the entries with their answers (releval's gold), `answers_path` the official answer list."""

    def write(path: PathLike, value: Any) -> None:
        data = orjson.dumps(value)
        if os.fspath(path).endswith(".gz"):
            import gzip

            data = gzip.compress(data, mtime=0)
        Path(path).write_bytes(data)

    if input_path is not None:
        write(input_path, [{k: v for k, v in e.items() if k != "answer"} for e in entries])
    if gold_path is not None:
        write(gold_path, list(entries))
    if answers_path is not None:
        write(answers_path, [e["answer"] for e in entries])
