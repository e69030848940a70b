"""The report's charts, as PNG and SVG: the speedup over the baseline per graph and variant (or the median solve time
when no speedup could be computed), the line plots of the figures a config asks for (results/figures.py), and the
power over time of each graph's energy phases (results/energy.py)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd

from ..results.figures import Figure
from ..results.numbers import format_number
from .text import ALL_PAIRS_TEXT, graph_cell

CHART_NAME = "speedup"  # speedup.png and speedup.svg, beside report.md


def chart_title(summary: pd.DataFrame) -> str:
    """The chart's title, which report.md also gives its image."""
    if _shows_speedup(summary):
        baselines = sorted({b for b in summary["baseline"] if b})
        return f"Speedup over {', '.join(baselines)} (median solve time, verified solves only)"
    return "Median time per solve (no baseline: speedup not computed)"


def _shows_speedup(summary: pd.DataFrame) -> bool:
    return bool(summary["speedup"].notna().any()) if not summary.empty else False


def plot_summary(summary: pd.DataFrame, png_path: Path, svg_path: Path) -> str:
    """Grouped bars, one group per graph and one bar per variant: the speedup over the baseline (log axis),
    or the median solve time when no speedup could be computed. Returns the chart's title."""
    from matplotlib.figure import Figure  # no pyplot: no global backend state, Agg is used for PNG
    from matplotlib.patches import Patch
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    data = summary.copy()
    use_speedup = _shows_speedup(summary)
    title = chart_title(summary)
    if use_speedup:
        metric, unit = "speedup", "x"
        data = data[data["variant"] != data["baseline"]]  # the baseline is the 1x line itself
        ylabel = "speedup over baseline (log scale)"
    else:
        metric, unit = "time_median_ms", " ms"
        ylabel = "median solve time, ms (log scale)"

    graphs = list(dict.fromkeys(summary["graph"])) if not summary.empty else []
    stand_in_for = summary["stand_in_for"] if "stand_in_for" in summary else [""] * len(summary)
    tick_labels = list(dict.fromkeys(graph_cell(g, f) for g, f in zip(summary["graph"], stand_in_for)))
    if len(tick_labels) != len(graphs):  # merged runs disagree on a stand-in: plain labels
        tick_labels = graphs
    variants = list(dict.fromkeys(data["variant"])) if not data.empty else []
    mixed_kinds = data["kind"].nunique(dropna=True) > 1 if not data.empty else False
    values = {(r.graph, r.variant): getattr(r, metric) for r in data.itertuples(index=False)}
    kinds = {r.variant: r.kind for r in data.itertuples(index=False)}
    all_pairs = {r.variant for r in data.itertuples(index=False) if getattr(r, "all_pairs", False) is True}

    n_graphs, n_variants = max(len(graphs), 1), max(len(variants), 1)
    width_in = min(max(6.0, 2.5 + n_graphs * max(0.9, 0.22 * n_variants + 0.35)), 30.0)
    figure = Figure(figsize=(width_in, 5.0), layout="constrained")
    axes = figure.add_subplot()
    axes.set_title(title, fontsize=11)
    axes.set_xlabel("graph")
    axes.set_ylabel(ylabel)

    finite = [v for v in values.values() if v is not None and math.isfinite(v) and v > 0]
    if not finite:
        axes.text(0.5, 0.5, "no verified solves to plot", ha="center", va="center", transform=axes.transAxes)
        axes.set_xticks(range(len(graphs)), tick_labels)
    else:
        colours = _colours(len(variants))
        bar_width = 0.8 / n_variants
        low = min(finite + ([1.0] if use_speedup else []))
        high = max(finite + ([1.0] if use_speedup else []))
        bottom_limit, top_limit = low / 1.8, high * 1.8
        annotate = len(graphs) * len(variants) <= 24
        handles = []
        for v_index, variant in enumerate(variants):
            xs, heights, bottoms, shown = [], [], [], []
            for g_index, graph in enumerate(graphs):
                value = values.get((graph, variant))
                if value is None or not math.isfinite(value) or value <= 0:
                    continue
                xs.append(g_index - 0.4 + bar_width * (v_index + 0.5))
                # Speedup bars grow from the 1x line, up when faster and down when slower.
                base = 1.0 if use_speedup else bottom_limit
                heights.append(value - base)
                bottoms.append(base)
                shown.append(value)
            label = f"{variant} ({kinds.get(variant)})" if mixed_kinds else variant
            if variant in all_pairs:  # its bars are all-pairs times, beside single-source ones
                label += f" ({ALL_PAIRS_TEXT})"
            if xs:
                axes.bar(xs, heights, width=bar_width * 0.92, bottom=bottoms, color=colours[v_index],
                         edgecolor="black", linewidth=0.3)
                if annotate:
                    for x, value in zip(xs, shown):
                        axes.annotate(format_number(value, "x" if use_speedup else ""), (x, value),
                                      xytext=(0, 2 if value >= 1 or not use_speedup else -9),
                                      textcoords="offset points", ha="center", fontsize=7)
            else:
                label += " (no speedup)" if use_speedup else " (no verified solve)"
            handles.append(Patch(facecolor=colours[v_index], edgecolor="black", linewidth=0.3, label=label))
        axes.set_yscale("log")
        axes.set_ylim(bottom_limit, top_limit)
        axes.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        axes.yaxis.set_major_formatter(FuncFormatter(lambda y, _: f"{y:g}{unit.strip()}" if use_speedup else f"{y:g}"))
        axes.yaxis.set_minor_formatter(NullFormatter())
        if use_speedup:
            line = axes.axhline(1.0, color="black", linestyle="--", linewidth=1.0, label="baseline (1x)")
            handles.append(line)
        axes.set_xticks(range(len(graphs)), tick_labels)
        axes.set_xlim(-0.6, len(graphs) - 0.4)
        axes.grid(axis="y", which="major", linewidth=0.4, alpha=0.5)
        axes.set_axisbelow(True)
        # Said in the legend, not under the axes, where it would collide with rotated graph names.
        missing = "no bar: no verified solve" + ("\nor no baseline on that graph" if use_speedup else "")
        handles.append(Patch(facecolor="none", edgecolor="none", label=missing))
        axes.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)
    if graphs and (len(graphs) > 4 or max(len(g) for g in tick_labels) > 12):
        for tick in axes.get_xticklabels():
            tick.set_rotation(30)
            tick.set_horizontalalignment("right")

    figure.savefig(png_path, dpi=150, bbox_inches="tight")
    figure.savefig(svg_path, bbox_inches="tight", metadata={"Date": None})
    return title


def plot_figure(figure: Figure, png_path: Path, svg_path: Path) -> None:
    """One line per series of the figure against its x axis, log-log (the papers plot sizes and densities over
    decades): measured series solid with dots, the paper's published values dashed with open marks, in the same
    colour when they share a name. A figure with nothing to draw says so."""
    from matplotlib.figure import Figure as PlotFigure
    from matplotlib.ticker import FuncFormatter, NullFormatter

    plot = PlotFigure(figsize=(7.0, 4.5), layout="constrained")
    axes = plot.add_subplot()
    axes.set_title(figure.title, fontsize=11)
    axes.set_xlabel(figure.x_label)
    axes.set_ylabel(figure.y_label)
    points = figure.points[(figure.points["x"] > 0) & (figure.points["value"] > 0)]
    if points.empty:
        axes.text(0.5, 0.5, "no verified solve to plot", ha="center", va="center", transform=axes.transAxes)
    else:
        names = list(dict.fromkeys(points["series"]))
        colours = dict(zip(names, _colours(len(names))))
        for (series, published), line in points.groupby(["series", "published"], sort=False):
            line = line.sort_values("x")
            axes.plot(line["x"], line["value"], color=colours[series], linestyle="--" if published else "-",
                      marker="o", markerfacecolor="none" if published else colours[series],
                      label=f"{series} (paper)" if published else series)
        axes.set_xscale("log")
        axes.set_yscale("log")
        # the graphs' own x values as the ticks, 8K rather than 8 x 10^3
        axes.set_xticks(sorted(set(points["x"])), [_compact(x) for x in sorted(set(points["x"]))])
        axes.xaxis.set_minor_formatter(NullFormatter())
        plain = FuncFormatter(lambda value, _: f"{value:g}")
        axes.yaxis.set_major_formatter(plain)
        # minor labels only where the values span less than a decade or so (else the decades say enough)
        narrow = points["value"].max() / points["value"].min() < 20
        axes.yaxis.set_minor_formatter(plain if narrow else NullFormatter())
        if figure.y == "speedup":
            axes.axhline(1.0, color="black", linewidth=0.8, linestyle=":")
        axes.grid(which="major", linewidth=0.4, alpha=0.5)
        axes.legend(fontsize=8, frameon=False, loc="best")
    plot.savefig(png_path, dpi=150, bbox_inches="tight")
    plot.savefig(svg_path, bbox_inches="tight", metadata={"Date": None})


def plot_power(graph: str, traces: dict[str, pd.DataFrame], png_path: Path, svg_path: Path) -> None:
    """The parallel bucket heap paper's Figure 7 redrawn: board power over time during each variant's energy phase
    on one graph (results/energy.py), one line per variant from the phase's start, thick while it solves, thin
    while the GPU idles before and after."""
    from matplotlib.figure import Figure as PlotFigure

    plot = PlotFigure(figsize=(7.0, 4.0), layout="constrained")
    axes = plot.add_subplot()
    axes.set_title(f"Power over time: {graph}", fontsize=11)
    axes.set_xlabel("time since the energy phase began, s")
    axes.set_ylabel("GPU power, W")
    drawn = {variant: trace for variant, trace in traces.items() if not trace.empty}
    if not drawn:
        axes.text(0.5, 0.5, "no power samples", ha="center", va="center", transform=axes.transAxes)
    for (variant, trace), colour in zip(drawn.items(), _colours(len(drawn))):
        axes.plot(trace["t_s"], trace["power_w"], color=colour, linewidth=0.8, alpha=0.6)
        if "stage" in trace:
            solving = trace["power_w"].where(trace["stage"] == "solving")
            axes.plot(trace["t_s"], solving, color=colour, linewidth=2.0, label=f"{variant} (solving)")
        else:
            axes.lines[-1].set_label(variant)
    if drawn:
        axes.set_ylim(bottom=0)
        axes.grid(linewidth=0.4, alpha=0.5)
        axes.legend(fontsize=8, frameon=False, loc="best")
    plot.savefig(png_path, dpi=150, bbox_inches="tight")
    plot.savefig(svg_path, bbox_inches="tight", metadata={"Date": None})


def _compact(value: float) -> str:
    """A tick label: 500, 8K, 1.5M, 2G; an integer under 10,000 whole (1024, not 1.02K: sweeps go in powers of 2)."""
    if float(value).is_integer() and abs(value) < 1e4:
        return f"{int(value)}"
    for scale, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "K")):
        if abs(value) >= scale:
            return f"{value / scale:.3g}{suffix}"
    return f"{value:.3g}"


def _colours(count: int) -> list[Any]:
    from matplotlib import colormaps

    palette = colormaps["tab10" if count <= 10 else "tab20"]
    return [palette(index % palette.N) for index in range(count)]
