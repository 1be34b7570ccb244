"""Data-parallel training on this machine's cores, and the all-reduce algorithms.

1. One training step of an MLP 64-256-256-10 at batch 4096: 1 process against 2 data-parallel
   processes (autograd_lab.parallel, local backend), each limited to one BLAS thread so that a
   process is a core (``launch(threads=1)``); and, for reference, 1 process whose NumPy uses 2 BLAS
   threads. The step of the parallel
   run includes the all-reduce of the gradients, also reported on its own (after a barrier, so that
   waiting for the slower rank, reported apart, is not counted as all-reduce).
2. All-reduce of 1M float32 with 2 workers: naive (gather to rank 0) against ring, on shared memory;
   and gloo (torch.distributed), where PyTorch is installed.

Times are measured inside the workers, after a warm-up, with a barrier before each repetition, and
what is compared is interleaved in the same processes (the 1-process step runs on rank 0 while rank 1
waits): both sides see the same load. The best repetition counts (the least disturbed by other load).
Process start-up is not counted: a training run starts its processes once.
"""

from __future__ import annotations

import os
import time

import numpy as np

import autograd_lab as torch
from autograd_lab import parallel
from autograd_lab.parallel.example import init_mlp, make_data, mlp_loss

from . import Row, fmt_seconds

SIZES = (64, 256, 256, 10)
BATCH = 4096
STEPS = 20
WARMUP = 2
ALL_REDUCE_N = 1_000_000
ALL_REDUCE_REPS = 20


def _training_steps(rank: int, world_size: int) -> dict[str, float]:
    """Alternate, in the same processes, a whole-batch step on rank 0 alone (the others wait at a
    barrier, using no CPU) and a data-parallel step on all ranks: both see the same machine load."""
    x, y = make_data(BATCH, features=SIZES[0], classes=SIZES[-1])
    params = init_mlp(SIZES)
    dp = parallel.DataParallel(params)

    def step(xs: torch.Tensor, ys: torch.Tensor, sync: bool) -> tuple[float, float]:
        """One step; returns (seconds waiting for the slower rank, seconds in the all-reduce)."""
        for p in params:
            p.grad = None
        mlp_loss(params, xs, ys).backward()
        waited = reduced = 0.0
        if sync:
            start = time.perf_counter()
            parallel.barrier()  # separates waiting for the other rank from the all-reduce itself
            waited = time.perf_counter() - start
            dp.sync_gradients(weight=len(xs) / BATCH)
            reduced = time.perf_counter() - start - waited
        with torch.no_grad():
            for p in params:
                p -= 0.01 * p.grad
        return waited, reduced

    times: dict[str, list[float]] = {"alone": [], "parallel": [], "wait": [], "sync": []}
    for i in range(WARMUP + STEPS):
        parallel.barrier()
        start = time.perf_counter()
        if rank == 0:
            step(x, y, sync=False)
        alone = time.perf_counter() - start
        parallel.barrier()
        start = time.perf_counter()
        waited, reduced = step(*dp.shard(x, y), sync=True)
        if i >= WARMUP:
            times["alone"].append(alone)
            times["parallel"].append(time.perf_counter() - start)
            times["wait"].append(waited)
            times["sync"].append(reduced)
    return {"alone": min(times["alone"]), "parallel": min(times["parallel"]),
            "wait": float(np.median(times["wait"])), "sync": float(np.median(times["sync"])),
            "params": sum(p.numel() for p in params)}


def _all_reduce_times(rank: int, world_size: int, algorithms: tuple[str | None, ...]) -> dict:
    x = np.ones(ALL_REDUCE_N, np.float32)
    times: dict[str | None, list[float]] = {a: [] for a in algorithms}
    for _ in range(ALL_REDUCE_REPS):
        for algorithm in algorithms:  # interleaved: the same load for each
            parallel.barrier()
            start = time.perf_counter()
            parallel.all_reduce(x, algorithm=algorithm)
            times[algorithm].append(time.perf_counter() - start)
    return {a: min(t) for a, t in times.items()}


def _steps(world_size: int, threads: int) -> dict[str, float]:
    results = parallel.launch(_training_steps, world_size, timeout=300, threads=threads)
    return {**results[0], "parallel": max(r["parallel"] for r in results),  # as slow as the slowest rank
            "sync": max(r["sync"] for r in results), "wait": max(r["wait"] for r in results)}


def run() -> list[Row]:
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    two = _steps(2, threads=1)
    threaded = _steps(1, threads=2)["alone"]
    one, par = two["alone"], two["parallel"]
    name = f"Data-parallel MLP {'-'.join(map(str, SIZES))} step, batch {BATCH}"
    rows = [
        Row(name, "1 process vs 2 data-parallel processes (1 BLAS thread each)",
            f"{fmt_seconds(one)} vs {fmt_seconds(par)}: {one / par:.2f}x speed-up on {cores} cores"),
        Row(name, "within the 2-process step: all-reduce of the gradients; waiting for the slower rank",
            f"{two['params'] / 1e3:.0f}k floats: {fmt_seconds(two['sync'])} "
            f"({100 * two['sync'] / par:.1f}% of the step); waiting {fmt_seconds(two['wait'])} (median)"),
        Row(name, "1 process with 2 BLAS threads vs 2 processes with 1",
            f"{fmt_seconds(threaded)} vs {fmt_seconds(par)}: {threaded / par:.2f}x"),
    ]
    times = parallel.launch(_all_reduce_times, 2, (("naive", "ring"),))
    naive = max(t["naive"] for t in times)
    ring = max(t["ring"] for t in times)
    what = f"All-reduce of {ALL_REDUCE_N / 1e6:g}M float32, 2 workers"
    rows.append(Row(what, "naive (gather to rank 0) vs ring, local shared memory",
                    f"{fmt_seconds(naive)} vs {fmt_seconds(ring)}: naive / ring = {naive / ring:.2f}"))
    if parallel.is_gloo_available():
        gloo = max(t[None] for t in parallel.launch(_all_reduce_times, 2, ((None,),), backend="gloo"))
        rows.append(Row(what, "ring (local shared memory) vs gloo (torch.distributed, TCP on 127.0.0.1)",
                        f"{fmt_seconds(ring)} vs {fmt_seconds(gloo)}: {gloo / ring:.2f}x"))
    else:
        rows.append(Row(what, "ring vs gloo (torch.distributed)", "skipped: PyTorch is not installed"))
    return rows
