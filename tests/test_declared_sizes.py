"""Inputs that declare more than the machine has: a tiny graph file whose header claims billions of vertices or
arcs, a generator spec for a graph no memory holds. Each is refused in one line with exit status 2, before
anything of that size is allocated and with nothing written (sssp_bench/graph/memory.py says how it is checked).
"""

import os
import resource
import subprocess
import sys

import pytest
from click.testing import CliRunner

from sssp_bench.cli import cli
from sssp_bench.datasets.resolve import resolve_path
from sssp_bench.errors import UserError
from sssp_bench.graph.memory import MEMORY_LIMIT_VARIABLE, available_memory, graph_bytes, spec_size

COMMAND = [sys.executable, "-c", "from sssp_bench.cli import cli; cli()"]


def invoke(*arguments):
    return CliRunner().invoke(cli, [str(argument) for argument in arguments])


def files_in(folder):
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*")) if folder.exists() else []


@pytest.fixture
def thirty_three_bytes(tmp_path):
    """The issue's file: 33 bytes declaring 200 million vertices (4.5 GiB to build, a 1.6 GB .csr)."""
    path = tmp_path / "tiny.gr"
    path.write_text("c declares much\np sp 200000000 0\n")
    assert path.stat().st_size == 33
    return path


def test_importing_a_tiny_file_that_declares_a_huge_graph_is_one_line_exit_2_and_nothing_written(
        thirty_three_bytes, tmp_path, monkeypatch):
    monkeypatch.setenv(MEMORY_LIMIT_VARIABLE, "2G")
    result = invoke("import", thirty_three_bytes, "--datasets", tmp_path / "data")
    assert result.exit_code == 2
    assert result.output.strip() == (
        "Error: tiny.gr:2: the header declares n=200,000,000 vertices and 0 arcs: building it takes at least "
        "4.47 GiB, but 2.00 GiB is available (SSSP_BENCH_MEMORY_LIMIT=2G); nothing was allocated. Set "
        "SSSP_BENCH_MEMORY_LIMIT=<bytes> (or none) to check against another amount")
    assert files_in(tmp_path / "data") == []


def test_a_config_s_graph_file_declaring_a_huge_graph_is_refused_before_converting(thirty_three_bytes, tmp_path,
                                                                                     monkeypatch):
    monkeypatch.setenv(MEMORY_LIMIT_VARIABLE, "2G")
    with pytest.raises(UserError, match=r"^tiny\.gr:2: the header declares n=200,000,000 vertices"):
        resolve_path(str(thirty_three_bytes), tmp_path / "data")
    assert files_in(tmp_path / "data") == []


def test_under_ulimit_v_the_address_space_left_is_what_is_available(thirty_three_bytes, tmp_path):
    """The issue: with `ulimit -v` the same file gave a MemoryError traceback. The limit is read, not run into."""
    limit = 3 * 2**30  # room for Python, numpy and numba, not for 4.5 GiB more

    def limit_address_space():
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    environment = {key: value for key, value in os.environ.items() if key != MEMORY_LIMIT_VARIABLE}
    result = subprocess.run([*COMMAND, "import", str(thirty_three_bytes), "--datasets", str(tmp_path / "data")],
                            capture_output=True, text=True, timeout=300, preexec_fn=limit_address_space,
                            env=environment)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: tiny.gr:2: the header declares n=200,000,000 vertices")
    assert "(ulimit -v, 3.00 GiB of address space)" in lines[0]
    assert files_in(tmp_path / "data") == []


@pytest.mark.parametrize("spec, vertices, arcs", [
    ("fixed-degree:n=2000000000,degree=1000", 2_000_000_000, 2 * 10**12),
    ("random:n=2000000000,m=1000000000000", 2_000_000_000, 10**12),
    ("kron:scale=30,edgefactor=65536", 2**30, 2**47),
])
def test_a_generator_spec_whose_graph_no_memory_holds_is_refused_before_generating(spec, vertices, arcs,
                                                                                    tmp_path, monkeypatch):
    monkeypatch.delenv(MEMORY_LIMIT_VARIABLE, raising=False)
    assert spec_size(spec) == (vertices, arcs)
    for output in ([], ["-o", tmp_path / "out.csr"]):
        result = invoke("generate", spec, *output, "--datasets", tmp_path / "data")
        assert result.exit_code == 2
        assert result.output.startswith(f"Error: generator spec {spec!r}: n={vertices:,} vertices and {arcs:,} arcs: "
                                        "building it takes at least ")
        assert len(result.output.strip().splitlines()) == 1
    assert files_in(tmp_path / "data") == [] and not (tmp_path / "out.csr").exists()


def test_a_spec_that_fits_is_generated_and_the_override_can_refuse_it(tmp_path, monkeypatch):
    monkeypatch.setenv(MEMORY_LIMIT_VARIABLE, "none")
    assert invoke("generate", "chain:n=100", "--datasets", tmp_path / "data").exit_code == 0
    monkeypatch.setenv(MEMORY_LIMIT_VARIABLE, "1K")
    result = invoke("generate", "chain:n=1000", "--datasets", tmp_path / "data")
    assert result.exit_code == 2 and "but 1.00 KiB is available (SSSP_BENCH_MEMORY_LIMIT=1K)" in result.output


def test_the_estimate_is_what_building_the_csr_holds_at_least():
    # 24 bytes a vertex; an arc's target, source and weight (12), or 8 when it comes row by row (METIS, generators)
    assert graph_bytes(10, 100) == 24 * 11 + 12 * 100
    assert graph_bytes(10, 100, weight_bytes=0) == 24 * 11 + 8 * 100
    assert graph_bytes(10, 100, with_sources=False) == 24 * 11 + 8 * 100


def test_the_override_is_a_size_or_none(monkeypatch):
    for text, expected in [("16G", 16 * 2**30), ("512M", 512 * 2**20), ("1.5T", int(1.5 * 2**40)), ("4000", 4000)]:
        monkeypatch.setenv(MEMORY_LIMIT_VARIABLE, text)
        assert available_memory() == (expected, f"{MEMORY_LIMIT_VARIABLE}={text}")
    monkeypatch.setenv(MEMORY_LIMIT_VARIABLE, "none")
    assert available_memory()[0] is None
