"""Failures: every solve or prepare that did not end verified, one bullet per graph, variant, phase, outcome and
message, with a count and the sources: what went wrong, in its own words."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import pandas as pd

from ...results.load import label_rows
from ...results.schema import OUTCOME_EXPLANATIONS, solve_outcome
from ..text import markdown_cell

if TYPE_CHECKING:
    from .. import Report


def section(report: Report) -> list[str]:
    lines = ["## Failures", "", "Every solve or prepare that did not end verified, grouped by what went wrong.", ""]
    return lines + (_failure_lines(report) or ["None: every solve was verified."]) + [""]


def _failure_lines(report: Report) -> list[str]:
    rows = label_rows(report.runs)
    rows = rows[rows["phase"] != "energy"]  # the energy section says why an energy phase did not measure
    if rows.empty:
        return []
    outcomes = [
        solve_outcome(s, c, r) if phase == "solve" else ("verified" if s == "ok" else s)
        for phase, s, c, r in zip(rows["phase"], rows["status"], rows["certificate"], rows["reference"])
    ]
    failed = rows.assign(outcome=outcomes)
    failed = failed[failed["outcome"] != "verified"]
    if failed.empty:
        return []
    failed = failed.assign(message=[_one_line_message(m) for m in failed["message"]])
    lines = []
    grouped = failed.groupby(["graph", "label", "phase", "outcome", "message"], sort=False, dropna=False)
    for (graph, label, phase, outcome, message), group in grouped:
        where = f"{markdown_cell(graph)} / {markdown_cell(label)}" + (" (prepare)" if phase == "prepare" else "")
        count = f" ×{len(group)}" if len(group) > 1 else ""
        sources = sorted({int(s) for s in group["source"] if isinstance(s, (int, float)) and not pd.isna(s)})
        source_text = ""
        if sources:
            shown = ", ".join(str(s) for s in sources[:5]) + (", ..." if len(sources) > 5 else "")
            source_text = f" (source{'s' if len(sources) > 1 else ''} {shown})"
        message = message or OUTCOME_EXPLANATIONS.get(outcome, "")
        explained = f": {markdown_cell(message)}" if message else ""
        lines.append(f"- **{where}**: {outcome}{count}{source_text}{explained}")
    return lines


def _one_line_message(message: Any) -> str:
    if message is None or (isinstance(message, float) and math.isnan(message)):
        return ""
    text = " ".join(str(message).split())
    return text if len(text) <= 300 else text[:297] + "..."
