"""ops/linalg.py: outer, addmm/addmv/baddbmm, kron, einsum: finite differences, PyTorch's values, graphs
and errors, in-place forms."""

from __future__ import annotations

import pytest
from helpers import needs_torch, torch
from op_cases import table_tests

import autograd_lab as al


@pytest.mark.parametrize("lib", [pytest.param(al, id="autograd_lab"),
                                 pytest.param(torch, id="torch", marks=needs_torch)])
def test_addmm_inplace_shape_error(lib):
    with pytest.raises(RuntimeError, match=r"Bad in-place call: input tensor size \[4\] and output tensor "
                                           r"size \[3, 4\] should match"):
        lib.ones(4).addmm_(lib.ones(3, 5), lib.ones(5, 4))


LIBS = [pytest.param(al, id="autograd_lab"), pytest.param(torch, id="torch", marks=needs_torch)]


@pytest.mark.parametrize("lib", LIBS)
@pytest.mark.parametrize("shapes, node", [
    (((3,), (3,)), "DotBackward0"), (((2, 3), (3,)), "MvBackward0"), (((3,), (3, 2)), "SqueezeBackward4"),
    (((4, 2, 3), (3,)), "UnsafeViewBackward0"), (((3,), (4, 3, 2)), "UnsafeViewBackward0"),
])
@pytest.mark.parametrize("grad", ["left", "right"])
def test_matmul_of_a_vector_is_a_new_tensor(lib, shapes, node, grad):
    a = lib.ones(*shapes[0], requires_grad=grad == "left")
    b = lib.ones(*shapes[1], requires_grad=grad == "right")
    out = a @ b
    assert type(out.grad_fn).__name__ == node and out._base is None and out.is_contiguous()


@pytest.mark.parametrize("lib", LIBS)
def test_broadcast_batched_matmul_is_contiguous(lib):
    out = lib.ones(3, 3) @ lib.ones(2, 3, 4)
    assert out.is_contiguous() and out.view(-1).shape == (24,) and out.contiguous() is out


# this module's cases in the tables of op_cases.py: finite differences, PyTorch, errors, in place
globals().update(table_tests("linalg"))


SAVED_PRODUCTS = {  # op, input shapes, PyTorch's saved names
    "dot": (lambda lib, a, b: lib.dot(a, b), [(3,), (3,)], ["self", "tensor"]),
    "mv": (lambda lib, a, b: lib.mv(a, b), [(2, 3), (3,)], ["self", "vec"]),
    "mm": (lambda lib, a, b: lib.mm(a, b), [(2, 3), (3, 4)], ["self", "mat2"]),
    "bmm": (lambda lib, a, b: lib.bmm(a, b), [(2, 2, 3), (2, 3, 4)], ["self", "mat2"]),
    "addmm": (lambda lib, a, b: lib.addmm(lib.ones(2, 4), a, b), [(2, 3), (3, 4)], ["mat1", "mat2"]),
    "addmv": (lambda lib, a, b: lib.addmv(lib.ones(2), a, b), [(2, 3), (3,)], ["mat", "vec"]),
    "baddbmm": (lambda lib, a, b: lib.baddbmm(lib.ones(2, 2, 4), a, b), [(2, 2, 3), (2, 3, 4)],
                ["batch1", "batch2"]),
    "matmul_vector": (lambda lib, a, b: a @ b, [(2, 3), (3,)], ["self", "vec"]),
}


@pytest.mark.parametrize("op", SAVED_PRODUCTS)
@pytest.mark.parametrize("grads", [(True, False), (False, True), (True, True)])
def test_products_save_a_factor_only_for_the_other_factors_gradient(op, grads):
    """``x @ ones(3)``: PyTorch keeps the vector (for x's gradient) but not x, which only the vector's
    gradient would read; an input never saved stays None after backward frees the rest."""
    if torch is None:
        pytest.skip("PyTorch is not installed")
    fn, shapes, names = SAVED_PRODUCTS[op]
    outcomes = []
    for lib in (al, torch):
        a, b = (lib.ones(s, requires_grad=g) for s, g in zip(shapes, grads))
        y = fn(lib, a, b)
        saved = [getattr(y.grad_fn, f"_saved_{n}") is None for n in names]
        y.sum().backward()
        for n in names:
            try:
                saved.append(getattr(y.grad_fn, f"_saved_{n}"))
            except RuntimeError:
                saved.append("freed")
        outcomes.append((type(y.grad_fn).__name__, saved))
    assert outcomes[0] == outcomes[1]



@pytest.mark.parametrize("shapes", [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 2)), ((2, 3), (3, 4)),
                                    ((2, 2, 3), (3,)), ((3,), (2, 3, 4)), ((2, 3), (2, 3, 4))])
@pytest.mark.parametrize("requires_grad", [True, False])
def test_matmul_results_version_as_pytorch(shapes, requires_grad):
    """vector @ matrix is PyTorch's ``unsqueeze(0).mm(m).squeeze_(0)``: its result has version 1 (so
    do F.linear's of a vector without bias); the other forms 0."""
    torch = pytest.importorskip("torch")
    outcomes = []
    for lib in (al, torch):
        a, b = lib.ones(shapes[0], requires_grad=requires_grad), lib.ones(shapes[1])
        w = lib.ones(2, shapes[0][-1])
        outcomes.append((lib.matmul(a, b)._version, lib.nn.functional.linear(a, w)._version,
                         lib.nn.functional.linear(a, w, lib.ones(2))._version))
    assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize("sa, sb, grads", [
    ((1, 1, 3), (2, 3, 2), (True, True)), ((1, 1, 3), (2, 3, 2), (False, True)),
    ((1, 3), (2, 3, 2), (True, True)), ((1, 3), (2, 3, 2), (True, False)), ((2, 1, 3), (3, 2), (True, True)),
    ((2, 1, 3), (1, 3, 2), (True, True)), ((2, 1, 3), (1, 3, 2), (True, False)),
    ((2, 3), (3, 2), (True, True)), ((2, 2, 3), (2, 3, 2), (True, True)), ((3,), (3,), (True, True)),
    ((2, 3), (3,), (True, True)), ((2, 2, 3), (3,), (False, False)),
])
def test_matmul_dtype_mismatch_named_by_the_kernel_pytorch_runs(sa, sb, grads):
    """float64 @ float32: the error of the kernel PyTorch picks (dot, mv, mm, bmm; a folded 2-D @ 3-D
    product is transposed, so its operands swap in the text), which depends on what requires grad."""
    torch = pytest.importorskip("torch")
    texts = []
    for lib in (al, torch):
        a = lib.ones(sa, dtype=lib.float64, requires_grad=grads[0])
        b = lib.ones(sb, dtype=lib.float32, requires_grad=grads[1])
        with pytest.raises(RuntimeError) as e:
            lib.matmul(a, b)
        texts.append(str(e.value))
    assert texts[0] == texts[1]
