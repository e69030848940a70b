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
    monkeypatch.setattr(provenance, "_PROCESS_CODE", {})  # as in a fresh process
    info = provenance.collect()
    assert info["os"] is None
    assert info["git"]["commit"] is None


def test_a_process_names_the_code_it_imported_in_every_run(monkeypatch):
    calls = []
    monkeypatch.setattr(provenance, "_PROCESS_CODE", {})
    monkeypatch.setattr(provenance, "git_info", lambda: calls.append("git") or {"commit": "abc", "dirty": False})
    first = provenance.collect()
    monkeypatch.setattr(provenance, "git_info", lambda: {"commit": "later", "dirty": True})  # files changed on disk
    second = provenance.collect()
    assert calls == ["git"] and first["git"] == second["git"] == {"commit": "abc", "dirty": False}
    second["git"]["commit"] = "edited"  # a run's manifest is its own copy
    assert provenance.collect()["git"]["commit"] == "abc"


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


def _git(repository, *args):
    import subprocess

    subprocess.run(["git", "-C", str(repository), "-c", "user.name=t", "-c", "user.email=t@t", *args], check=True,
                   capture_output=True)


@pytest.mark.skipif(shutil.which("git") is None, reason="git missing")
def test_package_changes_are_the_package_code_that_differs_from_the_commit_not_the_whole_tree(tmp_path):
    repository = tmp_path / "repo"
    package = repository / "pkg"
    (package / "impls").mkdir(parents=True)
    for name, text in [("module.py", "x = 1\n"), ("impls/kernel.cu", "__global__ void k() {}\n"),
                       ("notes.md", "notes\n"), ("../README.md", "readme\n")]:
        (package / name).write_text(text)
    _git(repository, "init", "-q")
    _git(repository, "add", ".")
    _git(repository, "commit", "-qm", "one")
    assert provenance.git_info(package)["package_changes"] == {"count": 0, "files": []}

    (repository / "README.md").write_text("readme, edited\n")  # dirt outside the package
    (package / "notes.md").write_text("notes, edited\n")       # and inside it, but not code
    git = provenance.git_info(package)
    assert git["dirty"] is True and git["package_changes"] == {"count": 0, "files": []}

    (package / "impls" / "kernel.cu").write_text("__global__ void k() { }\n")
    (package / "new dir").mkdir()
    (package / "new dir" / "fresh.py").write_text("y = 2\n")  # untracked, in an untracked folder, a space in its name
    _git(repository, "mv", "pkg/module.py", "pkg/renamed.py")
    changes = provenance.git_info(package)["package_changes"]
    assert changes["count"] == 3
    assert sorted(changes["files"]) == ["pkg/impls/kernel.cu", "pkg/new dir/fresh.py", "pkg/renamed.py"]


def test_package_changes_list_a_few_files_and_count_them_all(tmp_path):
    repository = tmp_path / "repo"
    package = repository / "pkg"
    package.mkdir(parents=True)
    _git(repository, "init", "-q")
    (package / "keep.txt").write_text("x")
    _git(repository, "add", ".")
    _git(repository, "commit", "-qm", "one")
    for index in range(14):
        (package / f"m{index:02d}.py").write_text("")
    changes = provenance.package_changes(package)
    assert changes["count"] == 14 and len(changes["files"]) == 10


def test_package_changes_outside_git_are_unknown(tmp_path):
    assert provenance.package_changes(tmp_path) is None


def _provenance_code_row(tmp_path, git):
    """The Provenance section's "code" row of a run whose manifest records `git` and code digest abc...."""
    from runs import manifest, solve, write_run
    from sssp_bench.report import build_report, render_markdown

    run_manifest = manifest("r1")
    run_manifest["provenance"]["git"] = git
    run_manifest["provenance"]["code"] = {"sha256": "abcdef0123456789" * 4, "files": 3}
    run = write_run(tmp_path / "r1", run_manifest, [solve("g1", "cpu-dijkstra", 0.01)])
    (row,) = [line for line in render_markdown(build_report(run)).splitlines() if line.startswith("| code |")]
    return row


COMMIT = "0123456789abcdef0123456789abcdef01234567"


@pytest.mark.parametrize("git, row", [
    ({"commit": COMMIT, "dirty": True, "package_changes": {"count": 0, "files": []}},
     "| code | committed: the package code of commit 0123456789ab |"),
    ({"commit": COMMIT, "dirty": True,
      "package_changes": {"count": 2, "files": ["sssp_bench/impls/hbf.cu", "sssp_bench/run/runner.py"]}},
     "| code | uncommitted changes to 2 package files (sssp_bench/impls/hbf.cu, sssp_bench/run/runner.py) on top of "
     "commit 0123456789ab: these numbers are not from any commit; code digest abcdef012345 names the code |"),
    ({"commit": COMMIT, "dirty": True, "package_changes": {"count": 12, "files": [f"f{i}.py" for i in range(10)]}},
     "| code | uncommitted changes to 12 package files (f0.py, f1.py, f2.py, f3.py, f4.py, f5.py, f6.py, f7.py, "
     "f8.py, f9.py, ...) on top of commit 0123456789ab: these numbers are not from any commit; code digest "
     "abcdef012345 names the code |"),
    ({"commit": COMMIT, "dirty": True, "package_changes": None},
     "| code | unknown (git status failed); code digest abcdef012345 |"),
    ({"commit": None, "dirty": None, "reason": "git is not installed"},
     "| code | unknown (no git: git is not installed); code digest abcdef012345 |"),
    ({"commit": COMMIT, "dirty": True},  # a manifest written before the package's changes were recorded
     "| code | not recorded |"),
])
def test_the_reports_provenance_says_plainly_whether_the_code_was_a_commits(tmp_path, git, row):
    assert _provenance_code_row(tmp_path, git) == row


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
