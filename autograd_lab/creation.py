"""Making tensors: from data, filled with constants, ranges, and random values."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from . import dtypes
from .dtypes import size_arg
from .ops.copies import fill_like
from .ops.inplace import empty_preserving, inplace, with_strides_of
from .ops.promotion import _promote, check_int, scalar_dtype
from .random import Generator, _generator
from .tensor import Tensor, _to_array


def _dtype(dtype: Any, default: np.dtype | None = None) -> np.dtype:
    if dtype is None:
        return default if default is not None else dtypes.get_default_dtype().np
    return dtypes.to_numpy_dtype(dtype)


def _new(arr: np.ndarray, requires_grad: bool, name: str | None = None) -> Tensor:
    t = Tensor._make(arr)
    if requires_grad:
        if arr.dtype.kind not in "fc":  # the factories' wording differs from requires_grad_()'s
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        t.requires_grad = True
    t.name = name
    return t


def _check_ragged(data: Any, dim: int = 0) -> None:
    """PyTorch's message for nested lists of unequal lengths."""
    if isinstance(data, (list, tuple)) and data and all(isinstance(d, (list, tuple)) for d in data):
        n = len(data[0])
        for d in data:
            if len(d) != n:
                raise ValueError(f"expected sequence of length {n} at dim {dim + 1} (got {len(d)})")
        for d in data:
            _check_ragged(d, dim + 1)


def _element_dtypes(data: Any, found: set) -> set:
    """The dtypes of the numbers in nested sequences as PyTorch reads them: a NumPy scalar or a
    tensor keeps its own, a Python bool is bool, an int int64, a float the default dtype."""
    for v in data:
        if isinstance(v, (list, tuple)):
            _element_dtypes(v, found)
        elif isinstance(v, (Tensor, np.ndarray, np.generic)):
            found.add(v._data.dtype if isinstance(v, Tensor) else v.dtype)
        else:
            found.add(scalar_dtype(v))
    return found


def tensor(data: Any, *, dtype: Any = None, device: Any = None, requires_grad: bool = False,
           name: str | None = None) -> Tensor:
    """A new tensor holding a copy of ``data`` (``torch.tensor``).

    Python floats give float32 (the default dtype), ints int64, bools bool; NumPy arrays keep their
    dtype. ``name`` (not in PyTorch) labels the tensor in drawings of the graph.
    """
    if device is not None:
        dtypes.device(str(device))
    if isinstance(data, Tensor):
        warnings.warn(
            "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() "
            "or sourceTensor.detach().clone().requires_grad_(True), rather than "
            "torch.tensor(sourceTensor).",
            UserWarning,
            stacklevel=2,
        )
        arr = np.array(data._data, copy=True)
    elif isinstance(data, (np.ndarray, np.generic)):
        arr = np.array(data, copy=True)  # NumPy's layout (order K), as PyTorch's copy keeps it
        dtypes.from_numpy_dtype(arr.dtype)
    else:
        _check_ragged(data)
        try:
            arr = np.array(_to_array(data))
        except ValueError as e:
            raise ValueError(f"could not convert {type(data).__name__} to a tensor: {e}") from None
        if arr.dtype.kind not in "fiub":
            raise TypeError(f"Could not infer dtype of {type(data).__name__}")
        if dtype is None:  # with a dtype, Python floats go straight to it (never through float32)
            found = _element_dtypes(data if isinstance(data, (list, tuple)) else [data], set())
            dtype = _promote(list(found)) if found else dtypes.get_default_dtype().np  # []: float32
    if dtype is not None:
        with np.errstate(over="ignore"):  # 1e40 in float32 is inf, without a warning (PyTorch)
            arr = arr.astype(_dtype(dtype))
    if isinstance(data, np.ndarray):
        arr = _steps_of(data, arr)
    return _new(arr, requires_grad, name)


def _steps_of(src: np.ndarray, arr: np.ndarray) -> np.ndarray:
    """``arr``, a copy of ``src``, with the steps ``src`` has on its dimensions of size 1: PyTorch's copy
    keeps them, NumPy's makes them canonical, and matmul decides by them whether to fold a batch. (A
    size-1 dimension is never stepped along: any step reads the same memory.)"""
    if arr.shape != src.shape or src.ndim == 0:
        return arr
    steps = tuple(st // src.itemsize * arr.itemsize for st in src.strides)
    if steps == arr.strides or any(st != a for st, a, n in zip(steps, arr.strides, arr.shape) if n != 1):
        return arr
    return np.lib.stride_tricks.as_strided(arr, arr.shape, steps)


def as_tensor(data: Any, dtype: Any = None, device: Any = None) -> Tensor:
    """Like :func:`tensor`, but shares memory with a NumPy array or tensor where it can."""
    if isinstance(data, Tensor) and (dtype is None or data.dtype is dtype):
        return data
    if isinstance(data, np.ndarray) and (dtype is None or data.dtype == _dtype(dtype)):
        return from_numpy(data)
    return tensor(data, dtype=dtype, device=device)


def from_numpy(arr: np.ndarray) -> Tensor:
    """A tensor sharing memory with ``arr``: changing one changes the other (``torch.from_numpy``)."""
    if not isinstance(arr, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(arr).__name__})")
    dtypes.from_numpy_dtype(arr.dtype)
    return Tensor._make(arr)


def zeros(*size: Any, dtype: Any = None, requires_grad: bool = False, device: Any = None,
          name: str | None = None) -> Tensor:
    return _new(np.zeros(size_arg(size), dtype=_dtype(dtype)), requires_grad, name)


def ones(*size: Any, dtype: Any = None, requires_grad: bool = False, device: Any = None,
         name: str | None = None) -> Tensor:
    return _new(np.ones(size_arg(size), dtype=_dtype(dtype)), requires_grad, name)


def empty(*size: Any, dtype: Any = None, requires_grad: bool = False, device: Any = None) -> Tensor:
    return _new(np.empty(size_arg(size), dtype=_dtype(dtype)), requires_grad)


def full(size: Any, fill_value: Any, *, dtype: Any = None, requires_grad: bool = False,
         device: Any = None) -> Tensor:
    check_int(fill_value)
    if dtype is None:
        default = {bool: np.bool_, int: np.int64}.get(type(fill_value))
        dtype_np = np.dtype(default) if default else dtypes.get_default_dtype().np
    else:
        dtype_np = _dtype(dtype)
    _check_conversion(fill_value, dtype_np)
    if dtype_np.kind == "u" and isinstance(fill_value, int) and fill_value < 0:
        fill_value %= 1 << 8 * dtype_np.itemsize  # (as C++ converts it)
    return _new(np.full(size_arg((size,)), fill_value, dtype=dtype_np), requires_grad)


_C_TYPES = {"int8": "int8_t", "uint8": "uint8_t", "int16": "int16_t", "int32": "int", "int64": "int64_t",
            "float16": "c10::Half", "float32": "float", "float64": "double"}


def _check_conversion(value: Any, dtype: np.dtype) -> None:
    """PyTorch's checked conversion of a number to ``dtype``: one out of its range is an error (NumPy
    wraps it or makes it inf); an unsigned type takes negatives down to minus its maximum, as C++ wraps."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
        return
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        low = -int(info.max) if dtype.kind == "u" else int(info.min)
        fits = value != value or low <= value <= info.max  # (nan: NumPy's own error)
    elif dtype.kind == "f":
        fits = not np.isfinite(value) or abs(value) <= float(np.finfo(dtype).max)
    else:
        return
    if not fits:
        raise RuntimeError(f"value cannot be converted to type {_C_TYPES[dtype.name]} without overflow")


def _filled_like(t: Tensor, value: Any, dtype: Any) -> np.ndarray:
    """``value`` in an array laid out as ``t`` (PyTorch's ``preserve_format``: a transposed tensor's
    ``zeros_like`` is transposed too, which decides whether a later ``contiguous()`` copies)."""
    out = empty_preserving(t._data, _dtype(dtype, t._data.dtype))
    if value is not None:
        out.fill(value)
    return out


def zeros_like(t: Tensor, *, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    return _new(_filled_like(t, 0, dtype), requires_grad)


def ones_like(t: Tensor, *, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    return _new(_filled_like(t, 1, dtype), requires_grad)


def empty_like(t: Tensor, *, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    return _new(_filled_like(t, None, dtype), requires_grad)


def full_like(t: Tensor, fill_value: Any, *, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    return _new(_filled_like(t, fill_value, dtype), requires_grad)


def arange(start: Any, end: Any = None, step: Any = 1, *, dtype: Any = None,
           requires_grad: bool = False, device: Any = None) -> Tensor:
    """``arange(end)`` or ``arange(start, end, step)``; int64 for integer arguments."""
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("step must be nonzero")
    all_int = all(isinstance(v, (int, np.integer)) for v in (start, end, step))
    default = np.dtype(np.int64) if all_int else dtypes.get_default_dtype().np
    return _new(np.arange(start, end, step).astype(_dtype(dtype, default)), requires_grad)


def linspace(start: float, end: float, steps: int, *, dtype: Any = None,
             requires_grad: bool = False) -> Tensor:
    return _new(np.linspace(start, end, steps).astype(_dtype(dtype)), requires_grad)


def logspace(start: float, end: float, steps: int, base: float = 10.0, *, dtype: Any = None,
             requires_grad: bool = False) -> Tensor:
    """``steps`` values from ``base ** start`` to ``base ** end``, their exponents evenly spaced
    (``torch.logspace``)."""
    dt = _dtype(dtype)
    # PyTorch's kernel: the exponents in double from the ends in the dtype, the first half counted up from
    # start, the rest down from end; each power C's pow in double, then rounded to the dtype
    first, last = (float(np.asarray(v).astype(dt)) for v in (start, end))
    step = (last - first) / (steps - 1) if steps > 1 else 0.0
    exponents = [first + step * i if i < steps // 2 else last - step * (steps - i - 1) for i in range(steps)]
    if steps == 1:  # (PyTorch's: base ** start)
        exponents = [first]
    return _new(np.array([math.pow(float(base), e) for e in exponents], np.float64).astype(dt), requires_grad)


def eye(n: int, m: int | None = None, *, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    return _new(np.eye(n, m, dtype=_dtype(dtype)), requires_grad)


def tril_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None) -> Tensor:
    """The (row, column) indices of the lower triangle of a ``row`` x ``col`` matrix, on and below the
    diagonal ``offset``, row by row: a 2 x N tensor (``torch.tril_indices``)."""
    return _new(np.array(np.tril_indices(row, offset, col)).reshape(2, -1).astype(_dtype(dtype, np.int64)),
                False)


def triu_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None) -> Tensor:
    """The (row, column) indices of the upper triangle, on and above the diagonal ``offset``
    (``torch.triu_indices``)."""
    return _new(np.array(np.triu_indices(row, offset, col)).reshape(2, -1).astype(_dtype(dtype, np.int64)),
                False)


def randn(*size: Any, generator: Generator | None = None, dtype: Any = None,
          requires_grad: bool = False, device: Any = None, name: str | None = None) -> Tensor:
    """Standard normal samples, PyTorch's for the same seed (see :mod:`autograd_lab.random`)."""
    shape, dt = size_arg(size), _dtype(dtype)
    arr = _generator(generator).normal(int(np.prod(shape)), 0.0, 1.0, dt).reshape(shape)
    return _new(arr, requires_grad, name)


def rand(*size: Any, generator: Generator | None = None, dtype: Any = None,
         requires_grad: bool = False, device: Any = None, name: str | None = None) -> Tensor:
    """Uniform samples from [0, 1), PyTorch's for the same seed."""
    shape, dt = size_arg(size), _dtype(dtype)
    arr = _generator(generator).uniform(int(np.prod(shape)), 0.0, 1.0, dt).reshape(shape)
    return _new(arr, requires_grad, name)


def randint(low: int, high: int | None = None, size: Any = (), *, generator: Generator | None = None,
            dtype: Any = None) -> Tensor:
    """Integers drawn uniformly from [low, high) (``randint(high, size)`` starts at 0)."""
    if isinstance(high, (tuple, list)):  # randint(high, size)
        low, high, size = 0, low, high
    elif high is None:
        low, high = 0, low
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    shape = size_arg((size,))
    arr = _generator(generator).integers(int(low), int(high), int(np.prod(shape))).reshape(shape)
    return Tensor._make(arr.astype(_dtype(dtype, np.dtype(np.int64))))


def randperm(n: int, *, generator: Generator | None = None, dtype: Any = None) -> Tensor:
    """A random permutation of 0..n-1, PyTorch's for the same seed."""
    if n < 0:
        raise RuntimeError(f"n must be non-negative, got{n}")
    arr = _generator(generator).permutation(int(n))
    return Tensor._make(arr.astype(_dtype(dtype, np.dtype(np.int64))))


def _random_like(t: Tensor, drawn: Tensor) -> Tensor:
    """``drawn`` (samples in row-major order) laid out as ``t``, the samples in ``t``'s memory order, as
    PyTorch fills ``rand_like`` of a transposed tensor."""
    if t._data.flags.c_contiguous:  # (a size-1 dimension keeps its stride, as in empty_preserving)
        return drawn if 1 not in t._data.shape else Tensor._make(with_strides_of(drawn._data, t._data))
    out = empty_preserving(t._data, drawn._data.dtype)
    order = sorted(range(out.ndim), key=lambda d: -out.strides[d])  # slowest first
    out.transpose(order)[...] = drawn._data.reshape([out.shape[d] for d in order])
    return Tensor._make(out)


def randn_like(t: Tensor, *, generator: Generator | None = None, dtype: Any = None) -> Tensor:
    return _random_like(t, randn(t.shape, generator=generator, dtype=dtype or t.dtype))


def rand_like(t: Tensor, *, generator: Generator | None = None, dtype: Any = None) -> Tensor:
    return _random_like(t, rand(t.shape, generator=generator, dtype=dtype or t.dtype))


def normal(mean: float, std: float, size: Any, *, generator: Generator | None = None) -> Tensor:
    """Samples of N(mean, std²) of the given size (``torch.normal(mean, std, size)``)."""
    shape = size_arg((size,))
    arr = _generator(generator).normal(int(np.prod(shape)), mean, std, dtypes.get_default_dtype().np)
    return Tensor._make(arr.reshape(shape))


def bernoulli(p: Tensor, *, generator: Generator | None = None) -> Tensor:
    """1 with probability ``p`` (elementwise), else 0, in ``p``'s dtype."""
    if np.any((p._data < 0) | (p._data > 1)):
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this "
                           "error message be improved?  If so, please report an enhancement request "
                           "to PyTorch.)")
    arr = _generator(generator).bernoulli(p._data)
    return Tensor._make(arr.astype(p._data.dtype))


# ---------------------------------------------------------------------------- Tensor.new_*: like a tensor
def new_tensor(t: Tensor, data: Any, *, dtype: Any = None, requires_grad: bool = False,
               device: Any = None) -> Tensor:
    """``t.new_tensor(data)``: a new leaf from ``data``, in ``t``'s dtype unless ``dtype`` is given."""
    if isinstance(data, Tensor):
        warnings.warn(
            "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
            "sourceTensor.detach().clone().requires_grad_(True), rather than "
            "tensor.new_tensor(sourceTensor).", UserWarning, stacklevel=2)
        data = data._data
    arr = np.array(_to_array(data), dtype=(dtype or t.dtype).np)
    return Tensor._make(arr, requires_grad)


def new_full(t: Tensor, size: Any, fill_value: Any, *, dtype: Any = None, requires_grad: bool = False,
             device: Any = None) -> Tensor:
    """``t.new_full(size, value)``: a tensor of ``size`` filled with ``value``, in ``t``'s dtype."""
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    arr = np.full(size_arg((size,)), fill_value, dtype=(dtype or t.dtype).np)
    return Tensor._make(arr, requires_grad)


def new_zeros(t: Tensor, *size: Any, dtype: Any = None, requires_grad: bool = False,
              device: Any = None) -> Tensor:
    """``t.new_zeros(2, 3)``: zeros in ``t``'s dtype."""
    return new_full(t, size_arg(size), 0, dtype=dtype, requires_grad=requires_grad)


def new_ones(t: Tensor, *size: Any, dtype: Any = None, requires_grad: bool = False,
             device: Any = None) -> Tensor:
    """``t.new_ones(2, 3)``: ones in ``t``'s dtype."""
    return new_full(t, size_arg(size), 1, dtype=dtype, requires_grad=requires_grad)


def new_empty(t: Tensor, *size: Any, dtype: Any = None, requires_grad: bool = False,
              device: Any = None) -> Tensor:
    """``t.new_empty(2, 3)``: values unspecified, as in PyTorch; here zeros."""
    return new_full(t, size_arg(size), 0, dtype=dtype, requires_grad=requires_grad)


# ---------------------------------------------------------------------------- in-place random fills
def uniform_(t: Tensor, a: float = 0.0, b: float = 1.0, *, generator: Any = None) -> Tensor:
    """Fill ``t`` with samples of U(a, b), PyTorch's for the same seed."""
    if a > b:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={a} > to={b}")
    values = _generator(generator).uniform(t._data.size, a, b, t._data.dtype)
    return inplace(t, fill_like, values.reshape(t._data.shape))


def normal_(t: Tensor, mean: float = 0.0, std: float = 1.0, *, generator: Any = None) -> Tensor:
    """Fill ``t`` with samples of N(mean, std²), PyTorch's for the same seed."""
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    values = _generator(generator).normal(t._data.size, mean, std, t._data.dtype,
                                          contiguous=t._data.flags.c_contiguous)
    return inplace(t, fill_like, values.reshape(t._data.shape))


def bernoulli_(t: Tensor, p: Any = 0.5, *, generator: Any = None) -> Tensor:
    """Fill ``t`` with 1 (probability ``p``, a number or a tensor of probabilities) or 0."""
    gen = _generator(generator)
    if isinstance(p, Tensor):
        values = gen.bernoulli(np.broadcast_to(p._data, t._data.shape))
    else:
        if not 0 <= p <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
        values = gen.bernoulli(float(p), t._data.shape)
    return inplace(t, fill_like, values.astype(t._data.dtype))
