"""The backward engine: reverse-mode automatic differentiation over the recorded graph.

1. Discover the graph from the roots along ``next_functions`` and count, for every node, how many
   edges point at it (its dependencies).
2. Run ready nodes (all of whose consumers have sent their gradient) one by one, the most recently
   created first, as PyTorch does. A node sums the gradients arriving for each of its outputs, runs
   the tensor hooks registered on those outputs, fills ``.grad`` of retained tensors, computes the
   gradients of its inputs (the vector-Jacobian product), and sends each along its edge.
3. Free what the nodes saved, unless ``retain_graph``.

Everything is iterative, so a chain of a million operations needs no deep recursion. No operation is
special-cased here: the engine only knows nodes, edges and gradients.
"""

from __future__ import annotations

import heapq
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import grad_mode
from .function import AccumulateGrad, Node, gradient_edge, is_anomaly_enabled
from .tensor import Tensor

Observer = Callable[[Node, tuple, tuple], None]

CREATE_GRAPH_WARNING = (
    "Using backward() with create_graph=True will create a reference cycle between the parameter and its "
    "gradient which can cause a memory leak. We recommend using autograd.grad when creating the graph to "
    "avoid this. If you have to use this function, make sure to reset the .grad fields of your parameters "
    "to None after use to break the cycle and avoid the leak."
)


def _as_tuple(x: Any) -> tuple:
    if x is None:
        return ()
    if isinstance(x, Tensor):
        return (x,)
    return tuple(x)


def _make_grads(outputs: tuple[Tensor, ...], grads: tuple) -> list[Tensor | None]:
    """Check the given output gradients, or make the implicit 1 for scalar outputs."""
    if len(grads) != len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(grads)} gradients")
    out: list[Tensor | None] = []
    for i, (t, g) in enumerate(zip(outputs, grads)):
        if not isinstance(t, Tensor):
            raise TypeError(f"element {i} of tensors is a {type(t).__name__}, not a Tensor")
        if g is None:
            if t.requires_grad:
                if t._data.size != 1:
                    raise RuntimeError("grad can be implicitly created only for scalar outputs")
                if t._data.dtype.kind != "f":
                    raise RuntimeError(
                        "grad can be implicitly created only for real scalar outputs but got "
                        f"{t.dtype}"
                    )
                g = Tensor._make(np.ones_like(t._data))
        else:
            if not isinstance(g, Tensor):
                g = Tensor._make(np.asarray(g, dtype=t._data.dtype))
            if g.shape != t.shape:
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and output[{i}] "
                    f"has a shape of {t.shape}."
                )
        out.append(g)
    return out


def backward(
    tensors: Tensor | Sequence[Tensor],
    grad_tensors: Tensor | Sequence[Tensor | None] | None = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    inputs: Tensor | Sequence[Tensor] | None = None,
) -> None:
    """Sum the gradients of ``tensors`` with respect to the graph's leaves into their ``.grad``
    (``torch.autograd.backward``)."""
    outputs = _as_tuple(tensors)
    grads = (None,) * len(outputs) if grad_tensors is None else _as_tuple(grad_tensors)
    if retain_graph is None:
        retain_graph = create_graph
    if create_graph:  # a leaf's .grad then holds a graph that leads back to the leaf itself
        warnings.warn(CREATE_GRAPH_WARNING, UserWarning, stacklevel=3)
    targets = None
    if inputs is not None:
        targets = _as_tuple(inputs)
        if not targets:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    run_backward(outputs, _make_grads(outputs, grads), retain_graph, create_graph, targets,
                 accumulate=True)


def grad(
    outputs: Tensor | Sequence[Tensor],
    inputs: Tensor | Sequence[Tensor],
    grad_outputs: Tensor | Sequence[Tensor | None] | None = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    allow_unused: bool | None = None,
    is_grads_batched: bool = False,
    materialize_grads: bool = False,
) -> tuple[Tensor | None, ...]:
    """Return d(outputs)/d(inputs) without touching any ``.grad`` (``torch.autograd.grad``)."""
    if is_grads_batched:
        raise NotImplementedError("is_grads_batched is not supported by autograd_lab")
    outs = _as_tuple(outputs)
    ins = _as_tuple(inputs)
    if not ins:
        raise RuntimeError("grad requires non-empty inputs.")
    if allow_unused is None:
        allow_unused = materialize_grads
    for i, t in enumerate(outs):  # PyTorch checks the outputs first
        if isinstance(t, Tensor) and not t.requires_grad:
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn"
            )
    for t in ins:
        if not t.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    grads = (None,) * len(outs) if grad_outputs is None else _as_tuple(grad_outputs)
    if retain_graph is None:
        retain_graph = create_graph
    result = run_backward(outs, _make_grads(outs, grads), retain_graph, create_graph, ins,
                          accumulate=False)
    final = []
    for i, (t, g) in enumerate(zip(ins, result)):
        if g is None:
            if materialize_grads:
                g = Tensor._make(np.zeros_like(t._data))
            elif not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in the "
                    "graph. Set allow_unused=True if this is the desired behavior."
                )
        final.append(g)
    return tuple(final)


def run_backward(
    outputs: Sequence[Tensor],
    grads: Sequence[Tensor | None],
    retain_graph: bool,
    create_graph: bool,
    inputs: Sequence[Tensor] | None = None,
    accumulate: bool = True,
    observer: Observer | None = None,
) -> list[Tensor | None]:
    """The engine. Returns the gradients of ``inputs`` (captured on their way, in order).

    ``accumulate``: fill ``.grad`` (backward) or only return the captured gradients (grad).
    ``observer(node, grads_in, grads_out)`` is told of every node run, in order (used by viz).
    """
    roots: list[tuple[Node, int, Tensor | None]] = []
    for i, t in enumerate(outputs):
        node, nr = gradient_edge(t)
        if node is None:
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn"
            )
        roots.append((node, nr, grads[i]))

    captures: dict[tuple[Node, int], list[int]] = {}
    for k, t in enumerate(inputs or ()):
        edge = gradient_edge(t)
        if edge[0] is not None:
            captures.setdefault(edge, []).append(k)
    captured: list[Tensor | None] = [None] * len(inputs or ())

    nodes = _discover([n for n, _, _ in roots])
    wanted = _wanted(nodes, {n for n, _ in captures}) if inputs is not None else None

    def runs(node: Node) -> bool:
        if isinstance(node, AccumulateGrad):
            return accumulate and (wanted is None or (node, 0) in captures)
        return wanted is None or any(n is not None and n in wanted for n, _ in node._next_functions)

    def visited(node: Node) -> bool:
        return wanted is None or node in wanted

    # dependencies: edges from nodes that run into nodes that are visited
    deps: dict[Node, int] = {}
    for node in nodes:
        if visited(node) and runs(node):
            for nxt, _ in node._next_functions:
                if nxt is not None and visited(nxt):
                    deps[nxt] = deps.get(nxt, 0) + 1

    buffers: dict[Node, list[Tensor | None]] = {}
    for node, nr, g in roots:
        _add_to_buffer(buffers, node, nr, g)
    ready: list[tuple[int, int, Node]] = []
    tie = 0
    for node in buffers:
        if deps.get(node, 0) == 0 and visited(node):
            heapq.heappush(ready, (-node._sequence_nr, tie, node))
            tie += 1

    prev_mode = grad_mode.is_grad_enabled()
    grad_mode._set_enabled(create_graph)
    # gradients may be inf or nan (e.g. through an overflowed exp): values, not warnings, as in PyTorch
    quiet = np.errstate(over="ignore", divide="ignore", invalid="ignore")
    quiet.__enter__()
    try:
        while ready:
            _, _, node = heapq.heappop(ready)
            grads_in = buffers.pop(node)
            needed = runs(node)
            hooked = node._tensor_hooks or node._retained or node._pre_hooks
            if not needed and hooked:  # only visited to capture a gradient: tensor hooks run first
                grads_in = _tensor_pre_hooks(node, grads_in)
            for nr, g in enumerate(grads_in):
                for k in captures.get((node, nr), ()):
                    captured[k] = g if create_graph or g is None else g.detach()
            if not needed:
                continue
            if hooked:
                grads_in = _node_pre_hooks(node, _tensor_pre_hooks(node, grads_in))
            grads_out = _call(node, grads_in)
            for hook in tuple(node._post_hooks.values()):
                # PyTorch's names, seen from the forward op: hook(grad_inputs, grad_outputs)
                new = hook(tuple(grads_out), tuple(grads_in))
                if new is not None:
                    grads_out = tuple(new)
            if observer is not None:
                observer(node, tuple(grads_in), tuple(grads_out))
            if not retain_graph:
                node._release()
            for (nxt, nr), g in zip(node._next_functions, grads_out):
                if nxt is None or not visited(nxt):
                    continue
                _add_to_buffer(buffers, nxt, nr, g)
                deps[nxt] -= 1
                if deps[nxt] == 0:
                    heapq.heappush(ready, (-nxt._sequence_nr, tie, nxt))
                    tie += 1
    finally:
        quiet.__exit__(None, None, None)
        grad_mode._set_enabled(prev_mode)

    if accumulate and inputs is not None:  # backward(inputs=[non-leaf]) fills its .grad
        for t, g in zip(inputs, captured):
            if t.grad_fn is not None and g is not None and not t._retains_grad:  # else already stored
                _store_retained(t, g, create_graph)
    return captured


def execution_order(tensors: Tensor | Sequence[Tensor]) -> list[Node]:
    """The nodes of the graph behind ``tensors`` in the order ``backward()`` would run them.

    Nothing is computed or freed: this replays the engine's schedule (dependency counts, then the
    most recently created ready node first) on the graph alone. Used to number nodes in drawings.
    """
    roots = [gradient_edge(t)[0] for t in _as_tuple(tensors)]
    nodes = _discover([n for n in roots if n is not None])
    deps: dict[Node, int] = {}
    for node in nodes:
        for nxt, _ in node._next_functions:
            if nxt is not None:
                deps[nxt] = deps.get(nxt, 0) + 1
    ready = [(-n._sequence_nr, i, n) for i, n in enumerate(dict.fromkeys(r for r in roots if r))
             if deps.get(n, 0) == 0]
    heapq.heapify(ready)
    order, tie = [], len(ready)
    while ready:
        _, _, node = heapq.heappop(ready)
        order.append(node)
        for nxt, _ in node._next_functions:
            if nxt is not None:
                deps[nxt] -= 1
                if deps[nxt] == 0:
                    heapq.heappush(ready, (-nxt._sequence_nr, tie, nxt))
                    tie += 1
    return order


def _discover(roots: list[Node]) -> list[Node]:
    """Every node reachable from the roots (iterative depth-first search)."""
    seen = {id(n): n for n in roots}
    stack = list(seen.values())
    order = []
    while stack:
        node = stack.pop()
        order.append(node)
        for nxt, _ in node._next_functions:
            if nxt is not None and id(nxt) not in seen:
                seen[id(nxt)] = nxt
                stack.append(nxt)
    return order


def _wanted(nodes: list[Node], targets: set[Node]) -> set[Node]:
    """The nodes from which a gradient can reach one of the targets (for ``inputs=``)."""
    parents: dict[Node, list[Node]] = {}
    for node in nodes:
        for nxt, _ in node._next_functions:
            if nxt is not None:
                parents.setdefault(nxt, []).append(node)
    wanted = set(t for t in targets if t in parents or t in nodes)
    stack = list(wanted)
    while stack:
        node = stack.pop()
        for p in parents.get(node, ()):
            if p not in wanted:
                wanted.add(p)
                stack.append(p)
    return wanted


def _add_to_buffer(buffers: dict, node: Node, nr: int, g: Tensor | None) -> None:
    buf = buffers.get(node)
    if buf is None:
        buf = buffers[node] = [None] * max(node._num_outputs, nr + 1)
    if g is None:
        return
    buf[nr] = g if buf[nr] is None else buf[nr] + g


def _tensor_pre_hooks(node: Node, grads: list[Tensor | None]) -> list[Tensor | None]:
    """The hooks registered on the tensors this node made (each may replace the gradient), then
    retain_grad, which stores the gradient as the hooks left it (PyTorch's order)."""
    for nr, hooks in node._tensor_hooks.items():
        for hook in tuple(hooks.values()):
            if grads[nr] is None:
                break
            new = hook(grads[nr])
            if new is not None:
                grads[nr] = new
    for nr, ref in tuple(node._retained.items()):
        t = ref()
        if t is not None and grads[nr] is not None and t.grad_fn is node:
            _store_retained(t, grads[nr], grad_mode.is_grad_enabled())
    return grads


def _node_pre_hooks(node: Node, grads: list[Tensor | None]) -> list[Tensor | None]:
    """``node.register_prehook`` hooks: they see all the node's output gradients, and may replace them."""
    for hook in tuple(node._pre_hooks.values()):
        new = hook(tuple(grads))
        if new is not None:
            grads = list(new)
    return grads


def _store_retained(t: Tensor, g: Tensor, create_graph: bool) -> None:
    if t._grad is None:
        t._grad = g if create_graph else Tensor._make(np.array(g._data, copy=True))
    else:
        t._grad = t._grad + g if create_graph else Tensor._make(t._grad._data + g._data)


def _call(node: Node, grads_in: list[Tensor | None]) -> tuple[Tensor | None, ...]:
    try:
        return node.apply(*grads_in)
    except Exception:
        if is_anomaly_enabled() and node._forward_trace:
            warnings.warn(
                f"Error detected in {node.name()}. Traceback of forward call that caused the error:\n"
                + "".join(node._forward_trace),
                UserWarning,
                stacklevel=3,
            )
        raise
