"""Handwritten digits: 1797 images of 8x8 pixels, labels 0-9, shipped with the package (offline).

The data are scikit-learn's bundled copy of the UCI "Optical Recognition of Handwritten Digits" test
set (see ``DIGITS_LICENSE.txt``). Each image is a row of 64 pixel counts in 0..16; ``view(-1, 8, 8)``
gives the pictures back.

The train/test split is fixed once and for all: 360 test images, stratified (every digit keeps its
share, within one image), chosen by a hash of each image's index, so the split is the same on every
machine and with every NumPy version.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import io
from importlib import resources

import numpy as np

from ..tensor import Tensor

N_SAMPLES = 1797
N_TEST = 360
_SPLIT_KEY = "autograd-lab/digits/v1"


@functools.lru_cache(maxsize=1)
def _raw() -> tuple[np.ndarray, np.ndarray]:
    """The 1797 images (uint8, 0..16) and labels (int64), read once; read-only."""
    packed = resources.files(__package__).joinpath("digits.csv.gz").read_bytes()
    table = np.loadtxt(io.StringIO(gzip.decompress(packed).decode("ascii")), delimiter=",", dtype=np.int64)
    images = table[:, :-1].astype(np.uint8)
    labels = table[:, -1].copy()
    images.setflags(write=False)
    labels.setflags(write=False)
    return images, labels


def _rank(i: int) -> bytes:
    return hashlib.sha256(f"{_SPLIT_KEY}:{i}".encode()).digest()


@functools.lru_cache(maxsize=1)
def _split() -> tuple[np.ndarray, np.ndarray]:
    _, labels = _raw()
    classes, counts = np.unique(labels, return_counts=True)
    # largest remainder: each class gets its share of the N_TEST test images, the total exactly N_TEST
    exact = counts * N_TEST / labels.size
    quota = np.floor(exact).astype(int)
    by_remainder = sorted(range(len(classes)), key=lambda k: (-(exact[k] - quota[k]), k))
    for k in by_remainder[: N_TEST - int(quota.sum())]:
        quota[k] += 1
    test: list[int] = []
    for c, q in zip(classes, quota):
        members = sorted(np.flatnonzero(labels == c).tolist(), key=_rank)
        test += members[:q]
    test_idx = np.array(sorted(test), dtype=np.int64)
    train_idx = np.setdiff1d(np.arange(labels.size), test_idx).astype(np.int64)
    train_idx.setflags(write=False)
    test_idx.setflags(write=False)
    return train_idx, test_idx


def split_indices(split: str) -> np.ndarray:
    """The (sorted, fixed) indices into the 1797 images of the ``"train"`` or ``"test"`` split."""
    train_idx, test_idx = _split()
    if split == "train":
        return train_idx.copy()
    if split == "test":
        return test_idx.copy()
    raise ValueError(f"split must be 'train' or 'test', got {split!r}")


def load_digits(split: str | None = None, normalize: bool = True) -> tuple[Tensor, Tensor]:
    """The digits as ``(X, y)``: X float32 of shape (N, 64), y int64 class labels of shape (N,).

    ``split``: ``"train"`` (1437 images), ``"test"`` (360 images) or None (all 1797, in the original
    order). ``normalize``: pixels divided by 16 into [0, 1] (else the raw counts 0..16, as floats).
    Every call returns fresh tensors, safe to change.
    """
    images, labels = _raw()
    if split is None:
        idx = np.arange(labels.size)
    elif split in ("train", "test"):
        idx = split_indices(split)
    else:
        raise ValueError(f"split must be 'train', 'test' or None, got {split!r}")
    x = images[idx].astype(np.float32)
    if normalize:
        x /= np.float32(16.0)
    return Tensor._make(x), Tensor._make(labels[idx].copy())


__all__ = ["N_SAMPLES", "N_TEST", "load_digits", "split_indices"]
