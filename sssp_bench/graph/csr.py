"""The one graph format of sssp-bench: CSR in memory and on disk.

On disk, one binary file per graph (`*.csr`), little-endian, every section aligned to 64 bytes so that
`numpy.memmap` maps each array in place, without a copy:

    offset  size  field
    0       8     magic  b"SSSPCSR\\0"
    8       4     format version (uint32, currently 1)
    12      4     flags (uint32): bit 0 directed, bit 1 weighted, bits 2-3 weight dtype (0 int32, 1 float32)
    16      8     n, number of vertices (uint64)
    24      8     m, number of arcs (uint64); an undirected edge is stored as two arcs
    32      32    reserved, zero
    64      ...   row_offsets  int64[n + 1]   (row_offsets[0] = 0, row_offsets[n] = m, non-decreasing)
    aligned ...   column_ids   int32[m]       (arc targets, 0 <= id < n)
    aligned ...   weights      int32[m] or float32[m], present only when weighted

Beside it, `<name>.csr.json` holds provenance (where the graph came from, generator spec and seed, weight
assignment) and characteristics (degrees, weight range), so a result can say what it ran on.

A file that is truncated, has a wrong magic or version, or whose sizes disagree is refused with a one-line
`GraphFormatError` naming the file.

Every file of a graph (the `.csr`, its sidecar, a converter's companions such as `<name>.ids.npy`) is written
under a temporary name, `.<file>.<host>-<pid>.tmp` (`temporary_path`), and renamed into place, the `.csr` last of
all: it is what marks the graph as present. A crash, even kill -9, never leaves a half-written graph, nor a new
sidecar beside an old graph (an old `.csr` is removed before the new files are renamed in). What a killed writer
leaves is its temporaries; the next write into that folder removes those whose writer is dead
(`clear_stale_temporaries`: this host's, whose process is gone) and no others.
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
import shutil
import socket
import struct
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import GraphFormatError, UserError
from ..jsonfile import dumps, read_json, write_json_atomic
from ..progress import format_size

MAGIC = b"SSSPCSR\0"
FORMAT_VERSION = 1
HEADER_SIZE = 64
ALIGNMENT = 64
_HEADER = struct.Struct("<8sIIQQ32x")

FLAG_DIRECTED = 1 << 0
FLAG_WEIGHTED = 1 << 1
_WEIGHT_DTYPE_SHIFT = 2
WEIGHT_DTYPES = {0: np.dtype("<i4"), 1: np.dtype("<f4")}
_WEIGHT_DTYPE_CODES = {dtype: code for code, dtype in WEIGHT_DTYPES.items()}

OFFSET_DTYPE = np.dtype("<i8")
COLUMN_DTYPE = np.dtype("<i4")


@dataclass(frozen=True, eq=False)
class CSRGraph:
    """A graph in compressed sparse row form. Arrays may be numpy arrays or read-only memmaps.

    `weights` is None for an unweighted graph; shortest-path code then treats every arc as weight 1.
    """

    row_offsets: np.ndarray
    column_ids: np.ndarray
    weights: np.ndarray | None
    directed: bool
    name: str = ""
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.row_offsets.ndim != 1 or len(self.row_offsets) < 1:
            raise ValueError("row_offsets must be a 1-D array of n + 1 entries")
        if self.weights is not None and len(self.weights) != len(self.column_ids):
            raise ValueError("weights and column_ids must have the same length")

    @property
    def n(self) -> int:
        return len(self.row_offsets) - 1

    @property
    def m(self) -> int:
        return len(self.column_ids)

    @property
    def weighted(self) -> bool:
        return self.weights is not None

    @property
    def weight_dtype(self) -> np.dtype | None:
        return None if self.weights is None else self.weights.dtype

    @property
    def nbytes(self) -> int:
        """The bytes of its arrays (row offsets, column ids, weights) on the host."""
        return sum(array.nbytes for array in (self.row_offsets, self.column_ids, self.weights) if array is not None)

    def out_degrees(self) -> np.ndarray:
        return np.diff(self.row_offsets)

    def arc_sources(self) -> np.ndarray:
        """The source vertex of every arc, int32[m] (allocates m entries; use on graphs that fit)."""
        return np.repeat(np.arange(self.n, dtype=np.int32), self.out_degrees())

    def weights_or_ones(self) -> np.ndarray:
        """The arc weights, or int32 ones when the graph is unweighted."""
        if self.weights is not None:
            return self.weights
        return np.ones(self.m, dtype=np.int32)

    def with_weights(self, weights: np.ndarray | None, meta: dict[str, Any] | None = None) -> "CSRGraph":
        """The same topology with other weights (e.g. a seeded assignment); `meta` is merged into the graph's."""
        return CSRGraph(self.row_offsets, self.column_ids, weights, self.directed, self.name, {**self.meta, **(meta or {})})

    def has_negative_weights(self) -> bool:
        return self.weights is not None and self.m > 0 and bool(self.weights.min() < 0)


def _aligned(offset: int) -> int:
    return (offset + ALIGNMENT - 1) // ALIGNMENT * ALIGNMENT


def _layout(n: int, m: int, weighted: bool, weight_dtype: np.dtype) -> tuple[int, int, int, int]:
    """Byte offsets of (row_offsets, column_ids, weights) and the total file size."""
    offsets_at = HEADER_SIZE
    columns_at = _aligned(offsets_at + (n + 1) * OFFSET_DTYPE.itemsize)
    columns_end = columns_at + m * COLUMN_DTYPE.itemsize
    weights_at = _aligned(columns_end)
    end = weights_at + m * weight_dtype.itemsize if weighted else columns_end
    return offsets_at, columns_at, weights_at, end


def sidecar_path(path: str | os.PathLike) -> Path:
    return Path(str(path) + ".json")


# ----------------------------------------------------------------------------------------------------------
# Temporaries: written under a name that says which process wrote them, renamed into place when complete
# ----------------------------------------------------------------------------------------------------------

# The host is part of the name because a dataset folder may be shared by machines (a Slurm array's tasks on one
# file system): a process id says whether its writer is alive only on the host that wrote it.
_HOST = hashlib.sha256(socket.gethostname().encode()).hexdigest()[:8]
_TEMPORARY = re.compile(r"\..+\.(?P<host>[0-9a-f]{8})-(?P<pid>\d+)\.tmp")
# What older versions (and the JSON files' atomic write, jsonfile.py) name theirs: no host. Removed only when
# their process is gone here and they are old enough that no writer anywhere can still be filling them.
_UNTAGGED_TEMPORARY = re.compile(r"\..+\.(?P<pid>\d+)\.tmp(\.npy)?")
UNTAGGED_STALE_SECONDS = 3600


def temporary_path(path: str | os.PathLike) -> Path:
    """Where a file of a graph is written before it is renamed to `path`: `.<name>.<host>-<pid>.tmp` beside it."""
    path = Path(path)
    return path.with_name(f".{path.name}.{_HOST}-{os.getpid()}.tmp")


def _process_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return pid > 0  # another user's process holds it (or the number is no process id at all)
    return True


def clear_stale_temporaries(folder: str | os.PathLike) -> list[Path]:
    """Remove the temporaries a killed writer left in `folder` (not below it): those this host wrote whose process
    is gone (and untagged ones of a dead process, an hour old). A live writer's, and another host's, are kept.
    Returns what was removed."""
    folder = Path(folder)
    removed = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    now = time.time()
    for entry in entries:
        if not entry.name.startswith("."):
            continue
        tagged = _TEMPORARY.fullmatch(entry.name)
        untagged = None if tagged else _UNTAGGED_TEMPORARY.fullmatch(entry.name)
        try:
            if tagged:
                stale = tagged["host"] == _HOST and not _process_alive(int(tagged["pid"]))
            elif untagged:
                stale = (not _process_alive(int(untagged["pid"]))
                         and now - entry.stat(follow_symlinks=False).st_mtime > UNTAGGED_STALE_SECONDS)
            else:
                continue
            if stale and entry.is_file(follow_symlinks=False):
                os.unlink(entry.path)
                removed.append(Path(entry.path))
        except FileNotFoundError:
            continue  # its writer renamed or removed it meanwhile
    return removed


def write_csr(graph: CSRGraph, path: str | os.PathLike, sidecar: dict[str, Any] | None = None,
              companions: list[tuple[Path, Path]] = ()) -> Path:
    """Write `graph` and its JSON sidecar, each under its temporary name (`temporary_path`) and then renamed into
    place, the `.csr` last; returns the path written. `companions` are (temporary, final) pairs of files the
    caller wrote beside it (the original ids), renamed into place with them; every temporary is removed when
    writing fails. An old `.csr` at `path` is removed before anything is renamed in, so no moment shows it beside
    the new sidecar. A disk without the room is one line, before anything is written."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    clear_stale_temporaries(path.parent)
    _, weight_dtype = _flags_and_weight_dtype(graph)
    end = _layout(graph.n, graph.m, graph.weighted, weight_dtype)[3]
    _check_disk_room(path, end)

    temporary = temporary_path(path)
    sidecar_temporary = temporary_path(sidecar_path(path))
    temporaries = [temporary, sidecar_temporary, *(written for written, _ in companions)]
    try:
        with open(temporary, "wb") as out:
            write_csr_body(graph, out)
            out.flush()
            os.fsync(out.fileno())
        if os.path.getsize(temporary) != end:
            raise OSError(f"{path}: wrote {os.path.getsize(temporary)} bytes, expected {end}")
        sidecar_temporary.write_text(dumps({**(sidecar or {}), "characteristics": characteristics(graph)},
                                           indent=2, sort_keys=True) + "\n")
        path.unlink(missing_ok=True)  # from here until the last rename the graph is absent, never half-replaced
        for written, final in [*companions, (sidecar_temporary, sidecar_path(path))]:
            os.replace(written, final)
        os.replace(temporary, path)
    except OSError as error:
        if error.errno in (errno.ENOSPC, errno.EDQUOT, errno.ENAMETOOLONG, errno.EACCES, errno.EROFS):
            raise UserError(f"{path}: cannot write the graph ({error.strerror})") from None
        raise
    finally:
        for leftover in temporaries:
            leftover.unlink(missing_ok=True)
    return path


def _check_disk_room(path: Path, size: int) -> None:
    try:
        free = shutil.disk_usage(path.parent).free
    except OSError:
        return
    if size > free:
        raise UserError(f"{path}: the graph takes {format_size(size)} on disk, but {path.parent} has "
                        f"{format_size(free)} free; nothing was written")


def _flags_and_weight_dtype(graph: CSRGraph) -> tuple[int, np.dtype]:
    """The header's flags and the weights' stored dtype (int32 when unweighted); ValueError for another dtype."""
    weight_dtype = np.dtype("<i4") if graph.weights is None else np.dtype(graph.weights.dtype).newbyteorder("<")
    if graph.weights is not None and weight_dtype not in _WEIGHT_DTYPE_CODES:
        raise ValueError(f"weights must be int32 or float32, not {graph.weights.dtype}")
    flags = (FLAG_DIRECTED if graph.directed else 0) | (FLAG_WEIGHTED if graph.weighted else 0)
    flags |= _WEIGHT_DTYPE_CODES[weight_dtype] << _WEIGHT_DTYPE_SHIFT
    return flags, weight_dtype


def write_csr_body(graph: CSRGraph, out) -> int:
    """Write `graph` in the `.csr` layout (header, sections, zero padding; no sidecar) through `out.write` alone, so
    `out` may be any binary stream (a file, a GzipFile, ...). Returns the bytes written. ValueError for weights
    that are neither int32 nor float32."""
    flags, weight_dtype = _flags_and_weight_dtype(graph)
    n, m = graph.n, graph.m
    offsets_at, columns_at, weights_at, end = _layout(n, m, graph.weighted, weight_dtype)
    out.write(_HEADER.pack(MAGIC, FORMAT_VERSION, flags, n, m))
    written = HEADER_SIZE
    sections = [(offsets_at, graph.row_offsets, OFFSET_DTYPE), (columns_at, graph.column_ids, COLUMN_DTYPE)]
    if graph.weights is not None:
        sections.append((weights_at, graph.weights, weight_dtype))
    for at, array, dtype in sections:
        out.write(b"\0" * (at - written))
        write_array(out, array, dtype)
        written = at + len(array) * dtype.itemsize
    if written != end:
        raise AssertionError(f"wrote {written} bytes of the .csr layout, expected {end}")
    return end


def write_array(out, array: np.ndarray, dtype, chunk: int = 1 << 24) -> None:
    """Write `array` as `dtype` through `out.write`, in chunks, so a dtype conversion never copies a whole
    100M-entry array."""
    for start in range(0, len(array), chunk):
        out.write(memoryview(np.ascontiguousarray(array[start : start + chunk], dtype=dtype).view(np.uint8)))


def write_sidecar(path: str | os.PathLike, data: dict[str, Any]) -> Path:
    return write_json_atomic(sidecar_path(path), data, sort_keys=True)


def read_sidecar(path: str | os.PathLike) -> dict[str, Any]:
    target = sidecar_path(path)
    return read_json(target, GraphFormatError) if target.exists() else {}


_KNOWN_FLAGS = FLAG_DIRECTED | FLAG_WEIGHTED | (0b11 << _WEIGHT_DTYPE_SHIFT)
INT32_MAX = int(np.iinfo(np.int32).max)


def parse_header(raw: bytes, label: str, what: str = "CSR") -> dict[str, Any]:
    """The 64-byte header `raw` checked (magic, version, flags, n and m): n, m, version, directed, weighted,
    weight_dtype, the section offsets and `end`, the file size they need. A problem is a one-line
    GraphFormatError "<label>: ..." (`what` names the format in it). The file's size is the caller's to check."""
    if len(raw) < 8 or raw[:8] != MAGIC:
        raise GraphFormatError(f"{label}: not an sssp-bench {what} file (wrong magic {bytes(raw[:8])!r}, expected "
                               f"{MAGIC!r})")
    if len(raw) < HEADER_SIZE:
        raise GraphFormatError(f"{label}: truncated header ({len(raw)} of {HEADER_SIZE} bytes)")
    _, version, flags, n, m = _HEADER.unpack(raw[:HEADER_SIZE])
    if version != FORMAT_VERSION:
        raise GraphFormatError(f"{label}: {what} version {version}, this sssp-bench reads version {FORMAT_VERSION}")
    weight_code = (flags >> _WEIGHT_DTYPE_SHIFT) & 0b11
    if weight_code not in WEIGHT_DTYPES or flags & ~_KNOWN_FLAGS:
        raise GraphFormatError(f"{label}: unknown flags {flags:#x} (bit 0 directed, bit 1 weighted, bits 2-3 the "
                               "weight dtype: 0 int32, 1 float32)")
    if n > INT32_MAX:
        raise GraphFormatError(f"{label}: the header says n={n:,} vertices, expected 0 <= n <= {INT32_MAX} (int32 ids)")
    if m >= 2**63:
        raise GraphFormatError(f"{label}: the header says m={m:,} arcs, expected m < 2**63 (int64 row offsets)")
    weighted = bool(flags & FLAG_WEIGHTED)
    weight_dtype = WEIGHT_DTYPES[weight_code]
    offsets_at, columns_at, weights_at, end = _layout(n, m, weighted, weight_dtype)
    return {
        "n": n, "m": m, "version": version, "directed": bool(flags & FLAG_DIRECTED), "weighted": weighted,
        "weight_dtype": weight_dtype, "offsets_at": offsets_at, "columns_at": columns_at, "weights_at": weights_at,
        "end": end,
    }


def csr_problem(row_offsets: np.ndarray, column_ids: np.ndarray, n: int, m: int, which: str = "",
                check_columns: bool = True) -> str | None:
    """What is wrong with CSR arrays read from a file (row offsets from 0 to m without decreasing, column ids in
    [0, n)), as one line, or None. `which` ("in-neighbours' ") names the arrays. Reads row_offsets once and scans
    column_ids once; only a failure allocates more (to say where)."""
    first, last = int(row_offsets[0]), int(row_offsets[n])
    if first != 0 or last != m:
        return f"the {which}row offsets run from {first} to {last}, expected 0 to m={m} (sizes disagree)"
    if n and np.any(row_offsets[1:] < row_offsets[:-1]):
        vertex = int(np.flatnonzero(row_offsets[1:] < row_offsets[:-1])[0])
        return (f"the {which}row offsets decrease after vertex {vertex} ({int(row_offsets[vertex])} then "
                f"{int(row_offsets[vertex + 1])}); the file is corrupt")
    if check_columns and m and (column_ids.min() < 0 or column_ids.max() >= n):
        arc = int(np.flatnonzero((column_ids < 0) | (column_ids >= n))[0])
        return (f"{which}column ids outside [0, {n}): arc {arc} points to {int(column_ids[arc])}; the file is "
                "corrupt")
    return None


def read_header(path: str | os.PathLike) -> dict[str, Any]:
    """Parse and check the header and the file size; returns n, m, flags and the section offsets."""
    path = Path(path)
    try:
        size = path.stat().st_size
        with open(path, "rb") as handle:
            raw = handle.read(HEADER_SIZE)
    except FileNotFoundError:
        raise GraphFormatError(f"{path}: no such graph file") from None
    except IsADirectoryError:
        raise GraphFormatError(f"{path}: is a directory, expected a .csr graph file") from None
    header = parse_header(raw, str(path))
    n, m, end = header["n"], header["m"], header["end"]
    if size < end:
        raise GraphFormatError(f"{path}: truncated: {size} bytes, but n={n} and m={m} need {end}")
    if size > end:
        raise GraphFormatError(f"{path}: {size} bytes, but n={n} and m={m} need exactly {end} (sizes disagree)")
    return header


def read_csr(path: str | os.PathLike, name: str | None = None, check_columns: bool = True) -> CSRGraph:
    """Map a `.csr` file read-only, without copying its arrays, and check that it is consistent (`csr_problem`).

    The checks read row_offsets once and (with `check_columns`) scan column_ids once for their range;
    neither allocates an array of m entries.
    """
    path = Path(path)
    header = read_header(path)
    n, m = header["n"], header["m"]
    row_offsets = np.memmap(path, OFFSET_DTYPE, "r", header["offsets_at"], (n + 1,))
    column_ids = np.memmap(path, COLUMN_DTYPE, "r", header["columns_at"], (m,)) if m else np.empty(0, COLUMN_DTYPE)
    weights = None
    if header["weighted"]:
        dtype = header["weight_dtype"]
        weights = np.memmap(path, dtype, "r", header["weights_at"], (m,)) if m else np.empty(0, dtype)
    problem = csr_problem(row_offsets, column_ids, n, m, check_columns=check_columns)
    if problem is not None:
        raise GraphFormatError(f"{path}: {problem}")
    sidecar = read_sidecar(path)
    return CSRGraph(
        row_offsets, column_ids, weights, header["directed"], name or sidecar.get("name") or path.stem,
        {"path": str(path), **sidecar},
    )


def characteristics(graph: CSRGraph) -> dict[str, Any]:
    """Cheap, vectorised facts about a graph for its sidecar and for reports (Table 1 style)."""
    degrees = graph.out_degrees()
    facts: dict[str, Any] = {
        "n": graph.n,
        "m": graph.m,
        "directed": graph.directed,
        "weighted": graph.weighted,
        "weight_dtype": None if graph.weights is None else str(graph.weights.dtype),
        "out_degree_max": int(degrees.max()) if graph.n else 0,
        "out_degree_mean": float(graph.m / graph.n) if graph.n else 0.0,
        "out_degree_std": float(degrees.std()) if graph.n else 0.0,
        "zero_out_degree_vertices": int(np.count_nonzero(degrees == 0)),
    }
    if graph.weights is not None and graph.m:
        facts["weight_min"] = graph.weights.min().item()
        facts["weight_max"] = graph.weights.max().item()
    return facts


def from_arrays(
    row_offsets, column_ids, weights=None, directed: bool = True, name: str = "", **meta: Any
) -> CSRGraph:
    """A CSRGraph from array-likes, converted to the store's dtypes (for tests and small graphs)."""
    return CSRGraph(
        np.asarray(row_offsets, dtype=np.int64),
        np.asarray(column_ids, dtype=np.int32),
        None if weights is None else np.asarray(weights, dtype=np.float32 if np.asarray(weights).dtype.kind == "f" else np.int32),
        directed,
        name,
        meta,
    )


def from_arcs(
    n: int, sources, targets, weights=None, directed: bool = True, name: str = "", **meta: Any
) -> CSRGraph:
    """A CSRGraph from an arc list (for tests and small graphs; generators have a streaming builder).

    Undirected input lists each edge once; both arcs are stored. Arcs keep their input order within a row.
    """
    sources = np.asarray(sources, dtype=np.int64)
    targets = np.asarray(targets, dtype=np.int64)
    if weights is not None:
        weights = np.asarray(weights)
    if not directed:
        sources, targets = np.concatenate([sources, targets]), np.concatenate([targets, sources])
        if weights is not None:
            weights = np.concatenate([weights, weights])
    order = np.argsort(sources, kind="stable")
    row_offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(sources, minlength=n), out=row_offsets[1:])
    return from_arrays(row_offsets, targets[order], None if weights is None else weights[order], directed, name, **meta)
