"""A run says whether it had its GPU to itself (run/gpu_sharing.py): what NVML's process lists mean, how the looks
add up, how shards and sessions combine, and the report's row. The GPU test at the end runs on a GPU alone, then
beside a second process that holds a context on it, and finds each recorded."""

import os
import subprocess
import sys
import textwrap

import pytest

from runs import make_config, manifest, run_rows, solve, solves_all_ok, write_run
from sssp_bench.gpu import nvml
from sssp_bench.report import write_report
from sssp_bench.results.shards import merged_manifest
from sssp_bench.run.gpu_sharing import SharingWatch, combined, others_than_this, sharing_text


def test_the_others_are_every_listed_process_but_this_one():
    assert others_than_this([100, 200, 300], own=200) == (2, [100, 300])
    assert others_than_this([200], own=200) == (0, [])
    # this process not listed, though it has a context there: the ids are another PID namespace's (a container),
    # so all but one of them are others, and which is unknown
    assert others_than_this([7001, 7002], own=12) == (1, None)


def test_the_watch_warns_the_first_time_another_process_shows_up_and_keeps_the_most_seen():
    looks = iter([[os.getpid()], [os.getpid(), 4242], [os.getpid(), 4242, 4343], [os.getpid()]])
    said = []
    watch = SharingWatch(said.append, list_pids=lambda: next(looks))
    for when in ("at its start", "before graph g1", "before graph g2", "at its end"):
        watch.check(when)
    assert said == ["warning: 1 other process(es) (pid 4242) computing on this run's GPU before graph g1: the GPU is "
                    "time-sliced between them, so the times measured beside them are slowed"]
    assert watch.record() == {"checked": True, "checks": 4, "other_processes": 2, "pids": [4242, 4343]}


def test_where_nvml_cannot_tell_the_record_says_why_and_it_is_not_asked_again():
    asked = []

    def no_nvml():
        asked.append(1)
        raise nvml.NvmlUnavailable("libnvidia-ml.so.1 not loadable; no NVIDIA driver here")

    said = []
    watch = SharingWatch(said.append, list_pids=no_nvml)
    watch.check("at its start")
    watch.check("at its end")
    assert len(asked) == 1
    assert watch.record() == {"checked": False, "reason": "libnvidia-ml.so.1 not loadable; no NVIDIA driver here"}
    assert said == ["GPU sharing not checked: libnvidia-ml.so.1 not loadable; no NVIDIA driver here"]


def test_shards_combine_into_the_most_any_saw_and_say_how_many_did_not_look():
    alone = {"checked": True, "checks": 3, "other_processes": 0, "pids": []}
    shared = {"checked": True, "checks": 2, "other_processes": 1, "pids": [77]}
    unchecked = {"checked": False, "reason": "no driver"}
    assert combined([alone, shared]) == {"checked": True, "checks": 5, "other_processes": 1, "pids": [77]}
    assert combined([alone, unchecked]) == {"checked": True, "checks": 3, "other_processes": 0, "pids": [],
                                            "parts_unchecked": 1}
    assert combined([unchecked, unchecked]) == {"checked": False, "reason": "no driver"}
    assert combined([None, None]) is None


def test_a_merge_of_shards_keeps_the_combined_record():
    shards = [manifest(f"s{index}", shard={"index": index, "count": 2, "cells": [], "config_hash": "h"},
                       gpu_sharing={"checked": True, "checks": 2, "other_processes": others, "pids": pids})
              for index, others, pids in ((1, 0, []), (2, 1, [99]))]
    merged = merged_manifest("whole", shards, [])
    assert merged["gpu_sharing"] == {"checked": True, "checks": 4, "other_processes": 1, "pids": [99]}


def test_the_reports_provenance_says_whether_the_gpu_was_shared_for_runs_that_looked(tmp_path):
    rows = [solve("g1", "cpu-dijkstra", 0.01)]
    looked = write_run(tmp_path / "looked", manifest("looked", gpu_sharing={
        "checked": True, "checks": 3, "other_processes": 2, "pids": [5, 6]}), rows)
    alone = write_run(tmp_path / "alone", manifest("alone", gpu_sharing={
        "checked": True, "checks": 3, "other_processes": 0, "pids": []}), [{**row, "run_id": "alone"} for row in rows])
    older = write_run(tmp_path / "older", manifest("older"), [{**row, "run_id": "older"} for row in rows])
    text = write_report([looked, alone, older])["markdown"].read_text()
    assert ("| GPU shared with other processes | yes: up to 2 other process(es) computed on it (times slowed by "
            "time-slicing) | no: no other process computed on it at 3 looks | - |") in text
    assert "GPU shared" not in write_report(older)["markdown"].read_text()  # runs from before the check: no row


def test_the_words_for_each_record():
    assert sharing_text(None) == "-"
    assert sharing_text({"checked": False, "reason": "no driver"}) == "not checked (no driver)"
    assert sharing_text({"checked": True, "checks": 2, "other_processes": 0, "pids": [], "parts_unchecked": 1}) == (
        "no: no other process computed on it at 2 looks; 1 of its shards or sessions not checked")


# ---------------------------------------------------------------------------------------------- on a GPU

HOLD_THE_GPU = textwrap.dedent("""
    import sys, time
    import cupy
    cupy.zeros(1)  # a context on the GPU, as a second benchmark or test process has
    print("holding", flush=True)
    sys.stdin.readline()  # until the test closes our stdin
""")


@pytest.mark.gpu
def test_a_run_beside_another_process_on_its_gpu_records_it_and_alone_records_none(tmp_path):
    pytest.importorskip("cupy")
    from sssp_bench.gpu import runtime

    ok, why = runtime.gpu_status()
    if not ok:
        pytest.skip(f"no usable GPU: {why}")
    config = """
        graphs: [{graph: "grid:rows=16,cols=16,seed=1", label: grid}]
        implementations: [hbf]
        sources: {count: 2}
    """
    outcome, rows = run_rows(make_config(tmp_path, config), run_id="alone")
    solves_all_ok(rows)
    alone = _manifest(outcome.run_dir)["gpu_sharing"]
    # looks once its context is made at the graph's load, and at its end
    assert alone["checked"] and alone["checks"] == 2 and alone["other_processes"] == 0, alone

    holder = subprocess.Popen([sys.executable, "-c", HOLD_THE_GPU], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True)
    try:
        assert holder.stdout.readline().strip() == "holding"
        assert len(nvml.compute_process_ids()) == 2  # the holder and this process (its context from the first run)
        outcome, rows = run_rows(make_config(tmp_path, config), run_id="beside")
    finally:
        holder.stdin.close()
        holder.wait(timeout=60)
    solves_all_ok(rows)
    beside = _manifest(outcome.run_dir)["gpu_sharing"]
    assert beside["checks"] == 2 and beside["other_processes"] == 1, beside
    # its id, where NVML's ids are this process's namespace's (a container's NVML gives the host's)
    assert beside["pids"] == [holder.pid] or (beside["pids"] == [] and beside["pids_from_another_namespace"])


def _manifest(run_dir):
    import json

    return json.loads((run_dir / "manifest.json").read_text())
