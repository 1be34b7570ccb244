"""``pad``: constant padding (``ConstantPadNdBackward0``; a negative pad crops)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...function import Function
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
