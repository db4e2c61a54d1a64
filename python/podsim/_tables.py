"""podsim.to_pandas: a result's natural rows as a pandas DataFrame (docs/python.md, "Tables").

The rows are the result's own JSON objects, nested objects flattened into dotted columns
(``step_time_s.book``); lists (an op's collectives) stay one cell.
"""


def _import_pandas():
    try:
        import pandas
    except ImportError as error:
        raise ImportError("podsim.to_pandas needs pandas, which this Python cannot import "
                          f"({error}); install it (pip install pandas, or apt-get install python3-pandas) "
                          "or use the result's dicts and lists directly") from error
    return pandas


def _op_rows(scenario):
    """One row per op of every plan of a `podsim run` object."""
    rows = []
    name = scenario.get("scenario", {}).get("name")
    for plan in scenario.get("plans", []):
        for op in plan.get("ops", []):
            rows.append({"scenario": name, "plan": plan.get("name"), **op})
    return rows


def _check_rows(scenario):
    name = scenario.get("scenario", {}).get("name")
    return [{"scenario": name, **check} for check in scenario.get("checks", [])]


def _sweep_rows(records):
    """One row per (point, plan) of sweep records; a point without plans (it failed) is one row with plan None."""
    rows = []
    for record in records:
        head = {"point": record.get("point")}
        head.update({f"params.{pointer}": value for pointer, value in record.get("params", {}).items()})
        head.update({"model": record.get("model"), "error": record.get("error"), "hash": record.get("hash")})
        plans = record.get("plans") or {}
        if not plans:
            rows.append({**head, "plan": None})
        for name, figures in plans.items():
            rows.append({**head, "plan": name, **figures})
    return rows


def rows(result):
    """The natural rows of a podsim result, as a list of dicts: a plan search's candidates (ranked, then rejected),
    a run's ops (of every plan and scenario), a check's checks, sweep records one per (point, plan), the hardware
    list's presets, validate's and calibrate's measurement rows; any other object is one row."""
    if isinstance(result, list):
        if all(isinstance(r, dict) and "point" in r and "plans" in r for r in result):
            return _sweep_rows(result)
        return [r if isinstance(r, dict) else {"value": r} for r in result]
    if not isinstance(result, dict):
        raise TypeError(f"podsim.to_pandas expects a podsim result (a dict or a list), got: {type(result).__name__}")
    if "candidates" in result:
        return list(result["candidates"])
    if "plans" in result and "scenario" in result:
        return _op_rows(result)
    if "scenarios" in result:
        per_scenario = _check_rows if "passed" in result else _op_rows
        return [row for scenario in result["scenarios"] for row in per_scenario(scenario)]
    if isinstance(result.get("presets"), list):
        return list(result["presets"])
    if isinstance(result.get("rows"), list):
        return list(result["rows"])
    return [result]


def to_pandas(result):
    """A pandas DataFrame of `result`'s natural rows (see rows()), nested objects as dotted columns. Raises
    ImportError, saying so, when pandas cannot be imported."""
    pandas = _import_pandas()
    return pandas.json_normalize(rows(result), sep=".")
