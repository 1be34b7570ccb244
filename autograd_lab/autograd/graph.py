"""The graph's node type (``torch.autograd.graph``)."""

from ..function import Node

__all__ = ["Node"]
