"""The backward engine's semantics: accumulation, retain_graph/create_graph, autograd.grad, hooks,
grad modes, detach, custom Functions, gradcheck, functional Jacobians, in-place ops and versions,
requires_grad rules, and the order in which nodes run."""

from __future__ import annotations

import threading
import warnings

import numpy as np
import pytest

import autograd_lab as torch
from autograd_lab import engine
from autograd_lab.autograd import Function, GradcheckError, functional, gradcheck, gradgradcheck
from autograd_lab.function import is_anomaly_enabled


def f64(values, requires_grad: bool = True) -> torch.Tensor:
    return torch.tensor(values, dtype=torch.float64, requires_grad=requires_grad)


def name(node) -> str:
    return type(node).__name__


# ---------------------------------------------------------------------------- accumulation, graphs
def test_gradients_accumulate_across_backward_calls():
    x = f64([1.0, 2.0])
    for k in range(1, 4):
        (x * x).sum().backward()
        assert x.grad.tolist() == [2.0 * k, 4.0 * k]


def test_grad_is_a_new_tensor_not_the_incoming_gradient():
    x = f64([1.0, 2.0])
    g = f64([1.0, 1.0], requires_grad=False)
    (x * 1).backward(g)
    x.grad.add_(1)  # changing .grad must not change the gradient the caller passed in
    assert g.tolist() == [1.0, 1.0]
    assert not x.grad.requires_grad and x.grad.grad_fn is None


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


# ---------------------------------------------------------------------------- autograd.grad
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


# ---------------------------------------------------------------------------- hooks
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


# ---------------------------------------------------------------------------- grad modes
def test_no_grad_enable_grad_set_grad_enabled_as_context_managers():
    x = f64([1.0])
    assert torch.is_grad_enabled()
    with torch.no_grad():
        assert not torch.is_grad_enabled()
        assert not (x * 2).requires_grad
        with torch.enable_grad():
            assert (x * 2).requires_grad
        with torch.set_grad_enabled(True):
            assert (x * 2).requires_grad
        assert not torch.is_grad_enabled()
    assert torch.is_grad_enabled()
    with torch.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    assert torch.is_grad_enabled()


def test_set_grad_enabled_as_a_function_call():
    try:
        torch.set_grad_enabled(False)
        assert not torch.is_grad_enabled()
    finally:
        torch.set_grad_enabled(True)
    assert torch.is_grad_enabled()


def test_grad_modes_as_decorators():
    x = f64([1.0])

    @torch.no_grad()
    def infer(t):
        return t * 2

    @torch.enable_grad()
    def train(t):
        return t * 2

    @torch.set_grad_enabled(False)
    def also_infer(t):
        return t * 2

    assert torch.is_grad_enabled(), "decorating must not change the mode"
    assert not infer(x).requires_grad
    assert not also_infer(x).requires_grad
    with torch.no_grad():
        assert train(x).requires_grad
    assert infer.__name__ == "infer"


def test_grad_mode_is_restored_after_an_exception():
    with pytest.raises(ValueError):
        with torch.no_grad():
            raise ValueError
    assert torch.is_grad_enabled()


def test_grad_mode_is_thread_local():
    seen = {}
    started, release = threading.Event(), threading.Event()

    def worker():
        seen["new thread starts enabled"] = torch.is_grad_enabled()
        with torch.no_grad():
            started.set()
            release.wait(5)
            seen["inside worker no_grad"] = torch.is_grad_enabled()

    with torch.no_grad():
        t = threading.Thread(target=worker)
        t.start()
    started.wait(5)
    seen["main thread while worker is in no_grad"] = torch.is_grad_enabled()
    release.set()
    t.join(5)
    assert seen == {"new thread starts enabled": True, "inside worker no_grad": False,
                    "main thread while worker is in no_grad": True}


def test_inference_mode():
    x = f64([1.0])
    with torch.inference_mode():
        assert not (x * 2).requires_grad
    assert (x * 2).requires_grad


# ---------------------------------------------------------------------------- detach
def test_detach_shares_data_and_version_but_not_the_graph():
    x = f64([1.0, 2.0])
    h = x * 2
    y = h * h  # saves h at version 0
    d = h.detach()
    assert d.is_leaf and not d.requires_grad and d.grad_fn is None
    d[0] = 10.0  # shares memory and the version counter with h
    assert h[0].item() == 10.0 and h._version == 1
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_detach_in_place():
    x = f64([1.0, 2.0])
    h = x * 2
    out = h.detach_()
    assert out is h and h.grad_fn is None and not h.requires_grad and h.is_leaf


def test_detach_in_place_of_a_view_raises():
    x = f64([1.0, 2.0])
    with pytest.raises(RuntimeError, match="Can't detach views in-place"):
        x[0:1].detach_()


# ---------------------------------------------------------------------------- custom Function
class ScaleAndIndex(Function):
    """Returns (x * k, argmax(x)); the index output is not differentiable."""

    @staticmethod
    def forward(ctx, x, k):
        ctx.save_for_backward(x)
        ctx.k = k
        ctx.seen_needs = ctx.needs_input_grad
        idx = x.argmax()
        ctx.mark_non_differentiable(idx)
        return x * k, idx

    @staticmethod
    def backward(ctx, grad, grad_idx):
        (x,) = ctx.saved_tensors
        return grad * ctx.k, None


def test_custom_function_saved_tensors_needs_input_grad_and_non_differentiable_outputs():
    x = f64([1.0, 5.0, 2.0])
    y, idx = ScaleAndIndex.apply(x, 3.0)
    assert name(y.grad_fn) == "ScaleAndIndexBackward"
    assert y.grad_fn.needs_input_grad == (True, False)
    assert idx.grad_fn is None and not idx.requires_grad and idx.item() == 1
    assert y.grad_fn.next_functions[0][0].variable is x
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0, 3.0]
    assert gradcheck(lambda t: ScaleAndIndex.apply(t, 3.0)[0], (x,))


def test_custom_function_forward_runs_without_recording():
    seen = {}

    class Probe(Function):
        @staticmethod
        def forward(ctx, x):
            seen["grad enabled in forward"] = torch.is_grad_enabled()
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    out = Probe.apply(f64([1.0]))
    assert seen == {"grad enabled in forward": False}
    assert name(out.grad_fn) == "ProbeBackward"


def test_custom_function_with_no_input_requiring_grad_records_nothing():
    class Double(Function):
        @staticmethod
        def forward(ctx, x):
            assert ctx.needs_input_grad == (False,)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    out = Double.apply(f64([1.0], requires_grad=False))
    assert out.grad_fn is None and not out.requires_grad


def test_custom_function_wrong_number_of_gradients():
    class Wrong(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g, g

    with pytest.raises(RuntimeError) as info:
        Wrong.apply(f64([1.0])).sum().backward()
    assert str(info.value) == (
        "function WrongBackward returned an incorrect number of gradients (expected 1, got 2)"
    )


def test_custom_function_gradient_of_the_wrong_shape():
    class BadShape(Function):
        @staticmethod
        def forward(ctx, x):
            return x.sum()

        @staticmethod
        def backward(ctx, g):
            return torch.ones(5, dtype=torch.float64)

    with pytest.raises(RuntimeError) as info:
        BadShape.apply(f64([1.0, 2.0])).backward()
    assert str(info.value) == (
        "Function BadShapeBackward returned an invalid gradient at index 0 - got [5] but expected "
        "shape compatible with [2]"
    )


def test_custom_function_returning_its_input_gives_a_new_tensor():
    class Identity(Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    x = f64([1.0])
    y = Identity.apply(x)
    assert y is not x and name(y.grad_fn) == "IdentityBackward" and x.is_leaf
    y.sum().backward()
    assert x.grad.tolist() == [1.0]


def test_custom_function_materialize_grads():
    seen = []

    class Two(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 1, x * 2

        @staticmethod
        def backward(ctx, g1, g2):
            seen.append((g1 is None, g2 is None))
            return g1 if g1 is not None else g2 * 2

    x = f64([1.0])
    a, b = Two.apply(x)
    (b * 1).sum().backward()
    assert seen == [(True, False)] and x.grad.tolist() == [2.0]


def test_custom_function_without_backward():
    class NoBackward(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

    with pytest.raises(NotImplementedError, match="You must implement either the backward or vjp method"):
        NoBackward.apply(f64([1.0])).sum().backward()


def test_saved_tensors_are_unavailable_after_backward():
    x = f64([1.0, 2.0])
    y = x.exp()
    node = y.grad_fn
    y.sum().backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        node.saved_tensors  # noqa: B018


# ---------------------------------------------------------------------------- gradcheck
class WrongExp(Function):
    @staticmethod
    def forward(ctx, x):
        out = x.exp()
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, g):
        (out,) = ctx.saved_tensors
        return g * out * 1.01  # 1% off


def test_gradcheck_catches_a_wrong_backward():
    x = f64([0.5, -1.0])
    with pytest.raises(GradcheckError, match="Jacobian mismatch for output 0 with respect to input 0"):
        gradcheck(WrongExp.apply, (x,))
    assert gradcheck(WrongExp.apply, (x,), raise_exception=False) is False
    assert gradcheck(torch.exp, (x,))


def test_gradgradcheck_catches_a_wrong_double_backward():
    class FirstOrderOnly(Function):
        """Correct first derivative of x^2, but its backward is not differentiable (it uses data)."""

        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * torch.tensor(2 * x.detach().numpy())

    x = f64([0.5, -1.0])
    assert gradcheck(FirstOrderOnly.apply, (x,))
    assert gradgradcheck(FirstOrderOnly.apply, (x,), raise_exception=False) is False
    assert gradgradcheck(lambda t: t * t, (x,))


def test_gradcheck_warns_for_float32_inputs():
    x = torch.tensor([1.0], requires_grad=True)
    with pytest.warns(UserWarning, match="is not a double precision floating point"):
        assert gradcheck(lambda t: t * 2, (x,), eps=1e-2, atol=1e-2, rtol=1e-2)


def test_gradcheck_perturbs_non_contiguous_inputs():
    base = torch.arange(6.0, dtype=torch.float64).reshape(2, 3)
    x = base.t().detach().requires_grad_()  # a transposed, non-contiguous leaf
    assert not x.is_contiguous()
    assert gradcheck(lambda t: (t * t).sum(0), (x,))
    with pytest.raises(GradcheckError):
        gradcheck(WrongExp.apply, (x,))


# ---------------------------------------------------------------------------- functional
def test_functional_jacobian_known_answer():
    def f(x):
        return torch.stack([x[0] * x[1], x[0].exp(), x[1] ** 3])

    x = f64([1.0, 2.0], requires_grad=False)
    J = functional.jacobian(f, x)
    np.testing.assert_allclose(J.numpy(), [[2.0, 1.0], [np.e, 0.0], [0.0, 12.0]])
    assert not J.requires_grad and x.grad is None


def test_functional_jacobian_of_several_inputs_and_outputs():
    def f(a, b):
        return a * b, (a + b).sum()

    a, b = f64([1.0, 2.0], False), f64([3.0, 4.0], False)
    (ja, jb), (sa, sb) = functional.jacobian(f, (a, b))
    np.testing.assert_allclose(ja.numpy(), np.diag([3.0, 4.0]))
    np.testing.assert_allclose(jb.numpy(), np.diag([1.0, 2.0]))
    np.testing.assert_allclose(sa.numpy(), [1.0, 1.0])
    np.testing.assert_allclose(sb.numpy(), [1.0, 1.0])


def test_functional_hessian_hvp_vjp_known_answers():
    def f(x):
        return x[0] ** 2 * x[1] + x[1] ** 3

    x = f64([1.0, 2.0], False)
    H = functional.hessian(f, x)
    np.testing.assert_allclose(H.numpy(), [[4.0, 2.0], [2.0, 12.0]])
    value, hv = functional.hvp(f, x, f64([1.0, -1.0], False))
    assert value.item() == 10.0
    np.testing.assert_allclose(hv.numpy(), [2.0, -10.0])
    out, v = functional.vjp(lambda t: t * t, x, f64([1.0, 1.0], False))
    np.testing.assert_allclose(out.numpy(), [1.0, 4.0])
    np.testing.assert_allclose(v.numpy(), [2.0, 4.0])


def test_hessian_of_a_quadratic_form_is_a_plus_a_transpose():
    A = torch.tensor(np.random.default_rng(0).standard_normal((3, 3)))
    H = functional.hessian(lambda x: x @ A @ x, torch.zeros(3, dtype=torch.float64))
    np.testing.assert_allclose(H.numpy(), A.numpy() + A.numpy().T, rtol=1e-12)


# ---------------------------------------------------------------------------- in place, versions
def test_in_place_ops_bump_the_version_and_views_share_it():
    x = torch.ones(2, 3)
    v = x.view(6)
    row = x[1]
    assert x._version == v._version == row._version == 0
    v.add_(1)
    assert x._version == v._version == row._version == 1
    row.mul_(3)
    assert x._version == 2
    assert x.tolist() == [[2.0, 2.0, 2.0], [6.0, 6.0, 6.0]]
    y = x + 1  # out of place: a new tensor with its own counter
    assert y._version == 0


def test_in_place_on_a_non_leaf_rebases_its_history():
    x = f64([1.0, 2.0])
    h = x * 2
    h.add_(1)
    assert name(h.grad_fn) == "AddBackward0"
    assert name(h.grad_fn.next_functions[0][0]) == "MulBackward0"
    h.mul_(3)
    assert name(h.grad_fn) == "MulBackward0" and h._version == 2
    h.sum().backward()
    assert x.grad.tolist() == [6.0, 6.0]


def test_in_place_product_of_a_tensor_with_itself_is_refused_at_backward():
    """``h.mul_(h)`` saves h as the other factor, then overwrites it: PyTorch refuses too."""
    x = f64([1.0, 2.0])
    h = x * 2
    h.add_(1)
    h.mul_(h)
    with pytest.raises(RuntimeError) as info:
        h.sum().backward()
    assert str(info.value).startswith(
        "one of the variables needed for gradient computation has been modified by an inplace operation: "
        "[torch.DoubleTensor [2]], which is output 0 of Mul, is at version 2; expected version 1 instead."
    )


def test_in_place_change_of_a_saved_tensor_is_caught():
    x = f64([1.0, 2.0])
    h = x * 1
    y = h.exp()  # saves its output
    y.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_in_place_change_through_a_view_of_a_saved_tensor_is_caught():
    x = f64([1.0, 2.0])
    h = x * 1
    y = h * h  # saves h
    with torch.no_grad():
        h.view(2)[0] = 5.0
    with pytest.raises(RuntimeError, match="is at version 1; expected version 0"):
        y.sum().backward()


def test_in_place_on_a_leaf_is_allowed_under_no_grad():
    w = f64([1.0, 2.0])
    with torch.no_grad():
        w -= 0.5 * torch.ones(2, dtype=torch.float64)
    assert w.is_leaf and w.requires_grad and w.tolist() == [0.5, 1.5] and w._version == 1


def test_setitem_on_non_leaf_records_copyslices():
    x = f64([1.0, 2.0, 3.0])
    v = f64(10.0)
    y = x * 2
    y[1] = v * 3
    assert name(y.grad_fn) == "CopySlices"
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 0.0, 2.0] and v.grad.item() == 3.0


@pytest.mark.parametrize("key, node", [
    ((1,), "CopySlices"), ((slice(1, None),), "CopySlices"), ((None,), "CopySlices"),
    ((Ellipsis,), "CopyBackwards"), ((slice(None),), "CopyBackwards"),
    (([0, 2],), "IndexPutBackward0"),
])
def test_setitem_node_names(key, node):
    x = f64([1.0, 2.0, 3.0])
    y = x * 1
    y[key] = 0.0
    assert name(y.grad_fn) == node


# ---------------------------------------------------------------------------- requires_grad rules
def test_requires_grad_rules():
    a = torch.tensor([1.0])
    w = torch.tensor([1.0], requires_grad=True)
    assert not (a * 2).requires_grad and (a * w).requires_grad
    assert (a * w).grad_fn is not None and not (a * w).is_leaf
    with pytest.raises(RuntimeError, match="you can only change requires_grad flags of leaf variables"):
        (a * w).requires_grad = False
    (a * w).requires_grad = True  # allowed (a no-op)
    a.requires_grad_()
    assert a.requires_grad and a.is_leaf
    assert a.requires_grad_(False) is a and not a.requires_grad
    i = torch.tensor([1, 2])
    assert not (i * w.detach()).requires_grad
    assert w.long().grad_fn is None and not w.long().requires_grad, "integer results never require grad"
    assert (w > 0).grad_fn is None


def test_numpy_interop_refuses_tensors_that_require_grad():
    w = torch.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="Use tensor.detach"):
        w.numpy()
    assert w.detach().numpy().tolist() == [1.0]


# ---------------------------------------------------------------------------- order of execution
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


# ---------------------------------------------------------------------------- anomaly mode
def test_detect_anomaly_reports_where_the_failing_op_was_made():
    x = f64([1.0, 2.0])
    with torch.autograd.detect_anomaly():
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


def test_accumulate_grad_names_as_pytorch():
    w = torch.ones(2, requires_grad=True)
    mul = (w * 2).grad_fn
    acc = mul.next_functions[0][0]
    assert mul.name() == "MulBackward0"
    assert acc.name() == "torch::autograd::AccumulateGrad"  # the C++ name, as PyTorch's name()
    assert type(acc).__name__ == "AccumulateGrad"
    assert repr(acc).startswith("<AccumulateGrad object at 0x")


# ---------------------------------------------------------------------------- the walk and the hooks
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


def test_accumulate_grad_reports_hooks_only_when_its_leaf_has_some():
    """The engine runs the hook steps only for nodes with hooks: a leaf without hooks has none."""
    w = f64([1.0])
    acc = (w * 2).grad_fn.next_functions[0][0]
    assert not acc._tensor_hooks
    handle = w.register_hook(lambda g: g * 3)
    assert acc._tensor_hooks == {0: w._leaf_hooks}
    (w * 2).sum().backward()
    assert w.grad.tolist() == [6.0]
    handle.remove()
    assert not acc._tensor_hooks
