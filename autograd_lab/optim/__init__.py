"""Optimizers: update parameters from their gradients (``torch.optim``), one algorithm per file, and
learning-rate schedulers. :class:`Optimizer` holds the loop over the parameters every algorithm shares."""

from . import lr_scheduler
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam
from .adamax import Adamax
from .adamw import AdamW
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "NAdam", "RAdam", "Adamax", "Optimizer",
           "lr_scheduler"]
