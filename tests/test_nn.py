"""autograd_lab.nn: Module, Parameter, layers, losses and init; values and node names against PyTorch."""

from __future__ import annotations

import copy
import pathlib
import pickle
import re
import warnings

import numpy as np
import pytest

import autograd_lab as al
from autograd_lab import nn
from autograd_lab.autograd import gradcheck
from autograd_lab.nn import functional as F


@pytest.fixture(scope="module")
def torch():
    """PyTorch, the optional oracle (skipped without it), on one thread: many small ops run far faster."""
    module = pytest.importorskip("torch")
    module.set_num_threads(1)
    return module


def both(torch, arr, requires_grad=True):
    """The same values as an autograd_lab tensor and a PyTorch tensor."""
    arr = np.asarray(arr)
    return al.tensor(arr, requires_grad=requires_grad), torch.tensor(arr, requires_grad=requires_grad)


def close(a, t, tol=1e-6):
    np.testing.assert_allclose(a.detach().numpy(), t.detach().numpy(), rtol=tol, atol=tol)


def name(t):
    return type(t.grad_fn).__name__


def copy_weights(mine, theirs):
    """Load a PyTorch module's parameters and buffers into the matching autograd_lab module."""
    mine.load_state_dict({k: al.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})


# ---------------------------------------------------------------------------- Parameter
def test_parameter_is_a_leaf_tensor_that_requires_grad():
    data = al.tensor([1.0, 2.0])
    p = nn.Parameter(data)
    assert isinstance(p, al.Tensor) and isinstance(p, nn.Parameter)
    assert p.requires_grad and p.is_leaf and p.grad_fn is None
    assert repr(p) == "Parameter containing:\ntensor([1., 2.], requires_grad=True)"
    assert repr(nn.Parameter(al.tensor(2.0))) == "Parameter containing:\ntensor(2., requires_grad=True)"
    data[0] = 5.0
    assert p.tolist() == [5.0, 2.0], "Parameter(data) shares memory with data, as in PyTorch"
    assert not nn.Parameter(al.tensor([1.0]), requires_grad=False).requires_grad
    assert nn.Parameter().shape == (0,)


def test_parameter_from_non_leaf_is_a_new_leaf_and_results_are_tensors():
    x = al.tensor([1.0], requires_grad=True)
    p = nn.Parameter(x * 2)
    assert p.is_leaf and p.grad_fn is None
    y = p * 3
    assert type(y) is al.Tensor, "an operation on a Parameter gives a plain Tensor"
    assert type(p.detach()) is al.Tensor


def test_parameter_repr_matches_pytorch(torch):
    for values in ([1.0, 2.0], 2.0, [[0.5, -1.25], [3.0, 4.0]]):
        assert repr(nn.Parameter(al.tensor(values))) == repr(torch.nn.Parameter(torch.tensor(values)))


def test_parameter_errors():
    with pytest.raises(RuntimeError, match="floating point"):
        nn.Parameter(al.tensor([1, 2]))
    with pytest.raises(TypeError, match="must be Tensor"):
        nn.Parameter([1.0, 2.0])


def test_parameter_deepcopy_and_pickle():
    p = nn.Parameter(al.tensor([1.0, 2.0]))
    for q in (copy.deepcopy(p), pickle.loads(pickle.dumps(p))):
        assert type(q) is nn.Parameter and q.requires_grad and q.tolist() == [1.0, 2.0]
        q.data[0] = 9.0
        assert p.tolist() == [1.0, 2.0]


# ---------------------------------------------------------------------------- Module: registration
class TwoLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 3)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(3, 2, bias=False)
        self.scale = nn.Parameter(al.ones(1))
        self.register_buffer("steps", al.tensor(0))
        self.register_buffer("cache", al.zeros(2), persistent=False)
        self.note = "plain attribute"

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x))) * self.scale


def test_module_registers_parameters_buffers_and_modules():
    m = TwoLayer()
    assert [n for n, _ in m.named_parameters()] == ["scale", "fc1.weight", "fc1.bias", "fc2.weight"]
    assert len(list(m.parameters())) == 4
    assert [n for n, _ in m.named_parameters(recurse=False)] == ["scale"]
    assert [n for n, _ in m.named_buffers()] == ["steps", "cache"]
    assert [n for n, _ in m.named_children()] == ["fc1", "act", "fc2"]
    assert [n for n, _ in m.named_modules()] == ["", "fc1", "act", "fc2"]
    assert list(m.modules())[0] is m and list(m.children())[0] is m.fc1
    assert m.fc2.bias is None
    assert m.note == "plain attribute" and "note" not in m._parameters
    assert m.get_submodule("fc1") is m.fc1


def test_shared_parameters_are_listed_once():
    lin = nn.Linear(2, 2)
    seq = nn.Sequential(lin, nn.ReLU(), lin)
    assert len(list(seq.parameters())) == 2
    assert [n for n, _ in seq.named_parameters()] == ["0.weight", "0.bias"]


def test_reassigning_attributes_changes_their_kind():
    m = nn.Module()
    m.x = nn.Linear(1, 1)
    m.x = nn.Parameter(al.zeros(1))
    assert "x" in m._parameters and "x" not in m._modules, "a Parameter may replace a module"
    with pytest.raises(TypeError, match=re.escape("as parameter 'x' (torch.nn.Parameter or None expected)")):
        m.x = nn.Linear(1, 1)
    m.y = nn.Linear(1, 1)
    with pytest.raises(TypeError, match=re.escape(
            "cannot assign 'torch.FloatTensor' as child module 'y' (torch.nn.Module or None expected)")):
        m.y = al.zeros(1)
    m.y = None
    assert m.y is None and list(m.children()) == []
    del m.x
    assert not hasattr(m, "x")


def test_module_attribute_errors_match_pytorch(torch):
    def errors(mod):
        out = []
        m = mod.nn.Linear(2, 2)
        for action in (lambda: m.missing,
                       lambda: setattr(m, "weight", mod.zeros(2, 2)),
                       lambda: m.register_buffer("weight", mod.zeros(1)),
                       lambda: m.register_parameter("a.b", None),
                       lambda: mod.nn.Module()(1)):
            with pytest.raises(Exception) as info:
                action()
            out.append((type(info.value), str(info.value)))

        class Early(mod.nn.Module):
            def __init__(self):
                self.w = mod.nn.Parameter(mod.zeros(1))

        with pytest.raises(AttributeError) as info:
            Early()
        out.append((AttributeError, str(info.value)))
        return out

    assert errors(al) == errors(torch)


def test_train_eval_propagate_to_every_submodule():
    m = nn.Sequential(nn.Linear(2, 2), nn.Sequential(nn.Dropout(), nn.BatchNorm1d(2)))
    assert all(sub.training for sub in m.modules())
    assert m.eval() is m
    assert not any(sub.training for sub in m.modules())
    m.train()
    assert all(sub.training for sub in m.modules())
    with pytest.raises(ValueError, match="training mode is expected to be boolean"):
        m.train("no")


def test_module_zero_grad_defaults_to_none():
    m = nn.Linear(3, 1)
    m(al.randn(2, 3)).sum().backward()
    assert m.weight.grad is not None
    m.zero_grad(set_to_none=False)
    assert m.weight.grad.tolist() == [[0.0, 0.0, 0.0]]
    m.zero_grad()
    assert m.weight.grad is None and m.bias.grad is None


def test_apply_requires_grad_and_hooks():
    m = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2))
    seen = []
    m.apply(lambda mod: seen.append(type(mod).__name__))
    assert seen == ["Linear", "Linear", "Sequential"]
    m.requires_grad_(False)
    assert not any(p.requires_grad for p in m.parameters())
    outputs = []
    handle = m[0].register_forward_hook(lambda mod, args, out: outputs.append(out.shape))
    pre = m.register_forward_pre_hook(lambda mod, args: (args[0] * 0,))
    assert m(al.ones(5, 2)).shape == (5, 2)
    assert outputs == [(5, 2)]
    handle.remove()
    pre.remove()
    m(al.ones(1, 2))
    assert outputs == [(5, 2)]


def test_to_double_keeps_parameter_objects_and_gradients():
    m = TwoLayer()
    weight = m.fc1.weight
    m(al.randn(2, 4)).sum().backward()
    assert m.double() is m
    assert m.fc1.weight is weight and weight.dtype is al.float64 and weight.grad.dtype is al.float64
    assert m.steps.dtype is al.int64, "integer buffers are not converted"
    m.float()
    assert weight.dtype is al.float32
    assert m.to(al.float64).fc2.weight.dtype is al.float64
    m.to("cpu")
    with pytest.raises(RuntimeError, match="CPU only"):
        m.to("cuda")


def test_state_dict_round_trip():
    al.manual_seed(0)
    a, b = TwoLayer(), TwoLayer()
    sd = a.state_dict()
    assert list(sd) == ["scale", "steps", "fc1.weight", "fc1.bias", "fc2.weight"], "no non-persistent buffer"
    assert all(not v.requires_grad for v in sd.values())
    assert np.shares_memory(sd["fc1.weight"]._data, a.fc1.weight._data), "state_dict values share memory"
    result = b.load_state_dict(sd)
    assert repr(result) == "<All keys matched successfully>"
    x = al.randn(3, 4)
    assert al.equal(a(x), b(x))
    assert b.fc1.weight.is_leaf and b.fc1.weight.requires_grad


def test_load_state_dict_errors_match_pytorch(torch):
    def message(mod, strict=True):
        m = mod.nn.Sequential(mod.nn.Linear(2, 3), mod.nn.BatchNorm1d(3))
        sd = dict(m.state_dict())
        del sd["0.bias"]
        sd["extra"] = mod.zeros(1)
        sd["0.weight"] = mod.zeros(3, 3)
        with pytest.raises(RuntimeError) as info:
            m.load_state_dict(sd, strict=strict)
        return str(info.value)

    assert message(al) == message(torch)
    assert message(al, strict=False) == message(torch, strict=False)
    m = nn.Linear(2, 2)
    sd = dict(m.state_dict())
    sd["junk"] = al.zeros(1)
    del sd["bias"]
    keys = m.load_state_dict(sd, strict=False)
    assert keys.missing_keys == ["bias"] and keys.unexpected_keys == ["junk"]


def test_state_dict_keys_match_pytorch(torch):
    mine = nn.Sequential(nn.Linear(4, 3), nn.BatchNorm1d(3), nn.ReLU(), nn.Dropout(), nn.Linear(3, 2))
    theirs = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.BatchNorm1d(3), torch.nn.ReLU(),
                                 torch.nn.Dropout(), torch.nn.Linear(3, 2))
    assert list(mine.state_dict()) == list(theirs.state_dict())
    assert [n for n, _ in mine.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    copy_weights(mine, theirs)
    mine.eval()
    theirs.eval()
    x = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    close(mine(al.tensor(x)), theirs(torch.tensor(x)), 1e-5)


def test_deepcopy_of_a_module():
    m = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
    c = copy.deepcopy(m)
    assert type(c[0].weight) is nn.Parameter
    with al.no_grad():
        c[0].weight.fill_(0.0)
    assert not al.equal(m[0].weight, c[0].weight)


def test_reprs_match_pytorch(torch):
    def build(mod):
        n = mod.nn
        return [
            n.Sequential(n.Linear(64, 32), n.ReLU(), n.Dropout(0.25), n.BatchNorm1d(32), n.Flatten(),
                         n.Tanh(), n.Sigmoid(), n.Linear(32, 10, bias=False), n.Softmax(dim=1),
                         n.LogSoftmax(1), n.Identity()),
            n.ModuleList([n.Linear(2, 2), n.Linear(2, 2), n.Linear(2, 2), n.ReLU(), n.Linear(2, 2)]),
            n.ModuleList(),
            n.BatchNorm1d(3, momentum=None, affine=False, track_running_stats=False),
            n.BatchNorm2d(4, eps=1e-3),
            n.ReLU(inplace=True),
            n.MSELoss(), n.CrossEntropyLoss(label_smoothing=0.1), n.NLLLoss(), n.L1Loss(),
            n.Flatten(0, 2),
        ]

    for mine, theirs in zip(build(al), build(torch)):
        assert repr(mine) == repr(theirs)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
            self.head = nn.Linear(2, 1)

    assert repr(Net()) == (
        "Net(\n  (body): Sequential(\n    (0): Linear(in_features=2, out_features=2, bias=True)\n"
        "    (1): ReLU()\n  )\n  (head): Linear(in_features=2, out_features=1, bias=True)\n)"
    )


# ---------------------------------------------------------------------------- containers
def test_sequential_indexing():
    layers = [nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1)]
    seq = nn.Sequential(*layers)
    assert len(seq) == 3 and seq[0] is layers[0] and seq[-1] is layers[2]
    assert list(seq) == layers
    head = seq[:2]
    assert isinstance(head, nn.Sequential) and len(head) == 2 and head[1] is layers[1]
    with pytest.raises(IndexError, match="index 3 is out of range"):
        seq[3]
    seq.append(nn.Sigmoid())
    assert [n for n, _ in seq.named_children()] == ["0", "1", "2", "3"]
    del seq[1]
    assert [n for n, _ in seq.named_children()] == ["0", "1", "2"]
    x = al.randn(4, 2)
    assert al.equal(seq(x), seq[2](seq[1](seq[0](x))))
    from collections import OrderedDict

    named = nn.Sequential(OrderedDict([("hidden", nn.Linear(2, 2)), ("out", nn.Linear(2, 1))]))
    names = [n for n, _ in named.named_parameters()]
    assert names == ["hidden.weight", "hidden.bias", "out.weight", "out.bias"]


def test_module_list_and_dict_register_their_members():
    ml = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])
    assert len(list(ml.parameters())) == 6 and len(ml) == 3
    ml.append(nn.Linear(2, 1))
    assert [n for n, _ in ml.named_parameters()][-1] == "3.bias"
    md = nn.ModuleDict({"a": nn.Linear(1, 1), "b": nn.ReLU()})
    assert list(md.keys()) == ["a", "b"] and "a" in md
    assert [n for n, _ in md.named_parameters()] == ["a.weight", "a.bias"]
    with pytest.raises(NotImplementedError, match=re.escape('[ModuleList] is missing the required')):
        ml(al.zeros(1))


# ---------------------------------------------------------------------------- Linear
def test_linear_init_is_pytorchs_and_reproducible():
    al.manual_seed(0)
    lin = nn.Linear(64, 10)
    al.manual_seed(0)
    again = nn.Linear(64, 10)
    assert al.equal(lin.weight, again.weight) and al.equal(lin.bias, again.bias)
    bound = 1 / np.sqrt(64)
    w = lin.weight.detach().numpy()
    assert lin.weight.shape == (10, 64) and lin.bias.shape == (10,)
    assert lin.weight.dtype is al.float32
    assert np.abs(w).max() <= bound and np.abs(lin.bias.detach().numpy()).max() <= bound
    assert abs(w.std() - bound / np.sqrt(3)) < 0.1 * bound, "U(-b, b) has standard deviation b / sqrt(3)"
    assert nn.Linear(3, 2, dtype=al.float64).weight.dtype is al.float64


def test_linear_init_statistics_match_pytorch(torch):
    al.manual_seed(1)
    torch.manual_seed(1)
    mine = np.concatenate([nn.Linear(50, 40).weight.detach().numpy().ravel() for _ in range(5)])
    theirs = np.concatenate([torch.nn.Linear(50, 40).weight.detach().numpy().ravel() for _ in range(5)])
    assert abs(mine.max() - theirs.max()) < 0.01 and abs(mine.min() - theirs.min()) < 0.01
    assert abs(mine.std() - theirs.std()) < 0.005


@pytest.mark.parametrize("shape", [(5, 4), (2, 3, 4), (4,), (2, 2, 2, 4)])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_linear_matches_pytorch(torch, shape, bias, dtype):
    rng = np.random.default_rng(0)
    ax, tx = both(torch, rng.standard_normal(shape).astype(dtype))
    aw, tw = both(torch, rng.standard_normal((3, 4)).astype(dtype))
    ab, tb = both(torch, rng.standard_normal(3).astype(dtype)) if bias else (None, None)
    ao, to = F.linear(ax, aw, ab), torch.nn.functional.linear(tx, tw, tb)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    close(ao, to, tol)
    g = rng.standard_normal(to.shape).astype(dtype)
    ao.backward(al.tensor(g))
    to.backward(torch.tensor(g))
    close(ax.grad, tx.grad, tol)
    close(aw.grad, tw.grad, tol)
    if bias:
        close(ab.grad, tb.grad, tol)
    if not (len(shape) == 1 and not bias):  # PyTorch shows SqueezeBackward4 there, we SqueezeBackward1
        assert name(ao) == name(to)


def test_linear_graph_matches_pytorch(torch):
    rng = np.random.default_rng(1)
    ax, tx = both(torch, rng.standard_normal((5, 4)).astype(np.float32))
    lin_a = nn.Linear(4, 3)
    lin_t = torch.nn.Linear(4, 3)
    ao, to = lin_a(ax), lin_t(tx)
    assert name(ao) == name(to) == "AddmmBackward0"

    def kinds(node):
        return [type(n).__name__ if n is not None else None for n, _ in node.next_functions]

    assert kinds(ao.grad_fn) == kinds(to.grad_fn) == ["AccumulateGrad", "AccumulateGrad", "TBackward0"]
    assert ao.grad_fn.next_functions[0][0].variable is lin_a.bias
    assert ao.grad_fn.next_functions[2][0].next_functions[0][0].variable is lin_a.weight
    no_bias = torch.nn.functional.linear(tx, lin_t.weight)
    assert kinds(F.linear(ax, lin_a.weight).grad_fn) == kinds(no_bias.grad_fn)


def test_linear_errors_match_pytorch(torch):
    def msgs(mod):
        out = []
        x64 = mod.zeros(2, 4, dtype=mod.float64)
        for call in (lambda: mod.nn.functional.linear(mod.zeros(2, 5), mod.zeros(3, 4), mod.zeros(3)),
                     lambda: mod.nn.functional.linear(mod.zeros(2, 2, 5), mod.zeros(3, 4), mod.zeros(3)),
                     lambda: mod.nn.functional.linear(mod.tensor(1.0), mod.zeros(3, 4)),
                     lambda: mod.nn.functional.linear(x64, mod.zeros(3, 4), mod.zeros(3)),
                     lambda: mod.nn.functional.linear(x64, mod.zeros(3, 4))):
            with pytest.raises(RuntimeError) as info:
                call()
            out.append(str(info.value))
        return out

    assert msgs(al) == msgs(torch)


def test_linear_gradcheck_in_float64():
    al.manual_seed(0)
    lin = nn.Linear(3, 2).double()
    x = al.randn(4, 3, dtype=al.float64, requires_grad=True)
    assert gradcheck(lambda x, w, b: F.linear(x, w, b), (x, lin.weight, lin.bias))
    x3 = al.randn(2, 2, 3, dtype=al.float64, requires_grad=True)
    assert gradcheck(lambda x, w: F.linear(x, w), (x3, lin.weight))


# ---------------------------------------------------------------------------- activations and Flatten
@pytest.mark.parametrize("layer", ["ReLU", "Tanh", "Sigmoid"])
def test_activations_match_pytorch(torch, layer):
    x = np.linspace(-3, 3, 13).astype(np.float32)
    ax, tx = both(torch, x)
    ao, to = getattr(nn, layer)()(ax), getattr(torch.nn, layer)()(tx)
    close(ao, to, 1e-6)
    assert name(ao) == name(to)
    ao.sum().backward()
    to.sum().backward()
    close(ax.grad, tx.grad, 1e-6)


def test_softmax_modules_and_functions(torch):
    x = np.random.default_rng(0).standard_normal((3, 5))
    ax, tx = both(torch, x)
    close(nn.Softmax(dim=1)(ax), torch.nn.Softmax(dim=1)(tx), 1e-12)
    close(nn.LogSoftmax(dim=0)(ax), torch.nn.LogSoftmax(dim=0)(tx), 1e-12)
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax"):
        out = F.softmax(ax)
    close(out, torch.softmax(tx, 1), 1e-12)


def test_inplace_relu():
    x = al.tensor([-1.0, 2.0], requires_grad=True)
    h = x * 1
    y = nn.ReLU(inplace=True)(h)
    assert y is h and h.tolist() == [0.0, 2.0] and name(h) == "ReluBackward0"
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 1.0]


def test_flatten(torch):
    x = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
    ax, tx = both(torch, x)
    for args in ((), (0,), (1, 2), (2, -1), (0, -1)):
        ao, to = nn.Flatten(*args)(ax), torch.nn.Flatten(*args)(tx)
        assert ao.shape == to.shape
        close(ao, to, 0)
    assert nn.Flatten()(ax).grad_fn is not None


# ---------------------------------------------------------------------------- Dropout
def test_dropout_differs_between_train_and_eval():
    al.manual_seed(0)
    drop = nn.Dropout(0.5)
    x = al.ones(10_000, requires_grad=True)
    y = drop(x)
    values = set(np.unique(y.detach().numpy()).tolist())
    assert values == {0.0, 2.0}, "kept elements are scaled by 1 / (1 - p)"
    assert 0.45 < float((y == 0).float().mean()) < 0.55
    assert name(y) == "MulBackward0"
    y.sum().backward()
    assert al.equal(x.grad, y.detach()), "the gradient is the mask: 0 or 1 / (1 - p)"
    drop.eval()
    assert al.equal(drop(x), x) and drop(x).grad_fn is x.grad_fn, "eval: the input passes unchanged"


def test_dropout_is_reproducible_with_manual_seed():
    x = al.ones(100)
    al.manual_seed(3)
    a = F.dropout(x, 0.3)
    al.manual_seed(3)
    b = F.dropout(x, 0.3)
    c = F.dropout(x, 0.3)
    assert al.equal(a, b) and not al.equal(b, c)


def test_dropout_edge_cases_and_errors_match_pytorch(torch):
    ax, tx = both(torch, np.ones((4, 5), dtype=np.float32))
    for p in (0.0, 1.0):
        ao, to = F.dropout(ax, p), torch.nn.functional.dropout(tx, p)
        close(ao, to, 0)
        assert (ao.grad_fn is None) == (to.grad_fn is None)
    assert name(F.dropout(ax, 1.0)) == name(torch.nn.functional.dropout(tx, 1.0)) == "MulBackward0"
    assert name(F.dropout(ax * 1, 0.2)) == name(torch.nn.functional.dropout(tx * 1, 0.2))
    for mod in (nn, torch.nn):
        with pytest.raises(ValueError, match=r"^dropout probability has to be between 0 and 1, but got 1.5$"):
            mod.Dropout(1.5)
    with pytest.raises(ValueError, match="between 0 and 1, but got -0.1"):
        F.dropout(ax, -0.1)


def test_dropout_statistics_match_pytorch(torch):
    al.manual_seed(0)
    torch.manual_seed(0)
    x = np.ones(20_000, dtype=np.float32)
    ao = nn.Dropout(0.2)(al.tensor(x)).numpy()
    to = torch.nn.Dropout(0.2)(torch.tensor(x)).numpy()
    assert set(np.unique(ao)) == set(np.unique(to))
    assert abs((ao == 0).mean() - (to == 0).mean()) < 0.02


# ---------------------------------------------------------------------------- BatchNorm
def test_batchnorm_uses_batch_statistics_in_train_and_running_in_eval():
    bn = nn.BatchNorm1d(3)
    x = al.tensor([[1.0, 2.0, 3.0], [3.0, 6.0, 9.0]])
    y = bn(x)
    np.testing.assert_allclose(y.detach().numpy(), [[-1, -1, -1], [1, 1, 1]], atol=1e-4)
    np.testing.assert_allclose(bn.running_mean.numpy(), [0.2, 0.4, 0.6], rtol=1e-6)
    unbiased = np.array([2.0, 8.0, 18.0])  # the running variance tracks the unbiased batch variance
    np.testing.assert_allclose(bn.running_var.numpy(), 0.9 + 0.1 * unbiased, rtol=1e-6)
    assert bn.num_batches_tracked.item() == 1
    bn.eval()
    z = bn(x)
    expected = (x.numpy() - bn.running_mean.numpy()) / np.sqrt(bn.running_var.numpy() + 1e-5)
    np.testing.assert_allclose(z.detach().numpy(), expected, rtol=1e-5)
    assert not np.allclose(z.detach().numpy(), y.detach().numpy())
    assert bn.num_batches_tracked.item() == 1, "eval does not update the running statistics"
    one = bn(x[:1])
    np.testing.assert_allclose(one.detach().numpy(), z[:1].detach().numpy(), rtol=1e-6,
                               err_msg="in eval a sample's output does not depend on its batch")


@pytest.mark.parametrize("shape", [(8, 4), (6, 4, 3)])
@pytest.mark.parametrize("kwargs", [{}, {"momentum": None}, {"affine": False}, {"track_running_stats": False},
                                    {"momentum": 0.5, "eps": 1e-3}])
def test_batchnorm1d_matches_pytorch_in_train_and_eval(torch, shape, kwargs):
    rng = np.random.default_rng(0)
    mine, theirs = nn.BatchNorm1d(4, **kwargs).double(), torch.nn.BatchNorm1d(4, **kwargs).double()
    if theirs.affine:
        with torch.no_grad():
            theirs.weight.copy_(torch.tensor(rng.random(4) + 0.5))
            theirs.bias.copy_(torch.tensor(rng.standard_normal(4)))
    copy_weights(mine, theirs)
    for mode in ("train", "train", "train", "eval", "train", "eval"):
        getattr(mine, mode)()
        getattr(theirs, mode)()
        ax, tx = both(torch, rng.standard_normal(shape) * 3 + 1)
        ao, to = mine(ax), theirs(tx)
        assert name(ao) == name(to) == "NativeBatchNormBackward0"
        close(ao, to, 1e-12)
        g = rng.standard_normal(shape)
        ao.backward(al.tensor(g))
        to.backward(torch.tensor(g))
        close(ax.grad, tx.grad, 1e-12)
        if theirs.affine:
            close(mine.weight.grad, theirs.weight.grad, 1e-12)
            close(mine.bias.grad, theirs.bias.grad, 1e-12)
        for key, value in theirs.state_dict().items():
            np.testing.assert_allclose(mine.state_dict()[key].numpy(), value.numpy(), rtol=1e-12, err_msg=key)
        mine.zero_grad()
        theirs.zero_grad()


def test_batchnorm_float32_and_2d_match_pytorch(torch):
    rng = np.random.default_rng(1)
    mine, theirs = nn.BatchNorm2d(3), torch.nn.BatchNorm2d(3)
    for mode in ("train", "eval"):
        getattr(mine, mode)()
        getattr(theirs, mode)()
        ax, tx = both(torch, (rng.standard_normal((4, 3, 5, 5)) * 2).astype(np.float32))
        ao, to = mine(ax), theirs(tx)
        close(ao, to, 1e-5)
        ao.sum().backward()
        to.sum().backward()
        close(ax.grad, tx.grad, 1e-5)
    close(mine.running_var, theirs.running_var, 1e-6)


def test_batchnorm_gradcheck_in_float64():
    al.manual_seed(0)
    bn = nn.BatchNorm1d(3).double()
    with al.no_grad():
        bn.weight.copy_(al.tensor([0.5, 1.5, -1.0]))
    x = al.randn(5, 3, dtype=al.float64, requires_grad=True)
    args = (x, bn.weight, bn.bias)
    assert gradcheck(lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True), args)
    assert gradcheck(lambda x, w, b: F.batch_norm(x, bn.running_mean, bn.running_var, w, b), args)


def test_batchnorm_second_derivative():
    x = al.randn(4, 2, dtype=al.float64, requires_grad=True)
    w = al.tensor([1.5, 0.5], dtype=al.float64, requires_grad=True)
    y = F.batch_norm(x, None, None, w, None, training=True)
    (gx,) = al.autograd.grad((y ** 3).sum(), x, create_graph=True)
    gx.sum().backward()
    assert w.grad is not None and np.all(np.isfinite(w.grad.numpy()))


def test_batchnorm_errors_match_pytorch(torch):
    def msgs(mod):
        out = []
        for call in (lambda: mod.nn.BatchNorm1d(4)(mod.zeros(1, 4)),
                     lambda: mod.nn.BatchNorm1d(4)(mod.zeros(2)),
                     lambda: mod.nn.BatchNorm1d(4)(mod.zeros(2, 5)),
                     lambda: mod.nn.BatchNorm2d(4)(mod.zeros(2, 4))):
            with pytest.raises((ValueError, RuntimeError)) as info:
                call()
            out.append((type(info.value), str(info.value)))
        return out

    assert msgs(al) == msgs(torch)


# ---------------------------------------------------------------------------- losses
def test_mse_loss_matches_pytorch(torch):
    rng = np.random.default_rng(0)
    for reduction in ("mean", "sum", "none"):
        ax, tx = both(torch, rng.standard_normal((4, 3)))
        ay, ty = both(torch, rng.standard_normal((4, 3)))
        ao, to = nn.MSELoss(reduction=reduction)(ax, ay), torch.nn.MSELoss(reduction=reduction)(tx, ty)
        assert name(ao) == name(to) == "MseLossBackward0"
        close(ao, to, 1e-12)
        ao.sum().backward()
        to.sum().backward()
        close(ax.grad, tx.grad, 1e-12)
        close(ay.grad, ty.grad, 1e-12)
    ax, tx = both(torch, rng.standard_normal((4, 3)))
    close(F.l1_loss(ax, ax.detach() * 2), torch.nn.functional.l1_loss(tx, tx.detach() * 2), 1e-12)
    assert name(F.l1_loss(ax, ax.detach() * 2)) == name(torch.nn.functional.l1_loss(tx, tx.detach() * 2))


def test_mse_loss_broadcast_warning_and_errors_match_pytorch(torch):
    def run(mod):
        out = []
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            loss = mod.nn.functional.mse_loss(mod.ones(3, 1), mod.zeros(3))
        out.append([str(w.message) for w in caught])
        out.append(round(float(loss), 6))
        for call in (lambda: mod.nn.functional.mse_loss(mod.ones(3, 4), mod.zeros(3, 5)),
                     lambda: mod.nn.functional.mse_loss(mod.ones(3), mod.zeros(3), reduction="bad")):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                with pytest.raises((RuntimeError, ValueError)) as info:
                    call()
            out.append((type(info.value), str(info.value)))
        return out

    assert run(al) == run(torch)


CE_CASES = [
    ({}, (6, 5)),
    ({"reduction": "sum"}, (6, 5)),
    ({"reduction": "none"}, (6, 5)),
    ({"weight": True}, (6, 5)),
    ({"weight": True, "reduction": "none"}, (6, 5)),
    ({"ignore_index": 2}, (6, 5)),
    ({"label_smoothing": 0.1}, (6, 5)),
    ({"label_smoothing": 0.2, "weight": True, "ignore_index": 2}, (6, 5)),
    ({"label_smoothing": 0.2, "reduction": "none"}, (6, 5)),
    ({}, (5,)),
    ({}, (3, 5, 2)),
    ({"reduction": "none", "weight": True}, (3, 5, 2, 2)),
]


@pytest.mark.parametrize("kwargs,shape", CE_CASES, ids=[f"{k}-{s}" for k, s in CE_CASES])
def test_cross_entropy_matches_pytorch(torch, kwargs, shape):
    rng = np.random.default_rng(0)
    logits = rng.standard_normal(shape) * 2
    target_shape = () if len(shape) == 1 else shape[:1] + shape[2:]
    target = rng.integers(0, 5, target_shape)
    ax, tx = both(torch, logits)
    akw, tkw = dict(kwargs), dict(kwargs)
    if kwargs.get("weight"):
        w = rng.random(5) + 0.1
        akw["weight"], tkw["weight"] = al.tensor(w), torch.tensor(w)
    ao = nn.CrossEntropyLoss(**akw)(ax, al.tensor(target))
    to = torch.nn.CrossEntropyLoss(**tkw)(tx, torch.tensor(target))
    close(ao, to, 1e-12)
    ao.sum().backward()
    to.sum().backward()
    close(ax.grad, tx.grad, 1e-12)
    if not kwargs.get("label_smoothing"):
        chain_a, chain_t = [], []
        for out, chain in ((ao, chain_a), (to, chain_t)):
            node = out.grad_fn
            while node is not None:
                chain.append(type(node).__name__)
                node = node.next_functions[0][0] if node.next_functions else None
        assert chain_a == chain_t, "the graph of cross_entropy is PyTorch's: NllLoss over LogSoftmax"
        assert "LogSoftmaxBackward0" in chain_a


def test_cross_entropy_with_probabilities_matches_pytorch(torch):
    rng = np.random.default_rng(0)
    probs = rng.random((4, 3))
    probs /= probs.sum(1, keepdims=True)
    for kwargs in ({}, {"reduction": "sum"}, {"reduction": "none"}, {"label_smoothing": 0.3}):
        ax, tx = both(torch, rng.standard_normal((4, 3)))
        ao = F.cross_entropy(ax, al.tensor(probs), **kwargs)
        to = torch.nn.functional.cross_entropy(tx, torch.tensor(probs), **kwargs)
        close(ao, to, 1e-12)
        ao.sum().backward()
        to.sum().backward()
        close(ax.grad, tx.grad, 1e-12)


def test_cross_entropy_is_stable_for_huge_logits(torch):
    logits = np.array([[1e4, -1e4, 0.0], [-5e3, 5e3, 5e3]], dtype=np.float32)
    ax, tx = both(torch, logits)
    target = [0, 2]
    ao = F.cross_entropy(ax, al.tensor(target))
    to = torch.nn.functional.cross_entropy(tx, torch.tensor(target))
    assert np.isfinite(ao.item())
    close(ao, to, 1e-5)
    ao.backward()
    to.backward()
    assert np.all(np.isfinite(ax.grad.numpy()))
    close(ax.grad, tx.grad, 1e-6)


def test_cross_entropy_float32_training_batch_matches_pytorch(torch):
    rng = np.random.default_rng(0)
    ax, tx = both(torch, rng.standard_normal((64, 10)).astype(np.float32))
    target = rng.integers(0, 10, 64)
    ao = F.cross_entropy(ax, al.tensor(target))
    to = torch.nn.functional.cross_entropy(tx, torch.tensor(target))
    close(ao, to, 1e-6)
    ao.backward()
    to.backward()
    close(ax.grad, tx.grad, 1e-6)
    assert ao.dtype is al.float32


CE_ERRORS = [
    ((3, 4), [1.0, 2.0, 0.0], "float"),
    ((3, 4), [1, 2, 0, 1], "long"),
    ((3, 4), [1, 2, 5], "long"),
    ((3, 4), [1, 2, -1], "long"),
    ((3, 4), [1, 2, 0], "int32"),
    ((3, 4), [[1, 2], [0, 1], [1, 1]], "long"),
    ((4,), [1, 2], "long"),
    ((2, 3, 4), [[1, 2, 0], [0, 1, 1]], "long"),
    ((3, 4), [[1, 2, 0, 0]] * 3, "long"),
]


@pytest.mark.parametrize("shape,target,kind", CE_ERRORS)
def test_cross_entropy_errors_match_pytorch(torch, shape, target, kind):
    def message(mod):
        dtype = {"float": mod.float32, "long": mod.int64, "int32": mod.int32}[kind]
        with pytest.raises((RuntimeError, ValueError, IndexError)) as info:
            mod.nn.functional.cross_entropy(mod.zeros(*shape), mod.tensor(target, dtype=dtype))
        return type(info.value), str(info.value)

    assert message(al) == message(torch)


def test_cross_entropy_other_errors_match_pytorch(torch):
    def msgs(mod):
        out = []
        x, t = mod.zeros(3, 4), mod.tensor([1, 2, 0])
        for call in (lambda: mod.nn.functional.cross_entropy(x, t, reduction="bad"),
                     lambda: mod.nn.functional.cross_entropy(x, t, label_smoothing=1.5),
                     lambda: mod.nn.functional.cross_entropy(x, t, weight=mod.ones(3))):
            with pytest.raises((RuntimeError, ValueError)) as info:
                call()
            out.append((type(info.value), str(info.value)))
        return out

    assert msgs(al) == msgs(torch)


def test_nll_loss_and_all_ignored_targets(torch):
    rng = np.random.default_rng(0)
    ax, tx = both(torch, rng.standard_normal((4, 3)))
    target = [0, 2, 1, 1]
    ao = F.nll_loss(F.log_softmax(ax, 1), al.tensor(target))
    to = torch.nn.functional.nll_loss(torch.log_softmax(tx, 1), torch.tensor(target))
    close(ao, to, 1e-12)
    ignored = F.cross_entropy(ax, al.tensor([-100] * 4))
    assert np.isnan(ignored.item())
    assert np.isnan(torch.nn.functional.cross_entropy(tx, torch.tensor([-100] * 4)).item())


def test_losses_gradcheck_in_float64():
    x = al.randn(4, 3, dtype=al.float64, requires_grad=True)
    y = al.randn(4, 3, dtype=al.float64, requires_grad=True)
    t = al.tensor([0, 2, 1, 2])
    w = al.tensor([0.5, 1.0, 2.0], dtype=al.float64)
    assert gradcheck(lambda x, y: F.mse_loss(x, y), (x, y))
    assert gradcheck(lambda x: F.cross_entropy(x, t), (x,))
    assert gradcheck(lambda x: F.cross_entropy(x, t, weight=w, reduction="none", label_smoothing=0.1), (x,))
    assert al.autograd.gradgradcheck(lambda x: F.cross_entropy(x, t, weight=w), (x,))


def test_one_hot(torch):
    for values, classes in (([0, 2, 1], -1), ([1, 1], 4)):
        mine = F.one_hot(al.tensor(values), classes)
        theirs = torch.nn.functional.one_hot(torch.tensor(values), classes)
        assert mine.tolist() == theirs.tolist() and mine.dtype is al.int64
    for mod, bad in ((al, ([0, -2, 1], -1)), (al, ([0, 5, 1], 3))):
        with pytest.raises(RuntimeError, match="Class values must be"):
            mod.nn.functional.one_hot(mod.tensor(bad[0]), bad[1])


# ---------------------------------------------------------------------------- init and utils
def test_init_functions(torch):
    for nl, param in (("linear", None), ("relu", None), ("tanh", None), ("leaky_relu", None),
                      ("leaky_relu", 0.2), ("sigmoid", None), ("selu", None)):
        assert nn.init.calculate_gain(nl, param) == pytest.approx(torch.nn.init.calculate_gain(nl, param))
    t = al.empty(200, 100)
    nn.init.xavier_uniform_(t)
    assert np.abs(t.numpy()).max() <= np.sqrt(6 / 300)
    nn.init.kaiming_normal_(t, nonlinearity="relu")
    assert abs(t.numpy().std() - np.sqrt(2 / 100)) < 0.01
    nn.init.trunc_normal_(t, std=1.0, a=-0.5, b=0.5)
    assert np.abs(t.numpy()).max() <= 0.5
    nn.init.constant_(t, 0.25)
    assert np.all(t.numpy() == 0.25)
    nn.init.eye_(t)
    assert np.trace(t.numpy()) == 100
    w = nn.Parameter(al.empty(3, 4))
    nn.init.normal_(w, generator=al.Generator().manual_seed(0))
    assert w.is_leaf and w.requires_grad, "initialising a parameter records nothing"
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        nn.init.xavier_uniform_(al.empty(3))


def test_clip_grad_norm_matches_pytorch(torch):
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal(5).astype(np.float32)]
    for max_norm, norm_type in ((1.0, 2.0), (100.0, 2.0), (0.5, float("inf")), (1.0, 1.0)):
        mine = [al.tensor(a, requires_grad=True) for a in arrays]
        theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
        for ps, mod in ((mine, al), (theirs, torch)):
            sum(((p * p * 3).sum() for p in ps), mod.tensor(0.0)).backward()
        total_a = nn.utils.clip_grad_norm_(mine, max_norm, norm_type)
        total_t = torch.nn.utils.clip_grad_norm_(theirs, max_norm, norm_type)
        np.testing.assert_allclose(total_a.item(), total_t.item(), rtol=1e-6)
        for a, t in zip(mine, theirs):
            close(a.grad, t.grad, 1e-6)
    vec = nn.utils.parameters_to_vector(mine)
    assert vec.shape == (17,)
    nn.utils.vector_to_parameters(vec.detach() * 0, mine)
    assert all(float(p.abs().sum()) == 0 for p in mine)


# ---------------------------------------------------------------------------- layering
def test_core_never_imports_nn_optim_or_data():
    root = pathlib.Path(al.__file__).parent
    core = [root / f for f in ("tensor.py", "function.py", "engine.py", "creation.py", "dtypes.py",
                               "grad_mode.py", "random.py", "_tensor_str.py")]
    core += list((root / "ops").rglob("*.py")) + list((root / "autograd").rglob("*.py"))
    pattern = re.compile(r"^\s*(from|import)\s+(\.+|autograd_lab\.)(nn|optim|data|utils)\b", re.M)
    offenders = [str(p.relative_to(root)) for p in core if p.exists() and pattern.search(p.read_text())]
    assert offenders == []


def test_loss_modules_map_the_legacy_arguments_with_pytorchs_warning():
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated, please use "
                                         "reduction='none' instead."):
        loss = nn.MSELoss(reduce=False)
    assert loss.reduction == "none"
    with pytest.warns(UserWarning, match="reduction='sum'"):
        assert nn.L1Loss(size_average=False).reduction == "sum"
