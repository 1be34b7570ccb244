"""ops/pointwise.py: the functions of one tensor (exp ... atanh, erf, rounding, nan_to_num) and of two
(atan2, hypot, logaddexp, heaviside): finite differences, node names, values, dtypes and gradients
against PyTorch."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import assert_same_double_backward, oracle, torch
from op_cases import UNARY, arr, check, distinct, make, run_both, same_outcome, table_tests

import autograd_lab as al

SHAPES = [(), (3,), (2, 3), (2, 1, 3)]


NODE_NAMES = {
    "erf": "ErfBackward0", "erfc": "ErfcBackward0", "erfinv": "ErfinvBackward0", "log1p": "Log1PBackward0",
    "expm1": "Expm1Backward0", "square": "PowBackward0", "rsqrt": "RsqrtBackward0",
    "exp2": "Exp2Backward0", "log2": "Log2Backward0", "log10": "Log10Backward0", "tan": "TanBackward0",
    "asin": "AsinBackward0", "acos": "AcosBackward0", "atan": "AtanBackward0", "sinh": "SinhBackward0",
    "cosh": "CoshBackward0", "asinh": "AsinhBackward0", "acosh": "AcoshBackward0",
    "atanh": "AtanhBackward0", "frac": "FracBackward0", "nan_to_num": "NanToNumBackward0",
    "sign": "SignBackward0", "floor": "FloorBackward0", "ceil": "CeilBackward0", "round": "RoundBackward0",
    "trunc": "TruncBackward0", "sinc": "SincBackward0",
}


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_gradcheck(name, shape):
    lo, hi = UNARY[name]
    x = make(shape, 1, lo, hi)
    check(getattr(al, name), x)
    check(lambda t: getattr(t, name)(), x)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_node_names(name):
    lo, hi = UNARY[name]
    y = getattr(al, name)(make((2,), 0, lo, hi))
    assert type(y.grad_fn).__name__ == NODE_NAMES[name]


def test_rounding_gradients_are_zero():
    for name in ("sign", "floor", "ceil", "round", "trunc"):
        x = make((4,), 3)
        getattr(al, name)(x).sum().backward()
        assert np.array_equal(x.grad.numpy(), np.zeros(4)), name
    x = make((4,), 3)
    al.frac(x).sum().backward()
    assert np.array_equal(x.grad.numpy(), np.ones(4))


BROADCAST = [((), ()), ((3,), (3,)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((), (2, 3)), ((2, 3), ())]


@pytest.mark.parametrize("shapes", BROADCAST)
@pytest.mark.parametrize("name", ["atan2", "hypot", "logaddexp", "remainder", "fmod",
                                  "clamp_min", "clamp_max"])
def test_binary_gradcheck(name, shapes):
    sa, sb = shapes
    if name in ("remainder", "fmod"):  # away from the jumps of the quotient
        a, b = make(sa, 1, 2.1, 2.9), make(sb, 2, 1.0, 1.05)
    elif name in ("clamp_min", "clamp_max"):
        a = distinct(sa, 1)
        b = make(sb, 2, -0.3, 0.3) + 0.0123
        b = b.detach().requires_grad_()
    else:
        a, b = make(sa, 1, 0.5, 2), make(sb, 2, -2, -0.5)
    fn = getattr(al, name)
    check(fn, a, b)
    check(lambda x, y: getattr(x, name)(y), a, b)


def test_erfinv_inverts_erf():
    y = np.linspace(-0.999999, 0.999999, 201)
    x = al.erfinv(al.tensor(y))
    np.testing.assert_allclose(al.erf(x).numpy(), y, rtol=1e-14, atol=1e-15)
    assert al.erfinv(al.tensor([1.0, -1.0, 1.5])).tolist()[:2] == [float("inf"), float("-inf")]


@oracle
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_against_torch(name, dtype):
    lo, hi = UNARY[name]
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == np.float32 else {}
    for shape in [(), (2, 3)]:
        x = arr(shape, 1, lo, hi, dtype)
        run_both(lambda lib, t: getattr(lib, name)(t * 1), [x], what=name, **tol)
        run_both(lambda lib, t: getattr(t * 1, name)(), [x], what=name, **tol)


@oracle
@pytest.mark.parametrize("name", sorted(UNARY) + ["logical_not", "isnan", "isinf", "isfinite"])
def test_unary_dtypes_against_torch(name):
    """Integer and bool inputs: the result dtype, or the same error."""
    for data in ([1, -2, 3], [True, False, True], [0.5, float("nan"), float("inf"), -float("inf")]):
        same_outcome(lambda lib, data=data: getattr(lib, name)(lib.tensor(data)), name)
    same_outcome(lambda lib: getattr(lib, name)(lib.tensor([1.0, 2.0], dtype=lib.float16)), name,
                 rtol=2e-3, atol=1e-3)


@oracle
def test_rounding_values_against_torch():
    x = [0.5, 1.5, 2.5, -0.5, -1.5, -2.7, 2.7, 0.0, -0.0]
    for name in ("floor", "ceil", "round", "trunc", "frac", "sign"):
        same_outcome(lambda lib, name=name: getattr(lib, name)(lib.tensor(x)), name)
    same_outcome(lambda lib: lib.round(lib.tensor([0.125, 1.155, -2.5]), decimals=2))
    same_outcome(lambda lib: lib.round(lib.tensor([1, 2]), decimals=1))
    same_outcome(lambda lib: lib.sign(lib.tensor([float("nan"), -3.0])))
    xs = al.tensor([1.25], requires_grad=True)
    assert type(al.round(xs * 1, decimals=1).grad_fn).__name__ == "RoundBackward1"


@oracle
def test_nan_to_num_against_torch():
    data = [float("nan"), float("inf"), -float("inf"), 1.5]
    for dt in ("float32", "float64", "float16"):
        same_outcome(lambda lib, dt=dt: lib.nan_to_num(lib.tensor(data, dtype=getattr(lib, dt))))
    same_outcome(lambda lib: lib.nan_to_num(lib.tensor(data), 1.0, 2.0, -3.0))
    same_outcome(lambda lib: lib.tensor(data).nan_to_num(posinf=7.0))
    run_both(lambda lib, t: lib.nan_to_num(t * 1), [np.array(data)])


# this module's cases in the tables of op_cases.py: finite differences, PyTorch, errors, in place
globals().update(table_tests("pointwise"))


@oracle
def test_atan2_gradient_at_the_origin_is_zero():
    run_both(lambda lib, a, b: lib.atan2(a, b),
             [np.array([0.0, 1.0, 0.0, -0.0]), np.array([0.0, 0.0, 2.0, 0.0])])


DOUBLE_BACKWARD_GRAPHS = {
    "relu": lambda lib, x: lib.relu(x),
    "sigmoid": lambda lib, x: lib.sigmoid(x),
    "tanh": lambda lib, x: lib.tanh(x),
    "leaky_relu": lambda lib, x: lib.nn.functional.leaky_relu(x, 0.1),
    "softmax": lambda lib, x: lib.softmax(x, 1),
    "log_softmax": lambda lib, x: lib.log_softmax(x, 0),
    "exp": lambda lib, x: lib.exp(x),
    "pow": lambda lib, x: x ** 3,
    "square": lambda lib, x: x ** 2,
    "reciprocal": lambda lib, x: 1 / x,
    "mul": lambda lib, x: x * x,
    "abs": lambda lib, x: x.abs(),
    "sgn": lambda lib, x: lib.sgn(x) * x,
    "cos": lambda lib, x: lib.cos(x),
    "atan2": lambda lib, x: lib.atan2(x, x.detach() + 1),
    "sqrt": lambda lib, x: (x * x + 1).sqrt(),
    "expm1": lambda lib, x: x.expm1(),
    "exp2": lambda lib, x: lib.exp2(x),
    "tan": lambda lib, x: x.tan(),
    "atan": lambda lib, x: x.atan(),
    "erf": lambda lib, x: lib.erf(x),
    "rpow": lambda lib, x: 2 ** x,
}


def _array(t):
    """A tensor's values; PyTorch's ZeroTensor (sgn's derivative) has no storage to read."""
    if getattr(t, "_is_zerotensor", lambda: False)():
        return np.zeros(tuple(t.shape))
    return t.detach().numpy()


@oracle
@pytest.mark.parametrize("name", sorted(DOUBLE_BACKWARD_GRAPHS))
def test_create_graph_records_pytorchs_derivative_nodes(name):
    """With ``create_graph=True`` the gradient's node and its edges are PyTorch's, and differentiating
    it by the input and by the incoming gradient gives PyTorch's values."""
    rng = np.random.default_rng(0)
    x, g, gg = (rng.normal(size=(3, 4)) + 0.05 for _ in range(3))
    outcomes = []
    for lib in (al, torch):
        xt, gt = lib.tensor(x, requires_grad=True), lib.tensor(g, requires_grad=True)
        (gx,) = lib.autograd.grad(DOUBLE_BACKWARD_GRAPHS[name](lib, xt), xt, gt, create_graph=True)
        edges = [None if n is None else type(n).__name__ for n, _ in gx.grad_fn.next_functions]
        seconds = lib.autograd.grad(gx, (xt, gt), lib.tensor(gg), allow_unused=True)
        seconds = [None if s is None else _array(s) for s in seconds]
        outcomes.append((type(gx.grad_fn).__name__, edges, seconds))
    (name_a, edges_a, second_a), (name_t, edges_t, second_t) = outcomes
    assert (name_a, edges_a) == (name_t, edges_t)
    for a, t in zip(second_a, second_t):
        np.testing.assert_allclose(a, t, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_relu_backward_passes_nan_inf_and_minus_zero_as_pytorch_does(dtype):
    """relu's derivative keeps the gradient's bits where the result is positive and gives +0.0
    elsewhere, even for nan, inf and -0.0 (computed without np.where since issue 17)."""
    t = pytest.importorskip("torch")
    x = [-1.0, 2.0, -3.0, 4.0, 0.0, 5.0, -6.0]
    g = [float("nan"), -0.0, float("inf"), -0.0, -5.0, float("-inf"), -0.0]
    ours = al.tensor(x, dtype=getattr(al, dtype), requires_grad=True)
    ours.relu().backward(al.tensor(g, dtype=getattr(al, dtype)))
    ref = t.tensor(x, dtype=getattr(t, dtype), requires_grad=True)
    ref.relu().backward(t.tensor(g, dtype=getattr(t, dtype)))
    got, want = ours.grad.numpy(), ref.grad.numpy()
    assert got.dtype == want.dtype and got.tobytes() == want.tobytes(), (got, want)


@oracle
def test_hypot_derivative_is_grouped_as_pytorchs():
    """``grad * self / result``: with ``create_graph=True`` PyTorch records DivBackward0(MulBackward0,
    HypotBackward0); the same derivatives up to the third."""
    def f(lib, a, b):
        return lib.hypot(a, b)

    values = [[[0.5, -2.0, 3.0], [7.0, -0.3, 1.5]], [[1.0, 2.0, -4.0], [0.5, 0.2, 1.0]]]
    assert_same_double_backward(f, values)


def _logit(m):
    x = m.tensor([0.2, 0.5, 1.2, -0.1, 0.0], requires_grad=True)
    out = []
    for eps in (None, 0.1):
        y = m.logit(x, eps)
        (g,) = m.autograd.grad(y.sum(), x)
        out.append((y.tolist(), y.grad_fn.name(), g.tolist()))
    out.append(m.logit(m.tensor([1, 0])).tolist())
    return out


@pytest.mark.torch
def test_logit_as_pytorch():
    """logit: nan outside [0, 1] without eps (and its gradient), clamped with eps (gradient 0 outside)."""
    if torch is None:
        pytest.skip("PyTorch is not installed")
    assert repr(_logit(al)) == repr(_logit(torch))  # (repr: nan equals nan)
