"""The runner counts a GPU result's reached vertices and arcs on the device, where no check needs its distances on
the host (the device certificate checks it and counts them; the source has no reference compare): the counts are
the host's, and stay so where the device certificate fails and the host checks a copy (marker `gpu`; skipped without
CuPy or a usable GPU)."""

from __future__ import annotations

import pytest

pytest.importorskip("cupy")

from gpu_battery import gpu_device  # noqa: E402, F401
from runs import make_config, run_rows, solves_all_ok  # noqa: E402

pytestmark = pytest.mark.gpu

CONFIG = """
    graphs:
      - {graph: "road:n=6000,seed=2", label: road}
      - {graph: "rmat:n=4096,m=32768,seed=3", label: rmat}
    implementations: [hbf, bfs4k, near-far]
    sources: {count: 6, seed: 1}
    verification: {reference_sources: %d}
"""


def counts(tmp_path, reference_sources: int) -> dict:
    _, rows = run_rows(make_config(tmp_path / str(reference_sources), CONFIG % reference_sources),
                       run_id=f"refs-{reference_sources}")
    return {(row["graph"], row["variant"], row["source"]): (row["reached_vertices"], row["reached_arcs"])
            for row in solves_all_ok(rows)}


def test_counts_on_the_device_equal_the_hosts(tmp_path):
    on_host = counts(tmp_path, 6)    # every source compared with the reference: every result copied
    on_device = counts(tmp_path, 0)  # none compared: every result counted on the device
    assert on_host and on_host == on_device


def test_a_device_certificate_that_fails_leaves_the_check_and_the_counts_to_the_host(tmp_path, monkeypatch):
    from sssp_bench.gpu import certificate as device_certificate

    on_host = counts(tmp_path, 6)

    def broken(*args, **kwargs):
        raise RuntimeError("stand-in for a device fault")

    monkeypatch.setattr(device_certificate, "certificate", broken)
    _, rows = run_rows(make_config(tmp_path / "broken", CONFIG % 0), run_id="broken")
    checked = solves_all_ok(rows)
    assert {row["certificate_device"] for row in checked} == {"cpu"}
    assert {(row["graph"], row["variant"], row["source"]): (row["reached_vertices"], row["reached_arcs"])
            for row in checked} == on_host
