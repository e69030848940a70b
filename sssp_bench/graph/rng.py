"""Counter-based random streams: every random number is the splitmix64 finaliser of (key(seed, stream), counter).

A number depends only on its stream and its index, never on the order of drawing, so threads and chunks give
byte-identical graphs and weights, the streams do not change with numpy versions, and a generator can draw the
same numbers twice (a count pass, then a scatter pass) instead of storing them.

    key = stream_key(seed, STREAM_WEIGHTS)      one stream per purpose and seed
    random_word(key, counter)                   (numba) the 64-bit word number `counter` of the stream
    word_below(word, span)                      (numba) a number in [0, span) from a word's top 32 bits
    random_words / random_below / random_unit   the same, vectorised over an array of counters (numpy)
    uniform_ints(key, count, low, high)         int32[count] in [low, high), element i from counter i

The generators and the weight assignments draw from here; a changed formula changes every cached graph.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

_GOLDEN = 0x9E3779B97F4A7C15
_MIX_1 = 0xBF58476D1CE4E5B9
_MIX_2 = 0x94D049BB133111EB
_MASK_64 = (1 << 64) - 1

# numba treats module-level numpy scalars as compile-time constants; keeping every operand uint64 matters,
# because numba turns uint64-with-int64 arithmetic into float64.
_U_GOLDEN = np.uint64(_GOLDEN)
_U_MIX_1 = np.uint64(_MIX_1)
_U_MIX_2 = np.uint64(_MIX_2)
_U_27 = np.uint64(27)
_U_30 = np.uint64(30)
_U_31 = np.uint64(31)
U64_ONE = np.uint64(1)                 # the next counter
U64_HALF_BITS = np.uint64(32)          # a word's top half: word >> U64_HALF_BITS
U64_LOW_HALF = np.uint64(0xFFFFFFFF)   # a word's bottom half: word & U64_LOW_HALF

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
def random_word(key, counter):
    """Random 64-bit word number `counter` (a uint64) of stream `key`."""
    return _mix64(key + counter * _U_GOLDEN)


@njit(inline="always", cache=True)
def word_below(word, span):
    """A number in [0, span) from the top 32 bits of `word` (multiply-shift; bias < span / 2^32)."""
    return np.int64(((word >> U64_HALF_BITS) * np.uint64(span)) >> U64_HALF_BITS)


def random_words(key: np.uint64, counters: np.ndarray) -> np.ndarray:
    """Vectorised `random_word`: uint64 words for an array of counters (numpy's uint64 arithmetic wraps, as wanted)."""
    with np.errstate(over="ignore"):  # 0-d inputs would warn about the wrap-around
        value = np.atleast_1d(np.asarray(counters).astype(np.uint64)) * _U_GOLDEN + np.uint64(key)
        value ^= value >> _U_30
        value *= _U_MIX_1
        value ^= value >> _U_27
        value *= _U_MIX_2
        value ^= value >> _U_31
    return value.reshape(np.shape(counters))


def random_below(key: np.uint64, counters: np.ndarray, span) -> np.ndarray:
    """Vectorised `word_below`: int64 numbers in [0, span) (span a scalar or an array, < 2^32)."""
    spans = np.asarray(span).astype(np.uint64)
    return (((random_words(key, counters) >> U64_HALF_BITS) * spans) >> U64_HALF_BITS).astype(np.int64)


def random_unit(key: np.uint64, counters: np.ndarray) -> np.ndarray:
    """Vectorised float64 numbers in [0, 1) (53 random bits each)."""
    return (random_words(key, counters) >> np.uint64(11)).astype(np.float64) * (1.0 / (1 << 53))


@njit(parallel=True, cache=True)
def _fill_uniform(key, low, span, out):
    """out[i] = low + uniform [0, span) number i of stream `key`, in parallel."""
    for index in prange(len(out)):
        out[index] = low + word_below(random_word(key, np.uint64(index)), span)


def uniform_ints(key: np.uint64, count: int, low: int, high: int) -> np.ndarray:
    """int32[count], uniform in [low, high), element i drawn from counter i of stream `key`."""
    out = np.empty(count, dtype=np.int32)
    if count:
        _fill_uniform(np.uint64(key), np.int64(low), np.int64(high - low), out)
    return out
