"""autograd/gradcheck.py: gradcheck and gradgradcheck catch wrong derivatives."""

from __future__ import annotations

import pytest
from helpers import f64

import autograd_lab as torch
from autograd_lab.autograd import Function, GradcheckError, gradcheck, gradgradcheck


class WrongExp(Function):
    @staticmethod
    def forward(ctx, x):
        out = x.exp()
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, g):
        (out,) = ctx.saved_tensors
        return g * out * 1.01  # 1% off


def test_gradcheck_catches_a_wrong_backward():
    x = f64([0.5, -1.0])
    with pytest.raises(GradcheckError, match="Jacobian mismatch for output 0 with respect to input 0"):
        gradcheck(WrongExp.apply, (x,))
    assert gradcheck(WrongExp.apply, (x,), raise_exception=False) is False
    assert gradcheck(torch.exp, (x,))


def test_gradgradcheck_catches_a_wrong_double_backward():
    class FirstOrderOnly(Function):
        """Correct first derivative of x^2, but its backward is not differentiable (it uses data)."""

        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * torch.tensor(2 * x.detach().numpy())

    x = f64([0.5, -1.0])
    assert gradcheck(FirstOrderOnly.apply, (x,))
    assert gradgradcheck(FirstOrderOnly.apply, (x,), raise_exception=False) is False
    assert gradgradcheck(lambda t: t * t, (x,))


def test_gradcheck_warns_for_float32_inputs():
    x = torch.tensor([1.0], requires_grad=True)
    with pytest.warns(UserWarning, match="is not a double precision floating point"):
        assert gradcheck(lambda t: t * 2, (x,), eps=1e-2, atol=1e-2, rtol=1e-2)


def test_gradcheck_perturbs_non_contiguous_inputs():
    base = torch.arange(6.0, dtype=torch.float64).reshape(2, 3)
    x = base.t().detach().requires_grad_()  # a transposed, non-contiguous leaf
    assert not x.is_contiguous()
    assert gradcheck(lambda t: (t * t).sum(0), (x,))
    with pytest.raises(GradcheckError):
        gradcheck(WrongExp.apply, (x,))
