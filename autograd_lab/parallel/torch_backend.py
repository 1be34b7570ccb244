"""The ``"gloo"`` backend: the collectives done by PyTorch's ``torch.distributed``, where it is installed.

The tensors stay NumPy arrays: ``torch.from_numpy`` wraps the same memory, so ``torch.distributed``
reduces into the array itself. The rendezvous follows ``torchrun``'s environment variables
(``MASTER_ADDR``, ``MASTER_PORT``, ``RANK``, ``WORLD_SIZE``): a script that calls
``init_process_group("gloo")`` runs unchanged on one machine or across several.

PyTorch is imported here only, and only when this backend is asked for: it is never a dependency.
"""

from __future__ import annotations

import os
from datetime import timedelta
from typing import Any

import numpy as np

from .reduce_op import ReduceOp, finish

_NEEDS_TORCH = (
    "the 'gloo' backend runs on PyTorch's torch.distributed, which is not installed here "
    "(pip install torch); the 'local' backend needs nothing more"
)


def _torch() -> tuple[Any, Any]:
    try:
        import torch as real_torch
        import torch.distributed as dist
    except ImportError as e:
        raise RuntimeError(_NEEDS_TORCH) from e
    if not (dist.is_available() and dist.is_gloo_available()):
        raise RuntimeError("this PyTorch build has no torch.distributed with the gloo backend")
    return real_torch, dist


class TorchBackend:
    """This process in a ``torch.distributed`` group with the gloo backend."""

    name = "gloo"

    def __init__(self, rank: int | None = None, world_size: int | None = None, timeout: float = 60.0):
        self._torch, self._dist = _torch()
        dist = self._dist
        self._owned = not dist.is_initialized()
        if self._owned:
            missing = [v for v in ("MASTER_ADDR", "MASTER_PORT") if v not in os.environ]
            for var, given in (("RANK", rank), ("WORLD_SIZE", world_size)):
                if given is None and var not in os.environ:
                    missing.append(var)
            if missing:
                raise RuntimeError(
                    f"init_process_group('gloo') needs the environment variable(s) {', '.join(missing)}: "
                    "start the script with torchrun (torchrun --nproc-per-node 2 script.py), or start "
                    "the workers with autograd_lab.parallel.launch(fn, world_size, backend='gloo')"
                )
            dist.init_process_group("gloo", init_method="env://", rank=-1 if rank is None else rank,
                                    world_size=-1 if world_size is None else world_size,
                                    timeout=timedelta(seconds=timeout))
        self.rank = dist.get_rank()
        self.world_size = dist.get_world_size()
        self._ops = {
            ReduceOp.SUM: dist.ReduceOp.SUM,
            ReduceOp.AVG: dist.ReduceOp.SUM,  # summed, then divided here: not every gloo has AVG
            ReduceOp.MAX: dist.ReduceOp.MAX,
            ReduceOp.MIN: dist.ReduceOp.MIN,
            ReduceOp.PRODUCT: dist.ReduceOp.PRODUCT,
        }

    def all_reduce(self, data: np.ndarray, op: ReduceOp, algorithm: str | None) -> None:
        # `algorithm` is the local backend's choice; gloo picks its own (ring-based) algorithms.
        self._dist.all_reduce(self._torch.from_numpy(data), op=self._ops[op])
        finish(op, data, self.world_size)

    def broadcast(self, data: np.ndarray, src: int) -> None:
        self._dist.broadcast(self._torch.from_numpy(data), src=src)

    def barrier(self) -> None:
        self._dist.barrier()

    def close(self) -> None:
        if self._owned and self._dist.is_initialized():
            self._dist.destroy_process_group()
