"""creation.py: Tensor.new_tensor/new_full/new_zeros/new_ones/new_empty."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import needs_torch, torch

import autograd_lab as al


@pytest.mark.parametrize("lib", [pytest.param(al, id="autograd_lab"),
                                 pytest.param(torch, id="torch", marks=needs_torch)])
def test_new_tensors(lib):
    x = lib.ones(2, dtype=lib.float64, requires_grad=True)
    for t, shape, value in ((x.new_zeros(2, 3), (2, 3), 0.0), (x.new_ones((3,)), (3,), 1.0),
                            (x.new_full((2,), 7), (2,), 7.0), (x.new_empty(0, 2), (0, 2), None)):
        assert tuple(t.shape) == shape and t.dtype == lib.float64
        assert t.is_leaf and not t.requires_grad
        if value is not None:
            assert t.tolist() == np.full(shape, value).tolist()
    assert x.new_zeros(2, dtype=lib.int64).dtype == lib.int64
    t = x.new_tensor([1, 2], requires_grad=True)
    assert t.dtype == lib.float64 and t.requires_grad and t.is_leaf and t.tolist() == [1.0, 2.0]
    with pytest.warns(UserWarning, match="To copy construct from a tensor"):
        c = x.new_tensor(x)
    assert not c.requires_grad and c.tolist() == [1.0, 1.0]


@pytest.mark.parametrize("lib", [pytest.param(al, id="autograd_lab"),
                                 pytest.param(torch, id="torch", marks=needs_torch)])
def test_tensor_from_floats_with_a_dtype_keeps_their_float64_values(lib):
    # found by tests/test_random_programs.py: the floats went through float32 on their way to float64
    assert lib.tensor([1.8, 1.14], dtype=lib.float64).tolist() == [1.8, 1.14]
    assert lib.tensor(0.1, dtype=lib.float64).item() == 0.1
