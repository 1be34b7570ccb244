"""In-place operations (``add_``, ``mul_``, ``x[i] = v``, ...) with PyTorch's rules.

An in-place op computes the out-of-place result and writes it into the tensor's memory, then bumps
the tensor's version counter. Backward compares versions: a saved tensor that was changed after it
was saved makes backward fail loudly instead of silently using the wrong value.

With autograd recording, the tensor's history is *rebased*: its ``grad_fn`` becomes the node of the
in-place op, whose input edge leads to the old history. Forbidden, as in PyTorch: an in-place op on
a leaf that requires grad (its ``.grad`` would be meaningless) and on a view of one.

A view shares its base's memory, so an in-place op on a view changes the base: the *base's* history
is rebased, on a ``CopySlices`` node that wraps the op's node (inside the view, the gradient goes
through the op; outside, straight to the old history). Every view of a base changed in place gets a
new history when next used (``Tensor.grad_fn``): ``AsStridedBackward0`` of the base, reading the
view's elements from it. Views and bases are matched element by element through their memory
addresses (:func:`view_index`), so any chain of view ops works.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import dtypes, grad_mode
from ..dtypes import quiet_off, quiet_on
from ..function import FREED_MESSAGE, Node, SavedTensor, _op_name, gradient_edge
from ..tensor import INFERENCE_MODE, Tensor
from .comparison import masked_fill
from .promotion import dense_order, empty_in_order, fused_multiply_add
from .view import AsStrided, AsStridedScatter, _strided, as_strided, view_index


# --------------------------------------------------------------------------- views of a base changed in place
def recorded_copy_slices(grad: Tensor, shape: tuple[int, ...], part: tuple[tuple, tuple, int],
                         fn: Callable[[Tensor], tuple]) -> tuple[Tensor | None, ...]:
    """``CopySlices``' backward under create_graph, in PyTorch's recorded steps: the gradient copied
    into a new tensor of the base's shape (``CopyBackwards``), the view's part of it (``part``: its
    size, stride and offset, in elements) cloned and sent through the op's derivative ``fn``, and fn's
    gradient for the view's old value copied back into that part, in place (a ``CopySlices`` of its
    own). Returns the base's gradient, then fn's others. (copy_ and clone as Tensor methods: their
    module imports this one.)"""
    result = Tensor._make(np.empty(shape, grad._data.dtype)).copy_(grad)
    grad_slice = as_strided(result, *part)
    res = fn(grad_slice.clone())
    if res[0] is None:  # (PyTorch: no gradient for the base then)
        return (None, *res[1:])
    grad_slice.copy_(res[0])
    return (result, *res[1:])


class CopySlices(Node):
    """An in-place op on a view, recorded on the view's base (PyTorch's ``CopySlices``).

    ``fn`` is the op's own node, whose first input was the view's old value. Its edges are this
    node's, but the first, which is the base's old history (``fn`` keeps its own first edge, to the
    view's old value, for a second derivative through what it saved). Backward: the base's gradient
    outside the view goes to the old history as it is; inside the view it goes through ``fn``, which
    also gives the op's other inputs their gradients.
    """

    def __init__(self, base_edge: tuple[Node | None, int], index: np.ndarray,
                 shape: tuple[int, ...], fn: Node) -> None:
        super().__init__()
        self.fn = fn
        self._index, self._shape = index, shape
        self._next_functions = (base_edge, *fn.next_functions[1:])
        inside = np.zeros(int(np.prod(shape)), dtype=bool)
        inside[index.reshape(-1)] = True
        self._inside = inside.reshape(shape)
        # a view whose elements repeat in memory (zero_ of an expand): PyTorch's backward writes the
        # gradient into it and refuses
        self._repeats = int(np.count_nonzero(inside)) != index.size

    def name(self) -> str:
        return "torch::autograd::CopySlices"  # PyTorch's C++ name, as AccumulateGrad's

    def apply(self, *grad_outputs: Tensor | None) -> tuple[Tensor | None, ...]:
        if self.__dict__.get("_released"):
            raise RuntimeError(FREED_MESSAGE)
        if self._repeats:
            raise RuntimeError(REPEATS_MESSAGE)
        grad = grad_outputs[0]
        if grad is None:
            return (None,) * len(self._next_functions)
        part = _strided(self._index) if grad_mode.is_grad_enabled() else None
        if part is not None:  # create_graph: PyTorch's steps, recorded
            fn = self.fn
            fn._keep_first_dtype = True  # its gradient for the view is copied into the base's, in its dtype
            try:
                return recorded_copy_slices(grad, self._shape, part, lambda piece: fn.apply(piece))
            finally:
                del fn._keep_first_dtype
        from_fn = self.fn.apply(AsStrided.apply(grad, self._index))
        grad_base = masked_fill(grad, self._inside, 0)
        if from_fn[0] is not None:
            grad_base = grad_base + AsStridedScatter.apply(from_fn[0], self._index, self._shape)
        return (grad_base, *from_fn[1:])

    def saved_items(self) -> list[tuple[str, Tensor | None]]:
        return [] if self.fn is None else self.fn.saved_items()

    def _release(self) -> None:
        """As PyTorch, let go of ``fn`` (a second backward through here fails), not of what ``fn``
        saved: a double backward can reach ``fn`` on its own too, through a saved result (``exp_``)."""
        self.fn = None
        self._released = True


def refresh_view(view: Tensor) -> None:
    """A view whose base changed in place: its history becomes ``AsStridedBackward0`` of the base.

    Called by ``Tensor.grad_fn`` when the shared version counter moved since the view's history was
    last right. A view made in no_grad mode, or of a base that needs no gradient, keeps its history.
    """
    meta, base = view._view_meta, view._base
    meta.version = view._version_counter.value
    if meta.no_grad or not base.requires_grad:
        return
    with grad_mode.enable_grad():
        node = AsStrided.apply(base, view_index(view._data, base._data))._grad_fn
    _move_retained(view, node)
    view._grad_fn, view.output_nr = node, 0


def _move_retained(t: Tensor, node: Node) -> None:
    """``retain_grad()`` follows a tensor to its new history (output 0 of ``node``); hooks do not."""
    old = t._grad_fn
    if t._retains_grad and old is not None:
        ref = old._retained.pop(t.output_nr, None)
        if ref is not None:
            node._retained[0] = ref


# ---------------------------------------------------------------------------- in place
NO_GRAD_VIEW_MESSAGE = (
    "A view was created in no_grad mode and is being modified inplace with grad mode enabled. Given "
    "that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by "
    "moving both the view and the inplace either both inside the no_grad block (if you don't want the "
    "inplace to be tracked) or both outside (if you want the inplace to be tracked)."
)


INFERENCE_INPLACE_MESSAGE = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get a "
    "normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more details."
)


def _check_view_inplace(t: Tensor, base: Tensor) -> None:
    """The errors of an in-place op on a view: of a function with several views, made in no_grad
    mode, of a leaf that requires grad."""
    meta = t._view_meta
    if meta.multi is not None:
        op = meta.multi[0] or _op_name(t.grad_fn)
        raise RuntimeError(
            f"Output {meta.multi[1]} of {op} is a view and is being modified inplace. This "
            "view is the output of a function that returns multiple views. Such functions do not allow "
            "the output views to be modified inplace. You should replace the inplace operation by an "
            "out-of-place one."
        )
    if meta.no_grad:
        raise RuntimeError(NO_GRAD_VIEW_MESSAGE)
    if base.requires_grad and base.grad_fn is None:
        raise RuntimeError(
            "a view of a leaf Variable that requires grad is being used in an in-place operation."
        )


def _inplace_on_view(t: Tensor, base: Tensor, op: Callable[..., Tensor], args: tuple, kwargs: dict,
                     repeats_ok: bool = False) -> Tensor:
    """``op`` applied in place to the view ``t``, recorded on its base as ``CopySlices``."""
    _check_view_inplace(t, base)
    index = view_index(t._data, base._data)
    # The view's old value, with the view's history (SelectBackward0, ...; AsStridedBackward0 when the
    # base changed since): the op's first input, as PyTorch's. Its gradient reaches the base through
    # CopySlices, not through this edge; but a second derivative can go along it, through what the op
    # saved (mul_'s input, exp_'s result).
    old = Tensor._make(np.array(t._data, copy=True), grad_fn=t.grad_fn, output_nr=t.output_nr)
    result = op(old, *args, **kwargs)
    fn = result.grad_fn
    _save_original_as_clone(fn, old, t)
    first = fn.next_functions[0][0] if fn is not None and fn.next_functions else None
    if fn is None or fn._num_outputs != 1 or first is not old._grad_fn:
        raise RuntimeError(f"autograd_lab: {op} is not one node whose first input is the changed tensor")
    _write(t, result._data, repeats_ok)
    t._version_counter.value += 1
    node = CopySlices(gradient_edge(base), index, base._data.shape, fn)
    _move_retained(base, node)
    base._grad_fn, base.output_nr = node, 0
    _keep_saved_result(fn, result, t)
    return t


def _save_original_as_clone(fn: Node | None, old: Tensor, t: Tensor) -> None:
    """An op that saved the old value ``old`` of the tensor ``t`` it changes (``mul_`` for ``other``'s
    gradient) keeps it as PyTorch does, as a clone of ``t`` made before the change: its history goes
    through ``CloneBackward0`` to ``t``'s (a view's own, not its base's)."""
    saved = getattr(fn, "_saved", None) or ()
    for i, s in enumerate(saved):
        if s is old or isinstance(s, SavedTensor) and s.tensor is old:
            history = t.grad_fn
            if history is not None:
                clone = Tensor._make(old._data, grad_fn=history, output_nr=t.output_nr).clone()
                fn._saved = (*saved[:i], SavedTensor(clone), *saved[i + 1:])
            return


def _keep_saved_result(fn: Node, result: Tensor, t: Tensor) -> None:
    """An op that saved its result (``exp_``) now finds it in ``t``, version-checked."""
    for s in getattr(fn, "_saved", None) or ():
        if isinstance(s, SavedTensor) and s.tensor is None and s.data is result._data:
            s.data, s.counter, s.version = t._data, t._version_counter, t._version_counter.value
            if t._base is not None:
                s.producer = weakref.ref(t.grad_fn)


REPEATS_MESSAGE = (
    "unsupported operation: more than one element of the written-to tensor refers to a single memory "
    "location. Please clone() the tensor before performing the operation."
)


OVERLAP_MESSAGE = (
    "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single "
    "memory location. Please clone() the tensor before performing the operation."
)


def _dense(a: np.ndarray) -> bool:
    """Whether ``a``'s elements fill their memory without gaps or repeats, in some order of the
    dimensions (PyTorch's ``is_non_overlapping_and_dense``)."""
    step = a.itemsize
    for stride, size in sorted((st, n) for n, st in zip(a.shape, a.strides) if n != 1):
        if stride != step:
            return False
        step *= size
    return True


def empty_preserving(a: np.ndarray, dtype: Any = None) -> np.ndarray:
    """A new array like ``a`` in PyTorch's ``preserve_format``: ``a``'s order of dimensions in memory,
    dense (``empty_like``, ``zeros_like``, ``clone``: a transposed tensor gives a transposed one)."""
    dtype = a.dtype if dtype is None else dtype
    if a.flags.c_contiguous:
        out = np.empty(a.shape, dtype)
        return out if 1 not in a.shape else with_strides_of(out, a)
    out = empty_in_order(a.shape, dense_order(a.shape, a.strides), dtype)
    return with_strides_of(out, a) if _dense(a) else out


def copy_preserving(a: np.ndarray, dtype: Any = None) -> np.ndarray:
    """A copy of ``a`` (in ``dtype``) in PyTorch's ``preserve_format`` (``clone``, ``to``): a dense tensor's
    own strides, a size-1 dimension's too; another dense, its dimensions in ``a``'s order (NumPy's
    ``astype`` and ``array(order="K")`` lay out broadcast and size-1 dimensions their own way)."""
    if a.flags.c_contiguous and 1 not in a.shape:  # (the common case: NumPy's copy is PyTorch's)
        return a.astype(a.dtype if dtype is None else dtype)
    out = empty_preserving(a, dtype)
    np.copyto(out, a, casting="unsafe")
    return out


def with_strides_of(out: np.ndarray, a: np.ndarray) -> np.ndarray:
    """``out`` (dense, its dimensions in ``a``'s order) with ``a``'s own strides: PyTorch's copy of a
    dense tensor keeps them as they are, a size-1 dimension's too (NumPy lays those out its own way)."""
    strides = a.strides if out.itemsize == a.itemsize else tuple(
        s // a.itemsize * out.itemsize for s in a.strides)
    if out.strides == strides or not a.size:
        return out
    return np.lib.stride_tricks.as_strided(out, out.shape, strides)


def check_no_partial_overlap(written: np.ndarray, inputs: tuple) -> None:
    """PyTorch's ``assert_no_partial_overlap``: an input that shares some, but not exactly all, of the
    memory an in-place op writes would be read after it changed. (As PyTorch, only dense tensors
    are checked: for the others, the check is "too hard".)"""
    for x in inputs:
        if not isinstance(x, Tensor) or x._data is written or x._data.size == 0 or written.size == 0:
            continue
        arr = x._data
        if not (_dense(arr) and _dense(written) and np.may_share_memory(arr, written)):
            continue
        # PyTorch's "full overlap": the same first element, as many elements, the same strides (the
        # shapes may differ: a broadcast error comes next)
        same = (arr.__array_interface__["data"][0] == written.__array_interface__["data"][0]
                and arr.size == written.size and arr.strides == written.strides)
        if not same:
            raise RuntimeError(OVERLAP_MESSAGE)


def inplace(t: Tensor, op: Callable[..., Tensor], *args: Any, **kwargs: Any) -> Tensor:
    """Apply ``op(t, *args, **kwargs)`` and store the result in ``t`` itself; returns ``t``.

    The tensors among ``args`` are the op's other inputs: when one requires grad, the change is
    recorded (tensors passed in ``kwargs`` are taken as constants). An input that overlaps ``t``'s
    memory in part is an error, as in PyTorch (checked after autograd's own checks, as there)."""
    if grad_mode.is_grad_enabled():
        _check_inplace(t, args)
    # TensorIterator's overlap checks, before any other (a broadcast error comes after them)
    if not t._data.flags.writeable and _repeats(t._data):
        raise RuntimeError(REPEATS_MESSAGE)
    check_no_partial_overlap(t._data, args)
    return apply_inplace(t, op, args, kwargs)


def _check_inplace(t: Tensor, args: tuple) -> None:
    """Autograd's errors for an in-place op in grad mode (PyTorch's ``check_inplace``), raised before
    the kernel's: a view that may not change in place, a leaf that requires grad."""
    # a view's history as stored, before anything below reads (and so renews) it: PyTorch's check reads
    # it so too, and a view made before its base required grad, not used since, still has none (a leaf)
    stored = t._grad_fn
    args_need = any(isinstance(a, Tensor) and a.requires_grad for a in args)
    base = t._base
    if base is not None:
        if args_need or t.requires_grad or base.requires_grad:
            _check_view_inplace(t, base)
            if stored is None and base.requires_grad:
                raise RuntimeError(LEAF_MESSAGE)
    elif t._requires_grad and t._grad_fn is None:
        raise RuntimeError(LEAF_MESSAGE)


LEAF_MESSAGE = "a leaf Variable that requires grad is being used in an in-place operation."


def ufunc_inplace(t: Tensor, ufunc: np.ufunc, other: Any, alpha: Any = 1) -> bool:
    """``t += other`` (``-=``, ``*=``) on the array itself, when nothing is recorded and nothing can go
    wrong: a float ``t`` of its own memory, ``other`` a number or a tensor of its shape and dtype that
    does not share t's memory. (The optimizer's ``p -= lr * p.grad``: no copy, no node, issue 17.) With
    ``alpha`` (a number; ``add_``/``sub_`` only): ``t + alpha * other`` fused as add's kernel computes it
    (the optimizers' ``p.add_(grad, alpha=-lr)``).
    Returns False, having done nothing, in every other case: :func:`inplace` then applies the rules."""
    if type(alpha) is not int or alpha != 1:
        if ufunc is not np.add and ufunc is not np.subtract or type(alpha) not in (int, float) or (
                type(other) is not Tensor):
            return False
    data = t._data
    if data.dtype.kind != "f" or t._base is not None or t._is_inference or not data.flags.writeable:
        return False
    if type(other) is Tensor:
        o = other._data
        if o.dtype != data.dtype or o.shape != data.shape or o is data or (
                (o.base is not None or data.base is not None) and np.may_share_memory(o, data)):
            return False  # (two arrays that own their memory share none)
        needs_grad = other._requires_grad or other._grad_fn is not None or other._base is not None
    elif type(other) is float or type(other) is int and -2**63 <= other < 2**64:
        o, needs_grad = other, False
    else:
        return False
    if grad_mode._state.enabled and (needs_grad or t._requires_grad or t._grad_fn is not None):
        return False  # recorded: the general path
    token = quiet_on()
    try:
        if type(alpha) is not int or alpha != 1:  # (add's _plus_scaled, written into t)
            scale = data.dtype.type(alpha if ufunc is np.add else -alpha)
            np.copyto(data, fused_multiply_add(o, scale, data, exact=False))
        else:
            ufunc(data, o, out=data)
    finally:
        quiet_off(token)
    counter = t._counter
    (counter if counter is not None else t._version_counter).value += 1
    return True


def fill_inplace(t: Tensor, op: Callable[..., Tensor], *args: Any) -> Tensor:
    """:func:`inplace` for ``fill_`` and ``zero_``, which PyTorch lets write a tensor whose elements repeat
    in memory (an expanded one): every repeat gets the same value; and for ``x.copy_(x)``, which leaves
    every element as it is."""
    if grad_mode.is_grad_enabled():
        _check_inplace(t, args)
    return apply_inplace(t, op, args, repeats_ok=True)


def apply_inplace(t: Tensor, op: Callable[..., Tensor], args: tuple, kwargs: dict | None = None, *,
                  repeats_ok: bool = False) -> Tensor:
    """:func:`inplace` without the overlap check (for callers that check the written part only)."""
    kwargs = kwargs or {}
    if t._is_inference and not INFERENCE_MODE.enabled:
        raise RuntimeError(INFERENCE_INPLACE_MESSAGE)
    grad_on = grad_mode.is_grad_enabled()
    args_need = grad_on and any(isinstance(a, Tensor) and a.requires_grad for a in args)
    base = t._base
    if base is not None and grad_on and (args_need or t.requires_grad or base.requires_grad):
        return _inplace_on_view(t, base, op, args, kwargs, repeats_ok)
    record = args_need or (grad_on and t.requires_grad)
    if record:
        if t.grad_fn is None and t._requires_grad:
            raise RuntimeError(LEAF_MESSAGE)
        # the old value of t, standing for it in the graph: same grad_fn edge, its own memory
        old = Tensor._make(np.array(t._data, copy=True), grad_fn=t.grad_fn, output_nr=t.output_nr)
        result = op(old, *args, **kwargs)
        _save_original_as_clone(result.grad_fn, old, t)
    else:
        with grad_mode.no_grad():
            result = op(t, *args, **kwargs)
    _write(t, result._data, repeats_ok)
    t._version_counter.value += 1
    if record:
        _move_retained(t, result.grad_fn)
        t.grad_fn, t.output_nr = result.grad_fn, result.output_nr
        _keep_saved_result(result.grad_fn, result, t)
    return t


def _write(t: Tensor, values: np.ndarray, repeats_ok: bool = False) -> None:
    if values.shape != t._data.shape:
        raise RuntimeError(
            f"output with shape {_shape(t._data.shape)} doesn't match the broadcast shape "
            f"{_shape(values.shape)}"
        )
    if values.dtype != t._data.dtype and not np.can_cast(values.dtype, t._data.dtype, "same_kind"):
        name = {"f": "Float", "i": "Long", "b": "Bool", "u": "Byte"}
        raise RuntimeError(
            f"result type {name.get(values.dtype.kind, values.dtype.name)} can't be cast to the "
            f"desired output type {_legacy(t._data.dtype)}"
        )
    if t._data.size == 0:  # nothing to write (an empty expanded view is read-only)
        return
    if not t._data.flags.writeable:  # a view of an expand: PyTorch refuses only where elements repeat
        alias = _writeable_alias(t) if repeats_ok or not _repeats(t._data) else None
        if alias is not None:
            alias[...] = values
            return
        raise RuntimeError(REPEATS_MESSAGE)
    t._data[...] = values


def _repeats(a: np.ndarray) -> bool:
    """Whether elements of ``a`` repeat in memory: a dimension of size > 1 steps 0 (an expand; PyTorch's
    ``has_internal_overlap`` says "yes" to that alone; an empty tensor has no elements to repeat)."""
    return a.size > 0 and any(st == 0 and n > 1 for n, st in zip(a.shape, a.strides))


def _writeable_alias(t: Tensor) -> np.ndarray | None:
    """A writeable array over ``t``'s memory, read from its base's (an expanded view is read-only in
    NumPy), or from the array its data is a view of (the expanded gradient autograd.grad returns); None
    when neither can give one."""
    owner = t._base._data if t._base is not None else t._data.base
    while t._base is None and isinstance(owner, np.ndarray) and isinstance(owner.base, np.ndarray):
        owner = owner.base
    if not isinstance(owner, np.ndarray) or not owner.flags.writeable:
        return None
    interface = t._data.__array_interface__
    return np.asarray(_Memory({**interface, "data": (interface["data"][0], False)}, owner))


class _Memory:
    """An array interface over memory ``base`` owns (what ``np.asarray`` makes keeps ``base`` alive)."""

    def __init__(self, interface: dict, base: np.ndarray) -> None:
        self.__array_interface__ = interface
        self.base = base


def _legacy(d: np.dtype) -> str:
    return {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long",
            "int32": "Int", "bool": "Bool", "uint8": "Byte"}.get(dtypes.from_numpy_dtype(d).name, str(d))


def _shape(s: tuple) -> str:
    return "[" + ", ".join(map(str, s)) + "]"
