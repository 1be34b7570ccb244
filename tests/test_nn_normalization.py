"""nn/functional/normalization.py, nn/modules/batchnorm.py and normalization.py: batch_norm (train and
eval, running statistics), layer_norm, normalize."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import (
    TF,
    assert_same_double_backward,
    both,
    close,
    copy_weights,
    d64,
    node_name,
    pair,
    rng,
    same_error,
    torch,
)

import autograd_lab as al
from autograd_lab import nn
from autograd_lab.autograd import gradcheck, gradgradcheck
from autograd_lab.nn import functional as F


def test_batchnorm_uses_batch_statistics_in_train_and_running_in_eval():
    bn = nn.BatchNorm1d(3)
    x = al.tensor([[1.0, 2.0, 3.0], [3.0, 6.0, 9.0]])
    y = bn(x)
    np.testing.assert_allclose(y.detach().numpy(), [[-1, -1, -1], [1, 1, 1]], atol=1e-4)
    np.testing.assert_allclose(bn.running_mean.numpy(), [0.2, 0.4, 0.6], rtol=1e-6)
    unbiased = np.array([2.0, 8.0, 18.0])  # the running variance tracks the unbiased batch variance
    np.testing.assert_allclose(bn.running_var.numpy(), 0.9 + 0.1 * unbiased, rtol=1e-6)
    assert bn.num_batches_tracked.item() == 1
    bn.eval()
    z = bn(x)
    expected = (x.numpy() - bn.running_mean.numpy()) / np.sqrt(bn.running_var.numpy() + 1e-5)
    np.testing.assert_allclose(z.detach().numpy(), expected, rtol=1e-5)
    assert not np.allclose(z.detach().numpy(), y.detach().numpy())
    assert bn.num_batches_tracked.item() == 1, "eval does not update the running statistics"
    one = bn(x[:1])
    np.testing.assert_allclose(one.detach().numpy(), z[:1].detach().numpy(), rtol=1e-6,
                               err_msg="in eval a sample's output does not depend on its batch")


@pytest.mark.parametrize("shape", [(8, 4), (6, 4, 3)])
@pytest.mark.parametrize("kwargs", [{}, {"momentum": None}, {"affine": False}, {"track_running_stats": False},
                                    {"momentum": 0.5, "eps": 1e-3}])
def test_batchnorm1d_matches_pytorch_in_train_and_eval(torch, shape, kwargs):
    rng = np.random.default_rng(0)
    mine, theirs = nn.BatchNorm1d(4, **kwargs).double(), torch.nn.BatchNorm1d(4, **kwargs).double()
    if theirs.affine:
        with torch.no_grad():
            theirs.weight.copy_(torch.tensor(rng.random(4) + 0.5))
            theirs.bias.copy_(torch.tensor(rng.standard_normal(4)))
    copy_weights(mine, theirs)
    for mode in ("train", "train", "train", "eval", "train", "eval"):
        getattr(mine, mode)()
        getattr(theirs, mode)()
        ax, tx = pair(torch, rng.standard_normal(shape) * 3 + 1)
        ao, to = mine(ax), theirs(tx)
        assert node_name(ao) == node_name(to) == "NativeBatchNormBackward0"
        close(ao, to, 1e-12)
        g = rng.standard_normal(shape)
        ao.backward(al.tensor(g))
        to.backward(torch.tensor(g))
        close(ax.grad, tx.grad, 1e-12)
        if theirs.affine:
            close(mine.weight.grad, theirs.weight.grad, 1e-12)
            close(mine.bias.grad, theirs.bias.grad, 1e-12)
        for key, value in theirs.state_dict().items():
            np.testing.assert_allclose(mine.state_dict()[key].numpy(), value.numpy(), rtol=1e-12, err_msg=key)
        mine.zero_grad()
        theirs.zero_grad()


def test_batchnorm_float32_and_2d_match_pytorch(torch):
    rng = np.random.default_rng(1)
    mine, theirs = nn.BatchNorm2d(3), torch.nn.BatchNorm2d(3)
    for mode in ("train", "eval"):
        getattr(mine, mode)()
        getattr(theirs, mode)()
        ax, tx = pair(torch, (rng.standard_normal((4, 3, 5, 5)) * 2).astype(np.float32))
        ao, to = mine(ax), theirs(tx)
        close(ao, to, 1e-5)
        ao.sum().backward()
        to.sum().backward()
        close(ax.grad, tx.grad, 1e-5)
    close(mine.running_var, theirs.running_var, 1e-6)


def test_batchnorm_gradcheck_in_float64():
    al.manual_seed(0)
    bn = nn.BatchNorm1d(3).double()
    with al.no_grad():
        bn.weight.copy_(al.tensor([0.5, 1.5, -1.0]))
    x = al.randn(5, 3, dtype=al.float64, requires_grad=True)
    args = (x, bn.weight, bn.bias)
    assert gradcheck(lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True), args)
    assert gradcheck(lambda x, w, b: F.batch_norm(x, bn.running_mean, bn.running_var, w, b), args)


def test_batchnorm_second_derivative():
    x = al.randn(4, 2, dtype=al.float64, requires_grad=True)
    w = al.tensor([1.5, 0.5], dtype=al.float64, requires_grad=True)
    y = F.batch_norm(x, None, None, w, None, training=True)
    (gx,) = al.autograd.grad((y ** 3).sum(), x, create_graph=True)
    gx.sum().backward()
    assert w.grad is not None and np.all(np.isfinite(w.grad.numpy()))


def test_batchnorm_errors_match_pytorch(torch):
    def msgs(mod):
        out = []
        for call in (lambda: mod.nn.BatchNorm1d(4)(mod.zeros(1, 4)),
                     lambda: mod.nn.BatchNorm1d(4)(mod.zeros(2)),
                     lambda: mod.nn.BatchNorm1d(4)(mod.zeros(2, 5)),
                     lambda: mod.nn.BatchNorm2d(4)(mod.zeros(2, 4))):
            with pytest.raises((ValueError, RuntimeError)) as info:
                call()
            out.append((type(info.value), str(info.value)))
        return out

    assert msgs(al) == msgs(torch)


@pytest.mark.parametrize("shape,norm", [((4,), (4,)), ((3, 4), (4,)), ((2, 3, 4), (3, 4)), ((2, 3, 2), (2,))])
@pytest.mark.parametrize("affine", ["none", "weight", "both"])
def test_layer_norm_gradcheck(shape, norm, affine):
    x = d64(rng(10).standard_normal(shape))
    w = d64(rng(11).standard_normal(norm)) if affine != "none" else None
    b = d64(rng(12).standard_normal(norm)) if affine == "both" else None
    args = tuple(a for a in (x, w, b) if a is not None)

    def fn(*ts):
        return F.layer_norm(ts[0], norm, *ts[1:], eps=1e-5)

    assert gradcheck(fn, args)
    assert gradgradcheck(fn, args)


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="needs PyTorch")
@pytest.mark.parametrize("shape,norm", [((4,), 4), ((3, 4), 4), ((2, 3, 4), (3, 4)), ((5, 2, 6), [6])])
@pytest.mark.parametrize("kw", [{}, {"elementwise_affine": False}, {"bias": False}, {"eps": 1e-3}])
def test_layer_norm_module_matches_torch(shape, norm, kw):
    ma, mt = nn.LayerNorm(norm, **kw), torch.nn.LayerNorm(norm, **kw)
    assert repr(ma) == repr(mt)
    assert list(ma.state_dict()) == list(mt.state_dict())
    for (ka, pa), (kt, pt) in zip(ma.named_parameters(), mt.named_parameters()):
        assert ka == kt
        close(pa, pt)
    with torch.no_grad():  # not the initial values, so that weight and bias matter
        for p in mt.parameters():
            p.copy_(torch.randn(p.shape))
    ma.load_state_dict({k: al.tensor(v.numpy()) for k, v in mt.state_dict().items()})
    a, t = both(rng(13).standard_normal(shape).astype(np.float32) * 3 + 1)
    ya, yt = ma(a), mt(t)
    close(ya, yt, 1e-5)
    assert node_name(ya) == node_name(yt) == "NativeLayerNormBackward0"
    assert len(ya.grad_fn.next_functions) == len(yt.grad_fn.next_functions) == 3
    assert [n is None for n, _ in ya.grad_fn.next_functions] == [
        n is None for n, _ in yt.grad_fn.next_functions
    ]
    for attr in ("_saved_input", "_saved_result1", "_saved_result2", "_saved_weight", "_saved_bias"):
        want = getattr(yt.grad_fn, attr)
        got = getattr(ya.grad_fn, attr)
        if want is None or want.numel() == 0:
            assert got is None or got.numel() == 0
        else:
            close(got, want, 1e-5)
    # a tuple, as PyTorch shows an int list
    assert ya.grad_fn._saved_normalized_shape == yt.grad_fn._saved_normalized_shape
    g = rng(14).standard_normal(shape).astype(np.float32)
    ya.backward(al.tensor(g))
    yt.backward(torch.tensor(g))
    close(a.grad, t.grad, 1e-4)
    for pa, pt in zip(ma.parameters(), mt.parameters()):
        close(pa.grad, pt.grad, 1e-4)


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="needs PyTorch")
def test_layer_norm_errors():
    x = np.ones((3, 4), dtype=np.float32)
    same_error(lambda: F.layer_norm(al.tensor(x), (3,)), lambda: TF.layer_norm(torch.tensor(x), (3,)))
    same_error(lambda: F.layer_norm(al.tensor(x), (2, 4)), lambda: TF.layer_norm(torch.tensor(x), (2, 4)))
    same_error(
        lambda: F.layer_norm(al.tensor(x), (4,), al.ones(3)),
        lambda: TF.layer_norm(torch.tensor(x), (4,), torch.ones(3)),
    )
    same_error(
        lambda: F.layer_norm(al.tensor(x), (4,), al.ones(4), al.ones(3)),
        lambda: TF.layer_norm(torch.tensor(x), (4,), torch.ones(4), torch.ones(3)),
    )
    same_error(lambda: F.layer_norm(al.tensor(x), 4), lambda: TF.layer_norm(torch.tensor(x), 4))
    same_error(lambda: nn.LayerNorm(3)(al.tensor(x)), lambda: torch.nn.LayerNorm(3)(torch.tensor(x)))
    same_error(
        lambda: F.layer_norm(al.tensor([1, 2]), (2,)), lambda: TF.layer_norm(torch.tensor([1, 2]), (2,))
    )


@pytest.mark.parametrize("shape,p,dim", [((3, 4), 2, 1), ((3, 4), 1, 0), ((2, 3, 4), 3, -1), ((5,), 2, 0)])
def test_normalize_gradcheck(shape, p, dim):
    a = d64(rng(37).standard_normal(shape))
    assert gradcheck(lambda x: F.normalize(x, p, dim), (a,))
    assert gradgradcheck(lambda x: F.normalize(x, p, dim), (a,))


@pytest.mark.parametrize("affine", ["none", "weight", "weight and bias"])
@pytest.mark.parametrize("shape", [(2, 3), (2, 2, 3)])
def test_layer_norm_create_graph_records_pytorchs_derivative_node(affine, shape):
    """``NativeLayerNormBackwardBackward0`` (edges grad_out, input, mean, rstd, weight, bias): PyTorch's
    node, edges and saved tensors, and the same first and second derivatives. The third: PyTorch's
    treats the saved mean and rstd as constants and is wrong by the input (finite differences say so);
    ours is checked against finite differences instead."""
    if torch is None:
        pytest.skip("PyTorch is not installed")
    normalized = shape[1:]
    gen = rng(7)
    values = [gen.standard_normal(shape)]
    if affine != "none":
        values.append(gen.standard_normal(normalized))
    if affine == "weight and bias":
        values.append(gen.standard_normal(normalized))

    def f(lib, x, *affine_params):
        y = lib.nn.functional.layer_norm(x, normalized, *affine_params)
        return y * y  # a loss whose second derivative by the output is not 0

    assert_same_double_backward(f, values, orders=(1, 2))

    def first_derivatives(*leaves):
        return al.autograd.grad(f(al, *leaves).sum(), leaves, create_graph=True)

    assert gradgradcheck(first_derivatives, [d64(v) for v in values])
