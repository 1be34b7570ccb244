"""PyTorch's ``torch.utils`` path: ``autograd_lab.utils.data`` is :mod:`autograd_lab.data`;
``autograd_lab.utils.checkpoint`` is activation checkpointing (recompute in backward)."""

from . import checkpoint, data
