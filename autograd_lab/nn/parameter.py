"""``Parameter``: a tensor that a :class:`~autograd_lab.nn.Module` registers as one of its weights.

A parameter is an ordinary leaf tensor with ``requires_grad=True`` by default. What makes it special
is only how modules treat it: assigning one to a module attribute (``self.weight = Parameter(...)``)
registers it, so that ``module.parameters()`` finds it for the optimizer (``torch.nn.Parameter``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes
from .._tensor_str import tensor_repr
from ..tensor import Tensor, _init


class Parameter(Tensor):
    """A tensor that is a module parameter (``torch.nn.Parameter``).

    ``Parameter(data)`` shares memory with ``data`` (no copy) and is a new leaf, cut from any graph
    ``data`` belongs to. ``requires_grad`` defaults to True.
    """

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True) -> None:
        if data is None:
            _init(self, np.empty((0,), dtype=dtypes.get_default_dtype().np), False)
        elif isinstance(data, Tensor):
            _init(self, data._data, False)
            self._version_counter = data._version_counter
        else:
            raise TypeError(
                f"Parameter(): argument 'data' (position 1) must be Tensor, not {type(data).__name__}"
            )
        self.requires_grad = requires_grad

    def __repr__(self) -> str:
        return "Parameter containing:\n" + tensor_repr(self)

    def __deepcopy__(self, memo: dict) -> Parameter:
        if id(self) in memo:
            return memo[id(self)]
        result = Parameter(Tensor._make(np.array(self._data, copy=True)), self.requires_grad)
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, protocol: Any) -> Any:
        return (_rebuild_parameter, (self._data, self._requires_grad))


def _rebuild_parameter(data: np.ndarray, requires_grad: bool) -> Parameter:
    return Parameter(Tensor._make(data), requires_grad)


__all__ = ["Parameter"]
