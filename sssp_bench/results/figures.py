"""The points of the line plots a run's config asks for (run/config.py's `figures`, a paper's figure redrawn from
the run): per figure, each variant's value on each of its graphs, placed at the graph's x (its vertices, arcs,
average degree or a generator parameter, from the run's manifest), beside the paper's published values; or, for
`x: sweep:KEY`, each variant of a parameter sweep placed at its value of KEY, one line per entry and graph (a
paper's tuning plot: time against warps per block). The y value is a summary column, or with `counter:NAME` the
median over verified solves of a numeric counter the implementation reports.

A figure's variants are the names it lists, each standing for variants by results/names.py's rule; without a list,
every variant of the run but its baselines. A graph or variant the run did not include, or one without a verified
solve there, leaves a gap in its line (no point), never a made-up value. A variant whose every solve computes all
pairs (floyd-warshall: summary.solves_all_pairs) is drawn as "NAME (all pairs)": its values are of the all-pairs
computation, beside the others' single-source solves.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .load import Run
from .names import stands_for
from .schema import solve_outcome
from .summary import counter_value, run_variants, solves_all_pairs

ALL_PAIRS_SERIES = "{} (all pairs)"
"""A figure's series name for a variant whose every solve computes all pairs."""

# y -> (the summary column, the axis label)
Y_AXES = {
    "speedup": ("speedup", "speedup over the baseline"),
    "time": ("time_median_ms", "median time per solve, ms"),
    "mteps": ("mteps_median", "MTEPS (median)"),
    "efficiency": ("efficiency", "fraction of the roofline floor (median)"),
}
X_AXES = {"vertices": "vertices", "arcs": "arcs", "average_degree": "average out-degree (arcs / vertices)"}
POINT_COLUMNS = ["series", "published", "graph", "x", "value", "column"]


@dataclass(frozen=True)
class Figure:
    run_id: str
    name: str
    title: str
    y: str            # speedup, time, mteps, efficiency or counter:NAME
    x_label: str
    y_label: str
    graphs: list[str]
    points: pd.DataFrame  # POINT_COLUMNS: one row per (series, graph) with a value; published: the paper's numbers
    columns: list[str]    # the table's columns, in x order: the graphs, or a sweep's "KEY=value" points

    @property
    def swept(self) -> bool:
        """An x: sweep:KEY figure: its points are a parameter's values, not graphs."""
        return self.columns != self.graphs


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
    """Every figure of every run's config, in the runs' and the configs' order. Runs of one config split over
    several calls (`run --graph`, then `report RUN1 RUN2`) draw each figure once, with every run's points: a
    graph measured in more than one of them keeps the first run's."""
    found: dict[tuple[str, str], Figure] = {}
    for manifest, rows in runs:
        run_id = str(manifest["run_id"])
        config = manifest.get("config") or {}
        mine = summary[summary["run_id"] == run_id]
        for spec in config.get("figures") or []:
            figure = _figure(run_id, manifest, rows, mine, spec)
            key = (str(config.get("name", run_id)), figure.name)
            if key in found and _joinable(found[key], figure):
                found[key] = _joined(found[key], figure)
            else:  # a first, or the config's figure changed between the runs: drawn apart
                found[key if key not in found else (run_id, figure.name)] = figure
    return list(found.values())


def _joinable(first: Figure, later: Figure) -> bool:
    return (first.x_label, first.y, first.swept) == (later.x_label, later.y, later.swept)


def _joined(first: Figure, later: Figure) -> Figure:
    """One figure from the same config's figure in two runs: the first's points, then the later run's at graphs
    (or sweep points) the first has none of for that series."""
    taken = set(zip(first.points["series"], first.points["published"], first.points["column"]))
    extra = later.points[[key not in taken for key in zip(later.points["series"], later.points["published"],
                                                           later.points["column"])]]
    points = pd.concat([first.points, extra], ignore_index=True) if len(extra) else first.points
    graphs = list(dict.fromkeys(first.graphs + later.graphs))
    columns = list(dict.fromkeys(points.sort_values("x", kind="stable")["column"])) if first.swept else graphs
    return Figure(first.run_id, first.name, first.title, first.y, first.x_label, first.y_label, graphs, points, columns)


def _figure(run_id: str, manifest: dict[str, Any], rows: pd.DataFrame, summary: pd.DataFrame,
            figure: dict[str, Any]) -> Figure:
    y, x = figure["y"], figure["x"]
    column, y_label = Y_AXES.get(y, ("", f"{y.split(':', 1)[-1]} (median over verified solves)"))
    values = _counter_medians(rows, y.split(":", 1)[1]) if y.startswith("counter:") else {
        (row.graph, _variant_of(str(row.variant), run_id)): getattr(row, column)
        for row in summary.itertuples(index=False)}
    variants = run_variants(rows)
    named = [variant for name in figure["variants"] for variant in stands_for(name, variants)]
    if not figure["variants"]:  # every variant but those the run divided by (one baseline, or one per kind)
        baselines = {_variant_of(str(label), run_id) for label in summary["baseline"] if label}
        named = [variant for variant in variants if variant not in baselines]
    named = list(dict.fromkeys(named))
    series = {variant: ALL_PAIRS_SERIES.format(variant) if solves_all_pairs(variants.get(variant)) else variant
              for variant in named}
    if x.startswith("sweep:"):
        return _sweep_figure(run_id, figure, rows, named, values, y_label)
    records = manifest.get("graphs") or {}
    places = {graph: x_value(records.get(graph) or {}, x) for graph in figure["graphs"]}
    points = [(series[variant], False, graph, places[graph], value, graph)
              for variant in named for graph in figure["graphs"]
              for value in [values.get((graph, variant))]
              if places[graph] is not None and _finite(value)]
    for series, published in figure["paper"].items():
        points += [(series, True, graph, places[graph], float(value), graph)
                   for graph, value in zip(figure["graphs"], published)
                   if value is not None and places[graph] is not None]
    return Figure(run_id, figure["name"], figure["title"], y, X_AXES.get(x, x.split(":", 1)[-1]), y_label,
                  list(figure["graphs"]), pd.DataFrame.from_records(points, columns=POINT_COLUMNS),
                  list(figure["graphs"]))


def _sweep_figure(run_id: str, figure: dict[str, Any], rows: pd.DataFrame, named: list[str],
                  values: dict[tuple[str, str], Any], y_label: str) -> Figure:
    """Each named variant with the swept parameter at its value of it: a line per sweep entry (the variant's name
    less its `[...]`) and graph; the table's columns are the parameter's values."""
    key = figure["x"].split(":", 1)[1]
    params = dict(zip(rows["variant"], rows["params"]))
    several = len(figure["graphs"]) > 1
    points = []
    for variant in named:
        place = (params.get(variant) or {}).get(key)
        if isinstance(place, bool) or not isinstance(place, (int, float)):
            continue
        entry = variant.split("[", 1)[0]
        if solves_all_pairs(rows.loc[rows["variant"] == variant, "implementation"].iloc[0]):
            entry = ALL_PAIRS_SERIES.format(entry)
        for graph in figure["graphs"]:
            value = values.get((graph, variant))
            if _finite(value):
                points.append((f"{entry} on {graph}" if several else entry, False, graph, float(place), value,
                               f"{key}={place:g}"))
    frame = pd.DataFrame.from_records(points, columns=POINT_COLUMNS)
    columns = list(dict.fromkeys(frame.sort_values("x", kind="stable")["column"]))
    return Figure(run_id, figure["name"], figure["title"], figure["y"], key, y_label, list(figure["graphs"]), frame,
                  columns)


def _counter_medians(rows: pd.DataFrame, name: str) -> dict[tuple[str, str], float]:
    """(graph, variant) -> the median of counter `name` over the verified solves that report it as a finite number."""
    solves = rows[rows["phase"] == "solve"]
    found: dict[tuple[str, str], list[float]] = {}
    for row in solves.itertuples(index=False):
        if solve_outcome(row.status, row.certificate, row.reference) != "verified":
            continue
        value = counter_value(row.counters, name)
        if not math.isnan(value):
            found.setdefault((row.graph, row.variant), []).append(value)
    return {key: float(np.median(values)) for key, values in found.items()}


def _finite(value: Any) -> bool:
    return isinstance(value, float) and math.isfinite(value)


def _variant_of(label: str, run_id: str) -> str:
    """The variant a summary label names: the label, less the "run-id/" merged runs put before a shared variant."""
    prefix = f"{run_id}/"
    return label[len(prefix):] if label.startswith(prefix) else label
