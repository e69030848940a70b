"""`sssp-bench export`: a graph written in the formats other programs read, and read back by the project's own
parsers (what `import` uses) to the same CSR arrays, bit for bit. What a format cannot hold is refused in one line
with nothing written (sssp_bench/datasets/export.py lists both). The real files come from ../shared/datasets.
"""

from __future__ import annotations

import errno
import io
import struct
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from local_server import shared_datasets  # noqa: F401 (a fixture)
from sssp_bench.cli import cli
from sssp_bench.datasets import archive, export
from sssp_bench.datasets.export import FORMATS, SAYS_DIRECTED, load_for_export, reading_options, write_graph
from sssp_bench.datasets.formats import ConvertOptions, convert_stream, sniff_format
from sssp_bench.errors import GraphFormatError, UserError
from sssp_bench.graph.csr import CSRGraph, from_arcs, read_csr, write_csr
from sssp_bench.graph.generators import generate
from sssp_bench.graph.weights import apply_weights

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1


def read_back(path: Path, fmt: str) -> CSRGraph:
    """The exported file through the project's parser, read as `reading_options` says (SNAP: directed)."""
    options = {key: value for key, value in reading_options(fmt).items() if key != "format"}
    with archive.open_data_file(path) as (stream, label):
        return convert_stream(stream, fmt, label, ConvertOptions(**options)).graph


def expected_weights(graph: CSRGraph, fmt: str) -> np.ndarray | None:
    """What the file holds: the graph's weights, or all ones where a format's arcs always carry one."""
    if graph.weights is None and fmt in ("dimacs9", "gapbs-wsg"):
        return np.ones(graph.m, dtype=np.int32)
    return graph.weights


def assert_read_back_the_same(read: CSRGraph, graph: CSRGraph, fmt: str) -> None:
    assert np.array_equal(read.row_offsets, graph.row_offsets)
    assert np.array_equal(read.column_ids, graph.column_ids)
    weights = expected_weights(graph, fmt)
    assert (read.weights is None) == (weights is None)
    if weights is not None:  # bit for bit: -0.0 and 0.0 differ, a subnormal stays itself
        assert read.weights.dtype == weights.dtype
        assert np.array_equal(np.asarray(read.weights).view(np.uint32), np.asarray(weights).view(np.uint32))
    assert read.directed == (graph.directed if fmt in SAYS_DIRECTED else True)


def graph_with(n, arcs, weights=None, directed=True, name="g") -> CSRGraph:
    sources = [u for u, _ in arcs]
    targets = [v for _, v in arcs]
    return from_arcs(n, sources, targets, weights, directed=directed, name=name)


def grid_with_uniform_weights() -> CSRGraph:
    return apply_weights(generate("grid:rows=4,cols=5"), "uniform:min=1,max=100,seed=3")


def unsymmetric_undirected() -> CSRGraph:
    """Flagged undirected, but 0 -> 1 and 0 -> 2 have no arcs back: not a graph METIS can list."""
    return CSRGraph(np.array([0, 2, 2, 2], np.int64), np.array([1, 2], np.int32), None, False, "lopsided")


GRAPHS = {
    "directed, negative and extreme int32 weights, a self-loop": lambda: graph_with(
        4, [(0, 1), (0, 3), (1, 1), (1, 2), (2, 0), (3, 2)],
        np.array([INT32_MIN, INT32_MAX, 0, -7, 10, 3], np.int32)),
    "parallel arcs": lambda: graph_with(3, [(0, 1), (1, 2), (0, 1), (2, 0)], np.array([5, 1, 2, 1], np.int32)),
    "an isolated vertex": lambda: graph_with(4, [(0, 1), (1, 3), (3, 0)], np.array([1, 2, 3], np.int32)),
    "float32 weights: 0.1, -0.0, a subnormal, the largest": lambda: graph_with(
        3, [(0, 1), (1, 2), (2, 0), (2, 1)], np.array([0.1, -0.0, 1e-45, 3.4028235e38], np.float32)),
    "a NaN weight": lambda: graph_with(2, [(0, 1), (1, 0)], np.array([1.5, np.nan], np.float32)),
    "undirected grid, uniform weights": grid_with_uniform_weights,
    "undirected, unweighted, a self-loop edge": lambda: graph_with(3, [(0, 1), (1, 2), (2, 2)], directed=False),
    "undirected, a zero weight": lambda: graph_with(2, [(0, 1)], np.array([0], np.int32), directed=False),
    "undirected but not symmetric": unsymmetric_undirected,
    "no arc": lambda: graph_with(3, []),
    "no vertex": lambda: graph_with(0, []),
}

# What each format cannot hold, as its one line says it (every other pair reads back the same)
REFUSED = {
    ("directed, negative and extreme int32 weights, a self-loop", "metis"): "METIS is undirected",
    ("directed, negative and extreme int32 weights, a self-loop", "gapbs-sg"): "gapbs-sg holds no weights",
    ("parallel arcs", "mtx"): "holds each entry (i, j) once, and this graph has parallel arcs 0 -> 1 (arcs 0 and 1)",
    ("parallel arcs", "metis"): "METIS is undirected",
    ("parallel arcs", "gapbs-sg"): "gapbs-sg holds no weights",
    ("an isolated vertex", "snap"): "isolated vertices (1; the first, vertex 2, has no arc in or out)",
    ("an isolated vertex", "metis"): "METIS is undirected",
    ("an isolated vertex", "gapbs-sg"): "gapbs-sg holds no weights",
    **{("float32 weights: 0.1, -0.0, a subnormal, the largest", fmt): f"{fmt} weights are integers"
       for fmt in ("dimacs9", "metis", "snap", "gapbs-wsg")},
    ("float32 weights: 0.1, -0.0, a subnormal, the largest", "gapbs-sg"): "gapbs-sg holds no weights",
    **{("a NaN weight", fmt): f"{fmt} weights are integers" for fmt in ("dimacs9", "metis", "snap", "gapbs-wsg")},
    ("a NaN weight", "mtx"): "Matrix Market values are finite numbers and arc 1 weighs nan",
    ("a NaN weight", "gapbs-sg"): "gapbs-sg holds no weights",
    ("undirected grid, uniform weights", "gapbs-sg"): "gapbs-sg holds no weights",
    ("undirected, unweighted, a self-loop edge", "mtx"): "parallel arcs 2 -> 2",  # the edge's two arcs
    ("undirected, a zero weight", "metis"): "METIS edge weights are positive integers and arc 0 weighs 0",
    ("undirected, a zero weight", "gapbs-sg"): "gapbs-sg holds no weights",
    ("undirected but not symmetric", "metis"): "vertex 0's arcs are not matched by arcs back",
    ("no arc", "snap"): "this graph has no arc",
    ("no arc", "metis"): "METIS is undirected",
    ("no vertex", "snap"): "this graph has no arc",
    ("no vertex", "metis"): "METIS is undirected",
}


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("which", GRAPHS)
def test_every_format_reads_back_to_the_same_arrays_or_is_refused_in_one_line(which, fmt, tmp_path):
    graph = GRAPHS[which]()
    target = tmp_path / f"graph{export.SUFFIXES[fmt]}"
    if (which, fmt) in REFUSED:
        with pytest.raises(UserError) as refused:
            write_graph(graph, fmt, target)
        message = str(refused.value)
        assert "\n" not in message and REFUSED[which, fmt] in message
        assert message.startswith(f"{target}: cannot write {graph.name} as {fmt}: ")
        assert list(tmp_path.iterdir()) == []  # refused before anything is written
        return
    assert write_graph(graph, fmt, target) == target
    assert_read_back_the_same(read_back(target, fmt), graph, fmt)
    assert [path.name for path in tmp_path.iterdir()] == [target.name]  # no temporary left beside it


REAL_FILES = [  # (file, archive member, how it is read)
    ("rome99.gr", None, {}),
    ("USA-road-d.NY.gr.gz", None, {}),
    ("BAY.gr.xz", None, {}),
    ("power.graph", None, {}),
    ("4elt.graph.bz2", None, {}),
    ("chesapeake.mtx", None, {}),
    ("bcsstk13.tar.gz", "*/bcsstk13.mtx", {}),  # real values: float32 weights
    ("wiki-Vote.txt.gz", None, {"directed": True}),
    ("p2p-Gnutella04.txt.gz", None, {"directed": False}),
]


@pytest.mark.parametrize("weights", ["keep", "uniform:min=1,max=1000,seed=5"])
@pytest.mark.parametrize("file, member, reading", REAL_FILES, ids=[file for file, _, _ in REAL_FILES])
def test_the_shared_datasets_round_trip_through_every_format_that_holds_them(shared_datasets, tmp_path, file, member,
                                                                             reading, weights):
    with archive.open_data_file(shared_datasets / file, member) as (stream, label):
        fmt = sniff_format(label, stream.peek(4096)[:4096])
        graph = apply_weights(convert_stream(stream, fmt, label, ConvertOptions(**reading)).graph, weights)
    written = 0
    for fmt in FORMATS:
        why = export.refusal(graph, fmt)
        if why is not None:  # said of the graph, in the words the module's docstring uses
            assert any(words in why for words in ("METIS is undirected", "parallel arcs", "weights are integers",
                                                  "holds no weights", "an odd number of arcs"))  # lone self-loops
            continue
        target = write_graph(graph, fmt, tmp_path / f"{Path(file).stem}{export.SUFFIXES[fmt]}")
        assert_read_back_the_same(read_back(target, fmt), graph, fmt)
        written += 1
    assert written >= (2 if graph.weights is not None and graph.weights.dtype.kind == "f" else 4)


def test_an_exported_file_reads_back_through_its_own_format_and_exports_to_the_same_bytes(tmp_path):
    graph = grid_with_uniform_weights()
    for fmt in FORMATS:
        if export.refusal(graph, fmt) is not None:
            continue
        first = write_graph(graph, fmt, tmp_path / f"first{export.SUFFIXES[fmt]}")
        again = read_back(first, fmt)
        again = CSRGraph(again.row_offsets, again.column_ids, again.weights, again.directed, graph.name, graph.meta)
        second = write_graph(again, fmt, tmp_path / f"second{export.SUFFIXES[fmt]}")
        if fmt in SAYS_DIRECTED:  # the others read back directed, and say so in their comments
            assert second.read_bytes() == first.read_bytes(), fmt


# ------------------------------------------------------------------------------------------------------------
# The layouts, as the module docstrings describe them
# ------------------------------------------------------------------------------------------------------------

def test_binary_csr_is_the_dataset_caches_own_csr_file_without_its_sidecar(tmp_path):
    for graph in (grid_with_uniform_weights(), GRAPHS["float32 weights: 0.1, -0.0, a subnormal, the largest"](),
                  GRAPHS["undirected, unweighted, a self-loop edge"]()):
        cached = write_csr(graph, tmp_path / "cache" / "g.csr")
        exported = write_graph(graph, "binary-csr", tmp_path / "g.csr")
        assert exported.read_bytes() == cached.read_bytes()
        assert not (tmp_path / "g.csr.json").exists()
        mapped = read_csr(exported)  # what a config naming the file reads
        assert np.array_equal(mapped.column_ids, graph.column_ids) and mapped.directed == graph.directed


def test_a_gapbs_weighted_file_is_laid_out_as_gapbs_reads_it(tmp_path):
    graph = graph_with(3, [(0, 2), (0, 1), (2, 1)], np.array([7, -1, 4], np.int32))
    expected = (
        struct.pack("<?qq", True, 3, 3)                                   # directed, m arcs, n
        + struct.pack("<4q", 0, 2, 2, 3) + struct.pack("<6i", 2, 7, 1, -1, 1, 4)   # out-CSR, (id, weight) pairs
        + struct.pack("<4q", 0, 0, 2, 3) + struct.pack("<6i", 0, -1, 2, 4, 0, 7)   # in-CSR, by source
    )
    assert write_graph(graph, "gapbs-wsg", tmp_path / "g.wsg").read_bytes() == expected
    undirected = graph_with(2, [(0, 1)], directed=False)
    assert write_graph(undirected, "gapbs-sg", tmp_path / "u.sg").read_bytes() == (
        struct.pack("<?qq", False, 2, 2) + struct.pack("<3q", 0, 1, 2) + struct.pack("<2i", 1, 0))  # no in-CSR


def test_text_files_say_what_they_hold_in_the_formats_own_words(tmp_path):
    graph = graph_with(3, [(0, 1), (1, 2), (2, 0)], np.array([4, -2, 9], np.int32), name="ring")
    assert write_graph(graph, "dimacs9", tmp_path / "g.gr").read_text().splitlines()[3:] == [
        "p sp 3 3", "a 1 2 4", "a 2 3 -2", "a 3 1 9"]
    mtx = write_graph(graph, "mtx", tmp_path / "g.mtx").read_text().splitlines()
    assert mtx[0] == "%%MatrixMarket matrix coordinate integer general" and mtx[3:] == ["3 3 3", "1 2 4", "2 3 -2",
                                                                                         "3 1 9"]
    assert write_graph(graph, "snap", tmp_path / "g.txt").read_text().splitlines()[1:] == [
        "# Nodes: 3 Edges: 3", "# FromNodeId\tToNodeId\tWeight", "0\t1\t4", "1\t2\t-2", "2\t0\t9"]
    edge = graph_with(3, [(0, 1), (1, 2)], np.array([3, 8], np.int32), directed=False)
    assert write_graph(edge, "metis", tmp_path / "g.graph").read_text().splitlines()[1:] == [
        "3 2 1", "2 3", "3 8 1 3", "2 8"]  # each row's arcs in the graph's order


# ------------------------------------------------------------------------------------------------------------
# Streamed and atomic
# ------------------------------------------------------------------------------------------------------------

def test_blocks_of_any_size_write_the_same_bytes(tmp_path, monkeypatch):
    directed = apply_weights(generate("rmat:n=256,m=2000,seed=4"), "uniform:min=1,max=50,seed=1")
    undirected = grid_with_uniform_weights()
    floats = undirected.with_weights(np.asarray(undirected.weights, np.float32) / 7)
    cases = [(directed, "dimacs9"), (directed, "gapbs-wsg"), (directed, "binary-csr"), (undirected, "snap"),
             (undirected, "metis"), (floats, "mtx")]
    whole = [write_graph(graph, fmt, tmp_path / f"whole.{fmt}").read_bytes() for graph, fmt in cases]
    for block in (1, 3, 64):
        monkeypatch.setattr(export, "ARC_BLOCK", block)
        monkeypatch.setattr(export, "ROW_BLOCK", 2)
        for (graph, fmt), data in zip(cases, whole):
            assert write_graph(graph, fmt, tmp_path / f"block.{fmt}").read_bytes() == data, (fmt, block)


def test_a_big_graph_is_streamed_not_built_as_text_in_memory(tmp_path, monkeypatch):
    monkeypatch.setattr(export, "ARC_BLOCK", 1 << 12)
    n, m = 1 << 16, 1 << 20
    row_offsets = np.arange(0, m + 1, m // n, dtype=np.int64)
    directed = CSRGraph(row_offsets, (np.arange(m, dtype=np.int64) * 7919 % n).astype(np.int32),
                        (np.arange(m) % 1000 + 1).astype(np.int32), True, "big")
    undirected = apply_weights(generate("grid:rows=512,cols=512"), "uniform:min=1,max=100,seed=1")
    for graph, fmt in [(directed, "dimacs9"), (directed, "snap"), (directed, "mtx"), (undirected, "metis")]:
        write_graph(graph, fmt, tmp_path / f"warm{export.SUFFIXES[fmt]}")  # numba compiled, caches filled
        tracemalloc.start()
        written = write_graph(graph, fmt, tmp_path / f"big{export.SUFFIXES[fmt]}")
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert written.stat().st_size > 8 << 20  # megabytes of text ...
        assert peak < (1 << 20) + 8 * graph.n, (fmt, peak)  # ... in far less: a block's buffer, a number per vertex


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    target = tmp_path / "g.mtx"
    target.write_text("an older export\n")
    graph = GRAPHS["float32 weights: 0.1, -0.0, a subnormal, the largest"]()
    calls = []

    def disk_full_on_the_second_block(values):
        calls.append(len(values))
        if len(calls) == 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_float_text(values)

    real_float_text = export._float_text
    monkeypatch.setattr(export, "ARC_BLOCK", 2)
    monkeypatch.setattr(export, "_float_text", disk_full_on_the_second_block)
    with pytest.raises(UserError, match=r"g\.mtx: cannot write the graph \(No space left on device\); nothing was "
                                        r"written$"):
        write_graph(graph, "mtx", target)
    assert target.read_text() == "an older export\n"
    assert [path.name for path in tmp_path.iterdir()] == ["g.mtx"]
    with pytest.raises(UserError, match="Matrix Market values are finite"):  # refused: the old file stays too
        write_graph(GRAPHS["a NaN weight"](), "mtx", target)
    assert target.read_text() == "an older export\n"
    with pytest.raises(UserError, match="is a folder"):
        write_graph(graph, "mtx", tmp_path)


@pytest.mark.parametrize("suffix", [".gz", ".bz2", ".xz"])
def test_a_compressed_name_is_compressed_the_same_every_time_and_reads_back(tmp_path, suffix):
    graph = grid_with_uniform_weights()
    first = write_graph(graph, "dimacs9", tmp_path / f"a.gr{suffix}").read_bytes()
    second = write_graph(graph, "dimacs9", tmp_path / f"b.gr{suffix}").read_bytes()
    assert first == second and not first.startswith(b"c 9th")
    assert_read_back_the_same(read_back(tmp_path / f"a.gr{suffix}", "dimacs9"), graph, "dimacs9")


def test_format_names_and_suffixes():
    assert export.canonical_format("DIMACS") == "dimacs9" and export.canonical_format("wsg") == "gapbs-wsg"
    assert export.format_of_path("x/NY.wsg.gz") == "gapbs-wsg" and export.format_of_path("NY.sg") == "gapbs-sg"
    assert export.format_of_path("graph.edges") is None
    with pytest.raises(UserError, match="unknown export format 'edgelist', expected one of dimacs9, mtx, metis, "
                                        "snap, binary-csr, gapbs-sg, gapbs-wsg"):
        export.canonical_format("edgelist")


# ------------------------------------------------------------------------------------------------------------
# Reading the binary formats: one line naming the file
# ------------------------------------------------------------------------------------------------------------

def binary_refusal(data: bytes, fmt: str) -> str:
    with pytest.raises(GraphFormatError) as refused:
        convert_stream(io.BytesIO(data), fmt, "g")
    assert "\n" not in str(refused.value)
    return str(refused.value)


def test_a_bad_binary_file_is_one_line(tmp_path):
    graph = graph_with(3, [(0, 1), (1, 2)], np.array([1, 2], np.int32))
    csr = write_graph(graph, "binary-csr", tmp_path / "g.csr").read_bytes()
    wsg = write_graph(graph, "gapbs-wsg", tmp_path / "g.wsg").read_bytes()
    assert binary_refusal(b"", "binary-csr") == "g: empty file, expected a binary-csr header"
    assert binary_refusal(csr[:40], "binary-csr") == "g: truncated header (40 of 64 bytes)"
    assert binary_refusal(b"NOTACSR\0" + csr[8:], "binary-csr").startswith("g: not an sssp-bench binary CSR file")
    assert binary_refusal(csr[:8] + struct.pack("<I", 9) + csr[12:], "binary-csr") == (
        "g: binary CSR version 9, this sssp-bench reads version 1")
    assert binary_refusal(csr + b"\0", "binary-csr") == (
        f"g: {len(csr) + 1} bytes, but n=3 and m=2 need exactly {len(csr)} (sizes disagree)")
    backwards = csr[:64] + struct.pack("<4q", 0, 2, 1, 2) + csr[96:]
    assert binary_refusal(backwards, "binary-csr") == (
        "g: the row offsets decrease after vertex 1 (2 then 1); the file is corrupt")
    assert binary_refusal(b"\x07" + wsg[1:], "gapbs-wsg") == (
        "g: not a GAPBS serialized graph: the first byte (directed, a bool) is 7, expected 0 or 1")
    assert binary_refusal(wsg[:-8], "gapbs-wsg").startswith("g: truncated: ")
    assert binary_refusal(struct.pack("<?qq", False, 1, 2**40), "gapbs-sg") == (
        f"g: the header says n={2**40:,} vertices, expected 0 <= n <= {INT32_MAX} (int32 ids)")


def test_a_binary_file_reads_with_its_weights_dropped_or_as_an_undirected_graph(tmp_path):
    graph = graph_with(3, [(0, 1), (1, 2)], np.array([1, 2], np.int32))
    path = write_graph(graph, "binary-csr", tmp_path / "g.csr")
    with open(path, "rb") as stream:
        binarized = convert_stream(stream, "binary-csr", "g", ConvertOptions(binarize=True)).graph
    assert binarized.weights is None and np.array_equal(binarized.column_ids, graph.column_ids)
    with open(path, "rb") as stream:
        undirected = convert_stream(stream, "binary-csr", "g", ConvertOptions(directed=False)).graph
    assert not undirected.directed and undirected.m == 4  # every arc and its reverse, like any format's


# ------------------------------------------------------------------------------------------------------------
# The command
# ------------------------------------------------------------------------------------------------------------

@pytest.fixture
def invoke(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return lambda *args: CliRunner().invoke(cli, [str(arg) for arg in args], catch_exceptions=False)


def test_export_writes_the_graph_a_config_would_run_and_import_reads_it_back(invoke, tmp_path):
    spec, weights = "grid:rows=6,cols=7", "uniform:min=1,max=100,seed=2"
    result = invoke("export", spec, "--weights", weights, "-o", "out/grid.gr")  # the format from the suffix
    assert result.exit_code == 0, result.output
    assert result.output.startswith("out/grid.gr: dimacs9, n=42, m=142 arcs, undirected, int32 weights\n")
    assert "reads back as a directed graph of the same arcs" in result.output
    datasets = tmp_path / "datasets"
    ran = load_for_export(spec, datasets, weights).graph  # resolve.load_graph, as a config loads it
    imported = invoke("import", "out/grid.gr", "--name", "grid-back", "--datasets", datasets)
    assert imported.exit_code == 0, imported.output
    back = read_csr(tmp_path / "datasets" / "grid-back.csr")
    assert np.array_equal(back.column_ids, ran.column_ids) and np.array_equal(back.weights, ran.weights)

    result = invoke("export", spec, "--weights", weights, "--format", "wsg", "-o", "grid.bin")
    assert result.exit_code == 0 and result.output.startswith("grid.bin: gapbs-wsg, ")
    assert_read_back_the_same(read_back(tmp_path / "grid.bin", "gapbs-wsg"), ran, "gapbs-wsg")


@pytest.mark.parametrize("args, message", [
    (["grid:rows=2,cols=2", "-o", "g.edges"],
     "Error: g.edges: cannot tell the format from the file's name; give --format (dimacs9, mtx, metis, snap, "
     "binary-csr, gapbs-sg, gapbs-wsg)"),
    (["grid:rows=2,cols=2", "-o", "g.gr", "--format", "edgelist"],
     "Error: unknown export format 'edgelist', expected one of dimacs9, mtx, metis, snap, binary-csr, gapbs-sg, "
     "gapbs-wsg"),
    (["rmat:n=64,m=300,seed=1", "-o", "g.graph"],
     "Error: g.graph: cannot write rmat:n=64,m=300,seed=1 as metis: METIS is undirected and this graph is directed; "
     "export dimacs9, mtx, snap or binary-csr"),
    (["grid:rows=2,cols=2", "-o", "g.gr", "--weights", "uniform:min=5,max=5"], "Error: weight spec"),
    (["grid:rows=2,cols=2", "-o", "g.gr", "--undirected"],
     "Error: grid:rows=2,cols=2: how to read a file (its format, direction, cleaning) is given for a graph file"),
    (["no-such-graph", "-o", "g.gr"], "Error: graph 'no-such-graph': not a generator spec"),
])
def test_export_mistakes_are_one_line_and_write_nothing(invoke, tmp_path, args, message):
    result = invoke("export", *args)
    assert result.exit_code == 2 and result.output.startswith(message), result.output
    assert len(result.output.strip().splitlines()) == 1
    assert not list(tmp_path.glob("g.*"))


def test_export_reads_a_snap_file_only_when_told_its_direction(invoke, shared_datasets, tmp_path):
    wiki = shared_datasets / "wiki-Vote.txt.gz"
    refused = invoke("export", wiki, "-o", "w.csr")
    assert refused.exit_code == 2 and refused.output == (
        f"Error: {wiki}: a SNAP edge list does not say whether it is directed: give --directed or --undirected\n")
    assert invoke("export", wiki, "--directed", "-o", "w.csr").exit_code == 0
    imported = invoke("import", "w.csr", "--name", "wiki", "--datasets", tmp_path / "datasets")
    assert imported.exit_code == 0, imported.output  # binary-csr is imported like any format
    assert read_csr(tmp_path / "datasets" / "wiki.csr").m == 103_689
