"""Is one timing really faster than another, or is the difference noise? The compare step of asv and
pytest-benchmark, for this harness's recorded rows.

What is compared:
- two runs (a baseline run, then a new one): every (graph, variant) that ran in both, the new against the
  baseline (did a change to the code or the machine move a number?);
- `between=(BASE, NEW)`: variant NEW against variant BASE on every graph where both ran, in one run or across
  merged runs (labels as load.label_rows writes them, "run-id/variant" where two runs share a variant).

Pairing: the runner draws the same seeded sources for every implementation of a graph, so both sides timed the
same sources, and a source that is hard for one is usually hard for the other. Only verified solves count, as
in the report; a source's repetitions are reduced to their median, and the pairs are the sources verified on
both sides. Where the two sides share no source (runs with different source seeds) the comparison is unpaired.

The statistic is the report's own: ratio = NEW's median time / BASE's median time over the compared sources
(below 1 is faster). Its confidence interval is a percentile bootstrap: resample the sources with replacement
(the pairs together when paired, each side apart when not) and take the ratio again. Also given: on how many
of the paired sources NEW was faster, and the two-sided sign test's p-value for that count.

Coverage: a verdict needs enough of the sources compared, or a variant that failed on the hard sources would be
judged on the easy ones only: at least `min_pairs` (10) pairs, and at least `min_pair_fraction` (half) of the
sources both sides ran, verified or not (CompareOptions.pairs_needed); below that the verdict is "not enough
data". A side that ran fewer sources by design (`sources: N`, the first N of the same seeded list) is a fair
sample of them; one that failed, timed out or answered wrongly on some is not, and those count against it. Each
comparison counts the sources both ran that only one side verified (`base_only`, `new_only`). Unpaired (no source
in common), each side's verified solves count as its pairs.

Same graph: a comparison across runs holds only where both runs recorded the same graph under the label (their
manifests' `graphs`): the real graph on both sides or the same stand-in, the same size, weights and, where both
recorded it, the same content digest. Otherwise its verdict is "different graphs", with no ratio and `note`
saying what differs: a run whose dataset cache lacked the real file ran its stand-in under the real graph's label,
and its times say nothing about the real graph's.

Verdict: "faster" when the interval lies wholly below 1 and the ratio is at most 1 - min_change; "slower"
when it lies wholly above 1 and the ratio is at least 1 + min_change; otherwise "no clear difference" (a change
too small to matter, or one the sources' spread cannot tell from noise); "not enough data" under the coverage above.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import binomtest

from ..errors import UserError
from ..jsonfile import write_text_atomic
from .graph_identity import graph_difference
from .load import as_runs, label_rows
from .schema import solve_outcome

NOT_ENOUGH_DATA = "not enough data"
DIFFERENT_GRAPHS = "different graphs"
COMPARISON_COLUMNS = [
    "graph", "base", "new", "paired", "base_solves", "new_solves", "pairs", "base_median_ms", "new_median_ms",
    "ratio", "ci_low", "ci_high", "new_faster_on", "sign_test_p", "verdict", "base_ran", "new_ran", "both_ran",
    "base_only", "new_only", "pairs_needed", "note",
]


@dataclass(frozen=True)
class CompareOptions:
    min_change: float = 0.02    # a change smaller than this fraction is not called faster or slower
    confidence: float = 0.95    # of the bootstrap interval
    resamples: int = 10_000
    seed: int = 1               # the bootstrap's generator: the same rows give the same interval
    min_pairs: int = 10         # a verdict needs at least this many paired sources ...
    min_pair_fraction: float = 0.5  # ... and at least this fraction of the sources both sides ran

    def __post_init__(self) -> None:
        if not 0.0 <= self.min_change < 1.0:
            raise UserError(f"--min-change must be a fraction in [0, 1), got {self.min_change}")
        if not 0.5 <= self.confidence < 1.0:
            raise UserError(f"--confidence must be in [0.5, 1), got {self.confidence}")
        if self.resamples < 100:
            raise UserError(f"--resamples must be at least 100, got {self.resamples}")
        if isinstance(self.min_pairs, bool) or not isinstance(self.min_pairs, int) or self.min_pairs < 1:
            raise UserError(f"--min-pairs must be a positive whole number, got {self.min_pairs}")
        if not 0.0 <= self.min_pair_fraction <= 1.0:
            raise UserError(f"--min-pair-fraction must be a fraction in [0, 1], got {self.min_pair_fraction}")

    def pairs_needed(self, both_ran: int) -> int:
        """The pairs a verdict needs when both sides ran `both_ran` sources (verified or not): min_pairs, or
        min_pair_fraction of them, whichever is more."""
        return max(self.min_pairs, math.ceil(self.min_pair_fraction * both_ran - 1e-9))


def compare_runs(runs: Any, between: tuple[str, str] | None = None, graphs: Sequence[str] = (),
                 options: CompareOptions = CompareOptions()) -> pd.DataFrame:
    """One row per comparison (COMPARISON_COLUMNS); `runs` as load.as_runs takes them."""
    loaded = as_runs(runs)
    labelled = label_rows(loaded)
    rows = verified_times(labelled)
    if graphs:
        unknown = [graph for graph in graphs if graph not in set(rows["graph"])]
        if unknown:
            raise UserError(f"graph {unknown[0]!r} has no verified solve in these runs "
                            f"(graphs: {', '.join(sorted(set(rows['graph']))) or 'none'})")
        rows = rows[rows["graph"].isin(list(graphs))]
    ran = attempted_sources(labelled)
    if between is not None:
        pairs = _pairs_between(rows, ran, between)
    elif len(loaded) == 2:
        pairs = _pairs_across_runs(rows, ran, [str(manifest["run_id"]) for manifest, _ in loaded])
    else:
        raise UserError(f"compare needs two runs (baseline, then new), or --between BASE NEW; got {len(loaded)} "
                        f"run(s) and no --between")
    if not pairs:
        raise UserError("nothing to compare: no graph has verified solves of both sides")
    records = []
    for graph, base_name, new_name, base, new, base_ran, new_ran in pairs:
        record = compare_times(graph, base_name, new_name, base, new, options, base_ran, new_ran)
        difference = graph_difference(*(_graph_record(loaded, rows, graph, name) for name in (base_name, new_name)))
        if difference:
            record.update(ratio=math.nan, ci_low=math.nan, ci_high=math.nan, new_faster_on="",
                          sign_test_p=math.nan, verdict=DIFFERENT_GRAPHS, note=difference)
        records.append(record)
    return pd.DataFrame.from_records(records, columns=COMPARISON_COLUMNS)


def _graph_record(loaded: list[tuple[dict[str, Any], Any]], rows: pd.DataFrame, graph: str,
                  name: str) -> dict[str, Any] | None:
    """The manifest record of `graph` in the run whose verified solves carry the label `name`."""
    run_ids = set(rows.loc[(rows["graph"] == graph) & (rows["label"] == name), "run_id"])
    for manifest, _ in loaded:
        if str(manifest.get("run_id")) in run_ids:
            return (manifest.get("graphs") or {}).get(graph)
    return None


def verified_times(rows: pd.DataFrame) -> pd.DataFrame:
    """run_id, graph, variant, label, source, time_ms of the verified solves, repetitions reduced to a median
    (`rows` labelled as load.label_rows labels them)."""
    solves = rows[rows["phase"] == "solve"]
    verified = [
        solve_outcome(status, certificate, reference) == "verified" and not math.isnan(time_s)
        for status, certificate, reference, time_s in
        zip(solves["status"], solves["certificate"], solves["reference"], solves["time_s"])
    ]
    kept = solves[np.array(verified, dtype=bool)].copy()
    kept["time_ms"] = kept["time_s"] * 1e3
    kept["source"] = pd.to_numeric(kept["source"], errors="coerce")
    keys = ["run_id", "graph", "variant", "label", "source"]
    return kept.groupby(keys, sort=False, dropna=False)["time_ms"].median().reset_index()


def attempted_sources(rows: pd.DataFrame) -> pd.DataFrame:
    """run_id, graph, variant, label, source_index and source of every source a variant ran (its solve rows,
    verified or not: a failure, a timeout and a wrong answer were all run), once each (`rows` labelled as
    load.label_rows labels them)."""
    columns = ["run_id", "graph", "variant", "label", "source_index", "source"]
    solves = rows.loc[rows["phase"] == "solve", columns].copy()
    solves["source"] = pd.to_numeric(solves["source"], errors="coerce")
    return solves.drop_duplicates(["run_id", "graph", "variant", "label", "source"]).reset_index(drop=True)


def source_times(rows: pd.DataFrame, **match: str) -> pd.Series:
    """time_ms by source of the rows matching every column=value in `match`."""
    return _matching(rows, match).set_index("source")["time_ms"]


def ran_sources(ran: pd.DataFrame, **match: str) -> pd.Index:
    """The sources the rows of attempted_sources matching every column=value in `match` ran."""
    return pd.Index(_matching(ran, match)["source"].unique())


def _matching(rows: pd.DataFrame, match: dict[str, str]) -> pd.DataFrame:
    selected = rows
    for column, value in match.items():
        selected = selected[selected[column] == value]
    return selected


Pair = tuple[str, str, str, pd.Series, pd.Series, pd.Index, pd.Index]
"""(graph, base name, new name, base's time_ms by source, new's, the sources base ran, those new ran)."""


def _pairs_across_runs(rows: pd.DataFrame, ran: pd.DataFrame, run_ids: list[str]) -> list[Pair]:
    base_run, new_run = run_ids

    def keys(run_id: str) -> dict[tuple[str, str], None]:  # (graph, variant) in the order the run met them
        ran = rows[rows["run_id"] == run_id]
        return dict.fromkeys(zip(ran["graph"], ran["variant"]))

    base_keys, new_keys = keys(base_run), keys(new_run)
    return [
        (graph, f"{base_run}/{variant}", f"{new_run}/{variant}",
         source_times(rows, run_id=base_run, graph=graph, variant=variant),
         source_times(rows, run_id=new_run, graph=graph, variant=variant),
         ran_sources(ran, run_id=base_run, graph=graph, variant=variant),
         ran_sources(ran, run_id=new_run, graph=graph, variant=variant))
        for graph, variant in base_keys if (graph, variant) in new_keys
    ]


def _pairs_between(rows: pd.DataFrame, ran: pd.DataFrame, between: tuple[str, str]) -> list[Pair]:
    labels = list(dict.fromkeys(rows["label"]))
    for name in between:
        if name not in labels:
            raise UserError(f"--between: no verified solves of {name!r} (variants: {', '.join(labels) or 'none'})")
    base_name, new_name = between
    if base_name == new_name:
        raise UserError(f"--between names {base_name!r} twice; give two different variants")
    graphs = dict.fromkeys(rows.loc[rows["label"] == base_name, "graph"])
    new_graphs = set(rows.loc[rows["label"] == new_name, "graph"])
    return [
        (graph, base_name, new_name, source_times(rows, graph=graph, label=base_name),
         source_times(rows, graph=graph, label=new_name), ran_sources(ran, graph=graph, label=base_name),
         ran_sources(ran, graph=graph, label=new_name))
        for graph in graphs if graph in new_graphs
    ]


def compare_times(graph: str, base_name: str, new_name: str, base: pd.Series, new: pd.Series,
                  options: CompareOptions = CompareOptions(), base_ran: pd.Index | None = None,
                  new_ran: pd.Index | None = None) -> dict[str, Any]:
    """One comparison (a COMPARISON_COLUMNS record) of NEW's times against BASE's, each time_ms by source;
    `base_ran` and `new_ran` are the sources each side ran, verified or not (default: those it verified)."""
    shared = base.index.intersection(new.index)
    paired = len(shared) > 0
    if paired:
        base_times, new_times = base.loc[shared].to_numpy(), new.loc[shared].to_numpy()
    else:
        base_times, new_times = base.to_numpy(), new.to_numpy()
    base_ran = base.index if base_ran is None else base_ran
    new_ran = new.index if new_ran is None else new_ran
    both_ran = base_ran.intersection(new_ran)
    base_median, new_median = _median_or_nan(base_times), _median_or_nan(new_times)
    record: dict[str, Any] = {
        "graph": graph, "base": base_name, "new": new_name, "paired": paired,
        "base_solves": len(base), "new_solves": len(new), "pairs": len(shared),
        "base_median_ms": base_median, "new_median_ms": new_median,
        "ratio": new_median / base_median if base_median > 0 else math.nan,
        "ci_low": math.nan, "ci_high": math.nan, "new_faster_on": "", "sign_test_p": math.nan,
        "base_ran": len(base_ran), "new_ran": len(new_ran), "both_ran": len(both_ran),
        "base_only": len(base.index.intersection(both_ran).difference(new.index)),
        "new_only": len(new.index.intersection(both_ran).difference(base.index)),
        "pairs_needed": options.pairs_needed(len(both_ran)), "note": "",
    }
    if paired:
        faster, slower = int(np.sum(new_times < base_times)), int(np.sum(new_times > base_times))
        record["new_faster_on"] = f"{faster}/{len(shared)}"
        if faster + slower:
            record["sign_test_p"] = float(binomtest(faster, faster + slower, 0.5).pvalue)
    compared = len(shared) if paired else min(len(base_times), len(new_times))
    if compared < record["pairs_needed"]:
        record["verdict"] = NOT_ENOUGH_DATA
        return record
    record["ci_low"], record["ci_high"] = bootstrap_ratio_interval(base_times, new_times, paired, options)
    record["verdict"] = verdict(record["ratio"], record["ci_low"], record["ci_high"], options.min_change)
    return record


def _median_or_nan(times: np.ndarray) -> float:
    return float(np.median(times)) if len(times) else math.nan


def bootstrap_ratio_interval(base_times: np.ndarray, new_times: np.ndarray, paired: bool,
                             options: CompareOptions) -> tuple[float, float]:
    """Percentile bootstrap interval of median(new) / median(base); paired resamples keep each source's two
    times together."""
    generator = np.random.default_rng(options.seed)
    shape = (options.resamples, len(base_times))
    base_picks = generator.integers(0, len(base_times), size=shape)
    new_picks = base_picks if paired else generator.integers(0, len(new_times), size=(options.resamples,
                                                                                         len(new_times)))
    ratios = np.median(new_times[new_picks], axis=1) / np.median(base_times[base_picks], axis=1)
    tail = (1.0 - options.confidence) / 2.0
    low, high = np.quantile(ratios, [tail, 1.0 - tail])
    return float(low), float(high)


def verdict(ratio: float, ci_low: float, ci_high: float, min_change: float) -> str:
    if ci_high < 1.0 and ratio <= 1.0 - min_change:
        return "faster"
    if ci_low > 1.0 and ratio >= 1.0 + min_change:
        return "slower"
    return "no clear difference"


def write_comparison_csv(comparison: pd.DataFrame, path: str | os.PathLike[str]) -> Path:
    """The comparison as CSV, written atomically: never half a file."""
    try:
        return write_text_atomic(path, comparison.to_csv(index=False))
    except OSError as error:
        raise UserError(f"{path}: cannot write the comparison ({error})") from None
