"""Every error and warning text, word for word: autograd_lab's messages are PyTorch's.

Each case is a small program written once for both libraries (``T`` is the module) and the exact
text PyTorch gives, as a literal. ``test_autograd_lab_says_it`` checks autograd_lab against the
literal; ``test_pytorch_says_it`` (where PyTorch is installed) checks that the literal really is
what PyTorch says, so the literals cannot drift from the real thing.
"""

from __future__ import annotations

import subprocess
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest
from helpers import needs_torch, torch
from op_cases import I

import autograd_lab as al

FREED = (
    "Trying to backward through the graph a second time (or directly access saved tensors after they "
    "have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward."
)


HINT = (
    "Hint: enable anomaly detection to find the operation that failed to compute its gradient, with "
    "torch.autograd.set_detect_anomaly(True, check_nan=False)."
)


NON_LEAF_GRAD = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute "
    "won't be populated during autograd.backward(). If you indeed want the .grad field to be populated "
    "for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor "
    "by mistake, make sure you access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 "
    "for more information."
)


@dataclass
class Case:
    id: str
    run: Callable  # run(T): raises, or warns
    exception: type[BaseException]
    message: str
    warning: bool = False  # a UserWarning, not an exception; PyTorch appends "(Triggered internally...)"


def _nonscalar(T):
    x = T.tensor([1.0, 2.0], requires_grad=True)
    (x**2).backward()


def _twice(T):
    x = T.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    y.backward()


def _twice_sigmoid(T):
    x = T.tensor([1.0, 2.0], requires_grad=True)
    y = x.sigmoid().sum()
    y.backward()
    y.backward()


def _twice_autograd_grad(T):
    x = T.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp().sum()
    T.autograd.grad(y, x)
    T.autograd.grad(y, x)


def _non_leaf_grad(T):
    x = T.tensor(1.0, requires_grad=True)
    mid = x * 2
    y = mid * 3
    y.backward()
    assert mid.grad is None  # warns, returns None


def _no_grad_fn(T):
    x = T.tensor([1.0, 2.0])
    x.sum().backward()


def _no_grad_fn_autograd_grad(T):
    x = T.tensor([1.0, 2.0])
    T.autograd.grad(x.sum(), x)


def _no_grad_fn_under_no_grad(T):
    w = T.tensor([1.0], requires_grad=True)
    with T.no_grad():
        y = w * 2
    y.backward()


def _input_does_not_require_grad(T):
    x = T.tensor([1.0, 2.0], requires_grad=True)
    T.autograd.grad((x * 2).sum(), T.tensor(1.0))


def _unused_input(T):
    x = T.tensor([1.0], requires_grad=True)
    z = T.tensor([1.0], requires_grad=True)
    T.autograd.grad((x * 2).sum(), [x, z])


def _saved_output_changed(T):
    x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    a = x.sigmoid()
    a.mul_(2)
    a.sum().backward()


def _saved_input_changed(T):
    x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    a = x + 0
    b = a * a
    a.add_(1)
    b.sum().backward()


def _saved_constant_changed(T):
    x = T.ones(3, requires_grad=True)
    w = T.ones(2, 3)
    b = x * w
    w.add_(1)
    b.sum().backward()


def _saved_float64_changed(T):
    x = T.tensor([[1.0, 2.0]], dtype=T.float64, requires_grad=True)
    a = x.exp()
    a += 1
    a.sum().backward()


def _leaf_in_place(T):
    x = T.tensor([1.0], requires_grad=True)
    x.add_(1)


def _leaf_augmented_assignment(T):
    w = T.tensor([1.0, 2.0], requires_grad=True)
    w -= 0.1 * w


def _leaf_setitem(T):
    x = T.tensor([1.0, 2.0], requires_grad=True)
    x[0] = 5.0


def _view_of_leaf_in_place(T):
    x = T.tensor([1.0, 2.0], requires_grad=True)
    x[0:1].mul_(2)


def _backward_gradient_shape(T):
    x = T.tensor([1.0, 2.0], requires_grad=True)
    (x * 2).backward(T.ones(3))


def _backward_gradient_shape_2d(T):
    x = T.ones(2, 3, requires_grad=True)
    (x * 2).backward(T.ones(3, 2))


def _broadcast(T):
    T.ones(2, 3) + T.ones(2, 4)


def _broadcast_3d(T):
    T.ones(5, 2, 3) * T.ones(4, 1, 3)


def _matmul(T):
    T.ones(2, 3) @ T.ones(4, 5)


def _matvec(T):
    T.ones(2, 3) @ T.ones(4)


def _dot(T):
    T.ones(3) @ T.ones(4)


def _view(T):
    T.ones(2, 3).view(5)


def _view_strides(T):
    T.ones(2, 3).t().view(6)


def _expand(T):
    T.ones(2, 3).expand(4, 3)


def _cat(T):
    T.cat([T.ones(2, 3), T.ones(3, 2)])


def _stack(T):
    T.stack([T.ones(2), T.ones(3)])


def _setitem_shape(T):
    y = T.ones(3, 4)
    y[:, 0] = T.ones(4)


def _setitem_index_shape(T):
    y = T.ones(3, 4)
    y[[0, 1]] = T.ones(3)


def _assign_grad_shape(T):
    x = T.ones(2, requires_grad=True)
    x.grad = T.ones(3)


def _matmul_dtypes(T):
    T.ones(2, 2) @ T.ones(2, 2, dtype=T.float64)


def _int_requires_grad(T):
    T.tensor([1, 2], requires_grad=True)


def _int_requires_grad_(T):
    T.tensor([1, 2]).requires_grad_()


def _non_leaf_requires_grad_false(T):
    x = T.ones(2, requires_grad=True)
    (x * 2).requires_grad = False


def _numpy_of_requires_grad(T):
    T.ones(2, requires_grad=True).numpy()


def _retain_grad_without_grad(T):
    T.ones(2).retain_grad()


def _hook_without_grad(T):
    T.ones(2).register_hook(lambda g: g)


def _item_of_many(T):
    T.ones(2).item()


def _bool_of_many(T):
    bool(T.ones(2))


def _index_out_of_range(T):
    T.ones(2, 3)[5]


def _dim_out_of_range(T):
    T.ones(2, 3).sum(2)


def _mean_of_ints(T):
    T.tensor([1, 2]).mean()


def _softmax_of_ints(T):
    T.tensor([1, 2]).softmax(0)


def _bool_subtraction(T):
    T.tensor([True]) - T.tensor([False])


def _empty_inputs(T):
    x = T.ones(2, requires_grad=True)
    (x * 2).sum().backward(inputs=[])


def _custom_function_gradient_count(T):
    class Wrong(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g, g

    Wrong.apply(T.ones(2, requires_grad=True)).sum().backward()


CASES = [
    # the list
    Case("backward of a non-scalar without gradient", _nonscalar, RuntimeError,
         "grad can be implicitly created only for scalar outputs"),
    Case("backward twice", _twice, RuntimeError, FREED),
    Case("backward twice through sigmoid", _twice_sigmoid, RuntimeError, FREED),
    Case("autograd.grad twice", _twice_autograd_grad, RuntimeError, FREED),
    Case(".grad of a non-leaf", _non_leaf_grad, UserWarning, NON_LEAF_GRAD, warning=True),
    Case("backward of a tensor with no grad_fn", _no_grad_fn, RuntimeError,
         "element 0 of tensors does not require grad and does not have a grad_fn"),
    Case("autograd.grad of a tensor with no grad_fn", _no_grad_fn_autograd_grad, RuntimeError,
         "element 0 of tensors does not require grad and does not have a grad_fn"),
    Case("backward of a result made under no_grad", _no_grad_fn_under_no_grad, RuntimeError,
         "element 0 of tensors does not require grad and does not have a grad_fn"),
    Case("in-place change of a saved output", _saved_output_changed, RuntimeError,
         "one of the variables needed for gradient computation has been modified by an inplace "
         "operation: [torch.FloatTensor [3]], which is output 0 of Sigmoid, is at version 1; expected "
         "version 0 instead. " + HINT),
    Case("in-place change of a saved input", _saved_input_changed, RuntimeError,
         "one of the variables needed for gradient computation has been modified by an inplace "
         "operation: [torch.FloatTensor [3]], which is output 0 of Add, is at version 1; expected "
         "version 0 instead. " + HINT),
    Case("in-place change of a saved constant", _saved_constant_changed, RuntimeError,
         "one of the variables needed for gradient computation has been modified by an inplace "
         "operation: [torch.FloatTensor [2, 3]] is at version 1; expected version 0 instead. " + HINT),
    Case("in-place change of a saved float64 output", _saved_float64_changed, RuntimeError,
         "one of the variables needed for gradient computation has been modified by an inplace "
         "operation: [torch.DoubleTensor [1, 2]], which is output 0 of Exp, is at version 1; expected "
         "version 0 instead. " + HINT),
    Case("in-place on a leaf that requires grad", _leaf_in_place, RuntimeError,
         "a leaf Variable that requires grad is being used in an in-place operation."),
    Case("-= on a leaf that requires grad", _leaf_augmented_assignment, RuntimeError,
         "a leaf Variable that requires grad is being used in an in-place operation."),
    Case("setitem on a leaf that requires grad", _leaf_setitem, RuntimeError,
         "a view of a leaf Variable that requires grad is being used in an in-place operation."),
    Case("in-place on a view of a leaf", _view_of_leaf_in_place, RuntimeError,
         "a view of a leaf Variable that requires grad is being used in an in-place operation."),
    Case("backward with a gradient of the wrong shape", _backward_gradient_shape, RuntimeError,
         "Mismatch in shape: grad_output[0] has a shape of torch.Size([3]) and output[0] has a shape "
         "of torch.Size([2])."),
    Case("backward with a 2-D gradient of the wrong shape", _backward_gradient_shape_2d, RuntimeError,
         "Mismatch in shape: grad_output[0] has a shape of torch.Size([3, 2]) and output[0] has a "
         "shape of torch.Size([2, 3])."),
    Case("matmul of mismatched shapes", _matmul, RuntimeError,
         "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"),
    # shapes
    Case("broadcasting mismatch", _broadcast, RuntimeError,
         "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1"),
    Case("broadcasting mismatch in 3-D", _broadcast_3d, RuntimeError,
         "The size of tensor a (5) must match the size of tensor b (4) at non-singleton dimension 0"),
    Case("matrix @ vector mismatch", _matvec, RuntimeError,
         "size mismatch, got input (2), mat (2x3), vec (4)"),
    Case("dot of mismatched vectors", _dot, RuntimeError,
         "inconsistent tensor size, expected tensor [3] and src [4] to have the same number of "
         "elements, but got 3 and 4 elements respectively"),
    Case("view to the wrong size", _view, RuntimeError, "shape '[5]' is invalid for input of size 6"),
    Case("view of a transposed tensor", _view_strides, RuntimeError,
         "view size is not compatible with input tensor's size and stride (at least one dimension spans "
         "across two contiguous subspaces). Use .reshape(...) instead."),
    Case("expand to an incompatible size", _expand, RuntimeError,
         "The expanded size of the tensor (4) must match the existing size (2) at non-singleton "
         "dimension 0.  Target sizes: [4, 3].  Tensor sizes: [2, 3]"),
    Case("cat of mismatched tensors", _cat, RuntimeError,
         "Sizes of tensors must match except in dimension 0. Expected size 3 but got size 2 for tensor "
         "number 1 in the list."),
    Case("stack of mismatched tensors", _stack, RuntimeError,
         "stack expects each tensor to be equal size, but got [2] at entry 0 and [3] at entry 1"),
    Case("setitem of a value of the wrong shape", _setitem_shape, RuntimeError,
         "The expanded size of the tensor (3) must match the existing size (4) at non-singleton "
         "dimension 0.  Target sizes: [3].  Tensor sizes: [4]"),
    Case("index_put of a value of the wrong shape", _setitem_index_shape, RuntimeError,
         "shape mismatch: value tensor of shape [3] cannot be broadcast to indexing result of shape [2, 4]"),
    Case("assigning a .grad of the wrong shape", _assign_grad_shape, RuntimeError,
         "attempting to assign a gradient of size '[3]' to a tensor of size '[2]'. Please ensure that the "
         "gradient and the tensor are the same size"),
    # dtypes and flags
    Case("matmul of mixed dtypes", _matmul_dtypes, RuntimeError,
         "expected m1 and m2 to have the same dtype, but got: float != double"),
    Case("integer tensor requiring grad", _int_requires_grad, RuntimeError,
         "Only Tensors of floating point and complex dtype can require gradients"),
    Case("requires_grad_() on an integer tensor", _int_requires_grad_, RuntimeError,
         "only Tensors of floating point dtype can require gradients"),
    Case("requires_grad = False on a non-leaf", _non_leaf_requires_grad_false, RuntimeError,
         "you can only change requires_grad flags of leaf variables. If you want to use a computed "
         "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach()."),
    Case("numpy() of a tensor that requires grad", _numpy_of_requires_grad, RuntimeError,
         "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."),
    Case("retain_grad without requires_grad", _retain_grad_without_grad, RuntimeError,
         "can't retain_grad on Tensor that has requires_grad=False"),
    Case("hook on a tensor without requires_grad", _hook_without_grad, RuntimeError,
         "cannot register a hook on a tensor that doesn't require gradient"),
    Case("item() of several elements", _item_of_many, RuntimeError,
         "a Tensor with 2 elements cannot be converted to Scalar"),
    Case("bool() of several elements", _bool_of_many, RuntimeError,
         "Boolean value of Tensor with more than one value is ambiguous"),
    Case("index out of range", _index_out_of_range, IndexError,
         "index 5 is out of bounds for dimension 0 with size 2"),
    Case("dimension out of range", _dim_out_of_range, IndexError,
         "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    Case("mean of integers", _mean_of_ints, RuntimeError,
         "mean(): could not infer output dtype. Input dtype must be either a floating point or complex "
         "dtype. Got: Long"),
    Case("softmax of integers", _softmax_of_ints, NotImplementedError,
         "\"softmax_lastdim_kernel_impl\" not implemented for 'Long'"),
    Case("subtraction of bools", _bool_subtraction, RuntimeError,
         "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
         "`logical_xor()` operator instead."),
    # the engine
    Case("autograd.grad of an input that does not require grad", _input_does_not_require_grad,
         RuntimeError, "One of the differentiated Tensors does not require grad"),
    Case("autograd.grad of an unused input", _unused_input, RuntimeError,
         "The differentiated Tensor at index 1 appears to not have been used in the graph. Set "
         "allow_unused=True if this is the desired behavior."),
    Case("backward with empty inputs", _empty_inputs, RuntimeError,
         "`inputs` argument to `backward()` cannot be empty."),
    Case("custom Function returning too many gradients", _custom_function_gradient_count, RuntimeError,
         "function WrongBackward returned an incorrect number of gradients (expected 1, got 2)"),
]


def _outcome(case: Case, T) -> str:
    """Run the case; return the message of the expected exception or warning."""
    if case.warning:
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            case.run(T)
        hits = [w for w in record if issubclass(w.category, case.exception)]
        assert hits, f"{case.id}: no {case.exception.__name__} was issued"
        return str(hits[0].message)
    with pytest.raises(case.exception) as info:
        case.run(T)
    return str(info.value)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_autograd_lab_says_it(case):
    assert _outcome(case, al) == case.message


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="PyTorch (the optional oracle) is not installed")
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_pytorch_says_it(case):
    said = _outcome(case, torch)
    if case.warning:  # PyTorch appends where in its C++ sources the warning came from
        assert said.startswith(case.message + " (Triggered internally at ") or said == case.message
    else:
        assert said == case.message


CREATE_GRAPH = (
    "Using backward() with create_graph=True will create a reference cycle between the parameter and its "
    "gradient which can cause a memory leak. We recommend using autograd.grad when creating the graph to "
    "avoid this. If you have to use this function, make sure to reset the .grad fields of your parameters "
    "to None after use to break the cycle and avoid the leak."
)


CREATE_GRAPH_PROGRAM = "x = T.ones(2, requires_grad=True); (x ** 3).sum().backward(create_graph=True)"


def test_backward_with_create_graph_warns():
    with pytest.warns(UserWarning) as record:
        exec(CREATE_GRAPH_PROGRAM, {"T": al})
    assert [str(w.message) for w in record] == [CREATE_GRAPH]


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="PyTorch (the optional oracle) is not installed")
def test_pytorch_warns_the_same_on_backward_with_create_graph():
    """PyTorch warns only once per process, so it is asked in a fresh one."""
    code = f"import torch as T, warnings; warnings.simplefilter('always'); {CREATE_GRAPH_PROGRAM}"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert f"UserWarning: {CREATE_GRAPH} (Triggered internally at " in done.stderr


def test_a_shape_mismatch_names_both_shapes():
    """The issue asks for a clear shape-mismatch message naming both shapes."""
    for case in CASES:
        if case.id in ("backward with a gradient of the wrong shape", "matmul of mismatched shapes"):
            message = _outcome(case, al)
            assert ("[3]" in message and "[2]" in message) or ("2x3" in message and "4x5" in message)


def test_the_non_leaf_grad_warning_points_at_the_callers_line():
    x = al.tensor(1.0, requires_grad=True)
    mid = x * 2
    (mid * 3).backward()
    with pytest.warns(UserWarning) as record:
        assert mid.grad is None
    assert record[0].filename == __file__


def test_errors_leave_inputs_unchanged():
    x = al.tensor([1.0, 2.0, 3.0])
    before = x.numpy().copy()
    with pytest.raises(RuntimeError):
        x.lerp_(x.double(), 0.5)
    with pytest.raises(RuntimeError):
        x.clamp_min_(al.tensor([1.0, 2.0]))
    with pytest.raises(RuntimeError):
        al.tensor([1, 2]).erf_()  # a float result cannot be written into a Long tensor
    assert np.array_equal(x.numpy(), before) and x._version == 0


@pytest.mark.parametrize("lib", [pytest.param(al, id="autograd_lab"),
                                 pytest.param(torch, id="torch", marks=needs_torch)])
def test_failed_inplace_changes_nothing(lib):
    t = lib.ones(3, 4)
    for bad in (lambda: t.scatter_(0, I(lib, [[5]]), lib.ones(1, 1)),
                lambda: t.scatter_add_(0, I(lib, [[0]]), lib.ones(1, 1, dtype=lib.float64)),
                lambda: t.index_add_(0, I(lib, [7]), lib.ones(1, 4)),
                lambda: t.index_copy_(0, I(lib, [0, 1]), lib.ones(1, 4)),
                lambda: t.masked_fill_(lib.ones(2, 3, 4, dtype=lib.bool), 0.0),
                lambda: t.addmm_(lib.ones(3, 2), lib.ones(3, 4))):
        with pytest.raises((RuntimeError, IndexError)):
            bad()
    assert t._version == 0 and t.tolist() == [[1.0] * 4] * 3
