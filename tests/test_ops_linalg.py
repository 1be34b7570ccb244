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


LIBS = [pytest.param(al, id="autograd_lab"), pytest.param(torch, id="torch", marks=needs_torch)]


@pytest.mark.parametrize("lib", LIBS)
@pytest.mark.parametrize("shapes, node", [
    (((3,), (3,)), "DotBackward0"), (((2, 3), (3,)), "MvBackward0"), (((3,), (3, 2)), "SqueezeBackward4"),
    (((4, 2, 3), (3,)), "UnsafeViewBackward0"), (((3,), (4, 3, 2)), "UnsafeViewBackward0"),
])
@pytest.mark.parametrize("grad", ["left", "right"])
def test_matmul_of_a_vector_is_a_new_tensor(lib, shapes, node, grad):
    a = lib.ones(*shapes[0], requires_grad=grad == "left")
    b = lib.ones(*shapes[1], requires_grad=grad == "right")
    out = a @ b
    assert type(out.grad_fn).__name__ == node and out._base is None and out.is_contiguous()


@pytest.mark.parametrize("lib", LIBS)
def test_broadcast_batched_matmul_is_contiguous(lib):
    out = lib.ones(3, 3) @ lib.ones(2, 3, 4)
    assert out.is_contiguous() and out.view(-1).shape == (24,) and out.contiguous() is out


# this module's cases in the tables of op_cases.py: finite differences, PyTorch, errors, in place
globals().update(table_tests("linalg"))
