"""More of ``torch.nn.functional``: activations, layer norm, embedding, losses, similarity and padding.

Re-exported by :mod:`autograd_lab.nn.functional`. As there, an op that PyTorch records as one node is
one :class:`Function` here with PyTorch's node name:

==================================  ================================================================
``leaky_relu``                      ``LeakyReluBackward0``; in place ``LeakyReluBackward1`` (saves the
                                    result, as PyTorch)
``gelu`` (``approximate``)          ``GeluBackward0``
``silu`` / ``mish``                 ``SiluBackward0`` / ``MishBackward0``
``elu``                             ``EluBackward0``; in place ``EluBackward1``
``softplus`` / ``hardtanh``         ``SoftplusBackward0`` / ``HardtanhBackward0`` (also ``relu6``)
``prelu``                           ``PreluKernelBackward0`` (the weight viewed to broadcast)
``layer_norm``                      ``NativeLayerNormBackward0``
``embedding``                       ``EmbeddingBackward0``
``binary_cross_entropy``            ``BinaryCrossEntropyBackward0``
``binary_cross_entropy_with_logits``  ``BinaryCrossEntropyWithLogitsBackward0``
``smooth_l1_loss`` / ``huber_loss``   ``SmoothL1LossBackward0`` / ``HuberLossBackward0``
``pad`` (constant)                  ``ConstantPadNdBackward0``
==================================  ================================================================

``softsign``, ``kl_div``, ``cosine_similarity`` and ``normalize`` are composites in PyTorch and are
built here from the same ops, so their graphs show the same nodes. Scalars that PyTorch's nodes
keep (``node._saved_negative_slope``, ...) are attributes of the node; saved tensors are read through
``saved_names`` as for every op. Every backward is made of tensor operations (or of a ``Function``
whose own backward is), so ``create_graph=True`` works.
"""

from __future__ import annotations

import math
import numbers
import warnings
from typing import Any

import numpy as np

from ..dtypes import Size
from ..dtypes import legacy_type_name as _legacy_type_name
from ..dtypes import wrap_dim as _wrap_dim
from ..function import Function
from ..grad_mode import is_grad_enabled
from ..ops import comparison, copies, pointwise, reduction
from ..ops.inplace import inplace as in_place
from ..ops.promotion import binary_operands, broadcast_shape, result_dtype
from ..tensor import Tensor
from . import functional as _F

_REDUCTION_ENUM = {"none": 0, "mean": 1, "sum": 2}


def _const(arr: Any) -> Tensor:
    """A tensor outside the graph (masks, coefficients)."""
    return Tensor._make(np.asarray(arr))


def _mask(cond: np.ndarray, like: Tensor) -> Tensor:
    return _const(cond.astype(like._data.dtype))


def _require_float(t: Tensor, kernel: str) -> None:
    if t._data.dtype.kind != "f":
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_F._legacy(t)}'")


def _keep(ctx: Any, **scalars: Any) -> None:
    """The non-tensor arguments PyTorch's node shows as ``_saved_<name>``. Where PyTorch keeps a SymInt
    (``pad``, ``padding_idx``), a negative value reads back as unsigned 64-bit there, and so here."""
    for key, value in scalars.items():
        setattr(ctx, "_saved_" + key, value)


def _reduce(arr: np.ndarray, reduction: str) -> np.ndarray:
    if reduction == "mean":
        return np.asarray(arr.mean(), dtype=arr.dtype)
    if reduction == "sum":
        return np.asarray(arr.sum(), dtype=arr.dtype)
    return arr


def _inplace_backward_check(name: str, ok: bool, tail: str = "") -> None:
    if not ok:
        raise RuntimeError(
            f"In-place {name} backward calculation is triggered with a negative slope which is not "
            "supported. This is caused by calling in-place forward function with a negative slope, "
            f"please call out-of-place version instead.{tail}"
        )


# ---------------------------------------------------------------------------- leaky_relu
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
        return grad * _const(np.where(x._data > 0, 1, ctx.slope).astype(grad._data.dtype)), None


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
        (out,) = ctx.saved_tensors
        return grad * _const(np.where(out._data > 0, 1, ctx.slope).astype(grad._data.dtype)), None


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:  # noqa: A002
    """``max(0, x) + negative_slope * min(0, x)`` (``LeakyReluBackward0``)."""
    _require_float(input, "leaky_relu_cpu")
    if inplace:
        return in_place(input, LeakyReluResult.apply, float(negative_slope))
    return LeakyRelu.apply(input, float(negative_slope))


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:  # noqa: A002
    return leaky_relu(input, negative_slope, inplace=True)


# ---------------------------------------------------------------------------- gelu
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_GELU_C = 0.044715
_erf = np.frompyfunc(math.erf, 1, 1)


def _normal_cdf(w: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.asarray(_erf(w / math.sqrt(2.0)), dtype=np.float64))


def _gelu_value(d: np.ndarray, approximate: str) -> np.ndarray:
    w = d.astype(np.float64)
    if approximate == "tanh":
        out = 0.5 * w * (1.0 + np.tanh(_SQRT_2_OVER_PI * (w + _GELU_C * w**3)))
    else:
        out = w * _normal_cdf(w)
    return out.astype(d.dtype)


def _gelu_derivative(d: np.ndarray, approximate: str) -> np.ndarray:
    w = d.astype(np.float64)
    if approximate == "tanh":
        t = np.tanh(_SQRT_2_OVER_PI * (w + _GELU_C * w**3))
        return 0.5 * (1 + t) + 0.5 * w * (1 - t * t) * _SQRT_2_OVER_PI * (1 + 3 * _GELU_C * w * w)
    return _normal_cdf(w) + w * np.exp(-0.5 * w * w) * _INV_SQRT_2PI


def _gelu_second_derivative(x: Tensor, approximate: str) -> Tensor:
    """gelu''(x) made of tensor ops (so that third derivatives work too)."""
    if approximate == "tanh":
        u1 = (1 + 3 * _GELU_C * x * x) * _SQRT_2_OVER_PI
        u2 = x * (6 * _GELU_C * _SQRT_2_OVER_PI)
        t = pointwise.tanh((x + _GELU_C * x * x * x) * _SQRT_2_OVER_PI)
        return (1 - t * t) * (u1 + 0.5 * x * (u2 - 2 * t * u1 * u1))
    return pointwise.exp(x * x * -0.5) * _INV_SQRT_2PI * (2 - x * x)


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


def gelu(input: Tensor, approximate: str = "none") -> Tensor:  # noqa: A002
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
        return grad * (s * (x * (1 - s) + 1))


def silu(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
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
        (x,) = ctx.saved_tensors
        t = pointwise.tanh(_softplus_t(x))
        return grad * (t + x * pointwise.sigmoid(x) * (1 - t * t))


def mish(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    """``x * tanh(softplus(x))`` (``MishBackward0``)."""
    _require_float(input, "mish_cpu")
    if inplace:
        return in_place(input, Mish.apply)
    return Mish.apply(input)


# ---------------------------------------------------------------------------- elu
def _elu_np(d: np.ndarray, alpha: float) -> np.ndarray:
    neg = np.expm1(np.minimum(d, 0)) * alpha
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
        pos = _mask(x._data > 0, grad)
        return grad * (pos + (1 - pos) * pointwise.exp(comparison.clamp(x, None, 0)) * ctx.alpha), None


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
        (out,) = ctx.saved_tensors
        pos = _mask(out._data > 0, grad)
        return grad * (pos + (1 - pos) * (out + ctx.alpha)), None


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:  # noqa: A002
    """Exponential linear unit (``EluBackward0``; in place ``EluBackward1``)."""
    _require_float(input, "elu_cpu")
    if inplace:
        return in_place(input, EluResult.apply, float(alpha))
    return Elu.apply(input, float(alpha))


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:  # noqa: A002
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
        linear = _mask(x._data * x._data.dtype.type(ctx.beta) > ctx.threshold, grad)
        return grad * (linear + (1 - linear) * pointwise.sigmoid(x * ctx.beta)), None, None


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:  # noqa: A002
    """Smooth ReLU, ``log(1 + exp(beta * x)) / beta`` (``SoftplusBackward0``)."""
    _require_float(input, "softplus_cpu")
    return Softplus.apply(input, float(beta), float(threshold))


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
        return Tensor._make(np.minimum(np.maximum(d, lo), hi).astype(d.dtype, copy=False))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None]:
        (x,) = ctx.saved_tensors
        return grad * _mask((x._data > ctx.lo) & (x._data < ctx.hi), grad), None, None


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0,  # noqa: A002
             inplace: bool = False) -> Tensor:
    """``clamp(x, min_val, max_val)`` (``HardtanhBackward0``)."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if inplace:
        return in_place(input, Hardtanh.apply, min_val, max_val)
    return Hardtanh.apply(input, min_val, max_val)


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:  # noqa: A002
    return hardtanh(input, min_val, max_val, inplace=True)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    """``min(max(0, x), 6)``: ``hardtanh(x, 0, 6)``, the same node in PyTorch."""
    return hardtanh(input, 0.0, 6.0, inplace)


# ---------------------------------------------------------------------------- softsign, prelu
def softsign(input: Tensor) -> Tensor:  # noqa: A002
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


def prelu(input: Tensor, weight: Tensor) -> Tensor:  # noqa: A002
    """Leaky ReLU with a learnt slope per channel (dim 1) or one shared (``PreluKernelBackward0``)."""
    if input.dtype is not weight.dtype:
        raise RuntimeError(
            f"prelu: Type promoting not supported. Got {_F._legacy(input)} and {_F._legacy(weight)}"
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


# ---------------------------------------------------------------------------- layer norm
class NativeLayerNorm(Function):
    """Normalise over the last ``len(normalized_shape)`` dims of each sample, then scale and shift.

    Saves what PyTorch saves: the input, weight, bias and the per-sample mean (``result1``) and
    reciprocal standard deviation (``result2``), both of shape ``input.shape[:axis] + (1,) * k``.
    """

    node_name = "NativeLayerNormBackward0"
    saved_names = ("input", "weight", "bias", "result1", "result2")

    @staticmethod
    def forward(ctx: Any, x: Tensor, weight: Tensor, bias: Tensor, normalized_shape: tuple,
                eps: float) -> Tensor:
        data = x._data
        k = len(normalized_shape)
        axes = tuple(range(data.ndim - k, data.ndim))
        wide = data.astype(np.float64)
        mean = wide.mean(axis=axes, keepdims=True) if data.size else np.zeros(
            data.shape[:data.ndim - k] + (1,) * k)
        var = ((wide - mean) ** 2).mean(axis=axes, keepdims=True) if data.size else mean
        rstd = 1.0 / np.sqrt(var + eps)
        out = (wide - mean) * rstd
        has_w, has_b = weight is not _F._UNDEFINED, bias is not _F._UNDEFINED
        if has_w:
            out = out * weight._data
        if has_b:
            out = out + bias._data
        ctx.save_for_backward(x, weight if has_w else None, bias if has_b else None,
                              Tensor._make(mean.astype(data.dtype)), Tensor._make(rstd.astype(data.dtype)))
        ctx.axes, ctx.eps = axes, eps
        _keep(ctx, normalized_shape=list(normalized_shape))
        return Tensor._make(out.astype(data.dtype, copy=False))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple:
        x, weight, _bias, _mean, _rstd = ctx.saved_tensors
        axes = ctx.axes
        centered = x - x.mean(axes, keepdim=True)
        rstd = ((centered * centered).mean(axes, keepdim=True) + ctx.eps) ** -0.5
        x_hat = centered * rstd
        need_x, need_w, need_b = ctx.needs_input_grad[:3]
        grad_x = None
        if need_x:
            g = grad * weight if weight is not None else grad
            grad_x = rstd * (g - g.mean(axes, keepdim=True) - x_hat * (g * x_hat).mean(axes, keepdim=True))
        grad_w = grad * x_hat if need_w else None  # the node sums these back to normalized_shape
        grad_b = grad if need_b else None
        return grad_x, grad_w, grad_b, None, None


def layer_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None = None,  # noqa: A002
               bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:
    """Layer normalisation over the trailing ``normalized_shape`` (``NativeLayerNormBackward0``)."""
    if isinstance(normalized_shape, numbers.Integral) or not isinstance(normalized_shape, (tuple, list)):
        raise TypeError(
            "layer_norm(): argument 'normalized_shape' (position 2) must be tuple of ints, not "
            f"{type(normalized_shape).__name__}"
        )
    shape = tuple(int(s) for s in normalized_shape)
    shown = "[" + ", ".join(map(str, shape)) + "]"
    if not shape:
        raise RuntimeError(
            "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
            f"element, but got normalized_shape = {shown}"
        )
    for label, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(t.shape) != shape:
            raise RuntimeError(
                f"Expected {label} to be of same shape as normalized_shape, but got {label} of shape "
                f"{list(t.shape)} and normalized_shape = {shown}"
            )
    k = len(shape)
    if input.ndim < k or tuple(input.shape[input.ndim - k:]) != shape:
        raise RuntimeError(
            f"Given normalized_shape={shown}, expected input with shape [*, {', '.join(map(str, shape))}], "
            f"but got input of size{list(input.shape)}"
        )
    _require_float(input, "LayerNormKernelImpl")
    return NativeLayerNorm.apply(
        input,
        _F._UNDEFINED if weight is None else weight,
        _F._UNDEFINED if bias is None else bias,
        shape,
        float(eps),
    )


# ---------------------------------------------------------------------------- embedding
class Embedding(Function):
    """Rows of ``weight`` picked by integer indices. The indices are no input of the node (one edge,
    to the weight, as PyTorch's); they come wrapped in a tuple and are saved as ``indices``."""

    node_name = "EmbeddingBackward0"
    saved_names = ("indices",)

    @staticmethod
    def forward(ctx: Any, weight: Tensor, boxed: tuple, padding_idx: int, scale_grad_by_freq: bool) -> Tensor:
        (indices,) = boxed
        ctx.save_for_backward(indices)
        ctx.num_weights, ctx.padding_idx, ctx.scale = weight._data.shape[0], padding_idx, scale_grad_by_freq
        _keep(ctx, padding_idx=padding_idx % 2**64, scale_grad_by_freq=scale_grad_by_freq, sparse=False,
              weight_sym_argsize_0=weight._data.shape[0])
        return Tensor._make(weight._data[indices._data])

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None, None]:
        (indices,) = ctx.saved_tensors
        return (EmbeddingDenseGrad.apply(grad, indices._data, ctx.num_weights, ctx.padding_idx, ctx.scale),
                None, None, None)


def _embedding_coefficients(idx: np.ndarray, num_weights: int, padding_idx: int,
                            scale: bool) -> np.ndarray:
    """What each looked-up row's gradient is multiplied by: 0 at padding_idx, 1/count if scaled."""
    flat = idx.reshape(-1)
    coef = (flat != padding_idx).astype(np.float64)
    if scale:
        coef = coef / np.bincount(flat, minlength=num_weights)[flat]
    return coef


class EmbeddingDenseGrad(Function):
    """Embedding's backward: each gradient row added into the row of ``weight`` it came from."""

    node_name = "EmbeddingDenseBackwardBackward0"

    @staticmethod
    def forward(ctx: Any, grad: Tensor, idx: np.ndarray, num_weights: int, padding_idx: int,
                scale: bool) -> Tensor:
        g = grad._data
        dim = g.shape[-1]
        coef = _embedding_coefficients(idx, num_weights, padding_idx, scale)
        rows = g.reshape(-1, dim) * coef[:, None].astype(g.dtype)
        out = np.zeros((num_weights, dim), dtype=g.dtype)
        np.add.at(out, idx.reshape(-1), rows)
        ctx.idx, ctx.keep = idx, (idx != padding_idx)[..., None].astype(g.dtype)
        return Tensor._make(out)

    @staticmethod
    def backward(ctx: Any, gg: Tensor) -> tuple[Tensor, None, None, None, None]:
        # as PyTorch's embedding_dense_double_backward: the rows again, padding masked, not rescaled
        # (the first backward did the scaling by frequency)
        return gg[ctx.idx] * _const(ctx.keep), None, None, None, None


def _embedding_renorm(weight: Tensor, idx: np.ndarray, max_norm: float, norm_type: float) -> None:
    """Rows looked up whose norm exceeds ``max_norm`` are scaled down in place, outside the graph."""
    rows = np.unique(idx)
    data = weight._data[rows]
    if norm_type == math.inf:
        norms = np.abs(data).max(axis=1, initial=0)
    else:
        norms = (np.abs(data.astype(np.float64)) ** norm_type).sum(axis=1) ** (1.0 / norm_type)
    big = norms > max_norm
    if big.any():
        scale = (max_norm / (norms[big] + 1e-7)).astype(data.dtype)
        weight._data[rows[big]] = data[big] * scale[:, None]
        weight._version_counter.value += 1


def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None,  # noqa: A002
              max_norm: float | None = None, norm_type: float = 2.0, scale_grad_by_freq: bool = False,
              sparse: bool = False) -> Tensor:
    """Look up rows of ``weight`` by the indices in ``input`` (``EmbeddingBackward0``).

    No gradient reaches the row ``padding_idx``; ``max_norm`` renormalises the rows looked up, in
    place, as PyTorch does.
    """
    if padding_idx is not None:
        if padding_idx > 0:
            if not padding_idx < weight.shape[0]:
                raise AssertionError("Padding_idx must be within num_embeddings")
        elif padding_idx < 0:
            if not padding_idx >= -weight.shape[0]:
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = weight.shape[0] + padding_idx
    else:
        padding_idx = -1
    if sparse:
        raise NotImplementedError("autograd_lab has no sparse tensors: use sparse=False")
    if weight.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    if input.dtype.name not in ("int64", "int32"):
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, "
            f"Int; but got {_legacy_type_name(input.dtype)} instead (while checking arguments for embedding)"
        )
    idx = input._data
    if idx.size and (idx.min() < 0 or idx.max() >= weight.shape[0]):
        raise IndexError("index out of range in self")
    if max_norm is not None:
        _embedding_renorm(weight, idx, float(max_norm), float(norm_type))
    return Embedding.apply(weight, (input,), int(padding_idx), bool(scale_grad_by_freq))


# ---------------------------------------------------------------------------- binary cross-entropy
def _not_differentiable(fn: str, **tensors: Tensor | None) -> None:
    for arg, t in tensors.items():
        if t is not None and is_grad_enabled() and t.requires_grad:
            raise RuntimeError(
                f"The function '{fn}' is not differentiable with respect to argument '{arg}'. This input "
                "cannot have requires_grad True."
            )


class BinaryCrossEntropy(Function):
    """``-w * (y * log(x) + (1 - y) * log(1 - x))``, each log clamped at -100 as in PyTorch.

    Weight is no input of the node (PyTorch's has edges to input and target only); it comes boxed.
    """

    node_name = "BinaryCrossEntropyBackward0"
    saved_names = ("self", "target", "weight")

    @staticmethod
    def forward(ctx: Any, x: Tensor, y: Tensor, boxed: tuple, reduction: str) -> Tensor:
        (weight,) = boxed
        d, t = x._data, y._data
        if not ((d >= 0) & (d <= 1)).all():
            raise RuntimeError("all elements of input should be between 0 and 1")
        with np.errstate(divide="ignore"):
            log_x = np.maximum(np.log(d), -100)
            log_1mx = np.maximum(np.log1p(-d), -100)
        loss = ((t - 1) * log_1mx - t * log_x).astype(d.dtype, copy=False)
        if weight is not None:
            loss = (loss * weight._data).astype(d.dtype, copy=False)
        ctx.save_for_backward(x, y, weight)
        ctx.reduction, ctx.count = reduction, loss.size
        _keep(ctx, reduction=_REDUCTION_ENUM[reduction])
        return Tensor._make(_reduce(loss, reduction))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None, None, None]:
        x, y, weight = ctx.saved_tensors
        if ctx.reduction == "mean":
            grad = grad / ctx.count
        if weight is not None:
            grad = grad * weight
        need_x, need_y = ctx.needs_input_grad[:2]
        grad_x = grad * (x - y) / comparison.clamp(x * (1 - x), 1e-12, None) if need_x else None
        grad_y = grad * (pointwise.log(1 - x) - pointwise.log(x)) if need_y else None
        return grad_x, grad_y, None, None


def _broadcast_shapes_against(base: Size, other: Size) -> tuple[int, ...]:
    """``torch.broadcast_shapes(base, other)`` with its message for a mismatch."""
    n = max(len(base), len(other))
    result = [1] * (n - len(base)) + list(base)
    for i in range(-1, -len(other) - 1, -1):
        if other[i] == 1 or other[i] == result[i]:
            continue
        if result[i] != 1:
            raise RuntimeError(
                f"Attempting to broadcast a dimension of length {other[i]} at {i}! Mismatching argument at "
                f"index 1 had {Size(other)}; but expected shape should be broadcastable to {result}"
            )
        result[i] = other[i]
    return tuple(result)


def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,  # noqa: A002
                         size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> Tensor:
    """Binary cross-entropy of probabilities ``input`` and targets (``BinaryCrossEntropyBackward0``)."""
    reduction = _F._legacy_reduction(size_average, reduce, reduction)
    _F._check_reduction(reduction)
    if target.shape != input.shape:
        raise ValueError(
            f"Using a target size ({target.shape}) that is different to the input size ({input.shape}) is "
            "deprecated. Please ensure they have the same size."
        )
    if weight is not None:
        weight = weight.expand(*_broadcast_shapes_against(target.shape, weight.shape))
    if input.dtype.name in ("int64", "int32", "int16", "int8", "uint8", "bool"):
        raise NotImplementedError(f"\"binary_cross_entropy\" not implemented for '{_F._legacy(input)}'")
    if target.dtype is not input.dtype:
        raise RuntimeError(f"Found dtype {_F._legacy(target)} but expected {_F._legacy(input)}")
    _not_differentiable("binary_cross_entropy", weight=weight)
    return BinaryCrossEntropy.apply(input, target, (weight,), reduction)


def _log_sigmoid_np(d: np.ndarray) -> np.ndarray:
    return np.minimum(d, 0) - np.log1p(np.exp(-np.abs(d)))


def _log_sigmoid_t(x: Tensor) -> Tensor:
    return comparison.clamp(x, None, 0) - pointwise.log(pointwise.exp(-pointwise.abs(x)) + 1)


class BinaryCrossEntropyWithLogits(Function):
    """``(1 - y) * x - (1 + (pos_weight - 1) * y) * log_sigmoid(x)``, times ``weight``: stable for
    every ``x``. Weight and pos_weight are no inputs of the node (boxed), as in PyTorch."""

    node_name = "BinaryCrossEntropyWithLogitsBackward0"
    saved_names = ("self", "target", "weight", "pos_weight")

    @staticmethod
    def forward(ctx: Any, x: Tensor, y: Tensor, boxed: tuple, reduction: str) -> Tensor:
        weight, pos_weight = boxed
        d, t = x._data, y._data
        log_sig = _log_sigmoid_np(d)
        if pos_weight is not None:
            log_sig = log_sig * ((pos_weight._data - 1) * t + 1)
        loss = (1 - t) * d - log_sig
        if weight is not None:
            loss = loss * weight._data
        loss = loss.astype(np.result_type(d.dtype, t.dtype), copy=False)
        ctx.save_for_backward(x, y, weight, pos_weight)
        ctx.reduction, ctx.count = reduction, loss.size
        _keep(ctx, reduction=_REDUCTION_ENUM[reduction])
        return Tensor._make(_reduce(loss, reduction))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None, None, None]:
        x, y, weight, pos_weight = ctx.saved_tensors
        if ctx.reduction == "mean":
            grad = grad / ctx.count
        if weight is not None:
            grad = grad * weight
        need_x, need_y = ctx.needs_input_grad[:2]
        grad_x = grad_y = None
        if need_x:
            if pos_weight is not None:
                pt = pos_weight * y
                grad_x = grad * ((pt + 1 - y) * pointwise.sigmoid(x) - pt)
            else:
                grad_x = grad * (pointwise.sigmoid(x) - y)
        if need_y:
            if pos_weight is not None:
                grad_y = grad * (_log_sigmoid_t(-x) - _log_sigmoid_t(x) * pos_weight)
            else:
                grad_y = grad * -x
        return grad_x, grad_y, None, None


def binary_cross_entropy_with_logits(
    input: Tensor,  # noqa: A002
    target: Tensor,
    weight: Tensor | None = None,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
    pos_weight: Tensor | None = None,
) -> Tensor:
    """Sigmoid and binary cross-entropy in one stable op (``BinaryCrossEntropyWithLogitsBackward0``)."""
    reduction = _F._legacy_reduction(size_average, reduce, reduction)
    _F._check_reduction(reduction)
    if target.shape != input.shape:
        raise ValueError(f"Target size ({target.shape}) must be the same as input size ({input.shape})")
    if pos_weight is not None:
        broadcast_shape(pos_weight.shape, target.shape)
    if weight is not None:
        broadcast_shape(input.shape, weight.shape)
    _not_differentiable("binary_cross_entropy_with_logits", weight=weight, pos_weight=pos_weight)
    return BinaryCrossEntropyWithLogits.apply(input, target, (weight, pos_weight), reduction)


# ---------------------------------------------------------------------------- smooth L1, Huber
class _RobustLoss(Function):
    """Quadratic near zero, linear beyond ``cut``: smooth L1 (divided by beta) and Huber (times delta)."""

    huber = False

    @classmethod
    def forward(cls, ctx: Any, a: Tensor, b: Tensor, reduction: str, cut: float) -> Tensor:
        diff = a._data - b._data
        z = np.abs(diff)
        dt = diff.dtype.type
        if cls.huber:
            loss = np.where(z < cut, dt(0.5) * z * z, dt(cut) * (z - dt(0.5 * cut)))
            _keep(ctx, delta=cut)
        else:
            loss = np.where(z < cut, dt(0.5) * z * z / dt(cut), z - dt(0.5 * cut))
            _keep(ctx, beta=cut)
        loss = loss.astype(diff.dtype, copy=False)
        ctx.save_for_backward(a, b)
        ctx.reduction, ctx.cut, ctx.count = reduction, cut, loss.size
        _keep(ctx, reduction=_REDUCTION_ENUM[reduction])
        return Tensor._make(_reduce(loss, reduction))

    @classmethod
    def backward(cls, ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None, None, None]:
        a, b = ctx.saved_tensors
        diff = a._data - b._data
        inside = _mask(np.abs(diff) <= ctx.cut, grad)
        outer = _const(np.sign(diff).astype(grad._data.dtype))
        if ctx.reduction == "mean":
            grad = grad / ctx.count
        if cls.huber:
            g = grad * (inside * (a - b) + (1 - inside) * outer * ctx.cut)
        else:
            g = grad * (inside * (a - b) / ctx.cut + (1 - inside) * outer)
        need_a, need_b = ctx.needs_input_grad[:2]
        return (g if need_a else None), (-g if need_b else None), None, None


class SmoothL1Loss(_RobustLoss):
    node_name = "SmoothL1LossBackward0"
    saved_names = ("self", "target")


class HuberLoss(_RobustLoss):
    node_name = "HuberLossBackward0"
    saved_names = ("self", "target")
    huber = True


def _warn_target_size(input: Tensor, target: Tensor) -> None:  # noqa: A002
    if target.shape != input.shape:
        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
            "This will likely lead to incorrect results due to broadcasting. Please ensure they have "
            "the same size.",
            UserWarning,
            stacklevel=3,
        )


def _broadcast_tensors(a: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
    """``torch.broadcast_tensors`` of two: only a tensor whose shape changes gets an ``ExpandBackward0``."""
    shape = broadcast_shape(a.shape, b.shape)
    return (a if a.shape == shape else a.expand(*shape)), (b if b.shape == shape else b.expand(*shape))


def smooth_l1_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,  # noqa: A002
                   reduction: str = "mean", beta: float = 1.0) -> Tensor:
    """Squared error below ``beta`` (halved, over beta), absolute error above (``SmoothL1LossBackward0``);
    ``beta=0`` is the L1 loss, as in PyTorch."""
    _warn_target_size(input, target)
    if size_average is not None or reduce is not None:
        reduction = _F._legacy_string(size_average, reduce)
    input, target = binary_operands(input, target)
    input, target = _broadcast_tensors(input, target)
    _F._check_reduction(reduction)
    if beta == 0.0:
        return _F.l1_loss(input, target, reduction=reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    return SmoothL1Loss.apply(input, target, reduction, float(beta))


def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0,  # noqa: A002
               weight: Tensor | None = None) -> Tensor:
    """Squared error below ``delta`` (halved), ``delta`` times the absolute error above
    (``HuberLossBackward0``)."""
    _warn_target_size(input, target)
    input, target = binary_operands(input, target)
    input, target = _broadcast_tensors(input, target)
    if weight is None:
        _F._check_reduction(reduction)
        if delta <= 0:
            raise RuntimeError("huber_loss does not support non-positive values for delta.")
        return HuberLoss.apply(input, target, reduction, float(delta))
    if weight.shape != input.shape:
        raise ValueError("Weights and input must have the same size.")
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    if reduction not in _F._REDUCTIONS:
        raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")
    loss = HuberLoss.apply(input, target, "none", float(delta)) * weight
    return loss if reduction == "none" else loss.sum() if reduction == "sum" else loss.mean()


# ---------------------------------------------------------------------------- KL divergence
class Xlogy(Function):
    """``x * log(y)``, 0 where ``x == 0`` (``torch.xlogy``)."""

    node_name = "XlogyBackward0"
    saved_names = ("self", "other")

    @staticmethod
    def forward(ctx: Any, x: Tensor, y: Tensor) -> Tensor:
        ctx.save_for_backward(x, y)
        a, b = x._data, y._data
        with np.errstate(divide="ignore", invalid="ignore"):
            out = np.where(a == 0, 0, a * np.log(b))
        out = np.where(np.isnan(b), np.nan, out)
        return Tensor._make(out.astype(np.result_type(a.dtype, b.dtype), copy=False))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        x, y = ctx.saved_tensors
        need_x, need_y = ctx.needs_input_grad
        grad_x = grad_y = None
        if need_x:
            zero = (x._data == 0) & (y._data <= 0)
            grad_x = Xlogy.apply(grad, y).masked_fill(_const(zero), 0.0)
        if need_y:
            grad_y = grad * x / y
        return grad_x, grad_y


def kl_div(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,  # noqa: A002
           reduction: str = "mean", log_target: bool = False) -> Tensor:
    """KL divergence of ``target`` from ``exp(input)`` (log-probabilities), composed as PyTorch's:
    ``xlogy(t, t) - t * input`` (or ``exp(t) * (t - input)`` with ``log_target``).

    ``reduction="batchmean"`` divides the sum by the batch size (the mathematical KL divergence);
    ``"mean"`` divides by the number of elements, with PyTorch's warning.
    """
    if size_average is not None or reduce is not None:
        reduction = _F._legacy_string(size_average, reduce)
    if reduction == "mean":
        warnings.warn(
            "reduction: 'mean' divides the total loss by both the batch size and the support size."
            "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
            "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
            UserWarning,
            stacklevel=2,
        )
    if reduction != "batchmean":
        _F._check_reduction(reduction)
    if log_target:
        out = pointwise.exp(target) * (target - input)
    else:
        out = Xlogy.apply(*binary_operands(target, target)) - target * input
    if reduction == "mean":
        return out.mean()
    if reduction in ("sum", "batchmean"):
        out = out.sum()
        if reduction == "batchmean" and input.ndim != 0:
            out = out / input.shape[0]
    return out


# ---------------------------------------------------------------------------- similarity, normalize
def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """``x1·x2 / (|x1| |x2|)`` along ``dim``, composed as PyTorch's: each input divided by its norm
    (clamped at ``eps`` outside the graph), then multiplied and summed."""
    common = result_dtype(x1, x2)
    if common.kind != "f":
        raise RuntimeError(
            "expected common dtype to be floating point, yet common dtype is "
            f"{_F._LEGACY_NAMES.get(common.name, common.name)}"
        )
    x1, x2 = binary_operands(x1, x2)
    if x1.shape != x2.shape:  # PyTorch's expand_outplace: then both are expanded
        shape = broadcast_shape(x1.shape, x2.shape)
        x1, x2 = x1.expand(*shape), x2.expand(*shape)
    dim = _wrap_dim(dim, x1.ndim)
    parts = []
    for x in (x1, x2):
        n = copies.clone(reduction.norm(x, 2, dim, True))
        np.maximum(n._data, n._data.dtype.type(eps), out=n._data)  # PyTorch's clamp_min_ under no_grad
        n._version_counter.value += 1
        parts.append(x / n)
    return (parts[0] * parts[1]).sum(dim)


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12,  # noqa: A002
              out: Tensor | None = None) -> Tensor:
    """``input / max(‖input‖_p, eps)`` along ``dim`` (``DivBackward0`` over the clamped norm)."""
    if out is not None:
        raise NotImplementedError("autograd_lab's normalize has no out= argument")
    dim = _wrap_dim(dim, input.ndim)
    norm = reduction.norm(input, p, dim, True)
    denom = comparison.ClampMinScalar.apply(norm, float(eps)).expand(*input.shape)
    return input / denom


# ---------------------------------------------------------------------------- pad
class ConstantPadNd(Function):
    """Pad (or, with negative amounts, crop) the last dims; ``pad`` lists (before, after) pairs from
    the last dim backwards, as ``F.pad``."""

    node_name = "ConstantPadNdBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor, pad: tuple[int, ...], value: float) -> Tensor:
        d = x._data
        widths = [(0, 0)] * d.ndim
        crops = [slice(None)] * d.ndim
        for k in range(len(pad) // 2):
            axis = d.ndim - 1 - k
            before, after = pad[2 * k], pad[2 * k + 1]
            if d.shape[axis] + before + after < 0:
                raise RuntimeError("narrow(): length must be non-negative.")
            widths[axis] = (max(before, 0), max(after, 0))
            crops[axis] = slice(max(-before, 0), d.shape[axis] - max(-after, 0))
        cropped = d[tuple(crops)]
        out = np.pad(cropped, widths, constant_values=np.asarray(value).astype(d.dtype))
        ctx.pad = pad
        _keep(ctx, pad=[p % 2**64 for p in pad])  # PyTorch shows negative amounts as unsigned 64-bit
        return Tensor._make(out)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None]:
        return ConstantPadNd.apply(grad, tuple(-p for p in ctx.pad), 0), None, None


def pad(input: Tensor, pad: Any, mode: str = "constant", value: float | None = None) -> Tensor:  # noqa: A002
    """Pad the last ``len(pad) // 2`` dims with ``value`` (``ConstantPadNdBackward0``); negative amounts
    crop. Only ``mode="constant"`` is implemented."""
    pad = tuple(int(p) for p in pad)
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if mode != "constant":
        raise NotImplementedError(f"autograd_lab implements only mode='constant' for pad, not {mode!r}")
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.ndim:
        raise RuntimeError(
            "Padding length should be less than or equal to two times the input dimension but got padding "
            f"length {len(pad)} and input of dimension {input.ndim}"
        )
    return ConstantPadNd.apply(input, pad, 0 if value is None else value)


__all__ = [
    "binary_cross_entropy", "binary_cross_entropy_with_logits", "cosine_similarity", "elu", "elu_",
    "embedding", "gelu", "hardtanh", "hardtanh_", "huber_loss", "kl_div", "layer_norm", "leaky_relu",
    "leaky_relu_", "mish", "normalize", "pad", "prelu", "relu6", "silu", "smooth_l1_loss", "softplus",
    "softsign",
]
