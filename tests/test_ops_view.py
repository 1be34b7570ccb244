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


# this module's cases in the tables of op_cases.py: finite differences, PyTorch, errors, in place
globals().update(table_tests("view"))
