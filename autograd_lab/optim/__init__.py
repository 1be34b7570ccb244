"""Optimizers: update parameters from their gradients (``torch.optim``), and learning-rate schedulers."""

from . import lr_scheduler
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .nadam import Adamax, NAdam, RAdam
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "NAdam", "RAdam", "Adamax", "Optimizer",
           "lr_scheduler"]
