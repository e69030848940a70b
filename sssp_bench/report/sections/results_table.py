"""Results: one row per graph and variant (the summary), the notes that qualify it (stand-ins, per-graph
parameters, missing speedups, merged runs) and the chart."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...results.numbers import format_number, format_percent
from ...results.recommend import EXTERNAL_IMPLEMENTATIONS
from ..plot import CHART_NAME, chart_title
from ..text import (
    STAND_IN_MARK, all_pairs_mark, best_cpu_cell, graph_cell, markdown_cell, speedup_cell, speedup_notes,
)

if TYPE_CHECKING:
    from .. import Report


def section(report: Report) -> list[str]:
    summary = report.summary
    lines = ["## Results", "",
             "Timing columns count **verified solves only** (status ok, certificate passed, reference not "
             "contradicting): a wrong or unchecked answer is not a result, however fast.", ""]
    if summary.empty:
        lines += ["No rows were recorded.", ""]
    else:
        lines += ["| graph | variant | kind | device | verified | median (IQR) ms | min ms | MTEPS | efficiency | "
                  "speedup | vs best CPU | prepare ms |", "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for row in summary.itertuples(index=False):
            mark = all_pairs_mark(row)  # on every number of an all-pairs variant's row
            timing = ("-" if not row.verified
                      else f"{format_number(row.time_median_ms)} ({format_number(row.time_iqr_ms)}){mark}")
            efficiency = format_percent(row.efficiency)
            external = row.implementation in EXTERNAL_IMPLEMENTATIONS
            variant = f"{row.variant} {EXTERNAL_MARK}" if external else row.variant  # the note under the table says why
            lines.append(
                f"| {markdown_cell(graph_cell(row.graph, row.stand_in_for))} | {markdown_cell(variant)} | "
                f"{markdown_cell(row.kind or '-')} | {markdown_cell(row.device or '-')} | "
                f"{row.verified_total} | {timing} | {_marked(format_number(row.time_min_ms), mark)} | "
                f"{_marked(format_number(row.mteps_median), mark)} | {_marked(efficiency, mark)} | "
                f"{speedup_cell(row)} | {best_cpu_cell(row)} | "
                f"{format_number(row.prepare_ms)} |"
            )
        lines.append("")
        notes_on_numbers = speedup_notes(summary, report.manifests)
        for note in notes_on_numbers:
            lines += [markdown_cell(note), ""]
        lines += _external_lines(report)
        if summary["stand_in_for"].astype(bool).any():
            lines += [(f"{STAND_IN_MARK} A synthetic stand-in ran under this label: these are not the real graph's "
                       "numbers (see Graphs)."), ""]
        lines += _graph_params_lines(report.manifests)
        notes = [
            row for row in summary.itertuples(index=False)
            if row.speedup_note and row.speedup_note not in ("no verified solve", "no baseline configured")
        ]
        if summary["speedup_note"].eq("no baseline configured").all():
            lines += ["No baseline was configured, so no speedup is computed.", ""]
        elif notes:
            lines += ["No speedup for:", ""] + _speedup_note_lines(notes) + [""]
        if any(str(row.variant).startswith(f"{row.run_id}/") for row in summary.itertuples(index=False)):
            lines += ["A variant that ran on the same graph in more than one of the merged runs is named "
                      "`run-id/variant`: the runs are kept apart, never pooled.", ""]
        if (summary["baseline_run_id"].ne("") & summary["baseline_run_id"].ne(summary["run_id"])).any():
            lines += ["Some speedups use a baseline measured in another of the merged runs (see report.csv, "
                      "`baseline_run_id`): compare the runs' hosts above.", ""]
        if (summary["best_cpu_run_id"].ne("") & summary["best_cpu_run_id"].ne(summary["run_id"])).any():
            lines += ["Some runs had no verified CPU variant of their own: their *vs best CPU* uses one measured in "
                      "another of the merged runs (see report.csv, `best_cpu_run_id`): compare the runs' hosts "
                      "above.", ""]
    return lines + [f"![{chart_title(summary)}]({CHART_NAME}.svg)", ""]


EXTERNAL_MARK = "§"  # after the name of a variant that is an external program (impls/external.py)
EXTERNAL_CLOCKS = {
    "program": "the time the program reported itself (its `time` rule)",
    "process": "the wall time of its process, from spawn to exit (start-up and reading the graph file included)",
}


def _external_lines(report: Report) -> list[str]:
    """Beside external programs' rows: which clock timed each (its rows' `timer`), and that neither is the
    CUDA-event clock of the GPU implementations nor the in-process host clock of the CPU ones."""
    summary = report.summary
    externals = summary[summary["implementation"].isin(EXTERNAL_IMPLEMENTATIONS)]
    if externals.empty:
        return []
    timers: dict[str, set[str]] = {}
    for _, rows in report.runs:
        if rows.empty or "timer" not in rows:
            continue
        solves = rows[(rows["phase"] == "solve") & rows["implementation"].isin(EXTERNAL_IMPLEMENTATIONS)]
        for variant, timer in zip(solves["variant"], solves["timer"]):
            if isinstance(timer, str):
                timers.setdefault(str(variant), set()).add(timer)
    described = []
    for variant in dict.fromkeys(str(name).rsplit("/", 1)[-1] for name in externals["variant"]):
        clocks = [EXTERNAL_CLOCKS.get(timer, timer) for timer in sorted(timers.get(variant, ()))]
        described.append(f"{variant}, {' or '.join(clocks) or 'no solve timed'}")
    return [markdown_cell(f"{EXTERNAL_MARK} An external program, run by the harness per source (or once for all "
                          f"sources, its time shared among them) and verified like the others. Its clock: "
                          f"{'; '.join(described)}. Neither is the CUDA-event clock the GPU implementations are timed "
                          "by, nor the in-process host clock of the CPU ones: compare them knowing what each "
                          "includes."), ""]


def _marked(text: str, mark: str) -> str:
    return text if text in ("", "-") else text + mark


def _speedup_note_lines(notes: list[Any]) -> list[str]:
    """Why some rows have no speedup: a line per reason, each naming its variants and the graphs they ran on (a
    reason often holds for a variant on every graph)."""
    by_reason: dict[str, dict[str, list[str]]] = {}
    for row in notes:
        by_reason.setdefault(str(row.speedup_note), {}).setdefault(str(row.variant), []).append(str(row.graph))
    return [f"- {markdown_cell(reason)}: " + "; ".join(f"{markdown_cell(variant)} on {markdown_cell(', '.join(graphs))}"
                                                   for variant, graphs in variants.items())
            for reason, variants in by_reason.items()]


def _graph_params_lines(manifests: list[dict[str, Any]]) -> list[str]:
    """The parameters a config replaced on some graphs only (graphs[].params): those rows ran with them."""
    replaced = [(str(graph.get("label")), name, params)
                for manifest in manifests for graph in ((manifest.get("config") or {}).get("graphs") or [])
                for name, params in (graph.get("params") or {}).items()]
    if not replaced:
        return []
    lines = ["Per-graph parameters (the config's `graphs[].params`): on these graphs these variants ran with:", ""]
    for label, name, params in replaced:
        settings = ", ".join(f"{key}={_format_param(value)}" for key, value in params.items())
        lines.append(f"- {markdown_cell(label)} / {markdown_cell(name)}: {markdown_cell(settings)}")
    return lines + [""]


def _format_param(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)
