"""A slider over the steps of a backward pass (ipywidgets), and the static drawings where it cannot run.

In JupyterLab a :class:`~autograd_lab.viz.steps.BackwardStepper` (``viz.backward_steps(y)``, or a learner's
engine traced by ``viz.trace_backward``) shows as a slider with a play button: one step of backward per
position, the graph redrawn for each (the node running now red, the ones already run green, the
gradients passed so far on the edges). Where no widget can be shown it shows what it showed before the
slider existed, the drawings themselves (:meth:`BackwardStepper._static_html`):

- ipywidgets is not installed;
- no IPython kernel runs the code (a plain ``python``, the course's PyTorch-cells runner);
- the notebook is being graded or validated (``NBGRADER_EXECUTION`` is set): nobody looks at a slider
  there, and the feedback pages are static HTML.

Where the slider is shown, its output also carries a static drawing of the last step as ``text/html``:
a page made from the saved notebook (nbconvert, a notebook viewer) shows that instead of an empty
widget. Each step is rendered once, when the slider first reaches it.
"""

from __future__ import annotations

import html
import os
import sys
from typing import Any

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


def widgets_available() -> bool:
    """True where a widget can be displayed: ipywidgets importable, code run by an IPython kernel, and the
    notebook not being validated or graded (``NBGRADER_EXECUTION`` unset)."""
    if os.environ.get("NBGRADER_EXECUTION"):
        return False
    try:
        import ipywidgets  # noqa: F401
    except ImportError:
        return False
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    return shell is not None and getattr(shell, "kernel", None) is not None


def stepper_widget(stepper: Any) -> Any:
    """A ``VBox``: a play button and a slider (1 .. number of steps) over an HTML drawing of the step.

    ``box.slider`` is the ``IntSlider`` and ``box.html`` the ``HTML`` widget that shows step
    ``slider.value`` (counted from 1); moving the slider redraws it. Needs ipywidgets.
    """
    import ipywidgets as widgets

    n = len(stepper)
    drawn: dict[int, str] = {}

    def html_of(i: int) -> str:  # dot takes tens of ms per drawing: each step once
        if i not in drawn:
            drawn[i] = stepper._html(i)
        return drawn[i]

    slider = widgets.IntSlider(value=1, min=1, max=max(n, 1), description="step", continuous_update=True,
                               disabled=n == 0)
    play = widgets.Play(value=1, min=1, max=max(n, 1), interval=1500, description="play", disabled=n == 0)
    widgets.jslink((play, "value"), (slider, "value"))
    out = widgets.HTML(html_of(0) if n else "(no steps)")

    def show(change: dict) -> None:
        out.value = html_of(change["new"] - 1)

    slider.observe(show, names="value")
    box = widgets.VBox([widgets.HBox([play, slider]), out])
    box.add_class("autograd-lab-steps")
    box.slider, box.html = slider, out  # for tests and for driving it from code
    return box


def _fallback_html(stepper: Any) -> str:
    """What a static page shows in place of the slider: the last step, and how to see the others."""
    if not len(stepper):
        return "<p>(no steps)</p>"
    last = len(stepper) - 1
    note = (f"<p>{len(stepper)} steps of backward; a slider shows them one by one in JupyterLab. "
            f"The last, <b>{html.escape(stepper.describe(last))}</b>:</p>")
    return note + stepper._html(last)


def mimebundle(stepper: Any, include: Any = None, exclude: Any = None, **kwargs: Any) -> dict:
    """The display of a stepper: the slider (with a static drawing beside it for static pages) where
    :func:`widgets_available`, else the static drawings."""
    if widgets_available():
        bundle = dict(stepper_widget(stepper)._repr_mimebundle_(**kwargs))
        bundle["text/html"] = _fallback_html(stepper)
    else:
        bundle = {"text/plain": repr(stepper), "text/html": stepper._static_html()}
    if include is not None:
        bundle = {k: v for k, v in bundle.items() if k in set(include)}
    if exclude is not None:
        bundle = {k: v for k, v in bundle.items() if k not in set(exclude)}
    return bundle
