"""Which variant to pick: per graph and problem kind (SSSP, BFS), the fastest variant that verified every source it
ran, the runner-up and how far behind it is, and the fastest of each device, so that a user sees at once which
implementation to pick for graphs like theirs (the graph's class says what "like" means: datasets/classes.py).

One row per graph, kind and variant that ran there (RECOMMENDATION_COLUMNS; the report's recommendations.csv), each
with its `role`:

- "pick", "runner-up", "ranked": the candidates, in `rank` order (1 is the pick; the others have no rank);
- "left out": its implementation declares the graph classes it is meant for (`recommended_for`, impls/base.py) and
  this graph's class is not one of them, or the graph's class is unknown; it is timed like any other variant, and
  its `ratio_to_pick` says how it did, but it is never recommended there;
- "not verified": some solve it ran on the graph (or its prepare) did not end verified (a wrong answer, a timeout,
  out of memory, an unchecked answer, ...), or none did. A variant that failed on some sources is not recommended
  for graphs like this one, however fast it was on the others; the report's Failures section says what went wrong;
- "external": an external program (`external`, `external-bfs`). Its time is the wall time of its process (start-up
  and reading the graph file included) or the time the program reports of itself (rows' `timer` "process" or
  "program"), not the in-process clock around one solve that times every implementation of the harness (CUDA
  events on the GPU, the host clock on the CPU). Ranking them together would compare different things: a process
  clock puts an external program behind by its start-up, a self-reported one may leave out what the harness's
  clock includes. They are listed, with their median, and left out of the ranking;
- "all pairs": an implementation whose every solve computes all pairs (`solves_all_pairs`, floyd-warshall): its
  time is the all-pairs time, not one source's, so it is no candidate for a single-source solve.

Ranking, fairly: a candidate verified every source it ran, but not every candidate ran every source (`sources: N`
runs a slow one on the first N of the shared list; merged runs may differ), and a median over 3 easy sources is not
comparable with one over 100. Two candidates are compared as the report's speedups are (summary.py): the median of
each over the sources both verified (summary.over_shared_sources); a candidate ranks above another when it is
faster over those shared sources. The ranking is by the number of other candidates a candidate is faster than that
way (where every candidate ran the same sources this is simply the order of their medians), then by the median over
its own sources, then the config's order. `ratio_to_pick` = the candidate's median / the pick's over the sources
both verified (`ratio_sources`, "shared/most" as `speedup_sources`); above 1 is slower than the pick.

Whether the pick is clearly ahead of the runner-up is judged as `compare` judges a change (compare.compare_times,
the runner-up as the base): `verdict` "faster" (the 95% bootstrap interval of the paired ratio below 1 and at least
2% faster), "no clear difference" (either will do), "slower" (the paired statistic, a median of per-source
medians, disagrees with the pooled medians' order: a near tie), or "not enough data" (fewer paired sources than
compare's coverage rule needs, CompareOptions.pairs_needed: at least 10 and half of those both ran), and in
`ci_low` / `ci_high` that 95% interval turned round to read as `ratio_to_pick` does: of the runner-up's time over
the pick's, paired by source (each source's repetitions reduced to their median, as `compare` pairs them; the
pooled `ratio_to_pick` may fall just outside it). Only the runner-up's row carries them.

CPU and GPU variants are ranked together: the pick is the fastest whatever it runs on. `best_of_device` marks the
fastest candidate of each device, so a user without a GPU (or with one) reads its own pick too.

The implementations' declarations are read from the registry's classes (impls.registry), as the summary reads
`solves_all_pairs`: importing an implementation's module imports no CuPy (impls/__init__.py requires it), so this
runs on a machine without a GPU. The declaration is the one of the code that reports, not of the code that ran; a
run's rows and manifest do not record it. The graph's class comes from the graph's record in the run's manifest
(datasets/classes.py), so runs recorded before classes existed get one too.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import pandas as pd

from ..datasets.classes import GRAPH_CLASSES, graph_class  # GRAPH_CLASSES: what each class holds, for the report
from .compare import CompareOptions, attempted_sources, compare_times, ran_sources, source_times, verified_times
from .load import as_runs, graph_records, label_rows
from .summary import over_shared_sources, recommended_for, summarize, verified_times_by_source

RECOMMENDATION_COLUMNS = [
    "graph", "stand_in_for", "graph_class", "class_from", "kind", "role", "rank", "variant", "run_id",
    "implementation", "device", "best_of_device", "median_ms", "sources", "ratio_to_pick", "ratio_sources",
    "verdict", "ci_low", "ci_high", "recommended_for", "reason",
]
EXTERNAL_IMPLEMENTATIONS = ("external", "external-bfs")
"""The implementations that run a program outside the harness (impls/external.py), timed by another clock."""
EXTERNAL_TIMERS = ("process", "program")
"""The rows' `timer` of an external program's solves (results/schema.py)."""

PICK, RUNNER_UP, RANKED = "pick", "runner-up", "ranked"
LEFT_OUT, NOT_VERIFIED, EXTERNAL, ALL_PAIRS = "left out", "not verified", "external", "all pairs"
KIND_ORDER = ("sssp", "bfs")


def recommend(runs: Any, summary: pd.DataFrame | None = None,
              options: CompareOptions = CompareOptions()) -> pd.DataFrame:
    """RECOMMENDATION_COLUMNS: every variant that ran, per graph and kind, with its role (the module docstring).
    `runs` as load.as_runs takes them; `summary` is summarize(runs) when the caller has it already."""
    loaded = as_runs(runs)
    if summary is None:
        summary = summarize(loaded)
    if summary.empty:
        return pd.DataFrame(columns=RECOMMENDATION_COLUMNS)
    rows = label_rows(loaded)
    solves = rows[rows["phase"] == "solve"]
    pooled = verified_times_by_source(rows)         # (run, graph, label) -> source -> every verified time, ms
    paired = verified_times(rows)                   # one time per source (its repetitions' median), for compare
    ran = attempted_sources(rows)
    for frame in (paired, ran):
        frame["run_id"] = frame["run_id"].astype(str)  # as the keys (from the summary) hold it
    timers = {key: set(group.dropna()) for key, group in
              solves.groupby(["run_id", "graph", "label"], sort=False)["timer"]} if "timer" in solves else {}
    records = graph_records(manifest for manifest, _ in loaded)

    found: list[dict[str, Any]] = []
    for graph in dict.fromkeys(summary["graph"]):
        on_graph = summary[summary["graph"] == graph]
        kinds = sorted(dict.fromkeys(on_graph["kind"]), key=lambda kind: (
            KIND_ORDER.index(kind) if kind in KIND_ORDER else len(KIND_ORDER), str(kind)))
        klass, class_from = graph_class(str(graph), records.get(str(graph)))
        for kind in kinds:
            variants = on_graph[on_graph["kind"] == kind]
            found += _one_graph_and_kind(variants, klass, class_from, pooled, paired, ran, timers, options)
    frame = pd.DataFrame.from_records(found, columns=RECOMMENDATION_COLUMNS)
    frame["rank"] = frame["rank"].astype("Int64")  # 1, 2, ... for the candidates, empty for the others
    return frame


def _one_graph_and_kind(variants: pd.DataFrame, klass: str | None, class_from: str,
                        pooled: dict[tuple[str, str, str], dict[Any, list[float]]], paired: pd.DataFrame,
                        ran: pd.DataFrame, timers: dict[tuple[str, str, str], set[str]],
                        options: CompareOptions) -> list[dict[str, Any]]:
    """The records of one graph and kind's variants (`variants`: their summary rows, in config order)."""
    entries: list[dict[str, Any]] = []
    for order, row in enumerate(variants.itertuples(index=False)):
        key = (str(row.run_id), str(row.graph), str(row.variant))
        declared = recommended_for(row.implementation)
        role, reason = _role(row, key, declared, klass, timers)
        entries.append({
            "graph": row.graph, "stand_in_for": row.stand_in_for or "", "graph_class": klass or "",
            "class_from": class_from, "kind": row.kind, "role": role, "rank": math.nan, "variant": row.variant,
            "run_id": row.run_id, "implementation": row.implementation, "device": row.device,
            "best_of_device": False, "median_ms": row.time_median_ms, "sources": len(pooled.get(key, {})),
            "ratio_to_pick": math.nan, "ratio_sources": "", "verdict": "", "ci_low": math.nan, "ci_high": math.nan,
            "recommended_for": ", ".join(declared) if declared is not None else "", "reason": reason,
            "_key": key, "_order": order,
        })
    candidates = [entry for entry in entries if entry["role"] == RANKED]
    ranked = _ranked(candidates, pooled)
    if ranked:
        pick = ranked[0]
        for rank, entry in enumerate(ranked, start=1):
            entry["rank"] = rank
            entry["role"] = PICK if rank == 1 else (RUNNER_UP if rank == 2 else RANKED)
        seen_devices: set[str] = set()
        for entry in ranked:
            if entry["device"] not in seen_devices:
                seen_devices.add(entry["device"])
                entry["best_of_device"] = True
        for entry in entries:
            if entry["role"] in (PICK, RUNNER_UP, RANKED, LEFT_OUT) and entry["sources"]:
                pick_ms, mine_ms, sources = over_shared_sources(pooled.get(pick["_key"], {}),
                                                                pooled.get(entry["_key"], {}))
                if pick_ms > 0 and not math.isnan(mine_ms):
                    entry["ratio_to_pick"], entry["ratio_sources"] = mine_ms / pick_ms, sources
        if len(ranked) > 1:
            second = ranked[1]
            of_second, of_pick = (dict(zip(("run_id", "graph", "label"), entry["_key"])) for entry in (second, pick))
            result = compare_times(str(pick["graph"]), str(second["variant"]), str(pick["variant"]),
                                   source_times(paired, **of_second), source_times(paired, **of_pick),
                                   options, ran_sources(ran, **of_second), ran_sources(ran, **of_pick))
            # compare's interval is of the pick's time over the runner-up's; the row's, of the runner-up's over the
            # pick's, as ratio_to_pick reads
            second.update(verdict=result["verdict"], ci_low=_inverse(result["ci_high"]),
                          ci_high=_inverse(result["ci_low"]))
    entries.sort(key=lambda entry: (entry["rank"] if not math.isnan(entry["rank"]) else math.inf, entry["_order"]))
    for entry in entries:
        del entry["_key"], entry["_order"]
    return entries


def _role(row: Any, key: tuple[str, str, str], declared: tuple[str, ...] | None, klass: str | None,
          timers: dict[tuple[str, str, str], set[str]]) -> tuple[str, str]:
    """(the variant's role before ranking, why it is not a candidate): RANKED for a candidate."""
    external_clock = timers.get(key, set()) & set(EXTERNAL_TIMERS)
    if row.implementation in EXTERNAL_IMPLEMENTATIONS or external_clock:
        clock = " or ".join(sorted(external_clock)) or "process"
        return EXTERNAL, f"an external program, timed by another clock (timer {clock})"
    if bool(row.all_pairs):
        return ALL_PAIRS, "every solve computes all pairs: its time is not one source's"
    prepare_failed = row.prepare_status not in ("ok", "")
    if not row.verified or row.verified != row.solves or prepare_failed or not _finite(row.time_median_ms):
        return NOT_VERIFIED, (f"{row.verified} of {row.solves} solves verified"
                              + (f" ({row.failures})" if row.failures else ""))
    if declared is not None and klass not in declared:
        meant = ", ".join(declared) or "no graph class"
        return LEFT_OUT, (f"recommended for {meant} only; this graph is {klass}" if klass else
                          f"recommended for {meant} only; this graph's class is unknown")
    return RANKED, ""


def _ranked(candidates: list[dict[str, Any]],
            pooled: dict[tuple[str, str, str], dict[Any, list[float]]]) -> list[dict[str, Any]]:
    """The candidates, fastest first: by how many others each is faster than over the sources both verified, then
    by its own median, then the config's order (the module docstring)."""
    wins = [0] * len(candidates)
    for i, first in enumerate(candidates):
        for j in range(i + 1, len(candidates)):
            second_ms, first_ms, _ = over_shared_sources(pooled.get(candidates[j]["_key"], {}),
                                                         pooled.get(first["_key"], {}))
            if first_ms < second_ms:
                wins[i] += 1
            elif second_ms < first_ms:
                wins[j] += 1
    order = sorted(range(len(candidates)),
                   key=lambda i: (-wins[i], candidates[i]["median_ms"], candidates[i]["_order"]))
    return [candidates[i] for i in order]


def _inverse(value: float) -> float:
    return 1.0 / value if _finite(value) and value > 0 else math.nan


def _finite(value: Any) -> bool:
    try:
        return math.isfinite(float(value))
    except (TypeError, ValueError):
        return False


def picks(recommendations: pd.DataFrame) -> list[tuple[str, str, dict[str, Any] | None, list[dict[str, Any]]]]:
    """(graph, kind, the pick's record or None, every record of that graph and kind) in the table's order: what the
    report's table and the terminal list are drawn from."""
    grouped: list[tuple[str, str, dict[str, Any] | None, list[dict[str, Any]]]] = []
    if recommendations.empty:
        return grouped
    for (graph, kind), group in recommendations.groupby(["graph", "kind"], sort=False):
        records = group.to_dict("records")
        pick = next((record for record in records if record["role"] == PICK), None)
        grouped.append((str(graph), str(kind), pick, records))
    return grouped


def runner_up(records: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    return next((record for record in records if record["role"] == RUNNER_UP), None)


def best_of_other_device(records: Sequence[dict[str, Any]], pick: dict[str, Any]) -> dict[str, Any] | None:
    """The fastest candidate of a device other than the pick's (the first such in rank order), or None."""
    return next((record for record in records if record["best_of_device"] is True
                 and record["device"] != pick["device"]), None)
