"""Wrong answers to 07_training, for the project's tests (never released: see nbgrader_config.py).

MISTAKES: per exercise (grade_id of its solution cell), answers a learner really writes: calling
the library's own version (shortcut), a misunderstanding (mistake), right but on an edge case
(edge), right numbers of the wrong type (type), a result made the wrong way (structure). Each
replaces that one cell, every other cell keeps the solution; autograded, it must lose points, and
a failing test of that exercise must say `message` (tests/test_wrong_answers.py).
ALTERNATIVES: correct answers written another way; they must score full marks.
WRONG_ANSWERS: one learner with two of these mistakes (tests/test_pipeline.py: scores in between).
See docs/exercise-authoring.md.
"""

# Lines that several answers share.
_DROPOUT = "def dropout(x, p=0.5, training=True):\n"
_CHECK_P = ("    if not 0 <= p <= 1:\n"
            "        raise ValueError(f'dropout probability has to be between 0 and 1, but got {p}')\n")
_PASS = "    if not training or p == 0:\n        return x\n"
_BN = "def batch_norm_train(x, running_mean, running_var, momentum=0.1, eps=1e-5):\n"
_ONE = ("    if x.shape[0] == 1:\n"
        "        raise ValueError('Expected more than 1 value per channel when training, '\n"
        "                         f'got input size {x.shape}')\n")
_STATS = ("    mean = x.mean(dim=0)\n"
          "    var = ((x - mean) ** 2).mean(dim=0)\n"
          "    n = x.shape[0]\n")
_UPDATE = ("    with torch.no_grad():\n"
           "        running_mean.mul_(1 - momentum).add_(momentum * mean)\n"
           "        running_var.mul_(1 - momentum).add_(momentum * var * n / (n - 1))\n")
_NORMALISE = "    return (x - mean) / torch.sqrt(var + eps)\n"
_EPOCH = ("def train_epoch(model, loader, loss_fn, optimizer):\n"
          "    model.train()\n")
_BATCH = ("        optimizer.zero_grad()\n"
          "        loss = loss_fn(model(x), y)\n"
          "        loss.backward()\n"
          "        optimizer.step()\n")
_FLOAT_SUM = ("        total += loss.item() * len(x)\n"
              "        n += len(x)\n"
              "    return total / n\n")


def _epoch(batch: str, tail: str = _FLOAT_SUM, head: str = _EPOCH,
           start: str = "    total, n = 0.0, 0\n") -> str:
    """A train_epoch with `batch` as the body of the loop over the loader."""
    return head + start + "    for x, y in loader:\n" + batch + tail


MISTAKES = {
    "dropout": [
        {"kind": "shortcut", "why": "calls the library's dropout",
         "message": "autograd_lab.nn.functional.dropout is switched off",
         "code": _DROPOUT + "    return torch.nn.functional.dropout(x, p, training)\n"},
        {"kind": "mistake", "why": "zeroes with probability p but does not scale the survivors",
         "message": "the survivors are not scaled",
         "code": _DROPOUT + _CHECK_P + _PASS + "    return x * (torch.rand_like(x) >= p)\n"},
        {"kind": "mistake", "why": "keeps each element with probability p (p read as the keep probability)",
         "message": "p is the probability of DROPPING an element",
         "code": _DROPOUT + _CHECK_P + _PASS + "    return x * (torch.rand_like(x) < p) / p\n"},
        {"kind": "mistake", "why": "drops in evaluation too (ignores training)",
         "message": "out of training (training=False), or with p = 0, dropout returns x unchanged",
         "code": _DROPOUT + _CHECK_P + "    return x * (torch.rand_like(x) >= p) / (1 - p)\n"},
        {"kind": "structure", "why": "draws the mask with NumPy: torch.manual_seed does not repeat it",
         "message": "draw the random numbers with torch's generator",
         "code": _DROPOUT + _CHECK_P + _PASS + "    mask = np.random.random(tuple(x.shape)) >= p\n"
                 "    return torch.tensor(x.detach().numpy() * mask / (1 - p), dtype=x.dtype)\n"},
        {"kind": "structure", "why": "computes in NumPy and wraps the result: no gradient reaches x",
         "message": "backward must reach x",
         "code": _DROPOUT + _CHECK_P + _PASS + "    keep = (torch.rand_like(x) >= p).numpy()\n"
                 "    return torch.from_numpy(x.detach().numpy() * keep / (1 - p))\n"},
        {"kind": "structure", "why": "seeds the generator inside: every call drops the same elements",
         "message": "do not seed inside dropout",
         "code": _DROPOUT + _CHECK_P + _PASS + "    torch.manual_seed(0)\n"
                 "    return x * (torch.rand_like(x) >= p) / (1 - p)\n"},
        {"kind": "structure", "why": "one random number per column: every row gets the same mask",
         "message": "the same mask in every row",
         "code": _DROPOUT + _CHECK_P + _PASS + "    keep = torch.rand(x.shape[-1]) >= p\n"
                 "    return x * keep / (1 - p)\n"},
        {"kind": "edge", "why": "p = 1 divides by zero: NaN instead of zeros",
         "message": "p = 1 drops every element",
         "code": _DROPOUT + _CHECK_P + _PASS
                 + "    return x * (torch.rand_like(x) >= p).to(x.dtype) / (1 - p)\n"},
        {"kind": "edge", "why": "never checks p: p = 1.5 gives a result instead of PyTorch's ValueError",
         "message": "raise ValueError(f'dropout probability has to be",
         "code": _DROPOUT + _PASS + "    if p >= 1:\n        return x * 0.0\n"
                 "    return x * (torch.rand_like(x) >= p).to(x.dtype) / (1 - p)\n"},
    ],
    "batch_norm_train": [
        {"kind": "shortcut", "why": "calls the library's batch_norm",
         "message": "autograd_lab.nn.functional.batch_norm is switched off",
         "code": _BN + "    F = torch.nn.functional\n"
                 "    return F.batch_norm(x, running_mean, running_var, training=True,\n"
                 "                        momentum=momentum, eps=eps)\n"},
        {"kind": "mistake", "why": "normalises with the unbiased variance (x.var's default)",
         "message": "that divides by the UNBIASED standard deviation",
         "code": _BN + _ONE + "    mean = x.mean(dim=0)\n    var = x.var(dim=0)\n    n = x.shape[0]\n"
                 "    with torch.no_grad():\n"
                 "        running_mean.mul_(1 - momentum).add_(momentum * mean)\n"
                 "        running_var.mul_(1 - momentum).add_(momentum * var)\n"
                 "    return (x - mean) / torch.sqrt(var + eps)\n"},
        {"kind": "mistake", "why": "updates running_var with the biased variance of the batch",
         "message": "running_var takes the UNBIASED variance",
         "code": _BN + _ONE + _STATS + "    with torch.no_grad():\n"
                 "        running_mean.mul_(1 - momentum).add_(momentum * mean)\n"
                 "        running_var.mul_(1 - momentum).add_(momentum * var)\n" + _NORMALISE},
        {"kind": "mistake", "why": "Keras' momentum: keeps momentum of the old statistic",
         "message": "PyTorch's momentum weighs the NEW batch",
         "code": _BN + _ONE + _STATS + "    with torch.no_grad():\n"
                 "        running_mean.mul_(momentum).add_((1 - momentum) * mean)\n"
                 "        running_var.mul_(momentum).add_((1 - momentum) * var * n / (n - 1))\n"
                 + _NORMALISE},
        {"kind": "mistake", "why": "standardises each example over its features (dim=1)",
         "message": "BatchNorm standardises each feature over the batch (dim=0)",
         "code": _BN + _ONE + _STATS + _UPDATE
                 + "    m1 = x.mean(dim=1, keepdim=True)\n"
                   "    return (x - m1) / torch.sqrt(((x - m1) ** 2).mean(dim=1, keepdim=True) + eps)\n"},
        {"kind": "structure", "why": "rebinds the running statistics instead of updating them in place",
         "message": "update it IN PLACE",
         "code": _BN + _ONE + _STATS + "    with torch.no_grad():\n"
                 "        running_mean = (1 - momentum) * running_mean + momentum * mean\n"
                 "        running_var = (1 - momentum) * running_var + momentum * var * n / (n - 1)\n"
                 + _NORMALISE},
        {"kind": "structure", "why": "updates the running statistics outside no_grad: autograd records them",
         "message": "update the running statistics under torch.no_grad()",
         "code": _BN + _ONE + _STATS + "    running_mean.mul_(1 - momentum).add_(momentum * mean)\n"
                 "    running_var.mul_(1 - momentum).add_(momentum * var * n / (n - 1))\n" + _NORMALISE},
        {"kind": "structure", "why": "computes the batch statistics under no_grad: the gradient misses them",
         "message": "that is the gradient with the mean and variance held constant",
         "code": _BN + _ONE + "    n = x.shape[0]\n    with torch.no_grad():\n"
                 "        mean = x.mean(dim=0)\n        var = ((x - mean) ** 2).mean(dim=0)\n"
                 "        running_mean.mul_(1 - momentum).add_(momentum * mean)\n"
                 "        running_var.mul_(1 - momentum).add_(momentum * var * n / (n - 1))\n" + _NORMALISE},
        {"kind": "edge", "why": "forgets eps: a constant feature gives 0 / 0",
         "message": "add eps under the square root",
         "code": _BN + _ONE + _STATS + _UPDATE + "    return (x - mean) / torch.sqrt(var)\n"},
        {"kind": "edge", "why": "no check of a batch of one: divides by N - 1 = 0",
         "message": "a batch of one has no variance",
         "code": _BN + _STATS + _UPDATE + _NORMALISE},
    ],
    "train_epoch": [
        {"kind": "structure", "why": "sums the loss tensors over the batches: every batch's graph kept alive",
         "message": "a sum of loss TENSORS (total += loss) keeps every batch's graph",
         "code": _epoch(_BATCH, start="    total, n = 0, 0\n",
                        tail="        total = total + loss * len(x)\n"
                             "        n += len(x)\n"
                             "    return total.item() / n\n")},
        {"kind": "structure", "why": "keeps the loss tensors in a list, reads them at the end",
         "message": "still alive",
         "code": _epoch(_BATCH, start="    losses = []\n",
                        tail="        losses.append((loss, len(x)))\n"
                             "    return sum(v.item() * m for v, m in losses) / len(loader.dataset)\n")},
        {"kind": "mistake", "why": "never calls zero_grad: each step uses the sum of the epoch's gradients",
         "message": "call optimizer.zero_grad() at the start of every batch",
         "code": _epoch(_BATCH.replace("        optimizer.zero_grad()\n", ""))},
        {"kind": "mistake", "why": "averages the batch losses without weighting by the batch size",
         "message": "you averaged the batch losses",
         "code": _epoch(_BATCH, start="    losses = []\n",
                        tail="        losses.append(loss.item())\n"
                             "    return sum(losses) / len(losses)\n")},
        {"kind": "mistake", "why": "forgets model.train()",
         "message": "put the model in training mode first",
         "code": _epoch(_BATCH, head="def train_epoch(model, loader, loss_fn, optimizer):\n")},
        {"kind": "mistake", "why": "zero_grad between backward and step: the step sees no gradient",
         "message": "call loss.backward() after optimizer.zero_grad() and before optimizer.step()",
         "code": _epoch("        loss = loss_fn(model(x), y)\n"
                        "        loss.backward()\n"
                        "        optimizer.zero_grad()\n"
                        "        optimizer.step()\n")},
        {"kind": "type", "why": "returns a 0-d tensor (the mean of detached losses), not a float",
         "message": "a Python float",
         "code": _epoch(_BATCH, start="    total, n = torch.tensor(0.0), 0\n",
                        tail="        total = total + loss.detach() * len(x)\n"
                             "        n += len(x)\n"
                             "    return total / n\n")},
    ],
}

ALTERNATIVES = {
    "dropout": [
        _DROPOUT + _CHECK_P + "    if not training:\n        return x\n"
        "    keep = torch.bernoulli(torch.full_like(x, 1 - p))\n"
        "    return x * keep / (1 - p) if p < 1 else torch.zeros_like(x) * x\n",
        _DROPOUT + _CHECK_P + _PASS + "    scale = 0.0 if p == 1 else 1.0 / (1.0 - p)\n"
        "    return torch.where(torch.rand(x.shape) < p, torch.zeros_like(x), x * scale)\n",
    ],
    "batch_norm_train": [
        _BN + _ONE + "    mean = x.mean(0)\n"
        "    var = x.var(0, unbiased=False)\n"
        "    with torch.no_grad():\n"
        "        running_mean.copy_((1 - momentum) * running_mean + momentum * mean)\n"
        "        running_var.copy_((1 - momentum) * running_var + momentum * x.var(0, unbiased=True))\n"
        "    return (x - mean) * (var + eps).rsqrt()\n",
    ],
    "train_epoch": [
        "def train_epoch(model, loader, loss_fn, optimizer):\n"
        "    model.train()\n"
        "    losses, sizes = [], []\n"
        "    for inputs, targets in loader:\n"
        "        optimizer.zero_grad(set_to_none=False)\n"
        "        out = model(inputs)\n"
        "        loss = loss_fn(out, targets)\n"
        "        loss.backward()\n"
        "        optimizer.step()\n"
        "        losses.append(loss.detach())\n"
        "        sizes.append(len(targets))\n"
        "    return float(np.average([l.item() for l in losses], weights=sizes))\n",
    ],
}

WRONG_ANSWERS = {
    "dropout": MISTAKES["dropout"][1]["code"],
    "train_epoch": MISTAKES["train_epoch"][2]["code"],
}
DESCRIPTION = (f"dropout: {MISTAKES['dropout'][1]['why']}; "
               f"train_epoch: {MISTAKES['train_epoch'][2]['why']}.")
