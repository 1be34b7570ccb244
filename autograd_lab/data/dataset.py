"""Data sets: indexable collections of samples (``torch.utils.data.Dataset`` and friends).

A map-style data set is anything with ``__getitem__(i)`` and ``__len__``; a sample is usually a tuple
``(input, target)``. :class:`TensorDataset` wraps tensors whose first dimension indexes samples.
"""

from __future__ import annotations

import bisect
import math
import warnings
from collections.abc import Sequence
from typing import Any, Generic, TypeVar

from ..creation import randperm
from ..random import Generator, default_generator
from ..tensor import Tensor

T_co = TypeVar("T_co", covariant=True)


class Dataset(Generic[T_co]):
    """Base class of map-style data sets: subclass it and define ``__getitem__`` and ``__len__``."""

    def __getitem__(self, index: Any) -> T_co:
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other: Dataset[T_co]) -> ConcatDataset[T_co]:
        return ConcatDataset([self, other])


class TensorDataset(Dataset[tuple[Tensor, ...]]):
    """Samples are rows: ``dataset[i]`` is ``(t[i] for t in tensors)`` (``TensorDataset(X, y)``)."""

    def __init__(self, *tensors: Tensor) -> None:
        if not all(tensors[0].size(0) == t.size(0) for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index: Any) -> tuple[Tensor, ...]:
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].size(0)


class Subset(Dataset[T_co]):
    """The samples of ``dataset`` at ``indices``, in that order."""

    def __init__(self, dataset: Dataset[T_co], indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx: Any) -> T_co:
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __len__(self) -> int:
        return len(self.indices)


class ConcatDataset(Dataset[T_co]):
    """Several data sets one after another."""

    def __init__(self, datasets: Sequence[Dataset[T_co]]) -> None:
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        self.cumulative_sizes: list[int] = []
        total = 0
        for d in self.datasets:
            total += len(d)  # type: ignore[arg-type]
            self.cumulative_sizes.append(total)

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx: int) -> T_co:
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        start = self.cumulative_sizes[which - 1] if which > 0 else 0
        return self.datasets[which][idx - start]


def random_split(dataset: Dataset[T_co], lengths: Sequence[int | float],
                 generator: Generator | None = default_generator) -> list[Subset[T_co]]:
    """Split into non-overlapping random subsets of the given lengths (or fractions summing to 1)."""
    n = len(dataset)  # type: ignore[arg-type]
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        sizes = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            sizes.append(int(math.floor(n * frac)))
        for i in range(n - sum(sizes)):
            sizes[i % len(sizes)] += 1
        for i, size in enumerate(sizes):
            if size == 0:
                warnings.warn(f"Length of split at index {i} is 0. This might result in an empty dataset.",
                              UserWarning, stacklevel=2)
        lengths = sizes
    if sum(lengths) != n:
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    indices = randperm(int(sum(lengths)), generator=generator).tolist()
    out, offset = [], 0
    for length in lengths:
        out.append(Subset(dataset, indices[offset:offset + int(length)]))
        offset += int(length)
    return out


__all__ = ["ConcatDataset", "Dataset", "Subset", "TensorDataset", "random_split"]
