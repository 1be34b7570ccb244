"""ops/comparison.py: clamp_min/max, logical ops, masked_fill with a tensor value; against PyTorch."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import oracle, torch
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


@oracle
@pytest.mark.parametrize("inplace", [False, True])
@pytest.mark.parametrize("bounds", ["min", "max", "both"])
def test_clamp_with_tensor_bounds_has_an_edge_per_bound(inplace, bounds):
    """``ClampBackward0`` has edges (self, min, max), (None, 0) for a missing bound; ``d.clamp_(min=x)``
    is recorded when only ``x`` requires grad."""
    outcomes = []
    for lib in (al, torch):
        x = lib.tensor([1.0, -1.0, 0.2], requires_grad=True)
        d = lib.tensor([0.0, 0.0, 0.0], requires_grad=not inplace)
        kwargs = {"min": x * 1, "max": lib.tensor([0.5, 0.5, 0.1])} if bounds == "both" else {bounds: x * 1}
        y = d.clamp_(**kwargs) if inplace else d.clamp(**kwargs)
        edges = [None if n is None else type(n).__name__ for n, _ in y.grad_fn.next_functions]
        y.backward(lib.tensor([1.0, 2.0, 3.0]))
        outcomes.append((type(y.grad_fn).__name__, edges, y.tolist(), x.grad.tolist(),
                         None if inplace else d.grad.tolist()))
    assert outcomes[0] == outcomes[1]


@oracle
def test_clamp_with_both_tensor_bounds_gradients_when_min_exceeds_max():
    """Every order of self, min and max (min > max included: the result is max)."""
    grid = np.array(np.meshgrid([-1.0, 0.0, 1.0], [-1.0, 0.0, 1.0], [-1.0, 0.0, 1.0])).reshape(3, -1)
    outcomes = []
    for lib in (al, torch):
        d, lo, hi = (lib.tensor(row, requires_grad=True) for row in grid)
        y = d.clamp(min=lo, max=hi)
        y.sum().backward()
        outcomes.append([t.tolist() for t in (y, d.grad, lo.grad, hi.grad)])
    assert outcomes[0] == outcomes[1]


SECOND_BACKWARD = {
    "where": lambda lib, x: lib.where(x > 1.5, x, 0.0),
    "where_tensors": lambda lib, x: lib.where(x > 1.5, x, x * 2),
    "masked_fill": lambda lib, x: x.masked_fill(x > 1.5, 0.0),
    "masked_fill_tensor": lambda lib, x: x.masked_fill(x > 1.5, lib.tensor(0.0)),
    "max_dim": lambda lib, x: x.max(0)[0],
    "min_dim": lambda lib, x: x.min(dim=0).values,
    "addcmul_constants": lambda lib, x: lib.addcmul(x, lib.ones(3), lib.ones(3)),
}


@oracle
@pytest.mark.parametrize("name", sorted(SECOND_BACKWARD))
def test_second_backward_without_retain_graph(name):
    """Raises exactly where PyTorch's saved tensors were freed (and works where it saved nothing)."""
    outcomes = []
    for lib in (al, torch):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = SECOND_BACKWARD[name](lib, x)
        y.sum().backward()
        try:
            y.sum().backward()
            outcomes.append(("no error", x.grad.tolist()))
        except RuntimeError as e:
            outcomes.append(("error", str(e)))
    assert outcomes[0] == outcomes[1]


NAN_GRAD_CASES = {
    "clamp": lambda m, x: x.clamp(-1, 1), "clamp_min": lambda m, x: x.clamp_min(0.0),
    "clamp_max tensor": lambda m, x: x.clamp_max(m.zeros(3)), "where": lambda m, x: m.where(x > 0, x, -x),
    "maximum": lambda m, x: m.maximum(x, m.tensor([0.0, 2.0, -5.0])),
    "masked_fill": lambda m, x: x.masked_fill(x > 0, 1.0),
}


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(NAN_GRAD_CASES))
def test_an_inf_gradient_gives_0_where_the_input_had_no_part(name):
    """PyTorch's derivatives of clamp, where, maximum and masked_fill select (``where(mask, grad, 0)``,
    ``masked_fill``): an inf gradient becomes 0 where the input had no part in the result, not
    ``inf * 0 = nan``."""
    if torch is None:
        pytest.skip("PyTorch is not installed")

    def grads(m):
        x = m.tensor([-3.0, 0.5, 4.0], requires_grad=True)
        (NAN_GRAD_CASES[name](m, x) * m.tensor([float("inf"), 1.0, float("-inf")])).sum().backward()
        return x.grad.tolist()

    assert grads(al) == grads(torch)
