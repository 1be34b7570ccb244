"""Matrix products: ``matmul`` dispatches by rank to dot, mv, mm or a batched product; addmm and its
kin; outer, kron, cross, inner, tensordot, einsum. Then what PyTorch reads from a matrix's LU
factorization: det, slogdet, inv, solve.

For ``C = A @ B`` the vector-Jacobian products are ``dA = dC @ B^T`` and ``dB = A^T @ dC``; for
``X = A^{-1} B``, ``dB = A^{-T} dX`` and ``dA = -dB X^T``.
"""

from __future__ import annotations

import math
import warnings
from collections import namedtuple
from typing import Any

import numpy as np

from .. import dtypes
from .. import tensor as _tensor
from ..dtypes import cpp_type_name, from_numpy_dtype, quiet_off, quiet_on, scalar_type_name
from ..dtypes import wrap_dim as _wrap_dim
from ..function import Function, record_binary
from ..grad_mode import _state as _GRAD
from ..grad_mode import is_grad_enabled, no_grad
from ..summation import torch_sum
from ..tensor import INFERENCE_MODE, Tensor
from .arithmetic import mul
from .inplace import inplace
from .pointwise import _log
from .promotion import _not_implemented, broadcast_shape, cast, fused_multiply_add, result_dtype, row_major
from .scalar import MulNumber
from .shape import diag_embed
from .view import SqueezeInplace, UnsafeView, diagonal, expand, flatten, permute, reshape, squeeze, unsqueeze


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


# ---------------------------------------------------------------------------- dot, mv, mm, bmm, matmul
class Dot(Function):
    node_name = "DotBackward0"
    saved_names = ("self", "tensor")
    saved_for = ((1,), (0,))  # self for tensor's gradient, tensor for self's

    @staticmethod
    def forward(ctx: Any, a: Tensor, b: Tensor) -> Tensor:
        _check_same_dtype(a, b, "dot")
        if a._data.dtype == np.bool_:
            raise _not_implemented("dot", a._data.dtype)
        if a._data.shape != b._data.shape:
            n, m = a._data.size, b._data.size
            raise RuntimeError(
                f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to have the same "
                f"number of elements, but got {n} and {m} elements respectively"
            )
        ctx.save_for_backward(a, b)
        out = np.asarray(cast(np.dot(a._data, b._data), a, b))
        # PyTorch's dot sums from 0.0: a product of -0.0 alone gives 0.0 (adding 0.0 changes nothing else)
        return Tensor._make(out + out.dtype.type(0) if out.dtype.kind == "f" else out)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        a, b = ctx.saved_tensors
        return (grad * b if b is not None else None), (grad * a if a is not None else None)


def dot(a: Tensor, other: Tensor) -> Tensor:
    """The inner product of two 1-D tensors (``torch.dot``)."""
    if a.ndim != 1 or other.ndim != 1:
        raise RuntimeError(
            f"1D tensors expected, but got {a.ndim}D and {other.ndim}D tensors"
        )
    return Dot.apply(a, other)


class Mv(Function):
    node_name = "MvBackward0"
    saved_names = ("self", "vec")
    saved_for = ((1,), (0,))

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
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        a, v = ctx.saved_tensors  # PyTorch's grad.ger(vec) (a reshape and a product) and self.t().mv(grad)
        return (outer(grad, v) if v is not None else None,
                a.t().matmul(grad) if a is not None else None)


def mv(a: Tensor, vec: Tensor) -> Tensor:
    """Matrix times vector (``torch.mv``)."""
    if a.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {a.ndim}, {vec.ndim}")
    if a._data.shape[1] != vec._data.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({a._data.shape[0]}), mat ({a._data.shape[0]}x"
                           f"{a._data.shape[1]}), vec ({vec._data.shape[0]})")
    return Mv.apply(a, vec)


class Mm(Function):
    node_name = "MmBackward0"
    saved_names = ("self", "mat2")
    saved_for = ((1,), (0,))

    @staticmethod
    def forward(ctx: Any, a: Tensor, b: Tensor) -> Tensor:
        _check_same_dtype(a, b, "mm")
        if a._data.dtype == np.bool_:
            raise _not_implemented("addmm_impl_cpu_", a._data.dtype)
        (n, k), (k2, m) = a._data.shape, b._data.shape
        if k != k2:
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({n}x{k} and {k2}x{m})")
        ctx.save_for_backward(a, b)
        ctx.column_major = (_column_major(a), _column_major(b))
        return Tensor._make(cast(_mm(a._data, b._data), a, b))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        a, b = ctx.saved_tensors
        return _product_grads(grad, a, b, *ctx.column_major)

    @staticmethod
    def backward_arrays(ctx: Any, g: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
        a, b = ctx.saved_arrays
        if (a is not None and a.dtype != g.dtype) or (b is not None and b.dtype != g.dtype):
            return Mm.backward(ctx, Tensor._make(g))  # (promoted: backward's Tensors)
        col_a, col_b = ctx.column_major  # _product_grads' products, in its layouts (addmm's too)
        return (None if b is None else _mm(b, g.T).T if col_a else _mm(g, b.T),
                None if a is None else _mm(g.T, a).T if col_b else _mm(a.T, g))


def _product_grads(grad: Tensor, a: Tensor | None, b: Tensor | None, col_a: bool,
                   col_b: bool) -> tuple[Tensor | None, Tensor | None]:
    """The gradients of ``a @ b`` (mm's, addmm's), recorded as PyTorch's mm_mat1_backward and
    mm_mat2_backward: a column-major operand (a transposed matrix) gets its gradient as the transpose of
    a product, in its own layout. ``a`` (``b``) None: no gradient for ``b`` (``a``)."""
    grad_a = None if b is None else b.mm(grad.t()).t() if col_a else grad.mm(b.t())
    grad_b = None if a is None else grad.t().mm(a).t() if col_b else a.t().mm(grad)
    return grad_a, grad_b


def _mm(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``x @ y`` of two matrices. A product over one term, at least 2x2, is an outer product, as
    PyTorch's kernel computes it: ``-0.0 * 1`` stays -0.0 (BLAS adds it to 0.0 and gives 0.0)."""
    if x.shape[1] == 1 and x.shape[0] > 1 and y.shape[1] > 1:
        return np.multiply(x, y)
    return x @ y


def _column_major(t: Tensor) -> bool:
    """Whether a matrix is laid out by columns (a transpose), as PyTorch tests it on its strides: 1
    along the rows, the number of rows along the columns (x.t() of a 1xn row is one: NumPy keeps the
    stride of a dimension of size 1, as PyTorch)."""
    d = t._data
    if d.size == 0:  # (NumPy keeps no strides for an empty array: PyTorch's, as Tensor.stride gives them)
        steps = t.stride()
        return steps[0] == 1 and steps[1] == d.shape[0]
    return d.strides[0] == d.itemsize and d.strides[1] == d.itemsize * d.shape[0]


def mm(a: Tensor, other: Tensor) -> Tensor:
    """Matrix times matrix (``torch.mm``)."""
    if a.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if other.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    return Mm.apply(a, other)


class Bmm(Function):
    """A batch of matrix products: ``(b, n, m) @ (b, m, p)`` (``torch.bmm``)."""

    node_name = "BmmBackward0"
    saved_names = ("self", "mat2")
    saved_for = ((1,), (0,))

    @staticmethod
    def forward(ctx: Any, a: Tensor, b: Tensor) -> Tensor:
        (nb, n, m), (nb2, m2, p) = a._data.shape, b._data.shape
        # nothing to compute (an empty result, or sums of no terms): PyTorch's kernel returns before it
        # compares the dtypes, its result of batch2's dtype
        empty = nb * n * p == 0 or m == 0
        if not empty:
            _check_same_dtype(a, b, "bmm")
        if nb2 != nb or m2 != m:
            raise RuntimeError(
                f"Expected size for first two dimensions of batch2 tensor to be: [{nb}, {m}] but got: "
                f"[{nb2}, {m2}]."
            )
        ctx.save_for_backward(a, b)
        if empty:
            return Tensor._make(np.zeros((nb, n, p), b._data.dtype))
        return Tensor._make(cast(np.matmul(a._data, b._data), a, b))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        a, b = ctx.saved_tensors
        return (bmm(grad, b.mT) if b is not None else None), (bmm(a.mT, grad) if a is not None else None)


def bmm(a: Tensor, other: Tensor) -> Tensor:
    """A batch of matrix products, ``(b, n, k) @ (b, k, m)`` (``torch.bmm``)."""
    if a.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if other.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    return Bmm.apply(a, other)


def _fast_mm(a: Tensor, b: Tensor) -> Tensor | None:
    """``a @ b`` of two matrices of one floating point dtype that fit, neither a view: mm's product and
    the node ``Mm.apply`` records (:func:`record_binary`), without its general steps (issue 17). None
    where another path applies (views, other ranks, dtypes or sizes: their checks and errors)."""
    x, y = a._data, b._data
    shape, b_shape, dt = x.shape, y.shape, x.dtype  # (each NumPy attribute read once)
    if not (len(shape) == 2 and len(b_shape) == 2 and y.dtype is dt and dt.kind == "f"
            and shape[1] == b_shape[0] and a._view_meta is None and b._view_meta is None):
        return None
    token = quiet_on()
    out = _mm(x, y)
    quiet_off(token)
    need_a = a._requires_grad or a._grad_fn is not None
    need_b = b._requires_grad or b._grad_fn is not None
    if not (need_a or need_b) or not _GRAD.enabled or (
            _tensor.open_inference_blocks and INFERENCE_MODE.enabled):
        return Tensor._make(out)  # nothing to record (Function.apply's forward alone)
    t = record_binary(Mm, out, a, b, y, (need_b, need_a), 2, (shape, b_shape, dt))  # (Mm.forward's saves)
    t._grad_fn.column_major = (_column_major(a), _column_major(b))
    return t


def matmul(a: Any, other: Any) -> Tensor:
    """``a @ other`` with PyTorch's rules for 1-D, 2-D and batched operands (``torch.matmul``)."""
    if type(a) is Tensor and type(other) is Tensor and (out := _fast_mm(a, other)) is not None:
        return out
    if not isinstance(a, Tensor):
        a = Tensor._make(np.asarray(a, dtype=other._data.dtype))
    if not isinstance(other, Tensor):
        other = Tensor._make(np.asarray(other, dtype=a._data.dtype))
    da, db = a.ndim, other.ndim
    if da == 0 or db == 0:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {da}D and {db}D"
        )
    # a dtype mismatch is named by the kernel PyTorch runs, its operands in its order (checked there)
    if da == 1 and db == 1:
        _check_same_dtype(a, other, "dot")
        return Dot.apply(a, other)
    if da == 2 and db == 1:
        _check_same_dtype(a, other, "mv")
        return Mv.apply(a, other)
    if da == 1 and db == 2:  # PyTorch's unsqueeze(0).mm(other).squeeze_(0): an in-place step, version 1
        _check_same_dtype(a, other, "mm")
        out = SqueezeInplace.apply(Mm.apply(a.unsqueeze(0), other), (0,))
        out._version_counter.value += 1
        return out
    if da == 2 and db == 2:
        _check_same_dtype(a, other, "mm")
        return Mm.apply(a, other)
    if da == 3 and db == 3:  # a batch of one that needs a gradient is folded as a matrix (PyTorch 2.13)
        if a._data.shape[0] == 1 != other._data.shape[0] and a.requires_grad:
            return matmul(a.squeeze(0), other)
        if other._data.shape[0] == 1 != a._data.shape[0] and other.requires_grad:
            return matmul(a, other.squeeze(0))
    if _should_fold(a, other):
        return _folded_matmul(a, other)
    return _batched_matmul(a, other)  # (bmm checks the dtypes)


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
    """``t``'s strides in elements: PyTorch's (each op lays its result out as PyTorch's, a size-1
    dimension's stride too: an expand's or unsqueeze's new one steps over the next, as PyTorch's)."""
    d = t._data
    return [st // d.itemsize for st in d.strides]


def _folded_matmul(a: Tensor, b: Tensor) -> Tensor:
    transpose = b.ndim > a.ndim
    t1 = b.mT if transpose else a
    t2 = (a.t() if a.ndim == 2 else a) if transpose else b
    shape = tuple(t1._data.shape[:-1])
    _check_same_dtype(t1, t2, "mm" if t2.ndim == 2 else "mv")  # (transposed: the operands swap)
    folded = reshape(t1, (int(np.prod(shape)), t1._data.shape[-1]))
    if t2.ndim == 2:
        out = UnsafeView.apply(Mm.apply(folded, t2), shape + (t2._data.shape[1],))
        return out.mT.contiguous() if transpose else out
    return UnsafeView.apply(Mv.apply(folded, t2), shape)


def _batched_matmul(a: Tensor, b: Tensor) -> Tensor:
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


# ------------------------------------------------------ addmm, addmv, baddbmm: beta * input + alpha * product
def _scaled(t: Tensor, factor: Any) -> Tensor:
    """PyTorch's ``maybe_multiply``: ``t`` times a number unless it is 1 (a tensor times a Scalar:
    ``MulBackward1`` under create_graph)."""
    return t if factor == 1 else MulNumber.apply(t, factor)


def _type(t: Tensor) -> str:
    return scalar_type_name(t._data.dtype)


def _combine(a: np.ndarray, prod: np.ndarray, beta: Any, alpha: Any) -> np.ndarray:
    """``beta * a + alpha * prod`` in the product's shape and dtype; ``beta == 0`` ignores ``a`` (nan too)."""
    dt = prod.dtype
    out = prod if alpha == 1 else prod * np.asarray(alpha, dtype=dt)
    if beta != 0:
        out = out + (a if beta == 1 else a * np.asarray(beta, dtype=dt))
    if out.shape == prod.shape and out.dtype == dt and out.flags.c_contiguous:
        return out  # (a new array already: the product's, or the sum's)
    return np.array(np.broadcast_to(out, prod.shape), dtype=dt)


class Addmm(Function):
    """``beta * input + alpha * (mat1 @ mat2)``; ``input`` broadcasts to the result."""

    node_name = "AddmmBackward0"
    saved_names = ("mat1", "mat2")
    saved_for = ((2,), (1,))

    @staticmethod
    def forward(ctx: Any, a: Tensor, m1: Tensor, m2: Tensor, beta: Any, alpha: Any) -> Tensor:
        _check_product(m1, m2)
        ctx.beta, ctx.alpha = beta, alpha
        ctx.save_for_backward(m1, m2)
        ctx.column_major = (_column_major(m1), _column_major(m2))
        return Tensor._make(_combine(a._data, _mm(m1._data, m2._data), beta, alpha))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple:
        m1, m2 = ctx.saved_tensors
        grad1, grad2 = _product_grads(grad, m1, m2, *ctx.column_major)
        return (_scaled(grad, ctx.beta) if ctx.needs_input_grad[0] else None,
                None if grad1 is None else _scaled(grad1, ctx.alpha),
                None if grad2 is None else _scaled(grad2, ctx.alpha), None, None)

    @staticmethod
    def backward_arrays(ctx: Any, g: np.ndarray) -> tuple:
        m1, m2 = ctx.saved_arrays
        if ctx.beta != 1 or ctx.alpha != 1 or any(m is not None and m.dtype != g.dtype for m in (m1, m2)):
            return Addmm.backward(ctx, Tensor._make(g))  # (scaled or promoted: backward's Tensors)
        return (g if ctx.needs_input_grad[0] else None, *Mm.backward_arrays(ctx, g),
                None, None)  # (the input's gradient summed to its shape by apply_arrays)


def _check_product(mat1: Tensor, mat2: Tensor) -> None:
    (n, k), (k2, m) = mat1._data.shape, mat2._data.shape
    if k != k2:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({n}x{k} and {k2}x{m})")


def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """``beta * input + alpha * (mat1 @ mat2)`` as one node (``torch.addmm``)."""
    for name, m in (("mat1", mat1), ("mat2", mat2)):
        if m.ndim != 2:
            raise RuntimeError(f"{name} must be a matrix, got {m.ndim}-D tensor")
    if input._data.dtype != mat2._data.dtype:
        raise RuntimeError(
            f"self and mat2 must have the same dtype, but got {_type(input)} and {_type(mat2)}"
        )
    if mat1._data.dtype != mat2._data.dtype:
        raise RuntimeError(
            f"mat1 and mat2 must have the same dtype, but got {_type(mat1)} and {_type(mat2)}"
        )
    _check_product(mat1, mat2)
    with no_grad():  # PyTorch's message when input does not broadcast
        expand(Tensor._make(input._data), (mat1._data.shape[0], mat2._data.shape[1]))
    return Addmm.apply(input, mat1, mat2, beta, alpha)


class Addmv(Function):
    node_name = "AddmvBackward0"
    saved_names = ("mat", "vec")
    saved_for = ((2,), (1,))

    @staticmethod
    def forward(ctx: Any, a: Tensor, mat: Tensor, vec: Tensor, beta: Any, alpha: Any) -> Tensor:
        ctx.beta, ctx.alpha = beta, alpha
        ctx.save_for_backward(mat, vec)
        return Tensor._make(_combine(a._data, mat._data @ vec._data, beta, alpha))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple:
        mat, vec = ctx.saved_tensors
        return (_scaled(grad, ctx.beta) if ctx.needs_input_grad[0] else None,
                # PyTorch's outer(grad, vec): grad.reshape(n, 1) * vec
                None if vec is None else _scaled(reshape(grad, (grad._data.shape[0], 1)) * vec, ctx.alpha),
                None if mat is None else _scaled(mat.t().mv(grad), ctx.alpha), None, None)


def addmv(input: Tensor, mat: Tensor, vec: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """``beta * input + alpha * (mat @ vec)`` as one node (``torch.addmv``)."""
    if mat.ndim != 2 or vec.ndim != 1 or input.ndim > 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {input.ndim}, {mat.ndim}, {vec.ndim}")
    n, k = mat._data.shape
    in_size = input._data.shape[0] if input.ndim else 1
    if k != vec._data.shape[0] or in_size not in (1, n):
        raise RuntimeError(f"size mismatch, got input ({in_size}), mat ({n}x{k}), vec ({vec._data.shape[0]})")
    if not input._data.dtype == mat._data.dtype == vec._data.dtype:
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {_type(input)}, "
                           f"{_type(mat)}, and {_type(vec)}")
    return Addmv.apply(input, mat, vec, beta, alpha)


class Baddbmm(Function):
    node_name = "BaddbmmBackward0"
    saved_names = ("batch1", "batch2")
    saved_for = ((2,), (1,))

    @staticmethod
    def forward(ctx: Any, a: Tensor, b1: Tensor, b2: Tensor, beta: Any, alpha: Any) -> Tensor:
        ctx.beta, ctx.alpha = beta, alpha
        ctx.save_for_backward(b1, b2)
        return Tensor._make(_combine(a._data, np.matmul(b1._data, b2._data), beta, alpha))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple:
        b1, b2 = ctx.saved_tensors
        return (_scaled(grad, ctx.beta) if ctx.needs_input_grad[0] else None,
                _scaled(bmm(grad, b2.mT), ctx.alpha) if b2 is not None else None,
                _scaled(bmm(b1.mT, grad), ctx.alpha) if b1 is not None else None, None, None)


def baddbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """``beta * input + alpha * (batch1 @ batch2)`` as one node (``torch.baddbmm``)."""
    if batch1.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if batch2.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    (nb, n, m), (nb2, m2, p) = batch1._data.shape, batch2._data.shape
    if nb2 != nb or m2 != m:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{nb}, {m}] but got: "
            f"[{nb2}, {m2}]."
        )
    with no_grad():
        expand(Tensor._make(input._data), (nb, n, p))
    if not input._data.dtype == batch1._data.dtype == batch2._data.dtype:
        raise RuntimeError(f"Input dtypes must be the same, got: input {cpp_type_name(input._data.dtype)}, "
                           f"batch1: {cpp_type_name(batch1._data.dtype)}, batch2: "
                           f"{cpp_type_name(batch2._data.dtype)}")
    return Baddbmm.apply(input, batch1, batch2, beta, alpha)


def addmm_(t: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """``t.addmm_(mat1, mat2)``: :func:`addmm` written into ``t``."""
    return _inplace_product(t, addmm, (mat1._data.shape[0], mat2._data.shape[-1]), mat1, mat2, beta, alpha)


def addmv_(t: Tensor, mat: Tensor, vec: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """``t.addmv_(mat, vec)``: :func:`addmv` written into ``t``."""
    return _inplace_product(t, addmv, (mat._data.shape[0],), mat, vec, beta, alpha)


def baddbmm_(t: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """``t.baddbmm_(batch1, batch2)``: :func:`baddbmm` written into ``t``."""
    shape = (batch1._data.shape[0], batch1._data.shape[1], batch2._data.shape[-1])
    return _inplace_product(t, baddbmm, shape, batch1, batch2, beta, alpha)


def _inplace_product(t: Tensor, fn: Any, shape: tuple, x: Tensor, y: Tensor, beta: Any, alpha: Any) -> Tensor:
    if t._data.shape != shape and x.ndim >= 1 and y.ndim >= 1:
        with no_grad():
            fn(Tensor._make(t._data), Tensor._make(x._data), Tensor._make(y._data), beta=beta, alpha=alpha)
        raise RuntimeError(
            f"Bad in-place call: input tensor size [{', '.join(map(str, t._data.shape))}] and output tensor "
            f"size [{', '.join(map(str, shape))}] should match"
        )
    return inplace(t, lambda s, a, b: fn(s, a, b, beta=beta, alpha=alpha), x, y)


# ---------------------------------------------------------------------------- outer, kron
def outer(input: Tensor, vec2: Tensor) -> Tensor:
    """The outer product of two 1-D tensors, ``input[:, None] * vec2`` (``torch.outer``)."""
    if input.ndim != 1:
        raise RuntimeError(f"outer: Expected 1-D argument self, but got {input.ndim}-D")
    if vec2.ndim != 1:
        raise RuntimeError(f"outer: Expected 1-D argument vec2, but got {vec2.ndim}-D")
    return mul(reshape(input, (-1, 1)), vec2)


ger = outer  # (the old name)


def kron(input: Tensor, other: Tensor) -> Tensor:
    """The Kronecker product, built as PyTorch builds it: two reshapes, a product, a reshape."""

    n = max(input.ndim, other.ndim)
    sa = (1,) * (n - input.ndim) + tuple(input._data.shape)
    sb = (1,) * (n - other.ndim) + tuple(other._data.shape)
    a_shape = tuple(x for s in sa for x in (s, 1))
    b_shape = tuple(x for s in sb for x in (1, s))
    out_shape = tuple(x * y for x, y in zip(sa, sb))
    product = mul(UnsafeView.apply(input, a_shape), UnsafeView.apply(other, b_shape))
    return UnsafeView.apply(product, out_shape)


# ---------------------------------------------------------------------------- cross, inner, tensordot
class LinalgCross(Function):
    """The cross product of 3-vectors along ``dim``, broadcast elsewhere. Its derivatives are cross
    products again: ``d self = other x grad``, ``d other = grad x self``."""

    node_name = "LinalgCrossBackward0"
    saved_names = ("self", "other")
    saved_for = ((1,), (0,))  # self for other's gradient, other for self's

    @staticmethod
    def forward(ctx: Any, a: Tensor, b: Tensor, dim: int) -> Tensor:
        ctx.dim, ctx._saved_dim = dim, dim % 2**64  # (the dim as given, shown as PyTorch's uint64)
        ctx.save_for_backward(a, b)
        x, y = (np.moveaxis(t._data, dim, 0) for t in (a, b))
        parts = [_products_difference(x[i], y[j], x[j], y[i]) for i, j in ((1, 2), (2, 0), (0, 1))]
        return Tensor._make(np.stack(np.broadcast_arrays(*parts), axis=dim))  # (a new row-major tensor)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None, None]:
        a, b = ctx.saved_tensors
        return (None if b is None else LinalgCross.apply(b, grad, ctx.dim),
                None if a is None else LinalgCross.apply(grad, a, ctx.dim), None)


def _products_difference(x: np.ndarray, y: np.ndarray, w: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``x * y - w * v`` as PyTorch's compiled cross kernel computes it: one fused multiply-add, ``x * y``
    exact and ``w * v`` rounded (:func:`fused_multiply_add`). float16 and the integers: NumPy's steps
    (integers wrap around, as in PyTorch)."""
    with np.errstate(over="ignore", invalid="ignore"):
        if x.dtype.char in "fd":
            return fused_multiply_add(x, y, -(w * v))
        return x * y - w * v


def linalg_cross(input: Tensor, other: Tensor, *, dim: int = -1) -> Tensor:
    """The cross product of the 3-vectors along ``dim`` (``torch.linalg.cross``): both tensors have the
    same number of dims, size 3 along ``dim``, and broadcast along the others."""
    if input.ndim != other.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    if input.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = _wrap_dim(int(dim), input.ndim)
    if input._data.shape[d] != 3 or other._data.shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{input._data.shape[d]} and {other._data.shape[d]}")
    broadcast_shape(input._data.shape, other._data.shape)
    if input._data.dtype == np.bool_:
        raise _not_implemented("cross", input._data.dtype)
    if other._data.dtype != input._data.dtype:  # (no promotion: the kernel reads other as input's type)
        raise RuntimeError(f"expected scalar type {scalar_type_name(input._data.dtype)} but found "
                           f"{scalar_type_name(other._data.dtype)}")
    return LinalgCross.apply(input, other, int(dim))


_CROSS_DIM_WARNED = [False]  # (PyTorch warns once per process)


def cross(input: Tensor, other: Tensor, dim: int | None = None) -> Tensor:
    """``torch.cross``: :func:`linalg_cross` along ``dim``; without it (deprecated, with PyTorch's
    warning, once), along the first dim of ``input`` of size 3 (``linalg.cross``'s default is -1)."""
    if dim is None:
        if not _CROSS_DIM_WARNED[0]:
            _CROSS_DIM_WARNED[0] = True
            warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\nPlease either "
                          "pass the dim explicitly or simply use torch.linalg.cross.\nThe default value of "
                          "dim will change to agree with that of linalg.cross in a future release.",
                          UserWarning, stacklevel=2)
        dim = next((i for i, n in enumerate(input._data.shape) if n == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    return linalg_cross(input, other, dim=dim)


def inner(input: Tensor, other: Tensor) -> Tensor:
    """Sums of products over the last dim of both (``torch.inner``): a product when either is 0-d, else
    ``tensordot(input, other, ([-1], [-1]))``, the graph PyTorch records."""
    if input.ndim == 0 or other.ndim == 0:
        return mul(input, other)
    if input._data.shape[-1] != other._data.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"[{', '.join(map(str, input._data.shape))}] and "
                           f"[{', '.join(map(str, other._data.shape))}]")
    return _tensordot(input, other, [-1], [-1])


def tensordot(a: Tensor, b: Tensor, dims: Any = 2, out: Any = None) -> Tensor:
    """Sums of products over pairs of dims (``torch.tensordot``): ``dims=d`` pairs the last ``d`` dims of
    ``a`` with the first ``d`` of ``b``; ``dims=([1, 0], [0, 1])`` names them (a tensor works too)."""
    if out is not None:
        raise TypeError("autograd_lab: tensordot(out=...) is not supported")
    if not isinstance(dims, (tuple, list, Tensor, int)):
        raise RuntimeError("tensordot expects dims to be int or tuple[list[int], list[int]] or "
                           f"list[list[int]] containing two lists, but got dims={dims}")
    dims_a: Any = []
    dims_b: Any = []
    if isinstance(dims, (tuple, list)):
        dims_a, dims_b = dims
    if isinstance(dims, Tensor):
        if dims.numel() > 1:
            if dims.shape[0] != 2:
                raise AssertionError(f"dims tensor must have size 2 in first dimension, got {dims.shape[0]}")
            dims_a, dims_b = dims[0].tolist(), dims[1].tolist()
        else:
            count = int(dims.item())
            if count < 0:  # (a 0-d tensor formats as its number, as PyTorch's)
                raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
            dims_a, dims_b = list(range(-count, 0)), list(range(count))
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a.ndim, b.ndim):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        dims_a, dims_b = list(range(-dims, 0)), list(range(dims))
    lists = []
    for name, position, value in (("dims_self", 3, dims_a), ("dims_other", 4, dims_b)):
        message = f"tensordot(): argument '{name}' (position {position}) must be tuple of ints, "
        if not isinstance(value, (tuple, list)):
            raise TypeError(message + f"not {type(value).__name__}")
        for i, d in enumerate(value):  # (PyTorch's argument parser takes a 0-d tensor of ints too)
            if isinstance(d, bool) or not isinstance(d, (int, Tensor)) or isinstance(d, Tensor) and (
                    d.ndim or d._data.dtype.kind not in "iu"):
                raise TypeError(message + f"but found element of type {type(d).__name__} at pos {i}")
        lists.append([int(d) for d in value])
    return _tensordot(a, b, *lists)


def _tensordot(t1: Tensor, t2: Tensor, dims1: list[int], dims2: list[int]) -> Tensor:
    """ATen's tensordot: the contracted dims moved last in ``t1`` and first in ``t2`` (permute), each
    reshaped to a matrix, one ``mm``, and the result reshaped (all dims contracted: a ``dot``)."""
    if len(dims1) != len(dims2):
        raise RuntimeError("both dimension lists should have same length")
    if t1._data.dtype != t2._data.dtype:
        raise RuntimeError("both inputs should have same dtype")
    shape1, shape2 = t1._data.shape, t2._data.shape
    contracted = 1
    for d1, d2 in zip(dims1, dims2):
        s1, s2 = shape1[_wrap_dim(d1, t1.ndim)], shape2[_wrap_dim(d2, t2.ndim)]
        if s2 == 1:  # a broadcast dim is summed right away
            t1 = t1.sum(d1, True)
        elif s1 == 1:
            t2 = t2.sum(d2, True)
        elif s1 != s2:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {s1} in dim {d1} "
                               f"and second has size {s2} in dim {d2}")
        else:
            contracted *= s1
    for dims, ndim in ((dims1, t1.ndim), (dims2, t2.ndim)):
        wrapped = [_wrap_dim(d, ndim) for d in dims]
        for d in wrapped:
            if wrapped.count(d) > 1:
                raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    kept1 = [i for i in range(t1.ndim) if i not in {_wrap_dim(d, t1.ndim) for d in dims1}]
    kept2 = [i for i in range(t2.ndim) if i not in {_wrap_dim(d, t2.ndim) for d in dims2}]
    size1 = int(np.prod([t1._data.shape[i] for i in kept1], dtype=np.int64))
    size2 = int(np.prod([t2._data.shape[i] for i in kept2], dtype=np.int64))
    out_shape = tuple(t1._data.shape[i] for i in kept1) + tuple(t2._data.shape[i] for i in kept2)
    p1, p2 = permute(t1, kept1 + dims1), permute(t2, dims2 + kept2)
    if size1 != 1 or size2 != 1:
        product = mm(reshape(p1, (size1, contracted)), reshape(p2, (contracted, size2)))
    elif p1.is_contiguous() and p2.is_contiguous():  # everything contracted: one dot
        product = dot(flatten(p1), flatten(p2))
    else:
        product = (squeeze(p1) * squeeze(p2)).sum(dtype=from_numpy_dtype(p1._data.dtype))
    return reshape(product, out_shape)


# ---------------------------------------------------------------------------- einsum
_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"  # PyTorch's order of labels


class Einsum(Function):
    """The core of ``einsum``: every operand's labels distinct, every label of an operand also in
    the output or in another operand (``einsum`` makes it so), so the gradient of each operand is
    again such an einsum, of the gradient with the other operands."""

    node_name = "EinsumBackward0"

    @staticmethod
    def forward(ctx: Any, spec: tuple[tuple[str, ...], str], *operands: Tensor) -> Tensor:
        ins, out = spec
        ctx.spec = spec
        ctx.save_for_backward(*operands)
        eq = ",".join(ins) + "->" + out
        arrays = [o._data for o in operands]
        result = np.einsum(eq, *arrays, optimize=len(arrays) > 2)
        return Tensor._make(np.asarray(result, dtype=np.result_type(*arrays)))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple:
        ins, out = ctx.spec
        operands = ctx.saved_tensors
        grads: list[Tensor | None] = [None]
        for k, labels in enumerate(ins):
            if not ctx.needs_input_grad[k + 1]:
                grads.append(None)
                continue
            others = [o for j, o in enumerate(operands) if j != k]
            other_labels = tuple(lab for j, lab in enumerate(ins) if j != k)
            grads.append(Einsum.apply(((out, *other_labels), labels), grad, *others))
        return tuple(grads)


def _parse_operand_labels(equation: str, lhs_end: int, n_ops: int) -> list[list[str]]:
    labels: list[list[str]] = [[]]
    found_ell = False
    i = 0
    while i < lhs_end:
        c = equation[i]
        if c == " ":
            pass
        elif c == ".":
            op = len(labels) - 1
            if found_ell:
                raise RuntimeError(
                    f"einsum(): found '.' for operand {op} for which an ellipsis was already found"
                )
            if not (i + 2 < lhs_end and equation[i + 1] == "." and equation[i + 2] == "."):
                raise RuntimeError(f"einsum(): found '.' for operand {op} that is not part of any ellipsis")
            labels[-1].append("...")
            found_ell = True
            i += 2
        elif c == ",":
            labels.append([])
            if len(labels) > n_ops:
                raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
            found_ell = False
        elif c in _LETTERS:
            labels[-1].append(c)
        else:
            raise RuntimeError(f"einsum(): invalid subscript given at index {i} in the equation string, "
                               "subscripts must be in [a-zA-Z]")
        i += 1
    if len(labels) != n_ops:
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    return labels


def einsum(equation: str, *operands: Any) -> Tensor:
    """Sums of products over labelled dimensions (``torch.einsum``), with repeated labels
    (diagonals), ellipsis and broadcasting; recorded as diagonal/expand/sum views and one
    ``EinsumBackward0`` node (PyTorch records permute/reshape/bmm nodes instead)."""

    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not operands:
        raise ValueError("einsum(): must specify the equation string and at least one operand, or at least "
                         "one operand and its subscripts list")
    arrow = equation.find("->")
    lhs_end = arrow if arrow >= 0 else len(equation)
    op_labels = _parse_operand_labels(equation, lhs_end, len(operands))

    # the number of dimensions the ellipsis covers, and how often each label appears
    ell_dims, count = 0, dict.fromkeys(_LETTERS, 0)
    for i, (t, labels) in enumerate(zip(operands, op_labels)):
        n = len([lab for lab in labels if lab != "..."])
        has_ell = "..." in labels
        if has_ell and n > t.ndim:
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({n}) is more than the "
                               f"number of dimensions ({t.ndim}) for operand {i}")
        if not has_ell and n != t.ndim:
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({n}) does not match the "
                               f"number of dimensions ({t.ndim}) for operand {i} and no ellipsis was given")
        if has_ell:
            ell_dims = max(ell_dims, t.ndim - n)
        for lab in labels:
            if lab != "...":
                count[lab] += 1
    unused = [c for c in _LETTERS if count[c] == 0 and c not in equation[lhs_end:]]
    if ell_dims > len(unused):
        raise RuntimeError("autograd_lab: einsum ran out of letters for the ellipsis dimensions")
    ell = unused[:ell_dims]

    # the output's labels
    if arrow < 0:
        out = ell + [c for c in _LETTERS if count[c] == 1]
    else:
        out, found_ell, i = [], False, arrow + 2
        while i < len(equation):
            c = equation[i]
            if c == " ":
                pass
            elif c == ".":
                if found_ell:
                    raise RuntimeError(
                        "einsum(): found '.' for output but an ellipsis (...) was already found"
                    )
                if not (i + 2 < len(equation) and equation[i + 1] == "." and equation[i + 2] == "."):
                    raise RuntimeError(
                        "einsum(): found '.' for output that is not part of any ellipsis (...)"
                    )
                out.extend(ell)
                found_ell = True
                i += 2
            elif c in _LETTERS:
                if c in out:
                    raise RuntimeError(f"einsum(): output subscript {c} appears more than once in the output")
                if count[c] == 0:
                    raise RuntimeError(f"einsum(): output subscript {c} does not appear in the equation "
                                       "for any input operand")
                out.append(c)
            else:
                raise RuntimeError(f"einsum(): invalid subscript given at index {i} in the equation string, "
                                   "subscripts must be in [a-zA-Z]")
            i += 1

    # each operand's labels in full (ellipsis spelled out) and each label's size (1 broadcasts)
    sizes: dict[str, int] = {}
    full: list[list[str]] = []
    for i, (t, labels) in enumerate(zip(operands, op_labels)):
        n_ell = t.ndim - (len(labels) - ("..." in labels))
        expanded: list[str] = []
        for lab in labels:
            expanded.extend(ell[ell_dims - n_ell:] if lab == "..." else [lab])
        seen: dict[str, int] = {}
        ell_start = labels.index("...") if "..." in labels else 0
        for j, (lab, size) in enumerate(zip(expanded, t._data.shape)):
            if lab in seen and seen[lab] != size:
                raise RuntimeError(f"einsum(): subscript {lab} is repeated for operand {i} but the sizes "
                                   f"don't match, {size} != {seen[lab]}")
            seen[lab] = size
            if lab in ell:
                prev = sizes.get(lab, 1)
                if prev != size and 1 not in (prev, size):
                    raise RuntimeError(
                        f"einsum(): dimension {j - ell_start} covered by ellipsis in operand {i}has size "
                        f"{size} which does not broadcast with previously seen ellipsis with size {prev} for "
                        "the respective dimension"
                    )
                sizes[lab] = max(prev, size)
                continue
            if lab in sizes and sizes[lab] != size and 1 not in (sizes[lab], size):
                raise RuntimeError(f"einsum(): subscript {lab} has size {size} for operand {i} which does "
                                   f"not broadcast with previously seen size {sizes[lab]}")
            sizes[lab] = size if lab not in sizes or sizes[lab] == 1 else sizes[lab]
        full.append(expanded)

    # bring each operand to distinct labels of full size, summing labels no one else needs
    dtype = result_dtype(*operands)
    prepared, prepared_labels = [], []
    for k, (t, labels) in enumerate(zip(operands, full)):
        if t._data.dtype != dtype:
            t = t.to(_dtype_of(dtype))
        labels = list(labels)
        while len(set(labels)) != len(labels):  # a repeated label: its diagonal
            lab = next(lab for lab in labels if labels.count(lab) > 1)
            p = labels.index(lab)
            q = labels.index(lab, p + 1)
            t = diagonal(t, 0, p, q)
            labels = [x for j, x in enumerate(labels) if j not in (p, q)] + [lab]
        if any(t._data.shape[j] != sizes[lab] for j, lab in enumerate(labels)):
            t = expand(t, tuple(sizes[lab] for lab in labels))
        needed = set(out) | {lab for j, ls in enumerate(full) if j != k for lab in ls}
        drop = [j for j, lab in enumerate(labels) if lab not in needed]
        if drop:
            t = t.sum(tuple(drop))
            labels = [lab for j, lab in enumerate(labels) if j not in drop]
        prepared.append(t)
        prepared_labels.append("".join(labels))
    return Einsum.apply((tuple(prepared_labels), "".join(out)), *prepared)


def _dtype_of(np_dtype: np.dtype) -> Any:
    return from_numpy_dtype(np_dtype)


# ---------------------------------------------------------------------------- det, slogdet, inv, solve
# PyTorch reads these from the LU factorization P L U of each matrix (LAPACK's getrf, partial pivoting):
# det(A) = sign(P) * prod(diag(U)), and A X = B is two triangular solves (getrs) with the same factors.
# NumPy has no LU (and np.linalg.det is exp(logdet): det([[1, 2], [3, 4]]) would not be -2.0 exactly), so
# _lu_factor and _lu_solve write LAPACK's loops out, a column at a time over a whole batch of matrices.
class _LinAlgError(RuntimeError):
    """``torch.linalg.LinAlgError`` (its class is ``torch._C._LinAlgError``): a matrix LAPACK cannot
    factor as asked, such as a singular matrix to invert."""


def _lu_factor(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """LAPACK's getrf on each matrix of ``a`` (*, n, n): for each column k, the row with the largest
    ``|a|`` at or below the diagonal is swapped up (the pivot), the column under the pivot divided by it
    (the multipliers: L) and the multiples of the pivot's row subtracted from the rows below (leaving U).

    Returns ``LU`` (L under the diagonal, its 1s left out; U on and above), ``pivots`` (*, n) int32 (as
    LAPACK's ipiv, 1-based: row k was swapped with row ``pivots[k] - 1``) and ``info`` (*) int32 (0, or the
    1-based place of the first 0 on U's diagonal: a singular matrix). Rounded as MKL's getrf, which
    PyTorch calls (the same bits, measured up to n = 16): the multipliers are the column times the
    pivot's reciprocal (divided where the pivot is tiny, and in the last column of a matrix of 4 rows or
    fewer)."""
    shape, n = a.shape, a.shape[-1]
    lu = np.array(a).reshape(math.prod(shape[:-2]), n, n)
    which = np.arange(lu.shape[0])
    pivots = np.zeros(lu.shape[:2], np.int32)
    info = np.zeros(lu.shape[0], np.int32)
    tiny = np.finfo(a.dtype).tiny
    with np.errstate(all="ignore"):
        for k in range(n):
            p = k + np.argmax(np.abs(lu[:, k:, k]), axis=1)
            pivots[:, k] = p + 1
            lu[which, k], lu[which, p] = lu[which, p], lu[which, k]
            pivot = lu[:, k, k, None]
            info[(info == 0) & (pivot[:, 0] == 0)] = k + 1
            column = lu[:, k + 1:, k]
            divide = (np.abs(pivot) < tiny) | (n <= 4 and k == n - 2)
            scaled = np.where(divide, column / pivot, column * (1 / pivot))
            lu[:, k + 1:, k] = np.where(pivot == 0, column, scaled)  # (a 0 pivot: a column of 0s, as it is)
            lu[:, k + 1:, k + 1:] -= lu[:, k + 1:, k, None] * lu[:, k, None, k + 1:]
    return lu.reshape(shape), pivots.reshape(shape[:-1]), info.reshape(shape[:-2])


def _lu_solve(lu: np.ndarray, pivots: np.ndarray, b: np.ndarray, adjoint: bool = False) -> np.ndarray:
    """LAPACK's getrs: X with ``M X = B`` (``M^T X = B`` with ``adjoint``), M = P L U given by its factors
    (batch dims broadcast): B's rows swapped as the pivots say, then L's forward substitution and U's back
    substitution (for M^T: U^T's, L^T's, then the rows swapped back)."""
    batch = np.broadcast_shapes(lu.shape[:-2], b.shape[:-2])
    n, k = b.shape[-2:]
    count = math.prod(batch)
    lu = np.broadcast_to(lu, batch + (n, n)).reshape(count, n, n)
    swaps = np.broadcast_to(pivots, batch + (n,)).reshape(count, n) - 1
    x = np.array(np.broadcast_to(b, batch + (n, k))).reshape(count, n, k)
    which = np.arange(x.shape[0])

    def swap(i: int) -> None:
        x[which, i], x[which, swaps[:, i]] = x[which, swaps[:, i]], x[which, i]

    with np.errstate(all="ignore"):
        if not adjoint:
            for i in range(n):
                swap(i)
            for i in range(n):  # L y = P^T b (L's diagonal is 1s)
                x[:, i + 1:] -= lu[:, i + 1:, i, None] * x[:, i, None]
            for i in reversed(range(n)):  # U x = y
                x[:, i] *= 1 / lu[:, i, i, None]
                x[:, :i] -= lu[:, :i, i, None] * x[:, i, None]
        else:
            for i in range(n):  # U^T y = b
                x[:, i] *= 1 / lu[:, i, i, None]
                x[:, i + 1:] -= lu[:, i, i + 1:, None] * x[:, i, None]
            for i in reversed(range(n)):  # L^T z = y
                x[:, :i] -= lu[:, i, :i, None] * x[:, i, None]
            for i in reversed(range(n)):
                swap(i)
    return x.reshape(batch + (n, k))


def _by_columns(x: np.ndarray) -> np.ndarray:
    """``x`` with each matrix laid out by columns (LAPACK's layout, and so PyTorch's for its LU factors
    and the results of its solvers: strides (.., 1, n))."""
    return np.swapaxes(np.ascontiguousarray(np.swapaxes(x, -1, -2)), -1, -2)


def _matrices(x: np.ndarray, by_columns: bool = True) -> Tensor:
    """A tensor of the matrices ``x``, laid out by columns (or by rows), PyTorch's strides kept for an
    empty one too (NumPy keeps none)."""
    t = Tensor._make(_by_columns(x) if by_columns else np.ascontiguousarray(x))
    if not x.size:
        steps = list(dtypes.empty_strides(t))
        if by_columns:
            steps[-2:] = [1, max(x.shape[-2], 1)]
        t._empty_strides = tuple(steps)
    return t


def _factor(A: Tensor, transposed: bool) -> tuple[Tensor, Tensor, np.ndarray]:
    """A's factors as PyTorch keeps them (``_saved_LU``, ``_saved_pivots``) and ``info``: of ``A^T`` with
    ``transposed`` (det and slogdet factor a row-major A so: LAPACK reads its memory as A^T, no copy, and
    det(A^T) = det(A)), else of A."""
    lu, pivots, info = _lu_factor(np.swapaxes(A._data, -1, -2) if transposed else A._data)
    return _matrices(lu), Tensor._make(pivots), info


def _det_of_factors(lu: np.ndarray, pivots: np.ndarray) -> np.ndarray:
    """sign(P) * prod(diag(U)): the product in order, as PyTorch's ``prod`` (a row swap changes the sign)."""
    product = np.ones(lu.shape[:-2], lu.dtype)
    for i in range(lu.shape[-1]):
        product = product * lu[..., i, i]
    return np.asarray(_permutation_sign(pivots).astype(lu.dtype) * product)


def _permutation_sign(pivots: np.ndarray) -> np.ndarray:
    """The sign of the permutation P: -1 for an odd number of row swaps (pivots[k] != k + 1)."""
    swaps = np.count_nonzero(pivots != np.arange(1, pivots.shape[-1] + 1), axis=-1)
    return 1 - 2 * (swaps % 2)


def _check_errors(info: np.ndarray, api: str, is_matrix: bool) -> None:
    """PyTorch's ``_linalg_check_errors``: the first matrix (in batch order) with a 0 on U's diagonal."""
    failed = np.flatnonzero(info)
    if failed.size:
        batch = "" if is_matrix else f": (Batch element {failed[0]})"
        if "inv" in api:
            raise _LinAlgError(f"{api}{batch}: The diagonal element {info.reshape(-1)[failed[0]]} is zero, "
                               "the inversion could not be completed because the input matrix is singular.")
        raise _LinAlgError(f"{api}{batch}: The solver failed because the input matrix is singular.")


def _check_square(A: Tensor, api: str) -> None:
    if A.ndim < 2:
        raise RuntimeError(f"{api}: The input tensor A must have at least 2 dimensions.")
    if A._data.shape[-1] != A._data.shape[-2]:
        rows, columns = A._data.shape[-2:]
        raise RuntimeError(f"{api}: A must be batches of square matrices, but they are {rows} by {columns} "
                           "matrices")


def _check_floating(A: Tensor, api: str, low_precision: bool = True) -> None:
    """A floating point tensor (float16: only where ``low_precision``; LAPACK has no float16 LU)."""
    if A._data.dtype.kind != "f":
        raise RuntimeError(f"{api}: Expected a floating point or complex tensor as input. Got "
                           f"{scalar_type_name(A._data.dtype)}")
    if not low_precision and A._data.dtype == np.float16:
        raise RuntimeError(f"{api}: Low precision dtypes not supported. Got Half")


def _no_half_lu(A: Tensor) -> None:
    if A._data.dtype == np.float16:
        raise _not_implemented("lu_cpu", A._data.dtype)


def _masked_fmap(mask: np.ndarray, f1: Any, f2: Any, t: Tensor, *ts: Tensor) -> Tensor:
    """PyTorch's masked_fmap: ``f1`` of the matrices where ``mask`` holds, ``f2`` of the others, put
    together with ``index_put_`` (one of them alone when the mask is all one way)."""
    if mask.all():
        return f1(t, *ts)
    if not mask.any():
        return f2(t, *ts)
    m = Tensor._make(mask)
    out = Tensor._make(np.empty_like(t._data))
    out.index_put_((m,), f1(t[m], *(x[m] for x in ts)))
    return out.index_put_((~m,), f2(t[~m], *(x[~m] for x in ts)))


class LinalgDet(Function):
    """``det(A) = sign(P) * prod(diag(U))``. Its gradient is ``grad * det(A) * A^{-T}`` (the matrix of
    cofactors), which PyTorch computes as a solve with the saved factors: ``A^T G = grad * det * I``.
    (``cofactors``: the dets of minors inside det's own gradient at a singular matrix, whose gradient
    must be the cofactors everywhere: see :func:`_cofactors_times`.)"""

    node_name = "LinalgDetBackward0"
    saved_names = ("A", "LU", "pivots", "result")

    @staticmethod
    def forward(ctx: Any, A: Tensor, cofactors: bool = False) -> Tensor:
        ctx.transposed, ctx.cofactors = A.is_contiguous(), cofactors
        lu, pivots, _ = _factor(A, ctx.transposed)
        out = Tensor._make(_det_of_factors(lu._data, pivots._data))
        ctx.save_for_backward(A, lu, pivots, out)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, None]:
        A, lu, pivots, result = ctx.saved_tensors
        if not A._data.size:
            return None, None
        if A._data.shape[-1] == 1:  # a 1x1 det is its element: the gradient is grad itself
            return expand(unsqueeze(unsqueeze(grad, -1), -1), A._data.shape), None
        eps = np.finfo(A._data.dtype).eps
        if not is_grad_enabled() and ctx.cofactors:
            return Tensor._make(_cofactors(A._data) * grad._data[..., None, None]), None
        if not is_grad_enabled():  # a 0 on U's diagonal taken as eps: a singular A's gradient is 0 (det 0)
            u = np.diagonal(lu._data, 0, -2, -1)
            factors = lu._data + _diagonal_matrices(np.where(u == 0, eps, 0).astype(u.dtype))
            d = _diagonal_matrices(np.broadcast_to((grad * result)._data[..., None], pivots._data.shape))
            return _matrices(_lu_solve(factors, pivots._data, d, adjoint=not ctx.transposed)), None
        # create_graph: a solve with A^T again (recorded), but where |det| < 100 eps the cofactors
        d = diag_embed(expand(unsqueeze(grad * result, -1), pivots._data.shape)).mT
        singular = np.abs(result._data) < 100 * eps
        return _masked_fmap(singular, _cofactors_times, _solve_transposed, A, d, grad), None


def _diagonal_matrices(v: np.ndarray) -> np.ndarray:
    out = np.zeros(v.shape + v.shape[-1:], v.dtype)
    np.einsum("...ii->...i", out)[...] = v
    return out


def _solve_transposed(A: Tensor, d: Tensor, grad: Tensor) -> Tensor:
    """det's gradient where A is invertible: ``solve(A^T, d)``, ``d`` the diagonal matrices of grad * det."""
    return solve(A.mT, d)


def _cofactors_times(A: Tensor, d: Tensor, grad: Tensor) -> Tensor:
    """det's gradient where A is (nearly) singular: ``grad`` times the cofactors ``C_ij = (-1)^(i+j)
    det(A without row i and column j)``, recorded as a det of each minor (PyTorch computes the same matrix
    from A's SVD, whose backward autograd_lab does not have: other nodes, the same values up to rounding).
    Those dets' own gradients are the minors' cofactors, singular or not, so that det's second derivative
    is right there too."""
    n = A._data.shape[-1]
    others = np.array([[j for j in range(n) if j != i] for i in range(n)], np.int64).reshape(n, n - 1)
    minors = A[..., Tensor._make(others[:, None, :, None]), Tensor._make(others[None, :, None, :])]
    signs = Tensor._make((1 - 2 * (np.add.outer(np.arange(n), np.arange(n)) % 2)).astype(A._data.dtype))
    return LinalgDet.apply(minors, True) * signs * unsqueeze(unsqueeze(grad, -1), -1)


def _cofactors(a: np.ndarray) -> np.ndarray:
    """The cofactor matrices of ``a`` (*, n, n), singular or not, from the SVD ``a = U S Vh`` (np.linalg's):
    ``det(U) det(Vh) U diag(prod_{j != i} s_j) Vh``, PyTorch's formula for det's gradient there."""
    u, s, vh = np.linalg.svd(a)
    ones = np.ones(s.shape[:-1] + (1,), s.dtype)
    before = np.concatenate([ones, np.cumprod(s[..., :-1], axis=-1)], axis=-1)
    after = np.concatenate([np.cumprod(s[..., :0:-1], axis=-1)[..., ::-1], ones], axis=-1)
    sign = np.sign(np.linalg.det(u) * np.linalg.det(vh))[..., None, None]
    return sign * (u * (before * after)[..., None, :]) @ vh


def det(A: Tensor) -> Tensor:
    """The determinant of each matrix of ``A`` (*, n, n) (``torch.linalg.det``, ``torch.det``)."""
    _check_square(A, "linalg.det")
    _check_floating(A, "linalg.det")
    _no_half_lu(A)
    return LinalgDet.apply(A, False)


class LinalgSlogdet(Function):
    """``sign(det(A))`` and ``log|det(A)|`` from the factors: the signs and the sum of the logs of U's
    diagonal. The gradient of ``logabsdet`` is ``grad * A^{-T}`` (that of ``sign`` is 0 for real A)."""

    node_name = "LinalgSlogdetBackward0"
    saved_names = ("A", "LU", "pivots", "sign")

    @staticmethod
    def forward(ctx: Any, A: Tensor) -> tuple[Tensor, Tensor]:
        ctx.transposed = A.is_contiguous()
        lu, pivots, _ = _factor(A, ctx.transposed)
        u = np.diagonal(lu._data, 0, -2, -1)
        sign = np.ones(u.shape[:-1], u.dtype)
        for i in range(u.shape[-1]):
            sign = sign * np.sign(u[..., i])
        sign = Tensor._make(np.asarray(sign * _permutation_sign(pivots._data).astype(u.dtype)))
        logs = np.ascontiguousarray(_log(np.abs(u)))
        total = torch_sum(logs, (logs.ndim - 1,))
        logabsdet = Tensor._make(row_major(total if total is not None else np.sum(logs, axis=-1)))
        ctx.set_materialize_grads(False)  # (no gradient for logabsdet: no gradient at all, as PyTorch's)
        ctx.save_for_backward(A, lu, pivots, sign)
        return sign, logabsdet

    @staticmethod
    def backward(ctx: Any, grad_sign: Tensor | None, grad_logabsdet: Tensor | None) -> Tensor | None:
        if grad_logabsdet is None:
            return None
        A, lu, pivots, _ = ctx.saved_tensors
        if not is_grad_enabled():
            d = _diagonal_matrices(np.broadcast_to(grad_logabsdet._data[..., None], pivots._data.shape))
            return _matrices(_lu_solve(lu._data, pivots._data, d, adjoint=not ctx.transposed))
        return solve(A.mT, diag_embed(expand(unsqueeze(grad_logabsdet, -1), pivots._data.shape)).mT)


SlogdetResult = namedtuple("slogdet", ["sign", "logabsdet"])
LinalgSlogdetResult = namedtuple("linalg_slogdet", ["sign", "logabsdet"])


def linalg_slogdet(A: Tensor) -> Any:
    """``(sign, logabsdet)`` of each matrix's determinant (``torch.linalg.slogdet``): ``det = sign *
    exp(logabsdet)`` without its overflow or underflow."""
    _check_square(A, "linalg.slogdet")
    _check_floating(A, "linalg.slogdet", low_precision=False)
    return LinalgSlogdetResult(*LinalgSlogdet.apply(A))


def slogdet(A: Tensor) -> Any:
    """``torch.slogdet``: :func:`linalg_slogdet`, its result named ``slogdet``."""
    return SlogdetResult(*linalg_slogdet(A))


class LinalgInvEx(Function):
    """The inverse, solved from the factors as PyTorch does (``A X = I``). Its gradient:
    ``-A^{-T} grad A^{-T}``."""

    node_name = "LinalgInvExBackward0"
    saved_names = ("inverse",)

    @staticmethod
    def forward(ctx: Any, A: Tensor) -> Tensor:
        lu, pivots, info = _factor(A, False)
        _check_errors(info, "linalg.inv", A.ndim == 2)
        eye = np.broadcast_to(np.eye(A._data.shape[-1], dtype=A._data.dtype), A._data.shape)
        out = _matrices(_lu_solve(lu._data, pivots._data, eye))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        (inverse,) = ctx.saved_tensors
        return -matmul(inverse.mT, matmul(grad, inverse.mT))  # (two transposes, as PyTorch records them)


def inv(A: Tensor) -> Tensor:
    """The inverse of each matrix of ``A`` (``torch.linalg.inv``, ``torch.inverse``); a singular one raises
    ``LinAlgError`` with the place of the 0 on U's diagonal."""
    _check_square(A, "linalg.inv")
    _check_floating(A, "linalg.inv", low_precision=False)
    return LinalgInvEx.apply(A)


inverse = inv


class LinalgSolveEx(Function):
    """X with ``A X = B`` (``X A = B`` with ``left=False``) from A's factors. Its gradients: ``gB =
    A^{-T} gX`` (another solve, with A^T) and ``gA = -gB X^T`` (``-X^T gB`` with ``left=False``)."""

    node_name = "LinalgSolveExBackward0"
    saved_names = ("A", "LU", "pivots", "result")

    @staticmethod
    def forward(ctx: Any, A: Tensor, B: Tensor, left: bool, vector: bool) -> Tensor:
        ctx._saved_left, ctx.vector = left, vector
        lu, pivots, info = _factor(A, False)
        _check_errors(info, "torch.linalg.solve", A.ndim == 2)
        if vector:  # (the vectors as the columns of a matrix; the result laid out as one, by columns)
            x = _lu_solve(lu._data, pivots._data, B._data[..., None])[..., 0]
            out = _matrices(x) if x.ndim > 1 else Tensor._make(x)
        elif left:
            out = _matrices(_lu_solve(lu._data, pivots._data, B._data))
        else:  # X A = B: A^T X^T = B^T, the result laid out by rows
            x = _lu_solve(lu._data, pivots._data, np.swapaxes(B._data, -1, -2), adjoint=True)
            out = _matrices(np.swapaxes(x, -1, -2), by_columns=False)
        ctx.save_for_backward(A, lu, pivots, out)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None, None, None]:
        A, lu, pivots, X = ctx.saved_tensors
        left, vector = ctx._saved_left, ctx.vector
        g = unsqueeze(grad, -1) if vector else grad
        if is_grad_enabled():  # a solve with A^T, recorded
            gB = solve(A.mT, g, left=left)
        elif left:
            gB = _matrices(_lu_solve(lu._data, pivots._data, g._data, adjoint=True))
        else:  # A Y = gX^T, gB = Y^T
            y = _lu_solve(lu._data, pivots._data, np.swapaxes(g._data, -1, -2))
            gB = _matrices(np.swapaxes(y, -1, -2), by_columns=False)
        gA = None
        if A.requires_grad:
            X = unsqueeze(X, -1) if vector else X
            gA = -matmul(gB, X.mT) if left else -matmul(X.mT, gB)
        return gA, (squeeze(gB, -1) if vector else gB) if ctx.needs_input_grad[1] else None, None, None


def _is_vector_rhs(A: Tensor, B: Tensor) -> bool:
    """NumPy's rule for ``solve(A, B)``: B is vectors if 1-D, or of A's shape without its last dim."""
    return B.ndim == 1 or A.ndim >= 1 and B.ndim == A.ndim - 1 and B._data.shape == A._data.shape[:-1]


def solve(A: Tensor, B: Tensor, *, left: bool = True, out: Any = None) -> Tensor:
    """X with ``A X = B`` for each matrix of ``A`` (``torch.linalg.solve``): B a matrix (*, n, k) or vectors
    (*, n), batch dims broadcast; ``left=False`` solves ``X A = B``."""
    if out is not None:
        raise TypeError("autograd_lab: linalg.solve(out=...) is not supported")
    _check_floating(A, "linalg.solve")
    if A._data.dtype != B._data.dtype:
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found A of type "
                           f"{scalar_type_name(A._data.dtype)} and B of type "
                           f"{scalar_type_name(B._data.dtype)} instead")
    vector = _is_vector_rhs(A, B)
    _check_square(A, "linalg.solve")
    b_shape = B._data.shape + (1,) if vector else B._data.shape
    if B.ndim + vector < 2:
        raise RuntimeError("linalg.solve: The input tensor B must have at least 2 dimensions.")
    n = A._data.shape[-1]
    if (b_shape[-2] if left else b_shape[-1]) != n:
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({n}x{n} and {b_shape[-2]}x{b_shape[-1]})")
    broadcast_shape(b_shape[:-2], A._data.shape[:-2])
    if vector and not left:
        raise RuntimeError("linalg.solve: Vector broadcasting of the left hand side is not supported for "
                           "left=False. In this case linalg.solve is equivalent to B / A.squeeze(-1)")
    _no_half_lu(A)
    return LinalgSolveEx.apply(A, B, left, vector)
