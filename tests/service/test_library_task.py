"""Any task of the library's registry is a board benchmark through the Task protocol alone (issue 23: "a toy task
registered inside a test runs through score, compare, stats and a board benchmark with no other file changed").

The toy task (tests/toy_task.py) is known to no file of releval: the board's processes get it from
`RELEVAL_TASKS=toy=toy_task:TASK`. Its cells must be the numbers `releval compare --task toy` prints for the same
files (value by hand; interval and paired p-value from the command, run in another process), its statistics those
of `releval stats --task toy`, and an upload the task refuses must be refused with the upload's name.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.service.boards import BACKENDS, SQLITE_ONLY, open_benchmark, releval, running_board

TESTS = Path(__file__).resolve().parents[1]
GOLD = "a b c d e f g h i j\n"
A = "a b c d e f g h x x\n"  # 8 of 10 tokens right
B = "a b c d e f y y y y\n"  # 6 of 10


@pytest.mark.parametrize("backend", SQLITE_ONLY)
def test_a_toy_task_from_the_environment_is_a_board_benchmark(backend: str, tmp_path: Path) -> None:
    env_extra = {"RELEVAL_TASKS": "toy=toy_task:TASK", "PYTHONPATH": str(TESTS)}
    gold, a, b = tmp_path / "gold.txt", tmp_path / "a.txt", tmp_path / "b.txt"
    gold.write_text(GOLD)
    a.write_text(A)
    b.write_text(B)
    with running_board(backend, tmp_path, **env_extra) as board:
        done = releval("benchmark", "toy-words", str(gold), "--task", "toy", "--resamples", "200", env=board.env)
        assert done.returncode == 0, done.stderr
        open_benchmark(board, "toy-words")
        info = board.json("/api/v1/benchmarks/toy-words")
        assert info["task"] == "toy" and info["measures"] == ["micro", "weighted", "dodrans", "entropy", "macro"]
        assert info["stats"] == {"lines": 10, "distinct": 10}  # what `releval stats --task toy` prints (below)

        bob = board.token("bob")
        runs = {}
        for name, text in (("a", A), ("b", B)):
            status, out = board.submit("toy-words", name, text.encode(), f"{name}.txt", token=bob)
            assert status == 201, out
            runs[name] = out["run"]
        board.wait_idle()
        cells = {name: board.json(f"/api/v1/runs/{run}")["cells"]["micro"] for name, run in runs.items()}
        assert all(board.json(f"/api/v1/runs/{run}")["status"] == "scored" for run in runs.values())
        assert cells["a"]["value"] == pytest.approx(0.8, abs=1e-15)  # by hand: 8 of 10
        assert cells["b"]["value"] == pytest.approx(0.6, abs=1e-15)

        # the interval is system A's of `releval compare --task toy` with the board's resamples and seed
        for name, path in (("a", a), ("b", b)):
            done = releval(
                "compare", str(gold), "-s", f"x={path}", "-s", f"y={path}", "--task", "toy", "-R", "200",
                "--seed", "12345", "--test", "bootstrap", "-f", "json", env=board.env,
            )  # fmt: skip
            assert done.returncode == 0, done.stderr
            row = next(r for r in json.loads(done.stdout)["results"][0]["pairs"] if r["metric"] == "micro")
            assert cells[name]["ci"] == row["ci_a"]

        # the tie groups (paired tests of the two runs through the task's compare) are complete
        assert all(board.json("/b/toy-words/board.json")["ties_current"].values())

        # the pages: the board and each entry's page show the toy's runs; the class weights figure needs gold's
        # labels, which a library task does not give the board: a 404 that says so (never a 500)
        rows = {r["name"]: r for r in board.json("/b/toy-words/board.json")["rows"]}
        assert {n: r["cells"]["micro"]["rank"] for n, r in rows.items()} == {"a": 1, "b": 2}
        assert board.request("GET", "/b/toy-words/")[0] == 200
        assert board.request("GET", f"/b/toy-words/entry/{rows['a']['entry']}")[0] == 200
        status, body, _ = board.request("GET", "/b/toy-words/weights.svg")
        assert status == 404 and b"has no class weights figure" in body

        stats = releval("stats", str(gold), "--task", "toy", "-f", "json", env=board.env)
        assert json.loads(stats.stdout) == info["stats"]

        # an upload the task refuses (a token short) is refused with the upload's name and the task's reason
        status, out = board.submit("toy-words", "c", b"a b c\n", "c.txt", token=bob)
        assert status == 400 and out["error"].startswith("c.txt: 3 tokens; gold has 10"), out
        assert "releval-board-" not in out["error"]


#: A bundled gold file and two systems' predictions per task of the registry that the board drives through the
#: Task protocol (every task with a comparison except those that keep the board's own storage). A task added
#: to the registry without an entry here fails `test_every_library_task_has_a_board_example`.
EXAMPLES_DIR = TESTS.parent / "examples"
BOARD_EXAMPLES: dict[str, tuple[str, ...]] = {
    "fewrel": ("fewrel/gold-5-1.json.gz", "fewrel/pred-bow-5-1.json", "fewrel/pred-between-5-1.json"),
    "chemprot-blue": ("chemprot/blue_gold.tsv", "chemprot/blue_sys_a.tsv"),
    "ranked": ("ranked/gold.jsonl", "ranked/pcnn.jsonl", "ranked/cnn.tsv"),
    "docred": ("docred/redocred_dev_first40.json.gz", "docred/system_a.json.gz", "docred/system_b.json.gz"),
    "chemprot-scibert": ("chemprot/scibert_test_head.txt", "chemprot/scibert_sys_a.txt", "chemprot/scibert_sys_b.txt"),
    # gold of three files (relations, entities, PMID list): the board stores its folder (releval.data.parts)
    "drugprot": ("drugprot/gs-data", "drugprot/toy-data/pred_relations.tsv"),
}
#: Settings of a task's benchmark (`--setting KEY=VALUE`), given to `releval compare` as `--KEY VALUE`: the ranked
#: example has duplicated predictions, which OpenNRE counts each time (releval refuses them by default).
BOARD_SETTINGS: dict[str, dict[str, str]] = {"ranked": {"duplicates": "count"}}
#: Tasks whose gold is more than one file (`Task.gold_parts`), given one of its files alone: refused, naming the
#: part that is missing.
PART_MISSING = {"drugprot": ("drugprot/gs-data/gs_relations.tsv", "no entities file")}


def _bags(path: Path) -> int:
    """The entity pairs (bags) of an OpenNRE gold file, counted here."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return len({(r["h"]["id"], r["t"]["id"]) for r in rows})


#: What each example's statistics line counts (its page: "N test UNITS."): the task's resampling units where they
#: are counted, else its items — known from the files: the first 40 Re-DocRED documents, 50 FewRel episodes, the
#: ranked example's entity pairs, the lines of the ChemProt files (BLUE's after its header), DrugProt's 466
#: candidate pairs (its official toy data).
COUNTED = {
    "docred": (40, "documents"),
    "fewrel": (50, "episodes"),
    "ranked": (_bags(EXAMPLES_DIR / "ranked" / "gold.jsonl"), "bags"),
    "chemprot-blue": (len((EXAMPLES_DIR / "chemprot" / "blue_gold.tsv").read_text().splitlines()) - 1, "items"),
    "chemprot-scibert": (len((EXAMPLES_DIR / "chemprot" / "scibert_test_head.txt").read_text().splitlines()), "items"),
    "drugprot": (466, "items"),
}


def test_every_library_task_has_a_board_example() -> None:
    """The tasks the board drives through the Task protocol, as the board's task registry gives them (every task
    with a comparison but those with the board's own storage)."""
    from releval.registry import TASKS, get_task
    from releval.service.board_tasks import board_tasks
    from releval.service.library_task import LibraryTask

    library = {name for name, task in board_tasks().items() if isinstance(task, LibraryTask)}
    assert library == set(BOARD_EXAMPLES)
    assert {name for name in TASKS if get_task(name).gold_parts is not None} == set(PART_MISSING)


def test_each_library_task_is_a_board_benchmark_with_the_numbers_of_compare(tmp_path: Path) -> None:
    from releval.registry import get_task

    with running_board("sqlite", tmp_path) as board:
        bob = board.token("bob")
        expected = {}
        for task, (gold, *systems) in BOARD_EXAMPLES.items():
            slug = f"lib-{task}"
            settings = BOARD_SETTINGS.get(task, {})
            given = [arg for key, value in settings.items() for arg in ("--setting", f"{key}={value}")]
            options = [arg for key, value in settings.items() for arg in (f"--{key.replace('_', '-')}", value)]
            done = releval(
                "benchmark", slug, str(EXAMPLES_DIR / gold), "--task", task, "--resamples", "200", *given, env=board.env
            )
            assert done.returncode == 0, (task, done.stderr)
            open_benchmark(board, slug)
            described = board.request("GET", f"/api/v1/benchmarks/{slug}")[1].decode()
            assert str(tmp_path) not in described and "releval-board-" not in described, task  # no server path
            n, unit = COUNTED[task]
            page = board.request("GET", f"/b/{slug}/")[1].decode()
            assert f'id="statistics">{n} test {unit}.' in page, task
            measures = board.json(f"/api/v1/benchmarks/{slug}")["measures"]
            weighted = "weightings" in get_task(task).settings
            default = ["micro", "weighted", "dodrans", "entropy", "macro"] if weighted else ["micro"]
            assert measures == list(get_task(task).measures or default), task
            for i, system in enumerate(systems):
                path = EXAMPLES_DIR / system
                status, out = board.submit(slug, f"s{i}", path.read_bytes(), path.name, token=bob)
                assert status == 201, (task, out)
                done = releval(
                    "compare", str(EXAMPLES_DIR / gold), "-s", f"x={path}", "-s", f"y={path}", "--task", task,
                    "-R", "200", "--seed", "12345", "--test", "bootstrap", "-f", "json", *options, env=board.env,
                )  # fmt: skip
                assert done.returncode == 0, (task, done.stderr)
                table = json.loads(done.stdout)["results"][0]
                rows = {r["metric"]: r for r in table["pairs"]}
                expected[out["run"]] = {m: (table["scores"]["x"][m], rows[m]["ci_a"]) for m in measures}
        for task, (gold, reason) in PART_MISSING.items():
            alone = tmp_path / "alone" / Path(gold).name
            alone.parent.mkdir()
            alone.write_bytes((EXAMPLES_DIR / gold).read_bytes())
            done = releval("benchmark", f"lib-{task}-alone", str(alone), "--task", task, env=board.env)
            assert done.returncode == 2 and reason in done.stderr and "releval-board-" not in done.stderr, done.stderr
        board.wait_idle()
        for run, cells in expected.items():
            got = board.json(f"/api/v1/runs/{run}")
            assert got["status"] == "scored", got
            assert {m: (c["value"], c["ci"]) for m, c in got["cells"].items()} == cells


def test_docred_and_ranked_uploads_with_relations_gold_cannot_match_are_refused(tmp_path: Path) -> None:
    """The board validates an upload through the task's `score_files`, where DocRED and ranked facts check the
    predicted relations: lower-cased P-ids and a relation in other letter case are refused with the upload's name."""
    import gzip

    docred_gold, system_a = (
        EXAMPLES_DIR / "docred/redocred_dev_first40.json.gz",
        EXAMPLES_DIR / "docred/system_a.json.gz",
    )
    with gzip.open(system_a, "rt", encoding="utf-8") as f:
        lowered = [{**p, "r": p["r"].lower()} for p in json.load(f)]
    cnn = (EXAMPLES_DIR / "ranked" / "cnn.tsv").read_text(encoding="utf-8").replace("\t/rel/r1\t", "\t/REL/R1\t")
    with running_board("sqlite", tmp_path) as board:
        bob = board.token("bob")
        for slug, gold, task, given in (
            ("lib-docred", docred_gold, "docred", []),
            ("lib-ranked", EXAMPLES_DIR / "ranked" / "gold.jsonl", "ranked", ["--setting", "duplicates=count"]),
        ):
            done = releval("benchmark", slug, str(gold), "--task", task, "--resamples", "50", *given, env=board.env)
            assert done.returncode == 0, done.stderr
            open_benchmark(board, slug)
        status, out = board.submit("lib-docred", "low", json.dumps(lowered).encode(), "lower.json", token=bob)
        assert status == 400, out
        assert out["error"].startswith(
            "lower.json: field 'relation id': 76 predicted relation id(s) differ from gold's"
        )
        status, out = board.submit("lib-ranked", "up", cnn.encode(), "cnn_upper.tsv", token=bob)
        assert status == 400, out
        assert out["error"].startswith(
            "cnn_upper.tsv: field 'relation': 1 predicted relation(s) differ from gold's only"
        )
        assert "'/REL/R1' (gold '/rel/r1') (first at line 5)" in out["error"]
        assert "releval-board-" not in out["error"]


def _fields(signature: str) -> dict[str, str]:
    """A long-form signature's fields (`key:value|…`)."""
    return dict(part.split(":", 1) for part in signature.split("|"))


def _p_at_recall_by_hand(gold: Path, pred: Path, interpolated: bool) -> dict[str, float]:
    """P@10% and P@30% counted from the files by tests/test_ranked_recall_levels.py's hand count (gold's facts but
    NA; the TSV's predictions but NA, best score first, equal scores in file order, every copy counted)."""
    from tests.test_ranked_recall_levels import p_at_recall_by_hand

    return {f"p@{level}%": p for level, p in p_at_recall_by_hand(interpolated, gold, pred).items()}


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_ranked_board_shows_precision_at_recall_levels_as_score_computes_them(backend: str, tmp_path: Path) -> None:
    """Issue 33 item 5 on the board: a ranked benchmark whose settings ask for recall levels (`at_recall`, and
    whether P is interpolated) takes P@10% and P@30% as measures; a run's cells equal `releval score`'s values and
    a count by hand from the files, and their signature states the levels and the interpolation as the command's
    does. A level the settings do not compute is refused, naming what they do."""
    gold, cnn = EXAMPLES_DIR / "ranked" / "gold.jsonl", EXAMPLES_DIR / "ranked" / "cnn.tsv"
    measures = ["auc", "p@10%", "p@30%"]
    with running_board(backend, tmp_path) as board:
        bob = board.token("bob")
        for slug, interpolated in (("pr-interpolated", True), ("pr-first", False)):
            done = releval(
                "benchmark", slug, str(gold), "--task", "ranked", "--resamples", "100",
                "--setting", "duplicates=count", "--setting", "at_recall=10,30",
                "--setting", f"interpolated={json.dumps(interpolated)}",
                *(arg for m in measures for arg in ("--measure", m)), env=board.env,
            )  # fmt: skip
            assert done.returncode == 0, done.stderr
            open_benchmark(board, slug)
            assert board.json(f"/api/v1/benchmarks/{slug}")["measures"] == measures
            status, out = board.submit(slug, "cnn", cnn.read_bytes(), cnn.name, token=bob)
            assert status == 201, out
            board.wait_idle()
            cells = board.json(f"/api/v1/runs/{out['run']}")["cells"]
            assert list(cells) == measures

            flag = "--interpolated" if interpolated else "--first-reached"
            scored = releval(
                "score", "--task", "ranked", "--duplicates", "count", "--at-recall", "10,30", flag, "-f", "json",
                str(gold), str(cnn), env=board.env,
            )  # fmt: skip
            assert scored.returncode == 0, scored.stderr
            library = json.loads(scored.stdout)
            library = library["results"][0] if "results" in library else library
            by_hand = _p_at_recall_by_hand(gold, cnn, interpolated)
            for level in ("p@10%", "p@30%"):
                assert cells[level]["value"] == library["measures"][level], (slug, level)
                assert cells[level]["value"] == pytest.approx(by_hand[level], abs=1e-15), (slug, level)
                # the cell's signature: the command's, its average the cell's measure, plus the interval's test
                board_fields = _fields(cells[level]["signature"])
                assert board_fields["average"] == level.replace("%", "%25")
                assert board_fields["criterion"].endswith(f",p@r={'interpolated' if interpolated else 'first'}")
                assert {k: v for k, v in board_fields.items() if k != "average"}.items() >= {
                    k: v for k, v in _fields(library["signature"]).items() if k != "average"
                }.items()
            page = board.request("GET", f"/b/{slug}/")[1].decode()
            assert "p@10%" in page and "p@30%" in page
        # the two settings give different numbers here (the interpolated P is the higher), as counted by hand
        assert _p_at_recall_by_hand(gold, cnn, True) != _p_at_recall_by_hand(gold, cnn, False)

        status, body, _ = board.request(
            "POST", "/api/v1/benchmarks/pr-first/measures", json.dumps({"name": "p@50%"}).encode(),
            {"Content-Type": "application/json"}, token=board.admin,
        )  # fmt: skip
        assert status == 400 and b"p@50%" in body and b"p@10%, p@30%" in body, body


def test_a_library_board_accepts_what_its_config_computes_and_keeps_only_the_weightings_asked() -> None:
    """`check_measure` with the benchmark's spec accepts every measure the Task declares for its Config
    (`Task.measure_names`): P@R% only when the settings give the level, each weighting's `W-auc`; `_config` keeps
    the weightings whose measures are asked and no other (the signature's `average` lists what is computed)."""
    from releval.core.errors import OptionError
    from releval.service.board_tasks import task_of
    from releval.service.library_task import LibraryTask

    ranked = task_of("ranked")
    assert isinstance(ranked, LibraryTask)
    spec = ranked.spec({"at_recall": "30%, 10", "interpolated": False}, resamples=10, seed=1, confidence=0.95)
    assert [ranked.check_measure(m, spec) for m in (" p@10%", "p@30%", "macro-auc", "auc")] == [
        "p@10%", "p@30%", "macro-auc", "auc",
    ]  # fmt: skip
    plain = ranked.spec({}, resamples=10, seed=1, confidence=0.95)
    with pytest.raises(OptionError, match=r"unknown measure 'p@10%' of task 'ranked' under this benchmark's settings"):
        ranked.check_measure("p@10%", plain)
    with pytest.raises(OptionError, match="unknown measure 'macro'"):  # ranked averages AUC: `macro-auc`
        ranked.check_measure("macro", spec)
    assert [w.name for w in ranked._config(spec, ["p@10%", "macro-auc"]).weightings] == ["macro"]
    assert ranked._config(spec, ["auc", "p@10%"]).weightings == ()
    assert ranked._config(spec, ["p@10%"]).metric_names == ["auc", "p@100", "p@200", "p@300", "p@10%", "p@30%",
                                                             "max_f1", "f1@0.5"]  # fmt: skip
    # a task that declares no measure_names keeps the weighting measures it had (DocRED adds the one asked)
    docred = task_of("docred")
    assert isinstance(docred, LibraryTask)
    dspec = docred.spec({}, resamples=10, seed=1, confidence=0.95)
    assert docred.check_measure("power:0.50", dspec) == "power:0.5"
    assert [w.name for w in docred._config(dspec, ["f1", "power:0.5"]).weightings] == ["power:0.5"]
