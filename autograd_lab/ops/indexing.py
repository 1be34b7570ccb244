"""Indexing: ``x[key]`` and ``x[key] = value`` (basic keys give views, index tensors copies), and the
ops with index tensors: gather, scatter, index_select, index_add, index_copy, masked_select, take.

The index tensors are data, not inputs with a gradient: they reach the ``Function`` wrapped in
:class:`_Data`, so that the node has an edge only for each differentiable input, as in PyTorch.
Each backward is the mirror op (gather <-> scatter_add, index_select <-> index_add, take <-> put),
written with these differentiable ops, so second derivatives work too.
"""

from __future__ import annotations

import builtins
import math
import numbers
from typing import Any

import numpy as np

from .. import dtypes, grad_mode
from ..dtypes import wrap_dim as _wrap_dim
from ..function import FREED_MESSAGE, Function, fast_unary
from ..tensor import Tensor
from .comparison import masked_fill
from .copies import copy_from, fill_with
from .inplace import (
    CopySlices,
    apply_inplace,
    check_no_partial_overlap,
    copy_preserving,
    inplace,
    recorded_copy_slices,
)
from .promotion import as_operand, broadcast_shape, dense_order, empty_in_order, row_major
from .scalar import MulNumber
from .view import Alias, Unsqueeze, View, _view, expand


class _Data:
    """A tensor handed to a Function as data: no gradient edge (an index)."""

    __slots__ = ("t",)

    def __init__(self, t: Tensor) -> None:
        self.t = t


def _type(arr: np.ndarray) -> str:
    return dtypes.scalar_type_name(arr.dtype)


def _sizes(shape: tuple[int, ...]) -> str:
    return "[" + ", ".join(map(str, shape)) + "]"


def _as_index(index: Any) -> Tensor:
    if not isinstance(index, Tensor):
        raise TypeError(f"expected Tensor as index argument, but got {type(index).__name__}")
    return index


def _is_int_index(arr: np.ndarray) -> bool:
    return arr.dtype in (np.int64, np.int32)


def _coords(index: np.ndarray, dim: int) -> tuple:
    """For every position p of ``index``: p with p[dim] replaced by index[p] (a NumPy index)."""
    coords = list(np.indices(index.shape, sparse=True))
    coords[dim] = index.astype(np.int64)
    return tuple(coords)


def _check_bounds(index: np.ndarray, size: int, dim: int, prefix: str = "",
                  error: type[Exception] = RuntimeError) -> None:
    bad = (index < 0) | (index >= size)
    if bad.any():
        value = int(index.reshape(-1)[np.flatnonzero(bad.reshape(-1))[0]])
        raise error(f"{prefix}index {value} is out of bounds for dimension {dim} with size {size}")


def _dim_1(arr: np.ndarray) -> np.ndarray:
    """0-d tensors count as 1-d of size 1 in gather/scatter (PyTorch's ``ensure_nonempty``)."""
    return arr.reshape(1) if arr.ndim == 0 else arr


# ---------------------------------------------------------------------------- x[key] and x[key] = value
def _scatter(grad: np.ndarray, shape: tuple[int, ...], key: tuple, accumulate: bool) -> np.ndarray:
    """``grad`` placed at ``key`` into zeros of ``shape`` (added up at repeated indices: accumulate)."""
    out = np.zeros(shape, dtype=grad.dtype)
    if grad.size == 0:  # nothing to place: PyTorch checks no index then (an empty a[key] took any)
        return out
    if accumulate:
        np.add.at(out, key, grad)
    else:
        out[key] = grad
    return out


class Scatter(Function):
    """The gradient of a view by ints and slices: the gradient placed into zeros. Its own derivative
    takes the same part of the gradient again."""

    @staticmethod
    def forward(ctx: Any, grad: Tensor, shape: tuple[int, ...], key: tuple, accumulate: bool) -> Tensor:
        ctx.key = key
        return Tensor._make(_scatter(grad._data, shape, key, accumulate))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None, None]:
        return getitem(grad, ctx.key), None, None, None


class SelectScatter(Scatter):
    node_name = "SelectBackwardBackward0"  # select's derivative, as PyTorch records it (create_graph)


class SliceScatter(Scatter):
    node_name = "SliceBackwardBackward0"


class IndexPutImpl(Function):
    """Indexing's derivative: ``zeros.index_put_(indices, grad, accumulate=True)`` as PyTorch computes
    and records it (create_graph): its inputs the zeros, which need no gradient, and the gradient."""

    node_name = "IndexPutImplBackward0"

    @staticmethod
    def forward(ctx: Any, zeros: Tensor, grad: Tensor, key: tuple) -> Tensor:
        _save_key(ctx, key)
        ctx._saved_accumulate = True
        return Tensor._make(_scatter(grad._data, zeros._data.shape, key, True))

    @staticmethod
    def backward(ctx: Any, gg: Tensor) -> tuple[Tensor | None, Tensor, None]:
        return gg if ctx.needs_input_grad[0] else None, getitem(gg, _saved_key(ctx)), None


def _saved_indices(node: Any) -> tuple[Tensor | None, ...]:
    """``node._saved_indices`` as PyTorch shows it: an index tensor per indexed dimension, None for a
    dimension taken whole (an error once backward freed them)."""
    arrays = iter(node.saved_tensors)
    return tuple(next(arrays) if k is None else None for k in node.layout)


def _index_backward(grad: Tensor, shape: tuple[int, ...], key: tuple) -> Tensor:
    """The gradient of ``a[key]`` (index tensors in ``key``) for ``a`` of ``shape``: PyTorch's
    ``_index_put_impl_`` into zeros, in place (version 1)."""
    out = IndexPutImpl.apply(Tensor._make(np.zeros(shape, grad._data.dtype)), grad, key)
    out._version_counter.value += 1
    return out


class Select(Function):
    node_name = "SelectBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor, dim: int, index: int) -> Tensor:
        ctx.shape = a._data.shape
        # the trailing Ellipsis keeps a 0-d result a view (NumPy gives a copied scalar without it)
        ctx.key = (slice(None),) * dim + (index, Ellipsis)
        return _view(a, a._data[ctx.key])

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None]:
        return SelectScatter.apply(grad, ctx.shape, ctx.key, False), None, None


def select(a: Tensor, dim: int, index: int) -> Tensor:
    """The view ``a[..., index]`` along ``dim``, that dimension removed (``torch.select``)."""
    if a.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, a.ndim)
    size = a._data.shape[d]
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size {_sizes(a._data.shape)} "
                         f"at dimension {d}")
    return Select.apply(a, d, index % size)


class Slice(Function):
    node_name = "SliceBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor, dim: int, sl: slice) -> Tensor:
        ctx.shape = a._data.shape
        ctx.key = (slice(None),) * dim + (sl,)
        return _view(a, a._data[ctx.key])

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None]:
        return SliceScatter.apply(grad, ctx.shape, ctx.key, False), None, None


def narrow(a: Tensor, dim: int, start: int, length: int) -> Tensor:
    """The view ``a[..., start:start + length]`` along ``dim`` (``torch.narrow``)."""
    if a.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    dim = _wrap_dim(dim, a.ndim)
    size = a._data.shape[dim]
    if not -size <= start <= size:
        raise IndexError(
            f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    start = start + size if start < 0 else start
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return Slice.apply(a, dim, slice(start, start + length))


def _index_part(k: Any) -> Any:
    if isinstance(k, Tensor):
        return k._data
    if isinstance(k, list):
        return np.asarray([_index_part(x) for x in k])
    if isinstance(k, bool):  # x[True] is x[None]; x[False] the same, then empty
        return np.asarray(k)
    return k


def _is_array(k: Any) -> bool:
    """Whether a part of a key is an index tensor (a 0-d integer one counts as an integer)."""
    return isinstance(k, np.ndarray) and (k.ndim > 0 or k.dtype == np.bool_)


def _normalize_key(key: Any) -> tuple:
    """The key as a tuple of ints, slices, None, Ellipsis and NumPy arrays (the index tensors)."""
    if not isinstance(key, tuple):
        key = (key,)
    key = tuple(_index_part(k) for k in key)
    for k in key:
        if isinstance(k, np.ndarray) and k.dtype.kind not in "iub":
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    return key


def _one_ellipsis(key: tuple, ndim: int) -> tuple:
    """A key with several Ellipsis as NumPy takes it: PyTorch lets each skip the dimensions the
    rest leaves unindexed (as :func:`_apply_basic` does); those past the last dimension are dropped."""
    skip = ndim - builtins.sum(_width(k) for k in key if k is not None and k is not Ellipsis)
    out = [p for k in key for p in ((slice(None),) * skip if k is Ellipsis else (k,))]
    def width() -> int:
        return builtins.sum(_width(k) for k in out if k is not None)

    while out and isinstance(out[-1], slice) and out[-1] == slice(None) and width() > ndim:
        out.pop()
    return tuple(out)


def _takes_all(k: slice, size: int) -> bool:
    """PyTorch's test for a slice it skips in a key: from 0 (as written), to the end, step 1."""
    return k.start in (None, 0) and (k.stop is None or k.stop >= size) and k.step in (None, 1)


def _selects_all(shape: tuple[int, ...], key: tuple) -> bool:
    """Whether a basic key is made of Ellipsis and slices that each take a whole dimension."""
    if not all(k is Ellipsis or isinstance(k, slice) for k in key):
        return False
    before = key.index(Ellipsis) if Ellipsis in key else len(key)
    dims = list(range(before)) + list(range(len(shape) - (len(key) - before - 1), len(shape)))
    parts = [k for k in key if k is not Ellipsis]
    return all(_takes_all(k, shape[d]) for k, d in zip(parts, dims))


def _is_mask(k: Any) -> bool:
    return isinstance(k, np.ndarray) and k.dtype == np.bool_


def _width(k: Any) -> int:
    """How many dimensions of the tensor a part of a key indexes (a mask: as many as it has)."""
    return k.ndim if _is_mask(k) else 1


def _apply_basic(a: Tensor, key: tuple) -> tuple[Tensor, tuple]:
    """PyTorch's order of indexing: the ints, slices and None of ``key`` first, as a chain of
    Select/Slice/Unsqueeze views of ``a``; returns that view and the NumPy key of the index tensors
    at the dimensions they index in it (empty when there are none)."""
    specified = builtins.sum(_width(k) for k in key if k is not None and k is not Ellipsis)
    if specified > a.ndim:
        raise IndexError(f"too many indices for tensor of dimension {a.ndim}")
    out, dim, arrays = a, 0, {}  # arrays: the index tensors by the dimension of `out` they start at
    for position, k in enumerate(key):
        if k is None:
            out = Unsqueeze.apply(out, dim)
            dim += 1
        elif k is Ellipsis:  # (PyTorch accepts more than one: each skips the unindexed dimensions)
            dim += a.ndim - specified
        elif isinstance(k, slice):
            if k.step is not None and k.step <= 0:
                raise ValueError("step must be greater than zero")
            if not _takes_all(k, out._data.shape[_wrap_dim(dim, out.ndim)]):
                out = Slice.apply(out, dim, k)
            dim += 1
        elif _is_mask(k) and k.ndim == 0:
            out = Unsqueeze.apply(out, dim)  # True keeps the new dimension's one element, False none
            arrays[dim] = np.zeros(int(k), dtype=np.int64)
            dim += 1
        elif _is_array(k):
            arrays[dim] = k
            dim += _width(k)
        elif isinstance(k, (int, np.integer)) or (isinstance(k, np.ndarray) and k.ndim == 0):
            k = int(k)
            size = out._data.shape[_wrap_dim(dim, out.ndim)]
            if not -size <= k < size:
                # (PyTorch's text names the position in the key as the dimension)
                raise IndexError(f"index {k} is out of bounds for dimension {position} with size {size}")
            out = Select.apply(out, dim, k)
        else:
            raise IndexError(
                "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
                f"valid indices (got {type(k).__name__})"
            )
    _check_index_tensors(out._data.shape, arrays)
    index, d = [], 0
    while arrays and d <= max(arrays):  # slice(None) for the dimensions between the index tensors
        k = arrays.get(d, slice(None))
        index.append(k)
        d += _width(k)
    return out, tuple(index)


def _check_index_tensors(shape: tuple[int, ...], arrays: dict[int, np.ndarray]) -> None:
    """PyTorch's errors for masks of the wrong shape and index tensors that do not broadcast."""
    for d, k in arrays.items():
        for j, size in enumerate(k.shape if _is_mask(k) else ()):
            if shape[d + j] != size:
                raise IndexError(f"The shape of the mask {_sizes(k.shape)} at index {j} does not match the "
                                 f"shape of the indexed tensor {_sizes(shape)} at index {d + j}")
    # a mask stands for one index tensor per dimension, each as long as its count of True
    shapes = [(int(k.sum()),) if _is_mask(k) else k.shape for k in arrays.values() for _ in range(_width(k))]
    try:
        if len(set(shapes)) > 1:  # equal shapes broadcast: np.broadcast_shapes costs µs
            np.broadcast_shapes(*shapes)
    except ValueError:
        raise IndexError("shape mismatch: indexing tensors could not be broadcast together with shapes "
                         + ", ".join(map(_sizes, shapes))) from None
    if 0 in shape:  # PyTorch's own text for an index into a dimension of size 0
        for d, k in arrays.items():
            if shape[d] == 0 and k.size and not _is_mask(k):
                raise IndexError("index is out of bounds for dimension with size 0")


def _clip_key(shape: tuple[int, ...], key: tuple) -> tuple | None:
    """``key`` with its integer arrays clipped into range, when the result has no elements."""
    out, d = [], 0
    for k in key:
        if isinstance(k, np.ndarray) and k.dtype.kind in "iu" and shape[d]:
            k = np.clip(k, -shape[d], shape[d] - 1)
        out.append(k)
        d += k.ndim if isinstance(k, np.ndarray) and k.dtype == np.bool_ else 1
    try:
        return tuple(out) if np.empty(shape, dtype=np.bool_)[tuple(out)].size == 0 else None
    except IndexError:
        return None


def _raise_out_of_bounds(shape: tuple[int, ...], key: tuple) -> None:
    """After NumPy refused ``key``: PyTorch's text for an index out of range, naming the index
    tensor's position among them (not the dimension), the first bad element in the kernel's order (by
    element, then by index tensor). Only called on failure: NumPy checks the bounds for free."""
    ints, d = [], 0
    for k in key:
        if isinstance(k, np.ndarray) and k.dtype.kind in "iu":
            ints.append((d, k))
        d += k.ndim if isinstance(k, np.ndarray) and k.dtype == np.bool_ else 1
    if not ints:
        return
    flat = np.broadcast_arrays(*(k for _, k in ints))
    bad = np.stack([(a < -shape[d]) | (a >= shape[d]) for a, (d, _) in zip(flat, ints)])
    bad = bad.reshape(len(ints), -1)
    hits = np.flatnonzero(bad.any(axis=0))
    if hits.size:
        first = int(hits[0])
        j = int(np.flatnonzero(bad[:, first])[0])
        value = int(flat[j].reshape(-1)[first])
        raise IndexError(f"index {value} is out of bounds for dimension {j} with size {shape[ints[j][0]]}")


class Index(Function):
    """Advanced indexing (integer or boolean arrays): the result is a copy."""

    node_name = "IndexBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor, key: tuple, given: tuple[Tensor, ...] = ()) -> Tensor:
        ctx.shape = a._data.shape
        _save_key(ctx, key, given)
        try:
            return Tensor._make(_index_layout(a._data, key, a._data[key]))
        except IndexError as e:
            clipped = _clip_key(a._data.shape, key)
            if clipped is None:
                _raise_out_of_bounds(a._data.shape, key)
                raise IndexError(str(e).replace("axis", "dimension")) from None
        # a result of no elements: PyTorch checks no index (NumPy does); any in-range index gives it
        return Tensor._make(np.asarray(a._data[clipped]))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None]:
        return _index_backward(grad, ctx.shape, _saved_key(ctx)), None, None

    @staticmethod
    def backward_arrays(ctx: Any, g: np.ndarray) -> tuple[Tensor, None, None]:
        out = Tensor._make(_scatter(g, ctx.shape, _saved_key(ctx), True))
        out._version_counter.value = 1  # (PyTorch's index_put_ into the zeros, in place)
        return out, None, None


def _index_layout(src: np.ndarray, key: tuple, res: np.ndarray) -> np.ndarray:
    """``res`` (``src[key]``) laid out in memory as PyTorch's index kernel lays it out: row-major when
    ``src`` and the index arrays are (the common case); else in the order of dimensions TensorIterator
    picks from the strides of ``src`` (0 along the indexed dimensions) and of the index arrays (0 along
    the others), which decides whether a later reshape is a view (random program seed 701536)."""
    if _by_rows(src) and all(k.flags.c_contiguous for k in key if isinstance(k, np.ndarray)):
        return row_major(res)  # (row-major strides along its dims of size 1 too, as PyTorch's)
    arrays, dims = [], []  # the index arrays (a mask as its coordinates) and the dims they index
    d = 0
    for k in key:
        if isinstance(k, np.ndarray) and k.dtype == np.bool_:
            coords = np.nonzero(k)
            arrays += coords
            dims += range(d, d + k.ndim)
            d += k.ndim
        elif isinstance(k, np.ndarray):
            arrays.append(k)
            dims.append(d)
            d += 1
        else:
            d += 1
    bshape = np.broadcast_shapes(*(k.shape for k in arrays))
    rest = [i for i in range(src.ndim) if i not in dims]
    adjacent = dims == list(range(dims[0], dims[-1] + 1))
    before = [i for i in rest if adjacent and i < dims[0]]
    after = [i for i in rest if i not in before]
    nb = len(bshape)
    operands = [[src.strides[i] for i in before] + [0] * nb + [src.strides[i] for i in after]]
    for k in arrays:
        row = [0] * len(before) + list(np.broadcast_to(k, bshape).strides) + [0] * len(after)
        if k.shape == bshape and k.flags.c_contiguous and len(row) == res.ndim:
            # PyTorch reshapes the index to (1,) * len(before) + bshape + (1,) * len(after), row-major:
            # where the result's dim is 1 too, that reshape's stride is not broadcast away
            step = k.itemsize
            for i in range(res.ndim - 1, -1, -1):
                if (i < len(before) or i >= len(before) + nb) and res.shape[i] == 1:
                    row[i] = step
                step *= res.shape[i] if len(before) <= i < len(before) + nb else 1
        operands.append(row)
    order = dense_order(res.shape, *operands) if res.ndim == len(operands[0]) else []
    if order == sorted(order):
        return row_major(res)
    out = empty_in_order(res.shape, order, res.dtype)
    out[...] = res
    return out


def _by_rows(a: np.ndarray) -> bool:
    """Whether ``a`` is laid out by rows, its dims of size 1 too: NumPy's ``c_contiguous`` ignores their
    strides, PyTorch's TensorIterator orders dims by them (a size-1 dim moved last by ``movedim`` keeps
    the largest stride: wider-grammar seed 10302127)."""
    if not a.flags.c_contiguous:
        return False
    if 1 not in a.shape:
        return True
    step = a.itemsize
    for size, stride in zip(reversed(a.shape), reversed(a.strides)):
        if stride != step:
            return False
        step *= size
    return True


def _save_key(ctx: Any, key: tuple, given: tuple[Tensor, ...] = ()) -> None:
    """Save a key's index arrays for backward, as PyTorch saves the index tensors: backward frees
    them, so that a second backward through the node fails. An array of an index tensor the caller
    ``given`` is saved as that tensor, as PyTorch's (changed in place before backward: PyTorch's error)."""
    by_array = {id(t._data): t for t in given}
    ctx.save_for_backward(*(t if (t := by_array.get(id(k))) is not None else Tensor._make(k)
                            for k in key if isinstance(k, np.ndarray)))
    ctx.layout = tuple(None if isinstance(k, np.ndarray) else k for k in key)


def _saved_key(ctx: Any) -> tuple:
    arrays = iter(ctx.saved_arrays)
    return tuple(next(arrays) if k is None else k for k in ctx.layout)


def getitem(a: Tensor, key: Any) -> Tensor:
    """``a[key]`` as PyTorch records it: ints, slices and None as a chain of Select/Slice/Unsqueeze
    views, then the index tensors (integer or boolean) as one ``Index`` op (a copy) of that view."""
    if type(key) is tuple and _integer_tensors(a, key):  # x[rows, cols]: the index tensors alone
        arrays = tuple([k._data for k in key])
        try:  # (Index.forward's steps where nothing is out of bounds, recorded fast)
            out = fast_unary(Index, lambda x: _index_layout(x, arrays, x[arrays]), a, key, 3,
                             {"shape": a._data.shape, "layout": (None,) * len(arrays)})
        except IndexError:
            out = None  # Index.forward raises PyTorch's error
        return out if out is not None else Index.apply(a, arrays, key)
    if isinstance(key, slice):  # a[start:stop]: always a SliceBackward0, even when it takes all
        if key.step is not None and key.step <= 0:
            raise ValueError("step must be greater than zero")
        if a.ndim == 0:
            raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                             "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
        return Slice.apply(a, 0, key)
    if a.ndim == 0 and isinstance(key, (int, np.integer)) and not isinstance(key, bool) and key == 0:
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                         "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
    out, index = _apply_basic(a, _normalize_key(key))
    if index:
        return Index.apply(out, index, tuple(k for k in (key if type(key) is tuple else (key,))
                                             if type(k) is Tensor))
    if out is a:  # a[...] or a[:, :]: still a new tensor, a view of a
        return Alias.apply(a)
    return out


def _integer_tensors(a: Tensor, key: tuple) -> bool:
    """Whether ``key`` is integer index tensors of one shape for the first dimensions of a non-empty
    ``a`` (``logp[rows, targets]``): nothing of :func:`_apply_basic`'s to do, nothing to check but the
    bounds, which indexing checks (issue 17)."""
    if not key or len(key) > a._data.ndim or 0 in a._data.shape:
        return False
    shape = None
    for k in key:
        if type(k) is not Tensor or k._data.dtype.kind not in "iu" or not k._data.ndim:
            return False
        if shape is None:
            shape = k._data.shape
        elif k._data.shape != shape:
            return False
    return True


class IndexPut(Function):
    """``t[key] = value`` on a tensor in a graph, for a basic key: PyTorch's ``CopySlices`` node."""

    node_name = "CopySlices"

    @staticmethod
    def forward(ctx: Any, a: Tensor, value: Tensor, key: tuple) -> Tensor:
        out = _put(a, value, key)
        ctx.key = key
        ctx.fill = value.ndim == 0 and out[key].ndim > 0  # PyTorch's copy_to: fill_, else copy_
        return Tensor._make(out)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None, None]:
        if ctx._freed:  # as PyTorch's CopySlices: released by the backward that ran it
            raise RuntimeError(FREED_MESSAGE)
        if grad_mode.is_grad_enabled():  # create_graph: PyTorch's CopySlices steps, recorded
            def fn(part: Tensor) -> tuple[Tensor, Tensor]:  # fill_'s or copy_'s derivative
                return Tensor._make(np.zeros_like(part._data)), part.sum() if ctx.fill else part
            key = ctx.key if any(k is Ellipsis for k in ctx.key) else (*ctx.key, Ellipsis)  # (0-d: a view)
            data = grad._data
            full = np.empty(data.shape, data.dtype)
            sliced = full[key]  # the part's place in a C-contiguous tensor
            offset = sliced.__array_interface__["data"][0] - full.__array_interface__["data"][0]
            size = data.itemsize
            part = (sliced.shape, tuple(st // size for st in sliced.strides), offset // size)
            return (*recorded_copy_slices(grad, data.shape, part, fn), None)
        return _outside(grad, ctx.key), getitem(grad, ctx.key), None


def _outside(grad: Tensor, key: tuple) -> Tensor:
    """``grad`` with zeros at ``key``: the gradient of a tensor whose elements at ``key`` were overwritten."""
    if any(_is_array(k) for k in key) and grad_mode.is_grad_enabled():  # PyTorch's index_put of zeros
        return IndexPutAdvanced.apply(grad, Tensor._make(np.zeros((), grad._data.dtype)), key, False)
    written = np.zeros(grad._data.shape, dtype=bool)
    written[key] = True
    return masked_fill(grad, written, 0)


IndexPut._backward_cls.name = CopySlices.name  # the node PyTorch names torch::autograd::CopySlices


def _check_put_shape(shape: tuple[int, ...], key: tuple, value_shape: tuple[int, ...]) -> None:
    """PyTorch's index_put_ shape check: the value, without its leading 1s, broadcasts to the indexed
    result."""
    target = np.empty(shape, dtype=bool)[key].shape
    while value_shape and value_shape[0] == 1:
        value_shape = value_shape[1:]
    try:
        fits = np.broadcast_shapes(value_shape, target) == target
    except ValueError:
        fits = False
    if not fits:
        raise RuntimeError(
            f"shape mismatch: value tensor of shape [{', '.join(map(str, value_shape))}] "
            f"cannot be broadcast to indexing result of shape [{', '.join(map(str, target))}]"
        )


def _put(a: Tensor, value: Tensor, key: tuple) -> np.ndarray:
    """A copy of ``a``'s data with ``value`` written at ``key``."""
    out = copy_preserving(a._data)  # (PyTorch's clone, in the input's layout)
    data = value._data
    try:
        target = np.empty(a._data.shape, dtype=bool)[key].shape
        while data.ndim > len(target) and data.shape[0] == 1:  # leading 1s of the value are dropped,
            data = data[0]  # as PyTorch's index_put does: v[mask] = x of shape (1, n) writes n elements
        out[key] = data
    except IndexError:
        _raise_out_of_bounds(a._data.shape, key)
        raise
    except (ValueError, TypeError):
        raise RuntimeError(
            f"shape mismatch: value tensor of shape [{', '.join(map(str, value._data.shape))}] "
            f"cannot be broadcast to indexing result of shape [{', '.join(map(str, target))}]"
        ) from None
    return out


class IndexPutAdvanced(Function):
    """``t[indices] = value`` with integer or boolean array indices (PyTorch's ``index_put_``)."""

    node_name = "IndexPutBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor, value: Tensor, key: tuple, accumulate: bool = False) -> Tensor:
        if accumulate:  # index_put_(..., accumulate=True): repeated indices add up
            out = copy_preserving(a._data)  # (PyTorch's clone, in the input's layout)
            try:
                np.add.at(out, key, value._data)
            except IndexError:
                _raise_out_of_bounds(a._data.shape, key)
                raise
            except ValueError:
                raise RuntimeError(
                    f"shape mismatch: value tensor of shape {_sizes(value._data.shape)} cannot be broadcast "
                    f"to indexing result of shape {_sizes(out[key].shape)}") from None
        else:
            out = _put(a, value, key)
        ctx.accumulate = ctx._saved_accumulate = accumulate
        ctx.value_ndim = value.ndim
        _save_key(ctx, key)
        return Tensor._make(out)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, Tensor, None, None]:
        key = _saved_key(ctx)
        grad_value = getitem(grad, key)
        if grad_value.ndim < ctx.value_ndim:  # the value's leading 1s, dropped in forward, come back
            grad_value = grad_value.reshape((1,) * (ctx.value_ndim - grad_value.ndim) + grad_value.shape)
        return grad if ctx.accumulate else _outside(grad, key), grad_value, None, None


for _cls in (Index, IndexPutImpl, IndexPutAdvanced):
    _cls._backward_cls._saved_indices = property(_saved_indices)


def index_put(a: Tensor, key: Any, value: Any, accumulate: bool = False) -> Tensor:
    """``a`` with ``a[key] = value`` applied, out of place (the in-place form wraps this); with
    ``accumulate``, index tensors add ``value`` (``torch.index_put``).

    Recorded as PyTorch records it: array indices as one ``IndexPutBackward0``; a basic key as
    ``CopySlices`` (or, when it selects all of ``a``, a plain ``copy_``, or ``fill_`` of a 0-d value),
    with the value first brought to the selected shape as PyTorch's ``copy_to`` does (a view without
    its leading 1s, then an expand), unless it has that shape already or is 0-d.
    """
    key = _normalize_key(key)
    value = as_operand(value, a._data.dtype)
    if any(_is_array(k) for k in key):  # (the kernel converts the value: no ToCopyBackward0)
        return IndexPutAdvanced.apply(a, value, key, accumulate)
    # a basic key: the value keeps its dtype through the expand (PyTorch's errors name it), copy_
    # or fill_ converts it (no ToCopyBackward0 in the graph)
    target = np.empty(a._data.shape, dtype=np.bool_)[key].shape
    if value._data.shape != target and value._data.ndim > 0:
        shape = value._data.shape
        while shape and shape[0] == 1:
            shape = shape[1:]
        value = View.apply(value, shape)
        if shape != target:  # (expand_inplace leaves a tensor of the target's shape as it is)
            value = expand(value, target)
    if _selects_all(a._data.shape, key):  # a plain copy_ of a; a 0-d value into more: fill_
        if value.ndim == 0 and a._data.ndim > 0:  # (PyTorch's copy_to: copy_ if the shapes agree)
            return fill_with(a, value)
        return copy_from(a, value)
    return IndexPut.apply(a, value, key)


def index_put_(t: Tensor, indices: tuple, values: Tensor, accumulate: bool = False) -> Tensor:
    """``t[indices] = values`` for a tuple of index tensors, in place; ``accumulate=True`` adds
    ``values`` instead, repeated indices adding up (``Tensor.index_put_``)."""
    if not isinstance(indices, (tuple, list)):
        raise TypeError("index_put_(): argument 'indices' (position 1) must be tuple of Tensors, not "
                        f"{type(indices).__name__}")
    _check_same_dtype(t, values)
    if not accumulate:  # (not setitem's way: ``t[key] = v`` views v without its leading 1s first)
        key = _normalize_key(tuple(indices))
        try:
            target = np.empty(t._data.shape, dtype=bool)[key].shape
        except IndexError:
            _raise_out_of_bounds(t._data.shape, key)
            raise
        if values._data.ndim > len(target):  # (more dims than the result: no broadcast, no dropping)
            raise RuntimeError(f"shape mismatch: value tensor of shape {_sizes(values._data.shape)} cannot "
                               f"be broadcast to indexing result of shape {_sizes(target)}")
    return inplace(t, lambda s, v: index_put(s, tuple(indices), v, accumulate=accumulate), values)


def _check_same_dtype(t: Tensor, value: Tensor) -> None:
    if value._data.dtype != t._data.dtype:
        raise RuntimeError("Index put requires the source and destination dtypes match, got "
                           f"{_type(t._data)} for the destination and {_type(value._data)} for the source.")


def _check_value(t: Tensor, value: Any) -> None:
    """PyTorch assigns a tensor or a Python number (NumPy's integers and float64, a float, too)."""
    if isinstance(value, (Tensor, int, float, complex, np.integer)):
        return
    kind = type(value)
    name = kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"
    raise TypeError(f"can't assign a {name} to a {dtypes.legacy_type_name(t._data.dtype)}")


def setitem(t: Tensor, key: Any, value: Any) -> Tensor:
    """``t[key] = value`` in place.

    PyTorch writes a basic key through a view of ``t`` (``t[key].copy_(value)``), so on a leaf that
    requires grad its error speaks of a view; keys that select everything write to ``t`` itself. With
    index tensors, the ints, slices and None make a view first (as in :func:`getitem`), and the index
    tensors are written into it: on a view, the change is recorded on ``t`` as ``CopySlices``.
    """
    _check_value(t, value)
    parts = _normalize_key(key)
    if any(_is_array(k) for k in parts):
        view, index = _apply_basic(t, parts)
        if isinstance(value, Tensor):  # PyTorch checks the shapes, then the dtypes
            _check_put_shape(view._data.shape, index, value._data.shape)
            one = isinstance(key, Tensor) and _is_mask(key._data) and value._data.size == 1
            if one and value.ndim:  # a mask and one value: PyTorch writes it as a 0-d view
                value = value.view(())
            elif value.ndim and value._data.shape[0] == 1:  # PyTorch's set_item views the value
                shape = value._data.shape  # without its leading 1s
                while shape and shape[0] == 1:
                    shape = shape[1:]
                value = value.view(shape)
            if not (one or isinstance(key, Tensor) and _is_mask(key._data) and key.ndim == 0):
                _check_same_dtype(t, value)  # (a 0-d value, or 0-d mask, is converted)
        check_no_partial_overlap(view._data, (value,))
        apply_inplace(view, lambda s, v: index_put(s, index, v), (value,))
        return t
    if builtins.sum(k is Ellipsis for k in parts) > 1:
        key = parts = _one_ellipsis(parts, t.ndim)
    if grad_mode.is_grad_enabled() and t.grad_fn is None and t._requires_grad and not _selects_all(
            t._data.shape, parts):
        raise RuntimeError(
            "a view of a leaf Variable that requires grad is being used in an in-place operation."
        )
    with grad_mode.no_grad():
        written = _apply_basic(Tensor._make(t._data), parts)[0]._data  # the elements the key selects
    check_no_partial_overlap(written, (value,))
    return apply_inplace(t, lambda s, v: index_put(s, key, v), (value,))


# ---------------------------------------------------------------------------- gather, scatter
def _check_gather(a: Tensor, dim: int, index: Tensor) -> None:
    idx = index._data
    if not _is_int_index(idx):
        raise RuntimeError("gather(): Expected dtype int32/int64 for index")
    if max(idx.ndim, 1) != max(a.ndim, 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    ishape, sshape = _dim_1(idx).shape, _dim_1(a._data).shape
    for d in range(len(ishape)):
        if d != dim and ishape[d] > sshape[d]:
            raise RuntimeError(
                f"Size does not match at dimension {d} expected index {_sizes(idx.shape)} to be no larger "
                f"than self {_sizes(a._data.shape)} apart from dimension {dim}"
            )
    _check_bounds(idx, sshape[dim], dim)


def _check_scatter(a: Tensor, dim: int, index: Tensor, src: Tensor | None) -> None:
    idx = index._data
    if not _is_int_index(idx):
        raise RuntimeError("scatter(): Expected dtype int32/int64 for index")
    if src is not None and src._data.dtype != a._data.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    if max(idx.ndim, 1) != max(a.ndim, 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    if src is not None and max(idx.ndim, 1) != max(src.ndim, 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    ishape, sshape = _dim_1(idx).shape, _dim_1(a._data).shape
    srcshape = _dim_1(src._data).shape if src is not None else None
    for d in range(len(ishape)):
        if (d != dim and ishape[d] > sshape[d]) or (srcshape is not None and ishape[d] > srcshape[d]):
            tail = f" and to be no larger size than src {_sizes(src._data.shape)}" if src is not None else ""
            raise RuntimeError(
                f"Expected index {_sizes(idx.shape)} to be no larger than self {_sizes(a._data.shape)} "
                f"apart from dimension {dim}{tail}"
            )
    _check_bounds(idx, sshape[dim], dim)


def _gather_data(a: np.ndarray, dim: int, index: np.ndarray) -> np.ndarray:
    idx = _dim_1(index)
    return np.asarray(_dim_1(a)[_coords(idx, dim)]).reshape(index.shape)


class Gather(Function):
    node_name = "GatherBackward0"
    saved_names = ("self", "index")

    @staticmethod
    def forward(ctx: Any, a: Tensor, dim: int, index: _Data) -> Tensor:
        ctx.dim, ctx.shape = dim, a._data.shape
        ctx.save_for_backward(a, index.t)
        return Tensor._make(_gather_data(a._data, dim, index.t._data))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None]:
        _, index = ctx.saved_tensors
        zeros = Tensor._make(np.zeros(ctx.shape, dtype=grad._data.dtype))
        return ScatterAdd.apply(zeros, ctx.dim, _Data(index), grad), None, None


def gather(input: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False) -> Tensor:
    """``out[i][j] = input[index[i][j]][j]`` for ``dim=0``, and so on (``torch.gather``)."""
    index = _as_index(index)
    d = _wrap_dim(dim, input.ndim)
    _check_gather(input, d, index)
    return Gather.apply(input, d, _Data(index))


def take_along_dim(input: Tensor, indices: Tensor, dim: int | None = None) -> Tensor:
    """The elements of ``input`` at ``indices`` along ``dim``, the two broadcast against each other
    elsewhere (``torch.take_along_dim``: ``gather`` of the broadcast tensors; without ``dim``, of both
    flattened)."""
    indices = _as_index(indices)
    if indices._data.dtype != np.int64:
        raise RuntimeError("torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{dtypes.scalar_type_name(indices._data.dtype)}")
    if dim is None:
        return gather(input.reshape(-1), 0, indices.reshape(-1))
    if input.ndim != indices.ndim:
        raise RuntimeError("torch.take_along_dim(): input and indices should have the same number of "
                           f"dimensions, but got {input.ndim} dimensions for input, and {indices.ndim} "
                           "dimensions for indices")
    d = _wrap_dim(dim, input.ndim)
    own, theirs = list(input.shape), list(indices.shape)
    own[d], theirs[d] = indices.shape[d], input.shape[d]
    index_shape = broadcast_shape(tuple(own), tuple(indices.shape))  # (PyTorch's infer_size, its errors)
    input_shape = broadcast_shape(tuple(theirs), tuple(input.shape))
    return gather(input.broadcast_to(input_shape), d, indices.broadcast_to(index_shape))


def _scatter_data(a: np.ndarray, dim: int, index: np.ndarray, src: Any, add: bool) -> np.ndarray:
    out = np.array(_dim_1(a), order="C")  # (PyTorch's scatter: a row-major clone, written into)
    idx = _dim_1(index)
    coords = _coords(idx, dim)
    if isinstance(src, np.ndarray):
        src = _dim_1(src)[tuple(slice(0, n) for n in idx.shape)]
    if add:
        np.add.at(out, coords, src)
    else:
        out[coords] = src
    return out.reshape(a.shape)


class ScatterSrc(Function):
    node_name = "ScatterBackward0"
    saved_names = ("index",)

    @staticmethod
    def forward(ctx: Any, a: Tensor, dim: int, index: _Data, src: Tensor) -> Tensor:
        ctx.dim = dim
        ctx.save_for_backward(index.t)
        return Tensor._make(_scatter_data(a._data, dim, index.t._data, src._data, False))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple:
        (index,) = ctx.saved_tensors
        need_a, _, _, need_src = ctx.needs_input_grad
        grad_a = ScatterValue.apply(grad, ctx.dim, _Data(index), 0) if need_a else None
        grad_src = Gather.apply(grad, ctx.dim, _Data(index)) if need_src else None
        return grad_a, None, None, grad_src


class ScatterValue(Function):
    node_name = "ScatterBackward1"
    saved_names = ("index",)

    @staticmethod
    def forward(ctx: Any, a: Tensor, dim: int, index: _Data, value: Any) -> Tensor:
        ctx.dim = dim
        ctx.save_for_backward(index.t)
        return Tensor._make(_scatter_data(a._data, dim, index.t._data, value, False))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple:
        (index,) = ctx.saved_tensors
        return ScatterValue.apply(grad, ctx.dim, _Data(index), 0), None, None, None


def scatter(input: Tensor, dim: int, index: Tensor, src: Any = None, *, value: Any = None,
            reduce: str | None = None) -> Tensor:
    """``input`` with ``src`` (a tensor, or one number ``value``) written at ``index`` along ``dim``."""
    if reduce is not None:
        raise NotImplementedError("autograd_lab: scatter(reduce=...) is not supported; use scatter_add")
    if src is None and value is None:
        raise TypeError("scatter() missing required argument 'src' (or 'value')")
    if src is None:
        src = value
    index = _as_index(index)
    d = _wrap_dim(dim, input.ndim)
    if isinstance(src, Tensor):
        _check_scatter(input, d, index, src)
        return ScatterSrc.apply(input, d, _Data(index), src)
    if not isinstance(src, numbers.Number):
        raise TypeError(f"scatter(): argument 'src' must be Tensor or Number, not {type(src).__name__}")
    _check_scatter(input, d, index, None)
    return ScatterValue.apply(input, d, _Data(index), src)


def scatter_(t: Tensor, dim: int, index: Tensor, src: Any = None, *, value: Any = None,
             reduce: str | None = None) -> Tensor:
    """``t.scatter_(dim, index, src)``: :func:`scatter` written into ``t``; bad arguments fail first."""
    if src is None:
        src = value
    if isinstance(src, Tensor):
        scatter(t.detach(), dim, index, src.detach(), reduce=reduce)
        return inplace(t, lambda s, v: scatter(s, dim, index, v), src)
    scatter(t.detach(), dim, index, src, reduce=reduce)
    return inplace(t, lambda s: scatter(s, dim, index, src, reduce=reduce))


class ScatterAdd(Function):
    node_name = "ScatterAddBackward0"
    saved_names = ("index",)

    @staticmethod
    def forward(ctx: Any, a: Tensor, dim: int, index: _Data, src: Tensor) -> Tensor:
        ctx.dim = dim
        ctx.save_for_backward(index.t)
        return Tensor._make(_scatter_data(a._data, dim, index.t._data, src._data, True))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple:
        (index,) = ctx.saved_tensors
        need_src = ctx.needs_input_grad[3]
        grad_src = Gather.apply(grad, ctx.dim, _Data(index)) if need_src else None
        return grad, None, None, grad_src


def scatter_add(input: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    """``input`` with ``src`` added at ``index`` along ``dim``; repeats add up (``torch.scatter_add``)."""
    index = _as_index(index)
    d = _wrap_dim(dim, input.ndim)
    _check_scatter(input, d, index, src)
    return ScatterAdd.apply(input, d, _Data(index), src)


# ------------------------------------------------------------------------ index select, index add, index copy
def _moved(arr: np.ndarray, dim: int) -> np.ndarray:
    return np.moveaxis(arr, dim, 0) if arr.ndim else arr.reshape(1)


class IndexSelect(Function):
    node_name = "IndexSelectBackward0"
    saved_names = ("index",)

    @staticmethod
    def forward(ctx: Any, a: Tensor, dim: int, index: _Data) -> Tensor:
        ctx.dim, ctx.shape = dim, a._data.shape
        ctx.save_for_backward(index.t)
        idx = index.t._data.reshape(-1).astype(np.int64)
        if a.ndim == 0:
            return Tensor._make(np.array(a._data, copy=True))
        return Tensor._make(np.take(a._data, idx, axis=dim))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None]:
        (index,) = ctx.saved_tensors
        zeros = Tensor._make(np.zeros(ctx.shape, dtype=grad._data.dtype))
        return IndexAdd.apply(zeros, ctx.dim, _Data(index), grad, 1), None, None


def index_select(input: Tensor, dim: int, index: Tensor) -> Tensor:
    """The slices of ``input`` at ``index`` along ``dim`` (``torch.index_select``)."""
    index = _as_index(index)
    d = _wrap_dim(dim, input.ndim)
    idx = index._data
    if idx.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if not _is_int_index(idx):
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    if input.ndim == 0 and idx.size != 1:
        raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got {idx.size} value(s)")
    size = input._data.shape[d] if input.ndim else 1
    if ((idx < 0) | (idx >= size)).any():
        raise IndexError("index out of range in self")
    return IndexSelect.apply(input, d, _Data(index))


class IndexFill(Function):
    """``a`` with a number written along ``dim`` at ``index``; its gradient is 0 there."""

    node_name = "IndexFillBackward0"
    saved_names = ("index",)

    @staticmethod
    def forward(ctx: Any, a: Tensor, dim: int, index: _Data, value: Any) -> Tensor:
        ctx.dim, ctx._saved_dim = dim, dim % 2**64  # the dim as given, shown as PyTorch's uint64
        ctx.save_for_backward(index.t)
        out = copy_preserving(a._data)  # (PyTorch's clone, in the input's layout)
        if out.ndim:
            out[(slice(None),) * (dim % out.ndim) + (index.t._data.reshape(-1),)] = (
                value._data if isinstance(value, Tensor) else value)
        elif index.t._data.size:
            out[...] = value._data if isinstance(value, Tensor) else value
        return Tensor._make(out)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None, Tensor | None]:
        (index,) = ctx.saved_tensors  # PyTorch's grad.index_fill(dim, index, 0), index_select(...).sum()
        grad_a = IndexFill.apply(grad, ctx.dim, _Data(index), 0) if ctx.needs_input_grad[0] else None
        grad_value = None
        if ctx.needs_input_grad[3]:
            grad_value = index_select(grad, ctx.dim, index).sum() if grad.ndim else grad.sum()
        return grad_a, None, None, grad_value


class IndexFillTensor(IndexFill):
    node_name = "IndexFillBackward1"  # the value a 0-d tensor, with a gradient of its own


def index_fill(input: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    """``input`` with ``value`` (a number or a 0-d tensor) along ``dim`` at ``index``
    (``torch.index_fill``)."""
    d = _wrap_dim(dim, input.ndim)
    idx = index._data
    if idx.dtype != np.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    if idx.ndim > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    if isinstance(value, Tensor) and value.ndim:
        raise RuntimeError("index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value.ndim} dimension(s).")
    size = input._data.shape[d] if input.ndim else 1
    _check_bounds(idx.reshape(-1), size, d, error=IndexError)
    if isinstance(value, Tensor):
        return IndexFillTensor.apply(input, dim, _Data(index), value)
    return IndexFill.apply(input, dim, _Data(index), value)


def _check_index_add(a: Tensor, dim: int, index: Tensor, source: Tensor) -> None:
    idx = index._data
    if idx.ndim > 1:
        raise IndexError(
            f"index_add_(): Index is supposed to be a vector, but got dim: {idx.ndim} with type: "
            f"{_type(idx)} and size: {_sizes(idx.shape)}"
        )
    if not _is_int_index(idx):
        raise RuntimeError(f"index_add_(): Expected dtype int32/int64 for index but got: {_type(idx)}")
    if a._data.dtype != source._data.dtype:
        raise RuntimeError(
            f"index_add_(): self ({_type(a._data)}) and source ({_type(source._data)}) must have the same "
            "scalar type"
        )
    if not (dim == 0 or dim < source.ndim):
        raise RuntimeError(
            f"index_add_(): Indexing dim {dim} is out of bounds of the source tensor with dim {source.ndim}"
        )
    count = 1 if source.ndim == 0 else source._data.shape[dim]
    if idx.size != count:
        raise RuntimeError(
            f"index_add_(): Number of indices ({idx.size}) should be equal to source.size(dim): ({count}), "
            f"for dim: {dim}"
        )
    s, src = list(a._data.shape), list(source._data.shape)
    if a.ndim and source.ndim and (len(s) != len(src) or s[:dim] + s[dim + 1:] != src[:dim] + src[dim + 1:]):
        raise RuntimeError(
            "source tensor shape must match self tensor shape, excluding the specified dimension. Got "
            f"self.shape = {_sizes(a._data.shape)} source.shape = {_sizes(source._data.shape)}"
        )
    _check_bounds(idx, a._data.shape[dim] if a.ndim else 1, dim)


class IndexAdd(Function):
    node_name = "IndexAddBackward0"
    saved_names = ("index", "source")

    @staticmethod
    def forward(ctx: Any, a: Tensor, dim: int, index: _Data, source: Tensor, alpha: Any) -> Tensor:
        ctx.dim, ctx.alpha = dim, alpha
        ctx.save_for_backward(index.t, source)
        out = np.array(a._data, order="C")  # (PyTorch's: a row-major clone, added into)
        src = source._data if alpha == 1 else source._data * np.asarray(alpha, dtype=source._data.dtype)
        np.add.at(_moved(out, dim), index.t._data.reshape(-1).astype(np.int64), _moved(src, dim))
        return Tensor._make(out)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple:
        index, source = ctx.saved_tensors
        grad_src = None
        if ctx.needs_input_grad[3]:
            grad_src = _source_grad(grad, ctx.dim, index, source)
            if ctx.alpha != 1:  # PyTorch's maybe_multiply: a Scalar (MulBackward1)
                grad_src = MulNumber.apply(grad_src, ctx.alpha)
        return grad, None, None, grad_src, None


def _source_grad(grad: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    """index_add's and index_copy's gradient of ``source``: PyTorch's
    ``grad.index_select(dim, index).expand_as(source)`` (an expand even to the same shape)."""
    g = IndexSelect.apply(grad, dim, _Data(index))
    return g.expand(source.shape) if source.ndim else g.reshape(())


def index_add(input: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1) -> Tensor:
    """``input`` with ``alpha * source`` added at ``index`` along ``dim`` (``torch.index_add``)."""
    index = _as_index(index)
    d = _wrap_dim(dim, input.ndim)
    _check_index_add(input, d, index, source)
    return IndexAdd.apply(input, d, _Data(index), source, alpha)


def _slice_shape(shape: tuple[int, ...], dim: int) -> str:
    rest = list(shape[:dim]) + list(shape[dim + 1:])
    return " ".join(map(str, rest))


class IndexCopy(Function):
    node_name = "IndexCopyBackward0"
    saved_names = ("index", "source")

    @staticmethod
    def forward(ctx: Any, a: Tensor, dim: int, index: _Data, source: Tensor) -> Tensor:
        ctx.dim, ctx.shape = dim, a._data.shape
        ctx.save_for_backward(index.t, source)
        out = np.array(a._data, order="C")  # (PyTorch's: a row-major clone, copied into)
        _moved(out, dim)[index.t._data.reshape(-1)] = _moved(source._data, dim)
        return Tensor._make(out)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple:
        index, source = ctx.saved_tensors
        grad_a = grad_src = None
        if ctx.needs_input_grad[0]:  # PyTorch's grad.index_fill(dim, index, 0)
            grad_a = IndexFill.apply(grad, ctx.dim, _Data(index), 0)
        if ctx.needs_input_grad[3]:
            grad_src = _source_grad(grad, ctx.dim, index, source)
        return grad_a, None, None, grad_src


def index_copy(input: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    """``input`` with the slices at ``index`` along ``dim`` replaced by ``source`` (``torch.index_copy``)."""
    index = _as_index(index)
    d = _wrap_dim(dim, input.ndim)
    idx = index._data
    if idx.ndim > 1:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {idx.ndim})")
    if source.ndim == 0 and idx.size != 1:
        raise IndexError(
            f"index_copy_(): When source is scalar, index should have one element (got {idx.size})"
        )
    if source.ndim != input.ndim and source.ndim != 0 and input.ndim != 0:
        raise IndexError(
            "index_copy_(): When source and destination are not scalars, their dimensionality must match. "
            f"Source dimensionality ({source.ndim}), destination dimensionality ({input.ndim})"
        )
    if idx.dtype != np.int64:
        raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got {_type(idx)}")
    if input._data.dtype != source._data.dtype:
        raise RuntimeError(
            "index_copy_(): self and source expected to have the same dtype, but got (self) "
            f"{_type(input._data)} and (source) {_type(source._data)}"
        )
    ss, sd = input._data.shape, source._data.shape
    if input.ndim and source.ndim and ss[:d] + ss[d + 1:] != sd[:d] + sd[d + 1:]:
        raise RuntimeError(
            "index_copy_(): Source/destination tensor must have same slice shapes. Destination slice shape: "
            f"{_slice_shape(ss, d)} at dimension {d} and source slice shape: {_slice_shape(sd, d)} at "
            "dimension 0."
        )
    count = sd[d] if source.ndim else 1
    if source.ndim and idx.size != count:
        raise IndexError(
            f"index_copy_(): Number of indices ({idx.size}) should be equal to source.size(dim) ({count})"
        )
    _check_bounds(idx, ss[d] if input.ndim else 1, d, "index_copy_(): ", IndexError)
    return IndexCopy.apply(input, d, _Data(index), source)


# ---------------------------------------------------------------------------- masked select, take, nonzero
class MaskedSelect(Function):
    node_name = "MaskedSelectBackward0"
    saved_names = ("mask", "self")

    @staticmethod
    def forward(ctx: Any, a: Tensor, mask: _Data) -> Tensor:
        shape = broadcast_shape(mask.t._data.shape, a._data.shape)
        ctx.save_for_backward(mask.t, a)
        ctx.shape = shape
        return Tensor._make(np.broadcast_to(a._data, shape)[np.broadcast_to(mask.t._data, shape)])

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        mask, _ = ctx.saved_tensors
        if not grad_mode.is_grad_enabled():  # no graph to build: the kernel, on the arrays
            key = (np.broadcast_to(mask._data, ctx.shape),)
            return Tensor._make(_scatter(grad._data, ctx.shape, key, False)), None  # summed back by the node
        zeros = Tensor._make(np.zeros(ctx.shape, grad._data.dtype))
        return MaskedScatter.apply(zeros, grad, _Data(mask)), None


class MaskedScatter(Function):
    """masked_select's derivative: ``zeros.masked_scatter_(mask, grad)`` as PyTorch computes and
    records it (create_graph): its inputs the zeros, which need no gradient, and the gradient."""

    node_name = "MaskedScatterBackward0"
    saved_names = ("mask",)

    @staticmethod
    def forward(ctx: Any, zeros: Tensor, grad: Tensor, mask: _Data) -> Tensor:
        mask = mask.t  # (not a Tensor argument: no edge; saved, and freed by backward, as PyTorch's)
        ctx.save_for_backward(mask)
        ctx._saved_source_sym_sizes = grad._data.shape
        key = (np.broadcast_to(mask._data, zeros._data.shape),)
        source = grad._data.reshape(-1)[:np.count_nonzero(key[0])]  # (its first elements, one per True)
        return Tensor._make(_scatter(source, zeros._data.shape, key, False))

    @staticmethod
    def backward(ctx: Any, gg: Tensor) -> tuple[Tensor | None, Tensor | None, None]:
        (mask,) = ctx.saved_tensors
        need_zeros, need_grad = ctx.needs_input_grad[:2]
        return (gg.masked_fill(mask, 0) if need_zeros else None,
                MaskedScatterGrad.apply(gg, _Data(mask), ctx._saved_source_sym_sizes) if need_grad else None,
                None)


class MaskedScatterGrad(Function):
    """masked_scatter's derivative by its source (PyTorch's ``masked_scatter_backward``): the gradient's
    elements where ``mask`` is True, in order, then zeros, in the source's shape."""

    node_name = "MaskedScatterBackwardBackward0"
    saved_names = ("mask",)

    @staticmethod
    def forward(ctx: Any, grad: Tensor, mask: _Data, sizes: tuple[int, ...]) -> Tensor:
        mask = mask.t
        ctx.save_for_backward(mask)
        g = grad._data
        selected = g[np.broadcast_to(mask._data, g.shape)]
        missing = math.prod(sizes) - selected.size
        if missing > 0:  # (a source larger than the mask's True count: zeros after)
            selected = np.concatenate([selected, np.zeros(missing, g.dtype)])
        return Tensor._make(selected.reshape(sizes))

    @staticmethod
    def backward(ctx: Any, gg: Tensor) -> tuple[Tensor, None, None]:
        (mask,) = ctx.saved_tensors  # PyTorch's: zeros_like(grad_output).masked_scatter(mask, gg)
        shape = np.broadcast_shapes(mask._data.shape, ctx._input_meta[0][0])
        return MaskedScatter.apply(Tensor._make(np.zeros(shape, gg._data.dtype)), gg, _Data(mask)), None, None


def masked_select(input: Tensor, mask: Tensor) -> Tensor:
    """The elements of ``input`` where ``mask`` is True, a 1-D tensor (``torch.masked_select``)."""
    if mask._data.dtype != np.bool_:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    broadcast_shape(mask._data.shape, input._data.shape)
    return MaskedSelect.apply(input, _Data(mask))


class Take(Function):
    node_name = "TakeBackward0"
    saved_names = ("index", "self")

    @staticmethod
    def forward(ctx: Any, a: Tensor, index: _Data) -> Tensor:
        ctx.save_for_backward(index.t, a)
        ctx.shape = a._data.shape
        return Tensor._make(np.asarray(a._data.reshape(-1)[index.t._data]))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        index, _ = ctx.saved_tensors  # PyTorch's zeros_like(self).put_(index, grad, accumulate=True)
        zeros = Tensor._make(np.zeros(ctx.shape, grad._data.dtype))
        return Put.apply(zeros, grad, _Data(index)), None


class Put(Function):
    """``base.put(index, source, accumulate=True)``: ``source`` added at the flat positions ``index`` of
    ``base`` (the gradient of ``take``, where ``base`` is zeros)."""

    node_name = "PutBackward0"
    saved_names = ("index", "source")

    @staticmethod
    def forward(ctx: Any, base: Tensor, source: Tensor, index: _Data) -> Tensor:
        ctx.save_for_backward(index.t, source)
        ctx._saved_accumulate = True
        out = np.array(base._data, copy=True).reshape(-1)
        np.add.at(out, index.t._data.reshape(-1) % max(out.size, 1), source._data.reshape(-1))
        return Tensor._make(out.reshape(base._data.shape))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None, None]:
        index, source = ctx.saved_tensors  # PyTorch's: grad for self; grad.take(index).reshape_as(source)
        need_base, need_source = ctx.needs_input_grad[:2]
        grad_source = Take.apply(grad, _Data(index)).reshape(source.shape) if need_source else None
        return (grad if need_base else None), grad_source, None


def take(input: Tensor, index: Tensor) -> Tensor:
    """The elements of ``input`` at flat positions ``index`` (``torch.take``)."""
    index = _as_index(index)
    idx = index._data
    if idx.dtype != np.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {_type(idx)}")
    n = input._data.size
    if n == 0 and idx.size:
        raise IndexError("take(): tried to take from an empty tensor")
    bad = (idx < -n) | (idx >= n)
    if bad.any():
        value = int(idx.reshape(-1)[np.flatnonzero(bad.reshape(-1))[0]])
        raise IndexError(f"out of range: tried to access index {value} on a tensor of {n} elements.")
    return Take.apply(input, _Data(index))


def argwhere(input: Tensor) -> Tensor:
    """The indices of the nonzero elements, one row each (``torch.argwhere``: ``nonzero``)."""
    return nonzero(input)


def unravel_index(indices: Any, shape: Any) -> tuple[Tensor, ...]:
    """The coordinates in ``shape`` of flat ``indices``, one tensor per dim (``torch.unravel_index``, as
    PyTorch computes it: each index floor-divided by the dim's stride, then taken modulo the dim, so
    that an index out of range wraps around)."""
    if not isinstance(indices, Tensor):
        raise TypeError(f"expected 'indices' to be a tensor, but got {type(indices)}")
    idx = indices._data
    if idx.dtype.kind not in "iu":
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    shape = (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(s) for s in shape)
    if any(s < 0 for s in shape):
        raise ValueError(f"'shape' cannot have negative values, but got ({', '.join(map(str, shape))})")
    strides = [math.prod(shape[d + 1:]) for d in range(len(shape))]
    with np.errstate(divide="ignore"):  # (a dim of size 0: PyTorch's integer division by zero)
        coords = np.floor_divide(idx.astype(np.int64)[..., None], strides) % np.array(shape, np.int64)
    return tuple(Tensor._make(np.array(coords[..., d])) for d in range(len(shape)))


def nonzero(input: Tensor, *, as_tuple: bool = False) -> Any:
    """The indices of the nonzero elements: an ``(n, ndim)`` int64 tensor, or one 1-D tensor per dim."""
    arr = input._data
    if as_tuple:
        return tuple(Tensor._make(np.asarray(i, dtype=np.int64)) for i in np.nonzero(_dim_1(arr)))
    return Tensor._make(np.argwhere(arr).astype(np.int64))
