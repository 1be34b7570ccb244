"""Wrong answers to 02_backward, for the project's tests (never released: see nbgrader_config.py).

MISTAKES (per exercise: answers learners really write, each of which must lose points with its
`message`), ALTERNATIVES (correct answers that must score full) and WRONG_ANSWERS (one learner,
for tests/test_pipeline.py), as docs/exercise-authoring.md describes.
"""

# Lines that several answers share.
_NEURON = ("def neuron_grads(w, b, x, t):\n"
           "    s = w * x + b\n"
           "    z = 1.0 / (1.0 + math.exp(-s))\n")
_SOFTPLUS = ("class Softplus(torch.autograd.Function):\n"
             "    @staticmethod\n"
             "    def forward(ctx, x):\n")
_STABLE_FORWARD = ("        ctx.save_for_backward(x)\n"
                   "        return torch.clamp(x, min=0) + torch.log(1 + torch.exp(-x.abs()))\n")
_BACKWARD = ("\n    @staticmethod\n"
             "    def backward(ctx, grad):\n")
_SIGMOID_BACKWARD = (_BACKWARD + "        (x,) = ctx.saved_tensors\n"
                     "        return grad * torch.sigmoid(x)\n")
_CENTRAL = ("def numerical_grad(f, x, h=1e-6):\n"
            "    base = x.detach().numpy().astype(np.float64)\n"
            "    grad = np.zeros_like(base)\n"
            "    for i in np.ndindex(base.shape):\n"
            "        plus, minus = base.copy(), base.copy()\n"
            "        plus[i] += h\n"
            "        minus[i] -= h\n")
_RETURN = "    return torch.tensor(grad)\n"
_DIFFERENCE = ("        grad[i] = (float(f(torch.tensor(plus))) - float(f(torch.tensor(minus)))) "
               "/ (2 * h)\n")

MISTAKES = {
    "neuron_grads": [
        {"kind": "shortcut", "why": "lets autograd compute the gradients",
         "message": "autograd_lab.Tensor.backward is switched off",
         "code": "def neuron_grads(w, b, x, t):\n"
                 "    wt = torch.tensor(w, dtype=torch.float64, requires_grad=True)\n"
                 "    bt = torch.tensor(b, dtype=torch.float64, requires_grad=True)\n"
                 "    ((torch.sigmoid(wt * x + bt) - t) ** 2).backward()\n"
                 "    return wt.grad.item(), bt.grad.item()\n"},
        {"kind": "shortcut", "why": "differentiates numerically (central differences) instead of by "
                                    "the chain rule",
         "message": "a finite difference cannot",
         "code": "def neuron_grads(w, b, x, t, h=1e-6):\n"
                 "    def loss(w, b):\n"
                 "        return (1.0 / (1.0 + math.exp(-(w * x + b))) - t) ** 2\n"
                 "    return ((loss(w + h, b) - loss(w - h, b)) / (2 * h),\n"
                 "            (loss(w, b + h) - loss(w, b - h)) / (2 * h))\n"},
        {"kind": "mistake", "why": "forgets the sigmoid's derivative (takes dL/dz for dL/ds)",
         "message": "leaves out the sigmoid's derivative",
         "code": _NEURON + "    dL_dz = 2.0 * (z - t)\n"
                           "    return dL_dz * x, dL_dz\n"},
        {"kind": "mistake", "why": "takes the sigmoid's derivative to be z instead of z(1 - z)",
         "message": "dz/ds is z(1 - z), not z",
         "code": _NEURON + "    dL_ds = 2.0 * (z - t) * z\n"
                           "    return dL_ds * x, dL_ds\n"},
        {"kind": "mistake", "why": "drops the factor 2 of the squared error's derivative",
         "message": "the factor 2 is missing",
         "code": _NEURON + "    dL_ds = (z - t) * z * (1.0 - z)\n"
                           "    return dL_ds * x, dL_ds\n"},
        {"kind": "mistake", "why": "differentiates (z - t)² as 2(t - z)",
         "message": "the sign is flipped",
         "code": _NEURON + "    dL_ds = 2.0 * (t - z) * z * (1.0 - z)\n"
                           "    return dL_ds * x, dL_ds\n"},
        {"kind": "type", "why": "computes with tensors (no backward) and returns two tensors",
         "message": "expected a number (int or float)",
         "code": "def neuron_grads(w, b, x, t):\n"
                 "    z = torch.sigmoid(torch.tensor(w * x + b, dtype=torch.float64))\n"
                 "    dL_ds = 2.0 * (z - t) * z * (1.0 - z)\n"
                 "    return dL_ds * x, dL_ds\n"},
        {"kind": "type", "why": "returns a list",
         "message": "return the pair (dL/dw, dL/db) as a tuple",
         "code": _NEURON + "    dL_ds = 2.0 * (z - t) * z * (1.0 - z)\n"
                           "    return [dL_ds * x, dL_ds]\n"},
    ],
    "numerical_grad": [
        {"kind": "shortcut", "why": "runs backward on a copy of x",
         "message": "autograd_lab.Tensor.backward is switched off",
         "code": "def numerical_grad(f, x, h=1e-6):\n"
                 "    xc = x.detach().to(torch.float64).requires_grad_(True)\n"
                 "    f(xc).backward()\n"
                 "    return xc.grad\n"},
        {"kind": "shortcut", "why": "takes gradcheck's numerical Jacobian",
         "message": "autograd_lab.autograd.gradcheck.numerical_jacobian is switched off",
         "code": "from autograd_lab.autograd.gradcheck import numerical_jacobian\n\n\n"
                 "def numerical_grad(f, x, h=1e-6):\n"
                 "    xd = x.detach().to(torch.float64)\n"
                 "    return torch.tensor(numerical_jacobian(f, (xd,), h)[0][0].reshape(xd.shape))\n"},
        {"kind": "mistake", "why": "takes the forward difference (f(x + h) - f(x)) / h",
         "message": "that is the forward difference",
         "code": "def numerical_grad(f, x, h=1e-6):\n"
                 "    base = x.detach().numpy().astype(np.float64)\n"
                 "    grad = np.zeros_like(base)\n"
                 "    f0 = float(f(torch.tensor(base)))\n"
                 "    for i in np.ndindex(base.shape):\n"
                 "        plus = base.copy()\n"
                 "        plus[i] += h\n"
                 "        grad[i] = (float(f(torch.tensor(plus))) - f0) / h\n"
                 "    return torch.tensor(grad)\n"},
        {"kind": "mistake", "why": "divides the central difference by h instead of 2h",
         "message": "divides by 2h, not h",
         "code": _CENTRAL + _DIFFERENCE.replace("(2 * h)", "h") + _RETURN},
        {"kind": "mistake", "why": "uses its own step 1e-6, not the h it is given",
         "message": "not the h you are given",
         "code": (_CENTRAL + _DIFFERENCE).replace("h=1e-6", "h=None").replace("+= h", "+= 1e-6")
                 .replace("-= h", "-= 1e-6").replace("(2 * h)", "2e-6") + _RETURN},
        {"kind": "structure", "why": "perturbs x's own memory (x.detach().numpy() is a view) and puts "
                                     "it back",
         "message": "shares x's memory",
         "code": "def numerical_grad(f, x, h=1e-6):\n"
                 "    a = x.detach().numpy()\n"
                 "    grad = np.zeros(a.shape)\n"
                 "    for i in np.ndindex(a.shape):\n"
                 "        old = a[i]\n"
                 "        a[i] = old + h\n"
                 "        f_plus = float(f(torch.tensor(a, dtype=torch.float64)))\n"
                 "        a[i] = old - h\n"
                 "        f_minus = float(f(torch.tensor(a, dtype=torch.float64)))\n"
                 "        a[i] = old\n"
                 "        grad[i] = (f_plus - f_minus) / (2 * h)\n"
                 "    return torch.tensor(grad)\n"},
        {"kind": "edge", "why": "loops over range(len(x)): only a 1-d x works (a scalar has no len, "
                                "a matrix is perturbed a row at a time)",
         "message": "perturb one element at a time (np.ndindex)",
         "code": (_CENTRAL + _DIFFERENCE).replace("np.ndindex(base.shape)", "range(len(base))")
                 + _RETURN},
        {"kind": "type", "why": "returns a NumPy array",
         "message": "expected an autograd_lab Tensor",
         "code": _CENTRAL + _DIFFERENCE + "    return grad\n"},
        {"kind": "type", "why": "works in x's dtype: float32 for a float32 x",
         "message": "compute and return float64",
         "code": (_CENTRAL + _DIFFERENCE).replace(".astype(np.float64)", ".copy()") + _RETURN},
    ],
    "softplus": [
        {"kind": "mistake", "why": "computes log(1 + exp(x)) as written: it overflows",
         "message": "log(1 + exp(1000)) overflows",
         "code": _SOFTPLUS + "        ctx.save_for_backward(x)\n"
                             "        return torch.log(1 + torch.exp(x))\n" + _SIGMOID_BACKWARD},
        {"kind": "mistake", "why": "max(x, 0) + log(1 + exp(-x)): forgets the absolute value (wrong, "
                                   "and overflowing, for negative x)",
         "message": "the formula needs exp(-|x|)",
         "code": _SOFTPLUS + "        ctx.save_for_backward(x)\n"
                             "        return torch.clamp(x, min=0) + torch.log(1 + torch.exp(-x))\n"
                 + _SIGMOID_BACKWARD},
        {"kind": "shortcut", "why": "calls the library's softplus in forward",
         "message": "autograd_lab.nn.functional.softplus is switched off",
         "code": _SOFTPLUS + "        ctx.save_for_backward(x)\n"
                             "        return torch.nn.functional.softplus(x)\n" + _SIGMOID_BACKWARD},
        {"kind": "shortcut", "why": "computes with NumPy's logaddexp and wraps the result",
         "message": "numpy.logaddexp is switched off",
         "code": _SOFTPLUS + "        ctx.save_for_backward(x)\n"
                             "        return torch.from_numpy(np.logaddexp(0.0, x.numpy()))\n"
                 + _SIGMOID_BACKWARD},
        {"kind": "shortcut", "why": "differentiates with autograd inside backward",
         "message": "autograd_lab.autograd.grad is switched off",
         "code": _SOFTPLUS + _STABLE_FORWARD + _BACKWARD
                 + "        (x,) = ctx.saved_tensors\n"
                   "        with torch.enable_grad():\n"
                   "            xg = x.detach().requires_grad_(True)\n"
                   "            y = torch.clamp(xg, min=0) + torch.log(1 + torch.exp(-xg.abs()))\n"
                   "            return torch.autograd.grad(y, xg, grad)[0]\n"},
        {"kind": "mistake", "why": "backward returns sigmoid(x) without the incoming grad",
         "message": "multiply by the grad that backward receives",
         "code": _SOFTPLUS + _STABLE_FORWARD + _BACKWARD
                 + "        (x,) = ctx.saved_tensors\n"
                   "        return torch.sigmoid(x)\n"},
        {"kind": "edge", "why": "backward writes the sigmoid as exp(x) / (1 + exp(x)): nan for large x",
         "message": "inf / inf = nan",
         "code": _SOFTPLUS + _STABLE_FORWARD + _BACKWARD
                 + "        (x,) = ctx.saved_tensors\n"
                   "        return grad * torch.exp(x) / (1 + torch.exp(x))\n"},
        {"kind": "mistake", "why": "saves the output and takes the sigmoid of it",
         "message": "backward needs sigmoid of the INPUT x",
         "code": _SOFTPLUS + "        y = torch.clamp(x, min=0) + torch.log(1 + torch.exp(-x.abs()))\n"
                             "        ctx.save_for_backward(y)\n"
                             "        return y\n" + _SIGMOID_BACKWARD},
        {"kind": "structure", "why": "keeps x as an attribute of ctx instead of save_for_backward",
         "message": "ctx.save_for_backward",
         "code": _SOFTPLUS + "        ctx.x = x\n"
                             "        return torch.clamp(x, min=0) + torch.log(1 + torch.exp(-x.abs()))\n"
                 + _BACKWARD + "        return grad * torch.sigmoid(ctx.x)\n"},
        {"kind": "type", "why": "builds the result from a Python list: float32 and 1-d, whatever x is",
         "message": "in x's dtype",
         "code": _SOFTPLUS + "        ctx.save_for_backward(x)\n"
                             "        values = [max(v, 0.0) + math.log1p(math.exp(-abs(v))) "
                             "for v in x.reshape(-1).tolist()]\n"
                             "        return torch.tensor(values).reshape(x.shape)\n" + _SIGMOID_BACKWARD},
    ],
}

ALTERNATIVES = {
    "neuron_grads": [
        "def neuron_grads(w, b, x, t):\n"
        "    s = w * x + b\n"
        "    e = math.exp(-abs(s))\n"
        "    z = 1 / (1 + e) if s >= 0 else e / (1 + e)\n"
        "    dz_ds = e / (1 + e) ** 2          # sigma'(s), without cancellation\n"
        "    dL_ds = 2 * (z - t) * dz_ds\n"
        "    return (dL_ds * x, dL_ds)\n",
        "def neuron_grads(w, b, x, t):\n"
        "    z = 1 / (1 + np.exp(-(w * x + b)))   # NumPy floats are floats too\n"
        "    g = 2 * (z - t) * z * (1 - z)\n"
        "    return g * x, g\n",
    ],
    "numerical_grad": [
        "def numerical_grad(f, x, h=1e-6):\n"
        "    base = x.detach().to(torch.float64)\n"
        "    flat = np.zeros(base.numel())\n"
        "    for k in range(base.numel()):\n"
        "        step = np.zeros(base.numel())\n"
        "        step[k] = h\n"
        "        e = torch.tensor(step.reshape(tuple(base.shape)))\n"
        "        flat[k] = (float(f(base + e)) - float(f(base - e))) / (2 * h)\n"
        "    return torch.tensor(flat.reshape(tuple(base.shape)))\n",
    ],
    "softplus": [
        # PyTorch's own softplus: x itself above a threshold of 20
        "class Softplus(torch.autograd.Function):\n"
        "    @staticmethod\n"
        "    def forward(ctx, x):\n"
        "        ctx.save_for_backward(x)\n"
        "        return torch.where(x > 20, x, torch.log1p(torch.exp(x)))\n"
        "\n    @staticmethod\n"
        "    def backward(ctx, grad):\n"
        "        (x,) = ctx.saved_tensors\n"
        "        return torch.where(x > 20, grad, grad * torch.sigmoid(x))\n",
        # the output saved: sigmoid(x) = 1 - exp(-softplus(x))
        "class Softplus(torch.autograd.Function):\n"
        "    @staticmethod\n"
        "    def forward(ctx, x):\n"
        "        y = x.clamp(min=0) + torch.log1p(torch.exp(-x.abs()))\n"
        "        ctx.save_for_backward(y)\n"
        "        return y\n"
        "\n    @staticmethod\n"
        "    def backward(ctx, grad):\n"
        "        (y,) = ctx.saved_tensors\n"
        "        return -grad * torch.expm1(-y)\n",
    ],
}

DESCRIPTION = (
    "neuron_grads forgets the sigmoid's derivative in the chain (dL/ds taken as dL/dz); "
    "Softplus computes log(1 + exp(x)) as written, which overflows for large x, with a right "
    "backward."
)

WRONG_ANSWERS = {
    "neuron_grads": MISTAKES["neuron_grads"][2]["code"],
    "softplus": MISTAKES["softplus"][0]["code"],
}
