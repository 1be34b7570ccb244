"""Wrong answers to 09_forward_mode, for the project's tests (never released: see nbgrader_config.py).

MISTAKES (per exercise: answers a learner really writes, each of a kind, with the words its failing
test must say), ALTERNATIVES (correct answers written another way) and WRONG_ANSWERS (one typical
learner), in the format of solutions/01_tensors/wrong_answers.py; see docs/exercise-authoring.md.
"""

# ------------------------------------------------------------------------------------ jacobian_by_rows


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


# ---------------------------------------------------------------------------------------------- Dual
_RULES = {
    "mul": "        b = Dual.lift(other)\n"
           "        return Dual(self.value * b.value, self.tangent * b.value + self.value * b.tangent)\n",
    "truediv": "        b = Dual.lift(other)\n"
               "        return Dual(self.value / b.value,\n"
               "                    (self.tangent * b.value - self.value * b.tangent) / b.value ** 2)\n",
    "pow": "        return Dual(self.value ** p, p * self.value ** (p - 1) * self.tangent)\n",
    "matmul": "        b = Dual.lift(other)\n"
              "        return Dual(self.value @ b.value, self.tangent @ b.value + self.value @ b.tangent)\n",
    "sin": "        return Dual(self.value.sin(), self.value.cos() * self.tangent)\n",
    "cos": "        return Dual(self.value.cos(), -self.value.sin() * self.tangent)\n",
    "exp": "        return Dual(self.value.exp(), self.value.exp() * self.tangent)\n",
    "log": "        return Dual(self.value.log(), self.tangent / self.value)\n",
    "tanh": "        t = self.value.tanh()\n"
            "        return Dual(t, (1 - t ** 2) * self.tangent)\n",
}
_SIGNATURES = {"mul": "__mul__(self, other)", "truediv": "__truediv__(self, other)",
               "pow": "__pow__(self, p)", "matmul": "__matmul__(self, other)", "sin": "sin(self)",
               "cos": "cos(self)", "exp": "exp(self)", "log": "log(self)", "tanh": "tanh(self)"}
_GIVEN = '''class Dual:
    def __init__(self, value, tangent):
        self.value, self.tangent = value, tangent

    @staticmethod
    def lift(c):
        if isinstance(c, Dual):
            return c
        return Dual(c, torch.zeros_like(c) if isinstance(c, torch.Tensor) else 0.0)

    def __repr__(self):
        return f"Dual(value={self.value}, tangent={self.tangent})"

    def __add__(self, other):
        other = Dual.lift(other)
        return Dual(self.value + other.value, self.tangent + other.tangent)

    def __neg__(self):
        return Dual(-self.value, -self.tangent)

    def __sub__(self, other):
        return self + (-Dual.lift(other))

    def sum(self, *args, **kwargs):
        return Dual(self.value.sum(*args, **kwargs), self.tangent.sum(*args, **kwargs))

    def __radd__(self, other):
        return self + other

    def __rsub__(self, other):
        return Dual.lift(other) - self

    def __rmul__(self, other):
        return self * other

    def __rtruediv__(self, other):
        return Dual.lift(other) / self

    def __rmatmul__(self, other):
        return Dual.lift(other) @ self
'''


def _dual(**changed: str) -> str:
    """The solution of Dual with the bodies of some rules changed (keys of _RULES)."""
    rules = {**_RULES, **changed}
    return _GIVEN + "".join(f"\n    def {_SIGNATURES[k]}:\n{body}" for k, body in rules.items())


# ----------------------------------------------------------------------------------------------- jvp
def _jvp(*, check: bool = True, seed: str = "Dual(x.detach(), v.detach())", constant: bool = True,
         ret: str = "out.value.detach(), out.tangent.detach()") -> str:
    """The solution of jvp with one of its parts changed."""
    return ("def jvp(f, x, v):\n"
            + ("    if tuple(v.shape) != tuple(x.shape):\n"
               "        raise RuntimeError(f'v has invalid size: should be {x.shape} but got {v.shape}.')\n"
               if check else "")
            + f"    out = f({seed})\n"
            + ("    if not isinstance(out, Dual):\n        return out, torch.zeros_like(out)\n"
               if constant else "")
            + f"    return {ret}\n")


# ------------------------------------------------------------------------------------ jacobian_by_columns
def _columns(*, stack: str = "torch.stack(cols, dim=1)", empty: bool = True, unit: str | None = None) -> str:
    """The solution of jacobian_by_columns with one of its lines changed."""
    unit = unit or "e = torch.zeros(x.numel(), dtype=x.dtype)\n        e[j] = 1.0"
    return ("def jacobian_by_columns(f, x):\n"
            "    cols, y = [], None\n"
            "    for j in range(x.numel()):\n"
            f"        {unit}\n"
            "        y, c = jvp(f, x, e.reshape(x.shape))\n"
            "        cols.append(c.reshape(-1))\n"
            + ("    if y is None:\n        y = f(x.detach())\n"
               "    if not cols:\n"
               "        return torch.zeros(tuple(y.shape) + tuple(x.shape), dtype=x.dtype)\n"
               if empty else "")
            + f"    return {stack}.reshape(tuple(y.shape) + tuple(x.shape))\n")


MISTAKES = {
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
    "Dual": [
        {"kind": "mistake", "why": "multiplies the tangents: (ab)' = a'b'",
         "message": "the product of the tangents",
         "code": _dual(mul="        b = Dual.lift(other)\n"
                           "        return Dual(self.value * b.value, self.tangent * b.tangent)\n")},
        {"kind": "mistake", "why": "writes the quotient rule with a plus: (a'b + ab') / b²",
         "message": "the quotient rule subtracts",
         "code": _dual(truediv="        b = Dual.lift(other)\n"
                               "        return Dual(self.value / b.value,\n"
                               "                    (self.tangent * b.value + self.value * b.tangent)\n"
                               "                    / b.value ** 2)\n")},
        {"kind": "mistake", "why": "forgets the chain rule: sin gives cos(a) without the factor a'",
         "message": "multiply it by the tangent",
         "code": _dual(sin="        return Dual(self.value.sin(), self.value.cos())\n")},
        {"kind": "mistake", "why": "the power rule without the tangent: p a^(p-1)",
         "message": "multiply by the tangent a'",
         "code": _dual(pow="        return Dual(self.value ** p, p * self.value ** (p - 1))\n")},
        {"kind": "mistake", "why": "tanh' written as 1 - tanh (not squared)",
         "message": "1 - tanh² (squared)",
         "code": _dual(tanh="        t = self.value.tanh()\n"
                            "        return Dual(t, (1 - t) * self.tangent)\n")},
        {"kind": "mistake", "why": "the rule for @ keeps only A'B: W @ x (W a constant) gets tangent 0",
         "message": "add A B', the second term",
         "code": _dual(matmul="        b = Dual.lift(other)\n"
                              "        return Dual(self.value @ b.value, self.tangent @ b.value)\n")},
        {"kind": "shortcut", "why": "computes the derivative of sin with autograd instead of the rule",
         "message": "is switched off while these tests run",
         "code": _dual(sin="        a = self.value.detach().requires_grad_()\n"
                           "        y = a.sin()\n"
                           "        (d,) = torch.autograd.grad(y, a, self.tangent)\n"
                           "        return Dual(y.detach(), d)\n")},
        {"kind": "shortcut", "why": "finite differences along the tangent for exp and log",
         "message": "no finite differences",
         "code": _dual(exp="        h = 1e-6\n"
                           "        up = (self.value + h * self.tangent).exp()\n"
                           "        down = (self.value - h * self.tangent).exp()\n"
                           "        return Dual(self.value.exp(), (up - down) / (2 * h))\n",
                       log="        h = 1e-6\n"
                           "        up = (self.value + h * self.tangent).log()\n"
                           "        down = (self.value - h * self.tangent).log()\n"
                           "        return Dual(self.value.log(), (up - down) / (2 * h))\n")},
        {"kind": "structure", "why": "changes self in place in __mul__ and returns it",
         "message": "do not change self or other",
         "code": _dual(mul="        b = Dual.lift(other)\n"
                           "        self.tangent = self.tangent * b.value + self.value * b.tangent\n"
                           "        self.value = self.value * b.value\n"
                           "        return self\n")},
        {"kind": "edge", "why": "takes other.value without lifting: 3 * x fails on a number",
         "message": "a constant is a Dual with tangent 0",
         "code": _dual(mul="        return Dual(self.value * other.value,\n"
                           "                    self.tangent * other.value + self.value * other.tangent)\n")},
        {"kind": "type", "why": "computes with NumPy: the value and tangent become arrays",
         "message": "expected an autograd_lab Tensor",
         "code": "import numpy as np\n\n\n" + _dual(
             sin="        v = self.value.numpy()\n"
                 "        return Dual(np.sin(v), np.cos(v) * self.tangent.numpy())\n",
             cos="        v = self.value.numpy()\n"
                 "        return Dual(np.cos(v), -np.sin(v) * self.tangent.numpy())\n",
             mul="        b = Dual.lift(other)\n"
                 "        av, at = np.asarray(self.value), np.asarray(self.tangent)\n"
                 "        bv, bt = np.asarray(b.value), np.asarray(b.tangent)\n"
                 "        return Dual(av * bv, at * bv + av * bt)\n")},
    ],
    "jvp": [
        {"kind": "shortcut", "why": "calls the library's functional.jvp",
         "message": "autograd_lab.autograd.functional.jvp is switched off",
         "code": "def jvp(f, x, v):\n"
                 "    return torch.autograd.functional.jvp(f, x, v)\n"},
        {"kind": "shortcut", "why": "the double-backward trick with autograd.grad, no dual numbers",
         "message": "autograd_lab.autograd.grad is switched off",
         "code": "def jvp(f, x, v):\n"
                 "    xs = x.detach().requires_grad_()\n"
                 "    y = f(xs)\n"
                 "    u = torch.zeros_like(y, requires_grad=True)\n"
                 "    (g,) = torch.autograd.grad(y, xs, u, create_graph=True)\n"
                 "    (jv,) = torch.autograd.grad(g, u, v)\n"
                 "    return y.detach(), jv\n"},
        {"kind": "shortcut", "why": "central finite differences along v",
         "message": "no finite differences",
         "code": "def jvp(f, x, v):\n"
                 "    h = 1e-6\n"
                 "    x = x.detach()\n"
                 "    return f(x), (f(x + h * v) - f(x - h * v)) / (2 * h)\n"},
        {"kind": "mistake", "why": "seeds the tangent with ones instead of v",
         "message": "the tangent seeded with ones",
         "code": _jvp(seed="Dual(x.detach(), torch.ones_like(x))")},
        {"kind": "edge", "why": "assumes f always returns a Dual (an f that ignores x breaks it)",
         "message": "an f that does not depend on x returns a plain tensor",
         "code": _jvp(constant=False)},
        {"kind": "edge", "why": "does not check v's shape: a v of another shape broadcasts silently",
         "message": "v has invalid size",
         "code": _jvp(check=False)},
        {"kind": "structure", "why": "runs f on x itself: with x requiring grad the results carry a graph",
         "message": "forward mode needs no graph",
         "code": _jvp(seed="Dual(x, v)", ret="out.value, out.tangent")},
        {"kind": "type", "why": "returns the Dual itself instead of the pair",
         "message": "return the pair (f(x), J v)",
         "code": _jvp(ret="out")},
    ],
    "jacobian_by_columns": [
        {"kind": "shortcut", "why": "calls the library's functional.jacobian",
         "message": "autograd_lab.autograd.functional.jacobian is switched off",
         "code": "def jacobian_by_columns(f, x):\n"
                 "    return torch.autograd.functional.jacobian(f, x)\n"},
        {"kind": "shortcut", "why": "reuses jacobian_by_rows (reverse mode) from exercise 1",
         "message": "forward passes only",
         "code": "def jacobian_by_columns(f, x):\n"
                 "    return jacobian_by_rows(f, x)\n"},
        {"kind": "mistake", "why": "stacks the columns along dim 0: the transpose, laid out as rows",
         "message": "the columns laid out as rows",
         "code": _columns(stack="torch.stack(cols)")},
        {"kind": "mistake", "why": "one jvp with v = ones, taken for the whole Jacobian",
         "message": "one forward pass per element of x",
         "code": "def jacobian_by_columns(f, x):\n"
                 "    return jvp(f, x, torch.ones_like(x))[1]\n"},
        {"kind": "edge", "why": "no case for an x without elements (no jvp, y never set)",
         "message": "no column at all",
         "code": _columns(empty=False)},
        {"kind": "edge", "why": "stacks the columns but forgets the shape y.shape + x.shape",
         "message": "J has shape y.shape + x.shape",
         "code": _columns().replace(".reshape(tuple(y.shape) + tuple(x.shape))\n", "\n")},
    ],
}

ALTERNATIVES = {
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
    "Dual": [
        # other spellings of the rules: u/v as u * v**-1, cos through sin, tanh' as 1/cosh²
        _dual(truediv="        b = Dual.lift(other)\n"
                      "        return self * b ** -1\n",
              cos="        return Dual(self.value.cos(), self.value.sin() * self.tangent * -1)\n",
              tanh="        c = self.value.cosh()\n"
                   "        return Dual(self.value.tanh(), self.tangent / (c * c))\n",
              log="        return Dual(torch.log(self.value), self.tangent * self.value.reciprocal())\n",
              exp="        y = torch.exp(self.value)\n"
                  "        return Dual(y, self.tangent * y)\n"),
    ],
    "jvp": [
        # the constant case through Dual.lift, shapes compared as torch.Size
        "def jvp(f, x, v):\n"
        "    if v.shape != x.shape:\n"
        "        raise RuntimeError(f'v has invalid size: should be {x.shape} but got {v.shape}.')\n"
        "    with torch.no_grad():\n"
        "        out = Dual.lift(f(Dual(x, v)))\n"
        "    return out.value, out.tangent\n",
    ],
    "jacobian_by_columns": [
        # rows of the identity as the directions, J filled in column by column
        "def jacobian_by_columns(f, x):\n"
        "    n = x.numel()\n"
        "    eye = torch.eye(n, dtype=x.dtype)\n"
        "    y = f(x.detach())\n"
        "    J = torch.zeros(y.numel(), n, dtype=x.dtype)\n"
        "    for j in range(n):\n"
        "        _, col = jvp(f, x, eye[j].reshape(x.shape))\n"
        "        J[:, j] = col.reshape(-1)\n"
        "    return J.reshape(tuple(y.shape) + tuple(x.shape))\n",
    ],
}

DESCRIPTION = (
    "Dual's product rule multiplies the tangents (a'b'), so every derivative through a product is wrong "
    "(the other exercises are right)."
)

WRONG_ANSWERS = {"Dual": MISTAKES["Dual"][0]["code"]}
