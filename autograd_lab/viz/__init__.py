"""Drawings of computation graphs (Graphviz; inline SVG in JupyterLab).

- :func:`draw` draws the backward graph behind some tensors, as ``torchviz.make_dot`` does for PyTorch:
  leaves (name, shape, value), ``grad_fn`` nodes by PyTorch's names, ``AccumulateGrad`` nodes, saved
  tensors, outputs, and after backward the gradients and the order in which backward ran the nodes.
- :func:`backward_steps` steps through one backward pass node by node (a slider in JupyterLab:
  :mod:`autograd_lab.viz.widgets`).
- :func:`show_order` numbers the graph in a learner's order; :func:`trace_backward` steps through a
  learner's own engine (:mod:`autograd_lab.viz.learner`).

**Which graphs.** viz reads a graph by duck typing, through public attributes, as torchviz reads
PyTorch's (:mod:`autograd_lab.viz.protocol` states the protocol in full). It draws

- autograd_lab's tensors and PyTorch's (``import torch``): a tensor's ``grad_fn``, a node's
  ``next_functions`` and class name, ``variable`` on ``AccumulateGrad``, ``_saved_<name>``;
- any graph of your own built the same way (nodes with ``next_functions``);
- a graph of *values*, micrograd's design and notebook 11's ``Tensor``: each value has ``_prev`` (the
  values it was computed from), ``_op`` (the op's name, the title of its node, ``""`` for a leaf) and
  ``data``; optionally ``grad``, ``requires_grad`` (False: a constant, not drawn) and ``name``/``label``.

``backward_steps`` watches an engine run backward: autograd_lab's, or PyTorch's (node hooks).

viz only reads the graph; it never changes it (``backward_steps`` runs a backward and then puts every
``.grad`` back as it was). The Python package ``graphviz`` is an optional extra
(``pip install 'autograd-lab[viz]'``); the ``dot`` program draws the SVG. Where ``dot`` is missing a
drawing shows how to install Graphviz and its DOT source instead.
"""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor
from .display import INSTALL_HELP, import_graphviz
from .dot import to_digraph
from .graph import build, caller_names, flatten_tensors, params_names
from .learner import show_order, trace_backward
from .steps import BackwardStep, BackwardStepper
from .steps import backward_steps as _backward_steps

__all__ = ["draw", "backward_steps", "show_order", "trace_backward", "BackwardStep", "BackwardStepper",
           "INSTALL_HELP"]

RANKDIRS = ("TB", "LR", "BT", "RL")


def _check_rankdir(rankdir: str) -> str:
    if rankdir not in RANKDIRS:
        raise ValueError(f"rankdir must be one of {', '.join(RANKDIRS)}, got {rankdir!r}")
    return rankdir


def draw(
    *tensors: Tensor | Any,
    params: Any = None,
    show_grads: bool = False,
    show_saved: bool = False,
    show_order: bool = False,
    rankdir: str = "TB",
    max_nodes: int | None = 200,
    legend: bool = True,
    names_from_caller: bool = True,
) -> Any:
    """Draw the computation graph behind ``tensors`` (``torchviz.make_dot`` for autograd_lab).

    Returns a ``graphviz.Digraph`` (JupyterLab shows it inline as SVG; ``.source`` is its DOT text).
    ``tensors``: autograd_lab's, PyTorch's, or any that follow :mod:`autograd_lab.viz.protocol`
    (micrograd-style values: ``_prev``, ``_op``, ``data``).

    - Leaves are boxes: name, shape and, for up to 4 elements, value. A name comes from ``params``
      (a dict name -> tensor, an ``nn.Module``, or pairs such as ``model.named_parameters()``), else
      from ``tensor(..., name="w")``, else from the variable that holds the tensor in the calling code
      (``names_from_caller``). Parameters named ``"layer1.weight"`` are grouped by module.
    - ``grad_fn`` nodes are ovals with PyTorch's names (``MulBackward0``); each leaf sits above its
      ``AccumulateGrad`` node; outputs are green; named or retained intermediate tensors sit between
      the node that made them and their users. A tensor used several times is drawn once. Leaves are
      on top and outputs at the bottom; arrows follow ``next_functions``, the way gradients flow.
    - ``show_saved``: what each node saved for backward (empty once backward freed the graph).
    - ``show_grads``: the ``.grad`` of leaves and retained tensors (after backward).
    - ``show_order``: each node numbered by when backward runs it (``engine.execution_order``).
    - Graphs of more than ``max_nodes`` nodes are collapsed (long chains, then the nodes farthest from
      the outputs) and say how many nodes were collapsed; ``max_nodes=None`` draws everything.
    """
    import_graphviz()
    outputs = flatten_tensors(tensors)
    fallback = caller_names(1) if names_from_caller else {}
    model = build(outputs, params_names(params), fallback, show_grads=show_grads, show_saved=show_saved,
                  show_order=show_order, rankdir=_check_rankdir(rankdir), max_nodes=max_nodes)
    return to_digraph(model, legend=legend)


def backward_steps(
    *tensors: Tensor | Any,
    grad_tensors: Any = None,
    retain_graph: bool = True,
    params: Any = None,
    rankdir: str = "TB",
    max_nodes: int | None = 200,
    names_from_caller: bool = True,
) -> BackwardStepper:
    """Step through backward from ``tensors``: a :class:`BackwardStepper`, one step per node run.

    Each step holds the node, the gradient(s) it received and the gradients it passed on, in the order
    the engine runs the nodes (``engine.execution_order``). PyTorch's tensors work too: node hooks
    watch PyTorch's engine run. ``stepper.draw(i)`` highlights step ``i``;
    in Jupyter the stepper shows a slider. Backward runs once, on a retained graph
    (``retain_graph=True``), and every ``.grad`` it filled is put back as it was, so nothing changes:
    call ``backward()`` yourself afterwards as usual.
    """
    import_graphviz()
    fallback = caller_names(1) if names_from_caller else {}
    return _backward_steps(tensors, grad_tensors, retain_graph, params_names(params), fallback,
                           _check_rankdir(rankdir), max_nodes)
