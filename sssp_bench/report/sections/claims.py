"""Claims: what the configs' `targets` say a paper found or an issue asks, as results/claims.py judged each on
each graph; nothing when the configs make no claim."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..text import claim_text, graph_cell, interval_text, markdown_cell, measured_text, met_text, tally

if TYPE_CHECKING:
    from .. import Report


def section(report: Report) -> list[str]:
    claims = report.claims
    if claims.empty:
        return []
    lines = ["## Claims", "",
             "What the configs' `targets` say a paper found or an issue asks, judged on each run's verified solves "
             "(the parts of one config split over calls with `run --graph` / `--variant` as one run, a later part's "
             "cells replacing an earlier run's). "
             "*faster than*: paired by source, ratio = the variant's median time / the other's (below 1: faster), "
             "with its 95% bootstrap interval and the sources it won; met only on `compare`'s verdict \"faster\" "
             "(the interval below 1, at least 2% faster), so a tie is not met. A comparator standing for a sweep is "
             "its fastest variant on that graph. *efficiency*: the median of floor / time over verified solves.", "",
             "| graph | claim | measured | 95% interval | faster on | verdict | met |",
             "|---|---|---:|---|---:|---|---|"]
    for row in claims.itertuples(index=False):
        lines.append(f"| {markdown_cell(graph_cell(row.graph, row.stand_in_for))} | {markdown_cell(claim_text(row))} | "
                     f"{markdown_cell(measured_text(row))} | {interval_text(row)} | "
                     f"{markdown_cell(row.faster_on or '')} | {markdown_cell(row.verdict)} | "
                     f"{met_text(row.met, bold=True)} |")
    return lines + ["", tally(claims).capitalize() + ".", ""]
