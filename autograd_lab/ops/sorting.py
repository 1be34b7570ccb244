"""Sorting and order statistics: sort, argsort, topk, median; unique.

Backward sends each output value's gradient to the element it was taken from (zeros elsewhere):
:func:`_select_back`, a scatter into zeros.
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np

from ..dtypes import wrap_dim as _wrap_dim
from ..function import Function
from ..grad_mode import is_grad_enabled
from ..tensor import Tensor
from .comparison import MaskedFillTensor
from .indexing import ScatterSrc, _Data
from .inplace import empty_preserving
from .promotion import _not_implemented

SortResult = namedtuple("sort", ["values", "indices"])


TopkResult = namedtuple("topk", ["values", "indices"])


MedianResult = namedtuple("median", ["values", "indices"])


def _select_back(grad: Tensor, idx: np.ndarray, shape: tuple[int, ...], dim: int, keepdim: bool) -> Tensor:
    """The gradient of values picked at ``idx`` along ``dim`` (sort, topk, median): each value's
    gradient goes to the element it was taken from, zeros elsewhere."""
    if not keepdim and shape:  # (a 0-d input: its one element, scattered as it is, as PyTorch's)
        grad = grad.unsqueeze(dim)
        idx = np.expand_dims(idx, dim)
    zeros = Tensor._make(np.zeros(shape, dtype=grad._data.dtype))
    return ScatterSrc.apply(zeros, dim, _Data(Tensor._make(idx)), grad)


def _stable_order(x: np.ndarray, dim: int, descending: bool) -> np.ndarray:
    """Indices that sort ``x`` along ``dim``, equal values in their original order; NaN counts as the
    largest value (last ascending, first descending), as in PyTorch."""
    if not descending:
        return np.argsort(x, axis=dim, kind="stable")
    n = x.shape[dim]
    rev = np.argsort(np.flip(x, dim), axis=dim, kind="stable")
    return (n - 1) - np.flip(rev, dim)


def _picked(ctx: Any, x: np.ndarray, dim: int, order_of: Any,
            preserve: bool = False) -> tuple[Tensor, Tensor]:
    """The values at ``order_of(x)`` along ``dim`` and those indices (no gradient), saved for backward;
    ``preserve``: both in ``x``'s layout (PyTorch's sort writes into ``empty_like(self)``)."""
    order = order_of(x) if x.ndim else np.zeros((), dtype=np.int64)
    values = np.take_along_axis(x, order, axis=dim) if x.ndim else np.array(x, copy=True)
    order = order.astype(np.int64)
    if preserve and not x.flags.c_contiguous:
        values, order = _in_layout_of(values, x), _in_layout_of(order, x)
    indices = Tensor._make(order)
    ctx.mark_non_differentiable(indices)
    ctx.save_for_backward(indices)
    ctx.shape, ctx.dim = x.shape, dim
    return Tensor._make(values), indices


class Sort(Function):
    node_name = "SortBackward0"
    saved_names = ("indices",)

    @staticmethod
    def forward(ctx: Any, a: Tensor, dim: int, descending: bool) -> tuple[Tensor, Tensor]:
        return _picked(ctx, a._data, dim, lambda x: _stable_order(x, dim, descending), preserve=True)

    @staticmethod
    def backward(ctx: Any, grad: Tensor, _: Any) -> tuple[Tensor, None, None]:
        (indices,) = ctx.saved_tensors
        return _select_back(grad, indices._data, ctx.shape, ctx.dim, True), None, None


def _in_layout_of(values: np.ndarray, x: np.ndarray) -> np.ndarray:
    out = empty_preserving(x, values.dtype)
    out[...] = values
    return out


def sort(a: Tensor, dim: int = -1, descending: bool = False, *, stable: bool = False) -> Any:
    """Sorted values and their indices; equal values keep their order (always stable here)."""
    return SortResult(*Sort.apply(a, _wrap_dim(int(dim), a._data.ndim), bool(descending)))


def argsort(a: Tensor, dim: int = -1, descending: bool = False, *, stable: bool = False) -> Tensor:
    """The indices that sort ``a`` along ``dim`` (``torch.argsort``)."""
    d = _wrap_dim(int(dim), a._data.ndim)
    if a._data.ndim == 0:
        return Tensor._make(np.zeros((), dtype=np.int64))
    order = _stable_order(a._data, d, bool(descending)).astype(np.int64)
    return Tensor._make(order if a._data.flags.c_contiguous else _in_layout_of(order, a._data))


class Topk(Function):
    node_name = "TopkBackward0"
    saved_names = ("indices",)

    @staticmethod
    def forward(ctx: Any, a: Tensor, k: int, dim: int, largest: bool) -> tuple[Tensor, Tensor]:
        def first_k(x: np.ndarray) -> np.ndarray:
            return np.take(_stable_order(x, dim, largest), np.arange(k), axis=dim)

        return _picked(ctx, a._data, dim, first_k)

    @staticmethod
    def backward(ctx: Any, grad: Tensor, _: Any) -> tuple[Tensor, None, None, None]:
        (indices,) = ctx.saved_tensors
        return _select_back(grad, indices._data, ctx.shape, ctx.dim, True), None, None, None


def topk(a: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True) -> Any:
    """``(values, indices)`` of the ``k`` largest (or smallest) elements along ``dim`` (``torch.topk``)."""
    d = _wrap_dim(int(dim), a._data.ndim)
    n = a._data.shape[d] if a._data.ndim else 1
    if not 0 <= k <= n:
        raise RuntimeError("selected index k out of range")
    if a._data.dtype == np.bool_:
        raise RuntimeError("topk does not support bool dtypes on CPU")
    return TopkResult(*Topk.apply(a, int(k), d, bool(largest)))


def evenly_distribute(grad: Tensor, a: Tensor, value: np.ndarray) -> Tensor:
    """PyTorch's evenly_distribute_backward, for max(), min() and median() of everything: the
    gradient shared among the elements equal to the result (the NaNs when it is NaN), recorded as
    PyTorch's ``zeros.masked_fill_(mask, grad / mask.sum())`` under create_graph."""
    mask = np.isnan(a._data) if np.isnan(value).any() else a._data == value
    count = np.add.reduce(mask, axis=None, dtype=np.int64)
    if not is_grad_enabled():  # no graph to build: the same, on the arrays
        g = grad._data
        out = Tensor._make(np.where(mask, g / g.dtype.type(count), g.dtype.type(0)))
    else:
        share = grad / Tensor._make(np.asarray(count))
        out = MaskedFillTensor.apply(Tensor._make(np.zeros(a._data.shape, grad._data.dtype)), mask, share)
    out._version_counter.value += 1  # (PyTorch's masked_fill_ wrote it in place: version 1, seed 34101947)
    return out


class MedianAll(Function):
    node_name = "MedianBackward0"
    saved_names = ("self", "result")

    @staticmethod
    def forward(ctx: Any, a: Tensor) -> Tensor:
        x = a._data.reshape(-1)
        if x.size == 0:
            value = np.asarray(np.nan, dtype=x.dtype)
        elif x.dtype.kind == "f" and np.isnan(x).any():
            value = np.asarray(np.nan, dtype=x.dtype)
        else:
            value = np.sort(x)[(x.size - 1) // 2]  # the lower of the two middle values
        out = Tensor._make(np.asarray(value))
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        a, out = ctx.saved_tensors
        return evenly_distribute(grad, a, out._data)


class MedianDim(Function):
    node_name = "MedianBackward1"
    saved_names = ("indices",)

    @staticmethod
    def forward(ctx: Any, a: Tensor, dim: int, keepdim: bool) -> tuple[Tensor, Tensor]:
        x = a._data if a._data.ndim else a._data.reshape(1)
        keepdim = keepdim and a._data.ndim > 0
        n = x.shape[dim]
        order = np.argsort(x, axis=dim, kind="stable")  # NaNs last, in their order
        pick = np.take(order, [(n - 1) // 2], axis=dim)
        if x.dtype.kind == "f":  # a row with NaN: its first NaN
            nan_count = np.isnan(x).sum(axis=dim, keepdims=True)
            first_nan = np.take_along_axis(order, np.minimum(n - nan_count, n - 1), axis=dim) if n else pick
            pick = np.where(nan_count > 0, first_nan, pick)
        values = np.take_along_axis(x, pick, axis=dim)
        if not keepdim:
            values, pick = np.squeeze(values, dim), np.squeeze(pick, dim)
        if a._data.ndim == 0:
            values, pick = values.reshape(()), pick.reshape(())
        indices = Tensor._make(pick.astype(np.int64))
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        ctx.shape, ctx.dim, ctx.keepdim = a._data.shape, dim, keepdim
        return Tensor._make(np.array(values, copy=True)), indices

    @staticmethod
    def backward(ctx: Any, grad: Tensor, _: Any) -> tuple[Tensor, None, None]:
        (indices,) = ctx.saved_tensors
        return _select_back(grad, indices._data, ctx.shape, ctx.dim, ctx.keepdim), None, None


def median(a: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
    """``median()``: the lower of the two middle values; ``median(dim)``: (values, indices)."""
    if dim is None:
        if a._data.dtype == np.bool_:
            raise _not_implemented("median_cpu", a._data.dtype)
        return MedianAll.apply(a)
    d = _wrap_dim(int(dim), a._data.ndim)
    if a._data.dtype == np.bool_:
        raise _not_implemented("median_out", a._data.dtype)
    if a._data.ndim and a._data.shape[d] == 0:
        raise IndexError(f"median(): Expected reduction dim {d} to have non-zero size.")
    return MedianResult(*MedianDim.apply(a, d, keepdim))


# ---------------------------------------------------------------------------- unique
class Unique(Function):
    """The distinct values (sorted), where each element went, and how often each value occurs.

    PyTorch records this node but has no derivative for it: backward through it raises.
    """

    node_name = "Unique2Backward0"
    op_name = "_unique2"

    @staticmethod
    def forward(ctx: Any, a: Tensor, dim: int | None) -> tuple[Tensor, Tensor, Tensor]:
        x = a._data
        if dim is None:  # NaNs stay apart (NaN != NaN), as in PyTorch
            values, inverse, counts = np.unique(x, return_inverse=True, return_counts=True, equal_nan=False)
            inverse = inverse.reshape(x.shape)
        else:
            values, inverse, counts = np.unique(x, return_inverse=True, return_counts=True, axis=dim)
            inverse = inverse.reshape(-1)
        inverse, counts = Tensor._make(inverse.astype(np.int64)), Tensor._make(counts.astype(np.int64))
        ctx.mark_non_differentiable(inverse, counts)
        return Tensor._make(values), inverse, counts

    @classmethod
    def backward(cls, ctx: Any, *grads: Any) -> Any:
        raise NotImplementedError(f"the derivative for '{cls.op_name}' is not implemented.")


class UniqueDim(Unique):
    node_name = "UniqueDimBackward0"
    op_name = "unique_dim"


def unique(input: Tensor, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False,
           dim: int | None = None) -> Any:
    """The sorted distinct values of ``input`` (of its slices along ``dim``), with the index of each
    element's value (``return_inverse``) and each value's count (``return_counts``): ``torch.unique``.
    Like PyTorch on the CPU, the values come sorted even with ``sorted=False``."""
    if dim is None:
        values, inverse, counts = Unique.apply(input, None)
    else:
        values, inverse, counts = UniqueDim.apply(input, _wrap_dim(dim, input.ndim))
    extra = ((inverse,) if return_inverse else ()) + ((counts,) if return_counts else ())
    return (values, *extra) if extra else values
