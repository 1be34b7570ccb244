"""Sorting and order statistics: sort, argsort, topk, median, nanmedian, kthvalue, mode, quantile,
nanquantile; unique.

Backward sends each output value's gradient to the element it was taken from (zeros elsewhere):
:func:`_select_back`, a scatter into zeros. Which element, where values tie, is the one PyTorch's kernel
picks: its algorithm (GCC's ``std::sort``/``std::nth_element``, Sedgewick's quickselect) replayed on
those rows. quantile and nanquantile are composites, as in PyTorch: sort, gather, lerp_.
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
from .comparison import MaskedFillTensor, masked_fill
from .indexing import ScatterSrc, _Data
from .inplace import empty_preserving
from .promotion import _not_implemented, check_arg_types
from .scalar import MulNumber
from .view import SqueezeInplace, Transpose, Unsqueeze, broadcast_tensors

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


def _sort_order(x: np.ndarray, dim: int, descending: bool, stable: bool) -> np.ndarray:
    """The indices that sort ``x`` along ``dim`` as PyTorch's kernel: ``std::stable_sort`` with
    ``stable=True``, else ``std::sort``, whose order among equal values is GCC's introsort's: the stable
    one for rows of up to 16 (insertion sort), replayed for longer rows with repeated values."""
    order = _stable_order(x, dim, descending)
    n = x.shape[dim] if x.ndim else 1
    if stable or n <= 16 or n > _REPLAYED:
        return order
    rows = np.moveaxis(x, dim, -1).reshape(-1, n)
    tied = _rows_with_ties(rows)
    if not tied.size:
        return order
    out = np.moveaxis(order, dim, -1).reshape(-1, n).copy()
    before = _comes_before(descending)
    for r in tied:
        q = [(v, i) for i, v in enumerate(rows[r].tolist())]
        _introsort_loop(q, 0, n, 2 * _lg(n), before)
        _final_insertion_sort(q, 0, n, before)
        out[r] = [i for _, i in q]
    return np.ascontiguousarray(np.moveaxis(out.reshape(*np.moveaxis(order, dim, -1).shape), -1, dim))


class Sort(Function):
    node_name = "SortBackward0"
    saved_names = ("indices",)

    @staticmethod
    def forward(ctx: Any, a: Tensor, dim: int, descending: bool, stable: bool = False,
                ) -> tuple[Tensor, Tensor]:
        return _picked(ctx, a._data, dim, lambda x: _sort_order(x, dim, descending, stable), preserve=True)

    @staticmethod
    def backward(ctx: Any, grad: Tensor, _: Any) -> tuple[Tensor, None, None, None]:
        (indices,) = ctx.saved_tensors
        return _select_back(grad, indices._data, ctx.shape, ctx.dim, True), None, None, None


def _in_layout_of(values: np.ndarray, x: np.ndarray) -> np.ndarray:
    out = empty_preserving(x, values.dtype)
    out[...] = values
    return out


def sort(a: Tensor, dim: int = -1, descending: bool = False, *, stable: bool = False) -> Any:
    """Sorted values and their indices (``torch.sort``); equal values in the order PyTorch's kernel
    leaves them (:func:`_sort_order`), their original order with ``stable=True``."""
    return SortResult(*Sort.apply(a, _wrap_dim(int(dim), a._data.ndim), bool(descending), bool(stable)))


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
    order = _sort_order(a._data, d, bool(descending), bool(stable)).astype(np.int64)
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
    # (unsorted, nth_element's order: every row)
    repeated = np.arange(len(rows)) if not sort and k * 64 > n else _rows_with_ties(rows)
    if not repeated.size:
        return order
    out = np.moveaxis(order, dim, -1).reshape(-1, k).copy()
    for r in repeated:
        out[r] = _gnu_topk(rows[r].tolist(), k, largest, sort)
    return np.moveaxis(out.reshape(*np.moveaxis(order, dim, -1).shape), -1, dim)


def _rows_with_ties(rows: np.ndarray) -> np.ndarray:
    """The rows (of a 2-d array) in which a value repeats, or more than one NaN: those whose order among
    equal values PyTorch's unstable algorithms decide."""
    srt = np.sort(rows, axis=1)
    nans = np.isnan(rows).sum(axis=1) if rows.dtype.kind == "f" else np.zeros(len(rows), np.int64)
    return np.flatnonzero((srt[:, 1:] == srt[:, :-1]).any(axis=1) | (nans > 1))


def _comes_before(largest_first: bool) -> Any:
    """PyTorch's comparator of (value, index) pairs (sort's KeyValueComp, topk's): NaN the largest."""
    def before(a: tuple, b: tuple) -> bool:
        x, y = a[0], b[0]
        if largest_first:
            return (x != x and y == y) or x > y
        return (x == x and y != y) or x < y

    return before


def _gnu_topk(values: list, k: int, largest: bool, sort: bool) -> list[int]:
    """One row of topk_impl_loop: the indices of its first k pairs."""
    before = _comes_before(largest)
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


# ---------------------------------------------------------------------------- median
class MedianAll(Function):
    """``median()``: the lower of the two middle values, NaN if there is one; its gradient shared among
    the elements equal to it (:func:`evenly_distribute`)."""

    node_name = "MedianBackward0"
    saved_names = ("self", "result")
    ignore_nan = False

    @classmethod
    def forward(cls, ctx: Any, a: Tensor) -> Tensor:
        x = a._data.reshape(-1)
        if cls.ignore_nan and x.dtype.kind == "f":
            x = x[~np.isnan(x)]
        if x.size == 0 or (x.dtype.kind == "f" and np.isnan(x).any()):
            with np.errstate(invalid="ignore"):  # (no value of an integer tensor: NaN cast, as PyTorch's)
                value = np.array(np.nan).astype(a._data.dtype)
        else:
            value = np.sort(x)[(x.size - 1) // 2]  # the lower of the two middle values
        out = Tensor._make(np.asarray(value))
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        a, out = ctx.saved_tensors
        return evenly_distribute(grad, a, out._data)


# ---------------------------------------------------------------------------- one element of each row
class _PickAlongDim(Function):
    """median(dim), nanmedian(dim), kthvalue, mode: one element of each row along ``dim``, as
    ``(values, indices)``; its gradient goes to that element, zeros elsewhere (PyTorch's
    value_selecting_reduction_backward). ``pick(x, dim, k)`` gives the indices, ``dim`` kept (size 1)."""

    saved_names = ("indices",)

    @classmethod
    def forward(cls, ctx: Any, a: Tensor, dim: int, keepdim: bool, k: int = 0) -> tuple[Tensor, Tensor]:
        # PyTorch keeps the arguments as given: dim unwrapped, as an unsigned 64-bit int (-1: 2**64 - 1)
        ctx._saved_dim, ctx._saved_keepdim, ctx._saved_self_sym_sizes = dim % 2**64, keepdim, a._data.shape
        d = _wrap_dim(dim, a._data.ndim)
        x = a._data if a._data.ndim else a._data.reshape(1)  # 0-d: its one element, result 0-d
        keepdim = keepdim and a._data.ndim > 0
        pick = cls.pick(x, d, k).astype(np.int64)
        values = np.take_along_axis(x, pick, axis=d)
        shape = (x.shape[:d] + (1,) * keepdim + x.shape[d + 1:]) if a._data.ndim else ()
        indices = Tensor._make(pick.reshape(shape))
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        ctx.shape, ctx.dim, ctx.keepdim = a._data.shape, d, keepdim
        return Tensor._make(values.reshape(shape)), indices

    @staticmethod
    def backward(ctx: Any, grad: Tensor, _: Any) -> tuple[Tensor, None, None, None]:
        (indices,) = ctx.saved_tensors
        return _select_back(grad, indices._data, ctx.shape, ctx.dim, ctx.keepdim), None, None, None


def _replayed(x: np.ndarray, dim: int, pick: np.ndarray, rows: np.ndarray, replay: Any) -> np.ndarray:
    """``pick`` (``dim`` kept, size 1), where ``rows`` is true replaced by ``replay(row)``: the index that
    PyTorch's kernel, run step by step on the row's values (a list), leaves. Rows longer than
    ``_REPLAYED`` keep ``pick``."""
    n = x.shape[dim]
    if not rows.any() or n > _REPLAYED:
        return pick
    values = np.moveaxis(x, dim, -1).reshape(-1, n)
    out = np.moveaxis(pick, dim, -1).reshape(-1).copy()
    for r in np.flatnonzero(np.moveaxis(rows, dim, -1).reshape(-1)):
        out[r] = replay(values[r].tolist())
    return np.moveaxis(out.reshape(np.moveaxis(pick, dim, -1).shape), -1, dim)


class MedianDim(_PickAlongDim):
    node_name = "MedianBackward1"

    @staticmethod
    def pick(x: np.ndarray, dim: int, k: int) -> np.ndarray:
        """The row's first NaN, else its lower middle value; among equal values the one of lowest index
        (PyTorch's nth_element compares (value, index))."""
        n = x.shape[dim]
        order = np.argsort(x, axis=dim, kind="stable")  # NaNs last, in their order
        pick = np.take(order, [(n - 1) // 2], axis=dim)
        if x.dtype.kind == "f":  # a row with NaN: its first NaN
            nan_count = np.isnan(x).sum(axis=dim, keepdims=True)
            first_nan = np.take_along_axis(order, np.minimum(n - nan_count, n - 1), axis=dim)
            pick = np.where(nan_count > 0, first_nan, pick)
        return pick


def median(a: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
    """``median()``: the lower of the two middle values; ``median(dim)``: (values, indices)."""
    if dim is None:
        if a._data.dtype == np.bool_:
            raise _not_implemented("median_cpu", a._data.dtype)
        return MedianAll.apply(a)
    return MedianResult(*_median_dim(MedianDim, a, int(dim), keepdim))


def _median_dim(op: type[_PickAlongDim], a: Tensor, dim: int, keepdim: bool) -> tuple[Tensor, Tensor]:
    d = _wrap_dim(dim, a._data.ndim)
    if a._data.dtype == np.bool_:
        raise _not_implemented("median_out", a._data.dtype)
    if a._data.ndim and a._data.shape[d] == 0:
        raise IndexError(f"median(): Expected reduction dim {d} to have non-zero size.")
    return op.apply(a, dim, bool(keepdim))


# ---------------------------------------------------------------------------- nanmedian
NanmedianResult = namedtuple("nanmedian", ["values", "indices"])


class NanmedianAll(MedianAll):
    """``nanmedian()``: the median of the values that are not NaN (NaN when all are)."""

    node_name = "NanmedianBackward0"
    ignore_nan = True


class NanmedianDim(_PickAlongDim):
    node_name = "NanmedianBackward1"

    @staticmethod
    def pick(x: np.ndarray, dim: int, k: int) -> np.ndarray:
        """The lower middle of the values that are not NaN, the one of lowest index among equal values;
        a row of NaNs only: where GCC's nth_element, for which they are all equal, leaves them."""
        n = x.shape[dim]
        order = np.argsort(x, axis=dim, kind="stable")  # NaNs last, in their order
        kept = x.shape[:dim] + (1,) + x.shape[dim + 1:]
        nans = np.isnan(x).sum(axis=dim, keepdims=True) if x.dtype.kind == "f" else np.zeros(kept, np.int64)
        pick = np.take_along_axis(order, np.maximum(n - nans - 1, 0) // 2, axis=dim)  # (C++'s -1 / 2 is 0)
        return _replayed(x, dim, pick, nans == n, _all_nan_middle)


def _all_nan_middle(values: list) -> int:
    """The index std::nth_element(first, first, last, comp) leaves first in a row of NaNs: comp, PyTorch's
    ``a < b || (a == b && i < j) || (isnan(b) && !isnan(a))``, is false for every pair."""
    q = [(v, i) for i, v in enumerate(values)]
    _introselect(q, 0, 0, len(q), 2 * _lg(len(q)), lambda a, b: False)
    return q[0][1]


def nanmedian(a: Tensor, dim: Any = None, keepdim: bool = False, *, _method: bool = False) -> Any:
    """``median`` with the NaNs left out (``torch.nanmedian``): ``nanmedian()`` the lower of the two middle
    values that are not NaN (NaN when all are), ``nanmedian(dim)`` ``(values, indices)``."""
    if dim is None:
        if a._data.dtype == np.bool_:
            raise _not_implemented("median_cpu", a._data.dtype)
        return NanmedianAll.apply(a)
    check_arg_types("nanmedian", _method, ("dim", 2, dim, int), ("keepdim", 3, keepdim, bool))
    return NanmedianResult(*_median_dim(NanmedianDim, a, int(dim), keepdim))


# ---------------------------------------------------------------------------- kthvalue
KthvalueResult = namedtuple("kthvalue", ["values", "indices"])


class Kthvalue(_PickAlongDim):
    node_name = "KthvalueBackward0"

    @staticmethod
    def pick(x: np.ndarray, dim: int, k: int) -> np.ndarray:
        """The k-th smallest (NaN the largest). Where other elements equal it (or it is NaN and so are
        others), which of them PyTorch's quickselect leaves at place k - 1, replayed
        (:func:`_quick_select`)."""
        pick = np.take(np.argsort(x, axis=dim, kind="stable"), [k - 1], axis=dim)
        kth = np.take_along_axis(x, pick, axis=dim)
        same = x == kth
        if x.dtype.kind == "f":
            same |= np.isnan(x) & np.isnan(kth)
        tied = same.sum(axis=dim, keepdims=True) > 1
        return _replayed(x, dim, pick, tied, lambda row: _quick_select(row, k - 1))


def kthvalue(input: Tensor, k: int, dim: int = -1, keepdim: bool = False, *, _method: bool = False) -> Any:
    """``(values, indices)`` of the ``k``-th smallest element along ``dim`` (``torch.kthvalue``; NaN
    counts as the largest value)."""
    check_arg_types("kthvalue", _method, ("k", 2, k, int), ("dim", 3, dim, int),
                    ("keepdim", 4, keepdim, bool))
    k, dim = int(k), int(dim)
    d = _wrap_dim(dim, input._data.ndim)
    n = input._data.shape[d] if input._data.ndim else 1
    if n == 0:
        raise IndexError(f"kthvalue(): Expected reduction dim {d} to have non-zero size.")
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    if input._data.dtype == np.bool_:
        raise _not_implemented("kthvalue_cpu", input._data.dtype)
    return KthvalueResult(*Kthvalue.apply(input, dim, bool(keepdim), k))


def _quick_select(values: list, k: int) -> int:
    """PyTorch's quick_select_template (Sedgewick's quickselect, median-of-three pivot) on one row: the
    index of the element it leaves at place ``k``. ``gt`` is its comparison, NaN the largest."""
    def gt(a: float, b: float) -> bool:
        return (a != a and b == b) or a > b

    arr, idx = list(values), list(range(len(values)))

    def swap(i: int, j: int) -> None:
        arr[i], arr[j] = arr[j], arr[i]
        idx[i], idx[j] = idx[j], idx[i]

    lo, hi = 0, len(arr) - 1
    while hi > lo:
        if hi == lo + 1:  # two elements
            if gt(arr[lo], arr[hi]):
                swap(lo, hi)
            break
        swap((lo + hi) >> 1, lo + 1)  # the median of three as the pivot, at lo
        if gt(arr[lo + 1], arr[hi]):
            swap(lo + 1, hi)
        if gt(arr[lo], arr[hi]):
            swap(lo, hi)
        if gt(arr[lo + 1], arr[lo]):
            swap(lo + 1, lo)
        i, j, pivot = lo + 1, hi, arr[lo]
        while True:
            i += 1
            while gt(pivot, arr[i]):
                i += 1
            j -= 1
            while gt(arr[j], pivot):
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(lo, j)
        if j <= k:
            lo = i
        if j >= k:
            hi = j - 1
    return idx[k]


# ---------------------------------------------------------------------------- mode
ModeResult = namedtuple("mode", ["values", "indices"])


class Mode(_PickAlongDim):
    node_name = "ModeBackward0"

    @staticmethod
    def pick(x: np.ndarray, dim: int, k: int) -> np.ndarray:
        """The most frequent value (the smallest of those equally frequent), at the last of its places in
        the order in which std::sort, comparing values only, leaves the (value, index) pairs: the stable
        order for rows of at most 16 values (insertion sort) or without repeated values. Other rows, and
        rows with NaN (which ``<`` cannot order), replayed (:func:`_gnu_mode`)."""
        n = x.shape[dim]
        order = np.argsort(x, axis=dim, kind="stable")
        s = np.moveaxis(np.take_along_axis(x, order, axis=dim), dim, -1)
        starts = np.ones(s.shape, dtype=bool)  # where a run of equal values starts, in the sorted row
        starts[..., 1:] = s[..., 1:] != s[..., :-1]
        ends = np.ones(s.shape, dtype=bool)
        ends[..., :-1] = starts[..., 1:]
        place = np.arange(n)
        length = place - np.maximum.accumulate(np.where(starts, place, 0), axis=-1) + 1
        at = np.argmax(np.where(ends, length, 0), axis=-1)[..., None]  # the first longest run: its end
        pick = np.take_along_axis(order, np.moveaxis(at, -1, dim), axis=dim)
        repeats = np.moveaxis((ends.sum(axis=-1) < n)[..., None], -1, dim)
        nans = np.isnan(x).any(axis=dim, keepdims=True) if x.dtype.kind == "f" else False
        return _replayed(x, dim, pick, nans | (repeats & (n > 16)), _gnu_mode)


def mode(input: Tensor, dim: int = -1, keepdim: bool = False, *, _method: bool = False) -> Any:
    """``(values, indices)`` of the most frequent value along ``dim`` (``torch.mode``): the smallest of
    those equally frequent, and one of its places (see :meth:`Mode.pick`)."""
    check_arg_types("mode", _method, ("dim", 2, dim, int), ("keepdim", 3, keepdim, bool))
    dim = int(dim)
    d = _wrap_dim(dim, input._data.ndim)
    if input._data.ndim and input._data.shape[d] == 0:
        raise IndexError(f"mode(): Expected reduction dim {d} to have non-zero size.")
    return ModeResult(*Mode.apply(input, dim, bool(keepdim)))


def _gnu_mode(values: list) -> int:
    """One row of PyTorch's mode kernel: std::sort of (value, index) pairs by value (GCC's introsort,
    then insertion sort), then the end of the first longest run of equal values."""
    q = [(v, i) for i, v in enumerate(values)]
    n = len(q)
    before = lambda a, b: a[0] < b[0]  # noqa: E731
    _introsort_loop(q, 0, n, 2 * _lg(n), before)
    _final_insertion_sort(q, 0, n, before)
    longest, index, run = 0, 0, 0
    for i in range(n):
        run += 1
        if i == n - 1 or q[i][0] != q[i + 1][0]:
            if run > longest:
                longest, index = run, q[i][1]
            run = 0
    return index


# ---------------------------------------------------------------------------- quantile, nanquantile
class UnsqueezeInplace(Unsqueeze):
    """``t.unsqueeze_(dim)``: ``t`` itself given another shape (not a view), as quantile's last steps
    record it."""

    node_name = "UnsqueezeBackward1"

    @staticmethod
    def forward(ctx: Any, a: Tensor, dim: int) -> Tensor:
        ctx._saved_dim = dim % 2**64  # (as given)
        ctx.dim = _wrap_dim(dim, a._data.ndim + 1)
        return Tensor._make(np.expand_dims(a._data, ctx.dim))


class TransposeInplace(Transpose):
    """``t.transpose_(dim0, dim1)``: ``t`` itself with two dimensions swapped (not a view)."""

    node_name = "TransposeBackward1"

    @staticmethod
    def forward(ctx: Any, a: Tensor, dim0: int, dim1: int) -> Tensor:
        ctx._saved_dim0, ctx._saved_dim1 = dim0 % 2**64, dim1 % 2**64  # (as given)
        ctx.dims = (_wrap_dim(dim0, a._data.ndim), _wrap_dim(dim1, a._data.ndim))
        return Tensor._make(np.swapaxes(a._data, *ctx.dims))


def _in_place(t: Tensor, op: type[Function], *args: Any) -> Tensor:
    """``t.squeeze_(...)``, ``t.unsqueeze_(...)``, ``t.transpose_(...)`` on a tensor of quantile's own:
    ``op`` recorded on ``t``'s history, and ``t``'s version one more (the new Tensor here takes ``t``'s
    version counter on)."""
    out = op.apply(t, *args)
    out._version_counter = t._version_counter
    out._version_counter.value += 1
    if not out._data.size:  # (an empty one: the strides PyTorch's change of shape leaves; NumPy keeps none)
        steps = list(t.stride())
        if op is SqueezeInplace:
            del steps[args[0][0]]
        elif op is UnsqueezeInplace:  # (at the front: the size times the stride of the first dim)
            steps.insert(0, t.shape[0] * steps[0])
        else:
            steps[0], steps[-1] = steps[-1], steps[0]
        out._empty_strides = tuple(steps)
    return out


_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def quantile(input: Tensor, q: Any, dim: int | None = None, keepdim: bool = False, *,
             interpolation: str = "linear", _method: bool = False) -> Tensor:
    """The ``q``-th quantiles (``q`` a number or a 1-d tensor, in [0, 1]) of all values, or along ``dim``
    (``torch.quantile``); between two values, by ``interpolation``: ``"linear"``, ``"lower"``,
    ``"higher"``, ``"midpoint"`` or ``"nearest"``. A NaN makes the quantile NaN. As in PyTorch a
    composite: the values sorted (SortBackward0), the two neighbours of each rank gathered
    (GatherBackward0), and ``lerp_`` between them (LerpBackward1); see :func:`_quantile`."""
    return _quantile("quantile", input, q, dim, keepdim, interpolation, False, _method)


def nanquantile(input: Tensor, q: Any, dim: int | None = None, keepdim: bool = False, *,
                interpolation: str = "linear", _method: bool = False) -> Tensor:
    """``quantile`` of the values that are not NaN (``torch.nanquantile``; NaN where all are)."""
    return _quantile("nanquantile", input, q, dim, keepdim, interpolation, True, _method)


def _quantile(name: str, input: Tensor, q: Any, dim: Any, keepdim: bool, interpolation: Any,
              ignore_nan: bool, method: bool) -> Tensor:
    """PyTorch's quantile_impl: its checks, in its order, then quantile_compute's steps, op for op."""
    _check_quantile_args(name, input, q, dim, keepdim, interpolation, method)
    x = input._data
    if not isinstance(q, Tensor):  # a number: a 0-d tensor of the input's dtype (at::scalar_tensor)
        if not 0 <= q <= 1:
            raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {float(q):g}")
        q = Tensor._make(np.asarray(q, dtype=x.dtype))
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError("quantile() interpolation must be one of linear, lower, higher, midpoint or "
                           f"nearest, but got {interpolation}")
    if x.size == 0:
        raise RuntimeError("quantile() input tensor must be non-empty")
    if q.ndim > 1:
        raise RuntimeError("quantile() q must be a scalar or 1D tensor")
    if x.dtype not in (np.float32, np.float64):
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    if q._data.dtype != x.dtype:
        raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")
    d = _wrap_dim(0 if dim is None else int(dim), x.ndim)
    if not np.all((q._data >= 0) & (q._data <= 1)):
        raise RuntimeError("quantile() q values must be in the range [0, 1]")

    # the values to reduce, sorted along the last dim: all of them flattened, or dim moved last
    if dim is None:
        reduced = input.flatten()
    elif d == x.ndim - 1:
        reduced = input
    else:
        reduced = input.unsqueeze(-1).transpose(d, -1)
    n = reduced.shape[-1]
    if dim is not None and x.ndim:  # the result's shape (without q's dim): dim removed, or kept as 1
        shape = x.shape[:d] + (1,) * bool(keepdim) + x.shape[d + 1:]
    else:
        shape = (1,) * x.ndim if keepdim else ()
    if n > 2**24:  # (ranks are floats)
        raise RuntimeError("quantile() input tensor is too large")
    sorted_ = sort(reduced).values.view(shape + (n,))

    # q in [0, 1] to ranks in [0, n - 1], one per q along the last dim
    if ignore_nan:  # among the values that are not NaN; all NaN: rank 0, a NaN
        ranks = q * (sorted_.isnan().logical_not_().sum(-1, True) - 1)
        ranks.masked_fill_(ranks < 0, 0)
    else:  # a row with NaN: the last rank, its NaN
        ranks, has_nan = broadcast_tensors(MulNumber.apply(q, n - 1), sorted_.isnan().any(-1, True))
        ranks = masked_fill(ranks, has_nan, n - 1)
    if interpolation == "lower":
        ranks.floor_()
    elif interpolation == "higher":
        ranks.ceil_()
    elif interpolation == "nearest":
        ranks.round_()  # (half to even)
    ranks_below = ranks.long()
    values = sorted_.gather(-1, ranks_below)
    if interpolation in ("linear", "midpoint"):  # between the values below and above each rank
        weights = ranks - ranks_below if interpolation == "linear" else Tensor._make(
            np.full(ranks._data.shape, 0.5, ranks._data.dtype))  # (at::full_like(ranks, 0.5))
        values_above = sorted_.gather(-1, ranks.ceil_().long())
        values.lerp_(values_above, weights)

    if q.ndim == 0:  # the last dim away; or q's dim moved first
        return _in_place(values, SqueezeInplace, (values.ndim - 1,))
    values = _in_place(values, UnsqueezeInplace, 0)
    values = _in_place(values, TransposeInplace, 0, -1)
    return _in_place(values, SqueezeInplace, (values.ndim - 1,))


def _check_quantile_args(name: str, input: Tensor, q: Any, dim: Any, keepdim: Any, interpolation: Any,
                         method: bool) -> None:
    """PyTorch's argument parser: ``q`` a tensor or a number, ``dim`` an int or None, ``keepdim`` a bool,
    ``interpolation`` a str (the text lists the arguments given other than their defaults)."""
    number = isinstance(q, (int, float, np.integer, np.floating)) or isinstance(q, Tensor)
    ints = dim is None or isinstance(dim, (int, np.integer)) and not isinstance(dim, bool) or (
        isinstance(dim, Tensor) and dim._data.ndim == 0 and dim._data.dtype.kind in "iu")
    if number and ints and isinstance(keepdim, (bool, np.bool_)) and isinstance(interpolation, str):
        return
    got = [type(a).__name__ if not isinstance(a, Tensor) else "Tensor" for a in (input, q)]
    got += [type(a).__name__ for a, default in ((dim, None), (keepdim, False)) if a is not default]
    got += [f"interpolation={type(interpolation).__name__}"] if interpolation != "linear" else []
    rest = "int dim = None, bool keepdim = False, *, str interpolation = \"linear\""
    signatures = [f"Tensor q, {rest}", f"float q, {rest}"]
    if method:
        got = got[1:]
    else:
        signatures = [f"Tensor input, {s}, Tensor out = None" for s in signatures]
    lines = "".join(f" * ({s})\n" for s in signatures)
    raise TypeError(f"{name}() received an invalid combination of arguments - got ({', '.join(got)}), "
                    f"but expected one of:\n{lines}")


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
