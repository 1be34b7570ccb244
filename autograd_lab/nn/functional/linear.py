"""``linear``: ``input @ weight.T + bias``, recorded as PyTorch records it."""

from __future__ import annotations

import math

from ...dtypes import scalar_type_name
from ...ops import linalg
from ...tensor import Tensor


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``input @ weight.T + bias`` (``torch.nn.functional.linear``).

    Recorded as PyTorch records it: without a bias, ``matmul(input, weight.t())`` (which folds a batch
    into one ``MmBackward0`` where it can); with one, ``AddmmBackward0`` for a 2-D input, a row-major
    input of other ranks flattened to 2-D and viewed back (``ViewBackward0``), any other the matmul
    with the bias added in place (``AddBackward0``).
    """
    if input.ndim == 0 or weight.ndim == 0:
        raise RuntimeError(
            f"both arguments to linear need to be at least 1D, but they are {input.ndim}D and "
            f"{weight.ndim}D"
        )
    if weight.ndim > 2:  # PyTorch's weight.t() comes first
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {weight.ndim}D")
    if bias is None:  # (matmul folds a batch into one mm where PyTorch's does: UnsafeViewBackward0)
        return linalg.matmul(input, weight.t())  # (and raises mm's, bmm's or mv's dtype error)
    if input.ndim == 2 or input._data.flags.c_contiguous:  # addmm: its dtype checks, in its order
        for what, first, second in (("self", bias, weight), ("mat1", input, weight)):
            if first.dtype is not second.dtype:
                raise RuntimeError(f"{what} and mat2 must have the same dtype, but got "
                                   f"{scalar_type_name(first.dtype)} and {scalar_type_name(second.dtype)}")
    if input.ndim == 2:
        return linalg.Addmm.apply(bias, input, weight.t(), 1, 1)
    if not input._data.flags.c_contiguous:  # PyTorch: matmul, then the bias added in place
        return linalg.matmul(input, weight.t()).add_(bias)
    batch = input.shape[:-1]
    out = linalg.Addmm.apply(bias, input.reshape(math.prod(batch), input.shape[-1]), weight.t(), 1, 1)
    return out.view(*batch, weight.shape[0])
