"""Notebook files: read them with clear errors, strip outputs, compare releases, make answers."""

from __future__ import annotations

import json
import re
import runpy
from pathlib import Path

import nbformat
from nbformat import NotebookNode

SOLUTION_BEGIN, SOLUTION_END = "### BEGIN SOLUTION", "### END SOLUTION"
HIDDEN_BEGIN, HIDDEN_END = "### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS"
WRONG_ANSWERS_FILE = "wrong_answers.py"


class InvalidNotebook(Exception):
    """A file that is not a readable Jupyter notebook; the message names the file."""

    def __init__(self, path: Path | str, reason: str):
        self.path = Path(path)
        self.reason = reason
        super().__init__(f"{path}: not a valid notebook: {reason}")


def read_notebook(path: Path | str) -> NotebookNode:
    """Read and validate a notebook; raise InvalidNotebook naming the file if it is broken."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise InvalidNotebook(path, str(e)) from None
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as e:
        raise InvalidNotebook(path, f"malformed JSON ({e})") from None
    if not isinstance(raw, dict) or "cells" not in raw:
        raise InvalidNotebook(path, "JSON is not a notebook (no 'cells')")
    try:
        nb = nbformat.reads(text, as_version=4)
        nbformat.validate(nb)
    except Exception as e:  # nbformat raises several kinds
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise InvalidNotebook(path, f"does not follow the notebook format ({first})") from None
    return nb


def new_notebook_like(nb: NotebookNode, cells: list) -> NotebookNode:
    """A notebook with `nb`'s metadata and these cells."""
    return nbformat.from_dict({**nb, "cells": list(cells)})


def write_notebook(nb: NotebookNode, path: Path | str) -> None:
    nbformat.write(nb, str(path))


# --- nbgrader cell kinds --------------------------------------------------------------------

def nbgrader_meta(cell: NotebookNode) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {}) or {}


def grade_id(cell: NotebookNode) -> str | None:
    return nbgrader_meta(cell).get("grade_id")


def is_solution(cell: NotebookNode) -> bool:
    return bool(nbgrader_meta(cell).get("solution"))


def is_autograded_test(cell: NotebookNode) -> bool:
    m = nbgrader_meta(cell)
    return cell.cell_type == "code" and bool(m.get("grade")) and not m.get("solution")


def is_locked(cell: NotebookNode) -> bool:
    m = nbgrader_meta(cell)
    return bool(m.get("locked")) or (bool(m.get("grade")) and not m.get("solution"))


def autograded_points(nb: NotebookNode) -> dict[str, float]:
    """{grade_id: points} of the cells the autograder scores (code cells with grade=True)."""
    return {grade_id(c): float(nbgrader_meta(c).get("points", 0)) for c in nb.cells
            if c.cell_type == "code" and nbgrader_meta(c).get("grade")}


def is_graded(nb: NotebookNode) -> bool:
    return bool(autograded_points(nb))


# --- stripping outputs ----------------------------------------------------------------------

_VOLATILE_CELL_META = ("execution", "ExecuteTime", "collapsed", "scrolled")


# What JupyterLab writes into a notebook once its kernel (ipykernel's python3) is connected. A
# notebook saved with other values is marked modified on opening, and Validate's save leaves a
# diff in course/; so every notebook carries these.
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


def language_info(version: str | None = None) -> dict:
    """ipykernel's ``language_info`` (what JupyterLab writes), for Python `version` (default:
    this interpreter's)."""
    from ipykernel.ipkernel import IPythonKernel

    info = json.loads(json.dumps(IPythonKernel.language_info))
    if version:
        info["version"] = version
    return info


def strip_notebook(nb: NotebookNode) -> NotebookNode:
    """Remove outputs, execution counts and run-time cell metadata, and give the notebook the
    kernelspec and language_info JupyterLab keeps (an existing Python version stays: stripping
    on another Python changes nothing). In place."""
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
        for key in _VOLATILE_CELL_META:
            cell.get("metadata", {}).pop(key, None)
    nb.metadata.pop("widgets", None)
    nb.metadata["kernelspec"] = nbformat.from_dict(KERNELSPEC)
    version = nb.metadata.get("language_info", {}).get("version")
    nb.metadata["language_info"] = nbformat.from_dict(language_info(version))
    return nb


def strip_file(path: Path | str, check: bool = False) -> bool:
    """Strip a notebook file; return True if it had something to strip (and, unless `check`,
    rewrite it)."""
    path = Path(path)
    before = path.read_text(encoding="utf-8")
    nb = strip_notebook(read_notebook(path))
    after = nbformat.writes(nb) + "\n"
    if json.loads(before) == json.loads(after):
        return False
    if not check:
        path.write_text(after, encoding="utf-8")
    return True


# --- comparing a release with a fresh generate_assignment ----------------------------------

def comparable(nb: NotebookNode) -> list[dict]:
    """What must agree between two releases of a notebook: cell types, sources, metadata."""
    cells = []
    for cell in nb.cells:
        meta = {k: v for k, v in cell.get("metadata", {}).items()
                if k not in _VOLATILE_CELL_META}
        cells.append({"cell_type": cell.cell_type, "source": cell.source, "metadata": meta})
    return cells


def release_differences(expected: NotebookNode, actual: NotebookNode) -> list[str]:
    """Human-readable differences between a fresh release and a committed one."""
    a, b = comparable(expected), comparable(actual)
    diffs = []
    if len(a) != len(b):
        diffs.append(f"{len(b)} cells, expected {len(a)}")
    for i, (x, y) in enumerate(zip(a, b)):
        for key in ("cell_type", "source", "metadata"):
            if x[key] != y[key]:
                first = (x["source"].splitlines() or [""])[0][:60]
                diffs.append(f"cell {i} ({first!r}): {key} differs")
    ka = expected.metadata.get("kernelspec", {}).get("name")
    kb = actual.metadata.get("kernelspec", {}).get("name")
    if ka != kb:
        diffs.append(f"kernelspec {kb!r}, expected {ka!r}")
    return diffs


# --- answers: what the solution says, what a learner might write ---------------------------

def _between(source: str, begin: str, end: str) -> list[str]:
    blocks, inside, lines = [], False, []
    for line in source.splitlines():
        if line.strip().startswith(begin):
            inside, lines = True, []
        elif line.strip().startswith(end):
            inside = False
            blocks.append("\n".join(lines))
        elif inside:
            lines.append(line)
    return blocks


def _secret_blocks(nb: NotebookNode) -> list[list[str]]:
    blocks = []
    for cell in nb.cells:
        found = _between(cell.source, SOLUTION_BEGIN, SOLUTION_END)
        found += _between(cell.source, HIDDEN_BEGIN, HIDDEN_END)
        if is_solution(cell) and cell.cell_type == "markdown" and SOLUTION_BEGIN not in cell.source:
            found.append(cell.source)  # a written answer is replaced whole by the stub
        for block in found:
            lines = [ln.strip() for ln in block.splitlines()]
            blocks.append([ln for ln in lines if ln and not ln.startswith("#")])
    return blocks


def secret_lines(nb: NotebookNode, min_length: int = 16) -> list[str]:
    """Lines of solutions and hidden tests (at least `min_length` characters)."""
    return [ln for block in _secret_blocks(nb) for ln in block if len(ln) >= min_length]


def visible_text(path: Path | str) -> str:
    """What a reader of a released file sees: a notebook's cell sources, or the file's text;
    one stripped line per line."""
    path = Path(path)
    if path.suffix == ".ipynb":
        nb = read_notebook(path)
        text = "\n".join(c.source for c in nb.cells)
    else:
        text = path.read_text(encoding="utf-8", errors="replace")
    return "\n".join(ln.strip() for ln in text.splitlines())


def leaked_secrets(solution_nb: NotebookNode, text: str, min_length: int = 12) -> list[str]:
    """Pieces of the notebook's solutions or hidden tests found in `text` (a visible_text).

    A piece is two consecutive lines of a solution or hidden-test block (a block of one line:
    that line), so that a single common line (``model.zero_grad()``) is no leak, but code
    copied from a solution is.
    """
    lines = set(text.splitlines())
    leaks = []
    for block in _secret_blocks(solution_nb):
        if len(block) == 1:
            pieces = [block[0]] if len(block[0]) >= min_length else []
        else:
            pieces = ["\n".join(pair) for pair in zip(block, block[1:])
                      if len(pair[0]) + len(pair[1]) >= min_length]
        for piece in pieces:
            first = piece.split("\n")[0]
            if first in lines and piece in text:
                leaks.append(piece)
    return leaks


def solution_sources(solution_nb: NotebookNode) -> dict[str, str]:
    """{grade_id: source} of every solution cell, markers removed (what a good learner writes)."""
    out = {}
    for cell in solution_nb.cells:
        if is_solution(cell) and grade_id(cell):
            lines = [ln for ln in cell.source.splitlines()
                     if ln.strip() not in (SOLUTION_BEGIN, SOLUTION_END)]
            out[grade_id(cell)] = "\n".join(lines)
    return out


def answer(release_nb: NotebookNode, answers: dict[str, str]) -> NotebookNode:
    """A copy of the release with the given solution cells filled in, as a learner would."""
    nb = nbformat.from_dict(json.loads(json.dumps(release_nb)))
    unknown = set(answers) - {grade_id(c) for c in nb.cells if is_solution(c)}
    if unknown:
        raise KeyError(f"no solution cell with grade_id {sorted(unknown)}")
    for cell in nb.cells:
        if is_solution(cell) and grade_id(cell) in answers:
            cell.source = answers[grade_id(cell)]
    return nb


def load_wrong_answers(assignment_dir: Path | str) -> dict:
    """Read solutions/<assignment>/wrong_answers.py.

    The file defines ``WRONG_ANSWERS = {grade_id: source}``: solution cells replaced by a
    typical mistake; every other solution cell keeps the correct answer. It may define
    ``DESCRIPTION`` (what the mistake is). Returns {} if there is no such file.
    """
    path = Path(assignment_dir) / WRONG_ANSWERS_FILE
    if not path.exists():
        return {}
    ns = runpy.run_path(str(path))
    wrong = ns.get("WRONG_ANSWERS")
    if not isinstance(wrong, dict) or not wrong:
        raise ValueError(f"{path} must define a non-empty dict WRONG_ANSWERS")
    return dict(wrong)


def notebook_name_ok(name: str) -> bool:
    return re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", name) is not None
