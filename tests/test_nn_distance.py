"""nn/functional/distance.py: cosine_similarity (and normalize beside it) against PyTorch."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import TF, both, close, d64, graph_names, rng, same_error, torch

import autograd_lab as al
from autograd_lab.autograd import gradcheck, gradgradcheck
from autograd_lab.nn import functional as F


@pytest.mark.parametrize(
    "shape1,shape2,dim", [((3, 4), (3, 4), 1), ((3, 4), (3, 4), 0), ((2, 3, 4), (3, 4), -1), ((5,), (5,), 0)]
)
def test_cosine_similarity_gradcheck(shape1, shape2, dim):
    a, b = d64(rng(35).standard_normal(shape1)), d64(rng(36).standard_normal(shape2))
    assert gradcheck(lambda x, y: F.cosine_similarity(x, y, dim), (a, b))
    assert gradgradcheck(lambda x, y: F.cosine_similarity(x, y, dim), (a, b))


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="needs PyTorch")
def test_cosine_similarity_and_normalize_match_torch():
    for s1, s2, dim, grad2 in [
        ((3, 4), (3, 4), 1, True),
        ((3, 4), (3, 4), 1, False),
        ((2, 3, 4), (3, 4), -1, True),
        ((3, 4), (1, 4), 0, True),
    ]:
        a1, t1 = both(rng(38).standard_normal(s1).astype(np.float32))
        a2, t2 = both(rng(39).standard_normal(s2).astype(np.float32), grad2)
        ya, yt = F.cosine_similarity(a1, a2, dim), TF.cosine_similarity(t1, t2, dim)
        close(ya, yt, 1e-6)
        assert graph_names(ya) == graph_names(yt)
        ya.sum().backward()
        yt.sum().backward()
        close(a1.grad, t1.grad, 1e-5)
        if grad2:
            close(a2.grad, t2.grad, 1e-5)
    zero_a, zero_t = both(np.zeros((2, 3), dtype=np.float32))
    close(F.cosine_similarity(zero_a, zero_a), TF.cosine_similarity(zero_t, zero_t))
    for shape, p, dim in [((3, 4), 2.0, 1), ((3, 4), 1.0, 0), ((2, 3, 4), 3.0, -1)]:
        a, t = both(rng(40).standard_normal(shape).astype(np.float32))
        ya, yt = F.normalize(a, p, dim), TF.normalize(t, p, dim)
        close(ya, yt, 1e-6)
        assert graph_names(ya) == graph_names(yt)
        ya.sum().backward()
        yt.sum().backward()
        close(a.grad, t.grad, 1e-5)
    x = np.ones((3, 4), dtype=np.float32)
    same_error(
        lambda: F.cosine_similarity(al.tensor(x), al.ones(3, 5)),
        lambda: TF.cosine_similarity(torch.tensor(x), torch.ones(3, 5)),
    )
    same_error(
        lambda: F.cosine_similarity(al.tensor([1, 2]), al.tensor([1, 2])),
        lambda: TF.cosine_similarity(torch.tensor([1, 2]), torch.tensor([1, 2])),
    )
    same_error(
        lambda: F.cosine_similarity(al.tensor(x), al.tensor(x), dim=2),
        lambda: TF.cosine_similarity(torch.tensor(x), torch.tensor(x), dim=2),
    )
    same_error(lambda: F.normalize(al.tensor(x), dim=2), lambda: TF.normalize(torch.tensor(x), dim=2))
