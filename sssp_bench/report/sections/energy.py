"""Energy: joules per solve of each GPU variant on each graph, measured through NVML in a phase after its timed
solves (run/energy.py), and the power over time of those phases, the parallel bucket heap paper's Figure 7 redrawn
(its RTX used 2.7 Wh for parDijkstra against 6.3 Wh for nvGRAPH on one graph)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...results.numbers import format_number
from ..text import markdown_cell

if TYPE_CHECKING:
    from .. import Report


def section(report: Report) -> list[str]:
    meters = [(manifest.get("run_id"), manifest["energy"]) for manifest in report.manifests
              if isinstance(manifest.get("energy"), dict)]
    if not meters and report.energy.empty:
        return []
    lines = ["## Energy", ""]
    for run_id, meter in meters:
        if meter.get("available"):
            lines.append(
                f"Run {markdown_cell(run_id)}: {markdown_cell(meter.get('device') or 'GPU')} through NVML "
                f"({markdown_cell(meter.get('backend'))}, driver {markdown_cell(meter.get('driver_version') or '?')}): "
                f"{markdown_cell(meter.get('method'))}, power from {markdown_cell(meter.get('power_reading'))}; "
                f"a window of at least {format_number(meter.get('min_window_s'))} s of back-to-back solves after "
                f"{format_number(meter.get('idle_s'))} s idle, power sampled every "
                f"{format_number(meter.get('sample_ms'))} ms.")
        else:
            lines.append(f"Run {markdown_cell(run_id)}: energy not measured: "
                         f"{markdown_cell(meter.get('reason') or 'no reason given')}.")
        lines.append("")
    if report.energy.empty:
        return lines
    lines += ["Each GPU variant's verified sources, solved again back to back after its timed solves (never around "
              "them): joules per solve = the window's energy / its solves; above idle subtracts the idle power; "
              "relative = J per solve over the least of the graph's variants.", ""]
    for graph, group in report.energy.groupby("graph", sort=False):
        lines += [f"### {markdown_cell(graph)}", "",
                  "| variant | J per solve | above idle, J | relative | power, W | idle, W | window, s | solves | "
                  "method |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---|"]
        for row in group.itertuples(index=False):
            if row.status != "ok":
                why = row.message if row.message.startswith(row.status) else f"{row.status}: {row.message}"
                lines.append(f"| {markdown_cell(row.variant)} | - | - | - | - | - | - | - | {markdown_cell(why)} |")
                continue
            lines.append(
                f"| {markdown_cell(row.variant)} | {format_number(row.energy_j)} | "
                f"{format_number(row.energy_above_idle_j)} | "
                f"{_times(row.relative)} | "
                f"{format_number(row.power_w)} | {format_number(row.idle_power_w)} | {format_number(row.window_s)} | "
                f"{_count(row.solves)} | {markdown_cell(row.method)} |")
        lines.append("")
        if graph in report.power_graphs():
            name = report.power_file(graph)
            lines += [f"![Power over time: {markdown_cell(graph)}]({name}.svg)", "",
                      "GPU power during each variant's energy phase, from its start: idle, then the window of "
                      "back-to-back solves (thick), then back towards idle.", ""]
    return lines


def _times(value: object) -> str:
    text = format_number(value)
    return text if text == "-" else f"{text}x"


def _count(value: object) -> str:
    try:
        return str(int(value))  # type: ignore[call-overload]
    except (TypeError, ValueError, OverflowError):
        return "-"
