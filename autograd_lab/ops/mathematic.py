"""Pointwise arithmetic and functions: one ``Function`` per op, its derivative beside it.

Backward formulas are written with tensor operations, so that ``create_graph=True`` records the graph
of the derivative itself (second derivatives). A gradient is returned in the *output's* shape; the
node sums it back to each input's shape (:mod:`autograd_lab.function`), so broadcasting appears in
none of the formulas below.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import dtypes, grad_mode
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


class MaskedFillTensor(Function):
    """``masked_fill`` with a 0-d tensor as the value: the value gets the gradient of the filled places."""

    node_name = "MaskedFillBackward1"

    @staticmethod
    def forward(ctx: Any, a: Tensor, mask: np.ndarray, value: Tensor) -> Tensor:
        ctx.mask = mask
        return Tensor._make(np.where(mask, value._data.astype(a._data.dtype), a._data))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, Tensor]:
        keep = _const((~ctx.mask).astype(grad._data.dtype))
        filled = _const(np.broadcast_to(ctx.mask, grad._data.shape).astype(grad._data.dtype))
        return grad * keep, None, (grad * filled).sum()


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
def add(a: Any, other: Any, *, alpha: Any = 1) -> Tensor:
    """``a + alpha * other`` (``torch.add``)."""
    return Add.apply(*binary_operands(a, other if alpha == 1 else mul(other, alpha)))


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


def sub(a: Any, other: Any, *, alpha: Any = 1) -> Tensor:
    """``a - alpha * other`` (``torch.sub``)."""
    other = other if alpha == 1 else mul(other, alpha)
    _check_no_bool_subtraction(a, other)
    return Sub.apply(*binary_operands(a, other))


def rsub(a: Tensor, other: Any) -> Tensor:
    """``other - a`` (PyTorch's ``rsub``)."""
    _check_no_bool_subtraction(other, a)
    if isinstance(other, (int, float, bool, np.number)):
        return Rsub.apply(a, other)
    return sub(as_operand(other, a._data.dtype), a)


def mul(a: Any, other: Any) -> Tensor:
    return Mul.apply(*binary_operands(a, other))


def div(a: Any, other: Any) -> Tensor:
    """``a / other``, a floating point result (``torch.div``)."""
    return Div.apply(*binary_operands(a, other))


def rtruediv(a: Tensor, other: Any) -> Tensor:
    """``other / a``, recorded as PyTorch records it: ``a.reciprocal() * other``."""
    return mul(reciprocal(a), other)


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


def maximum(a: Any, other: Any) -> Tensor:
    return Maximum.apply(*binary_operands(a, other))


def minimum(a: Any, other: Any) -> Tensor:
    return Minimum.apply(*binary_operands(a, other))


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
        if value.ndim != 0:
            raise RuntimeError(
                "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                f"{value.ndim} dimension(s)."
            )
        return MaskedFillTensor.apply(a, m, value)
    return MaskedFill.apply(a, m, value)


def to_dtype(a: Tensor, dtype: dtypes.dtype) -> Tensor:
    """A copy of ``a`` in ``dtype`` (recorded as ``ToCopyBackward0``)."""
    return ToCopy.apply(a, dtype.np)


def to(a: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """``a.to(dtype)``, ``a.to('cpu')`` or ``a.to(other)``; ``a`` itself when nothing changes."""
    target = to_target_dtype(args, kwargs)
    if target is None or target is a.dtype:
        return a
    return to_dtype(a, target)


def to_target_dtype(args: tuple, kwargs: dict) -> dtypes.dtype | None:
    """The dtype that ``.to(*args, **kwargs)`` asks for, or None; a device must be the CPU."""
    target = kwargs.get("dtype")
    for arg in args:
        if isinstance(arg, dtypes.dtype):
            target = arg
        elif isinstance(arg, Tensor):
            target = arg.dtype
        elif isinstance(arg, (str, dtypes.device)):
            dtypes.device(str(arg))  # raises for a device this CPU-only library does not have
    if kwargs.get("device") is not None:
        dtypes.device(str(kwargs["device"]))
    return target


def converter(name: str) -> Any:
    """The method ``a.float()`` (``name="float32"``), ``a.long()``, ...: ``a.to(dtype)``."""
    target = getattr(dtypes, name)

    def method(a: Tensor) -> Tensor:
        return to(a, target)

    method.__doc__ = f"``a.to(torch.{name})``."
    return method


def tensor_type(a: Tensor, dtype: dtypes.dtype | None = None) -> Any:
    """``a.type()``: the legacy type name (``torch.FloatTensor``); ``a.type(dtype)``: ``a.to(dtype)``."""
    if dtype is None:
        return dtypes.legacy_type_name(a.dtype)
    return to(a, dtype)


def type_as(a: Tensor, other: Tensor) -> Tensor:
    """``a`` in ``other``'s dtype."""
    return to(a, other.dtype)


def clone(a: Tensor) -> Tensor:
    """A copy of ``a`` with its own memory (``torch.clone``)."""
    return Clone.apply(a)


def contiguous(a: Tensor) -> Tensor:
    """``a`` itself if its elements are in row-major order in memory, else a copy that is."""
    if a._data.flags.c_contiguous:
        return a
    return Clone.apply(a)


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


def non_differentiable(fn: Any, a: Any, b: Any = None) -> Tensor:
    """Comparisons and other ops with no gradient: plain result tensors."""
    if b is None:
        return Tensor._make(np.asarray(fn(a._data)))
    a, b = binary_operands(a, b)
    return Tensor._make(np.asarray(_binary(fn, a, b)))


def bitwise_not(a: Tensor) -> Tensor:
    """``~a``: logical not of a bool tensor, bitwise not of an integer one (``torch.bitwise_not``)."""
    return non_differentiable(np.logical_not if a._data.dtype == np.bool_ else np.invert, a)


# ============================================================================ more pointwise functions
_SQRT_PI = math.sqrt(math.pi)
_LN2, _LN10 = math.log(2.0), math.log(10.0)
_erf64 = np.frompyfunc(math.erf, 1, 1)
_erfc64 = np.frompyfunc(math.erfc, 1, 1)


def _erf(x: np.ndarray) -> np.ndarray:
    return np.asarray(_erf64(x.astype(np.float64)), dtype=np.float64).astype(x.dtype)


def _erfc(x: np.ndarray) -> np.ndarray:
    return np.asarray(_erfc64(x.astype(np.float64)), dtype=np.float64).astype(x.dtype)


def _erfinv(x: np.ndarray) -> np.ndarray:
    """The inverse of erf: M. Giles' approximation refined by Newton steps on erf (erfc near +-1)."""
    y = np.asarray(x, dtype=np.float64)
    ay = np.abs(y)
    inside = ay < 1
    a = np.where(inside, ay, 0.0)
    w = -np.log((1.0 - a) * (1.0 + a))
    small = w < 5.0
    ws = w - 2.5
    p_small = 2.81022636e-08
    for c in (3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
              -0.00417768164, 0.246640727, 1.50140941):
        p_small = c + p_small * ws
    wl = np.sqrt(w) - 3.0
    p_large = -0.000200214257
    for c in (0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
              0.00943887047, 1.00167406, 2.83297682):
        p_large = c + p_large * wl
    r = np.where(small, p_small, p_large) * a
    near_one = a > 0.5
    for _ in range(3):  # Newton: r -= (erf(r) - a) / erf'(r); the residual from erfc where erf ~ 1
        residual = np.where(near_one, (1.0 - a) - _erfc(r), _erf(r) - a)
        r = r - residual / (2.0 / _SQRT_PI * np.exp(-r * r))
    out = np.where(inside, r, np.where(ay == 1, np.inf, np.nan)) * np.sign(y)
    out = np.where(y == 0, y, out)  # keeps the sign of -0.0
    return out.astype(x.dtype)


class _Unary(Function):
    """A floating point function of one tensor (integer and bool inputs give the default dtype).

    ``saves``: what backward reads, PyTorch's choice: the input ("self"), the result ("result"),
    or nothing ("").
    """

    saves = "self"

    @staticmethod
    def compute(x: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    @staticmethod
    def derivative(grad: Tensor, saved: Tensor) -> Tensor:
        raise NotImplementedError

    @classmethod
    def forward(cls, ctx: Any, a: Tensor) -> Tensor:
        x = _floating(a._data)
        with _quiet():
            out = Tensor._make(np.asarray(cls.compute(x)).astype(x.dtype, copy=False))
        if cls.saves:
            ctx.save_for_backward(a if cls.saves == "self" else out)
        return out

    @classmethod
    def backward(cls, ctx: Any, grad: Tensor) -> Tensor:
        (saved,) = ctx.saved_tensors if cls.saves else (None,)
        return cls.derivative(grad, saved)


def _unary(name: str, node: str, fn: Any, deriv: Any, saves: str = "self") -> type[_Unary]:
    cls = type(name, (_Unary,), {
        "node_name": node, "saves": saves, "saved_names": (saves,) if saves else (),
        "compute": staticmethod(fn), "derivative": staticmethod(deriv), "__module__": __name__,
    })
    return cls


Erf = _unary("Erf", "ErfBackward0", _erf, lambda g, x: g * (2.0 / _SQRT_PI) * exp(-(x * x)))
Erfc = _unary("Erfc", "ErfcBackward0", _erfc, lambda g, x: g * (-2.0 / _SQRT_PI) * exp(-(x * x)))
Erfinv = _unary("Erfinv", "ErfinvBackward0", _erfinv,
                lambda g, x: g * (0.5 * _SQRT_PI) * exp(erfinv(x) ** 2))
Log1p = _unary("Log1p", "Log1PBackward0", np.log1p, lambda g, x: g / (x + 1))
Expm1 = _unary("Expm1", "Expm1Backward0", np.expm1, lambda g, y: g * (y + 1), "result")
Rsqrt = _unary("Rsqrt", "RsqrtBackward0", lambda x: 1 / np.sqrt(x), lambda g, y: -0.5 * g * y ** 3, "result")
Exp2 = _unary("Exp2", "Exp2Backward0", np.exp2, lambda g, y: g * y * _LN2, "result")
Log2 = _unary("Log2", "Log2Backward0", np.log2, lambda g, x: g / (x * _LN2))
Log10 = _unary("Log10", "Log10Backward0", np.log10, lambda g, x: g / (x * _LN10))
Tan = _unary("Tan", "TanBackward0", np.tan, lambda g, y: g * (1 + y * y), "result")
Asin = _unary("Asin", "AsinBackward0", np.arcsin, lambda g, x: g * rsqrt(1 - x * x))
Acos = _unary("Acos", "AcosBackward0", np.arccos, lambda g, x: -g * rsqrt(1 - x * x))
Atan = _unary("Atan", "AtanBackward0", np.arctan, lambda g, x: g / (x * x + 1))
Sinh = _unary("Sinh", "SinhBackward0", np.sinh, lambda g, x: g * cosh(x))
Cosh = _unary("Cosh", "CoshBackward0", np.cosh, lambda g, x: g * sinh(x))
Asinh = _unary("Asinh", "AsinhBackward0", np.arcsinh, lambda g, x: g * rsqrt(x * x + 1))
Acosh = _unary("Acosh", "AcoshBackward0", np.arccosh, lambda g, x: g * rsqrt((x - 1) * (x + 1)))
Atanh = _unary("Atanh", "AtanhBackward0", np.arctanh, lambda g, x: g / (1 - x * x))


def _zeros_like(grad: Tensor) -> Tensor:
    return _const(np.zeros_like(grad._data))


class _Rounding(Function):
    """floor, ceil, round, trunc, sign: piecewise constant, so the gradient is zero.

    Integer inputs are returned as they are (a copy), as in PyTorch."""

    compute = staticmethod(np.floor)

    @classmethod
    def forward(cls, ctx: Any, a: Tensor, *args: Any) -> Tensor:
        if a._data.dtype.kind in "iu":
            return Tensor._make(np.array(a._data, copy=True))
        return Tensor._make(np.asarray(cls.compute(a._data, *args)).astype(a._data.dtype, copy=False))

    @staticmethod
    def backward(ctx: Any, grad: Tensor, *_: Any) -> Any:
        return (_zeros_like(grad),) + (None,) * (ctx._num_inputs - 1)


class Floor(_Rounding):
    node_name = "FloorBackward0"
    compute = staticmethod(np.floor)


class Ceil(_Rounding):
    node_name = "CeilBackward0"
    compute = staticmethod(np.ceil)


class Round(_Rounding):
    node_name = "RoundBackward0"
    compute = staticmethod(np.rint)  # halves to even, as PyTorch


class RoundDecimals(_Rounding):
    node_name = "RoundBackward1"
    compute = staticmethod(lambda x, decimals: np.round(x, decimals))


class Trunc(_Rounding):
    node_name = "TruncBackward0"
    compute = staticmethod(np.trunc)


class Sign(_Rounding):
    node_name = "SignBackward0"

    @classmethod
    def forward(cls, ctx: Any, a: Tensor) -> Tensor:
        x = a._data
        if x.dtype == np.bool_:
            return Tensor._make(np.array(x, copy=True))
        out = np.sign(x)
        if x.dtype.kind == "f":
            out = np.where(np.isnan(x), 0, out).astype(x.dtype)  # PyTorch: sign(nan) is 0
        return Tensor._make(np.asarray(out))


class Frac(Function):
    node_name = "FracBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor) -> Tensor:
        with _quiet():  # frac(inf) is nan
            return Tensor._make(np.asarray(a._data - np.trunc(a._data)))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        return grad


class NanToNum(Function):
    node_name = "NanToNumBackward0"
    saved_names = ("self",)

    @staticmethod
    def forward(ctx: Any, a: Tensor, nan: float, posinf: Any, neginf: Any) -> Tensor:
        ctx.save_for_backward(a)
        x = a._data
        if x.dtype.kind != "f":
            return Tensor._make(np.array(x, copy=True))
        info = np.finfo(x.dtype)
        with _quiet():
            out = np.nan_to_num(x, nan=nan, posinf=info.max if posinf is None else posinf,
                                neginf=info.min if neginf is None else neginf)
        return Tensor._make(np.asarray(out).astype(x.dtype, copy=False))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None, None]:
        (a,) = ctx.saved_tensors
        return grad * _const(np.isfinite(a._data).astype(grad._data.dtype)), None, None, None


def _needing_grad(*tensors: Tensor) -> tuple[Tensor, ...]:
    """PyTorch's NotImplemented node has edges to the inputs that require grad only."""
    return tuple(t for t in tensors if t.requires_grad)


class NotImplementedBackward(Function):
    """The node PyTorch records for ops without a derivative: backward through it fails."""

    node_name = "NotImplemented"

    @staticmethod
    def forward(ctx: Any, name: str, out: np.ndarray, *inputs: Tensor) -> Tensor:
        ctx.op_name = name
        return Tensor._make(out)

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> Any:
        raise RuntimeError(f"derivative for aten::{ctx.op_name} is not implemented")


# ---------------------------------------------------------------------------- binary functions
def _need_tensors(name: str, method: bool, *named: tuple[str, Any]) -> None:
    """PyTorch's argument parser: these arguments must be tensors (positions count from 1 for
    ``torch.fn(input, ...)``, from 1 after ``self`` for methods)."""
    for pos, (arg, value) in enumerate(named, start=0 if method else 1):
        if method and pos == 0:
            continue
        if not isinstance(value, Tensor):
            raise TypeError(f"{name}(): argument '{arg}' (position {pos}) must be Tensor, not "
                            f"{type(value).__name__}")


def _invalid_combination(name: str, args: tuple, signatures: list[str]) -> TypeError:
    got = ", ".join("Tensor" if isinstance(a, Tensor) else type(a).__name__ for a in args)
    lines = "".join(f" * ({s})\n" for s in signatures)
    return TypeError(f"{name}() received an invalid combination of arguments - got ({got}), but expected "
                     f"one of:\n{lines}")


def _not_implemented(kernel: str, dtype: np.dtype) -> NotImplementedError:
    return NotImplementedError(f'"{kernel}" not implemented for \'{dtypes.scalar_type_name(dtype)}\'')


def _check_broadcast(*tensors: Tensor) -> tuple[int, ...]:
    shape: tuple[int, ...] = ()
    for t in tensors:
        shape = broadcast_shape(shape, t._data.shape)
    return shape


def _float_result(*operands: Any) -> np.dtype:
    """The promoted dtype, the default float dtype when that is integral (atan2's rule)."""
    dt = result_dtype(*operands)
    return dt if dt.kind == "f" else dtypes.get_default_dtype().np


class Atan2(Function):
    node_name = "Atan2Backward0"
    saved_names = ("self", "other")

    @staticmethod
    def forward(ctx: Any, a: Tensor, b: Tensor) -> Tensor:
        ctx.save_for_backward(a, b)
        dt = _float_result(a, b)
        return Tensor._make(np.asarray(np.arctan2(a._data.astype(dt), b._data.astype(dt))))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
        a, b = ctx.saved_tensors
        r = grad / (a * a + b * b)
        return r * b, -r * a


class Hypot(Function):
    node_name = "HypotBackward0"
    saved_names = ("self", "other", "result")

    @staticmethod
    def forward(ctx: Any, a: Tensor, b: Tensor) -> Tensor:
        dt = result_dtype(a, b)
        out = Tensor._make(np.asarray(np.hypot(a._data.astype(dt), b._data.astype(dt))))
        need_a, need_b = ctx.needs_input_grad
        ctx.save_for_backward(a if need_a else None, b if need_b else None, out)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        a, b, out = ctx.saved_tensors
        r = grad / out
        return (r * a if a is not None else None), (r * b if b is not None else None)


class Logaddexp(Function):
    node_name = "LogaddexpBackward0"
    saved_names = ("self", "other")

    @staticmethod
    def forward(ctx: Any, a: Tensor, b: Tensor) -> Tensor:
        ctx.save_for_backward(a, b)
        dt = result_dtype(a, b)
        with _quiet():
            return Tensor._make(np.asarray(np.logaddexp(a._data.astype(dt), b._data.astype(dt))))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
        a, b = ctx.saved_tensors
        return grad / (exp(b - a) + 1), grad / (exp(a - b) + 1)


def _lerp_values(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """PyTorch's formula: from the nearer end, so lerp(a, b, 1) is exactly b."""
    d = y - x
    return np.where(np.abs(w) < 0.5, x + w * d, y - d * (1 - w))


class LerpScalar(Function):
    node_name = "LerpBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor, end: Tensor, weight: Any) -> Tensor:
        ctx.weight = weight
        dt = a._data.dtype
        w = np.asarray(weight, dtype=dt)
        return Tensor._make(np.asarray(_lerp_values(a._data, end._data, w)).astype(dt, copy=False))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, Tensor, None]:
        w = ctx.weight
        return grad * (1 - w), grad * w, None


class LerpTensor(Function):
    node_name = "LerpBackward1"
    saved_names = ("self", "end", "weight")

    @staticmethod
    def forward(ctx: Any, a: Tensor, end: Tensor, weight: Tensor) -> Tensor:
        need_w = ctx.needs_input_grad[2]
        ctx.save_for_backward(a if need_w else None, end if need_w else None, weight)
        dt = a._data.dtype
        out = _lerp_values(a._data, end._data, weight._data.astype(dt))
        return Tensor._make(np.asarray(out).astype(dt, copy=False))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        a, end, w = ctx.saved_tensors
        return grad * (1 - w), grad * w, (grad * (end - a) if a is not None else None)


class Addcmul(Function):
    node_name = "AddcmulBackward0"
    saved_names = ("tensor1", "tensor2")

    @staticmethod
    def forward(ctx: Any, a: Tensor, t1: Tensor, t2: Tensor, value: Any) -> Tensor:
        need_t1, need_t2 = ctx.needs_input_grad[1:3]
        ctx.save_for_backward(t1 if need_t2 else None, t2 if need_t1 else None)
        dt = result_dtype(a, t1, t2)
        ctx.value = value
        v = np.asarray(value).astype(dt)
        out = a._data.astype(dt) + v * (t1._data.astype(dt) * t2._data.astype(dt))
        return Tensor._make(np.asarray(out).astype(dt, copy=False))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, Tensor, Tensor, None]:
        t1, t2 = ctx.saved_tensors
        v = ctx.value
        grad_t1 = grad * t2 * v if t2 is not None else None
        return grad, grad_t1, (grad * t1 * v if t1 is not None else None), None


class Addcdiv(Function):
    node_name = "AddcdivBackward0"
    saved_names = ("tensor1", "tensor2")

    @staticmethod
    def forward(ctx: Any, a: Tensor, t1: Tensor, t2: Tensor, value: Any) -> Tensor:
        need_t1, need_t2 = ctx.needs_input_grad[1:3]
        ctx.save_for_backward(t1 if need_t2 else None, t2)  # PyTorch keeps tensor2 in any case
        dt = result_dtype(a, t1, t2)
        ctx.value = value
        v = np.asarray(value).astype(dt)
        with _quiet():
            out = a._data.astype(dt) + v * (t1._data.astype(dt) / t2._data.astype(dt))
        return Tensor._make(np.asarray(out).astype(dt, copy=False))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, Tensor, Tensor, None]:
        t1, t2 = ctx.saved_tensors
        v = ctx.value
        grad_t1 = grad * v / t2 if ctx.needs_input_grad[1] else None
        grad_t2 = -grad * v * t1 / (t2 * t2) if t1 is not None else None
        return grad, grad_t1, grad_t2, None


def _fmod_values(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    if x.dtype.kind in "iu" and np.any(y == 0):
        raise RuntimeError("ZeroDivisionError")
    with _quiet():
        return np.fmod(x, y)


def _remainder_values(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """PyTorch's remainder: fmod, moved by y when the signs differ (the result has y's sign)."""
    if x.dtype.kind in "iu":
        if np.any(y == 0):
            raise RuntimeError("ZeroDivisionError")
        return np.remainder(x, y)
    with _quiet():
        mod = np.fmod(x, y)
        return np.where((mod != 0) & ((y < 0) != (mod < 0)), mod + y, mod)


def _floor_divide_values(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    if x.dtype.kind in "iu":
        if np.any(y == 0):
            raise RuntimeError("ZeroDivisionError")
        return np.floor_divide(x, y)
    with _quiet():
        return np.where(y == 0, x / y, np.floor_divide(x, y))


class _ModTensor(Function):
    """remainder/fmod with a tensor divisor: d/d(other) is -quotient (floored or truncated)."""

    saved_names = ("self", "other")
    values = staticmethod(_fmod_values)
    quotient = staticmethod(np.trunc)

    @classmethod
    def forward(cls, ctx: Any, a: Tensor, b: Tensor) -> Tensor:
        need_b = ctx.needs_input_grad[1]
        ctx.save_for_backward(a if need_b else None, b if need_b else None)
        dt = result_dtype(a, b)
        return Tensor._make(np.asarray(cls.values(a._data.astype(dt), b._data.astype(dt))))

    @classmethod
    def backward(cls, ctx: Any, grad: Tensor) -> tuple[Tensor, Tensor | None]:
        a, b = ctx.saved_tensors
        if a is None:
            return grad, None
        with _quiet():
            q = cls.quotient(a._data / b._data).astype(grad._data.dtype)
        return grad, -grad * _const(q)


class _ModScalar(Function):
    values = staticmethod(_fmod_values)

    @classmethod
    def forward(cls, ctx: Any, a: Tensor, number: Any) -> Tensor:
        dt = result_dtype(a, number)
        return Tensor._make(np.asarray(cls.values(a._data.astype(dt), np.asarray(number).astype(dt))))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return grad, None


class RemainderTensor(_ModTensor):
    node_name = "RemainderBackward1"
    values = staticmethod(_remainder_values)
    quotient = staticmethod(np.floor)


class RemainderScalar(_ModScalar):
    node_name = "RemainderBackward0"
    values = staticmethod(_remainder_values)


class FmodTensor(_ModTensor):
    node_name = "FmodBackward1"
    values = staticmethod(_fmod_values)
    quotient = staticmethod(np.trunc)


class FmodScalar(_ModScalar):
    node_name = "FmodBackward0"
    values = staticmethod(_fmod_values)


class ClampMinScalar(Function):
    node_name = "ClampMinBackward0"
    saved_names = ("self",)
    keep = staticmethod(np.greater_equal)
    combine = staticmethod(np.maximum)

    @classmethod
    def forward(cls, ctx: Any, a: Tensor, bound: Any) -> Tensor:
        ctx.save_for_backward(a)
        ctx.bound = bound
        dt = result_dtype(a, bound)
        return Tensor._make(np.asarray(cls.combine(a._data.astype(dt), np.asarray(bound).astype(dt))))

    @classmethod
    def backward(cls, ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        (a,) = ctx.saved_tensors
        return grad * _const(cls.keep(a._data, ctx.bound).astype(grad._data.dtype)), None


class ClampMaxScalar(ClampMinScalar):
    node_name = "ClampMaxBackward0"
    saved_names = ("self",)
    keep = staticmethod(np.less_equal)
    combine = staticmethod(np.minimum)


class ClampMinTensor(Function):
    node_name = "ClampMinBackward1"
    saved_names = ("self", "min")
    keep = staticmethod(np.greater_equal)
    combine = staticmethod(np.maximum)

    @classmethod
    def forward(cls, ctx: Any, a: Tensor, bound: Tensor) -> Tensor:
        ctx.save_for_backward(a, bound)
        dt = result_dtype(a, bound)
        return Tensor._make(np.asarray(cls.combine(a._data.astype(dt), bound._data.astype(dt))))

    @classmethod
    def backward(cls, ctx: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
        a, bound = ctx.saved_tensors
        keep = np.broadcast_to(cls.keep(a._data, bound._data), grad._data.shape)
        dt = grad._data.dtype
        return grad * _const(keep.astype(dt)), grad * _const((~keep).astype(dt))


class ClampMaxTensor(ClampMinTensor):
    node_name = "ClampMaxBackward1"
    saved_names = ("self", "max")
    keep = staticmethod(np.less_equal)
    combine = staticmethod(np.minimum)


# ---------------------------------------------------------------------------- their functional forms
def erf(a: Tensor) -> Tensor:
    return Erf.apply(a)


def erfc(a: Tensor) -> Tensor:
    return Erfc.apply(a)


def erfinv(a: Tensor) -> Tensor:
    return Erfinv.apply(a)


def log1p(a: Tensor) -> Tensor:
    return Log1p.apply(a)


def expm1(a: Tensor) -> Tensor:
    return Expm1.apply(a)


def rsqrt(a: Tensor) -> Tensor:
    return Rsqrt.apply(a)


def exp2(a: Tensor) -> Tensor:
    return Exp2.apply(a)


def log2(a: Tensor) -> Tensor:
    return Log2.apply(a)


def log10(a: Tensor) -> Tensor:
    return Log10.apply(a)


def tan(a: Tensor) -> Tensor:
    return Tan.apply(a)


def asin(a: Tensor) -> Tensor:
    return Asin.apply(a)


def acos(a: Tensor) -> Tensor:
    return Acos.apply(a)


def atan(a: Tensor) -> Tensor:
    return Atan.apply(a)


def sinh(a: Tensor) -> Tensor:
    return Sinh.apply(a)


def cosh(a: Tensor) -> Tensor:
    return Cosh.apply(a)


def asinh(a: Tensor) -> Tensor:
    return Asinh.apply(a)


def acosh(a: Tensor) -> Tensor:
    return Acosh.apply(a)


def atanh(a: Tensor) -> Tensor:
    return Atanh.apply(a)


arcsin, arccos, arctan, arcsinh, arccosh, arctanh = asin, acos, atan, asinh, acosh, atanh


def square(a: Tensor) -> Tensor:
    """``a ** 2`` (PowBackward0, as in PyTorch); bools square to int64."""
    if a._data.dtype == np.bool_:
        a = Tensor._make(a._data.astype(np.int64))
    return pow(a, 2)


def _rounding(cls: type[_Rounding], kernel: str, a: Tensor) -> Tensor:
    if a._data.dtype == np.bool_:
        raise _not_implemented(kernel, a._data.dtype)
    return cls.apply(a)


def floor(a: Tensor) -> Tensor:
    return _rounding(Floor, "floor_vml_cpu", a)


def ceil(a: Tensor) -> Tensor:
    return _rounding(Ceil, "ceil_vml_cpu", a)


def trunc(a: Tensor) -> Tensor:
    return _rounding(Trunc, "trunc_vml_cpu", a)


fix = trunc


def round(a: Tensor, decimals: int = 0) -> Tensor:  # noqa: A001 - PyTorch's name
    if decimals == 0:
        return _rounding(Round, "round_vml_cpu", a)
    if a._data.dtype.kind != "f":
        raise _not_implemented("round_cpu", a._data.dtype)
    return RoundDecimals.apply(a, int(decimals))


def sign(a: Tensor) -> Tensor:
    return Sign.apply(a)


def frac(a: Tensor) -> Tensor:
    if a._data.dtype.kind != "f":
        raise _not_implemented("frac_cpu", a._data.dtype)
    return Frac.apply(a)


def nan_to_num(a: Tensor, nan: float = 0.0, posinf: float | None = None,
               neginf: float | None = None) -> Tensor:
    return NanToNum.apply(a, nan, posinf, neginf)


def logical_not(a: Tensor) -> Tensor:
    return Tensor._make(np.logical_not(a._data))


def isnan(a: Tensor) -> Tensor:
    return Tensor._make(np.isnan(a._data) if a._data.dtype.kind == "f" else np.zeros(a._data.shape, bool))


def isinf(a: Tensor) -> Tensor:
    return Tensor._make(np.isinf(a._data) if a._data.dtype.kind == "f" else np.zeros(a._data.shape, bool))


def isfinite(a: Tensor) -> Tensor:
    return Tensor._make(np.isfinite(a._data) if a._data.dtype.kind == "f" else np.ones(a._data.shape, bool))


def atan2(a: Tensor, other: Tensor, *, _method: bool = False) -> Tensor:
    _need_tensors("atan2", _method, ("input", a), ("other", other))
    _check_broadcast(a, other)
    return Atan2.apply(a, other)


arctan2 = atan2


def hypot(a: Tensor, other: Tensor, *, _method: bool = False) -> Tensor:
    _need_tensors("hypot", _method, ("input", a), ("other", other))
    _check_broadcast(a, other)
    dt = result_dtype(a, other)
    if dt.kind != "f":
        raise _not_implemented("hypot_cpu", dt)
    return Hypot.apply(a, other)


def logaddexp(a: Tensor, other: Tensor, *, _method: bool = False) -> Tensor:
    _need_tensors("logaddexp", _method, ("input", a), ("other", other))
    _check_broadcast(a, other)
    dt = result_dtype(a, other)
    if dt.kind != "f":
        raise _not_implemented("logaddexp_cpu", dt)
    return Logaddexp.apply(a, other)


def lerp(a: Tensor, end: Tensor, weight: Any) -> Tensor:
    if not isinstance(a, Tensor) or not isinstance(end, Tensor) or not isinstance(
            weight, (Tensor, int, float, np.number)):
        raise _invalid_combination("lerp", (a, end, weight), [
            "Tensor input, Tensor end, Tensor weight, *, Tensor out = None",
            "Tensor input, Tensor end, Number weight, *, Tensor out = None"])
    dt = a._data.dtype
    if end._data.dtype != dt:
        raise RuntimeError(f"expected dtype {dtypes.cpp_type_name(dt)} for `end` but got dtype "
                           f"{dtypes.cpp_type_name(end._data.dtype)}")
    if isinstance(weight, Tensor):
        if weight._data.ndim and weight._data.dtype != dt:
            raise RuntimeError(f"expected dtype {dtypes.cpp_type_name(dt)} for `weight` but got dtype "
                               f"{dtypes.cpp_type_name(weight._data.dtype)}")
        _check_broadcast(a, end, weight)
        if dt.kind != "f":
            raise _not_implemented("lerp_kernel_tensor", dt)
        return LerpTensor.apply(a, end, weight)
    _check_broadcast(a, end)
    if dt.kind != "f":
        raise _not_implemented("lerp_kernel_scalar", dt)
    return LerpScalar.apply(a, end, weight)


def _addc(name: str, a: Any, t1: Any, t2: Any, value: Any) -> None:
    _need_tensors(name, False, ("input", a), ("tensor1", t1), ("tensor2", t2))
    _check_broadcast(a, t1, t2)
    if result_dtype(a, t1, t2) == np.bool_:
        raise _not_implemented(f"{name}_cpu_out", np.dtype(np.bool_))


def addcmul(a: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
    _addc("addcmul", a, tensor1, tensor2, value)
    return Addcmul.apply(a, tensor1, tensor2, value)


_ADDCDIV_INTEGER_MESSAGE = (
    "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform "
    "a true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as "
    "(input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as "
    "(input + value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter "
    "implementation: (input + value * tensor1 / tensor2), for all dtypes."
)


def addcdiv(a: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
    _need_tensors("addcdiv", False, ("input", a), ("tensor1", tensor1), ("tensor2", tensor2))
    if tensor1._data.dtype.kind in "biu" and tensor2._data.dtype.kind in "biu":
        raise RuntimeError(_ADDCDIV_INTEGER_MESSAGE)
    _check_broadcast(a, tensor1, tensor2)
    return Addcdiv.apply(a, tensor1, tensor2, value)


def _no_bool(kernel: str, *operands: Any) -> None:
    dt = result_dtype(*operands)
    if dt == np.bool_:
        raise _not_implemented(kernel, dt)


def remainder(a: Any, other: Any) -> Tensor:
    _no_bool("remainder_cpu", a, other)
    if not isinstance(a, Tensor):  # remainder(number, tensor): no derivative in PyTorch
        dt = result_dtype(a, other)
        out = _remainder_values(np.asarray(a).astype(dt), other._data.astype(dt))
        if dt.kind != "f" or not (grad_mode.is_grad_enabled() and other.requires_grad):
            return Tensor._make(np.asarray(out))
        return NotImplementedBackward.apply("remainder", np.asarray(out), other)
    if isinstance(other, Tensor):
        _check_broadcast(a, other)
        return RemainderTensor.apply(a, other)
    return RemainderScalar.apply(a, other)


def fmod(a: Any, other: Any) -> Tensor:
    if not isinstance(a, Tensor) or not isinstance(other, (Tensor, int, float, np.number)):
        raise _invalid_combination("fmod", (a, other), [
            "Tensor input, Tensor other, *, Tensor out = None",
            "Tensor input, Number other, *, Tensor out = None"])
    _no_bool("fmod_cpu", a, other)
    if isinstance(other, Tensor):
        _check_broadcast(a, other)
        return FmodTensor.apply(a, other)
    return FmodScalar.apply(a, other)


def floor_divide(a: Any, other: Any, *, _op: str = "floor_divide") -> Tensor:
    """``a // other`` (rounded down); PyTorch records it without a derivative."""
    _no_bool("div_floor_cpu", a, other)
    x, y = binary_operands(a, other)
    _check_broadcast(x, y)
    dt = result_dtype(a, other)
    out = np.asarray(_floor_divide_values(x._data.astype(dt), y._data.astype(dt)))
    return NotImplementedBackward.apply(_op, out, *_needing_grad(x, y))


def heaviside(a: Tensor, values: Tensor, *, _method: bool = False, _op: str = "heaviside") -> Tensor:
    _need_tensors("heaviside", _method, ("input", a), ("values", values))
    _check_broadcast(a, values)
    if a._data.dtype != values._data.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    x = a._data
    out = np.where(x == 0, values._data, x > 0).astype(x.dtype)
    return NotImplementedBackward.apply(_op, np.asarray(out), *_needing_grad(a, values))


def _logical(name: str, fn: Any, a: Tensor, other: Tensor, method: bool) -> Tensor:
    _need_tensors(name, method, ("input", a), ("other", other))
    _check_broadcast(a, other)
    return Tensor._make(np.asarray(fn(a._data, other._data)))


def logical_and(a: Tensor, other: Tensor, *, _method: bool = False) -> Tensor:
    return _logical("logical_and", np.logical_and, a, other, _method)


def logical_or(a: Tensor, other: Tensor, *, _method: bool = False) -> Tensor:
    return _logical("logical_or", np.logical_or, a, other, _method)


def logical_xor(a: Tensor, other: Tensor, *, _method: bool = False) -> Tensor:
    return _logical("logical_xor", np.logical_xor, a, other, _method)


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


def clamp_min(a: Tensor, min: Any) -> Tensor:  # noqa: A002 - PyTorch's name
    return _clamp_one("clamp_min", ClampMinScalar, ClampMinTensor, a, min)


def clamp_max(a: Tensor, max: Any) -> Tensor:  # noqa: A002 - PyTorch's name
    return _clamp_one("clamp_max", ClampMaxScalar, ClampMaxTensor, a, max)


class _InplaceWithoutDerivative(Function):
    """``acosh_``, ``asinh_``, ``atanh_``: PyTorch records them (``AcoshBackward1``) but has no
    derivative for the in-place version, so backward through them fails."""

    op = "acosh"
    compute = staticmethod(np.arccosh)

    @classmethod
    def forward(cls, ctx: Any, a: Tensor) -> Tensor:
        x = _floating(a._data)
        with _quiet():
            return Tensor._make(np.asarray(cls.compute(x)).astype(x.dtype, copy=False))

    @classmethod
    def backward(cls, ctx: Any, grad: Tensor) -> Tensor:
        raise NotImplementedError(f"the derivative for 'inplace version of {cls.op}' is not implemented.")


class AcoshInplace(_InplaceWithoutDerivative):
    node_name = "AcoshBackward1"
    op = "acosh"
    compute = staticmethod(np.arccosh)


class AsinhInplace(_InplaceWithoutDerivative):
    node_name = "AsinhBackward1"
    op = "asinh"
    compute = staticmethod(np.arcsinh)


class AtanhInplace(_InplaceWithoutDerivative):
    node_name = "AtanhBackward1"
    op = "atanh"
    compute = staticmethod(np.arctanh)


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
