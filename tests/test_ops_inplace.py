"""ops/inplace.py: in-place changes with PyTorch's rules: version counters, rebased history,
CopySlices on a view's base, AsStrided histories of the other views, what PyTorch forbids."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import f64, name

import autograd_lab as al
from autograd_lab.autograd import gradcheck, gradgradcheck

try:
    import torch as real_torch
except ImportError:  # the oracle is optional
    real_torch = None


def test_in_place_ops_bump_the_version_and_views_share_it():
    x = al.ones(2, 3)
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
    with al.no_grad():
        h.view(2)[0] = 5.0
    with pytest.raises(RuntimeError, match="is at version 1; expected version 0"):
        y.sum().backward()


def test_in_place_on_a_leaf_is_allowed_under_no_grad():
    w = f64([1.0, 2.0])
    with al.no_grad():
        w -= 0.5 * al.ones(2, dtype=al.float64)
    assert w.is_leaf and w.requires_grad and w.tolist() == [0.5, 1.5] and w._version == 1


def test_setitem_on_non_leaf_records_copyslices():
    x = f64([1.0, 2.0, 3.0])
    v = f64(10.0)
    y = x * 2
    y[1] = v * 3
    assert name(y.grad_fn) == "CopySlices"
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 0.0, 2.0] and v.grad.item() == 3.0


LIBS = [pytest.param(al, id="autograd_lab"),
        pytest.param(real_torch, id="torch", marks=[
            pytest.mark.torch,
            pytest.mark.skipif(real_torch is None, reason="PyTorch is not installed")])]


@pytest.mark.parametrize("lib", LIBS)
@pytest.mark.parametrize("key, node, node_of_vector", [
    ((1,), "CopySlices", None), ((slice(1, None),), "CopySlices", "CopySlices"),
    ((None,), "CopySlices", "CopySlices"),
    # a key that selects everything: fill_ of a number or 0-d tensor, copy_ of a tensor (PyTorch 2.13)
    ((Ellipsis,), "FillBackward3", "CopyBackwards"), ((slice(None),), "FillBackward3", "CopyBackwards"),
    ((slice(0, 5),), "FillBackward3", "CopyBackwards"),
    ((slice(-3, None),), "CopySlices", "CopySlices"),  # PyTorch skips only a slice written from 0
    (([0, 2],), "IndexPutBackward0", None),
    ((0, [0, 1]), "CopySlices", None),  # the index tensor written into the view y[0]
])
def test_setitem_node_names(lib, key, node, node_of_vector):
    x = lib.tensor([[1.0, 2.0, 3.0]] * 3, dtype=lib.float64, requires_grad=True)
    y = x * 1
    y[key] = 0.0
    assert name(y.grad_fn) == node
    if node_of_vector is not None:
        y[key] = lib.zeros(3, dtype=lib.float64)
        assert name(y.grad_fn) == node_of_vector


def kinds(node) -> list[str]:
    """The node's class name followed by those of its next functions (None for no edge)."""
    return [type(node).__name__] + [type(n).__name__ if n is not None else "None"
                                    for n, _ in node.next_functions]


def as_list(t) -> list[float]:
    return [round(float(v), 4) for v in t.detach().reshape(-1).tolist()]


@pytest.mark.parametrize("lib", LIBS)
def test_inplace_on_a_view_rewrites_the_base_with_copyslices(lib):
    x = lib.ones(4, requires_grad=True)
    w = lib.full((3,), 2.0, requires_grad=True)
    z = x * 2
    v = z[1:]
    v.mul_(w)
    assert as_list(z) == [2.0, 4.0, 4.0, 4.0]
    assert kinds(z.grad_fn) == ["CopySlices", "MulBackward0", "AccumulateGrad"]
    assert kinds(v.grad_fn) == ["AsStridedBackward0", "CopySlices"]
    assert v.grad_fn.next_functions[0][0] is z.grad_fn
    assert (z._version, v._version) == (1, 1)
    assert v._base is z and not z.is_leaf
    z.sum().backward()
    assert as_list(x.grad) == [2.0, 4.0, 4.0, 4.0]
    assert as_list(w.grad) == [2.0, 2.0, 2.0]


@pytest.mark.parametrize("lib", LIBS)
def test_gradient_through_the_view_after_its_inplace_change(lib):
    x = lib.ones(4, requires_grad=True)
    z = x * 3
    v = z[:2]
    v.add_(1)
    (v * v).sum().backward()  # d/dx (3x + 1)^2 = 6 (3x + 1) on the first two
    assert as_list(x.grad) == [24.0, 24.0, 0.0, 0.0]


@pytest.mark.parametrize("lib", LIBS)
def test_changing_the_base_regenerates_the_views_history(lib):
    x = lib.ones(4, requires_grad=True)
    w = lib.full((4,), 3.0, requires_grad=True)
    u = x * 1
    uu = u[1:]
    assert type(uu.grad_fn).__name__ == "SliceBackward0"
    u.mul_(w)
    assert kinds(uu.grad_fn) == ["AsStridedBackward0", "MulBackward0"]
    uu.sum().backward()
    assert as_list(x.grad) == [0.0, 3.0, 3.0, 3.0]
    assert as_list(w.grad) == [0.0, 1.0, 1.0, 1.0]


@pytest.mark.parametrize("lib", LIBS)
def test_one_view_changed_the_other_sees_it(lib):
    x = lib.arange(6.0).requires_grad_()
    y = x * 1
    first, last = y[:4], y[2:]
    first.mul_(10)  # elements 0..3 of y, two of them shared with `last`
    assert as_list(last) == [20.0, 30.0, 4.0, 5.0]
    assert type(last.grad_fn).__name__ == "AsStridedBackward0"
    last.sum().backward()
    assert as_list(x.grad) == [0.0, 0.0, 10.0, 10.0, 1.0, 1.0]


@pytest.mark.parametrize("lib", LIBS)
def test_view_of_a_view_transposed(lib):
    x = lib.arange(4.0).requires_grad_()
    y = x * 1
    t = y.view(2, 2).t()
    t[0].mul_(lib.tensor([5.0, 7.0]))  # column 0 of the 2x2: y[0] and y[2]
    assert as_list(y) == [0.0, 1.0, 14.0, 3.0]
    assert kinds(y.grad_fn)[0] == "CopySlices"
    (y * lib.arange(1.0, 5.0)).sum().backward()
    assert as_list(x.grad) == [5.0, 2.0, 21.0, 4.0]


@pytest.mark.parametrize("lib", LIBS)
def test_view_of_a_base_that_does_not_require_grad(lib):
    x = lib.ones(4, requires_grad=True)
    c = lib.zeros(4)
    cv = c[1:]
    cv.add_(x[1:] * 2)
    assert c.requires_grad and not c.is_leaf
    assert kinds(c.grad_fn) == ["CopySlices", "None", "MulBackward0"]
    c.sum().backward()
    assert as_list(x.grad) == [0.0, 2.0, 2.0, 2.0]


@pytest.mark.parametrize("lib", LIBS)
def test_inplace_op_that_saves_its_result_on_a_view(lib):
    x = lib.ones(4, requires_grad=True)
    z = x * 2
    v = z[1:]
    v.exp_()
    z.sum().backward()
    e2 = round(2 * float(np.exp(2.0)), 4)
    assert as_list(x.grad) == [2.0, e2, e2, e2]


@pytest.mark.parametrize("lib", LIBS)
def test_setitem_on_a_view(lib):
    x = lib.ones(2, 3, requires_grad=True)
    s = lib.tensor(5.0, requires_grad=True)
    z = x * 2
    row = z[1]
    row[0] = s
    assert as_list(z) == [2.0, 2.0, 2.0, 5.0, 2.0, 2.0]
    assert kinds(z.grad_fn) == ["CopySlices", "MulBackward0", "AccumulateGrad"]
    (z * z).sum().backward()
    assert as_list(x.grad) == [8.0, 8.0, 8.0, 0.0, 8.0, 8.0]
    assert as_list(s.grad) == [10.0]


@pytest.mark.parametrize("lib", LIBS)
def test_changes_under_no_grad_regenerate_too(lib):
    w = lib.ones(3, requires_grad=True)
    wv = w[1:]
    with lib.no_grad():
        w.mul_(2)
    assert kinds(wv.grad_fn) == ["AsStridedBackward0", "AccumulateGrad"]
    (wv * wv).sum().backward()
    assert as_list(w.grad) == [0.0, 4.0, 4.0]


@pytest.mark.parametrize("lib", LIBS)
def test_retained_gradient_of_a_base_changed_through_a_view(lib):
    x = lib.ones(3, requires_grad=True)
    z = x * 2
    z.retain_grad()
    z[1:].mul_(3)
    (z * lib.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert as_list(z.grad) == [1.0, 2.0, 3.0]  # the gradient of the changed z
    assert as_list(x.grad) == [2.0, 12.0, 18.0]


@pytest.mark.parametrize("lib", LIBS)
def test_a_view_that_needs_no_grad_stays_untracked(lib):
    c = lib.zeros(4)
    cv = c[1:]
    cv.add_(1)
    c.mul_(2)
    assert cv.grad_fn is None and not cv.requires_grad
    assert as_list(cv) == [2.0, 2.0, 2.0]


@pytest.mark.parametrize("lib", LIBS)
def test_view_made_under_no_grad_modified_with_grad(lib):
    x = lib.ones(4, requires_grad=True)
    z = x * 2
    with lib.no_grad():
        v = z[1:]
    with pytest.raises(RuntimeError) as e:
        v.mul_(2)
    assert str(e.value) == (
        "A view was created in no_grad mode and is being modified inplace with grad mode enabled. "
        "Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your "
        "code by moving both the view and the inplace either both inside the no_grad block (if you "
        "don't want the inplace to be tracked) or both outside (if you want the inplace to be "
        "tracked).")
    assert as_list(z) == [2.0, 2.0, 2.0, 2.0]  # nothing changed
    with lib.no_grad():
        v.mul_(2)  # both inside no_grad: allowed, untracked
    assert as_list(z) == [2.0, 4.0, 4.0, 4.0]


@pytest.mark.parametrize("lib", LIBS)
@pytest.mark.parametrize("how,op", [("split", "Split"), ("chunk", "Split")])
def test_output_of_a_multi_view_op_modified_inplace(lib, how, op):
    z = lib.ones(4, requires_grad=True) * 2
    a, b = getattr(z, how)(2)
    with pytest.raises(RuntimeError) as e:
        b.add_(1)
    assert str(e.value) == (
        f"Output 1 of {op} is a view and is being modified inplace. This view is the output of a "
        "function that returns multiple views. Such functions do not allow the output views to be "
        "modified inplace. You should replace the inplace operation by an out-of-place one.")
    with lib.no_grad():
        a.add_(1)
    assert as_list(z) == [3.0, 3.0, 2.0, 2.0]


@pytest.mark.parametrize("lib", LIBS)
def test_view_of_a_leaf(lib):
    x = lib.ones(4, requires_grad=True)
    with pytest.raises(RuntimeError,
                       match="^a view of a leaf Variable that requires grad is being used in an "
                             "in-place operation.$"):
        x[1:].mul_(2)
    assert as_list(x) == [1.0, 1.0, 1.0, 1.0]


@pytest.mark.parametrize("lib", LIBS)
def test_expanded_view_cannot_be_written(lib):
    z = lib.ones(1, 3, requires_grad=True) * 2
    e = z.expand(2, 3)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor refers "
                                           "to a single memory location"):
        e.add_(1)
    assert type(z.grad_fn).__name__ == "MulBackward0"  # the failed op left no trace


def test_inplace_on_views_passes_gradcheck_and_gradgradcheck():
    def f(x, w):
        y = x * 1.5
        y[1:3].mul_(w)          # CopySlices
        col = y.view(2, 3)[:, 1]
        col.add_(w.sum())       # another view of the same base, changed again
        return (y * y.sin()).sum() + col.pow(2).sum()

    rng = np.random.default_rng(0)
    x = al.tensor(rng.normal(size=6), dtype=al.float64, requires_grad=True)
    w = al.tensor(rng.normal(size=2), dtype=al.float64, requires_grad=True)
    assert gradcheck(f, (x, w))
    assert gradgradcheck(f, (x, w))


def _view_program(lib, data, other, steps):
    """Changes views of one base in place, step by step; what came out, or the error text."""
    x = lib.tensor(data, requires_grad=True)
    o = lib.tensor(other, requires_grad=True)
    y = x * 1
    views = [y[1], y[:, 2], y.t()[3], y[1:, 1:3], y.view(12)[2:9]]
    try:
        for which, op, p in steps:
            v = views[which]
            if op == 0:
                v.mul_(o[p])
            elif op == 1:
                v.add_(o[p] * 2)
            elif op == 2:
                v.sigmoid_()  # saves its result: a later change of an overlapping view breaks it
            else:
                v.copy_(o[p].expand(v.shape) * v.detach().clone())
        loss = (y * y).sum() + sum(v.sum() * (i + 1) for i, v in enumerate(views))
        loss.backward()
    except RuntimeError as e:
        return str(e)
    return (y.detach().numpy().copy(), x.grad.numpy().copy(),
            None if o.grad is None else o.grad.numpy().copy(),
            [type(v.grad_fn).__name__ for v in views], kinds(y.grad_fn))


@pytest.mark.torch
@pytest.mark.skipif(real_torch is None, reason="PyTorch is not installed")
def test_random_view_programs_match_pytorch():
    """Random chains of in-place ops on overlapping views of one base: values, gradients, the
    node names of the base and of every view, or the error, agree with PyTorch's."""
    rng = np.random.default_rng(1)
    errors = 0
    for trial in range(80):
        data, other = rng.normal(size=(3, 4)), rng.normal(size=4)
        steps = [(int(rng.integers(0, 5)), int(rng.choice([0, 0, 1, 1, 2, 3])), int(rng.integers(0, 4)))
                 for _ in range(int(rng.integers(1, 5)))]
        ours, theirs = _view_program(al, data, other, steps), _view_program(real_torch, data, other, steps)
        where = f"trial {trial}: {steps}"
        if isinstance(theirs, str) or isinstance(ours, str):
            assert ours == theirs, where
            errors += 1
            continue
        for a, b in zip(ours[:3], theirs[:3]):
            assert (a is None) == (b is None), where
            if a is not None:
                np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12, err_msg=where)
        assert ours[3:] == theirs[3:], where
    assert 0 < errors < 30  # most programs run through; some end in the saved-result error


def test_views_changed_in_place_leave_no_reference_cycles():
    """Base, views and their nodes are freed by reference counting alone, as every graph here."""
    import gc
    import weakref

    gc.disable()
    try:
        x = al.ones(3, 4, requires_grad=True)
        y = x * 1
        row, col = y[1], y[:, 2]
        row.mul_(3)
        y.add_(2)
        col.mul_(x[0, :3].sum())
        loss = (y * y).sum() + row.sum() + col.sum()
        refs = [weakref.ref(t) for t in (y, row, col)]
        refs += [weakref.ref(n) for n in (y.grad_fn, row.grad_fn, col.grad_fn)]
        loss.backward()
        del y, row, col, loss
        assert [r() for r in refs] == [None] * len(refs)
    finally:
        gc.enable()


@pytest.mark.parametrize("lib", LIBS)
def test_an_input_that_overlaps_the_written_tensor_in_part_is_refused(lib):
    message = ("^unsupported operation: some elements of the input tensor and the written-to tensor refer "
               r"to a single memory location. Please clone\(\) the tensor before performing the operation.$")
    for op in [lambda x: x.mul_(x[-1]), lambda x: x.add_(x[1:2]),
               lambda x: x.view(2, 2).add_(x.view(2, 2).t())]:
        x = lib.arange(4.0)
        with pytest.raises(RuntimeError, match=message):
            op(x)
        assert x.tolist() == [0.0, 1.0, 2.0, 3.0]
    x = lib.arange(4.0)
    x *= x  # the very same memory: fine
    x[2:].add_(x[:2])  # disjoint: fine
    assert x.tolist() == [0.0, 1.0, 4.0, 10.0]


@pytest.mark.parametrize("lib", LIBS)
def test_saved_tensor_modified_error_names_copyslices(lib):
    x = lib.ones(3, requires_grad=True)
    y = x * 1
    y[0] = 2.0
    assert y.grad_fn.name() == "torch::autograd::CopySlices"
    z = y * y
    y[1] = 3.0
    with pytest.raises(RuntimeError, match=r"\[torch.FloatTensor \[3\]\], which is output 0 of torch::"
                                           "autograd::CopySlices, is at version 2; expected version 1"):
        z.sum().backward()


@pytest.mark.parametrize("lib", LIBS)
@pytest.mark.parametrize("write", ["slice", "index", "all", "view", "copy"])
def test_overwritten_elements_get_a_zero_gradient_not_minus_zero(lib, write):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1
    if write == "slice":
        y[1:] = -1.0
    elif write == "index":
        y[[0, 2]] = -1.0
    elif write == "all":
        y[...] = -1.0
    elif write == "view":
        y[:2].fill_(-1.0)
    else:
        y.copy_(lib.tensor([-1.0, -1.0, -1.0]))
    (y * -1.0).sum().backward()  # a negative gradient reaches the overwritten elements
    assert "-0." not in repr(x.grad)
