"""ops/methods.py: the Tensor methods of the table: every in-place form (x.erf_(), x.atan2_(y), ...)
against PyTorch, and what each saves when only some inputs require grad."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import oracle, torch
from op_cases import node_names, same, same_outcome, to_np

import autograd_lab as al

MATH_INPLACE = {
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
@pytest.mark.parametrize("name", sorted(MATH_INPLACE))
def test_inplace_against_torch(name):
    x = np.array([0.25, 0.5, 0.75, 1.5])
    results = []
    for lib in (al, torch):
        leaf = lib.tensor(x, requires_grad=True)
        t = leaf * 1
        out = MATH_INPLACE[name](t)
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
    same_outcome(lambda lib: MATH_INPLACE[name](lib.tensor(x, requires_grad=True)) * 1, name)
    # on an integer tensor: the same result or error
    same_outcome(lambda lib: MATH_INPLACE[name](lib.tensor([1, 2, 3])), name)


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


def test_methods_take_pytorchs_argument_names():
    """A method is its op's function: the arguments keep PyTorch's names, by keyword too."""
    x = al.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    v = al.tensor([1.0, -1.0])
    assert x.mul(other=v).tolist() == [[1.0, -2.0], [3.0, -4.0]]
    assert x.add(v, alpha=2).tolist() == [[3.0, 0.0], [5.0, 2.0]]
    assert x.sub(other=v, alpha=3).tolist() == [[-2.0, 5.0], [0.0, 7.0]]
    assert x.mv(vec=v).tolist() == [-1.0, -1.0] and x.matmul(other=x).shape == (2, 2)
    assert x.maximum(other=x * 2).tolist() == [[2.0, 4.0], [6.0, 8.0]]
    assert x.var(unbiased=False).item() == 1.25 and x.std(0, correction=0).tolist() == [1.0, 1.0]
    assert x.view(4).shape == x.view((4,)).shape == x.reshape(al.Size([4])).shape == (4,)
    assert x.permute(1, 0).tolist() == x.permute((1, 0)).tolist() == x.T.tolist()
    (x * x).sum().backward(gradient=al.tensor(2.0))
    assert x.grad.tolist() == [[4.0, 8.0], [12.0, 16.0]]


def test_reflected_and_in_place_operators():
    x = al.tensor([1.0, 2.0, 4.0], requires_grad=True)
    assert (2 ** x).grad_fn.name() == "PowBackward2" and (2 ** x).tolist() == [2.0, 4.0, 16.0]
    assert (8 / x).grad_fn.name() == "MulBackward0" and (8 / x).tolist() == [8.0, 4.0, 2.0]
    assert (10 - x).grad_fn.name() == "RsubBackward1" and (7 // x).tolist() == [7.0, 3.0, 1.0]
    assert (al.tensor([[1.0, 2.0]]) @ al.ones(2, 1)).tolist() == [[3.0]]
    assert (~al.tensor([True, False])).tolist() == [False, True] and (~al.tensor([1, 2])).tolist() == [-2, -3]
    y = x * 1
    y += 1
    y *= x
    assert y.grad_fn.name() == "MulBackward0" and y._version == 2
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 5.0, 9.0], "d/dx (x + 1) x = 2x + 1"
    z = al.tensor([True, False, True])
    z.logical_not_()
    assert z.tolist() == [False, True, False] and z.grad_fn is None


def test_binary_operators_leave_other_classes_their_reflected_methods():
    """As PyTorch's: ``Tensor @ d`` answers NotImplemented to a class it cannot take, so Python runs
    ``d.__rmatmul__`` (notebook 09's dual numbers), or raises "unsupported operand type(s)"."""

    class Other:
        def __rmatmul__(self, t):
            return "rmatmul"

        def __rmul__(self, t):
            return "rmul"

        def __rsub__(self, t):
            return "rsub"

    W = al.ones(2, 2)
    assert (W @ Other(), W * Other(), W - Other()) == ("rmatmul", "rmul", "rsub")
    with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for \+: 'Tensor' and 'str'"):
        W + "a"
    with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for \*\* or pow\(\): 'Tensor'"):
        W ** "a"
