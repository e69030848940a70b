"""Which variant to pick: per graph and problem kind, the fastest variant that verified every source it ran (CPU and
GPU alike), its median, the runner-up and how far behind, whether the pick is clearly ahead, and the fastest variant
of the other device; then who was not a candidate and why (results/recommend.py: a variant meant for other graph
classes, one with a solve that did not verify, an external program, an all-pairs one). recommendations.csv holds
every variant's role, rank and ratio to the pick."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...results.numbers import format_number
from ...results.recommend import (
    ALL_PAIRS, EXTERNAL, GRAPH_CLASSES, LEFT_OUT, NOT_VERIFIED, best_of_other_device, picks, runner_up,
)
from ..text import ALL_PAIRS_MARK, graph_cell, markdown_cell
from .results_table import EXTERNAL_MARK

if TYPE_CHECKING:
    from .. import Report


def section(report: Report) -> list[str]:
    grouped = picks(report.recommendations)
    if not grouped:
        return []
    lines = ["## Which variant to pick", "",
             "Per graph and problem kind, the fastest variant that verified every source it ran, CPU and GPU alike: "
             "the one to pick for graphs like it (*class*: what kind of graph it is, from the catalog or its "
             "generator). Two variants are compared over the sources both verified, so one run on fewer sources is "
             "not ranked on a median over easier ones; *runner-up / pick* is the runner-up's median over the pick's "
             "on the sources both verified, (k/n) where that is k of the n the busier side verified. *Paired "
             "verdict*: `compare`'s on the pick against the runner-up: faster (clearly ahead: the 95% interval "
             "below 1 and at least 2% faster), no clear difference (either will do), not enough data (fewer than "
             "10 paired sources, or than half of those both ran). *Other device*: the fastest variant on the other "
             "device than the pick's, with its median and its ratio to the pick. Not candidates: a variant with "
             "a solve that did not verify, an external program (another clock), an all-pairs implementation, and "
             "a variant whose implementation is meant for other graph classes (`recommended_for`); each is named "
             "below the table. recommendations.csv lists every variant's role, rank and ratio to the pick.", "",
             "| graph | class | kind | pick | median ms | sources | runner-up | runner-up / pick | paired verdict | "
             "other device |",
             "|---|---|---|---|---:|---:|---|---:|---|---|"]
    for graph, kind, pick, records in grouped:
        first = records[0]
        where = (f"| {markdown_cell(graph_cell(graph, first['stand_in_for']))} | "
                 f"{markdown_cell(first['graph_class'] or 'unknown')} | {markdown_cell(kind)} |")
        if pick is None:
            lines.append(f"{where} none: no candidate (below) | - | - | - | - | - | - |")
            continue
        second = runner_up(records)
        other = best_of_other_device(records, pick)
        if other is None:
            other_text = "-"
        elif second is not None and other["variant"] == second["variant"] and other["run_id"] == second["run_id"]:
            other_text = "the runner-up"
        else:
            other_text = (f"{other['variant']} ({other['device']}), {format_number(other['median_ms'])} ms, "
                          f"{_ratio(other)}")
        lines.append(
            f"{where} **{markdown_cell(pick['variant'])}** ({markdown_cell(pick['device'])}) | "
            f"{format_number(pick['median_ms'])} | {pick['sources']} | "
            + (f"{markdown_cell(second['variant'])} ({markdown_cell(second['device'])}) | {_ratio(second)} | "
               f"{markdown_cell(second['verdict'] or '-')} | " if second is not None else "- | - | - | ")
            + f"{markdown_cell(other_text)} |")
    lines.append("")
    lines += _classes_line(grouped)
    lines += _left_out_lines(grouped)
    return lines


def _ratio(record: dict[str, Any]) -> str:
    """A ratio to the pick, "1.23x", with "(k/n)" where it is over fewer sources than one side verified."""
    text = format_number(record["ratio_to_pick"], "x")
    shared, _, most = str(record["ratio_sources"] or "").partition("/")
    return f"{text} ({record['ratio_sources']})" if most and shared != most and text != "-" else text


def _classes_line(grouped: list) -> list[str]:
    """What each class in the table holds (datasets/classes.py), and where a graph's class was not known."""
    shown = list(dict.fromkeys(records[0]["graph_class"] for _, _, _, records in grouped))
    known = [name for name in shown if name in GRAPH_CLASSES]
    lines = []
    if known:
        lines.append("Classes: " + "; ".join(f"*{name}*, {GRAPH_CLASSES[name]}" for name in known) + ".")
    unknown = list(dict.fromkeys(graph for graph, _, _, records in grouped if not records[0]["graph_class"]))
    if unknown:
        lines.append(f"Class unknown ({markdown_cell(', '.join(unknown))}): a graph neither in the catalog nor made by "
                     "a generator (a graph file or an imported one) records no class, so a variant whose "
                     "implementation is meant for some classes only is not recommended on it.")
    return [line for text in lines for line in (markdown_cell(text), "")]


def _left_out_lines(grouped: list) -> list[str]:
    """The variants that were not candidates, by why: meant for other classes, not verified, external, all pairs."""
    lines: list[str] = []
    left_out = [(graph, record) for graph, _, _, records in grouped for record in records
                if record["role"] == LEFT_OUT]
    if left_out:
        lines += ["Left out by their implementation's `recommended_for` (the graph classes it is meant for): timed "
                  "and verified like the others, never recommended on another class.", ""]
        for graph, record in left_out:
            ratio = _ratio(record)
            beside = f", {ratio} the pick" if ratio != "-" else ""
            lines.append(f"- **{markdown_cell(record['variant'])}** on {markdown_cell(graph)}: "
                         f"{markdown_cell(record['reason'])}; {format_number(record['median_ms'])} ms median{beside}.")
        lines.append("")
    for role, opening in (
            (NOT_VERIFIED, "Not candidates, since not every solve (or the prepare) they ran verified (see "
                           "Failures)"),
            (EXTERNAL, f"External programs ({EXTERNAL_MARK}), not ranked: another clock timed them (the process's "
                       "wall time or the program's own report, not the in-process solve the others' clocks time)"),
            (ALL_PAIRS, f"All pairs ({ALL_PAIRS_MARK}), not ranked: every solve computes all pairs")):
        by_variant: dict[str, list[str]] = {}
        for graph, _, _, records in grouped:
            for record in records:
                if record["role"] == role:
                    by_variant.setdefault(str(record["variant"]), []).append(graph)
        if by_variant:
            named = "; ".join(f"{variant} on {', '.join(dict.fromkeys(graphs))}"
                              for variant, graphs in by_variant.items())
            lines += [markdown_cell(f"{opening}: {named}."), ""]
    return lines
