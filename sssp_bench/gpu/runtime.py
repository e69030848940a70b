"""The CuPy kernel runtime every GPU implementation shares.

- CuPy is imported lazily (`cupy_module()`), so the package imports and CPU runs work without it;
  `gpu_status()` gives `(ok, reason)` for `Implementation.available()`.
- `load_module(cu_path)` compiles a `.cu` file (kept beside its implementation) through `cupy.RawModule`
  (NVRTC), for the current device's architecture (`-arch=sm_XY` from its compute capability), once per device.
  Local `#include "..."` lines are expanded into the source first (the file's own folder, then this folder,
  where the shared headers live: `common.cuh`, the queues and load-balanced advance of `queue.cuh` and
  `advance.cuh`, `arcs.cuh`, and the BFS kernels' `bfs_common.cuh` and `bfs_sweep.cuh`), so the source NVRTC sees,
  this module's in-memory cache key and CuPy's on-disk cache key all cover every header: editing a header
  recompiles every kernel that includes it.
- `launch(kernel, grid, block, args)` refuses plain Python numbers (scalars must be explicit numpy types, so
  a kernel's `int` and `long long` parameters get exactly 4 and 8 bytes) and turns a failed launch into a
  `KernelLaunchError` naming the kernel and its configuration. Faults inside a kernel surface at the next
  synchronisation (every solve loop reads its flags back once per round, which checks each round); set
  SSSP_BENCH_GPU_SYNC_CHECK=1 to synchronise after every launch and pin a fault on the launch that caused it.
- `DeviceGraph` / `device_graph(graph)`: the CSR uploaded once per graph and shared by every implementation
  and source; a one-entry cache keyed on the host graph object's identity, which the runner empties with
  `release_device_graphs()` when it moves to the next graph.
- `estimate_device_bytes` / `require_device_memory`: a graph that would not fit is refused before anything is
  allocated, with a `DeviceMemoryError` (a `MemoryError`, so the runner records `out_of_memory`) giving the
  bytes needed and free.
- `record_event` / `elapsed_seconds`: CUDA events on the current stream, for the runner's solve timing.

Device distances are int64 (`long long`) with `DIST_INF` = INT64_MAX as the "unreached" sentinel; see
`common.cuh` for why int64 and how a negative cycle is caught before it could overflow.
"""

from __future__ import annotations

import hashlib
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from ..graph.csr import CSRGraph

GPU_DIR = Path(__file__).resolve().parent
"""Where the shared headers (common.cuh, queue.cuh, advance.cuh, ...) live; searched after the including file's own
folder."""

COMPILE_OPTIONS: tuple[str, ...] = ("--std=c++17",)
"""Options every kernel is compiled with, by NVRTC on the device and by nvcc in the CI compile check."""

DIST_INF = int(np.iinfo(np.int64).max)
"""The "unreached" sentinel of device distance arrays (int64), = DIST_INF in common.cuh."""

DIST_FLOOR = -(2**62)
"""Candidate distances are clamped here (= DIST_FLOOR in common.cuh); reaching it proves a negative cycle."""

SYNC_CHECK_ENV = "SSSP_BENCH_GPU_SYNC_CHECK"
MEMORY_HEADROOM_BYTES = 64 << 20
"""Kept free beyond the estimate: CuPy's scans, the CUDA context's own allocations, rounding in the pool."""


class GpuUnavailableError(RuntimeError):
    """CuPy or a CUDA GPU is missing; the message says which and why."""


class KernelLaunchError(RuntimeError):
    """A kernel launch failed (bad configuration, a fault from an earlier launch, ...)."""


class DeviceMemoryError(MemoryError):
    """A graph (and an implementation's working arrays) would not fit in the device's free memory."""

    def __init__(self, who: str, needed: int, free: int, total: int | None = None, detail: str = ""):
        self.who, self.needed, self.free, self.total = who, int(needed), int(free), total
        of_total = f" of {_gib(total)}" if total else ""
        extra = f" ({detail})" if detail else ""
        prefix = f"{who}: " if who else ""
        super().__init__(f"{prefix}needs {_gib(needed)} on the device{extra}, but only {_gib(free)}{of_total} is free")


def _gib(nbytes: int | None) -> str:
    return "?" if nbytes is None else f"{nbytes / 2**30:.2f} GiB"


# ---------------------------------------------------------------------------------------------------------------
# CuPy, lazily
# ---------------------------------------------------------------------------------------------------------------

_cupy: Any = None
_status: tuple[bool, str] | None = None


def gpu_status(refresh: bool = False) -> tuple[bool, str]:
    """(True, "device description") when CuPy and a CUDA GPU are usable here, else (False, why). Cached."""
    global _status
    if _status is None or refresh:
        from ..run.provenance import gpu_status as probe

        try:
            _status = probe()
        except Exception as error:  # the probe is guarded, but availability must never raise
            _status = (False, f"GPU probe failed: {type(error).__name__}: {error}")
    return _status


def cupy_module():
    """The cupy module, imported on first use; GpuUnavailableError (with the reason) where it cannot work."""
    global _cupy
    if _cupy is None:
        ok, reason = gpu_status()
        if not ok:
            raise GpuUnavailableError(reason)
        import cupy

        _cupy = cupy
    return _cupy


def import_cupy() -> None:
    """Import CuPy (a few tenths of a second), making no CUDA call: a run does it while the driver makes its context
    (runner.py). Any failure is left to gpu_status() to word, at the run's first GPU use."""
    try:
        import cupy  # noqa: F401
    except Exception:  # noqa: BLE001 - a missing or broken CuPy is reported by gpu_status()
        pass


_attributes: dict[int, dict[str, int]] = {}


def device_attributes() -> dict[str, int]:
    """The current device's attributes CuPy reports (MultiProcessorCount, MaxThreadsPerMultiProcessor, ...)."""
    cp = cupy_module()
    device = cp.cuda.Device()
    if device.id not in _attributes:
        _attributes[device.id] = dict(device.attributes)
    return _attributes[device.id]


def resident_grid(kernel, block: int, shared_mem: int = 0) -> int:
    """Blocks of `block` threads of `kernel` the whole device holds at once (its occupancy x SMs): one wave."""
    per_sm = cupy_module().cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(kernel.kernel.ptr, block, shared_mem)
    return max(1, int(per_sm)) * int(device_attributes().get("MultiProcessorCount", 1))


def resident_threads() -> int:
    """Threads the whole device holds at once (SMs x max threads per SM): one full wave."""
    attributes = device_attributes()
    return int(attributes.get("MultiProcessorCount", 1)) * int(attributes.get("MaxThreadsPerMultiProcessor", 1024))


# ---------------------------------------------------------------------------------------------------------------
# Compiling .cu files
# ---------------------------------------------------------------------------------------------------------------

_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"')


def module_source(cu_path: str | os.PathLike, include_dirs: Sequence[str | os.PathLike] = ()) -> tuple[str, str]:
    """(self-contained source, sha256 hex digest) of a .cu file with its local `#include "..."` lines expanded.

    Each header is expanded once (as include guards would), with `#line` directives so compiler messages name
    the real file and line. `#include <...>` lines are left to the compiler. A header not found in the
    including file's folder, `include_dirs` or this package folder is a FileNotFoundError naming the searched
    folders.
    """
    cu_path = Path(cu_path).resolve()
    search = [Path(folder).resolve() for folder in include_dirs] + [GPU_DIR]
    expanded: set[Path] = set()

    def expand(path: Path) -> str:
        lines = [f'#line 1 "{path.name}"']
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            match = _INCLUDE.match(line)
            if not match:
                lines.append(line)
                continue
            header = _find_header(match.group(1), [path.parent, *search], path, number)
            if header not in expanded:
                expanded.add(header)
                lines.append(expand(header))
            lines.append(f'#line {number + 1} "{path.name}"')
        return "\n".join(lines)

    source = expand(cu_path) + "\n"
    return source, hashlib.sha256(source.encode("utf-8")).hexdigest()


def _find_header(name: str, folders: list[Path], including: Path, line: int) -> Path:
    for folder in folders:
        candidate = (folder / name).resolve()
        if candidate.is_file():
            return candidate
    searched = ", ".join(str(folder) for folder in folders)
    raise FileNotFoundError(f"{including}:{line}: #include \"{name}\" not found (searched {searched})")


def arch_option(cp, compute_capability: str) -> tuple[tuple[str, ...], str]:
    """(options to add, the architecture the compile targets) for the current device.

    CuPy's NVRTC path appends its own `-arch` for the current device: `-arch=sm_XY` (a cubin), or
    `-arch=compute_XY` (PTX) when told to emit PTX or when NVRTC is older than the device. Rather than a second,
    possibly conflicting `-arch`, ours (`-arch=sm_XY` from the compute capability) is passed only where CuPy adds
    none; the second value says what the module is really built for (recorded in `CompiledModule.arch`).
    """
    wanted = f"sm_{compute_capability}"
    chooser = getattr(getattr(cp.cuda, "compiler", None), "_get_arch_for_options_for_nvrtc", None)
    if chooser is None:
        return (f"-arch={wanted}",), wanted
    try:
        chosen = chooser()
    except Exception:
        return (f"-arch={wanted}",), wanted
    option = chosen[0] if isinstance(chosen, tuple) else chosen
    if isinstance(option, str) and option.startswith("-arch="):
        return (), option[len("-arch="):]
    return (f"-arch={wanted}",), wanted


@dataclass
class CompiledModule:
    """A compiled RawModule with what it was built from (for manifests and error messages).

    `arch`: what NVRTC compiled for, e.g. "sm_90" (a cubin for the device) or "compute_90" (PTX the driver
    finishes), as CuPy chose it.
    """

    raw: Any
    path: Path
    digest: str
    options: tuple[str, ...]
    arch: str
    compile_s: float
    kernels: dict[str, Any] = field(default_factory=dict)

    def function(self, name: str):
        """The kernel `name` (an extern "C" name or one of the module's name_expressions), looked up once."""
        if name not in self.kernels:
            self.kernels[name] = self.raw.get_function(name)
        return self.kernels[name]


_modules: dict[tuple, CompiledModule] = {}


def load_module(cu_path: str | os.PathLike, name_expressions: Sequence[str] = (),
                options: Sequence[str] = ()) -> CompiledModule:
    """Compile `cu_path` for the current device once (cached per device, source digest and options)."""
    cp = cupy_module()
    source, digest = module_source(cu_path)
    device = cp.cuda.Device()
    compute_capability = str(device.compute_capability)
    arch_options, arch = arch_option(cp, compute_capability)
    all_options = (*COMPILE_OPTIONS, *options, *arch_options)
    key = (device.id, digest, all_options, tuple(name_expressions))
    if key not in _modules:
        started = time.perf_counter()
        raw = cp.RawModule(code=source, options=all_options, name_expressions=tuple(name_expressions) or None)
        if hasattr(raw, "compile"):
            raw.compile()  # now, in prepare, not lazily inside the first timed solve
        _modules[key] = CompiledModule(raw, Path(cu_path), digest, all_options, arch, time.perf_counter() - started)
    return _modules[key]


# ---------------------------------------------------------------------------------------------------------------
# Launching
# ---------------------------------------------------------------------------------------------------------------


def _dims(value) -> tuple[int, int, int]:
    if isinstance(value, (int, np.integer)):
        value = (int(value),)
    dims = tuple(int(v) for v in value)
    if not 1 <= len(dims) <= 3 or any(v < 0 for v in dims):
        raise ValueError(f"grid/block must be 1 to 3 non-negative sizes, got {value!r}")
    return dims + (1,) * (3 - len(dims))


def launch(kernel, grid, block, args: Sequence[Any], shared_mem: int = 0) -> None:
    """Launch `kernel<<<grid, block, shared_mem>>>(*args)` on the current stream, checked.

    Every scalar argument must be a numpy scalar of the kernel parameter's exact type (np.int32 for `int`,
    np.int64 for `long long`, ...); a plain Python bool/int/float is refused, since CuPy would guess its size.
    An empty grid launches nothing.
    """
    name = getattr(kernel, "name", None) or getattr(kernel, "__name__", "kernel")
    _check_scalars(name, args)
    grid_dims, block_dims = _dims(grid), _dims(block)
    if 0 in grid_dims:
        return
    if 0 in block_dims:
        raise ValueError(f"{name}: empty block {block_dims}")
    try:
        kernel(grid_dims, block_dims, tuple(args), shared_mem=int(shared_mem))
    except Exception as error:
        raise KernelLaunchError(f"{name}<<<{grid_dims}, {block_dims}, {shared_mem}>>> failed: {error}") from error
    if os.environ.get(SYNC_CHECK_ENV):
        try:
            cupy_module().cuda.get_current_stream().synchronize()
        except Exception as error:
            raise KernelLaunchError(f"{name}<<<{grid_dims}, {block_dims}>>> faulted: {error}") from error


def _check_scalars(name: str, args: Sequence[Any]) -> None:
    for index, value in enumerate(args):
        if isinstance(value, (bool, int, float, complex)):
            raise TypeError(
                f"{name}: argument {index} is a Python {type(value).__name__} ({value!r}); pass an explicit numpy "
                f"scalar (np.int32, np.int64, np.float32, ...) matching the kernel's parameter"
            )


def captured_launch(kernel, grid, block, args: Sequence[Any], shared_mem: int = 0) -> None:
    """A launch recorded into a CUDA graph during stream capture, checked like `launch` (numpy scalars only, a
    failure raised as KernelLaunchError naming the kernel) but never synchronised, which capture forbids:
    faults surface at the replay (at once under SSSP_BENCH_GPU_SYNC_CHECK, see BatchGraphs.replay)."""
    name = getattr(kernel, "name", None) or getattr(kernel, "__name__", "kernel")
    _check_scalars(name, args)
    try:
        kernel(_dims(grid), _dims(block), tuple(args), shared_mem=int(shared_mem))
    except Exception as error:
        raise KernelLaunchError(f"{name}<<<{grid}, {block}>>> failed while capturing: {error}") from error


class BatchGraphs:
    """CUDA graphs of batches of solve rounds, captured once in prepare and replayed per batch.

    A Python launch costs about 15 us (measured on an H200), more than a small round's kernels, so the
    implementations that drive their rounds from the device (each round reads its work from the status words)
    record `size` rounds per graph and the host replays a batch with one call. Empty (falsy) until captured.
    """

    def __init__(self, who: str) -> None:
        self.who = who
        self.graphs: dict[int, Any] = {}

    def __bool__(self) -> bool:
        return bool(self.graphs)

    def capture(self, sizes: Sequence[int], record: Any) -> None:
        """One graph per batch size: `record(size)` makes the captured_launch calls of `size` rounds."""
        cp = cupy_module()
        stream = cp.cuda.Stream(non_blocking=True)
        with stream:
            for size in sizes:
                stream.begin_capture()
                try:
                    record(size)
                finally:
                    graph = stream.end_capture()
                self.graphs[size] = graph
        stream.synchronize()

    def replay(self, size: int) -> None:
        """The graph of `size` rounds on the current stream, checked (and synchronised under SYNC_CHECK_ENV)."""
        cp = cupy_module()
        try:
            self.graphs[size].launch(stream=cp.cuda.get_current_stream())
        except Exception as error:
            raise KernelLaunchError(f"{self.who}: replaying a graph of {size} rounds failed: {error}") from error
        if os.environ.get(SYNC_CHECK_ENV):
            try:
                cp.cuda.get_current_stream().synchronize()
            except Exception as error:
                raise KernelLaunchError(f"{self.who}: a graph of {size} rounds faulted: {error}") from error

def blocks_for(items: int, block: int, cap: int | None = None) -> int:
    """ceil(items / block) blocks, at most `cap` (for grid-stride loops), at least 1 when items > 0."""
    blocks = -(-int(items) // int(block))
    return max(1, min(blocks, cap)) if cap is not None and blocks > 0 else blocks


def stride_grid(kernel, items: int, block: int, cap: int = 4096) -> int:
    """A grid-stride kernel's grid for `items`: blocks_for(items, block, cap), and at most one resident wave. A
    kernel of a module compiled for cooperative launch is launched cooperatively, every block resident, and CuPy
    would cut a larger grid to one wave with a warning in every run's log."""
    return min(blocks_for(items, block, cap), resident_grid(kernel, block))


class HostReadback:
    """A small device array read back into pinned host memory: the one synchronisation of each solve round."""

    def __init__(self, device_array):
        cp = cupy_module()
        self.device = device_array
        self._memory = cp.cuda.alloc_pinned_memory(max(device_array.nbytes, 1))
        self.host = np.frombuffer(self._memory, device_array.dtype, device_array.size)

    def read(self) -> np.ndarray:
        """Copy on the current stream and wait for it; returns the (reused) host array."""
        self.device.get(out=self.host, stream=cupy_module().cuda.get_current_stream())
        cupy_module().cuda.get_current_stream().synchronize()
        return self.host


# ---------------------------------------------------------------------------------------------------------------
# Timing
# ---------------------------------------------------------------------------------------------------------------


def record_event():
    """A CUDA event recorded now on the current stream."""
    event = cupy_module().cuda.Event()
    event.record()
    return event


def elapsed_seconds(start, end) -> float:
    """Seconds between two recorded events (waits for `end`)."""
    end.synchronize()
    return cupy_module().cuda.get_elapsed_time(start, end) / 1e3


# ---------------------------------------------------------------------------------------------------------------
# The graph on the device
# ---------------------------------------------------------------------------------------------------------------


def graph_device_bytes(graph: CSRGraph) -> int:
    """Bytes of the device CSR: int64 row offsets, int32 column ids, int32/float32 weights when weighted."""
    return 8 * (graph.n + 1) + 4 * graph.m + (4 * graph.m if graph.weights is not None else 0)


def estimate_device_bytes(graph: CSRGraph, per_vertex_bytes: int = 0, per_arc_bytes: int = 0,
                          include_graph: bool = True) -> int:
    """Device bytes a solve on `graph` needs: the CSR (unless already resident) plus per-vertex and per-arc arrays."""
    extra = int(per_vertex_bytes) * graph.n + int(per_arc_bytes) * graph.m
    return extra + (graph_device_bytes(graph) if include_graph else 0)


def free_device_bytes() -> tuple[int, int]:
    """(free, total) device bytes, counting blocks CuPy's pool holds but does not use as free."""
    cp = cupy_module()
    free, total = cp.cuda.runtime.memGetInfo()
    pool = cp.get_default_memory_pool()
    return int(free) + int(pool.free_bytes()), int(total)


def require_device_memory(graph: CSRGraph, per_vertex_bytes: int = 0, per_arc_bytes: int = 0, who: str = "",
                          include_graph: bool | None = None) -> int:
    """Raise DeviceMemoryError unless the estimate fits in free device memory; returns the estimate.

    include_graph None: count the CSR unless this graph is already resident (in the `device_graph` cache).
    """
    if include_graph is None:
        include_graph = _cached(graph) is None
    needed = estimate_device_bytes(graph, per_vertex_bytes, per_arc_bytes, include_graph)
    free, total = free_device_bytes()
    if needed + MEMORY_HEADROOM_BYTES > free:
        graph_part = f"graph CSR {_gib(graph_device_bytes(graph))}, " if include_graph else "graph already resident, "
        detail = (f"{graph_part}{per_vertex_bytes} B/vertex x {graph.n} + {per_arc_bytes} B/arc x {graph.m}, "
                  f"plus {_gib(MEMORY_HEADROOM_BYTES)} headroom")
        raise DeviceMemoryError(who, needed + MEMORY_HEADROOM_BYTES, free, total, detail)
    return needed


@dataclass(eq=False)
class DeviceGraph:
    """A CSRGraph's arrays on the device, shared by every implementation and source of a graph.

    `weights` is int32 or float32 [m]; for an unweighted graph it is a 1-entry dummy and `unit_weights` is True
    (kernels take the flag and never read the dummy). Arrays are never empty (a 1-entry dummy when m == 0), so
    kernels always get a valid pointer.
    """

    host: CSRGraph
    row_offsets: Any
    column_ids: Any
    weights: Any
    unit_weights: bool
    device_id: int
    upload_s: float

    @property
    def n(self) -> int:
        return self.host.n

    @property
    def m(self) -> int:
        return self.host.m

    @property
    def float_weights(self) -> bool:
        return not self.unit_weights and self.weights.dtype.kind == "f"

    @property
    def nbytes(self) -> int:
        return int(self.row_offsets.nbytes + self.column_ids.nbytes + self.weights.nbytes)

    @classmethod
    def upload(cls, graph: CSRGraph) -> "DeviceGraph":
        cp = cupy_module()
        started = time.perf_counter()
        row_offsets = cp.asarray(np.ascontiguousarray(graph.row_offsets, dtype=np.int64))
        columns = np.ascontiguousarray(graph.column_ids, dtype=np.int32)
        column_ids = cp.asarray(columns if len(columns) else np.zeros(1, np.int32))
        if graph.weights is None:
            weights, unit = cp.zeros(1, dtype=np.int32), True
        else:
            host_weights = np.ascontiguousarray(graph.weights)
            dtype = np.float32 if host_weights.dtype.kind == "f" else np.int32
            host_weights = np.ascontiguousarray(host_weights, dtype=dtype)
            weights, unit = cp.asarray(host_weights if len(host_weights) else np.zeros(1, dtype)), False
        cp.cuda.get_current_stream().synchronize()
        return cls(graph, row_offsets, column_ids, weights, unit, cp.cuda.Device().id, time.perf_counter() - started)


_graph_cache: dict[tuple[int, int], DeviceGraph] = {}
"""(id(host graph), device id) -> DeviceGraph. The entry holds the host graph, so its id cannot be reused."""


def _cached(graph: CSRGraph) -> DeviceGraph | None:
    if _cupy is None:
        return None
    entry = _graph_cache.get((id(graph), _cupy.cuda.Device().id))
    return entry if entry is not None and entry.host is graph else None


def device_graph(graph: CSRGraph, per_vertex_bytes: int = 0, per_arc_bytes: int = 0, who: str = "") -> DeviceGraph:
    """The device copy of `graph`, uploaded on first use; checks first that it and the caller's arrays fit.

    One graph is kept at a time: asking for another graph drops the cached one (implementations that still
    hold its arrays keep them alive until their teardown).
    """
    cached = _cached(graph)
    if cached is not None:
        require_device_memory(graph, per_vertex_bytes, per_arc_bytes, who, include_graph=False)
        return cached
    release_device_graphs()
    require_device_memory(graph, per_vertex_bytes, per_arc_bytes, who, include_graph=True)
    uploaded = DeviceGraph.upload(graph)
    _graph_cache[(id(graph), uploaded.device_id)] = uploaded
    return uploaded


def device_used_fraction() -> float:
    """The current device's memory in use (free_device_bytes: pool blocks held but unused count as free) over its
    total; 0 where this process never loaded CuPy (nothing of it is on a device)."""
    if _cupy is None:
        return 0.0
    free, total = free_device_bytes()
    return 1.0 - free / total if total else 0.0


def release_device_graphs() -> None:
    """Drop every cached device graph and return CuPy's unused pool blocks to the driver. No-op without CuPy."""
    _graph_cache.clear()
    if _cupy is not None:
        _cupy.get_default_memory_pool().free_all_blocks()
        _cupy.get_default_pinned_memory_pool().free_all_blocks()


_cooperative_modules: dict[tuple, tuple[CompiledModule, str]] = {}
_failed_modes: dict[tuple, str] = {}  # modes that did not compile here, and why: not tried again


def load_cooperative_module(cu_path: str | os.PathLike, modes: Sequence[tuple[str, tuple[str, ...], bool]],
                            options: Sequence[str] = ()) -> tuple[CompiledModule, str]:
    """(module, mode name) of a persistent kernel's .cu, compiled for the current device with the first of `modes`
    that compiles here (cached per device, source and options), like load_module but with CuPy's cooperative launch:
    every block of the grid is resident, so a grid barrier or a wait on another block's work cannot deadlock. A mode
    is (name, extra compile options, whether to launch cooperatively); one that fails to compile here is not tried
    again in this process."""
    cp = cupy_module()
    source, digest = module_source(cu_path)
    device = cp.cuda.Device()
    arch_options, arch = arch_option(cp, str(device.compute_capability))
    failures = []
    for mode, extra, cooperative in modes:
        all_options = (*COMPILE_OPTIONS, *options, *extra, *arch_options)
        key = (device.id, digest, all_options, cooperative)
        if key in _failed_modes:
            failures.append(_failed_modes[key])
            continue
        if key not in _cooperative_modules:
            started = time.perf_counter()
            try:
                raw = cp.RawModule(code=source, options=all_options, enable_cooperative_groups=cooperative)
                raw.compile()
            except Exception as error:  # noqa: BLE001 - the next mode may work (no header, no cudadevrt)
                _failed_modes[key] = f"{mode}: {type(error).__name__}: {str(error)[:300]}"
                failures.append(_failed_modes[key])
                continue
            compiled = CompiledModule(raw, Path(cu_path), digest, all_options, arch, time.perf_counter() - started)
            _cooperative_modules[key] = (compiled, mode)
        return _cooperative_modules[key]
    raise KernelLaunchError(f"{Path(cu_path).name}: no launch mode compiles here ({'; '.join(failures)})")
