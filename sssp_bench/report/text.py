"""Results as text: Markdown table cells, fixed-width terminal tables (the summary, the claims, a comparison) and
the stand-in mark, shared by the report's sections and the command line."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import pandas as pd

from ..results.compare import CompareOptions
from ..results.numbers import format_number, format_percent

STAND_IN_MARK = "†"  # after a graph's label wherever a synthetic stand-in ran in its place


def graph_cell(graph: str, stand_in_for: Any) -> str:
    """A graph's label as the tables show it: with the stand-in mark when a synthetic graph ran in its place."""
    return f"{graph} {STAND_IN_MARK}" if isinstance(stand_in_for, str) and stand_in_for else str(graph)


def count_cell(value: Any) -> str:
    """A count with thousands separators (vertices, arcs, degrees), or "-"."""
    return f"{int(value):,}" if isinstance(value, (int, float)) and not pd.isna(value) else "-"


def decimal_cell(value: Any) -> str:
    """A mean or a deviation to one decimal, or "-"."""
    return "-" if value is None or pd.isna(value) else f"{value:.1f}"


def markdown_cell(text: Any) -> str:
    """Text safe inside a Markdown table cell."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def fixed_width_lines(header: list[str], body: list[list[str]], right_aligned: Sequence[bool]) -> list[str]:
    """A plain-text table: the header, a rule, then the body, each column as wide as its widest cell."""
    widths = [max(len(line[i]) for line in [header, *body]) for i in range(len(header))]

    def render(cells: list[str]) -> str:
        parts = [cell.rjust(width) if right else cell.ljust(width)
                 for cell, width, right in zip(cells, widths, right_aligned)]
        return "  ".join(parts).rstrip()

    return [render(header), "  ".join("-" * width for width in widths), *(render(cells) for cells in body)]


# ---------------------------------------------------------------------------------------------- summary

BLANK_WHEN_MISSING = {"efficiency"}
"""Terminal-table columns left blank, not "-", where there is no value (no floor recorded)."""

TABLE_COLUMNS = (
    # (header, summary column or callable, right-aligned)
    ("graph", lambda r: graph_cell(r.graph, r.stand_in_for), False),
    ("variant", "variant", False),
    ("kind", "kind", False),
    ("dev", "device", False),
    ("verified", "verified_total", True),
    ("median ms", lambda r: format_number(r.time_median_ms), True),
    ("IQR ms", lambda r: format_number(r.time_iqr_ms), True),
    ("MTEPS", lambda r: format_number(r.mteps_median), True),
    ("efficiency", lambda r: format_percent(r.efficiency), True),
    ("speedup", lambda r: format_number(r.speedup, "x"), True),
    ("prepare ms", lambda r: format_number(r.prepare_ms), True),
    ("failures", "failures", False),
)


def format_table(summary: pd.DataFrame) -> str:
    """The summary as a fixed-width plain-text table for a terminal."""
    if summary.empty:
        return "(no rows)"
    header = [title for title, _, _ in TABLE_COLUMNS]
    body = []
    for row in summary.itertuples(index=False):
        cells = []
        for title, source, _ in TABLE_COLUMNS:
            value = source(row) if callable(source) else getattr(row, source)
            missing = value is None or value == "" or (isinstance(value, float) and math.isnan(value))
            cells.append(("" if title in BLANK_WHEN_MISSING else "-") if missing else str(value))
        body.append(cells)
    lines = fixed_width_lines(header, body, [right for _, _, right in TABLE_COLUMNS])
    lines.append("Timings cover verified solves only; speedup = baseline median / variant median on the same graph.")
    if summary["stand_in_for"].astype(bool).any():
        lines.append(f"{STAND_IN_MARK} a synthetic stand-in of the same size and structure ran in place of the real "
                     "graph (see report.md).")
    if summary["efficiency"].notna().any():
        lines.append("efficiency = roofline floor / measured time (median over verified solves; see report.md).")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------- claims


def claim_text(row: Any) -> str:
    """What a judged claim (a row of claims.judge) says, e.g. "hbf faster than workfront"."""
    if row.claim == "efficiency":
        return f"{row.variant} reaches {row.requirement}"
    return f"{row.variant} faster than {row.against}"


def measured_text(row: Any) -> str:
    if isinstance(row.measured, float) and math.isnan(row.measured):
        return "-"
    return format_percent(row.measured) if row.claim == "efficiency" else f"ratio {row.measured:.3f}"


def interval_text(row: Any) -> str:
    return "" if math.isnan(row.ci_low) else f"{row.ci_low:.3f}-{row.ci_high:.3f}"


def met_text(met: Any, bold: bool) -> str:
    """yes, no (bold in Markdown, capitals on a terminal) or "-" for a claim that was not measured."""
    if met is None or (isinstance(met, float) and math.isnan(met)):
        return "-"
    return "yes" if met else ("**no**" if bold else "NO")


def tally(claims: pd.DataFrame) -> str:
    met = claims["met"]
    counts = (int((met == True).sum()), int((met == False).sum()), int(met.isna().sum()))  # noqa: E712 (tri-state)
    return f"claims met: {counts[0]} of {len(claims)}; not met: {counts[1]}; not measured: {counts[2]}"


def format_claims(claims: pd.DataFrame) -> str:
    """The claims as a fixed-width terminal table and their tally; empty when there are none."""
    if claims.empty:
        return ""
    header = ["graph", "claim", "measured", "95% interval", "faster on", "verdict", "met"]
    body = [[graph_cell(row.graph, row.stand_in_for), claim_text(row), measured_text(row), interval_text(row),
             row.faster_on or "", row.verdict, met_text(row.met, bold=False)]
            for row in claims.itertuples(index=False)]
    aligned = [False, False, True, False, True, False, False]
    return "\n".join([*fixed_width_lines(header, body, aligned), tally(claims)])


# ---------------------------------------------------------------------------------------------- comparison


def format_comparison(comparison: pd.DataFrame, options: CompareOptions = CompareOptions()) -> str:
    """A comparison (results.compare.compare_runs) as a fixed-width table and a line on how to read it."""
    header = ["graph", "base", "new", "base ms", "new ms", "ratio", f"{options.confidence:.0%} interval",
              "new faster on", "sign p", "verdict"]
    body = []
    for row in comparison.itertuples(index=False):
        interval = "-" if math.isnan(row.ci_low) else f"{row.ci_low:.3f}-{row.ci_high:.3f}"
        faster_on = row.new_faster_on if row.paired else "unpaired"
        sign_p = "-" if math.isnan(row.sign_test_p) else f"{row.sign_test_p:.2g}"
        body.append([row.graph, row.base, row.new, f"{row.base_median_ms:.4g}", f"{row.new_median_ms:.4g}",
                      f"{row.ratio:.3f}", interval, faster_on, sign_p, row.verdict])
    right_aligned = [False, False, False, True, True, True, True, True, True, False]
    table = fixed_width_lines(header, body, right_aligned)
    table.append(f"ratio = new median / base median over the sources verified on both sides (below 1: new is "
                 f"faster); a verdict needs the interval to exclude 1 and a change of at least "
                 f"{options.min_change:.0%}")
    return "\n".join(table)
