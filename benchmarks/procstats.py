"""What a server process costs, read from /proc: CPU time (nanosecond precision) and memory.

/proc/<pid>/stat counts CPU in clock ticks of 10 ms, far too coarse for a call that costs tens
of microseconds unless tens of thousands of calls are made. /proc/<pid>/task/*/schedstat gives
each live thread's time on CPU in nanoseconds, so :func:`cpu_seconds` sums those, and falls back
to the tick count only when that is clearly larger (a thread that exited took its nanoseconds
with it; the ticks of dead threads stay in /proc/<pid>/stat).

Memory: ``VmRSS`` (resident now) and ``VmHWM`` (the peak since start, or since
:func:`reset_peak`, which writes ``5`` to /proc/<pid>/clear_refs — Linux ≥ 4.0).
"""

from __future__ import annotations

import os
from pathlib import Path

CLK_TCK = os.sysconf("SC_CLK_TCK")
TICK_SECONDS = 1.0 / CLK_TCK
TICK_SLACK = 2
"""Tick counts are rounded per thread; only this many ticks beyond schedstat mean lost threads."""


def tick_cpu_seconds(pid: int) -> float:
    """utime+stime from /proc/<pid>/stat: every thread, living or dead, in 10 ms ticks."""
    with open(f"/proc/{pid}/stat", "rb") as stat:
        fields = stat.read().rsplit(b")", 1)[1].split()
    # After the ")" closing the command name, field 3 of stat(5) is index 0: utime is
    # field 14 (index 11) and stime field 15 (index 12), in clock ticks.
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def sched_cpu_seconds(pid: int) -> float:
    """Time on CPU of the process's live threads, from schedstat (nanoseconds)."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            total += int((task / "schedstat").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            continue  # the thread exited between listing and reading
    return total / 1e9


class CpuClock:
    """CPU seconds used by one process, as precisely as /proc allows."""

    def __init__(self, pid: int) -> None:
        self.pid = pid

    def read(self) -> tuple[float, float]:
        return sched_cpu_seconds(self.pid), tick_cpu_seconds(self.pid)

    @staticmethod
    def delta(before: tuple[float, float], after: tuple[float, float]) -> float:
        """Seconds between two readings; ticks win only when threads clearly went missing."""
        sched = after[0] - before[0]
        ticks = after[1] - before[1]
        if ticks > sched + TICK_SLACK * TICK_SECONDS:
            return ticks
        return sched


def _status_kib(pid: int, key: str) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(key):
                return int(line.split()[1])
    raise KeyError(f"{key} not in /proc/{pid}/status")


def rss_bytes(pid: int) -> int:
    """Resident set size now."""
    return _status_kib(pid, "VmRSS:") * 1024


def peak_rss_bytes(pid: int) -> int:
    """Peak resident set size since start or the last :func:`reset_peak`."""
    return _status_kib(pid, "VmHWM:") * 1024


def reset_peak(pid: int) -> bool:
    """Reset the peak-RSS counter; False when the kernel (or our privileges) do not allow it."""
    try:
        with open(f"/proc/{pid}/clear_refs", "w") as clear:
            clear.write("5")
    except OSError:
        return False
    return True
