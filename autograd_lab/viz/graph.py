"""Read the autograd graph behind some tensors into a drawing model: nodes, edges and their labels.

Nothing here changes the graph, and only public attributes are read, as torchviz reads PyTorch's graph:
``grad_fn``, ``output_nr``, ``next_functions`` (walked by :func:`autograd_lab.engine.discover`),
``AccumulateGrad.variable``, what nodes saved, ``retains_grad`` and ``grad``. The graph may be
autograd_lab's, PyTorch's, or any that follows :mod:`autograd_lab.viz.protocol` (a graph of
micrograd-style values too). The model is plain data (:class:`Model`), turned into DOT by
:mod:`autograd_lab.viz.dot`; :mod:`autograd_lab.viz.steps` decorates it with the gradients of one
backward pass before that.

Kinds of drawn nodes (their colours are in ``dot.STYLES``):

- ``leaf``: a tensor the user made that requires grad, drawn above its ``AccumulateGrad`` node;
- ``output``: a tensor passed to ``draw``;
- ``tensor``: a named or retained intermediate tensor, drawn between the node that made it and the
  nodes that use it;
- ``op``: a ``grad_fn`` node (``MulBackward0``), or the op of a value (``mul``); ``acc``: an
  ``AccumulateGrad`` node (a graph of values has none: its leaves connect to the ops directly);
- ``saved``: a tensor an op saved for backward (``show_saved``) that is not drawn otherwise;
- ``summary``: nodes collapsed to keep a large graph legible.
"""

from __future__ import annotations

import heapq
import sys
from collections import Counter, deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..engine import discover, execution_order
from ..function import Node
from ..tensor import Tensor
from . import protocol
from .protocol import Reader, ValueLeaf, is_accumulate, is_tensor

MAX_VALUE_ELEMENTS = 4  # tensors with more elements show their range, not their values
CHAIN_KEEP = 2  # a collapsed chain keeps this many nodes drawn at each end
SIDE_MAX = 12  # the largest side branch collapsed with its chain


@dataclass
class VNode:
    """A drawn node. ``lines`` are (text, role) pairs under the title; roles pick a font style."""

    key: str
    kind: str
    title: str = ""
    lines: list[tuple[str, str]] = field(default_factory=list)
    obj: Any = None
    cluster: str | None = None
    order: int | None = None
    tooltip: str = ""
    state: str | None = None  # in backward steps: "current" or "done"


@dataclass
class VEdge:
    """A drawn edge ``src -> dst``, written in the forward direction (from an input to its consumer) so
    that leaves rank on top; its arrow is drawn backwards, along ``next_functions``."""

    src: str
    dst: str
    kind: str = "flow"  # "flow", "saved"
    label: str = ""
    count: int = 1
    state: str | None = None  # in backward steps: "current" (the gradient just sent) or "done"


@dataclass
class Model:
    nodes: dict[str, VNode]
    edges: list[VEdge]
    fn_key: dict[int, str]  # id(Node) -> key of the drawn node that shows it (a summary if collapsed)
    slot_edge: dict[tuple[int, int], int]  # (id(consumer Node), input index) -> index into edges
    output_edge: dict[int, int]  # id(output tensor) -> index of the edge grad_fn -> output
    tensor_key: dict[int, str]  # id(Tensor) -> key of the node that draws it
    total: int  # nodes the full drawing would have (without the legend)
    collapsed: int  # nodes left out
    rankdir: str = "TB"
    caption: str = ""
    keep: list = field(default_factory=list)  # objects whose id() is used as a key, kept alive
    reader: Reader = field(default_factory=Reader)


# ---------------------------------------------------------------- formatting values

def format_number(v: Any, kind: str = "f") -> str:
    if kind == "b":
        return str(bool(v))
    if kind in "iu":
        return str(int(v))
    v = float(v)
    if not np.isfinite(v):
        return str(v)
    s = f"{v:.4g}"
    if "e" not in s and "." not in s:
        s += ".0"
    return s


def format_array(a: np.ndarray) -> str:
    """``2.0``, ``[1.0, 2.0]``, ``[[1.0, 2.0], [3.0, 4.0]]``; larger arrays as ``[min … max]``."""
    a = np.asarray(a)
    kind = a.dtype.kind
    if a.size == 0:
        return "[]"
    if a.ndim == 0:
        return format_number(a.item(), kind)
    if a.size <= MAX_VALUE_ELEMENTS:
        def nested(x: np.ndarray) -> str:
            if x.ndim == 0:
                return format_number(x.item(), kind)
            return "[" + ", ".join(nested(e) for e in x) + "]"
        return nested(a)
    if kind in "fiu":
        return f"[{format_number(a.min(), kind)} … {format_number(a.max(), kind)}]"
    return f"{a.size} values"


def format_shape(t: Any) -> str:
    shape = tuple(values(t).shape) if protocol.is_value(t) else tuple(t.shape)
    text = "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"
    dtype, default = protocol.dtype_name(t)
    if dtype != default:
        text += f" {dtype}"
    return text


def values(t: Any) -> np.ndarray:
    """The tensor's values (shared, not copied), without autograd's guard on ``numpy()``."""
    return t.detach().numpy() if isinstance(t, Tensor) else protocol.as_array(t)


def grad_of(t: Any) -> Any:
    """``t.grad``, without the warning a non-leaf's ``.grad`` gives when it was not retained."""
    return protocol.grad_of(t)


def format_grad(g: Any) -> str:
    return "None" if g is None else format_array(values(g))


# ---------------------------------------------------------------- names

def params_names(params: Any) -> dict[int, tuple[str, Tensor]]:
    """``params``: a dict name -> tensor, anything with ``items()`` or ``named_parameters()``, or an
    iterable of (name, tensor) pairs. Returns id(tensor) -> (name, tensor)."""
    if params is None:
        return {}
    if hasattr(params, "named_parameters"):
        params = params.named_parameters()
    if hasattr(params, "items"):
        params = params.items()
    out: dict[int, tuple[str, Tensor]] = {}
    for item in params:
        try:
            if is_tensor(item):
                raise TypeError
            name, t = item
        except (TypeError, ValueError):
            raise TypeError(
                "params must be a dict name -> tensor, an nn.Module, or an iterable of (name, tensor) "
                f"pairs such as model.named_parameters(); got an item {item!r}"
            ) from None
        if is_tensor(t):
            out.setdefault(id(t), (str(name), t))
    return out


def caller_names(depth: int) -> dict[int, tuple[str, Tensor]]:
    """Variable names of the tensors in the caller's namespace (locals first, then globals).

    Names starting with ``_`` are skipped (IPython's ``_``, ``_1``...)."""
    try:
        frame = sys._getframe(depth + 1)
    except ValueError:
        return {}
    out: dict[int, tuple[str, Tensor]] = {}
    spaces = [frame.f_locals] if frame.f_locals is frame.f_globals else [frame.f_locals, frame.f_globals]
    for space in spaces:
        for name, value in list(space.items()):
            if not name.startswith("_") and is_tensor(value):
                out.setdefault(id(value), (name, value))
    del frame
    return out


# ---------------------------------------------------------------- the model

def flatten_tensors(tensors: Sequence[Any]) -> list[Any]:
    out: list[Any] = []
    for t in tensors:
        if is_tensor(t):
            out.append(t)
        elif isinstance(t, (list, tuple)):
            out.extend(flatten_tensors(t))
        else:
            raise TypeError(f"draw expects tensors, got {type(t).__name__}: an autograd_lab or PyTorch "
                            "tensor, or an object that follows the protocol of autograd_lab.viz.protocol "
                            "(grad_fn and next_functions, or micrograd's _prev, _op and data)")
    if not out:
        raise TypeError("draw expects at least one tensor, e.g. draw(loss)")
    return out


def build(
    tensors: list[Any],
    names: dict[int, tuple[str, Any]],
    fallback: dict[int, tuple[str, Any]] | None = None,
    *,
    show_grads: bool = False,
    show_saved: bool = False,
    show_order: bool = False,
    rankdir: str = "TB",
    max_nodes: int | None = 200,
    reader: Reader | None = None,
) -> Model:
    """The drawing model of the graph behind ``tensors``.

    ``names`` (from ``params``) and ``fallback`` (the caller's variables) map id(tensor) -> (name, tensor);
    a tensor's label is its ``names`` entry, else its own name (``name=``), else its ``fallback`` entry.
    ``reader`` reads the graph (:mod:`autograd_lab.viz.protocol`); pass the same one to draw the same
    graph of values again with the same node objects.
    """
    fallback = fallback or {}
    reader = reader or Reader()
    keep: list[Any] = [tensors, names, fallback]
    outputs = list({id(t): t for t in tensors}.values())  # one box per distinct tensor, in the order given
    made_by = {id(t): reader.grad_fn(t) for t in outputs}
    roots = list({id(n): n for n in made_by.values() if n is not None}.values())
    fns = discover(roots)  # breadth-first: keys read from the outputs down
    fn_by_id = {id(n): n for n in fns}
    fn_index = {id(n): i for i, n in enumerate(fns)}

    def name_of(t: Any) -> str | None:
        if id(t) in names:
            return names[id(t)][0]
        own = protocol.name_of(t)
        if own is not None:
            return own
        return fallback[id(t)][0] if id(t) in fallback else None

    # Non-leaf tensors drawn between their grad_fn and its consumers: outputs, then named ones (by
    # params, name= or a variable of the caller), retained ones first.
    inline: dict[tuple[int, int], Any] = {}
    for t in outputs:
        if made_by[id(t)] is not None:
            inline.setdefault((id(made_by[id(t)]), protocol.output_nr(t)), t)
    known = [t for _, t in [*names.values(), *fallback.values()]]
    for t in sorted(known, key=lambda t: not protocol.retains_grad(t)):
        fn = reader.grad_fn(t)
        if fn is not None and id(fn) in fn_by_id:
            inline.setdefault((id(fn), protocol.output_nr(t)), t)
    output_ids = {id(t) for t in outputs}

    saved: dict[int, list[tuple[str, Any]]] = {}
    if show_saved:
        for node in fns:
            items = [(label, t) for label, t in protocol.saved_items(node) if t is not None]
            if items:
                saved[id(node)] = items
        keep.append(saved)

    # ------------------------------------------------ collapsing large graphs
    leaf_outputs = [t for t in outputs if made_by[id(t)] is None]
    n_acc = sum(is_accumulate(n) and not isinstance(n, ValueLeaf) for n in fns)
    n_saved_est = sum(len(v) for v in saved.values())
    total = len(fns) + n_acc + len(inline) + len(leaf_outputs) + n_saved_est
    rep: dict[int, str] = {id(n): f"f{i}" for i, n in enumerate(fns)}
    summaries: dict[str, list[Any]] = {}
    if max_nodes is not None and total > max_nodes:
        _collapse(fns, roots, inline, saved, rep, summaries, max_nodes - len(leaf_outputs) - 1)

    kept = [n for n in fns if rep[id(n)] == f"f{fn_index[id(n)]}"]
    kept_ids = {id(n) for n in kept}

    nodes: dict[str, VNode] = {}
    edges: list[VEdge] = []
    tensor_key: dict[int, str] = {}
    data_key: dict[tuple, str] = {}
    slot_edge: dict[tuple[int, int], int] = {}
    output_edge: dict[int, int] = {}

    def tensor_lines(t: Any, grad: bool) -> list[tuple[str, str]]:
        lines = [(format_shape(t), "shape"), (format_array(values(t)), "value")]
        if grad:
            g = grad_of(t)
            lines.append(("grad " + format_grad(g), "grad" if g is not None else "none"))
        return lines

    def add_tensor(key: str, kind: str, t: Any, grad: bool) -> VNode:
        name = name_of(t)
        if kind == "output" and name is None:
            name = "output"
        shape = format_shape(t).split(" ")[0]
        v = VNode(key, kind, name or "", tensor_lines(t, grad), obj=t,
                  tooltip=f"{name or 'tensor'}: shape {shape}")
        nodes[key] = v
        tensor_key[id(t)] = key
        data_key.setdefault(protocol.storage(t), key)
        return v

    order = {}
    if show_order and roots:
        order = {id(n): i + 1 for i, n in enumerate(_order(outputs, roots, fns))}

    n_tensors = 0

    def next_tensor_key() -> str:
        nonlocal n_tensors
        n_tensors += 1
        return f"t{n_tensors - 1}"

    # function nodes (and the leaves above their AccumulateGrad nodes)
    for node in kept:
        key = rep[id(node)]
        if isinstance(node, ValueLeaf):  # a leaf value is its own node: drawn as the leaf's box
            var = node.variable
            kind = "output" if id(var) in output_ids else "leaf"
            leaf = add_tensor(key, kind, var, show_grads)
            leaf.order = order.get(id(node))
            continue
        is_acc = is_accumulate(node)
        v = VNode(key, "acc" if is_acc else "op", protocol.title(node), obj=node,
                  order=order.get(id(node)), tooltip=protocol.title(node))
        nodes[key] = v
        if is_acc:
            var = node.variable
            lk = tensor_key.get(id(var)) or next_tensor_key()
            if lk not in nodes:
                leaf = add_tensor(lk, "output" if id(var) in output_ids else "leaf", var, show_grads)
                name = name_of(var)
                if name and "." in name:
                    leaf.cluster = v.cluster = name.rsplit(".", 1)[0]
            edges.append(VEdge(lk, key))
    for t in leaf_outputs:
        if id(t) not in tensor_key:
            add_tensor(next_tensor_key(), "output", t, show_grads and bool(getattr(t, "requires_grad", True)))

    # inline tensors: grad_fn -> tensor box (-> consumers, below)
    inline_key: dict[tuple[int, int], str] = {}
    for (nid, nr), t in inline.items():
        if nid not in kept_ids:
            continue
        kind = "output" if id(t) in output_ids else "tensor"
        key = next_tensor_key()
        show = show_grads and (grad_of(t) is not None or protocol.retains_grad(t) or kind == "tensor")
        add_tensor(key, kind, t, show)
        inline_key[(nid, nr)] = key
        edges.append(VEdge(rep[nid], key))
        if id(t) in output_ids:
            output_edge[id(t)] = len(edges) - 1

    # summaries of collapsed nodes
    inline_count = Counter(nid for nid, _ in inline)
    collapsed = 0
    for key, members in summaries.items():
        counts = Counter(protocol.title(n) for n in members)
        lines = [(f"{name} ×{c}", "shape") for name, c in counts.most_common(3)]
        if len(counts) > 3:
            lines.append((f"and {len(counts) - 3} more kinds", "shape"))
        hidden = sum(1 + _draws_apart(n) + inline_count[id(n)] for n in members)
        collapsed += hidden
        nodes[key] = VNode(key, "summary", f"{hidden} nodes collapsed", lines,
                           tooltip=f"{hidden} nodes collapsed")

    # edges between function nodes: input -> consumer
    dedup: dict[tuple[str, str], int] = {}
    for node in fns:
        dst = rep[id(node)]
        for k, (nxt, nr) in enumerate(node.next_functions):
            if nxt is None:
                continue
            src = inline_key.get((id(nxt), nr)) or rep[id(nxt)]
            if src == dst:
                continue
            if id(node) in kept_ids and id(nxt) in kept_ids:
                edges.append(VEdge(src, dst))
                slot_edge[(id(node), k)] = len(edges) - 1
            elif (src, dst) in dedup:
                edges[dedup[(src, dst)]].count += 1
            else:
                edges.append(VEdge(src, dst))
                dedup[(src, dst)] = len(edges) - 1
    for i in dedup.values():
        if edges[i].count > 1:
            edges[i].label = f"×{edges[i].count}"

    # saved tensors: an edge from the tensor's box if it is drawn, else from a note
    if show_saved:
        by_src: dict[tuple[str, str], list[str]] = {}
        n_notes = 0
        for node in kept:
            for label, t in saved.get(id(node), ()):
                src = tensor_key.get(id(t)) or data_key.get(protocol.storage(t))
                if src is None:
                    src = f"s{n_notes}"
                    n_notes += 1
                    title = "saved" + (f": {name_of(t)}" if name_of(t) else "")
                    nodes[src] = VNode(src, "saved", title, [(format_shape(t), "shape"),
                                                               (format_array(values(t)), "value")],
                                       obj=t, tooltip="a tensor saved for backward")
                    data_key[protocol.storage(t)] = src
                by_src.setdefault((src, rep[id(node)]), []).append(label.replace("saved ", ""))
        for (src, dst), labels in by_src.items():
            edges.append(VEdge(src, dst, kind="saved", label="saved " + ", ".join(labels)))

    total = len(nodes) - len(summaries) + collapsed
    caption = ""
    if collapsed:
        caption = (f"{collapsed} of {total} nodes collapsed to keep the drawing legible; "
                   "draw(..., max_nodes=None) draws them all")
    fn_key = {id(n): rep[id(n)] for n in fns}
    return Model(nodes, edges, fn_key, slot_edge, output_edge, tensor_key, total, collapsed, rankdir,
                 caption, keep, reader)


def _draws_apart(node: Any) -> bool:
    """The node's leaf is drawn as a box of its own above it (AccumulateGrad; not a leaf value)."""
    return is_accumulate(node) and not isinstance(node, ValueLeaf)


def _order(outputs: list[Any], roots: list[Any], fns: list[Any]) -> list[Any]:
    """The nodes in the order backward runs them: autograd_lab's engine's own schedule; for another
    graph, dependency counting where, of the ready nodes, the one with the highest ``_sequence_nr``
    runs first (PyTorch's rule), else the one nearest the outputs."""
    if all(isinstance(n, Node) for n in fns):
        return execution_order([t for t in outputs if isinstance(t, Tensor) and t.grad_fn is not None])
    index = {id(n): i for i, n in enumerate(fns)}
    deps: dict[int, int] = {}
    for n in fns:
        for nxt, _ in n.next_functions:
            if nxt is not None:
                deps[id(nxt)] = deps.get(id(nxt), 0) + 1

    def priority(n: Any) -> tuple:
        seq = protocol.sequence_nr(n)
        return (0, -seq, index[id(n)]) if seq is not None else (1, index[id(n)], 0)

    ready = [(priority(n), index[id(n)], n) for n in roots if deps.get(id(n), 0) == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        node = heapq.heappop(ready)[2]
        order.append(node)
        for nxt, _ in node.next_functions:
            if nxt is not None:
                deps[id(nxt)] -= 1
                if deps[id(nxt)] == 0:
                    heapq.heappush(ready, (priority(nxt), index[id(nxt)], nxt))
    return order


def _collapse(
    fns: list[Any],
    roots: list[Any],
    inline: dict[tuple[int, int], Any],
    saved: dict[int, list],
    rep: dict[int, str],
    summaries: dict[str, list[Any]],
    budget: int,
) -> None:
    """Map nodes to summary nodes (in ``rep``) until the drawing fits in ``budget`` nodes.

    1. Chains, the shape of a Python loop (``x = x * w + b``, ``s = s + x[i] * w[i]``): a run of ops
       where each has one "main" op input used by nothing else, besides small private side branches
       (at most ``SIDE_MAX`` nodes used only by that op). The chain keeps ``CHAIN_KEEP`` ops at each
       end; its middle, with the side branches, becomes one summary node. Leaves shared with the rest
       of the graph (``w`` used in every iteration) stay drawn.
    2. If still too large: the nodes nearest to the outputs (breadth-first) are kept as long as they fit,
       the rest become one summary node.
    """
    is_op = {id(n): not is_accumulate(n) for n in fns}
    protected = {id(r) for r in roots} | {nid for nid, _ in inline}
    consumers: dict[int, set[int]] = {}
    for n in fns:
        for c, _ in n.next_functions:
            if c is not None:
                consumers.setdefault(id(c), set()).add(id(n))

    def side_branch(c: Node, p: Node) -> list[Node] | None:
        """The nodes only ``p`` reaches through ``c``, if they are few; shared leaves left out."""
        if consumers[id(c)] != {id(p)} or id(c) in protected:
            return None
        members, seen, stack = [c], {id(c)}, [c]
        while stack:
            for k, _ in stack.pop().next_functions:
                if k is None or id(k) in seen:
                    continue
                if not consumers[id(k)] <= seen or id(k) in protected:
                    if not is_op[id(k)]:
                        continue  # a leaf used elsewhere too: it stays drawn
                    return None
                seen.add(id(k))
                members.append(k)
                stack.append(k)
                if len(members) > SIDE_MAX:
                    return None
        return members

    link: dict[int, Node] = {}
    private: dict[int, list[Node]] = {}
    for n in fns:
        if not is_op[id(n)]:
            continue
        main, side = [], {}
        for c in {id(c): c for c, _ in n.next_functions if c is not None}.values():
            branch = side_branch(c, n)
            if branch is not None:
                side[id(c)] = (c, branch)
            elif is_op[id(c)]:
                main.append(c)
        if not main:  # near the chain's start every input is small: follow the largest
            ops = [cb for cb in side.values() if is_op[id(cb[0])]]
            if ops:
                c = max(ops, key=lambda cb: len(cb[1]))[0]
                main.append(side.pop(id(c))[0])
        private[id(n)] = [m for _, branch in side.values() for m in branch]
        if len(main) == 1 and consumers[id(main[0])] == {id(n)} and id(main[0]) not in protected:
            link[id(n)] = main[0]
    linked_to = {id(c) for c in link.values()}
    for n in fns:
        if id(n) in linked_to or id(n) not in link:
            continue
        chain = [n]
        while id(chain[-1]) in link:
            chain.append(link[id(chain[-1])])
        middle = chain[CHAIN_KEEP:len(chain) - CHAIN_KEEP]
        if len(middle) >= 2:
            key = f"c{len(summaries)}"
            summaries[key] = [m2 for m in middle for m2 in (m, *private.get(id(m), ()))]
            for m in summaries[key]:
                rep[id(m)] = key

    inline_count = Counter(nid for nid, _ in inline)

    def cost(key: str, members: list[Node]) -> int:
        if len(members) > 1:  # a chain's summary node
            return 1
        m = members[0]
        return 1 + _draws_apart(m) + inline_count[id(m)] + len(saved.get(id(m), ()))

    groups: dict[str, list[Node]] = {}
    for n in fns:
        groups.setdefault(rep[id(n)], []).append(n)
    if sum(cost(k, v) for k, v in groups.items()) <= budget:
        return
    # 2. breadth-first from the outputs over the (chain-collapsed) graph
    adj: dict[str, list[str]] = {}
    for n in fns:
        for c, _ in n.next_functions:
            if c is not None and rep[id(c)] != rep[id(n)]:
                adj.setdefault(rep[id(n)], []).append(rep[id(c)])
    start = list(dict.fromkeys(rep[id(r)] for r in roots))
    seen, queue, kept_groups, used = set(start), deque(start), set(), 0
    while queue:
        key = queue.popleft()
        c = cost(key, groups[key])
        if used + c > budget - 1:  # room for the summary node
            break
        used += c
        kept_groups.add(key)
        for nxt in adj.get(key, ()):
            if nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    rest = [n for n in fns if rep[id(n)] not in kept_groups]
    for key in {rep[id(n)] for n in rest}:
        summaries.pop(key, None)
    summaries["rest"] = rest
    for n in rest:
        rep[id(n)] = "rest"
