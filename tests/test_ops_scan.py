"""ops/scan.py: cumsum, cumprod, logcumsumexp, diff: finite differences (zeros too) and PyTorch."""

from __future__ import annotations

import pytest
from op_cases import check, make, table_tests

import autograd_lab as al


@pytest.mark.parametrize("shape,dim", [((), 0), ((), -1), ((4,), 0), ((2, 3), 1), ((2, 3), -2),
                                       ((2, 3, 2), 1)])
def test_scans_gradcheck(shape, dim):
    x = make(shape, 7, 0.5, 1.5)
    check(lambda t: al.cumsum(t, dim), x)
    check(lambda t: t.cumprod(dim), x)
    check(lambda t: al.logcumsumexp(t * 3, dim), x)


def test_cumprod_with_zeros_gradcheck():
    x = make((2, 4), 8, 0.5, 1.5)
    x.detach().numpy()[0, 1] = 0.0
    x.detach().numpy()[1, [0, 2]] = 0.0
    check(lambda t: al.cumprod(t, 1), x)
    check(lambda t: al.cumprod(t, 0), x)


@pytest.mark.parametrize("shape,n,dim", [((4,), 1, 0), ((2, 4), 2, -1), ((3, 2), 1, 0), ((4,), 5, 0)])
def test_diff_gradcheck(shape, n, dim):
    x = make(shape, 11)
    check(lambda t: al.diff(t, n, dim), x)
    p = make(shape[:dim] + (1,) + shape[dim + 1:] if dim >= 0 else shape[:-1] + (1,), 12)
    check(lambda t, q: t.diff(n, dim, prepend=q, append=q), x, p)


# this module's cases in the tables of op_cases.py: finite differences, PyTorch, errors, in place
globals().update(table_tests("scan"))
