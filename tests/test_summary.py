"""results/summary.py: one row per graph and variant, numbers checked by hand; speedups over the baseline the
config names, speed targets, stand-ins."""

import math

import pytest

from runs import manifest, row_of, solve, standard_rows, write_run
from sssp_bench.results.summary import summarize


def test_statistics_by_hand(tmp_path):
    summary = summarize(write_run(tmp_path / "r1", manifest("r1"), standard_rows()))
    base = row_of(summary, "g1", "cpu-dijkstra")
    assert base.verified_total == "4/4"
    assert base.time_median_ms == pytest.approx(25.0)
    assert base.time_min_ms == pytest.approx(10.0)
    assert base.time_iqr_ms == pytest.approx(15.0)  # q75 32.5 - q25 17.5, linear interpolation
    assert base.speedup == pytest.approx(1.0)
    assert base.prepare_ms == pytest.approx(2.0)
    assert base.mteps_median == pytest.approx((0.05 + 1 / 30) / 2)  # median of 0.1, 0.05, 0.0333, 0.025

    gpu = row_of(summary, "g1", "gpu-x")
    # The wrong answer and the unchecked solve are counted but never timed: median stays 3 ms, not 2.5.
    assert (gpu.solves, gpu.verified, gpu.verified_total) == (7, 5, "5/7")
    assert gpu.time_median_ms == pytest.approx(3.0)
    assert gpu.time_min_ms == pytest.approx(1.0)
    assert gpu.time_iqr_ms == pytest.approx(2.0)
    assert gpu.end_to_end_median_ms == pytest.approx(4.5)
    assert gpu.mteps_median == pytest.approx(1000 / 0.003 / 1e6)
    assert gpu.reached_arcs_median == 1000
    # the baseline verified sources 0-3 only: both medians over those four, 25 ms / 2.5 ms, not 25 / 3
    assert gpu.speedup == pytest.approx(10.0) and gpu.speedup_sources == "4/5"
    assert base.speedup_sources == "4/4" and not gpu.all_pairs
    assert gpu.baseline == "cpu-dijkstra"
    assert gpu.prepare_ms == pytest.approx(500.0)
    assert gpu.n_wrong_answer == 1 and gpu.n_unchecked == 1 and gpu.n_timeout == 0
    assert "wrong_answer 1" in gpu.failures and "unchecked 1" in gpu.failures


def test_failed_baseline_leaves_speedup_empty(tmp_path):
    summary = summarize(write_run(tmp_path / "r1", manifest("r1"), standard_rows()))
    base = row_of(summary, "g2", "cpu-dijkstra")
    assert base.verified_total == "0/2" and base.n_timeout == 2
    assert math.isnan(base.time_median_ms) and math.isnan(base.speedup)
    gpu = row_of(summary, "g2", "gpu-x")
    assert gpu.time_median_ms == pytest.approx(2.0)
    assert math.isnan(gpu.speedup)
    assert "no verified solve" in gpu.speedup_note


def test_each_problem_kind_is_divided_by_its_own_baseline(tmp_path):
    # g1 is weighted: BFS levels are not SSSP distances there, so BFS variants need a BFS baseline
    rows = [solve("g1", "cpu-dijkstra", 0.010), solve("g1", "gpu-x", 0.002, device="gpu"),
            solve("g1", "cpu-bfs", 0.004, kind="bfs"), solve("g1", "gpu-bfs", 0.001, kind="bfs", device="gpu")]
    per_kind = {"sssp": "cpu-dijkstra", "bfs": "cpu-bfs"}
    summary = summarize(write_run(tmp_path / "r1", manifest("r1", baseline=per_kind), rows))
    assert row_of(summary, "g1", "gpu-x").speedup == pytest.approx(5.0)
    assert row_of(summary, "g1", "gpu-x").baseline == "cpu-dijkstra"
    assert row_of(summary, "g1", "gpu-bfs").speedup == pytest.approx(4.0)
    assert row_of(summary, "g1", "gpu-bfs").baseline == "cpu-bfs"
    assert row_of(summary, "g1", "cpu-bfs").speedup == pytest.approx(1.0)

    # one name means what it always meant: every kind over it, so BFS on a weighted graph gets none
    one = summarize(write_run(tmp_path / "r2", manifest("r2", baseline="cpu-dijkstra"), rows))
    assert math.isnan(row_of(one, "g1", "gpu-bfs").speedup)
    assert row_of(one, "g1", "gpu-bfs").speedup_note == "baseline solves sssp, this solves bfs (weighted graph)"

    # a kind the mapping does not name gets no speedup, and says so
    sssp_only = summarize(write_run(tmp_path / "r3", manifest("r3", baseline={"sssp": "cpu-dijkstra"}), rows))
    assert row_of(sssp_only, "g1", "gpu-bfs").speedup_note == "no bfs baseline configured (baseline: sssp: cpu-dijkstra)"


def test_missing_baseline_rows_leave_speedup_empty(tmp_path):
    rows = [solve("g1", "gpu-x", 0.002, device="gpu")]
    summary = summarize(write_run(tmp_path / "r1", manifest("r1"), rows))
    assert math.isnan(summary.iloc[0].speedup)
    assert "did not run" in summary.iloc[0].speedup_note


def test_reference_mismatch_is_not_verified(tmp_path):
    rows = [solve("g1", "cpu-dijkstra", 0.01), solve("g1", "cpu-dijkstra", 0.02, reference=False),
            solve("g1", "cpu-dijkstra", 0.03, reference=True)]
    summary = summarize(write_run(tmp_path / "r1", manifest("r1"), rows))
    row = summary.iloc[0]
    assert row.verified_total == "2/3" and row.n_reference_mismatch == 1
    assert row.time_median_ms == pytest.approx(20.0)  # median of 10 and 30


def test_swept_variants_and_one_graph(tmp_path):
    rows = [solve("g1", "cpu-dijkstra", 0.012)]
    rows += [solve("g1", "hbf", 0.003, variant="hbf[dedup64=false]", device="gpu"),
             solve("g1", "hbf", 0.004, variant="hbf[dedup64=true]", device="gpu")]
    summary = summarize(write_run(tmp_path / "r1", manifest("r1"), rows))
    assert list(summary["variant"]) == ["cpu-dijkstra", "hbf[dedup64=false]", "hbf[dedup64=true]"]
    assert row_of(summary, "g1", "hbf[dedup64=false]").speedup == pytest.approx(4.0)
    assert row_of(summary, "g1", "hbf[dedup64=true]").implementation == "hbf"


def test_speed_targets_without_a_matching_gpu_are_not_checked(tmp_path):
    targets = {"source": "t", "paper_bandwidth_gbs": 288.0, "device_bandwidth_gbs": {"H100": 3350.0},
               "mteps": {"g1": {"gpu-x": 0.01}}}
    summary = summarize(write_run(tmp_path / "r1", manifest("r1", config={"name": "u", "targets": targets}),
                                  standard_rows()))
    assert row_of(summary, "g1", "gpu-x")["target_met"] is None


def test_rows_alone_mark_a_stand_in_when_the_manifest_is_older(tmp_path):
    rows = [dict(solve("g1", "cpu-dijkstra", 0.01), stand_in_for="asia.osm", stand_in="road:n=400")]
    summary = summarize(write_run(tmp_path / "r1", manifest("r1"), rows))
    assert row_of(summary, "g1", "cpu-dijkstra")["stand_in"] == "road:n=400"


def test_a_speedup_divides_medians_over_the_sources_both_verified(tmp_path):
    # the baseline ran the first 3 sources (`sources: 3`), the GPU variant all 20, the later sources 10x harder:
    # medians over different sources would divide an easy median by a hard one
    rows = [solve("g1", "cpu-dijkstra", 0.010 * (1 + source), source=source) for source in range(3)]
    rows += [solve("g1", "gpu-x", 0.001 * (1 + source) * (10 if source >= 3 else 1), device="gpu", source=source)
             for source in range(20)]
    summary = summarize(write_run(tmp_path / "r1", manifest("r1"), rows))
    gpu = row_of(summary, "g1", "gpu-x")
    assert gpu.time_median_ms == pytest.approx(105.0)  # the variant's own median is over all 20 of its sources
    assert gpu.speedup == pytest.approx(20.0 / 2.0) and gpu.speedup_sources == "3/20"
    # runs that share no source (another seed): the whole medians, marked 0 of n
    other = [{**row, "source": row["source"] + 100} for row in rows if row["variant"] == "gpu-x"]
    apart = summarize(write_run(tmp_path / "r2", manifest("r2"),
                                [{**row, "run_id": "r2"} for row in rows[:3] + other]))
    assert row_of(apart, "g1", "gpu-x").speedup == pytest.approx(20.0 / 105.0)
    assert row_of(apart, "g1", "gpu-x").speedup_sources == "0/20"


def test_an_all_pairs_variant_is_marked_and_never_divides_others(tmp_path):
    # floyd-warshall's solve computes all pairs: its time sits beside single-source times only when marked
    rows = [solve("g1", "cpu-dijkstra", 0.010, source=source) for source in range(10)]
    rows += [solve("g1", "floyd-warshall", 0.050, device="gpu", source=source) for source in range(10)]
    summary = summarize(write_run(tmp_path / "r1", manifest("r1"), rows))
    fw = row_of(summary, "g1", "floyd-warshall")
    assert fw.all_pairs and not row_of(summary, "g1", "cpu-dijkstra").all_pairs
    assert fw.speedup == pytest.approx(0.2)  # computed, and marked wherever it is shown (test_report.py)
    as_baseline = summarize(write_run(tmp_path / "r2", manifest("r2", baseline="floyd-warshall"),
                                      [{**row, "run_id": "r2"} for row in rows]))
    dijkstra = row_of(as_baseline, "g1", "cpu-dijkstra")
    assert math.isnan(dijkstra.speedup)
    assert dijkstra.speedup_note == "baseline floyd-warshall solves all pairs in each solve"


def test_each_gpu_variant_is_also_divided_by_the_best_cpu_variant(tmp_path):
    # the paper's baseline (cpu-dijkstra, 40 ms) beside the fastest CPU variant that verified sssp on the graph:
    # cpu-delta-stepping (8 ms, on the first 5 sources only); a faster BFS, a faster all-pairs one and a failing
    # one are never the best sssp CPU variant
    rows = [solve("g1", "cpu-dijkstra", 0.040, source=source) for source in range(10)]
    rows += [solve("g1", "cpu-delta-stepping", 0.008 * (1 + source), source=source) for source in range(5)]
    rows += [solve("g1", "cpu-bfs", 0.001, kind="bfs", source=source) for source in range(10)]
    rows += [solve("g1", "floyd-warshall", 0.002, source=source) for source in range(10)]
    rows += [solve("g1", "cpu-bellman-ford", None, status="timeout", certificate=None, source=source)
             for source in range(10)]
    rows += [solve("g1", "gpu-x", 0.001 * (1 + source), device="gpu", source=source) for source in range(10)]
    summary = summarize(write_run(tmp_path / "r1", manifest("r1"), rows))
    gpu = row_of(summary, "g1", "gpu-x")
    assert gpu.speedup == pytest.approx(40.0 / 5.5)  # over the paper's baseline, every source
    assert (gpu.best_cpu, gpu.best_cpu_run_id) == ("cpu-delta-stepping", "r1")
    assert gpu.best_cpu_speedup == pytest.approx(24.0 / 3.0) and gpu.best_cpu_sources == "5/10"  # sources 0-4
    for cpu in ("cpu-dijkstra", "cpu-delta-stepping", "cpu-bfs", "floyd-warshall"):
        row = row_of(summary, "g1", cpu)  # only GPU variants get one
        assert math.isnan(row.best_cpu_speedup) and row.best_cpu == "" and row.best_cpu_sources == ""

    # a GPU-only run merged with one that measured the CPU variants borrows the best of those
    gpu_only = [{**row, "run_id": "r2"} for row in rows if row["device"] == "gpu"]
    merged = summarize([write_run(tmp_path / "r1", manifest("r1"), rows),
                        write_run(tmp_path / "r2", manifest("r2"), gpu_only)])
    borrowed = row_of(merged, "g1", "r2/gpu-x")
    assert (borrowed.best_cpu, borrowed.best_cpu_run_id) == ("cpu-delta-stepping", "r1")
    # a kind no CPU variant verified gets none
    alone = summarize(write_run(tmp_path / "r3", manifest("r3"), [{**row, "run_id": "r3"} for row in gpu_only]))
    assert math.isnan(row_of(alone, "g1", "gpu-x").best_cpu_speedup) and row_of(alone, "g1", "gpu-x").best_cpu == ""
