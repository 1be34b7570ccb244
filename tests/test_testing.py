"""autograd_lab.testing: each check fails on what it guards against, and passes the right thing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import autograd_lab as torch
from autograd_lab import nn
from autograd_lab.testing import (
    ForbiddenCall,
    call,
    describe,
    expect_close,
    expect_equal,
    expect_function,
    expect_not_alias,
    expect_raises,
    expect_type,
    forbid,
    graph_freed,
    numerical_vjp,
    spy,
    watch_hooks,
)

sys.path.insert(0, str(Path(__file__).resolve().parent))
import exercise_helpers as eh  # noqa: E402


class EqualsAnything(tuple):
    def __eq__(self, other):
        return True

    __hash__ = tuple.__hash__


# --- values ---------------------------------------------------------------------------------

def test_expect_equal_wants_the_same_types_all_the_way_down():
    expect_equal((4, 3), (4, 3), what="s")
    with pytest.raises(AssertionError, match=r"s: expected \(4, 3\), got \[4, 3\] \(a list where a tuple"):
        expect_equal([4, 3], (4, 3), what="s")
    with pytest.raises(AssertionError, match=r"numpy.int64 at \[1\] where a int is expected"):
        expect_equal((4, np.int64(3)), (4, 3), what="s")
    with pytest.raises(AssertionError, match="EqualsAnything where a tuple"):
        expect_equal(EqualsAnything((1,)), (4, 3), what="s")
    with pytest.raises(AssertionError, match=r"expected \{'a': 1\}"):
        expect_equal({"a": True}, {"a": 1}, what="d")
    with pytest.raises(AssertionError, match="'b' missing"):
        expect_equal({"a"}, {"a", "b"}, what="keys")


def test_expect_equal_names_a_known_mistake_and_can_keep_the_answer_hidden():
    with pytest.raises(AssertionError, match="Hint: that is max") as e:
        expect_equal((1,), (0,), what="b", hint="generic", mistakes={"that is max": (1,)})
    with pytest.raises(AssertionError) as e:
        expect_equal((3,), (1, 3, 1, 1), what="p", reveal=False)
    assert "(1, 3, 1, 1)" not in str(e.value) and "4 items" not in str(e.value)
    assert "expected another value, got (3,)" in str(e.value)


def test_expect_close_kinds_shapes_dtypes_and_tolerance():
    expect_close(np.array([1.0, 2.0]) + 1e-9, np.array([1.0, 2.0]), what="a")
    expect_close(np.float64(66.0), np.array(66.0), what="0-d")
    expect_close(torch.tensor([1.0, float("nan")]), torch.tensor([1.0, float("nan")]), what="t")
    expect_close(3, 3.0, what="n")
    with pytest.raises(AssertionError, match=r"expected a NumPy array \(numpy.ndarray\), got tensor"):
        expect_close(torch.tensor([1.0]), np.array([1.0]), what="a")
    with pytest.raises(AssertionError, match="expected an autograd_lab Tensor"):
        expect_close(np.array([1.0]), torch.tensor([1.0]), what="t")
    with pytest.raises(AssertionError, match=r"expected shape \(1, 3\), got shape \(3,\)"):
        expect_close(np.zeros(3), np.zeros((1, 3)), what="a")
    with pytest.raises(AssertionError, match="expected dtype float32, got dtype float64"):
        expect_close(np.zeros(3), np.zeros(3, np.float32), what="a", dtype=np.float32)
    with pytest.raises(AssertionError, match=r"first difference at index \(1,\): 2.1 instead of 2"):
        expect_close(np.array([1.0, 2.1]), np.array([1.0, 2.0]), what="a")
    with pytest.raises(AssertionError, match="expected a number"):
        expect_close(True, 1.0, what="n")


def test_expect_close_an_infinity_matches_the_same_infinity_only():
    expect_close(np.array([1.0, np.inf, -np.inf]), np.array([1.0, np.inf, -np.inf]), what="a")
    expect_close(float("inf"), float("inf"), what="n")
    for got in ([1.0, -np.inf], [1.0, 5.0], [1.0, np.nan]):
        with pytest.raises(AssertionError, match=r"first difference at index \(1,\)"):
            expect_close(np.array(got), np.array([1.0, np.inf]), what="a")
    with pytest.raises(AssertionError, match="Hint: it overflows"):
        expect_close(np.array([0.0, np.inf]), np.array([0.0, 1000.0]), what="a",
                     mistakes={"it overflows": np.array([0.0, np.inf])})


def test_expect_close_names_a_mistake_by_value_or_by_shape():
    with pytest.raises(AssertionError, match="Hint: the mean"):
        expect_close(np.array([4.5]), np.array([18.0]), what="s", hint="sum",
                     mistakes={"the mean": np.array([4.5])})
    with pytest.raises(AssertionError, match="Hint: keepdim"):
        expect_close(np.zeros(3), np.zeros((1, 3, 1, 1)), what="s", mistakes={"keepdim": np.zeros(3)})


def test_expect_type_is_exact():
    expect_type((), tuple, what="x")
    with pytest.raises(AssertionError, match="expected a tuple, got"):
        expect_type(EqualsAnything(), tuple, what="x")


def test_call_and_expect_raises_say_which_call_did_what():
    def f(a, b):
        raise KeyError("boom")

    message = r"f\(\(4, 3\), <ndarray of shape \(2,\)>\) raised KeyError: 'boom'. Hint: h"
    with pytest.raises(AssertionError, match=message):
        call(f, (4, 3), np.zeros(2), hint="h")
    assert describe(f, 1, b=2) == "f(1, b=2)"
    assert isinstance(expect_raises(KeyError, f, 1, 2), KeyError)
    with pytest.raises(AssertionError, match="expected ValueError, got KeyError: 'boom'"):
        expect_raises(ValueError, f, 1, 2)
    with pytest.raises(AssertionError, match="expected ValueError to be raised, got the return value 3"):
        expect_raises(ValueError, lambda: 3)
    with pytest.raises(AssertionError, match=r"a message containing '\(4,\)'"):
        expect_raises(ValueError, _raise_value_error, match=("(4,)",))


def _raise_value_error():
    raise ValueError("shapes do not broadcast")


# --- forbid ---------------------------------------------------------------------------------

from numpy import broadcast_shapes  # noqa: E402  (the alias a learner's cell would make)


def by_alias(a, b):
    return broadcast_shapes(a, b)


def test_forbid_blocks_every_way_to_the_name_and_restores_it():
    original = np.broadcast_shapes
    off = forbid("numpy.broadcast_shapes", why="this exercise builds it")
    with pytest.raises(ForbiddenCall, match="numpy.broadcast_shapes is switched off while "
                                            "these tests run: this exercise builds it."), off:
        np.broadcast_shapes((1,), (2,))
    with pytest.raises(ForbiddenCall), off:
        by_alias((1,), (2,))
    with pytest.raises(ForbiddenCall), off:
        sys.modules["numpy.lib._stride_tricks_impl"].broadcast_shapes((1,), (2,))  # where it is defined
    assert np.broadcast_shapes is original and broadcast_shapes is original
    assert np.broadcast_shapes((1,), (2,)) == (2,)


def test_forbid_restores_after_an_error_and_as_a_decorator():
    def learner(a):
        return torch.tensor(a).sum_to_size(1)

    guarded = forbid("autograd_lab.Tensor.sum_to_size", why="w")(learner)
    with pytest.raises(ForbiddenCall, match="autograd_lab.Tensor.sum_to_size is switched off"):
        guarded([1.0, 2.0])
    assert learner([1.0, 2.0]).tolist() == [3.0], "put back after the error"
    assert "sum_to_size" in vars(torch.Tensor)


def test_forbid_an_inherited_method_and_a_property():
    bn = nn.BatchNorm2d(2, affine=False)
    with pytest.raises(ForbiddenCall), forbid("autograd_lab.nn.BatchNorm2d.forward", why="w"):
        bn(torch.zeros(2, 2, 1, 1))
    assert "forward" not in vars(nn.BatchNorm2d), "the inherited method is not left shadowed"
    bn(torch.zeros(2, 2, 1, 1))
    t = torch.zeros(2)
    with pytest.raises(ForbiddenCall), forbid("autograd_lab.Tensor.data", why="w"):
        t.data  # noqa: B018
    assert t.data.shape == (2,)


def test_a_caught_forbidden_call_still_fails():
    def sneaky():
        try:
            return np.broadcast_shapes((1,), (2,))
        except AssertionError:
            return (2,)

    with pytest.raises(ForbiddenCall, match="was called while these tests ran"):
        with forbid("numpy.broadcast_shapes", why="w"):
            sneaky()


def test_allow_from_lets_the_library_call_it():
    x = torch.tensor([1.0, 2.0])
    direct = forbid("autograd_lab.Tensor.numpy", why="w", allow_from=("autograd_lab",))
    with direct:
        assert float(x.sum()) == 3.0 and x.tolist() == [1.0, 2.0]
    with pytest.raises(ForbiddenCall), direct:
        x.numpy()


def test_forbid_refuses_a_name_that_does_not_exist():
    with pytest.raises(LookupError, match="numpy has no attribute 'broadcast_shapez'"):
        with forbid("numpy.broadcast_shapez", why="w"):
            pass


# --- how a result was made ------------------------------------------------------------------

def test_spy_counts_calls_and_shapes():
    with spy("autograd_lab.Tensor.sum") as s:
        torch.zeros(2, 3).sum()
        torch.ones(4).sum(0)
    assert s.count == 2 and s[0].shapes == ((2, 3),) and s[1].args[1] == 0
    with spy("autograd_lab.Tensor.sum", keep=False) as s:
        torch.zeros(2).sum()
    assert s[0].args == () and s[0].result is None and s[0].shapes == ((2,),)
    assert torch.zeros(2).sum().item() == 0.0, "the spy is gone"


def test_spy_with_copy_records_the_arguments_as_they_were_given():
    a, t = np.zeros(3), torch.zeros(2)
    with spy("numpy.copyto", copy=True) as s:
        np.copyto(a, 5.0)
    assert a.tolist() == [5.0] * 3 and s[0].args[0].tolist() == [0.0] * 3, "a copy from before the call"
    with spy("autograd_lab.Tensor.add_", copy=True) as s:
        t.add_(1.0)
    assert type(s[0].args[0]) is torch.Tensor and s[0].args[0].tolist() == [0.0, 0.0]
    assert s[0].args[1] == 1.0, "what is neither an array nor a tensor is kept as it is"
    with spy("numpy.copyto") as s:
        np.copyto(a, 7.0)
    assert s[0].args[0] is a, "without copy, the argument itself"


def test_watch_hooks_finds_a_hook_left_registered():
    w = torch.tensor(2.0, requires_grad=True)

    def leaves_it():
        w.register_hook(lambda g: None)

    def removes_it():
        w.register_hook(lambda g: None).remove()

    with watch_hooks() as hooks:
        leaves_it()
    with pytest.raises(AssertionError, match="1 of the 1 hooks it registered still running"):
        hooks.expect_removed(lambda: (w * 3).backward(), what="leaves_it()")
    w2 = torch.tensor(2.0, requires_grad=True)
    with watch_hooks() as hooks:
        w2.register_hook(lambda g: None).remove()
        removes_it()
    hooks.expect_removed(lambda: (w2 * 3).backward(), what="removes_it()")
    assert hooks.count == 2


def test_graph_freed_finds_a_graph_kept_alive():
    w = torch.tensor(2.0, requires_grad=True)
    kept = []
    with pytest.raises(AssertionError, match="nodes of its graphs still alive"):
        with graph_freed(what="summing loss tensors"):
            for _ in range(3):
                kept.append(w * w + 1)
    kept.clear()
    with graph_freed(what="summing floats"):
        total = sum((w * w + 1).item() for _ in range(3))
    assert total == 15.0


def test_expect_not_alias():
    a = np.zeros(3)
    expect_not_alias(a.copy(), a, what="c")
    with pytest.raises(AssertionError, match="got the same object"):
        expect_not_alias(a, a, what="c")
    with pytest.raises(AssertionError, match="a view of the same memory"):
        expect_not_alias(a[1:], a, what="c")
    t = torch.zeros(3)
    with pytest.raises(AssertionError, match="a view"):
        expect_not_alias(t.detach(), t, what="c")
    expect_not_alias(t.clone(), t, what="c")


def test_expect_written_out_reads_the_cell_that_set_the_name(tmp_path):
    check = ("from autograd_lab.testing import expect_written_out\n"
             "expect_written_out('predicted', what='p', hint='predict')")
    cells = ["x = (1, 2)", "predicted = {'a': (1, 2)}\npredicted['b'] = (3,)\nprint(predicted)", check,
             "predicted = {'a': tuple(x)}", check, "predicted = {}\npredicted.update(a=x)", check]
    out = eh.run_cells(cells, {}, cwd=tmp_path)[""]["outputs"]
    errors = [[o["evalue"] for o in cell if o["output_type"] == "error"] for cell in out]
    assert errors[2] == []
    assert "a computed value: predicted = {'a': tuple(x)}" in errors[4][0]
    assert "a computed value: predicted.update(a=x)" in errors[6][0]


def test_random_graph_is_the_same_graph_for_a_seed_with_shared_nodes_and_unneeded_leaves():
    from autograd_lab.testing import random_graph

    (pool_a, out_a), (pool_b, out_b) = random_graph(100), random_graph(100)
    assert pool_a[0] is not pool_b[0] and out_a.item() == out_b.item() and out_a.shape == ()
    out_a.backward()
    out_b.backward()
    assert all((a.grad is None) == (b.grad is None) for a, b in zip(pool_a[:4], pool_b[:4]))
    assert all(np.array_equal(a.grad.numpy(), b.grad.numpy()) for a, b in zip(pool_a[:4], pool_b[:4])
               if a.grad is not None)
    wanted = [[t.requires_grad for t in random_graph(s)[0][:4]] for s in range(20)]
    assert all(w[0] for w in wanted) and any(not all(w) for w in wanted)
    _, out = random_graph(7)
    seen, edges, todo = {out.grad_fn}, 0, [out.grad_fn]
    while todo:
        for child, _ in todo.pop().next_functions:
            if child is not None:
                edges += 1
                if child not in seen:
                    seen.add(child)
                    todo.append(child)
    assert edges > len(seen) - 1, "some node is reached along two edges"


# --- a Function's backward, from the outside -------------------------------------------------

def _mul(backward, forward=None):
    """A broadcasting product Function with the given backward (and forward)."""
    def default_forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    return type("Mul", (torch.autograd.Function,), {"forward": staticmethod(forward or default_forward),
                                                     "backward": staticmethod(backward)})


def _summed(g, shape):
    return g.sum_to_size(shape)


def _right(ctx, grad):
    a, b = ctx.saved_tensors
    return _summed(grad * b, a.shape), _summed(grad * a, b.shape)


def _operands(seed=0, shapes=((3, 1), (4,))):
    rng = np.random.default_rng(seed)
    return tuple(torch.tensor(rng.normal(size=s), requires_grad=True) for s in shapes)


def test_numerical_vjp_is_v_transposed_times_the_jacobian():
    a, b = np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([[0.5, -1.0], [2.0, 1.0]])
    v = np.array([[1.0, 0.0], [2.0, -1.0]])
    got = numerical_vjp(np.matmul, [a, b], v, 0)
    assert np.allclose(got, v @ b.T, atol=1e-8)
    assert np.allclose(numerical_vjp(np.matmul, [a, b], v, 1), a.T @ v, atol=1e-8)
    # a function that returns a view of its input, and outputs far larger than the change: still exact
    x = np.array([1e30, 1.0, 2.0])
    assert np.allclose(numerical_vjp(lambda t: t.reshape(2, 1), [x[1:]], np.ones((2, 1)), 0), [1.0, 1.0])
    assert np.allclose(numerical_vjp(lambda t: t[1:] * 3.0, [x], np.ones(2), 0), [0.0, 3.0, 3.0], atol=1e-6)
    assert np.allclose(numerical_vjp(np.exp, [np.array([80.0, 0.0])], np.ones(2), 0), [np.exp(80.0), 1.0],
                       rtol=1e-6)


def test_expect_function_passes_a_right_function():
    a, b = _operands()
    result = expect_function(_mul(_right), (a, b), np.multiply, hint="h")
    assert result.shape == (3, 4) and type(result.grad_fn).__name__ == "MulBackward"
    expect_function(_mul(_right), _operands(1, ((2, 3), ())), np.multiply)
    expect_function(_mul(_right), _operands(2, ((0, 3), (3,))), np.multiply)


def test_expect_function_names_what_is_wrong_in_backward():
    a, b = _operands()
    unsummed = _mul(lambda ctx, g: (g * ctx.saved_tensors[1], g * ctx.saved_tensors[0]))
    with pytest.raises(AssertionError, match=r"expected shape \(3, 1\), got shape \(3, 4\).*Hint: sum it"):
        expect_function(unsummed, (a, b), np.multiply,
                        backward_mistakes=lambda v: {"sum it": (np.zeros((3, 4)), None)})
    swapped = _mul(lambda ctx, g: (_summed(g * ctx.saved_tensors[0], ctx.saved_tensors[0].shape),
                                   _summed(g * ctx.saved_tensors[1], ctx.saved_tensors[1].shape)))
    A, B = (t.detach().numpy() for t in (a, b))
    with pytest.raises(AssertionError, match="Hint: the other factor"):
        expect_function(swapped, (a, b), np.multiply, hint="h", backward_mistakes=lambda v: {
            "the other factor": ((v * A).sum(axis=1, keepdims=True), (v * B).sum(axis=0))})

    def in_place(ctx, g):
        g *= 2
        return _right(ctx, g / 2)

    with pytest.raises(AssertionError, match="received: expected unchanged, got changed in place"):
        expect_function(_mul(in_place), (a, b), np.multiply)
    with pytest.raises(AssertionError, match="expected 2, one per argument of forward, got 1"):
        expect_function(_mul(lambda ctx, g: _right(ctx, g)[0]), (a, b), np.multiply)
    with pytest.raises(AssertionError, match="a tuple of gradients"):
        expect_function(_mul(lambda ctx, g: list(_right(ctx, g))), (a, b), np.multiply)
    with pytest.raises(AssertionError, match=r"Mul.backward\(ctx, grad of shape \(3, 4\)\) after Mul.apply.*"
                                             r"raised ZeroDivisionError.*Hint: h"):
        expect_function(_mul(lambda ctx, g: 1 / 0), (a, b), np.multiply, hint="h")


def test_expect_function_names_what_is_wrong_in_forward():
    a, b = _operands()

    def keeps_attributes(ctx, x, y):
        ctx.x, ctx.y = x, y
        return x * y

    with pytest.raises(AssertionError, match="ctx.x, an input or the output kept as an attribute of ctx"):
        expect_function(_mul(_right, keeps_attributes), (a, b), np.multiply)

    def changes_input(ctx, x, y):
        ctx.save_for_backward(x, y)
        out = x * y
        x.zero_()
        return out

    with pytest.raises(AssertionError, match="tensor argument 0 of Mul.apply.*after Mul.apply: expected "
                                             "unchanged, got changed in place"):
        expect_function(_mul(_right, changes_input), _operands(), np.multiply)
    x32 = tuple(t.detach().float().requires_grad_() for t in (a, b))
    with pytest.raises(AssertionError, match="expected dtype torch.float32, got dtype torch.float64"):
        expect_function(_mul(_right, lambda ctx, x, y: (ctx.save_for_backward(x, y), (x * y).double())[1]),
                        x32, np.multiply)
    with pytest.raises(AssertionError, match="Hint: the naive formula"):
        expect_function(_mul(_right, lambda ctx, x, y: (ctx.save_for_backward(x, y), x * y * 2)[1]), (a, b),
                        np.multiply, forward_mistakes={"the naive formula": (a * b * 2).detach()})


def test_expect_function_switches_shortcuts_off_and_takes_a_given_vjp():
    a, b = _operands()

    def by_autograd(ctx, g):
        x, y = ctx.saved_tensors
        with torch.enable_grad():
            x2, y2 = x.detach().requires_grad_(), y.detach().requires_grad_()
            return torch.autograd.grad(x2 * y2, (x2, y2), g)

    off = forbid("autograd_lab.autograd.grad", why="write the rule")
    with pytest.raises(ForbiddenCall, match="autograd_lab.autograd.grad is switched off"):
        expect_function(_mul(by_autograd), (a, b), np.multiply, shortcuts=off)
    expect_function(_mul(by_autograd), (a, b), np.multiply)       # without shortcuts it passes

    class Relu(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.clamp(min=0)

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * (x > 0).to(g.dtype)

    x = torch.tensor([-1.0, 0.0, 2.0], dtype=torch.float64, requires_grad=True)
    with pytest.raises(AssertionError, match="first difference at index \\(1,\\)"):
        expect_function(Relu, (x,), lambda t: np.maximum(t, 0))      # central differences: 0.5 at 0
    expect_function(Relu, (x,), lambda t: np.maximum(t, 0), vjp=lambda v: (v * np.array([0.0, 0.0, 1.0]),))


def test_show_prints_a_set_sorted_whatever_the_hash_order():
    """A message with a set reads the same in every process (string hashes are randomised)."""
    code = ("from autograd_lab.testing import show; "
            "print(show({'pre', 'act', 'out'}), show(frozenset({'b', 'a'})))")
    seen = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env={**os.environ, "PYTHONHASHSEED": str(seed)}).stdout for seed in range(4)}
    assert seen == {"{'act', 'out', 'pre'} frozenset({'a', 'b'})\n"}, seen
