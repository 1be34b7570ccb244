"""Graphs that ``create_graph=True`` records, op by op, against PyTorch: the derivative's own graph
(node names, depth first) and the second derivatives.

The values must agree for every op, and so must the graphs, node for node: PyTorch writes many
derivatives with Python-number overloads (``MulBackward1``), in-place steps or its own grouping of the
terms, and so do these. ``OPEN`` would list an op whose graph may differ (none does): the test fails when
another op's graph differs, and when an open op's graph comes to agree, so the list only shrinks.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from helpers import graph_names, torch

import autograd_lab as al

X = [[0.3, -1.2, 2.0], [0.5, 0.1, -0.7]]
Y = [[1.3, 0.2, -2.0], [0.25, 0.6, 0.7]]

UNARY = {
    "abs": lambda m, x: x.abs(), "exp": lambda m, x: x.exp(), "exp2": lambda m, x: m.exp2(x),
    "expm1": lambda m, x: x.expm1(), "log": lambda m, x: (x.abs() + 0.5).log(),
    "log2": lambda m, x: (x.abs() + 0.5).log2(), "log10": lambda m, x: (x.abs() + 0.5).log10(),
    "log1p": lambda m, x: x.abs().log1p(), "sqrt": lambda m, x: (x.abs() + 0.5).sqrt(),
    "rsqrt": lambda m, x: (x.abs() + 0.5).rsqrt(), "sin": lambda m, x: x.sin(), "cos": lambda m, x: x.cos(),
    "tan": lambda m, x: x.tan(), "asin": lambda m, x: (x * 0.3).asin(), "acos": lambda m, x: (x * 0.3).acos(),
    "atan": lambda m, x: x.atan(), "sinh": lambda m, x: x.sinh(), "cosh": lambda m, x: x.cosh(),
    "tanh": lambda m, x: x.tanh(), "asinh": lambda m, x: x.asinh(), "atanh": lambda m, x: (x * 0.3).atanh(),
    "sigmoid": lambda m, x: x.sigmoid(), "relu": lambda m, x: x.relu(), "neg": lambda m, x: -x,
    "reciprocal": lambda m, x: x.reciprocal(), "square": lambda m, x: x.square(), "erf": lambda m, x: x.erf(),
    "erfc": lambda m, x: x.erfc(), "erfinv": lambda m, x: (x * 0.3).erfinv(), "pow 3": lambda m, x: x**3,
    "pow 0.5": lambda m, x: x.abs() ** 0.5, "sign": lambda m, x: x.sign() * x,
    "clamp": lambda m, x: x.clamp(-1, 1), "clamp_min": lambda m, x: x.clamp_min(0.2),
    "clamp_max": lambda m, x: x.clamp_max(0.2), "masked_fill": lambda m, x: x.masked_fill(x > 0, 0.5),
    "softplus": lambda m, x: m.nn.functional.softplus(x), "gelu": lambda m, x: m.nn.functional.gelu(x),
    "silu": lambda m, x: m.nn.functional.silu(x), "elu": lambda m, x: m.nn.functional.elu(x),
    "leaky_relu": lambda m, x: m.nn.functional.leaky_relu(x),
    "logsigmoid": lambda m, x: m.nn.functional.logsigmoid(x),
}
REDUCTION = {
    "sum": lambda m, x: x.sum(), "sum dim": lambda m, x: x.sum(1), "mean": lambda m, x: x.mean(),
    "mean dim": lambda m, x: x.mean(1), "prod": lambda m, x: x.prod(), "prod dim": lambda m, x: x.prod(1),
    "var": lambda m, x: x.var(), "var dim": lambda m, x: x.var(1), "std": lambda m, x: x.std(),
    "std dim": lambda m, x: x.std(1), "norm": lambda m, x: x.norm(), "norm dim": lambda m, x: x.norm(dim=1),
    "logsumexp": lambda m, x: x.logsumexp(1), "amax": lambda m, x: x.amax(1), "amin": lambda m, x: x.amin(1),
    "max": lambda m, x: x.max(), "min": lambda m, x: x.min(), "max dim": lambda m, x: x.max(1)[0],
    "min dim": lambda m, x: x.min(1)[0], "median": lambda m, x: x.median(),
    "cumsum": lambda m, x: x.cumsum(1),
    "cumprod": lambda m, x: x.cumprod(1), "softmax": lambda m, x: x.softmax(1),
    "log_softmax": lambda m, x: x.log_softmax(1), "sort": lambda m, x: x.sort(1)[0],
    "topk": lambda m, x: x.topk(2, 1)[0], "t": lambda m, x: x.t(), "flip": lambda m, x: x.flip(1),
    "roll": lambda m, x: x.roll(1, 1), "tril": lambda m, x: x.tril(), "trace": lambda m, x: x.trace(),
    "layer_norm": lambda m, x: m.nn.functional.layer_norm(x, (3,)),
}
BINARY = {
    "add": lambda m, x, y: x + y, "sub": lambda m, x, y: x - y, "mul": lambda m, x, y: x * y,
    "div": lambda m, x, y: x / y, "pow": lambda m, x, y: x.abs() ** y, "atan2": lambda m, x, y: m.atan2(x, y),
    "maximum": lambda m, x, y: m.maximum(x, y), "minimum": lambda m, x, y: m.minimum(x, y),
    "fmax": lambda m, x, y: m.fmax(x, y), "fmin": lambda m, x, y: m.fmin(x, y),
    "hypot": lambda m, x, y: m.hypot(x, y), "remainder": lambda m, x, y: m.remainder(x, y),
    "fmod": lambda m, x, y: m.fmod(x, y), "lerp": lambda m, x, y: m.lerp(x, y, 0.3),
    "addcmul": lambda m, x, y: m.addcmul(x, x, y, value=0.5),
    "addcdiv": lambda m, x, y: m.addcdiv(x, x, y.abs() + 1, value=0.5), "mm": lambda m, x, y: x @ y.t(),
    "dot": lambda m, x, y: m.dot(x[0], y[0]), "outer": lambda m, x, y: m.outer(x[0], y[0]),
    "where": lambda m, x, y: m.where(x > 0, x, y), "clamp tensor": lambda m, x, y: x.clamp(min=y),
    "add alpha": lambda m, x, y: m.add(x, y, alpha=2), "sub alpha": lambda m, x, y: m.sub(x, y, alpha=2),
    "mse_loss": lambda m, x, y: m.nn.functional.mse_loss(x, y),
    "smooth_l1_loss": lambda m, x, y: m.nn.functional.smooth_l1_loss(x, y),
    "cross_entropy": lambda m, x, y: m.nn.functional.cross_entropy(x * y, m.tensor([0, 2])),
    "binary_cross_entropy": lambda m, x, y: m.nn.functional.binary_cross_entropy(x.sigmoid(), y.sigmoid()),
    "clamp_min tensor": lambda m, x, y: x.clamp_min(y), "clamp_max tensor": lambda m, x, y: x.clamp_max(y),
    "masked_fill tensor": lambda m, x, y: x.masked_fill(x > 0, y[0, 1]),
}
# the derivatives of indexing: SelectBackwardBackward0, SliceBackwardBackward0, IndexPutImplBackward0 and
# MaskedScatterBackward0 in PyTorch, each with its inputs
INDEXING = {
    "int": lambda m, x: x[1], "select": lambda m, x: x.select(1, 2), "slice": lambda m, x: x[:, 1:],
    "narrow": lambda m, x: x.narrow(1, 0, 2), "list": lambda m, x: x[[1, 0, 1]],
    "int and list": lambda m, x: x[0, [2, 0]], "mask": lambda m, x: x[x > 0],
    "masked_select": lambda m, x: x.masked_select(m.tensor([True, False, True])),
}
CASES = {**{f"unary {k}": v for k, v in UNARY.items()}, **{f"reduction {k}": v for k, v in REDUCTION.items()},
         **{f"binary {k}": v for k, v in BINARY.items()}, **{f"indexing {k}": v for k, v in INDEXING.items()}}

# Ops whose derivative's graph (create_graph=True) may differ from PyTorch's (the values agree).
OPEN: set[str] = set()  # none left: every graph agrees (add one here only with a reason)


def _outcome(lib, name):
    """The graphs of d(sum(f^2))/d(inputs) recorded with create_graph=True, and their second derivatives."""
    f = CASES[name]
    xs = [lib.tensor(X, dtype=lib.float64, requires_grad=True)]
    if name.startswith("binary"):
        xs.append(lib.tensor(Y, dtype=lib.float64, requires_grad=True))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        z = f(lib, *xs)
        gs = lib.autograd.grad((z * z).sum(), xs, create_graph=True, allow_unused=True)
        used = [g for g in gs if g is not None and g.requires_grad]
        seconds = lib.autograd.grad(sum(g.sum() for g in used), xs, allow_unused=True) if used else []
    graphs = [None if g is None else graph_names(g) for g in gs]
    return graphs, [None if s is None else s.numpy() for s in seconds]


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_create_graph_records_pytorchs_graph_and_values(name):
    if torch is None:
        pytest.skip("PyTorch is not installed")
    (graphs, seconds), (their_graphs, their_seconds) = _outcome(al, name), _outcome(torch, name)
    assert len(seconds) == len(their_seconds)
    for k, (a, t) in enumerate(zip(seconds, their_seconds)):
        assert (a is None) == (t is None), f"second derivative {k}: {a} where PyTorch has {t}"
        if a is not None:
            np.testing.assert_allclose(a, t, rtol=1e-9, atol=1e-10, err_msg=f"second derivative by input {k}")
    if name in OPEN:
        assert graphs != their_graphs, f"{name!r}'s graph now agrees with PyTorch's: remove it from OPEN"
    else:
        assert graphs == their_graphs, (
            f"create_graph=True records another graph than PyTorch for {name!r}:\n"
            f"  PyTorch:      {their_graphs}\n  autograd_lab: {graphs}"
        )
