"""autograd_lab: a small NumPy autograd that behaves like PyTorch's.

``import autograd_lab as torch`` runs the course's examples with PyTorch's results, node names
(``AddBackward0``, ``AccumulateGrad``) and error messages. Read it in this order: ``tensor.py``
(the data and autograd state), ``function.py`` (nodes and ``Function``), ``ops/`` (every op with its
derivative), ``engine.py`` (backward).
"""

from __future__ import annotations

import builtins

from .tensor import Tensor  # first: the ops and nodes below build on it  # isort: skip
from .ops import methods as _methods  # sets Tensor's methods (x.exp(), x + y, ...)  # isort: skip
from . import autograd
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
from .grad_mode import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from .ops import (
    abs,
    add,
    amax,
    amin,
    argmax,
    argmin,
    bmm,
    cat,
    chunk,
    clamp,
    clone,
    cos,
    div,
    dot,
    exp,
    flatten,
    log,
    log_softmax,
    logsumexp,
    masked_fill,
    matmul,
    max,
    maximum,
    mean,
    min,
    minimum,
    mm,
    mul,
    mv,
    narrow,
    neg,
    norm,
    permute,
    pow,
    reciprocal,
    relu,
    reshape,
    sigmoid,
    sin,
    softmax,
    split,
    sqrt,
    squeeze,
    stack,
    std,
    sub,
    sum,
    tanh,
    transpose,
    unsqueeze,
    var,
    where,
)
from .random import Generator, get_rng_state, initial_seed, manual_seed, seed, set_rng_state

__version__ = "0.1.0"

# more pointwise ops and reductions
from .ops.mathematic import (  # noqa: E402
    acos,
    acosh,
    addcdiv,
    addcmul,
    allclose,
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
    clamp_max,
    clamp_min,
    cosh,
    equal,
    erf,
    erfc,
    erfinv,
    exp2,
    expm1,
    fix,
    floor,
    floor_divide,
    fmod,
    frac,
    heaviside,
    hypot,
    isclose,
    isfinite,
    isinf,
    isnan,
    lerp,
    log1p,
    log2,
    log10,
    logaddexp,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    nan_to_num,
    remainder,
    round,
    rsqrt,
    sign,
    sinh,
    square,
    tan,
    trunc,
)
from .ops.reduction import (  # noqa: E402
    all,
    aminmax,
    any,
    argsort,
    count_nonzero,
    cumprod,
    cumsum,
    diff,
    dist,
    logcumsumexp,
    median,
    prod,
    sort,
    std_mean,
    topk,
    var_mean,
)

clip = clamp

# more shape, indexing and linalg ops
from .ops.indexing import (  # noqa: E402
    gather,
    index_add,
    index_copy,
    index_select,
    masked_select,
    nonzero,
    scatter,
    scatter_add,
    take,
)
from .ops.linalg import addmm, addmv, baddbmm, einsum, kron, outer  # noqa: E402
from .ops.shape import (  # noqa: E402
    broadcast_to,
    diag,
    diagonal,
    flip,
    hstack,
    meshgrid,
    moveaxis,
    movedim,
    roll,
    swapaxes,
    swapdims,
    t,
    tile,
    trace,
    tril,
    triu,
    unbind,
    unflatten,
    vstack,
)


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
    from . import _tensor_str

    for name, value in (("PRECISION", precision), ("THRESHOLD", threshold),
                        ("EDGEITEMS", edgeitems), ("LINEWIDTH", linewidth)):
        if value is not None:
            setattr(_tensor_str, name, value)


# nn, optim and data build on the core above; the core never imports them.
from . import data, nn, optim, parallel, utils  # noqa: E402
