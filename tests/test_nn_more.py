"""autograd_lab.nn additions: activations, LayerNorm, Embedding, BCE/SmoothL1/Huber/KL losses,
ParameterList, Unflatten, cosine_similarity, normalize, pad.

Gradchecks run without PyTorch; the differential tests (marked ``torch``) compare values, gradients,
node names, saved tensors, reprs, initial parameters and error texts with PyTorch itself.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import autograd_lab as al
from autograd_lab import nn
from autograd_lab.autograd import gradcheck, gradgradcheck
from autograd_lab.nn import functional as F

try:
    import torch
except ImportError:  # the gradchecks still run
    torch = None

needs_torch = [pytest.mark.torch, pytest.mark.skipif(torch is None, reason="needs PyTorch")]

if torch is not None:
    import torch.nn.functional as TF

    torch.set_num_threads(1)


def rng(seed=0):
    return np.random.default_rng(seed)


def d64(arr, requires_grad=True):
    return al.tensor(np.asarray(arr, dtype=np.float64), requires_grad=requires_grad)


def both(arr, requires_grad=True):
    arr = np.asarray(arr)
    return al.tensor(arr, requires_grad=requires_grad), torch.tensor(arr, requires_grad=requires_grad)


def close(a, t, tol=1e-6):
    assert a is not None and t is not None, (a, t)
    np.testing.assert_allclose(a.detach().numpy(), t.detach().numpy(), rtol=tol, atol=tol)


def name(t):
    return type(t.grad_fn).__name__


def same_error(fa, ft, kind=None):
    """Both calls raise the same exception type with the same text."""
    with pytest.raises(Exception) as et:
        ft()
    with pytest.raises(Exception) as ea:
        fa()
    assert type(ea.value).__name__ == type(et.value).__name__, (ea.value, et.value)
    assert str(ea.value) == str(et.value)
    if kind is not None:
        assert isinstance(ea.value, kind)


# ---------------------------------------------------------------------------- activations
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
    assert name(ya) == name(yt)
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
    assert name(ca) == name(ct)
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
    assert name(y) == "LeakyReluBackward1"
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


# ---------------------------------------------------------------------------- PReLU
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
    assert name(ya) == name(yt) == "PreluKernelBackward0"
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


# ---------------------------------------------------------------------------- activation modules
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
        assert name(ya) == name(yt), repr(mt)
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


# ---------------------------------------------------------------------------- LayerNorm
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
    assert name(ya) == name(yt) == "NativeLayerNormBackward0"
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
    assert ya.grad_fn._saved_normalized_shape == list(yt.grad_fn._saved_normalized_shape)
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


# ---------------------------------------------------------------------------- Embedding
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
    assert name(ya) == name(yt) == "EmbeddingBackward0"
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


# ---------------------------------------------------------------------------- seeded initialisation
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


# ---------------------------------------------------------------------------- losses
def _probs(shape, seed):
    return np.clip(rng(seed).uniform(0.05, 0.95, shape), 0.05, 0.95)


REDUCTIONS = ["none", "mean", "sum"]


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", [(5,), (2, 3), (2, 1, 3)])
@pytest.mark.parametrize("weighted", [False, True])
def test_bce_gradcheck(reduction, shape, weighted):
    x, y = d64(_probs(shape, 18)), d64(_probs(shape, 19))
    w = d64(rng(20).uniform(0.5, 2, shape[-1:]), requires_grad=False) if weighted else None

    def fn(a, b):
        return F.binary_cross_entropy(a, b, weight=w, reduction=reduction)

    assert gradcheck(fn, (x, y))
    assert gradgradcheck(fn, (x, y))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", [(5,), (2, 3), (2, 1, 3)])
@pytest.mark.parametrize("weights", ["none", "weight", "pos_weight", "both"])
def test_bce_with_logits_gradcheck(reduction, shape, weights):
    x, y = d64(rng(21).standard_normal(shape) * 3), d64(_probs(shape, 22))
    w = d64(rng(23).uniform(0.5, 2, shape[-1:]), False) if weights in ("weight", "both") else None
    pw = d64(rng(24).uniform(0.5, 3, shape[-1:]), False) if weights in ("pos_weight", "both") else None

    def fn(a, b):
        return F.binary_cross_entropy_with_logits(a, b, weight=w, pos_weight=pw, reduction=reduction)

    assert gradcheck(fn, (x, y))
    assert gradgradcheck(fn, (x, y))


def test_bce_with_logits_is_stable():
    x = al.tensor([-1000.0, 1000.0, 0.0], requires_grad=True)
    y = al.tensor([0.0, 1.0, 1.0])
    loss = F.binary_cross_entropy_with_logits(x, y, reduction="none")
    np.testing.assert_allclose(loss.detach().numpy(), [0.0, 0.0, np.log(2)], rtol=1e-6)
    loss.sum().backward()
    assert np.isfinite(x.grad.numpy()).all()


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", [(5,), (2, 3), (2, 1, 3)])
@pytest.mark.parametrize(
    "fn,kw",
    [
        (F.smooth_l1_loss, {}),
        (F.smooth_l1_loss, {"beta": 0.5}),
        (F.smooth_l1_loss, {"beta": 2.0}),
        (F.huber_loss, {}),
        (F.huber_loss, {"delta": 0.3}),
        (F.huber_loss, {"delta": 2.5}),
    ],
)
def test_smooth_l1_and_huber_gradcheck(reduction, shape, fn, kw):
    x, y = d64(rng(25).standard_normal(shape) * 2), d64(rng(26).standard_normal(shape))
    assert gradcheck(lambda a, b: fn(a, b, reduction=reduction, **kw), (x, y))
    assert gradgradcheck(lambda a, b: fn(a, b, reduction=reduction, **kw), (x, y))


@pytest.mark.parametrize("reduction", REDUCTIONS + ["batchmean"])
@pytest.mark.parametrize("shape", [(5,), (2, 3), (2, 1, 3)])
@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div_gradcheck(reduction, shape, log_target):
    x = d64(np.log(_probs(shape, 27)))
    t = _probs(shape, 28)
    y = d64(np.log(t) if log_target else t)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert gradcheck(lambda a, b: F.kl_div(a, b, reduction=reduction, log_target=log_target), (x, y))
        assert gradgradcheck(lambda a, b: F.kl_div(a, b, reduction=reduction, log_target=log_target), (x, y))


def _loss_cases():
    """(label, autograd_lab module, PyTorch module, input kind) for the differential loss tests."""
    if torch is None:
        return []
    w = np.array([0.5, 1.0, 2.0, 1.5], dtype=np.float32)
    pw = np.array([3.0, 1.0, 0.5, 2.0], dtype=np.float32)
    cases = []
    for r in REDUCTIONS:
        cases += [
            (f"bce-{r}", nn.BCELoss(reduction=r), torch.nn.BCELoss(reduction=r), "prob"),
            (
                f"bce-w-{r}",
                nn.BCELoss(al.tensor(w), reduction=r),
                torch.nn.BCELoss(torch.tensor(w), reduction=r),
                "prob",
            ),
            (
                f"bcel-{r}",
                nn.BCEWithLogitsLoss(reduction=r),
                torch.nn.BCEWithLogitsLoss(reduction=r),
                "logit",
            ),
            (
                f"bcel-w-pw-{r}",
                nn.BCEWithLogitsLoss(al.tensor(w), reduction=r, pos_weight=al.tensor(pw)),
                torch.nn.BCEWithLogitsLoss(torch.tensor(w), reduction=r, pos_weight=torch.tensor(pw)),
                "logit",
            ),
            (
                f"bcel-pw-{r}",
                nn.BCEWithLogitsLoss(reduction=r, pos_weight=al.tensor(pw)),
                torch.nn.BCEWithLogitsLoss(reduction=r, pos_weight=torch.tensor(pw)),
                "logit",
            ),
            (f"sl1-{r}", nn.SmoothL1Loss(reduction=r), torch.nn.SmoothL1Loss(reduction=r), "real"),
            (
                f"sl1-b0.3-{r}",
                nn.SmoothL1Loss(reduction=r, beta=0.3),
                torch.nn.SmoothL1Loss(reduction=r, beta=0.3),
                "real",
            ),
            (
                f"sl1-b0-{r}",
                nn.SmoothL1Loss(reduction=r, beta=0.0),
                torch.nn.SmoothL1Loss(reduction=r, beta=0.0),
                "real",
            ),
            (f"huber-{r}", nn.HuberLoss(reduction=r), torch.nn.HuberLoss(reduction=r), "real"),
            (f"huber-d2-{r}", nn.HuberLoss(r, 2.0), torch.nn.HuberLoss(r, 2.0), "real"),
            (f"kl-{r}", nn.KLDivLoss(reduction=r), torch.nn.KLDivLoss(reduction=r), "logprob"),
            (
                f"kl-lt-{r}",
                nn.KLDivLoss(reduction=r, log_target=True),
                torch.nn.KLDivLoss(reduction=r, log_target=True),
                "logprob-lt",
            ),
        ]
    cases += [
        (
            "kl-batchmean",
            nn.KLDivLoss(reduction="batchmean"),
            torch.nn.KLDivLoss(reduction="batchmean"),
            "logprob",
        ),
        (
            "kl-lt-batchmean",
            nn.KLDivLoss(reduction="batchmean", log_target=True),
            torch.nn.KLDivLoss(reduction="batchmean", log_target=True),
            "logprob-lt",
        ),
    ]
    return cases


LOSS_CASES = _loss_cases()


def _graph(t):
    """The node names of a graph, depth first."""
    out = []

    def walk(node):
        out.append(None if node is None else type(node).__name__)
        if node is not None and len(out) < 40:
            for n, _ in node.next_functions:
                walk(n)

    walk(t.grad_fn)
    return [n if n != "torch::autograd::AccumulateGrad" else "AccumulateGrad" for n in out]


@pytest.mark.torch
@pytest.mark.parametrize("label,ma,mt,kind", LOSS_CASES, ids=[c[0] for c in LOSS_CASES])
@pytest.mark.parametrize("target_grad", [False, True])
def test_loss_module_matches_torch(label, ma, mt, kind, target_grad):
    shape = (3, 4)
    r = rng(29)
    if kind == "prob":
        x, y = _probs(shape, 30), _probs(shape, 31)
    elif kind == "logit":
        x, y = r.standard_normal(shape) * 4, _probs(shape, 31)
    elif kind == "real":
        x, y = r.standard_normal(shape) * 2, r.standard_normal(shape)
    else:
        x = np.log(_probs(shape, 30))
        y = np.log(_probs(shape, 31)) if kind == "logprob-lt" else _probs(shape, 31)
    assert repr(ma) == repr(mt)
    assert list(ma.state_dict()) == list(mt.state_dict())
    xa, xt = both(x.astype(np.float32))
    ya, yt = both(y.astype(np.float32), requires_grad=target_grad)
    with warnings.catch_warnings(record=True) as wa:
        warnings.simplefilter("always")
        la = ma(xa, ya)
    with warnings.catch_warnings(record=True) as wt:
        warnings.simplefilter("always")
        lt = mt(xt, yt)
    assert [str(w.message) for w in wa] == [str(w.message) for w in wt]
    close(la, lt, 1e-5)
    assert _graph(la) == _graph(lt)
    one_node = name(lt) in (
        "BinaryCrossEntropyBackward0",
        "BinaryCrossEntropyWithLogitsBackward0",
        "SmoothL1LossBackward0",
        "HuberLossBackward0",
    )
    for attr in [n for n in dir(lt.grad_fn) if n.startswith("_saved_") and one_node]:
        want, got = getattr(lt.grad_fn, attr), getattr(la.grad_fn, attr)
        if isinstance(want, torch.Tensor):
            close(got, want, 1e-6)
        elif want is not None:
            assert got == want, attr
    g = r.standard_normal(lt.shape).astype(np.float32)
    la.backward(al.tensor(g))
    lt.backward(torch.tensor(g))
    close(xa.grad, xt.grad, 1e-5)
    if target_grad:
        close(ya.grad, yt.grad, 1e-5)


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="needs PyTorch")
def test_loss_broadcast_target_and_huber_weight():
    x, y = rng(32).standard_normal((3, 4)).astype(np.float32), rng(33).standard_normal(4).astype(np.float32)
    for fa, ft in [(F.smooth_l1_loss, TF.smooth_l1_loss), (F.huber_loss, TF.huber_loss)]:
        xa, xt = both(x)
        ya, yt = both(y)
        with pytest.warns(UserWarning) as wa:
            la = fa(xa, ya, reduction="sum")
        with pytest.warns(UserWarning) as wt:
            lt = ft(xt, yt, reduction="sum")
        assert str(wa[0].message) == str(wt[0].message)
        assert _graph(la) == _graph(lt)
        la.backward()
        lt.backward()
        close(xa.grad, xt.grad, 1e-5)
        close(ya.grad, yt.grad, 1e-5)
    w = rng(34).uniform(0, 2, (3, 4)).astype(np.float32)
    for r in REDUCTIONS:
        xa, xt = both(x)
        la, lt = (
            F.huber_loss(xa, al.tensor(x * 0.5), r, 0.7, al.tensor(w)),
            TF.huber_loss(xt, torch.tensor(x * 0.5), r, 0.7, torch.tensor(w)),
        )
        close(la, lt, 1e-5)
        assert _graph(la) == _graph(lt)
        la.sum().backward()
        lt.sum().backward()
        close(xa.grad, xt.grad, 1e-5)


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="needs PyTorch")
def test_bce_log_clamp_and_edges():
    x = np.array([0.0, 1.0, 1.0, 0.0, 0.5], dtype=np.float32)
    y = np.array([0.0, 1.0, 0.0, 1.0, 0.3], dtype=np.float32)
    xa, xt = both(x)
    la, lt = (
        F.binary_cross_entropy(xa, al.tensor(y), reduction="none"),
        TF.binary_cross_entropy(xt, torch.tensor(y), reduction="none"),
    )
    close(la, lt)
    la.sum().backward()
    lt.sum().backward()
    close(xa.grad, xt.grad, 1e-3)


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="needs PyTorch")
def test_loss_errors():
    x = np.full((3, 4), 0.5, dtype=np.float32)

    def pair(name_a, name_t, *arrays, **kw):
        return (
            lambda: name_a(*[al.tensor(a) for a in arrays], **kw),
            lambda: name_t(*[torch.tensor(a) for a in arrays], **kw),
        )

    same_error(*pair(F.binary_cross_entropy, TF.binary_cross_entropy, x * 3, x))
    same_error(*pair(F.binary_cross_entropy, TF.binary_cross_entropy, x, x[0]))
    same_error(*pair(F.binary_cross_entropy, TF.binary_cross_entropy, x, x, reduction="foo"))
    same_error(*pair(F.binary_cross_entropy, TF.binary_cross_entropy, x, x.astype(np.float64)))
    same_error(*pair(F.binary_cross_entropy, TF.binary_cross_entropy, x, x, x[:, 0][:3]))
    same_error(
        lambda: F.binary_cross_entropy(al.tensor(x), al.tensor(x), al.ones(4, requires_grad=True)),
        lambda: TF.binary_cross_entropy(torch.tensor(x), torch.tensor(x), torch.ones(4, requires_grad=True)),
    )
    same_error(*pair(F.binary_cross_entropy_with_logits, TF.binary_cross_entropy_with_logits, x, x[0]))
    same_error(
        *pair(F.binary_cross_entropy_with_logits, TF.binary_cross_entropy_with_logits, x, x, reduction="foo")
    )
    same_error(
        lambda: F.binary_cross_entropy_with_logits(al.tensor(x), al.tensor(x), pos_weight=al.ones(3)),
        lambda: TF.binary_cross_entropy_with_logits(
            torch.tensor(x), torch.tensor(x), pos_weight=torch.ones(3)
        ),
    )
    same_error(
        lambda: F.binary_cross_entropy_with_logits(al.tensor(x), al.tensor(x), weight=al.ones(3)),
        lambda: TF.binary_cross_entropy_with_logits(torch.tensor(x), torch.tensor(x), weight=torch.ones(3)),
    )
    same_error(
        lambda: F.binary_cross_entropy_with_logits(
            al.tensor(x), al.tensor(x), pos_weight=al.ones(4, requires_grad=True)
        ),
        lambda: TF.binary_cross_entropy_with_logits(
            torch.tensor(x), torch.tensor(x), pos_weight=torch.ones(4, requires_grad=True)
        ),
    )
    same_error(*pair(F.smooth_l1_loss, TF.smooth_l1_loss, x, x, beta=-1.0))
    same_error(*pair(F.smooth_l1_loss, TF.smooth_l1_loss, x, x, reduction="foo"))
    same_error(*pair(F.huber_loss, TF.huber_loss, x, x, delta=0.0))
    same_error(*pair(F.huber_loss, TF.huber_loss, x, x, reduction="foo"))
    same_error(
        lambda: F.huber_loss(al.tensor(x), al.tensor(x), weight=al.tensor(x[0])),
        lambda: TF.huber_loss(torch.tensor(x), torch.tensor(x), weight=torch.tensor(x[0])),
    )
    same_error(*pair(F.kl_div, TF.kl_div, x, x, reduction="foo"))
    with pytest.warns(UserWarning, match="'batchmean' divides only by the batch size"):
        F.kl_div(al.tensor(x), al.tensor(x))


# ---------------------------------------------------------------------------- cosine_similarity, normalize
@pytest.mark.parametrize(
    "shape1,shape2,dim", [((3, 4), (3, 4), 1), ((3, 4), (3, 4), 0), ((2, 3, 4), (3, 4), -1), ((5,), (5,), 0)]
)
def test_cosine_similarity_gradcheck(shape1, shape2, dim):
    a, b = d64(rng(35).standard_normal(shape1)), d64(rng(36).standard_normal(shape2))
    assert gradcheck(lambda x, y: F.cosine_similarity(x, y, dim), (a, b))
    assert gradgradcheck(lambda x, y: F.cosine_similarity(x, y, dim), (a, b))


@pytest.mark.parametrize("shape,p,dim", [((3, 4), 2, 1), ((3, 4), 1, 0), ((2, 3, 4), 3, -1), ((5,), 2, 0)])
def test_normalize_gradcheck(shape, p, dim):
    a = d64(rng(37).standard_normal(shape))
    assert gradcheck(lambda x: F.normalize(x, p, dim), (a,))
    assert gradgradcheck(lambda x: F.normalize(x, p, dim), (a,))


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
        assert _graph(ya) == _graph(yt)
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
        assert _graph(ya) == _graph(yt)
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


# ---------------------------------------------------------------------------- pad
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
    assert name(ya) == name(yt) == "ConstantPadNdBackward0"
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


# ---------------------------------------------------------------------------- Unflatten, ParameterList
@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="needs PyTorch")
def test_unflatten_matches_torch():
    arr = rng(44).standard_normal((3, 4, 6)).astype(np.float32)
    for dim, sizes in [(1, (2, 2)), (-1, (3, -1)), (2, [6]), (0, (1, 3, 1)), (1, [2, 2])]:
        ma, mt = nn.Unflatten(dim, sizes), torch.nn.Unflatten(dim, sizes)
        assert repr(ma) == repr(mt)
        a, t = both(arr)
        ya, yt = ma(a), mt(t)
        assert tuple(ya.shape) == tuple(yt.shape)
        close(ya, yt, 0)
        assert name(ya) == name(yt) == "ViewBackward0"
        ya.sum().backward()
        assert a.grad.shape == a.shape
    x = np.ones((3, 4), dtype=np.float32)
    same_error(
        lambda: nn.Unflatten(1, (3, 2))(al.tensor(x)), lambda: torch.nn.Unflatten(1, (3, 2))(torch.tensor(x))
    )
    same_error(lambda: nn.Unflatten(1, 2), lambda: torch.nn.Unflatten(1, 2))
    same_error(lambda: nn.Unflatten(1, (2.0, 2)), lambda: torch.nn.Unflatten(1, (2.0, 2)))
    same_error(
        lambda: nn.Unflatten(2, (2, 2))(al.tensor(x)), lambda: torch.nn.Unflatten(2, (2, 2))(torch.tensor(x))
    )


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="needs PyTorch")
def test_parameter_list_matches_torch():
    arrs = [np.ones((2, 3), dtype=np.float32), np.zeros(4, dtype=np.float64)]
    la = nn.ParameterList([nn.Parameter(al.tensor(arrs[0])), al.tensor(arrs[1])])
    lt = torch.nn.ParameterList([torch.nn.Parameter(torch.tensor(arrs[0])), torch.tensor(arrs[1])])
    assert repr(la) == repr(lt)
    assert repr(nn.ParameterList()) == repr(torch.nn.ParameterList())
    assert repr(nn.ParameterList([al.ones(2)])) == repr(torch.nn.ParameterList([torch.ones(2)]))
    assert len(la) == len(lt) == 2
    assert all(isinstance(p, nn.Parameter) for p in la)
    assert list(la.state_dict()) == list(lt.state_dict())
    assert [n for n, _ in la.named_parameters()] == [n for n, _ in lt.named_parameters()]
    la.append(al.ones(1))
    lt.append(torch.ones(1))
    la.extend([al.ones(2)])
    lt.extend([torch.ones(2)])
    la += [al.ones(3)]
    lt += [torch.ones(3)]
    assert repr(la) == repr(lt)
    assert repr(la[1:4]) == repr(lt[1:4])
    assert la[-1].shape == (3,)
    la[0] = al.zeros(5)
    lt[0] = torch.zeros(5)
    assert repr(la) == repr(lt)
    same_error(lambda: la[9], lambda: lt[9])
    same_error(lambda: la.extend(al.ones(2)), lambda: lt.extend(torch.ones(2)))
    same_error(lambda: la(), lambda: lt())
    model_a = nn.Module()
    model_a.ps = nn.ParameterList([al.ones(2)])
    model_t = torch.nn.Module()
    model_t.ps = torch.nn.ParameterList([torch.ones(2)])
    assert list(model_a.state_dict()) == list(model_t.state_dict())
    assert repr(model_a) == repr(model_t)
    params = list(model_a.parameters())
    assert len(params) == 1 and params[0] is model_a.ps[0]


def test_parameter_list_trains():
    al.manual_seed(0)
    ps = nn.ParameterList([al.randn(3), al.randn(3)])
    loss = (ps[0] * ps[1]).sum()
    loss.backward()
    np.testing.assert_allclose(ps[0].grad.numpy(), ps[1].detach().numpy())


# ---------------------------------------------------------------------------- a small model end to end
@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="needs PyTorch")
def test_small_transformerish_model_matches_torch():
    def build(lib):
        m = lib.nn
        lib.manual_seed(3)
        return m.Sequential(
            m.Embedding(11, 6, padding_idx=0),
            m.LayerNorm(6),
            m.Linear(6, 8),
            m.GELU("tanh"),
            m.Dropout(0.0),
            m.Linear(8, 1),
            m.Flatten(0),
        )

    ma, mt = build(al), build(torch)
    assert repr(ma) == repr(mt)
    for (ka, va), (kt, vt) in zip(ma.state_dict().items(), mt.state_dict().items()):
        assert ka == kt
        np.testing.assert_allclose(va.numpy(), vt.numpy(), rtol=2.5e-7, atol=0)  # one ulp: see above
    idx = rng(45).integers(0, 11, (4, 5))
    y = _probs((4, 5), 46).astype(np.float32).reshape(-1)
    la = nn.BCEWithLogitsLoss()(ma(al.tensor(idx)), al.tensor(y))
    lt = torch.nn.BCEWithLogitsLoss()(mt(torch.tensor(idx)), torch.tensor(y))
    close(la, lt, 1e-5)
    la.backward()
    lt.backward()
    for (ka, pa), (kt, pt) in zip(ma.named_parameters(), mt.named_parameters()):
        assert ka == kt
        close(pa.grad, pt.grad, 1e-4)
