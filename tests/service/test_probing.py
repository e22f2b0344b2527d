"""The probing attack on a hidden test set (issue 24): a submitter flips predicted labels and reads what the board
shows, to recover gold labels. Under a new benchmark's defaults (a hidden `test` phase: the first measure only,
rounded to 0.1 points; no per-class table, figure or p-value; 3 test submissions a day, 10 in the phase) the
aggregate attack learns at most one label per accepted submission after its baseline; once the organiser closes the
phase the per-class tables appear and the per-class attack learns about two labels per submission.

Each recovered count is checked twice: against the bound (chance — every label guessed as the majority class — plus
one label per accepted probe) and against the same attack simulated here with an oracle computed from gold, given
exactly the information the board should show (so a board that showed more, or less, fails)."""

from __future__ import annotations

import html
import json
import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

import pytest
from tests.service.boards import BACKENDS, Board, releval, running_board

N = 60
CLASSES = ["A", "B", "C"]


def gold_labels() -> list[str]:
    return random.Random(24).choices(CLASSES, [0.5, 0.3, 0.2], k=N)


def jsonl(labels: list[str]) -> bytes:
    return "".join(json.dumps({"id": f"q{i}", "label": x}) + "\n" for i, x in enumerate(labels)).encode()


@dataclass
class Seen:
    """What one accepted submission showed: the micro F as shown (rounded or not) and, when the board shows the
    per-class table, the true positives of each class."""

    micro: float
    tp: dict[str, int] | None


Observe = Callable[[list[str]], "tuple[Seen, Callable[[], Seen]] | None"]


@dataclass
class Attack:
    """Baseline: every item predicted A (its micro F — accuracy, there is no negative class — counts the A items).
    Aggregate probe: one unknown item predicted B; the count of correct items goes up (B), down (A) or stays (C).
    Per-class probe: item x predicted B and item y predicted C; TP_B, TP_C and the drop of TP_A settle both items
    except when exactly one is A and neither hit (then both stay unknown)."""

    observe: Observe
    known: dict[int, str] = field(default_factory=dict)
    unknown: list[int] = field(default_factory=lambda: list(range(N)))
    base: Seen | None = None
    base_again: Callable[[], Seen] | None = None
    accepted: int = 0
    tried: int = 0

    def run(self, budget: int) -> None:
        for _ in range(budget):
            self.tried += 1
            if self.base is None:
                got = self.observe(["A"] * N)
                if got is not None:
                    self.base, self.base_again = got
                    self.accepted += 1
                continue
            if self.base.tp is None and self.base_again is not None:
                self.base = self.base_again()  # a closed phase shows the baseline's table too
            if self.base.tp is not None and len(self.unknown) >= 2:
                self._pair()
            elif self.unknown:
                self._single()

    def _single(self) -> None:
        assert self.base is not None
        i = self.unknown[0]
        pred = ["A"] * N
        pred[i] = "B"
        got = self.observe(pred)
        if got is None:
            return
        self.accepted += 1
        delta = round(got[0].micro * N) - round(self.base.micro * N)
        self.known[i] = {1: "B", -1: "A", 0: "C"}[delta]
        self.unknown.remove(i)

    def _pair(self) -> None:
        assert self.base is not None and self.base.tp is not None
        x, y = self.unknown[0], self.unknown[1]
        pred = ["A"] * N
        pred[x], pred[y] = "B", "C"
        got = self.observe(pred)
        if got is None:
            return
        self.accepted += 1
        tp = got[0].tp
        assert tp is not None
        b, c, drop = tp.get("B", 0), tp.get("C", 0), self.base.tp["A"] - tp.get("A", 0)
        found: dict[int, str] = {}
        if b:
            found[x] = "B"
        if c:
            found[y] = "C"
        if b and not c:
            found[y] = "A" if drop else "B"
        elif c and not b:
            found[x] = "A" if drop else "C"
        elif not b and not c and drop != 1:
            found[x], found[y] = ("A", "A") if drop == 2 else ("C", "B")
        self.unknown.remove(x)
        self.unknown.remove(y)
        self.known.update(found)  # an ambiguous pair stays unknown (guessed A)

    def recovered(self, gold: list[str]) -> int:
        return sum(self.known.get(i, "A") == g for i, g in enumerate(gold))


def oracle(gold: list[str], state: dict[str, object]) -> Observe:
    """What the board should show, computed from gold: `state["limit"]` accepted submissions (None: no limit),
    `state["per_class"]` whether the per-class table is shown, micro rounded to `state["digits"]` decimals of %."""

    def seen(pred: list[str]) -> Seen:
        correct = sum(p == g for p, g in zip(pred, gold))
        digits = state["digits"]
        micro = correct / N if digits is None else round(round(100 * correct / N, int(digits)) / 100, 8)  # type: ignore[call-overload]
        tp = {c: sum(p == g == c for p, g in zip(pred, gold)) for c in CLASSES} if state["per_class"] else None
        return Seen(micro, tp)

    def observe(pred: list[str]) -> tuple[Seen, Callable[[], Seen]] | None:
        limit = state["limit"]
        if limit is not None and int(state["used"]) >= int(limit):  # type: ignore[call-overload]
            return None
        state["used"] = int(state["used"]) + 1  # type: ignore[call-overload]
        return seen(pred), lambda: seen(pred)

    return observe


def board_observer(board: Board, token: str, log: list[dict]) -> Observe:
    """Submit `pred` as a new entry and read what the board shows of it: the run's JSON and its entry page."""
    counter = iter(range(10_000))

    def read(run_id: int, entry_id: int) -> Seen:
        run = board.json(f"/api/v1/runs/{run_id}")
        page = board.request("GET", f"/b/probe/entry/{entry_id}/")[1].decode()
        tp = None
        if 'id="per-class"' in page:
            table = page.split('id="per-class"', 1)[1].split("</table>", 1)[0]
            tp = {}
            for label, _, r, _, support in re.findall(
                r"<tr><td>([^<]*)</td><td>([^<]*)</td><td>([^<]*)</td><td>([^<]*)</td><td>([^<]*)</td></tr>", table
            ):
                tp[html.unescape(label)] = round(float(r) * int(support) / 100) if r != "–" else 0
        log.append({"run": run, "page": page})
        return Seen(run["cells"]["micro"]["value"], tp)

    def observe(pred: list[str]) -> tuple[Seen, Callable[[], Seen]] | None:
        k = next(counter)
        status, out = board.submit("probe", f"probe-{k}", jsonl(pred), "p.jsonl", token=token, seed="1")
        if status != 201:
            assert status == 429, out
            return None
        board.wait_idle()
        entry_id = next(r["entry"] for r in board.json("/b/probe/board.json")["rows"] if r["name"] == f"probe-{k}")
        seen = read(out["run"], entry_id)
        return seen, lambda: read(out["run"], entry_id)

    return observe


def put_phases(board: Board, token: str, body: object) -> tuple[int, dict]:
    status, out, _ = board.request(
        "PUT",
        "/api/v1/benchmarks/probe/phases",
        json.dumps(body).encode(),
        {"Content-Type": "application/json"},
        token=token,
    )
    return status, json.loads(out)


@pytest.mark.parametrize("backend", BACKENDS)
def test_probing_attack_is_bounded_during_a_hidden_phase(backend: str, tmp_path) -> None:
    gold = gold_labels()
    chance = gold.count("A")  # every label guessed as the majority class
    (tmp_path / "gold.jsonl").write_bytes(jsonl(gold))
    with running_board(backend, tmp_path, RELEVAL_DAILY_QUOTA="500") as board:
        done = releval(
            "benchmark", "probe", str(tmp_path / "gold.jsonl"), "--no-negative", "--resamples", "50", env=board.env
        )
        assert done.returncode == 0 and "hidden test phase" in done.stdout, done.stdout + done.stderr
        mallory = board.token("mallory")
        log: list[dict] = []
        attack = Attack(board_observer(board, mallory, log))
        state: dict[str, object] = {"limit": 3, "per_class": False, "digits": 1, "used": 0}
        model = Attack(oracle(gold, state))

        # 1. The defaults: 3 test submissions a day; 30 tries.
        attack.run(30)
        model.run(30)
        assert attack.accepted == model.accepted == 3
        assert attack.recovered(gold) == model.recovered(gold) <= chance + attack.accepted - 1
        assert len(attack.known) == len(model.known) == attack.accepted - 1  # a label per probe, no more
        numbers = [(attack.accepted, len(attack.known), attack.recovered(gold))]
        first = log[0]
        assert list(first["run"]["cells"]) == ["micro"] and first["run"]["hidden_phase"] == "test"
        assert first["run"]["cells"]["micro"]["value"] == round(round(100 * chance / N, 1) / 100, 3)
        assert 'id="per-class"' not in first["page"] and 'id="hidden-phase"' in first["page"]
        entry = first["run"]["entry"]
        rows = {r["name"]: r for r in board.json("/b/probe/board.json")["rows"]}
        entry_id = rows[entry]["entry"]
        for path in (f"/b/probe/entry/{entry_id}/figure.svg",):
            assert board.request("GET", path)[0] == 404, path
        data = board.json("/b/probe/board.json")
        assert data["measures"] == ["micro"] and data["hidden_phase"] == "test"
        assert all(c["p_holm"] is None and c["welch_p"] is None for r in data["rows"] for c in r["cells"].values())
        csv_text = board.request("GET", "/b/probe/board.csv")[1].decode()
        assert {line.split(",")[2] for line in csv_text.splitlines()[1:]} == {"micro"}
        assert "hidden-phase" in board.request("GET", "/b/probe/")[1].decode()
        # the organiser (here an admin) sees every measure, exact
        status, body, _ = board.request("GET", "/b/probe/board.json", token=board.admin)
        assert status == 200 and json.loads(body)["measures"] == ["micro", "weighted", "dodrans", "entropy", "macro"]
        exact = next(r for r in json.loads(body)["rows"] if r["name"] == entry)["cells"]["micro"]["value"]
        assert exact == chance / N
        # a submitter may not change the phases
        assert put_phases(board, mallory, {"phases": []})[0] == 403

        # 2. The phase's total: the organiser lifts the daily limit; 10 test submissions in the phase in all.
        (phase,) = board.json("/api/v1/benchmarks/probe/phases")["phases"]
        assert (phase["total_limit"], phase["daily_limit"], phase["digits"]) == (10, 3, 1)
        status, out = put_phases(board, board.admin, {"phases": [{**phase, "daily_limit": None}]})
        assert status == 200, out
        state["limit"] = 10
        attack.run(30)
        model.run(30)
        assert attack.accepted == model.accepted == 10
        assert attack.recovered(gold) == model.recovered(gold) <= chance + attack.accepted - 1
        assert len(attack.known) == len(model.known) == attack.accepted - 1
        numbers.append((attack.accepted, len(attack.known), attack.recovered(gold)))

        # 3. The organiser closes the phase: the per-class tables appear, and the attack recovers far more.
        now = datetime.now(timezone.utc)
        closed = {
            **phase,
            "start": (now - timedelta(days=1)).isoformat(),
            "end": (now - timedelta(seconds=1)).isoformat(),
        }
        assert put_phases(board, board.admin, {"phases": [closed]})[0] == 200
        state.update(limit=None, per_class=True, digits=None)
        attack.run(20)
        model.run(20)
        assert attack.accepted == model.accepted == 30
        assert attack.recovered(gold) == model.recovered(gold) and attack.known == model.known
        assert len(attack.known) - 9 > 20  # more than a label per probe: the per-class table leaks
        numbers.append((attack.accepted, len(attack.known), attack.recovered(gold)))
        assert 'id="per-class"' in log[-1]["page"] and log[-1]["run"]["hidden_phase"] is None
        assert board.request("GET", f"/b/probe/entry/{entry_id}/figure.svg")[0] == 200
        assert board.json("/b/probe/board.json")["measures"] == ["micro", "weighted", "dodrans", "entropy", "macro"]
        print(f"\n{backend}: chance {chance}/{N}; (accepted, labels learned, labels right): {numbers}")
