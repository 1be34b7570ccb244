"""A benchmark's child process: ``python -m benchmarks._child module:function JSON-kwargs OUT``.

Pins itself to one core before anything else is imported (threads started later by BLAS, PyTorch or
XLA inherit the pin), calls the function and writes its JSON result to OUT. Started by
:func:`benchmarks.in_child`, which also sets the thread-count variables before NumPy loads.
"""

from __future__ import annotations

import os
import sys

if hasattr(os, "sched_setaffinity"):
    os.sched_setaffinity(0, {max(os.sched_getaffinity(0))})

import importlib  # noqa: E402
import json  # noqa: E402


def main(target: str, kwargs: str, out: str) -> None:
    module, function = target.split(":")
    result = getattr(importlib.import_module(module), function)(**json.loads(kwargs))
    with open(out, "w") as f:
        json.dump(result, f)


if __name__ == "__main__":
    main(*sys.argv[1:])
