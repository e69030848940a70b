"""Binary graph files: sssp-bench's raw CSR (`binary-csr`, `.csr`) and GAPBS's serialized graphs (`gapbs-sg`,
`.sg`, and `gapbs-wsg`, `.wsg`), as these readers implement them. `sssp-bench export` writes all three
(datasets/export.py); these readers are what `import` and a config's graph file use, so an exported file reads back.

binary-csr: the layout of the dataset cache's `.csr` files (graph/csr.py's docstring is the reference), without
the JSON sidecar. Little-endian; every section starts at a multiple of 64 bytes (zero padding between):

    offset  size  field
    0       8     magic  b"SSSPCSR\\0"
    8       4     version (uint32, 1)
    12      4     flags (uint32): bit 0 directed, bit 1 weighted, bits 2-3 weight dtype (0 int32, 1 float32)
    16      8     n (uint64)
    24      8     m, arcs (uint64); an undirected edge is two arcs
    32      32    reserved, zero
    64      ...   row_offsets  int64[n + 1]
    aligned ...   column_ids   int32[m]
    aligned ...   weights      int32[m] or float32[m], only when weighted

gapbs-sg / gapbs-wsg (the GAP Benchmark Suite's serialized graphs, from its public reader.h): no magic, no
padding, native little-endian x86-64 types; which of the two a file is, only its suffix says:

    offset  size  field
    0       1     directed (a C++ bool: 0 or 1)
    1       8     m, arcs (int64; an undirected graph's arcs, both of each edge)
    9       8     n (int64)
    17      ...   out offsets  int64[n + 1]
    ...           out neighbours  int32[m] (.sg), or (int32 target, int32 weight)[m] pairs (.wsg)
    then, only when directed: in offsets int64[n + 1] and in neighbours (the same element type), the transpose,
                              which GAPBS reads for its pull steps

* The file must hold exactly the bytes its header's n and m need: fewer is "truncated", more is an error too.
* row offsets run from 0 to m without decreasing; column ids are 0 <= id < n. A GAPBS directed file's in-CSR must
  give every vertex the in-degree its out-CSR gives it, with ids in range; it is then dropped (the out-CSR is the
  graph). Weights are int32 (.wsg) or as the flags say (.csr); float32 weights are taken as stored.
* Directed as the file says; an undirected file holds both arcs of every edge (stored as they are). Vertex ids are
  the file's, 0-based. `binarize` drops the weights (they are still read past).

Nothing is parsed line by line: the bytes are copied into the graph's arrays as they stream in, so a file of any
size reads in the memory of its arrays. Every problem is a one-line `GraphFormatError` naming the file.
"""

from __future__ import annotations

import struct

import numpy as np
from numba import njit

from ...errors import GraphFormatError
from ...graph.csr import COLUMN_DTYPE as ID_DTYPE, HEADER_SIZE, MAGIC, OFFSET_DTYPE, csr_problem, parse_header
from ...graph.memory import check_fits, graph_bytes
from ...kernels.bfs_parallel import in_offsets_of
from .parsing import INT32_MAX, MAX_ANNOUNCED_ARCS, FormatParser

GAPBS_HEADER = struct.Struct("<?qq")  # directed, m (arcs), n


class _Section:
    """`count` elements of `itemsize` bytes; `store(start, raw)` takes whole elements (None: skipped unread)."""

    def __init__(self, name: str, count: int, itemsize: int, store=None):
        self.name, self.count, self.itemsize, self.store = name, count, itemsize, store

    @property
    def size(self) -> int:
        return self.count * self.itemsize


def _into(array: np.ndarray):
    """A section's store that copies its bytes into `array`."""
    target = array.view(np.uint8)

    def store(start: int, raw: memoryview) -> None:
        at = start * array.itemsize
        target[at : at + len(raw)] = np.frombuffer(raw, dtype=np.uint8)

    return store


def _pairs_into(targets: np.ndarray, weights: np.ndarray | None):
    """A store that splits (int32 target, int32 weight) pairs into two arrays (weights None: dropped)."""

    def store(start: int, raw: memoryview) -> None:
        pairs = np.frombuffer(raw, dtype=ID_DTYPE).reshape(-1, 2)
        targets[start : start + len(pairs)] = pairs[:, 0]
        if weights is not None:
            weights[start : start + len(pairs)] = pairs[:, 1]

    return store


@njit(cache=True)
def _count_self_loops(row_offsets, column_ids):
    loops = 0
    for vertex in range(len(row_offsets) - 1):
        for arc in range(row_offsets[vertex], row_offsets[vertex + 1]):
            loops += column_ids[arc] == vertex
    return loops


class BinaryParser(FormatParser):
    """A fixed-size header, then sections of known sizes streamed into arrays (`feed` takes any split of the
    bytes). A format gives `header_size`, `read_header(raw) -> sections` (which allocates `row_offsets` and
    `column_ids`, checked when the bytes are in) and `arrays()`."""

    id_base = 0
    header_size = 0

    def __init__(self, label, options):
        super().__init__(label, options)
        self.head = bytearray()
        self.sections: list[_Section] | None = None
        self.section = 0        # the section being filled
        self.filled = 0         # its bytes filled so far
        self.carry = bytearray()  # the start of an element split across two chunks
        self.extra = 0          # bytes after the last section
        self.total = 0

    def fail_here(self, message: str) -> GraphFormatError:
        return GraphFormatError(f"{self.label}: {message}")

    @property
    def expected_bytes(self) -> int:
        return self.header_size + sum(section.size for section in self.sections)

    def feed(self, buffer, size: int) -> None:
        data = memoryview(buffer)[:size]
        self.total += size
        if self.sections is None:
            wanted = self.header_size - len(self.head)
            self.head += data[:wanted]
            data = data[wanted:]
            if len(self.head) < self.header_size:
                return
            self.sections = self.read_header(bytes(self.head))
            if self.data_bytes is not None and self.data_bytes != self.expected_bytes:
                raise self.fail_here(self._size_mismatch(self.data_bytes))
        while self.section < len(self.sections):
            section = self.sections[self.section]
            if self.filled == section.size:  # full (or empty: m = 0 arcs, no padding)
                self.section, self.filled = self.section + 1, 0
                continue
            if not len(data):
                break
            take = min(len(data), section.size - self.filled)
            if section.store is not None:
                self._store(section, data[:take])
            self.filled += take
            data = data[take:]
        self.extra += len(data)

    def _store(self, section: _Section, raw: memoryview) -> None:
        """Whole elements into the section's arrays; a split element waits in `carry` for its rest."""
        if self.carry:
            need = section.itemsize - len(self.carry)
            self.carry += raw[:need]
            raw = raw[need:]
            if len(self.carry) < section.itemsize:
                return
            done = (self.filled + need) // section.itemsize - 1
            section.store(done, memoryview(bytes(self.carry)))
            self.carry = bytearray()
            start = self.filled + need
        else:
            start = self.filled
        whole = len(raw) // section.itemsize * section.itemsize
        if whole:
            section.store(start // section.itemsize, raw[:whole])
        self.carry += raw[whole:]

    def _size_mismatch(self, size: int) -> str:
        n, m = self.header["n"], self.header["m"]
        if size < self.expected_bytes:
            return f"truncated: {size:,} bytes, but n={n:,} and m={m:,} need {self.expected_bytes:,}"
        return f"{size:,} bytes, but n={n:,} and m={m:,} need exactly {self.expected_bytes:,} (sizes disagree)"

    def check_sizes(self, n: int, m: int, weight_bytes: int) -> None:
        """The header's n and m, checked before anything of their size is allocated."""
        if not 0 <= n <= INT32_MAX:
            raise self.fail_here(f"the header says n={n:,} vertices, expected 0 <= n <= {INT32_MAX} (int32 ids)")
        if not 0 <= m <= MAX_ANNOUNCED_ARCS:
            raise self.fail_here(f"the header says m={m:,} arcs, expected 0 <= m <= {MAX_ANNOUNCED_ARCS}")
        check_fits(f"{self.label}: the header declares n={n:,} vertices and {m:,} arcs",
                   graph_bytes(n, m, 0 if self.options.binarize else weight_bytes, with_sources=False))

    def finish(self):
        if self.sections is None:
            if self.total == 0:
                raise self.fail_here(f"empty file, expected a {self.format_name} header")
            raise self.fail_here(f"truncated header ({self.total} of {self.header_size} bytes)")
        if self.section < len(self.sections) or self.extra:
            raise self.fail_here(self._size_mismatch(self.total))
        self.check_arrays(self.row_offsets, self.column_ids, "")  # before anything indexes by the ids
        row_offsets, column_ids, weights = self.arrays()
        m = self.header["m"]
        stats = {"arcs_read": m, "self_loops": int(_count_self_loops(row_offsets, column_ids)),
                 "sorted_by_source": True}
        return row_offsets, column_ids, weights, None, stats

    def arrays(self) -> tuple:
        raise NotImplementedError

    def check_arrays(self, row_offsets: np.ndarray, column_ids: np.ndarray, which: str) -> None:
        """Offsets from 0 to m without decreasing, ids in [0, n) (graph/csr.py's `csr_problem`): else one line
        naming the file."""
        problem = csr_problem(row_offsets, column_ids, self.header["n"], self.header["m"], which)
        if problem is not None:
            raise self.fail_here(problem)


class BinaryCsrParser(BinaryParser):
    format_name = "binary-csr"
    suffix = ".csr"
    header_size = HEADER_SIZE

    @classmethod
    def recognizes(cls, head: bytes) -> bool:
        return not head or head.startswith(MAGIC)

    def read_header(self, raw: bytes) -> list[_Section]:
        header = parse_header(raw, self.label, "binary CSR")  # graph/csr.py's checks: magic, version, flags, n, m
        n, m, weighted, weight_dtype = header["n"], header["m"], header["weighted"], header["weight_dtype"]
        self.natural_directed = header["directed"]
        self.arcs_symmetric = not self.natural_directed
        self.header.update({"n": n, "m": m, "version": header["version"], "directed": self.natural_directed,
                            "weighted": weighted, "weight_dtype": str(weight_dtype) if weighted else None})
        self.check_sizes(n, m, weight_dtype.itemsize if weighted else 0)
        offsets_at, columns_at, weights_at = header["offsets_at"], header["columns_at"], header["weights_at"]
        self.row_offsets = np.empty(n + 1, dtype=OFFSET_DTYPE)
        self.column_ids = np.empty(m, dtype=ID_DTYPE)
        keep = weighted and not self.options.binarize
        self.weights = np.empty(m, dtype=weight_dtype) if keep else None
        sections = [
            _Section("row offsets", n + 1, 8, _into(self.row_offsets)),
            _Section("padding", columns_at - offsets_at - (n + 1) * 8, 1),
            _Section("column ids", m, 4, _into(self.column_ids)),
        ]
        if weighted:
            sections += [_Section("padding", weights_at - columns_at - m * 4, 1),
                         _Section("weights", m, 4, _into(self.weights) if keep else None)]
        return sections

    def arrays(self):
        return self.row_offsets, self.column_ids, self.weights


class GapbsParser(BinaryParser):
    format_name = "gapbs-sg"
    suffix = ".sg"
    header_size = GAPBS_HEADER.size
    weighted = False

    @classmethod
    def recognizes(cls, head: bytes) -> bool:
        return not head or head[0] in (0, 1)

    def read_header(self, raw: bytes) -> list[_Section]:
        if raw[0] not in (0, 1):
            raise self.fail_here(f"not a GAPBS serialized graph: the first byte (directed, a bool) is {raw[0]}, "
                                 "expected 0 or 1")
        directed, m, n = GAPBS_HEADER.unpack(raw)
        self.natural_directed = directed
        self.arcs_symmetric = not directed
        self.header.update({"n": n, "m": m, "directed": directed, "weighted": self.weighted})
        self.check_sizes(n, m, 4 if self.weighted else 0)
        element = 8 if self.weighted else 4
        keep = self.weighted and not self.options.binarize
        self.row_offsets = np.empty(n + 1, dtype=OFFSET_DTYPE)
        self.column_ids = np.empty(m, dtype=ID_DTYPE)
        self.weights = np.empty(m, dtype=ID_DTYPE) if keep else None
        neighbours = _pairs_into(self.column_ids, self.weights) if self.weighted else _into(self.column_ids)
        sections = [_Section("out offsets", n + 1, 8, _into(self.row_offsets)),
                    _Section("out neighbours", m, element, neighbours)]
        self.in_offsets = self.in_ids = None
        if directed:  # the transpose: checked for its degrees and ids, then dropped
            self.in_offsets = np.empty(n + 1, dtype=OFFSET_DTYPE)
            self.in_ids = np.empty(m, dtype=ID_DTYPE)
            in_neighbours = _pairs_into(self.in_ids, None) if self.weighted else _into(self.in_ids)
            sections += [_Section("in offsets", n + 1, 8, _into(self.in_offsets)),
                         _Section("in neighbours", m, element, in_neighbours)]
        return sections

    def arrays(self):
        if self.in_offsets is not None:
            self.check_arrays(self.in_offsets, self.in_ids, "in-neighbours' ")
            given = np.diff(self.in_offsets)
            arriving_all = np.diff(in_offsets_of(self.column_ids, self.header["n"]))  # the out-CSR's in-degrees
            wrong = np.flatnonzero(given != arriving_all)
            if len(wrong):
                vertex = int(wrong[0])
                degree, arriving = int(given[vertex]), int(arriving_all[vertex])
                raise self.fail_here(f"the in-neighbours give vertex {vertex} in-degree {degree}, but the out-arcs "
                                     f"into it number {arriving}: expected the in-CSR to be the out-CSR's transpose")
            self.in_offsets = self.in_ids = None
        return self.row_offsets, self.column_ids, self.weights


class GapbsWeightedParser(GapbsParser):
    format_name = "gapbs-wsg"
    suffix = ".wsg"
    weighted = True
