"""Jacobians and Hessians from vector-Jacobian products (``torch.autograd.functional``).

Everything here runs the reverse-mode engine: ``vjp`` is one backward pass, ``jacobian`` one per
output element, ``hvp`` two, and ``jvp`` the *double-backward trick* (a backward pass of a backward
pass), as PyTorch's ``torch.autograd.functional.jvp`` does. True forward mode (dual numbers) is what
notebook 09 builds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import grad_mode
from ..creation import zeros_like
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


def _check_tensors(values: tuple, arg_name: str, is_tuple: bool) -> None:
    """PyTorch's TypeError for an input, ``v`` or output that is not a tensor."""
    for i, el in enumerate(values):
        if not isinstance(el, Tensor):
            where = f"the value at index {i}" if is_tuple else f"the given {arg_name}"
            raise TypeError(
                f"The {arg_name} given to jvp must be either a Tensor or a tuple of Tensors but "
                f"{where} has type {type(el)}."
            )


def jvp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple[Any, Any]:
    """``(func(inputs), J v)``: the Jacobian of ``func`` at ``inputs`` times the vector ``v``
    (``torch.autograd.functional.jvp``, same signature, results and error texts).

    ``v`` has the shape of ``inputs`` (a tuple of tensors for a tuple of inputs); it may be None
    only for a single input of one element (then v = 1). The result has the shape of the output.
    Computed, as in PyTorch, by the double-backward trick: ``g(u) = u^T J`` is linear in a dummy
    ``u``, so the gradient of ``g(u) . v`` with respect to ``u`` is ``J v``; two reverse passes,
    no forward mode. Outputs that do not depend on the inputs give zeros (``strict=True``: an
    error). Without ``create_graph`` the results are detached.
    """
    is_inputs_tuple = isinstance(inputs, tuple)
    xs = inputs if is_inputs_tuple else (inputs,)
    _check_tensors(xs, "inputs", is_inputs_tuple)
    with grad_mode.enable_grad():
        xs = tuple(x.view_as(x) if create_graph and x.requires_grad
                   else x.detach().requires_grad_(True) for x in xs)
        if v is not None:
            vs = v if isinstance(v, tuple) else (v,)
            _check_tensors(vs, "v", isinstance(v, tuple))
            vs = tuple(t if create_graph and t.requires_grad else t.detach() for t in vs)
            if len(vs) != len(xs):
                raise RuntimeError(f"v is a tuple of invalid length: should be {len(xs)} but got {len(vs)}."
                                   if is_inputs_tuple else "The given v should contain a single Tensor.")
            for i, (t, x) in enumerate(zip(vs, xs)):
                if t.shape != x.shape:
                    prefix = f"Entry {i} in " if is_inputs_tuple else ""
                    raise RuntimeError(
                        f"{prefix}v has invalid size: should be {x.size()} but got {t.size()}.")
        elif len(xs) != 1 or xs[0].numel() != 1:
            raise RuntimeError("The vector v can only be None if the input to the user-provided function "
                               "is a single Tensor with a single element.")
        else:
            vs = None
        result = func(*xs)
        is_outputs_tuple = isinstance(result, tuple)
        outs = result if is_outputs_tuple else (result,)
        for i, el in enumerate(outs):
            if not isinstance(el, Tensor):
                where = f"the value at index {i}" if is_outputs_tuple else \
                    "the given outputs of the user-provided function"
                raise TypeError("The outputs of the user-provided function given to jvp must be either a "
                                f"Tensor or a tuple of Tensors but {where} has type {type(el)}.")
        if strict:
            for i, out in enumerate(outs):
                if not out.requires_grad:
                    raise RuntimeError(
                        f"Output {i} of the user-provided function does not require gradients. The outputs "
                        "must be computed in a differentiable manner from the input when running in "
                        "strict mode.")
        # u^T J for a dummy u: linear in u, so its gradient with respect to u is what we want
        dummies = tuple(zeros_like(o, requires_grad=True) for o in outs)
        live = [(o, u) for o, u in zip(outs, dummies) if o.requires_grad]
        if live:
            grads_in = autograd_grad(tuple(o for o, _ in live), xs, tuple(u for _, u in live),
                                     create_graph=True, allow_unused=True)
        else:
            grads_in = (None,) * len(xs)
        pairs = [(g, t) for g, t in zip(grads_in, vs or (None,)) if g is not None and g.requires_grad]
        if strict and any(g is None for g in grads_in):
            i = next(k for k, g in enumerate(grads_in) if g is None)
            raise RuntimeError(f"The output of the user-provided function is independent of input {i}. "
                               "This is not allowed in strict mode.")
        with grad_mode.set_grad_enabled(create_graph):
            if pairs:
                back = autograd_grad(tuple(g for g, _ in pairs), dummies,
                                     None if vs is None else tuple(t for _, t in pairs),
                                     create_graph=create_graph, allow_unused=True)
            else:
                back = (None,) * len(dummies)
    jv = tuple(zeros_like(o) if b is None else b for b, o in zip(back, outs))
    if not create_graph:
        outs, jv = tuple(o.detach() for o in outs), tuple(j.detach() for j in jv)
    return (outs if is_outputs_tuple else outs[0]), (jv if is_outputs_tuple else jv[0])


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
