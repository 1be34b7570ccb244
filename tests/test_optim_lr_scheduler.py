"""optim/lr_scheduler.py: every scheduler's lr sequence (known values, and against PyTorch), state_dict,
warnings and errors."""

from __future__ import annotations

import copy
import math
import warnings

import numpy as np
import pytest
from helpers import oracle, torch

import autograd_lab as al
from autograd_lab import optim
from autograd_lab.optim import lr_scheduler


def _sgd(lrs=(0.1,), **kwargs):
    params = [{"params": [al.tensor([1.0], requires_grad=True)], "lr": lr} for lr in lrs]
    return optim.SGD(params, lr=lrs[0], **kwargs)


def _lrs(opt, sched, epochs, metrics=None):
    out = []
    for epoch in range(epochs):
        opt.step()
        if metrics is None:
            sched.step()
        else:
            sched.step(metrics[epoch])
        out.append(sched.get_last_lr())
    return out


def test_steplr_halves_every_step_size_epochs():
    opt = _sgd((1.0, 0.5))
    sched = lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)
    assert sched.last_epoch == 0 and sched.get_last_lr() == [1.0, 0.5]
    assert [g["initial_lr"] for g in opt.param_groups] == [1.0, 0.5]
    lrs = [lr[0] for lr in _lrs(opt, sched, 9)]
    assert lrs == [1.0, 1.0, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25, 0.125]
    assert opt.param_groups[1]["lr"] == 0.0625
    assert sched.last_epoch == 9


def test_multistep_exponential_lambda_known_values():
    opt = _sgd((1.0,))
    sched = lr_scheduler.MultiStepLR(opt, milestones=[2, 4, 4], gamma=0.5)
    assert [lr[0] for lr in _lrs(opt, sched, 5)] == [1.0, 0.5, 0.5, 0.125, 0.125]
    opt = _sgd((1.0,))
    sched = lr_scheduler.ExponentialLR(opt, gamma=0.5)
    assert [lr[0] for lr in _lrs(opt, sched, 3)] == [0.5, 0.25, 0.125]
    opt = _sgd((2.0,))
    sched = lr_scheduler.LambdaLR(opt, lambda epoch: 1 / (epoch + 1))
    assert sched.get_last_lr() == [2.0]
    assert [lr[0] for lr in _lrs(opt, sched, 3)] == [1.0, 2 / 3, 0.5]


def test_cosine_linear_onecycle_known_values():
    opt = _sgd((1.0,))
    sched = lr_scheduler.CosineAnnealingLR(opt, T_max=4, eta_min=0.0)
    lrs = [lr[0] for lr in _lrs(opt, sched, 4)]
    np.testing.assert_allclose(lrs, [(1 + math.cos(math.pi * t / 4)) / 2 for t in range(1, 5)], atol=1e-15)
    opt = _sgd((1.0,))
    sched = lr_scheduler.LinearLR(opt, start_factor=0.25, total_iters=3)
    assert sched.get_last_lr() == [0.25]
    np.testing.assert_allclose([lr[0] for lr in _lrs(opt, sched, 4)], [0.5, 0.75, 1.0, 1.0])
    opt = _sgd((1.0,), momentum=0.9)
    sched = lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=10, pct_start=0.5)
    assert sched.get_last_lr() == [pytest.approx(1.0 / 25)]
    assert opt.param_groups[0]["momentum"] == pytest.approx(0.95)
    lrs = [lr[0] for lr in _lrs(opt, sched, 9)]
    assert max(lrs) == pytest.approx(1.0) and lrs[-1] == pytest.approx(1.0 / 25 / 1e4)


def test_reduce_on_plateau_known_values():
    opt = _sgd((1.0,))
    sched = lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=1)
    lrs = [lr[0] for lr in _lrs(opt, sched, 6, metrics=[3.0, 2.0, 2.0, 2.0, 2.0, 2.0])]
    assert lrs == [1.0, 1.0, 1.0, 0.5, 0.5, 0.25]


def test_scheduler_state_dict_round_trip_without_torch():
    opt = _sgd((1.0,))
    sched = lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    _lrs(opt, sched, 3)
    saved_opt, saved = copy.deepcopy(opt.state_dict()), copy.deepcopy(sched.state_dict())
    assert "optimizer" not in saved and saved["last_epoch"] == 3
    rest = _lrs(opt, sched, 5)
    opt2 = _sgd((1.0,))
    opt2.load_state_dict(saved_opt)
    sched2 = lr_scheduler.StepLR(opt2, step_size=7, gamma=0.9)
    sched2.load_state_dict(saved)
    assert sched2.step_size == 2 and sched2.get_last_lr() == [0.5]
    assert _lrs(opt2, sched2, 5) == rest


def test_step_before_optimizer_step_warns():
    opt = _sgd()
    sched = lr_scheduler.StepLR(opt, 2)
    text = r"Detected call of `lr_scheduler.step\(\)` before `optimizer.step\(\)`"
    with pytest.warns(UserWarning, match=text):
        sched.step()
    opt = _sgd()
    sched = lr_scheduler.StepLR(opt, 2)
    opt.step()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sched.step()


def test_scheduler_errors():
    with pytest.raises(TypeError, match="^int is not an Optimizer$"):
        lr_scheduler.StepLR(3, 2)
    with pytest.raises(KeyError, match="param 'initial_lr' is not specified in param_groups\\[0\\]"):
        lr_scheduler.StepLR(_sgd(), 2, last_epoch=3)
    with pytest.raises(ValueError, match="^Factor should be < 1.0.$"):
        lr_scheduler.ReduceLROnPlateau(_sgd(), factor=1.0)


def _plain(epoch):
    return 0.95**epoch


class _Scaled:
    """A callable object: its __dict__ goes into LambdaLR's state_dict."""

    def __init__(self, factor):
        self.factor = factor

    def __call__(self, epoch):
        return self.factor ** (epoch % 7)


SCHEDULER_CONFIGS = [
    ("StepLR", {"step_size": 3}),
    ("StepLR", {"step_size": 4, "gamma": 0.7}),
    ("MultiStepLR", {"milestones": [3, 8, 8, 20], "gamma": 0.5}),
    ("ExponentialLR", {"gamma": 0.9}),
    ("LambdaLR", {"lr_lambda": _plain}),
    ("LambdaLR", {"lr_lambda": [_plain, _Scaled(0.8)]}),
    ("MultiplicativeLR", {"lr_lambda": lambda epoch: 0.97}),
    ("CosineAnnealingLR", {"T_max": 10}),
    ("CosineAnnealingLR", {"T_max": 7, "eta_min": 0.001}),
    ("LinearLR", {}),
    ("LinearLR", {"start_factor": 0.9, "end_factor": 0.1, "total_iters": 20}),
    ("ConstantLR", {}),
    ("ConstantLR", {"factor": 0.5, "total_iters": 12}),
    ("PolynomialLR", {"total_iters": 20, "power": 2.0}),
    ("OneCycleLR", {"max_lr": 1.0, "total_steps": 31}),
    ("OneCycleLR", {"max_lr": [0.5, 2.0], "epochs": 4, "steps_per_epoch": 8, "anneal_strategy": "linear",
                    "three_phase": True, "pct_start": 0.25}),
    ("OneCycleLR", {"max_lr": 1.0, "total_steps": 40, "cycle_momentum": False, "div_factor": 5.0}),
    ("CosineAnnealingWarmRestarts", {"T_0": 5}),
    ("CosineAnnealingWarmRestarts", {"T_0": 3, "T_mult": 2, "eta_min": 0.01}),
    ("CyclicLR", {"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 4}),
    ("CyclicLR", {"base_lr": 0.01, "max_lr": [0.1, 0.2], "step_size_up": 3, "step_size_down": 5,
                  "mode": "triangular2"}),
    ("CyclicLR", {"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 3, "mode": "exp_range", "gamma": 0.95}),
]


def _show(v: object) -> str:
    """A test id part that is the same in every process (no memory addresses)."""
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_show(x) for x in v) + "]"
    if callable(v) and not isinstance(v, type):
        return getattr(v, "__name__", type(v).__name__)
    return str(v)


SCHEDULER_IDS = [f"{n}:" + ",".join(f"{k}={_show(v)}" for k, v in c.items()) for n, c in SCHEDULER_CONFIGS]


def _make_opt(mod, kind="SGD"):
    groups = [{"params": [mod.tensor([1.0, 2.0], requires_grad=True)]},
              {"params": [mod.tensor([3.0], requires_grad=True)], "lr": 0.05}]
    if kind == "Adam":
        return mod.optim.Adam(groups, lr=0.1)
    return mod.optim.SGD(groups, lr=0.1, momentum=0.9)


def _trace(opt, sched, epochs, metrics=None):
    """Per epoch: get_last_lr(), the groups' lr and momentum/betas, last_epoch."""
    out = []
    for epoch in range(epochs):
        opt.step()
        if metrics is None:
            sched.step()
        else:
            sched.step(metrics[epoch])
        groups = [(g["lr"], g.get("momentum"), g.get("betas")) for g in opt.param_groups]
        out.append((list(sched.get_last_lr()), groups, getattr(sched, "last_epoch", None)))
    return out


def _clean_state(sd):
    return {k: v for k, v in sd.items() if k not in ("_scale_fn_ref",)}


@pytest.mark.torch
@oracle
@pytest.mark.parametrize("kind", ["SGD", "Adam"])
@pytest.mark.parametrize("name,config", SCHEDULER_CONFIGS, ids=SCHEDULER_IDS)
def test_scheduler_lr_sequence_matches_pytorch(name, config, kind):
    epochs = 30
    if name == "OneCycleLR":
        epochs = config.get("total_steps", 32) - 1
    traces, scheds, opts = [], [], []
    for mod in (optim, torch.optim):
        opt = _make_opt(al if mod is optim else torch, kind)
        sched = getattr(mod.lr_scheduler, name)(opt, **config)
        assert [g["initial_lr"] for g in opt.param_groups] == [g.get("initial_lr") for g in opt.param_groups]
        traces.append((sched.get_last_lr(), sched.last_epoch, _trace(opt, sched, epochs)))
        scheds.append(sched)
        opts.append(opt)
    assert traces[0] == traces[1], "lr sequences are equal, bit for bit"
    mine, theirs = (_clean_state(s.state_dict()) for s in scheds)
    assert sorted(mine) == sorted(theirs)
    for key in theirs:
        if key not in ("lr_lambdas", "_scale_fn_custom"):
            assert mine[key] == theirs[key], key
    assert mine.get("lr_lambdas") == theirs.get("lr_lambdas")
    assert [{k: v for k, v in g.items() if k != "params"} for g in opts[0].param_groups] == \
        [{k: v for k, v in g.items() if k != "params"} for g in opts[1].param_groups]


@pytest.mark.torch
@oracle
@pytest.mark.parametrize("name,config", [SCHEDULER_CONFIGS[i] for i in (0, 2, 5, 7, 10, 14, 18, 20)],
                         ids=[SCHEDULER_IDS[i] for i in (0, 2, 5, 7, 10, 14, 18, 20)])
def test_scheduler_state_dict_round_trip_matches_pytorch(name, config):
    """Save optimizer and scheduler after 10 epochs, load both into fresh ones, continue 15 epochs."""
    results = []
    for mod, tmod in ((optim, al), (torch.optim, torch)):
        opt = _make_opt(tmod)
        sched = getattr(mod.lr_scheduler, name)(opt, **config)
        _trace(opt, sched, 10)
        saved_opt, saved = copy.deepcopy(opt.state_dict()), sched.state_dict()
        expected = _trace(opt, sched, 15)
        opt2 = _make_opt(tmod)
        opt2.load_state_dict(saved_opt)
        sched2 = getattr(mod.lr_scheduler, name)(opt2, **config, last_epoch=9) if name != "CyclicLR" \
            else getattr(mod.lr_scheduler, name)(opt2, **config)
        sched2.load_state_dict(saved)
        got = _trace(opt2, sched2, 15)
        results.append((expected, got))
    assert results[0][0] == results[0][1] == results[1][0] == results[1][1]


@pytest.mark.torch
@oracle
@pytest.mark.parametrize("mode,threshold_mode",
                         [("min", "rel"), ("min", "abs"), ("max", "rel"), ("max", "abs")])
def test_reduce_lr_on_plateau_matches_pytorch(mode, threshold_mode):
    rng = np.random.default_rng(3)
    metrics = list(np.cumsum(rng.standard_normal(40)) * 0.1 + 5.0)
    configs = [
        {"mode": mode, "threshold_mode": threshold_mode},
        {"mode": mode, "threshold_mode": threshold_mode, "factor": 0.5, "patience": 2, "threshold": 0.01},
        {"mode": mode, "threshold_mode": threshold_mode, "factor": 0.3, "patience": 1, "cooldown": 2,
         "min_lr": [0.002, 0.01]},
        {"mode": mode, "threshold_mode": threshold_mode, "factor": 0.5, "patience": 0, "min_lr": 0.001,
         "eps": 0.01},
    ]
    for config in configs:
        traces, states = [], []
        for mod, tmod in ((optim, al), (torch.optim, torch)):
            opt = _make_opt(tmod)
            sched = mod.lr_scheduler.ReduceLROnPlateau(opt, **config)
            traces.append((sched.get_last_lr(), _trace(opt, sched, 40, metrics)))
            states.append(sched.state_dict())
        assert traces[0] == traces[1], config
        assert states[0] == states[1]


@pytest.mark.torch
@oracle
@pytest.mark.parametrize("milestones", [[5], [4, 12]])
def test_sequential_and_chained_match_pytorch(milestones):
    for kind in ("sequential", "chained"):
        traces, states = [], []
        for mod, tmod in ((optim, al), (torch.optim, torch)):
            opt = _make_opt(tmod)
            lrs = mod.lr_scheduler
            parts = [lrs.LinearLR(opt, start_factor=0.1, total_iters=5), lrs.ExponentialLR(opt, gamma=0.9),
                     lrs.CosineAnnealingLR(opt, T_max=8)][:len(milestones) + 1]
            if kind == "sequential":
                sched = lrs.SequentialLR(opt, parts, milestones=milestones)
            else:
                sched = lrs.ChainedScheduler(parts)
            traces.append((sched.get_last_lr(), _trace(opt, sched, 25)))
            sd = sched.state_dict()
            states.append((sorted(sd), [sorted(s) for s in sd["_schedulers"]]))
        assert traces[0] == traces[1], kind
        assert states[0] == states[1]


def _warning_texts(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [(w.category, str(w.message)) for w in caught]


@pytest.mark.torch
@oracle
def test_scheduler_warnings_match_pytorch():
    def step_first(mod, tmod):
        opt = _make_opt(tmod)
        sched = mod.lr_scheduler.StepLR(opt, 2)
        return lambda: sched.step()

    def get_lr_outside(mod, tmod):
        sched = mod.lr_scheduler.ExponentialLR(_make_opt(tmod), 0.5)
        return lambda: sched.get_lr()

    def epoch_argument(mod, tmod):
        opt = _make_opt(tmod)
        sched = mod.lr_scheduler.StepLR(opt, 2)
        opt.step()
        return lambda: sched.step(5)

    def overridden(mod, tmod):
        opt = _make_opt(tmod)
        sched = mod.lr_scheduler.StepLR(opt, 2)
        opt.step = lambda *a, **k: None
        return lambda: sched.step()

    def plateau_epoch(mod, tmod):
        sched = mod.lr_scheduler.ReduceLROnPlateau(_make_opt(tmod))
        return lambda: sched.step(1.0, 3)

    for case in (step_first, get_lr_outside, epoch_argument, overridden, plateau_epoch):
        mine = _warning_texts(case(optim, al))
        theirs = _warning_texts(case(torch.optim, torch))
        assert mine == theirs and len(theirs) == 1, case.__name__


@pytest.mark.torch
@oracle
def test_scheduler_lr_values_after_epoch_argument_match_pytorch():
    for name, config in SCHEDULER_CONFIGS[:14] + SCHEDULER_CONFIGS[17:19]:
        traces = []
        for mod, tmod in ((optim, al), (torch.optim, torch)):
            opt = _make_opt(tmod)
            sched = getattr(mod.lr_scheduler, name)(opt, **config)
            out = []
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for epoch in (3, 7, 4, 12, 25):
                    opt.step()
                    sched.step(epoch)
                    out.append(sched.get_last_lr())
            traces.append(out)
        assert traces[0] == traces[1], name


@pytest.mark.torch
@oracle
def test_scheduler_error_texts_match_pytorch():
    def cases(mod, tmod):
        lrs = mod.lr_scheduler
        return [
            lambda: lrs.StepLR("sgd", 2),
            lambda: lrs.StepLR(_make_opt(tmod), 2, last_epoch=4),
            lambda: lrs.LambdaLR(_make_opt(tmod), [_plain]),
            lambda: lrs.MultiplicativeLR(_make_opt(tmod), [_plain, 3]),
            lambda: lrs.ConstantLR(_make_opt(tmod), factor=1.5),
            lambda: lrs.LinearLR(_make_opt(tmod), start_factor=0.0),
            lambda: lrs.LinearLR(_make_opt(tmod), end_factor=1.5),
            lambda: lrs.ReduceLROnPlateau(_make_opt(tmod), factor=2.0),
            lambda: lrs.ReduceLROnPlateau(_make_opt(tmod), mode="avg"),
            lambda: lrs.ReduceLROnPlateau(_make_opt(tmod), threshold_mode="pct"),
            lambda: lrs.ReduceLROnPlateau(_make_opt(tmod), min_lr=[0.1]),
            lambda: lrs.ReduceLROnPlateau("x"),
            lambda: lrs.OneCycleLR(_make_opt(tmod), max_lr=1.0),
            lambda: lrs.OneCycleLR(_make_opt(tmod), max_lr=1.0, total_steps=0),
            lambda: lrs.OneCycleLR(_make_opt(tmod), max_lr=1.0, epochs=-1, steps_per_epoch=3),
            lambda: lrs.OneCycleLR(_make_opt(tmod), max_lr=1.0, epochs=2, steps_per_epoch=1.5),
            lambda: lrs.OneCycleLR(_make_opt(tmod), max_lr=1.0, total_steps=10, pct_start=1),
            lambda: lrs.OneCycleLR(_make_opt(tmod), max_lr=1.0, total_steps=10, anneal_strategy="tan"),
            lambda: lrs.OneCycleLR(_make_opt(tmod), max_lr=[1.0], total_steps=10),
            lambda: lrs.CosineAnnealingWarmRestarts(_make_opt(tmod), T_0=0),
            lambda: lrs.CosineAnnealingWarmRestarts(_make_opt(tmod), T_0=2, T_mult=0),
            lambda: lrs.CosineAnnealingWarmRestarts(_make_opt(tmod), T_0=2, eta_min="0"),
            lambda: lrs.CosineAnnealingWarmRestarts(_make_opt(tmod), T_0=2).step(-1),
            lambda: lrs.CyclicLR(_make_opt(tmod), 0.1, 1.0, mode="sine"),
            lambda: lrs.CyclicLR(tmod.optim.Adagrad([tmod.tensor(1.0, requires_grad=True)]), 0.1, 1.0),
            lambda: lrs.SequentialLR(_make_opt(tmod), [], milestones=[]),
            lambda: lrs.SequentialLR(_make_opt(tmod), [lrs.StepLR(_make_opt(tmod), 2)], milestones=[]),
            lambda: lrs.SequentialLR(_make_opt(tmod), [lrs.ReduceLROnPlateau(_make_opt(tmod))],
                                     milestones=[]),
            lambda: lrs.SequentialLR(_make_opt(tmod), [1], milestones=[]),
            lambda: _sequential_bad_milestones(lrs, tmod),
            lambda: lrs.ChainedScheduler([]),
            lambda: _one_cycle_too_many_steps(lrs, tmod),
        ]

    mine, theirs = cases(optim, al), cases(torch.optim, torch)
    for i, (a, t) in enumerate(zip(mine, theirs)):
        with pytest.raises(Exception) as info_t:
            t()
        with pytest.raises(Exception) as info_a:
            a()
        assert type(info_a.value) is type(info_t.value), i
        text_a, text_t = str(info_a.value), str(info_t.value)
        assert text_a.replace("autograd_lab", "torch") == text_t, i


def _sequential_bad_milestones(lrs, tmod):
    opt = _make_opt(tmod)
    lrs.SequentialLR(opt, [lrs.StepLR(opt, 2), lrs.StepLR(opt, 3)], milestones=[])


def _one_cycle_too_many_steps(lrs, tmod):
    opt = _make_opt(tmod)
    sched = lrs.OneCycleLR(opt, max_lr=1.0, total_steps=3)
    opt.step()
    for _ in range(4):
        sched.step()
