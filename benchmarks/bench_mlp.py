"""One SGD training step of an MLP 64-128-10 at batch 64, on one core, every implementation of
:mod:`benchmarks.libraries` side by side (issue 17's first goal: autograd_lab ≤ 3x hand NumPy, and
faster than PyTorch on one thread).

The step: forward (linear, ReLU, linear), mean cross-entropy of ``log_softmax`` picked by indexing,
backward, and ``p -= lr * p.grad``; float32. Every implementation starts from the same initial
weights and must give the same losses for its first steps (checked here, to 1e-5 relative) before it
is timed. Timing: the best of 7 interleaved rounds in one child process pinned to one core (see
:mod:`benchmarks`); CPU over wall time shows that each ran on one thread. JAX runs in a child of its
own, interleaved with hand NumPy only, and is compared with that NumPy: interleaved with the other
libraries, its jit-compiled step ran up to 1.6x slower (its dispatch is sensitive to what ran between
its calls), which would not be a fair figure. Even so its figure is the least stable here: each step
hands work between Python's thread and XLA's, which on one core means switching between them, and
the more so when other processes load the machine; on this shared 2-core machine it ranged from 3x to
8.6x hand NumPy between runs of one day.

Then memory over 1,000 steps, in a fresh process per implementation: resident memory (RSS) and the
number of objects the garbage collector tracks, sampled every 20 steps after a warm-up; the slope of
a least-squares line says whether training leaks (flat: under 1 kB per step, 1 MB per 1,000 steps).
"""

from __future__ import annotations

import gc

import numpy as np

from . import Row, fmt_bytes, fmt_seconds, in_child, interleaved_best, rss_bytes, verdict
from . import libraries as lib

CHECKED_STEPS = 5
MEMORY_STEPS, WARMUP, EVERY = 1000, 100, 20
FLAT_BYTES_PER_STEP = 1000.0


def times(keys: list[str]) -> dict:
    """(child) Check that all give the same losses, then time them interleaved."""
    steps = {k: lib.mlp_step(k) for k in keys}
    losses = {k: [step() for _ in range(CHECKED_STEPS)] for k, step in steps.items()}
    for k, ls in losses.items():
        np.testing.assert_allclose(ls, losses["numpy"], rtol=1e-5, err_msg=f"{k}: not the same losses")
    steps = {k: lib.mlp_step(k) for k in keys}  # timed from the same start again
    return {k: vars(t) for k, t in interleaved_best(steps, rounds=7, budget=0.1).items()}


def memory(key: str) -> dict:
    """(child) RSS and GC-tracked objects over MEMORY_STEPS steps after WARMUP: the slopes."""
    step = lib.mlp_step(key)
    for _ in range(WARMUP):
        step()
    at, rss, objects = [], [], []
    for i in range(MEMORY_STEPS + 1):
        if i % EVERY == 0:
            at.append(i)
            rss.append(rss_bytes())
            objects.append(len(gc.get_objects()))
        if i < MEMORY_STEPS:
            step()
    return {"rss_slope": float(np.polyfit(at, rss, 1)[0]), "rss_growth": rss[-1] - rss[0], "rss": rss[-1],
            "objects_slope": float(np.polyfit(at, objects, 1)[0])}


def run() -> list[Row]:
    keys = list(lib.installed())
    name = f"{lib.MLP}, one core"
    t: dict[str, dict] = {}
    base: dict[str, float] = {}  # each implementation's hand NumPy: the one timed in its process
    for group in ([k for k in keys if k != "jax"], [k for k in keys if k in ("numpy", "jax")]):
        if len(group) > 1:
            times_ = in_child("benchmarks.bench_mlp:times", keys=group)
            t.update(times_)
            base.update(dict.fromkeys(group, times_["numpy"]["seconds"]))
    rows = []
    for k in keys[1:]:
        s = t[k]["seconds"]
        result = (f"{fmt_seconds(s)} vs {fmt_seconds(base[k])}: {s / base[k]:.1f}x "
                  f"(CPU/wall {t[k]['cpu_over_wall']:.2f}{', own process' if k == 'jax' else ''})")
        if k == "autograd_lab":
            result += f"; {verdict('≤ 3x', s / base[k] <= 3)}"
        what = f"{lib.label(k)} vs {lib.label('numpy')}, the same {CHECKED_STEPS} losses"
        rows.append(Row(name, what, result))
    if "torch" in t:
        s, s_torch = t["autograd_lab"]["seconds"], t["torch"]["seconds"]
        rows.append(Row(name, f"autograd_lab vs {lib.label('torch')}",
                        f"{fmt_seconds(s)} vs {fmt_seconds(s_torch)}: {s / s_torch:.2f}x; "
                        f"{verdict('faster than PyTorch (< 1x)', s < s_torch)}"))
    rows += [Row(name, lib.label(k), "not installed: not measured") for k in lib.missing()]

    steps = f"memory over {MEMORY_STEPS:,} steps of the {lib.MLP}"
    for k in [k for k in ("autograd_lab", "torch", "numpy") if k in keys]:
        m = in_child("benchmarks.bench_mlp:memory", key=k)
        result = (f"RSS {fmt_bytes(m['rss'])}, slope {m['rss_slope']:+.0f} B/step "
                  f"({fmt_bytes(m['rss_growth'])} in all); GC-tracked objects {m['objects_slope']:+.3f}/step")
        if k == "autograd_lab":
            result += f"; {verdict('flat (< 1 kB/step)', abs(m['rss_slope']) < FLAT_BYTES_PER_STEP)}"
        rows.append(Row(steps, f"{lib.label(k)}, fresh process", result))
    return rows
