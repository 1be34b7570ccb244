"""What one recorded operation costs, and one node of backward (issue 17's per-op goals: recording
≤ 6 µs per scalar op with the garbage collector on, ≤ 4 µs per 64x128 op; backward ≤ 4 µs per node).

1. A chain of 100,000 scalar multiplications ``y = y * c`` (float64, 0-d), built with Python's cyclic
   garbage collector on (as a user runs) and off: the difference is the collector's share, which
   grows with the number of objects each recorded op leaves alive. Then ``y.backward()`` through it
   (collector on), per node, and ``x.grad`` checked. Each library runs in a fresh process of its own
   (one core, see :mod:`benchmarks`), so no other library's objects are there for the collector to
   walk; rounds alternate between the libraries, and the best round counts.
2. The number of objects the collector tracks per recorded op: ``len(gc.get_objects())`` before and
   after building a chain of 10,000 (PyTorch keeps its graph in C++, out of the collector's sight).
3. One recorded ``a * b`` of two 64x128 float32 tensors that require grad (result dropped: the cost
   of freeing the node counts too), against the bare NumPy kernel; all interleaved in one process.
"""

from __future__ import annotations

import gc
import time

import numpy as np

from . import Row, fmt_seconds, in_child, interleaved_best, verdict
from . import libraries as lib

CHAIN, COUNTED, ROUNDS = 100_000, 10_000, 2
SHAPE = (64, 128)
GOAL_SCALAR, GOAL_ELEMENTWISE, GOAL_BACKWARD = 6e-6, 4e-6, 4e-6


def chain_costs(key: str, n: int = CHAIN) -> dict:
    """(child) Seconds per recorded op with the collector on and off, backward per node, and the
    GC-tracked objects per op."""
    rec = lib.Recorder(key)
    x, y = rec.chain(1000)  # warm-up
    y.backward()
    out = {}
    for collector in (True, False):
        gc.collect()
        if not collector:
            gc.disable()
        start = time.perf_counter()
        x, y = rec.chain(n)
        out["on" if collector else "off"] = (time.perf_counter() - start) / n
        gc.enable()
        if collector:
            start = time.perf_counter()
            y.backward()
            out["backward"] = (time.perf_counter() - start) / n
            rec.check_chain_grad(x, n)
        del x, y
    gc.collect()
    before = len(gc.get_objects())
    x, y = rec.chain(COUNTED)
    out["objects"] = (len(gc.get_objects()) - before) / COUNTED
    return out


def elementwise_costs(keys: list[str]) -> dict:
    """(child) Seconds per recorded ``a * b`` on SHAPE, and per bare NumPy multiply."""
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal(SHAPE).astype(np.float32) for _ in range(2))
    fns = {"numpy": lambda: a * b}
    for k in keys:
        rec = lib.Recorder(k)
        ta, tb = rec.leaf(a.copy()), rec.leaf(b.copy())
        fns[k] = lambda ta=ta, tb=tb: ta * tb
    return {k: t.seconds for k, t in interleaved_best(fns, rounds=7, budget=0.1).items()}


def run() -> list[Row]:
    keys = lib.installed(lib.RECORDING)
    costs: dict[str, dict] = {}
    for _ in range(ROUNDS):
        for k in keys:
            c = in_child("benchmarks.bench_record:chain_costs", key=k)
            costs[k] = {q: min(v, costs.get(k, c)[q]) for q, v in c.items()}
    torch = costs.get("torch")
    rows = []
    chain = f"recording y = y * c, a chain of {CHAIN:,} scalar ops"
    for k, c in costs.items():
        result = (f"{fmt_seconds(c['on'])} per op with the collector on, {fmt_seconds(c['off'])} off "
                  f"(the collector: {100 * (1 - c['off'] / c['on']):.0f}%)")
        if k == "autograd_lab":
            if torch:
                result += f"; vs PyTorch with it on: {c['on'] / torch['on']:.1f}x"
            result += f"; {verdict('≤ 6 µs with the collector on', c['on'] <= GOAL_SCALAR)}"
        rows.append(Row(chain, lib.label(k), result))
    back = f"backward through the chain of {CHAIN:,}"
    for k, c in costs.items():
        result = f"{fmt_seconds(c['backward'])} per node"
        if k == "autograd_lab":
            if torch:
                result += f"; vs PyTorch: {c['backward'] / torch['backward']:.1f}x"
            result += f"; {verdict('≤ 4 µs per node', c['backward'] <= GOAL_BACKWARD)}"
        rows.append(Row(back, lib.label(k), result))
    for k, c in costs.items():
        note = " (its graph is in C++)" if k == "torch" else ""
        rows.append(Row(f"objects the garbage collector tracks per recorded op (chain of {COUNTED:,})",
                        lib.label(k), f"{c['objects']:.1f}{note}"))

    e = in_child("benchmarks.bench_record:elementwise_costs", keys=list(keys))
    op = f"recording a * b, {SHAPE[0]}x{SHAPE[1]} float32, both require grad"
    kernel = e.pop("numpy")
    for k, s in e.items():
        result = f"{fmt_seconds(s)} vs {fmt_seconds(kernel)}: {s / kernel:.1f}x"
        if k == "autograd_lab":
            if "torch" in e:
                result += f"; vs PyTorch: {s / e['torch']:.1f}x"
            result += f"; {verdict('≤ 4 µs', s <= GOAL_ELEMENTWISE)}"
        rows.append(Row(op, f"{lib.label(k)} vs the NumPy kernel alone", result))
    rows += [Row(f"{chain}; {op}", lib.label(k), "not installed: not measured")
             for k in lib.missing(lib.RECORDING)]
    return rows
