"""Every config parses (the harness's own in configs/, each paper's in experiments/<paper>/), and what the papers'
experiment configs ask of the CPU baselines is there.

Every config is checked in full, never skipped: a misspelled or unregistered implementation name, like any other
config error, fails its test with the ConfigError's one line.
"""

import re
from pathlib import Path

import numpy as np
import pytest
import yaml

from sssp_bench.datasets import catalog
from sssp_bench.errors import ConfigError
from sssp_bench.graph import generators
from sssp_bench.run.config import load_config
from sssp_bench.graph.csr import from_arcs
from sssp_bench.impls.cpu_bellman_ford import CpuBellmanFord, CpuBellmanFordQueue
from sssp_bench.impls.cpu_dijkstra import CpuDijkstra

ROOT = Path(__file__).parent.parent
HARNESS_CONFIGS = sorted(ROOT.joinpath("configs").glob("*.yaml"))
EXPERIMENT_CONFIGS = sorted(ROOT.joinpath("experiments").glob("*/*.yaml"))
CONFIGS = HARNESS_CONFIGS + EXPERIMENT_CONFIGS
PAPER_CONFIGS = {"hbf": ["hbf-table2", "hbf-table3", "hbf-fig9", "bf-family"],
                 "bfs4k": ["bfs4k-table2", "bfs4k-fig14", "bfs4k-knobs"]}
REAL_GRAPHS_ONLY = {  # configs whose downloaded graphs are offline (../shared/datasets): fetched first, no stand-in
    "bf-family",      # the real USA-road-d.NY
    "bfs4k-knobs",    # the real road network USA-road-pace.NE (PACE 2016's copy of DIMACS 9's NE)
}


def test_the_papers_experiment_configs_are_in_their_papers_folders():
    found = {(path.parent.name, path.stem) for path in EXPERIMENT_CONFIGS}
    assert found >= {(paper, stem) for paper, stems in PAPER_CONFIGS.items() for stem in stems}


def test_configs_keeps_the_harnesss_own_and_no_papers():
    stems = {path.stem for path in HARNESS_CONFIGS}
    assert stems >= {"quick", "gpu-smoke"}
    assert not stems & {stem for stems in PAPER_CONFIGS.values() for stem in stems}


def check_config(path):
    """The config at `path` loaded as `run` loads it (a ConfigError for any mistake, an unknown implementation
    included), with graphs and variants, and each stand-in a valid spec for a downloaded graph."""
    config = load_config(path)
    assert config.graphs and config.variants
    for graph in config.graphs:
        entry = catalog.find(graph.graph)
        if graph.stand_in is not None:  # a stand-in is allowed only for a downloaded graph, and is a valid spec
            assert entry is not None and not entry.generated
            generators.parse_spec(graph.stand_in)


@pytest.mark.parametrize("path", CONFIGS, ids=lambda path: f"{path.parent.name}/{path.name}")
def test_every_config_parses(path):
    check_config(path)


@pytest.mark.parametrize("mistake", [("cpu-dijkstra", "cpu-dijkstar"), ("implementations:", "implementation:")],
                         ids=["misspelled implementation", "misspelled key"])
def test_a_config_with_a_mistake_fails_the_check_instead_of_being_skipped(tmp_path, mistake):
    right, wrong = mistake
    text = ROOT.joinpath("configs", "quick.yaml").read_text()
    assert right in text
    broken = tmp_path / "quick.yaml"
    broken.write_text(text.replace(right, wrong, 1))
    with pytest.raises(ConfigError, match=re.escape(wrong.rstrip(":"))):
        check_config(broken)


def test_paper_configs_keep_the_papers_graph_names_and_allow_every_stand_in():
    for paper, stem in [(paper, stem) for paper, stems in PAPER_CONFIGS.items() for stem in stems
                        if stem not in REAL_GRAPHS_ONLY]:
        raw = yaml.safe_load(ROOT.joinpath("experiments", paper, f"{stem}.yaml").read_text())
        for item in raw["graphs"]:
            name = item if isinstance(item, str) else item["graph"]
            entry = catalog.find(name)
            if entry is not None and not entry.generated:
                assert isinstance(item, dict) and item.get("stand_in") == "auto", (stem, name)


def test_configs_that_need_a_real_graph_name_one_that_is_offline():
    offline = {"USA-road-d.NY", "USA-road-pace.NE"}  # among ../shared/datasets' files, by the catalog's file names
    for paper, stem in [(paper, stem) for paper, stems in PAPER_CONFIGS.items() for stem in stems
                        if stem in REAL_GRAPHS_ONLY]:
        config = load_config(ROOT.joinpath("experiments", paper, f"{stem}.yaml"))
        downloaded = {catalog.find(graph.graph).name for graph in config.graphs
                      if catalog.find(graph.graph) is not None and not catalog.find(graph.graph).generated}
        assert downloaded and downloaded <= offline, (stem, downloaded)


# ---- Figure 9 (experiments/hbf/hbf-fig9.yaml) reads relax counts per iteration from every sequential baseline


@pytest.fixture(scope="module")
def small_graph():
    return generators.generate("rmat:n=256,m=2048,seed=4")


def counted(implementation_class, graph, source=0):
    implementation = implementation_class(count_relaxations=True)
    implementation.prepare(graph)
    result = implementation.solve(source)
    implementation.teardown()
    return result


@pytest.mark.parametrize("implementation_class", [CpuBellmanFord, CpuBellmanFordQueue, CpuDijkstra],
                         ids=lambda c: c.name)
def test_figure_9_baselines_count_relaxations_per_iteration(implementation_class, small_graph):
    counters = counted(implementation_class, small_graph).counters
    attempts, relaxations = counters["relax_attempts_per_iteration"], counters["relaxations_per_iteration"]
    assert len(attempts) == len(relaxations) == counters["iterations"]
    assert sum(attempts) == counters["relax_attempts"] and sum(relaxations) == counters["relaxations"]
    assert all(0 <= done <= tried for done, tried in zip(relaxations, attempts))


def test_a_dijkstra_iteration_is_one_settled_vertex_relaxing_its_out_arcs(small_graph):
    result = counted(CpuDijkstra, small_graph)
    counters = result.counters
    assert counters["iterations"] == counters["settled"] == np.count_nonzero(result.distances != result.unreached)
    # the multiset of per-iteration attempts is the reached vertices' out-degrees
    reached = result.distances != result.unreached
    assert sorted(counters["relax_attempts_per_iteration"]) == sorted(small_graph.out_degrees()[reached].tolist())


def test_dijkstra_counts_on_a_diamond_by_hand():
    # 0 -> 1 (1), 0 -> 2 (4), 1 -> 2 (1), 2 -> 3 (1): settled 0, 1, 2, 3; vertex 1 improves 2 from 4 to 2
    diamond = from_arcs(4, np.array([0, 0, 1, 2]), np.array([1, 2, 2, 3]), np.array([1, 4, 1, 1], dtype=np.int32))
    counters = counted(CpuDijkstra, diamond).counters
    assert counters["relax_attempts_per_iteration"] == [2, 1, 1, 0]
    assert counters["relaxations_per_iteration"] == [2, 1, 1, 0]


def test_dijkstra_keeps_quiet_unless_asked(small_graph):
    implementation = CpuDijkstra()
    implementation.prepare(small_graph)
    counters = implementation.solve(0).counters
    assert "relax_attempts_per_iteration" not in counters and counters["iterations"] == counters["settled"]
