"""NAdam (``torch.optim.NAdam``): Adam with Nesterov momentum, PyTorch's update."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .. import creation
from ..tensor import Tensor
from .optimizer import Optimizer, _check_hyperparameters, _scalar


class NAdam(Optimizer):
    """Adam with Nesterov momentum (Dozat), with PyTorch's momentum schedule.

    At step t: ``μ_t = β1 (1 - 0.5 · 0.96^(t ψ))`` (ψ = ``momentum_decay``); ``mu_product`` is the running
    product of the μ's (kept in float32, as PyTorch);
    ``p = p - lr (1 - μ_t) / (1 - Πμ) · g / d - lr μ_{t+1} / (1 - Πμ·μ_{t+1}) · m / d``, with
    ``d = sqrt(v / (1 - β2^t)) + eps``.
    """

    def __init__(self, params: Iterable[Tensor] | Iterable[dict[str, Any]], lr: float = 2e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0,
                 momentum_decay: float = 4e-3, decoupled_weight_decay: bool = False, *,
                 foreach: bool | None = None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False) -> None:
        _check_hyperparameters(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay,
                               momentum_decay=momentum_decay)
        defaults = {
            "lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
            "momentum_decay": momentum_decay,
            "decoupled_weight_decay": decoupled_weight_decay, "maximize": maximize, "foreach": foreach,
            "capturable": capturable, "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def _init_state(self, p: Tensor, group: dict[str, Any]) -> dict[str, Any]:
        return {"step": _scalar(0.0), "mu_product": _scalar(1.0), "exp_avg": creation.zeros_like(p),
                "exp_avg_sq": creation.zeros_like(p)}

    def _update(self, p: Tensor, grad: Tensor, state: dict[str, Any], group: dict[str, Any]) -> None:
        lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
        exp_avg, exp_avg_sq, mu_product = state["exp_avg"], state["exp_avg_sq"], state["mu_product"]
        step = state["step"].item()
        bias_correction2 = 1 - beta2**step
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * group["momentum_decay"])))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * group["momentum_decay"])))
        mu_product.mul_(mu)
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        denom = exp_avg_sq.div(bias_correction2).sqrt()
        mu_product_value = mu_product.item()
        mu_product_next = mu_product_value * mu_next
        denom.add_(eps)
        p.addcdiv_(grad, denom, value=(-lr * (1.0 - mu) / (1.0 - mu_product_value)))
        p.addcdiv_(exp_avg, denom, value=(-lr * mu_next) / (1.0 - mu_product_next))


__all__ = ["NAdam"]
