"""The host-to-GPU round trip (one empty kernel launched, one int read back: a level of bfs-harish or lonestar) from
each CPU in turn, to see whether some of the host's CPUs reach a GPU faster than others (a VM's vCPUs on two
sockets look like one NUMA node from inside).
    CUDA_VISIBLE_DEVICES=G python3 experiments/harness/latency_probe.py [CPU ...]     # default: every CPU
Prints the process's own affinity first, then "cpu median_us p90_us" per CPU, then the same unpinned."""

import os
import statistics
import sys
import time

import cupy

ROUNDS, WARMUP = 1000, 200


def round_trips(kernel, flag) -> list[float]:
    for _ in range(WARMUP):
        kernel((1,), (32,), (flag,))
        flag.get()
    seconds = []
    for _ in range(ROUNDS):
        started = time.perf_counter()
        kernel((1,), (32,), (flag,))
        flag.get()
        seconds.append(time.perf_counter() - started)
    return seconds


def line(name: str, seconds: list[float]) -> str:
    ordered = sorted(seconds)
    return f"{name:>8} {statistics.median(ordered) * 1e6:8.1f} {ordered[int(0.9 * len(ordered))] * 1e6:8.1f}"


def main() -> None:
    allowed = sorted(os.sched_getaffinity(0))
    print(f"affinity: {len(allowed)} CPUs ({allowed[0]}-{allowed[-1]}), os.cpu_count {os.cpu_count()}")
    kernel = cupy.RawKernel('extern "C" __global__ void nop(int *flag) { if (threadIdx.x == 1000) flag[0] = 1; }',
                            "nop")
    flag = cupy.zeros(1, dtype=cupy.int32)
    print(line("free", round_trips(kernel, flag)))
    for cpu in [int(item) for item in sys.argv[1:]] or list(range(os.cpu_count())):
        os.sched_setaffinity(0, {cpu})
        print(line(str(cpu), round_trips(kernel, flag)), flush=True)
    os.sched_setaffinity(0, allowed)
    print(line("free", round_trips(kernel, flag)))


if __name__ == "__main__":
    main()
