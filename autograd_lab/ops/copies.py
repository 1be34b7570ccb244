"""Copies: to another dtype (``to``, ``float()``, ...), ``clone``, ``contiguous``, and the writes of a
whole tensor (``zero_``, ``fill_``, ``copy_``; in place through :func:`autograd_lab.ops.inplace.inplace`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes
from ..function import Function
from ..tensor import Tensor
from .inplace import _shape, copy_preserving, fill_inplace, inplace
from .promotion import _check_broadcast, as_operand, check_int
from .view import view


# ---------------------------------------------------------------------------- to another dtype
class ToCopy(Function):
    node_name = "ToCopyBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor, dtype: np.dtype) -> Tensor:
        return Tensor._make(copy_preserving(a._data, dtype))  # PyTorch's _to_copy: empty_like's layout

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return grad, None  # the node casts it back to the input's dtype


def to_dtype(a: Tensor, dtype: dtypes.dtype) -> Tensor:
    """A copy of ``a`` in ``dtype`` (recorded as ``ToCopyBackward0``)."""
    return ToCopy.apply(a, dtype.np)


def to(a: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """``a.to(dtype)``, ``a.to('cpu')`` or ``a.to(other)``; ``a`` itself when nothing changes, unless
    ``copy=True`` (given by name, or as the second flag after ``non_blocking``) asks for a copy."""
    target = to_target_dtype(args, kwargs)
    flags = [arg for arg in args if isinstance(arg, bool)]
    if kwargs.get("copy", len(flags) > 1 and flags[1]):
        return to_dtype(a, target or a.dtype)  # (PyTorch's _to_copy: a ToCopyBackward0 even so)
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


# ---------------------------------------------------------------------------- clone, contiguous
class Clone(Function):
    node_name = "CloneBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor, order: str = "K") -> Tensor:
        if order == "K":  # PyTorch's preserve_format
            return Tensor._make(copy_preserving(a._data))
        return Tensor._make(np.array(a._data, copy=True, order=order))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return grad, None


def clone(a: Tensor) -> Tensor:
    """A copy of ``a`` with its own memory, in the same memory layout (``torch.clone``)."""
    return Clone.apply(a)


def contiguous(a: Tensor) -> Tensor:
    """``a`` itself if its elements are in row-major order in memory, else a row-major copy."""
    if a._data.flags.c_contiguous:
        return a
    return Clone.apply(a, "C")


def ravel(a: Tensor) -> Tensor:
    """``a`` as one dimension: a view of ``a`` laid out by rows, else of a row-major copy
    (``torch.ravel``: ``contiguous().view(-1)``, a ViewBackward0 either way)."""
    return view(contiguous(a), (-1,))


# ----------------------------------------------------------------- writes of a whole tensor: zero, fill, copy
def _zeros(grad: Tensor) -> Tensor:
    """The gradient of an overwritten value: zeros (``grad * 0`` would give -0.0 where grad < 0)."""
    return Tensor._make(np.zeros_like(grad._data))


class Zero(Function):
    node_name = "ZeroBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor) -> Tensor:
        return Tensor._make(np.zeros_like(a._data))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        return _zeros(grad)


def zero_like(a: Tensor) -> Tensor:
    """Zeros of ``a``'s shape and dtype, recorded as ``ZeroBackward0`` (what ``zero_`` writes)."""
    return Zero.apply(a)


class Fill(Function):
    node_name = "FillBackward2"

    @staticmethod
    def forward(ctx: Any, a: Tensor, value: Any) -> Tensor:
        return Tensor._make(np.array(np.broadcast_to(np.asarray(value, dtype=a._data.dtype),
                                                     a._data.shape)))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return _zeros(grad), None


class FillWith(Function):
    """``fill_`` with a 0-d tensor: it gets the gradient of every element it filled."""

    node_name = "FillBackward3"

    @staticmethod
    def forward(ctx: Any, a: Tensor, value: Tensor) -> Tensor:
        return Tensor._make(np.array(np.broadcast_to(value._data.astype(a._data.dtype), a._data.shape)))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
        return _zeros(grad), grad.sum()


def fill_with(a: Tensor, value: Tensor) -> Tensor:
    """The 0-d tensor ``value`` in ``a``'s shape and dtype, recorded as ``FillBackward3``."""
    return FillWith.apply(a, value)


def fill_like(a: Tensor, value: Any) -> Tensor:
    """``value`` in ``a``'s shape and dtype, recorded as ``FillBackward2`` (what ``fill_`` writes) for a
    number, ``FillBackward3`` for a 0-d tensor."""
    if isinstance(value, Tensor):
        return FillWith.apply(a, value)
    return Fill.apply(a, value)


def fill_(t: Tensor, value: Any) -> Tensor:
    """``t.fill_(value)``: every element of ``t`` set to ``value`` (a number or a 0-d tensor), in place."""
    check_int(value)
    if isinstance(value, Tensor):  # recorded with an edge to value
        if value.ndim:
            raise RuntimeError("fill_ only supports 0-dimension value tensor but got tensor with "
                               f"{value.ndim} dimensions.")
        return inplace(t, fill_with, value)
    return fill_inplace(t, lambda s: fill_like(s, value))  # (an expanded t too, as PyTorch)


def zero_(t: Tensor) -> Tensor:
    """``t.zero_()``: every element of ``t`` set to 0, in place (an expanded ``t`` too, as PyTorch)."""
    return fill_inplace(t, zero_like)


class Copy(Function):
    node_name = "CopyBackwards"
    node_defaults = {"name": lambda self: "torch::autograd::CopyBackwards"}  # PyTorch's C++ name

    @staticmethod
    def forward(ctx: Any, a: Tensor, src: Tensor) -> Tensor:
        shape = _check_broadcast(a, src)  # (PyTorch's text where the two do not broadcast)
        if shape != a._data.shape:
            raise RuntimeError(f"output with shape {_shape(a._data.shape)} doesn't match the broadcast "
                               f"shape {_shape(shape)}")
        out = np.broadcast_to(src._data, shape)
        return Tensor._make(np.array(out, dtype=a._data.dtype))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
        return _zeros(grad), grad  # the node sums the gradient back to src's shape and dtype


def copy_from(a: Tensor, src: Any) -> Tensor:
    """``src`` broadcast to ``a``'s shape and dtype, recorded as ``CopyBackwards`` (what ``copy_`` writes)."""
    return Copy.apply(a, as_operand(src, a._data.dtype))
