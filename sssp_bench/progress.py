"""A small progress line with a rate and an ETA, on stderr, redrawn in place on a terminal.

Not a dependency: the harness runs where only its declared dependencies are installed. Off a terminal (CI,
pipes) it prints nothing per step, only what the caller logs.
"""

from __future__ import annotations

import sys
import time


def format_duration(seconds: float) -> str:
    seconds = int(max(0, seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{seconds:02d}" if hours else f"{minutes}:{seconds:02d}"


class Progress:
    def __init__(self, total: int, enabled: bool = True, stream=None, min_interval: float = 0.1):
        self.total = max(total, 0)
        self.done = 0
        self.stream = stream or sys.stderr
        self.enabled = enabled and hasattr(self.stream, "isatty") and self.stream.isatty()
        self.started = time.monotonic()
        self.last_drawn = 0.0
        self.min_interval = min_interval
        self.label = ""

    def describe(self, *parts: str) -> None:
        self.label = " ".join(part for part in parts if part)
        self._draw(force=True)

    def advance(self, steps: int = 1) -> None:
        self.done = min(self.total, self.done + steps)
        self._draw()

    def eta(self) -> float | None:
        elapsed = time.monotonic() - self.started
        if not self.done or elapsed <= 0:
            return None
        return (self.total - self.done) * elapsed / self.done

    def _draw(self, force: bool = False) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if not force and now - self.last_drawn < self.min_interval and self.done < self.total:
            return
        self.last_drawn = now
        eta = self.eta()
        percent = 100.0 * self.done / self.total if self.total else 100.0
        line = (f"{self.done}/{self.total} ({percent:3.0f}%) elapsed {format_duration(now - self.started)}"
                f" ETA {format_duration(eta) if eta is not None else '?'}  {self.label}")
        width = 120
        self.stream.write("\r" + line[:width].ljust(width))
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()
