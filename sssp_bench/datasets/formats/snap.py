"""SNAP edge lists (`.txt`), as this parser implements them.

    # comment                    anywhere (SNAP's own header: '# Nodes: 7115 Edges: 103689' is read, see below)
    <u> <v>                      one arc per line, ids separated by tabs or spaces
    <u> <v> <w>                  or, in every line alike, with an integer weight (int32)

* Ids are integers 0 <= id <= 2^31 - 1 that need not be contiguous: the ids that occur are sorted and
  renumbered 0..n-1 (`original_ids[i]` is the id of vertex i in the file). An id that occurs nowhere is no
  vertex (so a SNAP graph has no isolated vertices).
* The first data line fixes the number of columns (2, or 3 with a weight); a line with another count is an
  error. More than three columns is an error. With `binarize` the third column is skipped unread.
* Blank lines are skipped. A line may start with blanks and end with '\\r'.
* A SNAP file does not say whether it is directed: `ConvertOptions.directed` must be given. Directed: arcs as
  read. Undirected: every arc and its reverse, one arc per (u, v) pair (the lightest), like `symmetrize`.
* `# Nodes: N Edges: M` in the leading comments goes into the header; a disagreement with the file (N distinct
  ids, M data lines) is a warning in stats, not an error: SNAP's counts are informal.
* A count line: copies of SNAP files elsewhere often replace the comment header by a line of counts. Before the
  first edge line (comments aside), a line holding one integer is a count of vertices (often rounded) and goes
  into the header as n; a first data line of two integers `N M` is a count line when, and only when, the lines
  after it hold exactly N distinct ids in exactly M edge lines (it is then no edge, and goes into the header
  with `count_line` set), else it is an edge like any other. A two-number count line is recognised only before
  two-column edge lines (before weighted ones it is an edge line of the wrong width: an error at line 2).
"""

from __future__ import annotations

import re
import numpy as np
from numba import njit, prange

from ...errors import GraphFormatError
from ...graph.build import csr_from_arcs
from .parsing import (HEADER_BODY, HEADER_MORE, INT32_MAX, INT32_MIN, LINE_BLANK, LINE_COMMENT, LINE_NEED_SPACE,
                      LINE_STORED, NEWLINE, S_ARCS, S_BLOCK_START, S_FORMAT, S_MAX_ID, S_SELF_LOOPS, S_SORTED,
                      TOKEN_BAD, TOKEN_MISSING, TOKEN_OK, ArcStore, FormatParser, integer_tokens, line_loop_kernel,
                      next_record, parse_lines, read_integer, skip_blanks, skip_token, stored_arc)

S_COLUMNS = S_FORMAT      # 0 until the first data line, then 2 or 3

E_SYNTAX = 1
E_ID_RANGE = 2
E_COLUMNS = 3
E_TOO_MANY_COLUMNS = 4
E_WEIGHT = 5

_COUNTS = re.compile(rb"Nodes:\s*(\d+)\s+Edges:\s*(\d+)")


@njit(inline="always", cache=True)
def _edge_line(lines, buffer, at, end, first, cursor):
    """A blank line, a '#' comment, or an edge 'u v' or 'u v w', with as many columns as the first one. `lines`:
    whether a third column is skipped unread (binarize), the output block (weights empty when none are kept),
    the state array, whose S_COLUMNS the first data line sets."""
    skip_weights, block_start, sources, targets, weights, state = lines
    if first == NEWLINE:
        return at, LINE_BLANK, 0, cursor
    if first == 35:  # '#'
        return at, LINE_COMMENT, 0, cursor
    slot = cursor.arcs - block_start
    if slot >= len(targets):
        return at, LINE_NEED_SPACE, 0, cursor
    source, at, source_token = read_integer(buffer, at, end)
    target, at, target_token = read_integer(buffer, at, end)
    if source_token == TOKEN_BAD or target_token == TOKEN_BAD or target_token == TOKEN_MISSING:
        return at, LINE_STORED, E_SYNTAX, cursor
    if (source_token != TOKEN_OK or target_token != TOKEN_OK or source < 0 or target < 0
            or source > INT32_MAX or target > INT32_MAX):
        return at, LINE_STORED, E_ID_RANGE, cursor
    weight = np.int64(0)
    if skip_weights:
        at, weight_token = skip_token(buffer, at, end)
    else:
        weight, at, weight_token = read_integer(buffer, at, end)
    line_columns = 2 if weight_token == TOKEN_MISSING else 3
    if state[S_COLUMNS] == 0:
        state[S_COLUMNS] = line_columns
    if line_columns == 3 and not skip_weights and (
            weight_token != TOKEN_OK or weight < INT32_MIN or weight > INT32_MAX):
        return at, LINE_STORED, E_WEIGHT, cursor
    at = skip_blanks(buffer, at, end)
    if at < end and buffer[at] != NEWLINE:
        return at, LINE_STORED, E_TOO_MANY_COLUMNS, cursor
    if line_columns != state[S_COLUMNS]:
        return at, LINE_STORED, E_COLUMNS, cursor
    sources[slot] = source
    targets[slot] = target
    if len(weights) > 0:
        weights[slot] = weight
    return at, LINE_STORED, 0, next_record(stored_arc(cursor, source, target))


@line_loop_kernel
def _parse_edge_lines(buffer, position, state, irregular, lines):
    return parse_lines(buffer, position, state, irregular, _edge_line, lines)


@njit(parallel=True, cache=True)
def _mark_present(ids, present):
    for index in prange(len(ids)):
        present[ids[index]] = 1  # every writer writes the same value


@njit(parallel=True, cache=True)
def _renumber(ids, new_ids):
    for index in prange(len(ids)):
        ids[index] = new_ids[ids[index]]


def _dense(max_id: int, arcs: int) -> bool:
    """Whether ids up to `max_id` are dense enough among `arcs` arcs for a table indexed by id."""
    return max_id + 1 <= 8 * arcs + (1 << 20)


def distinct_ids(sources: np.ndarray, targets: np.ndarray, max_id: int) -> int:
    """How many ids occur among the arcs (without renumbering them)."""
    if _dense(max_id, len(targets)):
        present = np.zeros(max_id + 1, dtype=np.int32)
        _mark_present(sources, present)
        _mark_present(targets, present)
        return int(np.count_nonzero(present))
    return len(np.union1d(np.unique(sources), np.unique(targets)))


def compact_ids(sources: np.ndarray, targets: np.ndarray, max_id: int) -> np.ndarray:
    """Renumber the ids in place to 0..n-1 in sorted order; returns the original id of each new id (int64)."""
    if len(targets) == 0:
        return np.empty(0, dtype=np.int64)
    if _dense(max_id, len(targets)):
        new_ids = np.zeros(max_id + 1, dtype=np.int32)
        _mark_present(sources, new_ids)
        _mark_present(targets, new_ids)
        original_ids = np.flatnonzero(new_ids).astype(np.int64)
        new_ids[original_ids] = np.arange(len(original_ids), dtype=np.int32)
        _renumber(sources, new_ids)
        _renumber(targets, new_ids)
        return original_ids
    original_ids = np.unique(np.concatenate([np.unique(sources), np.unique(targets)])).astype(np.int64)
    step = 1 << 24
    for ids in (sources, targets):
        for start in range(0, len(ids), step):
            ids[start : start + step] = np.searchsorted(original_ids, ids[start : start + step])
    return original_ids


class SnapParser(FormatParser):
    format_name = "snap"
    suffix = ".txt"
    line_kernel = staticmethod(_parse_edge_lines)
    id_base = 0

    def __init__(self, label, options):
        super().__init__(label, options)
        if options.directed is None:
            raise GraphFormatError(f"{label}: a SNAP edge list does not say whether it is directed: "
                                   "expected directed=True or directed=False in the conversion options")
        self.natural_directed = bool(options.directed)
        self.count_candidate: tuple[int, int, int] | None = None  # (line, N, M) of a first data line 'N M'

    def header_line(self, text: bytes, line: int) -> str:
        stripped = text.strip()
        if not stripped:
            return HEADER_MORE
        if not stripped.startswith(b"#"):
            tokens = stripped.split()
            counts = integer_tokens(tokens)
            if counts is not None and len(counts) == 1 and "count_line" not in self.header:
                self.header.update({"n": counts[0], "line": line, "count_line": True})
                return HEADER_MORE
            if counts is not None and len(counts) == 2 and self.count_candidate is None:
                self.count_candidate = (line, counts[0], counts[1])  # an edge, unless finish() finds it counts
            # the first data line: a third column means weights (the kernel checks every line agrees)
            weighted = len(tokens) == 3 and not self.options.binarize
            self.arcs = ArcStore(with_sources=True, weight_dtype=np.int32 if weighted else None, expected=None)
            return HEADER_BODY
        self.header_comments += 1
        counts = _COUNTS.search(stripped)
        if counts and "n" not in self.header:
            self.header.update({"n": int(counts.group(1)), "m": int(counts.group(2)), "line": line})
        return HEADER_MORE

    def line_grammar(self):
        return (bool(self.options.binarize), self.state[S_BLOCK_START], self.arcs.sources,
                         self.arcs.targets, self.arcs.weights_or_empty(), self.state)

    def explain(self, code: int, text: str) -> str:
        shape = {0: "'u v' or 'u v w'", 2: "'u v'", 3: "'u v w'"}[int(self.state[S_COLUMNS])]
        if code == E_SYNTAX:
            return f"expected {shape} with integer ids, got {text!r}"
        if code == E_ID_RANGE:
            return f"expected {shape} with ids 0 <= id <= {INT32_MAX}, got {text!r}"
        if code == E_WEIGHT:
            return f"expected 'u v w' with an integer weight {INT32_MIN} <= w <= {INT32_MAX}, got {text!r}"
        if code == E_TOO_MANY_COLUMNS:
            return f"expected {shape}, got more columns: {text!r}"
        first = int(self.state[S_COLUMNS])
        return f"expected {shape} like the first data line ({first} columns), got {text!r}"

    def finish(self):
        if not self.header_done:
            if self.line == 0:
                raise self.fail(1, "empty file, expected 'u v' edge lines")
            raise self.fail(self.line, "the file ends without any 'u v' edge line (only comments and blank lines)")
        arcs = int(self.state[S_ARCS])
        columns = int(self.state[S_COLUMNS])
        arrays = self.arcs.take(self.state)
        self_loops = int(self.state[S_SELF_LOOPS])
        sorted_by_source = bool(self.state[S_SORTED])
        max_id = int(self.state[S_MAX_ID])
        if self._counts_the_rest(arrays, arcs, max_id):
            line, count_n, count_m = self.count_candidate
            arrays = [None if array is None else array[1:] for array in arrays]  # views: the arcs are not copied
            arcs -= 1
            self_loops -= int(count_n == count_m)
            sorted_by_source = bool(np.all(arrays[0][1:] >= arrays[0][:-1]))
            self.header.update({"n": count_n, "m": count_m, "line": line, "count_line": True})
        original_ids = compact_ids(arrays[0], arrays[1], max_id)
        n = len(original_ids)
        row_offsets, column_ids, weights, _ = csr_from_arcs(n, arrays, sorted_by_source)
        self.header.update({"columns": columns, "fields": "u v w" if columns == 3 else "u v",
                            "directed": self.natural_directed})
        warnings = []
        if "n" in self.header and (self.header["n"], self.header.get("m", arcs)) != (n, arcs):
            said = (f"the count line (line {self.header['line']}) says {self.header['n']}"
                    + (f" {self.header['m']}" if "m" in self.header else "")) if self.header.get("count_line") else (
                f"the comment on line {self.header['line']} says Nodes: {self.header['n']} Edges: {self.header['m']}")
            warnings.append(f"{said}, the file has {n} distinct ids and {arcs} edge lines")
        stats = {
            **self.line_stats(), "arcs_read": arcs, "self_loops": self_loops,
            "sorted_by_source": sorted_by_source, "warnings": warnings,
        }
        return row_offsets, column_ids, weights, original_ids, stats

    def _counts_the_rest(self, arrays: list, arcs: int, max_id: int) -> bool:
        """Whether the first data line 'N M' counts the lines after it: M edge lines holding N distinct ids."""
        if self.count_candidate is None or arcs - 1 != self.count_candidate[2]:
            return False
        return distinct_ids(arrays[0][1:], arrays[1][1:], max_id) == self.count_candidate[1]
