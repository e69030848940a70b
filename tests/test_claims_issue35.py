"""The claim kinds issue 35's targets need (results/claims.py, run/config.py): a median time at most a bound
(`time_ms`), at least F times faster (`faster_than` with `by`), no slower than F times (`within`, optionally met
where the variant is documented as meant for other graph classes), the fastest other variant of the claimant's kind
as the other side (`fastest-other`) and a counter per reached vertex at most a bound (`work`); each met, not met or
not measured with why, in the report's words, and a malformed entry refused in one line naming its key."""

from pathlib import Path

import numpy as np
import pytest

from runs import DIFFICULTY, manifest, solve, timed, write_run
from sssp_bench.errors import ConfigError
from sssp_bench.report import write_report
from sssp_bench.report.text import format_claims
from sssp_bench.results import claims as claims_module
from sssp_bench.results.claims import FASTEST_OTHER, judge
from sssp_bench.run.config import load_config, parse_config

ROOT = Path(__file__).parent.parent

ROAD_AND_RMAT = {  # graph records as a manifest keeps them: their class comes from the generator
    "road": {"n": 100, "m": 300, "directed": False, "weighted": True,
             "provenance": {"generator": "road", "spec": "road:n=100,seed=1"}},
    "rmat": {"n": 100, "m": 1000, "directed": False, "weighted": True,
             "provenance": {"generator": "rmat", "spec": "rmat:n=100,m=1000,seed=1"}},
}


def targets_run(tmp_path, rows, targets, run_id="r1", graphs=None):
    """A run whose config has these (checked) targets."""
    run_manifest = manifest(run_id, baseline=None, graphs=graphs)
    run_manifest["config"]["targets"] = {"efficiency": {}, "faster_than": [], **targets}
    return write_run(tmp_path / run_id, run_manifest, rows)


def named(rows, variant, implementation=None):
    return [{**row, "variant": variant, "implementation": implementation or row["implementation"]} for row in rows]


def counting(rows, counter, per_vertex, reached=1000):
    """The rows with counters[counter] = per_vertex x reached vertices (a list: one value per row, cycled)."""
    values = per_vertex if isinstance(per_vertex, list) else [per_vertex]
    return [{**row, "reached_vertices": reached, "counters": {counter: values[index % len(values)] * reached}}
            for index, row in enumerate(rows)]


def only(claims, **match):
    found = claims
    for column, value in match.items():
        found = found[found[column] == value]
    assert len(found) == 1, found
    return found.iloc[0]


# ---------------------------------------------------------------------------------------------- time_ms


def test_a_median_time_at_or_below_the_bound_is_met_and_above_it_is_not(tmp_path):
    rows = timed("g1", "chain", 1.0) + timed("g2", "chain", 2.0)  # medians 1.475 and 2.95 ms
    run = targets_run(tmp_path, rows, {"time_ms": {"g1": {"chain": 1.9}, "g2": {"chain": 1.9}}})
    claims = judge(run)
    fast, slow = only(claims, graph="g1"), only(claims, graph="g2")
    assert fast["claim"] == "time" and fast["requirement"] == "median time at most 1.9 ms"
    assert fast["measured"] == pytest.approx(np.median(DIFFICULTY)) and fast["verdict"] == "met" and fast["met"]
    assert fast["faster_on"] == "19/20"  # every source within the bound but the hardest (1.95 ms)
    assert slow["measured"] == pytest.approx(2 * np.median(DIFFICULTY)) and slow["verdict"] == "not met" and not slow["met"]
    assert slow["faster_on"] == f"{sum(2 * d <= 1.9 for d in DIFFICULTY)}/20"
    text = format_claims(claims)
    assert "chain median time at most 1.9 ms" in text and "1.475 ms" in text and "2.95 ms" in text
    markdown = write_report(run)["markdown"].read_text()
    assert "| g1 | chain median time at most 1.9 ms | 1.475 ms |" in markdown
    assert "*median time at most X ms*: the median over the variant's verified solves" in markdown


def test_a_time_claim_needs_enough_verified_sources_and_a_variant_that_ran(tmp_path):
    # chain timed out on 12 of its 20 sources: a median over the 8 easy ones says nothing of the target
    easy = sorted(range(20), key=lambda source: DIFFICULTY[source])[:8]
    rows = [solve("g1", "chain", DIFFICULTY[source] / 1e3, source=source, device="gpu") if source in easy else
            solve("g1", "chain", None, status="timeout", certificate=None, source=source, device="gpu")
            for source in range(20)]
    rows += [solve("g2", "chain", 1e-3, status="wrong_answer", certificate=False, source=i) for i in range(20)]
    rows += timed("g1", "hbf", 1.0)
    run = targets_run(tmp_path, rows, {"time_ms": {"g1": {"chain": 1.9, "lonestar": 1.0}, "g2": {"chain": 1.9},
                                                   "g3": {"chain": 1.9}}})
    claims = judge(run)
    assert list(zip(claims["graph"], claims["variant"], claims["reason"])) == [
        ("g1", "chain", "not enough verified sources: 8 of the 10 needed"),
        ("g1", "lonestar", "variant not run: lonestar"),
        ("g2", "chain", "no verified solve: chain"),
        ("g3", "chain", "graph not in the run")]
    assert claims["met"].isna().all() and (claims["verdict"] == "not measured").all()
    assert only(claims, graph="g1", variant="chain")["measured"] > 0  # shown, never judged
    assert format_claims(claims).splitlines()[-1] == (
        "0 of 4 claims met, 0 not met, 4 not measured (1 not enough verified sources, 1 variant not run, "
        "1 no verified solve, 1 graph not in the run)")


def test_a_time_claim_of_a_sweep_is_picked_on_half_a_and_judged_on_half_b(tmp_path):
    lucky = [{**row, "time_s": row["time_s"] * (0.5 if row["source_index"] % 2 == 0 else 1.0)}
             for row in timed("g1", "chain", 2.0)]
    rows = named(lucky, "chain[k=1]", "chain") + named(timed("g1", "chain", 1.9), "chain[k=2]", "chain")
    run = targets_run(tmp_path, rows, {"time_ms": {"g1": {"chain": 2.0}}})
    judged = only(judge(run), graph="g1")
    assert judged["variant"] == "chain[k=1]" and "picked on half A" in judged["selection"]
    odd = [2.0 * DIFFICULTY[i] for i in range(1, 20, 2)]
    assert judged["measured"] == pytest.approx(sorted(odd)[4] / 2 + sorted(odd)[5] / 2)
    assert judged["verdict"] == "not met"


# ---------------------------------------------------------------------------------------------- faster_than by


def test_at_least_twice_as_fast_is_met_by_a_clear_2x_and_not_by_a_plain_win(tmp_path):
    rows = (timed("g1", "hbf", 1.0) + timed("g1", "chain", 0.4, jitter=0.02)
            + timed("g2", "hbf", 1.0) + timed("g2", "chain", 0.6, jitter=0.02)
            + timed("g3", "hbf", 1.0) + timed("g3", "chain", 0.5))  # exactly 2x: not at least 2x, clearly
    run = targets_run(tmp_path, rows, {"faster_than": [{"variant": "chain", "than": ["hbf"], "graphs": [],
                                                        "by": 2.0}]})
    claims = judge(run)
    twice, once, tie = (only(claims, graph=graph) for graph in ("g1", "g2", "g3"))
    assert twice["claim"] == "at least 2x faster than" and twice["against"] == "hbf"
    assert twice["requirement"] == "at least 2x faster (paired by source: ratio at most 0.5)"
    assert twice["measured"] == pytest.approx(0.4, abs=0.01) and twice["ci_high"] < 0.5
    assert twice["verdict"] == "2x faster" and twice["met"]
    assert once["verdict"] == "faster, not 2x" and not once["met"]
    assert tie["measured"] == pytest.approx(0.5) and tie["verdict"] == "faster, not 2x" and not tie["met"]
    assert "chain at least 2x faster than hbf" in format_claims(claims)
    markdown = write_report(run)["markdown"].read_text()
    assert "| g1 | chain at least 2x faster than hbf | ratio 0.4" in markdown
    assert "*at least Fx faster than*: the same paired rule with 1/F in place of 1" in markdown


def test_by_one_is_the_plain_faster_claim(tmp_path):
    rows = timed("g1", "hbf", 1.0) + timed("g1", "chain", 0.9, jitter=0.03)
    plain = judge(targets_run(tmp_path, rows, {"faster_than": [{"variant": "chain", "than": ["hbf"],
                                                                "graphs": []}]}))
    by_one = judge(targets_run(tmp_path, rows, {"faster_than": [{"variant": "chain", "than": ["hbf"], "graphs": [],
                                                                 "by": 1.0}]}, run_id="r2"))
    assert plain.drop(columns="run_id").equals(by_one.drop(columns="run_id"))
    assert only(by_one, graph="g1")["claim"] == "faster than" and only(by_one, graph="g1")["verdict"] == "faster"


def test_a_2x_claim_on_too_few_pairs_is_not_measured(tmp_path):
    rows = timed("g1", "hbf", 1.0) + timed("g1", "chain", 0.3, sources=range(8))
    rows += [solve("g1", "chain", None, status="timeout", certificate=None, source=source, device="gpu")
             for source in range(8, 20)]
    judged = only(judge(targets_run(tmp_path, rows, {"faster_than": [{"variant": "chain", "than": ["hbf"],
                                                                      "graphs": [], "by": 2.0}]})), graph="g1")
    assert judged["verdict"] == "not measured" and judged["met"] is None
    assert judged["reason"] == "not enough paired sources: 8 of the 10 needed"
    assert (judged["variant_only"], judged["against_only"]) == (0, 12)


# ---------------------------------------------------------------------------------------------- fastest-other


def others(graph="g1"):
    """hbf, cluster and async's two settings, cluster the fastest; a faster BFS and a faster all-pairs variant,
    which are no SSSP comparator for a single source."""
    return (timed(graph, "hbf", 1.0) + timed(graph, "cluster", 0.8)
            + named(timed(graph, "async", 0.9), "async[bps=0]") + named(timed(graph, "async", 0.85), "async[bps=1]")
            + timed(graph, "bfs4k", 0.1, kind="bfs") + timed(graph, "floyd-warshall", 0.05))


def test_fastest_other_is_the_fastest_variant_of_another_implementation_of_the_claimants_kind(tmp_path):
    rows = others() + timed("g1", "chain", 0.3)
    rows += named(timed("g1", "chain", 0.01), "chain-nochain", "chain")  # the claimant's implementation: not a rival
    run = targets_run(tmp_path, rows, {"faster_than": [{"variant": "chain", "than": [FASTEST_OTHER], "graphs": [],
                                                        "by": 2.0}]})
    claims = judge(run)
    judged = only(claims, variant="chain")
    assert judged["against"] == "cluster" and judged["measured"] == pytest.approx(0.3 / 0.8)
    assert judged["selection"] == (
        "fastest-other: best of 4 (hbf, cluster, async[bps=0], async[bps=1]), picked on half A (10 sources, even "
        "source index), judged on half B (10)")
    assert judged["faster_on"] == "10/10" and judged["verdict"] == "2x faster" and judged["met"]
    assert "chain at least 2x faster than cluster" in format_claims(claims)
    assert "*fastest-other*: the fastest variant of another implementation" in (
        write_report(run)["markdown"].read_text())


def test_fastest_other_of_a_bfs_variant_is_a_bfs_variant(tmp_path):
    rows = others() + timed("g1", "bfs-harish", 0.5, kind="bfs") + timed("g1", "bfs4k-fast", 0.3, kind="bfs")
    judged = only(judge(targets_run(tmp_path, rows, {"within": [
        {"variant": "bfs-harish", "of": [FASTEST_OTHER], "factor": 1.25, "graphs": []}]})), graph="g1")
    assert judged["selection"].startswith("fastest-other: best of 2 (bfs4k, bfs4k-fast)")
    assert judged["against"] == "bfs4k" and judged["measured"] == pytest.approx(5.0)  # not an SSSP variant's 0.8
    assert judged["verdict"] == "not within 1.25x" and not judged["met"]


def test_fastest_other_with_one_rival_says_so_and_without_one_is_not_measured(tmp_path):
    rows = timed("g1", "hbf", 1.0) + timed("g1", "chain", 0.4) + timed("g2", "chain", 0.4)
    rows += timed("g2", "bfs4k", 1.0, kind="bfs")
    run = targets_run(tmp_path, rows, {"within": [{"variant": "chain", "of": [FASTEST_OTHER], "factor": 1.25,
                                                   "graphs": ["g1", "g2"]}]})
    claims = judge(run)
    one = only(claims, graph="g1")
    assert one["against"] == "hbf" and one["verdict"] == "within 1.25x" and one["met"]
    assert one["selection"] == "fastest-other: the only other sssp variant verified on the graph"
    assert only(claims, graph="g2")["reason"] == "no verified solve: fastest-other"
    # a run of one SSSP variant has no rival to name at all
    alone = judge(targets_run(tmp_path, timed("g1", "chain", 0.4), {"within": [
        {"variant": "chain", "of": [FASTEST_OTHER], "factor": 1.25, "graphs": []}]}, run_id="alone"))
    assert list(alone["reason"]) == ["variant not run: fastest-other (no other sssp variant ran)"]


# ---------------------------------------------------------------------------------------------- within


def test_within_a_factor_is_met_below_it_and_not_above(tmp_path):
    rows = (timed("g1", "near-far", 1.0) + timed("g1", "chain", 1.1, jitter=0.02)
            + timed("g2", "near-far", 1.0) + timed("g2", "chain", 1.6, jitter=0.02))
    run = targets_run(tmp_path, rows, {"within": [{"variant": "chain", "of": ["near-far"], "factor": 1.25,
                                                   "graphs": []}]})
    claims = judge(run)
    close, far = only(claims, graph="g1"), only(claims, graph="g2")
    assert close["claim"] == "within 1.25x of" and close["against"] == "near-far"
    assert close["requirement"] == "at most 1.25x the other's time (paired by source: ratio at most 1.25)"
    assert close["measured"] == pytest.approx(1.1, abs=0.02) and close["ci_high"] < 1.25
    assert close["verdict"] == "within 1.25x" and close["met"]
    assert far["verdict"] == "not within 1.25x" and not far["met"]
    assert "chain within 1.25x of near-far" in format_claims(claims)
    assert "*within Fx of*: no slower than F times the other" in write_report(run)["markdown"].read_text()


def test_within_or_not_meant_for_is_met_where_the_implementation_is_documented_for_other_graphs(tmp_path,
                                                                                               monkeypatch):
    declared = {"chain": ("road", "mesh")}
    monkeypatch.setattr(claims_module, "recommended_for", lambda implementation: declared.get(implementation))
    rows = []
    for graph in ("road", "rmat"):
        rows += timed(graph, "near-far", 1.0) + timed(graph, "chain", 2.0, jitter=0.02)
    within = {"within": [{"variant": "chain", "of": ["near-far"], "factor": 1.25, "graphs": [],
                          "or_not_meant_for": True}]}
    claims = judge(targets_run(tmp_path, rows, within, graphs=ROAD_AND_RMAT))
    road, rmat = only(claims, graph="road"), only(claims, graph="rmat")
    assert road["verdict"] == "not within 1.25x" and not road["met"]  # a road graph: it is meant for it
    assert rmat["measured"] == pytest.approx(2.0, abs=0.05)  # the ratio is still shown
    assert rmat["verdict"] == ("not within 1.25x; documented as not meant for synthetic-power-law graphs "
                               "(recommended_for: road, mesh)")
    assert rmat["met"]
    # without the option, or for an implementation meant for every graph, it stays not met
    plain = judge(targets_run(tmp_path, rows, {"within": [{**within["within"][0], "or_not_meant_for": False}]},
                              run_id="r2", graphs=ROAD_AND_RMAT))
    assert not plain["met"].any()
    declared.clear()
    assert not judge(targets_run(tmp_path, rows, within, run_id="r3", graphs=ROAD_AND_RMAT))["met"].any()


def test_a_graph_of_unknown_class_is_not_excused(tmp_path, monkeypatch):
    monkeypatch.setattr(claims_module, "recommended_for", lambda implementation: ("road",))
    rows = timed("g1", "near-far", 1.0) + timed("g1", "chain", 2.0)  # g1: a hand-made record, no class
    judged = only(judge(targets_run(tmp_path, rows, {"within": [
        {"variant": "chain", "of": ["near-far"], "factor": 1.25, "graphs": [], "or_not_meant_for": True}]})),
        graph="g1")
    assert judged["verdict"] == "not within 1.25x" and not judged["met"]


def test_within_needs_enough_paired_sources(tmp_path):
    rows = timed("g1", "near-far", 1.0, sources=range(40)) + timed("g1", "chain", 1.0, sources=range(12))
    rows += [solve("g1", "chain", None, status="error", certificate=None, source=source) for source in range(12, 40)]
    judged = only(judge(targets_run(tmp_path, rows, {"within": [
        {"variant": "chain", "of": ["near-far"], "factor": 1.25, "graphs": []}]})), graph="g1")
    assert judged["reason"] == "not enough paired sources: 12 of the 20 needed" and judged["met"] is None


# ---------------------------------------------------------------------------------------------- work


def test_a_counter_per_reached_vertex_at_most_the_bound_is_met(tmp_path):
    rows = (counting(timed("g1", "chain", 1.0), "relaxed", [1.1, 1.2, 1.3])
            + counting(timed("g2", "chain", 1.0), "relaxed", [1.4, 1.6, 1.8]))
    work = {"work": [{"variant": "chain", "counter": "relaxed", "per": "reached_vertices", "max": 1.5,
                      "graphs": []}]}
    run = targets_run(tmp_path, rows, work)
    claims = judge(run)
    lean, wasteful = only(claims, graph="g1"), only(claims, graph="g2")
    assert lean["claim"] == "work" and lean["requirement"] == "median relaxed per reached vertex at most 1.5"
    assert lean["measured"] == pytest.approx(1.2) and lean["verdict"] == "met" and lean["met"]
    assert lean["faster_on"] == "20/20"
    assert wasteful["measured"] == pytest.approx(1.6) and wasteful["verdict"] == "not met"
    assert wasteful["faster_on"] == "7/20"  # the sources at 1.4 per vertex
    assert "chain median relaxed per reached vertex at most 1.5" in format_claims(claims)
    markdown = write_report(run)["markdown"].read_text()
    assert "| g1 | chain median relaxed per reached vertex at most 1.5 | 1.200 |" in markdown
    assert "*median COUNTER per reached vertex (or arc) at most X*" in markdown


def test_work_per_reached_arc(tmp_path):
    rows = [{**row, "counters": {"pops": 500}} for row in timed("g1", "chain", 1.0)]  # reached_arcs 1000
    judged = only(judge(targets_run(tmp_path, rows, {"work": [
        {"variant": "chain", "counter": "pops", "per": "reached_arcs", "max": 0.6, "graphs": []}]})), graph="g1")
    assert judged["requirement"] == "median pops per reached arc at most 0.6"
    assert judged["measured"] == pytest.approx(0.5) and judged["met"]


def test_rows_without_the_counter_are_not_measured_and_say_which(tmp_path):
    rows = timed("g1", "chain", 1.0) + counting(timed("g2", "chain", 1.0, sources=range(6)), "relaxed", 1.0)
    rows += timed("g2", "chain", 1.0, sources=range(6, 20))  # 14 of its 20 verified solves lack the counter
    claims = judge(targets_run(tmp_path, rows, {"work": [
        {"variant": "chain", "counter": "relaxed", "per": "reached_vertices", "max": 1.5, "graphs": []},
        {"variant": "hbf", "counter": "relaxed", "per": "reached_vertices", "max": 1.5, "graphs": ["g1"]}]}))
    assert list(zip(claims["graph"], claims["variant"], claims["reason"])) == [
        ("g1", "chain", "counter not reported: relaxed"),
        ("g2", "chain", "not enough verified sources: 6 of the 10 needed"),
        ("g1", "hbf", "variant not run: hbf")]
    assert claims["met"].isna().all()
    assert format_claims(claims).splitlines()[-1] == (
        "0 of 3 claims met, 0 not met, 3 not measured (1 counter not reported, 1 not enough verified sources, "
        "1 variant not run)")


# ---------------------------------------------------------------------------------------------- the config


CONFIG = """
graphs:
  - {graph: "grid:rows=3", label: g}
  - {graph: "random:n=40,m=200,seed=1", label: h, weights: "uniform:min=1,max=1001,seed=1"}
implementations: [cpu-dijkstra, cpu-bf, cpu-bfs]
"""


def test_the_new_kinds_parse_into_what_claims_judge():
    config = parse_config(CONFIG + """
targets:
  time_ms: {g: {cpu-dijkstra: 1.9}}
  faster_than:
    - {variant: cpu-dijkstra, than: [cpu-bf]}
    - {variant: cpu-dijkstra, than: [fastest-other], by: 2, graphs: [h]}
  within: [{variant: cpu-dijkstra, of: [fastest-other, cpu-bf], factor: 1.25, or_not_meant_for: true}]
  work: [{variant: cpu-dijkstra, counter: relaxations, max: 1.5, graphs: [g, h]}]
""", "x.yaml")
    assert config.graphs[1].weights == "uniform:min=1,max=1001,seed=1"  # a graph of its own weights
    targets = config.targets
    assert targets["time_ms"] == {"g": {"cpu-dijkstra": 1.9}}
    assert targets["faster_than"] == [{"variant": "cpu-dijkstra", "than": ["cpu-bf"], "graphs": []},
                                      {"variant": "cpu-dijkstra", "than": ["fastest-other"], "graphs": ["h"],
                                       "by": 2.0}]
    assert targets["within"] == [{"variant": "cpu-dijkstra", "of": ["fastest-other", "cpu-bf"], "factor": 1.25,
                                  "graphs": [], "or_not_meant_for": True}]
    assert targets["work"] == [{"variant": "cpu-dijkstra", "counter": "relaxations", "per": "reached_vertices",
                                "max": 1.5, "graphs": ["g", "h"]}]


def test_a_config_without_the_new_kinds_keeps_its_targets_and_hash():
    text = CONFIG + "targets:\n  faster_than: [{variant: cpu-dijkstra, than: [cpu-bf]}]\n"
    targets = parse_config(text, "x.yaml").targets
    assert set(targets) == {"source", "paper_bandwidth_gbs", "device_bandwidth_gbs", "mteps", "efficiency",
                            "faster_than"}
    assert targets["faster_than"] == [{"variant": "cpu-dijkstra", "than": ["cpu-bf"], "graphs": []}]
    assert parse_config(text, "x.yaml").hash != parse_config(text.replace("]}]", "], by: 2}]"), "x.yaml").hash


@pytest.mark.parametrize("targets, message", [
    ("{time_ms: {nograph: {cpu-dijkstra: 1}}}", r"x.yaml:\d+: targets.time_ms.nograph: not a graph of this config"),
    ("{time_ms: {g: {hbf: 1}}}", r"targets.time_ms.g.hbf: not an implementation of this config"),
    ("{time_ms: {g: {cpu-dijkstra: 0}}}", r"targets.time_ms.g.cpu-dijkstra: expected the most milliseconds"),
    ("{time_ms: {g: {cpu-dijkstra: fast}}}", r"targets.time_ms.g.cpu-dijkstra: expected the most milliseconds"),
    ("{time_ms: [g]}", r"targets.time_ms: expected a mapping of graph label to"),
    ("{faster_than: [{variant: cpu-dijkstra, than: [cpu-bf], by: 0.5}]}",
     r"targets.faster_than\[0\].by: expected how many times faster, a number of at least 1"),
    ("{faster_than: [{variant: cpu-dijkstra, than: [cpu-bf], by: twice}]}", r"targets.faster_than\[0\].by: expected"),
    ("{faster_than: [{variant: fastest-other, than: [cpu-bf]}]}",
     r"targets.faster_than\[0\].variant: not an implementation of this config"),
    ("{within: {cpu-dijkstra: 1.25}}", r"targets.within: expected a list of"),
    ("{within: [cpu-dijkstra]}", r"targets.within\[0\]: expected a mapping"),
    ("{within: [{variant: cpu-dijkstra, of: [cpu-bf]}]}", r"targets.within\[0\]: missing required key 'factor'"),
    ("{within: [{variant: cpu-dijkstra, factor: 1.25}]}", r"targets.within\[0\].of: expected a list of the variants"),
    ("{within: [{variant: cpu-dijkstra, of: [cpu-bf], factor: 0.8}]}",
     r"targets.within\[0\].factor: expected the most times slower it may be"),
    ("{within: [{variant: cpu-dijkstra, of: [cpu-dijkstra], factor: 1.25}]}", r"cannot be compared with itself"),
    ("{within: [{variant: cpu-dijkstra, of: [hbf], factor: 1.25}]}", r"targets.within\[0\].of: not an implementation"),
    ("{within: [{variant: cpu-dijkstra, of: [cpu-bf], factor: 1.25, or_not_meant_for: yes-ish}]}",
     r"targets.within\[0\].or_not_meant_for: expected true or false"),
    ("{within: [{variant: cpu-dijkstra, of: [cpu-bf], factor: 1.25, graphs: [nograph]}]}",
     r"targets.within\[0\].graphs: not a graph"),
    ("{within: [{variant: cpu-dijkstra, of: [cpu-bf], factor: 1.25, by: 2}]}", r"targets.within\[0\].by: unknown key"),
    ("{work: [{variant: cpu-dijkstra, max: 1.5}]}", r"targets.work\[0\]: missing required key 'counter'"),
    ("{work: [{variant: cpu-dijkstra, counter: relaxed}]}", r"targets.work\[0\]: missing required key 'max'"),
    ("{work: [{variant: cpu-dijkstra, counter: '', max: 1.5}]}", r"targets.work\[0\].counter: expected the name"),
    ("{work: [{variant: cpu-dijkstra, counter: relaxed, max: -1}]}", r"targets.work\[0\].max: expected the most"),
    ("{work: [{variant: cpu-dijkstra, counter: relaxed, max: 1.5, per: vertices}]}",
     r"targets.work\[0\].per: expected one of reached_vertices, reached_arcs, got 'vertices'"),
    ("{work: [{variant: hbf, counter: relaxed, max: 1.5}]}", r"targets.work\[0\].variant: not an implementation"),
    ("{work: [{variant: cpu-dijkstra, counter: relaxed, max: 1.5, graph: g}]}", r"targets.work\[0\].graph: unknown key"),
    ("{work: {cpu-dijkstra: {counter: relaxed, max: 1.5}}}", r"targets.work: expected a list of"),
])
def test_refused_new_targets(targets, message):
    with pytest.raises(ConfigError, match=message) as refused:
        parse_config(CONFIG + f"targets: {targets}\n", "x.yaml")
    assert "\n" not in str(refused.value)


def test_a_variant_labelled_fastest_other_cannot_be_told_from_the_special_name():
    text = """
graphs: [{graph: "grid:rows=3", label: g}]
implementations: [cpu-dijkstra, {name: cpu-bf, label: fastest-other}]
targets: {faster_than: [{variant: cpu-dijkstra, than: [fastest-other]}]}
"""
    with pytest.raises(ConfigError, match=r"targets.faster_than\[0\].than: 'fastest-other' means the fastest other "
                                          r"variant on the graph, but a variant of this config has that name"):
        parse_config(text, "x.yaml")


# ---------------------------------------------------------------------------------------------- the experiment


def test_issue35s_config_holds_every_target_of_the_issue():
    config = load_config(ROOT / "experiments/roads/issue35-targets.yaml")
    weights = {graph.label: graph.weights for graph in config.graphs}
    assert weights == {"USA-road-d.NY": "keep", "USA-road-pace.NE": "uniform:min=1,max=1001,seed=1",
                       "road-2M": "keep", "rmat.3Mv.20Me": "keep", "random.2Mv.128Me": "keep", "kron-21": "keep",
                       "soc-Epinions1": "uniform:min=1,max=100,seed=1"}
    assert config.source_count == 100
    targets = config.targets
    assert targets["time_ms"] == {"USA-road-d.NY": {"delta-stepping-chain": 1.9}}
    assert targets["faster_than"] == [
        {"variant": "delta-stepping-chain", "than": ["hbf", "delta-stepping-cluster", "delta-stepping-async"],
         "graphs": ["USA-road-d.NY"]},
        {"variant": "delta-stepping-chain", "than": [FASTEST_OTHER], "graphs": ["USA-road-pace.NE", "road-2M"],
         "by": 2.0}]
    assert targets["work"] == [{"variant": "delta-stepping-chain", "counter": "relaxed", "per": "reached_vertices",
                                "max": 1.5, "graphs": ["USA-road-d.NY", "USA-road-pace.NE", "road-2M"]}]
    assert targets["within"] == [{"variant": "delta-stepping-chain", "of": [FASTEST_OTHER], "factor": 1.25,
                                  "graphs": ["rmat.3Mv.20Me", "random.2Mv.128Me", "kron-21", "soc-Epinions1"],
                                  "or_not_meant_for": True}]


def test_issue35s_claims_on_rows_shaped_like_its_run(tmp_path):
    # a hand-made run of the config's graphs and variants: 13 claims, each judged or not measured with why
    config = load_config(ROOT / "experiments/roads/issue35-targets.yaml")
    rows = []
    for graph in config.graphs:
        for variant in config.variants:
            scale = {"delta-stepping-chain": 0.3, "delta-stepping-cluster": 1.0}.get(variant.name, 1.2)
            made = named(timed(graph.label, variant.implementation, scale), variant.name, variant.implementation)
            if variant.name == "delta-stepping-chain":
                made = counting(made, "relaxed", 1.2)
            rows += made
    run_manifest = manifest("issue35", baseline=None, graphs={graph.label: {"provenance": {}} for graph in
                                                              config.graphs})
    run_manifest["config"] = config.raw
    claims = judge(write_run(tmp_path / "issue35", run_manifest, rows))
    assert len(claims) == 1 + 3 + 2 + 3 + 4
    assert claims["met"].all(), claims[["graph", "claim", "against", "verdict", "reason"]]
    assert set(claims.loc[claims["claim"] == "at least 2x faster than", "against"]) == {"delta-stepping-cluster"}
