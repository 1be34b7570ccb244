"""Float sums in PyTorch's order of additions (autograd_lab/summation.py): bit for bit what PyTorch's CPU
kernel gives on one thread, for every layout it applies to, and None (NumPy's sum) for the rest."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from helpers import torch

import autograd_lab as al
from autograd_lab.summation import torch_sum

SHAPES = [(3,), (5,), (8,), (12,), (33,), (64,), (257,), (1000,), (4097,), (64, 10), (64, 128), (3, 5),
          (17, 33), (200, 40), (100, 130), (1, 7), (16, 64), (300, 1), (7, 300), (2, 3, 4), (4, 17, 9),
          (3, 40, 2), (5, 6, 7, 8), (2, 1, 33, 3), (64, 3, 5), (130, 4, 20)]


def _cases():
    rng = np.random.default_rng(0)
    for shape in SHAPES:
        for dtype in (np.float32, np.float64):
            x = (rng.standard_normal(shape) * rng.choice([1.0, 1e3])).astype(dtype)
            for r in range(1, len(shape) + 1):
                for dims in itertools.combinations(range(len(shape)), r):
                    yield x, dims


@pytest.mark.torch
def test_every_grouping_of_dims_is_pytorchs_sum_bit_for_bit():
    """Over the last dims (vector lanes), the first or middle ones (columns: blocks of four vectors, then
    interleaved rows), and several groups (rows, then their sums in order), float32 and float64, with and
    without keepdim: 472 sums, all equal to PyTorch's (one thread; NumPy's pairwise sums differ in about
    half of them)."""
    if torch is None:
        pytest.skip("PyTorch is not installed")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # (PyTorch splits a sum of 32,768 elements or more between its threads)
    try:
        differ = numpy_differ = 0
        for x, dims in _cases():
            for keepdim in (False, True):
                want = torch.tensor(x).sum(dim=dims, keepdim=keepdim).numpy()
                got = torch_sum(x, dims, keepdim)
                assert got.shape == want.shape and got.dtype == want.dtype, (x.shape, dims)
                differ += not np.array_equal(got, want)
                numpy_differ += not np.array_equal(np.add.reduce(x, axis=dims, keepdims=keepdim), want)
        assert differ == 0
        assert numpy_differ > 100  # (the test can tell the orders apart)
    finally:
        torch.set_num_threads(threads)


def test_what_the_kernel_order_does_not_cover_is_left_to_numpy():
    x = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    assert torch_sum(x.T, (0,)) is None  # (a layout other than row-major)
    assert torch_sum(x.astype(np.int64), (0,)) is None
    assert torch_sum(x.astype(np.float16), (0,)) is None
    assert torch_sum(np.zeros((0, 3), np.float32), (0,)) is None
    assert torch_sum(np.ones(32768, np.float32), (0,)) is None  # (PyTorch splits it between its threads)
    assert torch_sum(np.ones(32767, np.float32), (0,)) == 32767
    assert al.tensor(x).t().sum(0).tolist() == [6.0, 22.0, 38.0]  # NumPy's sum, the same values here


def test_a_sum_starts_at_plus_zero_and_keeps_infinities_and_nans():
    """The kernel's accumulators start at +0.0: a sum of -0.0s is +0.0 (added one after the other from the
    first term, it would be -0.0)."""
    minus_zeros = np.full(20, -0.0, np.float32)
    assert np.signbit(np.add.accumulate(minus_zeros)[-1])
    assert not np.signbit(torch_sum(minus_zeros, (0,)))
    assert not np.signbit(torch_sum(np.full((3, 1), -0.0), (1,))).any()
    with np.errstate(all="ignore"):
        assert np.isnan(torch_sum(np.array([np.inf, -np.inf, 1.0], np.float32), (0,)))
        assert torch_sum(np.array([1e38, 1e38, -1e38] * 5, np.float32), (0,)) == np.inf


@pytest.mark.torch
def test_sum_and_mean_of_tensors_print_pytorchs_values():
    """A loss's sum and mean, printed, are PyTorch's to the last digit (wide seed 33700443: a float32
    smooth_l1_loss summed to 7.7632999 here, 7.7633009 in PyTorch)."""
    if torch is None:
        pytest.skip("PyTorch is not installed")
    x = [[1.53, 0.79, 0.57, 0.75], [1.24, 0.63, 1.26, -0.3], [-1.61, 0.38, 0.17, 1.37]]
    values = []
    for m in (al, torch):
        v0 = m.tensor(x, dtype=m.float64).float()
        values.append(m.nn.functional.smooth_l1_loss(v0, m.zeros_like(v0), beta=0.5, reduction="sum").item())
    assert values[0] == values[1] == 7.763300895690918
    rng = np.random.default_rng(1)
    for shape, dim in [((1000,), None), ((64, 10), 1), ((64, 10), 0), ((5, 7, 9), (0, 2)), ((32,), 0)]:
        x = rng.standard_normal(shape).astype(np.float32)
        for op in ("sum", "mean"):
            got = getattr(al.tensor(x), op)() if dim is None else getattr(al.tensor(x), op)(dim)
            want = getattr(torch.tensor(x), op)() if dim is None else getattr(torch.tensor(x), op)(dim)
            assert np.array_equal(got.numpy(), want.numpy()), (shape, dim, op)


@pytest.mark.torch
def test_one_short_row_takes_the_few_step_path_with_the_same_bits():
    """A loss's sum or mean (one row of 4 to 63 vectors) has a path of its own with fewer NumPy calls:
    every length from 1 to 699, float32 and float64, with and without keepdim, equals PyTorch's."""
    if torch is None:
        pytest.skip("PyTorch is not installed")
    rng = np.random.default_rng(3)
    differ = 0
    for n in range(1, 700):
        for dtype in (np.float32, np.float64):
            x = rng.standard_normal(n).astype(dtype)
            for keepdim in (False, True):
                got, want = torch_sum(x, (0,), keepdim), torch.tensor(x).sum(0, keepdim=keepdim).numpy()
                differ += not (got.shape == want.shape and np.array_equal(got, want))
            y = x.reshape(1, n, 1)
            differ += not np.array_equal(torch_sum(y, (1,)), torch.tensor(y).sum(1).numpy())
    assert differ == 0
