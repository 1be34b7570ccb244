"""Validate shows whole messages: nbgrader 0.9.6 cuts every line of a failing test's source and
error at ``Validator.width`` (90) characters, so the hint a test's message carries ("...got
tensor([0., inf], ...") is lost. :func:`install` (called from nbgrader's configuration) makes
the Validator wrap long lines instead: every character is shown, continuation lines indented.

The JupyterLab dialog gets whole messages from nbgrader anyway; ``grading/labextension`` puts the
error before the test's source there and wraps long lines.
"""

from __future__ import annotations

import textwrap


def wrap_indented(text: str, indent: str, width: int) -> str:
    """Each line of `text` behind `indent`; a line longer than `width` is wrapped (continuation
    lines indented two more spaces), never cut."""
    from nbconvert.filters import strip_ansi

    out = []
    for line in text.split("\n"):
        line = strip_ansi(line)
        if len(indent) + len(line) <= width:
            out.append(indent + line)
            continue
        lead = line[: len(line) - len(line.lstrip())]
        out += textwrap.wrap(line, width, initial_indent=indent, subsequent_indent=indent + lead + "  ",
                             break_long_words=True, break_on_hyphens=False, replace_whitespace=False)
    return "\n".join(out)


def install() -> None:
    """Make nbgrader's Validator (CLI and the Validate button) wrap instead of cut (idempotent)."""
    from nbgrader.validator import Validator

    def _indent(self, val: str) -> str:
        return wrap_indented(val, self.indent, self.width)

    Validator._indent = _indent
