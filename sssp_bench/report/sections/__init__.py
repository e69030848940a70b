"""The sections of report.md, in the order they appear. Each is a module whose `section(report)` turns the built
Report (its runs, summary and claims) into Markdown lines, or none where it has nothing to say. A paper's own
section is one new module here and one entry in SECTIONS."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from . import (
    claims, energy, failures, figures, graphs, heading, metrics, provenance, recommendation, results_table, roofline,
    speed_targets, stand_ins,
)

if TYPE_CHECKING:
    from .. import Report

SECTIONS: tuple[Callable[[Report], list[str]], ...] = (
    heading.section,        # the title; runs that are unfinished or were cut off
    provenance.section,     # config, host, GPU, code of each run
    graphs.section,         # Table 1 and the stand-ins' footnote
    results_table.section,  # one row per graph and variant, its notes, the chart
    recommendation.section, # which variant to pick per graph and kind: the fastest verified, the runner-up
    stand_ins.section,      # each stand-in beside its real graph: Table 1, times, the implementations' order
    roofline.section,       # the floor under each solve
    speed_targets.section,  # papers' MTEPS, scaled by bandwidth
    claims.section,         # papers' findings and issues' asks, judged
    figures.section,        # papers' figures redrawn: the line plots a config asks for
    energy.section,         # joules per solve through NVML, and power over time (parallel bucket heap Figure 7)
    failures.section,       # what did not end verified, and why
    metrics.section,        # what each column means
)
