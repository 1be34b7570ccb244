"""Grad modes: whether operations are recorded for backward (PyTorch: ``torch.autograd.grad_mode``)."""

from __future__ import annotations

import functools
import importlib
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from .tensor import INFERENCE_MODE, Tensor

F = TypeVar("F", bound=Callable[..., Any])

class _GradMode(threading.local):
    """Whether recording is on in this thread (a class default, so a read is one attribute lookup:
    ``Function.apply`` reads it on every operation)."""

    enabled = True


_state = _GradMode()


def is_grad_enabled() -> bool:
    """True when operations on tensors that require grad are recorded (the default)."""
    return _state.enabled


def _set_enabled(mode: bool) -> None:
    _state.enabled = bool(mode)


class _GradModeContext:
    """Base of the three grad-mode switches: a context manager that is also a decorator."""

    def _target(self) -> bool:
        raise NotImplementedError

    def __enter__(self) -> None:
        self._prev = _state.enabled
        _state.enabled = self._target()

    def __exit__(self, *exc: object) -> None:
        _state.enabled = self._prev

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


# the module tensor.py (the package's attribute `tensor` is the function torch.tensor)
_tensor = importlib.import_module(".tensor", __package__)
_BLOCKS_LOCK = threading.Lock()  # (+= on a module's global is no single step: threads could lose one)


class inference_mode(_GradModeContext):
    """No recording, and every tensor made inside is an *inference tensor* (``torch.inference_mode``).

    As ``no_grad``, nothing is recorded. In addition the tensors made inside (and views of them) are
    marked: ``t.is_inference()`` is True, and such a tensor can never join a graph later. Outside the
    block, PyTorch's errors: saving it for backward (``w * t`` with ``w`` requiring grad) raises
    "Inference tensors cannot be saved for backward. ...", an in-place change raises "Inplace update to
    inference tensor outside InferenceMode is not allowed. ...", and so does ``requires_grad_()``. An
    op that saves nothing (``w + t``) and ``t.clone()`` give normal tensors. (PyTorch gains speed by
    skipping the version counter and view tracking of these tensors; autograd_lab only keeps the rules.)
    ``inference_mode(False)`` switches recording on and inference mode off inside an inference block.
    Nothing is recorded inside, not even under ``enable_grad()``. Works as ``with inference_mode():``,
    ``@inference_mode()`` and ``@inference_mode``.
    """

    def __new__(cls, mode: Any = True) -> Any:
        if callable(mode):  # @inference_mode without parentheses
            return cls()(mode)
        return super().__new__(cls)

    def __init__(self, mode: bool = True) -> None:
        self.mode = bool(mode)

    def _target(self) -> bool:
        return not self.mode

    def __enter__(self) -> None:
        self._prev_inference = INFERENCE_MODE.enabled
        super().__enter__()
        with _BLOCKS_LOCK:
            _tensor.open_inference_blocks += 1
        INFERENCE_MODE.enabled = self.mode

    def __exit__(self, *exc: object) -> None:
        super().__exit__(*exc)
        INFERENCE_MODE.enabled = self._prev_inference
        with _BLOCKS_LOCK:
            _tensor.open_inference_blocks -= 1

    def clone(self) -> inference_mode:
        return self.__class__(self.mode)


def is_inference_mode_enabled() -> bool:
    """True inside ``inference_mode()`` (``torch.is_inference_mode_enabled``)."""
    return INFERENCE_MODE.enabled


def is_inference(input: Tensor) -> bool:
    """``input.is_inference()``: whether ``input`` was made in inference mode (``torch.is_inference``)."""
    if not isinstance(input, Tensor):
        raise TypeError(
            f"is_inference(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    return input.is_inference()
