"""utils/checkpoint.py: both variants give the plain gradients, keep less, recompute once, keep the
random state, and read as PyTorch's (node names, warnings, errors); compared with PyTorch where present."""

from __future__ import annotations

import tracemalloc
import warnings

import numpy as np
import pytest

import autograd_lab as torch
from autograd_lab.utils.checkpoint import CheckpointError, checkpoint, checkpoint_sequential

VARIANTS = [True, False]


def _block(lib, seed=0, dropout=False):
    lib.manual_seed(seed)
    l1, l2 = lib.nn.Linear(4, 8), lib.nn.Linear(8, 3)
    drop = lib.nn.Dropout(0.5)

    def seg(h):
        h = l1(h).tanh()
        return l2(drop(h) if dropout else h).sigmoid()

    x = lib.tensor(np.linspace(-1, 1, 8).reshape(2, 4), dtype=lib.float32, requires_grad=True)
    return seg, x, (x, l1.weight, l1.bias, l2.weight, l2.bias)


@pytest.mark.parametrize("reentrant", VARIANTS)
@pytest.mark.parametrize("dropout", [False, True])
def test_checkpoint_gives_the_gradients_of_the_plain_forward(reentrant, dropout):
    seg, x, params = _block(torch, dropout=dropout)
    torch.manual_seed(5)
    (seg(x) ** 2).sum().backward()
    plain = [p.grad.numpy().copy() for p in params]
    for p in params:
        p.grad = None
    torch.manual_seed(5)
    out = checkpoint(seg, x, use_reentrant=reentrant)
    torch.randn(10)             # the random state moves on before backward: recomputing keeps its own
    (out ** 2).sum().backward()
    for p, g in zip(params, plain):
        np.testing.assert_allclose(p.grad.numpy(), g, rtol=1e-6, atol=1e-7)
    assert out.grad_fn.name() == ("CheckpointFunctionBackward" if reentrant else "SigmoidBackward0")


@pytest.mark.parametrize("reentrant", VARIANTS)
def test_the_function_runs_twice_and_the_segment_keeps_only_its_inputs(reentrant):
    calls = []
    torch.manual_seed(0)
    ws = [(torch.randn(128, 128) * 0.05).requires_grad_() for _ in range(8)]

    def chain(h):
        calls.append(torch.is_grad_enabled())
        for w in ws:
            h = (h @ w).tanh()
        return h

    def held_after_forward(use):
        x = torch.randn(128, 128, requires_grad=True)
        tracemalloc.start()
        start = tracemalloc.get_traced_memory()[0]
        out = checkpoint(chain, x, use_reentrant=reentrant) if use else chain(x)
        held = tracemalloc.get_traced_memory()[0] - start
        tracemalloc.stop()
        return held, out

    plain, _ = held_after_forward(False)
    calls.clear()
    kept, out = held_after_forward(True)
    out.sum().backward()
    assert plain > 8 * 128 * 128 * 4, "8 layers save at least 8 activations"
    assert kept < plain / 3, f"checkpointed: {kept} bytes held after forward, plain: {plain}"
    assert calls == ([False, True] if reentrant else [True, True]), "once forward, once in backward"
    assert all(w.grad is not None for w in ws)


def test_non_reentrant_works_with_autograd_grad_keywords_and_inputs_that_need_no_grad():
    seg, x, params = _block(torch)
    plain = torch.autograd.grad((seg(x) ** 2).sum(), params[1:])
    x2 = x.detach()                                      # no input requires grad: parameters still do
    got = torch.autograd.grad((checkpoint(seg, x2, use_reentrant=False) ** 2).sum(), params[1:])
    for g, e in zip(got, plain):
        np.testing.assert_allclose(g.numpy(), e.numpy(), rtol=1e-6)
    out = checkpoint(lambda a, *, scale: a * scale, x, scale=3.0, use_reentrant=False)
    out.sum().backward()
    assert x.grad.tolist() == [[3.0] * 4] * 2


def test_warnings_and_errors_read_as_pytorchs():
    seg, x, _ = _block(torch)
    with pytest.warns(UserWarning, match="torch.utils.checkpoint: the use_reentrant parameter should be"):
        out = checkpoint(seg, x)
    assert out.grad_fn.name() == "CheckpointFunctionBackward"
    with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True. Gradients will be"):
        out = checkpoint(lambda t: t * 2, torch.ones(2), use_reentrant=True)
    with pytest.raises(ValueError, match="Unexpected keyword arguments: scale"):
        checkpoint(lambda a, scale: a * scale, x, scale=2.0, use_reentrant=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = checkpoint(lambda t: t.detach() * 2, x, use_reentrant=True)
    with pytest.raises(RuntimeError, match="none of output has requires_grad=True, this checkpoint"):
        out.sum().backward()
    out = checkpoint(seg, x, use_reentrant=True)
    out.sum().backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        out.sum().backward()


def test_a_recomputation_that_differs_raises_checkpoint_error():
    sizes = iter([3, 4])

    def changing(t):
        return (t[: next(sizes)] * 2).exp()

    out = checkpoint(changing, torch.ones(5, requires_grad=True), use_reentrant=False)
    with pytest.raises(CheckpointError, match="Recomputed values for the following tensors have different"):
        out.sum().backward()


@pytest.mark.parametrize("reentrant", VARIANTS)
def test_checkpoint_sequential_equals_the_plain_model(reentrant):
    torch.manual_seed(0)
    model = torch.nn.Sequential(*[m for _ in range(4) for m in (torch.nn.Linear(6, 6), torch.nn.Tanh())])
    x = torch.randn(3, 6, requires_grad=True)
    model(x).sum().backward()
    plain = [p.grad.numpy().copy() for p in model.parameters()] + [x.grad.numpy().copy()]
    model.zero_grad()
    x.grad = None
    checkpoint_sequential(model, 2, x, use_reentrant=reentrant).sum().backward()
    for g, e in zip([p.grad.numpy() for p in model.parameters()] + [x.grad.numpy()], plain):
        np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-7)


@pytest.mark.torch
@pytest.mark.parametrize("reentrant", [True, False, None])
def test_against_pytorch(reentrant):
    T = pytest.importorskip("torch")
    import torch.utils.checkpoint  # noqa: F401  (PyTorch loads it lazily)

    results = []
    for lib in (T, torch):
        seg, x, params = _block(lib, dropout=True)
        lib.manual_seed(3)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = lib.utils.checkpoint.checkpoint(seg, x, use_reentrant=reentrant)
        (out ** 2).sum().backward()
        results.append((out.grad_fn.name(), [str(w.message) for w in caught],
                        [p.grad.numpy().copy() for p in params]))
    (name_t, warn_t, grads_t), (name_a, warn_a, grads_a) = results
    assert name_a == name_t and warn_a == warn_t
    for a, t in zip(grads_a, grads_t):
        np.testing.assert_allclose(a, t, rtol=1e-5, atol=1e-6)
