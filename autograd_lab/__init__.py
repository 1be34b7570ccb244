"""autograd_lab: a small NumPy autograd that behaves like PyTorch's.

``import autograd_lab as torch`` runs the course's examples with PyTorch's results, node names
(``AddBackward0``, ``AccumulateGrad``) and error messages. The core reads in this order, four files:
``tensor.py`` (the data and the autograd state), ``function.py`` (the graph's nodes and ``Function``),
``engine.py`` (backward) and ``grad_mode.py``; then ``ops/`` (every op beside its derivative; the
README lists the files). This module only gathers the public names (``torch.*``).
"""

from __future__ import annotations

import builtins

from .tensor import Tensor  # first: the ops and nodes below build on it  # isort: skip
from .ops import methods as _methods  # sets Tensor's methods (x.exp(), x + y, ...)  # isort: skip
from . import _tensor_str, autograd
from .creation import (
    arange,
    as_tensor,
    bernoulli,
    empty,
    empty_like,
    eye,
    from_numpy,
    full,
    full_like,
    linspace,
    logspace,
    normal,
    ones,
    ones_like,
    rand,
    rand_like,
    randint,
    randn,
    randn_like,
    randperm,
    tensor,
    tril_indices,
    triu_indices,
    zeros,
    zeros_like,
)
from .dtypes import (
    Size,
    bool,
    device,
    double,
    dtype,
    float,
    float16,
    float32,
    float64,
    get_default_dtype,
    half,
    int,
    int8,
    int16,
    int32,
    int64,
    long,
    set_default_dtype,
    short,
    uint8,
)
from .function import is_anomaly_check_nan_enabled, is_anomaly_enabled
from .grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .ops.arithmetic import (
    add,
    addcdiv,
    addcmul,
    div,
    divide,
    float_power,
    floor_divide,
    fmod,
    lerp,
    mul,
    multiply,
    neg,
    negative,
    positive,
    pow,
    reciprocal,
    remainder,
    rsub,
    square,
    sub,
    subtract,
    true_divide,
)
from .ops.comparison import (
    allclose,
    bincount,
    clamp,
    clamp_max,
    clamp_min,
    eq,
    equal,
    fmax,
    fmin,
    ge,
    greater,
    greater_equal,
    gt,
    isclose,
    isfinite,
    isin,
    isinf,
    isnan,
    isneginf,
    isposinf,
    le,
    less,
    less_equal,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    lt,
    masked_fill,
    maximum,
    minimum,
    ne,
    not_equal,
    signbit,
    where,
)
from .ops.copies import (
    clone,
    ravel,
)
from .ops.indexing import (
    argwhere,
    gather,
    index_add,
    index_copy,
    index_fill,
    index_put,
    index_select,
    masked_select,
    narrow,
    nonzero,
    scatter,
    scatter_add,
    select,
    take,
    take_along_dim,
    unravel_index,
)
from .ops.linalg import (
    addmm,
    addmv,
    baddbmm,
    bmm,
    dot,
    einsum,
    ger,
    kron,
    matmul,
    mm,
    mv,
    outer,
)
from .ops.logarithmic import (
    log_softmax,
    logsumexp,
    softmax,
)
from .ops.pointwise import (
    abs,
    absolute,
    acos,
    acosh,
    arccos,
    arccosh,
    arcsin,
    arcsinh,
    arctan,
    arctan2,
    arctanh,
    asin,
    asinh,
    atan,
    atan2,
    atanh,
    ceil,
    cos,
    cosh,
    deg2rad,
    erf,
    erfc,
    erfinv,
    exp,
    exp2,
    expm1,
    fix,
    floor,
    frac,
    heaviside,
    hypot,
    log,
    log1p,
    log2,
    log10,
    logaddexp,
    logaddexp2,
    logit,
    nan_to_num,
    rad2deg,
    relu,
    relu_,
    round,
    rsqrt,
    sgn,
    sigmoid,
    sign,
    sin,
    sinc,
    sinh,
    sqrt,
    tan,
    tanh,
    trunc,
    xlogy,
)
from .ops.reduction import (
    all,
    amax,
    amin,
    aminmax,
    any,
    argmax,
    argmin,
    count_nonzero,
    dist,
    max,
    mean,
    min,
    nanmean,
    nansum,
    norm,
    prod,
    std,
    std_mean,
    sum,
    var,
    var_mean,
)
from .ops.scan import (
    cummax,
    cummin,
    cumprod,
    cumsum,
    diff,
    logcumsumexp,
)
from .ops.shape import (
    atleast_1d,
    atleast_2d,
    atleast_3d,
    cat,
    chunk,
    column_stack,
    concat,
    concatenate,
    diag,
    dsplit,
    dstack,
    flip,
    fliplr,
    flipud,
    hsplit,
    hstack,
    meshgrid,
    roll,
    rot90,
    split,
    stack,
    tensor_split,
    tile,
    trace,
    tril,
    triu,
    unbind,
    vsplit,
    vstack,
)
from .ops.sorting import (
    argsort,
    bucketize,
    kthvalue,
    median,
    mode,
    msort,
    nanmedian,
    nanquantile,
    quantile,
    searchsorted,
    sort,
    topk,
    unique,
)
from .ops.view import (
    as_strided,
    broadcast_tensors,
    broadcast_to,
    diagonal,
    flatten,
    moveaxis,
    movedim,
    permute,
    reshape,
    squeeze,
    swapaxes,
    swapdims,
    t,
    transpose,
    unflatten,
    unsqueeze,
)
from .random import Generator, get_rng_state, initial_seed, manual_seed, seed, set_rng_state

__version__ = "0.1.0"
clip = clamp


def is_tensor(obj: object) -> builtins.bool:
    """True for a :class:`Tensor` (``torch.is_tensor``)."""
    return isinstance(obj, Tensor)


def numel(input: Tensor) -> builtins.int:
    """The number of elements of ``input`` (``torch.numel``)."""
    return input.numel()


def set_printoptions(precision: builtins.int | None = None, threshold: builtins.int | None = None,
                     edgeitems: builtins.int | None = None, linewidth: builtins.int | None = None,
                     **_: object) -> None:
    """Change how tensors print (precision, threshold, edgeitems, linewidth)."""
    for name, value in (("PRECISION", precision), ("THRESHOLD", threshold),
                        ("EDGEITEMS", edgeitems), ("LINEWIDTH", linewidth)):
        if value is not None:
            setattr(_tensor_str, name, value)


# nn, optim and data build on the core above; the core never imports them.
from . import data, linalg, nn, optim, parallel, utils  # noqa: E402
