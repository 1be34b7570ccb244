"""One SGD training step of an MLP 64-128-10 at batch 64: autograd_lab against the same step
written by hand in NumPy (the same maths, gradients derived by hand) and against PyTorch on the CPU.

The step: forward (linear, ReLU, linear), softmax cross-entropy (written with autograd_lab's ops:
``log_softmax`` and indexing, so that it needs nothing from ``nn``), backward, and the update
``p -= lr * p.grad`` under ``no_grad``. float32, as in training.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from . import Row, best_time, fmt_seconds

BATCH, D_IN, HIDDEN, CLASSES = 64, 64, 128, 10
LR = 0.1
NAME = f"MLP {D_IN}-{HIDDEN}-{CLASSES} SGD step, batch {BATCH}"


def _data(seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {
        "x": rng.standard_normal((BATCH, D_IN)).astype(np.float32),
        "y": rng.integers(0, CLASSES, BATCH),
        "W1": (rng.standard_normal((D_IN, HIDDEN)) / np.sqrt(D_IN)).astype(np.float32),
        "b1": np.zeros(HIDDEN, dtype=np.float32),
        "W2": (rng.standard_normal((HIDDEN, CLASSES)) / np.sqrt(HIDDEN)).astype(np.float32),
        "b2": np.zeros(CLASSES, dtype=np.float32),
    }


def autograd_step(T) -> tuple[Callable[[], float], dict]:
    """The step written once for any module ``T`` with PyTorch's API (autograd_lab or torch)."""
    d = _data()
    x, y = T.tensor(d["x"]), T.tensor(d["y"])
    params = {k: T.tensor(d[k], requires_grad=True) for k in ("W1", "b1", "W2", "b2")}
    rows = T.arange(BATCH)

    def step() -> float:
        p = params
        h = (x @ p["W1"] + p["b1"]).relu()
        logits = h @ p["W2"] + p["b2"]
        loss = -logits.log_softmax(1)[rows, y].mean()
        loss.backward()
        with T.no_grad():
            for t in p.values():
                t -= LR * t.grad
                t.grad = None
        return loss.item()

    return step, params


def numpy_step() -> tuple[Callable[[], float], dict]:
    """The same step with the gradients written out by hand."""
    d = _data()
    x, y = d["x"], d["y"]
    p = {k: d[k].copy() for k in ("W1", "b1", "W2", "b2")}
    onehot = np.eye(CLASSES, dtype=np.float32)[y]

    def step() -> float:
        pre = x @ p["W1"] + p["b1"]
        h = np.maximum(pre, 0)
        logits = h @ p["W2"] + p["b2"]
        shifted = logits - logits.max(axis=1, keepdims=True)
        log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
        loss = -(log_probs * onehot).sum() / BATCH
        # backward: dL/dlogits = (softmax - onehot) / batch
        g_logits = (np.exp(log_probs) - onehot) / BATCH
        g_W2 = h.T @ g_logits
        g_b2 = g_logits.sum(axis=0)
        g_h = g_logits @ p["W2"].T
        g_pre = g_h * (pre > 0)
        g_W1 = x.T @ g_pre
        g_b1 = g_pre.sum(axis=0)
        for k, g in (("W1", g_W1), ("b1", g_b1), ("W2", g_W2), ("b2", g_b2)):
            p[k] -= LR * g
        return float(loss)

    return step, p


def _check_same_training(ours: dict, reference: dict, steps: int = 3) -> None:
    """Both implementations compute the same thing: equal parameters after a few steps."""
    for k in reference:
        a = ours[k].detach().numpy() if hasattr(ours[k], "detach") else ours[k]
        np.testing.assert_allclose(a, reference[k], rtol=1e-4, atol=1e-5, err_msg=k)


def run() -> list[Row]:
    import autograd_lab

    al_step, al_params = autograd_step(autograd_lab)
    np_step, np_params = numpy_step()
    for _ in range(3):
        loss_al, loss_np = al_step(), np_step()
    assert abs(loss_al - loss_np) < 1e-4, (loss_al, loss_np)
    _check_same_training(al_params, np_params)

    t_al = best_time(al_step, repeat=7, budget=0.3)
    t_np = best_time(np_step, repeat=7, budget=0.3)
    rows = [Row(NAME, "autograd_lab vs hand-written NumPy",
                f"{fmt_seconds(t_al)} vs {fmt_seconds(t_np)}: autograd_lab takes {t_al / t_np:.1f}x")]
    try:
        import torch
    except ImportError:
        rows.append(Row(NAME, "autograd_lab vs PyTorch CPU", "PyTorch not installed: not measured"))
        return rows
    threads = torch.get_num_threads()
    torch_step, _ = autograd_step(torch)
    for _ in range(3):
        torch_step()
    t_torch_default = best_time(torch_step, repeat=7, budget=0.3)
    torch.set_num_threads(1)
    try:
        t_torch_1 = best_time(torch_step, repeat=7, budget=0.3)
    finally:
        torch.set_num_threads(threads)
    rows.append(Row(NAME, f"autograd_lab vs PyTorch {torch.__version__} CPU, 1 thread",
                    f"{fmt_seconds(t_al)} vs {fmt_seconds(t_torch_1)}: autograd_lab takes "
                    f"{t_al / t_torch_1:.1f}x"))
    rows.append(Row(NAME, f"autograd_lab vs PyTorch {torch.__version__} CPU, {threads} threads (default)",
                    f"{fmt_seconds(t_al)} vs {fmt_seconds(t_torch_default)}: autograd_lab takes "
                    f"{t_al / t_torch_default:.1f}x"))
    rows.append(Row(NAME, "hand-written NumPy vs PyTorch CPU, 1 thread",
                    f"{fmt_seconds(t_np)} vs {fmt_seconds(t_torch_1)}: {t_np / t_torch_1:.1f}x"))
    return rows
