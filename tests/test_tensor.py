"""tensor.py: a tensor's data and autograd state: requires_grad and is_leaf, .grad, detach, NumPy."""

from __future__ import annotations

import pytest
from helpers import f64

import autograd_lab as torch


def test_grad_is_a_new_tensor_not_the_incoming_gradient():
    x = f64([1.0, 2.0])
    g = f64([1.0, 1.0], requires_grad=False)
    (x * 1).backward(g)
    x.grad.add_(1)  # changing .grad must not change the gradient the caller passed in
    assert g.tolist() == [1.0, 1.0]
    assert not x.grad.requires_grad and x.grad.grad_fn is None


def test_detach_shares_data_and_version_but_not_the_graph():
    x = f64([1.0, 2.0])
    h = x * 2
    y = h * h  # saves h at version 0
    d = h.detach()
    assert d.is_leaf and not d.requires_grad and d.grad_fn is None
    d[0] = 10.0  # shares memory and the version counter with h
    assert h[0].item() == 10.0 and h._version == 1
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_detach_in_place():
    x = f64([1.0, 2.0])
    h = x * 2
    out = h.detach_()
    assert out is h and h.grad_fn is None and not h.requires_grad and h.is_leaf


def test_detach_in_place_of_a_view_raises():
    x = f64([1.0, 2.0])
    with pytest.raises(RuntimeError, match="Can't detach views in-place"):
        x[0:1].detach_()


def test_requires_grad_rules():
    a = torch.tensor([1.0])
    w = torch.tensor([1.0], requires_grad=True)
    assert not (a * 2).requires_grad and (a * w).requires_grad
    assert (a * w).grad_fn is not None and not (a * w).is_leaf
    with pytest.raises(RuntimeError, match="you can only change requires_grad flags of leaf variables"):
        (a * w).requires_grad = False
    (a * w).requires_grad = True  # allowed (a no-op)
    a.requires_grad_()
    assert a.requires_grad and a.is_leaf
    assert a.requires_grad_(False) is a and not a.requires_grad
    i = torch.tensor([1, 2])
    assert not (i * w.detach()).requires_grad
    assert w.long().grad_fn is None and not w.long().requires_grad, "integer results never require grad"
    assert (w > 0).grad_fn is None


def test_numpy_interop_refuses_tensors_that_require_grad():
    w = torch.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="Use tensor.detach"):
        w.numpy()
    assert w.detach().numpy().tolist() == [1.0]


def test_strides_and_memory_addresses():
    """What viz reads to tell a saved tensor is a drawn one: the same memory, shape and strides."""
    x = torch.arange(12.0).reshape(3, 4)
    assert x.stride() == (4, 1) and x.stride(0) == 4 and x.stride(-1) == 1
    t = x.t()
    assert t.stride() == (1, 4) and t.data_ptr() == x.data_ptr() and not t.is_contiguous()
    assert x[1].data_ptr() == x.data_ptr() + 4 * x.element_size()
    assert x.clone().data_ptr() != x.data_ptr()
    with pytest.raises(IndexError, match="Dimension out of range"):
        x.stride(2)


@pytest.mark.parametrize("tensor_dtype, grad_dtype", [("float32", "float64"), ("float64", "float32"),
                                                      ("float32", "int64"), ("float16", "float32")])
def test_grad_of_another_dtype_is_refused_with_pytorchs_text(tensor_dtype, grad_dtype):
    pt = pytest.importorskip("torch")
    texts = []
    for lib in (torch, pt):
        x = lib.zeros(2, dtype=getattr(lib, tensor_dtype), requires_grad=True)
        with pytest.raises(RuntimeError) as info:
            x.grad = lib.zeros(2, dtype=getattr(lib, grad_dtype))
        texts.append(str(info.value))
    assert texts[0] == texts[1]
