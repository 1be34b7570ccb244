"""The exercises of the course's notebooks, their wrong answers, and fast grading of many answers.

``solutions/<a>/wrong_answers.py`` may define, besides ``WRONG_ANSWERS`` (tests/test_pipeline.py)::

    MISTAKES = {grade_id: [{"kind": "shortcut", "why": "calls numpy.broadcast_shapes",
                            "message": "numpy.broadcast_shapes is switched off",
                            "code": "def broadcast_shape(a, b): ..."}, ...]}
    ALTERNATIVES = {grade_id: ["another correct answer", ...]}

:func:`grade_fast` scores many answers of one notebook in one interpreter
(tests/notebook_runner.py) with nbgrader's own ``determine_grade``: the scores autograde gives
(tests/test_wrong_answers.py proves that they agree on the real `python -m grading autograde`).
See docs/exercise-authoring.md.
"""

from __future__ import annotations

import json
import os
import runpy
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from grading import notebooks as nbtools  # noqa: E402

RUNNER = Path(__file__).with_name("notebook_runner.py")
KINDS = ("shortcut", "mistake", "edge", "type", "structure")
CELL_TIMEOUT = 60  # nbgrader_config.py's Execute.timeout

# Notebooks whose exercises do not yet meet issue 12's bar (every assert with a message, test
# cells that import their helpers, a MISTAKES table). The checks of tests/test_exercise_cells.py
# and tests/test_wrong_answers.py are expected to fail on them (strictly: once one passes, take
# its notebook off this list). Empty it; never add to it.
NOT_YET_CONVERTED = ()


def graded_assignments() -> list[str]:
    """The assignments of solutions/ whose notebook has autograded cells."""
    from grading import pipeline

    return [a for a in pipeline.Course(REPO).assignments() if nbtools.is_graded(Notebook.load(a).nb)]


@dataclass
class Mistake:
    """One wrong answer to one exercise, and the words its failing test must say."""

    grade_id: str
    index: int  # its position in MISTAKES[grade_id]
    kind: str
    why: str
    message: str
    code: str

    @property
    def name(self) -> str:
        return f"{self.grade_id}-{self.index + 1}"


@dataclass
class Exercise:
    """A code solution cell and the autograded test cells after it (before the next one)."""

    grade_id: str
    tests: list[str] = field(default_factory=list)


@dataclass
class Notebook:
    """A solution notebook: its code cells, exercises, and what wrong_answers.py holds."""

    assignment: str
    path: Path
    nb: nbformat.NotebookNode

    @classmethod
    def load(cls, assignment: str) -> Notebook:
        paths = sorted((REPO / "solutions" / assignment).glob("*.ipynb"))
        if len(paths) != 1:
            raise ValueError(f"solutions/{assignment} should hold one notebook, not {len(paths)}")
        return cls(assignment, paths[0], nbtools.read_notebook(paths[0]))

    @property
    def code_cells(self) -> list[nbformat.NotebookNode]:
        return [c for c in self.nb.cells if c.cell_type == "code"]

    def exercises(self) -> list[Exercise]:
        found: list[Exercise] = []
        for cell in self.code_cells:
            if nbtools.is_solution(cell):
                found.append(Exercise(nbtools.grade_id(cell)))
            elif nbtools.is_autograded_test(cell) and found:
                found[-1].tests.append(nbtools.grade_id(cell))
        return [e for e in found if e.tests]

    def test_cells(self) -> list[nbformat.NotebookNode]:
        return [c for c in self.code_cells if nbtools.is_autograded_test(c)]

    def _answers_file(self) -> dict:
        path = self.path.parent / nbtools.WRONG_ANSWERS_FILE
        return runpy.run_path(str(path)) if path.exists() else {}

    def mistakes(self) -> list[Mistake]:
        table = self._answers_file().get("MISTAKES", {})
        return [Mistake(gid, i, m["kind"], m["why"], m["message"], m["code"])
                for gid, entries in table.items() for i, m in enumerate(entries)]

    def alternatives(self) -> dict[str, list[str]]:
        return dict(self._answers_file().get("ALTERNATIVES", {}))

    def solution_answers(self) -> dict[str, str]:
        return nbtools.solution_sources(self.nb)

    def blank_answers(self) -> dict[str, str]:
        """What the released notebook has in each code solution cell."""
        released = nbtools.read_notebook(REPO / "course" / self.assignment / self.path.name)
        return {nbtools.grade_id(c): c.source for c in released.cells
                if c.cell_type == "code" and nbtools.is_solution(c)}


# --- grading many answers at once -----------------------------------------------------------

def run_cells(cells: list[str], variants: dict[str, dict[int, str]], *, cwd: Path,
              env: dict | None = None, timeout: float = CELL_TIMEOUT) -> dict:
    """tests/notebook_runner.py on these cells, in a fresh interpreter working in `cwd`."""
    spec = {"cells": cells, "variants": variants, "timeout": timeout}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(spec, f)
    try:
        r = subprocess.run([sys.executable, str(RUNNER), f.name], cwd=cwd, env=env,
                           capture_output=True, text=True, timeout=3600)
    finally:
        os.unlink(f.name)
    if r.returncode != 0:
        raise RuntimeError(f"notebook_runner failed ({r.returncode}):\n{r.stderr[-4000:]}")
    return json.loads(r.stdout)


def _kernel_env() -> dict:
    """Like autograde's kernel: NBGRADER_EXECUTION set, the repository's package importable."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "COV_"))}
    env["NBGRADER_EXECUTION"] = "autograde"
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env["MPLBACKEND"] = "Agg"
    return env


def _work_dir(notebook: Notebook, dest: Path) -> Path:
    """The folder a kernel works in: the assignment's files but notebooks and wrong answers."""
    ignore = shutil.ignore_patterns("*.ipynb", ".*", "__pycache__", nbtools.WRONG_ANSWERS_FILE)
    shutil.copytree(notebook.path.parent, dest, ignore=ignore)
    return dest


@dataclass
class Graded:
    """What autograde gives one answer: per autograded cell, its score and its error."""

    scores: dict[str, tuple[float, float]]
    errors: dict[str, str]
    died: str | None

    def to_json(self) -> dict:
        return {"scores": self.scores, "errors": self.errors, "died": self.died}

    @classmethod
    def from_json(cls, d: dict) -> Graded:
        return cls({k: tuple(v) for k, v in d["scores"].items()}, d["errors"], d["died"])

    @property
    def total(self) -> float:
        return sum(s for s, _ in self.scores.values())

    @property
    def best(self) -> float:
        return sum(m for _, m in self.scores.values())


def _score(notebook: Notebook, result: dict) -> Graded:
    from nbgrader.utils import determine_grade

    scores, errors = {}, {}
    for cell, outputs in zip(notebook.code_cells, result["outputs"]):
        if not nbtools.is_autograded_test(cell):
            continue
        gid = nbtools.grade_id(cell)
        graded = nbformat.from_dict({**cell, "outputs": outputs})
        if result["died"]:
            graded.outputs = [*graded.outputs, nbformat.from_dict(
                {"output_type": "error", "ename": "KERNEL-DIED", "evalue": result["died"],
                 "traceback": []})]
        score, best = determine_grade(graded)
        scores[gid] = (float(score), float(best))
        errors[gid] = "\n".join(
            f"{o['ename']}: {o['evalue']}" if o["output_type"] == "error" else o.get("text", "")
            for o in graded.outputs
            if o["output_type"] == "error" or o.get("name") == "stderr")
    return Graded(scores, errors, result["died"])


def grade_fast(notebook: Notebook, answers: dict[str, dict[str, str]]) -> dict[str, Graded]:
    """Autograde scores of the solution with some cells replaced: {name: {grade_id: source}}.

    The test cells run with their hidden tests, as autograde runs them. Key "" is the solution.
    """
    cells = [c.source for c in notebook.code_cells]
    position = {nbtools.grade_id(c): i for i, c in enumerate(notebook.code_cells)}
    solution = notebook.solution_answers()
    base = {position[g]: s for g, s in solution.items() if g in position}
    cells = [base.get(i, s) for i, s in enumerate(cells)]
    variants = {}
    for name, replaced in answers.items():
        unknown = set(replaced) - set(position)
        if unknown:
            raise KeyError(f"{notebook.assignment}: no code cell with grade_id {sorted(unknown)}")
        variants[name] = {position[g]: s for g, s in replaced.items()}
    with tempfile.TemporaryDirectory(prefix="fast-grade-") as tmp:
        results = run_cells(cells, variants, cwd=_work_dir(notebook, Path(tmp) / "work"),
                            env=_kernel_env())
    return {name: _score(notebook, result) for name, result in results.items()}


def answer_sets(notebook: Notebook) -> dict[str, dict[str, str]]:
    """Every answer the suite grades: the blank release, each mistake, each alternative, and
    "combined": the first mistake of every exercise at once."""
    sets: dict[str, dict[str, str]] = {"blank": notebook.blank_answers(), "combined": {}}
    for m in notebook.mistakes():
        sets[m.name] = {m.grade_id: m.code}
        sets["combined"].setdefault(m.grade_id, m.code)
    for gid, codes in notebook.alternatives().items():
        for i, code in enumerate(codes):
            sets[f"{gid}-right-{i + 1}"] = {gid: code}
    return sets
