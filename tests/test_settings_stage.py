"""The settings stage (releval.commands.settings, issue 32): every command that builds a task's Config takes the
same setting options, with the same help, declared once; each run signs what it was given.

The matrix: every command registered in SETTERS × every setting option. An option a command offers is run on
small real data (a 300-item slice of the SemEval-2010 Task 8 key with two systems; the 30-sentence CoNLL04 excerpt
for the end-to-end options) and its value must appear in every signature of the JSON output (or, for a figure,
change the plotted data); an option the command does not use is listed with the same help and refused with the
reason. Beside it: `compare --beta 0.5` reports score's F0.5, checked against F0.5 computed by hand from P and R;
`replicability from-predictions` signs the patch, the alignment and the gold digest as `score` signs them.
"""

from __future__ import annotations

import contextlib
import io
import json
import warnings
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import EXAMPLES, SEMEVAL_KEY, semeval_predictions

from releval.cli import main, register_commands
from releval.core.signature import parse

register_commands([])
from releval.commands.inputs import READERS  # noqa: E402  (filled when the commands are registered)
from releval.commands.settings import NO_SETTINGS, SETTERS, SETTING_OPTIONS  # noqa: E402

CONLL04_30 = EXAMPLES / "conll04" / "conll04_test_first30.json"
SLICE = 300

#: A value of each option and what the signature says of it: (arguments, signature field, text it must hold).
VALUES: dict[str, tuple[tuple[str, ...], str, str]] = {
    "--weighting": (("-w", "macro"), "average", "micro,macro"),
    "--beta": (("--beta", "0.5"), "beta", "0.5"),
    "--zero-division": (("--zero-division", "1"), "zero_division", "1"),
    "--entropy-n": (("--entropy-n", "positive"), "entropy_n", "positive"),
    "--criterion": (("--criterion", "strict"), "criterion", "strict"),
    "--relaxed": (("--relaxed",), "criterion", "relaxed"),
}
#: The options only end-to-end RE's Config has: run with --task e2e on CoNLL04 files.
E2E_OPTIONS = ("--criterion", "--relaxed")


def run(argv: list[str]) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of `releval ARGV`, in-process."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def signatures(doc: Any) -> list[str]:
    """Every signature string of a JSON document."""
    if isinstance(doc, dict):
        own = [doc["signature"]] if isinstance(doc.get("signature"), str) else []
        return own + [s for value in doc.values() for s in signatures(value)]
    if isinstance(doc, list):
        return [s for value in doc for s in signatures(value)]
    return []


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    tmp = tmp_path_factory.mktemp("settings_stage")
    out = {}
    for name, path in (("gold", SEMEVAL_KEY), ("a", semeval_predictions("rbert")), ("b", semeval_predictions("cnn"))):
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)[:SLICE]
        if name == "a":  # A never predicts a class gold has: its precision is 0/0 (--zero-division matters)
            lines = [x.replace("Member-Collection(e1,e2)", "Other") for x in lines]
        (tmp / f"{name}.txt").write_text("".join(lines), encoding="utf-8")
        out[name] = str(tmp / f"{name}.txt")
    out["png"] = str(tmp / "figure.png")
    out["data"] = str(tmp / "figure.json")
    return out


# ------------------------------------------------------------------------------------------------ the registry


def test_every_command_that_builds_a_config_takes_the_settings_or_says_why() -> None:
    """Each command reading gold and predictions (READERS) is a SETTERS command, or in NO_SETTINGS with the reason
    no number of it depends on a setting; never both."""
    assert set(SETTERS) | set(NO_SETTINGS) >= set(READERS)
    assert not set(SETTERS) & set(NO_SETTINGS)
    assert {"score", "compare", "replicability from-predictions", "plot per-class", "plot bootstrap"} <= set(SETTERS)


def test_the_options_offered_follow_the_config_classes() -> None:
    """A command offers a setting option exactly when the Config of some task it reads has the setting: the
    e2e options where e2e is read, the others everywhere (ScoringConfig's fields, rc's entropy_n)."""
    from releval.registry import get_task

    for setter in SETTERS.values():
        have = set().union(*(get_task(t).settings for t in setter.tasks))
        expected = [o.flag for o in SETTING_OPTIONS if o.sets in have]
        assert list(setter.options) == expected, setter.words
        assert set(setter.unused) <= set(setter.options), setter.words


def _click_command(words: str) -> Any:
    from releval.cli import app

    command = app
    for word in words.split():
        command = command.commands[word]
    return command


@pytest.mark.parametrize("words", sorted(SETTERS))
def test_every_option_has_the_same_flags_and_help_everywhere(words: str) -> None:
    params = {p.name: p for p in _click_command(words).params}
    for option in SETTING_OPTIONS:
        if option.flag not in SETTERS[words].options:
            assert option.sets not in params, f"{words} {option.flag}"
            continue
        param = params[option.sets]
        assert (tuple(param.opts), param.help) == ((option.flag, *filter(None, [option.short])), option.help)
    code, out, _ = run([*words.split(), "--help"])
    assert code == 0 and "--beta" in out and "F-beta's beta" in out


# ------------------------------------------------------------------------------------------------ the matrix


def _cases() -> list[Any]:
    return [
        pytest.param(words, flag, id=f"{words}:{flag}")
        for words, setter in sorted(SETTERS.items())
        for flag in setter.options
    ]


@pytest.mark.parametrize(("words", "flag"), _cases())
def test_each_command_takes_each_setting_and_signs_it(words: str, flag: str, files: dict[str, str]) -> None:
    setter = SETTERS[words]
    args, field, text = VALUES[flag]
    if flag in E2E_OPTIONS:
        argv = [*setter.argv(str(CONLL04_30), str(CONLL04_30), str(CONLL04_30), files["png"]), "--task", "e2e"]
    else:
        argv = setter.argv(files["gold"], files["a"], files["b"], files["png"])
    figure = words.startswith("plot ")
    extra = ["--data-json", files["data"]] if figure else ["-f", "json"]
    if words == "plot per-class" and flag == "--zero-division":  # A's precision is 0/0 for the class it never
        # predicts (its F is 0 whatever the value of 0/0)
        extra += ["--metric", "precision"]
    code, out, err = run([*argv, *args, *extra])
    if flag in setter.unused:
        assert code == 2 and f"{flag}: not used by {words}: {setter.unused[flag]}" in err
        return
    assert code == 0, err
    if figure:  # a figure has no signature: the plotted data must differ from the default run's
        given = Path(files["data"]).read_text(encoding="utf-8")
        assert run([*argv, *extra])[0] == 0
        assert Path(files["data"]).read_text(encoding="utf-8") != given
        return
    signed = signatures(json.loads(out))
    assert signed, out[:500]
    if field == "criterion":  # score signs each criterion's result apart (NER's too): one of them is the one asked
        criteria = {c for s in signed for c in (parse(s).get(field) or "").split(",")}
        assert text in criteria or f"{text}(experimental)" in criteria, signed
        return
    for signature in signed:
        value = parse(signature).get(field) or ""
        assert text in value.split(",") or value == text, f"{field}: {value!r} in {signature}"


@pytest.mark.parametrize(
    "words", sorted(w for w, s in SETTERS.items() if "e2e" in s.tasks and "--criterion" not in s.unused)
)
def test_an_e2e_setting_is_refused_for_rc_naming_e2e(words: str, files: dict[str, str]) -> None:
    argv = SETTERS[words].argv(files["gold"], files["a"], files["b"], files["png"])
    code, _, err = run([*argv, "--criterion", "strict"])
    assert code == 2 and "--criterion: apply to --task e2e only" in err


def test_beta_is_refused_for_a_task_without_it(files: dict[str, str]) -> None:
    """FewRel's accuracy has no β: compare refuses --beta for it, naming the tasks that have one."""
    code, _, err = run(["compare", files["gold"], files["a"], files["b"], "--task", "fewrel", "--beta", "0.5"])
    from releval.registry import get_task, tasks_with

    having = [t for t in tasks_with("compare") if "beta" in get_task(t).settings]
    assert "fewrel" not in having and "rc" in having
    assert code == 2 and f"--beta: apply to --task {' or '.join(having)} only" in err


# ------------------------------------------------------------------------------------------------ compare --beta


def test_compare_beta_reports_score_s_f_beta(files: dict[str, str]) -> None:
    """`compare GOLD a b --beta 0.5` signs b:0.5 and reports for each system the F0.5 that `score --beta 0.5`
    reports, which is (1 + β²)·P·R / (β²·P + R) of score's P and R (computed here by hand)."""
    code, out, err = run(["score", files["gold"], files["a"], files["b"], "--beta", "0.5", "-f", "json"])
    assert code == 0, err
    scored = {r["system"]: r["averages"] for r in json.loads(out)["results"]}
    code, out, err = run(["compare", files["gold"], files["a"], files["b"], "--beta", "0.5", "-R", "50", "-f", "json"])
    assert code == 0, err
    (table,) = json.loads(out)["results"]
    assert parse(table["signature"]).format(short=True).count("|b:0.5|") == 1
    for system, averages in scored.items():
        p, r = averages["micro"]["precision"], averages["micro"]["recall"]
        by_hand = 1.25 * p * r / (0.25 * p + r)
        assert averages["micro"]["f"] == pytest.approx(by_hand, rel=1e-12)
        assert table["scores"][system]["micro"] == pytest.approx(by_hand, rel=1e-12)
        assert table["scores"][system]["macro"] == pytest.approx(averages["macro"]["f"], rel=1e-12)
    f1 = json.loads(run(["compare", files["gold"], files["a"], files["b"], "-R", "50", "-f", "json"])[1])
    assert f1["results"][0]["scores"]["a"]["micro"] != table["scores"]["a"]["micro"]


# ------------------------------------------------------------------------------------------------ replicability


def test_replicability_signs_patch_alignment_and_gold_as_score(files: dict[str, str], tmp_path: Path) -> None:
    """With and without --patch the effect changes and so does the signature: the patch digest and the patched
    gold's digest, both those `score` signs for the same gold and patch; the alignment is signed too."""
    ids = [line.split("\t")[0] for line in Path(files["gold"]).read_text(encoding="utf-8").splitlines()]
    patch = tmp_path / "patch.json"
    patch.write_text(json.dumps([{"id": i, "relation": "Other"} for i in ids[:40]]), encoding="utf-8")
    dataset = f"x={files['gold']},{files['a']},{files['b']}"
    runs = {}
    for name, extra in (("plain", []), ("patched", ["--patch", str(patch)])):
        argv = ["replicability", "from-predictions", "-d", dataset, "-R", "50", *extra, "-f", "json"]
        code, out, err = run(argv)
        assert code == 0, err
        doc = json.loads(out)
        code, scored, err = run(["score", files["gold"], files["a"], *extra, "-f", "json"])
        assert code == 0, err
        runs[name] = (
            parse(doc["signature"]),
            doc["datasets"][0]["effect"],
            parse(json.loads(scored)["results"][0]["signature"]),
        )
    for signature, _, score_signature in runs.values():
        for field in ("gold", "alignment", "patch"):
            assert signature.get(field) == score_signature.get(field), field
        assert signature["alignment"] == "id"
    assert runs["plain"][0].get("patch") is None and runs["patched"][0]["patch"] == runs["patched"][2]["patch"]
    assert runs["plain"][0]["gold"] != runs["patched"][0]["gold"]
    assert runs["plain"][1] != runs["patched"][1]
    assert str(runs["plain"][0]) != str(runs["patched"][0])


def test_replicability_names_each_dataset_s_gold(files: dict[str, str], tmp_path: Path) -> None:
    """Two datasets on different gold: the signature names each one's digest (`x=…,y=…`), each score's."""
    half = {}
    for name in ("gold", "a", "b"):
        half[name] = tmp_path / f"half_{name}.txt"
        half[name].write_text("".join(Path(files[name]).read_text(encoding="utf-8").splitlines(keepends=True)[:150]))
    argv = ["replicability", "from-predictions", "-d", f"x={files['gold']},{files['a']},{files['b']}"]
    argv += ["-d", f"y={half['gold']},{half['a']},{half['b']}", "-R", "50", "-f", "json"]
    code, out, err = run(argv)
    assert code == 0, err
    digests = {}
    for name, (gold, pred) in (("x", (files["gold"], files["a"])), ("y", (str(half["gold"]), str(half["a"])))):
        scored = json.loads(run(["score", gold, pred, "-f", "json"])[1])
        digests[name] = parse(scored["results"][0]["signature"])["gold"]
    assert parse(json.loads(out)["signature"])["gold"] == f"x={digests['x']},y={digests['y']}"


def test_each_help_states_the_config_s_default() -> None:
    """An option given no value leaves the Config's default: the help says that default, read here from the
    Config classes themselves, so a changed default fails until the help follows."""
    from dataclasses import fields

    from releval.core.signature import format_number
    from releval.registry import TASKS, get_task

    defaults = {}
    for name in TASKS:
        for f in fields(get_task(name).config):
            defaults.setdefault(f.name, f.default)
    expected = {
        "--weighting": f"default {', '.join(defaults['weightings'][:-1])} and {defaults['weightings'][-1]}",
        "--beta": f"default {format_number(defaults['beta'])}: F1",
        "--zero-division": f"default {format_number(defaults['zero_division'])}",
        "--entropy-n": f"{ {'all': 'all gold items', 'positive': 'positive only'}[defaults['entropy_n']] } (default)",
        "--criterion": f"default {','.join(defaults['criteria'])}",
        "--relaxed": "also the experimental Relaxed" if defaults["relaxed"] is False else "?",
    }
    for option in SETTING_OPTIONS:
        assert expected[option.flag] in option.help, option.flag
