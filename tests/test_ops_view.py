"""ops/view.py: views (movedim, swapaxes, unflatten, broadcast_to, diagonal, ...): finite differences,
PyTorch's values, graphs and errors, and which results share memory with their input."""

from __future__ import annotations

import pytest
from helpers import needs_torch, torch
from op_cases import table_tests

import autograd_lab as al


@pytest.mark.parametrize("lib", [pytest.param(al, id="autograd_lab"),
                                 pytest.param(torch, id="torch", marks=needs_torch)])
def test_diagonal_is_a_writable_view(lib):
    x = lib.zeros(3, 3)
    d = x.diagonal()
    d.fill_(1.0)
    assert x.tolist() == [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    assert x._version == 1 and d._base is x
    w = lib.ones(3, requires_grad=True)
    y = lib.zeros(3, 3) * 1
    y.diagonal(1).mul_(w[:2])
    y.diagonal().add_(w)
    y.sum().backward()
    assert w.grad.tolist() == [1.0, 1.0, 1.0]


LIBS = [pytest.param(al, id="autograd_lab"), pytest.param(torch, id="torch", marks=needs_torch)]


@pytest.mark.parametrize("lib", LIBS)
def test_an_expand_that_repeats_nothing_changes_in_place(lib):
    p = lib.tensor([[-1.0, 2.0, -3.0]], requires_grad=True) * 1
    q = p.expand(1, 3).clamp_(min=0)
    assert q.tolist() == [[0.0, 2.0, 0.0]] and p.tolist() == [[0.0, 2.0, 0.0]]
    assert type(p.grad_fn).__name__ == "CopySlices"
    r = lib.ones(3).expand(1, 1, 3).add_(1)
    assert r.tolist() == [[[2.0, 2.0, 2.0]]]
    with pytest.raises(RuntimeError, match="^unsupported operation: more than one element of the written-to "
                                           "tensor refers to a single memory location."):
        lib.ones(2, 1).expand(2, 3).add_(1)


@pytest.mark.parametrize("lib", LIBS)
@pytest.mark.parametrize("shape, sizes, message", [
    ((2, 2), (1, 3, 3), "The expanded size of the tensor (3) must match the existing size (2) at "
                        "non-singleton dimension 2.  Target sizes: [1, 3, 3].  Tensor sizes: [2, 2]"),
    ((2, 3), (-1, -1, 1), "The expanded size of the tensor (1) must match the existing size (3) at "
                          "non-singleton dimension 2.  Target sizes: [-1, -1, 1].  Tensor sizes: [2, 3]"),
    ((3,), (-1, 3), "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing "
                    "dimension 0"),
])
def test_expand_errors_name_the_last_bad_dimension(lib, shape, sizes, message):
    with pytest.raises(RuntimeError) as e:
        lib.ones(shape).expand(*sizes)
    assert str(e.value) == message


@pytest.mark.parametrize("lib", LIBS)
def test_an_empty_expanded_view_changes_in_place(lib):
    assert tuple(lib.zeros(0).expand(2, 3, 0).add_(1).shape) == (2, 3, 0)


@pytest.mark.parametrize("lib", LIBS)
def test_views_made_in_no_grad_of_a_tensor_that_requires_grad_require_grad(lib):
    x = lib.ones(3, 2, requires_grad=True)
    with lib.no_grad():
        views = [x[0], x.view(6), x.t(), x[:, 0], x.expand(2, 3, 2), x.unsqueeze(0), x.narrow(0, 0, 1),
                 x[...], x.diagonal(), x.split(1)[0], x.unbind()[0]]
    assert all(v.requires_grad and v.is_leaf and v.grad_fn is None for v in views)
    y = views[0] * 2  # recorded, but the gradient reaches no leaf: the view has no history
    assert y.requires_grad and type(y.grad_fn).__name__ == "MulBackward0"
    assert y.grad_fn.next_functions == ((None, 0), (None, 0))
    with lib.no_grad():
        c = x.detach()[0]
    assert not c.requires_grad


@pytest.mark.parametrize("lib", LIBS)
def test_views_of_split_outputs_refuse_in_place_changes(lib):
    y = lib.ones(4, 2, requires_grad=True) * 1
    for view, name in [(y.split(2)[0][0], "Select"), (y.split(2)[1].view(4), "View"),
                       (y.unbind()[0][1:], "Slice"), (y.chunk(2)[0].t(), "T")]:
        with pytest.raises(RuntimeError, match=f"^Output 0 of {name} is a view and is being modified "
                                               "inplace. This view is the output of a function that returns "
                                               "multiple views."):
            view.add_(1)
    with lib.no_grad():  # allowed when nothing is recorded
        y.split(2)[0][0].add_(1)
    assert y.tolist()[0] == [2.0, 2.0]


@pytest.mark.parametrize("lib", LIBS)
def test_transpose_of_a_0d_tensor(lib):
    assert lib.tensor(1.0).transpose(0, -1).item() == 1.0
    with pytest.raises(IndexError, match=r"^Dimension out of range \(expected to be in range of \[-1, 0\], "
                                         r"but got 1\)$"):
        lib.tensor(1.0).transpose(0, 1)


@pytest.mark.parametrize("lib", LIBS)
def test_view_of_no_elements_with_an_unknown_size(lib):
    with pytest.raises(RuntimeError) as e:
        lib.ones(0, 3).view(0, -1)
    assert str(e.value) == ("cannot reshape tensor of 0 elements into shape [0, -1] because the unspecified "
                            "dimension size -1 can be any value and is ambiguous")
    assert tuple(lib.ones(0).view(-1).shape) == (0,)


@pytest.mark.parametrize("lib", LIBS)
def test_mT_of_a_vector_and_a_scalar(lib):
    with pytest.raises(RuntimeError) as e:
        _ = lib.ones(2).mT
    assert str(e.value) == "tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor."
    with pytest.warns(UserWarning, match="^Tensor.mT is deprecated on 0-D tensors. This function is the "
                                         "identity in these cases."):
        assert lib.tensor(2.0).mT.item() == 2.0


# this module's cases in the tables of op_cases.py: finite differences, PyTorch, errors, in place
globals().update(table_tests("view"))


@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
@pytest.mark.parametrize("dim", [0, (0,), [0], (0, 1), ()])
def test_squeeze_node_by_overload(dim):
    """squeeze(int) records SqueezeBackward1, squeeze(tuple or list) SqueezeBackward2 (as PyTorch)."""
    names = [m.ones(1, 3, requires_grad=True).squeeze(dim).grad_fn.name() for m in (al, torch)]
    assert names[0] == names[1]
