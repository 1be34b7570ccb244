"""engine.py: backward and autograd.grad (accumulation, retain_graph, create_graph, inputs=), hooks and
retain_grad in PyTorch's order, the order nodes run in, anomaly mode, the graph walk."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from helpers import f64, name

import autograd_lab as torch
from autograd_lab import engine
from autograd_lab.function import is_anomaly_enabled


def test_gradients_accumulate_across_backward_calls():
    x = f64([1.0, 2.0])
    for k in range(1, 4):
        (x * x).sum().backward()
        assert x.grad.tolist() == [2.0 * k, 4.0 * k]


def test_retain_graph_allows_a_second_backward():
    x = f64([3.0])
    y = (x.exp() * x).sum()
    y.backward(retain_graph=True)
    first = x.grad.clone()
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * first.numpy())
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward()


def test_a_graph_without_saved_tensors_can_be_run_twice():
    """Like PyTorch: only *saved* values are freed, so add/sum graphs may backward again."""
    x = f64([1.0, 2.0])
    y = (x + 1).sum()
    y.backward()
    y.backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_create_graph_records_the_derivative():
    x = f64([2.0])
    y = (x**3).sum()
    with pytest.warns(UserWarning, match="create a reference cycle between the parameter and its gradient"):
        y.backward(create_graph=True)
    assert x.grad.requires_grad and name(x.grad.grad_fn) != "AccumulateGrad"
    g = x.grad
    x.grad = None
    g.sum().backward()
    assert x.grad.tolist() == [12.0]  # d/dx 3x^2 = 6x


def test_third_derivative():
    x = f64(1.5)
    (d1,) = torch.autograd.grad(x**4, x, create_graph=True)
    (d2,) = torch.autograd.grad(d1, x, create_graph=True)
    (d3,) = torch.autograd.grad(d2, x)
    assert d1.item() == pytest.approx(4 * 1.5**3)
    assert d2.item() == pytest.approx(12 * 1.5**2)
    assert d3.item() == pytest.approx(24 * 1.5)


def test_shared_subgraph_gradients_add_up():
    x = f64([1.0, 2.0])
    h = x * 3
    y = (h * h).sum() + h.sum()
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), 3 * (2 * 3 * np.array([1.0, 2.0]) + 1))


def test_the_same_tensor_as_both_operands():
    x = f64([3.0])
    (x * x).backward()
    assert x.grad.tolist() == [6.0]
    x.grad = None
    (x + x + x).backward()
    assert x.grad.tolist() == [3.0]


def test_autograd_grad_returns_gradients_and_leaves_grad_alone():
    x, w = f64([1.0, 2.0]), f64([3.0, 4.0])
    y = (x * w).sum()
    gx, gw = torch.autograd.grad(y, [x, w])
    assert gx.tolist() == [3.0, 4.0] and gw.tolist() == [1.0, 2.0]
    assert x.grad is None and w.grad is None
    assert not gx.requires_grad


def test_autograd_grad_allow_unused():
    x, unused = f64([1.0]), f64([1.0])
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
        torch.autograd.grad((x * 2).sum(), [x, unused])
    gx, gu = torch.autograd.grad((x * 2).sum(), [x, unused], allow_unused=True)
    assert gx.tolist() == [2.0] and gu is None
    gx, gu = torch.autograd.grad((x * 2).sum(), [x, unused], materialize_grads=True)
    assert gu.tolist() == [0.0]


def test_autograd_grad_with_grad_outputs():
    x = f64([1.0, 2.0, 3.0])
    (g,) = torch.autograd.grad(x**2, x, grad_outputs=f64([1.0, 0.0, -1.0], requires_grad=False))
    assert g.tolist() == [2.0, 0.0, -6.0]
    y1, y2 = x * 2, x.sum()
    (g,) = torch.autograd.grad([y1, y2], x, grad_outputs=[torch.ones_like(y1), f64(10.0, False)])
    assert g.tolist() == [12.0, 12.0, 12.0]


def test_autograd_grad_with_respect_to_non_leaves():
    x = f64([1.0, 2.0])
    h = x * x
    y = (h * 3).sum()
    gh, gx = torch.autograd.grad(y, [h, x])
    assert gh.tolist() == [3.0, 3.0]
    assert gx.tolist() == [6.0, 12.0]


def test_autograd_grad_of_a_non_leaf_runs_only_the_needed_part():
    x = f64([1.0, 2.0])
    h = x.exp()
    seen = []
    h.grad_fn.register_prehook(lambda g: seen.append("exp node ran"))
    h.register_hook(lambda g: seen.append("tensor hook of h") or g * 10)
    y = (h * 2).sum()
    (gh,) = torch.autograd.grad(y, h)
    assert gh.tolist() == [20.0, 20.0], "the tensor hook of an input runs before its gradient is captured"
    assert seen == ["tensor hook of h"], "nodes below the requested input do not run"


def test_backward_inputs_restricts_accumulation():
    x, w = f64([1.0]), f64([2.0])
    h = x * w
    h.retain_grad()
    y = (h * h).sum()
    y.backward(inputs=[w], retain_graph=True)
    assert x.grad is None and w.grad.tolist() == [2 * 2.0 * 1.0]
    y.backward(inputs=x)
    assert x.grad.tolist() == [8.0]
    h2 = x * w
    (h2 * 5).sum().backward(inputs=[h2])
    assert h2.grad.tolist() == [5.0]


def test_torch_autograd_backward_sums_several_roots():
    x = f64([1.0, 2.0])
    torch.autograd.backward([(x * 2).sum(), (x * x).sum()])
    assert x.grad.tolist() == [4.0, 6.0]


def test_tensor_hook_replaces_the_gradient_downstream():
    x = f64([1.0, 2.0])
    h = x * 2
    h.register_hook(lambda g: g * 100)
    (h * 3).sum().backward()
    assert x.grad.tolist() == [600.0, 600.0]


def test_hooks_run_in_order_of_registration_and_can_be_removed():
    x = f64([1.0])
    h = x * 1
    calls = []
    first = h.register_hook(lambda g: calls.append("first") or g + 1)
    h.register_hook(lambda g: calls.append(("second", g.item())) or None)
    h.sum().backward(retain_graph=True)
    assert calls == ["first", ("second", 2.0)] and x.grad.tolist() == [2.0]
    first.remove()
    first.remove()  # removing twice is harmless
    calls.clear()
    x.grad = None
    h.sum().backward()
    assert calls == [("second", 1.0)] and x.grad.tolist() == [1.0]


def test_leaf_hook_changes_what_is_accumulated():
    x = f64([1.0, 2.0])
    x.register_hook(lambda g: g.clamp(max=1.5))
    (x * x).sum().backward()
    assert x.grad.tolist() == [1.5, 1.5]


def test_hook_on_tensor_that_does_not_require_grad_raises():
    with pytest.raises(RuntimeError, match="cannot register a hook on a tensor that doesn't require"):
        torch.ones(2).register_hook(lambda g: g)


def test_retain_grad_on_non_leaf_and_its_accumulation():
    x = f64([1.0, 2.0])
    h = x * 3
    h.retain_grad()
    assert h.retains_grad
    y = (h * h).sum()
    y.backward(retain_graph=True)
    assert h.grad.tolist() == [6.0, 12.0]
    y.backward()
    assert h.grad.tolist() == [12.0, 24.0]
    x.retain_grad()  # a no-op on a leaf
    assert not x.retains_grad


def test_node_prehook_and_hook():
    x = f64([1.0, 2.0])
    h = x * 3
    log = []
    h.grad_fn.register_prehook(lambda grad_outputs: (grad_outputs[0] * 2,))

    def post(grad_inputs, grad_outputs):
        log.append((grad_inputs[0].tolist(), grad_outputs[0].tolist()))

    handle = h.grad_fn.register_hook(post)
    h.sum().backward(retain_graph=True)
    assert log == [([6.0, 6.0], [2.0, 2.0])]
    assert x.grad.tolist() == [6.0, 6.0]
    handle.remove()
    h.sum().backward()
    assert len(log) == 1


def test_node_hook_may_replace_the_gradients_it_sends():
    x = f64([1.0, 2.0])
    h = x * 3
    h.grad_fn.register_hook(lambda grad_inputs, grad_outputs: (grad_inputs[0] * 0 - 1, grad_inputs[1]))
    h.sum().backward()
    assert x.grad.tolist() == [-1.0, -1.0]


def _recorded_order(root) -> list:
    order = []
    engine.run_backward([root], [torch.ones_like(root)], retain_graph=True, create_graph=False,
                        observer=lambda node, g_in, g_out: order.append(node))
    return order


@pytest.mark.parametrize("seed", range(10))
def test_execution_order_is_the_order_the_engine_runs(seed):
    rng = np.random.default_rng(seed)
    leaves = [f64(rng.standard_normal(2)) for _ in range(3)]
    pool = list(leaves)
    for _ in range(12):
        a, b = (pool[int(i)] for i in rng.integers(len(pool), size=2))
        op = rng.integers(4)
        pool.append(a * b if op == 0 else a + b if op == 1 else a.tanh() if op == 2 else a - b.exp())
    root = sum((t.sum() for t in pool[3:]), torch.zeros((), dtype=torch.float64))
    predicted = engine.execution_order(root)
    actual = _recorded_order(root)
    assert [id(n) for n in predicted] == [id(n) for n in actual]
    position = {id(n): i for i, n in enumerate(actual)}
    for node in actual:  # a node runs only after every node that sends it a gradient
        for nxt, _ in node.next_functions:
            if nxt is not None:
                assert position[id(node)] < position[id(nxt)]


def test_most_recently_created_ready_node_runs_first():
    """PyTorch's engine: among ready nodes, the one with the highest sequence number runs first."""
    x = f64([1.0])
    a = x * 2  # created first
    b = x.exp()  # created second
    order = [name(n) for n in _recorded_order(a.sum() + b.sum())]
    # after Add: b.sum() was made after a.sum(), so it runs first; then a.sum() (made after exp), ...
    assert order == ["AddBackward0", "SumBackward0", "SumBackward0", "ExpBackward0", "MulBackward0",
                     "AccumulateGrad"]


def test_detect_anomaly_reports_where_the_failing_op_was_made():
    x = f64([1.0, 2.0])
    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
        anomaly = torch.autograd.detect_anomaly()
    with anomaly:
        y = x.exp()
        y.mul_(2)
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            with pytest.raises(RuntimeError, match="modified by an inplace operation"):
                y.sum().backward()
    messages = [str(w.message) for w in record]
    assert any(m.startswith("Error detected in ExpBackward0") and "test_engine.py" in m for m in messages)
    assert not is_anomaly_enabled(), "leaving detect_anomaly() switches it off again"


def test_overflow_gives_inf_and_nan_without_numpy_warnings():
    # PyTorch never warns about IEEE results; NumPy would print RuntimeWarnings for these
    x = torch.tensor([1000.0, 1.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = torch.log(1 + torch.exp(x))  # the naive softplus overflows
        y.sum().backward()
        quotients = [torch.tensor(1.0) / 0, 1 / torch.tensor(0.0), torch.tensor(0.0) ** -1]
    assert np.isinf(y[0].item()) and np.isnan(x.grad[0].item())
    assert all(np.isinf(q.item()) for q in quotients)


def test_discover_walks_breadth_first_each_node_once():
    x = f64([1.0, 2.0])
    a = x * 2
    y = (a + a.exp()).sum()
    nodes = engine.discover([y.grad_fn])
    assert [name(n) for n in nodes] == ["SumBackward0", "AddBackward0", "MulBackward0", "ExpBackward0",
                                        "AccumulateGrad"]
    assert len({id(n) for n in nodes}) == len(nodes)
    deep = x
    for _ in range(5000):  # deeper than Python's recursion limit
        deep = deep * 1.0
    assert len(engine.discover([deep.grad_fn])) == 5001


def _requires_grad_off_after_recording(lib):
    w = lib.ones(2, requires_grad=True)
    y = (w * 2).sum()
    seen = []
    w.register_hook(lambda g: seen.append(g.tolist()))
    w.requires_grad_(False)
    y.backward()
    return w.grad, seen


def test_requires_grad_turned_off_after_recording_leaves_grad_none_as_pytorch():
    real = pytest.importorskip("torch")
    theirs, their_hooks = _requires_grad_off_after_recording(real)
    ours, our_hooks = _requires_grad_off_after_recording(torch)
    assert theirs is None and ours is None
    assert our_hooks == their_hooks == [[2.0, 2.0]]  # the leaf's hook still runs


def _unused_input_after_output_hooks(lib, outputs: int):
    a, b = lib.ones(2, requires_grad=True), lib.ones(2, requires_grad=True)
    events = []
    zs = [(a * (k + 2)).sum() for k in range(outputs)]
    for k, z in enumerate(zs):
        z.retain_grad()
        z.register_hook(lambda g, k=k: events.append(("hook", k, g.item())))
    with pytest.raises(RuntimeError) as err:
        lib.autograd.grad(zs, [b])
    events.append(str(err.value))
    events.append([None if z.grad is None else z.grad.item() for z in zs])
    return events


@pytest.mark.parametrize("outputs", [1, 2])
def test_grad_runs_the_output_hooks_and_retain_grad_before_the_unused_input_error_as_pytorch(outputs):
    """PyTorch starts at a single output's node: its hooks and retain_grad run, then the error; with
    several outputs (a GraphRoot first) none of them runs."""
    real = pytest.importorskip("torch")
    assert (_unused_input_after_output_hooks(torch, outputs)
            == _unused_input_after_output_hooks(real, outputs))


def _anomaly_outcome(lib, check_nan=True):
    """What each library says when a backward returns nan under detect_anomaly: the error, and the
    warnings with the traceback's frames (PyTorch's C++ suffix '(Triggered internally at ...)' cut)."""
    import re

    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        with lib.autograd.detect_anomaly(check_nan=check_nan):
            inside = (lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled())
            x = lib.tensor([1.0, -1.0], requires_grad=True)
            y = x.sqrt()  # nan at -1, and its gradient nan
            try:
                (y * 0).sum().backward()
                error = None
            except RuntimeError as e:
                error = str(e)
    texts = [re.sub(r" \(Triggered internally at .*\)$", "", str(w.message)) for w in record]
    return inside, error, texts, (lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled())


@pytest.mark.parametrize("check_nan", [True, False])
def test_detect_anomaly_checks_for_nan_and_warns_as_pytorch(check_nan):
    """detect_anomaly warns it is slow; a backward returning nan fails with PyTorch's text and the
    traceback of the forward call in the user's code only (no frames of the library)."""
    real = pytest.importorskip("torch")
    ours, theirs = _anomaly_outcome(torch, check_nan), _anomaly_outcome(real, check_nan)
    assert ours == theirs
    nan_error = "Function 'SqrtBackward0' returned nan values in its 0th output."
    assert ours[1] == (nan_error if check_nan else None)


def test_set_detect_anomaly_is_a_call_and_a_context_manager():
    with torch.autograd.set_detect_anomaly(True, check_nan=False):
        assert torch.is_anomaly_enabled() and not torch.is_anomaly_check_nan_enabled()
    assert not torch.is_anomaly_enabled() and torch.is_anomaly_check_nan_enabled()
    torch.autograd.set_detect_anomaly(True)
    try:
        assert torch.is_anomaly_enabled()
    finally:
        torch.autograd.set_detect_anomaly(False)
    assert not torch.is_anomaly_enabled()
