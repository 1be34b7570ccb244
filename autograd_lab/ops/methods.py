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

Python's binary operators (``x + y``, ``x @ y``, ...) answer ``NotImplemented`` to an operand they
cannot take, as PyTorch's do, so that Python asks the other operand (``W @ d`` runs
``d.__rmatmul__(W)`` for a class of one's own, such as notebook 09's dual numbers) or raises
"unsupported operand type(s)".
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import creation, engine, grad_mode
from ..dtypes import size_arg
from ..grad_mode import no_grad
from ..tensor import Tensor
from . import (
    arithmetic,
    comparison,
    copies,
    indexing,
    linalg,
    logarithmic,
    pointwise,
    reduction,
    scan,
    shape,
    sorting,
    view,
)
from .inplace import _check_inplace, _repeats, fill_inplace, inplace, refresh_view, ufunc_inplace


def inplace_of(fn: Callable[..., Tensor], *, check_first: bool = False, check: Callable | None = None,
               record: bool = True, ufunc: np.ufunc | None = None, **fixed: Any) -> Callable[..., Tensor]:
    """``x.f_(*args)``: ``f(x, *args)`` written into ``x``.

    ``check_first``: run ``f`` once on detached copies first, so that bad arguments fail with the op's
    own error before any rule of in-place changes does (as in PyTorch); ``check(x, *args)``: a check
    of its own. ``record=False``: never recorded by autograd (PyTorch's in-place logical ops).
    ``ufunc``: ``f``'s NumPy kernel, applied to the array directly where nothing is recorded
    (:func:`autograd_lab.ops.inplace.ufunc_inplace`).
    """

    name = fn.__name__

    @functools.wraps(fn)
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        if ufunc is not None and len(args) == 1 and (not kwargs or kwargs.keys() == {"alpha"}) and (
                ufunc_inplace(self, ufunc, args[0], **kwargs)):
            return self
        kwargs.update(fixed)
        try:
            # a function whose arguments must be tensors (_method) checks them first when one is not:
            # PyTorch's argument parser comes before autograd's rules of in-place changes
            if check_first or fixed.get("_method") and not all(isinstance(a, Tensor) for a in args):
                fn(self.detach(), *(a.detach() if isinstance(a, Tensor) else a for a in args), **kwargs)
            if check is not None:
                check(self, *args, **kwargs)
            if not record:
                with no_grad():
                    return inplace(self, fn, *args, **kwargs)
            return inplace(self, fn, *args, **kwargs)
        except TypeError as e:  # the argument parser's errors name the method: "addcmul_(): ..."
            if str(e).startswith(f"{name}("):
                raise TypeError(f"{name}_{str(e)[len(name):]}") from None
            raise

    return method


_masked_fill_checked = inplace_of(comparison.masked_fill, check_first=True)


def _masked_fill_(self: Tensor, mask: Any, value: Any) -> Tensor:
    """``x.masked_fill_(mask, value)``; on an expanded tensor PyTorch warns, then writes every repeat."""
    if not _repeats(self._data):
        return _masked_fill_checked(self, mask, value)
    if grad_mode.is_grad_enabled():
        _check_inplace(self, (mask, value))  # autograd's errors (a view of a leaf, ...) before the warning
    comparison.masked_fill(self.detach(), mask, value)  # (the op's own errors)
    warnings.warn("Use of masked_fill_ on expanded tensors is deprecated. Please clone() the tensor before "
                  "performing this operation. This also applies to advanced indexing e.g. tensor[mask] = "
                  "scalar", UserWarning, stacklevel=2)
    return fill_inplace(self, comparison.masked_fill, mask, value)


_copy_checked = inplace_of(copies.copy_from)


def _copy_(self: Tensor, src: Any, non_blocking: bool = False) -> Tensor:
    """``x.copy_(src)`` (``non_blocking`` changes nothing on a CPU). ``src`` the very same data
    (``x.copy_(x)``, an expanded ``x`` too) is left as it is: PyTorch's kernel returns before its overlap
    checks; with nothing to record, the version counts; else autograd records the copy as any other,
    elements that repeat in memory and all (its backward then refuses them, as PyTorch's)."""
    if type(src) is Tensor and not self._is_inference and _same_data(self._data, src._data):
        if not (grad_mode.is_grad_enabled() and (self.requires_grad or src.requires_grad)):
            self._version_counter.value += 1
            return self
        return fill_inplace(self, copies.copy_from, src)
    return _copy_checked(self, src)


def _same_data(a: np.ndarray, b: np.ndarray) -> bool:
    return (a.__array_interface__["data"][0] == b.__array_interface__["data"][0] and a.shape == b.shape
            and a.strides == b.strides and a.dtype == b.dtype)


def _clamp_(self: Tensor, min: Any = None, max: Any = None) -> Tensor:
    """``x.clamp_(min, max)``: the bounds go to :func:`inplace` by position, where it looks for inputs
    that require grad (``d.clamp_(min=x)`` is recorded when ``x`` requires grad)."""
    return inplace(self, comparison.clamp, min, max)


def reflected(fn: Callable[[Any, Any], Tensor]) -> Callable[[Tensor, Any], Tensor]:
    """``other <op> x`` with ``x`` on the right: ``fn(other, x)``."""

    @functools.wraps(fn)
    def method(self: Tensor, other: Any) -> Tensor:
        return fn(other, self)

    return method


def operator(fn: Callable[[Tensor, Any], Tensor],
             fast: tuple | None = None) -> Callable[[Tensor, Any], Any]:
    """A binary operator: a TypeError (an operand of another kind) becomes ``NotImplemented``. With
    ``fast`` (the op's Function, ufunc and number of arguments), ``x * y`` tries the op's fast path
    (:func:`autograd_lab.ops.arithmetic._fast`) itself first: one call less on the commonest ops."""
    if fast is not None:
        cls, ufunc, nargs = fast
        quick = arithmetic._fast

        @functools.wraps(fn)
        def method(self: Tensor, other: Any) -> Any:
            if (out := quick(cls, ufunc, self, other, nargs)) is not None:
                return out
            try:
                return fn(self, other)
            except TypeError:
                return NotImplemented

        return method

    @functools.wraps(fn)
    def method(self: Tensor, other: Any) -> Any:
        try:
            return fn(self, other)
        except TypeError:
            return NotImplemented

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
        return comparison.non_differentiable(ufunc, self, other)

    method.__doc__ = f"Elementwise ``numpy.{ufunc.__name__}``: a bool tensor outside autograd."
    return method


def method_of(fn: Callable[..., Tensor]) -> Callable[..., Tensor]:
    """``fn`` with ``_method=True``: its argument errors are PyTorch's for the method."""

    @functools.wraps(fn)
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        return fn(self, *args, _method=True, **kwargs)

    return method


# (operator's fast paths: Function, ufunc, number of arguments)
_ADD, _SUB = (arithmetic.Add, np.add, 3), (arithmetic.Sub, np.subtract, 3)
_MUL, _DIV = (arithmetic.Mul, np.multiply, 2), (arithmetic.Div, np.true_divide, 2)

METHODS: dict[str, Any] = {
    # ------------------------------------------------ Python's operators
    "__add__": operator(arithmetic.add, _ADD), "__radd__": operator(arithmetic.add, _ADD),
    "__iadd__": inplace_of(arithmetic.add, ufunc=np.add),
    "__sub__": operator(arithmetic.sub, _SUB), "__rsub__": operator(arithmetic.rsub),
    "__isub__": inplace_of(arithmetic.sub, ufunc=np.subtract),
    "__mul__": operator(arithmetic.mul, _MUL), "__rmul__": operator(arithmetic.mul, _MUL),
    "__imul__": inplace_of(arithmetic.mul, ufunc=np.multiply),
    "__truediv__": operator(arithmetic.div, _DIV), "__rtruediv__": operator(arithmetic.rtruediv),
    "__itruediv__": inplace_of(arithmetic.div),
    "__floordiv__": operator(arithmetic.floor_divide),
    "__rfloordiv__": operator(reflected(arithmetic.floor_divide)),
    "__mod__": operator(arithmetic.remainder), "__rmod__": operator(reflected(arithmetic.remainder)),
    "__pow__": operator(arithmetic.pow), "__rpow__": operator(reflected(arithmetic.pow)),
    "__matmul__": operator(linalg.matmul), "__rmatmul__": operator(reflected(linalg.matmul)),
    "__neg__": arithmetic.neg,
    "__abs__": pointwise.abs,
    "__invert__": comparison.bitwise_not,
    "__eq__": compare(np.equal),
    "__ne__": compare(np.not_equal),
    "__lt__": compare(np.less),
    "__le__": compare(np.less_equal),
    "__gt__": compare(np.greater),
    "__ge__": compare(np.greater_equal),
    "__and__": compare(np.logical_and),
    "__or__": compare(np.logical_or),
    "__getitem__": indexing.getitem,
    "__setitem__": indexing.setitem,
    "eq": compare(np.equal),
    "ne": compare(np.not_equal),
    "lt": compare(np.less),
    "le": compare(np.less_equal),
    "gt": compare(np.greater),
    "ge": compare(np.greater_equal),
    # ------------------------------------------------ autograd
    "backward": engine.tensor_backward,
    "_refresh_view": refresh_view,  # read by Tensor.grad_fn: a view whose base changed in place
    "_is_view": lambda self: self._base is not None,  # PyTorch's: whether the tensor is a view of another
    # ------------------------------------------------ conversions and copies
    "to": copies.to,
    "type": copies.tensor_type,
    "type_as": copies.type_as,
    "float": copies.converter("float32"),
    "double": copies.converter("float64"),
    "half": copies.converter("float16"),
    "long": copies.converter("int64"),
    "int": copies.converter("int32"),
    "bool": copies.converter("bool"),
    "clone": copies.clone,
    "contiguous": copies.contiguous,
    "copy_": _copy_,
    "fill_": copies.fill_,
    "zero_": copies.zero_,
    "equal": comparison.equal,
    "allclose": comparison.allclose,
    "isclose": comparison.isclose,
    "new_tensor": creation.new_tensor,
    "new_full": creation.new_full,
    "new_zeros": creation.new_zeros,
    "new_ones": creation.new_ones,
    "new_empty": creation.new_empty,
    "uniform_": creation.uniform_,
    "normal_": creation.normal_,
    "bernoulli_": creation.bernoulli_,
    # ------------------------------------------------ arithmetic
    "add": arithmetic.add, "add_": inplace_of(arithmetic.add, ufunc=np.add),
    "sub": arithmetic.sub, "sub_": inplace_of(arithmetic.sub, ufunc=np.subtract),
    "mul": arithmetic.mul, "mul_": inplace_of(arithmetic.mul, ufunc=np.multiply),
    "div": arithmetic.div, "div_": inplace_of(arithmetic.div),
    "neg": arithmetic.neg, "neg_": inplace_of(arithmetic.neg),
    "reciprocal": arithmetic.reciprocal, "reciprocal_": inplace_of(arithmetic.reciprocal),
    "pow": arithmetic.pow, "pow_": inplace_of(arithmetic.pow),
    "square": arithmetic.square, "square_": inplace_of(arithmetic.square),
    "remainder": arithmetic.remainder, "remainder_": inplace_of(arithmetic.remainder),
    "fmod": arithmetic.fmod, "fmod_": inplace_of(arithmetic.fmod),
    "floor_divide": arithmetic.floor_divide,
    "floor_divide_": inplace_of(arithmetic.floor_divide, _op="floor_divide_"),
    "lerp": arithmetic.lerp, "lerp_": inplace_of(arithmetic.lerp),
    "addcmul": method_of(arithmetic.addcmul), "addcmul_": inplace_of(arithmetic.addcmul, _method=True),
    "addcdiv": method_of(arithmetic.addcdiv), "addcdiv_": inplace_of(arithmetic.addcdiv, _method=True),
    # ------------------------------------------------ functions of one tensor
    "exp": pointwise.exp, "exp_": inplace_of(pointwise.exp),
    "deg2rad": pointwise.deg2rad, "deg2rad_": inplace_of(pointwise.deg2rad),
    "rad2deg": pointwise.rad2deg, "rad2deg_": inplace_of(pointwise.rad2deg),
    "positive": arithmetic.positive,
    "exp2": pointwise.exp2, "exp2_": inplace_of(pointwise.exp2),
    "expm1": pointwise.expm1, "expm1_": inplace_of(pointwise.expm1),
    "log": pointwise.log, "log_": inplace_of(pointwise.log),
    "log2": pointwise.log2, "log2_": inplace_of(pointwise.log2),
    "log10": pointwise.log10, "log10_": inplace_of(pointwise.log10),
    "log1p": pointwise.log1p, "log1p_": inplace_of(pointwise.log1p),
    "logit": pointwise.logit, "logit_": inplace_of(pointwise.logit),
    "sqrt": pointwise.sqrt, "sqrt_": inplace_of(pointwise.sqrt),
    "rsqrt": pointwise.rsqrt, "rsqrt_": inplace_of(pointwise.rsqrt),
    "abs": pointwise.abs, "abs_": inplace_of(pointwise.abs),
    "sign": pointwise.sign, "sign_": inplace_of(pointwise.sign), "sgn": pointwise.sgn,
    "sin": pointwise.sin, "sin_": inplace_of(pointwise.sin),
    "cos": pointwise.cos, "cos_": inplace_of(pointwise.cos),
    "tan": pointwise.tan, "tan_": inplace_of(pointwise.tan),
    "asin": pointwise.asin, "asin_": inplace_of(pointwise.asin),
    "acos": pointwise.acos, "acos_": inplace_of(pointwise.acos),
    "atan": pointwise.atan, "atan_": inplace_of(pointwise.atan),
    "sinh": pointwise.sinh, "sinh_": inplace_of(pointwise.sinh),
    "cosh": pointwise.cosh, "cosh_": inplace_of(pointwise.cosh),
    "tanh": pointwise.tanh, "tanh_": inplace_of(pointwise.tanh),
    "asinh": pointwise.asinh, "asinh_": inplace_of(pointwise.AsinhInplace.apply),
    "acosh": pointwise.acosh, "acosh_": inplace_of(pointwise.AcoshInplace.apply),
    "atanh": pointwise.atanh, "atanh_": inplace_of(pointwise.AtanhInplace.apply),
    "sigmoid": pointwise.sigmoid, "sigmoid_": inplace_of(pointwise.sigmoid),
    "relu": pointwise.relu, "relu_": inplace_of(pointwise.relu),
    "erf": pointwise.erf, "erf_": inplace_of(pointwise.erf),
    "erfc": pointwise.erfc, "erfc_": inplace_of(pointwise.erfc),
    "erfinv": pointwise.erfinv, "erfinv_": inplace_of(pointwise.erfinv),
    "floor": pointwise.floor, "floor_": inplace_of(pointwise.floor),
    "ceil": pointwise.ceil, "ceil_": inplace_of(pointwise.ceil),
    "round": pointwise.round, "round_": inplace_of(pointwise.round),
    "trunc": pointwise.trunc, "trunc_": inplace_of(pointwise.trunc),
    "frac": pointwise.frac, "frac_": inplace_of(pointwise.frac),
    "nan_to_num": pointwise.nan_to_num, "nan_to_num_": inplace_of(pointwise.nan_to_num),
    "isnan": comparison.isnan,
    "isinf": comparison.isinf,
    "isposinf": comparison.isposinf, "isneginf": comparison.isneginf, "signbit": comparison.signbit,
    "isfinite": comparison.isfinite,
    # ------------------------------------------------ functions of two tensors
    "atan2": method_of(pointwise.atan2), "atan2_": inplace_of(pointwise.atan2, _method=True),
    "hypot": method_of(pointwise.hypot), "hypot_": inplace_of(pointwise.hypot, _method=True),
    "logaddexp": method_of(pointwise.logaddexp), "logaddexp2": method_of(pointwise.logaddexp2),
    "xlogy": pointwise.xlogy, "xlogy_": inplace_of(pointwise.xlogy),
    "sinc": pointwise.sinc, "sinc_": inplace_of(pointwise.sinc),
    "lgamma": pointwise.lgamma, "lgamma_": inplace_of(pointwise.lgamma),
    "digamma": pointwise.digamma, "digamma_": inplace_of(pointwise.digamma),
    "polygamma": lambda self, n: pointwise.polygamma(n, self), "polygamma_": pointwise.polygamma_,
    "heaviside": method_of(pointwise.heaviside),
    "heaviside_": inplace_of(pointwise.heaviside, _method=True, _op="heaviside_"),
    "maximum": method_of(comparison.maximum), "minimum": method_of(comparison.minimum),
    "fmax": method_of(comparison.fmax), "fmin": method_of(comparison.fmin),
    # ------------------------------------------------ clamps, masks, logic
    "clamp": comparison.clamp, "clamp_": _clamp_,
    "clamp_min": comparison.clamp_min,
    "clamp_min_": inplace_of(comparison.clamp_min, check=comparison.check_clamp_inplace),
    "clamp_max": comparison.clamp_max,
    "clamp_max_": inplace_of(comparison.clamp_max, check=comparison.check_clamp_inplace),
    "masked_fill": comparison.masked_fill,
    "masked_fill_": _masked_fill_,
    "logical_not": comparison.logical_not, "logical_not_": inplace_of(comparison.logical_not, record=False),
    "logical_and": method_of(comparison.logical_and),
    "logical_and_": inplace_of(comparison.logical_and, record=False, _method=True),
    "logical_or": method_of(comparison.logical_or),
    "logical_or_": inplace_of(comparison.logical_or, record=False, _method=True),
    "logical_xor": method_of(comparison.logical_xor),
    "logical_xor_": inplace_of(comparison.logical_xor, record=False, _method=True),
    # ------------------------------------------------ reductions
    "sum": reduction.sum,
    "nansum": reduction.nansum, "nanmean": reduction.nanmean,
    "mean": reduction.mean,
    "prod": reduction.prod,
    "var": reduction.var,
    "std": reduction.std,
    "norm": reduction.norm,
    "dist": method_of(reduction.dist),
    "logsumexp": logarithmic.logsumexp,
    "max": reduction.max,
    "min": reduction.min,
    "amax": reduction.amax,
    "amin": reduction.amin,
    "aminmax": reduction.aminmax,
    "argmax": reduction.argmax,
    "argmin": reduction.argmin,
    "median": sorting.median,
    "any": reduction.any,
    "all": reduction.all,
    "count_nonzero": reduction.count_nonzero,
    "sum_to_size": with_shape(reduction.sum_to_size),
    # ------------------------------------------------ sorting and scans
    "sort": sorting.sort,
    "argsort": sorting.argsort,
    "topk": sorting.topk,
    "unique": sorting.unique,
    "kthvalue": method_of(sorting.kthvalue), "mode": method_of(sorting.mode),
    "nanmedian": method_of(sorting.nanmedian),
    "quantile": method_of(sorting.quantile), "nanquantile": method_of(sorting.nanquantile),
    "cumsum": scan.cumsum, "cumsum_": inplace_of(scan.cumsum),
    "cummax": scan.cummax, "cummin": scan.cummin,
    "cumprod": scan.cumprod, "cumprod_": inplace_of(scan.cumprod),
    "logcumsumexp": scan.logcumsumexp,
    "diff": scan.diff,
    "softmax": logarithmic.softmax,
    "log_softmax": logarithmic.log_softmax,
    # ------------------------------------------------ views and shapes
    "view": view.view,
    "view_as": view.view_as,
    "reshape": with_shape(view.reshape), "ravel": copies.ravel,
    "reshape_as": view.reshape_as,
    "flatten": view.flatten,
    "unflatten": view.unflatten,
    "squeeze": view.squeeze,
    "unsqueeze": view.unsqueeze,
    "expand": with_shape(view.expand), "as_strided": view.as_strided,
    "expand_as": view.expand_as,
    "broadcast_to": view.broadcast_to,
    "transpose": view.transpose,
    "t": view.t,
    "permute": with_shape(view.permute),
    "T": property(view.numpy_T),
    "mT": property(view.mT),
    "movedim": view.movedim,
    "swapaxes": view.swapaxes,
    "chunk": shape.chunk, "narrow": indexing.narrow, "select": indexing.select,
    "index_put": indexing.index_put, "index_put_": indexing.index_put_,
    "split": shape.split, "unbind": shape.unbind,
    "flip": with_shape(shape.flip), "fliplr": shape.fliplr, "flipud": shape.flipud, "rot90": shape.rot90,
    "tensor_split": shape.tensor_split, "hsplit": shape.hsplit, "vsplit": shape.vsplit,
    "dsplit": shape.dsplit,
    "take_along_dim": indexing.take_along_dim, "msort": sorting.msort,
    "argwhere": indexing.argwhere, "bincount": comparison.bincount, "float_power": arithmetic.float_power,
    "roll": shape.roll,
    "repeat": with_shape(shape.repeat),
    "tile": with_shape(shape.tile),
    "diag": shape.diag,
    "diag_embed": method_of(shape.diag_embed),
    "repeat_interleave": method_of(shape.repeat_interleave),
    "diagonal": view.diagonal,
    "trace": shape.trace,
    "tril": shape.tril, "tril_": inplace_of(shape.tril, check_first=True),
    "triu": shape.triu, "triu_": inplace_of(shape.triu, check_first=True),
    # ------------------------------------------------ indexing
    "gather": indexing.gather,
    "scatter": indexing.scatter, "scatter_": indexing.scatter_,
    "scatter_add": indexing.scatter_add, "scatter_add_": inplace_of(indexing.scatter_add, check_first=True),
    "index_select": indexing.index_select,
    "index_fill": indexing.index_fill, "index_fill_": inplace_of(indexing.index_fill, check_first=True),
    "index_add": indexing.index_add, "index_add_": inplace_of(indexing.index_add, check_first=True),
    "index_copy": indexing.index_copy, "index_copy_": inplace_of(indexing.index_copy, check_first=True),
    "masked_select": indexing.masked_select,
    "take": indexing.take,
    "nonzero": indexing.nonzero,
    # ------------------------------------------------ products
    "matmul": linalg.matmul,
    "mm": linalg.mm,
    "bmm": linalg.bmm,
    "mv": linalg.mv,
    "dot": linalg.dot,
    "outer": linalg.outer, "ger": linalg.outer,
    "kron": linalg.kron,
    "addmm": linalg.addmm, "addmm_": linalg.addmm_,
    "addmv": linalg.addmv, "addmv_": linalg.addmv_,
    "baddbmm": linalg.baddbmm, "baddbmm_": linalg.baddbmm_,
    "cross": linalg.cross, "inner": linalg.inner,
    "det": linalg.det, "slogdet": linalg.slogdet, "inverse": linalg.inverse,
}

# PyTorch's other names for the same methods
ALIASES = {
    "clip": "clamp", "clip_": "clamp_", "fix": "trunc", "fix_": "trunc_",
    "arcsin": "asin", "arcsin_": "asin_", "arccos": "acos", "arccos_": "acos_", "arctan": "atan",
    "arctan_": "atan_", "arcsinh": "asinh", "arcsinh_": "asinh_", "arccosh": "acosh", "arccosh_": "acosh_",
    "arctanh": "atanh", "arctanh_": "atanh_", "arctan2": "atan2", "arctan2_": "atan2_",
    "moveaxis": "movedim", "swapdims": "swapaxes",
    "absolute": "abs", "absolute_": "abs_", "multiply": "mul", "multiply_": "mul_", "divide": "div",
    "divide_": "div_", "true_divide": "div", "true_divide_": "div_", "subtract": "sub", "subtract_": "sub_",
    "negative": "neg", "negative_": "neg_", "greater": "gt", "less": "lt", "greater_equal": "ge",
    "less_equal": "le", "not_equal": "ne",
}


def install() -> None:
    """Set every entry of the table on ``Tensor`` (the package does this once, at import)."""
    for name, fn in {**METHODS, **{alias: METHODS[name] for alias, name in ALIASES.items()}}.items():
        if name in vars(Tensor):
            raise RuntimeError(f"Tensor.{name} is defined in tensor.py and in the methods table")
        setattr(Tensor, name, fn)


install()
