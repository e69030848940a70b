"""One row per graph and variant over the solves of one or more runs: timings of the verified solves, the speedup
over the baseline, the speed target and whether it was met (SUMMARY_COLUMNS; the report's table and report.csv).

Only *verified* solves (schema.solve_outcome) count toward timing: a wrong or unchecked answer is not a result,
however fast it was. Merged runs keep a variant that two of them ran on one graph apart (load.label_rows).

Speedup = the baseline's median time / the variant's, both over the sources both verified, so that a baseline run
on 3 sources is not divided by a median over 100 (`speedup_sources`: "3/100", the sources both verified of those
the busier side verified; where they share none, the two whole medians, "0/N"). The report marks a speedup over
fewer sources than either side verified.

All pairs: an implementation whose every solve computes all pairs (`solves_all_pairs`, floyd-warshall) has its
rows marked `all_pairs`: its times, MTEPS, efficiency and speedup are of the all-pairs computation, which the report
marks wherever they stand beside single-source ones; no speedup divides by it (that would pass an all-pairs time off
as one source's).

Best CPU: beside the config's baseline (the paper's), every GPU variant is also divided by the fastest CPU variant
that verified the same problem kind on the graph, by median time (`best_cpu`, `best_cpu_speedup`, over the sources
both verified as `best_cpu_sources` says), so the paper's denominator and an honest one are read side by side. It is
looked for in the variant's own run, else in the other merged runs (`best_cpu_run_id`); all-pairs variants are never
it. CPU rows leave these columns empty.

Stand-ins: a graph whose real file was not fetched and whose synthetic stand-in ran instead keeps the paper's label,
so tables line up with the paper; its summary rows carry `stand_in_for` and the `stand_in` spec, from the run's
manifest (the authority), else from the rows.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd

from .load import Run, as_runs, label_rows
from .names import baseline_for, name_for, stands_for
from .schema import FAILURE_OUTCOMES, solve_outcome

SUMMARY_COLUMNS = [
    "run_id", "graph", "stand_in_for", "stand_in", "variant", "implementation", "device", "kind", "all_pairs", "solves",
    "verified", "verified_total",
    "failures", "time_median_ms", "time_min_ms", "time_q25_ms", "time_q75_ms", "time_iqr_ms",
    "end_to_end_median_ms", "mteps_median", "reached_arcs_median", "efficiency", "floor_median_ms", "speedup",
    "baseline", "baseline_run_id",
    "speedup_note", "speedup_sources", "best_cpu_speedup", "best_cpu", "best_cpu_run_id", "best_cpu_sources",
    "prepare_ms", "prepare_status", "target_mteps", "target_met", "energy_j",
] + [f"n_{outcome}" for outcome in FAILURE_OUTCOMES]


def summarize(runs: Any) -> pd.DataFrame:
    """One row per (graph, variant) over the solves of one or more runs (see the module docstring).

    `runs`: a run folder, a `(manifest, rows)` pair from `load_run`, or a sequence of either (load.as_runs).
    Timing columns are in milliseconds and cover verified solves only; they are NaN where none verified.
    """
    loaded = as_runs(runs)
    rows = label_rows(loaded)
    if rows.empty:
        return pd.DataFrame(columns=SUMMARY_COLUMNS)
    manifests = {str(manifest["run_id"]): manifest for manifest, _ in loaded}

    groups = rows.groupby(["run_id", "graph", "label"], sort=False, dropna=False)
    records = [_summarize_group(run_id, graph, label, group) for (run_id, graph, label), group in groups]
    summary = pd.DataFrame.from_records(records)
    _add_stand_ins(summary, manifests)
    _add_speedups(summary, rows, loaded, manifests)
    _add_best_cpu_speedups(summary, rows)
    _add_targets(summary, loaded)

    # Graph-major order: graphs in the order the runs first met them (the config's order); variants in each run's
    # config order (the runner varies the order it runs them in from graph to graph, run/order.py), then any the
    # config does not list (hand-written runs) in the order the rows met them.
    graph_order = {graph: index for index, graph in enumerate(dict.fromkeys(rows["graph"]))}
    label_of = {(str(run_id), variant): label
                for run_id, variant, label in zip(rows["run_id"], rows["variant"], rows["label"])}
    in_config_order = [label_of[(str(manifest["run_id"]), variant["name"])] for manifest, _ in loaded
                       for variant in (manifest.get("config") or {}).get("variants") or []
                       if isinstance(variant, dict) and (str(manifest["run_id"]), variant.get("name")) in label_of]
    label_order = {label: index for index, label in enumerate(dict.fromkeys([*in_config_order, *rows["label"]]))}
    summary["_graph_order"] = summary["graph"].map(graph_order)
    summary["_label_order"] = summary["variant"].map(label_order)
    summary = summary.sort_values(["_graph_order", "_label_order"], kind="stable")
    return summary.drop(columns=["_graph_order", "_label_order"]).reset_index(drop=True)[SUMMARY_COLUMNS]


def baseline_text(baseline: Any) -> str:
    """A run's baseline as a line of text: the name, or "sssp: cpu-dijkstra, bfs: cpu-bfs"."""
    if isinstance(baseline, dict):
        return ", ".join(f"{kind}: {name}" for kind, name in baseline.items())
    return str(baseline or "none")


def declared(implementation: Any, trait: str, default: Any = None) -> Any:
    """What the implementation of this name declares as `trait` (a class attribute of impls/base.py's, read from the
    registry's classes: importing them imports no CuPy, so this runs on a machine without a GPU); `default` for a
    name the registry does not know (rows of an implementation since renamed, hand-written test rows)."""
    from ..impls import registry  # results read the implementations' declared traits, never their code paths

    return getattr(registry().get(str(implementation)), trait, default)


def solves_all_pairs(implementation: Any) -> bool:
    """Whether every solve of the implementation of this name computes all pairs (impls' `solves_all_pairs`); False
    for a name the registry does not know."""
    return bool(declared(implementation, "solves_all_pairs", False))


def recommended_for(implementation: Any) -> tuple[str, ...] | None:
    """The graph classes an implementation of this name declares it is meant for (impls' `recommended_for`); None
    for every graph, and for a name the registry does not know."""
    classes = declared(implementation, "recommended_for")
    return None if classes is None else tuple(str(name) for name in classes)


def counter_value(counters: Any, name: str) -> float:
    """A solve row's counter `name` (its `counters` mapping) as a number; NaN where the row reports none, or one
    that is no number (a bool, a text) or not finite."""
    value = counters.get(name) if isinstance(counters, dict) else None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return math.nan
    number = float(value)
    return number if math.isfinite(number) else math.nan


def run_variants(rows: pd.DataFrame) -> dict[str, str]:
    """A run's variants (variant name -> implementation) in the order its rows met them: what a name in its config
    stands for is resolved against these (names.py)."""
    return dict(zip(rows["variant"], rows["implementation"]))


def target_scale(manifest: dict[str, Any]) -> tuple[float | None, str]:
    """(device bandwidth / paper bandwidth, the device) for a run whose config has targets; None when the run's
    GPU is unknown or matches no `device_bandwidth_gbs` entry."""
    targets = (manifest.get("config") or {}).get("targets") or {}
    gpu = ((manifest.get("provenance") or {}).get("gpu") or {})
    name = str(gpu.get("name") or "")
    for fragment, bandwidth in (targets.get("device_bandwidth_gbs") or {}).items():
        if fragment and fragment in name and targets.get("paper_bandwidth_gbs"):
            return bandwidth / targets["paper_bandwidth_gbs"], f"{name} ({bandwidth:g} GB/s)"
    return None, name or "no GPU"


def paper_mteps(runs: Any) -> dict[tuple[str, str, str], float]:
    """The paper's MTEPS that each (run id, graph, variant label as the summary names it) is held to: its run's
    `targets.mteps` for that graph, under the name that stands for its variant (names.name_for)."""
    loaded = as_runs(runs)
    goals_by_run = {str(manifest["run_id"]): ((manifest.get("config") or {}).get("targets") or {}).get("mteps") or {}
                    for manifest, _ in loaded}
    variants_by_run = {str(manifest["run_id"]): run_variants(rows) for manifest, rows in loaded}
    labelled = label_rows(loaded)
    papers: dict[tuple[str, str, str], float] = {}
    for run_id, graph, variant, label in dict.fromkeys(
            zip(labelled["run_id"], labelled["graph"], labelled["variant"], labelled["label"])):
        goals = goals_by_run[run_id].get(graph) or {}
        name = name_for(variant, goals, variants_by_run[run_id])
        if name is not None:
            papers[(run_id, graph, label)] = goals[name]
    return papers


def _summarize_group(run_id: str, graph: str, label: str, group: pd.DataFrame) -> dict[str, Any]:
    solves = group[group["phase"] == "solve"]
    prepares = group[group["phase"] == "prepare"]
    outcomes = [
        solve_outcome(status, certificate, reference)
        for status, certificate, reference in zip(solves["status"], solves["certificate"], solves["reference"])
    ]
    # A boolean array, not a list: an empty list would select zero *columns*.
    verified = solves[np.array([outcome == "verified" for outcome in outcomes], dtype=bool)]
    outcome_counts = pd.Series(outcomes, dtype=object).value_counts()

    times_ms = verified["time_s"].dropna().to_numpy() * 1e3
    q25, median, q75 = np.quantile(times_ms, [0.25, 0.5, 0.75]) if times_ms.size else (math.nan,) * 3

    prepare_statuses = [status for status in prepares["status"] if status != "ok"]
    prepare_times_ms = prepares.loc[prepares["status"] == "ok", "time_s"].dropna().to_numpy() * 1e3

    failures = [
        f"{outcome} {count}" for outcome, count in outcome_counts.items() if outcome != "verified"
    ] + [f"prepare {status}" for status in prepare_statuses]

    record: dict[str, Any] = {
        "run_id": run_id,
        "graph": graph,
        "stand_in_for": _first(group["stand_in_for"]) or "",
        "stand_in": _first(group["stand_in"]) or "",
        "variant": label,
        "implementation": _first(group["implementation"]),
        "device": _first(group["device"]),
        "kind": _first(group["kind"]),
        "all_pairs": solves_all_pairs(_first(group["implementation"])),
        "solves": int(len(solves)),
        "verified": int(len(verified)),
        "verified_total": f"{len(verified)}/{len(solves)}",
        "failures": ", ".join(failures),
        "time_median_ms": float(median),
        "time_min_ms": float(times_ms.min()) if times_ms.size else math.nan,
        "time_q25_ms": float(q25),
        "time_q75_ms": float(q75),
        "time_iqr_ms": float(q75 - q25),
        "end_to_end_median_ms": _median(verified["end_to_end_s"]) * 1e3,
        "mteps_median": _median(verified["mteps"]),
        "reached_arcs_median": _median(verified["reached_arcs"]),
        "efficiency": _median(verified["floor_s"] / verified["time_s"].where(verified["time_s"] > 0)),
        "floor_median_ms": _median(verified["floor_s"]) * 1e3,
        "speedup": math.nan,
        "baseline": "",
        "baseline_run_id": "",
        "speedup_note": "",
        "speedup_sources": "",
        "best_cpu_speedup": math.nan,
        "best_cpu": "",
        "best_cpu_run_id": "",
        "best_cpu_sources": "",
        "prepare_ms": float(np.median(prepare_times_ms)) if prepare_times_ms.size else math.nan,
        "prepare_status": prepare_statuses[0] if prepare_statuses else ("ok" if len(prepares) else ""),
        "energy_j": _energy_per_solve(group),
    }
    for outcome in FAILURE_OUTCOMES:
        record[f"n_{outcome}"] = int(outcome_counts.get(outcome, 0))
    return record


def _stand_in_record(manifest: dict[str, Any], graph: str) -> dict[str, Any] | None:
    """The manifest's graph record when that graph ran as a stand-in, else None."""
    info = (manifest.get("graphs") or {}).get(graph)
    return info if isinstance(info, dict) and info.get("stand_in_for") else None


def _add_stand_ins(summary: pd.DataFrame, manifests: dict[str, dict[str, Any]]) -> None:
    """stand_in_for and stand_in from the run's manifest (the authority), else from the rows."""
    for index, row in summary.iterrows():
        record = _stand_in_record(manifests.get(str(row.run_id), {}), row.graph)
        if record is not None:
            summary.at[index, "stand_in_for"] = str(record["stand_in_for"])
            summary.at[index, "stand_in"] = str(record.get("stand_in") or "")


def _add_speedups(summary: pd.DataFrame, rows: pd.DataFrame, loaded: list[Run],
                  manifests: dict[str, dict[str, Any]]) -> None:
    """Fill speedup, baseline, baseline_run_id and speedup_note in place.

    The baseline is the run's own (manifest "baseline"); a run without one borrows the first merged run's. A
    variant is divided by the baseline of its problem kind (names.baseline_for: one name for every kind, or one
    per kind). It must stand for exactly one variant on the graph (names.py), looked for in the same run first,
    then in the other merged runs (a baseline measured once and GPU implementations measured in a later run). A
    baseline that ran and failed gives no speedup, nor does one that solves all pairs. Both medians are over the
    sources both verified (`speedup_sources`, the module docstring).
    """
    run_order = [str(manifest["run_id"]) for manifest, _ in loaded]
    variants_of = {str(manifest["run_id"]): run_variants(run_rows) for manifest, run_rows in loaded}
    fallback_name = next((m.get("baseline") for m, _ in loaded if m.get("baseline")), None)
    by_key = {(r.run_id, r.graph, r.variant): index for index, r in summary.iterrows()}
    # (run, graph) -> {variant: its label} of everything that ran there.
    ran: dict[tuple[str, str], dict[str, str]] = {}
    for run_id, graph, variant, label in zip(rows["run_id"], rows["graph"], rows["variant"], rows["label"]):
        ran.setdefault((run_id, graph), {})[variant] = label
    times = verified_times_by_source(rows)

    def baseline_key(run_id: str, graph: str, name: str) -> tuple[tuple[str, str, str] | None, str]:
        """(run, graph, label) of the baseline's variant on this graph, or None and why not."""
        several: list[str] = []
        for candidate_run in [run_id] + [other for other in run_order if other != run_id]:
            here = ran.get((candidate_run, graph), {})
            matches = [here[variant] for variant in stands_for(name, variants_of[candidate_run]) if variant in here]
            if len(matches) == 1:
                return (candidate_run, graph, matches[0]), ""
            several = several or matches
        if several:
            return None, f"baseline {name} stands for several variants on this graph ({', '.join(several)})"
        return None, f"baseline {name} did not run on this graph"

    for index, row in summary.iterrows():
        baseline = manifests[row.run_id].get("baseline") or fallback_name
        if not baseline:
            summary.at[index, "speedup_note"] = "no baseline configured"
            continue
        name = baseline_for(baseline, row.kind)
        if not name:
            summary.at[index, "speedup_note"] = f"no {row.kind} baseline configured (baseline: {baseline_text(baseline)})"
            continue
        key, why_not = baseline_key(row.run_id, row.graph, name)
        if key is None:
            summary.at[index, "speedup_note"] = why_not
            continue
        base = summary.loc[by_key[key]]
        summary.at[index, "baseline"] = key[2]
        summary.at[index, "baseline_run_id"] = key[0]
        if not base.verified:
            summary.at[index, "speedup_note"] = f"baseline {key[2]} has no verified solve on this graph"
        elif not row.verified:
            summary.at[index, "speedup_note"] = "no verified solve"
        elif base.kind != row.kind and _graph_weighted(manifests, row.run_id, key[0], row.graph) is not False:
            # BFS levels and SSSP distances are the same answer only on an unweighted graph.
            summary.at[index, "speedup_note"] = f"baseline solves {base.kind}, this solves {row.kind} (weighted graph)"
        elif base.all_pairs and not row.all_pairs:
            summary.at[index, "speedup_note"] = f"baseline {key[2]} solves all pairs in each solve"
        else:
            base_ms, row_ms, sources = over_shared_sources(times.get(key, {}), times.get((row.run_id, row.graph,
                                                                                         row.variant), {}))
            if base_ms > 0 and row_ms > 0:
                summary.at[index, "speedup"] = base_ms / row_ms
                summary.at[index, "speedup_sources"] = sources
            else:
                summary.at[index, "speedup_note"] = "zero median time"


def _add_best_cpu_speedups(summary: pd.DataFrame, rows: pd.DataFrame) -> None:
    """Fill best_cpu_speedup, best_cpu, best_cpu_run_id and best_cpu_sources of each verified GPU row in place: the
    fastest CPU variant by median time among those that verified the row's problem kind on its graph (all-pairs
    variants aside: no speedup divides by one), in the row's own run, else in any of the merged runs; the ratio is
    over the sources both verified, as `speedup` is."""
    times = verified_times_by_source(rows)
    cpu = summary[(summary["device"] == "cpu") & (summary["verified"] > 0) & summary["time_median_ms"].notna()
                  & ~summary["all_pairs"].astype(bool)]
    for index, row in summary.iterrows():
        if row.device != "gpu" or not row.verified:
            continue
        same_kind = cpu[(cpu["graph"] == row.graph) & (cpu["kind"] == row.kind)]
        own_run = same_kind[same_kind["run_id"] == row.run_id]
        candidates = own_run if len(own_run) else same_kind
        if candidates.empty:
            continue
        best = candidates.loc[candidates["time_median_ms"].idxmin()]  # the first in config order on a tie
        base_ms, row_ms, sources = over_shared_sources(times.get((best.run_id, best.graph, best.variant), {}),
                                                       times.get((row.run_id, row.graph, row.variant), {}))
        summary.at[index, "best_cpu"] = best.variant
        summary.at[index, "best_cpu_run_id"] = best.run_id
        if base_ms > 0 and row_ms > 0:
            summary.at[index, "best_cpu_speedup"] = base_ms / row_ms
            summary.at[index, "best_cpu_sources"] = sources


def verified_times_by_source(rows: pd.DataFrame) -> dict[tuple[str, str, str], dict[Any, list[float]]]:
    """(run, graph, label) -> source -> the verified solves' times there, ms (every repetition)."""
    solves = rows[rows["phase"] == "solve"]
    found: dict[tuple[str, str, str], dict[Any, list[float]]] = {}
    for run_id, graph, label, source, status, certificate, reference, time_s in zip(
            solves["run_id"], solves["graph"], solves["label"], solves["source"], solves["status"],
            solves["certificate"], solves["reference"], solves["time_s"]):
        if solve_outcome(status, certificate, reference) == "verified" and pd.notna(time_s):
            found.setdefault((run_id, graph, label), {}).setdefault(source, []).append(float(time_s) * 1e3)
    return found


def over_shared_sources(base: dict[Any, list[float]], mine: dict[Any, list[float]]) -> tuple[float, float, str]:
    """(the baseline's median ms, the variant's, "shared/most") over the sources both verified; over all of each
    side's where they share none. `base` and `mine`: source -> verified times (verified_times_by_source)."""
    shared = [source for source in mine if source in base]

    def median(times: dict[Any, list[float]]) -> float:
        values = [time for source in (shared or times) for time in times[source]]
        return float(np.median(values)) if values else math.nan

    return median(base), median(mine), f"{len(shared)}/{max(len(base), len(mine))}"


def _add_targets(summary: pd.DataFrame, loaded: list[Run]) -> None:
    """target_mteps = the paper's MTEPS x bandwidth scale for (graph, variant) where the config has one (see
    paper_mteps); target_met = the median MTEPS over verified solves reaches it."""
    papers = paper_mteps(loaded)
    scales = {str(manifest["run_id"]): target_scale(manifest)[0] for manifest, _ in loaded}
    targets_mteps, met = [], []
    for row in summary.itertuples(index=False):
        paper = papers.get((str(row.run_id), row.graph, str(row.variant)))
        scale = scales.get(str(row.run_id))
        if paper is None or scale is None:
            targets_mteps.append(np.nan)
            met.append(None)
        else:
            targets_mteps.append(paper * scale)
            met.append(bool(pd.notna(row.mteps_median) and row.mteps_median >= paper * scale))
    summary["target_mteps"] = targets_mteps
    summary["target_met"] = met


def _graph_weighted(manifests: dict[str, dict[str, Any]], *run_ids_then_graph: str) -> bool | None:
    *run_ids, graph = run_ids_then_graph
    for run_id in run_ids:
        info = (manifests[run_id].get("graphs") or {}).get(graph) or {}
        if "weighted" in info and info["weighted"] is not None:
            return bool(info["weighted"])
    return None


def _first(values: Iterable[Any]) -> Any:
    for value in values:
        if value is not None and not (isinstance(value, float) and math.isnan(value)):
            return value
    return None


def _energy_per_solve(group: pd.DataFrame) -> float:
    """Joules per solve from the variant's energy phase on the graph (config `energy`; results/energy.py has the
    power, idle power and window beside it); NaN where none was measured."""
    if "energy_j" not in group:
        return math.nan
    return _median(group.loc[(group["phase"] == "energy") & (group["status"] == "ok"), "energy_j"])


def _median(values: pd.Series) -> float:
    values = values.dropna()
    return float(values.median()) if len(values) else math.nan
