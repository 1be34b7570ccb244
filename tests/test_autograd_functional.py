"""autograd/functional.py: jacobian, hessian, vjp, jvp, hvp on known answers."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import f64

import autograd_lab as torch
from autograd_lab.autograd import functional


def test_functional_jacobian_known_answer():
    def f(x):
        return torch.stack([x[0] * x[1], x[0].exp(), x[1] ** 3])

    x = f64([1.0, 2.0], requires_grad=False)
    J = functional.jacobian(f, x)
    np.testing.assert_allclose(J.numpy(), [[2.0, 1.0], [np.e, 0.0], [0.0, 12.0]])
    assert not J.requires_grad and x.grad is None


def test_functional_jacobian_of_several_inputs_and_outputs():
    def f(a, b):
        return a * b, (a + b).sum()

    a, b = f64([1.0, 2.0], False), f64([3.0, 4.0], False)
    (ja, jb), (sa, sb) = functional.jacobian(f, (a, b))
    np.testing.assert_allclose(ja.numpy(), np.diag([3.0, 4.0]))
    np.testing.assert_allclose(jb.numpy(), np.diag([1.0, 2.0]))
    np.testing.assert_allclose(sa.numpy(), [1.0, 1.0])
    np.testing.assert_allclose(sb.numpy(), [1.0, 1.0])


def test_functional_hessian_hvp_vjp_known_answers():
    def f(x):
        return x[0] ** 2 * x[1] + x[1] ** 3

    x = f64([1.0, 2.0], False)
    H = functional.hessian(f, x)
    np.testing.assert_allclose(H.numpy(), [[4.0, 2.0], [2.0, 12.0]])
    value, hv = functional.hvp(f, x, f64([1.0, -1.0], False))
    assert value.item() == 10.0
    np.testing.assert_allclose(hv.numpy(), [2.0, -10.0])
    out, v = functional.vjp(lambda t: t * t, x, f64([1.0, 1.0], False))
    np.testing.assert_allclose(out.numpy(), [1.0, 4.0])
    np.testing.assert_allclose(v.numpy(), [2.0, 4.0])


def test_hessian_of_a_quadratic_form_is_a_plus_a_transpose():
    A = torch.tensor(np.random.default_rng(0).standard_normal((3, 3)))
    H = functional.hessian(lambda x: x @ A @ x, torch.zeros(3, dtype=torch.float64))
    np.testing.assert_allclose(H.numpy(), A.numpy() + A.numpy().T, rtol=1e-12)


def test_functional_jvp_known_answers():
    out, jv = functional.jvp(lambda t: t.exp().sum(dim=1), torch.ones(2, 2, dtype=torch.float64),
                             torch.ones(2, 2, dtype=torch.float64))
    np.testing.assert_allclose(out.numpy(), [2 * np.e, 2 * np.e])
    np.testing.assert_allclose(jv.numpy(), [2 * np.e, 2 * np.e])
    A = f64([[1.0, 2.0, 0.0], [0.0, -1.0, 3.0]], False)
    _, jv = functional.jvp(lambda t: A @ t, f64([5.0, 6.0, 7.0], False), f64([1.0, 0.0, 0.0], False))
    np.testing.assert_allclose(jv.numpy(), [1.0, 0.0])      # J e_0: the first column of A
    xy = (f64([1.0, 2.0], False), f64([3.0, 4.0], False))
    (a, b), (ja, jb) = functional.jvp(lambda x, y: (x * y, x.sin()), xy,
                                      (f64([1.0, 1.0], False), f64([0.0, 1.0], False)))
    np.testing.assert_allclose(ja.numpy(), [3.0, 6.0])      # y dx + x dy
    np.testing.assert_allclose(jb.numpy(), np.cos([1.0, 2.0]))
    assert not ja.requires_grad and not a.requires_grad


def test_functional_jvp_equals_the_jacobian_times_v():
    rng = np.random.default_rng(3)
    W = torch.tensor(rng.normal(size=(4, 3)))
    x, v = torch.tensor(rng.normal(size=3)), torch.tensor(rng.normal(size=3))

    def f(t):
        return (W @ t).tanh() * t.sum()

    _, jv = functional.jvp(f, x, v)
    np.testing.assert_allclose(jv.numpy(), functional.jacobian(f, x).numpy() @ v.numpy(), rtol=1e-12)


def test_functional_jvp_of_a_constant_output_is_zero_and_errors_read_as_pytorchs():
    x = f64([1.0, 2.0], False)
    _, jv = functional.jvp(lambda t: torch.ones(3), x, x)
    assert jv.tolist() == [0.0, 0.0, 0.0]
    with pytest.raises(RuntimeError, match=r"v has invalid size: should be torch.Size\(\[2\]\) but got "
                                           r"torch.Size\(\[3\]\)."):
        functional.jvp(lambda t: t * 2, x, f64([1.0, 2.0, 3.0], False))
    with pytest.raises(RuntimeError, match="The vector v can only be None if the input to the user-provided "
                                           "function is a single Tensor with a single element."):
        functional.jvp(lambda t: t * 2, x)
    _, jv = functional.jvp(lambda t: t ** 3, f64([2.0], False))         # v = 1 for one element
    assert jv.tolist() == [12.0]
    with pytest.raises(RuntimeError, match="Output 0 of the user-provided function does not require"):
        functional.jvp(lambda t: torch.ones(3), x, x, strict=True)
    with pytest.raises(TypeError, match="The outputs of the user-provided function given to jvp must be"):
        functional.jvp(lambda t: 3, x, x)


def test_functional_jvp_with_create_graph_is_differentiable():
    x = f64([0.5, -1.0], False)
    out, jv = functional.jvp(lambda t: (t * 2).tanh(), x, f64([1.0, 1.0], False), create_graph=True)
    assert out.requires_grad and jv.requires_grad


@pytest.mark.torch
def test_functional_jvp_against_pytorch():
    T = pytest.importorskip("torch")
    rng = np.random.default_rng(8)
    w, x0, v0 = rng.normal(size=(4, 3)), rng.normal(size=3), rng.normal(size=3)
    results = []
    for lib in (T, torch):
        W = lib.tensor(w)

        def f(t, W=W):
            return (W @ t.sin()).tanh() * t.sum(), t.exp()

        results.append(lib.autograd.functional.jvp(f, lib.tensor(x0), lib.tensor(v0)))
    (outs_t, jv_t), (outs_a, jv_a) = results
    for a, t in zip(outs_a + jv_a, outs_t + jv_t):
        np.testing.assert_allclose(a.numpy(), t.numpy(), rtol=1e-12)
