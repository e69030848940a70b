"""The CSR store: what is written is what is read, mapped in place, and a damaged file is refused by name."""

import json
import os
import struct
import subprocess
import sys
import time

import numpy as np
import pytest

from sssp_bench.graph.csr import (HEADER_SIZE, MAGIC, UNTAGGED_STALE_SECONDS, from_arcs, read_csr, read_header,
                                  sidecar_path, temporary_path, write_csr)
from sssp_bench.errors import GraphFormatError


@pytest.fixture
def triangle():
    # 0 -> 1 (5), 0 -> 2 (1), 2 -> 1 (2), plus an isolated vertex 3
    return from_arcs(4, [0, 0, 2], [1, 2, 1], [5, 1, 2], name="triangle")


def test_round_trip_keeps_every_array_and_flag(tmp_path, triangle):
    path = write_csr(triangle, tmp_path / "triangle.csr", {"provenance": {"made_by": "test"}})
    loaded = read_csr(path)
    assert loaded.n == 4 and loaded.m == 3 and loaded.directed
    np.testing.assert_array_equal(loaded.row_offsets, [0, 2, 2, 3, 3])
    np.testing.assert_array_equal(loaded.column_ids, [1, 2, 1])
    np.testing.assert_array_equal(loaded.weights, [5, 1, 2])
    assert loaded.weights.dtype == np.int32
    assert loaded.meta["provenance"] == {"made_by": "test"}


def test_arrays_are_mapped_not_copied(tmp_path, triangle):
    loaded = read_csr(write_csr(triangle, tmp_path / "g.csr"))
    for array in (loaded.row_offsets, loaded.column_ids, loaded.weights):
        assert isinstance(array, np.memmap)
        assert not array.flags.writeable


def test_sections_are_aligned_for_memmap(tmp_path, triangle):
    header = read_header(write_csr(triangle, tmp_path / "g.csr"))
    assert header["offsets_at"] == HEADER_SIZE
    assert header["columns_at"] % 64 == 0 and header["weights_at"] % 64 == 0


def test_float32_weights_and_unweighted_graphs(tmp_path):
    weighted = from_arcs(3, [0, 1], [1, 2], np.array([0.5, 1.25], dtype=np.float32), directed=False)
    loaded = read_csr(write_csr(weighted, tmp_path / "f.csr"))
    assert loaded.weights.dtype == np.float32 and not loaded.directed and loaded.m == 4
    unweighted = read_csr(write_csr(from_arcs(3, [0, 1], [1, 2]), tmp_path / "u.csr"))
    assert unweighted.weights is None
    np.testing.assert_array_equal(unweighted.weights_or_ones(), [1, 1])


def test_sidecar_describes_the_graph(tmp_path, triangle):
    path = write_csr(triangle, tmp_path / "g.csr")
    facts = json.loads(sidecar_path(path).read_text())["characteristics"]
    assert facts["n"] == 4 and facts["m"] == 3
    assert facts["out_degree_max"] == 2 and facts["zero_out_degree_vertices"] == 2
    assert facts["weight_min"] == 1 and facts["weight_max"] == 5


def test_write_leaves_no_temporary_files(tmp_path, triangle):
    write_csr(triangle, tmp_path / "g.csr")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["g.csr", "g.csr.json"]


def test_truncated_file_is_refused(tmp_path, triangle):
    path = write_csr(triangle, tmp_path / "g.csr")
    path.write_bytes(path.read_bytes()[:-4])
    with pytest.raises(GraphFormatError, match=r"g\.csr: truncated"):
        read_csr(path)


def test_truncated_header_is_refused(tmp_path):
    path = tmp_path / "short.csr"
    path.write_bytes(MAGIC + b"\x01\x00")
    with pytest.raises(GraphFormatError, match="truncated header"):
        read_csr(path)


def test_wrong_magic_is_refused(tmp_path):
    path = tmp_path / "not-a-graph.csr"
    path.write_bytes(b"p sp 3 2\n" * 20)
    with pytest.raises(GraphFormatError, match="not-a-graph.csr: not an sssp-bench CSR file"):
        read_csr(path)


def test_extra_bytes_mean_sizes_disagree(tmp_path, triangle):
    path = write_csr(triangle, tmp_path / "g.csr")
    path.write_bytes(path.read_bytes() + b"\0" * 64)
    with pytest.raises(GraphFormatError, match="sizes disagree"):
        read_csr(path)


def test_header_m_that_disagrees_with_offsets_is_refused(tmp_path, triangle):
    path = write_csr(triangle, tmp_path / "g.csr")
    data = bytearray(path.read_bytes())
    data[HEADER_SIZE + 4 * 8 : HEADER_SIZE + 5 * 8] = struct.pack("<q", 2)  # row_offsets[n] = 2, but m = 3
    path.write_bytes(bytes(data))
    with pytest.raises(GraphFormatError, match="expected 0 to m=3"):
        read_csr(path)


def test_unknown_version_is_refused(tmp_path, triangle):
    path = write_csr(triangle, tmp_path / "g.csr")
    data = bytearray(path.read_bytes())
    data[8:12] = struct.pack("<I", 99)
    path.write_bytes(bytes(data))
    with pytest.raises(GraphFormatError, match="version 99"):
        read_csr(path)


def test_column_id_out_of_range_is_refused(tmp_path, triangle):
    path = write_csr(triangle, tmp_path / "g.csr")
    header = read_header(path)
    data = bytearray(path.read_bytes())
    data[header["columns_at"] : header["columns_at"] + 4] = struct.pack("<i", 17)
    path.write_bytes(bytes(data))
    with pytest.raises(GraphFormatError, match=r"column ids outside \[0, 4\)"):
        read_csr(path)


def test_missing_file_is_named(tmp_path):
    with pytest.raises(GraphFormatError, match="nowhere.csr: no such graph file"):
        read_csr(tmp_path / "nowhere.csr")


def test_undirected_arcs_are_stored_both_ways():
    graph = from_arcs(3, [0, 1], [1, 2], [7, 9], directed=False)
    assert graph.m == 4
    arcs = set(zip(graph.arc_sources().tolist(), graph.column_ids.tolist(), graph.weights.tolist()))
    assert arcs == {(0, 1, 7), (1, 0, 7), (1, 2, 9), (2, 1, 9)}


def a_dead_process_id() -> int:
    """The id of a process that has ended (and was reaped): what a writer killed by SIGKILL leaves in its names."""
    finished = subprocess.Popen([sys.executable, "-c", "pass"])
    finished.wait()
    return finished.pid


def test_a_new_write_clears_the_temporaries_of_dead_writers_on_this_host_only(tmp_path, triangle):
    dead, alive = a_dead_process_id(), os.getpid()
    ours = temporary_path(tmp_path / "killed.csr").name.rsplit("-", 1)[0]  # ".killed.csr.<host>"
    left = {
        f"{ours}-{dead}.tmp": False,                           # this host, writer gone: removed
        f".killed.csr.json.{ours.rsplit('.', 1)[1]}-{dead}.tmp": False,
        f"{ours}-{alive}.tmp": True,                           # this host, writer alive: kept
        f".killed.csr.0badc0de-{dead}.tmp": True,              # another host's: its process ids mean nothing here
        f".old.csr.{dead}.tmp": True,                          # untagged (an older version's), but fresh: kept
        "killed.csr.part": True,                               # not a temporary of ours
    }
    for name in left:
        (tmp_path / name).write_bytes(b"half")
    stale_untagged = tmp_path / f".older.csr.{dead}.tmp"
    stale_untagged.write_bytes(b"half")
    an_hour_ago = time.time() - UNTAGGED_STALE_SECONDS - 60
    os.utime(stale_untagged, (an_hour_ago, an_hour_ago))

    write_csr(triangle, tmp_path / "g.csr")
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted(
        [name for name, kept in left.items() if kept] + ["g.csr", "g.csr.json"])


def test_a_failed_write_leaves_the_old_graph_and_its_sidecar_as_they_were(tmp_path, triangle):
    path = write_csr(triangle, tmp_path / "g.csr", {"provenance": {"version": 1}})
    before = path.read_bytes(), sidecar_path(path).read_text()
    bigger = from_arcs(5, [0, 1], [1, 4], [7, 8])
    companion = temporary_path(tmp_path / "g.ids.npy")
    companion.write_bytes(b"ids")
    with pytest.raises(TypeError):  # the sidecar cannot be written: nothing of the new graph may land
        write_csr(bigger, path, {"provenance": {"version": 2, "unwritable": object()}},
                  companions=[(companion, tmp_path / "g.ids.npy")])
    assert (path.read_bytes(), sidecar_path(path).read_text()) == before
    assert sorted(entry.name for entry in tmp_path.iterdir()) == ["g.csr", "g.csr.json"]


def test_companions_are_renamed_in_with_the_graph(tmp_path, triangle):
    companion = temporary_path(tmp_path / "g.ids.npy")
    companion.write_bytes(b"ids")
    write_csr(triangle, tmp_path / "g.csr", companions=[(companion, tmp_path / "g.ids.npy")])
    assert sorted(entry.name for entry in tmp_path.iterdir()) == ["g.csr", "g.csr.json", "g.ids.npy"]
    assert (tmp_path / "g.ids.npy").read_bytes() == b"ids"
