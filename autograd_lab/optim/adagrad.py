"""Adagrad (``torch.optim.Adagrad``), with PyTorch's exact single-tensor update."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .. import creation
from ..tensor import Tensor
from .optimizer import Optimizer, _check_hyperparameters, _scalar


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
        _check_hyperparameters(lr=lr, lr_decay=lr_decay, weight_decay=weight_decay,
                               initial_accumulator_value=initial_accumulator_value, eps=eps)
        defaults = {
            "lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
            "initial_accumulator_value": initial_accumulator_value, "foreach": foreach, "maximize": maximize,
            "differentiable": differentiable, "fused": fused,
        }
        super().__init__(params, defaults)
        for group in self.param_groups:  # PyTorch creates the state of every parameter at construction
            for p in group["params"]:
                self.state[p] = self._init_state(p, group)

    def _init_state(self, p: Tensor, group: dict[str, Any]) -> dict[str, Any]:
        return {"step": _scalar(0.0),
                "sum": creation.full_like(p, self.defaults["initial_accumulator_value"])}

    def _update(self, p: Tensor, grad: Tensor, state: dict[str, Any], group: dict[str, Any]) -> None:
        clr = group["lr"] / (1 + (state["step"].item() - 1) * group["lr_decay"])
        state["sum"].addcmul_(grad, grad, value=1)
        std = state["sum"].sqrt().add_(group["eps"])
        p.addcdiv_(grad, std, value=-clr)


__all__ = ["Adagrad"]
