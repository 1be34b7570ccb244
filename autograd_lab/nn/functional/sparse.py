"""Sparse inputs: ``one_hot`` and ``embedding`` (``EmbeddingBackward0``; its rows looked up by index)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ... import dtypes
from ...dtypes import legacy_type_name as _legacy_type_name
from ...function import Function
from ...ops.indexing import index_select
from ...tensor import Tensor
from ._node import (
    _keep,
)


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """Class indices to one-hot rows of int64 (``torch.nn.functional.one_hot``)."""
    if tensor.dtype is not dtypes.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    idx = tensor._data
    if idx.size and idx.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        num_classes = int(idx.max()) + 1 if idx.size else 0
    elif idx.size and idx.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    return Tensor._make(np.eye(num_classes, dtype=np.int64)[idx])


# ---------------------------------------------------------------------------- embedding
class Embedding(Function):
    """Rows of ``weight`` picked by integer indices. The indices are no input of the node (one edge,
    to the weight, as PyTorch's); they come wrapped in a tuple and are saved as ``indices``."""

    node_name = "EmbeddingBackward0"
    saved_names = ("indices",)

    @staticmethod
    def forward(ctx: Any, weight: Tensor, boxed: tuple, padding_idx: int, scale_grad_by_freq: bool) -> Tensor:
        (indices,) = boxed
        ctx.save_for_backward(indices)
        ctx.num_weights, ctx.padding_idx, ctx.scale = weight._data.shape[0], padding_idx, scale_grad_by_freq
        _keep(ctx, padding_idx=padding_idx % 2**64, scale_grad_by_freq=scale_grad_by_freq, sparse=False,
              weight_sym_argsize_0=weight._data.shape[0])
        return Tensor._make(weight._data[indices._data])

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None, None]:
        (indices,) = ctx.saved_tensors
        return (EmbeddingDenseGrad.apply(grad, indices._data, ctx.num_weights, ctx.padding_idx, ctx.scale),
                None, None, None)


def _embedding_coefficients(idx: np.ndarray, num_weights: int, padding_idx: int,
                            scale: bool) -> np.ndarray:
    """What each looked-up row's gradient is multiplied by: 0 at padding_idx, 1/count if scaled."""
    flat = idx.reshape(-1)
    coef = (flat != padding_idx).astype(np.float64)
    if scale:
        coef = coef / np.bincount(flat, minlength=num_weights)[flat]
    return coef


class EmbeddingDenseGrad(Function):
    """Embedding's backward: each gradient row added into the row of ``weight`` it came from."""

    node_name = "EmbeddingDenseBackwardBackward0"

    @staticmethod
    def forward(ctx: Any, grad: Tensor, idx: np.ndarray, num_weights: int, padding_idx: int,
                scale: bool) -> Tensor:
        g = grad._data
        dim = g.shape[-1]
        coef = _embedding_coefficients(idx, num_weights, padding_idx, scale)
        rows = g.reshape(-1, dim) * coef[:, None].astype(g.dtype)
        out = np.zeros((num_weights, dim), dtype=g.dtype)
        np.add.at(out, idx.reshape(-1), rows)
        ctx.idx, ctx.padding_idx = idx, padding_idx
        return Tensor._make(out)

    @staticmethod
    def backward(ctx: Any, gg: Tensor) -> tuple[Tensor, None, None, None, None]:
        # PyTorch's embedding_dense_double_backward, step by step: the rows again (index_select), the
        # padding row's masked in place, viewed in the indices' shape; not rescaled (the first backward
        # did the scaling by frequency)
        idx = ctx.idx
        rows = index_select(gg, 0, Tensor._make(idx.reshape(-1).astype(np.int64)))
        if ctx.padding_idx >= 0:
            rows.masked_fill_(Tensor._make((idx == ctx.padding_idx).reshape(-1, 1)), 0)
        return rows.view(*idx.shape, -1), None, None, None, None


def _embedding_renorm(weight: Tensor, idx: np.ndarray, max_norm: float, norm_type: float) -> None:
    """Rows looked up whose norm exceeds ``max_norm`` are scaled down in place, outside the graph."""
    rows = np.unique(idx)
    data = weight._data[rows]
    if norm_type == math.inf:
        norms = np.abs(data).max(axis=1, initial=0)
    else:
        norms = (np.abs(data.astype(np.float64)) ** norm_type).sum(axis=1) ** (1.0 / norm_type)
    big = norms > max_norm
    if big.any():
        scale = (max_norm / (norms[big] + 1e-7)).astype(data.dtype)
        weight._data[rows[big]] = data[big] * scale[:, None]
        weight._version_counter.value += 1


def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None,
              max_norm: float | None = None, norm_type: float = 2.0, scale_grad_by_freq: bool = False,
              sparse: bool = False) -> Tensor:
    """Look up rows of ``weight`` by the indices in ``input`` (``EmbeddingBackward0``).

    No gradient reaches the row ``padding_idx``; ``max_norm`` renormalises the rows looked up, in
    place, as PyTorch does.
    """
    if padding_idx is not None:
        if padding_idx > 0:
            if not padding_idx < weight.shape[0]:
                raise AssertionError("Padding_idx must be within num_embeddings")
        elif padding_idx < 0:
            if not padding_idx >= -weight.shape[0]:
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = weight.shape[0] + padding_idx
    else:
        padding_idx = -1
    if sparse:
        raise NotImplementedError("autograd_lab has no sparse tensors: use sparse=False")
    if weight.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    if input.dtype.name not in ("int64", "int32"):
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, "
            f"Int; but got {_legacy_type_name(input.dtype)} instead (while checking arguments for embedding)"
        )
    idx = input._data
    if idx.size and (idx.min() < 0 or idx.max() >= weight.shape[0]):
        raise IndexError("index out of range in self")
    if max_norm is not None:
        _embedding_renorm(weight, idx, float(max_norm), float(norm_type))
    return Embedding.apply(weight, (input,), int(padding_idx), bool(scale_grad_by_freq))
