"""Differentiable operations, grouped by kind. Each is a ``Function`` with forward and backward."""

from . import indexing  # gather, scatter, index_select, ...: reached as ops.indexing.<name>
from .inplace import copy_from, fill_like, inplace, setitem, zero_like
from .linalg import bmm, dot, matmul, mm, mv
from .logarithmic import log_softmax, softmax
from .mathematic import (
    abs,
    add,
    clamp,
    clone,
    cos,
    div,
    exp,
    log,
    masked_fill,
    maximum,
    minimum,
    mul,
    neg,
    non_differentiable,
    pow,
    reciprocal,
    relu,
    rsub,
    sigmoid,
    sin,
    sqrt,
    sub,
    tanh,
    to_dtype,
    where,
)
from .reduction import (
    amax,
    amin,
    argmax,
    argmin,
    logsumexp,
    max,
    mean,
    min,
    norm,
    std,
    sum,
    var,
)
from .shape import (
    cat,
    chunk,
    expand,
    flatten,
    getitem,
    index_put,
    narrow,
    permute,
    reshape,
    split,
    squeeze,
    stack,
    sum_to_size,
    t,
    transpose,
    unsqueeze,
    view,
)

__all__ = [
    "abs", "add", "amax", "amin", "argmax", "argmin", "cat", "chunk", "clamp", "clone", "copy_from",
    "cos", "div", "dot", "exp", "expand", "fill_like", "flatten", "getitem", "index_put", "inplace",
    "bmm", "log", "log_softmax", "logsumexp", "masked_fill", "matmul", "max", "maximum", "mean", "min",
    "minimum", "mm", "mv", "mul", "narrow", "neg", "non_differentiable", "norm", "permute", "pow",
    "reciprocal", "relu", "reshape", "rsub", "setitem", "sigmoid", "sin", "softmax", "split", "sqrt",
    "squeeze", "stack", "std", "sub", "sum", "sum_to_size", "t", "tanh", "to_dtype", "transpose", "unsqueeze",
    "var", "view", "where", "zero_like",
]
