"""A tensor and a Python number, as PyTorch's own derivative formulas record them.

PyTorch's C++ formulas call the ``Tensor, Scalar`` overloads, whose nodes have their own names:
``AddBackward1``, ``MulBackward1``, ``DivBackward1`` (the number kept as ``_saved_other``). Python's
``x * 2`` is ``MulBackward0`` (the number wrapped as a tensor). The backward formulas and composite ops
here use these where PyTorch's do, so that graphs drawn with ``create_graph=True`` match.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dtypes import quiet as _quiet
from ..function import Function
from ..tensor import Tensor
from .promotion import cast, result_dtype


class AddNumber(Function):
    """``tensor + number`` as PyTorch's internal code records it (``AddBackward1``); Python's ``x + 2``
    is ``AddBackward0``. Used inside other ops' formulas."""

    node_name = "AddBackward1"

    @staticmethod
    def forward(ctx: Any, a: Tensor, number: Any) -> Tensor:
        return Tensor._make(cast(np.add(a._data, number), a, number))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return grad, None


class SubNumber(Function):
    """``tensor - number`` as PyTorch's internal code records it (``SubBackward1``)."""

    node_name = "SubBackward1"

    @staticmethod
    def forward(ctx: Any, a: Tensor, number: Any) -> Tensor:
        return Tensor._make(cast(np.subtract(a._data, number), a, number))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return grad, None


class MulNumber(Function):
    """``tensor * number`` as PyTorch's internal code records it (``MulBackward1``, the number kept as
    ``_saved_other``); Python's ``x * 2`` is ``MulBackward0``. Used inside other ops' formulas."""

    node_name = "MulBackward1"

    @staticmethod
    def forward(ctx: Any, a: Tensor, number: Any) -> Tensor:
        ctx._saved_other = number
        return Tensor._make(cast(np.multiply(a._data, number), a, number))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return MulNumber.apply(grad, ctx._saved_other), None


class DivNumber(Function):
    """``tensor / number`` as PyTorch's internal code records it (``DivBackward1``)."""

    node_name = "DivBackward1"

    @staticmethod
    def forward(ctx: Any, a: Tensor, number: Any) -> Tensor:
        ctx._saved_other = number
        with _quiet():
            out = np.true_divide(a._data, number)
        return Tensor._make(out.astype(result_dtype(a, number), copy=False))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return DivNumber.apply(grad, ctx._saved_other), None
