"""The seed examples of the course plan (shared/SYLLABUS.md), run with ``import autograd_lab as torch``.

Each test is one example of the plan with the value the plan states, including the places where
the seed blog posts are wrong and the course says what PyTorch really does.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import autograd_lab as torch
from autograd_lab.autograd import Function, gradcheck

NON_LEAF_GRAD_WARNING_START = "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed."


def node_name(t: torch.Tensor) -> str:
    return type(t.grad_fn).__name__


# ---------------------------------------------------------------------------- 02 backward()
def test_02_w_times_w_plus_b():
    w = torch.tensor(2.0, requires_grad=True)
    b = torch.tensor(3.0, requires_grad=True)
    y = w * w + b
    assert y.item() == 7.0, f"y = w*w + b = 2*2 + 3 = 7, got {y}"
    y.backward()
    assert w.grad.item() == 4.0, f"dy/dw = 2w = 4, got {w.grad}"
    assert b.grad.item() == 1.0, f"dy/db = 1, got {b.grad}"
    assert repr(y) == "tensor(7., grad_fn=<AddBackward0>)"
    assert repr(w.grad) == "tensor(4.)"


def test_02_sum_backward_gives_ones():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    x.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]
    assert repr(x.grad) == "tensor([1., 1.])"


def test_02_non_scalar_backward_needs_a_gradient():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError) as info:
        (x**2).backward()
    assert str(info.value) == "grad can be implicitly created only for scalar outputs"


def test_02_backward_with_a_vector_is_a_vector_jacobian_product():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (x**2).backward(torch.tensor([1.0, 0.5]))
    # v^T J = [1 * 2*1, 0.5 * 2*2]
    assert x.grad.tolist() == [2.0, 2.0], f"v^T J = [1*2*1, 0.5*2*2] = [2, 2], got {x.grad}"


def test_02_autograd_backward_sums_the_gradients_of_several_outputs():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y1 = (x**2).sum()  # dy1/dx = 2x = [2, 4]
    y2 = (3 * x).sum()  # dy2/dx = [3, 3]
    torch.autograd.backward([y1, y2])
    assert x.grad.tolist() == [5.0, 7.0]
    x.grad = None
    torch.autograd.backward([x**2, 3 * x], [torch.tensor([1.0, 0.0]), torch.tensor([0.0, 1.0])])
    assert x.grad.tolist() == [2.0, 3.0]


def central_difference(f, x: float, h: float = 1e-6) -> float:
    return (f(x + h) - f(x - h)) / (2 * h)


def test_02_gradient_by_hand_and_by_finite_differences():
    w = torch.tensor(1.5, dtype=torch.float64, requires_grad=True)
    y = w**3 + 2 * w
    y.backward()
    assert w.grad.item() == pytest.approx(3 * 1.5**2 + 2)
    assert w.grad.item() == pytest.approx(central_difference(lambda v: v**3 + 2 * v, 1.5), rel=1e-6)


class Cube(Function):
    """The notebook's custom Function: forward x^3, backward 3x^2 * grad."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 3 * x**2


def test_02_custom_function_with_save_for_backward_passes_gradcheck():
    x = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64, requires_grad=True)
    y = Cube.apply(x)
    assert node_name(y) == "CubeBackward"
    y.sum().backward()
    assert x.grad.tolist() == [0.75, 3.0, 12.0]
    assert gradcheck(Cube.apply, (x,))


# ---------------------------------------------------------------------------- 03 grad_fn
def test_03_grad_fn_names_and_next_functions():
    w = torch.tensor(2.0, requires_grad=True)
    y = w * w + 3
    assert node_name(y) == "AddBackward0"
    assert repr(y.grad_fn).startswith("<AddBackward0 object at 0x")
    assert type(y.grad_fn.next_functions[0][0]).__name__ == "MulBackward0"
    mul = y.grad_fn.next_functions[0][0]
    assert [type(n).__name__ for n, _ in mul.next_functions] == ["AccumulateGrad", "AccumulateGrad"]
    assert mul.next_functions[0][0].variable is w


def test_03_seed_is_wrong_y_minus_3_is_a_new_sub_node():
    """The seed claims (y - 3).grad_fn is MulBackward0; it is SubBackward0, a node for the new op."""
    w = torch.tensor(2.0, requires_grad=True)
    y = w * w + 3
    z = y - 3
    assert node_name(z) == "SubBackward0"
    assert z.grad_fn is not y.grad_fn
    assert z.grad_fn.next_functions[0][0] is y.grad_fn


def test_03_leaves_and_requires_grad():
    a = torch.tensor(1.0)
    assert a.grad_fn is None and a.is_leaf and not a.requires_grad
    w = torch.tensor(1.0, requires_grad=True)
    assert w.grad_fn is None and w.is_leaf and w.requires_grad
    product = a * w
    assert not product.is_leaf and product.requires_grad
    constant = a * 2
    assert constant.grad_fn is None and constant.is_leaf and not constant.requires_grad


def test_03_define_by_run_each_iteration_builds_a_new_graph():
    x = torch.tensor(3.0, requires_grad=True)
    names = []
    for step in range(2):
        y = x * x if step == 0 else x + x
        names.append(node_name(y))
    assert names == ["MulBackward0", "AddBackward0"]


def _very_simple_network():
    values = {"a": 2.0, "w1": 0.5, "w2": -1.0, "w3": 3.0, "w4": 4.0}
    leaves = {k: torch.tensor(v, requires_grad=True) for k, v in values.items()}
    a, w1, w2, w3, w4 = (leaves[k] for k in ("a", "w1", "w2", "w3", "w4"))
    b = w1 * a
    c = w2 * a
    d = w3 * b + w4 * c
    L = 10 - d
    return values, leaves, (b, c, d, L)


def test_03_very_simple_neural_network_by_hand_and_by_autograd():
    values, leaves, (b, c, d, L) = _very_simple_network()
    a, w1, w2, w3, w4 = (values[k] for k in ("a", "w1", "w2", "w3", "w4"))
    assert L.item() == pytest.approx(10 - (w3 * w1 * a + w4 * w2 * a))
    assert node_name(L) == "RsubBackward1"
    assert node_name(d) == "AddBackward0"
    assert node_name(b) == node_name(c) == "MulBackward0"
    assert all(t.is_leaf for t in leaves.values())
    assert not any(t.is_leaf for t in (b, c, d, L))
    L.backward()
    by_hand = {
        "w1": -w3 * a,  # dL/dw1 = dL/dd * dd/db * db/dw1 = -1 * w3 * a
        "w2": -w4 * a,
        "w3": -w1 * a,
        "w4": -w2 * a,
        "a": -(w3 * w1 + w4 * w2),  # a reaches L along two paths: their gradients add
    }
    for name, expected in by_hand.items():
        assert leaves[name].grad.item() == pytest.approx(expected), f"dL/d{name}"


def test_03_backward_visits_nodes_in_topological_order():
    from autograd_lab.engine import execution_order

    _, _, (b, c, d, L) = _very_simple_network()
    order = [type(n).__name__ for n in execution_order(L)]
    assert order[0] == "RsubBackward1" and order[1] == "AddBackward0"
    position = {id(n): i for i, n in enumerate(execution_order(L))}
    for node in execution_order(L):  # every node runs before the nodes it sends gradients to
        for nxt, _ in node.next_functions:
            if nxt is not None:
                assert position[id(node)] < position[id(nxt)]
    assert sorted(order) == sorted(
        ["RsubBackward1", "AddBackward0", "MulBackward0", "MulBackward0", "MulBackward0", "MulBackward0"]
        + ["AccumulateGrad"] * 5
    )


# ---------------------------------------------------------------------------- 04 leaves, hooks
def test_04_seed_is_wrong_non_leaf_grad_warns_and_is_none():
    """The seed says reading mid.grad is an error; PyTorch warns (UserWarning) and returns None."""
    x = torch.tensor(1.0, requires_grad=True)
    mid = x * 2
    y = mid * 3
    y.backward()
    with pytest.warns(UserWarning, match="is not a leaf Tensor is being accessed") as record:
        value = mid.grad
    assert value is None
    assert str(record[0].message).startswith(NON_LEAF_GRAD_WARNING_START)
    assert x.grad.item() == 6.0


def test_04_retain_grad_fills_the_non_leaf_grad():
    x = torch.tensor(1.0, requires_grad=True)
    mid = x * 2
    mid.retain_grad()
    y = mid * 3
    y.backward()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a retained grad is read without a warning
        assert mid.grad.item() == 3.0, f"dy/dmid = 3, got {mid.grad}"
    assert mid.retains_grad


def test_04_hook_sees_and_changes_a_gradient():
    x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    seen = []
    mid = x * 10
    mid.register_hook(lambda g: seen.append(g.tolist()))
    mid.register_hook(lambda g: g.clamp(-1.0, 1.0))  # gradient clipping
    (mid * torch.tensor([0.5, -5.0, 2.0])).sum().backward()
    assert seen == [[0.5, -5.0, 2.0]]
    assert x.grad.tolist() == [5.0, -10.0, 10.0]


def test_04_backward_twice_raises_and_retain_graph_keeps_the_graph():
    x = torch.tensor(1.0, requires_grad=True)
    y = (x * 2) * 3
    y.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward()
    x2 = torch.tensor(1.0, requires_grad=True)
    y2 = (x2 * 2) * 3
    y2.backward(retain_graph=True)
    y2.backward()
    assert x2.grad.item() == 12.0


def test_04_second_derivative_of_x_cubed_is_6x():
    x = torch.tensor(2.0, requires_grad=True)
    y = x**3
    (dy,) = torch.autograd.grad(y, x, create_graph=True)
    assert dy.item() == 12.0, "dy/dx = 3x^2 = 12"
    assert dy.requires_grad
    (d2y,) = torch.autograd.grad(dy, x)
    assert d2y.item() == 12.0, "d2y/dx2 = 6x = 12"
    x.grad = None
    y = x**3
    with pytest.warns(UserWarning, match="will create a reference cycle"):  # PyTorch's warning too
        y.backward(create_graph=True)
    g = x.grad
    x.grad = None
    g.backward()
    assert x.grad.item() == 12.0


def test_04_hessian_vector_product_by_double_backward():
    x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    f = x[0] ** 2 * x[1] + x[1] ** 3  # H = [[2 x1, 2 x0], [2 x0, 6 x1]] = [[4, 2], [2, 12]]
    (g,) = torch.autograd.grad(f, x, create_graph=True)
    v = torch.tensor([1.0, -1.0], dtype=torch.float64)
    (hv,) = torch.autograd.grad((g * v).sum(), x)
    assert hv.tolist() == [2.0, -10.0]


# ---------------------------------------------------------------------------- 05 accumulation
def _sgd_by_hand(w, lr: float) -> None:
    with torch.no_grad():
        w -= lr * w.grad


def test_05_gradients_accumulate_sgd_by_hand():
    w = torch.tensor(2.0, requires_grad=True)
    (w * w).sum().backward()
    assert w.grad.item() == 4.0
    _sgd_by_hand(w, 0.1)
    assert w.item() == pytest.approx(1.6)
    (w * w).sum().backward()
    assert w.grad.item() == pytest.approx(7.2), "3.2 + 4.0: without zeroing, gradients add up"
    w.grad = None  # what zero_grad() does by default (set_to_none=True)
    (w * w).sum().backward()
    assert w.grad.item() == pytest.approx(3.2)


def test_05_gradients_accumulate_with_optim_sgd():
    optim = torch.optim
    w = torch.tensor(2.0, requires_grad=True)
    opt = optim.SGD([w], lr=0.1)
    (w * w).sum().backward()
    assert w.grad.item() == 4.0
    opt.step()
    assert w.item() == pytest.approx(1.6)
    (w * w).sum().backward()
    assert w.grad.item() == pytest.approx(7.2)
    opt.zero_grad()
    assert w.grad is None, "zero_grad() sets grads to None by default, as PyTorch does"
    (w * w).sum().backward()
    assert w.grad.item() == pytest.approx(3.2)


def test_05_accumulation_over_micro_batches_equals_the_large_batch():
    rng = np.random.default_rng(0)
    data = torch.tensor(rng.standard_normal((8, 3)))
    target = torch.tensor(rng.standard_normal(8))
    w = torch.zeros(3, dtype=torch.float64, requires_grad=True)
    ((data @ w - target) ** 2).mean().backward()
    full = w.grad.clone()
    w.grad = None
    for part, t in zip(data.split(2), target.split(2)):
        (((part @ w - t) ** 2).mean() / 4).backward()
    np.testing.assert_allclose(w.grad.numpy(), full.numpy(), rtol=1e-5)


# ---------------------------------------------------------------------------- 06 no_grad, Jacobians
def test_06_no_grad_builds_no_graph():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    with torch.no_grad():
        y = w * 2
    assert y.grad_fn is None and not y.requires_grad

    @torch.no_grad()
    def evaluate(v):
        return (v * w).sum()

    assert evaluate(torch.ones(2)).grad_fn is None
    with torch.no_grad():
        with torch.enable_grad():
            assert (w * 2).requires_grad
    with torch.set_grad_enabled(False):
        assert not (w * 2).requires_grad
    logged = (w * 3).detach()
    assert logged.is_leaf and not logged.requires_grad


def test_06_jacobian_row_by_row_equals_functional_jacobian():
    def f(x):
        return torch.stack([x[0] * x[1], x[0] ** 2, x[1].sin()])

    x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    y = f(x)
    rows = [torch.autograd.grad(y[i], x, retain_graph=True)[0] for i in range(3)]
    by_rows = torch.stack(rows)
    expected = np.array([[2.0, 1.0], [2.0, 0.0], [0.0, np.cos(2.0)]])
    np.testing.assert_allclose(by_rows.numpy(), expected)
    np.testing.assert_allclose(torch.autograd.functional.jacobian(f, x).numpy(), expected)
