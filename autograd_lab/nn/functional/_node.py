"""What the nodes of ``nn.functional`` share: the non-tensor values a node shows as ``_saved_<name>``
(:func:`_keep`), the undefined tensor PyTorch saves where an optional input was None, masks, and
the dtype checks of nn's kernels."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from ...dtypes import scalar_type_name
from ...grad_mode import is_grad_enabled
from ...ops.promotion import _UNDEFINED, _const  # noqa: F401 (re-exported to the nn ops)
from ...tensor import Tensor


def _keep(ctx: Any, **scalars: Any) -> None:
    """The non-tensor arguments PyTorch's node shows as ``_saved_<name>``. Where PyTorch keeps a SymInt
    (``pad``, ``padding_idx``), a negative value reads back as unsigned 64-bit there, and so here."""
    for key, value in scalars.items():
        setattr(ctx, "_saved_" + key, value)




def _require_float(t: Tensor, kernel: str) -> None:
    if t._data.dtype.kind != "f":
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_type_name(t.dtype)}'")


def _not_differentiable(fn: str, **tensors: Tensor | None) -> None:
    for arg, t in tensors.items():
        if t is not None and is_grad_enabled() and t.requires_grad:
            raise RuntimeError(
                f"The function '{fn}' is not differentiable with respect to argument '{arg}'. This input "
                "cannot have requires_grad True."
            )


def _inplace_backward_check(name: str, ok: bool, tail: str = "") -> None:
    if not ok:
        raise RuntimeError(
            f"In-place {name} backward calculation is triggered with a negative slope which is not "
            "supported. This is caused by calling in-place forward function with a negative slope, "
            f"please call out-of-place version instead.{tail}"
        )


def _short(t: Tensor) -> str:
    """PyTorch's short dtype names in some messages: float, double, long."""
    return {"float32": "float", "float64": "double", "int64": "long"}.get(t.dtype.name, t.dtype.name)


def _mask(cond: np.ndarray, like: Tensor) -> Tensor:
    return _const(cond.astype(like._data.dtype))


def _tuple(value: Any, n: int) -> tuple[int, ...]:
    if isinstance(value, numbers.Integral):
        return (int(value),) * n
    return tuple(int(v) for v in value)
