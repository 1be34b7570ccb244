"""``Tensor``: an n-dimensional array that can record the operations made on it.

A tensor wraps a NumPy array (``_data``) and carries the autograd state PyTorch's tensors carry:

- ``requires_grad``: whether operations on it are recorded;
- ``grad_fn``: the node of the backward graph that made it (None for a leaf, a tensor the user made);
- ``grad``: where backward accumulates the gradient of a leaf;
- ``_version``: a counter bumped by every in-place change, so that backward can refuse to use a
  value that was overwritten after it was saved.

The operations themselves live in :mod:`autograd_lab.ops`; the methods here only dispatch to them.
"""

from __future__ import annotations

import builtins
import warnings
import weakref
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from . import dtypes
from ._tensor_str import tensor_repr
from .dtypes import Size
from .grad_mode import is_grad_enabled, no_grad

_NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute "
    "won't be populated during autograd.backward(). If you indeed want the .grad field to be populated "
    "for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor "
    "by mistake, make sure you access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 "
    "for more information."
)


class _VersionCounter:
    """Counts in-place changes; shared by a tensor and its views."""

    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value = 0


class RemovableHandle:
    """What ``register_hook`` returns: ``handle.remove()`` takes the hook away again."""

    def __init__(self, hooks: dict, key: int) -> None:
        self._hooks = hooks
        self._key = key

    def remove(self) -> None:
        self._hooks.pop(self._key, None)


_hook_ids = iter(range(1 << 62))


class Tensor:
    """A multi-dimensional array with autograd (``torch.Tensor``).

    ``Tensor(data)`` makes a float tensor like ``torch.Tensor``; prefer :func:`autograd_lab.tensor`.
    """

    __array_priority__ = 1000  # NumPy arrays defer to Tensor in mixed arithmetic

    def __init__(self, data: Any = (), *, requires_grad: bool = False, name: str | None = None):
        _init(self, np.array(_to_array(data), dtype=dtypes.get_default_dtype().np), requires_grad)
        if name is not None:
            self.name = name

    @classmethod
    def _make(
        cls,
        data: np.ndarray,
        requires_grad: bool = False,
        grad_fn: Any = None,
        output_nr: int = 0,
    ) -> Tensor:
        """Wrap an ndarray without copying (the fast path every op uses).

        NumPy returns scalars, not 0-d arrays, from operations on 0-d arrays: those are wrapped in
        an array here, so that ``_data`` is always a (writable) ndarray.
        """
        t = object.__new__(cls)
        _init(t, data if type(data) is np.ndarray else np.asarray(data), requires_grad)
        t._grad_fn = grad_fn
        t.output_nr = output_nr
        return t

    # ------------------------------------------------------------------ metadata
    @property
    def shape(self) -> Size:
        return Size(self._data.shape)

    def size(self, dim: int | None = None) -> Any:
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[_wrap_dim(dim, self.ndim)]

    @property
    def ndim(self) -> int:
        return self._data.ndim

    def dim(self) -> int:
        return self._data.ndim

    def numel(self) -> int:
        return int(self._data.size)

    nelement = numel

    @property
    def dtype(self) -> dtypes.dtype:
        return dtypes.from_numpy_dtype(self._data.dtype)

    @property
    def device(self) -> dtypes.device:
        return dtypes.device("cpu")

    @property
    def is_cuda(self) -> bool:
        return False

    def is_floating_point(self) -> bool:
        return self._data.dtype.kind == "f"

    def element_size(self) -> int:
        return self._data.itemsize

    def is_contiguous(self) -> bool:
        return bool(self._data.flags.c_contiguous)

    def stride(self, dim: int | None = None) -> Any:
        """The step in elements between neighbours along each dimension."""
        steps = tuple(s // self._data.itemsize for s in self._data.strides)
        return steps if dim is None else steps[_wrap_dim(dim, self.ndim)]

    def data_ptr(self) -> int:
        """The memory address of the first element (views of one tensor share its memory)."""
        return self._data.__array_interface__["data"][0]

    @property
    def _version(self) -> int:
        return self._version_counter.value

    # ------------------------------------------------------------------ autograd state
    @property
    def grad_fn(self) -> Any:
        """The node that made this tensor (None for a leaf).

        A view whose base changed in place since its history was recorded gets a new one here,
        ``AsStridedBackward0`` of the base, as in PyTorch: the old history would ignore the change.
        """
        meta = self._view_meta
        if meta is not None and meta.version != self._version_counter.value:
            _refresh_view(self)
        return self._grad_fn

    @grad_fn.setter
    def grad_fn(self, node: Any) -> None:
        self._grad_fn = node

    @property
    def is_leaf(self) -> bool:
        """True for tensors the user made, and for every tensor that does not require grad."""
        return self.grad_fn is None

    @property
    def requires_grad(self) -> bool:
        return self._requires_grad or self.grad_fn is not None

    @requires_grad.setter
    def requires_grad(self, flag: bool) -> None:
        if self.grad_fn is not None:
            if flag:
                return
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use a computed "
                "variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach()."
            )
        if flag and self._data.dtype.kind not in "fc":
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        self._requires_grad = bool(flag)

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        self.requires_grad = requires_grad
        return self

    @property
    def grad(self) -> Tensor | None:
        """The accumulated gradient of a leaf; None (with PyTorch's warning) on a non-leaf that was
        not asked to keep one (``retain_grad()`` or ``backward(inputs=[it])``)."""
        if self.grad_fn is not None and not self._retains_grad and self._grad is None:
            warnings.warn(_NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(
                    f"assigned grad expected to be a Tensor or None but got grad of type "
                    f"{type(value).__name__}"
                )
            if value.shape != self.shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{_shape_str(value.shape)}' to a tensor "
                    f"of size '{_shape_str(self.shape)}'. Please ensure that the gradient and the "
                    "tensor are the same size"
                )
            if value.dtype is not self.dtype:
                raise RuntimeError("assigned grad has data of a different type")
        self._grad = value

    @grad.deleter
    def grad(self) -> None:
        self._grad = None

    @property
    def retains_grad(self) -> bool:
        return self._retains_grad

    def retain_grad(self) -> None:
        """Ask backward to fill ``.grad`` of this non-leaf tensor too (a no-op on leaves)."""
        if self.grad_fn is None:
            if not self._requires_grad:
                raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
            return
        self._retains_grad = True
        self.grad_fn._retained[self.output_nr] = weakref.ref(self)

    def register_hook(self, hook: Callable[[Tensor], Tensor | None]) -> RemovableHandle:
        """Call ``hook(grad)`` when the gradient of this tensor is computed.

        The hook may return a new gradient, which replaces the old one from there on.
        """
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        key = next(_hook_ids)
        if self.grad_fn is None:
            hooks = self._leaf_hooks
        else:
            hooks = self.grad_fn._tensor_hooks.setdefault(self.output_nr, {})
        hooks[key] = hook
        return RemovableHandle(hooks, key)

    def backward(
        self,
        gradient: Tensor | None = None,
        retain_graph: bool | None = None,
        create_graph: bool = False,
        inputs: Sequence[Tensor] | Tensor | None = None,
    ) -> None:
        """Accumulate d(self)/d(leaf) into the ``.grad`` of every leaf of the graph.

        For a non-scalar ``self`` pass ``gradient``: the vector v of the vector-Jacobian product
        v^T J that backward computes.
        """
        from .engine import backward

        backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def detach(self) -> Tensor:
        """A new leaf sharing this tensor's data (and version counter), cut from the graph."""
        t = Tensor._make(self._data)
        t._version_counter = self._version_counter
        return t

    def detach_(self) -> Tensor:
        if self._base is not None and self._base.requires_grad:
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel "
                "(DDP) for training, and gradient_as_bucket_view is set as True, gradients are views of "
                "DDP buckets, and hence detach_() cannot be called on these gradients. To fix this error, "
                "please refer to the Optimizer.zero_grad() function in torch/optim/optimizer.py as the "
                "solution."
            )
        self.grad_fn = None
        self.output_nr = 0
        self._requires_grad = False
        return self

    @property
    def data(self) -> Tensor:
        """This tensor's values as a tensor outside autograd (changes through it are not tracked)."""
        return Tensor._make(self._data)

    @data.setter
    def data(self, value: Tensor) -> None:
        self._data = value._data if isinstance(value, Tensor) else np.asarray(value)

    # ------------------------------------------------------------------ conversion
    def numpy(self, *, force: bool = False) -> np.ndarray:
        """The ndarray behind this tensor (shared, not copied)."""
        if self.requires_grad and not force:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
            )
        return self._data

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        if self.requires_grad:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
            )
        return self._data if dtype is None else self._data.astype(dtype)

    def item(self) -> Any:
        if self._data.size != 1:
            raise RuntimeError(
                f"a Tensor with {self._data.size} elements cannot be converted to Scalar"
            )
        return self._data.reshape(()).item()

    def tolist(self) -> Any:
        return self._data.tolist()

    # ------------------------------------------------------------------ comparing whole tensors
    def equal(self, other: Tensor) -> bool:
        """True when both have the same shape and the same elements (``torch.equal``)."""
        return self._data.shape == other._data.shape and bool(np.array_equal(self._data, other._data))

    def allclose(self, other: Any, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> bool:
        return bool(np.allclose(self._data, other._data if isinstance(other, Tensor) else other,
                                rtol=rtol, atol=atol, equal_nan=equal_nan))

    def isclose(self, other: Any, rtol: float = 1e-05, atol: float = 1e-08,
                equal_nan: bool = False) -> Tensor:
        return Tensor._make(np.isclose(self._data, other._data if isinstance(other, Tensor) else other,
                                       rtol=rtol, atol=atol, equal_nan=equal_nan))

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __index__(self) -> int:
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __bool__(self) -> bool:
        if self._data.size > 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self.item())

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self) -> Iterator[Tensor]:
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._data.shape[0]))

    def __repr__(self) -> str:
        return tensor_repr(self)

    def __format__(self, spec: str) -> str:
        if self._data.ndim == 0:
            return self.item().__format__(spec)
        return object.__format__(self, spec)

    __hash__ = object.__hash__

    def __reduce_ex__(self, protocol: Any) -> Any:
        return (_rebuild, (self._data, self._requires_grad))

    # ------------------------------------------------------------------ dtype conversion
    def to(self, *args: Any, **kwargs: Any) -> Tensor:
        """``to(dtype)``, ``to('cpu')`` or ``to(other)``; returns self when nothing changes."""
        target = _to_target_dtype(args, kwargs)
        if target is None or target is self.dtype:
            return self
        return _ops.to_dtype(self, target)

    def type(self, dtype: dtypes.dtype | None = None) -> Any:
        if dtype is None:
            return _legacy_type_name(self.dtype)
        return self.to(dtype)

    def float(self) -> Tensor:
        return self.to(dtypes.float32)

    def double(self) -> Tensor:
        return self.to(dtypes.float64)

    def half(self) -> Tensor:
        return self.to(dtypes.float16)

    def long(self) -> Tensor:
        return self.to(dtypes.int64)

    def int(self) -> Tensor:
        return self.to(dtypes.int32)

    def bool(self) -> Tensor:
        return self.to(dtypes.bool)

    def type_as(self, other: Tensor) -> Tensor:
        return self.to(other.dtype)

    def cpu(self) -> Tensor:
        return self

    def cuda(self, *args: Any, **kwargs: Any) -> Tensor:
        raise RuntimeError("autograd_lab runs on the CPU only; there is no CUDA device here")

    # ------------------------------------------------------------------ arithmetic
    def __add__(self, other: Any) -> Tensor:
        return _ops.add(self, other)

    def __radd__(self, other: Any) -> Tensor:
        return _ops.add(self, other)

    def __sub__(self, other: Any) -> Tensor:
        return _ops.sub(self, other)

    def __rsub__(self, other: Any) -> Tensor:
        return _ops.rsub(self, other)

    def __mul__(self, other: Any) -> Tensor:
        return _ops.mul(self, other)

    def __rmul__(self, other: Any) -> Tensor:
        return _ops.mul(self, other)

    def __truediv__(self, other: Any) -> Tensor:
        return _ops.div(self, other)

    def __rtruediv__(self, other: Any) -> Tensor:
        return _ops.mul(_ops.reciprocal(self), other)

    def __neg__(self) -> Tensor:
        return _ops.neg(self)

    def __pos__(self) -> Tensor:
        return self

    def __pow__(self, exponent: Any) -> Tensor:
        return _ops.pow(self, exponent)

    def __rpow__(self, base: Any) -> Tensor:
        return _ops.pow(base, self)

    def __matmul__(self, other: Any) -> Tensor:
        return _ops.matmul(self, other)

    def __rmatmul__(self, other: Any) -> Tensor:
        return _ops.matmul(other, self)

    def __abs__(self) -> Tensor:
        return _ops.abs(self)

    def __floordiv__(self, other: Any) -> Tensor:
        return _ops.mathematic.floor_divide(self, other)

    def __rfloordiv__(self, other: Any) -> Tensor:
        return _ops.mathematic.floor_divide(other, self)

    def __mod__(self, other: Any) -> Tensor:
        return _ops.mathematic.remainder(self, other)

    def __rmod__(self, other: Any) -> Tensor:
        return _ops.mathematic.remainder(other, self)

    # comparisons give bool tensors and are not differentiable
    def __eq__(self, other: Any) -> Tensor:  # type: ignore[override]
        return _ops.non_differentiable(np.equal, self, other)

    def __ne__(self, other: Any) -> Tensor:  # type: ignore[override]
        return _ops.non_differentiable(np.not_equal, self, other)

    def __lt__(self, other: Any) -> Tensor:
        return _ops.non_differentiable(np.less, self, other)

    def __le__(self, other: Any) -> Tensor:
        return _ops.non_differentiable(np.less_equal, self, other)

    def __gt__(self, other: Any) -> Tensor:
        return _ops.non_differentiable(np.greater, self, other)

    def __ge__(self, other: Any) -> Tensor:
        return _ops.non_differentiable(np.greater_equal, self, other)

    def __and__(self, other: Any) -> Tensor:
        return _ops.non_differentiable(np.logical_and, self, other)

    def __or__(self, other: Any) -> Tensor:
        return _ops.non_differentiable(np.logical_or, self, other)

    def __invert__(self) -> Tensor:
        return _ops.non_differentiable(np.logical_not if self._data.dtype == np.bool_ else np.invert, self)

    eq = __eq__
    ne = __ne__
    lt = __lt__
    le = __le__
    gt = __gt__
    ge = __ge__

    # in-place arithmetic: PyTorch's rules on leaves, version counters and rebased history
    def __iadd__(self, other: Any) -> Tensor:
        return self.add_(other)

    def __isub__(self, other: Any) -> Tensor:
        return self.sub_(other)

    def __imul__(self, other: Any) -> Tensor:
        return self.mul_(other)

    def __itruediv__(self, other: Any) -> Tensor:
        return self.div_(other)

    def add_(self, other: Any, *, alpha: Any = 1) -> Tensor:
        other = other if alpha == 1 else _ops.mul(other, alpha)
        return _ops.inplace(self, _ops.add, other)

    def sub_(self, other: Any, *, alpha: Any = 1) -> Tensor:
        other = other if alpha == 1 else _ops.mul(other, alpha)
        return _ops.inplace(self, _ops.sub, other)

    def mul_(self, other: Any) -> Tensor:
        return _ops.inplace(self, _ops.mul, other)

    def div_(self, other: Any) -> Tensor:
        return _ops.inplace(self, _ops.div, other)

    def pow_(self, exponent: Any) -> Tensor:
        return _ops.inplace(self, _ops.pow, exponent)

    def clamp_(self, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
        return _ops.inplace(self, lambda t: _ops.clamp(t, min, max))

    def neg_(self) -> Tensor:
        return _ops.inplace(self, _ops.neg)

    def exp_(self) -> Tensor:
        return _ops.inplace(self, _ops.exp)

    def log_(self) -> Tensor:
        return _ops.inplace(self, _ops.log)

    def sqrt_(self) -> Tensor:
        return _ops.inplace(self, _ops.sqrt)

    def abs_(self) -> Tensor:
        return _ops.inplace(self, _ops.abs)

    def sin_(self) -> Tensor:
        return _ops.inplace(self, _ops.sin)

    def cos_(self) -> Tensor:
        return _ops.inplace(self, _ops.cos)

    def tanh_(self) -> Tensor:
        return _ops.inplace(self, _ops.tanh)

    def sigmoid_(self) -> Tensor:
        return _ops.inplace(self, _ops.sigmoid)

    def relu_(self) -> Tensor:
        return _ops.inplace(self, _ops.relu)

    def reciprocal_(self) -> Tensor:
        return _ops.inplace(self, _ops.reciprocal)

    def zero_(self) -> Tensor:
        return _ops.inplace(self, _ops.zero_like)

    def fill_(self, value: Any) -> Tensor:
        return _ops.inplace(self, lambda t: _ops.fill_like(t, value))

    def copy_(self, src: Any) -> Tensor:
        return _ops.inplace(self, _ops.copy_from, src)

    def uniform_(self, a: float = 0.0, b: float = 1.0, *, generator: Any = None) -> Tensor:
        """Fill with samples of U(a, b), PyTorch's for the same seed."""
        from .random import _generator

        if a > b:
            raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={a} > to={b}")
        values = _generator(generator).uniform(self._data.size, a, b, self._data.dtype)
        return _ops.inplace(self, lambda t: _ops.fill_like(t, values.reshape(self._data.shape)))

    def normal_(self, mean: float = 0.0, std: float = 1.0, *, generator: Any = None) -> Tensor:
        """Fill with samples of N(mean, std²), PyTorch's for the same seed."""
        from .random import _generator

        if std < 0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
        values = _generator(generator).normal(self._data.size, mean, std, self._data.dtype,
                                              contiguous=self._data.flags.c_contiguous)
        return _ops.inplace(self, lambda t: _ops.fill_like(t, values.reshape(self._data.shape)))

    def bernoulli_(self, p: Any = 0.5, *, generator: Any = None) -> Tensor:
        """Fill with 1 (probability ``p``, a number or a tensor of probabilities) or 0."""
        from .random import _generator

        gen = _generator(generator)
        if isinstance(p, Tensor):
            values = gen.bernoulli(np.broadcast_to(p._data, self._data.shape))
        else:
            if not 0 <= p <= 1:
                raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
            values = gen.bernoulli(float(p), self._data.shape)
        return _ops.inplace(self, lambda t: _ops.fill_like(t, values.astype(self._data.dtype)))

    def __setitem__(self, key: Any, value: Any) -> None:
        _ops.setitem(self, key, value)

    # ------------------------------------------------------------------ math
    def exp(self) -> Tensor:
        return _ops.exp(self)

    def log(self) -> Tensor:
        return _ops.log(self)

    def sqrt(self) -> Tensor:
        return _ops.sqrt(self)

    def abs(self) -> Tensor:
        return _ops.abs(self)

    def sin(self) -> Tensor:
        return _ops.sin(self)

    def cos(self) -> Tensor:
        return _ops.cos(self)

    def tanh(self) -> Tensor:
        return _ops.tanh(self)

    def sigmoid(self) -> Tensor:
        return _ops.sigmoid(self)

    def relu(self) -> Tensor:
        return _ops.relu(self)

    def reciprocal(self) -> Tensor:
        return _ops.reciprocal(self)

    def pow(self, exponent: Any) -> Tensor:
        return _ops.pow(self, exponent)

    def add(self, other: Any, *, alpha: Any = 1) -> Tensor:
        return _ops.add(self, other if alpha == 1 else _ops.mul(other, alpha))

    def sub(self, other: Any, *, alpha: Any = 1) -> Tensor:
        return _ops.sub(self, other if alpha == 1 else _ops.mul(other, alpha))

    def mul(self, other: Any) -> Tensor:
        return _ops.mul(self, other)

    def div(self, other: Any) -> Tensor:
        return _ops.div(self, other)

    def neg(self) -> Tensor:
        return _ops.neg(self)

    def matmul(self, other: Tensor) -> Tensor:
        return _ops.matmul(self, other)

    def mm(self, other: Tensor) -> Tensor:
        return _ops.mm(self, other)

    def mv(self, vec: Tensor) -> Tensor:
        return _ops.mv(self, vec)

    def bmm(self, other: Tensor) -> Tensor:
        return _ops.bmm(self, other)

    def dot(self, other: Tensor) -> Tensor:
        return _ops.dot(self, other)

    def clamp(self, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002 - PyTorch's names
        return _ops.clamp(self, min, max)

    clip = clamp

    def maximum(self, other: Tensor) -> Tensor:
        return _ops.maximum(self, other)

    def minimum(self, other: Tensor) -> Tensor:
        return _ops.minimum(self, other)

    def masked_fill(self, mask: Tensor, value: Any) -> Tensor:
        return _ops.masked_fill(self, mask, value)

    def softmax(self, dim: int) -> Tensor:
        return _ops.softmax(self, dim)

    def log_softmax(self, dim: int) -> Tensor:
        return _ops.log_softmax(self, dim)

    def logsumexp(self, dim: Any, keepdim: bool = False) -> Tensor:
        return _ops.logsumexp(self, dim, keepdim)

    # ------------------------------------------------------------------ reductions
    def sum(self, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
        return _ops.sum(self, dim, keepdim, dtype=dtype)

    def mean(self, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
        return _ops.mean(self, dim, keepdim, dtype=dtype)

    def var(self, dim: Any = None, keepdim: bool = False, *, unbiased: bool | None = None,
            correction: int | None = None) -> Tensor:
        return _ops.var(self, dim, keepdim, correction=_correction(unbiased, correction))

    def std(self, dim: Any = None, keepdim: bool = False, *, unbiased: bool | None = None,
            correction: int | None = None) -> Tensor:
        return _ops.std(self, dim, keepdim, correction=_correction(unbiased, correction))

    def max(self, dim: Any = None, keepdim: bool = False) -> Any:
        return _ops.max(self, dim, keepdim)

    def min(self, dim: Any = None, keepdim: bool = False) -> Any:
        return _ops.min(self, dim, keepdim)

    def amax(self, dim: Any = (), keepdim: bool = False) -> Tensor:
        return _ops.amax(self, dim, keepdim)

    def amin(self, dim: Any = (), keepdim: bool = False) -> Tensor:
        return _ops.amin(self, dim, keepdim)

    def argmax(self, dim: int | None = None, keepdim: bool = False) -> Tensor:
        return _ops.argmax(self, dim, keepdim)

    def argmin(self, dim: int | None = None, keepdim: bool = False) -> Tensor:
        return _ops.argmin(self, dim, keepdim)

    def sum_to_size(self, *size: Any) -> Tensor:
        return _ops.sum_to_size(self, _size_arg(size))

    def norm(self, p: Any = "fro", dim: Any = None, keepdim: bool = False) -> Tensor:
        return _ops.norm(self, p, dim, keepdim)

    # ------------------------------------------------------------------ shape
    def reshape(self, *shape: Any) -> Tensor:
        return _ops.reshape(self, _size_arg(shape))

    def view(self, *shape: Any) -> Tensor:
        if len(shape) == 1 and isinstance(shape[0], dtypes.dtype):
            raise NotImplementedError("view(dtype) is not supported by autograd_lab")
        return _ops.view(self, _size_arg(shape))

    def view_as(self, other: Tensor) -> Tensor:
        return self.view(other.shape)

    def reshape_as(self, other: Tensor) -> Tensor:
        return self.reshape(other.shape)

    def flatten(self, start_dim: int = 0, end_dim: int = -1) -> Tensor:
        return _ops.flatten(self, start_dim, end_dim)

    def squeeze(self, dim: int | None = None) -> Tensor:
        return _ops.squeeze(self, dim)

    def unsqueeze(self, dim: int) -> Tensor:
        return _ops.unsqueeze(self, dim)

    def expand(self, *sizes: Any) -> Tensor:
        return _ops.expand(self, _size_arg(sizes))

    def expand_as(self, other: Tensor) -> Tensor:
        return self.expand(other.shape)

    def transpose(self, dim0: int, dim1: int) -> Tensor:
        return _ops.transpose(self, dim0, dim1)

    def permute(self, *dims: Any) -> Tensor:
        return _ops.permute(self, _size_arg(dims))

    def t(self) -> Tensor:
        return _ops.t(self)

    @property
    def T(self) -> Tensor:  # noqa: N802 - PyTorch's name
        """The dimensions reversed; PyTorch warns that this is deprecated for other than 2-D tensors."""
        if self.ndim == 0:
            warnings.warn("Tensor.T is deprecated on 0-D tensors. This function is the identity in these "
                          "cases.", UserWarning, stacklevel=2)
        elif self.ndim != 2:
            warnings.warn(
                "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated "
                "and it will throw an error in a future release. Consider `x.mT` to transpose batches of "
                "matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a "
                "tensor.", UserWarning, stacklevel=2)
        return _ops.permute(self, tuple(range(self.ndim - 1, -1, -1)))

    @property
    def mT(self) -> Tensor:  # noqa: N802 - PyTorch's name
        return _ops.transpose(self, -2, -1)

    def contiguous(self) -> Tensor:
        if self._data.flags.c_contiguous:
            return self
        return _ops.clone(self)

    def clone(self) -> Tensor:
        return _ops.clone(self)

    def __getitem__(self, key: Any) -> Tensor:
        return _ops.getitem(self, key)

    def chunk(self, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
        return _ops.chunk(self, chunks, dim)

    def split(self, split_size: int, dim: int = 0) -> tuple[Tensor, ...]:
        return _ops.split(self, split_size, dim)

    # ------------------------------------------------------------------ more pointwise ops, reductions
    def erf(self) -> Tensor:
        return _ops.mathematic.erf(self)

    def erf_(self) -> Tensor:
        return _ops.inplace(self, _ops.mathematic.erf)

    def erfc(self) -> Tensor:
        return _ops.mathematic.erfc(self)

    def erfc_(self) -> Tensor:
        return _ops.inplace(self, _ops.mathematic.erfc)

    def erfinv(self) -> Tensor:
        return _ops.mathematic.erfinv(self)

    def erfinv_(self) -> Tensor:
        return _ops.inplace(self, _ops.mathematic.erfinv)

    def log1p(self) -> Tensor:
        return _ops.mathematic.log1p(self)

    def log1p_(self) -> Tensor:
        return _ops.inplace(self, _ops.mathematic.log1p)

    def expm1(self) -> Tensor:
        return _ops.mathematic.expm1(self)

    def expm1_(self) -> Tensor:
        return _ops.inplace(self, _ops.mathematic.expm1)

    def sign(self) -> Tensor:
        return _ops.mathematic.sign(self)

    def sign_(self) -> Tensor:
        return _ops.inplace(self, _ops.mathematic.sign)

    def floor(self) -> Tensor:
        return _ops.mathematic.floor(self)

    def floor_(self) -> Tensor:
        return _ops.inplace(self, _ops.mathematic.floor)

    def ceil(self) -> Tensor:
        return _ops.mathematic.ceil(self)

    def ceil_(self) -> Tensor:
        return _ops.inplace(self, _ops.mathematic.ceil)

    def round(self, decimals: int = 0) -> Tensor:
        return _ops.mathematic.round(self, decimals)

    def round_(self, decimals: int = 0) -> Tensor:
        return _ops.inplace(self, _ops.mathematic.round, decimals)

    def trunc(self) -> Tensor:
        return _ops.mathematic.trunc(self)

    def trunc_(self) -> Tensor:
        return _ops.inplace(self, _ops.mathematic.trunc)

    fix, fix_ = trunc, trunc_

    def frac(self) -> Tensor:
        return _ops.mathematic.frac(self)

    def frac_(self) -> Tensor:
        return _ops.inplace(self, _ops.mathematic.frac)

    def square(self) -> Tensor:
        return _ops.mathematic.square(self)

    def square_(self) -> Tensor:
        return _ops.inplace(self, _ops.mathematic.square)

    def rsqrt(self) -> Tensor:
        return _ops.mathematic.rsqrt(self)

    def rsqrt_(self) -> Tensor:
        return _ops.inplace(self, _ops.mathematic.rsqrt)

    def exp2(self) -> Tensor:
        return _ops.mathematic.exp2(self)

    def exp2_(self) -> Tensor:
        return _ops.inplace(self, _ops.mathematic.exp2)

    def log2(self) -> Tensor:
        return _ops.mathematic.log2(self)

    def log2_(self) -> Tensor:
        return _ops.inplace(self, _ops.mathematic.log2)

    def log10(self) -> Tensor:
        return _ops.mathematic.log10(self)

    def log10_(self) -> Tensor:
        return _ops.inplace(self, _ops.mathematic.log10)

    def tan(self) -> Tensor:
        return _ops.mathematic.tan(self)

    def tan_(self) -> Tensor:
        return _ops.inplace(self, _ops.mathematic.tan)

    def asin(self) -> Tensor:
        return _ops.mathematic.asin(self)

    def asin_(self) -> Tensor:
        return _ops.inplace(self, _ops.mathematic.asin)

    def acos(self) -> Tensor:
        return _ops.mathematic.acos(self)

    def acos_(self) -> Tensor:
        return _ops.inplace(self, _ops.mathematic.acos)

    def atan(self) -> Tensor:
        return _ops.mathematic.atan(self)

    def atan_(self) -> Tensor:
        return _ops.inplace(self, _ops.mathematic.atan)

    def sinh(self) -> Tensor:
        return _ops.mathematic.sinh(self)

    def sinh_(self) -> Tensor:
        return _ops.inplace(self, _ops.mathematic.sinh)

    def cosh(self) -> Tensor:
        return _ops.mathematic.cosh(self)

    def cosh_(self) -> Tensor:
        return _ops.inplace(self, _ops.mathematic.cosh)

    def asinh(self) -> Tensor:
        return _ops.mathematic.asinh(self)

    def asinh_(self) -> Tensor:
        return _ops.inplace(self, _ops.mathematic.AsinhInplace.apply)

    def acosh(self) -> Tensor:
        return _ops.mathematic.acosh(self)

    def acosh_(self) -> Tensor:
        return _ops.inplace(self, _ops.mathematic.AcoshInplace.apply)

    def atanh(self) -> Tensor:
        return _ops.mathematic.atanh(self)

    def atanh_(self) -> Tensor:
        return _ops.inplace(self, _ops.mathematic.AtanhInplace.apply)

    arcsin, arcsin_, arccos, arccos_, arctan, arctan_ = asin, asin_, acos, acos_, atan, atan_
    arcsinh, arcsinh_, arccosh, arccosh_, arctanh, arctanh_ = asinh, asinh_, acosh, acosh_, atanh, atanh_

    def logical_not(self) -> Tensor:
        return _ops.mathematic.logical_not(self)

    def logical_not_(self) -> Tensor:  # not recorded by autograd, as in PyTorch
        with no_grad():
            return _ops.inplace(self, _ops.mathematic.logical_not)

    def isnan(self) -> Tensor:
        return _ops.mathematic.isnan(self)

    def isinf(self) -> Tensor:
        return _ops.mathematic.isinf(self)

    def isfinite(self) -> Tensor:
        return _ops.mathematic.isfinite(self)

    def nan_to_num(self, nan: float = 0.0, posinf: float | None = None,
                   neginf: float | None = None) -> Tensor:
        return _ops.mathematic.nan_to_num(self, nan, posinf, neginf)

    def nan_to_num_(self, nan: float = 0.0, posinf: float | None = None,
                    neginf: float | None = None) -> Tensor:
        return _ops.inplace(self, _ops.mathematic.nan_to_num, nan, posinf, neginf)

    def atan2(self, other: Tensor) -> Tensor:
        return _ops.mathematic.atan2(self, other, _method=True)

    def atan2_(self, other: Tensor) -> Tensor:
        return _ops.inplace(self, lambda t, o: _ops.mathematic.atan2(t, o, _method=True), other)

    arctan2, arctan2_ = atan2, atan2_

    def hypot(self, other: Tensor) -> Tensor:
        return _ops.mathematic.hypot(self, other, _method=True)

    def hypot_(self, other: Tensor) -> Tensor:
        return _ops.inplace(self, lambda t, o: _ops.mathematic.hypot(t, o, _method=True), other)

    def logaddexp(self, other: Tensor) -> Tensor:
        return _ops.mathematic.logaddexp(self, other, _method=True)

    def lerp(self, end: Tensor, weight: Any) -> Tensor:
        return _ops.mathematic.lerp(self, end, weight)

    def lerp_(self, end: Tensor, weight: Any) -> Tensor:
        return _ops.inplace(self, _ops.mathematic.lerp, end, weight)

    def addcmul(self, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
        return _ops.mathematic.addcmul(self, tensor1, tensor2, value=value)

    def addcmul_(self, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
        return _ops.inplace(self, lambda t, a, b: _ops.mathematic.addcmul(t, a, b, value=value),
                            tensor1, tensor2)

    def addcdiv(self, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
        return _ops.mathematic.addcdiv(self, tensor1, tensor2, value=value)

    def addcdiv_(self, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
        return _ops.inplace(self, lambda t, a, b: _ops.mathematic.addcdiv(t, a, b, value=value),
                            tensor1, tensor2)

    def remainder(self, other: Any) -> Tensor:
        return _ops.mathematic.remainder(self, other)

    def remainder_(self, other: Any) -> Tensor:
        return _ops.inplace(self, _ops.mathematic.remainder, other)

    def fmod(self, other: Any) -> Tensor:
        return _ops.mathematic.fmod(self, other)

    def fmod_(self, other: Any) -> Tensor:
        return _ops.inplace(self, _ops.mathematic.fmod, other)

    def floor_divide(self, other: Any) -> Tensor:
        return _ops.mathematic.floor_divide(self, other)

    def floor_divide_(self, other: Any) -> Tensor:
        return _ops.inplace(self, lambda t, o: _ops.mathematic.floor_divide(t, o, _op="floor_divide_"), other)

    def heaviside(self, values: Tensor) -> Tensor:
        return _ops.mathematic.heaviside(self, values, _method=True)

    def heaviside_(self, values: Tensor) -> Tensor:
        return _ops.inplace(
            self, lambda t, v: _ops.mathematic.heaviside(t, v, _method=True, _op="heaviside_"), values)

    def logical_and(self, other: Tensor) -> Tensor:
        return _ops.mathematic.logical_and(self, other, _method=True)

    def logical_and_(self, other: Tensor) -> Tensor:  # not recorded by autograd, as in PyTorch
        with no_grad():
            return _ops.inplace(self, lambda t, o: _ops.mathematic.logical_and(t, o, _method=True), other)

    def logical_or(self, other: Tensor) -> Tensor:
        return _ops.mathematic.logical_or(self, other, _method=True)

    def logical_or_(self, other: Tensor) -> Tensor:  # not recorded by autograd, as in PyTorch
        with no_grad():
            return _ops.inplace(self, lambda t, o: _ops.mathematic.logical_or(t, o, _method=True), other)

    def logical_xor(self, other: Tensor) -> Tensor:
        return _ops.mathematic.logical_xor(self, other, _method=True)

    def logical_xor_(self, other: Tensor) -> Tensor:  # not recorded by autograd, as in PyTorch
        with no_grad():
            return _ops.inplace(self, lambda t, o: _ops.mathematic.logical_xor(t, o, _method=True), other)

    def clamp_min(self, min: Any) -> Tensor:  # noqa: A002 - PyTorch's name
        return _ops.mathematic.clamp_min(self, min)

    def clamp_min_(self, min: Any) -> Tensor:  # noqa: A002
        _ops.mathematic.check_clamp_inplace(self, min)
        return _ops.inplace(self, _ops.mathematic.clamp_min, min)

    def clamp_max(self, max: Any) -> Tensor:  # noqa: A002 - PyTorch's name
        return _ops.mathematic.clamp_max(self, max)

    def clamp_max_(self, max: Any) -> Tensor:  # noqa: A002
        _ops.mathematic.check_clamp_inplace(self, max)
        return _ops.inplace(self, _ops.mathematic.clamp_max, max)

    def prod(self, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
        return _ops.reduction.prod(self, dim, keepdim, dtype=dtype)

    def cumsum(self, dim: int, *, dtype: Any = None) -> Tensor:
        return _ops.reduction.cumsum(self, dim, dtype=dtype)

    def cumsum_(self, dim: int, *, dtype: Any = None) -> Tensor:
        return _ops.inplace(self, lambda t: _ops.reduction.cumsum(t, dim, dtype=dtype))

    def cumprod(self, dim: int, *, dtype: Any = None) -> Tensor:
        return _ops.reduction.cumprod(self, dim, dtype=dtype)

    def cumprod_(self, dim: int, *, dtype: Any = None) -> Tensor:
        return _ops.inplace(self, lambda t: _ops.reduction.cumprod(t, dim, dtype=dtype))

    def logcumsumexp(self, dim: int) -> Tensor:
        return _ops.reduction.logcumsumexp(self, dim)

    def median(self, dim: Any = None, keepdim: bool = False) -> Any:
        return _ops.reduction.median(self, dim, keepdim)

    def sort(self, dim: int = -1, descending: bool = False, *, stable: bool = False) -> Any:
        return _ops.reduction.sort(self, dim, descending, stable=stable)

    def argsort(self, dim: int = -1, descending: bool = False, *, stable: bool = False) -> Tensor:
        return _ops.reduction.argsort(self, dim, descending, stable=stable)

    def topk(self, k: int, dim: int = -1, largest: bool = True, sorted: bool = True) -> Any:  # noqa: A002
        return _ops.reduction.topk(self, k, dim, largest, sorted)

    def aminmax(self, *, dim: Any = None, keepdim: bool = False) -> Any:
        return _ops.reduction.aminmax(self, dim=dim, keepdim=keepdim)

    def diff(self, n: int = 1, dim: int = -1, prepend: Tensor | None = None,
             append: Tensor | None = None) -> Tensor:
        return _ops.reduction.diff(self, n, dim, prepend, append)

    def dist(self, other: Tensor, p: Any = 2) -> Tensor:
        return _ops.reduction.dist(self, other, p, _method=True)

    def any(self, dim: Any = None, keepdim: bool = False) -> Tensor:
        return _ops.reduction.any(self, dim, keepdim)

    def all(self, dim: Any = None, keepdim: bool = False) -> Tensor:
        return _ops.reduction.all(self, dim, keepdim)

    def count_nonzero(self, dim: Any = None) -> Tensor:
        return _ops.reduction.count_nonzero(self, dim)

    # ------------------------------------------------------------------ more shape, indexing, linalg ops
    def gather(self, dim: int, index: Tensor, *, sparse_grad: bool = False) -> Tensor:
        return _ops.indexing.gather(self, dim, index)

    def scatter(self, dim: int, index: Tensor, src: Any = None, *, value: Any = None,
                reduce: str | None = None) -> Tensor:
        return _ops.indexing.scatter(self, dim, index, src, value=value, reduce=reduce)

    def scatter_(self, dim: int, index: Tensor, src: Any = None, *, value: Any = None,
                 reduce: str | None = None) -> Tensor:
        if src is None:
            src = value
        if isinstance(src, Tensor):
            _ops.indexing.scatter(self.detach(), dim, index, src.detach(), reduce=reduce)  # errors first
            return _ops.inplace(self, lambda t, s: _ops.indexing.scatter(t, dim, index, s), src)
        _ops.indexing.scatter(self.detach(), dim, index, src, reduce=reduce)
        return _ops.inplace(self, lambda t: _ops.indexing.scatter(t, dim, index, src, reduce=reduce))

    def scatter_add(self, dim: int, index: Tensor, src: Tensor) -> Tensor:
        return _ops.indexing.scatter_add(self, dim, index, src)

    def scatter_add_(self, dim: int, index: Tensor, src: Tensor) -> Tensor:
        _ops.indexing.scatter_add(self.detach(), dim, index, src.detach())
        return _ops.inplace(self, lambda t, s: _ops.indexing.scatter_add(t, dim, index, s), src)

    def index_select(self, dim: int, index: Tensor) -> Tensor:
        return _ops.indexing.index_select(self, dim, index)

    def index_add(self, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1) -> Tensor:
        return _ops.indexing.index_add(self, dim, index, source, alpha=alpha)

    def index_add_(self, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1) -> Tensor:
        _ops.indexing.index_add(self.detach(), dim, index, source.detach(), alpha=alpha)
        return _ops.inplace(self, lambda t, s: _ops.indexing.index_add(t, dim, index, s, alpha=alpha), source)

    def index_copy(self, dim: int, index: Tensor, source: Tensor) -> Tensor:
        return _ops.indexing.index_copy(self, dim, index, source)

    def index_copy_(self, dim: int, index: Tensor, source: Tensor) -> Tensor:
        _ops.indexing.index_copy(self.detach(), dim, index, source.detach())
        return _ops.inplace(self, lambda t, s: _ops.indexing.index_copy(t, dim, index, s), source)

    def masked_select(self, mask: Tensor) -> Tensor:
        return _ops.indexing.masked_select(self, mask)

    def masked_fill_(self, mask: Tensor, value: Any) -> Tensor:
        _ops.masked_fill(self.detach(), mask, value)  # a bad mask fails before anything changes
        return _ops.inplace(self, lambda t: _ops.masked_fill(t, mask, value))

    def take(self, index: Tensor) -> Tensor:
        return _ops.indexing.take(self, index)

    def nonzero(self, *, as_tuple: bool = False) -> Any:
        return _ops.indexing.nonzero(self, as_tuple=as_tuple)

    def flip(self, *dims: Any) -> Tensor:
        return _ops.shape.flip(self, _size_arg(dims))

    def roll(self, shifts: Any, dims: Any = None) -> Tensor:
        return _ops.shape.roll(self, shifts, dims)

    def repeat(self, *repeats: Any) -> Tensor:
        return _ops.shape.repeat(self, _size_arg(repeats))

    def tile(self, *dims: Any) -> Tensor:
        return _ops.shape.tile(self, _size_arg(dims))

    def unbind(self, dim: int = 0) -> tuple[Tensor, ...]:
        return _ops.shape.unbind(self, dim)

    def movedim(self, source: Any, destination: Any) -> Tensor:
        return _ops.shape.movedim(self, source, destination)

    moveaxis = movedim

    def swapaxes(self, axis0: int, axis1: int) -> Tensor:
        return _ops.shape.swapaxes(self, axis0, axis1)

    swapdims = swapaxes

    def unflatten(self, dim: int, sizes: Any) -> Tensor:
        return _ops.shape.unflatten(self, dim, sizes)

    def broadcast_to(self, size: Any) -> Tensor:
        return _ops.shape.broadcast_to(self, size)

    def diag(self, diagonal: int = 0) -> Tensor:
        return _ops.shape.diag(self, diagonal)

    def diagonal(self, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
        return _ops.shape.diagonal(self, offset, dim1, dim2)

    def trace(self) -> Tensor:
        return _ops.shape.trace(self)

    def tril(self, diagonal: int = 0) -> Tensor:
        return _ops.shape.tril(self, diagonal)

    def triu(self, diagonal: int = 0) -> Tensor:
        return _ops.shape.triu(self, diagonal)

    def tril_(self, diagonal: int = 0) -> Tensor:
        _ops.shape.tril(self.detach(), diagonal)
        return _ops.inplace(self, lambda t: _ops.shape.tril(t, diagonal))

    def triu_(self, diagonal: int = 0) -> Tensor:
        _ops.shape.triu(self.detach(), diagonal)
        return _ops.inplace(self, lambda t: _ops.shape.triu(t, diagonal))

    def outer(self, vec2: Tensor) -> Tensor:
        return _ops.linalg.outer(self, vec2)

    def addmm(self, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
        return _ops.linalg.addmm(self, mat1, mat2, beta=beta, alpha=alpha)

    def addmm_(self, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
        return _ops.linalg.addmm_(self, mat1, mat2, beta=beta, alpha=alpha)

    def addmv(self, mat: Tensor, vec: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
        return _ops.linalg.addmv(self, mat, vec, beta=beta, alpha=alpha)

    def addmv_(self, mat: Tensor, vec: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
        return _ops.linalg.addmv_(self, mat, vec, beta=beta, alpha=alpha)

    def baddbmm(self, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
        return _ops.linalg.baddbmm(self, batch1, batch2, beta=beta, alpha=alpha)

    def baddbmm_(self, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
        return _ops.linalg.baddbmm_(self, batch1, batch2, beta=beta, alpha=alpha)

    def kron(self, other: Tensor) -> Tensor:
        return _ops.linalg.kron(self, other)

    def new_tensor(self, data: Any, *, dtype: Any = None, requires_grad: bool = False,
                   device: Any = None) -> Tensor:
        if isinstance(data, Tensor):
            warnings.warn(
                "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
                "sourceTensor.detach().clone().requires_grad_(True), rather than "
                "tensor.new_tensor(sourceTensor).", UserWarning, stacklevel=2)
            data = data._data
        arr = np.array(_to_array(data), dtype=(dtype or self.dtype).np)
        return Tensor._make(arr, requires_grad)

    def new_full(self, size: Any, fill_value: Any, *, dtype: Any = None, requires_grad: bool = False,
                 device: Any = None) -> Tensor:
        if isinstance(fill_value, Tensor):
            fill_value = fill_value.item()
        arr = np.full(_size_arg((size,)), fill_value, dtype=(dtype or self.dtype).np)
        return Tensor._make(arr, requires_grad)

    def new_zeros(self, *size: Any, dtype: Any = None, requires_grad: bool = False,
                  device: Any = None) -> Tensor:
        return self.new_full(_size_arg(size), 0, dtype=dtype, requires_grad=requires_grad)

    def new_ones(self, *size: Any, dtype: Any = None, requires_grad: bool = False,
                 device: Any = None) -> Tensor:
        return self.new_full(_size_arg(size), 1, dtype=dtype, requires_grad=requires_grad)

    def new_empty(self, *size: Any, dtype: Any = None, requires_grad: bool = False,
                  device: Any = None) -> Tensor:
        """Values unspecified, as in PyTorch; here zeros."""
        return self.new_full(_size_arg(size), 0, dtype=dtype, requires_grad=requires_grad)


class ViewMeta:
    """What a view remembers about how it was made (``_base`` is the tensor whose memory it shares).

    ``version``: the base's version when the view's ``grad_fn`` was last right; ``no_grad``: made in
    no_grad mode; ``multi``: ``(op, output_nr)`` when it is one of several views one op returned
    (``split``, ``chunk``). The last two make an in-place change of the view an error.
    """

    __slots__ = ("version", "no_grad", "multi")

    def __init__(self, version: int, no_grad: bool, multi: tuple[str, int] | None = None) -> None:
        self.version, self.no_grad, self.multi = version, no_grad, multi


def _refresh_view(view: Tensor) -> None:
    """Give a stale view a new history from its base (:func:`autograd_lab.ops.inplace.refresh_view`)."""
    from .ops.inplace import refresh_view

    refresh_view(view)


def _init(t: Tensor, data: np.ndarray, requires_grad: bool) -> None:
    t._data = data
    t._requires_grad = False
    t._grad_fn = None
    t.output_nr = 0
    t._grad = None
    t._retains_grad = False
    t._version_counter = _VersionCounter()
    t._base = None
    t._view_meta = None  # a ViewMeta when this tensor is a view of _base
    t._accumulate_ref = None
    t._leaf_hooks = {}
    t.name = None  # an optional label, shown by autograd_lab.viz
    if requires_grad:
        t.requires_grad = True


def _rebuild(data: np.ndarray, requires_grad: bool) -> Tensor:
    return Tensor._make(data, requires_grad)


def _to_array(data: Any) -> Any:
    """Lists that hold tensors become lists of numbers; everything else passes through."""
    if isinstance(data, Tensor):
        return data._data
    if isinstance(data, (list, tuple)):
        return [_to_array(d) for d in data]
    return data


def _wrap_dim(dim: int, ndim: int) -> int:
    lo, hi = (-ndim, ndim - 1) if ndim > 0 else (-1, 0)
    if not lo <= dim <= hi:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got {dim})"
        )
    return dim % ndim if ndim > 0 else 0


def _size_arg(args: tuple) -> tuple:
    """``f(2, 3)``, ``f((2, 3))`` and ``f(torch.Size([2, 3]))`` all mean the shape (2, 3)."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = tuple(args[0])
    return tuple(builtins.int(a) for a in args)


def _shape_str(shape: Sequence[int]) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _to_target_dtype(args: tuple, kwargs: dict) -> dtypes.dtype | None:
    """The dtype that ``.to(*args, **kwargs)`` asks for, or None; a device must be the CPU."""
    target = kwargs.get("dtype")
    for a in args:
        if isinstance(a, dtypes.dtype):
            target = a
        elif isinstance(a, Tensor):
            target = a.dtype
        elif isinstance(a, (str, dtypes.device)):
            dtypes.device(str(a))  # raises for a device this CPU-only library does not have
    if kwargs.get("device") is not None:
        dtypes.device(str(kwargs["device"]))
    return target


def _clear_grad(p: Tensor, set_to_none: bool) -> None:
    """What ``zero_grad`` does to one parameter: ``.grad = None``, or detach it and fill it with 0."""
    if p._grad is None:
        return
    if set_to_none:
        p.grad = None
        return
    if p._grad.grad_fn is not None:
        p._grad.detach_()
    else:
        p._grad.requires_grad_(False)
    p._grad.zero_()


def _legacy_type_name(d: dtypes.dtype) -> str:
    names = {
        "float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long",
        "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
    }
    return f"torch.{names[d.name]}Tensor"


def _correction(unbiased: bool | None, correction: int | None) -> int:
    if correction is not None:
        return correction
    return 0 if unbiased is False else 1


# the operations; imported last because they build on Tensor
from . import ops as _ops  # noqa: E402

__all__ = ["Tensor", "RemovableHandle", "is_grad_enabled", "no_grad"]
