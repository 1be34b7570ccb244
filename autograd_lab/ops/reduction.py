"""Reductions over dimensions: sum, mean, var/std, max/min, and their gradients.

The gradient of a reduction is the output gradient spread back over the reduced dimensions:
``_expand_back`` puts the reduced dimensions back (as size 1) and broadcasts.
"""

from __future__ import annotations

import warnings
from collections import namedtuple
from typing import Any

import numpy as np

from .. import dtypes
from ..dtypes import wrap_dim as _wrap_dim
from ..function import Function
from ..tensor import Tensor

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



def _np_var(x: np.ndarray, dims: tuple[int, ...], correction: float, keepdim: bool) -> np.ndarray:
    """NumPy's variance, quietly: too few elements give inf or nan, as in PyTorch (which warns itself)."""
    with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.var(x, axis=dims, ddof=correction, keepdims=keepdim)

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
        out = _np_var(a._data, dims, correction, keepdim)
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
        out = Tensor._make(np.asarray(np.sqrt(_np_var(a._data, dims, correction, keepdim)),
                                      dtype=a._data.dtype))
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
        return _vector_norm_grad(a, norm, grad, ctx.p, ctx.dims, ctx.keepdim), None, None, None


def _vector_norm_grad(a: Tensor, norm: Tensor, grad: Tensor, p: float, dims: tuple[int, ...],
                      keepdim: bool) -> Tensor:
    """The gradient of the p-norm of ``a`` over ``dims`` (LinalgVectorNorm's, dist's)."""
    shape = a._data.shape
    norm_k = _expand_back(norm, shape, dims, keepdim)
    grad_k = _expand_back(grad, shape, dims, keepdim)
    zero = _const(norm_k._data == 0)
    sign = _const(np.sign(a._data))
    if p == 0:
        return grad_k * 0.0
    if p == 1:
        return grad_k * sign
    if p in (float("inf"), -float("inf")):
        mask = np.abs(a._data) == norm_k._data
        count = np.sum(mask, axis=dims, keepdims=True)
        return grad_k * sign * _const(mask / count)
    if p == 2:
        return a * (grad_k / norm_k.masked_fill(zero, 1.0)).masked_fill(zero, 0.0)
    # general p: sign(a) |a|^(p-1) * grad / norm^(p-1), with 0 where a (p < 1) or the norm is 0
    scaled = sign * a.abs().masked_fill(_const(a._data == 0), 1.0) ** (p - 1)
    scale = (grad_k / norm_k.masked_fill(zero, 1.0) ** (p - 1)).masked_fill(zero, 0.0)
    return scaled * scale


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


def var(a: Tensor, dim: Any = None, keepdim: bool = False, *, unbiased: bool | None = None,
        correction: int | None = None) -> Tensor:
    """The variance over ``dim``, divided by ``n - correction`` (default 1; 0 with ``unbiased=False``)."""
    return Var.apply(a, _dims(dim, a._data.ndim), keepdim, _correction(unbiased, correction))


def std(a: Tensor, dim: Any = None, keepdim: bool = False, *, unbiased: bool | None = None,
        correction: int | None = None) -> Tensor:
    """The standard deviation over ``dim``: the square root of :func:`var`."""
    return Std.apply(a, _dims(dim, a._data.ndim), keepdim, _correction(unbiased, correction))


def _correction(unbiased: bool | None, correction: int | None) -> int:
    if correction is not None:
        return correction
    return 0 if unbiased is False else 1


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


# ============================================================================ more reductions and scans
MedianResult = namedtuple("median", ["values", "indices"])
SortResult = namedtuple("sort", ["values", "indices"])
TopkResult = namedtuple("topk", ["values", "indices"])
AminmaxResult = namedtuple("aminmax", ["min", "max"])


def _not_implemented(kernel: str, dtype: np.dtype) -> NotImplementedError:
    return NotImplementedError(f'"{kernel}" not implemented for \'{dtypes.scalar_type_name(dtype)}\'')


class _Flip(Function):
    """``a`` reversed along ``dim`` (used by the backward formulas of the scans)."""

    node_name = "FlipBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor, dim: int) -> Tensor:
        ctx.dim = dim
        return Tensor._make(np.ascontiguousarray(np.flip(a._data, dim)))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return _Flip.apply(grad, ctx.dim), None


def _flip(t: Tensor, dim: int) -> Tensor:
    return _Flip.apply(t, dim) if t._data.ndim else t


class _Gather(Function):
    """``out[..., j, ...] = a[..., idx[..., j, ...], ...]`` along ``dim`` (idx: an ndarray)."""

    node_name = "GatherBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor, idx: np.ndarray, dim: int) -> Tensor:
        ctx.idx, ctx.dim, ctx.shape = idx, dim, a._data.shape
        return Tensor._make(np.take_along_axis(a._data, idx, axis=dim))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None]:
        return _Scatter.apply(grad, ctx.idx, ctx.dim, ctx.shape), None, None


class _Scatter(Function):
    """Zeros of ``shape`` with ``src`` added in at ``idx`` along ``dim``: the inverse of _Gather."""

    node_name = "ScatterBackward0"

    @staticmethod
    def forward(ctx: Any, src: Tensor, idx: np.ndarray, dim: int, shape: tuple[int, ...]) -> Tensor:
        ctx.idx, ctx.dim = idx, dim
        out = np.zeros(shape, dtype=src._data.dtype)
        np.put_along_axis(out, idx, src._data, axis=dim)
        return Tensor._make(out)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None, None]:
        return _Gather.apply(grad, ctx.idx, ctx.dim), None, None, None


def _select_back(grad: Tensor, idx: np.ndarray, shape: tuple[int, ...], dim: int, keepdim: bool) -> Tensor:
    """The gradient of values picked at ``idx`` along ``dim`` (sort, topk, median): each value's
    gradient goes to the element it was taken from, zeros elsewhere."""
    if not shape:  # a 0-d input: its one element
        return grad.reshape(())
    if not keepdim:
        grad = grad.unsqueeze(dim)
        idx = np.expand_dims(idx, dim)
    return _Scatter.apply(grad, idx, dim, shape)


def _stable_order(x: np.ndarray, dim: int, descending: bool) -> np.ndarray:
    """Indices that sort ``x`` along ``dim``, equal values in their original order; NaN counts as the
    largest value (last ascending, first descending), as in PyTorch."""
    if not descending:
        return np.argsort(x, axis=dim, kind="stable")
    n = x.shape[dim]
    rev = np.argsort(np.flip(x, dim), axis=dim, kind="stable")
    return (n - 1) - np.flip(rev, dim)


# ---------------------------------------------------------------------------- prod
def _exclusive_products(a: Tensor, dim: int) -> Tensor:
    """For each element, the product of all the others along ``dim`` (zeros allowed): PyTorch's
    ``prod_safe_zeros_backward``, products from the left times products from the right."""
    from .shape import cat, narrow

    n = a._data.shape[dim]
    if n == 1:
        return Tensor._make(np.ones_like(a._data))
    ones = Tensor._make(np.ones(_kept_shape(a._data.shape, (dim,)), dtype=a._data.dtype))
    left = cat([ones, narrow(a, dim, 0, n - 1)], dim).cumprod(dim)
    right = _flip(cat([ones, narrow(_flip(a, dim), dim, 0, n - 1)], dim).cumprod(dim), dim)
    return left * right


class ProdAll(Function):
    node_name = "ProdBackward0"
    saved_names = ("self", "result")

    @staticmethod
    def forward(ctx: Any, a: Tensor, dtype: Any) -> Tensor:
        out = Tensor._make(np.asarray(np.prod(a._data, dtype=dtype)))
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        a, out = ctx.saved_tensors
        if a._data.ndim == 0:
            return grad, None
        if not np.any(a._data == 0):
            return grad * (out / a), None
        flat = a.reshape(-1)
        return (grad * _exclusive_products(flat, 0)).reshape(a._data.shape), None


class ProdDim(Function):
    node_name = "ProdBackward1"
    saved_names = ("self", "result")

    @staticmethod
    def forward(ctx: Any, a: Tensor, dim: int, keepdim: bool, dtype: Any) -> Tensor:
        x = a._data
        keepdim = keepdim and x.ndim > 0
        out = np.prod(x, axis=dim, keepdims=keepdim, dtype=dtype) if x.ndim else np.asarray(x, dtype=dtype)
        result = Tensor._make(np.asarray(out))
        ctx.save_for_backward(a, result)
        ctx.dim, ctx.keepdim = dim, keepdim
        return result

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None, None]:
        a, out = ctx.saved_tensors
        if a._data.ndim == 0:
            return grad, None, None, None
        shape, dims = a._data.shape, (ctx.dim,)
        g = _expand_back(grad, shape, dims, ctx.keepdim)
        if not np.any(a._data == 0):
            return g * (_expand_back(out, shape, dims, ctx.keepdim) / a), None, None, None
        return g * _exclusive_products(a, ctx.dim), None, None, None


# ---------------------------------------------------------------------------- scans
def _scan_input(a: Tensor, dtype: Any) -> np.ndarray:
    x = a._data
    if dtype is not None:
        return x.astype(dtype)
    return x.astype(np.int64) if x.dtype.kind in "biu" else x


class Cumsum(Function):
    node_name = "CumsumBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor, dim: int, dtype: Any) -> Tensor:
        ctx.dim = dim
        x = _scan_input(a, dtype)
        return Tensor._make(np.cumsum(x, axis=dim) if x.ndim else np.array(x, copy=True))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None]:
        if grad._data.ndim == 0:
            return grad, None, None
        return _flip(_flip(grad, ctx.dim).cumsum(ctx.dim), ctx.dim), None, None


class Cumprod(Function):
    node_name = "CumprodBackward0"
    saved_names = ("self", "result")

    @staticmethod
    def forward(ctx: Any, a: Tensor, dim: int, dtype: Any) -> Tensor:
        ctx.dim = dim
        x = _scan_input(a, dtype)
        out = Tensor._make(np.cumprod(x, axis=dim) if x.ndim else np.array(x, copy=True))
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None]:
        a, out = ctx.saved_tensors
        dim = ctx.dim
        if a._data.ndim == 0:
            return grad, None, None
        if not np.any(a._data == 0):  # sum over j >= i of grad_j out_j, divided by a_i
            return _flip(_flip(grad * out, dim).cumsum(dim), dim) / a, None, None
        # with zeros: d out_j / d a_i = prod_{k <= j, k != i} a_k, for every pair (i, j) at once
        from .mathematic import where

        n = a._data.shape[dim]
        x = a.transpose(dim, -1) if a._data.ndim > 1 else a
        g = grad.transpose(dim, -1) if a._data.ndim > 1 else grad
        eye = Tensor._make(np.eye(n, dtype=bool))
        rows = where(eye, 1.0, x.unsqueeze(-2).expand(*x._data.shape[:-1], n, n))
        upper = Tensor._make(np.triu(np.ones((n, n), dtype=a._data.dtype)))
        result = (rows.cumprod(-1) * g.unsqueeze(-2) * upper).sum(-1)
        return (result.transpose(dim, -1) if a._data.ndim > 1 else result), None, None


class Logcumsumexp(Function):
    node_name = "LogcumsumexpBackward0"
    saved_names = ("self", "result")

    @staticmethod
    def forward(ctx: Any, a: Tensor, dim: int) -> Tensor:
        ctx.dim = dim
        x = a._data
        with np.errstate(over="ignore", invalid="ignore"):
            out = Tensor._make(np.logaddexp.accumulate(x, axis=dim) if x.ndim else np.array(x, copy=True))
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        """PyTorch's formula: positive and negative parts of grad, each summed in log space."""
        from .mathematic import where

        a, out = ctx.saved_tensors
        dim = ctx.dim
        if a._data.ndim == 0:
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


# ---------------------------------------------------------------------------- var_mean, std_mean
class VarMean(Function):
    node_name = "VarMeanBackward0"
    saved_names = ("self",)

    @staticmethod
    def forward(ctx: Any, a: Tensor, dims: tuple[int, ...], keepdim: bool,
                correction: float) -> tuple[Tensor, Tensor]:
        ctx.save_for_backward(a)
        ctx.dims, ctx.keepdim, ctx.correction = dims, keepdim, correction
        v = _np_var(a._data, dims, correction, keepdim)
        with np.errstate(divide="ignore", invalid="ignore"):
            m = np.mean(a._data, axis=dims, keepdims=keepdim)
        dt = a._data.dtype
        return Tensor._make(np.asarray(v, dtype=dt)), Tensor._make(np.asarray(m, dtype=dt))

    @staticmethod
    def backward(ctx: Any, grad_var: Tensor, grad_mean: Tensor) -> tuple[Tensor, None, None, None]:
        (a,) = ctx.saved_tensors
        shape, dims = a._data.shape, ctx.dims
        count = int(np.prod([shape[d] for d in dims])) if dims else 1
        centered = a - a.mean(dims, keepdim=True)
        g_var = _expand_back(grad_var, shape, dims, ctx.keepdim)
        g = g_var * centered * (2.0 / _degrees_of_freedom(a, dims, ctx.correction))
        return g + _expand_back(grad_mean / count, shape, dims, ctx.keepdim), None, None, None


class StdMean(Function):
    node_name = "StdMeanBackward0"
    saved_names = ("self", "result0")

    @staticmethod
    def forward(ctx: Any, a: Tensor, dims: tuple[int, ...], keepdim: bool,
                correction: float) -> tuple[Tensor, Tensor]:
        ctx.dims, ctx.keepdim, ctx.correction = dims, keepdim, correction
        s = np.sqrt(_np_var(a._data, dims, correction, keepdim))
        with np.errstate(divide="ignore", invalid="ignore"):
            m = np.mean(a._data, axis=dims, keepdims=keepdim)
        dt = a._data.dtype
        std_out = Tensor._make(np.asarray(s, dtype=dt))
        ctx.save_for_backward(a, std_out)
        return std_out, Tensor._make(np.asarray(m, dtype=dt))

    @staticmethod
    def backward(ctx: Any, grad_std: Tensor, grad_mean: Tensor) -> tuple[Tensor, None, None, None]:
        a, out = ctx.saved_tensors
        shape, dims = a._data.shape, ctx.dims
        count = int(np.prod([shape[d] for d in dims])) if dims else 1
        centered = a - a.mean(dims, keepdim=True)
        zero = _const(out._data == 0)
        per_out = (grad_std / out.masked_fill(zero, 1.0)).masked_fill(zero, 0.0)
        g = _expand_back(per_out, shape, dims, ctx.keepdim)
        g = g * centered / _degrees_of_freedom(a, dims, ctx.correction)
        return g + _expand_back(grad_mean / count, shape, dims, ctx.keepdim), None, None, None


# ---------------------------------------------------------------------------- median, sort, topk
def _evenly(grad: Tensor, a: Tensor, value: np.ndarray) -> Tensor:
    """PyTorch's evenly_distribute_backward: the gradient shared among the elements equal to the
    result (the NaNs when the result is NaN)."""
    mask = np.isnan(a._data) if np.isnan(value).any() else a._data == value
    return grad * _const((mask / mask.sum()).astype(grad._data.dtype))


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
        return _evenly(grad, a, out._data)


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


class Sort(Function):
    node_name = "SortBackward0"
    saved_names = ("indices",)

    @staticmethod
    def forward(ctx: Any, a: Tensor, dim: int, descending: bool) -> tuple[Tensor, Tensor]:
        x = a._data
        if x.ndim == 0:
            order = np.zeros((), dtype=np.int64)
            values = np.array(x, copy=True)
        else:
            order = _stable_order(x, dim, descending)
            values = np.take_along_axis(x, order, axis=dim)
        indices = Tensor._make(order.astype(np.int64))
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        ctx.shape, ctx.dim = x.shape, dim
        return Tensor._make(values), indices

    @staticmethod
    def backward(ctx: Any, grad: Tensor, _: Any) -> tuple[Tensor, None, None]:
        (indices,) = ctx.saved_tensors
        return _select_back(grad, indices._data, ctx.shape, ctx.dim, True), None, None


class Topk(Function):
    node_name = "TopkBackward0"
    saved_names = ("indices",)

    @staticmethod
    def forward(ctx: Any, a: Tensor, k: int, dim: int, largest: bool) -> tuple[Tensor, Tensor]:
        x = a._data
        if x.ndim == 0:
            order = np.zeros((), dtype=np.int64)
            values = np.array(x, copy=True)
        else:
            order = np.take(_stable_order(x, dim, largest), np.arange(k), axis=dim)
            values = np.take_along_axis(x, order, axis=dim)
        indices = Tensor._make(order.astype(np.int64))
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        ctx.shape, ctx.dim = x.shape, dim
        return Tensor._make(values), indices

    @staticmethod
    def backward(ctx: Any, grad: Tensor, _: Any) -> tuple[Tensor, None, None, None]:
        (indices,) = ctx.saved_tensors
        return _select_back(grad, indices._data, ctx.shape, ctx.dim, True), None, None, None


class Aminmax(Function):
    node_name = "AminmaxBackward0"
    saved_names = ("self", "min", "max")

    @staticmethod
    def forward(ctx: Any, a: Tensor, dims: tuple[int, ...], keepdim: bool) -> tuple[Tensor, Tensor]:
        lo = Tensor._make(np.asarray(np.min(a._data, axis=dims, keepdims=keepdim)))
        hi = Tensor._make(np.asarray(np.max(a._data, axis=dims, keepdims=keepdim)))
        ctx.save_for_backward(a, lo, hi)
        ctx.dims, ctx.keepdim = dims, keepdim
        return lo, hi

    @staticmethod
    def backward(ctx: Any, grad_min: Tensor, grad_max: Tensor) -> tuple[Tensor, None, None]:
        a, lo, hi = ctx.saved_tensors
        total = None
        for grad, out in ((grad_min, lo), (grad_max, hi)):
            kept = out._data if ctx.keepdim else np.expand_dims(out._data, ctx.dims)
            mask = a._data == kept
            share = mask / mask.sum(axis=ctx.dims, keepdims=True)
            g = _expand_back(grad, a._data.shape, ctx.dims, ctx.keepdim)
            g = g * _const(share.astype(grad._data.dtype))
            total = g if total is None else total + g
        return total, None, None


class Dist(Function):
    node_name = "DistBackward0"
    saved_names = ("self", "other", "result")

    @staticmethod
    def forward(ctx: Any, a: Tensor, b: Tensor, p: float) -> Tensor:
        from .promotion import result_dtype

        dt = result_dtype(a, b)
        diff = a._data.astype(dt) - b._data.astype(dt)
        x = np.abs(diff)
        if x.size == 0:
            out = np.zeros((), dtype=dt)
        elif p == float("inf"):
            out = np.max(x)
        elif p == -float("inf"):
            out = np.min(x)
        elif p == 0:
            out = np.sum(x != 0)
        elif p == 1:
            out = np.sum(x)
        elif p == 2:
            out = np.sqrt(np.sum(x * x))
        else:
            out = np.sum(x ** p) ** (1.0 / p)
        result = Tensor._make(np.asarray(out, dtype=dt))
        ctx.save_for_backward(a, b, result)
        ctx.p = p
        return result

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, Tensor, None]:
        a, b, out = ctx.saved_tensors
        diff = a - b
        g = _vector_norm_grad(diff, out, grad, ctx.p, tuple(range(diff._data.ndim)), False)
        return g, -g, None


# ---------------------------------------------------------------------------- their functional forms
def _one_dim(name: str, a: Tensor, dim: Any, args: tuple, signatures: list[str]) -> int:
    if isinstance(dim, (bool, np.bool_)) or not isinstance(dim, (int, np.integer)):
        from .mathematic import _invalid_combination

        raise _invalid_combination(name, args, signatures)
    return _wrap_dim(int(dim), a._data.ndim)


def prod(a: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    np_dtype = None if dtype is None else dtypes.to_numpy_dtype(dtype)
    if np_dtype is None and a._data.dtype.kind in "biu":
        np_dtype = np.dtype(np.int64)  # PyTorch multiplies integers and bools as int64
    if dim is None:
        return ProdAll.apply(a, np_dtype)
    d = _one_dim("prod", a, dim, (a, dim), [
        "Tensor input, *, torch.dtype dtype = None",
        "Tensor input, int dim, bool keepdim = False, *, torch.dtype dtype = None, Tensor out = None"])
    return ProdDim.apply(a, d, keepdim, np_dtype)


def cumsum(a: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    np_dtype = None if dtype is None else dtypes.to_numpy_dtype(dtype)
    return Cumsum.apply(a, _wrap_dim(int(dim), a._data.ndim), np_dtype)


def cumprod(a: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    np_dtype = None if dtype is None else dtypes.to_numpy_dtype(dtype)
    return Cumprod.apply(a, _wrap_dim(int(dim), a._data.ndim), np_dtype)


def logcumsumexp(a: Tensor, dim: int) -> Tensor:
    d = _wrap_dim(int(dim), a._data.ndim)
    if a._data.dtype.kind != "f":
        raise _not_implemented("logcumsumexp_out_cpu", a._data.dtype)
    return Logcumsumexp.apply(a, d)


def _moments(name: str, cls: type[Function], a: Tensor, dim: Any, unbiased: Any, keepdim: bool,
             correction: Any) -> tuple[Tensor, Tensor]:
    if isinstance(dim, (bool, np.bool_)):  # var_mean(input, unbiased)
        dim, unbiased = None, dim
    dims = _dims(dim, a._data.ndim)
    if a._data.dtype.kind != "f":
        raise RuntimeError(f"{name} only support floating point and complex dtypes")
    if correction is None:
        correction = 0 if unbiased is False else 1
    count = int(np.prod([a._data.shape[d] for d in dims])) if dims else 1
    if count - correction <= 0:
        warnings.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than the "
                      "reduction factor (input numel divided by output numel).", UserWarning, stacklevel=3)
    return cls.apply(a, dims, keepdim, correction)


def var_mean(a: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
             correction: Any = None) -> tuple[Tensor, Tensor]:
    return _moments("var_mean", VarMean, a, dim, unbiased, keepdim, correction)


def std_mean(a: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
             correction: Any = None) -> tuple[Tensor, Tensor]:
    return _moments("std_mean", StdMean, a, dim, unbiased, keepdim, correction)


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


def sort(a: Tensor, dim: int = -1, descending: bool = False, *, stable: bool = False) -> Any:
    """Sorted values and their indices; equal values keep their order (always stable here)."""
    return SortResult(*Sort.apply(a, _wrap_dim(int(dim), a._data.ndim), bool(descending)))


def argsort(a: Tensor, dim: int = -1, descending: bool = False, *, stable: bool = False) -> Tensor:
    d = _wrap_dim(int(dim), a._data.ndim)
    if a._data.ndim == 0:
        return Tensor._make(np.zeros((), dtype=np.int64))
    return Tensor._make(_stable_order(a._data, d, bool(descending)).astype(np.int64))


def topk(a: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True) -> Any:  # noqa: A002
    d = _wrap_dim(int(dim), a._data.ndim)
    n = a._data.shape[d] if a._data.ndim else 1
    if not 0 <= k <= n:
        raise RuntimeError("selected index k out of range")
    if a._data.dtype == np.bool_:
        raise RuntimeError("topk does not support bool dtypes on CPU")
    return TopkResult(*Topk.apply(a, int(k), d, bool(largest)))


def aminmax(a: Tensor, *, dim: Any = None, keepdim: bool = False) -> Any:
    if dim is None:
        if a._data.size == 0:
            raise RuntimeError(
                "aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity.")
        return AminmaxResult(*Aminmax.apply(a, tuple(range(a._data.ndim)), keepdim))
    d = _wrap_dim(int(dim), a._data.ndim)
    if a._data.ndim and a._data.shape[d] == 0:
        raise IndexError(f"aminmax: Expected reduction dim {d} to have non-zero size.")
    return AminmaxResult(*Aminmax.apply(a, (d,) if a._data.ndim else (), keepdim))


def diff(a: Tensor, n: int = 1, dim: int = -1, prepend: Tensor | None = None,
         append: Tensor | None = None) -> Tensor:
    """n-th forward differences along ``dim``: ``a[1:] - a[:-1]``, n times (slices and a sub, as
    PyTorch records it); for bools ``!=``."""
    from .mathematic import logical_xor
    from .shape import cat, narrow

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
        hi, lo = narrow(out, d, 1, size - 1), narrow(out, d, 0, size - 1)
        out = logical_xor(hi, lo) if out._data.dtype == np.bool_ else hi - lo
    return out


def dist(a: Tensor, other: Tensor, p: Any = 2, *, _method: bool = False) -> Tensor:
    from .mathematic import _check_broadcast, _need_tensors
    from .promotion import result_dtype

    _need_tensors("dist", _method, ("input", a), ("other", other))
    _check_broadcast(a, other)
    dt = result_dtype(a, other)
    if dt.kind != "f":
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. Got "
                           f"{dtypes.scalar_type_name(dt)} instead.")
    return Dist.apply(a, other, float(p))


def _logical_reduce(fn: Any, a: Tensor, dim: Any, keepdim: bool) -> Tensor:
    x = a._data
    dims = _dims(dim, x.ndim)
    out = np.asarray(fn(x, axis=dims, keepdims=keepdim and dim is not None))
    return Tensor._make(out.astype(np.uint8) if x.dtype == np.uint8 else out)


def any(a: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:  # noqa: A001 - PyTorch's name
    return _logical_reduce(np.any, a, dim, keepdim)


def all(a: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:  # noqa: A001 - PyTorch's name
    return _logical_reduce(np.all, a, dim, keepdim)


def count_nonzero(a: Tensor, dim: Any = None) -> Tensor:
    if dim is not None and not isinstance(dim, (int, np.integer)):
        seen = set()
        for d in dim:
            w = _wrap_dim(int(d), a._data.ndim)
            if w in seen:
                raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
            seen.add(w)
    dims = _dims(dim, a._data.ndim)
    return Tensor._make(np.asarray(np.count_nonzero(a._data, axis=dims) if dims else
                                   np.count_nonzero(a._data), dtype=np.int64))
