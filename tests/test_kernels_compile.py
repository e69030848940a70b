"""Every kernel compiles for sm_90 without a GPU (CI): nvcc on each .cu and header, and on the self-contained
source that NVRTC gets on the device (headers expanded by sssp_bench.gpu.runtime). Skipped without nvcc."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from sssp_bench.gpu.runtime import COMPILE_OPTIONS, GPU_DIR, module_source

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "sssp_bench"
IMPLS = PACKAGE / "impls"
CU_FILES = sorted(PACKAGE.glob("**/*.cu"))
HEADERS = sorted(PACKAGE.glob("**/*.cuh"))
ARCH = "sm_90"

nvcc = shutil.which("nvcc")
needs_nvcc = pytest.mark.skipif(nvcc is None, reason="nvcc not on PATH")


def compile_cubin(source: Path, out: Path, *extra: str) -> None:
    command = [nvcc, f"-arch={ARCH}", *COMPILE_OPTIONS, "--cubin", "-I", str(GPU_DIR), *extra, "-o", str(out),
               str(source)]
    completed = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, f"{' '.join(command)}\n{completed.stdout}\n{completed.stderr}"
    assert out.stat().st_size > 0


def test_there_are_kernels_to_compile():
    assert {path.name for path in CU_FILES} >= {"lonestar.cu", "bf_edge.cu", "bf_frontier.cu", "certificate.cu",
                                                "roofline.cu"}
    assert (GPU_DIR / "common.cuh").is_file()


@needs_nvcc
@pytest.mark.parametrize("cu_file", CU_FILES, ids=lambda path: path.name)
def test_each_cu_file_compiles_with_nvcc(cu_file, tmp_path):
    compile_cubin(cu_file, tmp_path / f"{cu_file.stem}.cubin")


@needs_nvcc
@pytest.mark.parametrize("cu_file", CU_FILES, ids=lambda path: path.name)
def test_the_expanded_nvrtc_source_compiles_on_its_own(cu_file, tmp_path):
    source, _ = module_source(cu_file)
    assert "#include \"" not in source
    expanded = tmp_path / f"{cu_file.stem}.expanded.cu"
    expanded.write_text(source)
    command = [nvcc, f"-arch={ARCH}", *COMPILE_OPTIONS, "--cubin", "-o", str(tmp_path / "x.cubin"), str(expanded)]
    completed = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, completed.stderr


@needs_nvcc
@pytest.mark.parametrize("header", HEADERS, ids=lambda path: path.name)
def test_each_header_compiles_on_its_own(header, tmp_path):
    compile_cubin(header, tmp_path / f"{header.stem}.cubin", "-x", "cu")


@pytest.mark.parametrize("cu_file", CU_FILES, ids=lambda path: path.name)
def test_every_kernel_the_python_side_looks_up_is_defined_extern_c(cu_file):
    """The names a module passes to `function("...")` exist as extern "C" kernels in its source (headers too), and
    the kernel template instances it names (`"kernel<true, false>"`, NVRTC name expressions) as kernel templates."""
    source, _ = module_source(cu_file)
    defined = set(re.findall(r'extern\s+"C"\s+__global__\s+void\s+(?:__cluster_dims__\([^)]*\)\s+)?'
                             r'(?:__launch_bounds__\([^)]*\)\s+)?(\w+)', source))
    module = cu_file.with_suffix(".py")
    templates = set(re.findall(r"template\s*<[^>]*>\s*__global__\s+void\s+(?:__launch_bounds__\([^)]*\)\s+)?(\w+)\(",
                               source))
    instances = set(re.findall(r'"(\w+)<[\w, ]+>"', module.read_text()))
    assert instances <= templates, f"{module.name} names {sorted(instances - templates)}, not templates in {cu_file.name}"
    wanted = set(re.findall(r'function\("(\w+)"\)', module.read_text()))
    if cu_file.parent == IMPLS:  # the GPU implementations also look up the kernels of the base classes they use
        bases = {"gpu_common", *re.findall(r"^from \.(gpu_\w*common) import", module.read_text(), flags=re.MULTILINE)}
        for base in bases:
            wanted |= set(re.findall(r'function\("(\w+)"\)', (IMPLS / f"{base}.py").read_text()))
    assert wanted and wanted <= defined, f"{module.name} looks up {sorted(wanted - defined)} not in {cu_file.name}"
