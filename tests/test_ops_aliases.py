"""PyTorch's other names for ops (NumPy's: ``multiply``, ``absolute``, ``greater``, ...) and the small
functions beside them (``positive``, ``ravel``, ``fliplr``, ``rot90``, ``isposinf``, ``signbit``,
``deg2rad``, ``nansum``, ``nanmean``, ``cummax``, ``cummin``), each compared with PyTorch: value bits,
dtype, shape, strides, node, gradient, or the error's text."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import torch

import autograd_lab as al

CASES = {
    "absolute": lambda m, x: m.absolute(x), "x.absolute": lambda m, x: x.absolute(),
    "multiply": lambda m, x: m.multiply(x, x), "x.multiply_": lambda m, x: x.detach().clone().multiply_(2),
    "divide": lambda m, x: m.divide(x, 3), "divide floor": lambda m, x: m.divide(x, 3, rounding_mode="floor"),
    "true_divide": lambda m, x: m.true_divide(x, x), "x.true_divide": lambda m, x: x.true_divide(2),
    "subtract": lambda m, x: m.subtract(x, x, alpha=2), "negative": lambda m, x: m.negative(x),
    "positive is the tensor": lambda m, x: m.positive(x) is x,
    "positive bool": lambda m, x: m.positive(m.tensor([True])),
    "+bool": lambda m, x: +m.tensor([True]),
    "concatenate": lambda m, x: m.concatenate([x, x], 1),
    "ravel": lambda m, x: m.ravel(x), "ravel of a transposed": lambda m, x: x.t().ravel(),
    "ravel 0-d": lambda m, x: m.ravel(x.sum()),
    "fliplr": lambda m, x: m.fliplr(x), "flipud": lambda m, x: x.flipud(),
    "fliplr 1-d": lambda m, x: m.fliplr(x[0]),
    "flipud 0-d": lambda m, x: m.flipud(x.sum()),
    "eq": lambda m, x: m.eq(x, x), "ne number": lambda m, x: m.ne(x, 0.5), "lt": lambda m, x: m.lt(x, 0),
    "ge bool": lambda m, x: m.ge(x, True), "greater": lambda m, x: m.greater(x, x.t().t()),
    "x.less": lambda m, x: x.less(0.1), "x.not_equal": lambda m, x: x.not_equal(x),
    "eq of a number": lambda m, x: m.eq(2, x), "eq of a string": lambda m, x: m.eq(x, "a"),
    "isposinf": lambda m, x: m.isposinf(x), "isneginf": lambda m, x: x.isneginf(),
    "isposinf int": lambda m, x: m.isposinf(m.tensor([1, 2])),
    "signbit": lambda m, x: m.signbit(x), "signbit int": lambda m, x: m.tensor([-1, 2]).signbit(),
    "signbit bool": lambda m, x: m.signbit(m.tensor([True])),
    "deg2rad": lambda m, x: m.deg2rad(x), "rad2deg": lambda m, x: x.rad2deg(),
    "deg2rad int": lambda m, x: m.deg2rad(m.tensor([180, 90])),
    "deg2rad float64": lambda m, x: m.deg2rad(x.double()),
    "rad2deg bool": lambda m, x: m.rad2deg(m.tensor([True])),
    "deg2rad_": lambda m, x: x.detach().clone().deg2rad_(),
    "rad2deg_ int": lambda m, x: m.tensor([1, 2]).rad2deg_(),
    **{f"rot90 {k}": (lambda m, x, k=k: m.rot90(x, k)) for k in (0, 1, 2, 3, -1, 5, -6)},
    "rot90 dims (1, 0)": lambda m, x: m.rot90(x, 1, (1, 0)),
    "rot90 of a 3-d": lambda m, x: x.reshape(2, 3, 2).rot90(1, (0, 2)),
    "rot90 of a 3-d, k 2": lambda m, x: m.rot90(x.reshape(2, 3, 2), 2, [2, -3]),
    "rot90 of a transposed": lambda m, x: m.rot90(x.t(), 1),
    "rot90 same dims": lambda m, x: m.rot90(x, 1, (0, 0)), "rot90 of 1-d": lambda m, x: m.rot90(x[0]),
    "rot90 dim out of range": lambda m, x: m.rot90(x, 1, (0, 2)),
    "rot90 one dim": lambda m, x: m.rot90(x, 1, (0,)),
    "rot90 dims (0, -2)": lambda m, x: m.rot90(x, 1, (0, -2)),
    "nansum": lambda m, x: m.nansum(_with_nans(m, x)), "nansum dim": lambda m, x: _with_nans(m, x).nansum(1),
    "nansum keepdim": lambda m, x: m.nansum(_with_nans(m, x), (0, 1), True),
    "nansum int": lambda m, x: m.nansum(m.tensor([1, 2])),
    "nanmean": lambda m, x: m.nanmean(_with_nans(m, x)),
    "nanmean dim": lambda m, x: _with_nans(m, x).nanmean(1),
    "nanmean keepdim": lambda m, x: m.nanmean(_with_nans(m, x), 0, True),
    "nanmean int": lambda m, x: m.nanmean(m.tensor([1, 2])),
    "cummax": lambda m, x: m.cummax(_with_nans(m, x), 1).values,
    "cummax indices": lambda m, x: m.cummax(_with_nans(m, x), 0).indices,
    "cummin dim -1": lambda m, x: x.cummin(-1)[0],
    "cummin indices": lambda m, x: m.cummin(x.round(), 1)[1],
    "cummax ties of zeros": lambda m, x: m.cummax(m.tensor([0.0, -0.0, 0.0, 1.0, 1.0]), 0).indices,
    "cummax of ints": lambda m, x: m.cummax(m.tensor([2, 1, 3, 3]), 0).values,
    "cummax 0-d": lambda m, x: m.cummax(x.sum(), 0).values,
    "cummax dim out of range": lambda m, x: m.cummax(x, 2),
    "cummax return type": lambda m, x: type(m.cummax(x, 0)).__name__,
}


def _with_nans(m, x):
    """x with nan where it is above 0.5 (and its inf kept): a WhereBackward0 in both libraries."""
    return m.where(x > 0.5, m.tensor(float("nan")), x)


def _observed(m, case, values):
    """What a learner can see of one case: the result's bits, dtype, shape, strides, node and gradient,
    or the error."""
    x = m.tensor(values, requires_grad=True)
    try:
        y = CASES[case](m, x)
    except (RuntimeError, TypeError, IndexError) as e:
        return f"{type(e).__name__}: {e}"
    if not isinstance(y, m.Tensor):
        return repr(y)
    seen = [str(y.dtype).split(".")[-1], tuple(y.shape), y.stride(), y.detach().numpy().tobytes(),
            None if y.grad_fn is None else type(y.grad_fn).__name__]
    if y.requires_grad:
        (g,) = m.autograd.grad(y.sum(), [x], allow_unused=True)
        seen.append(None if g is None else g.numpy().tobytes())
    return seen


VALUES = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
VALUES[0, :2], VALUES[1, 0] = (-0.0, np.inf), -np.inf


@pytest.mark.parametrize("case", CASES)
def test_each_alias_and_small_function_is_pytorchs(case):
    if torch is None:
        pytest.skip("PyTorch is not installed")
    assert _observed(al, case, VALUES) == _observed(torch, case, VALUES)


def test_the_aliases_are_the_same_functions():
    assert al.multiply is al.mul and al.divide is al.div and al.true_divide is al.div
    assert al.subtract is al.sub and al.negative is al.neg and al.absolute is al.abs
    assert al.concatenate is al.cat and al.greater is al.gt and al.not_equal is al.ne
    x = al.tensor([-1.0, 0.0, 2.0])
    assert al.greater(x, 0).tolist() == [False, False, True]
    assert x.less_equal(0).tolist() == [True, True, False]
    assert al.rad2deg(al.deg2rad(al.tensor([90.0]))).item() == pytest.approx(90.0)
    with pytest.raises(RuntimeError, match="^Input must be >= 2-d.$"):
        al.fliplr(x)
