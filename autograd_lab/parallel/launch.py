"""``launch``: run a function in several worker processes, each a rank of a process group.

The counterpart of ``torch.multiprocessing.spawn`` (and, for one machine, of ``torchrun``). The parent
starts the workers, waits for their results and watches them: a worker that raises, exits or is
killed, or a run that takes longer than ``run_timeout``, stops every worker and raises
:class:`WorkerError` in the parent. No worker outlives ``launch``: they are terminated (then killed)
on every way out, and on Linux each worker also dies with its parent if the parent is killed.

Functions defined in a notebook (or a script's ``__main__``) work with every start method. ``"fork"``
(Linux's default) copies the parent, functions included. ``"spawn"`` (the default on macOS and
Windows) starts a fresh interpreter, which imports the function by its module and name: a function of
``__main__`` is not there (``AttributeError: Can't get attribute 'hello' on <module '__main__'>``).
So with ``"spawn"`` and ``"forkserver"`` ``launch`` serialises ``fn``, ``args`` and ``kwargs`` with
``cloudpickle``, as joblib (loky), Dask and Ray do: a function of ``__main__`` travels by value, with
the ``__main__`` functions and values it uses; modules and importable functions by reference. The
results come back the same way. ``AUTOGRAD_LAB_START_METHOD=spawn`` makes spawn the default on Linux
too, to try what a Mac does.
"""

from __future__ import annotations

import ctypes
import multiprocessing as mp
import multiprocessing.connection
import os
import pickle
import signal
import socket
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from typing import Any

import cloudpickle

from . import group
from .local import LocalGroup
from .torch_backend import TorchBackend, _torch

DEFAULT_BUFFER_BYTES = 16 * 2**20


class WorkerError(RuntimeError):
    """A worker failed: it raised (``remote_traceback`` is its traceback), exited or was killed
    (``exitcode``), or did not finish in time. ``rank`` is the worker's rank (None for a timeout)."""

    def __init__(self, message: str, rank: int | None = None, exitcode: int | None = None,
                 remote_traceback: str | None = None):
        super().__init__(message)
        self.rank, self.exitcode, self.remote_traceback = rank, exitcode, remote_traceback


class _TorchGroup:
    """The rendezvous of a gloo group on this machine: what torchrun would put in the environment."""

    def __init__(self) -> None:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]

    def connect(self, rank: int, world_size: int, timeout: float, algorithm: str) -> group.Backend:
        os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(self.port), RANK=str(rank),
                          WORLD_SIZE=str(world_size), LOCAL_RANK=str(rank),
                          LOCAL_WORLD_SIZE=str(world_size))
        return TorchBackend(rank=rank, world_size=world_size, timeout=timeout)

    def unlink(self) -> None:
        pass


START_METHOD_VARIABLE = "AUTOGRAD_LAB_START_METHOD"


def default_start_method() -> str:
    """``$AUTOGRAD_LAB_START_METHOD`` if set, else ``"fork"`` on Linux and ``"spawn"`` elsewhere (as
    ``multiprocessing`` does; fork is unsafe on macOS)."""
    chosen = os.environ.get(START_METHOD_VARIABLE)
    if chosen:
        if chosen not in mp.get_all_start_methods():
            raise ValueError(f"{START_METHOD_VARIABLE}={chosen!r}: expected one of "
                             f"{', '.join(mp.get_all_start_methods())}")
        return chosen
    return "fork" if sys.platform.startswith("linux") else "spawn"


class _ByValue:
    """``fn``, ``args`` and ``kwargs`` serialised with cloudpickle for a fresh interpreter (spawn,
    forkserver), so that functions defined in a notebook's ``__main__`` reach the workers."""

    def __init__(self, fn: Callable[..., Any], args: tuple, kwargs: dict) -> None:
        try:
            self.payload = cloudpickle.dumps((fn, args, kwargs))
        except Exception as e:
            raise WorkerError(
                f"cannot send the worker function and its arguments to new processes (start method "
                f"'spawn'): {type(e).__name__}: {e}. Everything fn uses (its arguments, and the "
                "notebook's variables it reads) must be picklable: no open files, locks or generators."
            ) from e

    def load(self) -> tuple[Callable[..., Any], tuple, dict]:
        return pickle.loads(self.payload)  # cloudpickle's output needs only pickle (and cloudpickle) to load

    @staticmethod
    def dumps(message: tuple[str, Any]) -> bytes:
        return cloudpickle.dumps(message)


def launch(
    fn: Callable[..., Any],
    world_size: int,
    args: Sequence[Any] = (),
    kwargs: dict[str, Any] | None = None,
    *,
    backend: str = "local",
    algorithm: str = "ring",
    timeout: float = 60.0,
    run_timeout: float | None = None,
    start_method: str | None = None,
    buffer_bytes: int = DEFAULT_BUFFER_BYTES,
    threads: int | None = 1,
) -> list[Any]:
    """Run ``fn(rank, world_size, *args, **kwargs)`` in ``world_size`` new processes, each in the group;
    return their results, by rank.

    - ``backend``: ``"local"`` (shared memory, this machine) or ``"gloo"`` (``torch.distributed``,
      needs PyTorch; the rendezvous is on 127.0.0.1).
    - ``algorithm``: the local backend's default all-reduce, ``"ring"`` or ``"naive"``.
    - ``timeout``: seconds a collective waits for the other ranks before it fails (naming them).
    - ``run_timeout``: seconds the whole run may take (None: no limit).
    - ``start_method``: ``"fork"`` (default on Linux), ``"spawn"`` (default on macOS and Windows) or
      ``"forkserver"``; None: :func:`default_start_method`. With spawn and forkserver ``fn`` and its
      arguments travel by cloudpickle, so a function defined in a notebook works everywhere.
    - ``buffer_bytes``: the size of each rank's shared-memory mailbox (larger data goes in pieces).
    - ``threads``: the BLAS (and PyTorch) threads of each worker; 1, as ``torchrun`` sets
      ``OMP_NUM_THREADS=1``, makes a worker one core. None leaves them as they are.

    A worker that raises, exits or is killed, or a run over ``run_timeout``, stops all workers and
    raises :class:`WorkerError` naming the rank (with the worker's traceback).
    """
    if world_size < 1:
        raise ValueError(f"world_size must be at least 1, got {world_size}")
    if algorithm not in ("ring", "naive"):
        raise ValueError(f"unknown all-reduce algorithm {algorithm!r}: expected 'ring' or 'naive'")
    ctx = mp.get_context(start_method or default_start_method())
    if ctx.get_start_method() == "fork":
        work, args, kwargs = fn, tuple(args), dict(kwargs or {})
    else:  # a fresh interpreter: fn and its arguments travel by value, in one cloudpickle payload
        work, args, kwargs = _ByValue(fn, tuple(args), dict(kwargs or {})), (), {}
    if backend == "local":
        setup: Any = LocalGroup.create(world_size, buffer_bytes, ctx)
    elif backend in ("gloo", "torch"):
        _torch()  # fail here, once, if PyTorch is missing
        setup = _TorchGroup()
    else:
        raise ValueError(f"unknown backend {backend!r}: expected 'local' or 'gloo'")
    procs: list[Any] = []
    readers: list[Any] = []
    finished = False
    try:
        for rank in range(world_size):
            reader, writer = ctx.Pipe(duplex=False)
            proc = ctx.Process(
                target=_worker,
                args=(rank, world_size, work, args, kwargs, writer, setup, timeout,
                      algorithm, threads, None if ctx.get_start_method() == "forkserver" else os.getpid()),
                name=f"autograd_lab-rank{rank}",
            )
            try:
                proc.start()
            except (pickle.PicklingError, AttributeError, TypeError) as e:
                raise WorkerError(
                    f"cannot start the workers with start_method={ctx.get_start_method()!r}: {e}. "
                    "What the workers share (the process group's shared memory) could not be passed on.",
                    rank=rank) from e
            finally:
                writer.close()
            procs.append(proc)
            readers.append(reader)
        results = _collect(procs, readers, run_timeout)
        finished = True
        return results
    finally:
        _stop(procs, grace=5.0 if finished else 0.0)
        for reader in readers:
            reader.close()
        setup.unlink()


def _collect(procs: list[Any], readers: list[Any], run_timeout: float | None) -> list[Any]:
    """Wait for every worker's result; on the first failure or at the deadline, raise."""
    deadline = None if run_timeout is None else time.monotonic() + run_timeout
    results: dict[int, Any] = {}
    pending = set(range(len(procs)))
    while pending:
        remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
        waitables = [readers[r] for r in pending] + [procs[r].sentinel for r in pending]
        if not mp.connection.wait(waitables, timeout=remaining):
            raise WorkerError(
                f"the run timed out after {run_timeout:g} s (run_timeout): rank(s) {sorted(pending)} had not "
                "finished -- a worker hangs, or waits for one that does; all workers were terminated")
        for r in sorted(pending):
            message = _receive(readers[r], procs[r])
            if message is _RUNNING:
                continue
            if message is None:
                procs[r].join(1)
                raise _death(r, len(procs), procs[r].exitcode)
            if isinstance(message, bytes):  # a worker started by spawn: cloudpickled
                message = pickle.loads(message)
            status, payload = message
            if status != "ok":
                raise WorkerError(
                    f"rank {r} of {len(procs)} raised an exception (all workers were stopped). "
                    f"The worker's traceback:\n{payload}", rank=r, remote_traceback=payload)
            results[r] = payload
            pending.discard(r)
    return [results[r] for r in range(len(procs))]


_RUNNING = object()


def _receive(reader: Any, proc: Any) -> Any:
    """A worker's message; ``_RUNNING`` while it runs without one; None once it ended without one."""
    if not reader.poll():
        if proc.is_alive():
            return _RUNNING
        # it may have sent its result and exited between the two looks: look once more
        if not reader.poll():
            return None
    try:
        return reader.recv()
    except EOFError:
        return None


def _death(rank: int, world_size: int, code: int | None) -> WorkerError:
    if code is not None and code < 0:
        name = signal.Signals(-code).name if -code in signal.Signals._value2member_map_ else str(-code)
        hint = " (the out-of-memory killer sends SIGKILL)" if name == "SIGKILL" else ""
        how = f"was killed by signal {name}{hint}"
    else:
        how = f"exited with exit code {code}"
    return WorkerError(
        f"rank {rank} of {world_size} {how} before returning a result (all workers were stopped)",
        rank=rank, exitcode=code)


def _stop(procs: list[Any], grace: float) -> None:
    """End every worker: wait up to ``grace`` seconds in all for them to exit, terminate the others,
    kill what still lives."""
    deadline = time.monotonic() + grace
    for p in procs:
        p.join(max(0.0, deadline - time.monotonic()))
    for p in procs:
        if p.is_alive():
            p.terminate()
    for p in procs:
        p.join(2)
        if p.is_alive():
            p.kill()
            p.join(5)


def _die_with_parent(parent: int | None) -> None:
    """Linux: have the kernel kill this worker when the parent dies, however it dies. (A forkserver's
    worker is the server's child: ``parent`` None, no check that the launcher still lives.)"""
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    if parent is not None and os.getppid() != parent:
        os._exit(1)


def limit_threads(n: int) -> None:
    """Use at most ``n`` threads in this process's BLAS (NumPy's matrix products) and in PyTorch.

    With ``threadpoolctl`` installed it does the work (every BLAS and OpenMP it knows); otherwise the
    ``set_num_threads`` of each OpenBLAS or MKL library loaded in this process is called. Workers that
    share the cores should not also each start a thread per core: they would take turns on them.
    """
    if "torch" in sys.modules and hasattr(sys.modules["torch"], "set_num_threads"):
        sys.modules["torch"].set_num_threads(n)
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        threadpool_limits = None
    if threadpool_limits is not None:
        threadpool_limits(limits=n)
        return
    try:
        with open("/proc/self/maps") as maps:
            libraries = {line.split()[-1] for line in maps if ".so" in line and "blas" in line.lower()}
    except OSError:  # not Linux
        return
    for path in sorted(libraries):
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for symbol in ("openblas_set_num_threads", "openblas_set_num_threads64_",
                       "scipy_openblas_set_num_threads", "scipy_openblas_set_num_threads64_",
                       "MKL_Set_Num_Threads"):
            if hasattr(lib, symbol):
                getattr(lib, symbol)(ctypes.c_int(n))


def _worker(rank: int, world_size: int, fn: Any, args: tuple, kwargs: dict, conn: Any,
            setup: Any, timeout: float, algorithm: str, threads: int | None, parent: int | None) -> None:
    _die_with_parent(parent)
    by_value = isinstance(fn, _ByValue)
    try:
        if by_value:
            fn, args, kwargs = fn.load()
        group._set_backend(setup.connect(rank, world_size, timeout, algorithm))
        if threads is not None:
            limit_threads(threads)
        message: tuple[str, Any] = ("ok", fn(rank, world_size, *args, **kwargs))
    except BaseException:  # noqa: B036 -- even SystemExit and KeyboardInterrupt go back to the parent
        message = ("error", traceback.format_exc())
    finally:
        try:
            group.destroy_process_group()
        except Exception:  # leaving a group that is already broken
            pass
    try:
        conn.send(_ByValue.dumps(message) if by_value else message)
    except Exception as e:  # the result could not be pickled
        message = ("error", f"rank {rank} returned a result that cannot be sent to the parent: {e!r}")
        conn.send(message)
    conn.close()
    if message[0] != "ok":
        sys.exit(1)
