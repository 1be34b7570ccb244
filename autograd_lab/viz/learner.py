"""Drawings of a learner's own work on the graph: an order of its nodes, and the run of an engine.

- :func:`show_order` draws the graph numbered in an order the learner computed (notebook 03's
  ``topological_order``), and marks what breaks it: an edge that the order runs against (a node
  numbered after a node it sends its gradient to) is drawn red, labelled "wrong order"; a node
  missing from the order gets "?", a node listed twice both its numbers; the caption sums it up.
- :func:`trace_backward` runs a learner's backward (notebook 03's ``my_backward(y)``) and records, step
  by step, each node it calls and each gradient it writes into a leaf's ``.grad``: a
  :class:`~autograd_lab.viz.steps.BackwardStepper` numbered in the learner's order, shown with a slider.

Both only read the graph, through its public attributes; ``trace_backward`` wraps each node's ``apply``
and ``Tensor.grad``'s setter while the learner's function runs, and puts them (and every ``.grad``)
back afterwards.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..function import AccumulateGrad, Node
from ..tensor import Tensor
from . import protocol
from .dot import to_digraph
from .graph import build, caller_names, flatten_tensors, grad_of, params_names
from .steps import BackwardStep, BackwardStepper

WRONG_ORDER = "wrong order"


def _numbers(positions: list[int]) -> str:
    return ",".join(str(p + 1) for p in positions)


def show_order(
    root: Tensor,
    order: Sequence[Any],
    *,
    params: Any = None,
    rankdir: str = "TB",
    max_nodes: int | None = 200,
    legend: bool = True,
    names_from_caller: bool = True,
) -> Any:
    """Draw the graph behind ``root`` with each node numbered by its position (from 1) in ``order``.

    ``order``: a list of nodes, e.g. ``topological_order(root)``. An edge from a node to one it sends its
    gradient to must go from a smaller number to a larger one; an edge that does not is drawn red and
    labelled "wrong order". A node of the graph missing from ``order`` is numbered "?", one listed
    several times gets every number; the caption says what is wrong, or that the order is
    topological. Returns a ``graphviz.Digraph`` like :func:`autograd_lab.viz.draw` (whose
    ``show_order=True`` numbers the engine's own order; PyTorch has no counterpart).
    """
    if not protocol.is_tensor(root) or protocol.is_value(root):
        raise TypeError(f"show_order expects the tensor whose graph is ordered (autograd_lab's, PyTorch's "
                        f"or one of viz's node protocol), got {type(root).__name__}")
    if root.grad_fn is None:
        raise ValueError("show_order: this tensor has no grad_fn, so no graph to order")
    order = list(order)
    fallback = caller_names(1) if names_from_caller else {}
    m = build([root], params_names(params), fallback, rankdir=rankdir, max_nodes=max_nodes)
    m.keep.append(order)
    nodes = _discover(root.grad_fn)
    positions: dict[int, list[int]] = {}
    strangers = []
    for k, node in enumerate(order):
        if id(node) in m.fn_key:
            positions.setdefault(id(node), []).append(k)
        else:
            strangers.append(k)
    for node in nodes:
        key = m.fn_key.get(id(node))
        if key is not None and m.nodes[key].kind in ("op", "acc"):
            m.nodes[key].order = _numbers(positions[id(node)]) if id(node) in positions else "?"
    against = 0
    for node in nodes:
        for k, (nxt, _) in enumerate(node.next_functions):
            if nxt is None or id(node) not in positions or id(nxt) not in positions:
                continue
            if min(positions[id(nxt)]) < max(positions[id(node)]):
                against += 1
                idx = m.slot_edge.get((id(node), k))
                if idx is not None:
                    m.edges[idx].state, m.edges[idx].label = "current", WRONG_ORDER
    missing = [protocol.title(n) for n in nodes if id(n) not in positions]
    twice = [protocol.title(n) for n in nodes if len(positions.get(id(n), ())) > 1]
    problems = []
    if against:
        problems.append(f"{against} edge(s) run against the order (red)")
    if missing:
        problems.append(f"missing: {', '.join(missing)}")
    if twice:
        problems.append(f"listed more than once: {', '.join(twice)}")
    if strangers:
        problems.append(f"positions {_numbers(strangers)} are not nodes of this graph")
    summary = (f"your order: {len(order)} entries, the graph has {len(nodes)} nodes; "
               + ("; ".join(problems) if problems else "a topological order: every node before the nodes "
                                                           "it sends gradients to"))
    m.caption = summary + (f"\\n{m.caption}" if m.caption else "")
    return to_digraph(m, legend=legend)


def trace_backward(
    backward: Callable[..., Any],
    *tensors: Tensor,
    params: Any = None,
    rankdir: str = "TB",
    max_nodes: int | None = 200,
    names_from_caller: bool = True,
) -> BackwardStepper:
    """Run ``backward(*tensors)`` — your own engine, e.g. ``my_backward`` — and record its steps.

    A step is each call of a node of the graph (``node(grad)`` or ``node.apply(grad)``: the gradients it
    got and returned) and each gradient written into the ``.grad`` of a leaf of the graph (``leaf.grad =
    ...``, drawn as that leaf's ``AccumulateGrad`` node receiving what was added). The result is a
    :class:`~autograd_lab.viz.steps.BackwardStepper` whose drawings number the nodes in the order your
    engine ran them (a node run twice gets both numbers); in JupyterLab it shows as a slider. Afterwards
    every ``.grad`` of the graph's leaves is put back as it was: tracing changes nothing. If ``backward``
    raises, the error passes through, after the same clean-up. (``viz.backward_steps`` records the
    library's engine the same way.)
    """
    outputs = flatten_tensors(tensors)
    strangers = [type(t).__name__ for t in outputs if not isinstance(t, Tensor)]
    if strangers:
        raise TypeError(f"trace_backward records autograd_lab's nodes, which it can wrap; got {strangers[0]} "
                        "(PyTorch's nodes cannot be wrapped, and run no hooks when called directly): "
                        "viz.backward_steps steps through PyTorch's own engine")
    fallback = caller_names(1) if names_from_caller else {}
    nodes = _discover(*[t.grad_fn for t in outputs if t.grad_fn is not None])
    acc_of = {id(n.variable): n for n in nodes if isinstance(n, AccumulateGrad)}
    leaves = {id(n.variable): n.variable for n in nodes if isinstance(n, AccumulateGrad)}
    before = {i: grad_of(t) for i, t in leaves.items()}
    seen = {i: _copy(g) for i, g in before.items()}
    steps: list[BackwardStep] = []

    def wrap(node: Node) -> Callable[..., Any]:
        original = node.apply

        def apply(*grads: Tensor | None) -> Any:
            out = original(*grads)
            steps.append(BackwardStep(len(steps), node, tuple(map(_copy, grads)), tuple(map(_copy, out))))
            if isinstance(node, AccumulateGrad):  # it wrote .grad itself
                seen[id(node.variable)] = _copy(grad_of(node.variable))
            return out
        return apply

    prop = Tensor.grad

    def set_grad(t: Tensor, value: Tensor | None) -> None:
        prop.fset(t, value)
        if id(t) in acc_of and value is not None:
            old = seen[id(t)]
            added = _copy(value) if old is None else (value.detach() - old)
            steps.append(BackwardStep(len(steps), acc_of[id(t)], (added,), ()))
            seen[id(t)] = _copy(value)

    for node in nodes:
        node.apply = wrap(node)
    Tensor.grad = property(prop.fget, set_grad, prop.fdel, prop.__doc__)
    try:
        backward(*tensors)
    finally:
        Tensor.grad = prop
        for node in nodes:
            node.__dict__.pop("apply", None)
        for i, t in leaves.items():
            t.grad = before[i]
    runs: dict[int, list[int]] = {}
    for step in steps:
        runs.setdefault(id(step.node), []).append(step.index)
    stepper = BackwardStepper(outputs, params_names(params), fallback, steps, rankdir, max_nodes)
    stepper.numbers = {i: _numbers(p) for i, p in runs.items()}
    stepper._keep = nodes  # the ids in numbers stay valid
    return stepper


def _discover(*roots: Any) -> list[Any]:
    """Every node reachable from ``roots`` along ``next_functions`` (the node protocol), each once."""
    seen = {id(r) for r in roots}
    found, todo = [], list(roots)
    while todo:
        node = todo.pop()
        found.append(node)
        for nxt, _ in node.next_functions:
            if nxt is not None and id(nxt) not in seen:
                seen.add(id(nxt))
                todo.append(nxt)
    return found


def _copy(g: Tensor | None) -> Tensor | None:
    return None if g is None else g.detach().clone()
