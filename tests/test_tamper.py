"""Tamper detection and inert outputs, without a kernel: canary candidates, the fallback canary,
static flags, the rule for results in test cells, the sanitizer, collect's safe reading.

The same mechanisms against real attacking submissions: tests/test_hostile.py.
"""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path

import nbformat
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import pipeline_helpers as h  # noqa: E402

from grading import pipeline, sanitize, tamper  # noqa: E402
from grading.execute import _only_a_test_s_own_result, canary_failed  # noqa: E402

TEST = ("from autograd_lab.testing import call, expect_equal\n\n"
        "expect_equal(call(double, 2), 4, what='double(2)', hint='twice x')  # visible\n"
        "### BEGIN HIDDEN TESTS\n"
        "expect_equal(call(double, -7), -14, what='double(-7)', hint='below zero')\n"
        "### END HIDDEN TESTS")


def test_candidates_change_one_literal_of_a_check_hidden_tests_first():
    cands = tamper.candidates(TEST, random.Random(0), limit=5)
    assert cands, "a check with literal arguments gives candidates"
    for text in cands:
        diff = [(a, b) for a, b in zip(TEST.splitlines(), text.splitlines()) if a != b]
        assert len(diff) == 1, diff  # one line, one literal; comments and layout kept
    first = [ln for ln in cands[0].splitlines() if ln not in TEST.splitlines()][0]
    assert "double(-7)" in first, "the hidden tests are changed first"
    assert all("hint=" in t and "what=" in t for t in cands)
    assert all("'below zero'" in t and "'double(-7)'" in t for t in cands[:2]), \
        "messages are never what is changed"


def test_candidates_of_code_without_checks_or_literals():
    assert tamper.candidates("x = compute()\nfor c in cases:\n    check(c)", random.Random(0)) == []
    assert tamper.candidates("%%time\nbroken(", random.Random(0)) == []


@pytest.mark.parametrize("value", [0, 7, -3, 2.5, -0.0, "a", "", True, (1, 2), [3], ()])
def test_perturbed_values_compare_unequal(value):
    assert tamper._perturbed(value) != value


def _cell(outputs, points=1):
    return nbformat.from_dict({
        "cell_type": "code", "source": "", "execution_count": 1, "outputs": outputs,
        "metadata": {"nbgrader": {"grade": True, "solution": False, "points": points,
                                  "grade_id": "t"}}})


ERROR = {"output_type": "error", "ename": "AssertionError", "evalue": "no", "traceback": []}


def _result(text):
    return {"output_type": "execute_result", "data": {"text/plain": text}, "metadata": {},
            "execution_count": 1}


def test_a_result_before_an_error_earns_nothing():
    cell = _cell([_result("1"), ERROR])
    _only_a_test_s_own_result(cell)
    assert cell.outputs == [ERROR] and canary_failed(cell)


def test_results_a_test_did_not_make_are_dropped_its_own_kept():
    injected = _cell([_result("100")])  # above the cell's points: nbgrader would fail the run
    _only_a_test_s_own_result(injected)
    assert injected.outputs == []
    partial = _cell([{"output_type": "stream", "name": "stdout", "text": "x"}, _result("0.5")], 2)
    _only_a_test_s_own_result(partial)
    assert partial.outputs[-1]["data"]["text/plain"] == "0.5", "partial credit stays"


def test_canary_verdict_is_nbgrader_s():
    assert canary_failed(_cell([ERROR]))
    assert canary_failed(_cell([{"output_type": "stream", "name": "stderr", "text": "w"}]))
    assert not canary_failed(_cell([]))


def test_plant_and_remove_canaries_where_verified():
    nb = h.notebook([h.solution("double", "def double(x):\n    return 2 * x"),
                     h.tests("test_double", 1, TEST)])
    test = nb.cells[1]
    key = tamper.source_key(test.source)
    verified = {key: [{"source": "CANARY", "before": True}]}
    planted = tamper.plant_canaries(nb, verified, 2, random.Random(1))
    assert [c.source for c in nb.cells] == ["def double(x):\n    return 2 * x", "CANARY", TEST]
    planted[0].cell.outputs = [nbformat.from_dict(ERROR)]
    planted[0].cell.execution_count = 3
    assert tamper.remove_canaries(nb, planted) == []
    assert [c.source for c in nb.cells][-1] == TEST and len(nb.cells) == 2
    planted = tamper.plant_canaries(nb, verified, 2, random.Random(1))
    planted[0].cell.execution_count = 3  # ran, and no error: the kernel lied
    passed = tamper.remove_canaries(nb, planted)
    assert passed and "test_double" in passed[0].evidence()


def test_fallback_canary_when_nothing_is_verified():
    nb = h.notebook([h.tests("test_x", 1, "assert True")])
    planted = tamper.plant_canaries(nb, {}, 2, random.Random(0))
    assert len(planted) == 1 and planted[0].kind == "fallback"
    assert "expect_equal(" in planted[0].cell.source and nb.cells[-1] is planted[0].cell


@pytest.mark.parametrize("code,what", [
    ("get_ipython().ast_transformers.append(T())", "AST transformers"),
    ("get_ipython().events.register('pre_run_cell', f)", "events"),
    ("ip.run_cell = wrapped", "run_cell"),
    ("import sys\nsys.settrace(t)", "trace function"),
    ("import builtins\nbuiltins.isinstance = f", "imports builtins"),
    ("import numpy as np\nnp.allclose = lambda *a, **k: True", "patches np.allclose"),
    ("Tensor.__eq__ = lambda s, o: True", "patches Tensor.__eq__"),
    ("isinstance = lambda *a: True", "shadows the builtin isinstance"),
    ("def all(*a):\n    return True", "shadows the builtin all"),
    ("!rm -rf /", "magic or shell escape"),
    ("sys.modules['autograd_lab.testing'] = fake", "sys.modules"),
    ("exec(code)", "exec"),
])
def test_static_flags_name_what_the_code_does(code, what):
    nb = h.notebook([h.solution("double", code)])
    flags = tamper.static_flags(nb)
    assert any(what in f for f in flags), flags
    assert all(f.startswith("cell=double line ") for f in flags), flags


def test_honest_code_is_not_flagged():
    code = ("import numpy as np\n\ndef row_means(a):\n    out = a.mean(axis=1)\n"
            "    model.weight = out\n    return out\n")
    assert tamper.static_flags(h.notebook([h.solution("row_means", code)])) == []


def test_sanitizer_removes_what_runs_and_keeps_what_shows():
    html = ('<h2>T</h2><p>a <b>b</b> $x^2$</p><table><tr><th>h</th><td>1</td></tr></table>'
            '<img src="data:image/png;base64,AA" onerror="x()"><script>x()</script>'
            '<a href="javascript:x()">l</a><a href="data:text/html,x">d</a><style>p{}</style>')
    out = sanitize.clean_html(html)
    for kept in ("<h2>T</h2>", "<b>b</b>", "$x^2$", "<th>h</th>", 'src="data:image/png'):
        assert kept in out, out
    for gone in ("onerror", "<script", "javascript:", "data:text/html", "<style"):
        assert gone not in out, out
    svg = sanitize.clean_svg('<svg viewBox="0 0 1 1" onload="x()"><script>x()</script>'
                             '<g><path d="M1"/><text x="1">t</text></g></svg>')
    assert "onload" not in svg and "<script" not in svg and "<path" in svg and "viewBox" in svg


def test_sanitize_output_replaces_javascript_and_widgets():
    out = nbformat.from_dict({"output_type": "display_data", "metadata": {}, "data": {
        "application/javascript": "x()", "text/html": "<i onmouseover='x()'>i</i>"}})
    sanitize.sanitize_output(out)
    assert "application/javascript" not in out.data and "onmouseover" not in out.data["text/html"]
    assert "removed" in out.data["text/plain"]


def test_read_submitted_refuses_links_fifos_and_huge_files(tmp_path):
    real = tmp_path / "real.ipynb"
    real.write_text("{}")
    link = tmp_path / "link.ipynb"
    link.symlink_to(real)
    fifo = tmp_path / "fifo.ipynb"
    os.mkfifo(fifo)
    huge = tmp_path / "huge.ipynb"
    with open(huge, "wb") as f:
        f.truncate(pipeline.MAX_NOTEBOOK_MB * 2**20 + 1)
    assert pipeline.read_submitted(real) == b"{}"
    for path, why in ((link, "symbolic link"), (fifo, "not a regular file"), (huge, "too large")):
        with pytest.raises(pipeline.Refused, match=why):
            pipeline.read_submitted(path)


def test_collect_refuses_links_and_goes_on(tmp_path):
    (tmp_path / "course" / "01_x").mkdir(parents=True)
    nbformat.write(h.notebook([h.code("1")]), tmp_path / "course" / "01_x" / "01_x.ipynb")
    course = pipeline.Course(tmp_path)
    inbox = tmp_path / "inbox"
    (inbox / "ann").mkdir(parents=True)
    (inbox / "ann" / "01_x.ipynb").symlink_to(tmp_path / "course" / "01_x" / "01_x.ipynb")
    (inbox / "bob").symlink_to(tmp_path / "course")
    (inbox / "cid").mkdir()
    nbformat.write(h.notebook([h.code("2")]), inbox / "cid" / "01_x.ipynb")
    messages: list[str] = []
    report = pipeline.collect(course, inbox, log=messages.append)
    assert report.copied == ["submitted/cid/01_x/01_x.ipynb"]
    assert any("ann/01_x.ipynb: a symbolic link" in m for m in messages), messages
    assert any("inbox/bob: a symbolic link" in m for m in messages), messages
    assert not (course.submitted / "ann").exists() and not (course.submitted / "bob").exists()
