"""Fixtures the test files share."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def torch():
    """PyTorch, the optional oracle (the test skips without it), on one thread: small ops run faster."""
    module = pytest.importorskip("torch")
    module.set_num_threads(1)
    return module
