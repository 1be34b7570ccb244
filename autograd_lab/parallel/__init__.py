"""Parallel training: a process group with ``torch.distributed``'s API, on worker processes of this
machine (``"local"``, shared memory) or on PyTorch's ``torch.distributed`` (``"gloo"``).

The modules, in reading order: ``ring.py`` (the ring all-reduce, as pure functions and a simulation),
``group.py`` (the API), ``local.py`` and ``torch_backend.py`` (the two backends), ``launch.py``
(starting and watching worker processes), ``data_parallel.py`` (sharding a batch and combining the
gradients), ``example.py`` (a training script for ``python -m`` and ``torchrun``).

    from autograd_lab import parallel

    def work(rank, world_size):
        t = autograd_lab.tensor([float(rank)])
        parallel.all_reduce(t)            # every rank: 0 + 1 + ... + (world_size - 1)
        return t.item()

    parallel.launch(work, world_size=2)   # [1.0, 1.0]
"""

from .data_parallel import DataParallel, shard
from .group import (
    all_reduce,
    barrier,
    broadcast,
    destroy_process_group,
    get_backend,
    get_rank,
    get_world_size,
    init_process_group,
    is_gloo_available,
    is_initialized,
    rank,
    world_size,
)
from .launch import WorkerError, launch, limit_threads
from .reduce_op import ReduceOp

__all__ = [
    "DataParallel",
    "ReduceOp",
    "WorkerError",
    "all_reduce",
    "barrier",
    "broadcast",
    "destroy_process_group",
    "get_backend",
    "get_rank",
    "get_world_size",
    "init_process_group",
    "is_gloo_available",
    "is_initialized",
    "launch",
    "limit_threads",
    "rank",
    "shard",
    "world_size",
]
