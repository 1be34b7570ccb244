"""ops/indexing.py: gather, scatter, index_select/add/copy, masked_select, take, nonzero: finite
differences, PyTorch's values, graphs, saved tensors and errors, in-place forms."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import needs_torch, torch
from op_cases import I, table_tests

import autograd_lab as al


@pytest.mark.parametrize("lib", [pytest.param(al, id="autograd_lab"),
                                 pytest.param(torch, id="torch", marks=needs_torch)])
def test_saved_index_and_self_are_version_checked(lib):
    x = lib.ones(3, 4, requires_grad=True)
    y = x * 1
    out = y.gather(0, I(lib, [[0, 1, 2, 0]]))
    y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()
    z = x * 1
    ok = z.index_select(0, I(lib, [1]))  # index_select keeps only the index
    z.add_(1)
    ok.sum().backward()
    assert x.grad.tolist() == [[0.0] * 4, [1.0] * 4, [0.0] * 4]


@pytest.mark.parametrize("lib", [pytest.param(al, id="autograd_lab"),
                                 pytest.param(torch, id="torch", marks=needs_torch)])
def test_nonzero(lib):
    x = lib.tensor([[0.0, 1.5, 0.0], [2.0, 0.0, -1.0]], requires_grad=True)
    nz = lib.nonzero(x)
    assert nz.tolist() == [[0, 1], [1, 0], [1, 2]] and nz.dtype == lib.int64
    assert nz.grad_fn is None and not nz.requires_grad
    rows, cols = x.nonzero(as_tuple=True)
    assert rows.tolist() == [0, 1, 1] and cols.tolist() == [1, 0, 2]
    assert tuple(lib.nonzero(lib.tensor(2.0)).shape) == (1, 0)
    assert tuple(lib.nonzero(lib.zeros(0, 3)).shape) == (0, 2)
    assert [t.tolist() for t in lib.nonzero(lib.tensor(0.0), as_tuple=True)] == [[]]
    assert [t.tolist() for t in lib.nonzero(lib.tensor(True), as_tuple=True)] == [[0]]


LIBS = [pytest.param(al, id="autograd_lab"), pytest.param(torch, id="torch", marks=needs_torch)]


def chain(t) -> list[str]:
    """The names of ``t``'s history along first edges, down to the leaf."""
    names, node = [], t.grad_fn
    while node is not None:
        names.append(type(node).__name__)
        node = next((n for n, _ in node.next_functions if n is not None), None)
    return names


@pytest.mark.parametrize("lib", LIBS)
def test_an_integer_index_is_a_view(lib):
    x = lib.ones(3)
    e = x[0]
    x.mul_(10)
    assert e.item() == 10.0 and e._base is x
    y = lib.ones(3)
    y[0].add_(5)
    assert y.tolist() == [6.0, 1.0, 1.0]
    w = lib.ones(2, 3)
    w[1, 2].fill_(7)
    assert w.tolist() == [[1.0, 1.0, 1.0], [1.0, 1.0, 7.0]]
    x = lib.ones(3, requires_grad=True)
    y = x * 1.0
    y[0].mul_(2.0)  # recorded on y as CopySlices
    assert type(y.grad_fn).__name__ == "CopySlices"
    (y * lib.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert y.tolist() == [2.0, 1.0, 1.0] and x.grad.tolist() == [2.0, 2.0, 3.0]


@pytest.mark.parametrize("lib", LIBS)
def test_basic_indices_apply_before_index_tensors(lib):
    x = lib.arange(24.0).reshape(2, 3, 4)
    mask = lib.tensor([True, False, True, False])
    assert x[0, 1:, mask].tolist() == [[4.0, 6.0], [8.0, 10.0]]
    assert tuple(lib.zeros(2, 5, 4)[0, -4:, lib.tensor([1, 0, 0])].shape) == (4, 3)
    assert tuple(x[0, ..., None, lib.tensor([1, 0])].shape) == (3, 1, 2)
    assert x[lib.tensor([1, 0]), :, lib.tensor([0, 2])].tolist() == [[12.0, 16.0, 20.0], [2.0, 6.0, 10.0]]
    assert tuple(x[lib.ones(2, 3, dtype=lib.bool), 1:].shape) == (6, 3)  # a 2-D mask takes two dims
    assert tuple(x[True].shape) == (1, 2, 3, 4) and tuple(x[False].shape) == (0, 2, 3, 4)
    assert tuple(lib.tensor(1.0)[True].shape) == (1,)


@pytest.mark.parametrize("lib", LIBS)
def test_mixed_indexing_records_views_then_index(lib):
    x = lib.ones(3, 4, requires_grad=True)
    assert chain(x[0, [0, 2]]) == ["IndexBackward0", "SelectBackward0", "AccumulateGrad"]
    assert chain(x[[0, 2], 1]) == ["IndexBackward0", "SelectBackward0", "AccumulateGrad"]
    assert chain(x[1:, [0, 2]]) == ["IndexBackward0", "SliceBackward0", "AccumulateGrad"]
    assert chain(x[True]) == ["IndexBackward0", "UnsqueezeBackward0", "AccumulateGrad"]
    y = x * 1
    y[0, [0, 2]] = 5.0  # index_put_ on the view y[0]: CopySlices on y
    assert chain(y) == ["CopySlices", "MulBackward0", "AccumulateGrad"]
    y.sum().backward()
    assert x.grad.tolist() == [[0.0, 1.0, 0.0, 1.0], [1.0] * 4, [1.0] * 4]
    z = lib.zeros(2, 3)
    z[1, lib.tensor([True, False, True])] = 4.0
    assert z.tolist() == [[0.0, 0.0, 0.0], [4.0, 0.0, 4.0]]
    with pytest.raises(RuntimeError, match="^a view of a leaf Variable that requires grad is being used "
                                           "in an in-place operation.$"):
        x[lib.tensor([True, False, True]), 0] = 1.0
    with pytest.raises(RuntimeError, match="^a leaf Variable that requires grad is being used in an"):
        x[[0, 1]] = 1.0


@pytest.mark.parametrize("lib", LIBS)
@pytest.mark.parametrize("key", ["list", "mask", "tensor", "setitem"])
def test_index_nodes_free_their_indices(lib, key):
    x = lib.ones(3, requires_grad=True)
    if key == "setitem":
        y = x * 1
        y[lib.tensor([True, False, True])] = x[:2].sum()
        out = y.sum()
    else:
        index = {"list": [0, 1], "mask": lib.tensor([True, True, False]), "tensor": lib.tensor([0, 1])}[key]
        out = x[index].sum()
    out.backward()
    grad = x.grad.tolist()
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second time"):
        out.backward()
    assert x.grad.tolist() == grad


@pytest.mark.parametrize("lib", LIBS)
def test_index_errors(lib):
    with pytest.raises(IndexError, match=r"^invalid index of a 0-dim tensor. Use `tensor.item\(\)`"):
        lib.tensor(1.0)[0]
    with pytest.raises(IndexError, match="^too many indices for tensor of dimension 0$"):
        lib.tensor(1.0)[[0]]
    with pytest.raises(IndexError, match=r"^The shape of the mask \[3\] at index 0 does not match the "
                                         r"shape of the indexed tensor \[3, 5\] at index 1$"):
        lib.ones(2, 3, 5)[1, :, lib.tensor([True, False, True])]
    with pytest.raises(IndexError, match=r"^shape mismatch: indexing tensors could not be broadcast together "
                                         r"with shapes \[2\], \[3\]$"):
        lib.ones(3, 4)[[0, 1], [0, 1, 2]]
    x = lib.zeros(3)
    with pytest.raises(RuntimeError, match="^Index put requires the source and destination dtypes match, got "
                                           "Float for the destination and Double for the source.$"):
        x[lib.tensor([0, 1])] = lib.tensor([1.0, 2.0], dtype=lib.float64)
    with pytest.raises(RuntimeError, match="^Index put requires the source and destination dtypes match, got "
                                           "Float for the destination and Long for the source.$"):
        x[lib.tensor([0, 1])] = lib.tensor(2)
    x[lib.tensor([True, False, True])] = lib.tensor(2.0, dtype=lib.float64)  # a mask and a 0-d value: fine
    x[1:] = lib.tensor([1.0, 2.0], dtype=lib.float64)  # a basic key copies: fine
    assert x.tolist() == [2.0, 1.0, 2.0]
    y = lib.arange(4.0)
    with pytest.raises(RuntimeError, match="^unsupported operation: some elements of the input tensor and "
                                           "the written-to tensor refer to a single memory location."):
        y[1:] = y[:-1]
    y[:2] = y[2:]  # no overlap
    assert y.tolist() == [2.0, 3.0, 2.0, 3.0]


@pytest.mark.parametrize("lib", LIBS)
def test_narrow_and_select(lib):
    x = lib.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])
    assert x.narrow(1, 1, 2).tolist() == [[1.0, 2.0], [4.0, 5.0]] and x.narrow(1, 1, 2)._base is x
    assert lib.narrow(lib.arange(6.0), 0, -4, 3).tolist() == [2.0, 3.0, 4.0]
    assert x.select(1, 1).tolist() == [1.0, 4.0] and lib.select(x, 0, -1).tolist() == [3.0, 4.0, 5.0]
    w = lib.ones(2, 3, requires_grad=True)
    assert chain(w.select(1, 1)) == ["SelectBackward0", "AccumulateGrad"]
    assert chain(w.narrow(1, 1, 1)) == ["SliceBackward0", "AccumulateGrad"]
    with pytest.raises(IndexError, match=r"^select\(\): index 3 out of range for tensor of size \[2, 3\] at "
                                         "dimension 1$"):
        x.select(1, 3)
    with pytest.raises(RuntimeError, match=r"^start \(2\) \+ length \(3\) exceeds dimension size \(3\).$"):
        x.narrow(1, 2, 3)
    with pytest.raises(IndexError, match=r"^start out of range \(expected to be in range of \[-3, 3\], "
                                         r"but got 4\)$"):
        x.narrow(1, 4, 0)


@pytest.mark.parametrize("lib", LIBS)
def test_setitem_takes_a_tensor_or_a_number(lib):
    x = lib.ones(3)
    x[0], x[1], x[2] = 2, np.float64(3.0), np.int64(4)
    assert x.tolist() == [2.0, 3.0, 4.0]
    x[lib.tensor([True, False, True])] = 5.0
    x[lib.tensor([1])] = 6
    assert x.tolist() == [5.0, 6.0, 5.0]
    for value, name in [([1.0], "list"), ((1.0,), "tuple"), (np.ones(1), "numpy.ndarray"),
                        (np.float32(1.0), "numpy.float32")]:
        with pytest.raises(TypeError, match=f"^can't assign a {name} to a torch.FloatTensor$"):
            x[0] = value


@pytest.mark.parametrize("lib", LIBS)
def test_index_put(lib):
    x = lib.ones(3)
    x.index_put_((lib.tensor([0, 0]),), lib.tensor(5.0), accumulate=True)
    assert x.tolist() == [11.0, 1.0, 1.0]
    x = lib.ones(3, requires_grad=True)
    y = x * 1
    w = lib.tensor([2.0, 3.0], requires_grad=True)
    y.index_put_((lib.tensor([0, 0]),), w, accumulate=True)
    (y * lib.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert type(y.grad_fn).__name__ == "IndexPutBackward0" and y.tolist() == [6.0, 1.0, 1.0]
    assert x.grad.tolist() == [1.0, 2.0, 3.0] and w.grad.tolist() == [1.0, 1.0]
    assert lib.index_put(lib.ones(3), (lib.tensor([1]),), lib.tensor(2.0)).tolist() == [1.0, 2.0, 1.0]
    assert lib.ones(3).index_put((lib.tensor([2]),), lib.tensor(4.0)).tolist() == [1.0, 1.0, 4.0]
    with pytest.raises(TypeError) as e:
        lib.ones(3).index_put_(lib.tensor([1]), lib.tensor(2.0))
    assert str(e.value) == ("index_put_(): argument 'indices' (position 1) must be tuple of Tensors, "
                            "not Tensor")


def test_mixed_writes_pass_gradcheck_and_gradgradcheck():
    from autograd_lab.autograd import gradcheck, gradgradcheck

    x = al.tensor(np.random.default_rng(0).uniform(0.5, 1.5, (3, 4)), requires_grad=True)
    v = al.tensor([0.7, 1.3], dtype=al.float64, requires_grad=True)

    def mixed(x, v):  # CopySlices around index_put_ on a view, then a mixed index
        y = x * x
        y[1, [0, 2]] = v * v
        return y[0:2, [1, 3]] * y[2, :2]

    def accumulate(x, v):
        y = x * x
        y.index_put_((al.tensor([0, 0]), al.tensor([1, 1])), v * v, accumulate=True)
        return y

    def fill(x, v):  # fill_ of a 0-d tensor, and a write through a view of a view
        y, z = x * x, x * 2
        y[...] = v[0] * v[1]
        z[:, 1:][0] = v[1]
        return y * z

    for fn in (mixed, accumulate, fill):
        assert gradcheck(fn, (x, v)) and gradgradcheck(fn, (x, v))


# this module's cases in the tables of op_cases.py: finite differences, PyTorch, errors, in place
globals().update(table_tests("indexing"))


@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
@pytest.mark.parametrize("key", [(..., 0, ...), (0, ..., ...), (..., ...), (..., None, ...),
                                 (..., slice(0, 2), ...)])
def test_setitem_with_several_ellipsis(key):
    """PyTorch accepts several Ellipsis in an assignment, each skipping the unindexed dimensions."""
    results = []
    for m in (al, torch):
        z = m.arange(24.0).reshape(2, 3, 4)
        z[key] = -1
        results.append(z.tolist())
    assert results[0] == results[1]


@pytest.mark.parametrize("case", ["mask", "index"])
def test_index_put_drops_the_values_leading_ones_as_pytorch(case):
    """``v[mask] = x`` with x of shape (1, n) writes n elements (PyTorch's index_put drops the value's
    leading 1s), and x's gradient gets them back; found by the random-program test."""
    torch = pytest.importorskip("torch")
    got = {}
    for lib in (al, torch):
        if case == "mask":
            x = lib.tensor([[1.0, 2.0, 1.0]], dtype=lib.float64, requires_grad=True)
            v = lib.zeros_like(x)
            v[x > 0] = x
        else:
            x = lib.tensor([[[1.0, 2.0]]], dtype=lib.float64, requires_grad=True)
            v = lib.zeros(3, 2, dtype=lib.float64)
            v[lib.tensor([0, 2])] = x
        (v * lib.arange(1.0, v.numel() + 1, dtype=lib.float64).reshape(v.shape)).sum().backward()
        got[lib.__name__] = (v.tolist(), v.grad_fn.name(), x.grad.tolist())
    assert got["autograd_lab"] == got["torch"]


def _outcome(lib, make):
    """What ``make(lib)`` gives: the error (type, text), or the node and edges of the tensor it returns."""
    try:
        t = make(lib)
    except Exception as e:  # noqa: BLE001 - the error is what is compared
        return type(e).__name__, str(e)
    fn = t.grad_fn
    return None if fn is None else (type(fn).__name__, [None if n is None else type(n).__name__
                                                        for n, _ in fn.next_functions])


def _set(shape, key, value, dtype="float32"):
    """A function of a library: ``(zeros(shape) * 1)[key] = value(lib)``, the written tensor."""
    def make(lib):
        t = lib.zeros(shape, dtype=getattr(lib, dtype), requires_grad=True) * 1
        t[key] = value(lib)
        return t
    return make


SETITEM_CASES = {
    # copy_to: copy_ when the shapes agree, fill_ of a 0-d value into more, else view, expand, copy_
    "0-d tensor into 0-d": _set((), Ellipsis, lambda lib: lib.tensor(1.5, requires_grad=True)),
    "0-d tensor into 1-d": _set((3,), Ellipsis, lambda lib: lib.tensor(1.5, requires_grad=True)),
    "number into 0-d": _set((), Ellipsis, lambda lib: 0.5),
    "number into 1-d": _set((3,), Ellipsis, lambda lib: 0.5),
    "row into matrix": _set((2, 3), Ellipsis, lambda lib: lib.ones(3, requires_grad=True)),
    "leading 1s only: viewed, not expanded": _set((3,), Ellipsis, lambda lib: lib.ones(1, 3,
                                                                                      requires_grad=True)),
    "a row into a row of a matrix": _set((2, 3), 0, lambda lib: lib.ones(1, 3, requires_grad=True)),
    "float64 row into float32": _set((2, 3), Ellipsis, lambda lib: lib.ones(3, dtype=lib.float64,
                                                                           requires_grad=True)),
    "too many dims (the value's dtype named)": _set((), Ellipsis, lambda lib: lib.zeros(2, 2, 0,
                                                                                           dtype=lib.float64)),
    # a mask and one value: a 0-d view of it, its dtype converted
    "mask, value (1,) float64": lambda lib: _mask_set(lib, lib.ones(1, dtype=lib.float64,
                                                                    requires_grad=True)),
    "mask, value (2,) float64": lambda lib: _mask_set(lib, lib.ones(2, dtype=lib.float64)),
    "mask, value (3, 3): shape checked first": lambda lib: _mask_set(lib, lib.ones(3, 3, dtype=lib.float64)),
    "list index, value (1, 2): its leading 1s dropped in the text": _set(
        (3, 4), ([0, -1],), lambda lib: lib.ones(1, 2)),
    "list index, float64 value": _set((3, 4), ([0, -1],), lambda lib: lib.ones(4, dtype=lib.float64)),
    "list index, value (1, 4) that requires grad: viewed without its leading 1s": _set(
        (3, 4), ([0, -1],), lambda lib: lib.ones(1, 4, requires_grad=True)),
    "list index, value (4,) that requires grad: not viewed": _set(
        (3, 4), ([0, -1],), lambda lib: lib.ones(4, requires_grad=True)),
}


def _mask_set(lib, value):
    t = lib.tensor([[-1.0], [1.0], [1.0]], requires_grad=True) * 1
    t[t > 0] = value
    return t


@pytest.mark.parametrize("case", sorted(SETITEM_CASES))
def test_setitem_records_and_raises_as_pytorch(case):
    """``t[key] = value``: the node PyTorch records (CopyBackwards, FillBackward3, IndexPutBackward0
    with its value's ViewBackward0), or its error (the shape checked before the dtype)."""
    if torch is None:
        pytest.skip("PyTorch is not installed")
    assert _outcome(al, SETITEM_CASES[case]) == _outcome(torch, SETITEM_CASES[case])


INDEX_ERROR_CASES = [
    ((0,), (Ellipsis, None, 0)), ((2, 3, 0), (Ellipsis, None, 0)), ((2, 0), (Ellipsis, 0)),
    ((2, 3, 4), (Ellipsis, 9)), ((2, 3, 4), (0, Ellipsis, 9)), ((2, 3, 4), (None, Ellipsis, 9)),
    ((3, 4), (None, None, slice(None), 9)), ((3, 0), (slice(None), [1, 0])), ((2, 0), (slice(None), [0])),
    ((0, 1), (slice(None), [0, 1])), ((2, 1, 0), (slice(None), [3])), ((2, 3, 2), (slice(None), [0], [5])),
    ((2, 3, 2), ([7], slice(None), [5])), ((2, 3, 2), ([-7],)), ((3,), ([1, 5, 7],)),
]


@pytest.mark.parametrize("shape, key", INDEX_ERROR_CASES)
def test_index_out_of_bounds_as_pytorch(shape, key):
    """PyTorch's texts: an int names its position in the key as the dimension, an index tensor its
    position among the index tensors; a dimension of size 0 has a text of its own; a result of no
    elements checks no index."""
    if torch is None:
        pytest.skip("PyTorch is not installed")

    def make(lib):
        k = tuple(lib.tensor(p) if isinstance(p, list) else p for p in key)
        return lib.zeros(shape, requires_grad=True)[k]

    assert _outcome(al, make) == _outcome(torch, make)


def _index_derivatives(lib):
    """The nodes ``create_graph=True`` records for the derivatives of indexing and index_put, with what
    they saved, before and after a backward through them frees it."""
    x = lib.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]], requires_grad=True)
    y = x * 1
    y[[0, 1], [2, 0]] = lib.tensor(3.0)
    z = y[:, [1, 1]] * y[x > 0].sum()
    (g,) = lib.autograd.grad((z * z).sum(), x, create_graph=True)
    seen, nodes, stack = set(), [], [g.grad_fn]
    while stack:
        n = stack.pop()
        if n is None or n in seen:
            continue
        seen.add(n)
        if n.name() in ("IndexPutImplBackward0", "IndexPutBackward0"):
            nodes.append(n)
        stack.extend(m for m, _ in n.next_functions)
    saved = sorted((n.name(), repr([None if i is None else i.tolist() for i in n._saved_indices]),
                    n._saved_accumulate) for n in nodes)
    lib.autograd.grad(g.sum(), x)
    freed = []
    for n in nodes:
        try:
            n._saved_indices  # noqa: B018 - reading it is the test
        except RuntimeError as e:
            freed.append(str(e)[:40])
    return saved, sorted(freed)


@pytest.mark.torch
def test_index_derivatives_record_and_free_as_pytorch():
    """IndexPutImplBackward0 (indexing's derivative) and IndexPutBackward0 (index_put's, for the
    overwritten tensor: its zeros put in) as PyTorch records them, their ``_saved_indices`` (None for a
    dimension taken whole) freed by a backward through them."""
    if torch is None:
        pytest.skip("PyTorch is not installed")
    ours, theirs = _index_derivatives(al), _index_derivatives(torch)
    assert ours == theirs
    assert len(ours[0]) >= 3 and len(ours[1]) == len(ours[0])


def _index_fill(lib):
    """index_fill with a number and with a 0-d tensor: values, nodes, what create_graph records for
    their derivatives, and PyTorch's errors."""
    x = lib.tensor(np.arange(12.0).reshape(3, 4), requires_grad=True)
    i = lib.tensor([0, 2])
    out = []
    for v in (1.5, lib.tensor(2.0, dtype=lib.float64, requires_grad=True)):
        y = x.index_fill(1, i, v)
        ins = [x] + ([v] if isinstance(v, lib.Tensor) else [])
        gs = lib.autograd.grad((y * y).sum(), ins, create_graph=True)
        out.append((y.tolist(), y.grad_fn.name(), [g.tolist() for g in gs],
                    [[n and n.name() for n, _ in g.grad_fn.next_functions] for g in gs]))
    for bad in (lambda: x.index_fill(1, lib.tensor([0.0]), 1.0),
                lambda: x.index_fill(1, lib.tensor([5]), 1.0), lambda: x.index_fill(1, i, lib.ones(2)),
                lambda: x.index_fill(1, lib.tensor([[0]]), 1.0)):
        out.append(_outcome(lib, lambda _lib, bad=bad: bad()))
    return out


@pytest.mark.torch
def test_index_fill_as_pytorch():
    if torch is None:
        pytest.skip("PyTorch is not installed")
    assert _index_fill(al) == _index_fill(torch)
