"""How viz reads a graph: autograd_lab's, PyTorch's, or any graph that follows one of two protocols.

viz reads a graph by duck typing, through public attributes, as torchviz reads PyTorch's; it never
changes it. A tensor (anything passed to ``draw``) follows one of two protocols:

**Nodes**, PyTorch's design (autograd_lab's and PyTorch's tensors; a graph of your own built the same way):

- a tensor has ``grad_fn`` (the node that made it; None for a leaf or a constant), ``shape``,
  ``requires_grad``, ``grad``, and its values through ``detach().numpy()`` (else ``data``); optional:
  ``output_nr`` (which output of its node it is; 0), ``retains_grad``, ``name``, ``dtype``;
- a node has ``next_functions``: one ``(node or None, output_nr)`` pair per input of the operation.
  The node that ends a leaf's path (``AccumulateGrad``) has ``variable``, the leaf. Optional:
  ``_saved_<name>`` attributes, the tensors it saved for backward (``show_saved``; an error on
  reading one means backward freed it); ``_sequence_nr()`` (PyTorch's method; or an int), which
  orders the ready nodes in ``show_order`` (highest first, as PyTorch's engine runs them);
  ``register_hook(fn)``, with ``fn(grad_inputs, grad_outputs)`` called after the node ran, which
  ``backward_steps`` needs. A node's title is its class name (``MulBackward0``).

**Values**, micrograd's design (notebook 11's ``Tensor``): a value is its own node.

- ``_prev``: the values it was computed from (empty for a leaf); ``_op``: the name of the operation
  that made it (``""`` for a leaf), drawn as its node's title; ``data``: its values (a number or an
  array). Optional: ``grad`` (array-like, or None), ``requires_grad`` (a leaf with False is a
  constant: like PyTorch, viz draws no node for it), ``name`` or ``label`` (a string).

:class:`Reader` gives every graph the first form: for a graph of values it makes one
:class:`ValueNode` per computed value and one :class:`ValueLeaf` per leaf, which follow the node
protocol. ``draw`` reads both kinds of graph; ``backward_steps`` watches an engine run backward, so it
needs autograd_lab's tensors, or nodes with ``register_hook`` and a tensor whose package has
``autograd.backward`` (PyTorch).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ..function import AccumulateGrad, Node
from ..tensor import Tensor

SAVED = "_saved_"


def _has(x: Any, name: str) -> bool:
    """``x`` has attribute ``name`` in its own ``__dict__`` or on its class; no property of ``x`` runs."""
    try:
        own = object.__getattribute__(x, "__dict__")
    except AttributeError:
        own = {}
    return name in own or hasattr(type(x), name)


def is_value(x: Any) -> bool:
    """``x`` follows the value protocol (micrograd's): ``_prev``, ``_op`` and ``data``."""
    return not isinstance(x, (type, Tensor)) and _has(x, "_prev") and _has(x, "_op") and _has(x, "data")


def is_tensor(x: Any) -> bool:
    """``x`` is a tensor viz can draw: autograd_lab's, one of the node protocol (PyTorch's), a value."""
    if isinstance(x, Tensor):
        return True
    if isinstance(x, type):
        return False
    return (_has(x, "grad_fn") and _has(x, "shape")) or is_value(x)


def is_accumulate(node: Any) -> bool:
    """The node that ends a leaf's path: ``AccumulateGrad`` (it has ``variable``), or a value's leaf."""
    if isinstance(node, Node):
        return isinstance(node, AccumulateGrad)
    return isinstance(node, ValueLeaf) or _has(node, "variable")


def title(node: Any) -> str:
    """A node's name in drawings: its class name (``MulBackward0``), or a value's ``_op``."""
    if isinstance(node, ValueNode):
        return str(node.value._op)
    return type(node).__name__


def as_array(x: Any) -> np.ndarray:
    """The numbers of a tensor, a value or an array-like (shared, not copied where possible)."""
    if is_value(x):
        return np.asarray(x.data)
    if isinstance(x, Tensor) or (is_tensor(x) and hasattr(x, "detach")):
        d = x.detach()
        if hasattr(d, "cpu"):
            d = d.cpu()
        return np.asarray(d.numpy())
    if is_tensor(x):
        return np.asarray(x.data)
    return np.asarray(x)


def dtype_name(t: Any) -> tuple[str, str]:
    """``(the tensor's dtype, the default one not worth printing)``: float32 for tensors (PyTorch's
    default), float64 for values (NumPy's)."""
    if is_value(t):
        return np.asarray(t.data).dtype.name, "float64"
    dt = getattr(t, "dtype", None)
    if dt is None:
        return as_array(t).dtype.name, "float32"
    return getattr(dt, "name", None) or str(dt).replace("torch.", ""), "float32"


def grad_of(t: Any) -> Any:
    """``t.grad`` (None if it has none), without the warning a non-leaf's ``.grad`` gives when it
    was not retained."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return getattr(t, "grad", None)


def name_of(t: Any) -> str | None:
    """The name a tensor carries itself: ``tensor(..., name=)``, or a value's ``name`` / ``label``."""
    for attr in ("name", "label"):
        if _has(t, attr):
            name = getattr(t, attr, None)
            if isinstance(name, str) and name:
                return name
    return None


def retains_grad(t: Any) -> bool:
    return bool(getattr(t, "retains_grad", False)) if not is_value(t) else False


def output_nr(t: Any) -> int:
    return 0 if is_value(t) else int(getattr(t, "output_nr", 0))


def storage(t: Any) -> tuple:
    """What tells a saved tensor is a drawn one: the same elements in the same memory."""
    if is_value(t) or not hasattr(t, "data_ptr"):
        return ("object", id(t))
    return (t.data_ptr(), tuple(t.shape), tuple(t.stride()), dtype_name(t)[0])


def saved_items(node: Any) -> list[tuple[str, Any]]:
    """``(name, tensor)`` for what a node saved for backward: autograd_lab's ``saved_items()``, else
    its ``_saved_<name>`` attributes that hold tensors (PyTorch's); empty once backward freed them."""
    if isinstance(node, Node):
        return node.saved_items()
    out = []
    names = [a for a in dir(node) if a.startswith(SAVED)]  # self and other first, as the ops declare them
    for attr in sorted(names, key=lambda a: (a != SAVED + "self", a != SAVED + "other", a)):
        try:
            value = getattr(node, attr)
        except RuntimeError:  # PyTorch: freed by backward
            return []
        if is_tensor(value):
            out.append((attr[len(SAVED):], value))
    return out


def sequence_nr(node: Any) -> int | None:
    """The node's creation number (later nodes run first among the ready ones), if it has one."""
    s = getattr(node, "_sequence_nr", None)
    if callable(s):
        s = s()
    return s if isinstance(s, int) else None


class ValueNode:
    """The node of a computed value of a micrograd-style graph: its title is the value's ``_op``,
    its edges lead to the nodes of the values in ``_prev``."""

    def __init__(self, value: Any, reader: Reader) -> None:
        self.value = value
        self._reader = reader
        self._edges: tuple[tuple[Any, int], ...] | None = None

    @property
    def next_functions(self) -> tuple[tuple[Any, int], ...]:
        if self._edges is None:  # made when first read: a graph is read from its outputs down
            self._edges = tuple((self._reader.edge(p), 0) for p in self.value._prev)
        return self._edges

    def __repr__(self) -> str:
        return f"<ValueNode {self.value._op!r}>"


class ValueLeaf:
    """The node of a leaf value: drawn as the leaf itself (a graph of values has no AccumulateGrad)."""

    next_functions: tuple = ()

    def __init__(self, value: Any) -> None:
        self.variable = value

    def __repr__(self) -> str:
        return "<ValueLeaf>"


class Reader:
    """Reads one graph in the node protocol; makes (once) the nodes of a graph of values, and keeps
    them, so that the same value always has the same node."""

    def __init__(self) -> None:
        self._made: dict[int, Any] = {}

    def _node_of_value(self, v: Any) -> Any:
        node = self._made.get(id(v))
        if node is None:
            node = ValueNode(v, self) if len(v._prev) else ValueLeaf(v)
            self._made[id(v)] = node
        return node

    def grad_fn(self, t: Any) -> Any:
        """The node that made ``t`` (None for a leaf)."""
        if is_value(t):
            return self._node_of_value(t) if len(t._prev) else None
        return t.grad_fn

    def edge(self, t: Any) -> Any:
        """For a value: the node its gradient flows to; None for a constant (requires_grad False)."""
        if not len(t._prev) and not getattr(t, "requires_grad", True):
            return None
        return self._node_of_value(t)
