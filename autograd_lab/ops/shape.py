"""Copies in another shape: joins (cat, stack), flip, roll, repeat, triangles and diagonals.
"""

from __future__ import annotations

import builtins
import warnings
from typing import Any

import numpy as np

from .. import dtypes
from ..dtypes import wrap_dim as _wrap_dim
from ..function import Function
from ..grad_mode import is_grad_enabled
from ..tensor import Tensor
from .copies import Clone
from .indexing import Select, index_fill, index_select, narrow
from .inplace import empty_preserving
from .promotion import (
    _invalid_combination,
    _not_implemented,
    check_arg_types,
    in_order,
    result_dtype,
    row_major,
    suggested_order,
)
from .view import Diagonal, DiagonalCopy, _dims_list, _view, expand, flatten, reshape, unsqueeze, view, viewed


# ---------------------------------------------------------------------------- joins and splits
def _skipped(t: Tensor) -> bool:
    """A 1-D empty tensor: ``cat`` leaves it out whatever the others' shapes (PyTorch's legacy rule)."""
    return t._data.shape == (0,)


class Cat(Function):
    node_name = "CatBackward0"

    @staticmethod
    def forward(ctx: Any, dim: int, *tensors: Tensor) -> Tensor:
        kept = [t for t in tensors if not _skipped(t)]
        ref = kept[0]._data.shape if kept else (0,)
        for i, t in enumerate(tensors):
            s = t._data.shape
            if _skipped(t):
                continue
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
        ctx.sizes = [None if _skipped(t) else t._data.shape[dim] for t in tensors]
        dtype = result_dtype(*tensors)
        arrays = [t._data for t in kept] or [np.zeros(0)]
        # laid out as PyTorch's result (NumPy's follows its inputs' layout: expanded ones, any)
        return Tensor._make(in_order(np.concatenate(arrays, axis=dim), _cat_order(arrays), dtype))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple:
        pieces, start = [], 0
        for size in ctx.sizes:
            if size is None:  # a skipped empty tensor: an empty gradient
                pieces.append(Tensor._make(np.zeros(0, dtype=grad._data.dtype)))
                continue
            pieces.append(narrow(grad, ctx.dim, start, size))
            start += size
        return (None, *pieces)


def _cat_order(arrays: list[np.ndarray]) -> list[int]:
    """The layout of ``cat``'s result (PyTorch's ``cat_compute_output_memory_format``): channels last
    where every input is laid out so (:func:`suggested_order`), else row-major."""
    orders = {tuple(suggested_order(a)) for a in arrays}
    return list(orders.pop()) if len(orders) == 1 else list(range(arrays[0].ndim))


def cat(tensors: Any, dim: int = 0) -> Tensor:
    """The tensors joined along an existing dimension ``dim`` (``torch.cat``)."""
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("torch.cat(): expected a non-empty list of Tensors")
    for i, t_ in enumerate(tensors):
        if t_.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    ref = next((t_ for t_ in tensors if not _skipped(t_)), tensors[0])
    return Cat.apply(_wrap_dim(dim, ref.ndim), *tensors)


concat = concatenate = cat  # torch.concat and torch.concatenate: aliases of cat


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
        arrays, dtype = [t._data for t in tensors], result_dtype(*tensors)
        if dim < arrays[0].ndim:  # PyTorch's stack: cat along dim, then a view that splits it in two
            joined = in_order(np.concatenate(arrays, axis=dim), _cat_order(arrays), dtype)
            shape = (*arrays[0].shape[:dim], len(arrays), *arrays[0].shape[dim:])
            return Tensor._make(viewed(joined, shape))
        # at the end: cat of the inputs given a last dim (of stride 1, as PyTorch's unsqueeze gives it)
        order = _cat_order([np.lib.stride_tricks.as_strided(a, (*a.shape, 1), (*a.strides, a.itemsize))
                            for a in arrays])
        return Tensor._make(in_order(np.stack(arrays, axis=dim), order, dtype))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple:
        return (None, *(Select.apply(grad, ctx.dim, i) for i in range(ctx.n)))


def stack(tensors: Any, dim: int = 0) -> Tensor:
    """The tensors joined along a new dimension ``dim`` (``torch.stack``)."""
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    return Stack.apply(_wrap_dim(dim, tensors[0].ndim + 1), *tensors)


def _at_least(n: int, t: Tensor) -> Tensor:
    """PyTorch's ``atleast_{n}d`` of one tensor: a 0-d one reshaped, a 1-d one made a row (and, for 3-d,
    given a last dim), a 2-d one given a last dim (3-d)."""
    if t.ndim >= n:
        return t
    if t.ndim == 0:
        return reshape(t, (1,) * n)
    return unsqueeze(unsqueeze(t, 0), -1) if n - t.ndim == 2 else unsqueeze(t, 0 if n == 2 else -1)


def _atleast_nd(n: int) -> Any:
    def atleast(*tensors: Any) -> Any:
        many = len(tensors) != 1 or isinstance(tensors[0], (list, tuple))
        if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
            tensors = tuple(tensors[0])
        out = tuple(_at_least(n, t) for t in tensors)
        return out if many else out[0]

    atleast.__name__ = atleast.__qualname__ = f"atleast_{n}d"
    atleast.__doc__ = f"Each tensor with at least {n} dims (``torch.atleast_{n}d``): one tensor, or a tuple."
    return atleast


atleast_1d, atleast_2d, atleast_3d = (_atleast_nd(n) for n in (1, 2, 3))


def dstack(tensors: Any) -> Tensor:
    """The tensors joined depth-wise, along dim 2 of each made at least 3-d (``torch.dstack``)."""
    tensors = [_at_least(3, t) for t in tensors]
    if not tensors:
        raise RuntimeError("dstack expects a non-empty TensorList")
    return cat(tensors, 2)


def column_stack(tensors: Any) -> Tensor:
    """The tensors joined as columns: each 0-d or 1-d one a column first (``torch.column_stack``)."""
    tensors = [reshape(t, (t._data.size, 1)) if t.ndim <= 1 else t for t in tensors]
    if not tensors:
        raise RuntimeError("column_stack expects a non-empty TensorList")
    return cat(tensors, 1)


def hstack(tensors: Any) -> Tensor:
    """The tensors joined column-wise: along dim 1, or dim 0 for 1-D ones (``torch.hstack``)."""
    tensors = [_at_least(1, t) for t in tensors]
    if not tensors:
        raise RuntimeError("hstack expects a non-empty TensorList")
    return cat(tensors, 0 if tensors[0].ndim == 1 else 1)


def vstack(tensors: Any) -> Tensor:
    """The tensors joined row-wise, 1-D ones as rows (``torch.vstack``)."""
    tensors = [_at_least(2, t) for t in tensors]
    if not tensors:
        raise RuntimeError("vstack expects a non-empty TensorList")
    return cat(tensors, 0)


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


def split(a: Tensor, split_size: Any, dim: int = 0) -> tuple[Tensor, ...]:
    """Pieces of ``split_size`` along ``dim`` (the last may be smaller), or of the listed sizes."""
    if a.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = _wrap_dim(dim, a.ndim)
    n = a._data.shape[d]
    if isinstance(split_size, (int, np.integer)):
        if split_size < 0:
            raise RuntimeError(f"split expects split_size be non-negative, but got split_size={split_size}")
        if split_size == 0:
            if n:
                raise RuntimeError(
                    f"split_size can only be 0 if dimension size is 0, but got dimension size of {n}")
            return Split.apply(a, d, (0,), "Split")
        sizes = [int(split_size)] * (n // split_size) + ([n % split_size] if n % split_size else [])
        return Split.apply(a, d, tuple(sizes or [0]), "Split")
    sizes = [int(s) for s in split_size]
    if builtins.sum(sizes) != n:
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size at "
            f"dimension {d}), but got split_sizes={sizes}"
        )
    return SplitWithSizes.apply(a, d, tuple(sizes), "SplitWithSizes")


def tensor_split(a: Tensor, indices_or_sections: Any, dim: int = 0) -> tuple[Tensor, ...]:
    """``a`` cut along ``dim`` into ``n`` nearly equal pieces (the first ``size % n`` one longer), or at
    the listed indices: a slice of ``a`` each, SliceBackward0 views (``torch.tensor_split``)."""
    if a.ndim == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 "
                           "dims")
    d = _wrap_dim(dim, a.ndim)
    cut = indices_or_sections
    if isinstance(cut, Tensor):
        if cut._data.dtype != np.int64:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to have dtype of long, but "
                               f"got {dtypes.scalar_type_name(cut._data.dtype)}")
        if cut.ndim > 1:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                               f"one-dimensional tensor, but got a tensor with {cut.ndim} dims")
        cut = cut.item() if cut.ndim == 0 else cut.tolist()
    n = a._data.shape[d]
    if isinstance(cut, (int, np.integer)):
        if cut <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {cut}")
        size, extra = divmod(n, int(cut))
        bounds = [0]
        for i in range(int(cut)):
            bounds.append(bounds[-1] + size + (i < extra))
    else:
        bounds = [0, *(int(i) for i in cut), n]
    pieces = []
    for start, end in zip(bounds, bounds[1:]):  # each a slice, its ends clamped as slicing clamps them
        start, end = _clamped(start, n), _clamped(end, n)
        pieces.append(narrow(a, d, start, builtins.max(end - start, 0)))
    return tuple(pieces)


def _clamped(i: int, n: int) -> int:
    """A slice's end as PyTorch takes it: a negative one counts from the end, then within [0, n]."""
    return builtins.min(builtins.max(i + n if i < 0 else i, 0), n)


def _split_along(name: str, a: Tensor, sections: Any, dim: int, least: int) -> tuple[Tensor, ...]:
    """hsplit, vsplit, dsplit: ``tensor_split`` along ``dim``, an int of sections dividing it exactly."""
    if a.ndim < least:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {least} dimension, but got a "
                           f"tensor with {a.ndim} dimensions!")
    if isinstance(sections, (int, np.integer)):
        n = a._data.shape[dim]
        if sections == 0 or n % sections:
            raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the size of the "
                               f"dimension {n} is not divisible by the split_size {sections}!")
    return tensor_split(a, sections, dim)


def hsplit(a: Tensor, sections: Any) -> tuple[Tensor, ...]:
    """``tensor_split`` along dim 1 (dim 0 of a 1-d tensor) (``torch.hsplit``)."""
    return _split_along("hsplit", a, sections, 0 if a.ndim == 1 else 1, 1)


def vsplit(a: Tensor, sections: Any) -> tuple[Tensor, ...]:
    """``tensor_split`` along dim 0 (``torch.vsplit``)."""
    return _split_along("vsplit", a, sections, 0, 2)


def dsplit(a: Tensor, sections: Any) -> tuple[Tensor, ...]:
    """``tensor_split`` along dim 2 (``torch.dsplit``)."""
    return _split_along("dsplit", a, sections, 2, 3)


def chunk(a: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    """``chunks`` pieces of ``a`` along ``dim``, as equal as possible (views; ``torch.chunk``)."""
    if a.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    d = _wrap_dim(dim, a.ndim)
    if a._data.shape[d] == 0:  # as PyTorch: `chunks` empty pieces
        return SplitWithSizes.apply(a, d, (0,) * chunks, "SplitWithSizes")
    size = -(-a._data.shape[d] // chunks)
    return split(a, size, d)


class Unbind(Function):
    """``unbind``: one node with one output per index of ``dim``, each a view of the input."""

    node_name = "UnbindBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor, dim: int) -> tuple[Tensor, ...]:
        ctx.dim = dim
        pieces = []
        for i in range(a._data.shape[dim]):
            piece = _view(a, a._data[(slice(None),) * dim + (i, Ellipsis)])  # 0-d: still a view
            piece._view_meta.multi = ("Unbind", i)  # such views must not change in place
            pieces.append(piece)
        return tuple(pieces)

    @staticmethod
    def backward(ctx: Any, *grads: Tensor) -> tuple[Tensor, None]:
        return stack(grads, ctx.dim), None


def unbind(a: Tensor, dim: int = 0) -> tuple[Tensor, ...]:
    """The slices of ``a`` along ``dim``, that dimension removed (views; ``torch.unbind``)."""
    if a.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = _wrap_dim(dim, a.ndim)
    if a._data.shape[d] == 0:
        return ()
    return Unbind.apply(a, d)


def meshgrid(*tensors: Any, indexing: str | None = None) -> tuple[Tensor, ...]:
    """Coordinate grids: output i varies along dimension i (``"ij"``); ``"xy"`` swaps the first two."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    if indexing is None:
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


# ---------------------------------------------------------------------------- rearranging copies
class Flip(Function):
    node_name = "FlipBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor, dims: tuple[int, ...]) -> Tensor:
        ctx.dims = dims
        out = empty_preserving(a._data)  # (PyTorch's: empty_like(self) in its layout, written)
        out[...] = np.flip(a._data, dims) if dims else a._data
        return Tensor._make(out)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return Flip.apply(grad, ctx.dims), None


def flip(a: Tensor, dims: Any) -> Tensor:
    """``a`` reversed along ``dims`` (a copy; ``torch.flip``)."""
    if isinstance(dims, (int, np.integer)):
        raise TypeError(
            f"flip(): argument 'dims' (position 2) must be tuple of ints, not {type(dims).__name__}"
        )
    wrapped = tuple(_wrap_dim(d, a.ndim) for d in _dims_list(dims))
    for d in wrapped:
        if wrapped.count(d) > 1:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return Flip.apply(a, wrapped)


def fliplr(a: Tensor) -> Tensor:
    """``a`` reversed left to right, along dim 1 (``torch.fliplr``)."""
    if a.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return Flip.apply(a, (1,))


def flipud(a: Tensor) -> Tensor:
    """``a`` reversed upside down, along dim 0 (``torch.flipud``)."""
    if a.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return Flip.apply(a, (0,))


class Rot90(Function):
    """``a`` turned ``k`` quarter turns from ``dims[0]`` towards ``dims[1]``, as PyTorch makes it: a row-major
    copy (k = 0), a flip of both dims (k = 2), or a flip of one of them then the two swapped, a transposed
    result (k = 1 and 3). One node; its derivative turns the gradient back (``k`` quarter turns less)."""

    node_name = "Rot90Backward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor, k: int, dims: tuple[int, int]) -> Tensor:
        ctx.k, ctx.dims = k, dims
        x, (d0, d1), turns = a._data, dims, k % 4
        if turns == 0:
            return Tensor._make(np.array(x, order="C"))
        out = empty_preserving(x)  # (flip's result, in the input's layout)
        out[...] = np.flip(x, (d0, d1) if turns == 2 else (d1,) if turns == 1 else (d0,))
        return Tensor._make(out if turns == 2 else np.swapaxes(out, d0, d1))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None]:
        return Rot90.apply(grad, -ctx.k, ctx.dims), None, None


def rot90(a: Tensor, k: int = 1, dims: Any = (0, 1)) -> Tensor:
    """``a`` rotated by ``k`` quarter turns in the plane of ``dims`` (``torch.rot90``)."""
    dims = _dims_list(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if a.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {a.ndim}")
    d0, d1 = (_wrap_dim(d, a.ndim) for d in dims)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} and "
                           f"dim1 = {dims[1]}")
    return Rot90.apply(a, int(k), (d0, d1))


class Roll(Function):
    node_name = "RollBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor, shifts: tuple[int, ...], dims: tuple[int, ...] | None) -> Tensor:
        ctx.shifts, ctx.dims = shifts, dims
        if a._data.size == 0:
            return Tensor._make(np.array(a._data, copy=True))
        if dims is None:  # (PyTorch's result is row-major: it rolls the flattened tensor)
            return Tensor._make(row_major(np.roll(a._data, shifts[0])))
        x = a._data
        for shift, dim in zip(shifts, dims):  # one dim at a time, each as PyTorch's: the cat of two
            start = -shift % x.shape[dim]  # narrowed pieces (so laid out as cat lays them out)
            pieces = [x[(slice(None),) * dim + (part,)] for part in (slice(start, None), slice(0, start))]
            x = in_order(np.concatenate(pieces, axis=dim), _cat_order(pieces))
        return Tensor._make(x)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None]:
        return Roll.apply(grad, tuple(-s for s in ctx.shifts), ctx.dims), None, None


def roll(a: Tensor, shifts: Any, dims: Any = None) -> Tensor:
    """``a`` shifted circularly by ``shifts`` along ``dims`` (``torch.roll``)."""
    shifts = tuple(_dims_list(shifts))
    if dims is None:
        if len(shifts) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
        return Roll.apply(a, shifts, None)
    dims = tuple(_dims_list(dims))
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    return Roll.apply(a, shifts, tuple(_wrap_dim(d, a.ndim) for d in dims))


class Repeat(Function):
    node_name = "RepeatBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor, repeats: tuple[int, ...]) -> Tensor:
        ctx.shape, ctx.repeats = a._data.shape, repeats
        return Tensor._make(np.tile(a._data, repeats))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        # PyTorch's repeat_backward: the new leading dims summed one by one, then each repeated dim
        # split in (repeat, size) and the repeats summed, in one reshape and one sum
        if 0 in ctx.repeats:
            return Tensor._make(np.zeros(ctx.shape, grad._data.dtype)), None
        g = grad
        for _ in range(len(ctx.repeats) - len(ctx.shape)):
            g = g.sum(0)
        split: list[int] = []
        summed: list[int] = []
        for r, size in zip(ctx.repeats[len(ctx.repeats) - len(ctx.shape):], ctx.shape):
            if r != 1:
                split.append(r)
                summed.append(len(split) - 1)
            split.append(size)
        if summed:
            g = g.reshape(tuple(split)).sum(tuple(summed))
        return g, None


def repeat(a: Tensor, repeats: tuple[int, ...]) -> Tensor:
    """``a`` tiled ``repeats`` times along each dimension (``Tensor.repeat``)."""
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
    """``a`` tiled ``dims`` times, ``dims`` padded with ones in front (``torch.tile``)."""
    reps = tuple(_dims_list(dims))
    return repeat(a, (1,) * (a.ndim - len(reps)) + reps)


_REPEAT_INTERLEAVE = {  # PyTorch's argument parser's signatures, for its error
    False: ["Tensor input, Tensor repeats, int dim = None, *, int output_size = None",
            "Tensor repeats, *, int output_size = None",
            "Tensor input, int repeats, int dim = None, *, int output_size = None"],
    True: ["Tensor repeats, int dim = None, *, int output_size = None",
           "int repeats, int dim = None, *, int output_size = None"],
}


def repeat_interleave(input: Any = None, repeats: Any = None, dim: int | None = None, *,
                      output_size: int | None = None, _method: bool = False) -> Tensor:
    """Each element (or each slice along ``dim``) of ``input`` repeated ``repeats`` times in place,
    ``[a, b] -> [a, a, b, b]`` (``torch.repeat_interleave``; ``dim=None``: of ``input`` flattened).
    ``repeats`` a number, or a tensor of one count per slice; ``repeat_interleave(counts)`` alone: the
    indices ``i`` repeated ``counts[i]`` times.

    Composed as PyTorch composes it, recording its nodes: a number ``r`` unsqueezes a dimension after
    ``dim``, expands it to ``r``, copies and merges the two (``ViewBackward0``, ``CloneBackward0``,
    ``ExpandBackward0``, ``UnsqueezeBackward0``); a tensor of counts selects the slices by index
    (``IndexSelectBackward0``)."""
    if _method and repeats is None:
        raise _invalid_combination("repeat_interleave", (), _REPEAT_INTERLEAVE[True])
    if repeats is None or input is None:  # the indices form, repeat_interleave(repeats)
        counts = input if repeats is None else repeats
        if not isinstance(counts, Tensor):
            raise TypeError(f"repeat_interleave(): argument 'repeats' (position 1) must be Tensor, not "
                            f"{type(counts).__name__}")
        return _repeated_indices(counts, output_size)
    args = (repeats,) if _method else (input, repeats)
    if isinstance(repeats, Tensor):
        x, d = (input, dim) if dim is not None else (flatten(input), 0)
        if repeats.ndim > 1:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        size = _size(x, d)  # (its errors first, as PyTorch's input.size(dim))
        counts = repeats._data.reshape(-1)
        if counts.size == 1:  # one count for every slice
            counts = np.broadcast_to(counts, (size,))
        elif counts.size != size:
            raise RuntimeError("repeats must have the same size as input along dim, but got repeats.size(0) "
                               f"= {counts.size} and input.size({d}) = {size}")
        return index_select(x, d, _repeated_indices(Tensor._make(counts), output_size))
    if type(repeats) is not int and not isinstance(repeats, np.integer):
        raise _invalid_combination("repeat_interleave", args, _REPEAT_INTERLEAVE[_method])
    x = input if dim is not None else flatten(input)
    d = _wrap_dim(0 if dim is None else dim, input.ndim)
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    x = unsqueeze(x, d + 1)
    shape = list(x._data.shape)
    shape[d + 1] = int(repeats)
    if output_size is not None and output_size != repeats * shape[d]:
        raise RuntimeError(f"repeat_interleave: Invalid output_size, expected {repeats * shape[d]} but got "
                           f"{output_size}")
    return flatten(Clone.apply(expand(x, tuple(shape)), "C"), d, d + 1)


def _size(x: Tensor, dim: int) -> int:
    """``x.size(dim)``, with PyTorch's errors."""
    if x.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return x._data.shape[_wrap_dim(dim, x.ndim)]


def _repeated_indices(counts: Tensor, output_size: int | None) -> Tensor:
    """``repeat_interleave(counts)``: 0 repeated ``counts[0]`` times, then 1, ... (int32 or int64, as
    ``counts``); ``output_size`` their number, when given (PyTorch's checks, in its order)."""
    c = counts._data
    if c.dtype not in (np.int32, np.int64):
        raise _not_implemented("repeat_interleave_cpu", c.dtype)
    if c.ndim != 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    if c.size == 0:
        return Tensor._make(np.empty(0, c.dtype))
    total = int(np.sum(c, dtype=np.int64))
    if output_size is None and (c < 0).any():
        raise RuntimeError("repeats can not be negative")
    size = total if output_size is None else int(output_size)
    if size < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {size}: [{size}]")
    if size != total:
        raise RuntimeError("allocated size does not match required size")
    if (c < 0).any():
        raise RuntimeError("repeats can not be negative")
    return Tensor._make(np.repeat(np.arange(c.size, dtype=c.dtype), c))


# ---------------------------------------------------------------------------- triangles and diagonals
class Tril(Function):
    node_name = "TrilBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor, diagonal: int) -> Tensor:
        ctx.diagonal = diagonal
        return Tensor._make(row_major(np.tril(a._data, diagonal)))  # (PyTorch's: row-major, whatever a's)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return Tril.apply(grad, ctx.diagonal), None


def tril(a: Tensor, diagonal: int = 0) -> Tensor:
    """``a`` with the elements above the ``diagonal``-th diagonal zeroed (``torch.tril``)."""
    if a.ndim < 2:
        raise RuntimeError("tril: input tensor must have at least 2 dimensions")
    return Tril.apply(a, int(diagonal))


class Triu(Function):
    node_name = "TriuBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor, diagonal: int) -> Tensor:
        ctx.diagonal = diagonal
        return Tensor._make(row_major(np.triu(a._data, diagonal)))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return Triu.apply(grad, ctx.diagonal), None


def triu(a: Tensor, diagonal: int = 0) -> Tensor:
    """``a`` with the elements below the ``diagonal``-th diagonal zeroed (``torch.triu``)."""
    if a.ndim < 2:
        raise RuntimeError("triu: input tensor must have at least 2 dimensions")
    return Triu.apply(a, int(diagonal))


class DiagEmbed(Function):
    """The last dimension of ``a`` on the ``offset`` diagonal of two new dimensions ``dim1`` and ``dim2``
    of the result, zeros elsewhere (``diag`` of a vector: dims -2 and -1, a matrix). Its gradient is the
    gradient's diagonal there (a view, ``DiagonalBackward0`` with create_graph)."""

    node_name = "DiagEmbedBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor, offset: int, dim1: int, dim2: int) -> Tensor:
        x = a._data
        d1, d2 = _wrap_dim(dim1, x.ndim + 1), _wrap_dim(dim2, x.ndim + 1)
        ctx.args = (offset, d1, d2)
        ctx._saved_offset, ctx._saved_dim1, ctx._saved_dim2 = offset, dim1 % 2**64, dim2 % 2**64  # (as given)
        shape = list(x.shape[:-1])
        for d in sorted((d1, d2)):
            shape.insert(d, x.shape[-1] + builtins.abs(offset))
        out = np.zeros(shape, x.dtype)
        on_diagonal = np.diagonal(out, offset, d1, d2)  # (the diagonal last, as a's last dimension)
        on_diagonal.flags.writeable = True
        on_diagonal[...] = x
        return Tensor._make(out)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None, None]:
        return Diagonal.apply(grad, *ctx.args), None, None, None


def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1, *,
               _method: bool = False) -> Tensor:
    """Each vector along the last dimension of ``input`` as the ``offset`` diagonal of a matrix in the
    dimensions ``dim1`` and ``dim2`` of the result (``torch.diag_embed``): a batch of diagonal matrices."""
    if not isinstance(input, Tensor):
        raise TypeError("diag_embed(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    check_arg_types("diag_embed", _method, ("offset", 2, offset, int), ("dim1", 3, dim1, int),
                    ("dim2", 4, dim2, int))
    if _wrap_dim(dim1, input.ndim + 1) == _wrap_dim(dim2, input.ndim + 1):
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return DiagEmbed.apply(input, int(offset), int(dim1), int(dim2))


def diag(a: Tensor, diagonal: int = 0) -> Tensor:
    """A 1-D tensor as a diagonal matrix, or a matrix's diagonal as a 1-D copy (``torch.diag``)."""
    if a.ndim == 1:
        return DiagEmbed.apply(a, int(diagonal), -2, -1)
    if a.ndim == 2:
        return DiagonalCopy.apply(a, int(diagonal), 0, 1)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {a.ndim}D")


class Trace(Function):
    node_name = "TraceBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor) -> Tensor:
        ctx.shape = a._data.shape
        out = np.trace(a._data)
        return Tensor._make(np.asarray(out, dtype=np.int64 if a._data.dtype.kind in "biu" else out.dtype))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        n, m = ctx.shape  # PyTorch's trace_backward: grad filled into zeros at the diagonal's places
        positions = np.arange(min(n, m)) * (m + 1)  # (only the diagonal's min(n, m) places)
        if not is_grad_enabled():  # no graph to build: the same, on the array; PyTorch's result is a view
            out = np.zeros(n * m, grad._data.dtype)  # (made in no_grad mode) of the filled zeros
            out[positions] = grad._data
            return Tensor._make(out).view(n, m)
        zeros = Tensor._make(np.zeros(n * m, grad._data.dtype))
        return index_fill(zeros, 0, Tensor._make(positions.astype(np.int64)), grad).view(n, m)


def trace(a: Tensor) -> Tensor:
    """The sum of a matrix's diagonal (``torch.trace``)."""
    if a.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {a.ndim}")
    return Trace.apply(a)
