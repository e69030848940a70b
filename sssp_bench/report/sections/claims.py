"""Claims: what the configs' `targets` say a paper found or an issue asks, as results/claims.py judged each on
each graph; nothing when the configs make no claim."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from ...results.names import FASTEST_OTHER
from ..text import (
    claim_text, graph_cell, interval_text, markdown_cell, measured_text, met_text, note_text, one_side_text, tally,
)

if TYPE_CHECKING:
    from .. import Report


def section(report: Report) -> list[str]:
    claims = report.claims
    if claims.empty:
        return []
    lines = ["## Claims", "",
             "What the configs' `targets` say a paper found or an issue asks, judged on each run's verified solves "
             "(the parts of one config split over calls with `run --graph` / `--variant` as one run, a later part's "
             "cells replacing an earlier run's). Every claim on every graph the config holds is a row: met, not met, "
             "or not measured, with why. "
             "*faster than*: paired by source, ratio = the variant's median time / the other's (below 1: faster), "
             "with its 95% bootstrap interval and the sources it won; met only on `compare`'s verdict \"faster\" "
             "(the interval below 1, at least 2% faster), so a tie is not met; judged only on at least 10 paired "
             "sources and half of those both ran (*one side only*: the sources both ran that the variant / the "
             "other verified and the other did not). A name standing for a sweep is its fastest variant on that graph, "
             "picked on half A of the sources (even source index) and judged on half B, unless the note says "
             "in-sample. *efficiency*: the median of floor / time over verified solves. A variant marked "
             "(all pairs) computes all pairs in every solve: its time is the all-pairs time. A GPU variant's claim "
             "against a CPU variant says whether it was the best CPU variant run (the fastest that verified the "
             "problem kind on the graph, by median time) and, if not, which was." + _later_kinds(claims), "",
             "| graph | claim | measured | 95% interval | faster on | one side only | verdict | met | note |",
             "|---|---|---:|---|---:|---:|---|---|---|"]
    for row in claims.itertuples(index=False):
        lines.append(f"| {markdown_cell(graph_cell(row.graph, row.stand_in_for))} | {markdown_cell(claim_text(row))} | "
                     f"{markdown_cell(measured_text(row))} | {interval_text(row)} | "
                     f"{markdown_cell(row.faster_on or '')} | {one_side_text(row)} | {markdown_cell(row.verdict)} | "
                     f"{met_text(row.met, bold=True)} | {markdown_cell(note_text(row))} |")
    text = tally(claims)
    return lines + ["", text[:1].upper() + text[1:] + ".", ""]


def _later_kinds(claims: pd.DataFrame) -> str:
    """What the claim kinds added after the first records mean, said only where the claims hold one (so that the
    records made before them report as they did)."""
    kinds = [str(claim) for claim in claims["claim"]]
    said = []
    if any(claim.startswith("at least ") for claim in kinds):
        said.append("*at least Fx faster than*: the same paired rule with 1/F in place of 1 (the ratio's interval "
                    "below 1/F and the ratio at least 2% below it)")
    if any(claim.startswith("within ") for claim in kinds):
        said.append("*within Fx of*: no slower than F times the other, paired by source: met when the ratio's 95% "
                    "interval lies below F; a claim that allows it is also met where the variant's implementation "
                    "declares graph classes (`recommended_for`) that leave the graph's class out, which its verdict "
                    "says")
    if FASTEST_OTHER in " ".join(str(selection) for selection in claims["selection"]):
        said.append(f"*{FASTEST_OTHER}*: the fastest variant of another implementation than the claimant's, of "
                    "its problem kind, on the graph (not an all-pairs or external one), picked and judged as a sweep "
                    "is")
    if "time" in kinds:
        said.append("*median time at most X ms*: the median over the variant's verified solves (every repetition, "
                    "as the Results table's), met when at most X")
    if "work" in kinds:
        said.append("*median COUNTER per reached vertex (or arc) at most X*: the median over the verified solves "
                    "of the counter the implementation reports divided by the solve's reached vertices (arcs), "
                    "met when at most X; solves without the counter are left out")
    if "time" in kinds or "work" in kinds:
        said.append("for these two *faster on* counts the sources within the bound, and they are judged only on "
                    "at least 10 sources with a value and half of those the variant ran")
    return (" " + "; ".join(said) + ".") if said else ""
