"""nn/init.py and nn/utils.py: the initialisers, seeded parameters equal to PyTorch's, clip_grad_norm_."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import close, torch

import autograd_lab as al
from autograd_lab import nn

if torch is not None:

    torch.set_num_threads(1)


def test_init_functions(torch):
    for nl, param in (("linear", None), ("relu", None), ("tanh", None), ("leaky_relu", None),
                      ("leaky_relu", 0.2), ("sigmoid", None), ("selu", None)):
        assert nn.init.calculate_gain(nl, param) == pytest.approx(torch.nn.init.calculate_gain(nl, param))
    t = al.empty(200, 100)
    nn.init.xavier_uniform_(t)
    assert np.abs(t.numpy()).max() <= np.sqrt(6 / 300)
    nn.init.kaiming_normal_(t, nonlinearity="relu")
    assert abs(t.numpy().std() - np.sqrt(2 / 100)) < 0.01
    nn.init.trunc_normal_(t, std=1.0, a=-0.5, b=0.5)
    assert np.abs(t.numpy()).max() <= 0.5
    nn.init.constant_(t, 0.25)
    assert np.all(t.numpy() == 0.25)
    nn.init.eye_(t)
    assert np.trace(t.numpy()) == 100
    w = nn.Parameter(al.empty(3, 4))
    nn.init.normal_(w, generator=al.Generator().manual_seed(0))
    assert w.is_leaf and w.requires_grad, "initialising a parameter records nothing"
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        nn.init.xavier_uniform_(al.empty(3))


def test_clip_grad_norm_matches_pytorch(torch):
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal(5).astype(np.float32)]
    for max_norm, norm_type in ((1.0, 2.0), (100.0, 2.0), (0.5, float("inf")), (1.0, 1.0)):
        mine = [al.tensor(a, requires_grad=True) for a in arrays]
        theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
        for ps, mod in ((mine, al), (theirs, torch)):
            sum(((p * p * 3).sum() for p in ps), mod.tensor(0.0)).backward()
        total_a = nn.utils.clip_grad_norm_(mine, max_norm, norm_type)
        total_t = torch.nn.utils.clip_grad_norm_(theirs, max_norm, norm_type)
        np.testing.assert_allclose(total_a.item(), total_t.item(), rtol=1e-6)
        for a, t in zip(mine, theirs):
            close(a.grad, t.grad, 1e-6)
    vec = nn.utils.parameters_to_vector(mine)
    assert vec.shape == (17,)
    nn.utils.vector_to_parameters(vec.detach() * 0, mine)
    assert all(float(p.abs().sum()) == 0 for p in mine)


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="needs PyTorch")
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_initial_parameters_follow_the_seed(dtype):
    for seed in (0, 7):
        al.manual_seed(seed)
        torch.manual_seed(seed)
        da, dt = getattr(al, dtype), getattr(torch, dtype)
        mods_a = [
            nn.Embedding(10, 3, dtype=da),
            nn.Embedding(6, 4, padding_idx=2, dtype=da),
            nn.LayerNorm((2, 3), dtype=da),
            nn.PReLU(3, dtype=da),
            nn.Linear(3, 2, dtype=da),
            nn.Embedding(20, 2, dtype=da),
        ]
        mods_t = [
            torch.nn.Embedding(10, 3, dtype=dt),
            torch.nn.Embedding(6, 4, padding_idx=2, dtype=dt),
            torch.nn.LayerNorm((2, 3), dtype=dt),
            torch.nn.PReLU(3, dtype=dt),
            torch.nn.Linear(3, 2, dtype=dt),
            torch.nn.Embedding(20, 2, dtype=dt),
        ]
        for ma, mt in zip(mods_a, mods_t):
            sa, st = ma.state_dict(), mt.state_dict()
            assert list(sa) == list(st)
            for k in sa:
                assert sa[k].dtype.name == dtype
                if dtype == "float64":
                    np.testing.assert_array_equal(sa[k].numpy(), st[k].numpy())
                else:  # the core's float32 normal_ can be one ulp off PyTorch's (reported, not nn's)
                    np.testing.assert_allclose(sa[k].numpy(), st[k].numpy(), rtol=2.5e-7, atol=0)
