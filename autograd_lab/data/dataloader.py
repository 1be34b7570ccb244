"""``DataLoader``: batches of samples from a data set, in order or shuffled (``torch.utils.data``).

A loader draws indices from a *sampler* (in order, or a random permutation per epoch), groups them
into batches (``BatchSampler``), fetches the samples and *collates* them: a list of ``(x, y)`` pairs
becomes ``[stack of x, stack of y]``.
"""

from __future__ import annotations

import collections.abc
import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from .. import dtypes
from ..creation import as_tensor, randint, randperm, tensor
from ..ops.shape import stack
from ..random import Generator, _generator
from ..tensor import Tensor
from .dataset import Dataset, TensorDataset

_COLLATE_ERROR = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"
)


# ---------------------------------------------------------------------------- samplers
class Sampler:
    """Base class of index orders: ``__iter__`` yields indices (or lists of indices)."""

    def __iter__(self) -> Iterator[Any]:
        raise NotImplementedError


class SequentialSampler(Sampler):
    """0, 1, 2, ... in order."""

    def __init__(self, data_source: Any) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler):
    """A new random order every epoch, drawn from ``generator``.

    Without a generator, each epoch seeds a fresh one from the global generator, as PyTorch does:
    ``manual_seed`` then makes every epoch's order reproducible.
    """

    def __init__(self, data_source: Any, replacement: bool = False, num_samples: int | None = None,
                 generator: Generator | None = None) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(
                f"num_samples should be a positive integer value, but got num_samples={self.num_samples}"
            )

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        generator = self.generator
        if generator is None:  # as PyTorch: torch.empty((), dtype=torch.int64).random_()
            generator = Generator().manual_seed(_generator(None).random_int64())
        if self.replacement:
            yield from randint(0, n, (self.num_samples,), generator=generator).tolist()
            return
        for _ in range(self.num_samples // n):
            yield from randperm(n, generator=generator).tolist()
        yield from randperm(n, generator=generator).tolist()[: self.num_samples % n]

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler):
    """Groups the indices of ``sampler`` into lists of ``batch_size`` (the last one may be shorter,
    unless ``drop_last``)."""

    def __init__(self, sampler: Sampler | Iterable[int], batch_size: int, drop_last: bool) -> None:
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size <= 0:
            raise ValueError(
                f"batch_size should be a positive integer value, but got batch_size={batch_size}"
            )
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list[int]]:
        batch: list[int] = []
        for idx in self.sampler:
            batch.append(idx)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        n = len(self.sampler)  # type: ignore[arg-type]
        return n // self.batch_size if self.drop_last else math.ceil(n / self.batch_size)


# ---------------------------------------------------------------------------- collation
def default_convert(data: Any) -> Any:
    """Without batching: NumPy arrays become tensors, containers are converted element by element."""
    if isinstance(data, np.ndarray) and data.dtype.kind not in "OSU":
        return as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return {k: default_convert(v) for k, v in data.items()}
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return [default_convert(d) for d in data]
    return data


def default_collate(batch: Sequence[Any]) -> Any:
    """Merge a list of samples into a batch, as PyTorch's ``default_collate``.

    Tensors are stacked along a new first dimension; NumPy arrays become tensors first; Python ints give
    int64, Python floats float64 (as in PyTorch); strings stay a list; dicts, tuples and lists are
    collated field by field (a tuple of fields comes back as a list).
    """
    elem = batch[0]
    if isinstance(elem, Tensor):
        return stack(list(batch), 0)
    if isinstance(elem, np.ndarray):
        if elem.dtype.kind in "OSU":
            raise TypeError(_COLLATE_ERROR.format(elem.dtype))
        return default_collate([as_tensor(b) for b in batch])
    if isinstance(elem, np.generic):
        return as_tensor(np.array(batch))
    if isinstance(elem, float):
        return tensor(list(batch), dtype=dtypes.float64)
    if isinstance(elem, int):
        return tensor(list(batch))
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        return {key: default_collate([d[key] for d in batch]) for key in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return type(elem)(*(default_collate(samples) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if any(len(e) != size for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        return [default_collate(samples) for samples in zip(*batch)]
    raise TypeError(_COLLATE_ERROR.format(type(elem)))


# ---------------------------------------------------------------------------- the loader
class DataLoader:
    """Iterate over a data set in batches (``torch.utils.data.DataLoader``).

    ``batch_size`` samples per batch (``None``: samples one by one, unbatched); ``shuffle=True`` draws
    a new order every epoch (from ``generator`` if given); ``drop_last`` drops a last, incomplete
    batch. ``len(loader)`` is the number of batches.

    Samples are loaded in the calling process: ``num_workers`` is accepted for compatibility and
    ignored (there are no worker processes here).
    """

    def __init__(
        self,
        dataset: Dataset | Sequence[Any],
        batch_size: int | None = 1,
        shuffle: bool | None = None,
        sampler: Sampler | Iterable[int] | None = None,
        batch_sampler: Sampler | Iterable[Sequence[int]] | None = None,
        num_workers: int = 0,
        collate_fn: Callable[[list[Any]], Any] | None = None,
        pin_memory: bool = False,
        drop_last: bool = False,
        timeout: float = 0,
        worker_init_fn: Callable[[int], None] | None = None,
        multiprocessing_context: Any = None,
        generator: Generator | None = None,
        *,
        prefetch_factor: int | None = None,
        persistent_workers: bool = False,
        pin_memory_device: str = "",
        in_order: bool = True,
    ) -> None:
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable "
                             "multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, "
                                 "sampler, and drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with "
                             "drop_last")
        if sampler is None:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.dataset = dataset
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.num_workers = num_workers
        self.generator = generator
        self.timeout = timeout
        self.pin_memory = pin_memory
        self.collate_fn = collate_fn if collate_fn is not None else (
            default_collate if batch_sampler is not None else default_convert
        )

    def __iter__(self) -> Iterator[Any]:
        # PyTorch's iterator draws a base seed for worker processes as it is made; drawing it too
        # keeps every random number after it equal to PyTorch's
        _generator(self.generator).random_int64()
        return self._batches()

    def _batches(self) -> Iterator[Any]:
        if self.batch_sampler is None:
            for idx in self.sampler:
                yield self.collate_fn(self.dataset[idx])
            return
        fast = self.collate_fn is default_collate and type(self.dataset) is TensorDataset
        for indices in self.batch_sampler:
            if fast:
                # the same batch default_collate would stack from single samples, by one indexing
                rows = Tensor._make(np.asarray(indices, dtype=np.int64))
                yield [t[rows] for t in self.dataset.tensors]
            elif hasattr(self.dataset, "__getitems__"):
                yield self.collate_fn(self.dataset.__getitems__(indices))
            else:
                yield self.collate_fn([self.dataset[i] for i in indices])

    def __len__(self) -> int:
        if self.batch_sampler is not None:
            return len(self.batch_sampler)  # type: ignore[arg-type]
        return len(self.sampler)  # type: ignore[arg-type]


__all__ = [
    "BatchSampler", "DataLoader", "RandomSampler", "Sampler", "SequentialSampler", "default_collate",
    "default_convert",
]
