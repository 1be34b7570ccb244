"""Indexing with index tensors: gather, scatter, index_select, masked_select, take, index_add."""

from __future__ import annotations
