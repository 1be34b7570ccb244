"""PyTorch's ``torch.utils`` path: ``autograd_lab.utils.data`` is :mod:`autograd_lab.data`."""

from . import data
