"""The training loop end to end: digits accuracy, gradient accumulation, flat memory over 1000 steps;
a small transformer-like model against PyTorch."""

from __future__ import annotations

import contextlib
import gc
import weakref

import numpy as np
import pytest
from helpers import close, probabilities, rng, torch

import autograd_lab as al
from autograd_lab import nn, optim
from autograd_lab.data import DataLoader, TensorDataset, load_digits
from autograd_lab.function import Node
from autograd_lab.nn import functional as F


def one_blas_thread():
    """Small matrices run faster on one BLAS thread, and far faster when the cores are busy."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return contextlib.nullcontext()
    return threadpool_limits(limits=1)


def accuracy(model: nn.Module, x: al.Tensor, y: al.Tensor) -> float:
    model.eval()
    with al.no_grad():
        out = model(x)
    assert out.grad_fn is None and not out.requires_grad, "evaluation under no_grad builds no graph"
    return (out.argmax(1) == y).float().mean().item()


def fit(model: nn.Module, opt: optim.Optimizer, epochs: int, batch_size: int, seed: int) -> list[float]:
    """The five steps, per batch, per epoch: zero_grad, forward, loss, backward, step."""
    x, y = load_digits("train")
    loader = DataLoader(TensorDataset(x, y), batch_size=batch_size, shuffle=True,
                        generator=al.Generator().manual_seed(seed))
    loss_fn = nn.CrossEntropyLoss()
    losses = []
    for _ in range(epochs):
        model.train()
        for xb, yb in loader:
            opt.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            opt.step()
            losses.append(loss.item())
    return losses


@pytest.mark.slow
def test_softmax_regression_reaches_93_percent_on_digits():
    al.manual_seed(0)
    model = nn.Linear(64, 10)
    with one_blas_thread():
        opt = optim.SGD(model.parameters(), lr=0.5, momentum=0.9)
        losses = fit(model, opt, epochs=20, batch_size=64, seed=0)
        acc = accuracy(model, *load_digits("test"))
    assert np.mean(losses[-20:]) < np.mean(losses[:20]) / 5, "the loss curve goes down"
    assert acc >= 0.93, f"softmax regression (Linear 64->10) test accuracy {acc:.3f}, expected >= 0.93"


@pytest.mark.slow
def test_mlp_reaches_96_percent_on_digits():
    al.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    with one_blas_thread():
        fit(model, optim.Adam(model.parameters(), lr=3e-3), epochs=12, batch_size=64, seed=0)
        acc = accuracy(model, *load_digits("test"))
    assert acc >= 0.96, f"MLP 64-128-10 test accuracy {acc:.3f}, expected >= 0.96"


def test_mlp_with_batchnorm_and_dropout_trains_and_evaluates():
    al.manual_seed(1)
    model = nn.Sequential(nn.Linear(64, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Dropout(0.2),
                          nn.Linear(64, 10))
    with one_blas_thread():
        fit(model, optim.AdamW(model.parameters(), lr=3e-3), epochs=5, batch_size=64, seed=1)
        acc = accuracy(model, *load_digits("test"))
    assert acc >= 0.9
    assert model[1].num_batches_tracked.item() == 5 * 23


def _grads(model):
    return [p.grad.numpy().copy() for p in model.parameters()]


def test_gradient_accumulation_over_4_micro_batches_equals_the_full_batch():
    x, y = load_digits("train")
    x, y = x[:64].double(), y[:64]
    al.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 32), nn.Tanh(), nn.Linear(32, 10)).double()

    model.zero_grad()
    F.cross_entropy(model(x), y).backward()
    full = _grads(model)

    model.zero_grad()
    for xb, yb in zip(x.chunk(4), y.chunk(4)):
        (F.cross_entropy(model(xb), yb) / 4).backward()  # each micro-batch mean is 1/4 of the batch mean
    accumulated = _grads(model)
    for a, b in zip(accumulated, full):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15)

    model.zero_grad()
    F.cross_entropy(model(x), y, reduction="sum").backward()
    full_sum = _grads(model)
    model.zero_grad()
    for xb, yb in zip(x.split(20), y.split(20)):  # uneven pieces: 20, 20, 20, 4
        F.cross_entropy(model(xb), yb, reduction="sum").backward()
    for a, b in zip(_grads(model), full_sum):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-13)


def test_an_accumulated_step_equals_a_large_batch_step():
    x, y = load_digits("train")
    x, y = x[:48].double(), y[:48]
    al.manual_seed(2)
    big = nn.Linear(64, 10).double()
    small = nn.Linear(64, 10).double()
    small.load_state_dict(big.state_dict())
    opt_big = optim.SGD(big.parameters(), lr=0.1, momentum=0.9)
    opt_small = optim.SGD(small.parameters(), lr=0.1, momentum=0.9)
    for _ in range(3):
        opt_big.zero_grad()
        F.cross_entropy(big(x), y).backward()
        opt_big.step()
        opt_small.zero_grad()
        for xb, yb in zip(x.chunk(4), y.chunk(4)):
            (F.cross_entropy(small(xb), yb) / 4).backward()
        opt_small.step()
    for a, b in zip(big.parameters(), small.parameters()):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12, atol=1e-14)


def _live_graph() -> tuple[int, int]:
    """How many graph nodes are alive, and how many bytes all live tensors hold."""
    objects = gc.get_objects()  # type() not isinstance(): some modules' objects warn when asked for __class__
    nodes = sum(1 for o in objects if issubclass(type(o), Node))
    tensor_bytes = sum(o._data.nbytes for o in objects if issubclass(type(o), al.Tensor))
    return nodes, tensor_bytes


def _train_steps(steps: int, keep_losses: bool, probe_at: tuple[int, ...],
                 retain_graph: bool = False) -> tuple[dict, list, list]:
    """Train a small MLP for ``steps`` steps; at the probe steps count live graph nodes and tensor bytes."""
    al.manual_seed(0)
    x, y = load_digits("train")
    loader = DataLoader(TensorDataset(x, y), batch_size=32, shuffle=True,
                        generator=al.Generator().manual_seed(0))
    model = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Dropout(0.1), nn.Linear(32, 10))
    opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    history, roots, probes = [], [], {}
    step = 0
    while step < steps:
        for xb, yb in loader:
            opt.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward(retain_graph=retain_graph)
            opt.step()
            roots.append(weakref.ref(loss.grad_fn))
            history.append(loss if keep_losses else loss.item())  # keeping the tensor keeps its graph
            step += 1
            if step in probe_at:
                del loss
                probes[step] = _live_graph()
            if step == steps:
                break
    return probes, roots, history


@pytest.mark.slow
def test_memory_stays_flat_over_1000_training_steps():
    with one_blas_thread():
        probes, roots, _ = _train_steps(1000, keep_losses=False, probe_at=(100, 1000))
    (nodes_100, bytes_100), (nodes_1000, bytes_1000) = probes[100], probes[1000]
    alive = sum(r() is not None for r in roots)
    assert alive == 0, f"{alive} graphs of earlier steps are still alive; each step's graph must be freed"
    assert nodes_1000 <= nodes_100, f"live graph nodes grew from {nodes_100} to {nodes_1000}"
    assert bytes_1000 <= bytes_100, f"live tensors grew from {bytes_100} to {bytes_1000} bytes over 900 steps"


def test_keeping_loss_tensors_keeps_their_graphs_alive():
    """The check above is real: keep each loss tensor (not ``loss.item()``) and every graph survives."""
    with one_blas_thread():
        probes, roots, history = _train_steps(200, keep_losses=True, probe_at=(20, 200))
    alive = sum(r() is not None for r in roots)
    assert alive == 200
    assert probes[200][0] - probes[20][0] >= 180 * 5, "each kept loss keeps its nodes"
    del history
    assert sum(r() is not None for r in roots) == 0, "dropping the tensors frees the graphs, no gc needed"


def test_retained_graphs_keep_their_saved_activations():
    """With ``retain_graph=True`` a kept loss also keeps what its nodes saved: the tensor bytes grow."""
    with one_blas_thread():
        probes, _, history = _train_steps(100, keep_losses=True, probe_at=(10, 100), retain_graph=True)
    assert probes[100][1] - probes[10][1] > 90 * 32 * 32 * 4, "each step keeps its hidden activations"


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
    y = probabilities((4, 5), 46).astype(np.float32).reshape(-1)
    la = nn.BCEWithLogitsLoss()(ma(al.tensor(idx)), al.tensor(y))
    lt = torch.nn.BCEWithLogitsLoss()(mt(torch.tensor(idx)), torch.tensor(y))
    close(la, lt, 1e-5)
    la.backward()
    lt.backward()
    for (ka, pa), (kt, pt) in zip(ma.named_parameters(), mt.named_parameters()):
        assert ka == kt
        close(pa.grad, pt.grad, 1e-4)
