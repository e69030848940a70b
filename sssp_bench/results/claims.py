"""Claims: what a paper found or an issue asks of a run, judged from the run's rows, so that a report says whether
a reproduction holds instead of leaving it to whoever reads the tables.

The kinds, from the config's `targets` (run/config.py), each judged on each of its graphs (none listed: every graph
of the config):
- efficiency: variant V reaches at least a fraction F of the roofline floor on graph G. Measured as the report's
  efficiency column (the median over verified solves of floor / time); met when that median is at least F.
- time_ms: V's median time over its verified solves on G (every repetition: the Results table's median) is at most
  X ms.
- faster_than: variant V beats each variant it names. Judged as `sssp-bench compare --between OTHER V` judges it:
  paired by source over the verified solves, the ratio of median times (V's over the other's) with a bootstrap
  interval; met only on compare's verdict "faster" (the interval below 1 and at least min_change faster). A tie
  ("no clear difference") or "slower" is not met. Too few paired sources (compare's coverage rule:
  CompareOptions.pairs_needed) is not judged at all. With `by: F` ("at least Fx faster than"): the same rule with
  1/F in place of 1, the interval below 1/F and the ratio at least min_change below it.
- within: V no slower than `factor` F times each variant it names (`of`), paired by source as faster_than is: met
  when the ratio's interval lies below F. With `or_not_meant_for`, a claim so judged not met is met where V's
  implementation declares the graph classes it is meant for (`recommended_for`, read from the registry by
  summary.py) and G's class (datasets/classes.py, from G's record in the manifest) is known and not one
  of them; its verdict says so. A claim not measured stays so.
- work: the median over V's verified solves of counters[NAME] / the row's `per` (reached_vertices or reached_arcs)
  is at most `max`; solves without the counter as a finite number are left out.
time_ms and work are judged only where the sources with a value are enough of those V ran (the same coverage rule:
a variant that failed the hard sources is not judged on the easy ones); their `faster_on` counts the sources within
the bound (each source's repetitions reduced to their median).

On a paired claim's other side, FASTEST_OTHER ("fastest-other") stands for the variants of the claimant's problem
kind whose implementation is none of the claimant's (all-pairs and external ones aside): the fastest of them, picked
as a sweep is (below), its candidates named in `selection`.

Every claim is counted: one row per claim and graph the config holds, met, not met, or "not measured" with its
`reason`: the graph not in the run (`run --graph`) or not reached, a variant not run (`run --variant`, or skipped),
no verified solve, no floor recorded, not enough paired sources, not enough verified sources, or the counter not
reported. `variant_only` and `against_only` count the
sources both sides ran that one verified and the other did not (a variant that failed the hard sources shows here).

A claim's names stand for variants by names.py's rule; one that stands for several (an implementation's variants,
such as bfs-vwarp's warp sizes, or an entry's label whose parameters are swept) means the fastest of them on the
graph by median time, the way a paper's table gives a comparator's best setting. Picking the fastest and judging
it on the same sources would flatter it (the pick is the one whose noise ran low), so a sweep is picked on half A
of the sources (even source index: the seeded source list's 1st, 3rd, ...) and the claim judged on half B (odd),
which `selection` says; only where a half holds no verified solve of the sweep is it picked and judged on the same
sources, "in-sample" (`selection` says that too). A variant whose every solve computes all pairs (floyd-warshall)
is named in `all_pairs`, and the claim's text marks it.

A faster_than claim of a GPU variant whose other side is a CPU variant says which one and whether it was the best
CPU variant run (`against_note`): the fastest of the run's CPU variants that verified the same problem kind on the
graph, by median time, as the summary's `best_cpu` picks it; a claim won against a slower CPU variant than the run
had is worth less. (A claim between two CPU variants, one implementation against another, says nothing of it.)

Each run is judged on its own rows; merged runs are not pooled, with one exception: runs of one config that split
its cells between them (`run --graph` / `--variant` over several calls) are judged together, as the one run they
add up to, so that a claim comparing variants that ran in different parts is judged at all. A later part may re-run
cells of an earlier run (`--variant` of the implementation whose kernel changed): its solves replace theirs. Two
runs of the whole config that repeat cells (a before and an after) are judged each on its own.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from ..datasets.classes import graph_class
from .compare import NOT_ENOUGH_DATA, CompareOptions, attempted_sources, compare_times, verified_times
from .compare import verdict as compare_verdict
from .load import as_runs, graph_records, label_rows
from .names import FASTEST_OTHER, stands_for
from .numbers import format_number, format_percent
from .recommend import EXTERNAL_IMPLEMENTATIONS
from .schema import solve_outcome
from .summary import counter_value, recommended_for, run_variants, solves_all_pairs, summarize

CLAIM_COLUMNS = ["run_id", "graph", "stand_in_for", "claim", "variant", "against", "against_note", "requirement",
                 "measured",
                 "ci_low", "ci_high", "faster_on", "verdict", "met", "variant_only", "against_only", "selection",
                 "all_pairs", "reason"]
NOT_MEASURED = "not measured"

# Why a claim is not measured: the category, then ": " and what it names where it names something.
GRAPH_NOT_IN_RUN = "graph not in the run"
GRAPH_NOT_REACHED = "graph not reached (no rows: the run stopped before it)"
VARIANT_NOT_RUN = "variant not run"
NO_VERIFIED_SOLVE = "no verified solve"
NO_FLOOR = "no floor recorded"
TOO_FEW_PAIRS = "not enough paired sources"
TOO_FEW_VERIFIED = "not enough verified sources"
NO_COUNTER = "counter not reported"

PER_TEXT = {"reached_vertices": "reached vertex", "reached_arcs": "reached arc"}
"""What a `work` claim divides its counter by (a row's column), as its text says it."""

CLAIM_KINDS = ("efficiency", "time_ms", "faster_than", "within", "work")
"""The keys of a config's `targets` that hold claims, in the order they are judged."""


def judge(runs: Any, summary: pd.DataFrame | None = None, options: CompareOptions = CompareOptions()) -> pd.DataFrame:
    """One row per claim and graph the configs hold (CLAIM_COLUMNS), in the config's order, the ones this run could
    not judge included ("not measured", with a reason); empty when no run's config has claims. `runs` as
    load.as_runs takes them; `summary` is summarize(runs) when the caller has it already."""
    loaded = as_runs(runs)
    claiming = [(manifest, rows, targets) for manifest, rows in loaded
                for targets in [(manifest.get("config") or {}).get("targets") or {}]
                if any(targets.get(kind) for kind in CLAIM_KINDS)]
    if not claiming:
        return pd.DataFrame(columns=CLAIM_COLUMNS)
    if summary is None:
        summary = summarize(loaded)
    labelled = label_rows(loaded)
    times, solves, ran = verified_times(labelled), _verified_solves(labelled), attempted_sources(labelled)
    records: list[dict[str, Any]] = []
    for run_ids, rows, targets, manifests in _parts_together(claiming):
        run = _Run(run_ids, rows, summary, times, solves, ran, manifests, options)
        for variant, goals in targets.get("efficiency", {}).items():
            records += [run.efficiency(graph, variant, least) for graph, least in goals.items()]
        for graph, goals in (targets.get("time_ms") or {}).items():
            records += [run.time(graph, variant, most) for variant, most in goals.items()]
        for claim in targets.get("faster_than", []):
            records += [run.faster(graph, claim["variant"], other, claim.get("by", 1.0))
                        for graph in claim["graphs"] or run.config_graphs for other in claim["than"]]
        for claim in targets.get("within") or []:
            records += [run.within(graph, claim["variant"], other, claim["factor"],
                                   bool(claim.get("or_not_meant_for")))
                        for graph in claim["graphs"] or run.config_graphs for other in claim["of"]]
        for claim in targets.get("work") or []:
            records += [run.work(graph, claim["variant"], claim["counter"], claim["per"], claim["max"])
                        for graph in claim["graphs"] or run.config_graphs]
    return pd.DataFrame.from_records(records, columns=CLAIM_COLUMNS)


SELECTION_KEYS = ("graphs", "selected_graphs", "selected_variants", "config_graphs")
"""What `run --graph` / `--variant` change in (or add to) the config a manifest records."""


def _parts_together(claiming: list[tuple[dict, pd.DataFrame, dict]]
                    ) -> list[tuple[list[str], pd.DataFrame, dict, list[dict]]]:
    """(run ids, rows, targets, manifests) to judge: each run alone, except runs of one config (equal but for the
    selection) that add up to one run (_as_one_run), which are one entry, in the order their first run came."""
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
            judged.append((*together, members[0][2], [manifest for manifest, _, _ in members]))
        else:
            judged += [([str(manifest["run_id"])], rows, targets, [manifest])
                       for manifest, rows, targets in members]
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


def _verified_solves(rows: pd.DataFrame) -> pd.DataFrame:
    """The verified solve rows (every repetition) with their time, floor and source index: what efficiency is the
    median over, as the summary takes it."""
    solves = rows[rows["phase"] == "solve"]
    verified = [solve_outcome(status, certificate, reference) == "verified" and pd.notna(time_s)
                for status, certificate, reference, time_s in
                zip(solves["status"], solves["certificate"], solves["reference"], solves["time_s"])]
    columns = ["run_id", "graph", "variant", "label", "source", "source_index", "time_s", "floor_s", "counters",
               "reached_vertices", "reached_arcs"]
    kept = solves.loc[np.array(verified, dtype=bool), [column for column in columns if column in solves]].copy()
    kept["source"] = pd.to_numeric(kept["source"], errors="coerce")
    return kept


def config_graphs(manifests: list[dict[str, Any]], rows: pd.DataFrame) -> list[str]:
    """Every graph label the config of these runs holds, in its order: the list a `run --graph` selection recorded
    (`config_graphs`), the config's graphs, the graphs the rows ran on, then (a selection recorded before
    config_graphs was) every graph its targets and figures name, each a label of the config."""
    labels: list[Any] = []
    for manifest in manifests:
        labels += list((manifest.get("config") or {}).get("config_graphs") or [])
    for manifest in manifests:
        labels += [entry.get("label") for entry in (manifest.get("config") or {}).get("graphs") or []
                   if isinstance(entry, dict)]
    labels += list(rows["graph"])
    for manifest in manifests:
        config = manifest.get("config") or {}
        targets = config.get("targets") or {}
        labels += list(targets.get("mteps") or {})
        labels += [graph for goals in (targets.get("efficiency") or {}).values() for graph in goals]
        labels += [graph for claim in targets.get("faster_than") or [] for graph in claim.get("graphs") or []]
        labels += list(targets.get("time_ms") or {})
        labels += [graph for kind in ("within", "work") for claim in targets.get(kind) or []
                   for graph in claim.get("graphs") or []]
        labels += [graph for figure in config.get("figures") or [] for graph in figure.get("graphs") or []]
    return [str(label) for label in dict.fromkeys(labels) if label]


def half_of(source_index: Any, source: Any) -> str:
    """The half of the sources a source belongs to when a sweep is picked on one half and judged on the other:
    "A" for an even index in the run's seeded source list, "B" for an odd one (the vertex id where a row has no
    index). Every implementation of a graph solves the same list, so the halves are the same for every side."""
    key = source_index if pd.notna(source_index) else source
    return "A" if pd.isna(key) or int(key) % 2 == 0 else "B"


class _Run:
    """One run's rows (or those of the parts of one split run), its verified times and solves, the sources each
    variant ran, and the variant a claim's name picks on a graph."""

    def __init__(self, run_ids: list[str], rows: pd.DataFrame, summary: pd.DataFrame, times: pd.DataFrame,
                 solves: pd.DataFrame, ran: pd.DataFrame, manifests: list[dict[str, Any]], options: CompareOptions):
        self.run_id = "+".join(run_ids)
        self.options = options
        self.graphs = list(dict.fromkeys(rows["graph"]))
        self.variants = run_variants(rows)
        self.kinds = dict(zip(rows["variant"], rows["kind"]))  # variant -> its problem kind (sssp, bfs)
        self.graph_records = graph_records(manifests)  # graph label -> its record in a manifest (its class)
        self.config_graphs = config_graphs(manifests, rows)
        self.selected_graphs = {str(entry.get("label")) for manifest in manifests
                                for entry in (manifest.get("config") or {}).get("graphs") or []
                                if isinstance(entry, dict)}
        # only the solves these rows keep (a later part may have replaced an earlier run's cells)
        kept = set(_cells(rows[rows["phase"] == "solve"], "variant"))

        def keep(frame: pd.DataFrame) -> pd.DataFrame:
            return frame[[cell in kept for cell in _cells(frame, "variant")]]

        self.ran = keep(ran).assign(half=lambda frame: [
            half_of(index, source) for index, source in zip(frame["source_index"], frame["source"])])
        self.solves = keep(solves).assign(half=lambda frame: [
            half_of(index, source) for index, source in zip(frame["source_index"], frame["source"])])
        halves = dict(zip(zip(self.ran["graph"], self.ran["source"]), self.ran["half"]))
        self.times = keep(times).assign(half=lambda frame: [
            halves.get((graph, source)) or half_of(None, source) for graph, source in zip(frame["graph"],
                                                                                          frame["source"])])
        labels = set(_cells(self.times, "label"))  # the summary names a variant by its label
        self.summary = summary[[cell in labels for cell in _cells(summary, "variant")]]

    # ------------------------------------------------------------------------------------------ picking

    def stands_for(self, name: str, claimant: str | None = None) -> list[str]:
        """The run's variants `name` stands for (names.py's rule); FASTEST_OTHER: every variant of the claimant's
        problem kind whose implementation is none of the claimant's (the harness's other designs, not the
        claimant's own settings), but an all-pairs one (its time is not one source's) and an external program
        (timed by another clock: recommend.py), in the run's order."""
        if name != FASTEST_OTHER:
            return stands_for(name, self.variants)
        mine = stands_for(claimant, self.variants) if claimant else []
        kinds = {self.kinds.get(variant) for variant in mine}
        implementations = {self.variants[variant] for variant in mine}
        return [variant for variant, implementation in self.variants.items()
                if implementation not in implementations and self.kinds.get(variant) in kinds
                and not solves_all_pairs(implementation) and implementation not in EXTERNAL_IMPLEMENTATIONS]

    def verified_variants(self, name: str, graph: str, claimant: str | None = None) -> list[str]:
        """The variants `name` stands for (FASTEST_OTHER: against `claimant`) that have a verified solve on `graph`."""
        here = set(self.times.loc[self.times["graph"] == graph, "variant"])
        return [variant for variant in self.stands_for(name, claimant) if variant in here]

    def fastest(self, candidates: list[str], graph: str, half: str | None) -> str | None:
        """Of `candidates`, the fastest by median time on `graph` over the sources of `half` (None: all); None
        when none has a verified solve there."""
        times = self.times[(self.times["graph"] == graph) & self.times["variant"].isin(candidates)]
        if half is not None:
            times = times[times["half"] == half]
        medians = times.groupby("variant", sort=False)["time_ms"].median()
        medians = medians.reindex([variant for variant in candidates if variant in medians.index])
        return None if medians.empty else str(medians.idxmin())

    def pick(self, names: list[str], graph: str) -> tuple[list[str | None], str | None, str]:
        """(the variant each name picks, the half its claim is judged on (None: every source), the `selection`
        text). A name standing for one verified variant picks it; a sweep (several) picks its fastest on half A,
        and the claim is judged on half B, unless a half holds no verified solve of a side, where it is picked
        and judged on every source ("in-sample"). FASTEST_OTHER (names[1], against names[0]) is such a sweep of
        the other variants, which the selection names."""
        candidates = [self.verified_variants(name, graph, names[0]) for name in names]
        sweeps = [(name, found) for name, found in zip(names, candidates) if len(found) > 1]
        only = [f"{FASTEST_OTHER}: the only other {self._kind_of(names[0])} variant verified on the graph"
                for name, found in zip(names, candidates) if name == FASTEST_OTHER and len(found) == 1]
        if not sweeps:
            return [found[0] if found else None for found in candidates], None, "; ".join(only)
        on_a = [self.fastest(found, graph, "A") for found in candidates]
        judged_on_b = all(variant is not None and self.fastest([variant], graph, "B") is not None
                          for variant in on_a)
        which = ", ".join([*only, *(f"{name}: best of {len(found)}" + (f" ({', '.join(found)})"
                                                                         if name == FASTEST_OTHER else "")
                                    for name, found in sweeps)])
        if judged_on_b:
            swept = [variant for _, found in sweeps for variant in found]
            count = {half: self._sources(graph, swept, half) for half in "AB"}
            return on_a, "B", (f"{which}, picked on half A ({count['A']} sources, even source index), judged on "
                               f"half B ({count['B']})")
        picked = [self.fastest(found, graph, None) for found in candidates]
        return picked, None, f"{which}, picked in-sample (on the sources it is judged on: a half had no verified solve)"

    def _kind_of(self, name: str) -> str:
        """The problem kind of the variants `name` stands for (the first's), for a claim's text."""
        found = self.stands_for(name)
        return str(self.kinds.get(found[0])) if found else "same"

    def _sources(self, graph: str, variants: list[str], half: str) -> int:
        ran = self.ran[(self.ran["graph"] == graph) & self.ran["variant"].isin(variants) & (self.ran["half"] == half)]
        return int(ran["source"].nunique())

    def summary_row(self, graph: str, variant: str) -> pd.Series | None:
        """The summary's row of a variant on a graph (the summary names it by its label); None where it has none."""
        labels = self.times.loc[(self.times["graph"] == graph) & (self.times["variant"] == variant), "label"]
        rows = self.summary[(self.summary["graph"] == graph) & self.summary["variant"].isin(labels)]
        return None if rows.empty else rows.iloc[0]

    def against_note(self, graph: str, variant: str, against: str) -> str:
        """For a GPU variant's claim against a CPU variant: whether that was the best CPU variant the run verified on
        the graph for its problem kind (by median time, the summary's rows; all-pairs ones aside, as `best_cpu`
        leaves them), and if not, which one was; "" for any other claim."""
        claimant, mine = self.summary_row(graph, variant), self.summary_row(graph, against)
        if claimant is None or mine is None or claimant["device"] != "gpu" or mine["device"] != "cpu":
            return ""
        cpu = self.summary[(self.summary["graph"] == graph) & (self.summary["device"] == "cpu")
                           & (self.summary["kind"] == mine["kind"]) & (self.summary["verified"] > 0)
                           & self.summary["time_median_ms"].notna() & ~self.summary["all_pairs"].astype(bool)]
        if cpu.empty or cpu["time_median_ms"].min() >= mine["time_median_ms"]:
            return "the best CPU variant run"
        best = cpu.loc[cpu["time_median_ms"].idxmin()]
        return (f"not the best CPU variant run: {best['variant']} was faster, {format_number(best['time_median_ms'])} "
                f"ms median against {format_number(mine['time_median_ms'])} ms")

    # ------------------------------------------------------------------------------------------ judging

    def record(self, graph: str, claim: str, variant: str, **fields: Any) -> dict[str, Any]:
        base = {column: None for column in CLAIM_COLUMNS}
        stand_ins = self.summary.loc[self.summary["graph"] == graph, "stand_in_for"]
        base.update(run_id=self.run_id, graph=graph, stand_in_for=stand_ins.iloc[0] if len(stand_ins) else "",
                    claim=claim, variant=variant, against_note="", measured=math.nan, ci_low=math.nan,
                    ci_high=math.nan, faster_on="", verdict=NOT_MEASURED, selection="", reason="")
        base.update(fields)
        named = [name for name in (base["variant"], base["against"]) if name]
        base["all_pairs"] = ", ".join(name for name in named if solves_all_pairs(self.variants.get(name)))
        return base

    def unmeasurable(self, graph: str, names: list[str]) -> str:
        """Why a claim naming `names` cannot be judged on `graph` before any time is looked at; "" when it can."""
        if graph not in self.graphs:
            return GRAPH_NOT_REACHED if graph in self.selected_graphs else GRAPH_NOT_IN_RUN
        missing = [name for name in names if not self.stands_for(name, names[0])]
        if names[0] in missing:  # fastest-other of a claimant that did not run says nothing more
            missing = [name for name in missing if name != FASTEST_OTHER]
        missing = [f"{name} (no other {self._kind_of(names[0])} variant ran)" if name == FASTEST_OTHER else name
                   for name in missing]
        if missing:
            return f"{VARIANT_NOT_RUN}: {', '.join(missing)}"
        unverified = [name for name in names if not self.verified_variants(name, graph, names[0])]
        if unverified:
            return f"{NO_VERIFIED_SOLVE}: {', '.join(unverified)}"
        return ""

    def efficiency(self, graph: str, name: str, least: float) -> dict[str, Any]:
        requirement = f"at least {format_percent(least)} of the floor"
        why = self.unmeasurable(graph, [name])
        if why:
            return self.record(graph, "efficiency", name, requirement=requirement, reason=why)
        (chosen,), half, selection = self.pick([name], graph)
        solves = self.solves[(self.solves["graph"] == graph) & (self.solves["variant"] == chosen)]
        if half is not None:
            solves = solves[solves["half"] == half]
        ratios = (solves["floor_s"].astype(float) / solves["time_s"].where(solves["time_s"] > 0)).dropna()
        if ratios.empty:
            return self.record(graph, "efficiency", chosen, requirement=requirement, selection=selection,
                               reason=NO_FLOOR)
        value = float(ratios.median())
        met = value >= least
        return self.record(graph, "efficiency", chosen, requirement=requirement, measured=value,
                           verdict="met" if met else "not met", met=met, selection=selection)

    def faster(self, graph: str, name: str, other: str, by: float = 1.0) -> dict[str, Any]:
        """`name` faster than `other` (by 1: compare's verdict "faster"), or at least `by` times faster: compare's
        verdict "faster" on the ratio and its interval times `by` (the interval below 1 / by, the ratio at least
        min_change below it)."""
        if by == 1:
            claim, requirement = "faster than", "faster (paired by source)"
        else:
            claim = f"at least {by:g}x faster than"
            requirement = f"at least {by:g}x faster (paired by source: ratio at most {format_number(1 / by)})"
        fields, result = self.paired(graph, claim, name, other, requirement)
        if result is None:
            return fields
        # compare's rule on the ratio and its interval scaled by `by`: by 1, compare's own verdict
        met = compare_verdict(result["ratio"] * by, result["ci_low"] * by, result["ci_high"] * by,
                              self.options.min_change) == "faster"
        if by == 1:
            return self.record(graph, claim, **fields, verdict=result["verdict"], met=met)
        judged = (f"{by:g}x faster" if met else f"faster, not {by:g}x" if result["verdict"] == "faster"
                  else result["verdict"])
        return self.record(graph, claim, **fields, verdict=judged, met=met)

    def within(self, graph: str, name: str, other: str, factor: float, or_not_meant_for: bool) -> dict[str, Any]:
        """`name` no slower than `factor` x `other`: the paired ratio's interval below `factor`. With
        `or_not_meant_for`, a claim so judged not met is met where the variant's implementation declares graph
        classes (`recommended_for`) that leave this graph's class out: documented as meant for other graphs."""
        claim = f"within {factor:g}x of"
        requirement = f"at most {factor:g}x the other's time (paired by source: ratio at most {factor:g})"
        fields, result = self.paired(graph, claim, name, other, requirement)
        if result is None:
            return fields
        met = bool(result["ci_high"] < factor)
        verdict = f"within {factor:g}x" if met else f"not within {factor:g}x"
        if not met and or_not_meant_for:
            documented = self.not_meant_for(graph, fields["variant"])
            if documented:
                met, verdict = True, f"{verdict}; {documented}"
        return self.record(graph, claim, **fields, verdict=verdict, met=met)

    def not_meant_for(self, graph: str, variant: str) -> str:
        """Where `variant`'s implementation declares the graph classes it is meant for (`recommended_for`,
        impls/base.py, read from the registry by summary.py) and this graph's class (datasets/classes.py,
        from the graph's record in the manifest) is known and not one of them: the text that says so; else ""."""
        declared = recommended_for(self.variants.get(variant))
        klass, _ = graph_class(graph, self.graph_records.get(graph))
        if declared is None or klass is None or klass in declared:
            return ""
        return f"documented as not meant for {klass} graphs (recommended_for: {', '.join(declared)})"

    def paired(self, graph: str, claim: str, name: str, other: str, requirement: str
               ) -> tuple[dict[str, Any], dict[str, Any] | None]:
        """A claim comparing `name` with `other` paired by source, as `compare` does: (the record, None) where it
        is not measured; else (its fields, variant and other included, and compare_times' result) for the caller's
        verdict."""
        why = self.unmeasurable(graph, [name, other])
        if why:
            return self.record(graph, claim, name, against=other, requirement=requirement, reason=why), None
        (mine, theirs), half, selection = self.pick([name, other], graph)

        def side(variant: str) -> tuple[pd.Series, pd.Index]:
            """(time_ms by source, the sources it ran) of one side, on the judged half."""
            times = self.times[(self.times["graph"] == graph) & (self.times["variant"] == variant)]
            ran = self.ran[(self.ran["graph"] == graph) & (self.ran["variant"] == variant)]
            if half is not None:
                times, ran = times[times["half"] == half], ran[ran["half"] == half]
            return times.set_index("source")["time_ms"], pd.Index(ran["source"].unique())

        (base, base_ran), (new, new_ran) = side(theirs), side(mine)
        result = compare_times(graph, theirs, mine, base, new, self.options, base_ran, new_ran)
        fields = dict(variant=mine, against=theirs, against_note=self.against_note(graph, mine, theirs),
                      requirement=requirement, measured=result["ratio"], ci_low=result["ci_low"],
                      ci_high=result["ci_high"], faster_on=result["new_faster_on"], variant_only=result["new_only"],
                      against_only=result["base_only"], selection=selection)
        if result["verdict"] == NOT_ENOUGH_DATA:
            return self.record(graph, claim, **fields, reason=(
                f"{TOO_FEW_PAIRS}: {result['pairs']} of the {result['pairs_needed']} needed")), None
        return fields, result

    def time(self, graph: str, name: str, most_ms: float) -> dict[str, Any]:
        """The median time over the verified solves (every repetition, as the Results table's median) at most
        `most_ms`; `faster_on` counts the sources whose time (their repetitions' median) is within it."""
        requirement = f"median time at most {most_ms:g} ms"
        return self.bounded(graph, "time", name, requirement, most_ms,
                            lambda solves: solves["time_s"].astype(float) * 1e3, "")

    def work(self, graph: str, name: str, counter: str, per: str, most: float) -> dict[str, Any]:
        """The median over the verified solves of counters[counter] / the row's `per` (reached_vertices,
        reached_arcs) at most `most`; solves that do not report the counter as a finite number are left out, and
        where none does the claim is not measured."""
        requirement = f"median {counter} per {PER_TEXT.get(per, per)} at most {most:g}"

        def ratios(solves: pd.DataFrame) -> pd.Series:
            counted = [math.nan for _ in solves.index]
            if "counters" in solves:
                counted = [counter_value(counters, counter) for counters in solves["counters"]]
            reached = pd.to_numeric(solves[per], errors="coerce") if per in solves else pd.Series(math.nan,
                                                                                                  index=solves.index)
            return pd.Series(counted, index=solves.index, dtype=float) / reached.where(reached > 0)

        return self.bounded(graph, "work", name, requirement, most, ratios, f"{NO_COUNTER}: {counter}")

    def bounded(self, graph: str, claim: str, name: str, requirement: str, most: float, values: Any,
                none_reason: str) -> dict[str, Any]:
        """A claim that the median of `values` (verified solve rows -> a number each, NaN where there is none) is
        at most `most`, judged only where the sources with a value are enough of those the variant ran (compare's
        coverage rule, CompareOptions.pairs_needed: a variant that failed the hard sources is not judged on the
        easy ones); `faster_on`: the sources within the bound, of those with a value."""
        why = self.unmeasurable(graph, [name])
        if why:
            return self.record(graph, claim, name, requirement=requirement, reason=why)
        (chosen,), half, selection = self.pick([name], graph)
        solves = self.solves[(self.solves["graph"] == graph) & (self.solves["variant"] == chosen)]
        ran = self.ran[(self.ran["graph"] == graph) & (self.ran["variant"] == chosen)]
        if half is not None:
            solves, ran = solves[solves["half"] == half], ran[ran["half"] == half]
        found = pd.DataFrame({"source": solves["source"], "value": values(solves)}).dropna()
        if found.empty:
            return self.record(graph, claim, chosen, requirement=requirement, selection=selection,
                               reason=none_reason or NO_VERIFIED_SOLVE)
        value = float(found["value"].median())
        by_source = found.groupby("source")["value"].median()
        fields = dict(requirement=requirement, measured=value, selection=selection,
                      faster_on=f"{int((by_source <= most).sum())}/{len(by_source)}")
        needed = self.options.pairs_needed(int(ran["source"].nunique()))
        if len(by_source) < needed:
            return self.record(graph, claim, chosen, **fields,
                               reason=f"{TOO_FEW_VERIFIED}: {len(by_source)} of the {needed} needed")
        met = bool(value <= most)
        return self.record(graph, claim, chosen, **fields, verdict="met" if met else "not met", met=met)
