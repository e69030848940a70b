"""Claims: what a paper found or an issue asks of a run, judged from the run's rows, so that a report says whether
a reproduction holds instead of leaving it to whoever reads the tables.

Two kinds, from the config's `targets` (run/config.py):
- efficiency: variant V reaches at least a fraction F of the roofline floor on graph G. Measured as the report's
  efficiency column (the median over verified solves of floor / time); met when that median is at least F.
- faster_than: variant V beats each variant it names, on each of its graphs. Judged as `sssp-bench compare
  --between OTHER V` judges it: paired by source over the verified solves, the ratio of median times (V's over
  the other's) with a bootstrap interval; met only on compare's verdict "faster" (the interval below 1 and at
  least min_change faster). A tie ("no clear difference") or "slower" is not met.

A claim's names stand for variants by names.py's rule; one that stands for several (an implementation's variants,
such as bfs-vwarp's warp sizes, or an entry's label whose parameters are swept) means the fastest of them on the
graph by median time, the way a paper's table gives a comparator's best setting. A claim whose variants did not
run on the graph, or have no verified solve (or no floor, for efficiency), is "not measured": neither met nor
failed; a graph or variant the run did not include (`run --graph`, `--variant`) is left out. Each run is judged on
its own rows; merged runs are not pooled, with one exception: runs of one config that split its cells between them
(`run --graph` / `--variant` over several calls) are judged together, as the one run they add up to, so that a claim
comparing variants that ran in different parts is judged at all. A later part may re-run cells of an earlier run
(`--variant` of the implementation whose kernel changed): its solves replace theirs. Two runs of the whole config
that repeat cells (a before and an after) are judged each on its own.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from .compare import CompareOptions, compare_times, source_times, verified_times
from .load import as_runs, label_rows
from .names import stands_for
from .numbers import format_percent
from .summary import run_variants, summarize

CLAIM_COLUMNS = ["run_id", "graph", "stand_in_for", "claim", "variant", "against", "requirement", "measured",
                 "ci_low", "ci_high", "faster_on", "verdict", "met"]
NOT_MEASURED = "not measured"


def judge(runs: Any, summary: pd.DataFrame | None = None, options: CompareOptions = CompareOptions()) -> pd.DataFrame:
    """One row per claim and graph (CLAIM_COLUMNS), in the config's order; empty when no run's config has claims.
    `runs` as load.as_runs takes them; `summary` is summarize(runs) when the caller has it already."""
    loaded = as_runs(runs)
    claiming = [(manifest, rows, targets) for manifest, rows in loaded
                for targets in [(manifest.get("config") or {}).get("targets") or {}]
                if targets.get("efficiency") or targets.get("faster_than")]
    if not claiming:
        return pd.DataFrame(columns=CLAIM_COLUMNS)
    if summary is None:
        summary = summarize(loaded)
    times = verified_times(label_rows(loaded))
    records: list[dict[str, Any]] = []
    for run_ids, rows, targets in _parts_together(claiming):
        run = _Run(run_ids, rows, summary, times)
        for variant, goals in targets.get("efficiency", {}).items():
            records += [run.efficiency(graph, variant, least) for graph, least in goals.items()
                        if graph in run.graphs and run.ran(variant)]
        for claim in targets.get("faster_than", []):
            records += [run.faster(graph, claim["variant"], other, options)
                        for graph in claim["graphs"] or run.graphs if graph in run.graphs
                        for other in claim["than"] if run.ran(claim["variant"]) and run.ran(other)]
    return pd.DataFrame.from_records(records, columns=CLAIM_COLUMNS)


SELECTION_KEYS = ("graphs", "selected_graphs", "selected_variants")
"""What `run --graph` / `--variant` change in the config a manifest records."""


def _parts_together(claiming: list[tuple[dict, pd.DataFrame, dict]]) -> list[tuple[list[str], pd.DataFrame, dict]]:
    """(run ids, rows, targets) to judge: each run alone, except runs of one config (equal but for the selection)
    that add up to one run (_as_one_run), which are one entry, in the order their first run came."""
    def config_key(manifest: dict) -> str:
        config = {key: value for key, value in (manifest.get("config") or {}).items() if key not in SELECTION_KEYS}
        return repr(sorted(config.items(), key=lambda item: item[0]))

    groups: dict[str, list[tuple[dict, pd.DataFrame, dict]]] = {}
    for entry in claiming:
        groups.setdefault(config_key(entry[0]), []).append(entry)
    judged = []
    for members in groups.values():
        together = _as_one_run(members)  # a lone run adds up to itself
        if together is not None:
            judged.append((*together, members[0][2]))
        else:
            judged += [([str(manifest["run_id"])], rows, targets) for manifest, rows, targets in members]
    return judged


def _as_one_run(members: list[tuple[dict, pd.DataFrame, dict]]) -> tuple[list[str], pd.DataFrame] | None:
    """(run ids, rows) of runs of one config that add up to one run, or None. Taken in the order they started, a run
    may repeat an earlier one's (graph, variant) cells only if it ran a selection (`run --graph` / `--variant`,
    e.g. the implementation whose kernel changed): its cells then replace the earlier ones. Two runs of the whole
    config (a before and an after) do not add up: each is judged alone."""
    def cells(rows: pd.DataFrame) -> pd.Series:
        return pd.Series(list(zip(rows["graph"], rows["variant"].astype(str))), index=rows.index, dtype=object)

    ordered = sorted(members, key=lambda member: str(member[0].get("started") or ""))
    kept: list[pd.DataFrame] = []
    for manifest, rows, _ in ordered:
        config = manifest.get("config") or {}
        selection = bool(config.get("selected_graphs") or config.get("selected_variants"))
        solves = rows[rows["phase"] == "solve"]
        mine = set(cells(solves))
        for index, earlier in enumerate(kept):
            repeated = cells(earlier).isin(mine) & (earlier["phase"] == "solve")
            if repeated.any():
                if not selection:
                    return None
                kept[index] = earlier[~repeated]
        kept.append(rows)
    return [str(manifest["run_id"]) for manifest, _, _ in ordered], pd.concat(kept, ignore_index=True)


def _cells(frame: pd.DataFrame, name: str) -> list[tuple[str, str, str]]:
    """(run id, graph, the `name` column) of each row."""
    return list(zip(frame["run_id"].astype(str), frame["graph"], frame[name].astype(str)))


class _Run:
    """One run's rows (or those of the parts of one split run), summary and verified times, and the variant a
    claim's name picks on a graph."""

    def __init__(self, run_ids: list[str], rows: pd.DataFrame, summary: pd.DataFrame, times: pd.DataFrame):
        self.run_id = "+".join(run_ids)
        self.graphs = list(dict.fromkeys(rows["graph"]))
        self.variants = run_variants(rows)
        # only the solves these rows keep (a later part may have replaced an earlier run's cells)
        kept = set(_cells(rows[rows["phase"] == "solve"], "variant"))
        self.times = times[[cell in kept for cell in _cells(times, "variant")]]
        labels = set(_cells(self.times, "label"))  # the summary names a variant by its label
        self.summary = summary[[cell in labels for cell in _cells(summary, "variant")]]

    def ran(self, name: str) -> bool:
        """Whether the run included a variant `name` stands for (`run --variant` may have left it out)."""
        return bool(stands_for(name, self.variants))

    def pick(self, name: str, graph: str) -> str | None:
        """The fastest (by median time on `graph`) of the variants `name` stands for; None when none of them has
        a verified solve there."""
        timed = self.times[self.times["graph"] == graph].groupby("variant", sort=False)["time_ms"].median()
        candidates = timed[timed.index.isin(stands_for(name, self.variants))]
        return None if candidates.empty else str(candidates.idxmin())

    def record(self, graph: str, claim: str, variant: str, **fields: Any) -> dict[str, Any]:
        base = {column: None for column in CLAIM_COLUMNS}
        stand_ins = self.summary.loc[self.summary["graph"] == graph, "stand_in_for"]
        base.update(run_id=self.run_id, graph=graph, stand_in_for=stand_ins.iloc[0] if len(stand_ins) else "",
                    claim=claim, variant=variant, measured=math.nan, ci_low=math.nan, ci_high=math.nan, faster_on="",
                    verdict=NOT_MEASURED)
        base.update(fields)
        return base

    def efficiency(self, graph: str, name: str, least: float) -> dict[str, Any]:
        requirement = f"at least {format_percent(least)} of the floor"
        chosen = self.pick(name, graph)
        # the summary names a variant by its label (load.label_rows), which the verified times carry
        labels = self.times.loc[(self.times["graph"] == graph) & (self.times["variant"] == chosen), "label"]
        row = self.summary[(self.summary["graph"] == graph) & self.summary["variant"].isin(set(labels))]
        value = float(row["efficiency"].iloc[0]) if len(row) else math.nan
        if math.isnan(value):
            return self.record(graph, "efficiency", chosen or name, requirement=requirement)
        met = value >= least
        return self.record(graph, "efficiency", chosen, requirement=requirement, measured=value,
                           verdict="met" if met else "not met", met=met)

    def faster(self, graph: str, name: str, other: str, options: CompareOptions) -> dict[str, Any]:
        mine, theirs = self.pick(name, graph), self.pick(other, graph)
        requirement = "faster (paired by source)"
        if mine is None or theirs is None:
            return self.record(graph, "faster than", mine or name, against=theirs or other, requirement=requirement)
        result = compare_times(graph, theirs, mine, source_times(self.times, graph=graph, variant=theirs),
                               source_times(self.times, graph=graph, variant=mine), options)
        judged = result["verdict"] != "too few solves"
        return self.record(graph, "faster than", mine, against=theirs, requirement=requirement,
                           measured=result["ratio"], ci_low=result["ci_low"], ci_high=result["ci_high"],
                           faster_on=result["new_faster_on"], verdict=result["verdict"],
                           met=(result["verdict"] == "faster") if judged else None)
