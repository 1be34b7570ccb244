"""``Optimizer``: the base class that holds parameter groups and per-parameter state (``torch.optim``).

An optimizer is given the parameters (``model.parameters()``) once. Each ``step()`` reads every
parameter's ``.grad`` and changes the parameter in place, under ``no_grad`` (an update is not part of
any graph). ``zero_grad()`` clears the gradients between steps, because backward *adds* into ``.grad``.

Parameters come in groups (``param_groups``), each a dict with the parameters under ``"params"`` and
its own hyper-parameters (``"lr"``, ...); ``state`` maps each parameter to what the algorithm remembers
(a momentum buffer, Adam's moments). :meth:`Optimizer.step` is the loop over the parameters every
algorithm shares; an algorithm defines only what it keeps (:meth:`_init_state`) and its update of one
parameter (:meth:`_update`).
"""

from __future__ import annotations

import warnings
from collections import defaultdict
from collections.abc import Callable, Iterable
from copy import deepcopy
from itertools import chain
from typing import Any

from .. import creation, dtypes
from ..dtypes import legacy_type_name
from ..grad_mode import enable_grad, no_grad
from ..tensor import Tensor, _clear_grad


class _RequiredParameter:
    """Marks a hyper-parameter that has no default: every group must give it."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()

_NAMES = {"lr": "learning rate", "eps": "epsilon value"}


def _check_hyperparameters(**values: Any) -> None:
    """PyTorch's checks of an optimizer's arguments, in the order given: each at least 0, ``betas``
    each in [0, 1), ``rho`` in [0, 1]; a ValueError in PyTorch's words otherwise."""
    for name, value in values.items():
        if name == "betas":
            for i, beta in enumerate(value):
                if not 0.0 <= beta < 1.0:
                    raise ValueError(f"Invalid beta parameter at index {i}: {beta}")
        elif name == "rho":
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"Invalid rho value: {value}")
        elif not 0.0 <= value:
            raise ValueError(f"Invalid {_NAMES.get(name, name + ' value')}: {value}")


def _scalar(value: float) -> Tensor:
    """A step counter or running product in the state: a float32 0-d tensor, as PyTorch keeps it."""
    return creation.tensor(value, dtype=dtypes.float32)


def _typename(obj: Any) -> str:
    if isinstance(obj, Tensor):
        return legacy_type_name(obj.dtype)
    cls = type(obj)
    return cls.__qualname__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"


class Optimizer:
    """Base class of optimizers (``torch.optim.Optimizer``).

    ``params``: an iterable of tensors, or of dicts (parameter groups) with a ``"params"`` entry and
    per-group options that override ``defaults``.
    """

    def __init__(self, params: Iterable[Tensor] | Iterable[dict[str, Any]], defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or dicts, but got "
                + _typename(params)
            )
        self.state: defaultdict[Tensor, dict[str, Any]] = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        groups = list(params)
        if len(groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def __getstate__(self) -> dict[str, Any]:
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    def __repr__(self) -> str:
        text = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group of parameters with its own options (for example a smaller ``lr``)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the ordering of "
                "tensors in sets will change between runs. Please use a list instead."
            )
        else:
            param_group["params"] = list(params)
        for p in param_group["params"]:
            if not isinstance(p, Tensor):
                raise TypeError(
                    "optimizer can only optimize Tensors, but one of the params is " + _typename(p)
                )
            if not (p.is_leaf or p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(
                    f"parameter group didn't specify a value of required optimization parameter {name}"
                )
            param_group.setdefault(name, default)
        ids = [id(p) for p in param_group["params"]]
        if len(ids) != len(set(ids)):
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; in future, this will cause "
                "an error; see github.com/pytorch/pytorch/issues/40967 for more information",
                UserWarning,
                stacklevel=3,
            )
        existing = {id(p) for group in self.param_groups for p in group["params"]}
        if not existing.isdisjoint(ids):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Clear every parameter's gradient: set it to None (the default, as PyTorch) or fill it with 0."""
        for group in self.param_groups:
            for p in group["params"]:
                _clear_grad(p, set_to_none)

    @no_grad()
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One update of every parameter that has a gradient; returns ``closure()`` if given.

        The loop every optimizer shares, in PyTorch's order, for each parameter ``p`` with gradient
        ``g``: its state (made by :meth:`_init_state` on its first step; ``state["step"]`` counts the
        steps), ``g = -g`` with ``maximize``, weight decay (``g = g + weight_decay * p``, or with
        ``decoupled_weight_decay`` ``p = p * (1 - lr * weight_decay)``), then the algorithm's own
        :meth:`_update`. The update is not recorded (``no_grad``).
        """
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state.get(p)
                if state is None:
                    state = self._init_state(p, group)
                if "step" in state:
                    state["step"].add_(1)
                grad = -p.grad if group["maximize"] else p.grad
                if group["weight_decay"] != 0:
                    if group.get("decoupled_weight_decay"):
                        p.mul_(1 - group["lr"] * group["weight_decay"])
                    else:
                        grad = grad.add(p, alpha=group["weight_decay"])
                self._update(p, grad, state, group)
                if state:  # an optimizer that keeps nothing (SGD without momentum) has no state
                    self.state[p] = state
        return loss

    def _init_state(self, p: Tensor, group: dict[str, Any]) -> dict[str, Any]:
        """What the algorithm remembers about ``p``, before its first step (``{}``: nothing yet)."""
        return {}

    def _update(self, p: Tensor, grad: Tensor, state: dict[str, Any], group: dict[str, Any]) -> None:
        """Change ``p`` in place from its gradient ``grad`` (maximize and weight decay applied)."""
        raise NotImplementedError

    # ------------------------------------------------------------------ saving and loading
    def state_dict(self) -> dict[str, Any]:
        """``{"state": {index: per-parameter state}, "param_groups": [group options with indices]}``.

        Parameters are replaced by their position (0, 1, ...), as PyTorch does; the tensors in the state
        are the optimizer's own (not copies).
        """
        mapping: dict[int, int] = {}
        start = 0

        def pack(group: dict[str, Any]) -> dict[str, Any]:
            nonlocal start
            packed = {k: v for k, v in group.items() if k != "params"}
            mapping.update({id(p): i for i, p in enumerate(group["params"], start) if id(p) not in mapping})
            packed["params"] = [mapping[id(p)] for p in group["params"]]
            start += len(packed["params"])
            return packed

        groups = [pack(g) for g in self.param_groups]
        state = {(mapping[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore the state saved by :meth:`state_dict` into an optimizer over matching parameters."""
        state_dict = dict(state_dict)
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError(
                "loaded state dict contains a parameter group that doesn't match the size of optimizer's "
                "group"
            )
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))

        def cast(param: Tensor, value: Any, key: Any = None) -> Any:
            if isinstance(value, Tensor):
                if key != "step" and param.is_floating_point() and value.is_floating_point():
                    return value.to(param.dtype)
                return value
            if isinstance(value, dict):
                return {k: cast(param, v, k) for k, v in value.items()}
            if isinstance(value, (list, tuple)):
                return type(value)(cast(param, v) for v in value)
            return value

        state: defaultdict[Tensor, dict[str, Any]] = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = cast(param, v)
            else:
                state[k] = v

        new_groups = []
        for group, saved in zip(groups, saved_groups):
            saved["params"] = group["params"]
            new_groups.append(saved)
        self.__setstate__({"state": state, "param_groups": new_groups})


__all__ = ["Optimizer", "required"]
