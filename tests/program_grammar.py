"""Random programs from a grammar of ops, run in autograd_lab and in PyTorch, compared step by step.

A program is a list of steps; each step is a line (or a few ``;``-joined statements) of Python over the
names ``lib`` (the module: ``autograd_lab`` or ``torch``) and ``F`` (its ``nn.functional``), so a failing
program prints as code a learner can paste. The generator draws each step from the grammar knowing the
shapes so far (it runs the program in PyTorch as it writes it); the interpreter runs a program in one
library and records, per step, what a learner could see: the exception (type and text), the warnings,
and for every tensor the step names: values, dtype, shape, ``requires_grad``, ``is_leaf``, ``grad_fn``,
the graph behind it, the ``_saved_*`` attributes PyTorch has, ``_version`` and, after a backward, the
``.grad`` of leaves and retained non-leaves. A step that raises in both libraries lets the program go on,
as a learner's session would. The shrinker delta-debugs a mismatching program (drops steps, rounds
inputs) to a minimal one that still shows the same kind of mismatch.

Script mode, a catalogue of the mismatches of many programs::

    PYTHONPATH=. python -m tests.program_grammar --programs 2000 --seed 0 --report
"""

from __future__ import annotations

import argparse
import re
import time
import warnings
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

# Behaviour the project decides not to copy from PyTorch: patterns (regular expressions) of mismatch
# kinds the comparison skips, each with its why (README, "Where it differs").
KNOWN_DIFFERENCES: dict[str, str] = {
    r"saved .* \(missing, not a tensor\)": "non-tensor saved values (_saved_dim, _saved_keepdim, "
    "_saved_self_sym_sizes, ...) are not exposed: they are PyTorch's kernel arguments and symbolic-shape "
    "bookkeeping, not tensors the graph keeps",
    r"grad2?: _version \[.*\]": "the _version of a tensor that autograd.grad hands back counts PyTorch's "
    "in-place accumulation inside its engine, an implementation detail (also at later steps, and of its "
    "views: the run reads it as ENGINE_VERSION there)",
}
# what the run shows as _version of a tensor sharing memory with a gradient autograd.grad returned
ENGINE_VERSION = "counts the engine's accumulation (KNOWN_DIFFERENCES)"

# A float32 value that differs from PyTorch's is put down to rounding when the same program in float64
# (PyTorch's run) shows both libraries' float32 errors of one size: autograd_lab's at most ROUNDING_FACTOR
# times PyTorch's own (a sum that cancels to nearly 0 magnifies the last bit of each library's kernels).
ROUNDING = "(float32 rounding: no further from float64 than 4x PyTorch's own error)"
ROUNDING_FACTOR = 4.0
RTOL = {"float32": 1e-5, "float64": 1e-10}
ATOL = {"float32": 1e-6, "float64": 1e-12}
NAME = re.compile(r"\b[xv]\d+\b")


@dataclass
class Step:
    tag: str  # the grammar rule, which names the kind of a mismatch
    code: str


@dataclass
class Mismatch:
    step: int
    tag: str
    field: str
    ours: object
    theirs: object

    node: str = ""  # PyTorch's grad_fn of the tensor that differs ("" for a step's exception or warnings)
    name: str = ""  # the tensor's name in the program
    rounding: bool = False  # float32 values no further from the float64 result than PyTorch's (see _rounding)

    @property
    def kind(self) -> str:
        """What differs: the saved attribute (named by its node), else the field and the step's rule."""
        if self.field.startswith("graph node"):
            return self.field
        if self.field.startswith("saved "):
            return self.field + (f" {ROUNDING}" if self.rounding else "")
        return f"{self.tag}: {self.field}" + (f" [{self.node}]" if self.node else "") + (
            f" {ROUNDING}" if self.rounding else "")


@dataclass
class Program:
    steps: list[Step] = field(default_factory=list)

    def source(self) -> str:
        return "\n".join(f"{s.code:<70} # {s.tag}" for s in self.steps)


# ---------------------------------------------------------------------------------------------------
# The grammar. Each rule takes the random generator and the PyTorch tensors named so far, and returns
# code (or None where it does not apply).


def _fmt(x) -> str:
    return repr(round(float(x), 2))


def _literal(arr: np.ndarray) -> str:
    return repr(np.round(arr, 2).tolist())


def input_step(rng, k: int) -> Step:
    dtype = "float64" if rng.random() < 0.5 else "float32"
    rank = int(rng.choice([0, 1, 2, 2, 3]))
    shape = tuple(int(rng.choice([0, 1, 2, 3, 4], p=[0.05, 0.2, 0.3, 0.3, 0.15])) for _ in range(rank))
    rg = rng.random() < 0.75
    if 0 in shape:
        code = f"x{k} = lib.zeros({shape}, dtype=lib.{dtype}, requires_grad={rg})"
    else:
        code = f"x{k} = lib.tensor({_literal(rng.normal(size=shape))}, dtype=lib.{dtype}, requires_grad={rg})"
    return Step("input", code)


def _dim(rng, t) -> int:
    return int(rng.integers(-t.ndim, t.ndim)) if t.ndim else int(rng.choice([0, -1]))


def _other(rng, env, name):
    """Another tensor of ``env`` (broadcastable with ``name`` most of the time) or a number."""
    a = env[name]
    names = [n for n in env if env[n].is_floating_point()]
    good = [n for n in names if _broadcasts(env[n].shape, a.shape)]
    pool = good if good and rng.random() < 0.9 else names
    return str(rng.choice(pool)) if rng.random() < 0.8 else _fmt(rng.normal())


def _broadcasts(a, b) -> bool:
    try:
        np.broadcast_shapes(tuple(a), tuple(b))
    except ValueError:
        return False
    return True


UNARY = [
    "{a}.exp()",
    "lib.log({a})",
    "{a}.sigmoid()",
    "lib.tanh({a})",
    "{a}.relu()",
    "{a}.abs()",
    "-{a}",
    "{a}.sqrt()",
    "{a} ** 2",
    "{a} ** 0.5",
    "{a}.pow(3)",
    "2.0 ** {a}",
    "{a}.clamp({lo}, {hi})",
    "lib.clamp({a}, min={lo})",
    "{a}.clamp(max={hi})",
    "1.0 / {a}",
    "{a}.sin()",
    "{a}.reciprocal()",
]
BINARY = [
    "{a} + {b}",
    "lib.add({a}, {b}, alpha={c})",
    "{a}.sub({b}, alpha={c})",
    "{a} - {b}",
    "{a} * {b}",
    "{a} / {b}",
    "lib.pow({a}, {b})",
    "lib.where({a} > 0, {a}, {b})",
    "lib.maximum({a}, {b})",
    "lib.atan2({a}, {b})",
    "{a}.clamp(min={b})",
    "lib.clamp({a}, {b}, {b} + 1)",
]


def pointwise(rng, env, a):
    if rng.random() < 0.5:
        return "unary", str(rng.choice(UNARY)).format(
            a=a, lo=_fmt(-abs(rng.normal())), hi=_fmt(abs(rng.normal()))
        )
    b = _other(rng, env, a)
    code = str(rng.choice(BINARY))
    if "lib.where" in code or "maximum" in code or "atan2" in code or "clamp" in code:
        if not b.startswith(("x", "v")):
            b = f"lib.tensor({b}, dtype={a}.dtype)"
    return "binary", code.format(a=a, b=b, c=_fmt(rng.choice([0.5, 2.0, -1.0])))


def reduction(rng, env, a):
    t = env[a]
    d, k = _dim(rng, t), bool(rng.random() < 0.5)
    forms = [
        f"{a}.sum()",
        f"{a}.sum({d}, keepdim={k})",
        f"lib.mean({a}, dim={d}, keepdim={k})",
        f"{a}.mean()",
        f"{a}.prod({d})",
        f"{a}.prod()",
        f"{a}.amax({d}, keepdim={k})",
        f"{a}.max({d}, keepdim={k})",
        f"{a}.max()",
        f"{a}.var({d}, keepdim={k})",
        f"{a}.std()",
        f"lib.std({a}, dim={d}, correction=0)",
        f"{a}.var()",
        f"{a}.min({d})[0]",
        f"{a}.sum(({d},))",
        f"{a}.logsumexp({d})",
    ]
    return "reduction", str(rng.choice(forms))


def shape_op(rng, env, a):
    t = env[a]
    d = _dim(rng, t)
    sh = tuple(t.shape)
    forms = [
        f"{a}.view(-1)",
        f"{a}.reshape({tuple(reversed(sh))})",
        f"{a}.flatten()",
        f"{a}.unsqueeze({d})",
        f"{a}.squeeze()",
        f"{a}.squeeze({d})",
        f"{a}.permute({tuple(reversed(range(t.ndim)))})",
        f"{a}.expand(2, *{a}.shape)",
        f"{a}.t()" if t.ndim <= 2 else f"{a}.mT",
        f"{a}.transpose(0, -1)",
        f"{a}.contiguous().view({sh[::-1]})",
        f"{a}.reshape(-1, 1)",
    ]
    if t.ndim:
        b = _same_shape(rng, env, a)
        forms += [
            f"lib.cat([{a}, {b}], {d})",
            f"lib.stack([{a}, {b}], {d})",
            f"{a}.split(1, {d})",
            f"{a}.chunk(2, {d})",
            f"{a}.unbind({d})",
            f"lib.cat([{a}, {a}.detach()], {d})",
        ]
    return "shape", str(rng.choice(forms))


def _same_shape(rng, env, a) -> str:
    same = [n for n in env if tuple(env[n].shape) == tuple(env[a].shape) and env[n].is_floating_point()]
    return str(rng.choice(same))


def index(rng, env, a):
    t = env[a]
    n = t.shape[0] if t.ndim else 0
    forms = [f"{a}[None]", f"{a}[...]", f"{a}[..., None]"]
    if t.ndim:
        i = int(rng.integers(-n, n)) if n else 0
        forms += [
            f"{a}[{i}]",
            f"{a}[1:]",
            f"{a}[::2]",
            f"{a}[-1:, ...]",
            f"{a}[[0, -1]]",
            f"{a}[{a} > 0]",
            f"{a}[lib.tensor([0, 0])]",
            f"{a}[lib.tensor([True] * {n})]",
            f"{a}[..., 0]",
            f"{a}[{i}, None]",
            f"{a}[[{i}, {i}]]",
        ]
    if t.ndim >= 2:
        forms += [
            f"{a}[:, [0, 1]]",
            f"{a}[[0, 1], :, None]",
            f"{a}[0, [0, -1]]",
            f"{a}[:, 1:, ...]",
            f"{a}[[0, 1], [1, 0]]",
            f"{a}[:, lib.tensor([1, 0])]",
            f"{a}[..., None, 0]",
        ]
    return "index", str(rng.choice(forms))


def setitem(rng, env, a, k):
    t = env[a]
    idx = "..." if not t.ndim else str(rng.choice(["0", "1:", "..., 0", "[0, -1]", f"{a} > 0", "None"]))
    val = str(
        rng.choice(
            [
                _fmt(rng.normal()),
                f"{a}.detach()[{idx}] * 2",
                f"lib.tensor({_fmt(rng.normal())})",
                _other(rng, env, a),
            ]
        )
    )
    base = str(rng.choice([f"{a}.clone()", f"{a} * 1.0", f"lib.zeros_like({a})"]))
    return "setitem", f"v{k} = {base}; v{k}[{idx}] = {val}"


def matmul(rng, env, a):
    t = env[a]
    sh = tuple(t.shape)
    partners = [
        n
        for n in env
        if env[n].is_floating_point() and env[n].ndim >= 1 and t.ndim >= 1 and _mm_ok(sh, tuple(env[n].shape))
    ]
    if partners and rng.random() < 0.7:
        return "matmul", f"{a} @ {rng.choice(partners)}"
    if t.ndim == 0:
        return "matmul", f"{a} @ {a}"
    last = sh[-1]
    forms = [
        f"{a} @ lib.ones({last}, dtype={a}.dtype)",
        f"lib.matmul({a}, lib.ones({last}, 2, dtype={a}.dtype))",
        f"lib.ones(2, 1, 3, {last}, dtype={a}.dtype) @ {a}" if t.ndim >= 2 else f"{a} @ {a}",
        f"{a}.mm({a}.t())" if t.ndim == 2 else f"{a}.matmul({a}.mT)" if t.ndim >= 2 else f"{a}.dot({a})",
    ]
    return "matmul", str(rng.choice(forms))


def _mm_ok(a, b) -> bool:
    ka = a[-1]
    kb = b[0] if len(b) == 1 else b[-2]
    if ka != kb:
        return False
    return _broadcasts(a[:-2], b[:-2]) if len(a) > 2 or len(b) > 2 else True


def functional(rng, env, a):
    t = env[a]
    d = _dim(rng, t)
    forms = [
        f"F.softmax({a}, {d})",
        f"F.log_softmax({a}, dim={d})",
        f"F.relu({a})",
        f"F.mse_loss({a}, {_other(rng, env, a)})",
        f"F.linear({a}, {a}.detach()[..., :1].mT)"
        if t.ndim >= 2
        else f"F.mse_loss({a}, lib.zeros_like({a}), reduction='sum')",
    ]
    if t.ndim in (1, 2) and t.shape[-1] > 0:
        c = t.shape[-1]
        n = t.shape[0] if t.ndim == 2 else None
        target = f"lib.tensor({rng.integers(0, c, n).tolist() if n is not None else int(rng.integers(c))})"
        ii = int(rng.integers(c))
        forms += [
            f"F.cross_entropy({a}, {target})",
            f"F.cross_entropy({a}, {target}, ignore_index={ii})",
            f"F.cross_entropy({a}, {target}, label_smoothing=0.1)",
            # soft targets: not the input's own softmax, whose gradient is 0 but for rounding (each
            # library's last bits then decide signs: a catalogue of noise, not of differences)
            f"F.cross_entropy({a}, ({a}.detach() * 2).softmax(-1))",
            f"F.cross_entropy({a}, {target}, reduction='none')",
        ]
    if t.ndim >= 1:
        w = [
            n
            for n in env
            if env[n].ndim == 2 and env[n].shape[1] == t.shape[-1] and env[n].is_floating_point()
        ]
        if w:
            forms.append(f"F.linear({a}, {rng.choice(w)})")
    return "functional", str(rng.choice(forms))


def inplace(rng, env, a, k):
    b = _other(rng, env, a)
    op = str(
        rng.choice(
            [
                f"add_({b})",
                f"mul_({b})",
                f"clamp_({_fmt(-0.5)}, 0.5)",
                "relu_()",
                f"sub_({b}, alpha=2)",
                "exp_()",
                "zero_()",
            ]
        )
    )
    form = rng.integers(4)
    if form == 0:
        return "inplace", f"v{k} = {a} * 1.0; v{k}.{op}"
    if form == 1 and env[a].ndim:
        return "inplace_view", f"v{k} = {a}.clone(); v{k}[0].{op}"
    if form == 2:
        return "inplace_view", f"v{k} = {a}.clone(); w{k} = v{k}.view(-1); w{k}.{op}"
    return "inplace_leaf", f"{a}.{op}"


def autograd_step(rng, env, a, k):
    leaves = [n for n in env if n.startswith("x") and env[n].requires_grad]
    form = rng.integers(8)
    if form == 0:
        return "backward", f"{a}.sum().backward()"
    if form == 7:  # the second backward through a freed graph must raise
        return "backward", f"v{k} = ({a} * {a}).sum(); v{k}.backward(); v{k}.backward()"
    if form == 1:
        return "backward", f"{a}.sum().backward(retain_graph=True); {a}.sum().backward()"
    if form == 2:
        return "backward", f"{a}.backward()"
    if form == 3:
        return "hook", f"{a}.retain_grad()"
    if form == 4:
        t = env[a]
        if t._base is not None and t._version > 0:
            # PyTorch 2.13 crashes (a segmentation fault) registering a hook on a view whose base changed
            # in place since, before anything read the view's grad_fn (seed 6700532): retain_grad instead
            # (autograd_lab runs such a hook as PyTorch does once grad_fn was read: test_fidelity_regressions)
            return "hook", f"{a}.retain_grad()"
        return "hook", f"v{k} = {a}.register_hook(lambda g: g * 2)"
    if not leaves:
        return "backward", f"({a} * {a}).sum().backward()"
    x = str(rng.choice(leaves))
    if form == 5:
        return "grad2", (
            f"g{k} = lib.autograd.grad(({a} * {a}).sum(), [{x}], create_graph=True)[0]; "
            f"v{k} = lib.autograd.grad(g{k}.sum(), [{x}])[0]"
        )
    return "grad", f"v{k} = lib.autograd.grad({a}.sum(), {x}, retain_graph=True, allow_unused=True)[0]"


RULES = [
    (pointwise, 5),
    (reduction, 3),
    (shape_op, 3),
    (index, 3),
    (setitem, 2),
    (matmul, 2),
    (functional, 2),
    (inplace, 2),
    (autograd_step, 3),
]
NEEDS_K = {setitem, inplace, autograd_step}


# ---------------------------------------------------------------------------------------------------
# The wider grammar (``generate(seed, wide=True)``): the rules above plus the rest of what the course's
# library offers — more pointwise functions and activations, losses, scans and sorts, gathers and
# scatters, more shapes and in-place ops. It has its own seeds, so the programs above stay as they are.

UNARY_WIDE = [
    "{a}.expm1()", "{a}.log1p()", "lib.sinh({a})", "{a}.cosh()", "{a}.cos()", "{a}.tan()", "{a}.atan()",
    "{a}.asinh()", "lib.erf({a})", "{a}.erfc()", "{a}.rsqrt()", "{a}.square()", "{a}.sign()", "{a}.sgn()",
    "{a}.frac()", "{a}.floor()", "lib.ceil({a})", "{a}.round()", "{a}.round(decimals=1)", "{a}.trunc()",
    "{a}.log2()", "{a}.log10()", "{a}.exp2()", "{a}.sigmoid().logit()", "{a}.logit(eps=0.1)",
    "lib.nan_to_num({a}.log())", "F.gelu({a})", "F.gelu({a}, approximate='tanh')", "F.silu({a})",
    "F.mish({a})", "F.softplus({a})", "F.softplus({a}, beta=2.0, threshold=1.0)", "F.elu({a})",
    "F.elu({a}, alpha=0.5)", "F.leaky_relu({a}, 0.1)", "F.hardtanh({a})", "F.relu6({a} * 4)",
    "F.logsigmoid({a})", "F.softsign({a})", "F.tanh({a})", "F.sigmoid({a})", "{a}.abs().sqrt()",
    "{a}.clamp_min({lo})", "{a}.clamp_max({hi})", "lib.clip({a}, {lo}, {hi})", "{a}.pow(0)", "{a}.pow(-1)",
    "{a} ** -0.5", "{a}.abs() ** 1.5", "lib.rsub({a}, 1.0)", "1.0 - {a}", "2.0 * {a}", "{a} / 3.0",
    "{a}.neg()", "{a}.fmod(0.7)", "{a}.remainder(0.7)", "{a} // 0.5", "{a}.float()", "{a}.double()",
    "{a}.to(lib.float32)", "{a}.type_as(lib.zeros((), dtype=lib.float64))",
]
BINARY_WIDE = [
    "lib.minimum({a}, {b})", "lib.fmax({a}, {b})", "lib.fmin({a}, {b})", "lib.hypot({a}, {b})",
    "lib.logaddexp({a}, {b})", "lib.lerp({a}, {b}, 0.3)",
    "lib.addcmul({a}, {b}, {b}, value=0.5)", "lib.addcdiv({a}, {b}, {b}.abs() + 1, value=2.0)",
    "{a}.div({b}, rounding_mode='floor')", "{a}.div({b}, rounding_mode='trunc')", "lib.fmod({a}, {b})",
    "lib.remainder({a}, {b})", "lib.where({a} > {b}, {a}, 0.0)", "lib.where({a} > 0, 1.0, {b})",
    "{a}.dist({b})", "{a}.dist({b}, p=1)", "lib.pow({a}.abs(), {b})", "{a}.maximum({b})", "{a}.mul({b})",
    "lib.div({a}, {b})", "lib.sub({a}, {b})", "{a}.add({b}, alpha=0)", "{a}.add({b}, alpha=-1.5)",
    "lib.sub({a}, {b}, alpha=0.3)", "lib.lerp({a}, {b}, {b})", "lib.lerp({a}, {b}, 0.7)",
]


def pointwise_wide(rng, env, a):
    if rng.random() < 0.55:
        return "unary2", str(rng.choice(UNARY_WIDE)).format(
            a=a, lo=_fmt(-abs(rng.normal())), hi=_fmt(abs(rng.normal())))
    b = _tensor_other(rng, env, a)
    return "binary2", str(rng.choice(BINARY_WIDE)).format(a=a, b=b)


def _tensor_other(rng, env, a) -> str:
    """Another tensor of ``env``, or a number as a 0-d tensor of ``a``'s dtype."""
    b = _other(rng, env, a)
    return b if b.startswith(("x", "v")) else f"lib.tensor({b}, dtype={a}.dtype)"


def _index_literal(rng, shape, n) -> str:
    return f"lib.tensor({rng.integers(0, max(n, 1), shape).tolist()})"


def reduction_wide(rng, env, a):
    t = env[a]
    d, k = _dim(rng, t), bool(rng.random() < 0.5)
    forms = [
        f"{a}.amin({d}, keepdim={k})", f"{a}.min()", f"{a}.norm()", f"{a}.norm(p=1)", f"{a}.norm(p=3)",
        f"lib.norm({a}, dim={d}, keepdim={k})", f"{a}.norm(p=float('inf'))", f"{a}.norm(p=0.5, dim={d})",
        f"{a}.logsumexp({d}, keepdim={k})", f"lib.var_mean({a}, {d})",
        f"lib.std_mean({a}, dim={d}, keepdim={k})",
        f"{a}.var({d}, correction=0)", f"{a}.cumsum({d})", f"{a}.cumprod({d})", f"{a}.logcumsumexp({d})",
        f"{a}.argmax()", f"{a}.argmin({d}, keepdim={k})", f"{a}.max({d})[1]", f"({a} > 0).all()",
        f"({a} > 0).any({d})", f"{a}.count_nonzero()", f"{a}.sum(dim=({d},), keepdim={k}, dtype=lib.float64)",
        f"{a}.mean(({d},))", f"{a}.prod({d}, keepdim={k})", f"{a}.aminmax()", f"{a}.std({d}, correction=2)",
    ]
    if 0 not in t.stride() or t.numel() <= 1:  # (PyTorch's (nan)median reads garbage from an expanded one)
        forms.append(f"{a}.median()")
        if t.ndim:
            forms += [f"{a}.median({d})", f"{a}.median({d}, keepdim={k})[0]", f"{a}.nanmedian({d})[0]"]
    if t.ndim:
        n = t.shape[d]
        forms += [f"{a}.diff(dim={d})", f"{a}.sort({d})", f"{a}.sort({d}, descending=True)[0]",
                  f"{a}.argsort({d})"]
        forms += [f"{a}.topk({min(n, 2)}, {d})", f"{a}.topk(1, {d}, largest=False)[0]",  # (ties: GCC's order)
                  f"{a}.topk({n}, {d}, sorted=False)[1]", f"{a}.kthvalue({max(n // 2, 1)}, {d})[0]",
                  f"{a}.mode({d}, keepdim={k})[1]",
                  f"lib.quantile({a}, 0.3, dim={d})", f"{a}.nanquantile(lib.tensor([0.25, 0.75], "
                  f"dtype={a}.dtype), {d}, interpolation='midpoint')"]
        if t.shape[-1] == 3:
            forms.append(f"lib.linalg.cross({a}, {a}.flip(-1))")
    if t.ndim == 2 and t.shape[0] == t.shape[1]:
        forms += [f"lib.linalg.det({a})", f"{a}.slogdet()[1]", f"lib.inner({a}, {a})"]
    if t.ndim == 2:
        forms += [f"{a}.trace()", f"{a}.diagonal()", f"{a}.diag()", f"lib.diagonal({a}, 1)"]
    if t.ndim == 1:
        forms += [f"{a}.diag()", f"lib.outer({a}, {a})", f"lib.kron({a}, {a})"]
    return "reduction2", str(rng.choice(forms))


def shape_wide(rng, env, a):
    t = env[a]
    d = _dim(rng, t)
    sh = tuple(t.shape)
    forms = [f"{a}.repeat(2, *[1] * {a}.ndim)", f"{a}.tile((2,))", f"{a}.expand_as(lib.zeros(2, *{a}.shape))",
             f"lib.broadcast_to({a}, (3, *{a}.shape))", f"{a}.reshape_as({a})", f"{a}.view_as({a})",
             f"{a}.flatten(0, -1)", f"{a}.reshape(1, -1)",
             f"{a}.sum_to_size(*[1] * {a}.ndim)" if t.ndim else f"{a}.reshape(())"]
    if t.ndim:
        n = sh[d]
        b = _same_shape(rng, env, a)
        forms += [f"{a}.flip({d})", f"{a}.roll(1, {d})", f"{a}.roll(-1)",
                  f"{a}.narrow({d}, 0, {max(n - 1, 0)})",
                  f"{a}.select({d}, {n - 1})" if n else f"{a}.select({d}, 0)", f"{a}.movedim(0, -1)",
                  f"{a}.swapaxes(0, -1)", f"lib.concat([{a}, {b}], {d})", f"lib.hstack([{a}, {b}])",
                  f"lib.vstack([{a}, {b}])", f"{a}.unflatten(0, ({sh[0]}, 1))",
                  f"lib.stack([{a}, {b}]).sum(0)", f"{a}.split([{n}], {d})", f"{a}.split(2, {d})",
                  f"{a}.chunk(3, {d})", f"{a}.unsqueeze(-1).expand(*{a}.shape, 2)"]
    if t.ndim == 2:
        forms += [f"{a}.tril()", f"{a}.triu(1)", f"lib.tril({a}, -1)", f"{a}.T", f"F.pad({a}, (1, 0))",
                  f"F.pad({a}, (0, 1, 1, 0), value=0.5)"]
    if t.ndim == 3:
        forms += [f"{a}.permute(1, 2, 0)", f"{a}.flatten(1)", f"F.pad({a}, (1, 1))"]
    return "shape2", str(rng.choice(forms))


def index_wide(rng, env, a):
    t = env[a]
    d = _dim(rng, t)
    sh = tuple(t.shape)
    forms = [f"{a}.masked_fill({a} > 0, 0.5)", f"{a}.masked_fill({a} < 0, lib.tensor(-1.0))",
             f"lib.where({a} < 0, {a}.detach(), {a})", f"{a}.masked_select({a} > 0)",
             f"{a}.take(lib.tensor([0]))" if t.numel() else f"{a}.take(lib.tensor([], dtype=lib.long))"]
    if t.ndim and t.numel():
        n = sh[d]
        idx = _index_literal(rng, sh, n)
        one = _index_literal(rng, (2,), n)
        value = f"lib.tensor(1.0, dtype={a}.dtype)"
        forms += [f"{a}.gather({d}, {idx})", f"lib.gather({a}, {d}, {idx}[..., :1])",
                  f"{a}.index_select({d}, {one})", f"lib.index_select({a}, {d}, {one}).sum()",
                  f"{a}.scatter({d}, {idx}, {a} * 2)", f"{a}.scatter({d}, {idx}, 0.5)",
                  f"{a}.scatter_add({d}, {idx}, {a})",
                  f"{a}.index_add({d}, {one}, {a}.index_select({d}, {one}))",
                  f"{a}.index_fill({d}, {one}, -1.0)",
                  f"{a}.index_copy({d}, lib.tensor([0]), {a}.narrow({d}, {n - 1}, 1))",
                  f"{a}.index_put(({one},), {value})", f"{a}.index_put(({one},), {value}, accumulate=True)",
                  f"{a}.take({_index_literal(rng, (3,), t.numel())})",
                  f"{a}.gather({d}, {a}.argmax({d}, keepdim=True))", f"{a}[{one}, ...]", f"{a}[..., -1]",
                  f"{a}[-2:]"]
    return "index2", str(rng.choice(forms))


def functional_wide(rng, env, a):
    t = env[a]
    d = _dim(rng, t)
    b = _other(rng, env, a)
    forms = [f"F.l1_loss({a}, {a}.detach() * 0.5)", f"F.smooth_l1_loss({a}, {a}.detach().round())",
             f"F.smooth_l1_loss({a}, lib.zeros_like({a}), beta=0.5, reduction='sum')",
             f"F.huber_loss({a}, lib.zeros_like({a}), delta=0.5)",
             f"F.mse_loss({a}, {a}.detach().round(), reduction='none')",
             f"F.binary_cross_entropy_with_logits({a}, ({a}.detach() > 0).to({a}.dtype))",
             f"F.binary_cross_entropy({a}.sigmoid(), ({a}.detach() > 0).to({a}.dtype))",
             f"F.binary_cross_entropy_with_logits({a}, lib.full_like({a}, 0.3), reduction='sum')",
             f"F.softmax({a}, {d}, dtype=lib.float64)", f"F.log_softmax({a} * 2, {d})",
             f"F.dropout({a}, 0.0)", f"F.dropout({a}, 0.5, training=False)",
             f"F.normalize({a}, dim={d})" if t.ndim else f"F.relu({a})",
             f"F.l1_loss({a}, {b})" if b.startswith(("x", "v")) else f"F.l1_loss({a}, lib.zeros_like({a}))"]
    if t.ndim >= 1 and t.shape[-1] > 0:
        c = t.shape[-1]
        forms += [f"F.layer_norm({a}, {a}.shape[-1:])",
                  f"F.layer_norm({a}, {a}.shape[-1:], lib.ones({c}, dtype={a}.dtype), "
                  f"lib.zeros({c}, dtype={a}.dtype))",
                  f"F.cosine_similarity({a}, {a}.detach() + 1, dim=-1)",
                  f"F.kl_div(F.log_softmax({a}, -1), F.softmax({a}.detach() * 2, -1), reduction='batchmean')"]
    if t.ndim == 2 and t.shape[-1] > 0:
        c, n = t.shape[1], t.shape[0]
        target = f"lib.tensor({rng.integers(0, c, n).tolist()})"
        forms += [f"F.nll_loss(F.log_softmax({a}, 1), {target})",
                  f"F.nll_loss({a}, {target}, reduction='sum')",
                  f"F.cross_entropy({a}, {target}, weight=lib.ones({c}, dtype={a}.dtype) * 2)",
                  f"F.one_hot({target}, {c}).to({a}.dtype) * {a}",
                  f"F.linear({a}, {a}.detach().mT, lib.ones({n}, dtype={a}.dtype))",
                  f"F.embedding(lib.tensor([0, {n - 1}, 0]), {a})" if n else f"F.relu({a})"]
        if n > 1:
            forms.append(f"F.batch_norm({a}, None, None, training=True)")
    if t.ndim == 3 and t.shape[-1] > 0:
        forms += [f"F.max_pool1d({a}, 1)", f"F.avg_pool1d({a}, 1)"]
        if t.shape[0] and t.shape[1]:  # (0 channels: PyTorch's empty output has 0, README "Where it differs")
            forms.append(f"F.conv1d({a}, {a}.detach()[:1, :, :1])")
    return "functional2", str(rng.choice(forms))


INPLACE_WIDE = [
    "{w}.mul_(2.0)", "{w}.div_(2.0)", "{w}.div_({b})", "{w}.pow_(2)", "{w}.sqrt_()", "{w}.sigmoid_()",
    "{w}.tanh_()", "{w}.neg_()", "{w}.abs_()", "{w}.clamp_min_(0.0)", "{w}.clamp_max_(0.1)", "{w}.fill_(0.5)",
    "{w}.masked_fill_({w} > 0, 0.0)", "{w}.copy_({b})", "{w}.addcmul_({b}, {b}, value=0.5)",
    "{w}.lerp_({t}, 0.5)", "{w}.exp_().log_()", "{w}.sin_()", "{w}.reciprocal_()", "{w}.square_()",
    "{w}.floor_()", "{w}.log1p_()", "{w}.cos_()", "F.relu({w}, inplace=True)", "F.leaky_relu_({w}, 0.2)",
    "F.elu_({w})", "F.hardtanh_({w})",
]


def inplace_wide(rng, env, a, k):
    b = _other(rng, env, a)
    op = str(rng.choice(INPLACE_WIDE))
    call = lambda w: op.format(w=w, b=b, t=_tensor_other(rng, env, a))  # noqa: E731
    form = rng.integers(4)
    if form == 0:
        return "inplace2", f"v{k} = {a} * 1.0; {call(f'v{k}')}"
    if form == 1 and env[a].ndim:
        return "inplace2_view", f"v{k} = {a}.clone(); w{k} = v{k}[-1]; {call(f'w{k}')}"
    if form == 2 and env[a].ndim:
        view = f"v{k}.t() if v{k}.ndim == 2 else v{k}[::2]"
        return "inplace2_view", f"v{k} = {a}.clone(); w{k} = {view}; {call(f'w{k}')}"
    return "inplace2_leaf", f"v{k} = {a}; {call(a)}"


RULES_WIDE = RULES + [
    (pointwise_wide, 6),
    (reduction_wide, 3),
    (shape_wide, 3),
    (index_wide, 3),
    (functional_wide, 3),
    (inplace_wide, 2),
]
NEEDS_K.add(inplace_wide)


def generate(seed: int, wide: bool = False) -> Program:
    """A program of 3 to 12 steps over 1 to 3 inputs, drawn from the grammar (shapes known from PyTorch);
    ``wide``: from the wider grammar."""
    import torch

    rng = np.random.default_rng(seed)
    prog = Program()
    ns = namespace(torch)
    for k in range(int(rng.integers(1, 4))):
        prog.steps.append(input_step(rng, k))
        _exec(prog.steps[-1].code, ns)
    rules, weights = zip(*(RULES_WIDE if wide else RULES))
    p = np.array(weights, float) / sum(weights)
    for k in range(int(rng.integers(3, 13))):
        env = {n: v for n, v in ns.items() if NAME.fullmatch(n) and isinstance(v, torch.Tensor)}
        env = {n: v for n, v in env.items() if v.is_floating_point()} or env
        a = str(rng.choice(sorted(env)))
        rule = rules[rng.choice(len(rules), p=p)]
        tag, code = rule(rng, env, a, k) if rule in NEEDS_K else rule(rng, env, a)
        if not code.startswith(("v", "g", "x")) or "=" not in code.split("(")[0]:
            code = f"v{k} = {code}"
        prog.steps.append(Step(tag, code))
        _exec(code, ns)
    return prog


# ---------------------------------------------------------------------------------------------------
# The interpreter: run a program in one library, observe each step.


def namespace(lib) -> dict:
    return {"lib": lib, "F": lib.nn.functional}


def _exec(code: str, ns: dict):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(code, ns)
    except Exception:  # noqa: BLE001 - generation only needs the shapes of what succeeds
        pass


def _message(e) -> str:
    """An exception's or warning's text without PyTorch's C++ trace (where in ATen it was raised)."""
    text = str(e).split("\nException raised from")[0]
    return re.sub(r" \(Triggered internally at [^)]*\)", "", text).strip()


def graph(t) -> list:
    """The graph behind ``t``, breadth first: node names with the (index, output_nr) of their edges."""
    fn = getattr(t, "grad_fn", None)
    out, queue, ids = [], [fn], {}
    while queue:
        node = queue.pop(0)
        if node is None or id(node) in ids:
            continue
        ids[id(node)] = len(ids)
        nexts = node.next_functions
        out.append(
            (type(node).__name__, tuple((type(n).__name__ if n is not None else None, nr) for n, nr in nexts))
        )
        queue.extend(n for n, _ in nexts)
    return out


def _saved(node, names: list[str]) -> dict:
    out = {}
    for name in names:
        try:
            v = getattr(node, name)
        except Exception as e:  # noqa: BLE001 - a freed buffer raises in PyTorch: that is observed too
            out[name] = ("raises", type(e).__name__, _message(e))
            continue
        out[name] = _plain(v)
    return out


def _plain(v):
    if hasattr(v, "detach") and hasattr(v, "shape"):
        # (force: PyTorch may hand back a ZeroTensor, whose numpy() refuses without it)
        return ("tensor", tuple(v.shape), str(v.dtype).split(".")[-1],
                np.asarray(v.detach().numpy(force=True)))
    if isinstance(v, tuple | list):
        return tuple(_plain(x) for x in v)
    return v if isinstance(v, int | float | bool | str | type(None)) else repr(v)


def observe_tensor(t, saved_names: list[str] | None) -> dict:
    """What a learner sees of ``t``; ``saved_names``: the ``_saved_*`` attributes to read (None: all)."""
    obs = {  # shape and dtype first: where they differ, the values are not compared
        "shape": tuple(t.shape),
        "dtype": str(t.dtype).split(".")[-1],
        "values": _tensor_values(t),
        "requires_grad": t.requires_grad,
        "is_leaf": t.is_leaf,
        "graph": graph(t),
        "_version": t._version,
    }
    node = t.grad_fn
    if node is not None:
        names = [n for n in dir(node) if n.startswith("_saved_")] if saved_names is None else saved_names
        obs["saved"] = _saved(node, names)
    return obs


def _tensor_values(t) -> np.ndarray:
    """``t``'s values as an array. PyTorch 2.13 crashes (a segmentation fault) reading a slice of a
    "ZeroTensor" (sgn's gradient) with ``numpy(force=True)`` (seed 14601793 of the wider grammar): its
    zeros are made here instead."""
    if getattr(t, "_is_zerotensor", None) is not None and t._is_zerotensor():
        return np.zeros(tuple(t.shape), dtype=str(t.dtype).split(".")[-1])
    return np.asarray(t.detach().numpy(force=True))


def _tensors_named(code: str, ns: dict, lib) -> dict:
    out = {}
    for n in dict.fromkeys(NAME.findall(code) + re.findall(r"\b[vgw]\d+\b", code)):
        v = ns.get(n)
        if isinstance(v, lib.Tensor):
            out[n] = v
        elif isinstance(v, tuple | list):
            for i, x in enumerate(v):
                if isinstance(x, lib.Tensor):
                    out[f"{n}[{i}]"] = x
    return out


def run(prog: Program, lib, saved_names: dict | None = None) -> list[dict]:
    """Run ``prog`` with ``lib``; per step, the observations (``saved_names``: per step and tensor, the
    ``_saved_*`` attributes to read, as PyTorch's run found them)."""
    ns = namespace(lib)
    trace = []
    grads: list = []  # the gradients autograd.grad returned so far (their _version: a known difference)
    for i, step in enumerate(prog.steps):
        obs: dict = {}
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                exec(step.code, ns)
            except Exception as e:  # noqa: BLE001 - the exception is what is compared
                obs["raises"] = (type(e).__name__, _message(e))
        obs["warnings"] = [(w.category.__name__, _message(w.message)) for w in caught]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if step.tag in ("grad", "grad2"):
                grads += [v for n, v in _tensors_named(step.code, ns, lib).items() if n.startswith("v")]
            for n, t in _tensors_named(step.code, ns, lib).items():
                names = None if saved_names is None else saved_names.get((i, n), [])
                try:
                    obs[n] = observe_tensor(t, names)
                except Exception as e:  # noqa: BLE001
                    obs[n] = ("observing raises", type(e).__name__, _message(e))
                    continue
                data = obs[n]["values"]
                if step.tag not in ("grad", "grad2") and _of_grad(t, data, grads):
                    obs[n]["_version"] = ENGINE_VERSION
            if step.tag in ("backward", "grad", "grad2", "hook"):
                for n, v in ns.items():
                    if isinstance(v, lib.Tensor) and (v.is_leaf or getattr(v, "retains_grad", False)):
                        g = v.grad
                        obs[f"{n}.grad"] = None if g is None else _plain(g)
        trace.append(obs)
    return trace


def _of_grad(t, data: np.ndarray, grads: list) -> bool:
    """Whether ``t`` is, or shares memory with, a gradient autograd.grad returned (an empty tensor,
    which shares no memory: when it is one of them or a view of the same base; a view's ``_base`` is the
    root, which in PyTorch may be the gradient's own base)."""

    def root(x):
        base = getattr(x, "_base", None)
        return x if base is None else base

    return any(t is g or root(t) is root(g) or np.shares_memory(data, g.detach().numpy(force=True))
               for g in grads)


# ---------------------------------------------------------------------------------------------------
# The comparison.


def _same(ours, theirs, dtype: str = "float64") -> bool:
    if isinstance(theirs, np.ndarray):
        if not isinstance(ours, np.ndarray) or ours.shape != theirs.shape:
            return False
        if theirs.dtype.kind not in "fc":
            return ours.dtype == theirs.dtype and np.array_equal(ours, theirs)
        if not np.array_equal(np.isnan(ours), np.isnan(theirs)):
            return False
        return bool(
            np.allclose(ours, theirs, rtol=RTOL.get(dtype, 1e-5), atol=ATOL.get(dtype, 1e-6), equal_nan=True)
        )
    if isinstance(theirs, dict):
        if not isinstance(ours, dict):
            return False
        dt = _looser(theirs.get("dtype", dtype), dtype)
        return set(ours) == set(theirs) and all(_same(ours[k], theirs[k], dt) for k in theirs)
    if isinstance(theirs, tuple | list):
        if not isinstance(ours, tuple | list) or len(ours) != len(theirs):
            return False
        dt = _looser(theirs[2], dtype) if len(theirs) == 4 and theirs[0] == "tensor" else dtype
        return all(_same(o, t, dt) for o, t in zip(ours, theirs))
    if isinstance(theirs, float) and isinstance(ours, float):
        return (
            ours == theirs or bool(np.isclose(ours, theirs, rtol=1e-5)) or (ours != ours and theirs != theirs)
        )
    return ours == theirs


def _looser(dtype: str, outer: str) -> str:
    """A tensor's own dtype, or float32 where the comparison is loose already (a float64 tensor made
    from float32 steps carries float32's rounding: see ``_compare_tensor``)."""
    return "float32" if outer == "float32" else dtype


def compare(prog: Program, ours: list[dict], theirs: list[dict]) -> list[Mismatch]:
    """The differences, step by step, field by field (PyTorch's fields decide what is compared)."""
    out = []
    loose = any("float32" in step.code for step in prog.steps)
    for i, (o, t) in enumerate(zip(ours, theirs)):
        tag = prog.steps[i].tag
        keys = list(dict.fromkeys(list(t) + list(o)))
        if ("raises" in t) != ("raises" in o):
            keys = ["raises"]  # the step's tensors differ because one library raised: that is the news
        for key in keys:
            if key not in t or key not in o:
                where = "only autograd_lab has it" if key not in t else "autograd_lab lacks it"
                name = "tensor" if key not in ("raises", "warnings") else key
                out.append(Mismatch(i, tag, f"{name} ({where})", o.get(key), t.get(key)))
                continue
            tv, ov = t[key], o[key]
            if isinstance(tv, dict) and isinstance(ov, dict):
                out += _compare_tensor(i, tag, key, ov, tv, loose)
            elif not _same(ov, tv, "float32" if loose else "float64"):
                what = "grad" if key.endswith(".grad") else key
                if key == "raises" and ov[0] != tv[0]:
                    what = "raises (type)"
                out.append(Mismatch(i, tag, what, ov, tv, name=key if key.endswith(".grad") else ""))
    return [m for m in out if not any(re.fullmatch(k, m.kind) for k in KNOWN_DIFFERENCES)]


def _compare_tensor(i: int, tag: str, name: str, ov: dict, tv: dict, loose: bool = False) -> list[Mismatch]:
    """``loose``: the program has float32 tensors, so float64 results made from them carry float32's
    rounding (NumPy's and PyTorch's float32 kernels differ in the last bit): float32's tolerance."""
    out = []
    node = tv["graph"][0][0] if tv["graph"] else "leaf"
    dtype = "float32" if loose else tv["dtype"]
    for sub in tv:
        if sub == "saved":
            for s, want in tv[sub].items():
                got = ov.get(sub, {}).get(s, "<missing>")
                if isinstance(got, tuple) and got[:2] == ("raises", "AttributeError"):
                    tensor = isinstance(want, tuple) and want[:1] == ("tensor",)
                    what = "missing" if tensor else "missing, not a tensor"
                    out.append(Mismatch(i, tag, f"saved {node}.{s} ({what})", got, want))
                elif not _same(got, want, dtype):
                    out.append(Mismatch(i, tag, f"saved {node}.{s}", got, want))
        elif sub == "graph" and ov.get(sub) != tv[sub]:
            # the first node that differs names the kind: a wrong node upstream shows in every later graph
            got = list(ov.get(sub) or []) + [None] * len(tv[sub])
            j = next(j for j, want in enumerate(tv[sub] + [None]) if got[j] != want)
            want = tv[sub][j] if j < len(tv[sub]) else None
            out.append(
                Mismatch(
                    i, tag, f"graph node {_node(got[j])} where PyTorch has {_node(want)}", ov[sub], tv[sub]
                )
            )
        elif sub == "values" and any(m.field in ("shape", "dtype") for m in out):
            continue  # the shape or dtype already tells
        elif not _same(ov.get(sub, "<missing>"), tv[sub], dtype if sub == "values" else tv["dtype"]):
            out.append(Mismatch(i, tag, sub, ov.get(sub, "<missing>"), tv[sub], node))
    for m in out:
        m.name = name
    return out


def _node(entry) -> str:
    if entry is None:
        return "(none)"
    name, edges = entry
    return f"{name}({', '.join(f'{n}:{nr}' for n, nr in edges)})"


def check(prog: Program) -> Mismatch | None:
    """Run ``prog`` in both libraries: the first difference (None: none)."""
    found = check_all(prog)
    return found[0] if found else None


def check_all(prog: Program) -> list[Mismatch]:
    """Run ``prog`` in both libraries: all the differences."""
    import torch

    import autograd_lab as al

    theirs = run(prog, torch)
    names = {
        (i, n): list(obs[n]["saved"])
        for i, obs in enumerate(theirs)
        for n in obs
        if isinstance(obs[n], dict) and "saved" in obs[n]
    }
    try:
        ours = run(prog, al, names)
    except Exception as e:  # noqa: BLE001 - an error while observing is a mismatch too
        return [Mismatch(0, "interpreter", "crash", f"{type(e).__name__}: {e}", None)]
    found = compare(prog, ours, theirs)
    if any(_values(m) is not None for m in found) and "lib.float32" in prog.source():
        exact = Program([Step(st.tag, st.code.replace("lib.float32", "lib.float64")) for st in prog.steps])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            truth = run(exact, torch)
        for m in found:
            m.rounding = _rounding(m, truth)
    return found


def _values(m: Mismatch) -> tuple[np.ndarray, np.ndarray] | None:
    """(ours, PyTorch's) float arrays of a values, grad or saved tensor mismatch, else None."""
    if m.field == "values":
        pair = (m.ours, m.theirs)
    elif (m.field == "grad" or m.field.startswith("saved ")) and isinstance(m.ours, tuple) and isinstance(
            m.theirs, tuple):
        pair = (m.ours[-1], m.theirs[-1])
    else:
        return None
    floats = all(isinstance(a, np.ndarray) and a.dtype.kind == "f" for a in pair)
    return pair if floats and pair[0].shape == pair[1].shape else None


def _rounding(m: Mismatch, truth: list[dict]) -> bool:
    """Whether autograd_lab's float32 values are as close to the float64 program's as PyTorch's are
    (within ROUNDING_FACTOR of PyTorch's own error; nan and inf where PyTorch has them)."""
    pair = _values(m)
    if pair is None or m.step >= len(truth):
        return False
    seen = truth[m.step].get(m.name)  # a tensor's observations, or a .grad as ("tensor", ..., array)
    if m.field.startswith("saved ") and isinstance(seen, dict):  # "saved <node>._saved_<name>"
        seen = seen.get("saved", {}).get(m.field.rsplit(".", 1)[1])
    exact = seen.get("values") if isinstance(seen, dict) else seen[-1] if isinstance(seen, tuple) else None
    if not isinstance(exact, np.ndarray) or exact.shape != pair[0].shape:
        return False
    ours, theirs = (a.astype(np.float64) for a in pair)
    if not (np.array_equal(np.isnan(ours), np.isnan(theirs)) and np.array_equal(ours[np.isinf(ours)],
                                                                                   theirs[np.isinf(ours)])):
        return False
    finite = np.isfinite(ours) & np.isfinite(theirs) & np.isfinite(exact)
    if not np.array_equal(finite, np.isfinite(ours)):  # a finite value where float64 overflows
        return False
    errors = [float(np.max(np.abs(a[finite] - exact[finite]), initial=0.0)) for a in (ours, theirs)]
    return errors[0] <= ROUNDING_FACTOR * errors[1]


# ---------------------------------------------------------------------------------------------------
# The shrinker.


def shrink(prog: Program, kind: str, budget: int = 300) -> Program:
    """A smaller program with the same kind of first mismatch: drop chunks of steps (ddmin), then round
    the inputs' values."""
    tries = 0

    def still(p: Program) -> bool:
        nonlocal tries
        tries += 1
        return any(m.kind == kind for m in check_all(p))

    steps = list(prog.steps)
    n = 2
    while len(steps) >= 2 and tries < budget:
        chunk = max(1, len(steps) // n)
        removed = False
        for start in range(0, len(steps), chunk):
            cand = steps[:start] + steps[start + chunk :]
            if cand and still(Program(cand)):
                steps, n, removed = cand, max(n - 1, 2), True
                break
        if not removed:
            if chunk == 1:
                break
            n = min(len(steps), n * 2)
    for i, s in enumerate(steps):
        if s.tag == "input" and "lib.tensor(" in s.code and tries < budget:
            for simpler in (
                re.sub(r"-?\d+\.\d+", lambda m: _fmt(round(float(m.group()))), s.code),
                re.sub(r"-?\d+\.\d+", lambda m: _fmt(round(float(m.group()), 1)), s.code),
            ):
                cand = steps[:i] + [Step("input", simpler)] + steps[i + 1 :]
                if simpler != s.code and still(Program(cand)):
                    steps = cand
                    break
    return Program(steps)


def describe(prog: Program, m: Mismatch) -> str:
    """The program as code, with what PyTorch and autograd_lab gave at the step that differs."""
    return (
        f"{m.kind} at step {m.step}" + (f", in {m.name}" if m.name else "") + f":\n{prog.source()}\n"
        f"  PyTorch:      {_short(m.theirs)}\n  autograd_lab: {_short(m.ours)}"
    )


def _short(v, n: int = 300) -> str:
    with np.printoptions(precision=6, threshold=20):
        s = repr(v)
    return s if len(s) <= n else s[:n] + " ..."


# ---------------------------------------------------------------------------------------------------
# Script mode: the catalogue.


programs_kinds: dict[int, set[str]] = {}  # the last catalogue's kinds per program seed


def family(kind: str) -> str:
    """A coarser kind for the catalogue's summary."""
    if kind.startswith("saved ") and kind.endswith("(missing)"):  # a tensor PyTorch keeps
        return "saved: a _saved_* attribute PyTorch has is missing"
    if kind.endswith(ROUNDING):
        return "values " + ROUNDING
    if kind.startswith("graph node"):
        return "graph: a node differs where PyTorch has " + kind.split("where PyTorch has ")[1].split("(")[0]
    return re.sub(r" \[.*\]$", "", kind)


# The seeded programs tests/test_random_programs.py runs (TEST_PROGRAMS of each grammar), and the kinds
# of mismatch still open in them (issue 16): the test fails on a kind not in the file, a regression or a
# new difference.
TEST_PROGRAMS = 2560
OPEN_KINDS_FILE = Path(__file__).with_name("program_grammar_open.txt")


def open_kinds() -> set[str]:
    lines = OPEN_KINDS_FILE.read_text().splitlines()
    return {line for line in lines if line and not line.startswith("#")}


def catalogue(programs: int, seed: int, shrink_budget: int = 200, wide: bool = False) -> tuple[Counter, dict]:
    counts: Counter = Counter()
    examples: dict = {}
    programs_kinds.clear()
    for s in range(seed, seed + programs):
        prog = generate(s, wide)
        found = {m.kind: m for m in reversed(check_all(prog))}
        programs_kinds[s] = set(found)
        for kind, m in found.items():
            counts[kind] += 1
            if kind not in examples:
                small = shrink(prog, kind, shrink_budget)
                examples[kind] = (s, small, next((x for x in check_all(small) if x.kind == kind), m))
    return counts, examples


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--programs", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--report", action="store_true", help="print a shrunk example of each kind")
    parser.add_argument("--wide", action="store_true", help="programs of the wider grammar")
    parser.add_argument("--open-kinds", action="store_true",
                        help=f"rewrite {OPEN_KINDS_FILE.name}, the kinds test_random_programs accepts")
    args = parser.parse_args(argv)
    import torch

    torch.set_num_threads(1)
    if args.open_kinds:
        kinds = sorted({m.kind for wide in (False, True) for s in range(TEST_PROGRAMS)
                        for m in check_all(generate(s, wide))})
        text = OPEN_KINDS_FILE.read_text().splitlines()
        header = [line for line in text if line.startswith("#")]
        OPEN_KINDS_FILE.write_text("\n".join(header + kinds) + "\n")
        print(f"{len(kinds)} open kinds written to {OPEN_KINDS_FILE}")
        return
    t0 = time.perf_counter()
    counts, examples = catalogue(args.programs, args.seed, wide=args.wide)
    rounding_only = sum(1 for k in programs_kinds.values() if k and all(x.endswith(ROUNDING) for x in k))
    print(
        f"# {args.programs} {'wide ' if args.wide else ''}programs from seed {args.seed}: "
        f"{sum(1 for k in programs_kinds.values() if k)} with a mismatch ({rounding_only} of them only "
        f"float32 rounding), {len(counts)} kinds of mismatch, {time.perf_counter() - t0:.0f} s\n"
    )
    families: Counter = Counter()
    for s in range(args.seed, args.seed + args.programs):
        families.update({family(k) for k in programs_kinds.get(s, ())})
    print("## Families (programs showing each)\n")
    for fam, c in families.most_common():
        print(f"- {c:5d}  {fam}")
    print("\n## Kinds, each with one shrunk example\n")
    for kind, c in counts.most_common():
        seed, small, m = examples[kind]
        print(f"### {kind} — in {c} programs (first: seed {seed})")
        if args.report:
            print("```python\n" + describe(small, m) + "\n```\n")


if __name__ == "__main__":
    main()
