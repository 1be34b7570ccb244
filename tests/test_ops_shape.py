"""ops/shape.py: cat/stack/hstack/vstack, split/unbind, flip, roll, repeat, tile, tril/triu, diag, trace,
meshgrid: finite differences, PyTorch's values, graphs and errors, in-place forms."""

from __future__ import annotations

import pytest
from helpers import needs_torch, torch
from op_cases import table_tests

import autograd_lab as al


@pytest.mark.parametrize("lib", [pytest.param(al, id="autograd_lab"),
                                 pytest.param(torch, id="torch", marks=needs_torch)])
def test_unbind_pieces_are_views_that_refuse_inplace(lib):
    x = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = x * 1
    a, b = lib.unbind(y)
    assert a._base is y and b._base is y
    assert a.grad_fn is b.grad_fn and (a.output_nr, b.output_nr) == (0, 1)
    with pytest.raises(RuntimeError) as err:
        b.mul_(2)
    assert str(err.value).startswith("Output 1 of Unbind is a view and is being modified inplace. This view "
                                     "is the output of a function that returns multiple views.")
    with lib.no_grad():
        c, d = lib.unbind(lib.ones(2, 2))
        d.mul_(3)  # no graph: allowed
    assert d.tolist() == [3.0, 3.0]


@pytest.mark.parametrize("lib", [pytest.param(al, id="autograd_lab"),
                                 pytest.param(torch, id="torch", marks=needs_torch)])
def test_meshgrid_without_indexing_warns_and_uses_ij(lib):
    with pytest.warns(UserWarning, match="it will be required to pass the indexing argument"):
        a, b = lib.meshgrid(lib.arange(2), lib.arange(3))
    assert a.tolist() == [[0, 0, 0], [1, 1, 1]] and b.tolist() == [[0, 1, 2], [0, 1, 2]]


LIBS = [pytest.param(al, id="autograd_lab"), pytest.param(torch, id="torch", marks=needs_torch)]


@pytest.mark.parametrize("lib", LIBS)
def test_unbind_of_a_vector_gives_views(lib):
    x = lib.ones(3)
    a = x.unbind()[0]
    a.add_(1)
    x.mul_(3)
    assert x.tolist() == [6.0, 3.0, 3.0] and a.item() == 6.0 and a._base is x
    w = lib.ones(2, 3, requires_grad=True)
    rows = list(w)  # iteration is unbind, as in PyTorch
    assert type(rows[0].grad_fn).__name__ == "UnbindBackward0" and rows[1].output_nr == 1
    with pytest.raises(RuntimeError, match="^Output 0 of Unbind is a view and is being modified inplace."):
        next(iter(w * 1)).add_(1)


@pytest.mark.parametrize("lib", LIBS)
def test_chunk_and_split_of_an_empty_dimension(lib):
    x = lib.ones(0, requires_grad=True)
    pieces = x.chunk(3)
    assert [tuple(p.shape) for p in pieces] == [(0,), (0,), (0,)]
    assert type(pieces[0].grad_fn).__name__ == "SplitWithSizesBackward0"
    assert [tuple(p.shape) for p in lib.ones(2, 0).chunk(2, 1)] == [(2, 0), (2, 0)]
    assert [tuple(p.shape) for p in lib.ones(0).split(0)] == [(0,)]
    with pytest.raises(RuntimeError, match="^split_size can only be 0 if dimension size is 0, but got "
                                           "dimension size of 3$"):
        lib.ones(3).split(0)
    with pytest.raises(RuntimeError, match="^chunk expects `chunks` to be greater than 0, got: 0$"):
        lib.ones(3).chunk(0)


@pytest.mark.parametrize("lib", LIBS)
def test_cat_of_0d_tensors_and_concat(lib):
    for tensors, position in [([lib.tensor(1.0), lib.tensor(2.0)], 0), ([lib.ones(1), lib.tensor(2.0)], 1)]:
        with pytest.raises(RuntimeError, match=f"^zero-dimensional tensor \\(at position {position}\\) "
                                               "cannot be concatenated$"):
            lib.cat(tensors)
    assert lib.concat([lib.ones(2), lib.zeros(1)]).tolist() == [1.0, 1.0, 0.0]


@pytest.mark.parametrize("lib", LIBS)
def test_split_and_chunk_errors(lib):
    for fn, message in [(lambda: lib.tensor(1.0).split(1), "split expects at least a 1-dimensional tensor"),
                        (lambda: lib.tensor(1.0).chunk(2), "chunk expects at least a 1-dimensional tensor"),
                        (lambda: lib.ones(5).split(-1),
                         "split expects split_size be non-negative, but got split_size=-1")]:
        with pytest.raises(RuntimeError) as e:
            fn()
        assert str(e.value) == message


@pytest.mark.parametrize("lib", LIBS)
def test_cat_leaves_out_empty_vectors(lib):
    x = lib.ones(0, requires_grad=True)
    y = lib.ones(2, 3, requires_grad=True)
    out = lib.cat([x, y])
    assert tuple(out.shape) == (2, 3) and tuple(lib.cat([x, y], 1).shape) == (2, 3)
    out.sum().backward()
    assert tuple(x.grad.shape) == (0,) and y.grad.tolist() == [[1.0] * 3] * 2
    assert tuple(lib.cat([lib.ones(0), lib.ones(0)]).shape) == (0,)
    assert lib.cat([lib.ones(0, dtype=lib.float64), lib.ones(2)]).dtype == lib.float64


# this module's cases in the tables of op_cases.py: finite differences, PyTorch, errors, in place
globals().update(table_tests("shape"))
