"""Grad modes: whether operations are recorded for backward (PyTorch: ``torch.autograd.grad_mode``)."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

_state = threading.local()


def is_grad_enabled() -> bool:
    """True when operations on tensors that require grad are recorded (the default)."""
    return getattr(_state, "enabled", True)


def _set_enabled(mode: bool) -> None:
    _state.enabled = bool(mode)


class _GradModeContext:
    """Base of the three grad-mode switches: a context manager that is also a decorator."""

    def _target(self) -> bool:
        raise NotImplementedError

    def __enter__(self) -> None:
        self._prev = is_grad_enabled()
        _set_enabled(self._target())

    def __exit__(self, *exc: object) -> None:
        _set_enabled(self._prev)

    def __call__(self, func: F) -> F:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self.clone():
                return func(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

    def clone(self) -> _GradModeContext:
        return self.__class__()


class no_grad(_GradModeContext):
    """Disable recording: results of operations have ``requires_grad=False`` (``torch.no_grad``).

    Use it for inference and for parameter updates. Works as ``with no_grad():`` and as ``@no_grad()``.
    """

    def __init__(self) -> None:
        super().__init__()

    def _target(self) -> bool:
        return False


class enable_grad(_GradModeContext):
    """Re-enable recording inside a ``no_grad`` block (``torch.enable_grad``)."""

    def _target(self) -> bool:
        return True


class set_grad_enabled(_GradModeContext):
    """Set recording on or off (``torch.set_grad_enabled(mode)``).

    Takes effect as soon as it is called (like PyTorch), and restores the previous mode when used as a
    context manager.
    """

    def __init__(self, mode: bool) -> None:
        self.mode = bool(mode)
        self._prev = is_grad_enabled()
        _set_enabled(self.mode)

    def _target(self) -> bool:
        return self.mode

    def __enter__(self) -> None:
        # the mode was already set by __init__; __exit__ restores what came before it
        _set_enabled(self.mode)

    def clone(self) -> set_grad_enabled:
        prev = is_grad_enabled()
        obj = set_grad_enabled(self.mode)
        _set_enabled(prev)
        return obj

    def __call__(self, func: F) -> F:
        # used as a decorator, set_grad_enabled(mode) must not leave the mode changed
        _set_enabled(self._prev)
        return super().__call__(func)


class inference_mode(no_grad):
    """Alias of :class:`no_grad` (PyTorch's ``inference_mode`` is a faster no_grad)."""

    def __init__(self, mode: bool = True) -> None:
        super().__init__()
        self.mode = mode

    def _target(self) -> bool:
        return not self.mode
