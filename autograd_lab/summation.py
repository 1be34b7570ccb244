"""Floating-point sums in the order PyTorch's CPU kernel adds (``cascade_sum``, one thread).

A float sum's last bits depend on the order of its additions. NumPy adds pairwise; PyTorch's kernel adds
in lanes of a 32-byte vector (8 floats, 4 doubles) and in four interleaved accumulators, each a cascade of
partial sums (16 terms, then 16 of those, ...), and finishes with the lanes one after the other. Which
of these applies depends on the layout: a sum over the last dims (each row in vector lanes), over the first
or middle dims (each column summed down the rows: four accumulators for blocks of 32 bytes, interleaved
rows for the rest), or over several groups of dims (the innermost summed per row, those sums added up in
order). Each step is one NumPy operation over every row at once, and the steps for a shape are worked out
once: :func:`_plan` compiles them into a chain of functions (each ``_compile_*`` returns one).

:func:`torch_sum` gives PyTorch's values, bit for bit, for float32 and float64 arrays laid out by rows of
fewer than 32,768 elements; None for anything else, whose sum NumPy then computes (its last bits may
differ).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import numpy as np

# PyTorch's kernel: 4 accumulators (its "ilp factor") and 4 levels of cascade; at.parallel's grain size
_ILP = 4
_LEVELS = 4
_GRAIN = 32768


def torch_sum(x: np.ndarray, dims: tuple[int, ...], keepdim: bool = False) -> np.ndarray | None:
    """``x`` summed over ``dims`` as PyTorch's CPU kernel adds, or None where it does not apply (another
    dtype, a layout other than row-major, no element, or 32,768 elements and more: PyTorch splits those
    between its threads, so their last bits depend on its thread count; and replayed, the large ones cost
    several times NumPy's sum)."""
    if x.dtype.char not in "fd" or not x.flags.c_contiguous or not 0 < x.size < _GRAIN:  # (float32, float64)
        return None
    key = (x.shape, dims, keepdim, x.dtype.char)
    run = _PLANS.get(key)
    if run is None:
        if len(_PLANS) > 4096:
            _PLANS.clear()
        run = _PLANS[key] = _plan(x.shape, dims, keepdim, 32 // x.itemsize)
    return run(x)


_PLANS: dict[tuple, Callable[[np.ndarray], np.ndarray]] = {}
Step = Callable[[np.ndarray], np.ndarray]


def _plan(shape: tuple[int, ...], dims: tuple[int, ...], keepdim: bool, lanes: int) -> Step:
    """The sum of an array of ``shape`` over ``dims``: the dims merged into groups of one kind (as
    TensorIterator coalesces them, dims of size 1 dropped), and the kernel's loop that adds them."""
    out_shape = tuple(1 if d in dims else n for d, n in enumerate(shape)) if keepdim else tuple(
        n for d, n in enumerate(shape) if d not in dims)
    groups: list[list] = []
    for d, n in enumerate(shape):
        if n != 1:
            reduced = d in dims
            if groups and groups[-1][0] == reduced:
                groups[-1][1] *= n
            else:
                groups.append([reduced, n])
    sizes = [n for _, n in groups]
    axes = [i for i, (reduced, _) in enumerate(groups) if reduced]
    if not axes:  # only dims of size 1: each element added to a zero
        def run(x: np.ndarray) -> np.ndarray:
            return (x + x.dtype.type(0)).reshape(out_shape)
        return run
    if len(axes) == 1 and axes[0] == len(groups) - 1:  # the last dims: one sum per row
        inner = (math.prod(sizes[:-1]), sizes[-1])
        if inner[0] == 1 and lanes * _ILP <= inner[1] < 16 * _ILP * lanes:
            return _compile_short_row(inner[1], lanes, out_shape)  # (a loss's sum or mean)
        add = _compile_rows(*inner, lanes)
    elif len(axes) == 1:  # the first or middle dims: down the columns, for each index before them
        i = axes[0]
        inner = (math.prod(sizes[:i]), sizes[i], math.prod(sizes[i + 1:]))
        add = _compile_columns(*inner, lanes)
    else:  # several groups: the innermost summed per row, then those sums added in order
        inner = tuple(sizes)
        add = _compile_groups(sizes, axes, lanes)

    def run(x: np.ndarray) -> np.ndarray:
        out = add(x.reshape(inner))
        out += out.dtype.type(0)  # (the kernel's sums start at +0.0: a sum of -0.0s is +0.0)
        return out.reshape(out_shape)
    return run


def _compile_short_row(n: int, lanes: int, out_shape: tuple[int, ...]) -> Step:
    """:func:`_compile_rows` for one row of 4 to 63 whole vectors (the cascade's first run not reached),
    in as few NumPy calls as it takes: the four accumulators (every fourth vector, summed in turn), the
    vectors left over added to the first, the four in turn, then the elements after the last vector and
    the lanes one after the other."""
    whole = n // lanes
    groups = whole // _ILP
    end, tail = groups * _ILP * lanes, whole * lanes
    split = (groups, _ILP, lanes)
    zero = (np.float32 if lanes == 8 else np.float64)(0)  # (+ 0: never -0.0, as the kernel's)

    def run(x: np.ndarray) -> np.ndarray:
        x = x.reshape(n)
        v = x[:end].reshape(split)
        partial = v[0] if groups == 1 else v[0] + v[1] if groups == 2 else np.add.reduce(v, axis=0)
        if end < tail:
            partial = np.concatenate((partial[:1], x[end:tail].reshape(-1, lanes), partial[1:]))
        acc = np.add.reduce(partial, axis=0)
        if tail < n:
            acc = np.concatenate((x[tail:], acc))
        total = np.asarray(np.add.accumulate(acc)[-1] + zero)
        return total if not out_shape else total.reshape(out_shape)
    return run


def _compile_groups(sizes: list[int], axes: list[int], lanes: int) -> Step:
    """Sums over several groups of dims: each row of the innermost group (the last dims: vectorized, else
    the scalar ``row_sum`` for each index after it) summed, then those sums added in the order
    TensorIterator's loops visit them (the other reduced groups, the first slowest)."""
    last = axes[-1]
    if last == len(sizes) - 1:
        rows = (math.prod(sizes[:-1]), sizes[-1])
        first = _compile_rows(*rows, lanes)
    else:
        rows = (math.prod(sizes[:last]), sizes[last], math.prod(sizes[last + 1:]))
        first = _compile_row_sum(rows)
    rest_sizes = sizes[:last] + sizes[last + 1:]
    rest = [a if a < last else a - 1 for a in axes[:-1]]
    kept = [a for a in range(len(rest_sizes)) if a not in rest]
    count = math.prod(rest_sizes[a] for a in rest)
    then = _compile_fold((count, math.prod(rest_sizes) // count), 0)

    def add(y: np.ndarray) -> np.ndarray:
        inner = first(y.reshape(rows)).reshape(rest_sizes)
        return then(np.transpose(inner, rest + kept).reshape(count, -1))
    return add


def _compile_fold(shape: tuple[int, ...], axis: int) -> Step:
    """``a`` summed along ``axis`` one term after the other. NumPy's reduce does that along an axis with
    others after it (it adds whole rows of them at a time), and adds pairwise along the last; there, the
    last of the running sums."""
    n = shape[axis]
    before = (slice(None),) * axis
    first, second, final = before + (0,), before + (1,), before + (n - 1,)
    if n == 1:
        return lambda a: a[first]
    if n == 2:  # (a plain addition, cheaper than a reduce)
        return lambda a: a[first] + a[second]
    if axis < len(shape) - 1 and shape[-1] > 1:
        return functools.partial(np.add.reduce, axis=axis)
    return lambda a: np.add.accumulate(a, axis=axis)[final]


def _compile_rows(m: int, n: int, lanes: int) -> Step:
    """Each row of an (m, n) array summed (``vectorized_inner_sum``; ``scalar_inner_sum`` for a row shorter
    than a vector): its whole vectors lane by lane, then the elements left over and the lanes in turn."""
    if n < lanes:
        return _compile_row_sum((m, n))
    whole = n // lanes
    vectors = _compile_row_sum((m, whole, lanes))
    end = whole * lanes
    if end == n:
        return lambda rows: np.add.accumulate(vectors(rows.reshape(m, whole, lanes)), axis=1)[:, -1]

    def add(rows: np.ndarray) -> np.ndarray:  # the elements after the last whole vector first
        acc = np.concatenate((rows[:, end:], vectors(rows[:, :end].reshape(m, whole, lanes))), axis=1)
        return np.add.accumulate(acc, axis=1)[:, -1]
    return add


def _compile_columns(b: int, r: int, c: int, lanes: int) -> Step:
    """Each column of each ``x[i]`` of a (b, rows, cols) array summed down the rows
    (``vectorized_outer_sum``, or ``scalar_outer_sum`` for fewer columns than a vector): blocks of four
    vectors (four columns) as four accumulators side by side, each a cascade down the rows; the columns
    after the last block by ``row_sum``, every fourth row to one of four accumulators."""
    block = (c // (_ILP * lanes)) * _ILP * lanes if c >= lanes else (c // _ILP) * _ILP
    if block == c:
        return _compile_cascade((b, r, c))
    if not block:
        return _compile_row_sum((b, r, c))
    blocks, others = _compile_cascade((b, r, block)), _compile_row_sum((b, r, c - block))
    return lambda x: np.concatenate((blocks(x[:, :, :block]), others(x[:, :, block:])), axis=1)


def _compile_row_sum(shape: tuple[int, ...]) -> Step:
    """PyTorch's ``row_sum`` along axis 1 of an array of ``shape`` (m, size, lanes...): four accumulators
    taking every fourth term (each a cascade), the terms left over added to the first, then the four in
    turn."""
    m, size, *lanes = shape
    groups = size // _ILP
    if not groups:  # (the four accumulators stay 0: the terms one after the other)
        return _compile_fold(shape, 1)
    split = (m, groups, _ILP, *lanes)
    end = groups * _ILP
    partial = _compile_cascade(split)
    if end == size:
        fold = _compile_fold((m, _ILP, *lanes), 1)
        return lambda items: fold(partial(items.reshape(split)))
    fold = _compile_fold((m, _ILP + size - end, *lanes), 1)

    def add(items: np.ndarray) -> np.ndarray:
        p = partial(items[:, :end].reshape(split))
        return fold(np.concatenate((p[:, :1], items[:, end:], p[:, 1:]), axis=1))
    return add


def _compile_cascade(shape: tuple[int, ...]) -> Step:
    """PyTorch's ``multi_row_sum`` along axis 1 of an array of ``shape`` (m, size, lanes...): runs of
    ``step`` terms each summed in turn (level 0) and added to level 1, which passes its sum on to level 2
    every ``step`` runs, and so on to level 3; the terms after the last whole run, then what levels 1, 2
    and 3 hold, close it."""
    m, size, *rest = shape
    step = 1 << max(4, ((size - 1).bit_length() if size > 2 else 1) // _LEVELS)
    runs = size // step
    if not runs:  # level 0 alone: the terms one after the other
        return _compile_fold(shape, 1)
    stages = []  # levels 1 and 2: how many groups each passes on; the sums of what it keeps, of each group
    count = runs
    for _level in (1, 2):
        whole = count // step
        kept = _compile_fold((m, count - whole * step, *rest), 1) if whole * step < count else None
        passed = _compile_fold((m, whole, step, *rest), 2) if whole else None
        stages.append((whole, kept, passed))
        count = whole
        if not whole:
            break
    last = _compile_fold((m, count, *rest), 1) if count else None  # level 3 keeps everything it gets
    first = _compile_fold((m, runs, step, *rest), 2)
    tail = _compile_fold((m, size - runs * step, *rest), 1) if runs * step < size else None

    def add(rows: np.ndarray) -> np.ndarray:
        sums = first(rows[:, :runs * step].reshape(m, runs, step, *rest))  # each run's sum
        levels = [tail(rows[:, runs * step:])] if tail is not None else []
        for whole, kept, passed in stages:
            if kept is not None:
                levels.append(kept(sums[:, whole * step:]))
            if passed is not None:
                sums = passed(sums[:, :whole * step].reshape(m, whole, step, *rest))
        if last is not None:
            levels.append(last(sums))
        total = levels[0]
        for level in levels[1:]:
            total = total + level
        return total
    return add
