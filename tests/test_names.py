"""results/names.py: the one rule that turns a name in a config or on the command line into the variants it stands
for, and every consumer of it agreeing: the config's checks, `run --variant`, speed targets, the baseline, claims."""

import math
import re
import textwrap

import pytest

from runs import manifest, row_of, solve, timed, write_run
from sssp_bench.errors import ConfigError
from sssp_bench.report import write_report
from sssp_bench.results.claims import judge
from sssp_bench.results.names import name_for, stands_for
from sssp_bench.results.summary import summarize
from sssp_bench.run.config import parse_config, select_variants

# bfs4k-table2's shape: a tuned entry labelled with its implementation's name, the defaults under another label.
VARIANTS = {"cpu-bfs": "cpu-bfs", "bfs-vwarp[warp_size=1]": "bfs-vwarp", "bfs-vwarp[warp_size=16]": "bfs-vwarp",
            "bfs4k-defaults": "bfs4k", "bfs4k": "bfs4k", "bfs4k-x[k1=4]": "bfs4k", "bfs4k-x[k1=32]": "bfs4k"}

# The brief's example: a labelled entry sweeping a parameter, whose label is none of its variants' names.
SWEPT_LABEL = """
    graphs: [{graph: "grid:rows=4,cols=4", label: g1}]
    implementations:
      - cpu-dijkstra
      - {name: hbf, label: hbf-x, params: {tdp: [64, 128]}}
"""


@pytest.mark.parametrize("name, variants", [
    ("bfs4k-defaults", ["bfs4k-defaults"]),                                  # a variant: itself
    ("bfs-vwarp[warp_size=16]", ["bfs-vwarp[warp_size=16]"]),
    ("bfs4k-x", ["bfs4k-x[k1=4]", "bfs4k-x[k1=32]"]),                        # a label: its entry's sweep
    ("bfs-vwarp", ["bfs-vwarp[warp_size=1]", "bfs-vwarp[warp_size=16]"]),    # an implementation's sweep
    ("bfs4k", ["bfs4k"]),                  # a variant never also stands for its implementation's other variants
    ("bfs4k-x[k1=", []), ("bfs", []), ("hbf", []),
])
def test_a_name_stands_for_the_variants_the_first_rule_finds(name, variants):
    assert stands_for(name, VARIANTS) == variants


def test_of_several_names_the_one_found_by_the_earlier_rule_sets_a_variants_target():
    goals = {"bfs-vwarp": 1.0, "bfs-vwarp[warp_size=16]": 2.0}
    assert name_for("bfs-vwarp[warp_size=16]", goals, VARIANTS) == "bfs-vwarp[warp_size=16]"
    assert name_for("bfs-vwarp[warp_size=1]", goals, VARIANTS) == "bfs-vwarp"
    assert name_for("bfs4k-defaults", {"bfs4k": 1.0}, VARIANTS) is None


def test_an_mteps_target_keyed_by_a_swept_label_is_checked_on_each_of_its_variants(tmp_path):
    # It passed the config's checks before, but the report looked it up as "hbf-x[tdp=64]", then as "hbf": never.
    config = parse_config(textwrap.dedent(SWEPT_LABEL) + "targets: {paper_bandwidth_gbs: 288, "
                          "device_bandwidth_gbs: {H200: 4800}, mteps: {g1: {hbf-x: 0.01}}}\n", "x.yaml")
    assert [variant.name for variant in config.variants] == ["cpu-dijkstra", "hbf-x[tdp=64]", "hbf-x[tdp=128]"]
    run_manifest = manifest("r1", config=config.raw)
    run_manifest["provenance"]["gpu"] = {"available": True, "name": "NVIDIA H200"}
    rows = [solve("g1", variant.implementation, 0.003, variant=variant.name) for variant in config.variants]
    run = write_run(tmp_path / "r1", run_manifest, rows)
    summary = summarize(run)
    for swept in ("hbf-x[tdp=64]", "hbf-x[tdp=128]"):
        assert row_of(summary, "g1", swept).target_mteps == pytest.approx(0.01 * 4800 / 288)
        assert row_of(summary, "g1", swept).target_met is True  # 1000 arcs in 3 ms: 0.333 MTEPS
    assert math.isnan(row_of(summary, "g1", "cpu-dijkstra").target_mteps)
    markdown = write_report(run)["markdown"].read_text()
    assert "| g1 | hbf-x[tdp=64] | 0.01 | 0.167 | 0.333 | yes |" in markdown
    assert "| g1 | hbf-x[tdp=128] | 0.01 | 0.167 | 0.333 | yes |" in markdown


@pytest.mark.parametrize("name", ["cpu-dijkstra", "hbf-x", "hbf-x[tdp=64]", "hbf", "hbf-x[tdp=", "hbf-", "lonestar"])
def test_the_config_accepts_exactly_the_target_names_the_report_resolves(tmp_path, name):
    text = textwrap.dedent(SWEPT_LABEL) + f"targets: {{paper_bandwidth_gbs: 288, mteps: {{g1: {{'{name}': 1.0}}}}}}\n"
    variants = {"cpu-dijkstra": "cpu-dijkstra", "hbf-x[tdp=64]": "hbf", "hbf-x[tdp=128]": "hbf"}
    if not stands_for(name, variants):
        with pytest.raises(ConfigError, match=re.escape(f"targets.mteps.g1.{name}: not an implementation of this")):
            parse_config(text, "x.yaml")
        return
    config = parse_config(text, "x.yaml")
    rows = [solve("g1", variant.implementation, 0.003, variant=variant.name) for variant in config.variants]
    summary = summarize(write_run(tmp_path / "r1", manifest("r1", config=config.raw), rows))
    markdown = write_report(tmp_path / "r1")["markdown"].read_text()
    for variant in variants:
        assert (f"| g1 | {variant} | 1 |" in markdown) == (variant in stands_for(name, variants)), variant
    assert len(summary) == 3


def test_the_baseline_may_be_any_name_that_stands_for_exactly_one_variant():
    config = parse_config(textwrap.dedent("""
        graphs: ["grid:rows=4,cols=4"]
        implementations:
          - {name: cpu-bf-queue, label: spfa-quiet}
          - {name: cpu-bf, params: {count_relaxations: [false, true]}}
        baseline: cpu-bf-queue
    """), "x.yaml")
    assert config.baseline == "cpu-bf-queue"
    refused = ("baseline: 'cpu-bf' stands for 2 variants (cpu-bf[count_relaxations=false], "
               "cpu-bf[count_relaxations=true]); name one of them")
    with pytest.raises(ConfigError, match=re.escape(refused)):
        parse_config('graphs: ["grid:rows=4"]\nimplementations: [{name: cpu-bf, params: {count_relaxations: '
                     '[false, true]}}]\nbaseline: cpu-bf\n', "x.yaml")


def test_the_report_resolves_the_baseline_by_the_same_rule(tmp_path):
    rows = ([solve("g1", "cpu-bf-queue", 0.020, variant="spfa-quiet"), solve("g1", "hbf", 0.002, device="gpu")]
            + [solve("g2", "cpu-bf", t, variant=f"cpu-bf[count_relaxations={flag}]")
               for t, flag in ((0.01, "false"), (0.02, "true"))] + [solve("g2", "hbf", 0.002, device="gpu")])
    summary = summarize([write_run(tmp_path / "a", manifest("a", baseline="cpu-bf-queue"), rows[:2]),
                         write_run(tmp_path / "b", manifest("b", baseline="cpu-bf"), rows[2:])])
    assert row_of(summary, "g1", "hbf").baseline == "spfa-quiet"      # an implementation standing for one variant
    assert row_of(summary, "g1", "hbf").speedup == pytest.approx(10.0)
    assert math.isnan(row_of(summary, "g2", "hbf").speedup)            # one standing for two picks neither
    assert row_of(summary, "g2", "hbf").speedup_note == (
        "baseline cpu-bf stands for several variants on this graph (cpu-bf[count_relaxations=false], "
        "cpu-bf[count_relaxations=true])")


SELECTABLE = """
    graphs: ["grid:rows=4,cols=4"]
    implementations:
      - cpu-dijkstra
      - {name: cpu-bf-queue, label: spfa-quiet}
      - {name: cpu-bf-queue, label: spfa-sweep, params: {count_relaxations: [false, true]}}
      - {name: cpu-bf, params: {count_relaxations: [false, true]}}
      - cpu-bf
"""


def selected(*names):
    """The variants `run --variant NAME ...` keeps of SELECTABLE."""
    config = select_variants(parse_config(textwrap.dedent(SELECTABLE), "x.yaml"), list(names))
    return [variant.name for variant in config.variants]


def test_run_variant_takes_what_the_name_stands_for():
    assert selected("spfa-sweep") == ["spfa-sweep[count_relaxations=false]", "spfa-sweep[count_relaxations=true]"]
    assert selected("cpu-bf-queue") == ["spfa-quiet", "spfa-sweep[count_relaxations=false]",
                                        "spfa-sweep[count_relaxations=true]"]  # an implementation: all its variants
    assert selected("cpu-bf") == ["cpu-bf"]  # a variant of that name, not also its implementation's sweep
    assert selected("cpu-bf", "cpu-dijkstra") == ["cpu-dijkstra", "cpu-bf"]  # in the config's order
    with pytest.raises(ConfigError, match=r"no variant named 'spfa' \(variants: cpu-dijkstra, spfa-quiet, "):
        selected("spfa")


def test_a_claim_on_a_swept_label_is_judged_on_its_fastest_variant(tmp_path):
    config = parse_config(textwrap.dedent(SWEPT_LABEL) + "targets: {faster_than: [{variant: hbf-x, "
                          "than: [cpu-dijkstra]}]}\n", "x.yaml")
    rows = (timed("g1", "cpu-dijkstra", 1.0) + [{**row, "variant": "hbf-x[tdp=64]"} for row in timed("g1", "hbf", 0.8)]
            + [{**row, "variant": "hbf-x[tdp=128]"} for row in timed("g1", "hbf", 0.5)])
    claims = judge(write_run(tmp_path / "r1", manifest("r1", baseline=None, config=config.raw), rows))
    assert list(claims["variant"]) == ["hbf-x[tdp=128]"] and list(claims["met"]) == [True]
