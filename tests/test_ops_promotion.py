"""ops/promotion.py: the dtype of a result, as PyTorch decides it (operands of every rank, Python
numbers, every pair of dtypes), and the result dtypes of the other ops."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

import autograd_lab as al

torch = pytest.importorskip("torch")


def _operands(T) -> dict:
    return {
        "int64": T.tensor([1, 2]), "int32": T.tensor([1, 2], dtype=T.int32),
        "uint8": T.tensor([1, 2], dtype=T.uint8), "float32": T.tensor([1.5, 2.0]),
        "float64": T.tensor([1.5, 2.0], dtype=T.float64), "bool": T.tensor([True, False]),
        "float16": T.tensor([1.5, 2.0], dtype=T.float16),
        "0-d int64": T.tensor(3), "0-d int32": T.tensor(3, dtype=T.int32),
        "0-d float32": T.tensor(2.5), "0-d float64": T.tensor(2.5, dtype=T.float64),
        "0-d bool": T.tensor(True),
        "python int": 3, "python float": 2.5, "python bool": True,
    }


BINARY_FORMS = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": lambda a, b: a / b,
    "**": lambda a, b: a**b,
    "<": lambda a, b: a < b,
    "==": lambda a, b: a == b,
}


def _outcome(fn, a, b):
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            r = fn(a, b)
    except Exception as e:
        return ("raises", type(e).__name__ if not isinstance(e, RuntimeError) else "RuntimeError", str(e))
    return ("gives", str(r.dtype), np.asarray(r.tolist(), dtype=np.float64))


@pytest.mark.parametrize("form", list(BINARY_FORMS))
def test_dtype_promotion_table(form):
    fn = BINARY_FORMS[form]
    names = list(_operands(al))
    mismatches = []
    for ka, kb in itertools.product(names, repeat=2):
        if ka.startswith("python") and kb.startswith("python"):
            continue
        ours = _outcome(fn, _operands(al)[ka], _operands(al)[kb])
        theirs = _outcome(fn, _operands(torch)[ka], _operands(torch)[kb])
        if ours[:2] != theirs[:2] or (ours[0] == "raises" and ours[2] != theirs[2]):
            mismatches.append(f"{ka} {form} {kb}: {ours[:3]} vs {theirs[:3]}")
        elif ours[0] == "gives":
            np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-3, equal_nan=True,
                                       err_msg=f"{ka} {form} {kb}")
    assert not mismatches, "\n".join(mismatches)


@pytest.mark.parametrize("expr", [
    "T.tensor([1, 2]).sum()", "T.tensor([True, False]).sum()", "T.tensor([1, 2]).float().mean()",
    "T.tensor([1, 2]) * 1.0", "T.tensor([1, 2], dtype=T.int32) + T.tensor(5)",
    "T.tensor([1.0], dtype=T.float16) + T.tensor(1.0, dtype=T.float64)", "T.arange(5)",
    "T.arange(5.0)", "T.arange(0, 1, 0.25)", "T.zeros(2)", "T.full((2,), 3)", "T.full((2,), 1.5)",
    "T.full((2,), True)", "T.tensor([1, 2]).exp()", "T.tensor([4, 9]).sqrt()", "T.tensor([1, 2]) / 2",
    "T.tensor([3, 4]) // 2", "T.tensor([3, 4]) % 3", "T.tensor([1.5]).long()", "T.tensor([0, 1]).bool()",
    "T.where(T.tensor([True, False]), T.tensor([1, 2]), 0.5)", "T.cat([T.tensor([1]), T.tensor([1.5])])",
    "T.tensor([1, 2]).argmax()", "T.tensor([[1., 5.], [7., 2.]]).max(1).indices",
])
def test_result_dtypes_of_other_ops(expr):
    ours, theirs = eval(expr, {"T": al}), eval(expr, {"T": torch})
    assert str(ours.dtype) == str(theirs.dtype)
    np.testing.assert_allclose(np.asarray(ours.tolist(), dtype=float),
                               np.asarray(theirs.tolist(), dtype=float))
