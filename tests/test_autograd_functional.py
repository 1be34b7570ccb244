"""autograd/functional.py: jacobian, hessian, vjp, jvp, hvp on known answers."""

from __future__ import annotations

import numpy as np
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
