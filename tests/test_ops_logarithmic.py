"""ops/logarithmic.py: softmax, log_softmax and logsumexp: stable for large inputs, PyTorch's values,
gradients, nodes and errors."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import oracle, torch
from op_cases import check, make, run_both

import autograd_lab as al


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_softmax_log_softmax_logsumexp_gradcheck(dim):
    x = make((3, 4), 0)
    check(lambda t: al.softmax(t, dim), x)
    check(lambda t: al.log_softmax(t, dim), x)
    check(lambda t: al.logsumexp(t, dim), x)
    check(lambda t: al.logsumexp(t, (0, 1), keepdim=True), x)


def test_large_inputs_neither_overflow_nor_lose_precision():
    x = al.tensor([1000.0, 1000.0, -1000.0], dtype=al.float64)
    np.testing.assert_allclose(al.softmax(x, 0).numpy(), [0.5, 0.5, 0.0])
    np.testing.assert_allclose(al.log_softmax(x, 0).numpy(), [-np.log(2), -np.log(2), -2000 - np.log(2)])
    assert al.logsumexp(x, 0).item() == pytest.approx(1000 + np.log(2))
    assert al.logsumexp(al.tensor([-np.inf, -np.inf]), 0).item() == -np.inf


def test_integer_inputs_are_refused_with_pytorchs_message():
    message = "\"softmax_lastdim_kernel_impl\" not implemented for 'Long'"
    with pytest.raises(NotImplementedError, match=message):
        al.softmax(al.tensor([1, 2]), 0)
    with pytest.raises(NotImplementedError, match="\"log_softmax_lastdim_kernel_impl\" not implemented"):
        al.log_softmax(al.tensor([1, 2]), 0)


@oracle
@pytest.mark.parametrize("fn", ["softmax", "log_softmax", "logsumexp"])
@pytest.mark.parametrize("dim", [0, -1])
def test_against_torch(fn, dim):
    x = np.random.default_rng(3).normal(size=(3, 5)) * 4
    run_both(lambda lib, t: getattr(lib, fn)(t * 1, dim), [x], what=fn)
    run_both(lambda lib, t: getattr(lib, fn)(t * 1, dim), [x.astype(np.float32)], what=fn, rtol=1e-5,
             atol=1e-6)


@oracle
@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
@pytest.mark.parametrize("value", [1.5, float("inf"), float("-inf"), float("nan")])
def test_softmax_of_a_scalar_keeps_its_shape(fn, value):
    run_both(lambda lib, x: getattr(lib.nn.functional, fn)(x, 0), [np.array(value)], what=fn)


@oracle
@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
@pytest.mark.parametrize("shape, dim", [((0,), 0), ((2, 0), 1), ((0, 3), 1), ((0, 3), 0)])
def test_softmax_of_an_empty_tensor_is_empty(fn, shape, dim):
    run_both(lambda lib, x: getattr(lib.nn.functional, fn)(x, dim), [np.zeros(shape)], what=fn)


@oracle
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("shape", [(), (2, 3)])
@pytest.mark.parametrize("dim", [-1, 0])
def test_softmax_nodes_save_the_dim_as_given(name, shape, dim):
    """PyTorch keeps dim unwrapped, as an unsigned 64-bit int (-1: 2**64 - 1), in the node and in its
    double-backward node (found by the random-program test)."""
    outcomes = []
    for lib in (al, torch):
        x = lib.ones(shape, requires_grad=True)
        y = getattr(x, name)(dim)
        (g,) = lib.autograd.grad(y.pow(2).sum(), [x], create_graph=True)
        (gg,) = lib.autograd.grad(g.pow(2).sum(), [x])
        outcomes.append((y.grad_fn._saved_dim, g.grad_fn._saved_dim, tuple(gg.shape)))
    assert outcomes[0] == outcomes[1]
