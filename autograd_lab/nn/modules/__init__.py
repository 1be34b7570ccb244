"""The layers: each a :class:`Module` in a file named for what it holds."""

from .activation import LogSoftmax, ReLU, Sigmoid, Softmax, Tanh
from .batchnorm import BatchNorm1d, BatchNorm2d
from .container import ModuleDict, ModuleList, Sequential
from .dropout import Dropout
from .flatten import Flatten
from .linear import Identity, Linear
from .loss import CrossEntropyLoss, L1Loss, MSELoss, NLLLoss
from .module import Module

__all__ = [
    "BatchNorm1d", "BatchNorm2d", "CrossEntropyLoss", "Dropout", "Flatten", "Identity", "L1Loss", "Linear",
    "LogSoftmax", "MSELoss", "Module", "ModuleDict", "ModuleList", "NLLLoss", "ReLU", "Sequential",
    "Sigmoid", "Softmax", "Tanh",
]
