"""function.py: the graph's nodes and Function: custom Functions (saved tensors, needs_input_grad,
non-differentiable outputs, materialize_grads), AccumulateGrad, what a node reports; integer and bool
results are never differentiable."""

from __future__ import annotations

import pytest
from helpers import f64, name, needs_torch, torch
from op_cases import I, make

import autograd_lab as al
from autograd_lab.autograd import Function, gradcheck


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
            seen["grad enabled in forward"] = al.is_grad_enabled()
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
            return al.ones(5, dtype=al.float64)

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


@pytest.mark.parametrize("lib", [pytest.param(al, id="autograd_lab"),
                                 pytest.param(torch, id="torch", marks=needs_torch)])
def test_an_input_never_saved_reads_none_after_backward(lib):
    a, b = lib.ones(2, 3, requires_grad=True), lib.ones(3)
    y = a @ b
    y.sum().backward()
    assert y.grad_fn._saved_self is None  # never saved: nothing was freed
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.grad_fn._saved_vec  # noqa: B018


def test_saved_for_keeps_only_what_a_wanted_gradient_reads():
    """``saved_for`` (derivatives.yaml's rule): a factor is kept only for the other factor's gradient."""

    class Times(Function):
        saved_names = ("a", "b")
        saved_for = ((1,), (0,))

        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a * b

        @staticmethod
        def backward(ctx, grad):
            a, b = ctx.saved_tensors
            return (grad * b if b is not None else None), (grad * a if a is not None else None)

    x, c = f64([1.0, 2.0]), f64([3.0, 4.0], requires_grad=False)
    y = Times.apply(x, c)
    assert y.grad_fn._saved_a is None and y.grad_fn._saved_b.tolist() == [3.0, 4.0]
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 4.0]
    assert y.grad_fn._saved_a is None
    both = Times.apply(x, f64([3.0, 4.0])).grad_fn
    assert both._saved_a is not None and both._saved_b is not None


def test_accumulate_grad_names_as_pytorch():
    w = al.ones(2, requires_grad=True)
    mul = (w * 2).grad_fn
    acc = mul.next_functions[0][0]
    assert mul.name() == "MulBackward0"
    assert acc.name() == "torch::autograd::AccumulateGrad"  # the C++ name, as PyTorch's name()
    assert type(acc).__name__ == "AccumulateGrad"
    assert repr(acc).startswith("<AccumulateGrad object at 0x")


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


# ---------------------------------------------------------------------------- integer results
def test_integer_results_are_not_differentiable():
    x = make((3,), 0)
    assert al.floor_divide(x.detach().long(), 2).grad_fn is None
    assert al.sort(x).indices.requires_grad is False
    assert al.isnan(x).requires_grad is False
    assert al.any(x).dtype is al.bool and al.count_nonzero(x).dtype is al.int64
    assert al.floor_divide(x, 2.0).requires_grad  # recorded, without a derivative
    with pytest.raises(RuntimeError, match="derivative for aten::floor_divide is not implemented"):
        al.floor_divide(x, 2.0).sum().backward()



@pytest.mark.parametrize("lib", [pytest.param(al, id="autograd_lab"),
                                 pytest.param(torch, id="torch", marks=needs_torch)])
def test_integer_results(lib):
    x = lib.arange(12).reshape(3, 4)
    assert lib.trace(x).dtype == lib.int64 and lib.trace(x).item() == 15
    assert lib.einsum("ij->j", x).tolist() == [12, 15, 18, 21]
    assert lib.gather(x, 1, I(lib, [[3], [0], [1]])).tolist() == [[3], [4], [9]]
    assert lib.flip(x, [0])[0].tolist() == [8, 9, 10, 11]
    assert lib.addmm(lib.ones(2, 2), lib.ones(2, 3), lib.ones(3, 2), beta=0).tolist() == [[3.0, 3.0]] * 2
    nan = lib.full((2, 2), float("nan"))
    assert lib.addmm(nan, lib.ones(2, 2), lib.ones(2, 2), beta=0).tolist() == [[2.0, 2.0]] * 2
