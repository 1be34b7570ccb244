"""The solution notebooks, executed one after another top to bottom: total seconds against the
course's goal of 60 s for all of them on a 2-core machine.

Two runs: as the grader runs them (``NBGRADER_EXECUTION`` set, which skips the optional PyTorch
comparisons) and as a learner runs them (the comparisons run where PyTorch is installed). Each
notebook gets a fresh kernel, as in JupyterLab; kernel start-up is counted.

    python -m benchmarks.bench_notebooks
    python -m benchmarks notebooks        (with the other benchmarks, into RESULTS.md)
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from benchmarks import Row  # noqa: E402

GOAL_SECONDS = 60.0


def solution_notebooks() -> list[Path]:
    return sorted((REPO / "solutions").glob("*/*.ipynb"))


def execute_all(grading: bool) -> dict[str, float]:
    """Seconds per notebook; raises if a notebook fails."""
    import nbformat
    from nbclient import NotebookClient

    saved = os.environ.get("NBGRADER_EXECUTION")
    if grading:
        os.environ["NBGRADER_EXECUTION"] = "autograde"
    else:
        os.environ.pop("NBGRADER_EXECUTION", None)
    try:
        seconds = {}
        for path in solution_notebooks():
            nb = nbformat.read(path, as_version=4)
            start = time.perf_counter()
            client = NotebookClient(nb, timeout=300, kernel_name="python3",
                                    resources={"metadata": {"path": str(path.parent)}})
            client.execute(stderr=subprocess.DEVNULL)  # the kernel's start-up chatter
            seconds[path.stem] = time.perf_counter() - start
        return seconds
    finally:
        if saved is None:
            os.environ.pop("NBGRADER_EXECUTION", None)
        else:
            os.environ["NBGRADER_EXECUTION"] = saved


def _torch_installed() -> bool:
    import importlib.util

    return importlib.util.find_spec("torch") is not None


def run() -> list[Row]:
    rows = []
    for grading, label in ((True, "as graded (NBGRADER_EXECUTION)"),
                           (False, "as a learner runs them" + (" (PyTorch comparisons on)"
                                                               if _torch_installed() else ""))):
        seconds = execute_all(grading)
        total = sum(seconds.values())
        slowest = max(seconds, key=seconds.get)
        rows.append(Row(
            f"all {len(seconds)} solution notebooks, top to bottom, {label}",
            f"total seconds vs the {GOAL_SECONDS:.0f} s goal (slowest notebook)",
            f"{total:.1f} s vs {GOAL_SECONDS:.0f} s: {total / GOAL_SECONDS:.2f} of the goal "
            f"({slowest} {seconds[slowest]:.1f} s)",
        ))
    return rows


def main() -> int:
    for grading in (True, False):
        seconds = execute_all(grading)
        print("as graded:" if grading else "as a learner runs them:")
        for name, s in seconds.items():
            print(f"  {name:20} {s:6.1f} s")
        print(f"  {'total':20} {sum(seconds.values()):6.1f} s (goal {GOAL_SECONDS:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
