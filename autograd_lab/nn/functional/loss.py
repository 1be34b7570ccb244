"""Losses, with PyTorch's ``reduction`` ("none", "mean", "sum") and its legacy ``size_average``/``reduce``:

=====================================  ===================================================================
``mse_loss``                           ``MseLossBackward0``
``cross_entropy``                      ``NllLossBackward0`` over ``LogSoftmaxBackward0`` (class indices)
``nll_loss``                           ``NllLossBackward0``; ``NllLoss2DBackward0`` for inputs of more than
                                       2 dims (3-D and 5-D+ inputs viewed as 4-D, as PyTorch does)
``binary_cross_entropy``               ``BinaryCrossEntropyBackward0``
``binary_cross_entropy_with_logits``   ``BinaryCrossEntropyWithLogitsBackward0``
``smooth_l1_loss`` / ``huber_loss``    ``SmoothL1LossBackward0`` / ``HuberLossBackward0``
=====================================  ===================================================================

``l1_loss`` and ``kl_div`` are composites in PyTorch and are built here from the same ops.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ... import dtypes
from ...dtypes import Size, scalar_type_name
from ...function import Function
from ...grad_mode import no_grad
from ...ops import logarithmic, pointwise
from ...ops.promotion import binary_operands, broadcast_shape, cast, iterator_layout
from ...ops.scalar import AddNumber, DivNumber, MulNumber
from ...summation import torch_sum
from ...tensor import Tensor
from ._node import (
    _keep,
    _mask,
    _not_differentiable,
)
from .activation import logsigmoid

_REDUCTIONS = ("none", "mean", "sum")


_REDUCTION_ENUM = {"none": 0, "mean": 1, "sum": 2}


def _check_reduction(reduction: str) -> None:
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")


def _legacy_reduction(size_average: Any, reduce: Any, reduction: str) -> str:
    """The deprecated ``size_average``/``reduce`` arguments, mapped to ``reduction`` as PyTorch does."""
    if size_average is None and reduce is None:
        return reduction
    warnings.warn("size_average and reduce args will be deprecated, please use reduction='"
                  f"{_legacy_string(size_average, reduce)}' instead.", UserWarning, stacklevel=3)
    return _legacy_string(size_average, reduce)


def _legacy_string(size_average: Any, reduce: Any) -> str:
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if size_average and reduce:
        return "mean"
    return "sum" if reduce else "none"


def _total(arr: np.ndarray) -> np.ndarray:
    """The sum of every element, in PyTorch's order of additions where it applies (loss.sum())."""
    out = torch_sum(arr, tuple(range(arr.ndim)))
    return np.add.reduce(arr, axis=None) if out is None else out


def _mean(arr: np.ndarray) -> np.ndarray:
    """The mean as a 0-d array of ``arr``'s dtype (loss.mean(): the sum, divided); nan over no elements,
    without NumPy's warning."""
    with np.errstate(invalid="ignore"):
        return np.asarray(_total(arr) / arr.dtype.type(arr.size), dtype=arr.dtype)


def _reduce(arr: np.ndarray, reduction: str) -> np.ndarray:
    if reduction == "mean":
        return _mean(arr)
    if reduction == "sum":
        return np.asarray(_total(arr), dtype=arr.dtype)
    return arr


# ---------------------------------------------------------------------------- mse loss, l1 loss
class MseLoss(Function):
    node_name = "MseLossBackward0"
    saved_names = ("self", "target")

    @staticmethod
    def forward(ctx: Any, a: Tensor, b: Tensor, reduction: str) -> Tensor:
        ctx.save_for_backward(a, b)  # of one shape: mse_loss expanded them
        ctx.reduction = reduction
        _keep(ctx, reduction=_REDUCTION_ENUM[reduction])
        sq = np.square(cast(a._data - b._data, a, b))
        return Tensor._make(_reduce(sq, reduction))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None, None]:
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad[:2]
        # the target's gradient is the same derivative with the two swapped, as PyTorch's formula
        return (MseLossBackward.apply(grad, a, b, ctx.reduction) if need_a else None), (
            MseLossBackward.apply(grad, b, a, ctx.reduction) if need_b else None), None


class MseLossBackward(Function):
    """mse_loss's derivative by ``self``, ``(self - target) * norm * grad`` (norm: 2, over the count
    for a mean), as one node: recorded as PyTorch's with ``create_graph=True``."""

    node_name = "MseLossBackwardBackward0"
    saved_names = ("grad_output", "self", "target")

    @staticmethod
    def forward(ctx: Any, grad: Tensor, a: Tensor, b: Tensor, reduction: str) -> Tensor:
        ctx.save_for_backward(grad, a, b)
        ctx.reduction = reduction
        _keep(ctx, reduction=_REDUCTION_ENUM[reduction])
        # PyTorch's sub_out(zeros_like(self), self, target).mul_(norm).mul_(grad): in self's dtype
        dt = a._data.dtype
        diff = np.asarray(a._data - b._data).astype(dt, copy=False)
        scaled = diff * dt.type(_mse_norm(reduction, diff.size))
        return Tensor._make(np.asarray(scaled * grad._data).astype(dt, copy=False))

    @staticmethod
    def backward(ctx: Any, gg: Tensor) -> tuple[Tensor | None, Tensor | None, Tensor | None, None]:
        grad, a, b = ctx.saved_tensors
        need_grad, need_a, need_b = ctx.needs_input_grad[:3]
        g_grad = g_a = g_b = None
        if need_grad:  # PyTorch's mse_loss_double_backward_grad_output (grad_output a number unless "none")
            g_grad = MseLossBackward.apply(gg, a, b, ctx.reduction)
            if ctx.reduction != "none":
                g_grad = g_grad.sum()
        if need_a or need_b:  # PyTorch's mse_loss_double_backward: 2 * (gg * grad), over the count for a mean
            curve = MulNumber.apply(gg * grad, 2)
            if ctx.reduction == "mean":
                curve = DivNumber.apply(curve, a.numel())
            g_a, g_b = (curve if need_a else None), (-curve if need_b else None)
        return g_grad, g_a, g_b, None


def _mse_norm(reduction: str, count: int) -> float:
    """2, or 2 over the count for a mean (no elements: the gradient is empty, nothing to scale)."""
    return 2.0 / count if reduction == "mean" and count else 2.0


def mse_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
             reduction: str = "mean") -> Tensor:
    """Mean (or sum, or none) of the squared differences (``MseLossBackward0``).

    A target of another shape broadcasts, with PyTorch's warning, expanded first as PyTorch does
    (``ExpandBackward0`` edges; the expanded operands decide the dtype); both inputs get gradients.
    """
    _warn_target_size(input, target)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    input, target = _broadcast_tensors(input, target)
    _check_reduction(reduction)
    return MseLoss.apply(input, target, reduction)


def l1_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
            reduction: str = "mean") -> Tensor:
    """Mean (or sum, or none) of the absolute differences; composite, as in PyTorch (the operands
    expanded to one shape first)."""
    _warn_target_size(input, target)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    input, target = _broadcast_tensors(input, target)
    _check_reduction(reduction)
    diff = (input - target).abs()
    return diff if reduction == "none" else diff.mean() if reduction == "mean" else diff.sum()


# ---------------------------------------------------------------------------- nll loss, cross entropy
class NllLoss(Function):
    """Negative log-likelihood of the target classes, given log-probabilities.

    The loss of sample i is ``-w[t_i] * logp[i, t_i]``; ``mean`` divides the sum by the sum of the
    weights ``w[t_i]`` (the number of samples without ``weight``); targets equal to ``ignore_index``
    count for nothing (and get a zero gradient). The gradient is ``-w[t_i] / total`` at the target
    positions. The node shows PyTorch's ``_saved_self``, ``_saved_target``, ``_saved_weight``,
    ``_saved_total_weight``, ``_saved_ignore_index`` and ``_saved_reduction``. Target and weight are
    no inputs of the node (PyTorch's has one edge, to the log-probabilities): they come boxed.
    """

    node_name = "NllLossBackward0"
    saved_names = ("self", "target", "weight", "total_weight")

    @staticmethod
    def _rows(logp: np.ndarray, target: np.ndarray, weight: Tensor | None,
              ignore_index: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The row indices, target classes and weights of the kept (not ignored) samples."""
        classes = logp.shape[1 if logp.ndim >= 2 else 0]
        t = target.reshape(-1).astype(np.int64)
        kept = np.flatnonzero(t != ignore_index)
        t = t[kept]
        bad = (t < 0) | (t >= classes)
        if bad.any():
            raise IndexError(f"Target {int(t[bad][0])} is out of bounds.")
        w = weight._data[t] if weight is not None else np.ones(t.shape)
        return kept, t, w.astype(logp.dtype, copy=False)

    @staticmethod
    def forward(ctx: Any, logp: Tensor, boxed: tuple, reduction: str, ignore_index: int) -> Tensor:
        target, weight = boxed
        lp = logp._data
        class_dim = 1 if lp.ndim >= 2 else 0
        rows = _classes_last(lp, class_dim).reshape(-1, lp.shape[class_dim])
        kept, t, w = NllLoss._rows(lp, target._data, weight, ignore_index)
        losses = np.zeros(rows.shape[0], lp.dtype)
        losses[kept] = -w * rows[kept, t]
        # PyTorch's kernel sums the weights unless reduction="none" with a batch (1-D input: w[t] still)
        total = np.asarray(w.sum() if reduction != "none" or lp.ndim == 1 else 0, lp.dtype)
        # PyTorch's kernel accumulates from 0 (a sum, and the one loss of a 1-D input): -0.0 comes out 0.0
        zero = lp.dtype.type(0)
        if reduction == "none":
            out = losses.reshape(target.shape) + zero if lp.ndim == 1 else losses.reshape(target.shape)
        elif reduction == "sum":
            out = losses.sum() + zero
        else:
            with np.errstate(invalid="ignore", divide="ignore"):  # all ignored: 0 / 0 = nan, as PyTorch
                out = (losses.sum() + zero) / total
        ctx.save_for_backward(logp, target, weight, Tensor._make(total))
        ctx.class_dim, ctx.reduction, ctx.ignore_index = class_dim, reduction, ignore_index
        _keep(ctx, ignore_index=ignore_index % 2**64, reduction=_REDUCTION_ENUM[reduction])
        return Tensor._make(np.asarray(out, dtype=lp.dtype))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None, None]:
        logp, target, weight, total = ctx.saved_tensors
        derivative = NllLoss2dBackward if ctx._forward_cls is NllLoss2d else NllLossBackward
        boxed = (target, weight, total)
        return derivative.apply(grad, logp, boxed, ctx.reduction, ctx.ignore_index), None, None, None


def _classes_last(x: np.ndarray, class_dim: int) -> np.ndarray:
    """``x`` with its class dim moved last (a view; as it is where it is last already, the common case)."""
    return x if class_dim == x.ndim - 1 else np.moveaxis(x, class_dim, -1)


class NllLossBackward(Function):
    """nll_loss's derivative, as one node (recorded as PyTorch's with ``create_graph=True``): at each
    kept sample's target class ``-w[t] * grad`` (over the total weight for a mean), 0 elsewhere, even
    where ``grad`` is nan or inf. Its own derivative: nll_loss of ``gg`` for ``grad``, 0 for ``self``."""

    node_name = "NllLossBackwardBackward0"
    saved_names = ("target", "weight")

    @staticmethod
    def forward(ctx: Any, grad: Tensor, logp: Tensor, boxed: tuple, reduction: str,
                ignore_index: int) -> Tensor:
        target, weight, total = boxed
        ctx.boxed, ctx.reduction, ctx.ignore_index = (target, weight), reduction, ignore_index
        ctx.save_for_backward(target, weight)
        _keep(ctx, ignore_index=ignore_index % 2**64, reduction=_REDUCTION_ENUM[reduction])
        lp, g = logp._data, grad._data
        class_dim = 1 if lp.ndim >= 2 else 0
        moved = _classes_last(lp, class_dim).shape
        kept, t, w = NllLoss._rows(lp, target._data, weight, ignore_index)
        out = np.zeros((int(np.prod(moved[:-1])), moved[-1]), lp.dtype)
        if reduction == "none" and lp.ndim >= 2:  # PyTorch's kernel: -w * grad[i]
            out[kept, t] = -w * g.reshape(-1)[kept]
        else:  # w * -(grad over the total weight for a mean, else grad)
            with np.errstate(invalid="ignore", divide="ignore"):
                scaled = -(g / total._data if reduction == "mean" else g)
            out[kept, t] = w * scaled.astype(lp.dtype, copy=False)
        out = out.reshape(moved)
        return Tensor._make(out if class_dim == lp.ndim - 1 else np.moveaxis(out, -1, class_dim))

    @staticmethod
    def backward(ctx: Any, gg: Tensor) -> tuple[Tensor | None, Tensor | None, None, None, None]:
        need_grad, need_logp = ctx.needs_input_grad[:2]
        target, weight = ctx.boxed
        g_grad = _nll(gg, target, weight, ctx.reduction, ctx.ignore_index) if need_grad else None
        return g_grad, Tensor._make(np.zeros_like(gg._data)) if need_logp else None, None, None, None


class NllLoss2dBackward(NllLossBackward):
    node_name = "NllLoss2DBackwardBackward0"
    saved_names = ("target", "weight")


class NllLoss2d(NllLoss):
    """The same loss for inputs of shape (N, C, H, W); PyTorch names its node apart."""

    node_name = "NllLoss2DBackward0"


def _nll(logp: Tensor, target: Tensor, weight: Tensor | None, reduction: str,
         ignore_index: int) -> Tensor:
    """Pick PyTorch's node: ``NllLoss`` up to 2-D, ``NllLoss2D`` beyond (other ranks viewed as 4-D)."""
    if logp.ndim <= 2:
        return NllLoss.apply(logp, (target, weight), reduction, ignore_index)
    if logp.ndim == 4:
        return NllLoss2d.apply(logp, (target, weight), reduction, ignore_index)
    n, c = logp.shape[:2]
    out = NllLoss2d.apply(logp.view(n, c, 1, -1), (target.reshape(n, 1, -1), weight), reduction,
                          ignore_index)
    return out.view(*target.shape) if reduction == "none" else out


def _check_class_targets(input: Tensor, target: Tensor) -> None:
    """PyTorch's checks of a class-index target against the input's shape."""
    if input.ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {input.ndim})")
    if input.ndim != 1 and input.shape[0] != (target.shape[0] if target.ndim else 0):
        raise ValueError(
            f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
            f"({target.shape[0] if target.ndim else 0})."
        )
    if input.ndim <= 2:
        if target.ndim > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        if input.ndim == 1 and target.ndim == 1 and target.shape[0] != 1:
            raise ValueError(
                f"For 1D input, 1D target must have size 1, but got target size: {target.shape[0]}"
            )
    elif target.shape != input.shape[:1] + input.shape[2:]:
        want = list(input.shape[:1] + input.shape[2:])
        raise RuntimeError(f"Expected target size {want}, got {list(target.shape)}")
    if target.dtype not in (dtypes.int64, dtypes.uint8):
        raise RuntimeError("expected target dtype to be Long or Byte, but got "
                           f"{scalar_type_name(target.dtype)}")


def _check_weight(weight: Tensor | None, classes: int) -> Tensor | None:
    if weight is None:
        return None
    if weight.ndim != 1 or weight.shape[0] != classes:
        raise RuntimeError(
            f"weight tensor should be defined either for all {classes} classes or no classes but got "
            f"weight tensor of shape: {list(weight.shape)}"
        )
    return weight


def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None,
             size_average: Any = None, ignore_index: int = -100, reduce: Any = None,
             reduction: str = "mean") -> Tensor:
    """Negative log-likelihood loss of log-probabilities and class indices (``NllLossBackward0``)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    _check_class_targets(input, target)
    classes = input.shape[1 if input.ndim >= 2 else 0]
    w = _check_weight(weight, classes)
    return _nll(input, target, w, reduction, int(ignore_index))


def cross_entropy(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: Any = None,
    ignore_index: int = -100,
    reduce: Any = None,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Tensor:
    """Cross-entropy between logits and targets (``torch.nn.functional.cross_entropy``).

    ``input``: unnormalised scores (logits), shape (N, C), (C,) or (N, C, d1, ...). ``target``: class
    indices (int64) of shape (N,), () or (N, d1, ...), or class probabilities (float, the input's
    shape). Computed stably as ``nll_loss(log_softmax(input, 1), target)``: the graph shows
    ``NllLossBackward0`` over ``LogSoftmaxBackward0``, as PyTorch's.

    With ``label_smoothing`` or probability targets, the graph has PyTorch's ``MulBackward1``,
    ``AddBackward1`` and ``DivBackward1`` (multiplying, adding, dividing by a number inside the op).
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    class_dim = 1 if input.ndim >= 2 else 0
    if input.shape == target.shape:
        if not target.is_floating_point():
            raise RuntimeError(
                "Expected floating point type for target with class probabilities, got "
                f"{scalar_type_name(target.dtype)}"
            )
        return _cross_entropy_probabilities(input, target, weight, reduction, label_smoothing, class_dim)
    _check_class_targets(input, target)
    classes = input.shape[class_dim]
    w = _check_weight(weight, classes)
    logp = logarithmic.log_softmax(input, class_dim)
    nll = _nll(logp, target, w, reduction, int(ignore_index))
    if label_smoothing == 0.0:
        return nll
    ignore = Tensor._make(target._data == ignore_index)
    if weight is not None:
        shape = [1] * input.ndim
        shape[class_dim] = classes
        smooth = -(logp * weight.view(*shape)).sum(class_dim)
    else:
        smooth = -logp.sum(class_dim)
    smooth = smooth.masked_fill(ignore, 0.0)
    if reduction == "mean":
        kept = target._data[target._data != ignore_index]
        total = weight._data[kept].sum() if weight is not None else kept.size
        smooth = smooth.sum() / float(total)
    elif reduction == "sum":
        smooth = smooth.sum()
    return MulNumber.apply(nll, 1 - label_smoothing) + MulNumber.apply(smooth, label_smoothing / classes)


def _cross_entropy_probabilities(input: Tensor, target: Tensor, weight: Tensor | None,
                                 reduction: str, label_smoothing: float, class_dim: int) -> Tensor:
    classes = input.shape[class_dim]
    logp = logarithmic.log_softmax(input, class_dim)
    if label_smoothing > 0.0:
        target = AddNumber.apply(MulNumber.apply(target, 1 - label_smoothing), label_smoothing / classes)
    terms = logp * target
    if weight is not None:
        _check_weight(weight, classes)
        shape = [1] * input.ndim
        shape[class_dim] = classes
        terms = terms * weight.view(*shape)
    if reduction == "none":
        return -terms.sum(class_dim)
    if reduction == "sum":
        return -terms.sum()
    if input.numel() == 0:  # PyTorch's -(terms.sum().fill_(nan)): FillBackward2, then NegBackward0
        return -(terms.sum().fill_(float("nan")))
    return DivNumber.apply(-terms.sum(), input.numel() / classes)


# ---------------------------------------------------------------------------- binary cross entropy
class BinaryCrossEntropy(Function):
    """``-w * (y * log(x) + (1 - y) * log(1 - x))``, each log clamped at -100 as in PyTorch.

    Weight is no input of the node (PyTorch's has edges to input and target only); it comes boxed.
    """

    node_name = "BinaryCrossEntropyBackward0"
    saved_names = ("self", "target", "weight")

    @staticmethod
    def forward(ctx: Any, x: Tensor, y: Tensor, boxed: tuple, reduction: str) -> Tensor:
        (weight,) = boxed
        d, t = x._data, y._data
        if not ((d >= 0) & (d <= 1)).all():
            raise RuntimeError("all elements of input should be between 0 and 1")
        with np.errstate(divide="ignore"):
            log_x = np.maximum(np.log(d), -100)
            log_1mx = np.maximum(np.log1p(-d), -100)
        # (TensorIterator's layout of input and target: a transposed input gives a transposed loss)
        loss = iterator_layout(((t - 1) * log_1mx - t * log_x).astype(d.dtype, copy=False), d, t)
        if weight is not None:  # (PyTorch's loss.mul_(weight): in place, the loss's layout)
            loss = iterator_layout((loss * weight._data).astype(d.dtype, copy=False), loss)
        ctx.save_for_backward(x, y, weight)
        ctx.reduction, ctx.count = reduction, loss.size
        _keep(ctx, reduction=_REDUCTION_ENUM[reduction])
        return Tensor._make(_reduce(loss, reduction))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None, None, None]:
        x, y, weight = ctx.saved_tensors
        need_x, need_y = ctx.needs_input_grad[:2]
        grad_x = BinaryCrossEntropyBackward.apply(grad, x, y, (weight,), ctx.reduction) if need_x else None
        grad_y = None
        if need_y:  # -logit(x) * grad, as PyTorch's binary_cross_entropy_target_backward
            grad_y = -pointwise.logit(x) * grad
            if weight is not None:
                grad_y = grad_y * weight
            if ctx.reduction == "mean":
                grad_y = DivNumber.apply(grad_y, ctx.count)
        return grad_x, grad_y, None, None


class BinaryCrossEntropyBackward(Function):
    """The derivative by the input, ``grad * (x - y) / max(x * (1 - x), 1e-12)``, as one node: recorded as
    PyTorch's with ``create_graph=True``, with PyTorch's second derivatives (their ``1e-12`` guards)."""

    node_name = "BinaryCrossEntropyBackwardBackward0"
    saved_names = ("grad_output", "self", "target", "weight")

    @staticmethod
    def forward(ctx: Any, grad: Tensor, x: Tensor, y: Tensor, boxed: tuple, reduction: str) -> Tensor:
        (weight,) = boxed
        ctx.save_for_backward(grad, x, y, weight)
        ctx.reduction = reduction
        _keep(ctx, reduction=_REDUCTION_ENUM[reduction])
        d, t = x._data, y._data
        out = grad._data * (d - t) / np.maximum(d * (1 - d), 1e-12)
        if weight is not None:
            out = out * weight._data
        if reduction == "mean":
            out = out / d.size
        return Tensor._make(out.astype(d.dtype, copy=False))

    @staticmethod
    def backward(ctx: Any, gg: Tensor) -> tuple[Tensor | None, Tensor | None, Tensor | None, None, None]:
        grad, x, y, weight = ctx.saved_tensors
        need_grad, need_x, need_y = ctx.needs_input_grad[:3]
        eps, n = 1e-12, x.numel()

        def scaled(t: Tensor) -> Tensor:  # (PyTorch's: a division by the count, a number: DivBackward1)
            t = t * weight if weight is not None else t
            return DivNumber.apply(t, n) if ctx.reduction == "mean" else t

        # PyTorch's binary_cross_entropy_double_backward(_grad_output), step by step (eps a Scalar; ATen's
        # `1 - input` is empty_like(input).fill_(1).sub_(input): SubBackward0, no edge for the ones)
        g_grad = g_x = g_y = None
        if need_grad:
            one_minus_x = Tensor._make(np.ones_like(x._data)) - x
            g_grad = (x - y) / (AddNumber.apply(x, eps) * AddNumber.apply(one_minus_x, eps))
            g_grad = scaled(g_grad * gg)
            if ctx.reduction != "none":
                g_grad = g_grad.sum()
        if need_x:  # (its own nodes: PyTorch's two functions each compute what they read)
            one_minus_x = Tensor._make(np.ones_like(x._data)) - x
            curve = (x * x - MulNumber.apply(x, 2) * y + y) / (
                AddNumber.apply(x, eps) ** 2 * AddNumber.apply(one_minus_x, eps) ** 2)
            g_x = scaled(curve * (gg * grad))
        if need_y:
            denom = (Tensor._make(np.ones_like(x._data)) - x) * x  # (ATen's `1 - input`, as above)
            with no_grad():  # clamped unseen by autograd, as PyTorch does
                denom.clamp_(min=eps)
            g_y = scaled(-gg * grad / denom)
        return g_grad, g_x, g_y, None, None


def _broadcast_shapes_against(base: Size, other: Size) -> tuple[int, ...]:
    """``torch.broadcast_shapes(base, other)`` with its message for a mismatch."""
    n = max(len(base), len(other))
    result = [1] * (n - len(base)) + list(base)
    for i in range(-1, -len(other) - 1, -1):
        if other[i] == 1 or other[i] == result[i]:
            continue
        if result[i] != 1:
            raise RuntimeError(
                f"Attempting to broadcast a dimension of length {other[i]} at {i}! Mismatching argument at "
                f"index 1 had {Size(other)}; but expected shape should be broadcastable to {result}"
            )
        result[i] = other[i]
    return tuple(result)


def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,
                         size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> Tensor:
    """Binary cross-entropy of probabilities ``input`` and targets (``BinaryCrossEntropyBackward0``)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if target.size() != input.size():  # (a number has no size(): PyTorch's AttributeError)
        raise ValueError(
            f"Using a target size ({target.size()}) that is different to the input size ({input.size()}) is "
            "deprecated. Please ensure they have the same size."
        )
    if weight is not None:
        weight = weight.expand(*_broadcast_shapes_against(target.shape, weight.shape))
    if input.dtype.name in ("int64", "int32", "int16", "int8", "uint8", "bool"):
        raise NotImplementedError(
            f"\"binary_cross_entropy\" not implemented for '{scalar_type_name(input.dtype)}'")
    if target.dtype is not input.dtype:
        raise RuntimeError(
            f"Found dtype {scalar_type_name(target.dtype)} but expected {scalar_type_name(input.dtype)}")
    _not_differentiable("binary_cross_entropy", weight=weight)
    return BinaryCrossEntropy.apply(input, target, (weight,), reduction)


def _log_sigmoid_np(d: np.ndarray) -> np.ndarray:
    return np.minimum(d, 0) - np.log1p(np.exp(-np.abs(d)))


class BinaryCrossEntropyWithLogits(Function):
    """``(1 - y) * x - (1 + (pos_weight - 1) * y) * log_sigmoid(x)``, times ``weight``: stable for
    every ``x``. Weight and pos_weight are no inputs of the node (boxed), as in PyTorch."""

    node_name = "BinaryCrossEntropyWithLogitsBackward0"
    saved_names = ("self", "target", "weight", "pos_weight")

    @staticmethod
    def forward(ctx: Any, x: Tensor, y: Tensor, boxed: tuple, reduction: str) -> Tensor:
        weight, pos_weight = boxed
        d, t = x._data, y._data
        log_sig = _log_sigmoid_np(d)
        if pos_weight is not None:
            log_sig = log_sig * ((pos_weight._data - 1) * t + 1)
        loss = (1 - t) * d - log_sig
        if weight is not None:
            loss = loss * weight._data
        loss = loss.astype(np.result_type(d.dtype, t.dtype), copy=False)
        ctx.save_for_backward(x, y, weight, pos_weight)
        ctx.reduction, ctx.count = reduction, loss.size
        _keep(ctx, reduction=_REDUCTION_ENUM[reduction])
        return Tensor._make(_reduce(loss, reduction))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None, None, None]:
        # PyTorch's binary_cross_entropy_with_logits_backward and its _target_backward, step by step
        x, y, weight, pos_weight = ctx.saved_tensors
        need_x, need_y = ctx.needs_input_grad[:2]
        grad_x = grad_y = None
        if need_x:
            if pos_weight is not None:
                t = pos_weight * y
                grad_x = (AddNumber.apply(t, 1) - y) * pointwise.sigmoid(x) - t
            else:
                grad_x = pointwise.sigmoid(x) - y
            grad_x = _weighted_mean(grad_x * grad, weight, ctx)
        if need_y:
            if pos_weight is not None:
                grad_y = (logsigmoid(-x) - logsigmoid(x) * pos_weight) * grad  # (LogSigmoidBackward0)
            else:
                grad_y = -x * grad
            grad_y = _weighted_mean(grad_y, weight, ctx)
        return grad_x, grad_y, None, None


def _weighted_mean(g: Tensor, weight: Tensor | None, ctx: Any) -> Tensor:
    """The end of a loss's backward in PyTorch: times ``weight``, then divided by the count for a mean."""
    if weight is not None:
        g = g * weight
    return DivNumber.apply(g, ctx.count) if ctx.reduction == "mean" else g


def binary_cross_entropy_with_logits(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
    pos_weight: Tensor | None = None,
) -> Tensor:
    """Sigmoid and binary cross-entropy in one stable op (``BinaryCrossEntropyWithLogitsBackward0``)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if not (target.size() == input.size()):  # (a number has no size(): PyTorch's AttributeError)
        raise ValueError(f"Target size ({target.size()}) must be the same as input size ({input.size()})")
    if pos_weight is not None:
        broadcast_shape(pos_weight.shape, target.shape)
    if weight is not None:
        broadcast_shape(input.shape, weight.shape)
    _not_differentiable("binary_cross_entropy_with_logits", weight=weight, pos_weight=pos_weight)
    return BinaryCrossEntropyWithLogits.apply(input, target, (weight, pos_weight), reduction)


# ---------------------------------------------------------------------------- smooth l1 loss, huber loss
class _RobustLoss(Function):
    """Quadratic near zero, linear beyond ``cut``: smooth L1 (divided by beta) and Huber (times delta)."""

    huber = False

    @classmethod
    def forward(cls, ctx: Any, a: Tensor, b: Tensor, reduction: str, cut: float) -> Tensor:
        diff = a._data - b._data
        z = np.abs(diff)
        dt = diff.dtype.type
        if cls.huber:
            loss = np.where(z < cut, dt(0.5) * z * z, dt(cut) * (z - dt(0.5 * cut)))
            _keep(ctx, delta=cut)
        else:
            loss = np.where(z < cut, dt(0.5) * z * z / dt(cut), z - dt(0.5 * cut))
            _keep(ctx, beta=cut)
        loss = loss.astype(diff.dtype, copy=False)
        ctx.save_for_backward(a, b)
        ctx.reduction, ctx.cut, ctx.count = reduction, cut, loss.size
        _keep(ctx, reduction=_REDUCTION_ENUM[reduction])
        return Tensor._make(_reduce(loss, reduction))

    @classmethod
    def backward(cls, ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None, None, None]:
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad[:2]
        node = cls.derivative
        # the target's gradient is the same derivative with the two swapped, as PyTorch's formula
        return (node.apply(grad, a, b, ctx.reduction, ctx.cut) if need_a else None), (
            node.apply(grad, b, a, ctx.reduction, ctx.cut) if need_b else None), None, None


class _RobustLossBackward(Function):
    """The derivative by ``self`` of smooth L1 (``diff / beta`` inside, ``sign(diff)`` beyond) or Huber
    (``diff`` inside, ``delta * sign(diff)`` beyond), times ``grad``, as one node: recorded as PyTorch's
    with ``create_graph=True``. Its own derivative by ``self`` is ``gg * grad`` (over beta) inside."""

    huber = False

    @classmethod
    def forward(cls, ctx: Any, grad: Tensor, a: Tensor, b: Tensor, reduction: str, cut: float) -> Tensor:
        ctx.save_for_backward(grad, a, b)
        ctx.reduction, ctx.cut = reduction, cut
        _keep(ctx, **{"delta" if cls.huber else "beta": cut}, reduction=_REDUCTION_ENUM[reduction])
        diff = a._data - b._data
        dt = diff.dtype.type
        inside = diff / dt(cut) if not cls.huber else diff
        slope = np.where(np.abs(diff) < cut, inside, np.sign(diff) * dt(cut if cls.huber else 1))
        out = grad._data * slope
        if reduction == "mean":
            out = out / dt(diff.size)
        return Tensor._make(out.astype(diff.dtype, copy=False))

    @classmethod
    def backward(cls, ctx: Any, gg: Tensor) -> tuple[Tensor | None, Tensor | None, Tensor | None, None, None]:
        grad, a, b = ctx.saved_tensors
        need_grad, need_a, need_b = ctx.needs_input_grad[:3]
        g_grad = None
        if need_grad:  # PyTorch's: smooth_l1's the backward of gg; huber's (r * gg).sum(), r that of ones
            if cls.huber and ctx.reduction != "none":
                g_grad = (cls.apply(Tensor._make(np.ones_like(grad._data)), a, b, ctx.reduction, ctx.cut)
                          * gg).sum()
            else:
                g_grad = cls.apply(gg, a, b, ctx.reduction, ctx.cut)
        g_a = g_b = None
        if need_a or need_b:  # PyTorch's smooth_l1 (huber)_loss_double_backward, step by step (beta 0 is
            curve = gg * grad * _mask(np.abs(a._data - b._data) < ctx.cut, gg)  # l1_loss: never here)
            if not cls.huber:
                curve = DivNumber.apply(curve, ctx.cut)
            if ctx.reduction == "mean":
                curve = DivNumber.apply(curve, a.numel())
            g_a, g_b = (curve if need_a else None), (-curve if need_b else None)
        return g_grad, g_a, g_b, None, None


class SmoothL1LossBackward(_RobustLossBackward):
    node_name = "SmoothL1LossBackwardBackward0"
    saved_names = ("grad_output", "self", "target")


class HuberLossBackward(_RobustLossBackward):
    node_name = "HuberLossBackwardBackward0"
    saved_names = ("grad_output", "self", "target")
    huber = True


class SmoothL1Loss(_RobustLoss):
    node_name = "SmoothL1LossBackward0"
    saved_names = ("self", "target")
    derivative = SmoothL1LossBackward


class HuberLoss(_RobustLoss):
    node_name = "HuberLossBackward0"
    saved_names = ("self", "target")
    huber = True
    derivative = HuberLossBackward


def _warn_target_size(input: Tensor, target: Tensor) -> None:
    """PyTorch's warning for a target of another size (``target.size()`` first: a number has none,
    and raises PyTorch's AttributeError)."""
    if not (target.size() == input.size()):
        warnings.warn(
            f"Using a target size ({target.size()}) that is different to the input size ({input.size()}). "
            "This will likely lead to incorrect results due to broadcasting. Please ensure they have "
            "the same size.",
            UserWarning,
            stacklevel=3,
        )


def _broadcast_tensors(a: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
    """``torch.broadcast_tensors`` of two: only a tensor whose shape changes gets an ``ExpandBackward0``."""
    shape = broadcast_shape(a.shape, b.shape)
    return (a if a.shape == shape else a.expand(*shape)), (b if b.shape == shape else b.expand(*shape))


def smooth_l1_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
                   reduction: str = "mean", beta: float = 1.0) -> Tensor:
    """Squared error below ``beta`` (halved, over beta), absolute error above (``SmoothL1LossBackward0``);
    ``beta=0`` is the L1 loss, as in PyTorch."""
    _warn_target_size(input, target)
    if size_average is not None or reduce is not None:
        reduction = _legacy_string(size_average, reduce)
    input, target = binary_operands(input, target)
    input, target = _broadcast_tensors(input, target)
    _check_reduction(reduction)
    if beta == 0.0:
        return l1_loss(input, target, reduction=reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    return SmoothL1Loss.apply(input, target, reduction, float(beta))


def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0,
               weight: Tensor | None = None) -> Tensor:
    """Squared error below ``delta`` (halved), ``delta`` times the absolute error above
    (``HuberLossBackward0``)."""
    _warn_target_size(input, target)
    input, target = binary_operands(input, target)
    input, target = _broadcast_tensors(input, target)
    if weight is None:
        _check_reduction(reduction)
        if delta <= 0:
            raise RuntimeError("huber_loss does not support non-positive values for delta.")
        return HuberLoss.apply(input, target, reduction, float(delta))
    if weight.shape != input.shape:
        raise ValueError("Weights and input must have the same size.")
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    if reduction not in _REDUCTIONS:
        raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")
    loss = HuberLoss.apply(input, target, "none", float(delta)) * weight
    return loss if reduction == "none" else loss.sum() if reduction == "sum" else loss.mean()


# ---------------------------------------------------------------------------- kl div
def kl_div(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
           reduction: str = "mean", log_target: bool = False) -> Tensor:
    """KL divergence of ``target`` from ``exp(input)`` (log-probabilities), composed as PyTorch's:
    ``xlogy(t, t) - t * input`` (or ``exp(t) * (t - input)`` with ``log_target``).

    ``reduction="batchmean"`` divides the sum by the batch size (the mathematical KL divergence);
    ``"mean"`` divides by the number of elements, with PyTorch's warning.
    """
    if size_average is not None or reduce is not None:
        reduction = _legacy_string(size_average, reduce)
    if reduction == "mean":
        warnings.warn(
            "reduction: 'mean' divides the total loss by both the batch size and the support size."
            "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
            "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
            UserWarning,
            stacklevel=2,
        )
    if reduction != "batchmean":
        _check_reduction(reduction)
    if log_target:
        out = pointwise.exp(target) * (target - input)
    else:
        out = pointwise.xlogy(target, target) - target * input
    if reduction == "mean":
        return out.mean()
    if reduction in ("sum", "batchmean"):
        out = out.sum()
        if reduction == "batchmean" and input.ndim != 0:
            out = out / input.shape[0]
    return out
