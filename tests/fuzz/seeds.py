"""Seed inputs: small slices of the bundled data in every format releval reads, the starting points of mutation.

Small on purpose (20-30 records each), so that one mutated input costs well under a millisecond to load twice
(releval and the reference). The SemEval-2010 Task 8 and CoNLL04 files are sliced verbatim; the TACRED-shaped
formats (TACRED JSON, TACRev JSONL, generic JSONL/CSV/TSV, id-TSV, labels-lines) are built from the SemEval sentences
and the TACRED labels of tests/data/testvectors, because TACRED itself is not bundled.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Seed:
    """One well-formed input and how to read it.

    `value` is the parsed JSON (records list or split dict) for JSON seeds, so structural mutators can change values
    and re-serialise; `jsonl` says one JSON value per line. `label_field` is passed to the loader only when set (else
    the loader picks the field by role). `hot_keys` are the JSON keys mutations aim at most often.
    """

    name: str
    loader: str  # "labels" or "e2e"
    format: str  # a labels format, or "spert" / "dygie"
    role: str  # "gold" or "pred"
    data: bytes
    suffix: str
    value: Any = None
    jsonl: bool = False
    indent: int | None = None
    newline: str = "\n"
    id_field: str = "id"
    label_field: str | None = None
    hot_keys: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)


def find_data(name: str) -> Path:
    """A bundled file by name, wherever it lives under examples/, tests/data/ or docs/ (files move)."""
    for root in (REPO / "examples", REPO / "tests" / "data", REPO / "docs"):
        hits = sorted(root.rglob(name))
        if hits:
            return hits[0]
    raise FileNotFoundError(f"{name}: bundled data file not found under examples/ or tests/data/")


def _head_lines(name: str, n: int) -> bytes:
    """The first n lines of a bundled file, with their own line ends (CRLF stays CRLF)."""
    raw = find_data(name).read_bytes()
    return b"".join(raw.splitlines(keepends=True)[:n])


@lru_cache(maxsize=1)
def _semeval_blocks() -> list[tuple[str, str, str]]:
    """(id, sentence, directed label) of the first 40 blocks of the official test file."""
    text = find_data("TEST_FILE_FULL.TXT").read_bytes().decode("utf-8")
    out = []
    for block in text.split("\r\n\r\n")[:40]:
        first, label = block.split("\r\n")[:2]
        item_id, sentence = first.split("\t", 1)
        out.append((item_id, sentence.strip('"'), label))
    return out


@lru_cache(maxsize=1)
def _tacred_labels() -> list[str]:
    """TACRED relation labels found in the negative-class test vectors (gold and predicted lists)."""
    data = json.loads(find_data("negative_class_and_leak_vectors.json").read_text(encoding="utf-8"))
    found: set[str] = set()
    stack: list[Any] = [data]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("gold", "pred") and isinstance(value, list) and all(isinstance(x, str) for x in value):
                    found.update(value)
                stack.append(value)
        elif isinstance(node, list):
            stack.extend(node)
    return sorted(found)


def _tacred_items(n: int = 25) -> list[dict[str, Any]]:
    """TACRED-shaped records: hex ids, SemEval sentences as tokens, TACRED gold and predicted labels."""
    labels = _tacred_labels()
    items = []
    for k, (_, sentence, _) in enumerate(_semeval_blocks()[:n]):
        words = re.sub(r"</?e[12]>", " ", sentence).split()
        gold = "no_relation" if k % 3 == 0 else labels[(k * 7) % len(labels)]
        pred = gold if k % 4 else labels[(k * 5 + 1) % len(labels)]
        items.append(
            {
                "id": hashlib.sha1(f"tacred-{k}".encode()).hexdigest()[:20],
                "words": words,
                "sentence": sentence,
                "gold": gold,
                "pred": pred,
            }
        )
    return items


def _dumps_lines(records: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode("utf-8")


def _csv_cell(text: str) -> str:
    return '"' + text.replace('"', '""') + '"' if any(c in text for c in ',"\n\r') else text


def _conll04() -> dict[str, list[dict[str, Any]]]:
    return json.loads(find_data("conll04_sincere_all_splits.json").read_text(encoding="utf-8"))


def _spert_pred(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A toy system: the fourth mention of each sentence retyped, the last relation of every fifth dropped."""
    swap = {"Loc": "Org", "Org": "Loc", "Peop": "Other", "Other": "Peop"}
    out = json.loads(json.dumps(records))
    for k, rec in enumerate(out):
        if len(rec["entities"]) >= 4:
            rec["entities"][3]["type"] = swap.get(rec["entities"][3]["type"], "Other")
        if k % 5 == 0 and rec["relations"]:
            rec["relations"] = rec["relations"][:-1]
    return out


def _dygie_docs(records: list[dict[str, Any]], predicted: bool) -> list[dict[str, Any]]:
    """PURE/DyGIE++ documents of 1-3 sentences each: inclusive, document-level offsets; predictions carry two
    extra logit entries per item, as PURE writes them."""
    docs: list[dict[str, Any]] = []
    k = 0
    sizes = [1, 2, 3]
    while k < len(records):
        group = records[k : k + sizes[len(docs) % 3]]
        offset = 0
        sentences, ner, rels = [], [], []
        for rec in group:
            tokens = rec["tokens"]
            ents = [[offset + e["start"], offset + e["end"] - 1, e["type"]] for e in rec["entities"]]
            rel = []
            for r in rec["relations"]:
                h, t = ents[r["head"]], ents[r["tail"]]
                rel.append([h[0], h[1], t[0], t[1], r["type"]])
            if predicted:
                ents = [[*e, 3.5, 0.97] for e in ents]
                rel = [[*r, 2.25, 0.9] for r in rel]
            sentences.append(tokens)
            ner.append(ents)
            rels.append(rel)
            offset += len(tokens)
        keys = ("predicted_ner", "predicted_relations") if predicted else ("ner", "relations")
        docs.append({"doc_key": f"doc-{len(docs)}", "sentences": sentences, keys[0]: ner, keys[1]: rels})
        k += len(group)
    return docs


@lru_cache(maxsize=1)
def all_seeds() -> tuple[Seed, ...]:
    """Every seed, built once per process."""
    seeds: list[Seed] = []
    blocks_raw = find_data("TEST_FILE_FULL.TXT").read_bytes().split(b"\r\n\r\n")
    seeds.append(
        Seed(
            "semeval:test_full_30",
            "labels",
            "semeval",
            "gold",
            b"\r\n\r\n".join(blocks_raw[:30]) + b"\r\n\r\n",
            ".TXT",
            newline="\r\n",
        )
    )
    seeds.append(
        Seed(
            "semeval-tsv:test_key_30", "labels", "semeval-tsv", "gold", _head_lines("test_key_directed.txt", 30), ".txt"
        )
    )
    seeds.append(
        Seed("semeval-tsv:rbert_30", "labels", "semeval-tsv", "pred", _head_lines("onehaitao_rbert.txt", 30), ".txt")
    )
    seeds.append(
        Seed("semeval-tsv:cnn_30", "labels", "semeval-tsv", "pred", _head_lines("onehaitao_cnn.txt", 30), ".txt")
    )
    seeds.append(
        Seed(
            "semeval-tsv:train_key_30",
            "labels",
            "semeval-tsv",
            "gold",
            _head_lines("train_key_directed.txt", 30),
            ".txt",
            newline="\r\n",
        )
    )
    seeds.append(
        Seed(
            "semeval-tsv:key_undirected_10",
            "labels",
            "semeval-tsv",
            "gold",
            _head_lines("TEST_FILE_KEY_first10.TXT", 10),
            ".TXT",
            newline="\r\n",
        )
    )
    seeds.append(
        Seed(
            "id-tsv:proposed_answer1",
            "labels",
            "id-tsv",
            "pred",
            _head_lines("proposed_answer1.txt", 30),
            ".txt",
            newline="\r\n",
        )
    )

    tac = _tacred_items()
    seeds.append(
        Seed(
            "id-tsv:tacred_25",
            "labels",
            "id-tsv",
            "gold",
            "".join(f"{t['id']}\t{t['gold']}\n" for t in tac).encode(),
            ".tsv",
        )
    )
    seeds.append(
        Seed(
            "labels-lines:tacred_25",
            "labels",
            "labels-lines",
            "gold",
            "".join(t["gold"] + "\n" for t in tac).encode(),
            ".txt",
        )
    )
    tacred = [
        {"id": t["id"], "relation": t["gold"], "token": t["words"], "subj_start": 0, "subj_end": 0,
         "obj_start": 1, "obj_end": 1, "subj_type": "PERSON", "obj_type": "TITLE"}
        for t in tac[:20]
    ]  # fmt: skip
    seeds.append(
        Seed(
            "tacred-json:20",
            "labels",
            "tacred-json",
            "gold",
            json.dumps(tacred).encode(),
            ".json",
            value=tacred,
            label_field=None,
            hot_keys=("id", "relation"),
        )
    )
    tacrev = [{"id": t["id"], "label_true": t["gold"], "label_pred": t["pred"]} for t in tac]
    for role in ("gold", "pred"):
        seeds.append(
            Seed(
                f"tacrev-jsonl:{role}",
                "labels",
                "tacrev-jsonl",
                role,
                _dumps_lines(tacrev),
                ".jsonl",
                value=tacrev,
                jsonl=True,
                hot_keys=("id", "label_true", "label_pred"),
            )
        )
    gold_jsonl = [{"id": t["id"], "label": t["gold"], "sentence": t["sentence"]} for t in tac]
    pred_jsonl = [{"id": t["id"], "prediction": t["pred"]} for t in tac]
    seeds.append(
        Seed(
            "jsonl:gold",
            "labels",
            "jsonl",
            "gold",
            _dumps_lines(gold_jsonl),
            ".jsonl",
            value=gold_jsonl,
            jsonl=True,
            hot_keys=("id", "label"),
        )
    )
    seeds.append(
        Seed(
            "jsonl:pred",
            "labels",
            "jsonl",
            "pred",
            _dumps_lines(pred_jsonl),
            ".jsonl",
            value=pred_jsonl,
            jsonl=True,
            hot_keys=("id", "prediction"),
        )
    )
    seeds.append(Seed("labels-lines:tacred_pred_25", "labels", "labels-lines", "pred",
                      "".join(t["pred"] + "\n" for t in tac).encode(), ".txt"))  # fmt: skip
    pred_20 = pred_jsonl[:20]
    seeds.append(Seed("jsonl:pred_20", "labels", "jsonl", "pred", _dumps_lines(pred_20), ".jsonl", value=pred_20,
                      jsonl=True, hot_keys=("id", "prediction")))  # fmt: skip
    patch = [{"id": t["id"], "relation": t["pred"]} for t in tac[2:20:4]]  # a TACRev relabelling of 5 gold items
    seeds.append(Seed("tacred-json:patch_5", "labels", "tacred-json", "gold", json.dumps(patch, indent=1).encode(),
                      ".json", value=patch, indent=1, hot_keys=("id", "relation")))  # fmt: skip
    sem = _semeval_blocks()[:30]
    int_ids = [{"id": int(i), "relation": lbl} for i, _, lbl in sem]
    seeds.append(
        Seed(
            "jsonl:int_ids",
            "labels",
            "jsonl",
            "gold",
            _dumps_lines(int_ids),
            ".jsonl",
            value=int_ids,
            jsonl=True,
            hot_keys=("id", "relation"),
        )
    )
    custom = [{"sid": f"s{i}", "rel": lbl, "text": s} for i, s, lbl in sem]
    seeds.append(
        Seed(
            "jsonl:custom_fields",
            "labels",
            "jsonl",
            "gold",
            _dumps_lines(custom),
            ".jsonl",
            value=custom,
            jsonl=True,
            id_field="sid",
            label_field="rel",
            hot_keys=("sid", "rel"),
        )
    )
    csv_text = "id,label,sentence\n" + "".join(f"{i},{_csv_cell(lbl)},{_csv_cell(s)}\n" for i, s, lbl in sem)
    seeds.append(Seed("csv:gold", "labels", "csv", "gold", csv_text.encode(), ".csv"))
    csv_pred = "id,prediction\r\n" + "".join(f"{t['id']},{t['pred']}\r\n" for t in tac)
    seeds.append(Seed("csv:pred_crlf", "labels", "csv", "pred", csv_pred.encode(), ".csv", newline="\r\n"))
    tsv_text = "id\tlabel\n" + "".join(f"{t['id']}\t{t['gold']}\n" for t in tac)
    seeds.append(Seed("tsv:gold", "labels", "tsv", "gold", tsv_text.encode(), ".tsv"))

    conll = _conll04()
    test20 = json.loads(find_data("conll04_test_first30.json").read_text(encoding="utf-8"))[:20]
    e2e_keys = ("tokens", "entities", "relations", "start", "end", "type", "head", "tail", "orig_id")
    seeds.append(
        Seed(
            "spert:test_20",
            "e2e",
            "spert",
            "gold",
            json.dumps(test20, indent=1).encode(),
            ".json",
            value=test20,
            indent=1,
            hot_keys=e2e_keys,
        )
    )
    pred20 = _spert_pred(test20)
    seeds.append(
        Seed(
            "spert:pred_20",
            "e2e",
            "spert",
            "pred",
            json.dumps(pred20).encode(),
            ".json",
            value=pred20,
            hot_keys=e2e_keys,
        )
    )
    splits = {"train": conll["train"][:8], "dev": conll["dev"][:6], "test": conll["test"][:6]}
    seeds.append(
        Seed(
            "spert:splits",
            "e2e",
            "spert",
            "gold",
            json.dumps(splits).encode(),
            ".json",
            value=splits,
            hot_keys=e2e_keys,
        )
    )
    dygie_keys = ("doc_key", "sentences", "ner", "relations", "predicted_ner", "predicted_relations")
    dg = _dygie_docs(conll["train"][:20], predicted=False)
    seeds.append(
        Seed(
            "dygie:gold", "e2e", "dygie", "gold", _dumps_lines(dg), ".jsonl", value=dg, jsonl=True, hot_keys=dygie_keys
        )
    )
    dp = _dygie_docs(_spert_pred(conll["train"][:20]), predicted=True)
    seeds.append(
        Seed(
            "dygie:pred", "e2e", "dygie", "pred", _dumps_lines(dp), ".jsonl", value=dp, jsonl=True, hot_keys=dygie_keys
        )
    )
    seeds.extend(_pvalue_seeds())
    claims = find_data("harbecke2022_tables.csv").read_bytes()  # check-stats tables: commands only, no reference
    seeds.append(Seed("claims-csv:harbecke", "claims", "claims-csv", "gold", claims, ".csv"))
    types = json.loads(find_data("conll04_types.json").read_text(encoding="utf-8"))
    types["relations"]["Kill"]["symmetric"] = True  # one symmetric type, so the flag is read both ways
    type_keys = ("entities", "relations", "symmetric", *types["entities"], *types["relations"])
    seeds.append(Seed("types:conll04", "types", "spert-types", "gold", json.dumps(types, indent=1).encode(), ".json",
                      value=types, indent=1, hot_keys=type_keys))  # fmt: skip
    return tuple(seeds)


def _pvalue_seeds() -> list[Seed]:
    """p-value tables (replicability analysis) from the replicability test vectors: the TACL 2017 dependency
    parsing p-values with the docs' domain names and effects as CSV (with a comment line), the 23-language POS
    p-values as TSV with other header spellings, and both as JSON records, a {name: p} mapping and {"datasets"}."""
    vectors = json.loads(find_data("replicability_vectors.json").read_text(encoding="utf-8"))["vectors"]
    by_id = {v["id"]: v["inputs"]["p_values"] for v in vectors}
    domains = ["BC", "BN", "MZ", "NW", "PT", "TC", "WB"]
    effects = [0.54, 0.36, 1.02, 0.69, 0.42, 0.88, 0.58]
    mate = by_id["tacl2017_depparse_mate_vs_redshift_4dp"]
    langs = by_id["tacl2017_pos_mimick_vs_chartag_23langs"]
    csv_text = "# Dror et al. 2017, Mate vs RedShift\ndataset,p,effect\n"
    csv_text += "".join(f"{d},{p},{e}\n" for d, p, e in zip(domains, mate, effects))
    tsv_text = "Name\tP_Value\n" + "".join(f"lang{k:02d}\t{p!r}\n" for k, p in enumerate(langs))
    records = [{"dataset": d, "p": p, "effect": e} for d, p, e in zip(domains, mate, effects)]
    mapping = {f"lang{k:02d}": p for k, p in enumerate(langs)}
    wrapped = {"datasets": [{"Name": f"lang{k:02d}", "pvalue": p} for k, p in enumerate(langs[:10])]}
    keys = ("dataset", "p", "effect", "Name", "pvalue", "datasets")
    return [
        Seed("pvalues-csv:mate", "pvalues", "csv", "gold", csv_text.encode(), ".csv"),
        Seed("pvalues-tsv:langs", "pvalues", "tsv", "gold", tsv_text.encode(), ".tsv"),
        Seed("pvalues-json:records", "pvalues", "json", "gold", json.dumps(records, indent=1).encode(), ".json",
             value=records, indent=1, hot_keys=keys),
        Seed("pvalues-json:mapping", "pvalues", "json", "gold", json.dumps(mapping).encode(), ".json",
             value=mapping, hot_keys=tuple(mapping)),
        Seed("pvalues-json:datasets", "pvalues", "json", "gold", json.dumps(wrapped).encode(), ".json",
             value=wrapped, hot_keys=keys),
    ]  # fmt: skip


def seed_by_name(name: str) -> Seed:
    """The seed of that name (corpus sidecars and command scenarios refer to seeds by name)."""
    for seed in all_seeds():
        if seed.name == name:
            return seed
    raise KeyError(name)
