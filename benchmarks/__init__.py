"""Benchmarks: every speed claim of the project, as ratios measured within one run.

Each ``bench_<name>.py`` module defines ``run() -> list[Row]``; ``python -m benchmarks`` runs them
all and writes the table to ``benchmarks/RESULTS.md``. Ratios, not absolute times, are the result:
the machines are shared and noisy, but two things timed side by side in one run compare fairly.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class Row:
    benchmark: str  # what is compared, e.g. "MLP 64-128-10 step, batch 64"
    measurement: str  # e.g. "autograd_lab vs hand-written NumPy"
    result: str  # the figures, e.g. "1.42 ms vs 0.51 ms: 2.8x"


def best_time(fn: Callable[[], object], repeat: int = 5, number: int = 0, budget: float = 0.2) -> float:
    """Seconds per call: the best of ``repeat`` rounds (the least disturbed by other load).

    ``number`` calls per round; when 0, as many as fit in ``budget`` seconds (at least one).
    """
    if number <= 0:
        start = time.perf_counter()
        fn()
        once = time.perf_counter() - start
        number = max(1, int(budget / max(once, 1e-9)))
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - start) / number)
    return best


def fmt_seconds(s: float) -> str:
    if s >= 1:
        return f"{s:.2f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.2f} ms"
    return f"{s * 1e6:.1f} µs"
