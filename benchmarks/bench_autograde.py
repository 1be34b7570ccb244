"""Autograding: seconds per notebook, one student at a time against two at once.

A temporary course (this repository's config, ``grading`` and ``solutions/<assignment>``) is
released; N students submit the solution; ``grading.pipeline.autograde`` (what
``python -m grading autograde`` runs) grades them all with 1 worker, then with 2, then again with
1 and 2; the best of each counts (the least disturbed by other load). Each round is what an
instructor runs: worker processes started, a sandboxed kernel per notebook, the gradebook
written. The ratio serial / parallel is the speed-up of using both cores.

    python -m benchmarks.bench_autograde [--students 6] [--assignment 01_tensors]
    python -m benchmarks autograde           (with the other benchmarks, into RESULTS.md)
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from benchmarks import Row, fmt_seconds  # noqa: E402
from grading import notebooks as nbt  # noqa: E402
from grading import pipeline  # noqa: E402

ASSIGNMENT = "01_tensors"
STUDENTS = 12
ROUNDS = 2


def _course(tmp: Path, assignment: str, students: int) -> pipeline.Course:
    ignore = shutil.ignore_patterns("__pycache__", ".ipynb_checkpoints")
    shutil.copy2(REPO / "nbgrader_config.py", tmp / "nbgrader_config.py")
    shutil.copytree(REPO / "grading", tmp / "grading", ignore=ignore)
    shutil.copytree(REPO / "autograd_lab", tmp / "autograd_lab", ignore=ignore)
    shutil.copytree(REPO / "solutions" / assignment, tmp / "solutions" / assignment, ignore=ignore)
    course = pipeline.Course(tmp)
    if pipeline.release(course, [assignment], log=lambda m: None):
        raise RuntimeError(f"could not release {assignment}")
    for src in course.source_notebooks(assignment):
        release = nbt.read_notebook(course.release / assignment / src.name)
        answered = nbt.answer(release, nbt.solution_sources(nbt.read_notebook(src)))
        for i in range(students):
            dest = course.submitted / f"student{i:02d}" / assignment / src.name
            dest.parent.mkdir(parents=True, exist_ok=True)
            nbt.write_notebook(answered, dest)
    return course


def measure(assignment: str = ASSIGNMENT, students: int = STUDENTS) -> dict[str, float]:
    """Seconds per notebook with 1 and with 2 workers, measured back to back."""
    with tempfile.TemporaryDirectory(prefix="bench-autograde-") as tmp:
        course = _course(Path(tmp), assignment, students)
        n = students * len(course.source_notebooks(assignment))
        out = {"notebooks": n, "jobs1": float("inf"), "jobs2": float("inf")}
        for _ in range(ROUNDS):
            for jobs in (1, 2):
                start = time.perf_counter()
                subs = pipeline.autograde(course, [assignment], jobs=jobs, force=True,
                                          progress=False, log=lambda m: None)
                seconds = (time.perf_counter() - start) / n
                out[f"jobs{jobs}"] = min(out[f"jobs{jobs}"], seconds)
                bad = [s for s in subs if s.status != "ok" or s.events]
                if bad or any(s.score is None or s.score <= 0 for s in subs):
                    raise RuntimeError(f"autograde went wrong: {bad or subs}")
        return out


def run() -> list[Row]:
    m = measure()
    return [Row(
        f"autograde {ASSIGNMENT}, {m['notebooks']} submissions (sandboxed kernels)",
        "seconds per notebook: 1 worker vs 2 workers",
        f"{fmt_seconds(m['jobs1'])} vs {fmt_seconds(m['jobs2'])}: "
        f"{m['jobs1'] / m['jobs2']:.2f}x",
    )]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--assignment", default=ASSIGNMENT)
    p.add_argument("--students", type=int, default=STUDENTS)
    args = p.parse_args(argv)
    m = measure(args.assignment, args.students)
    print(f"autograde {args.assignment}: {m['notebooks']} notebooks")
    print(f"  serial   (1 worker):  {m['jobs1']:.2f} s per notebook")
    print(f"  parallel (2 workers): {m['jobs2']:.2f} s per notebook")
    print(f"  speed-up: {m['jobs1'] / m['jobs2']:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
