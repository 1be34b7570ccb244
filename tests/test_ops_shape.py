"""Shape, indexing and linear-algebra ops: gather/scatter/index_*/take/masked_select/nonzero,
flip/roll/repeat/tile/unbind/movedim/swapaxes/unflatten/broadcast_to/hstack/vstack/diag/diagonal/
trace/tril/triu/meshgrid/new_*, outer/addmm/addmv/baddbmm/kron/einsum.

Each op: gradcheck and gradgradcheck in float64; against PyTorch (where installed): values, gradients,
the grad_fn names of the whole graph, which results are views of their input, error texts; in-place
variants: version counters, gradients through them, nothing changed when they fail.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

import autograd_lab as al
from autograd_lab.autograd import gradcheck, gradgradcheck

try:
    import torch
except ImportError:  # the oracle is optional
    torch = None

needs_torch = [pytest.mark.torch, pytest.mark.skipif(torch is None, reason="PyTorch is not installed")]


def I(lib, data):  # noqa: E743, N802 - an int64 index tensor
    return lib.tensor(data, dtype=lib.int64)


def M(lib, data):  # noqa: N802 - a bool mask
    return lib.tensor(data, dtype=lib.bool)


def arr(shape, seed=0):
    return np.random.default_rng(seed).uniform(-2, 2, shape)


# ---------------------------------------------------------------------------- the table of cases
# name: (input shapes (float64 leaves that require grad), fn(lib, *inputs)), einsum-like cases whose graph
# PyTorch records differently are listed in OWN_GRAPH.
CASES: dict[str, tuple[list[tuple], Callable]] = {
    "gather0": ([(3, 4)], lambda L, x: L.gather(x, 0, I(L, [[0, 1, 2, 0], [2, 2, 0, 1]]))),
    "gather_neg_dim_small_index": ([(3, 4)], lambda L, x: x.gather(-1, I(L, [[3, 3], [0, 1]]))),
    "gather_bigger_along_dim": ([(3, 4)], lambda L, x: L.gather(x, 1, I(L, [[0] * 6] * 3))),
    "gather_3d": ([(2, 3, 4)], lambda L, x: L.gather(x, 1, I(L, [[[0, 2, 1, 1]], [[1, 1, 2, 0]]]))),
    "gather_0d": ([()], lambda L, x: L.gather(x, 0, I(L, 0))),
    "gather_empty": ([(3, 4)], lambda L, x: L.gather(x, 0, L.zeros(0, 4, dtype=L.int64))),
    "scatter_src": ([(3, 4), (2, 4)], lambda L, x, s: L.scatter(x, 0, I(L, [[0, 1, 2, 0], [1, 2, 0, 2]]), s)),
    "scatter_src_small_index": ([(3, 4), (2, 4)],
                                lambda L, x, s: x.scatter(-1, I(L, [[3, 1], [0, 2]]), s[:, 1:3])),
    "scatter_value": ([(3, 4)], lambda L, x: L.scatter(x, 1, I(L, [[0, 1], [2, 3], [1, 0]]), 1.5)),
    "scatter_0d": ([(), ()], lambda L, x, s: L.scatter(x, 0, I(L, 0), s)),
    "scatter_add_repeated": ([(3, 4), (3, 4)], lambda L, x, s: L.scatter_add(
        x, 0, I(L, [[0, 0, 0, 1], [0, 0, 2, 1], [2, 2, 2, 2]]), s)),
    "scatter_add_small": ([(3, 4), (2, 5)],
                          lambda L, x, s: x.scatter_add(1, I(L, [[0, 0], [3, 3]]), s[:, :2])),
    "index_select": ([(3, 4)], lambda L, x: L.index_select(x, 1, I(L, [0, 2, 2, 3]))),
    "index_select_neg_dim": ([(3, 4)], lambda L, x: x.index_select(-2, I(L, [2, 0]))),
    "index_select_0d_index": ([(3, 4)], lambda L, x: L.index_select(x, 0, I(L, 1))),
    "index_select_0d": ([()], lambda L, x: L.index_select(x, 0, I(L, [0]))),
    "index_select_empty": ([(3, 4)], lambda L, x: L.index_select(x, 0, L.zeros(0, dtype=L.int64))),
    "index_add_repeated": ([(3, 4), (3, 3)], lambda L, x, s: L.index_add(x, 1, I(L, [0, 2, 2]), s)),
    "index_add_alpha": ([(3, 4), (2, 4)], lambda L, x, s: x.index_add(-2, I(L, [2, 2]), s, alpha=2.5)),
    "index_copy": ([(3, 4), (3, 2)], lambda L, x, s: L.index_copy(x, 1, I(L, [3, 0]), s)),
    "masked_select": ([(3, 4)], lambda L, x: L.masked_select(
        x, M(L, [[1, 0, 1, 1], [0, 0, 0, 1], [1, 1, 1, 1]]))),
    "masked_select_bcast": ([(4,)], lambda L, x: x.masked_select(M(L, [[1, 0, 1, 1], [0, 1, 0, 1]]))),
    "masked_select_0d": ([()], lambda L, x: L.masked_select(x, M(L, True))),
    "take": ([(3, 4)], lambda L, x: L.take(x, I(L, [[0, 5, 5], [-1, 11, -12]]))),
    "take_0d": ([()], lambda L, x: x.take(I(L, 0))),
    "flip": ([(2, 3, 4)], lambda L, x: L.flip(x, (0, -1))),
    "flip_method": ([(2, 3)], lambda L, x: x.flip(1)),
    "flip_nodims": ([(2, 3)], lambda L, x: L.flip(x, [])),
    "roll": ([(3, 4)], lambda L, x: L.roll(x, (1, -2), (0, 1))),
    "roll_flat": ([(3, 4)], lambda L, x: L.roll(x, 5)),
    "roll_0d": ([()], lambda L, x: L.roll(x, 1)),
    "repeat": ([(2, 3)], lambda L, x: x.repeat(2, 1, 3)),
    "repeat_0d": ([()], lambda L, x: x.repeat(3, 2)),
    "repeat_zero": ([(2, 3)], lambda L, x: x.repeat(0, 2)),
    "tile": ([(2, 3)], lambda L, x: L.tile(x, (2,))),
    "tile_more": ([(3,)], lambda L, x: x.tile(2, 1, 2)),
    "unbind": ([(3, 4)], lambda L, x: L.stack(L.unbind(x * 1, 1)[::2], 0)),
    "unbind_method": ([(2, 3)], lambda L, x: x.unbind(-2)[1]),
    "movedim": ([(2, 3, 4)], lambda L, x: L.movedim(x, (0, -1), (2, 0))),
    "movedim_int": ([(2, 3, 4)], lambda L, x: x.movedim(0, 1)),
    "moveaxis": ([(2, 3, 4)], lambda L, x: L.moveaxis(x, 1, -1)),
    "swapaxes": ([(2, 3, 4)], lambda L, x: L.swapaxes(x, 0, -1)),
    "swapdims": ([(2, 3)], lambda L, x: x.swapdims(0, 1)),
    "unflatten": ([(3, 4)], lambda L, x: L.unflatten(x, 1, (2, -1))),
    "unflatten_noncontig": ([(4, 3)], lambda L, x: x.t().unflatten(-1, (1, 2, 2))),
    "broadcast_to": ([(3, 1)], lambda L, x: L.broadcast_to(x, (2, 3, 4))),
    "expand_as": ([(3, 1)], lambda L, x: x.expand_as(L.zeros(2, 3, 4))),
    "view_as": ([(3, 4)], lambda L, x: x.view_as(L.zeros(2, 6))),
    "reshape_as": ([(3, 4)], lambda L, x: x.t().reshape_as(L.zeros(12))),
    "type_as": ([(3, 4)], lambda L, x: x.type_as(L.zeros(1, dtype=L.float32))),
    "hstack": ([(3, 2), (3, 1)], lambda L, a, b: L.hstack([a, b])),
    "hstack_1d": ([(2,), (3,)], lambda L, a, b: L.hstack((a, b))),
    "hstack_0d": ([(), ()], lambda L, a, b: L.hstack([a, b])),
    "vstack": ([(2, 3), (1, 3)], lambda L, a, b: L.vstack([a, b])),
    "vstack_1d": ([(3,), (3,)], lambda L, a, b: L.vstack([a, b])),
    "vstack_0d": ([(), ()], lambda L, a, b: L.vstack([a, b])),
    "diag_vec": ([(3,)], lambda L, x: L.diag(x)),
    "diag_vec_offset": ([(3,)], lambda L, x: x.diag(-2)),
    "diag_mat": ([(3, 4)], lambda L, x: L.diag(x)),
    "diag_mat_offset": ([(3, 4)], lambda L, x: L.diag(x, 2)),
    "diag_mat_far": ([(3, 4)], lambda L, x: L.diag(x, 10)),
    "diagonal": ([(3, 4)], lambda L, x: L.diagonal(x)),
    "diagonal_3d": ([(2, 3, 4)], lambda L, x: x.diagonal(1, 2, 0)),
    "diagonal_neg": ([(3, 4)], lambda L, x: L.diagonal(x, -1, -1, -2)),
    "trace": ([(3, 4)], lambda L, x: L.trace(x)),
    "trace_square": ([(3, 3)], lambda L, x: x.trace()),
    "tril": ([(3, 4)], lambda L, x: L.tril(x)),
    "tril_batch": ([(2, 3, 3)], lambda L, x: x.tril(-1)),
    "triu": ([(3, 4)], lambda L, x: L.triu(x, 1)),
    "meshgrid_ij": ([(2,), (3,), ()], lambda L, a, b, c: L.stack(L.meshgrid(a, b, c, indexing="ij"))),
    "meshgrid_xy": ([(2,), (3,)], lambda L, a, b: L.meshgrid([a, b], indexing="xy")[0] * 2),
    "meshgrid_xy_second": ([(2,), (3,)], lambda L, a, b: L.meshgrid([a, b], indexing="xy")[1]),
    "outer": ([(3,), (4,)], lambda L, a, b: L.outer(a, b)),
    "outer_method": ([(3,), (2,)], lambda L, a, b: a.outer(b)),
    "addmm": ([(3, 4), (3, 5), (5, 4)], lambda L, m, a, b: L.addmm(m, a, b)),
    "addmm_bcast_scaled": ([(4,), (3, 5), (5, 4)], lambda L, m, a, b: L.addmm(m, a, b, beta=0.5, alpha=-2)),
    "addmm_method": ([(1, 1), (3, 2), (2, 4)], lambda L, m, a, b: m.addmm(a, b, alpha=3)),
    "addmv": ([(3,), (3, 4), (4,)], lambda L, m, a, v: L.addmv(m, a, v)),
    "addmv_scaled": ([(1,), (3, 4), (4,)], lambda L, m, a, v: m.addmv(a, v, beta=2, alpha=0.5)),
    "baddbmm": ([(2, 3, 4), (2, 3, 5), (2, 5, 4)], lambda L, m, a, b: L.baddbmm(m, a, b)),
    "baddbmm_bcast": ([(3, 1), (2, 3, 5), (2, 5, 4)], lambda L, m, a, b: m.baddbmm(a, b, beta=-1, alpha=2)),
    "kron": ([(2, 3), (4,)], lambda L, a, b: L.kron(a, b)),
    "kron_3d": ([(2,), (2, 1, 3)], lambda L, a, b: a.kron(b)),
    "einsum_mv": ([(3, 4), (4,)], lambda L, a, v: L.einsum("ij,j->i", a, v)),
    "einsum_mm_implicit": ([(2, 3), (4, 2)], lambda L, a, b: L.einsum("ba,Ab", a, b)),
    "einsum_diag": ([(3, 3)], lambda L, a: L.einsum("ii->i", a)),
    "einsum_trace": ([(3, 3)], lambda L, a: L.einsum("ii", a)),
    "einsum_diag_3": ([(2, 2, 3, 2)], lambda L, a: L.einsum("iiji->ij", a)),
    "einsum_sum_only": ([(2, 3), (3,)], lambda L, a, b: L.einsum("ij,k->i", a, b)),
    "einsum_ellipsis": ([(2, 3, 4)], lambda L, a: L.einsum("...ij->...ji", a)),
    "einsum_ellipsis_bcast": ([(2, 1, 4), (3, 4)], lambda L, a, b: L.einsum("...i,...i->...", a, b)),
    "einsum_ellipsis_summed": ([(5, 2, 3), (3, 4)], lambda L, a, b: L.einsum("...ij,jk->ik", a, b)),
    "einsum_letter_bcast": ([(2, 1), (3, 4)], lambda L, a, b: L.einsum("ij,jk->ik", a, b)),
    "einsum_three": ([(2, 3), (3, 4), (4, 2)], lambda L, a, b, c: L.einsum("ij,jk,kl->il", a, b, c)),
    "einsum_outer_list": ([(2,), (3,)], lambda L, a, b: L.einsum("i, j -> j i", [a, b])),
    "einsum_scalar": ([()], lambda L, a: L.einsum("", a)),
    "einsum_bilinear": ([(2, 3), (4, 3, 5), (2, 5)], lambda L, a, w, b: L.einsum("bn,anm,bm->ba", a, w, b)),
    "einsum_empty": ([(0, 3), (3,)], lambda L, a, b: L.einsum("ij,j->i", a, b)),
}
OWN_GRAPH = {name for name in CASES if name.startswith("einsum")}  # PyTorch: permute/bmm/... nodes
NOT_TWICE = {"type_as"}  # its output is float32: no float64 double-backward check
VIEWS = {"unbind_method", "movedim", "movedim_int", "moveaxis", "swapaxes", "swapdims", "unflatten",
         "unflatten_noncontig", "broadcast_to", "expand_as", "view_as", "diagonal", "diagonal_3d",
         "diagonal_neg"}


def make_inputs(lib, shapes):
    return [lib.tensor(arr(s, seed=i), dtype=lib.float64, requires_grad=True) for i, s in enumerate(shapes)]


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck(name):
    shapes, fn = CASES[name]
    inputs = make_inputs(al, shapes)
    if name in NOT_TWICE:  # a float32 result is too coarse for finite differences
        pytest.skip("a float32 result")
    assert gradcheck(lambda *xs: fn(al, *xs), inputs)
    assert gradgradcheck(lambda *xs: fn(al, *xs), inputs)


def graph_names(t):
    """The graph behind ``t``, breadth first: each node's name and its next functions' names."""
    out, queue, seen = [], [t.grad_fn], set()
    while queue:
        node = queue.pop(0)
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        nexts = [type(n).__name__ if n is not None else None for n, _ in node.next_functions]
        out.append((type(node).__name__, nexts))
        queue.extend(n for n, _ in node.next_functions)
    return out


def run(lib, name, seed=7):
    shapes, fn = CASES[name]
    inputs = make_inputs(lib, shapes)
    out = fn(lib, *inputs)
    return inputs, out


def np_of(t):
    return np.asarray(t.detach().numpy())


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
def test_against_torch(name):
    (ins_a, out_a), (ins_t, out_t) = run(al, name), run(torch, name)
    assert tuple(out_a.shape) == tuple(out_t.shape)
    assert str(out_a.dtype) == str(out_t.dtype)
    np.testing.assert_allclose(np_of(out_a), np_of(out_t), rtol=1e-10, atol=1e-12)
    if name in OWN_GRAPH:
        assert type(out_a.grad_fn).__name__ == "EinsumBackward0"
    else:
        assert graph_names(out_a) == graph_names(out_t)
    # views: the result shares memory with (is a view of) the input exactly when PyTorch's does
    if name not in OWN_GRAPH:  # PyTorch's einsum may end in a view of its last bmm; this one does not
        assert (out_a._base is not None) == (out_t._base is not None)
    if name in VIEWS:
        assert out_a._base is ins_a[0] and out_t._base is ins_t[0]
    g = np.random.default_rng(3).uniform(-1, 1, tuple(out_t.shape))
    out_a.backward(al.tensor(g, dtype=out_a.dtype))
    out_t.backward(torch.tensor(g, dtype=out_t.dtype))
    for a, t in zip(ins_a, ins_t):
        if t.grad is None:
            assert a.grad is None
        else:
            np.testing.assert_allclose(np_of(a.grad), np_of(t.grad), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", ["gather0", "scatter_src", "scatter_add_repeated", "index_select",
                                  "index_add_alpha", "index_copy", "masked_select", "take", "addmm",
                                  "addmv", "baddbmm", "flip", "roll", "repeat", "diag_mat", "trace",
                                  "tril", "outer", "einsum_diag", "einsum_bilinear"])
@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
def test_second_derivatives_against_torch(name):
    """d/dx of sum(dL/dx * w): the double backward graphs give PyTorch's values."""
    results = []
    for lib in (al, torch):
        inputs, out = run(lib, name)
        w = lib.tensor(arr(tuple(out.shape), seed=11), dtype=out.dtype)
        grads = lib.autograd.grad((out * w).sum(), inputs, create_graph=True, allow_unused=True)
        total = sum((g * g).sum() for g in grads if g is not None and g.requires_grad)
        if not isinstance(total, int):
            total.backward()
        results.append([None if x.grad is None else np_of(x.grad) for x in inputs])
    for a, t in zip(*results):
        assert (a is None) == (t is None)
        if a is not None:
            np.testing.assert_allclose(a, t, rtol=1e-9, atol=1e-12)


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
@pytest.mark.parametrize("op, names", [
    ("gather", ("self", "index")), ("take", ("self", "index")), ("masked_select", ("self", "mask")),
    ("index_select", ("index",)), ("addmm", ("mat1", "mat2")), ("addmv", ("mat", "vec")),
    ("baddbmm", ("batch1", "batch2")), ("index_add", ("index", "source")), ("scatter_add", ("index",)),
])
def test_saved_tensors_have_torchs_names(op, names):
    def build(L):
        x = L.tensor(arr((3, 4)), dtype=L.float32, requires_grad=True)
        idx = I(L, [[0, 1, 2, 0]])
        return {
            "gather": lambda: L.gather(x, 0, idx),
            "take": lambda: L.take(x, I(L, [1, 2])),
            "masked_select": lambda: L.masked_select(x, x > 0),
            "index_select": lambda: L.index_select(x, 0, I(L, [1])),
            "addmm": lambda: L.addmm(x, L.ones(3, 2, requires_grad=True), L.ones(2, 4, requires_grad=True)),
            "addmv": lambda: L.addmv(x[0, :3], x, L.ones(4, requires_grad=True)),
            "baddbmm": lambda: L.baddbmm(x, L.ones(1, 3, 2, requires_grad=True), L.ones(1, 2, 4,
                                                                                       requires_grad=True)),
            "index_add": lambda: L.index_add(x, 0, I(L, [1]), L.ones(1, 4, requires_grad=True)),
            "scatter_add": lambda: L.scatter_add(x, 0, idx, L.ones(1, 4, requires_grad=True)),
        }[op]()

    ours, theirs = build(al), build(torch)
    for n in names:
        a, t = getattr(ours.grad_fn, f"_saved_{n}"), getattr(theirs.grad_fn, f"_saved_{n}")
        np.testing.assert_allclose(np_of(a), np_of(t))
        assert str(a.dtype) == str(t.dtype)


# ---------------------------------------------------------------------------- errors
def _gather_oob(L):
    return L.gather(L.ones(3, 4), 0, I(L, [[5]]))


ERRORS: dict[str, Callable] = {
    "gather_oob": _gather_oob,
    "gather_neg": lambda L: L.gather(L.ones(3, 4), 0, I(L, [[-1]])),
    "gather_float_index": lambda L: L.gather(L.ones(3, 4), 0, L.tensor([[0.0]])),
    "gather_ndim": lambda L: L.gather(L.ones(3, 4), 0, I(L, [0])),
    "gather_size": lambda L: L.gather(L.ones(3, 4), 0, L.zeros(2, 5, dtype=L.int64)),
    "gather_dim": lambda L: L.gather(L.ones(3, 4), 2, L.zeros(1, 1, dtype=L.int64)),
    "scatter_oob": lambda L: L.scatter(L.ones(3, 4), 0, I(L, [[5]]), L.ones(1, 1)),
    "scatter_float_index": lambda L: L.scatter(L.ones(3, 4), 0, L.tensor([[0.0]]), 1.0),
    "scatter_dtype": lambda L: L.scatter(L.ones(3, 4), 0, I(L, [[0]]), L.ones(1, 1, dtype=L.float64)),
    "scatter_ndim": lambda L: L.scatter(L.ones(3, 4), 0, I(L, [0]), L.ones(1, 1)),
    "scatter_src_0d": lambda L: L.scatter(L.ones(3, 4), 0, L.zeros(2, 2, dtype=L.int64), L.tensor(1.0)),
    "scatter_size": lambda L: L.scatter(L.ones(3, 4), 0, L.zeros(2, 2, dtype=L.int64), L.ones(1, 5)),
    "scatter_add_oob": lambda L: L.scatter_add(L.ones(3, 4), 1, I(L, [[4]]), L.ones(1, 1)),
    "scatter_add_size": lambda L: L.scatter_add(L.ones(3, 4), 0, L.zeros(2, 5, dtype=L.int64), L.ones(2, 5)),
    "index_select_oob": lambda L: L.index_select(L.ones(3, 4), 0, I(L, [3])),
    "index_select_neg": lambda L: L.index_select(L.ones(3, 4), 0, I(L, [-1])),
    "index_select_float": lambda L: L.index_select(L.ones(3, 4), 0, L.tensor([0.0])),
    "index_select_2d": lambda L: L.index_select(L.ones(3, 4), 0, I(L, [[0]])),
    "index_select_dim": lambda L: L.index_select(L.ones(3, 4), 2, I(L, [0])),
    "index_select_scalar": lambda L: L.index_select(L.tensor(2.0), 0, I(L, [0, 0])),
    "index_add_oob": lambda L: L.index_add(L.ones(3, 4), 0, I(L, [5]), L.ones(1, 4)),
    "index_add_float": lambda L: L.index_add(L.ones(3, 4), 0, L.tensor([0.0]), L.ones(1, 4)),
    "index_add_shape": lambda L: L.index_add(L.ones(3, 4), 0, I(L, [0]), L.ones(1, 3)),
    "index_add_count": lambda L: L.index_add(L.ones(3, 4), 0, I(L, [0, 1]), L.ones(1, 4)),
    "index_add_dtype": lambda L: L.index_add(L.ones(3, 4), 0, I(L, [0]), L.ones(1, 4, dtype=L.float64)),
    "index_add_2d": lambda L: L.index_add(L.ones(3, 4), 0, I(L, [[0]]), L.ones(1, 4)),
    "index_copy_oob": lambda L: L.index_copy(L.ones(3, 4), 0, I(L, [5]), L.ones(1, 4)),
    "index_copy_int32": lambda L: L.index_copy(L.ones(3, 4), 0, L.tensor([0], dtype=L.int32), L.ones(1, 4)),
    "index_copy_slices": lambda L: L.index_copy(L.ones(2, 3, 4), 1, I(L, [0]), L.ones(2, 1, 5)),
    "index_copy_count": lambda L: L.index_copy(L.ones(3, 4), 0, I(L, [0, 1]), L.ones(1, 4)),
    "masked_select_nonbool": lambda L: L.masked_select(L.ones(3, 4), L.ones(3, 4, dtype=L.int64)),
    "masked_select_shape": lambda L: L.masked_select(L.ones(3, 4), L.ones(3, dtype=L.bool)),
    "take_oob": lambda L: L.take(L.ones(3, 4), I(L, [12])),
    "take_neg_oob": lambda L: L.take(L.ones(3, 4), I(L, [-13])),
    "take_int32": lambda L: L.take(L.ones(3, 4), L.tensor([1], dtype=L.int32)),
    "take_empty": lambda L: L.take(L.ones(0), I(L, [0])),
    "flip_dup": lambda L: L.flip(L.ones(3, 4), [0, -2]),
    "flip_dim": lambda L: L.flip(L.ones(3, 4), [2]),
    "roll_align": lambda L: L.roll(L.ones(3, 4), [1, 2], [0]),
    "roll_nodims": lambda L: L.roll(L.ones(3, 4), [1, 2]),
    "repeat_few": lambda L: L.ones(3, 4).repeat(2),
    "repeat_neg": lambda L: L.ones(3, 4).repeat(2, -1),
    "unbind_0d": lambda L: L.unbind(L.tensor(1.0)),
    "unbind_dim": lambda L: L.unbind(L.ones(3, 4), 2),
    "movedim_len": lambda L: L.movedim(L.ones(3, 4), (0, 1), (0,)),
    "movedim_repeated": lambda L: L.movedim(L.ones(3, 4), (0, -2), (0, 1)),
    "movedim_repeated_dst": lambda L: L.movedim(L.ones(3, 4), (0, 1), (1, 1)),
    "swapaxes_dim": lambda L: L.swapaxes(L.ones(3, 4), 2, 0),
    "unflatten_sizes": lambda L: L.unflatten(L.ones(3, 4), 1, (3, 2)),
    "unflatten_empty": lambda L: L.unflatten(L.ones(3, 4), 1, ()),
    "broadcast_to_bad": lambda L: L.broadcast_to(L.ones(3, 4), (3, 5)),
    "hstack_empty": lambda L: L.hstack([]),
    "hstack_sizes": lambda L: L.hstack([L.ones(3, 4), L.ones(2, 2)]),
    "vstack_sizes": lambda L: L.vstack([L.ones(3, 4), L.ones(2, 2)]),
    "diag_3d": lambda L: L.diag(L.ones(2, 2, 2)),
    "diagonal_same": lambda L: L.diagonal(L.ones(3, 4), 0, 0, 0),
    "trace_1d": lambda L: L.trace(L.ones(3)),
    "tril_1d": lambda L: L.tril(L.ones(3)),
    "triu_1d": lambda L: L.triu(L.ones(3)),
    "meshgrid_indexing": lambda L: L.meshgrid(L.ones(2), L.ones(2), indexing="foo"),
    "meshgrid_empty": lambda L: L.meshgrid(indexing="ij"),
    "meshgrid_dtype": lambda L: L.meshgrid(L.ones(2), L.ones(2, dtype=L.float64), indexing="ij"),
    "outer_2d": lambda L: L.outer(L.ones(2, 2), L.ones(2)),
    "outer_2d_b": lambda L: L.outer(L.ones(2), L.ones(2, 2)),
    "addmm_shapes": lambda L: L.addmm(L.ones(3, 4), L.ones(3, 5), L.ones(4, 4)),
    "addmm_1d": lambda L: L.addmm(L.ones(3, 4), L.ones(3), L.ones(4, 4)),
    "addmm_input": lambda L: L.addmm(L.ones(3), L.ones(3, 5), L.ones(5, 4)),
    "addmm_dtype": lambda L: L.addmm(L.ones(3, 4), L.ones(3, 5), L.ones(5, 4, dtype=L.float64)),
    "addmm_dtype_mat1": lambda L: L.addmm(L.ones(3, 4), L.ones(3, 5, dtype=L.float64), L.ones(5, 4)),
    "addmv_sizes": lambda L: L.addmv(L.ones(3), L.ones(3, 4), L.ones(5)),
    "addmv_ranks": lambda L: L.addmv(L.ones(3), L.ones(3, 4), L.ones(4, 1)),
    "addmv_input": lambda L: L.addmv(L.ones(2), L.ones(3, 4), L.ones(4)),
    "addmv_dtype": lambda L: L.addmv(L.ones(3), L.ones(3, 4), L.ones(4, dtype=L.float64)),
    "baddbmm_sizes": lambda L: L.baddbmm(L.ones(2, 3, 4), L.ones(2, 3, 5), L.ones(2, 4, 4)),
    "baddbmm_input": lambda L: L.baddbmm(L.ones(2, 3, 3), L.ones(2, 3, 5), L.ones(2, 5, 4)),
    "baddbmm_dtype": lambda L: L.baddbmm(L.ones(2, 3, 4, dtype=L.float64), L.ones(2, 3, 5), L.ones(2, 5, 4)),
    "einsum_sizes": lambda L: L.einsum("ij,jk->ik", L.ones(3, 4), L.ones(3, 4)),
    "einsum_few": lambda L: L.einsum("ij,jk->ik", L.ones(3, 4)),
    "einsum_many": lambda L: L.einsum("i,j", L.ones(2), L.ones(3), L.ones(1)),
    "einsum_dims": lambda L: L.einsum("ijk->i", L.ones(3, 4)),
    "einsum_dims_ellipsis": lambda L: L.einsum("...ij->", L.ones(2)),
    "einsum_out_twice": lambda L: L.einsum("ij->ii", L.ones(3, 4)),
    "einsum_out_missing": lambda L: L.einsum("ij->k", L.ones(3, 4)),
    "einsum_diag_sizes": lambda L: L.einsum("ii->i", L.ones(3, 4)),
    "einsum_char": lambda L: L.einsum("i1->i", L.ones(3, 4)),
    "einsum_two_arrows": lambda L: L.einsum("i->i->i", L.ones(2)),
    "einsum_two_ellipses": lambda L: L.einsum("...i...->i", L.ones(2, 3)),
    "einsum_ellipsis_bcast": lambda L: L.einsum("...i,...i->...", L.ones(2, 4), L.ones(3, 4)),
    "einsum_no_operands": lambda L: L.einsum("->"),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
def test_errors_match_torch(name):
    with pytest.raises(Exception) as theirs:
        ERRORS[name](torch)
    with pytest.raises(type(theirs.value)) as ours:
        ERRORS[name](al)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_raise_without_torch(name):
    """The same bad calls fail here whether or not PyTorch is there to compare."""
    with pytest.raises((RuntimeError, IndexError, ValueError, TypeError)):
        ERRORS[name](al)


# ---------------------------------------------------------------------------- in place
INPLACE = {
    "scatter_": lambda L, t, s: t.scatter_(0, I(L, [[0, 1, 2, 0], [1, 2, 0, 2]]), s[:2]),
    "scatter_value": lambda L, t, s: t.scatter_(1, I(L, [[0], [3], [1]]), 2.5),
    "scatter_add_": lambda L, t, s: t.scatter_add_(0, I(L, [[0, 0, 0, 1], [0, 2, 2, 2]]), s[:2]),
    "index_add_": lambda L, t, s: t.index_add_(1, I(L, [0, 0, 3]), s[:, :3], alpha=2),
    "index_copy_": lambda L, t, s: t.index_copy_(1, I(L, [3, 1]), s[:, :2]),
    "masked_fill_": lambda L, t, s: t.masked_fill_(M(L, [1, 0, 0, 1]), -1.0),
    "tril_": lambda L, t, s: t.tril_(1),
    "triu_": lambda L, t, s: t.triu_(-1),
    "addmm_": lambda L, t, s: t.addmm_(s[:, :2], s[:2, :4], beta=0.5, alpha=2),
}


@pytest.mark.parametrize("name", sorted(INPLACE))
def test_inplace_bumps_version_and_records(name):
    x = al.tensor(arr((3, 4)), dtype=al.float64, requires_grad=True)
    s = al.tensor(arr((3, 4), 1), dtype=al.float64, requires_grad=True)
    t = x * 1
    before = t._version
    out = INPLACE[name](al, t, s)
    assert out is t and t._version == before + 1
    assert gradcheck(lambda a, b: INPLACE[name](al, a * 1, b), (x, s))
    assert gradgradcheck(lambda a, b: INPLACE[name](al, a * 1, b), (x, s))


@pytest.mark.parametrize("name", sorted(INPLACE))
@pytest.mark.parametrize("on_view", [False, True])
@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
def test_inplace_against_torch(name, on_view):
    results = []
    for L in (al, torch):
        x = L.tensor(arr((3, 4) if not on_view else (2, 3, 4)), dtype=L.float64, requires_grad=True)
        s = L.tensor(arr((3, 4), 1), dtype=L.float64, requires_grad=True)
        base = x * 1
        t = base[1] if on_view else base
        INPLACE[name](L, t, s)
        (base * L.tensor(arr(tuple(base.shape), 5))).sum().backward()
        results.append((np_of(base), graph_names(base), t._version, np_of(x.grad),
                        None if s.grad is None else np_of(s.grad)))
    (va, ga, ka, xa, sa), (vt, gt, kt, xt, st) = results
    np.testing.assert_allclose(va, vt)
    assert ga == gt and ka == kt
    np.testing.assert_allclose(xa, xt)
    assert (sa is None) == (st is None)
    if sa is not None:
        np.testing.assert_allclose(sa, st)


@pytest.mark.parametrize("lib", [pytest.param(al, id="autograd_lab"),
                                 pytest.param(torch, id="torch", marks=needs_torch)])
def test_failed_inplace_changes_nothing(lib):
    t = lib.ones(3, 4)
    for bad in (lambda: t.scatter_(0, I(lib, [[5]]), lib.ones(1, 1)),
                lambda: t.scatter_add_(0, I(lib, [[0]]), lib.ones(1, 1, dtype=lib.float64)),
                lambda: t.index_add_(0, I(lib, [7]), lib.ones(1, 4)),
                lambda: t.index_copy_(0, I(lib, [0, 1]), lib.ones(1, 4)),
                lambda: t.masked_fill_(lib.ones(2, 3, 4, dtype=lib.bool), 0.0),
                lambda: t.addmm_(lib.ones(3, 2), lib.ones(3, 4))):
        with pytest.raises((RuntimeError, IndexError)):
            bad()
    assert t._version == 0 and t.tolist() == [[1.0] * 4] * 3


@pytest.mark.parametrize("lib", [pytest.param(al, id="autograd_lab"),
                                 pytest.param(torch, id="torch", marks=needs_torch)])
def test_addmm_inplace_shape_error(lib):
    with pytest.raises(RuntimeError, match=r"Bad in-place call: input tensor size \[4\] and output tensor "
                                           r"size \[3, 4\] should match"):
        lib.ones(4).addmm_(lib.ones(3, 5), lib.ones(5, 4))


@pytest.mark.parametrize("lib", [pytest.param(al, id="autograd_lab"),
                                 pytest.param(torch, id="torch", marks=needs_torch)])
def test_unbind_pieces_are_views_that_refuse_inplace(lib):
    x = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = x * 1
    a, b = lib.unbind(y)
    assert a._base is y and b._base is y
    assert a.grad_fn is b.grad_fn and (a.output_nr, b.output_nr) == (0, 1)
    with pytest.raises(RuntimeError) as err:
        b.mul_(2)
    assert str(err.value).startswith("Output 1 of Unbind is a view and is being modified inplace. This view "
                                     "is the output of a function that returns multiple views.")
    with lib.no_grad():
        c, d = lib.unbind(lib.ones(2, 2))
        d.mul_(3)  # no graph: allowed
    assert d.tolist() == [3.0, 3.0]


@pytest.mark.parametrize("lib", [pytest.param(al, id="autograd_lab"),
                                 pytest.param(torch, id="torch", marks=needs_torch)])
def test_diagonal_is_a_writable_view(lib):
    x = lib.zeros(3, 3)
    d = x.diagonal()
    d.fill_(1.0)
    assert x.tolist() == [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    assert x._version == 1 and d._base is x
    w = lib.ones(3, requires_grad=True)
    y = lib.zeros(3, 3) * 1
    y.diagonal(1).mul_(w[:2])
    y.diagonal().add_(w)
    y.sum().backward()
    assert w.grad.tolist() == [1.0, 1.0, 1.0]


@pytest.mark.parametrize("lib", [pytest.param(al, id="autograd_lab"),
                                 pytest.param(torch, id="torch", marks=needs_torch)])
def test_saved_index_and_self_are_version_checked(lib):
    x = lib.ones(3, 4, requires_grad=True)
    y = x * 1
    out = y.gather(0, I(lib, [[0, 1, 2, 0]]))
    y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()
    z = x * 1
    ok = z.index_select(0, I(lib, [1]))  # index_select keeps only the index
    z.add_(1)
    ok.sum().backward()
    assert x.grad.tolist() == [[0.0] * 4, [1.0] * 4, [0.0] * 4]


# ---------------------------------------------------------------------------- no gradient
@pytest.mark.parametrize("lib", [pytest.param(al, id="autograd_lab"),
                                 pytest.param(torch, id="torch", marks=needs_torch)])
def test_nonzero(lib):
    x = lib.tensor([[0.0, 1.5, 0.0], [2.0, 0.0, -1.0]], requires_grad=True)
    nz = lib.nonzero(x)
    assert nz.tolist() == [[0, 1], [1, 0], [1, 2]] and nz.dtype == lib.int64
    assert nz.grad_fn is None and not nz.requires_grad
    rows, cols = x.nonzero(as_tuple=True)
    assert rows.tolist() == [0, 1, 1] and cols.tolist() == [1, 0, 2]
    assert tuple(lib.nonzero(lib.tensor(2.0)).shape) == (1, 0)
    assert tuple(lib.nonzero(lib.zeros(0, 3)).shape) == (0, 2)
    assert [t.tolist() for t in lib.nonzero(lib.tensor(0.0), as_tuple=True)] == [[]]
    assert [t.tolist() for t in lib.nonzero(lib.tensor(True), as_tuple=True)] == [[0]]


@pytest.mark.parametrize("lib", [pytest.param(al, id="autograd_lab"),
                                 pytest.param(torch, id="torch", marks=needs_torch)])
def test_new_tensors(lib):
    x = lib.ones(2, dtype=lib.float64, requires_grad=True)
    for t, shape, value in ((x.new_zeros(2, 3), (2, 3), 0.0), (x.new_ones((3,)), (3,), 1.0),
                            (x.new_full((2,), 7), (2,), 7.0), (x.new_empty(0, 2), (0, 2), None)):
        assert tuple(t.shape) == shape and t.dtype == lib.float64
        assert t.is_leaf and not t.requires_grad
        if value is not None:
            assert t.tolist() == np.full(shape, value).tolist()
    assert x.new_zeros(2, dtype=lib.int64).dtype == lib.int64
    t = x.new_tensor([1, 2], requires_grad=True)
    assert t.dtype == lib.float64 and t.requires_grad and t.is_leaf and t.tolist() == [1.0, 2.0]
    with pytest.warns(UserWarning, match="To copy construct from a tensor"):
        c = x.new_tensor(x)
    assert not c.requires_grad and c.tolist() == [1.0, 1.0]


@pytest.mark.parametrize("lib", [pytest.param(al, id="autograd_lab"),
                                 pytest.param(torch, id="torch", marks=needs_torch)])
def test_meshgrid_without_indexing_warns_and_uses_ij(lib):
    with pytest.warns(UserWarning, match="it will be required to pass the indexing argument"):
        a, b = lib.meshgrid(lib.arange(2), lib.arange(3))
    assert a.tolist() == [[0, 0, 0], [1, 1, 1]] and b.tolist() == [[0, 1, 2], [0, 1, 2]]


@pytest.mark.parametrize("lib", [pytest.param(al, id="autograd_lab"),
                                 pytest.param(torch, id="torch", marks=needs_torch)])
def test_integer_results(lib):
    x = lib.arange(12).reshape(3, 4)
    assert lib.trace(x).dtype == lib.int64 and lib.trace(x).item() == 15
    assert lib.einsum("ij->j", x).tolist() == [12, 15, 18, 21]
    assert lib.gather(x, 1, I(lib, [[3], [0], [1]])).tolist() == [[3], [4], [9]]
    assert lib.flip(x, [0])[0].tolist() == [8, 9, 10, 11]
    assert lib.addmm(lib.ones(2, 2), lib.ones(2, 3), lib.ones(3, 2), beta=0).tolist() == [[3.0, 3.0]] * 2
    nan = lib.full((2, 2), float("nan"))
    assert lib.addmm(nan, lib.ones(2, 2), lib.ones(2, 2), beta=0).tolist() == [[2.0, 2.0]] * 2


def test_masked_fill_with_a_tensor_value_gives_it_a_gradient():
    from autograd_lab.autograd import gradcheck, gradgradcheck

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
