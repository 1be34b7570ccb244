"""``dropout``: the input times a random mask scaled by ``1 / (1 - p)`` (``MulBackward0``, as PyTorch
on the CPU); the same seed gives PyTorch's mask."""

from __future__ import annotations

import numpy as np

from ...ops import arithmetic
from ...ops.inplace import inplace as in_place
from ...random import _generator
from ...tensor import Tensor


def dropout(input: Tensor, p: float = 0.5, training: bool = True,
            inplace: bool = False) -> Tensor:
    """Zero each element with probability ``p`` and scale the rest by ``1/(1-p)``, in training only.

    The mask comes from the global generator (``manual_seed`` makes it reproducible) and the result is
    ``input * mask``: a ``MulBackward0`` node, as PyTorch records dropout on the CPU. Out of training
    (or with ``p=0``) the input itself is returned.
    """
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0 or input.numel() == 0:
        return input
    dt = input._data.dtype
    if p == 1.0:
        mask = np.zeros((), dtype=dt)
    else:
        keep = _generator(None).bernoulli(1.0 - p, input._data.shape)  # PyTorch's bernoulli_(1 - p)
        mask = keep.astype(dt) / dt.type(1.0 - p)
    if inplace:
        return in_place(input, arithmetic.mul, Tensor._make(mask))
    return arithmetic.mul(input, Tensor._make(mask))
