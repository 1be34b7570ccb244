"""``Dropout``: randomly zero activations in training, do nothing in eval (``torch.nn.Dropout``)."""

from __future__ import annotations

from ...tensor import Tensor
from .. import functional as F
from .module import Module


class Dropout(Module):
    """In training, zero each element with probability ``p`` and scale the others by ``1/(1-p)``, so
    the expected value is unchanged; in eval (``model.eval()``) return the input as it is."""

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"
