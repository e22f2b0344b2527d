"""The settings stage every command that scores shares: one definition of each scoring setting's option.

The Config classes of `releval.tasks` (frozen dataclasses: `ScoringConfig`'s weightings, β and 0/0 value, each
task's own fields) are the settings; this module is their command-line side, declared once, as
`releval.commands.inputs` declares the input options:

* `--weighting/-w` (`weightings`), `--beta` (`beta`), `--zero-division` (`zero_division`) — every F-based task;
* `--entropy-n` (`entropy_n`) — relation classification's entropy weighting;
* `--criterion` (`criteria`), `--relaxed` (`relaxed`) — end-to-end RE.

`setting_options()` adds them to a command (an option whose Config field none of the command's tasks has is not
offered: `--criterion` only where e2e is read) and hands it one `Settings` value. An option left out is `None`
(not given): the Config's own default applies, so the defaults live in one place, the Config classes. A given
option whose setting the task's Config lacks is refused, naming the tasks that have it (`refuse_foreign`), and
`config_of` is the one path from the input options, the settings and a command's own settings to a task's Config,
which checks every value (so `--beta -1` gets the same message from `score`, `compare`, `plot` and
`replicability from-predictions`). Each command that uses the decorator registers itself in `SETTERS`; the matrix
test (tests/test_settings_stage.py) runs every registered command with every option it offers.

>>> [o.flag for o in SETTING_OPTIONS]
['--weighting', '--beta', '--zero-division', '--entropy-n', '--criterion', '--relaxed']
>>> Settings(beta=0.5).given_fields()
{'--beta': ('beta',)}
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

import click

from releval.commands.base import Choice
from releval.core.options import ENTROPY_N
from releval.core.validation import refuse_options
from releval.metrics.weightings import weighting_names

if TYPE_CHECKING:
    from releval.commands.inputs import Inputs
    from releval.tasks.base import Task


def _criteria(value: str) -> tuple[str, ...]:
    """`strict,boundaries` → ('strict', 'boundaries') (the E2EConfig checks each name)."""
    return tuple(c.strip() for c in value.split(",") if c.strip())


@dataclass(frozen=True)
class SettingOption:
    """One setting's option: its flag (and short flag), the Config field it sets (`sets`, also the command's
    parameter name), its help, its click settings besides the default (which is None: not given), how a given
    value becomes the Config's (`convert`), and `group`: the input group (releval.tasks.base.INPUT_GROUPS) of the
    tasks whose Config has the field ("e2e-files" for `--criterion`), so that a command offering no such group does
    not offer it either; None: any F-based task has it."""

    flag: str
    sets: str
    help: str
    short: str | None = None
    settings: tuple[tuple[str, Any], ...] = ()
    convert: Callable[[Any], Any] | None = None
    group: str | None = None

    @property
    def decls(self) -> tuple[str, ...]:
        """The click declarations: the flags and the parameter name."""
        return (self.flag, *((self.short,) if self.short else ()), self.sets)

    def given(self, value: Any) -> bool:
        """Whether the command line gave the option (None, an empty repeat and an unset flag are not given)."""
        return value not in (None, (), False)


#: Every setting option, in the order `--help` lists them. A new one is a line here and a field of `Settings`.
SETTING_OPTIONS: tuple[SettingOption, ...] = (
    SettingOption(
        "--weighting",
        "weightings",
        f"Weightings besides micro: {', '.join(weighting_names())} (repeatable; default weighted, dodrans, entropy "
        "and macro).",
        short="-w",
        settings=(("multiple", True),),
        convert=tuple,
    ),
    SettingOption(
        "--beta",
        "beta",
        "F-beta's beta (default 1: F1; 0.5 weighs precision higher, 2 recall).",
        settings=(("type", float),),
    ),
    SettingOption(
        "--zero-division",
        "zero_division",
        "Value of P, R or F when 0/0 (default 0).",
        settings=(("type", float),),
    ),
    SettingOption(
        "--entropy-n",
        "entropy_n",
        "Entropy's N: all gold items (default), or positive only.",
        settings=(("type", Choice(ENTROPY_N)),),
    ),
    SettingOption(
        "--criterion",
        "criteria",
        "e2e: the relation criteria, comma-separated (default strict,boundaries).",
        convert=_criteria,
        group="e2e-files",
    ),
    SettingOption(
        "--relaxed",
        "relaxed",
        "e2e: also the experimental Relaxed criterion.",
        settings=(("is_flag", True), ("default", False)),
        group="e2e-files",
    ),
)

_BY_FLAG = {o.flag: o for o in SETTING_OPTIONS}


@dataclass(frozen=True)
class Settings:
    """The values of the setting options of one command run (None: not given, the Config's default applies)."""

    weightings: tuple[str, ...] = ()
    beta: float | None = None
    zero_division: float | None = None
    entropy_n: str | None = None
    criteria: str | None = None
    relaxed: bool = False

    def given_fields(self) -> dict[str, tuple[str, ...]]:
        """{flag: (the Config setting it sets,)} of every option given."""
        return {o.flag: (o.sets,) for o in SETTING_OPTIONS if o.given(getattr(self, o.sets))}

    def values(self) -> dict[str, Any]:
        """{Config setting: value} of every option given, converted as the Config takes it."""
        out = {}
        for o in SETTING_OPTIONS:
            value = getattr(self, o.sets)
            if o.given(value):
                out[o.sets] = o.convert(value) if o.convert else value
        return out


assert {o.sets for o in SETTING_OPTIONS} == {f.name for f in fields(Settings)}, "every option is a field of Settings"


def config_of(
    task: Task | str,
    inputs: Inputs | None = None,
    settings: Settings | None = None,
    *,
    among: Sequence[str] | Callable[[], Sequence[str]] | None = None,
    own: Mapping[str, tuple[str, ...]] | None = None,
    **values: Any,
) -> Any:
    """The task's Config of a command run: the input options, the setting options and the command's own settings
    (`values`; `own` names the flags that gave them, {flag: settings}, for the refusal). An option given whose
    setting the Config lacks is refused first, naming the tasks (among `among`, default all) that have it; the
    Config then checks every value.

    >>> config_of("rc", settings=Settings(beta=0.5)).beta
    0.5
    """
    from releval.commands.inputs import Inputs, refuse_foreign

    if isinstance(task, str):
        from releval.registry import get_task

        task = get_task(task)
    inputs = inputs or Inputs()
    settings = settings or Settings()
    refuse_foreign(task, {**inputs.given_fields(), **settings.given_fields(), **dict(own or {})}, among)
    return task.make_config(**{**inputs.settings_for(task), **settings.values(), **values})


@dataclass(frozen=True)
class Setter:
    """A command that builds a task's Config from the setting options: its words, an example invocation (the
    placeholders of `releval.commands.inputs.Reader`), the Task capability its tasks need (`needs`, as
    `releval.commands.inputs.Reader`), the flags it offers, and among them those it refuses because no number of
    it depends on them (`unused`, with the reason)."""

    words: str
    example: tuple[str, ...]
    needs: str | None
    options: tuple[str, ...]
    unused: Mapping[str, str]

    @property
    def tasks(self) -> tuple[str, ...]:
        """The registered tasks the command reads (their modules imported now): those with the capability."""
        from releval.registry import DEFAULT_TASK, tasks_with

        return (DEFAULT_TASK,) if self.needs is None else tuple(tasks_with(self.needs))

    def argv(self, gold: str, pred: str, pred2: str | None = None, out: str = "out.png") -> list[str]:
        """The example's words with the files put in."""
        values = {"gold": gold, "pred": pred, "pred2": pred2 or pred, "out": out}
        return [*self.words.split(), *(part.format(**values) for part in self.example)]


#: Every command that takes the setting options, registered by `setting_options` (tests/test_settings_stage.py).
SETTERS: dict[str, Setter] = {}

#: Commands that read gold and predictions (releval.commands.inputs.READERS) and build a Config, but whose numbers
#: depend on no setting option: they take none, for this reason.
NO_SETTINGS: dict[str, str] = {
    "stats": "dataset statistics count labels: no F, so no weighting, β or 0/0 value",
    "audit run": "its findings count ids and labels; no number of an audit is an F of the settings",
    "plot confusion": "a confusion matrix counts label pairs: no F",
}


def setting_options(
    words: str,
    example: tuple[str, ...],
    *,
    needs: str | None = None,
    groups: tuple[str, ...] = (),
    unused: Mapping[str, str] | None = None,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Add the setting options to a command and give it one `settings: Settings` parameter instead of one per
    option.

    `words`, `example`, `needs` and `groups` as `releval.commands.inputs.input_options` takes them (registered in
    SETTERS; `--criterion` and `--relaxed` only when "e2e-files" is among the groups); `unused`: {flag: reason} of
    options its Configs have but no number of the command depends on (`plot weights` draws no F: --beta), which
    the command still lists, with the same help, and refuses with the reason when given.
    """
    unused = dict(unused or {})
    unknown = set(unused) - set(_BY_FLAG)
    assert not unknown, f"not setting options: {unknown}"
    chosen = [o for o in SETTING_OPTIONS if o.group is None or o.group in groups]
    SETTERS[words] = Setter(words, example, needs, tuple(o.flag for o in chosen), unused)

    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        names = [o.sets for o in chosen]

        @functools.wraps(command)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            values = {name: kwargs.pop(name) for name in names}
            given = Settings(**values).given_fields()
            for flag, reason in unused.items():
                refuse_options({flag: flag in given}, f"not used by {words}: {reason}")
            return command(*args, settings=Settings(**values), **kwargs)

        wrapped: Callable[..., Any] = wrapper
        for o in reversed(chosen):
            wrapped = click.option(*o.decls, help=o.help, **{"default": None, **dict(o.settings)})(wrapped)
        return wrapped

    return decorate
