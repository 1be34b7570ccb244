"""Drawing a graph of about 500 nodes with ``autograd_lab.viz.draw``: building the DOT text, and
rendering it to SVG with Graphviz's ``dot`` (what JupyterLab shows), against a forward + backward
pass over the same graph for scale.

The graph: 71 layers of ``h = tanh(h * w + b)`` on 4-vectors, each layer with its own leaves ``w``
and ``b``: 7 drawn nodes per layer (3 ``grad_fn`` nodes, 2 leaves, 2 ``AccumulateGrad``), about 500 in
all. Drawn whole (``max_nodes=None``), without the legend.
"""

from __future__ import annotations

import re
import shutil

from . import Row, best_time, fmt_seconds

LAYERS = 71
# a node statement of the DOT text: `id [attributes]` (an edge is `a -> b [...]`)
_NODE = re.compile(r"^\s*(?!(?:node|edge|graph)\b)\"?[\w.]+\"?\s+\[", re.M)


def _graph():  # the output of a fresh graph (a backward frees it, so each round makes a new one)
    import autograd_lab as torch

    torch.manual_seed(0)
    h = torch.randn(4)
    for _ in range(LAYERS):
        w = torch.randn(4, requires_grad=True)
        b = torch.randn(4, requires_grad=True)
        h = (h * w + b).tanh()
    return h.sum()


def run() -> list[Row]:
    try:
        from autograd_lab import viz

        viz.draw(_graph(), max_nodes=None, legend=False, names_from_caller=False)
    except ImportError as e:
        return [Row("Drawing a 500-node graph", "DOT text and SVG", f"skipped: {e}")]
    out = _graph()

    def dot_text() -> str:
        return viz.draw(out, max_nodes=None, legend=False, names_from_caller=False).source

    source = dot_text()
    nodes = len(_NODE.findall(source))
    name = f"Drawing a graph of {nodes} nodes (viz.draw, max_nodes=None)"
    dot_s = best_time(dot_text, repeat=3)
    backward_s = best_time(lambda: _graph().backward(), repeat=3)
    rows = [Row(name, "DOT text vs forward + backward of the same graph",
                f"{fmt_seconds(dot_s)} ({fmt_seconds(dot_s / nodes)} per node) vs {fmt_seconds(backward_s)}: "
                f"{dot_s / backward_s:.1f}x")]
    if shutil.which("dot") is None:
        rows.append(Row(name, "SVG rendering (Graphviz dot)", "skipped: Graphviz `dot` is not installed"))
        return rows
    drawing = viz.draw(out, max_nodes=None, legend=False, names_from_caller=False)
    svg_s = best_time(lambda: drawing.pipe(format="svg"), repeat=3, number=1)
    rows.append(Row(name, "SVG rendering (Graphviz dot) vs DOT text",
                    f"{fmt_seconds(svg_s)} vs {fmt_seconds(dot_s)}: {svg_s / dot_s:.1f}x"))
    return rows
