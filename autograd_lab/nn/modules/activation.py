"""Activation layers: ``ReLU``, ``Tanh``, ``Sigmoid``, ``Softmax``, ``LogSoftmax``, ``LeakyReLU``,
``GELU``, ``SiLU``, ``Mish``, ``ELU``, ``Softplus``, ``LogSigmoid``, ``Hardtanh``, ``ReLU6``, ``Softsign``,
``PReLU``."""

from __future__ import annotations

from typing import Any

from ... import creation
from ...tensor import Tensor
from .. import functional as F
from .. import init as nn_init
from ..parameter import Parameter
from .module import Module


class ReLU(Module):
    """``max(x, 0)`` elementwise (``torch.nn.ReLU``)."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.relu(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class Tanh(Module):
    """``tanh(x)`` elementwise."""

    def forward(self, input: Tensor) -> Tensor:
        return F.tanh(input)


class Sigmoid(Module):
    """``1 / (1 + exp(-x))`` elementwise."""

    def forward(self, input: Tensor) -> Tensor:
        return F.sigmoid(input)


class Softmax(Module):
    """Softmax along ``dim``: each slice becomes probabilities that sum to 1."""

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.softmax(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class LogSoftmax(Module):
    """Log-softmax along ``dim`` (what ``NLLLoss`` expects)."""

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.log_softmax(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class LeakyReLU(Module):
    """``x`` where positive, ``negative_slope * x`` elsewhere (``torch.nn.LeakyReLU``)."""

    def __init__(self, negative_slope: float = 1e-2, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class GELU(Module):
    """Gaussian error linear unit, ``x * Φ(x)``; ``approximate="tanh"`` for the tanh formula."""

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, input: Tensor) -> Tensor:
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class SiLU(Module):
    """``x * sigmoid(x)`` (swish)."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.silu(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class Mish(Module):
    """``x * tanh(softplus(x))``."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.mish(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class ELU(Module):
    """``x`` where positive, ``alpha * (exp(x) - 1)`` elsewhere."""

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class Softplus(Module):
    """``log(1 + exp(beta * x)) / beta``, linear where ``beta * x > threshold``."""

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input: Tensor) -> Tensor:
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class LogSigmoid(Module):
    """``log(sigmoid(x))``, computed stably."""

    def forward(self, input: Tensor) -> Tensor:
        return F.logsigmoid(input)


class Hardtanh(Module):
    """``x`` clipped to ``[min_val, max_val]``."""

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace
        if not self.max_val > self.min_val:
            raise AssertionError(f"max_val ({self.max_val}) must be greater than min_val ({self.min_val})")

    def forward(self, input: Tensor) -> Tensor:
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self) -> str:
        return f"min_val={self.min_val}, max_val={self.max_val}" + (", inplace=True" if self.inplace else "")


class ReLU6(Hardtanh):
    """``min(max(0, x), 6)``."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class Softsign(Module):
    """``x / (1 + |x|)``."""

    def forward(self, input: Tensor) -> Tensor:
        return F.softsign(input)


class PReLU(Module):
    """Leaky ReLU with a learnt negative slope: one shared (``num_parameters=1``) or one per channel
    (dim 1). The slope starts at ``init``."""

    def __init__(self, num_parameters: int = 1, init: float = 0.25, device: Any = None,
                 dtype: Any = None) -> None:
        self.num_parameters = num_parameters
        super().__init__()
        self.init = init
        self.weight = Parameter(creation.empty(num_parameters, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        nn_init.constant_(self.weight, self.init)

    def forward(self, input: Tensor) -> Tensor:
        return F.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"
