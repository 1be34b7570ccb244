"""Wrong answers to 04_backward_rules, for the project's tests (never released: see nbgrader_config.py).

MISTAKES (per exercise: answers learners really write, each of which must lose points with its
`message`), ALTERNATIVES (correct answers that must score full) and WRONG_ANSWERS (one learner,
for tests/test_pipeline.py), as docs/exercise-authoring.md describes. An exercise's cell holds
several Functions; each answer below is the whole cell with one of them written wrong.
"""

_STATIC = "\n    @staticmethod\n"


def _function(name: str, doc: str, forward_args: str, forward: str, backward: str) -> str:
    """The source of a Function class (bodies indented by 8 spaces, one line per statement)."""
    return (f"class {name}(torch.autograd.Function):\n    \"\"\"{doc}\"\"\"\n" + _STATIC
            + f"    def forward(ctx, {forward_args}):\n{forward}" + _STATIC
            + f"    def backward(ctx, grad):\n{backward}\n\n")


def _lines(*lines: str) -> str:
    return "".join(f"        {line}\n" for line in lines)


# --- exercise 1: the elementwise Functions -------------------------------------------------------
ADD = _function("MyAdd", "a + b, with broadcasting.", "a, b",
                _lines("ctx.shapes = (a.shape, b.shape)", "return a + b"),
                _lines("shape_a, shape_b = ctx.shapes",
                       "return sum_to_shape(grad, shape_a), sum_to_shape(grad, shape_b)"))
MUL_FORWARD = _lines("ctx.save_for_backward(a, b)", "return a * b")
MUL = _function("MyMul", "a * b, with broadcasting.", "a, b", MUL_FORWARD,
                _lines("a, b = ctx.saved_tensors",
                       "return sum_to_shape(grad * b, a.shape), sum_to_shape(grad * a, b.shape)"))
EXP_FORWARD = _lines("y = torch.exp(x)", "ctx.save_for_backward(y)", "return y")
EXP = _function("MyExp", "exp(x).", "x", EXP_FORWARD, _lines("(y,) = ctx.saved_tensors", "return grad * y"))
LOG_FORWARD = _lines("ctx.save_for_backward(x)", "return torch.log(x)")
LOG = _function("MyLog", "log(x).", "x", LOG_FORWARD, _lines("(x,) = ctx.saved_tensors", "return grad / x"))
RELU_FORWARD = _lines("ctx.save_for_backward(x)", "return x.clamp(min=0)")
RELU = _function("MyReLU", "max(x, 0).", "x", RELU_FORWARD,
                 _lines("(x,) = ctx.saved_tensors", "return grad * (x > 0).to(grad.dtype)"))
ELEMENTWISE = {"MyAdd": ADD, "MyMul": MUL, "MyExp": EXP, "MyLog": LOG, "MyReLU": RELU}


def _elementwise(**replaced: str) -> str:
    return "".join(replaced.get(name, source) for name, source in ELEMENTWISE.items())


# --- exercise 2: reductions and shapes -------------------------------------------------------------
_DIMS = _lines("if dim is None:",
               "    dims = tuple(range(x.dim()))",
               "else:",
               "    dims = tuple(sorted(d % x.dim() for d in (dim if isinstance(dim, tuple) else (dim,))))")
SUM_FORWARD = _DIMS + _lines("ctx.x_shape, ctx.dims, ctx.keepdim = x.shape, dims, keepdim",
                             "return x.sum(dim=dims, keepdim=keepdim) if dims else x.clone()")
_PUT_BACK = _lines("if not ctx.keepdim:", "    for d in ctx.dims:", "        grad = grad.unsqueeze(d)")
SUM = _function("MySum", "x.sum(dim, keepdim).", "x, dim=None, keepdim=False", SUM_FORWARD,
                _PUT_BACK + _lines("return grad.expand(ctx.x_shape), None, None"))
MEAN_FORWARD = _DIMS + _lines("count = 1", "for d in dims:", "    count *= x.shape[d]",
                              "ctx.x_shape, ctx.dims, ctx.keepdim, ctx.count = x.shape, dims, keepdim, count",
                              "return x.sum(dim=dims, keepdim=keepdim) / count if dims else x.clone()")
MEAN = _function("MyMean", "x.mean(dim, keepdim).", "x, dim=None, keepdim=False", MEAN_FORWARD,
                 _PUT_BACK + _lines("return grad.expand(ctx.x_shape) / ctx.count, None, None"))
BROADCAST_FORWARD = _lines("ctx.x_shape = x.shape", "return x.expand(shape)")
BROADCAST = _function("MyBroadcastTo", "x.expand(shape).", "x, shape", BROADCAST_FORWARD,
                      _lines("return sum_to_shape(grad, ctx.x_shape), None"))
RESHAPE_FORWARD = _lines("ctx.x_shape = x.shape", "return x.reshape(shape)")
RESHAPE = _function("MyReshape", "x.reshape(shape).", "x, shape", RESHAPE_FORWARD,
                    _lines("return grad.reshape(ctx.x_shape), None"))
TRANSPOSE_FORWARD = _lines("ctx.swapped = (dim0, dim1)", "return x.transpose(dim0, dim1)")
TRANSPOSE = _function("MyTranspose", "x.transpose(dim0, dim1).", "x, dim0, dim1", TRANSPOSE_FORWARD,
                      _lines("return grad.transpose(*ctx.swapped), None, None"))
REDUCTIONS = {"MySum": SUM, "MyMean": MEAN, "MyBroadcastTo": BROADCAST, "MyReshape": RESHAPE,
              "MyTranspose": TRANSPOSE}


def _reductions(**replaced: str) -> str:
    return "".join(replaced.get(name, source) for name, source in REDUCTIONS.items())


# --- exercise 3: the matrix product ---------------------------------------------------------------
def _matmul(*backward: str) -> str:
    return _function("MyMatMul", "a @ b.", "a, b", _lines("ctx.save_for_backward(a, b)", "return a @ b"),
                     _lines("a, b = ctx.saved_tensors", *backward))


MATMUL = _matmul("grad_a = grad @ b.transpose(-1, -2)", "grad_b = a.transpose(-1, -2) @ grad",
                 "return sum_to_shape(grad_a, a.shape), sum_to_shape(grad_b, b.shape)")

# --- exercise 4: log-softmax and cross-entropy ------------------------------------------------------
STABLE_FORWARD = _lines("shifted = x - x.amax(dim=dim, keepdim=True)",
                        "y = shifted - torch.log(torch.exp(shifted).sum(dim=dim, keepdim=True))",
                        "ctx.save_for_backward(y)", "ctx.dim = dim", "return y")
LOG_SOFTMAX_BACKWARD = _lines("(y,) = ctx.saved_tensors",
                              "return grad - torch.exp(y) * grad.sum(dim=ctx.dim, keepdim=True), None")


def _log_softmax(forward: str = STABLE_FORWARD, backward: str = LOG_SOFTMAX_BACKWARD) -> str:
    return _function("MyLogSoftmax", "log softmax(x) along dim.", "x, dim", forward, backward)


CROSS_ENTROPY = (
    "def my_cross_entropy(logits, target):\n"
    "    one_hot = torch.nn.functional.one_hot(target, logits.shape[1]).to(logits.dtype)\n"
    "    picked = MySum.apply(MyMul.apply(MyLogSoftmax.apply(logits, 1), one_hot), 1)\n"
    "    return MyMul.apply(MyMean.apply(picked), torch.tensor(-1.0, dtype=logits.dtype))\n")

# --- exercise 5: the network ------------------------------------------------------------------------
MLP_LOGITS = (
    "def mlp_logits(params, x):\n"
    "    W1, b1, W2, b2 = params\n"
    "    hidden = MyReLU.apply(MyAdd.apply(MyMatMul.apply(x, MyTranspose.apply(W1, 0, 1)), b1))\n"
    "    return MyAdd.apply(MyMatMul.apply(hidden, MyTranspose.apply(W2, 0, 1)), b2)\n\n\n")


def _train_step(*body: str) -> str:
    return "def train_step(params, x, y, lr):\n" + "".join(f"    {line}\n" for line in body)


TRAIN_STEP = _train_step("for p in params:", "    p.grad = None",
                         "loss = my_cross_entropy(mlp_logits(params, x), y)", "my_backward(loss)",
                         "with torch.no_grad():", "    for p in params:", "        p -= lr * p.grad",
                         "return loss.item()")

MISTAKES = {
    "elementwise": [
        {"kind": "mistake", "why": "MyMul's backward does not sum the gradients of broadcast inputs",
         "message": "an input used several times (broadcast) gets the SUM",
         "code": _elementwise(MyMul=_function(
             "MyMul", "a * b.", "a, b", MUL_FORWARD,
             _lines("a, b = ctx.saved_tensors", "return grad * b, grad * a")))},
        {"kind": "mistake", "why": "MyMul's backward multiplies each factor's gradient by itself, not by the "
                                   "other factor",
         "message": "grad times the OTHER factor",
         "code": _elementwise(MyMul=_function(
             "MyMul", "a * b.", "a, b", MUL_FORWARD,
             _lines("a, b = ctx.saved_tensors",
                    "return sum_to_shape(grad * a, a.shape), sum_to_shape(grad * b, b.shape)")))},
        {"kind": "mistake", "why": "ReLU's gradient is 1 at x = 0 (x >= 0), not PyTorch's 0",
         "message": "ReLU's gradient at x = 0 is 0 in PyTorch",
         "code": _elementwise(MyReLU=_function(
             "MyReLU", "max(x, 0).", "x", RELU_FORWARD,
             _lines("(x,) = ctx.saved_tensors", "return grad * (x >= 0).to(grad.dtype)")))},
        {"kind": "mistake", "why": "MyExp's backward multiplies by x instead of exp(x)",
         "message": "the derivative of e^x is e^x itself",
         "code": _elementwise(MyExp=_function(
             "MyExp", "exp(x).", "x", LOG_FORWARD.replace("torch.log", "torch.exp"),
             _lines("(x,) = ctx.saved_tensors", "return grad * x")))},
        {"kind": "mistake", "why": "MyLog's backward divides by the output log(x) instead of x",
         "message": "with x the INPUT",
         "code": _elementwise(MyLog=_function(
             "MyLog", "log(x).", "x", _lines("y = torch.log(x)", "ctx.save_for_backward(y)", "return y"),
             _lines("(y,) = ctx.saved_tensors", "return grad / y")))},
        {"kind": "shortcut", "why": "MyMul's backward runs autograd on the library's product",
         "message": "autograd_lab.autograd.grad is switched off",
         "code": _elementwise(MyMul=_function(
             "MyMul", "a * b.", "a, b", MUL_FORWARD,
             _lines("a, b = ctx.saved_tensors",
                    "with torch.enable_grad():",
                    "    a2, b2 = a.detach().requires_grad_(), b.detach().requires_grad_()",
                    "    return torch.autograd.grad(a2 * b2, (a2, b2), grad)")))},
        {"kind": "shortcut", "why": "MyAdd's backward reduces with the library's sum_to_size",
         "message": "autograd_lab.Tensor.sum_to_size is switched off",
         "code": _elementwise(MyAdd=_function(
             "MyAdd", "a + b.", "a, b", _lines("ctx.shapes = (a.shape, b.shape)", "return a + b"),
             _lines("shape_a, shape_b = ctx.shapes",
                    "return grad.sum_to_size(shape_a), grad.sum_to_size(shape_b)")))},
        {"kind": "structure", "why": "MyReLU's backward zeroes the incoming grad in place",
         "message": "compute a new tensor (grad * y, not grad *= y)",
         "code": _elementwise(MyReLU=_function(
             "MyReLU", "max(x, 0).", "x", RELU_FORWARD,
             _lines("(x,) = ctx.saved_tensors", "grad[x <= 0] = 0", "return grad")))},
        {"kind": "structure", "why": "MyMul keeps its inputs as attributes of ctx",
         "message": "kept as an attribute of ctx",
         "code": _elementwise(MyMul=_function(
             "MyMul", "a * b.", "a, b", _lines("ctx.a, ctx.b = a, b", "return a * b"),
             _lines("return (sum_to_shape(grad * ctx.b, ctx.a.shape),",
                    "        sum_to_shape(grad * ctx.a, ctx.b.shape))")))},
        {"kind": "type", "why": "MyReLU's backward makes its mask float64: a float32 x gets a float64 "
                                "gradient",
         "message": "expected dtype torch.float32",
         "code": _elementwise(MyReLU=_function(
             "MyReLU", "max(x, 0).", "x", RELU_FORWARD,
             _lines("(x,) = ctx.saved_tensors", "return grad * (x > 0).double()")))},
    ],
    "reductions": [
        {"kind": "mistake", "why": "MySum's backward expands grad without putting the summed dims back",
         "message": "the summed dims were not put back",
         "code": _reductions(MySum=_function("MySum", "x.sum.", "x, dim=None, keepdim=False", SUM_FORWARD,
                                             _lines("return grad.expand(ctx.x_shape), None, None")))},
        {"kind": "mistake", "why": "MyMean's backward divides by x.numel() instead of the number averaged",
         "message": "not by x.numel()",
         "code": _reductions(MyMean=_function(
             "MyMean", "x.mean.", "x, dim=None, keepdim=False", MEAN_FORWARD,
             _PUT_BACK + _lines("return grad.expand(ctx.x_shape) / ctx.x_shape.numel(), None, None")))},
        {"kind": "edge", "why": "MyReshape's backward uses view, which refuses a non-contiguous gradient",
         "message": "grad.view(...) refuses it",
         "code": _reductions(MyReshape=_function("MyReshape", "x.reshape.", "x, shape", RESHAPE_FORWARD,
                                                 _lines("return grad.view(ctx.x_shape), None")))},
        {"kind": "mistake", "why": "MyTranspose's backward uses grad.t(), for matrices only",
         "message": ".T and .t() are for matrices only",
         "code": _reductions(MyTranspose=_function("MyTranspose", "x.transpose.", "x, dim0, dim1",
                                                   TRANSPOSE_FORWARD,
                                                   _lines("return grad.t(), None, None")))},
        {"kind": "mistake", "why": "MyBroadcastTo's backward sums only the new leading dims, not the "
                                   "stretched size-1 ones",
         "message": "sum over the dims broadcasting stretched from size 1 too",
         "code": _reductions(MyBroadcastTo=_function(
             "MyBroadcastTo", "x.expand.", "x, shape", BROADCAST_FORWARD,
             _lines("lead = grad.dim() - len(ctx.x_shape)",
                    "return (grad.sum(dim=tuple(range(lead))) if lead else grad), None")))},
        {"kind": "shortcut", "why": "MyBroadcastTo's backward calls the library's sum_to_size",
         "message": "autograd_lab.Tensor.sum_to_size is switched off",
         "code": _reductions(MyBroadcastTo=_function(
             "MyBroadcastTo", "x.expand.", "x, shape", BROADCAST_FORWARD,
             _lines("return grad.sum_to_size(ctx.x_shape), None")))},
        {"kind": "structure", "why": "MySum's backward returns the gradient of x alone, nothing for dim and "
                                     "keepdim",
         "message": "one per argument of forward",
         "code": _reductions(MySum=_function("MySum", "x.sum.", "x, dim=None, keepdim=False", SUM_FORWARD,
                                             _PUT_BACK + _lines("return grad.expand(ctx.x_shape)")))},
        {"kind": "mistake", "why": "MyMean's backward forgets to divide by n",
         "message": "that is the gradient of the sum",
         "code": _reductions(MyMean=_function(
             "MyMean", "x.mean.", "x, dim=None, keepdim=False", MEAN_FORWARD,
             _PUT_BACK + _lines("return grad.expand(ctx.x_shape), None, None")))},
    ],
    "matmul": [
        {"kind": "mistake", "why": "leaves the transposes out: grad @ b and a @ grad",
         "message": "the transposes are missing",
         "code": _matmul("return sum_to_shape(grad @ b, a.shape), sum_to_shape(a @ grad, b.shape)")},
        {"kind": "mistake", "why": "takes b's gradient as grad^T @ a, the transpose of the right one",
         "message": "the transpose of b's gradient",
         "code": _matmul("grad_a = grad @ b.transpose(-1, -2)", "grad_b = grad.transpose(-1, -2) @ a",
                         "return sum_to_shape(grad_a, a.shape), sum_to_shape(grad_b, b.shape)")},
        {"kind": "mistake", "why": "does not sum the gradients over the broadcast batch dims",
         "message": "an operand used by several batches gets the SUM",
         "code": _matmul("return grad @ b.transpose(-1, -2), a.transpose(-1, -2) @ grad")},
        {"kind": "edge", "why": "transposes with .T, which reverses every dim of a batch",
         "message": ".T reverses all dims",
         "code": _matmul("return sum_to_shape(grad @ b.T, a.shape), sum_to_shape(a.T @ grad, b.shape)")},
        {"kind": "shortcut", "why": "runs autograd on the library's matmul inside backward",
         "message": "autograd_lab.autograd.grad is switched off",
         "code": _matmul("with torch.enable_grad():",
                         "    a2, b2 = a.detach().requires_grad_(), b.detach().requires_grad_()",
                         "    return torch.autograd.grad(a2 @ b2, (a2, b2), grad)")},
    ],
    "log_softmax": [
        {"kind": "edge", "why": "log(exp(x) / sum(exp(x))) as written: nan and inf for large scores",
         "message": "subtract the max along dim first",
         "code": _log_softmax(forward=_lines(
             "e = torch.exp(x)", "y = torch.log(e / e.sum(dim=dim, keepdim=True))",
             "ctx.save_for_backward(y)", "ctx.dim = dim", "return y")) + CROSS_ENTROPY},
        {"kind": "mistake", "why": "backward forgets the sum of grad: grad - softmax",
         "message": "the sum of grad along dim is missing",
         "code": _log_softmax(backward=_lines("(y,) = ctx.saved_tensors", "return grad - torch.exp(y), None"))
                 + CROSS_ENTROPY},
        {"kind": "mistake", "why": "backward takes only the Jacobian's diagonal: grad * (1 - softmax)",
         "message": "only the diagonal of the Jacobian",
         "code": _log_softmax(backward=_lines("(y,) = ctx.saved_tensors",
                                              "return grad * (1 - torch.exp(y)), None")) + CROSS_ENTROPY},
        {"kind": "shortcut", "why": "forward calls the library's log_softmax",
         "message": "log_softmax is switched off",
         "code": _log_softmax(forward=_lines("y = torch.log_softmax(x, dim)", "ctx.save_for_backward(y)",
                                             "ctx.dim = dim", "return y")) + CROSS_ENTROPY},
        {"kind": "mistake", "why": "my_cross_entropy sums over the batch instead of taking the mean",
         "message": "the loss is the MEAN over the N examples",
         "code": _log_softmax() + CROSS_ENTROPY.replace("MyMean.apply(picked)", "MySum.apply(picked)")},
        {"kind": "structure", "why": "my_cross_entropy finishes with the library's mul, sum and mean",
         "message": "build the loss from your Functions",
         "code": _log_softmax()
                 + "def my_cross_entropy(logits, target):\n"
                   "    one_hot = torch.nn.functional.one_hot(target, logits.shape[1]).to(logits.dtype)\n"
                   "    return -(MyLogSoftmax.apply(logits, 1) * one_hot).sum(dim=1).mean()\n"},
        {"kind": "shortcut", "why": "my_cross_entropy calls the library's cross_entropy",
         "message": "autograd_lab.nn.functional.cross_entropy is switched off",
         "code": _log_softmax()
                 + "def my_cross_entropy(logits, target):\n"
                   "    return torch.nn.functional.cross_entropy(logits, target)\n"},
    ],
    "mlp": [
        {"kind": "structure", "why": "mlp_logits computes with the library's @, .T, + and relu",
         "message": "use MyMatMul.apply, MyTranspose.apply, MyAdd.apply",
         "code": "def mlp_logits(params, x):\n"
                 "    W1, b1, W2, b2 = params\n"
                 "    return (x @ W1.T + b1).clamp(min=0) @ W2.T + b2\n\n\n" + TRAIN_STEP},
        {"kind": "mistake", "why": "mlp_logits leaves out the ReLU",
         "message": "no ReLU between the layers",
         "code": MLP_LOGITS.replace("MyReLU.apply(", "(") + TRAIN_STEP},
        {"kind": "mistake", "why": "mlp_logits multiplies by W instead of W^T (nn.Linear's layout is "
                                   "(out, in))",
         "message": "a layer is x @ W^T + b",
         "code": "def mlp_logits(params, x):\n"
                 "    W1, b1, W2, b2 = params\n"
                 "    hidden = MyReLU.apply(MyAdd.apply(MyMatMul.apply(x, W1), b1))\n"
                 "    return MyAdd.apply(MyMatMul.apply(hidden, W2), b2)\n\n\n" + TRAIN_STEP},
        {"kind": "shortcut", "why": "train_step calls loss.backward() instead of my_backward",
         "message": "autograd_lab.Tensor.backward is switched off",
         "code": MLP_LOGITS + TRAIN_STEP.replace("my_backward(loss)", "loss.backward()")},
        {"kind": "mistake", "why": "train_step never clears the gradients",
         "message": "the first step also used the stale gradient",
         "code": MLP_LOGITS + TRAIN_STEP.replace("    for p in params:\n        p.grad = None\n", "", 1)},
        {"kind": "structure", "why": "train_step rebinds a name (p = p - lr * p.grad): the parameters "
                                     "never move",
         "message": "the parameters did not move",
         "code": MLP_LOGITS + TRAIN_STEP.replace("p -= lr * p.grad", "p = p - lr * p.grad")},
        {"kind": "type", "why": "train_step returns the loss tensor",
         "message": "return loss.item(), a Python float",
         "code": MLP_LOGITS + TRAIN_STEP.replace("return loss.item()", "return loss")},
    ],
}

ALTERNATIVES = {
    "elementwise": [
        # ReLU saves its output (PyTorch's threshold_backward reads the result); Exp saves its input;
        # MyMul reduces with its own loop over the broadcast dims.
        _elementwise(
            MyReLU=_function("MyReLU", "max(x, 0).", "x",
                             _lines("y = torch.where(x > 0, x, torch.zeros_like(x))",
                                    "ctx.save_for_backward(y)", "return y"),
                             _lines("(y,) = ctx.saved_tensors",
                                    "return torch.where(y > 0, grad, torch.zeros_like(grad))")),
            MyExp=_function("MyExp", "exp(x).", "x", LOG_FORWARD.replace("torch.log", "torch.exp"),
                            _lines("(x,) = ctx.saved_tensors", "return grad * torch.exp(x)")),
            MyMul=_function("MyMul", "a * b.", "a, b", MUL_FORWARD,
                            _lines("a, b = ctx.saved_tensors",
                                   "out = []",
                                   "for g, shape in ((grad * b, a.shape), (grad * a, b.shape)):",
                                   "    while g.dim() > len(shape):",
                                   "        g = g.sum(dim=0)",
                                   "    for d, n in enumerate(shape):",
                                   "        if n == 1 and g.shape[d] != 1:",
                                   "            g = g.sum(dim=d, keepdim=True)",
                                   "    out.append(g)",
                                   "return tuple(out)")),
        ),
    ],
    "reductions": [
        # Sum and Mean through reshape to the kept shape and ones * grad; transpose by permute;
        # reshape by contiguous().view()
        _reductions(
            MySum=_function("MySum", "x.sum.", "x, dim=None, keepdim=False", SUM_FORWARD,
                            _lines("kept = [1 if d in ctx.dims else n for d, n in enumerate(ctx.x_shape)]",
                                   "ones = torch.ones(ctx.x_shape, dtype=grad.dtype)",
                                   "return ones * grad.reshape(kept), None, None")),
            MyTranspose=_function("MyTranspose", "x.transpose.", "x, dim0, dim1", TRANSPOSE_FORWARD,
                                  _lines("order = list(range(grad.dim()))",
                                         "d0, d1 = (d % grad.dim() for d in ctx.swapped)",
                                         "order[d0], order[d1] = order[d1], order[d0]",
                                         "return grad.permute(*order), None, None")),
            MyReshape=_function("MyReshape", "x.reshape.", "x, shape", RESHAPE_FORWARD,
                                _lines("return grad.contiguous().view(ctx.x_shape), None")),
        ),
    ],
    "matmul": [
        _matmul("return (sum_to_shape(torch.matmul(grad, b.mT), a.shape),",
                "        sum_to_shape(torch.matmul(a.mT, grad), b.shape))"),
    ],
    "log_softmax": [
        # saves the input and recomputes a stable softmax; the loss as a sum of -one_hot/N weights
        _function("MyLogSoftmax", "log softmax(x).", "x, dim",
                  _lines("ctx.save_for_backward(x)", "ctx.dim = dim",
                         "m = x.max(dim=dim, keepdim=True).values",
                         "return x - m - torch.log(torch.exp(x - m).sum(dim=dim, keepdim=True))"),
                  _lines("(x,) = ctx.saved_tensors",
                         "e = torch.exp(x - x.max(dim=ctx.dim, keepdim=True).values)",
                         "softmax = e / e.sum(dim=ctx.dim, keepdim=True)",
                         "return grad - softmax * grad.sum(dim=ctx.dim, keepdim=True), None"))
        + "def my_cross_entropy(logits, target):\n"
          "    n, c = logits.shape\n"
          "    weights = (torch.arange(c) == target.reshape(n, 1)).to(logits.dtype) / -n\n"
          "    return MySum.apply(MyMul.apply(MyLogSoftmax.apply(logits, -1), weights))\n",
    ],
    "mlp": [
        "def linear(x, W, b):\n"
        "    return MyAdd.apply(MyMatMul.apply(x, MyTranspose.apply(W, -1, -2)), b)\n\n\n"
        "def mlp_logits(params, x):\n"
        "    return linear(MyReLU.apply(linear(x, params[0], params[1])), params[2], params[3])\n\n\n"
        "def train_step(params, x, y, lr):\n"
        "    for p in params:\n"
        "        p.grad = None\n"
        "    loss = my_cross_entropy(mlp_logits(params, x), y)\n"
        "    my_backward(loss)\n"
        "    with torch.no_grad():\n"
        "        for p in params:\n"
        "            p.sub_(lr * p.grad)\n"
        "    return float(loss)\n",
    ],
}

DESCRIPTION = (
    "MyMul's backward forgets to sum the gradients of broadcast inputs; my_cross_entropy sums over "
    "the batch instead of taking the mean."
)

WRONG_ANSWERS = {
    "elementwise": MISTAKES["elementwise"][0]["code"],
    "log_softmax": MISTAKES["log_softmax"][4]["code"],
}
