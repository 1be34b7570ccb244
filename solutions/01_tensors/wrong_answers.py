"""Wrong answers to 01_tensors, for the project's tests (never released: see nbgrader_config.py).

MISTAKES: per exercise (grade_id of its solution cell), answers a learner really writes: calling
the library's own version (shortcut), a misunderstanding (mistake), right but on an edge case
(edge), right numbers of the wrong type (type), a result made the wrong way (structure). Each
replaces that one cell, every other cell keeps the solution; autograded, it must lose points, and
a failing test of that exercise must say `message` (tests/test_wrong_answers.py).
ALTERNATIVES: correct answers written another way; they must score full marks.
WRONG_ANSWERS: one learner with two of these mistakes (tests/test_pipeline.py: scores in between).
See docs/exercise-authoring.md.
"""

PREDICTED = {
    "images[0]": (3, 32, 32),
    "images[:, 0]": (16, 32, 32),
    "images.permute(0, 2, 3, 1)": (16, 32, 32, 3),
    "images.sum(dim=1)": (16, 32, 32),
    "images.mean(dim=(0, 2, 3), keepdim=True)": (1, 3, 1, 1),
    "sequences.reshape(4, -1)": (4, 80),
    "matrix.T @ matrix": (2, 2),
    "torch.zeros(5, 1, 3) + torch.zeros(4, 1)": (5, 4, 3),
}


def _prediction(expr: str, value: tuple) -> str:
    """The prediction cell, right but for `expr`, predicted as `value`."""
    values = {**PREDICTED, expr: value}
    return "predicted = {\n" + "\n".join(f"    {k!r}: {v!r}," for k, v in values.items()) + "\n}\n"


# Lines that several wrong answers share.
_PADDED = ("def broadcast_shape(a, b):\n"
           "    n = max(len(a), len(b))\n"
           "    a, b = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)\n")
_REFUSED = ("    for x, y in zip(a, b):\n"
            "        if x != y and 1 not in (x, y):\n"
            "            raise ValueError(f'shapes {a} and {b} do not broadcast')\n")
_SHAPES_CHECKED = (
    "    if extra < 0 or any(s != g and s != 1 for s, g in zip(shape, grad.shape[extra:])):\n"
    "        raise ValueError(f'{shape} cannot broadcast to {grad.shape}')\n")

MISTAKES = {
    "predict_shapes": [
        {"kind": "shortcut", "why": "runs the expressions instead of predicting them",
         "message": "a computed value",
         "code": "predicted = {expr: tuple(eval(expr).shape) for expr in PREDICTED}\n".replace(
             "PREDICTED", repr(list(PREDICTED)))},
        {"kind": "mistake", "why": "forgets that keepdim=True keeps the reduced axes",
         "message": "keepdim=True keeps the reduced axes",
         "code": _prediction("images.mean(dim=(0, 2, 3), keepdim=True)", (3,))},
        {"kind": "mistake", "why": "reads permute as 'old axis k goes to position dims[k]'",
         "message": "new axis k is old axis dims[k]",
         "code": _prediction("images.permute(0, 2, 3, 1)", (16, 32, 3, 32))},
        {"kind": "mistake", "why": "aligns broadcast shapes from the left",
         "message": "align from the right",
         "code": _prediction("torch.zeros(5, 1, 3) + torch.zeros(4, 1)", (5, 4, 1))},
        {"kind": "type", "why": "writes the shapes as lists",
         "message": "a list where a tuple is expected",
         "code": "predicted = {\n" + "\n".join(
             f"    {k!r}: {list(v)!r}," for k, v in PREDICTED.items()) + "\n}\n"},
    ],
    "broadcast_shape": [
        {"kind": "shortcut", "why": "calls NumPy's broadcast_shapes, imported by name",
         "message": "numpy.broadcast_shapes is switched off",
         "code": "from numpy import broadcast_shapes\n\n\ndef broadcast_shape(a, b):\n"
                 "    return tuple(broadcast_shapes(a, b))\n"},
        {"kind": "shortcut", "why": "adds two arrays of those shapes and reads the result's shape",
         "message": "work on the two tuples alone",
         "code": "def broadcast_shape(a, b):\n"
                 "    return tuple((np.zeros(a) + np.zeros(b)).shape)\n"},
        {"kind": "edge", "why": "takes max() of the two sizes, wrong when one of them is 0",
         "message": "not max(0, 1)",
         "code": _PADDED + _REFUSED + "    return tuple(max(x, y) for x, y in zip(a, b))\n"},
        {"kind": "mistake", "why": "aligns the shapes from the left (pads on the right)",
         "message": "once aligned from the right",
         "code": "def broadcast_shape(a, b):\n"
                 "    n = max(len(a), len(b))\n"
                 "    pa, pb = tuple(a) + (1,) * (n - len(a)), tuple(b) + (1,) * (n - len(b))\n"
                 "    out = []\n"
                 "    for x, y in zip(pa, pb):\n"
                 "        if x != y and 1 not in (x, y):\n"
                 "            raise ValueError(f'shapes {a} and {b} do not broadcast')\n"
                 "        out.append(y if x == 1 else x)\n"
                 "    return tuple(out)\n"},
        {"kind": "mistake", "why": "never refuses: takes the larger size even when neither is 1",
         "message": "expected ValueError to be raised",
         "code": _PADDED + "    return tuple(y if x == 1 else x if y == 1 else max(x, y) "
                           "for x, y in zip(a, b))\n"},
        {"kind": "type", "why": "returns a list",
         "message": "a list where a tuple is expected",
         "code": _PADDED + _REFUSED + "    return [y if x == 1 else x for x, y in zip(a, b)]\n"},
    ],
    "sum_to_shape": [
        {"kind": "shortcut", "why": "calls the library's Tensor.sum_to_size",
         "message": "autograd_lab.Tensor.sum_to_size is switched off",
         "code": "def sum_to_shape(grad, shape):\n"
                 "    return torch.from_numpy(grad).sum_to_size(shape).numpy()\n"},
        {"kind": "shortcut", "why": "lets autograd do it: backward through a broadcasting add",
         "message": "autograd_lab.Tensor.backward is switched off",
         "code": "def sum_to_shape(grad, shape):\n"
                 "    p = torch.zeros(shape, dtype=torch.float64, requires_grad=True)\n"
                 "    (torch.zeros(grad.shape, dtype=torch.float64) + p).backward(torch.from_numpy(grad))\n"
                 "    return p.grad.numpy().astype(grad.dtype)\n"},
        {"kind": "mistake", "why": "sums the extra leading axes only, not the stretched size-1 ones",
         "message": "axis 1 was stretched from 1 to 3",
         "code": "def sum_to_shape(grad, shape):\n"
                 "    extra = grad.ndim - len(shape)\n"
                 "    return grad.sum(axis=tuple(range(extra))) if extra > 0 else grad\n"},
        {"kind": "mistake", "why": "averages the gradient over the broadcast axes",
         "message": "that is the mean over axis 0",
         "code": "def sum_to_shape(grad, shape):\n"
                 "    extra = grad.ndim - len(shape)\n"
                 "    out = grad.mean(axis=tuple(range(extra)))\n"
                 "    axes = tuple(i for i, s in enumerate(shape) if s == 1 and out.shape[i] != 1)\n"
                 "    return np.asarray(out.mean(axis=axes, keepdims=True))\n"},
        {"kind": "edge", "why": "never checks the shapes: a reshape accepts a same-size wrong layout",
         "message": "though both hold 12 numbers",
         "code": "def sum_to_shape(grad, shape):\n"
                 "    extra = grad.ndim - len(shape)\n"
                 "    out = grad.sum(axis=tuple(range(extra))) if extra > 0 else grad\n"
                 "    axes = tuple(i for i, s in enumerate(shape) if s == 1 and out.shape[i] != 1)\n"
                 "    return np.asarray(out.sum(axis=axes, keepdims=True)).reshape(shape)\n"},
        {"kind": "edge", "why": "sums only the axes where grad is larger than 1, missing size 0",
         "message": "stretched from 1 to 0",
         "code": "def sum_to_shape(grad, shape):\n"
                 "    shape = tuple(shape)\n"
                 "    extra = grad.ndim - len(shape)\n"
                 + _SHAPES_CHECKED
                 + "    out = grad.sum(axis=tuple(range(extra)))\n"
                 "    axes = tuple(i for i, s in enumerate(shape) if s == 1 and out.shape[i] > 1)\n"
                 "    return np.asarray(out.sum(axis=axes, keepdims=True))\n"},
        {"kind": "type", "why": "computes with tensors and returns a Tensor",
         "message": "expected a NumPy array",
         "code": "def sum_to_shape(grad, shape):\n"
                 "    shape = tuple(shape)\n"
                 "    t = torch.from_numpy(grad)\n"
                 "    extra = grad.ndim - len(shape)\n"
                 + _SHAPES_CHECKED
                 + "    if extra:\n"
                 "        t = t.sum(dim=tuple(range(extra)))\n"
                 "    axes = tuple(i for i, s in enumerate(shape) if s == 1 and t.shape[i] != 1)\n"
                 "    return t.sum(dim=axes, keepdim=True) if axes else t\n"},
    ],
    "channel_stats": [
        {"kind": "mistake", "why": "uses the sample std (n - 1), the default of .std()",
         "message": "that is the sample std",
         "code": "def channel_stats(images):\n"
                 "    mean = images.mean(dim=(0, 2, 3), keepdim=True)\n"
                 "    return mean, images.std(dim=(0, 2, 3), keepdim=True)\n"},
        {"kind": "mistake", "why": "reduces over H and W only: statistics per image",
         "message": "that reduces over H and W only",
         "code": "def channel_stats(images):\n"
                 "    mean = images.mean(dim=(2, 3), keepdim=True)\n"
                 "    return mean, ((images - mean) ** 2).mean(dim=(2, 3), keepdim=True).sqrt()\n"},
        {"kind": "type", "why": "drops the reduced axes (no keepdim): shape (C,)",
         "message": "keep the reduced axes (keepdim=True)",
         "code": "def channel_stats(images):\n"
                 "    mean = images.mean(dim=(0, 2, 3))\n"
                 "    var = ((images - mean.reshape(1, -1, 1, 1)) ** 2).mean(dim=(0, 2, 3))\n"
                 "    return mean, var.sqrt()\n"},
        {"kind": "mistake", "why": "returns the variance as the std (forgets the square root)",
         "message": "that is the variance",
         "code": "def channel_stats(images):\n"
                 "    mean = images.mean(dim=(0, 2, 3), keepdim=True)\n"
                 "    return mean, ((images - mean) ** 2).mean(dim=(0, 2, 3), keepdim=True)\n"},
        {"kind": "structure", "why": "computes in NumPy and wraps the results: no gradient",
         "message": "autograd_lab.Tensor.numpy is switched off",
         "code": "def channel_stats(images):\n"
                 "    a = images.detach().numpy()\n"
                 "    return (torch.tensor(a.mean(axis=(0, 2, 3), keepdims=True)),\n"
                 "            torch.tensor(a.std(axis=(0, 2, 3), keepdims=True)))\n"},
        {"kind": "structure", "why": "goes through NumPy by np.asarray, then wraps: no gradient",
         "message": "autograd_lab.Tensor.__array__ is switched off",
         "code": "def channel_stats(images):\n"
                 "    a = np.asarray(images.detach())\n"
                 "    return (torch.tensor(a.mean(axis=(0, 2, 3), keepdims=True)),\n"
                 "            torch.tensor(a.std(axis=(0, 2, 3), keepdims=True)))\n"},
    ],
    "normalize": [
        {"kind": "shortcut", "why": "calls the library's batch_norm",
         "message": "autograd_lab.nn.functional.batch_norm is switched off",
         "code": "def normalize(images, eps=1e-5):\n"
                 "    return torch.nn.functional.batch_norm(images, None, None, training=True, eps=eps)\n"},
        {"kind": "shortcut", "why": "uses an nn.BatchNorm2d layer without affine parameters",
         "message": "autograd_lab.nn.BatchNorm2d.forward is switched off",
         "code": "def normalize(images, eps=1e-5):\n"
                 "    return torch.nn.BatchNorm2d(images.shape[1], eps=eps, affine=False)(images)\n"},
        {"kind": "mistake", "why": "divides by std + eps instead of sqrt(std² + eps)",
         "message": "that divides by std + eps",
         "code": "def normalize(images, eps=1e-5):\n"
                 "    mean, std = channel_stats(images)\n"
                 "    return (images - mean) / (std + eps)\n"},
        {"kind": "mistake", "why": "ignores eps",
         "message": "eps is ignored",
         "code": "def normalize(images, eps=1e-5):\n"
                 "    mean, std = channel_stats(images)\n"
                 "    return (images - mean) / std\n"},
        {"kind": "structure", "why": "changes the caller's batch in place (-= and /=)",
         "message": "normalize must not change its input",
         "code": "def normalize(images, eps=1e-5):\n"
                 "    mean, std = channel_stats(images)\n"
                 "    images -= mean\n"
                 "    images /= (std ** 2 + eps).sqrt()\n"
                 "    return images\n"},
        {"kind": "mistake", "why": "normalises each image on its own (statistics over H, W)",
         "message": "that normalises each image on its own",
         "code": "def normalize(images, eps=1e-5):\n"
                 "    mean = images.mean(dim=(2, 3), keepdim=True)\n"
                 "    var = ((images - mean) ** 2).mean(dim=(2, 3), keepdim=True)\n"
                 "    return (images - mean) / (var + eps).sqrt()\n"},
    ],
}

ALTERNATIVES = {
    "predict_shapes": ["predicted = {}\n" + "".join(
        f"predicted[{k!r}] = {v!r}\n" for k, v in PREDICTED.items())],
    "broadcast_shape": [
        "from itertools import zip_longest\n\n\ndef broadcast_shape(a, b):\n"
        "    out = []\n"
        "    for x, y in zip_longest(reversed(a), reversed(b), fillvalue=1):\n"
        "        if x == 1:\n"
        "            out.append(y)\n"
        "        elif y == 1 or x == y:\n"
        "            out.append(x)\n"
        "        else:\n"
        "            raise ValueError(f'shapes {a} and {b} do not broadcast: {x} vs {y}')\n"
        "    return tuple(reversed(out))\n",
    ],
    "sum_to_shape": [
        "def sum_to_shape(grad, shape):\n"
        "    shape = tuple(shape)\n"
        "    if len(shape) > grad.ndim:\n"
        "        raise ValueError(f'cannot sum {grad.shape} to {shape}')\n"
        "    out = grad\n"
        "    while out.ndim > len(shape):\n"
        "        out = out.sum(axis=0)\n"
        "    for i, (s, g) in enumerate(zip(shape, out.shape)):\n"
        "        if s == 1 and g != 1:\n"
        "            out = out.sum(axis=i, keepdims=True)\n"
        "        elif s != g:\n"
        "            raise ValueError(f'{shape} does not broadcast to {grad.shape}')\n"
        "    return np.array(out, dtype=grad.dtype).reshape(shape)\n",
    ],
    "channel_stats": [
        "def channel_stats(images):\n"
        "    return (images.mean(dim=(0, 2, 3), keepdim=True),\n"
        "            images.std(dim=(0, 2, 3), keepdim=True, unbiased=False))\n",
        "def channel_stats(images):\n"
        "    var, mean = torch.var_mean(images, dim=(0, 2, 3), keepdim=True, correction=0)\n"
        "    return mean, var.sqrt()\n",
        "def channel_stats(images):\n"
        "    mean = images.mean(dim=(0, 2, 3), keepdim=True)\n"
        "    square = (images * images).mean(dim=(0, 2, 3), keepdim=True)\n"
        "    return mean, (square - mean * mean).sqrt()\n",
    ],
    "normalize": [
        "def normalize(images, eps=1e-5):\n"
        "    mean, std = channel_stats(images)\n"
        "    return (images - mean) * (std * std + eps) ** -0.5\n",
    ],
}

WRONG_ANSWERS = {
    "sum_to_shape": MISTAKES["sum_to_shape"][2]["code"],
    "channel_stats": MISTAKES["channel_stats"][0]["code"],
}
DESCRIPTION = (f"sum_to_shape: {MISTAKES['sum_to_shape'][2]['why']}; "
               f"channel_stats: {MISTAKES['channel_stats'][0]['why']}.")
