"""Differential tests: the same programs run in autograd_lab and in PyTorch give the same results.

Random programs are built from a table of operations applied to the same inputs in both libraries;
every intermediate is compared (values, dtype, ``grad_fn`` names of the whole graph behind it,
``is_leaf``, ``requires_grad``), then the gradients of the leaves and of retained non-leaves, and
second derivatives (``create_graph=True``). Also: hooks, printing, dtype promotion, version counters
and gradients at the edges of the ops' domains. Skipped where PyTorch is not installed.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest
from helpers import oracle
from op_cases import I, run_case, uniform

import autograd_lab as al

torch = pytest.importorskip("torch")


LIBS = (al, torch)


RTOL, ATOL = 1e-5, 1e-8


def to_np(t) -> np.ndarray:
    return np.asarray(t.detach().numpy())


def graph_names(t) -> list[tuple[str, tuple[int, ...]]]:
    """The graph behind ``t``, breadth first: each node's type name and the output_nr of its edges."""
    out, queue, seen = [], [t.grad_fn], set()
    while queue:
        node = queue.pop(0)
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        out.append((type(node).__name__, tuple(nr for _, nr in node.next_functions)))
        queue.extend(n for n, _ in node.next_functions)
    return out


def assert_same_tensor(ours, theirs, what: str) -> None:
    assert isinstance(ours, al.Tensor), f"{what}: autograd_lab gave {type(ours).__name__}"
    assert tuple(ours.shape) == tuple(theirs.shape), f"{what}: shape {ours.shape} vs {theirs.shape}"
    assert str(ours.dtype) == str(theirs.dtype), f"{what}: dtype {ours.dtype} vs {theirs.dtype}"
    np.testing.assert_allclose(to_np(ours), to_np(theirs), rtol=RTOL, atol=ATOL, err_msg=what)


def assert_same_autograd_state(ours, theirs, what: str) -> None:
    assert ours.is_leaf == theirs.is_leaf, f"{what}: is_leaf {ours.is_leaf} vs {theirs.is_leaf}"
    assert ours.requires_grad == theirs.requires_grad, f"{what}: requires_grad"
    assert graph_names(ours) == graph_names(theirs), f"{what}: graphs differ"


def assert_same_grad(ours, theirs, what: str) -> None:
    if theirs is None:
        assert ours is None, f"{what}: PyTorch has no gradient, autograd_lab has {ours}"
        return
    assert ours is not None, f"{what}: autograd_lab has no gradient, PyTorch has {theirs}"
    assert_same_tensor(ours, theirs, what)


@dataclass
class Op:
    name: str
    arity: int
    fn: Callable  # fn(lib, *tensors) -> tensor
    ok: Callable = lambda *shapes: True


def _broadcastable(a: tuple, b: tuple) -> bool:
    try:
        np.broadcast_shapes(a, b)
    except ValueError:
        return False
    return True


def _setitem(T, x):
    y = x.clone()
    y[0] = 0.5
    return y


def _setitem_tensor(T, a, b):
    y = a * 1.0
    y[..., :1] = b[..., :1] * 2
    return y


def _iadd(T, x):
    y = x.clone()
    y.add_(1.5)
    return y


def _imul(T, a, b):
    y = a * 2.0
    y *= b
    return y


def _matmul_ok(a: tuple, b: tuple) -> bool:
    return 1 <= len(a) <= 2 and 1 <= len(b) <= 2 and a[-1] == b[0]


nd = len


OPS = [
    # pointwise
    Op("neg", 1, lambda T, x: -x),
    Op("exp", 1, lambda T, x: x.tanh().exp()),
    Op("log", 1, lambda T, x: (x * x + 1).log()),
    Op("sqrt", 1, lambda T, x: (x * x + 0.25).sqrt()),
    Op("abs", 1, lambda T, x: x.abs()),
    Op("tanh", 1, lambda T, x: T.tanh(x)),
    Op("sigmoid", 1, lambda T, x: x.sigmoid()),
    Op("relu", 1, lambda T, x: T.relu(x)),
    Op("sin", 1, lambda T, x: x.sin()),
    Op("cos", 1, lambda T, x: T.cos(x)),
    Op("square", 1, lambda T, x: x**2),
    Op("cube", 1, lambda T, x: T.pow(x, 3)),
    Op("pow_half", 1, lambda T, x: (x * x + 1) ** 0.5),
    Op("rpow", 1, lambda T, x: 2 ** x.tanh()),
    Op("reciprocal", 1, lambda T, x: (x * x + 1).reciprocal()),
    Op("rsub", 1, lambda T, x: 1.5 - x),
    Op("rdiv", 1, lambda T, x: 2.0 / (x * x + 1)),
    Op("affine", 1, lambda T, x: x * 0.5 + 1),
    Op("clamp", 1, lambda T, x: x.clamp(-0.5, 0.5)),
    Op("clamp_min", 1, lambda T, x: T.clamp(x, min=0.1)),
    Op("masked_fill", 1, lambda T, x: x.masked_fill(x > 0.5, 0.0)),
    Op("clone", 1, lambda T, x: x.clone()),
    Op("detach", 1, lambda T, x: x.detach()),
    Op("to_float_and_back", 1, lambda T, x: x.float().double()),
    # reductions
    Op("sum", 1, lambda T, x: x.sum()),
    Op("mean", 1, lambda T, x: T.mean(x)),
    Op("sum0_keepdim", 1, lambda T, x: x.sum(0, keepdim=True), lambda a: nd(a) >= 1),
    Op("sum_last", 1, lambda T, x: x.sum(-1), lambda a: nd(a) >= 1),
    Op("mean0", 1, lambda T, x: x.mean(0), lambda a: nd(a) >= 1),
    Op("var", 1, lambda T, x: x.var(), lambda a: np.prod(a) > 1),
    Op("std_last", 1, lambda T, x: x.std(-1, keepdim=True), lambda a: nd(a) >= 1 and a[-1] > 1),
    Op("max", 1, lambda T, x: x.max()),
    Op("max_dim", 1, lambda T, x: x.max(-1).values, lambda a: nd(a) >= 1),
    Op("min_dim", 1, lambda T, x: x.min(0, keepdim=True)[0], lambda a: nd(a) >= 1),
    Op("amax", 1, lambda T, x: x.amax(-1), lambda a: nd(a) >= 1),
    Op("logsumexp", 1, lambda T, x: x.logsumexp(-1), lambda a: nd(a) >= 1),
    Op("norm", 1, lambda T, x: x.norm()),
    Op("norm_dim", 1, lambda T, x: x.norm(dim=-1), lambda a: nd(a) >= 1),
    Op("softmax", 1, lambda T, x: x.softmax(-1), lambda a: nd(a) >= 1),
    Op("log_softmax", 1, lambda T, x: T.log_softmax(x, -1), lambda a: nd(a) >= 1),
    # shapes
    Op("reshape", 1, lambda T, x: x.reshape(-1)),
    Op("view", 1, lambda T, x: x.view(tuple(reversed(x.shape)))),
    Op("flatten", 1, lambda T, x: x.flatten()),
    Op("unsqueeze", 1, lambda T, x: x.unsqueeze(0), lambda a: nd(a) <= 2),
    Op("squeeze", 1, lambda T, x: x.squeeze()),
    Op("T", 1, lambda T, x: x.T, lambda a: nd(a) == 2),  # other ranks: deprecated (a warning)
    Op("t", 1, lambda T, x: x.t(), lambda a: nd(a) <= 2),
    Op("transpose", 1, lambda T, x: x.transpose(0, -1), lambda a: nd(a) >= 2),
    Op("permute", 1, lambda T, x: x.permute(*reversed(range(x.ndim)))),
    Op("expand", 1, lambda T, x: x.expand(2, *x.shape), lambda a: nd(a) <= 2),
    Op("T_contiguous", 1, lambda T, x: x.T.contiguous(), lambda a: nd(a) >= 2),
    Op("T_reshape", 1, lambda T, x: x.T.reshape(-1), lambda a: nd(a) >= 2),
    Op("index_int", 1, lambda T, x: x[0], lambda a: nd(a) >= 1),
    Op("index_slice", 1, lambda T, x: x[1:], lambda a: nd(a) >= 1),
    Op("index_step", 1, lambda T, x: x[..., ::2], lambda a: nd(a) >= 1),
    Op("index_none", 1, lambda T, x: x[None], lambda a: nd(a) <= 2),
    Op("index_all", 1, lambda T, x: x[:, :], lambda a: nd(a) >= 2),
    Op("index_array", 1, lambda T, x: x[[0, 0, -1]], lambda a: nd(a) >= 1),
    Op("index_mask", 1, lambda T, x: x[x > 0], lambda a: nd(a) >= 1),
    Op("chunk", 1, lambda T, x: x.chunk(2, -1)[0], lambda a: nd(a) >= 1),
    Op("split_last", 1, lambda T, x: x.split(1, 0)[-1], lambda a: nd(a) >= 1),
    Op("split_sizes", 1, lambda T, x: T.split(x, [1, x.shape[0] - 1])[1], lambda a: nd(a) >= 1),
    Op("setitem", 1, _setitem, lambda a: nd(a) >= 1),
    Op("add_", 1, _iadd),
    # binary
    Op("add", 2, lambda T, a, b: a + b, _broadcastable),
    Op("sub", 2, lambda T, a, b: T.sub(a, b), _broadcastable),
    Op("mul", 2, lambda T, a, b: a * b, _broadcastable),
    Op("div", 2, lambda T, a, b: a / (b * b + 1), _broadcastable),
    Op("pow", 2, lambda T, a, b: (a * a + 0.5) ** b.tanh(), _broadcastable),
    Op("maximum", 2, lambda T, a, b: T.maximum(a, b), _broadcastable),
    Op("minimum", 2, lambda T, a, b: T.minimum(a, b), _broadcastable),
    Op("where", 2, lambda T, a, b: T.where(a > b, a, b), _broadcastable),
    Op("clamp_tensors", 2, lambda T, a, b: a.clamp(b - 0.5, b + 0.5), _broadcastable),
    Op("cat", 2, lambda T, a, b: T.cat([a.reshape(-1), b.reshape(-1)])),
    Op("stack", 2, lambda T, a, b: T.stack([a, b], -1), lambda a, b: a == b),
    Op("matmul", 2, lambda T, a, b: a @ b, _matmul_ok),
    Op("setitem_tensor", 2, _setitem_tensor, lambda a, b: nd(a) >= 1 and nd(b) >= 1 and _broadcastable(a, b)
       and np.broadcast_shapes(a, b) == a),
    Op("mul_", 2, _imul, lambda a, b: _broadcastable(a, b) and np.broadcast_shapes(a, b) == a),
]


def make_leaves(seed: int) -> dict[str, dict]:
    """The same leaves in both libraries: float64, some requiring grad, one constant."""
    rng = np.random.default_rng(seed)
    specs = {"x": ((3, 4), True), "y": ((4,), True), "z": ((3, 1), True), "s": ((), True),
             "W": ((4, 4), True), "c": ((3, 4), False)}
    leaves: dict[str, dict] = {"al": {}, "torch": {}}
    for name, (shape, rg) in specs.items():
        data = rng.uniform(-1.5, 1.5, shape)
        leaves["al"][name] = al.tensor(data, dtype=al.float64, requires_grad=rg)
        leaves["torch"][name] = torch.tensor(data, dtype=torch.float64, requires_grad=rg)
    return leaves


def run_program(seed: int, steps: int = 12):
    """Apply ``steps`` random ops to the leaves in both libraries, comparing every intermediate.

    Returns (leaves, results) per library, and the op names that ran.
    """
    rng = np.random.default_rng(seed)
    leaves = make_leaves(seed)
    pool = {lib: list(leaves[lib].values()) for lib in ("al", "torch")}
    results: dict[str, list] = {"al": [], "torch": []}
    ran = []
    while len(ran) < steps:
        op = OPS[rng.integers(len(OPS))]
        shape_of = [tuple(t.shape) for t in pool["al"]]
        first = int(rng.integers(len(pool["al"])))
        picks = [first]
        if op.arity == 2:  # a partner whose shape the op accepts
            partners = [j for j, s in enumerate(shape_of) if op.ok(shape_of[first], s)]
            if not partners:
                continue
            picks.append(partners[int(rng.integers(len(partners)))])
        shapes = [shape_of[i] for i in picks]
        if any(0 in s for s in shapes) or not op.ok(*shapes):
            continue
        ours = op.fn(al, *(pool["al"][i] for i in picks))
        theirs = op.fn(torch, *(pool["torch"][i] for i in picks))
        what = f"seed {seed}, step {len(ran)}: {op.name}{tuple(shapes)}"
        assert_same_tensor(ours, theirs, what)
        assert_same_autograd_state(ours, theirs, what)
        ran.append(op.name)
        if ours.requires_grad and ours.numel() > 0 and ours.numel() <= 64:
            for t in (ours, theirs):
                t.retain_grad()
            pool["al"].append(ours)
            pool["torch"].append(theirs)
            results["al"].append(ours)
            results["torch"].append(theirs)
    return leaves, results, ran


def loss_of(results: list, seed: int):
    """A scalar that uses every result differently (so a mixed-up gradient would show)."""
    rng = np.random.default_rng(seed + 1000)
    weights = rng.uniform(0.5, 1.5, len(results))
    total = None
    for w, t in zip(weights, results):
        term = (t.sin() * float(w)).sum()
        total = term if total is None else total + term
    return total


PROGRAM_SEEDS = range(40)


@pytest.mark.parametrize("seed", PROGRAM_SEEDS)
def test_random_programs_values_graphs_and_gradients(seed):
    leaves, results, ran = run_program(seed)
    if not results["al"]:
        pytest.fail(f"seed {seed}: the program {ran} left nothing that requires grad")
    loss = {lib: loss_of(results[lib], seed) for lib in ("al", "torch")}
    assert_same_tensor(loss["al"], loss["torch"], "loss")
    assert graph_names(loss["al"]) == graph_names(loss["torch"])
    loss["al"].backward()
    loss["torch"].backward()
    for name in leaves["al"]:
        assert_same_grad(leaves["al"][name].grad, leaves["torch"][name].grad, f"{ran}: {name}.grad")
    for i, (ours, theirs) in enumerate(zip(results["al"], results["torch"])):
        assert_same_grad(ours.grad, theirs.grad, f"{ran}: retained grad of result {i}")


def _order_of_execution(root) -> list[str]:
    """The names of the nodes in the order backward runs them (seen by a pre-hook on each)."""
    order: list[str] = []
    queue, seen = [root.grad_fn], set()
    while queue:
        node = queue.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        node.register_prehook(lambda grads, node=node: order.append(type(node).__name__))
        queue.extend(n for n, _ in node.next_functions)
    root.backward()
    return order


@pytest.mark.parametrize("seed", PROGRAM_SEEDS[:20])
def test_random_programs_run_their_nodes_in_pytorchs_order(seed):
    _, results, ran = run_program(seed)
    ours, theirs = (_order_of_execution(loss_of(results[lib], seed)) for lib in ("al", "torch"))
    assert ours == theirs, f"{ran}"


@pytest.mark.parametrize("seed", PROGRAM_SEEDS[:20])
def test_random_programs_second_derivatives(seed):
    leaves, results, ran = run_program(seed, steps=8)
    if not results["al"]:
        pytest.fail(f"seed {seed}: the program {ran} left nothing that requires grad")
    second = {}
    for lib, T in (("al", al), ("torch", torch)):
        inputs = [t for t in leaves[lib].values() if t.requires_grad]
        loss = loss_of(results[lib], seed)
        grads = T.autograd.grad(loss, inputs, create_graph=True, allow_unused=True)
        rng = np.random.default_rng(seed)
        total = None
        for g, x in zip(grads, inputs):
            if g is not None and g.requires_grad:
                v = T.tensor(rng.uniform(-1, 1, tuple(x.shape)), dtype=T.float64)
                total = (g * v).sum() if total is None else total + (g * v).sum()
        second[lib] = (grads, None if total is None else
                       T.autograd.grad(total, inputs, allow_unused=True))
    for g_ours, g_theirs in zip(second["al"][0], second["torch"][0]):
        assert_same_grad(g_ours, g_theirs, f"{ran}: first derivative")
    if second["torch"][1] is None:
        return
    assert second["al"][1] is not None, f"{ran}: PyTorch's first derivatives have a graph, ours not"
    for h_ours, h_theirs in zip(*(second[lib][1] for lib in ("al", "torch"))):
        # where the second derivative is zero one library may return None, the other zeros
        h_ours = np.zeros(1) if h_ours is None else to_np(h_ours)
        h_theirs = np.zeros(1) if h_theirs is None else to_np(h_theirs)
        np.testing.assert_allclose(h_ours, h_theirs + np.zeros_like(h_ours), rtol=RTOL, atol=1e-7,
                                   err_msg=f"{ran}: second derivative")


def test_every_op_of_the_table_ran():
    """The random programs above exercise every entry of the op table at least once."""
    seen = set()
    for seed in PROGRAM_SEEDS:
        seen.update(run_program(seed)[2])
    missing = {op.name for op in OPS} - seen
    assert not missing, f"ops never drawn: {sorted(missing)}"


def _hooked_program(T):
    x = T.tensor([1.0, -2.0, 3.0], dtype=T.float64, requires_grad=True)
    seen = {"tensor": [], "pre": [], "post": []}
    mid = x * 3
    mid.register_hook(lambda g: seen["tensor"].append(to_np(g).tolist()))
    handle = mid.register_hook(lambda g: g * 2)
    out = mid.tanh()
    out.grad_fn.register_prehook(lambda go: seen["pre"].append([to_np(g).tolist() for g in go]))

    def post(grad_inputs, grad_outputs):
        seen["post"].append(([None if g is None else to_np(g).tolist() for g in grad_inputs],
                             [to_np(g).tolist() for g in grad_outputs]))
        return tuple(None if g is None else g + 1 for g in grad_inputs)

    mid.grad_fn.register_hook(post)
    x.register_hook(lambda g: g * 10)
    out.sum().backward(retain_graph=True)
    first = to_np(x.grad).copy()
    handle.remove()
    x.grad = None
    out.sum().backward()
    return first, to_np(x.grad), seen


def test_hooks_see_replace_and_are_removed_like_pytorch():
    ours, theirs = _hooked_program(al), _hooked_program(torch)
    np.testing.assert_allclose(ours[0], theirs[0])
    np.testing.assert_allclose(ours[1], theirs[1])
    assert ours[2].keys() == theirs[2].keys()
    for key in ours[2]:
        assert len(ours[2][key]) == len(theirs[2][key]), key
        np.testing.assert_allclose(_flat(ours[2][key]), _flat(theirs[2][key]), err_msg=key)


def _post_accumulate_program(m) -> list:
    """``register_post_accumulate_grad_hook``: its checks, when its hooks run (after ``.grad`` is updated,
    after the tensor's own hooks, never for ``autograd.grad``), their grad mode, removal, what they may
    return, and an optimizer step inside backward."""
    out: list = []
    x = m.ones(2, requires_grad=True)
    for bad in (lambda: (x * 2).register_post_accumulate_grad_hook(lambda p: None),
                lambda: m.ones(2).register_post_accumulate_grad_hook(lambda p: None),
                lambda: x[0].register_post_accumulate_grad_hook(lambda p: None)):
        with pytest.raises(RuntimeError) as e:
            bad()
        out.append(str(e.value))
    out.append(x._post_accumulate_grad_hooks)
    log: list = []
    first = x.register_post_accumulate_grad_hook(lambda p: log.append(("h1", p is x, p.grad.tolist())))
    x.register_post_accumulate_grad_hook(lambda p: log.append(("h2", p.grad.tolist(), m.is_grad_enabled())))
    x.register_hook(lambda g: log.append(("pre", g.tolist())))
    (x * 3).sum().backward()
    m.autograd.grad((x * 3).sum(), x)
    first.remove()
    (x * 3).sum().backward()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (create_graph's reference-cycle warning)
        (x * x).sum().backward(create_graph=True)
    out.append(log)
    for result, error in ((5, TypeError), ("a", TypeError), (m.ones(1), RuntimeError)):
        y = m.ones(2, requires_grad=True)
        y.register_post_accumulate_grad_hook(lambda p, r=result: r)
        with pytest.raises(error) as e:
            (y * 2).sum().backward()
        out.append((str(e.value), y.grad.tolist()))

    def step(p):
        with m.no_grad():
            p.sub_(p.grad)
        p.grad = None

    y = m.ones(2, requires_grad=True)
    y.register_post_accumulate_grad_hook(step)
    (y * 2).sum().backward()
    out.append((y.tolist(), y.grad))
    return out


@oracle
def test_post_accumulate_grad_hooks_like_pytorch():
    assert _post_accumulate_program(al) == _post_accumulate_program(torch)


def _named_hook(g):
    return g[:1]


HOOK_RESULTS = {  # what a hook returns: where it is registered, the hook
    "tensor: another size": ("tensor", lambda g: g[:1]),
    "tensor: another dtype": ("tensor", lambda g: g.double()),
    "tensor: a number": ("tensor", lambda g: 5),
    "tensor: a list": ("tensor", lambda g: [g]),
    "tensor: a named function": ("tensor", _named_hook),
    "tensor: a new gradient": ("tensor", lambda g: g * 2),
    "leaf: another size": ("leaf", lambda g: g[:1]),
    "prehook: too many": ("pre", lambda gs: (gs[0], gs[0])),
    "prehook: a list": ("pre", lambda gs: [gs[0] * 2]),
    "prehook: a tensor": ("pre", lambda gs: gs[0]),
    "prehook: another size": ("pre", lambda gs: (gs[0][:1],)),
    "prehook: None for the gradient": ("pre", lambda gs: (None,)),
    "prehook: a number": ("pre", lambda gs: 3),
    "hook: too many": ("post", lambda gi, go: (gi[0], gi[0], gi[0])),
    "hook: another size": ("post", lambda gi, go: (gi[0][:1], gi[1])),
    "hook: a tensor": ("post", lambda gi, go: gi[0]),
    "hook: None for one": ("post", lambda gi, go: (None, gi[1])),
    "hook: another dtype": ("post", lambda gi, go: (gi[0].double(), gi[1])),
    "hook: new gradients": ("post", lambda gi, go: (gi[0] * 2, gi[1])),
}


def _hook_result_program(m, where, hook):
    x, w = m.ones(2, requires_grad=True), m.ones(2, requires_grad=True)
    y = x * w
    {"tensor": y.register_hook, "leaf": x.register_hook, "pre": y.grad_fn.register_prehook,
     "post": y.grad_fn.register_hook}[where](hook)
    try:
        (y * 3).sum().backward()
    except (RuntimeError, TypeError) as e:
        return type(e).__name__, str(e)
    return [None if t.grad is None else t.grad.tolist() for t in (x, w)]


@oracle
@pytest.mark.parametrize("case", sorted(HOOK_RESULTS))
def test_what_a_hook_returns_is_checked_like_pytorch(case):
    """A hook's result replaces a gradient only when it is one: a tensor (a tuple of as many, for a
    node's hooks) of the same dtype and shape; else PyTorch's TypeError or RuntimeError, naming the
    hook. A prehook's None leaves PyTorch's own node with no gradient: none flows on."""
    where, hook = HOOK_RESULTS[case]
    assert _hook_result_program(al, where, hook) == _hook_result_program(torch, where, hook)


def _flat(nested) -> list[float]:
    if nested is None:
        return [np.nan]
    if isinstance(nested, (list, tuple)):
        return [v for item in nested for v in _flat(item)]
    return [float(nested)]


def test_retain_grad_and_backward_inputs_like_pytorch():
    out = {}
    for lib, T in (("al", al), ("torch", torch)):
        a = T.tensor([1.0, 2.0], dtype=T.float64, requires_grad=True)
        b = a * a
        b.retain_grad()
        c = (b * 3).sum()
        c.backward(inputs=[b])
        out[lib] = (a.grad, b.grad)
    assert out["al"][0] is None and out["torch"][0] is None
    assert_same_grad(out["al"][1], out["torch"][1], "b.grad with inputs=[b]")


REPRS = [
    "T.tensor(7.)",
    "T.tensor(3)",
    "T.tensor(True)",
    "T.tensor([1.5, 2.0])",
    "T.tensor([1., 2., 3.])",
    "T.tensor([-1.25, 0.5, 100.0])",
    "T.tensor([1, -2, 300])",
    "T.tensor([True, False])",
    "T.tensor([1e-5, 1.0])",
    "T.tensor([1e10, 1.0])",
    "T.tensor([0.1, 0.2, 0.3], dtype=T.float64)",
    "T.tensor([1, 2], dtype=T.int32)",
    "T.tensor([1, 2], dtype=T.uint8)",
    "T.tensor([float('nan'), float('inf'), -float('inf'), 1.0])",
    "T.tensor([float('nan'), 1.5])",
    "T.zeros(2, 3)",
    "T.ones(2, 2, 2)",
    "T.arange(12).reshape(3, 4)",
    "T.arange(24.).reshape(2, 3, 4) / 7",
    "T.arange(2000.)",
    "T.arange(3000).reshape(30, 100)",
    "T.linspace(0, 1, 25)",
    "T.zeros(0)",
    "T.zeros(2, 0)",
    "T.zeros(0, dtype=T.int64)",
    "T.tensor([1.5, 2.0], requires_grad=True)",
    "T.tensor([1.5, 2.0], requires_grad=True) * 2",
    "T.tensor(2.0, requires_grad=True) ** 2",
    "T.tensor([[1.0, 2.0]], dtype=T.float64, requires_grad=True).sum(1)",
    "T.tensor([1.0, 2.0], requires_grad=True).detach()",
    "T.tensor([123456.789, 0.001])",
    "T.tensor([[1e-3, 2e-3], [3.5, 4.25]], dtype=T.float64)",
    "T.tensor([0.0, -0.0, 1.0])",
    "T.tensor([[1, 2], [3, 4]]).shape",
    "T.tensor([1.0]).dtype",
    "T.tensor([1.0], dtype=T.float64).dtype",
]


@pytest.mark.parametrize("expr", REPRS)
def test_repr_like_pytorch(expr):
    ours = repr(eval(expr, {"T": al}))
    theirs = repr(eval(expr, {"T": torch}))
    assert ours == theirs


def test_str_and_format_like_pytorch():
    for T in LIBS:
        assert str(T.tensor([1.0, 2.0])) == "tensor([1., 2.])"
    assert f"{al.tensor(2.5):.2f}" == f"{torch.tensor(2.5):.2f}"


def _versions(T):
    x = T.ones(2, 3)
    v = x.view(6)
    w = x[0]
    versions = [x._version]
    v.add_(1)
    versions += [x._version, v._version, w._version]
    x.mul_(2)
    w.zero_()
    versions += [x._version, v._version, w._version]
    y = x * 1
    versions.append(y._version)
    with T.no_grad():
        x[1] = 5.0
    versions.append(v._version)
    return versions, to_np(x)


def test_version_counters_shared_with_views_like_pytorch():
    ours, theirs = _versions(al), _versions(torch)
    assert ours[0] == theirs[0]
    np.testing.assert_array_equal(ours[1], theirs[1])


EDGE_CASES = [
    ("relu at 0", lambda T, x: T.relu(x), [0.0, 1.0, -1.0]),
    ("abs at 0", lambda T, x: x.abs(), [0.0, 1.0, -1.0]),
    ("clamp at its bounds", lambda T, x: x.clamp(-1.0, 1.0), [-1.0, 1.0, 0.0, 2.0]),
    ("max with ties", lambda T, x: x.max(), [1.0, 3.0, 3.0]),
    ("amax with ties", lambda T, x: x.amax(), [3.0, 3.0, 3.0]),
    ("maximum with ties", lambda T, x: T.maximum(x, T.tensor([1.0, 0.0, 5.0], dtype=T.float64)),
     [1.0, 2.0, 3.0]),
    ("norm at 0", lambda T, x: x.norm(), [0.0, 0.0]),
    ("1-norm at 0", lambda T, x: x.norm(1), [0.0, 2.0]),
    ("3-norm", lambda T, x: x.norm(3), [1.0, -3.0, 0.0]),
    ("0.5-norm", lambda T, x: x.norm(0.5), [1.0, -3.0, 0.0]),
    ("inf-norm with ties", lambda T, x: x.norm(float("inf")), [1.0, -3.0, 3.0]),
    ("std of equal values", lambda T, x: x.reshape(2, 2).std(1).sum(), [1.0, 2.0, 2.0, 2.0]),
    ("var of one element", lambda T, x: x.reshape(1, 2).var(0).sum(), [1.0, 2.0]),
    ("x ** 0", lambda T, x: x**0, [0.0, 3.0]),
    ("x ** 0.5 at 0", lambda T, x: x**0.5, [0.0, 4.0]),
    ("x ** x at 0", lambda T, x: x**x, [0.0, 2.0]),
    ("0 ** x", lambda T, x: 0**x, [0.0, 2.0]),
    ("sqrt at 0", lambda T, x: x.sqrt(), [0.0, 4.0]),
    ("log at 0", lambda T, x: x.log(), [0.0, 1.0]),
    ("softmax with -inf", lambda T, x: x.softmax(0), [-float("inf"), 1.0, 2.0]),
    ("log_softmax of large values", lambda T, x: x.log_softmax(0), [1000.0, 0.0, -1000.0]),
    ("logsumexp of large values", lambda T, x: x.logsumexp(0), [1000.0, 1000.0]),
    ("sigmoid of large values", lambda T, x: x.sigmoid(), [-800.0, 0.0, 800.0]),
    ("tanh of large values", lambda T, x: x.tanh(), [-800.0, 800.0]),
    ("exp of -inf", lambda T, x: x.exp(), [-float("inf"), 0.0]),
    ("where picks the branch", lambda T, x: T.where(x > 0, x, x * 0), [-1.0, 2.0]),
    ("division by zero", lambda T, x: 1.0 / x, [0.0, 2.0]),
]


@pytest.mark.parametrize("case", EDGE_CASES, ids=[c[0] for c in EDGE_CASES])
def test_values_and_gradients_at_the_edges_of_the_domain(case):
    _, fn, values = case
    out = {}
    for lib, T in (("al", al), ("torch", torch)):
        x = T.tensor(values, dtype=T.float64, requires_grad=True)
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y = fn(T, x)
            y.backward(T.ones_like(y))
        out[lib] = (y, x.grad)
    np.testing.assert_allclose(to_np(out["al"][0]), to_np(out["torch"][0]), rtol=RTOL, equal_nan=True)
    np.testing.assert_allclose(to_np(out["al"][1]), to_np(out["torch"][1]), rtol=RTOL, equal_nan=True)


def test_functional_jacobian_and_hessian_like_pytorch():
    def scalar(x):
        return (x**3).sum() * x[0] + (x * x.tanh()).sum()

    def vector(x):
        return x.exp() * x[0]

    data = np.array([0.5, -1.0, 2.0])
    for fn, functional in ((scalar, "hessian"), (vector, "jacobian")):
        results = [getattr(T.autograd.functional, functional)(fn, T.tensor(data, dtype=T.float64))
                   for T in LIBS]
        np.testing.assert_allclose(to_np(results[0]), to_np(results[1]), rtol=RTOL, err_msg=functional)


SAVED_CASES = {
    "mul": lambda lib, x, y: x * y,
    "mul by a number": lambda lib, x, y: x * 2,
    "div": lambda lib, x, y: x / y,
    "pow": lambda lib, x, y: x.abs() ** 1.5,
    "pow tensor": lambda lib, x, y: x.abs() ** y,
    "exp": lambda lib, x, y: x.exp(),
    "log": lambda lib, x, y: y.abs().log(),
    "tanh": lambda lib, x, y: x.tanh(),
    "sigmoid": lambda lib, x, y: x.sigmoid(),
    "relu": lambda lib, x, y: x.relu(),
    "sin": lambda lib, x, y: x.sin(),
    "mm": lambda lib, x, y: x.reshape(2, 3).mm(y.reshape(3, 2)),
    "softmax": lambda lib, x, y: x.softmax(0),
    "log_softmax": lambda lib, x, y: x.log_softmax(0),
    "max": lambda lib, x, y: x.max(),
    "maximum": lambda lib, x, y: lib.maximum(x, y),
}


@pytest.mark.parametrize("case", SAVED_CASES)
def test_saved_tensors_by_pytorchs_names(case):
    """node._saved_<name>: the same names as PyTorch's nodes, holding the same values; the same
    identity rules (a saved input is the input itself; a saved result is a new tensor)."""
    rng = np.random.default_rng(3)
    xv, yv = rng.normal(size=6), rng.normal(size=6)
    seen = []
    for lib in (al, torch):
        x = lib.tensor(xv, requires_grad=True)
        y = lib.tensor(yv, requires_grad=True)
        out = SAVED_CASES[case](lib, x, y)
        node = out.grad_fn
        tensors = {}
        for name in dir(node):
            if name.startswith("_saved_"):
                value = getattr(node, name)
                if isinstance(value, (al.Tensor, torch.Tensor)) or value is None:
                    tensors[name] = value
        seen.append((node, tensors, x, y, out))
    (ours, our_saved, ax, ay, aout), (theirs, their_saved, tx, ty, tout) = seen
    assert our_saved, f"{type(ours).__name__} names nothing it saves"
    for name, value in our_saved.items():
        assert name in their_saved, f"{type(ours).__name__}.{name}: PyTorch has no such attribute"
        other = their_saved[name]
        assert (value is None) == (other is None), name
        if value is not None:
            np.testing.assert_allclose(value.detach().numpy(), other.detach().numpy(), rtol=1e-12)
            assert (value is ax, value is ay) == (other is tx, other is ty), name
            assert value is not aout and other is not tout, name
    aout.sum().backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        getattr(ours, next(iter(our_saved)))


def _graph_signature(t) -> list:
    """The backward graph as PyTorch would list it: each node's name and its edges' names, in a
    depth-first order from the output (AccumulateGrad nodes by name only)."""
    out, seen, stack = [], set(), [t.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        edges = [None if n is None else type(n).__name__ for n, _ in node.next_functions]
        out.append((type(node).__name__, edges))
        stack.extend(n for n, _ in reversed(node.next_functions) if n is not None)
    return out


def test_matmul_builds_pytorchs_graph_for_every_shape():
    """matmul decomposes as PyTorch's (dot, mv, mm, folding into mm/mv, expand + bmm, squeezing a
    batch of one): the same nodes, values and gradients, for random shapes and requires_grad."""
    rng = np.random.default_rng(11)
    for trial in range(300):
        k = int(rng.integers(1, 4))
        da, db = (int(d) for d in rng.integers(1, 5, size=2))
        batch = [int(s) for s in rng.choice([1, 2, 3], size=4)]
        a_shape = tuple(b if rng.random() < 0.7 else 1 for b in batch[4 - max(da - 2, 0):]) + \
            ((int(rng.integers(1, 4)), k) if da > 1 else (k,))
        b_shape = tuple(b if rng.random() < 0.7 else 1 for b in batch[4 - max(db - 2, 0):]) + \
            ((k, int(rng.integers(1, 4))) if db > 1 else (k,))
        a_shape, b_shape = a_shape[-da:] if da > 1 else a_shape, b_shape[-db:] if db > 1 else b_shape
        grads = [bool(g) for g in rng.integers(0, 2, size=2)]
        if not any(grads):
            grads[0] = True
        transposed = da > 1 and rng.random() < 0.3  # a non-contiguous left operand
        av, bv = rng.normal(size=a_shape), rng.normal(size=b_shape)
        if transposed:
            av = np.ascontiguousarray(np.swapaxes(av, -1, -2))
        results = []
        for lib in (al, torch):
            a = lib.tensor(av, requires_grad=grads[0])
            b = lib.tensor(bv, requires_grad=grads[1])
            left = a.mT if transposed else a
            try:
                z = left @ b
            except RuntimeError as e:
                results.append(str(e))
                continue
            z.sum().backward() if z.requires_grad else None
            results.append((z.detach().numpy(), [None if t.grad is None else t.grad.numpy()
                                                 for t in (a, b)], _graph_signature(z)))
        where = f"trial {trial}: {left.shape} @ {b_shape}, requires_grad {grads}"
        ours, theirs = results
        if isinstance(theirs, str) or isinstance(ours, str):
            assert ours == theirs, where
            continue
        np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-10, atol=1e-12, err_msg=where)
        for g, h in zip(ours[1], theirs[1]):
            assert (g is None) == (h is None), where
            if g is not None:
                np.testing.assert_allclose(g, h, rtol=1e-10, atol=1e-12, err_msg=where)
        assert ours[2] == theirs[2], where


@oracle
def test_saved_tensors_freed_and_version_checked_like_torch():
    for lib in (al, torch):
        x = lib.tensor([0.5, 0.25], requires_grad=True)
        y = x * 1
        z = y.log1p()
        y.mul_(2)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            z.sum().backward()
        w = (x * 1).expm1()
        w.sum().backward()
        with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
            w.grad_fn._saved_result  # noqa: B018 - reading it must raise


@pytest.mark.parametrize("name", ["gather0", "scatter_src", "scatter_add_repeated", "index_select",
                                  "index_add_alpha", "index_copy", "masked_select", "take", "addmm",
                                  "addmv", "baddbmm", "flip", "roll", "repeat", "diag_mat", "trace",
                                  "tril", "outer", "einsum_diag", "einsum_bilinear"])
@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
def test_second_derivatives_against_torch(name):
    """d/dx of sum(dL/dx * w): the double backward graphs give PyTorch's values."""
    results = []
    for lib in (al, torch):
        inputs, out = run_case(lib, name)
        w = lib.tensor(uniform(tuple(out.shape), seed=11), dtype=out.dtype)
        grads = lib.autograd.grad((out * w).sum(), inputs, create_graph=True, allow_unused=True)
        total = sum((g * g).sum() for g in grads if g is not None and g.requires_grad)
        if not isinstance(total, int):
            total.backward()
        results.append([None if x.grad is None else to_np(x.grad) for x in inputs])
    for a, t in zip(*results):
        assert (a is None) == (t is None)
        if a is not None:
            np.testing.assert_allclose(a, t, rtol=1e-9, atol=1e-12)


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
@pytest.mark.parametrize("op, names", [
    ("gather", ("self", "index")), ("take", ("self", "index")), ("masked_select", ("self", "mask")),
    ("index_select", ("index",)), ("addmm", ("mat1", "mat2")), ("addmv", ("mat", "vec")),
    ("baddbmm", ("batch1", "batch2")), ("index_add", ("index", "source")), ("scatter_add", ("index",)),
])
def test_saved_tensors_have_torchs_names(op, names):
    def build(L):
        x = L.tensor(uniform((3, 4)), dtype=L.float32, requires_grad=True)
        idx = I(L, [[0, 1, 2, 0]])
        return {
            "gather": lambda: L.gather(x, 0, idx),
            "take": lambda: L.take(x, I(L, [1, 2])),
            "masked_select": lambda: L.masked_select(x, x > 0),
            "index_select": lambda: L.index_select(x, 0, I(L, [1])),
            "addmm": lambda: L.addmm(x, L.ones(3, 2, requires_grad=True), L.ones(2, 4, requires_grad=True)),
            "addmv": lambda: L.addmv(x[0, :3], x, L.ones(4, requires_grad=True)),
            "baddbmm": lambda: L.baddbmm(x, L.ones(1, 3, 2, requires_grad=True), L.ones(1, 2, 4,
                                                                                       requires_grad=True)),
            "index_add": lambda: L.index_add(x, 0, I(L, [1]), L.ones(1, 4, requires_grad=True)),
            "scatter_add": lambda: L.scatter_add(x, 0, idx, L.ones(1, 4, requires_grad=True)),
        }[op]()

    ours, theirs = build(al), build(torch)
    for n in names:
        a, t = getattr(ours.grad_fn, f"_saved_{n}"), getattr(theirs.grad_fn, f"_saved_{n}")
        np.testing.assert_allclose(to_np(a), to_np(t))
        assert str(a.dtype) == str(t.dtype)
