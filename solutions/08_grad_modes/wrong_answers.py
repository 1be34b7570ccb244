"""Wrong answers to 08_grad_modes, for the project's tests (never released: see nbgrader_config.py).

MISTAKES (per exercise: answers a learner really writes, each of a kind, with the words its failing
test must say), ALTERNATIVES (correct answers written another way) and WRONG_ANSWERS (one typical
learner), in the format of solutions/01_tensors/wrong_answers.py; see docs/exercise-authoring.md.
"""


def _evaluate(*, eval_line: str = "    model.eval()\n", grad_block: str = "    with torch.no_grad():\n",
              forward: str = "scores = model(inputs)", loss: str | None = None,
              ret: str | None = None) -> str:
    """The solution of evaluate with one of its lines changed."""
    loss = loss or "loss_total += torch.nn.functional.cross_entropy(scores, labels, reduction='sum').item()"
    ret = ret or "return loss_total / n_seen, n_correct / n_seen"
    inner = "        " if grad_block else "    "
    return ("def evaluate(model, loader):\n"
            + eval_line
            + "    loss_total, n_correct, n_seen = 0.0, 0, 0\n"
            + grad_block
            + f"{inner}for inputs, labels in loader:\n"
            + f"{inner}    {forward}\n"
            + f"{inner}    {loss}\n"
            + f"{inner}    n_correct += (scores.argmax(dim=1) == labels).sum().item()\n"
            + f"{inner}    n_seen += len(labels)\n"
            + f"    {ret}\n")


_FRESH = "        fresh = [t.detach().requires_grad_(t.requires_grad) for t in ctx.saved_tensors]\n"


def _checkpoint(*, forward: str | None = None, backward: str | None = None) -> str:
    """The solution of Checkpoint with its forward or backward body changed."""
    forward = forward or ("        ctx.fn = fn\n"
                          "        ctx.save_for_backward(*inputs)\n"
                          "        return fn(*inputs)\n")
    backward = backward or (_FRESH +
                            "        with torch.enable_grad():\n"
                            "            out = ctx.fn(*fresh)\n"
                            "        torch.autograd.backward(out, grad)\n"
                            "        return (None, *(t.grad for t in fresh))\n")
    return ("class Checkpoint(torch.autograd.Function):\n"
            "    @staticmethod\n"
            "    def forward(ctx, fn, *inputs):\n" + forward +
            "\n    @staticmethod\n"
            "    def backward(ctx, grad):\n" + backward +
            "\n\ndef checkpoint(fn, *inputs):\n"
            "    return Checkpoint.apply(fn, *inputs)\n")


def _fine_tune(*, freeze: str | None = None, params: str = "model[-1].parameters()", zero: bool = True,
               record: str = "losses.append(loss.item())") -> str:
    """The solution of fine_tune with one of its parts changed."""
    freeze = freeze if freeze is not None else ("    for p in model[:-1].parameters():\n"
                                                "        p.requires_grad_(False)\n")
    return ("def fine_tune(model, loader, epochs, lr):\n"
            + freeze +
            f"    opt = torch.optim.SGD({params}, lr=lr)\n"
            "    losses = []\n"
            "    for _ in range(epochs):\n"
            "        for x, y in loader:\n"
            + ("            opt.zero_grad()\n" if zero else "") +
            "            loss = torch.nn.functional.cross_entropy(model(x), y)\n"
            "            loss.backward()\n"
            "            opt.step()\n"
            f"            {record}\n"
            "    return losses\n")


MISTAKES = {
    "evaluate": [
        {"kind": "structure",
         "why": "calls model.eval() but forgets no_grad: every forward pass builds a graph",
         "message": "a forward pass run while autograd recorded",
         "code": _evaluate(grad_block="")},
        {"kind": "structure", "why": "detaches the scores after each forward pass instead of using no_grad",
         "message": "detach() or .item() afterwards is too late",
         "code": _evaluate(grad_block="", forward="scores = model(inputs).detach()")},
        {"kind": "mistake",
         "why": "uses no_grad but forgets model.eval() (Dropout, BatchNorm stay in training mode)",
         "message": "the model was in training mode",
         "code": _evaluate(eval_line="")},
        {"kind": "mistake", "why": "writes model.eval without the parentheses",
         "message": "model.eval alone does nothing",
         "code": _evaluate(eval_line="    model.eval\n")},
        {"kind": "mistake", "why": "averages the batches' mean losses, over-weighting the small last batch",
         "message": "that is the mean of the batches'",
         "code": "def evaluate(model, loader):\n"
                 "    model.eval()\n"
                 "    losses, accuracies = [], []\n"
                 "    with torch.no_grad():\n"
                 "        for x, y in loader:\n"
                 "            scores = model(x)\n"
                 "            losses.append(torch.nn.functional.cross_entropy(scores, y).item())\n"
                 "            accuracies.append((scores.argmax(dim=1) == y).float().mean().item())\n"
                 "    return sum(losses) / len(losses), sum(accuracies) / len(accuracies)\n"},
        {"kind": "type", "why": "sums the losses as tensors and returns tensors, not floats",
         "message": "return Python floats",
         "code": _evaluate(loss="loss_total = loss_total + torch.nn.functional.cross_entropy("
                                "scores, labels, reduction='sum')",
                           ret="return loss_total / n_seen, torch.tensor(n_correct / n_seen)")},
        {"kind": "structure",
         "why": "calls model.zero_grad() first, to be safe: the earlier gradients are lost",
         "message": "no zero_grad()",
         "code": _evaluate(eval_line="    model.eval()\n    model.zero_grad()\n")},
    ],
    "checkpoint": [
        {"kind": "shortcut", "why": "calls the library's torch.utils.checkpoint",
         "message": "autograd_lab.utils.checkpoint.checkpoint is switched off",
         "code": "def checkpoint(fn, *inputs):\n"
                 "    return torch.utils.checkpoint.checkpoint(fn, *inputs, use_reentrant=True)\n"},
        {"kind": "structure", "why": "no checkpointing at all: returns fn(*inputs), recorded as usual",
         "message": "no graph inside fn is recorded",
         "code": "def checkpoint(fn, *inputs):\n"
                 "    return fn(*inputs)\n"},
        {"kind": "structure", "why": "records fn in forward (enable_grad) and keeps its output for backward",
         "message": "no graph inside fn is recorded",
         "code": _checkpoint(forward="        with torch.enable_grad():\n"
                                     "            ctx.out = fn(*inputs)\n"
                                     "        ctx.save_for_backward(*inputs)\n"
                                     "        return ctx.out.detach()\n",
                             backward="        torch.autograd.backward(ctx.out, grad)\n"
                                      "        return (None, *(None for _ in ctx.saved_tensors))\n")},
        {"kind": "mistake", "why": "recomputes on the saved inputs themselves, not detached copies",
         "message": "detach them first",
         "code": _checkpoint(backward="        inputs = ctx.saved_tensors\n"
                                      "        with torch.enable_grad():\n"
                                      "            out = ctx.fn(*inputs)\n"
                                      "        torch.autograd.backward(out, grad)\n"
                                      "        return (None, *(t.grad for t in inputs))\n")},
        {"kind": "mistake", "why": "uses autograd.grad for the inputs: fn's parameters get no .grad",
         "message": "the parameters fn uses got no gradient",
         "code": _checkpoint(backward=_FRESH +
                                      "        with torch.enable_grad():\n"
                                      "            out = ctx.fn(*fresh)\n"
                                      "        grads = torch.autograd.grad(out, fresh, grad)\n"
                                      "        return (None, *grads)\n")},
        {"kind": "mistake", "why": "forgets torch.enable_grad() in backward: the rerun records nothing",
         "message": "with torch.enable_grad()",
         "code": _checkpoint(backward=_FRESH +
                                      "        out = ctx.fn(*fresh)\n"
                                      "        torch.autograd.backward(out, grad)\n"
                                      "        return (None, *(t.grad for t in fresh))\n")},
        {"kind": "edge", "why": "returns only the inputs' gradients, none for fn",
         "message": "return None, then each fresh[i].grad",
         "code": _checkpoint(backward=_FRESH +
                                      "        with torch.enable_grad():\n"
                                      "            out = ctx.fn(*fresh)\n"
                                      "        torch.autograd.backward(out, grad)\n"
                                      "        return tuple(t.grad for t in fresh)\n")},
    ],
    "round_ste": [
        {"kind": "mistake", "why": "rounds: the gradient of round is 0",
         "message": "the gradient of round itself",
         "code": "def round_ste(x):\n    return x.round()\n"},
        {"kind": "mistake", "why": "forgets the detach: x - (x - round(x)) is round(x), gradient 0 again",
         "message": "the gradient of round itself",
         "code": "def round_ste(x):\n    return x - (x - x.round())\n"},
        {"kind": "structure", "why": "detaches the whole result: no gradient at all",
         "message": "the result must stay connected to x",
         "code": "def round_ste(x):\n    return (x + (x.round() - x)).detach()\n"},
        {"kind": "mistake", "why": "adds the detached rounded value instead of the correction",
         "message": "add the correction x.round() - x",
         "code": "def round_ste(x):\n    return x + x.round().detach()\n"},
        {"kind": "structure", "why": "rounds x in place through .data, then returns x",
         "message": "change nothing in place",
         "code": "def round_ste(x):\n    x.data = x.detach().round()\n    return x * 1\n"},
    ],
    "fine_tune": [
        {"kind": "mistake", "why": "trains every parameter: nothing frozen",
         "message": "freeze every parameter but the head's",
         "code": _fine_tune(freeze="", params="model.parameters()")},
        {"kind": "mistake", "why": "calls model.eval() to freeze the body",
         "message": "model.eval() does not freeze anything",
         "code": _fine_tune(freeze="    model.eval()\n", params="model.parameters()")},
        {"kind": "structure", "why": "gives the optimizer the head only, but freezes nothing",
         "message": "backward still computed the frozen parameters' gradients",
         "code": _fine_tune(freeze="")},
        {"kind": "mistake", "why": "freezes the head and trains the body",
         "message": "freeze every parameter but the head's",
         "code": _fine_tune(freeze="    for p in model[-1].parameters():\n        p.requires_grad_(False)\n",
                            params="[p for p in model.parameters() if p.requires_grad]")},
        {"kind": "mistake", "why": "forgets zero_grad: the head's gradients add up over the batches",
         "message": "without zero_grad the gradients of the batches add up",
         "code": _fine_tune(zero=False)},
        {"kind": "type", "why": "keeps the loss tensors, not floats",
         "message": "Python floats",
         "code": _fine_tune(record="losses.append(loss.detach())")},
    ],
}

ALTERNATIVES = {
    "evaluate": [
        # a decorator, batch means weighted by their size, the mode put back afterwards
        "@torch.no_grad()\n"
        "def evaluate(model, loader):\n"
        "    was_training = model.training\n"
        "    model.eval()\n"
        "    loss, correct, seen = 0.0, 0.0, 0\n"
        "    for x, y in loader:\n"
        "        scores = model(x)\n"
        "        loss += torch.nn.functional.cross_entropy(scores, y).item() * len(y)\n"
        "        correct += (scores.argmax(dim=1) == y).float().sum().item()\n"
        "        seen += len(y)\n"
        "    model.train(was_training)\n"
        "    return loss / seen, correct / seen\n",
        # inference_mode, every score collected, one loss over all of them
        "import numpy as np\n\n\n"
        "def evaluate(model, loader):\n"
        "    model.eval()\n"
        "    with torch.inference_mode():\n"
        "        pairs = [(model(x), y) for x, y in loader]\n"
        "        scores = torch.cat([s for s, _ in pairs])\n"
        "        labels = torch.cat([y for _, y in pairs])\n"
        "        loss = torch.nn.CrossEntropyLoss()(scores, labels)\n"
        "    return float(loss), float(np.mean((scores.argmax(dim=1) == labels).numpy()))\n",
        "def evaluate(model, loader):\n"
        "    model.eval()\n"
        "    total, right, n = 0.0, 0, 0\n"
        "    with torch.set_grad_enabled(False):\n"
        "        for x, y in loader:\n"
        "            out = model(x)\n"
        "            total += torch.nn.functional.cross_entropy(out, y, reduction='sum').item()\n"
        "            right += int((out.argmax(1) == y).sum())\n"
        "            n += y.shape[0]\n"
        "    return total / n, right / n\n",
    ],
    "checkpoint": [
        # outputs that need no grad skipped, grads of inputs that need none as None, fn kept as an attribute
        "class Checkpoint(torch.autograd.Function):\n"
        "    @staticmethod\n"
        "    def forward(ctx, fn, *inputs):\n"
        "        ctx.run = fn\n"
        "        ctx.save_for_backward(*inputs)\n"
        "        with torch.no_grad():\n"
        "            return fn(*inputs)\n"
        "\n"
        "    @staticmethod\n"
        "    def backward(ctx, grad):\n"
        "        copies = []\n"
        "        for t in ctx.saved_tensors:\n"
        "            c = t.detach()\n"
        "            c.requires_grad = t.requires_grad\n"
        "            copies.append(c)\n"
        "        with torch.set_grad_enabled(True):\n"
        "            y = ctx.run(*copies)\n"
        "        y.backward(grad)\n"
        "        return (None,) + tuple(c.grad if c.requires_grad else None for c in copies)\n"
        "\n\n"
        "def checkpoint(fn, *inputs):\n"
        "    return Checkpoint.apply(fn, *inputs)\n",
    ],
    "round_ste": [
        # the rounded value as a constant, the identity's gradient from x - x.detach()
        "def round_ste(x):\n    return x.detach().round() + (x - x.detach())\n",
        # a custom Function: round forward, the incoming gradient passed on unchanged
        "class RoundSTE(torch.autograd.Function):\n"
        "    @staticmethod\n"
        "    def forward(ctx, x):\n"
        "        return torch.round(x)\n"
        "\n"
        "    @staticmethod\n"
        "    def backward(ctx, g):\n"
        "        return g\n"
        "\n\n"
        "def round_ste(x):\n    return RoundSTE.apply(x)\n",
    ],
    "fine_tune": [
        # every parameter frozen, the head switched back on, the optimizer given all trainable ones
        "def fine_tune(model, loader, epochs, lr):\n"
        "    model.requires_grad_(False)\n"
        "    model[-1].requires_grad_(True)\n"
        "    opt = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=lr)\n"
        "    out = []\n"
        "    for epoch in range(epochs):\n"
        "        for x, y in loader:\n"
        "            opt.zero_grad(set_to_none=True)\n"
        "            loss = torch.nn.CrossEntropyLoss()(model(x), y)\n"
        "            loss.backward()\n"
        "            opt.step()\n"
        "            out.append(float(loss))\n"
        "    return out\n",
    ],
}

DESCRIPTION = (
    "evaluate calls model.eval() but not no_grad, so every forward pass builds a graph (the "
    "other exercises are right)."
)

WRONG_ANSWERS = {"evaluate": MISTAKES["evaluate"][0]["code"]}
