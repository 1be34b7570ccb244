"""Validate shows whole messages in the terminal (nbgrader 0.9.6 cut every line at 90 characters).

The JupyterLab dialog is checked in tests/test_browser.py.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent))
import pipeline_helpers as h  # noqa: E402

from grading import pipeline  # noqa: E402
from grading.validate import wrap_indented  # noqa: E402

HINT = ("relu(x) should be 0 where x < 0 and x where x >= 0; for x = tensor([-1., 2.]) it should "
        "give tensor([0., 2.]) but got tensor([0., inf], grad_fn=<ReluBackward0>): look at the "
        "comparison you used END-OF-HINT")


def long_message_notebook() -> nbformat.NotebookNode:
    """A graded notebook whose test fails with a message far longer than 90 characters."""
    return h.notebook([
        h.solution("f", "def f():\n    return 1"),
        h.tests("test_f", 1, f"assert f() == 2, {HINT!r}"),
    ])


def test_wrap_indented_keeps_every_character():
    line = "    x = " + "abc " * 60
    out = wrap_indented(line + "\nshort", "  ", 40)
    assert all(len(ln) <= 40 for ln in out.splitlines())
    assert "".join(ln.strip() for ln in out.splitlines()).replace(" ", "") == \
        (line + "short").replace(" ", "")
    assert out.splitlines()[1].startswith("  " + "    " + "  "), "continuations indented"


def test_cli_validate_prints_the_whole_message(tmp_path):
    path = tmp_path / "long.ipynb"
    nbformat.write(long_message_notebook(), path)
    r = subprocess.run([sys.executable, "-m", "nbgrader", "validate", str(path)], cwd=h.REPO,
                       env=pipeline.subprocess_env(), capture_output=True, text=True, timeout=300)
    out = r.stdout
    assert "VALIDATION FAILED" in out, out + r.stderr[-2000:]
    joined = " ".join(ln.strip() for ln in out.splitlines())
    assert "END-OF-HINT" in joined and "got tensor([0., inf], grad_fn=<ReluBackward0>)" in joined, out
    assert not any(ln.endswith("...") for ln in out.splitlines()), "no line is cut"
