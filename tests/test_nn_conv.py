"""nn/functional/conv.py and nn/modules/conv.py: conv1d/conv2d (stride, padding, dilation, groups)
against finite differences and PyTorch, their modules, a small CNN on digits."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from helpers import TF, both64, check_same, d64, rng, torch

import autograd_lab as al
from autograd_lab import nn
from autograd_lab.autograd import gradcheck, gradgradcheck
from autograd_lab.nn import functional as F

CONV2D_CASES = [
    dict(),
    dict(stride=2),
    dict(stride=(2, 1), padding=(1, 2)),
    dict(padding=1, dilation=(2, 1)),
    dict(groups=2, padding="same"),
    dict(padding="same", dilation=2),
    dict(padding="valid", groups=2, stride=2),
]


@pytest.mark.parametrize("kw", CONV2D_CASES)
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("batched", [True, False])
def test_conv2d_gradcheck(kw, bias, batched):
    r = rng(1)
    x = d64(r.standard_normal((2, 4, 6, 5) if batched else (4, 6, 5)))
    w = d64(r.standard_normal((4, 4 // kw.get("groups", 1), 3, 2)))
    b = d64(r.standard_normal(4)) if bias else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        inputs = (x, w) + ((b,) if bias else ())

        def fn(x, w, b=None):
            return F.conv2d(x, w, b, **kw)
        assert gradcheck(fn, inputs)
        assert gradgradcheck(fn, inputs)


@pytest.mark.parametrize("kw", [dict(), dict(stride=2, padding=1), dict(padding="same", dilation=3, groups=3),
                                dict(padding="valid", dilation=2)])
@pytest.mark.parametrize("batched", [True, False])
def test_conv1d_gradcheck(kw, batched):
    r = rng(2)
    x = d64(r.standard_normal((2, 3, 9) if batched else (3, 9)))
    w = d64(r.standard_normal((6, 3 // kw.get("groups", 1), 2)))
    b = d64(r.standard_normal(6))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert gradcheck(lambda x, w, b: F.conv1d(x, w, b, **kw), (x, w, b))
        assert gradgradcheck(lambda x, w, b: F.conv1d(x, w, b, **kw), (x, w, b))


def test_module_shapes_and_state_dict():
    conv = nn.Conv2d(4, 6, (3, 2), groups=2, bias=False)
    assert tuple(conv.weight.shape) == (6, 2, 3, 2) and conv.bias is None
    assert list(conv.state_dict()) == ["weight"]
    assert list(nn.Conv1d(2, 3, 5).state_dict()) == ["weight", "bias"]
    assert list(nn.MaxPool2d(2).state_dict()) == []


def test_unchanged_after_error():
    conv = nn.Conv2d(3, 4, 3)
    before = conv.weight.detach().numpy().copy()
    x = al.randn(2, 2, 8, 8, requires_grad=True)
    with pytest.raises(RuntimeError):
        conv(x)
    assert np.array_equal(conv.weight.detach().numpy(), before)
    assert conv.weight.grad is None and x.grad is None


def test_small_cnn_trains_on_digits():
    from autograd_lab.data import load_digits

    al.manual_seed(0)
    xtr, ytr = load_digits("train")
    xte, yte = load_digits("test")
    xtr, xte = xtr.view(-1, 1, 8, 8), xte.view(-1, 1, 8, 8)
    model = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                          nn.Linear(8 * 4 * 4, 10))
    opt = al.optim.Adam(model.parameters(), lr=0.01)
    n = xtr.shape[0]
    order = np.random.default_rng(0)
    for _epoch in range(5):
        perm = order.permutation(n)
        for i in range(0, n, 64):
            idx = al.tensor(perm[i:i + 64])
            loss = F.cross_entropy(model(xtr[idx]), ytr[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
    with al.no_grad():
        acc = (model(xte).argmax(1) == yte).float().mean().item()
    assert acc >= 0.9


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="needs PyTorch")
@pytest.mark.parametrize("kw", CONV2D_CASES)
@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("kernel", [(3, 2), (3, 3)])
def test_conv2d_against_torch(kw, batched, bias, kernel):
    r = rng(6)
    arrays = [r.standard_normal((2, 4, 7, 6) if batched else (4, 7, 6)),
              r.standard_normal((4, 4 // kw.get("groups", 1)) + kernel)]
    if bias:
        arrays.append(r.standard_normal(4))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ya, yt = check_same(lambda *a: F.conv2d(*a, **kw), lambda *a: TF.conv2d(*a, **kw), arrays)
    node_a = ya.grad_fn if batched else ya.grad_fn.next_functions[0][0]
    node_t = yt.grad_fn if batched else yt.grad_fn.next_functions[0][0]
    assert node_a.name() == node_t.name() == "ConvolutionBackward0"


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="needs PyTorch")
def test_conv_saved_and_double_backward_against_torch():
    x, xt = both64(rng(7).standard_normal((2, 4, 6, 6)))
    w, wt = both64(rng(8).standard_normal((6, 2, 3, 3)))
    b, bt = both64(rng(9).standard_normal(6))
    ya = F.conv2d(x, w, b, stride=2, padding=1, dilation=1, groups=2)
    yt = TF.conv2d(xt, wt, bt, stride=2, padding=1, dilation=1, groups=2)
    na, nt = ya.grad_fn, yt.grad_fn
    for attr in ("stride", "padding", "dilation", "groups", "transposed", "output_padding",
                 "bias_sym_sizes_opt"):
        assert getattr(na, "_saved_" + attr) == getattr(nt, "_saved_" + attr), attr
    assert na._saved_input is x and na._saved_weight is w
    # second order: grad of a function of the first gradients
    ga = al.autograd.grad((ya * ya).sum(), (x, w), create_graph=True)
    gt = torch.autograd.grad((yt * yt).sum(), (xt, wt), create_graph=True)
    assert ga[0].grad_fn.name() == gt[0].grad_fn.name() == "ConvolutionBackwardBackward0"
    sa = (ga[0] ** 2).sum() + (ga[1] ** 3).sum()
    st = (gt[0] ** 2).sum() + (gt[1] ** 3).sum()
    for a, t in zip(al.autograd.grad(sa, (x, w, b)), torch.autograd.grad(st, (xt, wt, bt))):
        np.testing.assert_allclose(a.numpy(), t.numpy(), rtol=1e-9, atol=1e-10)


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="needs PyTorch")
def test_conv1d_against_torch():
    r = rng(10)
    for kw in (dict(), dict(stride=2, padding=1), dict(padding="same", groups=3, dilation=2)):
        arrays = [r.standard_normal((2, 3, 9)), r.standard_normal((6, 3 // kw.get("groups", 1), 2)),
                  r.standard_normal(6)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            check_same(lambda *a, kw=kw: F.conv1d(*a, **kw), lambda *a, kw=kw: TF.conv1d(*a, **kw), arrays)
            check_same(lambda x, w, kw=kw: F.conv1d(x, w, **kw), lambda x, w, kw=kw: TF.conv1d(x, w, **kw),
                       [arrays[0][0], arrays[1]])


MODULES = [
    "nn.Conv2d(1, 8, 3, padding=1)",
    "nn.Conv2d(1, 8, (3, 5), stride=2, padding=(1, 2), dilation=2, bias=False)",
    "nn.Conv2d(4, 8, 3, groups=2, padding='same')",
    "nn.Conv2d(2, 4, 3, padding='valid')",
    "nn.Conv1d(4, 8, 3, groups=2, padding='same')",
    "nn.Conv1d(3, 5, 4, stride=2)",
    "nn.MaxPool2d(2)",
    "nn.MaxPool2d((2, 3), stride=1, padding=1, dilation=2, ceil_mode=True, return_indices=True)",
    "nn.AvgPool2d(3)",
    "nn.AvgPool2d(3, 2, 1, True, False, 2)",
    "nn.AdaptiveAvgPool2d((3, None))",
    "nn.AdaptiveAvgPool2d(1)",
    "nn.MaxPool1d(2)",
    "nn.AvgPool1d(3, 2, 1)",
]


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="needs PyTorch")
@pytest.mark.parametrize("expr", MODULES)
def test_module_repr_and_init_against_torch(expr):
    al.manual_seed(0)
    ours = eval(expr, {"nn": nn})
    torch.manual_seed(0)
    theirs = eval(expr, {"nn": torch.nn})
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    for (ka, a), (kt, t) in zip(ours.state_dict().items(), theirs.state_dict().items()):
        assert ka == kt
        assert tuple(a.shape) == tuple(t.shape)
        np.testing.assert_array_equal(a.numpy(), t.numpy())


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="needs PyTorch")
def test_seeded_conv_weight_equals_torch():
    al.manual_seed(0)
    torch.manual_seed(0)
    np.testing.assert_array_equal(nn.Conv2d(1, 4, 3).weight.detach().numpy(),
                                  torch.nn.Conv2d(1, 4, 3).weight.detach().numpy())


ERRORS = [
    "F.conv2d(R(2, 2, 8, 8), R(4, 3, 3, 3))",
    "F.conv2d(R(2, 2, 8), R(4, 3, 3, 3))",
    "F.conv2d(R(2, 3, 8, 8, 1), R(4, 3, 3, 3))",
    "F.conv2d(R(8, 8), R(4, 3, 3, 3))",
    "F.conv2d(R(2, 3, 2, 2), R(4, 3, 3, 3))",
    "F.conv2d(R(3, 2, 2), R(4, 3, 3, 3))",
    "F.conv2d(R(2, 3, 8, 8), R(4, 3, 3, 3), groups=2)",
    "F.conv2d(R(2, 3, 8, 8), R(4, 1, 3, 3), groups=3)",
    "F.conv2d(R(2, 3, 8, 8), R(3, 1, 3, 3), groups=0)",
    "F.conv2d(R(2, 3, 8, 8), R(4, 3, 3, 3), R(3))",
    "F.conv2d(R(2, 3, 8, 8), R(4, 3, 3, 3), stride=0)",
    "F.conv2d(R(2, 3, 8, 8), R(4, 3, 3, 3), padding=-1)",
    "F.conv2d(R(2, 3, 8, 8), R(4, 3, 3, 3), dilation=0)",
    "F.conv2d(R(2, 3, 8, 8), R(4, 3, 3, 3), stride=2, padding='same')",
    "F.conv2d(R(2, 3, 8, 8), R(4, 3, 3, 3), padding='foo')",
    "F.conv2d(R(2, 3, 8, 8).double(), R(4, 3, 3, 3))",
    "F.conv2d(R(2, 3, 8, 8), R(4, 3, 3, 3), R(4).double())",
    "F.conv2d(R(2, 3, 8, 8), R(4, 3, 3))",
    "F.conv1d(R(2, 3, 8), R(4, 3, 3, 3))",
    "F.conv2d(R(2, 3, 8, 8), R(4, 3, 3, 3), stride=(1, 1, 1))",
    "nn.Conv2d(3, 4, 3, groups=2)",
    "nn.Conv2d(4, 3, 3, groups=2)",
    "nn.Conv2d(4, 4, 3, groups=0)",
    "nn.Conv2d(4, 4, 3, stride=2, padding='same')",
    "nn.Conv2d(3, 4, 3)(R(2, 2, 8, 8))",
    "nn.Conv2d(3, 4, 3)(R(8, 8))",
    "F.max_pool2d(R(2, 3, 1, 1), 2)",
    "F.max_pool2d(R(8, 8), 2)",
    "F.max_pool2d(R(2, 3, 8, 8), 2, padding=2)",
    "F.max_pool2d(R(2, 3, 8, 8), 0)",
    "F.max_pool2d(R(2, 3, 8, 8), 2, stride=0)",
    "F.max_pool2d(R(2, 3, 8, 8), 2, dilation=0)",
    "F.max_pool2d(R(2, 3, 8, 8), (2, 2, 2))",
    "F.max_pool2d(R(2, 3, 8, 8), 2, padding=-1)",
    "F.avg_pool2d(R(2, 3, 1, 1), 2)",
    "F.avg_pool2d(R(8, 8), 2)",
    "F.avg_pool2d(R(2, 3, 8, 8), 2, padding=2)",
    "F.avg_pool2d(R(2, 3, 8, 8), 0)",
    "F.avg_pool2d(R(2, 3, 8, 8), 2, stride=0)",
    "F.avg_pool2d(R(2, 3, 8, 8), 2, divisor_override=0)",
    "F.adaptive_avg_pool2d(R(2, 3, 8, 8), (1, 2, 3))",
    "F.adaptive_avg_pool2d(R(8, 8), 2)",
    "F.adaptive_avg_pool2d(R(2, 3, 0, 8), 2)",
    "F.adaptive_avg_pool2d(R(2, 3, 8, 8), -1)",
    "F.avg_pool1d(R(8), 2)",
]


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="needs PyTorch")
@pytest.mark.parametrize("expr", ERRORS)
def test_errors_against_torch(expr):
    def run(mod, fmod):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                eval(expr, {"nn": mod.nn, "F": fmod, "R": lambda *s: mod.randn(*s, requires_grad=True)})
        except Exception as e:
            return type(e).__name__, str(e)
        return None

    expected = run(torch, TF)
    assert expected is not None
    assert run(al, F) == expected


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="needs PyTorch")
def test_invalid_padding_string_module():
    for mod in (nn, torch.nn):
        with pytest.raises(ValueError, match="Invalid padding string 'foo', should be one of"):
            mod.Conv2d(4, 4, 3, padding="foo")
        with pytest.raises(ValueError, match="padding_mode must be one of .*, but got padding_mode='foo'"):
            mod.Conv2d(4, 4, 3, padding_mode="foo")
