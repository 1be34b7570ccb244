"""grad_mode.py: no_grad, enable_grad, set_grad_enabled and inference_mode, as context managers,
decorators and calls; restored after exceptions; per thread."""

from __future__ import annotations

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


def test_inference_mode():
    x = f64([1.0])
    with torch.inference_mode():
        assert not (x * 2).requires_grad
    assert (x * 2).requires_grad
