"""Wrong answers to 05_leaves_hooks, for the project's tests (never released: see nbgrader_config.py).

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
_RETAIN = "def grads_by_retain(named, loss):\n"
_HOOKS = ("def grads_by_hooks(named, loss):\n"
          "    grads, handles = {}, []\n"
          "    for name, t in named.items():\n")
_BACKWARD_AND_REMOVE = ("    loss.backward()\n"
                        "    for handle in handles:\n"
                        "        handle.remove()\n"
                        "    return grads\n")
_NORM_CLIP = ("def make_norm_clip_hook(max_norm):\n"
              "    def hook(grad):\n"
              "        norm = grad.norm().item()\n"
              "        return grad * (max_norm / norm) if norm > max_norm else grad\n"
              "    return hook\n")
_CLIP = ("def make_clip_hook(c):\n"
         "    def hook(grad):\n"
         "        return torch.clamp(grad, -c, c)\n"
         "    return hook\n")
_FRESH = "    xs = x.detach().requires_grad_(True)\n"


def _clip(body: str) -> str:
    """The clip_hooks cell: make_clip_hook's hook body replaced, make_norm_clip_hook right."""
    return "def make_clip_hook(c):\n    def hook(grad):\n" + body + "    return hook\n\n\n" + _NORM_CLIP


def _norm(body: str) -> str:
    """The clip_hooks cell: make_clip_hook right, make_norm_clip_hook's hook body replaced."""
    return (_CLIP + "\n\ndef make_norm_clip_hook(max_norm):\n    def hook(grad):\n"
            + body + "    return hook\n")


def _saver(stored: str) -> str:
    """grads_by_hooks whose hook stores `stored`, with hooks removed."""
    return (_HOOKS + "        def save(grad, name=name):\n"
            f"            grads[name] = {stored}\n"
            "        handles.append(t.register_hook(save))\n" + _BACKWARD_AND_REMOVE)


MISTAKES = {
    "grads_by_retain": [
        {"kind": "mistake", "why": "asks retain_grad() after backward: the gradients are already dropped",
         "message": "call retain_grad() BEFORE loss.backward()",
         "code": _RETAIN + "    loss.backward()\n"
                 "    for t in named.values():\n"
                 "        t.retain_grad()\n"
                 "    return {name: t.grad for name, t in named.items()}\n"},
        {"kind": "shortcut", "why": "lets autograd.grad return the intermediate gradients",
         "message": "autograd_lab.autograd.grad is switched off",
         "code": _RETAIN + "    grads = torch.autograd.grad(loss, list(named.values()))\n"
                 "    return dict(zip(named, grads))\n"},
        {"kind": "structure", "why": "fills the non-leaves' .grad with backward(inputs=...), not retain_grad",
         "message": "keep the gradients with t.retain_grad()",
         "code": _RETAIN + "    loss.backward(inputs=list(named.values()))\n"
                 "    return {name: t.grad for name, t in named.items()}\n"},
        {"kind": "structure", "why": "runs one backward per tensor (retain_graph=True): the gradients add up",
         "message": "ONE loss.backward() fills all their .grad",
         "code": _RETAIN + "    out = {}\n"
                 "    for name, t in named.items():\n"
                 "        t.retain_grad()\n"
                 "        loss.backward(retain_graph=True)\n"
                 "        out[name] = t.grad\n"
                 "    return out\n"},
        {"kind": "type", "why": "returns the gradients as NumPy arrays",
         "message": "expected an autograd_lab Tensor",
         "code": _RETAIN + "    for t in named.values():\n"
                 "        t.retain_grad()\n"
                 "    loss.backward()\n"
                 "    return {name: t.grad.numpy() for name, t in named.items()}\n"},
    ],
    "grads_by_hooks": [
        {"kind": "mistake", "why": "a lambda in a loop reads the loop variable late: all under one name",
         "message": "Bind it now: def save(grad, name=name)",
         "code": _HOOKS
                 + "        handles.append(t.register_hook(\n"
                   "            lambda grad: grads.__setitem__(name, grad.clone())))\n"
                 + _BACKWARD_AND_REMOVE},
        {"kind": "structure", "why": "never removes its hooks",
         "message": "call handle.remove() on each before returning",
         "code": "def grads_by_hooks(named, loss):\n"
                 "    grads = {}\n"
                 "    for name, t in named.items():\n"
                 "        def save(grad, name=name):\n"
                 "            grads[name] = grad.clone()\n"
                 "        t.register_hook(save)\n"
                 "    loss.backward()\n"
                 "    return grads\n"},
        {"kind": "structure", "why": "stores the gradient it is handed, not a copy",
         "message": "store a copy, grad.clone()", "code": _saver("grad")},
        {"kind": "structure", "why": "stores grad.detach(), a view of the same memory",
         "message": "a view of the same memory", "code": _saver("grad.detach()")},
        {"kind": "shortcut", "why": "uses retain_grad, the other exercise's method",
         "message": "autograd_lab.Tensor.retain_grad is switched off",
         "code": "def grads_by_hooks(named, loss):\n"
                 "    for t in named.values():\n"
                 "        t.retain_grad()\n"
                 "    loss.backward()\n"
                 "    return {name: t.grad.clone() for name, t in named.items()}\n"},
        {"kind": "shortcut", "why": "uses backward(inputs=...) and reads .grad: no hook at all",
         "message": "register one hook per tensor",
         "code": "def grads_by_hooks(named, loss):\n"
                 "    loss.backward(inputs=list(named.values()))\n"
                 "    return {name: t.grad.clone() for name, t in named.items()}\n"},
    ],
    "clip_hooks": [
        {"kind": "mistake", "why": "make_clip_hook's hook clips the gradient but does not return it",
         "message": "the hook must RETURN the clipped gradient",
         "code": _clip("        torch.clamp(grad, -c, c)\n")},
        {"kind": "structure", "why": "make_clip_hook's hook clips its argument in place (clamp_)",
         "message": "must not change its argument in place",
         "code": _clip("        return grad.clamp_(-c, c)\n")},
        {"kind": "mistake", "why": "make_clip_hook clips from above only (clamp(max=c))",
         "message": "that clips from above only",
         "code": _clip("        return torch.clamp(grad, max=c)\n")},
        {"kind": "type", "why": "make_clip_hook's hook returns a NumPy array (np.clip)",
         "message": "expected an autograd_lab Tensor",
         "code": _clip("        return np.clip(grad.numpy(), -c, c)\n")},
        {"kind": "shortcut", "why": "make_norm_clip_hook calls clip_grad_norm_ on a stand-in parameter",
         "message": "autograd_lab.nn.utils.clip_grad_norm_ is switched off",
         "code": _norm("        p = torch.zeros_like(grad, requires_grad=True)\n"
                       "        p.grad = grad.clone()\n"
                       "        torch.nn.utils.clip_grad_norm_([p], max_norm)\n"
                       "        return p.grad\n")},
        {"kind": "mistake", "why": "make_norm_clip_hook scales every gradient to max_norm, short ones too",
         "message": "passes unchanged",
         "code": _norm("        return grad * (max_norm / grad.norm())\n")},
        {"kind": "mistake", "why": "make_norm_clip_hook clips each row's norm, not the norm of all elements",
         "message": "the norm is over ALL elements",
         "code": _norm("        norms = (grad * grad).sum(dim=-1, keepdim=True).sqrt()\n"
                       "        return grad * (max_norm / norms).clamp(max=1.0)\n")},
        {"kind": "edge", "why": "make_norm_clip_hook divides by the norm even when it is 0",
         "message": "a zero gradient has norm 0",
         "code": _norm("        return grad * min(1.0, max_norm / grad.norm().item())\n")},
        {"kind": "structure", "why": "make_norm_clip_hook scales its argument in place (mul_)",
         "message": "must not change its argument in place",
         "code": _norm("        norm = grad.norm().item()\n"
                       "        return grad.mul_(max_norm / norm) if norm > max_norm else grad\n")},
    ],
    "second_derivative": [
        {"kind": "shortcut", "why": "takes the diagonal of the library's Hessian of f(x).sum()",
         "message": "autograd_lab.autograd.functional.hessian is switched off",
         "code": "def second_derivative(f, x):\n"
                 "    H = torch.autograd.functional.hessian(lambda t: f(t).sum(), x.detach())\n"
                 "    n = x.numel()\n"
                 "    return H.reshape(n, n).diagonal().reshape(x.shape).detach()\n"},
        {"kind": "shortcut", "why": "asks the library's hvp for H @ ones, the diagonal of an elementwise f",
         "message": "autograd_lab.autograd.functional.hvp is switched off",
         "code": "def second_derivative(f, x):\n"
                 "    ones = torch.ones_like(x)\n"
                 "    _, hv = torch.autograd.functional.hvp(lambda t: f(t).sum(), x.detach(), ones)\n"
                 "    return hv.detach()\n"},
        {"kind": "mistake", "why": "takes the first derivative without create_graph=True",
         "message": "without create_graph it has no graph to differentiate",
         "code": "def second_derivative(f, x):\n" + _FRESH +
                 "    (first,) = torch.autograd.grad(f(xs).sum(), xs)\n"
                 "    (second,) = torch.autograd.grad(first.sum(), xs)\n"
                 "    return second.detach()\n"},
        {"kind": "mistake", "why": "differentiates f(x).sum() twice over: returns the first derivative",
         "message": "that is the first derivative",
         "code": "def second_derivative(f, x):\n" + _FRESH +
                 "    y = f(xs).sum()\n"
                 "    torch.autograd.grad(y, xs, create_graph=True)\n"
                 "    (second,) = torch.autograd.grad(y, xs)\n"
                 "    return second.detach()\n"},
        {"kind": "structure", "why": "a central finite difference instead of autograd",
         "message": "that is a finite difference",
         "code": "def second_derivative(f, x):\n"
                 "    h = 1e-3\n"
                 "    x = x.detach()\n"
                 "    return ((f(x + h) - 2 * f(x) + f(x - h)) / (h * h)).detach()\n"},
        {"kind": "structure", "why": "makes the caller's x require grad instead of a fresh leaf",
         "message": "do not change the caller's x",
         "code": "def second_derivative(f, x):\n"
                 "    x.requires_grad_(True)\n"
                 "    (first,) = torch.autograd.grad(f(x).sum(), x, create_graph=True)\n"
                 "    (second,) = torch.autograd.grad(first.sum(), x)\n"
                 "    return second\n"},
        {"kind": "structure", "why": "returns the second derivative with its graph (create_graph twice)",
         "message": "return a plain value",
         "code": "def second_derivative(f, x):\n" + _FRESH +
                 "    (first,) = torch.autograd.grad(f(xs).sum(), xs, create_graph=True)\n"
                 "    (second,) = torch.autograd.grad(first.sum(), xs, create_graph=True)\n"
                 "    return second\n"},
    ],
    "hvp": [
        {"kind": "shortcut", "why": "calls the library's functional.hvp",
         "message": "autograd_lab.autograd.functional.hvp is switched off",
         "code": "def hvp(f, x, v):\n"
                 "    return torch.autograd.functional.hvp(f, x.detach(), v)[1].detach()\n"},
        {"kind": "shortcut", "why": "forward over reverse with the library's functional.jvp (notebook 09)",
         "message": "autograd_lab.autograd.functional.jvp is switched off",
         "code": "def hvp(f, x, v):\n"
                 "    def gradient(t):\n"
                 "        return torch.autograd.grad(f(t), t, create_graph=True)[0]\n"
                 "    return torch.autograd.functional.jvp(gradient, x.detach(), v)[1]\n"},
        {"kind": "shortcut", "why": "builds the library's Hessian, then multiplies",
         "message": "autograd_lab.autograd.functional.hessian is switched off",
         "code": "def hvp(f, x, v):\n"
                 "    H = torch.autograd.functional.hessian(f, x.detach())\n"
                 "    n = x.numel()\n"
                 "    return (H.reshape(n, n) @ v.reshape(n)).reshape(x.shape).detach()\n"},
        {"kind": "structure", "why": "builds H row by row (one backward per row), then multiplies",
         "message": "that builds H row by row",
         "code": "def hvp(f, x, v):\n" + _FRESH +
                 "    (g,) = torch.autograd.grad(f(xs), xs, create_graph=True)\n"
                 "    g = g.reshape(-1)\n"
                 "    rows = [torch.autograd.grad(g[i], xs, retain_graph=True)[0].reshape(-1)\n"
                 "            for i in range(g.numel())]\n"
                 "    return (torch.stack(rows) @ v.reshape(-1)).reshape(x.shape).detach()\n"},
        {"kind": "structure", "why": "a finite difference of gradients, not the gradient differentiated",
         "message": "that is a finite difference of gradients",
         "code": "def hvp(f, x, v):\n"
                 "    h = 1e-4\n"
                 "    def gradient(at):\n"
                 "        at = at.detach().requires_grad_(True)\n"
                 "        return torch.autograd.grad(f(at), at)[0]\n"
                 "    return ((gradient(x + h * v) - gradient(x - h * v)) / (2 * h)).detach()\n"},
        {"kind": "mistake", "why": "returns the gradient times v, elementwise: one derivative short",
         "message": "that is the gradient times v",
         "code": "def hvp(f, x, v):\n" + _FRESH +
                 "    (g,) = torch.autograd.grad(f(xs), xs)\n"
                 "    return (g * v).detach()\n"},
        {"kind": "mistake", "why": "forgets v: the gradient of g.sum() is H @ ones",
         "message": "that is H @ [1, 1]",
         "code": "def hvp(f, x, v):\n" + _FRESH +
                 "    (g,) = torch.autograd.grad(f(xs), xs, create_graph=True)\n"
                 "    (hv,) = torch.autograd.grad(g.sum(), xs)\n"
                 "    return hv.detach()\n"},
        {"kind": "structure", "why": "returns H·v with its graph attached",
         "message": "return a plain value, without graph",
         "code": "def hvp(f, x, v):\n" + _FRESH +
                 "    (g,) = torch.autograd.grad(f(xs), xs, create_graph=True)\n"
                 "    (hv,) = torch.autograd.grad((g * v).sum(), xs, create_graph=True)\n"
                 "    return hv\n"},
    ],
}

ALTERNATIVES = {
    "grads_by_retain": [
        _RETAIN + "    for t in named.values():\n"
        "        t.retain_grad()\n"
        "    torch.autograd.backward(loss)\n"
        "    out = {}\n"
        "    for name in named:\n"
        "        out[name] = named[name].grad.clone()\n"
        "    return out\n",
    ],
    "grads_by_hooks": [
        "def grads_by_hooks(named, loss):\n"
        "    grads = {}\n"
        "    def saver(name):\n"
        "        return lambda grad: grads.update({name: grad.detach().clone()})\n"
        "    handles = [t.register_hook(saver(name)) for name, t in named.items()]\n"
        "    try:\n"
        "        loss.backward()\n"
        "    finally:\n"
        "        for h in handles:\n"
        "            h.remove()\n"
        "    return grads\n",
    ],
    "clip_hooks": [
        "def make_clip_hook(c):\n"
        "    return lambda grad: grad.clamp(min=-c, max=c)\n\n\n"
        "def make_norm_clip_hook(max_norm):\n"
        "    def hook(grad):\n"
        "        norm = grad.norm()\n"
        "        scale = (max_norm / (norm + 1e-6)).clamp(max=1.0)\n"
        "        return grad * scale\n"
        "    return hook\n",
    ],
    "second_derivative": [
        "def second_derivative(f, x):\n" + _FRESH +
        "    f(xs).sum().backward(create_graph=True)\n"
        "    first = xs.grad\n"
        "    xs.grad = None\n"
        "    first.sum().backward()\n"
        "    return xs.grad.detach()\n",
        "def second_derivative(f, x):\n" + _FRESH +
        "    y = f(xs)\n"
        "    (first,) = torch.autograd.grad(y, xs, grad_outputs=torch.ones_like(y), create_graph=True)\n"
        "    (second,) = torch.autograd.grad(first, xs, grad_outputs=torch.ones_like(first))\n"
        "    return second\n",
    ],
    "hvp": [
        "def hvp(f, x, v):\n" + _FRESH +
        "    (g,) = torch.autograd.grad(f(xs), xs, create_graph=True)\n"
        "    (hv,) = torch.autograd.grad(g, xs, grad_outputs=v)\n"
        "    return hv\n",
        # the double-vjp trick: the gradient of u -> u^T (dg/dx) at v, three passes
        "def hvp(f, x, v):\n" + _FRESH +
        "    (g,) = torch.autograd.grad(f(xs), xs, create_graph=True)\n"
        "    u = torch.zeros_like(g, requires_grad=True)\n"
        "    (uh,) = torch.autograd.grad(g, xs, grad_outputs=u, create_graph=True)\n"
        "    (hv,) = torch.autograd.grad(uh, u, grad_outputs=v)\n"
        "    return hv.detach()\n",
    ],
}

WRONG_ANSWERS = {
    "grads_by_hooks": MISTAKES["grads_by_hooks"][0]["code"],
    "clip_hooks": MISTAKES["clip_hooks"][0]["code"],
}
DESCRIPTION = (f"grads_by_hooks: {MISTAKES['grads_by_hooks'][0]['why']}; "
               f"clip_hooks: {MISTAKES['clip_hooks'][0]['why']}.")
