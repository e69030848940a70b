"""Results as text: Markdown table cells, fixed-width terminal tables (the summary, the claims, a comparison) and
the stand-in mark, shared by the report's sections and the command line."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import pandas as pd

from ..results.compare import DIFFERENT_GRAPHS, NOT_ENOUGH_DATA, CompareOptions
from ..results.numbers import format_number, format_percent

STAND_IN_MARK = "†"  # after a graph's label wherever a synthetic stand-in ran in its place
ALL_PAIRS_MARK = "‡"  # after each number of a variant whose every solve computes all pairs (floyd-warshall)
ALL_PAIRS_TEXT = "all pairs"  # after such a variant's name in a claim, a chart's legend, a figure's series


def graph_cell(graph: str, stand_in_for: Any) -> str:
    """A graph's label as the tables show it: with the stand-in mark when a synthetic graph ran in its place."""
    return f"{graph} {STAND_IN_MARK}" if isinstance(stand_in_for, str) and stand_in_for else str(graph)


def count_cell(value: Any) -> str:
    """A count with thousands separators (vertices, arcs, degrees), or "-"."""
    return f"{int(value):,}" if isinstance(value, (int, float)) and not pd.isna(value) else "-"


def decimal_cell(value: Any) -> str:
    """A mean or a deviation to one decimal, or "-"."""
    return "-" if value is None or pd.isna(value) else f"{value:.1f}"


def all_pairs_mark(row: Any) -> str:
    """" ‡" after a number of a summary row whose solves compute all pairs (summary `all_pairs`), else ""."""
    return f" {ALL_PAIRS_MARK}" if getattr(row, "all_pairs", False) is True else ""


def partial_speedup(row: Any, sources_column: str = "speedup_sources") -> bool:
    """Whether a summary row's speedup is over fewer sources than one side verified (`speedup_sources` "3/100";
    `best_cpu_sources` for the speedup over the best CPU variant)."""
    shared, _, most = str(getattr(row, sources_column, "") or "").partition("/")
    return bool(most) and shared != most


def speedup_cell(row: Any) -> str:
    """A summary row's speedup, with the sources it is over where that is fewer than one side verified ("4.20x
    (3/100)"), and the all-pairs mark."""
    if not isinstance(row.speedup, float) or math.isnan(row.speedup):
        return "-"
    sources = f" ({row.speedup_sources})" if partial_speedup(row) else ""
    return f"{format_number(row.speedup, 'x')}{sources}{all_pairs_mark(row)}"


def best_cpu_cell(row: Any) -> str:
    """A summary row's speedup over the best CPU variant (summary `best_cpu_speedup`), marked as speedup_cell marks
    the speedup over the baseline; "-" for a CPU row or where no CPU variant verified its kind on the graph."""
    value = getattr(row, "best_cpu_speedup", math.nan)
    if not isinstance(value, float) or math.isnan(value):
        return "-"
    sources = f" ({row.best_cpu_sources})" if partial_speedup(row, "best_cpu_sources") else ""
    return f"{format_number(value, 'x')}{sources}{all_pairs_mark(row)}"


def best_cpu_note(summary: pd.DataFrame) -> str:
    """The sentence naming each graph's best CPU variant per problem kind (with its median time), which the "vs
    best CPU" column divides by; "" when no row has one."""
    if "best_cpu" not in summary or not summary["best_cpu"].astype(bool).any():
        return ""
    medians = {(str(row.run_id), row.graph, str(row.variant)): row.time_median_ms
               for row in summary.itertuples(index=False)}
    # graph -> kind -> the best CPU variants named (merged runs may each have their own)
    by_graph: dict[str, dict[str, list[str]]] = {}
    for row in summary.itertuples(index=False):
        if row.device != "gpu" or not row.verified:
            continue
        named = by_graph.setdefault(str(row.graph), {}).setdefault(str(row.kind), [])
        median = medians.get((str(row.best_cpu_run_id), row.graph, str(row.best_cpu)), math.nan)
        text = f"{row.best_cpu} ({format_number(median)} ms)" if row.best_cpu else ""
        if text and text not in named:
            named.append(text)
    per_graph = "; ".join(
        f"{graph}: " + ", ".join(f"{kind} {' and '.join(names) if names else 'none verified'}"
                                 for kind, names in kinds.items())
        for graph, kinds in by_graph.items())
    return ("vs best CPU = the fastest verified CPU variant of the same problem kind on the graph (by median time) / "
            f"the variant's median time, both over the sources both verified; the best CPU variant: {per_graph}.")


def speedup_notes(summary: pd.DataFrame, manifests: Sequence[dict[str, Any]] = ()) -> list[str]:
    """What qualifies the summary's numbers, a sentence each: which baseline each problem kind's speedups divide by,
    speedups over fewer sources than one side verified, and the all-pairs variants' numbers (with their time per
    source, time / n, where the manifests give n)."""
    if summary.empty:
        return []
    notes = []
    by_kind = {kind: sorted({str(b) for b in group["baseline"] if b})
               for kind, group in summary[summary["speedup"].notna()].groupby("kind", sort=False)}
    if by_kind:
        divided = "; ".join(f"{kind}: over {', '.join(names)}" for kind, names in by_kind.items())
        notes.append(f"speedup = the baseline's median time / the variant's, both over the sources both verified "
                     f"({divided}).")
    best_cpu = best_cpu_note(summary)
    if best_cpu:
        notes.append(best_cpu)
    if any(partial_speedup(row) or partial_speedup(row, "best_cpu_sources")
           for row in summary.itertuples(index=False)):
        notes.append("A speedup followed by (k/n) is over the k sources both sides verified, of the n the busier "
                     "side verified (the baseline ran fewer sources, or one side failed on some).")
    all_pairs = summary[summary["all_pairs"] == True] if "all_pairs" in summary else summary.iloc[0:0]  # noqa: E712
    if len(all_pairs):
        sizes = {}
        for manifest in manifests:
            for label, info in (manifest.get("graphs") or {}).items():
                if isinstance(info, dict) and info.get("n"):
                    sizes.setdefault(label, info["n"])
        per_source = [f"{format_number(row.time_median_ms / sizes[row.graph])} ms on {row.graph}"
                      for row in all_pairs.itertuples(index=False)
                      if row.graph in sizes and not math.isnan(row.time_median_ms)]
        names = ", ".join(dict.fromkeys(str(variant) for variant in all_pairs["variant"]))
        notes.append(f"{ALL_PAIRS_MARK} {names}: every solve computes all pairs (and returns the source's row), so "
                     f"its time, MTEPS, efficiency and speedup are of the all-pairs computation, beside the others' "
                     f"single-source solves" + (f"; per source (time / n): {', '.join(per_source)}" if per_source
                                                else "") + ".")
    return notes


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
    ("median ms", lambda r: _marked(format_number(r.time_median_ms), r), True),
    ("IQR ms", lambda r: format_number(r.time_iqr_ms), True),
    ("MTEPS", lambda r: _marked(format_number(r.mteps_median), r), True),
    ("efficiency", lambda r: _marked(format_percent(r.efficiency), r), True),
    ("speedup", speedup_cell, True),
    ("vs best CPU", best_cpu_cell, True),
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
    lines.append("Timings cover verified solves only.")
    lines += speedup_notes(summary)
    if summary["stand_in_for"].astype(bool).any():
        lines.append(f"{STAND_IN_MARK} a synthetic stand-in of the same size and structure ran in place of the real "
                     "graph (see report.md).")
    if summary["efficiency"].notna().any():
        lines.append("efficiency = roofline floor / measured time (median over verified solves; see report.md).")
    return "\n".join(lines)


def _marked(text: str, row: Any) -> str:
    """A number's text with the all-pairs mark where it has one ("" and "-" stay as they are)."""
    return text if text in ("", "-") else text + all_pairs_mark(row)


# ---------------------------------------------------------------------------------------------- claims


def claim_text(row: Any) -> str:
    """What a judged claim (a row of claims.judge) says, e.g. "hbf faster than workfront", a variant whose solves
    compute all pairs marked "floyd-warshall (all pairs)", a CPU variant on the other side with whether it was the
    best CPU variant run ("cpu-dijkstra (the best CPU variant run)")."""
    marked = {name.strip() for name in str(getattr(row, "all_pairs", "") or "").split(",") if name.strip()}

    def name(variant: Any) -> str:
        return f"{variant} ({ALL_PAIRS_TEXT})" if variant in marked else str(variant)

    if row.claim == "efficiency":
        return f"{name(row.variant)} reaches {row.requirement}"
    if row.claim in ("time", "work"):  # "delta-stepping-chain median time at most 1.9 ms"
        return f"{name(row.variant)} {row.requirement}"
    note = getattr(row, "against_note", "")  # a CPU variant: whether it was the best CPU variant run
    against = f"{name(row.against)} ({note})" if isinstance(note, str) and note else name(row.against)
    # "faster than", "at least 2x faster than", "within 1.25x of" (claims.py)
    return f"{name(row.variant)} {row.claim} {against}"


def measured_text(row: Any) -> str:
    if isinstance(row.measured, float) and math.isnan(row.measured):
        return "-"
    if row.claim == "efficiency":
        return format_percent(row.measured)
    if row.claim == "time":
        return f"{row.measured:.4g} ms"  # digits enough to tell it from a bound such as 1.9 ms
    if row.claim == "work":
        return f"{row.measured:.3f}"
    return f"ratio {row.measured:.3f}"


def interval_text(row: Any) -> str:
    return "" if math.isnan(row.ci_low) else f"{row.ci_low:.3f}-{row.ci_high:.3f}"


def one_side_text(row: Any) -> str:
    """The sources both sides ran that one verified and the other did not, "variant/other" ("0/3"), for a
    faster-than claim that got as far as pairing; "" otherwise."""
    mine, theirs = getattr(row, "variant_only", None), getattr(row, "against_only", None)
    if mine is None or theirs is None or (isinstance(mine, float) and math.isnan(mine)):
        return ""
    return f"{int(mine)}/{int(theirs)}"


def note_text(row: Any) -> str:
    """Why a claim was not measured and how a sweep's variant was picked, as one cell."""
    parts = [str(value) for value in (getattr(row, "reason", ""), getattr(row, "selection", ""))
             if isinstance(value, str) and value]
    return "; ".join(parts)


def met_text(met: Any, bold: bool) -> str:
    """yes, no (bold in Markdown, capitals on a terminal) or "-" for a claim that was not measured."""
    if met is None or (isinstance(met, float) and math.isnan(met)):
        return "-"
    return "yes" if met else ("**no**" if bold else "NO")


def tally(claims: pd.DataFrame) -> str:
    """"N of M claims met, K not met, J not measured (and why)": M is every claim x graph the configs hold."""
    met = claims["met"]
    counts = (int((met == True).sum()), int((met == False).sum()), int(met.isna().sum()))  # noqa: E712 (tri-state)
    line = f"{counts[0]} of {len(claims)} claims met, {counts[1]} not met, {counts[2]} not measured"
    reasons = [str(reason).split(":", 1)[0] for reason, unmeasured in zip(claims.get("reason", []), met.isna())
               if unmeasured and isinstance(reason, str) and reason]
    if reasons:
        by_reason: dict[str, int] = {}
        for reason in reasons:
            by_reason[reason] = by_reason.get(reason, 0) + 1
        line += " (" + ", ".join(f"{count} {reason}" for reason, count in by_reason.items()) + ")"
    return line


def format_claims(claims: pd.DataFrame) -> str:
    """The claims as a fixed-width terminal table and their tally; empty when there are none."""
    if claims.empty:
        return ""
    header = ["graph", "claim", "measured", "95% interval", "faster on", "one side only", "verdict", "met", "note"]
    body = [[graph_cell(row.graph, row.stand_in_for), claim_text(row), measured_text(row), interval_text(row),
             row.faster_on or "", one_side_text(row), row.verdict, met_text(row.met, bold=False), note_text(row)]
            for row in claims.itertuples(index=False)]
    aligned = [False, False, True, False, True, True, False, False, False]
    lines = fixed_width_lines(header, body, aligned)
    if any(one_side_text(row) for row in claims.itertuples(index=False)):
        lines.append("one side only: sources both ran that the claim's variant / the other verified and the other "
                     "did not")
    return "\n".join([*lines, tally(claims)])


# ---------------------------------------------------------------------------------------------- recommendation


def format_recommendations(recommendations: pd.DataFrame) -> str:
    """Which variant to pick (results/recommend.py) as a fixed-width terminal table: per graph and kind the pick,
    its median, the runner-up and its ratio to the pick; empty when nothing ran."""
    from ..results.recommend import LEFT_OUT, picks, runner_up

    grouped = picks(recommendations)
    if not grouped:
        return ""
    header = ["graph", "class", "kind", "pick", "dev", "median ms", "runner-up", "runner-up / pick", "verdict"]
    body = []
    for graph, kind, pick, records in grouped:
        first = records[0]
        cells = [graph_cell(graph, first["stand_in_for"]), first["graph_class"] or "unknown", kind]
        if pick is None:
            body.append(cells + ["none", "-", "-", "-", "-", "-"])
            continue
        second = runner_up(records)
        body.append(cells + [str(pick["variant"]), str(pick["device"]), format_number(pick["median_ms"]),
                             str(second["variant"]) if second else "-",
                             format_number(second["ratio_to_pick"], "x") if second else "-",
                             (second["verdict"] or "-") if second else "-"])
    lines = ["Which variant to pick (the fastest that verified every source it ran; report.md says who was left "
             "out and why, recommendations.csv ranks every variant):",
             *fixed_width_lines(header, body, [False, False, False, False, False, True, False, True, False])]
    left_out = sorted({str(record["variant"]) for _, _, _, records in grouped for record in records
                       if record["role"] == LEFT_OUT})
    if left_out:
        lines.append(f"left out where their implementation is meant for other graph classes: {', '.join(left_out)}")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------- comparison


def format_comparison(comparison: pd.DataFrame, options: CompareOptions = CompareOptions()) -> str:
    """A comparison (results.compare.compare_runs) as a fixed-width table and a line on how to read it."""
    header = ["graph", "base", "new", "base ms", "new ms", "ratio", f"{options.confidence:.0%} interval",
              "new faster on", "sign p", "pairs", "only base/new", "verdict"]
    body = []
    for row in comparison.itertuples(index=False):
        interval = "-" if math.isnan(row.ci_low) else f"{row.ci_low:.3f}-{row.ci_high:.3f}"
        faster_on = row.new_faster_on if row.paired else "unpaired"
        sign_p = "-" if math.isnan(row.sign_test_p) else f"{row.sign_test_p:.2g}"
        pairs = f"{row.pairs}" + (f" (need {row.pairs_needed})" if row.verdict == NOT_ENOUGH_DATA else "")
        body.append([row.graph, row.base, row.new, _ms_text(row.base_median_ms), _ms_text(row.new_median_ms),
                     "-" if math.isnan(row.ratio) else f"{row.ratio:.3f}", interval, faster_on, sign_p, pairs,
                     f"{row.base_only}/{row.new_only}", row.verdict])
    right_aligned = [False, False, False, True, True, True, True, True, True, True, True, False]
    table = fixed_width_lines(header, body, right_aligned)
    table.append(f"ratio = new median / base median over the sources verified on both sides (below 1: new is "
                 f"faster); a verdict needs the interval to exclude 1 and a change of at least "
                 f"{options.min_change:.0%}, and at least {options.min_pairs} pairs and "
                 f"{options.min_pair_fraction:.0%} of the sources both ran (else \"{NOT_ENOUGH_DATA}\"); only "
                 f"base/new: sources both ran that one side verified and the other did not")
    for row in comparison.itertuples(index=False):
        if row.verdict == DIFFERENT_GRAPHS:
            table.append(f"{row.graph}: {row.base} against {row.new} not compared, the runs ran different graphs "
                         f"under this label: {row.note}")
    return "\n".join(table)


def _ms_text(value: float) -> str:
    return "-" if math.isnan(value) else f"{value:.4g}"
