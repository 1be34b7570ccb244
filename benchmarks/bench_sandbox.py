"""The price of the autograde sandbox: seconds per notebook, sandboxed against not.

A temporary course (as bench_autograde.py makes it) with N students who submit the solution is
autograded with one worker, three ways, in alternating rounds (the best round of each counts):

* plain: ``--sandbox off --canaries 0``, the kernel started as nbgrader starts it;
* sandboxed: each kernel in its bubblewrap sandbox with its limits (grading/sandbox.py);
* hardened: sandboxed, with the two canary tests per notebook (grading/tamper.py), as an
  instructor's ``python -m grading autograde`` runs by default.

The canaries' one-time verification against the solution is done by a first run, not timed.

    python -m benchmarks.bench_sandbox [--students 6] [--assignment 01_tensors]
    python -m benchmarks sandbox            (with the other benchmarks, into RESULTS.md)
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from benchmarks import Row, fmt_seconds  # noqa: E402
from benchmarks.bench_autograde import _course  # noqa: E402
from grading import pipeline  # noqa: E402

ASSIGNMENT = "01_tensors"
STUDENTS = 6
ROUNDS = 2
WAYS = {"plain": {"sandbox": "off", "canaries": 0},
        "sandboxed": {"sandbox": None, "canaries": 0},
        "hardened": {"sandbox": None, "canaries": None}}


def measure(assignment: str = ASSIGNMENT, students: int = STUDENTS) -> dict[str, float]:
    """Seconds per notebook of each way, one worker, measured in alternating rounds."""
    with tempfile.TemporaryDirectory(prefix="bench-sandbox-") as tmp:
        course = _course(Path(tmp), assignment, students)
        n = students * len(course.source_notebooks(assignment))
        pipeline.autograde(course, [assignment], jobs=1, force=True, progress=False,
                           log=lambda m: None)  # verifies the canaries once
        out: dict[str, float] = {"notebooks": n, **{w: float("inf") for w in WAYS}}
        for _ in range(ROUNDS):
            for way, kw in WAYS.items():
                start = time.perf_counter()
                subs = pipeline.autograde(course, [assignment], jobs=1, force=True,
                                          progress=False, log=lambda m: None, **kw)
                out[way] = min(out[way], (time.perf_counter() - start) / n)
                bad = [s for s in subs if s.status != "ok" or s.score is None or s.score <= 0]
                if bad:
                    raise RuntimeError(f"autograde went wrong ({way}): {bad}")
        return out


def run() -> list[Row]:
    m = measure()
    return [Row(
        f"autograde {ASSIGNMENT}, {m['notebooks']} submissions, 1 worker",
        "seconds per notebook: plain kernel vs bubblewrap sandbox vs sandbox + 2 canaries",
        f"{fmt_seconds(m['plain'])} vs {fmt_seconds(m['sandboxed'])} vs "
        f"{fmt_seconds(m['hardened'])}: {m['sandboxed'] / m['plain']:.2f}x, "
        f"{m['hardened'] / m['plain']:.2f}x",
    )]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--assignment", default=ASSIGNMENT)
    p.add_argument("--students", type=int, default=STUDENTS)
    args = p.parse_args(argv)
    m = measure(args.assignment, args.students)
    print(f"autograde {args.assignment}: {m['notebooks']} notebooks, 1 worker")
    for way in WAYS:
        print(f"  {way:10} {m[way]:.2f} s per notebook ({m[way] / m['plain']:.2f}x plain)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
