"""nn/functional/activation.py and nn/modules/activation.py: every activation against finite differences
and PyTorch (values, gradients, graphs, in-place forms, errors), their modules' reprs."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import TF, assert_same_double_backward, both, close, d64, node_name, pair, rng, same_error, torch

import autograd_lab as al
from autograd_lab import nn
from autograd_lab.autograd import gradcheck, gradgradcheck
from autograd_lab.nn import functional as F


@pytest.mark.parametrize("layer", ["ReLU", "Tanh", "Sigmoid"])
def test_activations_match_pytorch(torch, layer):
    x = np.linspace(-3, 3, 13).astype(np.float32)
    ax, tx = pair(torch, x)
    ao, to = getattr(nn, layer)()(ax), getattr(torch.nn, layer)()(tx)
    close(ao, to, 1e-6)
    assert node_name(ao) == node_name(to)
    ao.sum().backward()
    to.sum().backward()
    close(ax.grad, tx.grad, 1e-6)


def test_softmax_modules_and_functions(torch):
    x = np.random.default_rng(0).standard_normal((3, 5))
    ax, tx = pair(torch, x)
    close(nn.Softmax(dim=1)(ax), torch.nn.Softmax(dim=1)(tx), 1e-12)
    close(nn.LogSoftmax(dim=0)(ax), torch.nn.LogSoftmax(dim=0)(tx), 1e-12)
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax"):
        out = F.softmax(ax)
    close(out, torch.softmax(tx, 1), 1e-12)


def test_inplace_relu():
    x = al.tensor([-1.0, 2.0], requires_grad=True)
    h = x * 1
    y = nn.ReLU(inplace=True)(h)
    assert y is h and h.tolist() == [0.0, 2.0] and node_name(h) == "ReluBackward0"
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 1.0]


# (label, autograd_lab function, PyTorch function name, kwargs)
ACTIVATIONS = [
    ("leaky_relu", F.leaky_relu, "leaky_relu", {}),
    ("leaky_relu_0.2", F.leaky_relu, "leaky_relu", {"negative_slope": 0.2}),
    ("gelu", F.gelu, "gelu", {}),
    ("gelu_tanh", F.gelu, "gelu", {"approximate": "tanh"}),
    ("silu", F.silu, "silu", {}),
    ("mish", F.mish, "mish", {}),
    ("elu", F.elu, "elu", {}),
    ("elu_0.5", F.elu, "elu", {"alpha": 0.5}),
    ("softplus", F.softplus, "softplus", {}),
    ("softplus_b2_t3", F.softplus, "softplus", {"beta": 2.0, "threshold": 3.0}),
    ("hardtanh", F.hardtanh, "hardtanh", {}),
    ("hardtanh_-2_0.5", F.hardtanh, "hardtanh", {"min_val": -2.0, "max_val": 0.5}),
    ("relu6", F.relu6, "relu6", {}),
    ("softsign", F.softsign, "softsign", {}),
]


SMOOTH = {"gelu", "gelu_tanh", "silu", "mish", "softsign", "softplus"}


def _inputs(shape, seed=0, scale=3.0):
    x = rng(seed).standard_normal(shape) * scale
    return np.where(np.abs(x) < 0.05, 0.3, x)  # keep finite differences away from kinks


@pytest.mark.parametrize("label,fn,_tname,kw", ACTIVATIONS, ids=[a[0] for a in ACTIVATIONS])
@pytest.mark.parametrize("shape", [(5,), (2, 3), (2, 1, 3)])
def test_activation_gradcheck(label, fn, _tname, kw, shape):
    x = d64(_inputs(shape))
    assert gradcheck(lambda t: fn(t, **kw), (x,))
    if label in SMOOTH or label.startswith(("elu", "leaky", "hardtanh", "relu6")):
        assert gradgradcheck(lambda t: fn(t, **kw), (x,))


@pytest.mark.parametrize("label,fn,tname,kw", ACTIVATIONS, ids=[a[0] for a in ACTIVATIONS])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(7,), (3, 4), ()])
def test_activation_matches_torch(label, fn, tname, kw, dtype, shape):
    if torch is None:
        pytest.skip("needs PyTorch")
    arr = np.asarray(_inputs(shape, seed=1, scale=4.0) if shape else 0.7, dtype=dtype)
    if label == "softplus_b2_t3":
        arr = np.concatenate([arr.reshape(-1), [1.4, 1.6, 30.0, -30.0]]).astype(dtype)
    a, t = both(arr)
    ya, yt = fn(a, **kw), getattr(TF, tname)(t, **kw)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    close(ya, yt, tol)
    assert node_name(ya) == node_name(yt)
    saved = [n for n in dir(yt.grad_fn) if n.startswith("_saved_")]
    for n in saved:
        want, got = getattr(yt.grad_fn, n), getattr(ya.grad_fn, n)
        if isinstance(want, torch.Tensor):
            close(got, want, tol)
        else:
            assert got == want, n
    g = rng(2).standard_normal(arr.shape).astype(dtype)
    ya.backward(al.tensor(g))
    yt.backward(torch.tensor(g))
    close(a.grad, t.grad, tol)


# in-place variants: (autograd_lab call, PyTorch call)
INPLACE = [
    (
        "leaky_relu",
        lambda x: F.leaky_relu(x, 0.1, inplace=True),
        lambda x: TF.leaky_relu(x, 0.1, inplace=True),
    ),
    ("leaky_relu_", lambda x: F.leaky_relu_(x, 0.1), lambda x: TF.leaky_relu_(x, 0.1)),
    ("elu", lambda x: F.elu(x, 0.7, inplace=True), lambda x: TF.elu(x, 0.7, inplace=True)),
    ("elu_", lambda x: F.elu_(x), lambda x: TF.elu_(x)),
    ("silu", lambda x: F.silu(x, inplace=True), lambda x: TF.silu(x, inplace=True)),
    ("mish", lambda x: F.mish(x, inplace=True), lambda x: TF.mish(x, inplace=True)),
    (
        "hardtanh",
        lambda x: F.hardtanh(x, -0.5, 2.0, inplace=True),
        lambda x: TF.hardtanh(x, -0.5, 2.0, inplace=True),
    ),
    ("hardtanh_", lambda x: F.hardtanh_(x), lambda x: TF.hardtanh_(x)),
    ("relu6", lambda x: F.relu6(x, inplace=True), lambda x: TF.relu6(x, inplace=True)),
]


@pytest.mark.parametrize(
    "label,fa,ft",
    INPLACE if torch is not None else [],
    ids=[i[0] for i in INPLACE] if torch is not None else [],
)
@pytest.mark.torch
def test_inplace_activation_matches_torch(label, fa, ft):
    arr = _inputs((3, 4), seed=3, scale=4.0).astype(np.float32)
    a, t = both(arr)
    ca, ct = a * 1.0, t * 1.0
    ra, rt = fa(ca), ft(ct)
    assert ra is ca and rt is ct
    close(ca, ct, 1e-6)
    assert node_name(ca) == node_name(ct)
    assert ca._version == ct._version
    g = rng(4).standard_normal(arr.shape).astype(np.float32)
    ca.backward(al.tensor(g))
    ct.backward(torch.tensor(g))
    close(a.grad, t.grad, 1e-5)
    # without grad the tensor simply changes
    pa, pt = al.tensor(arr), torch.tensor(arr)
    fa(pa)
    ft(pt)
    close(pa, pt, 1e-6)


def test_inplace_activation_gradcheck():
    x = d64(_inputs((2, 3), seed=5))
    for fn in (
        lambda t: F.leaky_relu(t * 1.0, 0.3, inplace=True),
        lambda t: F.elu(t * 1.0, inplace=True),
        lambda t: F.silu(t * 1.0, inplace=True),
        lambda t: F.mish(t * 1.0, inplace=True),
        lambda t: F.hardtanh(t * 1.0, -2.0, 2.0, inplace=True),
    ):
        assert gradcheck(fn, (x,))
        assert gradgradcheck(fn, (x,))


def test_inplace_keeps_the_saved_result_version_checked():
    x = al.randn(4, requires_grad=True)
    y = x * 1.0
    F.leaky_relu_(y, 0.1)
    assert node_name(y) == "LeakyReluBackward1"
    y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


@pytest.mark.parametrize(
    "fa,ft",
    [
        (
            lambda x: F.leaky_relu(x * 1.0, -0.5, inplace=True),
            lambda x: TF.leaky_relu(x * 1.0, -0.5, inplace=True),
        ),
        (lambda x: F.elu(x * 1.0, -0.5, inplace=True), lambda x: TF.elu(x * 1.0, -0.5, inplace=True)),
    ]
    if torch is not None
    else [],
)
@pytest.mark.torch
def test_inplace_negative_slope_backward_error(fa, ft):
    a, t = both(np.array([1.0, -2.0], dtype=np.float32))
    same_error(lambda: fa(a).sum().backward(), lambda: ft(t).sum().backward(), RuntimeError)


def test_inplace_on_leaf_is_refused_and_changes_nothing():
    x = al.tensor([1.0, -1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        F.elu(x, inplace=True)
    assert x.tolist() == [1.0, -1.0] and x._version == 0


def test_gelu_reference_values():
    x = al.tensor([-3.0, -1.0, 0.0, 0.5, 2.0], dtype=al.float64)
    want = [0.5 * v * (1 + __import__("math").erf(v / 2**0.5)) for v in x.tolist()]
    np.testing.assert_allclose(F.gelu(x).numpy(), want, rtol=1e-14, atol=1e-15)


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_third_derivative(approximate):
    x = d64([-1.3, 0.4, 2.2])

    def second(t):
        (g,) = al.autograd.grad(F.gelu(t, approximate=approximate).sum(), t, create_graph=True)
        (gg,) = al.autograd.grad(g.sum(), t, create_graph=True)
        return gg

    assert gradcheck(second, (x,))


@pytest.mark.parametrize("shape,num", [((4,), 1), ((3, 4), 1), ((3, 4), 4), ((2, 3, 5), 3), ((), 1)])
def test_prelu_gradcheck(shape, num):
    x = d64(_inputs(shape, seed=6) if shape else 0.8)
    w = d64(rng(7).standard_normal(num))
    assert gradcheck(F.prelu, (x, w))
    assert gradgradcheck(F.prelu, (x, w))


@pytest.mark.parametrize("shape,num", [((4,), 1), ((3, 4), 1), ((3, 4), 4), ((2, 3, 5), 3), ((), 1)])
@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="needs PyTorch")
def test_prelu_module_matches_torch(shape, num):
    arr = np.asarray(_inputs(shape, seed=8) if shape else -0.8, dtype=np.float32)
    ma, mt = nn.PReLU(num), torch.nn.PReLU(num)
    assert repr(ma) == repr(mt)
    close(ma.weight, mt.weight)
    assert list(ma.state_dict()) == list(mt.state_dict())
    a, t = both(arr)
    ya, yt = ma(a), mt(t)
    close(ya, yt)
    assert node_name(ya) == node_name(yt) == "PreluKernelBackward0"
    assert [type(n).__name__ for n, _ in ya.grad_fn.next_functions] == [
        type(n).__name__ for n, _ in yt.grad_fn.next_functions
    ]
    ya.sum().backward()
    yt.sum().backward()
    close(a.grad, t.grad)
    close(ma.weight.grad, mt.weight.grad, 1e-5)
    assert repr(nn.PReLU(3, init=0.1)) == repr(torch.nn.PReLU(3, init=0.1))


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="needs PyTorch")
def test_prelu_errors():
    x = np.ones((3, 4), dtype=np.float32)
    same_error(lambda: nn.PReLU(3)(al.tensor(x)), lambda: torch.nn.PReLU(3)(torch.tensor(x)))
    same_error(
        lambda: F.prelu(al.tensor(x), al.ones(2, 2)), lambda: TF.prelu(torch.tensor(x), torch.ones(2, 2))
    )
    same_error(
        lambda: F.prelu(al.tensor(x), al.ones(1, dtype=al.float64)),
        lambda: TF.prelu(torch.tensor(x), torch.ones(1, dtype=torch.float64)),
    )


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="needs PyTorch")
def test_activation_module_reprs_and_outputs():
    pairs = [
        (nn.LeakyReLU(), torch.nn.LeakyReLU()),
        (nn.LeakyReLU(0.2, True), torch.nn.LeakyReLU(0.2, True)),
        (nn.GELU(), torch.nn.GELU()),
        (nn.GELU("tanh"), torch.nn.GELU("tanh")),
        (nn.SiLU(), torch.nn.SiLU()),
        (nn.SiLU(inplace=True), torch.nn.SiLU(inplace=True)),
        (nn.Mish(), torch.nn.Mish()),
        (nn.Mish(True), torch.nn.Mish(True)),
        (nn.ELU(), torch.nn.ELU()),
        (nn.ELU(0.5, True), torch.nn.ELU(0.5, True)),
        (nn.Softplus(), torch.nn.Softplus()),
        (nn.Softplus(2, 5), torch.nn.Softplus(2, 5)),
        (nn.Hardtanh(), torch.nn.Hardtanh()),
        (nn.Hardtanh(-2, 3, True), torch.nn.Hardtanh(-2, 3, True)),
        (nn.ReLU6(), torch.nn.ReLU6()),
        (nn.ReLU6(True), torch.nn.ReLU6(True)),
        (nn.Softsign(), torch.nn.Softsign()),
        (nn.PReLU(), torch.nn.PReLU()),
    ]
    arr = _inputs((3, 4), seed=9, scale=4.0).astype(np.float32)
    for ma, mt in pairs:
        assert repr(ma) == repr(mt)
        assert list(ma.state_dict()) == list(mt.state_dict())
        a, t = both(arr)
        ya, yt = ma(a * 1.0), mt(t * 1.0)
        close(ya, yt, 1e-5)
        assert node_name(ya) == node_name(yt), repr(mt)
        ya.sum().backward()
        yt.sum().backward()
        close(a.grad, t.grad, 1e-5)
    seq_a = nn.Sequential(nn.Linear(2, 2), nn.GELU(), nn.LayerNorm(2))
    seq_t = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.GELU(), torch.nn.LayerNorm(2))
    assert repr(seq_a) == repr(seq_t)


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="needs PyTorch")
def test_activation_errors():
    x = np.ones(3, dtype=np.float32)
    xi = np.array([1, 2])
    same_error(
        lambda: F.gelu(al.tensor(x), approximate="foo"), lambda: TF.gelu(torch.tensor(x), approximate="foo")
    )
    same_error(lambda: nn.GELU("foo")(al.tensor(x)), lambda: torch.nn.GELU("foo")(torch.tensor(x)))
    same_error(lambda: F.hardtanh(al.tensor(x), 2.0, 1.0), lambda: TF.hardtanh(torch.tensor(x), 2.0, 1.0))
    same_error(lambda: nn.Hardtanh(2.0, 1.0), lambda: torch.nn.Hardtanh(2.0, 1.0))
    for fa, ft in [
        (F.softplus, TF.softplus),
        (F.gelu, TF.gelu),
        (F.silu, TF.silu),
        (F.elu, TF.elu),
        (F.leaky_relu, TF.leaky_relu),
        (F.mish, TF.mish),
    ]:
        same_error(lambda fa=fa: fa(al.tensor(xi)), lambda ft=ft: ft(torch.tensor(xi)))
    close(F.hardtanh(al.tensor(xi)), TF.hardtanh(torch.tensor(xi)))
    close(F.softsign(al.tensor(xi)), TF.softsign(torch.tensor(xi)))


@pytest.mark.parametrize("fn", ["torch.relu_", "F.relu_", "Tensor.relu_"])
def test_relu_in_place(fn):
    if torch is None:
        pytest.skip("PyTorch is not installed")
    outcomes = []
    for lib in (al, torch):
        x = lib.tensor([-1.0, 0.0, 2.0], requires_grad=True)
        y = x * 1
        relu_ = {"torch.relu_": lib.relu_, "F.relu_": lib.nn.functional.relu_,
                 "Tensor.relu_": lib.Tensor.relu_}
        out = relu_[fn](y)
        assert out is y
        y.sum().backward()
        outcomes.append((y.tolist(), type(y.grad_fn).__name__, x.grad.tolist(), y._version))
    assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize("name", ["hardtanh", "relu6", "leaky_relu", "silu"])
def test_create_graph_records_pytorchs_activation_derivative_nodes(name):
    """``HardtanhBackwardBackward0`` / ``LeakyReluBackwardBackward0`` with edges (None, input); silu's
    derivative as PyTorch groups it."""
    if torch is None:
        pytest.skip("PyTorch is not installed")
    outcomes = []
    for lib in (al, torch):
        x = lib.tensor([0.5, -2.0, 7.0, 3.0], requires_grad=True)
        (g,) = lib.autograd.grad(getattr(lib.nn.functional, name)(x).sum(), x, create_graph=True)
        edges = [None if n is None else type(n).__name__.split("::")[-1] for n, _ in g.grad_fn.next_functions]
        (gg,) = lib.autograd.grad(g.sum(), x)
        outcomes.append((type(g.grad_fn).__name__, edges, g.tolist(), gg.tolist()))
    assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize("case", ["elu", "elu alpha", "softplus", "softplus beta threshold", "logsigmoid"])
def test_create_graph_records_elu_softplus_logsigmoid_derivative_nodes(case):
    """``EluBackwardBackward0``, ``SoftplusBackwardBackward0``, ``LogSigmoidBackwardBackward0``: PyTorch's
    nodes, edges and saved tensors, and the same derivatives up to the third (0 and the kinks included)."""
    if torch is None:
        pytest.skip("PyTorch is not installed")
    fs = {
        "elu": lambda lib, x: lib.nn.functional.elu(x),
        "elu alpha": lambda lib, x: lib.nn.functional.elu(x, alpha=0.5),
        "softplus": lambda lib, x: lib.nn.functional.softplus(x),
        "softplus beta threshold": lambda lib, x: lib.nn.functional.softplus(x, beta=2.0, threshold=1.0),
        "logsigmoid": lambda lib, x: lib.nn.functional.logsigmoid(x),
    }
    values = [[[0.5, -2.0, 0.0], [7.0, -0.3, 30.0]]]
    assert_same_double_backward(fs[case], values)


def test_logsigmoid_matches_pytorch():
    """``F.logsigmoid`` and ``nn.LogSigmoid``: stable values at large |x|, ``LogSigmoidBackward0`` with
    the ``exp(-|x|)`` buffer PyTorch keeps, and PyTorch's error for integers."""
    if torch is None:
        pytest.skip("PyTorch is not installed")
    x, t = both([-800.0, -3.0, 0.0, 2.5, 800.0])
    ya, yt = al.nn.LogSigmoid()(x), torch.nn.LogSigmoid()(t)
    close(ya, yt)
    assert node_name(ya) == node_name(yt) == "LogSigmoidBackward0"
    close(ya.grad_fn._saved_buffer, yt.grad_fn._saved_buffer)
    ya.sum().backward()
    yt.sum().backward()
    close(x.grad, t.grad)
    same_error(lambda: al.nn.functional.logsigmoid(al.tensor([1, 2])),
               lambda: torch.nn.functional.logsigmoid(torch.tensor([1, 2])))
