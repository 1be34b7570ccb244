"""Views: reshape, expand, transpose/permute, squeeze/unsqueeze, split/chunk/unbind, diagonal.

A *view* shares its input's memory and version counter: an in-place change through one is seen,
and counted, by the other, as in PyTorch. The gradient of a view op is the inverse movement of the
gradient (reshape back, transpose back, place into zeros).
"""

from __future__ import annotations

import builtins
import math
import warnings
from typing import Any

import numpy as np

from .. import dtypes
from ..dtypes import size_arg
from ..dtypes import wrap_dim as _wrap_dim
from ..function import Function
from ..grad_mode import is_grad_enabled
from ..tensor import Tensor, ViewMeta
from .promotion import broadcast_shape


def _view(a: Tensor, arr: np.ndarray) -> Tensor:
    """A result that shares ``a``'s memory: it shares its version counter and base too."""
    t = Tensor._make(arr)
    t._version_counter = a._version_counter
    t._base = a._base if a._base is not None else a
    # made in no_grad mode (Function.apply sets it), or a view of such a view (PyTorch propagates it)
    t._view_meta = ViewMeta(a._version_counter.value, a._view_meta is not None and a._view_meta.no_grad)
    if a._view_meta is not None and a._view_meta.multi is not None:  # a view of split's output
        t._view_meta.multi = (None, 0)  # can no more change in place (named by its own node)
    t._is_inference = a._is_inference  # views of inference tensors are inference tensors, others not
    return t


def _infer_shape(shape: tuple[int, ...], numel: int) -> tuple[int, ...]:
    """Resolve one -1 in ``shape`` and check the element count (PyTorch's messages)."""
    unknown = [i for i, s in enumerate(shape) if s == -1]
    if len(unknown) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for s in shape:
        if s != -1:
            if s < 0:
                raise RuntimeError(f"invalid shape dimension {s}")
            known *= s
    if unknown:
        if known == 0 and numel == 0:
            raise RuntimeError(
                f"cannot reshape tensor of 0 elements into shape [{', '.join(map(str, shape))}] because the "
                "unspecified dimension size -1 can be any value and is ambiguous")
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size {numel}")
        shape = tuple(numel // known if s == -1 else s for s in shape)
    elif known != numel:
        raise RuntimeError(f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size {numel}")
    return shape


# ---------------------------------------------------------------------------- reshape
def _view_strides(old_shape: tuple[int, ...], old_strides: list[int],
                  shape: tuple[int, ...]) -> list[int] | None:
    """The strides (in elements) PyTorch gives a view of a non-empty tensor as ``shape`` (ATen's
    computeStride: the old dims in chunks of contiguous memory, each viewed as new dims; a new dim of
    size 1 steps over the rest of its chunk, where NumPy picks another stride). None: no view."""
    if not old_shape:
        return [1] * len(shape)
    new = [0] * len(shape)
    view_d = len(shape) - 1
    chunk_stride, tensor_numel, view_numel = old_strides[-1], 1, 1
    for tensor_d in range(len(old_shape) - 1, -1, -1):
        tensor_numel *= old_shape[tensor_d]
        if tensor_d == 0 or (old_shape[tensor_d - 1] != 1
                             and old_strides[tensor_d - 1] != tensor_numel * chunk_stride):
            while view_d >= 0 and (view_numel < tensor_numel or shape[view_d] == 1):
                new[view_d] = view_numel * chunk_stride
                view_numel *= shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_stride, tensor_numel, view_numel = old_strides[tensor_d - 1], 1, 1
    return new if view_d == -1 else None


def viewed(x: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """``x`` viewed as ``shape`` with the strides PyTorch's ``view`` gives (NumPy's reshape, its size-1
    dims' strides made PyTorch's, which matmul's test reads); a ValueError where no view can."""
    arr = np.reshape(x, shape, copy=False)
    if 1 in shape and arr.size:
        item = arr.itemsize
        strides = _view_strides(x.shape, [st // item for st in x.strides], shape)
        if strides is not None and tuple(st * item for st in strides) != arr.strides:
            arr = np.lib.stride_tricks.as_strided(arr, shape, tuple(st * item for st in strides))
    return arr


class View(Function):
    node_name = "ViewBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor, shape: tuple[int, ...]) -> Tensor:
        ctx.shape = a._data.shape
        try:
            arr = viewed(a._data, shape)
        except ValueError:
            raise RuntimeError(
                "view size is not compatible with input tensor's size and stride (at least one "
                "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
            ) from None
        return _view(a, arr)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return grad.reshape(ctx.shape), None


class ReshapeAlias(View):
    """``reshape`` of a non-contiguous tensor that can still be a view (``_reshape_alias``)."""

    node_name = "ReshapeAliasBackward0"


class UnsafeView(Function):
    """The reshape of a copy (what ``reshape`` does when a view is impossible)."""

    node_name = "UnsafeViewBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor, shape: tuple[int, ...]) -> Tensor:
        ctx.shape = a._data.shape
        return Tensor._make(np.reshape(a._data, shape))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return grad.reshape(ctx.shape), None


def reshape(a: Tensor, shape: tuple[int, ...]) -> Tensor:
    """``a`` with the given shape: a view where the memory allows it, else a copy (``torch.reshape``)."""
    shape = _infer_shape(shape, a._data.size)
    try:
        np.reshape(a._data, shape, copy=False)
    except ValueError:
        return UnsafeView.apply(a.clone(), shape)  # (a method: ops/copies.py imports this module)
    # as PyTorch 2.13: a view of a contiguous tensor is `view`, of another one `_reshape_alias`
    return View.apply(a, shape) if a._data.flags.c_contiguous else ReshapeAlias.apply(a, shape)


def view(a: Tensor, *shape: Any) -> Tensor:
    """``a.view(2, 3)`` or ``a.view((2, 3))``: the same memory seen with another shape (one size may
    be -1)."""
    if len(shape) == 1 and isinstance(shape[0], dtypes.dtype):
        raise NotImplementedError("view(dtype) is not supported by autograd_lab")
    return View.apply(a, _infer_shape(size_arg(shape), a._data.size))


def view_as(a: Tensor, other: Tensor) -> Tensor:
    """``a.view(other.shape)``."""
    return view(a, other.shape)


def reshape_as(a: Tensor, other: Tensor) -> Tensor:
    """``a.reshape(other.shape)``."""
    return reshape(a, other.shape)


def flatten(a: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """Dimensions ``start_dim`` to ``end_dim`` merged into one (``torch.flatten``)."""
    if a.ndim == 0:
        return reshape(a, (1,))
    s, e = _wrap_dim(start_dim, a.ndim), _wrap_dim(end_dim, a.ndim)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    shape = a._data.shape
    merged = math.prod(shape[s:e + 1])  # (not -1: an empty tensor's would be ambiguous)
    return reshape(a, shape[:s] + (merged,) + shape[e + 1:]) if s != e else a


def unflatten(a: Tensor, dim: int, sizes: Any) -> Tensor:
    """Dimension ``dim`` split into ``sizes`` (``torch.unflatten``)."""
    if a.ndim == 0:
        raise RuntimeError("unflatten got an unexpected error:\nDimension specified as 0 but tensor has no "
                           "dimensions")
    d = _wrap_dim(dim, a.ndim)
    sizes = tuple(int(s) for s in sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    n = a._data.shape[d]
    if sizes.count(-1) > 1:
        raise RuntimeError("unflatten got an unexpected error:\nonly one dimension can be inferred")
    known = int(np.prod([s for s in sizes if s != -1]))
    if (-1 not in sizes and known != n) or (-1 in sizes and (known == 0 or n % known)):
        raise RuntimeError(
            f"unflatten: Provided sizes [{', '.join(map(str, sizes))}] don't multiply up to the size of dim "
            f"{d} ({n}) in the input tensor"
        )
    sizes = tuple(n // known if s == -1 else s for s in sizes)
    return View.apply(a, a._data.shape[:d] + sizes + a._data.shape[d + 1:])


# ---------------------------------------------------------------------------- expand
class Expand(Function):
    node_name = "ExpandBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor, shape: tuple[int, ...]) -> Tensor:
        ctx.shape = a._data.shape
        data = a._data
        # PyTorch's geometry (inferExpandGeometry): a repeated dimension steps 0; the others keep their
        # steps, a size-1 one too; a new dimension of size 1 steps over the next (NumPy's broadcast_to
        # sets 0 in both, and matmul would then not fold as PyTorch's does)
        lead = len(shape) - data.ndim
        strides = [0] * len(shape)
        for i in range(len(shape) - 1, -1, -1):
            if i >= lead:
                size, st = data.shape[i - lead], data.strides[i - lead]
            else:
                size, st = 1, shape[i + 1] * strides[i + 1] if i + 1 < len(shape) else 0
            strides[i] = st if size == shape[i] else 0
        writeable = int(np.prod(shape)) == data.size > 0  # repeats nothing: a writable view, as in PyTorch
        if data.flags.c_contiguous:  # (the ndarray constructor over its buffer: a fifth of as_strided)
            out = np.ndarray(shape, data.dtype, data, 0, strides)
            if not writeable:
                out.flags.writeable = False
            return _view(a, out)
        return _view(a, np.lib.stride_tricks.as_strided(data, shape, strides, writeable=writeable))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return grad.sum_to_size(ctx.shape), None


def expand(a: Tensor, sizes: tuple[int, ...]) -> Tensor:
    """A view of ``a`` with size-1 dimensions repeated to ``sizes`` (-1 keeps a size; ``Tensor.expand``)."""
    shape = a._data.shape
    if len(sizes) < len(shape):
        kind = dtypes.deprecated_type_name(a._data.dtype)
        raise RuntimeError(
            f"expand({kind}{{[{', '.join(map(str, shape))}]}}, "
            f"size=[{', '.join(map(str, sizes))}]): the number of sizes provided ({len(sizes)}) must be "
            f"greater or equal to the number of dimensions in the tensor ({len(shape)})"
        )
    lead = len(sizes) - len(shape)
    target = []
    for i in reversed(range(len(sizes))):  # from the last dimension, as PyTorch checks
        s = sizes[i]
        old = shape[i - lead] if i >= lead else None
        if s == -1:
            if old is None:
                raise RuntimeError(
                    f"The expanded size of the tensor (-1) isn't allowed in a leading, non-existing "
                    f"dimension {i}"
                )
            s = old
        if old is not None and old != s and old != 1:
            raise RuntimeError(
                f"The expanded size of the tensor ({s}) must match the existing size ({old}) at "
                f"non-singleton dimension {i}.  Target sizes: [{', '.join(map(str, sizes))}].  "
                f"Tensor sizes: [{', '.join(map(str, shape))}]"
            )
        target.append(s)
    return Expand.apply(a, tuple(reversed(target)))


def expand_as(a: Tensor, other: Tensor) -> Tensor:
    """``a.expand(other.shape)``."""
    return expand(a, tuple(other.shape))


def broadcast_to(a: Tensor, size: Any) -> Tensor:
    """A view of ``a`` broadcast to ``size`` (``torch.broadcast_to``)."""
    return expand(a, tuple(int(s) for s in size))


def broadcast_tensors(*tensors: Tensor) -> tuple[Tensor, ...]:
    """The tensors broadcast to their common shape: each an ``expand`` view, or itself where it has that
    shape already (``torch.broadcast_tensors``)."""
    shape: tuple[int, ...] = ()
    for t in tensors:
        shape = broadcast_shape(shape, tuple(t.shape))
    return tuple(t if tuple(t.shape) == shape else expand(t, shape) for t in tensors)


# ---------------------------------------------------------------------------- as_strided: a view by positions
def _addresses(a: np.ndarray) -> np.ndarray:
    """The memory address of every element of ``a``."""
    addr = np.full((1,) * a.ndim, a.__array_interface__["data"][0], dtype=np.int64)
    for axis, (n, stride) in enumerate(zip(a.shape, a.strides)):
        shape = [1] * a.ndim
        shape[axis] = n
        addr = addr + (np.arange(n, dtype=np.int64) * stride).reshape(shape)
    return np.broadcast_to(addr, a.shape)


def view_index(view: np.ndarray, base: np.ndarray) -> np.ndarray:
    """For each element of ``view``, its flat (row-major) position in ``base``, whose memory it shares."""
    if view.size == 0:
        return np.zeros(view.shape, dtype=np.int64)
    flat = _addresses(base).reshape(-1)
    order = np.argsort(flat, kind="stable")
    ordered = flat[order]
    wanted = _addresses(view)
    pos = np.minimum(np.searchsorted(ordered, wanted), ordered.size - 1)
    if not np.array_equal(ordered[pos], wanted):
        raise RuntimeError(
            "a view no longer shares memory with its base (was the base's .data replaced?): "
            "autograd_lab cannot record the view's history. Make the view again from the base."
        )
    return order[pos]


def _strided(index: np.ndarray) -> tuple[tuple, tuple, int] | None:
    """The size, stride and offset (in elements) of a strided view of a C-contiguous array that takes
    the flat row-major positions ``index`` (None when no such view does; an empty one: row-major)."""
    if index.size == 0:
        steps, step = [], 1  # (PyTorch's contiguous strides: a size 0 counts as 1)
        for n in reversed(index.shape):
            steps.insert(0, step)
            step *= max(n, 1)
        return index.shape, tuple(steps), 0
    offset = int(index.flat[0])
    steps = tuple(int(np.take(index, 1, axis=k).flat[0]) - offset if n > 1 else 0
                  for k, n in enumerate(index.shape))
    if any(st < 0 for st in steps) or not np.array_equal(_positions(index.shape, steps, offset), index):
        return None
    return index.shape, steps, offset


def _positions(size: tuple[int, ...], steps: tuple[int, ...], offset: int) -> np.ndarray:
    """The flat positions ``offset + sum(i_k * steps[k])`` for every index ``i`` of ``size``."""
    positions = np.full(size, offset, dtype=np.int64)
    for k, (n, step) in enumerate(zip(size, steps)):
        positions = positions + (np.arange(n) * step).reshape((1,) * k + (n,) + (1,) * (len(size) - k - 1))
    return positions


class AsStrided(Function):
    """The elements of ``a`` at the flat row-major positions ``index``: how a view reads its base (the
    history of a view whose base changed in place), and PyTorch's ``as_strided``, then a view of ``a``
    (``as_view``: ``a`` C-contiguous, the positions those of a strided view)."""

    node_name = "AsStridedBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor, index: np.ndarray, as_view: bool = False) -> Tensor:
        ctx.shape, ctx.index = a._data.shape, index
        flat = a._data.reshape(-1)
        if not as_view:
            return Tensor._make(flat[index])
        size, steps, offset = _strided(index) or (index.shape, (0,) * index.ndim, 0)  # (or empty)
        strides = [st * flat.itemsize for st in steps]
        return _view(a, np.lib.stride_tricks.as_strided(flat[offset:], size, strides))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None]:
        part = _strided(ctx.index) if is_grad_enabled() else None
        if part is None:
            out = AsStridedScatter.apply(grad, ctx.index, ctx.shape)
            if not is_grad_enabled():  # PyTorch's result is a view of the zeros it scattered into (their
                out = Tensor._make(out._data.reshape(-1)).view(ctx.shape)  # storage), made in no_grad mode
            return out, None, None
        # create_graph: PyTorch's as_strided_backward, recorded: dimensions of size 1 squeezed and
        # broadcast ones (stride 0) summed out of grad, then grad copied into its place in zeros
        # (CopySlices), the whole seen as the input (AsStridedBackward0)
        storage = Tensor._make(np.zeros(ctx.shape, grad._data.dtype))
        sizes, steps, offset = part
        if 0 in sizes:
            return storage, None, None
        kept = []
        for i in reversed(range(len(sizes))):
            if sizes[i] == 1:
                grad = grad.squeeze(i)
            elif steps[i] == 0:
                grad = grad.sum(i)
            else:
                kept.insert(0, i)
        as_strided(storage, [sizes[i] for i in kept], [steps[i] for i in kept], offset).copy_(grad)
        whole = np.arange(storage._data.size).reshape(ctx.shape)
        return AsStrided.apply(storage, whole, True), None, None


class AsStridedScatter(Function):
    """``src`` added into zeros of ``shape`` at the flat positions ``index`` (repeats add up)."""

    node_name = "AsStridedScatterBackward0"

    @staticmethod
    def forward(ctx: Any, src: Tensor, index: np.ndarray, shape: tuple[int, ...]) -> Tensor:
        ctx.index = index
        out = np.zeros(int(np.prod(shape)), dtype=src._data.dtype)
        np.add.at(out, index.reshape(-1), src._data.reshape(-1))
        return Tensor._make(out.reshape(shape))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None]:
        return AsStrided.apply(grad, ctx.index), None, None


def as_strided(a: Tensor, size: Any, stride: Any, storage_offset: int = 0) -> Tensor:
    """A view of ``a``'s elements at ``storage_offset + sum(i_k * stride[k])`` for each index ``i``
    of ``size`` (``torch.as_strided``). Here ``a`` must be C-contiguous, its own memory the storage,
    and the view must stay inside it."""
    size, stride = tuple(int(s) for s in size), tuple(int(s) for s in stride)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if not a._data.flags.c_contiguous:
        raise RuntimeError("autograd_lab: as_strided needs a contiguous tensor (call .contiguous() first)")
    if any(s < 0 for s in stride) or storage_offset < 0:
        raise RuntimeError("as_strided: Negative strides are not supported at the moment, got strides: "
                           f"[{', '.join(map(str, stride))}]")
    last = storage_offset + sum((n - 1) * st for n, st in zip(size, stride)) if 0 not in size else 0
    if last >= max(a._data.size, 1) and 0 not in size:
        raise RuntimeError(
            f"setStorage: sizes [{', '.join(map(str, size))}], strides [{', '.join(map(str, stride))}], "
            f"storage offset {storage_offset}, and itemsize {a._data.itemsize} requiring a storage size of "
            f"{(last + 1) * a._data.itemsize} are out of bounds for storage of size "
            f"{a._data.size * a._data.itemsize}")
    return AsStrided.apply(a, _positions(size, stride, storage_offset), True)


# ---------------------------------------------------------------------------- transpose, permute
class Transpose(Function):
    node_name = "TransposeBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor, d0: int, d1: int) -> Tensor:
        ctx.dims = (d0, d1)
        out = _view(a, a._data[...] if d0 == d1 else np.swapaxes(a._data, d0, d1))
        if not out._data.size:  # (an empty one: PyTorch's strides, swapped, which decide mm's layouts)
            steps = list(a.stride())
            steps[d0], steps[d1] = steps[d1], steps[d0]
            out._empty_strides = tuple(steps)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None]:
        return grad.transpose(*ctx.dims), None, None


def transpose(a: Tensor, dim0: int, dim1: int) -> Tensor:
    """A view with dimensions ``dim0`` and ``dim1`` swapped (``torch.transpose``)."""
    return Transpose.apply(a, _wrap_dim(dim0, a.ndim), _wrap_dim(dim1, a.ndim))  # 0-d: dims 0 and -1


class T(Transpose):
    node_name = "TBackward0"

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None]:
        return t(grad), None, None  # PyTorch's grad.t(): TBackward0 under create_graph


def t(a: Tensor) -> Tensor:
    """A matrix's transpose (a view; 0-D and 1-D tensors as they are; ``torch.t``)."""
    if a.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {a.ndim}D")
    if a.ndim < 2:
        return T.apply(a, 0, 0)
    return T.apply(a, 0, 1)


def numpy_T(a: Tensor) -> Tensor:
    """``a.T``: the dimensions reversed; PyTorch warns that this is deprecated for other than 2-D tensors."""
    if a.ndim == 0:
        warnings.warn("Tensor.T is deprecated on 0-D tensors. This function is the identity in these "
                      "cases.", UserWarning, stacklevel=2)
    elif a.ndim != 2:
        warnings.warn(
            "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated "
            "and it will throw an error in a future release. Consider `x.mT` to transpose batches of "
            "matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a "
            "tensor.", UserWarning, stacklevel=2)
    return permute(a, tuple(range(a.ndim - 1, -1, -1)))


def mT(a: Tensor) -> Tensor:
    """``a.mT``: the last two dimensions swapped (a batch of matrices transposed)."""
    if a.ndim == 0:
        warnings.warn("Tensor.mT is deprecated on 0-D tensors. This function is the identity in these cases.",
                      UserWarning, stacklevel=2)
        return a
    if a.ndim < 2:
        raise RuntimeError(f"tensor.mT is only supported on matrices or batches of matrices. Got {a.ndim}-D "
                           "tensor.")
    return transpose(a, -2, -1)


class Permute(Function):
    node_name = "PermuteBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor, dims: tuple[int, ...]) -> Tensor:
        ctx.inverse = tuple(int(i) for i in np.argsort(dims))
        out = _view(a, np.transpose(a._data, dims))
        if not out._data.size:  # (an empty one: PyTorch's strides, permuted)
            out._empty_strides = tuple(a.stride()[d] for d in dims)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return grad.permute(ctx.inverse), None


def permute(a: Tensor, dims: tuple[int, ...]) -> Tensor:
    """A view with the dimensions in the order ``dims`` (``torch.permute``)."""
    if len(dims) != a.ndim:
        raise RuntimeError(
            "permute(sparse_coo): number of dimensions in the tensor input does not match the length "
            f"of the desired ordering of dimensions i.e. input.dim() = {a.ndim} is not equal to "
            f"len(dims) = {len(dims)}"
        )
    wrapped = tuple(_wrap_dim(d, a.ndim) for d in dims)
    if len(set(wrapped)) != len(wrapped):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return Permute.apply(a, wrapped)


def _dims_list(dims: Any) -> list[int]:
    return [int(dims)] if isinstance(dims, (int, np.integer)) else [int(d) for d in dims]


def movedim(a: Tensor, source: Any, destination: Any) -> Tensor:
    """A view with dimensions ``source`` moved to ``destination`` (``torch.movedim``)."""
    src, dst = _dims_list(source), _dims_list(destination)
    if len(src) != len(dst):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({src} dims) should contain the same "
            f"number of dims as destination ({dst} dims)"
        )
    n = builtins.max(a.ndim, 1)
    ws, wd = [_wrap_dim(d, n) for d in src], [_wrap_dim(d, n) for d in dst]
    if len(set(ws)) != len(ws):
        raise RuntimeError(f"movedim: repeated dim in `source` ({src})")
    if len(set(wd)) != len(wd):
        raise RuntimeError(f"movedim: repeated dim in `destination` ({dst})")
    if a.ndim == 0:
        return Alias.apply(a)
    order = [-1] * a.ndim
    for s, d in zip(ws, wd):
        order[d] = s
    rest = iter(i for i in range(a.ndim) if i not in ws)
    order = [o if o != -1 else next(rest) for o in order]
    return Permute.apply(a, tuple(order))


moveaxis = movedim


def swapaxes(a: Tensor, axis0: int, axis1: int) -> Tensor:
    """A view with ``axis0`` and ``axis1`` swapped (``torch.swapaxes``)."""
    return transpose(a, axis0, axis1)


swapdims = swapaxes


# ---------------------------------------------------------------------------- squeeze, unsqueeze
class Squeeze(Function):
    node_name = "SqueezeBackward1"

    @staticmethod
    def forward(ctx: Any, a: Tensor, dims: tuple[int, ...]) -> Tensor:
        ctx.shape, ctx.dims = a._data.shape, dims
        return _view(a, np.squeeze(a._data, axis=dims))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        # PyTorch's unsqueeze_to: one UnsqueezeBackward0 per squeezed dim; without create_graph views too,
        # of the incoming gradient (made in no_grad mode: not to be changed in place with grad mode on)
        for d in sorted(ctx.dims):
            grad = grad.unsqueeze(d)
        return grad, None


class SqueezeAll(Squeeze):
    node_name = "SqueezeBackward0"


class SqueezeDims(Squeeze):
    """``squeeze(dims)`` with a tuple or list of dims: PyTorch's own overload and node."""

    node_name = "SqueezeBackward2"


class SqueezeInplace(Squeeze):
    """The in-place ``squeeze_(dim)`` PyTorch's matmul applies to the result of ``vector @ matrix``:
    the result is that product's own tensor, not a view."""

    node_name = "SqueezeBackward4"

    @staticmethod
    def forward(ctx: Any, a: Tensor, dims: tuple[int, ...]) -> Tensor:
        ctx.shape, ctx.dims = a._data.shape, dims
        return Tensor._make(np.squeeze(a._data, axis=dims))


def squeeze(a: Tensor, dim: Any = None) -> Tensor:
    """A view without size-1 dimensions (all, or those in ``dim``; ``torch.squeeze``)."""
    if dim is None:
        return SqueezeAll.apply(a, tuple(i for i, s in enumerate(a._data.shape) if s == 1))
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    dims = tuple(_wrap_dim(d, a.ndim) for d in dims) if a.ndim else ()
    op = Squeeze if isinstance(dim, int) else SqueezeDims
    return op.apply(a, tuple(d for d in dims if a._data.shape[d] == 1))


class Unsqueeze(Function):
    node_name = "UnsqueezeBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor, dim: int) -> Tensor:
        ctx.dim = dim
        data = a._data
        out = np.expand_dims(data, dim)
        # PyTorch's stride for the new dimension: 1 at the end, else the size times the stride of the
        # dimension it goes before (NumPy's reshape may lay out size-1 dimensions otherwise; mm reads them)
        step = data.itemsize if dim == data.ndim else data.shape[dim] * data.strides[dim]
        strides = data.strides[:dim] + (step,) + data.strides[dim:]
        if out.strides != strides:
            out = np.lib.stride_tricks.as_strided(data, out.shape, strides, writeable=data.flags.writeable)
        return _view(a, out)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return grad.squeeze(ctx.dim), None


def unsqueeze(a: Tensor, dim: int) -> Tensor:
    """A view with a size-1 dimension inserted at ``dim`` (``torch.unsqueeze``)."""
    return Unsqueeze.apply(a, _wrap_dim(dim, a.ndim + 1))


class Alias(Function):
    """``a[...]``, ``a[:, :]``: an index that selects everything is a plain view of ``a``."""

    node_name = "AliasBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor) -> Tensor:
        return _view(a, a._data[...])

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        return grad


# ---------------------------------------------------------------------------- diagonal
class Diagonal(Function):
    """``diagonal``: a view of the elements ``a[..., i, i + offset]`` (the diagonal last)."""

    node_name = "DiagonalBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor, offset: int, dim1: int, dim2: int) -> Tensor:
        ctx.shape, ctx.args = a._data.shape, (offset, dim1, dim2)
        arr = np.diagonal(a._data, offset, dim1, dim2)
        if a._data.flags.writeable:  # NumPy's diagonal is read-only; PyTorch's can change in place
            arr.flags.writeable = True
        return _view(a, arr)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None, None]:
        return DiagonalScatter.apply(grad, ctx.shape, *ctx.args), None, None, None


class DiagonalCopy(Diagonal):
    """``diag`` of a matrix: the diagonal as a new tensor (``diagonal_copy``)."""

    node_name = "DiagonalBackward0_copy"

    @staticmethod
    def forward(ctx: Any, a: Tensor, offset: int, dim1: int, dim2: int) -> Tensor:
        ctx.shape, ctx.args = a._data.shape, (offset, dim1, dim2)
        return Tensor._make(np.array(np.diagonal(a._data, offset, dim1, dim2), copy=True))


class DiagonalScatter(Function):
    """The gradient of ``diagonal``: ``grad`` on the diagonal of zeros of ``shape``."""

    node_name = "DiagonalBackwardBackward0"

    @staticmethod
    def forward(ctx: Any, grad: Tensor, shape: tuple[int, ...], offset: int, dim1: int, dim2: int) -> Tensor:
        ctx.args = (offset, dim1, dim2)
        out = np.zeros(shape, dtype=grad._data.dtype)
        view = np.diagonal(out, offset, dim1, dim2)
        view.flags.writeable = True
        view[...] = grad._data
        return Tensor._make(out)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None, None, None]:
        return Diagonal.apply(grad, *ctx.args), None, None, None, None  # (PyTorch's: grad.diagonal(...))


def diagonal(a: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """A view of the diagonal at ``offset`` of dimensions ``dim1`` and ``dim2`` (``torch.diagonal``)."""
    d1, d2 = _wrap_dim(dim1, a.ndim), _wrap_dim(dim2, a.ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return Diagonal.apply(a, int(offset), d1, d2)
