"""Seeded random programs from the grammar in tests/program_grammar.py, run in autograd_lab and in PyTorch:
every step must show the same exception, warnings, values, dtypes, graphs, saved tensors, versions and
gradients. A failure prints the program shrunk to a few lines of Python, with what each library gave.

The catalogue of all the differences of many programs: ``python -m tests.program_grammar --report``.
"""

from __future__ import annotations

import pytest
from program_grammar import check, check_all, describe, generate, shrink

pytest.importorskip("torch")

# 64 chunks of 40 programs: 2,560 programs, ~20 s on one core when all pass (a failing chunk stops at
# its first mismatch and shrinks it, ~1 s).
CHUNKS, PER_CHUNK = 64, 40


# Strict xfail while the catalogue's open kinds (issue 16: /work/notes/diff_final.md) are neither fixed
# nor in KNOWN_DIFFERENCES: every chunk still shows one; a chunk that passes fails the run (remove this).
@pytest.mark.torch
@pytest.mark.xfail(strict=True, reason="open mismatch kinds of the catalogue (issue 16)")
@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_random_programs_match_pytorch(chunk):
    for seed in range(chunk * PER_CHUNK, (chunk + 1) * PER_CHUNK):
        prog = generate(seed)
        m = check(prog)
        if m is not None:
            small = shrink(prog, m.kind, budget=100)
            found = next((x for x in check_all(small) if x.kind == m.kind), m)
            pytest.fail(
                f"seed {seed}, shrunk from {len(prog.steps)} to {len(small.steps)} steps: "
                + describe(small, found),
                pytrace=False,
            )
