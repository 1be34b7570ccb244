"""The course's matplotlib pictures, kept out of the notebooks so that their cells show the ideas.

Each function draws one figure and shows it (``plt.show()``); none computes anything a notebook
teaches: the numbers come from the notebook (a measured time, a path of an optimizer) or are the
picture's own layout. Needs matplotlib (the ``course`` extra), which this module imports;
``autograd_lab.viz`` does not import it.

- :func:`parallelism_overview`: data, model and pipeline parallelism side by side (notebook 10);
- :func:`ring_picture`: which workers' data each chunk holds at each step of a ring all-reduce (10);
- :func:`speedup`: a measured data-parallel speed-up beside the ideal line and a recorded figure (10),
  with :func:`recorded_speedup` reading that figure from ``benchmarks/RESULTS.md``;
- :func:`descent_paths`: paths of optimizers drawn on the contour lines of a function of two
  parameters (notebook 06).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "RESULTS.md"


# ---------------------------------------------------------------- notebook 10: parallelism

def _box(ax: plt.Axes, x: float, y: float, w: float, h: float, text: str, color: str) -> None:
    ax.add_patch(plt.Rectangle((x, y), w, h, facecolor=color, edgecolor="black"))
    ax.text(x + w / 2, y + h / 2, text, ha="center", va="center", fontsize=9)


def _arrow(ax: plt.Axes, x0: float, y0: float, x1: float, y1: float) -> None:
    ax.annotate("", (x1, y1), (x0, y0), arrowprops=dict(arrowstyle="->"))


def parallelism_overview() -> None:
    """Three panels: data parallelism (replicas, shards, all-reduce), model parallelism (the columns
    of one weight on two workers), pipeline parallelism (micro-batches flowing through stages)."""
    fig, axes = plt.subplots(1, 3, figsize=(14, 3.8))
    ax = axes[0]
    ax.set_title("data parallelism")
    for i, top in enumerate((6.0, 1.5)):
        _box(ax, 0.1, top, 2.4, 2.2, f"batch\nshard {i}", "#fde0c5")
        _box(ax, 3.3, top, 2.8, 2.2, f"whole model\n(replica {i})", "#c6dbef")
        _arrow(ax, 2.5, top + 1.1, 3.3, top + 1.1)
        _arrow(ax, 6.1, top + 1.1, 7.1, 5.0)
    _box(ax, 7.1, 3.8, 2.8, 2.4, "all-reduce\nthe gradients", "#c7e9c0")

    ax = axes[1]
    ax.set_title("model (tensor) parallelism: y = x @ W")
    _box(ax, 0.1, 3.9, 1.6, 2.2, "x", "#fde0c5")
    _box(ax, 2.8, 6.2, 3.2, 2.6, "worker 0\nx @ W[:, :k]", "#c6dbef")
    _box(ax, 2.8, 1.2, 3.2, 2.6, "worker 1\nx @ W[:, k:]", "#9ecae1")
    for top in (7.5, 2.5):
        _arrow(ax, 1.7, 5.0, 2.8, top)
        _arrow(ax, 6.0, top, 7.2, 5.0)
    _box(ax, 7.2, 3.9, 2.7, 2.2, "gather the\ncolumns: y", "#c7e9c0")

    ax = axes[2]
    stages, micro = 3, 4
    for s in range(stages):
        for m in range(micro):
            _box(ax, s + m, s, 1, 0.8, f"F{m}", "#c6dbef")  # forward of micro-batch m on stage s
            _box(ax, micro + stages - 1 + (stages - 1 - s) + m, s, 1, 0.8, f"B{m}", "#fdd0a2")
    ax.set_xlim(0, 2 * (micro + stages - 1))
    ax.set_ylim(stages, -0.2)
    ax.set_yticks([s + 0.4 for s in range(stages)], [f"stage {s}\n(worker {s})" for s in range(stages)])
    ax.set_xlabel("time (F: forward, B: backward of a micro-batch; white: idle)")
    ax.set_title("pipeline parallelism")
    for a in axes[:2]:
        a.set_xlim(0, 10)
        a.set_ylim(0, 10)
        a.axis("off")
    plt.tight_layout()
    plt.show()


def ring_states(p: int) -> list[tuple[str, list[list[set[int]]], list[tuple[int, int, int]]]]:
    """The ring all-reduce of ``p`` workers, tracked by *whose* data each chunk holds: a list of
    (label, have, sends) per step, ``have[r][c]`` the set of workers whose data worker ``r``'s chunk
    ``c`` holds, ``sends`` the (src, dst, chunk) messages of that step."""
    have = [[{r} for _ in range(p)] for r in range(p)]
    states = [("start", have, [])]
    for phase, first_chunk in (("reduce-scatter", lambda r, s: (r - s) % p),
                               ("all-gather", lambda r, s: (r + 1 - s) % p)):
        for s in range(p - 1):
            sends = [(r, (r + 1) % p, first_chunk(r, s)) for r in range(p)]
            new = [[set(c) for c in row] for row in have]
            for src, dst, c in sends:
                new[dst][c] = have[dst][c] | have[src][c] if phase == "reduce-scatter" else set(have[src][c])
            have = new
            states.append((f"{phase} step {s}", have, sends))
    return states


def ring_picture(p: int = 3) -> None:
    """One row per step of the ring all-reduce of ``p`` workers: each worker's ``p`` chunks, labelled
    with the workers whose data they hold (darker: more), the chunks just received outlined red."""
    states = ring_states(p)
    w = 1.6  # width of a chunk's box
    fig, ax = plt.subplots(figsize=(2.8 * p + 2, 0.75 * len(states) + 0.6))
    for i, (label, have, sends) in enumerate(states):
        ax.text(-0.3, -i + 0.4, label, ha="right", va="center", fontsize=9)
        received = {(dst, c) for _, dst, c in sends}
        for r in range(p):
            for c in range(p):
                x0 = (r * (p + 1) + c) * w
                full = len(have[r][c]) / p
                ax.add_patch(plt.Rectangle((x0, -i), 0.95 * w, 0.8, facecolor=plt.cm.Blues(0.1 + 0.7 * full),
                                           edgecolor="red" if (r, c) in received else "white", linewidth=2))
                ax.text(x0 + 0.47 * w, -i + 0.4, "+".join(map(str, sorted(have[r][c]))), ha="center",
                        va="center", fontsize=8, color="white" if full == 1 else "black")
    for r in range(p):
        ax.text((r * (p + 1) + p / 2) * w, 1.1, f"worker {r}: chunks 0..{p - 1}", ha="center", fontsize=9)
    ax.set_xlim(-5.5, p * (p + 1) * w)
    ax.set_ylim(-len(states) + 0.8, 2)
    ax.axis("off")
    plt.show()


@dataclass(frozen=True)
class Recorded:
    """A speed-up measured by ``python -m benchmarks`` on a quiet machine: one process against two."""

    one_ms: float
    two_ms: float
    speedup: float
    cores: int
    made: str  # the line that says where and when: "Made by `python -m benchmarks` on ..."


# The figure of benchmarks/RESULTS.md when this was written, for an installation without the repository.
RECORDED = Recorded(30.22, 17.54, 1.72, 2, "python -m benchmarks on 2026-12-03: Python 3.11.7, NumPy 2.4.6, "
                                          "x86_64, 2 cores")
_ROW = re.compile(r"^\| Data-parallel MLP .*step, batch \d+ \| 1 process vs 2 data-parallel processes[^|]*\| "
                  r"([\d.]+) ms vs ([\d.]+) ms: ([\d.]+)x speed-up on (\d+) cores", re.M)


def recorded_speedup(results: Path = RESULTS) -> Recorded:
    """The data-parallel speed-up (batch 4096, 1 vs 2 processes) recorded in ``benchmarks/RESULTS.md``,
    where the repository is at hand; else :data:`RECORDED`, the figure when this module was written."""
    try:
        text = results.read_text(encoding="utf-8")
    except OSError:
        return RECORDED
    match = _ROW.search(text)
    if match is None:
        return RECORDED
    made = re.search(r"^Made by `python -m benchmarks` on (.*?)\. Each", text, re.M)
    where = f"python -m benchmarks on {made[1]}" if made else "python -m benchmarks"
    return Recorded(float(match[1]), float(match[2]), float(match[3]), int(match[4]), where)


def speedup(workers: Sequence[int], seconds: dict[int, float], cores: int, load: float | None = None,
            recorded: Recorded | None = None) -> None:
    """The speed-up ``seconds[1] / seconds[w]`` measured here against the ideal line, beside the one
    recorded on a quiet machine; the title says what a speed-up below 1 means."""
    recorded = recorded or recorded_speedup()
    measured = [seconds[workers[0]] / seconds[w] for w in workers]
    fig, ax = plt.subplots(figsize=(5.5, 3.4))
    ax.plot(workers, workers, "--", color="gray", label="ideal")
    ax.plot(workers, measured, "o-", label=f"measured now ({cores} cores"
                                           + (f", load {load:.1f})" if load is not None else ")"))
    ax.plot([1, 2], [1.0, recorded.speedup], "s:", color="tab:green",
            label=f"recorded on a quiet machine: {recorded.speedup:.2f}x")
    ax.axhline(1.0, color="black", lw=0.6)
    ax.set_xticks(list(workers))
    ax.set_xlabel("workers (processes)")
    ax.set_ylabel("speed-up of one step")
    two = measured[list(workers).index(2)] if 2 in workers else None
    if two is not None and two < 1:
        ax.set_title("below 1: the workers waited for cores\nthat other programs were using", fontsize=10)
    ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    plt.show()


# ---------------------------------------------------------------- notebook 06: optimizers

def descent_paths(f: Callable[[np.ndarray], np.ndarray], paths: dict[str, np.ndarray],
                  xlim: tuple[float, float], ylim: tuple[float, float], levels: Sequence[float],
                  minimum: tuple[float, float], title: str = "", ax: plt.Axes | None = None) -> plt.Axes:
    """The contour lines of ``f`` (a function of a stacked (2, ...) array of the two parameters) and
    each path (an array (steps + 1, 2)) on them; its label gets the value of ``f`` where it ends.
    Draws into ``ax`` if given (and does not show), else into a new figure, which it shows."""
    own = ax is None
    if own:
        _, ax = plt.subplots(figsize=(6, 4.2))
    A, B = np.meshgrid(np.linspace(*xlim, 200), np.linspace(*ylim, 200))
    ax.contour(A, B, f(np.stack([A, B])), levels=levels, colors="lightgray", linewidths=0.8)
    for label, path in paths.items():
        ax.plot(*np.asarray(path).T, "o-", ms=2.5, lw=1, label=f"{label}: f = {f(np.asarray(path)[-1]):.3g}")
    start = np.asarray(next(iter(paths.values())))[0]
    ax.plot(*start, "ks")
    ax.plot(*minimum, "k*", ms=12)
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    ax.set_xlabel("a")
    ax.set_ylabel("b")
    ax.set_title(title + " (■ start, ★ minimum)", fontsize=10)
    ax.legend(loc="lower right", fontsize=8)
    if own:
        plt.show()
    return ax
