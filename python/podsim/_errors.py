"""podsim's errors as Python exceptions (docs/python.md, "Errors").

The program exits 2 on bad input with ``error: WHERE: RULE, got: VALUE`` on stderr, and 3 on an internal error;
the Python functions raise these instead. ``str(error)`` is the text the program prints after ``error: ``.
"""

import re


class Error(Exception):
    """Base of every error a podsim function raises. ``message`` is the text the program prints after
    ``error: `` (or ``internal error: ``)."""

    def __init__(self, message):
        super().__init__(message)
        self.message = message


class InputError(Error):
    """Bad input (the program's exit code 2), located as the program locates it.

    Attributes: ``where`` (a flag such as ``"--sharding"``, or ``"FILE: /json/pointer"`` for a scenario; ``""``
    when the program names no place), ``rule`` (what the input must be), ``value`` (what it was: the text after
    ``got: ``, or None when the message has none), ``stage`` (``"parse"``: the text does not follow its grammar;
    ``"verify"``: it breaks a rule), ``column`` (1-based, for text that failed to parse; else None) and ``detail``
    (the message without its place: ``RULE, got: VALUE``)."""

    def __init__(self, message, where="", detail=None, stage="verify", column=None):
        super().__init__(message)
        self.where = where
        self.detail = message if detail is None else detail
        self.stage = stage
        self.column = column
        rule, got, value = self.detail.partition(", got: ")
        self.rule = rule
        self.value = value if got else None


class FlagError(InputError):
    """A bad keyword argument value (the CLI's bad flag): ``where`` is the option (``"--array-bytes"``). For a
    value the command line parser refused (a number that is not one, a missing required option) ``where`` is the
    first option its message names (``""`` when it names none) and the message is the parser's, unprefixed."""


class ScenarioError(InputError):
    """Bad input located in a file: a scenario (``where`` is ``"FILE: /json/pointer"``), a sweep file, a hardware
    preset. A scenario or sweep given as a dict is named ``<scenario dict>`` or ``<sweep dict>``."""


class InternalError(Error):
    """A failure of podsim itself, not of its input (the program's exit code 3): a simulation child that crashed
    or was killed, a malformed result. The message ends with the tail of the child's stderr when there is one."""


_BARE_WORD = re.compile(r"^[a-z_]+$")
_OPTION = re.compile(r"--[a-z][a-z0-9-]*")


def _error_for(detail):
    kind = detail.get("kind", "input")
    where = detail.get("where", "")
    message = detail.get("message", "")
    if kind == "internal":
        return InternalError(message)
    column = detail.get("column")
    text = (where + ": " if where else "") + (f"column {column}: " if column else "") + message
    if kind == "flag" and not where:  # the command line parser's own message: it names the option itself
        named = _OPTION.search(message)
        where = named.group(0) if named else ""
    if kind == "flag" or where.startswith("--") or _BARE_WORD.match(where):
        cls = FlagError
    elif where:
        cls = ScenarioError
    else:
        cls = InputError
    return cls(text, where=where, detail=message, stage=detail.get("stage", "verify"), column=column)


def raise_error(detail):
    """Raises the exception for the error object the extension returned (sim/report/error_report's fields plus
    "kind": "input", "flag" or "internal")."""
    raise _error_for(detail) from None
