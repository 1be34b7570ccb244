"""Scans along a dimension: cumsum, cumprod, logcumsumexp, and diff.

The gradient of a cumulative sum is a cumulative sum of the gradient, taken from the other end (the
input flipped, summed, flipped back).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes
from ..dtypes import wrap_dim as _wrap_dim
from ..function import Function
from ..tensor import Tensor
from .comparison import logical_xor, where
from .indexing import narrow
from .promotion import _const, _not_implemented, row_major
from .shape import Flip, cat


def _flip(t: Tensor, dim: int) -> Tensor:
    return Flip.apply(t, (dim,)) if t._data.ndim else t


def _scan_input(a: Tensor, dtype: Any) -> np.ndarray:
    x = a._data
    if dtype is not None:
        return x.astype(dtype)
    return x.astype(np.int64) if x.dtype.kind in "biu" else x


# PyTorch's CPU scans keep their running value in a wider type than a float32 or float16 tensor's
# (at::acc_type: double, float) and round each step's value back; NumPy's run in the tensor's own dtype
_WIDER = {np.dtype(np.float32): np.dtype(np.float64), np.dtype(np.float16): np.dtype(np.float32)}


def _accumulate(ufunc: np.ufunc, x: np.ndarray, dim: int) -> np.ndarray:
    """``ufunc.accumulate`` along ``dim`` as PyTorch's scan computes it (see ``_WIDER``)."""
    wider = _WIDER.get(x.dtype)
    if wider is None:
        return ufunc.accumulate(x, axis=dim)
    return ufunc.accumulate(x.astype(wider), axis=dim).astype(x.dtype)


class Cumsum(Function):
    node_name = "CumsumBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor, dim: int, dtype: Any) -> Tensor:
        ctx.dim = dim
        x = _scan_input(a, dtype)
        if not x.ndim:
            return Tensor._make(np.array(x, copy=True))
        out = row_major(_accumulate(np.add, x, dim))
        # PyTorch's running sums start from 0.0, so never give -0.0 (NumPy's starts from the first term)
        return Tensor._make(out + out.dtype.type(0) if out.dtype.kind == "f" else out)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None]:
        if grad._data.size <= 1 or grad._data.shape[ctx.dim] == 1:  # PyTorch's trivial case
            return grad, None, None
        return _flip(_flip(grad, ctx.dim).cumsum(ctx.dim), ctx.dim), None, None


def cumsum(a: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """Running sums along ``dim`` (``torch.cumsum``)."""
    np_dtype = None if dtype is None else dtypes.to_numpy_dtype(dtype)
    return Cumsum.apply(a, _wrap_dim(int(dim), a._data.ndim), np_dtype)


class Cumprod(Function):
    node_name = "CumprodBackward0"
    saved_names = ("self", "result")

    @staticmethod
    def forward(ctx: Any, a: Tensor, dim: int, dtype: Any) -> Tensor:
        ctx.dim = dim
        x = _scan_input(a, dtype)
        out = Tensor._make(row_major(_accumulate(np.multiply, x, dim)) if x.ndim else np.array(x, copy=True))
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None]:
        a, out = ctx.saved_tensors
        dim = ctx.dim
        if a._data.size <= 1 or a._data.shape[dim] == 1:  # PyTorch's trivial case: the gradient itself
            return grad, None, None
        if not np.any(a._data == 0):  # sum over j >= i of grad_j out_j, divided by a_i
            return _flip(_flip(out * grad, dim).cumsum(dim), dim) / a, None, None  # (PyTorch: out * grad)
        # with zeros: d out_j / d a_i = prod_{k <= j, k != i} a_k, for every pair (i, j) at once

        n = a._data.shape[dim]
        x = a.transpose(dim, -1) if a._data.ndim > 1 else a
        g = grad.transpose(dim, -1) if a._data.ndim > 1 else grad
        eye = Tensor._make(np.eye(n, dtype=bool))
        rows = where(eye, 1.0, x.unsqueeze(-2).expand(*x._data.shape[:-1], n, n))
        upper = Tensor._make(np.triu(np.ones((n, n), dtype=a._data.dtype)))
        result = (rows.cumprod(-1) * g.unsqueeze(-2) * upper).sum(-1)
        return (result.transpose(dim, -1) if a._data.ndim > 1 else result), None, None


def cumprod(a: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """Running products along ``dim`` (``torch.cumprod``)."""
    np_dtype = None if dtype is None else dtypes.to_numpy_dtype(dtype)
    return Cumprod.apply(a, _wrap_dim(int(dim), a._data.ndim), np_dtype)


class Logcumsumexp(Function):
    node_name = "LogcumsumexpBackward0"
    saved_names = ("self", "result")

    @staticmethod
    def forward(ctx: Any, a: Tensor, dim: int) -> Tensor:
        ctx.dim = dim
        x = a._data
        with np.errstate(over="ignore", invalid="ignore"):
            out = Tensor._make(_accumulate(np.logaddexp, x, dim) if x.ndim else np.array(x, copy=True))
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        """PyTorch's formula: positive and negative parts of grad, each summed in log space."""

        a, out = ctx.saved_tensors
        dim = ctx.dim
        if a._data.ndim == 0 or a._data.size == 0:  # (PyTorch's: grad itself, for nothing to sum too)
            return grad, None
        lowest = float(np.finfo(grad._data.dtype).min)

        def reverse_logcumsumexp(t: Tensor) -> Tensor:
            return _flip(_flip(t, dim).logcumsumexp(dim), dim)

        log_abs = grad.abs().log()
        pos = where(_const(grad._data > 0), log_abs, lowest)
        neg = where(_const(grad._data < 0), log_abs, lowest)
        out_pos = (reverse_logcumsumexp(pos - out) + a).exp()
        out_neg = (reverse_logcumsumexp(neg - out) + a).exp()
        return out_pos - out_neg, None


def logcumsumexp(a: Tensor, dim: int) -> Tensor:
    """Running ``log(sum(exp(a)))`` along ``dim``, computed stably (``torch.logcumsumexp``)."""
    d = _wrap_dim(int(dim), a._data.ndim)
    if a._data.dtype.kind != "f":
        raise _not_implemented("logcumsumexp_out_cpu", a._data.dtype)
    return Logcumsumexp.apply(a, d)


def diff(a: Tensor, n: int = 1, dim: int = -1, prepend: Tensor | None = None,
         append: Tensor | None = None) -> Tensor:
    """n-th forward differences along ``dim``: ``a[1:] - a[:-1]``, n times (slices and a sub, as
    PyTorch records it); for bools ``!=``."""

    if a._data.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = _wrap_dim(int(dim), a._data.ndim)
    parts = []
    for extra in (prepend, append):
        if extra is not None and (not isinstance(extra, Tensor) or extra._data.ndim != a._data.ndim):
            raise RuntimeError("diff expects prepend or append to be the same dimension as input")
    if prepend is not None:
        parts.append(prepend)
    parts.append(a)
    if append is not None:
        parts.append(append)
    out = cat(parts, d) if len(parts) > 1 else a
    for _ in range(n):
        size = out._data.shape[d]
        if size == 0:
            break
        # (lo first: PyTorch's C++ evaluates the arguments of its sub right to left, and the order the
        # two slices were made in is the order its engine sums their gradients in)
        lo = narrow(out, d, 0, size - 1)
        hi = narrow(out, d, 1, size - 1)
        out = logical_xor(hi, lo) if out._data.dtype == np.bool_ else hi - lo
    return out
