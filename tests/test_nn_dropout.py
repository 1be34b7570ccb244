"""nn/functional/dropout.py and nn/modules/dropout.py: train and eval, seeds, statistics, errors."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import close, node_name, pair

import autograd_lab as al
from autograd_lab import nn
from autograd_lab.nn import functional as F


def test_dropout_differs_between_train_and_eval():
    al.manual_seed(0)
    drop = nn.Dropout(0.5)
    x = al.ones(10_000, requires_grad=True)
    y = drop(x)
    values = set(np.unique(y.detach().numpy()).tolist())
    assert values == {0.0, 2.0}, "kept elements are scaled by 1 / (1 - p)"
    assert 0.45 < float((y == 0).float().mean()) < 0.55
    assert node_name(y) == "MulBackward0"
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
    ax, tx = pair(torch, np.ones((4, 5), dtype=np.float32))
    for p in (0.0, 1.0):
        ao, to = F.dropout(ax, p), torch.nn.functional.dropout(tx, p)
        close(ao, to, 0)
        assert (ao.grad_fn is None) == (to.grad_fn is None)
    assert node_name(F.dropout(ax, 1.0)) == node_name(torch.nn.functional.dropout(tx, 1.0)) == "MulBackward0"
    assert node_name(F.dropout(ax * 1, 0.2)) == node_name(torch.nn.functional.dropout(tx * 1, 0.2))
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
