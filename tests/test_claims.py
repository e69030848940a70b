"""results/claims.py: a config's `targets` say what a paper found (an ordering) or an issue asks (an efficiency),
and the report judges each on the run's verified solves, paired by source as `compare` judges a change."""

import numpy as np
import pytest
from click.testing import CliRunner

from runs import DIFFICULTY, make_config, manifest, run_rows, solve, timed, write_run
from sssp_bench.cli import cli
from sssp_bench.report import write_report
from sssp_bench.report.text import format_claims
from sssp_bench.results.claims import judge
from sssp_bench.run.config import select_graphs


def claiming_run(tmp_path, rows, efficiency=None, faster_than=None, run_id="r1", started=None, **selection):
    """A run whose config has these targets; `selection` as `run --variant` records it (selected_variants=[...])."""
    run_manifest = manifest(run_id, baseline=None)
    run_manifest["config"]["targets"] = {"efficiency": efficiency or {}, "faster_than": faster_than or []}
    run_manifest["config"].update(selection)
    if started:
        run_manifest["started"] = started
    return write_run(tmp_path / run_id, run_manifest, rows)


def named(rows, variant):
    """The rows of one swept variant of their implementation."""
    return [{**row, "variant": variant} for row in rows]


def with_floor(rows, floor_ms):
    return [{**row, "floor_s": floor_ms / 1e3} for row in rows]


def claim(claims, graph, variant=None):
    match = claims[(claims["graph"] == graph) & ((claims["variant"] == variant) if variant else True)]
    assert len(match) == 1
    return match.iloc[0]


def test_a_paired_win_is_met_and_a_tie_is_not(tmp_path):
    # H-BF "beats workfront": 10% faster on g1 (found through the sources' spread), the same speed on g2.
    rows = (timed("g1", "workfront", 1.0) + timed("g1", "hbf", 0.9, jitter=0.03)
            + timed("g2", "workfront", 1.0, jitter=0.05) + timed("g2", "hbf", 1.0, jitter=-0.05))
    run = claiming_run(tmp_path, rows, faster_than=[{"variant": "hbf", "than": ["workfront"], "graphs": []}])
    claims = judge(run)
    win, tie = claim(claims, "g1"), claim(claims, "g2")
    assert win["against"] == "workfront" and win["measured"] == pytest.approx(0.9, abs=0.03)
    assert win["ci_high"] < 1.0 and win["faster_on"] == "20/20"
    assert win["verdict"] == "faster" and win["met"]
    assert tie["verdict"] == "no clear difference" and not tie["met"]
    assert format_claims(claims).splitlines()[-1] == "1 of 2 claims met, 1 not met, 0 not measured"


def test_a_comparator_sweep_stands_for_its_fastest_warp_size(tmp_path):
    # BFS-4K's Table 2 gives static virtual warps at their best size; so does the claim.
    rows = (named(timed("g1", "bfs-vwarp", 1.0), "bfs-vwarp[warp_size=1]")
            + named(timed("g1", "bfs-vwarp", 0.5), "bfs-vwarp[warp_size=16]") + timed("g1", "bfs4k", 0.7))
    run = claiming_run(tmp_path, rows, faster_than=[{"variant": "bfs4k", "than": ["bfs-vwarp"], "graphs": ["g1"]}])
    lost = claim(judge(run), "g1")
    assert lost["against"] == "bfs-vwarp[warp_size=16]"
    assert lost["measured"] == pytest.approx(1.4) and lost["verdict"] == "slower" and not lost["met"]


def test_a_label_whose_entry_sweeps_a_parameter_stands_for_its_fastest_variant(tmp_path):
    # hbf-all-on runs child and cooperative dynamic parallelism; H-BF "with Opt." is the better of the two.
    rows = (named(timed("g1", "hbf", 1.0), "hbf-all-off") + named(timed("g1", "hbf", 0.4), "hbf-all-on[dp=child]")
            + named(timed("g1", "hbf", 0.3), "hbf-all-on[dp=cooperative]"))
    run = claiming_run(tmp_path, rows, faster_than=[{"variant": "hbf-all-on", "than": ["hbf-all-off"], "graphs": []}])
    won = claim(judge(run), "g1")
    assert won["variant"] == "hbf-all-on[dp=cooperative]" and won["against"] == "hbf-all-off"
    assert won["measured"] == pytest.approx(0.3) and won["met"]


def test_a_name_that_is_a_variant_never_stands_for_its_implementations_other_variants(tmp_path):
    # bfs4k-table2: "bfs4k" labels the tuned entry and names the implementation of bfs4k-defaults too
    rows = named(timed("g1", "bfs4k", 0.5), "bfs4k-defaults") + timed("g1", "bfs-harish", 1.0)
    rows += [solve("g1", "bfs4k", 1e-3, status="wrong_answer", certificate=False, source=i) for i in range(20)]
    run = claiming_run(tmp_path, rows, faster_than=[{"variant": "bfs4k", "than": ["bfs-harish"], "graphs": []}])
    assert claim(judge(run), "g1")["verdict"] == "not measured"


def test_efficiency_is_the_median_of_floor_over_time(tmp_path):
    rows = with_floor(timed("g1", "near-far", 1.0), floor_ms=0.6)  # times 1.0-1.95 ms: about 41% of the floor
    rows += with_floor(timed("g2", "near-far", 1.0), floor_ms=0.8)  # about 55%
    run = claiming_run(tmp_path, rows, efficiency={"near-far": {"g1": 0.5, "g2": 0.5}})
    claims = judge(run)
    short, enough = claim(claims, "g1"), claim(claims, "g2")
    per_solve = np.array(DIFFICULTY)  # ms, one per source
    assert short["measured"] == pytest.approx(np.median(0.6 / per_solve)) and short["verdict"] == "not met"
    assert enough["measured"] == pytest.approx(np.median(0.8 / per_solve)) and enough["verdict"] == "met"
    assert enough["met"] and not short["met"]
    assert short["requirement"] == "at least 50% of the floor"


def test_merged_runs_are_judged_each_on_its_own_rows(tmp_path):
    # the report names near-far "before/near-far" and "after/near-far" when both runs ran it on g1
    efficiency = {"near-far": {"g1": 0.5}}
    before = claiming_run(tmp_path, with_floor(timed("g1", "near-far", 1.0, run_id="before"), floor_ms=0.6),
                          efficiency=efficiency, run_id="before")
    after = claiming_run(tmp_path, with_floor(timed("g1", "near-far", 1.0, run_id="after"), floor_ms=0.8),
                         efficiency=efficiency, run_id="after")
    claims = judge([before, after])
    assert list(claims["run_id"]) == ["before", "after"] and list(claims["verdict"]) == ["not met", "met"]


def test_a_config_split_over_calls_is_judged_as_the_one_run_it_adds_up_to(tmp_path):
    # `run --variant hbf` in one device call, `run --variant workfront` in the next: the claim pairs them by source
    faster_than = [{"variant": "hbf", "than": ["workfront"], "graphs": []}]
    first = claiming_run(tmp_path, timed("g1", "hbf", 0.9, jitter=0.03, run_id="part1"), faster_than=faster_than,
                         run_id="part1")
    second = claiming_run(tmp_path, timed("g1", "workfront", 1.0, run_id="part2"), faster_than=faster_than,
                          run_id="part2")
    won = claim(judge([first, second]), "g1")
    assert won["run_id"] == "part1+part2" and won["against"] == "workfront"
    assert won["verdict"] == "faster" and won["met"]


def test_a_part_that_reruns_a_variant_replaces_its_solves(tmp_path):
    # the whole config, then `run --variant hbf` after hbf's kernel changed: the claims judge the new hbf
    faster_than = [{"variant": "hbf", "than": ["workfront"], "graphs": []}]
    efficiency = {"hbf": {"g1": 0.5}}
    whole = claiming_run(tmp_path, timed("g1", "workfront", 1.0, run_id="whole")
                         + with_floor(timed("g1", "hbf", 1.2, run_id="whole"), floor_ms=0.3),
                         efficiency=efficiency, faster_than=faster_than, run_id="whole")
    part = claiming_run(tmp_path, with_floor(timed("g1", "hbf", 0.9, jitter=0.03, run_id="part"), floor_ms=0.6),
                        efficiency=efficiency, faster_than=faster_than, run_id="part",
                        started="2025-01-02T00:00:00+00:00", selected_variants=["hbf"])
    claims = judge([part, whole])  # in the order they started, whatever the order given
    won = claims[claims["claim"] == "faster than"].iloc[0]
    assert won["run_id"] == "whole+part" and won["measured"] == pytest.approx(0.9, abs=0.03) and won["met"]
    reached = claims[claims["claim"] == "efficiency"].iloc[0]
    assert reached["measured"] == pytest.approx(np.median(0.6 / (0.9 * np.array(DIFFICULTY))), rel=0.05)


def test_what_did_not_run_or_verify_is_not_measured_rather_than_failed(tmp_path):
    wrong = [solve("g2", "hbf", 1e-3, status="wrong_answer", certificate=False, source=i, device="gpu")
             for i in range(20)]
    rows = timed("g1", "workfront", 1.0) + timed("g1", "hbf", 0.9) + timed("g2", "workfront", 1.0) + wrong
    run = claiming_run(tmp_path, rows, efficiency={"hbf": {"g1": 0.5}},  # no floor recorded: a CPU-only run
                       faster_than=[{"variant": "hbf", "than": ["workfront"], "graphs": ["g2"]}])
    claims = judge(run)
    assert list(claims["verdict"]) == ["not measured", "not measured"]
    assert claims["met"].isna().all()


def test_a_graph_or_variant_the_run_left_out_is_counted_as_not_measured_and_why(tmp_path):
    # `run --graph g1 --variant hbf --variant workfront` of a config whose claims also name g2 and lonestar
    rows = timed("g1", "workfront", 1.0) + timed("g1", "hbf", 0.9, jitter=0.03)
    run = claiming_run(tmp_path, rows, efficiency={"hbf": {"g2": 0.5}, "lonestar": {"g1": 0.5}},
                       faster_than=[{"variant": "hbf", "than": ["workfront", "lonestar"], "graphs": ["g1", "g2"]}])
    claims = judge(run)
    assert list(zip(claims["graph"], claims["variant"], claims["against"].fillna(""), claims["verdict"],
                    claims["reason"])) == [
        ("g2", "hbf", "", "not measured", "graph not in the run"),
        ("g1", "lonestar", "", "not measured", "variant not run: lonestar"),
        ("g1", "hbf", "workfront", "faster", ""),
        ("g1", "hbf", "lonestar", "not measured", "variant not run: lonestar"),
        ("g2", "hbf", "workfront", "not measured", "graph not in the run"),
        ("g2", "hbf", "lonestar", "not measured", "graph not in the run"),
    ]
    assert format_claims(claims).splitlines()[-1] == (
        "1 of 6 claims met, 0 not met, 5 not measured (3 graph not in the run, 2 variant not run)")


def test_every_claim_on_every_graph_of_the_config_is_counted(tmp_path):
    # a `run --graph g1 --graph g2` part of a config of three graphs: a claim on "every graph" holds on g3 too,
    # which only the full list the selection recorded (config_graphs) knows; g2 ran, but hbf never verified there
    rows = timed("g1", "workfront", 1.0) + timed("g1", "hbf", 0.9, jitter=0.03) + timed("g2", "workfront", 1.0)
    rows += [solve("g2", "hbf", 1e-3, status="wrong_answer", certificate=False, source=i) for i in range(20)]
    run = claiming_run(tmp_path, rows, efficiency={"hbf": {"g1": 0.5, "g3": 0.5}},
                       faster_than=[{"variant": "hbf", "than": ["workfront"], "graphs": []}],
                       config_graphs=["g1", "g2", "g3"], selected_graphs=["g1", "g2"],
                       graphs=[{"graph": "random:n=10", "label": "g1"}, {"graph": "random:n=20", "label": "g2"}])
    claims = judge(run)
    assert list(zip(claims["claim"], claims["graph"], claims["reason"])) == [
        ("efficiency", "g1", "no floor recorded"), ("efficiency", "g3", "graph not in the run"),
        ("faster than", "g1", ""), ("faster than", "g2", "no verified solve: hbf"),
        ("faster than", "g3", "graph not in the run")]
    assert format_claims(claims).splitlines()[-1] == (
        "1 of 5 claims met, 0 not met, 4 not measured (1 no floor recorded, 2 graph not in the run, "
        "1 no verified solve)")


def test_a_run_of_some_graphs_of_a_config_counts_the_claims_on_the_others(tmp_path):
    # `run --graph small` of a config of two graphs whose claim holds on every graph: the manifest keeps the
    # config's whole graph list, so the claim on the graph left out is a row, not a silent omission
    config = make_config(tmp_path, """
        graphs:
          - {graph: "random:n=300,m=3000,seed=1", label: small}
          - {graph: "random:n=600,m=6000,seed=1", label: large}
        implementations: [cpu-dijkstra, cpu-bf-queue]
        sources: {count: 4}
        targets:
          faster_than: [{variant: cpu-dijkstra, than: [cpu-bf-queue]}]
    """)
    outcome, _ = run_rows(select_graphs(config, ["small"]))
    claims = judge(outcome.run_dir)
    assert list(zip(claims["graph"], claims["reason"])) == [
        ("small", "not enough paired sources: 4 of the 10 needed"), ("large", "graph not in the run")]
    assert format_claims(claims).splitlines()[-1] == (
        "0 of 2 claims met, 0 not met, 2 not measured (1 not enough paired sources, 1 graph not in the run)")


def test_a_paired_verdict_needs_enough_paired_sources(tmp_path):
    # hbf timed out on the 12 hardest of its 20 sources: 10% faster on the 8 easy ones says nothing of the rest
    easy = sorted(range(20), key=lambda source: DIFFICULTY[source])[:8]
    rows = timed("g1", "workfront", 1.0) + [
        solve("g1", "hbf", 0.9 * DIFFICULTY[source] / 1e3, source=source, device="gpu") if source in easy else
        solve("g1", "hbf", None, status="timeout", certificate=None, source=source, device="gpu")
        for source in range(20)]
    run = claiming_run(tmp_path, rows, faster_than=[{"variant": "hbf", "than": ["workfront"], "graphs": []}])
    judged = claim(judge(run), "g1")
    assert judged["verdict"] == "not measured" and judged["met"] is None
    assert judged["reason"] == "not enough paired sources: 8 of the 10 needed"
    assert (judged["variant_only"], judged["against_only"]) == (0, 12)
    assert judged["measured"] == pytest.approx(0.9)  # shown, never judged
    # half of what both ran: 12 of 40 sources is not enough even past the floor of 10
    rows = timed("g1", "workfront", 1.0, sources=range(40)) + timed("g1", "hbf", 0.9, sources=range(12))
    rows += [solve("g1", "hbf", None, status="error", certificate=None, source=source) for source in range(12, 40)]
    run = claiming_run(tmp_path / "forty", rows, faster_than=[{"variant": "hbf", "than": ["workfront"], "graphs": []}])
    assert claim(judge(run), "g1")["reason"] == "not enough paired sources: 12 of the 20 needed"
    assert "| 0/28 | not measured | - | not enough paired sources: 12 of the 20 needed |" in (
        write_report(run)["markdown"].read_text())


def test_a_sweep_is_picked_on_half_the_sources_and_judged_on_the_other_half(tmp_path):
    # hbf-x[k=1] is 30% faster than workfront on the even-indexed sources (half A) and no faster on the odd ones:
    # picked on half A, it must win on half B, which it does not; judged where it was picked it would have "won"
    rows = timed("g1", "workfront", 1.0)
    lucky = [{**row, "time_s": row["time_s"] * (0.7 if row["source_index"] % 2 == 0 else 1.0)}
             for row in timed("g1", "hbf", 1.0)]
    rows += named(lucky, "hbf-x[k=1]") + named(timed("g1", "hbf", 1.05), "hbf-x[k=2]")
    run = claiming_run(tmp_path, rows, faster_than=[{"variant": "hbf-x", "than": ["workfront"], "graphs": []}])
    judged = claim(judge(run), "g1")
    assert judged["variant"] == "hbf-x[k=1]"
    assert judged["selection"] == ("hbf-x: best of 2, picked on half A (10 sources, even source index), judged on "
                                   "half B (10)")
    assert judged["measured"] == pytest.approx(1.0) and judged["faster_on"] == "0/10"
    assert judged["verdict"] == "no clear difference" and not judged["met"]


def test_a_sweep_that_cannot_be_split_says_it_was_picked_in_sample(tmp_path):
    # every source at an even index: half B is empty, so the pick and the measure share their sources
    rows = with_floor(named(timed("g1", "hbf", 1.0, sources=range(0, 40, 2)), "hbf-x[k=1]"), floor_ms=0.6)
    rows += with_floor(named(timed("g1", "hbf", 2.0, sources=range(0, 40, 2)), "hbf-x[k=2]"), floor_ms=0.6)
    run = claiming_run(tmp_path, rows, efficiency={"hbf-x": {"g1": 0.5}})
    judged = claim(judge(run), "g1")
    assert judged["variant"] == "hbf-x[k=1]" and judged["selection"].endswith("picked in-sample (on the sources it "
                                                                              "is judged on: a half had no verified "
                                                                              "solve)")
    assert "in-sample" in write_report(run)["markdown"].read_text()


def test_a_claim_against_an_all_pairs_variant_says_so(tmp_path):
    # parDijkstra "outperforms even Floyd-Warshall": one source against all pairs, as the paper plots it
    rows = timed("g1", "pardijkstra", 1.0) + timed("g1", "floyd-warshall", 0.5)
    run = claiming_run(tmp_path, rows, faster_than=[{"variant": "pardijkstra", "than": ["floyd-warshall"],
                                                     "graphs": []}])
    judged = claim(judge(run), "g1")
    assert judged["all_pairs"] == "floyd-warshall" and judged["verdict"] == "slower"
    assert "pardijkstra faster than floyd-warshall (all pairs)" in format_claims(judge(run))


def test_a_claim_against_a_cpu_variant_says_whether_it_was_the_best_cpu_variant_run(tmp_path):
    # "delta-stepping-async beats cpu-dijkstra" says less when the run had a CPU delta-stepping 4x faster still
    def on_cpu(rows):
        return [{**row, "device": "cpu"} for row in rows]

    rows = (timed("g1", "hbf", 1.0) + on_cpu(timed("g1", "cpu-dijkstra", 20.0))
            + on_cpu(timed("g1", "cpu-delta-stepping", 5.0)) + on_cpu(timed("g1", "cpu-bfs", 0.5, kind="bfs"))
            + timed("g1", "workfront", 2.0))
    run = claiming_run(tmp_path, rows, faster_than=[
        {"variant": "hbf", "than": ["cpu-dijkstra", "cpu-delta-stepping", "workfront"], "graphs": []},
        {"variant": "cpu-delta-stepping", "than": ["cpu-dijkstra"], "graphs": []}])
    judged = judge(run)
    # one CPU implementation against another: whether either is the best CPU variant is beside the point
    assert claim(judged, "g1", "cpu-delta-stepping")["against_note"] == ""
    claims = judged[judged["variant"] == "hbf"].set_index("against")
    assert claims.loc["cpu-dijkstra", "against_note"] == (
        "not the best CPU variant run: cpu-delta-stepping was faster, 7.38 ms median against 29.5 ms")
    # the faster BFS variant solves another problem: cpu-delta-stepping is the best sssp one
    assert claims.loc["cpu-delta-stepping", "against_note"] == "the best CPU variant run"
    assert claims.loc["workfront", "against_note"] == ""  # a GPU variant: nothing to say
    text = format_claims(judge(run))
    assert "hbf faster than cpu-delta-stepping (the best CPU variant run)" in text
    assert "hbf faster than cpu-dijkstra (not the best CPU variant run: cpu-delta-stepping was faster" in text
    assert "hbf faster than workfront " in text
    assert "cpu-dijkstra (not the best CPU variant run" in write_report(run)["markdown"].read_text()


def test_a_run_without_claims_has_none(tmp_path):
    run = write_run(tmp_path / "r1", manifest("r1", baseline=None), timed("g1", "hbf", 1.0))
    assert judge(run).empty
    assert "claims" not in write_report(run) and "## Claims" not in (run / "report.md").read_text()


def test_the_report_and_the_cli_show_the_claims(tmp_path):
    rows = timed("g1", "workfront", 1.0) + timed("g1", "hbf", 0.9, jitter=0.03)
    run = claiming_run(tmp_path, rows, faster_than=[{"variant": "hbf", "than": ["workfront"], "graphs": []}])
    written = write_report(run)
    markdown = written["markdown"].read_text()
    assert "## Claims" in markdown and "| g1 | hbf faster than workfront | ratio 0.899 |" in markdown
    assert "1 of 1 claims met, 0 not met, 0 not measured." in markdown
    assert written["claims"].read_text().splitlines()[0].startswith("run_id,graph,stand_in_for,claim,variant")
    result = CliRunner().invoke(cli, ["report", str(run)])
    assert result.exit_code == 0, result.output
    assert "hbf faster than workfront" in result.output and "1 of 1 claims met" in result.output
