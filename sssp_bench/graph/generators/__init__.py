"""Seeded synthetic graphs, named by a spec string: the graphs of the papers, rebuilt byte for byte from a seed.

Spec language
    kind[:key=value[,key=value...]]        e.g.  rmat:n=3M,m=20M,seed=7     grid:rows=1000,cols=1000

  * integers: 3000000, 3e6, 3M or 1.5M (K = 10^3, M = 10^6, G = 10^9), 2^21; floats: 0.45, 1e-3;
    booleans: true/false/1/0 (also yes/no).
  * every parameter has a default; `parse_spec` returns them all, `canonical_spec` writes them all, sorted,
    so two spellings of one graph map to one string (the dataset cache key; `spec_filename` for a file name).
  * an unknown kind, an unknown key, a repeated key, a malformed pair, a wrong type or a value out of range is
    a one-line `SpecError` naming the spec and what is allowed.

Generators (where they come from)
  random        GTGraph G(n,m): m arcs with uniform random endpoints (H-BF, BFS-4K random.2Mv.128Me)
  rmat          GTGraph R-MAT a,b,c,d = .45,.15,.15,.25: skewed degrees (H-BF rmat.3Mv.20Me, BFS-4K rmat.2Mv.128Me)
  kron          Graph500 Kronecker, A,B,C,D = .57,.19,.19,.05, 2^scale vertices, labels permuted, undirected
  grid          2-D 4-neighbour grid, undirected: uniform low degree, diameter rows+cols-2 (course report)
  chain         a path of n vertices: diameter n-1, one vertex of parallelism per step (course report)
  star          one hub joined to n-1 leaves: the extreme degree imbalance (course report)
  communities   k dense clusters plus sparse inter-cluster arcs (the course report's "clustered")
  road          road-like: jittered 2-D lattice, near-neighbour roads, mean degree ~2.5, weights ~ length
                (stands in for DIMACS USA-road in H-BF)
  dag           parBucketHeap's DAG: arc i->i+1 plus degree-1 random later targets, D = V (parDijkstra Fig. 5)
  complete      complete undirected graph, by default weighted so that D = V (parDijkstra Fig. 6)
  fixed-degree  every vertex has exactly `degree` distinct random neighbours, weights 1..10 (da2cf)
  mesh          3-D finite-element mesh: lattice nodes coupled to 6/18/26 neighbours, `dofs` unknowns per node
                (stands in for H-BF's msdoor, a structural mesh of a door)
  small-world   Watts-Strogatz ring of k neighbours a side, links rewired with probability p (BFS-4K)
  forest-fire   Leskovec forest fire: each new vertex burns from a random ambassador (BFS-4K)

Conventions every generator follows
  * Weights are int32, uniform in [wmin, wmax) unless the generator says otherwise (road: proportional to
    length; dag/complete with chain_shortest: skip arcs cost the chain they bypass plus a uniform extra).
    Defaults are 1..100 (wmin=1, wmax=101), fixed-degree 1..10 (wmin=1, wmax=11) as in da2cf, road 1..1000.
  * Undirected graphs store every edge as two arcs carrying the same weight. For random and rmat, `m` counts
    arcs as stored (H-BF's tables count an undirected edge twice), so an undirected graph draws m/2 edges.
  * Parallel arcs (R-MAT and random duplicates) are kept as drawn, as GTGraph and Graph500 emit them; only
    self-loops are redrawn (random, rmat; Graph500 kron keeps its self-loops unless self_loops=false).
  * R-MAT with n not a power of two: the recursion runs on the next power of two and an arc with an endpoint
    outside [0, n) is redrawn (like a self-loop), so the graph has exactly n vertices and m arcs and keeps the
    R-MAT skew, conditioned on both endpoints being < n.

How graphs are made
  * Randomness is counter-based: every random number is the splitmix64 finaliser of (key(seed, stream),
    counter). A number depends only on its index, never on the order of drawing, so threads and chunks give
    byte-identical graphs, the stream does not change with numpy versions, and the large generators draw
    their arcs twice (count pass, scatter pass) instead of storing an arc list: peak memory stays near the
    size of the CSR itself.
  * CSR is built by counting sort, never an argsort over m: count arcs per source in per-chunk count rows,
    turn them into per-chunk cursors (prefix sums), scatter. Arcs keep their generation order within a row.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

import numba
import numpy as np
from numba import njit, prange

from ... import __version__
from ..csr import CSRGraph
from ...errors import SpecError

INT32_MAX = 2**31 - 1

# Bump whenever any generator's output for the same spec changes (a new sampling cut-off, another stream...),
# so a cached graph made by an older algorithm can be told apart (it is in every graph's provenance).
GENERATOR_VERSION = 1

# ----------------------------------------------------------------------------------------------------------
# Counter-based randomness
# ----------------------------------------------------------------------------------------------------------

_GOLDEN = 0x9E3779B97F4A7C15
_MIX_1 = 0xBF58476D1CE4E5B9
_MIX_2 = 0x94D049BB133111EB
_MASK_64 = (1 << 64) - 1

# numba treats module-level numpy scalars as compile-time constants; keeping every operand uint64 matters,
# because numba turns uint64-with-int64 arithmetic into float64.
_U_GOLDEN = np.uint64(_GOLDEN)
_U_MIX_1 = np.uint64(_MIX_1)
_U_MIX_2 = np.uint64(_MIX_2)
_U_LOW_32 = np.uint64(0xFFFFFFFF)
_U_1 = np.uint64(1)
_U_24 = np.uint64(24)
_U_27 = np.uint64(27)
_U_30 = np.uint64(30)
_U_31 = np.uint64(31)
_U_32 = np.uint64(32)

# One stream per purpose, so that e.g. the weights of a graph do not depend on how its endpoints were drawn.
STREAM_ENDPOINTS = 1
STREAM_WEIGHTS = 2
STREAM_PERMUTATION = 3
STREAM_TREE = 4
STREAM_EXTRA_EDGES = 5
STREAM_JITTER = 6
STREAM_INTER_CLUSTER = 7
STREAM_NEIGHBOURS = 8
STREAM_POTENTIALS = 9
STREAM_REWIRE = 10
STREAM_FIRE = 11
STREAM_SELF_LOOPS = 12


def _mix64_int(value: int) -> int:
    value &= _MASK_64
    value = ((value ^ (value >> 30)) * _MIX_1) & _MASK_64
    value = ((value ^ (value >> 27)) * _MIX_2) & _MASK_64
    return value ^ (value >> 31)


def stream_key(seed: int, stream: int) -> np.uint64:
    """The 64-bit key of one random stream of one seed."""
    return np.uint64(_mix64_int(_mix64_int(seed * _GOLDEN + 0x5EED) ^ (stream * 0xA24BAED4963EE407)))


@njit(inline="always", cache=True)
def _mix64(value):
    value = (value ^ (value >> _U_30)) * _U_MIX_1
    value = (value ^ (value >> _U_27)) * _U_MIX_2
    return value ^ (value >> _U_31)


@njit(inline="always", cache=True)
def _word(key, counter):
    """Random 64-bit word number `counter` of stream `key`."""
    return _mix64(key + counter * _U_GOLDEN)


@njit(inline="always", cache=True)
def _below(word, span):
    """A number in [0, span) from the top 32 bits of `word` (multiply-shift; bias < span / 2^32)."""
    return np.int64(((word >> _U_32) * np.uint64(span)) >> _U_32)


def random_words(key: np.uint64, counters: np.ndarray) -> np.ndarray:
    """Vectorised `_word`: uint64 words for an array of counters (numpy's uint64 arithmetic wraps, as wanted)."""
    with np.errstate(over="ignore"):  # 0-d inputs would warn about the wrap-around
        value = np.atleast_1d(np.asarray(counters).astype(np.uint64)) * _U_GOLDEN + np.uint64(key)
        value ^= value >> _U_30
        value *= _U_MIX_1
        value ^= value >> _U_27
        value *= _U_MIX_2
        value ^= value >> _U_31
    return value.reshape(np.shape(counters))


def random_below(key: np.uint64, counters: np.ndarray, span) -> np.ndarray:
    """Vectorised `_below`: int64 numbers in [0, span) (span a scalar or an array, < 2^32)."""
    spans = np.asarray(span).astype(np.uint64)
    return (((random_words(key, counters) >> _U_32) * spans) >> _U_32).astype(np.int64)


def random_unit(key: np.uint64, counters: np.ndarray) -> np.ndarray:
    """Vectorised float64 numbers in [0, 1) (53 random bits each)."""
    return (random_words(key, counters) >> np.uint64(11)).astype(np.float64) * (1.0 / (1 << 53))


@njit(parallel=True, cache=True)
def _fill_uniform(key, low, span, out):
    """out[i] = low + uniform [0, span) number i of stream `key`, in parallel."""
    for index in prange(len(out)):
        out[index] = low + _below(_word(key, np.uint64(index)), span)


def uniform_ints(key: np.uint64, count: int, low: int, high: int) -> np.ndarray:
    """int32[count], uniform in [low, high), element i drawn from counter i of stream `key`."""
    out = np.empty(count, dtype=np.int32)
    if count:
        _fill_uniform(np.uint64(key), np.int64(low), np.int64(high - low), out)
    return out


# ----------------------------------------------------------------------------------------------------------
# Counting-sort CSR builders
# ----------------------------------------------------------------------------------------------------------

_COUNT_ROWS_BUDGET = 256 << 20  # bytes of per-chunk count rows we allow; more chunks only balance load


def num_chunks(n: int) -> int:
    """Chunks for the count/scatter passes: one per thread, fewer when n is so large their counts would not fit.

    The CSR does not depend on the number of chunks (arcs keep generation order within a row either way).
    """
    return max(1, min(numba.get_num_threads(), _COUNT_ROWS_BUDGET // (8 * (n + 1))))


@njit(parallel=True, cache=True)
def offsets_from_chunk_counts(counts):
    """Turn counts[chunk, v] into cursors (where chunk's first arc of row v goes) and return row_offsets."""
    num_chunks, n = counts.shape
    degrees = np.empty(n, dtype=np.int64)
    for vertex_index in prange(n):
        vertex = np.int64(vertex_index)  # prange indices may be unsigned: int64 keeps the arithmetic integral
        total = 0
        for chunk in range(num_chunks):
            count = counts[chunk, vertex]
            counts[chunk, vertex] = total
            total += count
        degrees[vertex] = total
    row_offsets = np.empty(n + 1, dtype=np.int64)
    row_offsets[0] = 0
    running = 0
    for vertex in range(n):
        running += degrees[vertex]
        row_offsets[vertex + 1] = running
    for vertex_index in prange(n):
        vertex = np.int64(vertex_index)
        for chunk in range(num_chunks):
            counts[chunk, vertex] += row_offsets[vertex]
    return row_offsets


@njit(parallel=True, cache=True)
def count_edge_sources(n, sources, targets, directed, num_chunks):
    counts = np.zeros((num_chunks, n), dtype=np.int64)
    num_edges = len(sources)
    for chunk_index in prange(num_chunks):
        chunk = np.int64(chunk_index)
        for edge in range(chunk * num_edges // num_chunks, (chunk + 1) * num_edges // num_chunks):
            counts[chunk, sources[edge]] += 1
            if not directed:
                counts[chunk, targets[edge]] += 1
    return counts


@njit(parallel=True, cache=True)
def scatter_edges(sources, targets, weights, directed, cursors, column_ids, out_weights):
    num_chunks = cursors.shape[0]
    num_edges = len(sources)
    for chunk_index in prange(num_chunks):
        chunk = np.int64(chunk_index)
        for edge in range(chunk * num_edges // num_chunks, (chunk + 1) * num_edges // num_chunks):
            source = sources[edge]
            target = targets[edge]
            at = cursors[chunk, source]
            column_ids[at] = target
            out_weights[at] = weights[edge]
            cursors[chunk, source] = at + 1
            if not directed:
                at = cursors[chunk, target]
                column_ids[at] = source
                out_weights[at] = weights[edge]
                cursors[chunk, target] = at + 1


def csr_from_edges(n: int, sources, targets, weights, directed: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(row_offsets, column_ids, weights) from an edge list by counting sort; undirected edges give two arcs.

    Arcs keep their input order within each row, as `csr.from_arcs` (an argsort) does, in O(n + m). For an
    undirected edge list the two arcs of an edge take their places in edge order (from_arcs puts every forward
    arc before every backward one): the same arcs per row, in another order.
    """
    sources = np.ascontiguousarray(sources, dtype=np.int32)
    targets = np.ascontiguousarray(targets, dtype=np.int32)
    weights = np.ascontiguousarray(weights, dtype=np.int32)
    counts = count_edge_sources(n, sources, targets, directed, num_chunks(n))
    row_offsets = offsets_from_chunk_counts(counts)
    column_ids = np.empty(row_offsets[-1], dtype=np.int32)
    out_weights = np.empty(row_offsets[-1], dtype=np.int32)
    scatter_edges(sources, targets, weights, directed, counts, column_ids, out_weights)
    return row_offsets, column_ids, out_weights


# Drawn arcs (random, rmat, kron): both passes draw the same arcs from the same counters, so no arc list is kept.

@njit(inline="always", cache=True)
def _draw_endpoints(key, edge, n, levels, thresholds, recursive, self_loops, permutation):
    """Endpoints of edge number `edge`: uniform, or by R-MAT recursion; redrawn while invalid.

    Each edge owns counters edge * 2^24 + 0, 1, 2...; attempts take the next words, so redraws stay seeded.
    """
    base = np.uint64(edge) << _U_24
    word_index = np.uint64(0)
    source = np.int64(0)
    target = np.int64(0)
    threshold_a = thresholds[0]
    threshold_ab = thresholds[1]
    threshold_abc = thresholds[2]
    while True:
        if recursive:
            source = np.int64(0)
            target = np.int64(0)
            word = np.uint64(0)
            for level in range(levels):
                # a word holds two 32-bit draws: one quadrant choice per level
                if level & 1 == 0:
                    word = _word(key, base + word_index)
                    word_index += _U_1
                    draw = word & _U_LOW_32
                else:
                    draw = word >> _U_32
                # branch-free quadrant choice (random branches mispredict; this is 3x faster):
                # source bit set in c and d (draw >= a+b), target bit set in b and d
                source_bit = np.int64(draw >= threshold_ab)
                target_bit = np.int64((draw >= threshold_a) & (draw < threshold_ab)) | np.int64(draw >= threshold_abc)
                source = (source << 1) | source_bit
                target = (target << 1) | target_bit
        else:
            word = _word(key, base + word_index)
            word_index += _U_1
            source = np.int64(((word & _U_LOW_32) * np.uint64(n)) >> _U_32)
            target = np.int64(((word >> _U_32) * np.uint64(n)) >> _U_32)
        if source < n and target < n and (self_loops or source != target):
            break
    if len(permutation):
        source = np.int64(permutation[source])
        target = np.int64(permutation[target])
    return source, target


@njit(parallel=True, cache=True)
def _count_drawn_arcs(n, num_edges, key, levels, thresholds, recursive, self_loops, permutation, directed, num_chunks):
    counts = np.zeros((num_chunks, n), dtype=np.int64)
    for chunk_index in prange(num_chunks):
        chunk = np.int64(chunk_index)
        for edge in range(chunk * num_edges // num_chunks, (chunk + 1) * num_edges // num_chunks):
            source, target = _draw_endpoints(key, edge, n, levels, thresholds, recursive, self_loops, permutation)
            counts[chunk, source] += 1
            if not directed:
                counts[chunk, target] += 1
    return counts


@njit(parallel=True, cache=True)
def _scatter_drawn_arcs(
    n, num_edges, key, levels, thresholds, recursive, self_loops, permutation, directed,
    weight_key, wmin, wspan, cursors, column_ids, weights,
):
    num_chunks = cursors.shape[0]
    for chunk_index in prange(num_chunks):
        chunk = np.int64(chunk_index)
        for edge in range(chunk * num_edges // num_chunks, (chunk + 1) * num_edges // num_chunks):
            source, target = _draw_endpoints(key, edge, n, levels, thresholds, recursive, self_loops, permutation)
            # the weight belongs to the edge, so both arcs of an undirected edge carry it
            weight = wmin + _below(_word(weight_key, np.uint64(edge)), wspan)
            at = cursors[chunk, source]
            column_ids[at] = target
            weights[at] = weight
            cursors[chunk, source] = at + 1
            if not directed:
                at = cursors[chunk, target]
                column_ids[at] = source
                weights[at] = weight
                cursors[chunk, target] = at + 1


def _drawn_arcs_csr(
    n: int, num_edges: int, seed: int, directed: bool, wmin: int, wmax: int, *,
    quadrants: tuple[float, float, float, float] | None = None, self_loops: bool = False,
    permutation: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """CSR of `num_edges` drawn edges: uniform endpoints, or R-MAT when `quadrants` = (a, b, c, d) is given."""
    recursive = quadrants is not None
    levels = max(0, (n - 1).bit_length())  # recursion depth: the next power of two >= n
    if recursive:
        a, b, c, _ = quadrants
        cumulative = (a, a + b, a + b + c)
        thresholds = np.array([min(round(p * 2**32), 2**32) for p in cumulative], dtype=np.uint64)
    else:
        thresholds = np.zeros(3, dtype=np.uint64)
    permutation = np.empty(0, dtype=np.int32) if permutation is None else permutation
    key = stream_key(seed, STREAM_ENDPOINTS)
    arguments = (n, num_edges, key, levels, thresholds, recursive, self_loops, permutation, directed)
    counts = _count_drawn_arcs(*arguments, num_chunks(n))
    row_offsets = offsets_from_chunk_counts(counts)
    column_ids = np.empty(row_offsets[-1], dtype=np.int32)
    weights = np.empty(row_offsets[-1], dtype=np.int32)
    _scatter_drawn_arcs(
        *arguments, stream_key(seed, STREAM_WEIGHTS), np.int64(wmin), np.int64(wmax - wmin), counts, column_ids, weights
    )
    return row_offsets, column_ids, weights


@njit(cache=True)
def _seeded_permutation(n, key):
    """Fisher-Yates with counter-based draws: a permutation of range(n) that depends only on the key."""
    permutation = np.arange(n).astype(np.int32)
    for index in range(n - 1, 0, -1):
        other = _below(_word(key, np.uint64(index)), index + 1)
        permutation[index], permutation[other] = permutation[other], permutation[index]
    return permutation


# Rows of distinct sorted random neighbours (dag, fixed-degree).

@njit(inline="always", cache=True)
def _sample_sorted_distinct(key, base, span, out):
    """Fill `out` with len(out) distinct numbers of [0, span), sorted, every subset equally likely.

    Rows denser than 1/32 scan all candidates (selection sampling, O(span) cheap draws); sparser rows draw
    with replacement, sort, drop repeats and top up (O(k log k) per round, repeats are rare). The cut-off is
    where the two cost about the same (measured: a 4096-of-30000 row is 10x faster scanned).
    """
    count = len(out)
    if count == 0:
        return
    word_index = np.uint64(0)
    if 32 * count >= span:
        chosen = 0
        for candidate in range(span):
            if _below(_word(key, base + word_index), span - candidate) < count - chosen:
                out[chosen] = candidate
                chosen += 1
                if chosen == count:
                    break
            word_index += _U_1
        return
    filled = 0
    while filled < count:
        for index in range(filled, count):
            out[index] = _below(_word(key, base + word_index), span)
            word_index += _U_1
        out.sort()
        filled = 1
        for index in range(1, count):
            if out[index] != out[filled - 1]:
                out[filled] = out[index]
                filled += 1


@njit(parallel=True, cache=True)
def _fill_dag_rows(row_offsets, key, column_ids):
    """Row i: i+1 first (the chain), then distinct sorted random targets among i+2 .. n-1."""
    n = len(row_offsets) - 1
    for vertex_index in prange(n):
        vertex = np.int64(vertex_index)
        start = row_offsets[vertex]
        end = row_offsets[vertex + 1]
        if end == start:
            continue
        column_ids[start] = vertex + 1
        row = column_ids[start + 1 : end]
        _sample_sorted_distinct(key, np.uint64(vertex) << _U_32, n - vertex - 2, row)
        for index in range(len(row)):
            row[index] += vertex + 2


@njit(parallel=True, cache=True)
def _fill_fixed_degree_rows(row_offsets, key, column_ids):
    """Row v: distinct sorted random neighbours among all vertices but v."""
    n = len(row_offsets) - 1
    for vertex_index in prange(n):
        vertex = np.int64(vertex_index)
        row = column_ids[row_offsets[vertex] : row_offsets[vertex + 1]]
        _sample_sorted_distinct(key, np.uint64(vertex) << _U_32, n - 1, row)
        for index in range(len(row)):
            if row[index] >= vertex:  # skip v itself: no self-loops, still sorted
                row[index] += 1


@njit(parallel=True, cache=True)
def _add_chain_lengths(row_offsets, column_ids, chain_prefix, weights):
    """Skip arc i -> j (j > i + 1) costs the chain it bypasses, chain_prefix[j] - chain_prefix[i], on top."""
    n = len(row_offsets) - 1
    for vertex_index in prange(n):
        vertex = np.int64(vertex_index)
        for at in range(row_offsets[vertex], row_offsets[vertex + 1]):
            target = column_ids[at]
            if target > vertex + 1:
                weights[at] += chain_prefix[target] - chain_prefix[vertex]


@njit(parallel=True, cache=True)
def _fill_complete_rows(n, key, wmin, wspan, chain_prefix, chain_shortest, column_ids, weights):
    for vertex_index in prange(n):
        vertex = np.int64(vertex_index)
        at = vertex * (n - 1)
        for other in range(n):
            if other == vertex:
                continue
            low = min(vertex, other)
            high = max(vertex, other)
            # the weight is a function of the unordered pair, so both arcs of the edge agree
            weight = wmin + _below(_word(key, np.uint64(low) * np.uint64(n) + np.uint64(high)), wspan)
            if chain_shortest and high - low >= 2:
                weight += chain_prefix[high] - chain_prefix[low]
            column_ids[at] = other
            weights[at] = weight
            at += 1


# ----------------------------------------------------------------------------------------------------------
# Parameters and the registry
# ----------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Param:
    """One parameter of a spec: its type (int, float, bool or str), default, help line and bounds."""

    type: type
    default: Any
    help: str = ""
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[Any, ...] | None = None

    def describe(self) -> str:
        kind = "|".join(map(str, self.choices)) if self.choices else self.type.__name__
        return f"{kind}, default {format_value(self.default)}: {self.help}"


Params = dict[str, Any]


@dataclass(frozen=True)
class Generator:
    """A graph kind: its name, a one-line description (and paper), its parameters and how to build it.

    `build(params)` returns (row_offsets, column_ids, weights, directed); `check(params)` returns a problem
    (a phrase, for a SpecError) or None.
    """

    name: str
    description: str
    parameters: dict[str, Param]
    build: Callable[[Params], tuple[np.ndarray, np.ndarray, np.ndarray, bool]]
    check: Callable[[Params], str | None] | None = None

    def usage(self) -> str:
        """The spec with every default written out, e.g. for `sssp-bench generate --help`."""
        return canonical_from_params(self.name, {key: p.default for key, p in self.parameters.items()})


def _weight_params(wmin: int = 1, wmax: int = 101) -> dict[str, Param]:
    return {
        "wmin": Param(int, wmin, "smallest weight (inclusive)", minimum=0, maximum=INT32_MAX),
        "wmax": Param(int, wmax, "weights are drawn from [wmin, wmax)", minimum=1, maximum=INT32_MAX + 1),
    }


def _seed_param() -> dict[str, Param]:
    return {"seed": Param(int, 1, "seed of the counter-based random streams", minimum=0, maximum=2**63 - 1)}


def _directed_param(default: bool, help: str) -> dict[str, Param]:
    return {"directed": Param(bool, default, help)}


_VERTICES = {"n": Param(int, 16384, "number of vertices", minimum=1, maximum=INT32_MAX)}
_ARC_COUNT = {"m": Param(int, 131072, "number of arcs stored (an undirected graph draws m/2 edges)", minimum=0,
                         maximum=2**40)}


def _check_weights(params: Params) -> str | None:
    if params["wmin"] >= params["wmax"]:
        return f"wmin={params['wmin']} must be below wmax={params['wmax']} (weights are drawn from [wmin, wmax))"
    return None


def _check_arc_count(params: Params) -> str | None:
    if not params["directed"] and params["m"] % 2:
        return f"m={params['m']} is odd, but an undirected graph stores each edge as two arcs"
    if params["n"] < 2 and params["m"] > 0:
        return "n must be at least 2 to draw arcs without self-loops"
    return None


def _check_quadrants(params: Params) -> str | None:
    quadrants = [params[key] for key in "abcd"]
    if min(quadrants) <= 0 or abs(sum(quadrants) - 1) > 1e-9:
        return f"a, b, c, d must be positive and sum to 1, got {', '.join(map(format_value, quadrants))}"
    return None


def _checks(*checks: Callable[[Params], str | None]) -> Callable[[Params], str | None]:
    def check(params: Params) -> str | None:
        for one in checks:
            problem = one(params)
            if problem:
                return problem
        return None

    return check


def _quadrant_params(a: float, b: float, c: float, d: float) -> dict[str, Param]:
    return {
        "a": Param(float, a, "probability of the top-left quadrant (source bit 0, target bit 0)", 0.0, 1.0),
        "b": Param(float, b, "probability of the top-right quadrant (source bit 0, target bit 1)", 0.0, 1.0),
        "c": Param(float, c, "probability of the bottom-left quadrant (source bit 1, target bit 0)", 0.0, 1.0),
        "d": Param(float, d, "probability of the bottom-right quadrant; a + b + c + d = 1", 0.0, 1.0),
    }


# --- random, rmat, kron ---

def _build_random(params: Params):
    p = params
    return (*_drawn_arcs_csr(p["n"], p["m"] if p["directed"] else p["m"] // 2, p["seed"], p["directed"],
                             p["wmin"], p["wmax"]), p["directed"])


def _build_rmat(params: Params):
    p = params
    quadrants = (p["a"], p["b"], p["c"], p["d"])
    arrays = _drawn_arcs_csr(p["n"], p["m"] if p["directed"] else p["m"] // 2, p["seed"], p["directed"],
                             p["wmin"], p["wmax"], quadrants=quadrants)
    return (*arrays, p["directed"])


def _build_kron(params: Params):
    p = params
    n = 1 << p["scale"]
    # Graph500 relabels the vertices with a random permutation so that the degree skew is not visible in the ids
    permutation = _seeded_permutation(n, stream_key(p["seed"], STREAM_PERMUTATION))
    arrays = _drawn_arcs_csr(n, p["edgefactor"] * n, p["seed"], p["directed"], p["wmin"], p["wmax"],
                             quadrants=(p["a"], p["b"], p["c"], p["d"]), self_loops=p["self_loops"],
                             permutation=permutation)
    return (*arrays, p["directed"])


def _check_kron(params: Params) -> str | None:
    if not params["self_loops"] and params["scale"] < 1:
        return "scale must be at least 1 to draw edges without self-loops"
    return None


# --- structured graphs: grid, chain, star, complete ---

def _edge_weights(seed: int, count: int, wmin: int, wmax: int) -> np.ndarray:
    return uniform_ints(stream_key(seed, STREAM_WEIGHTS), count, wmin, wmax)


def _build_grid(params: Params):
    rows, cols = params["rows"], params["cols"]
    vertices = np.arange(rows * cols, dtype=np.int64)
    column = vertices % cols
    # edge ids 2v (v -> right neighbour) and 2v + 1 (v -> neighbour below); weights are drawn by edge id
    right = vertices[column + 1 < cols]
    down = vertices[vertices + cols < rows * cols]
    edge_ids = np.sort(np.concatenate([2 * right, 2 * down + 1]))
    sources = edge_ids // 2
    targets = np.where(edge_ids % 2 == 0, sources + 1, sources + cols)
    all_weights = _edge_weights(params["seed"], 2 * rows * cols, params["wmin"], params["wmax"])
    return (*csr_from_edges(rows * cols, sources, targets, all_weights[edge_ids], False), False)


def _check_grid(params: Params) -> str | None:
    if params["rows"] * params["cols"] > INT32_MAX:
        return f"rows*cols = {params['rows'] * params['cols']} vertices do not fit int32 vertex ids"
    return None


def _build_chain(params: Params):
    n = params["n"]
    sources = np.arange(n - 1, dtype=np.int32)
    weights = _edge_weights(params["seed"], n - 1, params["wmin"], params["wmax"])
    return (*csr_from_edges(n, sources, sources + 1, weights, params["directed"]), params["directed"])


def _build_star(params: Params):
    n = params["n"]
    leaves = np.arange(1, n, dtype=np.int32)
    weights = _edge_weights(params["seed"], n - 1, params["wmin"], params["wmax"])
    return (*csr_from_edges(n, np.zeros(n - 1, dtype=np.int32), leaves, weights, params["directed"]),
            params["directed"])


def _check_chain_shortest(params: Params) -> str | None:
    if not params["chain_shortest"]:
        return None
    if params["wmin"] < 1:
        return "chain_shortest needs wmin >= 1, so that every skip arc is strictly longer than the chain"
    longest = params["n"] * (params["wmax"] - 1)
    if longest > INT32_MAX:
        return (f"chain_shortest weights can reach n*(wmax-1) = {longest} > {INT32_MAX} (int32); "
                "lower n or wmax, or set chain_shortest=false")
    return None


def _build_complete(params: Params):
    n, wmin, wmax = params["n"], params["wmin"], params["wmax"]
    key = stream_key(params["seed"], STREAM_WEIGHTS)
    chain_prefix = np.zeros(n, dtype=np.int64)
    if n > 1:
        # the chain edge {i, i+1} has the same pair-hashed weight in the kernel: prefix sums of exactly those
        chain = np.arange(n - 1, dtype=np.uint64)
        chain_weights = wmin + random_below(key, chain * np.uint64(n) + chain + np.uint64(1), wmax - wmin)
        np.cumsum(chain_weights, out=chain_prefix[1:])
    row_offsets = np.arange(n + 1, dtype=np.int64) * (n - 1)
    column_ids = np.empty(n * (n - 1), dtype=np.int32)
    weights = np.empty(n * (n - 1), dtype=np.int32)
    _fill_complete_rows(n, key, np.int64(wmin), np.int64(wmax - wmin), chain_prefix, params["chain_shortest"],
                        column_ids, weights)
    return row_offsets, column_ids, weights, False


# --- dag and fixed-degree: rows of distinct random neighbours ---

def _build_dag(params: Params):
    n, degree, seed = params["n"], params["degree"], params["seed"]
    vertices = np.arange(n, dtype=np.int64)
    # vertex i can reach only the n-1-i vertices after it, so the last rows are shorter than `degree`
    degrees = np.minimum(degree, n - 1 - vertices)
    row_offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(degrees, out=row_offsets[1:])
    column_ids = np.empty(row_offsets[-1], dtype=np.int32)
    _fill_dag_rows(row_offsets, stream_key(seed, STREAM_NEIGHBOURS), column_ids)
    weights = _edge_weights(seed, len(column_ids), params["wmin"], params["wmax"])
    if params["chain_shortest"] and n > 1:
        chain_prefix = np.zeros(n, dtype=np.int64)
        np.cumsum(weights[row_offsets[:-2]], out=chain_prefix[1:])  # the chain arc opens every row but the last
        _add_chain_lengths(row_offsets, column_ids, chain_prefix, weights)
    return row_offsets, column_ids, weights, True


def _build_fixed_degree(params: Params):
    n, degree, seed = params["n"], params["degree"], params["seed"]
    row_offsets = np.arange(n + 1, dtype=np.int64) * degree
    neighbours = np.empty(n * degree, dtype=np.int32)
    _fill_fixed_degree_rows(row_offsets, stream_key(seed, STREAM_NEIGHBOURS), neighbours)
    weights = _edge_weights(seed, len(neighbours), params["wmin"], params["wmax"])
    if not params["predecessor"]:
        return row_offsets, neighbours, weights, True
    # da2cf draws each vertex's predecessors, then stores the successor lists: in-degrees are all `degree`
    targets = np.repeat(np.arange(n, dtype=np.int32), degree)
    return (*csr_from_edges(n, neighbours, targets, weights, True), True)


def _check_fixed_degree(params: Params) -> str | None:
    if params["degree"] > params["n"] - 1:
        return f"degree={params['degree']} needs at least degree+1 vertices, n={params['n']}"
    return None


# --- communities ---

def _build_communities(params: Params):
    n, clusters, seed, directed = params["n"], params["clusters"], params["seed"], params["directed"]
    starts = np.arange(clusters + 1, dtype=np.int64) * n // clusters  # cluster c is [starts[c], starts[c+1])
    per_edge = 1 if directed else 2

    def draw_sources(stream: int, count: int) -> tuple[np.ndarray, np.ndarray]:
        sources = random_below(stream_key(seed, stream), np.arange(count, dtype=np.uint64), n)
        return sources, np.searchsorted(starts, sources, side="right") - 1

    inside = round(n * params["intra_degree"] / per_edge)
    sources, cluster = draw_sources(STREAM_ENDPOINTS, inside)
    sizes = starts[cluster + 1] - starts[cluster]
    # uniform over the cluster minus the source itself: draw among size-1 and step over the source
    offsets = random_below(stream_key(seed, STREAM_NEIGHBOURS), np.arange(inside, dtype=np.uint64), sizes - 1)
    targets = starts[cluster] + offsets
    targets += targets >= sources

    between = round(n * params["inter_degree"] / per_edge)
    far_sources, far_cluster = draw_sources(STREAM_INTER_CLUSTER, between)
    far_sizes = starts[far_cluster + 1] - starts[far_cluster]
    # uniform over the vertices outside the source's cluster: draw among n-size and step over the cluster
    far_targets = random_below(stream_key(seed, STREAM_EXTRA_EDGES), np.arange(between, dtype=np.uint64), n - far_sizes)
    far_targets += far_sizes * (far_targets >= starts[far_cluster])

    weights = _edge_weights(seed, inside + between, params["wmin"], params["wmax"])
    arrays = csr_from_edges(n, np.concatenate([sources, far_sources]), np.concatenate([targets, far_targets]),
                            weights, directed)
    return (*arrays, directed)


def _check_communities(params: Params) -> str | None:
    n, clusters = params["n"], params["clusters"]
    if clusters > n:
        return f"clusters={clusters} is more than n={n} vertices"
    if params["intra_degree"] > 0 and n // clusters < 2:
        return f"n={n} gives clusters of fewer than 2 vertices, which cannot hold arcs without self-loops"
    if params["inter_degree"] > 0 and clusters < 2:
        return "inter_degree > 0 needs at least 2 clusters"
    return None


# --- road ---

def _build_road(params: Params):
    n, seed, jitter = params["n"], params["seed"], params["jitter"]
    wmin, wmax = params["wmin"], params["wmax"]
    cols = max(1, math.isqrt(n - 1) + 1) if n > 1 else 1  # ceil(sqrt(n)): a near-square lattice
    vertices = np.arange(n, dtype=np.int64)
    row, column = vertices // cols, vertices % cols
    # edge ids: 2v is v -> right neighbour, 2v + 1 is v -> neighbour below
    is_edge = np.zeros(2 * n, dtype=bool)
    is_edge[0::2] = (column + 1 < cols) & (vertices + 1 < n)
    is_edge[1::2] = vertices + cols < n

    # a random spanning tree keeps the map connected: every vertex but 0 joins its left or upper neighbour
    # (forced on the first row and column); it has n-1 edges, mean degree ~2, and no cycle since parents come first
    go_up = random_unit(stream_key(seed, STREAM_TREE), vertices) < 0.5
    go_up = np.where(row == 0, False, np.where(column == 0, True, go_up))
    children = vertices[1:]
    tree_ids = np.where(go_up[1:], 2 * (children - cols) + 1, 2 * (children - 1))
    in_tree = np.zeros(2 * n, dtype=bool)
    in_tree[tree_ids] = True

    # then keep each other lattice edge with the probability that brings the mean degree to `degree`
    spare = int(is_edge.sum()) - (n - 1)
    wanted = params["degree"] * n / 2 - (n - 1)
    keep_probability = min(1.0, max(0.0, wanted / spare)) if spare > 0 else 0.0
    keep = random_unit(stream_key(seed, STREAM_EXTRA_EDGES), np.arange(2 * n, dtype=np.uint64)) < keep_probability
    edge_ids = np.flatnonzero(in_tree | (is_edge & keep))

    sources = edge_ids // 2
    targets = np.where(edge_ids % 2 == 0, sources + 1, sources + cols)
    jitter_key = stream_key(seed, STREAM_JITTER)
    x = column + jitter * (2 * random_unit(jitter_key, 2 * vertices) - 1)
    y = row + jitter * (2 * random_unit(jitter_key, 2 * vertices + 1) - 1)
    length = np.hypot(x[targets] - x[sources], y[targets] - y[sources])
    # weight proportional to length: the longest possible road (two jittered neighbours) costs wmax - 1
    longest = math.hypot(1 + 2 * jitter, 2 * jitter)
    weights = np.clip(np.ceil(length * ((wmax - 1) / longest)), wmin, wmax - 1).astype(np.int32)
    return (*csr_from_edges(n, sources, targets, weights, False), False)


# --- finite-element mesh (H-BF's msdoor) ---

MESH_NEIGHBOURS = (6, 18, 26)  # face; face and edge; face, edge and corner neighbours of a lattice node


def mesh_half_stencil(neighbours: int) -> list[tuple[int, int, int]]:
    """Offsets (dx, dy, dz) to half of a node's `neighbours` lattice neighbours, the lexicographically positive
    ones: each link between two nodes is listed once. 6, 18 and 26 keep offsets with at most 1, 2, 3 nonzeros."""
    nonzeros = MESH_NEIGHBOURS.index(neighbours) + 1
    return [offset for offset in itertools.product((-1, 0, 1), repeat=3)
            if offset > (0, 0, 0) and sum(map(abs, offset)) <= nonzeros]


def _build_mesh(params: Params):
    """Node links of the lattice (x fastest, then y, then z), each blown up into every pair of the two nodes'
    unknowns; plus every pair of one node's own unknowns. Edge ids in that order draw the weights."""
    nx, ny, nz, dofs = params["nx"], params["ny"], params["nz"], params["dofs"]
    nodes = np.arange(nx * ny * nz, dtype=np.int64)
    x, y, z = nodes % nx, nodes // nx % ny, nodes // (nx * ny)
    tails, heads = [], []
    for dx, dy, dz in mesh_half_stencil(params["neighbours"]):
        inside = ((x + dx >= 0) & (x + dx < nx) & (y + dy >= 0) & (y + dy < ny)
                  & (z + dz >= 0) & (z + dz < nz))
        tails.append(nodes[inside])
        heads.append(nodes[inside] + dx + dy * nx + dz * nx * ny)
    link_tails, link_heads = np.concatenate(tails), np.concatenate(heads)
    sources, targets = [], []
    for i, j in itertools.product(range(dofs), repeat=2):
        sources.append(link_tails * dofs + i)
        targets.append(link_heads * dofs + j)
    for i, j in itertools.combinations(range(dofs), 2):
        sources.append(nodes * dofs + i)
        targets.append(nodes * dofs + j)
    sources, targets = np.concatenate(sources), np.concatenate(targets)
    vertices = len(nodes) * dofs
    weights = _edge_weights(params["seed"], len(sources), params["wmin"], params["wmax"])
    if not params["self_loops"]:
        return (*csr_from_edges(vertices, sources, targets, weights, False), False)
    # Stored as arcs: an undirected loop would be stored twice. Each edge gives u -> v then v -> u, as the
    # undirected build stores it, after the loops, so a row holds its loop first and then the same arcs in the
    # same order as without loops.
    loops = np.arange(vertices, dtype=np.int64)
    loop_weights = uniform_ints(stream_key(params["seed"], STREAM_SELF_LOOPS), vertices, params["wmin"],
                                params["wmax"])
    arc_tails = np.concatenate([loops, np.stack([sources, targets], axis=1).ravel()])
    arc_heads = np.concatenate([loops, np.stack([targets, sources], axis=1).ravel()])
    arc_weights = np.concatenate([loop_weights, np.repeat(weights, 2)])
    return (*csr_from_edges(vertices, arc_tails, arc_heads, arc_weights, True), False)


def _check_mesh(params: Params) -> str | None:
    vertices = params["nx"] * params["ny"] * params["nz"] * params["dofs"]
    if vertices > INT32_MAX:
        return f"nx*ny*nz*dofs = {vertices} vertices do not fit int32 vertex ids"
    return None


# --- SNAP-style: small world, forest fire (BFS-4K's Gen-SmallWorld and Gen-ForestFire) ---

def _build_small_world(params: Params):
    """Watts-Strogatz as SNAP's GenSmallWorld: a ring where vertex i links to i+1..i+k, each link's far end
    rewired with probability p to a uniform vertex other than i. Undirected; a rewired link may duplicate one."""
    n, k, seed = params["n"], params["k"], params["seed"]
    links = np.arange(n * k, dtype=np.int64)
    sources = links // k
    targets = (sources + 1 + links % k) % n
    rewired = random_unit(stream_key(seed, STREAM_REWIRE), links) < params["p"]
    count = int(rewired.sum())
    if count:
        # uniform over the n-1 vertices other than the source: draw in [0, n-1) and step over the source
        fresh = random_below(stream_key(seed, STREAM_ENDPOINTS), np.flatnonzero(rewired).astype(np.uint64), n - 1)
        fresh += fresh >= sources[rewired]
        targets[rewired] = fresh
    weights = _edge_weights(seed, n * k, params["wmin"], params["wmax"])
    return (*csr_from_edges(n, sources, targets, weights, False), False)


def _check_small_world(params: Params) -> str | None:
    if params["n"] <= 2 * params["k"]:
        return f"n={params['n']} must exceed 2k={2 * params['k']} for a ring of k neighbours on each side"
    return None


@njit(cache=True)
def _forest_fire_arcs(n, forward, backward, key, out_targets, out_start):
    """Leskovec et al.'s forest fire, as SNAP's GenForestFire: vertex v picks a uniform ambassador among 0..v-1
    and burns outward; each burned vertex u spreads to Geo(1-forward)-1 of its unburned out-neighbours and
    Geo(1-backward)-1 of its unburned in-neighbours, chosen at random; v links to every vertex burned.

    Out-arcs of v are all made when v arrives, so they sit contiguously in `out_targets` from `out_start[v]`;
    in-neighbours grow over time and live in linked lists (`in_head`, `in_next`).
    Returns the number of arcs written. Randomness: stream `key`, one counter for the whole process."""
    capacity = len(out_targets)
    in_head = np.full(n, -1, np.int64)
    in_next = np.full(capacity, -1, np.int64)
    in_source = np.empty(capacity, np.int32)
    burned_by = np.full(n, -1, np.int64)   # burned_by[u] == v: u already burned for v
    queue = np.empty(n, np.int32)
    candidates = np.empty(n, np.int32)
    counter = np.uint64(0)
    arcs = 0
    for v in range(n):
        out_start[v] = arcs
        if v == 0:
            continue
        counter += _U_1
        ambassador = _below(_word(key, counter), v)
        burned_by[ambassador] = v
        queue[0] = ambassador
        head, tail = 0, 1
        while head < tail and arcs + tail < capacity:
            u = queue[head]
            head += 1
            for direction in range(2):
                probability = forward if direction == 0 else backward
                wanted = 0
                while True:  # successes before the first failure: Geo(1 - probability) - 1
                    counter += _U_1
                    if (_word(key, counter) >> _U_32) * (1.0 / 4294967296.0) >= probability:
                        break
                    wanted += 1
                if wanted == 0:
                    continue
                found = 0
                if direction == 0:
                    for arc in range(out_start[u], out_start[u + 1]):  # u < v, so out_start[u + 1] is set
                        w = out_targets[arc]
                        if burned_by[w] != v:
                            candidates[found] = w
                            found += 1
                else:
                    link = in_head[u]
                    while link != -1:
                        w = in_source[link]
                        if burned_by[w] != v:
                            candidates[found] = w
                            found += 1
                        link = in_next[link]
                # a random `wanted` of the candidates: partial Fisher-Yates
                take = min(wanted, found)
                for index in range(take):
                    counter += _U_1
                    pick = index + _below(_word(key, counter), found - index)
                    chosen = candidates[pick]
                    candidates[pick] = candidates[index]
                    if burned_by[chosen] != v:
                        burned_by[chosen] = v
                        queue[tail] = chosen
                        tail += 1
        for index in range(tail):
            if arcs == capacity:
                break
            target = queue[index]
            out_targets[arcs] = target
            in_source[arcs] = v
            in_next[arcs] = in_head[target]
            in_head[target] = arcs
            arcs += 1
    out_start[n] = arcs
    return arcs


def _build_forest_fire(params: Params):
    n, seed = params["n"], params["seed"]
    capacity = params["max_arcs"]
    out_targets = np.empty(capacity, np.int32)
    out_start = np.zeros(n + 1, np.int64)
    arcs = _forest_fire_arcs(n, params["forward"], params["backward"], stream_key(seed, STREAM_FIRE), out_targets,
                             out_start)
    sources = np.repeat(np.arange(n, dtype=np.int32), np.diff(out_start))
    weights = _edge_weights(seed, arcs, params["wmin"], params["wmax"])
    return (*csr_from_edges(n, sources, out_targets[:arcs], weights, params["directed"]), params["directed"])


# ----------------------------------------------------------------------------------------------------------

def _generator(name, description, parameters, build, *checks) -> Generator:
    return Generator(name, description, parameters, build, _checks(*checks) if checks else None)


GENERATORS: dict[str, Generator] = {
    generator.name: generator
    for generator in [
        _generator(
            "random",
            "GTGraph G(n,m): m arcs with uniform random endpoints, self-loops redrawn "
            "(H-BF and BFS-4K random.2Mv.128Me: random:n=2M,m=128M)",
            {**_VERTICES, **_ARC_COUNT, **_directed_param(True, "false: store each edge as two arcs"),
             **_seed_param(), **_weight_params()},
            _build_random, _check_weights, _check_arc_count,
        ),
        _generator(
            "rmat",
            "GTGraph R-MAT: m arcs placed by recursive quadrant choice, skewed degrees, self-loops redrawn "
            "(H-BF rmat.3Mv.20Me: rmat:n=3M,m=20M; BFS-4K rmat.2Mv.128Me)",
            {**_VERTICES, **_ARC_COUNT, **_quadrant_params(0.45, 0.15, 0.15, 0.25),
             **_directed_param(True, "false: store each edge as two arcs"), **_seed_param(), **_weight_params()},
            _build_rmat, _check_weights, _check_arc_count, _check_quadrants,
        ),
        _generator(
            "kron",
            "Graph500 Kronecker: 2^scale vertices, edgefactor*2^scale edges, labels permuted, undirected, "
            "self-loops and duplicates kept as Graph500 (BFS-4K kron_g500-lon20: kron:scale=20)",
            {"scale": Param(int, 16, "log2 of the number of vertices", minimum=0, maximum=30),
             "edgefactor": Param(int, 16, "edges per vertex (an undirected edge is stored as two arcs)", minimum=0,
                                 maximum=2**20),
             **_quadrant_params(0.57, 0.19, 0.19, 0.05),
             "self_loops": Param(bool, True, "keep self-loops as Graph500 does (false: redraw them)"),
             **_directed_param(False, "true: keep each drawn edge as one arc"), **_seed_param(), **_weight_params()},
            _build_kron, _check_weights, _check_quadrants, _check_kron,
        ),
        _generator(
            "grid",
            "2-D 4-neighbour grid, undirected: uniform low degree, diameter rows+cols-2 (course report's grid)",
            {"rows": Param(int, 100, "rows of the grid", minimum=1, maximum=INT32_MAX),
             "cols": Param(int, 100, "columns of the grid", minimum=1, maximum=INT32_MAX),
             **_seed_param(), **_weight_params()},
            _build_grid, _check_weights, _check_grid,
        ),
        _generator(
            "chain",
            "a path 0 - 1 - ... - n-1: diameter n-1, no parallelism to find (course report's chain)",
            {**_VERTICES, **_directed_param(False, "true: arcs i -> i+1 only"), **_seed_param(), **_weight_params()},
            _build_chain, _check_weights,
        ),
        _generator(
            "star",
            "hub 0 joined to n-1 leaves: the extreme degree imbalance (course report's star)",
            {**_VERTICES, **_directed_param(False, "true: arcs hub -> leaf only"), **_seed_param(), **_weight_params()},
            _build_star, _check_weights,
        ),
        _generator(
            "communities",
            "k dense clusters of consecutive ids plus sparse arcs between clusters (course report's clustered)",
            {**_VERTICES,
             "clusters": Param(int, 16, "number of clusters (near-equal blocks of consecutive ids)", minimum=1),
             "intra_degree": Param(float, 16.0, "mean out-degree inside a vertex's cluster", minimum=0.0),
             "inter_degree": Param(float, 0.5, "mean out-degree to other clusters", minimum=0.0),
             **_directed_param(False, "false: store each edge as two arcs"), **_seed_param(), **_weight_params()},
            _build_communities, _check_weights, _check_communities,
        ),
        _generator(
            "road",
            "road-like: jittered near-square lattice, spanning tree plus near-neighbour roads to mean degree ~2.5, "
            "weights proportional to length, diameter ~2*sqrt(n) (stands in for DIMACS USA-road in H-BF)",
            {**_VERTICES,
             "degree": Param(float, 2.5, "mean degree (arcs per vertex), 2 (a tree) to 4 (the full lattice)", 2.0, 4.0),
             "jitter": Param(float, 0.3, "how far a point may move off its lattice site, in lattice spacings",
                             0.0, 0.49),
             **_seed_param(), **_weight_params(1, 1001)},
            _build_road, _check_weights,
        ),
        _generator(
            "dag",
            "parBucketHeap DAG: arc i -> i+1 plus degree-1 random later targets; with chain_shortest every "
            "shortest path follows the chain, so D = V (parDijkstra Fig. 5: dag:n=30000,degree=4096)",
            {**_VERTICES,
             "degree": Param(int, 16, "out-degree (the chain arc included); the last vertices have fewer", minimum=1),
             "chain_shortest": Param(bool, True, "skip arcs cost the chain they bypass plus a uniform extra (D = V)"),
             **_seed_param(), **_weight_params()},
            _build_dag, _check_weights, _check_chain_shortest,
        ),
        _generator(
            "complete",
            "complete undirected graph, n(n-1) arcs; with chain_shortest every shortest path follows "
            "0-1-...-n-1, so D = V (parDijkstra Fig. 6)",
            {"n": Param(int, 1024, "number of vertices", minimum=1, maximum=65536),
             "chain_shortest": Param(bool, True, "edge {i,j}, j > i+1, costs the chain between plus a uniform extra"),
             **_seed_param(), **_weight_params()},
            _build_complete, _check_weights, _check_chain_shortest,
        ),
        _generator(
            "fixed-degree",
            "every vertex has exactly `degree` distinct random out-neighbours (no self-loops), weights 1..10 "
            "(da2cf: degree 7; predecessor=true draws in-neighbours as da2cf did)",
            {**_VERTICES,
             "degree": Param(int, 7, "out-degree of every vertex (in-degree with predecessor=true)", minimum=0),
             "predecessor": Param(bool, False, "draw each vertex's predecessors, store successors (in-degree fixed)"),
             **_seed_param(), **_weight_params(1, 11)},
            _build_fixed_degree, _check_weights, _check_fixed_degree,
        ),
        _generator(
            "mesh",
            "3-D finite-element mesh: an nx x ny x nz lattice of nodes, each coupled to its 6, 18 or 26 nearest "
            "lattice neighbours, `dofs` unknowns per node, every unknown joined to the node's other unknowns and to "
            "every unknown of its neighbours; ids node-major, x fastest (banded), undirected (H-BF msdoor: "
            "mesh:nx=161,ny=123,nz=7,dofs=3,self_loops=true)",
            {"nx": Param(int, 16, "nodes along x (ids run fastest along x)", minimum=1, maximum=INT32_MAX),
             "ny": Param(int, 16, "nodes along y", minimum=1, maximum=INT32_MAX),
             "nz": Param(int, 16, "nodes along z", minimum=1, maximum=INT32_MAX),
             "dofs": Param(int, 1, "unknowns per node (3: a structural mesh's displacements)", minimum=1, maximum=8),
             "neighbours": Param(int, 18, "lattice neighbours a node is coupled to: 6 (faces), 18 (faces and "
                                 "edges of the 3x3x3 block), 26 (all of it)", choices=MESH_NEIGHBOURS),
             "self_loops": Param(bool, False, "an arc from every unknown to itself (a matrix's diagonal)"),
             **_seed_param(), **_weight_params()},
            _build_mesh, _check_weights, _check_mesh,
        ),
        _generator(
            "small-world",
            "Watts-Strogatz small world as SNAP's GenSmallWorld: ring of k neighbours per side, links rewired with "
            "probability p, undirected (BFS-4K Gen-SmallWorld: small-world:n=2M,k=10,p=0.3)",
            {"n": Param(int, 16384, "number of vertices", minimum=3, maximum=INT32_MAX),
             "k": Param(int, 10, "links from each vertex to the next k on the ring", minimum=1, maximum=1024),
             "p": Param(float, 0.3, "probability that a link's far end is rewired", 0.0, 1.0),
             **_seed_param(), **_weight_params()},
            _build_small_world, _check_weights, _check_small_world,
        ),
        _generator(
            "forest-fire",
            "Leskovec forest fire as SNAP's GenForestFire: each new vertex burns from a random ambassador, forward "
            "and backward burning probabilities (BFS-4K Gen-ForestFire: forest-fire:n=1M,forward=0.35,backward=0.32)",
            {**_VERTICES,
             "forward": Param(float, 0.35, "forward burning probability", 0.0, 0.95),
             "backward": Param(float, 0.32, "backward burning probability", 0.0, 0.95),
             "max_arcs": Param(int, 2**27, "stop adding arcs past this many (bounds memory)", minimum=1, maximum=2**31 - 1),
             **_directed_param(True, "false: store each link as two arcs"), **_seed_param(), **_weight_params()},
            _build_forest_fire, _check_weights,
        ),
    ]
}


# ----------------------------------------------------------------------------------------------------------
# The spec language
# ----------------------------------------------------------------------------------------------------------

_INT_SUFFIXES = {"k": 10**3, "m": 10**6, "g": 10**9}
_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off"}
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*\Z")


def format_value(value: Any) -> str:
    """A value as the spec language writes it: true/false, plain integers, shortest round-tripping floats."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def parse_int(text: str) -> int | None:
    """3000000, 3e6, 3M, 1.5K, 2^21, 3_000_000 -> int; None when the text is not a whole number."""
    text = text.strip().replace("_", "")
    multiplier = 1
    if text[-1:].lower() in _INT_SUFFIXES:
        multiplier = _INT_SUFFIXES[text[-1].lower()]
        text = text[:-1]
    if "^" in text:
        base, _, exponent = text.partition("^")
        if not (re.fullmatch(r"[+-]?\d+", base.strip()) and re.fullmatch(r"\d+", exponent.strip())):
            return None
        if int(exponent) > 64:
            return None
        return int(base) ** int(exponent) * multiplier
    try:
        number = Decimal(text) * multiplier
    except InvalidOperation:
        return None
    if not number.is_finite() or number != number.to_integral_value():
        return None
    return int(number)


def convert_value(value: Any, param: Param, key: str, where: str) -> Any:
    """Convert a spec value (text, or a native value from YAML) to the parameter's type and check its range."""
    def refuse(expected: str) -> SpecError:
        return SpecError(f"{where}: parameter {key!r} must be {expected}, got {value!r}")

    if param.type is bool:
        if isinstance(value, bool):
            converted = value
        elif isinstance(value, int) and value in (0, 1):
            converted = bool(value)
        elif isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
            converted = value.strip().lower() in _TRUE
        else:
            raise refuse("a boolean (true/false/1/0)")
    elif param.type is int:
        if isinstance(value, bool):
            raise refuse("an integer (e.g. 3000000, 3e6 or 3M)")
        if isinstance(value, int):
            converted = value
        elif isinstance(value, float) and value.is_integer():
            converted = int(value)
        elif isinstance(value, str) and parse_int(value) is not None:
            converted = parse_int(value)
        else:
            raise refuse("an integer (e.g. 3000000, 3e6 or 3M)")
    elif param.type is float:
        if isinstance(value, bool):
            raise refuse("a number")
        if isinstance(value, (int, float)):
            converted = float(value)
        else:
            try:
                converted = float(str(value).strip())
            except ValueError:
                raise refuse("a number (e.g. 0.45)") from None
        if not math.isfinite(converted):
            raise refuse("a finite number")
    else:
        converted = str(value).strip()
    if param.choices is not None and converted not in param.choices:
        raise refuse(f"one of {', '.join(map(format_value, param.choices))}")
    if param.minimum is not None and converted < param.minimum:
        raise SpecError(f"{where}: parameter {key!r} must be at least {format_value(param.minimum)}, got {value!r}")
    if param.maximum is not None and converted > param.maximum:
        raise SpecError(f"{where}: parameter {key!r} must be at most {format_value(param.maximum)}, got {value!r}")
    return converted


def split_spec(spec: str, what: str, example: str) -> tuple[str, list[tuple[str, str]]]:
    """'kind:k=v,k=v' -> (kind, [(k, v), ...]) as text; a malformed spec is a SpecError."""
    if not isinstance(spec, str):
        raise SpecError(f"{what} spec must be a string like {example!r}, got {type(spec).__name__} {spec!r}")
    where = f"{what} spec {spec!r}"
    kind, _, rest = spec.strip().partition(":")
    kind = kind.strip()
    if not kind:
        raise SpecError(f"{where}: malformed, expected kind[:key=value,...] such as {example!r}")
    pairs = []
    if rest.strip():
        for item in rest.split(","):
            key, equals, value = item.partition("=")
            key, value = key.strip(), value.strip()
            if not equals or not _KEY.match(key) or not value:
                raise SpecError(
                    f"{where}: malformed pair {item.strip()!r}, expected key=value pairs separated by commas, "
                    f"such as {example!r}"
                )
            pairs.append((key, value))
    return kind, pairs


def resolve_params(
    kind: str, given: list[tuple[str, Any]], parameters: dict[str, Param], where: str
) -> dict[str, Any]:
    """Defaults filled in, given values converted; unknown or repeated keys are SpecErrors."""
    values = {key: param.default for key, param in parameters.items()}
    seen = set()
    for key, value in given:
        if key not in parameters:
            allowed = ", ".join(sorted(parameters)) or "none"
            raise SpecError(f"{where}: {kind} has no parameter {key!r} (allowed: {allowed})")
        if key in seen:
            raise SpecError(f"{where}: parameter {key!r} is given twice")
        seen.add(key)
        values[key] = convert_value(value, parameters[key], key, where)
    return values


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """'rmat:n=3M,m=20M,seed=7' -> ('rmat', {every parameter of rmat, defaults filled in, typed}).

    Unknown kind, unknown or repeated key, malformed pair, wrong type or out-of-range value => SpecError.
    """
    kind, pairs = split_spec(spec, "generator", "rmat:n=3000000,m=20000000,seed=7")
    where = f"generator spec {spec!r}"
    if kind not in GENERATORS:
        raise SpecError(f"{where}: unknown generator {kind!r} (known: {', '.join(sorted(GENERATORS))})")
    generator = GENERATORS[kind]
    params = resolve_params(kind, pairs, generator.parameters, where)
    problem = generator.check(params) if generator.check else None
    if problem:
        raise SpecError(f"{where}: {problem}")
    return kind, params


def canonical_from_params(kind: str, params: dict[str, Any]) -> str:
    return kind + ":" + ",".join(f"{key}={format_value(params[key])}" for key in sorted(params))


def canonical_spec(spec: str) -> str:
    """The spec with every parameter written out, sorted: one string per graph, whatever the spelling."""
    return canonical_from_params(*parse_spec(spec))


def spec_filename(spec: str) -> str:
    """A file-name stem for the graph (the canonical spec, with ':' which Windows refuses replaced by '_').

    Values are only numbers and booleans, so the rest (letters, digits, '.', ',', '=', '-', '_') is safe.
    """
    return canonical_spec(spec).replace(":", "_", 1)


def generate(spec: str) -> CSRGraph:
    """Build the graph a spec names; the same spec (in any spelling) gives byte-identical arrays."""
    kind, params = parse_spec(spec)
    row_offsets, column_ids, weights, directed = GENERATORS[kind].build(params)
    provenance = {
        "generator": kind,
        "params": params,
        "spec": canonical_from_params(kind, params),
        "generator_version": GENERATOR_VERSION,
        "sssp_bench_version": __version__,
    }
    return CSRGraph(row_offsets, column_ids, weights, directed, spec.strip(), {"provenance": provenance})


__all__ = [
    "GENERATORS",
    "GENERATOR_VERSION",
    "Generator",
    "Param",
    "canonical_spec",
    "csr_from_edges",
    "generate",
    "parse_spec",
    "random_below",
    "random_unit",
    "random_words",
    "spec_filename",
    "stream_key",
    "uniform_ints",
]
