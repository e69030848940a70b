"""Users' own graphs: files of ../shared/datasets the catalog does not list, imported with `sssp-bench import` or
named by path in a config, through the same parsers and checks as fetch, then run, described and reported."""

import ast
import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from local_server import readme_sha256, shared_datasets  # noqa: F401  (shared_datasets is a fixture)

import sssp_bench.graph
from sssp_bench.cli import CLEANING_FLAGS, cli
from sssp_bench.datasets import catalog
from sssp_bench.datasets.user_graphs import Reading, graph_file, import_graph
from sssp_bench.errors import ConfigError, UserError
from sssp_bench.graph.csr import read_csr
from sssp_bench.datasets.resolve import load_graph, resolve_path
from sssp_bench.run.config import parse_config

OFFLINE_NOT_IN_CATALOG = [
    # file, import options, name, n, arcs in the CSR, format
    ("power.graph", [], "power", 4941, 2 * 6594, "metis"),
    ("hep-th.graph.gz", [], "hep-th", 8361, 2 * 15751, "metis"),
    ("fe_4elt2.graph.gz", [], "fe_4elt2", 11143, 2 * 32818, "metis"),
    ("chesapeake.mtx", [], "chesapeake", 39, 2 * 170, "mtx"),
    ("p2p-Gnutella04.txt.gz", ["--directed"], "p2p-Gnutella04", 10876, 39994, "snap"),
    ("email-Enron.txt.gz", ["--directed"], "email-Enron", 36692, 367662, "snap"),
    ("BAY.gr.xz", ["--name", "bay-roads"], "bay-roads", 321270, 2 * 397415, "pace"),
]


def invoke(*arguments):
    result = CliRunner().invoke(cli, [str(argument) for argument in arguments])
    return result


def files_in(folder):
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*") if path.is_file()) if folder.exists() else []


@pytest.mark.parametrize("file, options, name, n, arcs, fmt", OFFLINE_NOT_IN_CATALOG,
                         ids=[row[0] for row in OFFLINE_NOT_IN_CATALOG])
def test_a_file_the_catalog_does_not_list_is_imported_and_described(file, options, name, n, arcs, fmt,
                                                                     shared_datasets, tmp_path):  # noqa: F811
    assert catalog.find(name) is None
    imported = invoke("import", shared_datasets / file, *options, "--datasets", tmp_path)
    assert imported.exit_code == 0, imported.output
    assert f"{name}: imported: " in imported.output

    graph = read_csr(tmp_path / f"{name}.csr")
    assert (graph.n, graph.m) == (n, arcs)
    provenance = graph.meta["provenance"]
    assert provenance["collection"] == "imported" and provenance["format"] == fmt
    assert provenance["source_file"] == str((shared_datasets / file).resolve())
    assert provenance["sha256"] == readme_sha256(shared_datasets)[file]
    assert graph.meta["table1"]["approx_diameter"] > 0

    info = invoke("info", name, "--datasets", tmp_path)
    assert info.exit_code == 0, info.output
    facts = json.loads(info.stdout)
    assert (facts["n"], facts["m"], facts["origin"]) == (n, arcs, "imported")


def test_a_config_runs_a_graph_after_one_import(shared_datasets, tmp_path, monkeypatch):  # noqa: F811
    monkeypatch.chdir(tmp_path)
    assert invoke("import", shared_datasets / "power.graph").exit_code == 0
    (tmp_path / "power-grid.yaml").write_text(textwrap.dedent("""\
        graphs:
          - power
          - {graph: power, label: power-weighted, weights: "uniform:min=1,max=100,seed=1"}
        implementations: [cpu-dijkstra, cpu-bf-queue, cpu-bfs]
        sources: {count: 5, seed: 1, min_reached: 100}
        baseline: {sssp: cpu-dijkstra, bfs: cpu-bfs}
    """))
    run = invoke("run", "power-grid.yaml", "--run-id", "power-run", "--report", "--no-progress")
    assert run.exit_code == 0, run.output
    assert "30 ok" in run.output  # 2 graphs x 3 implementations x 5 sources, all verified
    report = (tmp_path / "results" / "power-run" / "report.md").read_text()
    assert "| power | imported from power.graph | no | 4,941 | 13,188 |" in report


def test_the_same_file_again_is_already_imported_and_another_under_its_name_is_refused(shared_datasets,
                                                                                       tmp_path):  # noqa: F811
    first = import_graph(shared_datasets / "power.graph", tmp_path, name="power-grid")
    assert first.status == "imported"
    written = (tmp_path / "power-grid.csr").stat().st_mtime_ns
    assert import_graph(shared_datasets / "power.graph", tmp_path, name="power-grid").status == "already imported"
    assert (tmp_path / "power-grid.csr").stat().st_mtime_ns == written
    with pytest.raises(UserError, match=r"power-grid.csr holds another graph \(imported from .*power.graph\); import "
                                        r"under another --name, or give --force"):
        import_graph(shared_datasets / "hep-th.graph.gz", tmp_path, name="power-grid")
    assert import_graph(shared_datasets / "hep-th.graph.gz", tmp_path, name="power-grid", force=True).status == "imported"
    assert read_csr(tmp_path / "power-grid.csr").n == 8361


@pytest.mark.parametrize("arguments, message", [
    (["malformed/mangled1.mtx"], "Error: mangled1.mtx:1: expected object 'matrix' in the banner"),
    (["p2p-Gnutella31.txt.gz"], "a SNAP edge list does not say whether it is directed: give --directed or "
                                "--undirected"),
    (["README.md"], "README.md: cannot tell the graph format from the file's name; give --format (dimacs9, metis, "
                    "snap, mtx, pace, binary-csr, gapbs-wsg, gapbs-sg)"),
    (["power.graph", "--format", "dimacs9"], "power.graph:1: expected a 'c' comment or the 'p sp n m' line"),
    (["power.graph", "--format", "edgelist"], "unknown graph format 'edgelist'"),
    (["rome99.gr"], "'rome99' is a catalog graph: import a copy of it with `sssp-bench fetch rome99 --from"),
    (["power.graph", "--name", "grid"], "'grid' is a generator's name"),
    (["power.graph", "--name", "my graph"], "the name 'my graph' is not a plain name"),
    (["power.graph", "--name", "g" * 300], "the name gggggggggggggggggggg... has 300 characters; a graph's name is a "
                                           "file name, of at most 150 characters: pick a shorter --name"),
    (["no-such-file.gr"], "no-such-file.gr: no such graph file"),
])
def test_a_bad_file_is_one_line_exit_2_and_nothing_written(arguments, message, shared_datasets,
                                                            tmp_path):  # noqa: F811
    file, *options = arguments
    result = invoke("import", shared_datasets / file, *options, "--datasets", tmp_path / "data")
    assert result.exit_code == 2, result.output
    assert message in result.output and len(result.output.strip().splitlines()) == 1
    assert files_in(tmp_path / "data") == []


def test_an_archive_member_is_imported_with_the_cleaning_options(shared_datasets, tmp_path):  # noqa: F811
    result = invoke("import", shared_datasets / "bcsstk13.tar.gz", "--name", "stiffness", "--member", "*.mtx",
                    "--binarize", "--drop-diagonal", "--datasets", tmp_path)
    assert result.exit_code == 0, result.output
    graph = read_csr(tmp_path / "stiffness.csr")
    assert (graph.n, graph.m, graph.weights) == (2003, 83883 - 2003, None)  # as the catalog's entry converts it
    reading = graph.meta["provenance"]["reading"]
    assert reading == {"format": None, "member": "*.mtx", "directed": None,
                       "clean": {"binarize": True, "drop_diagonal": True}}


def test_every_cleaning_option_is_an_import_flag():
    assert set(CLEANING_FLAGS) == catalog.CLEAN_KEYS


def test_a_config_names_a_graph_file_by_path_converted_once_and_cached_by_content(shared_datasets,
                                                                                    tmp_path):  # noqa: F811
    copy = tmp_path / "in" / "p2p-Gnutella04.txt.gz"
    copy.parent.mkdir()
    shutil.copy(shared_datasets / "p2p-Gnutella04.txt.gz", copy)
    datasets = tmp_path / "datasets"
    reading = {"directed": True}
    path, origin = resolve_path(str(copy), datasets, reading)
    assert origin == "file" and path.parent == datasets / "files" and path.name.startswith("p2p-Gnutella04-")
    converted_at = path.stat().st_mtime_ns
    assert resolve_path(str(copy), datasets, reading) == (path, "file")
    assert path.stat().st_mtime_ns == converted_at  # the cache is reused, not converted again

    undirected, _ = resolve_path(str(copy), datasets, {"directed": False})
    assert undirected != path and not read_csr(undirected).directed  # other options: another entry

    shutil.copy(shared_datasets / "p2p-Gnutella31.txt.gz", copy)  # the same path, other content
    os.utime(copy, ns=(converted_at + 10**9, converted_at + 10**9))
    edited, _ = resolve_path(str(copy), datasets, reading)
    assert edited != path and read_csr(edited).n == 62586

    loaded = load_graph(str(copy), "gnutella", "unit", datasets, reading=reading)
    assert loaded.origin == "file" and loaded.graph.weighted and loaded.graph.name == "gnutella"


def test_a_config_entry_for_a_graph_file_takes_convert_and_a_default_label(shared_datasets):  # noqa: F811
    text = textwrap.dedent(f"""\
        graphs:
          - {{graph: {shared_datasets}/p2p-Gnutella31.txt.gz, convert: {{directed: false, largest_component: true}}}}
          - {shared_datasets}/fe_4elt2.graph.gz
        implementations: [cpu-dijkstra]
    """)
    config = parse_config(text, "x.yaml")
    assert [graph.label for graph in config.graphs] == ["p2p-Gnutella31", "fe_4elt2"]
    assert config.graphs[0].convert == {"directed": False, "clean": {"largest_component": True}}
    assert config.graphs[1].convert is None and config.raw["graphs"][0]["convert"] == config.graphs[0].convert


@pytest.mark.parametrize("entry, message", [
    ('{graph: data/p2p.txt.gz}', r"x.yaml:2: graphs\[0\].convert.directed: a SNAP edge list does not say whether "
                                 r"it is directed: expected true or false"),
    ('{graph: rome99, convert: {directed: true}}', r"graphs\[0\].convert: 'rome99' is not a graph file's path"),
    ('{graph: data/g.graph, convert: {format: edgelist}}', r"graphs\[0\].convert.format: expected one of dimacs9"),
    ('{graph: data/g.graph, convert: {symmetrise: true}}', r"graphs\[0\].convert.symmetrise: unknown key"),
    ('{graph: data/g.graph, convert: {directed: yes please}}', r"graphs\[0\].convert.directed: expected true or "
                                                               r"false, got 'yes please'"),
])
def test_a_bad_convert_names_the_file_line_and_key(entry, message):
    with pytest.raises(ConfigError, match=message):
        parse_config(f"implementations: [cpu-dijkstra]\ngraphs: [{entry}]\n", "x.yaml")


def test_reading_refuses_an_unknown_cleaning_option():
    with pytest.raises(UserError, match="unknown cleaning option 'tidy'"):
        Reading(clean={"tidy": True})


def test_graph_file_refuses_a_folder(tmp_path):
    with pytest.raises(UserError, match="not a file"):
        graph_file(tmp_path, tmp_path / "datasets")


def test_a_matrix_with_nan_values_imports_with_binarize_which_drops_them(tmp_path):
    """LAGraph's comments_west0067.mtx holds a nan; --binarize keeps its pattern, without it the nan is refused."""
    matrix = tmp_path / "comments_nan.mtx"
    matrix.write_text("%%MatrixMarket matrix coordinate real general\n% values as LAGraph's test matrix has them\n"
                      "3 3 3\n1 2 0.5\n2 3 nan\n3 1 -1.25\n")
    refused = invoke("import", matrix, "--datasets", tmp_path / "data")
    assert refused.exit_code == 2 and refused.output.strip() == (
        "Error: comments_nan.mtx:5: expected an entry 'i j value' with a finite decimal number value, got '2 3 nan'")
    imported = invoke("import", matrix, "--binarize", "--datasets", tmp_path / "data")
    assert imported.exit_code == 0, imported.output
    graph = read_csr(tmp_path / "data" / "comments_nan.csr")
    assert (graph.n, graph.m, graph.weights) == (3, 3, None)


def snap_file(path, edges: int, seed: int = 1):
    """A SNAP edge list of `edges` random arcs on sparse ids (so its vertices are renumbered: <name>.ids.npy)."""
    rng = np.random.default_rng(seed)
    sources, targets = rng.integers(0, 400_000, edges) * 3, rng.integers(0, 400_000, edges) * 3
    path.write_text("\n".join(map("{} {}".format, sources.tolist(), targets.tolist())) + "\n")
    return path


def test_an_import_killed_while_writing_leaves_only_temporaries_which_the_next_import_clears(tmp_path):
    """kill -9 (nothing of the writer runs after it) as soon as the import's first file appears: the graph is not
    there, nothing but temporaries is; the same import again completes and no temporary is left."""
    data = tmp_path / "data"
    command = [sys.executable, "-c", "from sssp_bench.cli import cli; cli()", "import",
               str(snap_file(tmp_path / "big.txt", 1_000_000)), "--directed", "--name", "big", "--datasets", str(data)]
    writer = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 300
    while writer.poll() is None and not (data.is_dir() and any(data.iterdir())) and time.monotonic() < deadline:
        time.sleep(0.001)
    writer.kill()
    writer.communicate()
    assert writer.returncode == -signal.SIGKILL, "the import finished before it could be killed while writing"
    left = files_in(data)
    assert left and all(name.startswith(".") and ".tmp" in name for name in left), left  # temporaries only

    again = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert files_in(data) == ["big.csr", "big.csr.json", "big.ids.npy"]
    graph = read_csr(data / "big.csr")
    assert graph.m == 1_000_000 and len(np.load(data / "big.ids.npy")) == graph.n


def test_the_graph_layer_knows_graphs_only_and_never_imports_the_datasets_layer():
    """graph/ builds, stores and reads graphs; which file a name means is datasets/resolve.py's to say."""
    graph_package = Path(sssp_bench.graph.__file__).parent
    reaching_up = []
    for module in sorted(graph_package.rglob("*.py")):
        for node in ast.walk(ast.parse(module.read_text())):
            names = ([node.module or ""] if isinstance(node, ast.ImportFrom)
                     else [alias.name for alias in node.names] if isinstance(node, ast.Import) else [])
            if any("datasets" in name.split(".") for name in names):
                reaching_up.append(f"{module.relative_to(graph_package)}:{node.lineno}")
    assert reaching_up == []
