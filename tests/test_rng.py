"""The counter-based random streams: numba and numpy draw the same numbers, and a number depends on its index."""

import numpy as np

from sssp_bench.graph.rng import random_below, random_word, random_words, stream_key, uniform_ints, word_below


def test_numpy_and_numba_random_streams_agree():
    key = stream_key(7, 1)
    counters = np.array([0, 1, 2, 12345, 2**40 + 3], dtype=np.uint64)
    expected = [int(random_word(key, np.uint64(counter))) for counter in counters]
    assert [int(word) for word in random_words(key, counters)] == expected
    assert stream_key(7, 1) != stream_key(7, 2) != stream_key(8, 1)


def test_element_i_of_a_uniform_draw_is_counter_i_of_its_stream():
    key = stream_key(3, 2)
    drawn = uniform_ints(key, 1000, 5, 17)
    assert drawn.dtype == np.int32 and drawn.min() >= 5 and drawn.max() < 17
    assert drawn[637] == 5 + word_below(random_word(key, np.uint64(637)), 12)
    assert np.array_equal(drawn[[3, 999]], 5 + random_below(key, np.array([3, 999], dtype=np.uint64), 12))
