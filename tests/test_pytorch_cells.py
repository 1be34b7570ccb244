"""The course's code runs unchanged under PyTorch.

The notebooks say ``import autograd_lab as torch`` runs PyTorch's code with PyTorch's results.
This test holds them to it, as a learner with PyTorch would try it: the line
``import autograd_lab as torch`` becomes ``import torch``, nothing else changes (autograd_lab's own
tools, ``from autograd_lab import viz``, stay), and every code cell of every notebook runs, in order,
in a fresh interpreter; none may fail. Solution cells run their solution; autograded test cells
are the grader's (they switch off autograd_lab's names) and do not run. A cell that only
autograd_lab can run (a look at its engine, ``torch.engine``) starts with the line
``# autograd_lab only: <why>``, which the learner sees too. Skipped where PyTorch is absent.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import exercise_helpers as eh  # noqa: E402
from exercise_helpers import REPO, nbtools  # noqa: E402

pytestmark = pytest.mark.torch
MARK = "# autograd_lab only"
_IMPORT = re.compile(r"^(\s*)import autograd_lab as torch\b", re.MULTILINE)


def with_pytorch(source: str) -> str:
    """The cell as a learner with PyTorch runs it: ``import autograd_lab as torch`` -> ``import torch``."""
    return _IMPORT.sub(r"\1import torch", source)

# Notebooks with cells that fail under PyTorch today (fix the cells, or mark those only autograd_lab
# can run, and take the notebook off this list: the test of a listed notebook must fail, strictly).
KNOWN_FAILURES: dict[str, str] = {}
NOTEBOOKS = sorted(p.parent.name for p in (REPO / "solutions").glob("*/*.ipynb"))


def runs_under_pytorch(cell) -> bool:
    """A code cell this test runs: not an autograded test, not marked autograd_lab only."""
    return (cell.cell_type == "code" and not nbtools.is_autograded_test(cell)
            and not cell.source.lstrip().startswith(MARK))


def _cells(assignment: str) -> tuple[list[str], list[str]]:
    notebook = eh.Notebook.load(assignment)
    answers = notebook.solution_answers()
    cells = [c for c in notebook.code_cells if runs_under_pytorch(c)]
    sources = [with_pytorch(answers.get(nbtools.grade_id(c), c.source) if nbtools.is_solution(c)
                            else c.source) for c in cells]
    return sources, [nbtools.grade_id(c) or c.source.strip().splitlines()[0][:60] if c.source.strip()
                     else "(empty)" for c in cells]


def _params():
    return [pytest.param(a, marks=pytest.mark.xfail(strict=True, reason=KNOWN_FAILURES[a]))
            if a in KNOWN_FAILURES else a for a in NOTEBOOKS]


@pytest.mark.parametrize("assignment", _params())
def test_cells_run_unchanged_under_pytorch(assignment):
    pytest.importorskip("torch")
    sources, names = _cells(assignment)
    env = {k: v for k, v in os.environ.items() if k != "NBGRADER_EXECUTION"}
    env["MPLBACKEND"] = "Agg"
    # one thread, as the torch fixture (conftest.py): the course's small ops run faster so, and on a
    # loaded 2-core machine a second thread spin-waits (07's training took twice the CPU, near the
    # cell limit)
    env.setdefault("OMP_NUM_THREADS", "1")
    with tempfile.TemporaryDirectory(prefix="pytorch-cells-") as tmp:
        result = eh.run_cells(sources, {}, cwd=Path(tmp), env=env)[""]
    failed = [f"cell {name!r}: {o['ename']}: {o['evalue'][:300]}"
              for name, outputs in zip(names, result["outputs"])
              for o in outputs if o["output_type"] == "error"]
    assert not failed and not result["died"], (
        f"{assignment}: cells that fail under PyTorch (fix them, or start a cell that only "
        f"autograd_lab can run with '{MARK}: <why>'):\n" + "\n".join(failed))


@pytest.mark.parametrize("assignment", NOTEBOOKS)
def test_autograd_lab_only_cells_say_why(assignment):
    marked = [c.source.strip().splitlines()[0] for c in eh.Notebook.load(assignment).code_cells
              if c.source.lstrip().startswith(MARK)]
    unexplained = [line for line in marked if not line[len(MARK):].lstrip(" :").strip()]
    assert not unexplained, f"say why only autograd_lab runs these cells: {unexplained}"


def test_only_the_import_line_changes():
    cell = "import numpy as np\nimport autograd_lab as torch\nfrom autograd_lab import viz\n"
    assert with_pytorch(cell) == "import numpy as np\nimport torch\nfrom autograd_lab import viz\n"
    assert with_pytorch("import autograd_lab as torchvision") == "import autograd_lab as torchvision"


def test_a_cell_that_pytorch_refuses_fails(tmp_path):
    pytest.importorskip("torch")
    cells = [with_pytorch("import autograd_lab as torch"), "torch.tensor([1.0], name='x')"]
    result = eh.run_cells(cells, {}, cwd=tmp_path)[""]
    assert result["outputs"][1][-1]["ename"] == "TypeError", "PyTorch's tensor() takes no name="
