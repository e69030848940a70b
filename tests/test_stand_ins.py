"""Stand-ins: a synthetic graph of the same size and structure runs under a paper graph's name only when the
config allows it and the real graph is not fetched, and the results say so."""

import json
import textwrap

import pytest
from test_catalog import BFS4K_TABLE1, HBF_TABLE2, HBF_TABLE3

from sssp_bench.datasets import catalog
from sssp_bench.graph import generators
from sssp_bench.run.config import parse_config
from sssp_bench.graph.csr import write_csr
from sssp_bench.errors import ConfigError, UserError
from sssp_bench.datasets.resolve import choose_graph, load_graph
from sssp_bench.run.runner import resume_run, start_run

import runs
from runs import read_rows

SMALL_ROAD = "road:n=400,seed=3"  # a small stand-in for asia.osm, so that the tests run in a moment


def expected_arcs(entry):
    """The arcs the real graph will have: an undirected edge is two arcs; a matrix's nonzeros are its arcs."""
    return 2 * entry.m if entry.m_unit == "edges" else entry.m


def stand_in_arcs(spec):
    """The arcs a stand-in spec makes, from its parameters (without generating the graph)."""
    kind, params = generators.parse_spec(spec)
    if kind in ("rmat", "random"):
        return params["m"]
    if kind == "kron":
        return 2 * params["edgefactor"] << params["scale"]
    if kind == "small-world":
        return 2 * params["n"] * params["k"]
    if kind == "road":
        return params["degree"] * params["n"]
    if kind == "mesh":
        # node links per offset of half the stencil, each linking every unknown of one node to every one of the
        # other; plus the pairs of one node's unknowns; an edge is two arcs, a self-loop one
        nx, ny, nz, dofs = params["nx"], params["ny"], params["nz"], params["dofs"]
        links = sum((nx - abs(dx)) * (ny - abs(dy)) * (nz - abs(dz))
                    for dx, dy, dz in generators.mesh_half_stencil(params["neighbours"]))
        vertices = nx * ny * nz * dofs
        return 2 * (links * dofs * dofs + vertices * (dofs - 1) // 2) + params["self_loops"] * vertices
    if kind == "communities":
        return (params["intra_degree"] + params["inter_degree"]) * params["n"]
    raise AssertionError(f"no arc formula for {kind}")


def stand_in_vertices(spec):
    kind, params = generators.parse_spec(spec)
    if kind == "mesh":
        return params["nx"] * params["ny"] * params["nz"] * params["dofs"]
    return 1 << params["scale"] if kind == "kron" else params["n"]


# ---- the catalog -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(set(HBF_TABLE2 + HBF_TABLE3 + BFS4K_TABLE1)))
def test_every_downloaded_graph_of_hbf_and_bfs4k_has_a_documented_stand_in(name):
    entry = catalog.lookup(name)
    if entry.generated:
        assert entry.stand_in is None  # made here from its spec: never missing
        return
    assert entry.stand_in and len(entry.stand_in_note) > 80
    generators.parse_spec(entry.stand_in)
    assert stand_in_vertices(entry.stand_in) == entry.n
    assert stand_in_arcs(entry.stand_in) == pytest.approx(expected_arcs(entry), rel=0.15)


def test_a_stand_in_needs_a_note_and_a_downloaded_entry():
    raw = {"name": "x", "collection": "snap", "papers": ["hbf"], "format": "snap", "n": 10, "m": 20, "m_unit": "arcs",
           "directed": True, "weighted": False, "checked": False, "url": "https://snap.stanford.edu/data/x.txt.gz",
           "stand_in": "rmat:n=10,m=20"}
    with pytest.raises(ValueError, match="needs a stand_in_note"):
        catalog._entry(raw, 0)
    assert catalog._entry({**raw, "stand_in_note": "why"}, 0).stand_in == "rmat:n=10,m=20"


# ---- configs -----------------------------------------------------------------------------------------------------


def config_from(text, path="x.yaml"):
    return parse_config(textwrap.dedent(text), path)


def test_auto_takes_the_catalogs_stand_in_and_false_requires_the_real_graph():
    config = config_from("""
        graphs:
          - {graph: asia.osm, stand_in: auto}
          - {graph: flickr, stand_in: "rmat:n=1000,m=8000,seed=2"}
          - {graph: msdoor, stand_in: false}
          - wiki-Talk
        implementations: [cpu-dijkstra]
    """)
    assert [graph.stand_in for graph in config.graphs] == [
        catalog.lookup("asia.osm").stand_in, "rmat:n=1000,m=8000,seed=2", None, None]
    assert [graph.label for graph in config.graphs] == ["asia.osm", "flickr", "msdoor", "wiki-Talk"]
    assert config.raw["graphs"][0]["stand_in"] == catalog.lookup("asia.osm").stand_in
    assert "stand_in" not in config.raw["graphs"][2]  # configs without stand-ins keep the hashes they had


def test_allowing_a_stand_in_changes_the_config_hash():
    plain = config_from("graphs: [asia.osm]\nimplementations: [cpu-dijkstra]\n")
    allowed = config_from("graphs: [{graph: asia.osm, stand_in: auto}]\nimplementations: [cpu-dijkstra]\n")
    assert plain.hash != allowed.hash


@pytest.mark.parametrize("entry, message", [
    ("{graph: asia.osm, stand_in: true}", r"x.yaml:2: graphs\[0\].stand_in: expected auto, both, false or a generator spec, got True"),
    ("{graph: asia.osm, stand_in: 3}", r"graphs\[0\].stand_in: expected auto, both, false or a generator spec, got 3"),
    ('{graph: asia.osm, stand_in: "road:n=lots"}',
     r"x.yaml:2: graphs\[0\].stand_in: expected auto, both, false or a generator spec: generator spec 'road:n=lots'"),
    ('{graph: asia.osm, stand_in: "tree:n=5"}', r"graphs\[0\].stand_in: .*unknown generator 'tree'"),
    ('{graph: "grid:rows=4", stand_in: auto}', r"graphs\[0\].stand_in: 'grid:rows=4' is not a catalog graph"),
    ("{graph: rmat.3Mv.20Me, stand_in: auto}", r"graphs\[0\].stand_in: rmat.3Mv.20Me is generated here"),
    ("{graph: USA-road-t.NY, stand_in: auto}", r"graphs\[0\].stand_in: the catalog gives USA-road-t.NY no stand-in"),
])
def test_refused_stand_ins_say_file_line_and_key(entry, message):
    text = f"implementations: [cpu-dijkstra]\ngraphs: [{entry}]\n"
    with pytest.raises(ConfigError, match=message) as refused:
        parse_config(text, "x.yaml")
    assert "\n" not in str(refused.value)


# ---- resolution --------------------------------------------------------------------------------------------------


def fake_fetch(datasets, name, spec="grid:rows=5,cols=5,seed=1"):
    """Put a graph into the dataset cache as if `sssp-bench fetch NAME` had made it."""
    graph = generators.generate(spec)
    write_csr(graph, datasets / f"{name}.csr", {"name": name, "provenance": {"catalog_entry": name}})


def test_the_stand_in_runs_only_when_the_real_graph_is_not_fetched(tmp_path):
    assert choose_graph("asia.osm", tmp_path, SMALL_ROAD) == (SMALL_ROAD, "asia.osm")
    assert choose_graph("asia_osm", tmp_path, SMALL_ROAD) == (SMALL_ROAD, "asia.osm")  # an alias: the catalog name
    assert choose_graph("asia.osm", tmp_path, None) == ("asia.osm", None)             # not allowed
    fake_fetch(tmp_path, "asia.osm")
    assert choose_graph("asia.osm", tmp_path, SMALL_ROAD) == ("asia.osm", None)       # fetched: the real graph
    assert choose_graph("asia.osm", tmp_path, SMALL_ROAD, force_stand_in=True) == (SMALL_ROAD, "asia.osm")


def test_a_loaded_stand_in_keeps_the_label_and_says_what_it_is(tmp_path):
    loaded = load_graph("asia.osm", "asia.osm", "keep", tmp_path, stand_in=SMALL_ROAD)
    assert loaded.label == "asia.osm" and loaded.graph.n == 400
    assert (loaded.origin, loaded.stand_in_for, loaded.stand_in) == ("stand-in", "asia.osm", SMALL_ROAD)
    fake_fetch(tmp_path, "asia.osm")
    real = load_graph("asia.osm", "asia.osm", "keep", tmp_path, stand_in=SMALL_ROAD)
    assert (real.origin, real.stand_in_for, real.stand_in, real.graph.n) == ("catalog", None, None, 25)


def test_without_a_stand_in_a_missing_graph_is_refused_with_the_way_out(tmp_path):
    with pytest.raises(UserError, match=r"not fetched .*sssp-bench fetch asia.osm, or allow its synthetic stand-in "
                                        r"in the config: \{graph: asia.osm, stand_in: auto\}"):
        load_graph("asia.osm", "asia.osm", "keep", tmp_path)


# ---- rows and manifest -------------------------------------------------------------------------------------------

RUN = f"""
    graphs:
      - {{graph: asia.osm, stand_in: "{SMALL_ROAD}"}}
      - {{graph: "grid:rows=6,cols=6,seed=1", label: grid}}
    implementations: [cpu-dijkstra, cpu-bf-queue]
    sources: {{count: 3, seed: 1}}
    verification: {{reference_sources: 1}}
"""


def make_config(tmp_path):
    return runs.make_config(tmp_path, RUN, name="stand-in")


def test_rows_and_manifest_record_the_stand_in(tmp_path):
    outcome = start_run(make_config(tmp_path), run_id="run", show_progress=False)
    manifest = json.loads((outcome.run_dir / "manifest.json").read_text())
    asia = manifest["graphs"]["asia.osm"]
    assert (asia["stand_in_for"], asia["stand_in"], asia["origin"], asia["n"]) == ("asia.osm", SMALL_ROAD, "stand-in", 400)
    assert asia["stand_in_note"] == ""  # a spec of the config's own, not the catalog's: no catalog note
    assert manifest["graphs"]["grid"]["stand_in_for"] is None
    rows = read_rows(outcome.run_dir)
    assert {(row["stand_in_for"], row["stand_in"]) for row in rows if row["graph"] == "asia.osm"} == {
        ("asia.osm", SMALL_ROAD)}
    assert {(row["stand_in_for"], row["stand_in"]) for row in rows if row["graph"] == "grid"} == {(None, None)}
    assert all(row["status"] == "ok" for row in rows)


def test_a_resumed_run_keeps_the_stand_in_it_began_with(tmp_path):
    config = make_config(tmp_path)
    outcome = start_run(config, run_id="run", show_progress=False)
    rows_path = outcome.run_dir / "rows.jsonl"
    lines = rows_path.read_text().splitlines()
    kept = [line for line in lines if not (json.loads(line)["graph"] == "asia.osm"
                                           and json.loads(line).get("source_index") == 2)]
    rows_path.write_text("".join(line + "\n" for line in kept))  # as if the run had stopped before the last sources
    fake_fetch(config.datasets, "asia.osm")                      # and the real graph had been fetched since
    resume_run(config, outcome.run_dir, show_progress=False)
    asia = [row for row in read_rows(outcome.run_dir) if row["graph"] == "asia.osm" and row["phase"] == "solve"]
    assert sorted((row["variant"], row["source_index"]) for row in asia) == [
        (variant, index) for variant in ("cpu-bf-queue", "cpu-dijkstra") for index in range(3)]
    assert {(row["stand_in_for"], row["reached_vertices"]) for row in asia} == {("asia.osm", 400)}


def test_the_report_of_a_run_marks_the_stand_in(tmp_path):
    from sssp_bench.report import write_report

    outcome = start_run(make_config(tmp_path), run_id="run", show_progress=False)
    markdown = write_report(outcome.run_dir)["markdown"].read_text()
    assert "| asia.osm † | stand-in †: generated road:n=400,seed=3 |" in markdown   # Table 1
    assert "| asia.osm † | cpu-dijkstra |" in markdown                             # Results
    assert "- asia.osm: stand-in for asia.osm, `road:n=400,seed=3`" in markdown       # the footnote
    assert "| grid | cpu-dijkstra |" in markdown                                     # a real graph: unmarked
