"""A minimal NumPy autograd: the floor of autograd_lab's design, a benchmark reference only.

Not part of the package, and not PyTorch: no grad_fn nodes, version counters, hooks, grad modes,
dtype promotion or error texts. A result keeps its parents and a closure that maps its gradient to
theirs; ``backward`` sorts the graph without recursion and runs the closures. ``__slots__``
everywhere, no per-op objects but the tensor, its parents tuple and the closure. What autograd_lab
costs beyond this is the price of PyTorch's semantics (or waste); what this costs beyond hand-written
NumPy is the price of recording a graph in Python at all.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

Backward = Callable[[np.ndarray], tuple["np.ndarray | None", ...]]


class Tensor:
    __slots__ = ("data", "grad", "requires_grad", "_parents", "_backward")

    def __init__(self, data: object, requires_grad: bool = False) -> None:
        self.data = np.asarray(data)
        self.grad: np.ndarray | None = None
        self.requires_grad = requires_grad
        self._parents: tuple[Tensor, ...] = ()
        self._backward: Backward | None = None

    def __add__(self, other: Tensor) -> Tensor:
        a, b = self, other

        def backward(g: np.ndarray) -> tuple:
            return (_unbroadcast(g, a.data.shape) if a.requires_grad else None,
                    _unbroadcast(g, b.data.shape) if b.requires_grad else None)

        return _result(a.data + b.data, (a, b), backward)

    def __mul__(self, other: Tensor | float) -> Tensor:
        a = self
        if not isinstance(other, Tensor):  # a number: no tensor made for it
            return _result(a.data * other, (a,), lambda g: (g * other,))
        b = other

        def backward(g: np.ndarray) -> tuple:
            return (_unbroadcast(g * b.data, a.data.shape) if a.requires_grad else None,
                    _unbroadcast(g * a.data, b.data.shape) if b.requires_grad else None)

        return _result(a.data * b.data, (a, b), backward)

    def __neg__(self) -> Tensor:
        return _result(-self.data, (self,), lambda g: (-g,))

    def __matmul__(self, other: Tensor) -> Tensor:
        a, b = self, other

        def backward(g: np.ndarray) -> tuple:
            return (g @ b.data.T if a.requires_grad else None, a.data.T @ g if b.requires_grad else None)

        return _result(a.data @ b.data, (a, b), backward)

    def __getitem__(self, index: object) -> Tensor:
        a = self

        def backward(g: np.ndarray) -> tuple:
            full = np.zeros_like(a.data)
            np.add.at(full, index, g)
            return (full,)

        return _result(a.data[index], (a,), backward)

    def relu(self) -> Tensor:
        x = self.data
        return _result(np.maximum(x, 0), (self,), lambda g: (g * (x > 0),))

    def log_softmax(self, axis: int) -> Tensor:
        shifted = self.data - self.data.max(axis=axis, keepdims=True)
        out = shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))
        return _result(out, (self,), lambda g: (g - np.exp(out) * g.sum(axis=axis, keepdims=True),))

    def mean(self) -> Tensor:
        shape, n = self.data.shape, self.data.size
        return _result(self.data.mean(), (self,), lambda g: (np.full(shape, g / n, dtype=g.dtype),))

    def backward(self) -> None:
        """Fill ``.grad`` of every leaf that requires grad; frees the graph on the way."""
        if self._backward is None:
            raise RuntimeError("backward of a tensor that was not computed from one requiring grad")
        order: list[Tensor] = []
        seen: set[int] = set()
        stack: list[tuple[Tensor, bool]] = [(self, False)]
        while stack:  # depth-first, iterative: a node goes into order after all its inputs
            node, expanded = stack.pop()
            if expanded:
                order.append(node)
            elif id(node) not in seen:
                seen.add(id(node))
                stack.append((node, True))
                stack.extend((p, False) for p in node._parents if p._backward is not None)
        self.grad = np.ones_like(self.data)
        for node in reversed(order):
            for p, g in zip(node._parents, node._backward(node.grad)):
                if g is not None:
                    p.grad = g if p.grad is None else p.grad + g
            node._parents, node._backward, node.grad = (), None, None


def _result(data: np.ndarray, parents: tuple[Tensor, ...], backward: Backward) -> Tensor:
    out = Tensor.__new__(Tensor)
    out.data = data if type(data) is np.ndarray else np.asarray(data)
    out.grad = None
    out.requires_grad = any(p.requires_grad for p in parents)
    out._parents = parents if out.requires_grad else ()
    out._backward = backward if out.requires_grad else None
    return out


def _unbroadcast(g: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Sum a gradient of the broadcast shape back to ``shape``."""
    while g.ndim > len(shape):
        g = g.sum(axis=0)
    for axis, n in enumerate(shape):
        if n == 1 and g.shape[axis] != 1:
            g = g.sum(axis=axis, keepdims=True)
    return g
