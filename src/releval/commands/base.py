"""The click classes every command is made of.

Plain click, with four additions: a command's help lists its arguments with their help texts; a group lists its
commands in the order they were added, each with the first paragraph of its help; a mistyped command name gets
the close ones suggested; a choice is listed in the help (`[text|json]`) but refused with releval's own message
naming the flag (`--format: 'x' is not one of text, json`), as every other bad value is. Paths are passed on as
`Path` objects unchecked: the library reads them and says what is wrong with one.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from releval.core.validation import check_choice


def first_paragraph(text: str | None) -> str:
    """The first paragraph of a docstring or help text, on one line (a command's entry in its group's list)."""
    return " ".join(inspect.cleandoc(text or "").split("\n\n")[0].split())


def long_flag(param: click.Parameter | None) -> str:
    """The first `--` spelling of an option (`--format` of `-f/--format`), else its first spelling."""
    if param is None:
        return "value"
    opts = [*param.opts, *param.secondary_opts]
    return next((o for o in opts if o.startswith("--")), opts[0] if opts else str(param.name))


class PathType(click.ParamType):
    """A file name as a `Path`, not looked at: existence, type and permissions are the reader's to check."""

    name = "path"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        return value if isinstance(value, Path) else Path(value)


PATH = PathType()


class Choice(click.Choice):
    """One of a fixed set of values, listed in the help; any other is an OptionError naming the flag."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        return check_choice(value, tuple(self.choices), long_flag(param))


class Argument(click.Argument):
    """A positional argument with a help text, listed under `Arguments` in its command's help."""

    def __init__(self, param_decls: Sequence[str], help: str | None = None, **attrs: Any) -> None:
        super().__init__(param_decls, **attrs)
        self.help = help


#: The output format an --output suffix names, when --format is not given (`.txt` names none: any text goes).
SUFFIX_FORMATS = {".json": "json", ".csv": "csv", ".md": "markdown", ".markdown": "markdown", ".tex": "latex"}


def format_from_suffix(ctx: click.Context) -> None:
    """`-o out.json` without `-f` writes JSON, not text into a `.json` file; `-f csv -o out.json` is refused.

    Applies to commands with both `format` and `output` parameters, after parsing, before the command runs.
    """
    from releval.core.errors import OptionError

    output, format = ctx.params.get("output"), ctx.params.get("format")
    if output is None or format is None or "format" not in ctx.params:
        return
    named = SUFFIX_FORMATS.get(Path(output).suffix.lower())
    if named is None:
        return
    if ctx.get_parameter_source("format") in (click.core.ParameterSource.DEFAULT, None):
        ctx.params["format"] = named
    elif format != named:
        raise OptionError(
            f"--format {format} does not match --output's suffix {Path(output).suffix} ({named}); "
            "drop -f to write what the suffix says, or name the file for the format",
            option="--format",
        )


class Command(click.Command):
    """A command whose help lists its arguments (with their help) before its options, whatever click's version;
    an --output suffix picks the --format when none is given (`format_from_suffix`)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        rest = super().parse_args(ctx, args)
        format_from_suffix(ctx)
        return rest

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        self.format_usage(ctx, formatter)
        self.format_help_text(ctx, formatter)
        self.format_arguments(ctx, formatter)
        self.format_options(ctx, formatter)
        self.format_epilog(ctx, formatter)

    def format_arguments(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [
            (p.human_readable_name + ("..." if p.nargs == -1 else ""), p.help or "")
            for p in self.get_params(ctx)
            if isinstance(p, Argument) and p.help
        ]
        if rows:
            with formatter.section("Arguments"):
                formatter.write_dl(rows)


class Group(click.Group):
    """A group listing its commands in the order they were added; `command()` makes a `Command`."""

    command_class = Command

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.commands)

    def summary(self, ctx: click.Context, name: str) -> str | None:
        """A command's entry in the group's help: the first paragraph of its help (None: not listed)."""
        command = self.get_command(ctx, name)
        if command is None or command.hidden:
            return None
        return command.short_help or first_paragraph(command.help)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """Each command with its summary, wrapped rather than cut short."""
        rows = [(name, text) for name in self.list_commands(ctx) if (text := self.summary(ctx, name)) is not None]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        """click's, with the close command names suggested for an unknown one (`Did you mean 'score'?`)."""
        try:
            return super().resolve_command(ctx, args)
        except click.UsageError as exc:
            name = args[0] if args else ""
            if isinstance(exc, click.NoSuchOption) or not name or self.get_command(ctx, name) is not None:
                raise
            import difflib

            message = f"No such command {name!r}."
            matches = difflib.get_close_matches(name, self.list_commands(ctx))
            if matches:
                message += f" Did you mean {', '.join(repr(m) for m in matches)}?"
            raise click.UsageError(message, ctx) from None
