"""Activations: relu, sigmoid, tanh, softmax; leaky_relu, gelu, silu, mish, elu, softplus, logsigmoid,
hardtanh, relu6, softsign, prelu. Each op PyTorch records as one node is one :class:`Function` with PyTorch's
node name:

==================================  ================================================================
``leaky_relu``                      ``LeakyReluBackward0``; in place ``LeakyReluBackward1`` (saves the
                                    result, as PyTorch)
``gelu`` (``approximate``)          ``GeluBackward0``
``silu`` / ``mish``                 ``SiluBackward0`` / ``MishBackward0``
``elu``                             ``EluBackward0``; in place ``EluBackward1``
``softplus`` / ``hardtanh``         ``SoftplusBackward0`` / ``HardtanhBackward0`` (also ``relu6``)
``logsigmoid``                      ``LogSigmoidBackward0`` (keeps ``exp(-|x|)`` as ``buffer``)
``prelu``                           ``PreluKernelBackward0`` (the weight viewed to broadcast)
==================================  ================================================================

``softsign`` is a composite in PyTorch and is built here from the same ops. Scalars that PyTorch's
nodes keep (``node._saved_negative_slope``, ...) are attributes of the node. Every backward is made
of tensor operations (or of a ``Function`` whose own backward is), so ``create_graph=True`` works.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from ...dtypes import scalar_type_name
from ...function import Function
from ...ops import logarithmic, pointwise
from ...ops.inplace import inplace as in_place
from ...ops.promotion import _const, as_operand, iterator_layout, row_major, vector_lanes
from ...ops.scalar import AddNumber, MulNumber, SubNumber
from ...tensor import Tensor
from ._node import (
    _inplace_backward_check,
    _keep,
    _mask,
    _require_float,
)


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """``max(input, 0)`` elementwise (``ReluBackward0``)."""
    if inplace:
        return in_place(input, pointwise.relu)
    return pointwise.relu(input)


def relu_(input: Tensor) -> Tensor:
    """``relu`` in place (``F.relu_``)."""
    return relu(input, inplace=True)


def tanh(input: Tensor) -> Tensor:
    return pointwise.tanh(input)


def sigmoid(input: Tensor) -> Tensor:
    return pointwise.sigmoid(input)


def _softmax_dim(name: str, ndim: int) -> int:
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X "
        "as an argument.",
        UserWarning,
        stacklevel=3,
    )
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input: Tensor, dim: int | None = None, dtype: Any = None) -> Tensor:
    """``exp(x) / exp(x).sum(dim)``, computed stably (``SoftmaxBackward0``)."""
    if dim is None:
        dim = _softmax_dim("softmax", input.ndim)
    if dtype is not None:
        input = input.to(dtype)
    return logarithmic.softmax(input, dim)


def log_softmax(input: Tensor, dim: int | None = None, dtype: Any = None) -> Tensor:
    """``log(softmax(x))``, computed stably (``LogSoftmaxBackward0``)."""
    if dim is None:
        dim = _softmax_dim("log_softmax", input.ndim)
    if dtype is not None:
        input = input.to(dtype)
    return logarithmic.log_softmax(input, dim)


# ---------------------------------------------------------------------------- leaky relu
class LeakyRelu(Function):
    """``x`` where positive, ``negative_slope * x`` elsewhere."""

    node_name = "LeakyReluBackward0"
    saved_names = ("self",)

    @staticmethod
    def forward(ctx: Any, x: Tensor, slope: float) -> Tensor:
        d = x._data
        ctx.save_for_backward(x)
        ctx.slope = slope
        _keep(ctx, negative_slope=slope)
        return Tensor._make(np.where(d > 0, d, d * d.dtype.type(slope)).astype(d.dtype, copy=False))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        (x,) = ctx.saved_tensors
        return LeakyReluBackward.apply(grad, x, ctx.slope), None


class LeakyReluBackward(Function):
    """leaky_relu's derivative: ``grad`` where ``x > 0``, ``negative_slope * grad`` elsewhere. One node,
    recorded as PyTorch's with ``create_graph=True``; its derivative by ``x`` is 0."""

    node_name = "LeakyReluBackwardBackward0"
    saved_names = ("self",)

    @staticmethod
    def forward(ctx: Any, grad: Tensor, x: Tensor, slope: float) -> Tensor:
        ctx.save_for_backward(x)
        ctx.slope = slope
        _keep(ctx, negative_slope=slope)
        g = grad._data
        return Tensor._make(np.where(x._data > 0, g, g * g.dtype.type(slope)).astype(g.dtype, copy=False))

    @staticmethod
    def backward(ctx: Any, gg: Tensor) -> tuple[Tensor, Tensor, None]:
        (x,) = ctx.saved_tensors
        return LeakyReluBackward.apply(gg, x, ctx.slope), Tensor._make(np.zeros_like(gg._data)), None


class LeakyReluResult(Function):
    """``leaky_relu_``: the same function, its derivative read from the saved result."""

    node_name = "LeakyReluBackward1"
    saved_names = ("result",)

    @staticmethod
    def forward(ctx: Any, x: Tensor, slope: float) -> Tensor:
        d = x._data
        out = Tensor._make(np.where(d > 0, d, d * d.dtype.type(slope)).astype(d.dtype, copy=False))
        ctx.save_for_backward(out)
        ctx.slope = slope
        _keep(ctx, negative_slope=slope)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        _inplace_backward_check(
            "leakyReLu", ctx.slope >= 0,
            " File an issue at https://github.com/pytorch/pytorch if you do require supporting in-place "
            "leakRelu backward calculation with negative slope",
        )
        (out,) = ctx.saved_tensors  # PyTorch's leaky_relu_backward(grad, result, slope, is_result)
        return LeakyReluBackward.apply(grad, out, ctx.slope), None


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """``max(0, x) + negative_slope * min(0, x)`` (``LeakyReluBackward0``)."""
    _require_float(input, "leaky_relu_cpu")
    if inplace:
        return in_place(input, LeakyReluResult.apply, float(negative_slope))
    return LeakyRelu.apply(input, float(negative_slope))


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    return leaky_relu(input, negative_slope, inplace=True)


# ---------------------------------------------------------------------------- gelu
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_SQRT1_2 = math.sqrt(0.5)  # M_SQRT1_2


_GELU_C = 0.044715


_erf = np.frompyfunc(math.erf, 1, 1)


def _erf_term(w: np.ndarray) -> np.ndarray:
    """``1 + erf(w / sqrt(2))`` as PyTorch's kernel computes it (``w * M_SQRT1_2``, C's ``erf``)."""
    return 1.0 + np.asarray(_erf(w * _SQRT1_2), dtype=np.float64)


def _gelu_value(d: np.ndarray, approximate: str) -> np.ndarray:
    w = d.astype(np.float64)
    if approximate == "tanh":
        out = 0.5 * w * (1.0 + np.tanh(_SQRT_2_OVER_PI * (w + _GELU_C * w**3)))
    else:
        out = (w * 0.5) * _erf_term(w)  # (PyTorch's order: x * 0.5 * (1 + erf(x * M_SQRT1_2)))
        if d.dtype == np.float32 and d.size > 1 and d.flags.c_contiguous:
            # PyTorch hands a contiguous float32 tensor of more than one element to oneDNN, whose
            # kernel gives nan for +inf and overflows to inf from 2**127 on (x (1 + erf) before the half)
            out[w >= 2.0**127] = np.inf
            out[w == np.inf] = np.nan
    return iterator_layout(out.astype(d.dtype), d)


def _gelu_derivative(d: np.ndarray, approximate: str) -> np.ndarray:
    w = d.astype(np.float64)
    if approximate == "tanh":
        t = np.tanh(_SQRT_2_OVER_PI * (w + _GELU_C * w**3))
        return 0.5 * (1 + t) + 0.5 * w * (1 - t * t) * _SQRT_2_OVER_PI * (1 + 3 * _GELU_C * w * w)
    return 0.5 * _erf_term(w) + w * (_INV_SQRT_2PI * np.exp(w * w * -0.5))  # (cdf + x * pdf, as PyTorch)


def _gelu_second_derivative(x: Tensor, approximate: str) -> Tensor:
    """gelu''(x) made of tensor ops (so that third derivatives work too)."""
    if approximate == "tanh":  # PyTorch's gelu_double_backward, step by step: the derivative of the product
        # f g h (f = x / 2, g = 1 - tanh(inner)^2, h = d inner / dx) plus f' g h; ATen's `1 - t`, `1 / t`
        inner = MulNumber.apply(x + MulNumber.apply(x ** 3, _GELU_C), _SQRT_2_OVER_PI)
        tanh_inner = pointwise.tanh(inner)
        sech_inner = _ones(x) / pointwise.cosh(inner)
        f = MulNumber.apply(x, 0.5)
        g = _ones(x) - tanh_inner * tanh_inner
        h = MulNumber.apply(AddNumber.apply(MulNumber.apply(x, 3 * _GELU_C) * x, 1), _SQRT_2_OVER_PI)
        g_prime = MulNumber.apply(sech_inner, 2) * (-sech_inner * tanh_inner) * h
        h_prime = MulNumber.apply(MulNumber.apply(x, 6 * _GELU_C), _SQRT_2_OVER_PI)
        f_prime_gh = MulNumber.apply(g, 0.5) * h
        return MulNumber.apply(f_prime_gh, 2) + f * h * g_prime + f * g * h_prime
    # PyTorch's gelu_double_backward, step by step: pdf = kBeta * exp(x * x * -0.5); 2 * pdf - x * x * pdf
    square = x * x  # (one node, used twice)
    pdf = MulNumber.apply(pointwise.exp(MulNumber.apply(square, -0.5)), _K_BETA)
    return MulNumber.apply(pdf, 2) - square * pdf


_K_BETA = 2 / math.sqrt(math.pi) * math.sqrt(0.5) * 0.5  # M_2_SQRTPI * M_SQRT1_2 * 0.5: 1 / sqrt(2 pi)


def _ones(x: Tensor) -> Tensor:
    """Ones of ``x``'s shape and dtype, outside the graph (ATen's scalar-first ``1 - t``, ``1 / t``)."""
    return Tensor._make(np.ones_like(x._data))


class Gelu(Function):
    """``x * Φ(x)`` (Φ the standard normal CDF), or its tanh approximation."""

    node_name = "GeluBackward0"
    saved_names = ("self",)

    @staticmethod
    def forward(ctx: Any, x: Tensor, approximate: str) -> Tensor:
        ctx.save_for_backward(x)
        ctx.approximate = approximate
        _keep(ctx, approximate=approximate)
        return Tensor._make(_gelu_value(x._data, approximate))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        (x,) = ctx.saved_tensors
        return GeluGrad.apply(grad, x, ctx.approximate), None


class GeluGrad(Function):
    """``grad * gelu'(x)``: GELU's backward as an op of its own, as PyTorch's ``gelu_backward``."""

    node_name = "GeluBackwardBackward0"
    saved_names = ("grad_output", "self")

    @staticmethod
    def forward(ctx: Any, grad: Tensor, x: Tensor, approximate: str) -> Tensor:
        ctx.save_for_backward(grad, x)
        ctx.approximate = approximate
        out = grad._data * _gelu_derivative(x._data, approximate)
        return Tensor._make(out.astype(np.result_type(grad._data.dtype, x._data.dtype), copy=False))

    @staticmethod
    def backward(ctx: Any, gg: Tensor) -> tuple[Tensor | None, Tensor | None, None]:
        grad, x = ctx.saved_tensors
        need_grad, need_x = ctx.needs_input_grad[:2]
        g_grad = GeluGrad.apply(gg, x, ctx.approximate) if need_grad else None
        g_x = gg * grad * _gelu_second_derivative(x, ctx.approximate) if need_x else None
        return g_grad, g_x, None


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """Gaussian error linear unit (``GeluBackward0``); ``approximate="tanh"`` for the tanh formula."""
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    _require_float(input, "GeluKernelImpl")
    return Gelu.apply(input, approximate)


# ---------------------------------------------------------------------------- silu, mish
def _sigmoid_np(d: np.ndarray) -> np.ndarray:
    e = np.exp(-np.abs(d))
    return np.where(d >= 0, 1 / (1 + e), e / (1 + e)).astype(d.dtype, copy=False)


def _softplus_np(d: np.ndarray) -> np.ndarray:
    return (np.maximum(d, 0) + np.log1p(np.exp(-np.abs(d)))).astype(d.dtype, copy=False)


def _softplus_t(x: Tensor) -> Tensor:
    """log(1 + exp(x)) of tensor ops, without overflow."""
    return pointwise.relu(x) + pointwise.log(pointwise.exp(-pointwise.abs(x)) + 1)


class Silu(Function):
    """``x * sigmoid(x)``."""

    node_name = "SiluBackward0"
    saved_names = ("self",)

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return Tensor._make((x._data * _sigmoid_np(x._data)).astype(x._data.dtype, copy=False))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        s = pointwise.sigmoid(x)
        one = _const(np.ones((), s._data.dtype))
        # PyTorch's infinitely_differentiable_silu_backward, grad * s * (1 + x * (1 - s)), its right factor
        # made first as its compiled C++ makes it (the order nodes run in a double backward)
        right = AddNumber.apply(x * (one - s), 1)
        return grad * s * right


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """Sigmoid linear unit (swish), ``x * sigmoid(x)`` (``SiluBackward0``)."""
    _require_float(input, "silu_cpu")
    if inplace:
        return in_place(input, Silu.apply)
    return Silu.apply(input)


class Mish(Function):
    """``x * tanh(softplus(x))``."""

    node_name = "MishBackward0"
    saved_names = ("self",)

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        d = x._data
        return Tensor._make((d * np.tanh(_softplus_np(d))).astype(d.dtype, copy=False))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors  # PyTorch's infinitely_differentiable_mish_backward, as it records it:
        s = pointwise.sigmoid(x)  # sigmoid, then tanh(softplus), then the right factor first (its compiled
        t = pointwise.tanh(pointwise.log1p(pointwise.exp(x)))  # C++'s order: the order a double backward
        right = as_operand(1.0, x._data.dtype) - t * t  # runs the nodes in)
        return grad * (t + x * s * right)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """``x * tanh(softplus(x))`` (``MishBackward0``)."""
    _require_float(input, "mish_cpu")
    if inplace:
        return in_place(input, Mish.apply)
    return Mish.apply(input)


# ---------------------------------------------------------------------------- elu
def _elu_np(d: np.ndarray, alpha: float) -> np.ndarray:
    neg = np.expm1(np.minimum(0, d)) * alpha  # (d kept on a tie: elu(-0.0) is -0.0, as PyTorch's)
    return np.where(d > 0, d, neg).astype(d.dtype, copy=False)


class Elu(Function):
    """``x`` where positive, ``alpha * (exp(x) - 1)`` elsewhere."""

    node_name = "EluBackward0"
    saved_names = ("self",)

    @staticmethod
    def forward(ctx: Any, x: Tensor, alpha: float) -> Tensor:
        ctx.save_for_backward(x)
        ctx.alpha = alpha
        _keep(ctx, alpha=alpha, scale=1, input_scale=1)
        return Tensor._make(_elu_np(x._data, alpha))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        (x,) = ctx.saved_tensors
        return EluBackward.apply(grad, x, ctx.alpha), None


class EluBackward(Function):
    """elu's derivative ``grad * (1 if x > 0 else alpha * exp(x))`` as one node, recorded as PyTorch's
    with ``create_graph=True``."""

    node_name = "EluBackwardBackward0"
    saved_names = ("grad_output", "self_or_result")

    @staticmethod
    def forward(ctx: Any, grad: Tensor, x: Tensor, alpha: float, is_result: bool = False) -> Tensor:
        ctx.save_for_backward(grad, x)
        ctx.alpha, ctx.is_result = alpha, is_result
        _keep(ctx, alpha=alpha, scale=1, input_scale=1, is_result=is_result)
        g, d = grad._data, x._data
        if is_result:  # x is elu's result: alpha * exp(input) = result + alpha where it is <= 0
            return Tensor._make(np.where(d > 0, g, g * (d + d.dtype.type(alpha))).astype(g.dtype, copy=False))
        slope = np.exp(np.minimum(d, 0)) * d.dtype.type(alpha)
        return Tensor._make(np.where(d > 0, g, g * slope).astype(g.dtype, copy=False))

    @staticmethod
    def backward(ctx: Any, gg: Tensor) -> tuple[Tensor | None, Tensor | None, None, None]:
        grad, x = ctx.saved_tensors
        need_grad, need_x = ctx.needs_input_grad[:2]
        g_grad = EluBackward.apply(gg, x, ctx.alpha, ctx.is_result) if need_grad else None
        g_x = None
        if need_x:  # PyTorch's elu_double_backward (grad * grad_output * input_scale, ...) * (x < 0)
            scaled = MulNumber.apply(gg * grad, 1)
            if not ctx.is_result:
                scaled = EluBackward.apply(scaled, x, ctx.alpha)
            g_x = scaled * _mask(x._data < 0, gg)
        return g_grad, g_x, None, None


class EluResult(Function):
    """``elu_``: the derivative read from the saved result (``alpha * exp(x) = result + alpha``)."""

    node_name = "EluBackward1"
    saved_names = ("result",)

    @staticmethod
    def forward(ctx: Any, x: Tensor, alpha: float) -> Tensor:
        out = Tensor._make(_elu_np(x._data, alpha))
        ctx.save_for_backward(out)
        ctx.alpha = alpha
        _keep(ctx, alpha=alpha, scale=1, input_scale=1)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        _inplace_backward_check("elu", ctx.alpha >= 0)
        (out,) = ctx.saved_tensors  # PyTorch's elu_backward(grad, ..., is_result=True, result)
        return EluBackward.apply(grad, out, ctx.alpha, True), None


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """Exponential linear unit (``EluBackward0``; in place ``EluBackward1``)."""
    _require_float(input, "elu_cpu")
    if inplace:
        return in_place(input, EluResult.apply, float(alpha))
    return Elu.apply(input, float(alpha))


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return elu(input, alpha, inplace=True)


# ---------------------------------------------------------------------------- softplus
class Softplus(Function):
    """``log(1 + exp(beta * x)) / beta``, linear where ``beta * x > threshold``."""

    node_name = "SoftplusBackward0"
    saved_names = ("self",)

    @staticmethod
    def forward(ctx: Any, x: Tensor, beta: float, threshold: float) -> Tensor:
        ctx.save_for_backward(x)
        ctx.beta, ctx.threshold = beta, threshold
        _keep(ctx, beta=beta, threshold=threshold)
        d = x._data
        scaled = d * d.dtype.type(beta)
        with np.errstate(over="ignore"):
            soft = _softplus_np(scaled) / d.dtype.type(beta)
        return Tensor._make(np.where(scaled > threshold, d, soft).astype(d.dtype, copy=False))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None]:
        (x,) = ctx.saved_tensors
        return SoftplusBackward.apply(grad, x, ctx.beta, ctx.threshold), None, None


class SoftplusBackward(Function):
    """softplus's derivative ``grad * sigmoid(beta * x)`` (``grad`` where linear) as one node, recorded
    as PyTorch's with ``create_graph=True``."""

    node_name = "SoftplusBackwardBackward0"
    saved_names = ("grad_output", "self")

    @staticmethod
    def forward(ctx: Any, grad: Tensor, x: Tensor, beta: float, threshold: float) -> Tensor:
        ctx.save_for_backward(grad, x)
        ctx.beta, ctx.threshold = beta, threshold
        _keep(ctx, beta=beta, threshold=threshold)
        g, d = grad._data, x._data
        scaled = d * d.dtype.type(beta)
        out = np.where(scaled > threshold, g, g * _sigmoid_np(scaled))
        return Tensor._make(out.astype(g.dtype, copy=False))

    @staticmethod
    def backward(ctx: Any, gg: Tensor) -> tuple[Tensor | None, Tensor | None, None, None]:
        grad, x = ctx.saved_tensors
        need_grad, need_x = ctx.needs_input_grad[:2]
        g_grad = SoftplusBackward.apply(gg, x, ctx.beta, ctx.threshold) if need_grad else None
        g_x = None
        if need_x:  # PyTorch's softplus_double_backward: sigmoid's derivative, 0 where linear, times beta
            scaled = MulNumber.apply(x, ctx.beta)  # (a Scalar in PyTorch's formula: MulBackward1, twice)
            curved = _mask(scaled._data < ctx.threshold, gg)
            slope = pointwise.SigmoidBackward.apply(gg * grad, pointwise.sigmoid(scaled))
            g_x = MulNumber.apply(slope * curved, ctx.beta)
        return g_grad, g_x, None, None


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """Smooth ReLU, ``log(1 + exp(beta * x)) / beta`` (``SoftplusBackward0``)."""
    _require_float(input, "softplus_cpu")
    return Softplus.apply(input, float(beta), float(threshold))


# ---------------------------------------------------------------------------- logsigmoid
class LogSigmoid(Function):
    """``log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|))``, never overflowing; like PyTorch it keeps
    ``exp(-|x|)`` as ``buffer`` for the backward."""

    node_name = "LogSigmoidBackward0"
    saved_names = ("self", "buffer")

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        d = x._data
        buffer = np.exp(-np.abs(d))
        ctx.save_for_backward(x, Tensor._make(buffer))
        return Tensor._make(row_major((np.minimum(d, 0) - np.log1p(buffer)).astype(d.dtype, copy=False)))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        x, buffer = ctx.saved_tensors
        return LogSigmoidBackward.apply(grad, x, (buffer,))


class LogSigmoidBackward(Function):
    """logsigmoid's derivative ``grad * sigmoid(-x)`` as one node, recorded as PyTorch's with
    ``create_graph=True``. The buffer comes boxed: no input of the node (no edge), as in PyTorch."""

    node_name = "LogSigmoidBackwardBackward0"
    saved_names = ("grad_output", "self", "buffer")

    @staticmethod
    def forward(ctx: Any, grad: Tensor, x: Tensor, boxed: tuple) -> Tensor:
        (buffer,) = boxed
        ctx.save_for_backward(grad, x, buffer)
        g, d, e = grad._data, x._data, buffer._data
        return Tensor._make((g * np.where(d < 0, 1 / (1 + e), e / (1 + e))).astype(g.dtype, copy=False))

    @staticmethod
    def backward(ctx: Any, gg: Tensor) -> tuple[Tensor | None, Tensor | None, None]:
        grad, x, buffer = ctx.saved_tensors
        need_grad, need_x = ctx.needs_input_grad[:2]
        g_grad = LogSigmoidBackward.apply(gg, x, (buffer,)) if need_grad else None
        if not need_x:
            return g_grad, None, None
        s = pointwise.sigmoid(x)  # PyTorch's log_sigmoid_double_backward: gg * grad * (s - 1) * s
        return g_grad, gg * grad * SubNumber.apply(s, 1) * s, None


def logsigmoid(input: Tensor) -> Tensor:
    """``log(1 / (1 + exp(-x)))``, computed stably (``LogSigmoidBackward0``)."""
    _require_float(input, "log_sigmoid_cpu")
    return LogSigmoid.apply(input)


# ---------------------------------------------------------------------------- hardtanh, relu6
class Hardtanh(Function):
    """``x`` clipped to ``[min_val, max_val]``; the gradient passes strictly inside."""

    node_name = "HardtanhBackward0"
    saved_names = ("self",)

    @staticmethod
    def forward(ctx: Any, x: Tensor, lo: float, hi: float) -> Tensor:
        ctx.save_for_backward(x)
        ctx.lo, ctx.hi = lo, hi
        _keep(ctx, min_val=lo, max_val=hi)
        d = x._data
        # bounds first: NumPy keeps the second operand on a tie (relu6(-0.0) is -0.0, as PyTorch's)
        return Tensor._make(np.minimum(hi, np.maximum(lo, d)).astype(d.dtype, copy=False))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None]:
        (x,) = ctx.saved_tensors
        return HardtanhBackward.apply(grad, x, ctx.lo, ctx.hi), None, None


class HardtanhBackward(Function):
    """hardtanh's derivative: ``grad`` strictly inside ``(min_val, max_val)``, else 0. One node,
    recorded as PyTorch's with ``create_graph=True``; its derivative by ``x`` is 0."""

    node_name = "HardtanhBackwardBackward0"
    saved_names = ("self",)

    @staticmethod
    def forward(ctx: Any, grad: Tensor, x: Tensor, lo: float, hi: float) -> Tensor:
        ctx.save_for_backward(x)
        ctx.lo, ctx.hi = lo, hi
        _keep(ctx, min_val=lo, max_val=hi)
        g, d = grad._data, x._data
        inside = (d > lo) & (d < hi)
        # a nan: PyTorch's scalar kernel passes its gradient (it asks "x <= min or x >= max?"), its vector
        # kernel does not ("x > min and x < max?"): which one computes which element, as vector_lanes says
        nan = np.isnan(d) if d.dtype.kind == "f" else None
        if nan is not None and nan.any():
            lanes = vector_lanes(np.broadcast_shapes(g.shape, d.shape), g.dtype, g, d)
            inside = inside | (nan if lanes is None else nan & ~lanes)
        return Tensor._make(np.where(inside, g, 0).astype(g.dtype, copy=False))

    @staticmethod
    def backward(ctx: Any, gg: Tensor) -> tuple[Tensor, Tensor, None, None]:
        (x,) = ctx.saved_tensors
        return (HardtanhBackward.apply(gg, x, ctx.lo, ctx.hi), Tensor._make(np.zeros_like(gg._data)),
                None, None)


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0,
             inplace: bool = False) -> Tensor:
    """``clamp(x, min_val, max_val)`` (``HardtanhBackward0``)."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if inplace:
        return in_place(input, Hardtanh.apply, min_val, max_val)
    return Hardtanh.apply(input, min_val, max_val)


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    return hardtanh(input, min_val, max_val, inplace=True)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """``min(max(0, x), 6)``: ``hardtanh(x, 0, 6)``, the same node in PyTorch."""
    return hardtanh(input, 0.0, 6.0, inplace)


# ---------------------------------------------------------------------------- softsign, prelu
def softsign(input: Tensor) -> Tensor:
    """``x / (1 + |x|)``, composed as in PyTorch (``DivBackward0`` over ``AddBackward0``)."""
    return input / (input.abs() + 1)


class PreluKernel(Function):
    """``x`` where positive, ``weight * x`` elsewhere (``weight`` broadcast over the channels)."""

    node_name = "PreluKernelBackward0"
    saved_names = ("self", "weight")

    @staticmethod
    def forward(ctx: Any, x: Tensor, weight: Tensor) -> Tensor:
        ctx.save_for_backward(x, weight)
        d, w = x._data, weight._data
        return Tensor._make(np.where(d > 0, d, w * d).astype(d.dtype, copy=False))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        x, weight = ctx.saved_tensors
        pos = _mask(x._data > 0, grad)
        need_x, need_w = ctx.needs_input_grad
        grad_x = grad * (pos + (1 - pos) * weight) if need_x else None
        grad_w = grad * x * (1 - pos) if need_w else None
        return grad_x, grad_w


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """Leaky ReLU with a learnt slope per channel (dim 1) or one shared (``PreluKernelBackward0``)."""
    if input.dtype is not weight.dtype:
        raise RuntimeError(
            f"prelu: Type promoting not supported. Got {scalar_type_name(input.dtype)} and "
            f"{scalar_type_name(weight.dtype)}"
        )
    if weight.numel() != 1:
        if input.ndim == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = input.shape[1] if input.ndim > 1 else 1
        if channels != weight.numel():
            raise RuntimeError(
                "Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                f"{weight.numel()} and channel size = {channels}."
            )
    if weight.ndim > 1:
        raise RuntimeError(
            f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.ndim}"
        )
    if input.ndim != weight.ndim:
        shape = [1] * input.ndim
        if input.ndim > 1:
            shape[1] = weight.numel()
        weight = weight.reshape(shape)
    return PreluKernel.apply(input, weight)
