"""Stand-in fidelity: each stand-in (†) that ran beside its real graph's Table 1 facts and, where the real graph ran
too, each implementation's time on both and their order (results/stand_ins.py); a stand-in that orders the
implementations differently from its real graph is flagged here and beside its footnote under Table 1."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...results.numbers import format_number
from ...results.stand_ins import DIFFERS, DIFFERS_WITHIN_NOISE, NOT_MEASURED, SAME_ORDER, Fidelity
from ..text import STAND_IN_MARK, count_cell, decimal_cell, graph_cell, markdown_cell

if TYPE_CHECKING:
    from .. import Report

# (column, how a Table 1 fact reads, the stand-in's key, the real graph's keys in order of preference)
FACTS = (
    ("vertices", count_cell, "n", ("n",)),
    ("arcs", count_cell, "m", ("m",)),
    ("avg. degree", decimal_cell, "out_degree_mean", ("out_degree_mean",)),
    ("std. dev.", decimal_cell, "out_degree_std", ("out_degree_std",)),
    ("max. degree", count_cell, "out_degree_max", ("out_degree_max",)),
    ("diameter", count_cell, "approx_diameter", ("approx_diameter", "diameter")),
)
ORDER_TEXT = {
    SAME_ORDER: "same",
    DIFFERS: "**differs**",
    DIFFERS_WITHIN_NOISE: "differs within noise",
    NOT_MEASURED: "not measured",
}


def section(report: Report) -> list[str]:
    if not report.fidelity:
        return []
    lines = ["## Stand-in fidelity", "",
             f"How well each synthetic stand-in ({STAND_IN_MARK}) predicts the real graph it stands for. Table 1 "
             "side by side, *stand-in / real*: the real graph's facts as it ran here where it did (`stand_in: "
             "both` runs both), else from the dataset cache, else the catalog's (its size and published facts: a "
             "published diameter is the exact one, not the double-sweep lower bound of the stand-in's). *order*: "
             "whether the implementations rank the same by median time on both graphs (where both ran).", "",
             "| stand-in | for | real from | " + " | ".join(column for column, *_ in FACTS) + " | order |",
             "|---|---|---|" + "---:|" * len(FACTS) + "---|"]
    for fidelity in report.fidelity:
        cells = [_fact_pair(fidelity, show, mine, theirs) for _, show, mine, theirs in FACTS]
        lines.append(f"| {markdown_cell(graph_cell(fidelity.stand_in_label, fidelity.stand_in_for))} | "
                     f"{markdown_cell(fidelity.stand_in_for)} | {markdown_cell(fidelity.real_source or '-')} | "
                     + " | ".join(cells) + f" | {ORDER_TEXT[fidelity.verdict]} |")
    lines.append("")
    for fidelity in report.fidelity:
        lines += _times_lines(fidelity)
    if any(fidelity.verdict == NOT_MEASURED and fidelity.real_label is None for fidelity in report.fidelity):
        lines += ["A stand-in whose real graph did not run here is compared on Table 1 only; "
                  "`{graph: NAME, stand_in: both}` in a config runs the real graph (fetched) and its stand-in side "
                  "by side.", ""]
    return lines


def _fact_pair(fidelity: Fidelity, show, mine: str, theirs: tuple[str, ...]) -> str:
    real = next((fidelity.real_table1[key] for key in theirs if fidelity.real_table1.get(key) is not None), None)
    return f"{show(fidelity.stand_in_table1.get(mine))} / {show(real)}"


def _times_lines(fidelity: Fidelity) -> list[str]:
    """Each implementation's median time on the stand-in and on the real graph, and the order on each."""
    if fidelity.times.empty:
        return []
    stand_in = graph_cell(fidelity.stand_in_label, fidelity.stand_in_for)
    lines = [f"### {markdown_cell(stand_in)} beside {markdown_cell(fidelity.real_label)}", "",
             "| variant | stand-in ms | real ms | stand-in / real | rank on the stand-in | rank on the real graph |",
             "|---|---:|---:|---:|---:|---:|"]
    for row in fidelity.times.itertuples(index=False):
        lines.append(f"| {markdown_cell(row.variant)} | {format_number(row.stand_in_ms)} | {format_number(row.real_ms)} "
                     f"| {format_number(row.ratio, 'x')} | {row.stand_in_rank} | {row.real_rank} |")
    lines.append("")
    return lines + [_verdict_line(fidelity), ""]


def _verdict_line(fidelity: Fidelity) -> str:
    if fidelity.verdict == SAME_ORDER:
        return "The implementations rank the same on both graphs."
    if fidelity.verdict == DIFFERS_WITHIN_NOISE:
        return ("The order by median time differs, but only between implementations whose times are not clearly "
                "apart on one of the graphs (`compare`'s verdict): the stand-in ranks them as well as the runs can "
                "tell.")
    swaps = "; ".join(f"{markdown_cell(first)} before {markdown_cell(second)} on the stand-in, after it on the real "
                      "graph" for first, second in fidelity.swaps)
    return (f"**The stand-in orders the implementations differently from its real graph**: {swaps} (each difference "
            "clear on both graphs, paired by source as `compare` judges it).")
