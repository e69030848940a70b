"""Every implementation gets the same seeded sources; each has out-arcs and reaches enough of the graph."""


from sssp_bench.graph.csr import from_arcs
from sssp_bench.graph.sources import cached_sources, default_min_reached, pick_sources


def two_components():
    # vertices 0..9 form a directed cycle; 10..12 a short path; 13 has no out-arcs
    cycle_from = list(range(10))
    cycle_to = [(v + 1) % 10 for v in range(10)]
    return from_arcs(14, cycle_from + [10, 11], cycle_to + [11, 12])


def test_same_seed_same_sources_and_another_seed_differs():
    graph = two_components()
    assert pick_sources(graph, 5, seed=3, min_reached=1) == pick_sources(graph, 5, seed=3, min_reached=1)
    assert pick_sources(graph, 5, seed=3, min_reached=1) != pick_sources(graph, 5, seed=4, min_reached=1)


def test_vertices_without_out_arcs_are_never_sources():
    sources = pick_sources(two_components(), 100, seed=1, min_reached=1)
    assert 13 not in sources and 12 not in sources
    assert len(sources) == len(set(sources)) == 12  # 0..11 have out-arcs


def test_sources_must_reach_min_reached_vertices():
    sources = pick_sources(two_components(), 100, seed=1, min_reached=5)
    assert sorted(sources) == list(range(10))  # the path 10 -> 11 -> 12 reaches only 3


def test_default_min_reached_is_ten_percent_capped_at_the_papers_hundred_thousand():
    assert default_min_reached(1000) == 100
    assert default_min_reached(50_000_000) == 100_000
    assert default_min_reached(5) == 1


def test_sources_are_cached_and_the_cache_is_keyed(tmp_path):
    graph, cache = two_components(), tmp_path / "g.sources.json"
    first = cached_sources(graph, cache, 4, 7, None)
    assert cache.exists()
    cache.write_text(cache.read_text().replace(str(first[0]), "999", 1))  # tampered, but key still matches
    assert cached_sources(graph, cache, 4, 7, None)[0] == 999  # read from the cache, not recomputed
    assert cached_sources(graph, cache, 4, 8, None) == pick_sources(graph, 4, 8, None)  # other seed: recomputed


def test_a_damaged_cache_is_recomputed(tmp_path):
    graph, cache = two_components(), tmp_path / "g.sources.json"
    cache.write_text("{not json")
    assert cached_sources(graph, cache, 4, 7, None) == pick_sources(graph, 4, 7, None)
