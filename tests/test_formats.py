"""Reading real graph files: DIMACS 9 `.gr`, METIS `.graph`, SNAP edge lists, Matrix Market `.mtx`, PACE `.gr`.

Each test is an example of one rule of a format (the rules are in the docstrings of sssp_bench/datasets/formats/*.py).
The real files come from ../shared/datasets (or $SSSP_BENCH_SHARED_DATASETS); those tests skip without it.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import struct
import tarfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sssp_bench.datasets import catalog
from sssp_bench.graph.csr import from_arcs, read_csr, write_csr
from sssp_bench.errors import GraphFormatError, UserError
from sssp_bench.datasets.formats import (
    FORMATS,
    PARSERS,
    ConvertOptions,
    convert_stream,
    graph_name,
    parsing,
    sniff_format,
)


def shared_datasets() -> Path | None:
    candidates = [Path(__file__).resolve().parents[2] / "shared" / "datasets",
                  os.environ.get("SSSP_BENCH_SHARED_DATASETS")]
    for folder in candidates:
        if folder and Path(folder).is_dir():
            return Path(folder)
    return None


def dataset(name: str) -> Path:
    folder = shared_datasets()
    if folder is None or not (folder / name).exists():
        pytest.skip(f"{name}: the shared datasets folder is not here")
    return folder / name


def convert(text, fmt, label="g", chunk_bytes=parsing.DEFAULT_CHUNK_BYTES, **options):
    data = text.encode() if isinstance(text, str) else text
    return convert_stream(io.BytesIO(data), fmt, label, ConvertOptions(**options), chunk_bytes=chunk_bytes)


def refusal(text, fmt, label="g", chunk_bytes=parsing.DEFAULT_CHUNK_BYTES, **options) -> str:
    with pytest.raises(GraphFormatError) as caught:
        convert(text, fmt, label, chunk_bytes, **options)
    message = str(caught.value)
    assert "\n" not in message
    return message


def arc_list(graph):
    """[(u, v, w)] in CSR order (w None when unweighted)."""
    sources = graph.arc_sources().tolist()
    weights = [None] * graph.m if graph.weights is None else graph.weights.tolist()
    return list(zip(sources, graph.column_ids.tolist(), weights))


def same_graph(a, b) -> bool:
    return (a.directed == b.directed and np.array_equal(a.row_offsets, b.row_offsets)
            and np.array_equal(a.column_ids, b.column_ids)
            and (a.weights is None) == (b.weights is None)
            and (a.weights is None or (a.weights.dtype == b.weights.dtype and np.array_equal(a.weights, b.weights))))


# ------------------------------------------------------------------------------------------------------------
# The real files: n and m as their headers say
# ------------------------------------------------------------------------------------------------------------

REAL_FILES = [
    # file, format, open, options, n, arcs, directed, weight dtype
    ("USA-road-d.NY.gr.gz", "dimacs9", gzip.open, {}, 264346, 733846, True, np.int32),
    ("USA-road-t.NY.gr.gz", "dimacs9", gzip.open, {}, 264346, 733846, True, np.int32),
    ("rome99.gr", "dimacs9", open, {}, 3353, 8870, True, np.int32),
    ("wiki-Vote.txt.gz", "snap", gzip.open, {"directed": True}, 7115, 103689, True, None),
    ("soc-Epinions1.txt.gz", "snap", gzip.open, {"directed": True}, 75879, 508837, True, None),
    ("delaunay_n15.graph.bz2", "metis", bz2.open, {}, 32768, 2 * 98274, False, None),
    ("4elt.graph.bz2", "metis", bz2.open, {}, 15606, 2 * 45878, False, None),
    ("power.graph", "metis", open, {}, 4941, 2 * 6594, False, None),
    ("hep-th.graph.gz", "metis", gzip.open, {}, 8361, 2 * 15751, False, None),
    ("fe_4elt2.graph.gz", "metis", gzip.open, {}, 11143, 2 * 32818, False, None),
]


@pytest.mark.parametrize("name, fmt, opener, options, n, arcs, directed, dtype", REAL_FILES,
                         ids=[row[0] for row in REAL_FILES])
def test_real_file_converts_with_the_n_and_m_of_its_header(name, fmt, opener, options, n, arcs, directed, dtype):
    with opener(dataset(name), "rb") as stream:
        converted = convert_stream(stream, fmt, name, ConvertOptions(**options))
    graph = converted.graph
    assert (graph.n, graph.m, graph.directed) == (n, arcs, directed)
    assert (None if graph.weights is None else graph.weights.dtype) == (None if dtype is None else np.dtype(dtype))
    assert converted.header["n"] == n
    assert converted.header["m"] == (arcs // 2 if fmt == "metis" else arcs)  # METIS counts edges
    assert converted.stats["arcs_read"] == arcs
    assert graph.column_ids.min() >= 0 and graph.column_ids.max() < n
    assert graph.name == name.split(".gr")[0].split(".txt")[0].split(".graph")[0]


def test_usa_road_ny_weights_and_arcs_match_a_plain_reading():
    path = dataset("USA-road-d.NY.gr.gz")
    with gzip.open(path, "rt") as handle:
        table = np.array([line.split()[1:] for line in handle if line.startswith("a ")], dtype=np.int64)
    reference = from_arcs(264346, table[:, 0] - 1, table[:, 1] - 1, table[:, 2].astype(np.int32))
    with gzip.open(path, "rb") as stream:
        graph = convert_stream(stream, "dimacs9", path.name).graph
    assert same_graph(graph, reference)  # same arcs, same order within each row
    assert (graph.weights.min(), graph.weights.max()) == (1, 36946)


def test_snap_ids_are_renumbered_in_sorted_order_and_original_ids_map_back():
    path = dataset("wiki-Vote.txt.gz")
    with gzip.open(path, "rt") as handle:
        table = np.array([line.split() for line in handle if not line.startswith("#")], dtype=np.int64)
    with gzip.open(path, "rb") as stream:
        converted = convert_stream(stream, "snap", path.name, ConvertOptions(directed=True))
    ids = converted.original_ids
    assert np.array_equal(ids, np.unique(table))
    graph = converted.graph
    got = sorted(zip(ids[graph.arc_sources()].tolist(), ids[graph.column_ids].tolist()))
    assert got == sorted(map(tuple, table.tolist()))
    assert converted.stats["warnings"] == []  # '# Nodes: 7115 Edges: 103689' agrees


def test_snap_undirected_is_symmetric_with_each_pair_once_per_direction():
    path = dataset("wiki-Vote.txt.gz")
    with gzip.open(path, "rb") as stream:
        graph = convert_stream(stream, "snap", path.name, ConvertOptions(directed=False)).graph
    pairs = set(zip(graph.arc_sources().tolist(), graph.column_ids.tolist()))
    assert not graph.directed and len(pairs) == graph.m
    assert all((v, u) in pairs for u, v in pairs)


def bcsstk13_bytes() -> bytes:
    with tarfile.open(dataset("bcsstk13.tar.gz")) as archive:
        return archive.extractfile("bcsstk13/bcsstk13.mtx").read()


def test_bcsstk13_symmetric_matrix_mirrors_and_matches_scipy():
    import scipy.io

    data = bcsstk13_bytes()
    converted = convert_stream(io.BytesIO(data), "mtx", "bcsstk13.tar.gz:bcsstk13/bcsstk13.mtx")
    graph = converted.graph
    assert converted.header["rows"] == converted.header["columns"] == 2003
    assert converted.header["symmetry"] == "symmetric" and converted.header["entries"] == 42943
    assert (graph.n, graph.m, graph.directed, graph.weights.dtype) == (2003, 83883, False, np.float32)
    assert converted.stats["entries_mirrored"] == 83883 and converted.stats["diagonal_entries"] == 2003
    expected = scipy.io.mmread(io.BytesIO(data)).tocsr()
    expected.sort_indices()
    assert np.array_equal(graph.row_offsets, expected.indptr)
    assert np.array_equal(graph.column_ids, expected.indices)  # the file is column-major: rows come out sorted
    assert np.array_equal(graph.weights, expected.data.astype(np.float32))  # float32 of the float64, exactly
    assert graph_name("bcsstk13.tar.gz:bcsstk13/bcsstk13.mtx") == "bcsstk13"


def test_bcsstk13_as_the_catalog_cleans_it_is_an_unweighted_graph_without_diagonal():
    converted = convert_stream(io.BytesIO(bcsstk13_bytes()), "mtx", "bcsstk13.mtx",
                               ConvertOptions(binarize=True, drop_diagonal=True))
    assert converted.graph.weights is None
    assert converted.graph.m == 83883 - 2003 and converted.stats["self_loops_dropped"] == 2003


def test_a_real_file_in_tiny_chunks_gives_the_same_graph():
    path = dataset("rome99.gr")
    data = path.read_bytes()
    whole = convert(data, "dimacs9", chunk_bytes=len(data) + 1).graph
    for chunk_bytes in (1, 7, 4096):
        assert same_graph(convert(data, "dimacs9", chunk_bytes=chunk_bytes).graph, whole)


def test_a_converted_graph_writes_and_reads_back(tmp_path):
    path = dataset("rome99.gr")
    with open(path, "rb") as stream:
        graph = convert_stream(stream, "dimacs9", path.name).graph
    assert same_graph(read_csr(write_csr(graph, tmp_path / "rome99.csr")), graph)


# ------------------------------------------------------------------------------------------------------------
# Malformed Matrix Market files: each refused, naming the file and the line
# ------------------------------------------------------------------------------------------------------------

MALFORMED = {
    "mangled1.mtx": (1, "expected object 'matrix'"),
    "mangled2.mtx": (1, "expected layout 'coordinate'"),
    "mangled3.mtx": (1, "expected field real, integer or pattern"),
    "mangled4.mtx": (1, "expected symmetry general, symmetric or skew-symmetric"),
    "mangled5.mtx": (1, "hermitian"),
    "mangled6.mtx": (1, "hermitian"),
    "mangled7.mtx": (2, "unknown %%GraphBLAS type 'gunk'"),
    "mangled8.mtx": (4, "expected the size line 'rows columns entries'"),
    "mangled9.mtx": (4, "square"),
    "mangled10.mtx": (4, "square"),
    "mangled11.mtx": (4, "square"),
    "mangled12.mtx": (4, "square"),
    "mangled13.mtx": (4, "square"),
    "mangled14.mtx": (5, "square"),
    "mangled15.mtx": (1, "dense 'array' matrix"),
    "mangled16.mtx": (1, "dense 'array' matrix"),
    "mangled_format.mtx": (1, "dense 'array' matrix"),
    "mangled_bool.mtx": (10, "%%GraphBLAS type bool, 0..1, got '4 3 2'"),
    "mangled_int8.mtx": (8, "int8_t, -128..127, got '4 1 -129'"),
    "mangled_int16.mtx": (8, "int16_t, -32768..32767, got '4 1 -32769'"),
    "mangled_int32.mtx": (8, "int32_t, -2147483648..2147483647, got '4 1 -2147483649'"),
    "mangled_uint8.mtx": (9, "uint8_t, 0..255, got '1 2 256'"),
    "mangled_uint16.mtx": (9, "uint16_t, 0..65535, got '1 2 65536'"),
    "mangled_uint32.mtx": (9, "uint32_t, 0..4294967295, got '1 2 4294967296'"),
    "mangled_skew.mtx": (2, "cannot hold the negated values of a skew-symmetric matrix"),
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_malformed_matrix_market_file_is_refused_at_its_line(name):
    line, reason = MALFORMED[name]
    message = refusal(dataset(f"malformed/{name}").read_bytes(), "mtx", label=name)
    assert message.startswith(f"{name}:{line}: ")
    assert reason in message


def test_every_malformed_file_is_in_the_table():
    folder = dataset("malformed")
    assert sorted(path.name for path in folder.iterdir()) == sorted(MALFORMED)


# ------------------------------------------------------------------------------------------------------------
# DIMACS 9 .gr
# ------------------------------------------------------------------------------------------------------------

def test_dimacs_comments_blank_lines_tabs_and_crlf_anywhere():
    text = ("c before the header\r\n\r\np sp 3 4\r\nc between\r\na 1 2 5\r\n  a\t2 3 -1\r\n\r\n"
            "c again\r\na 3 3 0\r\na 3 1 7")  # a self-loop; no newline at the end
    converted = convert(text, "dimacs9")
    assert arc_list(converted.graph) == [(0, 1, 5), (1, 2, -1), (2, 2, 0), (2, 0, 7)]
    assert converted.graph.directed and converted.graph.weights.dtype == np.int32
    assert converted.header == {"format": "dimacs9", "n": 3, "m": 4, "problem": "sp", "fields": "u v w", "line": 3}
    stats = converted.stats
    assert (stats["lines"], stats["comment_lines"], stats["blank_lines"], stats["self_loops"]) == (10, 3, 2, 1)


def test_dimacs_parallel_arcs_and_self_loops_are_kept_in_file_order():
    graph = convert("p sp 2 4\na 1 2 9\na 2 2 1\na 1 2 3\na 1 1 4\n", "dimacs9").graph
    assert arc_list(graph) == [(0, 1, 9), (0, 1, 3), (0, 0, 4), (1, 1, 1)]


def test_dimacs_an_id_out_of_range_names_the_file_the_line_and_the_range():
    text = "p sp 4 3\na 1 2 3\na 0 5 7\na 2 3 1\n"
    assert refusal(text, "dimacs9", label="x.gr") == "x.gr:3: expected 'a u v w' with 1 <= u, v <= 4, got 'a 0 5 7'"
    assert refusal("p sp 4 1\na 1 5 1\n", "dimacs9").startswith("g:2: expected 'a u v w' with 1 <= u, v <= 4")
    assert refusal("p sp 4 1\na 1 99999999999999999999 1\n", "dimacs9").startswith("g:2: expected 'a u v w' with 1")


@pytest.mark.parametrize("arc", ["a 1 x 3", "a 1 2", "a 1 2 3 4", "a 1.0 2 3", "a 1 2 3x", "a", "a1 2 3"])
def test_dimacs_a_malformed_arc_line_is_refused(arc):
    message = refusal(f"p sp 3 1\n{arc}\n", "dimacs9")
    assert message.startswith("g:2: expected ")
    assert f"got {arc!r}" in message


def test_dimacs_weights_are_int32():
    assert arc_list(convert("p sp 2 2\na 1 2 2147483647\na 2 1 -2147483648\n", "dimacs9").graph) == [
        (0, 1, 2147483647), (1, 0, -2147483648)]
    message = refusal("p sp 2 1\na 1 2 2147483648\n", "dimacs9")
    assert message.startswith("g:2: expected 'a u v w' with -2147483648 <= w <= 2147483647")


def test_dimacs_the_p_line_must_come_once_and_before_the_arcs():
    assert refusal("c hello\na 1 2 3\np sp 2 1\n", "dimacs9").startswith("g:2: an arc before the 'p sp n m' line")
    message = refusal("p sp 2 1\na 1 2 3\np sp 2 1\n", "dimacs9")
    assert message == "g:3: a second 'p' line (the first is line 1), expected one only, got 'p sp 2 1'"
    assert refusal("c only comments\n\n", "dimacs9") == (
        "g:2: the file ends without a 'p sp n m' line (only comments and blank lines)")


@pytest.mark.parametrize("line", ["p max 3 3", "p sp 3", "p sp -1 3", "p sp x 3", "p sp 3 3 3", "p sp 2147483648 1"])
def test_dimacs_a_malformed_p_line_is_refused(line):
    assert refusal(f"c\n{line}\n", "dimacs9") == (
        f"g:2: expected 'p sp n m' with integers 0 <= n <= 2147483647 and m >= 0, got {line!r}")


def test_dimacs_the_arc_count_must_match_the_header():
    assert refusal("c\np sp 3 3\na 1 2 3\na 2 3 4\n", "dimacs9") == "g:2: the 'p sp' line says m=3 arcs, the file has 2"
    message = refusal("p sp 3 1\na 1 2 3\nc\na 2 3 4\n", "dimacs9")
    assert message.startswith("g:4: arc number 2, but the 'p sp' line (line 1) says m=1")


def test_dimacs_an_unknown_line_is_refused():
    assert refusal("p sp 3 1\nx 1 2 3\n", "dimacs9") == (
        "g:2: expected a 'c' comment or an 'a u v w' arc line, got 'x 1 2 3'")
    assert refusal("hello\n", "dimacs9") == "g:1: expected a 'c' comment or the 'p sp n m' line, got 'hello'"


def test_an_empty_file_is_refused_in_every_format():
    assert refusal("", "dimacs9") == "g:1: empty file, expected a DIMACS 'p sp n m' line"
    assert refusal("", "metis") == "g:1: empty file, expected the METIS header 'n m [fmt [ncon]]'"
    assert refusal("", "snap", directed=True) == "g:1: empty file, expected 'u v' edge lines"
    assert refusal("", "mtx").startswith("g:1: empty file, expected the banner '%%MatrixMarket")
    assert refusal("", "pace") == "g:1: empty file, expected a DIMACS 'p tw n m' line"


def test_a_header_that_lies_is_refused_in_every_format():
    assert refusal("p sp 2 5\na 1 2 1\n", "dimacs9") == "g:1: the 'p sp' line says m=5 arcs, the file has 1"
    assert refusal("2 5\n2\n1\n", "metis").startswith("g:1: the header says m=5 edges, i.e. 10 neighbour entries")
    assert refusal("3 1\n2\n1\n", "metis") == "g:1: the header says n=3 vertices, the file ends after 2 vertex lines"
    mtx = "%%MatrixMarket matrix coordinate pattern general\n3 3 4\n1 2\n2 3\n"
    assert refusal(mtx, "mtx") == "g:2: the size line says 4 entries, the file has 2"
    # SNAP's counts are informal comments: a disagreement is a warning
    converted = convert("# Nodes: 5 Edges: 9\n0 1\n1 2\n", "snap", directed=True)
    assert converted.stats["warnings"] == [
        "the comment on line 1 says Nodes: 5 Edges: 9, the file has 3 distinct ids and 2 edge lines"]


# ------------------------------------------------------------------------------------------------------------
# METIS .graph
# ------------------------------------------------------------------------------------------------------------

def test_metis_lines_are_vertices_an_empty_line_is_isolated_and_leading_spaces_are_fine():
    text = "% a path 1-2-3 and an isolated vertex 4\n4 2\n 2\n1 3\n  2  \n\n"
    converted = convert(text, "metis")
    graph = converted.graph
    assert not graph.directed and graph.weights is None
    assert arc_list(graph) == [(0, 1, None), (1, 0, None), (1, 2, None), (2, 1, None)]
    assert graph.n == 4 and graph.out_degrees().tolist() == [1, 2, 1, 0]
    assert converted.header["fields"] == {"vertex_sizes": False, "vertex_weights": 0, "edge_weights": False}


def test_metis_comment_lines_between_vertex_lines_are_no_vertices():
    graph = convert("3 2\n2\n% not vertex 2\n1 3\n%\n2\n", "metis").graph
    assert graph.out_degrees().tolist() == [1, 2, 1]
    message = refusal("3 2\n2\n% not vertex 2\n1 x\n2\n", "metis")
    assert message.startswith("g:4: vertex 2: expected neighbour ids")


def test_metis_fmt_1_keeps_edge_weights():
    graph = convert("3 2 1\n2 7\n1 7 3 -4\n2 -4\n", "metis").graph
    assert arc_list(graph) == [(0, 1, 7), (1, 0, 7), (1, 2, -4), (2, 1, -4)]
    assert graph.weights.dtype == np.int32


@pytest.mark.parametrize("header, lines", [
    ("3 2 10", ["5 2", "1 1 3", "0 2"]),                  # one vertex weight, skipped
    ("3 2 10 2", ["5 6 2", "1 1 1 3", "0 0 2"]),          # ncon = 2 vertex weights
    ("3 2 100", ["9 2", "9 1 3", "9 2"]),                 # vertex sizes
    ("3 2 011 2", ["5 6 2 7", "1 1 1 7 3 -4", "0 0 2 -4"]),  # leading zero; weights kept
    ("3 2 111", ["1 5 2 7", "1 1 1 7 3 -4", "1 0 2 -4"]),
])
def test_metis_fmt_vertex_sizes_and_weights_are_skipped(header, lines):
    graph = convert("\n".join([header, *lines]) + "\n", "metis").graph
    assert [(u, v) for u, v, _ in arc_list(graph)] == [(0, 1), (1, 0), (1, 2), (2, 1)]
    assert (graph.weights is not None) == header.split()[2].endswith("1")


def test_metis_the_degree_sum_must_be_twice_m():
    assert refusal("3 3\n2\n1 3\n2\n", "metis") == (
        "g:1: the header says m=3 edges, i.e. 6 neighbour entries (each edge at both ends), the vertex lines list 4")
    message = refusal("3 1\n2\n1 3\n2\n", "metis")
    assert message.startswith("g:3: vertex 2: more than 2m = 2 neighbour entries (the header, line 1, says m=1")


def test_metis_each_edge_must_be_at_both_ends_with_the_same_weight():
    message = refusal("3 2\n2 3\n3\n2\n", "metis")  # 1 lists 2, 2 does not list 1 (2 lists 3 instead)
    assert message == ("g:2: vertex 1 lists neighbour 2 1 time(s), but vertex 2 (line 3) lists 1 0 time(s): "
                       "expected each edge at both ends, with the same weight")
    message = refusal("% weights disagree\n2 1 1\n2 5\n1 6\n", "metis")
    assert message.startswith("g:3: vertex 1 lists neighbour 2 (weight 5) 1 time(s), but vertex 2 (line 4)")


@pytest.mark.parametrize("text, line, fragment", [
    ("2 1\n3\n1\n", 2, "vertex 1: expected neighbours 1 <= v <= 2, got '3'"),
    ("2 1\n2\n0\n", 3, "vertex 2: expected neighbours 1 <= v <= 2, got '0'"),
    ("2 1 1\n2\n1 1\n", 2, "vertex 1: expected 'neighbour weight' pairs (fmt 001), the last neighbour has no weight"),
    ("2 1 1\n2 x\n1 1\n", 2, "vertex 1: expected 'neighbour weight' pairs with integer weights"),
    ("2 1 10\n\n1 1\n", 2, "vertex 1: expected 1 vertex weight(s) first (fmt 010)"),
    ("2 1 100\n-1 2\n1 1\n", 2, "vertex 1: expected a vertex size first (fmt 100)"),
    ("2 1\n2\n1\n\n1\n", 5, "a line after the last vertex line (the header, line 1, says n=2)"),
    ("2\n", 1, "expected the header 'n m [fmt [ncon]]'"),
    ("2 1 12\n", 1, "expected the header 'n m [fmt [ncon]]'"),
    ("2 1 1 2\n", 1, "ncon=2 vertex weights, but fmt 1 has none"),
])
def test_metis_a_malformed_line_is_refused(text, line, fragment):
    message = refusal(text, "metis")
    assert message.startswith(f"g:{line}: ")
    assert fragment in message


def test_metis_trailing_blank_lines_after_the_last_vertex_are_fine():
    assert convert("2 1\n2\n1\n\n\n% the end\n", "metis").graph.m == 2


# ------------------------------------------------------------------------------------------------------------
# SNAP edge lists
# ------------------------------------------------------------------------------------------------------------

def test_snap_non_contiguous_ids_are_compacted():
    converted = convert("# a comment\n30\t10\n10 20\r\n\n# more\n20 30\n30 30\n", "snap", directed=True)
    assert converted.original_ids.tolist() == [10, 20, 30]
    assert arc_list(converted.graph) == [(0, 1, None), (1, 2, None), (2, 0, None), (2, 2, None)]
    assert converted.header == {"format": "snap", "columns": 2, "fields": "u v", "directed": True}


def test_snap_must_be_told_whether_it_is_directed():
    with pytest.raises(GraphFormatError, match="^g: a SNAP edge list does not say whether it is directed"):
        convert("0 1\n", "snap")


def test_snap_undirected_adds_reverse_arcs_and_merges_duplicates():
    converted = convert("0 1\n1 0\n1 2\n0 1\n", "snap", directed=False)
    assert not converted.graph.directed
    assert arc_list(converted.graph) == [(0, 1, None), (1, 0, None), (1, 2, None), (2, 1, None)]
    assert converted.stats["parallel_arcs_merged"] == 4


def test_snap_a_third_column_is_an_integer_weight():
    graph = convert("5 7 3\n7 5 -2\n", "snap", directed=True).graph
    assert arc_list(graph) == [(0, 1, 3), (1, 0, -2)]
    assert convert("5 7 3.5\n", "snap", directed=True, binarize=True).graph.weights is None  # skipped unread
    assert refusal("5 7 3\n7 5\n", "snap", directed=True) == (
        "g:2: expected 'u v w' like the first data line (3 columns), got '7 5'")
    assert refusal("5 7\n7 5 1\n", "snap", directed=True) == (
        "g:2: expected 'u v' like the first data line (2 columns), got '7 5 1'")
    assert refusal("5 7 1 2\n", "snap", directed=True) == "g:1: expected 'u v w', got more columns: '5 7 1 2'"
    assert refusal("5 7 0.5\n", "snap", directed=True).startswith("g:1: expected 'u v w' with an integer weight")


@pytest.mark.parametrize("line, fragment", [
    ("1 x", "expected 'u v' with integer ids"),
    ("1", "expected 'u v' with integer ids"),
    ("-1 2", "with ids 0 <= id <= 2147483647"),
    ("1 2147483648", "with ids 0 <= id <= 2147483647"),
])
def test_snap_a_malformed_line_is_refused(line, fragment):
    message = refusal(f"# c\n0 1\n{line}\n", "snap", directed=True)
    assert message.startswith("g:3: ") and fragment in message


def test_snap_a_file_of_comments_only_is_refused():
    assert refusal("# nothing\n", "snap", directed=False) == (
        "g:1: the file ends without any 'u v' edge line (only comments and blank lines)")


def test_snap_sparse_huge_ids_are_compacted_too():
    converted = convert("2000000000 5\n5 2147483647\n", "snap", directed=True)
    assert converted.original_ids.tolist() == [5, 2000000000, 2147483647]
    assert arc_list(converted.graph) == [(0, 2, None), (1, 0, None)]


# ------------------------------------------------------------------------------------------------------------
# PACE 2016 .gr (the DIMACS road networks' topology)
# ------------------------------------------------------------------------------------------------------------

def test_pace_edges_are_undirected_unweighted_and_one_based():
    converted = convert("c a path 1-2-3 and a repeated edge\np tw 4 3\n1 2\n2 3\n\n3 2\n", "pace")
    graph = converted.graph
    assert not graph.directed and graph.weights is None and graph.n == 4
    assert arc_list(graph) == [(0, 1, None), (1, 0, None), (1, 2, None), (2, 1, None)]
    assert converted.header == {"format": "pace", "n": 4, "m": 3, "problem": "tw", "fields": "u v", "line": 2}
    assert converted.stats["arcs_read"] == 3 and converted.stats["parallel_arcs_merged"] == 2


def test_pace_directed_keeps_each_edge_as_written():
    graph = convert("p tw 3 2\n1 2\n3 2\n", "pace", directed=True).graph
    assert graph.directed and arc_list(graph) == [(0, 1, None), (2, 1, None)]


@pytest.mark.parametrize("text, message", [
    ("p tw 3 1\n1 4\n", "g:2: expected an edge 'u v' with 1 <= u, v <= 3, got '1 4'"),
    ("p tw 3 1\n1 2 5\n", "g:2: expected an edge 'u v' with integers u and v, got '1 2 5'"),
    ("p tw 3 1\na 1 2 5\n", "g:2: expected an edge 'u v' with integers u and v, got 'a 1 2 5'"),
    ("p tw 3 1\n1 2\n2 3\n", "g:3: edge number 2, but the 'p tw' line (line 1) says m=1: expected no more edges, "
                               "got '2 3'"),
    ("p tw 3 2\n1 2\n", "g:1: the 'p tw' line says m=2 edges, the file has 1"),
    ("p tw 3 1\np tw 3 1\n", "g:2: a second 'p' line (the first is line 1), expected one only, got 'p tw 3 1'"),
    ("1 2\n", "g:1: expected a 'c' comment or the 'p tw n m' line, got '1 2'"),
    ("p sp 3 1\n", "g:1: expected 'p tw n m' with integers 0 <= n <= 2147483647 and m >= 0, got 'p sp 3 1'"),
])
def test_pace_a_malformed_file_is_refused_at_its_line(text, message):
    assert refusal(text, "pace") == message


def test_pace_road_network_bay_has_the_dimacs_vertices_and_both_arcs_of_each_edge():
    with lzma.open(dataset("BAY.gr.xz"), "rb") as stream:
        converted = convert_stream(stream, "pace", "BAY.gr.xz")
    graph = converted.graph
    assert (converted.header["n"], converted.header["m"]) == (321270, 397415)  # the README's n and edges
    assert (graph.n, graph.m, graph.directed, graph.weights) == (321270, 2 * 397415, False, None)
    assert converted.stats["parallel_arcs_merged"] == 0  # no edge twice, as the conversion promises
    assert graph.name == "BAY"


# ------------------------------------------------------------------------------------------------------------
# SNAP count lines: copies whose comment header was replaced by a line of counts
# ------------------------------------------------------------------------------------------------------------

def test_snap_a_first_line_n_m_that_counts_the_rest_is_a_count_line():
    converted = convert("3 2\n0 1\n5 1\n", "snap", directed=True)
    assert converted.graph.n == 3 and arc_list(converted.graph) == [(0, 1, None), (2, 1, None)]
    assert converted.original_ids.tolist() == [0, 1, 5]
    assert converted.header == {"format": "snap", "n": 3, "m": 2, "line": 1, "count_line": True, "columns": 2,
                                "fields": "u v", "directed": True}
    assert converted.stats["arcs_read"] == 2 and converted.stats["warnings"] == []


def test_snap_a_first_line_that_does_not_count_the_rest_is_an_edge():
    converted = convert("3 7\n0 1\n5 1\n", "snap", directed=True)  # 2 edge lines after it, not 7
    assert converted.original_ids.tolist() == [0, 1, 3, 5, 7] and converted.stats["arcs_read"] == 3
    assert "count_line" not in converted.header


def test_snap_a_single_number_first_line_is_a_vertex_count():
    converted = convert("10\n0 1\n1 2\n", "snap", directed=False)
    assert converted.graph.n == 3 and converted.header["n"] == 10 and converted.header["count_line"]
    assert converted.stats["warnings"] == ["the count line (line 1) says 10, the file has 3 distinct ids and 2 edge "
                                           "lines"]
    assert refusal("10\n11\n0 1\n", "snap", directed=True) == (
        "g:2: expected 'u v' or 'u v w' with integer ids, got '11'")  # one count line only


@pytest.mark.parametrize("name, n, arcs, header", [
    ("email-Enron.txt.gz", 36692, 367662, {"n": 36692, "m": 367662, "count_line": True}),  # 'N M' count line
    ("p2p-Gnutella04.txt.gz", 10876, 39994, {"n": 10900, "count_line": True}),  # a rounded vertex count
    ("p2p-Gnutella31.txt.gz", 62586, 147892, {}),  # no header at all, spaces for tabs
])
def test_snap_copies_without_their_comment_header_read_as_the_real_graph(name, n, arcs, header):
    with gzip.open(dataset(name), "rb") as stream:
        converted = convert_stream(stream, "snap", name, ConvertOptions(directed=True))
    assert (converted.graph.n, converted.graph.m, converted.stats["arcs_read"]) == (n, arcs, arcs)
    assert header.items() <= converted.header.items()


# ------------------------------------------------------------------------------------------------------------
# Matrix Market
# ------------------------------------------------------------------------------------------------------------

def mtx(field, symmetry, *entries, size=None, extra_header=""):
    size = size or f"3 3 {len(entries)}"
    return f"%%MatrixMarket matrix coordinate {field} {symmetry}\n{extra_header}% comment\n{size}\n" + \
        "".join(entry + "\n" for entry in entries)


def test_mtx_general_real_values_become_float32_weights_of_arcs_i_to_j():
    converted = convert(mtx("real", "general", "1 2 0.5", "3 1 -2.25e1", "2 2 1e-3"), "mtx")
    graph = converted.graph
    assert graph.directed and graph.weights.dtype == np.float32
    assert arc_list(graph) == [(0, 1, 0.5), (1, 1, np.float32(1e-3)), (2, 0, -22.5)]
    assert converted.header["field"] == "real" and converted.header["symmetry"] == "general"


def test_mtx_integer_values_become_int32_weights():
    graph = convert(mtx("integer", "general", "1 2 7", "2 3 -2147483648"), "mtx").graph
    assert arc_list(graph) == [(0, 1, 7), (1, 2, -2147483648)]
    message = refusal(mtx("integer", "general", "1 2 2147483648"), "mtx")
    assert message == "g:4: expected integer values within int32, -2147483648..2147483647, got '1 2 2147483648'"


def test_mtx_pattern_is_unweighted_and_symmetric_is_mirrored_without_doubling_the_diagonal():
    converted = convert(mtx("pattern", "symmetric", "2 1", "3 3", "3 2"), "mtx")
    graph = converted.graph
    assert not graph.directed and graph.weights is None
    assert arc_list(graph) == [(0, 1, None), (1, 0, None), (1, 2, None), (2, 2, None), (2, 1, None)]
    assert (converted.stats["entries"], converted.stats["entries_mirrored"]) == (3, 5)


def test_mtx_skew_symmetric_mirrors_with_the_value_negated():
    graph = convert(mtx("integer", "skew-symmetric", "2 1 5", "3 1 -4"), "mtx").graph
    assert graph.directed
    assert sorted(arc_list(graph)) == [(0, 1, -5), (0, 2, 4), (1, 0, 5), (2, 0, -4)]
    assert "a skew-symmetric matrix has a zero diagonal" in refusal(mtx("real", "skew-symmetric", "2 2 1.0"), "mtx")
    assert "pattern skew-symmetric' is no valid combination" in refusal(mtx("pattern", "skew-symmetric"), "mtx")


@pytest.mark.parametrize("entry, fragment", [
    ("1 2", "expected an entry 'i j value' (field real), the value is missing"),
    ("1 2 x", "expected an entry 'i j value' with a finite decimal number value"),
    ("1 2 inf", "with a finite decimal number value"),
    ("1 2 nan", "with a finite decimal number value"),
    ("1 2 1.5e", "with a finite decimal number value"),
    ("1 2 1e39", "expected a value within float32 range"),
    ("1 2 3 4", "expected an entry 'i j value' (field real), got more tokens"),
    ("0 2 1", "expected an entry 'i j value' with 1 <= i, j <= 3"),
    ("1 4 1", "expected an entry 'i j value' with 1 <= i, j <= 3"),
    ("1 x 1", "expected an entry 'i j value' with integer indices"),
])
def test_mtx_a_malformed_entry_is_refused(entry, fragment):
    message = refusal(mtx("real", "general", "1 1 1", entry), "mtx")
    assert message.startswith("g:5: ") and fragment in message


def test_mtx_pattern_entries_have_two_tokens():
    assert "(field pattern), got more tokens" in refusal(mtx("pattern", "general", "1 2 1"), "mtx")


def test_mtx_the_entry_count_must_match_the_size_line():
    assert refusal(mtx("pattern", "general", "1 2", "2 3", size="3 3 1"), "mtx") == (
        "g:5: entry number 2, but the size line (line 3) says 1 entries: expected no more, got '2 3'")


def test_mtx_a_repeated_entry_is_refused_naming_both_lines():
    text = mtx("real", "general", "1 2 1.0", "2 3 1.0", "% between", "", "1 2 4.0", size="3 3 3")
    assert refusal(text, "mtx") == "g:8: entry (1, 2) is already on line 4: expected each entry once"
    text = mtx("pattern", "symmetric", "2 1", "3 3", "1 2")  # (1, 2) is the mirror of (2, 1)
    message = refusal(text, "mtx")
    assert message.startswith("g:6: entry (") and "or its mirror is already on line 4" in message


def test_mtx_blank_and_comment_lines_between_entries_keep_line_numbers_right():
    text = mtx("integer", "general", "1 2 1", "", "% a note", "2 3 x", size="3 3 2")
    assert refusal(text, "mtx").startswith("g:7: expected an entry 'i j value' with an integer value")


def test_mtx_graphblas_types_bound_the_values():
    header = "%%GraphBLAS type int8_t\n"
    assert arc_list(convert(mtx("integer", "general", "1 2 -128", extra_header=header), "mtx").graph) == [(0, 1, -128)]
    assert "int8_t, -128..127" in refusal(mtx("integer", "general", "1 2 128", extra_header=header), "mtx")
    assert refusal(mtx("real", "general", extra_header=header), "mtx").startswith(
        "g:2: %%GraphBLAS type int8_t holds integers, but the banner (line 1) says field 'real'")
    assert refusal(mtx("real", "general", extra_header="%%GraphBLAS type double complex\n"), "mtx").startswith(
        "g:2: complex values are not graph weights")
    assert convert(mtx("real", "general", "1 2 0.5", extra_header="%%GraphBLAS type double\n"), "mtx").graph.m == 1


def test_mtx_banner_keywords_are_case_insensitive_and_complex_is_refused():
    graph = convert("%%MatrixMarket MATRIX Coordinate Pattern General\n2 2 1\n1 2\n", "mtx").graph
    assert arc_list(graph) == [(0, 1, None)]
    assert "complex values are not graph weights" in refusal(
        "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n", "mtx")
    assert refusal("%MatrixMarket matrix coordinate real general\n", "mtx").startswith("g:1: expected the banner")


def test_mtx_fortran_exponents_and_tiny_values():
    graph = convert(mtx("real", "general", "1 1 1.5d2", "1 2 -2.5D-1", "1 3 1e-50", "2 1 .5", "2 2 5."), "mtx").graph
    assert graph.weights.tolist() == [150.0, -0.25, 0.0, 0.5, 5.0]


def float32_of(text: str) -> np.float32:
    with np.errstate(over="ignore"):
        return np.float32(float(text.replace("d", "e").replace("D", "e")))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(min_value=-3e38, max_value=3e38, allow_nan=False), min_size=1, max_size=30),
       st.sampled_from(["{!r}", "{:.17g}", "{:.25e}", "{:.3f}", "{:.9e}", "{:.40f}"]))
def test_mtx_real_values_round_as_float32_of_the_nearest_float64(values, style):
    texts = [style.format(value) for value in values]
    entries = [f"1 {index + 1} {text}" for index, text in enumerate(texts)]
    graph = convert(mtx("real", "general", *entries, size=f"{len(texts)} {len(texts)} {len(texts)}"), "mtx").graph
    assert graph.weights.tolist() == [float32_of(text) for text in texts]


def test_mtx_values_at_a_float32_rounding_midpoint_go_through_python():
    rng = np.random.default_rng(5)
    low = rng.uniform(-1e6, 1e6, 200).astype(np.float32)
    midpoints = (low.astype(np.float64) + np.nextafter(low, np.float32(np.inf)).astype(np.float64)) / 2
    texts = [repr(float(value)) for value in midpoints] + [f"{value:.30e}" for value in midpoints]
    entries = [f"1 {index + 1} {text}" for index, text in enumerate(texts)]
    size = f"{len(texts)} {len(texts)} {len(texts)}"
    converted = convert(mtx("real", "general", *entries, size=size), "mtx")
    assert converted.graph.weights.tolist() == [float32_of(text) for text in texts]
    assert converted.stats["values_converted_by_python"] >= 200


# ------------------------------------------------------------------------------------------------------------
# Cleaning options
# ------------------------------------------------------------------------------------------------------------

MESSY = "p sp 5 7\na 1 2 9\na 1 2 4\na 2 1 6\na 2 2 1\na 3 4 2\na 4 3 8\na 3 3 0\n"  # vertex 5 isolated


def test_drop_self_loops():
    converted = convert(MESSY, "dimacs9", drop_self_loops=True)
    assert arc_list(converted.graph) == [(0, 1, 9), (0, 1, 4), (1, 0, 6), (2, 3, 2), (3, 2, 8)]
    assert converted.stats["self_loops_dropped"] == 2
    assert same_graph(convert(MESSY, "dimacs9", drop_diagonal=True).graph, converted.graph)


def test_merge_parallel_keeps_the_lightest_and_sorts_rows():
    converted = convert(MESSY, "dimacs9", merge_parallel=True)
    assert arc_list(converted.graph) == [(0, 1, 4), (1, 0, 6), (1, 1, 1), (2, 2, 0), (2, 3, 2), (3, 2, 8)]
    assert converted.stats["parallel_arcs_merged"] == 1


def test_merge_parallel_on_float_and_negative_weights():
    weights = np.array([2.5, -1.0, -3.0, 0.0], dtype=np.float32)
    graph = from_arcs(2, [0, 0, 0, 1], [1, 1, 1, 0], weights)
    from sssp_bench.datasets.formats.cleaning import merge_parallel_arcs

    _, column_ids, merged_weights, merged = merge_parallel_arcs(
        graph.row_offsets.copy(), graph.column_ids.copy(), graph.weights.copy())
    assert merged == 2 and column_ids.tolist() == [1, 0] and merged_weights.tolist() == [-3.0, 0.0]


def test_symmetrize_adds_reverse_arcs_and_keeps_the_lightest_per_pair():
    converted = convert(MESSY, "dimacs9", symmetrize=True)
    graph = converted.graph
    assert not graph.directed
    assert arc_list(graph) == [(0, 1, 4), (1, 0, 4), (1, 1, 1), (2, 2, 0), (2, 3, 2), (3, 2, 2)]
    assert converted.stats["reverse_arcs_added"] == 7
    # asking a directed format for an undirected graph symmetrizes it
    assert same_graph(convert(MESSY, "dimacs9", directed=False).graph, graph)


def test_binarize_drops_values_but_still_checks_them():
    assert convert(MESSY, "dimacs9", binarize=True).graph.weights is None
    assert convert("2 1 1\n2 5\n1 5\n", "metis", binarize=True).graph.weights is None
    assert refusal("p sp 2 1\na 1 2 x\n", "dimacs9", binarize=True).startswith("g:2: ")


def test_largest_component_renumbers_and_says_where_vertices_came_from():
    converted = convert(MESSY, "dimacs9", largest_component=True)
    assert converted.graph.n == 2 and converted.stats["vertices_dropped"] == 3
    assert converted.original_ids.tolist() == [1, 2]  # DIMACS ids as in the file: 1-based
    assert arc_list(converted.graph) == [(0, 1, 9), (0, 1, 4), (1, 0, 6), (1, 1, 1)]
    # of equally large components, the one with the smallest vertex id; SNAP ids as written
    snap = convert("7 8\n8 7\n3 4\n9 3\n", "snap", directed=True, largest_component=True)
    assert snap.original_ids.tolist() == [3, 4, 9]
    assert arc_list(snap.graph) == [(0, 1, None), (2, 0, None)]
    assert snap.stats["arcs_dropped"] == 2


def test_options_combine_in_order():
    converted = convert(MESSY, "dimacs9", drop_self_loops=True, symmetrize=True, largest_component=True,
                        binarize=True)
    assert converted.graph.weights is None and converted.graph.n == 2
    assert arc_list(converted.graph) == [(0, 1, None), (1, 0, None)]


# ------------------------------------------------------------------------------------------------------------
# Streaming: the chunk size and the block size change nothing
# ------------------------------------------------------------------------------------------------------------

SAMPLES = {
    "dimacs9": ("c x\np sp 4 5\na 1 2 3\nc y\na 4 1 -2\n\na 2 2 7\na 3 4 1\na 1 2 2\n", {}),
    "metis": ("% g\n5 3 1\n2 3 5 1\n1 3\n\n5 2\n  1 1 4 2\n", {}),
    "snap": ("# g\n10 20 1\n30 10 2\n\n20 20 3\n# z\n10 30 4\n", {"directed": True}),
    "mtx": ("%%MatrixMarket matrix coordinate real symmetric\n% x\n4 4 4\n2 1 1.5\n3 3 -2e-1\n\n"
            + "4 1 0.30000000000000004441\n4 2 7\n", {}),
    "pace": ("c g\np tw 5 4\n1 2\nc y\n4 1\n\n2 2\n3 5\n", {}),
    # The binary formats (layouts in formats/binary.py); 10 is a newline byte, so the chunks split inside arrays
    "binary-csr": (struct.pack("<8sIIQQ32x", b"SSSPCSR\0", 1, 0b11, 4, 5)  # directed, weighted, int32
                   + np.array([0, 2, 3, 3, 5], "<i8").tobytes() + bytes(24)  # row offsets at 64, columns at 128
                   + np.array([1, 3, 2, 0, 3], "<i4").tobytes() + bytes(44)  # weights at 192
                   + np.array([10, -2, 7, 10, 1], "<i4").tobytes(), {}),
    "gapbs-wsg": (struct.pack("<?qq", True, 3, 3) + np.array([0, 2, 2, 3], "<i8").tobytes()
                  + np.array([[1, 10], [2, -1], [0, 10]], "<i4").tobytes()  # (target, weight) pairs
                  + np.array([0, 1, 2, 3], "<i8").tobytes() + np.array([[2, 10], [0, 10], [0, -1]], "<i4").tobytes(),
                  {}),
    "gapbs-sg": (struct.pack("<?qq", False, 4, 10) + np.array([0, 1, 2] + [2] * 6 + [3, 4], "<i8").tobytes()
                 + np.array([9, 9, 0, 1], "<i4").tobytes(), {}),
}
BROKEN = {
    "dimacs9": (SAMPLES["dimacs9"][0].replace("a 3 4 1", "a 3 9 1"), 8),
    "metis": (SAMPLES["metis"][0].replace("5 2\n", "5 x\n"), 6),
    "snap": (SAMPLES["snap"][0].replace("10 30 4", "10 30 4 4"), 7),
    "mtx": (SAMPLES["mtx"][0].replace("4 2 7", "4 2 7 7"), 8),
    "pace": (SAMPLES["pace"][0].replace("3 5", "3 6"), 8),
    "binary-csr": (SAMPLES["binary-csr"][0][:-1], None),  # a binary file's errors name the file, not a line
    "gapbs-wsg": (SAMPLES["gapbs-wsg"][0].replace(np.array([0, 1, 2, 3], "<i8").tobytes(),  # in-degrees 2, 0, 1
                                                  np.array([0, 2, 2, 3], "<i8").tobytes()), None),
    "gapbs-sg": (SAMPLES["gapbs-sg"][0][:-4] + np.array([10], "<i4").tobytes(), None),
}


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("chunk_bytes", [1, 2, 3, 5, 8, 13, 64])
def test_tiny_chunks_give_the_same_graph_and_the_same_error_lines(fmt, chunk_bytes):
    text, options = SAMPLES[fmt]
    whole = convert(text, fmt, chunk_bytes=1 << 20, **options)
    chunked = convert(text, fmt, chunk_bytes=chunk_bytes, **options)
    assert same_graph(chunked.graph, whole.graph)
    assert chunked.header == whole.header and chunked.stats == whole.stats
    broken, line = BROKEN[fmt]
    assert refusal(broken, fmt, chunk_bytes=chunk_bytes, **options) == refusal(broken, fmt, **options)
    assert refusal(broken, fmt, chunk_bytes=chunk_bytes, **options).startswith("g: " if line is None else f"g:{line}: ")


@pytest.mark.parametrize("fmt", FORMATS)
def test_tiny_arc_blocks_give_the_same_graph(fmt, monkeypatch):
    text, options = SAMPLES[fmt]
    whole = convert(text, fmt, **options)
    monkeypatch.setattr(parsing, "FIRST_BLOCK_LIMIT", 1)
    monkeypatch.setattr(parsing, "GROWN_BLOCK_LIMIT", 2)
    monkeypatch.setattr(parsing, "UNKNOWN_FIRST_BLOCK", 1)
    for chunk_bytes in (3, 1 << 20):
        assert same_graph(convert(text, fmt, chunk_bytes=chunk_bytes, **options).graph, whole.graph)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 40), st.lists(st.tuples(st.integers(0, 39), st.integers(0, 39), st.integers(-9, 9)),
                                    max_size=120), st.integers(1, 50))
def test_random_dimacs_files_match_a_plain_reading(n, arcs, chunk_bytes):
    arcs = [(u % n, v % n, w) for u, v, w in arcs]
    text = f"p sp {n} {len(arcs)}\n" + "".join(f"a {u + 1} {v + 1} {w}\n" for u, v, w in arcs)
    graph = convert(text, "dimacs9", chunk_bytes=chunk_bytes).graph
    reference = from_arcs(n, [a[0] for a in arcs], [a[1] for a in arcs], np.array([a[2] for a in arcs], np.int32))
    assert same_graph(graph, reference)


# ------------------------------------------------------------------------------------------------------------
# Names
# ------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name, fmt", [
    ("USA-road-d.NY.gr.gz", "dimacs9"), ("rome99.gr", "dimacs9"), ("delaunay_n15.graph.bz2", "metis"),
    ("4elt.graph", "metis"), ("wiki-Vote.txt.gz", "snap"), ("x/soc-Epinions1.TXT.xz", "snap"),
    ("bcsstk13/bcsstk13.mtx", "mtx"), ("a.mtx.bz2", "mtx"), ("bcsstk13.tar.gz", None), ("README", None),
    ("graph.gz", None),
])
def test_sniff_format_from_a_file_name(name, fmt):
    assert sniff_format(name) == fmt


@pytest.mark.parametrize("head, fmt", [
    (b"c PACE\np tw 321270 397415\n1 2\n", "pace"), (b"c 9th DIMACS\np sp 3 1\na 1 2 3\n", "dimacs9"),
    (b"", "dimacs9"), (b"p max 3 1\n", "dimacs9"),  # not a PACE file: the DIMACS parser says what is wrong
])
def test_a_gr_file_is_dimacs9_or_pace_by_the_problem_its_p_line_names(head, fmt):
    assert sniff_format("BAY.gr.xz", head) == fmt


def test_an_unknown_format_is_refused():
    assert refusal("x", "edgelist") == (
        "g: unknown graph format 'edgelist', expected one of dimacs9, metis, snap, mtx, pace, binary-csr, gapbs-wsg, "
        "gapbs-sg")


@pytest.mark.parametrize("parser", PARSERS, ids=lambda parser: parser.format_name)
def test_a_format_is_its_parser_registered_once(parser):
    assert parser.format_name in FORMATS and parser.format_name in catalog.FORMATS
    sample = SAMPLES[parser.format_name][0]
    head = sample if isinstance(sample, bytes) else sample.encode()
    assert sniff_format(f"graph{parser.suffix}.gz", head) == parser.format_name
    assert graph_name(f"road{parser.suffix}") == "road"


@pytest.mark.parametrize("text, fmt, message", [
    ("p sp 5 99999999999999999999999\na 1 2 3\n", "dimacs9",
     "g:1: the header announces 99999999999999999999999 arcs; at most 4611686018427387904 fit a CSR file"),
    ("%%MatrixMarket matrix coordinate real general\n3 3 99999999999999999999999\n1 2 1.0\n", "mtx",
     "g:2: the header announces 99999999999999999999999 entries; at most 4611686018427387904 fit a CSR file"),
    ("3 99999999999999999999999\n2\n1 3\n2\n", "metis",
     "g:1: the header announces 199999999999999999999998 arcs (twice its edges); at most 4611686018427387904 fit a "
     "CSR file"),
])
def test_a_header_announcing_more_arcs_than_a_csr_holds_is_refused_at_its_line(text, fmt, message):
    assert refusal(text, fmt) == message


# ------------------------------------------------------------------------------------------------------------
# Declared sizes: checked against the file's size and the memory there is, before anything is allocated
# ------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, fmt, message", [
    ("p sp 10 1000000000\na 1 2 3\n", "dimacs9",
     "g:1: the header declares m=1,000,000,000 arcs, which take at least 7,999,999,999 bytes, but the file has 27"),
    ("p tw 10 1000000\n1 2\n", "pace",
     "g:1: the header declares m=1,000,000 edges, which take at least 3,999,999 bytes, but the file has 20"),
    ("2000000000 0\n\n", "metis",
     "g:1: the header declares n=2,000,000,000 vertex lines and 0 neighbour entries (m=0 edges), which take at "
     "least 1,999,999,999 bytes, but the file has 14"),
    ("%%MatrixMarket matrix coordinate pattern general\n3 3 50000000\n1 2\n", "mtx",
     "g:2: the header declares 50,000,000 entries, which take at least 199,999,999 bytes, but the file has 66"),
])
def test_a_header_declaring_more_lines_than_the_file_holds_is_refused_at_its_line(text, fmt, message):
    data = text.encode()
    with pytest.raises(GraphFormatError) as caught:
        convert_stream(io.BytesIO(data), fmt, "g", ConvertOptions(), data_bytes=len(data))
    assert str(caught.value) == message


def test_a_header_declaring_a_graph_bigger_than_memory_is_refused_before_allocating(monkeypatch):
    """The issue's 33-byte file declaring 200M vertices: 4.5 GiB to build, refused where 1 GiB is available."""
    monkeypatch.setenv("SSSP_BENCH_MEMORY_LIMIT", "1G")
    with pytest.raises(UserError) as caught:
        convert("c 33 bytes\np sp 200000000 0\n", "dimacs9")
    assert str(caught.value) == (
        "g:2: the header declares n=200,000,000 vertices and 0 arcs: building it takes at least 4.47 GiB, but "
        "1.00 GiB is available (SSSP_BENCH_MEMORY_LIMIT=1G); nothing was allocated. Set "
        "SSSP_BENCH_MEMORY_LIMIT=<bytes> (or none) to check against another amount")
    monkeypatch.setenv("SSSP_BENCH_MEMORY_LIMIT", "8G")  # the documented override lets it through
    assert convert("c 33 bytes\np sp 200 0\n", "dimacs9").graph.n == 200


def test_without_an_override_a_size_no_machine_has_is_refused(monkeypatch):
    """Two billion vertices and 10^12 arcs (a compressed file: its size says nothing) need terabytes."""
    monkeypatch.delenv("SSSP_BENCH_MEMORY_LIMIT", raising=False)
    with pytest.raises(UserError, match=r"^g:1: the header declares n=2,000,000,000 vertices and "
                                        r"1,000,000,000,000 arcs: building it takes at least 11\.0 TiB, but .* "
                                        r"is available \("):
        convert("p sp 2000000000 1000000000000\na 1 2 3\n", "dimacs9")


def test_a_memory_limit_that_is_no_size_is_refused(monkeypatch):
    monkeypatch.setenv("SSSP_BENCH_MEMORY_LIMIT", "lots")
    with pytest.raises(UserError) as caught:
        convert("p sp 2 0\n", "dimacs9")
    assert str(caught.value) == ("SSSP_BENCH_MEMORY_LIMIT='lots': expected a size in bytes (e.g. 16G, 512M, 1.5T, "
                                 "4000000000) or 'none'")


def test_binarize_drops_a_matrix_s_nan_and_inf_values_which_it_refuses_otherwise():
    """LAGraph's comments_west0067.mtx holds a nan: its pattern is a graph, its values are not weights."""
    text = ("%%MatrixMarket matrix coordinate real general\n%%GraphBLAS type double\n4 4 5\n"
            "1 2 nan\n2 3 -Inf\n3 4 infinity\n4 1 1e300\n1 3 2.5\n")
    binarized = convert(text, "mtx", binarize=True).graph
    assert binarized.weights is None and arc_list(binarized) == [(0, 1, None), (0, 2, None), (1, 2, None),
                                                                 (2, 3, None), (3, 0, None)]
    assert refusal(text, "mtx") == (
        "g:4: expected an entry 'i j value' with a finite decimal number value, got '1 2 nan'")
    # a value that is no number at all is still refused
    assert refusal(text.replace("nan", "nana"), "mtx", binarize=True) == (
        "g:4: expected an entry 'i j value' with a finite decimal number value, got '1 2 nana'")
