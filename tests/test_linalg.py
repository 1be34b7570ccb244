"""``autograd_lab.linalg`` against ``torch.linalg``: the norms composed as PyTorch composes them (the
nodes of the graph), their values bit for bit, their gradients, and the argument errors word for word."""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers import torch

import autograd_lab as al

INF = math.inf
CASES = {
    "vector_norm": lambda m, x, b: m.linalg.vector_norm(x),
    "vector_norm ord 1 dim 0": lambda m, x, b: m.linalg.vector_norm(x, 1, 0),
    "vector_norm inf keepdim": lambda m, x, b: m.linalg.vector_norm(x, INF, (0, 1), True),
    "vector_norm 0.5 two dims": lambda m, x, b: m.linalg.vector_norm(b, 0.5, dim=(0, 2)),
    "vector_norm of ints": lambda m, x, b: m.linalg.vector_norm(m.tensor([1, 2])),
    "vector_norm ord a string": lambda m, x, b: m.linalg.vector_norm(x, "fro"),
    "vector_norm ord None": lambda m, x, b: m.linalg.vector_norm(x, None),
    "matrix_norm": lambda m, x, b: m.linalg.matrix_norm(x),
    "matrix_norm 1": lambda m, x, b: m.linalg.matrix_norm(x, 1),
    "matrix_norm -1": lambda m, x, b: m.linalg.matrix_norm(x, -1),
    "matrix_norm inf": lambda m, x, b: m.linalg.matrix_norm(x, INF),
    "matrix_norm -inf keepdim": lambda m, x, b: m.linalg.matrix_norm(b, -INF, keepdim=True),
    "matrix_norm 1 dims (2, 0)": lambda m, x, b: m.linalg.matrix_norm(b, 1, dim=(2, 0)),
    "matrix_norm 1 dims (0, -1) keepdim": lambda m, x, b: m.linalg.matrix_norm(b, 1, dim=(0, -1),
                                                                            keepdim=True),
    "matrix_norm inf dims (1, 2)": lambda m, x, b: m.linalg.matrix_norm(b, INF, dim=(1, 2)),
    "matrix_norm 3": lambda m, x, b: m.linalg.matrix_norm(x, 3),
    "matrix_norm of a vector": lambda m, x, b: m.linalg.matrix_norm(x[0]),
    "matrix_norm same dims": lambda m, x, b: m.linalg.matrix_norm(x, dim=(1, 1)),
    "matrix_norm dim an int": lambda m, x, b: m.linalg.matrix_norm(x, dim=1),
    "matrix_norm positional int dim": lambda m, x, b: m.linalg.matrix_norm(x, 1, 1, True),
    "matrix_norm ord None": lambda m, x, b: m.linalg.matrix_norm(x, ord=None),
    "matrix_norm abc": lambda m, x, b: m.linalg.matrix_norm(x, "abc"),
    "norm": lambda m, x, b: m.linalg.norm(x), "norm 3-d": lambda m, x, b: m.linalg.norm(b),
    "norm 1 of a matrix": lambda m, x, b: m.linalg.norm(x, 1),
    "norm 3 of a vector": lambda m, x, b: m.linalg.norm(x[0], 3),
    "norm dim 1": lambda m, x, b: m.linalg.norm(x, dim=1),
    "norm inf over two dims": lambda m, x, b: m.linalg.norm(b, INF, dim=(0, 1)),
    "norm fro": lambda m, x, b: m.linalg.norm(x, "fro"),
    "norm fro dim 1": lambda m, x, b: m.linalg.norm(x, "fro", dim=1),
    "norm 1 of a 3-d": lambda m, x, b: m.linalg.norm(b, 1),
    "norm three dims": lambda m, x, b: m.linalg.norm(b, dim=(0, 1, 2)),
    "norm 3 of a matrix": lambda m, x, b: m.linalg.norm(x, 3),
    "norm keepdim": lambda m, x, b: m.linalg.norm(x, keepdim=True),
    "norm dims with a repeat": lambda m, x, b: m.linalg.norm(x, dim=(0, 1, 1)),
    "vecdot": lambda m, x, b: m.linalg.vecdot(x, x),
    "vecdot dim 0 broadcast": lambda m, x, b: m.linalg.vecdot(b, b[0:1], dim=0),
    "diagonal": lambda m, x, b: m.linalg.diagonal(b),
    "diagonal offset dims": lambda m, x, b: m.linalg.diagonal(b, offset=1, dim1=0, dim2=2),
}


def _nodes(t):
    """The chain of nodes from ``t`` down its first non-leaf edges."""
    names, fn = [], t.grad_fn
    while fn is not None:
        names.append(type(fn).__name__)
        fn = next((n for n, _ in fn.next_functions
                   if n is not None and type(n).__name__ != "AccumulateGrad"), None)
    return names


def _observed(m, case):
    rng = np.random.default_rng(0)
    x = m.tensor(rng.standard_normal((3, 4)).astype(np.float32), requires_grad=True)
    b = m.tensor(rng.standard_normal((2, 3, 4)), requires_grad=True)
    try:
        y = CASES[case](m, x, b)
        grads = m.autograd.grad(y.sum(), [x, b], allow_unused=True)
    except (RuntimeError, TypeError) as e:
        return f"{type(e).__name__}: {e}"
    return (tuple(y.shape), str(y.dtype), y.detach().numpy().tobytes(), _nodes(y),
            [None if g is None else g.numpy().tobytes() for g in grads])


@pytest.mark.parametrize("case", CASES)
def test_linalg_is_pytorchs(case):
    if torch is None:
        pytest.skip("PyTorch is not installed")
    assert _observed(al, case) == _observed(torch, case)


def test_matrix_norms_by_hand():
    a = al.tensor([[1.0, -2.0], [3.0, 4.0]], requires_grad=True)
    assert al.linalg.matrix_norm(a, 1).item() == 6.0  # the largest column sum of |a|: 2 + 4
    assert al.linalg.matrix_norm(a, INF).item() == 7.0  # the largest row sum: 3 + 4
    assert al.linalg.norm(a).item() == pytest.approx(math.sqrt(30))
    al.linalg.matrix_norm(a, 1).backward()
    assert a.grad.tolist() == [[0.0, -1.0], [0.0, 1.0]]  # the sign of |a| in the winning column
    assert al.linalg.matmul is al.matmul
    for ord_ in ("nuc", 2, -2):
        with pytest.raises(NotImplementedError, match="singular values"):
            al.linalg.matrix_norm(a, ord_)
