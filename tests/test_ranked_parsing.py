"""TSV predictions of ranked facts read the same whichever path the reader takes (one split of the whole text when
no line is blank, line by line otherwise): the same columns and the same line numbers, counted here by hand."""

from __future__ import annotations

import pytest

from releval.core.errors import InputError
from releval.data.ranked import parse_predictions

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
