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


def _jacobian(*, leaf: str = "x.detach().requires_grad_()", row: str | None = None,
              stack: str = "torch.stack(rows)", empty: bool = True) -> str:
    """The solution of jacobian_by_rows with one of its lines changed."""
    row = row or "(r,) = torch.autograd.grad(flat[i], leaf, retain_graph=True)"
    return ("def jacobian_by_rows(f, x):\n"
            f"    leaf = {leaf}\n"
            "    out = f(leaf)\n"
            "    flat = out.reshape(-1)\n"
            "    rows = []\n"
            "    for i in range(flat.numel()):\n"
            f"        {row}\n"
            "        rows.append(r)\n"
            "    shape = tuple(out.shape) + tuple(x.shape)\n"
            + ("    if not rows:\n        return torch.zeros(shape, dtype=x.dtype)\n" if empty else "")
            + f"    return {stack}.reshape(shape)\n")


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
    "jacobian_by_rows": [
        {"kind": "shortcut", "why": "calls the library's functional.jacobian",
         "message": "autograd_lab.autograd.functional.jacobian is switched off",
         "code": "from autograd_lab.autograd.functional import jacobian\n\n\n"
                 "def jacobian_by_rows(f, x):\n"
                 "    return jacobian(f, x)\n"},
        {"kind": "shortcut",
         "why": "a vmap-like trick: one copy of x per row, every row in one backward pass",
         "message": "one autograd.grad pass per element of y",
         "code": "def jacobian_by_rows(f, x):\n"
                 "    y0 = f(x.detach())\n"
                 "    m = y0.numel()\n"
                 "    copies = torch.stack([x.detach()] * m).requires_grad_()\n"
                 "    picked = torch.stack([f(copies[i]).reshape(-1)[i] for i in range(m)])\n"
                 "    (g,) = torch.autograd.grad(picked.sum(), copies)\n"
                 "    return g.reshape(tuple(y0.shape) + tuple(x.shape))\n"},
        {"kind": "shortcut", "why": "central finite differences instead of backward passes",
         "message": "no finite differences",
         "code": "def jacobian_by_rows(f, x):\n"
                 "    eps = 1e-3\n"
                 "    flat = x.detach().reshape(-1)\n"
                 "    y0 = f(x.detach())\n"
                 "    cols = []\n"
                 "    for j in range(flat.numel()):\n"
                 "        e = torch.zeros(flat.numel(), dtype=x.dtype)\n"
                 "        e[j] = eps\n"
                 "        up, down = f((flat + e).reshape(x.shape)), f((flat - e).reshape(x.shape))\n"
                 "        cols.append(((up - down) / (2 * eps)).reshape(-1))\n"
                 "    return torch.stack(cols, dim=1).reshape(tuple(y0.shape) + tuple(x.shape))\n"},
        {"kind": "mistake", "why": "calls backward() per row and reads leaf.grad, which accumulates",
         "message": "each row holds the sum of the rows before it",
         "code": _jacobian(row="flat[i].backward(retain_graph=True)\n        r = leaf.grad.clone()")},
        {"kind": "mistake", "why": "forgets retain_graph=True: the second pass finds the graph freed",
         "message": "Specify retain_graph=True",
         "code": _jacobian(row="(r,) = torch.autograd.grad(flat[i], leaf)")},
        {"kind": "mistake", "why": "stacks the rows as columns: the transpose",
         "message": "the columns of J laid out as rows",
         "code": _jacobian(stack="torch.stack(rows, dim=1)")},
        {"kind": "edge", "why": "stacks the rows without a case for an empty y (torch.stack of no rows)",
         "message": "y has no elements",
         "code": _jacobian(empty=False)},
        {"kind": "structure", "why": "sets requires_grad on the caller's x instead of a fresh leaf",
         "message": "do not change the caller's x",
         "code": _jacobian(leaf="x.requires_grad_() if not x.requires_grad "
                                "else x.detach().requires_grad_()")},
        {"kind": "structure", "why": "keeps the graph of the rows (create_graph=True)",
         "message": "return the Jacobian without a graph",
         "code": _jacobian(row="(r,) = torch.autograd.grad(flat[i], leaf, retain_graph=True, "
                               "create_graph=True)")},
        {"kind": "type", "why": "collects the rows as NumPy arrays and returns an array",
         "message": "expected an autograd_lab Tensor",
         "code": "import numpy as np\n\n\n" + _jacobian(
             row="r = torch.autograd.grad(flat[i], leaf, retain_graph=True)[0].numpy()",
             stack="np.stack(rows)").replace(
             "return torch.zeros(shape, dtype=x.dtype)", "return np.zeros(shape)")},
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
    "jacobian_by_rows": [
        # unit vectors as grad_outputs, as the notebook's example does
        "def jacobian_by_rows(f, x):\n"
        "    leaf = x.detach().requires_grad_()\n"
        "    y = f(leaf)\n"
        "    J = torch.zeros(y.numel(), x.numel(), dtype=x.dtype)\n"
        "    for i in range(y.numel()):\n"
        "        e = torch.zeros(y.numel(), dtype=y.dtype)\n"
        "        e[i] = 1.0\n"
        "        (g,) = torch.autograd.grad(y, leaf, grad_outputs=e.reshape(y.shape), retain_graph=True)\n"
        "        J[i] = g.reshape(-1)\n"
        "    return J.reshape(tuple(y.shape) + tuple(x.shape))\n",
        # backward() into .grad, cleared before every row
        "def jacobian_by_rows(f, x):\n"
        "    leaf = x.detach().clone().requires_grad_(True)\n"
        "    y = f(leaf).reshape(-1)\n"
        "    rows = []\n"
        "    for yi in y:\n"
        "        leaf.grad = None\n"
        "        yi.backward(retain_graph=True)\n"
        "        rows.append(leaf.grad.detach().clone().reshape(-1))\n"
        "    flat = torch.stack(rows) if rows else torch.zeros(0, x.numel(), dtype=x.dtype)\n"
        "    return flat.reshape(tuple(f(x.detach()).shape) + tuple(x.shape))\n",
    ],
}

DESCRIPTION = (
    "evaluate calls model.eval() but not no_grad, so every forward pass builds a graph (the "
    "Jacobian exercise is right)."
)

WRONG_ANSWERS = {"evaluate": MISTAKES["evaluate"][0]["code"]}
