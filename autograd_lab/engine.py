"""The backward engine: reverse-mode automatic differentiation over the recorded graph.

Notebook 03's ``my_backward`` is this engine in 20 lines: start at the output with a gradient of 1,
call every node, in an order where a node runs after all the nodes that send it a gradient, on the sum
of what was sent to it, and send what it returns along its ``next_functions``. This file is the same
loop (:func:`run_backward`) with what PyTorch's engine adds, in PyTorch's order:

1. :func:`discover` walks the graph from the roots; every node counts the edges that point at it (its
   dependencies). A node is ready once all of them have delivered their gradient.
2. Of the ready nodes, the one created last runs first (:func:`_schedule`, a heap on the sequence
   number), as in PyTorch; :func:`execution_order` is that schedule without running anything.
3. For each node (PyTorch's ``evaluate_function``): with ``inputs=`` (and in ``autograd.grad``) the
   gradient arriving at an input is captured and nodes from which no input can be reached are skipped
   (:func:`_exec_info`); the hooks of the tensors the node made, ``retain_grad`` and the node's pre-hooks
   see its gradients first; the node computes the gradients of its inputs (the vector-Jacobian
   product); its post-hooks may replace them (:func:`_call_function`); what it saved is freed unless
   ``retain_graph``; each gradient is added to the buffer of the node its edge leads to.

A plain ``backward()`` (no ``inputs=``, nothing captured) takes the same steps in one tighter loop,
:func:`_run_plain`: it is what every training step runs. Everything is iterative, so a chain of a
million operations needs no deep recursion. No operation is
special-cased here: the engine only knows nodes, edges and gradients.
"""

from __future__ import annotations

import heapq
import itertools
import warnings
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from sys import getrefcount
from typing import Any

import numpy as np

from . import grad_mode
from .dtypes import quiet as _quiet
from .dtypes import quiet_off, quiet_on
from .function import (
    AccumulateGrad,
    Node,
    _anomaly,
    as_tensors,
    checked_hook_result,
    gradient_edge,
    hook_name,
    is_anomaly_enabled,
)
from .tensor import Tensor

Observer = Callable[[Node, tuple, tuple], None]

CREATE_GRAPH_WARNING = (
    "Using backward() with create_graph=True will create a reference cycle between the parameter and its "
    "gradient which can cause a memory leak. We recommend using autograd.grad when creating the graph to "
    "avoid this. If you have to use this function, make sure to reset the .grad fields of your parameters "
    "to None after use to break the cycle and avoid the leak."
)


def backward(
    tensors: Tensor | Sequence[Tensor],
    grad_tensors: Tensor | Sequence[Tensor | None] | None = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    inputs: Tensor | Sequence[Tensor] | None = None,
) -> None:
    """Sum the gradients of ``tensors`` with respect to the graph's leaves into their ``.grad``
    (``torch.autograd.backward``; ``tensor.backward()`` is this function).

    For a non-scalar tensor pass ``grad_tensors``: the vector v of the vector-Jacobian product v^T J
    that backward computes. ``inputs``: accumulate only into these tensors' ``.grad``.
    """
    if retain_graph is None:
        retain_graph = create_graph
    if create_graph:  # a leaf's .grad then holds a graph that leads back to the leaf itself
        warnings.warn(CREATE_GRAPH_WARNING, UserWarning, stacklevel=3)
    targets = None
    if inputs is not None:
        targets = _as_tuple(inputs)
        if not targets:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    run_backward(_as_tuple(tensors), grad_tensors, retain_graph, create_graph, targets, accumulate=True)


def tensor_backward(
    tensor: Tensor,
    gradient: Tensor | None = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    inputs: Sequence[Tensor] | Tensor | None = None,
) -> None:
    """``tensor.backward()``: accumulate d(tensor)/d(leaf) into the ``.grad`` of every leaf of the
    graph (``torch.Tensor.backward``; :func:`backward` of one tensor)."""
    if gradient is None and inputs is None and not create_graph:  # loss.backward(): nothing to check
        run_backward((tensor,), None, bool(retain_graph), False)
        return
    backward(tensor, gradient, retain_graph, create_graph, inputs)


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
    if retain_graph is None:
        retain_graph = create_graph
    result = run_backward(outs, grad_outputs, retain_graph, create_graph, ins, accumulate=False)
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
    grads: Tensor | Sequence[Tensor | None] | None,
    retain_graph: bool,
    create_graph: bool,
    inputs: Sequence[Tensor] | None = None,
    accumulate: bool = True,
    observer: Observer | None = None,
) -> list[Tensor | None]:
    """The engine. Returns the gradients of ``inputs`` (captured on their way, in order).

    ``grads``: one gradient per output (None: the implicit 1 of a scalar output).
    ``accumulate``: fill ``.grad`` (backward) or only return the captured gradients (grad).
    ``observer(node, grads_in, grads_out)`` is told of every node run, in order (used by viz).
    """
    if inputs is None and accumulate and observer is None:
        _run_plain(_loss_root(outputs, grads) or _roots(outputs, _make_grads(outputs, grads)),
                   retain_graph, create_graph)
        return []
    roots = _roots(outputs, _make_grads(outputs, grads))
    nodes = discover(node for node, _, _ in roots)
    captures = _captures(inputs) if inputs else {}
    captured: list[Tensor | None] = [None] * len(inputs or ())
    visited, needed = (None, None) if inputs is None and accumulate else _exec_info(
        nodes, captures, inputs is not None, accumulate)  # plain backward(): every node runs
    if visited is not None and len(roots) == 1:
        # PyTorch starts at the one output's node itself: it is always visited, so the output's hooks
        # and retain_grad run even when no input can be reached (before "... not have been used ...")
        visited.add(roots[0][0])

    buffers: dict[Node, list[Tensor | None]] = {}
    for node, nr, g in roots:
        _add_to_buffer(buffers, node, nr, g)
    # IEEE results (inf, nan, e.g. through an overflowed exp) are values, not warnings, as in PyTorch
    with grad_mode.set_grad_enabled(create_graph), _quiet():
        for node in _schedule(list(buffers), _dependencies(nodes, visited, needed), visited, needed):
            grads_in = buffers.pop(node)
            if needed is not None and node not in needed:  # inputs=: visited only to capture a gradient
                if node._hooked:
                    grads_in = _tensor_pre_hooks(node, grads_in)
                _capture(captures, captured, node, grads_in, create_graph)
                continue
            if captures:  # a node that runs captures before its hooks, as in PyTorch
                _capture(captures, captured, node, grads_in, create_graph)
            grads_out = _call_function(node, grads_in)
            if observer is not None:
                observer(node, tuple(grads_in), tuple(grads_out))
            if not retain_graph:
                node._release()
            edges = iter(node._edges)  # zip takes node, output_nr from it, then the gradient
            for nxt, nr, g in zip(edges, edges, grads_out):
                if nxt is not None and (visited is None or nxt in visited):
                    _add_to_buffer(buffers, nxt, nr, g)

    if accumulate and inputs is not None:  # backward(inputs=[non-leaf]) fills its .grad
        for t, g in zip(inputs, captured):
            if t.grad_fn is not None and g is not None and not t._retains_grad:  # else already stored
                _store_retained(t, g, create_graph)
    return captured


def _run_plain(roots: list[tuple[Node, int, Tensor | None]], retain_graph: bool, create_graph: bool) -> None:
    """:func:`run_backward` for a plain ``backward()`` (no ``inputs=``, no capture, no observer), the
    common case, in one loop: the graph is walked once (counting each node's dependencies), and a node
    without hooks is applied directly. Without ``create_graph``, the nodes whose op has
    ``backward_arrays`` take and return NumPy arrays (``apply_arrays``): no Tensor is made for a gradient
    between two of them. Same schedule, same results."""
    deps: dict[Node, int] = {}
    stack = [roots[0][0]] if len(roots) == 1 else list(dict.fromkeys(node for node, _, _ in roots))
    starts = set(stack) if len(stack) > 1 else ()  # (one root: no edge leads back to it)
    while stack:
        for nxt in stack.pop()._edges[::2]:
            if nxt is None:
                continue
            count = deps.get(nxt)
            if count is not None:  # seen before: one more edge into it
                deps[nxt] = count + 1
            else:
                deps[nxt] = 1
                if nxt not in starts:  # (a root is walked from already)
                    stack.append(nxt)
    buffers: dict[Node, list[Tensor | None]] = {}
    tie = itertools.count()
    if len(roots) == 1:  # (one output: its node starts, with its one gradient; nothing else is ready)
        root, nr, g = roots[0]
        ready = []
        start: tuple[Node | None, list | None] = (root, [None] * max(root._num_outputs, nr + 1))
        start[1][nr] = g
    else:
        for node, nr, g in roots:
            _add_to_buffer(buffers, node, nr, g)
        ready = [(-n._sequence_nr, next(tie), n) for n in buffers if n not in deps]
        heapq.heapify(ready)
        start = (None, None)
    anomaly = _anomaly["enabled"]  # (else each node's apply is called directly)
    on_arrays = not create_graph  # (nodes with backward_arrays then pass arrays to each other)
    # grad mode as create_graph says, and IEEE results without NumPy's warnings, as run_backward's `with`
    # (the two switched by hand: their context managers cost a microsecond of every backward)
    state = grad_mode._state
    was_enabled, state.enabled = state.enabled, bool(create_graph)
    token = quiet_on()
    try:
        # the next node and its gradients, when it is the only one ready: no trip through the heap and
        # the buffers (a chain hands each node to the next so)
        node, grads_in = start
        while node is not None or ready:
            if node is None:
                node = heapq.heappop(ready)[2]
                grads_in = buffers.pop(node)
            if on_arrays and node._on_arrays and not node._hooked and not anomaly:
                grads_out = node.apply_arrays(grads_in, not retain_graph)  # arrays from node to node
            else:
                grads_out = (_call_function(node, as_tensors(grads_in)) if node._hooked or anomaly
                             else node.apply(*as_tensors(grads_in)))
                if not retain_graph:
                    node._release()
            edges = iter(node._edges)  # zip takes node, output_nr from it, then the gradient
            node = None
            for nxt, nr, g in zip(edges, edges, grads_out):
                if nxt is None:
                    continue
                left = deps[nxt] - 1
                buf = buffers.get(nxt)
                if buf is None:
                    if not left and type(nxt) is AccumulateGrad and not nxt._hooked:
                        # its one gradient, at once: with the highest priority (sequence_nr), the heap
                        # would hand it out next anyway, and without hooks nothing can tell the difference;
                        # a gradient nothing else holds is handed over (.grad without a copy)
                        if getrefcount(g) == _HANDED_OVER:
                            nxt.take(g)
                        else:
                            nxt.apply(g if g is None or type(g) is Tensor else Tensor._make(g))
                        continue
                    n = nxt._num_outputs
                    buf = [None] * (n if n > nr else nr + 1)
                    if not left and node is None and not ready:  # its only edge: straight to it
                        buf[nr] = g
                        node, grads_in = nxt, buf
                        continue
                    buffers[nxt] = buf
                if g is not None:
                    buf[nr] = g if buf[nr] is None else _accumulate(buf[nr], g)
                deps[nxt] = left
                if not left:
                    if node is None and not ready:  # the only ready node so far: kept in hand
                        node, grads_in = nxt, buffers.pop(nxt)
                    else:  # more than one: the heap orders them (the one in hand first, as it came first)
                        if node is not None:
                            buffers[node] = grads_in
                            heapq.heappush(ready, (-node._sequence_nr, next(tie), node))
                            node = None
                        heapq.heappush(ready, (-nxt._sequence_nr, next(tie), nxt))
    finally:
        quiet_off(token)
        state.enabled = was_enabled


def _handed_over() -> int:
    """The references getrefcount sees to a gradient nothing else holds, in _run_plain's loop: grads_out,
    zip's tuple, the loop variable and (as this Python counts it) getrefcount's argument. PyTorch's
    AccumulateGrad checks the use count so; measured once here, the same way, so that any other holder
    (a second slot of grads_out, a user's variable or list) makes the count larger."""
    edges = iter((None, 0))
    grads_out = (object(),)
    for _nxt, _nr, g in zip(edges, edges, grads_out):
        return getrefcount(g)
    raise AssertionError("unreachable")


_HANDED_OVER = _handed_over()


def _apply(node: Node, grads: list[Tensor | None]) -> tuple[Tensor | None, ...]:
    """``node.apply``, naming the forward call that made the node when anomaly detection is on."""
    try:
        out = node.apply(*grads)
        if _anomaly["enabled"] and _anomaly["check_nan"]:
            for i, g in enumerate(out):
                if g is not None and g._data.dtype.kind in "fc" and np.isnan(g._data).any():
                    raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")
        return out
    except Exception:
        if is_anomaly_enabled() and node._forward_trace:
            warnings.warn(
                f"Error detected in {node.name()}. Traceback of forward call that caused the error:\n"
                + "".join(node._forward_trace),
                UserWarning,
                stacklevel=4,
            )
        raise


def _captures(inputs: Sequence[Tensor]) -> dict[tuple[Node, int], list[int]]:
    """The edge along which each input's gradient arrives -> the input's positions."""
    captures: dict[tuple[Node, int], list[int]] = {}
    for k, t in enumerate(inputs):
        edge = gradient_edge(t)
        if edge[0] is not None:
            captures.setdefault(edge, []).append(k)
    return captures


def execution_order(tensors: Tensor | Sequence[Tensor]) -> list[Node]:
    """The nodes of the graph behind ``tensors`` in the order ``backward()`` runs them.

    Nothing is computed or freed: this is the engine's own schedule (:func:`_schedule`) on the graph
    alone. Notebook 03 compares it with a hand-written topological order; viz numbers nodes with it.
    """
    roots = list(dict.fromkeys(n for n, _ in map(gradient_edge, _as_tuple(tensors)) if n is not None))
    nodes = discover(roots)
    return list(_schedule(roots, _dependencies(nodes, None, None), None, None))


# ---------------------------------------------------------------------------- the graph and the schedule
def discover(roots: Iterable[Node]) -> list[Node]:
    """Every node reachable from ``roots`` along ``next_functions``, breadth-first (the nodes nearest
    the roots first), each once. Iterative: a graph of any depth. viz draws the graph from this list."""
    seen: set[int] = set()
    order: list[Node] = []
    queue: deque[Node] = deque()
    for node in roots:
        if id(node) not in seen:
            seen.add(id(node))
            queue.append(node)
    while queue:
        node = queue.popleft()
        order.append(node)
        for nxt, _ in node.next_functions:
            if nxt is not None and id(nxt) not in seen:
                seen.add(id(nxt))
                queue.append(nxt)
    return order


def _dependencies(nodes: list[Node], visited: set[Node] | None, needed: set[Node] | None) -> dict[Node, int]:
    """For each node, how many gradients it waits for: the edges into it from the nodes that run."""
    deps: dict[Node, int] = {}
    for node in nodes:
        if needed is None or node in needed:
            for nxt, _ in node.next_functions:
                if nxt is not None and (visited is None or nxt in visited):
                    deps[nxt] = deps.get(nxt, 0) + 1
    return deps


def _schedule(roots: list[Node], deps: dict[Node, int], visited: set[Node] | None,
              needed: set[Node] | None) -> Iterator[Node]:
    """Yield the nodes in the order the engine runs them: of the ready ones (no gradient still to come),
    the most recently created first. Once a node that runs is done, its edges count as delivered."""
    tie = itertools.count()
    ready = [(-n._sequence_nr, next(tie), n) for n in roots
             if deps.get(n, 0) == 0 and (visited is None or n in visited)]
    heapq.heapify(ready)
    while ready:
        node = heapq.heappop(ready)[2]
        yield node
        if needed is not None and node not in needed:
            continue  # skipped: it sends nothing (and nothing waits for it)
        for nxt, _ in node.next_functions:
            if nxt is not None and (visited is None or nxt in visited):
                deps[nxt] -= 1
                if deps[nxt] == 0:
                    heapq.heappush(ready, (-nxt._sequence_nr, next(tie), nxt))


def _exec_info(nodes: list[Node], captures: dict[tuple[Node, int], list[int]], pruned: bool,
               accumulate: bool) -> tuple[set[Node] | None, set[Node] | None]:
    """Which nodes backward visits and which of those run (PyTorch's ``exec_info``); None: all.

    With ``inputs=`` only the nodes from which a gradient can reach an input are visited; an
    ``AccumulateGrad`` runs only for an input of ``backward(inputs=...)``, any other node only when one
    of its edges leads to a visited node (the others are visited to capture what reaches them).
    """
    if not pruned:
        return None, {n for n in nodes if not isinstance(n, AccumulateGrad)}
    parents: dict[Node, list[Node]] = {}
    for node in nodes:
        for nxt, _ in node.next_functions:
            if nxt is not None:
                parents.setdefault(nxt, []).append(node)
    targets = {n for n, _ in captures}
    visited = {t for t in targets if t in parents or t in nodes}
    stack = list(visited)
    while stack:
        for p in parents.get(stack.pop(), ()):
            if p not in visited:
                visited.add(p)
                stack.append(p)
    needed = {n for n in visited
              if (accumulate and (n, 0) in captures if isinstance(n, AccumulateGrad)
                  else any(nxt in visited for nxt, _ in n.next_functions if nxt is not None))}
    return visited, needed


# ---------------------------------------------------------------------------- the steps of one node
def _capture(captures: dict[tuple[Node, int], list[int]], captured: list[Tensor | None], node: Node,
             grads: list[Tensor | None], create_graph: bool) -> None:
    """Keep the gradients arriving at the inputs asked for (``inputs=``, ``autograd.grad``)."""
    for nr, g in enumerate(grads):
        for k in captures.get((node, nr), ()):
            # (a gradient with no history is handed back as it is: a view stays a view, as in PyTorch)
            captured[k] = g if create_graph or g is None or not g.requires_grad else g.detach()


def _call_function(node: Node, grads: list[Tensor | None]) -> tuple[Tensor | None, ...]:
    """Run one node with its hooks (PyTorch's ``call_function``): tensor hooks and ``retain_grad``,
    the node's pre-hooks, the node, its post-hooks."""
    if not node._hooked:
        return _apply(node, grads)
    grads = _node_pre_hooks(node, _tensor_pre_hooks(node, grads))
    grads_out = _apply(node, grads)
    for hook in tuple(node._post_hooks.values()):
        # PyTorch's names, seen from the forward op: hook(grad_inputs, grad_outputs)
        new = hook(tuple(grads_out), tuple(grads))
        if new is not None:
            grads_out = _checked_tuple(tuple(grads_out), new, hook)
    return grads_out


def _tensor_pre_hooks(node: Node, grads: list[Tensor | None]) -> list[Tensor | None]:
    """The hooks registered on the tensors this node made (each may replace the gradient), then
    retain_grad, which stores the gradient as the hooks left it (PyTorch's order)."""
    for nr, hooks in node._tensor_hooks.items():
        for hook in tuple(hooks.values()):
            if grads[nr] is None:
                break
            new = hook(grads[nr])
            if new is not None:
                grads[nr] = checked_hook_result(grads[nr], new, hook)
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
            grads = list(_checked_tuple(tuple(grads), new, hook))
    return grads


def _checked_tuple(old: tuple, new: Any, hook: Callable) -> tuple:
    """The gradients a node's hook returned in place of ``old``: a tuple of as many, each checked."""
    if not isinstance(new, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type(new).__name__}'")
    if len(new) != len(old):
        raise RuntimeError(f"hook '{hook_name(hook)}' has returned an incorrect number of values (got "
                           f"{len(new)}, but expected {len(old)})")
    return tuple(None if n is None else checked_hook_result(o, n, hook) for o, n in zip(old, new))


# ---------------------------------------------------------------------------- gradients
def _as_tuple(x: Any) -> tuple:
    if x is None:
        return ()
    if isinstance(x, Tensor):
        return (x,)
    return tuple(x)


def _make_grads(outputs: Sequence[Tensor], grads: Tensor | Sequence[Tensor | None] | None,
                ) -> list[Tensor | None]:
    """Check the given output gradients, or make the implicit 1 for scalar outputs."""
    grads = (None,) * len(outputs) if grads is None else _as_tuple(grads)
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
                shape, dtype = t._data.shape, t._data.dtype  # (ones_like and np.ones: Python wrappers)
                g = Tensor._make(np.array(1, dtype) if not shape else np.ones(shape, dtype))
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


def _loss_root(outputs: Sequence[Tensor], grads: Any) -> list[tuple[Node, int, Tensor]] | None:
    """The root of a training step's ``loss.backward()`` (one scalar float result, its gradient the
    implicit 1), with nothing for :func:`_make_grads` to check; None for anything else (a view too: its
    history may need a refresh, which :func:`_roots` does)."""
    if grads is not None or len(outputs) != 1:
        return None
    t = outputs[0]
    if type(t) is not Tensor or t._grad_fn is None or t._view_meta is not None:
        return None
    data = t._data
    if data.size != 1 or data.dtype.kind != "f":
        return None
    one = np.array(1, data.dtype) if not data.shape else np.ones(data.shape, data.dtype)
    return [(t._grad_fn, t.output_nr, Tensor._make(one))]


def _roots(outputs: Sequence[Tensor], grads: list[Tensor | None]) -> list[tuple[Node, int, Tensor | None]]:
    """``(node, output_nr, gradient)`` where backward starts: each output's edge."""
    roots = []
    for i, t in enumerate(outputs):
        node, nr = gradient_edge(t)
        if node is None:
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn"
            )
        roots.append((node, nr, grads[i]))
    return roots


def _add_to_buffer(buffers: dict, node: Node, nr: int, g: Tensor | None) -> None:
    """Sum the gradients sent to output ``nr`` of ``node`` (PyTorch's ``InputBuffer``)."""
    buf = buffers.get(node)
    if buf is None:
        buf = buffers[node] = [None] * max(node._num_outputs, nr + 1)
    if g is None:
        return
    buf[nr] = g if buf[nr] is None else _accumulate(buf[nr], g)


def _accumulate(old: Tensor, new: Tensor) -> Tensor:
    """Two gradients for one input summed, as PyTorch's ``InputBuffer::accumulate``: recorded under
    create_graph (``old + new``); else, on the arrays, "in place" into ``old`` where PyTorch can (it is
    dense and no view or other gradient shares it: the sum keeps ``old``'s layout, in a new array),
    otherwise as ``old + new`` (TensorIterator's layout, ``old`` deciding first)."""
    if type(old) is not Tensor or type(new) is not Tensor:  # arrays from apply_arrays: as Tensors
        same = old is new
        old = old if type(old) is Tensor else Tensor._make(old)
        new = old if same else new if type(new) is Tensor else Tensor._make(new)
    if grad_mode._state.enabled:
        return old + new
    a, b = old._data, new._data
    if a.base is None and old is not new and a.dtype is b.dtype and a.shape == b.shape:
        # (an array that owns its memory is dense; NumPy's empty_like keeps its order of dims)
        out = Tensor._make(np.add(a, b, out=np.empty_like(a)))
        out._version_counter.value = old._version + 1  # PyTorch's add_ counts
        return out
    return old + new


def _store_retained(t: Tensor, g: Tensor, create_graph: bool) -> None:
    if t._grad is None:
        t._grad = g if create_graph else Tensor._make(np.array(g._data, copy=True))
    else:
        t._grad = t._grad + g if create_graph else Tensor._make(t._grad._data + g._data)
