"""The report's title, and a warning for each run that is unfinished or whose last row was cut off, and for each
shard of a split that the report lacks."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...results.schema import ROWS_FILE
from ...results.shards import missing_shards

if TYPE_CHECKING:
    from .. import Report


UNFINISHED = {"running": "is running", "interrupted": "was interrupted", "failed": "failed"}
"""How the heading names a run that did not complete, by its manifest status."""


def section(report: Report) -> list[str]:
    lines = [f"# sssp-bench report: {', '.join(report.run_ids)}", ""]
    for manifest, rows in report.runs:
        state = UNFINISHED.get(str(manifest.get("status")))
        if state:
            lines.append(f"> **Run {manifest['run_id']} {state}**: the numbers cover only the solves it recorded.")
            lines.append("")
        if rows.attrs.get("partial_last_line"):
            lines.append(f"> Run {manifest['run_id']}: the last line of {ROWS_FILE} was cut off (a crash while "
                         "writing) and was ignored.")
            lines.append("")
    for missing in missing_shards(manifest for manifest, _ in report.runs):
        lines += [f"> **{missing[0].upper()}{missing[1:]}**: its cells are not in this report.", ""]
    return lines
