"""Neural networks: modules, parameters, losses, functions and initialisers (``torch.nn``).

Built on the core (tensors, ``Function``s and the engine); the core never imports this package.
"""

from . import functional, init, utils
from .modules import (
    BatchNorm1d,
    BatchNorm2d,
    CrossEntropyLoss,
    Dropout,
    Flatten,
    Identity,
    L1Loss,
    Linear,
    LogSoftmax,
    Module,
    ModuleDict,
    ModuleList,
    MSELoss,
    NLLLoss,
    ReLU,
    Sequential,
    Sigmoid,
    Softmax,
    Tanh,
)
from .parameter import Parameter

__all__ = [
    "BatchNorm1d", "BatchNorm2d", "CrossEntropyLoss", "Dropout", "Flatten", "Identity", "L1Loss", "Linear",
    "LogSoftmax", "MSELoss", "Module", "ModuleDict", "ModuleList", "NLLLoss", "Parameter", "ReLU",
    "Sequential", "Sigmoid", "Softmax", "Tanh", "functional", "init", "utils",
]
