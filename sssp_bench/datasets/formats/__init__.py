"""Real graph files -> CSR: DIMACS 9 `.gr`, METIS `.graph` (DIMACS 10), SNAP edge lists, Matrix Market `.mtx`,
PACE 2016 `.gr` (the DIMACS road networks' topology), and the binary files `sssp-bench export` writes besides them:
sssp-bench's raw CSR `.csr` (binary-csr) and GAPBS's serialized `.sg`/`.wsg` (gapbs-sg, gapbs-wsg; `binary`).

    converted = convert_stream(stream, "dimacs9", "USA-road-d.NY.gr.gz", ConvertOptions())
    converted.graph            CSRGraph (int32 weights; float32 for real mtx; None when unweighted)
    converted.original_ids     the file's id of each vertex, when vertices were renumbered (snap,
                               largest_component); ids as written in the file (1-based for dimacs9/metis/mtx)
    converted.header           what the file's header said (n, m, format, fields, the header's line, ...)
    converted.stats            lines, comments, arcs read, self-loops, and what each cleaning option changed

`stream` is a binary stream, already decompressed (see `archive.open_data_file`); `label` names the file in
errors. Every problem with the file is a one-line `GraphFormatError`: "<label>:<line>: expected ..., got ...".
Each format's rules, as implemented, are in its module's docstring: `dimacs9`, `metis`, `snap`, `mtx`, `pace`.

How a file is read (`parsing`): in chunks of whole lines (16 MB by default, `chunk_bytes`), a short Python
header phase, then one numba line loop, shared by the formats, that parses the body into int32 arc arrays with
the format's line grammar and stops at the first bad line. The CSR is built once at the end by the graphs'
counting sort (`graph.build.csr_from_arcs`), moving the arcs in place, so peak memory is the arcs themselves:
three arrays of m (sources, targets, weights; two when unweighted) plus O(n). experiments/harness/convert_dimacs.py
measures the speed and the peak memory.

A format is one module: its parser (a `parsing.FormatParser`: header lines, line grammar, messages, finish) and
its rules in the docstring, registered in `PARSERS` below. The binary formats (`binary.BinaryParser`) stream their
bytes into the arrays instead of parsing lines; their errors name the file, not a line. Its `suffix` names its files; where two formats share
one (DIMACS 9 and PACE: `.gr`), `recognizes(head)` tells them apart by the file's first bytes.

Cleaning (`cleaning`), in this order, each recorded in stats:
  1. drop_self_loops / drop_diagonal (the same thing): remove arcs u -> u. Kept by default (H-BF classifies them).
  2. symmetrize: add the reverse of every arc, then keep one arc per (u, v) pair, the lightest. Also done when
     an undirected graph is asked of a file whose arcs are not symmetric (snap with directed=False, a DIMACS
     or general mtx file with directed=False).
     merge_parallel (without symmetrize): keep only the lightest of parallel arcs. Both leave rows sorted.
  3. largest_component: keep the largest weakly connected component, renumbered 0..k-1 in the old order.
binarize drops the values while parsing (they are still checked): an unweighted graph. The cleaning steps
build new arrays (symmetrize about three times m), so they are meant for graphs that fit comfortably.
`directed` left None takes the format's own: dimacs9 directed, metis undirected, mtx symmetric undirected
(general and skew-symmetric directed), pace undirected, snap must be told.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import BinaryIO

import numpy as np

from ...graph.csr import CSRGraph
from ...errors import GraphFormatError
from ...graph.memory import ran_out
from .cleaning import drop_self_loops, largest_component, merge_parallel_arcs, with_reverse_arcs
from .binary import BinaryCsrParser, GapbsParser, GapbsWeightedParser
from .dimacs9 import DimacsParser
from .metis import MetisParser
from .mtx import MatrixMarketParser
from .pace import PaceParser
from .parsing import DEFAULT_CHUNK_BYTES, read_chunks
from .snap import SnapParser

# The registry of formats. `.wsg` before `.sg`: a name's suffix is matched in this order (x.wsg ends with .sg too)
PARSERS = (DimacsParser, MetisParser, SnapParser, MatrixMarketParser, PaceParser, BinaryCsrParser,
           GapbsWeightedParser, GapbsParser)
FORMATS = tuple(parser.format_name for parser in PARSERS)
_PARSERS = {parser.format_name: parser for parser in PARSERS}
_SUFFIXES = tuple(dict.fromkeys(parser.suffix for parser in PARSERS))
_COMPRESSION_SUFFIXES = (".gz", ".bz2", ".xz")
SNIFF_BYTES = 4096  # how much of a file's start `sniff_format` may look at


@dataclass(frozen=True)
class ConvertOptions:
    directed: bool | None = None      # None: the format's own (dimacs9 directed, metis undirected, mtx: symmetric
                                      # => undirected, snap: must be given)
    symmetrize: bool = False          # add the reverse of every arc, then keep one arc per (u, v) pair (the lightest)
    drop_self_loops: bool = False     # kept by default: H-BF's edge classification uses them
    merge_parallel: bool = False      # keep only the lightest of parallel arcs
    binarize: bool = False            # drop values: an unweighted graph (SuiteSparse matrices -> graphs)
    drop_diagonal: bool = False       # (mtx) the DIMACS10 matrix/ convention; same as drop_self_loops
    largest_component: bool = False   # keep the largest (weakly) connected component, relabelled 0..k-1


@dataclass
class Converted:
    graph: CSRGraph
    original_ids: np.ndarray | None   # int64: the file's id of each vertex (snap, largest_component), else None
    header: dict
    stats: dict


def sniff_format(name: str, head: bytes = b"") -> str | None:
    """The format a file name suggests: .gr dimacs9 (or pace, when `head`, the decompressed file's first bytes,
    holds a `p tw` line), .graph metis, .mtx mtx, .txt snap, .csr binary-csr, .sg gapbs-sg, .wsg gapbs-wsg
    (.gz/.bz2/.xz ignored); None for another name."""
    stem = PurePosixPath(name.replace("\\", "/")).name.lower()
    for suffix in _COMPRESSION_SUFFIXES:
        if stem.endswith(suffix):
            stem = stem[: -len(suffix)]
            break
    candidates = [parser for parser in PARSERS if stem.endswith(parser.suffix)]
    chosen = next((parser for parser in candidates if parser.recognizes(head)), candidates[0] if candidates else None)
    return chosen.format_name if chosen else None


def graph_name(label: str) -> str:
    """'USA-road-d.NY.gr.gz' -> 'USA-road-d.NY'; 'bcsstk13.tar.gz:bcsstk13/bcsstk13.mtx' -> 'bcsstk13'."""
    name = PurePosixPath(label.replace("\\", "/").replace(":", "/")).name
    lowered = name.lower()
    for suffix in _COMPRESSION_SUFFIXES:
        if lowered.endswith(suffix):
            name, lowered = name[: -len(suffix)], lowered[: -len(suffix)]
            break
    for suffix in _SUFFIXES:
        if lowered.endswith(suffix):
            return name[: -len(suffix)]
    return name


def convert_stream(
    stream: BinaryIO, fmt: str, label: str, options: ConvertOptions = ConvertOptions(), *,
    chunk_bytes: int = DEFAULT_CHUNK_BYTES, data_bytes: int | None = None,
) -> Converted:
    """Parse a decompressed graph file of format `fmt` and clean it as `options` say (see the module doc).

    What a header declares is checked before anything of its size is allocated: against the memory there is
    (graph.memory), and, when `data_bytes` gives the file's size (an uncompressed file), against the lines that
    size can hold. Running out of memory anyway is a one-line UserError too."""
    if fmt not in _PARSERS:
        raise GraphFormatError(f"{label}: unknown graph format {fmt!r}, expected one of {', '.join(FORMATS)}")
    try:
        return _convert(stream, fmt, label, options, chunk_bytes, data_bytes)
    except MemoryError as error:
        raise ran_out(label, error) from None


def _convert(stream: BinaryIO, fmt: str, label: str, options: ConvertOptions, chunk_bytes: int,
             data_bytes: int | None) -> Converted:
    parser = _PARSERS[fmt](label, options)
    parser.data_bytes = data_bytes
    bytes_read = 0
    for buffer, size in read_chunks(stream, chunk_bytes):
        parser.feed(buffer, size)
        bytes_read += size
    row_offsets, column_ids, weights, original_ids, stats = parser.finish()
    stats["bytes"] = bytes_read

    natural_directed = parser.natural_directed
    if options.directed is not None:
        directed = options.directed
    else:
        directed = False if options.symmetrize else natural_directed
    arcs_symmetric = parser.arcs_symmetric

    if options.drop_self_loops or options.drop_diagonal:
        row_offsets, column_ids, weights, stats["self_loops_dropped"] = drop_self_loops(row_offsets, column_ids, weights)
    if options.symmetrize or (not directed and not arcs_symmetric):
        arcs_before = len(column_ids)
        row_offsets, column_ids, weights = with_reverse_arcs(row_offsets, column_ids, weights)
        row_offsets, column_ids, weights, merged = merge_parallel_arcs(row_offsets, column_ids, weights)
        stats["reverse_arcs_added"] = arcs_before
        stats["parallel_arcs_merged"] = merged  # of the arcs and their reverses together
    elif options.merge_parallel:
        row_offsets, column_ids, weights, stats["parallel_arcs_merged"] = merge_parallel_arcs(
            row_offsets, column_ids, weights)
    if options.largest_component:
        n_before, m_before = len(row_offsets) - 1, len(column_ids)
        row_offsets, column_ids, weights, kept = largest_component(row_offsets, column_ids, weights)
        base = original_ids if original_ids is not None else np.arange(n_before, dtype=np.int64) + parser.id_base
        original_ids = base[kept]
        stats["vertices_dropped"] = n_before - len(kept)
        stats["arcs_dropped"] = m_before - len(column_ids)

    graph = CSRGraph(row_offsets, column_ids, weights, directed, graph_name(label),
                     {"format": fmt, "source": label})
    stats["n"], stats["m"] = graph.n, graph.m
    return Converted(graph, original_ids, parser.header, stats)


__all__ = [
    "DEFAULT_CHUNK_BYTES",
    "FORMATS",
    "PARSERS",
    "SNIFF_BYTES",
    "ConvertOptions",
    "Converted",
    "convert_stream",
    "graph_name",
    "sniff_format",
]
