"""Functions applied elementwise: exp, log, the trigonometric and hyperbolic functions, erf, the gamma
family (lgamma, digamma, polygamma), rounding, and the functions of two tensors (atan2, hypot, logaddexp,
heaviside).

Integer inputs of a floating point function give the default dtype, as in PyTorch. Most functions of
one tensor share one template (:class:`_Unary`): the NumPy kernel, the derivative, and what backward
needs saved (the input or the result).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import math
from typing import Any

import numpy as np

from ..dtypes import quiet as _quiet
from ..function import SAVES_RESULT, SAVES_SELF, Function, fast_unary
from ..grad_mode import is_grad_enabled
from ..tensor import Tensor
from . import special
from .comparison import _SAME_SIZE_INT, Where, _kept_where, masked_fill
from .inplace import inplace
from .promotion import (
    _check_broadcast,
    _const,
    _float_result,
    _floating,
    _need_tensors,
    _needing_grad,
    _not_implemented,
    as_operand,
    avx512_bytes,
    check_arg_types,
    iterator_layout,
    result_dtype,
    rounded_once,
    vector_lanes,
)
from .scalar import AddNumber, MulNumber

# float32 in double, rounded once: PyTorch's results where NumPy's float32 kernels miss (see rounded_once)
_exp, _log, _sin, _cos, _tanh, _atanh, _exp2, _log2 = map(rounded_once, (
    np.exp, np.log, np.sin, np.cos, np.tanh, np.arctanh, np.exp2, np.log2))


class Exp(Function):
    node_name = "ExpBackward0"
    saved_names = ("result",)

    @staticmethod
    def forward(ctx: Any, a: Tensor) -> Tensor:
        out = Tensor._make(_exp(_floating(a._data)))  # exp(1000) = inf: no warning (see Function.apply)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        (out,) = ctx.saved_tensors
        return grad * out

    @staticmethod
    def backward_arrays(ctx: Any, g: np.ndarray) -> tuple[np.ndarray]:
        (out,) = ctx.saved_arrays
        if g.dtype != out.dtype:
            return (Exp.backward(ctx, Tensor._make(g)),)
        return (iterator_layout(g * out, g, out),)


def exp(a: Tensor) -> Tensor:
    """``e ** a`` (``torch.exp``)."""
    out = fast_unary(Exp, _exp, a, SAVES_RESULT)
    return out if out is not None else Exp.apply(a)


class Log(Function):
    node_name = "LogBackward0"
    saved_names = ("self",)

    @staticmethod
    def forward(ctx: Any, a: Tensor) -> Tensor:
        ctx.save_for_backward(a)
        with np.errstate(divide="ignore", invalid="ignore"):
            return Tensor._make(_log(_floating(a._data)))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        (a,) = ctx.saved_tensors
        return grad / a


def log(a: Tensor) -> Tensor:
    """The natural logarithm (``torch.log``)."""
    out = fast_unary(Log, _log, a, SAVES_SELF)
    return out if out is not None else Log.apply(a)


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
        return grad / MulNumber.apply(out, 2)


def sqrt(a: Tensor) -> Tensor:
    """The square root (``torch.sqrt``)."""
    return Sqrt.apply(a)


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
        return grad * Sgn.apply(a)


def abs(a: Tensor) -> Tensor:
    """``|a|``; its gradient at 0 is 0 (``torch.abs``)."""
    return Abs.apply(a)


absolute = abs  # (NumPy's name)


class Sin(Function):
    node_name = "SinBackward0"
    saved_names = ("self",)

    @staticmethod
    def forward(ctx: Any, a: Tensor) -> Tensor:
        ctx.save_for_backward(a)
        return Tensor._make(_sin(_floating(a._data)))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        (a,) = ctx.saved_tensors
        return grad * cos(a)


def sin(a: Tensor) -> Tensor:
    """The sine (``torch.sin``)."""
    return Sin.apply(a)


class Cos(Function):
    node_name = "CosBackward0"
    saved_names = ("self",)

    @staticmethod
    def forward(ctx: Any, a: Tensor) -> Tensor:
        ctx.save_for_backward(a)
        return Tensor._make(_cos(_floating(a._data)))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        (a,) = ctx.saved_tensors
        return grad * -sin(a)


def cos(a: Tensor) -> Tensor:
    """The cosine (``torch.cos``)."""
    return Cos.apply(a)


class Tanh(Function):
    node_name = "TanhBackward0"
    saved_names = ("result",)

    @staticmethod
    def forward(ctx: Any, a: Tensor) -> Tensor:
        out = Tensor._make(_tanh(_floating(a._data)))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        (out,) = ctx.saved_tensors
        return TanhBackward.apply(grad, out)

    @staticmethod
    def backward_arrays(ctx: Any, g: np.ndarray) -> tuple[np.ndarray]:
        (out,) = ctx.saved_arrays
        return (_tanh_grad(g, out),)


class TanhBackward(Function):
    """tanh's derivative ``grad * (1 - y²)`` as one node, recorded as PyTorch's with
    ``create_graph=True`` (its inputs: the incoming gradient and tanh's result ``y``)."""

    node_name = "TanhBackwardBackward0"
    saved_names = ("grad_output", "output")

    @staticmethod
    def forward(ctx: Any, grad: Tensor, y: Tensor) -> Tensor:
        ctx.save_for_backward(grad, y)
        return Tensor._make(_tanh_grad(grad._data, y._data))

    @staticmethod
    def backward(ctx: Any, gg: Tensor) -> tuple[Tensor, Tensor]:
        grad, y = ctx.saved_tensors  # PyTorch's formula, step by step: grad * (-2 * output * grad_output)
        return TanhBackward.apply(gg, y), gg * (MulNumber.apply(y, -2) * grad)


def _tanh_grad(g: np.ndarray, y: np.ndarray) -> np.ndarray:
    return iterator_layout(g * (1 - y * y), g, y)


def tanh(a: Tensor) -> Tensor:
    """The hyperbolic tangent (``torch.tanh``)."""
    out = fast_unary(Tanh, _tanh, a, SAVES_RESULT)
    return out if out is not None else Tanh.apply(a)


# SLEEF's expf (``xexpf``, its 1-ulp version): what PyTorch's vectorised kernels call for float32 exp
# (``Vectorized<float>::exp``: Sleef_expf8_u10 / Sleef_expf16_u10; torch.exp itself calls MKL's)
_R_LN2F, _L2UF, _L2LF = np.float32(1.442695040888963407), np.float32(0.693145751953125), \
    np.float32(1.428606765330187045e-06)
_EXPF_POLY = np.array([0.000198527617612853646278381, 0.00139304355252534151077271,
                       0.00833336077630519866943359, 0.0416664853692054748535156,
                       0.166666671633720397949219, 0.5], np.float32)


def sleef_expf(d: np.ndarray) -> np.ndarray:
    """``exp`` of a float32 array as SLEEF's ``xexpf`` computes it, step by step (its reduction by ln 2 in
    two parts, its degree-6 polynomial with fused multiply-adds, its scaling and its limits): bit for bit
    PyTorch's vector exp, which differs from the correctly rounded value in some 10% of values. (Called
    where NumPy is quiet, as in a forward: a nan or an inf warns on its way through otherwise.)

    A fused multiply-add ``a * b + c`` of floats rounds once: here the product, exact in double, plus
    ``c`` rounds in double, then to float (two roundings, which differ from one only where the double
    lands exactly halfway between two floats: some 1 in 2**29)."""
    d = np.clip(d, np.float32(-110), np.float32(110))  # (beyond: 0 or inf all the same; a nan stays)
    q = np.rint(d * _R_LN2F)  # (nearest, ties to even, as vrint)
    wide = np.multiply(q, -np.float64(_L2UF))  # each fused multiply-add in double, then rounded to float
    wide += d
    s = wide.astype(np.float32)
    np.multiply(q, -np.float64(_L2LF), out=wide)
    wide += s
    s[...] = wide
    u = np.empty_like(s)
    u[...] = _EXPF_POLY[0]
    for c in _EXPF_POLY[1:]:
        np.multiply(u, s, out=wide, dtype=np.float64)
        wide += c
        u[...] = wide
    np.multiply(s * s, u, out=wide, dtype=np.float64)  # u = 1 + fma(s * s, u, s)
    wide += s
    u[...] = wide
    u += np.float32(1)
    e = q.astype(np.int32)
    half = e >> 1  # 2**q in two factors, as vldexp2 (either alone may overflow where the product does not)
    u = np.ldexp(np.ldexp(u, half), e - half)
    u[d < -104] = 0  # its limit below (above 100, the product overflows to inf; a nan goes through)
    return u


class Sigmoid(Function):
    node_name = "SigmoidBackward0"
    saved_names = ("result",)

    @staticmethod
    def forward(ctx: Any, a: Tensor) -> Tensor:
        out = Tensor._make(_sigmoid(_floating(a._data)))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        (out,) = ctx.saved_tensors
        return SigmoidBackward.apply(grad, out)

    @staticmethod
    def backward_arrays(ctx: Any, g: np.ndarray) -> tuple[np.ndarray]:
        (out,) = ctx.saved_arrays
        return (_sigmoid_grad(g, out),)


class SigmoidBackward(Function):
    """sigmoid's derivative ``grad * y * (1 - y)`` as one node, recorded as PyTorch's with
    ``create_graph=True`` (its inputs: the incoming gradient and sigmoid's result ``y``)."""

    node_name = "SigmoidBackwardBackward0"
    saved_names = ("grad_output", "output")

    @staticmethod
    def forward(ctx: Any, grad: Tensor, y: Tensor) -> Tensor:
        ctx.save_for_backward(grad, y)
        return Tensor._make(_sigmoid_grad(grad._data, y._data))

    @staticmethod
    def backward(ctx: Any, gg: Tensor) -> tuple[Tensor, Tensor]:
        grad, y = ctx.saved_tensors  # PyTorch's formula, step by step: grad * grad_output * (-2 * output + 1)
        return SigmoidBackward.apply(gg, y), gg * grad * AddNumber.apply(MulNumber.apply(y, -2), 1)


def _sigmoid_grad(g: np.ndarray, y: np.ndarray) -> np.ndarray:
    return iterator_layout(g * (1 - y) * y, g, y)  # (PyTorch's order: grad * (1 - y) * y)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    """PyTorch's CPU kernel: ``1 / (1 + exp(-x))`` in the input's dtype, its scalar loop with the C
    library's exp (the value rounded once, here), its vector loop ``1 / (exp(0 - x) + 1)`` with SLEEF's
    exp (:func:`sleef_expf`, float32; float64's SLEEF exp is not replayed: rounded once too), each element
    as :func:`vector_lanes` says which loop computes it (PyTorch builds this kernel for AVX-512 too: its
    vectors are 16 floats on such a CPU). Other dtypes: in double, rounded once."""
    if x.dtype.char not in "fd":
        e = np.exp(-np.abs(x.astype(np.float64)))  # never overflows
        return np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype)
    one = x.dtype.type(1)
    if x.dtype != np.float32:
        return one / (one + _exp(-x))
    if x.flags.c_contiguous:  # one row of x.size: the vector loop takes all but its last < 2 vectors
        vector = x.size - x.size % (2 * avx512_bytes() // 4)
        flat = x.reshape(-1)
        out = np.empty_like(flat)
        if vector:
            out[:vector] = one / (sleef_expf(np.float32(0) - flat[:vector]) + one)
        out[vector:] = one / (one + _exp(-flat[vector:]))
        return out.reshape(x.shape)
    out = one / (one + _exp(-x))
    lanes = vector_lanes(x.shape, x.dtype, x, vector_bytes=avx512_bytes())
    if lanes is not None:
        out = np.where(lanes, one / (sleef_expf(np.float32(0) - x) + one), out)
    return out


def sigmoid(a: Tensor) -> Tensor:
    """``1 / (1 + exp(-a))`` (``torch.sigmoid``)."""
    return Sigmoid.apply(a)


class Relu(Function):
    node_name = "ReluBackward0"
    saved_names = ("result",)

    @staticmethod
    def forward(ctx: Any, a: Tensor) -> Tensor:
        x = a._data
        out = Tensor._make(_relu_kernel(x).astype(x.dtype, copy=False))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        (out,) = ctx.saved_tensors
        return ThresholdBackward.apply(grad, out)

    @staticmethod
    def backward_arrays(ctx: Any, g: np.ndarray) -> tuple[np.ndarray]:
        (out,) = ctx.saved_arrays  # ThresholdBackward's kernel
        return (_threshold_grad(out, g),)


def _threshold_grad(out: np.ndarray, g: np.ndarray) -> np.ndarray:
    """``g`` where relu's result ``out`` is not 0 (>= 0 or nan: see below), laid out as PyTorch's
    ``threshold_backward``, whose first operand is the result."""
    ints = _SAME_SIZE_INT.get(g.itemsize) if g.dtype.kind == "f" and out.dtype == g.dtype else None
    if ints is None or out.shape != g.shape or not out.ndim:  # (0-d: NumPy gives scalars, not arrays)
        kept = _kept_where(out != 0, g)
    else:  # _kept_where's AND with a mask, the mask made from out's bits (no bool array to widen):
        bits = 8 * g.itemsize  # |out|'s bits are 0 only for +-0.0; negated, their sign bit is set for
        mask = np.bitwise_and(out.view(ints), ints((1 << (bits - 1)) - 1))  # the others (nan too), and
        np.negative(mask, out=mask)  # an arithmetic shift spreads it to all bits
        np.right_shift(mask, bits - 1, out=mask)
        kept = np.bitwise_and(g.view(ints), mask, out=mask).view(g.dtype)
    return kept if out.flags.c_contiguous and g.flags.c_contiguous else iterator_layout(kept, out, g)


class ThresholdBackward(Function):
    """relu's derivative: 0 where the result is <= 0, else ``grad`` (a nan result passes it, as in
    PyTorch's threshold_backward; relu's result is never negative, so ``!= 0`` tests it, the mask the
    fast way round). One node, recorded as PyTorch's with ``create_graph=True``; its derivative by the
    result is 0 (relu' is flat)."""

    node_name = "ThresholdBackwardBackward0"
    saved_names = ("self",)

    @staticmethod
    def forward(ctx: Any, grad: Tensor, result: Tensor) -> Tensor:
        ctx.save_for_backward(result)
        ctx._saved_threshold = 0
        return Tensor._make(_threshold_grad(result._data, grad._data))

    @staticmethod
    def backward(ctx: Any, gg: Tensor) -> tuple[Tensor, Tensor]:
        (result,) = ctx.saved_tensors
        return ThresholdBackward.apply(gg, result), Tensor._make(np.zeros_like(gg._data))


def relu(a: Tensor) -> Tensor:
    """``max(a, 0)``; its gradient at 0 is 0 (``torch.relu``)."""
    out = fast_unary(Relu, _relu_kernel, a, SAVES_RESULT)
    return out if out is not None else Relu.apply(a)


def _relu_kernel(x: np.ndarray) -> np.ndarray:
    # 0 first: NumPy keeps the second operand where they are equal, so relu(-0.0) is -0.0, as PyTorch's
    # (a 0 of the array's own type: a Python 0 costs NumPy a conversion per call)
    return np.maximum(x.dtype.type(0), x)


def relu_(a: Tensor) -> Tensor:
    """:func:`relu` written into ``a`` itself (``torch.relu_``)."""
    return inplace(a, relu)


# ---------------------------------------------------------------------------- one template for many functions
_SQRT_PI = math.sqrt(math.pi)


_LN2, _LN10 = math.log(2.0), math.log(10.0)


_erf64 = np.frompyfunc(math.erf, 1, 1)


_erfc64 = np.frompyfunc(math.erfc, 1, 1)


def _erf(x: np.ndarray) -> np.ndarray:
    return iterator_layout(np.asarray(_erf64(x.astype(np.float64)), dtype=np.float64).astype(x.dtype), x)


def _erfc(x: np.ndarray) -> np.ndarray:
    return iterator_layout(np.asarray(_erfc64(x.astype(np.float64)), dtype=np.float64).astype(x.dtype), x)


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


Erf = _unary("Erf", "ErfBackward0", _erf, lambda g, x: MulNumber.apply(exp(-(x ** 2)), 2.0 / _SQRT_PI) * g)


def erf(a: Tensor) -> Tensor:
    """The error function (``torch.erf``)."""
    return Erf.apply(a)


Erfc = _unary("Erfc", "ErfcBackward0", _erfc,
              lambda g, x: MulNumber.apply(exp(-(x ** 2)), -2.0 / _SQRT_PI) * g)


def erfc(a: Tensor) -> Tensor:
    """``1 - erf(a)`` (``torch.erfc``)."""
    return Erfc.apply(a)


Erfinv = _unary("Erfinv", "ErfinvBackward0", _erfinv,
                lambda g, x: MulNumber.apply(exp(erfinv(x) ** 2), 0.5 * _SQRT_PI) * g)


def erfinv(a: Tensor) -> Tensor:
    """The inverse of the error function (``torch.erfinv``)."""
    return Erfinv.apply(a)


Log1p = _unary("Log1p", "Log1PBackward0", rounded_once(np.log1p), lambda g, x: g / AddNumber.apply(x, 1))


def log1p(a: Tensor) -> Tensor:
    """``log(1 + a)``, exact for small ``a`` (``torch.log1p``)."""
    return Log1p.apply(a)


class Logit(Function):
    """``log(x / (1 - x))``, the inverse of sigmoid; with ``eps``, of x clamped to [eps, 1 - eps]."""

    node_name = "LogitBackward0"
    saved_names = ("self",)

    @staticmethod
    def forward(ctx: Any, a: Tensor, eps: float | None) -> Tensor:
        ctx.save_for_backward(a)
        ctx.eps = ctx._saved_eps = eps
        x = _floating(a._data)
        if eps is not None:
            x = np.clip(x, eps, 1 - eps)
        with _quiet():
            return Tensor._make(np.log(x / (1 - x)))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        # grad / (x (1 - x)); outside [0, 1] nan, and with eps 0 outside [eps, 1 - eps] (PyTorch's)
        (a,) = ctx.saved_tensors
        x, eps = a._data, ctx.eps
        outside = (x < 0) | (x > 1) if eps is None else (x < eps) | (x > 1 - eps)
        if not is_grad_enabled():
            with _quiet():
                g = grad._data / (x * (1 - x))
            return Tensor._make(np.where(outside, np.nan if eps is None else 0, g).astype(g.dtype)), None
        # PyTorch's infinitely_differentiable_logit_backward: where(inside, grad / (x (1 - x)), nan or 0)
        fill = Tensor._make(np.full((), np.nan if eps is None else 0, x.dtype))
        one = as_operand(1.0, x.dtype)  # (C++'s 1.0 - self: a sub of a wrapped number, SubBackward0)
        return Where.apply(~outside, grad / (a * (one - a)), fill), None


def logit(a: Tensor, eps: float | None = None) -> Tensor:
    """``log(a / (1 - a))`` (``torch.logit``); ``eps`` clamps ``a`` to [eps, 1 - eps] first."""
    return Logit.apply(a, eps)


Expm1 = _unary("Expm1", "Expm1Backward0", rounded_once(np.expm1),
               lambda g, y: g * AddNumber.apply(y, 1), "result")


def expm1(a: Tensor) -> Tensor:
    """``exp(a) - 1``, exact for small ``a`` (``torch.expm1``)."""
    return Expm1.apply(a)


Rsqrt = _unary("Rsqrt", "RsqrtBackward0", lambda x: 1 / np.sqrt(x),
               lambda g, y: MulNumber.apply(g, -0.5) * y ** 3, "result")


def rsqrt(a: Tensor) -> Tensor:
    """``1 / sqrt(a)`` (``torch.rsqrt``)."""
    return Rsqrt.apply(a)


Exp2 = _unary("Exp2", "Exp2Backward0", _exp2,
              lambda g, y: MulNumber.apply(g * y, _LN2), "result")


def exp2(a: Tensor) -> Tensor:
    """``2 ** a`` (``torch.exp2``)."""
    return Exp2.apply(a)


# PyTorch's constants: a multiplication by the double, in the tensor's dtype (its gradient: by the same)
_DEG2RAD, _RAD2DEG = 0.017453292519943295, 57.29577951308232
Deg2Rad = _unary("Deg2Rad", "Deg2RadBackward0", lambda x: x * x.dtype.type(_DEG2RAD),
                 lambda g, _: g * _DEG2RAD, "")
Rad2Deg = _unary("Rad2Deg", "Rad2DegBackward0", lambda x: x * x.dtype.type(_RAD2DEG),
                 lambda g, _: g * _RAD2DEG, "")


def deg2rad(a: Tensor) -> Tensor:
    """Degrees to radians (``torch.deg2rad``)."""
    return Deg2Rad.apply(a)


def rad2deg(a: Tensor) -> Tensor:
    """Radians to degrees (``torch.rad2deg``)."""
    return Rad2Deg.apply(a)


Log2 = _unary("Log2", "Log2Backward0", _log2, lambda g, x: g / MulNumber.apply(x, _LN2))


def log2(a: Tensor) -> Tensor:
    """The base-2 logarithm (``torch.log2``)."""
    return Log2.apply(a)


Log10 = _unary("Log10", "Log10Backward0", rounded_once(np.log10), lambda g, x: g / MulNumber.apply(x, _LN10))


def log10(a: Tensor) -> Tensor:
    """The base-10 logarithm (``torch.log10``)."""
    return Log10.apply(a)


Tan = _unary("Tan", "TanBackward0", rounded_once(np.tan),
             lambda g, y: g * AddNumber.apply(y ** 2, 1), "result")


def tan(a: Tensor) -> Tensor:
    """The tangent (``torch.tan``)."""
    return Tan.apply(a)


Asin = _unary("Asin", "AsinBackward0", rounded_once(np.arcsin),
              lambda g, x: g * rsqrt(AddNumber.apply(-x * x, 1)))


def asin(a: Tensor) -> Tensor:
    """The inverse sine (``torch.asin``)."""
    return Asin.apply(a)


Acos = _unary("Acos", "AcosBackward0", rounded_once(np.arccos),
              lambda g, x: g * -rsqrt(AddNumber.apply(-x * x, 1)))


def acos(a: Tensor) -> Tensor:
    """The inverse cosine (``torch.acos``)."""
    return Acos.apply(a)


Atan = _unary("Atan", "AtanBackward0", rounded_once(np.arctan), lambda g, x: g / AddNumber.apply(x * x, 1))


def atan(a: Tensor) -> Tensor:
    """The inverse tangent (``torch.atan``)."""
    return Atan.apply(a)


Sinh = _unary("Sinh", "SinhBackward0", rounded_once(np.sinh), lambda g, x: g * cosh(x))


def sinh(a: Tensor) -> Tensor:
    """The hyperbolic sine (``torch.sinh``)."""
    return Sinh.apply(a)


Cosh = _unary("Cosh", "CoshBackward0", rounded_once(np.cosh), lambda g, x: g * sinh(x))


def cosh(a: Tensor) -> Tensor:
    """The hyperbolic cosine (``torch.cosh``)."""
    return Cosh.apply(a)


Asinh = _unary("Asinh", "AsinhBackward0", np.arcsinh, lambda g, x: g * rsqrt(AddNumber.apply(x ** 2, 1)))


def asinh(a: Tensor) -> Tensor:
    """The inverse hyperbolic sine (``torch.asinh``)."""
    return Asinh.apply(a)


Acosh = _unary("Acosh", "AcoshBackward0", np.arccosh, lambda g, x: g * rsqrt((x - 1) * (x + 1)))


def acosh(a: Tensor) -> Tensor:
    """The inverse hyperbolic cosine (``torch.acosh``)."""
    return Acosh.apply(a)


Atanh = _unary("Atanh", "AtanhBackward0", _atanh,
               lambda g, x: MulNumber.apply(g, 1) / (_const(np.ones((), x._data.dtype)) - x ** 2))


def atanh(a: Tensor) -> Tensor:
    """The inverse hyperbolic tangent (``torch.atanh``)."""
    return Atanh.apply(a)


arcsin, arccos, arctan, arcsinh, arccosh, arctanh = asin, acos, atan, asinh, acosh, atanh


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
    compute = staticmethod(_atanh)


# ---------------------------------------------------------------------------- rounding: zero gradient
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


def _rounding(cls: type[_Rounding], kernel: str, a: Tensor) -> Tensor:
    if a._data.dtype == np.bool_:
        raise _not_implemented(kernel, a._data.dtype)
    return cls.apply(a)


class Floor(_Rounding):
    node_name = "FloorBackward0"
    compute = staticmethod(np.floor)


def floor(a: Tensor) -> Tensor:
    """Rounded down; gradient 0 (``torch.floor``)."""
    return _rounding(Floor, "floor_vml_cpu", a)


class Ceil(_Rounding):
    node_name = "CeilBackward0"
    compute = staticmethod(np.ceil)


def ceil(a: Tensor) -> Tensor:
    """Rounded up; gradient 0 (``torch.ceil``)."""
    return _rounding(Ceil, "ceil_vml_cpu", a)


class Trunc(_Rounding):
    node_name = "TruncBackward0"
    compute = staticmethod(np.trunc)


def trunc(a: Tensor) -> Tensor:
    """Rounded towards 0; gradient 0 (``torch.trunc``)."""
    return _rounding(Trunc, "trunc_vml_cpu", a)


fix = trunc


class Round(_Rounding):
    node_name = "RoundBackward0"
    compute = staticmethod(np.rint)  # halves to even, as PyTorch


class RoundDecimals(_Rounding):
    node_name = "RoundBackward1"
    compute = staticmethod(lambda x, decimals: np.round(x, decimals))


def round(a: Tensor, decimals: int = 0) -> Tensor:
    """Rounded half to even, at ``decimals`` places; gradient 0 (``torch.round``)."""
    if decimals == 0:
        return _rounding(Round, "round_vml_cpu", a)
    if a._data.dtype.kind != "f":
        raise _not_implemented("round_cpu", a._data.dtype)
    return RoundDecimals.apply(a, int(decimals))


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


def sign(a: Tensor) -> Tensor:
    """-1, 0 or 1; gradient 0 (``torch.sign``)."""
    return Sign.apply(a)


class Sgn(Sign):
    """``sign`` under the name PyTorch gives it for complex-aware code (abs's derivative uses it)."""

    node_name = "SgnBackward0"
    saved_names = ("self", "result")  # PyTorch's sgn_backward reads both (for complex inputs)

    @classmethod
    def forward(cls, ctx: Any, a: Tensor) -> Tensor:
        out = super().forward(ctx, a)
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor, *_: Any) -> Any:
        _ = ctx.saved_tensors  # (unpacked first, as PyTorch's node: a changed or freed one raises)
        return _Rounding.backward(ctx, grad)


def sgn(a: Tensor) -> Tensor:
    """``a / |a|`` (0 at 0): the sign of a real tensor (``torch.sgn``)."""
    return Sgn.apply(a)


class Frac(Function):
    node_name = "FracBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor) -> Tensor:
        with _quiet():  # frac(inf) is nan
            return Tensor._make(np.asarray(a._data - np.trunc(a._data)))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        return grad


def frac(a: Tensor) -> Tensor:
    """``a - trunc(a)`` (``torch.frac``)."""
    if a._data.dtype.kind != "f":
        raise _not_implemented("frac_cpu", a._data.dtype)
    return Frac.apply(a)


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
        return Tensor._make(iterator_layout(np.asarray(out).astype(x.dtype, copy=False), x))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None, None]:
        (a,) = ctx.saved_tensors
        return grad * _const(np.isfinite(a._data).astype(grad._data.dtype)), None, None, None


def nan_to_num(a: Tensor, nan: float = 0.0, posinf: float | None = None,
               neginf: float | None = None) -> Tensor:
    """NaN, +inf and -inf replaced by finite numbers (``torch.nan_to_num``)."""
    return NanToNum.apply(a, nan, posinf, neginf)


# ---------------------------------------------------------------------------- functions of two tensors
class Atan2(Function):
    node_name = "Atan2Backward0"
    saved_names = ("self", "other")

    @staticmethod
    def forward(ctx: Any, a: Tensor, b: Tensor) -> Tensor:
        ctx.save_for_backward(a, b)
        dt = _float_result(a, b)
        x, y = a._data.astype(dt, copy=False), b._data.astype(dt, copy=False)
        out = np.asarray(_atan2(x, y, a._data, b._data))
        return Tensor._make(iterator_layout(out, a._data, b._data))  # (laid out as the operands are)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
        a, b = ctx.saved_tensors
        denom = a * a + b * b
        # at the origin the angle is flat by convention: PyTorch's gradient there is 0, not 0/0
        recip = masked_fill(denom.reciprocal(), denom._data == 0, 0.0)
        return grad * b * recip, grad * -a * recip


def atan2(a: Tensor, other: Tensor, *, _method: bool = False) -> Tensor:
    """The angle of the point ``(other, a)``, in (-pi, pi] (``torch.atan2``)."""
    _need_tensors("atan2", _method, ("input", a), ("other", other))
    _check_broadcast(a, other)
    return Atan2.apply(a, other)


arctan2 = atan2


def _atan2(y: np.ndarray, x: np.ndarray, *inputs: np.ndarray) -> np.ndarray:
    """``atan2(y, x)`` as PyTorch's CPU loop computes it (``inputs``: the operands, whose layout decides
    the loop): its scalar kernel is the C library's atan2, its vector kernel SLEEF's. float32: glibc's
    atan2f replayed where the scalar kernel runs (:func:`_glibc_atan2f`, bit for bit), elsewhere the value
    in double rounded once (SLEEF's, but in 2% of values); float64: in long double, rounded once (glibc's
    atan2 in all but 0.1%, SLEEF's in 97.6%). NumPy's own float32 kernel differs from either in a third."""
    if y.dtype == np.float64:
        return np.arctan2(y.astype(np.longdouble), x.astype(np.longdouble)).astype(np.float64)
    if y.dtype != np.float32:
        return np.arctan2(y, x)
    shape = np.broadcast_shapes(y.shape, x.shape)
    lanes = vector_lanes(shape, y.dtype, *inputs)
    if lanes is not None and lanes.all() or not _libm_atan2f_is_fdlibms():
        return np.arctan2(y, x, dtype=np.float64).astype(np.float32)
    scalar = _glibc_atan2f(y, x)
    if lanes is None:
        return scalar
    return np.where(lanes, np.arctan2(y, x, dtype=np.float64).astype(np.float32), scalar)


_F = np.float32  # glibc's constants, from its decimals as the compiler reads them (its hex comments are off)
_ATANHI = np.array([4.6364760399e-01, 7.8539812565e-01, 9.8279368877e-01, 1.5707962513e+00], _F)  # atan(c)
_ATANLO = np.array([5.0121582440e-09, 3.7748947079e-08, 3.4473217170e-08, 7.5497894159e-08], _F)  # its rest
_AT = np.array([3.3333334327e-01, -2.0000000298e-01, 1.4285714924e-01, -1.1111110449e-01, 9.0908870101e-02,
                -7.6918758452e-02, 6.6610731184e-02, -5.8335702866e-02, 4.9768779427e-02, -3.6531571299e-02,
                1.6285819933e-02], _F)  # the polynomial
_PI_O_4, _PI_O_2, _PI, _PI_LO = np.array([7.8539818525e-01, 1.5707963705e+00, 3.1415927410e+00,
                                         -8.7422776573e-08], _F)


@functools.cache
def _libm_atan2f_is_fdlibms() -> bool:
    """Whether this machine's C library's ``atan2f`` (which PyTorch's scalar kernel calls) is fdlibm's,
    as glibc's is (2.36 here): asked once, on values where it differs from the correctly rounded one.
    Elsewhere (another C library, none found) the scalar kernel's values are taken as correctly rounded."""
    try:
        atan2f = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6").atan2f
    except (OSError, AttributeError):
        return False
    atan2f.restype, atan2f.argtypes = ctypes.c_float, [ctypes.c_float, ctypes.c_float]
    y = np.array([-7.254494e-13, 2.2334288e-19, 5.768737e+06, -3.1427725e+06, 1.5685227e+36], np.float32)
    x = np.array([3.0661456e-12, 1.660652e-18, 1.1029496e+08, 981464.06, -6.8915064e+36], np.float32)
    return [atan2f(float(a), float(b)) for a, b in zip(y, x)] == _glibc_atan2f(y, x).tolist()


def _glibc_atanf(x: np.ndarray) -> np.ndarray:
    """glibc's ``atanf`` (fdlibm's, sysdeps/ieee754/flt-32/s_atanf.c), each step in float32 as it is."""
    hx = x.view(np.int32)
    ix = hx & 0x7FFFFFFF
    ax = np.abs(x)
    one, two, half3 = _F(1), _F(2), _F(1.5)
    # argument reduction: t = x (|x| < 0.4375), else one of four, each with atan(c) = hi + lo added back
    ident = np.select([ix < 0x3F300000, ix < 0x3F980000, ix < 0x401C0000], [0, 1, 2], 3)
    t = np.select([ix < 0x3EE00000, ident == 0, ident == 1, ident == 2],
                  [x, (two * ax - one) / (two + ax), (ax - one) / (ax + one),
                   (ax - half3) / (one + half3 * ax)], _F(-1) / ax)
    z = t * t
    w = z * z
    s1 = z * (_AT[0] + w * (_AT[2] + w * (_AT[4] + w * (_AT[6] + w * (_AT[8] + w * _AT[10])))))
    s2 = w * (_AT[1] + w * (_AT[3] + w * (_AT[5] + w * (_AT[7] + w * _AT[9]))))
    reduced = _ATANHI[ident] - ((t * (s1 + s2) - _ATANLO[ident]) - t)
    out = np.where(ix < 0x3EE00000, t - t * (s1 + s2), np.where(hx < 0, -reduced, reduced))
    out = np.where(ix < 0x31000000, x, out)  # |x| < 2**-29: x itself
    big = np.where(hx < 0, -_ATANHI[3] - _ATANLO[3], _ATANHI[3] + _ATANLO[3])  # |x| >= 2**25: +-pi/2
    return np.where(ix >= 0x4C000000, np.where(ix > 0x7F800000, x + x, big), out)


def _glibc_atan2f(y: np.ndarray, x: np.ndarray) -> np.ndarray:
    """glibc's ``atan2f`` (fdlibm's, sysdeps/ieee754/flt-32/e_atan2f.c) on float32 arrays, bit for bit:
    the special cases in its order, then ``atanf(|y / x|)`` moved to the quadrant."""
    y, x = (np.array(v, order="C") for v in np.broadcast_arrays(y, x))  # (0-d stays 0-d)
    hy, hx = y.view(np.int32), x.view(np.int32)
    iy, ix = hy & 0x7FFFFFFF, hx & 0x7FFFFFFF
    m = ((hy >> 31) & 1) | ((hx >> 30) & 2)  # 2 * sign(x) + sign(y)
    k = (iy - ix) >> 23
    z = _glibc_atanf(np.abs(y / x))
    z = np.where(k > 60, _PI_O_2 + _F(0.5) * _PI_LO, np.where((hx < 0) & (k < -60), _F(0), z))
    out = np.choose(m, [z, -z, _PI - (z - _PI_LO), (z - _PI_LO) - _PI])
    # the special cases, the last checked first (each overrides those below it)
    out = np.where(iy == 0x7F800000, np.where(hy < 0, -_PI_O_2, _PI_O_2), out)  # y infinite
    x_inf = np.choose(m, [_F(0), _F(-0.0), _PI, -_PI])
    both_inf = np.choose(m, [_PI_O_4, -_PI_O_4, _F(3) * _PI_O_4, _F(-3) * _PI_O_4])
    out = np.where(ix == 0x7F800000, np.where(iy == 0x7F800000, both_inf, x_inf), out)
    out = np.where(ix == 0, np.where(hy < 0, -_PI_O_2, _PI_O_2), out)  # x zero
    pi = np.broadcast_to(_PI, y.shape)
    out = np.where(iy == 0, np.choose(m, [y, y, pi, -pi]), out)  # y zero
    out = np.where(hx == 0x3F800000, _glibc_atanf(y), out)  # x = 1: atanf(y)
    return np.where((ix > 0x7F800000) | (iy > 0x7F800000), x + y, out).astype(_F)


class Hypot(Function):
    node_name = "HypotBackward0"
    saved_names = ("self", "other", "result")

    @staticmethod
    def forward(ctx: Any, a: Tensor, b: Tensor) -> Tensor:
        dt = result_dtype(a, b)
        out = Tensor._make(iterator_layout(np.asarray(np.hypot(a._data.astype(dt), b._data.astype(dt))),
                                           a._data, b._data))
        need_a, need_b = ctx.needs_input_grad
        ctx.save_for_backward(a if need_a else None, b if need_b else None, out)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        a, b, out = ctx.saved_tensors  # grouped as PyTorch's: grad * self / result
        return (grad * a / out if a is not None else None), (grad * b / out if b is not None else None)


def hypot(a: Tensor, other: Tensor, *, _method: bool = False) -> Tensor:
    """``sqrt(a ** 2 + other ** 2)`` (``torch.hypot``)."""
    _need_tensors("hypot", _method, ("input", a), ("other", other))
    _check_broadcast(a, other)
    dt = result_dtype(a, other)
    if dt.kind != "f":
        raise _not_implemented("hypot_cpu", dt)
    return Hypot.apply(a, other)


class Logaddexp(Function):
    node_name = "LogaddexpBackward0"
    saved_names = ("self", "other")
    kernel = staticmethod(np.logaddexp)

    @staticmethod
    def power(x: Tensor) -> Tensor:
        """``e ** x``, in the derivative (logaddexp2's: ``2 ** x``)."""
        return exp(x)

    @classmethod
    def forward(cls, ctx: Any, a: Tensor, b: Tensor) -> Tensor:
        ctx.save_for_backward(a, b)
        dt = result_dtype(a, b)
        with _quiet():  # (TensorIterator's layout: an expanded operand gives a row-major result)
            out = np.asarray(cls.kernel(a._data.astype(dt), b._data.astype(dt)))
        return Tensor._make(iterator_layout(out, a._data, b._data))

    @classmethod
    def backward(cls, ctx: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
        a, b = ctx.saved_tensors  # PyTorch's grad / (1 + exp(other - self)): the 1 a number (AddBackward1)
        need_a, need_b = ctx.needs_input_grad
        return (grad / AddNumber.apply(cls.power(b - a), 1) if need_a else None,
                grad / AddNumber.apply(cls.power(a - b), 1) if need_b else None)


def logaddexp(a: Tensor, other: Tensor, *, _method: bool = False) -> Tensor:
    """``log(exp(a) + exp(other))``, computed stably (``torch.logaddexp``)."""
    return _logaddexp("logaddexp", Logaddexp, a, other, _method)


class Logaddexp2(Logaddexp):
    """``log2(2 ** a + 2 ** b)`` (NumPy's kernel: PyTorch's in 91% of values, the others in the last bit)."""

    node_name = "Logaddexp2Backward0"
    kernel = staticmethod(np.logaddexp2)

    @staticmethod
    def power(x: Tensor) -> Tensor:
        return 2 ** x


def logaddexp2(a: Tensor, other: Tensor, *, _method: bool = False) -> Tensor:
    """``log2(2 ** a + 2 ** other)``, computed stably (``torch.logaddexp2``)."""
    return _logaddexp("logaddexp2", Logaddexp2, a, other, _method)


def _logaddexp(name: str, cls: type[Logaddexp], a: Tensor, other: Tensor, method: bool) -> Tensor:
    _need_tensors(name, method, ("input", a), ("other", other))
    _check_broadcast(a, other)
    dt = result_dtype(a, other)
    if dt.kind != "f":
        raise _not_implemented(f"{name}_cpu", dt)
    return cls.apply(a, other)


class Xlogy(Function):
    """``a * log(other)``, 0 where ``a`` is 0 (unless ``other`` is nan): PyTorch's kernel, ``log`` the C
    library's (rounded once from double here). One of the two may be a number: the node is then
    XlogyBackward1 (a number ``a``) or XlogyBackward2 (a number ``other``), as PyTorch names them."""

    node_name = "XlogyBackward0"
    saved_names = ("self", "other")

    @classmethod
    def forward(cls, ctx: Any, a: Tensor, b: Tensor) -> Tensor:
        ctx.save_for_backward(a, b)
        dt = _float_result(a, b)
        x, y = a._data.astype(dt, copy=False), b._data.astype(dt, copy=False)
        with _quiet():
            out = np.where(np.isnan(y), y, np.where(x == 0, dt.type(0), x * _log(y)))
        return Tensor._make(iterator_layout(np.asarray(out, dt), a._data, b._data))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        # PyTorch's: xlogy(grad, other), 0 where self is 0 and other <= 0; grad * self / other
        grad_a = xlogy(grad, b).masked_fill(_const((a._data == 0) & (b._data <= 0)), 0) if need_a else None
        return grad_a, grad * a / b if need_b else None


def xlogy(a: Any, other: Any) -> Tensor:
    """``a * log(other)``, 0 where ``a`` is 0 (``torch.xlogy``, ``torch.special.xlogy``)."""
    if not isinstance(a, Tensor) and not isinstance(other, Tensor):
        raise TypeError(f"xlogy(): argument 'input' (position 1) must be Tensor, not {type(a).__name__}")
    cls = Xlogy if isinstance(a, Tensor) and isinstance(other, Tensor) else (
        XlogyNumberSelf if isinstance(other, Tensor) else XlogyNumberOther)
    if isinstance(a, Tensor) and isinstance(other, Tensor):
        _check_broadcast(a, other)
    return cls.apply(*(x if isinstance(x, Tensor) else as_operand(x, _float_result(a, other))
                       for x in (a, other)))


class XlogyNumberSelf(Xlogy):
    node_name = "XlogyBackward1"


class XlogyNumberOther(Xlogy):
    node_name = "XlogyBackward2"


def _sinc(x: np.ndarray) -> np.ndarray:
    """``sin(pi x) / (pi x)``, 1 at 0: PyTorch's kernel, the product in the tensor's dtype."""
    product = x * x.dtype.type(math.pi)
    return np.where(x == 0, x.dtype.type(1), _sin(product) / product)


def _sinc_grad(grad: Tensor, a: Tensor) -> Tensor:
    """PyTorch's sinc_backward, step by step (what create_graph records)."""
    a_pi, a_squared_pi = a * math.pi, a * a * math.pi
    out = grad * (a_pi * cos(a_pi) - sin(a_pi)) / a_squared_pi
    return out.masked_fill(_const(a_squared_pi._data == 0), 0)


Sinc = _unary("Sinc", "SincBackward0", _sinc, _sinc_grad)


def sinc(a: Tensor) -> Tensor:
    """The normalized sinc function ``sin(pi a) / (pi a)`` (``torch.sinc``)."""
    return Sinc.apply(a)


# ---------------------------------------------------------------------------- the gamma family
# (their kernels, PyTorch's own algorithms replayed bit for bit, are in ops/special.py)
Lgamma = _unary("Lgamma", "LgammaBackward0", lambda x: iterator_layout(special.lgamma(x), x),
                lambda g, x: g * digamma(x))


def lgamma(a: Tensor) -> Tensor:
    """``log |Gamma(a)|``, +inf at 0 and the negative integers; its derivative is :func:`digamma`
    (``torch.lgamma``)."""
    _need_tensors("lgamma", False, ("input", a))
    return Lgamma.apply(a)


Digamma = _unary("Digamma", "DigammaBackward0", lambda x: iterator_layout(special.digamma(x), x),
                 lambda g, x: g * polygamma(1, x))


def digamma(a: Tensor) -> Tensor:
    """``Gamma'(a) / Gamma(a)``, the derivative of :func:`lgamma`: -inf at +0, +inf at -0, nan at the
    negative integers; its derivative is ``polygamma(1, a)`` (``torch.digamma``)."""
    _need_tensors("digamma", False, ("input", a))
    return Digamma.apply(a)


class Polygamma(Function):
    """``polygamma(n, x)``, the ``n``-th derivative of digamma (``n = 0``: digamma itself); its derivative
    is ``polygamma(n + 1, x)``."""

    node_name = "PolygammaBackward0"
    saved_names = ("self",)

    @staticmethod
    def forward(ctx: Any, a: Tensor, n: int) -> Tensor:
        if n < 0:  # (after autograd's checks of an in-place call, as PyTorch's)
            raise RuntimeError("polygamma(n, x) does not support negative n.")
        ctx.save_for_backward(a)
        ctx.n = ctx._saved_n = n
        x = _floating(a._data)
        with _quiet():
            return Tensor._make(iterator_layout(special.polygamma(n, x), x))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        (a,) = ctx.saved_tensors
        return grad * polygamma(ctx.n + 1, a), None


def polygamma(n: int, input: Tensor) -> Tensor:
    """The ``n``-th derivative of :func:`digamma` (``torch.polygamma``)."""
    check_arg_types("polygamma", False, ("n", 1, n, int))
    if not isinstance(input, Tensor):
        raise TypeError("polygamma(): argument 'input' (position 2) must be Tensor, not "
                        f"{type(input).__name__}")
    return Polygamma.apply(input, int(n))


class PolygammaInplace(Polygamma):
    """``x.polygamma_(n)``: the same op, which PyTorch records as PolygammaBackward1."""

    node_name = "PolygammaBackward1"


def polygamma_(a: Tensor, n: int) -> Tensor:
    """``polygamma(n, a)`` written into ``a`` (``Tensor.polygamma_``)."""
    check_arg_types("polygamma_", False, ("n", 1, n, int))
    return inplace(a, PolygammaInplace.apply, int(n))



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


def heaviside(a: Tensor, values: Tensor, *, _method: bool = False, _op: str = "heaviside") -> Tensor:
    """0 where ``a < 0``, 1 where ``a > 0``, ``values`` where ``a == 0``; no derivative
    (``torch.heaviside``)."""
    _need_tensors("heaviside", _method, ("input", a), ("values", values))
    _check_broadcast(a, values)
    if a._data.dtype != values._data.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    x = a._data
    out = np.where(x == 0, values._data, x > 0).astype(x.dtype)
    return NotImplementedBackward.apply(_op, np.asarray(out), *_needing_grad(a, values))
