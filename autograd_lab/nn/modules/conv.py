"""``Conv1d``/``Conv2d``: learned filters slid over the input (``torch.nn.Conv1d``/``Conv2d``).

``weight`` has shape ``(out_channels, in_channels // groups, *kernel_size)`` and starts as PyTorch's:
Kaiming-uniform with ``a=sqrt(5)`` (U(-1/sqrt(fan_in), 1/sqrt(fan_in)), ``fan_in = in_channels //
groups * prod(kernel_size)``), ``bias`` uniform in the same range, drawn from autograd_lab's generator
in PyTorch's order, so a seed gives PyTorch's numbers. Only ``padding_mode="zeros"`` is implemented.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

from ... import creation
from ...tensor import Tensor
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module


def _ntuple(value: Any, n: int) -> tuple:
    if isinstance(value, numbers.Integral):
        return (value,) * n
    return tuple(value)


class _ConvNd(Module):
    _dims = 0

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, dilation: Any = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        n = self._dims
        kernel_size, stride, dilation = _ntuple(kernel_size, n), _ntuple(stride, n), _ntuple(dilation, n)
        padding = padding if isinstance(padding, str) else _ntuple(padding, n)
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {{'valid', 'same'}}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in ("zeros", "reflect", "replicate", "circular"):
            raise ValueError(
                "padding_mode must be one of {'circular', 'reflect', 'replicate', 'zeros'}, but got "
                f"padding_mode='{padding_mode}'"
            )
        if padding_mode != "zeros":
            raise NotImplementedError(
                f"autograd_lab implements only padding_mode='zeros' for convolutions, not {padding_mode!r}"
            )
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = False
        self.output_padding = (0,) * n
        self.groups = groups
        self.padding_mode = padding_mode
        self.weight = Parameter(creation.empty(out_channels, in_channels // groups, *kernel_size,
                                               dtype=dtype, device=device))
        if bias:
            self.bias = Parameter(creation.empty(out_channels, dtype=dtype, device=device))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self) -> str:
        s = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
             f"stride={self.stride}")
        if self.padding != (0,) * len(self.padding):
            s += f", padding={self.padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class Conv1d(_ConvNd):
    """1-d convolution over ``(N, C_in, L)`` or ``(C_in, L)`` inputs."""

    _dims = 1

    def forward(self, input: Tensor) -> Tensor:
        return F.conv1d(input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)


class Conv2d(_ConvNd):
    """2-d convolution over ``(N, C_in, H, W)`` or ``(C_in, H, W)`` inputs."""

    _dims = 2

    def forward(self, input: Tensor) -> Tensor:
        return F.conv2d(input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)
