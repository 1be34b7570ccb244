"""Data: data sets, batching loaders, and the digits data set (``torch.utils.data`` + a bundled data set).

Also reachable as ``autograd_lab.utils.data``, PyTorch's path.
"""

from .dataloader import (
    BatchSampler,
    DataLoader,
    RandomSampler,
    Sampler,
    SequentialSampler,
    default_collate,
    default_convert,
)
from .dataset import ConcatDataset, Dataset, Subset, TensorDataset, random_split
from .digits import load_digits

__all__ = [
    "BatchSampler", "ConcatDataset", "DataLoader", "Dataset", "RandomSampler", "Sampler", "SequentialSampler",
    "Subset", "TensorDataset", "default_collate", "default_convert", "load_digits", "random_split",
]
