"""ops/sorting.py: median, sort, argsort, topk: stable order, finite differences, PyTorch's tie-breaking."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import oracle, torch
from op_cases import check, distinct, run_both, same_outcome, table_tests

import autograd_lab as al


@pytest.mark.parametrize("shape,dim,keepdim", [((), 0, False), ((5,), 0, False), ((2, 4), 1, True),
                                               ((2, 3, 2), -2, False)])
def test_selection_gradcheck(shape, dim, keepdim):
    x = distinct(shape, 10)
    check(lambda t: al.median(t), x)
    check(lambda t: t.median(dim, keepdim=keepdim).values, x)
    check(lambda t: al.sort(t, dim).values, x)
    check(lambda t: al.sort(t, dim, descending=True).values, x)
    k = 1 if not shape else min(2, shape[dim])
    check(lambda t: al.topk(t, k, dim).values, x)
    check(lambda t: t.topk(k, dim, largest=False).values, x)
    check(lambda t: al.aminmax(t, dim=dim, keepdim=keepdim), x)
    check(lambda t: al.aminmax(t), x)


def test_median_is_the_lower_middle_and_sort_is_stable():
    x = al.tensor([4.0, 1.0, 3.0, 2.0])
    assert al.median(x).item() == 2.0
    m = al.tensor([[1.0, 1.0, 0.0], [2.0, 2.0, 2.0]])
    r = al.median(m, 1)
    assert r.values.tolist() == [1.0, 2.0] and r.indices.tolist() == [0, 1]
    s = al.sort(al.tensor([2.0, 1.0, 2.0, 1.0]), descending=True)
    assert s.indices.tolist() == [0, 2, 1, 3]
    assert al.argsort(al.tensor([2, 1, 2, 1])).tolist() == [1, 3, 0, 2]
    assert al.topk(al.tensor([1.0, 3.0, 3.0, 2.0]), 2).indices.tolist() == [1, 2]


@oracle
def test_gradient_routing_on_ties_against_torch():
    """median/aminmax of the whole tensor share the gradient among equal values; median(dim),
    sort and topk send it to the one element they picked (same index as PyTorch)."""
    x = np.array([[1.0, 1.0, 0.0, 2.0], [3.0, 1.0, 1.0, 3.0]])
    for fn in (lambda lib, t: lib.median(t), lambda lib, t: lib.median(t, 1).values,
               lambda lib, t: lib.median(t, 0).values, lambda lib, t: lib.sort(t, 1).values,
               lambda lib, t: lib.sort(t, 1, descending=True).values, lambda lib, t: lib.aminmax(t),
               lambda lib, t: lib.aminmax(t, dim=1)):
        run_both(lambda lib, t, fn=fn: fn(lib, t * 1), [x])


# this module's cases in the tables of op_cases.py: finite differences, PyTorch, errors, in place
globals().update(table_tests("sorting"))


@oracle
@pytest.mark.parametrize("arr", [np.array([3.0, 1, 2, 3, 1]), np.array([[3, 1], [2, 3]]), np.array(2.0),
                                 np.zeros(0), np.array([np.nan, 1.0, np.nan]), np.array([True, False, True])])
@pytest.mark.parametrize("kwargs", [{}, dict(return_inverse=True), dict(return_counts=True),
                                    dict(return_inverse=True, return_counts=True, sorted=False)])
def test_unique(arr, kwargs):
    same_outcome(lambda lib: lib.unique(lib.tensor(arr), **kwargs), what=str(kwargs))
    same_outcome(lambda lib: lib.tensor(arr).unique(**kwargs), what=str(kwargs))


@oracle
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_unique_along_a_dim(dim):
    arr = np.array([[3, 1, 3], [3, 1, 3], [0, 2, 0]])
    same_outcome(lambda lib: lib.unique(lib.tensor(arr), dim=dim, return_inverse=True, return_counts=True))


@oracle
@pytest.mark.parametrize("dim", [None, 0])
def test_unique_records_a_node_without_derivative(dim):
    outcomes = []
    for lib in (al, torch):
        x = lib.tensor([[3.0, 1.0], [3.0, 1.0]], requires_grad=True)
        values, counts = x.unique(return_counts=True, dim=dim)
        assert values.requires_grad and not counts.requires_grad
        with pytest.raises(NotImplementedError) as info:
            values.sum().backward()
        outcomes.append((type(values.grad_fn).__name__, str(info.value)))
    assert outcomes[0] == outcomes[1]
