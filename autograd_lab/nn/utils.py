"""Gradient clipping and parameter vectors (``torch.nn.utils``)."""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from ..grad_mode import no_grad
from ..ops.shape import cat
from ..tensor import Tensor


def _as_list(parameters: Tensor | Iterable[Tensor]) -> list[Tensor]:
    return [parameters] if isinstance(parameters, Tensor) else list(parameters)


def _norm(values: np.ndarray, norm_type: float) -> np.ndarray:
    if norm_type == math.inf:
        return np.abs(values).max(initial=0)
    return np.sum(np.abs(values) ** norm_type) ** (1.0 / norm_type)


def clip_grad_norm_(parameters: Tensor | Iterable[Tensor], max_norm: float, norm_type: float = 2.0,
                    error_if_nonfinite: bool = False, foreach: bool | None = None) -> Tensor:
    """Scale all gradients together so that their joint norm is at most ``max_norm``.

    The norm is taken over all gradients as if they were one vector; it is returned (before clipping).
    Gradients are scaled in place by ``min(1, max_norm / (norm + 1e-6))``, as PyTorch does.
    """
    grads = [p.grad for p in _as_list(parameters) if p.grad is not None]
    norm_type = float(norm_type)
    if not grads:
        return Tensor._make(np.asarray(0.0, dtype=np.float32))
    dtype = grads[0]._data.dtype
    norms = np.array([_norm(g._data, norm_type) for g in grads], dtype=dtype)
    total = np.asarray(_norm(norms, norm_type), dtype=dtype)
    if error_if_nonfinite and not np.isfinite(total):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it "
            "cannot be clipped. To disable this error and scale the gradients by the non-finite norm "
            "anyway, set `error_if_nonfinite=False`"
        )
    coef = np.minimum(np.asarray(max_norm, dtype=dtype) / (total + dtype.type(1e-6)), 1.0).astype(dtype)
    with no_grad():
        for g in grads:
            g.mul_(Tensor._make(coef))
    return Tensor._make(total)


def clip_grad_value_(parameters: Tensor | Iterable[Tensor], clip_value: float,
                     foreach: bool | None = None) -> None:
    """Clamp every gradient element into ``[-clip_value, clip_value]``, in place."""
    with no_grad():
        for p in _as_list(parameters):
            if p.grad is not None:
                p.grad.clamp_(-clip_value, clip_value)


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """All parameters flattened and joined into one vector."""
    return cat([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Copy consecutive pieces of ``vec`` into the parameters (the inverse of ``parameters_to_vector``)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    start = 0
    with no_grad():
        for p in parameters:
            n = p.numel()
            p.copy_(vec[start:start + n].view_as(p))
            start += n


__all__ = ["clip_grad_norm_", "clip_grad_value_", "parameters_to_vector", "vector_to_parameters"]
