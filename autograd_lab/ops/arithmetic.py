"""Arithmetic: ``+ - * /``, powers, remainders, ``lerp``, ``addcmul``; one ``Function`` per op,
its public function right below it.

Backward formulas are written with tensor operations, so that ``create_graph=True`` records the graph
of the derivative itself (second derivatives). A gradient is returned in the *output's* shape; the
node sums it back to each input's shape (:mod:`autograd_lab.function`), so broadcasting appears in
none of the formulas below.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes, grad_mode
from .. import tensor as _tensor
from ..dtypes import quiet as _quiet
from ..dtypes import quiet_off, quiet_on
from ..function import SAVES_NOTHING, Function, fast_unary, record_binary
from ..tensor import INFERENCE_MODE, Tensor
from .comparison import where
from .pointwise import NotImplementedBackward, log
from .promotion import (
    _binary,
    _check_broadcast,
    _const,
    _invalid_combination,
    _need_tensors,
    _needing_grad,
    _not_implemented,
    as_operand,
    binary_operands,
    cast,
    check_int,
    fused_multiply_add,
    iterator_layout,
    result_dtype,
)
from .scalar import MulNumber, SubNumber

# ---------------------------------------------------------------------------- + - * /
_GRAD = grad_mode._state


def _fast(cls: type[Function], ufunc: np.ufunc, a: Any, b: Any, nargs: int = 2) -> Tensor | None:
    """``a op b`` on the fast path, or None where it does not apply: ``a`` a floating point tensor, no
    view, laid out by rows; ``b`` a Python number, or such a tensor of ``a``'s dtype and shape (or of its
    last dims, a bias). Recorded by :func:`record_binary` where grad mode is on and an operand requires
    grad, else the kernel alone (the optimizer's ``lr * p.grad``). Everything else (promotion, other
    layouts, broadcasting errors, inference mode) takes ``Function.apply``."""
    # (inference mode: its thread-local flag read only while some thread has a block open)
    if type(a) is not Tensor or a._view_meta is not None or (
            _tensor.open_inference_blocks and INFERENCE_MODE.enabled):
        return None
    x = a._data
    dt = x.dtype  # (each NumPy attribute read once: a read costs as much as a Python call)
    if not (dt is _FLOAT32 or dt is _FLOAT64 or dt.kind == "f") or not x.flags.c_contiguous:
        return None
    need_a = a._requires_grad or a._grad_fn is not None
    if type(b) is Tensor:
        if b._view_meta is not None:
            return None
        need_b = b._requires_grad or b._grad_fn is not None
        y = b._data
        if y.dtype is not dt or not y.flags.c_contiguous:
            return None
        shape, b_shape = x.shape, y.shape
        if b_shape != shape and not (b_shape == shape[len(shape) - len(b_shape):] and 1 not in shape):
            return None
    elif type(b) is float or type(b) is int and -2**63 <= b < 2**64:  # (beyond 64 bits: PyTorch's error)
        need_b = False
        y = None  # NumPy takes a Python number in the array's dtype, as PyTorch a wrapped number
    else:
        return None
    token = quiet_on()
    out = ufunc(x, b if y is None else y)
    quiet_off(token)
    if not ((need_a or need_b) and _GRAD.enabled):
        return Tensor._make(out)  # nothing to record: Function.apply's forward alone
    if y is None:
        y = np.asarray(b, dt)  # (as_operand's wrapped number, saved for backward)
        shape, b_shape = x.shape, ()
    # what the op's forward saves (its save_for_backward): mul each operand for the other's gradient,
    # div the divisor always
    save = (need_b, need_a) if cls is Mul else (need_b, True) if cls is Div else _SAVES_NOTHING
    return record_binary(cls, out, a, b, y, save, nargs, (shape, b_shape, dt))


_FLOAT32, _FLOAT64 = np.dtype(np.float32), np.dtype(np.float64)
_SAVES_NOTHING = (False, False)


def _scaled(b: Tensor, alpha: Any) -> Tensor:
    """``alpha * b`` as a constant, for the forward of ``add``/``sub`` with ``alpha``."""
    return b if alpha == 1 else Tensor._make(b._data * alpha)


def _plus_scaled(ufunc: np.ufunc, a: Tensor, b: Tensor, alpha: Any) -> np.ndarray:
    """``a + alpha * b`` (``ufunc`` np.add; np.subtract for ``-``) as PyTorch's kernel: of a float32 or
    float64 result, one fused multiply-add in that dtype, ``alpha`` too (:func:`fused_multiply_add`); else
    ``alpha * b`` first, then the op. (Where ``b`` is broadcast along the last dim, PyTorch's loop computes
    some elements without the fused multiply-add, depending on their number and memory address: that is
    not copied.)"""
    dt = result_dtype(a, b)  # (the operands in it: _binary casts them)
    if alpha != 1 and dt.char in "fd":
        scale = dt.type(alpha if ufunc is np.add else -alpha)
        return _binary(lambda x, y: fused_multiply_add(y, scale, x, exact=False), a, b)
    return _binary(ufunc, a, _scaled(b, alpha))


def _check_alpha(a: Tensor, b: Tensor, alpha: Any) -> None:
    """PyTorch's rules for ``alpha``: no float alpha for integral tensors, no bool alpha for others."""
    kind = result_dtype(a, b).kind
    if isinstance(alpha, (bool, np.bool_)):
        if kind != "b":
            raise RuntimeError("Boolean alpha only supported for Boolean results.")
    elif isinstance(alpha, (float, np.floating)) and kind in "biu":
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")


class Add(Function):
    """``a + alpha * b``: ``alpha`` is applied inside the node (no multiplication node of its own)."""

    node_name = "AddBackward0"
    node_defaults = {"alpha": 1, "_saved_alpha": 1}  # (set on the node only when another)

    @staticmethod
    def forward(ctx: Any, a: Tensor, b: Tensor, alpha: Any = 1) -> Tensor:
        if type(alpha) is not int or alpha != 1:
            ctx.alpha = ctx._saved_alpha = alpha
        return Tensor._make(cast(_plus_scaled(np.add, a, b, alpha), a, b))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, Tensor, None]:
        # (PyTorch's maybe_multiply: a number times the gradient, MulBackward1 under create_graph)
        return grad, (grad if ctx.alpha == 1 else MulNumber.apply(grad, ctx.alpha)), None

    @staticmethod
    def backward_arrays(ctx: Any, g: np.ndarray) -> tuple[np.ndarray, np.ndarray, None]:
        return g, (g if ctx.alpha == 1 else MulNumber.apply(Tensor._make(g), ctx.alpha)._data), None


def add(a: Any, other: Any, *, alpha: Any = 1) -> Tensor:
    """``a + alpha * other`` (``torch.add``)."""
    if type(alpha) is int and alpha == 1 and (out := _fast(Add, np.add, a, other, 3)) is not None:
        return out
    a, other = binary_operands(a, other)
    if type(alpha) is not int or alpha != 1:  # True == 1 too, but PyTorch refuses it
        _check_alpha(a, other, alpha)
    return Add.apply(a, other, alpha)


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


class Sub(Function):
    """``a - alpha * b``: ``alpha`` is applied inside the node (no multiplication node of its own)."""

    node_name = "SubBackward0"
    node_defaults = {"alpha": 1, "_saved_alpha": 1}

    @staticmethod
    def forward(ctx: Any, a: Tensor, b: Tensor, alpha: Any = 1) -> Tensor:
        if type(alpha) is not int or alpha != 1:
            ctx.alpha = ctx._saved_alpha = alpha
        return Tensor._make(cast(_plus_scaled(np.subtract, a, b, alpha), a, b))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, Tensor, None]:
        return grad, (-grad if ctx.alpha == 1 else MulNumber.apply(-grad, ctx.alpha)), None

    @staticmethod
    def backward_arrays(ctx: Any, g: np.ndarray) -> tuple[np.ndarray, np.ndarray, None]:
        minus = np.negative(g)
        return g, (minus if ctx.alpha == 1 else MulNumber.apply(Tensor._make(minus), ctx.alpha)._data), None


def sub(a: Any, other: Any, *, alpha: Any = 1) -> Tensor:
    """``a - alpha * other`` (``torch.sub``)."""
    if type(alpha) is int and alpha == 1 and (out := _fast(Sub, np.subtract, a, other, 3)) is not None:
        return out
    _check_no_bool_subtraction(a, other)
    a, other = binary_operands(a, other)
    if type(alpha) is not int or alpha != 1:  # True == 1 too, but PyTorch refuses it
        _check_alpha(a, other, alpha)
    return Sub.apply(a, other, alpha)


class Rsub(Function):
    """``number - alpha * tensor``."""

    node_name = "RsubBackward1"

    @staticmethod
    def forward(ctx: Any, a: Tensor, number: Any, alpha: Any = 1) -> Tensor:
        ctx.alpha = ctx._saved_alpha = alpha
        return Tensor._make(cast(np.subtract(number, _scaled(a, alpha)._data), a, number))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None]:
        return (-grad if ctx.alpha == 1 else MulNumber.apply(-grad, ctx.alpha)), None, None


class RsubTensor(Function):
    """``other - alpha * tensor`` for a tensor ``other`` (``torch.rsub``; Python's ``b - a`` is Sub)."""

    node_name = "RsubBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor, other: Tensor, alpha: Any = 1) -> Tensor:
        ctx.alpha = ctx._saved_alpha = alpha
        return Tensor._make(cast(_plus_scaled(np.subtract, other, a, alpha), a, other))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, Tensor, None]:
        return (-grad if ctx.alpha == 1 else MulNumber.apply(-grad, ctx.alpha)), grad, None


def rsub(a: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    """``other - alpha * a`` (``torch.rsub``; Python's ``number - tensor``)."""
    _check_no_bool_subtraction(other, a)
    if isinstance(other, (int, float, bool, np.number)):
        if type(alpha) is not int or alpha != 1:
            _check_alpha(a, as_operand(other, a._data.dtype), alpha)
        return Rsub.apply(a, other, alpha)
    a, other = binary_operands(a, other)
    if type(alpha) is not int or alpha != 1:
        _check_alpha(a, other, alpha)
    return RsubTensor.apply(a, other, alpha)


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

    @staticmethod
    def backward_arrays(ctx: Any, g: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
        a, b = ctx.saved_arrays  # forward's kernel and cast
        return None if b is None else _product(g, b), None if a is None else _product(g, a)


def _product(g: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``g * x`` with the dtype and layout PyTorch gives the product of two tensors (a saved number is
    a 0-d one)."""
    out = np.multiply(g, x)
    if g.ndim and not (g.flags.c_contiguous and x.flags.c_contiguous):  # (a transposed operand: PyTorch's
        out = iterator_layout(out, g, x)  # layout; a 0-d gradient has a 0-d operand)
    if x.dtype is g.dtype:  # one dtype, the common case: nothing to promote (the product has it too)
        return out
    return cast(out, Tensor._make(g), Tensor._make(x))


def mul(a: Any, other: Any) -> Tensor:
    """``a * other``, elementwise with broadcasting (``torch.mul``)."""
    if (out := _fast(Mul, np.multiply, a, other)) is not None:
        return out
    if type(other) in (float, int) and type(a) is Tensor and a._data.dtype.kind == "f":
        check_int(other)
        if not (grad_mode._state.enabled and (a._requires_grad or a._grad_fn is not None
                                             or a._base is not None)):
            # nothing to record (the optimizer's lr * p.grad): the kernel alone, in a's dtype as
            # PyTorch's (NumPy takes a Python number in the array's dtype, as PyTorch a wrapped number)
            token = quiet_on()
            try:
                return Tensor._make(np.multiply(a._data, other))
            finally:
                quiet_off(token)
        number = Tensor._make(np.asarray(other, a._data.dtype))  # as_operand's, for a known number
        number._wrapped_number = other
        return Mul.apply(a, number)
    return Mul.apply(*binary_operands(a, other))


class Div(Function):
    node_name = "DivBackward0"
    saved_names = ("self", "other")

    @staticmethod
    def forward(ctx: Any, a: Tensor, b: Tensor) -> Tensor:
        ctx.save_for_backward(a if ctx.needs_input_grad[1] else None, b)
        out = _binary(np.true_divide, a, b)
        want = result_dtype(a, b)
        if want.kind != "f":
            want = dtypes.get_default_dtype().np
        return Tensor._make(out.astype(want, copy=False))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, Tensor | None]:
        a, b = ctx.saved_tensors
        grad_b = -grad * (a / b / b) if a is not None else None  # grouped as PyTorch's
        return grad / b, grad_b


class DivMode(Function):
    """``a / b`` rounded down (``rounding_mode="floor"``) or toward zero (``"trunc"``), in the operands'
    dtype: a step function, its derivative zero."""

    node_name = "DivBackward2"
    saved_names = ("self", "other")

    @staticmethod
    def forward(ctx: Any, a: Tensor, b: Tensor, mode: str) -> Tensor:
        ctx.save_for_backward(a if ctx.needs_input_grad[1] else None, b)  # as div's (both formulas read b)
        ctx._saved_rounding_mode = mode
        dt = result_dtype(a, b)
        rounded = _floor_divide_values if mode == "floor" else _trunc_divide_values
        out = np.asarray(rounded(a._data.astype(dt), b._data.astype(dt)))
        return Tensor._make(iterator_layout(out, a._data, b._data))  # (an expanded operand: PyTorch's layout)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, Tensor, None]:
        _ = ctx.saved_tensors  # (unpacked first, as PyTorch's node: once freed, a second backward raises)
        dtypes_ = [m[1] for m in ctx._input_meta]
        return (Tensor._make(np.zeros(grad._data.shape, dtypes_[0])),
                Tensor._make(np.zeros(grad._data.shape, dtypes_[1])), None)


def div(a: Any, other: Any, *, rounding_mode: str | None = None) -> Tensor:
    """``a / other``, a floating point result; with ``rounding_mode`` ``"floor"`` or ``"trunc"`` the
    quotient rounded, in the operands' dtype (``torch.div``)."""
    if rounding_mode is None:
        if (out := _fast(Div, np.true_divide, a, other)) is not None:
            return out
        return Div.apply(*binary_operands(a, other))
    if rounding_mode not in ("floor", "trunc"):
        raise RuntimeError("div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                           f"'{rounding_mode}'")
    _no_bool(f"div_{rounding_mode}_cpu", a, other)
    x, y = binary_operands(a, other)
    _check_broadcast(x, y)
    return DivMode.apply(x, y, rounding_mode)


def rtruediv(a: Tensor, other: Any) -> Tensor:
    """``other / a``, recorded as PyTorch records it: ``a.reciprocal() * other``."""
    return mul(reciprocal(a), other)


class Neg(Function):
    node_name = "NegBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor) -> Tensor:
        return Tensor._make(np.negative(a._data))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        return -grad

    @staticmethod
    def backward_arrays(ctx: Any, g: np.ndarray) -> tuple[np.ndarray]:
        return (np.negative(g),)


def neg(a: Tensor) -> Tensor:
    """``-a`` (``torch.neg``)."""
    out = fast_unary(Neg, np.negative, a, SAVES_NOTHING)
    return out if out is not None else Neg.apply(a)


# PyTorch's other names for these functions (NumPy's)
multiply, divide, true_divide, subtract, negative = mul, div, div, sub, neg


def positive(a: Tensor) -> Tensor:
    """``a`` itself, as ``+a`` (``torch.positive``); a bool tensor has no ``+``, as in PyTorch."""
    if a._data.dtype == np.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return a


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
        return -grad * (out * out)


def reciprocal(a: Tensor) -> Tensor:
    """``1 / a``, a floating point result (``torch.reciprocal``)."""
    return Reciprocal.apply(a)


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
            if a._data.dtype.kind == "f" and exponent in (-0.5, 3, -2) and type(exponent) is not bool:
                # PyTorch's kernel for these: 1 / sqrt(x) (-0.0 gives -inf, -inf nan), x*x*x, 1 / (x*x)
                # (the last bits of float32 results as PyTorch's, where NumPy's power differs)
                d = a._data
                out = (np.reciprocal(np.sqrt(d)) if exponent == -0.5 else d * d * d if exponent == 3
                       else np.reciprocal(d * d))
                return Tensor._make(out)
            return Tensor._make(cast(np.power(a._data, exponent), a, exponent))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        (a,) = ctx.saved_tensors
        p = ctx.exponent
        if p == 0:  # PyTorch's pow_backward: zeros_like(self), outside the graph (a nan grad gives 0)
            return Tensor._make(np.zeros(a._data.shape, a._data.dtype)), None
        return grad * MulNumber.apply(a ** (p - 1), p), None


class PowTensor(Function):
    """``tensor ** tensor``."""

    node_name = "PowBackward1"
    saved_names = ("self", "exponent", "result")

    @staticmethod
    def forward(ctx: Any, a: Tensor, b: Tensor) -> Tensor:
        with _quiet():  # a negative base to a fractional power is nan, as in PyTorch: no NumPy warning
            out = Tensor._make(cast(_binary(np.power, a, b), a, b))
        ctx.save_for_backward(a, b, out)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
        a, b, out = ctx.saved_tensors
        # d(a^b)/da = b a^(b-1), taken as 0 where b == 0 (PyTorch's rule; 0 * 0^-1 would be NaN)
        grad_a = where(_const(b._data == 0), 0.0, grad * (b * a ** SubNumber.apply(b, 1)))
        # d(a^b)/db = a^b log(a); PyTorch takes it as 0 where a == 0 and b >= 0 (its where picks 0
        # over the log's -inf or nan there)
        # (the base cast to the result's dtype first, as PyTorch's pow_backward_exponent: ToCopyBackward0)
        a_ = a if a._data.dtype == out._data.dtype else a.to(out.dtype)
        grad_b = grad * where(_const((a._data == 0) & (b._data >= 0)), 0.0, out * log(a_))
        return grad_a, grad_b


class RpowScalar(Function):
    """``number ** tensor``."""

    node_name = "PowBackward2"
    saved_names = ("exponent", "result")

    @staticmethod
    def forward(ctx: Any, base: Any, b: Tensor) -> Tensor:
        with _quiet():  # row-major whatever b's layout (PyTorch's pow(Scalar, Tensor) allocates it so)
            out = Tensor._make(cast(np.power(base, b._data, order="C"), b, base))
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
        return None, grad * MulNumber.apply(out, log_base)


def pow(a: Any, exponent: Any) -> Tensor:
    """``a ** exponent``: tensor or number base, tensor or number exponent (``torch.pow``)."""
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


def float_power(a: Any, exponent: Any) -> Tensor:
    """``a ** exponent`` in float64, whatever the dtypes (``torch.float_power``: ``pow`` of the tensors
    converted to float64 first)."""
    if not isinstance(a, Tensor) and not isinstance(exponent, Tensor):
        raise TypeError("float_power(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(a).__name__}")
    return pow(*(x.to(dtypes.float64) if isinstance(x, Tensor) else x for x in (a, exponent)))


def square(a: Tensor) -> Tensor:
    """``a ** 2`` (PowBackward0, as in PyTorch); bools square to int64."""
    if a._data.dtype == np.bool_:
        a = Tensor._make(a._data.astype(np.int64))
    return pow(a, 2)


# ---------------------------------------------------------------------------- remainder, fmod, floor divide
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


def _trunc_divide_values(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The quotient rounded toward zero (integers: exact, without going through floats)."""
    if x.dtype.kind in "iu":
        if np.any(y == 0):
            raise RuntimeError("ZeroDivisionError")
        q = np.floor_divide(x, y)
        return q + ((np.remainder(x, y) != 0) & ((x < 0) != (y < 0)))
    with _quiet():
        return np.trunc(x / y)


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
    rounding = "trunc"

    @classmethod
    def forward(cls, ctx: Any, a: Tensor, b: Tensor) -> Tensor:
        need_b = ctx.needs_input_grad[1]
        ctx.save_for_backward(a if need_b else None, b if need_b else None)
        dt = result_dtype(a, b)
        return Tensor._make(iterator_layout(np.asarray(cls.values(a._data.astype(dt), b._data.astype(dt))),
                                            a._data, b._data))

    @classmethod
    def backward(cls, ctx: Any, grad: Tensor) -> tuple[Tensor, Tensor | None]:
        a, b = ctx.saved_tensors
        if a is None:
            return grad, None
        if grad_mode.is_grad_enabled():  # PyTorch's -grad * self.div(other, rounding_mode=...)
            return grad, -grad * div(a, b, rounding_mode=cls.rounding)
        with _quiet():
            q = cls.quotient(a._data / b._data).astype(grad._data.dtype)
        return grad, -grad * _const(q)


class _ModScalar(Function):
    values = staticmethod(_fmod_values)

    @classmethod
    def forward(cls, ctx: Any, a: Tensor, number: Any) -> Tensor:
        dt = result_dtype(a, number)
        out = np.asarray(cls.values(a._data.astype(dt), np.asarray(number).astype(dt)))
        return Tensor._make(iterator_layout(out, a._data))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return grad, None


class RemainderTensor(_ModTensor):
    node_name = "RemainderBackward1"
    values = staticmethod(_remainder_values)
    quotient = staticmethod(np.floor)
    rounding = "floor"


class RemainderScalar(_ModScalar):
    node_name = "RemainderBackward0"
    values = staticmethod(_remainder_values)


def _no_bool(kernel: str, *operands: Any) -> None:
    dt = result_dtype(*operands)
    if dt == np.bool_:
        raise _not_implemented(kernel, dt)


def remainder(a: Any, other: Any) -> Tensor:
    """``a % other`` with the sign of ``other``, Python's modulo (``torch.remainder``)."""
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


class FmodTensor(_ModTensor):
    node_name = "FmodBackward1"
    values = staticmethod(_fmod_values)
    quotient = staticmethod(np.trunc)


class FmodScalar(_ModScalar):
    node_name = "FmodBackward0"
    values = staticmethod(_fmod_values)


def fmod(a: Any, other: Any) -> Tensor:
    """The remainder of ``a / other`` with the sign of ``a``, C's fmod (``torch.fmod``)."""
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
    # (laid out as PyTorch's TensorIterator: an expanded operand gives a row-major result, wider seed
    # 15300042)
    return NotImplementedBackward.apply(_op, iterator_layout(out, x._data, y._data), *_needing_grad(x, y))


# ---------------------------------------------------------------------------- lerp, addcmul, addcdiv
def _lerp_values(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """PyTorch's formula: from the nearer end, so lerp(a, b, 1) is exactly b; its kernel computes each as
    one fused multiply-add (:func:`fused_multiply_add`)."""
    d = y - x  # (w - 1 the weight from the far end: its negation 1 - w, exact)
    w = np.asarray(w, x.dtype)
    near = fused_multiply_add(w, d, x, exact=False)  # (float32: the fast emulation, see its docstring)
    return np.where(np.abs(w) < 0.5, near, fused_multiply_add(w - 1, d, y, exact=False))


class LerpScalar(Function):
    node_name = "LerpBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor, end: Tensor, weight: Any) -> Tensor:
        ctx.weight = weight
        dt = a._data.dtype
        w = np.asarray(weight, dtype=dt)
        out = np.asarray(_lerp_values(a._data, end._data, w)).astype(dt, copy=False)
        return Tensor._make(iterator_layout(out, a._data, end._data))  # (TensorIterator's layout)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, Tensor, None]:
        w = ctx.weight  # (numbers: MulBackward1 under create_graph, as PyTorch's)
        return MulNumber.apply(grad, 1 - w), MulNumber.apply(grad, w), None


class LerpTensor(Function):
    node_name = "LerpBackward1"
    saved_names = ("self", "end", "weight")

    @staticmethod
    def forward(ctx: Any, a: Tensor, end: Tensor, weight: Tensor) -> Tensor:
        need_w = ctx.needs_input_grad[2]
        ctx.save_for_backward(a if need_w else None, end if need_w else None, weight)
        dt = a._data.dtype
        out = np.asarray(_lerp_values(a._data, end._data, weight._data.astype(dt))).astype(dt, copy=False)
        return Tensor._make(iterator_layout(out, a._data, end._data, weight._data))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        a, end, w = ctx.saved_tensors
        # PyTorch's grad * (1 - w): C++'s number minus tensor, empty_like(w).fill_(1).sub_(w) (SubBackward0)
        ones = np.empty_like(w._data)
        ones[...] = 1
        return grad * (Tensor._make(ones) - w), grad * w, (grad * (end - a) if a is not None else None)


def lerp(a: Tensor, end: Tensor, weight: Any) -> Tensor:
    """``a + weight * (end - a)``, ``weight`` a number or a tensor (``torch.lerp``)."""
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
        out = np.asarray(out).astype(dt, copy=False)
        return Tensor._make(iterator_layout(out, a._data, t1._data, t2._data))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, Tensor, Tensor, None]:
        t1, t2 = ctx.saved_tensors  # (unpacked first, as PyTorch's node: a changed or freed one raises)
        if not any(ctx.needs_input_grad[1:3]):
            return grad, None, None, None
        v = ctx.value
        # grouped as PyTorch's: grad * (t2 * value), the number a MulBackward1 under create_graph
        grad_t1 = grad * MulNumber.apply(t2, v) if t2 is not None else None
        return grad, grad_t1, (grad * MulNumber.apply(t1, v) if t1 is not None else None), None


def _addc(name: str, a: Any, t1: Any, t2: Any, value: Any, method: bool = False) -> None:
    _need_tensors(name, method, ("input", a), ("tensor1", t1), ("tensor2", t2))
    _check_broadcast(a, t1, t2)
    if result_dtype(a, t1, t2) == np.bool_:
        raise _not_implemented(f"{name}_cpu_out", np.dtype(np.bool_))


def addcmul(a: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1, _method: bool = False) -> Tensor:
    """``a + value * tensor1 * tensor2`` (``torch.addcmul``)."""
    _addc("addcmul", a, tensor1, tensor2, value, _method)
    return Addcmul.apply(a, tensor1, tensor2, value)


_ADDCDIV_INTEGER_MESSAGE = (
    "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform "
    "a true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as "
    "(input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as "
    "(input + value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter "
    "implementation: (input + value * tensor1 / tensor2), for all dtypes."
)


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
        # (laid out as PyTorch's TensorIterator: an expanded operand gives a row-major result, wider
        # seed 21000687)
        out = np.asarray(out).astype(dt, copy=False)
        return Tensor._make(iterator_layout(out, a._data, t1._data, t2._data))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, Tensor, Tensor, None]:
        t1, t2 = ctx.saved_tensors  # (unpacked first, as PyTorch's node: a changed or freed one raises)
        if not any(ctx.needs_input_grad[1:3]):
            return grad, None, None, None
        v = ctx.value
        # grouped as PyTorch's: grad * (value / t2), -grad * (value * t1 / (t2 * t2)); a number over a
        # tensor is ATen's empty_like(t2).fill_(value).div_(t2)
        filled = Tensor._make(np.full(t2._data.shape, v, dtype=t2._data.dtype))
        grad_t1 = grad * div(filled, t2) if ctx.needs_input_grad[1] else None
        grad_t2 = -grad * (MulNumber.apply(t1, v) / (t2 * t2)) if t1 is not None else None
        return grad, grad_t1, grad_t2, None


def addcdiv(a: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1, _method: bool = False) -> Tensor:
    """``a + value * tensor1 / tensor2`` (``torch.addcdiv``)."""
    _need_tensors("addcdiv", _method, ("input", a), ("tensor1", tensor1), ("tensor2", tensor2))
    if tensor1._data.dtype.kind in "biu" and tensor2._data.dtype.kind in "biu":
        raise RuntimeError(_ADDCDIV_INTEGER_MESSAGE)
    _check_broadcast(a, tensor1, tensor2)
    return Addcdiv.apply(a, tensor1, tensor2, value)
