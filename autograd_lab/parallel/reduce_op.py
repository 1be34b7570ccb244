"""``ReduceOp``: how a collective combines the workers' values (``torch.distributed.ReduceOp``)."""

from __future__ import annotations

import enum

import numpy as np


class ReduceOp(enum.Enum):
    """The reduction of an all-reduce: ``SUM``, ``AVG`` (the sum divided by the world size),
    ``MAX``, ``MIN``, ``PRODUCT`` -- PyTorch's names."""

    SUM = "sum"
    AVG = "avg"
    MAX = "max"
    MIN = "min"
    PRODUCT = "product"

    def __repr__(self) -> str:
        return f"<ReduceOp.{self.name}>"


_UFUNCS = {
    ReduceOp.SUM: np.add,
    ReduceOp.AVG: np.add,  # summed, then divided once by the world size
    ReduceOp.MAX: np.maximum,
    ReduceOp.MIN: np.minimum,
    ReduceOp.PRODUCT: np.multiply,
}


def as_reduce_op(op: ReduceOp | str) -> ReduceOp:
    """``ReduceOp.SUM`` or its name (``"sum"``, ``"SUM"``) -> ``ReduceOp.SUM``."""
    if isinstance(op, ReduceOp):
        return op
    try:
        return ReduceOp[str(op).upper()]
    except KeyError:
        names = ", ".join(o.name for o in ReduceOp)
        raise ValueError(f"unknown reduce op {op!r}: expected one of {names}") from None


def combine(op: ReduceOp, into: np.ndarray, other: np.ndarray) -> None:
    """``into = op(into, other)``, in place (AVG sums: divide by the world size at the end)."""
    _UFUNCS[op](into, other, out=into)


def check_dtype(op: ReduceOp, dtype: np.dtype) -> None:
    """AVG needs floating point, as in PyTorch (an integer average does not fit an integer tensor)."""
    if op is ReduceOp.AVG and np.dtype(dtype).kind not in "fc":
        name = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
                "bool": "Bool"}.get(np.dtype(dtype).name, str(dtype))
        raise RuntimeError(f"result type Float can't be cast to the desired output type {name}")


def finish(op: ReduceOp, values: np.ndarray, world_size: int) -> None:
    """The last touch of a reduction, in place: AVG divides the sum by the world size."""
    if op is ReduceOp.AVG and world_size > 1:
        np.divide(values, world_size, out=values)
