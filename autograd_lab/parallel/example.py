"""Data-parallel training of a small MLP: one script for the local backend and for ``torchrun``.

    python -m autograd_lab.parallel.example                      # 2 local worker processes
    python -m autograd_lab.parallel.example --world-size 4 --steps 50
    torchrun --nproc-per-node 2 -m autograd_lab.parallel.example # gloo: torchrun starts the ranks

Across machines, run on each (``--node-rank`` 0 on the one at ``HOST``, 1 on the other)::

    torchrun --nnodes 2 --node-rank 0 --master-addr HOST --master-port 29500 \\
             --nproc-per-node 2 -m autograd_lab.parallel.example

Every rank builds the same data and the same initial model from the same seeds, trains on its
shard of each batch, and combines the gradients: all replicas stay equal, which the script checks.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

import autograd_lab as torch
from autograd_lab import parallel


def make_data(n: int = 4096, features: int = 64, classes: int = 10,
              seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """``n`` samples of ``classes`` Gaussian clusters in ``features`` dimensions: (x float32, y int64)."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(0.0, 1.0, (classes, features))
    y = rng.integers(0, classes, n)
    x = centres[y] + rng.normal(0.0, 1.5, (n, features))
    return torch.from_numpy(x.astype(np.float32)), torch.from_numpy(y.astype(np.int64))


def init_mlp(sizes: tuple[int, ...] = (64, 256, 256, 10), seed: int = 0) -> list[torch.Tensor]:
    """Weights and biases ``[W1, b1, W2, b2, ...]`` of an MLP from ``seed``: He-initialised, the last
    layer scaled down so that the first loss is near ``log(classes)``."""
    rng = np.random.default_rng(seed)
    params = []
    for i, (fan_in, fan_out) in enumerate(zip(sizes[:-1], sizes[1:])):
        scale = np.sqrt(2.0 / fan_in) * (0.1 if i == len(sizes) - 2 else 1.0)
        w = rng.normal(0.0, scale, (fan_in, fan_out)).astype(np.float32)
        params += [torch.tensor(w, requires_grad=True), torch.zeros(fan_out, requires_grad=True)]
    return params


def mlp_loss(params: list[torch.Tensor], x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Mean cross-entropy of the MLP ``params`` (ReLU between the layers) on ``(x, y)``."""
    h = x
    for i in range(0, len(params), 2):
        h = h @ params[i] + params[i + 1]
        if i + 2 < len(params):
            h = h.relu()
    logp = h.log_softmax(dim=1)
    return -logp[torch.arange(len(y)), y].mean()


def train(rank: int, world_size: int, steps: int = 20, batch: int = 512, lr: float = 0.1) -> dict:
    """Train with every rank on its shard of each batch; return the losses and a checksum of the model."""
    x, y = make_data()
    params = init_mlp()
    dp = parallel.DataParallel(params)
    losses = []
    for step in range(steps):
        lo = (step * batch) % len(x)
        xb, yb = x[lo:lo + batch], y[lo:lo + batch]
        for p in params:
            p.grad = None
        losses.append(dp.forward_backward(lambda xs, ys: mlp_loss(params, xs, ys), xb, yb))
        with torch.no_grad():
            for p in params:
                p -= lr * p.grad
    checksum = float(sum(float(p.detach().double().sum().item()) for p in params))
    return {"rank": rank, "world_size": world_size, "losses": losses, "checksum": checksum}


def _report(result: dict, agree: bool) -> int:
    losses = result["losses"]
    print(f"world size {result['world_size']}: loss {losses[0]:.4f} -> {losses[-1]:.4f} "
          f"in {len(losses)} steps")
    print("replicas agree:", agree)
    return 0 if agree else 1


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m autograd_lab.parallel.example",
                                description=__doc__.split("\n")[0])
    p.add_argument("--world-size", type=int, default=2,
                   help="local worker processes (ignored under torchrun)")
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--batch", type=int, default=512)
    p.add_argument("--backend", choices=["local", "gloo"], default="local",
                   help="for local runs: which backend connects the workers")
    args = p.parse_args(argv)
    if "RANK" in os.environ and "WORLD_SIZE" in os.environ:  # started by torchrun: one process per rank
        parallel.init_process_group("gloo")
        result = train(parallel.get_rank(), parallel.get_world_size(), args.steps, args.batch)
        # the replicas agree if the smallest and the largest checksum over the ranks are equal
        lo, hi = np.array([result["checksum"]]), np.array([result["checksum"]])
        parallel.all_reduce(lo, "min")
        parallel.all_reduce(hi, "max")
        parallel.destroy_process_group()
        return _report(result, bool(lo[0] == hi[0])) if result["rank"] == 0 else 0
    results = parallel.launch(train, args.world_size, (args.steps, args.batch), backend=args.backend)
    return _report(results[0], len({r["checksum"] for r in results}) == 1)


if __name__ == "__main__":
    sys.exit(main())
