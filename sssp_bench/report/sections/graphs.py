"""Graphs (the papers' Table 1): each graph's origin and shape, and a footnote naming the stand-ins, their
generator specs and why each fits the graph it replaces."""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

from ..text import STAND_IN_MARK, count_cell, decimal_cell, graph_cell, markdown_cell

if TYPE_CHECKING:
    from .. import Report


def section(report: Report) -> list[str]:
    graphs: dict[str, dict[str, Any]] = {}
    for manifest in report.manifests:
        for label, info in (manifest.get("graphs") or {}).items():
            graphs.setdefault(label, info if isinstance(info, dict) else {})
    if not graphs:
        return []
    lines = ["## Graphs (Table 1)", "",
             "| graph | origin | directed | vertices | arcs | avg. degree | std. dev. | max. degree | mode | "
             "diameter | weights |", "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    for label, info in graphs.items():
        table1 = info.get("table1") or {}
        weights = "-" if not info.get("weighted") else (
            f"{table1['weight_min']}..{table1['weight_max']}" if "weight_min" in table1 else "yes")
        lines.append(
            f"| {markdown_cell(graph_cell(label, info.get('stand_in_for')))} | {markdown_cell(_origin(info))} | "
            f"{_yes_no(info.get('directed'))} | {count_cell(info.get('n'))} | "
            f"{count_cell(info.get('m'))} | {decimal_cell(table1.get('out_degree_mean'))} | "
            f"{decimal_cell(table1.get('out_degree_std'))} | {count_cell(table1.get('out_degree_max'))} | "
            f"{count_cell(table1.get('out_degree_mode'))} | {count_cell(table1.get('approx_diameter'))} | {weights} |")
    lines += ["", "Degrees are out-degrees; an undirected edge is two arcs. The diameter is a lower bound in hops "
              "by double-sweep BFS.", ""]
    differs = {fidelity.stand_in_label for fidelity in report.fidelity if fidelity.differs}
    return lines + _stand_in_lines(graphs, differs)


def _stand_in_lines(graphs: dict[str, dict[str, Any]], differs: set[str]) -> list[str]:
    """The footnote under Table 1: which graphs ran as stand-ins, their generator specs, why they fit, and a flag on
    each that orders the implementations differently from its real graph (results/stand_ins.py)."""
    stand_ins = [(label, info) for label, info in graphs.items() if info.get("stand_in_for")]
    if not stand_ins:
        return []
    lines = [(f"{STAND_IN_MARK} **Stand-ins.** A synthetic graph of the same size and structure ran in place of these "
              "real graphs (not in the dataset cache, or run beside it with `stand_in: both`); its rows are not the "
              "real graph's numbers. How well each predicts its real graph: Stand-in fidelity, below."), ""]
    for label, info in stand_ins:
        note = str(info.get("stand_in_note") or "")
        flag = (". **Orders the implementations differently from its real graph** (Stand-in fidelity)."
                if label in differs else "")
        lines.append(f"- {markdown_cell(label)}: stand-in for {markdown_cell(info['stand_in_for'])}, "
                     f"`{markdown_cell(info.get('stand_in') or '?')}`" + (f": {markdown_cell(note)}" if note else "")
                     + flag)
    return lines + [""]


def _origin(info: dict[str, Any]) -> str:
    """Where a graph came from: its catalog name and collection, its generator spec, or its file."""
    provenance = info.get("provenance") or {}
    if info.get("stand_in_for"):
        return f"stand-in {STAND_IN_MARK}: generated {info.get('stand_in') or provenance.get('spec') or '?'}"
    if provenance.get("catalog_entry"):
        return f"{provenance.get('collection', '')} {provenance['catalog_entry']}".strip()
    if provenance.get("source_file"):  # sssp-bench import, or a graph file a config names by path
        return f"{info.get('origin') or 'file'} from {PurePosixPath(str(provenance['source_file'])).name}"
    if provenance.get("spec"):
        return f"generated {provenance['spec']}"
    return info.get("origin") or "-"




def _yes_no(value: Any) -> str:
    return "-" if value is None else ("yes" if value else "no")
