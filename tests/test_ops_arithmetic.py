"""ops/arithmetic.py: remainder, fmod, floor_divide, lerp, addcmul, addcdiv (the operators are checked
by the cross-cutting suites): finite differences, values and dtypes against PyTorch, missing derivatives."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from helpers import oracle, torch
from op_cases import check, distinct, make, node_names, run_both, same, same_outcome, table_tests

import autograd_lab as al


@pytest.mark.parametrize("name", ["remainder", "fmod", "clamp_min", "clamp_max"])
def test_binary_scalar_gradcheck(name):
    x = make((2, 3), 4, 0.1, 0.9) if name in ("remainder", "fmod") else distinct((2, 3), 4)
    check(lambda t: getattr(al, name)(t, 0.31 if name in ("clamp_min", "clamp_max") else 1.7), x)


@pytest.mark.parametrize("shapes", [((3,), (3,), (3,)), ((2, 3), (3,), (2, 1)), ((), (2, 3), ()),
                                    ((2, 1, 3), (1, 2, 1), (3,))])
def test_ternary_gradcheck(shapes):
    a, b, w = make(shapes[0], 1), make(shapes[1], 2), make(shapes[2], 3, 0.5, 2)
    check(lambda x, y, z: al.lerp(x, y, z), a, b, w)
    check(lambda x, y: al.lerp(x, y, 0.3), a, b)
    check(lambda x, y: x.lerp(y, 0.7), a, b)
    check(lambda x, y, z: al.addcmul(x, y, z, value=-1.5), a, b, w)
    check(lambda x, y, z: al.addcdiv(x, y, z, value=0.5), a, b, w)
    check(lambda x, y, z: x.addcdiv(y, z), a, b, w)


@oracle
@pytest.mark.parametrize("name", ["floor_divide", "heaviside", "remainder_rev"])
def test_not_implemented_derivatives_against_torch(name):
    fns = {"floor_divide": lambda lib, x, y: lib.floor_divide(x * 1, y),
           "heaviside": lambda lib, x, y: lib.heaviside(x * 1, y),
           "remainder_rev": lambda lib, x, y: lib.remainder(2.5, x * 1)}
    a, b = np.array([-1.5, 0.0, 2.5, 3.0]), np.array([0.7, 0.5, -2.0, 3.0])
    ours_in = [al.tensor(a, requires_grad=True), al.tensor(b, requires_grad=True)]
    theirs_in = [torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)]
    ours, theirs = fns[name](al, *ours_in), fns[name](torch, *theirs_in)
    same(ours, theirs, name)
    assert node_names(ours) == node_names(theirs)
    with pytest.raises(RuntimeError) as real:
        theirs.sum().backward()
    with pytest.raises(RuntimeError) as mine:
        ours.sum().backward()
    assert str(mine.value) == str(real.value)


INT_A, INT_B = [7, -7, 5, -5, 0], [3, 3, -2, -2, 4]


FLT_A, FLT_B = [7.5, -7.5, 5.0, -5.0, 0.0, -2.0], [2.0, 2.0, -1.5, -1.5, 4.0, 2.0]


@oracle
@pytest.mark.parametrize("name", ["remainder", "fmod", "floor_divide"])
def test_division_like_values_against_torch(name):
    for a, b in ((INT_A, INT_B), (FLT_A, FLT_B[:5] + [2.0])):
        for other in ("b", 2, -2.5, 0, 0.0, "f64"):
            def fn(lib, a=a, b=b, other=other):
                o = {"b": lib.tensor(b), "f64": lib.tensor(2.0, dtype=lib.float64)}.get(other, other)
                return getattr(lib, name)(lib.tensor(a), o)
            same_outcome(fn, f"{name} {other}")
        same_outcome(lambda lib, a=a, b=b: getattr(lib.tensor(a), name)(lib.tensor(b)), name)
    same_outcome(lambda lib: getattr(lib, name)(3, lib.tensor(FLT_B)), name)
    same_outcome(lambda lib: getattr(lib, name)(lib.tensor([True]), lib.tensor([True])), name)


# this module's cases in the tables of op_cases.py: finite differences, PyTorch, errors, in place
globals().update(table_tests("arithmetic"))


@oracle
@pytest.mark.parametrize("name", ["add", "sub"])
@pytest.mark.parametrize("alpha", [2, 0.5, -1, 0])
def test_alpha_is_applied_inside_the_node(name, alpha):
    """``add(a, b, alpha=2)``: one AddBackward0 (alpha is ``_saved_alpha``), no MulBackward0 under it."""
    def fn(lib, a, b):
        return getattr(lib, name)(a, b, alpha=alpha)
    run_both(fn, [np.array([1.0, 4.0]), np.array([[2.0], [3.0]])], what=name)
    a, b = al.tensor([1.0], requires_grad=True), al.tensor([2.0], requires_grad=True)
    assert getattr(al, name)(a, b, alpha=alpha).grad_fn._saved_alpha == alpha


@oracle
@pytest.mark.parametrize("name", ["add", "sub"])
@pytest.mark.parametrize("alpha, dtype", [(True, "float32"), (True, "int64"), (0.5, "int64"), (2, "int64")])
def test_alpha_rules(name, alpha, dtype):
    same_outcome(lambda lib: getattr(lib, name)(lib.tensor([1, 2], dtype=getattr(lib, dtype)),
                                                lib.tensor([3, 4], dtype=getattr(lib, dtype)), alpha=alpha))


@oracle
@pytest.mark.parametrize("fn", [lambda x: x ** 2, lambda x: 2 ** x, lambda x: x ** x, lambda x: x.prod(0)])
def test_modified_saved_result_names_the_op_as_pytorch(fn):
    """``output 0 of Pow1`` for PowBackward1, ``Pow`` for PowBackward0 (the 0 is dropped)."""
    texts = []
    for lib in (al, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = fn(x)
        y.add_(1)
        try:
            y.sum().backward()
            texts.append(None)
        except RuntimeError as e:
            texts.append(str(e).split(" Hint:")[0])
    assert texts[0] == texts[1]


@oracle
@pytest.mark.parametrize("alpha", [1, 3, 0.5])
@pytest.mark.parametrize("other", ["number", "tensor"])
def test_rsub_with_alpha(alpha, other):
    """``torch.rsub(a, other, alpha)``: ``other - alpha * a``, RsubBackward1 for a number, RsubBackward0
    for a tensor (with an edge to it)."""
    if other == "number":
        same_outcome(lambda lib: lib.rsub(lib.tensor([1.0, 4.0]), 2.0, alpha=alpha))
        run_both(lambda lib, a: lib.rsub(a, 2.0, alpha=alpha), [np.array([1.0, 4.0])])
    else:
        run_both(lambda lib, a, b: lib.rsub(a, b, alpha=alpha),
                 [np.array([1.0, 4.0]), np.array([[2.0], [3.0]])])


def test_pow_of_tensors_gives_nan_without_numpy_warnings():
    """``pow(x, x)`` with a negative base: nan as in PyTorch, and no NumPy RuntimeWarning (found by the
    random-program test)."""
    torch = pytest.importorskip("torch")
    got = {}
    for lib in (al, torch):
        x = lib.tensor([[-0.99], [0.06], [1.34]], requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            y = lib.pow(x, x)
            y.sum().backward()
        got[lib.__name__] = (np.isnan(y.detach().numpy()).tolist(), [str(w.message) for w in caught])
    assert got["autograd_lab"] == got["torch"]


@oracle
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("number", [3, 0.2, True, np.float32(1.5), np.int32(3)])
@pytest.mark.parametrize("op", ["mul", "div"])
def test_a_python_number_is_saved_with_pytorchs_dtype_for_numbers(op, number, dtype):
    """``x * 0.2`` saves 0.2 as a 0-d float64 tensor, ``x * 3`` as int64, whatever x's dtype; the
    gradient is still computed in x's dtype (found by the random-program test)."""
    outcomes = []
    for lib in (al, torch):
        x = lib.tensor([1.5, -2.0], dtype=getattr(lib, dtype), requires_grad=True)
        try:
            y = getattr(lib, op)(x, number)
        except Exception as e:  # noqa: BLE001 - the same error in both is fine
            outcomes.append(type(e).__name__)
            continue
        other = y.grad_fn._saved_other
        y.sum().backward()
        outcomes.append((str(other.dtype).split(".")[-1], tuple(other.shape), other.item(),
                         str(x.grad.dtype).split(".")[-1], x.grad.tolist()))
    assert outcomes[0] == outcomes[1]


def _div_rounding(m):
    """div with rounding_mode: values (floats and integers), node and edges, a zero derivative, errors."""
    x = m.tensor([5.0, -5.0, 3.0, -7.5], requires_grad=True)
    y = m.tensor([2.0, 2.0, 0.0, 2.0], requires_grad=True)
    out = []
    for mode in ("floor", "trunc"):
        z = m.div(x, y, rounding_mode=mode)
        out.append((z.tolist(), z.grad_fn.name(), len(z.grad_fn.next_functions)))
        z.sum().backward()
        out.append((x.grad.tolist(), y.grad.tolist()))
        out.append(m.div(m.tensor([7, -7]), m.tensor([2, 2]), rounding_mode=mode).tolist())
    out.append(x.div(2.0, rounding_mode="floor").tolist())
    for bad in (lambda: m.div(x, y, rounding_mode="x"),
                lambda: m.div(m.tensor([1]), m.tensor([0]), rounding_mode="trunc")):
        try:
            bad()
        except RuntimeError as e:
            out.append(str(e))
    return out


@pytest.mark.torch
def test_div_with_rounding_mode_as_pytorch():
    if torch is None:
        pytest.skip("PyTorch is not installed")
    assert _div_rounding(al) == _div_rounding(torch)
