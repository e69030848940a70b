"""The GPU engine: CuPy kernel runtime, the device copy of a graph, memory checks and CUDA-event timing.

Nothing here imports CuPy at import time: `import sssp_bench.gpu` works (and CPU runs work) on a machine without
CuPy or a GPU; `gpu_status()` says why GPU implementations are unavailable there. See `runtime` for the details.
"""

from .runtime import (
    COMPILE_OPTIONS,
    DIST_INF,
    DeviceGraph,
    DeviceMemoryError,
    GpuUnavailableError,
    HostReadback,
    KernelLaunchError,
    arch_option,
    cupy_module,
    device_graph,
    elapsed_seconds,
    estimate_device_bytes,
    gpu_status,
    launch,
    load_module,
    module_source,
    record_event,
    release_device_graphs,
    require_device_memory,
)

__all__ = [
    "COMPILE_OPTIONS",
    "DIST_INF",
    "DeviceGraph",
    "DeviceMemoryError",
    "GpuUnavailableError",
    "HostReadback",
    "KernelLaunchError",
    "arch_option",
    "cupy_module",
    "device_graph",
    "elapsed_seconds",
    "estimate_device_bytes",
    "gpu_status",
    "launch",
    "load_module",
    "module_source",
    "record_event",
    "release_device_graphs",
    "require_device_memory",
]
