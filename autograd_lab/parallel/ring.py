"""Ring all-reduce as pure functions: the schedule, and a step-by-step simulation that counts messages.

``p`` workers stand in a ring; each buffer is cut into ``p`` chunks. Then

1. **reduce-scatter**, ``p - 1`` steps: at step ``s`` worker ``r`` sends chunk ``(r - s) % p`` to its
   right neighbour ``(r + 1) % p``, which combines it into its own copy of that chunk. Afterwards
   worker ``r`` holds the fully reduced chunk ``(r + 1) % p``.
2. **all-gather**, ``p - 1`` steps: at step ``s`` worker ``r`` sends chunk ``(r + 1 - s) % p`` to its
   right neighbour, which overwrites its copy. Afterwards every worker holds every reduced chunk.

What is counted: a *message* is one chunk sent by one worker to one neighbour in one step. In each of
the ``2 (p - 1)`` steps every worker sends one, so the ring sends ``2 p (p - 1)`` messages of about
``n / p`` elements: each worker sends (and receives) ``2 (p - 1) n / p`` elements -- nearly ``2 n``,
however many workers there are. The naive all-reduce (everyone sends its whole buffer to worker 0,
which reduces and sends the result back) sends only ``2 (p - 1)`` messages, but of ``n`` elements each,
all through worker 0: ``2 (p - 1) n`` elements over one worker's link.

The local backend (:mod:`autograd_lab.parallel.local`) runs exactly this schedule on shared memory;
notebook 10 simulates it with :func:`ring_all_reduce_steps`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from .reduce_op import ReduceOp, as_reduce_op, check_dtype, combine, finish


def chunk_bounds(n: int, world_size: int) -> list[tuple[int, int]]:
    """``[start, stop)`` of each of ``world_size`` chunks of ``n`` elements, as ``np.array_split``
    cuts them: the first ``n % world_size`` chunks are one element longer (some may be empty)."""
    if world_size < 1:
        raise ValueError(f"world_size must be at least 1, got {world_size}")
    base, extra = divmod(n, world_size)
    bounds, start = [], 0
    for i in range(world_size):
        stop = start + base + (1 if i < extra else 0)
        bounds.append((start, stop))
        start = stop
    return bounds


def reduce_scatter_step(rank: int, step: int, world_size: int) -> tuple[int, int]:
    """``(chunk rank sends to its right neighbour, chunk it receives from its left one)`` at
    reduce-scatter step ``step`` (``0 <= step < world_size - 1``)."""
    return (rank - step) % world_size, (rank - step - 1) % world_size


def all_gather_step(rank: int, step: int, world_size: int) -> tuple[int, int]:
    """``(chunk sent right, chunk received from the left)`` at all-gather step ``step``."""
    return (rank + 1 - step) % world_size, (rank - step) % world_size


def owned_chunk(rank: int, world_size: int) -> int:
    """The chunk that ``rank`` holds fully reduced after the reduce-scatter."""
    return (rank + 1) % world_size


def ring_message_count(world_size: int) -> int:
    """Messages of a ring all-reduce: ``2 (p - 1)`` steps, one message per worker per step."""
    return 2 * world_size * (world_size - 1)


def naive_message_count(world_size: int) -> int:
    """Messages of the naive all-reduce: ``p - 1`` buffers to worker 0, ``p - 1`` results back."""
    return 2 * (world_size - 1)


@dataclass(frozen=True)
class Message:
    """One buffer piece sent from ``src`` to ``dst`` (``chunk`` is None for a whole buffer)."""

    phase: str  # "reduce-scatter", "all-gather" (ring); "gather", "broadcast" (naive)
    step: int
    src: int
    dst: int
    chunk: int | None
    elements: int
    nbytes: int


@dataclass
class Step:
    """The state after one step of a simulated all-reduce: the messages of the step and a copy of
    every worker's buffer."""

    phase: str
    step: int
    messages: list[Message]
    buffers: list[np.ndarray]


def _start(buffers: Sequence[np.ndarray]) -> tuple[list[np.ndarray], tuple[int, ...]]:
    if len(buffers) == 0:
        raise ValueError("an all-reduce needs at least one buffer (one per worker)")
    arrays = [np.asarray(b) for b in buffers]
    shape, dtype = arrays[0].shape, arrays[0].dtype
    for r, a in enumerate(arrays):
        if a.shape != shape or a.dtype != dtype:
            raise ValueError(
                f"every worker must contribute a buffer of the same shape and dtype: worker 0 has "
                f"{shape} {dtype}, worker {r} has {a.shape} {a.dtype}"
            )
    return [a.reshape(-1).copy() for a in arrays], shape


def ring_all_reduce_steps(buffers: Sequence[np.ndarray], op: ReduceOp | str = ReduceOp.SUM) -> Iterator[Step]:
    """Simulate a ring all-reduce over ``buffers`` (one per worker), yielding the state after every step.

    Within a step all workers send at once: each message carries its chunk as it was *before* the step.
    """
    op = as_reduce_op(op)
    work, shape = _start(buffers)
    p = len(work)
    check_dtype(op, work[0].dtype)
    bounds = chunk_bounds(work[0].size, p)
    itemsize = work[0].itemsize

    def snapshot() -> list[np.ndarray]:
        return [w.reshape(shape).copy() for w in work]

    for phase, schedule in (("reduce-scatter", reduce_scatter_step), ("all-gather", all_gather_step)):
        for step in range(p - 1):
            sends = []
            for src in range(p):
                chunk, _ = schedule(src, step, p)
                lo, hi = bounds[chunk]
                sends.append((src, (src + 1) % p, chunk, work[src][lo:hi].copy()))
            messages = []
            for src, dst, chunk, payload in sends:
                lo, hi = bounds[chunk]
                if phase == "reduce-scatter":
                    combine(op, work[dst][lo:hi], payload)
                else:
                    work[dst][lo:hi] = payload
                messages.append(Message(phase, step, src, dst, chunk, payload.size, payload.size * itemsize))
            if phase == "reduce-scatter" and step == p - 2:
                for r in range(p):  # AVG: each worker divides the chunk it owns, once
                    lo, hi = bounds[owned_chunk(r, p)]
                    finish(op, work[r][lo:hi], p)
            yield Step(phase, step, messages, snapshot())


def simulate_ring_all_reduce(
    buffers: Sequence[np.ndarray], op: ReduceOp | str = ReduceOp.SUM
) -> tuple[list[np.ndarray], list[Message]]:
    """Ring all-reduce, simulated: ``(every worker's result, every message sent)``."""
    work, _ = _start(buffers)
    results = [w.reshape(np.shape(buffers[0])) for w in work]
    messages: list[Message] = []
    for step in ring_all_reduce_steps(buffers, op):
        messages += step.messages
        results = step.buffers
    return results, messages


def simulate_naive_all_reduce(
    buffers: Sequence[np.ndarray], op: ReduceOp | str = ReduceOp.SUM
) -> tuple[list[np.ndarray], list[Message]]:
    """Naive all-reduce, simulated: workers ``1..p-1`` send their whole buffer to worker 0 ("gather"),
    which reduces them and sends the result to each of them ("broadcast")."""
    op = as_reduce_op(op)
    work, shape = _start(buffers)
    p = len(work)
    check_dtype(op, work[0].dtype)
    n, nbytes = work[0].size, work[0].nbytes
    messages = []
    for src in range(1, p):
        combine(op, work[0], work[src])
        messages.append(Message("gather", 0, src, 0, None, n, nbytes))
    finish(op, work[0], p)
    for dst in range(1, p):
        work[dst][...] = work[0]
        messages.append(Message("broadcast", 1, 0, dst, None, n, nbytes))
    return [w.reshape(shape) for w in work], messages


def traffic(messages: Sequence[Message], world_size: int) -> dict[str, int]:
    """Totals of a list of messages: how many, elements in all, and the most any one worker sent or
    received (the load on the busiest link, which sets the time when links are the bottleneck)."""
    sent, received = [0] * world_size, [0] * world_size
    for m in messages:
        sent[m.src] += m.elements
        received[m.dst] += m.elements
    return {
        "messages": len(messages),
        "elements": sum(m.elements for m in messages),
        "max_sent_by_one_worker": max(sent),
        "max_received_by_one_worker": max(received),
    }
