"""The local backend: collectives between worker processes on this machine, through shared memory.

:func:`autograd_lab.parallel.launch` makes, before it starts the workers, one shared-memory segment
per rank (its *mailbox*, ``buffer_bytes`` long), one small control segment, and a barrier. A
collective then copies the rank's data into its own mailbox and reads its neighbours' mailboxes
directly: arrays are never pickled or sent through pipes. Data longer than a mailbox goes in pieces.

Synchronisation is a barrier between the steps of an algorithm. In a step a rank writes only its
own mailbox, and only a chunk no other rank reads in that step (see :mod:`.ring`), so one barrier
per step is enough. Every collective also publishes what it is (kind, size, dtype, op) in the control
segment, and every rank checks that all ranks called the same one: ranks that call different
collectives get an error, not wrong numbers. A rank that does not arrive at a barrier within
``timeout`` seconds makes the others fail, naming it.
"""

from __future__ import annotations

import os
import secrets
import threading
from dataclasses import dataclass
from multiprocessing import shared_memory
from typing import Any

import numpy as np

from .reduce_op import ReduceOp, combine, finish
from .ring import all_gather_step, chunk_bounds, owned_chunk, reduce_scatter_step

# Columns of a rank's row in the control segment. Signatures alternate between two slots: a rank can
# be at most one collective ahead of another, so it never overwrites a signature still being read.
_ARRIVALS, _SIG = 0, 1
_SIG_LEN = 6  # seq, kind, size, dtype, op or src, algorithm
_COLUMNS = _SIG + 2 * _SIG_LEN

_KINDS = {1: "all_reduce", 2: "broadcast", 3: "barrier"}
_ALGORITHMS = {"ring": 1, "naive": 2}
_OPS = {op: i for i, op in enumerate(ReduceOp)}


@dataclass
class LocalGroup:
    """What the workers of one :func:`launch` share; made by the parent, which unlinks it at the end."""

    mailboxes: list[shared_memory.SharedMemory]
    control: shared_memory.SharedMemory
    barrier: Any  # a multiprocessing Barrier of the launch's context
    buffer_bytes: int

    @classmethod
    def create(cls, world_size: int, buffer_bytes: int, ctx: Any) -> LocalGroup:
        made: list[shared_memory.SharedMemory] = []
        try:
            for _ in range(world_size):
                made.append(_segment(buffer_bytes))
            control = _segment(world_size * _COLUMNS * 8)
        except BaseException:
            for shm in made:
                _release(shm, unlink=True)
            raise
        np.ndarray((world_size, _COLUMNS), np.int64, buffer=control.buf)[...] = 0
        return cls(made, control, ctx.Barrier(world_size), buffer_bytes)

    def connect(self, rank: int, world_size: int, timeout: float, algorithm: str) -> LocalBackend:
        return LocalBackend(self, rank, world_size, timeout, algorithm)

    def unlink(self) -> None:
        for shm in [*self.mailboxes, self.control]:
            _release(shm, unlink=True)


def segment_prefix(pid: int | None = None) -> str:
    """Names of the segments a launch in process ``pid`` makes start with this (in /dev/shm on Linux):
    leftovers can be traced to the process that made them."""
    return f"alab_{os.getpid() if pid is None else pid}_"


def _segment(size: int) -> shared_memory.SharedMemory:
    return shared_memory.SharedMemory(name=segment_prefix() + secrets.token_hex(4), create=True, size=size)


def _release(shm: shared_memory.SharedMemory, unlink: bool) -> None:
    try:
        shm.close()
    except BufferError:  # a NumPy view is still alive; the mapping goes with the process
        pass
    if unlink:
        try:
            shm.unlink()
        except FileNotFoundError:
            pass


class LocalBackend:
    """One rank's side of a :class:`LocalGroup` (made in the worker by :func:`launch`)."""

    name = "local"

    def __init__(self, group: LocalGroup, rank: int, world_size: int, timeout: float, algorithm: str):
        self.rank, self.world_size = rank, world_size
        self.timeout, self.algorithm = timeout, algorithm
        self._group = group
        self._bytes = [np.ndarray((group.buffer_bytes,), np.uint8, buffer=m.buf) for m in group.mailboxes]
        self._control = np.ndarray((world_size, _COLUMNS), np.int64, buffer=group.control.buf)
        self._seq = 0

    # ---------------------------------------------------------------- synchronisation
    def _wait(self, what: str) -> None:
        self._control[self.rank, _ARRIVALS] += 1
        try:
            self._group.barrier.wait(self.timeout)
        except threading.BrokenBarrierError:
            mine = self._control[self.rank, _ARRIVALS]
            late = [q for q in range(self.world_size) if self._control[q, _ARRIVALS] < mine]
            who = (f"rank(s) {late} did not arrive (crashed, hung, or did not call this collective)"
                   if late else "another rank gave up waiting")
            raise RuntimeError(
                f"rank {self.rank}: {what} (collective #{self._seq}) timed out after {self.timeout:g} s: "
                f"{who}"
            ) from None

    def _enter(self, kind: int, size: int, dtype: np.dtype, arg: int, algorithm: int) -> str:
        """Publish this collective's signature, wait for all ranks, check they called the same one."""
        self._seq += 1
        slot = _SIG + (self._seq % 2) * _SIG_LEN
        sig = np.array([self._seq, kind, size, dtype.num, arg, algorithm], np.int64)
        self._control[self.rank, slot:slot + _SIG_LEN] = sig
        what = _KINDS[kind]
        self._wait(what)
        rows = self._control[:, slot:slot + _SIG_LEN]
        if not (rows == sig).all():
            calls = "; ".join(f"rank {q} called {_describe(rows[q])}" for q in range(self.world_size))
            raise RuntimeError(
                f"rank {self.rank}: the ranks called different collectives as collective #{self._seq}: "
                f"{calls}. Every rank must call the same collectives, in the same order, with tensors "
                "of the same size and dtype."
            )
        return what

    def _mailbox(self, rank: int, dtype: np.dtype, n: int) -> np.ndarray:
        return self._bytes[rank][: n * dtype.itemsize].view(dtype)

    def _pieces(self, data: np.ndarray) -> list[np.ndarray]:
        step = max(1, self._group.buffer_bytes // data.itemsize)
        return [data[i:i + step] for i in range(0, max(data.size, 1), step)]

    # ---------------------------------------------------------------- collectives
    def all_reduce(self, data: np.ndarray, op: ReduceOp, algorithm: str | None) -> None:
        algorithm = algorithm or self.algorithm
        if self.world_size == 1:
            return
        for piece in self._pieces(data):
            if algorithm == "ring":
                self._ring(piece, op, data.size)
            else:
                self._naive(piece, op, data.size)

    def _ring(self, piece: np.ndarray, op: ReduceOp, total: int) -> None:
        p, r, n = self.world_size, self.rank, piece.size
        mine = self._mailbox(r, piece.dtype, n)
        left = self._mailbox((r - 1) % p, piece.dtype, n)
        mine[...] = piece
        what = self._enter(1, total, piece.dtype, _OPS[op], _ALGORITHMS["ring"])
        bounds = chunk_bounds(n, p)
        for step in range(p - 1):  # reduce-scatter: add the left neighbour's chunk into mine
            lo, hi = bounds[reduce_scatter_step(r, step, p)[1]]
            combine(op, mine[lo:hi], left[lo:hi])
            if step == p - 2:
                lo, hi = bounds[owned_chunk(r, p)]
                finish(op, mine[lo:hi], p)
            self._wait(what)
        for step in range(p - 1):  # all-gather: copy the left neighbour's reduced chunk
            lo, hi = bounds[all_gather_step(r, step, p)[1]]
            mine[lo:hi] = left[lo:hi]
            self._wait(what)
        piece[...] = mine

    def _naive(self, piece: np.ndarray, op: ReduceOp, total: int) -> None:
        p, r, n = self.world_size, self.rank, piece.size
        mine = self._mailbox(r, piece.dtype, n)
        mine[...] = piece
        what = self._enter(1, total, piece.dtype, _OPS[op], _ALGORITHMS["naive"])
        if r == 0:  # gather to rank 0, which reduces alone
            for q in range(1, p):
                combine(op, mine, self._mailbox(q, piece.dtype, n))
            finish(op, mine, p)
        self._wait(what)
        piece[...] = self._mailbox(0, piece.dtype, n)  # everyone reads the result ("broadcast")
        self._wait(what)  # rank 0's mailbox stays untouched until all have read it

    def broadcast(self, data: np.ndarray, src: int) -> None:
        if self.world_size == 1:
            return
        for piece in self._pieces(data):
            if self.rank == src:
                self._mailbox(src, piece.dtype, piece.size)[...] = piece
            what = self._enter(2, data.size, piece.dtype, src, 0)
            if self.rank != src:
                piece[...] = self._mailbox(src, piece.dtype, piece.size)
            self._wait(what)

    def barrier(self) -> None:
        if self.world_size > 1:
            self._enter(3, 0, np.dtype(np.uint8), 0, 0)

    def close(self) -> None:
        self._bytes = []
        self._control = np.zeros((0, _COLUMNS), np.int64)


def _describe(sig: np.ndarray) -> str:
    _, kind, size, dtype_num, arg, algorithm = (int(v) for v in sig)
    dtype = next((np.dtype(c).name for c in np.typecodes["All"] if np.dtype(c).num == dtype_num), "?")
    name = _KINDS.get(kind, "nothing yet")
    if name == "all_reduce":
        ops = {i: op.name for op, i in _OPS.items()}
        algs = {i: a for a, i in _ALGORITHMS.items()}
        return f"all_reduce({size} x {dtype}, {ops.get(arg)}, {algs.get(algorithm)})"
    if name == "broadcast":
        return f"broadcast({size} x {dtype}, src={arg})"
    return name + "()"
