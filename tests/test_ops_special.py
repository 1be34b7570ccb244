"""The gamma family (``lgamma``, ``digamma``, ``polygamma``: ops in ops/pointwise.py, kernels in
ops/special.py) and ``diag_embed`` and ``repeat_interleave`` (ops/shape.py), compared with PyTorch: value
bits, dtype, shape, strides, the chain of nodes, what a node saved, gradients, second derivatives and
the error texts; the kernels bit for bit on wide random ranges; and, without PyTorch, values by hand and
gradchecks."""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers import oracle, torch

import autograd_lab as al
from autograd_lab.autograd import gradcheck, gradgradcheck
from autograd_lab.ops import special

SPECIALS = np.array([0.0, -0.0, 1.0, 2.0, 3.0, 10.0, -1.0, -2.0, -2.5, 0.5, 1.1, 1.2, 2.3, 7.0, -0.1,
                     1e-8, -1e-8, 1e-40, 1e5, np.inf, -np.inf, np.nan])
POLES = SPECIALS.tolist()  # (as a list: both libraries make the same tensor of it)

CASES = {
    # ------------------------------------------------ the gamma family
    "lgamma": lambda m, x: m.lgamma(x), "x.lgamma": lambda m, x: x.lgamma(),
    "lgamma float64": lambda m, x: m.lgamma(x.double()),
    "lgamma of poles and infinities": lambda m, x: m.lgamma(m.tensor(POLES)),
    "lgamma of poles, float64": lambda m, x: m.lgamma(m.tensor(POLES, dtype=m.float64)),
    "lgamma int": lambda m, x: m.lgamma(m.tensor([1, 2, 5])), "lgamma bool": lambda m, x: m.lgamma(x > 0),
    "lgamma float16": lambda m, x: m.lgamma(x.half()),
    "lgamma of a transposed": lambda m, x: m.lgamma(x.t()),
    "lgamma 0-d": lambda m, x: m.lgamma(x.sum()),
    "lgamma_": lambda m, x: x.detach().clone().lgamma_(),
    "lgamma_ int": lambda m, x: m.tensor([1, 2]).lgamma_(),
    "lgamma_ recorded": lambda m, x: (x * 1).lgamma_(),
    "lgamma of a number": lambda m, x: m.lgamma(2.0), "digamma of a number": lambda m, x: m.digamma(2),
    "digamma": lambda m, x: m.digamma(x), "x.digamma": lambda m, x: x.digamma(),
    "digamma float64": lambda m, x: m.digamma(x.double()),
    "digamma of poles and infinities": lambda m, x: m.digamma(m.tensor(POLES)),
    "digamma of poles, float64": lambda m, x: m.digamma(m.tensor(POLES, dtype=m.float64)),
    "digamma int": lambda m, x: m.digamma(m.tensor([1, 2, 5])),
    "digamma float16": lambda m, x: m.digamma(x.half()),
    "digamma_": lambda m, x: x.detach().clone().digamma_(),
    "digamma_ recorded": lambda m, x: (x * 1).digamma_(),
    **{f"polygamma {n}": (lambda m, x, n=n: m.polygamma(n, x)) for n in (0, 1, 2, 3, 6)},
    **{f"polygamma {n} float64": (lambda m, x, n=n: m.polygamma(n, x.double())) for n in (1, 2, 5, 40)},
    **{f"polygamma {n} of poles": (lambda m, x, n=n: m.polygamma(n, m.tensor(POLES)))
       for n in (1, 2, 3)},
    "polygamma 2 of poles, float64": lambda m, x: m.polygamma(2, m.tensor(POLES, dtype=m.float64)),
    "polygamma 3 float16": lambda m, x: m.polygamma(3, x.half()),
    "polygamma 200 float16": lambda m, x: m.polygamma(200, (x.abs() + 1).half()),
    "polygamma int": lambda m, x: m.polygamma(2, m.tensor([1, 2, 5])),
    "x.polygamma": lambda m, x: x.polygamma(2),
    "polygamma's saved n": lambda m, x: m.polygamma(3, x).grad_fn._saved_n,
    "polygamma's saved self": lambda m, x: m.polygamma(3, x).grad_fn._saved_self is x,
    "polygamma_": lambda m, x: x.detach().clone().polygamma_(2),
    "polygamma_ recorded": lambda m, x: (x * 1).polygamma_(1),
    "polygamma_ int": lambda m, x: m.tensor([1, 2]).polygamma_(1),
    "polygamma negative n": lambda m, x: m.polygamma(-1, x),
    "polygamma_ negative n": lambda m, x: x.detach().clone().polygamma_(-1),
    "polygamma_ of a leaf, negative n": lambda m, x: x.polygamma_(-1),
    "polygamma float n": lambda m, x: m.polygamma(1.5, x),
    "polygamma bool n": lambda m, x: m.polygamma(True, x),
    "polygamma tensor n": lambda m, x: m.polygamma(x, 1),
    "polygamma of a number": lambda m, x: m.polygamma(1, 2.0),
    "x.polygamma float n": lambda m, x: x.polygamma(1.5),
    "polygamma_ float n": lambda m, x: x.detach().clone().polygamma_(1.5),
    # ------------------------------------------------ diag_embed
    "diag_embed": lambda m, x: m.diag_embed(x), "x.diag_embed": lambda m, x: x.diag_embed(1),
    "diag_embed offset -2": lambda m, x: m.diag_embed(x, -2),
    "diag_embed dims 0, 2": lambda m, x: m.diag_embed(x, 1, 0, 2),
    "diag_embed dims 2, 0": lambda m, x: m.diag_embed(x, -1, 2, 0),
    "diag_embed dims -1, 1": lambda m, x: m.diag_embed(x, 0, -1, 1),
    "diag_embed of a transposed": lambda m, x: x.t().diag_embed(),
    "diag_embed of a vector": lambda m, x: m.diag_embed(x[0], 2),
    "diag_embed 3-d": lambda m, x: m.diag_embed(x.reshape(2, 2, 3), 0, 1, 3),
    "diag_embed int": lambda m, x: m.diag_embed(m.tensor([1, 2]), -1),
    "diag_embed bool": lambda m, x: m.diag_embed(x > 0),
    "diag_embed empty": lambda m, x: m.diag_embed(m.zeros(0, 3)),
    "diag_embed's saved values": lambda m, x: [m.diag_embed(x, 1, 0, 2).grad_fn._saved_offset,
                                               m.diag_embed(x, 1, 0, 2).grad_fn._saved_dim1,
                                               m.diag_embed(x).grad_fn._saved_dim2],
    "diag's saved dims": lambda m, x: [m.diag(x[0]).grad_fn._saved_dim1, m.diag(x[0], 1).grad_fn._saved_dim2],
    "diag of a vector": lambda m, x: m.diag(x[0], -1),
    "diag_embed same dims": lambda m, x: m.diag_embed(x, 0, 1, 1),
    "diag_embed same dims wrapped": lambda m, x: m.diag_embed(x, 0, 2, -1),
    "diag_embed dim out of range": lambda m, x: m.diag_embed(x, 0, 0, 3),
    "diag_embed dim1 out of range": lambda m, x: m.diag_embed(x, 0, -4, 1),
    "diag_embed 0-d": lambda m, x: m.diag_embed(x.sum()),
    "diag_embed float offset": lambda m, x: m.diag_embed(x, 1.5),
    "diag_embed bool offset": lambda m, x: m.diag_embed(x, True),
    "diag_embed float dim2": lambda m, x: m.diag_embed(x, 0, 0, 1.5),
    "x.diag_embed float offset": lambda m, x: x.diag_embed(1.5),
    "x.diag_embed float dim1": lambda m, x: x.diag_embed(0, 1.5),
    "diag_embed of a number": lambda m, x: m.diag_embed(2.0),
    # ------------------------------------------------ repeat_interleave
    "repeat_interleave": lambda m, x: m.repeat_interleave(x, 2),
    "repeat_interleave dim 0": lambda m, x: m.repeat_interleave(x, 2, 0),
    "repeat_interleave dim -1": lambda m, x: x.repeat_interleave(3, dim=-1),
    "repeat_interleave 0 times": lambda m, x: m.repeat_interleave(x, 0, 1),
    "repeat_interleave of a vector": lambda m, x: m.repeat_interleave(x[0], 2),
    "repeat_interleave 0-d": lambda m, x: m.repeat_interleave(x.sum(), 2),
    "repeat_interleave of a transposed": lambda m, x: m.repeat_interleave(x.t(), 2),
    "repeat_interleave of a transposed, dim 0": lambda m, x: m.repeat_interleave(x.t(), 2, 0),
    "repeat_interleave output_size": lambda m, x: m.repeat_interleave(x, 2, 1, output_size=8),
    "repeat_interleave keywords": lambda m, x: m.repeat_interleave(input=x, repeats=2, dim=1),
    "repeat_interleave bool": lambda m, x: m.repeat_interleave(x > 0, 2),
    "repeat_interleave int": lambda m, x: m.repeat_interleave(m.tensor([1, 2]), 2),
    "repeat_interleave empty": lambda m, x: m.repeat_interleave(m.zeros(0, 3), 2, 0),
    "repeat_interleave counts": lambda m, x: m.repeat_interleave(x, m.tensor([1, 0, 2]), 0),
    "repeat_interleave counts dim 1": lambda m, x: x.repeat_interleave(m.tensor([1, 2, 0, 1]), dim=1),
    "repeat_interleave counts int32": lambda m, x: m.repeat_interleave(x, m.tensor([1, 0, 2], dtype=m.int32),
                                                                       0),
    "repeat_interleave one count": lambda m, x: m.repeat_interleave(x, m.tensor([2]), 1),
    "repeat_interleave 0-d count": lambda m, x: m.repeat_interleave(x, m.tensor(2)),
    "repeat_interleave counts flat": lambda m, x: m.repeat_interleave(x, m.tensor([1, 2, 0, 1] * 3)),
    "repeat_interleave counts output_size": lambda m, x: m.repeat_interleave(x, m.tensor([1, 0, 2]), 0,
                                                                             output_size=3),
    "repeat_interleave counts of a 0-d": lambda m, x: m.repeat_interleave(x.sum(), m.tensor([3])),
    "repeat_interleave's saved index": lambda m, x: m.repeat_interleave(x, m.tensor([1, 0, 2]), 0)
    .grad_fn._saved_index,
    "repeat_interleave indices": lambda m, x: m.repeat_interleave(m.tensor([1, 2, 3])),
    "repeat_interleave indices int32": lambda m, x: m.repeat_interleave(m.tensor([3, 0, 1], dtype=m.int32)),
    "repeat_interleave indices empty": lambda m, x: m.repeat_interleave(m.tensor([], dtype=m.int64)),
    "repeat_interleave indices output_size": lambda m, x: m.repeat_interleave(m.tensor([1, 2]),
                                                                              output_size=3),
    "repeat_interleave indices by keyword": lambda m, x: m.repeat_interleave(repeats=m.tensor([2, 1])),
    "repeat_interleave negative": lambda m, x: m.repeat_interleave(x, -1),
    "repeat_interleave negative, dim out of range": lambda m, x: m.repeat_interleave(x, -1, 5),
    "repeat_interleave dim out of range": lambda m, x: m.repeat_interleave(x, 2, 2),
    "repeat_interleave 0-d dim 0": lambda m, x: m.repeat_interleave(x.sum(), 2, 0),
    "repeat_interleave wrong output_size": lambda m, x: m.repeat_interleave(x, 2, 1, output_size=5),
    "repeat_interleave float repeats": lambda m, x: m.repeat_interleave(x, 2.5),
    "repeat_interleave bool repeats": lambda m, x: m.repeat_interleave(x, True),
    "x.repeat_interleave float repeats": lambda m, x: x.repeat_interleave(2.5),
    "repeat_interleave counts of wrong size": lambda m, x: m.repeat_interleave(x, m.tensor([1, 2]), 1),
    "repeat_interleave counts 2-d": lambda m, x: m.repeat_interleave(x, m.tensor([[1, 2]]), 7),
    "repeat_interleave counts, dim out of range": lambda m, x: m.repeat_interleave(x, m.tensor([1, 2]), 5),
    "repeat_interleave negative counts": lambda m, x: m.repeat_interleave(x, m.tensor([1, -2, 3]), 0),
    "repeat_interleave float counts": lambda m, x: m.repeat_interleave(x, m.tensor([1.0, 2.0, 3.0]), 0),
    "repeat_interleave int16 counts": lambda m, x: m.repeat_interleave(x, m.tensor([1, 2, 3], dtype=m.int16),
                                                                       0),
    "repeat_interleave counts of a 0-d, dim 0": lambda m, x: m.repeat_interleave(x.sum(), m.tensor([2]), 0),
    "repeat_interleave indices 2-d": lambda m, x: m.repeat_interleave(m.tensor([[3]])),
    "repeat_interleave indices 0-d": lambda m, x: m.repeat_interleave(m.tensor(3)),
    "repeat_interleave indices float": lambda m, x: m.repeat_interleave(m.tensor(3.0)),
    "repeat_interleave indices bool": lambda m, x: m.repeat_interleave(m.tensor([True])),
    "repeat_interleave indices negative": lambda m, x: m.repeat_interleave(m.tensor([3, -2])),
    "repeat_interleave indices wrong output_size": lambda m, x: m.repeat_interleave(m.tensor([1, -2]),
                                                                                    output_size=5),
    "repeat_interleave indices negative output_size": lambda m, x: m.repeat_interleave(m.tensor([1, 2]),
                                                                                       output_size=-1),
    "repeat_interleave of a number": lambda m, x: m.repeat_interleave(2),
    "x.repeat_interleave without repeats": lambda m, x: m.tensor([1, 2]).repeat_interleave(),
    "keywords of the methods": lambda m, x: [
        x.polygamma(n=2).sum().item(), tuple(x.diag_embed(dim1=0, dim2=2).shape),
        tuple(x.repeat_interleave(repeats=2, dim=0, output_size=6).shape)],
}


def _chain(t) -> list[str]:
    """The names of the nodes from ``t`` back along first edges (AccumulateGrad as PyTorch's short name)."""
    names, node = [], t.grad_fn
    while node is not None:
        names.append(node.name().split("::")[-1])
        node = next((n for n, _ in node.next_functions if n is not None), None)
    return names


def _observed(m, case, values):
    """What a learner can see of one case: the result's bits, dtype, shape, strides, chain of nodes, its
    gradient and second derivative (by the sum of the gradient), or the error."""
    x = m.tensor(values, requires_grad=True)
    try:
        y = CASES[case](m, x)
    except (RuntimeError, TypeError, IndexError, NotImplementedError) as e:
        return f"{type(e).__name__}: {e}"
    if isinstance(y, list):
        return repr(y)
    if not isinstance(y, m.Tensor):
        return repr(y)
    seen = [str(y.dtype).split(".")[-1], tuple(y.shape), y.stride(), y.detach().numpy().tobytes(), _chain(y)]
    if y.requires_grad and y.dtype in (m.float32, m.float64):
        (g,) = m.autograd.grad(y.sum(), [x], create_graph=True, allow_unused=True)
        seen += [None if g is None else g.detach().numpy().tobytes(), None if g is None else _chain(g)]
        if g is not None and g.requires_grad:
            (gg,) = m.autograd.grad(g.sum(), [x], allow_unused=True)
            seen.append(None if gg is None else gg.numpy().tobytes())
    return seen


VALUES = np.random.default_rng(0).uniform(-3, 5, (3, 4)).astype(np.float32)
VALUES[0, :2] = (0.5, -1.5)


@pytest.mark.parametrize("case", CASES)
@oracle
def test_each_case_is_pytorchs(case):
    assert _observed(al, case, VALUES) == _observed(torch, case, VALUES)


# ---------------------------------------------------------------------------- the kernels, bit for bit
def _wide(dtype, n=20000, seed=1):
    """Values over a wide range: around the poles, small, huge, negative, and random bit patterns."""
    r = np.random.default_rng(seed)
    with np.errstate(all="ignore"):
        x = np.concatenate([r.uniform(-30, 30, n), r.standard_normal(n) * 2, np.exp(r.uniform(-30, 60, n)),
                            -np.exp(r.uniform(-30, 5, n)), SPECIALS]).astype(dtype)
        if dtype != np.float16:
            ints = np.uint64 if dtype == np.float64 else np.uint32
            bits = r.integers(0, np.iinfo(ints).max, n, dtype=np.uint64, endpoint=True).astype(ints)
            x = np.concatenate([x, bits.view(dtype)])
    return x


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    ints = {8: np.int64, 4: np.int32, 2: np.int16}[a.dtype.itemsize]
    return a.dtype == b.dtype and bool(np.all(a.view(ints) == b.view(ints)))  # (nan's sign and payload too)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
@pytest.mark.parametrize("op", ["lgamma", "digamma", "polygamma 1", "polygamma 2", "polygamma 7"])
@oracle
def test_the_kernels_are_pytorchs_bit_for_bit(op, dtype):
    x = _wide(dtype, 4000 if op.startswith("polygamma") and op != "polygamma 1" else 20000)
    if op.startswith("polygamma"):
        x = x[~(x < -1e4)]  # (PyTorch's series takes |x| steps there: hours for -1e15)
        n = int(op.split()[1])
        ours, theirs = special.polygamma(n, x), torch.polygamma(n, torch.from_numpy(x)).numpy()
    else:
        ours, theirs = getattr(special, op)(x), getattr(torch, op)(torch.from_numpy(x)).numpy()
    assert _same_bits(ours, theirs)


@oracle
def test_lgamma_is_pytorchs_on_a_million_values():
    """SLEEF's lgamma, replayed: every value of a million float64 and a million float32 is PyTorch's."""
    r = np.random.default_rng(7)
    x = np.concatenate([r.uniform(-20, 20, 500_000), np.exp(r.uniform(-10, 10, 500_000))])
    assert _same_bits(special.lgamma(x), torch.lgamma(torch.from_numpy(x)).numpy())
    x32 = r.integers(0, 2**32, 1_000_000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    assert _same_bits(special.lgamma(x32), torch.lgamma(torch.from_numpy(x32)).numpy())


# ---------------------------------------------------------------------------- without PyTorch
def test_fma_rounds_once():
    """The emulated fused multiply-add: ``a * b + c`` rounded once, where rounding twice loses it all."""
    a = np.array([1 + 2.0**-30, 0.1, 2.0**-500 * (1 + 2.0**-52)])
    b = np.array([1 - 2.0**-30, 10.0, 2.0**-575])
    c = np.array([-1.0, -1.0, 2.0**-1073])
    assert special.fma(a, b, c).tolist() == [-(2.0**-60), 2.0**-54, 3 * 2.0**-1074]  # (the last subnormal)
    assert (a * b + c)[:2].tolist() == [0.0, 0.0]  # rounded twice
    f32 = special.fma(np.float32(1 + 2**-12), np.float32(1 - 2**-12), np.float32(-1))
    assert f32.dtype == np.float32 and f32 == np.float32(-(2.0**-24))


def test_values_by_hand():
    x = al.tensor([0.5, 1.0, 2.0, 3.0, 10.0, -0.5], dtype=al.float64)
    euler = 0.5772156649015329
    assert np.allclose(al.lgamma(x).numpy(), [0.5 * math.log(math.pi), 0, 0, math.log(2), math.log(362880),
                                              math.log(2 * math.sqrt(math.pi))], rtol=1e-15, atol=1e-15)
    assert np.allclose(al.digamma(x).numpy()[1:5], [-euler, 1 - euler, 1.5 - euler, 2.251752589066721],
                       rtol=1e-15)
    assert np.allclose(al.polygamma(1, x).numpy()[1:3], [math.pi**2 / 6, math.pi**2 / 6 - 1], rtol=1e-15)
    assert np.isclose(al.polygamma(2, al.tensor(1.0, dtype=al.float64)).item(), -2 * 1.2020569031595942,
                      rtol=1e-15)  # -2 zeta(3)
    assert al.polygamma(0, x).numpy().tobytes() == al.digamma(x).numpy().tobytes()
    poles = al.tensor([0.0, -0.0, -1.0, -2.0])
    assert al.lgamma(poles).tolist() == [math.inf] * 4
    d = al.digamma(poles).numpy()
    assert d[0] == -math.inf and d[1] == math.inf and np.isnan(d[2:]).all()
    assert al.lgamma(al.tensor([1, 2, 5])).dtype == al.float32  # integers: the default dtype


def test_gradients_and_second_derivatives_by_gradcheck():
    x = al.tensor([0.7, 1.5, 2.5, 6.0, -0.4, -2.3], dtype=al.float64, requires_grad=True)
    for fn in (al.lgamma, al.digamma, lambda t: al.polygamma(2, t), lambda t: t.polygamma(0)):
        assert gradcheck(fn, (x,))
        assert gradgradcheck(fn, (x,))
    m = al.tensor(np.random.default_rng(3).standard_normal((2, 3)), dtype=al.float64, requires_grad=True)
    assert gradcheck(lambda t: al.diag_embed(t, 1, 0, 2), (m,))
    assert gradgradcheck(lambda t: al.diag_embed(t, -1), (m,))
    assert gradcheck(lambda t: al.repeat_interleave(t, 3, 1), (m,))
    assert gradcheck(lambda t: al.repeat_interleave(t, al.tensor([2, 0]), 0), (m,))
    assert gradgradcheck(lambda t: al.repeat_interleave(t, 2), (m,))


def test_diag_embed_and_repeat_interleave_by_hand():
    v = al.tensor([1.0, 2.0])
    assert al.diag_embed(v).tolist() == [[1, 0], [0, 2]]
    assert al.diag_embed(v, -1).tolist() == [[0, 0, 0], [1, 0, 0], [0, 2, 0]]
    assert al.diag_embed(al.tensor([[1, 2], [3, 4]]), 0, 0, 1)[:, :, 1].tolist() == [[3, 0], [0, 4]]
    assert al.repeat_interleave(v, 2).tolist() == [1, 1, 2, 2]
    assert al.repeat_interleave(al.tensor([[1, 2], [3, 4]]), al.tensor([1, 2]), 0).tolist() == [
        [1, 2], [3, 4], [3, 4]]
    assert al.repeat_interleave(al.tensor([2, 0, 1])).tolist() == [0, 0, 2]
    with pytest.raises(RuntimeError, match="Repeats must be non-negative"):
        al.repeat_interleave(v, -2)
    with pytest.raises(RuntimeError, match="polygamma"):
        al.polygamma(-1, v)


def test_without_a_c_library_numpys_functions_stand_in(monkeypatch):
    """Where no C library is found, NumPy's log, tan, sin and pow stand in: the same values within a few
    units in the last place."""
    x = np.concatenate([np.linspace(-7.3, 12.1, 301), [0.3, 25.0, 1e3]])
    exact = [special.digamma(x), special.polygamma(1, x), special.polygamma(3, x)]
    special.c_function.cache_clear()
    monkeypatch.setattr(special, "_libm", lambda: None)
    try:
        stand_in = [special.digamma(x), special.polygamma(1, x), special.polygamma(3, x)]
    finally:
        special.c_function.cache_clear()
    for a, b in zip(exact, stand_in):
        np.testing.assert_allclose(b, a, rtol=1e-11, atol=1e-300)
