"""Reductions over dimensions: sum, mean, var/std, max/min, prod, norms, any/all.

The gradient of a reduction is the output gradient spread back over the reduced dimensions:
``_expand_back`` puts the reduced dimensions back (as size 1) and broadcasts.
"""

from __future__ import annotations

import contextlib
import math
import warnings
from collections import namedtuple
from collections.abc import Iterator
from typing import Any

import numpy as np

from .. import dtypes
from ..dtypes import quiet as _quiet
from ..dtypes import wrap_dim as _wrap_dim
from ..function import SAVES_NOTHING, Function, _expandable_to, fast_unary
from ..grad_mode import is_grad_enabled
from ..summation import torch_sum
from ..tensor import Tensor
from .comparison import maximum, minimum
from .indexing import ScatterSrc, _Data, narrow
from .promotion import (
    _check_broadcast,
    _const,
    _invalid_combination,
    _need_tensors,
    iterator_layout,
    result_dtype,
    row_major,
)
from .scalar import DivNumber, MulNumber
from .scan import _flip
from .shape import cat
from .sorting import evenly_distribute

MaxResult = namedtuple("max", ["values", "indices"])


MinResult = namedtuple("min", ["values", "indices"])

# The default of ``dim`` where PyTorch tells "not given" from an explicit None: ``x.sum()`` records
# SumBackward0, ``x.sum(dim=None)`` SumBackward1; ``x.max(dim=None)`` is a TypeError.
ALL_DIMS: Any = type("AllDims", (), {"__repr__": lambda self: "None"})()


def _bad_keywords(name: str, given: dict, signatures: list[str], explain: bool = False) -> TypeError:
    """PyTorch's TypeError for a method called with keywords no overload takes, as it reads for the
    keyword form ``x.max(dim=(0,))`` (positional or ``torch.max(x, ...)`` calls word it slightly
    differently: PyTorch lists the types as passed)."""
    got = "".join(f"{k}={type(v).__name__}, " for k, v in given.items())
    why = f"      didn't match because some of the keywords were incorrect: {', '.join(given)}\n"
    lines = "".join(f" * ({s})\n" + (why if explain and "dim" not in s else "") for s in signatures)
    return TypeError(f"{name}() received an invalid combination of arguments - got ({got}), but expected "
                     f"one of:\n{lines}")


AminmaxResult = namedtuple("aminmax", ["min", "max"])


def _dims(dim: Any, ndim: int) -> tuple[int, ...]:
    """Normalise ``dim`` (None, int, or a sequence) to sorted non-negative dims. None and an empty
    sequence both mean every dim (PyTorch's rule for ``sum(dim=())``, ``mean``, ``var``, ...)."""
    if dim is None or _no_dims(dim):
        return tuple(range(ndim))
    if isinstance(dim, (int, np.integer)):
        dim = (int(dim),)
    dims = {_wrap_dim(int(d), ndim) for d in dim}  # checks the range
    return tuple(sorted(dims)) if ndim else ()  # a 0-d tensor has no dimension to reduce


def _zero_d_dims(dim: Any, a: Tensor) -> tuple[int, ...]:
    """``_dims``, but a 0-d tensor's dim 0, given, kept as ``(0,)``: PyTorch's backward of amax/amin
    restores it as a dim of size 1 (then sums the gradient back to the 0-d shape)."""
    dims = _dims(dim, a._data.ndim)
    return (0,) if a._data.ndim == 0 and dim is not None and not _no_dims(dim) else dims


def _no_dims(dim: Any) -> bool:
    """Whether ``dim`` is an empty sequence (``dim=()`` or ``dim=[]``)."""
    return not isinstance(dim, (int, np.integer)) and dim is not None and len(dim) == 0


def _kept_shape(shape: tuple[int, ...], dims: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(1 if i in dims else s for i, s in enumerate(shape))


def _unsqueeze_back(grad: Tensor, dims: tuple[int, ...], keepdim: bool) -> Tensor:
    """The reduced dims put back as size 1, one ``unsqueeze`` each (PyTorch's ``unsqueeze_multiple``):
    what broadcasts against the input."""
    if not keepdim:
        for d in sorted(dims):
            grad = grad.unsqueeze(d)
    return grad


def _expand_back(grad: Tensor, shape: tuple[int, ...], dims: tuple[int, ...],
                 keepdim: bool) -> Tensor:
    """A reduced gradient back to the input's shape (each reduced element gets the same value): the
    reduced dims put back one ``unsqueeze`` each, then ``expand``, as PyTorch's ``sum_backward``."""
    return _unsqueeze_back(grad, dims, keepdim).expand(shape)


# ---------------------------------------------------------------------------- sum, mean
class Sum(Function):
    node_name = "SumBackward1"

    @staticmethod
    def forward(ctx: Any, a: Tensor, dims: tuple[int, ...], keepdim: bool, dtype: Any) -> Tensor:
        ctx.shape, ctx.dims, ctx.keepdim = a._data.shape, dims, keepdim
        data = a._data
        if dtype is None and data.dtype.kind in "bui":
            dtype = np.int64  # PyTorch sums integers and bools as int64
        if dtype is None or dtype == data.dtype:  # floats added in PyTorch's order where it can be replayed
            out = torch_sum(data, dims, keepdim)
            if out is not None:
                return Tensor._make(row_major(out))
        # (np.add.reduce: what np.sum calls, without its Python wrapper)
        return Tensor._make(row_major(np.add.reduce(data, axis=dims, keepdims=keepdim, dtype=dtype)))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None, None]:
        return _expand_back(grad, ctx.shape, ctx.dims, ctx.keepdim), None, None, None


class SumAll(Sum):
    node_name = "SumBackward0"

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None, None]:
        return grad.expand(ctx.shape), None, None, None  # the 0-d gradient expanded at once


def sum(a: Tensor, dim: Any = ALL_DIMS, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """The sum over ``dim`` (all elements if None; ``torch.sum``). Without ``dim`` it is PyTorch's
    SumBackward0; with one, even None, SumBackward1."""
    np_dtype = None if dtype is None else dtypes.to_numpy_dtype(dtype)
    if dim is ALL_DIMS:
        if keepdim:
            raise _bad_keywords("sum", {"keepdim": keepdim}, [
                "*, torch.dtype dtype = None",
                "tuple of ints dim, bool keepdim = False, *, torch.dtype dtype = None"])
        return SumAll.apply(a, _dims(None, a._data.ndim), False, np_dtype)
    return Sum.apply(a, _dims(dim, a._data.ndim), keepdim, np_dtype)


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
        ctx.count = math.prod([a._data.shape[d] for d in dims])
        return Tensor._make(_mean_kernel(a._data, dims, keepdim, dtype, ctx.count))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None, None]:
        # PyTorch's order: expanded first, then divided by the count (a number: DivBackward1)
        return DivNumber.apply(ctx._forward_cls._spread(ctx, grad), ctx.count), None, None, None

    @staticmethod
    def backward_arrays(ctx: Any, g: np.ndarray) -> tuple[np.ndarray, None, None, None]:
        if g.dtype.kind != "f":
            return ctx._forward_cls.backward(ctx, Tensor._make(g))[0]._data, None, None, None
        g = np.true_divide(g, np.asarray(ctx.count, dtype=g.dtype))  # the same kernels
        kept = g if ctx.keepdim or not g.ndim else g.reshape(_kept_shape(ctx.shape, ctx.dims))
        out = np.empty(ctx.shape, g.dtype)  # a new array, as PyTorch's division makes one (a 0-d g fills
        out[...] = kept  # any shape); faster than np.broadcast_to's Python wrapper
        return out, None, None, None

    @staticmethod
    def _spread(ctx: Any, grad: Tensor) -> Tensor:
        return _expand_back(grad, ctx.shape, ctx.dims, ctx.keepdim)


def _mean_kernel(x: np.ndarray, dims: tuple[int, ...], keepdim: bool, dtype: Any, count: int) -> np.ndarray:
    """np.mean's own steps without its Python wrapper: the sum (float16 summed in float32, as np.mean
    does), then one division (the caller runs it quietly: the mean of nothing is 0/0, nan)."""
    total = torch_sum(x, dims, keepdim) if dtype is None or dtype == x.dtype else None
    if total is not None:  # (PyTorch's mean: the sum, in its order, divided by the count)
        return row_major(np.true_divide(total, count))
    acc = np.float32 if dtype is None and x.dtype == np.float16 else dtype
    out = np.true_divide(np.add.reduce(x, axis=dims, keepdims=keepdim, dtype=acc), count)
    return row_major(out, dtype=dtype or x.dtype)


def _mean_all(x: np.ndarray) -> np.ndarray:
    """Mean.forward's kernel over every element (MeanAll's dims), for fast_unary."""
    return _mean_kernel(x, tuple(range(x.ndim)), False, None, x.size)


class MeanAll(Mean):
    node_name = "MeanBackward0"

    @staticmethod
    def _spread(ctx: Any, grad: Tensor) -> Tensor:
        return grad.expand(ctx.shape)


def mean(a: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """The mean over ``dim`` (all elements if None; ``torch.mean``)."""
    np_dtype = None if dtype is None else dtypes.to_numpy_dtype(dtype)
    if dim is None and not keepdim:
        if dtype is None and type(a) is Tensor:  # the loss's mean: MeanAll.forward's steps, recorded fast
            x = a._data
            out = fast_unary(MeanAll, _mean_all, a, SAVES_NOTHING, 4, {
                "shape": x.shape, "dims": tuple(range(x.ndim)), "keepdim": False, "count": x.size})
            if out is not None:
                return out
        return MeanAll.apply(a, _dims(None, a._data.ndim), False, np_dtype)
    return Mean.apply(a, _dims(dim, a._data.ndim), keepdim, np_dtype)


class Nansum(Function):
    """The sum with nan counted as 0 (``torch.nansum``); its gradient: 0 where the input was nan."""

    node_name = "NansumBackward0"
    saved_names = ("self",)

    @staticmethod
    def forward(ctx: Any, a: Tensor, dims: tuple[int, ...], keepdim: bool, dtype: Any) -> Tensor:
        ctx.save_for_backward(a)
        x = a._data
        if x.dtype.kind == "f":
            x = np.where(np.isnan(x), x.dtype.type(0), x)
        return Sum.forward(ctx, Tensor._make(x), dims, keepdim, dtype)  # (sum's kernel, in its order)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None, None]:
        (a,) = ctx.saved_tensors  # PyTorch's nansum_backward: sum's gradient (in a's dtype), times "not nan"
        grad = grad if grad._data.dtype == a._data.dtype else grad.to(a.dtype)
        kept = _const(~np.isnan(a._data))
        return _expand_back(grad, ctx.shape, ctx.dims, ctx.keepdim) * kept, None, None, None


def nansum(a: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """The sum over ``dim`` (all elements if None), nan counted as 0 (``torch.nansum``)."""
    np_dtype = None if dtype is None else dtypes.to_numpy_dtype(dtype)
    return Nansum.apply(a, _dims(dim, a._data.ndim), keepdim, np_dtype)


def nanmean(a: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    """The mean of the elements that are not nan over ``dim`` (``torch.nanmean``: ``nansum`` divided
    by their count)."""
    if a._data.dtype.kind != "f":
        raise RuntimeError("nanmean(): expected input to have floating point or complex dtype but got "
                           f"{dtypes.scalar_type_name(a._data.dtype)}")
    dims = _dims(dim, a._data.ndim)
    count = np.add.reduce(~np.isnan(a._data), axis=dims, keepdims=keepdim, dtype=np.int64)
    return nansum(a, dim, keepdim) / Tensor._make(np.asarray(count))


def sum_to_size(a: Tensor, shape: tuple[int, ...]) -> Tensor:
    """Sum ``a`` down to ``shape`` (the reverse of broadcasting ``shape`` up to ``a.shape``)."""
    shape = tuple(shape)
    if not shape:  # PyTorch's sum_to: a 0-d target is the sum (SumBackward0), of a 0-d tensor too
        return a.sum()
    if a._data.shape == shape:
        return a
    if not _expandable_to(shape, a._data.shape):
        raise RuntimeError(
            f"size {{[{', '.join(map(str, shape))}]}} is not expandable to size "
            f"{{[{', '.join(map(str, a._data.shape))}]}}."
        )
    lead = a.ndim - len(shape)
    dims = tuple(range(lead)) + tuple(
        lead + i for i, s in enumerate(shape) if s == 1 and a._data.shape[lead + i] != 1
    )
    out = a.sum(dims, keepdim=True) if dims else a
    return out.view(shape) if out._data.shape != shape else out


# ---------------------------------------------------------------------------- variance
@contextlib.contextmanager
def _silent() -> Iterator[None]:
    """NumPy's RuntimeWarnings silenced ("Mean of empty slice", 0/0): PyTorch gives nan without them."""
    with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


# PyTorch's CPU variance accumulates in double, whatever the tensor's dtype, in one of two ways (ATen's
# std_var_out): a reduction over every dim of size > 1 sums the squared deviations from the mean one by one
# (std_var_all_cpu; var and std of float32 and float64), any other (half's, and var_mean's and std_mean's
# always) runs Welford's update per element (WelfordOps). Replaying that update element by element is a
# Python loop: it runs where two vectorised passes in double would give other values (float64's and half's
# last bit, the mean of var_mean and std_mean, the nan an infinity makes), up to this many elements per
# result; beyond, the two passes (float32's values are the same either way).
WELFORD_MAX = 256


def _np_var(x: np.ndarray, dims: tuple[int, ...], correction: float, keepdim: bool, take_sqrt: bool = False,
            with_mean: bool = False) -> tuple[np.ndarray, np.ndarray | None]:
    """The variance of ``x`` over ``dims`` (its square root with ``take_sqrt``) as PyTorch's CPU kernels
    compute it, and with ``with_mean`` (var_mean, std_mean) the mean of the same update; in ``x``'s dtype,
    rounded from double as PyTorch rounds (float16 through float32). Too few elements give inf or nan, as
    in PyTorch (which warns itself, :func:`_warn_degrees_of_freedom`)."""
    n = math.prod(x.shape[d] for d in dims)
    kept = [d for d in range(x.ndim) if d not in dims]
    shape = tuple(1 if d in dims else x.shape[d] for d in range(x.ndim)) if keepdim else \
        tuple(x.shape[d] for d in kept)
    if not n:  # nothing to reduce: nan (PyTorch fills the result so)
        return np.full(shape, np.nan, x.dtype), np.full(shape, np.nan, x.dtype) if with_mean else None
    # the reduced elements last, in the order PyTorch's iterator visits them: memory order (the smallest
    # stride innermost; the sort is stable, so the dims keep their own order where strides tie)
    order = sorted(dims, key=lambda d: -abs(x.strides[d]))
    rows = np.transpose(x, kept + order).astype(np.float64).reshape(*(x.shape[d] for d in kept), n)
    divisor = n - correction if n > correction else 0.0
    with _silent():
        every = math.prod(x.shape[d] for d in kept) == 1  # every dim of size > 1 reduced
        if every and not with_mean and x.dtype != np.float16:  # (half takes Welford's way)
            deviations = rows.reshape(-1) - np.float64(np.mean(x, dtype=x.dtype))  # (x.mean(), x's dtype)
            total = np.add.accumulate(deviations * deviations)[-1]  # one by one, as PyTorch's loop
            return _from_double(np.full(shape, total / divisor), x.dtype, take_sqrt), None
        if n <= WELFORD_MAX and (with_mean or x.dtype != np.float32 or not np.isfinite(x).all()):
            mean = m2 = np.zeros(rows.shape[:-1])
            for i in range(n):  # WelfordOps::reduce
                value = rows[..., i]
                delta = value - mean
                mean = mean + delta / (i + 1)
                m2 = m2 + delta * (value - mean)
        else:  # two passes, from each row's first element: a constant row gives exactly 0, as Welford's
            first = rows[..., :1]
            shifted = rows - first
            offset = np.mean(shifted, axis=-1, keepdims=True)
            centered = shifted - offset
            m2 = np.sum(centered * centered, axis=-1)
            mean = (offset + first)[..., 0]
        return (_from_double((m2 / divisor).reshape(shape), x.dtype, take_sqrt),
                _from_double(mean.reshape(shape), x.dtype) if with_mean else None)


def _from_double(values: np.ndarray, dtype: np.dtype, take_sqrt: bool = False) -> np.ndarray:
    """A result computed in double, its square root taken there with ``take_sqrt``, in ``dtype`` as
    PyTorch's cast rounds it (to half through float: c10::Half is made from a float)."""
    if take_sqrt:
        values = np.sqrt(values)
    if dtype == np.float16:
        values = values.astype(np.float32)
    return values.astype(dtype)


def _warn_degrees_of_freedom(name: str, a: Tensor, dims: tuple[int, ...], correction: float,
                             stacklevel: int = 3) -> None:
    """PyTorch's warning when var/std divide by ``n - correction <= 0`` (the result is then inf or nan)."""
    kept = int(np.prod([n for d, n in enumerate(a._data.shape) if d not in dims]))
    if a._data.size // (kept or 1) - correction <= 0:  # PyTorch counts input numel / output numel
        warnings.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than the "
                      "reduction factor (input numel divided by output numel).", UserWarning,
                      stacklevel=stacklevel)


def _degrees_of_freedom(a: Tensor, dims: tuple[int, ...], correction: int) -> float:
    """N - correction, the divisor of var/std; NaN when it is not positive (PyTorch's result then)."""
    n = int(np.prod([a._data.shape[d] for d in dims]))
    return float(n - correction) if n > correction else float("nan")


def _correction(unbiased: bool | None, correction: int | None) -> int:
    if correction is not None:
        return correction
    return 0 if unbiased is False else 1


def _var_backward(grad: Tensor, a: Tensor, dims: tuple[int, ...] | None, correction: int,
                  keepdim: bool) -> Tensor:
    """PyTorch's ``var_backward``: ``2 / (n - correction) * grad * (a - mean(a))``; ``dims`` None for
    var of every element (the mean then PyTorch's ``mean()``, and no dims to put back)."""
    if dims is None or a._data.ndim == 0:
        dof = a._data.size - correction
        if dof <= 0:  # 2 / 0: nan where a equals its mean (inf * 0), inf elsewhere
            with np.errstate(invalid="ignore"):
                same = a._data == a._data.mean() if a._data.size else a._data == 0
            # as PyTorch: where() of two numbers is of the default dtype, and the product is cast back
            # (a float64 ``a`` gets a ToCopyBackward0 on top under create_graph)
            nan_or_inf = _const(np.where(same, np.nan, np.inf).astype(dtypes.get_default_dtype().np))
            return (grad * nan_or_inf).to(a.dtype)
        return MulNumber.apply(grad, 2.0 / dof) * (a - a.mean())
    if not keepdim and a._data.ndim > 1:
        grad = _unsqueeze_back(grad, dims, keepdim)
    scale = 2.0 / _degrees_of_freedom(a, dims, correction)
    return MulNumber.apply(grad, scale) * (a - a.mean(dims, keepdim=True))


class Var(Function):
    node_name = "VarBackward0"
    saved_names = ("self",)

    @staticmethod
    def forward(ctx: Any, a: Tensor, dims: tuple[int, ...], keepdim: bool, correction: int,
                every: bool = False) -> Tensor:
        ctx.save_for_backward(a)
        ctx.dims, ctx.keepdim, ctx.correction, ctx.every = dims, keepdim, correction, every
        return Tensor._make(row_major(_np_var(a._data, dims, correction, keepdim)[0]))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None, None, None]:
        (a,) = ctx.saved_tensors
        dims = None if ctx.every else ctx.dims
        return _var_backward(grad, a, dims, ctx.correction, ctx.keepdim), None, None, None, None


def var(a: Tensor, dim: Any = None, keepdim: bool = False, *, unbiased: bool | None = None,
        correction: int | None = None) -> Tensor:
    """The variance over ``dim``, divided by ``n - correction`` (default 1; 0 with ``unbiased=False``)."""
    dims, correction = _dims(dim, a._data.ndim), _correction(unbiased, correction)
    _warn_degrees_of_freedom("var", a, dims, correction)
    return Var.apply(a, dims, keepdim, correction, dim is None)


class Std(Function):
    node_name = "StdBackward0"
    saved_names = ("self", "result")

    @staticmethod
    def forward(ctx: Any, a: Tensor, dims: tuple[int, ...], keepdim: bool, correction: int,
                every: bool = False) -> Tensor:
        out = Tensor._make(row_major(_np_var(a._data, dims, correction, keepdim, take_sqrt=True)[0]))
        ctx.save_for_backward(a, out)
        ctx.dims, ctx.keepdim, ctx.correction, ctx.every = dims, keepdim, correction, every
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None, None, None]:
        a, out = ctx.saved_tensors
        # PyTorch's std_backward: var's, of grad / (2 std); where std is 0, 0 (not grad / 0)
        per_var = (grad / MulNumber.apply(out, 2)).masked_fill(_const(out._data == 0), 0.0)
        dims = None if ctx.every else ctx.dims
        return _var_backward(per_var, a, dims, ctx.correction, ctx.keepdim), None, None, None, None


def std(a: Tensor, dim: Any = None, keepdim: bool = False, *, unbiased: bool | None = None,
        correction: int | None = None) -> Tensor:
    """The standard deviation over ``dim``: the square root of :func:`var`."""
    dims, correction = _dims(dim, a._data.ndim), _correction(unbiased, correction)
    _warn_degrees_of_freedom("std", a, dims, correction)
    return Std.apply(a, dims, keepdim, correction, dim is None)


class VarMean(Function):
    node_name = "VarMeanBackward0"
    saved_names = ("self",)

    @staticmethod
    def forward(ctx: Any, a: Tensor, dims: tuple[int, ...], keepdim: bool,
                correction: float) -> tuple[Tensor, Tensor]:
        ctx.save_for_backward(a)
        ctx.dims, ctx.keepdim, ctx.correction = dims, keepdim, correction
        v, m = _np_var(a._data, dims, correction, keepdim, with_mean=True)
        return Tensor._make(row_major(v)), Tensor._make(row_major(m))

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
        s, m = _np_var(a._data, dims, correction, keepdim, take_sqrt=True, with_mean=True)
        std_out = Tensor._make(row_major(s))
        ctx.save_for_backward(a, std_out)
        return std_out, Tensor._make(row_major(m))

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


def _moments(name: str, cls: type[Function], a: Tensor, dim: Any, unbiased: Any, keepdim: bool,
             correction: Any) -> tuple[Tensor, Tensor]:
    if isinstance(dim, (bool, np.bool_)):  # var_mean(input, unbiased)
        dim, unbiased = None, dim
    dims = _dims(dim, a._data.ndim)
    if a._data.dtype.kind != "f":
        raise RuntimeError(f"{name} only support floating point and complex dtypes")
    if correction is None:
        correction = 0 if unbiased is False else 1
    _warn_degrees_of_freedom(name, a, dims, correction, stacklevel=4)
    return cls.apply(a, dims, keepdim, correction)


def var_mean(a: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
             correction: Any = None) -> tuple[Tensor, Tensor]:
    """``(var, mean)`` over ``dim`` in one node (``torch.var_mean``)."""
    return _moments("var_mean", VarMean, a, dim, unbiased, keepdim, correction)


def std_mean(a: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
             correction: Any = None) -> tuple[Tensor, Tensor]:
    """``(std, mean)`` over ``dim`` in one node (``torch.std_mean``)."""
    return _moments("std_mean", StdMean, a, dim, unbiased, keepdim, correction)


# ---------------------------------------------------------------------------- max, min
def _check_reducible(name: str, a: Tensor, dims: Any = None) -> None:
    """PyTorch's errors for a reduction without identity (max, argmax, amax, ...) over nothing:
    over every element (``dims`` None) of an empty tensor, or along a dim of size 0 (named as given)."""
    if a._data.size:
        return
    if dims is None:
        raise RuntimeError(
            f"{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
            "reduction dim with the 'dim' argument."
        )
    for d in (dims,) if isinstance(dims, (int, np.integer)) else dims:
        if a._data.shape[_wrap_dim(int(d), a._data.ndim)] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")


class _ExtremeAll(Function):
    """max()/min() over everything: the gradient is shared evenly among tied elements."""

    saved_names = ("self", "result")
    reduce = staticmethod(np.max)

    @classmethod
    def forward(cls, ctx: Any, a: Tensor) -> Tensor:
        _check_reducible(cls.reduce.__name__, a)
        out = Tensor._make(row_major(cls.reduce(a._data)))
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        a, out = ctx.saved_tensors
        return evenly_distribute(grad, a, out._data)


class MaxAll(_ExtremeAll):
    node_name = "MaxBackward1"
    reduce = staticmethod(np.max)


class MinAll(_ExtremeAll):
    node_name = "MinBackward1"
    reduce = staticmethod(np.min)


class _ExtremeDim(Function):
    """max(dim)/min(dim): values and indices; the gradient goes to the selected element."""

    saved_names = ("indices",)
    pick = staticmethod(np.argmax)

    @classmethod
    def forward(cls, ctx: Any, a: Tensor, dim: int, keepdim: bool) -> tuple[Tensor, Tensor]:
        # PyTorch keeps the arguments as given: dim unwrapped, as an unsigned 64-bit int (-1: 2**64 - 1)
        ctx._saved_dim, ctx._saved_keepdim = dim % 2**64, keepdim
        dim = _wrap_dim(dim, a._data.ndim)
        data = a._data if a._data.ndim else a._data.reshape(1)  # 0-d: its one element, result 0-d
        _check_reducible(cls.reduce_name, a, (dim,) if a._data.ndim else None)
        keepdim = keepdim and a._data.ndim > 0
        idx = np.expand_dims(cls.pick(data, axis=dim), dim)
        values = np.take_along_axis(data, idx, axis=dim)
        if not keepdim:
            values, idx = np.squeeze(values, dim), np.squeeze(idx, dim)
        ctx.shape, ctx.dim, ctx.keepdim = data.shape, dim, keepdim
        ctx.zero_d = not a._data.ndim
        indices = Tensor._make(idx.astype(np.int64))
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)  # saved, so that a second backward raises once it is freed
        return Tensor._make(values), indices

    @staticmethod
    def backward(ctx: Any, grad: Tensor, _: Any) -> tuple[Tensor, None, None]:
        (indices,) = ctx.saved_tensors
        if not is_grad_enabled():  # no graph to build: the gradient put at the indices, on the arrays
            idx = indices._data if ctx.keepdim else np.expand_dims(indices._data, ctx.dim)
            g = grad._data if ctx.keepdim else np.expand_dims(grad._data, ctx.dim)
            out = np.zeros(ctx.shape, grad._data.dtype)
            np.put_along_axis(out, idx, g, axis=ctx.dim)
            return Tensor._make(out.reshape(ctx.shape)), None, None
        # PyTorch's value_selecting_reduction_backward: zeros.scatter(dim, indices, grad) (a 0-d input:
        # on the 0-d tensors as they are)
        if ctx.zero_d:
            zeros = Tensor._make(np.zeros((), grad._data.dtype))
            return ScatterSrc.apply(zeros, 0, _Data(indices), grad), None, None
        if not ctx.keepdim:
            grad, indices = grad.unsqueeze(ctx.dim), indices.unsqueeze(ctx.dim)
        zeros = Tensor._make(np.zeros(ctx.shape, grad._data.dtype))
        return ScatterSrc.apply(zeros, ctx.dim, _Data(indices), grad), None, None


class MaxDim(_ExtremeDim):
    node_name = "MaxBackward0"
    pick = staticmethod(np.argmax)
    reduce_name = "max"


class MinDim(_ExtremeDim):
    node_name = "MinBackward0"
    pick = staticmethod(np.argmin)
    reduce_name = "min"


def _check_extreme_args(name: str, dim: Any, keepdim: Any) -> None:
    """PyTorch's TypeErrors for max/min with a dim that is not an int, or keepdim without dim."""
    if dim is ALL_DIMS and keepdim is not None:
        raise _bad_keywords(name, {"keepdim": keepdim}, ["", "Tensor other", "int dim, bool keepdim = False"],
                            explain=True)
    if dim is None or isinstance(dim, (tuple, list)):
        if keepdim is not None:
            raise TypeError(f"{name}(): argument 'dim' must be int, not {type(dim).__name__}")
        raise _bad_keywords(name, {"dim": dim}, ["", "Tensor other", "int dim, bool keepdim = False"],
                            explain=True)


def max(a: Tensor, dim: Any = ALL_DIMS, keepdim: bool | None = None) -> Any:
    """``max()``: the largest element; ``max(dim)``: (values, indices) along ``dim``;
    ``max(other)``: the elementwise maximum. (``keepdim`` None: not given, which is False.)"""
    if isinstance(dim, Tensor):
        return maximum(a, dim)
    _check_extreme_args("max", dim, keepdim)
    if dim is ALL_DIMS:
        return MaxAll.apply(a)
    _wrap_dim(int(dim), a._data.ndim)  # a dim out of range raises before any node is made
    return MaxResult(*MaxDim.apply(a, int(dim), bool(keepdim)))


def min(a: Tensor, dim: Any = ALL_DIMS, keepdim: bool | None = None) -> Any:
    """The smallest element, or ``(values, indices)`` along ``dim``, or :func:`minimum` of two tensors
    (``torch.min``)."""
    if isinstance(dim, Tensor):
        return minimum(a, dim)
    _check_extreme_args("min", dim, keepdim)
    if dim is ALL_DIMS:
        return MinAll.apply(a)
    _wrap_dim(int(dim), a._data.ndim)  # a dim out of range raises before any node is made
    return MinResult(*MinDim.apply(a, int(dim), bool(keepdim)))


class _Amax(Function):
    saved_names = ("self", "result")
    reduce = staticmethod(np.max)

    @classmethod
    def forward(cls, ctx: Any, a: Tensor, dims: tuple[int, ...], keepdim: bool) -> Tensor:
        out = Tensor._make(row_major(cls.reduce(a._data, axis=dims if a._data.ndim else (),
                                                 keepdims=keepdim)))
        ctx.save_for_backward(a, out)
        ctx.dims, ctx.keepdim = dims, keepdim
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None]:
        # PyTorch's scale_grad_by_count: (grad / mask.sum(dims)) * mask, ties sharing the gradient
        a, out = ctx.saved_tensors
        kept = out._data if ctx.keepdim else np.expand_dims(out._data, ctx.dims)
        mask = a._data == kept
        # (amax(x, 0) of a 0-d x: the dim restored as size 1, as PyTorch's; backward sums it away)
        count = np.add.reduce(mask, axis=ctx.dims if a._data.ndim else (), keepdims=True, dtype=np.int64)
        if not is_grad_enabled():  # no graph to build: the same, on the arrays
            g = grad._data.reshape(kept.shape)
            g = iterator_layout(g / count.astype(g.dtype), g, count)  # (each product in PyTorch's layout)
            return Tensor._make(iterator_layout(g * mask, g, mask)), None, None
        g = grad if ctx.keepdim else grad.reshape(kept.shape)
        return (g / Tensor._make(count)) * Tensor._make(mask), None, None


class Amax(_Amax):
    node_name = "AmaxBackward0"
    reduce = staticmethod(np.max)


def amax(a: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    """The largest values over ``dim`` (all if empty); ties share the gradient (``torch.amax``)."""
    dims = _zero_d_dims(dim, a)
    _check_reducible("amax", a, None if _no_dims(dim) else dim)
    return Amax.apply(a, dims, keepdim)


class Amin(_Amax):
    node_name = "AminBackward0"
    reduce = staticmethod(np.min)


def amin(a: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    """The smallest values over ``dim`` (all if empty); ties share the gradient (``torch.amin``)."""
    dims = _zero_d_dims(dim, a)
    _check_reducible("amin", a, None if _no_dims(dim) else dim)
    return Amin.apply(a, dims, keepdim)


class Aminmax(Function):
    node_name = "AminmaxBackward0"
    saved_names = ("self", "min", "max")

    @staticmethod
    def forward(ctx: Any, a: Tensor, dims: tuple[int, ...], keepdim: bool) -> tuple[Tensor, Tensor]:
        lo = Tensor._make(row_major(np.min(a._data, axis=dims, keepdims=keepdim)))
        hi = Tensor._make(row_major(np.max(a._data, axis=dims, keepdims=keepdim)))
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


def aminmax(a: Tensor, *, dim: Any = None, keepdim: bool = False) -> Any:
    """``(min, max)`` over ``dim`` in one call (``torch.aminmax``)."""
    if dim is None:
        if a._data.size == 0:
            raise RuntimeError(
                "aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity.")
        return AminmaxResult(*Aminmax.apply(a, tuple(range(a._data.ndim)), keepdim))
    d = _wrap_dim(int(dim), a._data.ndim)
    if a._data.ndim and a._data.shape[d] == 0:
        raise IndexError(f"aminmax: Expected reduction dim {d} to have non-zero size.")
    return AminmaxResult(*Aminmax.apply(a, (d,) if a._data.ndim else (), keepdim))


def _arg_extreme(name: str, pick: Any, a: Tensor, dim: Any, keepdim: bool) -> Tensor:
    """argmax/argmin: over every element (a flat index) or along one dim; not differentiable."""
    if dim is None:
        if a._data.size == 0:  # an IndexError here, unlike max()'s RuntimeError
            raise IndexError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
        return Tensor._make(np.asarray(pick(a._data, keepdims=keepdim), dtype=np.int64))
    if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)):
        raise TypeError(f"{name}(): argument 'dim' must be int, not {type(dim).__name__}")
    d = _wrap_dim(int(dim), a._data.ndim)
    if a._data.ndim == 0:
        return Tensor._make(np.zeros((), np.int64))
    _check_reducible(name, a, (d,))
    return Tensor._make(pick(a._data, axis=d, keepdims=keepdim).astype(np.int64))


def argmax(a: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    """The index of the largest element, over all or along ``dim`` (``torch.argmax``)."""
    return _arg_extreme("argmax", np.argmax, a, dim, keepdim)


def argmin(a: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    """The index of the smallest element, over all or along ``dim`` (``torch.argmin``)."""
    return _arg_extreme("argmin", np.argmin, a, dim, keepdim)


# ---------------------------------------------------------------------------- prod
def _exclusive_products(a: Tensor, dim: int) -> Tensor:
    """For each element, the product of all the others along ``dim`` (zeros allowed; more than one
    element): PyTorch's ``prod_safe_zeros_backward``, products from the left times from the right."""

    n = a._data.shape[dim]
    ones = Tensor._make(np.ones(_kept_shape(a._data.shape, (dim,)), dtype=a._data.dtype))
    left = cat([ones, narrow(a, dim, 0, n - 1)], dim).cumprod(dim)
    right = _flip(cat([ones, _flip(narrow(a, dim, 1, n - 1), dim)], dim).cumprod(dim), dim)
    return left * right


class ProdAll(Function):
    node_name = "ProdBackward0"
    saved_names = ("self", "result")

    @staticmethod
    def forward(ctx: Any, a: Tensor, dtype: Any) -> Tensor:
        out = Tensor._make(row_major(np.prod(a._data, dtype=dtype)))
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        a, out = ctx.saved_tensors
        if a._data.ndim == 0:
            return grad, None
        if not np.any(a._data == 0):
            return grad * (out / a), None
        # PyTorch's prod_safe_zeros_backward of input.contiguous().view(-1), then .view_as(input)
        if a._data.size == 1:  # (nothing else to multiply)
            return grad.view_as(a), None
        flat = a.contiguous().view(-1)
        return (grad * _exclusive_products(flat, 0)).view_as(a), None


class ProdDim(Function):
    node_name = "ProdBackward1"
    saved_names = ("self", "result")

    @staticmethod
    def forward(ctx: Any, a: Tensor, dim: int, keepdim: bool, dtype: Any) -> Tensor:
        x = a._data
        keepdim = keepdim and x.ndim > 0
        out = np.prod(x, axis=dim, keepdims=keepdim, dtype=dtype) if x.ndim else np.array(x, dtype=dtype)
        result = Tensor._make(row_major(out))
        ctx.save_for_backward(a, result)
        ctx.dim, ctx.keepdim = dim, keepdim
        return result

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None, None]:
        a, out = ctx.saved_tensors
        if a._data.ndim == 0:
            return grad, None, None, None
        dims = (ctx.dim,)
        g = _unsqueeze_back(grad, dims, ctx.keepdim)
        if not np.any(a._data == 0):
            return g * (_unsqueeze_back(out, dims, ctx.keepdim) / a), None, None, None
        if a._data.shape[ctx.dim] == 1:  # PyTorch's prod_safe_zeros_backward: nothing else to multiply
            return g, None, None, None
        return g * _exclusive_products(a, ctx.dim), None, None, None


def _one_dim(name: str, a: Tensor, dim: Any, args: tuple, signatures: list[str]) -> int:
    if isinstance(dim, (bool, np.bool_)) or not isinstance(dim, (int, np.integer)):
        raise _invalid_combination(name, args, signatures)
    return _wrap_dim(int(dim), a._data.ndim)


def prod(a: Tensor, dim: Any = ALL_DIMS, keepdim: bool | None = None, *, dtype: Any = None) -> Tensor:
    """The product over all elements or along ``dim`` (``torch.prod``; ``keepdim`` None: not given)."""
    np_dtype = None if dtype is None else dtypes.to_numpy_dtype(dtype)
    if np_dtype is None and a._data.dtype.kind in "biu":
        np_dtype = np.dtype(np.int64)  # PyTorch multiplies integers and bools as int64
    if dim is ALL_DIMS and keepdim is not None or dim is None:
        given = {"keepdim": keepdim} if dim is ALL_DIMS else {"dim": dim, "keepdim": keepdim}
        raise _bad_keywords("prod", {k: v for k, v in given.items() if v is not None or k == "dim"}, [
            "*, torch.dtype dtype = None", "int dim, bool keepdim = False, *, torch.dtype dtype = None"])
    if dim is ALL_DIMS:
        return ProdAll.apply(a, np_dtype)
    d = _one_dim("prod", a, dim, (a, dim), [
        "Tensor input, *, torch.dtype dtype = None",
        "Tensor input, int dim, bool keepdim = False, *, torch.dtype dtype = None, Tensor out = None"])
    return ProdDim.apply(a, d, bool(keepdim), np_dtype)


# ---------------------------------------------------------------------------- norms
class LinalgVectorNorm(Function):
    """The p-norm ``(sum |a|^p)^(1/p)`` over ``dims`` (``torch.linalg.vector_norm``, ``Tensor.norm``).

    Its derivative is ``sign(a) |a|^(p-1) / norm^(p-1)``: ``a / norm`` for p = 2, ``sign(a)`` for
    p = 1, shared among the largest elements for p = inf. Where the norm is 0, PyTorch gives 0.
    """

    node_name = "LinalgVectorNormBackward0"
    saved_names = ("self", "result")

    @staticmethod
    def forward(ctx: Any, a: Tensor, p: float, dims: tuple[int, ...], keepdim: bool,
                everything: bool) -> Tensor:
        x = np.abs(a._data)
        if p == 0:
            out = np.sum(x != 0, axis=dims, keepdims=keepdim)
        elif p == float("inf") or x.size and math.prod(x.shape[d] for d in dims) == 1 and (
                x.ndim or everything):  # (a 0-d tensor with a dim given: PyTorch's general kernel)
            out = np.max(x, axis=dims, keepdims=keepdim)  # (over one element: the element, for any p)
        elif p == -float("inf"):
            out = np.min(x, axis=dims, keepdims=keepdim)
        elif p == 1:
            out = np.sum(x, axis=dims, keepdims=keepdim)
        elif p == 2:
            out = np.sqrt(np.sum(x * x, axis=dims, keepdims=keepdim))
        else:
            out = _p_norm(x, p, dims, keepdim)
        result = Tensor._make(row_major(out, dtype=a._data.dtype))
        ctx.save_for_backward(a, result)
        ctx.p, ctx.dims, ctx.keepdim, ctx.everything = p, dims, keepdim, everything
        return result

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, None, None, None, None]:
        a, norm = ctx.saved_tensors
        g = _vector_norm_grad(a, norm, grad, ctx.p, ctx.dims, ctx.keepdim, ctx.everything)
        return g, None, None, None, None


def _p_norm(x: np.ndarray, p: float, dims: tuple[int, ...], keepdim: bool) -> np.ndarray:
    """``(sum |x|^p)^(1/p)`` over ``dims`` of ``x = |a|`` for a p other than 0, 1, 2 and +-inf, as PyTorch's
    kernel computes it: each power with C's ``pow``, summed one after the other in memory order (in float
    for float32 and float16), then the root, ``1 / p`` in that dtype too."""
    acc = np.dtype(np.float64) if x.dtype == np.float64 else np.dtype(np.float32)
    powers = _c_pow(x, p, acc)
    kept = [d for d in range(x.ndim) if d not in dims]
    rows = np.transpose(powers, (*kept, *dims)).reshape(*(x.shape[d] for d in kept),
                                                        math.prod(x.shape[d] for d in dims))
    total = (np.cumsum(rows, axis=-1, dtype=acc)[..., -1] if rows.shape[-1]  # (one term after the other)
             else np.zeros(rows.shape[:-1], acc))
    if keepdim:
        total = total.reshape([1 if d in dims else n for d, n in enumerate(x.shape)])
    return _c_pow(total, float(acc.type(1) / acc.type(p)), acc)


def _c_pow(x: np.ndarray, p: float, dtype: np.dtype) -> np.ndarray:
    """``x ** p`` as C's ``pow``/``powf`` give it, in ``dtype``: NumPy's vector ``power`` differs from them
    in the last bit of one double in twenty (float32: computed in double and rounded, which agrees)."""
    if dtype == np.float32:
        return np.power(np.asarray(x, np.float64), p).astype(np.float32)
    return np.asarray(_C_POW(x, p), np.float64)


def _pow(base: float, p: float) -> float:
    """C's ``pow`` (Python's ``math.pow`` calls it), with its inf and nan where Python raises instead."""
    try:
        return math.pow(base, p)
    except (ValueError, OverflowError):  # (0 to a negative power, an overflow: IEEE results, exact)
        with _quiet():
            return float(np.float64(base) ** p)


_C_POW = np.frompyfunc(_pow, 2, 1)


def _vector_norm_grad(a: Tensor, norm: Tensor, grad: Tensor, p: float, dims: tuple[int, ...],
                      keepdim: bool, everything: bool) -> Tensor | None:
    """The gradient of the p-norm of ``a`` over ``dims`` (LinalgVectorNorm's, dist's): PyTorch's
    ``norm_backward``, step by step (what ``create_graph`` records). ``everything``: no dim was given."""
    if p == 0:  # PyTorch's: no gradient at all (undefined: .grad stays None)
        return None
    if everything:  # (PyTorch's dim={}): the 0-d norm and gradient broadcast as they are
        norm_u, grad_u = norm, grad
    else:  # the reduced dims put back
        norm_u, grad_u = _unsqueeze_back(norm, dims, keepdim), _unsqueeze_back(grad, dims, keepdim)
    x = a._data
    if p == 1:
        return a.sgn() * grad_u
    if p == 2:  # grad * (self / norm).masked_fill_(norm == 0, 0)
        return grad_u * (a / norm_u).masked_fill(_const(norm_u._data == 0), 0.0)
    if p in (float("inf"), -float("inf")):  # amax's (amin's) of |a|: shared among the ties, nan too
        with _quiet():
            mask = (np.abs(x) == norm_u._data) | np.isnan(x)
        count = _const(np.sum(mask, axis=tuple(range(x.ndim)) if everything else dims, keepdims=True,
                              dtype=np.int64))
        return a.sgn() * ((grad_u / count) * _const(mask))
    zero = _const(norm_u._data == 0)
    if p < 1:  # sign(a) |a|^(p-1) (0 where a is) * grad * norm^(1-p)
        scaled = a.sgn() * a.abs().pow(p - 1).masked_fill(_const(x == 0), 0.0)
        return scaled * grad_u * norm_u.pow(1 - p)
    scaled = a.sgn() * a.abs().pow(p - 1) if p < 2 else a * a.abs().pow(p - 2)
    return scaled * (grad_u / norm_u.pow(p - 1)).masked_fill(zero, 0.0)


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
    if a._data.size == 0 and (p < 0 or p == float("inf")):  # min, max, 1/sum(1/|x|) of nothing
        if dim is None:
            raise RuntimeError(f"linalg.vector_norm cannot compute the {float(p):g} norm on an empty tensor "
                               "because the operation does not have an identity")
        for d in (dim,) if isinstance(dim, int) else dim:  # (PyTorch's text lacks the space)
            if a._data.shape[_wrap_dim(d, a._data.ndim)] == 0:
                raise RuntimeError(f"linalg.vector_norm cannot compute the {float(p):g} norm on the "
                                   f"dimension {d}because this dimension is empty and the operation does "
                                   "not have an identity")
    return LinalgVectorNorm.apply(a, float(p), _dims(dim, a._data.ndim), keepdim, dim is None)


class Dist(Function):
    node_name = "DistBackward0"
    saved_names = ("self", "other", "result")

    @staticmethod
    def forward(ctx: Any, a: Tensor, b: Tensor, p: float) -> Tensor:
        dt = result_dtype(a, b)
        diff = a._data.astype(dt) - b._data.astype(dt)
        x = np.abs(diff)
        if x.size == 0:
            out = np.zeros((), dtype=dt)
        elif p == float("inf") or x.size == 1 and p != 0:  # (one element: the element, for any p)
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
            out = _p_norm(x, p, tuple(range(x.ndim)), False)
        result = Tensor._make(row_major(out, dtype=dt))
        ctx.save_for_backward(a, b, result)
        ctx.p = p
        return result

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, Tensor, None]:
        a, b, out = ctx.saved_tensors

        def norm_backward() -> Tensor:  # PyTorch's formula for each input, made anew for each
            diff = a - b
            dims = tuple(range(diff._data.ndim))
            g = _vector_norm_grad(diff, out, grad, ctx.p, dims, False, True)
            if g is None:  # p = 0: zeros (PyTorch's negation of norm's undefined gradient raises)
                g = _expand_back(grad, diff._data.shape, dims, False) * 0.0
            return g

        need_a, need_b = ctx.needs_input_grad[:2]
        return (norm_backward() if need_a else None), (-norm_backward() if need_b else None), None


def dist(a: Tensor, other: Tensor, p: Any = 2, *, _method: bool = False) -> Tensor:
    """The ``p``-norm of ``a - other`` (``torch.dist``)."""
    _need_tensors("dist", _method, ("input", a), ("other", other))
    _check_broadcast(a, other)
    dt = result_dtype(a, other)
    if dt.kind != "f":
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. Got "
                           f"{dtypes.scalar_type_name(dt)} instead.")
    return Dist.apply(a, other, float(p))


# ---------------------------------------------------------------------------- any, all, count nonzero
def _logical_reduce(fn: Any, a: Tensor, dim: Any, keepdim: bool) -> Tensor:
    x = a._data
    dims = () if _no_dims(dim) else _dims(dim, x.ndim)  # any/all over no dim reduce nothing (PyTorch)
    out = row_major(fn(x, axis=dims, keepdims=keepdim))
    return Tensor._make(out.astype(np.uint8) if x.dtype == np.uint8 else out)


def any(a: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    """Whether any element is nonzero, over all or along ``dim`` (``torch.any``)."""
    return _logical_reduce(np.any, a, dim, keepdim)


def all(a: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    """Whether every element is nonzero, over all or along ``dim`` (``torch.all``)."""
    return _logical_reduce(np.all, a, dim, keepdim)


def count_nonzero(a: Tensor, dim: Any = None) -> Tensor:
    """The number of nonzero elements, over all or along ``dim`` (``torch.count_nonzero``)."""
    if dim is not None and not isinstance(dim, (int, np.integer)):
        seen = set()
        for d in dim:
            w = _wrap_dim(int(d), a._data.ndim)
            if w in seen:
                raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
            seen.add(w)
    dims = _dims(dim, a._data.ndim)
    return Tensor._make(row_major(np.count_nonzero(a._data, axis=dims) if dims else
                                   np.count_nonzero(a._data), dtype=np.int64))
