"""Softmax, log-softmax and logsumexp, computed stably (the maximum is subtracted before
exponentiating)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dtypes import quiet as _quiet
from ..dtypes import scalar_type_name
from ..dtypes import wrap_dim as _wrap_dim
from ..function import SAVES_RESULT, Function, fast_unary
from ..tensor import Tensor
from .pointwise import _exp, sleef_expf
from .promotion import avx512_bytes, row_major
from .reduction import _dims, _unsqueeze_back


def _stable_log_softmax(x: np.ndarray, dim: int) -> np.ndarray:
    """log softmax with the maximum subtracted first, as PyTorch's kernel: ``x - max - log(sum(exp(x -
    max)))`` (a row with +inf, or only -inf, gives nan there too); C-contiguous like PyTorch's result
    (which decides whether a later ``reshape`` can be a view)."""
    if x.ndim == 0:  # a scalar is its own (one-element) row: the result keeps the shape ()
        return _stable_log_softmax(x.reshape(1), 0).reshape(())
    if x.size == 0:  # nothing to normalize (NumPy's max of an empty axis would raise)
        return np.empty_like(x, order="C")
    # the ufuncs' reduce: what np.max and np.sum call, without their Python wrappers (issue 17)
    shifted = x - np.maximum.reduce(x, axis=dim, keepdims=True)
    out = shifted - np.log(np.add.reduce(np.exp(shifted), axis=dim, keepdims=True))
    return out if out.flags.c_contiguous else np.ascontiguousarray(out)


def _stable_softmax(x: np.ndarray, dim: int) -> np.ndarray:
    """softmax as PyTorch's kernel computes it: ``exp(x - max)`` times ``1 / sum``. Along the last dim of
    a row-major float32 array, its ``_vec_softmax_lastdim`` step by step: SLEEF's vector exp
    (:func:`sleef_expf`) and the row summed in its vector lanes (:func:`_lane_sum`), bit for bit; float64
    rows so too but for the exp, rounded once (SLEEF's is not copied: about 60% of values PyTorch's).
    Along another dim the exp rounded once and NumPy's sum."""
    if x.ndim == 0:
        return _stable_softmax(x.reshape(1), 0).reshape(())
    if x.size == 0:
        return np.empty_like(x, order="C")
    shifted = x - np.maximum.reduce(x, axis=dim, keepdims=True)
    if dim == x.ndim - 1 and x.dtype.char in "fd" and x.flags.c_contiguous:
        e = sleef_expf(shifted) if x.dtype == np.float32 else _exp(shifted)
        return e * (1 / _lane_sum(e))  # (float64: the sum PyTorch's, not SLEEF's exp)
    e = _exp(shifted)
    out = e * (1 / np.add.reduce(e, axis=dim, keepdims=True))
    return out if out.flags.c_contiguous else np.ascontiguousarray(out)


def _lane_sum(e: np.ndarray, times: np.ndarray | None = None) -> np.ndarray:
    """Each row of ``e`` (float32 or float64; with ``times``, of the products ``e * times``) summed over
    its last dim as PyTorch's ``vec::reduce_all`` adds, the sums kept as a last dim of 1: a row shorter
    than a vector one term after the other; a longer one in the vector's lanes (16 floats or 8 doubles:
    softmax's kernels run with AVX-512), the rest added to the first lanes, then the lanes halved (16
    floats: 8 + 8, 4 + 4, 2 + 2, 1 + 1). Products of a last partial vector are fused into their sums (one
    rounding: the compiler contracts that multiply and add; not those of whole vectors)."""
    n, lanes = e.shape[-1], avx512_bytes() // e.itemsize
    terms = e if times is None else e * times  # (each product rounded, as those of whole vectors are)
    if n < lanes:
        total = terms[..., 0:1].copy()
        for j in range(1, n):
            total += terms[..., j:j + 1]
        return total
    full = n - n % lanes
    acc = terms[..., :lanes].copy()
    for start in range(lanes, full, lanes):
        acc += terms[..., start:start + lanes]
    tail = acc[..., :n - full]
    # the last partial vector's products are fused into the sum: float32's exact in double, the sum rounded
    # there, then to float (float64's fusing is not copied: see README)
    if times is not None and e.dtype == np.float32:
        tail[...] = np.multiply(e[..., full:], times[..., full:], dtype=np.float64) + tail
    else:
        tail += terms[..., full:]
    while lanes > 1:
        lanes //= 2
        acc = acc[..., :lanes] + acc[..., lanes:2 * lanes]
    return acc


def _float_input(a: Tensor, name: str) -> None:
    if a._data.dtype.kind != "f":
        raise NotImplementedError(
            f'"{name}_lastdim_kernel_impl" not implemented for \'{scalar_type_name(a._data.dtype)}\''
        )


def _given_dim(dim: int) -> int:
    """``_saved_dim`` as PyTorch shows it: the dim as given, an unsigned 64-bit int (-1: 2**64 - 1)."""
    return dim % 2**64


class Softmax(Function):
    node_name = "SoftmaxBackward0"
    saved_names = ("result",)

    @staticmethod
    def forward(ctx: Any, a: Tensor, dim: int) -> Tensor:
        ctx.dim, ctx._saved_dim = dim, _given_dim(dim)
        dim = _wrap_dim(dim, a.ndim)
        out = Tensor._make(_stable_softmax(a._data, dim).astype(a._data.dtype, copy=False))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        (y,) = ctx.saved_tensors
        return SoftmaxBackwardData.apply(grad, y, ctx.dim), None

    @staticmethod
    def backward_arrays(ctx: Any, g: np.ndarray) -> tuple[np.ndarray, None]:
        (y,) = ctx.saved_arrays
        return _softmax_grad(g, y, ctx.dim), None


def _softmax_grad(g: np.ndarray, out: np.ndarray, dim: int) -> np.ndarray:
    """``(grad - sum(grad * y)) * y`` along ``dim``: softmax's derivative, ``y`` its result."""
    axis = _wrap_dim(dim, out.ndim) if out.ndim else None
    if axis == out.ndim - 1 and g.dtype == out.dtype and g.dtype.char in "fd":  # PyTorch's lastdim kernel:
        total = _lane_sum(np.ascontiguousarray(g), np.ascontiguousarray(out))  # sum(grad * y) in its
        return np.ascontiguousarray((g - total) * out)  # lanes, then (grad - sum) * y
    return out * (g - (g * out).sum(axis, keepdims=True))


class SoftmaxBackwardData(Function):
    """softmax's derivative ``y * (grad - sum(grad * y))`` as one node, recorded as PyTorch's with
    ``create_graph=True`` (its inputs: the incoming gradient and softmax's result ``y``)."""

    node_name = "SoftmaxBackwardDataBackward0"
    saved_names = ("grad_output", "output")

    @staticmethod
    def forward(ctx: Any, grad: Tensor, y: Tensor, dim: int) -> Tensor:
        ctx.save_for_backward(grad, y)
        ctx.dim, ctx._saved_dim = dim, _given_dim(dim)
        return Tensor._make(_softmax_grad(grad._data, y._data, dim))

    @staticmethod
    def backward(ctx: Any, gg: Tensor) -> tuple[Tensor, Tensor, None]:
        grad, y = ctx.saved_tensors
        d = ctx.dim  # PyTorch's softmax_double_backward, step by step
        grad_y = grad * gg - (y * grad).sum(d, keepdim=True) * gg - grad * (y * gg).sum(d, keepdim=True)
        return SoftmaxBackwardData.apply(gg, y, d), grad_y, None


def softmax(a: Tensor, dim: int) -> Tensor:
    """``exp(a) / sum(exp(a))`` along ``dim``, computed stably (``torch.softmax``)."""
    _float_input(a, "softmax")
    _wrap_dim(dim, a.ndim)  # a dim out of range raises before any node is made
    return Softmax.apply(a, dim)


class LogSoftmax(Function):
    node_name = "LogSoftmaxBackward0"
    saved_names = ("result",)

    @staticmethod
    def forward(ctx: Any, a: Tensor, dim: int) -> Tensor:
        ctx.dim, ctx._saved_dim = dim, _given_dim(dim)
        data = a._data
        out = _stable_log_softmax(data, _wrap_dim(dim, data.ndim))
        out = Tensor._make(out if out.dtype is data.dtype else out.astype(data.dtype))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        (y,) = ctx.saved_tensors
        return LogSoftmaxBackwardData.apply(grad, y, ctx.dim), None

    @staticmethod
    def backward_arrays(ctx: Any, g: np.ndarray) -> tuple[np.ndarray, None]:
        (y,) = ctx.saved_arrays  # LogSoftmaxBackwardData's kernel
        return _log_softmax_grad(g, y, ctx.dim), None


def _log_softmax_grad(g: np.ndarray, y: np.ndarray, dim: int) -> np.ndarray:
    """``g - exp(y) * sum(g)`` along ``dim``: the gradient of log_softmax's input, ``y`` its result."""
    return g - np.exp(y) * np.add.reduce(g, axis=_wrap_dim(dim, y.ndim) if y.ndim else None, keepdims=True)


class LogSoftmaxBackwardData(Function):
    """log_softmax's derivative ``grad - exp(y) * sum(grad)`` as one node, recorded as PyTorch's with
    ``create_graph=True`` (its inputs: the incoming gradient and log_softmax's result ``y``)."""

    node_name = "LogSoftmaxBackwardDataBackward0"
    saved_names = ("grad_output", "output")

    @staticmethod
    def forward(ctx: Any, grad: Tensor, y: Tensor, dim: int) -> Tensor:
        ctx.save_for_backward(grad, y)
        ctx.dim, ctx._saved_dim = dim, _given_dim(dim)
        return Tensor._make(_log_softmax_grad(grad._data, y._data, dim))

    @staticmethod
    def backward(ctx: Any, gg: Tensor) -> tuple[Tensor, Tensor, None]:
        grad, y = ctx.saved_tensors  # PyTorch's formulas, step by step
        d = ctx.dim
        return gg - (gg * y.exp()).sum(d, keepdim=True), -grad.sum(d, keepdim=True) * y.exp() * gg, None


def log_softmax(a: Tensor, dim: int) -> Tensor:
    """``a - logsumexp(a)`` along ``dim``, computed stably (``torch.log_softmax``)."""
    _float_input(a, "log_softmax")
    wrapped = _wrap_dim(dim, a.ndim)  # a dim out of range raises before any node is made
    out = fast_unary(LogSoftmax, lambda x: _stable_log_softmax(x, wrapped), a, SAVES_RESULT, 2,
                     {"dim": dim, "_saved_dim": _given_dim(dim)})  # (LogSoftmax.forward's steps)
    return out if out is not None else LogSoftmax.apply(a, dim)


class Logsumexp(Function):
    node_name = "LogsumexpBackward0"
    saved_names = ("self", "result")

    @staticmethod
    def forward(ctx: Any, a: Tensor, dims: tuple[int, ...], keepdim: bool) -> Tensor:
        x = a._data
        m = np.max(x, axis=dims, keepdims=True, initial=-np.inf)  # over nothing: -inf, as PyTorch
        m = np.where(np.isfinite(m), m, 0)
        with _quiet():  # all -inf: log(0) = -inf, a value (PyTorch does not warn)
            out = np.log(np.sum(np.exp(x - m), axis=dims, keepdims=True)) + m
        if not keepdim:
            out = np.squeeze(out, axis=dims)
        result = Tensor._make(row_major(out, dtype=x.dtype))
        ctx.save_for_backward(a, result)
        ctx.dims, ctx.keepdim = dims, keepdim
        return result

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None]:
        a, out = ctx.saved_tensors
        out_k = _unsqueeze_back(out, ctx.dims, ctx.keepdim)
        return _unsqueeze_back(grad, ctx.dims, ctx.keepdim) * (a - out_k).exp(), None, None


def logsumexp(a: Tensor, dim: Any, keepdim: bool = False) -> Tensor:
    """``log(sum(exp(a)))`` over ``dim``, computed stably (``torch.logsumexp``)."""
    return Logsumexp.apply(a, _dims(dim, a._data.ndim), keepdim)
