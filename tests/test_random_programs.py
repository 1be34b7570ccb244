"""Seeded random programs from the grammar in tests/program_grammar.py, run in autograd_lab and in PyTorch:
every step must show the same exception, warnings, values, dtypes, graphs, saved tensors, versions and
gradients. A failure prints the program shrunk to a few lines of Python, with what each library gave.

Kinds of mismatch still open (issue 16) are listed in tests/program_grammar_open.txt, and the ones the
project decides not to copy in ``KNOWN_DIFFERENCES``; any other kind fails, so a regression or a new
difference cannot pass. A listed kind that no longer occurs fails too, so the list only shrinks.

The catalogue of all the differences of many programs: ``python -m tests.program_grammar --report``.
"""

from __future__ import annotations

import pytest
from program_grammar import TEST_PROGRAMS, check_all, describe, generate, open_kinds, shrink

pytest.importorskip("torch")

CHUNKS = 16  # of 160 programs each: ~20 s in all on one core
PER_CHUNK = TEST_PROGRAMS // CHUNKS
_seen: dict[int, set[str]] = {}


@pytest.mark.torch
@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_random_programs_match_pytorch(chunk):
    allowed = open_kinds()
    kinds: set[str] = set()
    for seed in range(chunk * PER_CHUNK, (chunk + 1) * PER_CHUNK):
        prog = generate(seed)
        found = check_all(prog)
        kinds |= {m.kind for m in found}
        new = next((m for m in found if m.kind not in allowed), None)
        if new is not None:
            small = shrink(prog, new.kind, budget=100)
            shown = next((x for x in check_all(small) if x.kind == new.kind), new)
            pytest.fail(
                f"a new kind of mismatch with PyTorch: {new.kind}\n"
                f"seed {seed}, shrunk from {len(prog.steps)} to {len(small.steps)} steps:\n"
                + describe(small, shown)
                + "\n(fix it; or, if PyTorch's behaviour is not worth copying, add it to KNOWN_DIFFERENCES "
                "in tests/program_grammar.py with the reason, and to the README's 'Where it differs')",
                pytrace=False,
            )
    _seen[chunk] = kinds


@pytest.mark.torch
def test_open_kinds_still_occur():
    """Every kind listed as open occurs in the seeded programs: a fixed kind leaves the list."""
    if len(_seen) < CHUNKS:  # the chunks did not all run in this process (-k, xdist): count here
        for chunk in range(CHUNKS):
            if chunk not in _seen:
                seeds = range(chunk * PER_CHUNK, (chunk + 1) * PER_CHUNK)
                _seen[chunk] = {m.kind for s in seeds for m in check_all(generate(s))}
    seen = set().union(*_seen.values())
    fixed = sorted(open_kinds() - seen)
    assert not fixed, (
        f"{len(fixed)} kinds listed in tests/program_grammar_open.txt no longer occur (fixed?): "
        f"{fixed[:5]} ... remove them: python -m tests.program_grammar --open-kinds"
    )
