"""The command line's spelling of the library's parameters.

The library names what was wrong by its parameter (`on_missing: 'x' is not one of error, negative, wrong`), as a
Python caller wrote it; the command line shows the flag the user typed (`--on-missing: …`). An `OptionError`
carries the parameter in `option`; `flag_message` rewrites its message for the command that failed.
"""

from __future__ import annotations

from typing import Any

from releval.core.errors import OptionError

#: Parameters whose flag is not `--` + the name with dashes, when the command has no parameter of that name.
FLAGS: dict[str, str] = {
    "weightings": "--weighting",
    "tests": "--test",
    "mcnemar_variant": "--mcnemar",
    "pred_format": "--input-format",
    "criteria": "--criterion",
    "scenarios": "--scenario",
    "methods": "--estimators",
    "pc_methods": "--estimators",
    "readings": "--reading",
    "dependence": "--dependent/--independent/--positive-dependence",
}


def flag_for(parameter: str, command: Any = None) -> str:
    """The flag of `parameter` on `command` (a click command; its own option of that name first), else the
    general spelling.

    >>> flag_for("on_missing"), flag_for("weightings"), flag_for("--format")
    ('--on-missing', '--weighting', '--format')
    """
    if not parameter.replace("_", "a").isalnum() or not parameter.islower():
        return parameter  # a flag already, or an environment variable (RELEVAL_MAX_INPUT_BYTES)
    for param in getattr(command, "params", ()):
        if param.name == parameter and param.param_type_name == "option":
            longs = [o for o in param.opts if o.startswith("--")]
            return longs[0] if longs else param.opts[0]
    return FLAGS.get(parameter, "--" + parameter.replace("_", "-"))


def flag_message(error: OptionError, command: Any = None) -> str:
    """The error as the command line prints it: the parameter the message starts with becomes its flag (a message
    that does not start with it gets the flag in front).

    >>> flag_message(OptionError("on_missing: 'x' is not one of error, negative, wrong", option="on_missing"))
    "--on-missing: 'x' is not one of error, negative, wrong"
    >>> flag_message(OptionError("weightings power:A exponent must lie in ...", option="weightings"))
    '--weighting power:A exponent must lie in ...'
    """
    parameter = error.option
    if parameter is None or parameter.startswith("-"):
        return str(error)
    flag = flag_for(parameter, command)
    message = error.message
    rest = message[len(parameter) :]
    if message.startswith(parameter) and not (rest[:1].isalnum() or rest[:1] == "_"):
        message = flag + rest
    else:
        message = f"{flag}: {message}"
    return error.location() + message
