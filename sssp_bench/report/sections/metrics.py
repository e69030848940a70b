"""Metrics: what each column of the report means."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .. import Report

METRIC_DEFINITIONS = (
    ("time", "the timed solve, from distance initialisation to distances ready (device synchronised); "
             "graph upload and preprocessing are timed apart as *prepare*"),
    ("median (IQR)", "median and interquartile range (75th - 25th percentile) of the verified solves' times"),
    ("MTEPS", "millions of traversed edges per second: arcs leaving reached vertices / time, "
              "the median over verified solves"),
    ("speedup", "the baseline's median time / the implementation's median time on the same graph, both over the "
                "sources both verified (followed by (k/n) where that is k of the n the busier side verified); "
                "above 1x is faster than the baseline. The baseline is named below the table, per problem kind"),
    ("vs best CPU", "for a GPU variant, the median time of the fastest CPU variant that verified the same problem "
                    "kind on the graph (by median time; never an all-pairs one) / the variant's median time, both "
                    "over the sources both verified, (k/n) as for speedup: the config's baseline is the paper's "
                    "choice, this one the strongest CPU competitor the run measured. Each graph's best CPU variant "
                    "is named below the table; report.csv: `best_cpu_speedup`, `best_cpu`, `best_cpu_sources`"),
    ("‡ (all pairs)", "an implementation whose every solve computes all pairs (floyd-warshall): its time, MTEPS, "
                      "efficiency and speedup are of the all-pairs computation, marked wherever they stand beside "
                      "single-source numbers (tables, charts, figures, claims); no speedup divides by it"),
    ("efficiency", "the roofline floor of a solve / its measured time, the median over verified solves (a "
                   "fraction in report.csv). The floor, measured on the run's GPU, is max(reached arcs x the time "
                   "per arc of one pass relaxing every arc once with atomicMin, hop depth from the source x the "
                   "latency of a dependent global load); it can pass 100% where an implementation skips atomics "
                   "that cannot win. Blank where no floor was recorded (no GPU in the run)"),
    ("verified", "solves with status ok whose certificate (a distance check) passed and whose reference "
                 "compare, when made, agreed; only these count toward any timing"),
)


def section(report: Report) -> list[str]:
    return ["## Metrics", "", *(f"- **{name}**: {definition}." for name, definition in METRIC_DEFINITIONS), ""]
