"""Stand-in fidelity: `stand_in: both` runs a real graph and its catalog stand-in side by side, and the report puts
them side by side (Table 1, each implementation's time, their order), flagging a stand-in that orders the
implementations differently from its real graph. On the CPU, with rome99 from ../shared/datasets."""

import textwrap

import pytest
from local_server import shared_datasets  # noqa: F401  (a fixture)
from runs import make_config, manifest, run_rows, solves_all_ok, timed, write_run

from sssp_bench.datasets import catalog
from sssp_bench.datasets.fetch import fetch
from sssp_bench.errors import ConfigError
from sssp_bench.report import build_report, render_markdown
from sssp_bench.results.stand_ins import DIFFERS, DIFFERS_WITHIN_NOISE, NOT_MEASURED, SAME_ORDER, stand_in_fidelity
from sssp_bench.results.summary import summarize
from sssp_bench.run.config import STAND_IN_SUFFIX, parse_config


def test_both_runs_the_real_graph_and_the_catalogs_stand_in_under_two_labels():
    config = parse_config(textwrap.dedent("""\
        graphs: [{graph: rome99, stand_in: both, weights: keep, params: {cpu-bf-queue: {count_relaxations: true}}}]
        implementations: [cpu-dijkstra, cpu-bf-queue]
    """), "x.yaml")
    real, stand_in = config.graphs
    assert (real.label, real.stand_in, real.beside) == ("rome99", None, None)
    assert (stand_in.label, stand_in.stand_in, stand_in.beside) == (
        "rome99" + STAND_IN_SUFFIX, catalog.lookup("rome99").stand_in, "rome99")
    assert real.params == stand_in.params and real.weights == stand_in.weights == "keep"
    assert config.raw["graphs"][1]["beside"] == "rome99" and "stand_in" not in config.raw["graphs"][0]


def test_both_needs_a_catalog_stand_in():
    with pytest.raises(ConfigError, match=r"graphs\[0\].stand_in: the catalog gives USA-road-t.NY no stand-in"):
        parse_config("graphs: [{graph: USA-road-t.NY, stand_in: both}]\nimplementations: [cpu-dijkstra]\n", "x.yaml")


def test_a_real_graph_and_its_stand_in_side_by_side_on_the_cpu(shared_datasets, tmp_path):  # noqa: F811
    fetch("rome99", tmp_path / "datasets", from_file=shared_datasets / "rome99.gr", progress=False)
    config = make_config(tmp_path, """
        graphs: [{graph: rome99, stand_in: both}]
        implementations: [cpu-dijkstra, cpu-bf-queue, cpu-bfs]
        sources: {count: 12, seed: 1, min_reached: 100}
        weights: "uniform:min=1,max=100,seed=1"
        baseline: {sssp: cpu-dijkstra, bfs: cpu-bfs}
    """)
    outcome, rows = run_rows(config)
    solves_all_ok(rows)
    graphs = {row["graph"]: row["stand_in_for"] for row in rows}
    assert graphs == {"rome99": None, "rome99-stand-in": "rome99"}

    report = build_report(outcome.run_dir)
    [fidelity] = report.fidelity
    assert (fidelity.stand_in_label, fidelity.real_label, fidelity.real_source) == (
        "rome99-stand-in", "rome99", "ran as rome99")
    assert fidelity.real_table1["n"] == fidelity.stand_in_table1["n"] == 3353
    assert list(fidelity.times["variant"]) == ["cpu-dijkstra", "cpu-bf-queue", "cpu-bfs"]
    assert fidelity.verdict in (SAME_ORDER, DIFFERS, DIFFERS_WITHIN_NOISE)
    markdown = render_markdown(report)
    assert "## Stand-in fidelity" in markdown and "### rome99-stand-in † beside rome99" in markdown
    assert "| rome99-stand-in † | rome99 | ran as rome99 | 3,353 / 3,353 | 8,894 / 8,870 |" in markdown


def test_a_stand_in_whose_real_graph_is_not_here_is_compared_with_the_catalogs_facts(tmp_path):
    config = make_config(tmp_path, """
        graphs: [{graph: asia.osm, stand_in: "road:n=400,seed=3"}]
        implementations: [cpu-dijkstra]
        sources: {count: 3, min_reached: 10}
    """)
    outcome, _ = run_rows(config)
    [fidelity] = build_report(outcome.run_dir).fidelity
    assert (fidelity.real_source, fidelity.verdict, fidelity.real_label) == ("catalog", NOT_MEASURED, None)
    assert fidelity.real_table1["diameter"] == 38576 and fidelity.real_table1["m"] == 25423206
    markdown = render_markdown(build_report(outcome.run_dir))
    assert "| asia.osm † | asia.osm | catalog | 400 / 11,950,757 |" in markdown
    assert "/ 38,576 | not measured |" in markdown and "stand_in: both}` in a config runs the real graph" in markdown


# ---------------------------------------------------------------------------------------------- the order, by hand

GRAPHS = {
    "road": {"n": 100, "m": 300, "directed": False, "weighted": True, "provenance": {"catalog_entry": "road"},
             "table1": {"n": 100, "m": 300, "approx_diameter": 20}},
    "road-stand-in": {"n": 100, "m": 310, "directed": False, "weighted": True, "stand_in_for": "road",
                      "stand_in": "road:n=100,seed=1", "stand_in_note": "a lattice",
                      "table1": {"n": 100, "m": 310, "approx_diameter": 25}},
}


def fidelity_of(tmp_path, real_scales, stand_in_scales, jitter=0.0):
    """The Fidelity of a run where variants a, b, c took these median times (ms) on the real graph and on its
    stand-in, 20 sources each."""
    rows = []
    for graph, scales in (("road", real_scales), ("road-stand-in", stand_in_scales)):
        for variant, scale in zip("abc", scales):
            rows += timed(graph, variant, scale, jitter=jitter)
    run = write_run(tmp_path / "r1", manifest("r1", graphs=GRAPHS), rows)
    [fidelity] = stand_in_fidelity(run, summarize(run))
    return fidelity, run


def test_the_same_order_on_both_graphs_is_the_same_order(tmp_path):
    fidelity, _ = fidelity_of(tmp_path, [1.0, 2.0, 4.0], [1.5, 3.0, 9.0])
    assert fidelity.verdict == SAME_ORDER and not fidelity.differs
    assert list(fidelity.times["stand_in_rank"]) == list(fidelity.times["real_rank"]) == [1, 2, 3]
    assert list(fidelity.times["ratio"]) == pytest.approx([1.5, 1.5, 2.25])


def test_a_clear_swap_is_flagged_in_the_section_and_beside_the_footnote(tmp_path):
    fidelity, run = fidelity_of(tmp_path, [1.0, 2.0, 4.0], [2.0, 1.0, 4.0])  # a and b swap, both clearly
    assert fidelity.verdict == DIFFERS and fidelity.swaps == [("b", "a")]
    markdown = render_markdown(build_report(run))
    assert "| road-stand-in † | road | ran as road | 100 / 100 | 310 / 300 |" in markdown
    assert "| **differs** |" in markdown
    assert "b before a on the stand-in, after it on the real graph" in markdown
    assert "- road-stand-in: stand-in for road, `road:n=100,seed=1`: a lattice. **Orders the implementations " \
           "differently from its real graph**" in markdown


def test_a_swap_within_noise_is_not_flagged(tmp_path):
    # a and b 1% apart on the real graph: the order flips, but compare cannot tell them apart there
    fidelity, run = fidelity_of(tmp_path, [1.0, 1.01, 4.0], [1.01, 1.0, 4.0], jitter=0.2)
    assert fidelity.verdict == DIFFERS_WITHIN_NOISE and fidelity.swaps == []
    assert "Orders the implementations differently" not in render_markdown(build_report(run))


def test_each_stand_in_is_compared_with_the_real_graph_it_ran_beside(tmp_path):
    # one real graph twice (its own weights and uniform ones), each with its stand-in beside it
    graphs = {**GRAPHS, "road-uniform": {**GRAPHS["road"]},
              "road-uniform-stand-in": {**GRAPHS["road-stand-in"], "beside": "road-uniform"},
              "road-stand-in": {**GRAPHS["road-stand-in"], "beside": "road"}}
    rows = []
    for graph, scales in (("road", [1, 2]), ("road-stand-in", [2, 1]), ("road-uniform", [1, 2]),
                          ("road-uniform-stand-in", [1, 2])):
        for variant, scale in zip("ab", scales):
            rows += timed(graph, variant, scale)
    run = write_run(tmp_path / "r1", manifest("r1", graphs=graphs), rows)
    found = {fidelity.stand_in_label: (fidelity.real_label, fidelity.verdict)
             for fidelity in stand_in_fidelity(run, summarize(run))}
    assert found == {"road-stand-in": ("road", DIFFERS), "road-uniform-stand-in": ("road-uniform", SAME_ORDER)}
