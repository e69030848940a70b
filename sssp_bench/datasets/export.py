"""Graphs written in the formats other programs read (`sssp-bench export`, and the runner's external programs):

    write_graph(graph, "dimacs9", "out/NY.gr")      # -> Path; atomic: a temporary beside it, renamed last
    load_for_export("USA-road-d.NY", datasets, weights="uniform:min=1,max=100,seed=1")   # as a config loads it

Every format reads back through the project's own parser (datasets/formats, what `import` uses) to the same CSR
arrays, row offsets, column ids and weights, bit for bit (tests/test_export.py checks it on the shared datasets):

    format      suffix   what is written                                       reads back as
    dimacs9     .gr      `p sp n m`, then `a u v w` per arc, 1-based            directed
    mtx         .mtx     coordinate general integer|real|pattern, `i j [v]`      directed
    metis       .graph   `n m [1]`, then one line of `v [w]` per vertex          undirected
    snap        .txt     `# Nodes: n Edges: m` header, `u<TAB>v[<TAB>w]`, 0-based  directed (import --directed)
    binary-csr  .csr     the dataset cache's own `.csr` layout (below)           as the file says
    gapbs-sg    .sg      GAPBS's serialized graph (formats/binary.py)            as the file says
    gapbs-wsg   .wsg     GAPBS's weighted serialized graph                       as the file says

Arcs are written in CSR order (row by row, each row's arcs in their order), so the parser rebuilds the same rows.
An undirected graph's every arc is written (both of each edge) where a format has no word for "undirected"
(dimacs9, mtx general, snap): the file then reads back as a directed graph of the same arcs, which is the same
graph to every shortest-path code. METIS, binary-csr and GAPBS's files say it themselves.

What a format cannot carry is refused in one line before anything is written, never changed quietly:
* float32 weights: only mtx (`real`, written with 9 significant digits, which give the float32 back exactly) and
  binary-csr hold them; dimacs9, metis, snap and gapbs-wsg hold int32. NaN or infinite weights: nowhere but
  binary-csr.
* parallel arcs (two arcs u -> v): not in mtx (a matrix holds entry (i, j) once).
* directed graphs: not in metis (undirected only; its arcs must be symmetric, weights included, and number 2m).
  Its edge weights are positive integers (the METIS manual's rule), so zero or negative weights are refused too.
* isolated vertices (no arc in or out): not in snap, whose vertices are the ids its lines name (nor a graph
  without arcs).
* weights: gapbs-sg holds none (export gapbs-wsg). An unweighted graph in dimacs9 or gapbs-wsg, whose arcs
  always carry a weight, is written with weight 1 on every arc: the weight every shortest-path code here gives an
  unweighted arc (so it reads back weighted, all ones).
Negative int32 weights, self-loops and (but for mtx) parallel arcs are written as they are.

binary-csr is the layout of the dataset cache's `.csr` files (graph/csr.py's docstring; the same bytes, without
the JSON sidecar): a 64-byte little-endian header (magic b"SSSPCSR\\0", uint32 version 1, uint32 flags: bit 0
directed, bit 1 weighted, bits 2-3 weight dtype 0 int32 / 1 float32, uint64 n, uint64 m, 32 reserved zero bytes),
then int64 row_offsets[n + 1], int32 column_ids[m] and, when weighted, int32 or float32 weights[m], each section
starting at a multiple of 64 bytes (zero padding). A program reads it with three seeks. GAPBS's layouts are in
datasets/formats/binary.py's docstring.

Big graphs are streamed: text is formatted by a numba kernel block by block (`ARC_BLOCK` arcs at a time) into one
reused buffer, binary arrays are written in slices, so memory beyond the graph is a few tens of MB (GAPBS's
directed files add the transpose: 4 or 8 bytes per arc). A name ending in .gz, .bz2 or .xz is compressed
(deterministically: no time stamp); the parsers read those too.
"""

from __future__ import annotations

import bz2
import errno
import gzip
import lzma
import os
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO, Iterator

import numpy as np
from numba import njit

from ..errors import UserError
from ..graph.csr import (WEIGHT_DTYPES, CSRGraph, clear_stale_temporaries, temporary_path, write_array,
                         write_csr_body)
from ..kernels.bfs_parallel import transpose
from .formats import PARSERS, sniff_format

FORMATS = ("dimacs9", "mtx", "metis", "snap", "binary-csr", "gapbs-sg", "gapbs-wsg")
ALIASES = {"dimacs": "dimacs9", "gr": "dimacs9", "matrix-market": "mtx", "csr": "binary-csr", "sg": "gapbs-sg",
           "wsg": "gapbs-wsg"}
# Each format's file suffix: its parser's (datasets/formats), so an exported name reads back as what it is
SUFFIXES = {parser.format_name: parser.suffix for parser in PARSERS if parser.format_name in FORMATS}
# Formats whose file says whether the graph is directed; the others read back directed (see the docstring)
SAYS_DIRECTED = ("metis", "binary-csr", "gapbs-sg", "gapbs-wsg")
_COMPRESSION = {".gz": "gzip", ".bz2": "bzip2", ".xz": "xz"}  # what `_output` writes for a name ending so

ARC_BLOCK = 1 << 20  # arcs formatted per kernel call (the text buffer holds about 40 bytes per arc)
ROW_BLOCK = 1 << 20  # METIS vertex lines per kernel call


def canonical_format(name: str) -> str:
    """A format's name as FORMATS spells it (ALIASES too: dimacs, csr, sg, wsg, ...); an unknown one is one line."""
    lowered = str(name).strip().lower()
    lowered = ALIASES.get(lowered, lowered)
    if lowered not in FORMATS:
        raise UserError(f"unknown export format {name!r}, expected one of {', '.join(FORMATS)}")
    return lowered


def format_of_path(path: str | os.PathLike) -> str | None:
    """The format an output name's suffix names (.gr dimacs9, .mtx, .graph metis, .txt snap, .csr, .sg, .wsg; a
    compression suffix ignored), or None: what the parsers' `sniff_format` says of the name."""
    fmt = sniff_format(Path(path).name)
    return fmt if fmt in FORMATS else None


def reading_options(fmt: str) -> dict[str, Any]:
    """How the project's parser reads an exported file back to the same arcs (a config's `convert`, `import`'s
    flags): a SNAP edge list must be told it is directed; every other format says enough."""
    fmt = canonical_format(fmt)
    return {"format": fmt, **({"directed": True} if fmt == "snap" else {})}


# ----------------------------------------------------------------------------------------------------------
# What a format cannot carry
# ----------------------------------------------------------------------------------------------------------

def refusal(graph: CSRGraph, fmt: str) -> str | None:
    """Why `fmt` cannot hold `graph` exactly (one line), or None when it can."""
    fmt = canonical_format(fmt)
    weights = graph.weights
    if weights is not None and np.dtype(weights.dtype).newbyteorder("<") not in WEIGHT_DTYPES.values():
        return f"its weights are {weights.dtype}, expected int32 or float32"
    floats = weights is not None and weights.dtype.kind == "f"
    if floats and fmt in ("dimacs9", "metis", "snap", "gapbs-wsg"):
        return (f"{fmt} weights are integers and this graph's are float32; export mtx or binary-csr, or give "
                "integer weights (--weights uniform:...)")
    if floats and fmt == "mtx" and graph.m and not np.isfinite(weights).all():
        bad = int(np.flatnonzero(~np.isfinite(weights))[0])
        return f"Matrix Market values are finite numbers and arc {bad} weighs {weights[bad]}; export binary-csr"
    if fmt == "gapbs-sg" and weights is not None:
        return "gapbs-sg holds no weights and this graph has them; export gapbs-wsg (GAPBS's weighted graph)"
    if fmt == "mtx":
        return _repeated_entry(graph)
    if fmt == "metis":
        return _metis_refusal(graph)
    if fmt == "snap":
        return _snap_refusal(graph)
    return None


def _repeated_entry(graph: CSRGraph) -> str | None:
    from .formats.mtx import _first_repeated_arc

    earlier, later = _first_repeated_arc(np.asarray(graph.row_offsets), np.asarray(graph.column_ids))
    if earlier < 0:
        return None
    source = int(np.searchsorted(graph.row_offsets, later, side="right") - 1)
    return (f"a Matrix Market file holds each entry (i, j) once, and this graph has parallel arcs {source} -> "
            f"{int(graph.column_ids[later])} (arcs {earlier} and {later}); merge them first (import "
            "--merge-parallel) or export dimacs9, snap or binary-csr")


def _metis_refusal(graph: CSRGraph) -> str | None:
    from .formats.metis import _first_unbalanced_vertex

    if graph.directed:
        return "METIS is undirected and this graph is directed; export dimacs9, mtx, snap or binary-csr"
    if graph.m % 2:
        return (f"METIS lists each edge at both ends (2m entries), and this undirected graph has an odd number of "
                f"arcs ({graph.m})")
    if graph.weights is not None and graph.m and graph.weights.min() < 1:
        bad = int(np.flatnonzero(np.asarray(graph.weights) < 1)[0])
        return (f"METIS edge weights are positive integers and arc {bad} weighs {graph.weights[bad]}; export "
                "dimacs9, mtx, snap or binary-csr")
    weights = np.empty(0, np.int32) if graph.weights is None else np.asarray(graph.weights)
    vertex = _first_unbalanced_vertex(np.asarray(graph.row_offsets), np.asarray(graph.column_ids), weights)
    if vertex >= 0:
        return (f"METIS lists each edge at both ends with one weight, and in this graph vertex {vertex}'s arcs are "
                "not matched by arcs back (with the same weights); export dimacs9, mtx, snap or binary-csr")
    return None


@njit(cache=True)
def _isolated_vertices(row_offsets, column_ids):
    """(how many vertices have no arc in or out, the first of them or -1)."""
    n = len(row_offsets) - 1
    touched = np.zeros(n, dtype=np.uint8)
    for arc in range(len(column_ids)):
        touched[column_ids[arc]] = 1
    count, first = 0, -1
    for vertex in range(n):
        if not touched[vertex] and row_offsets[vertex + 1] == row_offsets[vertex]:
            count += 1
            if first < 0:
                first = vertex
    return count, first


def _snap_refusal(graph: CSRGraph) -> str | None:
    if graph.m == 0:
        return "a SNAP edge list's vertices are the ids its lines name, and this graph has no arc"
    count, first = _isolated_vertices(np.asarray(graph.row_offsets), np.asarray(graph.column_ids))
    if count:
        return (f"a SNAP edge list's vertices are the ids its lines name, and this graph has isolated vertices "
                f"({count:,}; the first, vertex {first}, has no arc in or out), which it would lose; export dimacs9, "
                "mtx or binary-csr")
    return None


# ----------------------------------------------------------------------------------------------------------
# Writing: atomically, streamed
# ----------------------------------------------------------------------------------------------------------

def write_graph(graph: CSRGraph, format: str, path: str | os.PathLike) -> Path:
    """Write `graph` to `path` in `format` (one of FORMATS, or an alias), atomically: under a temporary name
    beside it (graph/csr.py's `temporary_path`), renamed to `path` last, removed when anything fails. A name
    ending in .gz, .bz2 or .xz is compressed. What the format cannot carry (see `refusal`), a folder at `path`,
    a full disk: one line (UserError), and nothing written. Returns `path`."""
    fmt = canonical_format(format)
    path = Path(path)
    problem = refusal(graph, fmt)
    if problem is not None:
        raise UserError(f"{path}: cannot write {graph.name or 'the graph'} as {fmt}: {problem}")
    if path.is_dir():
        raise UserError(f"{path}: is a folder, expected the name of the file to write")
    temporary = temporary_path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        clear_stale_temporaries(path.parent)
        with _output(temporary, path) as out:
            _WRITERS[fmt](graph, out)
        os.replace(temporary, path)
    except OSError as error:
        if error.errno in (errno.ENOSPC, errno.EDQUOT, errno.ENAMETOOLONG, errno.EACCES, errno.EROFS, errno.ENOTDIR,
                           errno.EEXIST):
            raise UserError(f"{path}: cannot write the graph ({error.strerror}); nothing was written") from None
        raise
    finally:
        temporary.unlink(missing_ok=True)
    return path


@contextmanager
def _output(temporary: Path, path: Path) -> Iterator[BinaryIO]:
    """The temporary file opened for writing, compressed as the final name's suffix says, synced when closed."""
    compression = _COMPRESSION.get(path.suffix.lower())
    with open(temporary, "wb") as raw:
        if compression == "gzip":
            with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as out:
                yield out
        elif compression == "bzip2":
            with bz2.BZ2File(raw, "wb") as out:
                yield out
        elif compression == "xz":
            with lzma.LZMAFile(raw, "wb") as out:
                yield out
        else:
            yield raw
        raw.flush()
        os.fsync(raw.fileno())


def _comment_name(graph: CSRGraph) -> str:
    """The graph's name as one line of a comment."""
    return "".join(char if char.isprintable() else " " for char in (graph.name or "unnamed graph"))


def _weights_said(graph: CSRGraph, unit_written: bool) -> str:
    if graph.weights is None:
        return "unweighted: every arc written with weight 1" if unit_written else "unweighted"
    spec = (graph.meta.get("weights") or {}).get("spec")
    return f"{graph.weights.dtype} weights" + (f" ({spec})" if spec and spec != "keep" else "")


def _kind(graph: CSRGraph) -> str:
    """What a format without a word for "undirected" says of the graph's direction in its comment."""
    if graph.directed:
        return "directed"
    return "undirected: both arcs of every edge written (reads back directed)"


# --- text: a numba kernel formats a block of arcs into a reused buffer

@njit(inline="always", cache=True)
def _put_integer(out, at, value):
    """Write the decimal `value` (int64) at out[at:]; returns the position after it."""
    if value < 0:
        out[at] = 45  # '-'
        at += 1
        value = -value
    digits = 1
    rest = value // 10
    while rest > 0:
        digits += 1
        rest //= 10
    end = at + digits
    position = end - 1
    while True:
        out[position] = 48 + value % 10
        value //= 10
        position -= 1
        if value == 0:
            break
    return end


_NO_WEIGHT = 0    # `u v`
_INT_WEIGHT = 1   # `u v w`, w from an int32 block
_TEXT_WEIGHT = 2  # `u v text`, the text of each value given (mtx real values)


@njit(cache=True)
def _arc_lines(row_offsets, column_ids, first_arc, end_arc, row, weights, value_text, value_ends, mode, prefix,
               separator, id_base, out):
    """Lines `<prefix>u<sep>v[<sep>w]\\n` for arcs [first_arc, end_arc) into `out`, row `row` holding the first;
    `weights` and `value_ends` are the block's (index arc - first_arc). Returns (bytes written, the last row)."""
    at = 0
    for arc in range(first_arc, end_arc):
        while row_offsets[row + 1] <= arc:
            row += 1
        for index in range(len(prefix)):
            out[at] = prefix[index]
            at += 1
        at = _put_integer(out, at, np.int64(row) + id_base)
        out[at] = separator
        at = _put_integer(out, at + 1, np.int64(column_ids[arc]) + id_base)
        if mode == _INT_WEIGHT:
            out[at] = separator
            at = _put_integer(out, at + 1, np.int64(weights[arc - first_arc]))
        elif mode == _TEXT_WEIGHT:
            out[at] = separator
            at += 1
            start = 0 if arc == first_arc else value_ends[arc - first_arc - 1]
            for index in range(start, value_ends[arc - first_arc]):
                out[at] = value_text[index]
                at += 1
        out[at] = 10
        at += 1
    return at, row


@njit(cache=True)
def _vertex_lines(row_offsets, column_ids, weights, first_row, end_row, out):
    """METIS vertex lines `v1 [w1] v2 [w2] ...\\n` (1-based neighbours) of rows [first_row, end_row)."""
    weighted = len(weights) > 0
    at = 0
    for row in range(first_row, end_row):
        for arc in range(row_offsets[row], row_offsets[row + 1]):
            if arc > row_offsets[row]:
                out[at] = 32
                at += 1
            at = _put_integer(out, at, np.int64(column_ids[arc]) + 1)
            if weighted:
                out[at] = 32
                at = _put_integer(out, at + 1, np.int64(weights[arc]))
        out[at] = 10
        at += 1
    return at


_EMPTY_INT = np.empty(0, dtype=np.int32)
_EMPTY_TEXT = np.empty(0, dtype=np.uint8)
_EMPTY_ENDS = np.empty(0, dtype=np.int64)


def _float_text(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each float32 as text with 9 significant digits (which name exactly one float32), as one byte array and
    each value's end in it."""
    texts = ["%.9g" % value for value in values.astype(np.float64).tolist()]
    ends = np.cumsum(np.fromiter(map(len, texts), dtype=np.int64, count=len(texts)))
    return np.frombuffer("".join(texts).encode("ascii"), dtype=np.uint8), ends


def _write_arc_lines(graph: CSRGraph, out: BinaryIO, prefix: str, separator: str, id_base: int,
                     weights: str) -> None:
    """Every arc as a line, in CSR order, block by block; `weights`: "none", "int", "ones" or "text"."""
    row_offsets, column_ids = np.asarray(graph.row_offsets), np.asarray(graph.column_ids)
    prefix_bytes = np.frombuffer(prefix.encode("ascii"), dtype=np.uint8)
    block = ARC_BLOCK
    buffer = np.empty(min(block, max(graph.m, 1)) * (len(prefix) + 48), dtype=np.uint8)
    mode = {"none": _NO_WEIGHT, "int": _INT_WEIGHT, "ones": _INT_WEIGHT, "text": _TEXT_WEIGHT}[weights]
    row = 0
    for first in range(0, graph.m, block):
        end = min(first + block, graph.m)
        block_weights, text, ends = _EMPTY_INT, _EMPTY_TEXT, _EMPTY_ENDS
        if weights == "int":
            block_weights = np.asarray(graph.weights[first:end], dtype=np.int32)
        elif weights == "ones":
            block_weights = np.ones(end - first, dtype=np.int32)
        elif weights == "text":
            text, ends = _float_text(np.asarray(graph.weights[first:end]))
            if len(buffer) < (end - first) * (len(prefix) + 24) + len(text):
                buffer = np.empty((end - first) * (len(prefix) + 24) + len(text), dtype=np.uint8)
        size, row = _arc_lines(row_offsets, column_ids, first, end, row, block_weights, text, ends, mode,
                               prefix_bytes, ord(separator), id_base, buffer)
        out.write(memoryview(buffer)[:size])


def _header(out: BinaryIO, lines: list[str]) -> None:
    out.write(("".join(line + "\n" for line in lines)).encode("utf-8"))


def _write_dimacs(graph: CSRGraph, out: BinaryIO) -> None:
    _header(out, [
        "c 9th DIMACS shortest-path graph, written by sssp-bench export",
        f"c {_comment_name(graph)}",
        f"c {graph.n:,} vertices, {graph.m:,} arcs, {_kind(graph)}; {_weights_said(graph, True)}",
        f"p sp {graph.n} {graph.m}",
    ])
    _write_arc_lines(graph, out, "a ", " ", 1, "ones" if graph.weights is None else "int")


def _write_mtx(graph: CSRGraph, out: BinaryIO) -> None:
    field = "pattern" if graph.weights is None else "real" if graph.weights.dtype.kind == "f" else "integer"
    _header(out, [
        f"%%MatrixMarket matrix coordinate {field} general",
        f"% {_comment_name(graph)}, written by sssp-bench export: entry (i, j) is the arc i -> j",
        f"% {graph.n:,} vertices, {graph.m:,} arcs, {_kind(graph)}; {_weights_said(graph, False)}",
        f"{graph.n} {graph.n} {graph.m}",
    ])
    _write_arc_lines(graph, out, "", " ", 1, {"pattern": "none", "integer": "int", "real": "text"}[field])


def _write_snap(graph: CSRGraph, out: BinaryIO) -> None:
    kind = "Directed graph" if graph.directed else "Undirected graph, each edge written as its two arcs"
    columns = "FromNodeId\tToNodeId" + ("" if graph.weights is None else "\tWeight")
    _header(out, [
        f"# {kind}: {_comment_name(graph)} (written by sssp-bench export; {_weights_said(graph, False)})",
        f"# Nodes: {graph.n} Edges: {graph.m}",
        f"# {columns}",
    ])
    _write_arc_lines(graph, out, "", "\t", 0, "none" if graph.weights is None else "int")


def _write_metis(graph: CSRGraph, out: BinaryIO) -> None:
    weighted = graph.weights is not None
    _header(out, [
        f"% METIS graph {_comment_name(graph)}, written by sssp-bench export; {_weights_said(graph, False)}",
        f"{graph.n} {graph.m // 2}" + (" 1" if weighted else ""),
    ])
    row_offsets, column_ids = np.asarray(graph.row_offsets), np.asarray(graph.column_ids)
    weights = np.asarray(graph.weights, dtype=np.int32) if weighted else _EMPTY_INT
    first = 0
    while first < graph.n:
        # a block of rows holding about ARC_BLOCK arcs (one row at least, however long)
        end = int(np.searchsorted(row_offsets, row_offsets[first] + ARC_BLOCK, side="right")) - 1
        end = min(max(end, first + 1), first + ROW_BLOCK, graph.n)
        arcs = int(row_offsets[end] - row_offsets[first])
        buffer = np.empty(arcs * 24 + (end - first) + 1, dtype=np.uint8)
        size = _vertex_lines(row_offsets, column_ids, weights, first, end, buffer)
        out.write(memoryview(buffer)[:size])
        first = end


# --- binary

def _write_binary_csr(graph: CSRGraph, out: BinaryIO) -> None:
    write_csr_body(graph, out)  # the dataset cache's `.csr` bytes (graph/csr.py), without the sidecar


def _write_neighbours(out: BinaryIO, targets: np.ndarray, weights: np.ndarray | None, weighted: bool) -> None:
    """GAPBS's neighbour array: int32 ids, or (int32 id, int32 weight) pairs; weight 1 for an unweighted graph."""
    if not weighted:
        write_array(out, targets, np.dtype("<i4"))
        return
    for first in range(0, len(targets), ARC_BLOCK):
        end = min(first + ARC_BLOCK, len(targets))
        pairs = np.empty((end - first, 2), dtype="<i4")
        pairs[:, 0] = targets[first:end]
        pairs[:, 1] = 1 if weights is None else weights[first:end]
        out.write(memoryview(pairs.view(np.uint8)))


def _write_gapbs(graph: CSRGraph, out: BinaryIO, weighted: bool) -> None:
    from .formats.binary import GAPBS_HEADER

    out.write(GAPBS_HEADER.pack(graph.directed, graph.m, graph.n))
    write_array(out, graph.row_offsets, np.dtype("<i8"))
    _write_neighbours(out, graph.column_ids, graph.weights, weighted)
    if graph.directed:
        row_offsets, column_ids = np.asarray(graph.row_offsets), np.asarray(graph.column_ids)
        if weighted and graph.weights is not None:
            in_offsets, in_sources, in_weights = transpose(row_offsets, column_ids,
                                                           np.asarray(graph.weights, dtype=np.int32))
        else:
            (in_offsets, in_sources), in_weights = transpose(row_offsets, column_ids), None
        write_array(out, in_offsets, np.dtype("<i8"))
        _write_neighbours(out, in_sources, in_weights, weighted)


_WRITERS = {
    "dimacs9": _write_dimacs,
    "mtx": _write_mtx,
    "metis": _write_metis,
    "snap": _write_snap,
    "binary-csr": _write_binary_csr,
    "gapbs-sg": lambda graph, out: _write_gapbs(graph, out, weighted=False),
    "gapbs-wsg": lambda graph, out: _write_gapbs(graph, out, weighted=True),
}


# ----------------------------------------------------------------------------------------------------------
# The graph to export, as a config's graph entry names it
# ----------------------------------------------------------------------------------------------------------

def load_for_export(entry: str, datasets: Path, weights: str | dict | None = "keep",
                    reading: dict | None = None):
    """The graph `entry` names (a catalog name, a generator spec, an imported graph's name, a `.csr` or a graph
    file's path) with the weight spec `weights` applied, exactly as a config's graph entry loads it
    (datasets/resolve.py `load_graph`); `reading` is a graph file's `convert` (format, directed, cleaning).
    Returns resolve.LoadedGraph."""
    from .formats import graph_name, sniff_format
    from .resolve import load_graph, looks_like_graph_file

    reading = dict(reading or {})
    is_file = not entry.endswith(".csr") and ("/" in entry or Path(entry).is_file() or looks_like_graph_file(entry))
    if is_file and (reading.get("format") or sniff_format(entry)) == "snap" and reading.get("directed") is None:
        raise UserError(f"{entry}: a SNAP edge list does not say whether it is directed: give --directed or "
                        "--undirected")
    if reading and not is_file:
        raise UserError(f"{entry}: how to read a file (its format, direction, cleaning) is given for a graph file, "
                        "and this names a graph (a catalog or imported name, a generator spec or a .csr file)")
    label = graph_name(Path(entry).name) if is_file or entry.endswith(".csr") else entry
    return load_graph(entry, label, weights, datasets, reading=reading or None)
