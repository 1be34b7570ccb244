"""Check analytical gradients against finite differences (``torch.autograd.gradcheck``)."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..engine import grad as autograd_grad
from ..tensor import Tensor


class GradcheckError(RuntimeError):
    """Raised by :func:`gradcheck` when the two Jacobians disagree."""


def _as_tuple(x: Any) -> tuple:
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _outputs(func: Callable, inputs: tuple) -> tuple[Tensor, ...]:
    return tuple(o for o in _as_tuple(func(*inputs)) if isinstance(o, Tensor))


def numerical_jacobian(func: Callable, inputs: tuple, eps: float = 1e-6) -> list[list[np.ndarray]]:
    """J[i][j]: d(output j)/d(input i) by central differences, shape (input numel, output numel).

    ``func`` runs as it is, in the current grad mode: it may itself use autograd (gradgradcheck's
    function does). Each input element is nudged in place in the input's own memory, so inputs
    that are non-contiguous views are perturbed too.
    """
    outs = _outputs(func, inputs)
    jac = []
    for x in inputs:
        rows = [np.zeros((x.numel() if isinstance(x, Tensor) else 0, o.numel())) for o in outs]
        if isinstance(x, Tensor) and x.requires_grad:
            data = x._data
            for k, idx in enumerate(np.ndindex(data.shape)):
                orig = data[idx].item()
                data[idx] = orig + eps
                plus = [o._data.astype(np.float64).reshape(-1) for o in _outputs(func, inputs)]
                data[idx] = orig - eps
                minus = [o._data.astype(np.float64).reshape(-1) for o in _outputs(func, inputs)]
                data[idx] = orig
                for r, p, m in zip(rows, plus, minus):
                    r[k] = (p - m) / (2 * eps)
        jac.append(rows)
    return jac


def analytical_jacobian(func: Callable, inputs: tuple) -> list[list[np.ndarray]]:
    """J[i][j] by backward: one vector-Jacobian product per output element (row by row)."""
    outs = _outputs(func, inputs)
    diff = [x for x in inputs if isinstance(x, Tensor) and x.requires_grad]
    jac = [[np.zeros((x.numel() if isinstance(x, Tensor) else 0, o.numel())) for o in outs]
           for x in inputs]
    for j, out in enumerate(outs):
        if not out.requires_grad:
            continue
        flat = np.zeros(out.numel(), dtype=out._data.dtype)
        for k in range(out.numel()):
            flat[:] = 0
            flat[k] = 1
            v = Tensor._make(flat.reshape(out._data.shape).copy())
            grads = autograd_grad(out, diff, v, retain_graph=True, allow_unused=True)
            it = iter(grads)
            for i, x in enumerate(inputs):
                if isinstance(x, Tensor) and x.requires_grad:
                    g = next(it)
                    if g is not None:
                        jac[i][j][:, k] = g._data.reshape(-1)
    return jac


def gradcheck(
    func: Callable[..., Any],
    inputs: Any,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    **_: Any,
) -> bool:
    """True if backward agrees with central finite differences for every input and output.

    Use float64 inputs: in float32 the finite differences themselves are too inexact.
    """
    inputs = _as_tuple(inputs)
    for i, x in enumerate(inputs):
        if isinstance(x, Tensor) and x.requires_grad and x._data.dtype != np.float64:
            warnings.warn(
                f"Input #{i} requires gradient and is not a double precision floating point or "
                "complex. This check will likely fail if all the inputs are not of double precision "
                "floating point or complex. ",
                UserWarning,
                stacklevel=2,
            )
    numerical = numerical_jacobian(func, inputs, eps)
    analytical = analytical_jacobian(func, inputs)
    for i, (num_rows, ana_rows) in enumerate(zip(numerical, analytical)):
        for j, (n, a) in enumerate(zip(num_rows, ana_rows)):
            if not np.allclose(a, n, rtol=rtol, atol=atol):
                if not raise_exception:
                    return False
                raise GradcheckError(
                    f"Jacobian mismatch for output {j} with respect to input {i},\n"
                    f"numerical:{Tensor._make(n)!r}\nanalytical:{Tensor._make(a)!r}\n"
                )
    return True


def gradgradcheck(
    func: Callable[..., Any],
    inputs: Any,
    grad_outputs: Sequence[Tensor] | None = None,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    **_: Any,
) -> bool:
    """Check second derivatives: gradcheck of the function that returns first derivatives."""
    inputs = _as_tuple(inputs)
    outs = _outputs(func, inputs)
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = [Tensor._make(rng.standard_normal(o._data.shape).astype(o._data.dtype),
                                     requires_grad=True) for o in outs]
    grad_outputs = list(grad_outputs)
    n = len(inputs)

    def first_derivatives(*args: Tensor) -> tuple[Tensor, ...]:
        xs, vs = args[:n], args[n:]
        diff = [x for x in xs if isinstance(x, Tensor) and x.requires_grad]
        outputs = _outputs(func, xs)
        grads = autograd_grad(outputs, diff, vs, create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_derivatives, (*inputs, *grad_outputs), eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)
