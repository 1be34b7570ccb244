"""ops/linalg.py: outer, addmm/addmv/baddbmm, kron, einsum: finite differences, PyTorch's values, graphs
and errors, in-place forms."""

from __future__ import annotations

import pytest
from helpers import needs_torch, torch
from op_cases import table_tests

import autograd_lab as al


@pytest.mark.parametrize("lib", [pytest.param(al, id="autograd_lab"),
                                 pytest.param(torch, id="torch", marks=needs_torch)])
def test_addmm_inplace_shape_error(lib):
    with pytest.raises(RuntimeError, match=r"Bad in-place call: input tensor size \[4\] and output tensor "
                                           r"size \[3, 4\] should match"):
        lib.ones(4).addmm_(lib.ones(3, 5), lib.ones(5, 4))


# this module's cases in the tables of op_cases.py: finite differences, PyTorch, errors, in place
globals().update(table_tests("linalg"))
