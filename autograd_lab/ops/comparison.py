"""Comparisons and selections: clamp, maximum/minimum, where, masked_fill; and the ops without a
gradient: comparisons (``x < y``), logical ops, ``isnan``, ``equal``/``allclose``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes
from ..function import Function
from ..grad_mode import is_grad_enabled
from ..tensor import Tensor
from .promotion import (
    _UNDEFINED,
    _binary,
    _check_broadcast,
    _invalid_combination,
    _need_tensors,
    as_operand,
    binary_operands,
    cast,
    check_int,
    iterator_layout,
    result_dtype,
    row_major,
    vector_lanes,
)
from .scalar import DivNumber

_SAME_SIZE_INT = {2: np.int16, 4: np.int32, 8: np.int64}


def _kept_where(mask: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``np.where(mask, values, 0)`` bit for bit (nan, inf and -0.0 kept where True, +0.0 elsewhere).

    For floats, without branches: each element's bits AND-ed with all ones (True) or all zeros
    (False). np.where's per-element branch is ~3x slower on a random mask like relu's (issue 17)."""
    ints = _SAME_SIZE_INT.get(values.itemsize) if values.dtype.kind == "f" else None
    if ints is None or mask.shape != values.shape:
        return np.where(mask, values, 0).astype(values.dtype, copy=False)
    bits = values.view(ints)
    return np.bitwise_and(bits, np.negative(mask, dtype=ints)).view(values.dtype)


def _grad_where(keep: np.ndarray, grad: Tensor) -> Tensor:
    """``where(keep, grad, 0)``: PyTorch's derivative of clamp and where (0 where not kept, even for an
    inf or nan gradient); under create_graph recorded as its ``WhereBackward0`` (grad, None)."""
    if not is_grad_enabled():
        return Tensor._make(_kept_where(np.broadcast_to(keep, grad._data.shape), grad._data))
    return Where.apply(keep, grad, Tensor._make(np.zeros((), grad._data.dtype)))


# ---------------------------------------------------------------------------- clamp
def _compared(a: Tensor, b: Tensor) -> tuple[np.ndarray, np.ndarray]:
    """The data of ``a`` and ``b`` in the dtype PyTorch compares them in (``a >= b`` in a backward
    formula): their promoted one, where a 0-d float64 next to a float32 tensor counts as float32."""
    x, y = a._data, b._data
    if x.dtype == y.dtype:
        return x, y
    want = result_dtype(a, b)
    return x.astype(want, copy=False), y.astype(want, copy=False)


def _larger(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``np.maximum`` keeping ``x`` where the two are equal, as PyTorch's maximum and clamp do: -0.0
    against 0.0 stays -0.0 (NumPy's keeps ``y``); a nan on either side gives nan."""
    return np.maximum(y, x)


def _smaller(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``np.minimum`` keeping ``x`` where the two are equal (see :func:`_larger`)."""
    return np.minimum(y, x)


def _larger_of_tensors(x: np.ndarray, y: np.ndarray, *inputs: np.ndarray) -> np.ndarray:
    """``maximum`` of two tensors (``clamp`` with a tensor bound) as PyTorch's loop computes it: its
    scalar kernel keeps ``x`` on a tie of 0.0 and -0.0, its vector kernel ``y`` (:func:`vector_lanes`;
    ``inputs``: the arrays whose layout decides the loop, where ``x`` and ``y`` are copies)."""
    return _vector_ties(_larger(x, y), x, y, *inputs)


def _smaller_of_tensors(x: np.ndarray, y: np.ndarray, *inputs: np.ndarray) -> np.ndarray:
    """``minimum`` of two tensors (see :func:`_larger_of_tensors`)."""
    return _vector_ties(_smaller(x, y), x, y, *inputs)


def _vector_ties(out: np.ndarray, x: np.ndarray, y: np.ndarray, *inputs: np.ndarray) -> np.ndarray:
    """``out``, which keeps ``x`` on ties, with ``y``'s zero where the two are zeros of opposite signs
    and PyTorch's vector kernel computes the element (it returns its second operand on a tie).
    ``inputs``: the op's inputs, which decide its loop, where they are more than ``x`` and ``y``."""
    if out.dtype.kind != "f" or not out.ndim or not (out == 0).any():
        return out
    lanes = vector_lanes(out.shape, out.dtype, *(inputs or (x, y)))
    if lanes is None:
        return out
    flip = lanes & (x == y) & (np.signbit(x) != np.signbit(y))
    if flip.any():
        out[flip] = np.broadcast_to(y, out.shape)[flip]
    return out


class Clamp(Function):
    node_name = "ClampBackward1"
    saved_names = ("self",)

    @staticmethod
    def forward(ctx: Any, a: Tensor, lo: Any, hi: Any) -> Tensor:
        ctx.save_for_backward(a)
        ctx.lo, ctx.hi = lo, hi
        out = a._data if lo is None else _larger(a._data, lo)  # (np.clip keeps the bound on a tie)
        out = out if hi is None else _smaller(out, hi)
        return Tensor._make(cast(np.asarray(out), a, *(v for v in (lo, hi) if v is not None)))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None]:
        (a,) = ctx.saved_tensors
        keep = np.ones(a._data.shape, dtype=bool)
        if ctx.lo is not None:
            keep &= a._data >= ctx.lo
        if ctx.hi is not None:
            keep &= a._data <= ctx.hi
        return _grad_where(keep, grad), None, None


class ClampTensor(Function):
    """``clamp`` with tensor bounds: ``minimum(maximum(a, lo), hi)`` as one node, as in PyTorch. A
    missing bound comes as ``_UNDEFINED``: the node keeps its edge (None, 0), as PyTorch's."""

    node_name = "ClampBackward0"
    saved_names = ("self", "min", "max")

    @staticmethod
    def forward(ctx: Any, a: Tensor, lo: Tensor, hi: Tensor) -> Tensor:
        lo, hi = (None if t is _UNDEFINED else t for t in (lo, hi))
        ctx.save_for_backward(a, lo, hi)
        # one loop over the three as PyTorch's (its vector kernel: the bound on a tie of 0.0 and -0.0)
        inputs = [t._data for t in (a, lo, hi) if t is not None]
        out = a._data
        if lo is not None:
            out = _binary(lambda x, y: _vector_ties(_larger(x, y), x, y, *inputs), Tensor._make(out), lo)
        if hi is not None:
            out = _binary(lambda x, y: _vector_ties(_smaller(x, y), x, y, *inputs), Tensor._make(out), hi)
        return Tensor._make(cast(np.asarray(out), *(t for t in (a, lo, hi) if t is not None)))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, Tensor | None, Tensor | None]:
        a, lo, hi = ctx.saved_tensors
        x, xl = _compared(a, lo) if lo is not None else (a._data, None)
        xh, h = _compared(a, hi) if hi is not None else (a._data, None)
        above_lo = x >= xl if lo is not None else np.bool_(True)
        below_hi = xh <= h if hi is not None else np.bool_(True)
        # a bound's own test, as PyTorch's (not the negation of the other: a nan goes to no one)
        to_lo = x < xl if lo is not None else None
        to_hi = xh > h if hi is not None else None
        if lo is not None and hi is not None:  # where min > max the result is max (PyTorch's rule)
            l2, h2 = _compared(lo, hi)
            to_lo = to_lo & (l2 < h2)
            to_hi = to_hi | (h2 < l2)
        grad_a = _grad_where(above_lo & below_hi, grad)
        grad_lo = _grad_where(to_lo, grad) if lo is not None else None
        grad_hi = _grad_where(to_hi, grad) if hi is not None else None
        return grad_a, grad_lo, grad_hi


def clamp(a: Tensor, min: Any = None, max: Any = None) -> Tensor:
    """``a`` limited to ``[min, max]`` (either may be None, a number or a tensor; ``torch.clamp``)."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    check_int(min)
    check_int(max)
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        lo = _UNDEFINED if min is None else as_operand(min, a._data.dtype)
        hi = _UNDEFINED if max is None else as_operand(max, a._data.dtype)
        return ClampTensor.apply(a, lo, hi)
    return Clamp.apply(a, min, max)


class ClampMinScalar(Function):
    node_name = "ClampMinBackward0"
    saved_names = ("self",)
    keep = staticmethod(np.greater_equal)
    combine = staticmethod(_larger)
    bound_name = "min"

    @classmethod
    def forward(cls, ctx: Any, a: Tensor, bound: Any) -> Tensor:
        ctx.save_for_backward(a)
        ctx.bound = bound
        setattr(ctx, f"_saved_{cls.bound_name}", bound)  # PyTorch's node shows the number
        dt = result_dtype(a, bound)
        out = np.asarray(cls.combine(a._data.astype(dt, copy=False), np.asarray(bound).astype(dt)))
        return Tensor._make(iterator_layout(out, a._data))  # (NumPy's astype lays an expanded one out oddly)

    @classmethod
    def backward(cls, ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        (a,) = ctx.saved_tensors
        return _grad_where(cls.keep(a._data, ctx.bound), grad), None


class ClampMaxScalar(ClampMinScalar):
    node_name = "ClampMaxBackward0"
    saved_names = ("self",)
    keep = staticmethod(np.less_equal)
    combine = staticmethod(_smaller)
    bound_name = "max"


class ClampMinTensor(Function):
    node_name = "ClampMinBackward1"
    saved_names = ("self", "min")
    keep = staticmethod(np.greater_equal)
    passes = staticmethod(np.less)  # where the bound's gradient goes (a nan: to neither, as PyTorch)
    combine = staticmethod(_larger_of_tensors)

    @classmethod
    def forward(cls, ctx: Any, a: Tensor, bound: Tensor) -> Tensor:
        ctx.save_for_backward(a, bound)
        dt = result_dtype(a, bound)
        x, y = a._data, bound._data
        return Tensor._make(np.asarray(cls.combine(x.astype(dt), y.astype(dt), x, y)))  # (the loop: x's, y's)

    @classmethod
    def backward(cls, ctx: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
        x, y = _compared(*ctx.saved_tensors)
        shape = grad._data.shape
        return (_grad_where(np.broadcast_to(cls.keep(x, y), shape), grad),
                _grad_where(np.broadcast_to(cls.passes(x, y), shape), grad))


class ClampMaxTensor(ClampMinTensor):
    node_name = "ClampMaxBackward1"
    saved_names = ("self", "max")
    keep = staticmethod(np.less_equal)
    passes = staticmethod(np.greater)
    combine = staticmethod(_smaller_of_tensors)
    bound_name = "max"


def _clamp_one(name: str, scalar_cls: type[Function], tensor_cls: type[Function], a: Any,
               bound: Any) -> Tensor:
    if not isinstance(a, Tensor) or not isinstance(bound, (Tensor, int, float, np.number)):
        arg = name.split("_")[1]
        raise _invalid_combination(name, (a, bound), [
            f"Tensor input, Tensor {arg}, *, Tensor out = None",
            f"Tensor input, Number {arg}, *, Tensor out = None"])
    if isinstance(bound, Tensor):
        _check_broadcast(a, bound)
        return tensor_cls.apply(a, bound)
    return scalar_cls.apply(a, bound)


def clamp_min(a: Tensor, min: Any) -> Tensor:
    """``max(a, min)`` elementwise (``torch.clamp_min``)."""
    return _clamp_one("clamp_min", ClampMinScalar, ClampMinTensor, a, min)


def clamp_max(a: Tensor, max: Any) -> Tensor:
    """``min(a, max)`` elementwise (``torch.clamp_max``)."""
    return _clamp_one("clamp_max", ClampMaxScalar, ClampMaxTensor, a, max)


def check_clamp_inplace(a: Tensor, bound: Any) -> None:
    """``clamp_min_``/``clamp_max_`` refuse a bound that would change the tensor's dtype category,
    with PyTorch's wording for these two ops (C++ type name of the tensor)."""
    if not isinstance(bound, (Tensor, int, float, np.number)):
        return
    want = result_dtype(a, bound)
    kinds = {"b": 0, "u": 1, "i": 1, "f": 2}
    if kinds[want.kind] > kinds[a._data.dtype.kind]:
        raise RuntimeError(f"result type {dtypes.scalar_type_name(want)} can't be cast to the desired "
                           f"output type {dtypes.cpp_type_name(a._data.dtype)}")


# ----------------------------------------------------------------------- maximum, minimum, where, masked fill
def _split_ties(grad: Tensor, a_loses: np.ndarray, b_loses: np.ndarray,
                tie: np.ndarray) -> tuple[Tensor, Tensor]:
    """Gradient to the winner; half to each side of a tie: PyTorch's
    ``where(tie, grad / 2, grad).masked_fill_(loses, 0)`` for each side (recorded under create_graph).
    A nan compares false every way: neither side loses, both get the whole gradient, as in PyTorch."""
    if not is_grad_enabled():  # no graph to build: the same, on the arrays
        g = grad._data
        shared = np.where(tie, g / np.asarray(2, g.dtype), g)
        return (Tensor._make(_kept_where(~a_loses, shared)), Tensor._make(_kept_where(~b_loses, shared)))
    # one where per side, as PyTorch's formulas (a shared one would show in a double backward's graph)
    return (masked_fill(Where.apply(tie, DivNumber.apply(grad, 2), grad), a_loses, 0),
            masked_fill(Where.apply(tie, DivNumber.apply(grad, 2), grad), b_loses, 0))


class Maximum(Function):
    node_name = "MaximumBackward0"
    saved_names = ("self", "other")

    @staticmethod
    def forward(ctx: Any, a: Tensor, b: Tensor) -> Tensor:
        ctx.save_for_backward(a, b)
        return Tensor._make(cast(_binary(_larger_of_tensors, a, b), a, b))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
        x, y = _compared(*ctx.saved_tensors)
        return _split_ties(grad, x < y, x > y, x == y)


def maximum(a: Any, other: Any, *, _method: bool = False) -> Tensor:
    """The larger of ``a`` and ``other`` elementwise; a tie shares the gradient (``torch.maximum``)."""
    _need_tensors("maximum", _method, ("input", a), ("other", other))
    return Maximum.apply(*binary_operands(a, other))


class Minimum(Function):
    node_name = "MinimumBackward0"
    saved_names = ("self", "other")

    @staticmethod
    def forward(ctx: Any, a: Tensor, b: Tensor) -> Tensor:
        ctx.save_for_backward(a, b)
        return Tensor._make(cast(_binary(_smaller_of_tensors, a, b), a, b))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
        x, y = _compared(*ctx.saved_tensors)
        return _split_ties(grad, x > y, x < y, x == y)


def minimum(a: Any, other: Any, *, _method: bool = False) -> Tensor:
    """The smaller of ``a`` and ``other`` elementwise; a tie shares the gradient (``torch.minimum``)."""
    _need_tensors("minimum", _method, ("input", a), ("other", other))
    return Minimum.apply(*binary_operands(a, other))


class Fmax(Function):
    """``fmax``: the larger, a nan losing to a number (C's ``fmax``). The whole gradient goes to ``a``
    where ``a >= other`` or ``other`` is nan, else to ``other``: no sharing on a tie (PyTorch's formula)."""

    node_name = "FmaxBackward0"
    saved_names = ("self", "other")
    ufunc = staticmethod(np.fmax)
    keeps_a = staticmethod(np.greater_equal)

    @classmethod
    def forward(cls, ctx: Any, a: Tensor, b: Tensor) -> Tensor:
        ctx.save_for_backward(a, b)
        return Tensor._make(cast(_binary(cls.kernel, a, b), a, b))

    @classmethod
    def kernel(cls, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """PyTorch's loops keep ``x`` on a tie of 0.0 and -0.0 (NumPy's SIMD loop picks either)."""
        out = np.asarray(cls.ufunc(x, y))
        if out.dtype.kind == "f" and out.ndim:
            np.copyto(out, np.broadcast_to(x, out.shape), where=x == y)
        return out

    @classmethod
    def backward(cls, ctx: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
        x, y = _compared(*ctx.saved_tensors)
        to_a = np.broadcast_to(cls.keeps_a(x, y) | np.isnan(y), grad._data.shape)
        if not is_grad_enabled():  # no graph to build: the same, on the arrays
            return Tensor._make(_kept_where(to_a, grad._data)), Tensor._make(_kept_where(~to_a, grad._data))
        return masked_fill(grad, ~to_a, 0), masked_fill(grad, to_a, 0)  # (recorded as PyTorch's formula)


def fmax(a: Any, other: Any, *, _method: bool = False) -> Tensor:
    """The larger of ``a`` and ``other`` elementwise, ignoring a nan where the other is a number
    (``torch.fmax``)."""
    _need_tensors("fmax", _method, ("input", a), ("other", other))
    return Fmax.apply(*binary_operands(a, other))


class Fmin(Fmax):
    node_name = "FminBackward0"
    ufunc = staticmethod(np.fmin)
    keeps_a = staticmethod(np.less_equal)


def fmin(a: Any, other: Any, *, _method: bool = False) -> Tensor:
    """The smaller of ``a`` and ``other`` elementwise, ignoring a nan where the other is a number
    (``torch.fmin``)."""
    _need_tensors("fmin", _method, ("input", a), ("other", other))
    return Fmin.apply(*binary_operands(a, other))


class Where(Function):
    """``where(condition, a, b)``; the condition is data, not an input with a gradient. It is saved
    with ``save_for_backward`` (``_saved_condition``), so that it is freed after backward, as in
    PyTorch (a second backward then raises)."""

    node_name = "WhereBackward0"
    saved_names = ("condition",)

    @staticmethod
    def forward(ctx: Any, condition: np.ndarray, a: Tensor, b: Tensor) -> Tensor:
        ctx.save_for_backward(Tensor._make(condition))
        out = cast(np.where(condition, a._data, b._data), a, b)  # laid out as TensorIterator lays it,
        return Tensor._make(iterator_layout(out, condition, a._data, b._data))  # the condition first

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[None, Tensor, Tensor]:
        c = ctx.saved_tensors[0]._data
        if not is_grad_enabled():  # no graph to build: the same, on the arrays
            return None, _grad_where(c, grad), _grad_where(~c, grad)
        zero = Tensor._make(np.zeros((), grad._data.dtype))  # PyTorch's where(c, grad, 0), where(c, 0, grad)
        return None, Where.apply(c, grad, zero), Where.apply(c, zero, grad)


def where(condition: Any, a: Any, b: Any) -> Tensor:
    """Elements of ``a`` where ``condition`` holds, else of ``b`` (``torch.where``)."""
    cond = condition._data if isinstance(condition, Tensor) else np.asarray(condition)
    if cond.dtype != np.bool_:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with "
                           f"dtype {dtypes.scalar_type_name(cond.dtype)}")
    a, b = binary_operands(a, b)
    _check_broadcast(Tensor._make(cond), a, b)  # PyTorch's text (condition, then a, then b)
    return Where.apply(cond, a, b)


class MaskedFill(Function):
    """``a`` with a number where ``mask`` holds; the mask is saved (``_saved_mask``) and freed after
    backward, as in PyTorch."""

    node_name = "MaskedFillBackward0"
    saved_names = ("mask",)

    @staticmethod
    def forward(ctx: Any, a: Tensor, mask: np.ndarray, value: Any) -> Tensor:
        ctx.save_for_backward(Tensor._make(mask))
        # (PyTorch's: a row-major clone of the input, broadcast to the mask, filled in place)
        return Tensor._make(row_major(np.where(mask, np.asarray(value, dtype=a._data.dtype), a._data)))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None]:
        (mask,) = ctx.saved_tensors
        if not is_grad_enabled():  # no graph to build: the same, on the arrays
            return _grad_where(~mask._data, grad), None, None
        return masked_fill(grad, mask, 0), None, None  # PyTorch's grad.masked_fill(mask, 0)


class MaskedFillTensor(Function):
    """``masked_fill`` with a 0-d tensor as the value: the value gets the gradient of the filled places."""

    node_name = "MaskedFillBackward1"
    saved_names = ("mask",)

    @staticmethod
    def forward(ctx: Any, a: Tensor, mask: np.ndarray, value: Tensor) -> Tensor:
        ctx.save_for_backward(Tensor._make(mask))
        return Tensor._make(row_major(np.where(mask, value._data.astype(a._data.dtype), a._data)))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, Tensor]:
        (mask,) = ctx.saved_tensors
        if not is_grad_enabled():  # no graph to build: the same, on the arrays
            g, m = grad._data, np.broadcast_to(mask._data, grad._data.shape)
            return Tensor._make(_kept_where(~m, g)), None, Tensor._make(np.add.reduce(g[m], axis=None))
        # PyTorch's grad.masked_fill(mask, 0) and masked_select(grad, mask).sum()
        return masked_fill(grad, mask, 0), None, grad.masked_select(mask).sum()


def masked_fill(a: Tensor, mask: Any, value: Any) -> Tensor:
    """``a`` with ``value`` where the bool ``mask`` is True (``torch.masked_fill``)."""
    m = mask._data if isinstance(mask, Tensor) else np.asarray(mask)
    if m.dtype != np.bool_:
        raise RuntimeError(
            f"masked_fill_ only supports boolean masks, but got mask with dtype "
            f"{dtypes.cpp_type_name(m.dtype)}"
        )
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise RuntimeError(
                "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                f"{value.ndim} dimension(s)."
            )
        return MaskedFillTensor.apply(a, m, value)
    return MaskedFill.apply(a, m, value)


# ------------------------------------------------------------------------- comparisons and logic: no gradient
def non_differentiable(fn: Any, a: Any, b: Any = None) -> Tensor:
    """Comparisons and other ops with no gradient: plain result tensors."""
    if b is None:
        return Tensor._make(np.asarray(fn(a._data)))
    a, b = binary_operands(a, b)
    return Tensor._make(np.asarray(_binary(fn, a, b)))


def bitwise_not(a: Tensor) -> Tensor:
    """``~a``: logical not of a bool tensor, bitwise not of an integer one (``torch.bitwise_not``)."""
    return non_differentiable(np.logical_not if a._data.dtype == np.bool_ else np.invert, a)


def isnan(a: Tensor) -> Tensor:
    """Where ``a`` is NaN, a bool tensor (``torch.isnan``)."""
    return Tensor._make(np.isnan(a._data) if a._data.dtype.kind == "f" else np.zeros(a._data.shape, bool))


def isinf(a: Tensor) -> Tensor:
    """Where ``a`` is +-inf, a bool tensor (``torch.isinf``)."""
    return Tensor._make(np.isinf(a._data) if a._data.dtype.kind == "f" else np.zeros(a._data.shape, bool))


def isin(elements: Any, test_elements: Any, *, assume_unique: bool = False, invert: bool = False) -> Tensor:
    """Whether each element is among ``test_elements`` (not, with ``invert``), a bool tensor
    (``torch.isin``)."""
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise _invalid_combination("isin", (elements, test_elements), [
            f"{first}, {second}, *, bool assume_unique = False, bool invert = False, Tensor out = None"
            for first, second in (("Tensor elements", "Tensor test_elements"),
                                  ("Number element", "Tensor test_elements"),
                                  ("Tensor elements", "Number test_element"))])
    found = np.isin(np.asarray(elements._data if isinstance(elements, Tensor) else elements),
                    np.asarray(test_elements._data if isinstance(test_elements, Tensor) else test_elements),
                    invert=invert)
    return Tensor._make(np.asarray(found))


def bincount(input: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
    """How often each value 0, 1, ... occurs in ``input`` (1-d, non-negative integers), or the sum of
    ``weights`` at each (``torch.bincount``)."""
    x = input._data
    if x.dtype.kind not in "iub":
        name = dtypes.scalar_type_name(x.dtype)
        raise NotImplementedError(f'"bincount_cpu" not implemented for \'{name}\'')
    if x.ndim != 1 or x.dtype.kind not in "iu" or (x.size and x.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if weights is None:
        return Tensor._make(np.bincount(x, minlength=minlength).astype(np.int64))
    w = weights._data
    if w.ndim != 1 or w.shape[0] != x.shape[0]:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    dt = w.dtype if w.dtype.kind == "f" else np.float64
    return Tensor._make(np.bincount(x, weights=w.astype(np.float64), minlength=minlength).astype(dt))


def isposinf(a: Tensor) -> Tensor:
    """Where ``a`` is +inf, a bool tensor (``torch.isposinf``)."""
    return Tensor._make(np.isposinf(a._data) if a._data.dtype.kind == "f" else np.zeros(a._data.shape, bool))


def isneginf(a: Tensor) -> Tensor:
    """Where ``a`` is -inf, a bool tensor (``torch.isneginf``)."""
    return Tensor._make(np.isneginf(a._data) if a._data.dtype.kind == "f" else np.zeros(a._data.shape, bool))


def signbit(a: Tensor) -> Tensor:
    """Where ``a``'s sign bit is set (-0.0 and -nan too), a bool tensor (``torch.signbit``)."""
    return Tensor._make(np.asarray(np.signbit(a._data) if a._data.dtype.kind != "b"
                                   else np.zeros(a._data.shape, bool)))


def _comparison(name: str, ufunc: np.ufunc) -> Any:
    """``torch.eq(input, other)`` and the others: ``input`` a tensor, ``other`` a tensor or a number."""

    def compare(input: Any, other: Any) -> Tensor:
        if not isinstance(input, Tensor) or not isinstance(other, (Tensor, bool, int, float, np.number)):
            raise _invalid_combination(name, (input, other), [
                "Tensor input, Tensor other, *, Tensor out = None",
                "Tensor input, Number other, *, Tensor out = None"])
        return non_differentiable(ufunc, input, other)

    compare.__name__ = compare.__qualname__ = name
    compare.__doc__ = f"Elementwise ``numpy.{ufunc.__name__}``: a bool tensor (``torch.{name}``)."
    return compare


eq, ne, lt, le, gt, ge = (_comparison(name, ufunc) for name, ufunc in (
    ("eq", np.equal), ("ne", np.not_equal), ("lt", np.less), ("le", np.less_equal), ("gt", np.greater),
    ("ge", np.greater_equal)))
not_equal, less, less_equal, greater, greater_equal = ne, lt, le, gt, ge  # (NumPy's names)


def isfinite(a: Tensor) -> Tensor:
    """Where ``a`` is neither inf nor NaN, a bool tensor (``torch.isfinite``)."""
    return Tensor._make(np.isfinite(a._data) if a._data.dtype.kind == "f" else np.ones(a._data.shape, bool))


def logical_not(a: Tensor) -> Tensor:
    """``not a`` elementwise (nonzero is True), a bool tensor (``torch.logical_not``)."""
    return Tensor._make(np.logical_not(a._data))


def _logical(name: str, fn: Any, a: Tensor, other: Tensor, method: bool) -> Tensor:
    _need_tensors(name, method, ("input", a), ("other", other))
    _check_broadcast(a, other)
    return Tensor._make(np.asarray(fn(a._data, other._data)))


def logical_and(a: Tensor, other: Tensor, *, _method: bool = False) -> Tensor:
    """``a and other`` elementwise, a bool tensor (``torch.logical_and``)."""
    return _logical("logical_and", np.logical_and, a, other, _method)


def logical_or(a: Tensor, other: Tensor, *, _method: bool = False) -> Tensor:
    """``a or other`` elementwise, a bool tensor (``torch.logical_or``)."""
    return _logical("logical_or", np.logical_or, a, other, _method)


def logical_xor(a: Tensor, other: Tensor, *, _method: bool = False) -> Tensor:
    """``a xor other`` elementwise, a bool tensor (``torch.logical_xor``)."""
    return _logical("logical_xor", np.logical_xor, a, other, _method)


def equal(a: Tensor, other: Tensor) -> bool:
    """True when both have the same shape and the same elements (``torch.equal``)."""
    return a._data.shape == other._data.shape and bool(np.array_equal(a._data, other._data))


def allclose(a: Tensor, other: Any, rtol: float = 1e-05, atol: float = 1e-08,
             equal_nan: bool = False) -> bool:
    """``|a - other| <= atol + rtol * |other|`` everywhere (``torch.allclose``)."""
    return bool(np.allclose(a._data, other._data if isinstance(other, Tensor) else other,
                            rtol=rtol, atol=atol, equal_nan=equal_nan))


def isclose(a: Tensor, other: Any, rtol: float = 1e-05, atol: float = 1e-08,
            equal_nan: bool = False) -> Tensor:
    """Elementwise ``|a - other| <= atol + rtol * |other|``, a bool tensor (``torch.isclose``)."""
    return Tensor._make(np.isclose(a._data, other._data if isinstance(other, Tensor) else other,
                                   rtol=rtol, atol=atol, equal_nan=equal_nan))
