"""Speed targets: a config's `targets.mteps` (a paper's MTEPS per graph and variant, scaled by the device's memory
bandwidth over the paper's) against the MTEPS measured; the summary's target_mteps and target_met."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from ...results.numbers import format_number
from ...results.summary import paper_mteps, target_scale
from ..text import all_pairs_mark, graph_cell, markdown_cell

if TYPE_CHECKING:
    from .. import Report


def section(report: Report) -> list[str]:
    with_targets = [m for m in report.manifests if ((m.get("config") or {}).get("targets") or {}).get("mteps")]
    if not with_targets:
        return []
    lines = ["## Speed targets", ""]
    for manifest in with_targets:
        targets = manifest["config"]["targets"]
        scale, device = target_scale(manifest)
        scale_text = f"x {scale:.2f}" if scale else "unknown (no matching GPU: not checked)"
        source = markdown_cell(targets.get("source") or "paper numbers")
        lines.append(f"Run {markdown_cell(manifest['run_id'])}: {source}; "
                     f"scaled by memory bandwidth, {markdown_cell(device)} / {targets['paper_bandwidth_gbs']:g} GB/s = "
                     f"{scale_text}.")
        lines.append("")
    lines += ["| graph | implementation | paper MTEPS | target MTEPS | measured MTEPS | met |",
              "|---|---|---:|---:|---:|---|"]
    papers = paper_mteps(report.runs)
    for row in report.summary.itertuples(index=False):
        paper = papers.get((str(row.run_id), row.graph, str(row.variant)))
        if paper is None:
            continue
        target = "-" if pd.isna(row.target_mteps) else format_number(row.target_mteps)
        verdict = "-" if row.target_met is None else ("yes" if row.target_met else "**no**")
        lines.append(f"| {markdown_cell(graph_cell(row.graph, row.stand_in_for))} | {markdown_cell(row.variant)} | "
                     f"{paper:g} | {target} | {format_number(row.mteps_median)}{all_pairs_mark(row)} | {verdict} |")
    return lines + [""]
