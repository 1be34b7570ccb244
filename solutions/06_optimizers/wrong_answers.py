"""Wrong answers to 06_optimizers, for the project's tests (never released: see nbgrader_config.py).

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
_PREDICT = "def grads_without_zero_grad(w0, lr, steps):\n"
_ACCUMULATE = "def accumulated_grads(model, loss_fn, x, y, k):\n"
_PAIRS = "    for xb, yb in zip(x.chunk(k), y.chunk(k)):\n"
_RETURN_GRADS = "    return [p.grad for p in model.parameters()]\n"
_MOMENTUM = ("class MomentumSGD(optim.Optimizer):\n"
             "    def __init__(self, params, lr=0.01, momentum=0.9):\n"
             "        super().__init__(params, dict(lr=lr, momentum=momentum))\n\n"
             "    @torch.no_grad()\n"
             "    def step(self):\n")
_EACH_PARAM = ("        for group in self.param_groups:\n"
               "            for p in group['params']:\n")
_SKIP = ("                if p.grad is None:\n"
         "                    continue\n")
_RIGHT_FIRST = "                    state['momentum_buffer'] = p.grad.clone()\n"
_RIGHT_LATER = "                    state['momentum_buffer'].mul_(group['momentum']).add_(p.grad)\n"
def _momentum(first: str, later: str, update: str = "                p.sub_(group['lr'] * buf)\n",
              skip: str = _SKIP) -> str:
    """A MomentumSGD whose step makes the buffer with `first` and `later`, then runs `update`."""
    return (_MOMENTUM + _EACH_PARAM + skip
            + "                state = self.state[p]\n"
              "                if 'momentum_buffer' not in state:\n"
            + first + "                else:\n" + later
            + "                buf = state['momentum_buffer']\n" + update)


MISTAKES = {
    "grads_without_zero_grad": [
        {"kind": "shortcut", "why": "runs autograd instead of predicting it",
         "message": "autograd_lab.Tensor.backward is switched off",
         "code": _PREDICT + "    w = torch.tensor(float(w0), requires_grad=True)\n"
                 "    opt = optim.SGD([w], lr=lr)\n"
                 "    used = []\n"
                 "    for _ in range(steps):\n"
                 "        (w * w).backward()\n"
                 "        used.append(w.grad.item())\n"
                 "        opt.step()\n"
                 "    return used\n"},
        {"kind": "mistake", "why": "predicts the loop WITH zero_grad: a fresh gradient 2w each step",
         "message": "that is what you get WITH zero_grad",
         "code": _PREDICT + "    w, used = float(w0), []\n"
                 "    for _ in range(steps):\n"
                 "        used.append(2 * w)\n"
                 "        w -= lr * 2 * w\n"
                 "    return used\n"},
        {"kind": "mistake", "why": "accumulates w.grad, but lets the step use the newest gradient only",
         "message": "the step uses the accumulated w.grad",
         "code": _PREDICT + "    w, g, used = float(w0), 0.0, []\n"
                 "    for _ in range(steps):\n"
                 "        g += 2 * w\n"
                 "        used.append(g)\n"
                 "        w -= lr * 2 * w\n"
                 "    return used\n"},
        {"kind": "edge", "why": "starts the list with the first gradient: [4.0] even for 0 steps",
         "message": "the length of grads_without_zero_grad(2.0, 0.1, 0)",
         "code": _PREDICT + "    w = float(w0)\n"
                 "    g = 2 * w\n"
                 "    used = [g]\n"
                 "    for _ in range(steps - 1):\n"
                 "        w -= lr * g\n"
                 "        g += 2 * w\n"
                 "        used.append(g)\n"
                 "    return used\n"},
        {"kind": "type", "why": "computes with NumPy and returns an array",
         "message": "expected a list, got array",
         "code": _PREDICT + "    w, g, used = np.float64(w0), 0.0, np.zeros(steps)\n"
                 "    for i in range(steps):\n"
                 "        g += 2 * w\n"
                 "        used[i] = g\n"
                 "        w -= lr * g\n"
                 "    return used\n"},
        {"kind": "type", "why": "returns a list of tensors",
         "message": "expected a Python float",
         "code": _PREDICT + "    w, g, used = torch.tensor(float(w0)), torch.tensor(0.0), []\n"
                 "    for _ in range(steps):\n"
                 "        g = g + 2 * w\n"
                 "        used.append(g)\n"
                 "        w = w - lr * g\n"
                 "    return used\n"},
    ],
    "accumulated_grads": [
        {"kind": "shortcut", "why": "one full-batch backward instead of micro-batches",
         "message": "the model saw the whole batch at once",
         "code": _ACCUMULATE + "    model.zero_grad()\n"
                 "    loss_fn(model(x), y).backward()\n" + _RETURN_GRADS},
        {"kind": "mistake", "why": "does not divide the micro-batch losses by k",
         "message": "times the batch gradient: divide each micro-batch's loss by k",
         "code": _ACCUMULATE + "    model.zero_grad()\n" + _PAIRS
                 + "        loss_fn(model(xb), yb).backward()\n" + _RETURN_GRADS},
        {"kind": "mistake", "why": "never clears the stale gradients",
         "message": "plus the stale one",
         "code": _ACCUMULATE + _PAIRS + "        (loss_fn(model(xb), yb) / k).backward()\n" + _RETURN_GRADS},
        {"kind": "mistake", "why": "clears the gradients for every micro-batch: only the last one stays",
         "message": "the last micro-batch's share alone",
         "code": _ACCUMULATE + _PAIRS + "        model.zero_grad()\n"
                 "        (loss_fn(model(xb), yb) / k).backward()\n" + _RETURN_GRADS},
        {"kind": "structure", "why": "sums the k losses, then one backward: every graph alive at once",
         "message": "calling backward once keeps every micro-batch's graph alive",
         "code": _ACCUMULATE + "    model.zero_grad()\n"
                 "    total = 0\n" + _PAIRS
                 + "        total = total + loss_fn(model(xb), yb) / k\n"
                 "    total.backward()\n" + _RETURN_GRADS},
        {"kind": "edge", "why": "x.split(k): pieces of k examples, not k pieces",
         "message": "x.split(k) cuts pieces of k examples each",
         "code": _ACCUMULATE + "    model.zero_grad()\n"
                 "    for xb, yb in zip(x.split(k), y.split(k)):\n"
                 "        (loss_fn(model(xb), yb) / k).backward()\n" + _RETURN_GRADS},
        {"kind": "type", "why": "returns a generator of the gradients, not a list",
         "message": "(of type generator)",
         "code": _ACCUMULATE + "    model.zero_grad()\n" + _PAIRS
                 + "        (loss_fn(model(xb), yb) / k).backward()\n"
                 "    return (p.grad for p in model.parameters())\n"},
    ],
    "MomentumSGD": [
        {"kind": "structure", "why": "keeps p.grad itself as the buffer (no copy), then updates it in place",
         "message": "expected a copy",
         "code": _momentum("                    state['momentum_buffer'] = p.grad\n", _RIGHT_LATER)},
        {"kind": "mistake", "why": "makes a new buffer from the gradient every step: plain SGD",
         "message": "that is plain SGD",
         "code": _MOMENTUM + _EACH_PARAM + _SKIP + "                buf = p.grad.clone()\n"
                 "                self.state[p]['momentum_buffer'] = buf\n"
                 "                p.sub_(group['lr'] * buf)\n"},
        {"kind": "mistake", "why": "averages: buf = momentum * buf + (1 - momentum) * g",
         "message": "(dampening)",
         "code": _momentum(_RIGHT_FIRST,
                           "                    state['momentum_buffer'].mul_(group['momentum'])"
                           ".add_((1 - group['momentum']) * p.grad)\n")},
        {"kind": "mistake", "why": "the textbook velocity v = momentum * v - lr * g kept as the buffer",
         "message": "the textbook velocity",
         "code": _momentum("                    state['momentum_buffer'] = -group['lr'] * p.grad\n",
                           "                    state['momentum_buffer'].mul_(group['momentum'])"
                           ".sub_(group['lr'] * p.grad)\n",
                           update="                p.add_(buf)\n")},
        {"kind": "mistake", "why": "uses the optimizer's defaults, not each group's lr and momentum",
         "message": "each group has its own, group['lr']",
         "code": _momentum(_RIGHT_FIRST,
                           "                    state['momentum_buffer'].mul_(self.defaults['momentum'])"
                           ".add_(p.grad)\n",
                           update="                p.sub_(self.defaults['lr'] * buf)\n")},
        {"kind": "structure", "why": "rebinds p (p = p - lr * buf) instead of updating it in place",
         "message": "w did not move",
         "code": _momentum(_RIGHT_FIRST, _RIGHT_LATER, update="                p = p - group['lr'] * buf\n")},
        {"kind": "edge", "why": "does not skip parameters whose .grad is None",
         "message": "skip parameters whose .grad is None",
         "code": _momentum(_RIGHT_FIRST, _RIGHT_LATER, skip="")},
        {"kind": "shortcut", "why": "hands the work to the library's SGD",
         "message": "autograd_lab.optim.SGD.step is switched off",
         "code": _MOMENTUM + "        if not hasattr(self, 'inner'):\n"
                 "            self.inner = optim.SGD(self.param_groups, lr=self.defaults['lr'],\n"
                 "                                   momentum=self.defaults['momentum'])\n"
                 "        self.inner.step()\n"
                 "        for p, s in self.inner.state.items():\n"
                 "            self.state[p] = s\n"},
    ],
}

ALTERNATIVES = {
    "grads_without_zero_grad": [
        _PREDICT + "    w, grad, used = w0, None, []\n"
        "    for _ in range(steps):\n"
        "        grad = 2.0 * w if grad is None else grad + 2.0 * w\n"
        "        used.append(float(grad))\n"
        "        w = w - lr * grad\n"
        "    return used\n",
    ],
    "accumulated_grads": [
        _ACCUMULATE + "    for p in model.parameters():\n"
        "        p.grad = None\n"
        "    size = len(x) // k\n"
        "    for i in range(k):\n"
        "        xb, yb = x[i * size:(i + 1) * size], y[i * size:(i + 1) * size]\n"
        "        loss = loss_fn(model(xb), yb) * (len(xb) / len(x))\n"
        "        torch.autograd.backward(loss)\n"
        "    return [p.grad for p in model.parameters()]\n",
    ],
    "MomentumSGD": [
        # the buffer starts at zero: momentum * 0 + g is g, PyTorch's first buffer
        _MOMENTUM + _EACH_PARAM + _SKIP
        + "                buf = self.state[p].get('momentum_buffer', torch.zeros_like(p))\n"
          "                buf = group['momentum'] * buf + p.grad\n"
          "                self.state[p]['momentum_buffer'] = buf\n"
          "                p -= group['lr'] * buf\n",
    ],
}

WRONG_ANSWERS = {
    "accumulated_grads": MISTAKES["accumulated_grads"][1]["code"],
    "MomentumSGD": MISTAKES["MomentumSGD"][1]["code"],
}
DESCRIPTION = (f"accumulated_grads: {MISTAKES['accumulated_grads'][1]['why']}; "
               f"MomentumSGD: {MISTAKES['MomentumSGD'][1]['why']}.")
