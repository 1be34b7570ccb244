"""Pointwise arithmetic and functions: one ``Function`` per op, its derivative beside it.

Backward formulas are written with tensor operations, so that ``create_graph=True`` records the graph
of the derivative itself (second derivatives). A gradient is returned in the *output's* shape; the
node sums it back to each input's shape (:mod:`autograd_lab.function`), so broadcasting appears in
none of the formulas below.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes
from ..function import Function
from ..tensor import Tensor
from .promotion import as_operand, binary_operands, broadcast_shape, cast, result_dtype


def _quiet() -> np.errstate:
    """IEEE results (inf, nan) are values, not warnings, as in PyTorch."""
    return np.errstate(over="ignore", divide="ignore", invalid="ignore")


def _binary(fn: Any, a: Tensor, b: Tensor) -> np.ndarray:
    try:
        return fn(a._data, b._data)
    except ValueError:
        broadcast_shape(a._data.shape, b._data.shape)  # raises PyTorch's message
        raise


def _const(arr: np.ndarray) -> Tensor:
    """A tensor outside the graph (masks, signs): its derivative is zero."""
    return Tensor._make(np.asarray(arr))


# ---------------------------------------------------------------------------- + - * /
class Add(Function):
    node_name = "AddBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor, b: Tensor) -> Tensor:
        return Tensor._make(cast(_binary(np.add, a, b), a, b))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
        return grad, grad


class Sub(Function):
    node_name = "SubBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor, b: Tensor) -> Tensor:
        return Tensor._make(cast(_binary(np.subtract, a, b), a, b))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
        return grad, -grad


class Rsub(Function):
    """``number - tensor``."""

    node_name = "RsubBackward1"

    @staticmethod
    def forward(ctx: Any, a: Tensor, number: Any) -> Tensor:
        return Tensor._make(cast(np.subtract(number, a._data), a, number))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return -grad, None


class Mul(Function):
    node_name = "MulBackward0"
    saved_names = ("self", "other")

    @staticmethod
    def forward(ctx: Any, a: Tensor, b: Tensor) -> Tensor:
        need_a, need_b = ctx.needs_input_grad
        ctx.save_for_backward(a if need_b else None, b if need_a else None)
        return Tensor._make(cast(_binary(np.multiply, a, b), a, b))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        a, b = ctx.saved_tensors
        return (grad * b if b is not None else None), (grad * a if a is not None else None)


class Div(Function):
    node_name = "DivBackward0"
    saved_names = ("self", "other")

    @staticmethod
    def forward(ctx: Any, a: Tensor, b: Tensor) -> Tensor:
        ctx.save_for_backward(a if ctx.needs_input_grad[1] else None, b)
        with _quiet():
            out = _binary(np.true_divide, a, b)
        want = result_dtype(a, b)
        if want.kind != "f":
            want = dtypes.get_default_dtype().np
        return Tensor._make(out.astype(want, copy=False))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, Tensor | None]:
        a, b = ctx.saved_tensors
        grad_b = -grad * a / (b * b) if a is not None else None
        return grad / b, grad_b


class Neg(Function):
    node_name = "NegBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor) -> Tensor:
        return Tensor._make(np.negative(a._data))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        return -grad


class Reciprocal(Function):
    node_name = "ReciprocalBackward0"
    saved_names = ("result",)

    @staticmethod
    def forward(ctx: Any, a: Tensor) -> Tensor:
        data = a._data if a._data.dtype.kind == "f" else a._data.astype(dtypes.get_default_dtype().np)
        with _quiet():
            out = Tensor._make(np.reciprocal(data))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        (out,) = ctx.saved_tensors
        return -grad * out * out


# ---------------------------------------------------------------------------- powers
class PowScalar(Function):
    """``tensor ** number``."""

    node_name = "PowBackward0"
    saved_names = ("self",)

    @staticmethod
    def forward(ctx: Any, a: Tensor, exponent: Any) -> Tensor:
        ctx.save_for_backward(a)
        ctx.exponent = exponent
        with _quiet():
            return Tensor._make(cast(np.power(a._data, exponent), a, exponent))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        (a,) = ctx.saved_tensors
        p = ctx.exponent
        if p == 0:
            return grad * 0.0, None
        return grad * p * a ** (p - 1), None


class PowTensor(Function):
    """``tensor ** tensor``."""

    node_name = "PowBackward1"
    saved_names = ("self", "exponent", "result")

    @staticmethod
    def forward(ctx: Any, a: Tensor, b: Tensor) -> Tensor:
        out = Tensor._make(cast(_binary(np.power, a, b), a, b))
        ctx.save_for_backward(a, b, out)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
        a, b, out = ctx.saved_tensors
        # d(a^b)/da = b a^(b-1), taken as 0 where b == 0 (PyTorch's rule; 0 * 0^-1 would be NaN)
        grad_a = where(_const(b._data == 0), 0.0, grad * b * a ** (b - 1))
        # d(a^b)/db = a^b log(a); PyTorch takes it as 0 where a == 0 and b >= 0
        safe = where(_const((a._data == 0) & (b._data >= 0)), 1.0, a)
        grad_b = grad * where(_const((a._data == 0) & (b._data >= 0)), 0.0, out * log(safe))
        return grad_a, grad_b


class RpowScalar(Function):
    """``number ** tensor``."""

    node_name = "PowBackward2"
    saved_names = ("exponent", "result")

    @staticmethod
    def forward(ctx: Any, base: Any, b: Tensor) -> Tensor:
        with _quiet():
            out = Tensor._make(cast(np.power(base, b._data), b, base))
        if out._data.dtype.kind != "f":
            out = Tensor._make(out._data)
        ctx.save_for_backward(b, out)
        ctx.base = base
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[None, Tensor]:
        b, out = ctx.saved_tensors
        if ctx.base == 0:  # d(0^b)/db: 0 where b >= 0 (PyTorch's rule), else 0^b log 0 = NaN
            return None, grad * _const(np.where(b._data >= 0, 0.0, np.nan).astype(grad._data.dtype))
        log_base = float(np.log(ctx.base)) if ctx.base > 0 else float("nan")
        return None, grad * out * log_base


# ---------------------------------------------------------------------------- functions
class Exp(Function):
    node_name = "ExpBackward0"
    saved_names = ("result",)

    @staticmethod
    def forward(ctx: Any, a: Tensor) -> Tensor:
        with _quiet():
            out = Tensor._make(np.exp(_floating(a._data)))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        (out,) = ctx.saved_tensors
        return grad * out


class Log(Function):
    node_name = "LogBackward0"
    saved_names = ("self",)

    @staticmethod
    def forward(ctx: Any, a: Tensor) -> Tensor:
        ctx.save_for_backward(a)
        with np.errstate(divide="ignore", invalid="ignore"):
            return Tensor._make(np.log(_floating(a._data)))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        (a,) = ctx.saved_tensors
        return grad / a


class Sqrt(Function):
    node_name = "SqrtBackward0"
    saved_names = ("result",)

    @staticmethod
    def forward(ctx: Any, a: Tensor) -> Tensor:
        with np.errstate(invalid="ignore"):
            out = Tensor._make(np.sqrt(_floating(a._data)))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        (out,) = ctx.saved_tensors
        return grad / (2 * out)


class Abs(Function):
    node_name = "AbsBackward0"
    saved_names = ("self",)

    @staticmethod
    def forward(ctx: Any, a: Tensor) -> Tensor:
        ctx.save_for_backward(a)
        return Tensor._make(np.abs(a._data))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        (a,) = ctx.saved_tensors
        return grad * _const(np.sign(a._data))


class Sin(Function):
    node_name = "SinBackward0"
    saved_names = ("self",)

    @staticmethod
    def forward(ctx: Any, a: Tensor) -> Tensor:
        ctx.save_for_backward(a)
        return Tensor._make(np.sin(_floating(a._data)))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        (a,) = ctx.saved_tensors
        return grad * cos(a)


class Cos(Function):
    node_name = "CosBackward0"
    saved_names = ("self",)

    @staticmethod
    def forward(ctx: Any, a: Tensor) -> Tensor:
        ctx.save_for_backward(a)
        return Tensor._make(np.cos(_floating(a._data)))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        (a,) = ctx.saved_tensors
        return -grad * sin(a)


class Tanh(Function):
    node_name = "TanhBackward0"
    saved_names = ("result",)

    @staticmethod
    def forward(ctx: Any, a: Tensor) -> Tensor:
        out = Tensor._make(np.tanh(_floating(a._data)))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        (out,) = ctx.saved_tensors
        return grad * (1 - out * out)


class Sigmoid(Function):
    node_name = "SigmoidBackward0"
    saved_names = ("result",)

    @staticmethod
    def forward(ctx: Any, a: Tensor) -> Tensor:
        x = _floating(a._data)
        e = np.exp(-np.abs(x))  # never overflows
        out = Tensor._make(np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        (out,) = ctx.saved_tensors
        return grad * out * (1 - out)


class Relu(Function):
    node_name = "ReluBackward0"
    saved_names = ("result",)

    @staticmethod
    def forward(ctx: Any, a: Tensor) -> Tensor:
        out = Tensor._make(np.maximum(a._data, 0).astype(a._data.dtype, copy=False))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        (out,) = ctx.saved_tensors
        return grad * _const((out._data > 0).astype(grad._data.dtype))


class Clamp(Function):
    node_name = "ClampBackward1"
    saved_names = ("self",)

    @staticmethod
    def forward(ctx: Any, a: Tensor, lo: Any, hi: Any) -> Tensor:
        ctx.save_for_backward(a)
        ctx.lo, ctx.hi = lo, hi
        return Tensor._make(cast(np.clip(a._data, lo, hi), a, *(v for v in (lo, hi) if v is not None)))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None]:
        (a,) = ctx.saved_tensors
        keep = np.ones(a._data.shape, dtype=bool)
        if ctx.lo is not None:
            keep &= a._data >= ctx.lo
        if ctx.hi is not None:
            keep &= a._data <= ctx.hi
        return grad * _const(keep.astype(grad._data.dtype)), None, None


class ClampTensor(Function):
    """``clamp`` with tensor bounds: ``minimum(maximum(a, lo), hi)`` as one node, as in PyTorch."""

    node_name = "ClampBackward0"
    saved_names = ("self", "min", "max")

    @staticmethod
    def forward(ctx: Any, a: Tensor, lo: Tensor | None, hi: Tensor | None) -> Tensor:
        ctx.save_for_backward(a, lo, hi)
        out = a._data
        if lo is not None:
            out = _binary(np.maximum, Tensor._make(out), lo)
        if hi is not None:
            out = _binary(np.minimum, Tensor._make(out), hi)
        return Tensor._make(cast(np.asarray(out), *(t for t in (a, lo, hi) if t is not None)))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, Tensor | None, Tensor | None]:
        a, lo, hi = ctx.saved_tensors
        above_lo = a._data >= lo._data if lo is not None else np.bool_(True)
        below_hi = a._data <= hi._data if hi is not None else np.bool_(True)
        dt = grad._data.dtype
        grad_a = grad * _const((above_lo & below_hi).astype(dt))
        grad_lo = grad * _const((~above_lo).astype(dt)) if lo is not None else None
        grad_hi = grad * _const((~below_hi).astype(dt)) if hi is not None else None
        return grad_a, grad_lo, grad_hi


class Maximum(Function):
    node_name = "MaximumBackward0"
    saved_names = ("self", "other")

    @staticmethod
    def forward(ctx: Any, a: Tensor, b: Tensor) -> Tensor:
        ctx.save_for_backward(a, b)
        return Tensor._make(cast(_binary(np.maximum, a, b), a, b))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
        a, b = ctx.saved_tensors
        return _split_ties(grad, a._data > b._data, a._data == b._data)


class Minimum(Function):
    node_name = "MinimumBackward0"
    saved_names = ("self", "other")

    @staticmethod
    def forward(ctx: Any, a: Tensor, b: Tensor) -> Tensor:
        ctx.save_for_backward(a, b)
        return Tensor._make(cast(_binary(np.minimum, a, b), a, b))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
        a, b = ctx.saved_tensors
        return _split_ties(grad, a._data < b._data, a._data == b._data)


def _split_ties(grad: Tensor, a_wins: np.ndarray, tie: np.ndarray) -> tuple[Tensor, Tensor]:
    """Gradient to the winner; half to each side of a tie (as PyTorch does)."""
    dt = grad._data.dtype
    share_a = a_wins.astype(dt) + 0.5 * tie.astype(dt)
    share_b = (~a_wins & ~tie).astype(dt) + 0.5 * tie.astype(dt)
    return grad * _const(share_a), grad * _const(share_b)


class Where(Function):
    """``where(condition, a, b)``; the condition is data, not an input with a gradient."""

    node_name = "WhereBackward0"

    @staticmethod
    def forward(ctx: Any, condition: np.ndarray, a: Tensor, b: Tensor) -> Tensor:
        ctx.condition = condition
        return Tensor._make(cast(np.where(condition, a._data, b._data), a, b))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[None, Tensor, Tensor]:
        c = ctx.condition
        dt = grad._data.dtype
        return None, grad * _const(c.astype(dt)), grad * _const((~c).astype(dt))


class MaskedFill(Function):
    node_name = "MaskedFillBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor, mask: np.ndarray, value: Any) -> Tensor:
        ctx.mask = mask
        return Tensor._make(np.where(mask, np.asarray(value, dtype=a._data.dtype), a._data))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None]:
        return grad * _const((~ctx.mask).astype(grad._data.dtype)), None, None


class ToCopy(Function):
    node_name = "ToCopyBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor, dtype: np.dtype) -> Tensor:
        return Tensor._make(a._data.astype(dtype))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return grad, None  # the node casts it back to the input's dtype


class Clone(Function):
    node_name = "CloneBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor) -> Tensor:
        return Tensor._make(np.array(a._data, copy=True))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        return grad


def _floating(x: np.ndarray) -> np.ndarray:
    """Integer inputs of float functions (exp, log, ...) give the default float dtype."""
    return x if x.dtype.kind == "f" else x.astype(dtypes.get_default_dtype().np)


# ---------------------------------------------------------------------------- functional forms
def add(a: Any, b: Any) -> Tensor:
    return Add.apply(*binary_operands(a, b))


def _check_no_bool_subtraction(a: Any, b: Any) -> None:
    """PyTorch refuses ``-`` on bools (a mask is inverted with ``~``)."""
    def is_bool(x: Any) -> bool:
        return isinstance(x, (bool, np.bool_)) or isinstance(x, Tensor) and x._data.dtype == np.bool_

    if is_bool(a) and is_bool(b):
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
            "`logical_xor()` operator instead."
        )
    if is_bool(a) or is_bool(b):
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to "
            "invert a mask, use the `~` or `logical_not()` operator instead."
        )


def sub(a: Any, b: Any) -> Tensor:
    _check_no_bool_subtraction(a, b)
    return Sub.apply(*binary_operands(a, b))


def rsub(a: Tensor, other: Any) -> Tensor:
    """``other - a`` (PyTorch's ``rsub``)."""
    _check_no_bool_subtraction(other, a)
    if isinstance(other, (int, float, bool, np.number)):
        return Rsub.apply(a, other)
    return sub(as_operand(other, a._data.dtype), a)


def mul(a: Any, b: Any) -> Tensor:
    return Mul.apply(*binary_operands(a, b))


def div(a: Any, b: Any) -> Tensor:
    return Div.apply(*binary_operands(a, b))


def neg(a: Tensor) -> Tensor:
    return Neg.apply(a)


def reciprocal(a: Tensor) -> Tensor:
    return Reciprocal.apply(a)


def pow(a: Any, exponent: Any) -> Tensor:  # noqa: A001 - PyTorch's name
    if isinstance(exponent, Tensor) and result_dtype(a, exponent) == np.bool_:
        raise NotImplementedError('"pow" not implemented for \'Bool\'')
    if (isinstance(a, Tensor) and a._data.dtype.kind in "iu" and isinstance(exponent, (int, np.integer))
            and not isinstance(exponent, bool) and exponent < 0):
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    if not isinstance(a, Tensor):
        return RpowScalar.apply(a, exponent)
    if isinstance(exponent, Tensor):
        return PowTensor.apply(a, exponent)
    return PowScalar.apply(a, exponent)


def exp(a: Tensor) -> Tensor:
    return Exp.apply(a)


def log(a: Tensor) -> Tensor:
    return Log.apply(a)


def sqrt(a: Tensor) -> Tensor:
    return Sqrt.apply(a)


def abs(a: Tensor) -> Tensor:  # noqa: A001
    return Abs.apply(a)


def sin(a: Tensor) -> Tensor:
    return Sin.apply(a)


def cos(a: Tensor) -> Tensor:
    return Cos.apply(a)


def tanh(a: Tensor) -> Tensor:
    return Tanh.apply(a)


def sigmoid(a: Tensor) -> Tensor:
    return Sigmoid.apply(a)


def relu(a: Tensor) -> Tensor:
    return Relu.apply(a)


def clamp(a: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        lo = None if min is None else as_operand(min, a._data.dtype)
        hi = None if max is None else as_operand(max, a._data.dtype)
        return ClampTensor.apply(a, lo, hi)
    return Clamp.apply(a, min, max)


def maximum(a: Any, b: Any) -> Tensor:
    return Maximum.apply(*binary_operands(a, b))


def minimum(a: Any, b: Any) -> Tensor:
    return Minimum.apply(*binary_operands(a, b))


def where(condition: Any, a: Any, b: Any) -> Tensor:
    """Elements of ``a`` where ``condition`` holds, else of ``b`` (``torch.where``)."""
    cond = condition._data if isinstance(condition, Tensor) else np.asarray(condition)
    if cond.dtype != np.bool_:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with "
                           f"dtype {dtypes.scalar_type_name(cond.dtype)}")
    a, b = binary_operands(a, b)
    return Where.apply(cond, a, b)


def masked_fill(a: Tensor, mask: Any, value: Any) -> Tensor:
    m = mask._data if isinstance(mask, Tensor) else np.asarray(mask)
    if m.dtype != np.bool_:
        raise RuntimeError(
            f"masked_fill_ only supports boolean masks, but got mask with dtype "
            f"{dtypes.cpp_type_name(m.dtype)}"
        )
    if isinstance(value, Tensor):
        value = value.item()
    return MaskedFill.apply(a, m, value)


def to_dtype(a: Tensor, dtype: dtypes.dtype) -> Tensor:
    return ToCopy.apply(a, dtype.np)


def clone(a: Tensor) -> Tensor:
    return Clone.apply(a)


def non_differentiable(fn: Any, a: Any, b: Any = None) -> Tensor:
    """Comparisons and other ops with no gradient: plain result tensors."""
    if b is None:
        return Tensor._make(np.asarray(fn(a._data)))
    a, b = binary_operands(a, b)
    return Tensor._make(np.asarray(_binary(fn, a, b)))
