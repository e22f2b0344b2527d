"""The board in a real browser: Debian's Chromium (never a downloaded one), driven by Playwright, against a real
`releval serve` on SQLite (what the pages show is queried on PostgreSQL too, by the API's tests). A benchmark made
with `releval benchmark`, a submission through the web form, the board sorted by clicking its headers, an entry's
page with its per-class table and figure, a refused submission that stores nothing, and the bundled SemEval-2010
Task 8 systems on their board.

Every expected F below is computed by hand from the small gold and prediction files this module writes.
Screenshots are kept in $RELEVAL_TEST_ARTIFACTS (default: the test's tmp_path). Skipped, with the reason, where
Chromium ($RELEVAL_CHROMIUM, default /usr/bin/chromium) or Playwright is missing."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.service.boards import SQLITE_ONLY, Board, open_benchmark, releval, running_board

CHROMIUM = os.environ.get("RELEVAL_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
TIMEOUT_MS = 20_000

ORG, PER, NEG = "org:founded", "per:title", "no_relation"
IDS = [f"s{i:02d}" for i in range(40)]
#: 10 org:founded, 10 per:title, 20 of the negative class (detected automatically: no_relation).
GOLD = [ORG] * 10 + [PER] * 10 + [NEG] * 20


def _good() -> list[str]:
    """org:founded: 8 right, 2 missed; per:title: 6 right, 4 missed; 4 negatives called positive.

    org:founded predicted 11 times (8 right), per:title 10 times (6 right): micro P = 14/21, R = 14/20,
    F = 28/41; per class F(org:founded) = 16/21, F(per:title) = 12/20; macro = (16/21 + 12/20) / 2."""
    pred = list(GOLD)
    pred[8], pred[9] = PER, NEG
    pred[16], pred[17], pred[18], pred[19] = ORG, ORG, NEG, NEG
    pred[36], pred[37], pred[38], pred[39] = ORG, PER, PER, PER
    return pred


def _mid() -> list[str]:
    """Every org:founded right, no per:title: micro 10/10 precise, 10/20 recalled, F = 20/30; macro (1 + 0) / 2."""
    return [ORG] * 10 + [NEG] * 30


def _weak() -> list[str]:
    """5 org:founded right, 4 per:title right, one negative called org:founded: micro F = 18/30;
    F(org:founded) = 10/16 (5 of 6 predicted, 5 of 10 gold), F(per:title) = 8/14 (4 of 4, 4 of 10)."""
    pred = [NEG] * 40
    pred[0:5] = [ORG] * 5
    pred[10:14] = [PER] * 4
    pred[20] = ORG
    return pred


EXPECTED = {  # entry -> (micro F, macro F), by hand
    "alpha-good": (28 / 41, (16 / 21 + 12 / 20) / 2),
    "gamma-mid": (20 / 30, (1 + 0) / 2),
    "beta-weak": (18 / 30, (10 / 16 + 8 / 14) / 2),
}

#: The bundled SemEval-2010 Task 8 systems (src/releval/service/bundled.py) and their micro F (%), as README.md
#: shows them for `releval score` on the same files.
SEMEVAL_MICRO = {
    "CNN (Zeng et al. 2014)": "80.05",
    "CR-CNN (dos Santos et al. 2015)": "84.19",
    "Att-CNN (Shen and Huang 2016)": "82.52",
    "Att-BLSTM (Zhou et al. 2016)": "83.76",
    "R-BERT (Wu and He 2019)": "89.48",
}


def write_tsv(path: Path, labels: list[str]) -> Path:
    path.write_text("".join(f"{i}\t{label}\n" for i, label in zip(IDS, labels)), encoding="utf-8")
    return path


def write_jsonl(path: Path, labels: list[str]) -> Path:
    path.write_text("".join(json.dumps({"id": i, "label": lab}) + "\n" for i, lab in zip(IDS, labels)), "utf-8")
    return path


def pct(x: float) -> str:
    return f"{100 * x:.2f}"


# ---------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not Path(CHROMIUM).is_file():
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium, or set RELEVAL_CHROMIUM)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as exc:
        pytest.skip(f"playwright is not importable ({exc}): pip install -e '.[test]'")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def artifacts(tmp_path: Path) -> Path:
    root = os.environ.get("RELEVAL_TEST_ARTIFACTS")
    folder = Path(root) if root else tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh browser context's page; an uncaught exception in the pages' scripts fails the test."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    context.set_default_timeout(TIMEOUT_MS)
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        yield pg
    finally:
        context.close()
    assert not errors, f"script errors in the pages: {errors}"


@pytest.fixture
def shoot(page: Any, artifacts: Path, request: pytest.FixtureRequest) -> Callable[[str], None]:
    """shoot("what"): a full-page screenshot, named after the test and numbered in the order taken."""
    test = re.sub(r"[^\w.-]+", "_", request.node.name).strip("_")
    taken = iter(range(1, 100))

    def take(what: str) -> None:
        page.screenshot(path=str(artifacts / f"{test}-{next(taken):02d}-{what}.png"), full_page=True)

    return take


# ---------------------------------------------------------------- helpers


def column(page: Any, col: int) -> list[str]:
    """The data-v of one column of table#board, rows in DOM order."""
    return page.eval_on_selector_all("table#board tbody tr", f"rows => rows.map(r => r.cells[{col}].dataset.v)")


def entries(page: Any) -> list[str]:
    """The entry names of table#board, rows in DOM order."""
    return column(page, header_index(page, "entry"))


def header_index(page: Any, label: str) -> int:
    return int(page.locator("table#board th[data-col]", has_text=re.compile(f"^{label}$")).get_attribute("data-col"))


def click_header(page: Any, label: str) -> None:
    page.locator("table#board th[data-col]", has_text=re.compile(f"^{label}$")).click()


def make_benchmark(board: Board, tmp_path: Path, slug: str) -> None:
    gold = write_tsv(tmp_path / "gold.tsv", GOLD)
    done = releval("benchmark", slug, str(gold), "--title", "Toy board", "--resamples", "200", env=board.env)
    open_benchmark(board, slug)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"benchmark {slug}: 40 items, measures micro,"), done.stdout


def form_submit(page: Any, entry: str, pred: Path, token: str) -> int:
    """Fill and send the submission form on the current page; the status of the answer."""
    page.fill("input[name=entry]", entry)
    page.select_option("select[name=selection]", "dev")
    page.set_input_files("input[name=file]", str(pred))
    page.fill("input[name=token]", token)
    with page.expect_navigation() as nav:
        page.click("form button[type=submit]")
    return int(nav.value.status)


# ---------------------------------------------------------------- tests


@pytest.mark.parametrize("backend", SQLITE_ONLY)
def test_submit_sort_entry_and_refusal(backend: str, tmp_path: Path, page: Any, shoot: Callable[[str], None]) -> None:
    slug = "toy"
    with running_board(backend, tmp_path) as board:
        # (a) a benchmark through the web form (admins), then its page; a wrong token first: refused, not created
        gold = write_tsv(tmp_path / "gold.tsv", GOLD)
        page.goto(board.url + "/")
        page.click("a[href='/benchmarks/new']")
        for token, status in (("rlv_wrong", 401), (board.admin, 200)):
            page.fill("input[name=slug]", slug)
            page.fill("input[name=title]", "Toy board")
            page.fill("input[name=resamples]", "200")
            page.check("input[name=open]")  # labels public: the per-class table below is shown
            page.set_input_files("input[name=file]", str(gold))
            page.fill("input[name=token]", token)
            with page.expect_navigation() as nav:
                page.click("form button[type=submit]")
            assert int(nav.value.status) == status
        assert page.locator("#created").inner_text() == "Benchmark Toy board created: 40 items."
        shoot("benchmark-created")
        page.click(f"#created a[href='/b/{slug}/']")
        assert page.locator("h1").inner_text() == "Toy board"
        assert "40 test items, 3 labels" in page.locator("p.note", has_text="test items").inner_text()
        assert page.locator("table#board tbody tr").count() == 0
        shoot("empty-board")

        # two entries through the API first, so that the board's own order is not the sorted one
        for entry, labels in (("beta-weak", _weak()), ("gamma-mid", _mid())):
            status, out = board.submit(
                slug, entry, write_jsonl(tmp_path / f"{entry}.jsonl", labels).read_bytes(), "p.jsonl"
            )
            assert status == 201, out

        # (b) the third through the web form
        page.click(f"a[href='/b/{slug}/submit']")
        assert page.url == f"{board.url}/b/{slug}/submit"
        assert form_submit(page, "alpha-good", write_jsonl(tmp_path / "good.jsonl", _good()), board.admin) == 200
        submitted = page.locator("#submitted")
        assert re.fullmatch(
            r"Stored run \d+ of alpha-good \(seed 1\); it is being scored\. Back to the board\.", submitted.inner_text()
        ), submitted.inner_text()
        assert page.locator("#error").count() == 0
        shoot("submitted")

        # (c) once scored, the new row on the board, with the F computed by hand
        board.wait_idle()
        submitted.get_by_role("link", name="Back to the board").click()
        page.wait_for_url(f"{board.url}/b/{slug}/")
        assert page.locator("#pending").count() == 0
        micro, macro = header_index(page, "micro"), header_index(page, "macro")
        # rows in rank order under the first measure (micro), whatever the order of submission
        assert entries(page) == sorted(EXPECTED, key=lambda entry: -EXPECTED[entry][0])
        assert column(page, header_index(page, "seeds")) == ["1", "1", "1"]
        for entry, (f_micro, f_macro) in EXPECTED.items():
            row = page.locator(f"table#board tbody tr:has(td[data-v='{entry}'])")
            cells = row.locator("td")
            assert float(cells.nth(micro).get_attribute("data-v")) == pytest.approx(f_micro, abs=1e-12), entry
            assert float(cells.nth(macro).get_attribute("data-v")) == pytest.approx(f_macro, abs=1e-12), entry
            assert cells.nth(micro).inner_text().startswith(pct(f_micro)), (entry, cells.nth(micro).inner_text())
            assert cells.nth(macro).inner_text().startswith(pct(f_macro)), (entry, cells.nth(macro).inner_text())
        good = page.locator("table#board tbody tr:has(td[data-v='alpha-good'])")
        assert "best" in good.locator("td").nth(micro).get_attribute("class").split()
        assert "selection-undeclared" not in good.inner_text()  # declared "dev" in the form
        shoot("board")

        # (d) sorting by clicking the headers: descending first, ascending on the second click
        click_header(page, "micro")
        assert entries(page) == ["alpha-good", "gamma-mid", "beta-weak"]
        values = [float(v) for v in column(page, micro)]
        assert values == sorted(values, reverse=True)
        assert page.locator("table#board th.sorted-desc").inner_text() == "micro"
        click_header(page, "micro")
        assert entries(page) == ["beta-weak", "gamma-mid", "alpha-good"]
        assert page.locator("table#board th.sorted-asc").inner_text() == "micro"
        click_header(page, "macro")  # another order: beta-weak's macro F is above gamma-mid's
        assert entries(page) == ["alpha-good", "beta-weak", "gamma-mid"]
        click_header(page, "entry")  # text, descending
        assert entries(page) == ["gamma-mid", "beta-weak", "alpha-good"]
        assert page.locator("table#board th.sorted-desc").count() == 1
        shoot("sorted-by-entry")

        # (e) the entry's page: runs, per-class table, figure
        page.locator("table#board a", has_text="alpha-good").click()
        page.wait_for_url(re.compile(re.escape(f"{board.url}/b/{slug}/entry/") + r"\d+/$"))
        assert page.locator("h1").inner_text() == "alpha-good"
        per_class = {
            r[0]: r[1:]
            for r in page.eval_on_selector_all(
                "table#per-class tbody tr", "rows => rows.map(r => Array.from(r.cells, c => c.innerText.trim()))"
            )
        }
        assert per_class[ORG] == [pct(8 / 11), pct(8 / 10), pct(16 / 21), "10"]
        assert per_class[PER] == [pct(6 / 10), pct(6 / 10), pct(12 / 20), "10"]
        runs_text = page.locator("table#runs tbody").inner_text()
        assert pct(EXPECTED["alpha-good"][0]) in runs_text and "scored" in runs_text
        figure = page.locator("img#figure")
        figure.scroll_into_view_if_needed()
        page.wait_for_function("() => Array.from(document.images).every(i => i.complete)")
        assert figure.evaluate("img => img.naturalWidth") > 0
        assert figure.evaluate("img => img.naturalHeight") > 0
        broken = page.eval_on_selector_all("img", "imgs => imgs.filter(i => !(i.naturalWidth > 0)).map(i => i.src)")
        assert broken == [], "images that did not load on the entry page"
        shoot("entry")

        # (f) a wrong token: the error on the form, nothing stored
        before = board.json(f"/b/{slug}/board.json")["rows"]
        page.goto(f"{board.url}/b/{slug}/submit")
        assert form_submit(page, "delta-refused", tmp_path / "good.jsonl", "rlv_not-a-token") == 401
        assert page.locator("#error").inner_text() == "unknown token"
        assert page.locator("#submitted").count() == 0
        assert page.locator("input[name=entry]").input_value() == "delta-refused"  # the form keeps what was typed
        shoot("refused")
        board.wait_idle()
        assert board.json(f"/b/{slug}/board.json")["rows"] == before
        assert board.json("/api/v1/queue")["by_kind"]["score-run"]["done"] == 3
        page.goto(f"{board.url}/b/{slug}/")
        assert entries(page) == ["alpha-good", "gamma-mid", "beta-weak"]  # rank order, as before the refusal


@pytest.mark.parametrize("backend", SQLITE_ONLY)
def test_bundled_semeval_systems(backend: str, tmp_path: Path, page: Any, shoot: Callable[[str], None]) -> None:
    with running_board(backend, tmp_path, examples=True) as board:
        board.wait_idle()
        page.goto(board.url + "/")
        link = page.locator("#benchmarks a[href='/b/semeval2010-task8/']")
        assert link.inner_text() == "SemEval-2010 Task 8 (directed, 19 labels)"
        link.click()
        page.wait_for_url(board.url + "/b/semeval2010-task8/")
        assert "2717 test items, 19 labels" in page.locator("p.note", has_text="test items").inner_text()
        assert page.locator("#pending").count() == 0
        micro = header_index(page, "micro")
        names = entries(page)
        assert sorted(names) == sorted(SEMEVAL_MICRO)
        shown = page.eval_on_selector_all(
            "table#board tbody tr", f"rows => rows.map(r => r.cells[{micro}].childNodes[0].textContent)"
        )
        assert {n: s.split()[0] for n, s in zip(names, shown)} == SEMEVAL_MICRO
        shoot("semeval-board")
        click_header(page, "micro")
        assert entries(page) == sorted(SEMEVAL_MICRO, key=lambda n: float(SEMEVAL_MICRO[n]), reverse=True)
        first = page.locator("table#board tbody tr").first.locator("td").nth(micro)
        assert "best" in first.get_attribute("class").split()
        shoot("semeval-sorted")

        # the bundled CoNLL04 benchmark's statistics line, counted here from the bundled split file
        split_file = Path(__file__).resolve().parents[2] / "examples" / "conll04" / "conll04_sincere_all_splits.json"
        test = json.loads(split_file.read_bytes())["test"]
        entity_types = sorted({e["type"] for doc in test for e in doc["entities"]})
        relation_types = sorted({r["type"] for doc in test for r in doc["relations"]})
        page.goto(board.url + "/b/conll04/")
        line = page.locator("#statistics").inner_text()
        assert line.startswith(
            f"{len(test)} test sentences, {sum(len(d['tokens']) for d in test)} tokens, "
            f"{sum(len(d['entities']) for d in test)} entities of {len(entity_types)} types ("
        ), line
        assert f"{sum(len(d['relations']) for d in test)} relations of {len(relation_types)} types (" in line, line
        n_live_in = sum(r["type"] == "Live_In" for d in test for r in d["relations"])
        assert f"Live_In {n_live_in}" in line and n_live_in > 0, line
        page.goto(board.url + "/b/semeval2010-task8/")

        # readable at 390 px (a phone) as at 1,400 px: the page never scrolls sideways, the table scrolls in its box
        entry = page.locator("table#board a", has_text="R-BERT").get_attribute("href")
        for path in ("/b/semeval2010-task8/", entry):
            for width in (1400, 390):
                page.set_viewport_size({"width": width, "height": 900})
                page.goto(board.url + path)
                page.wait_for_function("() => Array.from(document.images).every(i => i.complete)")
                shoot(f"{'board' if path.endswith('task8/') else 'entry'}-{width}px")
                scroll = page.evaluate("() => document.documentElement.scrollWidth")
                assert scroll <= width, (path, width, scroll)
            if path.endswith("task8/"):  # the table is wider than the phone: it scrolls inside its box
                box = page.evaluate(
                    "() => [document.getElementById('board-box').clientWidth, "
                    "document.getElementById('board').scrollWidth]"
                )
                assert box[0] <= 390 < box[1], box


def test_benchmark_statistics_line(tmp_path: Path, page: Any, shoot: Callable[[str], None]) -> None:
    """The line under the title: 20 of 40 items negative (no_relation), 20/10/10 items: perplexity 2^1.5 with the
    negative class, 2 without it, imbalance ratio 10/10."""
    with running_board("sqlite", tmp_path) as board:
        make_benchmark(board, tmp_path, "toy")
        page.goto(f"{board.url}/b/toy/")
        shoot("statistics")
        line = page.locator("p.note", has_text="test items").inner_text()
        assert line.startswith("40 test items, 3 labels (50.0 % negative"), line
        assert "“no_relation”" in line, line
        assert "(2.00 without the negative class)" in line, line


def test_a_wide_board_keeps_rank_and_names_in_view(tmp_path: Path, page: Any, shoot: Callable[[str], None]) -> None:
    """Issue 34 item 7: at 1,400 px a board of 7 measures is wider than its box; the rank column was its last, out of
    view, and scrolling to the measures on the right hid the entry names. Now the rank is the first column, and the
    rank and entry name stay at the left edge of the box however far it is scrolled (position: sticky)."""
    with running_board("sqlite", tmp_path) as board:
        make_benchmark(board, tmp_path, "wide")
        for measure in ("power:0.5", "power:2"):
            body = json.dumps({"name": measure}).encode()
            status, out, _ = board.request("POST", "/api/v1/benchmarks/wide/measures", body, token=board.admin)
            assert status == 201, out
        names = {"a-rather-long-entry-name-for-a-model": _good(), "another-model-with-a-long-name": _mid()}
        for entry, labels in names.items():
            data = write_jsonl(tmp_path / f"{entry}.jsonl", labels).read_bytes()
            status, out = board.submit("wide", entry, data, "p.jsonl", paper_url="https://example.org/" + "p" * 60)
            assert status == 201, out
        board.wait_idle()
        page.set_viewport_size({"width": 1400, "height": 900})
        page.goto(f"{board.url}/b/wide/")
        assert len(board.json("/api/v1/benchmarks/wide/board")["measures"]) == 7
        heads = page.eval_on_selector_all("table#board thead th", "ths => ths.map(t => t.innerText.trim())")
        assert heads[:3] == ["rank", "entry", "seeds"] and heads[-1] == "flags", heads
        box = page.evaluate(
            "() => { const b = document.getElementById('board-box').getBoundingClientRect();"
            " return [b.left, b.right, document.getElementById('board-box').scrollWidth]; }"
        )
        wide = box[2] > box[1] - box[0]
        assert wide, box  # the table is wider than its box at 1,400 px: it scrolls
        shoot("wide-board-1400px")

        def left_cells() -> list[tuple[float, float]]:
            return page.eval_on_selector_all(
                "table#board tbody tr:first-child td",
                "tds => tds.slice(0, 2).map(td => { const r = td.getBoundingClientRect(); return [r.left, r.right]; })",
            )

        rank, entry = left_cells()
        assert box[0] <= rank[0] and rank[1] <= entry[0] + 1 and entry[1] <= box[1], (box, rank, entry)
        page.evaluate("() => { const b = document.getElementById('board-box'); b.scrollLeft = b.scrollWidth; }")
        shoot("wide-board-scrolled")
        rank_after, entry_after = left_cells()
        # scrolled to its right end, the box still shows the rank and the entry name at its left edge
        assert rank_after == pytest.approx(rank, abs=1) and entry_after == pytest.approx(entry, abs=1), (
            wide,
            rank_after,
            entry_after,
        )
        assert page.evaluate("() => document.getElementById('board-box').scrollLeft") > 0 or not wide
        first_row = page.locator("table#board tbody tr").first
        assert first_row.locator("td.entry").inner_text() == "a-rather-long-entry-name-for-a-model"
        assert first_row.locator("td.rank").inner_text().startswith("1")


@pytest.mark.parametrize("backend", SQLITE_ONLY)
def test_measures_page_at_desktop_and_phone_widths(
    backend: str, tmp_path: Path, page: Any, shoot: Callable[[str], None]
) -> None:
    """Issue 33 item 3: the evaluation of a benchmark's measures, reached from the board page, at 1,400 px and at
    390 px: the page never scrolls sideways (wide tables scroll inside their box), and the tables and the figure are
    visible, the figure loaded. Its τ between micro and macro is SciPy's over the entries' values on the board."""
    from scipy.stats import kendalltau

    with running_board(backend, tmp_path) as board:
        make_benchmark(board, tmp_path, "toy")
        for entry, labels in (("alpha-good", _good()), ("gamma-mid", _mid()), ("beta-weak", _weak())):
            data = write_jsonl(tmp_path / f"{entry}.jsonl", labels).read_bytes()
            status, out = board.submit("toy", entry, data, "p.jsonl")
            assert status == 201, out
        board.wait_idle()
        page.goto(f"{board.url}/b/toy/")
        page.click("a#measures-link")
        page.wait_for_url(f"{board.url}/b/toy/measures")
        assert page.locator("h1").inner_text() == "The measures of Toy board"
        measures = ["micro", "weighted", "dodrans", "entropy", "macro"]
        assert page.eval_on_selector_all("table#power tbody tr", "rows => rows.map(r => r.cells[0].innerText)") == (
            measures
        )
        # τ-b of micro and macro over the three entries, from the F computed by hand (EXPECTED)
        names = list(EXPECTED)
        tau = kendalltau([EXPECTED[n][0] for n in names], [EXPECTED[n][1] for n in names]).statistic
        row = page.locator("table#agreement tbody tr", has=page.locator("td:text-is('macro')")).filter(
            has=page.locator("td:text-is('micro')")
        )
        assert float(row.locator("td").nth(2).get_attribute("data-v")) == pytest.approx(tau, abs=1e-12)
        for width in (1400, 390):
            page.set_viewport_size({"width": width, "height": 900})
            page.goto(f"{board.url}/b/toy/measures")
            page.wait_for_function("() => Array.from(document.images).every(i => i.complete)")
            shoot(f"measures-{width}px")
            scroll = page.evaluate("() => document.documentElement.scrollWidth")
            assert scroll <= width, (width, scroll)
            for selector in ("table#power", "table#agreement", "img#measures-figure"):
                element = page.locator(selector)
                element.scroll_into_view_if_needed()
                assert element.is_visible(), (width, selector)
                box = element.bounding_box()
                assert box is not None and box["width"] > 0 and box["height"] > 0, (width, selector)
            figure = page.locator("img#measures-figure")
            assert figure.evaluate("img => img.naturalWidth") > 0, width
            assert figure.bounding_box()["width"] <= width, width  # scaled to the screen (max-width: 100%)
