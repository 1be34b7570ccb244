"""Convolution: ``conv1d``/``conv2d`` (``ConvolutionBackward0``, 3 edges: input, weight, bias or None;
unbatched input: ``UnsqueezeBackward0`` before, ``SqueezeBackward1`` after; ``padding="same"`` with an
even extent: ``ConstantPadNdBackward0``).

The arithmetic is vectorised NumPy: windows from ``sliding_window_view`` contracted with ``tensordot``
(one matrix product per group), gradients scattered back with one strided add per kernel offset.
A convolution is linear in each tensor argument, and its backward is made of the same family of
Functions (its input gradient is its adjoint in the input, whose own gradient is a convolution
again), so ``create_graph=True`` works to any order.
"""

from __future__ import annotations

import numbers
import warnings
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ...dtypes import scalar_type_name, shape_str
from ...function import Function
from ...tensor import Tensor
from ._node import (
    _UNDEFINED,
    _keep,
    _short,
    _tuple,
)
from .padding import pad

_SIGNED = 2**64


# ---------------------------------------------------------------------------- NumPy kernels
def _windows(xp: np.ndarray, kernel: tuple, stride: tuple, dilation: tuple, out: tuple) -> np.ndarray:
    """Windows of the trailing ``len(kernel)`` dims of ``xp``: shape ``lead + out + kernel`` (a view)."""
    k = len(kernel)
    lead = xp.ndim - k
    ext = tuple(d * (kk - 1) + 1 for kk, d in zip(kernel, dilation))
    v = sliding_window_view(xp, ext, axis=tuple(range(lead, lead + k)))
    idx = ((slice(None),) * lead + tuple(slice(None, (o - 1) * s + 1, s) for o, s in zip(out, stride))
           + tuple(slice(None, None, d) for d in dilation))
    return v[idx]


def _conv_out(spatial: tuple, kernel: tuple, stride: tuple, padding: tuple, dilation: tuple) -> tuple:
    return tuple((i + 2 * p - d * (kk - 1) - 1) // s + 1
                 for i, kk, s, p, d in zip(spatial, kernel, stride, padding, dilation))


def _pad_np(x: np.ndarray, padding: tuple, value: float = 0) -> np.ndarray:
    if not any(padding):
        return x
    width = [(0, 0)] * (x.ndim - len(padding)) + [(p, p) for p in padding]
    return np.pad(x, width, constant_values=value)


def _conv_np(x: np.ndarray, w: np.ndarray, params: tuple) -> np.ndarray:
    stride, padding, dilation, groups = params
    k = w.ndim - 2
    kernel = w.shape[2:]
    xp = _pad_np(x, padding)
    out = _conv_out(x.shape[2:], kernel, stride, padding, dilation)
    cols = _windows(xp, kernel, stride, dilation, out)  # (N, C, *out, *K)
    n, c, o = x.shape[0], x.shape[1], w.shape[0]
    cg, og = c // groups, o // groups
    res = np.empty((n, o) + out, dtype=np.result_type(x, w))
    axes_c = [1] + list(range(2 + k, 2 + 2 * k))
    axes_w = [1] + list(range(2, 2 + k))
    for g in range(groups):
        r = np.tensordot(cols[:, g * cg:(g + 1) * cg], w[g * og:(g + 1) * og], axes=(axes_c, axes_w))
        res[:, g * og:(g + 1) * og] = np.moveaxis(r, -1, 1)
    return res


def _conv_grad_input_np(grad: np.ndarray, w: np.ndarray, spatial: tuple, params: tuple) -> np.ndarray:
    """The adjoint of the convolution in its input: the input's gradient (a transposed convolution)."""
    stride, padding, dilation, groups = params
    k = w.ndim - 2
    kernel = w.shape[2:]
    out = grad.shape[2:]
    n, o = grad.shape[0], w.shape[0]
    cg, og = w.shape[1], o // groups
    padded = tuple(i + 2 * p for i, p in zip(spatial, padding))
    gxp = np.zeros((n, cg * groups) + padded, dtype=np.result_type(grad, w))
    for g in range(groups):
        # (N, *out, cg, *K): every output position's contribution to every kernel offset
        cols = np.tensordot(grad[:, g * og:(g + 1) * og], w[g * og:(g + 1) * og], axes=([1], [0]))
        cols = np.moveaxis(cols, 1 + k, 1)  # (N, cg, *out, *K)
        for offset in np.ndindex(*kernel):
            sl = tuple(slice(ki * d, ki * d + (oo - 1) * s + 1, s)
                       for ki, d, oo, s in zip(offset, dilation, out, stride))
            gxp[(slice(None), slice(g * cg, (g + 1) * cg)) + sl] += cols[(Ellipsis,) + offset]
    crop = tuple(slice(p, p + i) for p, i in zip(padding, spatial))
    return gxp[(slice(None), slice(None)) + crop]


def _conv_grad_weight_np(x: np.ndarray, grad: np.ndarray, wshape: tuple, params: tuple) -> np.ndarray:
    """The adjoint of the convolution in its weight: the weight's gradient."""
    stride, padding, dilation, groups = params
    k = len(wshape) - 2
    kernel = tuple(wshape[2:])
    out = grad.shape[2:]
    cols = _windows(_pad_np(x, padding), kernel, stride, dilation, out)
    cg, og = wshape[1], wshape[0] // groups
    gw = np.empty(wshape, dtype=np.result_type(x, grad))
    axes = [0] + list(range(2, 2 + k))
    for g in range(groups):
        gw[g * og:(g + 1) * og] = np.tensordot(grad[:, g * og:(g + 1) * og], cols[:, g * cg:(g + 1) * cg],
                                               axes=(axes, axes))
    return gw


# ---------------------------------------------------------------------------- convolution
class Convolution(Function):
    """``input ⋆ weight + bias`` (``torch.convolution``), any number of spatial dims."""

    node_name = "ConvolutionBackward0"
    saved_names = ("input", "weight")

    @staticmethod
    def forward(ctx: Any, x: Tensor, weight: Tensor, bias: Tensor, params: tuple) -> Tensor:
        out = _conv_np(x._data, weight._data, params)
        has_bias = bias is not _UNDEFINED
        if has_bias:
            out += bias._data.reshape((-1,) + (1,) * (out.ndim - 2))
        ctx.save_for_backward(x, weight)
        ctx.params, ctx.spatial, ctx.wshape = params, x._data.shape[2:], weight._data.shape
        stride, padding, dilation, groups = params
        _keep(ctx, stride=stride, padding=padding, dilation=dilation, groups=groups, transposed=False,
              output_padding=(0,) * len(stride),
              bias_sym_sizes_opt=(bias._data.shape[0],) if has_bias else (0,))
        return Tensor._make(out.astype(x._data.dtype, copy=False))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple:
        x, weight = ctx.saved_tensors
        gx, gw, gb = ConvolutionBackward.apply(grad, x, weight, tuple(ctx.needs_input_grad[:3]), ctx.params)
        return gx, gw, gb, None


class ConvolutionBackward(Function):
    """A convolution's gradients (PyTorch's ``convolution_backward``): of its input, weight and bias,
    each where ``mask`` asks (else None). One node with three outputs under create_graph, as PyTorch's
    (its edges: the incoming gradient, the input, the weight). Each gradient is linear in the incoming
    gradient and in the input or weight, so its own gradient is convolutions again."""

    node_name = "ConvolutionBackwardBackward0"
    saved_names = ("grad_output", "input", "weight")

    @staticmethod
    def forward(ctx: Any, grad: Tensor, x: Tensor, weight: Tensor, mask: tuple, params: tuple) -> tuple:
        ctx.save_for_backward(grad, x, weight)
        ctx.params = params
        ctx.set_materialize_grads(False)  # (an output not asked for gets no gradient, not zeros)
        stride, padding, dilation, groups = params
        _keep(ctx, stride=stride, padding=padding, dilation=dilation, groups=groups, transposed=False,
              output_padding=(0,) * len(stride))
        g, dt = grad._data, x._data.dtype
        gx = gw = gb = None
        if mask[0]:
            gx = _conv_grad_input_np(g, weight._data, x._data.shape[2:], params)
            gx = Tensor._make(gx.astype(dt, copy=False))
        if mask[1]:
            gw = _conv_grad_weight_np(x._data, g, weight._data.shape, params)
            gw = Tensor._make(gw.astype(dt, copy=False))
        if mask[2]:
            gb = grad.sum([0, *range(2, g.ndim)])  # (grad mode is off here: recorded as this node's)
        return gx, gw, gb

    @staticmethod
    def backward(ctx: Any, gg_x: Tensor | None, gg_w: Tensor | None, gg_b: Tensor | None) -> tuple:
        grad, x, weight = ctx.saved_tensors
        need_grad, need_x, need_w = ctx.needs_input_grad[:3]
        params = ctx.params
        d_grad = d_x = d_w = None
        if need_grad:  # PyTorch's _convolution_double_backward: conv(ggI, w) + conv(x, ggW) + ggb
            if gg_x is not None:
                d_grad = Convolution.apply(gg_x, weight, _UNDEFINED, params)
            if gg_w is not None:
                term = Convolution.apply(x, gg_w, _UNDEFINED, params)
                d_grad = term if d_grad is None else d_grad + term
            if gg_b is not None:
                term = gg_b.contiguous().view(1, -1, *(1,) * (grad.ndim - 2)).expand(*grad.shape)
                d_grad = term if d_grad is None else d_grad + term
        if need_x and gg_w is not None:  # the input gradient of a convolution by ggW
            d_x = ConvolutionBackward.apply(grad, x, gg_w, (True, False, False), params)[0]
        if need_w and gg_x is not None:  # the weight gradient of a convolution of ggI
            d_w = ConvolutionBackward.apply(grad, gg_x, weight, (False, True, False), params)[1]
        return d_grad, d_x, d_w, None, None


def _expand_param(value: Any, name: str, dim: int) -> tuple[int, ...]:
    vals = [int(value)] if isinstance(value, numbers.Integral) else [int(v) for v in value]
    if len(vals) == 1:
        return tuple(vals) * dim
    if len(vals) != dim:
        raise RuntimeError(
            f"expected {name} to be a single integer value or a list of {dim} values to match the "
            f"convolution dimensions, but got {name}={shape_str(vals)}"
        )
    return tuple(vals)


def _convolution(input: Tensor, weight: Tensor, bias: Tensor | None, stride: Any, padding: Any,
                 dilation: Any, groups: int, k: int) -> Tensor:
    """Checks as PyTorch's ``_convolution`` (on a batched input), then the op."""
    groups = int(groups)
    dim = weight.ndim - 2
    same = isinstance(padding, str)
    if same and padding not in ("same", "valid"):
        raise RuntimeError(f"Invalid padding string: '{padding}'")
    stride = _expand_param(stride, "stride", dim)
    dilation = _expand_param(dilation, "dilation", dim)
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    pad_amounts: tuple[int, ...]
    if padding == "valid":
        pad_amounts = (0,) * dim
    elif padding == "same":
        if any(s != 1 for s in stride):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        pad_amounts = (0,) * dim  # worked out below, once the weight's shape is known to be right
    else:
        pad_amounts = _expand_param(padding, "padding", dim)
    if any(p < 0 for p in pad_amounts):
        raise RuntimeError("negative padding is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError("non-positive dilation is not supported")
    ws = tuple(weight.shape)
    if weight.ndim != input.ndim:
        raise RuntimeError(
            f"Expected {weight.ndim}-dimensional input for {weight.ndim}-dimensional weight {shape_str(ws)}, "
            f"but got {input.ndim}-dimensional input of size {shape_str(input.shape)} instead"
        )
    if ws[0] < groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, but got weight "
            f"of size {shape_str(ws)} instead"
        )
    if ws[0] % groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but got "
            f"weight of size [{shape_str(ws)}] instead"
        )
    if input.shape[1] != ws[1] * groups:
        raise RuntimeError(
            f"Given groups={groups}, weight of size {shape_str(ws)}, expected "
            f"input{shape_str(input.shape)} to "
            f"have {ws[1] * groups} channels, but got {input.shape[1]} channels instead"
        )
    if bias is not None and (bias.ndim != 1 or bias.shape[0] != ws[0]):
        raise RuntimeError(
            f"Given weight of size {shape_str(ws)}, expected bias to be 1-dimensional with {ws[0]} elements, "
            f"but got bias of size {shape_str(bias.shape)} instead"
        )
    if padding == "same":
        total = [d * (kk - 1) for d, kk in zip(dilation, ws[2:])]
        left = [t // 2 for t in total]
        right = [t - lo for t, lo in zip(total, left)]
        pad_amounts = tuple(left)
        if left != right:
            warnings.warn(
                "Using padding='same' with even kernel lengths and odd dilation may require a zero-padded "
                "copy of the input be created", UserWarning, stacklevel=4)
            pad_nd = [0] * (2 * dim)
            for i in range(dim):
                pad_nd[2 * (dim - 1 - i) + 1] = right[i] - left[i]
            input = pad(input, pad_nd)
    padded = [i + 2 * p for i, p in zip(input.shape[2:], pad_amounts)]
    ext = [d * (kk - 1) + 1 for d, kk in zip(dilation, ws[2:])]
    if any(p < e for p, e in zip(padded, ext)):
        raise RuntimeError(
            f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). Kernel size: "
            f"({' x '.join(map(str, ext))}). Kernel size can't be greater than actual input size"
        )
    if input.dtype != weight.dtype:
        raise RuntimeError(f"expected scalar type {scalar_type_name(input.dtype)} but found "
                           f"{scalar_type_name(weight.dtype)}")
    if bias is not None and bias.dtype != input.dtype:
        raise RuntimeError(
            f"Input type ({_short(input)}) and bias type ({_short(bias)}) should be the same"
        )
    params = (stride, pad_amounts, dilation, groups)
    return Convolution.apply(input, weight, _UNDEFINED if bias is None else bias, params)


def _conv_nd(input: Tensor, weight: Tensor, bias: Tensor | None, stride: Any, padding: Any,
             dilation: Any, groups: int, k: int) -> Tensor:
    name = f"conv{k}d"
    # the signature's int[k]: a single int is k values before the weight's rank is looked at
    stride, dilation = _tuple(stride, k) if isinstance(stride, numbers.Integral) else stride, \
        _tuple(dilation, k) if isinstance(dilation, numbers.Integral) else dilation
    if isinstance(padding, numbers.Integral):
        padding = _tuple(padding, k)
    if input.ndim not in (k + 1, k + 2):
        raise RuntimeError(
            f"Expected {k + 1}D (unbatched) or {k + 2}D (batched) input to {name}, but got input of size: "
            f"{shape_str(input.shape)}"
        )
    if input.ndim == k + 1:
        return _convolution(input.unsqueeze(0), weight, bias, stride, padding, dilation, groups, k).squeeze(0)
    return _convolution(input, weight, bias, stride, padding, dilation, groups, k)


def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:
    """1-d convolution (cross-correlation) over ``(N, C, L)`` or ``(C, L)`` (``ConvolutionBackward0``)."""
    return _conv_nd(input, weight, bias, stride, padding, dilation, groups, 1)


def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:
    """2-d convolution (cross-correlation) over ``(N, C, H, W)`` or ``(C, H, W)`` (``ConvolutionBackward0``).

    ``padding`` is an int, a pair, ``"valid"`` (none) or ``"same"`` (stride 1 only; an odd total is
    padded one more at the end, as PyTorch does, through ``ConstantPadNdBackward0``)."""
    return _conv_nd(input, weight, bias, stride, padding, dilation, groups, 2)
