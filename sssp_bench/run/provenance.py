"""Where a run ran: host, CPU, memory, GPU, package versions, the git commit of the code and a digest of it.

`collect()` goes into every run's manifest so a number in a report can be traced to the machine and the code
that produced it. It never raises: a fact it cannot find is recorded as null (with a reason where that helps),
because a missing detail must not cost the user their run.
"""

from __future__ import annotations

import copy
import datetime as _datetime
import hashlib
import importlib.metadata
import importlib.util
import os
import platform
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

PACKAGE_DIR = Path(__file__).resolve().parents[1]  # sssp_bench/: the code a run's provenance names

# Module name -> distribution names to ask importlib.metadata, in order (CuPy ships under per-CUDA names).
_PACKAGE_DISTRIBUTIONS: dict[str, tuple[str, ...]] = {
    "numpy": ("numpy",),
    "scipy": ("scipy",),
    "numba": ("numba",),
    "pandas": ("pandas",),
    "matplotlib": ("matplotlib",),
    "click": ("click",),
    "yaml": ("PyYAML", "pyyaml"),
    "cupy": ("cupy-cuda13x", "cupy-cuda12x", "cupy-cuda11x", "cupy"),
}

# Variables that change what a benchmark measures; recorded when set.
_ENVIRONMENT_VARIABLES = (
    "CUDA_VISIBLE_DEVICES",
    "CUDA_DEVICE_MAX_CONNECTIONS",  # hardware queues per context: 1 moved solves by up to 4% (gpu/early_context.py)
    "OMP_NUM_THREADS",
    "NUMBA_NUM_THREADS",
    "NUMBA_DISABLE_JIT",
    "MKL_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
)

_GIT_TIMEOUT_S = 2.0


def collect(gpu: bool = True) -> dict[str, Any]:
    """Everything known about this machine and this code, as a JSON-serialisable dict; with gpu=False, all but the
    GPU's entry (`gpu_entry()`, which waits for the driver: a run asks for it at its first graph). Never raises."""
    collected = {
        "collected_at": _guarded(lambda: _datetime.datetime.now(_datetime.timezone.utc).isoformat(timespec="seconds")),
        "host": _guarded(socket.gethostname),
        "os": _guarded(platform.platform),
        "machine": _guarded(platform.machine),
        "python": _guarded(lambda: f"{platform.python_version()} ({platform.python_implementation()})"),
        "python_executable": sys.executable or None,
        "cpu": _guarded(cpu_info, {"model": None, "logical_cores": None}),
        "memory_total_bytes": _guarded(memory_total_bytes),
        **{name: _process_probe(name) for name in PROCESS_PROBES},
        "environment": _guarded(lambda: {k: os.environ[k] for k in _ENVIRONMENT_VARIABLES if k in os.environ}, {}),
    }
    if gpu:
        collected["gpu"] = gpu_entry()
    return collected


def gpu_entry() -> dict[str, Any]:
    """The provenance's `gpu` entry: gpu_info(), or why the probe failed. Never raises."""
    return _guarded(gpu_info, {"available": False, "reason": "GPU probe failed"})


PROCESS_PROBES = ("packages", "git", "code")
"""What `collect` probes once per process (`_once`)."""


def fix_process_code() -> None:
    """Probe now, once for this process, what `collect` names once per process (a Dask worker as it starts: the
    code it imported, whatever the files on disk say later), without the GPU probe, which would wait for the CUDA
    context."""
    for name in PROCESS_PROBES:
        _process_probe(name)


def _process_probe(name: str) -> Any:
    probe, fallback = {"packages": (package_versions, {}),
                       "git": (git_info, {"commit": None, "dirty": None, "reason": "git probe failed"}),
                       "code": (code_digest, {"sha256": None, "files": 0})}[name]
    return _once(name, lambda: _guarded(probe, fallback))


_PROCESS_CODE: dict[str, Any] = {}


def _once(name: str, probe: Callable[[], Any]) -> Any:
    """Probed once per process: the packages, the code and the commit a process runs are those it imported, so a
    long-lived worker (`sssp-bench serve`) names them in every run, not what the files on disk say later; and each
    of its tasks saves the git calls and the hashing (about 60 ms a run)."""
    if name not in _PROCESS_CODE:
        _PROCESS_CODE[name] = probe()
    return copy.deepcopy(_PROCESS_CODE[name])


def gpu_status() -> tuple[bool, str]:
    """(True, "name (sm_XY, N GiB, ...)") when a CUDA GPU is usable through CuPy, else (False, why)."""
    info = _guarded(gpu_info, {"available": False, "reason": "GPU probe failed"})
    if not info.get("available"):
        return False, str(info.get("reason") or "no GPU")
    return True, describe_gpu(info)


def describe_gpu(info: dict[str, Any]) -> str:
    """One line for an available GPU's info dict, e.g. "NVIDIA H100 (sm_90, 79.1 GiB, driver 12.4, ...)"."""
    details = []
    if info.get("compute_capability"):
        details.append("sm_" + str(info["compute_capability"]).replace(".", ""))
    if info.get("memory_bytes"):
        details.append(f"{info['memory_bytes'] / 2**30:.1f} GiB")
    if info.get("driver_version"):
        details.append(f"driver {info['driver_version']}")
    if info.get("cuda_runtime_version"):
        details.append(f"CUDA runtime {info['cuda_runtime_version']}")
    if info.get("cupy_version"):
        details.append(f"CuPy {info['cupy_version']}")
    name = info.get("name") or "CUDA GPU"
    return f"{name} ({', '.join(details)})" if details else str(name)


def cpu_info() -> dict[str, Any]:
    """CPU model and logical core count."""
    return {"model": _cpu_model(), "logical_cores": os.cpu_count()}


def _cpu_model() -> str | None:
    try:
        text = Path("/proc/cpuinfo").read_text(errors="replace")
    except OSError:
        text = ""
    # x86 says "model name"; some ARM kernels only say "Hardware" or "Model".
    for key in ("model name", "Hardware", "Model", "cpu model", "Processor"):
        for line in text.splitlines():
            name, sep, value = line.partition(":")
            if sep and name.strip() == key and value.strip():
                return value.strip()
    return platform.processor() or platform.machine() or None


def memory_total_bytes() -> int | None:
    """Physical memory in bytes, from /proc/meminfo or sysconf; None when neither answers."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                value, unit = line.split()[1:3]
                return int(value) * (1024 if unit.lower() == "kb" else 1)
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):
        return None


def package_versions() -> dict[str, str | None]:
    """Installed versions of sssp_bench and what it runs on; None for one that is not installed.

    Read from package metadata, not by importing: importing numba or cupy would take seconds.
    """
    from .. import __version__

    versions: dict[str, str | None] = {"sssp_bench": __version__}
    for module, distributions in _PACKAGE_DISTRIBUTIONS.items():
        versions[module] = _distribution_version(module, distributions)
    return versions


def _distribution_version(module: str, distributions: tuple[str, ...]) -> str | None:
    for distribution in distributions:
        try:
            return importlib.metadata.version(distribution)
        except importlib.metadata.PackageNotFoundError:
            continue
        except Exception:
            break
    # Importable without metadata (e.g. a source checkout on sys.path): ask the module if it is loaded already.
    loaded = sys.modules.get(module)
    version = getattr(loaded, "__version__", None)
    return str(version) if version is not None else None


def git_info(directory: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """Commit and dirty flag of the git working tree holding `directory` (default: this package's source).

    commit/dirty are None with a reason when the code is not a tracked file of a git checkout (an installed
    wheel, git missing, a repository with no commit yet).
    """
    package_dir = Path(directory) if directory is not None else PACKAGE_DIR
    unknown: dict[str, Any] = {"commit": None, "dirty": None, "root": None}
    ok, root = _git(package_dir, "rev-parse", "--show-toplevel")
    if not ok:
        return {**unknown, "reason": root}
    # A wheel installed into a venv that happens to sit inside some repository is not that repository's code.
    ok, tracked = _git(package_dir, "ls-files", "--", ".")
    if not ok or not tracked:
        return {**unknown, "reason": f"{package_dir} is not tracked by the git repository at {root}"}
    ok, commit = _git(package_dir, "rev-parse", "HEAD")
    if not ok:
        return {**unknown, "root": root, "reason": commit}
    # Porcelain lines are "XY path" with X often a space: the output must not be stripped, or the first path
    # loses its first letter.
    ok, status = _git(package_dir, "status", "--porcelain", strip=False)
    changed = [line for line in status.splitlines() if line.strip()] if ok else []
    return {
        "commit": commit,
        "dirty": bool(changed) if ok else None,
        "root": root,
        # The first few changed paths say at a glance whether the dirt matters.
        "changed_files": [line[3:] for line in changed[:20]],
        "package_changes": package_changes(package_dir),
    }


_PACKAGE_CHANGES_LISTED = 10


def package_changes(directory: str | os.PathLike[str] | None = None) -> dict[str, Any] | None:
    """How the package's code (the files code_digest covers) differs from the commit git names: {"count": N,
    "files": the first few paths, relative to the repository's root}; count 0 when it is that commit's code.
    None when git cannot say.

    The tree's `dirty` flag is not this: a changed README or config leaves the numbers the commit's, and an
    uncommitted kernel makes them no commit's at all.
    """
    package_dir = Path(directory) if directory is not None else PACKAGE_DIR
    # -z: paths unquoted and NUL-separated, a rename's old path in its own field; every untracked file listed.
    ok, status = _git(package_dir, "status", "--porcelain", "-z", "--untracked-files=all", "--", ".", strip=False)
    if not ok:
        return None
    fields = status.split("\0")
    paths: list[str] = []
    position = 0
    while position < len(fields):
        entry = fields[position]
        position += 1
        if len(entry) < 4:
            continue
        if entry[0] in "RC":
            position += 1  # the path it was renamed or copied from
        path = entry[3:]
        if path.endswith(_CODE_SUFFIXES) and "__pycache__" not in path.split("/"):
            paths.append(path)
    return {"count": len(paths), "files": paths[:_PACKAGE_CHANGES_LISTED]}


_CODE_SUFFIXES = (".py", ".cu", ".cuh", ".yaml")


def code_digest(directory: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """SHA-256 over the package's source files (relative path and bytes of every .py, .cu, .cuh and .yaml).

    Two runs with the same digest ran the same code, whatever git says: a "dirty" commit, a copy of a working
    tree whose .git is older than its files (as on a device machine), or no git at all.
    """
    package_dir = Path(directory) if directory is not None else PACKAGE_DIR
    paths = sorted(
        path for path in package_dir.rglob("*")
        if path.suffix in _CODE_SUFFIXES and path.is_file() and "__pycache__" not in path.parts
    )
    digest = hashlib.sha256()
    for path in paths:
        relative = path.relative_to(package_dir).as_posix().encode()
        content = path.read_bytes()
        # Lengths first, so that no two different trees can hash the same byte stream.
        digest.update(len(relative).to_bytes(8, "little") + relative + len(content).to_bytes(8, "little"))
        digest.update(content)
    return {"sha256": digest.hexdigest(), "files": len(paths)}


def _git(directory: Path, *args: str, strip: bool = True) -> tuple[bool, str]:
    """(True, stdout, stripped unless `strip` is false) or (False, why) for `git -C directory args...`."""
    # No optional locks: `git status` must not take index.lock while others work in the same tree.
    environment = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"}
    try:
        completed = subprocess.run(
            ["git", "-C", str(directory), *args],
            capture_output=True,
            text=True,
            timeout=_GIT_TIMEOUT_S,
            env=environment,
            stdin=subprocess.DEVNULL,
        )
    except FileNotFoundError:
        return False, "git is not installed"
    except subprocess.TimeoutExpired:
        return False, f"git {args[0]} took more than {_GIT_TIMEOUT_S:g} s"
    except OSError as error:
        return False, f"git could not run: {error}"
    if completed.returncode != 0:
        first_line = (completed.stderr.strip().splitlines() or [f"exit status {completed.returncode}"])[0]
        return False, f"git {args[0]}: {first_line}"
    return True, completed.stdout.strip() if strip else completed.stdout


def gpu_info() -> dict[str, Any]:
    """The current CUDA device as CuPy sees it, or {"available": False, "reason": ...}."""
    # find_spec first: on a machine without CuPy this answers in microseconds instead of a failed import.
    try:
        if importlib.util.find_spec("cupy") is None:
            return {"available": False, "reason": "CuPy not installed (pip install 'sssp-bench[gpu]')"}
    except (ImportError, ValueError) as error:
        return {"available": False, "reason": f"CuPy not importable: {error}"}
    try:
        import cupy
    except Exception as error:  # a broken CUDA install raises all kinds of errors at import
        return {"available": False, "reason": f"CuPy failed to import: {_one_line(error)}"}
    try:
        runtime = cupy.cuda.runtime
        device_count = runtime.getDeviceCount()
    except Exception as error:
        return {"available": False, "reason": f"no CUDA device: {_one_line(error)}"}
    if device_count < 1:
        return {"available": False, "reason": "no CUDA device (CuPy sees 0 devices)"}
    try:
        device_index = cupy.cuda.runtime.getDevice()
        properties = runtime.getDeviceProperties(device_index)
        name = properties.get("name", b"")
        name = name.decode(errors="replace") if isinstance(name, bytes) else str(name)
        info: dict[str, Any] = {
            "available": True,
            "name": name or None,
            "device_index": int(device_index),
            "device_count": int(device_count),
            "compute_capability": f"{properties.get('major')}.{properties.get('minor')}",
            "memory_bytes": _int_or_none(properties.get("totalGlobalMem")),
            "multiprocessors": _int_or_none(properties.get("multiProcessorCount")),
            "cupy_version": str(cupy.__version__),
        }
    except Exception as error:
        return {"available": False, "reason": f"CUDA device not usable: {_one_line(error)}"}
    # Which GPU of the host, so a measurement kept between processes (device_cache.py) is this GPU's.
    info["uuid"] = _guarded(lambda: _uuid_text(properties.get("uuid")))
    info["pci_bus_id"] = _guarded(lambda: _pci_text(properties))
    # Versions are nice to have; a failure here leaves the device usable.
    info["driver_version"] = _guarded(lambda: _cuda_version(runtime.driverGetVersion()))
    info["cuda_runtime_version"] = _guarded(lambda: _cuda_version(runtime.runtimeGetVersion()))
    return info


def _uuid_text(raw: Any) -> str | None:
    """CUDA's 16-byte device UUID as nvidia-smi writes it ("GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx")."""
    if not isinstance(raw, (bytes, bytearray)) or len(raw) != 16:
        return None
    text = bytes(raw).hex()
    return f"GPU-{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"


def _pci_text(properties: dict[str, Any]) -> str | None:
    """The device's PCI address, domain:bus:device ("0000:1b:00"), where CuPy reports it."""
    if properties.get("pciBusID") is None:
        return None
    return f"{int(properties.get('pciDomainID') or 0):04x}:{int(properties['pciBusID']):02x}:" \
           f"{int(properties.get('pciDeviceID') or 0):02x}"


def _cuda_version(encoded: int) -> str:
    """CUDA's 1000*major + 10*minor encoding (12040) as "12.4"."""
    return f"{encoded // 1000}.{(encoded % 1000) // 10}"


def _int_or_none(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _one_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0]}" if text else type(error).__name__


def _guarded(probe, fallback: Any = None) -> Any:
    """probe() or fallback when it raises: provenance must never cost the user their run."""
    try:
        return probe()
    except Exception:
        return fallback
