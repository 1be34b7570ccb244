"""det, slogdet, inv and solve (from the LU factorization), cross, inner and tensordot against PyTorch:
dtypes, shapes, strides, the nodes of the graph (of the gradient too, under ``create_graph``), the saved
attributes, the errors word for word; values, gradients and second derivatives bit for bit where they do
not come from LAPACK (cross, integer matrices, PyTorch's 0 gradient at a singular matrix), else within
``ROUNDING`` (LAPACK's order of operations: MKL's in PyTorch, ours in NumPy). Then checks without
PyTorch: values by hand, gradcheck and gradgradcheck."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from helpers import torch

import autograd_lab as al
from autograd_lab.autograd import gradcheck, gradgradcheck
from autograd_lab.ops import linalg as ops_linalg

# the tolerance of values from a factorization, in units of the dtype's eps times the largest |value|
# (measured: det bit for bit up to 16 x 16; inv and solve within 13 eps, their derivatives within 5)
ROUNDING = 32

_rng = np.random.default_rng(5)
SQUARE = _rng.standard_normal((3, 3)) + 3 * np.eye(3)
BATCH = _rng.standard_normal((2, 3, 3)) + 3 * np.eye(3)
RHS = _rng.standard_normal((3, 2))
VEC = _rng.standard_normal(3)
THREES = _rng.standard_normal((4, 3))
SINGULAR = np.array([[1.0, 2.0], [2.0, 4.0]])
WHOLE = np.array([[2.0, 0, 1, 3], [1, 1, 0, 2], [0, 3, 1, 1], [4, 1, 2, 0]])  # det -36: exact in any order

# name: (function of the library and its inputs, the inputs (arrays), what is PyTorch's bit for bit)
BITS = ("values", "grads", "second")
CASES = {
    "linalg.det": (lambda m, a: m.linalg.det(a), [SQUARE], ()),
    "torch.det of a batch": (lambda m, a: m.det(a), [BATCH], ()),
    "x.det of a transposed": (lambda m, a: a.mT.det(), [BATCH], ()),
    "det of integers": (lambda m, a: m.linalg.det(a), [WHOLE], ("values",)),
    "det float32": (lambda m, a: m.linalg.det(a.float()), [SQUARE], ()),
    "det of a singular matrix": (lambda m, a: m.linalg.det(a), [SINGULAR], ()),
    "det float32 singular": (lambda m, a: m.linalg.det(a.float()), [SINGULAR], ()),
    "det of a batch, one singular": (lambda m, a: m.linalg.det(a), [np.stack([SINGULAR, SINGULAR + 1])], ()),
    "det 1x1": (lambda m, a: m.linalg.det(a[:1, :1]), [SQUARE], BITS),
    "det of 1x1 matrices": (lambda m, a: m.linalg.det(a[:, :1, :1] * 2), [BATCH], BITS),
    "linalg.slogdet": (lambda m, a: m.linalg.slogdet(a), [SQUARE], ()),
    "torch.slogdet of a batch": (lambda m, a: m.slogdet(-a), [BATCH], ()),
    "x.slogdet logabsdet": (lambda m, a: a.float().slogdet().logabsdet, [SQUARE], ()),
    "slogdet sign alone": (lambda m, a: m.linalg.slogdet(a).sign, [SQUARE], BITS),
    "linalg.inv": (lambda m, a: m.linalg.inv(a), [SQUARE], ()),
    "torch.inverse of a batch": (lambda m, a: m.inverse(a), [BATCH], ()),
    "x.inverse float32 transposed": (lambda m, a: a.float().t().inverse(), [SQUARE], ()),
    "solve a vector": (lambda m, a, b: m.linalg.solve(a, b), [SQUARE, VEC], ()),
    "solve a matrix": (lambda m, a, b: m.linalg.solve(a, b), [SQUARE, RHS], ()),
    "solve broadcast": (lambda m, a, b: m.linalg.solve(a, b), [BATCH, RHS], ()),
    "solve vectors of a batch": (lambda m, a, b: m.linalg.solve(a, b), [BATCH, BATCH[:, 0]], ()),
    "solve a vector for a batch": (lambda m, a, b: m.linalg.solve(a, b), [BATCH, VEC], ()),
    "solve left=False": (lambda m, a, b: m.linalg.solve(a, b, left=False), [BATCH, THREES], ()),
    "solve float32": (lambda m, a, b: m.linalg.solve(a.float(), b.float()), [SQUARE, RHS], ()),
    "linalg.cross": (lambda m, a, b: m.linalg.cross(a, b), [THREES, THREES[::-1].copy()], BITS),
    "linalg.cross float32 broadcast": (lambda m, a, b: m.linalg.cross(a.float(), b[:1].float()),
                                       [THREES, THREES], BITS),
    "torch.cross dim 0": (lambda m, a, b: m.cross(a.t(), b.t(), dim=0), [THREES, THREES ** 2], BITS),
    "x.cross of ints": (lambda m, a: m.tensor([[1, 2, 3]]).cross(m.tensor([[4, 5, 6]]), dim=1), [VEC], BITS),
    "inner": (lambda m, a, b: m.inner(a, b), [BATCH, RHS.T.copy()], ()),
    "inner of vectors": (lambda m, a, b: a.inner(b), [VEC, VEC * 2], ()),
    "inner of a number": (lambda m, a, b: m.inner(a.sum(), b), [VEC, RHS], BITS),
    "tensordot": (lambda m, a, b: m.tensordot(a, b, 1), [BATCH, RHS], ()),
    "tensordot lists": (lambda m, a, b: m.tensordot(a, b, ([1, 0], [0, 1])), [BATCH, RHS], ()),
    "tensordot of everything": (lambda m, a, b: m.tensordot(a, b), [SQUARE, SQUARE.T.copy()], ()),
    "tensordot of everything, transposed": (lambda m, a, b: m.tensordot(a.t(), b, 2), [SQUARE, SQUARE],
                                            ()),
    "tensordot of a size-1 dim": (lambda m, a, b: m.tensordot(a[:, :1], b, ([1], [0])),
                                  [SQUARE, THREES[:1]], ()),
    "tensordot dims a tensor": (lambda m, a, b: m.tensordot(a, b, m.tensor([[1], [0]])), [SQUARE, RHS], ()),
}


def _nodes(fn):
    """The names of the nodes reachable from ``fn``, depth first (each once)."""
    names, seen, stack = [], set(), [fn]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        names.append(type(node).__name__)
        stack.extend(n for n, _ in reversed(node.next_functions))
    return names


def _observed(m, case, create_graph):
    """What a learner sees of a case: each result's layout and node chain, its values, the gradients
    (with their nodes under ``create_graph``) and the second derivatives, as arrays (or the error)."""
    fn, arrays, _ = CASES[case]
    xs = [m.tensor(a, requires_grad=True) for a in arrays]
    out = fn(m, *xs)
    outs = out if isinstance(out, tuple) else (out,)
    seen = {"type": type(out).__name__ if isinstance(out, tuple) else "", "layout": [], "values": []}
    # the rounding allowed: of the dtype the results are computed in (float32 ones come back as float64)
    seen["eps"] = max(np.finfo(o.detach().numpy().dtype).eps if o.is_floating_point() else 0 for o in outs)
    for o in outs:
        seen["layout"].append((tuple(o.shape), str(o.dtype), o.stride(), _nodes(o.grad_fn)))
        seen["values"].append(o.detach().numpy())
    used = [o for o in outs if o.requires_grad]
    if not used:
        return seen
    total = sum((o * (i + 1.5)).sum() for i, o in enumerate(used))
    grads = m.autograd.grad(total, xs, allow_unused=True, create_graph=create_graph)
    seen["grads"] = [None if g is None else g.detach().numpy() for g in grads]
    seen["grad layout"] = [None if g is None else (g.stride(), _nodes(g.grad_fn)) for g in grads]
    again = [g for g in grads if g is not None and g.requires_grad]
    if again:
        second = m.autograd.grad(sum((g * g).sum() for g in again), xs, allow_unused=True)
        seen["second"] = [None if h is None else h.numpy() for h in second]
    return seen


def _same(a, b, exact, eps):
    if a is None or b is None:
        return a is None and b is None
    if exact:  # bit for bit: the values and the signs of zeros
        return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
    scale = np.max(np.abs(b), initial=0) * eps * ROUNDING
    return a.dtype == b.dtype and a.shape == b.shape and np.allclose(a, b, rtol=0, atol=scale, equal_nan=True)


@pytest.mark.parametrize("create_graph", [False, True], ids=["backward", "create_graph"])
@pytest.mark.parametrize("case", CASES)
def test_solvers_and_products_are_pytorchs(case, create_graph):
    if torch is None:
        pytest.skip("PyTorch is not installed")
    ours, theirs = _observed(al, case, create_graph), _observed(torch, case, create_graph)
    bits = CASES[case][2]
    assert ours["type"] == theirs["type"]
    assert ours["layout"] == theirs["layout"]
    assert ours.keys() == theirs.keys()
    for key in ("values", "grads", "second"):
        for mine, pytorchs in zip(ours.get(key, ()), theirs.get(key, ())):
            assert _same(mine, pytorchs, key in bits, theirs["eps"]), key
    for mine, pytorchs in zip(ours.get("grad layout", ()), theirs.get("grad layout", ())):
        if mine is None or pytorchs is None or not create_graph:
            assert mine == pytorchs
        else:  # (the nodes of a gradient where autograd_lab composes it otherwise: see GRAPH_DIFFERS)
            assert mine[0] == pytorchs[0]
            assert mine[1] == pytorchs[1] or case in GRAPH_DIFFERS


# under create_graph: det's gradient of a batch takes its diagonal matrices from a where (autograd_lab's
# DiagEmbed takes one vector), and at a singular matrix the cofactors from dets of minors (PyTorch: an SVD)
GRAPH_DIFFERS = {"torch.det of a batch", "x.det of a transposed", "det of a singular matrix",
                 "det float32 singular", "det of a batch, one singular", "torch.slogdet of a batch"}


def test_the_gradient_of_det_at_a_singular_matrix_is_pytorchs():
    """PyTorch's backward solves with U's 0 pivot taken as eps: the gradient is det * (...) = 0 (the signs
    of its zeros too); under create_graph it is the cofactor matrix, singular or not."""
    if torch is None:
        pytest.skip("PyTorch is not installed")
    for m in (al, torch):
        a = m.tensor(SINGULAR, dtype=m.float32, requires_grad=True)
        m.linalg.det(a).backward()
        assert a.grad.numpy().tobytes() == np.array([[0.0, -0.0], [-0.0, 0.0]], np.float32).tobytes()
        (g,) = m.autograd.grad(m.linalg.det(a), a, create_graph=True)  # (PyTorch's from an SVD: rounded)
        np.testing.assert_allclose(g.detach().numpy(), [[4.0, -2.0], [-2.0, 1.0]], rtol=1e-6)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 8, 16])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_det_and_its_lu_factors_are_pytorchs_bit_for_bit(n, dtype):
    """The factorization replays MKL's getrf as PyTorch runs it here (its rounding of the multipliers), so
    det, as sign(P) times the product of U's diagonal, is PyTorch's to the bit (measured up to 16 x 16)."""
    if torch is None:
        pytest.skip("PyTorch is not installed")
    a = np.random.default_rng(n).standard_normal((50, n, n)).astype(dtype)
    ours, theirs = al.linalg.det(al.tensor(a, requires_grad=True)), torch.linalg.det(
        torch.tensor(a, requires_grad=True))
    assert ours.detach().numpy().tobytes() == theirs.detach().numpy().tobytes()
    for name in ("_saved_LU", "_saved_pivots"):
        mine, pytorchs = getattr(ours.grad_fn, name), getattr(theirs.grad_fn, name)
        assert mine.numpy().tobytes() == pytorchs.numpy().tobytes()


def _slogdet_of_a_singular_matrix(m):
    """sign -0, logabsdet -inf; backward: +-inf (the solve with U's 0 pivot, as it is); under
    create_graph: the solve of A^T raises."""
    a = m.tensor(SINGULAR, requires_grad=True)
    sign, logabsdet = m.linalg.slogdet(a)
    logabsdet.backward(retain_graph=True)
    try:
        m.autograd.grad(logabsdet, a, create_graph=True)
    except RuntimeError as e:
        error = f"{type(e).__name__}: {e}"
    return sign.detach().numpy().tobytes(), logabsdet.item(), a.grad.tolist(), error


def test_slogdet_of_a_singular_matrix_is_pytorchs():
    if torch is None:
        pytest.skip("PyTorch is not installed")
    assert _slogdet_of_a_singular_matrix(al) == _slogdet_of_a_singular_matrix(torch)


def _saved(m, fn):
    a = m.tensor(SQUARE, requires_grad=True)
    out = fn(m, a)
    node = (out[1] if isinstance(out, tuple) else out).grad_fn
    shown = {}
    for name in sorted(n for n in dir(node) if n.startswith("_saved_")):
        value = getattr(node, name)
        shown[name] = (tuple(value.shape), str(value.dtype), value.stride()) if isinstance(value, m.Tensor) \
            else value
    return type(node).__name__, shown


@pytest.mark.parametrize("op", ["det", "det of a transposed", "slogdet", "inv", "solve", "cross"])
def test_the_nodes_save_what_pytorchs_save(op):
    if torch is None:
        pytest.skip("PyTorch is not installed")
    fn = {"det": lambda m, a: m.linalg.det(a), "det of a transposed": lambda m, a: m.linalg.det(a.t()),
          "slogdet": lambda m, a: m.linalg.slogdet(a), "inv": lambda m, a: m.linalg.inv(a),
          "solve": lambda m, a: m.linalg.solve(a, a[:, :2], left=True),
          "cross": lambda m, a: m.linalg.cross(a, a * 2, dim=0)}[op]
    assert _saved(al, fn) == _saved(torch, fn)


ERRORS = {
    "det of ints": lambda m: m.linalg.det(m.ones(2, 2, dtype=m.int64)),
    "det of a vector of ints": lambda m: m.det(m.ones(3, dtype=m.int64)),
    "det not square": lambda m: m.linalg.det(m.ones(2, 3)),
    "det float16": lambda m: m.linalg.det(m.ones(2, 2, dtype=m.float16)),
    "slogdet float16": lambda m: m.linalg.slogdet(m.ones(2, 2, dtype=m.float16)),
    "inv of a singular matrix": lambda m: m.linalg.inv(m.tensor(SINGULAR)),
    "inverse of a batch with a singular matrix": lambda m: m.stack([m.eye(2), m.tensor(SINGULAR)]).inverse(),
    "inv of zeros": lambda m: m.linalg.inv(m.zeros(3, 3)),
    "inv float16": lambda m: m.linalg.inv(m.ones(2, 2, dtype=m.float16)),
    "inv of ints not square": lambda m: m.linalg.inv(m.ones(2, 3, dtype=m.int64)),
    "solve singular": lambda m: m.linalg.solve(m.tensor(SINGULAR), m.ones(2, dtype=m.float64)),
    "solve singular batch": lambda m: m.linalg.solve(m.stack([m.eye(2), m.tensor(SINGULAR)]).float(),
                                                     m.ones(2)),
    "solve of ints": lambda m: m.linalg.solve(m.eye(2, dtype=m.int64), m.ones(2)),
    "solve mixed dtypes": lambda m: m.linalg.solve(m.ones(2), m.ones(2, dtype=m.float64)),
    "solve B a number": lambda m: m.linalg.solve(m.eye(2), m.tensor(1.0)),
    "solve wrong size": lambda m: m.linalg.solve(m.eye(2), m.ones(3)),
    "solve wrong size left=False": lambda m: m.linalg.solve(m.eye(2), m.ones(2, 3), left=False),
    "solve vectors left=False": lambda m: m.linalg.solve(m.eye(1), m.ones(1), left=False),
    "solve batches that do not broadcast": lambda m: m.linalg.solve(m.ones(3, 2, 2), m.ones(4, 2, 1)),
    "solve float16": lambda m: m.linalg.solve(m.eye(2, dtype=m.float16), m.ones(2, dtype=m.float16)),
    "cross of 4-vectors": lambda m: m.cross(m.ones(4, 4), m.ones(4, 4), dim=1),
    "linalg.cross along a dim of 4": lambda m: m.linalg.cross(m.ones(3, 4), m.ones(3, 4)),
    "cross no dim of size 3": lambda m: m.cross(m.ones(5), m.ones(5)),
    "cross of other ranks": lambda m: m.linalg.cross(m.ones(4, 3), m.ones(3)),
    "cross dim out of range": lambda m: m.linalg.cross(m.ones(4, 3), m.ones(4, 3), dim=2),
    "cross of numbers": lambda m: m.linalg.cross(m.tensor(1.0), m.tensor(2.0)),
    "cross not broadcasting": lambda m: m.cross(m.ones(4, 3), m.ones(5, 3), dim=1),
    "cross of bools": lambda m: m.cross(m.ones(3, dtype=m.bool), m.ones(3, dtype=m.bool), dim=0),
    "cross mixed dtypes": lambda m: m.cross(m.tensor([1, 2, 3]), m.tensor([4.0, 5, 6]), dim=0),
    "inner last dims differ": lambda m: m.inner(m.ones(4, 3), m.ones(4)),
    "inner mixed dtypes": lambda m: m.inner(m.tensor([1, 2]), m.tensor([3.0, 4])),
    "inner of bools": lambda m: m.inner(m.ones(2, dtype=m.bool), m.ones(2, dtype=m.bool)),
    "tensordot negative dims": lambda m: m.tensordot(m.ones(3, 4), m.ones(3, 4), -1),
    "tensordot a negative 0-d tensor": lambda m: m.tensordot(m.ones(3, 4), m.ones(4, 3), m.tensor(-1)),
    "tensordot too many dims": lambda m: m.tensordot(m.ones(3, 4), m.ones(3, 4), 3),
    "tensordot sizes differ": lambda m: m.tensordot(m.ones(3, 4), m.ones(5, 4), ([0], [0])),
    "tensordot lists of other lengths": lambda m: m.tensordot(m.ones(3, 4), m.ones(3, 4), ([0, 1], [0])),
    "tensordot a dim twice": lambda m: m.tensordot(m.ones(3, 3), m.ones(3, 3), ([-1, 1], [0, 1])),
    "tensordot dims a float": lambda m: m.tensordot(m.ones(3, 4), m.ones(4, 3), 1.0),
    "tensordot dims an int pair": lambda m: m.tensordot(m.ones(3, 4), m.ones(4, 3), ([1], 0)),
    "tensordot dims a float in a list": lambda m: m.tensordot(m.ones(3, 4), m.ones(4, 3), ([1.0], [0])),
    "tensordot mixed dtypes": lambda m: m.tensordot(m.ones(3, 4), m.ones(4, 3, dtype=m.float64), 1),
}


def _error(m, case):
    try:
        with warnings.catch_warnings():  # (torch.cross's warning about its dim)
            warnings.simplefilter("ignore")
            ERRORS[case](m)
    except (RuntimeError, TypeError, IndexError, NotImplementedError) as e:
        return f"{type(e).__name__}: {e}"
    return "no error"


@pytest.mark.parametrize("case", ERRORS)
def test_errors_are_pytorchs(case):
    if torch is None:
        pytest.skip("PyTorch is not installed")
    assert _error(al, case) == _error(torch, case) != "no error"


EMPTY = {
    "det of no matrices": lambda m: m.linalg.det(m.ones(0, 2, 2)),
    "det of 0x0 matrices": lambda m: m.linalg.det(m.ones(3, 0, 0)),
    "slogdet of a 0x0 matrix": lambda m: m.linalg.slogdet(m.ones(0, 0)).logabsdet,
    "inv of no matrices": lambda m: m.linalg.inv(m.ones(0, 3, 3)),
    "solve of no vectors": lambda m: m.linalg.solve(m.ones(0, 2, 2), m.ones(0, 2)),
    "solve of no columns": lambda m: m.linalg.solve(m.eye(2), m.ones(2, 0)),
    "cross of none": lambda m: m.cross(m.ones(0, 3), m.ones(0, 3), dim=1),
}


@pytest.mark.parametrize("case", EMPTY)
def test_empty_results_are_pytorchs(case):
    if torch is None:
        pytest.skip("PyTorch is not installed")
    ours, theirs = EMPTY[case](al), EMPTY[case](torch)
    assert (tuple(ours.shape), ours.stride(), ours.tolist()) == (tuple(theirs.shape), theirs.stride(),
                                                                  theirs.tolist())


# ------------------------------------------------------------------ without PyTorch
def test_values_by_hand():
    a = al.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert al.linalg.det(a).item() == -2.0  # (np.linalg.det gives -2.0000000000000004: exp of a log)
    assert al.linalg.slogdet(a).sign.item() == -1.0
    assert al.linalg.slogdet(a).logabsdet.item() == pytest.approx(np.log(2.0))
    np.testing.assert_allclose(al.linalg.inv(al.tensor([[4.0, 7.0], [2.0, 6.0]])).numpy(),
                               [[0.6, -0.7], [-0.2, 0.4]], rtol=1e-6)
    x = al.linalg.solve(a, al.tensor([5.0, 11.0]))  # x + 2y = 5, 3x + 4y = 11
    assert x.tolist() == pytest.approx([1.0, 2.0])
    assert al.linalg.solve(a, al.tensor([[5.0, 11.0]]), left=False)[0].tolist() == pytest.approx([6.5, -0.5])
    e = al.eye(3)
    assert al.linalg.cross(e[0], e[1]).tolist() == [0.0, 0.0, 1.0]
    assert al.inner(al.tensor([1.0, 2.0]), al.tensor([3.0, 4.0])).item() == 11.0
    assert al.tensordot(al.ones(2, 3), al.ones(3, 4), 1).tolist() == [[3.0] * 4] * 2
    with pytest.raises(al.linalg.LinAlgError, match="^linalg.inv: The diagonal element 2 is zero"):
        al.linalg.inv(al.tensor(SINGULAR))
    assert issubclass(al.linalg.LinAlgError, RuntimeError)
    with pytest.raises(AttributeError, match="torch.linalg.svd is not implemented"):
        al.linalg.svd  # noqa: B018


def test_the_lu_factors_rebuild_the_matrix():
    """P L U = A, with the pivots LAPACK's way (row k swapped with row pivots[k] - 1)."""
    a = _rng.standard_normal((4, 5, 5))
    lu, pivots, info = ops_linalg._lu_factor(a)
    lower = np.tril(lu, -1) + np.eye(5)
    upper = np.triu(lu)
    rebuilt = lower @ upper
    for b in range(4):
        for k in reversed(range(5)):  # undo the swaps, last first
            p = pivots[b, k] - 1
            rebuilt[b, [k, p]] = rebuilt[b, [p, k]]
    np.testing.assert_allclose(rebuilt, a, atol=1e-12)
    assert (info == 0).all() and ops_linalg._lu_factor(np.zeros((3, 3)))[2] == 1


GRADCHECKS = {
    "det": (lambda a: al.linalg.det(a), [BATCH]),
    "det 1x1": (lambda a: al.linalg.det(a[:1, :1]), [SQUARE]),
    "slogdet": (lambda a: al.linalg.slogdet(a).logabsdet, [BATCH]),
    "inv": (lambda a: al.linalg.inv(a), [BATCH]),
    "solve vectors": (lambda a, b: al.linalg.solve(a, b), [BATCH, VEC]),
    "solve broadcast": (lambda a, b: al.linalg.solve(a, b), [BATCH, RHS]),
    "solve left=False": (lambda a, b: al.linalg.solve(a, b, left=False), [BATCH, THREES]),
    "cross": (lambda a, b: al.linalg.cross(a, b), [THREES, THREES[:1] * 2]),
    "inner": (lambda a, b: al.inner(a, b), [BATCH, RHS.T.copy()]),
    "tensordot": (lambda a, b: al.tensordot(a, b, ([1, 0], [0, 1])), [BATCH, RHS]),
}


@pytest.mark.parametrize("case", GRADCHECKS)
def test_gradients_and_second_derivatives_are_finite_differences(case):
    fn, arrays = GRADCHECKS[case]
    inputs = [al.tensor(a, dtype=al.float64, requires_grad=True) for a in arrays]
    assert gradcheck(fn, inputs) and gradgradcheck(fn, inputs)


@pytest.mark.parametrize("matrix", [SINGULAR, [[1.0, 2, 3], [2, 4, 6], [1, 0, 1]], np.zeros((3, 3))],
                         ids=["2x2", "3x3 of rank 2", "zeros"])
def test_det_at_a_singular_matrix(matrix):
    """Without create_graph, PyTorch's gradient there is 0 (so gradcheck fails, as PyTorch's); under it,
    the cofactor matrix, whose own derivative (det's second) is the finite differences'."""
    a = al.tensor(matrix, dtype=al.float64, requires_grad=True)
    al.linalg.det(a).backward()
    assert not a.grad.numpy().any()
    (g,) = al.autograd.grad(al.linalg.det(a), a, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), ops_linalg._cofactors(np.array(matrix)), atol=1e-12)
    assert gradgradcheck(al.linalg.det, [a])


def test_cross_without_dim_warns_once():
    ops_linalg._CROSS_DIM_WARNED[0] = False
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        al.cross(al.ones(2, 3), al.ones(2, 3))
        al.cross(al.ones(2, 3), al.ones(2, 3))
    assert [str(w.message).splitlines()[0] for w in caught] == [
        "Using torch.cross without specifying the dim arg is deprecated."]
    assert caught[0].category is UserWarning
