"""Adagrad (``torch.optim.Adagrad``), with PyTorch's exact single-tensor update."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from .. import creation, dtypes
from ..grad_mode import no_grad
from ..tensor import Tensor
from .optimizer import Optimizer


class Adagrad(Optimizer):
    """Scale each coordinate by the root of the sum of all its squared gradients so far.

    For each parameter p with gradient g, at step t (from 1):

    1. ``g = -g`` if ``maximize``; ``g = g + weight_decay * p``;
    2. ``clr = lr / (1 + (t - 1) lr_decay)``;
    3. ``s = s + g²`` (``sum``, which starts at ``initial_accumulator_value``);
    4. ``p = p - clr * g / (sqrt(s) + eps)``.

    As in PyTorch, the starting value of ``sum`` is read from the optimizer's defaults, not the group's.
    """

    def __init__(self, params: Iterable[Tensor] | Iterable[dict[str, Any]], lr: float = 1e-2,
                 lr_decay: float = 0, weight_decay: float = 0, initial_accumulator_value: float = 0,
                 eps: float = 1e-10, foreach: bool | None = None, *, maximize: bool = False,
                 differentiable: bool = False, fused: bool | None = None) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        defaults = {
            "lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
            "initial_accumulator_value": initial_accumulator_value, "foreach": foreach, "maximize": maximize,
            "differentiable": differentiable, "fused": fused,
        }
        super().__init__(params, defaults)
        # PyTorch creates the state of every parameter at construction
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = creation.tensor(0.0, dtype=dtypes.float32)
                state["sum"] = creation.full_like(p, initial_accumulator_value)

    @no_grad()
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One update of every parameter that has a gradient; returns ``closure()`` if given."""
        loss = self._run_closure(closure)
        for group in self.param_groups:
            lr, lr_decay, eps = group["lr"], group["lr_decay"], group["eps"]
            weight_decay = group["weight_decay"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = creation.tensor(0.0, dtype=dtypes.float32)
                    state["sum"] = creation.full_like(p, self.defaults["initial_accumulator_value"])
                state_sum = state["sum"]
                state["step"].add_(1)
                step = state["step"].item()
                grad = p.grad if not group["maximize"] else -p.grad
                if weight_decay != 0:
                    grad = grad.add(p, alpha=weight_decay)
                clr = lr / (1 + (step - 1) * lr_decay)
                state_sum.addcmul_(grad, grad, value=1)
                std = state_sum.sqrt().add_(eps)
                p.addcdiv_(grad, std, value=-clr)
        return loss


__all__ = ["Adagrad"]
