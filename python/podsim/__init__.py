"""podsim from Python: the podsim program's commands as functions (docs/python.md).

Each function runs the podsim command of the same name in this process (the extension podsim._podsim registers
the program's own subcommands), with the command's long options as keyword arguments (dashes become
underscores: ``array_bytes=`` for ``--array-bytes``), and returns what the command prints with ``--json``,
decoded into dicts and lists. Simulations run in forked child processes, as in the program, so a SimGrid abort
becomes an exception and calls can be repeated in one interpreter.

    >>> import podsim
    >>> podsim.shard(mesh="X=8,Y=2", shape=[1024, 4096], dtype="f32", sharding="A[I_XY, J]")["local_shape"]
    [64, 4096]
"""

import contextlib
import json
import os
import shutil
import tempfile

from podsim import _podsim
from podsim._errors import Error, FlagError, InputError, InternalError, ScenarioError, raise_error
from podsim._tables import to_pandas

__all__ = [
    "shard",
    "collective",
    "hardware",
    "run",
    "check",
    "plan",
    "sweep",
    "to_pandas",
    "options",
    "Error",
    "InputError",
    "FlagError",
    "ScenarioError",
    "InternalError",
]

# Options whose value is a shape: a list of ints is written 1024x4096, as the CLI reads it. Any other list given
# to an option that takes one value is joined with commas (axes=["X", "Y"] is --axes X,Y; wrap=[0, 1] is --wrap 0,1).
_SHAPE_OPTIONS = {"shape", "slice"}
# Set by the functions themselves (the Python API always returns the JSON form).
_RESERVED = {"json", "csv", "format"}

_options_cache = {}


def options(command):
    """The options of ``podsim COMMAND`` as the program declares them: a list of dicts with ``name`` (the keyword
    argument, dashes as underscores), ``flag`` (the CLI's ``--option``, ``""`` for a positional), ``takes_value``,
    ``repeatable``, ``required``, ``default`` and ``help``."""
    if command not in _options_cache:
        entries = []
        for entry in _podsim.options(command):
            entry = dict(entry)
            entry["name"] = entry["name"].replace("-", "_")
            entries.append(entry)
        _options_cache[command] = entries
    return _options_cache[command]


def _text(value):
    if isinstance(value, bool):
        raise TypeError("expected a value, got a bool")
    if isinstance(value, float):
        return repr(value)
    return os.fspath(value) if isinstance(value, os.PathLike) else str(value)


def _arguments(command, kwargs, positional=(), output=()):
    """The command line of ``podsim COMMAND`` for these keyword arguments (checked against the command's options),
    then the `output` options the function sets (``--json``), then the positional words after ``--``."""
    known = {entry["name"]: entry for entry in options(command)}
    args = []
    for name, value in kwargs.items():
        entry = known.get(name)
        if entry is None or name in _RESERVED or not entry["flag"]:
            allowed = sorted(n for n, e in known.items() if e["flag"] and n not in _RESERVED)
            raise TypeError(f"podsim.{command}() got an unexpected keyword argument '{name}' "
                            f"(its options: {', '.join(allowed)})")
        if value is None:
            continue
        flag = entry["flag"]
        if not entry["takes_value"]:
            if not isinstance(value, bool):
                raise TypeError(f"podsim.{command}(): {name} is an on/off flag ({flag}), expected True or False, "
                                f"got: {value!r}")
            if value:
                args.append(flag)
            continue
        if isinstance(value, (list, tuple)):
            if entry["repeatable"]:
                for item in value:
                    args += [flag, _text(item)]
                continue
            separator = "x" if name in _SHAPE_OPTIONS else ","
            value = separator.join(_text(item) for item in value)
        args += [flag, _text(value)]
    args += list(output)
    if positional:
        args.append("--")
        args += [_text(word) for word in positional]
    return args


class _Inputs:
    """Scenarios and sweeps given as dicts, written to temporary files for the command to read, and the names
    they stand for in results and errors. A dict's file is written in the current folder (relative paths in it
    resolve as they would in a file there), or in the temporary folder when that is not writable."""

    def __init__(self):
        self.renames = {}
        self.files = []

    def path(self, source, kind):
        if isinstance(source, dict):
            text = json.dumps(source)
            try:
                handle = tempfile.NamedTemporaryFile("w", suffix=".json", prefix=".podsim-", dir=os.getcwd(),
                                                     delete=False)
            except OSError:
                handle = tempfile.NamedTemporaryFile("w", suffix=".json", prefix="podsim-", delete=False)
            with handle:
                handle.write(text)
            self.files.append(handle.name)
            name = os.path.relpath(handle.name) if handle.name.startswith(os.getcwd()) else handle.name
            self.renames[handle.name] = f"<{kind} dict>"  # the longer name first: it holds the shorter
            self.renames[name] = f"<{kind} dict>"
            return name
        if isinstance(source, (str, os.PathLike)):
            return os.fspath(source)
        raise TypeError(f"expected a {kind} file path or a dict, got: {type(source).__name__}")

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


def _call(command, args, inputs=None):
    """Runs the command: (exit code, stdout text); raises the command's error as a podsim.Error."""
    code, out, error = _podsim.call(command, args)
    if error:
        detail = json.loads(error)
        if inputs is not None:
            detail = inputs.rename(detail)
        raise_error(detail)
    if code >= 128:  # a sweep stopped by SIGINT (or SIGTERM): whole lines kept, the same call resumes it
        raise KeyboardInterrupt(f"podsim {command} interrupted by signal {code - 128}")
    return code, out


def _json_call(command, args, inputs=None):
    _, out = _call(command, args, inputs)
    result = json.loads(out)
    return inputs.rename(result) if inputs is not None else result


def shard(**kwargs):
    """``podsim shard --json``: verify a mesh and a sharding, and describe its layout.

    Keywords: mesh (str, or a list of them), shape (list of ints, or "1024x4096"), dtype, sharding, devices (bool).
    Returns the JSON object: "local_shape", "bytes_per_device", "meshes", "printed", ...
    """
    return _json_call("shard", _arguments("shard", kwargs, output=["--json"]))


def collective(**kwargs):
    """``podsim collective --json``: one collective, closed form ("book") and simulation ("des").

    Keywords: slice (list or "4x4"), op, axes (str or list), array_bytes (int or "64MiB") or shape and sharding,
    hardware, wrap, mesh, dtype, link_bw, hop_latency, slices, dcn_bw, dcn_latency, model ("des", "book" or "both"),
    algorithm, multi_axis, links (a CSV file to write). Returns the JSON object with "book" and "des".
    """
    return _json_call("collective", _arguments("collective", kwargs, output=["--json"]))


def hardware(preset=None, **kwargs):
    """``podsim hardware [PRESET] --json``: the presets (no name), or one preset's figures with their sources.

    Keywords: override (a JSON string or a dict merged over the preset)."""
    if isinstance(kwargs.get("override"), dict):
        kwargs["override"] = json.dumps(kwargs["override"])
    positional = () if preset is None else (preset,)
    return _json_call("hardware", _arguments("hardware", kwargs, positional, ["--json"]))


def run(scenario, **kwargs):
    """``podsim run SCENARIO --format json``: every plan of a scenario, simulated and closed-form, side by side.

    `scenario` is a path or a dict (or a list of them: then {"scenarios": [...], "checks_passed"}). Keywords: plan,
    schedule, verify_values (bool), trace (a Chrome trace file to write), report (an HTML file to write)."""
    inputs = _Inputs()
    try:
        sources = scenario if isinstance(scenario, (list, tuple)) else [scenario]
        paths = [inputs.path(source, "scenario") for source in sources]
        args = _arguments("run", kwargs, paths, ["--format", "json"])
        if isinstance(scenario, (list, tuple)) and len(sources) == 1:  # keep the list form for a list of one
            return {"schema": "podsim/1", **_wrap_one(_json_call("run", args, inputs))}
        return _json_call("run", args, inputs)
    finally:
        inputs.close()


def _wrap_one(result):
    return {"scenarios": [result], "checks_passed": result["checks_passed"]}


def check(*paths):
    """``podsim check PATH... --json``: every scenario's expect list. Paths are files, folders or scenario dicts
    (none: the folder "scenarios"). Returns {"scenarios": [run objects], "passed", "failed", "checks_passed"};
    failed checks are data, not an exception."""
    inputs = _Inputs()
    try:
        words = [inputs.path(path, "scenario") if isinstance(path, dict) else os.fspath(path) for path in paths]
        args = ["--json"] + (["--"] + words if words else [])
        return _json_call("check", args, inputs)
    finally:
        inputs.close()


def plan(scenario, **kwargs):
    """``podsim plan SCENARIO --json``: a model-level scenario's candidates screened by the closed form, the best
    simulated, ranked. `scenario` is a path or a dict. Keywords: top (int), model ("book", "des" or "both"),
    report (an HTML file to write). Returns the JSON object ("ranked", "rejected", ...)."""
    inputs = _Inputs()
    try:
        args = _arguments("plan", kwargs, [inputs.path(scenario, "scenario")], ["--json"])
        return _json_call("plan", args, inputs)
    finally:
        inputs.close()


def sweep(sweep, out=None, **kwargs):
    """``podsim sweep SWEEP --out DIR``: every point of a sweep, on worker processes; returns the records of
    DIR/results.jsonl (one dict per point: "point", "params", "hash", "model", "error", "plans").

    `sweep` is a path or a dict (its "base" a path, relative to the current folder for a dict, or an inline
    scenario dict). `out` is the results folder; without it a temporary one is used and removed. Keywords: model
    ("book", "des" or "both"), shard ("i/N"), jobs (int), report (an HTML file to write)."""
    inputs = _Inputs()
    folder = out if out is not None else tempfile.mkdtemp(prefix="podsim-sweep-")
    try:
        args = _arguments("sweep", {**kwargs, "out": folder}, [inputs.path(sweep, "sweep")])
        _call("sweep", args, inputs)
        with open(os.path.join(folder, "results.jsonl"), encoding="utf-8") as lines:
            return [inputs.rename(json.loads(line)) for line in lines if line.strip()]
    finally:
        inputs.close()
        if out is None:
            shutil.rmtree(folder, ignore_errors=True)
