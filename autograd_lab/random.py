"""Random numbers as PyTorch's CPU generator makes them: the same seed gives the same numbers.

PyTorch's CPU generator is a Mersenne Twister (mt19937) seeded with the low 32 bits of the seed;
NumPy has the same engine (``np.random.MT19937``), so ``Generator`` runs it and turns its 32-bit
outputs into numbers exactly as PyTorch's kernels do:

- ``rand``/``uniform_`` (float32): the low 24 bits of one output, times 2**-24, then
  ``x * (to - from) + from`` as one fused multiply-add; float64: 53 bits of two outputs.
- ``randn``/``normal_``: 16 or more contiguous values are made 16 at a time by Box–Muller from 16
  uniforms (the last 16 again when the size is not a multiple of 16); fewer, one at a time by
  Box–Muller on two float64 uniforms, keeping the second value for the next call.
- ``randint``: an output modulo the range (64 bits when the range needs them); ``randperm``: a
  Fisher–Yates shuffle; ``bernoulli``: a uniform below p.

Bit-identical to PyTorch 2.13 for these, with two exceptions that differ in the last bit or two:
float32 ``randn`` of 16 or more values (PyTorch uses AVX2 approximations of log, sin and cos there)
and float64 ``uniform_`` with bounds other than [0, 1) (one value in a thousand; a fused
multiply-add cannot be rounded exactly in float64 arithmetic).
"""

from __future__ import annotations

import math
import secrets
from typing import Any

import numpy as np

_U64 = np.uint64


def _mt19937(seed: int) -> np.random.MT19937:
    """NumPy's Mersenne Twister in the state ``std::mt19937(seed)`` starts from (init_genrand)."""
    key = np.empty(624, dtype=np.uint32)
    s = seed & 0xFFFFFFFF
    key[0] = s
    for i in range(1, 624):
        s = (1812433253 * (s ^ (s >> 30)) + i) & 0xFFFFFFFF
        key[i] = s
    engine = np.random.MT19937()
    engine.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": 624}}
    return engine


class Generator:
    """A source of random numbers with its own state (``torch.Generator``)."""

    def __init__(self, device: Any = "cpu") -> None:
        self.manual_seed(67280421310721)  # PyTorch's default seed for a new Generator

    # ------------------------------------------------------------------ state
    def manual_seed(self, seed: int) -> Generator:
        if isinstance(seed, float) or not isinstance(seed, (int, np.integer)):
            raise TypeError(f"manual_seed expected a long, but got {type(seed).__name__}")
        seed = int(seed)
        if not -0x8000_0000_0000_0000 <= seed <= 0xFFFF_FFFF_FFFF_FFFF:
            raise RuntimeError(f"Overflow when unpacking long long: {seed}")
        self._seed = seed & 0xFFFF_FFFF_FFFF_FFFF
        self._engine = _mt19937(self._seed)
        self._next_normal: float | None = None  # the second value of the last Box-Muller pair
        return self

    def initial_seed(self) -> int:
        return self._seed

    def seed(self) -> int:
        """Seed from the operating system's entropy; returns the seed."""
        self.manual_seed(secrets.randbits(64))
        return self._seed

    def get_state(self) -> dict:
        return {"engine": self._engine.state, "next_normal": self._next_normal, "seed": self._seed}

    def set_state(self, state: dict) -> Generator:
        if not isinstance(state, dict) or "engine" not in state:
            raise RuntimeError("set_state expects a state from get_state() or get_rng_state()")
        engine = np.random.MT19937()
        engine.state = state["engine"]
        self._engine, self._next_normal, self._seed = engine, state["next_normal"], state["seed"]
        return self

    # ------------------------------------------------------------------ raw outputs
    def _random(self, n: int) -> np.ndarray:
        """``n`` 32-bit outputs (PyTorch's ``random()``), as uint64."""
        return self._engine.random_raw(n).astype(_U64)

    def _random64(self, n: int) -> np.ndarray:
        """``n`` 64-bit numbers, each from two outputs, the first the high half (``random64()``)."""
        pairs = self._random(2 * n)
        return (pairs[0::2] << _U64(32)) | pairs[1::2]

    # ------------------------------------------------------------------ distributions
    def uniform(self, n: int, low: float = 0.0, high: float = 1.0, dtype: Any = np.float32) -> np.ndarray:
        """``n`` samples of U(low, high) in ``dtype`` (PyTorch's ``uniform_real_distribution``)."""
        dtype = np.dtype(dtype)
        if dtype == np.float64:
            x = (self._random64(n) & _U64((1 << 53) - 1)).astype(np.float64) * 2.0**-53
            if low == 0.0 and high == 1.0:
                return x
            wide = x.astype(np.longdouble) * np.longdouble(high - low) + np.longdouble(low)
            return wide.astype(np.float64)
        x = (self._random(n) & _U64(0xFFFFFF)).astype(np.float32) * np.float32(2.0**-24)
        lo, hi = np.float32(low), np.float32(high)
        # x * (hi - lo) + lo, rounded once (a fused multiply-add): exact in float64, then rounded
        out = x.astype(np.float64) * np.float64(hi - lo) + np.float64(lo)
        return out.astype(np.float32).astype(dtype, copy=False)

    def normal(self, n: int, mean: float = 0.0, std: float = 1.0, dtype: Any = np.float32,
               contiguous: bool = True) -> np.ndarray:
        """``n`` samples of N(mean, std²) in ``dtype``, by PyTorch's two paths (see the module)."""
        dtype = np.dtype(dtype)
        if n >= 16 and contiguous:
            work = dtype if dtype in (np.float32, np.float64) else np.dtype(np.float32)
            data = self.uniform(n, 0.0, 1.0, work)
            out = np.empty(n, dtype=np.float64)
            whole = n - n % 16
            out[:whole] = _box_muller_16(data[:whole], mean, std, work)
            if n % 16:  # the last 16 again, from 16 new uniforms
                out[n - 16:] = _box_muller_16(self.uniform(16, 0.0, 1.0, work), mean, std, work)
            return out.astype(dtype)
        out = np.empty(n, dtype=np.float64)
        for i in range(n):
            if self._next_normal is not None:
                z, self._next_normal = self._next_normal, None
            else:
                u1, u2 = self.uniform(2, 0.0, 1.0, np.float64)
                radius = math.sqrt(-2.0 * math.log1p(-u2))
                theta = 2.0 * math.pi * u1
                self._next_normal = radius * math.sin(theta)
                z = radius * math.cos(theta)
            out[i] = z * std + mean
        return out.astype(dtype)

    def integers(self, low: int, high: int, n: int) -> np.ndarray:
        """``n`` integers in [low, high) as int64 (PyTorch's ``random_from_to``)."""
        span = high - low
        draws = self._random64(n) if span >= 1 << 32 else self._random(n)
        return (draws % _U64(span)).astype(np.int64) + np.int64(low)

    def random_int64(self) -> int:
        """``torch.empty((), dtype=torch.int64).random_()``: one number in [0, 2**63)."""
        return int(self._random64(1)[0] % _U64(1 << 63))

    def permutation(self, n: int) -> np.ndarray:
        """``randperm(n)``: a Fisher–Yates shuffle of 0..n-1, swapping i with i + random() % (n - i)."""
        out = np.arange(n, dtype=np.int64)
        if n < 2:
            return out
        draws = (self._random(n - 1) % np.arange(n, 1, -1, dtype=_U64)).astype(np.int64)
        perm = out.tolist()
        for i, k in enumerate(draws.tolist()):
            j = i + k
            perm[i], perm[j] = perm[j], perm[i]
        return np.array(perm, dtype=np.int64)

    def bernoulli(self, p: np.ndarray | float, shape: tuple[int, ...] | None = None) -> np.ndarray:
        """True with probability ``p``: a uniform below p, float32 uniforms for a float32 tensor of
        probabilities, float64 for a float64 tensor or a number (PyTorch's ``bernoulli_``)."""
        if isinstance(p, np.ndarray):
            work = np.float64 if p.dtype == np.float64 else np.float32
            return self.uniform(p.size, 0.0, 1.0, work).reshape(p.shape) < p
        return self.uniform(int(np.prod(shape)), 0.0, 1.0, np.float64).reshape(shape) < p


def _box_muller_16(data: np.ndarray, mean: float, std: float, dtype: np.dtype) -> np.ndarray:
    """Normal samples from uniforms, 16 at a time: ``u1 = 1 - data[j]``, ``u2 = data[j + 8]`` give
    ``data[j]`` (cos) and ``data[j + 8]`` (sin), as PyTorch's ``normal_fill_16``."""
    blocks = data.reshape(-1, 16)
    if dtype == np.float32:  # single-precision arithmetic, as PyTorch's AVX2 kernel
        u1, u2 = np.float32(1) - blocks[:, :8], blocks[:, 8:]
        radius = np.sqrt(np.float32(-2) * np.log(u1))
        theta = np.float32(2 * math.pi) * u2
        pair = (radius * np.cos(theta), radius * np.sin(theta))
    else:  # the C library's log, sin and cos (Python's math), as PyTorch's scalar kernel: NumPy's
        # vectorised ones differ in the last bit now and then
        u1, u2 = 1.0 - blocks[:, :8], blocks[:, 8:]
        radius = np.sqrt(-2.0 * _each(math.log, u1))
        theta = 2.0 * math.pi * u2
        pair = (radius * _each(math.cos, theta), radius * _each(math.sin, theta))
    return np.concatenate([p.astype(np.float64) * std + mean for p in pair], axis=1).reshape(-1)


def _each(fn: Any, a: np.ndarray) -> np.ndarray:
    return np.fromiter(map(fn, a.ravel().tolist()), dtype=np.float64, count=a.size).reshape(a.shape)


default_generator = Generator()
default_generator.seed()  # as PyTorch: a new process starts from a random seed


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


def _generator(generator: Generator | None) -> Generator:
    if generator is None:
        return default_generator
    if not isinstance(generator, Generator):
        raise TypeError(f"generator must be a Generator, not {type(generator).__name__}")
    return generator
