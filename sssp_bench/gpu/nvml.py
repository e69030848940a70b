"""The GPU's power and energy through NVML: `open_meter()` gives a `Meter` on the GPU CuPy computes on, or raises
`NvmlUnavailable` saying why (no library, no GPU, a driver that refuses), which callers record rather than fail on.

Two ways in, the same Meter: the `pynvml` module (package nvidia-ml-py, `pip install 'sssp-bench[energy]'`) when it
is importable, else a small ctypes binding to the driver's own `libnvidia-ml.so.1`, which every NVIDIA driver ships
(the device machines have the library but no pynvml). Both call the same NVML functions:

- nvmlInit_v2 / nvmlShutdown (reference counted by NVML, so several meters may be open);
- nvmlDeviceGetHandleByPciBusId_v2 with the PCI bus id of CuPy's current device, so the meter reads the GPU the
  solves run on even under CUDA_VISIBLE_DEVICES (NVML numbers every GPU of the host, CUDA only the visible ones);
  by index only where CuPy cannot say the bus id and no CUDA_VISIBLE_DEVICES renumbers the GPUs;
- nvmlDeviceGetTotalEnergyConsumption: millijoules since the driver loaded (Volta and newer), the energy counter;
- power in milliwatts: the NVML_FI_DEV_POWER_INSTANT field (nvmlDeviceGetFieldValues) where the driver has it, else
  nvmlDeviceGetPowerUsage, which on Ampere and newer (GA100 aside) is an average over the last second;
- nvmlDeviceGetName, nvmlSystemGetDriverVersion, nvmlSystemGetNVMLVersion, nvmlErrorString for the record;
- nvmlDeviceGetComputeRunningProcesses_v3: the processes computing on the GPU (`compute_process_ids`), so a run
  can say whether it shared its GPU (run/gpu_sharing.py).
"""

from __future__ import annotations

import ctypes
import os
from dataclasses import dataclass, field
from typing import Any

LIBRARY = "libnvidia-ml.so.1"
FI_DEV_POWER_INSTANT = 186  # nvml.h: NVML_FI_DEV_POWER_INSTANT, the current power in mW
_NAME_BUFFER = 96           # NVML_DEVICE_NAME_V2_BUFFER_SIZE
_VERSION_BUFFER = 80        # NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE


class NvmlUnavailable(Exception):
    """NVML cannot measure here; the message says why, in one line."""


class NvmlError(Exception):
    """An NVML call returned an error: its name and NVML's own words."""


class _FieldValue(ctypes.Structure):
    """nvmlFieldValue_t: fieldId, scopeId, timestamp, latencyUsec, valueType, nvmlReturn, value (an 8-byte union)."""
    _fields_ = [("fieldId", ctypes.c_uint), ("scopeId", ctypes.c_uint), ("timestamp", ctypes.c_longlong),
                ("latencyUsec", ctypes.c_longlong), ("valueType", ctypes.c_int), ("nvmlReturn", ctypes.c_int),
                ("value", ctypes.c_ubyte * 8)]


# nvmlValueType_t -> how the union's 8 bytes read
_VALUE_TYPES = {0: ctypes.c_double, 1: ctypes.c_uint, 2: ctypes.c_ulong, 3: ctypes.c_ulonglong,
                4: ctypes.c_longlong, 5: ctypes.c_int, 6: ctypes.c_ushort}


class _ProcessInfo(ctypes.Structure):
    """nvmlProcessInfo_t, as nvmlDeviceGetComputeRunningProcesses_v3 fills it: pid, usedGpuMemory, gpuInstanceId,
    computeInstanceId."""
    _fields_ = [("pid", ctypes.c_uint), ("usedGpuMemory", ctypes.c_ulonglong), ("gpuInstanceId", ctypes.c_uint),
                ("computeInstanceId", ctypes.c_uint)]


NVML_ERROR_INSUFFICIENT_SIZE = 7


class _Ctypes:
    """The few NVML functions the meter needs, through ctypes on the driver's library."""

    name = "ctypes"

    def __init__(self) -> None:
        try:
            self.lib = ctypes.CDLL(LIBRARY)
        except OSError as error:
            raise NvmlUnavailable(f"{LIBRARY} not loadable ({error}); no NVIDIA driver here") from None
        self.lib.nvmlErrorString.restype = ctypes.c_char_p
        self.lib.nvmlErrorString.argtypes = [ctypes.c_int]

    def _call(self, function: str, *args: Any, allowed: tuple[int, ...] = (0,)) -> int:
        """NVML's return code of `function(*args)`; NvmlError for a code not `allowed` (success only, by default)."""
        try:
            code = getattr(self.lib, function)(*args)
        except AttributeError:
            raise NvmlError(f"{function}: not in this driver's {LIBRARY}") from None
        if code not in allowed:
            raise NvmlError(f"{function}: {self.lib.nvmlErrorString(code).decode(errors='replace')} (code {code})")
        return code

    def init(self) -> None:
        self._call("nvmlInit_v2")

    def shutdown(self) -> None:
        self._call("nvmlShutdown")

    def handle_by_bus_id(self, bus_id: str) -> Any:
        handle = ctypes.c_void_p()
        self._call("nvmlDeviceGetHandleByPciBusId_v2", ctypes.c_char_p(bus_id.encode()), ctypes.byref(handle))
        return handle

    def handle_by_index(self, index: int) -> Any:
        handle = ctypes.c_void_p()
        self._call("nvmlDeviceGetHandleByIndex_v2", ctypes.c_uint(index), ctypes.byref(handle))
        return handle

    def device_name(self, handle: Any) -> str:
        buffer = ctypes.create_string_buffer(_NAME_BUFFER)
        self._call("nvmlDeviceGetName", handle, buffer, ctypes.c_uint(_NAME_BUFFER))
        return buffer.value.decode(errors="replace")

    def driver_version(self) -> str:
        buffer = ctypes.create_string_buffer(_VERSION_BUFFER)
        self._call("nvmlSystemGetDriverVersion", buffer, ctypes.c_uint(_VERSION_BUFFER))
        return buffer.value.decode(errors="replace")

    def nvml_version(self) -> str:
        buffer = ctypes.create_string_buffer(_VERSION_BUFFER)
        self._call("nvmlSystemGetNVMLVersion", buffer, ctypes.c_uint(_VERSION_BUFFER))
        return buffer.value.decode(errors="replace")

    def power_mw(self, handle: Any) -> float:
        value = ctypes.c_uint()
        self._call("nvmlDeviceGetPowerUsage", handle, ctypes.byref(value))
        return float(value.value)

    def instant_power_mw(self, handle: Any) -> float:
        values = (_FieldValue * 1)()
        values[0].fieldId = FI_DEV_POWER_INSTANT
        self._call("nvmlDeviceGetFieldValues", handle, ctypes.c_int(1), values)
        if values[0].nvmlReturn != 0:
            raise NvmlError(f"NVML_FI_DEV_POWER_INSTANT: {self.lib.nvmlErrorString(values[0].nvmlReturn).decode()}")
        kind = _VALUE_TYPES.get(values[0].valueType, ctypes.c_uint)
        return float(kind.from_buffer_copy(bytes(values[0].value)[: ctypes.sizeof(kind)]).value)

    def energy_mj(self, handle: Any) -> float:
        value = ctypes.c_ulonglong()
        self._call("nvmlDeviceGetTotalEnergyConsumption", handle, ctypes.byref(value))
        return float(value.value)

    def compute_pids(self, handle: Any) -> list[int]:
        function, either = "nvmlDeviceGetComputeRunningProcesses_v3", (0, NVML_ERROR_INSUFFICIENT_SIZE)
        for _ in range(3):  # asked for the count first; a process may start between the two calls
            count = ctypes.c_uint(0)
            if self._call(function, handle, ctypes.byref(count), None, allowed=either) == 0:
                return []
            capacity = ctypes.c_uint(count.value + 8)
            infos = (_ProcessInfo * capacity.value)()
            if self._call(function, handle, ctypes.byref(capacity), infos, allowed=either) == 0:
                return [int(infos[index].pid) for index in range(capacity.value)]
        raise NvmlError(f"{function}: the process list kept growing")


class _Pynvml:
    """The same calls through the pynvml module (nvidia-ml-py)."""

    name = "pynvml"

    def __init__(self, module: Any) -> None:
        self.nv = module

    def _call(self, function: str, *args: Any) -> Any:
        try:
            return getattr(self.nv, function)(*args)
        except self.nv.NVMLError as error:
            raise NvmlError(f"{function}: {error}") from None

    def init(self) -> None:
        self._call("nvmlInit")

    def shutdown(self) -> None:
        self._call("nvmlShutdown")

    def handle_by_bus_id(self, bus_id: str) -> Any:
        return self._call("nvmlDeviceGetHandleByPciBusId", bus_id)

    def handle_by_index(self, index: int) -> Any:
        return self._call("nvmlDeviceGetHandleByIndex", index)

    def device_name(self, handle: Any) -> str:
        return _text(self._call("nvmlDeviceGetName", handle))

    def driver_version(self) -> str:
        return _text(self._call("nvmlSystemGetDriverVersion"))

    def nvml_version(self) -> str:
        return _text(self._call("nvmlSystemGetNVMLVersion"))

    def power_mw(self, handle: Any) -> float:
        return float(self._call("nvmlDeviceGetPowerUsage", handle))

    def instant_power_mw(self, handle: Any) -> float:
        value = self._call("nvmlDeviceGetFieldValues", handle, [FI_DEV_POWER_INSTANT])[0]
        if value.nvmlReturn != 0:
            raise NvmlError(f"NVML_FI_DEV_POWER_INSTANT: return code {value.nvmlReturn}")
        kind = {0: "dVal", 1: "uiVal", 2: "ulVal", 3: "ullVal", 4: "sllVal", 5: "siVal", 6: "usVal"}
        return float(getattr(value.value, kind.get(value.valueType, "uiVal")))

    def energy_mj(self, handle: Any) -> float:
        return float(self._call("nvmlDeviceGetTotalEnergyConsumption", handle))

    def compute_pids(self, handle: Any) -> list[int]:
        return [int(process.pid) for process in self._call("nvmlDeviceGetComputeRunningProcesses", handle)]


def _text(value: Any) -> str:
    return value.decode(errors="replace") if isinstance(value, bytes) else str(value)


@dataclass
class Meter:
    """One GPU's power (W) and energy counter (J) through NVML. `energy_counter` False: the driver or GPU has no
    counter (before Volta), and energy must come from sampled power. `power_reading` says which reading power_w
    returns."""
    backend: Any
    handle: Any
    info: dict[str, Any] = field(default_factory=dict)
    energy_counter: bool = False
    power_reading: str = ""
    _instant: bool = False
    _open: bool = True

    def power_w(self) -> float:
        if self._instant:
            return self.backend.instant_power_mw(self.handle) / 1e3
        return self.backend.power_mw(self.handle) / 1e3

    def energy_j(self) -> float | None:
        """Joules since the driver loaded, or None where the GPU has no energy counter."""
        return self.backend.energy_mj(self.handle) / 1e3 if self.energy_counter else None

    def close(self) -> None:
        if self._open:
            self._open = False
            try:
                self.backend.shutdown()
            except NvmlError:
                pass

    def record(self) -> dict[str, Any]:
        """What the manifest records of the meter."""
        return {**self.info, "backend": self.backend.name, "energy_counter": self.energy_counter,
                "power_reading": self.power_reading}


def _backend() -> Any:
    try:
        import pynvml  # type: ignore[import-not-found]
    except Exception:  # not installed (the device image), or broken: the driver's library directly
        return _Ctypes()
    return _Pynvml(pynvml)


def import_backend() -> None:
    """Import pynvml, where installed (0.08 s on an H200 host), starting nothing: a run does it while the driver
    makes its CUDA context (runner.py), so the first look at the GPU's processes does not wait for it."""
    try:
        _backend()
    except NvmlUnavailable:
        pass  # said where NVML is first used


def current_bus_id() -> str | None:
    """The PCI bus id of CuPy's current device ("0000:3B:00.0"), or None without CuPy or a device."""
    try:
        import cupy

        runtime = cupy.cuda.runtime
        return str(runtime.deviceGetPCIBusId(runtime.getDevice()))
    except Exception:
        pass
    try:
        import cupy

        return str(cupy.cuda.Device().pci_bus_id)
    except Exception:
        return None


def _started() -> Any:
    backend = _backend()
    try:
        backend.init()
    except NvmlError as error:
        raise NvmlUnavailable(f"NVML did not start ({backend.name}): {error}") from None
    return backend


def _handle(backend: Any, bus_id: str | None) -> tuple[Any, str | None]:
    """NVML's handle of the GPU with this PCI bus id (default: CuPy's current device), and the bus id."""
    bus_id = bus_id or current_bus_id()
    if bus_id is not None:
        return backend.handle_by_bus_id(bus_id), bus_id
    if os.environ.get("CUDA_VISIBLE_DEVICES"):
        raise NvmlUnavailable("CuPy cannot say which GPU it uses and CUDA_VISIBLE_DEVICES renumbers them, so "
                              "NVML cannot tell which GPU to read")
    return backend.handle_by_index(0), None


_process_lookups: dict[str | None, tuple[Any, Any] | str] = {}
"""Per bus id asked for: NVML started and the GPU's handle, kept for the process's life (NVML counts its starts,
so a Meter's start and shutdown do not end it), or why NVML could not tell. A `--workers` task runs a Runner, and
each Runner looks several times: NVML is started once per process, not once per look."""


def compute_process_ids(bus_id: str | None = None) -> list[int]:
    """The process ids NVML lists as computing on the GPU with this PCI bus id (default: CuPy's current device),
    this process among them once it has a context there; NvmlUnavailable saying why where NVML cannot tell. In a
    container the ids are the host's, not the container's."""
    bus_id = bus_id or current_bus_id()
    lookup = _process_lookups.get(bus_id)
    if lookup is None:
        try:
            backend = _started()
        except NvmlUnavailable as error:
            lookup = str(error)
        else:
            try:
                lookup = (backend, _handle(backend, bus_id)[0])
            except (NvmlError, NvmlUnavailable) as error:
                lookup = str(error)
                try:
                    backend.shutdown()
                except NvmlError:
                    pass
        _process_lookups[bus_id] = lookup
    if isinstance(lookup, str):
        raise NvmlUnavailable(lookup)
    backend, handle = lookup
    try:
        return backend.compute_pids(handle)
    except NvmlError as error:
        raise NvmlUnavailable(str(error)) from None


def open_meter(bus_id: str | None = None) -> Meter:
    """A Meter on the GPU with this PCI bus id (default: CuPy's current device), or NvmlUnavailable saying why."""
    backend = _started()
    try:
        handle, bus_id = _handle(backend, bus_id)
        info: dict[str, Any] = {"pci_bus_id": bus_id}
        for key, probe in (("device", lambda: backend.device_name(handle)), ("driver_version", backend.driver_version),
                           ("nvml_version", backend.nvml_version)):
            try:
                info[key] = probe()
            except NvmlError:
                info[key] = None
        meter = Meter(backend, handle, info)
        try:
            backend.energy_mj(handle)
            meter.energy_counter = True
        except NvmlError as error:
            info["energy_counter_reason"] = str(error)
        try:
            backend.instant_power_mw(handle)
            meter._instant, meter.power_reading = True, "NVML_FI_DEV_POWER_INSTANT"
        except NvmlError:
            meter.power_reading = "nvmlDeviceGetPowerUsage"
        meter.power_w()  # a GPU that gives no power reading at all cannot be measured
        return meter
    except (NvmlError, NvmlUnavailable) as error:
        try:
            backend.shutdown()
        except NvmlError:
            pass
        raise NvmlUnavailable(str(error)) from None
