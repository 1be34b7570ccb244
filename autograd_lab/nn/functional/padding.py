"""``pad``: constant padding (``ConstantPadNdBackward0``; a negative pad crops)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...function import Function
from ...ops.inplace import copy_preserving
from ...ops.promotion import empty_in_order, suggested_order
from ...tensor import Tensor
from ._node import (
    _keep,
)


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
            if d.shape[axis] + min(before, 0) + min(after, 0) < 0:  # (PyTorch narrows each side that crops)
                raise RuntimeError("narrow(): length must be non-negative.")
            widths[axis] = (max(before, 0), max(after, 0))
            crops[axis] = slice(max(-before, 0), d.shape[axis] - max(-after, 0))
        cropped = d[tuple(crops)]
        ctx.pad = pad
        _keep(ctx, pad=[p % 2**64 for p in pad])  # PyTorch shows negative amounts as unsigned 64-bit
        if all(p <= 0 for p in pad):  # cropped only: PyTorch clones the narrowed view (its layout kept)
            return Tensor._make(copy_preserving(cropped))
        # a new tensor laid out as suggest_memory_format says (row-major, or channels last), filled
        shape = tuple(n + before + after for n, (before, after) in zip(cropped.shape, widths))
        out = empty_in_order(shape, suggested_order(d), d.dtype)
        out[...] = np.asarray(value).astype(d.dtype)
        out[tuple(slice(before, before + n) for n, (before, _) in zip(cropped.shape, widths))] = cropped
        return Tensor._make(out)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None]:
        return ConstantPadNd.apply(grad, tuple(-p for p in ctx.pad), 0), None, None


def pad(input: Tensor, pad: Any, mode: str = "constant", value: float | None = None) -> Tensor:
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
