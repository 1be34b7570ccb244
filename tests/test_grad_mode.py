"""grad_mode.py: no_grad, enable_grad, set_grad_enabled and inference_mode, as context managers,
decorators and calls; restored after exceptions; per thread."""

from __future__ import annotations

import importlib
import threading

import pytest
from helpers import f64

import autograd_lab as torch


def test_no_grad_enable_grad_set_grad_enabled_as_context_managers():
    x = f64([1.0])
    assert torch.is_grad_enabled()
    with torch.no_grad():
        assert not torch.is_grad_enabled()
        assert not (x * 2).requires_grad
        with torch.enable_grad():
            assert (x * 2).requires_grad
        with torch.set_grad_enabled(True):
            assert (x * 2).requires_grad
        assert not torch.is_grad_enabled()
    assert torch.is_grad_enabled()
    with torch.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    assert torch.is_grad_enabled()


def test_set_grad_enabled_as_a_function_call():
    try:
        torch.set_grad_enabled(False)
        assert not torch.is_grad_enabled()
    finally:
        torch.set_grad_enabled(True)
    assert torch.is_grad_enabled()


def test_grad_modes_as_decorators():
    x = f64([1.0])

    @torch.no_grad()
    def infer(t):
        return t * 2

    @torch.enable_grad()
    def train(t):
        return t * 2

    @torch.set_grad_enabled(False)
    def also_infer(t):
        return t * 2

    assert torch.is_grad_enabled(), "decorating must not change the mode"
    assert not infer(x).requires_grad
    assert not also_infer(x).requires_grad
    with torch.no_grad():
        assert train(x).requires_grad
    assert infer.__name__ == "infer"


def test_grad_mode_is_restored_after_an_exception():
    with pytest.raises(ValueError):
        with torch.no_grad():
            raise ValueError
    assert torch.is_grad_enabled()


def test_grad_mode_is_thread_local():
    seen = {}
    started, release = threading.Event(), threading.Event()

    def worker():
        seen["new thread starts enabled"] = torch.is_grad_enabled()
        with torch.no_grad():
            started.set()
            release.wait(5)
            seen["inside worker no_grad"] = torch.is_grad_enabled()

    with torch.no_grad():
        t = threading.Thread(target=worker)
        t.start()
    started.wait(5)
    seen["main thread while worker is in no_grad"] = torch.is_grad_enabled()
    release.set()
    t.join(5)
    assert seen == {"new thread starts enabled": True, "inside worker no_grad": False,
                    "main thread while worker is in no_grad": True}


def test_inference_mode_is_thread_local():
    """A tensor made in one thread while another is inside inference_mode is a normal tensor, and the
    count of open inference blocks (which lets tensor creation skip the thread-local flag) returns to 0,
    an exception inside a block included."""
    tensor_module = importlib.import_module("autograd_lab.tensor")  # (autograd_lab.tensor: the function)

    seen = {}
    inside, made = threading.Event(), threading.Event()

    def worker():
        with torch.inference_mode():
            inside.set()
            made.wait(5)
            seen["worker's tensor"] = torch.ones(2).is_inference()

    t = threading.Thread(target=worker)
    t.start()
    inside.wait(5)
    seen["main thread's tensor"] = torch.ones(2).is_inference()
    made.set()
    t.join(5)
    assert seen == {"worker's tensor": True, "main thread's tensor": False}
    with pytest.raises(ValueError):
        with torch.inference_mode():
            raise ValueError
    assert tensor_module.open_inference_blocks == 0 and not torch.ones(1).is_inference()


def test_inference_mode():
    x = f64([1.0])
    with torch.inference_mode():
        assert not (x * 2).requires_grad
    assert (x * 2).requires_grad


INFERENCE_SAVED = ("Inference tensors cannot be saved for backward. Please do not use Tensors created in "
                   "inference mode")
INFERENCE_INPLACE = ("Inplace update to inference tensor outside InferenceMode is not allowed.You can make a "
                     "clone")


def test_inference_mode_makes_inference_tensors_and_their_views_inference_tensors():
    w = f64([1.0, 2.0])
    assert not torch.is_inference_mode_enabled()
    with torch.inference_mode():
        assert torch.is_inference_mode_enabled() and not torch.is_grad_enabled()
        made, product = torch.ones(2), w * 2
        view_of_normal = w[:1]
        with torch.enable_grad():       # PyTorch: grad mode on, but inference mode records nothing
            assert torch.is_grad_enabled() and not (w * 2).requires_grad
        with torch.inference_mode(False):
            assert torch.is_grad_enabled() and not torch.is_inference_mode_enabled()
            assert not torch.ones(1).is_inference() and (w * 2).requires_grad
    assert made.is_inference() and product.is_inference() and not product.requires_grad
    assert not view_of_normal.is_inference() and not w.is_inference()
    assert made.detach().is_inference() and made[1:].is_inference() and made.reshape(2, 1).is_inference()
    assert not made.clone().is_inference() and not (made + 1).is_inference()
    assert torch.is_inference(made) and not torch.is_inference(w)
    with pytest.raises(TypeError, match=r"is_inference\(\): argument 'input' \(position 1\) must be Tensor"):
        torch.is_inference(3)
    with torch.no_grad():
        assert not torch.ones(1).is_inference()


def test_inference_tensors_cannot_be_saved_for_backward_nor_changed_in_place_outside():
    w = f64([1.0, 2.0])
    with torch.inference_mode():
        t = torch.ones(2, dtype=torch.float64)
        t.add_(1)                                 # inside: allowed
    assert t.tolist() == [2.0, 2.0]
    with pytest.raises(RuntimeError, match=INFERENCE_SAVED):
        w * t                                     # Mul saves t for w's gradient
    with pytest.raises(RuntimeError, match=INFERENCE_SAVED):
        torch.nn.functional.linear(t.reshape(1, 2), torch.ones(3, 2, dtype=torch.float64, requires_grad=True))
    assert (w + t).grad_fn.name() == "AddBackward0"     # Add saves nothing: allowed, as in PyTorch
    (w * t.clone()).sum().backward()                     # the workaround PyTorch's message names
    assert w.grad.tolist() == [2.0, 2.0]
    for change in (lambda: t.add_(1), lambda: t.__setitem__(0, 5.0), lambda: t.zero_(),
                   lambda: t[:1].mul_(2)):
        with pytest.raises(RuntimeError, match=INFERENCE_INPLACE):
            change()
    assert t.tolist() == [2.0, 2.0], "a refused in-place change must leave the values as they were"
    with pytest.raises(RuntimeError, match="Setting requires_grad=True on inference tensor outside "
                                           "InferenceMode is not allowed."):
        t.requires_grad_()
    assert t.clone().requires_grad_().requires_grad


def test_inference_mode_as_decorators_and_restored_after_exceptions():
    @torch.inference_mode()
    def double(x):
        return x * 2

    @torch.inference_mode
    def triple(x):
        return x * 3

    @torch.inference_mode(False)
    def normal(x):
        return x * 4

    w = f64([1.0])
    assert double(w).is_inference() and triple(w).is_inference()
    with torch.inference_mode():
        out = normal(w)
    assert not out.is_inference() and out.requires_grad
    with pytest.raises(ValueError), torch.inference_mode():
        raise ValueError
    assert not torch.is_inference_mode_enabled() and torch.is_grad_enabled()
