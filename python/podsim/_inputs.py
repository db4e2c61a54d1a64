"""Inputs given as Python values, written to temporary files for a podsim command to read (docs/python.md).

A scenario or sweep dict, a measurement table given as rows, a StableHLO module given as text: each is written to a
temporary file, the command reads it, and the file's name is replaced in results and errors by what it stands for
(``<scenario dict>``, ``<measurement rows>``, ``<module text>``). The files are removed by close().
"""

import contextlib
import csv
import json
import os
import re
import shutil
import tempfile

from ._errors import ScenarioError

# The columns of a measurement CSV in the order the shipped files use (docs/hardware-model.md, "Calibration").
MEASUREMENT_COLUMNS = ["id", "kind", "quantity", "measured", "hardware", "op", "slice", "axes", "bytes", "wrap",
                       "scenario", "plan", "fit", "source", "quote"]

_MODULE_NAME = re.compile(r"^\s*module\s+@([A-Za-z0-9_.$-]+)", re.MULTILINE)
_MODULE_START = re.compile(r"^\s*module[\s@{]")


def is_module_text(value):
    """Whether a string is a module's text rather than a path: it has a line break or starts with the word
    ``module`` (``module @jit_f ...``, ``module {``; a file ``module.mlir`` is a path)."""
    return "\n" in value or _MODULE_START.match(value) is not None


def _cell(column, value):
    """A measurement cell's CSV text: True/False as yes/no, a slice list as 8x4, any other list comma-joined."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, tuple)):
        return ("x" if column == "slice" else ",").join(str(item) for item in value)
    if isinstance(value, float):
        return repr(value)
    return str(value)


# The nesting limit every JSON text podsim reads has (docs/reliability.md, "Input limits").
JSON_MAX_DEPTH = 64


def _pointer_token(key):
    return str(key).replace("~", "~0").replace("/", "~1")


def _check_json_value(value, shown):
    """Refuses, as the program refuses a file, a dict nested deeper than JSON_MAX_DEPTH levels or one that holds
    itself (json.dumps would raise RecursionError or ValueError), located at the JSON pointer where it happens."""
    stack = [(value, "", 1, ())]  # value, pointer, depth, the containers above it (by id)
    while stack:
        item, pointer, depth, above = stack.pop()
        if not isinstance(item, (dict, list, tuple)):
            continue
        where = f"{shown}: {pointer or '/'}"
        if id(item) in above:
            raise ScenarioError(f"{where}: a cycle: the value holds itself", where=where,
                                detail="a cycle: the value holds itself")
        if depth > JSON_MAX_DEPTH:
            detail = f"nesting deeper than {JSON_MAX_DEPTH} levels"
            raise ScenarioError(f"{where}: {detail}", where=where, detail=detail)
        children = item.items() if isinstance(item, dict) else enumerate(item)
        for key, child in children:
            stack.append((child, f"{pointer}/{_pointer_token(key)}", depth + 1, above + (id(item),)))


class Inputs:
    """Temporary files standing for Python values, and the names they stand for in results and errors.

    Files read with paths relative to their own folder (a scenario's hardware file, a sweep's base, a measurement
    row's scenario) are written in the current folder, so that those paths resolve as they would from a file there,
    or in the temporary folder when the current one is not writable."""

    def __init__(self):
        self.renames = {}
        self.files = []
        self.folders = []

    def _temporary(self, suffix, shown, here=True):
        """A new empty file's name (relative when in the current folder), renamed `shown` in results."""
        handle = None
        if here:
            with contextlib.suppress(OSError):
                handle = tempfile.NamedTemporaryFile("w", suffix=suffix, prefix=".podsim-", dir=os.getcwd(),
                                                     delete=False)
        if handle is None:
            handle = tempfile.NamedTemporaryFile("w", suffix=suffix, prefix="podsim-", delete=False)
        handle.close()
        self.files.append(handle.name)
        name = os.path.relpath(handle.name) if handle.name.startswith(os.getcwd() + os.sep) else handle.name
        self.renames[handle.name] = shown  # the longer name first: it holds the shorter
        self.renames[name] = shown
        return name

    def path(self, source, kind):
        """A path for `source`: a path as is, a dict written as JSON (`kind` is "scenario" or "sweep")."""
        if isinstance(source, dict):
            shown = f"<{kind} dict>"
            _check_json_value(source, shown)
            try:
                text = json.dumps(source)
            except (TypeError, ValueError) as error:  # a value JSON has no form for (a set, an object, NaN is kept)
                raise ScenarioError(f"{shown}: not JSON: {error}", where=shown, detail=f"not JSON: {error}") from None
            name = self._temporary(".json", shown)
            with open(name, "w", encoding="utf-8") as out:
                out.write(text)
            return name
        if isinstance(source, (str, os.PathLike)):
            return os.fspath(source)
        raise TypeError(f"expected a {kind} file path or a dict, got: {type(source).__name__}")

    def output(self, suffix, shown):
        """A temporary file for a command to write (a scenario podsim import writes), in the current folder."""
        return self._temporary(suffix, shown)

    def measurements(self, source):
        """A path for measurements: a CSV path as is, or a list of row dicts (keys: the CSV's columns) written as
        a CSV with the columns the rows use, in the shipped files' order (unknown keys last: the command names
        them)."""
        if isinstance(source, (str, os.PathLike)):
            return os.fspath(source)
        if not isinstance(source, (list, tuple)) or not all(isinstance(row, dict) for row in source):
            raise TypeError("expected a measurement CSV path or a list of row dicts, got: "
                            f"{type(source).__name__}")
        used = {key for row in source for key in row}
        columns = [c for c in MEASUREMENT_COLUMNS if c in used]
        columns += sorted(used - set(MEASUREMENT_COLUMNS))
        name = self._temporary(".csv", "<measurement rows>")
        with open(name, "w", encoding="utf-8", newline="") as out:
            writer = csv.writer(out, lineterminator="\n")
            writer.writerow(columns)
            for row in source:
                writer.writerow([_cell(column, row.get(column)) for column in columns])
        return name

    def module(self, source):
        """A path for a StableHLO module: a path as is; module text (a str with a line break or starting with the
        word ``module``, or an object with as_text(), such as JAX's Lowered) written to a temporary folder as
        NAME.mlir, NAME the module's ``@name`` (podsim import names the scenario after the file)."""
        if hasattr(source, "as_text") and not isinstance(source, (str, os.PathLike)):
            source = source.as_text()
            if not isinstance(source, str):
                raise TypeError(f"as_text() returned {type(source).__name__}, not the module's text")
        elif isinstance(source, os.PathLike) or (isinstance(source, str) and not is_module_text(source)):
            return os.fspath(source)
        elif not isinstance(source, str):
            raise TypeError(f"expected a module path, module text or a JAX Lowered, got: {type(source).__name__}")
        found = _MODULE_NAME.search(source)
        folder = tempfile.mkdtemp(prefix="podsim-module-")
        self.folders.append(folder)
        name = os.path.join(folder, (found.group(1) if found else "module") + ".mlir")
        with open(name, "w", encoding="utf-8") as out:
            out.write(source)
        self.renames[name] = "<module text>"
        return name

    def rename(self, value):
        """`value` with the temporary files' names replaced by what they stand for."""
        if not self.renames:
            return value
        if isinstance(value, str):
            for name, shown in self.renames.items():
                value = value.replace(name, shown)
            return value
        if isinstance(value, list):
            return [self.rename(item) for item in value]
        if isinstance(value, dict):
            return {self.rename(key): self.rename(item) for key, item in value.items()}
        return value

    def close(self):
        for name in self.files:
            with contextlib.suppress(OSError):
                os.remove(name)
        for folder in self.folders:
            shutil.rmtree(folder, ignore_errors=True)
