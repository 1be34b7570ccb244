"""``repr`` of a tensor, laid out as PyTorch lays it out (after ``torch/_tensor_str.py``)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from . import dtypes

if TYPE_CHECKING:
    from .tensor import Tensor

PRECISION = 4
THRESHOLD = 1000
EDGEITEMS = 3
LINEWIDTH = 80


class _Formatter:
    """Chooses integer, fixed or scientific notation and one width for every element."""

    def __init__(self, values: np.ndarray) -> None:
        self.floating = values.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        flat = values.reshape(-1)
        if not self.floating:
            for v in flat:
                self.max_width = max(self.max_width, len(_plain(v)))
            return
        finite = flat[np.isfinite(flat) & (flat != 0)].astype(np.float64)
        if finite.size == 0:
            return
        absolute = np.abs(finite)
        lo, hi = float(absolute.min()), float(absolute.max())
        self.int_mode = bool(np.all(finite == np.ceil(finite)))
        if self.int_mode:
            if hi / lo > 1000.0 or hi > 1.0e8:
                self.sci_mode = True
                self.max_width = max(len(f"{v:.{PRECISION}e}") for v in finite)
            else:
                self.max_width = max(len(f"{v:.0f}") + 1 for v in finite)
        elif hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4:
            self.sci_mode = True
            self.max_width = max(len(f"{v:.{PRECISION}e}") for v in finite)
        else:
            self.max_width = max(len(f"{v:.{PRECISION}f}") for v in finite)

    def width(self) -> int:
        return self.max_width

    def format(self, value: object) -> str:
        if self.floating:
            v = float(value)  # type: ignore[arg-type]
            if self.sci_mode:
                ret = f"{v:{self.max_width}.{PRECISION}e}"
            elif self.int_mode:
                ret = f"{v:.0f}"
                if not (math.isinf(v) or math.isnan(v)):
                    ret += "."
            else:
                ret = f"{v:.{PRECISION}f}"
        else:
            ret = _plain(value)
        return (self.max_width - len(ret)) * " " + ret


def _plain(v: object) -> str:
    if isinstance(v, (np.bool_, bool)):
        return "True" if v else "False"
    return str(v.item() if hasattr(v, "item") else v)


def _summarized(a: np.ndarray) -> np.ndarray:
    """The edges of every dimension, which is all a summarised print shows."""
    if a.ndim == 0:
        return a
    if a.shape[0] > 2 * EDGEITEMS:
        a = np.concatenate([a[:EDGEITEMS], a[-EDGEITEMS:]])
    return np.stack([_summarized(x) for x in a]) if a.ndim > 1 else a


def _vector_str(a: np.ndarray, indent: int, summarize: bool, fmt: _Formatter) -> str:
    element_length = fmt.width() + 2
    per_line = max(1, int(math.floor((LINEWIDTH - indent) / element_length)))
    if summarize and a.shape[0] > 2 * EDGEITEMS:
        data = [fmt.format(v) for v in a[:EDGEITEMS]] + [" ..."]
        data += [fmt.format(v) for v in a[-EDGEITEMS:]]
    else:
        data = [fmt.format(v) for v in a]
    lines = [", ".join(data[i : i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _array_str(a: np.ndarray, indent: int, summarize: bool, fmt: _Formatter) -> str:
    if a.ndim == 0:
        return fmt.format(a.item())
    if a.ndim == 1:
        return _vector_str(a, indent, summarize, fmt)
    if summarize and a.shape[0] > 2 * EDGEITEMS:
        parts = [_array_str(a[i], indent + 1, summarize, fmt) for i in range(EDGEITEMS)]
        parts.append("...")
        parts += [_array_str(a[i], indent + 1, summarize, fmt) for i in range(-EDGEITEMS, 0)]
    else:
        parts = [_array_str(a[i], indent + 1, summarize, fmt) for i in range(a.shape[0])]
    return "[" + ("," + "\n" * (a.ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def _add_suffixes(text: str, suffixes: list[str], indent: int) -> str:
    out = [text]
    last_line_len = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_line_len + len(suffix) + 2 > LINEWIDTH:
            out.append(",\n" + " " * indent + suffix)
            last_line_len = indent + len(suffix)
        else:
            out.append(", " + suffix)
            last_line_len += len(suffix) + 2
    out.append(")")
    return "".join(out)


def tensor_repr(t: Tensor, prefix: str = "tensor(") -> str:
    a = t._data
    indent = len(prefix)
    suffixes: list[str] = []
    default = t.dtype in (dtypes.get_default_dtype(), dtypes.int64, dtypes.bool)
    if a.size == 0:
        if a.ndim != 1:
            suffixes.append(f"size={tuple(a.shape)}")
        if t.dtype is not dtypes.get_default_dtype():
            suffixes.append(f"dtype={t.dtype}")
        body = "[]"
    else:
        summarize = a.size > THRESHOLD
        fmt = _Formatter(_summarized(a) if summarize else a)
        body = _array_str(a, indent, summarize, fmt)
        if not default:
            suffixes.append(f"dtype={t.dtype}")
    if t.grad_fn is not None:
        suffixes.append(f"grad_fn=<{type(t.grad_fn).__name__}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes(prefix + body, suffixes, indent)
