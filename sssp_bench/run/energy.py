"""Energy per solve, measured in a phase of its own after a GPU variant's timed and verified solves on a graph
(config `energy`; the runner calls `measure_energy`). The timed solves are never measured, nor slowed by a sampler.

NVML cannot measure one solve of a few milliseconds: its power reading is an average refreshed every 20-100 ms, and
its energy counter moves in steps of about as long. So the phase solves the variant's verified sources back to back,
cycling through them, for at least `min_window_s`, and divides:

1. idle: `idle_s` seconds with the GPU doing nothing (the sampler running); the mean power before the window opens
   is the idle power (the GPU's just after the timed solves: its clocks may not have dropped yet);
2. window: the counter is read until it steps (so the window opens on a step), then the sources are solved back to
   back, each synchronized, until `min_window_s` has passed, and then on until the counter steps again (read every
   ~10 ms of solves), so the window closes on a step: energy = the counter's difference, over exactly the solves
   between the two steps. Where the GPU has no counter, energy = the mean sampled power in the window x its length
   (method "sampled power"; each power reading is itself an average, so this is the coarser of the two);
3. joules per solve = energy / solves; power = energy / window.

Throughout, a sampler thread reads the power every `sample_ms` into the trace, `power/<graph>__<variant>.csv`
(results/energy.py names it; columns t_s, power_w, stage = idle | solving | after), which the report draws as the
parallel bucket heap paper's Figure 7 (power over time during a solve; the paper sampled every 5 s with nvprof).
"""

from __future__ import annotations

import csv
import math
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

COUNTER_STEP_WAIT_S = 0.5  # the longest wait for the energy counter to step, at either end of the window
POLL_EVERY_S = 0.01        # at the window's end, read the counter after about this much solving


class PowerMeter(Protocol):
    """What the phase reads: gpu/nvml.Meter, or a stand-in in the tests."""

    def power_w(self) -> float: ...

    def energy_j(self) -> float | None: ...


@dataclass(frozen=True)
class EnergySettings:
    min_window_s: float = 2.0
    sample_ms: float = 100.0
    idle_s: float = 0.5


class Sampler:
    """A thread reading `read()` every `interval_s` into (seconds since start, watts) samples, until stopped. A
    failed reading ends the sampling and is kept in `error`."""

    def __init__(self, read: Callable[[], float], interval_s: float, clock: Callable[[], float] = time.perf_counter):
        self.read, self.interval_s, self.clock = read, interval_s, clock
        self.samples: list[tuple[float, float]] = []
        self.error: str | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="power-sampler", daemon=True)
        self.started = 0.0

    def start(self) -> Sampler:
        self.started = self.clock()
        self._thread.start()
        return self

    def _loop(self) -> None:
        next_at = self.started
        while not self._stop.is_set():
            try:
                watts = self.read()
            except Exception as error:  # recorded; the phase goes on without more samples
                self.error = f"{error.__class__.__name__}: {error}"
                return
            self.samples.append((self.clock() - self.started, watts))
            next_at, now = next_at + self.interval_s, self.clock()
            if next_at <= now:  # fell behind (the GIL, a slow read): skip the missed ticks rather than burst
                next_at = now + self.interval_s
            self._stop.wait(next_at - now)

    def stop(self) -> list[tuple[float, float]]:
        self._stop.set()
        self._thread.join()
        return list(self.samples)


def measure_energy(solve: Callable[[int], Any], sources: Sequence[int], meter: PowerMeter, settings: EnergySettings,
                   trace_path: Path | None, clock: Callable[[], float] = time.perf_counter,
                   sleep: Callable[[float], None] = time.sleep) -> dict[str, Any]:
    """The energy phase (module docstring): `solve(source)` must return with the solve finished (synchronized).
    Returns the energy row's fields: time_s (the window), energy_j (per solve), power_w, idle_power_w,
    energy_solves, energy_method; writes the power trace to `trace_path` when given."""
    if not sources:
        raise ValueError("no verified source to solve")
    sampler = Sampler(meter.power_w, settings.sample_ms / 1e3, clock).start()
    try:
        sleep(settings.idle_s)
        energy_start = _counter_step(meter, clock, sleep)
        window_start = clock()
        solves, polled_at = 0, 0
        while True:
            solve(sources[solves % len(sources)])
            solves += 1
            elapsed = clock() - window_start
            if elapsed < settings.min_window_s:
                continue
            if energy_start is None:
                break
            # Past the minimum: read the counter after every ~10 ms of solving until it steps (or gives up).
            every = max(1, math.ceil(POLL_EVERY_S / (elapsed / solves)))
            if solves - polled_at < every and elapsed < settings.min_window_s + COUNTER_STEP_WAIT_S:
                continue
            polled_at = solves
            energy_end = meter.energy_j()
            if energy_end != energy_start or elapsed >= settings.min_window_s + COUNTER_STEP_WAIT_S:
                break
        window_end = clock()
        sleep(min(settings.idle_s, 0.2))  # a little of the way back to idle, for the trace
    finally:
        samples = sampler.stop()
    window_s = window_end - window_start
    start_t, end_t = window_start - sampler.started, window_end - sampler.started
    idle = [watts for t, watts in samples if t < start_t]
    if energy_start is not None:
        joules, method = energy_end - energy_start, "energy counter"
    else:
        inside = [watts for t, watts in samples if start_t <= t <= end_t] or [meter.power_w()]
        joules, method = sum(inside) / len(inside) * window_s, "sampled power"
    if trace_path is not None:
        write_trace(trace_path, samples, start_t, end_t)
    return {
        "time_s": window_s, "energy_j": joules / solves, "power_w": joules / window_s if window_s > 0 else None,
        "idle_power_w": sum(idle) / len(idle) if idle else None, "energy_solves": solves, "energy_method": method,
        "message": f"power sampling stopped: {sampler.error}" if sampler.error else "",
    }


def _counter_step(meter: PowerMeter, clock: Callable[[], float], sleep: Callable[[float], None]) -> float | None:
    """The energy counter's value just after it steps (None: no counter), waiting at most COUNTER_STEP_WAIT_S."""
    first = meter.energy_j()
    if first is None:
        return None
    deadline = clock() + COUNTER_STEP_WAIT_S
    while clock() < deadline:
        value = meter.energy_j()
        if value != first:
            return value
        sleep(0.001)
    return first


def write_trace(path: Path, samples: list[tuple[float, float]], window_start: float, window_end: float) -> None:
    """The power trace as CSV: t_s (seconds since the phase began), power_w, stage (idle, solving, after)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp")
    with open(temporary, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["t_s", "power_w", "stage"])
        for t, watts in samples:
            stage = "idle" if t < window_start else "solving" if t <= window_end else "after"
            writer.writerow([f"{t:.4f}", f"{watts:.3f}", stage])
    temporary.replace(path)
