"""Matrix products: ``matmul`` dispatches by rank to dot, mv, mm or a batched product; addmm and its
kin; outer, kron, einsum.

For ``C = A @ B`` the vector-Jacobian products are ``dA = dC @ B^T`` and ``dB = A^T @ dC``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import tensor as _tensor
from ..dtypes import cpp_type_name, from_numpy_dtype, quiet_off, quiet_on, scalar_type_name
from ..function import Function, record_binary
from ..grad_mode import _state as _GRAD
from ..grad_mode import is_grad_enabled, no_grad
from ..tensor import INFERENCE_MODE, Tensor
from .arithmetic import mul
from .inplace import inplace
from .promotion import broadcast_shape, cast, result_dtype
from .scalar import MulNumber
from .view import SqueezeInplace, UnsafeView, diagonal, expand, reshape


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
        (n, k), (k2, m) = a._data.shape, b._data.shape
        if k != k2:
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({n}x{k} and {k2}x{m})")
        ctx.save_for_backward(a, b)
        ctx.column_major = (_column_major(a), _column_major(b))
        return Tensor._make(cast(_mm(a._data, b._data), a, b))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        a, b = ctx.saved_tensors
        g = grad._data
        if not is_grad_enabled() and (a is None or a._data.dtype == g.dtype) and (
                b is None or b._data.dtype == g.dtype):
            # no create_graph, nothing to record: the same products on the arrays (issue 17)
            col_a, col_b = ctx.column_major
            return (None if b is None else Tensor._make(_mm(b._data, g.T).T if col_a else _mm(g, b._data.T)),
                    None if a is None else Tensor._make(_mm(g.T, a._data).T if col_b else _mm(a._data.T, g)))
        return _product_grads(grad, a, b, *ctx.column_major)


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
    if not (x.ndim == 2 and y.ndim == 2 and x.dtype is y.dtype and x.dtype.kind == "f"
            and x.shape[1] == y.shape[0] and a._view_meta is None and b._view_meta is None):
        return None
    token = quiet_on()
    out = _mm(x, y)
    quiet_off(token)
    need_a = a._requires_grad or a._grad_fn is not None
    need_b = b._requires_grad or b._grad_fn is not None
    if not (need_a or need_b) or not _GRAD.enabled or (
            _tensor.open_inference_blocks and INFERENCE_MODE.enabled):
        return Tensor._make(out)  # nothing to record (Function.apply's forward alone)
    t = record_binary(Mm, out, a, b, y, (need_b, need_a))  # (Mm.forward's save_for_backward)
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
