"""Wrong answers to 10_parallelism, for the project's tests (never released: see nbgrader_config.py).

MISTAKES (per exercise: answers a learner really writes, each of a kind, with the words its failing
test must say), ALTERNATIVES (correct answers written another way) and WRONG_ANSWERS (one typical
learner), in the format of solutions/01_tensors/wrong_answers.py; see docs/exercise-authoring.md.
"""


def _shard(start: str, stop: str, ret: str = "batch[start:stop]") -> str:
    return ("def shard(batch, rank, world_size):\n"
            "    n = len(batch)\n"
            f"    start = {start}\n"
            f"    stop = {stop}\n"
            f"    return {ret}\n")


# One backward over the whole batch: the body of the shortcut of exercises 2 and 5.
_FULL_BATCH = ("    model.zero_grad()\n"
               "    F.cross_entropy(model(x), y).backward()\n"
               "    return [p.grad.numpy().copy() for p in model.parameters()]\n")

_RIGHT_START = "rank * (n // world_size) + min(rank, n % world_size)"
_RIGHT_STOP = "start + n // world_size + (1 if rank < n % world_size else 0)"


def _dp(*, reset: str = "        model.zero_grad()\n",
        skip: str = "        if len(xs) == 0:\n            continue\n",
        weight: str = "len(xs) / len(x)", ret: str = "total") -> str:
    """The solution of data_parallel_grads with one of its parts changed."""
    return ("def data_parallel_grads(model, x, y, world_size):\n"
            "    total = [np.zeros(p.shape) for p in model.parameters()]\n"
            "    for rank in range(world_size):\n"
            "        xs, ys = shard(x, rank, world_size), shard(y, rank, world_size)\n"
            + skip + reset
            + "        F.cross_entropy(model(xs), ys).backward()\n"
            "        for t, p in zip(total, model.parameters()):\n"
            f"            t += {weight} * p.grad.numpy()\n"
            f"    return {ret}\n")


# The ring's schedule, as a learner who generates the message list from it writes it.
_SCHEDULE = ("    messages = []\n"
             "    for s in range(2 * (p - 1)):\n"
             "        for r in range(p):\n"
             "            c = (r - s) % p if s < p - 1 else (r + 1 - (s - (p - 1))) % p\n"
             "            messages.append((s, r, (r + 1) % p, c, {data}))\n")


def _ring(*, payload: str = "chunks[src][c].copy()", add: str = "chunks[dst][c] = chunks[dst][c] + data",
          replace: str = "chunks[dst][c] = data.copy()", gathered: str = "(r + 1 - (s - p + 1)) % p") -> str:
    """The solution of ring_all_reduce with one of its lines changed; `gathered` is the chunk worker
    r sends in step s of the all-gather."""
    return ("def ring_all_reduce(buffers):\n"
            "    p = len(buffers)\n"
            "    chunks = [[c.copy() for c in np.array_split(np.asarray(b), p)] for b in buffers]\n"
            "    messages = []\n"
            "    for s in range(2 * (p - 1)):\n"
            "        gather = s >= p - 1\n"
            f"        sends = [(r, (r + 1) % p, {gathered} if gather else (r - s) % p) for r in range(p)]\n"
            "        payloads = [" + payload.replace("[src][c]", "[r][k]") + " for r, _, k in sends]\n"
            "        for (src, dst, c), data in zip(sends, payloads):\n"
            "            if gather:\n"
            f"                {replace}\n"
            "            else:\n"
            f"                {add}\n"
            "            messages.append((s, src, dst, c, data))\n"
            "    return [np.concatenate(cs) for cs in chunks], messages\n")


def _dp_worker(*, forward: str = "F.cross_entropy(model(xs), ys).backward()",
               weight: str = "len(xs) / len(x)", empty: bool = True,
               reduce: str = "parallel.all_reduce(g)") -> str:
    """The solution of dp_worker with one of its lines changed."""
    return ("def dp_worker(rank, world_size, model, x, y):\n"
            "    xs, ys = parallel.shard(x, rank, world_size), parallel.shard(y, rank, world_size)\n"
            "    model.zero_grad()\n"
            + ("    if len(xs) > 0:\n" if empty else "    if True:\n")
            + f"        {forward}\n"
            "    grads = []\n"
            "    for p in model.parameters():\n"
            "        g = np.zeros_like(p.detach().numpy()) if p.grad is None else p.grad.numpy() * "
            f"({weight})\n"
            f"        {reduce}\n"
            "        grads.append(g)\n"
            "    return grads\n")


MISTAKES = {
    "shard": [
        {"kind": "shortcut", "why": "cuts with NumPy's array_split, imported by name",
         "message": "numpy.array_split is switched off",
         "code": "from numpy import array_split\n\n\ndef shard(batch, rank, world_size):\n"
                 "    return array_split(batch, world_size)[rank]\n"},
        {"kind": "shortcut", "why": "calls the library's parallel.shard",
         "message": "autograd_lab.parallel.shard is switched off",
         "code": "def shard(batch, rank, world_size):\n    return parallel.shard(batch, rank, world_size)\n"},
        {"kind": "mistake", "why": "cuts like chunk: ceil(N / p) rows per shard, the rest for the last",
         "message": "that is chunk's cut",
         "code": _shard("rank * -(-n // world_size)", "min(n, start + -(-n // world_size))")},
        {"kind": "mistake", "why": "gives the last shard all the N % p rows left over",
         "message": "the last shard takes all the N % p rows left over",
         "code": _shard("rank * (n // world_size)",
                        "n if rank == world_size - 1 else start + n // world_size")},
        {"kind": "mistake", "why": "gives the extra rows to the last shards instead of the first",
         "message": "not the last",
         "code": _shard("rank * (n // world_size) + max(0, rank - (world_size - n % world_size))",
                        "start + n // world_size + (1 if rank >= world_size - n % world_size else 0)")},
        {"kind": "mistake", "why": "deals the rows out round-robin (every p-th row), not contiguously",
         "message": "not every p-th row",
         "code": "def shard(batch, rank, world_size):\n    return batch[rank::world_size]\n"},
        {"kind": "type", "why": "returns a list of rows instead of a slice",
         "message": "the slice is of the batch's own type",
         "code": _shard(_RIGHT_START, _RIGHT_STOP, ret="[batch[i] for i in range(start, stop)]")},
    ],
    "data_parallel_grads": [
        {"kind": "shortcut", "why": "one backward over the whole batch, returned as if combined",
         "message": "never on the whole batch",
         "code": "def data_parallel_grads(model, x, y, world_size):\n" + _FULL_BATCH},
        {"kind": "shortcut", "why": "calls the library's DataParallel.forward_backward",
         "message": "autograd_lab.parallel.DataParallel.forward_backward is switched off",
         "code": "def data_parallel_grads(model, x, y, world_size):\n"
                 "    model.zero_grad()\n"
                 "    dp = parallel.DataParallel(model)\n"
                 "    dp.forward_backward(lambda a, b: F.cross_entropy(model(a), b), x, y)\n"
                 "    return [p.grad.numpy().copy() for p in model.parameters()]\n"},
        {"kind": "mistake",
         "why": "averages the shard gradients with equal weights (exact only for equal shards)",
         "message": "that is the plain average of the shard gradients",
         "code": _dp(weight="1 / world_size")},
        {"kind": "mistake", "why": "sums the shard gradients without weights",
         "message": "that is the sum of the shard gradients",
         "code": _dp(weight="1")},
        {"kind": "mistake", "why": "forgets zero_grad between the shards: each backward adds to the last",
         "message": "call model.zero_grad() before each shard",
         "code": _dp(reset="").replace("    for rank in range(world_size):\n",
                                        "    model.zero_grad()\n    for rank in range(world_size):\n")},
        {"kind": "edge", "why": "does not skip an empty shard: its mean loss is NaN",
         "message": "skip an empty shard",
         "code": _dp(skip="")},
        {"kind": "structure",
         "why": "one backward of the weighted sum of the shard losses, not one per shard",
         "message": "one backward() per non-empty shard",
         "code": "def data_parallel_grads(model, x, y, world_size):\n"
                 "    model.zero_grad()\n"
                 "    loss = 0\n"
                 "    for rank in range(world_size):\n"
                 "        xs, ys = shard(x, rank, world_size), shard(y, rank, world_size)\n"
                 "        if len(xs):\n"
                 "            loss = loss + len(xs) / len(x) * F.cross_entropy(model(xs), ys)\n"
                 "    loss.backward()\n"
                 "    return [p.grad.numpy().copy() for p in model.parameters()]\n"},
        {"kind": "type", "why": "returns the totals as tensors",
         "message": "expected a NumPy array",
         "code": _dp(ret="[torch.from_numpy(t) for t in total]")},
    ],
    "naive_all_reduce": [
        {"kind": "shortcut", "why": "calls the library's simulation",
         "message": "autograd_lab.parallel.ring.simulate_naive_all_reduce is switched off",
         "code": "from autograd_lab.parallel.ring import simulate_naive_all_reduce\n\n\n"
                 "def naive_all_reduce(buffers):\n"
                 "    results, msgs = simulate_naive_all_reduce(buffers)\n"
                 "    return list(results), [(m.src, m.dst, np.ones(m.elements)) for m in msgs]\n"},
        {"kind": "structure", "why": "records how many numbers each message carries, not the numbers",
         "message": "a message carries its data",
         "code": "def naive_all_reduce(buffers):\n"
                 "    total = np.sum(buffers, axis=0)\n"
                 "    p = len(buffers)\n"
                 "    messages = [(r, 0, len(total)) for r in range(1, p)]\n"
                 "    messages += [(0, r, len(total)) for r in range(1, p)]\n"
                 "    return [total.copy() for _ in range(p)], messages\n"},
        {"kind": "mistake", "why": "sends worker 0's running sum back before it has every buffer",
         "message": "the gather comes first",
         "code": "def naive_all_reduce(buffers):\n"
                 "    total = np.array(buffers[0], copy=True)\n"
                 "    messages = []\n"
                 "    for r in range(1, len(buffers)):\n"
                 "        messages.append((r, 0, np.array(buffers[r], copy=True)))\n"
                 "        total = total + buffers[r]\n"
                 "        messages.append((0, r, total.copy()))\n"
                 "    return [total.copy() for _ in buffers], messages\n"},
        {"kind": "mistake", "why": "adds into worker 0's input buffer in place",
         "message": "do not modify the input buffers",
         "code": "def naive_all_reduce(buffers):\n"
                 "    total = buffers[0]\n"
                 "    messages = []\n"
                 "    for r in range(1, len(buffers)):\n"
                 "        messages.append((r, 0, np.array(buffers[r], copy=True)))\n"
                 "        total += buffers[r]\n"
                 "    for r in range(1, len(buffers)):\n"
                 "        messages.append((0, r, total.copy()))\n"
                 "    return [total.copy() for _ in buffers], messages\n"},
        {"kind": "structure", "why": "gives every worker the same result array",
         "message": "each worker's result is its own array",
         "code": "def naive_all_reduce(buffers):\n"
                 "    total = np.array(buffers[0], copy=True)\n"
                 "    messages = []\n"
                 "    for r in range(1, len(buffers)):\n"
                 "        messages.append((r, 0, np.array(buffers[r], copy=True)))\n"
                 "        total = total + buffers[r]\n"
                 "    for r in range(1, len(buffers)):\n"
                 "        messages.append((0, r, total.copy()))\n"
                 "    return [total] * len(buffers), messages\n"},
        {"kind": "structure", "why": "records worker 0's live buffer as the data of its messages",
         "message": "a message carries a copy of the numbers sent",
         "code": "def naive_all_reduce(buffers):\n"
                 "    total = np.array(buffers[0], copy=True)\n"
                 "    messages = []\n"
                 "    for r in range(1, len(buffers)):\n"
                 "        messages.append((r, 0, np.array(buffers[r], copy=True)))\n"
                 "        total = total + buffers[r]\n"
                 "    for r in range(1, len(buffers)):\n"
                 "        messages.append((0, r, total))\n"
                 "    return [total] + [total.copy() for _ in buffers[1:]], messages\n"},
        {"kind": "mistake", "why": "worker 0 also sends the sum to itself",
         "message": "2 (p - 1)",
         "code": "def naive_all_reduce(buffers):\n"
                 "    total = np.array(buffers[0], copy=True)\n"
                 "    messages = []\n"
                 "    for r in range(1, len(buffers)):\n"
                 "        messages.append((r, 0, np.array(buffers[r], copy=True)))\n"
                 "        total = total + buffers[r]\n"
                 "    for r in range(len(buffers)):\n"
                 "        messages.append((0, r, total.copy()))\n"
                 "    return [total.copy() for _ in buffers], messages\n"},
    ],
    "ring_all_reduce": [
        {"kind": "shortcut", "why": "np.sum of the buffers, with a message list generated from the schedule "
                                    "(sizes only): the data never travels",
         "message": "not computed from all the buffers at once",
         "code": "def ring_all_reduce(buffers):\n"
                 "    p = len(buffers)\n"
                 "    total = np.sum(buffers, axis=0)\n"
                 "    sizes = [len(c) for c in np.array_split(total, p)]\n"
                 + _SCHEDULE.format(data="np.zeros(sizes[c])")
                 + "    return [total.copy() for _ in buffers], messages\n"},
        {"kind": "shortcut", "why": "np.sum of the buffers, every message carrying a chunk of the final sum",
         "message": "holds the sum of the buffers of workers",
         "code": "def ring_all_reduce(buffers):\n"
                 "    p = len(buffers)\n"
                 "    total = np.sum(buffers, axis=0)\n"
                 "    parts = np.array_split(total, p)\n"
                 + _SCHEDULE.format(data="parts[c].copy()")
                 + "    return [total.copy() for _ in buffers], messages\n"},
        {"kind": "shortcut", "why": "calls the library's simulation",
         "message": "autograd_lab.parallel.ring.simulate_ring_all_reduce is switched off",
         "code": "from autograd_lab.parallel.ring import simulate_ring_all_reduce\n\n\n"
                 "def ring_all_reduce(buffers):\n"
                 "    p = len(buffers)\n"
                 "    results, msgs = simulate_ring_all_reduce(buffers)\n"
                 "    chunks = [np.array_split(np.asarray(b), p) for b in buffers]\n"
                 "    return list(results), [(m.step + (m.phase == 'all-gather') * (p - 1), m.src, m.dst,\n"
                 "                            m.chunk, np.zeros(m.elements)) for m in msgs]\n"},
        {"kind": "mistake", "why": "passes whole buffers around the ring: p (p - 1) messages of n numbers",
         "message": "in both phases",
         "code": "def ring_all_reduce(buffers):\n"
                 "    p = len(buffers)\n"
                 "    results = [np.array(b, copy=True) for b in buffers]\n"
                 "    passing = [np.array(b, copy=True) for b in buffers]\n"
                 "    messages = []\n"
                 "    for step in range(p - 1):\n"
                 "        passing = [passing[(r - 1) % p] for r in range(p)]\n"
                 "        for r in range(p):\n"
                 "            results[r] = results[r] + passing[r]\n"
                 "            messages.append((step, (r - 1) % p, r, 0, passing[r].copy()))\n"
                 "    return results, messages\n"},
        {"kind": "mistake", "why": "uses the reduce-scatter's chunks in the all-gather too: sends chunks "
                                   "that are not complete yet",
         "message": "the chunk worker 0 sends in all-gather step 0",
         "code": _ring(gathered="(r - (s - p + 1)) % p")},
        {"kind": "structure", "why": "adds in place and records views of the chunks, not copies",
         "message": "Send a copy (.copy())",
         "code": _ring(payload="chunks[src][c]", add="chunks[dst][c] += data",
                       replace="chunks[dst][c][...] = data")},
        {"kind": "mistake", "why": "adds in the all-gather too, instead of replacing",
         "message": "the all-gather brings it the others",
         "code": _ring(replace="chunks[dst][c] = chunks[dst][c] + data")},
    ],
    "dp_worker": [
        {"kind": "shortcut", "why": "every worker computes the full-batch gradient and skips the all-reduce",
         "message": "never on the whole batch",
         "code": "def dp_worker(rank, world_size, model, x, y):\n" + _FULL_BATCH},
        {"kind": "shortcut",
         "why": "the full-batch gradient times n_r / N, all-reduced: the sum comes out right",
         "message": "never on the whole batch",
         "code": _dp_worker(forward="F.cross_entropy(model(x), y).backward()")},
        {"kind": "mistake", "why": "all-reduces the shard gradients unweighted (a SUM of p gradients)",
         "message": "weight the shard's gradient by n_r / N",
         "code": _dp_worker(weight="1")},
        {"kind": "mistake", "why": "averages with ReduceOp.AVG, as DDP does: wrong for unequal shards",
         "message": "weight the shard's gradient by n_r / N",
         "code": _dp_worker(weight="1", reduce="parallel.all_reduce(g, op=parallel.ReduceOp.AVG)")},
        {"kind": "structure", "why": "all-reduces nothing: each worker keeps its own shard's gradient",
         "message": "call parallel.all_reduce on each parameter's gradient",
         "code": _dp_worker(reduce="pass")},
        {"kind": "edge", "why": "runs the model on an empty shard (its mean loss is NaN)",
         "message": "this worker's shard is empty",
         "code": _dp_worker(empty=False)},
    ],
}

ALTERNATIVES = {
    "shard": [
        "def shard(batch, rank, world_size):\n"
        "    base, extra = divmod(len(batch), world_size)\n"
        "    sizes = [base + 1] * extra + [base] * (world_size - extra)\n"
        "    start = sum(sizes[:rank])\n"
        "    return batch[start:start + sizes[rank]]\n",
    ],
    "data_parallel_grads": [
        # autograd.grad per shard, the weighted sum taken at the end
        "def data_parallel_grads(model, x, y, world_size):\n"
        "    params = list(model.parameters())\n"
        "    parts = []\n"
        "    for rank in range(world_size):\n"
        "        xs, ys = shard(x, rank, world_size), shard(y, rank, world_size)\n"
        "        if len(xs):\n"
        "            grads = torch.autograd.grad(F.cross_entropy(model(xs), ys), params)\n"
        "            parts.append((len(xs), [g.numpy() for g in grads]))\n"
        "    return [sum(k * g[i] for k, g in parts) / len(x) for i in range(len(params))]\n",
    ],
    "naive_all_reduce": [
        "def naive_all_reduce(buffers):\n"
        "    p = len(buffers)\n"
        "    gathered = [(src, 0, np.copy(buffers[src])) for src in range(1, p)]\n"
        "    total = np.copy(buffers[0])\n"
        "    for _, _, data in gathered:\n"
        "        total += data\n"
        "    back = [(0, dst, np.copy(total)) for dst in range(p - 1, 0, -1)]\n"
        "    return [np.copy(total) for _ in range(p)], gathered + back\n",
    ],
    "ring_all_reduce": [
        # explicit chunk bounds, one array per worker, every step's messages collected first
        "def ring_all_reduce(buffers):\n"
        "    p = len(buffers)\n"
        "    work = [np.array(b, copy=True) for b in buffers]\n"
        "    n = len(work[0])\n"
        "    cuts = np.cumsum([0] + [n // p + (1 if i < n % p else 0) for i in range(p)])\n"
        "    messages = []\n"
        "    for s in range(2 * (p - 1)):\n"
        "        out = []\n"
        "        for r in range(p):\n"
        "            c = (r - s) % p if s < p - 1 else (r + 1 - (s - (p - 1))) % p\n"
        "            out.append((s, r, (r + 1) % p, c, work[r][cuts[c]:cuts[c + 1]].copy()))\n"
        "        for m in out:\n"
        "            _, _, dst, c, data = m\n"
        "            if s < p - 1:\n"
        "                work[dst][cuts[c]:cuts[c + 1]] += data\n"
        "            else:\n"
        "                work[dst][cuts[c]:cuts[c + 1]] = data\n"
        "        messages += out\n"
        "    return work, messages\n",
    ],
    "dp_worker": [
        # weights n_r, all-reduced as tensors in place, divided by N afterwards
        "def dp_worker(rank, world_size, model, x, y):\n"
        "    xs, ys = parallel.shard(x, rank, world_size), parallel.shard(y, rank, world_size)\n"
        "    params = list(model.parameters())\n"
        "    for p in params:\n"
        "        p.grad = torch.zeros_like(p)\n"
        "    if len(xs):\n"
        "        (F.cross_entropy(model(xs), ys) * len(xs)).backward()\n"
        "    for p in params:\n"
        "        parallel.all_reduce(p.grad)\n"
        "    return [p.grad.numpy() / len(x) for p in params]\n",
    ],
}

DESCRIPTION = (
    "data_parallel_grads averages the shard gradients with equal weights, which is exact only for "
    "equal shards (10 samples over 3 workers is not); ring_all_reduce passes whole buffers around "
    "the ring: every worker ends with the right sum, but after p (p - 1) messages of n numbers, not "
    "2 p (p - 1) chunks of n / p."
)

WRONG_ANSWERS = {
    "data_parallel_grads": MISTAKES["data_parallel_grads"][2]["code"],
    "ring_all_reduce": MISTAKES["ring_all_reduce"][3]["code"],
}
