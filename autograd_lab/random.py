"""Random numbers: a global generator seeded by ``manual_seed``, and ``Generator`` objects.

The streams are NumPy's (PCG64), so the numbers differ from PyTorch's for the same seed; what
carries over is the behaviour: the same seed gives the same numbers.
"""

from __future__ import annotations

from typing import Any

import numpy as np

_DEFAULT_SEED = 67280421310721  # PyTorch's initial seed


class Generator:
    """A source of random numbers with its own state (``torch.Generator``)."""

    def __init__(self, device: Any = "cpu") -> None:
        self._seed = _DEFAULT_SEED
        self._rng = np.random.Generator(np.random.PCG64(self._seed))

    def manual_seed(self, seed: int) -> Generator:
        self._seed = int(seed)
        self._rng = np.random.Generator(np.random.PCG64(self._seed))
        return self

    def initial_seed(self) -> int:
        return self._seed

    def seed(self) -> int:
        self.manual_seed(int(np.random.SeedSequence().entropy) % (1 << 63))
        return self._seed

    def get_state(self) -> dict:
        return self._rng.bit_generator.state

    def set_state(self, state: dict) -> Generator:
        self._rng.bit_generator.state = state
        return self


default_generator = Generator()


def manual_seed(seed: int) -> Generator:
    """Seed the global generator; returns it (``torch.manual_seed``)."""
    return default_generator.manual_seed(seed)


def initial_seed() -> int:
    return default_generator.initial_seed()


def seed() -> int:
    return default_generator.seed()


def get_rng_state() -> dict:
    return default_generator.get_state()


def set_rng_state(state: dict) -> None:
    default_generator.set_state(state)


def _generator(generator: Generator | None) -> np.random.Generator:
    if generator is None:
        return default_generator._rng
    if not isinstance(generator, Generator):
        raise TypeError(f"generator must be a Generator, not {type(generator).__name__}")
    return generator._rng
