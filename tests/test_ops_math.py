"""Pointwise math ops, scans and reductions added to autograd_lab: gradients against finite
differences (float64 gradcheck and gradgradcheck), and the same programs run in PyTorch (values,
dtypes, gradients, grad_fn and next_functions names, saved tensors, error texts, tie-breaking).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import autograd_lab as al
from autograd_lab.autograd import gradcheck, gradgradcheck

try:
    import torch
except ImportError:  # the oracle is optional
    torch = None

needs_torch = [pytest.mark.torch, pytest.mark.skipif(torch is None, reason="PyTorch is not installed")]


def oracle(fn):
    for mark in needs_torch:
        fn = mark(fn)
    return fn


def make(shape, seed, lo=-2.0, hi=2.0, lib=al, dtype=np.float64, requires_grad=True):
    rng = np.random.default_rng(seed)
    x = rng.uniform(lo, hi, size=shape).astype(dtype)
    return lib.tensor(x, requires_grad=requires_grad)


def distinct(shape, seed, lib=al, requires_grad=True):
    """Well separated values (no ties), for sort, topk, median, max-like ops."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape, dtype=np.int64))
    x = ((rng.permutation(n) - n / 2) * 0.25 + rng.uniform(0, 0.05, n)).reshape(shape)
    return lib.tensor(x, requires_grad=requires_grad)


def check(fn, *inputs, twice=True):
    assert gradcheck(fn, inputs), "backward disagrees with finite differences"
    if twice:
        assert gradgradcheck(fn, inputs), "double backward disagrees with finite differences"


SHAPES = [(), (3,), (2, 3), (2, 1, 3)]

# name: (lo, hi) of a domain where the function is smooth
UNARY = {
    "erf": (-2, 2), "erfc": (-2, 2), "erfinv": (-0.9, 0.9), "log1p": (-0.5, 2), "expm1": (-2, 2),
    "square": (-2, 2), "rsqrt": (0.5, 2), "exp2": (-2, 2), "log2": (0.5, 2), "log10": (0.5, 2),
    "tan": (-1, 1), "asin": (-0.9, 0.9), "acos": (-0.9, 0.9), "atan": (-2, 2), "sinh": (-2, 2),
    "cosh": (-2, 2), "asinh": (-2, 2), "acosh": (1.2, 3), "atanh": (-0.9, 0.9), "frac": (0.1, 0.9),
    "nan_to_num": (-2, 2),
    # piecewise constant: zero gradient away from the jumps
    "sign": (0.2, 0.8), "floor": (0.1, 0.9), "ceil": (0.1, 0.9), "round": (0.1, 0.4), "trunc": (0.1, 0.9),
}

NODE_NAMES = {
    "erf": "ErfBackward0", "erfc": "ErfcBackward0", "erfinv": "ErfinvBackward0", "log1p": "Log1PBackward0",
    "expm1": "Expm1Backward0", "square": "PowBackward0", "rsqrt": "RsqrtBackward0",
    "exp2": "Exp2Backward0", "log2": "Log2Backward0", "log10": "Log10Backward0", "tan": "TanBackward0",
    "asin": "AsinBackward0", "acos": "AcosBackward0", "atan": "AtanBackward0", "sinh": "SinhBackward0",
    "cosh": "CoshBackward0", "asinh": "AsinhBackward0", "acosh": "AcoshBackward0",
    "atanh": "AtanhBackward0", "frac": "FracBackward0", "nan_to_num": "NanToNumBackward0",
    "sign": "SignBackward0", "floor": "FloorBackward0", "ceil": "CeilBackward0", "round": "RoundBackward0",
    "trunc": "TruncBackward0",
}


# ============================================================================ gradcheck
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


REDUCE_CASES = [((), None, False), ((4,), 0, False), ((2, 3), 1, False), ((2, 3), -1, True),
                ((2, 3, 2), -2, False), ((2, 3, 2), 0, True), ((), 0, True), ((), -1, False)]


@pytest.mark.parametrize("shape,dim,keepdim", REDUCE_CASES)
def test_prod_gradcheck(shape, dim, keepdim):
    x = make(shape, 5, 0.5, 1.5)
    check(lambda t: al.prod(t), x)
    if dim is not None:
        check(lambda t: t.prod(dim, keepdim=keepdim), x)


@pytest.mark.parametrize("zeros", [[1], [0, 2], [3]])
def test_prod_with_zeros_gradcheck(zeros):
    x = make((2, 4), 6, 0.5, 1.5)
    x.detach().numpy()[0, zeros] = 0.0
    check(lambda t: t.prod(), x)
    check(lambda t: t.prod(1), x)
    check(lambda t: t.prod(0, keepdim=True), x)


@pytest.mark.parametrize("shape,dim", [((), 0), ((), -1), ((4,), 0), ((2, 3), 1), ((2, 3), -2),
                                       ((2, 3, 2), 1)])
def test_scans_gradcheck(shape, dim):
    x = make(shape, 7, 0.5, 1.5)
    check(lambda t: al.cumsum(t, dim), x)
    check(lambda t: t.cumprod(dim), x)
    check(lambda t: al.logcumsumexp(t * 3, dim), x)


def test_cumprod_with_zeros_gradcheck():
    x = make((2, 4), 8, 0.5, 1.5)
    x.detach().numpy()[0, 1] = 0.0
    x.detach().numpy()[1, [0, 2]] = 0.0
    check(lambda t: al.cumprod(t, 1), x)
    check(lambda t: al.cumprod(t, 0), x)


@pytest.mark.parametrize("shape,dim,keepdim", [((4,), None, False), ((2, 3), 1, False),
                                               ((2, 3), -1, True), ((2, 3, 2), (0, 2), False),
                                               ((2, 3), None, True)])
def test_var_mean_std_mean_gradcheck(shape, dim, keepdim):
    x = make(shape, 9)
    for fn in (al.var_mean, al.std_mean):
        check(lambda t, fn=fn: fn(t, dim, keepdim=keepdim), x)
        check(lambda t, fn=fn: fn(t, dim, correction=0, keepdim=keepdim)[0] * 2 + fn(t, dim)[1].sum(), x)


@pytest.mark.parametrize("shape,dim,keepdim", [((), 0, False), ((5,), 0, False), ((2, 4), 1, True),
                                               ((2, 3, 2), -2, False)])
def test_selection_gradcheck(shape, dim, keepdim):
    x = distinct(shape, 10)
    check(lambda t: al.median(t), x)
    check(lambda t: t.median(dim, keepdim=keepdim).values, x)
    check(lambda t: al.sort(t, dim).values, x)
    check(lambda t: al.sort(t, dim, descending=True).values, x)
    k = 1 if not shape else min(2, shape[dim])
    check(lambda t: al.topk(t, k, dim).values, x)
    check(lambda t: t.topk(k, dim, largest=False).values, x)
    check(lambda t: al.aminmax(t, dim=dim, keepdim=keepdim), x)
    check(lambda t: al.aminmax(t), x)


@pytest.mark.parametrize("shape,n,dim", [((4,), 1, 0), ((2, 4), 2, -1), ((3, 2), 1, 0), ((4,), 5, 0)])
def test_diff_gradcheck(shape, n, dim):
    x = make(shape, 11)
    check(lambda t: al.diff(t, n, dim), x)
    p = make(shape[:dim] + (1,) + shape[dim + 1:] if dim >= 0 else shape[:-1] + (1,), 12)
    check(lambda t, q: t.diff(n, dim, prepend=q, append=q), x, p)


@pytest.mark.parametrize("p", [1, 2, 3, 1.5, float("inf")])
@pytest.mark.parametrize("shapes", [((3,), (3,)), ((2, 3), (3,)), ((), (2,))])
def test_dist_gradcheck(p, shapes):
    a, b = make(shapes[0], 13, 1, 2), make(shapes[1], 14, -2, -1)
    check(lambda x, y: al.dist(x, y, p), a, b, twice=p != float("inf"))


# ============================================================================ behaviour without torch
def test_median_is_the_lower_middle_and_sort_is_stable():
    x = al.tensor([4.0, 1.0, 3.0, 2.0])
    assert al.median(x).item() == 2.0
    m = al.tensor([[1.0, 1.0, 0.0], [2.0, 2.0, 2.0]])
    r = al.median(m, 1)
    assert r.values.tolist() == [1.0, 2.0] and r.indices.tolist() == [0, 1]
    s = al.sort(al.tensor([2.0, 1.0, 2.0, 1.0]), descending=True)
    assert s.indices.tolist() == [0, 2, 1, 3]
    assert al.argsort(al.tensor([2, 1, 2, 1])).tolist() == [1, 3, 0, 2]
    assert al.topk(al.tensor([1.0, 3.0, 3.0, 2.0]), 2).indices.tolist() == [1, 2]


def test_integer_results_are_not_differentiable():
    x = make((3,), 0)
    assert al.floor_divide(x.detach().long(), 2).grad_fn is None
    assert al.sort(x).indices.requires_grad is False
    assert al.isnan(x).requires_grad is False
    assert al.any(x).dtype is al.bool and al.count_nonzero(x).dtype is al.int64
    assert al.floor_divide(x, 2.0).requires_grad  # recorded, without a derivative
    with pytest.raises(RuntimeError, match="derivative for aten::floor_divide is not implemented"):
        al.floor_divide(x, 2.0).sum().backward()


def test_errors_leave_inputs_unchanged():
    x = al.tensor([1.0, 2.0, 3.0])
    before = x.numpy().copy()
    with pytest.raises(RuntimeError):
        x.lerp_(x.double(), 0.5)
    with pytest.raises(RuntimeError):
        x.clamp_min_(al.tensor([1.0, 2.0]))
    with pytest.raises(RuntimeError):
        al.tensor([1, 2]).erf_()  # a float result cannot be written into a Long tensor
    assert np.array_equal(x.numpy(), before) and x._version == 0


def test_erfinv_inverts_erf():
    y = np.linspace(-0.999999, 0.999999, 201)
    x = al.erfinv(al.tensor(y))
    np.testing.assert_allclose(al.erf(x).numpy(), y, rtol=1e-14, atol=1e-15)
    assert al.erfinv(al.tensor([1.0, -1.0, 1.5])).tolist()[:2] == [float("inf"), float("-inf")]


# ============================================================================ against PyTorch
def to_np(t):
    return np.asarray(t.detach().numpy())


def same(ours, theirs, what="", rtol=1e-6, atol=1e-7):
    assert isinstance(ours, al.Tensor), what
    assert tuple(ours.shape) == tuple(theirs.shape), f"{what}: {ours.shape} vs {theirs.shape}"
    assert str(ours.dtype) == str(theirs.dtype), f"{what}: {ours.dtype} vs {theirs.dtype}"
    np.testing.assert_allclose(to_np(ours), to_np(theirs), rtol=rtol, atol=atol, err_msg=what)


def node_names(t):
    fn = t.grad_fn
    if fn is None:
        return None
    return type(fn).__name__, [type(n).__name__ if n is not None else None for n, _ in fn.next_functions]


def run_both(fn, arrays, rtol=1e-6, atol=1e-7, grads=True, what=""):
    """fn(lib, *leaves) in both libraries: outputs, graph names, saved tensors and gradients."""
    ours_in = [al.tensor(a, requires_grad=a.dtype.kind == "f") for a in arrays]
    theirs_in = [torch.tensor(a, requires_grad=a.dtype.kind == "f") for a in arrays]
    ours, theirs = fn(al, *ours_in), fn(torch, *theirs_in)
    o_list = list(ours) if isinstance(ours, tuple) else [ours]
    t_list = list(theirs) if isinstance(theirs, tuple) else [theirs]
    assert len(o_list) == len(t_list)
    for o, t in zip(o_list, t_list):
        same(o, t, what, rtol, atol)
        assert node_names(o) == node_names(t), what
        assert o.requires_grad == t.requires_grad, what
        if o.grad_fn is not None:
            for name in type(o.grad_fn)._forward_cls.saved_names:
                mine, real = getattr(o.grad_fn, f"_saved_{name}"), getattr(t.grad_fn, f"_saved_{name}")
                assert (mine is None) == (real is None), f"{what}: _saved_{name}"
                if mine is not None:
                    same(mine, real, f"{what}: _saved_{name}", rtol, atol)
    if not grads:
        return
    diff_pairs = [(o, t) for o, t in zip(o_list, t_list) if t.requires_grad]
    if not diff_pairs:
        return
    rng = np.random.default_rng(0)
    vs = [rng.normal(size=tuple(t.shape)).astype(to_np(t).dtype) for _, t in diff_pairs]
    leaves = [(a, b) for a, b in zip(ours_in, theirs_in) if b.requires_grad]
    g_ours = al.autograd.grad([o for o, _ in diff_pairs], [a for a, _ in leaves],
                              [al.tensor(v) for v in vs], allow_unused=True)
    g_theirs = torch.autograd.grad([t for _, t in diff_pairs], [b for _, b in leaves],
                                   [torch.tensor(v) for v in vs], allow_unused=True)
    for go, gt in zip(g_ours, g_theirs):
        if gt is None:
            assert go is None or not np.any(go.numpy()), what
        else:
            same(go, gt, f"{what}: gradient", rtol * 10, atol * 10)


def arr(shape, seed, lo, hi, dtype=np.float64):
    return np.random.default_rng(seed).uniform(lo, hi, size=shape).astype(dtype)


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


def same_outcome(fn, what="", rtol=1e-6, atol=1e-7):
    """The same result, or the same exception type and message."""
    try:
        theirs = fn(torch)
    except Exception as e:  # noqa: BLE001 - any exception PyTorch raises, we must raise too
        with pytest.raises(type(e)) as info:
            fn(al)
        assert str(info.value) == str(e), what
        return
    ours = fn(al)
    if isinstance(theirs, tuple):
        assert type(ours).__name__ == type(theirs).__name__, what
        assert len(ours) == len(theirs)
        for o, t in zip(ours, theirs):
            same(o, t, what, rtol, atol)
    else:
        same(ours, theirs, what, rtol, atol)


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


BINARY_FNS = {
    "atan2": lambda lib, a, b: lib.atan2(a, b),
    "hypot": lambda lib, a, b: lib.hypot(a, b),
    "logaddexp": lambda lib, a, b: lib.logaddexp(a, b),
    "remainder": lambda lib, a, b: lib.remainder(a, b),
    "fmod": lambda lib, a, b: lib.fmod(a, b),
    "clamp_min": lambda lib, a, b: lib.clamp_min(a, b),
    "clamp_max": lambda lib, a, b: lib.clamp_max(a, b),
    "remainder_s": lambda lib, a, b: a.remainder(1.5) + b,
    "fmod_s": lambda lib, a, b: a.fmod(-1.5) + b,
    "clamp_min_s": lambda lib, a, b: a.clamp_min(0.3) * b,
    "clamp_max_s": lambda lib, a, b: a.clamp_max(0.3) * b,
    "lerp_s": lambda lib, a, b: lib.lerp(a, b, 0.25),
    "lerp_t": lambda lib, a, b: lib.lerp(a, b, b.exp()),
    "addcmul": lambda lib, a, b: lib.addcmul(a, b, a.sin(), value=0.5),
    "addcdiv": lambda lib, a, b: lib.addcdiv(a, b, a.exp(), value=-2),
    "dist": lambda lib, a, b: lib.dist(a, b),
    "dist3": lambda lib, a, b: a.dist(b, 3),
}


@oracle
@pytest.mark.parametrize("shapes", [((2, 3), (2, 3)), ((2, 3), (3,)), ((), (2, 1)), ((2, 1), (1, 3))])
@pytest.mark.parametrize("name", sorted(BINARY_FNS))
def test_binary_against_torch(name, shapes):
    a, b = arr(shapes[0], 1, -3, 3), arr(shapes[1], 2, -3, 3)
    b[np.abs(b) < 0.2] = 0.7
    run_both(lambda lib, x, y: BINARY_FNS[name](lib, x * 1, y * 1), [a, b], what=name)
    run_both(lambda lib, x, y: BINARY_FNS[name](lib, x, y), [a.astype(np.float32), b.astype(np.float32)],
             what=name, rtol=1e-5, atol=1e-6)


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


# dtype promotion and errors: each case runs in both libraries
CASES = {
    "atan2 ints": lambda lib: lib.atan2(lib.tensor([1, 2]), lib.tensor([3, -4])),
    "atan2 bools": lambda lib: lib.atan2(lib.tensor([True]), lib.tensor([False])),
    "atan2 f32 f64-0d": lambda lib: lib.atan2(lib.tensor([1.0, 2.0]), lib.tensor(2.0, dtype=lib.float64)),
    "atan2 int f64-0d": lambda lib: lib.atan2(lib.tensor([1, 2]), lib.tensor(2.0, dtype=lib.float64)),
    "atan2 scalar": lambda lib: lib.atan2(lib.tensor([1.0]), 2),
    "atan2 scalar first": lambda lib: lib.atan2(2.0, lib.tensor([1.0])),
    "atan2 method scalar": lambda lib: lib.tensor([1.0]).atan2(2),
    "atan2 shapes": lambda lib: lib.atan2(lib.ones(3), lib.ones(2)),
    "hypot ints": lambda lib: lib.hypot(lib.tensor([3]), lib.tensor([4])),
    "hypot mixed": lambda lib: lib.hypot(lib.tensor([3]), lib.tensor([4.0])),
    "hypot method scalar": lambda lib: lib.tensor([3.0]).hypot(4.0),
    "logaddexp bools": lambda lib: lib.logaddexp(lib.tensor([True]), lib.tensor([False])),
    "logaddexp f32 f64": lambda lib: lib.logaddexp(lib.ones(2), lib.ones(2, dtype=lib.float64)),
    "logaddexp infs": lambda lib: lib.logaddexp(lib.tensor([-float("inf"), float("inf")]),
                                                lib.tensor([-float("inf"), 1.0])),
    "lerp ints": lambda lib: lib.lerp(lib.tensor([1, 2]), lib.tensor([3, 4]), 0.5),
    "lerp ints tensor w": lambda lib: lib.lerp(lib.tensor([1, 2]), lib.tensor([3, 4]), lib.tensor([1, 2])),
    "lerp end dtype": lambda lib: lib.lerp(lib.ones(2), lib.ones(2, dtype=lib.float64), 0.5),
    "lerp weight dtype": lambda lib: lib.lerp(lib.ones(2), lib.ones(2), lib.ones(2, dtype=lib.float64)),
    "lerp 0d weight": lambda lib: lib.lerp(lib.ones(2), lib.zeros(2), lib.tensor(0.3, dtype=lib.float64)),
    "lerp int weight": lambda lib: lib.lerp(lib.ones(2), lib.zeros(2), 1),
    "lerp str weight": lambda lib: lib.lerp(lib.ones(2), lib.zeros(2), "a"),
    "lerp shapes": lambda lib: lib.lerp(lib.ones(3), lib.ones(2), 0.5),
    "lerp exact end": lambda lib: lib.lerp(lib.tensor([0.1, 1e8]), lib.tensor([0.3, -3.3]), 1.0),
    "addcmul ints": lambda lib: lib.addcmul(lib.tensor([1, 2]), lib.tensor([3, 4]), lib.tensor([5, 6]),
                                            value=2),
    "addcmul int float value": lambda lib: lib.addcmul(lib.tensor([1]), lib.tensor([3]), lib.tensor([5]),
                                                       value=0.5),
    "addcmul mixed": lambda lib: lib.addcmul(lib.tensor([1]), lib.tensor([3.0]), lib.tensor([5.0])),
    "addcmul f64": lambda lib: lib.addcmul(lib.ones(1), lib.ones(1, dtype=lib.float64), lib.ones(1)),
    "addcmul bools": lambda lib: lib.addcmul(lib.tensor([True]), lib.tensor([True]), lib.tensor([True])),
    "addcmul scalar": lambda lib: lib.addcmul(lib.ones(2), 2, lib.ones(2)),
    "addcmul shapes": lambda lib: lib.addcmul(lib.ones(3), lib.ones(2), lib.ones(3)),
    "addcdiv ints": lambda lib: lib.addcdiv(lib.tensor([1.0]), lib.tensor([3]), lib.tensor([5])),
    "addcdiv mixed": lambda lib: lib.addcdiv(lib.tensor([1]), lib.tensor([3.0]), lib.tensor([5.0])),
    "heaviside ints": lambda lib: lib.heaviside(lib.tensor([-1, 0, 2]), lib.tensor([5, 6, 7])),
    "heaviside dtypes": lambda lib: lib.heaviside(lib.tensor([-1, 0, 2]), lib.tensor([0.5])),
    "heaviside scalar": lambda lib: lib.heaviside(lib.tensor([-1.0, 0.0, 2.0]), 0.5),
    "heaviside values": lambda lib: lib.heaviside(lib.tensor([-1.0, 0.0, 2.0, float("nan")]),
                                                  lib.tensor([0.5])),
    "logical_and": lambda lib: lib.logical_and(lib.tensor([1.0, 0.0, 2.0]), lib.tensor([1, 1, 0])),
    "logical_or": lambda lib: lib.logical_or(lib.tensor([1.0, 0.0, 0.0]), lib.tensor([True, False, True])),
    "logical_xor": lambda lib: lib.tensor([1, 0, 3]).logical_xor(lib.tensor([[0], [2]])),
    "logical_and scalar": lambda lib: lib.logical_and(lib.tensor([1.0]), 1),
    "logical_or method scalar": lambda lib: lib.tensor([1.0]).logical_or(True),
    "logical_not": lambda lib: lib.logical_not(lib.tensor([0.0, 2.0, -0.0])),
    "clamp_min ints": lambda lib: lib.clamp_min(lib.tensor([1, 5]), 2),
    "clamp_min int float": lambda lib: lib.clamp_min(lib.tensor([1, 5]), 2.5),
    "clamp_max int f64-0d": lambda lib: lib.clamp_max(lib.tensor([1, 5]), lib.tensor(2.0, dtype=lib.float64)),
    "clamp_min scalar first": lambda lib: lib.clamp_min(2, lib.tensor([1.0])),
    "clamp_max shapes": lambda lib: lib.clamp_max(lib.ones(3), lib.ones(2)),
    "clamp_min nan": lambda lib: lib.clamp_min(lib.tensor([float("nan"), 1.0]), 0.5),
    "fmod scalar first": lambda lib: lib.fmod(2, lib.tensor([1.0])),
    "prod ints": lambda lib: lib.prod(lib.tensor([1, -2, 3])),
    "prod bools": lambda lib: lib.prod(lib.tensor([True, False]), 0),
    "prod int32": lambda lib: lib.prod(lib.tensor([[1, 2]], dtype=lib.int32), 1, keepdim=True),
    "prod dtype": lambda lib: lib.prod(lib.tensor([1, 2]), dtype=lib.float64),
    "prod tuple dim": lambda lib: lib.prod(lib.ones(2, 3), (0, 1)),
    "prod dim range": lambda lib: lib.prod(lib.ones(2, 3), 2),
    "prod empty": lambda lib: lib.prod(lib.zeros(0)),
    "prod empty dim": lambda lib: lib.prod(lib.zeros(2, 0), 1),
    "prod 0d dim": lambda lib: lib.prod(lib.tensor(3.0), -1, keepdim=True),
    "cumsum ints": lambda lib: lib.cumsum(lib.tensor([1, -2, 3]), 0),
    "cumsum bools": lambda lib: lib.cumsum(lib.tensor([True, True]), 0),
    "cumsum dtype": lambda lib: lib.cumsum(lib.tensor([1, 2]), 0, dtype=lib.float32),
    "cumsum range": lambda lib: lib.cumsum(lib.ones(2, 3), 2),
    "cumsum 0d": lambda lib: lib.cumsum(lib.tensor(2.0), -1),
    "cumprod ints": lambda lib: lib.cumprod(lib.tensor([[1, -2, 3]], dtype=lib.int32), 1),
    "cumprod 0d": lambda lib: lib.tensor(2.0).cumprod(0),
    "logcumsumexp ints": lambda lib: lib.logcumsumexp(lib.tensor([1, 2]), 0),
    "logcumsumexp infs": lambda lib: lib.logcumsumexp(lib.tensor([-float("inf"), 0.0, float("inf"), 1.0]), 0),
    "logcumsumexp big": lambda lib: lib.logcumsumexp(lib.tensor([1000.0, 1000.0, -1000.0]), 0),
    "var_mean ints": lambda lib: lib.var_mean(lib.tensor([1, 2])),
    "std_mean ints": lambda lib: lib.std_mean(lib.tensor([1, 2])),
    "var_mean unbiased": lambda lib: lib.var_mean(lib.tensor([[1.0, 2.0, 4.0]]), 1, False),
    "var_mean bool first": lambda lib: lib.var_mean(lib.tensor([[1.0, 2.0, 4.0]]), False),
    "std_mean correction": lambda lib: lib.std_mean(lib.tensor([[1.0, 2.0, 4.0]]), dim=(0, 1), correction=2),
    "std_mean keepdim": lambda lib: lib.std_mean(lib.tensor([[1.0, 2.0, 4.0]]), 1, keepdim=True),
    "var_mean range": lambda lib: lib.var_mean(lib.ones(2, 3), 2),
    "var_mean one element": lambda lib: lib.var_mean(lib.ones(1)),
    "median": lambda lib: lib.median(lib.tensor([[3.0, 1.0, 2.0], [1.0, 1.0, 0.0]])),
    "median ints": lambda lib: lib.median(lib.tensor([4, 1, 3, 2])),
    "median empty": lambda lib: lib.median(lib.zeros(0)),
    "median nan": lambda lib: lib.median(lib.tensor([1.0, float("nan"), 0.0])),
    "median dim": lambda lib: lib.median(lib.tensor([[3.0, 1.0, 2.0], [1.0, 1.0, 0.0]]), 1),
    "median dim keepdim": lambda lib: lib.tensor([[3.0, 1.0], [1.0, 1.0]]).median(0, keepdim=True),
    "median dim nan": lambda lib: lib.median(lib.tensor([[1.0, float("nan"), 0.0, float("nan")],
                                                         [2.0, 1.0, 0.0, 3.0]]), 1),
    "median dim 0d": lambda lib: lib.median(lib.tensor(2.0), 0),
    "median empty dim": lambda lib: lib.median(lib.zeros(2, 0), 1),
    "median other empty dim": lambda lib: lib.median(lib.zeros(2, 0), 0),
    "median bools": lambda lib: lib.median(lib.tensor([True])),
    "median bools dim": lambda lib: lib.median(lib.tensor([True]), 0),
    "median dim range": lambda lib: lib.median(lib.ones(2), 1),
    "sort": lambda lib: lib.sort(lib.tensor([[3.0, 1.0, 2.0], [1.0, 1.0, 0.0]])),
    "sort desc": lambda lib: lib.sort(lib.tensor([[3.0, 1.0, 2.0], [1.0, 1.0, 0.0]]), 0, descending=True),
    "sort stable": lambda lib: lib.sort(lib.tensor([2, 1, 2, 1, 2]), stable=True, descending=True),
    "sort bools": lambda lib: lib.sort(lib.tensor([True, False, True])),
    "sort 0d": lambda lib: lib.sort(lib.tensor(2.0)),
    "sort nan": lambda lib: lib.sort(lib.tensor([1.0, float("nan"), 0.0, -float("inf"), float("nan")])),
    "sort nan desc": lambda lib: lib.sort(lib.tensor([1.0, float("nan"), 0.0, float("nan")]),
                                          descending=True),
    "sort range": lambda lib: lib.sort(lib.ones(2, 3), 2),
    "argsort": lambda lib: lib.argsort(lib.tensor([[3.0, 1.0, 2.0], [1.0, 1.0, 0.0]])),
    "argsort desc": lambda lib: lib.tensor([[3, 1, 3], [1, 1, 0]]).argsort(0, descending=True),
    "topk": lambda lib: lib.topk(lib.tensor([[3.0, 1.0, 2.0], [1.0, 1.0, 0.0]]), 2),
    "topk smallest": lambda lib: lib.topk(lib.tensor([[3.0, 1.0, 2.0], [1.0, 1.0, 0.0]]), 2, largest=False),
    "topk dim0": lambda lib: lib.tensor([[3.0, 1.0, 2.0], [1.0, 1.0, 0.0]]).topk(1, 0),
    "topk too big": lambda lib: lib.topk(lib.ones(2, 3), 4),
    "topk negative": lambda lib: lib.topk(lib.ones(2, 3), -1),
    "topk 0d": lambda lib: lib.topk(lib.tensor(2.0), 1),
    "topk 0d too big": lambda lib: lib.topk(lib.tensor(2.0), 2),
    "topk zero": lambda lib: lib.topk(lib.ones(2, 3), 0),
    "topk ints": lambda lib: lib.topk(lib.tensor([1, -2, 3]), 2),
    "topk bools": lambda lib: lib.topk(lib.tensor([True, False]), 1),
    "topk nan": lambda lib: lib.topk(lib.tensor([1.0, float("nan"), 0.0]), 2),
    "topk nan smallest": lambda lib: lib.topk(lib.tensor([1.0, float("nan"), 0.0]), 3, largest=False),
    "diff": lambda lib: lib.diff(lib.tensor([[3.0, 1.0, 2.0], [1.0, 1.0, 0.0]])),
    "diff n2 dim0": lambda lib: lib.diff(lib.tensor([[3.0], [1.0], [7.0]]), n=2, dim=0),
    "diff n0": lambda lib: lib.diff(lib.ones(2, 3), n=0),
    "diff negative n": lambda lib: lib.diff(lib.ones(2, 3), n=-1),
    "diff 0d": lambda lib: lib.diff(lib.tensor(1.0)),
    "diff n big": lambda lib: lib.diff(lib.ones(2, 3), n=5),
    "diff bools": lambda lib: lib.diff(lib.tensor([True, False, False, True])),
    "diff ints": lambda lib: lib.diff(lib.tensor([1, -2, 3])),
    "diff prepend append": lambda lib: lib.diff(lib.tensor([1.0, 4.0]), prepend=lib.tensor([0.0]),
                                                append=lib.tensor([9.0, 3.0])),
    "diff prepend 0d": lambda lib: lib.diff(lib.ones(2, 3), prepend=lib.tensor(1.0)),
    "diff dim range": lambda lib: lib.diff(lib.ones(2, 3), dim=2),
    "dist": lambda lib: lib.dist(lib.tensor([[3.0, 1.0, 2.0], [1.0, 1.0, 0.0]]),
                                 lib.tensor([0.5, -1.5, 2.5])),
    "dist p0": lambda lib: lib.dist(lib.tensor([3.0, 1.0]), lib.tensor([3.0, 2.0]), 0),
    "dist inf": lambda lib: lib.dist(lib.tensor([3.0, 1.0]), lib.tensor([0.0, 2.0]), float("inf")),
    "dist -inf": lambda lib: lib.dist(lib.tensor([3.0, 1.0]), lib.tensor([0.0, 2.0]), -float("inf")),
    "dist ints": lambda lib: lib.dist(lib.tensor([1, 2]), lib.tensor([1, 2])),
    "dist mixed": lambda lib: lib.dist(lib.tensor([1.0, 2.0]), lib.tensor([1, 5])),
    "dist f64": lambda lib: lib.dist(lib.ones(2), lib.zeros(2, dtype=lib.float64)),
    "dist scalar": lambda lib: lib.dist(lib.ones(2), 2.0),
    "any": lambda lib: lib.any(lib.tensor([[0.0, 1.0], [0.0, 0.0]])),
    "any dim": lambda lib: lib.any(lib.tensor([[0.0, 1.0], [0.0, 0.0]]), 1),
    "any keepdim": lambda lib: lib.tensor([[0.0, 1.0], [0.0, 0.0]]).any(-1, keepdim=True),
    "any dims": lambda lib: lib.any(lib.tensor([[0.0, 1.0], [0.0, 0.0]]), (0, 1)),
    "all": lambda lib: lib.all(lib.tensor([[2, 1], [0, 3]])),
    "all dim": lambda lib: lib.tensor([[2, 1], [0, 3]]).all(0),
    "all uint8": lambda lib: lib.all(lib.tensor([1, 2], dtype=lib.uint8), 0),
    "all empty": lambda lib: lib.all(lib.zeros(0)),
    "all 0d": lambda lib: lib.tensor(0.0).all(),
    "any range": lambda lib: lib.any(lib.ones(2), 1),
    "count_nonzero": lambda lib: lib.count_nonzero(lib.tensor([[0.0, 1.0, 2.0], [0.0, 0.0, 3.0]])),
    "count_nonzero dim": lambda lib: lib.count_nonzero(lib.tensor([[0.0, 1.0, 2.0], [0.0, 0.0, 3.0]]), -1),
    "count_nonzero dims": lambda lib: lib.tensor([[0, 1, 2], [0, 0, 3]]).count_nonzero((0, 1)),
    "count_nonzero dup": lambda lib: lib.count_nonzero(lib.ones(2, 3), (1, -1)),
    "count_nonzero 0d": lambda lib: lib.count_nonzero(lib.tensor(3.0)),
    "aminmax": lambda lib: lib.aminmax(lib.tensor([[3.0, 1.0, 2.0], [1.0, 1.0, 0.0]])),
    "aminmax dim": lambda lib: lib.aminmax(lib.tensor([[3.0, 1.0, 2.0], [1.0, 1.0, 0.0]]), dim=1,
                                           keepdim=True),
    "aminmax keepdim": lambda lib: lib.tensor([[3.0, 1.0, 2.0]]).aminmax(keepdim=True),
    "aminmax empty": lambda lib: lib.aminmax(lib.zeros(0)),
    "aminmax empty dim": lambda lib: lib.aminmax(lib.zeros(2, 0), dim=1),
    "aminmax bools": lambda lib: lib.aminmax(lib.tensor([True, False])),
    "aminmax 0d": lambda lib: lib.aminmax(lib.tensor(1.0), dim=0),
    "square bools": lambda lib: lib.square(lib.tensor([True, False])),
    "frac ints": lambda lib: lib.frac(lib.tensor([1, 2])),
}


@oracle
@pytest.mark.parametrize("case", sorted(CASES))
def test_case_against_torch(case):
    with warnings.catch_warnings():  # the warnings themselves: test_var_mean_of_one_element_warns
        warnings.simplefilter("ignore", UserWarning)
        same_outcome(CASES[case], case)


@pytest.mark.parametrize("fn", ["var_mean", "std_mean"])
def test_var_mean_of_one_element_warns(fn):
    libs = [al] + ([torch] if torch is not None else [])
    for lib in libs:
        with pytest.warns(UserWarning, match=rf"^{fn}\(\): degrees of freedom is <= 0\. Correction should "
                                             r"be strictly less than the reduction factor"):
            getattr(lib, fn)(lib.ones(1))


# ---------------------------------------------------------------------------- reductions' graphs
REDUCTIONS = {
    "prod": lambda lib, t: lib.prod(t),
    "prod dim": lambda lib, t: t.prod(1),
    "prod dim keepdim": lambda lib, t: lib.prod(t, -1, keepdim=True),
    "cumsum": lambda lib, t: lib.cumsum(t, 1),
    "cumsum neg": lambda lib, t: t.cumsum(-2),
    "cumprod": lambda lib, t: lib.cumprod(t, 1),
    "logcumsumexp": lambda lib, t: lib.logcumsumexp(t, -1),
    "var_mean": lambda lib, t: lib.var_mean(t),
    "var_mean dim": lambda lib, t: lib.var_mean(t, 1, keepdim=True),
    "std_mean dim": lambda lib, t: lib.std_mean(t, -1),
    "std_mean dims": lambda lib, t: lib.std_mean(t, (0, 1), correction=0),
    "median": lambda lib, t: lib.median(t),
    "median dim": lambda lib, t: tuple(lib.median(t, 1)),
    "median dim keepdim": lambda lib, t: tuple(t.median(0, keepdim=True)),
    "sort": lambda lib, t: tuple(lib.sort(t, 1)),
    "sort desc": lambda lib, t: tuple(t.sort(0, descending=True)),
    "topk": lambda lib, t: tuple(lib.topk(t, 2)),
    "topk smallest": lambda lib, t: tuple(t.topk(1, 0, largest=False)),
    "aminmax": lambda lib, t: tuple(lib.aminmax(t)),
    "aminmax dim": lambda lib, t: tuple(t.aminmax(dim=1)),
    "diff": lambda lib, t: lib.diff(t),
    "diff n2": lambda lib, t: t.diff(2, 0),
    "argsort": lambda lib, t: lib.argsort(t * 1),
    "any": lambda lib, t: lib.any(t * 1, 1),
    "count_nonzero": lambda lib, t: lib.count_nonzero(t * 1),
}


@oracle
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reduction_against_torch(name, dtype):
    x = np.array([[0.7, -1.2, 1.9, 0.4], [1.3, 0.2, -0.6, 1.1], [-0.9, 2.2, 0.5, -1.7]], dtype=dtype)
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == np.float32 else {}
    run_both(lambda lib, t: REDUCTIONS[name](lib, t * 1), [x], what=name, **tol)


@oracle
@pytest.mark.parametrize("name", ["prod", "prod dim", "prod dim keepdim", "cumprod"])
def test_products_with_zeros_against_torch(name):
    for zeros in ([(0, 1)], [(0, 1), (0, 3)], [(0, 1), (2, 1)], [(1, 0), (1, 1), (1, 2)]):
        x = np.array([[0.7, -1.2, 1.9, 0.4], [1.3, 0.2, -0.6, 1.1], [-0.9, 2.2, 0.5, -1.7]])
        for i, j in zeros:
            x[i, j] = 0.0
        run_both(lambda lib, t: REDUCTIONS[name](lib, t * 1), [x], what=name)
        double_backward_both(lambda lib, t: REDUCTIONS[name](lib, t * 1), x)


def double_backward_both(fn, x):
    """Second derivatives (create_graph=True) agree with PyTorch's."""
    results = []
    for lib in (al, torch):
        t = lib.tensor(x, requires_grad=True)
        out = fn(lib, t)
        out = out[0] if isinstance(out, tuple) else out
        v = lib.tensor(np.linspace(0.5, 1.5, out.numel()).reshape(tuple(out.shape)))
        (g,) = lib.autograd.grad(out, t, v, create_graph=True)
        if not g.requires_grad:  # a derivative that does not depend on t (floor, sign, ...)
            results.append((to_np(g), None))
            continue
        (gg,) = lib.autograd.grad((g * g).sum(), t, allow_unused=True)
        results.append((to_np(g), None if gg is None else to_np(gg)))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-6, atol=1e-9)
    assert (results[0][1] is None) == (results[1][1] is None)
    if results[1][1] is not None:
        np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-6, atol=1e-9)


@oracle
@pytest.mark.parametrize("name", sorted(UNARY) + ["logcumsumexp", "cumprod", "var_mean dim",
                                                  "std_mean dim", "dist", "atan2", "hypot", "logaddexp"])
def test_double_backward_against_torch(name):
    if name in UNARY:
        lo, hi = UNARY[name]
        x = arr((2, 3), 5, lo, hi)
        double_backward_both(lambda lib, t: getattr(lib, name)(t), x)
    elif name in REDUCTIONS:
        x = arr((3, 4), 5, 0.5, 1.5)
        double_backward_both(REDUCTIONS[name], x)
    else:
        x = arr((2, 3), 5, 0.5, 1.5)
        double_backward_both(lambda lib, t: BINARY_FNS[name](lib, t, t.flip(0) * -1 + 0.1) if lib is torch
                             else BINARY_FNS[name](lib, t, t[[1, 0]] * -1 + 0.1), x)


@oracle
def test_gradient_routing_on_ties_against_torch():
    """median/aminmax of the whole tensor share the gradient among equal values; median(dim),
    sort and topk send it to the one element they picked (same index as PyTorch)."""
    x = np.array([[1.0, 1.0, 0.0, 2.0], [3.0, 1.0, 1.0, 3.0]])
    for fn in (lambda lib, t: lib.median(t), lambda lib, t: lib.median(t, 1).values,
               lambda lib, t: lib.median(t, 0).values, lambda lib, t: lib.sort(t, 1).values,
               lambda lib, t: lib.sort(t, 1, descending=True).values, lambda lib, t: lib.aminmax(t),
               lambda lib, t: lib.aminmax(t, dim=1)):
        run_both(lambda lib, t, fn=fn: fn(lib, t * 1), [x])


@oracle
def test_saved_tensors_freed_and_version_checked_like_torch():
    for lib in (al, torch):
        x = lib.tensor([0.5, 0.25], requires_grad=True)
        y = x * 1
        z = y.log1p()
        y.mul_(2)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            z.sum().backward()
        w = (x * 1).expm1()
        w.sum().backward()
        with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
            w.grad_fn._saved_result  # noqa: B018


# ---------------------------------------------------------------------------- in-place variants
INPLACE = {
    "erf_": lambda t: t.erf_(), "erfc_": lambda t: t.erfc_(), "erfinv_": lambda t: (t * 0.3).erfinv_(),
    "log1p_": lambda t: t.log1p_(), "expm1_": lambda t: t.expm1_(), "sign_": lambda t: t.sign_(),
    "floor_": lambda t: t.floor_(), "ceil_": lambda t: t.ceil_(), "round_": lambda t: t.round_(),
    "trunc_": lambda t: t.trunc_(), "frac_": lambda t: t.frac_(), "square_": lambda t: t.square_(),
    "rsqrt_": lambda t: t.rsqrt_(), "exp2_": lambda t: t.exp2_(), "log2_": lambda t: t.log2_(),
    "log10_": lambda t: t.log10_(), "tan_": lambda t: t.tan_(), "asin_": lambda t: (t * 0.3).asin_(),
    "acos_": lambda t: (t * 0.3).acos_(), "atan_": lambda t: t.atan_(), "sinh_": lambda t: t.sinh_(),
    "cosh_": lambda t: t.cosh_(), "asinh_": lambda t: t.asinh_(), "acosh_": lambda t: (t + 1).acosh_(),
    "atanh_": lambda t: (t * 0.3).atanh_(), "nan_to_num_": lambda t: t.nan_to_num_(),
    "logical_not_": lambda t: t.logical_not_(),
    "atan2_": lambda t: t.atan2_(t.detach() + 1), "hypot_": lambda t: t.hypot_(t.detach() * 2),
    "lerp_": lambda t: t.lerp_(t.detach() * 3, 0.3),
    "addcmul_": lambda t: t.addcmul_(t.detach().clone(), t.detach() * 2),
    "addcdiv_": lambda t: t.addcdiv_(t.detach().clone(), t.detach() + 1, value=2),
    "remainder_": lambda t: t.remainder_(0.7), "fmod_": lambda t: t.fmod_(0.7),
    "floor_divide_": lambda t: t.detach().floor_divide_(0.3),
    "heaviside_": lambda t: t.detach().heaviside_(t.detach()),
    "logical_and_": lambda t: t.logical_and_(t.detach()), "logical_or_": lambda t: t.logical_or_(t.detach()),
    "logical_xor_": lambda t: t.logical_xor_(t.detach()), "clamp_min_": lambda t: t.clamp_min_(0.5),
    "clamp_max_": lambda t: t.clamp_max_(0.5), "cumsum_": lambda t: t.cumsum_(0),
    "cumprod_": lambda t: t.cumprod_(-1),
}


@oracle
@pytest.mark.parametrize("name", sorted(INPLACE))
def test_inplace_against_torch(name):
    x = np.array([0.25, 0.5, 0.75, 1.5])
    results = []
    for lib in (al, torch):
        leaf = lib.tensor(x, requires_grad=True)
        t = leaf * 1
        out = INPLACE[name](t)
        results.append((out, node_names(out), out._version))
        if out.requires_grad:
            try:
                out.sum().backward()
                results[-1] += (leaf.grad,)
            except (RuntimeError, NotImplementedError) as e:  # acosh_ & co.: no derivative in place
                results[-1] += (f"{type(e).__name__}: {e}",)
    (o, on, ov, *og), (t, tn, tv, *tg) = results
    same(o, t, name)
    assert on == tn and ov == tv, name
    if tg and isinstance(tg[0], str):
        assert og == tg
    elif tg:
        same(og[0], tg[0], name)
    # on a leaf that requires grad: the same refusal
    same_outcome(lambda lib: INPLACE[name](lib.tensor(x, requires_grad=True)) * 1, name)
    # on an integer tensor: the same result or error
    same_outcome(lambda lib: INPLACE[name](lib.tensor([1, 2, 3])), name)


PARTIAL = {
    "addcmul": lambda lib, a, b, c: lib.addcmul(a, b, c, value=2),
    "addcdiv": lambda lib, a, b, c: lib.addcdiv(a, b, c),
    "lerp": lambda lib, a, b, c: lib.lerp(a, b, c),
    "atan2": lambda lib, a, b, c: lib.atan2(a, b) * c,
    "hypot": lambda lib, a, b, c: lib.hypot(a, b) * c,
    "logaddexp": lambda lib, a, b, c: lib.logaddexp(a, b) * c,
    "remainder": lambda lib, a, b, c: lib.remainder(a, b) * c,
    "fmod": lambda lib, a, b, c: lib.fmod(a, b) * c,
    "clamp_min": lambda lib, a, b, c: lib.clamp_min(a, b) * c,
    "clamp_max": lambda lib, a, b, c: lib.clamp_max(a, b) * c,
    "dist": lambda lib, a, b, c: lib.dist(a, b) * c,
    "floor_divide": lambda lib, a, b, c: lib.floor_divide(a, b) * c,
    "heaviside": lambda lib, a, b, c: lib.heaviside(a, b) * c,
}


@oracle
@pytest.mark.parametrize("mask", [(1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 1, 1)])
@pytest.mark.parametrize("name", sorted(PARTIAL))
def test_partial_requires_grad_against_torch(name, mask):
    """Only what the gradients of the inputs that require grad need is saved (node._saved_* is None
    otherwise), the graph has PyTorch's edges, and the gradients agree."""
    data = [np.array([1.3, 0.6, 2.2]), np.array([0.7, 1.9, 0.4]), np.array([1.1, 0.8, 1.5])]
    outs, grads, names = [], [], ()
    for lib in (al, torch):
        ts = [lib.tensor(d, requires_grad=True) * 1 if m else lib.tensor(d) for d, m in zip(data, mask)]
        y = PARTIAL[name](lib, *ts)
        node = y.grad_fn
        if node is not None and name not in ("addcmul", "addcdiv", "lerp"):
            node = node.next_functions[0][0]  # the op under test, before the "* c"
        if lib is al and node is not None:
            names = type(node)._forward_cls.saved_names
        saved = {n: getattr(node, f"_saved_{n}") is None for n in names} if node is not None else None
        outs.append((node_names(y), to_np(y), saved))
        diff = [t for t in ts if t.requires_grad]
        if y.requires_grad and name not in ("floor_divide", "heaviside"):
            grads.append([to_np(g) for g in lib.autograd.grad(y.sum(), diff)])
    (on, ov, osaved), (tn, tv, tsaved) = outs
    assert on == tn
    np.testing.assert_allclose(ov, tv, rtol=1e-12)
    assert osaved == tsaved
    for g1, g2 in zip(*grads):
        np.testing.assert_allclose(g1, g2, rtol=1e-12)
