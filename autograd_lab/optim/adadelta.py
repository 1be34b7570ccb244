"""Adadelta (``torch.optim.Adadelta``), with PyTorch's exact single-tensor update."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .. import creation
from ..tensor import Tensor
from .optimizer import Optimizer, _check_hyperparameters, _scalar


class Adadelta(Optimizer):
    """Step by ``RMS(past updates) / RMS(gradients) * g``, so the step has the units of the parameter.

    For each parameter p with gradient g:

    1. ``g = -g`` if ``maximize``; ``g = g + weight_decay * p``;
    2. ``v = ρ v + (1 - ρ) g²`` (``square_avg``);
    3. ``δ = sqrt(u + eps) / sqrt(v + eps) * g``, where u is ``acc_delta``;
    4. ``u = ρ u + (1 - ρ) δ²``; ``p = p - lr δ``.
    """

    def __init__(self, params: Iterable[Tensor] | Iterable[dict[str, Any]], lr: float = 1.0, rho: float = 0.9,
                 eps: float = 1e-6, weight_decay: float = 0, foreach: bool | None = None, *,
                 capturable: bool = False, maximize: bool = False, differentiable: bool = False) -> None:
        _check_hyperparameters(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay)
        defaults = {
            "lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay, "maximize": maximize,
            "capturable": capturable, "foreach": foreach, "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def _init_state(self, p: Tensor, group: dict[str, Any]) -> dict[str, Any]:
        return {"step": _scalar(0.0), "square_avg": creation.zeros_like(p),
                "acc_delta": creation.zeros_like(p)}

    def _update(self, p: Tensor, grad: Tensor, state: dict[str, Any], group: dict[str, Any]) -> None:
        rho, eps = group["rho"], group["eps"]
        square_avg, acc_delta = state["square_avg"], state["acc_delta"]
        square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
        std = square_avg.add(eps).sqrt_()
        delta = acc_delta.add(eps).sqrt_()
        delta.div_(std).mul_(grad)
        acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
        p.add_(delta, alpha=-group["lr"])


__all__ = ["Adadelta"]
