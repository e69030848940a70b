"""Claims: what the configs' `targets` say a paper found or an issue asks, as results/claims.py judged each on
each graph; nothing when the configs make no claim."""

from __future__ import annotations

from typing import TYPE_CHECKING

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
             "problem kind on the graph, by median time) and, if not, which was.", "",
             "| graph | claim | measured | 95% interval | faster on | one side only | verdict | met | note |",
             "|---|---|---:|---|---:|---:|---|---|---|"]
    for row in claims.itertuples(index=False):
        lines.append(f"| {markdown_cell(graph_cell(row.graph, row.stand_in_for))} | {markdown_cell(claim_text(row))} | "
                     f"{markdown_cell(measured_text(row))} | {interval_text(row)} | "
                     f"{markdown_cell(row.faster_on or '')} | {one_side_text(row)} | {markdown_cell(row.verdict)} | "
                     f"{met_text(row.met, bold=True)} | {markdown_cell(note_text(row))} |")
    text = tally(claims)
    return lines + ["", text[:1].upper() + text[1:] + ".", ""]
