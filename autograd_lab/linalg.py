"""``torch.linalg``: the norms, ``vecdot``, ``matmul`` and ``diagonal``, as PyTorch composes them from
the ops (``linalg.norm`` of a matrix with ``ord=1`` is an ``amax`` of column 1-norms: the graph shows
``AmaxBackward0`` over ``LinalgVectorNormBackward0``, as in PyTorch); ``det``, ``slogdet``, ``inv`` and
``solve`` from the LU factorization, and ``cross`` (:mod:`autograd_lab.ops.linalg`). What needs another
decomposition (``svd``, ``eig``, ``qr``, ``cholesky``, ..., the 2-norm and nuclear norm of a matrix) is not
here: it raises."""

from __future__ import annotations

import builtins
import math
from typing import Any

from .dtypes import scalar_type_name
from .dtypes import wrap_dim as _wrap_dim
from .ops.linalg import _LinAlgError, det, inv, matmul, solve  # (the same functions as torch.det, ...)
from .ops.linalg import linalg_cross as cross
from .ops.linalg import linalg_slogdet as slogdet
from .ops.reduction import LinalgVectorNorm, _dims, amax, amin
from .ops.reduction import norm as _tensor_norm
from .ops.reduction import sum as _sum
from .ops.view import diagonal as _diagonal
from .tensor import Tensor

__all__ = ["LinAlgError", "cross", "det", "diagonal", "inv", "matmul", "matrix_norm", "norm", "slogdet",
           "solve", "vecdot", "vector_norm"]

LinAlgError = _LinAlgError  # (PyTorch's torch.linalg.LinAlgError, a RuntimeError)

# torch.linalg's functions that need a decomposition autograd_lab does not implement
_MISSING = {"cholesky", "cholesky_ex", "cond", "eig", "eigh", "eigvals", "eigvalsh", "householder_product",
            "inv_ex", "ldl_factor", "ldl_factor_ex", "ldl_solve", "lstsq", "lu", "lu_factor", "lu_factor_ex",
            "lu_solve", "matrix_exp", "matrix_power", "matrix_rank", "multi_dot", "pinv", "qr", "solve_ex",
            "solve_triangular", "svd", "svdvals", "tensorinv", "tensorsolve", "vander"}


def __getattr__(name: str) -> Any:
    """``linalg.svd`` and torch.linalg's other names autograd_lab lacks: an AttributeError that says so."""
    if name in _MISSING:
        raise AttributeError(f"autograd_lab.linalg has no {name}: torch.linalg.{name} is not implemented "
                             "here (autograd_lab has the norms and the LU-based det, slogdet, inv, solve)")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def vector_norm(x: Tensor, ord: Any = 2, dim: Any = None, keepdim: bool = False, *,
                dtype: Any = None) -> Tensor:
    """The ``ord``-norm of ``x`` as a vector over ``dim`` (every element when None):
    ``(sum |x|^ord)^(1/ord)``, the largest ``|x|`` for inf, the number of non-zeros for 0
    (``torch.linalg.vector_norm``)."""
    if dtype is not None:
        raise TypeError("autograd_lab: linalg.vector_norm(dtype=...) is not supported; cast x first "
                        "(x.to(dtype)), which records a ToCopyBackward0 PyTorch does not")
    if isinstance(ord, str) or isinstance(ord, bool) or not isinstance(ord, (int, float)):
        raise TypeError(f"linalg_vector_norm(): argument 'ord' (position 2) must be Number, not "
                        f"{type(ord).__name__}")
    if x._data.dtype.kind != "f":
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           f"{scalar_type_name(x._data.dtype)}")
    return _tensor_norm(x, float(ord), dim, keepdim)


_MATRIX_NORM_SIGNATURES = [  # (PyTorch's argument parser lists them so)
    f"Tensor input, {ord_} ord{default}, tuple of ints dim = {{-2,-1}}, bool keepdim = False, *, torch.dtype "
    "dtype = None, Tensor out = None" for ord_, default in (("Number", ""), ("str", ' = "fro"'))]


def matrix_norm(A: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """``matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None)``: the ``ord``-norm of
    ``A``'s matrices over the two dims ``dim``: ``"fro"`` (the vector 2-norm of their elements), 1 and -1
    (the largest and smallest column 1-norm), inf and -inf (row 1-norms), as ``torch.linalg.matrix_norm``
    composes them. ``"nuc"`` and +-2 need singular values: they raise."""
    given = dict(zip(("ord", "dim", "keepdim"), args)) | kwargs
    ord, dim, keepdim = given.get("ord", "fro"), given.get("dim", (-2, -1)), given.get("keepdim", False)
    if len(args) > 3 or set(kwargs) - {"ord", "dim", "keepdim", "dtype"} or set(kwargs) & set(
            ("ord", "dim", "keepdim")[:len(args)]) or not isinstance(ord, (str, int, float)) or isinstance(
            ord, bool) or not isinstance(dim, (tuple, list)) or not isinstance(keepdim, bool):
        got = ", ".join(["Tensor", *(type(a).__name__ for a in args),
                         *(f"{k}={type(v).__name__}" for k, v in kwargs.items())])
        raise TypeError(f"linalg_matrix_norm() received an invalid combination of arguments - got ({got}), "
                        "but expected one of:\n" + "".join(f" * ({s})\n" for s in _MATRIX_NORM_SIGNATURES))
    if given.get("dtype") is not None:
        raise TypeError("autograd_lab: linalg.matrix_norm(dtype=...) is not supported; cast A first")
    numeric = not isinstance(ord, str)
    if numeric and builtins.abs(float(ord)) not in (1.0, 2.0, math.inf) or not numeric and ord not in (
            "fro", "nuc"):
        shown = f"{float(ord):g}" if numeric else ord
        raise RuntimeError(f"linalg.matrix_norm: Order {shown} not supported.")
    if A.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    dims = list(dim)
    if len(dims) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(map(str, dims))}")
    dims = [_wrap_dim(d, A.ndim) for d in dims]
    if dims[0] == dims[1]:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dims[0]}, {dims[1]})")
    if A._data.dtype.kind != "f":
        raise RuntimeError(f"linalg.matrix_norm: Expected a floating point or complex tensor as input. Got "
                           f"{scalar_type_name(A._data.dtype)}")
    if not numeric and ord == "fro":
        return LinalgVectorNorm.apply(A, 2.0, _dims(tuple(dims), A.ndim), keepdim, False)
    if not numeric or builtins.abs(float(ord)) == 2.0:
        raise NotImplementedError(f"autograd_lab: linalg.matrix_norm(ord={ord!r}) needs the singular values "
                                  "(linalg.svdvals), which autograd_lab does not have")
    if float(ord) in (math.inf, -math.inf):  # the inf norm: the 1 norm of the transposed matrix
        dims.reverse()
    if not keepdim and dims[0] < dims[1]:  # the first reduction removed a dim before the second
        dims[1] -= 1
    sums = LinalgVectorNorm.apply(A, 1.0, (dims[0],), keepdim, False)
    return (amax if float(ord) > 0 else amin)(sums, dims[1], keepdim)


def norm(A: Tensor, ord: Any = None, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """A vector or a matrix norm (``torch.linalg.norm``): ``ord=None`` is the 2-norm of every element
    (of ``dim``); a number with a 2-d ``A`` (or two dims) a matrix norm; otherwise a vector norm."""
    if dim is not None:
        dims = [dim] if isinstance(dim, int) else list(dim)
        if len(dims) not in (1, 2):
            raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got "
                               f"[{', '.join(map(str, dims))}]")
    elif ord is not None and A.ndim not in (1, 2):
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
                           f"Got {A.ndim}D.")
    if isinstance(ord, str):
        return matrix_norm(A, ord, (0, 1) if dim is None else tuple(dims), keepdim, dtype=dtype)
    if ord is not None and (dim is not None and len(dims) == 2 or dim is None and A.ndim == 2):
        return matrix_norm(A, ord, (0, 1) if dim is None else tuple(dims), keepdim, dtype=dtype)
    return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)


def vecdot(x: Tensor, y: Tensor, *, dim: int = -1) -> Tensor:
    """The dot product of ``x`` and ``y`` along ``dim``, broadcast elsewhere (``torch.linalg.vecdot``:
    ``(x * y).sum(dim)`` for real tensors)."""
    return _sum(x * y, dim)


def diagonal(A: Tensor, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """A view of the diagonals of ``A``'s matrices (``torch.linalg.diagonal``)."""
    return _diagonal(A, offset, dim1, dim2)

