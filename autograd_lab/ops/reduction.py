"""Reductions over dimensions: sum, mean, var/std, max/min, and their gradients.

The gradient of a reduction is the output gradient spread back over the reduced dimensions:
``_expand_back`` puts the reduced dimensions back (as size 1) and broadcasts.
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np

from .. import dtypes
from ..function import Function
from ..tensor import Tensor, _wrap_dim

MaxResult = namedtuple("max", ["values", "indices"])
MinResult = namedtuple("min", ["values", "indices"])


def _dims(dim: Any, ndim: int) -> tuple[int, ...]:
    """Normalise ``dim`` (None, int, or a sequence) to sorted non-negative dims."""
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, (int, np.integer)):
        dim = (int(dim),)
    return tuple(sorted({_wrap_dim(int(d), ndim) for d in dim}))


def _kept_shape(shape: tuple[int, ...], dims: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(1 if i in dims else s for i, s in enumerate(shape))


def _expand_back(grad: Tensor, shape: tuple[int, ...], dims: tuple[int, ...],
                 keepdim: bool) -> Tensor:
    """A reduced gradient back to the input's shape (each reduced element gets the same value)."""
    if not keepdim:
        grad = grad.reshape(_kept_shape(shape, dims))
    return grad.expand(shape)


class Sum(Function):
    node_name = "SumBackward1"

    @staticmethod
    def forward(ctx: Any, a: Tensor, dims: tuple[int, ...], keepdim: bool, dtype: Any) -> Tensor:
        ctx.shape, ctx.dims, ctx.keepdim = a._data.shape, dims, keepdim
        data = a._data
        if dtype is None and data.dtype.kind in "bui":
            dtype = np.int64  # PyTorch sums integers and bools as int64
        return Tensor._make(np.asarray(np.sum(data, axis=dims, keepdims=keepdim, dtype=dtype)))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None, None]:
        return _expand_back(grad, ctx.shape, ctx.dims, ctx.keepdim), None, None, None


class SumAll(Sum):
    node_name = "SumBackward0"


class Mean(Function):
    node_name = "MeanBackward1"

    @staticmethod
    def forward(ctx: Any, a: Tensor, dims: tuple[int, ...], keepdim: bool, dtype: Any) -> Tensor:
        if dtype is None and a._data.dtype.kind != "f":
            raise RuntimeError(
                "mean(): could not infer output dtype. Input dtype must be either a floating point or "
                f"complex dtype. Got: {dtypes.from_numpy_dtype(a._data.dtype).name.capitalize()}"
            )
        ctx.shape, ctx.dims, ctx.keepdim = a._data.shape, dims, keepdim
        ctx.count = int(np.prod([a._data.shape[d] for d in dims])) if dims else 1
        out = np.mean(a._data, axis=dims, keepdims=keepdim, dtype=dtype)
        return Tensor._make(np.asarray(out, dtype=dtype or a._data.dtype))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None, None]:
        return _expand_back(grad / ctx.count, ctx.shape, ctx.dims, ctx.keepdim), None, None, None


class MeanAll(Mean):
    node_name = "MeanBackward0"


class Var(Function):
    node_name = "VarBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor, dims: tuple[int, ...], keepdim: bool, correction: int) -> Tensor:
        ctx.save_for_backward(a)
        ctx.dims, ctx.keepdim, ctx.correction = dims, keepdim, correction
        with np.errstate(divide="ignore", invalid="ignore"):
            out = np.var(a._data, axis=dims, ddof=correction, keepdims=keepdim)
        return Tensor._make(np.asarray(out, dtype=a._data.dtype))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None, None]:
        (a,) = ctx.saved_tensors
        n = int(np.prod([a._data.shape[d] for d in ctx.dims]))
        centered = a - a.mean(ctx.dims, keepdim=True)
        g = _expand_back(grad, a._data.shape, ctx.dims, ctx.keepdim)
        return g * centered * (2.0 / max(n - ctx.correction, 0)), None, None, None


class Std(Function):
    node_name = "StdBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor, dims: tuple[int, ...], keepdim: bool, correction: int) -> Tensor:
        with np.errstate(divide="ignore", invalid="ignore"):
            out = Tensor._make(np.asarray(
                np.std(a._data, axis=dims, ddof=correction, keepdims=keepdim), dtype=a._data.dtype))
        ctx.save_for_backward(a, out)
        ctx.dims, ctx.keepdim, ctx.correction = dims, keepdim, correction
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None, None]:
        a, out = ctx.saved_tensors
        n = int(np.prod([a._data.shape[d] for d in ctx.dims]))
        centered = a - a.mean(ctx.dims, keepdim=True)
        g = _expand_back(grad / out, a._data.shape, ctx.dims, ctx.keepdim)
        return g * centered / max(n - ctx.correction, 0), None, None, None


class _ExtremeAll(Function):
    """max()/min() over everything: the gradient is shared evenly among tied elements."""

    reduce = staticmethod(np.max)

    @classmethod
    def forward(cls, ctx: Any, a: Tensor) -> Tensor:
        if a._data.size == 0:
            raise RuntimeError(
                f"{cls.reduce.__name__}(): Expected reduction dim to be specified for input.numel() "
                "== 0. Specify the reduction dim with the 'dim' argument."
            )
        out = Tensor._make(np.asarray(cls.reduce(a._data)))
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        a, out = ctx.saved_tensors
        mask = a._data == out._data
        return grad * Tensor._make((mask / mask.sum()).astype(grad._data.dtype))


class MaxAll(_ExtremeAll):
    node_name = "MaxBackward1"
    reduce = staticmethod(np.max)


class MinAll(_ExtremeAll):
    node_name = "MinBackward1"
    reduce = staticmethod(np.min)


class _ExtremeDim(Function):
    """max(dim)/min(dim): values and indices; the gradient goes to the selected element."""

    pick = staticmethod(np.argmax)

    @classmethod
    def forward(cls, ctx: Any, a: Tensor, dim: int, keepdim: bool) -> tuple[Tensor, Tensor]:
        idx = np.expand_dims(cls.pick(a._data, axis=dim), dim)
        values = np.take_along_axis(a._data, idx, axis=dim)
        if not keepdim:
            values, idx = np.squeeze(values, dim), np.squeeze(idx, dim)
        ctx.shape, ctx.dim, ctx.keepdim, ctx.idx = a._data.shape, dim, keepdim, idx
        indices = Tensor._make(idx.astype(np.int64))
        ctx.mark_non_differentiable(indices)
        return Tensor._make(values), indices

    @staticmethod
    def backward(ctx: Any, grad: Tensor, _: Any) -> tuple[Tensor, None, None]:
        idx = ctx.idx if ctx.keepdim else np.expand_dims(ctx.idx, ctx.dim)
        mask = np.zeros(ctx.shape, dtype=bool)
        np.put_along_axis(mask, idx, True, axis=ctx.dim)
        g = _expand_back(grad, ctx.shape, (ctx.dim,), ctx.keepdim)
        return g * Tensor._make(mask.astype(grad._data.dtype)), None, None


class MaxDim(_ExtremeDim):
    node_name = "MaxBackward0"
    pick = staticmethod(np.argmax)


class MinDim(_ExtremeDim):
    node_name = "MinBackward0"
    pick = staticmethod(np.argmin)


class _Amax(Function):
    reduce = staticmethod(np.max)

    @classmethod
    def forward(cls, ctx: Any, a: Tensor, dims: tuple[int, ...], keepdim: bool) -> Tensor:
        out = Tensor._make(np.asarray(cls.reduce(a._data, axis=dims, keepdims=keepdim)))
        ctx.save_for_backward(a, out)
        ctx.dims, ctx.keepdim = dims, keepdim
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None]:
        a, out = ctx.saved_tensors
        kept = out._data if ctx.keepdim else np.expand_dims(out._data, ctx.dims)
        mask = a._data == kept
        share = mask / mask.sum(axis=ctx.dims, keepdims=True)
        g = _expand_back(grad, a._data.shape, ctx.dims, ctx.keepdim)
        return g * Tensor._make(share.astype(grad._data.dtype)), None, None


class Amax(_Amax):
    node_name = "AmaxBackward0"
    reduce = staticmethod(np.max)


class Amin(_Amax):
    node_name = "AminBackward0"
    reduce = staticmethod(np.min)


class Logsumexp(Function):
    node_name = "LogsumexpBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor, dims: tuple[int, ...], keepdim: bool) -> Tensor:
        x = a._data
        m = np.max(x, axis=dims, keepdims=True)
        m = np.where(np.isfinite(m), m, 0)
        out = np.log(np.sum(np.exp(x - m), axis=dims, keepdims=True)) + m
        if not keepdim:
            out = np.squeeze(out, axis=dims)
        result = Tensor._make(np.asarray(out, dtype=x.dtype))
        ctx.save_for_backward(a, result)
        ctx.dims, ctx.keepdim = dims, keepdim
        return result

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None]:
        a, out = ctx.saved_tensors
        out_k = _expand_back(out, a._data.shape, ctx.dims, ctx.keepdim)
        return _expand_back(grad, a._data.shape, ctx.dims, ctx.keepdim) * (a - out_k).exp(), None, None


# ---------------------------------------------------------------------------- functional forms
def sum(a: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:  # noqa: A001
    np_dtype = None if dtype is None else dtypes.to_numpy_dtype(dtype)
    if dim is None:
        return SumAll.apply(a, _dims(None, a._data.ndim), False, np_dtype)
    return Sum.apply(a, _dims(dim, a._data.ndim), keepdim, np_dtype)


def mean(a: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    np_dtype = None if dtype is None else dtypes.to_numpy_dtype(dtype)
    if dim is None:
        return MeanAll.apply(a, _dims(None, a._data.ndim), False, np_dtype)
    return Mean.apply(a, _dims(dim, a._data.ndim), keepdim, np_dtype)


def var(a: Tensor, dim: Any = None, keepdim: bool = False, *, correction: int = 1) -> Tensor:
    return Var.apply(a, _dims(dim, a._data.ndim), keepdim, correction)


def std(a: Tensor, dim: Any = None, keepdim: bool = False, *, correction: int = 1) -> Tensor:
    return Std.apply(a, _dims(dim, a._data.ndim), keepdim, correction)


def max(a: Tensor, dim: Any = None, keepdim: bool = False) -> Any:  # noqa: A001
    """``max()``: the largest element; ``max(dim)``: (values, indices) along ``dim``;
    ``max(other)``: the elementwise maximum."""
    if isinstance(dim, Tensor):
        from .mathematic import maximum

        return maximum(a, dim)
    if dim is None:
        return MaxAll.apply(a)
    return MaxResult(*MaxDim.apply(a, _wrap_dim(int(dim), a._data.ndim), keepdim))


def min(a: Tensor, dim: Any = None, keepdim: bool = False) -> Any:  # noqa: A001
    if isinstance(dim, Tensor):
        from .mathematic import minimum

        return minimum(a, dim)
    if dim is None:
        return MinAll.apply(a)
    return MinResult(*MinDim.apply(a, _wrap_dim(int(dim), a._data.ndim), keepdim))


def amax(a: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    return Amax.apply(a, _dims(dim if dim != () else None, a._data.ndim), keepdim)


def amin(a: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    return Amin.apply(a, _dims(dim if dim != () else None, a._data.ndim), keepdim)


def argmax(a: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    if dim is None:
        return Tensor._make(np.asarray(np.argmax(a._data), dtype=np.int64))
    d = _wrap_dim(dim, a._data.ndim)
    return Tensor._make(np.argmax(a._data, axis=d, keepdims=keepdim).astype(np.int64))


def argmin(a: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    if dim is None:
        return Tensor._make(np.asarray(np.argmin(a._data), dtype=np.int64))
    d = _wrap_dim(dim, a._data.ndim)
    return Tensor._make(np.argmin(a._data, axis=d, keepdims=keepdim).astype(np.int64))


def logsumexp(a: Tensor, dim: Any, keepdim: bool = False) -> Tensor:
    return Logsumexp.apply(a, _dims(dim, a._data.ndim), keepdim)


def norm(a: Tensor, p: Any = 2, dim: Any = None, keepdim: bool = False) -> Tensor:
    """The p-norm, built from differentiable ops."""
    if p in ("fro", 2):
        return (a * a).sum(dim, keepdim).sqrt()
    if p == 1:
        return a.abs().sum(dim, keepdim)
    if p == float("inf"):
        return a.abs().amax(dim if dim is not None else (), keepdim)
    return (a.abs() ** p).sum(dim, keepdim) ** (1.0 / p)
