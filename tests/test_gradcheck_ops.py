"""Every op's backward agrees with central finite differences (``gradcheck``) in float64, and where
the op is twice differentiable so does its double backward (``gradgradcheck``), over shapes drawn by
Hypothesis: 0-d tensors, size-1 dimensions and broadcasting pairs included.

Inputs stay away from where a derivative does not exist: positive for log/sqrt, away from 0 for
abs/relu/division, distinct values for max/min (no ties), away from the bounds for clamp.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import autograd_lab as torch
from autograd_lab.autograd import gradcheck, gradgradcheck

FAST = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])

shapes = hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=3)
nonscalar_shapes = hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=3)
broadcast_pairs = hnp.mutually_broadcastable_shapes(
    num_shapes=2, min_dims=0, max_dims=3, min_side=1, max_side=3
).map(lambda r: r.input_shapes)
seeds = st.integers(0, 2**32 - 1)


def make(shape: tuple[int, ...], seed: int, kind: str = "any") -> torch.Tensor:
    """A float64 leaf that requires grad, with values from the domain ``kind``:

    any: uniform in [-2, 2]; positive: [0.5, 2]; nonzero: |x| in [0.2, 2];
    distinct: well-separated values (no ties for max/min/sort-like ops).
    """
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape, dtype=np.int64))
    if kind == "any":
        x = rng.uniform(-2, 2, n)
    elif kind == "positive":
        x = rng.uniform(0.5, 2, n)
    elif kind == "nonzero":
        x = rng.choice([-1.0, 1.0], n) * rng.uniform(0.2, 2, n)
    elif kind == "distinct":
        x = (rng.permutation(n) - n / 2) * 0.25 + rng.uniform(0, 0.05, n)
    else:
        raise ValueError(kind)
    return torch.tensor(np.asarray(x, dtype=np.float64).reshape(shape), requires_grad=True)


def check(fn, *inputs: torch.Tensor, twice: bool = True) -> None:
    assert gradcheck(fn, inputs), "backward disagrees with finite differences"
    if twice:
        assert gradgradcheck(fn, inputs), "double backward disagrees with finite differences"


# ---------------------------------------------------------------------------- arithmetic
BINARY = {
    "add": (lambda a, b: a + b, "any"),
    "sub": (lambda a, b: a - b, "any"),
    "mul": (lambda a, b: a * b, "any"),
    "div": (lambda a, b: a / b, "nonzero"),
    "torch.add alpha": (lambda a, b: torch.add(a, b, alpha=2.5), "any"),
    "maximum": (torch.maximum, "any"),
    "minimum": (torch.minimum, "any"),
}


@pytest.mark.parametrize("name", list(BINARY))
@FAST
@given(pair=broadcast_pairs, seed=seeds)
def test_binary_ops_with_broadcasting(name, pair, seed):
    fn, kind_b = BINARY[name]
    a = make(pair[0], seed)
    b = make(pair[1], seed + 1, kind_b)
    if name in ("maximum", "minimum"):  # no ties: the derivative jumps there
        assume(np.all(np.abs(a._data - b._data) > 1e-3))
    check(fn, a, b)


SCALAR_FORMS = {
    "x + 2.5": (lambda x: x + 2.5, "any"),
    "2.5 + x": (lambda x: 2.5 + x, "any"),
    "x - 1.5": (lambda x: x - 1.5, "any"),
    "1.5 - x": (lambda x: 1.5 - x, "any"),
    "x * -3": (lambda x: x * -3, "any"),
    "3.0 * x": (lambda x: 3.0 * x, "any"),
    "x / 4": (lambda x: x / 4, "any"),
    "4.0 / x": (lambda x: 4.0 / x, "nonzero"),
    "-x": (lambda x: -x, "any"),
    "+x * 1": (lambda x: (+x) * 1, "any"),
}


@pytest.mark.parametrize("name", list(SCALAR_FORMS))
@FAST
@given(shape=shapes, seed=seeds)
def test_arithmetic_with_python_numbers(name, shape, seed):
    fn, kind = SCALAR_FORMS[name]
    check(fn, make(shape, seed, kind))


UNARY = {
    "neg": (torch.neg, "any"),
    "exp": (torch.exp, "any"),
    "log": (torch.log, "positive"),
    "sqrt": (torch.sqrt, "positive"),
    "abs": (torch.abs, "nonzero"),
    "tanh": (torch.tanh, "any"),
    "sigmoid": (torch.sigmoid, "any"),
    "relu": (torch.relu, "nonzero"),
    "sin": (torch.sin, "any"),
    "cos": (torch.cos, "any"),
    "reciprocal": (torch.reciprocal, "nonzero"),
    "method exp": (lambda x: x.exp(), "any"),
    "method relu": (lambda x: x.relu(), "nonzero"),
    "clone": (torch.clone, "any"),
}


@pytest.mark.parametrize("name", list(UNARY))
@FAST
@given(shape=shapes, seed=seeds)
def test_unary_functions(name, shape, seed):
    fn, kind = UNARY[name]
    check(fn, make(shape, seed, kind))


# ---------------------------------------------------------------------------- powers
@pytest.mark.parametrize("exponent", [2, 3, 1, 0, -1, -2, 0.5, -1.5, 2.5])
@FAST
@given(shape=shapes, seed=seeds)
def test_pow_with_number_exponent(exponent, shape, seed):
    kind = "positive" if not float(exponent).is_integer() or exponent < 0 else "any"
    check(lambda x: x**exponent, make(shape, seed, kind))


@FAST
@given(pair=broadcast_pairs, seed=seeds)
def test_pow_with_tensor_exponent(pair, seed):
    base = make(pair[0], seed, "positive")
    exponent = make(pair[1], seed + 1)
    check(torch.pow, base, exponent)


@pytest.mark.parametrize("base", [2.0, 0.5, 3])
@FAST
@given(shape=shapes, seed=seeds)
def test_rpow_number_to_tensor(base, shape, seed):
    check(lambda x: base**x, make(shape, seed))
    check(lambda x: torch.pow(base, x), make(shape, seed))


# ---------------------------------------------------------------------------- matmul
RANK_PAIRS = [(1, 1), (2, 1), (1, 2), (2, 2), (3, 1), (1, 3), (3, 2), (2, 3), (3, 3), (4, 3), (3, 4)]


def _matmul_shapes(draw, ra: int, rb: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    side = st.integers(1, 3)
    n, k, m = draw(side), draw(side), draw(side)
    ba, bb = (), ()
    if ra > 2 or rb > 2:
        batch = draw(hnp.mutually_broadcastable_shapes(
            num_shapes=2, min_dims=0, max_dims=2, min_side=1, max_side=3))
        ba = batch.input_shapes[0][-max(ra - 2, 0):] if ra > 2 else ()
        bb = batch.input_shapes[1][-max(rb - 2, 0):] if rb > 2 else ()
        ba = (1,) * (max(ra - 2, 0) - len(ba)) + tuple(ba)
        bb = (1,) * (max(rb - 2, 0) - len(bb)) + tuple(bb)
    sa = (k,) if ra == 1 else ba + (n, k)
    sb = (k,) if rb == 1 else bb + (k, m)
    return sa, sb


@pytest.mark.parametrize("ranks", RANK_PAIRS, ids=[f"{a}d@{b}d" for a, b in RANK_PAIRS])
@FAST
@given(data=st.data(), seed=seeds)
def test_matmul_every_rank_combination(ranks, data, seed):
    sa, sb = _matmul_shapes(data.draw, *ranks)
    a, b = make(sa, seed), make(sb, seed + 1)
    expected = np.matmul(a._data, b._data)
    assert (a @ b).shape == expected.shape, f"{sa} @ {sb}"
    np.testing.assert_allclose((a @ b)._data, expected)
    check(torch.matmul, a, b)


@FAST
@given(n=st.integers(1, 3), k=st.integers(1, 3), m=st.integers(1, 3), seed=seeds)
def test_mm_and_dot(n, k, m, seed):
    check(torch.mm, make((n, k), seed), make((k, m), seed + 1))
    check(torch.dot, make((k,), seed), make((k,), seed + 1))


# ---------------------------------------------------------------------------- reductions
@st.composite
def shape_and_dims(draw, min_dims: int = 0):
    """A shape and a reduction ``dim`` for it: None, one (possibly negative) dim, or a tuple."""
    shape = draw(hnp.array_shapes(min_dims=min_dims, max_dims=3, min_side=1, max_side=3))
    nd = len(shape)
    if nd == 0:
        return shape, draw(st.sampled_from([None, 0, -1]))
    one = st.integers(-nd, nd - 1)
    several = st.lists(st.integers(0, nd - 1), min_size=1, max_size=nd, unique=True).map(tuple)
    return shape, draw(st.one_of(st.none(), one, several))


def _count(shape: tuple[int, ...], dim) -> int:
    if dim is None or not shape:
        return int(np.prod(shape, dtype=np.int64))
    dims = (dim,) if isinstance(dim, int) else dim
    return int(np.prod([shape[d] for d in dims], dtype=np.int64))


@pytest.mark.parametrize("op", ["sum", "mean"])
@FAST
@given(sd=shape_and_dims(), keepdim=st.booleans(), seed=seeds)
def test_sum_and_mean_over_dims(op, sd, keepdim, seed):
    shape, dim = sd
    x = make(shape, seed)
    if dim is None:
        check(lambda t: getattr(t, op)(), x)
    else:
        check(lambda t: getattr(t, op)(dim, keepdim=keepdim), x)


@pytest.mark.parametrize("op", ["var", "std"])
@FAST
@given(sd=shape_and_dims(), keepdim=st.booleans(), correction=st.sampled_from([0, 1]), seed=seeds)
def test_var_and_std_over_dims(op, sd, keepdim, correction, seed):
    shape, dim = sd
    assume(_count(shape, dim) > correction)  # otherwise the result is NaN
    # std of one element is 0, where sqrt has no derivative (PyTorch's second derivative is nan there)
    assume(op == "var" or _count(shape, dim) > 1)
    x = make(shape, seed, "distinct")  # distinct values: std > 0 over two or more
    check(lambda t: getattr(t, op)(dim, keepdim=keepdim, correction=correction), x)


@pytest.mark.parametrize("op", ["max", "min"])
@FAST
@given(sd=shape_and_dims(), keepdim=st.booleans(), seed=seeds)
def test_max_and_min_whole_and_along_a_dim(op, sd, keepdim, seed):
    shape, dim = sd
    x = make(shape, seed, "distinct")
    check(lambda t: getattr(t, op)(), x)
    if isinstance(dim, int):
        check(lambda t: getattr(t, op)(dim, keepdim=keepdim).values, x)
        check(lambda t: getattr(t, op)(dim, keepdim)[0], x)


@pytest.mark.parametrize("op", ["amax", "amin", "logsumexp"])
@FAST
@given(sd=shape_and_dims(), keepdim=st.booleans(), seed=seeds)
def test_amax_amin_logsumexp_over_dims(op, sd, keepdim, seed):
    shape, dim = sd
    x = make(shape, seed, "distinct")
    if dim is None:
        dim = tuple(range(len(shape))) if op == "logsumexp" else ()
    check(lambda t: getattr(t, op)(dim, keepdim=keepdim), x)


def test_max_ties_share_the_gradient_evenly():
    """max() with ties: PyTorch splits the gradient evenly among the tied elements."""
    x = torch.tensor([1.0, 3.0, 3.0], dtype=torch.float64, requires_grad=True)
    x.max().backward()
    assert x.grad.tolist() == [0.0, 0.5, 0.5]
    x = torch.tensor([[1.0, 3.0, 3.0]], dtype=torch.float64, requires_grad=True)
    x.amax(1).sum().backward()
    assert x.grad.tolist() == [[0.0, 0.5, 0.5]]


@pytest.mark.parametrize("p", [2, 1, 3, 1.5, float("inf"), "fro"])
@FAST
@given(sd=shape_and_dims(), keepdim=st.booleans(), seed=seeds)
def test_norm(p, sd, keepdim, seed):
    shape, dim = sd
    x = make(shape, seed, "distinct" if p == float("inf") else "nonzero")
    check(lambda t: t.norm(p, dim, keepdim), x, twice=p != float("inf"))


# ---------------------------------------------------------------------------- shapes
@FAST
@given(shape=shapes, seed=seeds, data=st.data())
def test_reshape_view_flatten(shape, seed, data):
    x = make(shape, seed)
    n = x.numel()
    check(lambda t: t.reshape(-1), x)
    check(lambda t: t.view(n), x)
    check(lambda t: t.reshape(tuple(reversed(shape))), x)
    check(lambda t: t.flatten(), x)
    if len(shape) >= 2:
        start = data.draw(st.integers(0, len(shape) - 1))
        end = data.draw(st.integers(start, len(shape) - 1))
        check(lambda t: t.flatten(start, end), x)
        check(lambda t: t.transpose(0, -1).reshape(-1), x)  # not viewable: a copy


@FAST
@given(shape=shapes, seed=seeds, data=st.data())
def test_squeeze_unsqueeze_expand(shape, seed, data):
    x = make(shape, seed)
    nd = len(shape)
    check(lambda t: t.squeeze(), x)
    if nd:
        d = data.draw(st.integers(-nd, nd - 1))
        check(lambda t: t.squeeze(d), x)
    u = data.draw(st.integers(-nd - 1, nd))
    check(lambda t: t.unsqueeze(u), x)
    target = (2,) + tuple(3 if s == 1 else s for s in shape)
    check(lambda t: t.expand(*target), x)
    check(lambda t: t.expand(2, *[-1] * nd), x)  # -1 keeps a size


@FAST
@given(shape=shapes, seed=seeds, data=st.data())
def test_transpose_permute_T_t(shape, seed, data):
    x = make(shape, seed)
    nd = len(shape)
    if nd:
        d0 = data.draw(st.integers(-nd, nd - 1))
        d1 = data.draw(st.integers(-nd, nd - 1))
        check(lambda t: t.transpose(d0, d1), x)
    perm = data.draw(st.permutations(range(nd)))
    check(lambda t: t.permute(*perm), x)
    if nd == 2:
        check(lambda t: t.T, x)
    else:  # .T reverses the dimensions, with PyTorch's deprecation warning
        with pytest.warns(UserWarning, match="deprecated"):
            check(lambda t: t.T, x)
    if nd <= 2:
        check(lambda t: t.t(), x)
    if nd >= 2:
        check(lambda t: t.mT, x)


@st.composite
def index_keys(draw, shape: tuple[int, ...]):
    """A basic index for ``shape``: ints, slices (with steps), None and at most one Ellipsis."""
    parts: list = []
    dim = 0
    used_ellipsis = False
    while dim < len(shape) and draw(st.booleans()):
        kind = draw(st.sampled_from(["int", "slice", "none", "ellipsis"]))
        size = shape[dim]
        if kind == "int":
            parts.append(draw(st.integers(-size, size - 1)))
            dim += 1
        elif kind == "slice":
            start = draw(st.none() | st.integers(-size, size))
            stop = draw(st.none() | st.integers(-size, size))
            step = draw(st.none() | st.integers(1, 2))
            parts.append(slice(start, stop, step))
            dim += 1
        elif kind == "none":
            parts.append(None)
        elif not used_ellipsis:
            parts.append(Ellipsis)
            used_ellipsis = True
            dim = len(shape)  # the rest is covered
    return tuple(parts)


@FAST
@given(shape=nonscalar_shapes, seed=seeds, data=st.data())
def test_basic_indexing(shape, seed, data):
    x = make(shape, seed)
    key = data.draw(index_keys(shape))
    expected = x._data[key]
    assert x[key].shape == expected.shape
    np.testing.assert_array_equal(x[key]._data, expected)
    check(lambda t: t[key], x)


@FAST
@given(shape=nonscalar_shapes, seed=seeds, data=st.data())
def test_integer_array_and_bool_mask_indexing(shape, seed, data):
    x = make(shape, seed)
    rows = data.draw(st.lists(st.integers(-shape[0], shape[0] - 1), min_size=1, max_size=5))
    check(lambda t: t[rows], x)  # repeated indices: their gradients add up
    check(lambda t: t[torch.tensor(rows)], x)
    if len(shape) >= 2:
        cols = data.draw(st.lists(st.integers(0, shape[1] - 1), min_size=len(rows), max_size=len(rows)))
        check(lambda t: t[rows, cols], x)
        check(lambda t: t[:, cols, ...], x)
        check(lambda t: t[1:, cols[:1]] if shape[0] > 1 else t[:, cols[:1]], x)
    mask = data.draw(hnp.arrays(np.bool_, shape))
    check(lambda t: t[torch.tensor(mask)], x)
    row_mask = data.draw(hnp.arrays(np.bool_, shape[:1]))
    check(lambda t: t[torch.tensor(row_mask)], x)


def test_repeated_indices_accumulate():
    x = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
    x[[0, 0, 2, 0]].sum().backward()
    assert x.grad.tolist() == [3.0, 0.0, 1.0]


@FAST
@given(shape=nonscalar_shapes, seed=seeds, data=st.data())
def test_setitem_on_a_non_leaf_is_copyslices(shape, seed, data):
    x = make(shape, seed)
    key = data.draw(index_keys(shape))
    target_shape = x._data[key].shape
    v = make(target_shape, seed + 1)

    def put(t, value):
        y = t * 1.0
        y[key] = value * 2.0
        return y

    out = put(x, v)
    # PyTorch's nodes: CopySlices, or a plain copy when the key selects everything (x[...] = v)
    assert type(out.grad_fn).__name__ in ("CopySlices", "CopyBackwards")
    check(put, x, v)
    rows = data.draw(st.lists(st.integers(0, shape[0] - 1), min_size=1, max_size=3, unique=True))
    w = make((len(rows),) + shape[1:], seed + 2)
    check(lambda t, value: _put_rows(t, rows, value), x, w)


def _put_rows(t, rows, value):
    y = t.sin()  # sin saves its input, not y: writing into y is allowed
    y[torch.tensor(rows)] = value
    return y


# ---------------------------------------------------------------------------- joins and splits
@FAST
@given(shape=nonscalar_shapes, seed=seeds, data=st.data(), n=st.integers(1, 3))
def test_cat_and_stack(shape, seed, data, n):
    nd = len(shape)
    dim = data.draw(st.integers(-nd, nd - 1))
    sizes = data.draw(st.lists(st.integers(1, 3), min_size=n, max_size=n))
    pieces = []
    for i, s in enumerate(sizes):
        piece_shape = list(shape)
        piece_shape[dim] = s
        pieces.append(make(tuple(piece_shape), seed + i))
    check(lambda *ts: torch.cat(ts, dim), *pieces)
    same = [make(shape, seed + i) for i in range(n)]
    sdim = data.draw(st.integers(-nd - 1, nd))
    check(lambda *ts: torch.stack(ts, sdim), *same)


@FAST
@given(shape=nonscalar_shapes, seed=seeds, data=st.data())
def test_chunk_and_split(shape, seed, data):
    x = make(shape, seed)
    nd = len(shape)
    dim = data.draw(st.integers(-nd, nd - 1))
    chunks = data.draw(st.integers(1, 4))
    size = data.draw(st.integers(1, 3))
    check(lambda t: x_pieces_weighted(t.chunk(chunks, dim)), x)
    check(lambda t: x_pieces_weighted(t.split(size, dim)), x)
    check(lambda t: t.split(size, dim)[0], x)  # the other pieces unused: zeros flow back for them
    n = shape[dim]
    first = data.draw(st.integers(0, n))
    check(lambda t: x_pieces_weighted(torch.split(t, [first, n - first], dim)), x)


def x_pieces_weighted(pieces):
    """Use every piece differently, so that a mixed-up gradient would show."""
    return torch.cat([p.reshape(-1) * (i + 1) for i, p in enumerate(pieces)])


# ---------------------------------------------------------------------------- selection
@FAST
@given(pair=broadcast_pairs, seed=seeds)
def test_where(pair, seed):
    a, b = make(pair[0], seed), make(pair[1], seed + 1)
    cond = torch.tensor(np.random.default_rng(seed).random(np.broadcast_shapes(*pair)) > 0.5)
    check(lambda x, y: torch.where(cond, x, y), a, b)


@FAST
@given(shape=shapes, seed=seeds, bounds=st.sampled_from([(-0.5, 0.5), (None, 0.3), (-0.3, None)]))
def test_clamp_with_numbers(shape, seed, bounds):
    x = make(shape, seed)
    lo, hi = bounds
    # keep away from the bounds, where the derivative jumps
    for bound in (lo, hi):
        if bound is not None:
            assume(np.all(np.abs(x._data - bound) > 1e-3))
    check(lambda t: t.clamp(lo, hi), x)
    check(lambda t: torch.clamp(t, min=lo, max=hi) if lo is not None or hi is not None else t, x)


@FAST
@given(pair=broadcast_pairs, seed=seeds)
def test_clamp_with_tensor_bounds(pair, seed):
    x = make(pair[0], seed)
    lo = make(pair[1], seed + 1) * 0.5 - 0.5
    hi = (lo.detach() + 1.0).requires_grad_()
    lo = lo.detach().requires_grad_()
    assume(np.all(np.abs(x._data - lo._data) > 1e-3) and np.all(np.abs(x._data - hi._data) > 1e-3))
    check(lambda t, a, b: t.clamp(a, b), x, lo, hi)
    check(lambda t, a: torch.clamp(t, min=a), x, lo)


@FAST
@given(pair=broadcast_pairs, seed=seeds)
def test_masked_fill(pair, seed):
    assume(np.broadcast_shapes(*pair) == tuple(pair[0]))  # the mask broadcasts to the input
    x = make(pair[0], seed)
    mask = torch.tensor(np.random.default_rng(seed).random(pair[1]) > 0.5)
    check(lambda t: t.masked_fill(mask, -1.5), x)
    check(lambda t: torch.masked_fill(t, mask, 0.0), x)


# ---------------------------------------------------------------------------- softmax
@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
@FAST
@given(shape=nonscalar_shapes, seed=seeds, data=st.data())
def test_softmax_and_log_softmax(op, shape, seed, data):
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    x = make(shape, seed)
    check(lambda t: getattr(torch, op)(t, dim), x)
    # numerically stable: shifted by 1000 the result is the same, finite, and still differentiable
    big = (x.detach() + 1000.0).requires_grad_()
    out = getattr(big, op)(dim)
    assert np.all(np.isfinite(out._data)), f"{op} overflowed at inputs near 1000"
    np.testing.assert_allclose(out._data, getattr(x, op)(dim)._data, rtol=1e-9, atol=1e-9)
    check(lambda t: getattr(t, op)(dim), big)


def test_softmax_of_large_inputs_is_exact():
    x = torch.tensor([1000.0, 1000.0, -1000.0], dtype=torch.float64)
    np.testing.assert_allclose(x.softmax(0)._data, [0.5, 0.5, 0.0])
    np.testing.assert_allclose(x.log_softmax(0)._data, [-np.log(2), -np.log(2), -2000 - np.log(2)])
    assert float(x.logsumexp(0)) == pytest.approx(1000 + np.log(2))


# ---------------------------------------------------------------------------- sum_to_size
@st.composite
def reducible_pair(draw):
    """(big, small): ``small`` broadcasts to ``big``, so ``big`` sums down to ``small``."""
    big = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=3))
    keep = draw(st.integers(0, len(big)))
    tail = big[len(big) - keep:]
    small = tuple(1 if draw(st.booleans()) else s for s in tail)
    return big, small


@FAST
@given(pair=reducible_pair(), seed=seeds)
def test_sum_to_size(pair, seed):
    big, small = pair
    x = make(big, seed)
    out = x.sum_to_size(small)
    assert out.shape == small
    np.testing.assert_allclose(out._data, _np_sum_to(x._data, small))
    check(lambda t: t.sum_to_size(small), x)
    check(lambda t: t.sum_to_size(*small) if small else t.sum_to_size(()), x)


def _np_sum_to(arr: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    lead = arr.ndim - len(shape)
    arr = arr.sum(axis=tuple(range(lead))) if lead else arr
    dims = tuple(i for i, s in enumerate(shape) if s == 1 and arr.shape[i] != 1)
    return arr.sum(axis=dims, keepdims=True) if dims else arr


# ---------------------------------------------------------------------------- compositions
@FAST
@given(pair=broadcast_pairs, seed=seeds)
def test_compositions_share_and_reuse_inputs(pair, seed):
    """Inputs used along several paths: the engine sums their gradients."""
    a, b = make(pair[0], seed), make(pair[1], seed + 1)
    check(lambda x, y: (x * y + x.exp() * y.tanh() - x / (1 + y * y)).sigmoid() * x, a, b)


@pytest.mark.parametrize("other", ["float64", "int64"])
def test_mixed_dtype_operands_give_float64_gradients(other):
    a = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    b = torch.tensor([3, 4]) if other == "int64" else torch.tensor([3.0, 4.0], dtype=torch.float64)
    (a * b).sum().backward()
    assert a.grad.dtype == torch.float64
    assert a.grad.tolist() == [3.0, 4.0]
