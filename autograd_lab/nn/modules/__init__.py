"""The layers: each a :class:`Module` in a file named for what it holds."""

from .activation import (
    ELU,
    GELU,
    Hardtanh,
    LeakyReLU,
    LogSigmoid,
    LogSoftmax,
    Mish,
    PReLU,
    ReLU,
    ReLU6,
    Sigmoid,
    SiLU,
    Softmax,
    Softplus,
    Softsign,
    Tanh,
)
from .batchnorm import BatchNorm1d, BatchNorm2d
from .container import ModuleDict, ModuleList, ParameterList, Sequential
from .conv import Conv1d, Conv2d
from .dropout import Dropout
from .flatten import Flatten, Unflatten
from .linear import Identity, Linear
from .loss import (
    BCELoss,
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    HuberLoss,
    KLDivLoss,
    L1Loss,
    MSELoss,
    NLLLoss,
    SmoothL1Loss,
)
from .module import Module
from .normalization import LayerNorm
from .pooling import AdaptiveAvgPool2d, AvgPool1d, AvgPool2d, MaxPool1d, MaxPool2d
from .sparse import Embedding

__all__ = [
    "AdaptiveAvgPool2d", "AvgPool1d", "AvgPool2d", "BCELoss", "BCEWithLogitsLoss", "BatchNorm1d",
    "BatchNorm2d", "Conv1d", "Conv2d", "CrossEntropyLoss", "Dropout", "ELU", "Embedding", "Flatten",
    "GELU", "Hardtanh", "HuberLoss", "Identity", "KLDivLoss", "L1Loss", "LayerNorm", "LeakyReLU",
    "Linear", "LogSoftmax", "MSELoss", "MaxPool1d", "MaxPool2d", "Mish", "Module", "ModuleDict",
    "ModuleList", "NLLLoss", "PReLU", "ParameterList", "ReLU", "ReLU6", "Sequential", "SiLU", "Sigmoid",
    "SmoothL1Loss", "Softmax", "LogSigmoid", "Softplus", "Softsign", "Tanh", "Unflatten",
]
