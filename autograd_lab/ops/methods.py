"""The ``Tensor`` methods that only hand off to an operation: one table, set on ``Tensor`` at import.

``x.exp()`` is ``exp(x)``: a method is the op's function, the tensor passing itself as the first
argument (tinygrad's ``register``, kept greppable: every name is a key of :data:`METHODS`). So
:mod:`autograd_lab.tensor` stays the data and the autograd state, and imports no op. An entry is

- the op's function itself: ``"exp": exp`` (``x.exp()`` calls ``exp(x)``);
- ``inplace_of(f)``: ``x.exp_()`` computes ``f(x)`` and writes it into ``x``, with PyTorch's rules
  (:func:`autograd_lab.ops.inplace.inplace`); ``x += y`` is ``add`` in place too;
- ``reflected(f)``: Python's reflected operators, ``2 ** x`` is ``x.__rpow__(2)``, ``pow(2, x)``;
- ``with_shape(f)``: methods that take a shape either way, ``x.view(2, 3)`` or ``x.view((2, 3))``;
- ``compare(ufunc)``: ``x < y`` and the other comparisons, bool tensors outside autograd;
- ``method_of(f)``: functions whose errors name the method (``Tensor.atan2``), not ``torch.atan2``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import creation, engine
from ..dtypes import size_arg
from ..grad_mode import no_grad
from ..tensor import Tensor
from . import indexing, linalg, logarithmic, mathematic, reduction, shape
from .inplace import copy_from, fill_, inplace, refresh_view, setitem, zero_like


def inplace_of(fn: Callable[..., Tensor], *, check_first: bool = False, check: Callable | None = None,
               record: bool = True, **fixed: Any) -> Callable[..., Tensor]:
    """``x.f_(*args)``: ``f(x, *args)`` written into ``x``.

    ``check_first``: run ``f`` once on detached copies first, so that bad arguments fail with the op's
    own error before any rule of in-place changes does (as in PyTorch); ``check(x, *args)``: a check
    of its own. ``record=False``: never recorded by autograd (PyTorch's in-place logical ops).
    """

    @functools.wraps(fn)
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        kwargs.update(fixed)
        if check_first:
            fn(self.detach(), *(a.detach() if isinstance(a, Tensor) else a for a in args), **kwargs)
        if check is not None:
            check(self, *args, **kwargs)
        if not record:
            with no_grad():
                return inplace(self, fn, *args, **kwargs)
        return inplace(self, fn, *args, **kwargs)

    return method


def reflected(fn: Callable[[Any, Any], Tensor]) -> Callable[[Tensor, Any], Tensor]:
    """``other <op> x`` with ``x`` on the right: ``fn(other, x)``."""

    @functools.wraps(fn)
    def method(self: Tensor, other: Any) -> Tensor:
        return fn(other, self)

    return method


def with_shape(fn: Callable[[Tensor, tuple[int, ...]], Tensor]) -> Callable[..., Tensor]:
    """``x.f(2, 3)``, ``x.f((2, 3))`` and ``x.f(torch.Size([2, 3]))``: ``fn(x, (2, 3))``."""

    def method(self: Tensor, *sizes: Any) -> Tensor:
        return fn(self, size_arg(sizes))

    method.__doc__ = fn.__doc__
    return method


def compare(ufunc: np.ufunc) -> Callable[[Tensor, Any], Tensor]:
    """``x == y``, ``x < y``, ...: a bool tensor, never part of the graph."""

    def method(self: Tensor, other: Any) -> Tensor:
        return mathematic.non_differentiable(ufunc, self, other)

    method.__doc__ = f"Elementwise ``numpy.{ufunc.__name__}``: a bool tensor outside autograd."
    return method


def method_of(fn: Callable[..., Tensor]) -> Callable[..., Tensor]:
    """``fn`` with ``_method=True``: its argument errors are PyTorch's for the method."""

    @functools.wraps(fn)
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        return fn(self, *args, _method=True, **kwargs)

    return method


M, R, S, I, L = mathematic, reduction, shape, indexing, linalg

METHODS: dict[str, Any] = {
    # ------------------------------------------------ Python's operators
    "__add__": M.add, "__radd__": M.add, "__iadd__": inplace_of(M.add),
    "__sub__": M.sub, "__rsub__": M.rsub, "__isub__": inplace_of(M.sub),
    "__mul__": M.mul, "__rmul__": M.mul, "__imul__": inplace_of(M.mul),
    "__truediv__": M.div, "__rtruediv__": M.rtruediv, "__itruediv__": inplace_of(M.div),
    "__floordiv__": M.floor_divide, "__rfloordiv__": reflected(M.floor_divide),
    "__mod__": M.remainder, "__rmod__": reflected(M.remainder),
    "__pow__": M.pow, "__rpow__": reflected(M.pow),
    "__matmul__": L.matmul, "__rmatmul__": reflected(L.matmul),
    "__neg__": M.neg, "__abs__": M.abs, "__invert__": M.bitwise_not,
    "__eq__": compare(np.equal), "__ne__": compare(np.not_equal),
    "__lt__": compare(np.less), "__le__": compare(np.less_equal),
    "__gt__": compare(np.greater), "__ge__": compare(np.greater_equal),
    "__and__": compare(np.logical_and), "__or__": compare(np.logical_or),
    "__getitem__": S.getitem, "__setitem__": setitem,
    "eq": compare(np.equal), "ne": compare(np.not_equal), "lt": compare(np.less),
    "le": compare(np.less_equal), "gt": compare(np.greater), "ge": compare(np.greater_equal),
    # ------------------------------------------------ autograd
    "backward": engine.tensor_backward,
    "_refresh_view": refresh_view,  # Tensor.grad_fn: a view whose base changed in place
    # ------------------------------------------------ conversions and copies
    "to": M.to, "type": M.tensor_type, "type_as": M.type_as,
    "float": M.converter("float32"), "double": M.converter("float64"), "half": M.converter("float16"),
    "long": M.converter("int64"), "int": M.converter("int32"), "bool": M.converter("bool"),
    "clone": M.clone, "contiguous": M.contiguous,
    "copy_": inplace_of(copy_from), "fill_": fill_, "zero_": inplace_of(zero_like),
    "equal": M.equal, "allclose": M.allclose, "isclose": M.isclose,
    "new_tensor": creation.new_tensor, "new_full": creation.new_full, "new_zeros": creation.new_zeros,
    "new_ones": creation.new_ones, "new_empty": creation.new_empty,
    "uniform_": creation.uniform_, "normal_": creation.normal_, "bernoulli_": creation.bernoulli_,
    # ------------------------------------------------ arithmetic
    "add": M.add, "add_": inplace_of(M.add), "sub": M.sub, "sub_": inplace_of(M.sub),
    "mul": M.mul, "mul_": inplace_of(M.mul), "div": M.div, "div_": inplace_of(M.div),
    "neg": M.neg, "neg_": inplace_of(M.neg),
    "reciprocal": M.reciprocal, "reciprocal_": inplace_of(M.reciprocal),
    "pow": M.pow, "pow_": inplace_of(M.pow), "square": M.square, "square_": inplace_of(M.square),
    "remainder": M.remainder, "remainder_": inplace_of(M.remainder),
    "fmod": M.fmod, "fmod_": inplace_of(M.fmod),
    "floor_divide": M.floor_divide, "floor_divide_": inplace_of(M.floor_divide, _op="floor_divide_"),
    "lerp": M.lerp, "lerp_": inplace_of(M.lerp),
    "addcmul": M.addcmul, "addcmul_": inplace_of(M.addcmul),
    "addcdiv": M.addcdiv, "addcdiv_": inplace_of(M.addcdiv),
    # ------------------------------------------------ functions of one tensor
    "exp": M.exp, "exp_": inplace_of(M.exp), "exp2": M.exp2, "exp2_": inplace_of(M.exp2),
    "expm1": M.expm1, "expm1_": inplace_of(M.expm1),
    "log": M.log, "log_": inplace_of(M.log), "log2": M.log2, "log2_": inplace_of(M.log2),
    "log10": M.log10, "log10_": inplace_of(M.log10), "log1p": M.log1p, "log1p_": inplace_of(M.log1p),
    "sqrt": M.sqrt, "sqrt_": inplace_of(M.sqrt), "rsqrt": M.rsqrt, "rsqrt_": inplace_of(M.rsqrt),
    "abs": M.abs, "abs_": inplace_of(M.abs), "sign": M.sign, "sign_": inplace_of(M.sign),
    "sin": M.sin, "sin_": inplace_of(M.sin), "cos": M.cos, "cos_": inplace_of(M.cos),
    "tan": M.tan, "tan_": inplace_of(M.tan),
    "asin": M.asin, "asin_": inplace_of(M.asin), "acos": M.acos, "acos_": inplace_of(M.acos),
    "atan": M.atan, "atan_": inplace_of(M.atan),
    "sinh": M.sinh, "sinh_": inplace_of(M.sinh), "cosh": M.cosh, "cosh_": inplace_of(M.cosh),
    "tanh": M.tanh, "tanh_": inplace_of(M.tanh),
    "asinh": M.asinh, "asinh_": inplace_of(M.AsinhInplace.apply),
    "acosh": M.acosh, "acosh_": inplace_of(M.AcoshInplace.apply),
    "atanh": M.atanh, "atanh_": inplace_of(M.AtanhInplace.apply),
    "sigmoid": M.sigmoid, "sigmoid_": inplace_of(M.sigmoid), "relu": M.relu, "relu_": inplace_of(M.relu),
    "erf": M.erf, "erf_": inplace_of(M.erf), "erfc": M.erfc, "erfc_": inplace_of(M.erfc),
    "erfinv": M.erfinv, "erfinv_": inplace_of(M.erfinv),
    "floor": M.floor, "floor_": inplace_of(M.floor), "ceil": M.ceil, "ceil_": inplace_of(M.ceil),
    "round": M.round, "round_": inplace_of(M.round), "trunc": M.trunc, "trunc_": inplace_of(M.trunc),
    "frac": M.frac, "frac_": inplace_of(M.frac),
    "nan_to_num": M.nan_to_num, "nan_to_num_": inplace_of(M.nan_to_num),
    "isnan": M.isnan, "isinf": M.isinf, "isfinite": M.isfinite,
    # ------------------------------------------------ functions of two tensors
    "atan2": method_of(M.atan2), "atan2_": inplace_of(M.atan2, _method=True),
    "hypot": method_of(M.hypot), "hypot_": inplace_of(M.hypot, _method=True),
    "logaddexp": method_of(M.logaddexp),
    "heaviside": method_of(M.heaviside),
    "heaviside_": inplace_of(M.heaviside, _method=True, _op="heaviside_"),
    "maximum": M.maximum, "minimum": M.minimum,
    # ------------------------------------------------ clamps, masks, logic
    "clamp": M.clamp, "clamp_": inplace_of(M.clamp),
    "clamp_min": M.clamp_min, "clamp_min_": inplace_of(M.clamp_min, check=M.check_clamp_inplace),
    "clamp_max": M.clamp_max, "clamp_max_": inplace_of(M.clamp_max, check=M.check_clamp_inplace),
    "masked_fill": M.masked_fill, "masked_fill_": inplace_of(M.masked_fill, check_first=True),
    "logical_not": M.logical_not, "logical_not_": inplace_of(M.logical_not, record=False),
    "logical_and": method_of(M.logical_and),
    "logical_and_": inplace_of(M.logical_and, record=False, _method=True),
    "logical_or": method_of(M.logical_or),
    "logical_or_": inplace_of(M.logical_or, record=False, _method=True),
    "logical_xor": method_of(M.logical_xor),
    "logical_xor_": inplace_of(M.logical_xor, record=False, _method=True),
    # ------------------------------------------------ reductions
    "sum": R.sum, "mean": R.mean, "prod": R.prod, "var": R.var, "std": R.std, "norm": R.norm,
    "dist": method_of(R.dist), "logsumexp": R.logsumexp,
    "max": R.max, "min": R.min, "amax": R.amax, "amin": R.amin, "aminmax": R.aminmax,
    "argmax": R.argmax, "argmin": R.argmin, "median": R.median,
    "any": R.any, "all": R.all, "count_nonzero": R.count_nonzero,
    "sum_to_size": with_shape(S.sum_to_size),
    # ------------------------------------------------ sorting and scans
    "sort": R.sort, "argsort": R.argsort, "topk": R.topk,
    "cumsum": R.cumsum, "cumsum_": inplace_of(R.cumsum),
    "cumprod": R.cumprod, "cumprod_": inplace_of(R.cumprod),
    "logcumsumexp": R.logcumsumexp, "diff": R.diff,
    "softmax": logarithmic.softmax, "log_softmax": logarithmic.log_softmax,
    # ------------------------------------------------ views and shapes
    "view": S.view, "view_as": S.view_as, "reshape": with_shape(S.reshape), "reshape_as": S.reshape_as,
    "flatten": S.flatten, "unflatten": S.unflatten, "squeeze": S.squeeze, "unsqueeze": S.unsqueeze,
    "expand": with_shape(S.expand), "expand_as": S.expand_as, "broadcast_to": S.broadcast_to,
    "transpose": S.transpose, "t": S.t, "permute": with_shape(S.permute),
    "T": property(S.numpy_T), "mT": property(S.mT),
    "movedim": S.movedim, "swapaxes": S.swapaxes,
    "chunk": S.chunk, "split": S.split, "unbind": S.unbind,
    "flip": with_shape(S.flip), "roll": S.roll, "repeat": with_shape(S.repeat), "tile": with_shape(S.tile),
    "diag": S.diag, "diagonal": S.diagonal, "trace": S.trace,
    "tril": S.tril, "tril_": inplace_of(S.tril, check_first=True),
    "triu": S.triu, "triu_": inplace_of(S.triu, check_first=True),
    # ------------------------------------------------ indexing
    "gather": I.gather, "scatter": I.scatter, "scatter_": I.scatter_,
    "scatter_add": I.scatter_add, "scatter_add_": inplace_of(I.scatter_add, check_first=True),
    "index_select": I.index_select,
    "index_add": I.index_add, "index_add_": inplace_of(I.index_add, check_first=True),
    "index_copy": I.index_copy, "index_copy_": inplace_of(I.index_copy, check_first=True),
    "masked_select": I.masked_select, "take": I.take, "nonzero": I.nonzero,
    # ------------------------------------------------ products
    "matmul": L.matmul, "mm": L.mm, "bmm": L.bmm, "mv": L.mv, "dot": L.dot, "outer": L.outer, "kron": L.kron,
    "addmm": L.addmm, "addmm_": L.addmm_, "addmv": L.addmv, "addmv_": L.addmv_,
    "baddbmm": L.baddbmm, "baddbmm_": L.baddbmm_,
}

# PyTorch's other names for the same methods
ALIASES = {
    "clip": "clamp", "clip_": "clamp_", "fix": "trunc", "fix_": "trunc_",
    "arcsin": "asin", "arcsin_": "asin_", "arccos": "acos", "arccos_": "acos_", "arctan": "atan",
    "arctan_": "atan_", "arcsinh": "asinh", "arcsinh_": "asinh_", "arccosh": "acosh", "arccosh_": "acosh_",
    "arctanh": "atanh", "arctanh_": "atanh_", "arctan2": "atan2", "arctan2_": "atan2_",
    "moveaxis": "movedim", "swapdims": "swapaxes",
}


def install() -> None:
    """Set every entry of the table on ``Tensor`` (the package does this once, at import)."""
    for name, fn in {**METHODS, **{alias: METHODS[name] for alias, name in ALIASES.items()}}.items():
        if name in vars(Tensor):
            raise RuntimeError(f"Tensor.{name} is defined in tensor.py and in the methods table")
        setattr(Tensor, name, fn)


install()
