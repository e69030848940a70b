"""Configs are checked before anything runs; every refusal names the file, the line, the key and what is allowed."""

import textwrap

import pytest

from sssp_bench.run.config import load_config, parse_config
from sssp_bench.errors import ConfigError, UserError

MINIMAL = """
graphs: ["grid:rows=4,cols=4"]
implementations: [cpu-dijkstra]
"""


BOTH_KINDS = """
graphs: ["grid:rows=4,cols=4"]
implementations: [cpu-dijkstra, cpu-bf-queue, cpu-bfs]
"""


def config_from(text, path="x.yaml"):
    return parse_config(textwrap.dedent(text), path)


def test_minimal_config_gets_documented_defaults():
    config = config_from(MINIMAL)
    assert config.source_count == 100 and config.source_seed == 1 and config.min_reached is None
    assert config.repetitions == 1 and config.warmup == 1 and config.time_limit == 600
    assert config.reference == "auto" and config.reference_sources == 10
    assert config.baseline == "cpu-dijkstra"
    assert [variant.name for variant in config.variants] == ["cpu-dijkstra"]
    assert config.graphs[0].label == "grid:rows=4,cols=4" and config.graphs[0].weights == "keep"


def test_a_baseline_per_problem_kind_divides_each_kind_by_its_own():
    per_kind = config_from(BOTH_KINDS + "baseline: {sssp: cpu-dijkstra, bfs: cpu-bfs}\n")
    assert per_kind.baseline == {"sssp": "cpu-dijkstra", "bfs": "cpu-bfs"} and per_kind.raw["name"] == "run"
    assert config_from(BOTH_KINDS + "baseline: cpu-dijkstra\n").baseline == "cpu-dijkstra"  # as it always meant
    # without a baseline: Dijkstra for SSSP and, where it runs, the sequential BFS for BFS
    assert config_from(BOTH_KINDS).baseline == {"sssp": "cpu-dijkstra", "bfs": "cpu-bfs"}
    assert config_from(MINIMAL).baseline == "cpu-dijkstra"


def test_a_list_of_values_sweeps_a_parameter():
    config = config_from("""
        graphs: ["grid:rows=4,cols=4"]
        implementations:
          - cpu-dijkstra
          - {name: cpu-bf-queue, params: {count_relaxations: [false, true]}}
    """)
    assert [variant.name for variant in config.variants] == [
        "cpu-dijkstra", "cpu-bf-queue[count_relaxations=false]", "cpu-bf-queue[count_relaxations=true]"]
    assert config.variants[2].params == {"count_relaxations": True}


def test_graph_entries_take_a_label_and_their_own_weights():
    config = config_from("""
        graphs:
          - {graph: "rmat:n=64,m=256", label: small, weights: "uniform:min=1,max=10,seed=3"}
        implementations: [cpu-dijkstra]
        weights: unit
    """)
    assert config.graphs[0].label == "small" and config.graphs[0].weights == "uniform:min=1,max=10,seed=3"


def test_targets_hold_the_papers_mteps_and_the_bandwidths_to_scale_them():
    config = config_from("""
        graphs: [{graph: "rmat:n=64,m=256", label: rmat}]
        implementations: [cpu-dijkstra, cpu-bf-queue]
        targets:
          source: a paper's table
          paper_bandwidth_gbs: 288
          device_bandwidth_gbs: {H100: 3350}
          mteps: {rmat: {cpu-bf-queue: 3.1}}
    """)
    assert config.targets["mteps"] == {"rmat": {"cpu-bf-queue": 3.1}}
    assert config.targets["device_bandwidth_gbs"] == {"H100": 3350.0}


def test_claims_need_no_bandwidths_and_default_to_every_graph():
    config = config_from("""
        graphs: [{graph: "rmat:n=64,m=256", label: rmat}, {graph: "grid:rows=4", label: grid}]
        implementations: [cpu-dijkstra, {name: cpu-bf-queue, label: spfa}]
        targets:
          efficiency: {cpu-dijkstra: {rmat: 0.5}}
          faster_than:
            - {variant: cpu-dijkstra, than: [spfa]}
            - {variant: spfa, than: [cpu-dijkstra], graphs: [grid]}
    """)
    assert config.targets["efficiency"] == {"cpu-dijkstra": {"rmat": 0.5}}
    assert config.targets["faster_than"] == [{"variant": "cpu-dijkstra", "than": ["spfa"], "graphs": []},
                                             {"variant": "spfa", "than": ["cpu-dijkstra"], "graphs": ["grid"]}]
    assert config.targets["paper_bandwidth_gbs"] is None and config.targets["mteps"] == {}


@pytest.mark.parametrize("targets, message", [
    ("{paper_bandwidth_gbs: 288, mteps: {nograph: {cpu-dijkstra: 1}}}", r"targets.mteps.nograph: not a graph of this config"),
    ("{paper_bandwidth_gbs: 288, mteps: {g: {hbf: 1}}}", r"targets.mteps.g.hbf: not an implementation of this config"),
    ("{paper_bandwidth_gbs: 288, mteps: {g: {cpu-dijkstra: fast}}}", r"expected a positive MTEPS, got 'fast'"),
    ("{mteps: {}}", r"targets.paper_bandwidth_gbs: expected the paper's device bandwidth"),
    ("{paper_bandwidth_gbs: 288, device_bandwidth_gbs: {H100: lots}}", r"expected a mapping of GPU name fragment to GB/s"),
    ("{paper_bandwidth_gbs: 288, speed: 3}", r"targets.speed: unknown key"),
    ("{efficiency: {cpu-dijkstra: {g: 0}}}", r"targets.efficiency.cpu-dijkstra.g: expected the least fraction"),
    ("{efficiency: {hbf: {g: 0.5}}}", r"targets.efficiency.hbf: not an implementation of this config"),
    ("{efficiency: {cpu-dijkstra: {nograph: 0.5}}}", r"targets.efficiency.cpu-dijkstra.nograph: not a graph"),
    ("{faster_than: {cpu-dijkstra: [cpu-bf]}}", r"targets.faster_than: expected a list of"),
    ("{faster_than: [{variant: cpu-dijkstra}]}", r"targets.faster_than\[0\].than: expected a list of the variants"),
    ("{faster_than: [{variant: cpu-dijkstra, than: [cpu-dijkstra]}]}", r"cannot be faster than itself"),
    ("{faster_than: [{variant: cpu-dijkstra, than: [hbf]}]}", r"targets.faster_than\[0\].than: not an implementation"),
    ("{faster_than: [{variant: cpu-dijkstra, than: [cpu-bf], graph: g}]}", r"targets.faster_than\[0\].graph: unknown key"),
    ("{faster_than: [{variant: cpu-dijkstra, than: [cpu-bf], graphs: [h]}]}", r"faster_than\[0\].graphs: not a graph"),
])
def test_refused_targets(targets, message):
    text = f'graphs: [{{graph: "grid:rows=3", label: g}}]\nimplementations: [cpu-dijkstra, cpu-bf]\ntargets: {targets}\n'
    with pytest.raises(ConfigError, match=message):
        parse_config(text, "x.yaml")


def test_the_hash_changes_with_the_config():
    assert config_from(MINIMAL).hash == config_from(MINIMAL).hash
    assert config_from(MINIMAL).hash != config_from(MINIMAL + "repetitions: 2\n").hash


@pytest.mark.parametrize("text, message", [
    (MINIMAL + "colour: blue\n", r"x.yaml:4: colour: unknown key \(allowed: baseline, datasets, description"),
    (MINIMAL + "repetitions: two\n", r"x.yaml:4: repetitions: expected int, got str 'two'"),
    (MINIMAL + "repetitions: 0\n", r"repetitions: expected a positive integer"),
    (MINIMAL + "time_limit: -1\n", r"time_limit: expected a positive number of seconds"),
    (MINIMAL + "sources: {count: 10, sede: 3}\n", r"x.yaml:4: sources.sede: unknown key \(allowed: count, min_reached, seed\)"),
    (MINIMAL + "sources: {min_reached: lots}\n", r"sources.min_reached: expected a positive integer or 'auto'"),
    ('graphs: ["grid:rows=4"]\nimplementations: [{name: cpu-bf, sources: 0}]\n',
     r"implementations\[0\].sources: expected a positive number of sources, got 0"),
    (MINIMAL + "baseline: cpu-bfs\n", r"baseline: 'cpu-bfs' is not one of the implementations run: cpu-dijkstra"),
    (MINIMAL + "verification: {reference: magic}\n", r"unknown implementation 'magic' \(known: "),
    (BOTH_KINDS + "baseline: {sssp: cpu-bfs}\n", r"x.yaml:4: baseline.sssp: 'cpu-bfs' solves bfs, not sssp"),
    (BOTH_KINDS + "baseline: {bfs: hbf}\n", r"baseline.bfs: 'hbf' is not one of the implementations run"),
    (BOTH_KINDS + "baseline: {apsp: cpu-dijkstra}\n", r"baseline.apsp: not a problem kind \(kinds: bfs, sssp\)"),
    (BOTH_KINDS + "baseline: {}\n", r"baseline: expected one variant name, or a mapping of problem kind to one"),
    ('graphs: ["grid:rows=4"]\nimplementations: [gpu-magic]\n', r"x.yaml:2: implementations\[0\].name: unknown implementation 'gpu-magic'"),
    ('graphs: ["grid:rows=4"]\nimplementations: [{name: cpu-dijkstra, params: {speed: 11}}]\n',
     r"implementations\[0\].params: cpu-dijkstra has no parameter 'speed'"),
    ('graphs: ["grid:rows=4"]\nimplementations: [{name: cpu-bf, params: {count_relaxations: maybe}}]\n',
     r"parameter 'count_relaxations' must be bool, got str"),
    ('graphs: []\nimplementations: [cpu-dijkstra]\n', r"x.yaml:1: graphs: expected a non-empty list"),
    ('implementations: [cpu-dijkstra]\n', r"missing required key 'graphs'"),
    ('graphs: [{label: x}]\nimplementations: [cpu-dijkstra]\n', r"graphs\[0\]: missing required key 'graph'"),
    ('graphs: ["grid:rows=4", "grid:rows=4"]\nimplementations: [cpu-dijkstra]\n', r"appears twice; give one a different 'label'"),
    ('graphs: ["grid:rows=4"]\nimplementations: [cpu-dijkstra]\nweights: "heavy:x=1"\n', r"x.yaml:3: weights: "),
    ("graphs: [a\n", r"x.yaml:\d+: not valid YAML"),
    ("- just\n- a list\n", r"expected a mapping of keys"),
])
def test_refused_configs_say_where_and_what(text, message):
    with pytest.raises(ConfigError, match=message):
        parse_config(text, "x.yaml")


@pytest.mark.parametrize("text, message", [
    (MINIMAL + "repetitions: 3\nwarmup: 0\nrepetitions: 5\n",
     "x.yaml:6: not valid YAML (duplicate key 'repetitions', first given on line 4)"),
    ("graphs: [chain]\nimplementations:\n  - name: cpu-dijkstra\n    sources: 5\n    sources: 7\n",
     "x.yaml:5: not valid YAML (duplicate key 'sources', first given on line 4)"),
])
def test_a_key_given_twice_is_refused_naming_both_lines(text, message):
    """YAML itself would keep the last value silently: a config that says two things is refused."""
    with pytest.raises(ConfigError) as caught:
        parse_config(text, "x.yaml")
    assert str(caught.value) == message


def test_a_merge_key_may_still_be_overridden_and_the_catalog_has_no_key_twice():
    from sssp_bench import yamlfile
    from sssp_bench.datasets import catalog

    assert yamlfile.safe_load("base: &b {count: 3, seed: 1}\nsources: {<<: *b, count: 5}\n")["sources"] == {
        "count": 5, "seed": 1}
    yamlfile.safe_load(catalog.CATALOG_PATH.read_text())  # what catalog.load reads, refusing a key twice


def test_a_missing_config_file_is_named(tmp_path):
    with pytest.raises(UserError, match="nothing.yaml: no such config file"):
        load_config(tmp_path / "nothing.yaml")


# Every file in configs/ and experiments/ is parsed by tests/test_configs_parse.py (an unknown implementation
# fails it).


def test_labels_run_one_implementation_with_several_parameter_sets():
    config = config_from("""
        graphs: ["grid:rows=4,cols=4"]
        implementations:
          - {name: cpu-bf-queue, label: spfa-quiet, params: {count_relaxations: false}}
          - {name: cpu-bf-queue, label: spfa-counting, params: {count_relaxations: true}}
        baseline: spfa-quiet
        targets: {paper_bandwidth_gbs: 288, mteps: {"grid:rows=4,cols=4": {spfa-counting: 1.0}}}
    """)
    assert [(v.name, v.implementation, v.params) for v in config.variants] == [
        ("spfa-quiet", "cpu-bf-queue", {"count_relaxations": False}),
        ("spfa-counting", "cpu-bf-queue", {"count_relaxations": True})]
    assert config.baseline == "spfa-quiet"
    assert config.targets["mteps"]["grid:rows=4,cols=4"] == {"spfa-counting": 1.0}


def test_a_labelled_sweep_names_its_variants_after_the_label():
    config = config_from("""
        graphs: ["grid:rows=4,cols=4"]
        implementations:
          - cpu-bf
          - {name: cpu-bf, label: bf-sweep, params: {count_relaxations: [false, true]}}
    """)
    assert [v.name for v in config.variants] == [
        "cpu-bf", "bf-sweep[count_relaxations=false]", "bf-sweep[count_relaxations=true]"]


@pytest.mark.parametrize("implementations, message", [
    ("[cpu-bf, cpu-bf]", r"x.yaml:2: implementations: 'cpu-bf' is listed twice; give one a different 'label'"),
    ("[{name: cpu-bf, label: cpu-dijkstra}]",
     r"x.yaml:2: implementations\[0\].label: 'cpu-dijkstra' is the name of another implementation"),
    ("[{name: cpu-bf, label: my bf}]", r"implementations\[0\].label: expected a name without spaces, slashes"),
    ("[{name: cpu-bf, label: a/b}]", r"implementations\[0\].label: expected a name without spaces, slashes"),
    ("[{name: cpu-bf, label: 7}]", r"implementations\[0\].label: expected str, got int 7"),
])
def test_refused_labels(implementations, message):
    with pytest.raises(ConfigError, match=message):
        parse_config(f'graphs: ["grid:rows=4"]\nimplementations: {implementations}\n', "x.yaml")


def test_a_graph_can_replace_a_variants_parameters_on_that_graph_only():
    config = config_from("""
        graphs:
          - "grid:rows=4,cols=4"
          - {graph: "chain:n=8", params: {cpu-bf-queue: {count_relaxations: true}}}
        implementations: [cpu-dijkstra, cpu-bf-queue]
    """)
    variant = config.variants[1]
    assert config.graphs[0].variant(variant).params == {}
    assert config.graphs[1].variant(variant) == variant.__class__(
        "cpu-bf-queue", "cpu-bf-queue", {"count_relaxations": True}, None)
    assert config.raw["graphs"][1]["params"] == {"cpu-bf-queue": {"count_relaxations": True}}
    assert "params" not in config.raw["graphs"][0]  # configs without them keep their hashes


@pytest.mark.parametrize("params, message", [
    ("{cpu-bf: {count_relaxations: true}}", r"x.yaml:1: graphs\[0\].params.cpu-bf: not a variant of this config"),
    ('{"sweep[count_relaxations=true]": {count_relaxations: false}}',
     r"graphs\[0\].params.sweep\[count_relaxations=true\].count_relaxations: sweep\[count_relaxations=true\] "
     r"sweeps 'count_relaxations'; a graph cannot replace it"),
    ("{cpu-dijkstra: {colour: red}}", r"graphs\[0\].params.cpu-dijkstra.*colour"),
    ("{cpu-dijkstra: {count_relaxations: [true, false]}}", r"expected one value; sweeps belong in implementations"),
    ("{cpu-dijkstra: 3}", r"graphs\[0\].params.cpu-dijkstra: expected a mapping of parameter names to values"),
    ("[k1]", r"graphs\[0\].params: expected a mapping of variant name to \{parameter: value\}"),
])
def test_refused_graph_params(params, message):
    text = (f'graphs: [{{graph: "grid:rows=4", params: {params}}}]\n'
            "implementations: [cpu-dijkstra, {name: cpu-bf-queue, label: sweep, params: {count_relaxations: [true]}}]\n")
    with pytest.raises(ConfigError, match=message):
        parse_config(text, "x.yaml")


def test_a_graph_name_too_long_for_a_file_name_is_an_unknown_graph_not_a_traceback():
    config = parse_config(f"graphs: [{'g' * 300}]\nimplementations: [cpu-dijkstra]\n")
    assert config.graphs[0].graph == "g" * 300  # judged at run time, where preflight names it in one line
