"""The backward graph's nodes and ``Function``, the base class of every differentiable operation.

Forward, an operation ``Op.apply(*inputs)`` computes its result and, when an input requires grad,
creates a node ``OpBackward0`` that remembers

- ``next_functions``: one ``(node, output_nr)`` edge per tensor input, pointing at the node that made
  that input (its ``grad_fn``), at the input's ``AccumulateGrad`` node when it is a leaf that requires
  grad, or ``(None, 0)`` when no gradient is wanted there;
- the tensors ``ctx.save_for_backward`` kept for the derivative, with their versions.

Backward, the engine (:mod:`autograd_lab.engine`) calls each node's ``apply`` with the gradients of its
outputs and sends the returned gradients along ``next_functions``. Gradients of broadcast inputs are
summed back to the input's shape here, in one place (:meth:`BackwardNode.apply`), not in every op.
"""

from __future__ import annotations

import itertools
import os
import re
import sys
import traceback
import warnings
import weakref
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

from . import dtypes, grad_mode
from . import tensor as _tensor
from .dtypes import quiet_off as _quiet_off
from .dtypes import quiet_on as _quiet_on
from .tensor import INFERENCE_MODE, OnFirstUse, RemovableHandle, Tensor, ViewMeta, _VersionCounter

_sequence = itertools.count()
_GRAD = grad_mode._state  # read on every op: its attribute, not a function call
_anomaly = {"enabled": False, "check_nan": True}

FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors after they "
    "have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward."
)


INFERENCE_SAVED_MESSAGE = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in inference mode "
    "in computation tracked by autograd. To work around this, you can make a clone to get a normal tensor "
    "and use it in autograd, or use `torch.no_grad()` instead of `torch.inference_mode()`."
)


class _HookDict(OnFirstUse):
    """A node's hook dict, made on first use; it marks the node as one the engine must ask for hooks."""

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self
        obj.__dict__["_hooked"] = True
        if type(obj) is AccumulateGrad:
            obj._own_hooks = True
        return super().__get__(obj, owner)


class Node:
    """A node of the backward graph (``torch.autograd.graph.Node``)."""

    # slots: a node is small, and its __dict__ is made only for what else is set on it (ctx.dim = ...)
    __slots__ = ("_sequence_nr", "_edges", "__dict__", "__weakref__")
    _num_outputs = 1
    # most nodes never get a hook: the dicts are made on first use, and _hooked tells the engine
    _hooked = False
    _on_arrays = False  # its op has backward_arrays (BackwardNode), gradients as arrays (see apply_arrays)
    _tensor_hooks: dict[int, dict[int, Callable]] = _HookDict(dict)
    _retained: dict[int, weakref.ref] = _HookDict(dict)
    _pre_hooks: dict[int, Callable] = _HookDict(dict)
    _post_hooks: dict[int, Callable] = _HookDict(dict)
    metadata: dict[str, Any] = OnFirstUse(dict)
    _forward_trace: list[str] | None = None

    def __init__(self, edges: tuple = ()) -> None:
        self._sequence_nr = next(_sequence)
        # the edges flat, node, output_nr, node, output_nr, ...: one object per node for the garbage
        # collector to track, instead of a tuple per edge more; next_functions pairs them up
        self._edges: tuple[Node | int | None, ...] = edges
        if _anomaly["enabled"]:
            self._forward_trace = _user_stack()

    @property
    def next_functions(self) -> tuple[tuple[Node | None, int], ...]:
        edges = self._edges
        return tuple(zip(edges[::2], edges[1::2]))

    @property
    def _next_functions(self) -> tuple[tuple[Node | None, int], ...]:
        return self.next_functions

    @_next_functions.setter
    def _next_functions(self, edges: tuple[tuple[Node | None, int], ...]) -> None:
        self._edges = tuple(x for edge in edges for x in edge)

    def name(self) -> str:
        return type(self).__name__

    def apply(self, *grad_outputs: Tensor | None) -> tuple[Tensor | None, ...]:
        raise NotImplementedError

    def __call__(self, *grad_outputs: Tensor | None) -> Any:
        out = self.apply(*grad_outputs)
        return out[0] if len(out) == 1 else out

    def register_hook(self, fn: Callable) -> RemovableHandle:
        """``fn(grad_inputs, grad_outputs)`` runs after this node computed its gradients.

        As in PyTorch, ``grad_inputs`` are the gradients this node computed (one per input of the
        forward op) and ``grad_outputs`` the ones it received; ``fn`` may return new grad_inputs.
        """
        key = next(_sequence)
        self._post_hooks[key] = fn
        return RemovableHandle(self._post_hooks, key)

    def register_prehook(self, fn: Callable) -> RemovableHandle:
        """``fn(grad_outputs)`` runs before this node; it may return replacement gradients."""
        key = next(_sequence)
        self._pre_hooks[key] = fn
        return RemovableHandle(self._pre_hooks, key)

    def saved_items(self) -> list[tuple[str, Tensor | None]]:
        """What this node saved for backward, by name (empty once freed). Read by viz."""
        return []

    def _release(self) -> None:
        """Free what was saved for backward (the engine calls this unless retain_graph)."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {hex(id(self))}>"


class SavedTensor:
    """A tensor saved for backward, with the version it had when saved.

    A saved *output* of the node is kept as its data alone: keeping the tensor would make a cycle
    (output -> grad_fn -> saved output) that only the garbage collector could break.
    """

    __slots__ = ("tensor", "data", "_counter", "version", "output_nr", "requires_grad", "producer")

    def __init__(self, t: Tensor) -> None:
        if t._is_inference:
            raise RuntimeError(INFERENCE_SAVED_MESSAGE)
        self.tensor: Tensor | None = t
        self.data: np.ndarray | None = None
        # a tensor never changed in place has no counter yet (version 0): read it from the tensor
        # when needed, rather than make one for every saved constant
        counter = t._counter
        self._counter = None
        self.version = 0 if counter is None else counter.value
        self.output_nr = -1
        self.requires_grad = t._requires_grad or t._grad_fn is not None
        # a saved result written into a view: the view's grad_fn then (weakly), named in messages
        self.producer: weakref.ref | None = None

    @property
    def counter(self) -> Any:
        """The version counter of what was saved (the tensor's own while the tensor is kept)."""
        return self._counter if self._counter is not None else self.tensor._version_counter

    @counter.setter
    def counter(self, value: Any) -> None:
        self._counter = value

    def unpack(self, node: Node) -> Tensor:
        counter = self._counter if self._counter is not None else self.tensor._counter
        if (0 if counter is None else counter.value) != self.version:  # None: never changed
            raise RuntimeError(self._version_message(node))
        if self.tensor is not None:
            return self.tensor
        fn, nr = node, self.output_nr
        if self.producer is not None and self.producer() is not None:
            # written into a view: its history is the view's (through CopySlices) while that lives, as
            # PyTorch's; a double backward through the node itself would run it twice
            fn, nr = self.producer(), 0
        t = Tensor._make(self.data, grad_fn=fn if self.requires_grad else None, output_nr=nr)
        t._version_counter = self.counter
        return t

    def array(self, node: Node) -> np.ndarray:
        """What :meth:`unpack` gives, as its array alone (a formula that builds no graph needs no Tensor)."""
        self.check_version(node)
        return self.tensor._data if self.tensor is not None else self.data

    def check_version(self, node: Node) -> None:
        """Raise PyTorch's error if what was saved has been changed in place since."""
        counter = self._counter if self._counter is not None else self.tensor._counter
        if (0 if counter is None else counter.value) != self.version:
            raise RuntimeError(self._version_message(node))

    @classmethod
    def of_unchanged(cls, t: Tensor) -> SavedTensor:
        """The SavedTensor of a tensor a node keeps as it is (saved at version 0; see :func:`saved_item`)."""
        s = cls(t)
        s.version = 0
        return s

    def _version_message(self, node: Node) -> str:
        data = self.tensor._data if self.tensor is not None else self.data
        type_name = _legacy_type(data.dtype)
        desc = f"[{type_name} [{', '.join(str(s) for s in data.shape)}]]"
        producer = self.producer() if self.producer is not None else None
        if producer is not None:  # as PyTorch: the view's grad_fn while it lives, else the node
            desc += f", which is output 0 of {_op_name(producer)},"
        elif self.tensor is None:
            desc += f", which is output {self.output_nr} of {_op_name(node)},"
        elif self.tensor.grad_fn is not None:
            desc += f", which is output {self.tensor.output_nr} of {_op_name(self.tensor.grad_fn)},"
        return (
            "one of the variables needed for gradient computation has been modified by an inplace "
            f"operation: {desc} is at version {self.counter.value}; expected version {self.version} "
            "instead. Hint: enable anomaly detection to find the operation that failed to compute its "
            "gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False)."
        )


def saved_item(t: Tensor) -> SavedTensor | Tensor | tuple:
    """How a node keeps a tensor saved for backward: the tensor itself while it was never changed in
    place (version 0, the common case: no object more for the garbage collector), else a
    :class:`SavedTensor` with its version; a Python number as (its array, the number)."""
    if t._wrapped_number is not None:
        return (t._data, t._wrapped_number)
    counter = t._counter
    if (counter is None or not counter.value) and not t._is_inference:
        return t
    return SavedTensor(t)


def as_saved_tensor(s: SavedTensor | Tensor) -> SavedTensor:
    """A saved item that holds a tensor, as a :class:`SavedTensor`."""
    return s if isinstance(s, SavedTensor) else SavedTensor.of_unchanged(s)


def _op_name(node: Node) -> str:  # as PyTorch's messages name it: PowBackward0 -> Pow, PowBackward1 -> Pow1
    return re.sub(r"Backward0?(\d*)$", r"\1", node.name())


def _legacy_type(np_dtype: np.dtype) -> str:
    return dtypes.deprecated_type_name(np_dtype)


class FunctionCtx:
    """What ``forward`` and ``backward`` of a :class:`Function` receive as ``ctx``."""

    __slots__ = ()
    needs_input_grad: tuple[bool, ...] = ()
    materialize_grads = True

    def save_for_backward(self, *tensors: Tensor | None) -> None:
        """Keep tensors for backward; backward reads them back from ``ctx.saved_tensors``."""

    def mark_non_differentiable(self, *tensors: Tensor) -> None:
        """Outputs that get no gradient (indices, masks)."""

    def set_materialize_grads(self, value: bool) -> None:
        """Whether backward receives zeros (True, the default) or None for unused outputs."""
        self.materialize_grads = value


class _ForwardOnlyCtx(FunctionCtx):
    """The ctx of a call that records nothing (grad mode off, or no input requires grad)."""

    def __init__(self, n: int) -> None:
        self.needs_input_grad = (False,) * n


_NOTHING_SAVED: Any = ()  # shared by the nodes that save nothing


class _Released(tuple):
    """The ``_saved`` of a node that saved nothing, after backward released it."""


_NOTHING_FREED = _Released()


class BackwardNode(Node, FunctionCtx):
    """The node of a :class:`Function` call; it is also that call's ``ctx``."""

    _forward_cls: ClassVar[type[Function]]
    __slots__ = ("_saved", "_tensor_positions", "_input_meta", "_output_meta", "_num_inputs",
                 "needs_input_grad", "_never_saved")
    # what Function.apply does not set on every node stays a class default
    _non_differentiable: tuple[Tensor, ...] = ()
    # set by CopySlices while it runs this node: the view's gradient keeps its dtype (PyTorch's copy_ into
    # the base's gradient converts it, no ToCopyBackward0 recorded)
    _keep_first_dtype = False
    # an op of this package (PyTorch's own node: every saved tensor unpacked first), not a user's Function
    _builtin = False

    def __init__(self, edges: tuple, num_inputs: int, layout: tuple[tuple, tuple, tuple]) -> None:
        Node.__init__(self, edges)
        self._saved: tuple[SavedTensor | np.ndarray | None, ...] | None = _NOTHING_SAVED
        # which arguments are tensors, their shapes and dtypes, which need a gradient (see _layout)
        self._tensor_positions, self._input_meta, self.needs_input_grad = layout
        self._output_meta: tuple[tuple[tuple[int, ...], np.dtype], ...] = ()
        self._num_inputs = num_inputs
        self._never_saved = 0  # bit i: save_for_backward was given None at position i

    def save_for_backward(self, *tensors: Tensor | None) -> None:
        cls = self._forward_cls
        if cls.saved_for:  # as PyTorch, only what the gradient of an input that requires grad reads
            needs = self.needs_input_grad
            kept = cls._kept.get(needs)
            if kept is None:  # once per op and pattern of inputs that require grad
                kept = cls._kept[needs] = tuple(any(needs[i] for i in use) for use in cls.saved_for)
            tensors = [t if keep else None for t, keep in zip(tensors, kept)]
        # a tuple, and a Python number as (its array, the number): objects the garbage collector need
        # not track
        self._saved = saved = tuple([None if t is None else saved_item(t) for t in tensors])
        never = 0  # what was never saved reads None after backward too (not "freed"): a bit mask, no
        for i, s in enumerate(saved):  # object (`is`, not `None in saved`: a tensor compares elementwise)
            if s is None:
                never |= 1 << i
        self._never_saved = never

    def _unpack(self, s: SavedTensor | tuple | None) -> Tensor | None:
        """A saved item as ``node._saved_<name>`` shows it (a Python number: a 0-d tensor of PyTorch's
        dtype for numbers, int64, float64, complex128 or bool, whatever the op's dtype)."""
        if s is None:
            return None
        if type(s) is tuple:
            return Tensor._make(np.asarray(s[1], dtype=_number_dtype(s[1])))
        if isinstance(s, SavedTensor):
            return s.unpack(self)
        counter = s._counter  # a tensor kept as it is: saved at version 0
        if counter is not None and counter.value:
            raise RuntimeError(SavedTensor.of_unchanged(s)._version_message(self))
        return s

    @property
    def saved_tensors(self) -> tuple[Tensor | None, ...]:
        if self._freed:
            raise RuntimeError(FREED_MESSAGE)
        # read in every backward; a Python number as a 0-d tensor of the op's dtype
        try:
            return tuple([s if type(s) is Tensor and (s._counter is None or not s._counter.value)
                          else None if s is None else Tensor._make(s[0]) if type(s) is tuple
                          else self._unpack(s) for s in self._saved])
        except RuntimeError:
            self._raise_first_modified()
            raise  # (no saved tensor changed: a saved-tensor hook's own error)

    @property
    def saved_arrays(self) -> list[np.ndarray | None]:
        """``saved_tensors`` as their arrays, checked the same way: for backward formulas that build no
        graph (no ``create_graph``), which compute on arrays and make one Tensor at the end (issue 17).
        (A plain loop, not a comprehension: it runs in every backward, and is a third of the cost.)"""
        saved = self._saved
        if saved is None or saved is _NOTHING_FREED:  # (self._freed, inline: read in every backward)
            raise RuntimeError(FREED_MESSAGE)
        arrays = []
        for s in saved:
            if s is None:
                arrays.append(None)
            elif type(s) is tuple:  # a Python number: (its array, the number)
                arrays.append(s[0])
            elif type(s) is Tensor and s._counter is None:  # a tensor never changed in place
                arrays.append(s._data)
            else:
                try:
                    arrays.append(s.array(self) if isinstance(s, SavedTensor) else self._unpack(s)._data)
                except RuntimeError:
                    self._raise_first_modified()
                    raise  # (no saved tensor changed: a saved-tensor hook's own error)
        return arrays

    def _raise_first_modified(self) -> None:
        """Raise the error for the first saved tensor changed in place, in the order PyTorch's generated
        nodes unpack them: inputs by name, then results (``other`` before ``self``; ``max``, ``min``,
        ``self``); return if none changed."""
        names = self._forward_cls.saved_names
        order = sorted(range(len(self._saved)), key=lambda i: (
            (names[i].startswith("result"), names[i]) if i < len(names) else (True, "~", i)))
        for i in order:
            s = self._saved[i]
            if s is not None and type(s) is not tuple:
                try:
                    s.check_version(self) if isinstance(s, SavedTensor) else self._unpack(s)
                except RuntimeError as e:
                    raise e from None

    def mark_non_differentiable(self, *tensors: Tensor) -> None:
        self._non_differentiable += tensors

    def saved_items(self) -> list[tuple[str, Tensor | None]]:
        """``(name, tensor)`` for each saved tensor: PyTorch's name (``self``, ``other``,
        ``result``, ...) where the op declares it, else ``saved <position>``."""
        if self._freed or not self._saved:
            return []
        names = self._forward_cls.saved_names
        out = []
        for i, s in enumerate(self._saved):
            if s is not None:
                if type(s) is tuple:
                    t = self._unpack(s)
                elif isinstance(s, SavedTensor):
                    t = s.tensor if s.data is None else Tensor._make(s.data)
                else:
                    t = s
                out.append((names[i] if i < len(names) else f"saved {i}", t))
        return out

    def __getattr__(self, name: str) -> Any:
        """``node._saved_self``, ``node._saved_result``, ...: a saved tensor by PyTorch's name
        (None when the op did not need to save it; an error once backward freed it)."""
        if name.startswith("_saved_") and name[7:] in type(self)._forward_cls.saved_names:
            i = type(self)._forward_cls.saved_names.index(name[7:])
            if self._freed:
                if self._never_saved >> i & 1:  # nothing to free: None still (PyTorch)
                    return None
                raise RuntimeError(FREED_MESSAGE)
            return self._unpack(self._saved[i])
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __dir__(self) -> list[str]:  # tab completion shows the _saved_ names
        return sorted({*super().__dir__(), *(f"_saved_{n}" for n in type(self)._forward_cls.saved_names)})

    @property
    def _freed(self) -> bool:
        """Whether backward released what was saved (read from ``_saved``: no attribute more per node)."""
        return self._saved is None or self._saved is _NOTHING_FREED

    def _release(self) -> None:
        saved = self._saved
        if not saved:  # nothing saved: nothing to free, but released (CopySlices raises when run again)
            self._saved = _NOTHING_FREED
        elif self._never_saved != (1 << len(saved)) - 1:  # (only Nones saved: nothing to free)
            self._saved = None

    def apply(self, *grad_outputs: Tensor | None) -> tuple[Tensor | None, ...]:
        if self._on_arrays and not _GRAD.enabled and _all_tensors(grad_outputs):  # no graph: on arrays
            return tuple(as_tensors(self.apply_arrays(list(grad_outputs))))
        if (grad_outputs[0] is None if len(grad_outputs) == 1 else _has_none(grad_outputs)
                ) and self.materialize_grads:  # unused outputs: zeros
            if self._builtin and all(g is None for g in grad_outputs):  # PyTorch's own nodes: no gradient
                return (None,) * len(self._tensor_positions)  # in, none out (a hook's None, say)
            grad_outputs = tuple(
                g if g is not None else Tensor._make(np.zeros(shape, dtype))
                for g, (shape, dtype) in zip(grad_outputs, self._output_meta)
            )
        if self._saved is None and self._builtin:  # PyTorch's own nodes unpack every saved tensor first:
            raise RuntimeError(FREED_MESSAGE)  # a freed one raises, whichever gradient is asked for
        result = self._forward_cls.backward(self, *grad_outputs)
        if type(result) is not tuple and not isinstance(result, tuple):
            result = (result,)
        n = self._num_inputs
        if len(result) != n:
            if len(result) > n and all(r is None for r in result[n:]):
                result = result[:n]
            else:
                raise RuntimeError(
                    f"function {self.name()} returned an incorrect number of gradients "
                    f"(expected {n}, got {len(result)})"
                )
        positions = self._tensor_positions  # the gradients of the tensor arguments (all, commonly)
        grads = result if len(positions) == n else tuple([result[pos] for pos in positions])
        meta = self._input_meta  # (shape, dtype) of each tensor argument
        i = 0
        for g in grads:
            if g is not None:
                # the common case, a Tensor of the input's shape and dtype, needs no validation
                # (NumPy's built-in dtypes are singletons: `is` first, == only when they differ)
                d = g._data if type(g) is Tensor else None
                shape, dtype = meta[i]
                if d is None or d.shape != shape or d.dtype is not dtype and d.dtype != dtype:
                    grads = (*grads[:i], _validate_grad(self, i, g, shape, dtype), *grads[i + 1:])
            i += 1
        return grads

    def apply_arrays(self, grads: list[Any], release: bool = False) -> tuple[Any, ...]:
        """:meth:`apply` on arrays, for a node whose op has ``backward_arrays``, when no graph is built (the
        engine's plain backward; ``apply`` with grad mode off): gradients come in as arrays or Tensors
        (taken as their arrays) and leave as arrays. An incoming Tensor that carries something an array
        does not (a version, from a change in place; being a view), passed on as it is (``a + b``'s
        gradient), leaves as that Tensor; a gradient of another shape or dtype than its input is brought
        to it as ``apply`` does, a Tensor too. A None (an unused output) takes ``apply``. ``release``: free
        what was saved once it is read (the engine's ``_release``, without a call more per node)."""
        carried = None  # id of an array -> the Tensor it came in, with a version or as a view
        i = 0
        for g in grads:
            if type(g) is Tensor:
                if g._base is not None or g._counter is not None and g._counter.value:
                    carried = carried or {}
                    carried[id(g._data)] = g
                grads[i] = g._data
            elif g is None:
                result = self.apply(*as_tensors(grads))
                if release:
                    self._release()
                return result
            i += 1
        saved = self._saved
        if saved is None:  # (a built-in node: freed is freed, whatever it is asked)
            raise RuntimeError(FREED_MESSAGE)
        result = self._forward_cls.backward_arrays(self, *grads)
        if release:  # _release, inline
            if not saved:
                self._saved = _NOTHING_FREED
            elif self._never_saved != (1 << len(saved)) - 1:
                self._saved = None
        positions = self._tensor_positions
        if len(positions) != self._num_inputs:
            result = tuple([result[pos] for pos in positions])
        if carried is not None:
            result = tuple([carried.get(id(g), g) if g is not None and type(g) is not Tensor else g
                            for g in result])
        meta = self._input_meta
        i = 0
        for g in result:
            if g is not None:
                shape, dtype = meta[i]
                d = g._data if type(g) is Tensor else g
                if d.shape != shape or d.dtype is not dtype and d.dtype != dtype:
                    if g is not d:  # a Tensor
                        fixed = _validate_grad(self, i, g, shape, dtype)
                    elif d.dtype is dtype and d.ndim > len(shape) and (d.shape, shape) in _SUMMED_DIMS:
                        # a bias's: _validate_grad's steps, for a pair of shapes it has checked before
                        fixed = _no_grad_view(_sum_to_shape(d, shape, keep=True), shape)
                    else:
                        fixed = _validate_grad(self, i, Tensor._make(d), shape, dtype)
                    result = (*result[:i], fixed, *result[i + 1:])
            i += 1
        return result


def _all_tensors(grads: tuple) -> bool:
    for g in grads:
        if type(g) is not Tensor:
            return False
    return True


def as_tensors(grads: list[Any] | tuple[Any, ...]) -> list[Tensor | None]:
    """Gradients as Tensors (the engine passes arrays between nodes that take them: see apply_arrays)."""
    return [g if g is None or type(g) is Tensor else Tensor._make(g) for g in grads]


def _number_dtype(number: Any) -> type:
    """The dtype PyTorch gives a Python number it takes as a 0-d tensor (a "wrapped number")."""
    if isinstance(number, (bool, np.bool_)):
        return np.bool_
    if isinstance(number, (int, np.integer)):
        return np.int64
    return np.complex128 if isinstance(number, (complex, np.complexfloating)) else np.float64


def _has_none(items: tuple) -> bool:
    for g in items:  # not `None in items`: that would compare tensors with ==
        if g is None:
            return True
    return False


def _validate_grad(node: Node, index: int, g: Any, shape: tuple, dtype: np.dtype) -> Tensor:
    """Bring a returned gradient to its input's shape and dtype: THE place broadcasting is undone."""
    if not isinstance(g, Tensor):
        raise TypeError(
            f"function {node.name()} returned a gradient of type {type(g).__name__} at index {index}, "
            "expected a Tensor or None"
        )
    if g._data.shape != shape:
        if (g._data.shape, shape) not in _SUMMED_DIMS and not _expandable_to(shape, g._data.shape):
            raise RuntimeError(
                f"Function {node.name()} returned an invalid gradient at index {index} - got "
                f"[{', '.join(map(str, g._data.shape))}] but expected shape compatible with "
                f"[{', '.join(map(str, shape))}]"
            )
        if _GRAD.enabled:  # create_graph: the sum is recorded
            g = g.sum_to_size(shape)
        elif g._data.ndim > len(shape):  # nothing to record: sum_to_size's reduction on the array, and as
            g = _no_grad_view(_sum_to_shape(g._data, shape, keep=True), shape)  # PyTorch's a view of it
        else:
            g = Tensor._make(_sum_to_shape(g._data, shape))
    if g._data.dtype != dtype and not (index == 0 and node._keep_first_dtype):
        g = g.to(_dtype_of(dtype))
    return g


_SUMMED_DIMS: dict[tuple[tuple[int, ...], tuple[int, ...]], tuple[int, ...]] = {}


def _sum_to_shape(data: np.ndarray, shape: tuple[int, ...], keep: bool = False) -> np.ndarray:
    """``sum_to_size`` on an array (the dims it sums, worked out once per pair of shapes;
    ``np.add.reduce`` is what ``np.sum`` calls); with ``keep``, the sum with its leading dims kept, as
    PyTorch's ``at::sum_to`` makes it before viewing it as ``shape``."""
    key = (data.shape, shape)
    dims = _SUMMED_DIMS.get(key)
    if dims is None:
        if len(_SUMMED_DIMS) > 4096:
            _SUMMED_DIMS.clear()
        lead = data.ndim - len(shape)
        dims = _SUMMED_DIMS[key] = tuple(range(lead)) + tuple(
            lead + i for i, s in enumerate(shape) if s == 1 and data.shape[lead + i] != 1)
    if not dims:
        return data.reshape(shape)
    out = np.add.reduce(data, axis=dims, keepdims=True)
    if not data.flags.c_contiguous:  # PyTorch's sum is laid out by rows, NumPy's as its input (a size-1
        out = np.ascontiguousarray(out).reshape(-1).reshape(out.shape)  # dim's stride too)
    return out if keep or out.shape == shape else out.reshape(shape)


def _no_grad_view(summed: np.ndarray, shape: tuple[int, ...]) -> Tensor:
    """A sum with its leading dims kept, viewed as ``shape``: what PyTorch's ``at::sum_to`` returns where
    it drops leading dims. Made in no_grad mode (a backward), so changing it in place with grad mode on
    is PyTorch's error."""
    base = Tensor._make(summed)
    t = Tensor._make(summed.reshape(shape))
    t._counter = base._counter = _VersionCounter()
    t._base = base
    t._view_meta = ViewMeta(0, True)
    return t


def _dtype_of(np_dtype: np.dtype) -> Any:
    return dtypes.from_numpy_dtype(np_dtype)


def _expandable_to(shape: tuple, target: tuple) -> bool:
    """Whether ``shape`` broadcasts to ``target`` (so a gradient of ``target`` sums back to it)."""
    if len(shape) > len(target):
        return False
    for s, t in zip(reversed(shape), reversed(target)):
        if s != 1 and s != t:
            return False
    return True


class AccumulateGrad(Node):
    """The node at the end of every path: adds the arriving gradient into ``variable.grad``."""

    __slots__ = ("variable",)
    # the same for every one (class attributes, not set per node: a leaf's AccumulateGrad is made again
    # whenever the graph holding it died, in every training step)
    _sequence_nr = sys.maxsize  # PyTorch runs accumulation as soon as it is ready
    _edges = ()
    _own_hooks = False  # set on the node once it has a hook of its own (register_hook on it: _HookDict)

    def __init__(self, variable: Tensor) -> None:
        self.variable = variable
        if _anomaly["enabled"]:
            self._forward_trace = _user_stack()

    @property
    def _hooked(self) -> bool:
        """Whether the engine must look for hooks: the node's own, or the leaf's."""
        return self._own_hooks or bool(self.variable._leaf_hooks)  # (no __dict__ made to ask)

    @property
    def _tensor_hooks(self) -> dict[int, dict[int, Callable]]:
        """The leaf's own hooks (``leaf.register_hook``), empty when it has none."""
        hooks = self.variable._leaf_hooks
        return {0: hooks} if hooks else {}

    @_tensor_hooks.setter
    def _tensor_hooks(self, value: dict) -> None:  # Node.__init__ sets it; a leaf keeps its own
        pass

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"  # PyTorch's C++ name; the class is AccumulateGrad

    def apply(self, *grad_outputs: Tensor | None) -> tuple[()]:
        grad = grad_outputs[0]
        var = self.variable
        if grad is None or not var._requires_grad:  # requires_grad_(False) since: no .grad (PyTorch)
            return ()
        if _GRAD.enabled:  # create_graph=True: .grad keeps its own graph
            var._grad = grad if var._grad is None else var._grad + grad
        elif var._grad is None:
            var._grad = Tensor._make(_grad_copy(grad._data, var._data))
            if grad._counter is not None and grad._data.base is None:  # PyTorch would take it as it is:
                var._grad._version_counter.value = grad._counter.value  # its version too (engine sums)
        else:
            try:
                var._grad._data += grad._data
                var._grad._version_counter.value += 1
            except ValueError:  # a read-only or broadcast .grad the user assigned
                var._grad = Tensor._make(var._grad._data + grad._data)
        if var._post_accumulate_grad_hooks:  # register_post_accumulate_grad_hook: after .grad is updated
            for hook in list(var._post_accumulate_grad_hooks.values()):
                if (result := hook(var)) is not None:  # (checked as any hook's result first, as PyTorch's)
                    checked_hook_result(var, result, hook)
                    raise RuntimeError("Tensor post accumulate grad hooks should return None.")
        return ()

    def take(self, grad: Tensor) -> tuple[()]:
        """``apply`` for a gradient the engine hands over, nothing else holding it (nor its array): the
        first one, of the variable's dtype and strides, owning its memory, becomes ``.grad`` as it is, as
        PyTorch's AccumulateGrad steals a gradient no other tensor uses (its version too). No copy: a
        training step's weight gradients are kept as the matrix products made them."""
        var = self.variable
        if type(grad) is not Tensor:  # an array from apply_arrays, nothing else holding it (the engine
            # checked): .grad as it is where it owns its memory
            if grad.base is None and _takes_as_grad(var, grad):
                var._grad = Tensor._make(grad)
                return ()
            return self.apply(Tensor._make(grad))
        data = grad._data
        if (grad._grad_fn is None and not grad._requires_grad and _takes_as_grad(var, data)
                and sys.getrefcount(data) == 3):  # (grad._data, data, the argument)
            base = grad._base
            if base is None:
                if data.base is None:
                    var._grad = grad
                    return ()
            # a view of a sum nothing else holds (a bias's gradient, summed over the batch: see
            # _validate_grad): PyTorch takes it as ``grad.detach()``, no view, sharing its version
            elif (base._base is None and data.base is base._data and base._data.base is None
                  and sys.getrefcount(base) == 3 and sys.getrefcount(base._data) == 3):
                # (base: grad._base, base, the argument; its array: base._data, data.base, the argument)
                grad._base = grad._view_meta = None
                var._grad = grad
                return ()
        return self.apply(grad)


def _takes_as_grad(var: Tensor, g: np.ndarray) -> bool:
    """Whether ``var``'s first ``.grad`` can be a gradient with array ``g`` as it is (no copy), as
    PyTorch's AccumulateGrad takes one: no graph being built, the variable's dtype and strides (its layout
    contract), no post-accumulate hook to see it first."""
    return (var._grad is None and var._requires_grad and not _GRAD.enabled and g.dtype is var._data.dtype
            and g.strides == var._data.strides and not var._post_accumulate_grad_hooks)


def _grad_copy(g: np.ndarray, variable: np.ndarray) -> np.ndarray:
    """A new ``.grad``'s array: ``g`` copied into the variable's layout and dtype (PyTorch's
    ``clone_obey_contract``: a transposed variable gets a transposed gradient, a row-major one a row-major
    gradient whatever the layout of what backward computed)."""
    if g.strides == variable.strides and g.dtype is variable.dtype:
        return np.array(g, copy=True)
    out = np.empty_like(variable)  # (NumPy keeps a dense array's order of dims)
    np.copyto(out, g, casting="unsafe")
    return out


def checked_hook_result(old: Tensor, new: Any, hook: Callable) -> Tensor:
    """What a hook returned in place of the tensor ``old``, checked as PyTorch checks it: a tensor of
    the same dtype and shape."""
    if old is None:
        raise RuntimeError("can't replace a None gradient with a non-None value")
    if not isinstance(new, Tensor):
        raise TypeError(f"expected Variable, but hook returned '{type(new).__name__}'")
    if new._data.dtype != old._data.dtype:
        raise RuntimeError(f"hook '{hook_name(hook)}' has changed the type of value (was "
                           f"{_legacy_type(old._data.dtype)} got {_legacy_type(new._data.dtype)})")
    if new._data.shape != old._data.shape:
        raise RuntimeError(f"hook '{hook_name(hook)}' has changed the size of value")
    return new


def hook_name(hook: Callable) -> str:
    name = getattr(hook, "__name__", None)
    return name if isinstance(name, str) else "<unknown>"


def gradient_edge(t: Tensor) -> tuple[Node | None, int]:
    """The edge a gradient for ``t`` flows along: its grad_fn, its AccumulateGrad, or nowhere."""
    fn = t._grad_fn if t._view_meta is None else t.grad_fn  # only a view's history can need a refresh
    if fn is not None:
        return (fn, t.output_nr)
    if t._requires_grad:
        return (accumulate_node(t), 0)
    return (None, 0)


def accumulate_node(leaf: Tensor) -> AccumulateGrad:
    """A leaf's AccumulateGrad: held weakly by the leaf (it holds the leaf), so made again whenever no
    graph holds it any more."""
    ref = leaf._accumulate_ref
    if ref is None or (node := ref()) is None:
        node = object.__new__(AccumulateGrad)  # AccumulateGrad(leaf), its __init__ inline
        node.variable = leaf
        if _anomaly["enabled"]:
            node._forward_trace = _user_stack()
        leaf._accumulate_ref = weakref.ref(node)
    return node


class Function:
    """Base class of differentiable operations (``torch.autograd.Function``).

    Subclass it with two static methods, forward and backward, side by side::

        class Exp(Function):
            @staticmethod
            def forward(ctx, x):
                y = x.exp()
                ctx.save_for_backward(y)
                return y

            @staticmethod
            def backward(ctx, grad):
                (y,) = ctx.saved_tensors
                return grad * y

    and call it as ``Exp.apply(x)``. ``forward`` runs with grad mode off and NumPy quiet (an inf or a nan
    is a value, as in PyTorch, not a RuntimeWarning); ``backward`` returns one gradient (or None) per
    argument of ``forward``. The node is named ``ExpBackward``; the built-in ops set ``node_name`` to
    PyTorch's names (``MulBackward0``).
    """

    node_name: ClassVar[str | None] = None
    # PyTorch's names of what forward saves, in order: node._saved_<name>, and labels in drawings
    saved_names: ClassVar[tuple[str, ...]] = ()
    # per saved name, the forward arguments (positions) whose gradient reads it: PyTorch saves a tensor
    # only when one of them requires grad (derivatives.yaml); () saves every tensor given. (mul and div,
    # the hottest ops, apply the same rule inline, with ctx.needs_input_grad)
    saved_for: ClassVar[tuple[tuple[int, ...], ...]] = ()
    _kept: ClassVar[dict[tuple[bool, ...], tuple[bool, ...]]]  # saved_for worked out per needs_input_grad
    # what forward sets on ctx in the common case, as defaults of the node class: a node with nothing
    # else set on it gets no __dict__ (AddBackward0's alpha of 1)
    node_defaults: ClassVar[dict[str, Any]] = {}
    # the hottest built-in ops' backward once more, on NumPy arrays, for when no graph of the derivative is
    # built (no create_graph): ``backward_arrays(ctx, *grad_arrays)`` returns an array or None per argument
    # of forward (a Tensor where the gradient has a version, as one made in place). The engine hands such
    # nodes arrays, no Tensor made between two nodes (issue 17); backward, in Tensor ops, stays the
    # formula (and is what create_graph records).
    backward_arrays: ClassVar[Callable[..., tuple] | None] = None
    _backward_cls: ClassVar[type[BackwardNode]]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._kept = {}
        name = cls.__dict__.get("node_name") or f"{cls.__name__}Backward"
        cls._backward_cls = type(
            name, (BackwardNode,), {"_forward_cls": cls, "__module__": cls.__module__,
                                    "__qualname__": name, "__slots__": (), **cls.node_defaults,
                                    "_builtin": cls.__module__.startswith("autograd_lab."),
                                    "_on_arrays": cls.backward_arrays is not None}
        )

    @staticmethod
    def forward(ctx: Any, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            "You must implement the forward function for custom autograd.Function."
        )

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom autograd.Function "
            "to use it with backward mode AD."
        )

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        if _GRAD.enabled and not (_tensor.open_inference_blocks and INFERENCE_MODE.enabled):
            for a in args:  # a view made in no_grad mode of a tensor that requires grad requires grad
                if isinstance(a, Tensor) and (a._requires_grad or a._grad_fn is not None
                                              or a._view_meta is not None and a.requires_grad):
                    return _record(cls, args, kwargs)
        # Nothing to record (as in every backward formula without create_graph): the forward alone.
        out = _run_forward(cls, _ForwardOnlyCtx(len(args)), args, kwargs)
        if _GRAD.enabled:  # (a view of a view made in no_grad mode is one too: _view inherits it)
            return out
        # views made in no_grad mode must not change in place in grad mode
        if type(out) is Tensor:
            if out._view_meta is not None:
                out._view_meta.no_grad = True
            return out
        for o in out if isinstance(out, tuple) else (out,):
            if isinstance(o, Tensor) and o._view_meta is not None:
                o._view_meta.no_grad = True
        return out


def _record(cls: type[Function], args: tuple, kwargs: dict) -> Any:
    """``cls.apply`` when the call is recorded: the node, its edges, the forward, the outputs."""
    edges, signature = [], []
    for a in args:
        if isinstance(a, Tensor):
            # gradient_edge, inline for the common cases: a result of a recorded op, a leaf
            if a._view_meta is not None:
                fn, nr = gradient_edge(a)
                edges += (fn, nr)
            elif a._grad_fn is not None:
                fn = a._grad_fn
                edges += (fn, a.output_nr)
            elif a._requires_grad:
                fn = accumulate_node(a)
                edges += (fn, 0)
            else:
                fn = None
                edges += (None, 0)
            data = a._data
            signature.append((data.shape, data.dtype, fn is not None))
        else:
            signature.append(None)
    node = cls._backward_cls(tuple(edges), len(args), _layout(tuple(signature)))

    _GRAD.enabled = False  # the forward with grad mode off and NumPy quiet (_run_forward, inlined)
    token = _quiet_on()
    try:
        out = cls.forward(node, *args, **kwargs)
    finally:
        _GRAD.enabled = True
        _quiet_off(token)
    if type(out) is Tensor and not node._non_differentiable:  # one output, the common case
        for a in args:
            if out is a:  # an input returned as it is: its result is a new tensor
                out = Tensor._make(out._data)
                break
        node._output_meta = _shared(((out._data.shape, out._data.dtype),))
        _attach(node, out, 0)
        return out
    fresh = []
    for o in out if isinstance(out, tuple) else (out,):
        if isinstance(o, Tensor) and any(o is a for a in args):
            o = Tensor._make(o._data)
        fresh.append(o)
    if len(fresh) != 1:
        node._num_outputs = len(fresh)
    node._output_meta = _shared(tuple(
        (o._data.shape, o._data.dtype) if isinstance(o, Tensor) else ((), np.float32) for o in fresh
    ))
    non_differentiable = node._non_differentiable
    for nr, o in enumerate(fresh):
        if isinstance(o, Tensor) and not any(o is t for t in non_differentiable):
            _attach(node, o, nr)
    if non_differentiable:
        node._non_differentiable = ()
    return tuple(fresh) if isinstance(out, tuple) else fresh[0]


_BINARY: dict[tuple, tuple] = {}


def record_binary(cls: type[Function], out: np.ndarray, a: Tensor, b: Any, b_data: np.ndarray,
                  save: tuple[bool, bool], nargs: int, operands: tuple) -> Tensor:
    """What ``cls.apply(a, b)`` records, for the commonest ops (``+ - * /``, ``mm``) when their
    caller computed ``out`` itself: ``a`` a tensor that is no view, ``b`` one too or a Python number
    (``b_data`` its 0-d array); ``save`` says which of the two are saved for backward; ``operands`` is
    (a's shape, b's shape, their dtype), as the caller read them (a NumPy attribute costs as much to read
    as a Python call). The same node, edges, saved tensors and metadata as :func:`_record` makes, without
    its general steps (views, several outputs, a forward of its own, a ctx): less than half the cost
    (issue 17). The caller checked that grad mode is on and that ``a`` or ``b`` requires grad; ``out``'s
    shape follows from the operands'."""
    # each operand's edge: gradient_edge's steps, inline for both (neither is a view), on the hot path
    fn_a, nr_a = a._grad_fn, 0
    if fn_a is not None:
        nr_a = a.output_nr
    elif a._requires_grad:
        fn_a = accumulate_node(a)
    if type(b) is Tensor:
        fn_b, nr_b = b._grad_fn, 0
        if fn_b is not None:
            nr_b = b.output_nr
        elif b._requires_grad:
            fn_b = accumulate_node(b)
        # saved_item's common case inline: a tensor never changed in place is kept as it is
        saved_b = None if not save[1] else b if b._counter is None and not b._is_inference else saved_item(b)
    else:  # a Python number, saved as (its array, the number)
        fn_b, nr_b = None, 0
        saved_b = (b_data, b) if save[1] else None
    # the node's metadata, as _layout and _shared make it, once per op and pattern of operands
    key = (cls, operands, fn_a is not None, fn_b is not None, nargs)
    meta = _BINARY.get(key)
    if meta is None:
        if len(_BINARY) > 4096:
            _BINARY.clear()
        shape, b_shape, dtype = operands
        signature = ((shape, dtype, fn_a is not None), (b_shape, dtype, fn_b is not None))
        meta = _BINARY[key] = (*_layout(signature if nargs == 2 else (*signature, None)),
                                  _shared(((np.shape(out), out.dtype),)))
    # BackwardNode.__init__, inline
    node = object.__new__(cls._backward_cls)
    node._sequence_nr = next(_sequence)
    node._edges = (fn_a, nr_a, fn_b, nr_b)
    node._tensor_positions, node._input_meta, node.needs_input_grad, node._output_meta = meta
    node._num_inputs = nargs
    if save[0] or save[1]:
        node._saved = (None if not save[0] else a if a._counter is None and not a._is_inference
                       else saved_item(a), saved_b)
        node._never_saved = 0 if save[0] and save[1] else 2 if save[0] else 1
    else:
        node._saved = _NOTHING_SAVED
        node._never_saved = 0
    if _anomaly["enabled"]:
        node._forward_trace = _user_stack()
    t = object.__new__(Tensor)  # Tensor._make, inline (the caller checked: not in inference mode)
    t._data = out if type(out) is np.ndarray else np.asarray(out)
    t._requires_grad = t._is_inference = False
    t._grad_fn = node
    t.output_nr = 0
    t._view_meta = t._counter = None
    return t


_UNARY: dict[tuple, tuple] = {}
SAVES_NOTHING, SAVES_SELF, SAVES_RESULT = 0, 1, 2  # what fast_unary's op saves for backward


def fast_unary(cls: type[Function], kernel: Callable[[np.ndarray], np.ndarray], a: Any,
               save: int | tuple[Tensor, ...], nargs: int = 1, attrs: dict[str, Any] | None = None,
               ) -> Tensor | None:
    """``cls.apply(a, ...)`` for an op of one float tensor whose forward is ``kernel`` on its array
    (``neg``, ``exp``, ``relu``, ``log_softmax``, ``mean()``, ...), recorded as :func:`record_binary`
    records: the same node, edge, saved tensors (``save``: a's, the result's, or these constants'), what
    the forward sets on its ctx (``attrs``) and metadata as :func:`_record` makes of ``cls.apply``'s
    ``nargs`` arguments (``a`` the first). None, having done nothing, where that does not apply (no
    tensor that requires grad, a view, another dtype, grad mode off, inference mode): ``cls.apply`` then
    takes its general steps (issue 17). What the kernel raises is raised, with nothing recorded."""
    if type(a) is not Tensor or a._view_meta is not None or not _GRAD.enabled or (
            _tensor.open_inference_blocks and INFERENCE_MODE.enabled):
        return None
    x = a._data
    fn = a._grad_fn
    if x.dtype.kind != "f" or fn is None and not a._requires_grad:
        return None
    if fn is None:  # a leaf's edge (gradient_edge's, for a leaf that is no view)
        fn = accumulate_node(a)
        nr = 0
    else:
        nr = a.output_nr
    token = _quiet_on()
    try:
        out = kernel(x)
    finally:
        _quiet_off(token)
    if type(out) is not np.ndarray:
        out = np.asarray(out)
    key = (cls, x.shape, x.dtype, nargs, out.shape)  # (the result's shape: an index's depends on its keys)
    meta = _UNARY.get(key)
    if meta is None:
        if len(_UNARY) > 4096:
            _UNARY.clear()
        meta = _UNARY[key] = (*_layout(((x.shape, x.dtype, True),) + (None,) * (nargs - 1)),
                              _shared(((out.shape, out.dtype),)))
    node = object.__new__(cls._backward_cls)  # BackwardNode.__init__, inline
    node._sequence_nr = next(_sequence)
    node._edges = (fn, nr)
    node._tensor_positions, node._input_meta, node.needs_input_grad, node._output_meta = meta
    node._num_inputs = nargs
    node._never_saved = 0
    if attrs:
        node.__dict__.update(attrs)
    if _anomaly["enabled"]:
        node._forward_trace = _user_stack()
    t = object.__new__(Tensor)  # Tensor._make, inline (not in inference mode)
    t._data = out
    t._requires_grad = t._is_inference = False
    t._grad_fn = node
    t.output_nr = 0
    t._view_meta = t._counter = None
    if type(save) is tuple:
        node._saved = tuple([saved_item(c) for c in save])
    elif save == SAVES_SELF:
        node._saved = (saved_item(a),)
    elif save == SAVES_RESULT:  # the result as _attach keeps it: its data alone (no cycle)
        saved = object.__new__(SavedTensor)
        t._counter = counter = _VersionCounter()  # (the result's counter, shared with what is saved)
        saved.tensor, saved.data, saved._counter, saved.version = None, t._data, counter, 0
        saved.output_nr, saved.requires_grad, saved.producer = 0, True, None
        node._saved = (saved,)
    else:
        node._saved = _NOTHING_SAVED
    return t


def _attach(node: BackwardNode, o: Tensor, nr: int) -> None:
    """Make ``o`` the output ``nr`` of ``node`` (its ``grad_fn``), unless its dtype has no gradient."""
    if o._data.dtype.kind not in "fc":  # integer and bool results are never differentiable
        return
    o._grad_fn = node
    o.output_nr = nr
    saved = node._saved
    for i, s in enumerate(saved or ()):
        if s is o or type(s) is SavedTensor and s.tensor is o:  # a saved output: its data alone (no cycle)
            s = SavedTensor(o)
            s._counter = o._version_counter
            s.tensor, s.data, s.output_nr, s.requires_grad = None, o._data, nr, True
            node._saved = saved = (*saved[:i], s, *saved[i + 1:])


_SHARED: dict[tuple, tuple] = {}
_LAYOUTS: dict[tuple, tuple[tuple, tuple, tuple]] = {}


def _layout(signature: tuple) -> tuple[tuple, tuple, tuple]:
    """From ``(shape, dtype, needs grad)`` per tensor argument (None for any other argument): which
    arguments are tensors, their shapes and dtypes, and ``needs_input_grad``, each one shared tuple (a
    chain of a million ops would otherwise hold millions of equal tuples; the cache stays small)."""
    layout = _LAYOUTS.get(signature)
    if layout is None:
        if len(_LAYOUTS) > 4096:
            _LAYOUTS.clear()
        layout = _LAYOUTS[signature] = (
            tuple(i for i, s in enumerate(signature) if s is not None),
            _shared(tuple(s[:2] for s in signature if s is not None)),
            tuple(s is not None and s[2] for s in signature))
    return layout


def _shared(t: tuple) -> tuple:
    """One copy of each small tuple the nodes repeat (shapes and dtypes, which inputs need grad): a
    chain of a million ops would otherwise hold millions of equal tuples (the cache stays small)."""
    s = _SHARED.get(t)
    if s is None:
        if len(_SHARED) > 4096:
            _SHARED.clear()
        s = _SHARED[t] = t
    return s


def _run_forward(cls: type[Function], ctx: Any, args: tuple, kwargs: dict) -> Any:
    """``cls.forward`` with grad mode off (the ops it uses inside record nothing), NumPy quiet: an inf or
    nan is a value, not a RuntimeWarning (PyTorch warns for none)."""
    token = _quiet_on()
    if not _GRAD.enabled:  # already off, as in every backward without create_graph
        try:
            return cls.forward(ctx, *args, **kwargs)
        finally:
            _quiet_off(token)
    _GRAD.enabled = False
    try:
        return cls.forward(ctx, *args, **kwargs)
    finally:
        _GRAD.enabled = True
        _quiet_off(token)


_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _user_stack() -> list[str]:
    """The stack that made a node, down to the caller's last frame: this package's own frames below it
    dropped, as PyTorch's traceback ends where Python calls into its C++ op."""
    frames = traceback.extract_stack()
    while frames and frames[-1].filename.startswith(_PACKAGE_DIR):
        frames.pop()
    return traceback.format_list(frames)


class set_detect_anomaly:
    """Anomaly detection on or off, as a call or a context manager (restoring the previous state): each
    node records its forward traceback, named when its backward fails; with ``check_nan`` a backward
    that returns nan fails."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = (_anomaly["enabled"], _anomaly["check_nan"])
        _anomaly.update(enabled=bool(mode), check_nan=bool(check_nan))

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: object) -> None:
        _anomaly["enabled"], _anomaly["check_nan"] = self.prev


def is_anomaly_enabled() -> bool:
    return _anomaly["enabled"]


def is_anomaly_check_nan_enabled() -> bool:
    return _anomaly["check_nan"]


class detect_anomaly:
    """Anomaly detection on inside the block (see :class:`set_detect_anomaly`); warns, as PyTorch,
    that it is slow."""

    def __init__(self, check_nan: bool = True) -> None:
        self.prev = (_anomaly["enabled"], _anomaly["check_nan"])
        self.check_nan = check_nan
        warnings.warn(
            "Anomaly Detection has been enabled. This mode will increase the runtime and should only be "
            "enabled for debugging.",
            stacklevel=2,
        )

    def __enter__(self) -> None:
        _anomaly.update(enabled=True, check_nan=bool(self.check_nan))

    def __exit__(self, *exc: object) -> None:
        _anomaly["enabled"], _anomaly["check_nan"] = self.prev
