"""optim/optimizer.py and the algorithms (sgd.py, adam.py, ...): zero_grad, errors, parameter groups,
the shared parameter loop, state_dict; each algorithm's known values and its steps against PyTorch's."""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest
from helpers import oracle, torch

import autograd_lab as al
from autograd_lab import nn, optim
from autograd_lab.nn import functional as F


def test_seed_example_gradients_accumulate_until_zero_grad():
    w = al.tensor(2.0, requires_grad=True)
    opt = optim.SGD([w], lr=0.1)
    (w * w).sum().backward()
    assert w.grad.item() == pytest.approx(4.0), "dy/dw = 2w = 4.0"
    opt.step()
    assert w.item() == pytest.approx(1.6), "w - lr * grad = 2.0 - 0.1 * 4.0 = 1.6"
    (w * w).sum().backward()
    assert w.grad.item() == pytest.approx(7.2), "without zero_grad the new 3.2 is added to the old 4.0"
    opt.zero_grad()
    assert w.grad is None, "zero_grad sets .grad to None by default (set_to_none=True), as PyTorch"
    (w * w).sum().backward()
    assert w.grad.item() == pytest.approx(3.2), "after zero_grad only the new gradient 2 * 1.6 remains"


def test_zero_grad_set_to_none_false_fills_zeros_in_place():
    w = al.tensor([1.0, 2.0], requires_grad=True)
    opt = optim.SGD([w], lr=0.1)
    (w * w).sum().backward()
    grad = w.grad
    opt.zero_grad(set_to_none=False)
    assert w.grad is grad
    assert w.grad.tolist() == [0.0, 0.0]


def test_zero_grad_default_matches_pytorch(torch):
    tw = torch.tensor(2.0, requires_grad=True)
    topt = torch.optim.SGD([tw], lr=0.1)
    (tw * tw).sum().backward()
    topt.zero_grad()
    assert tw.grad is None


def test_step_skips_parameters_without_grad():
    a = al.tensor([1.0], requires_grad=True)
    b = al.tensor([1.0], requires_grad=True)
    opt = optim.SGD([a, b], lr=0.5, momentum=0.9)
    (a * 3).sum().backward()
    opt.step()
    assert a.tolist() == [pytest.approx(-0.5)]
    assert b.tolist() == [1.0]
    assert b not in opt.state  # no state for a parameter that never had a gradient


def test_step_does_not_record_and_keeps_leaves():
    w = al.tensor([1.0, 2.0], requires_grad=True)
    opt = optim.Adam([w], lr=0.1)
    (w * w).sum().backward()
    opt.step()
    assert w.is_leaf and w.grad_fn is None
    assert w._version > 0, "a step changes the parameter in place, which bumps its version"


def test_invalid_learning_rate():
    w = al.tensor(1.0, requires_grad=True)
    with pytest.raises(ValueError, match="^Invalid learning rate: -1$"):
        optim.SGD([w], lr=-1)
    with pytest.raises(ValueError, match="^Invalid learning rate: -1$"):
        optim.Adam([w], lr=-1)


def test_non_leaf_parameter():
    w = al.tensor(1.0, requires_grad=True)
    with pytest.raises(ValueError, match="^can't optimize a non-leaf Tensor$"):
        optim.SGD([w * 2], lr=0.1)


def test_empty_parameter_list():
    with pytest.raises(ValueError, match="^optimizer got an empty parameter list$"):
        optim.SGD([], lr=0.1)
    with pytest.raises(ValueError, match="^optimizer got an empty parameter list$"):
        optim.Adam(nn.ReLU().parameters())


def test_other_errors():
    w = al.tensor(1.0, requires_grad=True)
    with pytest.raises(TypeError, match="iterable of Tensors or dicts, but got torch.FloatTensor"):
        optim.SGD(w, lr=0.1)
    with pytest.raises(TypeError, match="optimizer can only optimize Tensors, but one of the params is int"):
        optim.SGD([1], lr=0.1)
    with pytest.raises(ValueError, match="Nesterov momentum requires a momentum and zero dampening"):
        optim.SGD([w], lr=0.1, nesterov=True)
    with pytest.raises(ValueError, match="Invalid momentum value: -0.5"):
        optim.SGD([w], lr=0.1, momentum=-0.5)
    with pytest.raises(ValueError, match="Invalid beta parameter at index 1: 1.0"):
        optim.Adam([w], betas=(0.9, 1.0))
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter group"):
        optim.SGD([{"params": [w]}, {"params": [w]}], lr=0.1)
    with pytest.raises(TypeError, match="ordered collections"):
        optim.SGD([{"params": {w}}], lr=0.1)


def test_error_texts_match_pytorch(torch):
    cases = [
        (lambda m, w: m.optim.SGD([w], lr=-1), ValueError),
        (lambda m, w: m.optim.SGD([w * 2], lr=0.1), ValueError),
        (lambda m, w: m.optim.SGD([], lr=0.1), ValueError),
        (lambda m, w: m.optim.Adam([w], eps=-1.0), ValueError),
        (lambda m, w: m.optim.SGD([w], lr=0.1, nesterov=True), ValueError),
    ]
    for make, kind in cases:
        msgs = []
        for mod in (al, torch):
            w = mod.tensor(1.0, requires_grad=True)
            with pytest.raises(kind) as info:
                make(mod, w)
            msgs.append(str(info.value))
        assert msgs[0] == msgs[1]


def test_param_groups_have_their_own_lr():
    a = al.tensor([1.0], requires_grad=True)
    b = al.tensor([1.0], requires_grad=True)
    opt = optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.01}], lr=0.1)
    assert [g["lr"] for g in opt.param_groups] == [0.1, 0.01]
    (a + b).sum().backward()
    opt.step()
    assert a.item() == pytest.approx(0.9)
    assert b.item() == pytest.approx(0.99)
    opt.param_groups[1]["lr"] = 1.0  # changing a group's lr takes effect at the next step
    opt.step()
    assert b.item() == pytest.approx(-0.01)


def test_add_param_group_and_repr():
    a = al.tensor([1.0], requires_grad=True)
    b = al.tensor([1.0], requires_grad=True)
    opt = optim.SGD([a], lr=0.1, momentum=0.9)
    opt.add_param_group({"params": b, "lr": 0.5})
    assert opt.param_groups[1]["momentum"] == 0.9, "a new group takes the defaults it does not set"
    text = repr(opt)
    assert text.startswith("SGD (\nParameter Group 0\n") and "    lr: 0.5\n" in text


def test_repr_matches_pytorch(torch):
    mine = optim.Adam([al.tensor(1.0, requires_grad=True)], lr=0.01)
    theirs = torch.optim.Adam([torch.tensor(1.0, requires_grad=True)], lr=0.01)
    assert repr(mine) == repr(theirs)
    mine = optim.SGD([al.tensor(1.0, requires_grad=True)], lr=0.01, momentum=0.9)
    theirs = torch.optim.SGD([torch.tensor(1.0, requires_grad=True)], lr=0.01, momentum=0.9)
    assert repr(mine) == repr(theirs)


SGD_CONFIGS = [
    {"lr": 0.1},
    {"lr": 0.05, "momentum": 0.9},
    {"lr": 0.05, "momentum": 0.9, "dampening": 0.3},
    {"lr": 0.05, "momentum": 0.9, "nesterov": True},
    {"lr": 0.05, "weight_decay": 0.1},
    {"lr": 0.05, "momentum": 0.8, "weight_decay": 0.01, "nesterov": True},
    {"lr": 0.02, "momentum": 0.5, "maximize": True},
]


ADAM_CONFIGS = [
    ("Adam", {}),
    ("Adam", {"lr": 0.01, "amsgrad": True}),
    ("Adam", {"lr": 0.01, "weight_decay": 0.1}),
    ("Adam", {"lr": 0.01, "betas": (0.3, 0.4), "eps": 1e-6}),
    ("Adam", {"lr": 0.01, "maximize": True}),
    ("AdamW", {"lr": 0.01}),
    ("AdamW", {"lr": 0.01, "weight_decay": 0.5, "amsgrad": True}),
]


def _problem(dtype):
    rng = np.random.default_rng(7)
    x = rng.standard_normal((16, 5)).astype(dtype)
    y = rng.integers(0, 3, 16)
    params = [rng.standard_normal((8, 5)) * 0.5, rng.standard_normal(8) * 0.1,
              rng.standard_normal((3, 8)) * 0.5, rng.standard_normal(3) * 0.1]
    return x, y, [p.astype(dtype) for p in params]


def _loss(functional, x, y, p):
    h = functional.linear(x, p[0], p[1]).tanh()
    return functional.cross_entropy(functional.linear(h, p[2], p[3]), y) + (p[0] * p[0]).sum() * 0.01


def _run_both(torch, make, dtype, steps=20):
    x, y, init = _problem(dtype)
    mine = [al.tensor(p, requires_grad=True) for p in init]
    theirs = [torch.tensor(p, requires_grad=True) for p in init]
    opt_a, opt_t = make(optim, mine), make(torch.optim, theirs)
    xa, ya, xt, yt = al.tensor(x), al.tensor(y), torch.tensor(x), torch.tensor(y)
    worst = 0.0
    for _ in range(steps):
        for opt, functional, xs, ys, ps in ((opt_a, F, xa, ya, mine),
                                            (opt_t, torch.nn.functional, xt, yt, theirs)):
            opt.zero_grad()
            _loss(functional, xs, ys, ps).backward()
            opt.step()
        for a, t in zip(mine, theirs):
            ref = t.detach().numpy()
            worst = max(worst, float(np.max(np.abs(a.detach().numpy() - ref) / (1 + np.abs(ref)))))
    return worst, opt_a, opt_t


@pytest.mark.torch
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("config", SGD_CONFIGS, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()))
def test_sgd_matches_pytorch_for_20_steps(config, dtype, torch):
    worst, opt_a, opt_t = _run_both(torch, lambda m, ps: m.SGD(ps, **config), dtype)
    assert worst < (2e-5 if dtype == np.float32 else 1e-12), f"largest relative difference {worst}"
    if config.get("momentum"):
        buf_a = opt_a.state[opt_a.param_groups[0]["params"][0]]["momentum_buffer"]
        buf_t = opt_t.state[opt_t.param_groups[0]["params"][0]]["momentum_buffer"]
        np.testing.assert_allclose(buf_a.numpy(), buf_t.numpy(), rtol=1e-4, atol=1e-6)


@pytest.mark.torch
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name,config", ADAM_CONFIGS,
                         ids=[f"{n}:" + ",".join(f"{k}={v}" for k, v in c.items()) for n, c in ADAM_CONFIGS])
def test_adam_matches_pytorch_for_20_steps(name, config, dtype, torch):
    worst, opt_a, opt_t = _run_both(torch, lambda m, ps: getattr(m, name)(ps, **config), dtype)
    assert worst < (2e-5 if dtype == np.float32 else 1e-12), f"largest relative difference {worst}"
    state_a = opt_a.state[opt_a.param_groups[0]["params"][0]]
    state_t = opt_t.state[opt_t.param_groups[0]["params"][0]]
    assert sorted(state_a) == sorted(state_t)
    assert state_a["step"].item() == state_t["step"].item() == 20
    assert state_a["step"].dtype is al.float32
    for key in ("exp_avg", "exp_avg_sq"):
        np.testing.assert_allclose(state_a[key].numpy(), state_t[key].numpy(), rtol=1e-4, atol=1e-7)


def test_state_dict_layout_matches_pytorch(torch):
    for name, kwargs in (("SGD", {"lr": 0.1, "momentum": 0.9}), ("Adam", {"amsgrad": True}), ("AdamW", {})):
        sds = []
        for mod in (al, torch):
            a = mod.tensor([1.0, 2.0], requires_grad=True)
            b = mod.tensor([3.0], requires_grad=True)
            opt = getattr(mod.optim, name)([{"params": [a]}, {"params": [b], "lr": 0.5}], **kwargs)
            ((a * a).sum() + (b * b).sum()).backward()
            opt.step()
            sds.append(opt.state_dict())
        mine, theirs = sds
        assert mine["param_groups"] == theirs["param_groups"]
        assert list(mine["state"]) == list(theirs["state"]) == [0, 1]
        for k in mine["state"]:
            assert sorted(mine["state"][k]) == sorted(theirs["state"][k])
            for key, value in mine["state"][k].items():
                np.testing.assert_allclose(value.numpy(), theirs["state"][k][key].numpy(), rtol=1e-6)


@pytest.mark.parametrize("name", ["SGD", "Adam"])
def test_state_dict_round_trip_continues_the_same_trajectory(name):
    def make(params):
        return optim.SGD(params, lr=0.1, momentum=0.9) if name == "SGD" else optim.Adam(params, lr=0.1)

    def loss(w):
        return ((w - al.tensor([1.0, -2.0, 3.0])) ** 2).sum() + (w ** 4).sum() * 0.01

    w = al.tensor([0.5, 0.5, 0.5], requires_grad=True)
    opt = make([w])
    for _ in range(3):
        opt.zero_grad()
        loss(w).backward()
        opt.step()
    saved_w, saved_opt = w.detach().clone(), copy.deepcopy(opt.state_dict())
    for _ in range(4):
        opt.zero_grad()
        loss(w).backward()
        opt.step()

    w2 = saved_w.clone().requires_grad_()
    opt2 = make([w2])
    opt2.load_state_dict(saved_opt)
    assert opt2.state_dict()["param_groups"] == saved_opt["param_groups"]
    for _ in range(4):
        opt2.zero_grad()
        loss(w2).backward()
        opt2.step()
    np.testing.assert_allclose(w2.detach().numpy(), w.detach().numpy(), rtol=0, atol=0)


def test_load_state_dict_errors():
    w = al.tensor([1.0], requires_grad=True)
    v = al.tensor([1.0], requires_grad=True)
    sd = optim.SGD([w], lr=0.1).state_dict()
    with pytest.raises(ValueError, match="different number of parameter groups"):
        optim.SGD([{"params": [w]}, {"params": [v]}], lr=0.1).load_state_dict(sd)
    with pytest.raises(ValueError, match="doesn't match the size of optimizer's group"):
        optim.SGD([w, v], lr=0.1).load_state_dict(sd)


def test_closure_is_evaluated_with_grad():
    w = al.tensor([1.0], requires_grad=True)
    opt = optim.SGD([w], lr=0.25)

    def closure():
        opt.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        return loss

    loss = opt.step(closure)
    assert loss.item() == 1.0
    assert w.item() == pytest.approx(0.5)


def test_module_parameters_with_optimizer():
    al.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    opt = optim.SGD(model.parameters(), lr=0.1)
    assert len(opt.param_groups[0]["params"]) == 4
    x, y = al.randn(5, 3), al.tensor([0, 1, 0, 1, 1])
    before = F.cross_entropy(model(x), y).item()
    for _ in range(20):
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()
    assert F.cross_entropy(model(x), y).item() < before


class _SignSGD(optim.Optimizer):
    """An algorithm written as PyTorch's subclasses are here: only its state and its update."""

    def __init__(self, params, lr=0.1, weight_decay=0.0, maximize=False, decoupled_weight_decay=False):
        super().__init__(params, {"lr": lr, "weight_decay": weight_decay, "maximize": maximize,
                                  "decoupled_weight_decay": decoupled_weight_decay})

    def _init_state(self, p, group):
        return {"step": al.tensor(0.0), "seen": al.zeros_like(p)}

    def _update(self, p, grad, state, group):
        state["seen"].add_(grad)
        p.add_(grad.sign(), alpha=-group["lr"])


def test_the_optimizer_loop_gives_every_algorithm_state_maximize_and_weight_decay():
    w = al.tensor([1.0, -2.0], requires_grad=True)
    unused = al.tensor([5.0], requires_grad=True)
    opt = _SignSGD([w, unused], weight_decay=0.5, maximize=True)
    (w * al.tensor([1.0, 1.0])).sum().backward()  # g = [1, 1]
    opt.step()
    # maximize: g = -1; weight decay added after: g = -1 + 0.5 w = [-0.5, -2]; p -= 0.1 sign(g)
    np.testing.assert_allclose(w.detach().numpy(), [1.1, -1.9], rtol=1e-6)
    assert opt.state[w]["step"].item() == 1.0 and opt.state[w]["seen"].tolist() == [-0.5, -2.0]
    assert unused not in opt.state, "a parameter without a gradient gets no state"
    opt.step()
    assert opt.state[w]["step"].item() == 2.0
    decoupled = _SignSGD([w], lr=0.1, weight_decay=0.5, decoupled_weight_decay=True)
    before = w.detach().clone()
    decoupled.step()  # p *= 1 - lr * wd, then the update with the plain gradient
    np.testing.assert_allclose(w.detach().numpy(), before.numpy() * 0.95 - 0.1, rtol=1e-6)


def test_sgd_without_momentum_keeps_no_state_as_pytorch():
    w = al.tensor([1.0], requires_grad=True)
    opt = optim.SGD([w], lr=0.1)
    (w * 2).sum().backward()
    opt.step()
    assert opt.state_dict()["state"] == {}
    m = optim.SGD([w], lr=0.1, momentum=0.9)
    m.step()
    assert list(m.state_dict()["state"][0]) == ["momentum_buffer"]


def _one_step(make, p0, g):
    w = al.tensor(p0, dtype=al.float64, requires_grad=True)
    opt = make([w])
    w.grad = al.tensor(g, dtype=al.float64)
    opt.step()
    return w.detach().numpy(), opt


def test_rmsprop_first_step_known_value():
    # v = (1 - α) g², p -= lr * g / (sqrt(v) + eps) = lr * sign(g) / sqrt(1 - α)
    out, opt = _one_step(lambda ps: optim.RMSprop(ps, lr=0.01, alpha=0.75, eps=0.0), [1.0, 1.0], [2.0, -3.0])
    np.testing.assert_allclose(out, [1 - 0.02, 1 + 0.02], rtol=1e-12)
    state = opt.state[opt.param_groups[0]["params"][0]]
    assert sorted(state) == ["square_avg", "step"]
    np.testing.assert_allclose(state["square_avg"].numpy(), [1.0, 2.25])


def test_rmsprop_centered_and_momentum_state():
    _, opt = _one_step(lambda ps: optim.RMSprop(ps, momentum=0.9, centered=True), [1.0], [2.0])
    state = opt.state[opt.param_groups[0]["params"][0]]
    assert sorted(state) == ["grad_avg", "momentum_buffer", "square_avg", "step"]
    # grad_avg = 0.01 * 2; square_avg = 0.01 * 4; avg = sqrt(0.04 - 0.0004)
    np.testing.assert_allclose(state["momentum_buffer"].numpy(), [2.0 / (math.sqrt(0.0396) + 1e-8)])


def test_adagrad_known_values_and_lr_decay():
    # first step: sum = g², p -= lr * g / |g|; second step with lr_decay: clr = lr / (1 + lr_decay)
    w = al.tensor([0.0], requires_grad=True)
    opt = optim.Adagrad([w], lr=0.5, lr_decay=1.0, eps=0.0, initial_accumulator_value=0.0)
    assert opt.state[w]["sum"].tolist() == [0.0], "Adagrad creates its state at construction"
    w.grad = al.tensor([3.0])
    opt.step()
    assert w.tolist() == [pytest.approx(-0.5)]
    w.grad = al.tensor([4.0])
    opt.step()
    assert w.tolist() == [pytest.approx(-0.5 - 0.25 * 4.0 / 5.0)]
    assert opt.state[w]["step"].item() == 2


def test_adadelta_first_step_known_value():
    # δ = sqrt(eps) / sqrt((1 - ρ) g² + eps) * g
    out, _ = _one_step(lambda ps: optim.Adadelta(ps, lr=1.0, rho=0.9, eps=1e-6), [0.0], [2.0])
    np.testing.assert_allclose(out, [-math.sqrt(1e-6) / math.sqrt(0.4 + 1e-6) * 2.0], rtol=1e-12)


def test_adamax_first_step_is_lr_times_sign():
    out, _ = _one_step(lambda ps: optim.Adamax(ps, lr=0.1, eps=0.0), [0.0, 0.0], [5.0, -0.2])
    np.testing.assert_allclose(out, [-0.1, 0.1], rtol=1e-12)


def test_radam_first_steps_are_sgd_with_momentum():
    # ρ_t <= 5 for the first steps: p -= lr * m / (1 - β1^t), which is lr * g on step 1
    out, _ = _one_step(lambda ps: optim.RAdam(ps, lr=0.1), [1.0], [2.0])
    np.testing.assert_allclose(out, [1.0 - 0.2], rtol=1e-12)


def test_nadam_keeps_mu_product_as_float32_scalar():
    _, opt = _one_step(lambda ps: optim.NAdam(ps), [1.0], [2.0])
    state = opt.state[opt.param_groups[0]["params"][0]]
    assert sorted(state) == ["exp_avg", "exp_avg_sq", "mu_product", "step"]
    assert state["mu_product"].dtype is al.float32
    mu = 0.9 * (1 - 0.5 * 0.96 ** 0.004)
    assert state["mu_product"].item() == pytest.approx(mu, rel=1e-6)


def test_new_optimizer_errors():
    w = al.tensor(1.0, requires_grad=True)
    with pytest.raises(ValueError, match="^Invalid alpha value: -0.1$"):
        optim.RMSprop([w], alpha=-0.1)
    with pytest.raises(ValueError, match="^Invalid lr_decay value: -1$"):
        optim.Adagrad([w], lr_decay=-1)
    with pytest.raises(ValueError, match="^Invalid rho value: 1.5$"):
        optim.Adadelta([w], rho=1.5)
    with pytest.raises(ValueError, match="^Invalid momentum_decay value: -1$"):
        optim.NAdam([w], momentum_decay=-1)


OPTIMIZER_CONFIGS = [
    ("RMSprop", {}),
    ("RMSprop", {"lr": 0.01, "alpha": 0.9, "eps": 1e-6}),
    ("RMSprop", {"lr": 0.01, "momentum": 0.9}),
    ("RMSprop", {"lr": 0.01, "centered": True}),
    ("RMSprop", {"lr": 0.005, "centered": True, "momentum": 0.5, "weight_decay": 0.1}),
    ("RMSprop", {"lr": 0.01, "maximize": True}),
    ("Adagrad", {}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.05}),
    ("Adagrad", {"lr": 0.1, "weight_decay": 0.1, "initial_accumulator_value": 0.5}),
    ("Adagrad", {"lr": 0.1, "eps": 1e-3, "maximize": True}),
    ("Adadelta", {}),
    ("Adadelta", {"lr": 0.5, "rho": 0.5, "eps": 1e-4, "weight_decay": 0.1}),
    ("Adadelta", {"maximize": True}),
    ("NAdam", {}),
    ("NAdam", {"lr": 0.01, "betas": (0.8, 0.9), "momentum_decay": 0.01}),
    ("NAdam", {"lr": 0.01, "weight_decay": 0.1}),
    ("NAdam", {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("NAdam", {"maximize": True}),
    ("RAdam", {}),
    ("RAdam", {"lr": 0.01, "betas": (0.9, 0.5)}),
    ("RAdam", {"lr": 0.01, "weight_decay": 0.1}),
    ("RAdam", {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("Adamax", {}),
    ("Adamax", {"lr": 0.01, "betas": (0.5, 0.6), "eps": 1e-4, "weight_decay": 0.1}),
    ("Adamax", {"maximize": True}),
]


CONFIG_IDS = [f"{n}:" + ",".join(f"{k}={v}" for k, v in c.items()) for n, c in OPTIMIZER_CONFIGS]


def _run(mod, functional, make, dtype, steps, params=None, opt=None):
    x, y, init = _problem(dtype)
    ps = params if params is not None else [mod.tensor(p, requires_grad=True) for p in init]
    opt = opt if opt is not None else make(mod.optim, ps)
    xs, ys = mod.tensor(x), mod.tensor(y)
    for _ in range(steps):
        opt.zero_grad()
        _loss(functional, xs, ys, ps).backward()
        opt.step()
    return ps, opt


def _worst(mine, theirs):
    worst = 0.0
    for a, t in zip(mine, theirs):
        ref = t.detach().numpy()
        worst = max(worst, float(np.max(np.abs(a.detach().numpy() - ref) / (1 + np.abs(ref)))))
    return worst


@pytest.mark.torch
@oracle
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name,config", OPTIMIZER_CONFIGS, ids=CONFIG_IDS)
def test_optimizer_matches_pytorch_for_20_steps(name, config, dtype):
    def make(m, ps):
        return getattr(m, name)(ps, **config)

    mine, opt_a = _run(al, F, make, dtype, 20)
    theirs, opt_t = _run(torch, torch.nn.functional, make, dtype, 20)
    worst = _worst(mine, theirs)
    assert worst < (2e-5 if dtype == np.float32 else 1e-12), f"largest relative difference {worst}"
    assert mine[0].dtype is (al.float32 if dtype == np.float32 else al.float64)
    for pa, pt in zip(opt_a.param_groups[0]["params"], opt_t.param_groups[0]["params"]):
        state_a, state_t = opt_a.state[pa], opt_t.state[pt]
        assert sorted(state_a) == sorted(state_t)
        for key, value in state_t.items():
            assert state_a[key].dtype.itemsize == value.dtype.itemsize, key
            tol = 1e-4 if dtype == np.float32 else 1e-10
            scale = 1 + float(np.max(np.abs(value.numpy())))  # cancellation: compare to the largest entry
            np.testing.assert_allclose(state_a[key].numpy(), value.numpy(), rtol=tol, atol=tol * scale,
                                       err_msg=key)
    assert opt_a.defaults == opt_t.defaults
    assert repr(opt_a) == repr(opt_t)


@pytest.mark.torch
@oracle
@pytest.mark.parametrize("name,config", [OPTIMIZER_CONFIGS[i] for i in (4, 8, 11, 16, 19, 23)],
                         ids=[CONFIG_IDS[i] for i in (4, 8, 11, 16, 19, 23)])
def test_optimizer_state_dict_round_trip_matches_pytorch(name, config):
    """Save after 5 steps, load into a fresh optimizer (both libraries), run 10 more: same as PyTorch."""

    def make(m, ps):
        return getattr(m, name)(ps, **config)

    results = []
    for mod, functional in ((al, F), (torch, torch.nn.functional)):
        ps, opt = _run(mod, functional, make, np.float64, 5)
        saved = copy.deepcopy(opt.state_dict())
        ps2 = [p.detach().clone().requires_grad_() for p in ps]
        opt2 = make(mod.optim, ps2)
        opt2.load_state_dict(saved)
        assert opt2.state_dict()["param_groups"] == saved["param_groups"]
        _run(mod, functional, make, np.float64, 10, ps2, opt2)
        ps, _ = _run(mod, functional, make, np.float64, 10, ps, opt)
        # NAdam: loading casts the float32 mu_product to the parameters' float64 (both libraries)
        assert _worst(ps2, ps) < 1e-10, "the reloaded optimizer continues the same trajectory"
        results.append((ps2, saved))
    (mine, sd_a), (theirs, sd_t) = results
    assert _worst(mine, theirs) < 1e-12
    assert sd_a["param_groups"] == sd_t["param_groups"]
    assert list(sd_a["state"]) == list(sd_t["state"])
    for k in sd_t["state"]:
        assert sorted(sd_a["state"][k]) == sorted(sd_t["state"][k])


@pytest.mark.torch
@oracle
def test_optimizer_error_texts_match_pytorch():
    cases = [
        ("RMSprop", {"lr": -1.0}), ("RMSprop", {"eps": -1.0}), ("RMSprop", {"momentum": -0.5}),
        ("RMSprop", {"weight_decay": -1}), ("RMSprop", {"alpha": -0.1}),
        ("Adagrad", {"lr": -0.1}), ("Adagrad", {"lr_decay": -1}), ("Adagrad", {"weight_decay": -2.0}),
        ("Adagrad", {"initial_accumulator_value": -1}), ("Adagrad", {"eps": -1e-3}),
        ("Adadelta", {"lr": -1}), ("Adadelta", {"rho": 1.5}), ("Adadelta", {"eps": -1}),
        ("Adadelta", {"weight_decay": -1}),
        ("NAdam", {"betas": (1.0, 0.9)}), ("NAdam", {"betas": (0.9, -0.1)}),
        ("NAdam", {"momentum_decay": -1}),
        ("NAdam", {"eps": -1.0}), ("RAdam", {"lr": -1}), ("RAdam", {"weight_decay": -0.5}),
        ("Adamax", {"betas": (0.9, 1.0)}), ("Adamax", {"eps": -1e-8}),
    ]
    for name, kwargs in cases:
        msgs = []
        for mod in (al, torch):
            w = mod.tensor(1.0, requires_grad=True)
            with pytest.raises(ValueError) as info:
                getattr(mod.optim, name)([w], **kwargs)
            msgs.append(str(info.value))
        assert msgs[0] == msgs[1], (name, kwargs)
