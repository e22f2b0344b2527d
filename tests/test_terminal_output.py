"""Terminal output a person reads (issue 23, item 7): no text line wider than needed, whatever the data.

A made-up end-to-end dataset in the shape of SciERC's problem (many types with long names, relations that join
many (head type, tail type) pairs) made `releval stats` print lines of thousands of characters: one long cell
padded its whole column. Text tables now wrap a long cell onto continuation lines of its column and summarise
what would take more than a few lines; Markdown, CSV and JSON keep every value whole.
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest

from releval.cli import main
from releval.core.table import Column, Table
from releval.report.render import TEXT_CELL_LINES, TEXT_CELL_WIDTH, render, wrap_cell

ENTITY_TYPES = [f"Made_Up_Entity_Type_With_A_Rather_Long_Descriptive_Name_{i:02d}" for i in range(12)]
RELATION_TYPES = [f"Made-Up-Relation-Type-Whose-Name-Keeps-Going-On-{i:02d}" for i in range(6)]


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """144 sentences of two entities each, one per (head type, tail type); the relation of pair (i, j) is type
    (i + j) mod 6, so each relation type joins 24 type pairs and its argument-type cell lists 24 entries."""
    records = []
    for i, head in enumerate(ENTITY_TYPES):
        for j, tail in enumerate(ENTITY_TYPES):
            records.append(
                {
                    "orig_id": f"s{i}-{j}",
                    "tokens": ["w", "x", "y", "z"],
                    "entities": [{"type": head, "start": 0, "end": 1}, {"type": tail, "start": 2, "end": 3}],
                    "relations": [{"type": RELATION_TYPES[(i + j) % 6], "head": 0, "tail": 1}],
                }
            )
    folder = tmp_path_factory.mktemp("a_folder_with_a_name_long_enough_to_matter_in_a_table")
    path = folder / "scierc_like_made_up_dataset_with_long_type_names_test_split.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    return path


def _stats(path: Path, fmt: str, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["stats", str(path), "--format", fmt]) == 0
    return capsys.readouterr().out


def _pairs_of(relation: str) -> list[tuple[str, str]]:
    k = RELATION_TYPES.index(relation)
    return [(h, t) for i, h in enumerate(ENTITY_TYPES) for j, t in enumerate(ENTITY_TYPES) if (i + j) % 6 == k]


def test_stats_text_has_no_padded_lines(dataset: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = _stats(dataset, "text", capsys)
    lines = text.splitlines()
    # prose (notes, signatures) and titles are single lines as wide as their text; every table line is bounded:
    # the widest table has a split name (the file's stem, 59 characters) and 11 columns of counts and verdicts
    # whose headers take 133; the argument-type table held lines of about 2,900 characters before
    table_lines = [ln for ln in lines if not ln.startswith(("note:", "signature", "=="))]
    assert max(map(len, table_lines)) <= TEXT_CELL_WIDTH + 2 + 133
    mapping = text[text.index("== relation type → (head type, tail type)") :]
    rows = [ln for ln in mapping.splitlines()[3:] if ln and not ln.startswith("note:")]
    assert max(map(len, rows)) <= 2 * TEXT_CELL_WIDTH + 2
    # each relation's cell of 24 entries (about 2,900 characters) is summarised in TEXT_CELL_LINES lines: the
    # first entry shown whole, the count of what is left out on the last line
    first, second = ENTITY_TYPES[0], ENTITY_TYPES[0]
    assert len(rows) == len(RELATION_TYPES) * TEXT_CELL_LINES
    assert all(ln.endswith(" more") and "… +" in ln for ln in rows[TEXT_CELL_LINES - 1 :: TEXT_CELL_LINES])
    shown = "".join(ln[len(RELATION_TYPES[0]) + 2 :].strip() for ln in rows[: TEXT_CELL_LINES - 1])
    assert shown.replace(" ", "").startswith(f"{first}→{second}(1),")  # a line break is where a space was


def test_stats_data_formats_keep_every_value_whole(dataset: Path, capsys: pytest.CaptureFixture[str]) -> None:
    markdown = _stats(dataset, "markdown", capsys)
    for relation in RELATION_TYPES:
        cell = ", ".join(f"{h}→{t} (1)" for h, t in _pairs_of(relation))
        assert f"| {relation} | {cell} |" in markdown
    rows = list(csv.DictReader(io.StringIO(_stats(dataset, "csv", capsys))))
    got = {r["key"] for r in rows if r["kind"] == "argument_types" and r["split"] == rows[0]["split"]}
    assert got == {f"{r}: {h}→{t}" for r in RELATION_TYPES for h, t in _pairs_of(r)}
    data = json.loads(_stats(dataset, "json", capsys))
    assert set(data["total"]["entity_types"]) == set(ENTITY_TYPES)
    assert {r: set(p) for r, p in data["total"]["argument_types"].items()} == {
        r: {f"{h}→{t}" for h, t in _pairs_of(r)} for r in RELATION_TYPES
    }


def test_a_long_cell_wraps_in_its_column_and_the_others_stay_aligned() -> None:
    path = "runs/" + "/".join(f"seed_{k}" for k in range(12)) + "/predictions.txt"  # 89 characters, no space
    table = Table("t", (Column("file"), Column("F", "percent")), [(path, 0.5), ("short.txt", 0.25)])
    lines = render([table], "text").splitlines()
    # cut after the last slash within TEXT_CELL_WIDTH (60) characters: 'runs/seed_0/…/seed_6/' is 54 long
    first = "runs/seed_0/seed_1/seed_2/seed_3/seed_4/seed_5/seed_6/"
    assert lines[1:] == [
        "file" + " " * 50 + "      F",
        "-" * 54 + "  -----",
        first + "  50.00",
        "seed_7/seed_8/seed_9/seed_10/seed_11/predictions.txt",
        "short.txt" + " " * 45 + "  25.00",
    ]
    assert render([table], "csv").splitlines()[1] == f"{path},0.5"


def test_wrap_cell_cuts_a_piece_longer_than_the_width_and_counts_what_it_leaves_out() -> None:
    assert wrap_cell("x" * 10, width=4) == ["xxxx", "xxxx", "xx"]
    assert wrap_cell("x" * 30, width=4, max_lines=3) == ["xxxx", "xxxx", "… +22"[:4]]
    items = ", ".join(f"label{k}" for k in range(10))  # 'label0, label1, ' … : 8 characters per entry
    assert wrap_cell(items, width=16, max_lines=3) == ["label0, label1,", "label2, label3,", "… +6 more"]
    assert wrap_cell("short", width=4 * 4) == ["short"]


# --- many systems in `compare`: a compact view whose numbers are the pair rows' ------------------------------

SEMEVAL = Path(__file__).resolve().parents[1] / "examples" / "semeval2010_task8"


@pytest.fixture(scope="module")
def five_systems(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """`releval compare` of the 5 bundled SemEval systems, one run written as JSON, then rendered in every form
    from that JSON (the same run: the same numbers)."""
    out = tmp_path_factory.mktemp("compare") / "five.json"
    systems = sorted(SEMEVAL.glob("onehaitao_*.txt"))
    argv = ["compare", str(SEMEVAL / "test_key_directed.txt"), *map(str, systems)]
    argv += ["--test", "bootstrap,randomization", "--resamples", "500", "--no-progress", "--format", "json"]
    assert main([*argv, "--output", str(out)]) == 0
    from releval.report.results import render_results
    from releval.significance.compare import PairedTable

    table = PairedTable.from_dict(json.loads(out.read_text(encoding="utf-8"))["results"][0])
    forms = {"json": out.read_text(encoding="utf-8")}
    forms |= {fmt: render_results([table], fmt) for fmt in ("text", "markdown", "csv")}
    forms["full"] = render_results([table], "text", all_pairs=True)
    return forms


def _block(text: str, title: str) -> list[list[str]]:
    """The rows of the text table titled `title` (split on two or more spaces, the header first)."""
    lines = text[text.index(f"== {title} ==") :].splitlines()[1:]
    rows = []
    for ln in lines[: lines.index("") if "" in lines else len(lines)]:
        if not set(ln) <= {"-", " "}:
            rows.append([c.strip() for c in re.split(r"\s{2,}", ln) if c.strip()])
    return rows


def test_compare_of_five_systems_is_compact_and_its_matrices_are_the_pair_rows(five_systems) -> None:
    text, rows = five_systems["text"], list(csv.DictReader(_data_lines(five_systems["csv"])))
    assert "== Paired tests" not in text and "Paired tests" in five_systems["full"]
    assert len(rows) == 10 * 2 * 5  # CSV: every pair, test and average
    micro = {(r["a"], r["b"], r["test"]): r for r in rows if r["average"] == "micro"}
    scores = {r["a"]: float(r["score_a"]) for r in micro.values()} | {
        r["b"]: float(r["score_b"]) for r in micro.values()
    }
    order = sorted(scores, key=lambda s: -scores[s])  # best first, by micro F from the CSV

    def pair(a: str, b: str, test: str) -> tuple[float, float]:
        if (a, b, test) in micro:
            r = micro[(a, b, test)]
            return float(r["delta"]), float(r["p_adjusted"])
        r = micro[(b, a, test)]
        return -float(r["delta"]), float(r["p_adjusted"])

    delta = _block(text, "Δ micro F (%) = row − column, systems best first")
    assert delta[0] == ["system", *order[1:]]
    for i, row in enumerate(delta[1:]):
        assert row[0] == order[i]
        assert row[1:] == [f"{100 * pair(order[i], col, 'bootstrap')[0]:+.2f}" for col in order[i + 1 :]]
        assert all(float(x) >= 0 for x in row[1:])  # best first: the upper triangle is row − worse column
    for test in ("bootstrap", "randomization"):
        p = _block(text, f"p (Holm), {test}, micro")
        for i, row in enumerate(p[1:]):
            expected = [pair(order[i], col, test)[1] for col in order[i + 1 :]]
            assert row[1:] == [f"{x:.4f}" if x >= 0.001 else f"{x:.2e}" for x in expected]


def test_tie_groups_hold_the_systems_not_different_from_the_best(five_systems) -> None:
    rows = list(csv.DictReader(_data_lines(five_systems["csv"])))
    ties = {(r[0], r[1]): r for r in _block(five_systems["text"], _TIE_TITLE)[1:]}
    assert len(ties) == 2 * 5
    for (test, average), (_, _, best, tied) in ties.items():
        mine = [r for r in rows if r["test"] == test and r["average"] == average]
        score = {r["a"]: float(r["score_a"]) for r in mine} | {r["b"]: float(r["score_b"]) for r in mine}
        assert best == max(score, key=lambda s: score[s])
        # Holm over the k − 1 comparisons with the best (the tie group's family), written out from the raw p
        raw = sorted((float(r["p"]), r["b"] if r["a"] == best else r["a"]) for r in mine if best in (r["a"], r["b"]))
        adjusted, running = {}, 0.0
        for j, (p, other) in enumerate(raw):
            running = max(running, min(1.0, (len(raw) - j) * p))
            adjusted[other] = running
        expected = {other for other, p in adjusted.items() if p >= 0.05}
        assert set(tied.split(", ")) - {"–"} == expected


_TIE_TITLE = (
    "Tie groups: the best system and those not different from it (p (Holm) ≥ 0.05 over its comparisons with the best)"
)


def test_json_keeps_every_pair_and_few_systems_keep_the_pair_table(five_systems) -> None:
    data = json.loads(five_systems["json"])["results"][0]
    assert len(data["pairs"]) == 10 * 2 * 5
    assert "| onehaitao_rbert |" in five_systems["markdown"] and "**Tie groups" in five_systems["markdown"]
    from releval.report.results import render_results
    from releval.significance.compare import compare_paired

    three = {p.stem: p for p in sorted(SEMEVAL.glob("onehaitao_*.txt"))[:3]}
    table = compare_paired(SEMEVAL / "test_key_directed.txt", three, tests=("mcnemar",))
    text = render_results([table])
    assert "== Paired tests" in text and "Tie groups" not in text
    compact = render_results([table], all_pairs=False)
    # McNemar compares accuracy: its matrix and tie group are under that name, its systems ranked by accuracy
    assert "== p (Holm), mcnemar, accuracy ==" in compact and "== Δ accuracy (%) = row − column" in compact
    (row,) = _block(compact, _TIE_TITLE)[1:]
    accuracy = {r.a: r.score_a for r in table.rows} | {r.b: r.score_b for r in table.rows}
    assert row[:3] == ["mcnemar", "accuracy", max(accuracy, key=lambda s: accuracy[s])]


def _data_lines(text: str) -> list[str]:
    """The CSV document without its `# warning:` and `# note:` lines (pandas: comment="#")."""
    return [line for line in text.splitlines() if not line.startswith("#")]
