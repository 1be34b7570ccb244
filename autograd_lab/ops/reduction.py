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
    dims = {_wrap_dim(int(d), ndim) for d in dim}  # checks the range
    return tuple(sorted(dims)) if ndim else ()  # a 0-d tensor has no dimension to reduce


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
                f"complex dtype. Got: {dtypes.scalar_type_name(a._data.dtype)}"
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
    saved_names = ("self",)

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
        centered = a - a.mean(ctx.dims, keepdim=True)
        g = _expand_back(grad, a._data.shape, ctx.dims, ctx.keepdim)
        return g * centered * (2.0 / _degrees_of_freedom(a, ctx.dims, ctx.correction)), None, None, None


class Std(Function):
    node_name = "StdBackward0"
    saved_names = ("self", "result")

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
        centered = a - a.mean(ctx.dims, keepdim=True)
        # d std = d var / (2 std); where std is 0 PyTorch gives 0, not grad / 0
        zero = out._data == 0
        per_out = grad / out.masked_fill(_const(zero), 1.0)
        per_out = per_out.masked_fill(_const(zero), 0.0)
        g = _expand_back(per_out, a._data.shape, ctx.dims, ctx.keepdim)
        return g * centered / _degrees_of_freedom(a, ctx.dims, ctx.correction), None, None, None


def _degrees_of_freedom(a: Tensor, dims: tuple[int, ...], correction: int) -> float:
    """N - correction, the divisor of var/std; NaN when it is not positive (PyTorch's result then)."""
    n = int(np.prod([a._data.shape[d] for d in dims]))
    return float(n - correction) if n > correction else float("nan")


def _const(arr: np.ndarray) -> Tensor:
    """A mask as a tensor outside the graph."""
    return Tensor._make(np.asarray(arr))


class _ExtremeAll(Function):
    """max()/min() over everything: the gradient is shared evenly among tied elements."""

    saved_names = ("self", "result")
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
        data = a._data if a._data.ndim else a._data.reshape(1)  # 0-d: its one element, result 0-d
        keepdim = keepdim and a._data.ndim > 0
        idx = np.expand_dims(cls.pick(data, axis=dim), dim)
        values = np.take_along_axis(data, idx, axis=dim)
        if not keepdim:
            values, idx = np.squeeze(values, dim), np.squeeze(idx, dim)
        ctx.shape, ctx.dim, ctx.keepdim, ctx.idx = data.shape, dim, keepdim, idx
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
    saved_names = ("self", "result")
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
    saved_names = ("self", "result")

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


class LinalgVectorNorm(Function):
    """The p-norm ``(sum |a|^p)^(1/p)`` over ``dims`` (``torch.linalg.vector_norm``, ``Tensor.norm``).

    Its derivative is ``sign(a) |a|^(p-1) / norm^(p-1)``: ``a / norm`` for p = 2, ``sign(a)`` for
    p = 1, shared among the largest elements for p = inf. Where the norm is 0, PyTorch gives 0.
    """

    node_name = "LinalgVectorNormBackward0"
    saved_names = ("self", "result")

    @staticmethod
    def forward(ctx: Any, a: Tensor, p: float, dims: tuple[int, ...], keepdim: bool) -> Tensor:
        x = np.abs(a._data)
        if p == float("inf"):
            out = np.max(x, axis=dims, keepdims=keepdim)
        elif p == -float("inf"):
            out = np.min(x, axis=dims, keepdims=keepdim)
        elif p == 0:
            out = np.sum(x != 0, axis=dims, keepdims=keepdim)
        elif p == 1:
            out = np.sum(x, axis=dims, keepdims=keepdim)
        elif p == 2:
            out = np.sqrt(np.sum(x * x, axis=dims, keepdims=keepdim))
        else:
            out = np.sum(x ** p, axis=dims, keepdims=keepdim) ** (1.0 / p)
        result = Tensor._make(np.asarray(out, dtype=a._data.dtype))
        ctx.save_for_backward(a, result)
        ctx.p, ctx.dims, ctx.keepdim = p, dims, keepdim
        return result

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None, None]:
        a, norm = ctx.saved_tensors
        p, shape = ctx.p, a._data.shape
        norm_k = _expand_back(norm, shape, ctx.dims, ctx.keepdim)
        grad_k = _expand_back(grad, shape, ctx.dims, ctx.keepdim)
        zero = _const(norm_k._data == 0)
        sign = _const(np.sign(a._data))
        if p == 0:
            return grad_k * 0.0, None, None, None
        if p == 1:
            return grad_k * sign, None, None, None
        if p in (float("inf"), -float("inf")):
            mask = np.abs(a._data) == norm_k._data
            count = np.sum(mask, axis=ctx.dims, keepdims=True)
            return grad_k * sign * _const(mask / count), None, None, None
        if p == 2:
            return a * (grad_k / norm_k.masked_fill(zero, 1.0)).masked_fill(zero, 0.0), None, None, None
        # general p: sign(a) |a|^(p-1) * grad / norm^(p-1), with 0 where a (p < 1) or the norm is 0
        scaled = sign * a.abs().masked_fill(_const(a._data == 0), 1.0) ** (p - 1)
        scale = (grad_k / norm_k.masked_fill(zero, 1.0) ** (p - 1)).masked_fill(zero, 0.0)
        return scaled * scale, None, None, None


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


def norm(a: Tensor, p: Any = "fro", dim: Any = None, keepdim: bool = False) -> Tensor:
    """The vector p-norm over ``dim`` (all elements when None); ``"fro"`` is the 2-norm."""
    if p == "fro":
        p = 2
    if not isinstance(p, (int, float)):
        raise RuntimeError(f"norm: p={p!r} is not supported by autograd_lab (use a number or 'fro')")
    if a._data.dtype.kind != "f":
        raise RuntimeError(
            "linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
            f"{dtypes.scalar_type_name(a._data.dtype)}"
        )
    return LinalgVectorNorm.apply(a, float(p), _dims(dim, a._data.ndim), keepdim)
