"""nn/functional/sparse.py and nn/modules/sparse.py: one_hot, embedding and Embedding."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import TF, close, d64, node_name, rng, same_error, torch

import autograd_lab as al
from autograd_lab import nn
from autograd_lab.autograd import gradcheck, gradgradcheck
from autograd_lab.nn import functional as F


@pytest.mark.parametrize(
    "kw",
    [{}, {"padding_idx": 2}, {"scale_grad_by_freq": True}, {"padding_idx": 0, "scale_grad_by_freq": True}],
)
def test_embedding_gradients(kw):
    w = d64(rng(15).standard_normal((5, 3)))
    idx = al.tensor([[0, 2, 2], [4, 1, 0]])
    if not kw:
        assert gradcheck(lambda t: F.embedding(idx, t), (w,))
    # padding_idx and scale_grad_by_freq change the gradient on purpose (it is no longer the derivative):
    # the padding row gets none, a row looked up n times gets the mean instead of the sum
    F.embedding(idx, w, **kw).sum().backward()
    counts = np.bincount(idx.numpy().reshape(-1), minlength=5).astype(float)
    want = counts / np.maximum(counts, 1) if kw.get("scale_grad_by_freq") else counts
    if "padding_idx" in kw:
        want[kw["padding_idx"]] = 0
    np.testing.assert_allclose(w.grad.numpy(), np.repeat(want[:, None], 3, 1))
    if not kw.get("scale_grad_by_freq"):  # PyTorch's double backward does not rescale: neither do we
        assert gradgradcheck(lambda t: F.embedding(idx, t, **kw) ** 2, (w,))


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="needs PyTorch")
@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"padding_idx": 1},
        {"padding_idx": -1},
        {"scale_grad_by_freq": True},
        {"max_norm": 1.0},
        {"max_norm": 0.5, "norm_type": 1.0},
    ],
)
@pytest.mark.parametrize("idx", [[1, 3, 3, 0], [[0, 9], [9, 1]], 4])
def test_embedding_module_matches_torch(kw, idx):
    al.manual_seed(0)
    torch.manual_seed(0)
    ma, mt = nn.Embedding(10, 3, **kw), torch.nn.Embedding(10, 3, **kw)
    assert repr(ma) == repr(mt)
    close(ma.weight, mt.weight, 2e-7)  # the core's float32 normal_ can be one ulp off PyTorch's
    assert list(ma.state_dict()) == list(mt.state_dict())
    ia, it = al.tensor(idx), torch.tensor(idx)
    ya, yt = ma(ia), mt(it)
    close(ya, yt, 1e-6)
    close(ma.weight, mt.weight, 1e-6)  # max_norm renormalised the same rows in place
    assert ma.weight._version == mt.weight._version
    assert node_name(ya) == node_name(yt) == "EmbeddingBackward0"
    assert len(ya.grad_fn.next_functions) == 1
    assert ya.grad_fn._saved_indices.tolist() == yt.grad_fn._saved_indices.tolist()
    assert ya.grad_fn._saved_padding_idx == yt.grad_fn._saved_padding_idx
    assert ya.grad_fn._saved_weight_sym_argsize_0 == yt.grad_fn._saved_weight_sym_argsize_0
    g = rng(16).standard_normal(yt.shape).astype(np.float32)
    ya.backward(al.tensor(g))
    yt.backward(torch.tensor(g))
    close(ma.weight.grad, mt.weight.grad, 1e-6)


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="needs PyTorch")
def test_embedding_from_pretrained_and_int32():
    arr = rng(17).standard_normal((4, 2)).astype(np.float32)
    wa, wt = al.tensor(arr), torch.tensor(arr)
    for kw in ({}, {"freeze": False}, {"padding_idx": 1}):
        ma, mt = nn.Embedding.from_pretrained(wa, **kw), torch.nn.Embedding.from_pretrained(wt, **kw)
        assert repr(ma) == repr(mt)
        assert ma.weight.requires_grad == mt.weight.requires_grad
        close(ma.weight, mt.weight, 0)
    wa[0, 0] = 5.0
    assert ma.weight[0, 0].item() == 5.0  # shares memory, as PyTorch's
    ia, it = al.tensor([1, 3], dtype=al.int32), torch.tensor([1, 3], dtype=torch.int32)
    close(F.embedding(ia, wa), TF.embedding(it, wt))


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="needs PyTorch")
def test_embedding_errors_change_nothing():
    w = np.ones((10, 3), dtype=np.float32)
    for idx in ([10], [-1]):
        same_error(
            lambda idx=idx: F.embedding(al.tensor(idx), al.tensor(w)),
            lambda idx=idx: TF.embedding(torch.tensor(idx), torch.tensor(w)),
        )
    same_error(
        lambda: F.embedding(al.tensor([1.0]), al.tensor(w)),
        lambda: TF.embedding(torch.tensor([1.0]), torch.tensor(w)),
    )
    same_error(
        lambda: F.embedding(al.tensor([1]), al.ones(10)),
        lambda: TF.embedding(torch.tensor([1]), torch.ones(10)),
    )
    for p in (10, -11):
        same_error(
            lambda p=p: F.embedding(al.tensor([1]), al.tensor(w), padding_idx=p),
            lambda p=p: TF.embedding(torch.tensor([1]), torch.tensor(w), padding_idx=p),
        )
        same_error(
            lambda p=p: nn.Embedding(10, 3, padding_idx=p),
            lambda p=p: torch.nn.Embedding(10, 3, padding_idx=p),
        )
    same_error(
        lambda: nn.Embedding.from_pretrained(al.ones(3)),
        lambda: torch.nn.Embedding.from_pretrained(torch.ones(3)),
    )
    same_error(
        lambda: nn.Embedding(3, 2, _weight=al.ones(2, 2)),
        lambda: torch.nn.Embedding(3, 2, _weight=torch.ones(2, 2)),
    )
    wa = al.tensor(w * 5)
    with pytest.raises(IndexError):
        F.embedding(al.tensor([1, 10]), wa, max_norm=1.0)
    assert wa._version == 0 and float(wa.max()) == 5.0
