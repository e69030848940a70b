"""results/compare.py on small hand-written run directories: paired verdicts, run against run, unpaired, errors, CLI."""

import csv
import math

import pytest
from click.testing import CliRunner

from runs import DIFFICULTY, manifest, solve, timed, write_run
from sssp_bench.cli import cli
from sssp_bench.errors import UserError
from sssp_bench.report.text import format_comparison
from sssp_bench.results.compare import CompareOptions, compare_runs

def one_run(tmp_path, rows, run_id="r1"):
    return write_run(tmp_path / run_id, manifest(run_id, baseline=None), rows)


def only(comparison, graph="g1"):
    match = comparison[comparison["graph"] == graph]
    assert len(match) == 1
    return match.iloc[0]


def test_ratio_of_medians_by_hand(tmp_path):
    run = one_run(tmp_path, [solve("g1", "a", t, source=i) for i, t in enumerate([0.001, 0.002, 0.003])]
                  + [solve("g1", "b", t, source=i) for i, t in enumerate([0.002, 0.004, 0.006])])
    three = CompareOptions(min_pairs=3)  # by hand: three sources, a verdict allowed on three pairs
    row = only(compare_runs(run, between=("a", "b"), options=three))
    assert row["base_median_ms"] == pytest.approx(2.0) and row["new_median_ms"] == pytest.approx(4.0)
    assert row["ratio"] == pytest.approx(2.0)
    assert row["new_faster_on"] == "0/3" and row["pairs"] == 3 and row["paired"]
    assert row["verdict"] == "slower"  # every resample of three doubled pairs is exactly 2


def test_a_ten_percent_win_hidden_in_the_spread_of_sources_is_found(tmp_path):
    # The sources' own spread (IQR ~ 0.5 ms on a 1.5 ms median) dwarfs the 10% difference; pairing sees it.
    run = one_run(tmp_path, timed("g1", "workfront", 1.0) + timed("g1", "hbf", 0.9, jitter=0.03))
    row = only(compare_runs(run, between=("workfront", "hbf")))
    assert row["ratio"] == pytest.approx(0.9, abs=0.03)
    assert row["ci_high"] < 1.0 and row["new_faster_on"] == "20/20"
    assert row["sign_test_p"] < 1e-5
    assert row["verdict"] == "faster"


def test_noise_alone_is_no_clear_difference(tmp_path):
    run = one_run(tmp_path, timed("g1", "a", 1.0, jitter=0.05) + timed("g1", "b", 1.0, jitter=-0.05))
    row = only(compare_runs(run, between=("a", "b")))
    assert row["ci_low"] < 1.0 < row["ci_high"]
    assert row["verdict"] == "no clear difference"


def test_a_change_below_min_change_is_not_called(tmp_path):
    run = one_run(tmp_path, timed("g1", "a", 1.0) + timed("g1", "b", 0.99))
    assert only(compare_runs(run, between=("a", "b")))["verdict"] == "no clear difference"
    tight = CompareOptions(min_change=0.0)
    assert only(compare_runs(run, between=("a", "b"), options=tight))["verdict"] == "faster"


def test_only_verified_solves_count(tmp_path):
    wrong = [solve("g1", "b", 1e-6, status="wrong_answer", certificate=False, source=i) for i in range(20, 40)]
    unchecked = [solve("g1", "b", 1e-6, certificate=None, source=i) for i in range(40, 60)]
    run = one_run(tmp_path, timed("g1", "a", 1.0) + timed("g1", "b", 1.0) + wrong + unchecked)
    row = only(compare_runs(run, between=("a", "b")))
    assert row["new_solves"] == 20 and row["ratio"] == pytest.approx(1.0)


def test_two_runs_compare_every_shared_graph_and_variant(tmp_path):
    before = one_run(tmp_path, timed("g1", "hbf", 1.0, run_id="before") + timed("g2", "hbf", 1.0, run_id="before")
                     + timed("g1", "only-before", 1.0, run_id="before"), run_id="before")
    after = one_run(tmp_path, timed("g1", "hbf", 1.2, run_id="after") + timed("g2", "hbf", 0.8, run_id="after"),
                    run_id="after")
    comparison = compare_runs([before, after])
    assert list(comparison["base"]) == ["before/hbf", "before/hbf"]
    assert list(comparison["new"]) == ["after/hbf", "after/hbf"]
    assert only(comparison, "g1")["verdict"] == "slower" and only(comparison, "g2")["verdict"] == "faster"
    assert list(compare_runs([before, after], graphs=["g2"])["graph"]) == ["g2"]


def test_runs_with_different_sources_are_compared_unpaired(tmp_path):
    before = one_run(tmp_path, timed("g1", "hbf", 1.0, run_id="x"), run_id="x")
    after = one_run(tmp_path, timed("g1", "hbf", 0.5, run_id="y", sources=range(100, 120)), run_id="y")
    row = only(compare_runs([before, after]))
    assert not row["paired"] and row["pairs"] == 0 and row["new_faster_on"] == ""
    assert row["ratio"] == pytest.approx(0.5) and row["verdict"] == "faster"
    assert "unpaired" in format_comparison(compare_runs([before, after]))


def test_too_few_solves_get_no_verdict(tmp_path):
    run = one_run(tmp_path, timed("g1", "a", 1.0, sources=range(2)) + timed("g1", "b", 0.5, sources=range(2)))
    assert only(compare_runs(run, between=("a", "b")))["verdict"] == "not enough data"


def test_a_side_that_failed_the_hard_sources_is_not_judged_on_the_easy_ones(tmp_path):
    # b times out on the 14 hardest of 20 sources and is 30% faster on the 6 easy ones: that says nothing of the
    # hard ones, so there is no verdict, and the table says which side verified what the other did not
    easy = sorted(range(20), key=lambda source: DIFFICULTY[source])[:6]
    rows = timed("g1", "a", 1.0) + [
        solve("g1", "b", 0.7 * DIFFICULTY[source] / 1e3, source=source) if source in easy else
        solve("g1", "b", None, status="timeout", certificate=None, source=source) for source in range(20)]
    run = one_run(tmp_path, rows)
    row = only(compare_runs(run, between=("a", "b")))
    assert row["pairs"] == 6 and row["pairs_needed"] == 10 and row["verdict"] == "not enough data"
    assert (row["base_ran"], row["new_ran"], row["base_only"], row["new_only"]) == (20, 20, 14, 0)
    assert row["ratio"] == pytest.approx(0.7) and math.isnan(row["ci_low"])
    # half of what both ran: 12 pairs of 40 sources are too few, past the floor of 10 though they are
    failing = [solve("g1", "b", None, status="error", certificate=None, source=source, run_id="wide")
               for source in range(12, 40)]
    wide = one_run(tmp_path, timed("g1", "a", 1.0, sources=range(40), run_id="wide")
                   + timed("g1", "b", 0.7, sources=range(12), run_id="wide") + failing, run_id="wide")
    assert only(compare_runs(wide, between=("a", "b")))["pairs_needed"] == 20
    # a side that ran the first 12 sources by design (`sources: 12`) is a fair sample of them: judged
    sample = one_run(tmp_path, timed("g1", "a", 1.0, sources=range(40), run_id="sample")
                     + timed("g1", "b", 0.7, sources=range(12), run_id="sample"), run_id="sample")
    judged = only(compare_runs(sample, between=("a", "b")))
    assert (judged["both_ran"], judged["pairs_needed"], judged["verdict"]) == (12, 10, "faster")
    # the minimum is an option: the same six pairs judged where six are allowed
    loose = CompareOptions(min_pairs=6, min_pair_fraction=0.3)
    assert only(compare_runs(run, between=("a", "b"), options=loose))["verdict"] == "faster"
    result = CliRunner().invoke(cli, ["compare", str(run), "--between", "a", "b"])
    assert result.exit_code == 0, result.output
    assert "6 (need 10)" in result.output and "14/0" in result.output and "not enough data" in result.output
    result = CliRunner().invoke(cli, ["compare", str(run), "--between", "a", "b", "--min-pairs", "6",
                                      "--min-pair-fraction", "0.3"])
    assert result.exit_code == 0 and "faster" in result.output
    mistake = CliRunner().invoke(cli, ["compare", str(run), "--between", "a", "b", "--min-pairs", "0"])
    assert mistake.exit_code == 2 and "--min-pairs" in mistake.output and "Traceback" not in mistake.output


def test_mistakes_are_one_line_errors(tmp_path):
    run = one_run(tmp_path, timed("g1", "a", 1.0) + timed("g2", "b", 1.0))
    with pytest.raises(UserError, match="needs two runs"):
        compare_runs(run)
    with pytest.raises(UserError, match="no verified solves of 'c'.*variants: a, b"):
        compare_runs(run, between=("a", "c"))
    with pytest.raises(UserError, match="nothing to compare"):
        compare_runs(run, between=("a", "b"))  # never on the same graph
    with pytest.raises(UserError, match="graph 'g9'"):
        compare_runs(run, between=("a", "b"), graphs=["g9"])
    with pytest.raises(UserError, match="min-change"):
        CompareOptions(min_change=1.5)


def test_cli_prints_the_table_writes_csv_and_can_fail_on_slower(tmp_path):
    run = one_run(tmp_path, timed("g1", "workfront", 1.0) + timed("g1", "hbf", 1.3))
    out_csv = tmp_path / "comparison.csv"
    result = CliRunner().invoke(cli, ["compare", str(run), "--between", "workfront", "hbf", "--csv", str(out_csv)])
    assert result.exit_code == 0, result.output
    assert "slower" in result.output and "20 / 20" not in result.output and "0/20" in result.output
    with out_csv.open() as handle:
        rows = list(csv.DictReader(handle))
    assert rows[0]["verdict"] == "slower" and float(rows[0]["ratio"]) == pytest.approx(1.3)
    failing = CliRunner().invoke(cli, ["compare", str(run), "--between", "workfront", "hbf", "--fail-on-slower"])
    assert failing.exit_code == 1
    mistake = CliRunner().invoke(cli, ["compare", str(run)])
    assert mistake.exit_code == 2 and "needs two runs" in mistake.output and "Traceback" not in mistake.output


ROAD = {"n": 264346, "m": 735180, "directed": False, "weighted": True, "provenance": {}, "weights": "keep",
        "per_graph_cache": {"graph_sha256": "9c33128e" + "0" * 56}}
STAND_IN = {**ROAD, "stand_in_for": "USA-road-d.NY", "stand_in": "road:n=264346,degree=2.78,seed=1",
            "per_graph_cache": {"graph_sha256": "ec0d3744" + "0" * 56}}


def road_run(tmp_path, run_id, record, seconds):
    return write_run(tmp_path / run_id, manifest(run_id, baseline=None, graphs={"USA-road-d.NY": record}),
                     timed("USA-road-d.NY", "hbf", seconds, run_id=run_id))


def test_a_run_of_the_stand_in_is_never_compared_with_a_run_of_the_real_graph_under_its_label(tmp_path):
    # what happened on the device: a run without the dataset cache ran the stand-in, labelled USA-road-d.NY
    real, stand_in = road_run(tmp_path, "real", ROAD, 1.3), road_run(tmp_path, "stand-in", STAND_IN, 1.0)
    row = only(compare_runs([stand_in, real]), "USA-road-d.NY")
    assert row["verdict"] == "different graphs" and math.isnan(row["ratio"]) and math.isnan(row["ci_low"])
    assert row["note"] == "base ran the stand-in road:n=264346,degree=2.78,seed=1, new the real graph"
    assert "not compared, the runs ran different graphs" in format_comparison(compare_runs([stand_in, real]))


@pytest.mark.parametrize("change, note", [
    ({"m": 735181}, "m differs"),
    ({"weights": {"spec": "uniform:max=101,min=1,seed=1"}}, "weights differs"),
    ({"per_graph_cache": {"graph_sha256": "f" * 64}}, "the graph files differ (sha256 9c33128e0000 against ffff"),
])
def test_two_runs_whose_graph_differs_in_size_weights_or_content_are_not_compared(tmp_path, change, note):
    before, after = road_run(tmp_path, "before", ROAD, 1.0), road_run(tmp_path, "after", {**ROAD, **change}, 1.0)
    row = only(compare_runs([before, after]), "USA-road-d.NY")
    assert row["verdict"] == "different graphs" and row["note"].startswith(note)


def test_the_same_graph_recorded_without_a_digest_on_one_side_is_compared(tmp_path):
    older = {key: value for key, value in ROAD.items() if key != "per_graph_cache"}  # a run from before the cache
    before, after = road_run(tmp_path, "before", older, 1.0), road_run(tmp_path, "after", ROAD, 1.3)
    row = only(compare_runs([before, after]), "USA-road-d.NY")
    assert row["verdict"] == "slower" and row["note"] == ""


def test_the_regression_gate_fails_on_different_graphs(tmp_path):
    real, stand_in = road_run(tmp_path, "real", ROAD, 1.0), road_run(tmp_path, "stand-in", STAND_IN, 1.0)
    result = CliRunner().invoke(cli, ["compare", str(real), str(stand_in), "--fail-on-slower"])
    assert result.exit_code == 1 and "different graphs" in result.output
    assert CliRunner().invoke(cli, ["compare", str(real), str(stand_in)]).exit_code == 0  # no gate: the table only
