"""Device measurements kept between run processes: the roofline's device constants (copy bandwidth, pointer-chase
latency) and each graph's relax pass, measured once per GPU and reused for a day by every later run, shard or Dask
worker on that same GPU, instead of 0.5 to 0.7 s of measuring in every process (issue 38: four shards paid it four
times in a 15 s run).

    record = remembered(folder, "device", identity, measure)           # measure() on a miss, the stored one on a hit

A stored measurement is used only while all of these are the same as when it was taken, else it is measured again:
- the GPU itself (`identity`: its UUID, or PCI address where CuPy gives no UUID, and its name), the driver, the
  CUDA runtime and CuPy versions;
- the roofline's code (roofline.py and roofline.cu, hashed), so a changed measurement is never mixed with the old;
- for a relax pass, the graph's content digest and weight rule (the caller's `parts`);
- its age: at most MAX_AGE_S (a day), so a long-lived machine still measures anew each day.

A reused record says so in the manifest: `reused` holds when it was measured and its age. The files are small JSON
written atomically (jsonfile.py) under the caller's folder: `<datasets>/.device-measurements/` for the device
constants, the graph's per-graph folder for its relax pass. SSSP_BENCH_DEVICE_CACHE=off measures in every process
(as before).
"""

from __future__ import annotations

import hashlib
import json
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from ..jsonfile import write_json_atomic
from ..switches import switched_on

MAX_AGE_S = 24 * 3600.0
DISABLE_VARIABLE = "SSSP_BENCH_DEVICE_CACHE"
DEVICE_FOLDER = ".device-measurements"
IDENTITY_KEYS = ("name", "uuid", "pci_bus_id", "driver_version", "cuda_runtime_version", "cupy_version")
"""What of provenance.gpu_info() names a measurement's GPU and software."""

_code_digest: str | None = None


def enabled() -> bool:
    return switched_on(DISABLE_VARIABLE)


def roofline_code_digest() -> str:
    """The roofline's measuring code, hashed: a change to it invalidates every stored measurement."""
    global _code_digest
    if _code_digest is None:
        here = Path(__file__).parent
        hasher = hashlib.sha256()
        for name in ("roofline.py", "roofline.cu"):
            hasher.update((here / name).read_bytes())
        _code_digest = hasher.hexdigest()[:16]
    return _code_digest


def identity_of(gpu_info: dict[str, Any]) -> dict[str, Any] | None:
    """The parts of a GPU's info that name it and its software; None where it names no single GPU (no UUID, no
    PCI address): such a device is measured in every process."""
    identity = {key: gpu_info.get(key) for key in IDENTITY_KEYS}
    if not identity["uuid"] and not identity["pci_bus_id"]:
        return None
    return identity


def remembered(folder: Path, kind: str, identity: dict[str, Any] | None, measure: Callable[[], dict[str, Any]],
               parts: dict[str, Any] | None = None, now: float | None = None) -> dict[str, Any]:
    """`measure()`'s record, or the one stored under `folder` for the same kind, GPU, software, code and `parts`
    when it is at most MAX_AGE_S old (with `reused` added). A fresh measurement is stored for the next process; a
    folder that cannot be written only costs the reuse."""
    if identity is None or not enabled():
        return measure()
    now = time.time() if now is None else now
    key = hashlib.sha256(json.dumps({"kind": kind, "identity": identity, "code": roofline_code_digest(),
                                     "parts": parts or {}}, sort_keys=True, default=str).encode()).hexdigest()[:20]
    path = Path(folder) / f"{kind}-{key}.json"
    stored = _read(path)
    if stored is not None:
        measured = stored.get("measured_unix")
        if isinstance(measured, (int, float)) and 0 <= now - measured <= MAX_AGE_S and isinstance(
                stored.get("record"), dict):
            return {**stored["record"], "reused": {"measured_at": _iso(measured), "age_s": round(now - measured, 1)}}
    record = measure()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_json_atomic(path, {"kind": kind, "identity": identity, "parts": parts or {}, "measured_unix": now,
                                 "record": record})
    except OSError:
        pass  # a read-only dataset folder: measured again next time
    return record


def _read(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None  # missing, or unreadable: measured anew and written over
    return data if isinstance(data, dict) else None


def _iso(unix: float) -> str:
    return datetime.fromtimestamp(unix, timezone.utc).isoformat(timespec="seconds")
