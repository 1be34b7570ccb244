"""Normalization: ``batch_norm`` (``NativeBatchNormBackward0``, in training and in eval, as PyTorch),
``layer_norm`` (``NativeLayerNormBackward0``) and ``normalize`` (a composite, as in PyTorch)."""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from ...dtypes import Size
from ...dtypes import wrap_dim as _wrap_dim
from ...function import Function
from ...ops import comparison, reduction
from ...ops.promotion import fused_multiply_add, row_major
from ...tensor import Tensor
from ._node import (
    _UNDEFINED,
    _keep,
    _require_float,
)


def _fma(a: Any, b: Any, c: Any) -> np.ndarray:
    """``a * b + c`` rounded once, as the fused multiply-adds of PyTorch's normalisation kernels (float32:
    the fast emulation, float64: the exact one; see :func:`fused_multiply_add`)."""
    return fused_multiply_add(a, b, c, exact=False)


# ---------------------------------------------------------------------------- batch norm
class NativeBatchNorm(Function):
    """Normalise each channel (dim 1) over the batch and any further dims, then scale and shift.

    Training: the batch's mean and biased variance normalise, and the running statistics (kept
    outside the graph) move towards the batch's mean and *unbiased* variance by ``momentum``.
    Eval: the running statistics normalise. A float32 input laid out by rows gets PyTorch's CPU kernel's
    results bit for bit (:func:`_batch_norm_float32`); any other is computed in double and rounded once.
    """

    node_name = "NativeBatchNormBackward0"
    # PyTorch's native_batch_norm saves its buffers and its two other results, the batch's mean and
    # 1/std (result1, result2; empty in eval), though its backward in training reads neither buffer
    saved_names = ("input", "weight", "running_mean", "running_var", "result1", "result2")

    @staticmethod
    def forward(ctx: Any, x: Tensor, weight: Tensor, bias: Tensor, running: tuple, training: bool,
                momentum: float, eps: float) -> Tensor:
        data = x._data
        dims = (0, *range(2, data.ndim))
        shape = (1, data.shape[1]) + (1,) * (data.ndim - 2)
        running_mean, running_var = running
        if data.size and data.dtype == np.float32 and data.flags.c_contiguous and all(
                t is _UNDEFINED or t is None or t._data.dtype == np.float32
                for t in (weight, bias, running_mean, running_var)):
            out, mean, invstd = _batch_norm_float32(data, weight, bias, running, training, momentum, eps,
                                                    shape)
        else:
            out, mean, invstd = _batch_norm_double(data, weight, bias, running, training, momentum, eps,
                                                   dims, shape)
        kept = (mean, invstd) if training else (np.zeros(0), np.zeros(0))
        ctx.save_for_backward(x, None if weight is _UNDEFINED else weight, running_mean, running_var,
                              *(Tensor._make(k.astype(data.dtype)) for k in kept))
        ctx.dims, ctx.shape, ctx.training, ctx.eps = dims, shape, training, eps
        ctx._saved_training, ctx._saved_eps = training, eps
        if not training:
            ctx.mean, ctx.invstd = mean.astype(data.dtype), invstd.astype(data.dtype)
        return Tensor._make(out.astype(data.dtype, copy=False))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple:
        x, weight, running_mean, running_var, save_mean, save_invstd = ctx.saved_tensors
        stats = (ctx.mean, ctx.invstd) if not ctx.training else None
        how = (running_mean, running_var, ctx.training, ctx.eps, ctx.dims, ctx.shape, stats,
               tuple(ctx.needs_input_grad[:3]))
        gx, gw, gb = BatchNormBackward.apply(grad, x, _UNDEFINED if weight is None else weight, save_mean,
                                             save_invstd, how)
        return gx, gw, gb, None, None, None, None


def _batch_norm_double(data: np.ndarray, weight: Any, bias: Any, running: tuple, training: bool,
                       momentum: float, eps: float, dims: tuple, shape: tuple,
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(out, mean, invstd)`` computed in double and rounded once (float64, float16, a layout by
    columns), the statistics over ``dims``, broadcast as ``shape``; in training the running statistics
    move too."""
    running_mean, running_var = running
    if training:
        wide = data.astype(np.float64)
        mean = wide.mean(axis=dims)
        var = wide.var(axis=dims)
        count = data.size // data.shape[1]
        if running_mean is not None:
            _update(running_mean, (1 - momentum) * running_mean._data + momentum * mean)
        if running_var is not None:
            unbiased = var * count / max(count - 1, 1)
            _update(running_var, (1 - momentum) * running_var._data + momentum * unbiased)
    else:
        mean = running_mean._data.astype(np.float64)
        var = running_var._data.astype(np.float64)
    invstd = 1.0 / np.sqrt(var + eps)
    out = (data - mean.reshape(shape)) * invstd.reshape(shape)
    if weight is not _UNDEFINED:
        out = out * weight._data.reshape(shape)
    if bias is not _UNDEFINED:
        out = out + bias._data.reshape(shape)
    return out, mean, invstd


def _batch_norm_float32(data: np.ndarray, weight: Any, bias: Any, running: tuple, training: bool,
                        momentum: float, eps: float, shape: tuple,
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(out, mean, invstd)`` of a float32 input laid out by rows, as PyTorch's CPU kernel computes
    them, bit for bit (checked against it: every rounding below is one of its steps).

    - The statistics of each channel over its ``n`` values. With more than one value per channel and
      sample (``(N, C, L)``, ``(N, C, H, W)``): the sum in double, one value after the other, the mean
      that sum over ``n`` rounded to float; the variance's sum the squares of ``x - mean`` (in float),
      added in double and rounded to float. With one (``(N, C)``): a sum over the samples in float, one
      after the other, its mean as before; the squares added to a float sum each as a fused
      multiply-add.
    - ``invstd = 1 / sqrt(var_sum / n + eps)`` with ``var_sum / n`` in float, the rest in double; in
      eval ``1 / sqrt(running_var + eps)``, all in float.
    - ``out = x * alpha + beta`` in one fused multiply-add, with ``alpha = invstd * weight`` and
      ``beta = bias - mean * alpha`` (fused too).
    - The running statistics: ``momentum * mean + (1 - momentum) * running_mean`` in float; for the
      variance, ``var_sum / (n - 1)`` in float, the sum in double."""
    f32, f64 = np.float32, np.float64
    n_batch, channels = data.shape[0], data.shape[1]
    n = data.size // channels
    running_mean, running_var = running
    if training:
        per_sample = data.size // (n_batch * channels)
        if per_sample == 1:  # (N, C): the sums in float, sample after sample
            rows = data.reshape(n_batch, channels)
            total = np.cumsum(rows, axis=0, dtype=f32)[-1]
            mean = (total.astype(f64) / n).astype(f32)
            var_sum = np.zeros(channels, f32)
            d = rows - mean
            for square in np.multiply(d, d, dtype=f64):  # (exact in double: _fma's steps, a row at a time)
                var_sum = (square + var_sum).astype(f32)
        else:  # each channel's values in memory order: samples, then positions
            values = np.moveaxis(data.reshape(n_batch, channels, per_sample), 1, 0).reshape(channels, n)
            mean = (np.cumsum(values, axis=1, dtype=f64)[:, -1] / n).astype(f32)
            d = values - mean[:, None]
            var_sum = np.cumsum(d * d, axis=1, dtype=f64)[:, -1].astype(f32)
        invstd = (1.0 / np.sqrt((var_sum / f32(n)).astype(f64) + eps)).astype(f32)
        m = f32(momentum)
        if running_mean is not None:
            _update(running_mean, m * mean + (f32(1) - m) * running_mean._data)
        if running_var is not None:
            unbiased = (var_sum / f32(n - 1)).astype(f64)
            _update(running_var, (f64(m) * unbiased + (f32(1) - m) * running_var._data).astype(f32))
    else:
        mean = running_mean._data
        invstd = f32(1) / np.sqrt(running_var._data + f32(eps))
    alpha = invstd * weight._data.reshape(-1) if weight is not _UNDEFINED else invstd
    beta = _fma(-mean, alpha, bias._data.reshape(-1) if bias is not _UNDEFINED else f32(0))
    return _fma(data, alpha.reshape(shape), beta.reshape(shape)), mean, invstd


class BatchNormBackward(Function):
    """batch_norm's derivatives ``(grad_input, grad_weight, grad_bias)`` as one node, recorded as
    PyTorch's ``NativeBatchNormBackwardBackward0`` with ``create_graph=True`` (edges: grad_out, input,
    weight, save_mean, save_invstd). In training, with ``x̂ = (x - mean) * invstd`` per channel and
    ``P(z) = z - mean(z) - x̂ mean(z x̂)`` over the batch and spatial dims: ``grad_input = invstd *
    P(grad * weight)``; in eval the running statistics are constants: ``grad_input = grad * weight *
    invstd``. ``grad_weight = sum(grad * x̂)``, ``grad_bias = sum(grad)`` over those dims."""

    node_name = "NativeBatchNormBackwardBackward0"
    saved_names = ("grad_out", "input", "weight", "running_mean", "running_var", "save_mean", "save_invstd")

    @staticmethod
    def forward(ctx: Any, grad: Tensor, x: Tensor, weight: Tensor, save_mean: Tensor, save_invstd: Tensor,
                how: tuple) -> tuple:
        running_mean, running_var, training, eps, dims, shape, stats, mask = how
        weight = None if weight is _UNDEFINED else weight
        ctx.save_for_backward(grad, x, weight, running_mean, running_var, save_mean, save_invstd)
        ctx.training, ctx.eps, ctx.dims, ctx.shape, ctx.stats = training, eps, dims, shape, stats
        ctx.set_materialize_grads(False)  # (an output not asked for gets no gradient, not zeros)
        _keep(ctx, train=training, eps=eps)
        data, g = x._data, grad._data
        wide = data.astype(np.float64)
        if training:  # the batch's statistics, in float64 as the forward computed them
            mu = wide.mean(axis=dims, keepdims=True)
            invstd = 1.0 / np.sqrt(((wide - mu) ** 2).mean(axis=dims, keepdims=True) + eps)
        else:
            mu, invstd = stats[0].reshape(shape), stats[1].reshape(shape)
        x_hat = (wide - mu) * invstd
        gx = gw = gb = None
        if mask[0]:
            h = g * weight._data.reshape(shape) if weight is not None else g
            if training:
                h = h - h.mean(axis=dims, keepdims=True) - x_hat * (h * x_hat).mean(axis=dims, keepdims=True)
            gx = Tensor._make((invstd * h).astype(data.dtype, copy=False))
        if mask[1]:
            gw = Tensor._make((g * x_hat).sum(axis=dims).astype(data.dtype, copy=False))
        if mask[2]:
            gb = Tensor._make(g.sum(axis=dims).astype(data.dtype, copy=False))
        return gx, gw, gb

    @staticmethod
    def backward(ctx: Any, ggx: Tensor | None, ggw: Tensor | None, ggb: Tensor | None) -> tuple:
        grad, x, weight, _rm, _rv, _mean, _invstd = ctx.saved_tensors
        dims, shape = ctx.dims, ctx.shape
        need_grad, need_x, need_w = ctx.needs_input_grad[:3]
        w = weight.view(shape) if weight is not None else None
        ggw = ggw.view(shape) if ggw is not None else None
        ggb = ggb.view(shape) if ggb is not None else None
        if ctx.training:
            d_grad, d_x, d_w = _normalized_double_backward(grad, x, w, ggx, ggw, ggb, dims, ctx.eps,
                                                           need_grad, need_x, need_w)
        else:  # the running statistics are constants: each gradient is linear in grad, x and weight
            mean, invstd = (Tensor._make(a.reshape(shape)) for a in ctx.stats)
            first = (ggx * w * invstd if w is not None else ggx * invstd) if ggx is not None else None
            d_grad = _by_grad_out(first, ggw, ggb, (x - mean) * invstd, grad) if need_grad else None
            d_x = ggw * grad * invstd if need_x and ggw is not None else None
            d_w = ggx * grad * invstd if need_w and ggx is not None else None
        if d_w is not None:  # (per channel: summed over the batch and spatial dims)
            d_w = d_w.sum(dims)
        return d_grad, d_x, d_w, None, None, None


def _update(buffer: Tensor, value: np.ndarray) -> None:
    """Write new running statistics into a buffer. PyTorch's kernel counts no version for it (a node
    that saved the buffer, as every batch_norm node does, still runs after the next batch's forward)."""
    buffer._data[...] = value


def _verify_batch_size(size: Size) -> None:
    count = size[0]
    for s in size[2:]:
        count *= s
    if count == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {size}")


def batch_norm(
    input: Tensor,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """Batch normalisation over dim 1 (``torch.nn.functional.batch_norm``): see :class:`NativeBatchNorm`."""
    if training:
        _verify_batch_size(input.shape)
    if training and eps <= 0.0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    if eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    if input.ndim < 2:
        raise RuntimeError(f"batch_norm expects an input with at least 2 dimensions, got {input.ndim}")
    channels = input.shape[1]
    for name, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight),
                    ("bias", bias)):
        if t is not None and t.numel() != channels:
            raise RuntimeError(f"{name} should contain {channels} elements not {t.numel()}")
    if not training and (running_mean is None or running_var is None):
        raise RuntimeError("running_mean and running_var must be defined in evaluation mode")
    return NativeBatchNorm.apply(
        input,
        _UNDEFINED if weight is None else weight,
        _UNDEFINED if bias is None else bias,
        (running_mean, running_var),
        bool(training),
        float(momentum),
        float(eps),
    )


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
        has_w, has_b = weight is not _UNDEFINED, bias is not _UNDEFINED
        if data.size and data.dtype.char in "fd" and all(
                t is _UNDEFINED or t._data.dtype == data.dtype for t in (weight, bias)):
            out, mean, rstd = _layer_norm_rows(data, k, weight, bias, eps)
        else:  # in double, rounded once
            wide = data.astype(np.float64)
            mean = wide.mean(axis=axes, keepdims=True) if data.size else np.zeros(
                data.shape[:data.ndim - k] + (1,) * k)
            var = ((wide - mean) ** 2).mean(axis=axes, keepdims=True) if data.size else mean
            rstd = 1.0 / np.sqrt(var + eps)
            out = (wide - mean) * rstd
            if has_w:
                out = out * weight._data
            # PyTorch's kernel adds the bias, or 0 without one: a -0.0 (x = -0.0 at its mean 0.0) comes
            # out +0.0
            out = out + bias._data if has_b else out + 0.0
        ctx.save_for_backward(x, weight if has_w else None, bias if has_b else None,
                              Tensor._make(mean.astype(data.dtype)), Tensor._make(rstd.astype(data.dtype)))
        ctx.axes, ctx.eps = axes, eps
        _keep(ctx, normalized_shape=tuple(normalized_shape))
        return Tensor._make(row_major(out.astype(data.dtype, copy=False)))  # (PyTorch's input.contiguous())

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple:
        x, weight, bias, mean, rstd = ctx.saved_tensors
        mask = ctx.needs_input_grad[:3]
        weight = _UNDEFINED if weight is None else weight  # absent: still an edge, to nowhere
        bias = _UNDEFINED if bias is None else bias
        gx, gw, gb = LayerNormBackward.apply(grad, x, mean, rstd, weight, bias, (ctx.axes, ctx.eps, mask))
        return gx, gw, gb, None, None


class LayerNormBackward(Function):
    """layer_norm's derivatives ``(grad_input, grad_weight, grad_bias)`` as one node, recorded as
    PyTorch's ``NativeLayerNormBackwardBackward0`` with ``create_graph=True`` (edges: grad_out, input,
    mean, rstd, weight, bias). With ``x̂ = (x - mean) * rstd`` and ``P(z) = z - mean(z) - x̂ mean(z x̂)``
    over the normalised dims: ``grad_input = rstd * P(grad * weight)``, ``grad_weight = sum(grad * x̂)``,
    ``grad_bias = sum(grad)`` over the other dims."""

    node_name = "NativeLayerNormBackwardBackward0"
    saved_names = ("grad_out", "input", "mean", "rstd", "weight")

    @staticmethod
    def forward(ctx: Any, grad: Tensor, x: Tensor, mean: Tensor, rstd: Tensor, weight: Tensor,
                bias: Tensor, how: tuple) -> tuple:
        axes, eps, mask = how
        weight = None if weight is _UNDEFINED else weight
        bias = None if bias is _UNDEFINED else bias
        ctx.save_for_backward(grad, x, mean, rstd, weight)
        ctx.axes, ctx.eps = axes, eps
        _keep(ctx, normalized_shape=tuple(x.shape[a] for a in axes))
        data, g = x._data, grad._data
        wide = data.astype(np.float64)
        mu = wide.mean(axis=axes, keepdims=True) if data.size else 0.0
        r = 1.0 / np.sqrt(((wide - mu) ** 2).mean(axis=axes, keepdims=True) + eps) if data.size else 0.0
        x_hat = (wide - mu) * r
        batch = tuple(range(data.ndim - len(axes)))
        gx = gw = gb = None
        if mask[0]:
            h = g * weight._data if weight is not None else g
            if data.size:
                h = h - h.mean(axis=axes, keepdims=True) - x_hat * (h * x_hat).mean(axis=axes, keepdims=True)
            gx = Tensor._make((r * h).astype(data.dtype, copy=False))
        if mask[1] and weight is not None:
            gw = Tensor._make((g * x_hat).sum(axis=batch).astype(data.dtype, copy=False))
        if mask[2] and bias is not None:
            gb = Tensor._make(g.sum(axis=batch).astype(data.dtype, copy=False))
        return gx, gw, gb

    @staticmethod
    def backward(ctx: Any, ggx: Tensor | None, ggw: Tensor | None, ggb: Tensor | None) -> tuple:
        grad, x, _mean, _rstd, weight = ctx.saved_tensors
        need_grad, need_x = ctx.needs_input_grad[:2]
        d_grad, d_x, d_w = _normalized_double_backward(grad, x, weight, ggx, ggw, ggb, ctx.axes, ctx.eps,
                                                       need_grad, need_x, ctx.needs_input_grad[4])
        return d_grad, d_x, None, None, d_w, None, None  # (the node sums d_w back to the weight's shape)


def _by_grad_out(first: Tensor | None, ggw: Tensor | None, ggb: Tensor | None, x_hat: Tensor,
                 grad: Tensor) -> Tensor | None:
    """A normalisation's gradients differentiated by the incoming gradient, summed in PyTorch's order:
    ``first`` (what reaches grad_input, times the weight), ``ggw * x̂``, ``ggb``."""
    terms = [first] if first is not None else []
    terms += [ggw * x_hat] if ggw is not None else []
    terms += [ggb.expand_as(grad)] if ggb is not None else []
    return sum(terms[1:], terms[0]) if terms else None


def _normalized_double_backward(grad: Tensor, x: Tensor, weight: Tensor | None, ggx: Tensor | None,
                                ggw: Tensor | None, ggb: Tensor | None, axes: tuple, eps: float,
                                need_grad: bool, need_x: bool, need_w: bool) -> tuple:
    """The derivatives of ``(grad_input, grad_weight, grad_bias)`` of a normalisation over ``axes``
    (layer_norm's, batch_norm's in training), given the gradients ``ggx, ggw, ggb`` that reach them
    (``weight``, ``ggw``, ``ggb`` broadcastable to ``x``): by ``grad``, by ``x``, and by ``weight``
    (not yet summed to the weight's shape). Tensor ops throughout: the third derivative works too."""
    n = int(np.prod([x.shape[a] for a in axes]))
    centered = x - x.mean(axes, keepdim=True)
    r = ((centered * centered).mean(axes, keepdim=True) + eps) ** -0.5
    x_hat = centered * r

    def project(z: Tensor) -> Tensor:
        return z - z.mean(axes, keepdim=True) - x_hat * (z * x_hat).mean(axes, keepdim=True)

    h = grad * weight if weight is not None else grad
    d_grad = d_x = d_w = None
    px = r * project(ggx) if ggx is not None else None
    if need_grad:
        first = (px * weight if weight is not None else px) if px is not None else None
        d_grad = _by_grad_out(first, ggw, ggb, x_hat, grad)
    if need_w and px is not None:
        d_w = grad * px
    if need_x and (ggx is not None or ggw is not None):
        v = ggw * grad if ggw is not None else None
        if ggx is not None:  # the derivative by x through x̂ and through rstd
            bend = -r * (ggx * (h * x_hat).mean(axes, keepdim=True)
                         + h * (ggx * x_hat).mean(axes, keepdim=True))
            v = bend if v is None else v + bend
        d_x = r * project(v)
        if ggx is not None:
            d_x = d_x - r * r * x_hat * (ggx * project(h)).sum(axes, keepdim=True) / n
    return d_grad, d_x, d_w


def layer_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None = None,
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
        _UNDEFINED if weight is None else weight,
        _UNDEFINED if bias is None else bias,
        shape,
        float(eps),
    )


def _layer_norm_rows(data: np.ndarray, k: int, weight: Any, bias: Any, eps: float,
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(out, mean, rstd)`` of float32 or float64 rows (the last ``k`` dims) as PyTorch's CPU kernel
    computes them, in their dtype: each row's mean and variance (:func:`_rowwise_moments`); ``rstd = 1 /
    sqrt(var + eps)``; then ``x_hat = (x - mean) * rstd`` times the weight plus the bias in one fused
    multiply-add, or without a weight ``x - mean`` times ``rstd`` plus the bias (or 0: a -0.0 comes out
    +0.0) in one."""
    dt = data.dtype.type
    kept = data.shape[:data.ndim - k] + (1,) * k
    rows = data.reshape(-1, math.prod(data.shape[data.ndim - k:]))
    mean, var = _rowwise_moments(rows)
    rstd = dt(1) / np.sqrt(var + dt(eps))
    centred = rows - mean[:, None]
    b = bias._data.reshape(-1) if bias is not _UNDEFINED else dt(0)
    if weight is _UNDEFINED:  # (x - mean) * rstd + bias
        out = _fma(centred, rstd[:, None], b)
    else:  # x_hat * weight + bias
        out = _fma(centred * rstd[:, None], weight._data.reshape(-1), b)
    return out.reshape(data.shape), mean.reshape(kept), rstd.reshape(kept)


_CHUNK = 16  # PyTorch's RowwiseMoments: vectors of 32 bytes (8 floats, 4 doubles), in chunks of 16


def _rowwise_moments(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each float32 or float64 row's mean and (biased) variance as PyTorch's ``RowwiseMoments`` computes
    them, bit for bit: Welford's update in each of 8 lanes (4 for doubles: lane ``l`` takes elements ``l,
    l + 8, l + 16, ...``), over chunks of 16 vectors, multiplying by its ``1 / (j + 1)``; the chunks'
    moments merged pairwise (a cascade: chunk 0 with 1, then 2 with 3, then the pairs, ...); the elements
    past the last whole vector by Welford's update, one by one; then the lanes merged into those, one after
    another. Where the compiled kernel fuses a multiply and an add (as the measured results show), so does
    this. Every step is vectorised over the rows."""
    dt, zero = rows.dtype.type, np.zeros
    lanes = 32 // rows.itemsize
    steps = [dt(1) / dt(j + 1) for j in range(_CHUNK)]
    count, length = rows.shape
    n = length // lanes  # whole vectors
    vectors = rows[:, :n * lanes].reshape(count, n, lanes)
    chunks = []
    whole = n // _CHUNK
    for size, xs in ((_CHUNK, vectors[:, :whole * _CHUNK].reshape(count, whole, _CHUNK, lanes)),
                     (n % _CHUNK, vectors[:, None, whole * _CHUNK:])):
        if not size or not xs.shape[1]:
            continue
        m1, m2 = zero(xs.shape[:2] + (lanes,), dt), zero(xs.shape[:2] + (lanes,), dt)
        for j in range(size):  # Welford's update of every chunk at once
            x = xs[:, :, j]
            delta = x - m1
            m1 = _fma(delta, steps[j], m1)
            m2 = _fma(delta, x - m1, m2)
        chunks += [(size, m1[:, i], m2[:, i]) for i in range(xs.shape[1])]
    depth = 1 if len(chunks) <= 2 else (len(chunks) - 1).bit_length()
    stack = [[0, zero((count, lanes), dt), zero((count, lanes), dt)] for _ in range(depth)]
    for i, chunk in enumerate(chunks):
        _merge_vectors(stack[0], *chunk)
        level, mask = 1, i + 1
        while level < depth and not mask & 1:  # a pair complete: up one level of the cascade
            _merge_vectors(stack[level], *stack[level - 1])
            stack[level - 1] = [0, zero((count, lanes), dt), zero((count, lanes), dt)]
            level, mask = level + 1, mask >> 1
    for level in range(1, depth):
        _merge_vectors(stack[0], *stack[level])
    seen, mean, m2 = 0, zero(count, dt), zero(count, dt)
    for i in range(n * lanes, length):  # the rest, one element at a time
        x = rows[:, i]
        delta = x - mean
        seen += 1
        mean = mean + delta / dt(seen)
        m2 = m2 + delta * (x - mean)
    for lane in range(lanes):  # then each lane's n elements (none: no change, but inf becomes nan)
        total = seen + n
        c = dt(n) / dt(total) if total else dt(0)
        delta = stack[0][1][:, lane] - mean
        mean = _fma(c, delta, mean)
        m2 = m2 + _fma(delta * delta * c, dt(seen), stack[0][2][:, lane])
        seen = total
    return mean, m2 / dt(length)


def _merge_vectors(into: list, n: int, m1: np.ndarray, m2: np.ndarray) -> None:
    """Merge the moments ``(n, m1, m2)`` of a vector's lanes into ``into`` (PyTorch's ``AddMomentsVec``)."""
    seen, dt = into[0], m1.dtype.type
    total = seen + n
    c = dt(n) / dt(total) if total else dt(0)
    delta = m1 - into[1]
    into[1] = into[1] + c * delta
    into[2] = _fma(delta, delta * c * dt(seen), into[2] + m2)
    into[0] = total


# ---------------------------------------------------------------------------- normalize
def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12,
              out: Tensor | None = None) -> Tensor:
    """``input / max(‖input‖_p, eps)`` along ``dim`` (``DivBackward0`` over the clamped norm)."""
    if out is not None:
        raise NotImplementedError("autograd_lab's normalize has no out= argument")
    dim = _wrap_dim(dim, input.ndim)
    norm = reduction.norm(input, p, dim, True)
    denom = comparison.ClampMinScalar.apply(norm, float(eps)).expand(*input.shape)
    return input / denom
