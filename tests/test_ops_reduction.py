"""ops/reduction.py: prod, var_mean/std_mean, dist, any/all, count_nonzero, aminmax: finite differences and
PyTorch's values, gradients, graphs and warnings."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from helpers import oracle, torch
from op_cases import REDUCTIONS, check, double_backward_both, make, run_both, same_outcome, table_tests

import autograd_lab as al

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


@pytest.mark.parametrize("shape,dim,keepdim", [((4,), None, False), ((2, 3), 1, False),
                                               ((2, 3), -1, True), ((2, 3, 2), (0, 2), False),
                                               ((2, 3), None, True)])
def test_var_mean_std_mean_gradcheck(shape, dim, keepdim):
    x = make(shape, 9)
    for fn in (al.var_mean, al.std_mean):
        check(lambda t, fn=fn: fn(t, dim, keepdim=keepdim), x)
        check(lambda t, fn=fn: fn(t, dim, correction=0, keepdim=keepdim)[0] * 2 + fn(t, dim)[1].sum(), x)


@pytest.mark.parametrize("p", [1, 2, 3, 1.5, float("inf")])
@pytest.mark.parametrize("shapes", [((3,), (3,)), ((2, 3), (3,)), ((), (2,))])
def test_dist_gradcheck(p, shapes):
    a, b = make(shapes[0], 13, 1, 2), make(shapes[1], 14, -2, -1)
    check(lambda x, y: al.dist(x, y, p), a, b, twice=p != float("inf"))


@pytest.mark.parametrize("fn", ["var_mean", "std_mean"])
def test_var_mean_of_one_element_warns(fn):
    libs = [al] + ([torch] if torch is not None else [])
    for lib in libs:
        with pytest.warns(UserWarning, match=rf"^{fn}\(\): degrees of freedom is <= 0\. Correction should "
                                             r"be strictly less than the reduction factor"):
            getattr(lib, fn)(lib.ones(1))


@oracle
@pytest.mark.parametrize("name", ["prod", "prod dim", "prod dim keepdim", "cumprod"])
def test_products_with_zeros_against_torch(name):
    for zeros in ([(0, 1)], [(0, 1), (0, 3)], [(0, 1), (2, 1)], [(1, 0), (1, 1), (1, 2)]):
        x = np.array([[0.7, -1.2, 1.9, 0.4], [1.3, 0.2, -0.6, 1.1], [-0.9, 2.2, 0.5, -1.7]])
        for i, j in zeros:
            x[i, j] = 0.0
        run_both(lambda lib, t: REDUCTIONS[name](lib, t * 1), [x], what=name)
        double_backward_both(lambda lib, t: REDUCTIONS[name](lib, t * 1), x)


# this module's cases in the tables of op_cases.py: finite differences, PyTorch, errors, in place
globals().update(table_tests("reduction"))


@oracle
@pytest.mark.parametrize("name", ["sum", "mean", "amax", "amin", "var", "std", "norm", "any", "all",
                                  "argmax"])
@pytest.mark.parametrize("kwargs", [dict(dim=()), dict(dim=[]), dict(dim=None, keepdim=True),
                                    dict(dim=(0,), keepdim=True)])
def test_reductions_over_no_dim_or_none_with_keepdim(name, kwargs):
    """``dim=()`` reduces everything for sum/mean/var/... but nothing for any/all; ``keepdim`` with
    ``dim=None`` keeps every dim as 1."""
    def fn(lib):
        x = lib.tensor(np.arange(6.0).reshape(2, 3), requires_grad=name not in ("any", "all", "argmax"))
        return getattr(lib, name)(x, **kwargs)
    same_outcome(fn, what=f"{name} {kwargs}")


@oracle
def test_prod_of_a_scalar_along_dim_is_a_new_tensor():
    for lib in (al, torch):
        a = lib.tensor(2.0)
        b = a.prod(0)
        b.add_(1)
        assert a.item() == 2.0 and b.item() == 3.0


@oracle
@pytest.mark.parametrize("name", ["amax", "amin", "max", "min", "argmax", "argmin"])
@pytest.mark.parametrize("shape", [(0, 3), (0,)])
@pytest.mark.parametrize("kwargs", [{}, dict(dim=0), dict(dim=-1), dict(dim=0, keepdim=True)])
def test_reductions_without_identity_over_nothing(name, shape, kwargs):
    same_outcome(lambda lib: getattr(lib.zeros(shape), name)(**kwargs), what=f"{name} {shape} {kwargs}")


@oracle
@pytest.mark.parametrize("fn", [lambda x: x.max(0)[0], lambda x: x.min(dim=0).values])
def test_max_along_dim_frees_its_saved_indices(fn):
    outcomes = []
    for lib in (al, torch):
        x = lib.tensor([1.0, 3.0, 2.0], requires_grad=True)
        y = fn(x)
        outcomes.append((y.grad_fn._saved_dim, y.grad_fn._saved_keepdim, y.grad_fn._saved_indices.item()))
        y.backward()
        with pytest.raises(RuntimeError) as info:
            y.backward()
        outcomes.append(str(info.value))
    assert outcomes[:2] == outcomes[2:]


EMPTY_REDUCTIONS = ["sum", "mean", "prod", "var", "std", "logsumexp", "norm", "median", "amax", "any", "all",
                    "count_nonzero", "var_mean", "std_mean", "aminmax"]


@oracle
@pytest.mark.parametrize("name, args", [
    (name, args) for name in EMPTY_REDUCTIONS for args in ((), (0,), (-1,))
    if (name != "logsumexp" or args) and (name != "aminmax" or not args)])  # no Python TypeErrors
@pytest.mark.parametrize("shape", [(0,), (0, 3)])
def test_reductions_of_empty_tensors(name, shape, args):
    """PyTorch's values or errors, and its warnings only (no NumPy RuntimeWarning leaks)."""
    caught = []
    for lib in (torch, al):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            try:
                out = getattr(lib, name)(lib.zeros(shape, requires_grad=name not in ("any", "all")), *args)
                out = out[0] if isinstance(out, tuple) else out
                result = (tuple(out.shape), out.detach().numpy().tolist())
            except (RuntimeError, IndexError) as e:
                result = (type(e).__name__, str(e))
        caught.append((result, [(w.category.__name__, str(w.message).split(" (Triggered")[0]) for w in seen]))
    np.testing.assert_equal(caught[1], caught[0])


@oracle
@pytest.mark.parametrize("fn", [lambda lib, x: x.var(), lambda lib, x: lib.std(x, 0),
                                lambda lib, x: x.var(correction=3), lambda lib, x: lib.var_mean(x)])
def test_var_with_no_degree_of_freedom_warns_as_pytorch(fn):
    caught = []
    for lib in (torch, al):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            fn(lib, lib.ones(1))
        caught.append([(w.category, str(w.message).split(" (Triggered")[0], w.filename) for w in seen])
    assert caught[1] == caught[0] and len(caught[0]) == 1


@oracle
@pytest.mark.parametrize("name", ["var", "std"])
@pytest.mark.parametrize("dim", [None, 1])
def test_var_std_derivative_graph_is_pytorchs(name, dim):
    """With ``create_graph=True``: ``(2 / (N - correction)) * grad`` (MulBackward1 where it is recorded)
    times the centered input (SubBackward0), as PyTorch's ``var_backward``."""
    outcomes = []
    for lib in (al, torch):
        x = lib.tensor([[0.5, -1.0, 2.0], [0.3, 0.3, 0.3]], dtype=lib.float64, requires_grad=True)
        (g,) = lib.autograd.grad(getattr(x, name)(dim).sum(), x, create_graph=True)
        edges = [None if n is None else type(n).__name__ for n, _ in g.grad_fn.next_functions]
        (gg,) = lib.autograd.grad((g * g).sum(), x)
        outcomes.append((type(g.grad_fn).__name__, edges, g.detach().numpy(), gg.numpy()))
    assert outcomes[0][:2] == outcomes[1][:2]
    np.testing.assert_allclose(outcomes[0][2], outcomes[1][2], rtol=1e-12)
    np.testing.assert_allclose(outcomes[0][3], outcomes[1][3], rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_mean_is_the_sum_divided_once_with_pytorch_s_bits_and_dtype(dtype):
    """mean is the sum, in PyTorch's order of additions (float32, float64: autograd_lab/summation.py),
    divided once by the count, as PyTorch's CPU mean; float16 is summed in float32, as np.mean does; no
    warning for an empty mean (nan, as PyTorch)."""
    t = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    a = (rng.standard_normal((4, 3, 33)) * 100).astype(dtype)
    for dims, keep in ((None, False), ((2,), False), ((0, 2), True), ((0, 1, 2), False)):
        got = al.tensor(a).mean() if dims is None else al.tensor(a).mean(dims, keepdim=keep)
        if dtype == "float16":
            ref = np.mean(a, axis=dims, keepdims=keep)
        else:
            ref = t.tensor(a).mean() if dims is None else t.tensor(a).mean(dims, keepdim=keep)
            ref = ref.numpy()
        assert np.array_equal(got._data, np.asarray(ref, dtype)), (dims, keep)
        want = t.tensor(a).mean() if dims is None else t.tensor(a).mean(dims, keepdim=keep)
        assert str(got.dtype) == str(want.dtype) and tuple(got.shape) == tuple(want.shape)
        np.testing.assert_allclose(got._data.astype(np.float64), want.double().numpy(),
                                   rtol=1e-3 if dtype == "float16" else 1e-6)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isnan(al.zeros(0, dtype=getattr(al, dtype)).mean().item())


@pytest.mark.parametrize("dim", [None, 1])
def test_mean_s_gradient_is_a_new_contiguous_tensor_as_in_pytorch(dim):
    """PyTorch's mean backward divides the expanded gradient: a new tensor, contiguous (it was a
    read-only broadcast view here before issue 17's phase 2)."""
    t = pytest.importorskip("torch")
    seen = {}
    for lib in (al, t):
        x = lib.ones(3, 4, requires_grad=True)
        h = x * 2
        h.register_hook(lambda g, lib=lib: seen.__setitem__(lib.__name__, (g.stride(), g.is_contiguous())))
        (h.mean() if dim is None else h.mean(dim).sum()).backward()
    assert seen["autograd_lab"] == seen["torch"]


@pytest.mark.parametrize("call", [lambda x: x.sum(), lambda x: x.sum(dim=None),
                                  lambda x: x.sum(None, keepdim=True), lambda x: x.sum(())])
def test_sum_node_with_and_without_dim(call):
    """sum() records SumBackward0; a dim given, even None, SumBackward1 (PyTorch 2.13)."""
    torch_ = pytest.importorskip("torch")
    names = [call(m.ones(2, 3, requires_grad=True)).grad_fn.name() for m in (al, torch_)]
    assert names[0] == names[1]


@pytest.mark.parametrize("call", [lambda x: x.prod(dim=None), lambda x: x.prod(keepdim=True),
                                  lambda x: x.max(dim=(0,)), lambda x: x.max(keepdim=True),
                                  lambda x: x.min(dim=None), lambda x: x.max(dim=(0,), keepdim=True),
                                  lambda x: x.sum(keepdim=True)])
def test_reductions_reject_what_torch_rejects(call):
    """The keyword forms PyTorch rejects raise its TypeError, word for word."""
    torch_ = pytest.importorskip("torch")
    texts = []
    for m in (al, torch_):
        with pytest.raises(TypeError) as e:
            call(m.ones(2, 3))
        texts.append(str(e.value))
    assert texts[0] == texts[1]


@oracle
@pytest.mark.parametrize("name", ["max", "min"])
@pytest.mark.parametrize("shape", [(), (2, 3)])
@pytest.mark.parametrize("dim", [-1, 0])
@pytest.mark.parametrize("keepdim", [False, True])
def test_max_along_dim_saves_dim_and_keepdim_as_given(name, shape, dim, keepdim):
    """PyTorch keeps dim unwrapped, as an unsigned 64-bit int (-1 shows as 2**64 - 1), and keepdim as
    given even for a 0-d tensor (found by the random-program test)."""
    outcomes = []
    for lib in (al, torch):
        node = getattr(lib.ones(shape, requires_grad=True), name)(dim, keepdim=keepdim)[0].grad_fn
        outcomes.append((node._saved_dim, node._saved_keepdim))
    assert outcomes[0] == outcomes[1]
