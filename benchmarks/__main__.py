"""Run every benchmark and write the table: ``python -m benchmarks [name ...]``."""

from __future__ import annotations

import importlib
import pkgutil
import platform
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def main(argv: list[str]) -> int:
    names = sorted(m.name for m in pkgutil.iter_modules([str(HERE)]) if m.name.startswith("bench_"))
    if argv:
        names = [n for n in names if any(a in n for a in argv)]
    rows = []
    for name in names:
        print(f"running {name} ...", flush=True)
        start = time.perf_counter()
        module = importlib.import_module(f"benchmarks.{name}")
        for row in module.run():
            rows.append(row)
            print(f"  {row.benchmark} | {row.measurement} | {row.result}", flush=True)
        print(f"  ({time.perf_counter() - start:.1f} s)", flush=True)
    lines = [
        "# Benchmark results",
        "",
        f"Made by `python -m benchmarks` on {time.strftime('%Y-%m-%d')}: Python {platform.python_version()}, "
        f"NumPy {np.__version__}, {platform.machine()} ({_cpu()}), {_cores()} cores. Each line compares "
        "within one run; ratios between libraries move from machine to machine (PyTorch's most).",
        "",
        "| Benchmark | Measurement | Result |",
        "|---|---|---|",
    ]
    lines += [f"| {r.benchmark} | {r.measurement} | {r.result} |" for r in rows]
    if not argv:
        (HERE / "RESULTS.md").write_text("\n".join(lines) + "\n")
        print(f"wrote {HERE / 'RESULTS.md'}")
        readme = HERE.parent / "README.md"
        readme.write_text(with_table(readme.read_text(), "\n".join(lines[2:])))
        print(f"updated the table in {readme}")
    else:
        print("\n".join(lines))
    return 0


START, END = "<!-- benchmarks: start (python -m benchmarks writes this) -->", "<!-- benchmarks: end -->"


def with_table(readme: str, table: str) -> str:
    """The README with ``table`` between the START and END markers."""
    head, rest = readme.split(START, 1)
    return f"{head}{START}\n{table}\n{END}{rest.split(END, 1)[1]}"


def _cores() -> int:
    import os

    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _cpu() -> str:
    """The processor's model name (Linux), which the ratios depend on; else the platform's word."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown processor"


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
