"""Whether a run had its GPU to itself. Other processes computing on the same GPU time-slice it with the run, and a
variant whose host loop waits on the device every level then runs several times slower: a kill-check run that took
17 s alone took 101 s on GPUs that the GPU tests were using at the same time (issue 38, notes/scaleout.md).

The runner asks NVML which processes compute on the run's GPU (gpu/nvml.py) once its own CUDA context is made (at its
first graph loaded), before each later graph and at the end; `manifest["gpu_sharing"]` keeps what it saw, the log
says so the first time another process shows up, and the report's Provenance has a row for it. A process that came
and went between two looks is not seen. Where NVML cannot tell (no driver library, a driver that refuses), the record says why and the run goes on.
"""

from __future__ import annotations

import os
from typing import Any, Callable

from ..gpu import nvml


def others_than_this(pids: list[int], own: int | None = None) -> tuple[int, list[int] | None]:
    """How many of the processes NVML lists on the GPU are not this one (which has a context there), and their
    ids: None where this process is not among them, its ids being another PID namespace's (a container's host)."""
    own, listed = (os.getpid() if own is None else own), set(pids)
    if own in listed:
        others = sorted(listed - {own})
        return len(others), others
    return max(0, len(listed) - 1), None


class SharingWatch:
    """The run's looks at its GPU: `check()` at each point, `record()` for the manifest."""

    def __init__(self, log: Callable[[str], None], list_pids: Callable[[], list[int]] = nvml.compute_process_ids):
        self.log = log
        self.list_pids = list_pids
        self.checks = 0
        self.most = 0                  # the most other processes seen at one look
        self.pids: set[int] = set()    # their ids, where NVML's are this process's namespace's
        self.foreign_ids = False       # NVML's ids were another namespace's
        self.reason: str | None = None  # why NVML could not tell (then it is not asked again)

    def check(self, when: str) -> None:
        if self.reason is not None:
            return
        try:
            count, pids = others_than_this(self.list_pids())
        except Exception as error:  # noqa: BLE001 - NVML's refusals, or anything else: a look never fails the run
            self.reason = str(error) if isinstance(error, nvml.NvmlUnavailable) else \
                f"{error.__class__.__name__}: {error}"
            self.log(f"GPU sharing not checked: {self.reason}")
            return
        self.checks += 1
        if pids is None:
            self.foreign_ids = True
        else:
            self.pids.update(pids)
        if count > self.most:
            if self.most == 0:
                named = f" (pid {', '.join(map(str, pids))})" if pids else ""
                self.log(f"warning: {count} other process(es){named} computing on this run's GPU {when}: the GPU is "
                         f"time-sliced between them, so the times measured beside them are slowed")
            self.most = count

    def record(self) -> dict[str, Any]:
        if self.reason is not None and not self.checks:
            return {"checked": False, "reason": self.reason}
        record: dict[str, Any] = {"checked": True, "checks": self.checks, "other_processes": self.most,
                                  "pids": sorted(self.pids)}
        if self.foreign_ids:
            record["pids_from_another_namespace"] = True
        return record


def combined(records: list[dict[str, Any] | None]) -> dict[str, Any] | None:
    """One record for the parts of a run (the shards of a merge, the sessions of a resumed run): the most other
    processes any part saw, every id seen, and how many parts did not check; None where no part recorded any (runs
    from before the check)."""
    present = [record for record in records if record]
    if not present:
        return None
    unchecked = [record for record in present if not record.get("checked")]
    if unchecked and len(unchecked) == len(present):
        return {"checked": False, "reason": unchecked[0].get("reason")}
    checked = [record for record in present if record.get("checked")]
    merged: dict[str, Any] = {"checked": True, "checks": sum(int(record.get("checks") or 0) for record in checked),
                              "other_processes": max(int(record.get("other_processes") or 0) for record in checked),
                              "pids": sorted({pid for record in checked for pid in record.get("pids") or []})}
    if any(record.get("pids_from_another_namespace") for record in checked):
        merged["pids_from_another_namespace"] = True
    if unchecked or len(present) < len(records):
        merged["parts_unchecked"] = len(records) - len(checked)
    return merged


def sharing_text(record: dict[str, Any] | None) -> str:
    """The report's words for a run's record."""
    if not record:
        return "-"
    if not record.get("checked"):
        return f"not checked ({record.get('reason') or 'unknown'})"
    unchecked = record.get("parts_unchecked")
    tail = f"; {unchecked} of its shards or sessions not checked" if unchecked else ""
    if not record.get("other_processes"):
        return f"no: no other process computed on it at {record.get('checks', 0)} looks{tail}"
    return (f"yes: up to {record['other_processes']} other process(es) computed on it (times slowed by "
            f"time-slicing){tail}")
