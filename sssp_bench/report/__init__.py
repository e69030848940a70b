"""Stage 5 of the pipeline, report: one or more run folders (or record folders, results/records.py) as report.md,
report.csv (the summary), claims.csv (when the configs make claims), energy.csv and power-GRAPH.png/.svg (when the
runs measured energy), recommendations.csv (every variant's role in "Which variant to pick", when any variant
ran), speedup.png and speedup.svg, and the tables `sssp-bench report` prints.

The report only reads results through sssp_bench.results: `build_report` loads the runs, summarises them and judges
their claims once; `write_report` writes the files; `text` holds the terminal tables and Markdown escaping, `plot`
the chart.

report.md is the sections listed in `sections.SECTIONS`, in order: each is a small module whose `section(report)`
turns the built Report into Markdown lines. A paper's own section is one new module in `sections/` and one entry in
that list; it reads what it needs from the Report (its runs' manifests and rows, the summary, the claims).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import UserError
from ..results.claims import judge
from ..results.energy import energy_table
from ..results.schema import safe_name
from ..results.figures import Figure, figures
from ..results.graph_identity import first_difference
from ..results.load import Run, load_run, run_folder
from ..results.recommend import recommend
from ..results.records import is_record, load_record
from ..results.stand_ins import Fidelity, stand_in_fidelity
from ..results.summary import summarize
from .plot import CHART_NAME, plot_figure, plot_power, plot_summary
from .sections import SECTIONS


@dataclass(frozen=True)
class Report:
    """What a report is made of, computed once: the loaded runs, their summary, their configs' judged claims
    (results/claims.py; an empty frame when they make none), the points of the figures they ask for
    (results/figures.py), how each stand-in that ran compares with its real graph (results/stand_ins.py; empty
    when none ran), the energy per solve and power traces of runs that measured them (results/energy.py), and
    every variant's role in the per-graph recommendation (results/recommend.py; empty when nothing ran)."""
    paths: list[Path]
    runs: list[Run]
    summary: pd.DataFrame
    claims: pd.DataFrame
    figures: list[Figure] = field(default_factory=list)
    fidelity: list[Fidelity] = field(default_factory=list)
    energy: pd.DataFrame = field(default_factory=pd.DataFrame)
    power_traces: dict[tuple[str, str], pd.DataFrame] = field(default_factory=dict)  # (graph, variant) -> trace
    recommendations: pd.DataFrame = field(default_factory=pd.DataFrame)

    @property
    def manifests(self) -> list[dict[str, Any]]:
        return [manifest for manifest, _ in self.runs]

    @property
    def run_ids(self) -> list[str]:
        return [str(manifest["run_id"]) for manifest in self.manifests]

    def figure_file(self, figure: Figure) -> str:
        """The file name, without suffix, of a figure's plot beside report.md: figure-NAME, with the run's id where
        merged runs both draw a figure of that name."""
        shared = sum(other.name == figure.name for other in self.figures) > 1
        return f"figure-{figure.run_id}-{figure.name}" if shared else f"figure-{figure.name}"

    def power_graphs(self) -> list[str]:
        """The graphs with a power trace, in the order the energy table meets them."""
        return list(dict.fromkeys(graph for graph, _ in self.power_traces))

    def power_file(self, graph: str) -> str:
        """The file name, without suffix, of a graph's power-over-time plot beside report.md."""
        return f"power-{safe_name(graph)}"


def build_report(run_paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]]) -> Report:
    """The Report of run folders and record folders (results/records.py: each stands for the runs it keeps)."""
    paths = [run_paths] if isinstance(run_paths, (str, os.PathLike)) else list(run_paths)
    if not paths:
        raise UserError("no run directory given")
    loaded = [
        entry for path in paths
        for entry in (load_record(path) if is_record(path) else [(load_run(path), run_folder(path))])
    ]
    runs = [run for run, _ in loaded]
    different = first_difference(manifest for manifest, _ in runs)
    if different:  # one graph's times beside another's, in the speedups and the recommendations
        label, first, later, what = different
        raise UserError(f"runs {first} and {later} ran different graphs under the label {label!r} ({what}): report "
                        f"them apart")
    summary = summarize(runs)
    energy, traces = energy_table(runs, [trace_folder for _, trace_folder in loaded])
    return Report([Path(path) for path in paths], runs, summary, judge(runs, summary), figures(runs, summary),
                  stand_in_fidelity(runs, summary), energy, traces, recommend(runs, summary))


def render_markdown(report: Report) -> str:
    """report.md: every section of SECTIONS, in order."""
    return "\n".join(line for section in SECTIONS for line in section(report))


def write_report(
    run_paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | Report,
    out_dir: str | os.PathLike[str] | None = None,
) -> dict[str, Path]:
    """Write report.md, report.csv, speedup.png and speedup.svg (and claims.csv when the configs make claims,
    recommendations.csv when any variant ran, a PNG and SVG per figure they ask for, energy.csv and a power-over-time
    plot per graph when the runs measured energy) into the first run's folder (or `out_dir`) and return their paths,
    keyed "markdown", "csv", "png", "svg" (and "claims", "recommendations", "energy", and each figure's and power
    plot's file name). `run_paths` may be a Report that build_report made already."""
    built = run_paths if isinstance(run_paths, Report) else build_report(run_paths)
    target = Path(out_dir) if out_dir is not None else run_folder(built.paths[0])
    written = {
        "markdown": target / "report.md",
        "csv": target / "report.csv",
        "png": target / f"{CHART_NAME}.png",
        "svg": target / f"{CHART_NAME}.svg",
    }
    if not built.claims.empty:
        written["claims"] = target / "claims.csv"
    if not built.recommendations.empty:
        written["recommendations"] = target / "recommendations.csv"
    if not built.energy.empty:
        written["energy"] = target / "energy.csv"
    drawn = {built.figure_file(figure): figure for figure in built.figures}
    try:
        target.mkdir(parents=True, exist_ok=True)
        plot_summary(built.summary, written["png"], written["svg"])
        for stem, figure in drawn.items():
            plot_figure(figure, target / f"{stem}.png", target / f"{stem}.svg")
            written[stem] = target / f"{stem}.svg"
        for graph in built.power_graphs():
            stem = built.power_file(graph)
            plot_power(graph, {variant: trace for (on, variant), trace in built.power_traces.items() if on == graph},
                       target / f"{stem}.png", target / f"{stem}.svg")
            written[stem] = target / f"{stem}.svg"
        if "energy" in written:
            built.energy.to_csv(written["energy"], index=False)
        built.summary.to_csv(written["csv"], index=False)
        if "claims" in written:
            built.claims.to_csv(written["claims"], index=False)
        if "recommendations" in written:
            built.recommendations.to_csv(written["recommendations"], index=False)
        written["markdown"].write_text(render_markdown(built))
    except OSError as error:
        raise UserError(f"cannot write the report into {target}: {error}") from None
    return written
