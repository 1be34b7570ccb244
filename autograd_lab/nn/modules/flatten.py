"""``Flatten``: merge dimensions ``start_dim..end_dim`` into one (``torch.nn.Flatten``), and
``Unflatten``, its inverse."""

from __future__ import annotations

import math
from typing import Any

from ...dtypes import wrap_dim as _wrap_dim
from ...tensor import Tensor
from .module import Module


class Flatten(Module):
    """Flatten dims ``start_dim`` to ``end_dim``; the default keeps the batch dim:
    (N, C, H, W) -> (N, C*H*W)."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input: Tensor) -> Tensor:
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Split dim ``dim`` into ``unflattened_size`` (one entry may be -1): the inverse of ``Flatten``,
    as a view (``ViewBackward0``)."""

    def __init__(self, dim: int, unflattened_size: Any) -> None:
        super().__init__()
        if isinstance(dim, int):
            self._require_tuple_int(unflattened_size)
        else:
            raise TypeError("invalid argument type for dim parameter")
        self.dim = dim
        self.unflattened_size = unflattened_size

    @staticmethod
    def _require_tuple_int(sizes: Any) -> None:
        if isinstance(sizes, (tuple, list)):
            for idx, elem in enumerate(sizes):
                if not isinstance(elem, int):
                    raise TypeError(
                        f"unflattened_size must be tuple of ints, but found element of type "
                        f"{type(elem).__name__} at pos {idx}"
                    )
            return
        raise TypeError(f"unflattened_size must be a tuple of ints, but found type {type(sizes).__name__}")

    def forward(self, input: Tensor) -> Tensor:
        return unflatten(input, self.dim, self.unflattened_size)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


def unflatten(input: Tensor, dim: int, sizes: Any) -> Tensor:
    """``input.unflatten(dim, sizes)``: a view of ``input`` with dim ``dim`` split into ``sizes``."""
    dim = _wrap_dim(dim, input.ndim)
    sizes = [int(s) for s in sizes]
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    size = input.shape[dim]
    if sizes.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    if -1 in sizes:
        known = math.prod(s for s in sizes if s != -1)
        if known == 0 or size % known:
            raise RuntimeError(f"shape '{sizes}' is invalid for input of size {size}")
        sizes[sizes.index(-1)] = size // known
    elif math.prod(sizes) != size:
        raise RuntimeError(
            f"unflatten: Provided sizes {sizes} don't multiply up to the size of dim {dim} ({size}) in the "
            "input tensor"
        )
    shape = tuple(input.shape)
    return input.view(*shape[:dim], *sizes, *shape[dim + 1:])
