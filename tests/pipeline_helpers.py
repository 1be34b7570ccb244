"""Helpers for tests/test_pipeline.py: build nbgrader notebooks and course copies, read grades."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import nbformat

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from grading import notebooks as nbtools  # noqa: E402

PYTHON = sys.executable


# --- building notebooks -------------------------------------------------------------------

def _meta(grade_id: str, *, grade: bool, solution: bool, locked: bool, points: float = 0):
    meta = {"grade": grade, "grade_id": grade_id, "locked": locked, "schema_version": 3,
            "solution": solution, "task": False}
    if grade:
        meta["points"] = points
    return {"nbgrader": meta}


def md(text: str):
    return nbformat.v4.new_markdown_cell(text)


def code(text: str):
    return nbformat.v4.new_code_cell(text)


def solution(grade_id: str, text: str):
    return nbformat.v4.new_code_cell(
        text, metadata=_meta(grade_id, grade=False, solution=True, locked=False))


def tests(grade_id: str, points: float, text: str):
    return nbformat.v4.new_code_cell(
        text, metadata=_meta(grade_id, grade=True, solution=False, locked=True, points=points))


def manual(grade_id: str, points: float, text: str):
    return nbformat.v4.new_markdown_cell(
        text, metadata=_meta(grade_id, grade=True, solution=True, locked=False, points=points))


def notebook(cells) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook(cells=list(cells))
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    return nb


def scratch_notebook() -> nbformat.NotebookNode:
    """A tiny graded notebook (2 exercises, 1 + 2 points; a 1-point written answer)."""
    return notebook([
        md("# Scratch\n\nThe derivative of $x^2$ is $2x$:\n\n"
           "$$\\frac{\\partial}{\\partial x} x^2 = 2x$$"),
        solution("double", "def double(x):\n    ### BEGIN SOLUTION\n    return 2 * x\n"
                           "    ### END SOLUTION"),
        tests("test_double", 1, "assert double(2) == 4, 'double(2) should be 4'\n"
                                "### BEGIN HIDDEN TESTS\nassert double(-7) == -14\n"
                                "### END HIDDEN TESTS"),
        solution("square", "def square(x):\n    ### BEGIN SOLUTION\n    return x * x\n"
                           "    ### END SOLUTION"),
        tests("test_square", 2, "assert square(3) == 9, 'square(3) should be 9'\n"
                                "### BEGIN HIDDEN TESTS\nassert square(-5) == 25\n"
                                "### END HIDDEN TESTS"),
        manual("why", 1, "Why? **Because.**"),
    ])


# --- course copies ------------------------------------------------------------------------

def make_course_copy(dest: Path, with_solutions: bool = True) -> Path:
    """A course root like the repository: config, grading/, autograd_lab/, solutions/."""
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copy2(REPO / "nbgrader_config.py", dest / "nbgrader_config.py")
    ignore = shutil.ignore_patterns("__pycache__", ".ipynb_checkpoints")
    shutil.copytree(REPO / "grading", dest / "grading", ignore=ignore)
    if (REPO / "autograd_lab").is_dir():
        shutil.copytree(REPO / "autograd_lab", dest / "autograd_lab", ignore=ignore)
    if with_solutions:
        shutil.copytree(REPO / "solutions", dest / "solutions", ignore=ignore)
    else:
        (dest / "solutions").mkdir()
    return dest


def run_cli(root: Path, *args: str, timeout: float = 900) -> subprocess.CompletedProcess:
    """Run `python -m grading --root ROOT ARGS` and return the completed process."""
    return subprocess.run(
        [PYTHON, "-m", "grading", "--root", str(root), *args],
        cwd=REPO, capture_output=True, text=True, timeout=timeout,
    )


def submit(root: Path, student: str, assignment: str, nb_name: str, nb) -> Path:
    """Place a notebook (NotebookNode or raw text) as a student's submission in an inbox."""
    path = root / "inbox" / student / f"{nb_name}.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(nb, str):
        path.write_text(nb)
    else:
        nbformat.write(nb, path)
    return path


# --- reading results ----------------------------------------------------------------------

def _grades(root: Path, assignment: str, student: str):
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gb:
        sub = gb.find_submission(assignment, student)
        return [(g.name, g.cell_type, g.score, g.max_score)
                for nb in sub.notebooks for g in nb.grades]


def cell_scores(root: Path, assignment: str, student: str) -> dict[str, tuple[float, float]]:
    """{grade_id: (score, max_score)} of every graded cell of a submission, from the gradebook."""
    return {name: (score, mx) for name, _, score, mx in _grades(root, assignment, student)}


def autograded_cells(root: Path, assignment: str, student: str) -> dict[str, float]:
    """{grade_id: max_score} of the autograded (code) cells of a submission."""
    return {name: mx for name, kind, _, mx in _grades(root, assignment, student)
            if kind == "code"}


__all__ = ["nbtools"]
