"""Stochastic gradient descent, with momentum, dampening, Nesterov and weight decay (``torch.optim.SGD``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..tensor import Tensor
from .optimizer import Optimizer


class SGD(Optimizer):
    """``p -= lr * g``, where g is the gradient, optionally through a momentum buffer.

    PyTorch's rule, step by step, for each parameter p with gradient g:

    1. ``g = -g`` if ``maximize``;
    2. ``g = g + weight_decay * p`` (L2 penalty added to the gradient);
    3. with momentum μ: ``b = g`` on the first step (a copy), then ``b = μ b + (1 - dampening) g``;
       ``g = g + μ b`` with Nesterov, else ``g = b``;
    4. ``p = p - lr * g``.

    Note that the buffer starts as the gradient itself (not zero), and that the learning rate
    multiplies the buffer (unlike the "v = μ v - lr g" form of some textbooks).
    """

    def __init__(self, params: Iterable[Tensor] | Iterable[dict[str, Any]], lr: float = 1e-3,
                 momentum: float = 0, dampening: float = 0, weight_decay: float = 0, nesterov: bool = False,
                 *, maximize: bool = False, foreach: bool | None = None, differentiable: bool = False,
                 fused: bool | None = None) -> None:
        if lr < 0.0:  # SGD's own checks (a NaN passes, as in PyTorch)
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {
            "lr": lr, "momentum": momentum, "dampening": dampening, "weight_decay": weight_decay,
            "nesterov": nesterov, "maximize": maximize, "foreach": foreach, "differentiable": differentiable,
            "fused": fused,
        }
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)

    def _update(self, p: Tensor, grad: Tensor, state: dict[str, Any], group: dict[str, Any]) -> None:
        momentum = group["momentum"]
        if momentum != 0:
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = grad.detach().clone()
            else:
                buf.mul_(momentum).add_(grad, alpha=1 - group["dampening"])
            state["momentum_buffer"] = buf
            grad = grad.add(buf, alpha=momentum) if group["nesterov"] else buf
        p.add_(grad, alpha=-group["lr"])


__all__ = ["SGD"]
