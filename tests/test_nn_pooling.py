"""nn/functional/pooling.py and nn/modules/pooling.py: max, average and adaptive pooling against
finite differences and PyTorch (values, gradients, saved indices, double backward, errors)."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import TF, both64, check_same, d64, rng, torch

import autograd_lab as al
from autograd_lab.autograd import gradcheck, gradgradcheck
from autograd_lab.nn import functional as F


def distinct(shape, seed=0):
    """Values far apart (no ties within max-pool windows, even after finite-difference steps)."""
    n = int(np.prod(shape))
    return rng(seed).permutation(n).reshape(shape).astype(np.float64) / n


MAX_CASES = [
    dict(kernel_size=2),
    dict(kernel_size=3, stride=2, padding=1),
    dict(kernel_size=(2, 3), stride=(1, 2), dilation=(2, 1), padding=(1, 1)),
    dict(kernel_size=3, stride=2, ceil_mode=True),
]


@pytest.mark.parametrize("kw", MAX_CASES)
@pytest.mark.parametrize("shape", [(2, 2, 7, 6), (2, 7, 6)])
def test_max_pool2d_gradcheck(kw, shape):
    x = d64(distinct(shape))
    assert gradcheck(lambda x: F.max_pool2d(x, **kw), (x,))
    assert gradgradcheck(lambda x: F.max_pool2d(x, **kw), (x,))


AVG_CASES = [
    dict(kernel_size=2),
    dict(kernel_size=3, stride=2, padding=1),
    dict(kernel_size=3, stride=2, padding=1, count_include_pad=False),
    dict(kernel_size=(3, 2), stride=2, padding=(1, 0), ceil_mode=True),
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
    dict(kernel_size=2, divisor_override=3),
]


@pytest.mark.parametrize("kw", AVG_CASES)
@pytest.mark.parametrize("shape", [(2, 2, 7, 6), (2, 7, 6)])
def test_avg_pool2d_gradcheck(kw, shape):
    x = d64(rng(3).standard_normal(shape))
    assert gradcheck(lambda x: F.avg_pool2d(x, **kw), (x,))
    assert gradgradcheck(lambda x: F.avg_pool2d(x, **kw), (x,))


@pytest.mark.parametrize("size", [1, (1, 1), 3, (4, 2), (None, 3)])
def test_adaptive_avg_pool2d_gradcheck(size):
    x = d64(rng(4).standard_normal((2, 3, 7, 5)))
    assert gradcheck(lambda x: F.adaptive_avg_pool2d(x, size), (x,))
    assert gradgradcheck(lambda x: F.adaptive_avg_pool2d(x, size), (x,))


def test_pool1d_gradcheck():
    x = d64(distinct((2, 3, 9)))
    for fn in (lambda x: F.max_pool1d(x, 3, 2, 1, ceil_mode=True), lambda x: F.avg_pool1d(x, 3, 2, 1),
               lambda x: F.max_pool1d(x[0], 2)):
        assert gradcheck(fn, (x,))
        assert gradgradcheck(fn, (x,))


def _same_max_saved(na, nt):
    for attr in ("kernel_size", "stride", "padding", "dilation", "ceil_mode"):
        assert getattr(na, "_saved_" + attr) == getattr(nt, "_saved_" + attr), attr
    assert np.array_equal(na._saved_result1.numpy(), nt._saved_result1.numpy())
    assert np.array_equal(na._saved_self.detach().numpy(), nt._saved_self.detach().numpy())


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="needs PyTorch")
@pytest.mark.parametrize("shape", [(2, 3, 8, 7), (3, 8, 7)])
def test_pools_against_torch(shape):
    x = distinct(shape, 11)
    for kw in MAX_CASES + [dict(kernel_size=2, return_indices=True),
                           dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, return_indices=True)]:
        check_same(lambda x, kw=kw: F.max_pool2d(x, **kw), lambda x, kw=kw: TF.max_pool2d(x, **kw), [x],
                   inspect=_same_max_saved)
    for kw in AVG_CASES:
        ya, yt = check_same(lambda x, kw=kw: F.avg_pool2d(x, **kw), lambda x, kw=kw: TF.avg_pool2d(x, **kw),
                            [x])
        for attr in ("kernel_size", "stride", "padding", "ceil_mode", "count_include_pad",
                     "divisor_override"):
            assert getattr(ya.grad_fn, "_saved_" + attr) == getattr(yt.grad_fn, "_saved_" + attr), attr
    for size in (1, (1, 1), 3, (5, 2), (None, 4), (8, 7), (9, 10)):
        check_same(lambda x, size=size: F.adaptive_avg_pool2d(x, size),
                   lambda x, size=size: TF.adaptive_avg_pool2d(x, size), [x])
    x1 = x.reshape(shape[:-2] + (-1,))
    for fa, ft in ((lambda x: F.max_pool1d(x, 3, 2, 1, ceil_mode=True),
                    lambda x: TF.max_pool1d(x, 3, 2, 1, ceil_mode=True)),
                   (lambda x: F.avg_pool1d(x, 4, 3, 2, True, False),
                    lambda x: TF.avg_pool1d(x, 4, 3, 2, True, False)),
                   (lambda x: F.max_pool1d(x, 2, return_indices=True),
                    lambda x: TF.max_pool1d(x, 2, return_indices=True))):
        check_same(fa, ft, [x1])


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="needs PyTorch")
def test_double_backward_pools_against_torch():
    x, xt = both64(distinct((2, 3, 7, 6), 12))
    for fa, ft in ((lambda x: F.max_pool2d(x, 3, 2, 1), lambda x: TF.max_pool2d(x, 3, 2, 1)),
                   (lambda x: F.avg_pool2d(x, 3, 2, 1, count_include_pad=False),
                    lambda x: TF.avg_pool2d(x, 3, 2, 1, count_include_pad=False)),
                   (lambda x: F.adaptive_avg_pool2d(x, (4, 3)), lambda x: TF.adaptive_avg_pool2d(x, (4, 3)))):
        (ga,) = al.autograd.grad((fa(x) ** 2).sum(), (x,), create_graph=True)
        (gt,) = torch.autograd.grad((ft(xt) ** 2).sum(), (xt,), create_graph=True)
        assert ga.grad_fn.name() == gt.grad_fn.name()
        (a,) = al.autograd.grad((ga ** 3).sum(), (x,))
        (t,) = torch.autograd.grad((gt ** 3).sum(), (xt,))
        np.testing.assert_allclose(a.numpy(), t.numpy(), rtol=1e-10, atol=1e-12)
