"""Benchmarks: every speed claim of the project, as ratios measured within one run.

Each ``bench_<name>.py`` module defines ``run() -> list[Row]``; ``python -m benchmarks`` runs them
all and writes the table to ``benchmarks/RESULTS.md``. Ratios, not absolute times, are the result:
the machines are shared and noisy, but two things timed side by side in one run compare fairly.

Rows that compare autograd_lab with other libraries on one thread (issue 17) run in child processes
(:func:`in_child`): each is started with ``OMP_NUM_THREADS``, ``OPENBLAS_NUM_THREADS`` and
``MKL_NUM_THREADS`` set to 1 before NumPy loads, is pinned to one core before it imports anything
(``os.sched_setaffinity``: the only way found to keep JAX/XLA, whose thread pool ignores those
variables and ``XLA_FLAGS``, on one thread), and calls ``torch.set_num_threads(1)`` when it uses
PyTorch. Each row then reports CPU time over wall time (1.00 = one core busy) as the proof.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ONE_THREAD_ENV = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
REPO = Path(__file__).resolve().parents[1]


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
        number = _calls_in(fn, budget)
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - start) / number)
    return best


@dataclass
class Timing:
    seconds: float  # per call, the best round
    cpu_over_wall: float  # process CPU time over wall time in all rounds: 1.0 = one core busy


def interleaved_best(fns: dict[str, Callable[[], object]], rounds: int = 7,
                     budget: float = 0.1) -> dict[str, Timing]:
    """Seconds per call of each function: the best of ``rounds`` rounds, each round timing every
    function once in turn, so that a burst of load on the machine hits all of them alike.

    Calls per round: as many as fit in ``budget`` seconds, counted once for each function first.
    """
    numbers = {k: _calls_in(fn, budget) for k, fn in fns.items()}
    best = dict.fromkeys(fns, float("inf"))
    wall = dict.fromkeys(fns, 0.0)
    cpu = dict.fromkeys(fns, 0.0)
    for _ in range(rounds):
        for k, fn in fns.items():
            c, start = time.process_time(), time.perf_counter()
            for _ in range(numbers[k]):
                fn()
            w = time.perf_counter() - start
            best[k] = min(best[k], w / numbers[k])
            wall[k] += w
            cpu[k] += time.process_time() - c
    return {k: Timing(best[k], cpu[k] / wall[k]) for k in fns}


def _calls_in(fn: Callable[[], object], budget: float) -> int:
    start = time.perf_counter()
    fn()
    once = time.perf_counter() - start
    return max(1, int(budget / max(once, 1e-9)))


def fmt_seconds(s: float) -> str:
    if s >= 1:
        return f"{s:.2f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.2f} ms"
    return f"{s * 1e6:.1f} µs"


def fmt_bytes(n: float) -> str:
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if abs(n) >= size:
            return f"{n / size:.2f} {unit}"
    return f"{n:.0f} B"


def verdict(goal: str, met: bool) -> str:
    """The goal a row measures, and whether this run meets it: ``goal ≤ 3x: not met``."""
    return f"goal {goal}: {'met' if met else '**not met**'}"


def in_child(target: str, timeout: float = 900, **kwargs: Any) -> Any:
    """``module:function(**kwargs)`` run in a fresh Python process on one thread (see the module
    docstring); returns what the function returned (JSON-able). Raises with the child's stderr when it
    fails. A fresh process per call: nothing another library imported or left behind is in it."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "result.json"
        env = {**os.environ, **ONE_THREAD_ENV, "PYTHONPATH": os.pathsep.join(
            p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p)}
        proc = subprocess.run(
            [sys.executable, "-m", "benchmarks._child", target, json.dumps(kwargs), str(out)],
            env=env, cwd=REPO, capture_output=True, text=True, timeout=timeout,
        )
        if proc.returncode != 0 or not out.exists():
            raise RuntimeError(f"benchmark child {target} failed (exit {proc.returncode}):\n{proc.stderr}")
        return json.loads(out.read_text())


def rss_bytes(field: str = "VmRSS") -> int:
    """This process's resident memory now (``VmRSS``) or at its peak (``VmHWM``), from /proc (Linux);
    elsewhere the peak from ``getrusage``."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    import resource

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024
