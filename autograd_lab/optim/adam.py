"""Adam and AdamW (``torch.optim.Adam``, ``torch.optim.AdamW``), with PyTorch's exact update."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from .. import creation, dtypes
from ..grad_mode import no_grad
from ..tensor import Tensor
from .optimizer import Optimizer


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
        defaults = {
            "lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay, "amsgrad": amsgrad,
            "maximize": maximize, "foreach": foreach, "capturable": capturable,
            "differentiable": differentiable, "fused": fused,
            "decoupled_weight_decay": decoupled_weight_decay,
        }
        super().__init__(params, defaults)

    @no_grad()
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One update of every parameter that has a gradient; returns ``closure()`` if given."""
        loss = self._run_closure(closure)
        for group in self.param_groups:
            lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
            weight_decay, amsgrad = group["weight_decay"], group["amsgrad"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = creation.tensor(0.0, dtype=dtypes.float32)
                    state["exp_avg"] = creation.zeros_like(p)
                    state["exp_avg_sq"] = creation.zeros_like(p)
                    if amsgrad:
                        state["max_exp_avg_sq"] = creation.zeros_like(p)
                grad = p.grad if not group["maximize"] else -p.grad
                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                state["step"].add_(1)
                if weight_decay != 0:
                    if group["decoupled_weight_decay"]:
                        p.mul_(1 - lr * weight_decay)
                    else:
                        grad = grad.add(p, alpha=weight_decay)
                _lerp_(exp_avg, grad, 1 - beta1)
                exp_avg_sq.mul_(beta2).add_(grad.mul(grad), alpha=1 - beta2)
                step = state["step"].item()
                bias_correction1 = 1 - beta1**step
                bias_correction2 = 1 - beta2**step
                step_size = lr / bias_correction1
                bias_correction2_sqrt = bias_correction2**0.5
                if amsgrad:
                    state["max_exp_avg_sq"].copy_(state["max_exp_avg_sq"].maximum(exp_avg_sq))
                    denom = (state["max_exp_avg_sq"].sqrt() / bias_correction2_sqrt).add_(eps)
                else:
                    denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
                p.add_(exp_avg.div(denom), alpha=-step_size)
        return loss


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter): ``p *= 1 - lr * weight_decay`` each step,
    instead of adding ``weight_decay * p`` to the gradient. The default ``weight_decay`` is 0.01."""

    def __init__(self, params: Iterable[Tensor] | Iterable[dict[str, Any]], lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8, weight_decay: float = 1e-2,
                 amsgrad: bool = False, *, maximize: bool = False, foreach: bool | None = None,
                 capturable: bool = False, differentiable: bool = False, fused: bool | None = None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)


__all__ = ["Adam", "AdamW"]
