"""small-world and forest-fire: SNAP's GenSmallWorld and GenForestFire (BFS-4K's Gen-SmallWorld, Gen-ForestFire)."""

from __future__ import annotations

import numpy as np
from numba import njit

from ..build import csr_from_edges
from ..rng import (
    STREAM_ENDPOINTS,
    STREAM_FIRE,
    STREAM_REWIRE,
    U64_HALF_BITS,
    U64_ONE,
    random_below,
    random_unit,
    random_word,
    stream_key,
    word_below,
)
from .common import VERTICES, check_weights, directed_param, edge_weights, generator, seed_param, weight_params
from .spec import INT32_MAX, Param, Params


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
    weights = edge_weights(seed, n * k, params["wmin"], params["wmax"])
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
        counter += U64_ONE
        ambassador = word_below(random_word(key, counter), v)
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
                    counter += U64_ONE
                    if (random_word(key, counter) >> U64_HALF_BITS) * (1.0 / 4294967296.0) >= probability:
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
                    counter += U64_ONE
                    pick = index + word_below(random_word(key, counter), found - index)
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
    weights = edge_weights(seed, arcs, params["wmin"], params["wmax"])
    return (*csr_from_edges(n, sources, out_targets[:arcs], weights, params["directed"]), params["directed"])


GENERATORS = [
    generator(
        "small-world",
        "Watts-Strogatz small world as SNAP's GenSmallWorld: ring of k neighbours per side, links rewired with "
        "probability p, undirected (BFS-4K Gen-SmallWorld: small-world:n=2M,k=10,p=0.3)",
        {"n": Param(int, 16384, "number of vertices", minimum=3, maximum=INT32_MAX),
         "k": Param(int, 10, "links from each vertex to the next k on the ring", minimum=1, maximum=1024),
         "p": Param(float, 0.3, "probability that a link's far end is rewired", 0.0, 1.0),
         **seed_param(), **weight_params()},
        _build_small_world, check_weights, _check_small_world,
    ),
    generator(
        "forest-fire",
        "Leskovec forest fire as SNAP's GenForestFire: each new vertex burns from a random ambassador, forward "
        "and backward burning probabilities (BFS-4K Gen-ForestFire: forest-fire:n=1M,forward=0.35,backward=0.32)",
        {**VERTICES,
         "forward": Param(float, 0.35, "forward burning probability", 0.0, 0.95),
         "backward": Param(float, 0.32, "backward burning probability", 0.0, 0.95),
         "max_arcs": Param(int, 2**27, "stop adding arcs past this many (bounds memory)", minimum=1, maximum=2**31 - 1),
         **directed_param(True, "false: store each link as two arcs"), **seed_param(), **weight_params()},
        _build_forest_fire, check_weights,
    ),
]
