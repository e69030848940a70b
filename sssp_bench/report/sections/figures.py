"""Figures: the line plots a config asks for (its `figures`), a paper's figure redrawn from the run, each with the
table of its points: every series' value at each graph, the paper's published values beside ours."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ...results.numbers import format_number
from ..text import markdown_cell

if TYPE_CHECKING:
    from .. import Report


def section(report: Report) -> list[str]:
    if not report.figures:
        return []
    lines = ["## Figures", "",
             "Line plots the configs ask for (`figures`): measured series solid, a paper's published values dashed; "
             "a missing point is a graph or variant without a verified solve.", ""]
    for figure in report.figures:
        lines += [f"### {markdown_cell(figure.title)}", "",
                  f"![{markdown_cell(figure.title)}]({report.figure_file(figure)}.svg)", ""]
        places = dict(zip(figure.points["column"], figure.points["x"]))
        swept = figure.swept
        lines += ["| series | " + " | ".join(
                      markdown_cell(column) if swept else
                      f"{markdown_cell(column)} ({format_number(places[column]) if column in places else '-'})"
                      for column in figure.columns) + " |",
                  "|---|" + "---:|" * len(figure.columns)]
        for (series, published), points in figure.points.groupby(["series", "published"], sort=False):
            values = dict(zip(points["column"], points["value"]))
            name = f"{series} (paper)" if published else series
            lines.append(f"| {markdown_cell(name)} | " + " | ".join(
                format_number(values[column]) if column in values and math.isfinite(values[column]) else "-"
                for column in figure.columns) + " |")
        where = "" if swept else " (in brackets after each graph)"
        lines += ["", f"{figure.y_label} against {figure.x_label}{where}.", ""]
    return lines
