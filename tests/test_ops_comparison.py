"""ops/comparison.py: clamp_min/max, logical ops, masked_fill with a tensor value; against PyTorch."""

from __future__ import annotations

import pytest
from op_cases import table_tests

import autograd_lab as al
from autograd_lab.autograd import gradcheck, gradgradcheck


def test_masked_fill_with_a_tensor_value_gives_it_a_gradient():

    x = al.randn(3, 4, dtype=al.float64, requires_grad=True)
    v = al.tensor(2.0, dtype=al.float64, requires_grad=True)
    mask = al.rand(3, 4) > 0.5
    y = x.masked_fill(mask, v)
    assert type(y.grad_fn).__name__ == "MaskedFillBackward1"
    assert [type(n).__name__ for n, _ in y.grad_fn.next_functions] == ["AccumulateGrad", "AccumulateGrad"]
    y.sum().backward()
    assert v.grad.item() == mask.sum().item()
    assert gradcheck(lambda a, b: a.masked_fill(mask, b), (x, v))
    assert gradgradcheck(lambda a, b: a.masked_fill(mask, b) ** 2, (x, v))
    with pytest.raises(RuntimeError, match=r"^masked_fill_ only supports a 0-dimensional value tensor, "
                                           r"but got tensor with 1 dimension\(s\)\.$"):
        x.masked_fill(mask, al.tensor([1.0, 2.0]))


# this module's cases in the tables of op_cases.py: finite differences, PyTorch, errors, in place
globals().update(table_tests("comparison"))
