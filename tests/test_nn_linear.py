"""nn/functional/linear.py and nn/modules/linear.py: Linear's initialisation, values, graph, errors."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import close, node_name, pair

import autograd_lab as al
from autograd_lab import nn
from autograd_lab.autograd import gradcheck
from autograd_lab.nn import functional as F


def test_linear_init_is_pytorchs_and_reproducible():
    al.manual_seed(0)
    lin = nn.Linear(64, 10)
    al.manual_seed(0)
    again = nn.Linear(64, 10)
    assert al.equal(lin.weight, again.weight) and al.equal(lin.bias, again.bias)
    bound = 1 / np.sqrt(64)
    w = lin.weight.detach().numpy()
    assert lin.weight.shape == (10, 64) and lin.bias.shape == (10,)
    assert lin.weight.dtype is al.float32
    assert np.abs(w).max() <= bound and np.abs(lin.bias.detach().numpy()).max() <= bound
    assert abs(w.std() - bound / np.sqrt(3)) < 0.1 * bound, "U(-b, b) has standard deviation b / sqrt(3)"
    assert nn.Linear(3, 2, dtype=al.float64).weight.dtype is al.float64


def test_linear_init_statistics_match_pytorch(torch):
    al.manual_seed(1)
    torch.manual_seed(1)
    mine = np.concatenate([nn.Linear(50, 40).weight.detach().numpy().ravel() for _ in range(5)])
    theirs = np.concatenate([torch.nn.Linear(50, 40).weight.detach().numpy().ravel() for _ in range(5)])
    assert abs(mine.max() - theirs.max()) < 0.01 and abs(mine.min() - theirs.min()) < 0.01
    assert abs(mine.std() - theirs.std()) < 0.005


@pytest.mark.parametrize("shape", [(5, 4), (2, 3, 4), (4,), (2, 2, 2, 4)])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_linear_matches_pytorch(torch, shape, bias, dtype):
    rng = np.random.default_rng(0)
    ax, tx = pair(torch, rng.standard_normal(shape).astype(dtype))
    aw, tw = pair(torch, rng.standard_normal((3, 4)).astype(dtype))
    ab, tb = pair(torch, rng.standard_normal(3).astype(dtype)) if bias else (None, None)
    ao, to = F.linear(ax, aw, ab), torch.nn.functional.linear(tx, tw, tb)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    close(ao, to, tol)
    g = rng.standard_normal(to.shape).astype(dtype)
    ao.backward(al.tensor(g))
    to.backward(torch.tensor(g))
    close(ax.grad, tx.grad, tol)
    close(aw.grad, tw.grad, tol)
    if bias:
        close(ab.grad, tb.grad, tol)
    if not (len(shape) == 1 and not bias):  # PyTorch shows SqueezeBackward4 there, we SqueezeBackward1
        assert node_name(ao) == node_name(to)


def test_linear_graph_matches_pytorch(torch):
    rng = np.random.default_rng(1)
    ax, tx = pair(torch, rng.standard_normal((5, 4)).astype(np.float32))
    lin_a = nn.Linear(4, 3)
    lin_t = torch.nn.Linear(4, 3)
    ao, to = lin_a(ax), lin_t(tx)
    assert node_name(ao) == node_name(to) == "AddmmBackward0"

    def kinds(node):
        return [type(n).__name__ if n is not None else None for n, _ in node.next_functions]

    assert kinds(ao.grad_fn) == kinds(to.grad_fn) == ["AccumulateGrad", "AccumulateGrad", "TBackward0"]
    assert ao.grad_fn.next_functions[0][0].variable is lin_a.bias
    assert ao.grad_fn.next_functions[2][0].next_functions[0][0].variable is lin_a.weight
    no_bias = torch.nn.functional.linear(tx, lin_t.weight)
    assert kinds(F.linear(ax, lin_a.weight).grad_fn) == kinds(no_bias.grad_fn)


def test_linear_errors_match_pytorch(torch):
    def msgs(mod):
        out = []
        x64 = mod.zeros(2, 4, dtype=mod.float64)
        for call in (lambda: mod.nn.functional.linear(mod.zeros(2, 5), mod.zeros(3, 4), mod.zeros(3)),
                     lambda: mod.nn.functional.linear(mod.zeros(2, 2, 5), mod.zeros(3, 4), mod.zeros(3)),
                     lambda: mod.nn.functional.linear(mod.tensor(1.0), mod.zeros(3, 4)),
                     lambda: mod.nn.functional.linear(x64, mod.zeros(3, 4), mod.zeros(3)),
                     lambda: mod.nn.functional.linear(x64, mod.zeros(3, 4))):
            with pytest.raises(RuntimeError) as info:
                call()
            out.append(str(info.value))
        return out

    assert msgs(al) == msgs(torch)


def test_linear_gradcheck_in_float64():
    al.manual_seed(0)
    lin = nn.Linear(3, 2).double()
    x = al.randn(4, 3, dtype=al.float64, requires_grad=True)
    assert gradcheck(lambda x, w, b: F.linear(x, w, b), (x, lin.weight, lin.bias))
    x3 = al.randn(2, 2, 3, dtype=al.float64, requires_grad=True)
    assert gradcheck(lambda x, w: F.linear(x, w), (x3, lin.weight))
