"""nn/functional/padding.py: pad against finite differences and PyTorch, and its errors."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import TF, both, close, d64, node_name, rng, same_error, torch

import autograd_lab as al
from autograd_lab.autograd import gradcheck, gradgradcheck
from autograd_lab.nn import functional as F

PADS = [(1, 2), (0, 0), (2, 1, 1, 0), (-1, 2), (1, -2, -1, 1), (1, 1, 1, 1, 1, 1)]


@pytest.mark.parametrize("pads", PADS)
def test_pad_gradcheck(pads):
    a = d64(rng(41).standard_normal((2, 3, 4)))
    assert gradcheck(lambda x: F.pad(x, pads, value=1.5), (a,))
    assert gradgradcheck(lambda x: F.pad(x, pads), (a,))


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="needs PyTorch")
@pytest.mark.parametrize("pads", PADS)
@pytest.mark.parametrize("value", [None, 2.5])
def test_pad_matches_torch(pads, value):
    a, t = both(rng(42).standard_normal((2, 3, 4)).astype(np.float32))
    ya, yt = F.pad(a, pads, value=value), TF.pad(t, pads, value=value)
    close(ya, yt, 0)
    assert node_name(ya) == node_name(yt) == "ConstantPadNdBackward0"
    assert ya.grad_fn._saved_pad == list(yt.grad_fn._saved_pad)  # negative ones as uint64, as PyTorch
    g = rng(43).standard_normal(yt.shape).astype(np.float32)
    ya.backward(al.tensor(g))
    yt.backward(torch.tensor(g))
    close(a.grad, t.grad, 0)


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="needs PyTorch")
def test_pad_errors():
    x = np.ones((3, 4), dtype=np.float32)
    for pads in [(1,), (1, 1, 1, 1, 1, 1), (-3, -3)]:
        same_error(
            lambda pads=pads: F.pad(al.tensor(x), pads), lambda pads=pads: TF.pad(torch.tensor(x), pads)
        )
    same_error(
        lambda: F.pad(al.tensor(x), (1, 1), mode="foo"), lambda: TF.pad(torch.tensor(x), (1, 1), mode="foo")
    )
    close(F.pad(al.tensor([1, 2]), (1, 1)), TF.pad(torch.tensor([1, 2]), (1, 1)))
    assert F.pad(al.tensor([1, 2]), (1, 1)).dtype == al.int64
