"""Jacobians and Hessians from vector-Jacobian products (``torch.autograd.functional``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import grad_mode
from ..engine import grad as autograd_grad
from ..ops.shape import stack
from ..tensor import Tensor


def _as_tuple(x: Any) -> tuple[tuple, bool]:
    if isinstance(x, (tuple, list)):
        return tuple(x), True
    return (x,), False


def _prepare(inputs: tuple) -> tuple[Tensor, ...]:
    return tuple(x.detach().requires_grad_(True) for x in inputs)


def vjp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple[Any, Any]:
    """(func(inputs), v^T J)."""
    xs, is_tuple = _as_tuple(inputs)
    with grad_mode.enable_grad():
        xs = _prepare(xs)
        out = func(*xs)
        grads = autograd_grad(out, xs, v, create_graph=create_graph, allow_unused=True,
                              materialize_grads=True)
    out = out if create_graph else out.detach()
    grads = grads if create_graph else tuple(g.detach() for g in grads)
    return out, grads if is_tuple else grads[0]


def jacobian(func: Callable, inputs: Any, create_graph: bool = False, strict: bool = False,
             vectorize: bool = False, strategy: str = "reverse-mode") -> Any:
    """The Jacobian of ``func`` at ``inputs``, one ``autograd.grad`` row per output element.

    For one input and one output the result has shape ``output.shape + input.shape``; with tuples
    it is a tuple (over outputs) of tuples (over inputs), as in PyTorch.
    """
    xs, in_tuple = _as_tuple(inputs)
    with grad_mode.enable_grad():
        xs = _prepare(xs)
        outs, out_tuple = _as_tuple(func(*xs))
        result = []
        for out in outs:
            flat = out.reshape(-1)
            rows: list[list[Tensor]] = [[] for _ in xs]
            for k in range(flat.numel()):
                if out.requires_grad:
                    grads = autograd_grad(flat[k], xs, retain_graph=True, create_graph=create_graph,
                                          allow_unused=True, materialize_grads=True)
                else:
                    grads = tuple(Tensor._make(np.zeros_like(x._data)) for x in xs)
                for i, g in enumerate(grads):
                    rows[i].append(g)
            per_input = []
            for i, x in enumerate(xs):
                if rows[i]:
                    j = stack(rows[i]).reshape(tuple(out.shape) + tuple(x.shape))
                else:
                    j = Tensor._make(np.zeros(tuple(out.shape) + tuple(x.shape), dtype=x._data.dtype))
                per_input.append(j if create_graph else j.detach())
            result.append(tuple(per_input) if in_tuple else per_input[0])
    return tuple(result) if out_tuple else result[0]


def hessian(func: Callable, inputs: Any, create_graph: bool = False, strict: bool = False,
            vectorize: bool = False, outer_jacobian_strategy: str = "reverse-mode") -> Any:
    """The Hessian of a scalar function: the Jacobian of its gradient."""
    xs, in_tuple = _as_tuple(inputs)

    def gradient(*args: Tensor) -> Any:
        out = func(*args)
        if out.numel() != 1:
            raise RuntimeError(
                "The function given to hessian should return a single element Tensor."
            )
        grads = autograd_grad(out, args, create_graph=True, allow_unused=True,
                              materialize_grads=True)
        return grads if in_tuple else grads[0]

    return jacobian(gradient, inputs, create_graph=create_graph)


def hvp(func: Callable, inputs: Any, v: Any, create_graph: bool = False,
        strict: bool = False) -> tuple[Any, Any]:
    """(func(inputs), H v) by double backward, without forming H."""
    xs, is_tuple = _as_tuple(inputs)
    vs, _ = _as_tuple(v)
    with grad_mode.enable_grad():
        xs = _prepare(xs)
        out = func(*xs)
        grads = autograd_grad(out, xs, create_graph=True, allow_unused=True, materialize_grads=True)
        dot = sum((g * w).sum() for g, w in zip(grads, vs))
        hv = autograd_grad(dot, xs, create_graph=create_graph, allow_unused=True,
                           materialize_grads=True)
    hv = hv if create_graph else tuple(h.detach() for h in hv)
    return out.detach(), hv if is_tuple else hv[0]


vhp = hvp  # the Hessian is symmetric
