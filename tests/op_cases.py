"""The cases the ops' test files share: tensors made alike in both libraries, runners that compare an
op with finite differences and with PyTorch (values, dtypes, graphs, saved tensors, gradients, errors),
the tables of cases, and :func:`cases`, which picks a table's cases of one ops module."""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable

import numpy as np
import pytest
from helpers import oracle, torch

import autograd_lab as al
from autograd_lab.autograd import gradcheck, gradgradcheck

# the module of autograd_lab.ops each case's op lives in: a case is named by its op
# ("cumsum ints", "index_select_neg_dim"), the longest op name that starts it
MODULE_OF = {
    **dict.fromkeys(["atan2", "hypot", "logaddexp", "heaviside", "frac", "xlogy", "sinc"], "pointwise"),
    **dict.fromkeys(["remainder", "fmod", "floor_divide", "lerp", "addcmul", "addcdiv", "square"],
                    "arithmetic"),
    **dict.fromkeys(["clamp_min", "clamp_max", "logical_and", "logical_or", "logical_xor", "logical_not",
                     "masked_fill", "fmax", "fmin"], "comparison"),
    **dict.fromkeys(["prod", "var_mean", "std_mean", "dist", "any", "all", "count_nonzero", "aminmax"],
                    "reduction"),
    **dict.fromkeys(["cumsum", "cumprod", "logcumsumexp", "diff"], "scan"),
    **dict.fromkeys(["median", "sort", "argsort", "topk"], "sorting"),
    **dict.fromkeys(["movedim", "moveaxis", "swapaxes", "swapdims", "unflatten", "broadcast_to", "expand_as",
                     "view_as", "reshape_as", "diagonal"], "view"),
    **dict.fromkeys(["flip", "roll", "repeat", "tile", "unbind", "hstack", "vstack", "diag", "trace", "tril",
                     "triu", "meshgrid"], "shape"),
    **dict.fromkeys(["gather", "scatter", "scatter_add", "index_select", "index_add", "index_copy",
                     "masked_select", "take"], "indexing"),
    **dict.fromkeys(["outer", "addmm", "addmv", "baddbmm", "kron", "einsum"], "linalg"),
    "type_as": "copies",
}


def module_of(case: str) -> str:
    """The ops module of a case: the module of the longest op name its name starts with."""
    ops = [op for op in MODULE_OF if case == op or case.startswith(op) and not case[len(op)].isalpha()]
    if not ops:
        raise KeyError(f"no ops module known for the case {case!r}")
    return MODULE_OF[max(ops, key=len)]


def cases(table: dict, module: str) -> list[str]:
    """The names of ``table``'s cases whose op lives in ``autograd_lab.ops.<module>``, sorted."""
    return sorted(name for name in table if module_of(name) == module)


def make(shape, seed, lo=-2.0, hi=2.0, lib=al, dtype=np.float64, requires_grad=True):
    rng = np.random.default_rng(seed)
    x = rng.uniform(lo, hi, size=shape).astype(dtype)
    return lib.tensor(x, requires_grad=requires_grad)


def distinct(shape, seed, lib=al, requires_grad=True):
    """Well separated values (no ties), for sort, topk, median, max-like ops."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape, dtype=np.int64))
    x = ((rng.permutation(n) - n / 2) * 0.25 + rng.uniform(0, 0.05, n)).reshape(shape)
    return lib.tensor(x, requires_grad=requires_grad)


def check(fn, *inputs, twice=True):
    assert gradcheck(fn, inputs), "backward disagrees with finite differences"
    if twice:
        assert gradgradcheck(fn, inputs), "double backward disagrees with finite differences"


# name: (lo, hi) of a domain where the function is smooth
UNARY = {
    "erf": (-2, 2), "erfc": (-2, 2), "erfinv": (-0.9, 0.9), "log1p": (-0.5, 2), "expm1": (-2, 2),
    "square": (-2, 2), "rsqrt": (0.5, 2), "exp2": (-2, 2), "log2": (0.5, 2), "log10": (0.5, 2),
    "tan": (-1, 1), "asin": (-0.9, 0.9), "acos": (-0.9, 0.9), "atan": (-2, 2), "sinh": (-2, 2),
    "cosh": (-2, 2), "asinh": (-2, 2), "acosh": (1.2, 3), "atanh": (-0.9, 0.9), "frac": (0.1, 0.9),
    "nan_to_num": (-2, 2), "sinc": (0.1, 2),
    # piecewise constant: zero gradient away from the jumps
    "sign": (0.2, 0.8), "floor": (0.1, 0.9), "ceil": (0.1, 0.9), "round": (0.1, 0.4), "trunc": (0.1, 0.9),
}
MODULE_OF.update(dict.fromkeys(set(UNARY) - {"square"}, "pointwise"))

# double backward against PyTorch: every function of one tensor, and some of the others
DOUBLE_BACKWARD = [*UNARY, "logcumsumexp", "cumprod", "var_mean dim", "std_mean dim", "dist", "atan2",
                   "hypot", "logaddexp", "logaddexp2", "xlogy"]


def to_np(t):
    return np.asarray(t.detach().numpy())


def same(ours, theirs, what="", rtol=1e-6, atol=1e-7):
    assert isinstance(ours, al.Tensor), what
    assert tuple(ours.shape) == tuple(theirs.shape), f"{what}: {ours.shape} vs {theirs.shape}"
    assert str(ours.dtype) == str(theirs.dtype), f"{what}: {ours.dtype} vs {theirs.dtype}"
    np.testing.assert_allclose(to_np(ours), to_np(theirs), rtol=rtol, atol=atol, err_msg=what)


def node_names(t):
    fn = t.grad_fn
    if fn is None:
        return None
    return type(fn).__name__, [type(n).__name__ if n is not None else None for n, _ in fn.next_functions]


def run_both(fn, arrays, rtol=1e-6, atol=1e-7, grads=True, what=""):
    """fn(lib, *leaves) in both libraries: outputs, graph names, saved tensors and gradients."""
    ours_in = [al.tensor(a, requires_grad=a.dtype.kind == "f") for a in arrays]
    theirs_in = [torch.tensor(a, requires_grad=a.dtype.kind == "f") for a in arrays]
    ours, theirs = fn(al, *ours_in), fn(torch, *theirs_in)
    o_list = list(ours) if isinstance(ours, tuple) else [ours]
    t_list = list(theirs) if isinstance(theirs, tuple) else [theirs]
    assert len(o_list) == len(t_list)
    for o, t in zip(o_list, t_list):
        same(o, t, what, rtol, atol)
        assert node_names(o) == node_names(t), what
        assert o.requires_grad == t.requires_grad, what
        if o.grad_fn is not None:
            for name in type(o.grad_fn)._forward_cls.saved_names:
                mine, real = getattr(o.grad_fn, f"_saved_{name}"), getattr(t.grad_fn, f"_saved_{name}")
                assert (mine is None) == (real is None), f"{what}: _saved_{name}"
                if mine is not None:
                    same(mine, real, f"{what}: _saved_{name}", rtol, atol)
    if not grads:
        return
    diff_pairs = [(o, t) for o, t in zip(o_list, t_list) if t.requires_grad]
    if not diff_pairs:
        return
    rng = np.random.default_rng(0)
    vs = [rng.normal(size=tuple(t.shape)).astype(to_np(t).dtype) for _, t in diff_pairs]
    leaves = [(a, b) for a, b in zip(ours_in, theirs_in) if b.requires_grad]
    g_ours = al.autograd.grad([o for o, _ in diff_pairs], [a for a, _ in leaves],
                              [al.tensor(v) for v in vs], allow_unused=True)
    g_theirs = torch.autograd.grad([t for _, t in diff_pairs], [b for _, b in leaves],
                                   [torch.tensor(v) for v in vs], allow_unused=True)
    for go, gt in zip(g_ours, g_theirs):
        if gt is None:
            assert go is None or not np.any(go.numpy()), what
        else:
            same(go, gt, f"{what}: gradient", rtol * 10, atol * 10)


def arr(shape, seed, lo, hi, dtype=np.float64):
    return np.random.default_rng(seed).uniform(lo, hi, size=shape).astype(dtype)


def same_outcome(fn, what="", rtol=1e-6, atol=1e-7):
    """The same result, or the same exception type and message."""
    try:
        theirs = fn(torch)
    except Exception as e:
        with pytest.raises(type(e)) as info:
            fn(al)
        assert str(info.value) == str(e), what
        return
    ours = fn(al)
    if isinstance(theirs, tuple):
        assert type(ours).__name__ == type(theirs).__name__, what
        assert len(ours) == len(theirs)
        for o, t in zip(ours, theirs):
            same(o, t, what, rtol, atol)
    else:
        same(ours, theirs, what, rtol, atol)


BINARY_FNS = {
    "atan2": lambda lib, a, b: lib.atan2(a, b),
    "hypot": lambda lib, a, b: lib.hypot(a, b),
    "logaddexp": lambda lib, a, b: lib.logaddexp(a, b),
    "logaddexp2": lambda lib, a, b: lib.logaddexp2(a, b),
    "xlogy": lambda lib, a, b: lib.xlogy(a, b.abs() + 0.5),
    "remainder": lambda lib, a, b: lib.remainder(a, b),
    "fmod": lambda lib, a, b: lib.fmod(a, b),
    "clamp_min": lambda lib, a, b: lib.clamp_min(a, b),
    "clamp_max": lambda lib, a, b: lib.clamp_max(a, b),
    "fmax": lambda lib, a, b: lib.fmax(a, b),
    "fmin": lambda lib, a, b: lib.fmin(a, b),
    "remainder_s": lambda lib, a, b: a.remainder(1.5) + b,
    "fmod_s": lambda lib, a, b: a.fmod(-1.5) + b,
    "clamp_min_s": lambda lib, a, b: a.clamp_min(0.3) * b,
    "clamp_max_s": lambda lib, a, b: a.clamp_max(0.3) * b,
    "lerp_s": lambda lib, a, b: lib.lerp(a, b, 0.25),
    "lerp_t": lambda lib, a, b: lib.lerp(a, b, b.exp()),
    "addcmul": lambda lib, a, b: lib.addcmul(a, b, a.sin(), value=0.5),
    "addcdiv": lambda lib, a, b: lib.addcdiv(a, b, a.exp(), value=-2),
    "dist": lambda lib, a, b: lib.dist(a, b),
    "dist3": lambda lib, a, b: a.dist(b, 3),
}


# dtype promotion and errors: each case runs in both libraries
MATH_CASES = {
    "atan2 ints": lambda lib: lib.atan2(lib.tensor([1, 2]), lib.tensor([3, -4])),
    "atan2 bools": lambda lib: lib.atan2(lib.tensor([True]), lib.tensor([False])),
    "atan2 f32 f64-0d": lambda lib: lib.atan2(lib.tensor([1.0, 2.0]), lib.tensor(2.0, dtype=lib.float64)),
    "atan2 int f64-0d": lambda lib: lib.atan2(lib.tensor([1, 2]), lib.tensor(2.0, dtype=lib.float64)),
    "atan2 scalar": lambda lib: lib.atan2(lib.tensor([1.0]), 2),
    "atan2 scalar first": lambda lib: lib.atan2(2.0, lib.tensor([1.0])),
    "atan2 method scalar": lambda lib: lib.tensor([1.0]).atan2(2),
    "atan2 shapes": lambda lib: lib.atan2(lib.ones(3), lib.ones(2)),
    "hypot ints": lambda lib: lib.hypot(lib.tensor([3]), lib.tensor([4])),
    "hypot mixed": lambda lib: lib.hypot(lib.tensor([3]), lib.tensor([4.0])),
    "hypot method scalar": lambda lib: lib.tensor([3.0]).hypot(4.0),
    "logaddexp bools": lambda lib: lib.logaddexp(lib.tensor([True]), lib.tensor([False])),
    "logaddexp f32 f64": lambda lib: lib.logaddexp(lib.ones(2), lib.ones(2, dtype=lib.float64)),
    "logaddexp infs": lambda lib: lib.logaddexp(lib.tensor([-float("inf"), float("inf")]),
                                                lib.tensor([-float("inf"), 1.0])),
    "lerp ints": lambda lib: lib.lerp(lib.tensor([1, 2]), lib.tensor([3, 4]), 0.5),
    "lerp ints tensor w": lambda lib: lib.lerp(lib.tensor([1, 2]), lib.tensor([3, 4]), lib.tensor([1, 2])),
    "lerp end dtype": lambda lib: lib.lerp(lib.ones(2), lib.ones(2, dtype=lib.float64), 0.5),
    "lerp weight dtype": lambda lib: lib.lerp(lib.ones(2), lib.ones(2), lib.ones(2, dtype=lib.float64)),
    "lerp 0d weight": lambda lib: lib.lerp(lib.ones(2), lib.zeros(2), lib.tensor(0.3, dtype=lib.float64)),
    "lerp int weight": lambda lib: lib.lerp(lib.ones(2), lib.zeros(2), 1),
    "lerp str weight": lambda lib: lib.lerp(lib.ones(2), lib.zeros(2), "a"),
    "lerp shapes": lambda lib: lib.lerp(lib.ones(3), lib.ones(2), 0.5),
    "lerp exact end": lambda lib: lib.lerp(lib.tensor([0.1, 1e8]), lib.tensor([0.3, -3.3]), 1.0),
    "addcmul ints": lambda lib: lib.addcmul(lib.tensor([1, 2]), lib.tensor([3, 4]), lib.tensor([5, 6]),
                                            value=2),
    "addcmul int float value": lambda lib: lib.addcmul(lib.tensor([1]), lib.tensor([3]), lib.tensor([5]),
                                                       value=0.5),
    "addcmul mixed": lambda lib: lib.addcmul(lib.tensor([1]), lib.tensor([3.0]), lib.tensor([5.0])),
    "addcmul f64": lambda lib: lib.addcmul(lib.ones(1), lib.ones(1, dtype=lib.float64), lib.ones(1)),
    "addcmul bools": lambda lib: lib.addcmul(lib.tensor([True]), lib.tensor([True]), lib.tensor([True])),
    "addcmul scalar": lambda lib: lib.addcmul(lib.ones(2), 2, lib.ones(2)),
    "addcmul shapes": lambda lib: lib.addcmul(lib.ones(3), lib.ones(2), lib.ones(3)),
    "addcdiv ints": lambda lib: lib.addcdiv(lib.tensor([1.0]), lib.tensor([3]), lib.tensor([5])),
    "addcdiv mixed": lambda lib: lib.addcdiv(lib.tensor([1]), lib.tensor([3.0]), lib.tensor([5.0])),
    "heaviside ints": lambda lib: lib.heaviside(lib.tensor([-1, 0, 2]), lib.tensor([5, 6, 7])),
    "heaviside dtypes": lambda lib: lib.heaviside(lib.tensor([-1, 0, 2]), lib.tensor([0.5])),
    "heaviside scalar": lambda lib: lib.heaviside(lib.tensor([-1.0, 0.0, 2.0]), 0.5),
    "heaviside values": lambda lib: lib.heaviside(lib.tensor([-1.0, 0.0, 2.0, float("nan")]),
                                                  lib.tensor([0.5])),
    "logical_and": lambda lib: lib.logical_and(lib.tensor([1.0, 0.0, 2.0]), lib.tensor([1, 1, 0])),
    "logical_or": lambda lib: lib.logical_or(lib.tensor([1.0, 0.0, 0.0]), lib.tensor([True, False, True])),
    "logical_xor": lambda lib: lib.tensor([1, 0, 3]).logical_xor(lib.tensor([[0], [2]])),
    "logical_and scalar": lambda lib: lib.logical_and(lib.tensor([1.0]), 1),
    "logical_or method scalar": lambda lib: lib.tensor([1.0]).logical_or(True),
    "logical_not": lambda lib: lib.logical_not(lib.tensor([0.0, 2.0, -0.0])),
    "clamp_min ints": lambda lib: lib.clamp_min(lib.tensor([1, 5]), 2),
    "clamp_min int float": lambda lib: lib.clamp_min(lib.tensor([1, 5]), 2.5),
    "clamp_max int f64-0d": lambda lib: lib.clamp_max(lib.tensor([1, 5]), lib.tensor(2.0, dtype=lib.float64)),
    "clamp_min scalar first": lambda lib: lib.clamp_min(2, lib.tensor([1.0])),
    "clamp_max shapes": lambda lib: lib.clamp_max(lib.ones(3), lib.ones(2)),
    "clamp_min nan": lambda lib: lib.clamp_min(lib.tensor([float("nan"), 1.0]), 0.5),
    "fmod scalar first": lambda lib: lib.fmod(2, lib.tensor([1.0])),
    "prod ints": lambda lib: lib.prod(lib.tensor([1, -2, 3])),
    "prod bools": lambda lib: lib.prod(lib.tensor([True, False]), 0),
    "prod int32": lambda lib: lib.prod(lib.tensor([[1, 2]], dtype=lib.int32), 1, keepdim=True),
    "prod dtype": lambda lib: lib.prod(lib.tensor([1, 2]), dtype=lib.float64),
    "prod tuple dim": lambda lib: lib.prod(lib.ones(2, 3), (0, 1)),
    "prod dim range": lambda lib: lib.prod(lib.ones(2, 3), 2),
    "prod empty": lambda lib: lib.prod(lib.zeros(0)),
    "prod empty dim": lambda lib: lib.prod(lib.zeros(2, 0), 1),
    "prod 0d dim": lambda lib: lib.prod(lib.tensor(3.0), -1, keepdim=True),
    "cumsum ints": lambda lib: lib.cumsum(lib.tensor([1, -2, 3]), 0),
    "cumsum bools": lambda lib: lib.cumsum(lib.tensor([True, True]), 0),
    "cumsum dtype": lambda lib: lib.cumsum(lib.tensor([1, 2]), 0, dtype=lib.float32),
    "cumsum range": lambda lib: lib.cumsum(lib.ones(2, 3), 2),
    "cumsum 0d": lambda lib: lib.cumsum(lib.tensor(2.0), -1),
    "cumprod ints": lambda lib: lib.cumprod(lib.tensor([[1, -2, 3]], dtype=lib.int32), 1),
    "cumprod 0d": lambda lib: lib.tensor(2.0).cumprod(0),
    "logcumsumexp ints": lambda lib: lib.logcumsumexp(lib.tensor([1, 2]), 0),
    "logcumsumexp infs": lambda lib: lib.logcumsumexp(lib.tensor([-float("inf"), 0.0, float("inf"), 1.0]), 0),
    "logcumsumexp big": lambda lib: lib.logcumsumexp(lib.tensor([1000.0, 1000.0, -1000.0]), 0),
    "var_mean ints": lambda lib: lib.var_mean(lib.tensor([1, 2])),
    "std_mean ints": lambda lib: lib.std_mean(lib.tensor([1, 2])),
    "var_mean unbiased": lambda lib: lib.var_mean(lib.tensor([[1.0, 2.0, 4.0]]), 1, False),
    "var_mean bool first": lambda lib: lib.var_mean(lib.tensor([[1.0, 2.0, 4.0]]), False),
    "std_mean correction": lambda lib: lib.std_mean(lib.tensor([[1.0, 2.0, 4.0]]), dim=(0, 1), correction=2),
    "std_mean keepdim": lambda lib: lib.std_mean(lib.tensor([[1.0, 2.0, 4.0]]), 1, keepdim=True),
    "var_mean range": lambda lib: lib.var_mean(lib.ones(2, 3), 2),
    "var_mean one element": lambda lib: lib.var_mean(lib.ones(1)),
    "median": lambda lib: lib.median(lib.tensor([[3.0, 1.0, 2.0], [1.0, 1.0, 0.0]])),
    "median ints": lambda lib: lib.median(lib.tensor([4, 1, 3, 2])),
    "median empty": lambda lib: lib.median(lib.zeros(0)),
    "median nan": lambda lib: lib.median(lib.tensor([1.0, float("nan"), 0.0])),
    "median dim": lambda lib: lib.median(lib.tensor([[3.0, 1.0, 2.0], [1.0, 1.0, 0.0]]), 1),
    "median dim keepdim": lambda lib: lib.tensor([[3.0, 1.0], [1.0, 1.0]]).median(0, keepdim=True),
    "median dim nan": lambda lib: lib.median(lib.tensor([[1.0, float("nan"), 0.0, float("nan")],
                                                         [2.0, 1.0, 0.0, 3.0]]), 1),
    "median dim 0d": lambda lib: lib.median(lib.tensor(2.0), 0),
    "median empty dim": lambda lib: lib.median(lib.zeros(2, 0), 1),
    "median other empty dim": lambda lib: lib.median(lib.zeros(2, 0), 0),
    "median bools": lambda lib: lib.median(lib.tensor([True])),
    "median bools dim": lambda lib: lib.median(lib.tensor([True]), 0),
    "median dim range": lambda lib: lib.median(lib.ones(2), 1),
    "sort": lambda lib: lib.sort(lib.tensor([[3.0, 1.0, 2.0], [1.0, 1.0, 0.0]])),
    "sort desc": lambda lib: lib.sort(lib.tensor([[3.0, 1.0, 2.0], [1.0, 1.0, 0.0]]), 0, descending=True),
    "sort stable": lambda lib: lib.sort(lib.tensor([2, 1, 2, 1, 2]), stable=True, descending=True),
    "sort bools": lambda lib: lib.sort(lib.tensor([True, False, True])),
    "sort 0d": lambda lib: lib.sort(lib.tensor(2.0)),
    "sort nan": lambda lib: lib.sort(lib.tensor([1.0, float("nan"), 0.0, -float("inf"), float("nan")])),
    "sort nan desc": lambda lib: lib.sort(lib.tensor([1.0, float("nan"), 0.0, float("nan")]),
                                          descending=True),
    "sort range": lambda lib: lib.sort(lib.ones(2, 3), 2),
    "argsort": lambda lib: lib.argsort(lib.tensor([[3.0, 1.0, 2.0], [1.0, 1.0, 0.0]])),
    "argsort desc": lambda lib: lib.tensor([[3, 1, 3], [1, 1, 0]]).argsort(0, descending=True),
    "topk": lambda lib: lib.topk(lib.tensor([[3.0, 1.0, 2.0], [1.0, 1.0, 0.0]]), 2),
    "topk smallest": lambda lib: lib.topk(lib.tensor([[3.0, 1.0, 2.0], [1.0, 1.0, 0.0]]), 2, largest=False),
    "topk dim0": lambda lib: lib.tensor([[3.0, 1.0, 2.0], [1.0, 1.0, 0.0]]).topk(1, 0),
    "topk too big": lambda lib: lib.topk(lib.ones(2, 3), 4),
    "topk negative": lambda lib: lib.topk(lib.ones(2, 3), -1),
    "topk 0d": lambda lib: lib.topk(lib.tensor(2.0), 1),
    "topk 0d too big": lambda lib: lib.topk(lib.tensor(2.0), 2),
    "topk zero": lambda lib: lib.topk(lib.ones(2, 3), 0),
    "topk ints": lambda lib: lib.topk(lib.tensor([1, -2, 3]), 2),
    "topk bools": lambda lib: lib.topk(lib.tensor([True, False]), 1),
    "topk nan": lambda lib: lib.topk(lib.tensor([1.0, float("nan"), 0.0]), 2),
    "topk nan smallest": lambda lib: lib.topk(lib.tensor([1.0, float("nan"), 0.0]), 3, largest=False),
    "diff": lambda lib: lib.diff(lib.tensor([[3.0, 1.0, 2.0], [1.0, 1.0, 0.0]])),
    "diff n2 dim0": lambda lib: lib.diff(lib.tensor([[3.0], [1.0], [7.0]]), n=2, dim=0),
    "diff n0": lambda lib: lib.diff(lib.ones(2, 3), n=0),
    "diff negative n": lambda lib: lib.diff(lib.ones(2, 3), n=-1),
    "diff 0d": lambda lib: lib.diff(lib.tensor(1.0)),
    "diff n big": lambda lib: lib.diff(lib.ones(2, 3), n=5),
    "diff bools": lambda lib: lib.diff(lib.tensor([True, False, False, True])),
    "diff ints": lambda lib: lib.diff(lib.tensor([1, -2, 3])),
    "diff prepend append": lambda lib: lib.diff(lib.tensor([1.0, 4.0]), prepend=lib.tensor([0.0]),
                                                append=lib.tensor([9.0, 3.0])),
    "diff prepend 0d": lambda lib: lib.diff(lib.ones(2, 3), prepend=lib.tensor(1.0)),
    "diff dim range": lambda lib: lib.diff(lib.ones(2, 3), dim=2),
    "dist": lambda lib: lib.dist(lib.tensor([[3.0, 1.0, 2.0], [1.0, 1.0, 0.0]]),
                                 lib.tensor([0.5, -1.5, 2.5])),
    "dist p0": lambda lib: lib.dist(lib.tensor([3.0, 1.0]), lib.tensor([3.0, 2.0]), 0),
    "dist inf": lambda lib: lib.dist(lib.tensor([3.0, 1.0]), lib.tensor([0.0, 2.0]), float("inf")),
    "dist -inf": lambda lib: lib.dist(lib.tensor([3.0, 1.0]), lib.tensor([0.0, 2.0]), -float("inf")),
    "dist ints": lambda lib: lib.dist(lib.tensor([1, 2]), lib.tensor([1, 2])),
    "dist mixed": lambda lib: lib.dist(lib.tensor([1.0, 2.0]), lib.tensor([1, 5])),
    "dist f64": lambda lib: lib.dist(lib.ones(2), lib.zeros(2, dtype=lib.float64)),
    "dist scalar": lambda lib: lib.dist(lib.ones(2), 2.0),
    "any": lambda lib: lib.any(lib.tensor([[0.0, 1.0], [0.0, 0.0]])),
    "any dim": lambda lib: lib.any(lib.tensor([[0.0, 1.0], [0.0, 0.0]]), 1),
    "any keepdim": lambda lib: lib.tensor([[0.0, 1.0], [0.0, 0.0]]).any(-1, keepdim=True),
    "any dims": lambda lib: lib.any(lib.tensor([[0.0, 1.0], [0.0, 0.0]]), (0, 1)),
    "all": lambda lib: lib.all(lib.tensor([[2, 1], [0, 3]])),
    "all dim": lambda lib: lib.tensor([[2, 1], [0, 3]]).all(0),
    "all uint8": lambda lib: lib.all(lib.tensor([1, 2], dtype=lib.uint8), 0),
    "all empty": lambda lib: lib.all(lib.zeros(0)),
    "all 0d": lambda lib: lib.tensor(0.0).all(),
    "any range": lambda lib: lib.any(lib.ones(2), 1),
    "count_nonzero": lambda lib: lib.count_nonzero(lib.tensor([[0.0, 1.0, 2.0], [0.0, 0.0, 3.0]])),
    "count_nonzero dim": lambda lib: lib.count_nonzero(lib.tensor([[0.0, 1.0, 2.0], [0.0, 0.0, 3.0]]), -1),
    "count_nonzero dims": lambda lib: lib.tensor([[0, 1, 2], [0, 0, 3]]).count_nonzero((0, 1)),
    "count_nonzero dup": lambda lib: lib.count_nonzero(lib.ones(2, 3), (1, -1)),
    "count_nonzero 0d": lambda lib: lib.count_nonzero(lib.tensor(3.0)),
    "aminmax": lambda lib: lib.aminmax(lib.tensor([[3.0, 1.0, 2.0], [1.0, 1.0, 0.0]])),
    "aminmax dim": lambda lib: lib.aminmax(lib.tensor([[3.0, 1.0, 2.0], [1.0, 1.0, 0.0]]), dim=1,
                                           keepdim=True),
    "aminmax keepdim": lambda lib: lib.tensor([[3.0, 1.0, 2.0]]).aminmax(keepdim=True),
    "aminmax empty": lambda lib: lib.aminmax(lib.zeros(0)),
    "aminmax empty dim": lambda lib: lib.aminmax(lib.zeros(2, 0), dim=1),
    "aminmax bools": lambda lib: lib.aminmax(lib.tensor([True, False])),
    "aminmax 0d": lambda lib: lib.aminmax(lib.tensor(1.0), dim=0),
    "square bools": lambda lib: lib.square(lib.tensor([True, False])),
    "frac ints": lambda lib: lib.frac(lib.tensor([1, 2])),
}


REDUCTIONS = {
    "prod": lambda lib, t: lib.prod(t),
    "prod dim": lambda lib, t: t.prod(1),
    "prod dim keepdim": lambda lib, t: lib.prod(t, -1, keepdim=True),
    "cumsum": lambda lib, t: lib.cumsum(t, 1),
    "cumsum neg": lambda lib, t: t.cumsum(-2),
    "cumprod": lambda lib, t: lib.cumprod(t, 1),
    "logcumsumexp": lambda lib, t: lib.logcumsumexp(t, -1),
    "var_mean": lambda lib, t: lib.var_mean(t),
    "var_mean dim": lambda lib, t: lib.var_mean(t, 1, keepdim=True),
    "std_mean dim": lambda lib, t: lib.std_mean(t, -1),
    "std_mean dims": lambda lib, t: lib.std_mean(t, (0, 1), correction=0),
    "median": lambda lib, t: lib.median(t),
    "median dim": lambda lib, t: tuple(lib.median(t, 1)),
    "median dim keepdim": lambda lib, t: tuple(t.median(0, keepdim=True)),
    "sort": lambda lib, t: tuple(lib.sort(t, 1)),
    "sort desc": lambda lib, t: tuple(t.sort(0, descending=True)),
    "topk": lambda lib, t: tuple(lib.topk(t, 2)),
    "topk smallest": lambda lib, t: tuple(t.topk(1, 0, largest=False)),
    "aminmax": lambda lib, t: tuple(lib.aminmax(t)),
    "aminmax dim": lambda lib, t: tuple(t.aminmax(dim=1)),
    "diff": lambda lib, t: lib.diff(t),
    "diff n2": lambda lib, t: t.diff(2, 0),
    "argsort": lambda lib, t: lib.argsort(t * 1),
    "any": lambda lib, t: lib.any(t * 1, 1),
    "count_nonzero": lambda lib, t: lib.count_nonzero(t * 1),
}


def double_backward_both(fn, x):
    """Second derivatives (create_graph=True) agree with PyTorch's."""
    results = []
    for lib in (al, torch):
        t = lib.tensor(x, requires_grad=True)
        out = fn(lib, t)
        out = out[0] if isinstance(out, tuple) else out
        v = lib.tensor(np.linspace(0.5, 1.5, out.numel()).reshape(tuple(out.shape)))
        (g,) = lib.autograd.grad(out, t, v, create_graph=True)
        if not g.requires_grad:  # a derivative that does not depend on t (floor, sign, ...)
            results.append((to_np(g), None))
            continue
        (gg,) = lib.autograd.grad((g * g).sum(), t, allow_unused=True)
        results.append((to_np(g), None if gg is None else to_np(gg)))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-6, atol=1e-9)
    assert (results[0][1] is None) == (results[1][1] is None)
    if results[1][1] is not None:
        np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-6, atol=1e-9)


def I(lib, data):  # noqa: E743 - an int64 index tensor, as PyTorch code names it
    """An int64 index tensor of ``lib`` (autograd_lab or torch)."""
    return lib.tensor(data, dtype=lib.int64)


def M(lib, data):
    """A bool mask of ``lib``."""
    return lib.tensor(data, dtype=lib.bool)


def uniform(shape, seed=0):
    return np.random.default_rng(seed).uniform(-2, 2, shape)


# name: (input shapes (float64 leaves that require grad), fn(lib, *inputs)), einsum-like cases whose graph
# PyTorch records differently are listed in OWN_GRAPH.
SHAPE_CASES: dict[str, tuple[list[tuple], Callable]] = {
    "gather0": ([(3, 4)], lambda L, x: L.gather(x, 0, I(L, [[0, 1, 2, 0], [2, 2, 0, 1]]))),
    "gather_neg_dim_small_index": ([(3, 4)], lambda L, x: x.gather(-1, I(L, [[3, 3], [0, 1]]))),
    "gather_bigger_along_dim": ([(3, 4)], lambda L, x: L.gather(x, 1, I(L, [[0] * 6] * 3))),
    "gather_3d": ([(2, 3, 4)], lambda L, x: L.gather(x, 1, I(L, [[[0, 2, 1, 1]], [[1, 1, 2, 0]]]))),
    "gather_0d": ([()], lambda L, x: L.gather(x, 0, I(L, 0))),
    "gather_empty": ([(3, 4)], lambda L, x: L.gather(x, 0, L.zeros(0, 4, dtype=L.int64))),
    "scatter_src": ([(3, 4), (2, 4)], lambda L, x, s: L.scatter(x, 0, I(L, [[0, 1, 2, 0], [1, 2, 0, 2]]), s)),
    "scatter_src_small_index": ([(3, 4), (2, 4)],
                                lambda L, x, s: x.scatter(-1, I(L, [[3, 1], [0, 2]]), s[:, 1:3])),
    "scatter_value": ([(3, 4)], lambda L, x: L.scatter(x, 1, I(L, [[0, 1], [2, 3], [1, 0]]), 1.5)),
    "scatter_0d": ([(), ()], lambda L, x, s: L.scatter(x, 0, I(L, 0), s)),
    "scatter_add_repeated": ([(3, 4), (3, 4)], lambda L, x, s: L.scatter_add(
        x, 0, I(L, [[0, 0, 0, 1], [0, 0, 2, 1], [2, 2, 2, 2]]), s)),
    "scatter_add_small": ([(3, 4), (2, 5)],
                          lambda L, x, s: x.scatter_add(1, I(L, [[0, 0], [3, 3]]), s[:, :2])),
    "index_select": ([(3, 4)], lambda L, x: L.index_select(x, 1, I(L, [0, 2, 2, 3]))),
    "index_select_neg_dim": ([(3, 4)], lambda L, x: x.index_select(-2, I(L, [2, 0]))),
    "index_select_0d_index": ([(3, 4)], lambda L, x: L.index_select(x, 0, I(L, 1))),
    "index_select_0d": ([()], lambda L, x: L.index_select(x, 0, I(L, [0]))),
    "index_select_empty": ([(3, 4)], lambda L, x: L.index_select(x, 0, L.zeros(0, dtype=L.int64))),
    "index_add_repeated": ([(3, 4), (3, 3)], lambda L, x, s: L.index_add(x, 1, I(L, [0, 2, 2]), s)),
    "index_add_alpha": ([(3, 4), (2, 4)], lambda L, x, s: x.index_add(-2, I(L, [2, 2]), s, alpha=2.5)),
    "index_copy": ([(3, 4), (3, 2)], lambda L, x, s: L.index_copy(x, 1, I(L, [3, 0]), s)),
    "masked_select": ([(3, 4)], lambda L, x: L.masked_select(
        x, M(L, [[1, 0, 1, 1], [0, 0, 0, 1], [1, 1, 1, 1]]))),
    "masked_select_bcast": ([(4,)], lambda L, x: x.masked_select(M(L, [[1, 0, 1, 1], [0, 1, 0, 1]]))),
    "masked_select_0d": ([()], lambda L, x: L.masked_select(x, M(L, True))),
    "take": ([(3, 4)], lambda L, x: L.take(x, I(L, [[0, 5, 5], [-1, 11, -12]]))),
    "take_0d": ([()], lambda L, x: x.take(I(L, 0))),
    "flip": ([(2, 3, 4)], lambda L, x: L.flip(x, (0, -1))),
    "flip_method": ([(2, 3)], lambda L, x: x.flip(1)),
    "flip_nodims": ([(2, 3)], lambda L, x: L.flip(x, [])),
    "roll": ([(3, 4)], lambda L, x: L.roll(x, (1, -2), (0, 1))),
    "roll_flat": ([(3, 4)], lambda L, x: L.roll(x, 5)),
    "roll_0d": ([()], lambda L, x: L.roll(x, 1)),
    "repeat": ([(2, 3)], lambda L, x: x.repeat(2, 1, 3)),
    "repeat_0d": ([()], lambda L, x: x.repeat(3, 2)),
    "repeat_zero": ([(2, 3)], lambda L, x: x.repeat(0, 2)),
    "tile": ([(2, 3)], lambda L, x: L.tile(x, (2,))),
    "tile_more": ([(3,)], lambda L, x: x.tile(2, 1, 2)),
    "unbind": ([(3, 4)], lambda L, x: L.stack(L.unbind(x * 1, 1)[::2], 0)),
    "unbind_method": ([(2, 3)], lambda L, x: x.unbind(-2)[1]),
    "movedim": ([(2, 3, 4)], lambda L, x: L.movedim(x, (0, -1), (2, 0))),
    "movedim_int": ([(2, 3, 4)], lambda L, x: x.movedim(0, 1)),
    "moveaxis": ([(2, 3, 4)], lambda L, x: L.moveaxis(x, 1, -1)),
    "swapaxes": ([(2, 3, 4)], lambda L, x: L.swapaxes(x, 0, -1)),
    "swapdims": ([(2, 3)], lambda L, x: x.swapdims(0, 1)),
    "unflatten": ([(3, 4)], lambda L, x: L.unflatten(x, 1, (2, -1))),
    "unflatten_noncontig": ([(4, 3)], lambda L, x: x.t().unflatten(-1, (1, 2, 2))),
    "broadcast_to": ([(3, 1)], lambda L, x: L.broadcast_to(x, (2, 3, 4))),
    "expand_as": ([(3, 1)], lambda L, x: x.expand_as(L.zeros(2, 3, 4))),
    "view_as": ([(3, 4)], lambda L, x: x.view_as(L.zeros(2, 6))),
    "reshape_as": ([(3, 4)], lambda L, x: x.t().reshape_as(L.zeros(12))),
    "type_as": ([(3, 4)], lambda L, x: x.type_as(L.zeros(1, dtype=L.float32))),
    "hstack": ([(3, 2), (3, 1)], lambda L, a, b: L.hstack([a, b])),
    "hstack_1d": ([(2,), (3,)], lambda L, a, b: L.hstack((a, b))),
    "hstack_0d": ([(), ()], lambda L, a, b: L.hstack([a, b])),
    "vstack": ([(2, 3), (1, 3)], lambda L, a, b: L.vstack([a, b])),
    "vstack_1d": ([(3,), (3,)], lambda L, a, b: L.vstack([a, b])),
    "vstack_0d": ([(), ()], lambda L, a, b: L.vstack([a, b])),
    "diag_vec": ([(3,)], lambda L, x: L.diag(x)),
    "diag_vec_offset": ([(3,)], lambda L, x: x.diag(-2)),
    "diag_mat": ([(3, 4)], lambda L, x: L.diag(x)),
    "diag_mat_offset": ([(3, 4)], lambda L, x: L.diag(x, 2)),
    "diag_mat_far": ([(3, 4)], lambda L, x: L.diag(x, 10)),
    "diagonal": ([(3, 4)], lambda L, x: L.diagonal(x)),
    "diagonal_3d": ([(2, 3, 4)], lambda L, x: x.diagonal(1, 2, 0)),
    "diagonal_neg": ([(3, 4)], lambda L, x: L.diagonal(x, -1, -1, -2)),
    "trace": ([(3, 4)], lambda L, x: L.trace(x)),
    "trace_square": ([(3, 3)], lambda L, x: x.trace()),
    "tril": ([(3, 4)], lambda L, x: L.tril(x)),
    "tril_batch": ([(2, 3, 3)], lambda L, x: x.tril(-1)),
    "triu": ([(3, 4)], lambda L, x: L.triu(x, 1)),
    "meshgrid_ij": ([(2,), (3,), ()], lambda L, a, b, c: L.stack(L.meshgrid(a, b, c, indexing="ij"))),
    "meshgrid_xy": ([(2,), (3,)], lambda L, a, b: L.meshgrid([a, b], indexing="xy")[0] * 2),
    "meshgrid_xy_second": ([(2,), (3,)], lambda L, a, b: L.meshgrid([a, b], indexing="xy")[1]),
    "outer": ([(3,), (4,)], lambda L, a, b: L.outer(a, b)),
    "outer_method": ([(3,), (2,)], lambda L, a, b: a.outer(b)),
    "addmm": ([(3, 4), (3, 5), (5, 4)], lambda L, m, a, b: L.addmm(m, a, b)),
    "addmm_bcast_scaled": ([(4,), (3, 5), (5, 4)], lambda L, m, a, b: L.addmm(m, a, b, beta=0.5, alpha=-2)),
    "addmm_method": ([(1, 1), (3, 2), (2, 4)], lambda L, m, a, b: m.addmm(a, b, alpha=3)),
    "addmv": ([(3,), (3, 4), (4,)], lambda L, m, a, v: L.addmv(m, a, v)),
    "addmv_scaled": ([(1,), (3, 4), (4,)], lambda L, m, a, v: m.addmv(a, v, beta=2, alpha=0.5)),
    "baddbmm": ([(2, 3, 4), (2, 3, 5), (2, 5, 4)], lambda L, m, a, b: L.baddbmm(m, a, b)),
    "baddbmm_bcast": ([(3, 1), (2, 3, 5), (2, 5, 4)], lambda L, m, a, b: m.baddbmm(a, b, beta=-1, alpha=2)),
    "kron": ([(2, 3), (4,)], lambda L, a, b: L.kron(a, b)),
    "kron_3d": ([(2,), (2, 1, 3)], lambda L, a, b: a.kron(b)),
    "einsum_mv": ([(3, 4), (4,)], lambda L, a, v: L.einsum("ij,j->i", a, v)),
    "einsum_mm_implicit": ([(2, 3), (4, 2)], lambda L, a, b: L.einsum("ba,Ab", a, b)),
    "einsum_diag": ([(3, 3)], lambda L, a: L.einsum("ii->i", a)),
    "einsum_trace": ([(3, 3)], lambda L, a: L.einsum("ii", a)),
    "einsum_diag_3": ([(2, 2, 3, 2)], lambda L, a: L.einsum("iiji->ij", a)),
    "einsum_sum_only": ([(2, 3), (3,)], lambda L, a, b: L.einsum("ij,k->i", a, b)),
    "einsum_ellipsis": ([(2, 3, 4)], lambda L, a: L.einsum("...ij->...ji", a)),
    "einsum_ellipsis_bcast": ([(2, 1, 4), (3, 4)], lambda L, a, b: L.einsum("...i,...i->...", a, b)),
    "einsum_ellipsis_summed": ([(5, 2, 3), (3, 4)], lambda L, a, b: L.einsum("...ij,jk->ik", a, b)),
    "einsum_letter_bcast": ([(2, 1), (3, 4)], lambda L, a, b: L.einsum("ij,jk->ik", a, b)),
    "einsum_three": ([(2, 3), (3, 4), (4, 2)], lambda L, a, b, c: L.einsum("ij,jk,kl->il", a, b, c)),
    "einsum_outer_list": ([(2,), (3,)], lambda L, a, b: L.einsum("i, j -> j i", [a, b])),
    "einsum_scalar": ([()], lambda L, a: L.einsum("", a)),
    "einsum_bilinear": ([(2, 3), (4, 3, 5), (2, 5)], lambda L, a, w, b: L.einsum("bn,anm,bm->ba", a, w, b)),
    "einsum_empty": ([(0, 3), (3,)], lambda L, a, b: L.einsum("ij,j->i", a, b)),
}


OWN_GRAPH = {name for name in SHAPE_CASES if name.startswith("einsum")}  # PyTorch: permute/bmm/... nodes


NOT_TWICE = {"type_as"}  # its output is float32: no float64 double-backward check


VIEWS = {"unbind_method", "movedim", "movedim_int", "moveaxis", "swapaxes", "swapdims", "unflatten",
         "unflatten_noncontig", "broadcast_to", "expand_as", "view_as", "diagonal", "diagonal_3d",
         "diagonal_neg"}


def leaves_of(lib, shapes):
    return [lib.tensor(uniform(s, seed=i), dtype=lib.float64, requires_grad=True)
            for i, s in enumerate(shapes)]


def graph_edges(t):
    """The graph behind ``t``, breadth first: each node's name and its next functions' names."""
    out, queue, seen = [], [t.grad_fn], set()
    while queue:
        node = queue.pop(0)
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        nexts = [type(n).__name__ if n is not None else None for n, _ in node.next_functions]
        out.append((type(node).__name__, nexts))
        queue.extend(n for n, _ in node.next_functions)
    return out


def run_case(lib, name, seed=7):
    shapes, fn = SHAPE_CASES[name]
    inputs = leaves_of(lib, shapes)
    out = fn(lib, *inputs)
    return inputs, out


def _gather_oob(L):
    return L.gather(L.ones(3, 4), 0, I(L, [[5]]))


SHAPE_ERRORS: dict[str, Callable] = {
    "gather_oob": _gather_oob,
    "gather_neg": lambda L: L.gather(L.ones(3, 4), 0, I(L, [[-1]])),
    "gather_float_index": lambda L: L.gather(L.ones(3, 4), 0, L.tensor([[0.0]])),
    "gather_ndim": lambda L: L.gather(L.ones(3, 4), 0, I(L, [0])),
    "gather_size": lambda L: L.gather(L.ones(3, 4), 0, L.zeros(2, 5, dtype=L.int64)),
    "gather_dim": lambda L: L.gather(L.ones(3, 4), 2, L.zeros(1, 1, dtype=L.int64)),
    "scatter_oob": lambda L: L.scatter(L.ones(3, 4), 0, I(L, [[5]]), L.ones(1, 1)),
    "scatter_float_index": lambda L: L.scatter(L.ones(3, 4), 0, L.tensor([[0.0]]), 1.0),
    "scatter_dtype": lambda L: L.scatter(L.ones(3, 4), 0, I(L, [[0]]), L.ones(1, 1, dtype=L.float64)),
    "scatter_ndim": lambda L: L.scatter(L.ones(3, 4), 0, I(L, [0]), L.ones(1, 1)),
    "scatter_src_0d": lambda L: L.scatter(L.ones(3, 4), 0, L.zeros(2, 2, dtype=L.int64), L.tensor(1.0)),
    "scatter_size": lambda L: L.scatter(L.ones(3, 4), 0, L.zeros(2, 2, dtype=L.int64), L.ones(1, 5)),
    "scatter_add_oob": lambda L: L.scatter_add(L.ones(3, 4), 1, I(L, [[4]]), L.ones(1, 1)),
    "scatter_add_size": lambda L: L.scatter_add(L.ones(3, 4), 0, L.zeros(2, 5, dtype=L.int64), L.ones(2, 5)),
    "index_select_oob": lambda L: L.index_select(L.ones(3, 4), 0, I(L, [3])),
    "index_select_neg": lambda L: L.index_select(L.ones(3, 4), 0, I(L, [-1])),
    "index_select_float": lambda L: L.index_select(L.ones(3, 4), 0, L.tensor([0.0])),
    "index_select_2d": lambda L: L.index_select(L.ones(3, 4), 0, I(L, [[0]])),
    "index_select_dim": lambda L: L.index_select(L.ones(3, 4), 2, I(L, [0])),
    "index_select_scalar": lambda L: L.index_select(L.tensor(2.0), 0, I(L, [0, 0])),
    "index_add_oob": lambda L: L.index_add(L.ones(3, 4), 0, I(L, [5]), L.ones(1, 4)),
    "index_add_float": lambda L: L.index_add(L.ones(3, 4), 0, L.tensor([0.0]), L.ones(1, 4)),
    "index_add_shape": lambda L: L.index_add(L.ones(3, 4), 0, I(L, [0]), L.ones(1, 3)),
    "index_add_count": lambda L: L.index_add(L.ones(3, 4), 0, I(L, [0, 1]), L.ones(1, 4)),
    "index_add_dtype": lambda L: L.index_add(L.ones(3, 4), 0, I(L, [0]), L.ones(1, 4, dtype=L.float64)),
    "index_add_2d": lambda L: L.index_add(L.ones(3, 4), 0, I(L, [[0]]), L.ones(1, 4)),
    "index_copy_oob": lambda L: L.index_copy(L.ones(3, 4), 0, I(L, [5]), L.ones(1, 4)),
    "index_copy_int32": lambda L: L.index_copy(L.ones(3, 4), 0, L.tensor([0], dtype=L.int32), L.ones(1, 4)),
    "index_copy_slices": lambda L: L.index_copy(L.ones(2, 3, 4), 1, I(L, [0]), L.ones(2, 1, 5)),
    "index_copy_count": lambda L: L.index_copy(L.ones(3, 4), 0, I(L, [0, 1]), L.ones(1, 4)),
    "masked_select_nonbool": lambda L: L.masked_select(L.ones(3, 4), L.ones(3, 4, dtype=L.int64)),
    "masked_select_shape": lambda L: L.masked_select(L.ones(3, 4), L.ones(3, dtype=L.bool)),
    "take_oob": lambda L: L.take(L.ones(3, 4), I(L, [12])),
    "take_neg_oob": lambda L: L.take(L.ones(3, 4), I(L, [-13])),
    "take_int32": lambda L: L.take(L.ones(3, 4), L.tensor([1], dtype=L.int32)),
    "take_empty": lambda L: L.take(L.ones(0), I(L, [0])),
    "flip_dup": lambda L: L.flip(L.ones(3, 4), [0, -2]),
    "flip_dim": lambda L: L.flip(L.ones(3, 4), [2]),
    "roll_align": lambda L: L.roll(L.ones(3, 4), [1, 2], [0]),
    "roll_nodims": lambda L: L.roll(L.ones(3, 4), [1, 2]),
    "repeat_few": lambda L: L.ones(3, 4).repeat(2),
    "repeat_neg": lambda L: L.ones(3, 4).repeat(2, -1),
    "unbind_0d": lambda L: L.unbind(L.tensor(1.0)),
    "unbind_dim": lambda L: L.unbind(L.ones(3, 4), 2),
    "movedim_len": lambda L: L.movedim(L.ones(3, 4), (0, 1), (0,)),
    "movedim_repeated": lambda L: L.movedim(L.ones(3, 4), (0, -2), (0, 1)),
    "movedim_repeated_dst": lambda L: L.movedim(L.ones(3, 4), (0, 1), (1, 1)),
    "swapaxes_dim": lambda L: L.swapaxes(L.ones(3, 4), 2, 0),
    "unflatten_sizes": lambda L: L.unflatten(L.ones(3, 4), 1, (3, 2)),
    "unflatten_empty": lambda L: L.unflatten(L.ones(3, 4), 1, ()),
    "broadcast_to_bad": lambda L: L.broadcast_to(L.ones(3, 4), (3, 5)),
    "hstack_empty": lambda L: L.hstack([]),
    "hstack_sizes": lambda L: L.hstack([L.ones(3, 4), L.ones(2, 2)]),
    "vstack_sizes": lambda L: L.vstack([L.ones(3, 4), L.ones(2, 2)]),
    "diag_3d": lambda L: L.diag(L.ones(2, 2, 2)),
    "diagonal_same": lambda L: L.diagonal(L.ones(3, 4), 0, 0, 0),
    "trace_1d": lambda L: L.trace(L.ones(3)),
    "tril_1d": lambda L: L.tril(L.ones(3)),
    "triu_1d": lambda L: L.triu(L.ones(3)),
    "meshgrid_indexing": lambda L: L.meshgrid(L.ones(2), L.ones(2), indexing="foo"),
    "meshgrid_empty": lambda L: L.meshgrid(indexing="ij"),
    "meshgrid_dtype": lambda L: L.meshgrid(L.ones(2), L.ones(2, dtype=L.float64), indexing="ij"),
    "outer_2d": lambda L: L.outer(L.ones(2, 2), L.ones(2)),
    "outer_2d_b": lambda L: L.outer(L.ones(2), L.ones(2, 2)),
    "addmm_shapes": lambda L: L.addmm(L.ones(3, 4), L.ones(3, 5), L.ones(4, 4)),
    "addmm_1d": lambda L: L.addmm(L.ones(3, 4), L.ones(3), L.ones(4, 4)),
    "addmm_input": lambda L: L.addmm(L.ones(3), L.ones(3, 5), L.ones(5, 4)),
    "addmm_dtype": lambda L: L.addmm(L.ones(3, 4), L.ones(3, 5), L.ones(5, 4, dtype=L.float64)),
    "addmm_dtype_mat1": lambda L: L.addmm(L.ones(3, 4), L.ones(3, 5, dtype=L.float64), L.ones(5, 4)),
    "addmv_sizes": lambda L: L.addmv(L.ones(3), L.ones(3, 4), L.ones(5)),
    "addmv_ranks": lambda L: L.addmv(L.ones(3), L.ones(3, 4), L.ones(4, 1)),
    "addmv_input": lambda L: L.addmv(L.ones(2), L.ones(3, 4), L.ones(4)),
    "addmv_dtype": lambda L: L.addmv(L.ones(3), L.ones(3, 4), L.ones(4, dtype=L.float64)),
    "baddbmm_sizes": lambda L: L.baddbmm(L.ones(2, 3, 4), L.ones(2, 3, 5), L.ones(2, 4, 4)),
    "baddbmm_input": lambda L: L.baddbmm(L.ones(2, 3, 3), L.ones(2, 3, 5), L.ones(2, 5, 4)),
    "baddbmm_dtype": lambda L: L.baddbmm(L.ones(2, 3, 4, dtype=L.float64), L.ones(2, 3, 5), L.ones(2, 5, 4)),
    "einsum_sizes": lambda L: L.einsum("ij,jk->ik", L.ones(3, 4), L.ones(3, 4)),
    "einsum_few": lambda L: L.einsum("ij,jk->ik", L.ones(3, 4)),
    "einsum_many": lambda L: L.einsum("i,j", L.ones(2), L.ones(3), L.ones(1)),
    "einsum_dims": lambda L: L.einsum("ijk->i", L.ones(3, 4)),
    "einsum_dims_ellipsis": lambda L: L.einsum("...ij->", L.ones(2)),
    "einsum_out_twice": lambda L: L.einsum("ij->ii", L.ones(3, 4)),
    "einsum_out_missing": lambda L: L.einsum("ij->k", L.ones(3, 4)),
    "einsum_diag_sizes": lambda L: L.einsum("ii->i", L.ones(3, 4)),
    "einsum_char": lambda L: L.einsum("i1->i", L.ones(3, 4)),
    "einsum_two_arrows": lambda L: L.einsum("i->i->i", L.ones(2)),
    "einsum_two_ellipses": lambda L: L.einsum("...i...->i", L.ones(2, 3)),
    "einsum_ellipsis_bcast": lambda L: L.einsum("...i,...i->...", L.ones(2, 4), L.ones(3, 4)),
    "einsum_no_operands": lambda L: L.einsum("->"),
}


SHAPE_INPLACE = {
    "scatter_": lambda L, t, s: t.scatter_(0, I(L, [[0, 1, 2, 0], [1, 2, 0, 2]]), s[:2]),
    "scatter_value": lambda L, t, s: t.scatter_(1, I(L, [[0], [3], [1]]), 2.5),
    "scatter_add_": lambda L, t, s: t.scatter_add_(0, I(L, [[0, 0, 0, 1], [0, 2, 2, 2]]), s[:2]),
    "index_add_": lambda L, t, s: t.index_add_(1, I(L, [0, 0, 3]), s[:, :3], alpha=2),
    "index_copy_": lambda L, t, s: t.index_copy_(1, I(L, [3, 1]), s[:, :2]),
    "masked_fill_": lambda L, t, s: t.masked_fill_(M(L, [1, 0, 0, 1]), -1.0),
    "tril_": lambda L, t, s: t.tril_(1),
    "triu_": lambda L, t, s: t.triu_(-1),
    "addmm_": lambda L, t, s: t.addmm_(s[:, :2], s[:2, :4], beta=0.5, alpha=2),
}


def check_binary_against_torch(name, shapes):
    a, b = arr(shapes[0], 1, -3, 3), arr(shapes[1], 2, -3, 3)
    b[np.abs(b) < 0.2] = 0.7
    run_both(lambda lib, x, y: BINARY_FNS[name](lib, x * 1, y * 1), [a, b], what=name)
    run_both(lambda lib, x, y: BINARY_FNS[name](lib, x, y), [a.astype(np.float32), b.astype(np.float32)],
             what=name, rtol=1e-5, atol=1e-6)


def check_case_against_torch(case):
    with warnings.catch_warnings():  # the warnings themselves: test_var_mean_of_one_element_warns
        warnings.simplefilter("ignore", UserWarning)
        same_outcome(MATH_CASES[case], case)


def check_reduction_against_torch(name, dtype):
    x = np.array([[0.7, -1.2, 1.9, 0.4], [1.3, 0.2, -0.6, 1.1], [-0.9, 2.2, 0.5, -1.7]], dtype=dtype)
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == np.float32 else {}
    run_both(lambda lib, t: REDUCTIONS[name](lib, t * 1), [x], what=name, **tol)


def check_double_backward_against_torch(name):
    if name in UNARY:
        lo, hi = UNARY[name]
        x = arr((2, 3), 5, lo, hi)
        double_backward_both(lambda lib, t: getattr(lib, name)(t), x)
    elif name in REDUCTIONS:
        x = arr((3, 4), 5, 0.5, 1.5)
        double_backward_both(REDUCTIONS[name], x)
    else:
        x = arr((2, 3), 5, 0.5, 1.5)
        double_backward_both(lambda lib, t: BINARY_FNS[name](lib, t, t.flip(0) * -1 + 0.1) if lib is torch
                             else BINARY_FNS[name](lib, t, t[[1, 0]] * -1 + 0.1), x)


def check_gradcheck(name):
    shapes, fn = SHAPE_CASES[name]
    inputs = leaves_of(al, shapes)
    if name in NOT_TWICE:  # a float32 result is too coarse for finite differences
        pytest.skip("a float32 result")
    assert gradcheck(lambda *xs: fn(al, *xs), inputs)
    assert gradgradcheck(lambda *xs: fn(al, *xs), inputs)


def check_against_torch(name):
    (ins_a, out_a), (ins_t, out_t) = run_case(al, name), run_case(torch, name)
    assert tuple(out_a.shape) == tuple(out_t.shape)
    assert str(out_a.dtype) == str(out_t.dtype)
    np.testing.assert_allclose(to_np(out_a), to_np(out_t), rtol=1e-10, atol=1e-12)
    if name in OWN_GRAPH:
        assert type(out_a.grad_fn).__name__ == "EinsumBackward0"
    else:
        assert graph_edges(out_a) == graph_edges(out_t)
    # views: the result shares memory with (is a view of) the input exactly when PyTorch's does
    if name not in OWN_GRAPH:  # PyTorch's einsum may end in a view of its last bmm; this one does not
        assert (out_a._base is not None) == (out_t._base is not None)
    if name in VIEWS:
        assert out_a._base is ins_a[0] and out_t._base is ins_t[0]
    g = np.random.default_rng(3).uniform(-1, 1, tuple(out_t.shape))
    out_a.backward(al.tensor(g, dtype=out_a.dtype))
    out_t.backward(torch.tensor(g, dtype=out_t.dtype))
    for a, t in zip(ins_a, ins_t):
        if t.grad is None:
            assert a.grad is None
        else:
            np.testing.assert_allclose(to_np(a.grad), to_np(t.grad), rtol=1e-10, atol=1e-12)


def check_errors_match_torch(name):
    with pytest.raises(Exception) as theirs:
        SHAPE_ERRORS[name](torch)
    with pytest.raises(type(theirs.value)) as ours:
        SHAPE_ERRORS[name](al)
    assert str(ours.value) == str(theirs.value)


def check_errors_raise_without_torch(name):
    """The same bad calls fail here whether or not PyTorch is there to compare."""
    with pytest.raises((RuntimeError, IndexError, ValueError, TypeError)):
        SHAPE_ERRORS[name](al)


def check_inplace_bumps_version_and_records(name):
    x = al.tensor(uniform((3, 4)), dtype=al.float64, requires_grad=True)
    s = al.tensor(uniform((3, 4), 1), dtype=al.float64, requires_grad=True)
    t = x * 1
    before = t._version
    out = SHAPE_INPLACE[name](al, t, s)
    assert out is t and t._version == before + 1
    assert gradcheck(lambda a, b: SHAPE_INPLACE[name](al, a * 1, b), (x, s))
    assert gradgradcheck(lambda a, b: SHAPE_INPLACE[name](al, a * 1, b), (x, s))


def check_inplace_against_torch(name, on_view):
    results = []
    for L in (al, torch):
        x = L.tensor(uniform((3, 4) if not on_view else (2, 3, 4)), dtype=L.float64, requires_grad=True)
        s = L.tensor(uniform((3, 4), 1), dtype=L.float64, requires_grad=True)
        base = x * 1
        t = base[1] if on_view else base
        SHAPE_INPLACE[name](L, t, s)
        (base * L.tensor(uniform(tuple(base.shape), 5))).sum().backward()
        results.append((to_np(base), graph_edges(base), t._version, to_np(x.grad),
                        None if s.grad is None else to_np(s.grad)))
    (va, ga, ka, xa, sa), (vt, gt, kt, xt, st) = results
    np.testing.assert_allclose(va, vt)
    assert ga == gt and ka == kt
    np.testing.assert_allclose(xa, xt)
    assert (sa is None) == (st is None)
    if sa is not None:
        np.testing.assert_allclose(sa, st)


def table_tests(module: str) -> dict[str, Callable]:
    """The table-driven tests of ``autograd_lab.ops.<module>``: for each table with cases of that module,
    the test that runs them. A test file takes them with ``globals().update(table_tests("view"))``;
    pytest collects them there, under the file's name."""
    floats = pytest.mark.parametrize("dtype", [np.float64, np.float32])
    shapes = pytest.mark.parametrize("shapes", [((2, 3), (2, 3)), ((2, 3), (3,)), ((), (2, 1)),
                                                ((2, 1), (1, 3))])
    on_view = pytest.mark.parametrize("on_view", [False, True])
    double = dict.fromkeys(DOUBLE_BACKWARD)
    plan = [  # test name, its table, the check it runs, its marks (PyTorch needed: oracle)
        ("test_case_against_torch", MATH_CASES, check_case_against_torch, [oracle]),
        ("test_binary_against_torch", BINARY_FNS, check_binary_against_torch, [oracle, shapes]),
        ("test_reduction_against_torch", REDUCTIONS, check_reduction_against_torch, [oracle, floats]),
        ("test_double_backward_against_torch", double, check_double_backward_against_torch, [oracle]),
        ("test_gradcheck", SHAPE_CASES, check_gradcheck, []),
        ("test_against_torch", SHAPE_CASES, check_against_torch, [oracle]),
        ("test_errors_match_torch", SHAPE_ERRORS, check_errors_match_torch, [oracle]),
        ("test_errors_raise_without_torch", SHAPE_ERRORS, check_errors_raise_without_torch, []),
        ("test_inplace_bumps_version_and_records", SHAPE_INPLACE, check_inplace_bumps_version_and_records,
         []),
        ("test_inplace_against_torch", SHAPE_INPLACE, check_inplace_against_torch, [oracle, on_view]),
    ]
    tests = {}
    for name, table, check_case, marks in plan:
        names = cases(table, module)
        if not names:
            continue
        test = functools.wraps(check_case)(lambda *args, _check=check_case, **kwargs: _check(*args, **kwargs))
        test.__name__ = test.__qualname__ = name
        for mark in [pytest.mark.parametrize(_first_argument(check_case), names), *marks]:
            test = mark(test)
        tests[name] = test
    return tests


def _first_argument(fn: Callable) -> str:
    return next(iter(inspect.signature(fn).parameters))
