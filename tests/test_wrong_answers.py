"""Every exercise's wrong answers lose points, with a message that names the mistake.

For each graded notebook with a MISTAKES table (solutions/<a>/wrong_answers.py, see
tests/exercise_helpers.py and docs/exercise-authoring.md), each wrong answer replaces its one
solution cell; graded as autograde grades it, it scores less than full marks, and one of the
failing test cells of its exercise says the answer's `message`. Each ALTERNATIVE (a correct answer
written another way) scores full marks; the solution full, the blank release zero.

Speed: one interpreter per notebook grades all its answers (tests/notebook_runner.py forks at the
first changed cell). test_fast_grading_agrees_with_autograde proves that it gives the scores and
messages of the real `python -m grading autograde`, on a sample graded both ways.
"""

from __future__ import annotations

import fcntl
import json
import sys
from pathlib import Path

import nbformat
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import exercise_helpers as eh  # noqa: E402
import pipeline_helpers as h  # noqa: E402
from pipeline_helpers import nbtools  # noqa: E402

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="grading forks and sandboxes: Linux only")

GRADED = eh.graded_assignments()
CONVERTED = [a for a in GRADED if eh.Notebook.load(a).mistakes()]
MISTAKES = [(a, m) for a in CONVERTED for m in eh.Notebook.load(a).mistakes()]
RIGHT = [(a, name) for a in CONVERTED for name in eh.answer_sets(eh.Notebook.load(a))
         if "-right-" in name]
# Graded both ways (fast and real autograde), a sample that does not grow with the number of
# answers: in FULLY_COMPARED the solution, the blank, "combined" (every exercise's first mistake at
# once) and every exercise's last mistake; in every other converted notebook, "combined".
# (tests/test_pipeline.py already autogrades every notebook's solution and blank release.)
FULLY_COMPARED = "01_tensors"


def _load(assignment: str) -> dict[str, eh.Graded]:
    notebook = eh.Notebook.load(assignment)
    return eh.grade_fast(notebook, eh.answer_sets(notebook))


@pytest.fixture(scope="session")
def fast(request, tmp_path_factory):
    """fast(assignment) -> {answer name: Graded}, computed once per session (shared between
    pytest-xdist workers through files)."""
    shared = tmp_path_factory.getbasetemp()
    if hasattr(request.config, "workerinput"):
        shared = shared.parent
    cache: dict[str, dict[str, eh.Graded]] = {}

    def get(assignment: str) -> dict[str, eh.Graded]:
        if assignment not in cache:
            with open(shared / f"wrong-answers-{assignment}.lock", "w") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                done = shared / f"wrong-answers-{assignment}.json"
                if not done.exists():
                    done.write_text(json.dumps({k: g.to_json() for k, g in _load(assignment).items()}))
                cache[assignment] = {k: eh.Graded.from_json(v)
                                     for k, v in json.loads(done.read_text()).items()}
        return cache[assignment]

    return get


def _exercise(assignment: str, grade_id: str) -> eh.Exercise:
    return next(e for e in eh.Notebook.load(assignment).exercises() if e.grade_id == grade_id)


@pytest.mark.parametrize("assignment", CONVERTED)
def test_solution_scores_full_and_blank_zero(assignment, fast):
    graded = fast(assignment)
    solution, blank = graded[""], graded["blank"]
    lost = {g: s for g, s in solution.scores.items() if s[0] != s[1]}
    assert not lost, f"the solution loses points: {lost}\n{solution.errors}"
    earned = {g: s for g, s in blank.scores.items() if s[0] != 0}
    assert not earned, f"the blank release earns points: {earned}"


@pytest.mark.parametrize("assignment,mistake", MISTAKES, ids=[f"{a}/{m.name}" for a, m in MISTAKES])
def test_wrong_answer_loses_points_and_says_why(assignment, mistake, fast):
    graded = fast(assignment)[mistake.name]
    own = _exercise(assignment, mistake.grade_id).tests
    lost = {t: graded.scores[t] for t in own if graded.scores[t][0] < graded.scores[t][1]}
    assert lost, (f"{mistake.name} ({mistake.why}) earns every point of {mistake.grade_id}'s "
                  f"tests: {graded.total} / {graded.best}")
    said = "\n".join(graded.errors[t] for t in lost)
    assert mistake.message in said, (
        f"{mistake.name} ({mistake.why}) loses points, but its failing test does not say "
        f"{mistake.message!r}; it says:\n{said}")


@pytest.mark.parametrize("assignment,name", RIGHT, ids=[f"{a}/{n}" for a, n in RIGHT])
def test_correct_alternative_scores_full(assignment, name, fast):
    graded = fast(assignment)[name]
    lost = {g: s for g, s in graded.scores.items() if s[0] != s[1]}
    assert not lost, f"a correct answer written another way loses points: {lost}\n" + "\n".join(
        graded.errors[g] for g in lost)


def _converted(assignment: str):
    if assignment in eh.NOT_YET_CONVERTED:
        return pytest.param(assignment, marks=pytest.mark.xfail(
            strict=True, reason="not yet converted (issue 12): take it off NOT_YET_CONVERTED"))
    return assignment


@pytest.mark.parametrize("assignment", [_converted(a) for a in GRADED])
def test_every_exercise_has_three_wrong_answers_of_two_kinds(assignment):
    notebook = eh.Notebook.load(assignment)
    mistakes = notebook.mistakes()
    exercises = {e.grade_id for e in notebook.exercises()}
    unknown = sorted({m.grade_id for m in mistakes} - exercises)
    assert not unknown, f"MISTAKES names cells that are no exercise: {unknown}"
    for m in mistakes:
        assert m.kind in eh.KINDS, f"{m.name}: kind {m.kind!r} is none of {eh.KINDS}"
        assert m.message.strip() and m.why.strip(), f"{m.name}: say why it is wrong and what the test says"
    for gid in sorted(exercises):
        mine = [m for m in mistakes if m.grade_id == gid]
        kinds = {m.kind for m in mine}
        assert len(mine) >= 3 and len(kinds) >= 2, (
            f"{assignment}/{gid}: {len(mine)} wrong answers of kinds {sorted(kinds)}; "
            "write at least three, of at least two kinds")


def test_not_yet_converted_names_graded_notebooks():
    assert set(eh.NOT_YET_CONVERTED) <= set(GRADED), "NOT_YET_CONVERTED names unknown notebooks"


# --- the fast grading is autograde's grading -------------------------------------------------

def _students() -> list[tuple[str, str, str]]:
    """(assignment, answer name, student id) graded both ways."""
    chosen = []
    for a in CONVERTED:
        names = ["combined"]
        if a == FULLY_COMPARED:
            last = {m.grade_id: m.name for m in eh.Notebook.load(a).mistakes()}
            names += ["", "blank", *last.values()]
        chosen += [(a, n, f"{a[:2]}-{n or 'solution'}") for n in names]
    return chosen


def _real_errors(root: Path, assignment: str, student: str) -> dict[str, str]:
    path = next((root / "autograded" / student / assignment).glob("*.ipynb"))
    nb = nbformat.read(path, 4)
    return {nbtools.grade_id(c): "\n".join(f"{o['ename']}: {o['evalue']}" for o in c.outputs
                                          if o.output_type == "error")
            for c in nb.cells if nbtools.is_autograded_test(c)}


@pytest.mark.slow
def test_fast_grading_agrees_with_autograde(tmp_path, fast):
    if not CONVERTED:
        pytest.skip("no notebook has a MISTAKES table yet")
    root = h.make_course_copy(tmp_path / "course")
    r = h.run_cli(root, "release", *CONVERTED)
    assert r.returncode == 0, r.stdout + r.stderr
    students = _students()
    for a, name, student in students:
        notebook = eh.Notebook.load(a)
        released = nbtools.read_notebook(root / "course" / a / notebook.path.name)
        answers = {**notebook.solution_answers(), **eh.answer_sets(notebook).get(name, {})}
        h.submit(root, student, a, notebook.path.stem, nbtools.answer(released, answers))
    r = h.run_cli(root, "collect", str(root / "inbox"))
    assert r.returncode == 0, r.stdout + r.stderr
    r = h.run_cli(root, "autograde", *CONVERTED, "--jobs", "2", "--no-progress")
    assert r.returncode == 0, r.stdout + r.stderr
    differ = []
    for a, name, student in students:
        real = h.cell_scores(root, a, student)
        auto = set(h.autograded_cells(root, a, student))
        graded = fast(a)[name]
        real = {g: s for g, s in real.items() if g in auto}
        if real != graded.scores:
            differ.append(f"{a}/{name or 'solution'}: autograde {real}, fast {graded.scores}")
            continue
        errors = _real_errors(root, a, student)
        for gid, (score, best) in graded.scores.items():
            fast_error = [ln for ln in graded.errors[gid].splitlines() if ln]
            if score < best and fast_error and fast_error[-1] not in errors[gid]:
                differ.append(f"{a}/{name or 'solution'} {gid}: autograde says {errors[gid]!r}, "
                              f"fast says {fast_error[-1]!r}")
    assert not differ, "\n".join(differ)
