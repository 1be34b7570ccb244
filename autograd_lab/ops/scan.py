"""Scans along a dimension: cumsum, cumprod, logcumsumexp, and diff.

The gradient of a cumulative sum is a cumulative sum of the gradient, taken from the other end (the
input flipped, summed, flipped back).
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np

from .. import dtypes
from ..dtypes import quiet as _quiet
from ..dtypes import wrap_dim as _wrap_dim
from ..function import Function
from ..grad_mode import is_grad_enabled
from ..tensor import Tensor
from .comparison import logical_xor, where
from .indexing import narrow, scatter_add
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
        # with zeros: d out_j / d a_i = prod_{k <= j, k != i} a_k (PyTorch's cumprod_backward, both paths)
        if not is_grad_enabled():
            return Tensor._make(_cumprod_grad_with_zeros(grad._data, a._data, out._data, dim)), None, None
        return _cumprod_grad_recorded(grad, a, dim), None, None


def _cumprod_grad_with_zeros(g: np.ndarray, x: np.ndarray, y: np.ndarray, dim: int) -> np.ndarray:
    """cumprod's gradient for an input ``x`` holding zeros (``y`` the result), PyTorch's O(n) way: before
    the first zero of a row as without zeros; at the first zero the products over the slice up to the
    second zero; after it 0."""
    w = y * g
    zeros_so_far = np.cumsum(x == 0, axis=dim)
    out = np.zeros(x.shape, g.dtype)
    mask = zeros_so_far == 0  # before the first zero
    before = np.flip(_accumulate(np.add, np.flip(np.where(mask, w, 0), dim), dim), dim) / x
    out[mask] = before[mask]
    mask = zeros_so_far == 1  # from the first zero to the second
    first = np.argmax(mask, axis=dim, keepdims=True)  # (0 where a row has no zero: masked out next)
    at_first = np.zeros(x.shape, bool)
    np.put_along_axis(at_first, first, True, axis=dim)
    at_first &= mask
    mask &= ~at_first
    products = _accumulate(np.multiply, np.where(mask, x, 1), dim) * np.where(zeros_so_far != 1, 0, g)
    total = np.add.reduce(products, axis=dim, keepdims=True)
    until = np.take_along_axis(y, np.maximum(first - 1, 0), axis=dim)
    total = total * np.where(first == 0, 1, until).astype(g.dtype, copy=False)
    out[at_first] = np.broadcast_to(total, x.shape)[at_first]
    return out


def _cumprod_grad_recorded(grad: Tensor, a: Tensor, dim: int) -> Tensor:
    """The same gradient under ``create_graph``, as PyTorch records it (its O(n^2) way, whose own
    derivative is cumprod's second): for each k, the products that leave ``a_k`` out, times the
    gradient, summed into place k of zeros."""
    n = a._data.shape[dim]
    result = Tensor._make(np.zeros(a._data.shape, grad._data.dtype))
    ones_shape = list(a._data.shape)
    ones_shape[dim] = 1
    ones = Tensor._make(np.ones(1, grad._data.dtype)).expand(*ones_shape)
    for k in range(n):
        if k == 0:
            omitted = cat([ones, narrow(a, dim, 1, n - 1).cumprod(dim)], dim)
        elif k == n - 1:
            omitted = narrow(a, dim, 0, k).prod(dim, keepdim=True)
        else:
            until = narrow(a, dim, 0, k).prod(dim, keepdim=True)
            after = narrow(a, dim, k + 1, n - k - 1).cumprod(dim)
            omitted = cat([until, until.expand_as(after) * after], dim)
        result.select(dim, k).copy_((narrow(grad, dim, k, n - k) * omitted).sum(dim))
    return result


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
        if x.ndim and x.size:  # PyTorch's first term: log1p(exp(-inf - x)) + x, so x + 0.0 (-0.0 gives 0.0)
            out._data[(slice(None),) * dim + (slice(0, 1),)] += 0.0
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


class Cummax(Function):
    """Running maxima along ``dim`` and where each was taken: PyTorch's loop takes a new value where it is
    ``>=`` the running one (a tie: the later index; -0.0 after 0.0 too) or nan (nan then stays, each
    later nan taking the index). The gradient of each running value goes to its index."""

    node_name = "CummaxBackward0"
    saved_names = ("self", "indices")
    takes = staticmethod(np.greater_equal)

    @classmethod
    def forward(cls, ctx: Any, a: Tensor, dim: int) -> tuple[Tensor, Tensor]:
        # (PyTorch's node shows the dim as given, an unsigned 64-bit int: -1 is 2**64 - 1)
        ctx._saved_dim = dim % 2**64
        dim = ctx.dim = _wrap_dim(dim, a._data.ndim)
        ctx.shape = a._data.shape
        x = a._data if a._data.ndim else a._data.reshape(1)
        rows = np.moveaxis(x, dim, 0)
        values, indices = np.empty_like(rows), np.zeros(rows.shape, np.int64)
        if rows.shape[0] and rows.size:
            out, at = rows[0].copy(), np.zeros(rows.shape[1:], np.int64)
            with _quiet():
                for i, row in enumerate(rows):
                    take = np.isnan(row) | (~np.isnan(out) & cls.takes(row, out)) if x.dtype.kind == "f" \
                        else cls.takes(row, out)
                    out, at = np.where(take, row, out), np.where(take, i, at)
                    values[i], indices[i] = out, at
        values, indices = (row_major(np.moveaxis(v, 0, dim)).reshape(a._data.shape)
                           for v in (values, indices))
        found = Tensor._make(indices)
        ctx.mark_non_differentiable(found)
        ctx.save_for_backward(a, found)
        return Tensor._make(values), found

    @staticmethod
    def backward(ctx: Any, grad: Tensor, _: Any) -> tuple[Tensor, None]:
        a, indices = ctx.saved_tensors  # PyTorch's cummaxmin_backward: zeros.scatter_add(dim, indices, grad)
        if not grad._data.size:
            return a, None  # (PyTorch's: the empty input itself)
        if not grad._data.ndim:
            return grad, None
        return scatter_add(Tensor._make(np.zeros(ctx.shape, grad._data.dtype)), ctx.dim, indices, grad), None


CummaxResult = namedtuple("cummax", ["values", "indices"])
CumminResult = namedtuple("cummin", ["values", "indices"])


def cummax(a: Tensor, dim: int) -> Any:
    """Running maxima along ``dim`` and their indices (``torch.cummax``)."""
    _wrap_dim(int(dim), a._data.ndim)  # (out of range: PyTorch's IndexError, before any node is made)
    return CummaxResult(*Cummax.apply(a, int(dim)))


class Cummin(Cummax):
    node_name = "CumminBackward0"
    takes = staticmethod(np.less_equal)


def cummin(a: Tensor, dim: int) -> Any:
    """Running minima along ``dim`` and their indices (``torch.cummin``)."""
    _wrap_dim(int(dim), a._data.ndim)
    return CumminResult(*Cummin.apply(a, int(dim)))


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
