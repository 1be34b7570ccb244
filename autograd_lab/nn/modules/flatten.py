"""``Flatten``: merge dimensions ``start_dim..end_dim`` into one (``torch.nn.Flatten``)."""

from __future__ import annotations

from ...tensor import Tensor
from .module import Module


class Flatten(Module):
    """Flatten dims ``start_dim`` to ``end_dim``; the default keeps the batch dim:
    (N, C, H, W) -> (N, C*H*W)."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"
