"""Neural-network functions: layers, activations, losses, convolution and pooling as plain functions
(``torch.nn.functional``), by kind:

=================  ==========================================================================
``linear``         ``linear``
``activation``     ``relu``, ``sigmoid``, ``softmax``, ``gelu``, ``leaky_relu``, ``elu``, ``prelu``, ...
``dropout``        ``dropout``
``normalization``  ``batch_norm``, ``layer_norm``, ``normalize``
``loss``           ``mse_loss``, ``cross_entropy``, ``nll_loss``, ``binary_cross_entropy``, ``kl_div``, ...
``sparse``         ``one_hot``, ``embedding``
``distance``       ``cosine_similarity``
``padding``        ``pad``
``conv``           ``conv1d``, ``conv2d``
``pooling``        ``max_pool1d/2d``, ``avg_pool1d/2d``, ``adaptive_avg_pool2d``
=================  ==========================================================================

An operation PyTorch records as one node of its own is one :class:`~autograd_lab.autograd.Function`
here, with the same node name, so that a drawn graph looks like PyTorch's; every backward is written
with tensor operations, so ``create_graph=True`` works through all of them.
"""

from .activation import (
    elu,
    elu_,
    gelu,
    hardtanh,
    hardtanh_,
    leaky_relu,
    leaky_relu_,
    log_softmax,
    logsigmoid,
    mish,
    prelu,
    relu,
    relu6,
    relu_,
    sigmoid,
    silu,
    softmax,
    softplus,
    softsign,
    tanh,
)
from .conv import conv1d, conv2d
from .distance import cosine_similarity
from .dropout import dropout
from .linear import linear
from .loss import (
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    cross_entropy,
    huber_loss,
    kl_div,
    l1_loss,
    mse_loss,
    nll_loss,
    smooth_l1_loss,
)
from .normalization import batch_norm, layer_norm, normalize
from .padding import pad
from .pooling import adaptive_avg_pool2d, avg_pool1d, avg_pool2d, max_pool1d, max_pool2d
from .sparse import embedding, one_hot

__all__ = [
    "adaptive_avg_pool2d", "avg_pool1d", "avg_pool2d", "batch_norm", "binary_cross_entropy",
    "binary_cross_entropy_with_logits", "conv1d", "conv2d", "cosine_similarity", "cross_entropy", "dropout",
    "elu", "elu_", "embedding", "gelu", "hardtanh", "hardtanh_", "huber_loss", "kl_div", "l1_loss",
    "layer_norm", "leaky_relu", "leaky_relu_", "linear", "log_softmax", "logsigmoid", "max_pool1d",
    "max_pool2d", "mish", "mse_loss", "nll_loss", "normalize", "one_hot", "pad", "prelu", "relu", "relu6",
    "relu_", "sigmoid", "silu", "smooth_l1_loss", "softmax", "softplus", "softsign", "tanh",
]
