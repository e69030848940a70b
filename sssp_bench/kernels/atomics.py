"""CPU atomics and a spin barrier for numba kernels: what lets a parallel CPU kernel run one persistent parallel
region per solve instead of one `prange` region per step.

numba has no atomic operations on the CPU. These are LLVM's own (`atomicrmw`, `cmpxchg`, atomic loads and stores,
all sequentially consistent), emitted through `numba.extending.intrinsic` on an element of a 1-D integer array:

    atomic_add(array, i, value) -> old        atomic_min(array, i, value) -> old (signed)
    atomic_or(array, i, value) -> old         atomic_cas(array, i, expected, new) -> old
    atomic_load(array, i) -> value            atomic_store(array, i, value)
    to_bits(x) -> int64                       (a float64's bits; an integer as it is)

`to_bits` is there for float distances: non-negative IEEE doubles order as their bit patterns do, as int64, so an
atomic min on the int64 view of a float64 array is an atomic min of the distances (+inf included; the kernels never
hold a negative or NaN distance).

The persistent region: `for worker in numba.prange(threads): body(worker, ...)` with `threads` equal to numba's
thread count gives one iteration to each thread, and the workers meet at `barrier_wait`. That needs the threading
layer to run the `threads` iterations at once: numba's `omp` layer (one static chunk per OpenMP thread) and its
`workqueue` layer (one task per worker's queue) do; `tbb` may run two iterations on one thread, one after the other,
and a spin barrier would then wait forever. `check_concurrent_layer` refuses tbb up front; as a last guard a worker
that waits at a barrier for more than `BARRIER_PATIENCE` seconds (the control's PATIENCE word) raises the region's
abort flag, every worker leaves, and the caller raises an error instead of hanging.

Waiting: a worker spins on the barrier's generation word with the CPU's pause hint, and after `SPINS_BEFORE_YIELD`
spins gives its core away (sched_yield) on each further check, so more workers than free cores (a loaded test
machine) still make progress. The pause hint and sched_yield are an LLVM intrinsic and a libc call: numba's JIT
takes no inline assembly. Measured on 2 cores (experiments/cpu-baselines/notes/cpu_baselines.md): a barrier
crossing 0.37 us, an empty `prange` region launched from compiled code 2.5 us.

The functions a worker calls per vertex or per step (`barrier_wait`, `claim_size`, the kernels' helpers) are
compiled with `_nrt=False`: numba would otherwise count references to their array arguments on every call, with
atomic increments that all workers make on the same shared arrays.
"""

from __future__ import annotations

import platform

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from ..errors import ConfigError

ORDERING = "seq_cst"

# The barrier's words, each on its own cache line of an int64 control array (`new_control`): arrivals, generation,
# abort flag, patience (seconds). Kernels put their own shared words from CONTROL_USER on, one per line
# (CONTROL_LINE int64s apart).
CONTROL_LINE = 8
BARRIER_COUNT = 0
BARRIER_GENERATION = 1 * CONTROL_LINE
ABORT = 2 * CONTROL_LINE
PATIENCE = 3 * CONTROL_LINE
CONTROL_USER = 4 * CONTROL_LINE

SPINS_BEFORE_YIELD = 1 << 12
BARRIER_PATIENCE = 120
"""Seconds a worker waits at one barrier before it decides the others never started (see the module docstring); the
control array's PATIENCE word holds it, so a test can wait less."""

CONCURRENT_LAYERS = ("omp", "workqueue")


def new_control(user_words: int = 0) -> np.ndarray:
    """A control array for a region: the barrier's words and `user_words` more, each on its own cache line."""
    control = np.zeros(CONTROL_USER + max(user_words, 1) * CONTROL_LINE, np.int64)
    reset_control(control)
    return control


def reset_control(control: np.ndarray, patience: int = BARRIER_PATIENCE) -> None:
    """Every word zero, but the barrier's patience: the state before a region starts."""
    control[:] = 0
    control[PATIENCE] = patience


def user_word(k: int) -> int:
    """The control array's index of the kernel's k-th own word."""
    return CONTROL_USER + k * CONTROL_LINE


def _element_pointer(context, builder, array_type, array, index, index_type):
    index = context.cast(builder, index, index_type, types.intp)
    struct = context.make_array(array_type)(context, builder, array)
    return cgutils.get_item_pointer(context, builder, array_type, struct, [index], wraparound=False)


def _is_int_array(array) -> bool:
    return isinstance(array, types.Array) and array.ndim == 1 and isinstance(array.dtype, types.Integer)


def _rmw(operation):
    def typer(typingctx, array, index, value):
        if not (_is_int_array(array) and isinstance(index, types.Integer) and isinstance(value, types.Number)):
            return None
        if operation == "min" and not array.dtype.signed:
            return None

        def codegen(context, builder, signature, args):
            array_value, index_value, operand = args
            pointer = _element_pointer(context, builder, array, array_value, index_value, index)
            operand = context.cast(builder, operand, value, array.dtype)
            return builder.atomic_rmw(operation, pointer, operand, ORDERING)

        return array.dtype(array, index, value), codegen

    typer.__name__ = f"atomic_{operation}"
    return intrinsic(typer)


atomic_add = _rmw("add")
atomic_min = _rmw("min")
atomic_or = _rmw("or")


@intrinsic
def atomic_cas(typingctx, array, index, expected, new):
    """Compare-and-swap array[index] from `expected` to `new`; returns the old value (== expected: swapped)."""
    if not (_is_int_array(array) and isinstance(index, types.Integer) and isinstance(expected, types.Integer)
            and isinstance(new, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        array_value, index_value, expected_value, new_value = args
        pointer = _element_pointer(context, builder, array, array_value, index_value, index)
        expected_value = context.cast(builder, expected_value, expected, array.dtype)
        new_value = context.cast(builder, new_value, new, array.dtype)
        pair = builder.cmpxchg(pointer, expected_value, new_value, ORDERING, ORDERING)
        return builder.extract_value(pair, 0)

    return array.dtype(array, index, expected, new), codegen


@intrinsic
def atomic_load(typingctx, array, index):
    if not (_is_int_array(array) and isinstance(index, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        pointer = _element_pointer(context, builder, array, args[0], args[1], index)
        return builder.load_atomic(pointer, ORDERING, array.dtype.bitwidth // 8)

    return array.dtype(array, index), codegen


@intrinsic
def atomic_store(typingctx, array, index, value):
    if not (_is_int_array(array) and isinstance(index, types.Integer) and isinstance(value, types.Number)):
        return None

    def codegen(context, builder, signature, args):
        pointer = _element_pointer(context, builder, array, args[0], args[1], index)
        builder.store_atomic(context.cast(builder, args[2], value, array.dtype), pointer, ORDERING,
                             array.dtype.bitwidth // 8)
        return context.get_dummy_value()

    return types.none(array, index, value), codegen


@intrinsic
def to_bits(typingctx, value):
    """A float64's bit pattern as an int64; an integer converted to int64."""
    if isinstance(value, types.Float):
        def codegen(context, builder, signature, args):
            double = context.cast(builder, args[0], value, types.float64)
            return builder.bitcast(double, ir.IntType(64))
    elif isinstance(value, types.Integer):
        def codegen(context, builder, signature, args):
            return context.cast(builder, args[0], value, types.int64)
    else:
        return None
    return types.int64(value), codegen


_MACHINE = platform.machine().lower()
_X86 = _MACHINE in ("x86_64", "amd64", "i686", "i386")
_ARM64 = _MACHINE in ("aarch64", "arm64")


@intrinsic
def cpu_pause(typingctx):
    """The CPU's spin-wait hint (x86 `pause`, Arm `yield`, as LLVM intrinsics: numba's JIT takes no inline
    assembly); nothing elsewhere."""

    def codegen(context, builder, signature, args):
        if _X86:
            hint = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), []),
                                                  "llvm.x86.sse2.pause")
            builder.call(hint, [])
        elif _ARM64:
            hint = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), [ir.IntType(32)]),
                                                  "llvm.aarch64.hint")
            builder.call(hint, [ir.Constant(ir.IntType(32), 1)])
        return context.get_dummy_value()

    return types.none(), codegen


@intrinsic
def sched_yield(typingctx):
    """libc's sched_yield(): give the core to another runnable thread."""

    def codegen(context, builder, signature, args):
        function = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.IntType(32), []), "sched_yield")
        builder.call(function, [])
        return context.get_dummy_value()

    return types.none(), codegen


@intrinsic
def monotonic_seconds(typingctx):
    """libc's time(NULL): whole seconds, for the barrier's patience only."""

    def codegen(context, builder, signature, args):
        pointer = ir.IntType(64).as_pointer()
        function = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.IntType(64), [pointer]), "time")
        return builder.call(function, [ir.Constant(pointer, None)])

    return types.int64(), codegen


@numba.njit(cache=True, _nrt=False)
def claim_size(items, threads, largest):
    """How many of `items` a worker claims at a time: `largest`, or fewer when that would leave fewer than four
    claims a worker (a road graph's small frontiers would otherwise go to a few workers)."""
    return max(1, min(largest, items // (4 * threads)))


@numba.njit(cache=True, _nrt=False)
def barrier_wait(control, threads):
    """Wait until all `threads` workers have arrived; False when the region was aborted (every worker should then
    leave), True otherwise. Sense by generation: the last to arrive resets the count and advances the generation."""
    if atomic_load(control, ABORT) != 0:
        return False
    generation = atomic_load(control, BARRIER_GENERATION)
    if atomic_add(control, BARRIER_COUNT, 1) == threads - 1:
        atomic_store(control, BARRIER_COUNT, 0)
        atomic_add(control, BARRIER_GENERATION, 1)
        return True
    spins = 0
    started = np.int64(0)
    while atomic_load(control, BARRIER_GENERATION) == generation:
        spins += 1
        if spins < SPINS_BEFORE_YIELD:
            cpu_pause()
            continue
        sched_yield()
        if spins == SPINS_BEFORE_YIELD:
            started = monotonic_seconds()
        elif spins % 1024 == 0:
            if atomic_load(control, ABORT) != 0:
                return False
            if monotonic_seconds() - started > control[PATIENCE]:
                atomic_store(control, ABORT, 1)
                return False
    return atomic_load(control, ABORT) == 0


@numba.njit(parallel=True, cache=True)
def _start_layer(flags):
    for i in numba.prange(len(flags)):
        flags[i] = 1


def threading_layer() -> str:
    """numba's threading layer, started (by a trivial parallel loop) if no parallel code has run yet."""
    try:
        return numba.threading_layer()
    except ValueError:  # chosen at the first parallel launch
        _start_layer(np.zeros(2, np.int64))
        return numba.threading_layer()


def check_concurrent_layer(name: str, threads: int) -> None:
    """A ConfigError when more than one worker would run under a threading layer that may not run them at once."""
    if threads <= 1:
        return
    layer = threading_layer()
    if layer not in CONCURRENT_LAYERS:
        raise ConfigError(
            f"{name}: numba's {layer!r} threading layer may run the {threads} workers one after another, and they "
            f"wait for each other; set NUMBA_THREADING_LAYER=omp (or workqueue), or threads: 1")


class numba_threads:
    """numba's thread count set for a block (it is per calling thread), and put back after."""

    def __init__(self, count: int) -> None:
        self.count = count

    def __enter__(self) -> None:
        self.saved = numba.get_num_threads()
        numba.set_num_threads(self.count)

    def __exit__(self, *exc) -> None:
        numba.set_num_threads(self.saved)


class RegionAborted(RuntimeError):
    """A persistent parallel region gave up: a worker waited at a barrier for BARRIER_PATIENCE seconds."""


def raise_if_aborted(name: str, control: np.ndarray, threads: int) -> None:
    if control[ABORT]:
        raise RegionAborted(
            f"{name}: a worker waited {control[PATIENCE]} s at a barrier for the others; numba's "
            f"{threading_layer()!r} threading layer did not run the {threads} workers at once")
