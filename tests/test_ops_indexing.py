"""ops/indexing.py: gather, scatter, index_select/add/copy, masked_select, take, nonzero: finite
differences, PyTorch's values, graphs, saved tensors and errors, in-place forms."""

from __future__ import annotations

import pytest
from helpers import needs_torch, torch
from op_cases import I, table_tests

import autograd_lab as al


@pytest.mark.parametrize("lib", [pytest.param(al, id="autograd_lab"),
                                 pytest.param(torch, id="torch", marks=needs_torch)])
def test_saved_index_and_self_are_version_checked(lib):
    x = lib.ones(3, 4, requires_grad=True)
    y = x * 1
    out = y.gather(0, I(lib, [[0, 1, 2, 0]]))
    y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()
    z = x * 1
    ok = z.index_select(0, I(lib, [1]))  # index_select keeps only the index
    z.add_(1)
    ok.sum().backward()
    assert x.grad.tolist() == [[0.0] * 4, [1.0] * 4, [0.0] * 4]


@pytest.mark.parametrize("lib", [pytest.param(al, id="autograd_lab"),
                                 pytest.param(torch, id="torch", marks=needs_torch)])
def test_nonzero(lib):
    x = lib.tensor([[0.0, 1.5, 0.0], [2.0, 0.0, -1.0]], requires_grad=True)
    nz = lib.nonzero(x)
    assert nz.tolist() == [[0, 1], [1, 0], [1, 2]] and nz.dtype == lib.int64
    assert nz.grad_fn is None and not nz.requires_grad
    rows, cols = x.nonzero(as_tuple=True)
    assert rows.tolist() == [0, 1, 1] and cols.tolist() == [1, 0, 2]
    assert tuple(lib.nonzero(lib.tensor(2.0)).shape) == (1, 0)
    assert tuple(lib.nonzero(lib.zeros(0, 3)).shape) == (0, 2)
    assert [t.tolist() for t in lib.nonzero(lib.tensor(0.0), as_tuple=True)] == [[]]
    assert [t.tolist() for t in lib.nonzero(lib.tensor(True), as_tuple=True)] == [[0]]


# this module's cases in the tables of op_cases.py: finite differences, PyTorch, errors, in place
globals().update(table_tests("indexing"))
