"""ops/copies.py: to() and the conversions (float(), type(), type_as ...), contiguous, and the writes of a
whole tensor (fill_, copy_, zero_): what they return, the nodes they record, against PyTorch."""

from __future__ import annotations

import pytest
from helpers import oracle, torch
from op_cases import table_tests

import autograd_lab as al

# this module's cases in the tables of op_cases.py: finite differences, PyTorch, errors, in place
globals().update(table_tests("copies"))


def test_conversions_return_the_tensor_itself_when_nothing_changes():
    x = al.tensor([1.5, -2.0], requires_grad=True)
    assert x.to(al.float32) is x and x.float() is x and x.to("cpu") is x and x.type_as(x) is x
    d = x.double()
    assert d.dtype is al.float64 and d.grad_fn.name() == "ToCopyBackward0"
    assert x.long().tolist() == [1, -2] and x.long().grad_fn is None
    assert x.type() == "torch.FloatTensor" and x.int().type() == "torch.IntTensor"
    assert x.type(al.float64).dtype is al.float64
    with pytest.raises(RuntimeError, match="device 'cuda' is not available"):
        x.to("cuda")


def test_contiguous_copies_only_what_is_not_in_row_major_order():
    x = al.arange(6.0).reshape(2, 3).requires_grad_()
    assert x.contiguous() is x
    t = x.t()
    c = t.contiguous()
    assert c is not t and c.is_contiguous() and not t.is_contiguous()
    assert c.grad_fn.name() == "CloneBackward0" and c.tolist() == t.tolist()


def test_whole_tensor_writes_record_pytorchs_nodes():
    x = al.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1
    y.fill_(al.tensor(4.0))  # a 0-d tensor: FillBackward3 (FillBackward2 is fill_ of a number)
    assert y.tolist() == [4.0] * 3 and y.grad_fn.name() == "FillBackward3"
    assert [type(n).__name__ for n, _ in y.grad_fn.next_functions] == ["MulBackward0", "NoneType"]
    z = x * 1
    z.copy_(al.tensor([7.0]))  # broadcast into z's shape
    assert z.tolist() == [7.0] * 3 and z.grad_fn.name() == "torch::autograd::CopyBackwards"
    w = x * 1
    w.zero_()
    assert w.tolist() == [0.0] * 3 and w.grad_fn.name() == "ZeroBackward0"
    (y + z + w).sum().backward()
    assert x.grad.tolist() == [0.0] * 3, "an overwritten value passes no gradient back"


@oracle
def test_conversions_against_torch():
    for lib in (al, torch):
        x = lib.tensor([1.5, -2.5], requires_grad=True)
        assert [str(t.dtype) for t in (x.double(), x.half(), x.long(), x.int(), x.bool())] == [
            "torch.float64", "torch.float16", "torch.int64", "torch.int32", "torch.bool"]
        assert x.double().grad_fn.name() == "ToCopyBackward0"
