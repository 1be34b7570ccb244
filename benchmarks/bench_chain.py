"""Backward through long chains of scalar ops: the engine's cost per node, and whether it is linear.

``y = x; y = y * c`` n times, then ``y.backward()``, for n = 10^5 and 10^6. The engine is iterative
(no recursion), so both depths run; linear means the time per node stays the same, so the ratio of
the per-node times (10^6 over 10^5) is close to 1. Building the chain (forward) is timed apart.
"""

from __future__ import annotations

import gc
import time

from . import Row, fmt_seconds

SIZES = (100_000, 1_000_000)
FACTOR = 1.0000001


def _chain(T, n: int) -> tuple[float, float, float]:
    """(forward seconds, backward seconds, x.grad) for a chain of ``n`` multiplications."""
    x = T.tensor(1.0, dtype=T.float64, requires_grad=True)
    start = time.perf_counter()
    y = x
    for _ in range(n):
        y = y * FACTOR
    built = time.perf_counter()
    y.backward()
    done = time.perf_counter()
    grad = float(x.grad)
    del y
    gc.collect()
    return built - start, done - built, grad


def run() -> list[Row]:
    import autograd_lab

    rows = []
    per_node = {}
    for n in SIZES:
        fwd, bwd, grad = _chain(autograd_lab, n)
        expected = FACTOR**n
        assert abs(grad - expected) < 1e-9 * expected, (grad, expected)
        per_node[n] = bwd / n
        rows.append(Row(f"chain of {n:,} scalar multiplications", "autograd_lab backward (forward)",
                        f"{fmt_seconds(bwd)} = {fmt_seconds(bwd / n)} per node "
                        f"(building it: {fmt_seconds(fwd)} = {fmt_seconds(fwd / n)} per op)"))
    small, big = SIZES
    rows.append(Row(f"chain {small:,} vs {big:,}", "backward time per node, ratio (1.0 = linear)",
                    f"{per_node[big] / per_node[small]:.2f}x"))
    try:
        import torch
    except ImportError:
        rows.append(Row(f"chain of {small:,} scalar multiplications", "PyTorch CPU backward",
                        "PyTorch not installed: not measured"))
        return rows
    fwd, bwd, _ = _chain(torch, small)
    rows.append(Row(f"chain of {small:,} scalar multiplications",
                    f"autograd_lab vs PyTorch {torch.__version__} CPU backward",
                    f"{fmt_seconds(per_node[small])} vs {fmt_seconds(bwd / small)} per node: "
                    f"autograd_lab takes {per_node[small] * small / bwd:.1f}x"))
    return rows
