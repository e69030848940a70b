"""METIS graphs (`.graph`, the DIMACS 10th challenge format), as this parser implements them.

    % comment                    anywhere: skipped, not a vertex line
    <n> <m> [<fmt> [<ncon>]]     the header: n vertices (< 2^31), m undirected edges
    then one line per vertex, in order:  [size] [w_1 ... w_ncon] v_1 [e_1] v_2 [e_2] ...

* fmt has up to three 0/1 digits (0, 1, 10, 11, 100, 101, 110, 111; leading zeros allowed): hundreds = a vertex
  size first, tens = ncon vertex weights next (ncon defaults to 1), ones = an edge weight after each neighbour.
  Sizes and vertex weights must be non-negative integers and are skipped; edge weights are kept as int32.
* Neighbours are 1-based, 1 <= v <= n. A line may start with blanks; an empty line is a vertex without
  neighbours. After the n-th vertex line only blank and comment lines may follow; fewer than n vertex lines is
  an error naming the header.
* Each edge is listed at both ends: the neighbour entries must number exactly 2m (the first one beyond 2m is
  an error at its line, fewer an error naming the header), and every arc u -> v (weight w) must have its
  v -> u with the same weight, as many times (a hashed per-vertex balance finds a violation in one pass; the
  error names the vertex line). Self-loops and parallel edges are kept as listed.
* Undirected: both arcs are in the file and are stored as they are (nothing doubled); rows keep file order.
"""

from __future__ import annotations

import re
import numpy as np
from numba import njit

from .parsing import (HEADER_DONE, HEADER_MORE, INT32_MAX, INT32_MIN, LINE_BLANK, LINE_COMMENT, LINE_NEED_SPACE,
                      LINE_STORED, NEWLINE, S_ARCS, S_ARC_LIMIT, S_BLOCK_START, S_N, S_RECORDS, S_SELF_LOOPS,
                      TOKEN_BAD, TOKEN_MISSING, TOKEN_OK, ArcStore, Cursor, FormatParser, integer_tokens,
                      line_loop_kernel, parse_lines, read_integer, skip_blanks)

E_VERTEX_SIZE = 1
E_VERTEX_WEIGHT = 2
E_NEIGHBOUR_SYNTAX = 3
E_NEIGHBOUR_RANGE = 4
E_MISSING_WEIGHT = 5
E_WEIGHT_SYNTAX = 6
E_WEIGHT_RANGE = 7
E_TOO_MANY_ARCS = 8
E_EXTRA_LINE = 9

_FMT = re.compile(rb"[01]{1,3}")


@njit(inline="always", cache=True)
def _vertex_line(lines, buffer, at, end, first, cursor):
    """A '%' comment, or the next vertex's line (blank when it has no neighbours); after the last vertex only blank
    lines. A line that fails stores nothing (the cursor it was given goes back). `lines`: the header's numbers
    and fields, the output block (weights empty when none are kept), the row offsets, filled line by line."""
    n, limit, has_sizes, ncon, has_edge_weights, block_start, targets, weights, row_offsets = lines
    if first == 37:  # '%'
        return at, LINE_COMMENT, 0, cursor
    vertex = cursor.records
    if vertex >= n:
        if first != NEWLINE:
            return at, LINE_STORED, E_EXTRA_LINE, cursor
        return at, LINE_BLANK, 0, cursor
    if has_sizes:
        size, at, token = read_integer(buffer, at, end)
        if token != TOKEN_OK or size < 0:
            return at, LINE_STORED, E_VERTEX_SIZE, cursor
    for _ in range(ncon):
        vertex_weight, at, token = read_integer(buffer, at, end)
        if token != TOKEN_OK or vertex_weight < 0:
            return at, LINE_STORED, E_VERTEX_WEIGHT, cursor
    arcs = cursor.arcs
    self_loops = cursor.self_loops
    while True:
        at = skip_blanks(buffer, at, end)
        if at >= end or buffer[at] == NEWLINE:
            break
        neighbour, at, token = read_integer(buffer, at, end)
        if token == TOKEN_BAD:
            return at, LINE_STORED, E_NEIGHBOUR_SYNTAX, cursor
        if token != TOKEN_OK or neighbour < 1 or neighbour > n:
            return at, LINE_STORED, E_NEIGHBOUR_RANGE, cursor
        weight = np.int64(0)
        if has_edge_weights:
            weight, at, token = read_integer(buffer, at, end)
            if token == TOKEN_MISSING:
                return at, LINE_STORED, E_MISSING_WEIGHT, cursor
            if token == TOKEN_BAD:
                return at, LINE_STORED, E_WEIGHT_SYNTAX, cursor
            if token != TOKEN_OK or weight < INT32_MIN or weight > INT32_MAX:
                return at, LINE_STORED, E_WEIGHT_RANGE, cursor
        if arcs >= limit:
            return at, LINE_STORED, E_TOO_MANY_ARCS, cursor
        slot = arcs - block_start
        if slot >= len(targets):
            return at, LINE_NEED_SPACE, 0, cursor
        targets[slot] = neighbour - 1
        if len(weights) > 0:
            weights[slot] = weight
        if neighbour - 1 == vertex:
            self_loops += 1
        arcs += 1
    row_offsets[vertex + 1] = arcs
    return at, LINE_STORED, 0, Cursor(arcs, vertex + 1, self_loops, cursor.last_source, cursor.sorted, cursor.max_id)


@line_loop_kernel
def _parse_vertex_lines(buffer, position, state, irregular, lines):
    return parse_lines(buffer, position, state, irregular, _vertex_line, lines)


@njit(inline="always", cache=True)
def _edge_hash(u, v, weight):
    """A 64-bit hash of the unordered edge {u, v} with its weight (splitmix64's finaliser)."""
    low = min(u, v)
    high = max(u, v)
    value = (np.uint64(low) << np.uint64(32)) | np.uint64(high)
    value ^= (np.uint64(weight & 0xFFFFFFFF) + np.uint64(1)) * np.uint64(0x9E3779B97F4A7C15)
    value = (value ^ (value >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    value = (value ^ (value >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return value ^ (value >> np.uint64(31))


@njit(cache=True)
def _first_unbalanced_vertex(row_offsets, column_ids, weights):
    """Each arc u -> v adds its edge's hash to u and takes it from v; a symmetric graph balances every vertex.

    Returns the first vertex left unbalanced, or -1 (a miss needs a 64-bit hash collision).
    """
    n = len(row_offsets) - 1
    weighted = len(weights) > 0
    balance = np.zeros(n, dtype=np.uint64)
    for u in range(n):
        for arc in range(row_offsets[u], row_offsets[u + 1]):
            v = column_ids[arc]
            weight = np.int64(weights[arc]) if weighted else np.int64(0)
            digest = _edge_hash(np.int64(u), np.int64(v), weight)
            balance[u] += digest
            balance[v] -= digest
    for u in range(n):
        if balance[u] != 0:
            return u
    return -1


@njit(cache=True)
def _count_in_row(row_offsets, column_ids, weights, row, target, weight):
    weighted = len(weights) > 0
    count = 0
    for arc in range(row_offsets[row], row_offsets[row + 1]):
        if column_ids[arc] == target and (not weighted or weights[arc] == weight):
            count += 1
    return count


@njit(cache=True)
def _unmatched_arc(row_offsets, column_ids, weights, vertex):
    """(u, v, weight, times u lists v, times v lists u) for an arc without its reverse that touches `vertex`:
    one of vertex's own arcs, else an arc into it."""
    weighted = len(weights) > 0
    n = len(row_offsets) - 1
    for arc in range(row_offsets[vertex], row_offsets[vertex + 1]):
        v = np.int64(column_ids[arc])
        weight = np.int64(weights[arc]) if weighted else np.int64(0)
        forward = _count_in_row(row_offsets, column_ids, weights, vertex, v, weight)
        backward = _count_in_row(row_offsets, column_ids, weights, v, vertex, weight)
        if forward != backward:
            return np.int64(vertex), v, weight, forward, backward
    for row in range(n):
        for arc in range(row_offsets[row], row_offsets[row + 1]):
            if column_ids[arc] != vertex:
                continue
            weight = np.int64(weights[arc]) if weighted else np.int64(0)
            forward = _count_in_row(row_offsets, column_ids, weights, row, vertex, weight)
            backward = _count_in_row(row_offsets, column_ids, weights, vertex, row, weight)
            if forward != backward:
                return np.int64(row), np.int64(vertex), weight, forward, backward
    return np.int64(-1), np.int64(-1), np.int64(0), 0, 0


class MetisParser(FormatParser):
    format_name = "metis"
    suffix = ".graph"
    line_kernel = staticmethod(_parse_vertex_lines)
    natural_directed = False
    arcs_symmetric = True  # each edge is listed at both ends (checked in finish)

    def __init__(self, label, options):
        super().__init__(label, options)
        self.row_offsets = None

    def header_line(self, text: bytes, line: int) -> str:
        stripped = text.strip()
        if not stripped:
            return HEADER_MORE
        if stripped.startswith(b"%"):
            self.header_comments += 1
            return HEADER_MORE
        shown = text.decode("utf-8", errors="replace")
        tokens = stripped.split()
        numbers = integer_tokens(tokens[:2]) if len(tokens) >= 2 else None
        fmt_ok = len(tokens) < 3 or _FMT.fullmatch(tokens[2]) is not None
        ncon = integer_tokens(tokens[3:4]) if len(tokens) >= 4 else [None]
        if (numbers is None or not 2 <= len(tokens) <= 4 or not fmt_ok or ncon is None
                or not 0 <= numbers[0] <= INT32_MAX or numbers[1] < 0):
            raise self.fail(line, "expected the header 'n m [fmt [ncon]]' with integers 0 <= n <= "
                                  f"{INT32_MAX}, m >= 0 and fmt one of 0, 1, 10, 11, 100, 101, 110, 111, got {shown!r}")
        n, m = numbers
        fmt = tokens[2].decode().rjust(3, "0") if len(tokens) >= 3 else "000"
        has_sizes, has_vertex_weights, has_edge_weights = (digit == "1" for digit in fmt)
        if ncon[0] is not None and not has_vertex_weights:
            raise self.fail(line, f"ncon={ncon[0]} vertex weights, but fmt {tokens[2].decode()} has none "
                                  f"(expected fmt 10, 11, 110 or 111 with ncon), got {shown!r}")
        if ncon[0] is not None and ncon[0] < 1:
            raise self.fail(line, f"expected ncon >= 1 vertex weights, got {shown!r}")
        ncon = (ncon[0] or 1) if has_vertex_weights else 0
        self.header.update({
            "n": n, "m": m, "fmt": fmt, "ncon": ncon, "line": line,
            "fields": {"vertex_sizes": has_sizes, "vertex_weights": ncon, "edge_weights": has_edge_weights},
        })
        self.state[S_N] = n
        self.announce_arcs(2 * m, line, "arcs (twice its edges)")
        weight_dtype = np.int32 if has_edge_weights and not self.options.binarize else None
        # n vertex lines ('\n' at least) and 2m neighbour entries ('1 ', or '1 0 ' with an edge weight)
        entry_bytes = 4 if has_edge_weights else 2
        self.check_declared(line, f"n={n:,} vertex lines and {2 * m:,} neighbour entries (m={m:,} edges)",
                            max(n, 2 * m * entry_bytes) - 1, n, 2 * m, 0 if weight_dtype is None else 4,
                            with_sources=False)
        self.row_offsets = np.zeros(n + 1, dtype=np.int64)
        self.arcs = ArcStore(with_sources=False, weight_dtype=weight_dtype, expected=2 * m)
        return HEADER_DONE

    def line_grammar(self):
        fields = self.header["fields"]
        return (self.state[S_N], self.state[S_ARC_LIMIT], fields["vertex_sizes"], self.header["ncon"],
                           fields["edge_weights"], self.state[S_BLOCK_START], self.arcs.targets,
                           self.arcs.weights_or_empty(), self.row_offsets)

    def explain(self, code: int, text: str) -> str:
        vertex = int(self.state[S_RECORDS]) + 1
        fmt, n, m = self.header["fmt"], self.header["n"], self.header["m"]
        pair = "'neighbour weight' pairs" if self.header["fields"]["edge_weights"] else "neighbour ids"
        if code == E_VERTEX_SIZE:
            return f"vertex {vertex}: expected a vertex size first (fmt {fmt}), a non-negative integer, got {text!r}"
        if code == E_VERTEX_WEIGHT:
            return (f"vertex {vertex}: expected {self.header['ncon']} vertex weight(s) first (fmt {fmt}), "
                    f"non-negative integers, got {text!r}")
        if code == E_NEIGHBOUR_SYNTAX:
            return f"vertex {vertex}: expected {pair}, integers, got {text!r}"
        if code == E_NEIGHBOUR_RANGE:
            return f"vertex {vertex}: expected neighbours 1 <= v <= {n}, got {text!r}"
        if code == E_MISSING_WEIGHT:
            return f"vertex {vertex}: expected {pair} (fmt {fmt}), the last neighbour has no weight, got {text!r}"
        if code in (E_WEIGHT_SYNTAX, E_WEIGHT_RANGE):
            return (f"vertex {vertex}: expected {pair} with integer weights {INT32_MIN} <= w <= {INT32_MAX}, "
                    f"got {text!r}")
        if code == E_TOO_MANY_ARCS:
            return (f"vertex {vertex}: more than 2m = {2 * m} neighbour entries (the header, line "
                    f"{self.header['line']}, says m={m} edges, each listed at both ends), got {text!r}")
        return (f"a line after the last vertex line (the header, line {self.header['line']}, says n={n}), "
                f"expected only blank or '%' comment lines, got {text!r}")

    def finish(self):
        if not self.header_done:
            if self.line == 0:
                raise self.fail(1, "empty file, expected the METIS header 'n m [fmt [ncon]]'")
            raise self.fail(self.line, "the file ends without the METIS header 'n m [fmt [ncon]]' "
                                       "(only comments and blank lines)")
        header_line, n, m = self.header["line"], self.header["n"], self.header["m"]
        vertices, arcs = int(self.state[S_RECORDS]), int(self.state[S_ARCS])
        if vertices < n:
            raise self.fail(header_line, f"the header says n={n} vertices, the file ends after {vertices} vertex lines")
        if arcs != 2 * m:
            raise self.fail(header_line, f"the header says m={m} edges, i.e. {2 * m} neighbour entries "
                                         f"(each edge at both ends), the vertex lines list {arcs}")
        _, column_ids, weights = self.arcs.take(self.state)
        # binarized: weights were not kept, so only the topology is checked
        self._check_symmetric(column_ids, np.empty(0, dtype=np.int32) if weights is None else weights)
        stats = {
            **self.line_stats(), "arcs_read": arcs, "vertex_lines": vertices,
            "self_loops": int(self.state[S_SELF_LOOPS]), "sorted_by_source": True,
        }
        return self.row_offsets, column_ids, weights, None, stats

    def _check_symmetric(self, column_ids, weights):
        vertex = _first_unbalanced_vertex(self.row_offsets, column_ids, weights)
        if vertex < 0:
            return
        u, v, weight, forward, backward = _unmatched_arc(self.row_offsets, column_ids, weights, vertex)
        if u < 0:  # the hashes disagree but no arc is unmatched: cannot happen; say so plainly
            u, v, forward, backward = vertex, vertex, 0, 0
        with_weight = f" (weight {weight})" if len(weights) else ""
        raise self.fail(
            self.line_of_record(int(u)),
            f"vertex {u + 1} lists neighbour {v + 1}{with_weight} {forward} time(s), but vertex {v + 1} "
            f"(line {self.line_of_record(int(v))}) lists {u + 1}{with_weight} {backward} time(s): expected each "
            "edge at both ends, with the same weight",
        )
