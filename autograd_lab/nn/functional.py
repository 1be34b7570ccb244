"""Neural-network functions: layers, activations and losses as plain functions (``torch.nn.functional``).

The operations that PyTorch records as one node of its own are one :class:`Function` here, with the
same node name, so that a drawn graph looks like PyTorch's:

=====================  ===========================================================================
``linear``             ``AddmmBackward0`` (2-D input with bias; ``MmBackward0`` without bias), fed
                       by ``TBackward0`` of the weight, as in PyTorch; other ranks add views.
``cross_entropy``      ``NllLossBackward0`` over ``LogSoftmaxBackward0`` (class indices).
``nll_loss``           ``NllLossBackward0``; ``NllLoss2DBackward0`` for inputs of more than 2 dims
                       (3-D and 5-D+ inputs viewed as 4-D, as PyTorch does).
``mse_loss``           ``MseLossBackward0``.
``batch_norm``         ``NativeBatchNormBackward0`` (in training and in eval, as PyTorch).
``dropout``            ``MulBackward0``: the input times a random mask, as PyTorch on the CPU.
=====================  ===========================================================================

Every backward is written with tensor operations, so ``create_graph=True`` works through all of them.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .. import dtypes
from ..dtypes import Size
from ..function import Function
from ..ops import arithmetic, linalg, logarithmic, pointwise
from ..ops.inplace import inplace as in_place
from ..ops.promotion import binary_operands, broadcast_shape, cast
from ..ops.view import UnsafeView
from ..random import _generator
from ..tensor import Tensor

_REDUCTIONS = ("none", "mean", "sum")
_LEGACY_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long",
                 "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}


def _check_reduction(reduction: str) -> None:
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")


def _legacy(t: Tensor) -> str:
    return _LEGACY_NAMES[t.dtype.name]


def _short(t: Tensor) -> str:
    """PyTorch's short dtype names in some messages: float, double, long."""
    return {"float32": "float", "float64": "double", "int64": "long"}.get(t.dtype.name, t.dtype.name)


# ---------------------------------------------------------------------------- linear
def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:  # noqa: A002
    """``input @ weight.T + bias`` (``torch.nn.functional.linear``).

    Recorded as PyTorch records it: ``AddmmBackward0`` for a 2-D input with a bias, ``MmBackward0``
    without; other ranks are flattened to 2-D and viewed back (``ViewBackward0`` with a bias,
    ``UnsafeViewBackward0`` without). One small difference: a 1-D input without bias ends in
    ``SqueezeBackward1`` where PyTorch shows ``SqueezeBackward4``.
    """
    if input.ndim == 0 or weight.ndim == 0:
        raise RuntimeError(
            f"both arguments to linear need to be at least 1D, but they are {input.ndim}D and "
            f"{weight.ndim}D"
        )
    if input.dtype is not weight.dtype:
        if bias is not None:
            raise RuntimeError(
                f"mat1 and mat2 must have the same dtype, but got {_legacy(input)} and {_legacy(weight)}"
            )
        raise RuntimeError(
            f"expected m1 and m2 to have the same dtype, but got: {_short(input)} != {_short(weight)}"
        )
    if bias is None:
        if input.ndim <= 2:
            return linalg.matmul(input, weight.t())
        batch = input.shape[:-1]
        out = linalg.mm(input.reshape(-1, input.shape[-1]), weight.t())
        return UnsafeView.apply(out, (*batch, weight.shape[0]))
    if input.ndim == 2:
        return linalg.Addmm.apply(bias, input, weight.t(), 1, 1)
    batch = input.shape[:-1]
    out = linalg.Addmm.apply(bias, input.reshape(-1, input.shape[-1]), weight.t(), 1, 1)
    return out.view(*batch, weight.shape[0])


# ---------------------------------------------------------------------------- activations
def relu(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    """``max(input, 0)`` elementwise (``ReluBackward0``)."""
    if inplace:
        return in_place(input, pointwise.relu)
    return pointwise.relu(input)


def tanh(input: Tensor) -> Tensor:  # noqa: A002
    return pointwise.tanh(input)


def sigmoid(input: Tensor) -> Tensor:  # noqa: A002
    return pointwise.sigmoid(input)


def _softmax_dim(name: str, ndim: int) -> int:
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X "
        "as an argument.",
        UserWarning,
        stacklevel=3,
    )
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input: Tensor, dim: int | None = None, dtype: Any = None) -> Tensor:  # noqa: A002
    """``exp(x) / exp(x).sum(dim)``, computed stably (``SoftmaxBackward0``)."""
    if dim is None:
        dim = _softmax_dim("softmax", input.ndim)
    if dtype is not None:
        input = input.to(dtype)
    return logarithmic.softmax(input, dim)


def log_softmax(input: Tensor, dim: int | None = None, dtype: Any = None) -> Tensor:  # noqa: A002
    """``log(softmax(x))``, computed stably (``LogSoftmaxBackward0``)."""
    if dim is None:
        dim = _softmax_dim("log_softmax", input.ndim)
    if dtype is not None:
        input = input.to(dtype)
    return logarithmic.log_softmax(input, dim)


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """Class indices to one-hot rows of int64 (``torch.nn.functional.one_hot``)."""
    if tensor.dtype is not dtypes.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    idx = tensor._data
    if idx.size and idx.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        num_classes = int(idx.max()) + 1 if idx.size else 0
    elif idx.size and idx.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    return Tensor._make(np.eye(num_classes, dtype=np.int64)[idx])


# ---------------------------------------------------------------------------- dropout
def dropout(input: Tensor, p: float = 0.5, training: bool = True,  # noqa: A002
            inplace: bool = False) -> Tensor:
    """Zero each element with probability ``p`` and scale the rest by ``1/(1-p)``, in training only.

    The mask comes from the global generator (``manual_seed`` makes it reproducible) and the result is
    ``input * mask``: a ``MulBackward0`` node, as PyTorch records dropout on the CPU. Out of training
    (or with ``p=0``) the input itself is returned.
    """
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0 or input.numel() == 0:
        return input
    dt = input._data.dtype
    if p == 1.0:
        mask = np.zeros((), dtype=dt)
    else:
        keep = _generator(None).bernoulli(1.0 - p, input._data.shape)  # PyTorch's bernoulli_(1 - p)
        mask = keep.astype(dt) / dt.type(1.0 - p)
    if inplace:
        return in_place(input, arithmetic.mul, Tensor._make(mask))
    return arithmetic.mul(input, Tensor._make(mask))


# ---------------------------------------------------------------------------- batch norm
# Stands for a missing weight or bias: PyTorch's node has an edge (None, 0) for each of them.
_UNDEFINED = Tensor._make(np.empty((0,), dtype=np.float32))


class NativeBatchNorm(Function):
    """Normalise each channel (dim 1) over the batch and any further dims, then scale and shift.

    Training: the batch's mean and biased variance normalise, and the running statistics (kept
    outside the graph) move towards the batch's mean and *unbiased* variance by ``momentum``.
    Eval: the running statistics normalise. Statistics are accumulated in float64, as PyTorch's CPU
    kernel does.
    """

    node_name = "NativeBatchNormBackward0"
    saved_names = ("input", "weight")

    @staticmethod
    def forward(ctx: Any, x: Tensor, weight: Tensor, bias: Tensor, running: tuple, training: bool,
                momentum: float, eps: float) -> Tensor:
        data = x._data
        dims = (0, *range(2, data.ndim))
        shape = (1, data.shape[1]) + (1,) * (data.ndim - 2)
        running_mean, running_var = running
        if training:
            wide = data.astype(np.float64)
            mean = wide.mean(axis=dims)
            var = wide.var(axis=dims)
            count = data.size // data.shape[1]
            if running_mean is not None:
                _update(running_mean, (1 - momentum) * running_mean._data + momentum * mean)
            if running_var is not None:
                unbiased = var * count / max(count - 1, 1)
                _update(running_var, (1 - momentum) * running_var._data + momentum * unbiased)
        else:
            mean = running_mean._data.astype(np.float64)
            var = running_var._data.astype(np.float64)
        invstd = 1.0 / np.sqrt(var + eps)
        out = (data - mean.reshape(shape)) * invstd.reshape(shape)
        if weight is not _UNDEFINED:
            out = out * weight._data.reshape(shape)
        if bias is not _UNDEFINED:
            out = out + bias._data.reshape(shape)
        ctx.save_for_backward(x, None if weight is _UNDEFINED else weight)
        ctx.dims, ctx.shape, ctx.training, ctx.eps = dims, shape, training, eps
        if not training:
            ctx.mean, ctx.invstd = mean.astype(data.dtype), invstd.astype(data.dtype)
        return Tensor._make(out.astype(data.dtype, copy=False))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple:
        x, weight = ctx.saved_tensors
        dims, shape = ctx.dims, ctx.shape
        if ctx.training:
            centered = x - x.mean(dims, keepdim=True)
            invstd = ((centered * centered).mean(dims, keepdim=True) + ctx.eps) ** -0.5
        else:
            centered = x - Tensor._make(ctx.mean.reshape(shape))
            invstd = Tensor._make(ctx.invstd.reshape(shape))
        x_hat = centered * invstd
        g = grad * weight.view(shape) if weight is not None else grad
        need_x, need_w, need_b = ctx.needs_input_grad[:3]
        grad_x = None
        if need_x:
            if ctx.training:
                grad_x = invstd * (g - g.mean(dims, keepdim=True)
                                   - x_hat * (g * x_hat).mean(dims, keepdim=True))
            else:
                grad_x = g * invstd
        grad_w = (grad * x_hat).sum(dims) if need_w else None
        grad_b = grad.sum(dims) if need_b else None
        return grad_x, grad_w, grad_b, None, None, None, None


def _update(buffer: Tensor, value: np.ndarray) -> None:
    """Write new running statistics into a buffer, counting the change as PyTorch does."""
    buffer._data[...] = value
    buffer._version_counter.value += 1


def _verify_batch_size(size: Size) -> None:
    count = size[0]
    for s in size[2:]:
        count *= s
    if count == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {size}")


def batch_norm(
    input: Tensor,  # noqa: A002
    running_mean: Tensor | None,
    running_var: Tensor | None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """Batch normalisation over dim 1 (``torch.nn.functional.batch_norm``): see :class:`NativeBatchNorm`."""
    if training:
        _verify_batch_size(input.shape)
    if training and eps <= 0.0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    if eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    if input.ndim < 2:
        raise RuntimeError(f"batch_norm expects an input with at least 2 dimensions, got {input.ndim}")
    channels = input.shape[1]
    for name, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight),
                    ("bias", bias)):
        if t is not None and t.numel() != channels:
            raise RuntimeError(f"{name} should contain {channels} elements not {t.numel()}")
    if not training and (running_mean is None or running_var is None):
        raise RuntimeError("running_mean and running_var must be defined in evaluation mode")
    return NativeBatchNorm.apply(
        input,
        _UNDEFINED if weight is None else weight,
        _UNDEFINED if bias is None else bias,
        (running_mean, running_var),
        bool(training),
        float(momentum),
        float(eps),
    )


# ---------------------------------------------------------------------------- losses
class MseLoss(Function):
    node_name = "MseLossBackward0"
    saved_names = ("self", "target")

    @staticmethod
    def forward(ctx: Any, a: Tensor, b: Tensor, reduction: str) -> Tensor:
        need_a, need_b = ctx.needs_input_grad[:2]
        ctx.save_for_backward(a, b)
        ctx.reduction = reduction
        sq = np.square(cast(a._data - b._data, a, b))
        ctx.count = sq.size
        if reduction == "mean":
            sq = np.asarray(sq.mean(), dtype=sq.dtype)
        elif reduction == "sum":
            sq = np.asarray(sq.sum(), dtype=sq.dtype)
        return Tensor._make(sq)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None, None]:
        a, b = ctx.saved_tensors
        scale = 2.0 / ctx.count if ctx.reduction == "mean" else 2.0
        g = grad * (a - b) * scale
        need_a, need_b = ctx.needs_input_grad[:2]
        return (g if need_a else None), (-g if need_b else None), None


def mse_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,  # noqa: A002
             reduction: str = "mean") -> Tensor:
    """Mean (or sum, or none) of the squared differences (``MseLossBackward0``).

    A target of another shape broadcasts, with PyTorch's warning; both inputs get gradients.
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    input, target = binary_operands(input, target)
    if target.shape != input.shape:
        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
            "This will likely lead to incorrect results due to broadcasting. Please ensure they have "
            "the same size.",
            UserWarning,
            stacklevel=2,
        )
        broadcast_shape(input.shape, target.shape)
    _check_reduction(reduction)
    return MseLoss.apply(input, target, reduction)


def l1_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,  # noqa: A002
            reduction: str = "mean") -> Tensor:
    """Mean (or sum, or none) of the absolute differences; composite, as in PyTorch."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if target.shape != input.shape:
        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
            "This will likely lead to incorrect results due to broadcasting. Please ensure they have "
            "the same size.",
            UserWarning,
            stacklevel=2,
        )
    _check_reduction(reduction)
    diff = (input - target).abs()
    return diff if reduction == "none" else diff.mean() if reduction == "mean" else diff.sum()


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


class NllLoss(Function):
    """Negative log-likelihood of the target classes, given log-probabilities.

    The loss of sample i is ``-w[t_i] * logp[i, t_i]``; ``mean`` divides the sum by the sum of the
    weights ``w[t_i]`` (the number of samples without ``weight``); targets equal to ``ignore_index``
    count for nothing. The gradient is the constant ``-w[t_i] / total`` at the target positions.
    """

    node_name = "NllLossBackward0"

    @staticmethod
    def forward(ctx: Any, logp: Tensor, target: np.ndarray, weight: np.ndarray | None, reduction: str,
                ignore_index: int) -> Tensor:
        lp = logp._data
        class_dim = 1 if lp.ndim >= 2 else 0
        classes = lp.shape[class_dim]
        rows = np.moveaxis(lp, class_dim, -1).reshape(-1, classes)
        t = target.reshape(-1).astype(np.int64)
        keep = t != ignore_index
        bad = keep & ((t < 0) | (t >= classes))
        if bad.any():
            raise IndexError(f"Target {int(t[bad][0])} is out of bounds.")
        safe = np.where(keep, t, 0)
        w = (weight[safe] if weight is not None else np.ones(t.shape, lp.dtype)) * keep
        w = w.astype(lp.dtype, copy=False)
        losses = -w * rows[np.arange(rows.shape[0]), safe]
        if reduction == "none":
            total = np.ones((), lp.dtype)
            out = losses.reshape(target.shape)
        elif reduction == "sum":
            total = np.ones((), lp.dtype)
            out = losses.sum()
        else:
            total = w.sum()
            with np.errstate(invalid="ignore", divide="ignore"):
                out = losses.sum() / total
        coef = np.zeros_like(rows)
        with np.errstate(invalid="ignore", divide="ignore"):
            coef[np.arange(rows.shape[0]), safe] = -w / total
        moved = np.moveaxis(lp, class_dim, -1).shape
        ctx.coef = np.moveaxis(coef.reshape(moved), -1, class_dim)
        ctx.class_dim, ctx.reduction = class_dim, reduction
        return Tensor._make(np.asarray(out, dtype=lp.dtype))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None, None, None]:
        if ctx.reduction == "none" and ctx.coef.ndim >= 2:
            grad = grad.unsqueeze(ctx.class_dim)
        return grad * Tensor._make(ctx.coef), None, None, None, None


class NllLoss2d(NllLoss):
    """The same loss for inputs of shape (N, C, H, W); PyTorch names its node apart."""

    node_name = "NllLoss2DBackward0"


def _nll(logp: Tensor, target: Tensor, weight: np.ndarray | None, reduction: str,
         ignore_index: int) -> Tensor:
    """Pick PyTorch's node: ``NllLoss`` up to 2-D, ``NllLoss2D`` beyond (other ranks viewed as 4-D)."""
    if logp.ndim <= 2:
        return NllLoss.apply(logp, target._data, weight, reduction, ignore_index)
    if logp.ndim == 4:
        return NllLoss2d.apply(logp, target._data, weight, reduction, ignore_index)
    n, c = logp.shape[:2]
    out = NllLoss2d.apply(logp.view(n, c, 1, -1), target._data.reshape(n, 1, -1), weight, reduction,
                          ignore_index)
    return out.view(*target.shape) if reduction == "none" else out


def _check_class_targets(input: Tensor, target: Tensor) -> None:  # noqa: A002
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
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {_legacy(target)}")


def _check_weight(weight: Tensor | None, classes: int) -> np.ndarray | None:
    if weight is None:
        return None
    if weight.ndim != 1 or weight.shape[0] != classes:
        raise RuntimeError(
            f"weight tensor should be defined either for all {classes} classes or no classes but got "
            f"weight tensor of shape: {list(weight.shape)}"
        )
    return weight._data


def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None,  # noqa: A002
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
    input: Tensor,  # noqa: A002
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

    Deviation: with ``label_smoothing`` or probability targets the value matches PyTorch but a few
    node names differ (``MulBackward0``/``DivBackward0`` where PyTorch records the ``...Backward1``
    variants of multiplying or dividing by a number).
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    class_dim = 1 if input.ndim >= 2 else 0
    if input.shape == target.shape:
        if not target.is_floating_point():
            raise RuntimeError(
                f"Expected floating point type for target with class probabilities, got {_legacy(target)}"
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
    return (1 - label_smoothing) * nll + smooth * (label_smoothing / classes)


def _cross_entropy_probabilities(input: Tensor, target: Tensor, weight: Tensor | None,  # noqa: A002
                                 reduction: str, label_smoothing: float, class_dim: int) -> Tensor:
    classes = input.shape[class_dim]
    logp = logarithmic.log_softmax(input, class_dim)
    if label_smoothing > 0.0:
        target = target * (1 - label_smoothing) + label_smoothing / classes
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
    if input.numel() == 0:
        return -terms.sum() * float("nan")
    return -terms.sum() / (input.numel() / classes)


# activations, layer norm, embedding, more losses, padding: in their own file, re-exported here
# convolution and pooling: in their own file, re-exported here
from ._functional_conv import (  # noqa: E402
    adaptive_avg_pool2d,
    avg_pool1d,
    avg_pool2d,
    conv1d,
    conv2d,
    max_pool1d,
    max_pool2d,
)
from ._functional_more import (  # noqa: E402
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    cosine_similarity,
    elu,
    elu_,
    embedding,
    gelu,
    hardtanh,
    hardtanh_,
    huber_loss,
    kl_div,
    layer_norm,
    leaky_relu,
    leaky_relu_,
    mish,
    normalize,
    pad,
    prelu,
    relu6,
    silu,
    smooth_l1_loss,
    softplus,
    softsign,
)

__all__ = [
    "adaptive_avg_pool2d", "avg_pool1d", "avg_pool2d", "batch_norm", "binary_cross_entropy",
    "binary_cross_entropy_with_logits", "conv1d", "conv2d", "cosine_similarity", "cross_entropy",
    "dropout", "elu", "elu_", "embedding", "gelu", "hardtanh", "hardtanh_", "huber_loss", "kl_div",
    "l1_loss", "layer_norm", "leaky_relu", "leaky_relu_", "linear", "log_softmax", "max_pool1d",
    "max_pool2d", "mish", "mse_loss", "nll_loss", "normalize", "one_hot", "pad", "prelu", "relu", "relu6",
    "sigmoid", "silu", "smooth_l1_loss", "softmax", "softplus", "softsign", "tanh",
]
