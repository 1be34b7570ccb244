"""Wrong answers to 03_graph, for the project's tests (never released: see nbgrader_config.py).

MISTAKES (per exercise: answers learners really write, each of which must lose points with its
`message`), ALTERNATIVES (correct answers that must score full) and WRONG_ANSWERS (one learner,
for tests/test_pipeline.py), as docs/exercise-authoring.md describes.
"""

# Lines that several answers share.
_EDGES = "[n for n, _ in node.next_functions if n is not None]"
_RECURSIVE = ("def topological_order(y):\n"
              "    order, visited = [], set()\n"
              "\n"
              "    def visit(node):\n"
              "        if node in visited:\n"
              "            return\n"
              "        visited.add(node)\n"
              "        for nxt, _ in node.next_functions:\n"
              "            if nxt is not None:\n"
              "                visit(nxt)\n"
              "        order.append(node)\n"
              "\n"
              "    visit(y.grad_fn)\n"
              "    return order[::-1]\n")
_KAHN = ("def topological_order(y):\n"
         "    root = y.grad_fn\n"
         "    indegree, todo = {root: 0}, [root]\n"
         "    while todo:\n"
         "        node = todo.pop()\n"
         "        for nxt in " + _EDGES + ":\n"
         "            if nxt not in indegree:\n"
         "                indegree[nxt] = 0\n"
         "                todo.append(nxt)\n"
         "            indegree[nxt] += 1\n"
         "    order, ready = [], [root]\n"
         "    while ready:\n"
         "        node = ready.pop()\n"
         "        order.append(node)\n"
         "        for nxt in " + _EDGES + ":\n"
         "            indegree[nxt] -= 1\n"
         "            if indegree[nxt] == 0:\n"
         "                ready.append(nxt)\n"
         "    return order\n")
_PREORDER = ("def topological_order(y):\n"
             "    order, seen, stack = [], {y.grad_fn}, [y.grad_fn]\n"
             "    while stack:\n"
             "        node = stack.pop()\n"
             "        order.append(node)\n"
             "        for nxt in " + _EDGES + ":\n"
             "            if nxt not in seen:\n"
             "                seen.add(nxt)\n"
             "                stack.append(nxt)\n"
             "    return order\n")
_BACKWARD_HEAD = ("def my_backward(y):\n"
                  "    buffers = {y.grad_fn: torch.ones_like(y)}\n"
                  "    with torch.no_grad():\n"
                  "        for node in topological_order(y):\n"
                  "            grad = buffers.pop(node, None)\n"
                  "            if grad is None:\n"
                  "                continue\n")
_LEAF = ("            if hasattr(node, 'variable'):\n"
         "                leaf = node.variable\n"
         "                leaf.grad = grad.clone() if leaf.grad is None else leaf.grad + grad\n"
         "                continue\n")
_CALL = ("            grads_in = node(grad)\n"
         "            if isinstance(grads_in, torch.Tensor):\n"
         "                grads_in = (grads_in,)\n"
         "            for (nxt, _), g in zip(node.next_functions, grads_in):\n")
_SEND = ("                if nxt is None or g is None:\n"
         "                    continue\n"
         "                buffers[nxt] = g if nxt not in buffers else buffers[nxt] + g\n")
_PER_PATH = ("def my_backward(y):\n"
             "    def run(node, grad):\n"
             "        if hasattr(node, 'variable'):\n"
             "            leaf = node.variable\n"
             "            leaf.grad = grad.clone() if leaf.grad is None else leaf.grad + grad\n"
             "            return\n"
             "        grads_in = node(grad)\n"
             "        if isinstance(grads_in, torch.Tensor):\n"
             "            grads_in = (grads_in,)\n"
             "        for (nxt, _), g in zip(node.next_functions, grads_in):\n"
             "            if nxt is not None and g is not None:\n"
             "                run(nxt, g)\n"
             "\n"
             "    with torch.no_grad():\n"
             "        run(y.grad_fn, torch.ones_like(y))\n")

MISTAKES = {
    "topological_order": [
        {"kind": "shortcut", "why": "returns the engine's own order",
         "message": "autograd_lab.engine.execution_order is switched off",
         "code": "def topological_order(y):\n"
                 "    return torch.engine.execution_order(y)\n"},
        {"kind": "shortcut", "why": "reads the order off viz.backward_steps (the engine's run)",
         "message": "autograd_lab.viz.backward_steps is switched off",
         "code": "def topological_order(y):\n"
                 "    return [step.node for step in viz.backward_steps(y)]\n"},
        {"kind": "structure", "why": "micrograd's recursive depth-first sort: right order, but "
                                     "RecursionError on a deep graph",
         "message": "not with a recursive function",
         "code": _RECURSIVE},
        {"kind": "mistake", "why": "breadth-first walk, each node listed when first reached",
         "message": "A breadth-first walk",
         "code": "from collections import deque\n\n\n"
                 "def topological_order(y):\n"
                 "    order, seen, queue = [], {y.grad_fn}, deque([y.grad_fn])\n"
                 "    while queue:\n"
                 "        node = queue.popleft()\n"
                 "        order.append(node)\n"
                 "        for nxt in " + _EDGES + ":\n"
                 "            if nxt not in seen:\n"
                 "                seen.add(nxt)\n"
                 "                queue.append(nxt)\n"
                 "    return order\n"},
        {"kind": "mistake", "why": "depth-first walk with a stack, each node listed when first "
                                   "reached (pre-order)",
         "message": "(pre-order)",
         "code": _PREORDER},
        {"kind": "mistake", "why": "depth-first walk that never remembers a node: lists it once per "
                                   "edge",
         "message": "remember the nodes already seen",
         "code": "def topological_order(y):\n"
                 "    order, stack = [], [y.grad_fn]\n"
                 "    while stack:\n"
                 "        node = stack.pop()\n"
                 "        order.append(node)\n"
                 "        stack.extend(" + _EDGES + ")\n"
                 "    return order\n"},
        {"kind": "mistake", "why": "post-order (children first), not reversed: the root comes last",
         "message": "backward starts there",
         "code": _RECURSIVE.replace("return order[::-1]", "return order")},
        {"kind": "edge", "why": "leaves out the AccumulateGrad nodes",
         "message": "AccumulateGrad nodes too",
         "code": _KAHN.replace("if indegree[nxt] == 0:",
                               "if indegree[nxt] == 0 and not hasattr(nxt, 'variable'):")},
        {"kind": "type", "why": "returns a tuple",
         "message": "return a list of nodes",
         "code": _KAHN.replace("    return order\n", "    return tuple(order)\n")},
    ],
    "my_backward": [
        {"kind": "shortcut", "why": "calls y.backward()",
         "message": "autograd_lab.Tensor.backward is switched off",
         "code": "def my_backward(y):\n"
                 "    y.backward(retain_graph=True)\n"},
        {"kind": "shortcut", "why": "finds the leaves, then asks autograd.grad for their gradients",
         "message": "autograd_lab.autograd.grad is switched off",
         "code": "def my_backward(y):\n"
                 "    leaves = [n.variable for n in topological_order(y) if hasattr(n, 'variable')]\n"
                 "    grads = torch.autograd.grad(y, leaves, retain_graph=True)\n"
                 "    for leaf, g in zip(leaves, grads):\n"
                 "        leaf.grad = g.clone() if leaf.grad is None else leaf.grad + g\n"},
        {"kind": "structure", "why": "recursive, runs a node once per arriving gradient (per path)",
         "message": "each node runs once",
         "code": _PER_PATH},
        {"kind": "structure", "why": "a work list of (node, gradient) pairs: no recursion, but a node "
                                     "runs once per path",
         "message": "each node runs once",
         "code": _PER_PATH.replace("run(nxt, g)", "todo.append((nxt, g))").replace(
             "        run(y.grad_fn, torch.ones_like(y))\n",
             "        todo = [(y.grad_fn, torch.ones_like(y))]\n"
             "        while todo:\n"
             "            run(*todo.pop())\n").replace("    def run(", "    todo = []\n\n    def run(")},
        {"kind": "mistake", "why": "keeps the last gradient sent to a node instead of their sum",
         "message": "sum ALL that is sent to a node",
         "code": _BACKWARD_HEAD + _LEAF + _CALL
                 + "                if nxt is not None and g is not None:\n"
                   "                    buffers[nxt] = g\n"},
        {"kind": "structure", "why": "stores the gradient tensor itself in .grad, no copy",
         "message": "store grad.clone() in a leaf's .grad",
         "code": _BACKWARD_HEAD + _LEAF.replace("grad.clone() if", "grad if") + _CALL + _SEND},
        {"kind": "structure", "why": "runs the nodes with recording on (no torch.no_grad())",
         "message": "run the nodes inside `with torch.no_grad():`",
         "code": (_BACKWARD_HEAD + _LEAF + _CALL + _SEND).replace(
             "    with torch.no_grad():\n", "    if True:\n")},
        {"kind": "mistake", "why": "replaces .grad instead of adding to it",
         "message": "adds to .grad, as .backward() does",
         "code": _BACKWARD_HEAD + _LEAF.replace("grad.clone() if leaf.grad is None else leaf.grad + grad",
                                                "grad.clone()") + _CALL + _SEND},
        {"kind": "edge", "why": "does not skip a None gradient",
         "message": "skip None gradients",
         "code": _BACKWARD_HEAD + _LEAF + _CALL
                 + "                if nxt is None:\n"
                   "                    continue\n"
                   "                buffers[nxt] = g if nxt not in buffers else buffers[nxt] + g\n"},
    ],
    "count_saved": [
        {"kind": "mistake", "why": "walks every edge without remembering the nodes: a node reached "
                                   "along two edges counts twice",
         "message": "count each NODE once",
         "code": "def count_saved(y):\n"
                 "    total, stack = 0, [y.grad_fn]\n"
                 "    while stack:\n"
                 "        node = stack.pop()\n"
                 "        total += len(node.saved_items())\n"
                 "        stack.extend(n for n, _ in node.next_functions if n is not None)\n"
                 "    return total\n"},
        {"kind": "shortcut", "why": "walks the engine's order",
         "message": "autograd_lab.engine.execution_order is switched off",
         "code": "def count_saved(y):\n"
                 "    return sum(len(n.saved_items()) for n in torch.engine.execution_order(y))\n"},
        {"kind": "mistake", "why": "counts the nodes, not what they saved",
         "message": "that counts the nodes",
         "code": "def count_saved(y):\n"
                 "    return len(topological_order(y))\n"},
        {"kind": "mistake", "why": "counts distinct saved tensor objects",
         "message": "that counts distinct tensors",
         "code": "def count_saved(y):\n"
                 "    return len({id(t) for n in topological_order(y) for _, t in n.saved_items()})\n"},
        {"kind": "structure", "why": "a recursive walk (with a set of seen nodes)",
         "message": "not recursion",
         "code": "def count_saved(y):\n"
                 "    seen = set()\n"
                 "\n"
                 "    def walk(node):\n"
                 "        if node is None or node in seen:\n"
                 "            return 0\n"
                 "        seen.add(node)\n"
                 "        return len(node.saved_items()) + sum(walk(n) for n, _ in node.next_functions)\n"
                 "\n"
                 "    return walk(y.grad_fn)\n"},
    ],
}

ALTERNATIVES = {
    "topological_order": [
        # reverse post-order of an iterative depth-first walk
        "def topological_order(y):\n"
        "    order, done, stack = [], set(), [(y.grad_fn, False)]\n"
        "    while stack:\n"
        "        node, expanded = stack.pop()\n"
        "        if expanded:\n"
        "            order.append(node)\n"
        "            continue\n"
        "        if node in done:\n"
        "            continue\n"
        "        done.add(node)\n"
        "        stack.append((node, True))\n"
        "        for nxt, _ in node.next_functions:\n"
        "            if nxt is not None and nxt not in done:\n"
        "                stack.append((nxt, False))\n"
        "    return order[::-1]\n",
        # Kahn's algorithm with a queue
        "from collections import Counter, deque\n\n\n"
        "def topological_order(y):\n"
        "    indegree, seen, todo = Counter(), {y.grad_fn}, [y.grad_fn]\n"
        "    while todo:\n"
        "        for nxt, _ in todo.pop().next_functions:\n"
        "            if nxt is not None:\n"
        "                indegree[nxt] += 1\n"
        "                if nxt not in seen:\n"
        "                    seen.add(nxt)\n"
        "                    todo.append(nxt)\n"
        "    order, ready = [], deque([y.grad_fn])\n"
        "    while ready:\n"
        "        node = ready.popleft()\n"
        "        order.append(node)\n"
        "        for nxt, _ in node.next_functions:\n"
        "            if nxt is not None:\n"
        "                indegree[nxt] -= 1\n"
        "                if indegree[nxt] == 0:\n"
        "                    ready.append(nxt)\n"
        "    return order\n",
    ],
    "my_backward": [
        # the engine's order (the exercise allows it), and AccumulateGrad nodes called like the others
        "def my_backward(y):\n"
        "    buffers = {y.grad_fn: torch.ones_like(y)}\n"
        "    with torch.no_grad():\n"
        "        for node in torch.engine.execution_order(y):\n"
        "            grad = buffers.pop(node, None)\n"
        "            if grad is None:\n"
        "                continue\n"
        "            out = node(grad)\n"
        "            out = (out,) if isinstance(out, torch.Tensor) else out\n"
        "            for (nxt, _), g in zip(node.next_functions, out):\n"
        "                if nxt is not None and g is not None:\n"
        "                    buffers[nxt] = buffers[nxt] + g if nxt in buffers else g\n",
    ],
    "count_saved": [
        "def count_saved(y):\n"
        "    seen, todo, total = {y.grad_fn}, [y.grad_fn], 0\n"
        "    while todo:\n"
        "        node = todo.pop()\n"
        "        total += len(node.saved_items())\n"
        "        for nxt, _ in node.next_functions:\n"
        "            if nxt is not None and nxt not in seen:\n"
        "                seen.add(nxt)\n"
        "                todo.append(nxt)\n"
        "    return total\n",
    ],
}

DESCRIPTION = (
    "topological_order is micrograd's recursive depth-first sort: a valid order, but a "
    "RecursionError on a deep graph; count_saved walks every edge without remembering visited "
    "nodes, so a node reached along two edges is counted twice."
)

WRONG_ANSWERS = {
    "topological_order": MISTAKES["topological_order"][2]["code"],
    "count_saved": MISTAKES["count_saved"][0]["code"],
}
