"""Automatic differentiation: backward, grad, custom Functions, checks (``torch.autograd``)."""

from ..engine import backward, grad
from ..function import (
    AccumulateGrad,
    BackwardNode,
    Function,
    FunctionCtx,
    Node,
    detect_anomaly,
    set_detect_anomaly,
)
from ..grad_mode import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from . import functional, graph
from .gradcheck import GradcheckError, gradcheck, gradgradcheck

__all__ = [
    "AccumulateGrad", "BackwardNode", "Function", "FunctionCtx", "GradcheckError", "Node",
    "backward", "detect_anomaly", "enable_grad", "functional", "grad", "gradcheck", "gradgradcheck",
    "graph", "inference_mode", "is_grad_enabled", "no_grad", "set_detect_anomaly",
    "set_grad_enabled",
]
