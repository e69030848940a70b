"""Roofline: the device constants each run measured, then per graph the all-arcs relax pass and the floors that
the efficiency column divides by."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ...results.numbers import format_number
from ..text import markdown_cell

if TYPE_CHECKING:
    from .. import Report


def section(report: Report) -> list[str]:
    lines: list[str] = []
    for manifest in report.manifests:
        constants = manifest.get("roofline")
        if not isinstance(constants, dict):
            continue
        lines.append(f"Run {markdown_cell(manifest.get('run_id'))}: " + (
            f"{markdown_cell(constants.get('device') or 'GPU')}: copy bandwidth "
            f"{format_number(constants.get('copy_bandwidth_gbs'))} GB/s (read + written), dependent global load "
            f"{format_number(constants.get('chain_latency_ns'))} ns."
            if constants.get("available")
            else f"not measured: {markdown_cell(constants.get('reason') or 'no reason given')}."))
        lines.append("")
        graphs = [(label, info.get("roofline")) for label, info in (manifest.get("graphs") or {}).items()
                  if isinstance(info, dict) and isinstance(info.get("roofline"), dict)]
        if not graphs:
            continue
        lines += ["| graph | relax pass ms | ns per arc | median hop depth | median floor ms | bound |",
                  "|---|---:|---:|---:|---:|---|"]
        for label, record in graphs:
            if not record.get("available"):
                reason = markdown_cell(record.get("reason") or "-")
                lines.append(f"| {markdown_cell(label)} | not measured: {reason} | | | | |")
                continue
            per_source = record.get("per_source") or []
            depths = [item["hop_depth"] for item in per_source if item.get("hop_depth") is not None]
            bounds = sorted({str(item.get("bound")) for item in per_source if item.get("bound")})
            floor = record.get("median_floor_s")
            lines.append(
                f"| {markdown_cell(label)} | {format_number(record.get('relax_pass_ms'))} | "
                f"{format_number(record.get('time_per_arc_ns'))} | "
                f"{f'{float(np.median(depths)):g}' if depths else '-'} | "
                f"{format_number(None if floor is None else floor * 1e3)} | {', '.join(bounds) or '-'} |")
        lines.append("")
    if lines:
        lines = ["## Roofline", "", "The floor under each solve, measured on the run's GPU (see *efficiency* "
                 "below).", ""] + lines
    return lines
