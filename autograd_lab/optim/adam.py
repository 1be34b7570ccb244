"""Adam (``torch.optim.Adam``), with PyTorch's exact update."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .. import creation
from ..tensor import Tensor
from .optimizer import Optimizer, _check_hyperparameters, _scalar


def _lerp_(start: Tensor, end: Tensor, weight: float) -> Tensor:
    """``start += weight * (end - start)`` in place, in the two forms PyTorch's ``lerp_`` uses."""
    if weight < 0.5:
        return start.add_(end.sub(start), alpha=weight)
    return start.copy_(end.sub(end.sub(start).mul(1 - weight)))


class Adam(Optimizer):
    """Adaptive moments: a step along the running mean of gradients, scaled by their running RMS.

    For each parameter p with gradient g, at step t (from 1):

    1. ``g = g + weight_decay * p`` (Adam) or ``p = p * (1 - lr * weight_decay)`` (AdamW: decoupled);
    2. ``m = m + (1 - β1)(g - m)``; ``v = β2 v + (1 - β2) g²`` (``v_max = max(v_max, v)`` with amsgrad);
    3. ``p = p - lr / (1 - β1^t) * m / (sqrt(v) / sqrt(1 - β2^t) + eps)``.

    The bias corrections ``1 - β^t`` undo the pull towards zero of moments that start at zero.
    """

    def __init__(self, params: Iterable[Tensor] | Iterable[dict[str, Any]], lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0,
                 amsgrad: bool = False, *, foreach: bool | None = None, maximize: bool = False,
                 capturable: bool = False, differentiable: bool = False, fused: bool | None = None,
                 decoupled_weight_decay: bool = False) -> None:
        _check_hyperparameters(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay)
        defaults = {
            "lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay, "amsgrad": amsgrad,
            "maximize": maximize, "foreach": foreach, "capturable": capturable,
            "differentiable": differentiable, "fused": fused,
            "decoupled_weight_decay": decoupled_weight_decay,
        }
        super().__init__(params, defaults)

    def _init_state(self, p: Tensor, group: dict[str, Any]) -> dict[str, Any]:
        state = {"step": _scalar(0.0), "exp_avg": creation.zeros_like(p),
                 "exp_avg_sq": creation.zeros_like(p)}
        if group["amsgrad"]:
            state["max_exp_avg_sq"] = creation.zeros_like(p)
        return state

    def _update(self, p: Tensor, grad: Tensor, state: dict[str, Any], group: dict[str, Any]) -> None:
        lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        _lerp_(exp_avg, grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).add_(grad.mul(grad), alpha=1 - beta2)
        step = state["step"].item()
        bias_correction1 = 1 - beta1**step
        bias_correction2 = 1 - beta2**step
        step_size = lr / bias_correction1
        bias_correction2_sqrt = bias_correction2**0.5
        if group["amsgrad"]:
            state["max_exp_avg_sq"].copy_(state["max_exp_avg_sq"].maximum(exp_avg_sq))
            denom = (state["max_exp_avg_sq"].sqrt() / bias_correction2_sqrt).add_(eps)
        else:
            denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
        p.add_(exp_avg.div(denom), alpha=-step_size)


__all__ = ["Adam"]
