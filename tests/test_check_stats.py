"""check-stats: intervals of Welch's t, p and Cohen's d compatible with rounded mean ± sd (Harbecke Tables 3–4)."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest
from scipy import stats

from releval.audit.published import check_stats, parse_mean_sd, parse_number
from releval.cli import main
from releval.core.errors import InputError

# Harbecke et al. (2022), Table 3 (TACRED, RECENT vs PTR) and Table 4 (SemEval, BERT_EM vs PTR), n = 5 runs.
# d is PTR − other in both tables ("positive scores indicate PTR performs better").
TABLE3 = {
    "micro": ("71.5±0.4", "72.5±0.3", "3·10^-3", "2.8"),
    "weighted": ("67.8±0.4", "72.1±0.5", "3·10^-6", "8.7"),
    "dodrans": ("62.5±0.4", "69.8±0.5", "10^-8", "14.8"),
    "entropy": ("63.6±0.4", "70.3±0.5", "2·10^-8", "13.5"),
    "macro": ("43.1±0.6", "60.3±0.8", "2·10^-10", "24.2"),
}
TABLE4 = {
    "micro": ("89.1±0.3", "88.4±0.3", "0.005", "-2.5"),
    "weighted": ("89.1±0.3", "88.3±0.3", "0.006", "-2.4"),
    "dodrans": ("88.7±0.3", "88.1±0.3", "0.023", "-1.8"),
    "entropy": ("88.6±0.3", "88.0±0.3", "0.023", "-1.8"),
    "macro": ("82.7±0.4", "87.8±0.5", "7·10^-8", "11.5"),
}


def _check(table: dict, key: str):  # noqa: ANN202
    other, ptr, p, d = table[key]
    return check_stats(ptr, other, 5, claimed_p=p, claimed_d=d)


def _brute_force(a: str, b: str, n: int, factor: float) -> tuple[float, float, float, float]:
    """Independent: p and d over a 4-d grid of the rounding box with scipy's ttest_ind_from_stats."""
    (ma, sa), (mb, sb) = [tuple(float(x) for x in s.split("±")) for s in (a, b)]
    ms_a, ms_b = np.linspace(ma - 0.05, ma + 0.05, 5), np.linspace(mb - 0.05, mb + 0.05, 5)
    ss_a, ss_b = np.linspace(sa - 0.05, sa + 0.05, 81) * factor, np.linspace(sb - 0.05, sb + 0.05, 81) * factor
    ps, ds = [], []
    for x, y in itertools.product(ms_a, ms_b):
        s1, s2 = np.meshgrid(ss_a, ss_b, indexing="ij")
        ps.append(stats.ttest_ind_from_stats(x, s1, n, y, s2, n, equal_var=False).pvalue)
        ds.append(math.sqrt(2) * (x - y) / np.sqrt(s1**2 + s2**2))
    return (
        min(np.min(p) for p in ps),
        max(np.max(p) for p in ps),
        min(np.min(d) for d in ds),
        max(np.max(d) for d in ds),
    )


def test_tacred_weighted_sample_reading_intervals() -> None:
    r = _check(TABLE3, "weighted").readings["sample"]
    assert (round(r.d.low, 2), round(r.d.high, 2)) == (8.36, 10.92)
    assert r.p.low == pytest.approx(2.25e-7, rel=5e-3)
    assert r.p.high == pytest.approx(2.45e-6, rel=5e-3)


@pytest.mark.parametrize(("table", "key"), [(TABLE3, k) for k in TABLE3] + [(TABLE4, k) for k in TABLE4])
def test_intervals_match_independent_grid(table: dict, key: str) -> None:
    other, ptr, _, _ = table[key]
    check = _check(table, key)
    for reading, factor in (("sample", 1.0), ("population", math.sqrt(5 / 4))):
        p_lo, p_hi, d_lo, d_hi = _brute_force(ptr, other, 5, factor)
        r = check.readings[reading]
        # the optimiser may find slightly more extreme values than a grid, never less extreme ones
        assert r.p.low <= p_lo * (1 + 1e-9) and r.p.low == pytest.approx(p_lo, rel=2e-2)
        assert r.p.high >= p_hi * (1 - 1e-9) and r.p.high == pytest.approx(p_hi, rel=2e-2)
        assert r.d.low == pytest.approx(d_lo, rel=1e-9)
        assert r.d.high == pytest.approx(d_hi, rel=1e-9)


def test_p_extremes_need_not_lie_at_corners() -> None:
    # 5.2±0.2 vs 0.0±0.3, n = 5: the smallest p lies inside the SD box (smaller SDs raise t but lower the
    # Welch–Satterthwaite df), so checking the 16 corners alone would miss it.
    check = check_stats("5.2±0.2", "0.0±0.3", 5).readings["sample"]
    corners = [
        stats.ttest_ind_from_stats(5.25, s1, 5, -0.05, s2, 5, equal_var=False).pvalue
        for s1 in (0.15, 0.25)
        for s2 in (0.25, 0.35)
    ]
    p_lo, _, _, _ = _brute_force("5.2±0.2", "0.0±0.3", 5, 1.0)
    assert p_lo < 0.85 * min(corners)
    assert check.p.low <= p_lo * (1 + 1e-9)
    assert check.p.low == pytest.approx(5.5256e-10, rel=1e-3)


def test_all_ten_published_d_consistent() -> None:
    for table in (TABLE3, TABLE4):
        for key in table:
            check = _check(table, key)
            assert check.d_consistent is True, key
            assert check.readings["sample"].d_consistent is True, key


def test_made_up_claim_is_flagged() -> None:
    check = check_stats("72.5±0.3", "71.5±0.4", 5, claimed_d="5.0")
    assert check.d_consistent is False
    assert check.readings["sample"].d.high < 4.95


def test_published_p_values_findings() -> None:
    weighted = _check(TABLE3, "weighted")
    assert weighted.readings["sample"].p_consistent is False
    assert weighted.readings["population"].p_consistent is True
    macro = _check(TABLE3, "macro")
    assert macro.p_consistent is False  # 2·10^-10 rounds from [1.5e-10, 2.5e-10]; the box gives ≥ 2.9e-10
    assert macro.readings["sample"].p.low == pytest.approx(2.92e-10, rel=1e-2)
    checks = {(i, k): _check(t, k) for i, t in ((3, TABLE3), (4, TABLE4)) for k in t}
    assert [key for key, c in checks.items() if not c.p_consistent] == [(3, "macro")]
    assert [key for key, c in checks.items() if not c.readings["sample"].p_consistent] == [
        (3, "weighted"),
        (3, "macro"),
    ]


def test_parsing() -> None:
    p = parse_number("3·10^-3")
    assert (p.low, p.high) == pytest.approx((2.5e-3, 3.5e-3))
    assert (parse_number("10^-8").low, parse_number("10^-8").high) == pytest.approx((0.5e-8, 1.5e-8))
    assert (parse_number("0.023").low, parse_number("0.023").high) == pytest.approx((0.0225, 0.0235))
    assert parse_number("< 0.001").low == 0.0
    for beyond in ("1e400", "-1e999", "10^400", "2·10^309"):  # inf (and inf − inf = NaN) never reach a check
        with pytest.raises(ValueError, match="beyond the range of a double"):
            parse_number(beyond)
    mean, sd = parse_mean_sd("71.7 +/- 0.25")
    assert (mean.value, mean.half, sd.value, sd.half) == pytest.approx((71.7, 0.05, 0.25, 0.005))
    with pytest.raises(InputError, match="MEAN±SD"):
        check_stats("71.7", "70±1", 5)


def test_cli_single(capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["check-stats", "--a", "72.5±0.3", "--b", "71.5±0.4", "--claimed-d", "5.0", "--format", "json"])
    assert rc == 1
    out = json.loads(capsys.readouterr().out)
    assert out[0]["d_consistent"] is False
    by_hand = [math.sqrt(2) * 0.9 / math.hypot(0.35, 0.45), math.sqrt(2) * 1.1 / math.hypot(0.25, 0.35)]
    assert out[0]["readings"]["sample"]["d"] == pytest.approx(by_hand, rel=1e-9)


def test_cli_table_csv(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: ANN001
    csv_file = tmp_path / "t.csv"
    rows = ["name,a,b,n,claimed_p,claimed_d"]
    rows += [f"TACRED {k},{v[1]},{v[0]},5,{v[2]},{v[3]}" for k, v in TABLE3.items()]
    csv_file.write_text("\n".join(rows) + "\n", encoding="utf-8")
    out_file = tmp_path / "out.json"
    rc = main(["check-stats", "--table", str(csv_file), "--format", "json", "--output", str(out_file)])
    assert rc == 1  # the macro p is inconsistent
    data = json.loads(out_file.read_text())
    assert [r["d_consistent"] for r in data] == [True] * 5
    assert [r["p_consistent"] for r in data] == [True, True, True, True, False]


def test_cli_table_bad_row(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: ANN001
    bad = tmp_path / "bad.csv"
    bad.write_text("name,a,b\nx,72.5±0.3,oops\n", encoding="utf-8")
    out = tmp_path / "out.txt"
    rc = main(["check-stats", "--table", str(bad), "--output", str(out)])
    assert rc == 2
    err = capsys.readouterr().err
    assert "bad.csv:2" in err and "'b'" in err
    assert not out.exists()
