"""``Linear``: ``y = x @ W.T + b``, the fully connected layer (``torch.nn.Linear``), and ``Identity``."""

from __future__ import annotations

import math
from typing import Any

from ... import creation
from ...tensor import Tensor
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module


class Identity(Module):
    """Returns its input unchanged (a placeholder layer); arguments are ignored."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Tensor) -> Tensor:
        return input


class Linear(Module):
    """Applies ``x @ weight.T + bias`` to the last dimension of ``x``.

    ``weight`` has shape (out_features, in_features) and starts as PyTorch's: Kaiming-uniform with
    ``a=sqrt(5)``, i.e. U(-1/sqrt(in_features), 1/sqrt(in_features)); ``bias`` starts uniform in the
    same range. The numbers come from autograd_lab's generator (seed it with ``manual_seed``).
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(creation.empty(out_features, in_features, dtype=dtype, device=device))
        if bias:
            self.bias = Parameter(creation.empty(out_features, dtype=dtype, device=device))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor) -> Tensor:
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")
