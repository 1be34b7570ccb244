"""Shape operations: views (reshape, transpose, indexing, ...), joins (cat, stack) and ``sum_to_size``.

A *view* shares its input's memory and version counter: an in-place change through one is seen,
and counted, by the other, as in PyTorch. The gradient of a view op is the inverse movement of the
gradient (reshape back, transpose back, scatter into zeros).
"""

from __future__ import annotations

import builtins
import warnings
from typing import Any

import numpy as np

from .. import dtypes
from ..dtypes import size_arg
from ..dtypes import wrap_dim as _wrap_dim
from ..function import Function, _expandable_to
from ..tensor import Tensor, ViewMeta
from .mathematic import clone
from .promotion import as_operand, result_dtype


def _view(a: Tensor, arr: np.ndarray) -> Tensor:
    """A result that shares ``a``'s memory: it shares its version counter and base too."""
    t = Tensor._make(arr)
    t._version_counter = a._version_counter
    t._base = a._base if a._base is not None else a
    t._view_meta = ViewMeta(a._version_counter.value, False)  # Function.apply sets no_grad
    return t


def _infer_shape(shape: tuple[int, ...], numel: int) -> tuple[int, ...]:
    """Resolve one -1 in ``shape`` and check the element count (PyTorch's messages)."""
    unknown = [i for i, s in enumerate(shape) if s == -1]
    if len(unknown) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for s in shape:
        if s != -1:
            if s < 0:
                raise RuntimeError(f"invalid shape dimension {s}")
            known *= s
    if unknown:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size {numel}")
        shape = tuple(numel // known if s == -1 else s for s in shape)
    elif known != numel:
        raise RuntimeError(f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size {numel}")
    return shape


# ---------------------------------------------------------------------------- views
class View(Function):
    node_name = "ViewBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor, shape: tuple[int, ...]) -> Tensor:
        ctx.shape = a._data.shape
        try:
            arr = np.reshape(a._data, shape, copy=False)
        except ValueError:
            raise RuntimeError(
                "view size is not compatible with input tensor's size and stride (at least one "
                "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
            ) from None
        return _view(a, arr)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return grad.reshape(ctx.shape), None


class ReshapeAlias(View):
    """``reshape`` of a non-contiguous tensor that can still be a view (``_reshape_alias``)."""

    node_name = "ReshapeAliasBackward0"


class UnsafeView(Function):
    """The reshape of a copy (what ``reshape`` does when a view is impossible)."""

    node_name = "UnsafeViewBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor, shape: tuple[int, ...]) -> Tensor:
        ctx.shape = a._data.shape
        return Tensor._make(np.reshape(a._data, shape))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return grad.reshape(ctx.shape), None


class Expand(Function):
    node_name = "ExpandBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor, shape: tuple[int, ...]) -> Tensor:
        ctx.shape = a._data.shape
        return _view(a, np.broadcast_to(a._data, shape))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return grad.sum_to_size(ctx.shape), None


class Transpose(Function):
    node_name = "TransposeBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor, d0: int, d1: int) -> Tensor:
        ctx.dims = (d0, d1)
        return _view(a, a._data[...] if d0 == d1 else np.swapaxes(a._data, d0, d1))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None]:
        return grad.transpose(*ctx.dims), None, None


class T(Transpose):
    node_name = "TBackward0"


class Permute(Function):
    node_name = "PermuteBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor, dims: tuple[int, ...]) -> Tensor:
        ctx.inverse = tuple(int(i) for i in np.argsort(dims))
        return _view(a, np.transpose(a._data, dims))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return grad.permute(ctx.inverse), None


class Squeeze(Function):
    node_name = "SqueezeBackward1"

    @staticmethod
    def forward(ctx: Any, a: Tensor, dims: tuple[int, ...]) -> Tensor:
        ctx.shape = a._data.shape
        return _view(a, np.squeeze(a._data, axis=dims))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return grad.reshape(ctx.shape), None


class SqueezeAll(Squeeze):
    node_name = "SqueezeBackward0"


class SqueezeInplace(Squeeze):
    """The in-place ``squeeze_(dim)`` PyTorch's matmul applies to the result of ``vector @ matrix``."""

    node_name = "SqueezeBackward4"


class Alias(Function):
    """``a[...]``, ``a[:, :]``: an index that selects everything is a plain view of ``a``."""

    node_name = "AliasBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor) -> Tensor:
        return _view(a, a._data[...])

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        return grad


class Unsqueeze(Function):
    node_name = "UnsqueezeBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor, dim: int) -> Tensor:
        ctx.dim = dim
        return _view(a, np.expand_dims(a._data, dim))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return grad.squeeze(ctx.dim), None


class Select(Function):
    node_name = "SelectBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor, dim: int, index: int) -> Tensor:
        ctx.shape = a._data.shape
        ctx.key = (slice(None),) * dim + (index,)
        return _view(a, a._data[ctx.key])

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None]:
        return Scatter.apply(grad, ctx.shape, ctx.key, False), None, None


class Slice(Function):
    node_name = "SliceBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor, dim: int, sl: slice) -> Tensor:
        ctx.shape = a._data.shape
        ctx.key = (slice(None),) * dim + (sl,)
        return _view(a, a._data[ctx.key])

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None]:
        return Scatter.apply(grad, ctx.shape, ctx.key, False), None, None


class Index(Function):
    """Advanced indexing (integer or boolean arrays): the result is a copy."""

    node_name = "IndexBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor, key: tuple) -> Tensor:
        ctx.shape, ctx.key = a._data.shape, key
        try:
            return Tensor._make(np.asarray(a._data[key]))
        except IndexError as e:
            raise IndexError(str(e).replace("axis", "dimension")) from None

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return Scatter.apply(grad, ctx.shape, ctx.key, True), None


class Scatter(Function):
    """The gradient of indexing: the gradient placed into zeros (repeated indices add up)."""

    node_name = "IndexBackwardBackward0"

    @staticmethod
    def forward(ctx: Any, grad: Tensor, shape: tuple[int, ...], key: tuple, accumulate: bool) -> Tensor:
        ctx.key = key
        out = np.zeros(shape, dtype=grad._data.dtype)
        if accumulate:
            np.add.at(out, key, grad._data)
        else:
            out[key] = grad._data
        return Tensor._make(out)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None, None]:
        return getitem(grad, ctx.key), None, None, None


class IndexPut(Function):
    """``t[key] = value`` on a tensor in a graph, for a basic key: PyTorch's ``CopySlices`` node."""

    node_name = "CopySlices"

    @staticmethod
    def forward(ctx: Any, a: Tensor, value: Tensor, key: tuple) -> Tensor:
        out = np.array(a._data, copy=True)
        try:
            out[key] = value._data
        except ValueError:
            target = np.empty(a._data.shape)[key].shape
            raise RuntimeError(
                f"shape mismatch: value tensor of shape [{', '.join(map(str, value._data.shape))}] "
                f"cannot be broadcast to indexing result of shape [{', '.join(map(str, target))}]"
            ) from None
        keep = np.ones(a._data.shape, dtype=bool)
        keep[key] = False
        ctx.keep, ctx.key = keep, key
        return Tensor._make(out)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, Tensor, None]:
        grad_a = grad * Tensor._make(ctx.keep.astype(grad._data.dtype))
        return grad_a, getitem(grad, ctx.key), None


class IndexPutAdvanced(IndexPut):
    """``t[indices] = value`` with integer or boolean array indices (PyTorch's ``index_put_``)."""

    node_name = "IndexPutBackward0"


# ---------------------------------------------------------------------------- joins
class Cat(Function):
    node_name = "CatBackward0"

    @staticmethod
    def forward(ctx: Any, dim: int, *tensors: Tensor) -> Tensor:
        ref = tensors[0]._data.shape
        for i, t in enumerate(tensors):
            s = t._data.shape
            if len(s) != len(ref):
                raise RuntimeError(
                    f"Tensors must have same number of dimensions: got {len(ref)} and {len(s)}"
                )
            for d in range(len(ref)):
                if d != dim and s[d] != ref[d]:
                    raise RuntimeError(
                        f"Sizes of tensors must match except in dimension {dim}. Expected size "
                        f"{ref[d]} but got size {s[d]} for tensor number {i} in the list."
                    )
        ctx.dim = dim
        ctx.sizes = [t._data.shape[dim] for t in tensors]
        dtype = result_dtype(*tensors)
        return Tensor._make(np.concatenate([t._data for t in tensors], axis=dim).astype(dtype, copy=False))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple:
        pieces, start = [], 0
        for size in ctx.sizes:
            pieces.append(narrow(grad, ctx.dim, start, size))
            start += size
        return (None, *pieces)


class Stack(Function):
    node_name = "StackBackward0"

    @staticmethod
    def forward(ctx: Any, dim: int, *tensors: Tensor) -> Tensor:
        ref = tensors[0]._data.shape
        for i, t in enumerate(tensors):
            if t._data.shape != ref:
                raise RuntimeError(
                    f"stack expects each tensor to be equal size, but got [{', '.join(map(str, ref))}] "
                    f"at entry 0 and [{', '.join(map(str, t._data.shape))}] at entry {i}"
                )
        ctx.dim, ctx.n = dim, len(tensors)
        dtype = result_dtype(*tensors)
        return Tensor._make(np.stack([t._data for t in tensors], axis=dim).astype(dtype, copy=False))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple:
        return (None, *(Select.apply(grad, ctx.dim, i) for i in range(ctx.n)))


class Split(Function):
    """``split``/``chunk``: one node with one output per piece, each a view of the input."""

    node_name = "SplitBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor, dim: int, sizes: tuple[int, ...], op: str) -> tuple[Tensor, ...]:
        ctx.dim = dim
        pieces, start = [], 0
        for size in sizes:
            piece = _view(a, a._data[(slice(None),) * dim + (slice(start, start + size),)])
            piece._view_meta.multi = (op, len(pieces))  # such views must not change in place
            pieces.append(piece)
            start += size
        return tuple(pieces)

    @staticmethod
    def backward(ctx: Any, *grads: Tensor) -> tuple[Tensor, None, None, None]:
        # unused pieces arrive as zeros (materialized by the node), so the pieces join back whole
        return cat(grads, ctx.dim), None, None, None


class SplitWithSizes(Split):
    node_name = "SplitWithSizesBackward0"



# ---------------------------------------------------------------------------- functional forms
def reshape(a: Tensor, shape: tuple[int, ...]) -> Tensor:
    shape = _infer_shape(shape, a._data.size)
    try:
        np.reshape(a._data, shape, copy=False)
    except ValueError:
        return UnsafeView.apply(clone(a), shape)
    # as PyTorch 2.13: a view of a contiguous tensor is `view`, of another one `_reshape_alias`
    return View.apply(a, shape) if a._data.flags.c_contiguous else ReshapeAlias.apply(a, shape)


def view(a: Tensor, *shape: Any) -> Tensor:
    """``a.view(2, 3)`` or ``a.view((2, 3))``: the same memory seen with another shape (one size may
    be -1)."""
    if len(shape) == 1 and isinstance(shape[0], dtypes.dtype):
        raise NotImplementedError("view(dtype) is not supported by autograd_lab")
    return View.apply(a, _infer_shape(size_arg(shape), a._data.size))


def view_as(a: Tensor, other: Tensor) -> Tensor:
    """``a.view(other.shape)``."""
    return view(a, other.shape)


def reshape_as(a: Tensor, other: Tensor) -> Tensor:
    """``a.reshape(other.shape)``."""
    return reshape(a, other.shape)


def flatten(a: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    if a.ndim == 0:
        return reshape(a, (1,))
    s, e = _wrap_dim(start_dim, a.ndim), _wrap_dim(end_dim, a.ndim)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    shape = a._data.shape
    return reshape(a, shape[:s] + (-1,) + shape[e + 1:]) if s != e else a


def expand(a: Tensor, sizes: tuple[int, ...]) -> Tensor:
    shape = a._data.shape
    if len(sizes) < len(shape):
        raise RuntimeError(
            f"expand(torch.FloatTensor{{[{', '.join(map(str, shape))}]}}, "
            f"size=[{', '.join(map(str, sizes))}]): the number of sizes provided ({len(sizes)}) must be "
            f"greater or equal to the number of dimensions in the tensor ({len(shape)})"
        )
    lead = len(sizes) - len(shape)
    target = []
    for i, s in enumerate(sizes):
        old = shape[i - lead] if i >= lead else None
        if s == -1:
            if old is None:
                raise RuntimeError(
                    f"The expanded size of the tensor (-1) isn't allowed in a leading, non-existing "
                    f"dimension {i}"
                )
            s = old
        if old is not None and old != s and old != 1:
            raise RuntimeError(
                f"The expanded size of the tensor ({s}) must match the existing size ({old}) at "
                f"non-singleton dimension {i}.  Target sizes: [{', '.join(map(str, sizes))}].  "
                f"Tensor sizes: [{', '.join(map(str, shape))}]"
            )
        target.append(s)
    return Expand.apply(a, tuple(target))


def expand_as(a: Tensor, other: Tensor) -> Tensor:
    """``a.expand(other.shape)``."""
    return expand(a, tuple(other.shape))


def transpose(a: Tensor, dim0: int, dim1: int) -> Tensor:
    n = builtins.max(a.ndim, 1)
    return Transpose.apply(a, _wrap_dim(dim0, n) if a.ndim else 0, _wrap_dim(dim1, n) if a.ndim else 0)


def t(a: Tensor) -> Tensor:
    if a.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {a.ndim}D")
    if a.ndim < 2:
        return T.apply(a, 0, 0)
    return T.apply(a, 0, 1)


def numpy_T(a: Tensor) -> Tensor:
    """``a.T``: the dimensions reversed; PyTorch warns that this is deprecated for other than 2-D tensors."""
    if a.ndim == 0:
        warnings.warn("Tensor.T is deprecated on 0-D tensors. This function is the identity in these "
                      "cases.", UserWarning, stacklevel=2)
    elif a.ndim != 2:
        warnings.warn(
            "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated "
            "and it will throw an error in a future release. Consider `x.mT` to transpose batches of "
            "matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a "
            "tensor.", UserWarning, stacklevel=2)
    return permute(a, tuple(range(a.ndim - 1, -1, -1)))


def mT(a: Tensor) -> Tensor:
    """``a.mT``: the last two dimensions swapped (a batch of matrices transposed)."""
    return transpose(a, -2, -1)


def permute(a: Tensor, dims: tuple[int, ...]) -> Tensor:
    if len(dims) != a.ndim:
        raise RuntimeError(
            "permute(sparse_coo): number of dimensions in the tensor input does not match the length "
            f"of the desired ordering of dimensions i.e. input.dim() = {a.ndim} is not equal to "
            f"len(dims) = {len(dims)}"
        )
    wrapped = tuple(_wrap_dim(d, a.ndim) for d in dims)
    if len(set(wrapped)) != len(wrapped):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return Permute.apply(a, wrapped)


def squeeze(a: Tensor, dim: Any = None) -> Tensor:
    if dim is None:
        return SqueezeAll.apply(a, tuple(i for i, s in enumerate(a._data.shape) if s == 1))
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    dims = tuple(_wrap_dim(d, a.ndim) for d in dims) if a.ndim else ()
    return Squeeze.apply(a, tuple(d for d in dims if a._data.shape[d] == 1))


def unsqueeze(a: Tensor, dim: int) -> Tensor:
    return Unsqueeze.apply(a, _wrap_dim(dim, a.ndim + 1))


def narrow(a: Tensor, dim: int, start: int, length: int) -> Tensor:
    return Slice.apply(a, dim, slice(start, start + length))


def sum_to_size(a: Tensor, shape: tuple[int, ...]) -> Tensor:
    """Sum ``a`` down to ``shape`` (the reverse of broadcasting ``shape`` up to ``a.shape``)."""
    shape = tuple(shape)
    if a._data.shape == shape:
        return a
    if not _expandable_to(shape, a._data.shape):
        raise RuntimeError(
            f"size {{[{', '.join(map(str, shape))}]}} is not expandable to size "
            f"{{[{', '.join(map(str, a._data.shape))}]}}."
        )
    lead = a.ndim - len(shape)
    dims = tuple(range(lead)) + tuple(
        lead + i for i, s in enumerate(shape) if s == 1 and a._data.shape[lead + i] != 1
    )
    out = a.sum(dims, keepdim=True) if dims else a
    return out.view(shape) if out._data.shape != shape else out


def _index_part(k: Any) -> Any:
    if isinstance(k, Tensor):
        return k._data
    if isinstance(k, list):
        return np.asarray([_index_part(x) for x in k])
    return k


def _normalize_key(key: Any) -> tuple[tuple, bool]:
    if not isinstance(key, tuple):
        key = (key,)
    key = tuple(_index_part(k) for k in key)
    advanced = any(isinstance(k, np.ndarray) and k.ndim > 0 or isinstance(k, np.ndarray)
                   and k.dtype == np.bool_ for k in key)
    for k in key:
        if isinstance(k, np.ndarray) and k.dtype.kind not in "iub":
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    return key, advanced


def getitem(a: Tensor, key: Any) -> Tensor:
    """``a[key]``: basic indexing as a chain of Select/Slice/Unsqueeze views, as PyTorch records it;
    integer or boolean array indices as one ``Index`` op (a copy)."""
    if isinstance(key, slice):  # a[start:stop]: always a SliceBackward0, even when it takes all
        if key.step is not None and key.step <= 0:
            raise ValueError("step must be greater than zero")
        if a.ndim == 0:
            raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                             "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
        return Slice.apply(a, 0, key)
    key, advanced = _normalize_key(key)
    if advanced:
        return Index.apply(a, key)
    specified = builtins.sum(1 for k in key if k is not None and k is not Ellipsis)
    if specified > a.ndim:
        raise IndexError(f"too many indices for tensor of dimension {a.ndim}")
    if builtins.sum(1 for k in key if k is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    out, dim = a, 0
    for k in key:
        if k is None:
            out = Unsqueeze.apply(out, dim)
            dim += 1
        elif k is Ellipsis:
            dim += a.ndim - specified
        elif isinstance(k, slice):
            if k.step is not None and k.step <= 0:
                raise ValueError("step must be greater than zero")
            if k.indices(out._data.shape[dim]) != (0, out._data.shape[dim], 1):
                out = Slice.apply(out, dim, k)
            dim += 1
        elif isinstance(k, (int, np.integer)) or (isinstance(k, np.ndarray) and k.ndim == 0):
            k = int(k)
            size = out._data.shape[dim]
            if not -size <= k < size:
                raise IndexError(f"index {k} is out of bounds for dimension {dim} with size {size}")
            out = Select.apply(out, dim, k)
        else:
            raise IndexError(
                "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
                f"valid indices (got {type(k).__name__})"
            )
    if out is a:  # a[...] or a[:, :]: still a new tensor, a view of a
        return Alias.apply(a)
    return out


def index_put(a: Tensor, key: Any, value: Any) -> Tensor:
    """``a`` with ``a[key] = value`` applied, out of place (the in-place form wraps this).

    Recorded as PyTorch records it: array indices as one ``IndexPutBackward0``; a basic key as
    ``CopySlices`` (or, when it selects all of ``a``, a plain copy, ``CopyBackwards``), with the value
    first brought to the selected shape as PyTorch's ``copy_to`` does (a view without its leading
    1s, then an expand), unless it has that shape already or is 0-d.
    """
    key, advanced = _normalize_key(key)
    value = as_operand(value, a._data.dtype)
    if value._data.dtype != a._data.dtype:
        value = value.to(a.dtype)
    if advanced:
        return IndexPutAdvanced.apply(a, value, key)
    target = np.empty(a._data.shape, dtype=np.bool_)[key].shape
    if value._data.shape != target and value._data.ndim > 0:
        shape = value._data.shape
        while shape and shape[0] == 1:
            shape = shape[1:]
        value = expand(View.apply(value, shape), target)
    if _selects_all(a._data.shape, key):
        from .inplace import copy_from

        return copy_from(a, value)
    return IndexPut.apply(a, value, key)


def _selects_all(shape: tuple[int, ...], key: tuple) -> bool:
    """Whether a basic key is made of Ellipsis and slices that each take a whole dimension."""
    if not all(k is Ellipsis or isinstance(k, slice) for k in key):
        return False
    before = key.index(Ellipsis) if Ellipsis in key else len(key)
    dims = list(range(before)) + list(range(len(shape) - (len(key) - before - 1), len(shape)))
    parts = [k for k in key if k is not Ellipsis]
    return all(k.indices(shape[d]) == (0, shape[d], 1) for k, d in zip(parts, dims))


def cat(tensors: Any, dim: int = 0) -> Tensor:
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("torch.cat(): expected a non-empty list of Tensors")
    return Cat.apply(_wrap_dim(dim, tensors[0].ndim), *tensors)


def stack(tensors: Any, dim: int = 0) -> Tensor:
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    return Stack.apply(_wrap_dim(dim, tensors[0].ndim + 1), *tensors)


def chunk(a: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    d = _wrap_dim(dim, a.ndim)
    size = -(-a._data.shape[d] // chunks)
    return split(a, size, d)


def split(a: Tensor, split_size: Any, dim: int = 0) -> tuple[Tensor, ...]:
    """Pieces of ``split_size`` along ``dim`` (the last may be smaller), or of the listed sizes."""
    d = _wrap_dim(dim, a.ndim)
    n = a._data.shape[d]
    if isinstance(split_size, (int, np.integer)):
        sizes = [int(split_size)] * (n // split_size) + ([n % split_size] if n % split_size else [])
        return Split.apply(a, d, tuple(sizes or [0]), "Split")
    sizes = [int(s) for s in split_size]
    if builtins.sum(sizes) != n:
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size at "
            f"dimension {d}), but got split_sizes={sizes}"
        )
    return SplitWithSizes.apply(a, d, tuple(sizes), "SplitWithSizes")


# ---------------------------------------------------------------------------- more shape ops
def _dims_list(dims: Any) -> list[int]:
    return [int(dims)] if isinstance(dims, (int, np.integer)) else [int(d) for d in dims]


class Flip(Function):
    node_name = "FlipBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor, dims: tuple[int, ...]) -> Tensor:
        ctx.dims = dims
        return Tensor._make(np.array(np.flip(a._data, dims) if dims else a._data, copy=True))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return Flip.apply(grad, ctx.dims), None


class Roll(Function):
    node_name = "RollBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor, shifts: tuple[int, ...], dims: tuple[int, ...] | None) -> Tensor:
        ctx.shifts, ctx.dims = shifts, dims
        if a._data.size == 0:
            return Tensor._make(np.array(a._data, copy=True))
        if dims is None:
            return Tensor._make(np.roll(a._data, shifts[0]))
        return Tensor._make(np.roll(a._data, shifts, dims))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None]:
        return Roll.apply(grad, tuple(-s for s in ctx.shifts), ctx.dims), None, None


class Repeat(Function):
    node_name = "RepeatBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor, repeats: tuple[int, ...]) -> Tensor:
        ctx.shape, ctx.repeats = a._data.shape, repeats
        return Tensor._make(np.tile(a._data, repeats))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        sizes = (1,) * (len(ctx.repeats) - len(ctx.shape)) + tuple(ctx.shape)
        split = tuple(x for r, s in zip(ctx.repeats, sizes) for x in (r, s))
        g = grad.reshape(split)
        if split:
            g = g.sum(tuple(range(0, len(split), 2)))
        return g.reshape(ctx.shape), None


class Unbind(Function):
    """``unbind``: one node with one output per index of ``dim``, each a view of the input."""

    node_name = "UnbindBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor, dim: int) -> tuple[Tensor, ...]:
        ctx.dim = dim
        pieces = []
        for i in range(a._data.shape[dim]):
            piece = _view(a, a._data[(slice(None),) * dim + (i,)])
            piece._view_meta.multi = ("Unbind", i)  # such views must not change in place
            pieces.append(piece)
        return tuple(pieces)

    @staticmethod
    def backward(ctx: Any, *grads: Tensor) -> tuple[Tensor, None]:
        return stack(grads, ctx.dim), None


class Diagonal(Function):
    """``diagonal``: a view of the elements ``a[..., i, i + offset]`` (the diagonal last)."""

    node_name = "DiagonalBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor, offset: int, dim1: int, dim2: int) -> Tensor:
        ctx.shape, ctx.args = a._data.shape, (offset, dim1, dim2)
        arr = np.diagonal(a._data, offset, dim1, dim2)
        if a._data.flags.writeable:  # NumPy's diagonal is read-only; PyTorch's can change in place
            arr.flags.writeable = True
        return _view(a, arr)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None, None]:
        return DiagonalScatter.apply(grad, ctx.shape, *ctx.args), None, None, None


class DiagonalCopy(Diagonal):
    """``diag`` of a matrix: the diagonal as a new tensor (``diagonal_copy``)."""

    node_name = "DiagonalBackward0_copy"

    @staticmethod
    def forward(ctx: Any, a: Tensor, offset: int, dim1: int, dim2: int) -> Tensor:
        ctx.shape, ctx.args = a._data.shape, (offset, dim1, dim2)
        return Tensor._make(np.array(np.diagonal(a._data, offset, dim1, dim2), copy=True))


class DiagonalScatter(Function):
    """The gradient of ``diagonal``: ``grad`` on the diagonal of zeros of ``shape``."""

    node_name = "DiagonalBackwardBackward0"

    @staticmethod
    def forward(ctx: Any, grad: Tensor, shape: tuple[int, ...], offset: int, dim1: int, dim2: int) -> Tensor:
        ctx.args = (offset, dim1, dim2)
        out = np.zeros(shape, dtype=grad._data.dtype)
        view = np.diagonal(out, offset, dim1, dim2)
        view.flags.writeable = True
        view[...] = grad._data
        return Tensor._make(out)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None, None, None]:
        return DiagonalCopy.apply(grad, *ctx.args), None, None, None, None


class DiagEmbed(Function):
    """``diag`` of a vector: a matrix with the vector on its ``offset`` diagonal."""

    node_name = "DiagEmbedBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor, offset: int) -> Tensor:
        ctx.offset = offset
        return Tensor._make(np.diag(a._data, offset))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return diagonal(grad, ctx.offset), None


class Trace(Function):
    node_name = "TraceBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor) -> Tensor:
        ctx.shape = a._data.shape
        out = np.trace(a._data)
        return Tensor._make(np.asarray(out, dtype=np.int64 if a._data.dtype.kind in "biu" else out.dtype))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        return grad * Tensor._make(np.eye(*ctx.shape, dtype=grad._data.dtype))


class Tril(Function):
    node_name = "TrilBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor, diagonal: int) -> Tensor:
        ctx.diagonal = diagonal
        return Tensor._make(np.tril(a._data, diagonal))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return Tril.apply(grad, ctx.diagonal), None


class Triu(Function):
    node_name = "TriuBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor, diagonal: int) -> Tensor:
        ctx.diagonal = diagonal
        return Tensor._make(np.triu(a._data, diagonal))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return Triu.apply(grad, ctx.diagonal), None


def flip(a: Tensor, dims: Any) -> Tensor:
    if isinstance(dims, (int, np.integer)):
        raise TypeError(
            f"flip(): argument 'dims' (position 2) must be tuple of ints, not {type(dims).__name__}"
        )
    wrapped = tuple(_wrap_dim(d, a.ndim) for d in _dims_list(dims))
    for d in wrapped:
        if wrapped.count(d) > 1:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return Flip.apply(a, wrapped)


def roll(a: Tensor, shifts: Any, dims: Any = None) -> Tensor:
    shifts = tuple(_dims_list(shifts))
    if dims is None:
        if len(shifts) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
        return Roll.apply(a, shifts, None)
    dims = tuple(_dims_list(dims))
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    return Roll.apply(a, shifts, tuple(_wrap_dim(d, a.ndim) for d in dims))


def repeat(a: Tensor, repeats: tuple[int, ...]) -> Tensor:
    repeats = tuple(int(r) for r in repeats)
    if len(repeats) < a.ndim:
        raise RuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor"
        )
    sizes = (1,) * (len(repeats) - a.ndim) + tuple(a._data.shape)
    target = [r * s for r, s in zip(repeats, sizes)]
    for t_ in target:
        if t_ < 0:
            raise RuntimeError(
                f"Trying to create tensor with negative dimension {t_}: [{', '.join(map(str, target))}]"
            )
    return Repeat.apply(a, repeats)


def tile(a: Tensor, dims: Any) -> Tensor:
    reps = tuple(_dims_list(dims))
    return repeat(a, (1,) * (a.ndim - len(reps)) + reps)


def unbind(a: Tensor, dim: int = 0) -> tuple[Tensor, ...]:
    if a.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = _wrap_dim(dim, a.ndim)
    if a._data.shape[d] == 0:
        return ()
    return Unbind.apply(a, d)


def movedim(a: Tensor, source: Any, destination: Any) -> Tensor:
    src, dst = _dims_list(source), _dims_list(destination)
    if len(src) != len(dst):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({src} dims) should contain the same "
            f"number of dims as destination ({dst} dims)"
        )
    n = builtins.max(a.ndim, 1)
    ws, wd = [_wrap_dim(d, n) for d in src], [_wrap_dim(d, n) for d in dst]
    if len(set(ws)) != len(ws):
        raise RuntimeError(f"movedim: repeated dim in `source` ({src})")
    if len(set(wd)) != len(wd):
        raise RuntimeError(f"movedim: repeated dim in `destination` ({dst})")
    if a.ndim == 0:
        return Alias.apply(a)
    order = [-1] * a.ndim
    for s, d in zip(ws, wd):
        order[d] = s
    rest = iter(i for i in range(a.ndim) if i not in ws)
    order = [o if o != -1 else next(rest) for o in order]
    return Permute.apply(a, tuple(order))


def swapaxes(a: Tensor, axis0: int, axis1: int) -> Tensor:
    return transpose(a, axis0, axis1)


moveaxis = movedim
swapdims = swapaxes


def unflatten(a: Tensor, dim: int, sizes: Any) -> Tensor:
    if a.ndim == 0:
        raise RuntimeError("unflatten got an unexpected error:\nDimension specified as 0 but tensor has no "
                           "dimensions")
    d = _wrap_dim(dim, a.ndim)
    sizes = tuple(int(s) for s in sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    n = a._data.shape[d]
    if sizes.count(-1) > 1:
        raise RuntimeError("unflatten got an unexpected error:\nonly one dimension can be inferred")
    known = int(np.prod([s for s in sizes if s != -1]))
    if (-1 not in sizes and known != n) or (-1 in sizes and (known == 0 or n % known)):
        raise RuntimeError(
            f"unflatten: Provided sizes [{', '.join(map(str, sizes))}] don't multiply up to the size of dim "
            f"{d} ({n}) in the input tensor"
        )
    sizes = tuple(n // known if s == -1 else s for s in sizes)
    return View.apply(a, a._data.shape[:d] + sizes + a._data.shape[d + 1:])


def broadcast_to(a: Tensor, size: Any) -> Tensor:
    return expand(a, tuple(int(s) for s in size))


def _atleast(t: Tensor, n: int) -> Tensor:
    if t.ndim >= n:
        return t
    if t.ndim == 0:
        return reshape(t, (1,) * n)
    return unsqueeze(t, 0)


def hstack(tensors: Any) -> Tensor:
    tensors = [_atleast(t, 1) for t in tensors]
    if not tensors:
        raise RuntimeError("hstack expects a non-empty TensorList")
    return cat(tensors, 0 if tensors[0].ndim == 1 else 1)


def vstack(tensors: Any) -> Tensor:
    tensors = [_atleast(t, 2) for t in tensors]
    if not tensors:
        raise RuntimeError("vstack expects a non-empty TensorList")
    return cat(tensors, 0)


def diag(a: Tensor, diagonal: int = 0) -> Tensor:
    if a.ndim == 1:
        return DiagEmbed.apply(a, int(diagonal))
    if a.ndim == 2:
        return DiagonalCopy.apply(a, int(diagonal), 0, 1)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {a.ndim}D")


def diagonal(a: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    d1, d2 = _wrap_dim(dim1, a.ndim), _wrap_dim(dim2, a.ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return Diagonal.apply(a, int(offset), d1, d2)


def trace(a: Tensor) -> Tensor:
    if a.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {a.ndim}")
    return Trace.apply(a)


def tril(a: Tensor, diagonal: int = 0) -> Tensor:
    if a.ndim < 2:
        raise RuntimeError("tril: input tensor must have at least 2 dimensions")
    return Tril.apply(a, int(diagonal))


def triu(a: Tensor, diagonal: int = 0) -> Tensor:
    if a.ndim < 2:
        raise RuntimeError("triu: input tensor must have at least 2 dimensions")
    return Triu.apply(a, int(diagonal))


def meshgrid(*tensors: Any, indexing: str | None = None) -> tuple[Tensor, ...]:
    """Coordinate grids: output i varies along dimension i (``"ij"``); ``"xy"`` swaps the first two."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    if indexing is None:
        import warnings

        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the indexing "
                      "argument.", UserWarning, stacklevel=2)
        indexing = "ij"
    for t_ in tensors:
        if t_.ndim > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t_}")
    if builtins.any(t_._data.dtype != tensors[0]._data.dtype for t_ in tensors):
        raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    if indexing not in ("xy", "ij"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    refs = list(tensors)
    swap = indexing == "xy" and len(refs) >= 2
    if swap:
        refs[0], refs[1] = refs[1], refs[0]
    shape = tuple(t_._data.size for t_ in refs)
    grids = []
    for i, t_ in enumerate(refs):
        view_shape = tuple(-1 if j == i else 1 for j in range(len(refs)))
        grids.append(expand(view(t_, view_shape), shape))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)
