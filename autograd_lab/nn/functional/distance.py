"""``cosine_similarity``: ``x1·x2 / (|x1| |x2|)``, composed as PyTorch composes it."""

from __future__ import annotations

import numpy as np

from ...dtypes import scalar_type_name
from ...dtypes import wrap_dim as _wrap_dim
from ...ops import copies, reduction
from ...ops.promotion import binary_operands, broadcast_shape, result_dtype
from ...tensor import Tensor


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """``x1·x2 / (|x1| |x2|)`` along ``dim``, composed as PyTorch's: each input divided by its norm
    (clamped at ``eps`` outside the graph), then multiplied and summed."""
    common = result_dtype(x1, x2)
    if common.kind != "f":
        raise RuntimeError(
            "expected common dtype to be floating point, yet common dtype is "
            f"{scalar_type_name(common)}"
        )
    x1, x2 = binary_operands(x1, x2)
    if x1.shape != x2.shape:  # PyTorch's expand_outplace: then both are expanded
        shape = broadcast_shape(x1.shape, x2.shape)
        x1, x2 = x1.expand(*shape), x2.expand(*shape)
    dim = _wrap_dim(dim, x1.ndim)
    parts = []
    for x in (x1, x2):
        n = copies.clone(reduction.norm(x, 2, dim, True))
        np.maximum(n._data, n._data.dtype.type(eps), out=n._data)  # PyTorch's clamp_min_ under no_grad
        n._version_counter.value += 1
        parts.append(x / n)
    return (parts[0] * parts[1]).sum(dim)
