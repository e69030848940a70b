"""provenance.collect() and gpu_status(): complete, JSON-serialisable, fast, never raising."""

import importlib.machinery
import json
import shutil
import sys
import time
import types
from pathlib import Path

import pytest

from sssp_bench.run import provenance

REPO_ROOT = Path(__file__).resolve().parents[1]


def test_collect_has_every_key_and_serialises():
    info = provenance.collect()
    for key in ("host", "os", "python", "cpu", "memory_total_bytes", "packages", "git", "code", "gpu"):
        assert key in info
    assert set(info["cpu"]) >= {"model", "logical_cores"}
    assert info["cpu"]["logical_cores"] >= 1
    assert info["memory_total_bytes"] > 0
    for package in ("sssp_bench", "numpy", "scipy", "numba", "pandas", "matplotlib", "click", "yaml", "cupy"):
        assert package in info["packages"]
    assert info["packages"]["numpy"]
    json.loads(json.dumps(info))


def test_collect_is_fast_without_a_gpu():
    started = time.perf_counter()
    provenance.collect()
    assert time.perf_counter() - started < 1.0


@pytest.mark.skipif(provenance.importlib.util.find_spec("cupy") is not None, reason="CuPy is installed here")
def test_gpu_reported_unavailable_without_cupy():
    gpu = provenance.collect()["gpu"]
    assert gpu["available"] is False
    assert "CuPy not installed" in gpu["reason"]
    available, reason = provenance.gpu_status()
    assert available is False and "CuPy" in reason


@pytest.mark.skipif(shutil.which("git") is None, reason="git missing")
def test_git_commit_of_this_checkout():
    git = provenance.git_info()
    if git["commit"] is None:
        pytest.skip(f"not a git checkout: {git['reason']}")
    assert len(git["commit"]) == 40 and all(c in "0123456789abcdef" for c in git["commit"])
    assert Path(git["root"]).resolve() == REPO_ROOT
    assert isinstance(git["dirty"], bool)


def test_git_outside_a_repository_is_null_with_reason(tmp_path):
    git = provenance.git_info(tmp_path)
    assert git["commit"] is None and git["dirty"] is None
    assert git["reason"]


def test_collect_never_raises(monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(provenance.platform, "platform", broken)
    monkeypatch.setattr(provenance, "git_info", broken)
    info = provenance.collect()
    assert info["os"] is None
    assert info["git"]["commit"] is None


def _fake_cupy(device_count=1, count_error=None):
    """A stand-in for CuPy exposing just what gpu_info() reads."""

    def get_device_count():
        if count_error:
            raise count_error
        return device_count

    runtime = types.SimpleNamespace(
        getDeviceCount=get_device_count,
        getDevice=lambda: 0,
        getDeviceProperties=lambda index: {
            "name": b"NVIDIA H100 80GB HBM3", "major": 9, "minor": 0,
            "totalGlobalMem": 85_000_000_000, "multiProcessorCount": 132,
        },
        driverGetVersion=lambda: 12040,
        runtimeGetVersion=lambda: 12020,
    )
    module = types.ModuleType("cupy")
    module.__spec__ = importlib.machinery.ModuleSpec("cupy", None)
    module.__version__ = "13.3.0"
    module.cuda = types.SimpleNamespace(runtime=runtime)
    return module


def test_gpu_info_with_a_device(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", _fake_cupy())
    gpu = provenance.gpu_info()
    assert gpu["available"] is True
    assert gpu["name"] == "NVIDIA H100 80GB HBM3"
    assert gpu["compute_capability"] == "9.0"
    assert gpu["driver_version"] == "12.4" and gpu["cuda_runtime_version"] == "12.2"
    assert gpu["cupy_version"] == "13.3.0"
    available, description = provenance.gpu_status()
    assert available is True
    assert description.startswith("NVIDIA H100 80GB HBM3 (sm_90, 79.2 GiB, driver 12.4")


def test_gpu_info_without_a_device(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", _fake_cupy(count_error=RuntimeError("cudaErrorNoDevice: no CUDA-capable device")))
    available, reason = provenance.gpu_status()
    assert available is False
    assert reason.startswith("no CUDA device") and "cudaErrorNoDevice" in reason

    monkeypatch.setitem(sys.modules, "cupy", _fake_cupy(device_count=0))
    assert provenance.gpu_status() == (False, "no CUDA device (CuPy sees 0 devices)")


@pytest.mark.skipif(shutil.which("git") is None, reason="git missing")
def test_changed_files_keep_their_whole_paths(tmp_path):
    """A modified tracked file's porcelain line starts with a space (" M path"): the path must come out whole."""
    import subprocess

    repository = tmp_path / "repo"
    package = repository / "pkg"
    package.mkdir(parents=True)
    (package / "module.py").write_text("x = 1\n")
    (package / "other.py").write_text("y = 1\n")
    for command in (["init", "-q"], ["add", "."], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one"]):
        subprocess.run(["git", "-C", str(repository), *command], check=True, capture_output=True)
    (package / "module.py").write_text("x = 2\n")
    (package / "other.py").write_text("y = 2\n")
    git = provenance.git_info(package)
    assert git["dirty"] is True
    assert sorted(git["changed_files"]) == ["pkg/module.py", "pkg/other.py"]


def test_the_code_digest_names_the_code_whatever_git_says(tmp_path):
    package = tmp_path / "pkg"
    (package / "impls").mkdir(parents=True)
    (package / "impls" / "kernel.cu").write_text("__global__ void k() {}\n")
    (package / "runner.py").write_text("x = 1\n")
    first = provenance.code_digest(package)
    assert first["files"] == 2 and len(first["sha256"]) == 64

    (package / "__pycache__").mkdir()
    (package / "__pycache__" / "runner.cpython-312.py").write_text("compiled")
    (package / "notes.txt").write_text("not code")
    assert provenance.code_digest(package) == first  # caches and other files are not the code

    (package / "impls" / "kernel.cu").write_text("__global__ void k() { }\n")
    assert provenance.code_digest(package)["sha256"] != first["sha256"]  # one byte of a kernel is


def test_this_packages_digest_covers_its_kernels():
    digest = provenance.code_digest()
    kernels = list((REPO_ROOT / "sssp_bench").rglob("*.cu"))
    assert kernels and digest["files"] > len(kernels)
