"""The recorded fast paths (issue 17) build what the general path builds.

``+ - * /`` of plain tensors, or of a tensor and a Python number, and ``@`` of two plain matrices
skip ``Function.apply``'s general steps (:func:`autograd_lab.function.record_binary`), and a tensor
saved at version 0 is kept as it is, not in a ``SavedTensor``. Each case here is recorded both ways,
through the operator and through ``Function.apply`` itself, and every part of the two nodes is
compared: class, edges, saved tensors, metadata, the result's values, dtype and layout, and the
gradients of a backward through each; then what must still raise does.
"""

from __future__ import annotations

import contextlib

import numpy as np
import pytest
from helpers import torch

import autograd_lab as al
from autograd_lab import function, testing
from autograd_lab.function import SavedTensor, record_binary
from autograd_lab.ops import arithmetic, indexing, linalg, logarithmic, pointwise, reduction
from autograd_lab.ops import methods as methods_module
from autograd_lab.ops.promotion import binary_operands

OPS = {  # operator, its Function, the extra arguments Function.apply takes
    "add": (lambda a, b: a + b, arithmetic.Add, (1,)),
    "sub": (lambda a, b: a - b, arithmetic.Sub, (1,)),
    "mul": (lambda a, b: a * b, arithmetic.Mul, ()),
    "div": (lambda a, b: a / b, arithmetic.Div, ()),
}


def _operand(kind: str, shape: tuple, dtype: type, seed: int):
    """A leaf that requires grad, a non-leaf, a constant tensor, or a Python int or float."""
    rng = np.random.default_rng(seed)
    if kind == "int":
        return 3
    if kind == "float":
        return 0.37
    data = (rng.standard_normal(shape) + 2.0).astype(dtype)
    if kind == "const":
        return al.tensor(data)
    leaf = al.tensor(data, requires_grad=True)
    return leaf if kind == "leaf" else leaf * 1.5


def _both(op: str, a, b):
    """The node from the operator (the fast path) and from Function.apply (the general one)."""
    fn, cls, extra = OPS[op]
    fast = fn(a, b)
    general = cls.apply(*binary_operands(a, b), *extra)
    return fast, general


def _unpacked(node) -> list:
    return [None if t is None else (t._data.tolist(), str(t.dtype)) for t in node.saved_tensors]


def _same_nodes(fast, general) -> None:
    f, g = fast.grad_fn, general.grad_fn
    assert type(f) is type(g)
    assert [(type(n), nr) for n, nr in f.next_functions] == [(type(n), nr) for n, nr in g.next_functions]
    for (nf, _), (ng, _) in zip(f.next_functions, g.next_functions):
        assert nf is ng or (type(nf).__name__ == "AccumulateGrad" and nf.variable is ng.variable)
    for slot in ("_tensor_positions", "_input_meta", "needs_input_grad", "_output_meta", "_num_inputs",
                 "_never_saved"):
        assert getattr(f, slot) == getattr(g, slot), slot
    assert [type(s) for s in f._saved] == [type(s) for s in g._saved]
    assert _unpacked(f) == _unpacked(g)
    for name in type(f)._forward_cls.saved_names:
        sf, sg = getattr(f, f"_saved_{name}"), getattr(g, f"_saved_{name}")
        assert (sf is None) == (sg is None), name
        if sf is not None:
            assert sf.dtype == sg.dtype and sf.tolist() == sg.tolist(), name
    assert fast.dtype == general.dtype and fast.stride() == general.stride()
    np.testing.assert_array_equal(fast._data, general._data)


CASES = [(op, ka, kb, shapes, dtype)
         for op in OPS
         for ka, kb in [("leaf", "leaf"), ("leaf", "nonleaf"), ("nonleaf", "const"), ("const", "leaf"),
                        ("leaf", "float"), ("nonleaf", "int")]
         for shapes in [((3, 4), (3, 4)), ((2, 3), (3,)), ((), ())]
         for dtype in (np.float32, np.float64, np.float16)]


@pytest.mark.parametrize(("op", "ka", "kb", "shapes", "dtype"), CASES)
def test_the_fast_path_records_what_function_apply_records(op, ka, kb, shapes, dtype):
    a = _operand(ka, shapes[0], dtype, 0)
    b = _operand(kb, shapes[1], dtype, 1)
    fast, general = _both(op, a, b)
    _same_nodes(fast, general)
    leaves = [t for t in (a, b) if isinstance(t, al.Tensor) and t.requires_grad]
    grads = {}
    for name, out in (("fast", fast), ("general", general)):
        grads[name] = [g._data.copy() for g in al.autograd.grad(out.sum(), leaves, retain_graph=True)]
    for gf, gg in zip(grads["fast"], grads["general"]):
        assert gf.dtype == gg.dtype
        np.testing.assert_array_equal(gf, gg)


@contextlib.contextmanager
def _spying(module):
    """The Functions ``module`` hands to record_binary meanwhile, by name (a spy in its place)."""
    calls = []

    def spy(*args, **kwargs):
        calls.append(args[0].__name__)
        return record_binary(*args, **kwargs)

    original = module.record_binary
    module.record_binary = spy
    try:
        yield calls
    finally:
        module.record_binary = original


def test_the_fast_path_is_taken():
    """The operators above do go through record_binary (else the comparisons prove nothing)."""
    a = al.ones(2, 3, requires_grad=True)
    with _spying(arithmetic) as calls:
        for fn, _, _ in OPS.values():
            fn(a, a)
            fn(a, 2.0)
        a.t() * 2.0  # a view: the general path
        al.ones(2, 3, dtype=al.float64, requires_grad=True) * a  # two dtypes: the general path
    assert calls == ["Add", "Add", "Sub", "Sub", "Mul", "Mul", "Div", "Div"]


def test_a_tensor_saved_as_it_is_still_checks_its_version():
    a = al.tensor([1.0, 2.0], requires_grad=True)
    b = al.tensor([3.0, 4.0], requires_grad=True)
    y = a * 1.0
    z = y * b
    assert not isinstance(z.grad_fn._saved[0], SavedTensor)  # kept as it is: never changed
    y.add_(1)
    with pytest.raises(RuntimeError, match=r"\[torch.FloatTensor \[2\]\], which is output 0 of Add, is at "
                       "version 1; expected version 0 instead"):  # (PyTorch 2.13's text)
        z.sum().backward()
    with pytest.raises(RuntimeError, match="is at version 1; expected version 0"):
        _ = z.grad_fn._saved_self


def test_a_tensor_changed_before_it_is_saved_keeps_its_version():
    a = al.tensor([1.0, 2.0], requires_grad=True)
    y = a * 1.0
    y.add_(1)  # version 1 when saved: a SavedTensor
    z = y * a
    assert isinstance(z.grad_fn._saved[0], SavedTensor)
    z.sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [3.0, 5.0])  # y + a: (a + 1) + a
    y2 = a * 1.0
    y2.add_(1)
    z2 = y2 * a
    y2.mul_(2)
    with pytest.raises(RuntimeError, match="is at version 2; expected version 1"):
        z2.sum().backward()


def test_a_broadcast_that_fails_keeps_pytorchs_message():
    a = al.ones(2, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"size of tensor a \(3\) must match the size of tensor b \(4\)"):
        a * al.ones(4)
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y = a * a
        y.sum().backward()
        y.sum().backward()


MM_CASES = [(ka, kb, shapes, dtype)
            for ka, kb in [("leaf", "leaf"), ("const", "leaf"), ("leaf", "const"), ("nonleaf", "leaf"),
                           ("leaf", "nonleaf")]
            for shapes in [((3, 4), (4, 2)), ((1, 4), (4, 3)), ((3, 1), (1, 4)), ((4, 1), (1, 1)),
                           ((2, 3), (3, 1))]
            for dtype in (np.float32, np.float64, np.float16)]


@pytest.mark.parametrize(("ka", "kb", "shapes", "dtype"), MM_CASES)
def test_the_matmul_fast_path_records_what_function_apply_records(ka, kb, shapes, dtype):
    """Matrices of one shape or another (a row, a column, an outer product: mm's own kernel), leaves,
    results and constants: the same node as ``Mm.apply``, its layout flags, gradients and their layout."""
    a = _operand(ka, shapes[0], dtype, 0)
    b = _operand(kb, shapes[1], dtype, 1)
    fast, general = a @ b, linalg.Mm.apply(a, b)
    _same_nodes(fast, general)
    assert fast.grad_fn.column_major == general.grad_fn.column_major
    leaves = [t for t in (a, b) if t.requires_grad]
    out = {}
    for name, y in (("fast", fast), ("general", general)):
        grads = al.autograd.grad(y.sum(), leaves, retain_graph=True)
        out[name] = [(g._data.copy(), g.stride()) for g in grads]
    for (gf, sf), (gg, sg) in zip(out["fast"], out["general"]):
        assert gf.dtype == gg.dtype and sf == sg
        np.testing.assert_array_equal(gf, gg)


def test_the_matmul_fast_path_is_taken_and_left_where_it_must_be():
    a = al.ones(2, 3, requires_grad=True)
    b = al.ones(3, 4)
    with _spying(linalg) as calls:
        a @ b
        a.t().t() @ b  # a view: the general path (its gradient edge goes through the view)
        a @ b.double().float()  # (a result of another op: still the fast path)
        with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 2x3\)"):
            a @ al.ones(2, 3)
        with pytest.raises(RuntimeError, match="expected m1 and m2 to have the same dtype, but got: float "
                           "!= double"):
            a @ b.double()
    assert calls == ["Mm", "Mm"]


@pytest.mark.parametrize("op", [*OPS, "matmul"])
def test_nothing_to_record_gives_the_general_paths_result(op):
    """With no operand that requires grad, or under no_grad, the fast paths compute the kernel alone:
    the same values, dtype and layout as Function.apply's forward, and no graph."""
    x = _operand("leaf", (3, 4), np.float32, 0)
    y = _operand("const", (4, 4) if op == "matmul" else (3, 4), np.float32, 1)
    fn, cls, extra = (lambda p, q: p @ q, linalg.Mm, ()) if op == "matmul" else OPS[op]
    for a, b in ((x.detach(), y), (x.detach(), 2.5), (x, y)):
        if op == "matmul" and not isinstance(b, al.Tensor):
            continue
        with al.no_grad():
            fast, general = fn(a, b), cls.apply(*binary_operands(a, b), *extra)
        assert fast.grad_fn is None and not fast.requires_grad
        assert fast.dtype == general.dtype and fast.stride() == general.stride()
        np.testing.assert_array_equal(fast._data, general._data)
    assert fn(x.detach(), y).grad_fn is None


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_relus_gradient_kernel_is_where_bit_for_bit(dtype):
    """relu's gradient without create_graph masks the gradient's bits with a mask made from the result's
    bits (no bool array widened): the same bits as ``where(result != 0, grad, 0)`` for +-0.0, nan of
    either sign, inf and subnormal results, and nan, inf and -0.0 gradients, in every layout."""
    from autograd_lab.ops.comparison import _kept_where
    from autograd_lab.ops.pointwise import _threshold_grad
    from autograd_lab.ops.promotion import iterator_layout

    rng = np.random.default_rng(17)
    out = np.maximum(dtype(0), rng.standard_normal((37, 29)).astype(dtype))
    tiny = np.finfo(dtype).smallest_subnormal
    out.ravel()[:8] = np.array([0.0, -0.0, np.nan, -np.nan, np.inf, tiny, -0.0, 5.0], dtype=dtype)
    g = rng.standard_normal((37, 29)).astype(dtype)
    g.ravel()[8:12] = [np.nan, -np.inf, -0.0, np.inf]
    for o, gg in ((out, g), (out.T, g.T), (out.T, np.ascontiguousarray(g.T)), (out[:, ::2], g[:, ::2]),
                  (out[0], g[0]), (out[0, 0], g[0, 0])):
        ours, where = _threshold_grad(o, gg), np.asarray(_kept_where(o != 0, gg))
        assert ours.dtype == gg.dtype and ours.shape == where.shape
        assert np.ascontiguousarray(ours).tobytes() == np.ascontiguousarray(where).tobytes()
        if ours.ndim and not (o.flags.c_contiguous and gg.flags.c_contiguous):
            assert ours.strides == iterator_layout(where, o, gg).strides


UNARY = {  # function, its Function (Function.apply takes the tensor alone)
    "neg": (al.neg, arithmetic.Neg), "exp": (al.exp, pointwise.Exp), "log": (al.log, pointwise.Log),
    "tanh": (al.tanh, pointwise.Tanh), "relu": (al.relu, pointwise.Relu),
}


@pytest.mark.filterwarnings("ignore:var_mean")  # (degrees of freedom <= 0 for an empty one, as PyTorch warns)
@pytest.mark.parametrize("op", UNARY)
@pytest.mark.parametrize("kind", ["leaf", "nonleaf", "output 1"])
@pytest.mark.parametrize("shape", [(3, 4), (), (0, 2)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_the_unary_fast_path_records_what_function_apply_records(op, kind, shape, dtype):
    """fast_unary's node (edge, saved self or result, metadata), result and gradients are
    Function.apply's, for leaves and results (a second output too: its edge's output_nr), every float
    dtype, 0-d and empty tensors."""
    fn, cls = UNARY[op]
    data = np.random.default_rng(2).standard_normal(shape).astype(dtype)  # negatives: relu's 0, log's nan
    leaf = al.tensor(data, requires_grad=True)
    a = {"leaf": leaf, "nonleaf": leaf * 1.5,  # (var_mean's mean: output 1 of its node)
         "output 1": al.var_mean(leaf.unsqueeze(0), 0, correction=0)[1]}[kind]
    fast, general = fn(a), cls.apply(a)
    _same_nodes(fast, general)
    assert fast.requires_grad and fast.grad_fn is not general.grad_fn
    gf, gg = (al.autograd.grad(out.sum(), leaf, retain_graph=True)[0]._data for out in (fast, general))
    assert gf.dtype == gg.dtype
    np.testing.assert_array_equal(gf, gg)


def test_the_unary_fast_path_is_taken_only_where_it_applies():
    calls = []
    original = function.fast_unary

    def spy(cls, kernel, a, *args):
        out = original(cls, kernel, a, *args)
        calls.append((cls.__name__, out is not None))
        return out

    modules = (arithmetic, pointwise, logarithmic, reduction, indexing)
    for m in modules:
        m.fast_unary = spy
    try:
        a = al.ones(2, 3, requires_grad=True)
        for fn, _ in UNARY.values():
            fn(a)
        a.log_softmax(1)
        a[al.tensor([1, 0]), al.tensor([2, 2])]
        a.mean()
        a.mean(0)  # over a dim, or in another dtype: Function.apply alone (no spy called)
        a.mean(dtype=al.float64)
        -a.t()  # a view
        al.relu(al.ones(2, 3))  # nothing requires grad
        al.exp(al.ones(2, 3, dtype=al.int64))  # an integer tensor: the general path promotes it
        with al.no_grad():
            al.tanh(a)
        with al.inference_mode():
            al.log(al.ones(2, requires_grad=True))
    finally:
        for m in modules:
            m.fast_unary = original
    assert calls == [("Neg", True), ("Exp", True), ("Log", True), ("Tanh", True), ("Relu", True),
                     ("LogSoftmax", True), ("Index", True), ("MeanAll", True),
                     ("Neg", False), ("Relu", False), ("Exp", False), ("Tanh", False), ("Log", False)]


@pytest.mark.parametrize("op", ["exp", "tanh", "relu", "log"])
def test_a_saved_tensor_of_the_unary_fast_path_checks_its_version(op):
    """exp, tanh and relu save their result, log its input: changed in place, backward raises
    PyTorch's error, naming the op that made the saved result, or the in-place add that changed
    the saved input (PyTorch 2.13's texts)."""
    fn, _ = UNARY[op]
    a = al.tensor([1.0, 2.0], requires_grad=True)
    x = a * 1.0
    y = fn(x)
    (x if op == "log" else y).add_(1)
    name = "Add" if op == "log" else op.capitalize()
    with pytest.raises(RuntimeError, match=rf"\[2\]\], which is output 0 of {name}, is at version 1; "
                       "expected version 0 instead"):
        y.sum().backward()


WITH_ARGUMENTS = {  # the call, and the same call through Function.apply
    "log_softmax(-1)": (lambda a: a.log_softmax(-1), lambda a: logarithmic.LogSoftmax.apply(a, -1)),
    "log_softmax(0)": (lambda a: al.log_softmax(a, 0), lambda a: logarithmic.LogSoftmax.apply(a, 0)),
    "mean()": (lambda a: a.mean(), lambda a: reduction.MeanAll.apply(a, tuple(range(a.ndim)), False, None)),
}


@pytest.mark.filterwarnings("ignore:var_mean")
@pytest.mark.parametrize("op", WITH_ARGUMENTS)
@pytest.mark.parametrize("kind", ["leaf", "nonleaf", "output 1"])
@pytest.mark.parametrize("shape", [(3, 4), (5,), (), (0, 2)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_the_fast_path_of_ops_with_arguments_sets_what_their_forward_sets(op, kind, shape, dtype):
    """log_softmax and mean() take fast_unary too: their nodes also carry what the forward sets on its
    ctx (``dim`` and ``_saved_dim``; ``shape``, ``dims``, ``keepdim``, ``count``), compared here."""
    fast_fn, general_fn = WITH_ARGUMENTS[op]
    data = np.random.default_rng(3).standard_normal(shape).astype(dtype)
    leaf = al.tensor(data, requires_grad=True)
    a = {"leaf": leaf, "nonleaf": leaf * 1.5,
         "output 1": al.var_mean(leaf.unsqueeze(0), 0, correction=0)[1]}[kind]
    fast, general = fast_fn(a), general_fn(a)
    _same_nodes(fast, general)
    assert vars(fast.grad_fn) == vars(general.grad_fn) and vars(fast.grad_fn)
    gf, gg = (al.autograd.grad(out.sum(), leaf, retain_graph=True)[0]._data for out in (fast, general))
    assert gf.dtype == gg.dtype
    np.testing.assert_array_equal(gf, gg)


@pytest.mark.filterwarnings("ignore:var_mean")
@pytest.mark.parametrize("kind", ["leaf", "nonleaf", "output 1"])
@pytest.mark.parametrize(("shape", "key"), [((3, 4), ([2, 0, 2], [3, 0, 1])), ((5,), ([4, 0, 4],)),
                                             ((2, 3, 2), ([[1], [0]], [[2, 0]])), ((4, 2), ([-1, 0],))])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_fast_path_of_indexing_by_integer_tensors_records_what_index_records(kind, shape, key, dtype):
    """``logp[rows, targets]``: fast_unary with the index tensors saved (as Index.forward saves them),
    ``shape`` and ``layout`` set; repeated indices (their gradients add up), broadcast index tensors,
    negative indices."""
    data = np.random.default_rng(4).standard_normal(shape).astype(dtype)
    leaf = al.tensor(data, requires_grad=True)
    a = {"leaf": leaf, "nonleaf": leaf * 1.5,
         "output 1": al.var_mean(leaf.unsqueeze(0), 0, correction=0)[1]}[kind]
    index = tuple(al.tensor(k) for k in key)
    fast, general = a[index], indexing.Index.apply(a, tuple(k._data for k in index), index)
    _same_nodes(fast, general)
    assert vars(fast.grad_fn) == vars(general.grad_fn)
    gf, gg = (al.autograd.grad((o * o).sum(), leaf, retain_graph=True)[0]._data for o in (fast, general))
    np.testing.assert_array_equal(gf, gg)


def test_indexing_out_of_bounds_still_raises_pytorchs_error_and_records_nothing():
    a = al.ones(3, 4, requires_grad=True) * 2
    with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 0 with size 3"):
        a[al.tensor([0, 5]), al.tensor([1, 1])]
    assert np.geterr()["invalid"] != "ignore"  # NumPy's error state restored after the kernel raised
    assert a[al.tensor([0, 2]), al.tensor([1, 1])].grad_fn.name() == "IndexBackward0"


def _spying_backward(monkeypatch):
    """The calls of engine._make_grads (the general entry's checks of the outputs) meanwhile; every
    backward still goes through run_backward (notebooks count backward passes there)."""
    from autograd_lab import engine

    calls = []
    general = engine._make_grads
    monkeypatch.setattr(engine, "_make_grads", lambda *a, **k: calls.append(a) or general(*a, **k))
    return calls


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("shape", [(), (1,), (1, 1)])
def test_loss_backward_starts_at_the_loss_node_directly_with_the_same_results(monkeypatch, shape, dtype):
    calls = _spying_backward(monkeypatch)
    with testing.spy("autograd_lab.engine.run_backward", keep=False) as passes:
        grads = []
        for fast in (True, False):
            w = al.tensor(np.array([[1.5, -2.0]], dtype=dtype), requires_grad=True)
            b = al.tensor(np.array([0.25], dtype=dtype), requires_grad=True)
            loss = ((w * w).sum(1) + b).sum().reshape(shape) * 3
            if fast:
                loss.backward()
            else:  # the general entry: a gradient given, checked by _make_grads
                al.autograd.backward(loss, al.ones_like(loss))
            grads.append([(t.grad._data.tolist(), t.grad._data.dtype, t.grad._version) for t in (w, b)])
            with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
                loss.backward()  # freed: retain_graph defaulted to False
    assert grads[0] == grads[1]
    assert len(calls) == 1  # the general entry's alone: each loss.backward() started at the loss's node
    assert passes.count == 4  # every backward is still a pass of run_backward: notebooks count the
    # learner's backward passes there


def test_what_the_loss_backward_entry_leaves_to_the_general_one(monkeypatch):
    calls = _spying_backward(monkeypatch)
    x = al.tensor([1.0, 2.0], requires_grad=True)
    (x * 2).backward(al.tensor([1.0, 1.0]))  # a gradient given
    (x * 2).sum().backward(inputs=[x])  # inputs=
    x.sum(0, keepdim=True).view(()).backward()  # a view: its history may need a refresh
    al.tensor(1.0, requires_grad=True).backward()  # a leaf: no grad_fn
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        (x * 2).backward()
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad"):
        al.tensor(1.0).backward()
    with pytest.raises(RuntimeError, match="got 1 tensors and 2 gradients"):
        al.autograd.backward([(x * 2).sum()], [None, None])
    assert len(calls) == 7
    y = (x * 2).sum()
    y.backward(retain_graph=True)  # the fast entry keeps the graph when asked
    y.backward()
    with pytest.warns(UserWarning, match="reference cycle"):
        (x * 2).sum().backward(create_graph=True)  # create_graph: its warning, then the fast entry
    assert len(calls) == 7 and x.grad.tolist() == [2 + 2 + 1 + 2 + 2 + 2.0] * 2


def test_the_operators_fast_path_keeps_pythons_rules_for_other_operands():
    """``x * y`` tries the fast path before ``mul`` itself: what it cannot take still reaches ``mul``,
    and an operand of another kind still gets ``NotImplemented`` (Python then asks the other operand)."""

    class Dual:  # a class of one's own, as notebook 09's dual numbers
        def __rmul__(self, other):
            return "Dual.__rmul__"

        __radd__ = __rsub__ = __rtruediv__ = __rmul__

    x = al.ones(2, 3, requires_grad=True)
    texts = {  # PyTorch's (x * "s" is a sequence repeated, for Python)
        "add": "unsupported operand type(s) for +: 'Tensor' and 'str'",
        "sub": "unsupported operand type(s) for -: 'Tensor' and 'str'",
        "mul": "only integer tensors of a single element can be converted to an index",
        "div": "unsupported operand type(s) for /: 'Tensor' and 'str'",
    }
    for op, (fn, _, _) in OPS.items():
        assert fn(x, Dual()) == "Dual.__rmul__"
        with pytest.raises(TypeError) as info:
            fn(x, "a string")
        assert str(info.value) == texts[op]
    # what the fast path leaves (a view, two dtypes, broadcasting, an int tensor) gives mul's results
    for a, b in [(x.t(), 2.0), (x, al.ones(3, dtype=al.float64)), (x, al.ones(2, 1)),
                 (al.arange(6).reshape(2, 3), x)]:
        for op, (fn, _, _) in OPS.items():
            out, expected = fn(a, b), getattr(al, op)(a, b)
            assert out.dtype == expected.dtype and out.grad_fn.name() == expected.grad_fn.name()
            np.testing.assert_array_equal(out._data, expected._data)


def test_a_leafs_accumulate_grad_is_kept_while_a_graph_holds_it_and_made_again_after():
    """record_binary finds a leaf's AccumulateGrad itself (gradient_edge's steps inline): the same node
    for every op while a graph holds it, a new one once none does, ``.variable`` the leaf each time."""
    a, b = al.ones(2, 3, requires_grad=True), al.ones(2, 3, requires_grad=True)
    y = a * b
    first = y.grad_fn.next_functions[0][0]
    z = a + 2.0
    assert z.grad_fn.next_functions[0][0] is first and first.variable is a
    assert (a * 3.0).grad_fn.next_functions[0][0] is al.function.gradient_edge(a)[0] is first
    del y, z, first
    again = (a * b).grad_fn.next_functions
    assert type(again[0][0]).__name__ == "AccumulateGrad" and again[0][0].variable is a
    assert again[1][0].variable is b
    (a * b).sum().backward()
    np.testing.assert_array_equal(a.grad._data, np.ones((2, 3), np.float32))


def test_is_view_says_what_pytorchs_says():
    torch = pytest.importorskip("torch")
    for lib in (al, torch):
        x = lib.ones(4, 3)
        W, b = lib.ones(3, 2, requires_grad=True), lib.ones(2, requires_grad=True)
        g = lib.autograd.grad((x @ W + b).sum(), b)[0]  # (a sum viewed without its leading dim)
        got = [x._is_view(), x[0]._is_view(), x.t()._is_view(), (x * 2)._is_view(), g._is_view()]
        assert got == [False, True, True, False, True], lib.__name__


def test_a_gradient_nothing_else_holds_becomes_grad_without_a_copy(monkeypatch):
    """The engine hands AccumulateGrad a gradient only it holds; a weight's first gradient, as the matrix
    product made it, is then ``.grad`` itself (PyTorch's AccumulateGrad steals it so). The bias's gradient
    is a view of the sum (copied), and what anything else holds is copied, never shared."""
    copies = []
    real = function._grad_copy
    monkeypatch.setattr(function, "_grad_copy", lambda g, v: (copies.append(g.shape), real(g, v))[1])
    x = al.ones(4, 3)
    w = al.full((3, 2), 2.0, requires_grad=True)
    b = al.zeros(2, requires_grad=True)
    (x @ w + b).sum().backward()
    assert copies == [(2,)]  # the bias's; w's gradient taken as it is
    assert w.grad.tolist() == [[4.0, 4.0]] * 3 and b.grad.tolist() == [4.0, 4.0]
    assert w.grad._version == 0 and not w.grad._is_view() and w.grad.grad_fn is None
    (x @ w).sum().backward()  # a second gradient is added into the first, in place
    assert w.grad.tolist() == [[8.0, 8.0]] * 3 and w.grad._version == 1

    # held elsewhere: copied. The gradient given to backward (through AddBackward0, twice in its result):
    v = al.zeros(3, requires_grad=True)
    given = al.ones(3)
    (v + 0).backward(given)
    v.grad.add_(1)
    assert given.tolist() == [1.0, 1.0, 1.0]

    kept = []

    class Keep(al.autograd.Function):  # a backward that keeps what it returns
        @staticmethod
        def forward(ctx, t):
            return t.clone()

        @staticmethod
        def backward(ctx, g):
            out = g * 3
            kept.append(out)
            return out

    u = al.zeros(3, requires_grad=True)
    Keep.apply(u * 1).sum().backward()
    u.grad.add_(1)
    assert kept[0].tolist() == [3.0, 3.0, 3.0] and u.grad.tolist() == [4.0, 4.0, 4.0]

    grads = []
    s = al.zeros(2, requires_grad=True)
    s.register_hook(lambda g: grads.append(g))  # a hook: the engine's general path, copied
    (s * 2).sum().backward()
    s.grad.add_(1)
    assert grads[0].tolist() == [2.0, 2.0]


def test_a_new_grad_has_the_variables_layout_as_pytorchs():
    """PyTorch's ``clone_obey_contract``: ``.grad`` takes the variable's strides, whatever the layout of the
    gradient backward computed (a transposed product's gradient of a row-major weight is row-major)."""
    cases = {"transposed gradient": lambda m: m.ones(2, 3, requires_grad=True),
             "transposed leaf": lambda m: m.ones(3, 2).t().requires_grad_()}
    for name, make in cases.items():
        got = []
        for m in (al, torch) if torch is not None else (al,):
            w = make(m)
            (w.t() if name == "transposed gradient" else w.contiguous()).mul(2).sum().backward()
            got.append((w.grad.stride(), w.grad.is_contiguous(), w.grad.tolist()))
        assert got[0][:2] == ({"transposed gradient": (3, 1), "transposed leaf": (1, 2)}[name],
                              name == "transposed gradient"), name
        assert len(set(map(repr, got))) == 1, (name, got)


def test_a_bias_gradient_summed_over_the_batch_becomes_grad_without_a_copy(monkeypatch):
    """A bias's gradient is the sum of its broadcast gradient over the batch, viewed without the leading
    dim: PyTorch's AccumulateGrad takes that view as ``grad.detach()`` (no copy, no view, its version).
    Where the sum's array is itself a view (of a broadcast gradient's sum, above), it is copied."""
    copies = []
    real = function._grad_copy
    monkeypatch.setattr(function, "_grad_copy", lambda g, v: (copies.append(g.shape), real(g, v))[1])
    got = []
    for m in (al, torch) if torch is not None else (al,):
        x = m.tensor(np.arange(12.0, dtype=np.float32).reshape(4, 3) - 5)
        w = m.tensor(np.linspace(-1, 1, 6, dtype=np.float32).reshape(3, 2), requires_grad=True)
        b = m.tensor([0.5, -0.25], requires_grad=True)
        (x @ w + b).relu().sum().backward()
        first = (b.grad.tolist(), b.grad._version, b.grad._is_view(), b.grad._base is None, b.grad.stride())
        (x @ w + b).relu().sum().backward()  # the second gradient added in place
        got.append((first, b.grad.tolist(), b.grad._version))
    assert copies == []  # neither w's nor b's gradient copied
    assert got[0][0][2:] == (False, True, (1,)) and got[0][0][1] == 0 and got[0][2] == 1
    assert len({repr(g) for g in got}) == 1, got


def _array_nodes(monkeypatch) -> list:
    """The names of the nodes the engine runs on arrays (apply_arrays given arrays, or Tensors it takes
    as their arrays), with whether the gradients came as arrays."""
    seen = []
    real = function.BackwardNode.apply_arrays

    def spy(self, grads, *release):
        arrays = all(isinstance(g, np.ndarray | np.generic) for g in grads)
        if arrays or all(type(g) is al.Tensor for g in grads):
            seen.append((self.name(), arrays))
        return real(self, grads, *release)
    monkeypatch.setattr(function.BackwardNode, "apply_arrays", spy)
    return seen


ARRAY_OPS = {  # ops whose node has backward_arrays (its name), each a function of a tensor requiring grad
    "mul": ("MulBackward0", lambda t: t * t * 0.5),
    "add alpha": ("AddBackward0", lambda t: t.add(t * 3, alpha=2)),
    "sub alpha": ("SubBackward0", lambda t: t.sub(t.exp(), alpha=0.5)),
    "neg": ("NegBackward0", lambda t: -t),
    "mm": ("MmBackward0", lambda t: t @ t.t()),
    "mm transposed": ("MmBackward0", lambda t: t.t() @ t),
    "relu": ("ReluBackward0", lambda t: (t - 0.5).relu()),
    "log_softmax": ("LogSoftmaxBackward0", lambda t: t.log_softmax(1)),
    "index": ("IndexBackward0", lambda t: t[[0, 1, 1], [2, 0, 2]]),
    "mean": ("MeanBackward0", lambda t: t.mean()),
    "mean dim": ("MeanBackward1", lambda t: t.mean(0, keepdim=True)),
    "addmm": ("AddmmBackward0", lambda t: (t.t() @ t).addmm(t.t(), t)),
    "linear": ("AddmmBackward0", lambda t: t[:, 0].addmm(t, t.exp().t())),  # (F.linear's: a bias, W.t())
    "addmm scaled": ("AddmmBackward0", lambda t: t[0].addmm(t.t(), t, beta=0.5, alpha=2)),
    "sigmoid": ("SigmoidBackward0", lambda t: t.sigmoid()),
    "tanh": ("TanhBackward0", lambda t: t.tanh()),
    "exp": ("ExpBackward0", lambda t: t.exp()),
    "softmax": ("SoftmaxBackward0", lambda t: t.softmax(1)),
    "softmax dim 0": ("SoftmaxBackward0", lambda t: t.softmax(0)),
}
LAST_BITS = ("mm", "mm transposed", "log_softmax", "addmm", "linear", "addmm scaled", "sigmoid", "tanh",
             "exp", "softmax dim 0")  # ops whose values differ from PyTorch's in the last bits (README)


@pytest.mark.parametrize("op", ARRAY_OPS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gradients_pass_between_nodes_as_arrays_with_the_tensor_formulas_values(monkeypatch, op, dtype):
    """Without create_graph the engine hands arrays from node to node (``backward_arrays``): the
    gradients are those of the Tensor formulas (backward, as create_graph records it), bit for bit, and
    PyTorch's, with the dtype, layout and version PyTorch gives ``.grad``."""
    seen = _array_nodes(monkeypatch)
    data = np.random.default_rng(1).standard_normal((2, 3)).astype(dtype)
    name, fn = ARRAY_OPS[op]
    x = al.tensor(data, requires_grad=True)
    y = fn(x)
    weights = al.tensor(np.linspace(0.5, 2, y.numel(), dtype=dtype).reshape(y.shape))
    (y * weights).mean().backward()
    assert (name, True) in seen, seen  # (the gradient from (y * weights)'s node: an array)
    x2 = al.tensor(data, requires_grad=True)
    y2 = fn(x2)
    (formula,) = al.autograd.grad((y2 * weights).mean(), x2, create_graph=True)
    assert np.array_equal(x.grad._data, formula._data) and x.grad.dtype == formula.dtype, op
    if torch is not None:
        t = torch.tensor(data, requires_grad=True)
        (fn(t) * torch.tensor(weights._data)).mean().backward()
        if op in LAST_BITS:
            tol = 1e-6 if dtype == np.float32 else 1e-14
            np.testing.assert_allclose(x.grad._data, t.grad.numpy(), rtol=tol, atol=tol)
        else:
            assert np.array_equal(x.grad._data, t.grad.numpy()), op
        assert (x.grad.stride(), x.grad._version) == (t.grad.stride(), t.grad._version), op


def test_a_gradient_with_a_version_or_a_view_is_handed_on_as_a_tensor(monkeypatch):
    """An array has no version: a gradient summed in the engine's buffer (version 1, as PyTorch's in-place
    add counts it) and passed on as it is leaves the node as that Tensor, so ``.grad`` keeps PyTorch's
    version; hooks and retain_grad see Tensors; a second backward through a freed node raises PyTorch's
    error."""
    seen = _array_nodes(monkeypatch)
    got = []
    for m in (al, torch) if torch is not None else (al,):
        x = m.tensor([1.0, -2.0], requires_grad=True)
        y = x * 3
        z = y * y  # y's node gets two gradients, summed (version 1)
        hooked = []
        y.register_hook(lambda g, hooked=hooked: hooked.append((type(g).__name__, g.tolist(), g._version)))
        z.retain_grad()
        z.sum().backward(retain_graph=True)
        got.append((x.grad.tolist(), x.grad._version, hooked, z.grad.tolist(), type(z.grad).__name__))
        (x * 2).sum().backward()
        with pytest.raises(RuntimeError) as e:
            (z * 1).sum().backward()
            (z * 1).sum().backward()
        got.append((x.grad.tolist(), x.grad._version, str(e.value)))
    assert got[0][0] == [18.0, -36.0] and got[0][2][0][0] == "Tensor" and got[0][4] == "Tensor"
    assert ("MulBackward0", False) in seen  # (the sum's gradient, a Tensor, taken by the array path)
    if torch is not None:
        assert got[:2] == got[2:], got


def test_a_gradient_passed_on_as_it_is_keeps_its_version():
    """``a + b``'s node passes its gradient on as it is: one summed in place in the buffer (version 1)
    reaches both ``.grad`` with PyTorch's version, though the nodes between ran on arrays."""
    got = []
    for m in (al, torch) if torch is not None else (al,):
        x = m.tensor([1.0, -2.0], requires_grad=True)
        b = m.tensor([0.5, 0.5], requires_grad=True)
        y = x + b
        (y * 1 + y * 2).mean().backward()  # y's node gets two gradients: summed, version 1
        got.append((x.grad.tolist(), x.grad._version, b.grad.tolist(), b.grad._version))
    assert got[0] == ([1.5, 1.5], 1, [1.5, 1.5], 1), got
    if torch is not None:
        assert got[0] == got[1], got


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("alpha", [-0.01, 3, -1.5e-3])
def test_the_optimizers_add_with_alpha_is_fused_in_place_as_pytorchs(monkeypatch, dtype, alpha):
    """``p.add_(grad, alpha=-lr)`` (SGD's update) and ``sub_`` under no_grad: written into ``p``'s array by
    add's fused kernel, no general in-place path (spied), PyTorch's bits and version."""
    general = []
    real = methods_module.inplace
    monkeypatch.setattr(methods_module, "inplace", lambda *a, **k: (general.append(a[1]), real(*a, **k))[1])
    rng = np.random.default_rng(3)
    p0, g0 = (rng.standard_normal((50, 40)).astype(dtype) for _ in range(2))
    got = []
    for m in (al, torch) if torch is not None else (al,):
        p, g = m.tensor(p0.copy(), requires_grad=True), m.tensor(g0)
        with m.no_grad():
            p.add_(g, alpha=alpha)
            p.sub_(g, alpha=alpha * 0.7)
        got.append((p.detach().numpy().copy(), p._version))
    assert general == []
    assert got[0][1] == 2
    if torch is not None:
        assert np.array_equal(got[0][0], got[1][0]) and got[0][1] == got[1][1]


def test_add_with_alpha_leaves_the_fast_path_where_the_rules_apply():
    """Recorded (grad mode on), a bool alpha, a float alpha for integers, a number as ``other``, a view:
    the general path, with PyTorch's results and errors."""
    x = al.ones(3, requires_grad=True)
    y = x * 1
    y.add_(al.ones(3), alpha=2)
    assert y.grad_fn.name() == "AddBackward0" and y.tolist() == [3.0, 3.0, 3.0]
    with al.no_grad():
        with pytest.raises(RuntimeError, match="Boolean alpha only supported for Boolean results."):
            al.ones(3).add_(al.ones(3), alpha=True)
        with pytest.raises(RuntimeError, match="argument alpha must not be a floating point number"):
            al.ones(3, dtype=al.int64).add_(al.ones(3, dtype=al.int64), alpha=0.5)
        t = al.ones(3)
        t.add_(2.0, alpha=3)
        assert t.tolist() == [7.0, 7.0, 7.0] and t._version == 1
        base = al.zeros(2, 3)
        base[0].add_(al.ones(3), alpha=-2)
        assert base.tolist() == [[-2.0, -2.0, -2.0], [0.0, 0.0, 0.0]] and base._version == 1


def test_the_index_fast_path_records_each_results_own_shape():
    """The unary fast path caches a node's metadata per op and input; an index's result has the shape
    of its index tensors, not of its input: each node keeps its own (the shape its zeros would take)."""
    x = al.ones(5, 3, requires_grad=True)
    for n in (2, 4, 1):
        y = x[al.tensor(list(range(n))), al.tensor([0] * n)]
        general = indexing.Index.apply(x, (np.arange(n), np.zeros(n, np.int64)))
        assert y.grad_fn._output_meta == general.grad_fn._output_meta == (((n,), np.dtype(np.float32)),)
