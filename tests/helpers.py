"""Helpers the test files share: tensors made alike in autograd_lab and PyTorch (the optional oracle)
and comparisons of their values, graphs and errors."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_lab as al

try:
    import torch
except ImportError:  # the tests that need the oracle skip
    torch = None

needs_torch = [pytest.mark.torch, pytest.mark.skipif(torch is None, reason="PyTorch is not installed")]

TF = None if torch is None else torch.nn.functional
if torch is not None:
    torch.set_num_threads(1)  # many small ops run far faster on one thread
    # PyTorch's own einsum: opt_einsum, when another package installed it (JAX does), changes its errors
    torch.backends.opt_einsum.enabled = False


def oracle(fn):
    """Mark a test that compares with PyTorch: it skips where PyTorch is absent (marker ``torch``)."""
    for mark in needs_torch:
        fn = mark(fn)
    return fn


def f64(values, requires_grad: bool = True) -> al.Tensor:
    """A float64 tensor (a leaf that requires grad unless told): exact enough for gradchecks."""
    return al.tensor(values, dtype=al.float64, requires_grad=requires_grad)


def name(node) -> str:
    """A node's class name, as PyTorch shows it (``AccumulateGrad``, not ``torch::autograd::...``)."""
    return type(node).__name__


def pair(torch, arr, requires_grad=True):
    """The same values as an autograd_lab tensor and a PyTorch tensor."""
    arr = np.asarray(arr)
    return al.tensor(arr, requires_grad=requires_grad), torch.tensor(arr, requires_grad=requires_grad)


def copy_weights(mine, theirs):
    """Load a PyTorch module's parameters and buffers into the matching autograd_lab module."""
    mine.load_state_dict({k: al.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})


def d64(arr, requires_grad=True):
    """A float64 autograd_lab tensor of ``arr``."""
    return al.tensor(np.asarray(arr, dtype=np.float64), requires_grad=requires_grad)


def rng(seed=0):
    """NumPy's random generator, seeded."""
    return np.random.default_rng(seed)


def both64(arr):
    """``arr`` as float64 leaves of both libraries."""
    return d64(arr), torch.tensor(np.asarray(arr, dtype=np.float64), requires_grad=True)


def names(node):
    """A node's ``name()`` (None for no node)."""
    return None if node is None else node.name()


def check_same(fa, ft, arrays, seed=5, inspect=None):
    """``fa`` (autograd_lab) and ``ft`` (PyTorch) on float64 leaves of ``arrays``: the same values, node,
    edges and, for a random output gradient, the same input gradients."""
    ours = [both64(a) for a in arrays]
    ya, yt = fa(*[o[0] for o in ours]), ft(*[o[1] for o in ours])
    if isinstance(ya, tuple):
        assert np.array_equal(ya[1].numpy(), yt[1].numpy())
        ya, yt = ya[0], yt[0]
    np.testing.assert_allclose(ya.detach().numpy(), yt.detach().numpy(), rtol=1e-10, atol=1e-12)
    assert ya.grad_fn.name() == yt.grad_fn.name()
    edges_a = [names(n) for n, _ in ya.grad_fn.next_functions]
    assert edges_a == [names(n) for n, _ in yt.grad_fn.next_functions]
    if inspect is not None:
        inspect(ya.grad_fn, yt.grad_fn)
    g = rng(seed).standard_normal(tuple(yt.shape))
    ya.backward(al.tensor(g))
    yt.backward(torch.tensor(g))
    for a, t in ours:
        np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-12)
    return ya, yt


def both(arr, requires_grad=True):
    """``arr`` as a tensor of each library."""
    arr = np.asarray(arr)
    return al.tensor(arr, requires_grad=requires_grad), torch.tensor(arr, requires_grad=requires_grad)


def close(a, t, tol=1e-6):
    """An autograd_lab tensor and a PyTorch tensor hold the same values (within ``tol``)."""
    assert a is not None and t is not None, (a, t)
    np.testing.assert_allclose(a.detach().numpy(), t.detach().numpy(), rtol=tol, atol=tol)


def node_name(t):
    """The class name of ``t.grad_fn``."""
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


def probabilities(shape, seed):
    """Probabilities well inside (0, 1): targets and inputs of the binary cross-entropies."""
    return np.clip(rng(seed).uniform(0.05, 0.95, shape), 0.05, 0.95)


def graph_names(t):
    """The node names of a graph, depth first."""
    out = []

    def walk(node):
        out.append(None if node is None else type(node).__name__)
        if node is not None and len(out) < 40:
            for n, _ in node.next_functions:
                walk(n)

    walk(t.grad_fn)
    return [n if n != "torch::autograd::AccumulateGrad" else "AccumulateGrad" for n in out]


def double_backward_outcome(lib, f, values, seed=3):
    """What ``create_graph=True`` records for ``f`` in ``lib`` (float64 leaves of ``values``, a random
    output gradient that requires grad): the derivative's node, its edges and saved tensor names, and the
    first, second and third derivatives (by the inputs and by the output gradient), as lists."""
    xs = [lib.tensor(np.asarray(v, dtype=np.float64), requires_grad=True) for v in values]
    y = f(lib, *xs)
    go = lib.tensor(rng(seed).standard_normal(tuple(y.shape)), requires_grad=True)
    gs = lib.autograd.grad(y, xs, go, create_graph=True, allow_unused=True)
    node = gs[0].grad_fn
    edges = [None if n is None else type(n).__name__.split("::")[-1] for n, _ in node.next_functions]
    saved = sorted(a for a in dir(node) if a.startswith("_saved_")
                   and isinstance(getattr(node, a), lib.Tensor))
    s = sum((g * g).sum() for g in gs if g is not None)
    seconds = lib.autograd.grad(s, xs + [go], create_graph=True, allow_unused=True)
    thirds = lib.autograd.grad(sum(g.sum() for g in seconds if g is not None), xs, allow_unused=True)

    def arrays(ts):
        return [None if t is None else t.detach().numpy() for t in ts]

    return node.name(), edges, saved, arrays(gs), arrays(seconds), arrays(thirds)


def assert_same_double_backward(f, values, orders=(1, 2, 3), rtol=1e-9, atol=1e-10):
    """:func:`double_backward_outcome` of autograd_lab and of PyTorch agree: the same node, edges and
    saved tensors, and derivatives of the given orders equal (to float64 rounding)."""
    ours, theirs = double_backward_outcome(al, f, values), double_backward_outcome(torch, f, values)
    assert ours[:3] == theirs[:3]
    for order in orders:
        for k, (a, t) in enumerate(zip(ours[2 + order], theirs[2 + order])):
            assert (a is None) == (t is None), (order, k, a, t)
            if a is not None:
                np.testing.assert_allclose(a, t, rtol=rtol, atol=atol, err_msg=f"order {order}, input {k}")
    return ours, theirs
