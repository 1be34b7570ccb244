"""Pooling: ``max_pool1d/2d`` (``MaxPool2DWithIndicesBackward0``), ``avg_pool1d/2d``
(``AvgPool2DBackward0``), ``adaptive_avg_pool2d`` (``AdaptiveAvgPool2DBackward0``; output size 1:
``MeanBackward1``); the 1-d ops are the 2-d op between ``UnsqueezeBackward0`` and ``SqueezeBackward1``.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from ...dtypes import shape_str
from ...function import Function
from ...tensor import Tensor
from ._node import (
    _keep,
)
from .conv import _windows


# ---------------------------------------------------------------------------- shapes
def _pool_out(size: int, k: int, s: int, p: int, d: int, ceil: bool) -> int:
    out = (size + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil else 0)) // s + 1
    if ceil and (out - 1) * s >= size + p:
        out -= 1
    return out


def _pool_pad(x: np.ndarray, padding: tuple, out: tuple, kernel: tuple, stride: tuple, dilation: tuple,
              value: Any) -> np.ndarray:
    """Pad the last two dims: ``padding`` before, and after as much as the last window reaches."""
    width = [(0, 0)] * (x.ndim - 2)
    for size, p, o, k, s, d in zip(x.shape[-2:], padding, out, kernel, stride, dilation):
        need = (o - 1) * s + d * (k - 1) + 1
        width.append((p, max(0, need - size - p)))
    return np.pad(x, width, constant_values=value) if any(a or b for a, b in width) else x


def _pool_param(value: Any, fn: str, what: str, omitted: bool = False) -> tuple[int, int]:
    vals = (value,) if isinstance(value, numbers.Integral) else tuple(value)
    if len(vals) not in (1, 2):
        tail = "must either be omitted, a single int, or a tuple of two ints" if omitted else (
            "must be either a single int, or a tuple of two ints" if what == "dilation"
            else "must either be a single int, or a tuple of two ints")
        raise RuntimeError(f"{fn}: {what} {tail}")
    vals = tuple(int(v) for v in vals)
    return (vals[0], vals[0]) if len(vals) == 1 else vals  # type: ignore[return-value]


def _pool_shape(input: Tensor, kernel: tuple, stride: tuple, padding: tuple, dilation: tuple,
                ceil: bool) -> tuple[int, int]:
    out = []
    for size, k, s, p, d in zip(input.shape[-2:], kernel, stride, padding, dilation):
        if s == 0:
            raise RuntimeError("stride should not be zero")
        if p < 0:
            raise RuntimeError(f"pad must be non-negative, but got pad: {p}")
        if p > (d * (k - 1) + 1) // 2:
            raise RuntimeError(
                f"pad should be at most half of effective kernel size, but got pad={p}, kernel_size={k} and "
                f"dilation={d}"
            )
        out.append(_pool_out(size, k, s, p, d, ceil))
    if min(kernel) <= 0:
        raise RuntimeError(
            f"kernel size should be greater than zero, but got kH: {kernel[0]} kW: {kernel[1]}")
    if min(stride) <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got dH: {stride[0]} dW: {stride[1]}")
    if min(dilation) <= 0:
        raise RuntimeError(
            f"dilation should be greater than zero, but got dilationH: {dilation[0]} dilationW: {dilation[1]}"
        )
    if min(out) < 1:
        c, h, w = input.shape[-3:]
        raise RuntimeError(
            f"Given input size: ({c}x{h}x{w}). Calculated output size: ({c}x{out[0]}x{out[1]}). Output size "
            "is too small"
        )
    return out[0], out[1]


# ---------------------------------------------------------------------------- max pooling
class MaxPool2DWithIndices(Function):
    """The maximum of each window, and where it is (the flat index in its input plane)."""

    node_name = "MaxPool2DWithIndicesBackward0"
    saved_names = ("self", "result1")

    @staticmethod
    def forward(ctx: Any, x: Tensor, kernel: tuple, stride: tuple, padding: tuple, dilation: tuple,
                ceil: bool, out: tuple) -> tuple[Tensor, Tensor]:
        data = x._data
        low = -np.inf if data.dtype.kind == "f" else np.iinfo(data.dtype).min
        xp = _pool_pad(data, padding, out, kernel, stride, dilation, low)
        win = _windows(xp, kernel, stride, dilation, out)
        flat = win.reshape(win.shape[:-2] + (kernel[0] * kernel[1],))  # (no -1: a batch may be empty)
        arg = flat.argmax(axis=-1)
        values = np.take_along_axis(flat, arg[..., None], axis=-1)[..., 0]
        rows = np.arange(out[0])[:, None] * stride[0] - padding[0] + (arg // kernel[1]) * dilation[0]
        cols = np.arange(out[1])[None, :] * stride[1] - padding[1] + (arg % kernel[1]) * dilation[1]
        indices = Tensor._make((rows * data.shape[-1] + cols).astype(np.int64))
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(x, indices)
        ctx.in_shape = data.shape
        return Tensor._make(np.ascontiguousarray(values)), indices

    @staticmethod
    def backward(ctx: Any, grad: Tensor, _grad_indices: Any = None) -> tuple:
        x, indices = ctx.saved_tensors  # (PyTorch's backward op takes self too: an edge of its node)
        return (MaxPoolScatter.apply(grad, x, indices._data, ctx.in_shape),) + (None,) * 6


def _scatter_np(g: np.ndarray, idx: np.ndarray, shape: tuple) -> np.ndarray:
    plane = shape[-2] * shape[-1]
    m = int(np.prod(shape[:-2], dtype=np.int64))
    flat = (np.arange(m)[:, None] * plane + idx.reshape(m, idx.shape[-2] * idx.shape[-1])).reshape(-1)
    out = np.bincount(flat, weights=g.reshape(-1).astype(np.float64), minlength=m * plane)
    return out.astype(g.dtype).reshape(shape)


class MaxPoolScatter(Function):
    """Max pooling's backward: each gradient added where its window's maximum was."""

    node_name = "MaxPool2DWithIndicesBackwardBackward0"

    @staticmethod
    def forward(ctx: Any, grad: Tensor, x: Tensor, idx: np.ndarray, shape: tuple) -> Tensor:
        ctx.idx = idx
        return Tensor._make(_scatter_np(grad._data, idx, shape))

    @staticmethod
    def backward(ctx: Any, gg: Tensor) -> tuple:  # self's: zeros_like(self), as PyTorch's
        need_grad, need_x = ctx.needs_input_grad[:2]
        zeros = Tensor._make(np.zeros(gg._data.shape, gg._data.dtype)) if need_x else None
        return (_max_pool_double_backward(gg, ctx.idx) if need_grad else None), zeros, None, None


def _max_pool_double_backward(gg: Tensor, idx: np.ndarray) -> Tensor:
    """The maxima read back from a tensor of the input's shape, as PyTorch's max_pool_double_backward
    records it: ``gg.contiguous().view(..., -1).gather(-1, indices).view(indices' shape)``."""
    if not idx.size:
        return Tensor._make(np.zeros(idx.shape, gg._data.dtype))
    size = idx.shape[:-2] + (-1,)
    flat = Tensor._make(np.ascontiguousarray(idx).reshape(size))
    return gg.contiguous().view(size).gather(-1, flat).view(idx.shape)


def _max_pool2d_impl(input: Tensor, kernel_size: Any, stride: Any, padding: Any, dilation: Any,
                     ceil_mode: bool) -> tuple[Tensor, Tensor]:
    fn = "max_pool2d"
    kernel = _pool_param(kernel_size, fn, "kernel_size")
    no_stride = stride is None or (not isinstance(stride, numbers.Integral) and len(stride) == 0)
    strides = kernel if no_stride else _pool_param(stride, fn, "stride", omitted=True)
    pads = _pool_param(padding, fn, "padding")
    dils = _pool_param(dilation, fn, "dilation")
    if input.ndim not in (3, 4):
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    _check_nonempty(input, "", "3D or 4D")
    ceil = bool(ceil_mode)
    out = _pool_shape(input, kernel, strides, pads, dils, ceil)
    res = MaxPool2DWithIndices.apply(input, kernel, strides, pads, dils, ceil, out)
    node = res[0].grad_fn
    if node is not None:
        _keep(node, kernel_size=kernel, stride=() if no_stride else strides, padding=pads, dilation=dils,
              ceil_mode=ceil)
    return res


def _check_nonempty(input: Tensor, prefix: str, ranks: str) -> None:
    """PyTorch's pooling shape check: only the batch dim (of the larger rank) may be empty."""
    shape = input.shape
    if 0 in (shape[1:] if input.ndim == 4 or prefix and input.ndim == 3 else shape):
        raise RuntimeError(f"{prefix}Expected {ranks} (batch mode) tensor with optional 0 dim batch size for "
                           f"input, but got:{shape_str(shape)}")


def max_pool2d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """The maximum over each window of the last two dims (``MaxPool2DWithIndicesBackward0``);
    ``return_indices`` also gives each maximum's flat index in its ``H*W`` plane."""
    out, indices = _max_pool2d_impl(input, kernel_size, stride, padding, dilation, ceil_mode)
    return (out, indices) if return_indices else out


def _one(value: Any, fn: str, what: str) -> tuple[int]:
    vals = (value,) if isinstance(value, numbers.Integral) else tuple(value)
    if len(vals) != 1:
        raise RuntimeError(f"{fn}() {what} must be either a single int, or a tuple of one int")
    return (int(vals[0]),)


def max_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """Max pooling over the last dim: ``max_pool2d`` of the input unsqueezed at -2, squeezed back."""
    if input.ndim not in (2, 3):
        raise RuntimeError(
            "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for input, "
            f"but got:{shape_str(input.shape)}"
        )
    _check_nonempty(input, "max_pool1d: ", "2D or 3D")
    k = _one(kernel_size, "max_pool1d", "kernel_size")
    s = k if stride is None or (not isinstance(stride, numbers.Integral) and len(stride) == 0) else _one(
        stride, "max_pool1d", "stride")
    p, d = _one(padding, "max_pool1d", "padding"), _one(dilation, "max_pool1d", "dilation")
    out, indices = _max_pool2d_impl(input.unsqueeze(-2), (1, k[0]), (1, s[0]), (0, p[0]), (1, d[0]),
                                    ceil_mode)
    out, indices = out.squeeze(-2), indices.squeeze(-2)
    return (out, indices) if return_indices else out


# ---------------------------------------------------------------------------- average pooling
def _avg_divisor(shape: tuple, out: tuple, kernel: tuple, stride: tuple, padding: tuple,
                 count_include_pad: bool, divisor_override: int | None) -> np.ndarray:
    if divisor_override is not None:
        return np.full(out, float(divisor_override))
    sizes = []
    for size, o, k, s, p in zip(shape[-2:], out, kernel, stride, padding):
        start = np.arange(o) * s - p
        end = np.minimum(start + k, size + p)
        sizes.append(end - start if count_include_pad else np.minimum(end, size) - np.maximum(start, 0))
    return np.outer(sizes[0], sizes[1]).astype(np.float64)


class AvgPool2D(Function):
    """The mean of each window (a linear map: its backward is its adjoint, whose backward is itself)."""

    node_name = "AvgPool2DBackward0"
    saved_names = ("self",)

    @staticmethod
    def forward(ctx: Any, x: Tensor, params: tuple) -> Tensor:
        kernel, stride, padding, out, divisor = params
        data = x._data
        xp = _pool_pad(data, padding, out, kernel, stride, (1, 1), 0)
        sums = _windows(xp, kernel, stride, (1, 1), out).sum(axis=(-2, -1), dtype=np.float64)
        ctx.save_for_backward(x)
        ctx.params, ctx.in_shape = params, data.shape
        return Tensor._make((sums / divisor).astype(data.dtype))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple:
        (x,) = ctx.saved_tensors  # (PyTorch's backward op takes self too: an edge of its node)
        return AvgPool2DGrad.apply(grad, x, ctx.params, ctx.in_shape), None


class AvgPool2DGrad(Function):
    """Average pooling's backward: each gradient spread evenly over its window."""

    node_name = "AvgPool2DBackwardBackward0"

    @staticmethod
    def forward(ctx: Any, grad: Tensor, x: Tensor, params: tuple, shape: tuple) -> Tensor:
        kernel, stride, padding, out, divisor = params
        g = grad._data / divisor
        padded = []
        for size, p, o, k, s in zip(shape[-2:], padding, out, kernel, stride):
            padded.append(max(size + 2 * p, (o - 1) * s + k))
        gp = np.zeros(tuple(shape[:-2]) + tuple(padded), dtype=np.float64)
        for i, j in np.ndindex(*kernel):
            gp[..., i:i + (out[0] - 1) * stride[0] + 1:stride[0],
               j:j + (out[1] - 1) * stride[1] + 1:stride[1]] += g
        ctx.params = params
        res = gp[..., padding[0]:padding[0] + shape[-2], padding[1]:padding[1] + shape[-1]]
        return Tensor._make(np.ascontiguousarray(res).astype(grad._data.dtype))

    @staticmethod
    def backward(ctx: Any, gg: Tensor) -> tuple:  # self's: zeros_like(self), as PyTorch's
        need_grad, need_x = ctx.needs_input_grad[:2]
        zeros = Tensor._make(np.zeros(gg._data.shape, gg._data.dtype)) if need_x else None
        return (AvgPool2D.apply(gg, ctx.params) if need_grad else None), zeros, None, None


def _avg_pool2d_impl(input: Tensor, kernel_size: Any, stride: Any, padding: Any, ceil_mode: bool,
                     count_include_pad: bool, divisor_override: int | None) -> Tensor:
    fn = "avg_pool2d"
    kernel = _pool_param(kernel_size, fn, "kernel_size")
    no_stride = stride is None or (not isinstance(stride, numbers.Integral) and len(stride) == 0)
    strides = kernel if no_stride else _pool_param(stride, fn, "stride", omitted=True)
    pads = _pool_param(padding, fn, "padding")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    if input.ndim < 3:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-max(input.ndim, 1)}, "
                         f"{max(input.ndim, 1) - 1}], but got -3)")
    if input.ndim > 4:
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    _check_nonempty(input, "", "3D or 4D")
    ceil = bool(ceil_mode)
    out = _pool_shape(input, kernel, strides, pads, (1, 1), ceil)
    divisor = _avg_divisor(tuple(input.shape), out, kernel, strides, pads, bool(count_include_pad),
                           divisor_override)
    res = AvgPool2D.apply(input, (kernel, strides, pads, out, divisor))
    if res.grad_fn is not None:
        _keep(res.grad_fn, kernel_size=kernel, stride=() if no_stride else strides, padding=pads,
              ceil_mode=ceil, count_include_pad=bool(count_include_pad), divisor_override=divisor_override)
    return res


def avg_pool2d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: int | None = None) -> Tensor:
    """The mean over each window of the last two dims (``AvgPool2DBackward0``)."""
    return _avg_pool2d_impl(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                            divisor_override)


def avg_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True) -> Tensor:
    """Average pooling over the last dim: ``avg_pool2d`` of the input unsqueezed at -2, squeezed back."""
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument #1 'self' "
            "(while checking arguments for avg_pool1d)"
        )
    k = _one(kernel_size, "avg_pool1d", "kernel_size")
    s = k if stride is None or (not isinstance(stride, numbers.Integral) and len(stride) == 0) else _one(
        stride, "avg_pool1d", "stride")
    p = _one(padding, "avg_pool1d", "padding")
    out = _avg_pool2d_impl(input.unsqueeze(-2), (1, k[0]), (1, s[0]), (0, p[0]), ceil_mode,
                           count_include_pad, None)
    return out.squeeze(-2)


# ---------------------------------------------------------------------------- adaptive average pooling
def _adaptive_matrix(size: int, out: int) -> np.ndarray:
    """Row i averages the inputs from floor(i*size/out) to ceil((i+1)*size/out)."""
    m = np.zeros((out, size))
    for i in range(out):  # one row per output position (not per pixel)
        start, end = (i * size) // out, -((-(i + 1) * size) // out)
        m[i, start:end] = 1.0 / (end - start)
    return m


class AdaptiveAvgPool2D(Function):
    """Averages over ``output_size`` windows that tile the last two dims (``rows @ x @ cols.T``)."""

    node_name = "AdaptiveAvgPool2DBackward0"
    saved_names = ("self",)

    @staticmethod
    def forward(ctx: Any, x: Tensor, mats: tuple) -> Tensor:
        rows, cols = mats
        ctx.save_for_backward(x)
        ctx.mats = mats
        out = np.einsum("...hw,ih,jw->...ij", x._data, rows, cols, optimize=True)
        return Tensor._make(out.astype(x._data.dtype))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple:
        for i in range(1, grad.ndim):  # PyTorch's backward kernel refuses an empty channel dim too
            if grad.shape[i] == 0:
                raise RuntimeError(
                    "adaptive_avg_pool2d_backward(): Expected grad_output to have non-zero size for "
                    f"non-batch dimensions, but grad_output has sizes {shape_str(grad.shape)} with dimension "
                    f"{i} being empty")
        (x,) = ctx.saved_tensors  # (PyTorch's backward op takes self too: an edge of its node)
        return AdaptiveAvgPool2DGrad.apply(grad, x, ctx.mats), None


class AdaptiveAvgPool2DGrad(Function):
    """Adaptive average pooling's backward (its adjoint): ``rows.T @ grad @ cols``."""

    node_name = "AdaptiveAvgPool2DBackwardBackward0"

    @staticmethod
    def forward(ctx: Any, grad: Tensor, x: Tensor, mats: tuple) -> Tensor:
        rows, cols = mats
        ctx.mats = mats
        out = np.einsum("...ij,ih,jw->...hw", grad._data, rows, cols, optimize=True)
        return Tensor._make(out.astype(grad._data.dtype))

    @staticmethod
    def backward(ctx: Any, gg: Tensor) -> tuple:  # self's: zeros_like(self), as PyTorch's
        need_grad, need_x = ctx.needs_input_grad[:2]
        zeros = Tensor._make(np.zeros(gg._data.shape, gg._data.dtype)) if need_x else None
        return (AdaptiveAvgPool2D.apply(gg, ctx.mats) if need_grad else None), zeros, None


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:
    """Average pooling to a fixed ``output_size`` (``AdaptiveAvgPool2DBackward0``; ``MeanBackward1``
    for an output of 1x1, as PyTorch). ``None`` in ``output_size`` keeps that input size."""
    sizes = (output_size,) * 2 if isinstance(output_size, numbers.Integral) or output_size is None \
        else tuple(output_size)
    if len(sizes) != 2:
        raise RuntimeError("adaptive_avg_pool2d: output_size must be 2")
    sizes = tuple(int(input.shape[input.ndim - 2 + i]) if s is None else int(s) for i, s in enumerate(sizes))
    if min(sizes) < 0:
        raise RuntimeError(
            "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but received "
            f"{{{sizes[0]}, {sizes[1]}}}"
        )
    if sizes == (1, 1):  # (PyTorch's shortcut, before its kernel's checks of the input)
        return input.mean((-1, -2), keepdim=True)
    if input.ndim not in (3, 4):
        raise RuntimeError(
            f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {shape_str(input.shape)}")
    for i in (input.ndim - 2, input.ndim - 1):
        if input.shape[i] == 0:
            raise RuntimeError(
                "adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch dimensions, but "
                f"input has sizes {shape_str(input.shape)} with dimension {i} being empty"
            )
    mats = (_adaptive_matrix(input.shape[-2], sizes[0]), _adaptive_matrix(input.shape[-1], sizes[1]))
    return AdaptiveAvgPool2D.apply(input, mats)
