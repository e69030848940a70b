"""The table `sssp-bench probe` prints: the report's summary table of the probe's run, what it skipped and why, and
on request each variant's solve counters."""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

from ..results.load import load_run
from ..results.numbers import format_number
from ..results.schema import solve_outcome
from ..results.summary import summarize
from .text import format_table

def probe_table(run_dir: Path, counters: bool = False) -> str:
    """The report's summary table of a probe's run, what it skipped and why, and with `counters`, each variant's
    solve counters (the median over its verified solves; a list counter: its length, sum and largest entry)."""
    manifest, rows = load_run(run_dir)
    lines = [format_table(summarize([(manifest, rows)]))]
    skipped: dict[str, list[str]] = {}
    for variant, why in (manifest.get("skipped") or {}).items():
        skipped.setdefault(why, []).append(variant)
    lines += [f"skipped here: {', '.join(variants)}: {why}" for why, variants in skipped.items()]
    if counters:
        lines += ["", "counters (median over verified solves; a list: entries / sum / max):"]
        lines += counter_lines(rows)
    return "\n".join(lines)


def counter_lines(rows) -> list[str]:
    """One line per graph and variant with its verified solves' counters."""
    solves = rows[rows["phase"] == "solve"]
    lines = []
    for (graph, variant), group in solves.groupby(["graph", "variant"], sort=False):
        verified = [row.counters for row in group.itertuples()
                    if solve_outcome(row.status, row.certificate, row.reference) == "verified"
                    and isinstance(row.counters, dict)]
        keys = list(dict.fromkeys(key for counted in verified for key in counted))
        cells = [f"{key} {_counter_text([counted[key] for counted in verified if key in counted])}" for key in keys]
        lines.append(f"  {graph}  {variant}: " + (", ".join(cells) if cells else "none (no verified solve)"))
    return lines


def _counter_text(values: list[Any]) -> str:
    if all(isinstance(value, list) for value in values):
        sizes = [len(value) for value in values]
        sums = [sum(value) for value in values if all(isinstance(item, (int, float)) for item in value)]
        largest = [max(value) for value in values if value and all(isinstance(item, (int, float)) for item in value)]
        parts = [statistics.median(sizes), statistics.median(sums) if sums else None,
                 statistics.median(largest) if largest else None]
        return " / ".join(format_number(part) for part in parts)
    numbers = [value for value in values if isinstance(value, (int, float)) and not isinstance(value, bool)]
    if len(numbers) == len(values):
        return format_number(statistics.median(numbers))
    return "/".join(sorted({str(value) for value in values}))

