"""Turn a run directory (or several) into a summary table, a Markdown report, a CSV and a speedup chart.

A run directory holds `manifest.json` (config, provenance, graphs, baseline) and `rows.jsonl` (one row per
prepare or solve). Only *verified* solves count toward timing: status "ok", certificate true, and the
reference compare not false. A wrong or unchecked answer is not a result, however fast it was.

Merging runs (`report RUN1 RUN2`): rows are concatenated. When the same variant ran on the same graph in two
runs, that variant's name is prefixed with its run id ("run-a/cpu-dijkstra") in every run it appears in, so
the two are kept apart rather than pooled: timings from two runs (maybe two machines) are not one sample.

Stand-ins: a graph whose real file was not fetched and whose synthetic stand-in ran instead (the manifest's
graph record and its rows carry `stand_in_for` and the `stand_in` spec) keeps the paper's label, so tables line
up with the paper, and is marked with a dagger in every table, with a footnote naming the generator spec.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .errors import UserError
from .jsonfile import read_json
from .run.provenance import describe_gpu

MANIFEST_FILE = "manifest.json"
ROWS_FILE = "rows.jsonl"

REQUIRED_ROW_FIELDS = ("phase", "graph", "implementation", "status")
ROW_FIELDS = (
    "run_id", "phase", "graph", "implementation", "variant", "params", "device", "kind", "source",
    "source_index", "repetition", "status", "message", "time_s", "end_to_end_s", "reached_vertices",
    "reached_arcs", "mteps", "certificate", "reference", "counters", "floor_s", "stand_in_for", "stand_in",
)
NUMERIC_ROW_FIELDS = ("time_s", "end_to_end_s", "reached_vertices", "reached_arcs", "mteps", "floor_s")

# Why a solve is not verified. The runner's statuses, plus three ways an "ok" solve falls short.
FAILURE_OUTCOMES = (
    "wrong_answer", "certificate_failed", "reference_mismatch", "unchecked", "timeout", "out_of_memory",
    "error", "unsupported", "negative_cycle", "unavailable",
)

# Said in the report when a failed row carries no message of its own.
OUTCOME_EXPLANATIONS = {
    "unchecked": "status ok but the answer was not checked (certificate null)",
    "certificate_failed": "status ok but the certificate rejected the distances",
    "reference_mismatch": "status ok but the distances differ from the reference implementation's",
}

STAND_IN_MARK = "†"  # after a graph's label wherever a synthetic stand-in ran in its place

SUMMARY_COLUMNS = [
    "run_id", "graph", "stand_in_for", "stand_in", "variant", "implementation", "device", "kind", "solves", "verified", "verified_total",
    "failures", "time_median_ms", "time_min_ms", "time_q25_ms", "time_q75_ms", "time_iqr_ms",
    "end_to_end_median_ms", "mteps_median", "reached_arcs_median", "efficiency", "floor_median_ms", "speedup",
    "baseline", "baseline_run_id",
    "speedup_note", "prepare_ms", "prepare_status", "target_mteps", "target_met",
] + [f"n_{outcome}" for outcome in FAILURE_OUTCOMES]

METRIC_DEFINITIONS = (
    ("time", "the timed solve, from distance initialisation to distances ready (device synchronised); "
             "graph upload and preprocessing are timed apart as *prepare*"),
    ("median (IQR)", "median and interquartile range (75th - 25th percentile) of the verified solves' times"),
    ("MTEPS", "millions of traversed edges per second: arcs leaving reached vertices / time, "
              "the median over verified solves"),
    ("speedup", "the baseline's median time / the implementation's median time on the same graph; "
                "above 1x is faster than the baseline"),
    ("efficiency", "the roofline floor of a solve / its measured time, the median over verified solves (a "
                   "fraction in report.csv). The floor, measured on the run's GPU, is max(reached arcs x the time "
                   "per arc of one pass relaxing every arc once with atomicMin, hop depth from the source x the "
                   "latency of a dependent global load); it can pass 100% where an implementation skips atomics "
                   "that cannot win. Blank where no floor was recorded (no GPU in the run)"),
    ("verified", "solves with status ok whose certificate (a distance check) passed and whose reference "
                 "compare, when made, agreed; only these count toward any timing"),
)


# ---------------------------------------------------------------------------------------------- loading


def load_run(path: str | os.PathLike[str]) -> tuple[dict[str, Any], pd.DataFrame]:
    """A run directory's manifest and rows. Missing or malformed files raise a `UserError` naming them."""
    run_dir = _run_dir(path)
    manifest_path = run_dir / MANIFEST_FILE
    rows_path = run_dir / ROWS_FILE
    if not manifest_path.is_file():
        raise UserError(f"{run_dir}: not a run directory (no {MANIFEST_FILE})")
    manifest = read_json(manifest_path)
    if not isinstance(manifest, dict):
        raise UserError(f"{manifest_path}: expected a JSON object, got {type(manifest).__name__}")
    manifest.setdefault("run_id", run_dir.name)
    if not rows_path.is_file():
        raise UserError(f"{run_dir}: no {ROWS_FILE} (the run recorded no rows)")
    records, dropped_partial = _read_rows(rows_path)
    rows = _rows_frame(records)
    rows["run_id"] = str(manifest["run_id"])  # the directory's manifest is the authority on identity
    rows.attrs["partial_last_line"] = dropped_partial
    return manifest, rows


def _run_dir(path: str | os.PathLike[str]) -> Path:
    candidate = Path(path)
    if candidate.is_file() and candidate.name in (MANIFEST_FILE, ROWS_FILE):
        candidate = candidate.parent  # a path to the manifest names its run as well
    if not candidate.exists():
        raise UserError(f"{candidate}: no such run directory")
    if not candidate.is_dir():
        raise UserError(f"{candidate}: not a run directory")
    return candidate


def _read_rows(rows_path: Path) -> tuple[list[dict[str, Any]], bool]:
    """Parsed rows and whether a partial last line (a crash mid-write) was dropped."""
    try:
        lines = rows_path.read_text(errors="replace").splitlines()
    except OSError as error:
        raise UserError(f"{rows_path}: cannot read ({error})") from None
    numbered = [(number, line) for number, line in enumerate(lines, start=1) if line.strip()]
    records: list[dict[str, Any]] = []
    for position, (number, line) in enumerate(numbered):
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            if position == len(numbered) - 1:
                return records, True
            raise UserError(f"{rows_path}:{number}: not valid JSON ({error.msg})") from None
        if not isinstance(record, dict):
            raise UserError(f"{rows_path}:{number}: expected a JSON object, got {type(record).__name__}")
        missing = [field for field in REQUIRED_ROW_FIELDS if record.get(field) is None]
        if missing:
            raise UserError(f"{rows_path}:{number}: row has no {missing[0]!r}")
        if record.get("phase") not in ("prepare", "solve"):
            raise UserError(f"{rows_path}:{number}: phase must be 'prepare' or 'solve', got {record['phase']!r}")
        records.append(record)
    return records, False


def _rows_frame(records: list[dict[str, Any]]) -> pd.DataFrame:
    rows = pd.DataFrame.from_records(records) if records else pd.DataFrame()
    for field in ROW_FIELDS:
        if field not in rows.columns:
            rows[field] = pd.Series([None] * len(rows), dtype=object)
    for field in NUMERIC_ROW_FIELDS:
        rows[field] = pd.to_numeric(rows[field], errors="coerce").astype(float)
    # True/False/None exactly: pandas would otherwise turn a column of booleans and nulls into anything.
    for field in ("certificate", "reference"):
        rows[field] = pd.Series([_tristate(value) for value in rows[field].tolist()], index=rows.index, dtype=object)
    variants = [
        str(variant) if isinstance(variant, str) and variant else str(implementation)
        for variant, implementation in zip(rows["variant"].tolist(), rows["implementation"].tolist())
    ]
    rows["variant"] = pd.Series(variants, index=rows.index, dtype=object)
    for field in ("graph", "implementation", "status", "phase"):
        rows[field] = pd.Series([str(value) for value in rows[field].tolist()], index=rows.index, dtype=object)
    return rows


def _tristate(value: Any) -> bool | None:
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    return None


# ---------------------------------------------------------------------------------------------- summary


def summarize(runs: Any) -> pd.DataFrame:
    """One row per (graph, variant) over the solves of one or more runs (see the module docstring).

    `runs`: a run directory, a `(manifest, rows)` pair from `load_run`, or a sequence of either.
    Timing columns are in milliseconds and cover verified solves only; they are NaN where none verified.
    """
    loaded = _as_runs(runs)
    rows = _label_rows(loaded)
    if rows.empty:
        return pd.DataFrame(columns=SUMMARY_COLUMNS)
    manifests = {str(manifest["run_id"]): manifest for manifest, _ in loaded}

    groups = rows.groupby(["run_id", "graph", "label"], sort=False, dropna=False)
    records = [_summarize_group(run_id, graph, label, group) for (run_id, graph, label), group in groups]
    summary = pd.DataFrame.from_records(records)
    _add_stand_ins(summary, manifests)
    _add_speedups(summary, rows, loaded, manifests)
    _add_targets(summary, manifests)

    # Graph-major order, graphs and variants in the order the runs first met them (the config's order).
    graph_order = {graph: index for index, graph in enumerate(dict.fromkeys(rows["graph"]))}
    label_order = {label: index for index, label in enumerate(dict.fromkeys(rows["label"]))}
    summary["_graph_order"] = summary["graph"].map(graph_order)
    summary["_label_order"] = summary["variant"].map(label_order)
    summary = summary.sort_values(["_graph_order", "_label_order"], kind="stable")
    return summary.drop(columns=["_graph_order", "_label_order"]).reset_index(drop=True)[SUMMARY_COLUMNS]


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


def graph_cell(graph: str, stand_in_for: Any) -> str:
    """A graph's label as the tables show it: with the stand-in mark when a synthetic graph ran in its place."""
    return f"{graph} {STAND_IN_MARK}" if isinstance(stand_in_for, str) and stand_in_for else str(graph)


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


def _add_targets(summary: pd.DataFrame, manifests: dict[str, dict[str, Any]]) -> None:
    """target_mteps = the paper's MTEPS x bandwidth scale for (graph, implementation) where the config has one;
    target_met = the median MTEPS over verified solves reaches it."""
    targets_mteps, met = [], []
    for row in summary.itertuples(index=False):
        manifest = manifests.get(str(row.run_id), {})
        goals = ((manifest.get("config") or {}).get("targets") or {}).get("mteps", {}).get(row.graph, {})
        variant = str(row.variant).split("/", 1)[-1]
        paper = goals.get(variant, goals.get(row.implementation))
        scale, _ = target_scale(manifest)
        if paper is None or scale is None:
            targets_mteps.append(np.nan)
            met.append(None)
        else:
            targets_mteps.append(paper * scale)
            met.append(bool(pd.notna(row.mteps_median) and row.mteps_median >= paper * scale))
    summary["target_mteps"] = targets_mteps
    summary["target_met"] = met


def _target_lines(manifests: list[dict[str, Any]], summary: pd.DataFrame) -> list[str]:
    """The config's speed targets (papers' MTEPS scaled by memory bandwidth) against what was measured."""
    with_targets = [m for m in manifests if ((m.get("config") or {}).get("targets") or {}).get("mteps")]
    if not with_targets:
        return []
    lines = ["## Speed targets", ""]
    for manifest in with_targets:
        targets = manifest["config"]["targets"]
        scale, device = target_scale(manifest)
        scale_text = f"x {scale:.2f}" if scale else "unknown (no matching GPU: not checked)"
        lines.append(f"Run {_md(manifest['run_id'])}: {_md(targets.get('source') or 'paper numbers')}; scaled by memory "
                     f"bandwidth, {_md(device)} / {targets['paper_bandwidth_gbs']:g} GB/s = {scale_text}.")
        lines.append("")
    lines += ["| graph | implementation | paper MTEPS | target MTEPS | measured MTEPS | met |", "|---|---|---:|---:|---:|---|"]
    for row in summary.itertuples(index=False):
        manifest = next((m for m in with_targets if str(m["run_id"]) == str(row.run_id)), None)
        if manifest is None:
            continue
        goals = manifest["config"]["targets"]["mteps"].get(row.graph, {})
        paper = goals.get(str(row.variant).split("/", 1)[-1], goals.get(row.implementation))
        if paper is None:
            continue
        target = "-" if pd.isna(row.target_mteps) else format_number(row.target_mteps)
        verdict = "-" if row.target_met is None else ("yes" if row.target_met else "**no**")
        lines.append(f"| {_md(graph_cell(row.graph, row.stand_in_for))} | {_md(row.variant)} | {paper:g} | {target} | "
                     f"{format_number(row.mteps_median)} | {verdict} |")
    return lines + [""]


def _as_runs(runs: Any) -> list[tuple[dict[str, Any], pd.DataFrame]]:
    def is_pair(item: Any) -> bool:
        return isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], dict)

    if isinstance(runs, (str, os.PathLike)) or is_pair(runs):
        runs = [runs]
    loaded = [run if is_pair(run) else load_run(run) for run in runs]
    if not loaded:
        raise UserError("no run to report on")
    seen: set[str] = set()
    for manifest, _ in loaded:
        run_id = str(manifest.get("run_id"))
        if run_id in seen:
            raise UserError(f"run {run_id!r} given twice")
        seen.add(run_id)
    return loaded


def _label_rows(loaded: list[tuple[dict[str, Any], pd.DataFrame]]) -> pd.DataFrame:
    """All rows with a `label` column: the variant, or "run-id/variant" where two runs share a graph and variant."""
    runs_per_pair: dict[tuple[str, str], set[str]] = {}
    for manifest, rows in loaded:
        for graph, variant in zip(rows["graph"], rows["variant"]):
            runs_per_pair.setdefault((graph, variant), set()).add(str(manifest["run_id"]))
    colliding = {variant for (graph, variant), run_ids in runs_per_pair.items() if len(run_ids) > 1}
    frames = []
    for manifest, rows in loaded:
        labelled = rows.copy()
        run_id = str(manifest["run_id"])
        labelled["label"] = [f"{run_id}/{v}" if v in colliding else v for v in labelled["variant"]]
        frames.append(labelled)
    frames = [frame for frame in frames if not frame.empty]
    if not frames:
        return pd.DataFrame(columns=[*ROW_FIELDS, "label"])
    return pd.concat(frames, ignore_index=True)


def solve_outcome(status: str, certificate: bool | None, reference: bool | None) -> str:
    """"verified", or why not: the status itself, or how an "ok" solve fell short."""
    if status != "ok":
        return status
    if certificate is False:
        return "certificate_failed"
    if reference is False:
        return "reference_mismatch"
    if certificate is True:
        return "verified"
    return "unchecked"


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
        "prepare_ms": float(np.median(prepare_times_ms)) if prepare_times_ms.size else math.nan,
        "prepare_status": prepare_statuses[0] if prepare_statuses else ("ok" if len(prepares) else ""),
    }
    for outcome in FAILURE_OUTCOMES:
        record[f"n_{outcome}"] = int(outcome_counts.get(outcome, 0))
    return record


def _add_speedups(
    summary: pd.DataFrame,
    rows: pd.DataFrame,
    loaded: list[tuple[dict[str, Any], pd.DataFrame]],
    manifests: dict[str, dict[str, Any]],
) -> None:
    """Fill speedup, baseline, baseline_run_id and speedup_note in place.

    The baseline is the run's own (manifest "baseline"); a run without one borrows the first merged run's.
    Its rows are looked for in the same run first, then in the other merged runs (a baseline measured once
    and GPU implementations measured in a later run). A baseline that ran and failed gives no speedup.
    """
    run_order = [str(manifest["run_id"]) for manifest, _ in loaded]
    fallback_name = next((m.get("baseline") for m, _ in loaded if m.get("baseline")), None)
    by_key = {(r.run_id, r.graph, r.variant): index for index, r in summary.iterrows()}
    # (run, graph) -> [(variant, implementation, label)] of everything that ran there.
    ran: dict[tuple[str, str], dict[tuple[str, str, str], None]] = {}
    for run_id, graph, variant, implementation, label in zip(
        rows["run_id"], rows["graph"], rows["variant"], rows["implementation"], rows["label"]
    ):
        ran.setdefault((run_id, graph), {})[(variant, implementation, label)] = None

    def baseline_key(run_id: str, graph: str, name: str) -> tuple[str, str, str] | None:
        for candidate_run in [run_id] + [other for other in run_order if other != run_id]:
            entries = list(ran.get((candidate_run, graph), {}))
            matches = [label for variant, _, label in entries if variant == name]
            if not matches:
                # The baseline is an implementation name; accept its only variant when it was swept.
                matches = [label for _, implementation, label in entries if implementation == name]
            if len(matches) == 1:
                return candidate_run, graph, matches[0]
        return None

    for index, row in summary.iterrows():
        name = manifests[row.run_id].get("baseline") or fallback_name
        if not name:
            summary.at[index, "speedup_note"] = "no baseline configured"
            continue
        key = baseline_key(row.run_id, row.graph, name)
        if key is None:
            summary.at[index, "speedup_note"] = f"baseline {name} did not run on this graph"
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
        elif base.time_median_ms > 0 and row.time_median_ms > 0:
            summary.at[index, "speedup"] = base.time_median_ms / row.time_median_ms
        else:
            summary.at[index, "speedup_note"] = "zero median time"


def _origin(info: dict[str, Any]) -> str:
    """Where a graph came from: its catalog name and collection, its generator spec, or its file."""
    provenance = info.get("provenance") or {}
    if info.get("stand_in_for"):
        return f"stand-in {STAND_IN_MARK}: generated {info.get('stand_in') or provenance.get('spec') or '?'}"
    if provenance.get("catalog_entry"):
        return f"{provenance.get('collection', '')} {provenance['catalog_entry']}".strip()
    if provenance.get("spec"):
        return f"generated {provenance['spec']}"
    return info.get("origin") or "-"


def _decimal(value: Any) -> str:
    return "-" if value is None else f"{value:.1f}"


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


def _median(values: pd.Series) -> float:
    values = values.dropna()
    return float(values.median()) if len(values) else math.nan


# ---------------------------------------------------------------------------------------------- text


def format_number(value: Any, unit: str = "") -> str:
    """A short human number (3-4 significant digits), or "-" for a missing one."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "-"
    value = float(value)
    magnitude = abs(value)
    if magnitude >= 100:
        text = f"{value:.0f}"
    elif magnitude >= 10:
        text = f"{value:.1f}"
    elif magnitude >= 1:
        text = f"{value:.2f}"
    elif magnitude == 0:
        text = "0"
    else:
        text = f"{value:.3g}"
    return text + unit


def format_percent(fraction: Any) -> str:
    """A fraction as a short percentage ("42%", "3.1%", "0.52%"), or "" (blank) for a missing one."""
    if fraction is None or (isinstance(fraction, float) and not math.isfinite(fraction)):
        return ""
    value = float(fraction) * 100
    if abs(value) >= 10:
        return f"{value:.0f}%"
    if abs(value) >= 1:
        return f"{value:.1f}%"
    return f"{value:.2g}%"


BLANK_WHEN_MISSING = {"efficiency"}
"""Terminal-table columns left blank, not "-", where there is no value (no floor recorded)."""

TABLE_COLUMNS = (
    # (header, summary column or callable, right-aligned)
    ("graph", lambda r: graph_cell(r.graph, r.stand_in_for), False),
    ("variant", "variant", False),
    ("kind", "kind", False),
    ("dev", "device", False),
    ("verified", "verified_total", True),
    ("median ms", lambda r: format_number(r.time_median_ms), True),
    ("IQR ms", lambda r: format_number(r.time_iqr_ms), True),
    ("MTEPS", lambda r: format_number(r.mteps_median), True),
    ("efficiency", lambda r: format_percent(r.efficiency), True),
    ("speedup", lambda r: format_number(r.speedup, "x"), True),
    ("prepare ms", lambda r: format_number(r.prepare_ms), True),
    ("failures", "failures", False),
)


def fixed_width_lines(header: list[str], body: list[list[str]], right_aligned: Sequence[bool]) -> list[str]:
    """A plain-text table: the header, a rule, then the body, each column as wide as its widest cell."""
    widths = [max(len(line[i]) for line in [header, *body]) for i in range(len(header))]

    def render(cells: list[str]) -> str:
        parts = [cell.rjust(width) if right else cell.ljust(width)
                 for cell, width, right in zip(cells, widths, right_aligned)]
        return "  ".join(parts).rstrip()

    return [render(header), "  ".join("-" * width for width in widths), *(render(cells) for cells in body)]


def format_table(summary: pd.DataFrame) -> str:
    """The summary as a fixed-width plain-text table for a terminal."""
    if summary.empty:
        return "(no rows)"
    header = [title for title, _, _ in TABLE_COLUMNS]
    body = []
    for row in summary.itertuples(index=False):
        cells = []
        for title, source, _ in TABLE_COLUMNS:
            value = source(row) if callable(source) else getattr(row, source)
            missing = value is None or value == "" or (isinstance(value, float) and math.isnan(value))
            cells.append(("" if title in BLANK_WHEN_MISSING else "-") if missing else str(value))
        body.append(cells)
    lines = fixed_width_lines(header, body, [right for _, _, right in TABLE_COLUMNS])
    lines.append("Timings cover verified solves only; speedup = baseline median / variant median on the same graph.")
    if summary["stand_in_for"].astype(bool).any():
        lines.append(f"{STAND_IN_MARK} a synthetic stand-in of the same size and structure ran in place of the real "
                     "graph (see report.md).")
    if summary["efficiency"].notna().any():
        lines.append("efficiency = roofline floor / measured time (median over verified solves; see report.md).")
    return "\n".join(lines)


def _md(text: Any) -> str:
    """Text safe inside a Markdown table cell."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def _config_name(manifest: dict[str, Any]) -> str:
    config = manifest.get("config") or {}
    name = config.get("name") if isinstance(config, dict) else None
    if not name and manifest.get("config_path"):
        name = Path(str(manifest["config_path"])).stem
    return str(name or "-")


def _provenance_rows(manifest: dict[str, Any]) -> list[tuple[str, str]]:
    provenance = manifest.get("provenance") or {}
    cpu = provenance.get("cpu") or {}
    gpu = provenance.get("gpu") or {}
    git = provenance.get("git") or {}
    packages = provenance.get("packages") or {}
    memory = provenance.get("memory_total_bytes")

    if gpu.get("available"):
        gpu_text = describe_gpu(gpu)
    else:
        gpu_text = f"none ({gpu.get('reason')})" if gpu.get("reason") else "-"
    if git.get("commit"):
        commit_text = str(git["commit"])[:12] + (" (dirty)" if git.get("dirty") else "")
    else:
        commit_text = f"- ({git.get('reason')})" if git.get("reason") else "-"
    code = provenance.get("code") or {}
    if code.get("sha256"):
        commit_text += f", code {str(code['sha256'])[:12]}"
    for change in manifest.get("code_changes") or []:
        commit_text += f"; resumed {change.get('at')} with code {str(change.get('sha256'))[:12]}"
    cpu_text = str(cpu.get("model") or "-")
    if cpu.get("logical_cores"):
        cpu_text += f" ({cpu['logical_cores']} logical cores)"
    config_text = _config_name(manifest)
    if manifest.get("config_hash"):
        config_text += f" ({str(manifest['config_hash'])[:12]})"
    return [
        ("config", config_text),
        ("status", str(manifest.get("status") or "-")),
        ("started", str(manifest.get("started") or "-")),
        ("finished", str(manifest.get("finished") or "-")),
        ("baseline", str(manifest.get("baseline") or "none")),
        ("host", str(provenance.get("host") or "-")),
        ("OS", str(provenance.get("os") or "-")),
        ("CPU", cpu_text),
        ("memory", f"{memory / 2**30:.1f} GiB" if isinstance(memory, (int, float)) else "-"),
        ("GPU", gpu_text),
        ("commit", commit_text),
        ("Python", str(provenance.get("python") or "-")),
        ("packages", ", ".join(f"{name} {version}" for name, version in packages.items() if version) or "-"),
    ]


def render_markdown(runs: Sequence[tuple[dict[str, Any], pd.DataFrame]], summary: pd.DataFrame, chart_name: str,
                    chart_title: str, claim_lines: Sequence[str] = ()) -> str:
    """The report as Markdown: provenance, graphs, results table, roofline, speed targets, claims (claims.py's
    markdown_lines), failures, metric definitions."""
    manifests = [manifest for manifest, _ in runs]
    run_ids = [str(manifest["run_id"]) for manifest in manifests]
    lines = [f"# sssp-bench report: {', '.join(run_ids)}", ""]

    for manifest, rows in runs:
        if manifest.get("status") in ("running", "interrupted"):
            lines.append(f"> **Run {manifest['run_id']} is {manifest['status']}**: the numbers cover only the "
                         "solves it recorded.")
            lines.append("")
        if rows.attrs.get("partial_last_line"):
            lines.append(f"> Run {manifest['run_id']}: the last line of {ROWS_FILE} was cut off (a crash while "
                         "writing) and was ignored.")
            lines.append("")

    lines += ["## Provenance", "", "| | " + " | ".join(_md(r) for r in run_ids) + " |",
              "|---|" + "---|" * len(run_ids)]
    per_run = [_provenance_rows(manifest) for manifest in manifests]
    for position, (key, _) in enumerate(per_run[0]):
        lines.append(f"| {key} | " + " | ".join(_md(rows[position][1]) for rows in per_run) + " |")
    lines.append("")

    graphs: dict[str, dict[str, Any]] = {}
    for manifest in manifests:
        for label, info in (manifest.get("graphs") or {}).items():
            graphs.setdefault(label, info if isinstance(info, dict) else {})
    if graphs:
        lines += ["## Graphs (Table 1)", "",
                  "| graph | origin | directed | vertices | arcs | avg. degree | std. dev. | max. degree | mode | "
                  "diameter | weights |", "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|"]
        for label, info in graphs.items():
            table1 = info.get("table1") or {}
            weights = "-" if not info.get("weighted") else (
                f"{table1['weight_min']}..{table1['weight_max']}" if "weight_min" in table1 else "yes")
            lines.append(
                f"| {_md(graph_cell(label, info.get('stand_in_for')))} | {_md(_origin(info))} | "
                f"{_yes_no(info.get('directed'))} | {_count(info.get('n'))} | "
                f"{_count(info.get('m'))} | {_decimal(table1.get('out_degree_mean'))} | "
                f"{_decimal(table1.get('out_degree_std'))} | {_count(table1.get('out_degree_max'))} | "
                f"{_count(table1.get('out_degree_mode'))} | {_count(table1.get('approx_diameter'))} | {weights} |")
        lines += ["", "Degrees are out-degrees; an undirected edge is two arcs. The diameter is a lower bound in hops "
                  "by double-sweep BFS.", ""]
        lines += _stand_in_lines(graphs)

    lines += ["## Results", "",
              "Timing columns count **verified solves only** (status ok, certificate passed, reference not "
              "contradicting): a wrong or unchecked answer is not a result, however fast.", ""]
    if summary.empty:
        lines += ["No rows were recorded.", ""]
    else:
        lines += ["| graph | variant | kind | device | verified | median (IQR) ms | min ms | MTEPS | efficiency | "
                  "speedup | prepare ms |", "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|"]
        for row in summary.itertuples(index=False):
            timing = "-" if not row.verified else f"{format_number(row.time_median_ms)} ({format_number(row.time_iqr_ms)})"
            lines.append(
                f"| {_md(graph_cell(row.graph, row.stand_in_for))} | {_md(row.variant)} | {_md(row.kind or '-')} | "
                f"{_md(row.device or '-')} | "
                f"{row.verified_total} | {timing} | {format_number(row.time_min_ms)} | "
                f"{format_number(row.mteps_median)} | {format_percent(row.efficiency)} | "
                f"{format_number(row.speedup, 'x')} | "
                f"{format_number(row.prepare_ms)} |"
            )
        lines.append("")
        if summary["stand_in_for"].astype(bool).any():
            lines += [(f"{STAND_IN_MARK} A synthetic stand-in ran under this label: these are not the real graph's "
                       "numbers (see Graphs)."), ""]
        lines += _graph_params_lines(manifests)
        notes = [
            row for row in summary.itertuples(index=False)
            if row.speedup_note and row.speedup_note not in ("no verified solve", "no baseline configured")
        ]
        if summary["speedup_note"].eq("no baseline configured").all():
            lines += ["No baseline was configured, so no speedup is computed.", ""]
        elif notes:
            lines += ["No speedup for:", ""]
            lines += [f"- {_md(row.graph)} / {_md(row.variant)}: {_md(row.speedup_note)}" for row in notes]
            lines.append("")
        if any(str(row.variant).startswith(f"{row.run_id}/") for row in summary.itertuples(index=False)):
            lines += ["A variant that ran on the same graph in more than one of the merged runs is named "
                      "`run-id/variant`: the runs are kept apart, never pooled.", ""]
        if (summary["baseline_run_id"].ne("") & summary["baseline_run_id"].ne(summary["run_id"])).any():
            lines += ["Some speedups use a baseline measured in another of the merged runs (see report.csv, "
                      "`baseline_run_id`): compare the runs' hosts above.", ""]
    lines += [f"![{chart_title}]({chart_name}.svg)", ""]
    lines += _roofline_lines(manifests)
    lines += _target_lines(manifests, summary)
    lines += claim_lines

    lines += ["## Failures", "", "Every solve or prepare that did not end verified, grouped by what went wrong.", ""]
    failure_lines = _failure_lines(runs)
    lines += failure_lines or ["None: every solve was verified."]
    lines.append("")

    lines += ["## Metrics", ""]
    lines += [f"- **{name}**: {definition}." for name, definition in METRIC_DEFINITIONS]
    lines.append("")
    return "\n".join(lines)


def _graph_params_lines(manifests: list[dict[str, Any]]) -> list[str]:
    """The parameters a config replaced on some graphs only (graphs[].params): those rows ran with them."""
    replaced = [(str(graph.get("label")), name, params)
                for manifest in manifests for graph in ((manifest.get("config") or {}).get("graphs") or [])
                for name, params in (graph.get("params") or {}).items()]
    if not replaced:
        return []
    lines = ["Per-graph parameters (the config's `graphs[].params`): on these graphs these variants ran with:", ""]
    for label, name, params in replaced:
        settings = ", ".join(f"{key}={_format_param(value)}" for key, value in params.items())
        lines.append(f"- {_md(label)} / {_md(name)}: {_md(settings)}")
    return lines + [""]


def _format_param(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _stand_in_lines(graphs: dict[str, dict[str, Any]]) -> list[str]:
    """The footnote under Table 1: which graphs ran as stand-ins, their generator specs, and why they fit."""
    stand_ins = [(label, info) for label, info in graphs.items() if info.get("stand_in_for")]
    if not stand_ins:
        return []
    lines = [(f"{STAND_IN_MARK} **Stand-ins.** These real graphs were not in the dataset cache, so a synthetic graph "
              "of the same size and structure ran under the paper's name; its rows are not the real graph's numbers."),
             ""]
    for label, info in stand_ins:
        note = str(info.get("stand_in_note") or "")
        lines.append(f"- {_md(label)}: stand-in for {_md(info['stand_in_for'])}, `{_md(info.get('stand_in') or '?')}`"
                     + (f": {_md(note)}" if note else ""))
    return lines + [""]


def _roofline_lines(manifests: Sequence[dict[str, Any]]) -> list[str]:
    """The roofline each run measured: the device constants, then per graph the relax pass and the floors."""
    lines: list[str] = []
    for manifest in manifests:
        constants = manifest.get("roofline")
        if not isinstance(constants, dict):
            continue
        lines.append(f"Run {_md(manifest.get('run_id'))}: " + (
            f"{_md(constants.get('device') or 'GPU')}: copy bandwidth "
            f"{format_number(constants.get('copy_bandwidth_gbs'))} GB/s (read + written), dependent global load "
            f"{format_number(constants.get('chain_latency_ns'))} ns."
            if constants.get("available") else f"not measured: {_md(constants.get('reason') or 'no reason given')}."))
        lines.append("")
        graphs = [(label, info.get("roofline")) for label, info in (manifest.get("graphs") or {}).items()
                  if isinstance(info, dict) and isinstance(info.get("roofline"), dict)]
        if not graphs:
            continue
        lines += ["| graph | relax pass ms | ns per arc | median hop depth | median floor ms | bound |",
                  "|---|---:|---:|---:|---:|---|"]
        for label, record in graphs:
            if not record.get("available"):
                lines.append(f"| {_md(label)} | not measured: {_md(record.get('reason') or '-')} | | | | |")
                continue
            per_source = record.get("per_source") or []
            depths = [item["hop_depth"] for item in per_source if item.get("hop_depth") is not None]
            bounds = sorted({str(item.get("bound")) for item in per_source if item.get("bound")})
            floor = record.get("median_floor_s")
            lines.append(
                f"| {_md(label)} | {format_number(record.get('relax_pass_ms'))} | "
                f"{format_number(record.get('time_per_arc_ns'))} | "
                f"{f'{float(np.median(depths)):g}' if depths else '-'} | "
                f"{format_number(None if floor is None else floor * 1e3)} | {', '.join(bounds) or '-'} |")
        lines.append("")
    if lines:
        lines = ["## Roofline", "", "The floor under each solve, measured on the run's GPU (see *efficiency* "
                 "below).", ""] + lines
    return lines


def _failure_lines(runs: Sequence[tuple[dict[str, Any], pd.DataFrame]]) -> list[str]:
    """One bullet per (graph, variant, phase, outcome, message), with a count: what went wrong, in its words."""
    rows = _label_rows(list(runs))
    if rows.empty:
        return []
    outcomes = [
        solve_outcome(s, c, r) if phase == "solve" else ("verified" if s == "ok" else s)
        for phase, s, c, r in zip(rows["phase"], rows["status"], rows["certificate"], rows["reference"])
    ]
    failed = rows.assign(outcome=outcomes)
    failed = failed[failed["outcome"] != "verified"]
    if failed.empty:
        return []
    failed = failed.assign(message=[_one_line_message(m) for m in failed["message"]])
    lines = []
    grouped = failed.groupby(["graph", "label", "phase", "outcome", "message"], sort=False, dropna=False)
    for (graph, label, phase, outcome, message), group in grouped:
        where = f"{_md(graph)} / {_md(label)}" + (" (prepare)" if phase == "prepare" else "")
        count = f" ×{len(group)}" if len(group) > 1 else ""
        sources = sorted({int(s) for s in group["source"] if isinstance(s, (int, float)) and not pd.isna(s)})
        source_text = ""
        if sources:
            shown = ", ".join(str(s) for s in sources[:5]) + (", ..." if len(sources) > 5 else "")
            source_text = f" (source{'s' if len(sources) > 1 else ''} {shown})"
        message = message or OUTCOME_EXPLANATIONS.get(outcome, "")
        lines.append(f"- **{where}**: {outcome}{count}{source_text}" + (f": {_md(message)}" if message else ""))
    return lines


def _one_line_message(message: Any) -> str:
    if message is None or (isinstance(message, float) and math.isnan(message)):
        return ""
    text = " ".join(str(message).split())
    return text if len(text) <= 300 else text[:297] + "..."


def _count(value: Any) -> str:
    return f"{int(value):,}" if isinstance(value, (int, float)) and not pd.isna(value) else "-"


def _yes_no(value: Any) -> str:
    return "-" if value is None else ("yes" if value else "no")


# ---------------------------------------------------------------------------------------------- chart


def plot_summary(summary: pd.DataFrame, png_path: Path, svg_path: Path) -> str:
    """Grouped bars, one group per graph and one bar per variant: the speedup over the baseline (log axis),
    or the median solve time when no speedup could be computed. Returns the chart's title."""
    from matplotlib.figure import Figure  # no pyplot: no global backend state, Agg is used for PNG
    from matplotlib.patches import Patch
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    data = summary.copy()
    use_speedup = bool(data["speedup"].notna().any()) if not data.empty else False
    if use_speedup:
        metric, unit = "speedup", "x"
        data = data[data["variant"] != data["baseline"]]  # the baseline is the 1x line itself
        baselines = sorted({b for b in summary["baseline"] if b})
        title = f"Speedup over {', '.join(baselines)} (median solve time, verified solves only)"
        ylabel = "speedup over baseline (log scale)"
    else:
        metric, unit = "time_median_ms", " ms"
        title = "Median time per solve (no baseline: speedup not computed)"
        ylabel = "median solve time, ms (log scale)"

    graphs = list(dict.fromkeys(summary["graph"])) if not summary.empty else []
    stand_in_for = summary["stand_in_for"] if "stand_in_for" in summary else [""] * len(summary)
    tick_labels = list(dict.fromkeys(graph_cell(g, f) for g, f in zip(summary["graph"], stand_in_for)))
    if len(tick_labels) != len(graphs):  # merged runs disagree on a stand-in: plain labels
        tick_labels = graphs
    variants = list(dict.fromkeys(data["variant"])) if not data.empty else []
    mixed_kinds = data["kind"].nunique(dropna=True) > 1 if not data.empty else False
    values = {(r.graph, r.variant): getattr(r, metric) for r in data.itertuples(index=False)}
    kinds = {r.variant: r.kind for r in data.itertuples(index=False)}

    n_graphs, n_variants = max(len(graphs), 1), max(len(variants), 1)
    width_in = min(max(6.0, 2.5 + n_graphs * max(0.9, 0.22 * n_variants + 0.35)), 30.0)
    figure = Figure(figsize=(width_in, 5.0), layout="constrained")
    axes = figure.add_subplot()
    axes.set_title(title, fontsize=11)
    axes.set_xlabel("graph")
    axes.set_ylabel(ylabel)

    finite = [v for v in values.values() if v is not None and math.isfinite(v) and v > 0]
    if not finite:
        axes.text(0.5, 0.5, "no verified solves to plot", ha="center", va="center", transform=axes.transAxes)
        axes.set_xticks(range(len(graphs)), tick_labels)
    else:
        colours = _colours(len(variants))
        bar_width = 0.8 / n_variants
        low = min(finite + ([1.0] if use_speedup else []))
        high = max(finite + ([1.0] if use_speedup else []))
        bottom_limit, top_limit = low / 1.8, high * 1.8
        annotate = len(graphs) * len(variants) <= 24
        handles = []
        for v_index, variant in enumerate(variants):
            xs, heights, bottoms, shown = [], [], [], []
            for g_index, graph in enumerate(graphs):
                value = values.get((graph, variant))
                if value is None or not math.isfinite(value) or value <= 0:
                    continue
                xs.append(g_index - 0.4 + bar_width * (v_index + 0.5))
                # Speedup bars grow from the 1x line, up when faster and down when slower.
                base = 1.0 if use_speedup else bottom_limit
                heights.append(value - base)
                bottoms.append(base)
                shown.append(value)
            label = f"{variant} ({kinds.get(variant)})" if mixed_kinds else variant
            if xs:
                axes.bar(xs, heights, width=bar_width * 0.92, bottom=bottoms, color=colours[v_index],
                         edgecolor="black", linewidth=0.3)
                if annotate:
                    for x, value in zip(xs, shown):
                        axes.annotate(format_number(value, "x" if use_speedup else ""), (x, value),
                                      xytext=(0, 2 if value >= 1 or not use_speedup else -9),
                                      textcoords="offset points", ha="center", fontsize=7)
            else:
                label += " (no speedup)" if use_speedup else " (no verified solve)"
            handles.append(Patch(facecolor=colours[v_index], edgecolor="black", linewidth=0.3, label=label))
        axes.set_yscale("log")
        axes.set_ylim(bottom_limit, top_limit)
        axes.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        axes.yaxis.set_major_formatter(FuncFormatter(lambda y, _: f"{y:g}{unit.strip()}" if use_speedup else f"{y:g}"))
        axes.yaxis.set_minor_formatter(NullFormatter())
        if use_speedup:
            line = axes.axhline(1.0, color="black", linestyle="--", linewidth=1.0, label="baseline (1x)")
            handles.append(line)
        axes.set_xticks(range(len(graphs)), tick_labels)
        axes.set_xlim(-0.6, len(graphs) - 0.4)
        axes.grid(axis="y", which="major", linewidth=0.4, alpha=0.5)
        axes.set_axisbelow(True)
        # Said in the legend, not under the axes, where it would collide with rotated graph names.
        missing = "no bar: no verified solve" + ("\nor no baseline on that graph" if use_speedup else "")
        handles.append(Patch(facecolor="none", edgecolor="none", label=missing))
        axes.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)
    if graphs and (len(graphs) > 4 or max(len(g) for g in tick_labels) > 12):
        for tick in axes.get_xticklabels():
            tick.set_rotation(30)
            tick.set_horizontalalignment("right")

    figure.savefig(png_path, dpi=150, bbox_inches="tight")
    figure.savefig(svg_path, bbox_inches="tight", metadata={"Date": None})
    return title


def _colours(count: int) -> list[Any]:
    from matplotlib import colormaps

    palette = colormaps["tab10" if count <= 10 else "tab20"]
    return [palette(index % palette.N) for index in range(count)]


# ---------------------------------------------------------------------------------------------- report


@dataclass(frozen=True)
class Report:
    """What a report is made of, computed once: the loaded runs, their summary, and their configs' judged claims
    (claims.py; an empty frame when they make none)."""
    paths: list[Path]
    runs: list[tuple[dict[str, Any], pd.DataFrame]]
    summary: pd.DataFrame
    claims: pd.DataFrame


def build_report(run_paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]]) -> Report:
    from . import claims  # claims imports compare, which imports this module

    paths = [run_paths] if isinstance(run_paths, (str, os.PathLike)) else list(run_paths)
    if not paths:
        raise UserError("no run directory given")
    runs = [load_run(path) for path in paths]
    summary = summarize(runs)
    return Report([Path(path) for path in paths], runs, summary, claims.judge(runs, summary))


def write_report(
    run_paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | Report,
    out_dir: str | os.PathLike[str] | None = None,
) -> dict[str, Path]:
    """Write report.md, report.csv, speedup.png and speedup.svg (and claims.csv when the configs make claims) into
    the first run's directory (or `out_dir`) and return their paths, keyed "markdown", "csv", "png", "svg" (and
    "claims"). `run_paths` may be a Report that build_report made already."""
    from . import claims as claiming

    built = run_paths if isinstance(run_paths, Report) else build_report(run_paths)
    target = Path(out_dir) if out_dir is not None else _run_dir(built.paths[0])
    written = {
        "markdown": target / "report.md",
        "csv": target / "report.csv",
        "png": target / "speedup.png",
        "svg": target / "speedup.svg",
    }
    if not built.claims.empty:
        written["claims"] = target / "claims.csv"
    try:
        target.mkdir(parents=True, exist_ok=True)
        title = plot_summary(built.summary, written["png"], written["svg"])
        built.summary.to_csv(written["csv"], index=False)
        if "claims" in written:
            built.claims.to_csv(written["claims"], index=False)
        written["markdown"].write_text(render_markdown(built.runs, built.summary, "speedup", title,
                                                       claiming.markdown_lines(built.claims)))
    except OSError as error:
        raise UserError(f"cannot write the report into {target}: {error}") from None
    return written
