"""RMSprop (``torch.optim.RMSprop``), with PyTorch's exact single-tensor update."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .. import creation
from ..tensor import Tensor
from .optimizer import Optimizer, _check_hyperparameters, _scalar


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
        _check_hyperparameters(lr=lr, eps=eps, momentum=momentum, weight_decay=weight_decay, alpha=alpha)
        defaults = {
            "lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps, "centered": centered,
            "weight_decay": weight_decay, "capturable": capturable, "foreach": foreach, "maximize": maximize,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def _init_state(self, p: Tensor, group: dict[str, Any]) -> dict[str, Any]:
        state = {"step": _scalar(0.0), "square_avg": creation.zeros_like(p)}
        if group["momentum"] > 0:
            state["momentum_buffer"] = creation.zeros_like(p)
        if group["centered"]:
            state["grad_avg"] = creation.zeros_like(p)
        return state

    def _update(self, p: Tensor, grad: Tensor, state: dict[str, Any], group: dict[str, Any]) -> None:
        alpha, eps = group["alpha"], group["eps"]
        square_avg = state["square_avg"]
        square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
        if group["centered"]:
            grad_avg = state["grad_avg"]
            grad_avg.lerp_(grad, 1 - alpha)
            avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
        else:
            avg = square_avg.sqrt()
        avg = avg.add_(eps)
        if group["momentum"] > 0:
            buf = state["momentum_buffer"]
            buf.mul_(group["momentum"]).addcdiv_(grad, avg)
            p.add_(buf, alpha=-group["lr"])
        else:
            p.addcdiv_(grad, avg, value=-group["lr"])


__all__ = ["RMSprop"]
