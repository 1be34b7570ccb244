"""``torch.utils.data``'s names, re-exported from :mod:`autograd_lab.data`."""

from ..data import (
    BatchSampler,
    ConcatDataset,
    DataLoader,
    Dataset,
    RandomSampler,
    Sampler,
    SequentialSampler,
    Subset,
    TensorDataset,
    default_collate,
    default_convert,
    random_split,
)

__all__ = [
    "BatchSampler", "ConcatDataset", "DataLoader", "Dataset", "RandomSampler", "Sampler", "SequentialSampler",
    "Subset", "TensorDataset", "default_collate", "default_convert", "random_split",
]
