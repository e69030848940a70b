"""What the four text parsers share: chunked line reading, numba token readers, the arc store, the line loop.

A parser runs in two phases. The header phase is Python, one line at a time: it reads the few lines before the
data (comments, the `p sp` line, the METIS header, the Matrix Market banner and size line) and produces clear
messages cheaply. The body phase is one numba line loop (`parse_lines`) over whole chunks of lines, shared by
every format: a format gives it only its line grammar, a numba function that reads one line into int32 arcs.
The loop stops at the first bad line and reports it through the shared state array, and Python then turns the
line into a message. Nothing loops in Python per data line.

The stream is read in chunks of `chunk_bytes` cut after their last newline (the rest is carried into the next
chunk; a line longer than a chunk makes the buffer grow), so a file of any size parses in bounded memory
beyond the arcs themselves. Line numbers are counted across chunks, so they do not depend on the chunk size.
"""

from __future__ import annotations

import re
from collections import namedtuple
from typing import BinaryIO

import numpy as np
from numba import njit

from ...errors import GraphFormatError
from ...graph.memory import check_fits, graph_bytes

DEFAULT_CHUNK_BYTES = 16 << 20
UTF8_BOM = b"\xef\xbb\xbf"
INT32_MIN = -(2**31)
INT32_MAX = 2**31 - 1

# Bytes
NEWLINE = 10
SPACE = 32
TAB = 9
CARRIAGE_RETURN = 13

# What the line loop returns, with the byte position where it stopped
STATUS_DONE = 0        # every line of the chunk consumed
STATUS_NEED_SPACE = 1  # the output block is full; stopped at the start of a line, nothing of it stored
STATUS_ERROR = 2       # a bad line: state[S_ERROR] says what, state[S_ERROR_AT] where it starts
STATUS_FALLBACK = 3    # (mtx, real values) a value numba cannot round exactly: Python converts it, then resumes

# What a line grammar says of one line (with an error code, 0 when the line is good)
LINE_STORED = 0      # a record: its arcs are stored
LINE_BLANK = 1
LINE_COMMENT = 2
LINE_NEED_SPACE = 3  # a record that does not fit the output block: nothing of it stored
LINE_FALLBACK = 4    # a record stored but for one value Python must convert (STATUS_FALLBACK)

# What a token reader returns besides the value
TOKEN_OK = 0
TOKEN_MISSING = 1    # the line ended where a token was expected
TOKEN_BAD = 2        # not a well-formed number
TOKEN_TOO_LARGE = 3  # more than 18 significant digits: beyond any range we accept

# Slots of the int64 state array a parser carries across chunks (format modules add theirs from S_FORMAT)
S_LINE = 0           # lines consumed so far (the header phase's included)
S_ARCS = 1           # arcs stored so far, over all blocks
S_BLOCK_START = 2    # arc number of the first arc of the current output block
S_ERROR = 3          # error code of the bad line (format-specific), 0 when none
S_ERROR_AT = 4       # byte offset in the chunk where the bad line starts
S_LAST_SOURCE = 5    # source of the last arc stored
S_SORTED = 6         # 1 while sources never decreased (then the CSR needs no sort)
S_SELF_LOOPS = 7     # arcs u -> u read
S_COMMENTS = 8       # comment lines in the body
S_BLANKS = 9         # blank lines in the body
S_ARC_LIMIT = 10     # arcs the header announces: one more is an error
S_N = 11             # vertices
S_RECORDS = 12       # body records read: arcs (dimacs9), data lines (snap), vertex lines (metis), entries (mtx)
S_IRREGULAR = 13     # lines between records (comments, blanks) seen, for mapping a record number to its line
S_MAX_ID = 14        # the largest vertex id stored (snap numbers its vertices by it)
S_FORMAT = 16
STATE_SIZE = 32

# Up to this many irregular lines (comments, blanks between records) are remembered as (records before it, line
# number), to name the line of an error found after parsing (METIS symmetry, mtx repeated entries). Real files
# have a handful; past this many those line numbers can come out too small. Errors found while parsing are exact.
IRREGULAR_CAPACITY = 4096

FIRST_BLOCK_LIMIT = 1 << 28   # arcs per block when a header announces more (a lying header allocates no more)
GROWN_BLOCK_LIMIT = 1 << 26
UNKNOWN_FIRST_BLOCK = 1 << 20


# ----------------------------------------------------------------------------------------------------------
# Byte-level token readers (inlined into every kernel)
# ----------------------------------------------------------------------------------------------------------

@njit(inline="always", cache=True)
def is_blank(byte):
    # '\r' counts as a blank so that files with Windows line ends parse unchanged
    return byte == SPACE or byte == TAB or byte == CARRIAGE_RETURN


@njit(inline="always", cache=True)
def is_separator(byte):
    return byte == SPACE or byte == TAB or byte == CARRIAGE_RETURN or byte == NEWLINE


@njit(inline="always", cache=True)
def skip_blanks(buffer, position, end):
    while position < end and is_blank(buffer[position]):
        position += 1
    return position


@njit(inline="always", cache=True)
def line_end(buffer, position, end):
    """Position of the newline that ends the line containing `position` (or `end`)."""
    while position < end and buffer[position] != NEWLINE:
        position += 1
    return position


@njit(inline="always", cache=True)
def read_integer(buffer, position, end):
    """A signed decimal integer after optional blanks: (value, position after it, TOKEN_*).

    The token must end at a blank or the end of the line ("12x" is TOKEN_BAD). More than 18 significant digits
    is TOKEN_TOO_LARGE, so the value never wraps an int64.
    """
    position = skip_blanks(buffer, position, end)
    if position >= end or buffer[position] == NEWLINE:
        return np.int64(0), position, TOKEN_MISSING
    negative = False
    byte = buffer[position]
    if byte == 45 or byte == 43:  # '-' '+'
        negative = byte == 45
        position += 1
    start = position
    value = np.int64(0)
    significant = 0
    while position < end:
        digit = np.int64(buffer[position]) - 48
        if digit < 0 or digit > 9:
            break
        if value != 0 or digit != 0:
            significant += 1
        if significant <= 18:
            value = value * 10 + digit
        position += 1
    if position == start or (position < end and not is_separator(buffer[position])):
        return np.int64(0), position, TOKEN_BAD
    if significant > 18:
        return np.int64(0), position, TOKEN_TOO_LARGE
    return (-value if negative else value), position, TOKEN_OK


@njit(inline="always", cache=True)
def skip_token(buffer, position, end):
    """Skip one blank-separated token: (position after it, TOKEN_OK or TOKEN_MISSING)."""
    position = skip_blanks(buffer, position, end)
    if position >= end or buffer[position] == NEWLINE:
        return position, TOKEN_MISSING
    while position < end and not is_separator(buffer[position]):
        position += 1
    return position, TOKEN_OK


# ----------------------------------------------------------------------------------------------------------
# Chunked reading
# ----------------------------------------------------------------------------------------------------------

def read_chunks(stream: BinaryIO, chunk_bytes: int):
    """Yield (buffer, size): `buffer[:size]` holds whole lines (the last chunk may end without a newline).

    The buffer is reused: a consumer must be done with one chunk before asking for the next.
    """
    buffer = bytearray(max(1, chunk_bytes))
    carry = 0
    readinto = getattr(stream, "readinto", None)
    at_end = False
    while not at_end:
        filled = carry
        while filled < len(buffer):
            if readinto is not None:
                with memoryview(buffer) as view:
                    got = readinto(view[filled:])
            else:
                data = stream.read(len(buffer) - filled)
                got = len(data)
                buffer[filled : filled + got] = data
            if not got:
                at_end = True
                break
            filled += got
        if at_end:
            cut = filled
        else:
            newline = buffer.rfind(b"\n", 0, filled)
            if newline < 0:  # one line longer than the buffer: grow it and read on
                grown = bytearray(2 * len(buffer))
                grown[:filled] = buffer[:filled]
                buffer, carry = grown, filled
                continue
            cut = newline + 1
        if cut:
            yield buffer, cut
        carry = filled - cut
        buffer[:carry] = buffer[cut:filled]


def line_text(buffer, start: int, limit: int = 100) -> str:
    """The line starting at `start` as text for a message: without its line end, shortened when long."""
    if isinstance(buffer, np.ndarray):
        raw = buffer[start : start + limit + 200].tobytes()
    else:
        raw = bytes(buffer[start : start + limit + 200])
    raw = raw.split(b"\n", 1)[0].rstrip(b"\r")
    text = raw.decode("utf-8", errors="replace")
    return text if len(text) <= limit else text[:limit] + "..."


_INTEGER_TEXT = re.compile(rb"[+-]?[0-9]+")


def integer_tokens(tokens: list[bytes]) -> list[int] | None:
    """The tokens as integers, or None when one is not a decimal integer."""
    if all(_INTEGER_TEXT.fullmatch(token) for token in tokens):
        return [int(token) for token in tokens]
    return None


# ----------------------------------------------------------------------------------------------------------
# The line loop
# ----------------------------------------------------------------------------------------------------------

# What a line grammar carries from one line to the next (numba keeps it in registers); the loop loads it from the
# state array when a chunk starts and stores it back when it stops.
Cursor = namedtuple("Cursor", "arcs records self_loops last_source sorted max_id")


@njit(inline="always", cache=True)
def stored_arc(cursor, source, target):
    """The cursor after storing arc source -> target (0-based ids): one more arc, maybe a self-loop, sources no
    longer sorted when this one is below the last, the largest id."""
    return Cursor(cursor.arcs + 1, cursor.records, cursor.self_loops + (source == target), source,
                  cursor.sorted if source >= cursor.last_source else 0, max(cursor.max_id, source, target))


@njit(inline="always", cache=True)
def next_record(cursor):
    return Cursor(cursor.arcs, cursor.records + 1, cursor.self_loops, cursor.last_source, cursor.sorted,
                  cursor.max_id)


@njit(inline="always", cache=True)
def record_irregular_line(irregular, state, records, line):
    """Remember that line `line` (1-based) is not a record and comes after `records` records."""
    count = state[S_IRREGULAR]
    if count < len(irregular):
        irregular[count, 0] = records
        irregular[count, 1] = line
    state[S_IRREGULAR] = count + 1


# How a format's kernel, the line loop with its grammar inlined, is compiled. It allocates nothing, so it runs
# without numba's reference counting, which would otherwise count references to the grammar's arrays on every
# line: atomic operations that cost more than reading the line.
line_loop_kernel = njit(nogil=True, cache=True, _nrt=False)


@njit(inline="always", cache=True)
def parse_lines(buffer, position, state, irregular, line_grammar, grammar):
    """Parse the whole lines of `buffer` from `position`: (STATUS_*, the position to resume from).

    `line_grammar(grammar, buffer, at, end, first, cursor) -> (at, LINE_*, error code, cursor)` reads one line,
    whose first non-blank byte is at `at` (`first`, NEWLINE for a blank line); `grammar` holds what it needs (the
    header's numbers, the output block). It returns the cursor it was given when it stores nothing. The loop
    counts lines, blank and comment lines (remembered as irregular), stops at a bad line or a full block and
    rewinds to that line's start. A format's kernel is this loop with its grammar (`line_loop_kernel`).
    """
    end = len(buffer)
    line = state[S_LINE]
    comments = state[S_COMMENTS]
    blanks = state[S_BLANKS]
    cursor = Cursor(state[S_ARCS], state[S_RECORDS], state[S_SELF_LOOPS], state[S_LAST_SOURCE], state[S_SORTED],
                    state[S_MAX_ID])
    status = STATUS_DONE
    line_start = position
    while position < end:
        line_start = position
        at = skip_blanks(buffer, position, end)
        first = buffer[at] if at < end else NEWLINE
        at, kind, error, cursor = line_grammar(grammar, buffer, at, end, first, cursor)
        if error:
            status = STATUS_ERROR
            state[S_ERROR] = error
            state[S_ERROR_AT] = line_start
            break
        if kind == LINE_NEED_SPACE:
            status = STATUS_NEED_SPACE
            break
        if kind == LINE_BLANK or kind == LINE_COMMENT:
            if kind == LINE_BLANK:
                blanks += 1
            else:
                comments += 1
            record_irregular_line(irregular, state, cursor.records, line + 1)
        position = line_end(buffer, at, end) + 1
        line += 1
        if kind == LINE_FALLBACK:
            status = STATUS_FALLBACK
            break
    if status == STATUS_ERROR or status == STATUS_NEED_SPACE:
        position = line_start  # the line is parsed again (into a new block), or reported
    state[S_LINE] = line
    state[S_COMMENTS] = comments
    state[S_BLANKS] = blanks
    state[S_ARCS] = cursor.arcs
    state[S_RECORDS] = cursor.records
    state[S_SELF_LOOPS] = cursor.self_loops
    state[S_LAST_SOURCE] = cursor.last_source
    state[S_SORTED] = cursor.sorted
    state[S_MAX_ID] = cursor.max_id
    return status, min(position, end)


# ----------------------------------------------------------------------------------------------------------
# The arc store
# ----------------------------------------------------------------------------------------------------------

_NO_INT32 = np.empty(0, dtype=np.int32)


MAX_ANNOUNCED_ARCS = 2**62  # arcs a header may announce: int64 row offsets, with room to double (METIS edges)


class ArcStore:
    """Arcs accumulated as int32 arrays in blocks; joined into one array per field once, at the end.

    When the header says how many arcs come, the first block has exactly that room, so an honest file needs no
    join. Blocks are `np.empty`: pages never written (room a lying header asked for) cost no memory.
    """

    def __init__(self, with_sources: bool, weight_dtype: np.dtype | None, expected: int | None):
        self.with_sources = with_sources
        self.weight_dtype = None if weight_dtype is None else np.dtype(weight_dtype)
        self.full_blocks: list[tuple[np.ndarray, np.ndarray, np.ndarray | None]] = []
        first = UNKNOWN_FIRST_BLOCK if expected is None else min(max(int(expected), 0), FIRST_BLOCK_LIMIT)
        self._open(first)

    def _open(self, capacity: int) -> None:
        self.capacity = capacity
        self.sources = np.empty(capacity, dtype=np.int32) if self.with_sources else _NO_INT32
        self.targets = np.empty(capacity, dtype=np.int32)
        self.weights = None if self.weight_dtype is None else np.empty(capacity, dtype=self.weight_dtype)

    def weights_or_empty(self, dtype=np.int32) -> np.ndarray:
        """The current weight block, or an empty array of `dtype` (kernels then store no weights)."""
        if self.weights is not None and self.weights.dtype == dtype:
            return self.weights
        return np.empty(0, dtype=dtype)

    def grow(self, state: np.ndarray) -> None:
        """The current block cannot take the next line: keep what it holds and open a bigger one."""
        filled = int(state[S_ARCS] - state[S_BLOCK_START])
        if filled == 0:  # one line needs more room than a whole block (a long METIS line): a bigger block
            self._open(max(2 * self.capacity, 2))
            return
        self.full_blocks.append(self._trimmed(filled))
        self._open(min(max(2 * self.capacity, 2), GROWN_BLOCK_LIMIT))
        state[S_BLOCK_START] = state[S_ARCS]

    def _trimmed(self, filled: int):
        weights = None if self.weights is None else self.weights[:filled]
        return self.sources[:filled], self.targets[:filled], weights

    def take(self, state: np.ndarray) -> list:
        """All arcs as a list [sources, targets, weights or None] (sources empty when not kept); the store is
        emptied, so the list holds the only references (see graph.build.csr_from_arcs).

        Joining copies block by block and lets each block go at once, so it needs one extra block, not 2x.
        """
        blocks = [list(block) for block in self.full_blocks]
        blocks.append(list(self._trimmed(int(state[S_ARCS] - state[S_BLOCK_START]))))
        self.full_blocks = []
        self.sources = self.targets = self.weights = None
        if len(blocks) == 1:
            return blocks[0]
        joined = []
        for field in range(3):
            if blocks[0][field] is None:
                joined.append(None)
                continue
            out = np.empty(sum(len(block[field]) for block in blocks), dtype=blocks[0][field].dtype)
            at = 0
            for block in blocks:
                out[at : at + len(block[field])] = block[field]
                at += len(block[field])
                block[field] = None
            joined.append(out)
        return joined


# ----------------------------------------------------------------------------------------------------------
# The driver
# ----------------------------------------------------------------------------------------------------------

HEADER_MORE = "more"  # the line belonged to the header, which goes on
HEADER_DONE = "done"  # the line ended the header
HEADER_BODY = "body"  # the header ended before this line, which is the first body line


class FormatParser:
    """A header phase in Python (`header_line`), then the line loop over chunks (`line_kernel`, `parse_lines`
    with the format's line grammar inlined, reading the tuple `line_grammar()` makes), then `finish`."""

    format_name = ""
    suffix = ""              # the file name's suffix (before any .gz, .bz2, .xz)
    natural_directed = True  # whether the graph is directed when the conversion does not say
    arcs_symmetric = False   # whether the file holds both arcs of every edge (an undirected graph as it is)
    id_base = 1              # the file's id of vertex 0
    line_kernel = None       # staticmethod(the format's line_loop_kernel)

    def __init__(self, label: str, options) -> None:
        self.label = label
        self.options = options
        self.data_bytes: int | None = None  # the file's size when known (an uncompressed file; convert_stream)
        self.state = np.zeros(STATE_SIZE, dtype=np.int64)
        self.state[S_SORTED] = 1
        self.state[S_LAST_SOURCE] = -1
        self.irregular = np.zeros((IRREGULAR_CAPACITY, 2), dtype=np.int64)
        self.header_done = False
        self.line = 0                 # lines consumed (header phase; the kernel keeps it in state afterwards)
        self.first_body_line = 1
        self.header: dict = {"format": self.format_name}
        self.arcs: ArcStore | None = None
        self.header_comments = 0      # comment lines of the header phase (the kernel counts the body's)
        self.header_blanks = 0
        self.lines = None             # what the line grammar reads, made again when the output block changes

    @classmethod
    def recognizes(cls, head: bytes) -> bool:
        """Whether a file whose first bytes are `head` looks like this format; what tells two formats that share a
        suffix apart (sniff_format). By default every file does."""
        return True

    # --- to be provided by each format
    def header_line(self, text: bytes, line: int) -> str:
        raise NotImplementedError

    def line_grammar(self) -> tuple:
        """What the format's line grammar reads: the header's numbers, the current output block, ..."""
        raise NotImplementedError

    def explain(self, code: int, text: str) -> str:
        raise NotImplementedError

    def at_fallback(self, chunk: np.ndarray) -> None:
        raise NotImplementedError

    def finish(self) -> tuple:
        """(row_offsets, column_ids, weights, original_ids or None, stats), once the whole file is fed."""
        raise NotImplementedError

    # --- shared
    def fail(self, line: int, message: str) -> GraphFormatError:
        return GraphFormatError(f"{self.label}:{line}: {message}")

    def announce_arcs(self, arcs: int, line: int, what: str) -> None:
        """The arcs the header announces (one more in the body is an error); a count no CSR could hold is this
        line's error, not an overflow of the int64 state deep inside."""
        if arcs > MAX_ANNOUNCED_ARCS:
            raise self.fail(line, f"the header announces {arcs} {what}; at most {MAX_ANNOUNCED_ARCS} fit a CSR file")
        self.state[S_ARC_LIMIT] = arcs

    def check_declared(self, line: int, what: str, least_bytes: int, n: int, arcs: int, weight_bytes: int,
                       with_sources: bool = True) -> None:
        """What the header on `line` declares, checked before anything of its size is allocated: `what` (e.g.
        "m=5 arcs") needs at least `least_bytes` of file, which a file of known size must have, and a graph of `n`
        vertices and `arcs` arcs must fit in memory (graph.memory; `weight_bytes` and `with_sources` as its
        graph_bytes takes them)."""
        if self.data_bytes is not None and least_bytes > self.data_bytes:
            raise self.fail(line, f"the header declares {what}, which take at least {least_bytes:,} bytes, but "
                                  f"the file has {self.data_bytes:,}")
        check_fits(f"{self.label}:{line}: the header declares n={n:,} vertices and {arcs:,} arcs",
                   graph_bytes(n, arcs, weight_bytes, with_sources))

    def feed(self, buffer: bytearray, size: int) -> None:
        position = 0
        if not self.header_done:
            position = self._header_phase(buffer, size)
            if not self.header_done:
                return
            self.state[S_LINE] = self.line
            self.first_body_line = self.line + 1
        if position < size:
            self._body_phase(np.frombuffer(buffer, dtype=np.uint8, count=size), position)

    def _header_phase(self, buffer: bytearray, size: int) -> int:
        position = 0
        while position < size:
            newline = buffer.find(b"\n", position, size)
            end = size if newline < 0 else newline
            text = bytes(buffer[position:end]).rstrip(b"\r")
            if self.line == 0 and text.startswith(UTF8_BOM):
                text = text[len(UTF8_BOM):]
                position += len(UTF8_BOM)
            verdict = self.header_line(text, self.line + 1)
            if verdict != HEADER_BODY and not text.strip():
                self.header_blanks += 1
            if verdict == HEADER_BODY:
                self.header_done = True
                return position
            self.line += 1
            position = end + 1
            if verdict == HEADER_DONE:
                self.header_done = True
                return position
        return size

    def _body_phase(self, chunk: np.ndarray, position: int) -> None:
        end = len(chunk)
        while position < end:
            if self.lines is None:
                self.lines = self.line_grammar()
            status, position = self.line_kernel(chunk, position, self.state, self.irregular, self.lines)
            if status == STATUS_DONE:
                return
            if status == STATUS_NEED_SPACE:
                self.arcs.grow(self.state)
                self.lines = None
            elif status == STATUS_FALLBACK:
                self.at_fallback(chunk)
            else:
                line = int(self.state[S_LINE]) + 1
                text = line_text(chunk, int(self.state[S_ERROR_AT]))
                raise self.fail(line, self.explain(int(self.state[S_ERROR]), text))

    def lines_read(self) -> int:
        return int(self.state[S_LINE]) if self.header_done else self.line

    def line_stats(self) -> dict:
        return {
            "lines": self.lines_read(),
            "comment_lines": int(self.state[S_COMMENTS]) + self.header_comments,
            "blank_lines": int(self.state[S_BLANKS]) + self.header_blanks,
        }

    def line_of_record(self, record: int) -> int:
        """The line number of body record `record` (0-based), from the irregular lines remembered."""
        count = min(int(self.state[S_IRREGULAR]), IRREGULAR_CAPACITY)
        before = int(np.count_nonzero(self.irregular[:count, 0] <= record))
        return self.first_body_line + record + before
