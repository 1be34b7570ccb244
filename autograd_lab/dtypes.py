"""Data types, devices and sizes, printed as PyTorch prints them (``torch.float32``, ``torch.Size``),
and the few rules on shapes every part uses: reading a shape from arguments, wrapping a dimension,
writing a shape in a message; and ``quiet``, under which NumPy gives IEEE results (inf, nan) without
warnings, as PyTorch does."""

from __future__ import annotations

import builtins
import functools
from typing import Any

import numpy as np

try:  # NumPy 2 keeps its error state in a context variable: setting it costs a tenth of np.errstate
    from numpy._core._ufunc_config import _extobj_contextvar as _ERRSTATE
    from numpy._core._ufunc_config import _make_extobj

    _QUIET_STATE = _make_extobj(over="ignore", divide="ignore", invalid="ignore")
except ImportError:  # NumPy 1
    _ERRSTATE = None


if _ERRSTATE is not None:
    # quiet_on() returns the token quiet_off(token) takes: C calls, for the recorded path (every op)
    quiet_on = functools.partial(_ERRSTATE.set, _QUIET_STATE)
    quiet_off = _ERRSTATE.reset
else:
    def quiet_on() -> object:
        return np.seterr(over="ignore", divide="ignore", invalid="ignore")

    def quiet_off(token: object) -> None:
        np.seterr(**token)


class quiet:
    """``with quiet():`` IEEE results (inf, nan) are values, not warnings, as in PyTorch (NumPy's
    ``errstate(over, divide, invalid="ignore")``, a tenth of its cost). ``Function.apply`` runs every
    forward so, the engine every backward."""

    __slots__ = ("_token",)

    def __enter__(self) -> None:
        self._token = quiet_on()

    def __exit__(self, *exc: object) -> None:
        quiet_off(self._token)


class dtype:
    """A tensor's element type. Compares equal to itself only; maps to a NumPy dtype."""

    def __init__(self, name: str, np_dtype: Any, is_floating_point: bool, itemsize: int) -> None:
        self.name = name
        self.np = np.dtype(np_dtype)
        self.is_floating_point = is_floating_point
        self.itemsize = itemsize

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __reduce__(self) -> str:
        return self.name


float16 = half = dtype("float16", np.float16, True, 2)
float32 = float = dtype("float32", np.float32, True, 4)
float64 = double = dtype("float64", np.float64, True, 8)
uint8 = dtype("uint8", np.uint8, False, 1)
int8 = dtype("int8", np.int8, False, 1)
int16 = short = dtype("int16", np.int16, False, 2)
int32 = int = dtype("int32", np.int32, False, 4)
int64 = long = dtype("int64", np.int64, False, 8)
bool = dtype("bool", np.bool_, False, 1)  # PyTorch's name (shadows the builtin here)

_BY_NUMPY = {d.np: d for d in (float16, float32, float64, uint8, int8, int16, int32, int64, bool)}
# the dtype every new floating point tensor gets (torch.get_default_dtype())
_default = [float32]


def get_default_dtype() -> dtype:
    return _default[0]


def set_default_dtype(d: dtype) -> None:
    if not isinstance(d, dtype) or not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _default[0] = d


def from_numpy_dtype(np_dtype: Any) -> dtype:
    """The dtype of a NumPy dtype, or a TypeError naming it."""
    key = np.dtype(np_dtype)
    try:
        return _BY_NUMPY[key]
    except KeyError:
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{key.name}. The only supported types are: "
            "float64, float32, float16, int64, int32, int16, int8, uint8, and bool."
        ) from None


# How PyTorch's error messages name dtypes: its ScalarType names ("Float", "Long") in most messages,
# the C++ type names ("float", "long int") in a few (matmul's and masked_fill's).
_SCALAR_TYPE_NAMES = {"float16": "Half", "float32": "Float", "float64": "Double", "uint8": "Byte",
                      "int8": "Char", "int16": "Short", "int32": "Int", "int64": "Long", "bool": "Bool"}
_CPP_TYPE_NAMES = {"float16": "c10::Half", "float32": "float", "float64": "double",
                   "uint8": "unsigned char", "int8": "signed char", "int16": "short int", "int32": "int",
                   "int64": "long int", "bool": "bool"}


def scalar_type_name(d: Any) -> str:
    """``Float`` for float32, ``Long`` for int64: the dtype (ours or NumPy's) as PyTorch's messages
    name it."""
    return _SCALAR_TYPE_NAMES[d.name if isinstance(d, dtype) else from_numpy_dtype(d).name]


def legacy_type_name(d: Any) -> str:
    """``torch.FloatTensor``: the name ``tensor.type()`` and some messages give a tensor's type."""
    return f"torch.{scalar_type_name(d)}Tensor"


def deprecated_type_name(d: Any) -> str:
    """The type name PyTorch's messages of a changed saved tensor show (its ``DeprecatedTypeProperties``):
    ``torch.FloatTensor`` where a legacy tensor type exists, else ``CPUBoolType``, ``CPUComplexFloatType``."""
    name = scalar_type_name(d)
    if name in ("Byte", "Char", "Short", "Int", "Long", "Half", "Float", "Double"):
        return f"torch.{name}Tensor"
    return f"CPU{name}Type"


def cpp_type_name(np_dtype: Any) -> str:
    """``float`` for float32, ``long int`` for int64: the C++ type some PyTorch messages show."""
    return _CPP_TYPE_NAMES[from_numpy_dtype(np_dtype).name]


def to_numpy_dtype(d: Any) -> np.dtype:
    """Accept a dtype of this package, a NumPy dtype, or a Python type."""
    if d is None:
        return _default[0].np
    if isinstance(d, dtype):
        return d.np
    if d is builtins.float:
        return _default[0].np
    return from_numpy_dtype(d).np


class device:
    """Where a tensor lives. Only the CPU exists here."""

    def __init__(self, type: str = "cpu", index: Any = None) -> None:  # PyTorch's name
        name = str(type).split(":")[0]
        if name != "cpu":
            raise RuntimeError(
                f"autograd_lab runs on the CPU only; device '{type}' is not available here"
            )
        self.type = "cpu"
        self.index = index

    def __repr__(self) -> str:
        return "device(type='cpu')"

    def __str__(self) -> str:
        return "cpu"

    def __eq__(self, other: object) -> builtins.bool:
        if isinstance(other, str):
            return other.split(":")[0] == "cpu"
        return isinstance(other, device)

    def __hash__(self) -> builtins.int:
        return hash("cpu")


class Size(tuple):
    """A tensor's shape: a tuple that prints as ``torch.Size([2, 3])``."""

    def __repr__(self) -> str:
        return f"torch.Size([{', '.join(str(s) for s in self)}])"

    def numel(self) -> builtins.int:
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, key: Any) -> Any:
        out = tuple.__getitem__(self, key)
        return Size(out) if isinstance(key, slice) else out

    def __add__(self, other: Any) -> Size:
        return Size(tuple(self) + tuple(other))


def size_arg(args: tuple) -> tuple[builtins.int, ...]:
    """``f(2, 3)``, ``f((2, 3))`` and ``f(torch.Size([2, 3]))`` all mean the shape (2, 3)."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = tuple(args[0])
    return tuple(builtins.int(a) for a in args)


def wrap_dim(dim: builtins.int, ndim: builtins.int) -> builtins.int:
    """``dim`` counted from 0 (-1 is the last dimension), or PyTorch's IndexError."""
    lo, hi = (-ndim, ndim - 1) if ndim > 0 else (-1, 0)
    if not lo <= dim <= hi:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got {dim})"
        )
    return dim % ndim if ndim > 0 else 0


def empty_strides(t: Any) -> tuple[builtins.int, ...]:
    """An empty tensor's strides as PyTorch keeps them (NumPy keeps none: its strides are all 0): as a
    transpose or permute set them (``_empty_strides``), else row-major, a dimension of size 0 as 1."""
    kept = getattr(t, "_empty_strides", None)
    if kept is not None:
        return kept
    strides, step = [], 1
    for size in reversed(t._data.shape):
        strides.append(step)
        step *= max(size, 1)
    return tuple(reversed(strides))


def shape_str(shape: Any) -> str:
    """``[2, 3]``: a shape as PyTorch's messages write it."""
    return "[" + ", ".join(str(s) for s in shape) + "]"
