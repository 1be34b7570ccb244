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


class Bmm(Function):
    """A batch of matrix products: ``(b, n, m) @ (b, m, p)`` (``torch.bmm``)."""

    node_name = "BmmBackward0"
    saved_names = ("self", "mat2")

    @staticmethod
    def forward(ctx: Any, a: Tensor, b: Tensor) -> Tensor:
        _check_same_dtype(a, b, "bmm")
        (nb, _, m), (nb2, m2, _) = a._data.shape, b._data.shape
        if nb2 != nb or m2 != m:
            raise RuntimeError(
                f"Expected size for first two dimensions of batch2 tensor to be: [{nb}, {m}] but got: "
                f"[{nb2}, {m2}]."
            )
        need_a, need_b = ctx.needs_input_grad
        ctx.save_for_backward(a if need_b else None, b if need_a else None)
        return Tensor._make(cast(np.matmul(a._data, b._data), a, b))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        a, b = ctx.saved_tensors
        return (bmm(grad, b.mT) if b is not None else None), (bmm(a.mT, grad) if a is not None else None)


def bmm(a: Tensor, b: Tensor) -> Tensor:
    if a.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if b.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    return Bmm.apply(a, b)


def mv(a: Tensor, v: Tensor) -> Tensor:
    if a.ndim != 2 or v.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {a.ndim}, {v.ndim}")
    if a._data.shape[1] != v._data.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({a._data.shape[0]}), mat ({a._data.shape[0]}x"
                           f"{a._data.shape[1]}), vec ({v._data.shape[0]})")
    return Mv.apply(a, v)


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
    if da == 3 and db == 3:  # a batch of one that needs a gradient is folded as a matrix (PyTorch 2.13)
        if a._data.shape[0] == 1 != b._data.shape[0] and a.requires_grad:
            return matmul(a.squeeze(0), b)
        if b._data.shape[0] == 1 != a._data.shape[0] and b.requires_grad:
            return matmul(a, b.squeeze(0))
    if _should_fold(a, b):
        return _folded_matmul(a, b)
    return _batched_matmul(a, b)


# PyTorch's matmul (ATen's _matmul_impl) builds its graph from these ops; so does this one.
def _should_fold(a: Tensor, b: Tensor) -> bool:
    """Whether the batched operand can fold its batch into the rows of one mm/mv."""
    larger = a.ndim >= b.ndim
    big_shape = a._data.shape if larger else b._data.shape[:-2] + b._data.shape[:-3:-1]
    if not (len(big_shape) >= 3 and (b.ndim if larger else a.ndim) <= 2):
        return False
    if (b if larger else a).requires_grad:  # folding keeps the small operand's gradient one mm
        return True
    if a.ndim == 2:
        return False  # the result would need a transposed copy
    if 0 in big_shape:
        return True
    if larger:
        strides = _torch_strides(a)
    else:
        strides = _torch_strides(b)
        strides[-2:] = strides[:-3:-1]
    # t1.view(-1, t1.size(-1)) without a copy: PyTorch's own test on the strides
    return all(strides[i] == strides[i + 1] * big_shape[i + 1] for i in range(len(big_shape) - 2))


def _torch_strides(t: Tensor) -> list[int]:
    """The strides PyTorch would give ``t``, in elements: a contiguous tensor has the canonical ones
    (NumPy may set any stride on a dimension of size 1), a view those NumPy derived."""
    if not t._data.flags.c_contiguous:
        return [st // t._data.itemsize for st in t._data.strides]
    strides, step = [], 1
    for size in reversed(t._data.shape):
        strides.append(step)
        step *= max(size, 1)
    return strides[::-1]


def _folded_matmul(a: Tensor, b: Tensor) -> Tensor:
    from .shape import UnsafeView, reshape

    transpose = b.ndim > a.ndim
    t1 = b.mT if transpose else a
    t2 = (a.t() if a.ndim == 2 else a) if transpose else b
    shape = tuple(t1._data.shape[:-1])
    folded = reshape(t1, (int(np.prod(shape)), t1._data.shape[-1]))
    if t2.ndim == 2:
        out = UnsafeView.apply(Mm.apply(folded, t2), shape + (t2._data.shape[1],))
        return out.mT.contiguous() if transpose else out
    return UnsafeView.apply(Mv.apply(folded, t2), shape)


def _batched_matmul(a: Tensor, b: Tensor) -> Tensor:
    from .promotion import broadcast_shape
    from .shape import UnsafeView, expand, reshape

    da, db = a.ndim, b.ndim
    n, m1 = (a._data.shape[-2] if da > 1 else 1), a._data.shape[-1]
    m2, p = (b._data.shape[-2] if db > 1 else b._data.shape[0]), (b._data.shape[-1] if db > 1 else 1)
    batch = broadcast_shape(a._data.shape[:-2] if da > 1 else (), b._data.shape[:-2] if db > 1 else ())
    count = int(np.prod(batch))
    a3 = reshape(expand(a, batch + (n, m1)), (count, n, m1))
    if db == 1:
        b3 = reshape(expand(b, batch + (m2,)), (count, m2)).unsqueeze(2)
    else:
        b3 = reshape(expand(b, batch + (m2, p)), (count, m2, p))
    shape = batch + ((n,) if da > 1 else ()) + ((p,) if db > 1 else ())
    out = bmm(a3, b3)
    return UnsafeView.apply(out.squeeze(-1) if db == 1 else out, shape)
