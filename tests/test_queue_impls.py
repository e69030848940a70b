"""The Workfront Sweep and Near-Far Pile modules without a GPU: registration, parameters, the automatic delta,
and that the Python side's status-word indices and block sizes match the #defines of their CUDA sources."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from sssp_bench import impls
from sssp_bench.graph.csr import from_arcs
from sssp_bench.errors import ConfigError
from sssp_bench.graph.generators import generate
from sssp_bench.gpu import queues
from sssp_bench.gpu.runtime import module_source
from sssp_bench.impls import gpu_queue_common, near_far, workfront

from gpu_battery import heavy_star

IMPLS = Path(workfront.__file__).resolve().parent


def defines(cu_name: str) -> dict[str, int]:
    """The integer #defines of a .cu file and its headers: plain numbers, or (A * B) of earlier ones."""
    source, _ = module_source(IMPLS / cu_name)
    found: dict[str, int] = {}
    for name, text in re.findall(r"^#define (\w+) (.+)$", source, flags=re.MULTILINE):
        factors = [factor.strip() for factor in text.split("//")[0].strip().strip("()").split("*")]
        try:
            values = [found[factor] if factor in found else int(factor, 10) for factor in factors]
        except ValueError:
            continue
        found[name] = int(np.prod(values))
    return found


def test_both_are_registered_gpu_implementations():
    registry = impls.registry()
    wf, nf = registry["workfront"], registry["near-far"]
    assert wf.device == nf.device == "gpu" and wf.kind == nf.kind == "sssp"
    assert wf.negative_weights and not nf.negative_weights
    assert set(nf.parameters) == {"count_relaxations", "delta", "refill_arcs", "far_buckets", "packed_dedup", "graphs"}
    assert nf.parameters["packed_dedup"].default is True
    assert nf.parameters["delta"].default == 0
    assert set(wf.parameters) == {"count_relaxations", "graphs"} and wf.parameters["graphs"].default is True
    for cls in (wf, nf):
        assert (IMPLS / cls.cu_file).is_file() and cls.description
        ok, why = cls.available()
        assert ok or why  # unavailable only with a reason


def test_delta_is_validated():
    assert near_far.NearFarPile(delta=7).params["delta"] == 7
    with pytest.raises(ConfigError, match="delta"):
        near_far.NearFarPile(delta=-1)
    with pytest.raises(ConfigError, match="int"):
        near_far.NearFarPile(delta=1.5)


def test_refill_arcs_is_validated():
    assert near_far.NearFarPile(refill_arcs=4096).params["refill_arcs"] == 4096
    with pytest.raises(ConfigError, match="refill_arcs must be a positive int64"):
        near_far.NearFarPile(refill_arcs=0)


def test_far_buckets_are_validated_and_automatic_by_average_degree():
    assert near_far.NearFarPile().params["far_buckets"] == -1
    for wrong in (-2, 17):
        with pytest.raises(ConfigError, match="far_buckets must be -1 .automatic. or 0 .. 16"):
            near_far.NearFarPile(far_buckets=wrong)
    assert near_far.auto_far_buckets(generate("rmat:n=1000,m=8000,seed=1")) == near_far.RING_BUCKETS
    assert near_far.auto_far_buckets(generate("grid:rows=20,cols=20,seed=1")) == 0  # average out-degree < 5
    assert near_far.auto_far_buckets(from_arcs(3, [], [], np.zeros(0, np.int32))) == 0


def test_automatic_delta_is_a_factor_times_average_weight_over_average_degree():
    # sparse: 4 vertices, 8 arcs (average degree 2), weights averaging 10: 32 * 10 / 2 = 160
    arcs = [(0, 1, 5), (0, 2, 15), (1, 2, 10), (1, 3, 10), (2, 3, 10), (2, 0, 10), (3, 0, 5), (3, 1, 15)]
    graph = from_arcs(4, *zip(*arcs))
    assert near_far.auto_delta(graph) == 160
    assert near_far.auto_delta(graph.with_weights(None)) == 16  # unit weights
    assert near_far.auto_delta(graph.with_weights(np.zeros(8, np.int32))) == 1  # at least 1
    assert near_far.auto_delta(from_arcs(3, [], [], np.zeros(0, np.int32))) == 1
    # denser (average degree 6, weights averaging 30): the factor is 4, 4 * 30 / 6 = 20
    tails = np.repeat(np.arange(4), 6)
    heads = (tails + np.tile(np.arange(1, 7), 4)) % 4
    assert near_far.auto_delta(from_arcs(4, tails, heads, np.full(24, 30, np.int32))) == 20


def test_packed_distances_leave_room_for_every_distance_and_round_stamp():
    # 4 vertices: a simple path weighs at most 15 + 10 + 10 = 35 (each row's largest weight once), and 35 and the
    # unreached word above it (36) take 6 bits, so 63 - 6 = 57 stamp bits
    arcs = [(0, 1, 5), (0, 2, 15), (1, 2, 10), (2, 3, 10)]
    graph = from_arcs(4, *zip(*arcs))
    assert near_far.packed_distance_shift(graph) == 57
    assert near_far.packed_distance_shift(graph.with_weights(None)) == 60  # unit weights: 3 and 4 take 3 bits
    assert near_far.packed_distance_shift(from_arcs(1, [], [], np.zeros(0, np.int32))) == 62
    # a million vertices, each with an out-arc weighing 2^31 - 1: 51 distance bits leave 12 stamp bits, which
    # cannot count 2 x (4n + 64) rounds, so the solve keeps plain distances (the GPU test solves this graph)
    assert near_far.packed_distance_shift(heavy_star(2**20)) == 0
    light = from_arcs(2**20, [0], [1], [2**31 - 1])  # one heavy arc: no simple path weighs more
    shift = near_far.packed_distance_shift(light)
    assert shift == 63 - (2**31).bit_length()
    assert 2**shift > 2 * (near_far.round_cap(2**20) + 32) + 1  # odd near stamps, even far stamps


def test_status_words_and_block_sizes_agree_with_the_kernels():
    wf, nf = defines("workfront.cu"), defines("near_far.cu")
    assert wf["ADVANCE_BLOCK"] == nf["ADVANCE_BLOCK"] == queues.ADVANCE_BLOCK
    assert wf["ADVANCE_TILE"] == queues.TILE
    assert (wf["WF_QUEUE0"], wf["WF_ROUNDS"], wf["WF_BASE"]) == (workfront.WF_QUEUE0, workfront.WF_ROUNDS,
                                                                 workfront.WF_BASE)
    assert workfront.WorkfrontSweep.base_word == wf["WF_BASE"] < wf["WF_WORDS"]
    assert near_far.NearFarPile.base_word == nf["NF_BASE"] < nf["NF_WORDS"]
    assert wf["WF_WORDS"] <= gpu_queue_common.STATUS_WORDS
    assert nf["NF_WORDS"] == near_far.NF_WORDS == near_far.NearFarPile.status_words
    assert nf["NF_RING0"] + nf["NF_RING_MAX"] == nf["NF_WORDS"] and nf["NF_RING_MAX"] == near_far.NF_RING_MAX
    assert nf["NF_PENDING"] == near_far.NF_PENDING < nf["NF_SLOT_WORDS"]
    assert wf["N_WORDS"] <= wf["WF_QUEUE0"]  # the control words come after common.cuh's
    assert (nf["NF_SLOT0"], nf["NF_SLOT_WORDS"], nf["NF_NEAR"], nf["NF_FAR_COUNT"]) == (
        near_far.NF_SLOT0, near_far.NF_SLOT_WORDS, near_far.NF_NEAR, near_far.NF_FAR_COUNT)
    assert (nf["NF_ROUNDS"], nf["NF_SPLITS"]) == (near_far.NF_ROUNDS, near_far.NF_SPLITS)
    assert nf["NF_SLOT0"] + 3 * nf["NF_SLOT_WORDS"] <= nf["NF_ROUNDS"] < nf["NF_WORDS"]
    control = [nf[name] for name in ("NF_ROUNDS", "NF_SPLITS", "NF_SPLIT", "NF_BLOCKS_DONE", "NF_BASE",
                                     "NF_SPLIT_BUCKET", "NF_SPLIT_COUNT")]
    assert len(set(control)) == len(control) and max(control) < nf["NF_RING0"]
    assert gpu_queue_common.BATCH_SIZES == tuple(2**k for k in range(len(gpu_queue_common.BATCH_SIZES)))
