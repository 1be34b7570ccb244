"""Stepping through backward: which node runs, which gradient it receives and which it passes on.

:func:`backward_steps` runs backward once (on a retained graph) with the engine's ``observer`` and
records one :class:`BackwardStep` per node, in the order the engine runs them. The ``.grad`` of the
leaves and retained tensors is put back as it was afterwards: stepping changes nothing. Tensor hooks do
run (as in any backward), so a hook that prints will print.
"""

from __future__ import annotations

import html
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from .. import engine
from ..function import AccumulateGrad, Node, gradient_edge
from ..tensor import Tensor
from . import display, widgets
from .dot import to_digraph
from .graph import build, flatten_tensors, format_grad, grad_of


def _copy(g: Tensor | None) -> Tensor | None:
    return None if g is None else g.detach().clone()


@dataclass(frozen=True)
class BackwardStep:
    """One node run by backward: ``grads_in`` arrive (one per output of the node), ``grads_out`` leave
    (one per ``next_functions`` edge; None where no gradient goes)."""

    index: int
    node: Node
    grads_in: tuple[Tensor | None, ...]
    grads_out: tuple[Tensor | None, ...]

    @property
    def name(self) -> str:
        return type(self.node).__name__

    def describe(self, label: Any = None) -> str:
        """``MulBackward0 gets 1.0, sends 2.0 to AccumulateGrad(w) and 2.0 to AccumulateGrad(w)``."""
        label = label or (lambda node: type(node).__name__)
        got = ", ".join(format_grad(g) for g in self.grads_in if g is not None) or "nothing"
        if isinstance(self.node, AccumulateGrad):
            return f"{label(self.node)} adds {got} into .grad"
        sends = [f"{format_grad(g)} to {label(nxt)}"
                 for (nxt, _), g in zip(self.node.next_functions, self.grads_out)
                 if nxt is not None and g is not None]
        text = f"{label(self.node)} gets {got}"
        if sends:
            text += ", sends " + (", ".join(sends[:-1]) + " and " + sends[-1] if len(sends) > 1 else sends[0])
        return text


class BackwardStepper(Sequence):
    """The steps of one backward pass, drawable one by one.

    ``stepper[i]`` is a :class:`BackwardStep`; ``stepper.draw(i)`` the graph with step ``i`` highlighted
    and every gradient passed so far written on its edge. In Jupyter it shows as a slider (ipywidgets),
    or, where widgets cannot be shown, as the list of drawings (:mod:`autograd_lab.viz.widgets`).
    ``numbers`` (id of a node -> its label) numbers the nodes in another order than the engine's: a
    learner's engine traced by ``viz.trace_backward``.
    """

    numbers: dict[int, str] | None = None

    def __init__(self, outputs: list[Tensor], names: dict, fallback: dict, steps: list[BackwardStep],
                 rankdir: str = "TB", max_nodes: int | None = 200) -> None:
        self.outputs = outputs
        self.steps = steps
        self._names, self._fallback = names, fallback
        self.rankdir, self.max_nodes = rankdir, max_nodes

    def __len__(self) -> int:
        return len(self.steps)

    def __getitem__(self, i: Any) -> Any:
        return self.steps[i]

    def __iter__(self) -> Iterator[BackwardStep]:
        return iter(self.steps)

    def __repr__(self) -> str:
        return f"<BackwardStepper: {len(self)} steps: {', '.join(s.name for s in self.steps)}>"

    def _label(self, node: Node) -> str:
        if isinstance(node, AccumulateGrad):
            var = node.variable
            name = (self._names.get(id(var), (None,))[0] or var.name
                    or self._fallback.get(id(var), (None,))[0])
            return f"AccumulateGrad({name})" if name else "AccumulateGrad"
        return type(node).__name__

    def describe(self, i: int) -> str:
        return f"step {i + 1} of {len(self)}: {self.steps[i].describe(self._label)}"

    def draw(self, i: int) -> Any:
        """The graph at step ``i`` (0-based): nodes already run outlined green, the current one red,
        the gradients passed so far on the edges; arrows point the way gradients flow."""
        if not -len(self) <= i < len(self):
            raise IndexError(f"step {i} out of range: there are {len(self)} steps")
        i %= len(self)
        m = build(self.outputs, self._names, self._fallback, show_order=self.numbers is None,
                  rankdir=self.rankdir, max_nodes=self.max_nodes)
        for node_id, number in (self.numbers or {}).items():
            if node_id in m.fn_key:
                m.nodes[m.fn_key[node_id]].order = number
        for step in self.steps[: i + 1]:
            state = "current" if step.index == i else "done"
            node = step.node
            key = m.fn_key.get(id(node))
            if key is None:
                continue
            v = m.nodes[key]
            if v.state != "current":
                v.state = state
            if state == "current" and v.kind in ("op", "acc"):
                got = ", ".join(format_grad(g) for g in step.grads_in if g is not None)
                v.lines.append(("gets " + (got or "nothing"), "grad"))
            for k, g in enumerate(step.grads_out):
                idx = m.slot_edge.get((id(node), k))
                if idx is not None and g is not None:
                    m.edges[idx].label, m.edges[idx].state = format_grad(g), state
            for e in m.edges:  # the gradient arriving from a drawn output or retained tensor
                t = m.nodes[e.dst].obj if e.src == key and e.kind == "flow" else None
                if isinstance(t, Tensor) and t.grad_fn is node and step.grads_in[t.output_nr] is not None:
                    e.label, e.state = format_grad(step.grads_in[t.output_nr]), state
                    if t.retains_grad:
                        m.nodes[e.dst].lines.append(("grad " + format_grad(step.grads_in[t.output_nr]),
                                                     "grad"))
            if isinstance(node, AccumulateGrad) and id(node.variable) in m.tensor_key:
                leaf = m.nodes[m.tensor_key[id(node.variable)]]
                leaf.lines.append(("grad " + format_grad(step.grads_in[0]), "grad"))
                for e in m.edges:
                    if e.src == leaf.key and e.dst == key:
                        e.state = state
        m.caption = self.describe(i) + (f"\\n{m.caption}" if m.caption else "")
        return to_digraph(m)

    # ------------------------------------------------------------ Jupyter
    def _html(self, i: int) -> str:
        drawing = self.draw(i)
        svg = display.render_svg_or_none(drawing)
        if svg is None:
            return display.missing_dot_bundle(drawing.source)["text/html"]
        return display.svg_html(svg)

    def widget(self) -> Any:
        """A slider (and a play button) over the steps; needs ipywidgets (:mod:`autograd_lab.viz.widgets`)."""
        return widgets.stepper_widget(self)

    def _static_html(self, limit: int = 20) -> str:
        if not len(self):
            return "<p>(no steps)</p>"
        if display.render_svg_or_none(self.draw(0)) is None:  # no dot: say so once
            steps = "".join(f"<li>{html.escape(self.describe(i))}</li>" for i in range(len(self)))
            return f"<ol>{steps}</ol>" + self._html(len(self) - 1)
        shown = range(len(self)) if len(self) <= limit else [len(self) - 1]
        parts = [f"<p><b>{html.escape(self.describe(i))}</b></p>{self._html(i)}" for i in shown]
        if len(self) > limit:
            parts.insert(0, f"<p>{len(self)} steps; the last is drawn. stepper.draw(i) draws step i.</p>")
        return "".join(parts)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None, **kwargs: Any) -> dict:
        return widgets.mimebundle(self, include, exclude, **kwargs)


def run_steps(outputs: list[Tensor], grad_tensors: Any, retain_graph: bool) -> list[BackwardStep]:
    """Run backward once with an observer; put back every ``.grad`` it touched.

    The tensors whose ``.grad`` backward fills are the leaves and the retained tensors; the latter are
    found through the engine's own record of ``retain_grad()`` (``node._retained``), which PyTorch
    keeps private too.
    """
    roots = [gradient_edge(t)[0] for t in outputs]
    nodes = engine.discover([r for r in roots if r is not None])
    touched = [n.variable for n in nodes if isinstance(n, AccumulateGrad)]
    touched += [t for n in nodes for ref in n._retained.values() if (t := ref()) is not None]
    before = [(t, grad_of(t)) for t in touched]
    steps: list[BackwardStep] = []

    def observer(node: Node, grads_in: tuple, grads_out: tuple) -> None:
        steps.append(BackwardStep(len(steps), node, tuple(map(_copy, grads_in)),
                                  tuple(map(_copy, grads_out))))

    for t, _ in before:
        t.grad = None
    try:
        engine.run_backward(outputs, grad_tensors, retain_graph, False, None, accumulate=True,
                            observer=observer)
    except RuntimeError as e:
        if "second time" in str(e):
            raise RuntimeError(
                "backward_steps runs backward once more, but this graph was freed by an earlier "
                "backward(). Run the forward computation again (or use backward(retain_graph=True)) "
                "and then call backward_steps."
            ) from e
        raise
    finally:
        for t, g in before:
            t.grad = g
    return steps


def backward_steps(tensors: Sequence[Tensor], grad_tensors: Any = None, retain_graph: bool = True,
                   names: dict | None = None, fallback: dict | None = None, rankdir: str = "TB",
                   max_nodes: int | None = 200) -> BackwardStepper:
    outputs = flatten_tensors(tensors)
    steps = run_steps(outputs, grad_tensors, retain_graph)
    return BackwardStepper(outputs, names or {}, fallback or {}, steps, rankdir, max_nodes)
