"""Adadelta (``torch.optim.Adadelta``), with PyTorch's exact single-tensor update."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from .. import creation, dtypes
from ..grad_mode import no_grad
from ..tensor import Tensor
from .optimizer import Optimizer


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
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {
            "lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay, "maximize": maximize,
            "capturable": capturable, "foreach": foreach, "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    @no_grad()
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One update of every parameter that has a gradient; returns ``closure()`` if given."""
        loss = self._run_closure(closure)
        for group in self.param_groups:
            lr, rho, eps, weight_decay = group["lr"], group["rho"], group["eps"], group["weight_decay"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = creation.tensor(0.0, dtype=dtypes.float32)
                    state["square_avg"] = creation.zeros_like(p)
                    state["acc_delta"] = creation.zeros_like(p)
                square_avg, acc_delta = state["square_avg"], state["acc_delta"]
                state["step"].add_(1)
                grad = p.grad if not group["maximize"] else -p.grad
                if weight_decay != 0:
                    grad = grad.add(p, alpha=weight_decay)
                square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
                std = square_avg.add(eps).sqrt_()
                delta = acc_delta.add(eps).sqrt_()
                delta.div_(std).mul_(grad)
                acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
                p.add_(delta, alpha=-lr)
        return loss


__all__ = ["Adadelta"]
