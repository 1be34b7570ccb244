"""Stepping through backward: which node runs, which gradient it receives and which it passes on.

:func:`backward_steps` runs backward once (on a retained graph) with the engine's ``observer`` and
records one :class:`BackwardStep` per node, in the order the engine runs them. The ``.grad`` of the
leaves and retained tensors is put back as it was afterwards: stepping changes nothing. Tensor hooks do
run (as in any backward), so a hook that prints will print.

PyTorch's tensors (and any graph of the node protocol, :mod:`autograd_lab.viz.protocol`, whose nodes
have ``register_hook``) are stepped through the same way: a hook on every node records what it
received and sent while PyTorch's own engine runs backward, then the hooks are removed.
"""

from __future__ import annotations

import html
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from .. import engine
from ..function import AccumulateGrad, Node, gradient_edge
from ..tensor import Tensor
from . import display, protocol, widgets
from .dot import to_digraph
from .graph import build, flatten_tensors, format_grad, grad_of
from .protocol import Reader, is_accumulate, is_tensor


def _copy(g: Any) -> Any:
    return None if g is None else g.detach().clone()


@dataclass(frozen=True)
class BackwardStep:
    """One node run by backward: ``grads_in`` arrive (one per output of the node), ``grads_out`` leave
    (one per ``next_functions`` edge; None where no gradient goes)."""

    index: int
    node: Node | Any  # PyTorch's node for PyTorch's tensors
    grads_in: tuple[Tensor | None, ...]
    grads_out: tuple[Tensor | None, ...]

    @property
    def name(self) -> str:
        return protocol.title(self.node)

    def describe(self, label: Any = None) -> str:
        """``MulBackward0 gets 1.0, sends 2.0 to AccumulateGrad(w) and 2.0 to AccumulateGrad(w)``."""
        label = label or protocol.title
        got = ", ".join(format_grad(g) for g in self.grads_in if g is not None) or "nothing"
        if is_accumulate(self.node):
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
                 rankdir: str = "TB", max_nodes: int | None = 200, reader: Reader | None = None) -> None:
        self.outputs = outputs
        self.steps = steps
        self._names, self._fallback = names, fallback
        self.rankdir, self.max_nodes = rankdir, max_nodes
        self._reader = reader or Reader()

    def __len__(self) -> int:
        return len(self.steps)

    def __getitem__(self, i: Any) -> Any:
        return self.steps[i]

    def __iter__(self) -> Iterator[BackwardStep]:
        return iter(self.steps)

    def __repr__(self) -> str:
        return f"<BackwardStepper: {len(self)} steps: {', '.join(s.name for s in self.steps)}>"

    def _label(self, node: Any) -> str:
        if is_accumulate(node):
            var = node.variable
            name = (self._names.get(id(var), (None,))[0] or protocol.name_of(var)
                    or self._fallback.get(id(var), (None,))[0])
            return f"AccumulateGrad({name})" if name else "AccumulateGrad"
        return protocol.title(node)

    def describe(self, i: int) -> str:
        return f"step {i + 1} of {len(self)}: {self.steps[i].describe(self._label)}"

    def draw(self, i: int) -> Any:
        """The graph at step ``i`` (0-based): nodes already run outlined green, the current one red,
        the gradients passed so far on the edges; arrows point the way gradients flow."""
        if not -len(self) <= i < len(self):
            raise IndexError(f"step {i} out of range: there are {len(self)} steps")
        i %= len(self)
        m = build(self.outputs, self._names, self._fallback, show_order=self.numbers is None,
                  rankdir=self.rankdir, max_nodes=self.max_nodes, reader=self._reader)
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
                nr = protocol.output_nr(t) if t is not None else 0
                if (is_tensor(t) and self._reader.grad_fn(t) is node and nr < len(step.grads_in)
                        and step.grads_in[nr] is not None):
                    e.label, e.state = format_grad(step.grads_in[nr]), state
                    if protocol.retains_grad(t):
                        m.nodes[e.dst].lines.append(("grad " + format_grad(step.grads_in[nr]), "grad"))
            if is_accumulate(node) and id(node.variable) in m.tensor_key:
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


def run_steps(outputs: list[Any], grad_tensors: Any, retain_graph: bool,
              known: Sequence[Any] = ()) -> list[BackwardStep]:
    """Run backward once, watching every node; put back every ``.grad`` it touched.

    The tensors whose ``.grad`` backward fills are the leaves and the retained tensors. With
    autograd_lab's tensors the engine's observer sees each node run, and the retained tensors are
    found through the engine's own record of ``retain_grad()`` (``node._retained``), which PyTorch
    keeps private too. With PyTorch's (see :func:`_run_hooked`), the retained tensors put back are
    those among the outputs and ``known`` (the named ones).
    """
    if not all(isinstance(t, Tensor) for t in outputs):
        return _run_hooked(outputs, grad_tensors, retain_graph, known)
    roots = [gradient_edge(t)[0] for t in outputs]
    nodes = engine.discover([r for r in roots if r is not None])
    touched = [n.variable for n in nodes if isinstance(n, AccumulateGrad)]
    touched += [t for n in nodes for ref in n._retained.values() if (t := ref()) is not None]
    steps: list[BackwardStep] = []

    def observer(node: Node, grads_in: tuple, grads_out: tuple) -> None:
        steps.append(BackwardStep(len(steps), node, tuple(map(_copy, grads_in)),
                                  tuple(map(_copy, grads_out))))

    def run() -> None:
        engine.run_backward(outputs, grad_tensors, retain_graph, False, None, accumulate=True,
                            observer=observer)

    _with_grads_put_back(touched, run)
    return steps


def _run_hooked(outputs: list[Any], grad_tensors: Any, retain_graph: bool,
                known: Sequence[Any]) -> list[BackwardStep]:
    """Step through the backward of another library's engine (PyTorch's): a hook on every node
    (``node.register_hook(fn)``, ``fn(grad_inputs, grad_outputs)`` after the node ran) records its
    step while the library's ``autograd.backward`` runs; the hooks are removed afterwards."""
    if any(protocol.is_value(t) for t in outputs):
        raise TypeError(
            "backward_steps watches an engine run backward: autograd_lab's, or PyTorch's (nodes with "
            "register_hook). A graph of values (_prev, _op) has no engine viz can watch; draw it "
            "with viz.draw(..., show_grads=True) after your backward")
    reader = Reader()
    roots = [reader.grad_fn(t) for t in outputs]
    for i, r in enumerate(roots):
        if r is None:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
    nodes = engine.discover(roots)
    unhookable = sorted({protocol.title(n) for n in nodes if not callable(getattr(n, "register_hook", None))})
    if unhookable:
        raise TypeError(f"backward_steps needs nodes with register_hook; these have none: {unhookable}")
    touched = [n.variable for n in nodes if is_accumulate(n)]
    touched += [t for t in [*outputs, *known] if is_tensor(t) and protocol.retains_grad(t)]
    touched = list({id(t): t for t in touched}.values())
    steps: list[BackwardStep] = []

    def watch(node: Any) -> Any:
        def hook(grad_inputs: tuple, grad_outputs: tuple) -> None:
            steps.append(BackwardStep(len(steps), node, tuple(map(_copy, grad_outputs)),
                                      tuple(map(_copy, grad_inputs))))
        return hook

    def run() -> None:
        handles = [n.register_hook(watch(n)) for n in nodes]
        try:
            _library_backward(outputs, grad_tensors, retain_graph)
        finally:
            for h in handles:
                h.remove()

    _with_grads_put_back(touched, run)
    return steps


def _library_backward(outputs: list[Any], grad_tensors: Any, retain_graph: bool) -> None:
    """``<library>.autograd.backward(outputs, grad_tensors, retain_graph=...)`` of the outputs' library
    (``torch`` for PyTorch's tensors); a single output's own ``backward`` where there is none."""
    library = sys.modules.get(type(outputs[0]).__module__.split(".")[0])
    backward = getattr(getattr(library, "autograd", None), "backward", None)
    if callable(backward):
        backward(outputs, grad_tensors, retain_graph=retain_graph)
    elif len(outputs) == 1 and callable(getattr(outputs[0], "backward", None)):
        outputs[0].backward(grad_tensors, retain_graph=retain_graph)
    else:
        raise TypeError(f"backward_steps cannot run backward on {type(outputs[0]).__name__}: it has no "
                        "backward() and its package no autograd.backward")


def _with_grads_put_back(touched: list[Any], run: Any) -> None:
    """Run ``run()`` with the ``.grad`` of ``touched`` set to None, then put them back as they were."""
    before = [(t, grad_of(t)) for t in touched]
    for t, _ in before:
        t.grad = None
    try:
        run()
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


def backward_steps(tensors: Sequence[Any], grad_tensors: Any = None, retain_graph: bool = True,
                   names: dict | None = None, fallback: dict | None = None, rankdir: str = "TB",
                   max_nodes: int | None = 200) -> BackwardStepper:
    outputs = flatten_tensors(tensors)
    known = [t for _, t in [*(names or {}).values(), *(fallback or {}).values()]]
    steps = run_steps(outputs, grad_tensors, retain_graph, known)
    return BackwardStepper(outputs, names or {}, fallback or {}, steps, rankdir, max_nodes)
