"""Type promotion and operands: which dtype a result gets, as PyTorch decides it; and the checks
every op shares (argument errors, IEEE quiet, constants outside the graph).

PyTorch ranks operands: tensors with dimensions, then zero-dimensional tensors, then Python numbers.
A lower-ranked operand changes the result's dtype only when it is of a higher *category*
(bool < integer < floating point): ``int_tensor * 2.5`` is float32, ``float32_tensor + 1.0`` stays
float32, ``float32_tensor + float64_scalar_tensor`` stays float32. NumPy's own rules differ, so every
op asks here.
"""

from __future__ import annotations

import functools
import numbers
import os
from typing import Any

import numpy as np

from .. import dtypes
from ..dtypes import quiet
from ..tensor import Tensor

_CATEGORY = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}


# Stands for a missing optional tensor input (a bias, a clamp bound): PyTorch's node has an edge
# (None, 0) for each of them.
_UNDEFINED = Tensor._make(np.empty((0,), dtype=np.float32))


def _category(d: np.dtype) -> int:
    return _CATEGORY[d.kind]


def _promote(group: list[np.dtype]) -> np.dtype:
    top = max(_category(d) for d in group)
    result = None
    for d in group:
        if _category(d) == top:
            result = d if result is None else np.promote_types(result, d)
    return result


def scalar_dtype(value: Any) -> np.dtype:
    """The dtype PyTorch gives a Python number standing alone."""
    if isinstance(value, (bool, np.bool_)):
        return np.dtype(np.bool_)
    if isinstance(value, numbers.Integral):
        check_int(value)
        return np.dtype(np.int64)
    if isinstance(value, numbers.Real):
        return dtypes.get_default_dtype().np
    raise TypeError(f"unsupported operand type: {type(value).__name__}")


def result_dtype(*operands: Any) -> np.dtype:
    """``torch.result_type`` for tensors and Python numbers."""
    if len(operands) == 2:
        common = _common_case(*operands)
        if common is not None:
            return common
    ranked: list[list[np.dtype]] = [[], [], []]
    for x in operands:
        if isinstance(x, Tensor):
            ranked[0 if x._data.ndim else 1].append(x._data.dtype)
        elif x is not None:
            ranked[2].append(scalar_dtype(x))
    result = None
    for group in ranked:
        if group:
            d = _promote(group)
            if result is None or _category(d) > _category(result):
                result = d
    return result


def _common_case(a: Any, b: Any) -> np.dtype | None:
    """The answer for the pairs almost every op sees (a hot path), else None.

    Two tensors of one dtype give that dtype; a floating point tensor with a Python int or float
    keeps the tensor's dtype (the number is of a lower rank and of no higher category).
    """
    if isinstance(a, Tensor):
        if isinstance(b, Tensor):
            return a._data.dtype if a._data.dtype == b._data.dtype else None
        if a._data.dtype.kind == "f" and isinstance(b, (int, float)):
            check_int(b)
            return a._data.dtype
    elif isinstance(b, Tensor) and b._data.dtype.kind == "f" and isinstance(a, (int, float)):
        check_int(a)
        return b._data.dtype
    return None


def check_int(x: Any) -> None:
    """PyTorch's argument parser takes a Python int as a 64-bit int, signed or not: others overflow."""
    if type(x) is int and not -2**63 <= x < 2**64:
        raise OverflowError("int too big to convert" if x > 0 else "can't convert negative int to unsigned")


def as_operand(x: Any, dtype: np.dtype) -> Tensor:
    """A Python number or array-like as a tensor of ``dtype`` (tensors pass through)."""
    if isinstance(x, Tensor):
        return x
    if isinstance(x, (numbers.Number, np.generic)):
        check_int(x)
        t = Tensor._make(np.asarray(x, dtype=dtype))
        t._wrapped_number = x  # seen by no one but the op: saved for backward as (array, number)
        return t
    arr = np.asarray(x)
    if arr.dtype.kind == "f" and not isinstance(x, np.ndarray):
        arr = arr.astype(dtypes.get_default_dtype().np)
    elif arr.dtype.kind == "i" and not isinstance(x, np.ndarray):
        arr = arr.astype(np.int64)
    return Tensor._make(arr)


def binary_operands(a: Any, b: Any) -> tuple[Tensor, Tensor]:
    """Both operands of a binary op as tensors; numbers become 0-d tensors of the result dtype."""
    if isinstance(a, Tensor):
        return (a, b) if isinstance(b, Tensor) else (a, as_operand(b, result_dtype(a, b)))
    dtype = result_dtype(a, b)
    return as_operand(a, dtype), as_operand(b, dtype)


def cast(arr: np.ndarray, *operands: Tensor) -> np.ndarray:
    """Give ``arr`` (a NumPy result) the dtype PyTorch would give the op's result."""
    if len(operands) == 2:  # the common case, two tensors and the result of one dtype: nothing to ask
        a, b = operands
        dt = arr.dtype
        if type(a) is Tensor and type(b) is Tensor and a._data.dtype is dt and b._data.dtype is dt:
            return arr
    want = result_dtype(*operands)
    return arr if arr.dtype == want else arr.astype(want)


def broadcast_shape(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    """The broadcast shape, or PyTorch's error naming both sizes and the dimension."""
    n = max(len(a), len(b))
    out = []
    for i in range(n - 1, -1, -1):
        k = n - 1 - i
        sa = a[len(a) - 1 - k] if k < len(a) else 1
        sb = b[len(b) - 1 - k] if k < len(b) else 1
        if sa != sb and sa != 1 and sb != 1:
            raise RuntimeError(
                f"The size of tensor a ({sa}) must match the size of tensor b ({sb}) at "
                f"non-singleton dimension {i}"
            )
        out.append(sa if sb == 1 else sb)
    return tuple(reversed(out))


# ------------------------------------------------------------------------- memory layouts of results
def dense_order(shape: tuple[int, ...], *operand_strides: tuple[int, ...]) -> list[int]:
    """The dimensions of a new result, slowest in memory first, as PyTorch orders them from its
    operands' strides (TensorIterator's ``reorder_dimensions``, ``infer_dense_strides``): an insertion
    sort by stride, the first operand deciding, a 0 stride saying nothing, equal strides ordered by size."""
    def should_swap(d0: int, d1: int) -> int:
        for strides in operand_strides:
            s0, s1 = strides[d0], strides[d1]
            if s0 == 0 or s1 == 0:
                continue
            if s0 != s1:
                return -1 if s0 < s1 else 1
            if shape[d0] > shape[d1]:
                return 1
        return 0

    perm = list(range(len(shape) - 1, -1, -1))  # the fastest dimension first
    for i in range(1, len(perm)):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    return perm[::-1]


def empty_in_order(shape: tuple[int, ...], order: list[int], dtype: Any) -> np.ndarray:
    """A new array of ``shape`` whose dimensions lie in memory in ``order`` (slowest first)."""
    if order == sorted(order):
        return np.empty(shape, dtype)
    return np.empty([shape[i] for i in order], dtype).transpose(np.argsort(order))


def _two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``a + b`` rounded, and its rounding error exactly (Knuth's TwoSum)."""
    s = a + b
    v = s - a
    return s, (a - (s - v)) + (b - v)


def _split(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``a`` as two halves of 26 bits (Dekker's split), whose products with another's are exact."""
    c = 134217729.0 * a  # 2**27 + 1
    hi = c - (c - a)
    return hi, a - hi


def _two_product(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``a * b`` rounded, and its rounding error exactly (Dekker's product; operands beyond 2**995 scaled
    down by 2**-60 first, where the split would overflow, and the error scaled back)."""
    p = a * b
    big_a, big_b = np.abs(a) > 2.0 ** 995, np.abs(b) > 2.0 ** 995
    if not (big_a.any() or big_b.any()):  # (the common case, at half the cost)
        (ah, al), (bh, bl) = _split(a), _split(b)
        return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl
    a_, b_ = np.where(big_a, a * 2.0 ** -60, a), np.where(big_b, b * 2.0 ** -60, b)
    p_ = p * np.where(big_a, 2.0 ** -60, 1.0) * np.where(big_b, 2.0 ** -60, 1.0)
    (ah, al), (bh, bl) = _split(a_), _split(b_)
    err = ((ah * bh - p_) + ah * bl + al * bh) + al * bl
    return p, err * np.where(big_a, 2.0 ** 60, 1.0) * np.where(big_b, 2.0 ** 60, 1.0)


def _round_to_odd(s: np.ndarray, err: np.ndarray) -> np.ndarray:
    """``s + err`` (``s`` its rounded sum, ``err`` the exact rest) rounded to odd: ``s`` if exact, else
    whichever of the two floats around the sum has an odd last bit (Boldo and Melquiond: a sum rounded
    to odd, then to nearest in a narrower format or added once more, is rounded once)."""
    inexact_even = (err != 0) & (s.view(np.int64) & 1 == 0) & np.isfinite(s)
    if not inexact_even.any():
        return s
    s = np.array(s)
    away = (err[inexact_even] > 0) == (s[inexact_even] > 0)  # the sum lies beyond s, away from 0
    s[inexact_even] = (s[inexact_even].view(np.int64) + np.where(away, 1, -1)).view(np.float64)
    return s


def _to_subnormal(th: np.ndarray, v: np.ndarray, k: np.ndarray) -> np.ndarray:
    """``th + v`` (``v`` rounded to odd: a tie is never exact) rounded to the grid of the subnormals
    scaled by ``2**k``: ``th + v`` as ``hi + lo`` exactly; ``hi`` halfway between two grid points goes
    to the one on ``lo``'s side (elsewhere ``lo``, below ``hi``'s last bit, cannot change the rounding)."""
    hi, lo = _two_sum(th, v)
    half = np.ldexp(1.0, k - 1075)
    on_grid = np.ldexp(np.ldexp(hi, -k), k)
    tie = (np.abs(hi - on_grid) == half) & (lo != 0)
    return np.where(tie, np.where(lo > 0, hi + half, hi - half), hi)


def fused_multiply_add(a: Any, b: Any, c: Any, exact: bool = True) -> np.ndarray:
    """``a * b + c`` rounded once (:func:`_fused`), inf and nan as values: NumPy quiet (its error terms
    are nan where a product overflows; those elements take the plain ``a * b + c``). ``exact=False``:
    float32's sum rounded in double, then to float, five times faster (the two roundings differ from one
    only where the double lands exactly halfway between two floats, some 1 in 2**29: the loops of
    layer_norm and batch_norm, checked bit for bit against PyTorch so)."""
    if not exact and np.asarray(c).dtype == np.float32:
        return (np.multiply(a, b, dtype=np.float64) + c).astype(np.float32)
    with quiet():
        return _fused(a, b, c)


def _fused(a: Any, b: Any, c: Any) -> np.ndarray:
    """``a * b + c`` rounded once, as the FMA instruction in PyTorch's kernels computes it (NumPy has none),
    in ``c``'s dtype (float64 or float32), checked against the C library's ``fma`` on a million
    operands, subnormal results too.
    float64: Boldo and Melquiond's emulation (an exact product, an exact sum, the rest rounded to odd);
    float32: the exact product in double, the sum rounded to odd, then to float32."""
    c = np.asarray(c)
    if c.dtype == np.float32:
        p = np.asarray(a, np.float32).astype(np.float64) * np.asarray(b, np.float32)  # exact: 48 bits
        s, err = _two_sum(p, c.astype(np.float64))
        return _round_to_odd(s, np.where(np.isfinite(s), err, 0)).astype(np.float32)
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    # a result that may be subnormal: computed 2**k times larger (a * b and c near 1), then rounded to
    # the subnormals' grid (Dekker's product is exact only above the subnormals)
    tiny = np.maximum(np.abs(a * b), np.abs(c)) < 2.0 ** -900
    scaled = bool(tiny.any())
    a_, c_, k = a, c, 0
    if scaled:
        exponent = np.maximum(np.frexp(a)[1] + np.frexp(b)[1], np.where(c == 0, -2000, np.frexp(c)[1]))
        k = np.where(tiny, np.clip(-exponent, 0, 1000), 0)
        a_, c_ = np.ldexp(a, k), np.ldexp(c, k)
    uh, ul = _two_product(a_, b)
    th, tl = _two_sum(c_, uh)
    v, w = _two_sum(tl, ul)
    v = _round_to_odd(v, w)
    r = th + v
    if scaled:
        r = np.ldexp(np.where(tiny & (np.abs(r) <= np.ldexp(1.0, k - 1022)), _to_subnormal(th, v, k), r), -k)
    finite = np.isfinite(r)
    return r if finite.all() else np.where(finite, r, a * b + c)  # (inf and nan: the instruction's)


def in_order(values: np.ndarray, order: list[int], dtype: Any = None) -> np.ndarray:
    """``values`` (of ``dtype``, theirs by default) copied into a new array laid out in ``order``; as they
    are where they already lie so (NumPy's results of row-major inputs)."""
    dtype = values.dtype if dtype is None else np.dtype(dtype)
    if order == sorted(order) and values.flags.c_contiguous and values.dtype == dtype:
        return values
    out = empty_in_order(values.shape, order, dtype)
    np.copyto(out, values, casting="unsafe")
    return out


def suggested_order(a: np.ndarray) -> list[int]:
    """The dims of a new result made like ``a``, slowest first, as PyTorch's ``suggest_memory_format``
    picks it: channels last (N, H, W, C in memory) for a 4-d array whose strides are laid out so, and
    (N, D, H, W, C) for a 5-d one; else row-major. (``is_channels_last_strides_2d``: sizes of 0 and a
    C stride of 0 say no; ambiguous cases, size-1 dims with equal strides, stay row-major.)"""
    walks = {4: (1, 3, 2, 0), 5: (1, 4, 3, 2, 0)}
    if a.ndim in walks and a.strides[1] != 0:
        smallest = 0
        for d in walks[a.ndim]:
            if a.shape[d] == 0 or a.strides[d] < smallest or d == 0 and smallest == a.strides[1]:
                break
            smallest = a.strides[d] * (a.shape[d] if a.shape[d] > 1 else 1)
        else:
            return [0, *range(2, a.ndim), 1]
    return list(range(a.ndim))


def row_major(x: Any, dtype: Any = None) -> np.ndarray:
    """A reduction's (or scan's) result laid out by rows, as PyTorch's always is (NumPy's follows the
    input's layout: the sum over a dim of a permuted tensor would be transposed), with a row-major
    array's strides along its dims of size 1 too (NumPy's can keep the input's there, which mm's
    test for a column-major operand reads)."""
    out = np.asarray(x, dtype=dtype, order="C")
    if out.ndim > 1 and 1 in out.shape:
        out = out.reshape(-1).reshape(out.shape)
    return out


def iterator_layout(out: np.ndarray, *inputs: np.ndarray) -> np.ndarray:
    """``out`` (a NumPy result of ``inputs``, broadcast) laid out as PyTorch's TensorIterator lays out
    the result: in :func:`dense_order` of the inputs' strides (the first input decides where they
    disagree; NumPy mixes them). Row-major inputs give a row-major result either way, returned as is,
    but where a dimension of size 1 takes its stride from a broadcast input's."""
    if out.ndim < 2 or all(a.flags.c_contiguous for a in inputs) and (
            1 not in out.shape or all(a.shape == out.shape for a in inputs)):
        return out
    shape = out.shape
    strides = []
    for a in inputs:
        lead = len(shape) - a.ndim
        strides.append([0] * lead + [st if n == size else 0
                                     for n, size, st in zip(a.shape, shape[lead:], a.strides)])
    target = empty_in_order(shape, dense_order(shape, *strides), out.dtype)
    if target.strides == out.strides:
        return out
    target[...] = out
    return target


@functools.cache
def avx512_bytes() -> int:
    """The vector width, in bytes, of PyTorch's CPU kernels that it also builds for AVX-512 (softmax,
    sigmoid, ...): 64 on an x86 CPU with AVX-512 F, BW, VL and DQ (as PyTorch's own check), unless
    ATEN_CPU_CAPABILITY asks for less; else 32 (AVX2, which its other kernels use everywhere)."""
    if os.environ.get("ATEN_CPU_CAPABILITY", "").lower() in ("default", "avx2"):
        return 32
    try:
        with open("/proc/cpuinfo") as f:
            flags = next((line.split(":", 1)[1].split() for line in f if line.startswith("flags")), [])
    except OSError:
        return 32
    return 64 if {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= set(flags) else 32


def vector_lanes(shape: tuple[int, ...], dtype: np.dtype, *inputs: np.ndarray,
                 vector_bytes: int = 32) -> np.ndarray | None:
    """Which elements of a result of ``shape`` PyTorch's CPU loop computes with its vector kernel, the
    others with its scalar one (the two can differ: a tie of 0.0 and -0.0 in ``maximum``), as a bool
    array of ``shape``; None where the vector kernel computes none. TensorIterator orders the dims
    (:func:`dense_order`), coalesces those that follow each other in every operand's memory, and runs
    the inner dim's loop per row: vectorized when each input is contiguous along it or, for one input
    only, broadcast (stride 0); then chunks of two vectors (of ``vector_bytes``: 8 float32s per vector, as
    PyTorch's AVX2 kernels have, 4 float64s; a kernel built for AVX-512 too, :func:`avx512_bytes`), the
    rest of the row, fewer than a chunk, scalar. (Results of 32,768 elements and more are split between
    PyTorch's threads, each with its own rest: taken as on one.)"""
    chunk = 2 * vector_bytes // dtype.itemsize if dtype in (np.float32, np.float64) else 0
    if not chunk or not shape:
        return None
    strides = []
    for a in inputs:  # each input's stride along each dim of the result, in elements (0: broadcast)
        lead = len(shape) - a.ndim
        strides.append([0] * lead + [st // a.itemsize if n == size and size != 1 else 0
                                     for n, size, st in zip(a.shape, shape[lead:], a.strides)])
    order = dense_order(shape, *strides)  # the result's dims, slowest first (it is laid out so)
    sizes = [shape[d] for d in reversed(order)]  # the loop's dims, fastest first
    ops = [[st[d] for d in reversed(order)] for st in strides]
    inner, inner_strides = sizes[0], [st[0] for st in ops]
    for d in range(1, len(sizes)):  # coalesce_dimensions: the inner dim grows while every input allows
        if inner == 1 or sizes[d] == 1 or all(s * inner == st[d] for s, st in zip(inner_strides, ops)):
            if inner == 1:
                inner_strides = [st[d] for st in ops]
            inner *= sizes[d]
        else:
            break
    if inner < chunk or any(s not in (0, 1) for s in inner_strides) or inner_strides.count(0) > 1:
        return None
    vector = np.arange(inner) < inner - inner % chunk  # (the result is dense: its rows follow each other)
    memory = np.broadcast_to(vector, (int(np.prod(shape)) // inner, inner)).reshape([shape[d] for d in order])
    return memory.transpose(np.argsort(order))


# ------------------------------------------------------------------------- argument checks, shared by the ops


def _binary(fn: Any, a: Tensor, b: Tensor) -> np.ndarray:
    """``fn`` of the two arrays, computed as PyTorch does in their common dtype (NumPy would compute a
    float32 tensor and a 0-d float64 one in float64, then round once more)."""
    x, y = a._data, b._data
    xc, yc = x, y
    if x.dtype is not y.dtype and x.dtype != y.dtype:  # (the layout is the operands', not the casts')
        common = result_dtype(a, b)
        xc, yc = x.astype(common, copy=False), y.astype(common, copy=False)
    try:
        out = fn(xc, yc)  # (quiet: Function.apply runs every forward so)
    except ValueError:
        broadcast_shape(x.shape, y.shape)  # raises PyTorch's message
        raise
    if x.flags.c_contiguous and y.flags.c_contiguous and (x.shape == y.shape or 1 not in out.shape):
        return out  # (the common case, without a call)
    return iterator_layout(out, x, y)  # (a transposed or broadcast operand: PyTorch's layout)


def _const(arr: np.ndarray) -> Tensor:
    """A tensor outside the graph (masks, signs): its derivative is zero."""
    return Tensor._make(np.asarray(arr))


def _floating(x: np.ndarray) -> np.ndarray:
    """Integer inputs of float functions (exp, log, ...) give the default float dtype."""
    return x if x.dtype.kind == "f" else x.astype(dtypes.get_default_dtype().np)


def rounded_once(ufunc: np.ufunc) -> Any:
    """``ufunc`` (exp, log, sin, tanh, ...) with a float32 array computed in double and rounded once: the
    correctly rounded result, which PyTorch's float32 kernels (SLEEF's vector functions, C's) give for all
    but a few values in a hundred, where NumPy's own float32 kernels miss it in up to half (exp: 60% of
    values as PyTorch's, 99% so; issue 16). Other dtypes: ``ufunc`` itself."""

    def kernel(x: np.ndarray) -> np.ndarray:
        if x.dtype == np.float32:
            return ufunc(x, dtype=np.float64).astype(np.float32)
        return ufunc(x)

    kernel.__name__ = kernel.__qualname__ = ufunc.__name__
    return kernel


def _need_tensors(name: str, method: bool, *named: tuple[str, Any]) -> None:
    """PyTorch's argument parser: these arguments must be tensors (positions count from 1 for
    ``torch.fn(input, ...)``, from 1 after ``self`` for methods)."""
    for pos, (arg, value) in enumerate(named, start=0 if method else 1):
        if method and pos == 0:
            continue
        if not isinstance(value, Tensor):
            raise TypeError(f"{name}(): argument '{arg}' (position {pos}) must be Tensor, not "
                            f"{type(value).__name__}")


def check_arg_types(fn: str, method: bool, *args: tuple[str, int, Any, type]) -> None:
    """PyTorch's argument parser's TypeError for an int or bool argument of another type: each arg is
    ``(name, position, value, int or bool)``, its position counted from 1 in the function, ``input``
    first (the method's, without ``input``, one less). (An argument given by keyword: PyTorch's text
    names no position.)"""
    for name, position, value, kind in args:
        is_bool = isinstance(value, (bool, np.bool_))
        ok = is_bool if kind is bool else not is_bool and (isinstance(value, (int, np.integer)) or (
            isinstance(value, Tensor) and value._data.ndim == 0 and value._data.dtype.kind in "iu"))
        if not ok:
            raise TypeError(f"{fn}(): argument '{name}' (position {position - method}) must be "
                            f"{kind.__name__}, not {type(value).__name__}")


def _invalid_combination(name: str, args: tuple, signatures: list[str]) -> TypeError:
    got = ", ".join("Tensor" if isinstance(a, Tensor) else type(a).__name__ for a in args)
    lines = "".join(f" * ({s})\n" for s in signatures)
    return TypeError(f"{name}() received an invalid combination of arguments - got ({got}), but expected "
                     f"one of:\n{lines}")


def _not_implemented(kernel: str, dtype: np.dtype) -> NotImplementedError:
    return NotImplementedError(f'"{kernel}" not implemented for \'{dtypes.scalar_type_name(dtype)}\'')


def _check_broadcast(*tensors: Tensor) -> tuple[int, ...]:
    shape: tuple[int, ...] = ()
    for t in tensors:
        shape = broadcast_shape(shape, t._data.shape)
    return shape


def _float_result(*operands: Any) -> np.dtype:
    """The promoted dtype, the default float dtype when that is integral (atan2's rule)."""
    dt = result_dtype(*operands)
    return dt if dt.kind == "f" else dtypes.get_default_dtype().np


def _needing_grad(*tensors: Tensor) -> tuple[Tensor, ...]:
    """PyTorch's NotImplemented node has edges to the inputs that require grad only."""
    return tuple(t for t in tensors if t.requires_grad)
