"""podsim from Python: the podsim program's commands as functions (docs/python.md).

Each function runs the podsim command of the same name in this process (the extension podsim._podsim registers
the program's own subcommands), with the command's long options as keyword arguments (dashes become
underscores: ``array_bytes=`` for ``--array-bytes``), and returns what the command prints with ``--json``,
decoded into dicts and lists. Subcommands are functions named after both words (``podsim sweep merge`` is
sweep_merge, ``podsim model describe`` model_describe) and ``podsim import`` is import_ (``import`` is a keyword).
Commands without a --json mode return what they write (sweep_merge its records, sweep_report the report's path).
Simulations run in forked child processes, as in the program, so a SimGrid abort becomes an exception and calls
can be repeated in one interpreter.

    >>> import podsim
    >>> podsim.shard(mesh="X=8,Y=2", shape=[1024, 4096], dtype="f32", sharding="A[I_XY, J]")["local_shape"]
    [64, 4096]
"""

import json
import os
import shutil
import tempfile
import types

from podsim import _podsim
from podsim._errors import Error, FlagError, InputError, InternalError, ScenarioError, raise_error
from podsim._inputs import Inputs as _Inputs
from podsim._tables import to_pandas

__all__ = [
    "shard",
    "collective",
    "hardware",
    "topology",
    "run",
    "check",
    "plan",
    "serve",
    "sweep",
    "sweep_merge",
    "sweep_report",
    "model_describe",
    "model",
    "calibrate",
    "validate",
    "import_",
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
_RESERVED = {"json", "csv", "format", "markdown"}

_options_cache = {}


def options(command):
    """The options of ``podsim COMMAND`` as the program declares them (``"sweep merge"``, ``"model describe"``: of
    a subcommand): a list of dicts with ``name`` (the keyword argument, dashes as underscores), ``flag`` (the CLI's
    ``--option``, ``""`` for a positional), ``takes_value``, ``repeatable``, ``required``, ``default`` and
    ``help``. Raises ValueError for a command podsim does not have."""
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


def _arguments(command, kwargs, positional=(), output=(), reserved=()):
    """The command line of ``podsim COMMAND`` for these keyword arguments (checked against the command's options;
    `reserved` ones the function sets itself), then the `output` options the function sets (``--json``), then the
    positional words after ``--``."""
    known = {entry["name"]: entry for entry in options(command)}
    reserved = _RESERVED | set(reserved)
    function = command.replace(" ", "_").replace("import", "import_")
    args = []
    for name, value in kwargs.items():
        entry = known.get(name)
        if entry is None or name in reserved or not entry["flag"]:
            allowed = sorted(n for n, e in known.items() if e["flag"] and n not in reserved)
            raise TypeError(f"podsim.{function}() got an unexpected keyword argument '{name}' "
                            f"(its options: {', '.join(allowed)})")
        if value is None:
            continue
        flag = entry["flag"]
        if not entry["takes_value"]:
            if not isinstance(value, bool):
                raise TypeError(f"podsim.{function}(): {name} is an on/off flag ({flag}), expected True or False, "
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


def _call(command, args, inputs=None):
    """Runs the command (``"sweep merge"``: a subcommand): (exit code, stdout text); raises the command's error
    as a podsim.Error."""
    words = command.split()
    code, out, error = _podsim.call(words[0], words[1:] + list(args))
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


def topology(**kwargs):
    """``podsim topology --json``: a slice's chips, links, wraparound, diameter and mean hops, bisection and cubes.

    Keywords: hardware, slice (list or "4x4x8"), wrap, twist (True: a twisted torus), failed_links (link names),
    failed_chips (chip ids, e.g. [5]), spare_cubes (int), links (True: every link's name too), shapes (True: the
    shapes the preset's pods form instead of one slice)."""
    return _json_call("topology", _arguments("topology", kwargs, output=["--json"]))


def run(scenario, **kwargs):
    """``podsim run SCENARIO --format json``: every plan of a scenario, simulated and closed-form, side by side.

    `scenario` is a path or a dict (or a list of them: then {"scenarios": [...], "checks_passed"}); import_()
    returns such a dict. Keywords: plan, schedule, verify_values (bool), uncalibrated (bool), trace (a Chrome
    trace file to write), report (an HTML file to write)."""
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


def check(*paths, **kwargs):
    """``podsim check PATH... --json``: every scenario's expect list. Paths are files, folders or scenario dicts
    (none: the folder "scenarios"). Keywords: uncalibrated (bool). Returns {"scenarios": [run objects], "passed",
    "failed", "checks_passed"}; failed checks are data, not an exception."""
    inputs = _Inputs()
    try:
        words = [inputs.path(path, "scenario") if isinstance(path, dict) else os.fspath(path) for path in paths]
        return _json_call("check", _arguments("check", kwargs, words, ["--json"]), inputs)
    finally:
        inputs.close()


def plan(scenario, **kwargs):
    """``podsim plan SCENARIO --json``: a model-level scenario's candidates screened by the closed form, the best
    simulated, ranked. `scenario` is a path or a dict. Keywords: top (int), model ("book", "des" or "both"),
    uncalibrated (bool), report (an HTML file to write), trace (a Chrome trace file to write) and candidate (the
    rank traced). Returns the JSON object ("candidates", "search", ...)."""
    inputs = _Inputs()
    try:
        args = _arguments("plan", kwargs, [inputs.path(scenario, "scenario")], ["--json"])
        return _json_call("plan", args, inputs)
    finally:
        inputs.close()


def serve(scenario, **kwargs):
    """``podsim serve SCENARIO --json``: a serving scenario's requests through its replicas. `scenario` is a path or
    a dict. Keywords: model ("book" or "des": how a replica's step is timed), plan (the plan a replica runs),
    uncalibrated (bool), report (an HTML file to write), trace (a Chrome trace file to write). Returns the JSON
    object ("ttft_s", "tpot_s", "itl_s", "e2e_s", "throughput", "goodput_requests_per_s", "slo", ...)."""
    inputs = _Inputs()
    try:
        args = _arguments("serve", kwargs, [inputs.path(scenario, "scenario")], ["--json"])
        return _json_call("serve", args, inputs)
    finally:
        inputs.close()


def sweep(sweep, out=None, **kwargs):
    """``podsim sweep SWEEP --out DIR``: every point of a sweep, on worker processes; returns the records of
    DIR/results.jsonl (one dict per point: "point", "params", "hash", "model", "error", "plans").

    `sweep` is a path or a dict (its "base" a path, relative to the current folder for a dict, or an inline
    scenario dict). `out` is the results folder; without it a temporary one is used and removed. Keywords: model
    ("book", "des" or "both"), shard ("i/N"), jobs (int), uncalibrated (bool), report (an HTML file to write).
    ``podsim sweep merge`` and ``podsim sweep report`` are sweep_merge() and sweep_report(), also reachable as
    ``podsim.sweep.merge`` and ``podsim.sweep.report``."""
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


def _read_back(path, inputs, keep):
    """The JSON object a command wrote to `path`, temporary files' names replaced by what they stand for; when the
    file is kept (`keep`) and named one, it is written again as returned (the temporary file is gone)."""
    with open(path, encoding="utf-8") as written:
        raw = json.load(written)
    shown = inputs.rename(raw)
    if keep and shown != raw:
        with open(path, "w", encoding="utf-8") as out:
            json.dump(shown, out, indent=2)
            out.write("\n")
    return shown


def _records(folder, inputs=None):
    """The records of FOLDER/results.jsonl, one dict per line."""
    with open(os.path.join(folder, "results.jsonl"), encoding="utf-8") as lines:
        records = [json.loads(line) for line in lines if line.strip()]
    return inputs.rename(records) if inputs is not None else records


def sweep_merge(*dirs, out):
    """``podsim sweep merge DIR... --out OUT``: joins shards' results folders (each written by
    ``sweep(..., shard="i/N", out=DIR)``) into the folder `out`, as a single run writes it, and returns its records
    (OUT/results.jsonl, one dict per point, as sweep() returns them). The command has no --json mode: what it
    writes is the result."""
    if not dirs:
        raise TypeError("podsim.sweep_merge() needs at least one results folder")
    _call("sweep merge", _arguments("sweep merge", {"out": out}, dirs))
    return _records(os.fspath(out))


def sweep_report(*dirs, report):
    """``podsim sweep report DIR... --report FILE.html``: draws results folders (shards are merged) as one
    self-contained HTML report and returns the path of the file written (`report`). The command has no --json mode:
    the HTML file is its result."""
    if not dirs:
        raise TypeError("podsim.sweep_report() needs at least one results folder")
    _call("sweep report", _arguments("sweep report", {"report": report}, dirs))
    return os.fspath(report)


sweep.merge = sweep_merge
sweep.report = sweep_report


def model_describe(**kwargs):
    """``podsim model describe --json``: a transformer's parameters, FLOPs per token, KV cache and training state.

    Keywords: preset (a preset of configs/models, e.g. "llama3-8b", or a preset file) or config (a Hugging Face
    config.json), batch_tokens, seq_len, checkpoints_per_layer or remat ("none"), weight_dtype, kv_dtype,
    master_weights (bool). Returns the JSON object ("model", "params", "flops_per_token", "kv_cache_bytes_per_token",
    "weight_bytes", "training_state_bytes", "workload")."""
    return _json_call("model describe", _arguments("model describe", kwargs, output=["--json"]))


# ``podsim model`` has the one subcommand describe: podsim.model.describe(...) is model_describe(...).
model = types.SimpleNamespace(describe=model_describe)


def calibrate(measurements, hardware, output=None):
    """``podsim calibrate MEASUREMENTS --hardware PRESET --json``: fits the des's calibration to measured times.

    `measurements` is a measurement CSV path, or a list of row dicts with the CSV's columns as keys (id, kind,
    measured, hardware, op, slice, axes, bytes, ..., fit: True/False for yes/no). `hardware` is the preset (name or
    file) they were measured on. Returns the JSON object the command prints ("rows", "fitted", "calibration",
    "skipped", ...) with one key added, "overlay": the overlay (a hardware file: "name", "description", "base",
    "sources", "calibration"). With `output` (a .json path) the overlay is written there, as ``-o`` writes it
    (its base relative to that file's folder; rows given as dicts named ``<measurement rows>``); without, it is
    written to a temporary file named PRESET-calibrated.json and removed, its "base" the `hardware` as given (a
    preset file's path relative to the current folder). To use it, write it to a file named after its "name" and
    give that file as `hardware`."""
    inputs = _Inputs()
    hardware = os.fspath(hardware)
    folder = None
    try:
        path = inputs.measurements(measurements)
        if output is None:
            folder = tempfile.mkdtemp(prefix="podsim-calibrate-")
            stem = os.path.splitext(os.path.basename(hardware))[0]
            target = os.path.join(folder, stem + "-calibrated.json")
        else:
            target = os.fspath(output)
        args = _arguments("calibrate", {"hardware": hardware, "output": target}, [path], ["--json"])
        result = _json_call("calibrate", args, inputs)
        overlay = _read_back(target, inputs, keep=output is not None)
        if output is None and overlay.get("base") != hardware:  # a preset file: its path from here, not the folder
            written_base = overlay["base"]
            overlay["base"] = hardware
            overlay["description"] = overlay.get("description", "").replace(written_base, hardware, 1)
        result["overlay"] = overlay
        return result
    finally:
        inputs.close()
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)


def validate(*dirs, **kwargs):
    """``podsim validate [DIR...] --json``: podsim against published TPU measurements, each row predicted by the
    book model and by the des without and with the preset's calibration (docs/validation.md).

    `dirs` are folders of measurement CSV files or files (none: the folder "validation"). Keywords: rows (a row id
    or a list of them: only those). Returns {"schema", "rows": [{"id", "source", "quantity", "measured", "book",
    "des_uncalibrated", "des_calibrated", "error_calibrated", "fitted", ...}], "summary"}."""
    return _json_call("validate", _arguments("validate", kwargs, [os.fspath(d) for d in dirs], ["--json"]))


def import_(module, output=None, **kwargs):
    """``podsim import FILE -o SCENARIO.json``: a StableHLO module with Shardy shardings as a scenario, returned
    as a dict that run(), check() and sweep() accept as they are (docs/import.md).

    `module` is a path to the module text, the text itself (a str with a line break, or starting with
    ``module``: what ``jax.jit(f).lower(...).as_text()`` returns), or an object with ``as_text()`` (JAX's
    Lowered). Text is written to a temporary NAME.mlir, NAME the module's ``@name`` (the scenario's name), and
    named ``<module text>`` in errors and in the scenario's description. Keywords: hardware (a preset name or
    file), slice (a list of ints or "4x2"), function (the function to import when not @main). With `output` the scenario is also written there (as ``-o`` writes it,
    module text named ``<module text>``); without, it is written to a temporary file, read and removed. Named
    ``import_`` because ``import`` is a Python keyword."""
    inputs = _Inputs()
    try:
        path = inputs.module(module)
        target = os.fspath(output) if output is not None else inputs.output(".json", "<imported scenario>")
        args = _arguments("import", {**kwargs, "output": target}, [path])
        _call("import", args, inputs)
        return _read_back(target, inputs, keep=output is not None)
    finally:
        inputs.close()
