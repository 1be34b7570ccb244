"""A chain of a million recorded scalar ops: its peak memory, and whether backward stays linear
(issue 17: peak memory at or below PyTorch's; backward per node from 10^5 to 10^6 within 1.2x).

``y = x; y = y * c`` n times (float64, 0-d), then ``y.backward()``, ``x.grad`` checked, for
n = 10^5 and then 10^6, in a fresh process per library (one core, see :mod:`benchmarks`), so that the
peak resident memory (``VmHWM``) is the chain's and that library's alone; what the process held after
importing the library and a warm-up is reported apart, and the goal compares the part above it (the
graph's own memory; PyTorch's import alone holds some 200 MB more than autograd_lab's). The engines
are iterative (no recursion), so both depths run; linear means the same time per node at both.
The collector stays on, as a user runs. About a minute, most of it autograd_lab's 10^6 chain.
"""

from __future__ import annotations

import gc
import time

from . import Row, fmt_bytes, fmt_seconds, in_child, rss_bytes, verdict
from . import libraries as lib

SIZES = (100_000, 1_000_000)
KEYS = ("floor", "autograd_lab", "torch")  # mygrad left out: another minute for an optional oracle
GOAL_LINEAR = 1.2


def big_chain(key: str) -> dict:
    """(child) RSS after import, backward seconds per node at each size, and the peak RSS."""
    rec = lib.Recorder(key)
    x, y = rec.chain(1000)
    y.backward()
    del x, y
    gc.collect()
    out: dict = {"baseline": rss_bytes(), "backward": {}}
    for n in SIZES:
        x, y = rec.chain(n)
        start = time.perf_counter()
        y.backward()
        out["backward"][str(n)] = (time.perf_counter() - start) / n
        rec.check_chain_grad(x, n)
        del x, y
        gc.collect()
    out["peak"] = rss_bytes("VmHWM")
    return out


def run() -> list[Row]:
    small, big = (str(n) for n in SIZES)
    results = {k: in_child("benchmarks.bench_chain:big_chain", key=k) for k in lib.installed(KEYS)}
    torch = results.get("torch")
    rows = []
    for k, r in results.items():
        graph = r["peak"] - r["baseline"]
        result = (f"{fmt_bytes(r['peak'])} at the peak, {fmt_bytes(graph)} above the "
                  f"{fmt_bytes(r['baseline'])} after import ({graph / SIZES[1]:,.0f} B per node)")
        if k == "autograd_lab" and torch:
            torch_graph = torch["peak"] - torch["baseline"]
            result += (f"; vs PyTorch: {graph / torch_graph:.2f}x above import, "
                       f"{r['peak'] / torch['peak']:.2f}x at the peak; "
                       f"{verdict('≤ PyTorch above import', graph <= torch_graph)}")
        rows.append(Row(f"a chain of {SIZES[1]:,} scalar ops, recorded then backward: peak memory (RSS)",
                        f"{lib.label(k)}, fresh process", result))
    for k, r in results.items():
        b = r["backward"]
        ratio = b[big] / b[small]
        result = f"{fmt_seconds(b[small])} vs {fmt_seconds(b[big])} per node: {ratio:.2f}x"
        if k == "autograd_lab":
            result += f"; {verdict(f'≤ {GOAL_LINEAR}x', ratio <= GOAL_LINEAR)}"
        rows.append(Row(f"backward per node, chain of {SIZES[0]:,} vs {SIZES[1]:,} (1.00 = linear)",
                        lib.label(k), result))
    rows += [Row(f"a chain of {SIZES[1]:,} scalar ops", lib.label(k), "not installed: not measured")
             for k in lib.missing(KEYS)]
    return rows
