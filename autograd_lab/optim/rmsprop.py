"""RMSprop (``torch.optim.RMSprop``), with PyTorch's exact single-tensor update."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from .. import creation, dtypes
from ..grad_mode import no_grad
from ..tensor import Tensor
from .optimizer import Optimizer


class RMSprop(Optimizer):
    """Divide the gradient by a running RMS of recent gradients.

    For each parameter p with gradient g (PyTorch's order of operations):

    1. ``g = -g`` if ``maximize``; ``g = g + weight_decay * p``;
    2. ``v = α v + (1 - α) g²`` (``square_avg``);
    3. centered: ``m = m + (1 - α)(g - m)`` (``grad_avg``) and ``avg = sqrt(v - m²)``, else ``avg = sqrt(v)``;
       then ``avg = avg + eps`` (eps outside the square root);
    4. with momentum μ: ``b = μ b + g / avg`` and ``p = p - lr b``; else ``p = p - lr g / avg``.
    """

    def __init__(self, params: Iterable[Tensor] | Iterable[dict[str, Any]], lr: float = 1e-2,
                 alpha: float = 0.99, eps: float = 1e-8, weight_decay: float = 0, momentum: float = 0,
                 centered: bool = False, capturable: bool = False, foreach: bool | None = None,
                 maximize: bool = False, differentiable: bool = False) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = {
            "lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps, "centered": centered,
            "weight_decay": weight_decay, "capturable": capturable, "foreach": foreach, "maximize": maximize,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    @no_grad()
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One update of every parameter that has a gradient; returns ``closure()`` if given."""
        loss = self._run_closure(closure)
        for group in self.param_groups:
            lr, alpha, eps = group["lr"], group["alpha"], group["eps"]
            weight_decay, momentum, centered = group["weight_decay"], group["momentum"], group["centered"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = creation.tensor(0.0, dtype=dtypes.float32)
                    state["square_avg"] = creation.zeros_like(p)
                    if momentum > 0:
                        state["momentum_buffer"] = creation.zeros_like(p)
                    if centered:
                        state["grad_avg"] = creation.zeros_like(p)
                grad = p.grad if not group["maximize"] else -p.grad
                square_avg = state["square_avg"]
                state["step"].add_(1)
                if weight_decay != 0:
                    grad = grad.add(p, alpha=weight_decay)
                square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
                if centered:
                    grad_avg = state["grad_avg"]
                    grad_avg.lerp_(grad, 1 - alpha)
                    avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
                else:
                    avg = square_avg.sqrt()
                avg = avg.add_(eps)
                if momentum > 0:
                    buf = state["momentum_buffer"]
                    buf.mul_(momentum).addcdiv_(grad, avg)
                    p.add_(buf, alpha=-lr)
                else:
                    p.addcdiv_(grad, avg, value=-lr)
        return loss


__all__ = ["RMSprop"]
