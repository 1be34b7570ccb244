"""Activation checkpointing: trade compute for memory (``torch.utils.checkpoint``).

A recorded forward pass keeps, for backward, every tensor its nodes saved: the activations of every
layer. ``checkpoint(function, *args)`` keeps only the *inputs* of ``function`` and recomputes what
it saved when backward needs it. Two variants, chosen as in PyTorch by ``use_reentrant``:

- ``use_reentrant=True`` (PyTorch 2.13's default, with a warning when the argument is not given):
  one ``CheckpointFunctionBackward`` node. Forward runs ``function`` under ``no_grad`` and saves the
  inputs; backward reruns it with grad mode on, from detached inputs, and runs a backward pass of its
  own through that new graph (parameters that ``function`` uses get their ``.grad`` from it). Hence,
  as in PyTorch: at least one input must require grad, and it works with ``backward()`` only (with
  ``autograd.grad`` the parameters inside get nothing).
- ``use_reentrant=False`` (PyTorch's recommended variant): ``function`` runs recorded, so the graph is
  the real one (``TanhBackward0``, ...), and works with ``autograd.grad``, ``inputs=``, keyword
  arguments and inputs that do not require grad; but each tensor saved inside is dropped as soon as
  the forward is done, and the first time backward reads one, ``function`` runs again and refills
  them all. (PyTorch drops them while recording, with saved-tensor hooks; here the forward pass of a
  segment holds its activations until it returns.) Recomputed tensors that differ in shape or dtype
  from the first run raise PyTorch's ``CheckpointError``.

Both keep the random state of the forward pass (``preserve_rng_state=True``), so that Dropout drops
the same units when recomputed.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable
from typing import Any

from .. import grad_mode
from ..engine import backward as autograd_backward
from ..function import AccumulateGrad, Function, Node, SavedTensor, as_saved_tensor
from ..random import get_rng_state, set_rng_state
from ..tensor import Tensor

__all__ = ["CheckpointError", "checkpoint", "checkpoint_sequential"]

_REENTRANT_WARNING = (
    "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in PyTorch "
    "2.9, calling checkpoint without use_reentrant will raise an exception. use_reentrant=False is "
    "recommended, but if you need to preserve the current default behavior, you can pass "
    "use_reentrant=True. Refer to docs for more details on the differences between the two variants."
)


class CheckpointError(RuntimeError):
    """The recomputation did not save what the first run saved
    (``torch.utils.checkpoint.CheckpointError``)."""


@contextlib.contextmanager
def _rng_of(state: dict | None) -> Any:
    """Run with the random state ``state`` (None: as it is), then put back the state before."""
    if state is None:
        yield
        return
    before = get_rng_state()
    set_rng_state(state)
    try:
        yield
    finally:
        set_rng_state(before)


def _detached(args: tuple) -> tuple:
    """The tensor arguments cut from their graph, keeping their ``requires_grad``."""
    return tuple(a.detach().requires_grad_(a.requires_grad) if isinstance(a, Tensor) else a for a in args)


# ------------------------------------------------------------------------------------- use_reentrant=True
class CheckpointFunction(Function):
    """Forward under no_grad saving the inputs; backward recomputes and runs a backward of its own."""

    @staticmethod
    def forward(ctx: Any, run_function: Callable, preserve_rng_state: bool, *args: Any) -> Any:
        if not any(a.requires_grad for a in args if isinstance(a, Tensor)):
            warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", stacklevel=4)
        ctx.run_function = run_function
        ctx.rng_state = get_rng_state() if preserve_rng_state else None
        ctx.inputs = [None if isinstance(a, Tensor) else a for a in args]
        ctx.tensor_indices = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx.save_for_backward(*(a for a in args if isinstance(a, Tensor)))
        return run_function(*args)          # Function.apply runs forward with grad mode off

    @staticmethod
    def backward(ctx: Any, *grads: Tensor) -> tuple:
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[i] = t
        detached = _detached(tuple(inputs))
        with _rng_of(ctx.rng_state), grad_mode.enable_grad():
            outputs = ctx.run_function(*detached)
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grads) if isinstance(o, Tensor) and o.requires_grad]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        autograd_backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None, *(a.grad if isinstance(a, Tensor) else None for a in detached))


# ------------------------------------------------------------------------------------ use_reentrant=False
class _Recomputed(SavedTensor):
    """A saved tensor dropped after the forward pass; reading it reruns the segment (``_Frame``)."""

    __slots__ = ("frame", "meta")

    def __init__(self, original: SavedTensor, frame: _Frame) -> None:  # noqa: D107  (no super: no tensor)
        self.frame = frame
        data = original.tensor._data if original.tensor is not None else original.data
        self.meta = (data.shape, data.dtype)
        for name in ("counter", "version", "output_nr", "requires_grad", "producer"):
            setattr(self, name, getattr(original, name))
        self.tensor, self.data = None, None

    def unpack(self, node: Node) -> Tensor:
        if self.frame is not None:
            self.frame.recompute()
        return super().unpack(node)

    def array(self, node: Node) -> Any:  # (a backward on arrays reads it so: an ndarray)
        if self.frame is not None:
            self.frame.recompute()
        return super().array(node)


def _internal_nodes(outputs: list[Tensor], first: int) -> list[Node]:
    """The nodes recorded since sequence number ``first`` behind ``outputs``, in the order made."""
    seen: dict[int, Node] = {}
    stack = [o.grad_fn for o in outputs if o.grad_fn is not None]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen or isinstance(node, AccumulateGrad) or node._sequence_nr < first:
            continue
        seen[id(node)] = node
        stack.extend(nxt for nxt, _ in node.next_functions)
    return sorted(seen.values(), key=lambda n: n._sequence_nr)


def _made_inside(s: SavedTensor | Tensor | None, inside: set[int]) -> bool:
    """A saved tensor the segment made (an output of one of its nodes), not one it was given."""
    if s is None or type(s) is tuple:  # nothing, or a Python number (its array, the number)
        return False
    t = s.tensor if isinstance(s, SavedTensor) else s  # (a tensor a node keeps as it is)
    return t is None or (t.grad_fn is not None and id(t.grad_fn) in inside)


def _flat_tensors(out: Any) -> list[Tensor]:
    items = out if isinstance(out, (tuple, list)) else (out,)
    return [o for o in items if isinstance(o, Tensor)]


class _Frame:
    """One checkpointed call: what to rerun, and the saved tensors it refills."""

    def __init__(self, function: Callable, args: tuple, kwargs: dict, rng_state: dict | None) -> None:
        self.function, self.args, self.kwargs, self.rng_state = function, args, kwargs, rng_state
        self.slots: list[_Recomputed] = []

    def drop_saved(self, outputs: list[Tensor], first: int) -> None:
        """Replace every tensor the segment's nodes saved by a placeholder that recomputes it."""
        nodes = _internal_nodes(outputs, first)
        inside = {id(n) for n in nodes}
        for node in nodes:
            saved = list(getattr(node, "_saved", None) or ())
            changed = False
            for j, s in enumerate(saved):
                if _made_inside(s, inside):
                    saved[j] = _Recomputed(as_saved_tensor(s), self)
                    self.slots.append(saved[j])
                    changed = True
            if changed:  # the saved items are a tuple: a new one
                node._saved = tuple(saved)

    def recompute(self) -> None:
        """Run the segment again, recorded, and hand each placeholder the tensor it stands for."""
        first = Node()._sequence_nr
        with _rng_of(self.rng_state), grad_mode.enable_grad():
            out = self.function(*_detached(self.args), **self.kwargs)
        nodes = _internal_nodes(_flat_tensors(out), first)
        inside = {id(n) for n in nodes}
        fresh = [as_saved_tensor(s) for n in nodes for s in (getattr(n, "_saved", None) or ())
                 if _made_inside(s, inside)]
        if len(fresh) != len(self.slots):
            raise CheckpointError(
                "torch.utils.checkpoint: A different number of tensors was saved during the original forward "
                f"and recomputation.\nNumber of tensors saved during forward: {len(self.slots)}\n"
                f"Number of tensors saved during recomputation: {len(fresh)}.")
        for k, (slot, s) in enumerate(zip(self.slots, fresh)):
            data = s.tensor._data if s.tensor is not None else s.data
            if (data.shape, data.dtype) != slot.meta:
                raise CheckpointError(
                    "torch.utils.checkpoint: Recomputed values for the following tensors have different "
                    f"metadata than during the forward pass.\ntensor at position {k}:\nsaved metadata: "
                    f"{{'shape': {slot.meta[0]}, 'dtype': {slot.meta[1]}}}\nrecomputed metadata: "
                    f"{{'shape': {data.shape}, 'dtype': {data.dtype}}}\n")
            slot.tensor, slot.data = s.tensor, s.data
            slot.counter, slot.version = s.counter, s.version
            slot.frame = None
        self.slots, self.args, self.kwargs = [], (), {}


def _checkpoint_without_reentrant(function: Callable, preserve_rng_state: bool, args: tuple,
                                  kwargs: dict) -> Any:
    if not grad_mode.is_grad_enabled():
        return function(*args, **kwargs)   # nothing is recorded, nothing to drop
    frame = _Frame(function, args, kwargs, get_rng_state() if preserve_rng_state else None)
    first = Node()._sequence_nr
    out = function(*args, **kwargs)
    frame.drop_saved(_flat_tensors(out), first)
    return out


# ------------------------------------------------------------------------------------------ the functions
def checkpoint(function: Callable, *args: Any, use_reentrant: bool | None = None,
               context_fn: Callable | None = None, determinism_check: str = "default", debug: bool = False,
               early_stop: bool = True, **kwargs: Any) -> Any:
    """``function(*args, **kwargs)``, keeping for backward only its inputs and recomputing the rest
    when backward needs it (``torch.utils.checkpoint.checkpoint``; see the module's docstring).

    ``use_reentrant`` should be given; without it PyTorch 2.13 warns and takes ``True``, and so does
    this function. ``preserve_rng_state=False`` (a keyword) skips keeping the random state.
    ``context_fn``, ``debug`` and keyword arguments of ``function`` are for ``use_reentrant=False``
    only, as in PyTorch (``context_fn`` is not supported here).
    """
    if use_reentrant is None:
        warnings.warn(_REENTRANT_WARNING, stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if use_reentrant:
        if context_fn is not None or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
        return CheckpointFunction.apply(function, preserve, *args)
    if context_fn is not None:
        raise NotImplementedError("autograd_lab's checkpoint does not support context_fn")
    return _checkpoint_without_reentrant(function, preserve, args, kwargs)


def checkpoint_sequential(functions: Any, segments: int, input: Tensor, use_reentrant: bool | None = None,
                          **kwargs: Any) -> Tensor:
    """Run ``functions`` (a list of modules or an ``nn.Sequential``) one after the other on ``input``,
    in ``segments`` chunks, checkpointing all but the last
    (``torch.utils.checkpoint.checkpoint_sequential``)."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed "
            "explicitly. In version 2.9 we will raise an exception if use_reentrant is not passed. "
            "use_reentrant=False is recommended, but if you need to preserve the current default behavior, "
            "you can pass use_reentrant=True. Refer to docs for more details on the differences between the "
            "two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if hasattr(functions, "children"):
        functions = list(functions.children())

    def run(start: int, end: int) -> Callable[[Tensor], Tensor]:
        def forward(x: Tensor) -> Tensor:
            for j in range(start, end + 1):
                x = functions[j](x)
            return x
        return forward

    size = len(functions) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(run(start, end), input, use_reentrant=use_reentrant, preserve_rng_state=preserve)
    return run(end + 1, len(functions) - 1)(input)
