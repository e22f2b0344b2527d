"""TSV predictions of ranked facts read the same whichever path the reader takes (one split of the whole text when
no line is blank, line by line otherwise): the same columns and the same line numbers, counted here by hand."""

from __future__ import annotations

import pytest

from releval.core.errors import InputError
from releval.data import ranked
from releval.data.ranked import parse_gold, parse_predictions

ROWS = [("m.a", "m.b", "/r/x", "0.5"), ("m.c", "m.d", "NA", "1e-3"), ("m.a", "m.e", "/r/y", "2")]


@pytest.mark.parametrize(
    ("header", "newline", "blank", "final"),
    [(h, nl, b, f) for h in (False, True) for nl in ("\n", "\r\n") for b in (False, True) for f in (False, True)],
)
def test_tsv_layouts_give_the_same_columns_and_lines(header: bool, newline: str, blank: bool, final: bool) -> None:
    lines = (["h\tt\trelation\tscore"] if header else []) + ["\t".join(r) for r in ROWS]
    if blank:
        lines.insert(len(lines) - 1, "")
    text = newline.join(lines) + (newline if final else "")
    expected_lines = [i + 1 for i, line in enumerate(lines) if line and not line.startswith("h\t")]
    pred = parse_predictions(text.encode(), "p.tsv", "tsv")
    assert (pred.heads, pred.tails, pred.relations) == tuple(list(c) for c in zip(*ROWS))[:3]
    assert pred.scores.tolist() == [0.5, 0.001, 2.0] and pred.lines.tolist() == expected_lines


@pytest.mark.parametrize("blank", [False, True])
def test_a_short_line_and_an_empty_field_are_located_on_both_paths(blank: bool) -> None:
    gap = "\n\n" if blank else "\n"
    short = f"a\tb\tr\t1{gap}c\td\tr\n"
    with pytest.raises(InputError) as info:
        parse_predictions(short.encode(), "p.tsv", "tsv")
    assert info.value.line == (3 if blank else 2) and "got 3" in str(info.value)
    empty = f"a\tb\tr\t1{gap}c\t\tr\t1\n"
    with pytest.raises(InputError) as info:
        parse_predictions(empty.encode(), "p.tsv", "tsv")
    assert (info.value.line, info.value.field) == ((3 if blank else 2), "t")


@pytest.mark.parametrize("chunk", [1, 9, 1 << 23])
@pytest.mark.parametrize(("header", "blank"), [(False, False), (True, False), (False, True)])
def test_tsv_read_in_chunks_of_lines_gives_the_same_columns(chunk: int, header: bool, blank: bool) -> None:
    """Issue 34's memory bound: the text is split about `CHUNK` characters at a time; chunks of one line, of a few
    lines and of the whole file read the same rows, lines and (shared) relation names."""
    rows = ROWS * 4
    lines = (["h\tt\trelation\tscore"] if header else []) + ["\t".join(r) for r in rows]
    if blank:
        lines.insert(2, "")
    expected_lines = [i + 1 for i, line in enumerate(lines) if line and not line.startswith("h\t")]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ranked, "CHUNK", chunk)
        pred = parse_predictions(("\n".join(lines) + "\n").encode(), "p.tsv", "tsv")
    assert (pred.heads, pred.tails, pred.relations) == tuple(list(c) for c in zip(*rows))[:3]
    assert pred.scores.tolist() == [0.5, 0.001, 2.0] * 4 and pred.lines.tolist() == expected_lines
    assert pred.relations[0] is pred.relations[3]  # one str per relation name


@pytest.mark.parametrize("chunk", [1, 1 << 23])
def test_a_bad_score_in_a_later_chunk_is_located_after_a_bad_id_anywhere(chunk: int) -> None:
    """Ids are checked before scores, whichever chunk holds the bad score: the same first error as one chunk."""
    text = "a\tb\tr\t1\nc\td\tr\tx\ne\t f\tr\t1\n"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ranked, "CHUNK", chunk)
        with pytest.raises(InputError) as info:
            parse_predictions(text.encode(), "p.tsv", "tsv")
        assert (info.value.line, info.value.field) == (3, "t")
        with pytest.raises(InputError) as info:
            parse_predictions(text.replace(" f", "f").encode(), "p.tsv", "tsv")
        assert (info.value.line, info.value.field) == (2, "score")


@pytest.mark.parametrize("chunk", [1, 40, 1 << 23])
def test_json_lines_read_in_chunks_give_the_same_gold_and_predictions(chunk: int) -> None:
    gold_text = "".join(
        f'{{"h": {{"id": "{h}"}}, "t": {{"id": "{t}"}}, "relation": "{r}"}}\n' for h, t, r, _ in ROWS * 2
    )
    pred_text = "".join(f'{{"h": "{h}", "t": "{t}", "relation": "{r}", "score": {s}}}\n' for h, t, r, s in ROWS)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ranked, "CHUNK", chunk)
        gold = parse_gold(gold_text.encode(), "g.jsonl")
        pred = parse_predictions(pred_text.encode(), "p.jsonl", "jsonl")
    assert (gold.heads, gold.tails, gold.sentence_relations) == tuple(list(c) * 2 for c in zip(*ROWS))[:3]
    assert gold.lines.tolist() == [1, 2, 3, 4, 5, 6] and gold.sentence_relations[0] is gold.sentence_relations[3]
    assert (pred.heads, pred.relations, pred.scores.tolist()) == (["m.a", "m.c", "m.a"], ["/r/x", "NA", "/r/y"],
                                                                   [0.5, 0.001, 2.0])  # fmt: skip
