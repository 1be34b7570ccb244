"""The process group: which worker am I, how many are we, and the collectives -- ``torch.distributed``'s API.

Every worker process runs the same program and calls the same collectives in the same order:

==========================================  ==========================================
``autograd_lab.parallel``                   ``torch.distributed``
==========================================  ==========================================
``init_process_group("gloo")``              ``init_process_group("gloo")``
``get_rank()`` (alias ``rank()``)           ``get_rank()``
``get_world_size()`` (``world_size()``)     ``get_world_size()``
``all_reduce(t, op=ReduceOp.SUM)``          ``all_reduce(t, op=ReduceOp.SUM)``
``broadcast(t, src=0)``                     ``broadcast(t, src=0)``
``barrier()``                               ``barrier()``
``destroy_process_group()``                 ``destroy_process_group()``
==========================================  ==========================================

Two backends: ``"local"``, worker processes on this machine started by
:func:`autograd_lab.parallel.launch` and talking through shared memory, and ``"gloo"``, PyTorch's
``torch.distributed`` (where PyTorch is installed), which takes the same program across machines
with ``torchrun``.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from ..tensor import Tensor
from .reduce_op import ReduceOp, as_reduce_op, check_dtype
from .torch_backend import TorchBackend

_NOT_INITIALIZED = (
    "Default process group has not been initialized, please make sure to call init_process_group."
)


class Backend(Protocol):
    """What a backend does for this process; every array is flat, C-contiguous and writable."""

    name: str
    rank: int
    world_size: int

    def all_reduce(self, data: np.ndarray, op: ReduceOp, algorithm: str | None) -> None: ...

    def broadcast(self, data: np.ndarray, src: int) -> None: ...

    def barrier(self) -> None: ...

    def close(self) -> None: ...


class _SingleProcess:
    """A group of one: every collective leaves the data as it is."""

    name = "local"
    rank = 0
    world_size = 1

    def all_reduce(self, data: np.ndarray, op: ReduceOp, algorithm: str | None) -> None:
        pass

    def broadcast(self, data: np.ndarray, src: int) -> None:
        pass

    def barrier(self) -> None:
        pass

    def close(self) -> None:
        pass


_backend: Backend | None = None


def init_process_group(
    backend: str = "local", *, rank: int | None = None, world_size: int | None = None, timeout: float = 60.0
) -> None:
    """Join the default process group (``torch.distributed.init_process_group``).

    ``backend="gloo"`` (or ``"torch"``) uses ``torch.distributed``: ``rank`` and ``world_size``
    default to the environment variables ``RANK`` and ``WORLD_SIZE`` and the rendezvous is at
    ``MASTER_ADDR:MASTER_PORT``, all of which ``torchrun`` sets. ``backend="local"`` here makes a
    group of one process; groups of several local processes are made by
    :func:`autograd_lab.parallel.launch`, which starts the processes. ``timeout`` (seconds) is how
    long a collective waits for the other ranks before it fails.
    """
    global _backend
    if _backend is not None:
        raise RuntimeError("trying to initialize the default process group twice!")
    if backend in ("gloo", "torch"):
        _backend = TorchBackend(rank=rank, world_size=world_size, timeout=timeout)
    elif backend == "local":
        if world_size not in (None, 1) or rank not in (None, 0):
            raise RuntimeError(
                "the local backend's worker processes are started by autograd_lab.parallel.launch("
                "fn, world_size), which also sets up their group; init_process_group('local') alone "
                "makes a group of one process (rank 0, world size 1)"
            )
        _backend = _SingleProcess()
    else:
        raise ValueError(f"unknown backend {backend!r}: expected 'local' or 'gloo'")


def _set_backend(backend: Backend) -> None:
    """Install the group of a worker started by :func:`launch`."""
    global _backend
    if _backend is not None:
        _backend.close()
    _backend = backend


def destroy_process_group() -> None:
    """Leave the group and free what it holds (``torch.distributed.destroy_process_group``)."""
    global _backend
    backend, _backend = _backend, None
    if backend is not None:
        backend.close()


def is_initialized() -> bool:
    """Whether this process is in a group (``torch.distributed.is_initialized``)."""
    return _backend is not None


def is_gloo_available() -> bool:
    """Whether the ``"gloo"`` backend can be used: PyTorch with ``torch.distributed`` is installed."""
    try:
        import torch.distributed as dist
    except ImportError:
        return False
    return bool(dist.is_available() and dist.is_gloo_available())


def _require() -> Backend:
    if _backend is None:
        raise ValueError(_NOT_INITIALIZED)
    return _backend


def get_backend() -> str:
    """``"local"`` or ``"gloo"`` (``torch.distributed.get_backend``)."""
    return _require().name


def get_rank() -> int:
    """This process's number in the group, ``0 .. world_size - 1`` (``torch.distributed.get_rank``)."""
    return _require().rank


def get_world_size() -> int:
    """How many processes the group has (``torch.distributed.get_world_size``)."""
    return _require().world_size


rank = get_rank
world_size = get_world_size


def _flat(data: np.ndarray) -> tuple[np.ndarray, bool]:
    """A flat, contiguous, writable array for the backend, and whether it is a copy to write back."""
    if data.flags.c_contiguous and data.flags.writeable:
        return data.reshape(-1), False
    return np.ascontiguousarray(data).reshape(-1).copy(), True


def _array_of(tensor: Tensor | np.ndarray) -> np.ndarray:
    if isinstance(tensor, Tensor):
        return tensor._data
    if isinstance(tensor, np.ndarray):
        return tensor
    raise TypeError(f"expected a Tensor or a NumPy array, got {type(tensor).__name__}")


def all_reduce(tensor: Tensor | np.ndarray, op: ReduceOp | str = ReduceOp.SUM, *,
               algorithm: str | None = None) -> None:
    """Combine ``tensor`` across all ranks, in place: afterwards every rank holds, e.g. for
    ``ReduceOp.SUM``, the elementwise sum of all ranks' tensors (``torch.distributed.all_reduce``).

    ``algorithm`` (local backend only): ``"ring"`` (the default) or ``"naive"``; gloo picks its own.
    Like ``torch.distributed``, the write is not recorded by autograd.
    """
    backend = _require()
    op = as_reduce_op(op)
    data = _array_of(tensor)
    check_dtype(op, data.dtype)
    if algorithm not in (None, "ring", "naive"):
        raise ValueError(f"unknown all-reduce algorithm {algorithm!r}: expected 'ring' or 'naive'")
    flat, copied = _flat(data)
    backend.all_reduce(flat, op, algorithm)
    if copied:
        np.copyto(data, flat.reshape(data.shape))


def broadcast(tensor: Tensor | np.ndarray, src: int = 0) -> None:
    """Copy rank ``src``'s ``tensor`` into every other rank's, in place (``torch.distributed.broadcast``)."""
    backend = _require()
    if not 0 <= src < backend.world_size:
        raise ValueError(f"src must be a rank of the group (0..{backend.world_size - 1}), got {src}")
    data = _array_of(tensor)
    flat, copied = _flat(data)
    backend.broadcast(flat, src)
    if copied:
        np.copyto(data, flat.reshape(data.shape))


def barrier() -> None:
    """Wait until every rank has reached this point (``torch.distributed.barrier``)."""
    _require().barrier()
