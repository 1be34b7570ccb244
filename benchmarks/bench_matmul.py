"""A chain of 1024x1024 matrix products, forward and backward, against raw NumPy doing the same
products. With big matrices the work is in the products (BLAS), so autograd's bookkeeping should
cost next to nothing: the ratio should be close to 1.

Forward: ``y = x @ W1 @ W2 @ W3 @ W4``, loss ``y.sum()``. Backward needs, per product ``A @ W``,
``dW = A^T G`` and (except for the input x, which does not require grad) ``dA = G W^T``: NumPy does
exactly these 4 + 4 + 3 = 11 products.
"""

from __future__ import annotations

import numpy as np

from . import Row, best_time, fmt_seconds

N, DEPTH = 1024, 4
NAME = f"chain of {DEPTH} matmuls {N}x{N}, forward + backward"


def _arrays() -> tuple[np.ndarray, list[np.ndarray]]:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((N, N)).astype(np.float32)
    ws = [(rng.standard_normal((N, N)) / np.sqrt(N)).astype(np.float32) for _ in range(DEPTH)]
    return x, ws


def run() -> list[Row]:
    import autograd_lab as T

    x_np, ws_np = _arrays()
    x = T.from_numpy(x_np)
    ws = [T.from_numpy(w.copy()).requires_grad_() for w in ws_np]

    def autograd_step() -> list:
        for w in ws:
            w.grad = None
        y = x
        for w in ws:
            y = y @ w
        y.sum().backward()
        return [w.grad for w in ws]

    def numpy_step() -> list:
        acts = [x_np]
        for w in ws_np:
            acts.append(acts[-1] @ w)
        g = np.ones_like(acts[-1])
        grads = [None] * DEPTH
        for i in range(DEPTH - 1, -1, -1):
            grads[i] = acts[i].T @ g
            if i > 0:
                g = g @ ws_np[i].T
        return grads

    ours, reference = autograd_step(), numpy_step()
    for a, b in zip(ours, reference):
        np.testing.assert_allclose(a.numpy(), b, rtol=1e-3, atol=1e-2)

    t_al = best_time(autograd_step, repeat=3, number=1)
    t_np = best_time(numpy_step, repeat=3, number=1)
    return [Row(NAME, "autograd_lab vs raw NumPy (the same 11 products)",
                f"{fmt_seconds(t_al)} vs {fmt_seconds(t_np)}: autograd_lab takes {t_al / t_np:.2f}x")]
