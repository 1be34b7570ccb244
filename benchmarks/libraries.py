"""The implementations the engine benchmarks compare, each behind the same small interface.

Keys: ``numpy`` (the maths written out by hand, gradients derived by hand: the floor of any
implementation), ``floor`` (:mod:`benchmarks.minimal_autograd`, the floor of autograd_lab's design),
``autograd_lab``, ``torch``, and the optional oracles ``mygrad``, ``jax`` (``jit``) and ``autograd``
(HIPS autograd), used where installed.

For each: :func:`mlp_step` (one SGD step of an MLP from the same initial weights, returning the
loss), and for those that record a graph op by op (``RECORDING``) a :class:`Recorder`: leaves,
``Recorder.chain`` (``y = y * c`` n times) and the check of the chain's gradient.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

BATCH, D_IN, HIDDEN, CLASSES = 64, 64, 128, 10
LR = 0.1
MLP = f"MLP {D_IN}-{HIDDEN}-{CLASSES} SGD step, batch {BATCH}"
FACTOR = 1.0000001  # the chain's multiplier: x.grad = FACTOR**n, checked

ALL = ("numpy", "floor", "autograd_lab", "torch", "mygrad", "jax", "autograd")
RECORDING = ("floor", "autograd_lab", "torch", "mygrad")  # the ones that record op by op
_MODULE = {"numpy": "numpy", "floor": "numpy", "autograd_lab": "autograd_lab", "torch": "torch",
           "mygrad": "mygrad", "jax": "jax", "autograd": "autograd"}


def installed(keys: tuple[str, ...] = ALL) -> tuple[str, ...]:
    return tuple(k for k in keys if importlib.util.find_spec(_MODULE[k]) is not None)


def missing(keys: tuple[str, ...] = ALL) -> tuple[str, ...]:
    return tuple(k for k in keys if k not in installed(keys))


def label(key: str) -> str:
    """How a row names the implementation (with its version, read without importing it)."""
    from importlib.metadata import PackageNotFoundError, version

    if key == "numpy":
        return "hand NumPy"
    if key == "floor":
        lines = len(Path(__file__).with_name("minimal_autograd.py").read_text().splitlines())
        return f"a {lines}-line NumPy autograd (the design's floor)"
    if key == "autograd_lab":
        return "autograd_lab"
    name = {"torch": "PyTorch", "mygrad": "mygrad", "jax": "JAX", "autograd": "HIPS autograd"}[key]
    try:
        v = version(key).split("+")[0]
    except PackageNotFoundError:
        v = "?"
    return f"{name} {v}" + (" jit" if key == "jax" else ", 1 thread" if key == "torch" else "")


def mlp_data(seed: int = 0) -> dict[str, np.ndarray]:
    """Inputs, labels and initial weights (float32), the same for every implementation."""
    rng = np.random.default_rng(seed)
    return {
        "x": rng.standard_normal((BATCH, D_IN)).astype(np.float32),
        "y": rng.integers(0, CLASSES, BATCH),
        "W1": (rng.standard_normal((D_IN, HIDDEN)) / np.sqrt(D_IN)).astype(np.float32),
        "b1": np.zeros(HIDDEN, dtype=np.float32),
        "W2": (rng.standard_normal((HIDDEN, CLASSES)) / np.sqrt(HIDDEN)).astype(np.float32),
        "b2": np.zeros(CLASSES, dtype=np.float32),
    }


PARAMS = ("W1", "b1", "W2", "b2")


def mlp_step(key: str) -> Callable[[], float]:
    """A fresh model from :func:`mlp_data`; each call is one step (forward: linear, ReLU, linear,
    mean cross-entropy of log-softmax; backward; ``p -= LR * grad``) and returns the loss before it."""
    return _STEPS[key](mlp_data())


def _numpy_step(d: dict) -> Callable[[], float]:
    x, y = d["x"], d["y"]
    p = {k: d[k].copy() for k in PARAMS}
    onehot = np.eye(CLASSES, dtype=np.float32)[y]

    def step() -> float:
        pre = x @ p["W1"] + p["b1"]
        h = np.maximum(pre, 0)
        logits = h @ p["W2"] + p["b2"]
        shifted = logits - logits.max(axis=1, keepdims=True)
        log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
        loss = -(log_probs * onehot).sum() / BATCH
        g_logits = (np.exp(log_probs) - onehot) / BATCH  # dL/dlogits = (softmax - onehot) / batch
        g_pre = (g_logits @ p["W2"].T) * (pre > 0)
        grads = {"W2": h.T @ g_logits, "b2": g_logits.sum(axis=0), "W1": x.T @ g_pre, "b1": g_pre.sum(axis=0)}
        for k, g in grads.items():
            p[k] -= LR * g
        return float(loss)

    return step


def _torch_like_step(T: Any, d: dict) -> Callable[[], float]:
    """The step written once for autograd_lab and PyTorch (the same API)."""
    x, y = T.tensor(d["x"]), T.tensor(d["y"])
    params = {k: T.tensor(d[k], requires_grad=True) for k in PARAMS}
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

    return step


def _autograd_lab_step(d: dict) -> Callable[[], float]:
    import autograd_lab

    return _torch_like_step(autograd_lab, d)


def _torch_step(d: dict) -> Callable[[], float]:
    import torch

    torch.set_num_threads(1)
    return _torch_like_step(torch, d)


def _floor_step(d: dict) -> Callable[[], float]:
    from .minimal_autograd import Tensor

    x, y = Tensor(d["x"]), d["y"]
    params = [Tensor(d[k].copy(), requires_grad=True) for k in PARAMS]
    rows = np.arange(BATCH)

    def step() -> float:
        W1, b1, W2, b2 = params
        logits = (x @ W1 + b1).relu() @ W2 + b2
        loss = -logits.log_softmax(1)[rows, y].mean()
        loss.backward()
        for p in params:
            p.data -= LR * p.grad
            p.grad = None
        return float(loss.data)

    return step


def _mygrad_step(d: dict) -> Callable[[], float]:
    import mygrad as mg
    from mygrad.nnet.activations import logsoftmax, relu

    x, y = d["x"], d["y"]
    params = [mg.tensor(d[k].copy()) for k in PARAMS]
    rows = np.arange(BATCH)

    def step() -> float:
        W1, b1, W2, b2 = params
        logits = mg.matmul(relu(mg.matmul(x, W1) + b1), W2) + b2
        loss = -logsoftmax(logits, axis=1)[rows, y].mean()
        loss.backward()
        for p in params:
            p.data -= LR * p.grad
        return float(loss.item())

    return step


def _jax_step(d: dict) -> Callable[[], float]:
    import jax
    import jax.numpy as jnp

    x, y = jnp.asarray(d["x"]), jnp.asarray(d["y"])
    rows = jnp.arange(BATCH)

    def loss_fn(params: tuple) -> Any:
        W1, b1, W2, b2 = params
        logits = jnp.maximum(x @ W1 + b1, 0) @ W2 + b2
        return -jax.nn.log_softmax(logits, axis=1)[rows, y].mean()

    @jax.jit
    def update(params: tuple) -> tuple:
        loss, grads = jax.value_and_grad(loss_fn)(params)
        return loss, tuple(p - LR * g for p, g in zip(params, grads))

    state = {"params": tuple(jnp.asarray(d[k]) for k in PARAMS)}

    def step() -> float:
        loss, state["params"] = update(state["params"])
        return float(loss)

    return step


def _hips_step(d: dict) -> Callable[[], float]:
    import autograd.numpy as anp
    from autograd import value_and_grad

    x, y = d["x"], d["y"]
    rows = np.arange(BATCH)

    def loss_fn(params: list) -> Any:
        W1, b1, W2, b2 = params
        logits = anp.dot(anp.maximum(anp.dot(x, W1) + b1, 0), W2) + b2
        shifted = logits - anp.max(logits, axis=1, keepdims=True)
        log_probs = shifted - anp.log(anp.sum(anp.exp(shifted), axis=1, keepdims=True))
        return -anp.mean(log_probs[rows, y])

    grad_fn = value_and_grad(loss_fn)
    params = [d[k].copy() for k in PARAMS]

    def step() -> float:
        loss, grads = grad_fn(params)
        for p, g in zip(params, grads):
            p -= LR * g
        return float(loss)

    return step


_STEPS: dict[str, Callable[[dict], Callable[[], float]]] = {
    "numpy": _numpy_step, "floor": _floor_step, "autograd_lab": _autograd_lab_step, "torch": _torch_step,
    "mygrad": _mygrad_step, "jax": _jax_step, "autograd": _hips_step,
}


class Recorder:
    """One library's way to make a leaf, record ``a * b`` and ``y * c``, run backward, read a grad."""

    def __init__(self, key: str) -> None:
        self.key = key
        if key == "floor":
            from .minimal_autograd import Tensor

            self.leaf = lambda a: Tensor(a, requires_grad=True)
            self.grad = lambda t: t.grad
        elif key in ("autograd_lab", "torch"):
            T = importlib.import_module(key)
            if key == "torch":
                T.set_num_threads(1)
            self.leaf = lambda a: T.tensor(a, requires_grad=True)
            self.grad = lambda t: t.grad.numpy()
        elif key == "mygrad":
            import mygrad as mg

            self.leaf = lambda a: mg.tensor(a)
            self.grad = lambda t: t.grad
        else:
            raise ValueError(f"{key} does not record a graph op by op")

    def chain(self, n: int) -> tuple[Any, Any]:
        """(leaf x, y = x * FACTOR**n built by n recorded scalar multiplications), float64."""
        x = self.leaf(np.array(1.0))
        y = x
        for _ in range(n):
            y = y * FACTOR
        return x, y

    def check_chain_grad(self, x: Any, n: int) -> None:
        grad, expected = float(self.grad(x)), FACTOR**n
        if abs(grad - expected) > 1e-9 * expected:
            raise AssertionError(f"{self.key}: chain of {n} gives grad {grad}, expected {expected}")
