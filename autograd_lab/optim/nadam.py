"""NAdam, RAdam and Adamax (``torch.optim.NAdam``/``RAdam``/``Adamax``): Adam variants, PyTorch's updates."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from .. import creation, dtypes
from ..grad_mode import no_grad
from ..tensor import Tensor
from .optimizer import Optimizer


def _check_adam_args(lr: float, betas: tuple[float, float], eps: float, weight_decay: float) -> None:
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


def _scalar(value: float) -> Tensor:
    return creation.tensor(value, dtype=dtypes.float32)


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
        _check_adam_args(lr, betas, eps, weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        defaults = {
            "lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
            "momentum_decay": momentum_decay,
            "decoupled_weight_decay": decoupled_weight_decay, "maximize": maximize, "foreach": foreach,
            "capturable": capturable, "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    @no_grad()
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One update of every parameter that has a gradient; returns ``closure()`` if given."""
        loss = self._run_closure(closure)
        for group in self.param_groups:
            lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
            weight_decay, momentum_decay = group["weight_decay"], group["momentum_decay"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _scalar(0.0)
                    state["mu_product"] = _scalar(1.0)
                    state["exp_avg"] = creation.zeros_like(p)
                    state["exp_avg_sq"] = creation.zeros_like(p)
                grad = p.grad if not group["maximize"] else -p.grad
                exp_avg, exp_avg_sq, mu_product = state["exp_avg"], state["exp_avg_sq"], state["mu_product"]
                state["step"].add_(1)
                step = state["step"].item()
                bias_correction2 = 1 - beta2**step
                if weight_decay != 0:
                    if group["decoupled_weight_decay"]:
                        p.mul_(1 - lr * weight_decay)
                    else:
                        grad = grad.add(p, alpha=weight_decay)
                mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
                mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
                mu_product.mul_(mu)
                exp_avg.lerp_(grad, 1 - beta1)
                exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                denom = exp_avg_sq.div(bias_correction2).sqrt()
                mu_product_value = mu_product.item()
                mu_product_next = mu_product_value * mu_next
                denom.add_(eps)
                p.addcdiv_(grad, denom, value=(-lr * (1.0 - mu) / (1.0 - mu_product_value)))
                p.addcdiv_(exp_avg, denom, value=(-lr * mu_next) / (1.0 - mu_product_next))
        return loss


class RAdam(Optimizer):
    """Rectified Adam (Liu et al.): plain momentum SGD while the variance estimate is unreliable
    (``ρ_t <= 5``), then Adam scaled by the rectification term ``r_t``."""

    def __init__(self, params: Iterable[Tensor] | Iterable[dict[str, Any]], lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0,
                 decoupled_weight_decay: bool = False, *, foreach: bool | None = None, maximize: bool = False,
                 capturable: bool = False, differentiable: bool = False) -> None:
        _check_adam_args(lr, betas, eps, weight_decay)
        defaults = {
            "lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "maximize": maximize,
            "foreach": foreach, "capturable": capturable, "decoupled_weight_decay": decoupled_weight_decay,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    @no_grad()
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One update of every parameter that has a gradient; returns ``closure()`` if given."""
        loss = self._run_closure(closure)
        for group in self.param_groups:
            lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
            weight_decay = group["weight_decay"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _scalar(0.0)
                    state["exp_avg"] = creation.zeros_like(p)
                    state["exp_avg_sq"] = creation.zeros_like(p)
                grad = p.grad if not group["maximize"] else -p.grad
                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                state["step"].add_(1)
                step = state["step"].item()
                if weight_decay != 0:
                    if group["decoupled_weight_decay"]:
                        p.mul_(1 - lr * weight_decay)
                    else:
                        grad = grad.add(p, alpha=weight_decay)
                exp_avg.lerp_(grad, 1 - beta1)
                exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                bias_correction1 = 1 - beta1**step
                bias_correction2 = 1 - beta2**step
                bias_corrected_exp_avg = exp_avg / bias_correction1
                rho_inf = 2 / (1 - beta2) - 1
                rho_t = rho_inf - 2 * step * (beta2**step) / bias_correction2
                if rho_t > 5.0:
                    rect = ((rho_t - 4) * (rho_t - 2) * rho_inf
                            / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
                    adaptive_lr = (bias_correction2**0.5) / exp_avg_sq.sqrt().add_(eps)
                    p.add_(bias_corrected_exp_avg * lr * adaptive_lr * rect, alpha=-1.0)
                else:
                    p.add_(bias_corrected_exp_avg * lr, alpha=-1.0)
        return loss


class Adamax(Optimizer):
    """Adam with the infinity norm: ``u = max(β2 u, |g| + eps)``; ``p = p - lr / (1 - β1^t) · m / u``."""

    def __init__(self, params: Iterable[Tensor] | Iterable[dict[str, Any]], lr: float = 2e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0,
                 foreach: bool | None = None, *, maximize: bool = False, differentiable: bool = False,
                 capturable: bool = False) -> None:
        _check_adam_args(lr, betas, eps, weight_decay)
        defaults = {
            "lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "foreach": foreach,
            "maximize": maximize, "differentiable": differentiable, "capturable": capturable,
        }
        super().__init__(params, defaults)

    @no_grad()
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One update of every parameter that has a gradient; returns ``closure()`` if given."""
        loss = self._run_closure(closure)
        for group in self.param_groups:
            lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
            weight_decay = group["weight_decay"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _scalar(0.0)
                    state["exp_avg"] = creation.zeros_like(p)
                    state["exp_inf"] = creation.zeros_like(p)
                grad = p.grad if not group["maximize"] else -p.grad
                exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
                state["step"].add_(1)
                if weight_decay != 0:
                    grad = grad.add(p, alpha=weight_decay)
                exp_avg.lerp_(grad, 1 - beta1)
                exp_inf.copy_(exp_inf.mul_(beta2).maximum(grad.abs().add_(eps)))
                bias_correction = 1 - beta1 ** state["step"].item()
                clr = lr / bias_correction
                p.addcdiv_(exp_avg, exp_inf, value=-clr)
        return loss


__all__ = ["NAdam", "RAdam", "Adamax"]
