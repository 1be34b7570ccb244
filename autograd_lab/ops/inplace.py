"""In-place operations (``add_``, ``mul_``, ``x[i] = v``, ...) with PyTorch's rules.

An in-place op computes the out-of-place result and writes it into the tensor's memory, then bumps
the tensor's version counter. Backward compares versions: a saved tensor that was changed after it
was saved makes backward fail loudly instead of silently using the wrong value.

With autograd recording, the tensor's history is *rebased*: its ``grad_fn`` becomes the node of the
in-place op, whose input edge leads to the old history. Forbidden, as in PyTorch: an in-place op on
a leaf that requires grad (its ``.grad`` would be meaningless) and on a view of one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import dtypes, grad_mode
from ..function import Function
from ..tensor import Tensor
from .promotion import as_operand
from .shape import _normalize_key, _selects_all, index_put


class Zero(Function):
    node_name = "ZeroBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor) -> Tensor:
        return Tensor._make(np.zeros_like(a._data))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        return grad * 0


class Fill(Function):
    node_name = "FillBackward2"

    @staticmethod
    def forward(ctx: Any, a: Tensor, value: Any) -> Tensor:
        return Tensor._make(np.array(np.broadcast_to(np.asarray(value, dtype=a._data.dtype),
                                                     a._data.shape)))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return grad * 0, None


class Copy(Function):
    node_name = "CopyBackwards"

    @staticmethod
    def forward(ctx: Any, a: Tensor, src: Tensor) -> Tensor:
        try:
            out = np.broadcast_to(src._data, a._data.shape)
        except ValueError:
            raise RuntimeError(
                f"The size of tensor a ({a._data.shape[-1] if a._data.ndim else 1}) must match the "
                f"size of tensor b ({src._data.shape[-1] if src._data.ndim else 1}) at "
                "non-singleton dimension 0"
            ) from None
        return Tensor._make(np.array(out, dtype=a._data.dtype))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
        return grad * 0, grad  # the node sums the gradient back to src's shape and dtype


def zero_like(a: Tensor) -> Tensor:
    return Zero.apply(a)


def fill_like(a: Tensor, value: Any) -> Tensor:
    if isinstance(value, Tensor):
        value = value._data
    return Fill.apply(a, value)


def copy_from(a: Tensor, src: Any) -> Tensor:
    return Copy.apply(a, as_operand(src, a._data.dtype))


def _shape(s: tuple) -> str:
    return "[" + ", ".join(map(str, s)) + "]"


def inplace(t: Tensor, op: Callable[..., Tensor], *args: Any) -> Tensor:
    """Apply ``op(t, *args)`` and store the result in ``t`` itself; returns ``t``."""
    record = grad_mode.is_grad_enabled() and (
        t.requires_grad or any(isinstance(a, Tensor) and a.requires_grad for a in args)
    )
    if record:
        if t.grad_fn is None and t._requires_grad:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
        base = t._base
        if base is not None and base.requires_grad:
            if base.grad_fn is None:
                raise RuntimeError(
                    "a view of a leaf Variable that requires grad is being used in an in-place operation."
                )
            raise RuntimeError(
                "autograd_lab does not support in-place operations on a view of a tensor that requires "
                "grad (PyTorch rewrites the base's history with CopySlices). Use an out-of-place "
                "operation, or clone() the view first."
            )
        # the old value of t, standing for it in the graph: same grad_fn edge, its own memory
        old = Tensor._make(np.array(t._data, copy=True), grad_fn=t.grad_fn, output_nr=t.output_nr)
        result = op(old, *args)
    else:
        with grad_mode.no_grad():
            result = op(t, *args)
    _write(t, result._data)
    t._version_counter.value += 1
    if record:
        t.grad_fn, t.output_nr = result.grad_fn, result.output_nr
        for s in getattr(result.grad_fn, "_saved", None) or ():
            if s is not None and s.tensor is None and s.data is result._data:
                s.data, s.counter, s.version = t._data, t._version_counter, t._version_counter.value
    return t


def setitem(t: Tensor, key: Any, value: Any) -> Tensor:
    """``t[key] = value`` in place.

    PyTorch writes a basic key through a view of ``t`` (``t[key].copy_(value)``), so on a leaf that
    requires grad its error speaks of a view; array keys and keys that select everything write to
    ``t`` itself.
    """
    if grad_mode.is_grad_enabled() and t.grad_fn is None and t._requires_grad:
        parts, advanced = _normalize_key(key)
        if not advanced and not _selects_all(t._data.shape, parts):
            raise RuntimeError(
                "a view of a leaf Variable that requires grad is being used in an in-place operation."
            )
    return inplace(t, lambda s, v: index_put(s, key, v), value)


def _write(t: Tensor, values: np.ndarray) -> None:
    if values.shape != t._data.shape:
        raise RuntimeError(
            f"output with shape {_shape(t._data.shape)} doesn't match the broadcast shape "
            f"{_shape(values.shape)}"
        )
    if values.dtype != t._data.dtype and not np.can_cast(values.dtype, t._data.dtype, "same_kind"):
        name = {"f": "Float", "i": "Long", "b": "Bool", "u": "Byte"}
        raise RuntimeError(
            f"result type {name.get(values.dtype.kind, values.dtype.name)} can't be cast to the "
            f"desired output type {_legacy(t._data.dtype)}"
        )
    if not t._data.flags.writeable:
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to a single "
            "memory location. Please clone() the tensor before performing the operation."
        )
    t._data[...] = values


def _legacy(d: np.dtype) -> str:
    return {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long",
            "int32": "Int", "bool": "Bool", "uint8": "Byte"}.get(dtypes.from_numpy_dtype(d).name, str(d))
