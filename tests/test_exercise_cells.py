"""The test cells of every notebook (visible and hidden parts) explain and cannot be fooled by
the notebook's namespace.

* every ``assert`` has a message, and every ``raise AssertionError(...)`` one too (the helpers of
  autograd_lab.testing write theirs: expected, got, hint);
* a test cell uses only builtins, names it binds itself (its imports: ``numpy``,
  ``autograd_lab``, ``autograd_lab.testing``) and the names the learner's answers define: never
  a helper or value that another cell of the notebook defined, which a learner's cell could
  have replaced.

Notebooks listed in exercise_helpers.NOT_YET_CONVERTED are expected to fail these checks.
"""

from __future__ import annotations

import ast
import builtins
import symtable
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import exercise_helpers as eh  # noqa: E402
from exercise_helpers import nbtools  # noqa: E402

# Names IPython puts in every kernel's namespace.
KERNEL_NAMES = {"get_ipython", "display", "In", "Out"}


def _params():
    return [pytest.param(a, marks=pytest.mark.xfail(
        strict=True, reason="not yet converted (issue 12): take it off NOT_YET_CONVERTED"))
        if a in eh.NOT_YET_CONVERTED else a for a in eh.graded_assignments()]


def _tests(assignment: str) -> list[tuple[str, str]]:
    return [(nbtools.grade_id(c), c.source) for c in eh.Notebook.load(assignment).test_cells()]


def bare_asserts(source: str) -> list[str]:
    """The lines of `source` with an assert, or a raise of AssertionError, without a message."""
    found = []
    for node in ast.walk(ast.parse(source)):
        bare = isinstance(node, ast.Assert) and node.msg is None
        if isinstance(node, ast.Raise) and node.exc is not None:
            exc = node.exc
            name = exc.func if isinstance(exc, ast.Call) else exc
            bare = (isinstance(name, ast.Name) and name.id == "AssertionError"
                    and not (isinstance(exc, ast.Call) and (exc.args or exc.keywords)))
        if bare:
            found.append(ast.get_source_segment(source, node) or f"line {node.lineno}")
    return found


def _symbols(table: symtable.SymbolTable) -> list[symtable.Symbol]:
    found = list(table.get_symbols())
    for child in table.get_children():
        found += _symbols(child)
    return found


def bound_names(source: str) -> set[str]:
    """The names `source` binds at its top level (assignments, imports, defs, loops)."""
    table = symtable.symtable(source, "<cell>", "exec")
    return {s.get_name() for s in table.get_symbols() if s.is_assigned() or s.is_imported()
            or s.is_namespace()}


def free_names(source: str) -> set[str]:
    """The global names `source` reads without binding them itself."""
    table = symtable.symtable(source, "<cell>", "exec")
    read = {s.get_name() for s in table.get_symbols() if s.is_referenced()}
    read |= {s.get_name() for child in table.get_children() for s in _symbols(child)
             if s.is_global() and s.is_referenced()}
    return read - bound_names(source) - set(dir(builtins)) - KERNEL_NAMES


def answer_names(assignment: str) -> set[str]:
    """What the learner's answers define: the top-level names of the solution cells."""
    names: set[str] = set()
    for source in eh.Notebook.load(assignment).solution_answers().values():
        try:
            names |= bound_names(source)
        except SyntaxError:
            continue  # a written answer (markdown)
    return names


@pytest.mark.parametrize("assignment", _params())
def test_every_assert_has_a_message(assignment):
    bare = [f"{gid}: {line}" for gid, source in _tests(assignment) for line in bare_asserts(source)]
    assert not bare, ("asserts without a message (say what was expected, what came, and a hint; "
                      "or use autograd_lab.testing's expect_*):\n" + "\n".join(bare))


@pytest.mark.parametrize("assignment", _params())
def test_test_cells_use_only_their_own_names_and_the_answers(assignment):
    allowed = answer_names(assignment)
    borrowed = {gid: sorted(free_names(source) - allowed) for gid, source in _tests(assignment)}
    borrowed = {gid: names for gid, names in borrowed.items() if names}
    assert not borrowed, (
        "test cells that read names another cell defined (import them in the test cell, or build "
        f"the value there): {borrowed}")


def test_the_checks_find_what_they_look_for():
    source = ("import numpy as np\nassert x == 1\nassert y, 'y'\nraise AssertionError\n"
              "raise AssertionError()\nraise AssertionError('why')\n"
              "def f(a):\n    return close(a) + np.pi + a\nfor i in range(3):\n    f(i)\n")
    assert bare_asserts(source) == ["assert x == 1", "raise AssertionError", "raise AssertionError()"]
    assert free_names(source) == {"x", "y", "close"}
    assert bound_names("def g(): pass\nfrom a import b as c\nz, (w, v) = 1, (2, 3)") == {
        "g", "c", "z", "w", "v"}
