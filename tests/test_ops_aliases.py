"""PyTorch's other names for ops (NumPy's: ``multiply``, ``absolute``, ``greater``, ...) and the small
functions beside them (``positive``, ``ravel``, ``fliplr``, ``rot90``, ``isposinf``, ``signbit``,
``deg2rad``, ``nansum``, ``nanmean``, ``cummax``, ``cummin``), each compared with PyTorch: value bits,
dtype, shape, strides, node, gradient, or the error's text."""

from __future__ import annotations

import builtins

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
    "nansum dtype": lambda m, x: m.nansum(_with_nans(m, x), 1, dtype=m.float64),
    "nansum of ints to float": lambda m, x: m.nansum(m.tensor([1, 2]), dtype=m.float32),
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
    "cummax's saved dim": lambda m, x: m.cummax(x, -1).values.grad_fn._saved_dim,
    "ger": lambda m, x: m.ger(x[1], x[2]), "x.ger": lambda m, x: x[1].ger(x[2]),
    "xlogy of a number": lambda m, x: m.xlogy(2.5, x.abs()),
    "xlogy by a number": lambda m, x: m.xlogy(x, 2.5),
    "xlogy_": lambda m, x: x.detach().clone().xlogy_(x.detach().abs()),
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


# the pieces and stacks: tensor_split and its h/v/d forms, column_stack, dstack, atleast_nd,
# take_along_dim, msort, broadcast_tensors, tril_indices, triu_indices (x: 4 x 6, requires grad)
PIECES = {
    "tensor_split 3": lambda m, x: m.tensor_split(x, 3, 1),
    "tensor_split 4 of 6": lambda m, x: x.tensor_split(4, 1),
    "tensor_split at indices": lambda m, x: m.tensor_split(x, [1, 3], 1),
    "tensor_split at negative and large indices": lambda m, x: m.tensor_split(x, [-2, 1, 9], 0),
    "tensor_split by a tensor": lambda m, x: m.tensor_split(x, m.tensor([1, 2]), 1),
    "tensor_split by a 0-d tensor": lambda m, x: m.tensor_split(x, m.tensor(2), 0),
    "tensor_split 0": lambda m, x: m.tensor_split(x, 0),
    "tensor_split of 0-d": lambda m, x: m.tensor_split(x.sum(), 2),
    "tensor_split by floats": lambda m, x: m.tensor_split(x, m.tensor([1.0])),
    "tensor_split by a 2-d tensor": lambda m, x: m.tensor_split(x, m.tensor([[1]])),
    "tensor_split 7 of 4": lambda m, x: m.tensor_split(x, 7, 0),
    "hsplit": lambda m, x: m.hsplit(x, 2), "hsplit at indices": lambda m, x: x.hsplit([1, 4]),
    "hsplit not dividing": lambda m, x: m.hsplit(x, 4), "hsplit 1-d": lambda m, x: m.hsplit(x[0], 3),
    "hsplit 0-d": lambda m, x: m.hsplit(x.sum(), 1), "vsplit": lambda m, x: m.vsplit(x, [1]),
    "vsplit 1-d": lambda m, x: m.vsplit(x[0], 2), "dsplit": lambda m, x: m.dsplit(x.reshape(2, 2, 6), 3),
    "dsplit 2-d": lambda m, x: m.dsplit(x, 2),
    "column_stack": lambda m, x: m.column_stack([x[0], x[1]]),
    "column_stack mixed": lambda m, x: m.column_stack([x, x[:, 0], x.sum() * m.ones(4)]),
    "column_stack 0-d": lambda m, x: m.column_stack([x.sum(), x.sum()]),
    "dstack": lambda m, x: m.dstack([x, x]), "dstack 1-d": lambda m, x: m.dstack([x[0], x[1]]),
    "dstack 0-d": lambda m, x: m.dstack([x.sum(), x.sum()]),
    "atleast_1d": lambda m, x: m.atleast_1d(x.sum()), "atleast_2d": lambda m, x: m.atleast_2d(x[0]),
    "atleast_3d": lambda m, x: m.atleast_3d(x[0]), "atleast_3d 2-d": lambda m, x: m.atleast_3d(x),
    "atleast_3d 0-d": lambda m, x: m.atleast_3d(x.sum()),
    "atleast_2d of two": lambda m, x: m.atleast_2d(x[0], x.sum()),
    "atleast_1d of a list": lambda m, x: m.atleast_1d([x[0], x.sum()]),
    "atleast_1d is the tensor": lambda m, x: m.atleast_1d(x) is x,
    "take_along_dim": lambda m, x: m.take_along_dim(x, m.tensor([[0], [2], [1], [5]]), 1),
    "take_along_dim flat": lambda m, x: m.take_along_dim(x, m.tensor([3, 0, 23])),
    "take_along_dim broadcast": lambda m, x: x.take_along_dim(m.tensor([[1, 0, 2, 3, 3, 1]]), 0),
    "take_along_dim dim -1": lambda m, x: m.take_along_dim(x, m.tensor([[0], [2], [1], [5]]), -1),
    "take_along_dim int32": lambda m, x: m.take_along_dim(x, m.tensor([[0]], dtype=m.int32), 1),
    "take_along_dim other ndim": lambda m, x: m.take_along_dim(x, m.tensor([0]), 1),
    "take_along_dim not broadcasting": lambda m, x: m.take_along_dim(x, m.tensor([[0], [1]]), 1),
    "msort": lambda m, x: m.msort(x.flip(0)), "x.msort": lambda m, x: x.t().msort(),
    "broadcast_tensors": lambda m, x: m.broadcast_tensors(x, x[0], x[:, :1]),
    "broadcast_tensors of one": lambda m, x: m.broadcast_tensors(x)[0] is x,
    "broadcast_tensors not broadcasting": lambda m, x: m.broadcast_tensors(x, x[:3]),
    "tril_indices": lambda m, x: m.tril_indices(3, 4),
    "tril_indices offset": lambda m, x: m.tril_indices(4, 3, -1),
    "triu_indices": lambda m, x: m.triu_indices(3, 3, 1),
    "triu_indices far": lambda m, x: m.triu_indices(2, 5, 3),
    "tril_indices int32": lambda m, x: m.tril_indices(3, 3, dtype=m.int32),
    "triu_indices 0": lambda m, x: m.triu_indices(0, 3),
}


def _pieces(m, case):
    x = m.tensor(np.arange(24.0).reshape(4, 6) * 1.5 - 7, requires_grad=True)
    try:
        out = PIECES[case](m, x)
    except (RuntimeError, TypeError, IndexError) as e:
        return f"{type(e).__name__}: {e}"
    many = out if isinstance(out, (tuple, list)) else (out,)
    seen = [type(out).__name__ if isinstance(out, (tuple, list)) else ""]
    for t in many:
        seen.append(repr(t) if not isinstance(t, m.Tensor) else (
            tuple(t.shape), t.stride(), str(t.dtype), t.detach().numpy().tobytes(),
            None if t.grad_fn is None else type(t.grad_fn).__name__))
    needing = [t for t in many if isinstance(t, m.Tensor) and t.requires_grad]
    if needing:  # each piece weighted by its place, so that a piece in the wrong place shows
        (g,) = m.autograd.grad(builtins.sum((t * (i + 1)).sum() for i, t in enumerate(needing)), [x])
        seen.append(g.numpy().tobytes())
    return seen


@pytest.mark.parametrize("case", PIECES)
def test_pieces_and_stacks_are_pytorchs(case):
    if torch is None:
        pytest.skip("PyTorch is not installed")
    assert _pieces(al, case) == _pieces(torch, case)


# functions of no gradient, or of float64: searchsorted, bucketize, bincount, isin, argwhere,
# unravel_index, logspace, float_power (whose pow's graph starts from a ToCopyBackward0)
NAN = float("nan")
OTHERS = {
    "searchsorted": lambda m: m.searchsorted(m.tensor([1, 3, 5, 7]), m.tensor([3, 6, 9])),
    "searchsorted right": lambda m: m.searchsorted(m.tensor([1.0, 3, 5, 7]), m.tensor([3.0, 6]), right=True),
    "searchsorted side": lambda m: m.searchsorted(m.tensor([1.0, 3, 5, 7]), m.tensor([3.0, 6]), side="right"),
    "searchsorted a number": lambda m: m.searchsorted(m.tensor([1.0, 3, 5, 7]), 4.0),
    "searchsorted rows": lambda m:
        m.searchsorted(m.tensor([[1, 3, 5], [2, 4, 6]]), m.tensor([[3, 6], [1, 5]])),
    "searchsorted int32": lambda m: m.searchsorted(m.tensor([1, 3]), m.tensor([2]), out_int32=True),
    "searchsorted rows not matching": lambda m:
        m.searchsorted(m.tensor([[1, 3, 5], [2, 4, 6]]), m.tensor([[3, 6]])),
    "searchsorted sorter": lambda m:
        m.searchsorted(m.tensor([5, 1, 3]), m.tensor([2, 4]), sorter=m.tensor([1, 2, 0])),
    "searchsorted side wrong": lambda m: m.searchsorted(m.tensor([1, 3]), m.tensor([2]), side="middle"),
    "searchsorted opposite": lambda m:
        m.searchsorted(m.tensor([1, 3]), m.tensor([2]), side="left", right=True),
    "searchsorted nan": lambda m: m.searchsorted(m.tensor([1.0, 3, NAN]), m.tensor([NAN, 2.0, 4.0])),
    "searchsorted nan right": lambda m:
        m.searchsorted(m.tensor([NAN, 1.0, 3]), m.tensor([NAN, 2.0]), right=True),
    "bucketize": lambda m: m.bucketize(m.tensor([3, 6, 9]), m.tensor([1, 3, 5, 7])),
    "bucketize right": lambda m: m.bucketize(m.tensor([[3, 6], [9, 0]]), m.tensor([1, 3, 5, 7]), right=True),
    "bucketize 2-d boundaries": lambda m: m.bucketize(m.tensor([3]), m.tensor([[1, 3]])),
    "bucketize a number": lambda m: m.bucketize(4, m.tensor([1, 3, 5])),
    "bincount": lambda m: m.bincount(m.tensor([0, 1, 1, 3])),
    "bincount weights": lambda m:
        m.bincount(m.tensor([0, 1, 1, 3]), weights=m.tensor([0.5, 1, 1, 2]), minlength=6),
    "bincount float64 weights": lambda m: m.tensor([0, 1]).bincount(m.tensor([1.0, 2.0], dtype=m.float64)),
    "bincount int weights": lambda m: m.bincount(m.tensor([0, 1]), m.tensor([1, 2])),
    "bincount negative": lambda m: m.bincount(m.tensor([0, -1])),
    "bincount floats": lambda m: m.bincount(m.tensor([0.0])),
    "bincount empty": lambda m: m.bincount(m.tensor([], dtype=m.int64)),
    "isin": lambda m: m.isin(m.tensor([1, 2, 3]), m.tensor([2, 5])),
    "isin invert, a number": lambda m: m.isin(m.tensor([1, 2, 3]), 2, invert=True),
    "isin of a number": lambda m: m.isin(2, m.tensor([1, 2])),
    "isin of two numbers": lambda m: m.isin(1, 2),
    "argwhere": lambda m: m.argwhere(m.tensor([[0, 1], [2, 0]])),
    "argwhere 0-d": lambda m: m.argwhere(m.tensor(3.0)),
    "unravel_index": lambda m: m.unravel_index(m.tensor([4, 1]), (2, 3)),
    "unravel_index negative": lambda m: m.unravel_index(m.tensor([-1]), (2, 3)),
    "unravel_index 0-d": lambda m: m.unravel_index(m.tensor(5), 6),
    "unravel_index out of range wraps": lambda m: m.unravel_index(m.tensor([6]), (2, 3)),
    "unravel_index floats": lambda m: m.unravel_index(m.tensor([1.0]), (2, 3)),
    "unravel_index 2-d": lambda m: m.unravel_index(m.tensor([[0, 5], [3, 2]]), (2, 3)),
    "logspace": lambda m: m.logspace(0, 2, 3), "logspace base 2": lambda m: m.logspace(-1, 3, 7, base=2),
    "logspace float64": lambda m: m.logspace(0, 1, 5, dtype=m.float64),
    "logspace of 1": lambda m: m.logspace(2, 3, 1),
    "float_power": lambda m: m.float_power(m.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True), 2),
    "float_power of ints": lambda m: m.float_power(m.tensor([1, 2]), 0.5),
    "float_power of a number": lambda m: m.float_power(2, m.tensor([1.0, 2.0], requires_grad=True)),
    "float_power of two tensors": lambda m:
        m.float_power(m.tensor([1.0, 2.0], requires_grad=True), m.tensor([2, 3])),
    "x.to(copy=True)": lambda m: m.tensor([1.0], requires_grad=True).to(copy=True),
}


def _other(m, case):
    try:
        out = OTHERS[case](m)
    except (RuntimeError, TypeError, ValueError, NotImplementedError) as e:
        return f"{type(e).__name__}: {e}"
    many = out if isinstance(out, tuple) else (out,)
    return [type(out).__name__, *((tuple(t.shape), str(t.dtype),
                                   np.nan_to_num(t.detach().numpy(), nan=9).tobytes(),
                                   None if t.grad_fn is None else type(t.grad_fn).__name__) for t in many)]


@pytest.mark.parametrize("case", OTHERS)
def test_other_small_functions_are_pytorchs(case):
    if torch is None:
        pytest.skip("PyTorch is not installed")
    assert _other(al, case) == _other(torch, case)
