"""Energy per solve and the power traces a run recorded (config `energy`; run/energy.py measures them): one row of
phase "energy" per GPU (graph, variant), and a power trace per such row in the run folder, `power/<file>`, named by
`trace_file` (results/schema.py) and recorded in the row's `power_trace`.

`energy_table` is what the report shows: per graph and variant, joules per solve, the same above the idle power,
average and idle power, the window and its solves, the method, and joules per solve relative to the least of that
graph's variants (the paper's Figure 7 comparison: 2.7 Wh for parDijkstra against 6.3 Wh for nvGRAPH).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd

from .load import Run, label_rows

ENERGY_COLUMNS = [
    "run_id", "graph", "variant", "status", "message", "energy_j", "energy_above_idle_j", "relative", "power_w",
    "idle_power_w", "window_s", "solves", "method", "power_trace",
]


def read_trace(path: Path) -> pd.DataFrame | None:
    """A power trace (t_s, power_w, stage), or None when the file is missing or unreadable."""
    try:
        trace = pd.read_csv(path)
    except (OSError, ValueError):
        return None
    if not {"t_s", "power_w"} <= set(trace.columns):
        return None
    return trace


def energy_table(runs: list[Run], paths: list[Path] | None = None) -> tuple[pd.DataFrame, dict[tuple[str, str], Any]]:
    """(one row per energy record, ENERGY_COLUMNS; {(graph, variant label): its trace frame}) over loaded runs; the
    traces are read from each run's folder in `paths` (in the runs' order) where given."""
    rows = label_rows(runs)
    if rows.empty or "energy" not in set(rows["phase"]):
        return pd.DataFrame(columns=ENERGY_COLUMNS), {}
    folders = {str(manifest["run_id"]): Path(path) for (manifest, _), path in zip(runs, paths or [])}
    records, traces = [], {}
    for row in rows[rows["phase"] == "energy"].itertuples(index=False):
        record = row._asdict()
        energy = _number(record.get("energy_j"))
        power, idle = _number(record.get("power_w")), _number(record.get("idle_power_w"))
        window, solves = _number(record.get("time_s")), _number(record.get("energy_solves"))
        above = (power - idle) * window / solves if None not in (power, idle, window, solves) and solves else None
        trace_name = record.get("power_trace")
        if isinstance(trace_name, str) and trace_name and row.run_id in folders:
            trace = read_trace(folders[row.run_id] / trace_name)
            if trace is not None:
                traces[(row.graph, row.label)] = trace
        records.append({
            "run_id": row.run_id, "graph": row.graph, "variant": row.label, "status": row.status,
            "message": record.get("message") or "", "energy_j": energy, "energy_above_idle_j": above,
            "relative": None, "power_w": power, "idle_power_w": idle, "window_s": window,
            "solves": None if solves is None else int(solves), "method": record.get("energy_method") or "",
            "power_trace": trace_name if isinstance(trace_name, str) else "",
        })
    table = pd.DataFrame.from_records(records, columns=ENERGY_COLUMNS)
    for graph, group in table.groupby("graph", sort=False):
        measured = group["energy_j"].dropna()
        least = measured[measured > 0].min() if not measured.empty else math.nan
        if least and math.isfinite(least):
            table.loc[group.index, "relative"] = group["energy_j"] / least
    return table, traces


def _number(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None
