"""Data parallelism: every rank holds a replica of the model and computes the gradient of its shard of
the batch; an all-reduce combines the gradients, so every replica takes the same step.

Why it is exact: the gradient of a mean loss over ``N`` samples is the mean of the per-sample
gradients, and a mean over the whole batch is the weighted sum of the shards' means,
``sum_r (n_r / N) * mean_r``. With equal shards the weights are ``1 / p``: an all-reduce ``AVG``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from ..grad_mode import no_grad
from ..tensor import Tensor
from . import group
from .reduce_op import ReduceOp
from .ring import chunk_bounds


def _rank_and_size(rank: int | None, world_size: int | None) -> tuple[int, int]:
    if rank is None or world_size is None:
        initialized = group.is_initialized()
        rank = rank if rank is not None else (group.get_rank() if initialized else 0)
        world_size = world_size if world_size is not None else (group.get_world_size() if initialized else 1)
    if not 0 <= rank < world_size:
        raise ValueError(f"rank must be in 0..{world_size - 1}, got {rank}")
    return rank, world_size


def shard(batch: Any, rank: int | None = None, world_size: int | None = None) -> Any:
    """This rank's contiguous part of ``batch`` along the first dimension (a view, not a copy).

    The ``world_size`` parts cover the batch in order and differ in length by at most one, as
    ``np.array_split`` cuts. ``rank`` and ``world_size`` default to the process group's (0 and 1
    outside a group). PyTorch's ``DistributedSampler`` deals out indices in the same spirit.
    """
    rank, world_size = _rank_and_size(rank, world_size)
    lo, hi = chunk_bounds(len(batch), world_size)[rank]
    return batch[lo:hi]


class DataParallel:
    """Data-parallel training inside a worker process: the idea of
    ``torch.nn.parallel.DistributedDataParallel``, with the all-reduce made explicit.

    ``model`` is a module (anything with ``.parameters()``) or a list of parameter tensors. At
    construction rank 0's parameters are broadcast, so that all replicas start equal. Then per batch::

        dp = DataParallel(model)
        loss = dp.forward_backward(loss_fn, x, y)  # loss_fn(x_shard, y_shard) -> mean loss of the shard
        optimizer.step()                           # every rank now has the full-batch gradient

    Every rank must pass the same whole batch (the same data, e.g. from the same seed); each uses
    its own shard of it.
    """

    def __init__(self, model: Any, *, broadcast_parameters: bool = True, algorithm: str | None = None):
        self.module = model
        params = model.parameters() if hasattr(model, "parameters") else model
        self._params: list[Tensor] = list(params)
        for p in self._params:
            if not isinstance(p, Tensor):
                raise TypeError(f"DataParallel needs tensors as parameters, got {type(p).__name__}")
        self.algorithm = algorithm
        if broadcast_parameters and group.is_initialized() and group.get_world_size() > 1:
            for bucket, members in self._buckets(lambda p: p._data):
                group.broadcast(bucket, src=0)
                self._unpack(bucket, members, lambda p, v: np.copyto(p._data, v))

    def parameters(self) -> list[Tensor]:
        return list(self._params)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.module(*args, **kwargs)

    def shard(self, *tensors: Any) -> Any:
        """This rank's shard of each tensor (see :func:`shard`); one tensor gives one shard."""
        shards = tuple(shard(t) for t in tensors)
        return shards[0] if len(shards) == 1 else shards

    def forward_backward(self, loss_fn: Callable[..., Tensor], *batch: Any) -> float:
        """Shard ``batch``, run ``loss_fn`` on this rank's shard and ``backward()``, then combine the
        gradients over the ranks. Afterwards every rank's ``.grad`` is the gradient of the mean loss over
        the whole batch, as one process computing it alone would get. Returns that whole-batch loss.

        ``loss_fn(*shards)`` must return the *mean* loss over its shard.
        """
        if not batch:
            raise TypeError("forward_backward needs the batch: forward_backward(loss_fn, x, y, ...)")
        n = len(batch[0])
        if any(len(b) != n for b in batch):
            raise ValueError(f"every part of the batch must have the same length: {[len(b) for b in batch]}")
        shards = tuple(shard(b) for b in batch)
        n_local = len(shards[0])
        loss_value = 0.0
        if n_local:
            loss = loss_fn(*shards)
            loss.backward()
            loss_value = float(loss.item())
        return self.sync_gradients(weight=n_local / n if n else 0.0, loss=loss_value)

    def sync_gradients(self, weight: float | None = None, loss: float = 0.0) -> float:
        """All-reduce the gradients of the parameters, in place, in one bucket per dtype.

        ``weight=None``: the average over the ranks (what DistributedDataParallel does: exact for
        equal shards). With a weight (``n_local / N``): the weighted sum, exact for any shard sizes.
        Returns the same combination of ``loss``. Missing gradients count as zeros.
        """
        world = group.get_world_size() if group.is_initialized() else 1
        buckets = self._buckets(lambda p: p._grad._data if p._grad is not None else np.zeros_like(p._data))
        # the loss rides along as one more element of a floating-point bucket: one all-reduce per dtype
        carrier = next((i for i, (b, _) in enumerate(buckets) if b.dtype.kind == "f"), None)
        if carrier is None:
            buckets.append((np.zeros(0), []))
            carrier = len(buckets) - 1
        bucket, members = buckets[carrier]
        buckets[carrier] = (np.append(bucket, bucket.dtype.type(loss)), members)
        for bucket, members in buckets:
            if weight is None:
                if world > 1:
                    group.all_reduce(bucket, ReduceOp.AVG, algorithm=self.algorithm)
            else:
                bucket *= weight
                if world > 1:
                    group.all_reduce(bucket, ReduceOp.SUM, algorithm=self.algorithm)
            self._unpack(bucket, members, _set_grad)
        return float(buckets[carrier][0][-1])

    def _buckets(self, values: Callable[[Tensor], np.ndarray]) -> list[tuple[np.ndarray, list[Tensor]]]:
        by_dtype: dict[np.dtype, list[Tensor]] = {}
        for p in self._params:
            by_dtype.setdefault(p._data.dtype, []).append(p)
        return [(np.concatenate([values(p).reshape(-1) for p in members]).astype(dtype, copy=False), members)
                for dtype, members in sorted(by_dtype.items(), key=lambda kv: kv[0].str)]

    @staticmethod
    def _unpack(bucket: np.ndarray, members: Iterable[Tensor],
                put: Callable[[Tensor, np.ndarray], Any]) -> None:
        start = 0
        for p in members:
            size = p._data.size
            put(p, bucket[start:start + size].reshape(p._data.shape))
            start += size


def _set_grad(p: Tensor, value: np.ndarray) -> None:
    with no_grad():
        if p._grad is None:
            p._grad = Tensor._make(value.copy())
        else:
            np.copyto(p._grad._data, value)
