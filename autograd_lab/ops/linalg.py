"""Matrix products: ``matmul`` dispatches by rank to dot, mv, mm or a batched product.

For ``C = A @ B`` the vector-Jacobian products are ``dA = dC @ B^T`` and ``dB = A^T @ dC``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dtypes import cpp_type_name, scalar_type_name
from ..function import Function
from ..tensor import Tensor
from .promotion import cast


def _check_same_dtype(a: Tensor, b: Tensor, kernel: str) -> None:
    """Matrix products do not promote: mixed dtypes fail with the message of PyTorch's kernel."""
    da, db = a._data.dtype, b._data.dtype
    if da == db:
        return
    if kernel == "mm":
        message = (f"expected m1 and m2 to have the same dtype, but got: {cpp_type_name(da)} != "
                   f"{cpp_type_name(db)}")
    elif kernel == "mv":
        message = (f"addmv input tensors must have the same dtype, but got {scalar_type_name(db)}, "
                   f"{scalar_type_name(da)}, and {scalar_type_name(db)}")
    elif kernel == "dot":
        message = (f"dot : expected both vectors to have same dtype, but found {scalar_type_name(da)} "
                   f"and {scalar_type_name(db)}")
    else:
        message = f"expected scalar type {scalar_type_name(da)} but found {scalar_type_name(db)}"
    raise RuntimeError(message)


class Mm(Function):
    node_name = "MmBackward0"
    saved_names = ("self", "mat2")

    @staticmethod
    def forward(ctx: Any, a: Tensor, b: Tensor) -> Tensor:
        _check_same_dtype(a, b, "mm")
        (n, k), (k2, m) = a._data.shape, b._data.shape
        if k != k2:
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({n}x{k} and {k2}x{m})")
        need_a, need_b = ctx.needs_input_grad
        ctx.save_for_backward(a if need_b else None, b if need_a else None)
        return Tensor._make(cast(a._data @ b._data, a, b))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        a, b = ctx.saved_tensors
        return (grad.mm(b.t()) if b is not None else None), (a.t().mm(grad) if a is not None else None)


class Dot(Function):
    node_name = "DotBackward0"
    saved_names = ("self", "tensor")

    @staticmethod
    def forward(ctx: Any, a: Tensor, b: Tensor) -> Tensor:
        _check_same_dtype(a, b, "dot")
        if a._data.shape != b._data.shape:
            n, m = a._data.size, b._data.size
            raise RuntimeError(
                f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to have the same "
                f"number of elements, but got {n} and {m} elements respectively"
            )
        ctx.save_for_backward(a, b)
        return Tensor._make(np.asarray(cast(np.dot(a._data, b._data), a, b)))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
        a, b = ctx.saved_tensors
        return grad * b, grad * a


class Mv(Function):
    node_name = "MvBackward0"
    saved_names = ("self", "vec")

    @staticmethod
    def forward(ctx: Any, a: Tensor, v: Tensor) -> Tensor:
        _check_same_dtype(a, v, "mv")
        if a._data.shape[1] != v._data.shape[0]:
            n, k = a._data.shape
            raise RuntimeError(
                f"size mismatch, got input ({n}), mat ({n}x{k}), vec ({v._data.shape[0]})"
            )
        ctx.save_for_backward(a, v)
        return Tensor._make(cast(a._data @ v._data, a, v))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
        a, v = ctx.saved_tensors
        return grad.unsqueeze(1) * v.unsqueeze(0), a.t().matmul(grad)


class BatchedMatmul(Function):
    """``@`` with batch dimensions (broadcast like NumPy's matmul).

    PyTorch folds the batch dimensions with reshapes first, so its graph shows an extra
    ``UnsafeViewBackward0`` above ``BmmBackward0``; here one node does it all.
    """

    node_name = "BmmBackward0"
    saved_names = ("self", "mat2")

    @staticmethod
    def forward(ctx: Any, a: Tensor, b: Tensor) -> Tensor:
        _check_same_dtype(a, b, "bmm")
        if a._data.shape[-1] != b._data.shape[-2]:
            sa, sb = a._data.shape, b._data.shape
            raise RuntimeError(
                f"Expected size for first two dimensions of batch2 tensor to be: "
                f"[{sb[0] if len(sb) > 2 else 1}, {sa[-1]}] but got: "
                f"[{sb[0] if len(sb) > 2 else 1}, {sb[-2]}]."
            )
        ctx.save_for_backward(a, b)
        try:
            return Tensor._make(cast(np.matmul(a._data, b._data), a, b))
        except ValueError as e:
            raise RuntimeError(
                f"matmul: batch dimensions of {list(a._data.shape)} and {list(b._data.shape)} "
                "cannot be broadcast together"
            ) from e

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
        a, b = ctx.saved_tensors
        return grad.matmul(b.mT), a.mT.matmul(grad)  # the node sums broadcast batch dims


def mm(a: Tensor, b: Tensor) -> Tensor:
    if a.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if b.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    return Mm.apply(a, b)


def dot(a: Tensor, b: Tensor) -> Tensor:
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(
            f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors"
        )
    return Dot.apply(a, b)


def matmul(a: Any, b: Any) -> Tensor:
    """``a @ b`` with PyTorch's rules for 1-D, 2-D and batched operands (``torch.matmul``)."""
    if not isinstance(a, Tensor):
        a = Tensor._make(np.asarray(a, dtype=b._data.dtype))
    if not isinstance(b, Tensor):
        b = Tensor._make(np.asarray(b, dtype=a._data.dtype))
    da, db = a.ndim, b.ndim
    if da == 0 or db == 0:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {da}D and {db}D"
        )
    # the kernel PyTorch would run (it folds (batch, n, k) @ (k, m) into one mm) names a dtype mismatch
    if da == 1 and db == 1:
        kernel = "dot"
    elif db == 1:
        kernel = "mv"
    elif db == 2:
        kernel = "mm"
    else:
        kernel = "bmm"
    _check_same_dtype(a, b, kernel)
    if da == 1 and db == 1:
        return Dot.apply(a, b)
    if da == 2 and db == 1:
        return Mv.apply(a, b)
    if da == 1 and db == 2:
        from .shape import SqueezeInplace

        return SqueezeInplace.apply(Mm.apply(a.unsqueeze(0), b), (0,))
    if da == 2 and db == 2:
        return Mm.apply(a, b)
    if db == 1:
        return BatchedMatmul.apply(a, b.unsqueeze(-1)).squeeze(-1)
    if da == 1:
        return BatchedMatmul.apply(a.unsqueeze(0), b).squeeze(-2)
    return BatchedMatmul.apply(a, b)
