"""nn/functional/loss.py and nn/modules/loss.py: every loss against finite differences and PyTorch
(values, gradients, graphs, reductions, legacy arguments, errors)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from helpers import (
    TF,
    assert_same_double_backward,
    both,
    close,
    d64,
    graph_names,
    node_name,
    pair,
    probabilities,
    rng,
    same_error,
    torch,
)

import autograd_lab as al
from autograd_lab import nn
from autograd_lab.autograd import gradcheck, gradgradcheck
from autograd_lab.nn import functional as F


def test_mse_loss_matches_pytorch(torch):
    rng = np.random.default_rng(0)
    for reduction in ("mean", "sum", "none"):
        ax, tx = pair(torch, rng.standard_normal((4, 3)))
        ay, ty = pair(torch, rng.standard_normal((4, 3)))
        ao, to = nn.MSELoss(reduction=reduction)(ax, ay), torch.nn.MSELoss(reduction=reduction)(tx, ty)
        assert node_name(ao) == node_name(to) == "MseLossBackward0"
        close(ao, to, 1e-12)
        ao.sum().backward()
        to.sum().backward()
        close(ax.grad, tx.grad, 1e-12)
        close(ay.grad, ty.grad, 1e-12)
    ax, tx = pair(torch, rng.standard_normal((4, 3)))
    close(F.l1_loss(ax, ax.detach() * 2), torch.nn.functional.l1_loss(tx, tx.detach() * 2), 1e-12)
    assert node_name(F.l1_loss(ax, ax.detach() * 2)) == node_name(
        torch.nn.functional.l1_loss(tx, tx.detach() * 2))


def test_mse_loss_broadcast_warning_and_errors_match_pytorch(torch):
    def run(mod):
        out = []
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            loss = mod.nn.functional.mse_loss(mod.ones(3, 1), mod.zeros(3))
        out.append([str(w.message) for w in caught])
        out.append(round(float(loss), 6))
        for call in (lambda: mod.nn.functional.mse_loss(mod.ones(3, 4), mod.zeros(3, 5)),
                     lambda: mod.nn.functional.mse_loss(mod.ones(3), mod.zeros(3), reduction="bad")):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                with pytest.raises((RuntimeError, ValueError)) as info:
                    call()
            out.append((type(info.value), str(info.value)))
        return out

    assert run(al) == run(torch)


CE_CASES = [
    ({}, (6, 5)),
    ({"reduction": "sum"}, (6, 5)),
    ({"reduction": "none"}, (6, 5)),
    ({"weight": True}, (6, 5)),
    ({"weight": True, "reduction": "none"}, (6, 5)),
    ({"ignore_index": 2}, (6, 5)),
    ({"label_smoothing": 0.1}, (6, 5)),
    ({"label_smoothing": 0.2, "weight": True, "ignore_index": 2}, (6, 5)),
    ({"label_smoothing": 0.2, "reduction": "none"}, (6, 5)),
    ({}, (5,)),
    ({}, (3, 5, 2)),
    ({"reduction": "none", "weight": True}, (3, 5, 2, 2)),
]


@pytest.mark.parametrize("kwargs,shape", CE_CASES, ids=[f"{k}-{s}" for k, s in CE_CASES])
def test_cross_entropy_matches_pytorch(torch, kwargs, shape):
    rng = np.random.default_rng(0)
    logits = rng.standard_normal(shape) * 2
    target_shape = () if len(shape) == 1 else shape[:1] + shape[2:]
    target = rng.integers(0, 5, target_shape)
    ax, tx = pair(torch, logits)
    akw, tkw = dict(kwargs), dict(kwargs)
    if kwargs.get("weight"):
        w = rng.random(5) + 0.1
        akw["weight"], tkw["weight"] = al.tensor(w), torch.tensor(w)
    ao = nn.CrossEntropyLoss(**akw)(ax, al.tensor(target))
    to = torch.nn.CrossEntropyLoss(**tkw)(tx, torch.tensor(target))
    close(ao, to, 1e-12)
    ao.sum().backward()
    to.sum().backward()
    close(ax.grad, tx.grad, 1e-12)
    if not kwargs.get("label_smoothing"):
        chain_a, chain_t = [], []
        for out, chain in ((ao, chain_a), (to, chain_t)):
            node = out.grad_fn
            while node is not None:
                chain.append(type(node).__name__)
                node = node.next_functions[0][0] if node.next_functions else None
        assert chain_a == chain_t, "the graph of cross_entropy is PyTorch's: NllLoss over LogSoftmax"
        assert "LogSoftmaxBackward0" in chain_a


def test_cross_entropy_with_probabilities_matches_pytorch(torch):
    rng = np.random.default_rng(0)
    probs = rng.random((4, 3))
    probs /= probs.sum(1, keepdims=True)
    for kwargs in ({}, {"reduction": "sum"}, {"reduction": "none"}, {"label_smoothing": 0.3}):
        ax, tx = pair(torch, rng.standard_normal((4, 3)))
        ao = F.cross_entropy(ax, al.tensor(probs), **kwargs)
        to = torch.nn.functional.cross_entropy(tx, torch.tensor(probs), **kwargs)
        close(ao, to, 1e-12)
        ao.sum().backward()
        to.sum().backward()
        close(ax.grad, tx.grad, 1e-12)


def test_cross_entropy_is_stable_for_huge_logits(torch):
    logits = np.array([[1e4, -1e4, 0.0], [-5e3, 5e3, 5e3]], dtype=np.float32)
    ax, tx = pair(torch, logits)
    target = [0, 2]
    ao = F.cross_entropy(ax, al.tensor(target))
    to = torch.nn.functional.cross_entropy(tx, torch.tensor(target))
    assert np.isfinite(ao.item())
    close(ao, to, 1e-5)
    ao.backward()
    to.backward()
    assert np.all(np.isfinite(ax.grad.numpy()))
    close(ax.grad, tx.grad, 1e-6)


def test_cross_entropy_float32_training_batch_matches_pytorch(torch):
    rng = np.random.default_rng(0)
    ax, tx = pair(torch, rng.standard_normal((64, 10)).astype(np.float32))
    target = rng.integers(0, 10, 64)
    ao = F.cross_entropy(ax, al.tensor(target))
    to = torch.nn.functional.cross_entropy(tx, torch.tensor(target))
    close(ao, to, 1e-6)
    ao.backward()
    to.backward()
    close(ax.grad, tx.grad, 1e-6)
    assert ao.dtype is al.float32


CE_ERRORS = [
    ((3, 4), [1.0, 2.0, 0.0], "float"),
    ((3, 4), [1, 2, 0, 1], "long"),
    ((3, 4), [1, 2, 5], "long"),
    ((3, 4), [1, 2, -1], "long"),
    ((3, 4), [1, 2, 0], "int32"),
    ((3, 4), [[1, 2], [0, 1], [1, 1]], "long"),
    ((4,), [1, 2], "long"),
    ((2, 3, 4), [[1, 2, 0], [0, 1, 1]], "long"),
    ((3, 4), [[1, 2, 0, 0]] * 3, "long"),
]


@pytest.mark.parametrize("shape,target,kind", CE_ERRORS)
def test_cross_entropy_errors_match_pytorch(torch, shape, target, kind):
    def message(mod):
        dtype = {"float": mod.float32, "long": mod.int64, "int32": mod.int32}[kind]
        with pytest.raises((RuntimeError, ValueError, IndexError)) as info:
            mod.nn.functional.cross_entropy(mod.zeros(*shape), mod.tensor(target, dtype=dtype))
        return type(info.value), str(info.value)

    assert message(al) == message(torch)


def test_cross_entropy_other_errors_match_pytorch(torch):
    def msgs(mod):
        out = []
        x, t = mod.zeros(3, 4), mod.tensor([1, 2, 0])
        for call in (lambda: mod.nn.functional.cross_entropy(x, t, reduction="bad"),
                     lambda: mod.nn.functional.cross_entropy(x, t, label_smoothing=1.5),
                     lambda: mod.nn.functional.cross_entropy(x, t, weight=mod.ones(3))):
            with pytest.raises((RuntimeError, ValueError)) as info:
                call()
            out.append((type(info.value), str(info.value)))
        return out

    assert msgs(al) == msgs(torch)


def test_nll_loss_and_all_ignored_targets(torch):
    rng = np.random.default_rng(0)
    ax, tx = pair(torch, rng.standard_normal((4, 3)))
    target = [0, 2, 1, 1]
    ao = F.nll_loss(F.log_softmax(ax, 1), al.tensor(target))
    to = torch.nn.functional.nll_loss(torch.log_softmax(tx, 1), torch.tensor(target))
    close(ao, to, 1e-12)
    ignored = F.cross_entropy(ax, al.tensor([-100] * 4))
    assert np.isnan(ignored.item())
    assert np.isnan(torch.nn.functional.cross_entropy(tx, torch.tensor([-100] * 4)).item())


def test_losses_gradcheck_in_float64():
    x = al.randn(4, 3, dtype=al.float64, requires_grad=True)
    y = al.randn(4, 3, dtype=al.float64, requires_grad=True)
    t = al.tensor([0, 2, 1, 2])
    w = al.tensor([0.5, 1.0, 2.0], dtype=al.float64)
    assert gradcheck(lambda x, y: F.mse_loss(x, y), (x, y))
    assert gradcheck(lambda x: F.cross_entropy(x, t), (x,))
    assert gradcheck(lambda x: F.cross_entropy(x, t, weight=w, reduction="none", label_smoothing=0.1), (x,))
    assert al.autograd.gradgradcheck(lambda x: F.cross_entropy(x, t, weight=w), (x,))


def test_one_hot(torch):
    for values, classes in (([0, 2, 1], -1), ([1, 1], 4)):
        mine = F.one_hot(al.tensor(values), classes)
        theirs = torch.nn.functional.one_hot(torch.tensor(values), classes)
        assert mine.tolist() == theirs.tolist() and mine.dtype is al.int64
    for mod, bad in ((al, ([0, -2, 1], -1)), (al, ([0, 5, 1], 3))):
        with pytest.raises(RuntimeError, match="Class values must be"):
            mod.nn.functional.one_hot(mod.tensor(bad[0]), bad[1])


REDUCTIONS = ["none", "mean", "sum"]


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", [(5,), (2, 3), (2, 1, 3)])
@pytest.mark.parametrize("weighted", [False, True])
def test_bce_gradcheck(reduction, shape, weighted):
    x, y = d64(probabilities(shape, 18)), d64(probabilities(shape, 19))
    w = d64(rng(20).uniform(0.5, 2, shape[-1:]), requires_grad=False) if weighted else None

    def fn(a, b):
        return F.binary_cross_entropy(a, b, weight=w, reduction=reduction)

    assert gradcheck(fn, (x, y))
    assert gradgradcheck(fn, (x, y))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", [(5,), (2, 3), (2, 1, 3)])
@pytest.mark.parametrize("weights", ["none", "weight", "pos_weight", "both"])
def test_bce_with_logits_gradcheck(reduction, shape, weights):
    x, y = d64(rng(21).standard_normal(shape) * 3), d64(probabilities(shape, 22))
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
    x = d64(np.log(probabilities(shape, 27)))
    t = probabilities(shape, 28)
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


@pytest.mark.torch
@pytest.mark.parametrize("label,ma,mt,kind", LOSS_CASES, ids=[c[0] for c in LOSS_CASES])
@pytest.mark.parametrize("target_grad", [False, True])
def test_loss_module_matches_torch(label, ma, mt, kind, target_grad):
    shape = (3, 4)
    r = rng(29)
    if kind == "prob":
        x, y = probabilities(shape, 30), probabilities(shape, 31)
    elif kind == "logit":
        x, y = r.standard_normal(shape) * 4, probabilities(shape, 31)
    elif kind == "real":
        x, y = r.standard_normal(shape) * 2, r.standard_normal(shape)
    else:
        x = np.log(probabilities(shape, 30))
        y = np.log(probabilities(shape, 31)) if kind == "logprob-lt" else probabilities(shape, 31)
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
    assert graph_names(la) == graph_names(lt)
    one_node = node_name(lt) in (
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
        assert graph_names(la) == graph_names(lt)
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
        assert graph_names(la) == graph_names(lt)
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


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("targets", [[-100, -100], [0, -100], [2, 1]])
@pytest.mark.parametrize("weighted", [False, True])
def test_cross_entropy_ignored_targets_get_zero_gradient(reduction, targets, weighted):
    """All targets ignored: PyTorch's mean is nan (0/0) but the gradient is 0, never nan."""
    if torch is None:
        pytest.skip("PyTorch is not installed")
    arr = np.array([[1.0, 2.0, 0.5], [0.5, 0.1, 0.3]])
    w = np.array([1.0, 2.0, 0.5])
    results = []
    for lib in (al, torch):
        x = lib.tensor(arr, requires_grad=True)
        weight = lib.tensor(w) if weighted else None
        loss = lib.nn.functional.cross_entropy(x, lib.tensor(targets), weight=weight, reduction=reduction)
        node = loss.grad_fn
        meta = (len(node.next_functions), float(node._saved_total_weight), node._saved_ignore_index,
                node._saved_reduction)
        loss.sum().backward()
        results.append((loss.detach().numpy(), x.grad.numpy(), *meta))
    (lo, go, *meta_o), (lt, gt, *meta_t) = results
    np.testing.assert_allclose(lo, lt, rtol=1e-12)
    np.testing.assert_allclose(go, gt, rtol=1e-12, atol=1e-15)
    assert not np.isnan(go).any() and meta_o == meta_t


def test_nll_loss_saves_its_tensors_and_frees_them():
    if torch is None:
        pytest.skip("PyTorch is not installed")
    outcomes = []
    for lib in (al, torch):
        x = lib.tensor(np.zeros((3, 4)), requires_grad=True)
        target = lib.tensor([0, -100, 1])
        loss = lib.nn.functional.nll_loss(x, target)
        node = loss.grad_fn
        assert node._saved_self is x and node._saved_weight is None
        assert node._saved_target.tolist() == target.tolist()
        loss.backward()
        with pytest.raises(RuntimeError) as info:
            _ = node._saved_target
        outcomes.append((type(node).__name__, str(info.value)))
    assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("kwargs", [{}, dict(label_smoothing=0.1),
                                    dict(weight=[1.0, 2.0, 0.5], label_smoothing=0.2)])
@pytest.mark.parametrize("probabilities", [False, True])
def test_cross_entropy_graph_is_pytorchs(reduction, kwargs, probabilities):
    """Label smoothing and probability targets record ``MulBackward1``/``AddBackward1``/``DivBackward1``."""
    if torch is None:
        pytest.skip("PyTorch is not installed")
    graphs = []
    for lib in (al, torch):
        x = lib.tensor([[1.0, 2.0, 0.5], [0.1, 0.2, 0.3]], requires_grad=True)
        target = lib.tensor([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]]) if probabilities else lib.tensor([0, 2])
        kw = {k: lib.tensor(v) if k == "weight" else v for k, v in kwargs.items()}
        graphs.append(graph_names(lib.nn.functional.cross_entropy(x, target, reduction=reduction, **kw)))
    assert graphs[0] == graphs[1]


@pytest.mark.parametrize("loss", ["smooth_l1_loss", "huber_loss"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("cut", [1.0, 0.5])
@pytest.mark.parametrize("target_grad", [False, True])
def test_create_graph_records_smooth_l1_and_huber_derivative_nodes(loss, reduction, cut, target_grad):
    """``SmoothL1LossBackwardBackward0`` / ``HuberLossBackwardBackward0`` (edges grad_output, self,
    target; the target's gradient is the same node with the two swapped): PyTorch's graph, saved tensors
    and derivatives up to the third, at and beyond the cut."""
    if torch is None:
        pytest.skip("PyTorch is not installed")
    key = "beta" if loss == "smooth_l1_loss" else "delta"

    def f(lib, x, y):
        target = y if target_grad else y.detach()
        return getattr(lib.nn.functional, loss)(x, target, reduction=reduction, **{key: cut})

    values = [[[0.5, -2.0, 0.0], [7.0, -0.3, 1.5]], [[0.0, 0.0, 0.0], [6.0, 0.2, 0.0]]]
    assert_same_double_backward(f, values)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("target_grad", [False, True])
def test_create_graph_records_binary_cross_entropy_derivative_node(reduction, weighted, target_grad):
    """``BinaryCrossEntropyBackwardBackward0`` (edges grad_output, self, target; weight saved, no edge):
    PyTorch's graph, saved tensors and derivatives up to the third."""
    if torch is None:
        pytest.skip("PyTorch is not installed")

    def f(lib, x, y):
        target = y if target_grad else y.detach()
        weight = lib.tensor([[1.0, 2.0, 0.5]], dtype=lib.float64) if weighted else None
        return lib.nn.functional.binary_cross_entropy(x, target, weight=weight, reduction=reduction)

    values = [probabilities((2, 3), 1), probabilities((2, 3), 2)]
    assert_same_double_backward(f, values, rtol=1e-8, atol=1e-9)  # PyTorch's 1e-12 guards


@pytest.mark.parametrize("weight", [None, [0.5, 2.0]])
@pytest.mark.parametrize("target, ignore_index", [(1, -100), (1, 1), ([1, 0], -100), ([1, 1], 1)])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_nll_loss_saves_pytorchs_total_weight(torch, weight, target, ignore_index, reduction):
    """One sample (a 1-D input): total_weight is its weight (0 if ignored) even with reduction="none";
    a batch with "none": 0 (found by the random-program test)."""
    outcomes = []
    for lib in (al, torch):
        x = lib.tensor([[2.0, -3.0], [1.0, 2.0]], requires_grad=True)
        logp = x[0] if isinstance(target, int) else x
        w = None if weight is None else lib.tensor(weight)
        loss = lib.nn.functional.nll_loss(logp, lib.tensor(target), weight=w, reduction=reduction,
                                          ignore_index=ignore_index)
        outcomes.append(loss.grad_fn._saved_total_weight.item())
    assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize("shapes", [((2, 1), (3,)), ((3,), (2, 3)), ((), (2, 2)), ((2, 2), (2, 2))])
def test_mse_loss_saves_the_broadcast_inputs(torch, shapes):
    """PyTorch broadcasts input and target before the loss: its node keeps both at the common shape."""
    outcomes = []
    for lib in (al, torch):
        x, t = lib.ones(shapes[0], requires_grad=True), lib.full(shapes[1], 0.5)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            node = lib.nn.functional.mse_loss(x, t).grad_fn
        outcomes.append([(tuple(s.shape), s.tolist()) for s in (node._saved_self, node._saved_target)])
    assert outcomes[0] == outcomes[1]


def test_mse_loss_of_nothing_has_an_empty_gradient_twice(torch):
    """The mean over no elements: backward and double backward give empty gradients (no division by 0)."""
    outcomes = []
    for lib in (al, torch):
        x = lib.zeros(0, 3, dtype=lib.float64, requires_grad=True)
        loss = lib.nn.functional.mse_loss(x, x.detach() + 1)
        (g,) = lib.autograd.grad(loss, [x], create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), [x])
        outcomes.append((tuple(g.shape), tuple(gg.shape)))
    assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize("loss", ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"])
@pytest.mark.parametrize("shapes", [((3,), (3,)), ((1, 2), (3, 2, 2)), ((3, 3), ()), ((), (2,))])
def test_regression_losses_expand_first_as_pytorch(loss, shapes):
    """The operands broadcast first (ExpandBackward0 only where a shape changes; the expanded operands
    decide the dtype: a float64 0-d target makes a float64 loss), with PyTorch's warning."""
    if torch is None:
        pytest.skip("PyTorch is not installed")
    outcomes = []
    for lib in (al, torch):
        x = lib.ones(shapes[0], requires_grad=True)
        # (huber_loss of mixed dtypes fails in PyTorch's backward: one dtype there)
        y = lib.full(shapes[1], 0.5, dtype=lib.float32 if loss == "huber_loss" else lib.float64,
                     requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = getattr(lib.nn.functional, loss)(x, y)
        out.backward()
        outcomes.append((graph_names(out), str(out.dtype), round(out.item(), 6), x.grad.tolist(),
                         y.grad.tolist(), [str(w.message) for w in caught]))
    assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize("loss", ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
                                  "binary_cross_entropy", "binary_cross_entropy_with_logits"])
def test_losses_of_a_number_raise_pytorchs_attribute_error(loss):
    """PyTorch compares ``target.size()`` with ``input.size()`` first: a Python number has none."""
    if torch is None:
        pytest.skip("PyTorch is not installed")
    for lib in (al, torch):
        f, x = getattr(lib.nn.functional, loss), lib.full((3,), 0.5, requires_grad=True)
        for args in ((x, 0.2), (0.2, x)):
            with pytest.raises(AttributeError, match="'float' object has no attribute 'size'"):
                f(*args)
