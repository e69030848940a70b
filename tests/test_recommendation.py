"""Which variant to pick (results/recommend.py, the report's section and recommendations.csv): per graph and problem
kind, the fastest variant that verified every source it ran, compared over the sources both ran; the runner-up and
its ratio; a variant whose implementation is meant for other graph classes left out with a footnote; failed,
external and all-pairs variants never recommended. And where a graph's class comes from (datasets/classes.py)."""

import math

import pandas as pd
import pytest
from click.testing import CliRunner

from runs import make_config, manifest, prepare, run_rows, solve, write_run
from sssp_bench.cli import cli
from sssp_bench.datasets import catalog
from sssp_bench.datasets.classes import GENERATOR_CLASSES, GRAPH_CLASSES, generator_class, graph_class
from sssp_bench.graph.generators import GENERATORS
from sssp_bench.impls import registry
from sssp_bench.report import build_report, render_markdown, write_report
from sssp_bench.results.numbers import format_number
from sssp_bench.results.recommend import recommend

THREE_GRAPHS = """
    graphs:
      - {graph: "road:n=900,seed=2", label: road-900}
      - {graph: "grid:rows=20,cols=20,seed=3", label: grid-400}
      - {graph: "rmat:n=512,m=4096,seed=5", label: rmat-512}
    implementations: [cpu-dijkstra, cpu-bf, cpu-delta-stepping, cpu-bfs]
    sources: {count: 12, seed: 1}
    warmup: 0
    baseline: {sssp: cpu-dijkstra, bfs: cpu-bfs}
"""


@pytest.fixture(scope="module")
def cpu_run(tmp_path_factory):
    """Four CPU implementations on a road-like, a grid and an R-MAT graph, 12 sources each."""
    tmp_path = tmp_path_factory.mktemp("recommend")
    outcome, _ = run_rows(make_config(tmp_path, THREE_GRAPHS, "three"), run_id="three")
    return outcome.run_dir


def rows_of(frame, graph, kind="sssp"):
    return frame[(frame["graph"] == graph) & (frame["kind"] == kind)]


def role_of(frame, graph, variant, kind="sssp"):
    found = rows_of(frame, graph, kind)
    return found.loc[found["variant"] == variant].iloc[0]


# ---------------------------------------------------------------------------------------------- real runs


def test_each_graph_gets_the_fastest_variant_that_verified_every_source(cpu_run, tmp_path):
    report = build_report(cpu_run)
    picks = report.recommendations
    for graph, klass in (("road-900", "road"), ("grid-400", "mesh"), ("rmat-512", "synthetic-power-law")):
        sssp = rows_of(picks, graph)
        assert set(sssp["graph_class"]) == {klass}
        assert sorted(sssp["variant"]) == ["cpu-bf", "cpu-delta-stepping", "cpu-dijkstra"]
        assert list(sssp["role"]) == ["pick", "runner-up", "ranked"] and list(sssp["rank"]) == [1, 2, 3]
        # every variant ran the same 12 sources: the order is the order of the medians the Results table shows
        assert list(sssp["median_ms"]) == sorted(sssp["median_ms"])
        summary = report.summary[(report.summary["graph"] == graph) & (report.summary["kind"] == "sssp")]
        assert sssp.iloc[0]["median_ms"] == summary["time_median_ms"].min()
        assert list(sssp["ratio_sources"]) == ["12/12"] * 3 and sssp.iloc[0]["ratio_to_pick"] == 1.0
        assert (sssp["ratio_to_pick"] >= 1.0).all() and list(sssp["sources"]) == [12, 12, 12]
        assert sssp.iloc[1]["verdict"] in ("faster", "no clear difference")  # 12 pairs of 12: enough to judge
        bfs = rows_of(picks, graph, "bfs")
        assert list(bfs["variant"]) == ["cpu-bfs"] and list(bfs["role"]) == ["pick"]

    text = render_markdown(report)
    section = text.split("## Which variant to pick", 1)[1].split("\n## ", 1)[0]
    pick = rows_of(picks, "rmat-512").iloc[0]
    second = rows_of(picks, "rmat-512").iloc[1]
    assert (f"| rmat-512 | synthetic-power-law | sssp | **{pick['variant']}** (cpu) | ") in section
    assert f"| {second['variant']} (cpu) | " in section
    assert "| grid-400 | mesh | bfs | **cpu-bfs** (cpu) | " in section and "| - | - | - | - |" in section
    assert "*mesh*, meshes, lattices" in section  # what each class in the table holds

    written = write_report(report, tmp_path / "out")
    assert written["recommendations"].name == "recommendations.csv"
    csv = pd.read_csv(written["recommendations"])
    assert list(csv["variant"]) == list(picks["variant"]) and list(csv["role"]) == list(picks["role"])

    printed = CliRunner().invoke(cli, ["report", str(cpu_run), "--out", str(tmp_path / "printed")])
    assert printed.exit_code == 0, printed.output
    assert "Which variant to pick" in printed.output and "rmat-512" in printed.output


def test_a_variant_meant_for_roads_is_left_out_of_other_graphs_with_a_footnote(cpu_run, monkeypatch):
    # cpu-delta-stepping declares itself for road networks only, as a road-only GPU variant would
    monkeypatch.setattr(registry()["cpu-delta-stepping"], "recommended_for", ("road",))
    report = build_report(cpu_run)
    picks = report.recommendations

    on_roads = role_of(picks, "road-900", "cpu-delta-stepping")
    assert on_roads["role"] in ("pick", "runner-up", "ranked") and on_roads["recommended_for"] == "road"
    for graph, klass in (("grid-400", "mesh"), ("rmat-512", "synthetic-power-law")):
        left_out = role_of(picks, graph, "cpu-delta-stepping")
        assert left_out["role"] == "left out" and pd.isna(left_out["rank"])
        assert left_out["reason"] == f"recommended for road only; this graph is {klass}"
        assert left_out["ratio_to_pick"] > 0  # timed and verified like the others: how far it was from the pick
        ranked = rows_of(picks, graph)
        assert list(ranked["role"]) == ["pick", "runner-up", "left out"]
        assert "cpu-delta-stepping" not in set(ranked.loc[ranked["role"] != "left out", "variant"])

    text = render_markdown(report)
    assert "Left out by their implementation's `recommended_for`" in text
    left_out = role_of(picks, "rmat-512", "cpu-delta-stepping")
    assert ("- **cpu-delta-stepping** on rmat-512: recommended for road only; this graph is synthetic-power-law; "
            f"{format_number(left_out['median_ms'])} ms median, {format_number(left_out['ratio_to_pick'], 'x')} the "
            "pick.") in text


def test_every_declaration_names_known_classes():
    for name, implementation in registry().items():
        declared = implementation.recommended_for
        assert declared is None or (isinstance(declared, tuple) and set(declared) <= set(GRAPH_CLASSES)), name


# ---------------------------------------------------------------------------------------------- hand-written runs

ROAD_AND_RMAT = {
    "USA-road-d.NY": {"n": 264346, "m": 733846, "directed": True, "weighted": True, "origin": "catalog",
                      "provenance": {"catalog_entry": "USA-road-d.NY", "collection": "dimacs9"}},
    "rmat.3Mv.20Me": {"n": 3000000, "m": 20000000, "directed": False, "weighted": True, "origin": "catalog",
                      "provenance": {"catalog_entry": "rmat.3Mv.20Me", "collection": "generated",
                                     "generator": "rmat"}},
}
# Per-source difficulty, as sources of one graph differ: 1.0, 1.35, 1.7, ... (20 values, 1.0 to 1.95, median 1.475).
DIFFICULTY = [1.0 + 0.05 * ((7 * i) % 20) for i in range(20)]


def solves(graph, implementation, ms, sources=range(20), device="cpu", kind="sssp", **fields):
    """A verified solve of `implementation` on each source, `ms` x the source's difficulty milliseconds."""
    return [solve(graph, implementation, DIFFICULTY[source] * ms / 1e3, device=device, kind=kind, source=source,
                  **fields) for source in sources]


def report_of(tmp_path, rows, graphs=ROAD_AND_RMAT):
    return build_report(write_run(tmp_path / "r1", manifest("r1", graphs=graphs), rows))


def test_variants_are_compared_over_the_sources_both_ran(tmp_path):
    # cpu-dijkstra ran all 20 sources (median 1.475 x 10 = 14.75 ms); cpu-bf only the first 3, the easy ones (its
    # own median 1.35 x 10.5 = 14.2 ms: lower). Over the 3 both ran cpu-dijkstra is faster (13.5 against 14.2 ms),
    # so it is the pick, and cpu-bf the runner-up at 1.05x over those 3 sources.
    rows = solves("USA-road-d.NY", "cpu-dijkstra", 10.0) + solves("USA-road-d.NY", "cpu-bf", 10.5, sources=range(3))
    picks = report_of(tmp_path, rows).recommendations
    pick, second = rows_of(picks, "USA-road-d.NY").to_dict("records")
    assert (pick["variant"], pick["role"], pick["sources"]) == ("cpu-dijkstra", "pick", 20)
    assert pick["median_ms"] == pytest.approx(14.75)
    assert (second["variant"], second["role"], second["sources"]) == ("cpu-bf", "runner-up", 3)
    assert second["median_ms"] < pick["median_ms"]  # lower on its own easier sources, yet not the pick
    assert second["ratio_to_pick"] == pytest.approx(1.05) and second["ratio_sources"] == "3/20"
    assert second["verdict"] == "not enough data"  # 3 pairs: fewer than compare's 10

    text = render_markdown(report_of(tmp_path / "again", rows))
    assert ("| USA-road-d.NY | road | sssp | **cpu-dijkstra** (cpu) | 14.8 | 20 | cpu-bf (cpu) | 1.05x (3/20) | "
            "not enough data | - |") in text


def test_the_verdict_says_whether_the_pick_is_clearly_ahead(tmp_path):
    rows = (solves("USA-road-d.NY", "cpu-dijkstra", 10.0) + solves("USA-road-d.NY", "cpu-delta-stepping", 5.0)
            + solves("USA-road-d.NY", "cpu-bf", 5.05)  # 1% behind: a tie
            + solves("rmat.3Mv.20Me", "cpu-dijkstra", 10.0) + solves("rmat.3Mv.20Me", "cpu-delta-stepping", 5.0))
    picks = report_of(tmp_path, rows).recommendations
    road = rows_of(picks, "USA-road-d.NY").set_index("variant")
    assert road.loc["cpu-delta-stepping", "role"] == "pick"
    assert road.loc["cpu-bf", "role"] == "runner-up" and road.loc["cpu-bf", "verdict"] == "no clear difference"
    assert road.loc["cpu-bf", "ci_low"] <= road.loc["cpu-bf", "ratio_to_pick"] <= road.loc["cpu-bf", "ci_high"]
    rmat = rows_of(picks, "rmat.3Mv.20Me").set_index("variant")
    assert rmat.loc["cpu-dijkstra", "verdict"] == "faster"  # the pick is clearly ahead of it: 2x
    assert rmat.loc["cpu-dijkstra", "ratio_to_pick"] == pytest.approx(2.0)
    assert 1.0 < rmat.loc["cpu-dijkstra", "ci_low"] <= 2.0 <= rmat.loc["cpu-dijkstra", "ci_high"]


def test_failed_or_unverified_variants_are_never_recommended(tmp_path):
    rows = solves("USA-road-d.NY", "cpu-dijkstra", 10.0)
    # fastest of all, but one wrong answer: not recommended for graphs like this one
    rows += solves("USA-road-d.NY", "cpu-delta-stepping", 1.0, sources=range(19))
    rows += [solve("USA-road-d.NY", "cpu-delta-stepping", 0.001, status="wrong_answer", certificate=False,
                   source=19, message="distance of vertex 3 is 5, expected 4")]
    # fast too, but one answer was never checked
    rows += solves("USA-road-d.NY", "cpu-bf", 2.0, sources=range(19))
    rows += [solve("USA-road-d.NY", "cpu-bf", 0.002, certificate=None, source=19)]
    # a GPU variant whose prepare ran out of memory; a GPU variant that timed out everywhere
    rows += [prepare("USA-road-d.NY", "gpu-x", None, status="out_of_memory", device="gpu", message="no memory")]
    rows += [solve("USA-road-d.NY", "gpu-y", None, status="timeout", certificate=None, device="gpu", source=source)
             for source in range(20)]
    # on the other graph every variant failed: there is no pick at all
    rows += [solve("rmat.3Mv.20Me", "cpu-dijkstra", None, status="timeout", certificate=None, source=0)]
    report = report_of(tmp_path, rows)
    picks = report.recommendations

    road = rows_of(picks, "USA-road-d.NY").set_index("variant")
    assert road.loc["cpu-dijkstra", "role"] == "pick"
    for variant, reason in (("cpu-delta-stepping", "19 of 20 solves verified (wrong_answer 1)"),
                            ("cpu-bf", "19 of 20 solves verified (unchecked 1)"),
                            ("gpu-x", "0 of 0 solves verified (prepare out_of_memory)"),
                            ("gpu-y", "0 of 20 solves verified (timeout 20)")):
        assert road.loc[variant, "role"] == "not verified" and road.loc[variant, "reason"] == reason
        assert math.isnan(road.loc[variant, "ratio_to_pick"])
    assert list(rows_of(picks, "rmat.3Mv.20Me")["role"]) == ["not verified"]

    text = render_markdown(report)
    assert "| USA-road-d.NY | road | sssp | **cpu-dijkstra** (cpu) | 14.8 | 20 | - | - | - | - |" in text
    assert "| rmat.3Mv.20Me | synthetic-power-law | sssp | none: no candidate (below) |" in text
    assert ("Not candidates, since not every solve (or the prepare) they ran verified (see Failures): "
            "cpu-delta-stepping on USA-road-d.NY; cpu-bf on USA-road-d.NY; gpu-x on USA-road-d.NY; gpu-y on "
            "USA-road-d.NY; cpu-dijkstra on rmat.3Mv.20Me.") in text


def test_the_pick_is_the_fastest_of_cpu_and_gpu_and_the_other_devices_best_is_named(tmp_path):
    rows = (solves("rmat.3Mv.20Me", "cpu-dijkstra", 40.0) + solves("rmat.3Mv.20Me", "cpu-delta-stepping", 8.0)
            + solves("rmat.3Mv.20Me", "hbf", 2.0, device="gpu")
            + solves("rmat.3Mv.20Me", "near-far", 3.0, device="gpu"))
    picks = report_of(tmp_path, rows).recommendations
    rmat = rows_of(picks, "rmat.3Mv.20Me").set_index("variant")
    assert list(rmat.index) == ["hbf", "near-far", "cpu-delta-stepping", "cpu-dijkstra"]
    assert rmat["best_of_device"].to_dict() == {"hbf": True, "near-far": False, "cpu-delta-stepping": True,
                                                "cpu-dijkstra": False}
    text = render_markdown(report_of(tmp_path / "again", rows))
    assert ("| rmat.3Mv.20Me | synthetic-power-law | sssp | **hbf** (gpu) | 2.95 | 20 | near-far (gpu) | 1.50x | "
            "faster | cpu-delta-stepping (cpu), 11.8 ms, 4.00x |") in text


def test_a_road_only_gpu_variant_on_the_issues_graphs(tmp_path, monkeypatch):
    # Issue 35: on rmat.3Mv.20Me a new variant is either within 1.25x of the best existing one, or documented as
    # road-only and left out of the recommendation there. near-far stands for such a variant here.
    monkeypatch.setattr(registry()["near-far"], "recommended_for", ("road",))
    rows = []
    for graph in ROAD_AND_RMAT:
        rows += solves(graph, "hbf", 4.0, device="gpu") + solves(graph, "near-far", 3.0, device="gpu")
        rows += solves(graph, "cpu-delta-stepping", 8.0)
    report = report_of(tmp_path, rows)
    picks = report.recommendations
    assert role_of(picks, "USA-road-d.NY", "near-far")["role"] == "pick"
    left_out = role_of(picks, "rmat.3Mv.20Me", "near-far")
    assert left_out["role"] == "left out" and left_out["ratio_to_pick"] == pytest.approx(0.75)  # faster, still out
    assert role_of(picks, "rmat.3Mv.20Me", "hbf")["role"] == "pick"
    text = render_markdown(report)
    assert ("- **near-far** on rmat.3Mv.20Me: recommended for road only; this graph is synthetic-power-law; 4.42 ms "
            "median, 0.75x the pick.") in text
    printed = CliRunner().invoke(cli, ["report", str(tmp_path / "r1"), "--out", str(tmp_path / "out")]).output
    assert "left out where their implementation is meant for other graph classes: near-far" in printed


def test_a_declared_variant_is_left_out_where_the_graphs_class_is_unknown(tmp_path, monkeypatch):
    monkeypatch.setattr(registry()["cpu-delta-stepping"], "recommended_for", ("road", "mesh"))
    rows = solves("g1", "cpu-dijkstra", 10.0) + solves("g1", "cpu-delta-stepping", 5.0)
    report = build_report(write_run(tmp_path / "r1", manifest("r1"), rows))  # g1: no provenance, no class
    left_out = role_of(report.recommendations, "g1", "cpu-delta-stepping")
    assert left_out["role"] == "left out"
    assert left_out["reason"] == "recommended for road, mesh only; this graph's class is unknown"
    text = render_markdown(report)
    assert "| g1 | unknown | sssp | **cpu-dijkstra** (cpu) |" in text
    assert "Class unknown (g1): a graph neither in the catalog nor made by a generator" in text


def test_external_programs_and_all_pairs_implementations_are_named_not_ranked(tmp_path):
    rows = solves("USA-road-d.NY", "cpu-dijkstra", 10.0)
    rows += [{**row, "timer": "process"} for row in solves("USA-road-d.NY", "external", 1.0, variant="my-sssp")]
    rows += solves("USA-road-d.NY", "floyd-warshall", 0.5, device="gpu")
    report = report_of(tmp_path, rows)
    road = rows_of(report.recommendations, "USA-road-d.NY").set_index("variant")
    assert road.loc["cpu-dijkstra", "role"] == "pick"
    assert road.loc["my-sssp", "role"] == "external"
    assert road.loc["my-sssp", "reason"] == "an external program, timed by another clock (timer process)"
    assert road.loc["floyd-warshall", "role"] == "all pairs"
    text = render_markdown(report)
    assert "External programs (§), not ranked: another clock timed them" in text and "my-sssp on USA-road-d.NY" in text
    assert "All pairs (‡), not ranked: every solve computes all pairs: floyd-warshall on USA-road-d.NY." in text


def test_a_run_without_rows_recommends_nothing(tmp_path):
    report = build_report(write_run(tmp_path / "r1", manifest("r1"), []))
    assert report.recommendations.empty and "Which variant to pick" not in render_markdown(report)
    assert "recommendations" not in write_report(report, tmp_path / "out")


# ---------------------------------------------------------------------------------------------- graph classes


def test_a_graphs_class_comes_from_the_catalog_its_generator_or_what_it_stands_for():
    assert graph_class("USA-road-d.NY", ROAD_AND_RMAT["USA-road-d.NY"]) == ("road", "catalog")
    assert graph_class("soc-Epinions1", {"provenance": {"catalog_entry": "soc-Epinions1"}}) == ("social", "catalog")
    assert graph_class("kron", {"provenance": {"generator": "kron", "spec": "kron:scale=16"}}) == (
        "synthetic-power-law", "generator kron")
    assert graph_class("random-2M", {"provenance": {"spec": "random:n=2000000,m=128000000"}}) == (
        "random", "generator random")
    assert graph_class("grid:rows=10,cols=10", {}) == ("mesh", "generator grid")  # a spec as the label
    # a stand-in is of its real graph's class: hugetrace is a mesh, though the road generator stands in for it
    stand_in = {"origin": "stand-in", "stand_in_for": "hugetrace-00000", "stand_in": "road:n=4588484,degree=3.0",
                "provenance": {"generator": "road", "spec": "road:n=4588484,degree=3.0"}}
    assert graph_class("hugetrace-00000", stand_in) == ("mesh", "catalog: stand-in for hugetrace-00000")
    # a record that says nothing of where the graph came from: its label, where it is a catalog name
    assert graph_class("wiki-Vote", {"provenance": {}}) == ("social", "catalog")
    # a graph file: nothing says what it is, even under a catalog graph's name
    assert graph_class("wiki-Vote", {"origin": "imported", "provenance": {"source_file": "/data/wiki.txt"}}) == (
        None, "a graph file: nothing records its class")
    assert graph_class("g1", None) == (None, "no catalog entry or generator recorded")


def test_every_catalog_graph_and_every_generator_has_a_class():
    assert set(GENERATOR_CLASSES) == set(GENERATORS)
    assert set(GENERATOR_CLASSES.values()) <= set(GRAPH_CLASSES)
    for entry in catalog.entries():
        assert entry.graph_class in GRAPH_CLASSES, entry.name
        if entry.spec:  # a generated entry is of its generator's class
            assert entry.graph_class == generator_class(entry.spec), entry.name
    assert [catalog.lookup(name).graph_class for name in ("rmat.3Mv.20Me", "random.2Mv.128Me", "kron_g500-logn20",
                                                          "soc-Epinions1", "USA-road-d.NY", "msdoor")] == [
        "synthetic-power-law", "random", "synthetic-power-law", "social", "road", "mesh"]


def test_a_catalog_entry_with_an_unknown_class_is_refused():
    raw = {"name": "x", "collection": "snap", "papers": ["hbf"], "format": "snap", "n": 10, "m": 20, "m_unit": "arcs",
           "directed": True, "weighted": False, "checked": False, "url": "https://snap.stanford.edu/data/x.txt.gz",
           "graph_class": "roads"}
    with pytest.raises(ValueError, match="graph_class must be one of road, mesh, social"):
        catalog._entry(raw, 0)


def test_recommend_takes_run_folders_too(cpu_run):
    assert recommend(cpu_run).equals(build_report(cpu_run).recommendations)
