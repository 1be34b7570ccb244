"""autograd_lab.viz.learner: a learner's order drawn (``show_order``) and a learner's engine traced step by
step (``trace_backward``), on notebook 03's network, diamonds and wrong orders."""

from __future__ import annotations

import sys
from collections import deque
from pathlib import Path

import pytest

import autograd_lab as torch
from autograd_lab import engine

pytest.importorskip("graphviz")
from autograd_lab import viz  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_viz import Dot, seed_network, seed_simple  # noqa: E402


def numbered(dot: Dot) -> dict[str, str]:
    """Drawn function node -> its number label ('3', '2,9', '?')."""
    out = {}
    for key, (kind, lines) in dot.nodes.items():
        if kind.split()[0] in ("op", "acc"):
            label, _, _ = lines[0].partition("  ")
            out[key] = label
    return out


def key_of(dot: Dot, name: str) -> str:
    (key,) = [k for k, (_, lines) in dot.nodes.items() if lines[0].split()[-1] == name]
    return key


def bfs(y):
    seen, queue, order = {y.grad_fn}, deque([y.grad_fn]), []
    while queue:
        node = queue.popleft()
        order.append(node)
        for child, _ in node.next_functions:
            if child is not None and child not in seen:
                seen.add(child)
                queue.append(child)
    return order


def my_backward(y, order=engine.execution_order, per_path=False):
    """Notebook 03's engine, as a learner writes it (or, per_path, runs a node once per arriving gradient)."""
    if per_path:
        with torch.no_grad():
            stack = [(y.grad_fn, torch.ones_like(y))]
            while stack:
                node, grad = stack.pop()
                if hasattr(node, "variable"):
                    leaf = node.variable
                    leaf.grad = grad.clone() if leaf.grad is None else leaf.grad + grad
                    continue
                out = node(grad)
                out = (out,) if isinstance(out, torch.Tensor) else out
                stack += [(n, g) for (n, _), g in zip(node.next_functions, out)
                          if n is not None and g is not None]
        return
    buffers = {y.grad_fn: torch.ones_like(y)}
    with torch.no_grad():
        for node in order(y):
            grad = buffers.pop(node, None)
            if grad is None:
                continue
            if hasattr(node, "variable"):
                leaf = node.variable
                leaf.grad = grad.clone() if leaf.grad is None else leaf.grad + grad
                continue
            out = node.apply(grad)
            for (nxt, _), g in zip(node.next_functions, out):
                if nxt is not None and g is not None:
                    buffers[nxt] = g if nxt not in buffers else buffers[nxt] + g


def test_show_order_numbers_the_learners_order():
    leaves, _, L = seed_network()
    order = engine.execution_order(L)[::-1][::-1]
    dot = Dot(viz.show_order(L, order).source)
    labels = numbered(dot)
    assert sorted(labels.values(), key=int) == [str(i) for i in range(1, 12)]
    assert labels[key_of(dot, "RsubBackward1")] == "1"
    assert "wrong order" not in dot.source
    assert "a topological order: every node before the nodes it sends gradients to" in dot.source


def test_show_order_marks_what_breaks_the_order():
    x = torch.tensor([0.5, -1.0], requires_grad=True)
    u, v = x.exp(), x.tanh()
    y = (u + u.sin()) * (v.cos() + v)      # breadth-first reaches u's node before sin's: not topological
    order = bfs(y)
    dot = Dot(viz.show_order(y, order).source)
    wrong = [(s, d) for s, d, attrs in dot.edges if "wrong order" in attrs]
    assert wrong, "BFS runs an edge backwards on this graph"
    assert all("#c92a2a" in attrs for _, _, attrs in dot.edges if "wrong order" in attrs)
    assert f"{len(wrong)} edge(s) run against the order (red)" in dot.source
    # a node left out, one listed twice, and something that is not a node of the graph
    order = engine.execution_order(y)
    broken = order[1:] + [order[1], "not a node"]
    dot = Dot(viz.show_order(y, broken).source)
    labels = numbered(dot)
    assert labels[key_of(dot, "MulBackward0")] == "?"
    assert "missing: MulBackward0" in dot.source
    assert f"listed more than once: {type(order[1]).__name__}" in dot.source
    assert f"positions {len(broken)} are not nodes of this graph" in dot.source
    assert labels[dot.of_kind("op")[0]] != ""


def test_show_order_refuses_what_it_cannot_draw():
    with pytest.raises(TypeError, match="expects the tensor"):
        viz.show_order([1, 2], [])
    with pytest.raises(ValueError, match="no grad_fn"):
        viz.show_order(torch.tensor(1.0, requires_grad=True), [])


def test_trace_backward_records_the_learners_engine_and_changes_nothing():
    (a, w1, w2, w3, w4), _, L = seed_network()
    w1.grad = torch.tensor(100.0)
    kept = w1.grad
    grad_property = torch.Tensor.grad
    steps = viz.trace_backward(my_backward, L)
    assert torch.Tensor.grad is grad_property, "Tensor.grad is put back"
    assert all("apply" not in vars(n) for n in engine.discover([L.grad_fn])), "the nodes' apply is put back"
    assert w1.grad is kept and w1.grad.item() == 100.0 and a.grad is None, "every .grad as it was"
    assert [s.node for s in steps] == engine.execution_order(L), "this engine runs the engine's order"
    assert steps.describe(0) == "step 1 of 11: RsubBackward1 gets 1.0, sends -1.0 to AddBackward0"
    assert steps.describe(10) == "step 11 of 11: AccumulateGrad(a) adds 0.5 into .grad"
    w1_step = next(s for s in steps if getattr(s.node, "variable", None) is w1)
    assert w1_step.grads_in[0].item() == -1.0, "what was added (-w3 * a), not the 100 - 1 in .grad"
    dot = Dot(steps.draw(4).source)
    assert dot.nodes[key_of(dot, "RsubBackward1")][0] == "op done"
    assert "step 5 of 11" in dot.source


def test_trace_backward_numbers_nodes_in_the_learners_order():
    h0 = torch.tensor(0.5, requires_grad=True, name="h0")
    h = h0
    for _ in range(2):
        h = h.sin() + h.cos()
    steps = viz.trace_backward(lambda y: my_backward(y, per_path=True), h)
    runs = [s.name for s in steps]
    assert runs.count("AccumulateGrad") == 4, "one per path: 2 diamonds, 4 paths"
    labels = numbered(Dot(steps.draw(len(steps) - 1).source))
    assert any("," in label for label in labels.values()), "a node run twice shows both numbers"
    assert h0.grad is None
    steps = viz.trace_backward(lambda y: my_backward(y, order=bfs), seed_simple()[2])
    assert [s.name for s in steps][:2] == ["AddBackward0", "MulBackward0"]


def test_trace_backward_cleans_up_when_the_engine_fails():
    w, b, y = seed_simple()
    grad_property = torch.Tensor.grad

    def broken(t):
        t.grad_fn(torch.tensor(1.0))
        w.grad = torch.tensor(5.0)
        raise ZeroDivisionError("learner's bug")

    with pytest.raises(ZeroDivisionError, match="learner's bug"):
        viz.trace_backward(broken, y)
    assert torch.Tensor.grad is grad_property and w.grad is None
    assert "apply" not in vars(y.grad_fn)
