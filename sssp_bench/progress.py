"""A small progress line with a rate and an ETA, on stderr, redrawn in place on a terminal.

Not a dependency: the harness runs where only its declared dependencies are installed. Off a terminal (CI,
pipes) it prints nothing per step, only what the caller logs. `ByteProgress` is the same for a transfer: sizes in
KiB/MiB/GiB, the rate and the ETA (or just the amount and the rate when the total is unknown).
"""

from __future__ import annotations

import shutil
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


_SIZE_UNITS = ("B", "KiB", "MiB", "GiB", "TiB", "PiB")


def format_size(size: float) -> str:
    """Bytes as a person reads them: 512 B, 1.5 KiB, 3.50 MiB, 64.0 GiB (binary units, 3 significant digits)."""
    size = float(max(size, 0))
    unit = 0
    # 1023.7 KiB would print as "1024 KiB": past 1023.5 the next unit reads better
    while size >= (1024 if unit == 0 else 1023.5) and unit < len(_SIZE_UNITS) - 1:
        size /= 1024
        unit += 1
    if unit == 0:
        return f"{int(size)} B"
    digits = 2 if round(size, 2) < 10 else 1 if round(size, 1) < 100 else 0
    return f"{size:.{digits}f} {_SIZE_UNITS[unit]}"


class ByteProgress:
    """A transfer's progress line: bytes done of the total (when known), the rate and the ETA.

    `initial` is what was already there (a resumed download): it counts towards done and the percentage, but not
    towards the rate, which is what this session moves. Draws only on a terminal, like `Progress`.
    """

    def __init__(self, total: int | None, label: str = "", initial: int = 0, enabled: bool = True, stream=None,
                 min_interval: float = 0.2):
        self.total = total if total is not None and total > 0 else None
        self.initial = max(initial, 0)
        self.done = self.initial
        self.label = label
        self.stream = stream or sys.stderr
        self.enabled = enabled and hasattr(self.stream, "isatty") and self.stream.isatty()
        self.started = time.monotonic()
        self.last_drawn = 0.0
        self.min_interval = min_interval
        self.drawn = False

    def advance(self, count: int) -> None:
        self.done += count
        self._draw()

    def restart(self, initial: int = 0) -> None:
        """Start over from `initial` bytes (a server that ignored a resume; a retry): the rate restarts too."""
        self.initial = self.done = max(initial, 0)
        self.started = time.monotonic()
        self._draw(force=True)

    def rate(self) -> float | None:
        """Bytes per second moved this session, None before there is anything to measure."""
        elapsed = time.monotonic() - self.started
        moved = self.done - self.initial
        if elapsed <= 0 or moved <= 0:
            return None
        return moved / elapsed

    def eta(self) -> float | None:
        rate = self.rate()
        if self.total is None or not rate:
            return None
        return max(self.total - self.done, 0) / rate

    def line(self) -> str:
        rate = self.rate()
        rate_text = f"{format_size(rate)}/s" if rate else "-- B/s"
        if self.total is None:
            amount = format_size(self.done)
            eta_text = ""
        else:
            percent = min(100.0, 100.0 * self.done / self.total)
            amount = f"{format_size(self.done)} / {format_size(self.total)} ({percent:3.0f}%)"
            eta = self.eta()
            eta_text = f"  ETA {format_duration(eta) if eta is not None else '?'}"
        return f"{self.label}  {amount}  {rate_text}{eta_text}".strip()

    def _draw(self, force: bool = False) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if not force and now - self.last_drawn < self.min_interval:
            return
        self.last_drawn = now
        width = max(20, min(shutil.get_terminal_size((120, 24)).columns - 1, 120))
        self.stream.write("\r" + self.line()[:width].ljust(width))
        self.stream.flush()
        self.drawn = True

    def close(self) -> None:
        if self.enabled:
            self._draw(force=True)
            self.stream.write("\n")
            self.stream.flush()
