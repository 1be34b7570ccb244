"""function.py: the graph's nodes and Function: custom Functions (saved tensors, needs_input_grad,
non-differentiable outputs, materialize_grads), AccumulateGrad, what a node reports; integer and bool
results are never differentiable."""

from __future__ import annotations

import itertools

import numpy as np
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


S = (2, 3)
SAVING_OPS = {  # ops whose nodes save several inputs: each kept only for a gradient that is wanted
    "mul": (lambda L, a, b: a * b, [S, S]),
    "div": (lambda L, a, b: a / b, [S, S]),
    "pow": (lambda L, a, b: a ** b, [S, S]),
    "maximum": (lambda L, a, b: L.maximum(a, b), [S, S]),
    "atan2": (lambda L, a, b: L.atan2(a, b), [S, S]),
    "hypot": (lambda L, a, b: L.hypot(a, b), [S, S]),
    "remainder": (lambda L, a, b: L.remainder(a, b), [S, S]),
    "lerp": (lambda L, a, b, c: L.lerp(a, b, c), [S, S, S]),
    "addcmul": (lambda L, a, b, c: L.addcmul(a, b, c), [S, S, S]),
    "addcdiv": (lambda L, a, b, c: L.addcdiv(a, b, c), [S, S, S]),
    "clamp": (lambda L, a, b, c: L.clamp(a, b, c), [S, S, S]),
    "where": (lambda L, a, b: L.where(a > 1, a, b), [S, S]),
    "outer": (lambda L, a, b: L.outer(a, b), [(3,), (2,)]),
    "matmul": (lambda L, a, b: L.matmul(a, b), [(2, 2, 3), (3, 2)]),
    "matmul_vector": (lambda L, a, b: a @ b, [S, (3,)]),
    "dot": (lambda L, a, b: L.dot(a, b), [(3,), (3,)]),
    "mse_loss": (lambda L, a, b: L.nn.functional.mse_loss(a, b), [S, S]),
    "linear": (lambda L, a, b, c: L.nn.functional.linear(a, b, c), [S, (4, 3), (4,)]),
    "layer_norm": (lambda L, a, b, c: L.nn.functional.layer_norm(a, (3,), b, c), [S, (3,), (3,)]),
    "conv2d": (lambda L, a, b: L.nn.functional.conv2d(a, b), [(1, 1, 3, 3), (1, 1, 2, 2)]),
}


@pytest.mark.parametrize("op", SAVING_OPS)
def test_nodes_save_the_tensors_pytorch_saves(op):
    """For every choice of inputs that require grad: which ``_saved_*`` tensors are None, as PyTorch."""
    if torch is None:
        pytest.skip("PyTorch is not installed")
    fn, shapes = SAVING_OPS[op]
    arrays = [np.random.default_rng(i).uniform(0.5, 1.5, s) for i, s in enumerate(shapes)]
    for grads in itertools.product([True, False], repeat=len(shapes)):
        if not any(grads):
            continue
        outcomes = []
        for lib in (torch, al):
            node = fn(lib, *(lib.tensor(x, requires_grad=g) for x, g in zip(arrays, grads))).grad_fn
            names = [n for n in dir(node) if n.startswith("_saved_")] if lib is torch else outcomes[0][1]
            tensors = [n for n in names if lib is al or isinstance(getattr(node, n), torch.Tensor | None)]
            outcomes.append((type(node).__name__, tensors, [getattr(node, n) is None for n in tensors]))
        assert outcomes[0] == outcomes[1], grads
