"""Sorting and order statistics: sort, argsort, topk, median; unique.

Backward sends each output value's gradient to the element it was taken from (zeros elsewhere):
:func:`_select_back`, a scatter into zeros.
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np

from ..dtypes import shape_str
from ..dtypes import wrap_dim as _wrap_dim
from ..function import Function
from ..grad_mode import is_grad_enabled
from ..tensor import Tensor
from .comparison import MaskedFillTensor
from .indexing import ScatterSrc, _Data
from .inplace import empty_preserving
from .promotion import _not_implemented

SortResult = namedtuple("sort", ["values", "indices"])


TopkResult = namedtuple("topk", ["values", "indices"])


MedianResult = namedtuple("median", ["values", "indices"])


def _select_back(grad: Tensor, idx: np.ndarray, shape: tuple[int, ...], dim: int, keepdim: bool) -> Tensor:
    """The gradient of values picked at ``idx`` along ``dim`` (sort, topk, median): each value's
    gradient goes to the element it was taken from, zeros elsewhere."""
    if not keepdim and shape:  # (a 0-d input: its one element, scattered as it is, as PyTorch's)
        grad = grad.unsqueeze(dim)
        idx = np.expand_dims(idx, dim)
    zeros = Tensor._make(np.zeros(shape, dtype=grad._data.dtype))
    return ScatterSrc.apply(zeros, dim, _Data(Tensor._make(idx)), grad)


def _stable_order(x: np.ndarray, dim: int, descending: bool) -> np.ndarray:
    """Indices that sort ``x`` along ``dim``, equal values in their original order; NaN counts as the
    largest value (last ascending, first descending), as in PyTorch."""
    if not descending:
        return np.argsort(x, axis=dim, kind="stable")
    n = x.shape[dim]
    rev = np.argsort(np.flip(x, dim), axis=dim, kind="stable")
    return (n - 1) - np.flip(rev, dim)


def _picked(ctx: Any, x: np.ndarray, dim: int, order_of: Any,
            preserve: bool = False) -> tuple[Tensor, Tensor]:
    """The values at ``order_of(x)`` along ``dim`` and those indices (no gradient), saved for backward;
    ``preserve``: both in ``x``'s layout (PyTorch's sort writes into ``empty_like(self)``)."""
    order = order_of(x) if x.ndim else np.zeros((), dtype=np.int64)
    values = np.take_along_axis(x, order, axis=dim) if x.ndim else np.array(x, copy=True)
    order = order.astype(np.int64)
    if preserve and not x.flags.c_contiguous:
        values, order = _in_layout_of(values, x), _in_layout_of(order, x)
    indices = Tensor._make(order)
    ctx.mark_non_differentiable(indices)
    ctx.save_for_backward(indices)
    ctx.shape, ctx.dim = x.shape, dim
    return Tensor._make(values), indices


class Sort(Function):
    node_name = "SortBackward0"
    saved_names = ("indices",)

    @staticmethod
    def forward(ctx: Any, a: Tensor, dim: int, descending: bool) -> tuple[Tensor, Tensor]:
        return _picked(ctx, a._data, dim, lambda x: _stable_order(x, dim, descending), preserve=True)

    @staticmethod
    def backward(ctx: Any, grad: Tensor, _: Any) -> tuple[Tensor, None, None]:
        (indices,) = ctx.saved_tensors
        return _select_back(grad, indices._data, ctx.shape, ctx.dim, True), None, None


def _in_layout_of(values: np.ndarray, x: np.ndarray) -> np.ndarray:
    out = empty_preserving(x, values.dtype)
    out[...] = values
    return out


def sort(a: Tensor, dim: int = -1, descending: bool = False, *, stable: bool = False) -> Any:
    """Sorted values and their indices; equal values keep their order (always stable here)."""
    return SortResult(*Sort.apply(a, _wrap_dim(int(dim), a._data.ndim), bool(descending)))


def searchsorted(sorted_sequence: Tensor, input: Any, *, out_int32: bool = False, right: bool = False,
                 side: str | None = None, sorter: Tensor | None = None) -> Tensor:
    """Where each value of ``input`` would go in ``sorted_sequence`` (along its last dim; its leading dims
    pair with ``input``'s) to keep it sorted: the first such place, or the last with ``right=True`` or
    ``side="right"`` (``torch.searchsorted``)."""
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got side of "
                               "left while right was True")
        right = side == "right"
    seq = sorted_sequence._data
    if sorter is not None:
        seq = np.take_along_axis(seq, sorter._data, axis=-1)
    values = input._data if isinstance(input, Tensor) else np.asarray(input)
    if seq.ndim > 1 and values.shape[:-1] != seq.shape[:-1]:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should be 1 dimension or the first "
                           "N-1 dimensions of boundaries tensor and input value tensor must match, but we "
                           f"got boundaries tensor {shape_str(seq.shape)} and input value tensor "
                           f"{shape_str(values.shape)}")
    out = _binary_search(seq, values, right)
    return Tensor._make(np.asarray(out, np.int32 if out_int32 else np.int64))


def _binary_search(seq: np.ndarray, values: np.ndarray, right: bool) -> np.ndarray:
    """PyTorch's ``cus_lower_bound``/``cus_upper_bound`` for every value at once: halve [start, end)
    while ``not (seq[mid] >= value)`` (``>`` for the upper bound) moves start; so a nan value goes to the
    end, and a nan in the sequence counts as smaller than every value."""
    n = seq.shape[-1] if seq.ndim else 1
    rows = seq.reshape(-1, n) if seq.ndim > 1 else seq.reshape(1, n)
    vals = values.reshape(rows.shape[0], -1) if seq.ndim > 1 else values.reshape(1, -1)
    start, end = np.zeros(vals.shape, np.int64), np.full(vals.shape, n, np.int64)
    which = np.arange(rows.shape[0])[:, None]
    with np.errstate(invalid="ignore"):
        while (active := start < end).any():
            mid = start + ((end - start) >> 1)
            mid_val = rows[which, np.minimum(mid, n - 1)]
            moves = ~(mid_val > vals if right else mid_val >= vals)
            start = np.where(active & moves, mid + 1, start)
            end = np.where(active & ~moves, mid, end)
    return start.reshape(values.shape)


def bucketize(input: Any, boundaries: Tensor, *, out_int32: bool = False, right: bool = False) -> Tensor:
    """The bucket of each value: the index of the first boundary at or above it (``right=True``: above
    it) (``torch.bucketize``; ``boundaries`` 1-d and sorted)."""
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


def msort(a: Tensor) -> Tensor:
    """``a`` sorted along dim 0 (``torch.msort``: ``sort(a, 0).values``)."""
    return sort(a, 0).values


def argsort(a: Tensor, dim: int = -1, descending: bool = False, *, stable: bool = False) -> Tensor:
    """The indices that sort ``a`` along ``dim`` (``torch.argsort``)."""
    d = _wrap_dim(int(dim), a._data.ndim)
    if a._data.ndim == 0:
        return Tensor._make(np.zeros((), dtype=np.int64))
    order = _stable_order(a._data, d, bool(descending)).astype(np.int64)
    return Tensor._make(order if a._data.flags.c_contiguous else _in_layout_of(order, a._data))


class Topk(Function):
    node_name = "TopkBackward0"
    saved_names = ("indices",)

    @staticmethod
    def forward(ctx: Any, a: Tensor, k: int, dim: int, largest: bool, sorted: bool = True,
                ) -> tuple[Tensor, Tensor]:
        def first_k(x: np.ndarray) -> np.ndarray:
            order = np.take(_stable_order(x, dim, largest), np.arange(k), axis=dim)
            return _topk_ties(x, order, k, dim, largest, sorted)

        return _picked(ctx, a._data, dim, first_k)

    @staticmethod
    def backward(ctx: Any, grad: Tensor, _: Any) -> tuple[Tensor, None, None, None, None]:
        (indices,) = ctx.saved_tensors
        return _select_back(grad, indices._data, ctx.shape, ctx.dim, True), None, None, None, None


def topk(a: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True) -> Any:
    """``(values, indices)`` of the ``k`` largest (or smallest) elements along ``dim`` (``torch.topk``)."""
    d = _wrap_dim(int(dim), a._data.ndim)
    n = a._data.shape[d] if a._data.ndim else 1
    if not 0 <= k <= n:
        raise RuntimeError("selected index k out of range")
    if a._data.dtype == np.bool_:
        raise RuntimeError("topk does not support bool dtypes on CPU")
    return TopkResult(*Topk.apply(a, int(k), d, bool(largest), bool(sorted)))


# ---------------------------------------------------------------------------- topk's order among equal values
# PyTorch's topk (topk_impl_loop) orders (value, index) pairs with C++'s std::nth_element and std::sort (or
# std::partial_sort when k * 64 <= n), which are not stable: where values repeat, which of them come first
# is what GCC's algorithms make of it. Rows with repeated values (or several NaNs) replay them here, step by
# step, and with sorted=False every row (nth_element leaves the first k in its own order); other rows have
# one answer, the stable order.
_REPLAYED = 1 << 14  # longest row replayed (in Python); longer rows keep the stable order among ties


def _topk_ties(x: np.ndarray, order: np.ndarray, k: int, dim: int, largest: bool, sort: bool) -> np.ndarray:
    """``order`` (the stable first k along ``dim``), with the rows whose values repeat replayed."""
    n = x.shape[dim]
    if k == 0 or n < 2 or n > _REPLAYED:
        return order
    rows = np.moveaxis(x, dim, -1).reshape(-1, n)
    if not sort and k * 64 > n:  # unsorted, nth_element's order: every row
        repeated = np.arange(len(rows))
    else:
        srt = np.sort(rows, axis=1)
        nans = np.isnan(rows).sum(axis=1) if rows.dtype.kind == "f" else np.zeros(len(rows), np.int64)
        repeated = np.flatnonzero((srt[:, 1:] == srt[:, :-1]).any(axis=1) | (nans > 1))
    if not repeated.size:
        return order
    out = np.moveaxis(order, dim, -1).reshape(-1, k).copy()
    for r in repeated:
        out[r] = _gnu_topk(rows[r].tolist(), k, largest, sort)
    return np.moveaxis(out.reshape(*np.moveaxis(order, dim, -1).shape), -1, dim)


def _gnu_topk(values: list, k: int, largest: bool, sort: bool) -> list[int]:
    """One row of topk_impl_loop: the indices of its first k pairs."""
    def before(a: tuple, b: tuple) -> bool:  # PyTorch's comparator: NaN the largest
        x, y = a[0], b[0]
        if largest:
            return (x != x and y == y) or x > y
        return (x == x and y != y) or x < y

    q = [(v, i) for i, v in enumerate(values)]
    n = len(q)
    if k * 64 <= n:  # std::partial_sort
        _heap_select(q, 0, k, n, before)
        _sort_heap(q, 0, k, before)
    else:  # std::nth_element, then std::sort of the first k - 1 (sic)
        _introselect(q, 0, k - 1, n, 2 * _lg(n), before)
        if sort and k - 1 > 0:
            _introsort_loop(q, 0, k - 1, 2 * _lg(k - 1), before)
            _final_insertion_sort(q, 0, k - 1, before)
    return [i for _, i in q[:k]]


def _lg(n: int) -> int:
    return n.bit_length() - 1


def _introselect(q: list, first: int, nth: int, last: int, depth: int, before: Any) -> None:
    if nth == last:
        return
    while last - first > 3:
        if depth == 0:
            _heap_select(q, first, nth + 1, last, before)
            q[first], q[nth] = q[nth], q[first]
            return
        depth -= 1
        cut = _partition_pivot(q, first, last, before)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(q, first, last, before)


def _introsort_loop(q: list, first: int, last: int, depth: int, before: Any) -> None:
    while last - first > 16:
        if depth == 0:
            _heap_select(q, first, last, last, before)
            _sort_heap(q, first, last, before)
            return
        depth -= 1
        cut = _partition_pivot(q, first, last, before)
        _introsort_loop(q, cut, last, depth, before)
        last = cut


def _final_insertion_sort(q: list, first: int, last: int, before: Any) -> None:
    if last - first > 16:
        _insertion_sort(q, first, first + 16, before)
        for i in range(first + 16, last):
            _linear_insert(q, i, before)
    else:
        _insertion_sort(q, first, last, before)


def _partition_pivot(q: list, first: int, last: int, before: Any) -> int:
    """The median of three moved to ``first``, then Hoare's partition around it."""
    a, b, c = first + 1, first + (last - first) // 2, last - 1
    if before(q[a], q[b]):
        m = b if before(q[b], q[c]) else c if before(q[a], q[c]) else a
    else:
        m = a if before(q[a], q[c]) else c if before(q[b], q[c]) else b
    q[first], q[m] = q[m], q[first]
    pivot, lo, hi = q[first], first + 1, last
    while True:
        while before(q[lo], pivot):
            lo += 1
        hi -= 1
        while before(pivot, q[hi]):
            hi -= 1
        if lo >= hi:
            return lo
        q[lo], q[hi] = q[hi], q[lo]
        lo += 1


def _insertion_sort(q: list, first: int, last: int, before: Any) -> None:
    for i in range(first + 1, last):
        if before(q[i], q[first]):
            q[first:i + 1] = [q[i], *q[first:i]]
        else:
            _linear_insert(q, i, before)


def _linear_insert(q: list, last: int, before: Any) -> None:
    val = q[last]
    while before(val, q[last - 1]):
        q[last] = q[last - 1]
        last -= 1
    q[last] = val


def _heap_select(q: list, first: int, middle: int, last: int, before: Any) -> None:
    length = middle - first
    if length >= 2:  # make_heap
        for parent in range((length - 2) // 2, -1, -1):
            _adjust_heap(q, first, parent, length, q[first + parent], before)
    for i in range(middle, last):
        if before(q[i], q[first]):  # pop_heap into i
            val = q[i]
            q[i] = q[first]
            _adjust_heap(q, first, 0, length, val, before)


def _sort_heap(q: list, first: int, last: int, before: Any) -> None:
    while last - first > 1:
        last -= 1
        val = q[last]
        q[last] = q[first]
        _adjust_heap(q, first, 0, last - first, val, before)


def _adjust_heap(q: list, first: int, hole: int, length: int, val: tuple, before: Any) -> None:
    top = child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if before(q[first + child], q[first + child - 1]):
            child -= 1
        q[first + hole] = q[first + child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        q[first + hole] = q[first + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2  # push_heap
    while hole > top and before(q[first + parent], val):
        q[first + hole] = q[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    q[first + hole] = val


def evenly_distribute(grad: Tensor, a: Tensor, value: np.ndarray) -> Tensor:
    """PyTorch's evenly_distribute_backward, for max(), min() and median() of everything: the
    gradient shared among the elements equal to the result (the NaNs when it is NaN), recorded as
    PyTorch's ``zeros.masked_fill_(mask, grad / mask.sum())`` under create_graph."""
    mask = np.isnan(a._data) if np.isnan(value).any() else a._data == value
    count = np.add.reduce(mask, axis=None, dtype=np.int64)
    if not is_grad_enabled():  # no graph to build: the same, on the arrays
        g = grad._data
        out = Tensor._make(np.where(mask, g / g.dtype.type(count), g.dtype.type(0)))
    else:
        share = grad / Tensor._make(np.asarray(count))
        out = MaskedFillTensor.apply(Tensor._make(np.zeros(a._data.shape, grad._data.dtype)), mask, share)
    out._version_counter.value += 1  # (PyTorch's masked_fill_ wrote it in place: version 1, seed 34101947)
    return out


class MedianAll(Function):
    node_name = "MedianBackward0"
    saved_names = ("self", "result")

    @staticmethod
    def forward(ctx: Any, a: Tensor) -> Tensor:
        x = a._data.reshape(-1)
        if x.size == 0:
            value = np.asarray(np.nan, dtype=x.dtype)
        elif x.dtype.kind == "f" and np.isnan(x).any():
            value = np.asarray(np.nan, dtype=x.dtype)
        else:
            value = np.sort(x)[(x.size - 1) // 2]  # the lower of the two middle values
        out = Tensor._make(np.asarray(value))
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        a, out = ctx.saved_tensors
        return evenly_distribute(grad, a, out._data)


class MedianDim(Function):
    node_name = "MedianBackward1"
    saved_names = ("indices",)

    @staticmethod
    def forward(ctx: Any, a: Tensor, dim: int, keepdim: bool) -> tuple[Tensor, Tensor]:
        x = a._data if a._data.ndim else a._data.reshape(1)
        keepdim = keepdim and a._data.ndim > 0
        n = x.shape[dim]
        order = np.argsort(x, axis=dim, kind="stable")  # NaNs last, in their order
        pick = np.take(order, [(n - 1) // 2], axis=dim)
        if x.dtype.kind == "f":  # a row with NaN: its first NaN
            nan_count = np.isnan(x).sum(axis=dim, keepdims=True)
            first_nan = np.take_along_axis(order, np.minimum(n - nan_count, n - 1), axis=dim) if n else pick
            pick = np.where(nan_count > 0, first_nan, pick)
        values = np.take_along_axis(x, pick, axis=dim)
        if not keepdim:
            values, pick = np.squeeze(values, dim), np.squeeze(pick, dim)
        if a._data.ndim == 0:
            values, pick = values.reshape(()), pick.reshape(())
        indices = Tensor._make(pick.astype(np.int64))
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        ctx.shape, ctx.dim, ctx.keepdim = a._data.shape, dim, keepdim
        return Tensor._make(np.array(values, copy=True)), indices

    @staticmethod
    def backward(ctx: Any, grad: Tensor, _: Any) -> tuple[Tensor, None, None]:
        (indices,) = ctx.saved_tensors
        return _select_back(grad, indices._data, ctx.shape, ctx.dim, ctx.keepdim), None, None


def median(a: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
    """``median()``: the lower of the two middle values; ``median(dim)``: (values, indices)."""
    if dim is None:
        if a._data.dtype == np.bool_:
            raise _not_implemented("median_cpu", a._data.dtype)
        return MedianAll.apply(a)
    d = _wrap_dim(int(dim), a._data.ndim)
    if a._data.dtype == np.bool_:
        raise _not_implemented("median_out", a._data.dtype)
    if a._data.ndim and a._data.shape[d] == 0:
        raise IndexError(f"median(): Expected reduction dim {d} to have non-zero size.")
    return MedianResult(*MedianDim.apply(a, d, keepdim))


# ---------------------------------------------------------------------------- unique
class Unique(Function):
    """The distinct values (sorted), where each element went, and how often each value occurs.

    PyTorch records this node but has no derivative for it: backward through it raises.
    """

    node_name = "Unique2Backward0"
    op_name = "_unique2"

    @staticmethod
    def forward(ctx: Any, a: Tensor, dim: int | None) -> tuple[Tensor, Tensor, Tensor]:
        x = a._data
        if dim is None:  # NaNs stay apart (NaN != NaN), as in PyTorch
            values, inverse, counts = np.unique(x, return_inverse=True, return_counts=True, equal_nan=False)
            inverse = inverse.reshape(x.shape)
        else:
            values, inverse, counts = np.unique(x, return_inverse=True, return_counts=True, axis=dim)
            inverse = inverse.reshape(-1)
        inverse, counts = Tensor._make(inverse.astype(np.int64)), Tensor._make(counts.astype(np.int64))
        ctx.mark_non_differentiable(inverse, counts)
        return Tensor._make(values), inverse, counts

    @classmethod
    def backward(cls, ctx: Any, *grads: Any) -> Any:
        raise NotImplementedError(f"the derivative for '{cls.op_name}' is not implemented.")


class UniqueDim(Unique):
    node_name = "UniqueDimBackward0"
    op_name = "unique_dim"


def unique(input: Tensor, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False,
           dim: int | None = None) -> Any:
    """The sorted distinct values of ``input`` (of its slices along ``dim``), with the index of each
    element's value (``return_inverse``) and each value's count (``return_counts``): ``torch.unique``.
    Like PyTorch on the CPU, the values come sorted even with ``sorted=False``."""
    if dim is None:
        values, inverse, counts = Unique.apply(input, None)
    else:
        values, inverse, counts = UniqueDim.apply(input, _wrap_dim(dim, input.ndim))
    extra = ((inverse,) if return_inverse else ()) + ((counts,) if return_counts else ())
    return (values, *extra) if extra else values
