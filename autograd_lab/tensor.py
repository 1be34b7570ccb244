"""``Tensor``: an n-dimensional array that can record the operations made on it.

A tensor wraps a NumPy array (``_data``) and carries the autograd state PyTorch's tensors carry:

- ``requires_grad``: whether operations on it are recorded;
- ``grad_fn``: the node of the backward graph that made it (None for a leaf, a tensor the user made);
- ``grad``: where backward accumulates the gradient of a leaf;
- ``_version``: a counter bumped by every in-place change, so that backward can refuse to use a
  value that was overwritten after it was saved.

This file is the data, that state, the conversions to Python and NumPy, and Python's protocols
(``len``, ``bool``, ``repr``, ...). The operations live in :mod:`autograd_lab.ops`, each beside its
derivative; the methods that only hand off to one (``x.exp()``, ``x * y``, ``x[i]``,
``x.backward()``) are set on ``Tensor`` from one table, :mod:`autograd_lab.ops.methods`. So this file
imports no operation, and every operation can import it.
"""

from __future__ import annotations

import threading
import warnings
import weakref
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from . import dtypes
from ._tensor_str import tensor_repr
from .dtypes import Size, shape_str, wrap_dim

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


class OnFirstUse:
    """An attribute made the first time it is read (as ``functools.cached_property``).

    Most tensors are never changed in place and most nodes never get a hook: making their version
    counter or an empty hook dict on first use saves memory and garbage-collector work on every
    recorded op (issue 17). After the first read the value lives in the instance's ``__dict__``.
    """

    def __init__(self, factory: Callable[[], Any]) -> None:
        self.factory = factory

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self
        value = obj.__dict__[self.name] = self.factory()
        return value


class RemovableHandle:
    """What ``register_hook`` returns: ``handle.remove()`` takes the hook away again."""

    def __init__(self, hooks: dict, key: int) -> None:
        self._hooks = hooks
        self._key = key

    def remove(self) -> None:
        self._hooks.pop(self._key, None)


_hook_ids = iter(range(1 << 62))


class _InferenceMode(threading.local):
    """Whether ``inference_mode`` is on in this thread: tensors made meanwhile are inference tensors.
    (Switched by :class:`autograd_lab.grad_mode.inference_mode`, which counts ``open_inference_blocks``
    in all threads: while none is open, ``_make`` need not read this thread-local flag.)"""

    enabled = False


INFERENCE_MODE, open_inference_blocks = _InferenceMode(), 0


class Tensor:
    """A multi-dimensional array with autograd (``torch.Tensor``).

    ``Tensor(data)`` makes a float tensor like ``torch.Tensor``; prefer :func:`autograd_lab.tensor`.
    """

    __array_priority__ = 1000  # NumPy arrays defer to Tensor in mixed arithmetic

    _counter: _VersionCounter | None = None  # made on first use: see _version_counter
    _view_meta = None  # a ViewMeta when this tensor is a view of _base
    _leaf_hooks = OnFirstUse(dict)
    _post_accumulate_grad_hooks: dict | None = None  # (PyTorch's attribute: None until one is registered)
    # defaults that _init need not store on every tensor
    _grad = None
    _retains_grad = False
    _base = None
    _accumulate_ref = None
    _wrapped_number = None  # a Python number made a 0-d tensor for an op (PyTorch's "wrapped number")
    name = None  # an optional label, shown by autograd_lab.viz

    def __init__(self, data: Any = (), *, requires_grad: bool = False, name: str | None = None):
        _init(self, np.array(_to_array(data), dtype=dtypes.get_default_dtype().np), requires_grad)
        if name is not None:
            self.name = name

    @classmethod
    def _make(cls, data: np.ndarray, requires_grad: bool = False, grad_fn: Any = None,
              output_nr: int = 0) -> Tensor:
        """Wrap an ndarray without copying (the fast path every op uses). NumPy returns scalars, not 0-d
        arrays, from operations on 0-d arrays: wrapped here, ``_data`` is always a (writable) ndarray."""
        t = object.__new__(cls)
        if requires_grad:
            _init(t, data if type(data) is np.ndarray else np.asarray(data), requires_grad)
        else:  # _init inlined: every op makes its result here
            t._data = data if type(data) is np.ndarray else np.asarray(data)
            t._requires_grad = False
            t._is_inference = open_inference_blocks != 0 and INFERENCE_MODE.enabled
        t._grad_fn, t.output_nr = grad_fn, output_nr
        t._view_meta = t._counter = None  # (the class has them too: an instance's own read faster)
        return t

    # ------------------------------------------------------------------ metadata
    @property
    def shape(self) -> Size:
        return Size(self._data.shape)

    def size(self, dim: int | None = None) -> Any:
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[wrap_dim(dim, self.ndim)]

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
        """The step in elements between neighbours along each dimension (an empty tensor's: PyTorch's)."""
        steps = (tuple(s // self._data.itemsize for s in self._data.strides) if self._data.size
                 else dtypes.empty_strides(self))
        return steps if dim is None else steps[wrap_dim(dim, self.ndim)]

    def data_ptr(self) -> int:
        """The memory address of the first element (views of one tensor share its memory)."""
        return self._data.__array_interface__["data"][0]

    @property
    def _version(self) -> int:
        return self._version_counter.value

    @property
    def _version_counter(self) -> _VersionCounter:
        """The counter of in-place changes, made on first use: most tensors never change in place."""
        counter = self._counter
        if counter is None:
            counter = self._counter = _VersionCounter()
        return counter

    @_version_counter.setter
    def _version_counter(self, counter: _VersionCounter) -> None:
        self._counter = counter

    # ------------------------------------------------------------------ autograd state
    @property
    def grad_fn(self) -> Any:
        """The node that made this tensor (None for a leaf).

        A view whose base changed in place since its history was recorded gets a new one here,
        ``AsStridedBackward0`` of the base, as in PyTorch: the old history would ignore the change.
        """
        meta = self._view_meta
        if meta is not None and meta.version != self._version_counter.value:
            self._refresh_view()  # ops/inplace.py: refresh_view
        return self._grad_fn

    @grad_fn.setter
    def grad_fn(self, node: Any) -> None:
        self._grad_fn = node

    @property
    def is_leaf(self) -> bool:
        """True for tensors the user made, and for every tensor that does not require grad."""
        return self.grad_fn is None

    @property
    def requires_grad(self) -> bool:  # a view of a tensor that requires grad does too (as in PyTorch)
        # (the history as stored: reading the flag does not renew a view's, as in PyTorch)
        return (self._requires_grad or self._grad_fn is not None
                or self._base is not None and self._base.requires_grad)

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
        if flag and self._is_inference and not INFERENCE_MODE.enabled:
            raise RuntimeError(
                "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.")
        self._requires_grad = bool(flag)

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        self.requires_grad = requires_grad
        return self

    @property
    def grad(self) -> Tensor | None:
        """The accumulated gradient of a leaf; None (with PyTorch's warning) on a non-leaf that was
        not asked to keep one (``retain_grad()`` or ``backward(inputs=[it])``)."""
        if (grad := self._grad) is None and not self._retains_grad and self.grad_fn is not None:
            warnings.warn(_NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return grad

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
                    f"attempting to assign a gradient of size '{shape_str(value.shape)}' to a tensor "
                    f"of size '{shape_str(self.shape)}'. Please ensure that the gradient and the "
                    "tensor are the same size"
                )
            if value.dtype is not self.dtype:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{dtypes.cpp_type_name(value._data.dtype)}' "
                    f"to a tensor with grad_dtype '{dtypes.scalar_type_name(self._data.dtype)}'. The "
                    "gradient must match the tensor's grad_dtype (defaults to the tensor's dtype). You can "
                    "set the tensor's grad_dtype attribute with a specific dtype, or None to allow any "
                    "dtype. Set grad_dtype with caution. Diverging the dtypes of a tensor and its gradient "
                    "may break downstream systems that assume they match."
                )
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

    def register_post_accumulate_grad_hook(self, hook: Callable[[Tensor], None]) -> RemovableHandle:
        """Call ``hook(tensor)`` after backward has added this leaf's gradient into ``.grad`` (an
        optimizer step inside backward, for one). The hook returns None."""
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
        if self._post_accumulate_grad_hooks is None:
            self._post_accumulate_grad_hooks = {}
        key = next(_hook_ids)
        self._post_accumulate_grad_hooks[key] = hook
        return RemovableHandle(self._post_accumulate_grad_hooks, key)

    def detach(self) -> Tensor:
        """A new leaf sharing this tensor's data (and version counter), cut from the graph."""
        t = Tensor._make(self._data)
        t._version_counter = self._version_counter
        t._is_inference = self._is_inference  # a view: an inference tensor's stays one
        return t

    def is_inference(self) -> bool:
        """True for a tensor made inside ``inference_mode`` (or a view of one): it can never join a
        graph (``torch.Tensor.is_inference``)."""
        return self._is_inference

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

    # ------------------------------------------------------------------ conversion to NumPy and Python
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

    # ------------------------------------------------------------------ Python's protocols
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
        return iter(self.unbind(0))  # as PyTorch: the rows are the views unbind returns

    def __repr__(self) -> str:
        return tensor_repr(self)

    def __format__(self, spec: str) -> str:
        if self._data.ndim == 0:
            return self.item().__format__(spec)
        return object.__format__(self, spec)

    __hash__ = object.__hash__

    def __reduce_ex__(self, protocol: Any) -> Any:
        return (_rebuild, (self._data, self._requires_grad))

    def cpu(self) -> Tensor:
        return self

    def cuda(self, *args: Any, **kwargs: Any) -> Tensor:
        raise RuntimeError("autograd_lab runs on the CPU only; there is no CUDA device here")

    def __pos__(self) -> Tensor:
        if self._data.dtype == np.bool_:
            raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
        return self

    # x.exp(), x + y, x[i], x.backward(), ...: see ops/methods.py


class ViewMeta:
    """What a view remembers about how it was made (``_base`` is the tensor whose memory it shares).

    ``version``: the base's version when the view's ``grad_fn`` was last right; ``no_grad``: made in
    no_grad mode; ``multi``: ``(op, output_nr)`` when it is one of several views one op returned
    (``split``, ``chunk``). The last two make an in-place change of the view an error.
    """

    __slots__ = ("version", "no_grad", "multi")

    def __init__(self, version: int, no_grad: bool, multi: tuple[str, int] | None = None) -> None:
        self.version, self.no_grad, self.multi = version, no_grad, multi


def _init(t: Tensor, data: np.ndarray, requires_grad: bool) -> None:
    t._data = data
    t._requires_grad = False
    t._grad_fn, t.output_nr = None, 0
    t._is_inference = INFERENCE_MODE.enabled
    t._view_meta = t._counter = None
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


__all__ = ["Tensor", "RemovableHandle", "ViewMeta"]
