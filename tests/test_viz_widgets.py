"""autograd_lab.viz.widgets: the slider over backward's steps where a widget can be shown (an IPython
kernel with ipywidgets), the static drawings elsewhere (no ipywidgets, no kernel, nbgrader's execution),
and what a kernel really sends. The slider in a real browser: tests/test_browser.py."""

from __future__ import annotations

import os
import shutil
import sys
from types import SimpleNamespace

import pytest

import autograd_lab as torch

pytest.importorskip("graphviz")
from autograd_lab import viz  # noqa: E402
from autograd_lab.viz import widgets  # noqa: E402

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
WIDGET = widgets.WIDGET_MIME


def simple():
    w = torch.tensor(2.0, requires_grad=True, name="w")
    b = torch.tensor(3.0, requires_grad=True, name="b")
    return w, b, w * w + b


@pytest.fixture
def in_a_kernel(monkeypatch):
    """IPython's get_ipython() returns a shell with a kernel, as in Jupyter."""
    pytest.importorskip("ipywidgets")
    import IPython

    monkeypatch.setattr(IPython, "get_ipython", lambda: SimpleNamespace(kernel=object()))
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)


def test_widgets_unavailable_without_a_kernel_or_while_grading(monkeypatch, in_a_kernel):
    assert widgets.widgets_available()
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    assert not widgets.widgets_available()
    monkeypatch.delenv("NBGRADER_EXECUTION")
    monkeypatch.setitem(sys.modules, "ipywidgets", None)
    assert not widgets.widgets_available()
    monkeypatch.undo()
    assert not widgets.widgets_available(), "plain Python (pytest): no kernel"


@needs_dot
def test_static_drawings_where_no_widget_can_show():
    _, _, y = simple()
    steps = viz.backward_steps(y)
    bundle = steps._repr_mimebundle_()
    assert WIDGET not in bundle
    assert bundle["text/html"].count("<svg") == len(steps) == 4, "one drawing per step, as before the slider"
    assert "step 3 of 4: MulBackward0 gets 1.0" in bundle["text/html"]


@needs_dot
def test_slider_with_a_static_drawing_beside_it_in_a_kernel(in_a_kernel):
    _, _, y = simple()
    steps = viz.backward_steps(y)
    bundle = steps._repr_mimebundle_()
    assert WIDGET in bundle and bundle[WIDGET]["model_id"]
    assert bundle["text/html"].count("<svg") == 1 and "step 4 of 4" in bundle["text/html"], "the last step"
    assert set(steps._repr_mimebundle_(include=["text/html"])) == {"text/html"}


@needs_dot
def test_moving_the_slider_redraws_the_step_and_draws_each_step_once(monkeypatch):
    pytest.importorskip("ipywidgets")
    _, _, y = simple()
    steps = viz.backward_steps(y)
    drawn = []
    real = type(steps)._html
    monkeypatch.setattr(type(steps), "_html", lambda self, i: drawn.append(i) or real(self, i))
    box = widgets.stepper_widget(steps)
    assert box.slider.min == 1 and box.slider.max == 4 and "step 1 of 4" in box.html.value
    for value, text, current in ((3, "step 3 of 4: MulBackward0 gets 1.0", "op"),
                                 (2, "step 2 of 4: AccumulateGrad(b) adds 1.0", "acc"),
                                 (3, "step 3 of 4", "op")):
        box.slider.value = value
        assert text in box.html.value and f'class="node {current} current"' in box.html.value
    assert drawn == [0, 2, 1], "each step rendered once, when the slider first reaches it"


@needs_dot
def test_trace_of_a_learners_engine_shows_with_the_slider(in_a_kernel):
    w, _, y = simple()

    def engine(t):
        with torch.no_grad():
            gw = t.grad_fn(torch.ones_like(t))[0]
            g1, g2 = t.grad_fn.next_functions[0][0](gw)
            w.grad = g1 + g2

    steps = viz.trace_backward(engine, y)
    assert [s.name for s in steps] == ["AddBackward0", "MulBackward0", "AccumulateGrad"]
    box = widgets.stepper_widget(steps)
    box.slider.value = 3
    assert "AccumulateGrad(w) adds 4.0 into .grad" in box.html.value


KERNEL_CELLS = [
    "import autograd_lab as torch\nfrom autograd_lab import viz\n"
    "w = torch.tensor(2.0, requires_grad=True)\nb = torch.tensor(3.0, requires_grad=True)\ny = w * w + b",
    "viz.backward_steps(y)",
]


@needs_dot
@pytest.mark.slow
@pytest.mark.parametrize("grading", [False, True], ids=["learner", "nbgrader"])
def test_what_a_kernel_sends(grading, monkeypatch):
    """A real kernel (nbclient, as nbconvert and nbgrader run notebooks): the slider with its static
    drawing; under NBGRADER_EXECUTION the static drawings only, as before the slider."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipywidgets")
    if grading:
        monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    else:
        monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in KERNEL_CELLS])
    nbclient.NotebookClient(nb, timeout=120, kernel_name="python3",
                            resources={"metadata": {"path": os.getcwd()}}).execute()
    (out,) = nb.cells[1].outputs
    assert ("application/vnd.jupyter.widget-view+json" in out["data"]) is not grading
    assert out["data"]["text/html"].count("<svg") == (4 if grading else 1)
