"""Stand-in fidelity: how well each synthetic stand-in that ran predicts the real graph it stands for.

For every graph of the runs that ran as a stand-in (its manifest record has `stand_in_for`):

- Table 1 side by side: the stand-in's facts (as the run measured them) and the real graph's, from the best
  source there is: the real graph itself where it ran in these runs (`stand_in: both`, or merged runs), else what
  the run recorded of it (manifest `real_graph`: the cached real graph's facts, or the catalog's size and
  published facts, whose diameter is the exact published one, not the double-sweep bound).
- Where the real graph ran too: each implementation's median time on both, the ratio, and the order of the
  implementations by median time on each. Two implementations are *swapped* when the order differs between the
  graphs and `compare` judges both differences clear (paired by source, the ratio's 95% interval excluding 1 and
  at least min_change apart: "faster" on one graph, "slower" on the other). A stand-in with a swapped pair orders
  implementations differently from its real graph (`differs`), and every report that shows it flags it; one whose
  median order differs only where a difference is not clear on a graph is `differs within noise`.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from .compare import CompareOptions, compare_times, source_times, verified_times
from .load import as_runs, graph_records, label_rows

SAME_ORDER = "same order"
DIFFERS = "differs"
DIFFERS_WITHIN_NOISE = "differs within noise"
NOT_MEASURED = "not measured"  # the real graph did not run beside it, or fewer than two implementations ran on both


@dataclass
class Fidelity:
    """One stand-in beside its real graph (see the module docstring)."""
    stand_in_label: str
    stand_in_for: str                  # the catalog name of the real graph
    spec: str                          # the stand-in's generator spec
    stand_in_table1: dict[str, Any]
    real_table1: dict[str, Any]
    real_source: str                   # "ran as <label>", "dataset cache", "catalog" or "" (nothing known)
    real_label: str | None = None      # the real graph's label where it ran in these runs
    times: pd.DataFrame = field(default_factory=pd.DataFrame)  # variant, stand_in_ms, real_ms, ratio, ranks
    swaps: list[tuple[str, str]] = field(default_factory=list)  # (faster on the stand-in, faster on the real graph)
    verdict: str = NOT_MEASURED

    @property
    def differs(self) -> bool:
        return self.verdict == DIFFERS


def stand_in_fidelity(runs: Any, summary: pd.DataFrame,
                      options: CompareOptions = CompareOptions()) -> list[Fidelity]:
    """A Fidelity for every graph of `runs` (as load.as_runs takes them) that ran as a stand-in, in the order the
    runs met them; `summary` is summarize(runs)."""
    loaded = as_runs(runs)
    records = graph_records(manifest for manifest, _ in loaded)
    stand_ins = [(label, info) for label, info in records.items() if info.get("stand_in_for")]
    if not stand_ins:
        return []
    times = verified_times(label_rows(loaded))
    found = []
    for label, info in stand_ins:
        real_label = _real_label(label, info, records)
        recorded = info.get("real_graph") or {}
        fidelity = Fidelity(label, str(info["stand_in_for"]), str(info.get("stand_in") or ""),
                            info.get("table1") or {},
                            records[real_label].get("table1") or {} if real_label else recorded.get("table1") or {},
                            f"ran as {real_label}" if real_label else str(recorded.get("source") or ""), real_label)
        if real_label is not None:
            _compare_orders(fidelity, summary, times, options)
        found.append(fidelity)
    return found


def _real_label(label: str, info: dict[str, Any], records: dict[str, dict[str, Any]]) -> str | None:
    """The label under which the stand-in's real graph ran in these runs: the one it ran beside (`stand_in: both`),
    else any graph made from the same catalog entry; None when it did not run."""
    real = [other for other, record in records.items() if not record.get("stand_in_for")
            and (record.get("provenance") or {}).get("catalog_entry") == info["stand_in_for"]]
    return info.get("beside") if info.get("beside") in real else next(iter(real), None)


def _compare_orders(fidelity: Fidelity, summary: pd.DataFrame, times: pd.DataFrame, options: CompareOptions) -> None:
    """Fill times, swaps and verdict from the implementations that have verified solves on both graphs."""
    def medians(graph: str) -> pd.Series:
        rows = summary[(summary["graph"] == graph) & (summary["verified"] > 0)]
        return rows.set_index("variant")["time_median_ms"].dropna()

    on_stand_in, on_real = medians(fidelity.stand_in_label), medians(fidelity.real_label)
    variants = [variant for variant in on_stand_in.index if variant in on_real.index]
    if len(variants) < 2:
        return
    table = pd.DataFrame({"variant": variants, "stand_in_ms": on_stand_in[variants].to_numpy(),
                          "real_ms": on_real[variants].to_numpy()})
    table["ratio"] = table["stand_in_ms"] / table["real_ms"]
    table["stand_in_rank"] = table["stand_in_ms"].rank(method="min").astype(int)
    table["real_rank"] = table["real_ms"].rank(method="min").astype(int)
    fidelity.times = table

    def verdict(graph: str, first: str, second: str) -> str:
        """compare's verdict on `second` against `first` on this graph ("faster": second is clearly faster)."""
        return compare_times(graph, first, second, source_times(times, graph=graph, label=first),
                             source_times(times, graph=graph, label=second), options)["verdict"]

    opposite = False
    for first, second in itertools.combinations(variants, 2):
        stand_in_first = on_stand_in[first] < on_stand_in[second]
        if stand_in_first == (on_real[first] < on_real[second]):
            continue
        opposite = True
        judged = {verdict(fidelity.stand_in_label, first, second), verdict(fidelity.real_label, first, second)}
        if judged == {"faster", "slower"}:
            fidelity.swaps.append((first, second) if stand_in_first else (second, first))
    fidelity.verdict = DIFFERS if fidelity.swaps else DIFFERS_WITHIN_NOISE if opposite else SAME_ORDER
