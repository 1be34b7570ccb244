"""``linear``: ``input @ weight.T + bias``, recorded as PyTorch records it."""

from __future__ import annotations

import math

from ...dtypes import scalar_type_name
from ...ops import linalg
from ...ops.view import UnsafeView
from ...tensor import Tensor
from ._node import (
    _short,
)


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``input @ weight.T + bias`` (``torch.nn.functional.linear``).

    Recorded as PyTorch records it: ``AddmmBackward0`` for a 2-D input with a bias, ``MmBackward0``
    without; other ranks are flattened to 2-D and viewed back (``ViewBackward0`` with a bias,
    ``UnsafeViewBackward0`` without). One small difference: a 1-D input without bias ends in
    ``SqueezeBackward1`` where PyTorch shows ``SqueezeBackward4``.
    """
    if input.ndim == 0 or weight.ndim == 0:
        raise RuntimeError(
            f"both arguments to linear need to be at least 1D, but they are {input.ndim}D and "
            f"{weight.ndim}D"
        )
    if weight.ndim > 2:  # PyTorch's weight.t() comes first
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {weight.ndim}D")
    if input.dtype is not weight.dtype:
        if bias is not None:
            raise RuntimeError(
                f"mat1 and mat2 must have the same dtype, but got {scalar_type_name(input.dtype)} and "
                f"{scalar_type_name(weight.dtype)}"
            )
        raise RuntimeError(
            f"expected m1 and m2 to have the same dtype, but got: {_short(input)} != {_short(weight)}"
        )
    if bias is None:
        if input.ndim <= 2:
            return linalg.matmul(input, weight.t())
        batch = input.shape[:-1]
        out = linalg.mm(input.reshape(math.prod(batch), input.shape[-1]), weight.t())
        return UnsafeView.apply(out, (*batch, weight.shape[0]))
    if input.ndim == 2:
        return linalg.Addmm.apply(bias, input, weight.t(), 1, 1)
    batch = input.shape[:-1]
    out = linalg.Addmm.apply(bias, input.reshape(math.prod(batch), input.shape[-1]), weight.t(), 1, 1)
    return out.view(*batch, weight.shape[0])
