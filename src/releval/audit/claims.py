"""A registry of published results with their evaluation settings (package data `claims.json`), and checks of a
user's result against it: which published numbers it may be compared with, which not, and why.

Sources: Taillé et al. (2020) Tables 2 and 4, Harbecke et al. (2022) Tables 3–4, Olek's RECENT note Tables 1–2.
Each claim records the test set it was measured on (`test_set`, `test_size`, the `gold` digest where releval can
compute it, and a note on where they come from; `known_test_sets()` describes every test set): a result on other
test data is not comparable, whatever its settings. Every system of a result file is checked. A check's result
(`ClaimsCheck`) saves to JSON and loads back equal.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING, Any, NamedTuple

from releval.core.schema import check_schema, header, reading
from releval.core.validation import check_choice

if TYPE_CHECKING:
    from releval.audit.saved_results import SavedResult
    from releval.core.notices import Notice
    from releval.core.signature import Signature

GROUP_ORDER = ("Strict", "Boundaries", "Relaxed", "Not comparable", "Relation classification")
_REGISTRY_FILE = "claims.json"
#: The `kind` of a saved claims check.
KIND = "claims-check"


@lru_cache(maxsize=1)
def registry() -> dict[str, Any]:
    """The whole registry: description, sources, dataset names and claims (read once from package data)."""
    text = (resources.files("releval.audit") / "data" / _REGISTRY_FILE).read_text(encoding="utf-8")
    return json.loads(text)


def known_test_sets() -> dict[str, dict[str, Any]]:
    """The test sets the claims were measured on, by the id a claim's `test_set` names: name, dataset, unit (items or
    sentences, as the signature's `n` counts them), size, gold digest and patch digest (None when not known) and
    where they come from (`provenance`)."""
    return registry()["test_sets"]


def claims(dataset: str | None = None, criterion: str | None = None, source: str | None = None) -> list[dict[str, Any]]:
    """Registry entries, optionally filtered by dataset, criterion (strict / boundaries / relaxed) and source.

    An unknown dataset or criterion is an OptionError listing the known ones (it would match nothing silently).
    """
    if dataset is not None:
        check_dataset(dataset)
    if criterion is not None:
        check_choice(criterion.lower(), criteria(), "criterion")
    out = []
    for c in registry()["claims"]:
        if dataset is not None and c["dataset"] != dataset.lower():
            continue
        if criterion is not None and (c.get("criterion") or "") != criterion.lower():
            continue
        if source is not None and c["source"] != source:
            continue
        out.append(c)
    return out


def check_dataset(dataset: str, option: str = "--dataset") -> str:
    """A registry dataset name (case-insensitive), lower-cased; an OptionError lists the known ones."""
    return check_choice(dataset.lower(), tuple(registry()["datasets"]), option)


def criteria() -> tuple[str, ...]:
    """The evaluation criteria the registry's claims state (strict, boundaries, relaxed, …)."""
    return tuple(dict.fromkeys(c["criterion"] for c in registry()["claims"] if c.get("criterion")))


def criterion_gaps() -> dict[str, dict[str, Any]]:
    """Boundaries − Strict RE F1 per dataset, min and max over Taillé et al.'s Table 4 configurations (test set)."""
    pairs: dict[str, dict[str, dict[str, float]]] = {}
    for c in claims(source="taille2020"):
        if c["table"] != "4":
            continue
        config = c["id"].rsplit("-", 1)[0]
        pairs.setdefault(c["dataset"], {}).setdefault(config, {})[c["criterion"]] = c["scores"]["rel"]
    names = registry()["datasets"]
    out = {}
    for dataset, configs in pairs.items():
        gaps = [round(v["boundaries"] - v["strict"], 1) for v in configs.values()]
        out[dataset] = {"name": names.get(dataset, dataset), "low": min(gaps), "high": max(gaps), "n": len(gaps)}
    return out


def _score_text(c: dict[str, Any]) -> str:
    s = c["scores"]
    marks = c.get("marks", {})
    if "rel" in s and c["source"] == "taille2020":
        ent = "-" if s.get("ent") is None else f"{s['ent']:.1f}{marks.get('ent', '')}"
        return f"Ent {ent:>6}  Rel {s['rel']:.1f}{marks.get('rel', '')}"
    if "micro" in s:
        return "  ".join(f"{k} {v['mean']:.1f}±{v['std']:.1f}" for k, v in s.items())
    if "tp" in s:
        return f"TP {s['tp']} FP {s['fp']} FN {s['fn']}  P {s['precision']:.2f} R {s['recall']:.2f} F1 {s['f1']:.2f}"
    return f"F1 {s['f1']:.2f}"


def render_claims(entries: Sequence[dict[str, Any]]) -> str:
    """Plain text grouped by evaluation setting (Strict / Boundaries / …), incorrectly stated entries flagged."""
    names = registry()["datasets"]
    lines: list[str] = []
    groups = sorted({c["group"] for c in entries}, key=lambda g: GROUP_ORDER.index(g) if g in GROUP_ORDER else 99)
    for group in groups:
        lines.append(f"== {group} ==")
        for c in (c for c in entries if c["group"] == group):
            flag = "  ✗ INCORRECTLY STATED" if c.get("incorrectly_stated") else ""
            who = c["reference"] + (f" — {c['system']}" if c.get("system") else "")
            where = f"{c['source']} T{c['table']}" if c["table"] != "text" else f"{c['source']} text"
            lines.append(
                f"  {who:<64} {names.get(c['dataset'], c['dataset']):<9} {c['metric']:<4} {_score_text(c)}"
                f"  [{where}]{flag}"
            )
        lines.append("")
    if any(c.get("marks") for c in entries):
        lines.append("† / ∗: footnote marks as printed in Taillé et al.'s Table 2 (defined in its caption).")
    return "\n".join(lines).rstrip() + "\n"


@dataclass(frozen=True)
class ClaimVerdict:
    """Whether a user's result may be compared with one published claim, and why."""

    claim_id: str
    reference: str
    dataset: str
    comparable: bool
    reasons: list[str]
    yours: float | None
    theirs: float | None
    system: str = ""  # which system of the result file ("" in checks saved before systems were told apart)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data (a part of a `ClaimsCheck`'s, so no schema version of its own)."""
        return {
            "system": self.system,
            "claim_id": self.claim_id,
            "reference": self.reference,
            "dataset": self.dataset,
            "comparable": self.comparable,
            "reasons": list(self.reasons),
            "yours": self.yours,
            "theirs": self.theirs,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ClaimVerdict:
        """The verdict `to_dict()` wrote (ValueError for a missing field)."""
        with reading("claim verdict"):
            yours, theirs = data.get("yours"), data.get("theirs")
            return cls(
                str(data["claim_id"]),
                str(data["reference"]),
                str(data["dataset"]),
                bool(data["comparable"]),
                [str(r) for r in data["reasons"]],
                None if yours is None else float(yours),
                None if theirs is None else float(theirs),
                str(data.get("system") or ""),
            )


class ClaimsCheck(NamedTuple):
    """What `check_result` found: the result's dataset (None when it cannot be told) and a verdict per claim and
    system of the result file (system by system, each verdict naming its `system`).

    A named pair, so `dataset, verdicts = check_result(...)` reads it as before.
    """

    dataset: str | None
    verdicts: list[ClaimVerdict]

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data: the dataset and every verdict (the JSON of `releval claims check`)."""
        return {
            **header(KIND),
            "dataset": self.dataset,
            "claims": [v.to_dict() for v in self.verdicts],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ClaimsCheck:
        """The check `to_dict()` wrote (ValueError when `data` is not a saved claims check)."""
        what = "claims check"
        check_schema(data, what, KIND)
        with reading(what):
            dataset = data.get("dataset")
            return cls(None if dataset is None else str(dataset), [ClaimVerdict.from_dict(v) for v in data["claims"]])

    def systems(self) -> list[str]:
        """The systems checked, in the result file's order."""
        return list(dict.fromkeys(v.system for v in self.verdicts))


_CONLL04_LABELS = {"Live_In", "Kill", "Work_For", "OrgBased_In", "Located_In", "Loc", "Org", "Peop", "Other"}
_ACE05_LABELS = {"PHYS", "PART-WHOLE", "ORG-AFF", "GEN-AFF", "PER-SOC", "ART"} | {"FAC", "GPE", "LOC", "ORG", "PER"}
_ACE05_LABELS |= {"VEH", "WEA"}
_SEMEVAL_PREFIXES = ("Cause-Effect", "Component-Whole", "Entity-Destination", "Member-Collection")
_DATASET_HINTS = {
    "tacred": lambda labels: any(x.startswith(("per:", "org:")) for x in labels),
    "semeval": lambda labels: any(x.startswith(_SEMEVAL_PREFIXES) for x in labels),
    "conll04": lambda labels: bool(labels) and set(labels) <= _CONLL04_LABELS,
    "ace05": lambda labels: bool(labels) and set(labels) <= _ACE05_LABELS,
}


def guess_dataset(labels: Sequence[str]) -> str | None:
    """The dataset a result's label set belongs to, when exactly one registry dataset matches."""
    found = [name for name, test in _DATASET_HINTS.items() if test(list(labels))]
    return found[0] if len(found) == 1 else None


def check_result(results: Sequence[SavedResult], dataset: str | None = None) -> ClaimsCheck:
    """Each registry claim on the result's dataset, with a verdict for every system of the result file; `results`
    are the SavedResult entries of one file (`load_results`), whose end-to-end criteria belong to their system."""
    if dataset is not None:
        dataset = check_dataset(dataset)
    if dataset is None:
        labels = [row["label"] for r in results for row in r.data.get("per_class", [])]
        dataset = guess_dataset(labels)
    if dataset is None:
        return ClaimsCheck(None, [])
    entries = claims(dataset=dataset)
    return ClaimsCheck(dataset, [_verdict(c, rs, name) for name, rs in _systems(results) for c in entries])


_CRITERION_SUFFIX = re.compile(r"\[[^\[\]]*\]$")


def _systems(results: Sequence[SavedResult]) -> list[tuple[str, list[SavedResult]]]:
    """The results grouped by system, in file order: an end-to-end system's criteria (`name[strict]`, …) together.

    A system is named by its `system` field and its place in the file (`r.json#2`), or by the latter alone.
    """
    groups: dict[str, list[SavedResult]] = {}
    for r in results:
        key = _CRITERION_SUFFIX.sub("", r.name) if r.criterion is not None else r.name
        groups.setdefault(key, []).append(r)
    out = []
    for key, members in groups.items():
        system = members[0].data.get("system")
        out.append((f"{system} ({key})" if isinstance(system, str) and system and system != key else key, members))
    return out


def _identify(gold: str | None, besides: str) -> str | None:
    """The name of the registry test set (other than `besides`) whose gold digest is `gold`, if any."""
    return next((t["name"] for k, t in known_test_sets().items() if k != besides and gold and t["gold"] == gold), None)


def _test_set_check(claim: dict[str, Any], sig: Signature) -> tuple[list[str], str]:
    """Whether the result was scored on the claim's test set: the reasons it was not (size, patch, gold digest),
    and, for a comparable result, what was checked."""
    ts = known_test_sets()[claim["test_set"]]
    name, unit, size, gold, patch = ts["name"], ts["unit"], claim["test_size"], claim["gold"], ts["patch"]
    n, your_gold, your_patch = sig.get("n"), sig.get("gold"), sig.get("patch")
    other = _identify(your_gold, claim["test_set"])
    if size is None:
        text = f"test set unknown ({name}): {claim['test_set_note']}; releval cannot check that yours is the same"
        return [text + (f"; yours is the {other}" if other else "")], ""
    reasons = []
    if n is None:
        reasons.append(f"your result does not record its number of test {unit}; the {name} has {size}")
    elif n != str(size):
        count = int(n) if n.isdigit() else None
        where = f"of {size} test {unit}" if count is not None and count < size else f"test {unit}, not {size}"
        reasons.append(f"result on {n} {where}: not the {name}" + (f"; yours is the {other}" if other else ""))
    if your_patch is not None and patch is None:
        reasons.append(f"your gold was patched (patch {your_patch}), the claim is on the unpatched {name}")
    elif your_patch is not None and your_patch != patch:
        reasons.append(f"your gold was patched with patch {your_patch}, the claim's with {patch} ({name})")
    elif your_patch is None and patch is not None and (gold is None or your_gold != gold):
        reasons.append(f"the claim is on the {name} (patch {patch}); your gold was not patched")
    if gold is not None and n == str(size) and your_gold != gold:
        if your_gold is None:
            reasons.append(f"your result does not record a gold digest; the {name}'s is {gold}")
        else:
            text = f"gold labels differ from those of the {name}: digest {your_gold}, not {gold}"
            if other:
                text += f"; they are those of the {other}"
            elif your_patch is None:
                text += f" (another version or relabelling of the data, such as a TACRev patch, other {unit}, or the "
                text += f"same {unit} in another order?)"
            reasons.append(text)
    if gold is not None:
        return reasons, f"same test set: the {name}, {size} {unit}, gold digest {gold}"
    return reasons, (
        f"same number of test {unit} as the {name} ({size}); its gold digest is not recorded (releval cannot "
        "compute it from data available here), so only the size was checked"
    )


#: Warnings a saved result may carry that do not make its number another number than the claim's (they qualify an
#: interval or a statistic): reported beside a comparable verdict. Every other stored warning — predictions equal
#: to gold, files given the other way round, fills of missing predictions, labels gold lacks — blocks the
#: comparison: the claim is not compared with a number its own run flagged.
_QUALIFYING_CODES = frozenset({"rare-classes", "undefined-statistic", "estimator-invalid"})


def stored_warnings(result: SavedResult) -> list[Notice]:
    """The warnings a saved result carries (its JSON `warnings`: {code, message} objects or bare messages), as
    Notices; an unknown code reads as "warning", an entry of another shape is skipped.

    >>> from releval.audit.saved_results import SavedResult
    >>> from releval.core.signature import Signature
    >>> r = SavedResult("r.json", "r.json", Signature(), {"warnings": [{"code": "pred-equals-gold", "message": "x"}]})
    >>> [(w.code, str(w)) for w in stored_warnings(r)]
    [('pred-equals-gold', 'x')]
    """
    from releval.core.notices import CODES, Notice

    found = result.data.get("warnings")
    out = []
    for item in found if isinstance(found, list) else []:
        if isinstance(item, str):
            out.append(Notice(item))
        elif isinstance(item, dict) and isinstance(item.get("message"), str):
            code = item.get("code")
            out.append(Notice(item["message"], code if isinstance(code, str) and code in CODES else "warning"))
    return out


def _verdict(claim: dict[str, Any], results: Sequence[SavedResult], system: str = "") -> ClaimVerdict:
    reasons: list[str] = []
    task = claim["task"]
    same_task = [r for r in results if r.signature.get("task", "rc") == task]
    candidates = same_task
    if not same_task:
        reasons.append(f"task differs: the claim is {task}, your result is {results[0].signature.get('task', 'rc')}")
    if claim.get("criterion") and same_task:  # end-to-end RE claims name their criterion
        candidates = [r for r in same_task if r.criterion == claim["criterion"]]
        if not candidates:
            have = ", ".join(sorted({str(r.criterion) for r in same_task if r.criterion != "ner"})) or "none"
            reasons.append(f"criterion differs: the claim is {claim['criterion']}, your result has {have}")
    if claim.get("incorrectly_stated"):
        reasons.append("the source marks this number as incorrectly stated: " + claim.get("notes", "see the source"))
    elif claim["group"] == "Not comparable":
        reasons.append("the source lists this number as not comparable: " + claim.get("notes", ""))
    if claim.get("missing_policy") == "negative" and not claim.get("incorrectly_stated"):
        reasons.append("obtained with missing predictions filled as the negative class: " + claim.get("notes", ""))
    mine = candidates[0] if candidates else None
    same_data = ""
    if same_task:  # the criteria of one system share their test data: checked even when the criterion differs
        data_reasons, same_data = _test_set_check(claim, (mine or same_task[0]).signature)
        reasons += data_reasons
    average = "macro" if claim["average"] == "macro" else "micro"
    if mine is not None:
        sig = mine.signature
        if claim.get("negative_excluded") and sig.get("negative") in (None, "none"):
            reasons.append("the claim excludes the negative class; your result has none declared")
        if claim.get("view") and (sig.get("view") or "directed") != claim["view"]:
            reasons.append(f"label view differs: the claim is {claim['view']}, yours is {sig.get('view')}")
        if sig.get("missing") == "negative":
            reasons.append("your result filled missing predictions with the negative class (RECENT's leak pattern)")
        if average not in mine.data.get("averages", {}):
            reasons.append(f"your result has no {average} average")
    warned = list(dict.fromkeys(w for r in (mine,) if r is not None for w in stored_warnings(r)))
    reasons += [f"your result warns ({w.code}): {w}" for w in warned if w.code not in _QUALIFYING_CODES]
    yours = theirs = None
    if mine is not None and average in mine.data.get("averages", {}):
        yours = 100 * float(mine.data["averages"][average]["f"])
    s = claim["scores"]
    theirs = s.get("rel", s.get("f1", (s.get(average) or {}).get("mean") if isinstance(s.get(average), dict) else None))
    comparable = not reasons
    if comparable:
        reasons.append(f"same task, criterion, negative class and averaging ({average})")
        reasons.append(same_data)
        if claim.get("runs"):
            reasons.append(f"the claim is a mean over {claim['runs']} runs: compare it with a mean over runs")
        if claim.get("marks"):
            reasons.append(f"marked {', '.join(sorted(set(claim['marks'].values())))} in the source table")
        reasons += [f"your result warns ({w.code}): {w}" for w in warned]
    return ClaimVerdict(
        claim["id"], claim["reference"], claim["dataset"], comparable, reasons, yours, theirs, system=system
    )


def render_verdicts(dataset: str | None, verdicts: Sequence[ClaimVerdict]) -> str:
    """Plain text, one block per system of the result file: comparable claims first, then the others with their
    reasons."""
    if dataset is None:
        return "cannot tell the dataset from the result's labels; name it with --dataset\n"
    names = registry()["datasets"]
    systems = list(dict.fromkeys(v.system for v in verdicts))
    per_system = len(verdicts) // max(len(systems), 1)
    lines = [f"published results on {names.get(dataset, dataset)} ({per_system}):"]
    for system in systems:
        mine = [v for v in verdicts if v.system == system]
        if system:
            lines += ["", f"== {system} =="]
        for title, ok in (("may be compared with", True), ("may NOT be compared with", False)):
            chosen = [v for v in mine if v.comparable == ok]
            lines.append(f"{title} ({len(chosen)}):")
            for v in chosen:
                nums = f" (theirs {v.theirs:.2f}" + (f", yours {v.yours:.2f})" if v.yours is not None else ")")
                lines.append(f"  {v.claim_id}: {v.reference}{nums if v.theirs is not None else ''}")
                lines += [f"      - {r}" for r in v.reasons]
    return "\n".join(lines) + "\n"
