"""Memory: what the graph keeps alive, and that backward and ``no_grad`` release it.

The checks run with the garbage collector disabled: an object that is freed then was freed by
reference counting alone, which proves that the graph holds no reference cycles (a cycle would
keep it alive until a collection).
"""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

import autograd_lab as torch
from autograd_lab.function import BackwardNode


@pytest.fixture
def no_gc():
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def alive(refs) -> list:
    return [r() for r in refs if r() is not None]


def test_a_graph_is_freed_by_reference_counting_alone(no_gc):
    x = torch.randn(3, 4, requires_grad=True)
    w = torch.randn(4, 2, requires_grad=True)
    h = (x @ w).tanh()
    y = h.exp() * h  # exp saves its output, * saves both inputs
    loss = y.sum()
    refs = [weakref.ref(t) for t in (h, y, loss)]
    refs += [weakref.ref(t.grad_fn) for t in (h, y, loss)]
    refs += [weakref.ref(n) for n, _ in y.grad_fn.next_functions if n is not None]
    loss.backward()
    del h, y, loss
    assert not alive(refs), "after backward the graph must go away with its last reference"
    assert x.grad is not None and w.grad is not None and x.grad.grad_fn is None


def test_a_graph_without_backward_is_freed_too(no_gc):
    """A saved *output* (exp, tanh, sigmoid save theirs) must not make an output <-> node cycle."""
    x = torch.randn(5, requires_grad=True)
    y = x.exp().sigmoid().tanh()
    refs = [weakref.ref(y), weakref.ref(y.grad_fn), weakref.ref(y.grad_fn.next_functions[0][0])]
    del y
    assert not alive(refs)


def test_saved_tensors_are_freed_by_backward_while_the_output_lives(no_gc):
    x = torch.randn(4, requires_grad=True)
    h = x * 2
    y = h * h  # its node saves h
    h_ref = weakref.ref(h)
    del h
    assert h_ref() is not None, "the node keeps the tensor it saved"
    y.sum().backward()
    assert h_ref() is None, "backward frees saved tensors (retain_graph=False)"
    assert y.grad_fn is not None, "the output and its node live on; only what was saved is gone"


def test_saved_outputs_are_freed_by_backward(no_gc):
    x = torch.randn(4, requires_grad=True)
    a = x.exp()  # saves its output (as data)
    b = a.exp()
    data_ref = weakref.ref(a._data)
    del a
    assert data_ref() is not None
    b.sum().backward()
    assert data_ref() is None


def test_retain_graph_keeps_saved_tensors(no_gc):
    x = torch.randn(4, requires_grad=True)
    h = x * 2
    y = h * h
    h_ref = weakref.ref(h)
    del h
    y.sum().backward(retain_graph=True)
    assert h_ref() is not None, "retain_graph=True keeps what the nodes saved"
    y.sum().backward()
    assert h_ref() is None


def test_autograd_grad_frees_saved_tensors(no_gc):
    x = torch.randn(4, requires_grad=True)
    h = x.sin()
    y = h * h
    h_ref = weakref.ref(h)
    del h
    torch.autograd.grad(y.sum(), x)
    assert h_ref() is None


def test_freed_nodes_report_no_saved_items(no_gc):
    x = torch.randn(3, requires_grad=True)
    y = x * x
    node = y.grad_fn
    assert len(node.saved_items()) == 2
    y.sum().backward()
    assert node.saved_items() == []


def _backward_nodes() -> int:
    return sum(issubclass(type(o), BackwardNode) for o in gc.get_objects())  # type(): no proxies


def test_no_grad_builds_no_graph(no_gc):
    w = torch.randn(8, 8, requires_grad=True)
    x = torch.randn(4, 8)
    before = _backward_nodes()
    with torch.no_grad():
        y = ((x @ w).relu() * 2).sum()
    assert y.grad_fn is None and not y.requires_grad
    assert _backward_nodes() == before, "no node may be created under no_grad"
    with torch.no_grad():
        w -= 0.1 * torch.ones(8, 8)  # the optimiser step: allowed, and recorded nowhere
    assert _backward_nodes() == before and w.is_leaf


def test_inputs_that_do_not_require_grad_build_no_graph(no_gc):
    before = _backward_nodes()
    y = (torch.randn(3) * 2).exp().sum()
    assert y.grad_fn is None
    assert _backward_nodes() == before


def test_a_training_loop_does_not_accumulate_graphs(no_gc):
    rng = np.random.default_rng(0)
    w = torch.tensor(rng.standard_normal((5, 3)), requires_grad=True)
    x = torch.tensor(rng.standard_normal((10, 5)))
    refs = []
    for _ in range(20):
        w.grad = None
        loss = (x @ w).tanh().pow(2).mean()
        loss.backward()
        refs.append(weakref.ref(loss.grad_fn))
        with torch.no_grad():
            w -= 0.1 * w.grad
    del loss
    assert not alive(refs), "each iteration's graph is gone once its loss is"


def test_leaf_and_accumulate_grad_do_not_keep_each_other_alive(no_gc):
    x = torch.randn(3, requires_grad=True)
    (x * 2).sum().backward()
    refs = [weakref.ref(x)]
    y = x * 3.0
    refs.append(weakref.ref(y.grad_fn.next_functions[0][0]))  # x's AccumulateGrad
    del x, y
    assert not alive(refs)


def test_retain_grad_and_hooks_do_not_leak(no_gc):
    x = torch.randn(3, requires_grad=True)
    h = x * 2
    h.retain_grad()
    h.register_hook(lambda g: g * 1)
    y = (h * h).sum()
    y.backward()
    refs = [weakref.ref(h), weakref.ref(y), weakref.ref(y.grad_fn)]
    del h, y
    assert not alive(refs)


@pytest.mark.slow
def test_a_chain_of_100000_ops_backpropagates_without_recursion(no_gc):
    """The engine is iterative: depth is no problem (a recursive one fails near 1000)."""
    n = 100_000
    x = torch.tensor(1.0, dtype=torch.float64, requires_grad=True)
    y = x
    for _ in range(n):
        y = y * 1.000001
    first_node = weakref.ref(y.grad_fn)
    y.backward()
    assert x.grad.item() == pytest.approx(1.000001**n, rel=1e-9)
    del y  # freeing the deep chain must not overflow the C stack either
    assert first_node() is None


def test_a_deep_chain_is_freed_by_deleting_its_root(no_gc):
    x = torch.tensor(1.0, requires_grad=True)
    y = x
    for _ in range(50_000):
        y = y + 1.0
    ref = weakref.ref(y.grad_fn)
    del y
    assert ref() is None


def _tracked_per_op(n: int = 10000) -> float:
    """GC-tracked objects left alive per recorded ``y = y * 1.0001`` in a chain (counted after a
    collection, so tuples of numbers only, which the collector untracks, do not count; over 10,000 ops,
    so that the few objects any run leaves once do not count either)."""
    x = torch.tensor(1.0, dtype=torch.float64, requires_grad=True)
    gc.collect()
    before = len(gc.get_objects())
    y = x
    for _ in range(n):
        y = y * 1.0001
    gc.collect()
    per_op = (len(gc.get_objects()) - before) / n
    del y
    return per_op


def test_a_recorded_scalar_op_leaves_few_objects_for_the_collector():
    """Issue 17: the collector's work grows with the objects each op leaves alive. Per op now: the
    node and its edges (one flat tuple; the output dies with the next op). The saved items are a
    tuple holding the Python number's 0-d array alone, which the collector stops tracking; no
    SavedTensor or 0-d tensor for the number, no hook dicts, version counters, node __dict__ or
    tuple per edge (8 before phase 1, 5 before phase 2)."""
    assert _tracked_per_op() <= 2.05  # 2, and the leaf's AccumulateGrad


def test_a_python_number_is_saved_as_a_tensor_of_the_op_s_dtype():
    """The number saved bare still reads back as PyTorch's wrapped number: a 0-d tensor."""
    oracle = pytest.importorskip("torch")
    x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    y = x * 3.0
    tx = oracle.tensor([1.0, 2.0], dtype=oracle.float64, requires_grad=True)
    ty = tx * 3.0
    saved, expected = y.grad_fn._saved_other, ty.grad_fn._saved_other
    assert str(saved.dtype) == str(expected.dtype) and saved.shape == expected.shape
    assert saved.item() == expected.item() and saved.grad_fn is None and not saved.requires_grad
    assert [name for name, _ in y.grad_fn.saved_items()] == ["other"]
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]


def test_a_node_without_hooks_has_no_hook_dicts_and_no_instance_dict():
    x = torch.tensor(1.0, dtype=torch.float64, requires_grad=True)
    y = x * 2.0
    node = y.grad_fn
    assert not hasattr(node, "__dict__") or not node.__dict__, "a plain node keeps its state in slots"
    assert "_version_counter" not in x.__dict__ and "_version_counter" not in y.__dict__
    y.register_hook(lambda g: g)
    assert node._hooked and set(node.__dict__) == {"_hooked", "_tensor_hooks"}
    with torch.no_grad():
        x.add_(1)  # an in-place change makes the counter, which then counts
    assert x._version == 1


def _bytes_per_op(n: int = 5000) -> float:
    """Bytes Python allocated and kept per recorded ``y = y * 1.0001`` in a chain (tracemalloc)."""
    import tracemalloc

    x = torch.tensor(1.0, dtype=torch.float64, requires_grad=True)
    y = x * 1.0001  # warm: the first op makes what every later one shares
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(n):
            y = y * 1.0001
        return (tracemalloc.get_traced_memory()[0] - before) / n
    finally:
        tracemalloc.stop()


def test_bytes_per_node_of_a_scalar_chain_stay_small():
    """Issue 17: a node's memory. No empty hook dicts, edges flat, the shapes, dtypes and flags
    nodes repeat shared, no version counter for a tensor never changed, a Python number saved as
    its array alone (1,684 bytes before phase 1, 662 before phase 2)."""
    assert _bytes_per_op() <= 540


def test_an_optimizer_step_writes_into_the_parameter_without_a_copy():
    """``p -= lr * p.grad`` under no_grad: the parameter's own array, changed in place (no result
    array the size of p allocated and copied back), and its version counted."""
    import tracemalloc

    p = torch.zeros(256, 256, requires_grad=True)  # 256 kB
    g = torch.ones(256, 256)
    array, version = p._data, p._version
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        with torch.no_grad():
            p -= g
            p += g
            p *= g
            p.sub_(g)
        extra = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    assert extra < 64 * 1024, f"{extra} bytes allocated: a copy of the parameter"
    assert p._data is array and p._version == version + 4 and (p._data == -1).all()
