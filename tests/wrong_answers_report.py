"""The table of every exercise's wrong answers and the score each gets, as autograde scores them.

    .venv/bin/python tests/wrong_answers_report.py                 # every graded notebook
    .venv/bin/python tests/wrong_answers_report.py 01_tensors      # some of them

Prints, per notebook, a Markdown table: exercise, answer (kind: why), the points it keeps of its
exercise's tests and of the whole notebook, and the first line of the message it gets. The scores
are tests/exercise_helpers.grade_fast's, which tests/test_wrong_answers.py proves equal to
`python -m grading autograde`'s; that test file also asserts what this table shows (each wrong
answer loses points, with its message).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import exercise_helpers as eh  # noqa: E402


def _points(scores: dict[str, tuple[float, float]], cells: list[str]) -> str:
    got = sum(scores[c][0] for c in cells)
    best = sum(scores[c][1] for c in cells)
    return f"{got:g} / {best:g}"


def _first_line(text: str, width: int = 110) -> str:
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    line = line.replace("|", "\\|")
    return line if len(line) <= width else line[: width - 3] + "..."


def report(assignment: str) -> str:
    """The Markdown table of one notebook's answers and their scores."""
    notebook = eh.Notebook.load(assignment)
    graded = eh.grade_fast(notebook, eh.answer_sets(notebook))
    tests = {e.grade_id: e.tests for e in notebook.exercises()}
    every = [t for cells in tests.values() for t in cells]
    rows = [f"### {assignment}", "",
            "| exercise | answer | its tests | notebook | what the learner is told |",
            "|---|---|---|---|---|"]
    solution, blank = graded[""], graded["blank"]
    rows.append(f"| all | solution | | {_points(solution.scores, every)} | |")
    rows.append(f"| all | blank release | | {_points(blank.scores, every)} | |")
    for m in notebook.mistakes():
        result = graded[m.name]
        lost = [t for t in tests[m.grade_id] if result.scores[t][0] < result.scores[t][1]]
        said = _first_line("\n".join(result.errors[t] for t in lost)) if lost else "(keeps every point)"
        rows.append(f"| {m.grade_id} | {m.kind}: {m.why} | {_points(result.scores, tests[m.grade_id])} "
                    f"| {_points(result.scores, every)} | {said} |")
    for name in graded:
        if "-right-" in name:
            gid = name.split("-right-")[0]
            result = graded[name]
            rows.append(f"| {gid} | correct, written another way ({name}) | "
                        f"{_points(result.scores, tests[gid])} | {_points(result.scores, every)} | |")
    return "\n".join(rows) + "\n"


def main(argv: list[str]) -> int:
    assignments = argv or [a for a in eh.graded_assignments() if eh.Notebook.load(a).mistakes()]
    for assignment in assignments:
        print(report(assignment), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
