"""ops/scalar.py: a tensor and a number as PyTorch's derivative formulas record them (AddBackward1,
MulBackward1, DivBackward1)."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import oracle, torch

import autograd_lab as al
from autograd_lab.autograd import gradcheck, gradgradcheck
from autograd_lab.ops.scalar import AddNumber, DivNumber, MulNumber

NUMPY = {AddNumber: np.add, MulNumber: np.multiply, DivNumber: np.true_divide}


@pytest.mark.parametrize("op", [AddNumber, MulNumber, DivNumber])
def test_values_and_derivatives(op):
    x = al.tensor(np.linspace(-1.0, 2.0, 6).reshape(2, 3), dtype=al.float64, requires_grad=True)
    expected = NUMPY[op](x.detach().numpy(), 2.5)
    np.testing.assert_allclose(op.apply(x, 2.5).detach().numpy(), expected)
    assert gradcheck(lambda t: op.apply(t, 2.5), (x,))
    assert gradgradcheck(lambda t: op.apply(t, 2.5) * t, (x,))


@pytest.mark.parametrize("op", [AddNumber, MulNumber, DivNumber])
def test_the_result_keeps_the_tensors_dtype(op):
    assert op.apply(al.ones(2), 0.1).dtype == al.float32
    assert op.apply(al.ones(2, dtype=al.float64), 3).dtype == al.float64


@oracle
@pytest.mark.parametrize("op", [MulNumber, DivNumber])
def test_node_names_and_saved_number_are_pytorchs(op):
    """PyTorch records MulBackward1 for ``x**3``'s derivative and DivBackward1 for cross_entropy's mean
    over probability targets: the same node names and ``_saved_other`` as ours."""
    x = al.tensor([1.0, 2.0], requires_grad=True)
    xt = torch.tensor([1.0, 2.0], requires_grad=True)
    if op is MulNumber:
        (theirs,) = torch.autograd.grad((xt ** 3).sum(), xt, create_graph=True)
        theirs = theirs.grad_fn.next_functions[1][0]
        ours = op.apply(x, 3.0).grad_fn
    else:
        p = torch.tensor([[0.5, 0.5]])
        theirs = torch.nn.functional.cross_entropy(xt.view(1, 2), p).grad_fn
        ours = op.apply(x, 1.0).grad_fn
    assert type(ours).__name__ == theirs.name()
    assert ours._saved_other == theirs._saved_other
