"""Wrong answers to 11_own_autograd, for the project's tests (never released: see nbgrader_config.py).

MISTAKES (per exercise: answers learners really write, each of which must lose points with its
`message`), ALTERNATIVES (correct answers that must score full) and WRONG_ANSWERS (one learner,
for tests/test_pipeline.py), as docs/exercise-authoring.md describes.

Most answers are the solution cell with one change, made by :func:`_change` on the cell as the
notebook holds it (which fails loudly if the solution no longer has the text to change), so that
each differs from a right answer by the mistake it is about.
"""

import json
from pathlib import Path

_MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION")
_NOTEBOOK = json.loads(Path(__file__).with_name("11_own_autograd.ipynb").read_text(encoding="utf-8"))
SOLUTION = {
    cell["metadata"]["nbgrader"]["grade_id"]: "\n".join(
        line for line in "".join(cell["source"]).splitlines() if line.strip() not in _MARKERS)
    for cell in _NOTEBOOK["cells"]
    if cell["cell_type"] == "code" and cell["metadata"].get("nbgrader", {}).get("solution")
}


_NO_GRAD_FN = "element 0 of tensors does not require grad and does not have a grad_fn"


def _change(grade_id: str, *pairs: str) -> str:
    """The solution of `grade_id` with each `old` replaced by `new` (pairs old, new, old, new...)."""
    code = SOLUTION[grade_id]
    for old, new in zip(pairs[::2], pairs[1::2]):
        if code.count(old) != 1:
            raise ValueError(f"{grade_id}: {old!r} occurs {code.count(old)} times in the solution")
        code = code.replace(old, new)
    return code


_TOPO_RECURSIVE = (  # micrograd's build_topo, and its backward on .grad buffers kept in a dict
    "def backward(y, gradient=None):\n"
    "    if not y.requires_grad:\n"
    "        raise RuntimeError('element 0 of tensors does not require grad and does not have a grad_fn')\n"
    "    if gradient is None:\n"
    "        if y.data.size != 1:\n"
    "            raise RuntimeError('grad can be implicitly created only for scalar outputs')\n"
    "        gradient = np.ones_like(y.data)\n"
    "    topo, visited = [], set()\n"
    "\n"
    "    def build_topo(v):\n"
    "        if v not in visited:\n"
    "            visited.add(v)\n"
    "            for child in v._prev:\n"
    "                if child.requires_grad:\n"
    "                    build_topo(child)\n"
    "            topo.append(v)\n"
    "\n"
    "    build_topo(y)\n"
    "    sums = {y: gradient}\n"
    "    for t in reversed(topo):\n"
    "        g = sums.pop(t)\n"
    "        if t._backward is None:\n"
    "            t.grad = g.copy() if t.grad is None else t.grad + g\n"
    "            continue\n"
    "        for p, gp in zip(t._prev, t._backward(g)):\n"
    "            if p.requires_grad:\n"
    "                sums[p] = gp if p not in sums else sums[p] + gp\n")

_PER_PATH = (  # sends every gradient on at once: a tensor runs once per path
    "def backward(y, gradient=None):\n"
    "    if not y.requires_grad:\n"
    "        raise RuntimeError('element 0 of tensors does not require grad and does not have a grad_fn')\n"
    "    if gradient is None:\n"
    "        if y.data.size != 1:\n"
    "            raise RuntimeError('grad can be implicitly created only for scalar outputs')\n"
    "        gradient = np.ones_like(y.data)\n"
    "    todo = [(y, gradient)]\n"
    "    while todo:\n"
    "        t, g = todo.pop()\n"
    "        if t._backward is None:\n"
    "            t.grad = g.copy() if t.grad is None else t.grad + g\n"
    "            continue\n"
    "        for p, gp in zip(t._prev, t._backward(g)):\n"
    "            if p.requires_grad:\n"
    "                todo.append((p, gp))\n")

_MICROGRAD = (  # .grad of every tensor is the buffer, never reset: a second backward adds twice
    "def backward(y, gradient=None):\n"
    "    if not y.requires_grad:\n"
    "        raise RuntimeError('element 0 of tensors does not require grad and does not have a grad_fn')\n"
    "    if gradient is None:\n"
    "        if y.data.size != 1:\n"
    "            raise RuntimeError('grad can be implicitly created only for scalar outputs')\n"
    "        gradient = np.ones_like(y.data)\n"
    "    waiting, stack = {y: 0}, [y]\n"
    "    while stack:\n"
    "        t = stack.pop()\n"
    "        for p in t._prev:\n"
    "            if p.requires_grad:\n"
    "                if p not in waiting:\n"
    "                    waiting[p] = 0\n"
    "                    stack.append(p)\n"
    "                waiting[p] += 1\n"
    "    y.grad = np.asarray(gradient, dtype=np.float64)\n"
    "    ready = [y]\n"
    "    while ready:\n"
    "        t = ready.pop()\n"
    "        if t._backward is None:\n"
    "            continue\n"
    "        for p, gp in zip(t._prev, t._backward(t.grad)):\n"
    "            if not p.requires_grad:\n"
    "                continue\n"
    "            p.grad = gp if p.grad is None else p.grad + gp\n"
    "            waiting[p] -= 1\n"
    "            if waiting[p] == 0:\n"
    "                ready.append(p)\n")

_PREORDER = (  # each tensor once, but in the order a depth-first walk first meets it
    "def backward(y, gradient=None):\n"
    "    if not y.requires_grad:\n"
    "        raise RuntimeError('element 0 of tensors does not require grad and does not have a grad_fn')\n"
    "    if gradient is None:\n"
    "        if y.data.size != 1:\n"
    "            raise RuntimeError('grad can be implicitly created only for scalar outputs')\n"
    "        gradient = np.ones_like(y.data)\n"
    "    order, seen, stack = [], {y}, [y]\n"
    "    while stack:\n"
    "        t = stack.pop()\n"
    "        order.append(t)\n"
    "        for p in t._prev:\n"
    "            if p.requires_grad and p not in seen:\n"
    "                seen.add(p)\n"
    "                stack.append(p)\n"
    "    sums = {y: gradient}\n"
    "    for t in order:\n"
    "        g = sums.pop(t, None)\n"
    "        if g is None:\n"
    "            continue\n"
    "        if t._backward is None:\n"
    "            t.grad = g.copy() if t.grad is None else t.grad + g\n"
    "            continue\n"
    "        for p, gp in zip(t._prev, t._backward(g)):\n"
    "            if p.requires_grad:\n"
    "                sums[p] = gp if p not in sums else sums[p] + gp\n")

_THROUGH_LAB = (  # rebuilds the graph with autograd_lab's tensors and lets its engine run
    "LAB_OPS = {'add': lambda a, b: a + b, 'sub': lambda a, b: a - b, 'mul': lambda a, b: a * b,\n"
    "           'neg': lambda a: -a, 'exp': lambda a: a.exp(), 'log': lambda a: a.log(),\n"
    "           'tanh': lambda a: a.tanh(), 'relu': lambda a: a.relu(), 'matmul': lambda a, b: a @ b}\n"
    "\n"
    "\n"
    "def backward(y, gradient=None):\n"
    "    made = {}\n"
    "\n"
    "    def lab(t):\n"
    "        if t not in made:\n"
    "            if not t._prev:\n"
    "                made[t] = torch.tensor(t.data, requires_grad=t.requires_grad)\n"
    "            else:\n"
    "                made[t] = LAB_OPS[t._op](*[lab(p) for p in t._prev])\n"
    "        return made[t]\n"
    "\n"
    "    out = lab(y)\n"
    "    out.backward(None if gradient is None else torch.tensor(gradient))\n"
    "    for t, u in made.items():\n"
    "        if not t._prev and u.grad is not None:\n"
    "            t.grad = u.grad.numpy().copy() if t.grad is None else t.grad + u.grad.numpy()\n")

_NO_GRAD_GENERATOR = (
    "import contextlib\n"
    "\n"
    "\n"
    "@contextlib.contextmanager\n"
    "def no_grad():\n"
    "    global _grad_enabled\n"
    "    previous = _grad_enabled\n"
    "    _grad_enabled = False\n"
    "    yield\n"
    "    _grad_enabled = previous\n"
    "\n"
    "\n"
    "def zero_grad(params):\n"
    "    for p in params:\n"
    "        p.grad = None\n")

_CE_NUMPY_HEAD = (
    "def cross_entropy(logits, labels):\n"
    "    n = logits.shape[0]\n"
    "    z = logits.data - logits.data.max(axis=1, keepdims=True)\n"
    "    log_probs = z - np.log(np.exp(z).sum(axis=1, keepdims=True))\n")

MISTAKES = {
    "tensor": [
        {"kind": "shortcut", "why": "keeps its data in an autograd_lab tensor (to use its autograd later)",
         "message": "not a list or another library's tensor",
         "code": _change("tensor", "self.data = np.array(data, dtype=np.float64)",
                         "self.data = torch.tensor(data, dtype=torch.float64)")},
        {"kind": "structure", "why": "np.asarray: the tensor shares the caller's array",
         "message": "keep an array of its own",
         "code": _change("tensor", "self.data = np.array(data, dtype=np.float64)",
                         "self.data = np.asarray(data, dtype=np.float64)")},
        {"kind": "type", "why": "no conversion to float64: integer data stays integer",
         "message": "convert to float64",
         "code": _change("tensor", "self.data = np.array(data, dtype=np.float64)",
                         "self.data = np.array(data)")},
        {"kind": "mistake", "why": "starts .grad at 0, as micrograd does",
         "message": "grad is None until backward fills it",
         "code": _change("tensor", "self.grad = None", "self.grad = 0.0")},
        {"kind": "mistake", "why": "records whenever recording is on, also for constants",
         "message": "record only when a parent requires grad",
         "code": _change("tensor", "if is_grad_enabled() and any(p.requires_grad for p in parents):",
                         "if is_grad_enabled():")},
        {"kind": "mistake", "why": "ignores the grad mode",
         "message": "record nothing while recording is off",
         "code": _change("tensor", "if is_grad_enabled() and any(p.requires_grad for p in parents):",
                         "if any(p.requires_grad for p in parents):")},
        {"kind": "structure", "why": "keeps the parents' arrays in _prev, not the tensors",
         "message": "_prev holds the parent Tensors themselves",
         "code": _change("tensor", "out._prev = tuple(parents)",
                         "out._prev = tuple(p.data for p in parents)")},
        {"kind": "type", "why": "keeps the parents as given (a list stays a list)",
         "message": "tuple(parents)",
         "code": _change("tensor", "out._prev = tuple(parents)", "out._prev = parents")},
    ],
    "elementwise": [
        {"kind": "edge", "why": "mul's rule forgets to undo broadcasting",
         "message": "sum the gradient back to the input's shape with sum_to_shape",
         "code": _change("elementwise", "lambda g: (sum_to_shape(g * b.data, a.shape), "
                                        "sum_to_shape(g * a.data, b.shape)))",
                         "lambda g: (g * b.data, g * a.data))")},
        {"kind": "mistake", "why": "power's derivative keeps the power: p * a**p",
         "message": "the power drops by one",
         "code": _change("elementwise", "g * p * a.data ** (p - 1)", "g * p * a.data ** p")},
        {"kind": "mistake", "why": "relu masks by the sign of the gradient, not of the input",
         "message": "not where g is",
         "code": _change("elementwise", "lambda g: (g * positive,))", "lambda g: (g * (g > 0),))")},
        {"kind": "mistake", "why": "tanh's derivative from the input: 1 - a**2",
         "message": "square the result tanh(a), not the input",
         "code": _change("elementwise", "lambda g: (g * (1.0 - t * t),))",
                         "lambda g: (g * (1.0 - a.data * a.data),))")},
        {"kind": "mistake", "why": "sub sends +g to b",
         "message": "b receives -g",
         "code": _change("elementwise", "sum_to_shape(-g, b.shape)", "sum_to_shape(g, b.shape)")},
        {"kind": "mistake", "why": "exp's rule forgets the chain rule: returns e, not g * e",
         "message": "the chain rule",
         "code": _change("elementwise", "lambda g: (g * e,))", "lambda g: (e,))")},
        {"kind": "type", "why": "neg's rule returns the bare array, not a tuple",
         "message": "return a tuple, one gradient per parent",
         "code": _change("elementwise", 'lambda g: (-g,))', "lambda g: -g)")},
        {"kind": "shortcut", "why": "tanh's rule asks autograd_lab for the gradient",
         "message": "autograd_lab.autograd.grad is switched off",
         "code": _change("elementwise", "lambda g: (g * (1.0 - t * t),))",
                         "lambda g: (torch.autograd.grad(torch.tensor(a.data, requires_grad=True).tanh(), "
                         "[torch.tensor(a.data, requires_grad=True)], torch.tensor(g))[0].numpy(),))")},
    ],
    "reductions": [
        {"kind": "mistake", "why": "broadcasts g without putting the summed axis back",
         "message": "put the summed axis back first",
         "code": _change("reductions", "g = np.expand_dims(g, axis)", "pass")},
        {"kind": "edge", "why": "expands the axis also when keepdims kept it",
         "message": "with keepdims the axis is there already",
         "code": _change("reductions", "if axis is not None and not keepdims:", "if axis is not None:")},
        {"kind": "mistake", "why": "returns g itself: a gradient of the sum's shape",
         "message": "the gradient of a sum has the input's shape",
         "code": _change("reductions", "return (np.broadcast_to(g, a.shape).copy(),)", "return (g,)")},
        {"kind": "mistake", "why": "transposes with .T, which reverses all the axes of a batch",
         "message": "x.T reverses ALL axes",
         "code": _change("reductions", "g @ np.swapaxes(b.data, -1, -2)", "g @ b.data.T",
                         "np.swapaxes(a.data, -1, -2) @ g", "a.data.T @ g")},
        {"kind": "edge", "why": "does not sum a batch-shared b's gradient over the batch",
         "message": "summed over it: sum_to_shape",
         "code": _change("reductions", "sum_to_shape(np.swapaxes(a.data, -1, -2) @ g, b.shape)",
                         "np.swapaxes(a.data, -1, -2) @ g")},
        {"kind": "mistake", "why": "a's gradient without the transpose: g @ b",
         "message": "g @ b.T to a",
         "code": _change("reductions", "g @ np.swapaxes(b.data, -1, -2)", "g @ b.data")},
    ],
    "backward": [
        {"kind": "shortcut", "why": "rebuilds the graph with autograd_lab's tensors and calls their backward",
         "message": "autograd_lab.Tensor.backward is switched off",
         "code": _THROUGH_LAB},
        {"kind": "structure", "why": "micrograd's recursive build_topo",
         "message": "no recursion",
         "code": _TOPO_RECURSIVE},
        {"kind": "structure", "why": "a work list that sends each gradient on at once: once per path",
         "message": "each rule runs once",
         "code": _PER_PATH},
        {"kind": "structure", "why": "micrograd's design: .grad of every tensor is the buffer",
         "message": "only leaves keep .grad",
         "code": _MICROGRAD},
        {"kind": "mistake", "why": "a leaf's .grad replaced, not accumulated",
         "message": "this one replaced it",
         "code": _change("backward", "t.grad = g.copy() if t.grad is None else t.grad + g",
                         "t.grad = g.copy()")},
        {"kind": "structure", "why": "stores the gradient array itself and adds in place: leaves share it",
         "message": "store a copy in .grad",
         "code": _change("backward", "            t.grad = g.copy() if t.grad is None else t.grad + g\n",
                         "            if t.grad is None:\n"
                         "                t.grad = g\n"
                         "            else:\n"
                         "                t.grad += g\n")},
        {"kind": "mistake", "why": "keeps the last gradient sent to a tensor, not their sum",
         "message": "sum ALL the gradients that reach a tensor",
         "code": _change("backward", "sums[p] = gp if p not in sums else sums[p] + gp", "sums[p] = gp")},
        {"kind": "mistake", "why": "runs the tensors in depth-first pre-order, without counting",
         "message": "sum ALL the gradients that reach a tensor before running its rule",
         "code": _PREORDER},
        {"kind": "edge", "why": "starts any output at ones, whatever its size",
         "message": "PyTorch's error: pass gradient",
         "code": _change("backward", "if y.data.size != 1:", "if False:")},
    ],
    "grad_mode": [
        {"kind": "mistake", "why": "__exit__ switches recording on, whatever it found",
         "message": "restore the state no_grad FOUND",
         "code": _change("grad_mode", "_grad_enabled = self.previous", "_grad_enabled = True")},
        {"kind": "structure", "why": "a generator context manager without try/finally",
         "message": "restore the state even when the block raises",
         "code": _NO_GRAD_GENERATOR},
        {"kind": "mistake", "why": "__exit__ returns True: the exception is swallowed",
         "message": "let the exception through",
         "code": _change("grad_mode", "return False ", "return True ")},
        {"kind": "mistake", "why": "assigns a local _grad_enabled: no global statement",
         "message": "global _grad_enabled",
         "code": _change("grad_mode", "    def __enter__(self):\n        global _grad_enabled\n",
                         "    def __enter__(self):\n")},
        {"kind": "shortcut", "why": "autograd_lab's no_grad, which knows nothing of this Tensor",
         "message": "autograd_lab's no_grad switches autograd_lab's recording, not yours",
         "code": "no_grad = torch.no_grad\n\n\n"
                 "def zero_grad(params):\n    for p in params:\n        p.grad = None\n"},
        {"kind": "mistake", "why": "zero_grad sets the gradients to the number 0",
         "message": "a bare 0 loses the shape",
         "code": _change("grad_mode", "        p.grad = None", "        p.grad = 0.0")},
        {"kind": "edge", "why": "zero_grad zeroes in place, failing on a parameter without .grad",
         "message": "a parameter may have none (None)",
         "code": _change("grad_mode", "        p.grad = None", "        p.grad[...] = 0.0")},
        {"kind": "mistake", "why": "zero_grad rebinds a loop variable: no .grad changes",
         "message": "set p.grad = None for each parameter p",
         "code": _change("grad_mode", "    for p in params:\n        p.grad = None",
                         "    for g in [p.grad for p in params]:\n        g = None")},
    ],
    "cross_entropy": [
        {"kind": "edge", "why": "no shift by the row maximum: exp overflows on large logits",
         "message": "softmax is the same after subtracting each row's maximum",
         "code": _change("cross_entropy", "    z = logits - shift\n", "    z = logits\n")},
        {"kind": "mistake", "why": "sums over the batch instead of the mean",
         "message": "the MEAN over the batch",
         "code": _change("cross_entropy", "* (-1.0 / n)", "* -1.0")},
        {"kind": "mistake", "why": "a 1 in every row for every label: chosen[:, labels]",
         "message": "pick ONE entry per row",
         "code": _change("cross_entropy", "chosen[np.arange(n), labels] = 1.0", "chosen[:, labels] = 1.0")},
        {"kind": "mistake", "why": "the probability, not its log",
         "message": "take the LOG of softmax",
         "code": _change("cross_entropy", "return (log_probs * chosen).sum() * (-1.0 / n)",
                         "return (log_probs.exp() * chosen).sum() * (-1.0 / n)")},
        {"kind": "structure", "why": "computes the value with NumPy: no graph back to the logits",
         "message": "build the loss from your operations",
         "code": _CE_NUMPY_HEAD + "    return Tensor(-log_probs[np.arange(n), labels].mean())\n"},
        {"kind": "shortcut", "why": "asks autograd_lab's cross_entropy",
         "message": "autograd_lab.nn.functional.cross_entropy is switched off",
         "code": "def cross_entropy(logits, labels):\n"
                 "    value = torch.nn.functional.cross_entropy(torch.tensor(logits.data),\n"
                 "                                              torch.tensor(labels))\n"
                 "    return logits.sum() * 0.0 + value.item()\n"},
    ],
}

ALTERNATIVES = {
    "tensor": [
        _change("tensor",
                "self.data = np.array(data, dtype=np.float64)",
                "self.data = np.asarray(data, dtype=float).copy()",
                "    out = Tensor(data)\n"
                "    if is_grad_enabled() and any(p.requires_grad for p in parents):\n",
                "    out = Tensor(data)\n"
                "    if not is_grad_enabled() or not any(p.requires_grad for p in parents):\n"
                "        return out\n"
                "    if True:\n"),
    ],
    "elementwise": [
        _change("elementwise",
                "    e = np.exp(a.data)\n    return record(e, (a,), \"exp\", lambda g: (g * e,))\n",
                "    out = record(np.exp(a.data), (a,), 'exp', lambda g: (g * out.data,))\n"
                "    return out\n",
                "lambda g: (g * (1.0 - t * t),))", "lambda g: (g * (1 - np.tanh(a.data) ** 2),))",
                "return record(np.where(positive, a.data, 0.0), (a,), \"relu\", lambda g: (g * positive,))",
                "return record(np.maximum(a.data, 0), (a,), 'relu',\n"
                "                  lambda g: (np.where(a.data > 0, g, 0.0),))",
                "g * p * a.data ** (p - 1)", "p * np.power(a.data, p - 1) * g"),
    ],
    "reductions": [
        "def reduce_sum(a, axis=None, keepdims=False):\n"
        "    axes = range(a.data.ndim) if axis is None else (axis,) if isinstance(axis, int) else axis\n"
        "    axes = tuple(sorted(ax % a.data.ndim for ax in axes)) if a.data.ndim else ()\n"
        "\n"
        "    def rule(g):\n"
        "        g = np.asarray(g)\n"
        "        if not keepdims:\n"
        "            for ax in axes:\n"
        "                g = np.expand_dims(g, ax)\n"
        "        return (g * np.ones_like(a.data),)\n"
        "\n"
        "    return record(np.sum(a.data, axis=axis, keepdims=keepdims), (a,), 'sum', rule)\n"
        "\n"
        "\n"
        "def matmul(a, b):\n"
        "    a, b = as_tensor(a), as_tensor(b)\n"
        "    return record(np.matmul(a.data, b.data), (a, b), 'matmul',\n"
        "                  lambda g: (sum_to_shape(np.matmul(g, b.data.mT), a.shape),\n"
        "                             sum_to_shape(np.matmul(a.data.mT, g), b.shape)))\n",
    ],
    "backward": [
        # reverse post-order of an iterative depth-first walk, gradients summed in a dict
        "def backward(y, gradient=None):\n"
        "    if not y.requires_grad:\n"
        "        raise RuntimeError('" + _NO_GRAD_FN + "')\n"
        "    if gradient is None:\n"
        "        if y.data.size != 1:\n"
        "            raise RuntimeError('grad can be implicitly created only for scalar outputs')\n"
        "        gradient = np.ones_like(y.data)\n"
        "    order, done, stack = [], set(), [(y, False)]\n"
        "    while stack:\n"
        "        t, expanded = stack.pop()\n"
        "        if expanded:\n"
        "            order.append(t)\n"
        "            continue\n"
        "        if t in done:\n"
        "            continue\n"
        "        done.add(t)\n"
        "        stack.append((t, True))\n"
        "        for p in t._prev:\n"
        "            if p.requires_grad and p not in done:\n"
        "                stack.append((p, False))\n"
        "    sums = {y: np.asarray(gradient, dtype=float)}\n"
        "    for t in reversed(order):\n"
        "        g = sums.pop(t)\n"
        "        if not t._prev:\n"
        "            t.grad = g.copy() if t.grad is None else t.grad + g\n"
        "            continue\n"
        "        for p, gp in zip(t._prev, t._backward(g)):\n"
        "            if p.requires_grad:\n"
        "                sums[p] = sums[p] + gp if p in sums else gp\n",
        # Kahn's algorithm with a queue, ids as keys
        "from collections import deque\n"
        "\n"
        "\n"
        "def backward(y, gradient=None):\n"
        "    if not y.requires_grad:\n"
        "        raise RuntimeError('" + _NO_GRAD_FN + "')\n"
        "    if gradient is None and y.data.size != 1:\n"
        "        raise RuntimeError('grad can be implicitly created only for scalar outputs')\n"
        "    count, tensors, todo = {id(y): 0}, {id(y): y}, [y]\n"
        "    while todo:\n"
        "        for p in todo.pop()._prev:\n"
        "            if p.requires_grad:\n"
        "                if id(p) not in count:\n"
        "                    count[id(p)], tensors[id(p)] = 0, p\n"
        "                    todo.append(p)\n"
        "                count[id(p)] += 1\n"
        "    grads = {id(y): np.ones_like(y.data) if gradient is None else np.array(gradient, dtype=float)}\n"
        "    queue = deque([y])\n"
        "    while queue:\n"
        "        t = queue.popleft()\n"
        "        g = grads.pop(id(t))\n"
        "        if t._backward is None:\n"
        "            t.grad = np.array(g) if t.grad is None else t.grad + g\n"
        "            continue\n"
        "        for p, gp in zip(t._prev, t._backward(g)):\n"
        "            if p.requires_grad:\n"
        "                grads[id(p)] = grads[id(p)] + gp if id(p) in grads else gp\n"
        "                count[id(p)] -= 1\n"
        "                if count[id(p)] == 0:\n"
        "                    queue.append(p)\n",
    ],
    "grad_mode": [
        _NO_GRAD_GENERATOR.replace(
            "    yield\n    _grad_enabled = previous\n",
            "    try:\n        yield\n    finally:\n        _grad_enabled = previous\n")
        .replace("        p.grad = None\n", "        p.grad = np.zeros_like(p.data)\n"),
    ],
    "cross_entropy": [
        # one fused op, with the closed-form gradient (softmax - one_hot) / N
        _CE_NUMPY_HEAD
        + "    chosen = np.zeros_like(z)\n"
          "    chosen[np.arange(n), labels] = 1.0\n"
          "    probs = np.exp(log_probs)\n"
          "    value = -(log_probs * chosen).sum() / n\n"
          "    return record(np.asarray(value), (logits,), 'cross_entropy',\n"
          "                  lambda g: (g * (probs - chosen) / n,))\n",
        # the row maximum as a recorded op with its own rule (what reaches it cancels out): no stop-gradient
        _change("cross_entropy",
                "shift = Tensor(logits.data.max(axis=1, keepdims=True))   # a constant: a stop-gradient",
                "top = logits.data.max(axis=1, keepdims=True)\n"
                "    shift = record(top, (logits,), 'max', lambda g: (g * (logits.data == top),))"),
    ],
}

# tests/test_pipeline.py's "typical learner": micrograd's recursive sort (fails the deep chain)
WRONG_ANSWERS = {"backward": _TOPO_RECURSIVE}
