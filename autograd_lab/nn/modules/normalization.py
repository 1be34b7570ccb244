"""``LayerNorm``: normalise each sample over its trailing dims, then scale and shift (``torch.nn.LayerNorm``).

Unlike batch norm, the statistics are those of each sample alone, in training and in eval alike, so
the layer keeps no running statistics.
"""

from __future__ import annotations

import numbers
from typing import Any

from ... import creation
from ...tensor import Tensor
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module


class LayerNorm(Module):
    """Normalise over the last ``len(normalized_shape)`` dims; ``weight`` starts at ones, ``bias`` at
    zeros (both of ``normalized_shape``, if ``elementwise_affine``)."""

    def __init__(self, normalized_shape: Any, eps: float = 1e-5, elementwise_affine: bool = True,
                 bias: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(creation.empty(*self.normalized_shape, dtype=dtype))
            if bias:
                self.bias = Parameter(creation.empty(*self.normalized_shape, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.elementwise_affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input: Tensor) -> Tensor:
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}, "
                f"bias={self.bias is not None}")
