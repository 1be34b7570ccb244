"""creation.py: Tensor.new_tensor/new_full/new_zeros/new_ones/new_empty."""

from __future__ import annotations

import warnings

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


@pytest.mark.parametrize("make", [
    lambda lib: lib.tensor([0.1, -1.6583], dtype=lib.float64),
    lambda lib: lib.tensor([[0.1], [0.2]], dtype=lib.float64),
    lambda lib: lib.tensor(0.1, dtype=lib.float64),
    lambda lib: lib.as_tensor([0.1, 1e-300], dtype=lib.float64),
    lambda lib: lib.full((2,), 0.1, dtype=lib.float64),
    lambda lib: lib.arange(0, 0.35, 0.1, dtype=lib.float64),
    lambda lib: lib.tensor(np.array([0.1]), dtype=lib.float64),
    lambda lib: lib.tensor(np.array([0.1], dtype=np.float32), dtype=lib.float64),
    lambda lib: lib.tensor([0.1, 2]),
    lambda lib: lib.tensor([1e40, -1e300]),
    lambda lib: lib.tensor(1e40, dtype=lib.float16),
])
def test_float64_from_python_floats_is_exact(make):
    """A dtype given to the factory is where Python floats go: never through float32 first (and what
    overflows is inf, without NumPy's warning)."""
    if torch is None:
        pytest.skip("PyTorch is not installed")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ours, theirs = make(al), make(torch)
    assert ours.dtype.itemsize == theirs.dtype.itemsize
    assert ours.tolist() == theirs.tolist()


@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
@pytest.mark.parametrize("data", [[np.uint8(3)], [np.uint8(3), 1], [np.float32(1), 2.5],
                                  [np.uint8(3), np.int16(2)], [np.float64(1)], [[np.uint8(1)], [np.uint8(2)]],
                                  [np.float16(1), np.int8(3)], [np.uint8(200), True], [1, 2.5], []])
def test_tensor_keeps_numpy_scalar_dtypes(data):
    """NumPy scalars in a list keep their dtype; the elements' dtypes promote as PyTorch's do."""
    assert str(al.tensor(data).dtype) == str(torch.tensor(data).dtype)


@pytest.mark.parametrize("lib", [pytest.param(al, id="autograd_lab"),
                                 pytest.param(torch, id="torch", marks=needs_torch)])
def test_tensor_from_floats_with_a_dtype_keeps_their_float64_values(lib):
    # found by tests/test_random_programs.py: the floats went through float32 on their way to float64
    assert lib.tensor([1.8, 1.14], dtype=lib.float64).tolist() == [1.8, 1.14]
    assert lib.tensor(0.1, dtype=lib.float64).item() == 0.1
