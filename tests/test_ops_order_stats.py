"""ops/sorting.py's order statistics: ``kthvalue``, ``mode``, ``nanmedian``, ``quantile``, ``nanquantile``.

Compared with PyTorch: value bits, dtype, shape, strides, version, the named tuple, the index PyTorch
picks among equal values and NaNs, the graph's node names, gradients (and second derivatives),
``_saved_*`` attributes and error texts. Checked without it: hand values, NumPy's quantile, PyTorch's
tie-breaking written down, finite differences."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import oracle, torch

import autograd_lab as al
from autograd_lab.autograd import gradcheck, gradgradcheck

NAN = float("nan")


def _nan_row(m, x):
    """x with its middle row all NaN (a MulBackward0 in both libraries)."""
    return x * m.tensor([[1.0], [NAN], [1.0]])


def _saved(node, *names):
    return [getattr(node, f"_saved_{n}").tolist() if hasattr(getattr(node, f"_saved_{n}"), "tolist")
            else getattr(node, f"_saved_{n}") for n in names]


CASES = {
    # ---------------------------------------------------------------- kthvalue
    "kthvalue": lambda m, x: m.kthvalue(x, 2),
    "kthvalue dim 0": lambda m, x: m.kthvalue(x, 1, 0),
    "kthvalue keepdim": lambda m, x: m.kthvalue(x, 3, 1, True),
    "x.kthvalue dim -2 keepdim": lambda m, x: x.kthvalue(2, -2, keepdim=True),
    "kthvalue k 6 (NaN)": lambda m, x: m.kthvalue(x, 6),
    "kthvalue k 5 (NaN among ties)": lambda m, x: m.kthvalue(_nan_row(m, x), 5),
    "kthvalue of a transposed": lambda m, x: m.kthvalue(x.t(), 2, 0),
    "kthvalue of a transposed keepdim": lambda m, x: m.kthvalue(x.t(), 2, 1, True),
    "kthvalue of ints": lambda m, x: m.kthvalue(m.tensor([[3, 1, 3], [2, 2, 2]]), 2),
    "kthvalue float64": lambda m, x: m.kthvalue(x.double(), 4),
    "kthvalue float16": lambda m, x: m.kthvalue(x.detach().half(), 4),
    "kthvalue of a row of 40 ties": lambda m, x: m.kthvalue(x.repeat(1, 7)[:, :40].round(), 17),
    "kthvalue 0-d": lambda m, x: m.kthvalue(x.sum(), 1),
    "kthvalue 0-d keepdim": lambda m, x: m.kthvalue(x.sum(), 1, -1, True),
    "kthvalue empty along another dim": lambda m, x: m.kthvalue(m.zeros(2, 0), 1, 0),
    "kthvalue return type": lambda m, x: type(m.kthvalue(x, 1)).__name__,
    "kthvalue's saved": lambda m, x: _saved(m.kthvalue(x, 2).values.grad_fn, "dim", "keepdim",
                                            "self_sym_sizes", "indices"),
    "kthvalue's saved dim 0": lambda m, x: _saved(m.kthvalue(x, 2, 0, True).values.grad_fn, "dim", "keepdim"),
    "kthvalue k 0": lambda m, x: m.kthvalue(x, 0),
    "kthvalue k 7": lambda m, x: m.kthvalue(x, 7),
    "kthvalue k 4 dim 0": lambda m, x: m.kthvalue(x, 4, 0),
    "kthvalue dim 2": lambda m, x: m.kthvalue(x, 1, 2),
    "kthvalue dim -3": lambda m, x: m.kthvalue(x, 1, -3),
    "kthvalue empty dim": lambda m, x: m.kthvalue(m.zeros(2, 0), 1),
    "kthvalue empty dim, k too large": lambda m, x: m.kthvalue(m.zeros(2, 0), 3),
    "kthvalue 0-d k 2": lambda m, x: m.kthvalue(x.sum(), 2),
    "kthvalue 0-d dim 1": lambda m, x: m.kthvalue(x.sum(), 1, 1),
    "kthvalue bool": lambda m, x: m.kthvalue(m.tensor([True, False]), 1),
    "kthvalue bool k too large": lambda m, x: m.kthvalue(m.tensor([True]), 5),
    "kthvalue k float": lambda m, x: m.kthvalue(x, 1.5),
    "kthvalue k bool": lambda m, x: m.kthvalue(x, True),
    "kthvalue k a 0-d tensor": lambda m, x: m.kthvalue(x, m.tensor(2)),
    "kthvalue dim float": lambda m, x: m.kthvalue(x, 2, 1.0),
    "kthvalue dim None": lambda m, x: m.kthvalue(x, 2, None),
    "kthvalue keepdim int": lambda m, x: m.kthvalue(x, 2, 0, 1),
    "x.kthvalue k float": lambda m, x: x.kthvalue(1.5),
    "x.kthvalue keepdim int": lambda m, x: x.kthvalue(1, 0, 1),
    # ---------------------------------------------------------------- mode
    "mode": lambda m, x: m.mode(x),
    "mode dim 0": lambda m, x: m.mode(x, 0),
    "x.mode keepdim": lambda m, x: x.mode(1, True),
    "mode dim -2 keepdim": lambda m, x: m.mode(x, -2, keepdim=True),
    "mode of a transposed": lambda m, x: m.mode(x.t(), 0),
    "mode of a NaN row": lambda m, x: m.mode(_nan_row(m, x)),
    "mode of rows of 24 (std::sort's order)": lambda m, x: m.mode(x.repeat(1, 4).round()),
    "mode of rows of 24 with NaN": lambda m, x: m.mode(x.repeat(1, 4)),
    "mode of ints": lambda m, x: m.mode(m.tensor([[3, 1, 3, 1, 2], [2, 2, 7, 7, 7]])),
    "mode of bools": lambda m, x: m.mode(m.tensor([True, False, True])),
    "mode float16": lambda m, x: m.mode(x.detach().half(), 0),
    "mode float64": lambda m, x: m.mode(x.double()),
    "mode 0-d": lambda m, x: m.mode(x.sum()),
    "mode 0-d keepdim": lambda m, x: m.mode(x.sum(), 0, True),
    "mode empty along another dim": lambda m, x: m.mode(m.zeros(0, 2), 1),
    "mode return type": lambda m, x: type(m.mode(x)).__name__,
    "mode's saved": lambda m, x: _saved(m.mode(x, 0).values.grad_fn, "dim", "keepdim", "self_sym_sizes",
                                        "indices"),
    "mode empty": lambda m, x: m.mode(m.zeros(0)),
    "mode empty dim": lambda m, x: m.mode(m.zeros(2, 0), 1),
    "mode dim 2": lambda m, x: m.mode(x, 2),
    "mode 0-d dim 1": lambda m, x: m.mode(x.sum(), 1),
    "mode dim float": lambda m, x: m.mode(x, 1.0),
    "mode dim None": lambda m, x: m.mode(x, None),
    "mode keepdim int": lambda m, x: m.mode(x, 0, 1),
    "x.mode dim float": lambda m, x: x.mode(0.0),
    # ---------------------------------------------------------------- nanmedian
    "nanmedian": lambda m, x: m.nanmedian(x),
    "x.nanmedian": lambda m, x: x.nanmedian(),
    "nanmedian dim 1": lambda m, x: m.nanmedian(x, 1),
    "nanmedian dim 0 keepdim": lambda m, x: x.nanmedian(0, True),
    "nanmedian of an all-NaN row": lambda m, x: m.nanmedian(_nan_row(m, x), 1),
    "nanmedian of all-NaN": lambda m, x: m.nanmedian(x * NAN),
    "nanmedian of a transposed": lambda m, x: m.nanmedian(x.t(), 0),
    "nanmedian of ints": lambda m, x: m.nanmedian(m.tensor([[3, 1, 2], [2, 2, 5]]), 1),
    "nanmedian of ints, all": lambda m, x: m.nanmedian(m.tensor([3, 1, 2, 4])),
    "nanmedian empty": lambda m, x: m.nanmedian(m.zeros(0, 3)),
    "nanmedian empty int": lambda m, x: m.nanmedian(m.zeros(0, dtype=m.int64)),
    "nanmedian empty int32": lambda m, x: m.nanmedian(m.zeros(0, dtype=m.int32)),
    "median empty int": lambda m, x: m.median(m.zeros(0, dtype=m.int64)),
    "nanmedian 0-d": lambda m, x: m.nanmedian(x.sum(), 0),
    "nanmedian 0-d keepdim": lambda m, x: m.nanmedian(x.sum(), -1, True),
    "nanmedian return type": lambda m, x: type(m.nanmedian(x, 0)).__name__,
    "nanmedian's saved": lambda m, x: _saved(m.nanmedian(x).grad_fn, "self", "result"),
    "nanmedian dim's saved": lambda m, x: _saved(m.nanmedian(x, -1).values.grad_fn, "dim", "keepdim",
                                                 "self_sym_sizes", "indices"),
    "nanmedian empty dim": lambda m, x: m.nanmedian(m.zeros(2, 0), 1),
    "nanmedian empty along another dim": lambda m, x: m.nanmedian(m.zeros(0, 2), 1),
    "nanmedian bool": lambda m, x: m.nanmedian(m.tensor([True])),
    "nanmedian bool dim": lambda m, x: m.nanmedian(m.tensor([True]), 0),
    "nanmedian dim 2": lambda m, x: m.nanmedian(x, 2),
    "nanmedian dim float": lambda m, x: m.nanmedian(x, 1.0),
    "nanmedian keepdim int": lambda m, x: m.nanmedian(x, 0, 1),
    "x.nanmedian dim float": lambda m, x: x.nanmedian(0.0),
    # ---------------------------------------------------------------- quantile
    **{f"quantile {i}": (lambda m, x, i=i: m.quantile(x.detach().nan_to_num(2.5).requires_grad_(), 0.3,
                                                      interpolation=i))
       for i in ("linear", "lower", "higher", "midpoint", "nearest")},
    **{f"quantile dim 1 {i}": (lambda m, x, i=i: m.quantile(x, 0.61, 1, interpolation=i))
       for i in ("linear", "lower", "higher", "midpoint", "nearest")},
    **{f"quantile of a tensor q, dim 0, {i}": (
        lambda m, x, i=i: m.quantile(x, m.tensor([0.0, 0.25, 0.5, 0.7, 1.0]), 0, interpolation=i))
       for i in ("linear", "lower", "higher", "midpoint", "nearest")},
    "quantile with NaN": lambda m, x: m.quantile(x, 0.5),
    "quantile keepdim": lambda m, x: m.quantile(x, 0.5, keepdim=True),
    "quantile dim -1 keepdim": lambda m, x: m.quantile(x, 0.4, -1, True),
    "quantile tensor q keepdim": lambda m, x: m.quantile(x, m.tensor([0.2, 0.9]), keepdim=True),
    "quantile tensor q dim 1 keepdim": lambda m, x: m.quantile(x, m.tensor([0.2, 0.9]), 1, True),
    "quantile 0-d q": lambda m, x: m.quantile(x, m.tensor(0.35), 0),
    "quantile empty q": lambda m, x: m.quantile(x, m.tensor([]), 0),
    "quantile q 1": lambda m, x: m.quantile(x, 1, 1),
    "quantile q True": lambda m, x: m.quantile(x, True),
    "quantile q 1e-20": lambda m, x: m.quantile(x, 1e-20, 0),
    "quantile q computed from x": lambda m, x: m.quantile(x, x[0, 1:4] / 8, 0),
    "quantile of a transposed": lambda m, x: m.quantile(x.t(), 0.3, 1),
    "quantile of a transposed, dim None": lambda m, x: m.quantile(x.t(), 0.3),
    "quantile of a 3-d, dim 1": lambda m, x: m.quantile(x.reshape(3, 2, 3), m.tensor([0.3, 0.6]), 1),
    "quantile of a 1-d": lambda m, x: m.quantile(x[0], 0.3),
    "quantile 0-d": lambda m, x: m.quantile(x.sum(), 0.3),
    "quantile 0-d dim 0 keepdim": lambda m, x: m.quantile(x.sum(), 0.3, 0, True),
    "quantile 0-d keepdim tensor q": lambda m, x: m.quantile(x.sum(), m.tensor([0.3]), keepdim=True),
    "quantile float64": lambda m, x: m.quantile(x.double(), m.tensor([0.1, 0.33], dtype=m.float64), 1),
    "x.quantile": lambda m, x: x.quantile(0.5, 0, interpolation="midpoint"),
    "quantile with a tensor dim": lambda m, x: m.quantile(x, 0.5, m.tensor(1)),
    "quantile q 1.5": lambda m, x: m.quantile(x, 1.5),
    "quantile q -0.1": lambda m, x: m.quantile(x, -0.1),
    "quantile q nan": lambda m, x: m.quantile(x, NAN),
    "quantile q inf": lambda m, x: m.quantile(x, float("inf")),
    "quantile q -1e20": lambda m, x: m.quantile(x, -1e20),
    "quantile q 1.000000001": lambda m, x: m.quantile(x, 1.000000001),
    "quantile tensor q 1.5": lambda m, x: m.quantile(x, m.tensor([0.5, 1.5])),
    "quantile tensor q nan": lambda m, x: m.quantile(x, m.tensor([NAN])),
    "quantile 2-d q": lambda m, x: m.quantile(x, m.tensor([[0.5]])),
    "quantile of longs": lambda m, x: m.quantile(x.long(), 0.5),
    "quantile of halves": lambda m, x: m.quantile(x.half(), 0.5),
    "quantile q float64": lambda m, x: m.quantile(x, m.tensor([0.5], dtype=m.float64)),
    "quantile q int": lambda m, x: m.quantile(x, m.tensor([0], dtype=m.int32)),
    "quantile empty": lambda m, x: m.quantile(m.zeros(0), 0.5),
    "quantile empty, q 1.5": lambda m, x: m.quantile(m.zeros(0), 1.5),
    "quantile empty longs, 2-d q": lambda m, x: m.quantile(m.zeros(0).long(), m.tensor([[2.0]])),
    "quantile of longs, q 1.5": lambda m, x: m.quantile(x.long(), 1.5),
    "quantile interpolation foo": lambda m, x: m.quantile(x, 0.5, interpolation="foo"),
    "quantile q 1.5, interpolation foo": lambda m, x: m.quantile(x, 1.5, interpolation="foo"),
    "quantile of longs, interpolation foo": lambda m, x: m.quantile(x.long(), 0.5, interpolation="foo"),
    "quantile tensor q 1.5, interpolation foo": lambda m, x: m.quantile(x, m.tensor([1.5]),
                                                                        interpolation="foo"),
    "quantile tensor q 1.5, dim 7": lambda m, x: m.quantile(x, m.tensor([1.5]), 7),
    "quantile dim 2": lambda m, x: m.quantile(x, 0.5, 2),
    "quantile 0-d dim 1": lambda m, x: m.quantile(x.sum(), 0.3, 1),
    "quantile q a list": lambda m, x: m.quantile(x, [0.5]),
    "x.quantile q a list": lambda m, x: x.quantile([0.5]),
    "quantile keepdim int": lambda m, x: m.quantile(x, 0.5, 1, 1),
    # ---------------------------------------------------------------- nanquantile
    "nanquantile": lambda m, x: m.nanquantile(x, 0.3),
    "nanquantile dim 1": lambda m, x: m.nanquantile(x, 0.3, 1),
    "nanquantile of an all-NaN row": lambda m, x: m.nanquantile(_nan_row(m, x), m.tensor([0.0, 0.5, 1.0]), 1),
    **{f"nanquantile dim 1 {i}": (lambda m, x, i=i: m.nanquantile(x, m.tensor([0.1, 0.5, 0.8]), -1,
                                                                  interpolation=i))
       for i in ("linear", "lower", "higher", "midpoint", "nearest")},
    "x.nanquantile keepdim": lambda m, x: x.nanquantile(0.75, 0, True),
    "nanquantile q 1.5": lambda m, x: m.nanquantile(x, 1.5),
    "nanquantile of longs": lambda m, x: m.nanquantile(x.long(), 0.5),
    "nanquantile interpolation foo": lambda m, x: m.nanquantile(x, 0.5, interpolation="foo"),
    "nanquantile q a list": lambda m, x: m.nanquantile(x, [0.5]),
}

VALUES = np.array([[3.0, 1.0, 2.0, 1.0, 2.0, 5.0],
                   [4.0, 4.0, 0.5, -1.0, 4.0, 0.5],
                   [2.0, NAN, 7.0, 1.0, NAN, 0.0]], dtype=np.float32)


def _chain(node) -> list:
    """The graph below a node: its name and those of the nodes it leads to."""
    if node is None:
        return []
    return [type(node).__name__, *[_chain(n) for n, _ in node.next_functions if n is not None]]


def _looks(m, t) -> list:
    return [str(t.dtype).split(".")[-1], tuple(t.shape), t.stride(), t.detach().numpy().copy(), t._version,
            _chain(t.grad_fn)]


def _observed(m, case, values):
    """What a learner can see of one case: the result (or the named tuple's type and both tensors): its
    values, dtype, shape, strides, version and graph, and the gradient of its values weighted by their
    place (a gradient sent to the wrong element shows); or the error."""
    x = m.tensor(values, requires_grad=True)
    try:
        y = CASES[case](m, x)
    except (RuntimeError, TypeError, IndexError, NotImplementedError) as e:
        return f"{type(e).__name__}: {e}"
    if not isinstance(y, m.Tensor) and not (isinstance(y, tuple) and isinstance(y[0], m.Tensor)):
        return repr(y)
    seen = [type(y).__name__, *[_looks(m, t) for t in (y if isinstance(y, tuple) else (y,))]]
    v = y[0] if isinstance(y, tuple) else y
    if v.requires_grad:
        weights = m.arange(1, v.numel() + 1, dtype=v.dtype).reshape(v.shape)
        (g,) = m.autograd.grad((v * weights).sum(), [x], allow_unused=True)
        seen.append(None if g is None else g.numpy().copy())
    return seen


def _assert_same(mine, theirs) -> None:
    """Equal: arrays to the bit (dtype and shape too), lists item by item."""
    if isinstance(theirs, np.ndarray):
        assert isinstance(mine, np.ndarray) and mine.dtype == theirs.dtype and mine.shape == theirs.shape
        assert mine.tobytes() == theirs.tobytes(), (mine, theirs)
    elif isinstance(theirs, list):
        assert isinstance(mine, list) and len(mine) == len(theirs), (mine, theirs)
        for a, b in zip(mine, theirs):
            _assert_same(a, b)
    else:
        assert mine == theirs




@pytest.mark.parametrize("case", CASES)
def test_each_order_statistic_is_pytorchs(case):
    if torch is None:
        pytest.skip("PyTorch is not installed")
    _assert_same(_observed(al, case, VALUES), _observed(torch, case, VALUES))


SECOND = {  # second derivatives: the gradient's graph, its values, and the gradient of its sum
    "kthvalue": lambda m, x: m.kthvalue(x * x, 2).values,
    "kthvalue keepdim": lambda m, x: m.kthvalue(x * x, 2, 0, True).values,
    "mode": lambda m, x: m.mode(x * x, 0).values,
    "nanmedian": lambda m, x: m.nanmedian(x * x),
    "nanmedian dim": lambda m, x: m.nanmedian(x * x, 1).values,
    "quantile": lambda m, x: m.quantile(x * x, 0.3, 1),
    "quantile tensor q": lambda m, x: m.quantile(x * x, m.tensor([0.3, 0.8], dtype=m.float64), 0),
    "nanquantile midpoint": lambda m, x: m.nanquantile(x * x, 0.5, interpolation="midpoint"),
}


def _second(m, case):
    x = m.tensor([[3.0, 1.0, 2.0, 7.0], [5.0, 6.0, 4.0, 9.0], [0.5, 1.5, 2.5, 8.0]], dtype=m.float64,
                 requires_grad=True)
    y = SECOND[case](m, x)
    (g,) = m.autograd.grad((y * y).sum(), [x], create_graph=True)
    (gg,) = m.autograd.grad(g.sum(), [x])
    return _chain(g.grad_fn), g.detach().numpy().tobytes(), gg.numpy().tobytes()


@oracle
@pytest.mark.parametrize("case", SECOND)
def test_second_derivatives_are_pytorchs(case):
    assert _second(al, case) == _second(torch, case)


def _ties(seed: int, count: int):
    """Tensors of few distinct values, some NaN, some rows all NaN: rows of 1 to 70 values, and longer."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        shape = (int(rng.integers(1, 4)), int(rng.choice([rng.integers(1, 20), rng.integers(1, 70), 300])))
        dtype = [np.float32, np.float64][rng.integers(2)]
        x = rng.integers(0, int(rng.integers(1, 6)), size=shape).astype(dtype)
        x[rng.random(shape) < rng.choice([0.0, 0.2])] = NAN
        if rng.random() < 0.2:
            x[0] = NAN
        yield x, int(rng.integers(1, shape[1] + 1)), int(rng.integers(-2, 2))


@oracle
def test_the_index_picked_among_ties_and_nans_is_pytorchs():
    """Which of equal values (or NaNs) kthvalue, mode and nanmedian pick: PyTorch's quickselect, GCC's
    std::sort and std::nth_element, replayed; compared on 300 random tensors, along either dim."""
    for x, k, dim in _ties(0, 300):
        k = min(k, x.shape[dim])
        for fn in (lambda m, t, k=k: m.kthvalue(t, k), lambda m, t, k=k, d=dim: m.kthvalue(t, k, d),
                   lambda m, t: m.mode(t), lambda m, t, d=dim: m.mode(t, d),
                   lambda m, t, d=dim: m.nanmedian(t, d), lambda m, t: m.median(t, -1)):
            mine, theirs = fn(al, al.tensor(x)), fn(torch, torch.tensor(x))
            assert mine.indices.tolist() == theirs.indices.tolist(), (x.tolist(), k, dim)
            assert mine.values.numpy().tobytes() == theirs.values.numpy().tobytes()


@oracle
def test_quantile_values_are_pytorchs():
    """To the bit, "linear" too (PyTorch's lerp is one fused multiply-add: so is ours)."""
    rng = np.random.default_rng(1)
    for dtype in (np.float32, np.float64):
        x = rng.standard_normal((5, 37)).astype(dtype)
        x[1, 3] = x[2, 5:9] = NAN
        q = rng.random(11).astype(dtype)
        for interpolation in ("linear", "lower", "higher", "midpoint", "nearest"):
            for fn in ("quantile", "nanquantile"):
                for dim in (None, 0, 1):
                    mine = getattr(al, fn)(al.tensor(x), al.tensor(q), dim, interpolation=interpolation)
                    theirs = getattr(torch, fn)(torch.tensor(x), torch.tensor(q), dim,
                                                interpolation=interpolation)
                    _assert_same(mine.numpy(), theirs.numpy())


# ---------------------------------------------------------------------------- without PyTorch
def test_hand_values():
    x = al.tensor([[3.0, 1.0, 2.0, 1.0], [5.0, 5.0, 4.0, 4.0]])
    r = al.kthvalue(x, 2)
    assert type(r).__name__ == "kthvalue" and r.values.tolist() == [1.0, 4.0] and r.indices.tolist() == [3, 3]
    r = x.mode()
    assert type(r).__name__ == "mode" and r.values.tolist() == [1.0, 4.0] and r.indices.tolist() == [3, 3]
    y = al.tensor([[NAN, 1.0, NAN, 2.0, 1.0], [NAN] * 5])
    assert al.nanmedian(y[0]).item() == 1.0
    r = al.nanmedian(y, 1)
    assert type(r).__name__ == "nanmedian" and r.values[0].item() == 1.0 and r.indices[0].item() == 4
    assert np.isnan(r.values[1].item()) and np.isnan(al.nanmedian(al.zeros(0)).item())
    assert al.quantile(x, 0.5).item() == 3.5 and al.quantile(x, 0.5, 1).tolist() == [1.5, 4.5]
    assert np.isnan(al.quantile(y[0], 0.5).item()) and al.nanquantile(y[0], 0.5).item() == 1.0


def test_pytorchs_choices_among_ties_written_down():
    """PyTorch 2.13's answers (CPU), which the replays reproduce without it."""
    assert al.kthvalue(al.zeros(3), 1).indices.item() == 1
    assert al.kthvalue(al.ones(6), 3).indices.item() == 0
    assert al.kthvalue(al.tensor([2.0, 1, 2, 1, 2]), 4).indices.item() == 0
    assert al.kthvalue(al.tensor([NAN, 1, NAN, 2]), 3).indices.item() == 2
    assert al.kthvalue(al.tensor([NAN, 1, NAN, 2]), 4).indices.item() == 0
    assert al.mode(al.ones(16)).indices.item() == 15  # insertion sort: the last of them
    assert al.mode(al.ones(17)).indices.item() == 1  # introsort's partition first
    r = al.mode(al.tensor([2.0, NAN, 2.0]))  # std::sort cannot order NaN: three runs of one
    assert (r.values.item(), r.indices.item()) == (2.0, 0)
    r = al.mode(al.tensor([3.0, 1, 3, 1, 2]))
    assert (r.values.item(), r.indices.item()) == (1.0, 3)
    assert al.mode(al.tensor([0.0, -0.0, 0.0])).indices.item() == 2
    assert al.nanmedian(al.full((7,), NAN), 0).indices.item() == 5
    assert al.nanmedian(al.full((20,), NAN), 0).indices.item() == 12


@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_quantile_is_numpys(interpolation):
    x = np.random.default_rng(2).standard_normal((4, 9))
    x[1, 2] = x[3, :4] = np.nan
    q = np.array([0.0, 0.05, 0.25, 0.5, 0.55, 0.61, 1.0])
    for dim in (None, 0, 1):
        ours = al.nanquantile(al.tensor(x), al.tensor(q), dim, interpolation=interpolation).numpy()
        want = np.nanquantile(x, q, axis=dim, method=interpolation)
        np.testing.assert_allclose(ours, want, rtol=1e-12, atol=1e-12)
        ours = al.quantile(al.tensor(x[:, 4:]), al.tensor(q), dim, keepdim=True, interpolation=interpolation)
        want = np.quantile(x[:, 4:], q, axis=dim, method=interpolation, keepdims=True)
        np.testing.assert_allclose(ours.numpy(), want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name,fn", [
    ("kthvalue", lambda t: al.kthvalue(t, 2, 1).values),
    ("kthvalue keepdim", lambda t: t.kthvalue(3, 0, True).values),
    ("mode", lambda t: al.mode(t).values),
    ("nanmedian", lambda t: al.nanmedian(t)),
    ("nanmedian dim", lambda t: t.nanmedian(0).values),
    *[(f"quantile {i}", lambda t, i=i: al.quantile(t, al.tensor([0.3, 0.5], dtype=al.float64), 1,
                                                   interpolation=i))
      for i in ("linear", "lower", "higher", "midpoint", "nearest")],
    ("nanquantile", lambda t: al.nanquantile(t, 0.7)),
])
def test_finite_differences(name, fn):
    x = al.tensor(np.random.default_rng(3).permutation(12).reshape(3, 4) * 0.7 + 0.1, dtype=al.float64,
                  requires_grad=True)
    assert gradcheck(fn, (x,))
    assert gradgradcheck(lambda t: fn(t * t), (x,))


def _names(node) -> list[str]:
    """The names of the nodes below ``node``, depth first."""
    return [type(node).__name__, *[s for n, _ in node.next_functions if n is not None for s in _names(n)]]


def test_quantile_records_pytorchs_composite():
    """quantile(dim 0) of a tensor q: the dim moved last, sorted, viewed, gathered twice, lerp_ed, and
    q's dim moved first, in place (PyTorch's graph, versions and strides)."""
    x = al.tensor([[3.0, 1.0], [2.0, 5.0]], requires_grad=True)
    y = al.quantile(x, al.tensor([0.3, 0.6]), 0)
    below = ["GatherBackward0", "ViewBackward0", "SortBackward0", "TransposeBackward0", "UnsqueezeBackward0",
             "AccumulateGrad"]
    assert _names(y.grad_fn) == ["SqueezeBackward4", "TransposeBackward1", "UnsqueezeBackward1",
                                 "LerpBackward1", *below, *below]
    assert y._version == 4 and y.stride() == (1, 2)
    np.testing.assert_allclose(y.detach().numpy(), [[2.3, 2.2], [2.6, 3.4]], rtol=1e-6)
    assert y.grad_fn.next_functions[0][0]._saved_dim1 == 2**64 - 1
    z = al.quantile(x, 0.3, interpolation="lower")
    assert z._version == 1 and _names(z.grad_fn)[:2] == ["SqueezeBackward4", "GatherBackward0"]


def test_errors_without_pytorch():
    x = al.tensor([[3.0, 1.0], [2.0, 5.0]])
    with pytest.raises(RuntimeError, match=r"^kthvalue\(\): selected number k out of range for dimension 1$"):
        al.kthvalue(x, 3)
    with pytest.raises(IndexError, match=r"^mode\(\): Expected reduction dim 1 to have non-zero size\.$"):
        al.mode(al.zeros(2, 0))
    with pytest.raises(RuntimeError, match=r"^quantile\(\) q must be in the range \[0, 1\] but got 1\.5$"):
        al.quantile(x, 1.5)
    with pytest.raises(RuntimeError, match=r"^quantile\(\) input tensor must be either float or double"):
        al.nanquantile(x.long(), 0.5)
    with pytest.raises(TypeError, match=r"^kthvalue\(\): argument 'k' \(position 1\) must be int, not fl"):
        x.kthvalue(1.5)
