"""nn/modules/module.py, container.py, flatten.py and nn/parameter.py: Parameter, Module (registration,
train/eval, hooks, state_dict, to, deepcopy, reprs), Sequential, ModuleList/Dict, ParameterList,
Flatten/Unflatten; and what the package imports (the core never imports nn)."""

from __future__ import annotations

import copy
import pathlib
import pickle
import re

import numpy as np
import pytest
from helpers import both, close, copy_weights, node_name, pair, rng, same_error, torch

import autograd_lab as al
from autograd_lab import nn


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


def test_flatten(torch):
    x = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
    ax, tx = pair(torch, x)
    for args in ((), (0,), (1, 2), (2, -1), (0, -1)):
        ao, to = nn.Flatten(*args)(ax), torch.nn.Flatten(*args)(tx)
        assert ao.shape == to.shape
        close(ao, to, 0)
    assert nn.Flatten()(ax).grad_fn is not None


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


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="needs PyTorch")
def test_unflatten_matches_torch():
    arr = rng(44).standard_normal((3, 4, 6)).astype(np.float32)
    for dim, sizes in [(1, (2, 2)), (-1, (3, -1)), (2, [6]), (0, (1, 3, 1)), (1, [2, 2])]:
        ma, mt = nn.Unflatten(dim, sizes), torch.nn.Unflatten(dim, sizes)
        assert repr(ma) == repr(mt)
        a, t = both(arr)
        ya, yt = ma(a), mt(t)
        assert tuple(ya.shape) == tuple(yt.shape)
        close(ya, yt, 0)
        assert node_name(ya) == node_name(yt) == "ViewBackward0"
        ya.sum().backward()
        assert a.grad.shape == a.shape
    x = np.ones((3, 4), dtype=np.float32)
    same_error(
        lambda: nn.Unflatten(1, (3, 2))(al.tensor(x)), lambda: torch.nn.Unflatten(1, (3, 2))(torch.tensor(x))
    )
    same_error(lambda: nn.Unflatten(1, 2), lambda: torch.nn.Unflatten(1, 2))
    same_error(lambda: nn.Unflatten(1, (2.0, 2)), lambda: torch.nn.Unflatten(1, (2.0, 2)))
    same_error(
        lambda: nn.Unflatten(2, (2, 2))(al.tensor(x)), lambda: torch.nn.Unflatten(2, (2, 2))(torch.tensor(x))
    )


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="needs PyTorch")
def test_parameter_list_matches_torch():
    arrs = [np.ones((2, 3), dtype=np.float32), np.zeros(4, dtype=np.float64)]
    la = nn.ParameterList([nn.Parameter(al.tensor(arrs[0])), al.tensor(arrs[1])])
    lt = torch.nn.ParameterList([torch.nn.Parameter(torch.tensor(arrs[0])), torch.tensor(arrs[1])])
    assert repr(la) == repr(lt)
    assert repr(nn.ParameterList()) == repr(torch.nn.ParameterList())
    assert repr(nn.ParameterList([al.ones(2)])) == repr(torch.nn.ParameterList([torch.ones(2)]))
    assert len(la) == len(lt) == 2
    assert all(isinstance(p, nn.Parameter) for p in la)
    assert list(la.state_dict()) == list(lt.state_dict())
    assert [n for n, _ in la.named_parameters()] == [n for n, _ in lt.named_parameters()]
    la.append(al.ones(1))
    lt.append(torch.ones(1))
    la.extend([al.ones(2)])
    lt.extend([torch.ones(2)])
    la += [al.ones(3)]
    lt += [torch.ones(3)]
    assert repr(la) == repr(lt)
    assert repr(la[1:4]) == repr(lt[1:4])
    assert la[-1].shape == (3,)
    la[0] = al.zeros(5)
    lt[0] = torch.zeros(5)
    assert repr(la) == repr(lt)
    same_error(lambda: la[9], lambda: lt[9])
    same_error(lambda: la.extend(al.ones(2)), lambda: lt.extend(torch.ones(2)))
    same_error(lambda: la(), lambda: lt())
    model_a = nn.Module()
    model_a.ps = nn.ParameterList([al.ones(2)])
    model_t = torch.nn.Module()
    model_t.ps = torch.nn.ParameterList([torch.ones(2)])
    assert list(model_a.state_dict()) == list(model_t.state_dict())
    assert repr(model_a) == repr(model_t)
    params = list(model_a.parameters())
    assert len(params) == 1 and params[0] is model_a.ps[0]


def test_parameter_list_trains():
    al.manual_seed(0)
    ps = nn.ParameterList([al.randn(3), al.randn(3)])
    loss = (ps[0] * ps[1]).sum()
    loss.backward()
    np.testing.assert_allclose(ps[0].grad.numpy(), ps[1].detach().numpy())
