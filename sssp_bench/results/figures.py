"""The points of the line plots a run's config asks for (run/config.py's `figures`, a paper's figure redrawn from
the run): per figure, each variant's value on each of its graphs, placed at the graph's x (its vertices, arcs,
average degree or a generator parameter, from the run's manifest), beside the paper's published values.

A figure's variants are the names it lists, each standing for variants by results/names.py's rule; without a list,
every variant of the run but its baselines. A graph or variant the run did not include, or one without a verified
solve there, leaves a gap in its line (no point), never a made-up value.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from .load import Run
from .names import stands_for
from .summary import run_variants

# y -> (the summary column, the axis label)
Y_AXES = {
    "speedup": ("speedup", "speedup over the baseline"),
    "time": ("time_median_ms", "median time per solve, ms"),
    "mteps": ("mteps_median", "MTEPS (median)"),
    "efficiency": ("efficiency", "fraction of the roofline floor (median)"),
}
X_AXES = {"vertices": "vertices", "arcs": "arcs", "average_degree": "average out-degree (arcs / vertices)"}
POINT_COLUMNS = ["series", "published", "graph", "x", "value"]


@dataclass(frozen=True)
class Figure:
    run_id: str
    name: str
    title: str
    y: str            # speedup, time, mteps or efficiency
    x_label: str
    y_label: str
    graphs: list[str]
    points: pd.DataFrame  # POINT_COLUMNS: one row per (series, graph) with a value; published: the paper's numbers


def x_value(record: dict[str, Any], x: str) -> float | None:
    """A graph's place on a figure's x axis, from its manifest record; None where the record does not say."""
    n, m = record.get("n"), record.get("m")
    if x == "vertices":
        return float(n) if n is not None else None
    if x == "arcs":
        return float(m) if m is not None else None
    if x == "average_degree":
        return float(m) / float(n) if n and m is not None else None
    key = x.split(":", 1)[1]
    value = ((record.get("provenance") or {}).get("params") or {}).get(key)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def figures(runs: Sequence[Run], summary: pd.DataFrame) -> list[Figure]:
    """Every figure of every run's config, in the runs' and the configs' order."""
    found = []
    for manifest, rows in runs:
        run_id = str(manifest["run_id"])
        mine = summary[summary["run_id"] == run_id]
        for figure in (manifest.get("config") or {}).get("figures") or []:
            found.append(_figure(run_id, manifest, rows, mine, figure))
    return found


def _figure(run_id: str, manifest: dict[str, Any], rows: pd.DataFrame, summary: pd.DataFrame,
            figure: dict[str, Any]) -> Figure:
    column, y_label = Y_AXES[figure["y"]]
    x = figure["x"]
    records = manifest.get("graphs") or {}
    places = {graph: x_value(records.get(graph) or {}, x) for graph in figure["graphs"]}
    variants = run_variants(rows)
    named = [variant for name in figure["variants"] for variant in stands_for(name, variants)]
    if not figure["variants"]:  # every variant but those the run divided by (one baseline, or one per kind)
        baselines = {_variant_of(str(label), run_id) for label in summary["baseline"] if label}
        named = [variant for variant in variants if variant not in baselines]
    points = []
    for variant in dict.fromkeys(named):
        for row in summary[summary["graph"].isin(places)].itertuples(index=False):
            if _variant_of(str(row.variant), run_id) != variant:
                continue
            value = getattr(row, column)
            if places[row.graph] is not None and isinstance(value, float) and math.isfinite(value):
                points.append((variant, False, row.graph, places[row.graph], value))
    for series, values in figure["paper"].items():
        points += [(series, True, graph, places[graph], float(value))
                   for graph, value in zip(figure["graphs"], values)
                   if value is not None and places[graph] is not None]
    return Figure(run_id, figure["name"], figure["title"], figure["y"], X_AXES.get(x, x.split(":", 1)[-1]), y_label,
                  list(figure["graphs"]), pd.DataFrame.from_records(points, columns=POINT_COLUMNS))


def _variant_of(label: str, run_id: str) -> str:
    """The variant a summary label names: the label, less the "run-id/" merged runs put before a shared variant."""
    prefix = f"{run_id}/"
    return label[len(prefix):] if label.startswith(prefix) else label
