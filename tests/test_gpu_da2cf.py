"""da2cf's variants on a GPU (marker `gpu`): every correct variant against the CPU reference and the certificate,
with the iteration count and frontiers of the numpy model (kernels/da2cf.py); the dense matrix of section 5; and
FGPU_no_Atomic on the paper's race graph, which must lose the race (at least once in 20 solves: asserted, so the
test cannot pass without the race it is about) and whose lost races the verification must be what catches.

test_gpu_impls.py already runs da2cf with its default parameters (FGPU) over the shared battery. Skipped without
CuPy or a usable GPU; run with `python -m pytest tests/test_gpu_da2cf.py -q`.
"""

from __future__ import annotations

import numpy as np
import pytest

cupy = pytest.importorskip("cupy")

from sssp_bench import impls  # noqa: E402
from sssp_bench.errors import UnsupportedGraphError  # noqa: E402
from sssp_bench.graph.csr import from_arcs  # noqa: E402
from sssp_bench.graph.generators import generate  # noqa: E402
from sssp_bench.graph.weights import apply_weights  # noqa: E402
from sssp_bench.gpu import runtime  # noqa: E402
from sssp_bench.impls import canonical_distances  # noqa: E402
from sssp_bench.kernels.da2cf import da2cf, dense_weights  # noqa: E402
from sssp_bench.run.verify import certificate, compare, reference_distances  # noqa: E402

from runs import make_config, run_rows  # noqa: E402
from gpu_battery import (  # noqa: E402, F401
    GENERATED, assert_matches_reference, assert_relax_counters, gpu_device, solve_each, some_sources,
)

pytestmark = pytest.mark.gpu

CORRECT = {  # the paper's name -> parameters; FGPU_no_Atomic is incorrect by design and has its own tests below
    "FGPU": {},
    "FGPU+2min": {"min_passes": 2},
    "UGPU": {"relax": "unresolved"},
    "UGPU+2min": {"relax": "unresolved", "min_passes": 2},
    "UGPU_PLUS": {"relax": "unresolved", "cached_reads": True},
    "UGPU_PLUS+2min": {"relax": "unresolved", "cached_reads": True, "min_passes": 2},
}
MATRIX = {
    "FGPU-matrix": {"representation": "matrix"},
    "UGPU-matrix": {"representation": "matrix", "relax": "unresolved"},
    "UGPU+2min-matrix": {"representation": "matrix", "relax": "unresolved", "min_passes": 2},
}
FIXED_DEGREE = [  # the paper's lists (section 6): degree 7, weights 1..10, successor and predecessor draws
    "fixed-degree:n=50000,degree=7,seed=1",
    "fixed-degree:n=30000,degree=7,predecessor=true,seed=2",
]
MATRIX_GRAPHS = [  # at most 5000 vertices: a matrix of at most 100 MB
    "rmat:n=4096,m=65536,seed=3", "grid:rows=40,cols=50,seed=5", "chain:n=700,seed=6", "star:n=2000,seed=7",
    "kron:scale=11,edgefactor=8,seed=9", "fixed-degree:n=3000,degree=600,seed=4",  # the paper's degree n/5
]


def da2cf_solves(params: dict, graph, sources):
    return solve_each(impls.get("da2cf")(**params), graph, sources)


def check_variant(label: str, params: dict, graph, sources) -> None:
    """Distances as the reference and certificate say; the variant's name; the model's iteration count."""
    results = da2cf_solves(params, graph, sources)
    assert_matches_reference(label, graph, results)
    for source, _, counters, _ in results:
        assert counters["variant"] == label
        assert counters["iterations"] == da2cf(graph, source).iterations, f"{label} on {graph.name} from {source}"


@pytest.mark.parametrize("label", sorted(CORRECT))
@pytest.mark.parametrize("spec", GENERATED + FIXED_DEGREE)
def test_every_list_variant_matches_the_reference_and_the_models_iterations(label, spec):
    graph = generate(spec)
    check_variant(label, CORRECT[label], graph, some_sources(graph, 3))


@pytest.mark.parametrize("label", sorted(MATRIX))
@pytest.mark.parametrize("spec", MATRIX_GRAPHS)
def test_every_matrix_variant_matches_the_reference_and_the_models_iterations(label, spec):
    graph = generate(spec)
    check_variant(label, MATRIX[label], graph, some_sources(graph, 2))


ALL = {**CORRECT, **MATRIX}


@pytest.mark.parametrize("label", sorted(ALL))
def test_small_odd_and_unweighted_graphs(label):
    params = ALL[label]
    one = from_arcs(1, [], [], np.zeros(0, np.int32), name="one-vertex")
    one_loop = from_arcs(1, [0], [0], [3], name="one-vertex-self-loop")
    # parallel arcs (0->2 weighs 1 and 3), a zero-weight self-loop, zero-weight arcs (mssp repeats), an isolated
    # vertex and one that points in but is unreachable
    arcs = [(0, 1, 4), (0, 2, 3), (0, 2, 1), (2, 1, 2), (1, 3, 1), (2, 3, 5), (3, 3, 0), (3, 4, 0), (6, 0, 1)]
    diamond = from_arcs(7, *zip(*arcs), name="diamond")
    zero_chain = from_arcs(5, [0, 1, 2, 2, 4, 4], [1, 2, 1, 3, 4, 3], [0, 0, 0, 2, 0, 0], name="zero-cycle")
    rmat = generate("rmat:n=1024,m=8192,seed=14")
    for graph, sources in ((one, [0]), (one_loop, [0]), (diamond, [0, 6, 5]), (zero_chain, [0, 4]),
                           (rmat.with_weights(None), some_sources(rmat)), (apply_weights(rmat, "unit"), [0])):
        results = da2cf_solves(params, graph, sources)
        assert_matches_reference(label, graph, results)
        for source, _, counters, _ in results:  # zero weights too: the same frontiers as the model
            assert counters["iterations"] == da2cf(graph, source).iterations
    assert da2cf_solves(params, diamond, [0])[0][1].tolist() == [0, 3, 1, 4, 4, np.inf, np.inf]


@pytest.mark.parametrize("label", sorted(ALL))
def test_counters_add_up_and_frontiers_are_the_models(label):
    graph = generate("fixed-degree:n=3000,degree=7,seed=5")
    implementation = impls.get("da2cf")(count_relaxations=True, **ALL[label])
    implementation.prepare(graph)
    try:
        result = implementation.solve(7)
        counters = assert_relax_counters(result)
        model = da2cf(graph, 7)
        assert counters["frontier_sizes"] == model.frontier_sizes
        assert counters["variant"] == label
        blocks = -(-graph.n // 512)
        assert counters["minimum_values"] == (1 if "2min" in label else blocks)
    finally:
        implementation.teardown()


def test_the_device_matrix_is_the_dense_matrix_with_the_least_parallel_arc():
    for graph in (from_arcs(4, [0, 0, 0, 2, 3], [2, 2, 1, 2, 0], [7, 3, 0, 4, 2147483647]),
                  generate("random:n=300,m=20000,seed=2"),  # many parallel arcs
                  generate("grid:rows=10,cols=10,seed=1").with_weights(None)):
        implementation = impls.get("da2cf")(representation="matrix")
        implementation.prepare(graph)
        try:
            np.testing.assert_array_equal(implementation.matrix.get().reshape(graph.n, graph.n), dense_weights(graph))
        finally:
            implementation.teardown()


def test_a_matrix_that_does_not_fit_is_refused_and_the_lists_still_run(monkeypatch):
    graph = generate("grid:rows=30,cols=30,seed=1")
    runtime.release_device_graphs()
    monkeypatch.setattr(runtime, "free_device_bytes", lambda: (2 << 20, 80 << 30))
    with pytest.raises(UnsupportedGraphError, match=r"representation=matrix needs a 900 x 900 matrix"):
        impls.get("da2cf")(representation="matrix").prepare(graph)
    monkeypatch.undo()
    check_variant("FGPU", {}, graph, [0])


def test_float_weights_are_refused_with_the_matrix_too():
    graph = generate("grid:rows=10,cols=10,seed=1")
    floats = graph.with_weights(graph.weights.astype(np.float32))
    with pytest.raises(UnsupportedGraphError, match="float32"):
        impls.get("da2cf")(representation="matrix").prepare(floats)


# --- FGPU_no_Atomic on the paper's counterexample (section 4.3) ---------------------------------------------------

RACE = "da2cf-race:n=65536,seed=1"  # 65534 frontier threads over 256 blocks write the sink in one iteration
RACE_SOLVES = 20  # an H100 lost the race in every solve of the measured runs (experiments/da2cf/README.md)


@pytest.mark.parametrize("representation", ["list", "matrix"])
def test_a_lost_race_is_caught_by_the_verification_and_nothing_else_goes_wrong(representation):
    graph = generate(RACE if representation == "list" else "da2cf-race:n=4096,seed=1")
    n = graph.n
    expected = reference_distances(graph, 0)
    assert expected[n - 1] == 2
    implementation = impls.get("da2cf")(atomic=False, representation=representation)
    implementation.prepare(graph)
    lost = 0
    try:
        for _ in range(RACE_SOLVES):
            result = implementation.solve(0)
            assert result.counters["variant"].startswith("FGPU_no_Atomic")
            distances = canonical_distances(result)
            compared, proof = compare(expected, distances), certificate(graph, 0, distances)
            assert compared.ok == proof.ok  # the certificate alone tells a lost race, with no reference needed
            if not compared.ok:
                lost += 1
                assert 2 < distances[n - 1] <= n - 1  # one racer's candidate, not the least
                np.testing.assert_array_equal(distances[: n - 1], expected[: n - 1])
            assert result.counters["iterations"] == 3
    finally:
        implementation.teardown()
    print(f"FGPU_no_Atomic ({representation}) lost the race in {lost} of {RACE_SOLVES} solves")
    # the race this test is about happened: a losing relaxation (a larger candidate stored last) was observed
    assert lost > 0, f"FGPU_no_Atomic ({representation}) never lost the race in {RACE_SOLVES} solves"
    # and the same graph with atomicMin (FGPU) is right every time: the race, not the graph, made the wrong answers
    right = da2cf_solves({"representation": representation}, graph, [0] * RACE_SOLVES)
    assert_matches_reference(f"FGPU ({representation}) on the race graph", graph, right)


def test_the_runner_records_lost_races_as_wrong_answers_and_never_crashes(tmp_path):
    text = f"""
        graphs:
          - {{graph: "{RACE}", label: race}}
        implementations:
          - {{name: da2cf, label: FGPU_no_Atomic, params: {{atomic: false}}}}
          - {{name: da2cf, label: FGPU}}
        sources: {{count: 4, seed: 1}}
        repetitions: 5
        warmup: 1
        baseline: null
        verification: {{reference_sources: 4}}
    """
    _, rows = run_rows(make_config(tmp_path, text, name="race"), run_id="race")
    prepares = [row for row in rows if row["phase"] == "prepare"]
    solves = [row for row in rows if row["phase"] == "solve"]
    assert prepares and all(row["status"] == "ok" for row in prepares), prepares
    assert {row["source"] for row in solves} == {0}  # the only vertex that reaches the graph
    assert len([row for row in solves if row["variant"] == "FGPU_no_Atomic"]) == 5
    for row in solves:
        assert row["status"] in ("ok", "wrong_answer"), (row["variant"], row["status"], row["message"])
        if row["status"] == "ok":
            assert row["certificate"] is True and row["reference"] is True
        else:
            assert row["variant"] == "FGPU_no_Atomic" and row["certificate"] is False, row
    assert all(row["status"] == "ok" for row in solves if row["variant"] == "FGPU")
    # the rows this test is about were recorded: at least one lost race, as a wrong answer
    assert any(row["status"] == "wrong_answer" for row in solves if row["variant"] == "FGPU_no_Atomic"), solves
