"""Differentiable operations, by concept: each a ``Function`` (forward and backward side by side)
with its public function right below it.

============  ==================================================================================
arithmetic    ``+ - * /``, powers, remainders, ``lerp``, ``addcmul``
pointwise     ``exp``, ``log``, trigonometric and hyperbolic functions, ``erf``, rounding, ``atan2``
comparison    ``clamp``, ``maximum``, ``where``, ``masked_fill``; comparisons and logic (no gradient)
reduction     ``sum``, ``mean``, ``var``, ``max``, ``prod``, ``norm``, ``any``/``all``
sorting       ``sort``, ``topk``, ``median``, ``unique``
scan          ``cumsum``, ``cumprod``, ``logcumsumexp``, ``diff``
logarithmic   ``softmax``, ``log_softmax``, ``logsumexp``
view          ``reshape``, ``expand``, ``transpose``, ``squeeze``, ``diagonal``: views share memory
shape         ``cat``, ``stack``, ``split``, ``flip``, ``roll``, ``repeat``, ``tril``, ``diag``
indexing      ``x[key]``, ``x[key] = v``, ``gather``, ``scatter``, ``index_select``, ``masked_select``
linalg        ``matmul``, ``mm``, ``addmm``, ``outer``, ``kron``, ``einsum``
copies        ``to``, ``clone``, ``contiguous``, ``fill_``, ``copy_``
inplace       in-place changes, with PyTorch's rules on leaves, views and versions
scalar        a tensor and a number as PyTorch's derivative formulas record them (``MulBackward1``)
promotion     the dtype of a result, and the argument checks every op shares
methods       the ``Tensor`` methods that hand off to these ops: one table
============  ==================================================================================
"""

from . import (
    arithmetic,
    comparison,
    copies,
    indexing,
    inplace,
    linalg,
    logarithmic,
    pointwise,
    promotion,
    reduction,
    scalar,
    scan,
    shape,
    sorting,
    view,
)
