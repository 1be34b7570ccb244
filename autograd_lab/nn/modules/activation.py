"""Activation layers: ``ReLU``, ``Tanh``, ``Sigmoid``, ``Softmax``, ``LogSoftmax``."""

from __future__ import annotations

from ...tensor import Tensor
from .. import functional as F
from .module import Module


class ReLU(Module):
    """``max(x, 0)`` elementwise (``torch.nn.ReLU``)."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.relu(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class Tanh(Module):
    """``tanh(x)`` elementwise."""

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.tanh(input)


class Sigmoid(Module):
    """``1 / (1 + exp(-x))`` elementwise."""

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.sigmoid(input)


class Softmax(Module):
    """Softmax along ``dim``: each slice becomes probabilities that sum to 1."""

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.softmax(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class LogSoftmax(Module):
    """Log-softmax along ``dim`` (what ``NLLLoss`` expects)."""

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.log_softmax(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"
