"""Run a notebook's code cells in one IPython shell, for many variants of it at once.

``python tests/notebook_runner.py SPEC.json`` reads::

    {"cells": ["source of code cell 0", ...],
     "variants": {"name": {"3": "another source for cell 3", ...}, ...},
     "timeout": 60}

and writes to standard output one JSON object ``{name: {"outputs": [[output, ...] per cell],
"died": reason or null}}``, the outputs as a kernel reports them (``stream``, ``execute_result``,
``error`` dicts of the notebook format). The unchanged cells are variant ``""``.

It runs the cells in order, once. Before a cell that a variant changes, it forks: the child
takes the variant's sources from there to the end, so the cells before it run once for all
variants, and each variant starts from the state a fresh kernel would have there. A child that
dies (``os._exit``, a crash) or stops answering is reported as ``died``. Cells run like a
Jupyter kernel runs them (IPython's ``run_cell``, history stored, standard output and error
captured per cell), each with a time limit.

Standard library and IPython only, so that the cells meet a fresh interpreter.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import select
import signal
import sys
import time
from typing import Any


class CellTimeout(KeyboardInterrupt):
    """A cell ran past its time limit (a kernel gets an interrupt then, too)."""


def _on_alarm(signum: int, frame: Any) -> None:
    raise CellTimeout("the cell ran past its time limit")


class Shell:
    """An IPython shell that returns each cell's outputs as a kernel would send them."""

    def __init__(self) -> None:
        from IPython.core.interactiveshell import InteractiveShell
        from traitlets.config import Config

        cfg = Config()
        cfg.HistoryManager.hist_file = ":memory:"
        cfg.InteractiveShell.colors = "NoColor"
        self.shell = InteractiveShell.instance(config=cfg)
        self.shell._showtraceback = lambda *a, **k: None  # the error is reported as an output

    def run(self, source: str, timeout: float) -> list[dict]:
        out, err = io.StringIO(), io.StringIO()
        signal.signal(signal.SIGALRM, _on_alarm)
        signal.setitimer(signal.ITIMER_REAL, timeout)
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                result = self.shell.run_cell(source, store_history=True)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        outputs = [{"output_type": "stream", "name": name, "text": buf.getvalue()}
                   for name, buf in (("stdout", out), ("stderr", err)) if buf.getvalue()]
        error = result.error_before_exec or result.error_in_exec
        if error is None and result.result is not None:
            data, _ = self.shell.display_formatter.format(result.result)
            outputs.append({"output_type": "execute_result", "data": data, "metadata": {},
                            "execution_count": result.execution_count})
        if error is not None:
            outputs.append({"output_type": "error", "ename": type(error).__name__,
                            "evalue": str(error)[:4000], "traceback": []})
        return outputs


def _child(shell: Shell, cells: list[str], start: int, timeout: float, fd: int) -> None:
    """Run cells[start:] and write their outputs to `fd` as JSON lines (one per cell)."""
    with os.fdopen(fd, "w") as pipe:
        for source in cells[start:]:
            pipe.write(json.dumps(shell.run(source, timeout)) + "\n")
            pipe.flush()


def _fork_variant(shell: Shell, cells: list[str], start: int, timeout: float,
                  wall_clock: float) -> tuple[list[list[dict]], str | None]:
    """Run cells[start:] in a forked child; return their outputs and why it died (or None)."""
    read_fd, write_fd = os.pipe()
    sys.stdout.flush()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - child
        os.close(read_fd)
        code = 0
        try:
            _child(shell, cells, start, timeout, write_fd)
        except BaseException:
            code = 3
        os._exit(code)
    os.close(write_fd)
    chunks, deadline = [], time.monotonic() + wall_clock
    died = None
    with os.fdopen(read_fd, "rb") as pipe:
        while True:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([pipe], [], [], max(left, 0))
            if not ready:
                os.kill(pid, signal.SIGKILL)
                died = "stopped answering (killed after the time limit)"
                break
            chunk = os.read(pipe.fileno(), 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
    _, status = os.waitpid(pid, 0)
    outputs = [json.loads(line) for line in b"".join(chunks).decode().splitlines() if line]
    if died is None and (len(outputs) < len(cells) - start or status != 0):
        died = f"the process died (wait status {status})"
    return outputs, died


def run(cells: list[str], variants: dict[str, dict[int, str]], timeout: float) -> dict:
    """Outputs of every variant's cells (see the module docstring)."""
    shell = Shell()
    starts: dict[int, list[str]] = {}
    sources = {}
    for name, changes in variants.items():
        changed = {i: s for i, s in changes.items() if s != cells[i]}
        full = [changed.get(i, s) for i, s in enumerate(cells)]
        sources[name] = full
        starts.setdefault(min(changed) if changed else len(cells), []).append(name)
    results: dict[str, Any] = {}
    done: list[list[dict]] = []
    wall_clock = timeout * (len(cells) + 4)
    for i in range(len(cells) + 1):
        for name in starts.get(i, []):
            if i == len(cells):
                continue  # the same as the unchanged cells
            outputs, died = _fork_variant(shell, sources[name], i, timeout, wall_clock)
            results[name] = {"outputs": done + outputs, "died": died}
        if i < len(cells):
            done.append(shell.run(cells[i], timeout))
    results[""] = {"outputs": done, "died": None}
    for name in starts.get(len(cells), []):
        results[name] = results[""]
    return results


def main() -> None:
    with open(sys.argv[1]) as f:
        spec = json.load(f)
    variants = {name: {int(i): s for i, s in changes.items()}
                for name, changes in spec.get("variants", {}).items()}
    results = run(spec["cells"], variants, float(spec.get("timeout", 60)))
    real_stdout = sys.__stdout__
    real_stdout.write(json.dumps(results))
    real_stdout.flush()


if __name__ == "__main__":
    main()
