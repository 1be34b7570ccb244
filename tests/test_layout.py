"""The package's layout: the core reads on its own, and the parts depend on each other one way.

These tests read the source (imports, names, sizes); what the code does is tested elsewhere.
"""

from __future__ import annotations

import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "autograd_lab"


def test_viz_reads_the_graph_through_public_attributes():
    """viz reads a graph as torchviz reads PyTorch's: grad_fn, next_functions, variable, saved_items(),
    grad; never a private attribute of a node or a tensor (``._data``, ``._grad``, ``._retained``)."""
    for name in ("graph.py", "dot.py", "__init__.py"):
        source = (PACKAGE / "viz" / name).read_text()
        private = sorted(set(re.findall(r"\b(?:t|node|n|var|g|v|fn|nxt)\.(_[a-z]\w*)", source)))
        assert private == [], f"viz/{name} reads private attributes: {private}"
