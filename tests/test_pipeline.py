"""The graded course pipeline: solutions/ -> course/ -> submissions -> autograde -> feedback.

Every notebook folder in solutions/ is covered automatically (a new notebook needs no change
here): its solution runs top to bottom, scores full marks; its release scores zero on every
graded cell and fails `nbgrader validate`; its typical wrong answer (solutions/<a>/wrong_answers.py)
scores in between; course/ is what generate_assignment makes of solutions/; outputs are
stripped; no solution or hidden test leaks into course/.

The hardening tests grade a small scratch assignment: an endless loop, a kernel that ignores
interrupts, kernel crashes, a memory hog, malformed JSON, an edited test cell, and code that
tries to read the solutions and the gradebook.

All grading happens in ONE temporary course copy, built once per session (shared between
pytest-xdist workers), with one autograde run per scenario.
"""

from __future__ import annotations

import csv
import fcntl
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import pipeline_helpers as h  # noqa: E402
from pipeline_helpers import REPO, nbtools  # noqa: E402

from grading import pipeline  # noqa: E402

ASSIGNMENTS = pipeline.Course(REPO).assignments()
NOTEBOOKS = [(a, p.name) for a in ASSIGNMENTS
             for p in sorted((REPO / "solutions" / a).glob("*.ipynb"))]


def _graded(assignment: str, name: str) -> bool:
    return nbtools.is_graded(nbtools.read_notebook(REPO / "solutions" / assignment / name))


GRADED = [(a, n) for a, n in NOTEBOOKS if _graded(a, n)]
SCRATCH = "99_scratch"
CELL_TIMEOUT = 4  # seconds per cell in the hardening scenario
SUBMITTERS = ("solution", "release", "wrong")  # for every graded notebook

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="the grading sandbox is Linux-only")


def _ids(params):
    return [f"{a}/{n}" for a, n in params]


def _need_graded(assignment: str, name: str) -> None:
    if not _graded(assignment, name):
        pytest.skip(f"{assignment}/{name} has no graded cells")


# --- one shared course run ------------------------------------------------------------------

def _build(root: Path) -> dict:
    """Release, submit, autograde (two runs), feedback, export. Returns what the tests read."""
    h.make_course_copy(root)
    (root / "solutions" / SCRATCH).mkdir()
    nbformat.write(h.scratch_notebook(), root / "solutions" / SCRATCH / f"{SCRATCH}.ipynb")
    out = {"root": str(root), "runs": {}}

    def cli(name, *args):
        r = h.run_cli(root, *args)
        out["runs"][name] = {"code": r.returncode, "stdout": r.stdout, "stderr": r.stderr}
        return r

    r = cli("release", "release")
    assert r.returncode == 0, r.stdout + r.stderr
    course = pipeline.Course(root)

    # Every notebook: the solution; every graded one: also the unchanged release and a
    # typical wrong answer.
    for a, name in NOTEBOOKS:
        sol = nbtools.read_notebook(course.source / a / name)
        rel = nbtools.read_notebook(course.release / a / name)
        answers = nbtools.solution_sources(sol)
        h.submit(root, "solution", a, Path(name).stem, nbtools.answer(rel, answers))
        if (a, name) not in GRADED:
            continue
        h.submit(root, "release", a, Path(name).stem, rel)
        wrong = nbtools.load_wrong_answers(course.source / a)
        if wrong:
            h.submit(root, "wrong", a, Path(name).stem, nbtools.answer(rel, {**answers, **wrong}))
    r = cli("collect", "collect", str(root / "inbox"))
    assert r.returncode == 0, r.stdout + r.stderr
    cli("autograde", "autograde", *ASSIGNMENTS, "--jobs", "2")

    # Hardening: one scratch assignment, many ways to misbehave, one autograde run.
    rel = nbtools.read_notebook(course.release / SCRATCH / f"{SCRATCH}.ipynb")
    good = nbtools.solution_sources(
        nbtools.read_notebook(course.source / SCRATCH / f"{SCRATCH}.ipynb"))
    snoop_paths = _snoop_paths(root)
    scenarios = {
        "good": good,
        "loop": {**good, "double": "while True:\n    pass"},
        "stubborn": {**good, "double": "import time\nwhile True:\n    try:\n"
                                       "        time.sleep(0.05)\n"
                                       "    except KeyboardInterrupt:\n        pass"},
        "exit": {**good, "double": "import os\nos._exit(1)"},
        "sigkill": {**good, "double": "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)"},
        "memory": {"double": "def double(x):\n    return len(bytearray(64 * 2**30)) and 2 * x",
                   "square": "def square(x):\n    return len(bytearray(64 * 2**30)) and x * x"},
        "snoop": {**good, "double": _snoop_code(snoop_paths) + good["double"]},
    }
    inbox = root / "inbox2"
    for student, answers in scenarios.items():
        nb = nbtools.answer(rel, answers)
        path = inbox / student / f"{SCRATCH}.ipynb"
        path.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, path)
    tamper = nbtools.answer(rel, {**good, "square": "def square(x):\n    return x + x"})
    for cell in tamper.cells:
        if nbtools.grade_id(cell) == "test_square":
            cell.source = "pass  # the test was in the way"
    (inbox / "tamper").mkdir()
    nbformat.write(tamper, inbox / "tamper" / f"{SCRATCH}.ipynb")
    # A submission that will be resubmitted, changed (square fixed).
    nbformat.write(nbtools.answer(rel, {**good, "square": "def square(x):\n    return x + x"}),
                   _mkdir(inbox / "resubmitter") / f"{SCRATCH}.ipynb")
    (inbox / "broken").mkdir()
    (inbox / "broken" / f"{SCRATCH}.ipynb").write_text('{"cells": [{"cell_type": "code",')
    r = cli("collect2", "collect", str(inbox), "--assignment", SCRATCH)
    assert r.returncode == 0, r.stdout + r.stderr
    cli("hardening", "autograde", SCRATCH, "--jobs", "2", "--timeout", str(CELL_TIMEOUT))

    # Resubmissions: one changed (graded again), one the same file (not graded again).
    inbox = root / "inbox-resubmitted"
    nbformat.write(nbtools.answer(rel, good), _mkdir(inbox / "resubmitter") / f"{SCRATCH}.ipynb")
    shutil.copy2(root / "inbox2" / "good" / f"{SCRATCH}.ipynb", _mkdir(inbox / "good"))
    cli("collect-resubmitted", "collect", str(inbox), "--assignment", SCRATCH)
    out["good_graded_mtime"] = (root / "autograded" / "good" / SCRATCH /
                                f"{SCRATCH}.ipynb").stat().st_mtime_ns
    cli("resubmitted", "autograde", SCRATCH, "--jobs", "2", "--timeout", str(CELL_TIMEOUT))

    # Control: the same snooping code with the sandbox off does read the secrets.
    ctl = root / "inbox3" / "snoop-unsandboxed"
    ctl.mkdir(parents=True)
    nbformat.write(nbtools.answer(rel, scenarios["snoop"]), ctl / f"{SCRATCH}.ipynb")
    cli("collect3", "collect", str(root / "inbox3"))
    cli("control", "autograde", SCRATCH, "--student", "snoop-unsandboxed", "--sandbox", "off",
        "--timeout", str(CELL_TIMEOUT))

    _hand_grade(root, SCRATCH, "good", "why", 1, HAND_COMMENT)
    cli("feedback", "feedback")
    cli("export", "export", "--out", str(root / "grades.csv"))
    return out


def _mkdir(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path


HAND_COMMENT = "Right: the chain rule multiplies local derivatives."


def _hand_grade(root: Path, assignment: str, student: str, grade_id: str, score: float,
                comment: str) -> None:
    """What formgrader saves when the instructor scores a written answer and comments on it."""
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gb:
        grade = gb.find_grade(grade_id, assignment, assignment, student)
        assert grade.needs_manual_grade, "a written answer waits for the instructor"
        grade.manual_score = score
        grade.needs_manual_grade = False  # as formgrader's grade API does on saving a score
        gb.find_comment(grade_id, assignment, assignment, student).manual_comment = comment
        gb.db.commit()


def _snoop_paths(root: Path) -> list[str]:
    rel = [("../" * depth) + f"solutions/{SCRATCH}/{SCRATCH}.ipynb" for depth in range(1, 6)]
    absolute = [str(root / "solutions" / SCRATCH / f"{SCRATCH}.ipynb"),
                str(root / "gradebook.db"),
                str(root / "submitted" / "good" / SCRATCH / f"{SCRATCH}.ipynb"),
                str(root / "nbgrader_config.py")]
    return rel + absolute


def _snoop_code(paths: list[str]) -> str:
    return (
        "import os\n"
        f"for _p in {paths!r} + ['/proc/%d/root%s' % (os.getppid(), {str(paths[5])!r})]:\n"
        "    try:\n"
        "        with open(_p, 'rb') as _f:\n"
        "            _f.read(16)\n"
        "        print('READ', _p)\n"
        "    except Exception as _e:\n"
        "        print('BLOCKED', _p, type(_e).__name__)\n"
    )


@pytest.fixture(scope="session")
def run(request, tmp_path_factory) -> dict:
    """The shared course run (built by the first pytest-xdist worker that needs it)."""
    if not hasattr(request.config, "workerinput"):
        return _build(tmp_path_factory.mktemp("course"))
    shared = tmp_path_factory.getbasetemp().parent
    with open(shared / "pipeline-course.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = shared / "pipeline-course.json"
        if done.exists():
            return json.loads(done.read_text())
        result = _build(shared / "pipeline-course")
        done.write_text(json.dumps(result))
        return result


@pytest.fixture(scope="session")
def root(run) -> Path:
    return Path(run["root"])


def _report(root: Path, assignment: str) -> dict:
    return json.loads((root / "autograded" / ".grading-logs" / assignment /
                       "report.json").read_text())


def _auto(root: Path, assignment: str, student: str) -> dict[str, tuple]:
    """{grade_id: (score, max)} of the autograded cells of a submission."""
    auto = h.autograded_cells(root, assignment, student)
    scores = h.cell_scores(root, assignment, student)
    return {gid: scores[gid] for gid in auto}


# --- every notebook -------------------------------------------------------------------------

def _validate(paths: list[str]) -> dict[str, str]:
    """`nbgrader validate` from the repository root, as a learner's Validate button runs it:
    {path: what it printed about that notebook}."""
    r = subprocess.run([sys.executable, "-m", "nbgrader", "validate", *paths], cwd=REPO,
                       env=pipeline.subprocess_env(), stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=1800)
    parts = re.split(r"\[ValidateApp \| INFO\] Validating '([^']+)'", r.stdout)
    found = {str(Path(p).resolve().relative_to(REPO)): out
             for p, out in zip(parts[1::2], parts[2::2])}
    return {p: found.get(p, r.stdout) for p in paths}


@pytest.fixture(scope="session")
def validated() -> dict[str, str]:
    """Every graded notebook validated, released and solved; two processes at once."""
    from concurrent.futures import ThreadPoolExecutor

    paths = [f"{d}/{a}/{n}" for a, n in GRADED for d in ("course", "solutions")]
    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(lambda chunk: _validate(chunk) if chunk else {},
                                [paths[::2], paths[1::2]]))
    return {k: v for r in results for k, v in r.items()}


@pytest.mark.parametrize("assignment,name", GRADED, ids=_ids(GRADED))
def test_validate_fails_on_release_and_passes_on_solution(assignment, name, validated):
    out = validated[f"course/{assignment}/{name}"]
    assert "VALIDATION FAILED" in out and "NotImplementedError" in out, out[-5000:]
    out = validated[f"solutions/{assignment}/{name}"]
    assert "Success! Your notebook passes all the tests." in out, out[-5000:]


@pytest.mark.parametrize("assignment,name", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_outputs_are_stripped(assignment, name):
    for path in (REPO / "solutions" / assignment / name, REPO / "course" / assignment / name):
        assert path.exists(), f"{path} is missing: run `python -m grading release`"
        assert not nbtools.strip_file(path, check=True), (
            f"{path} has outputs: run `python -m grading strip`")


@pytest.fixture(scope="session")
def release_diffs() -> list[str]:
    return pipeline.release_differences(pipeline.Course(REPO))


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_course_is_what_generate_assignment_makes(assignment, release_diffs):
    mine = [d for d in release_diffs if d.startswith(f"course/{assignment}/")]
    assert not mine, "\n".join(mine + ["run `python -m grading release`"])


def test_course_holds_only_released_assignments():
    extra = sorted(p.name for p in (REPO / "course").iterdir()
                   if p.is_dir() and p.name not in ASSIGNMENTS)
    assert not extra, f"course/ has folders not made from solutions/: {extra}"


@pytest.mark.parametrize("assignment,name", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_nothing_of_a_solution_or_hidden_test_in_course(assignment, name):
    sol = nbtools.read_notebook(REPO / "solutions" / assignment / name)
    for path in sorted(p for p in (REPO / "course").rglob("*") if p.is_file()):
        text = nbtools.visible_text(path)
        assert "BEGIN SOLUTION" not in text and "BEGIN HIDDEN TESTS" not in text, path
        assert path.name != nbtools.WRONG_ANSWERS_FILE, f"{path} must not be released"
        leaked = nbtools.leaked_secrets(sol, text)
        assert not leaked, f"{path} shows code of {assignment}/{name}'s solution: {leaked}"
    released = nbtools.read_notebook(REPO / "course" / assignment / name)
    for cell in released.cells:
        if nbtools.is_solution(cell):
            stub = "raise NotImplementedError()" if cell.cell_type == "code" else "YOUR ANSWER"
            assert stub in cell.source, f"{nbtools.grade_id(cell)}: no stub in the release"


# --- every graded notebook, autograded ------------------------------------------------------

@pytest.mark.parametrize("assignment,name", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_solution_executes_top_to_bottom(assignment, name, root):
    """Autograding ran every cell of the solution in a fresh kernel, in order: none failed."""
    report = _report(root, assignment)["solution"]
    assert report["status"] == "ok" and not report["events"], report
    nb = nbformat.read(root / "autograded" / "solution" / assignment / name, 4)
    assert all(c.execution_count for c in nb.cells if c.cell_type == "code"), "not all cells ran"
    errors = [(nbtools.grade_id(c) or c.source[:60], o.get("ename"), o.get("evalue"))
              for c in nb.cells if c.cell_type == "code" for o in c.outputs
              if o.output_type == "error"]
    assert not errors, errors


@pytest.mark.parametrize("assignment,name", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_solution_scores_full_marks(assignment, name, root):
    _need_graded(assignment, name)
    scores = _auto(root, assignment, "solution")
    assert scores, "no autograded cells were scored"
    lost = {gid: s for gid, s in scores.items() if s[0] != s[1]}
    assert not lost, f"the solution loses points: {lost}\n{_log(root, assignment, 'solution')}"


@pytest.mark.parametrize("assignment,name", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_unchanged_release_scores_zero(assignment, name, root):
    _need_graded(assignment, name)
    scores = _auto(root, assignment, "release")
    assert scores
    nonzero = {gid: s for gid, s in scores.items() if s[0] != 0}
    assert not nonzero, f"the unanswered release earns points: {nonzero}"


@pytest.mark.parametrize("assignment,name", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_typical_wrong_answer_scores_in_between(assignment, name, root):
    _need_graded(assignment, name)
    wrong = nbtools.load_wrong_answers(REPO / "solutions" / assignment)
    assert wrong, (f"add solutions/{assignment}/{nbtools.WRONG_ANSWERS_FILE} defining "
                   "WRONG_ANSWERS = {grade_id: 'typical wrong code', ...}")
    scores = _auto(root, assignment, "wrong")
    got = sum(s for s, _ in scores.values())
    best = sum(m for _, m in scores.values())
    assert 0 < got < best, f"typical wrong answer scored {got} / {best}: {scores}"


def _log(root: Path, assignment: str, student: str) -> str:
    path = root / "autograded" / ".grading-logs" / assignment / f"{student}.log"
    return path.read_text()[-3000:] if path.exists() else "(no log)"


def test_autograde_reports_progress_and_scores(run):
    r = run["runs"]["autograde"]
    assert r["code"] == 0, r["stdout"] + r["stderr"]
    assert "autograde: 100%" in r["stderr"], "a tqdm progress bar on stderr"
    for a, _ in GRADED:
        assert f"autograde {a}:" in r["stdout"]


# --- hardening ------------------------------------------------------------------------------

def test_infinite_loop_is_cut_by_timeout_and_graded(root):
    report = _report(root, SCRATCH)["loop"]
    assert any(e.startswith("TIMEOUT cell=double") for e in report["events"]), report
    scores = _auto(root, SCRATCH, "loop")
    assert scores["test_double"] == (0, 1), scores
    assert scores["test_square"] == (2, 2), "cells after the loop still run and score"
    assert _auto(root, SCRATCH, "good") == {"test_double": (1, 1), "test_square": (2, 2)}


def test_kernel_that_ignores_interrupt_scores_zero(root):
    report = _report(root, SCRATCH)["stubborn"]
    assert any(e.startswith("KERNEL-UNRESPONSIVE") for e in report["events"]), report
    assert all(s == 0 for s, _ in _auto(root, SCRATCH, "stubborn").values())


@pytest.mark.parametrize("student", ["exit", "sigkill"])
def test_kernel_crash_scores_zero_for_that_notebook(root, student):
    report = _report(root, SCRATCH)[student]
    assert report["status"] == "ok", report
    assert any(e.startswith("KERNEL-DIED") for e in report["events"]), report
    assert all(s == 0 for s, _ in _auto(root, SCRATCH, student).values())
    assert (root / "autograded" / student / SCRATCH / f"{SCRATCH}.ipynb").exists()
    html = root / "feedback" / student / SCRATCH / f"{SCRATCH}.html"
    assert "kernel died" in html.read_text().lower(), "the feedback says why"


def test_memory_hog_gets_memory_error_and_zero(root):
    report = _report(root, SCRATCH)["memory"]
    assert not any("KERNEL" in e for e in report["events"]), "the kernel survives"
    assert all(s == 0 for s, _ in _auto(root, SCRATCH, "memory").values())
    nb = nbformat.read(root / "autograded" / "memory" / SCRATCH / f"{SCRATCH}.ipynb", 4)
    names = {o.get("ename") for c in nb.cells if c.cell_type == "code" for o in c.outputs}
    assert "MemoryError" in names, names


def test_malformed_json_is_named_and_loses_no_other_grade(run, root):
    r = run["runs"]["hardening"]
    assert r["code"] == 1, "the run reports the broken submission in its exit code"
    path = f"submitted/broken/{SCRATCH}/{SCRATCH}.ipynb"
    assert re.search(re.escape(path) + r".*malformed JSON", r["stdout"]), r["stdout"]
    assert "broken" in run["runs"]["collect2"]["stdout"]
    assert all(s == 0 for s, _ in h.cell_scores(root, SCRATCH, "broken").values())
    report = _report(root, SCRATCH)
    assert report["broken"]["status"] == "invalid"
    others = {s for s in report if s != "broken"}
    assert {"good", "loop", "exit", "tamper"} <= others
    assert all(report[s]["score"] is not None for s in others)


def test_edited_locked_test_cell_is_detected_and_ignored(root):
    report = _report(root, SCRATCH)["tamper"]
    assert report["edited_locked_cells"] == ["test_square"], report
    scores = _auto(root, SCRATCH, "tamper")
    assert scores["test_square"] == (0, 2), "graded with the released test, not the edit"
    assert scores["test_double"] == (1, 1)


def _table_line(stdout: str, student: str) -> str:
    return next((ln for ln in stdout.splitlines() if ln.split()[:1] == [student]), "")


def test_changed_resubmission_is_regraded_and_unchanged_one_is_not(run, root):
    first = run["runs"]["hardening"]["stdout"]
    assert re.search(r"1 / 4", _table_line(first, "resubmitter")), first
    out = run["runs"]["resubmitted"]["stdout"]
    line = _table_line(out, "resubmitter")
    assert f"regraded: the resubmission changed {SCRATCH}.ipynb" in line, out
    assert _auto(root, SCRATCH, "resubmitter") == {"test_double": (1, 1), "test_square": (2, 2)}
    assert "unchanged since it was graded" in _table_line(out, "good"), out
    assert "regraded, changed since graded: resubmitter" in out
    assert re.search(r"not regraded, unchanged: .*\bgood\b", out), out
    report = _report(root, SCRATCH)
    assert report["resubmitter"]["regraded"] and not report["good"]["regraded"]
    graded = root / "autograded" / "good" / SCRATCH / f"{SCRATCH}.ipynb"
    assert graded.stat().st_mtime_ns == run["good_graded_mtime"], "good was graded again"


def _snoop_lines(root: Path, student: str) -> list[str]:
    nb = nbformat.read(root / "autograded" / student / SCRATCH / f"{SCRATCH}.ipynb", 4)
    cell = next(c for c in nb.cells if nbtools.grade_id(c) == "double")
    return "".join(o.get("text", "") for o in cell.outputs).splitlines()


def test_submission_cannot_read_solutions_or_gradebook(root):
    lines = _snoop_lines(root, "snoop")
    assert len(lines) == len(_snoop_paths(root)) + 1, lines
    assert all(line.startswith("BLOCKED") for line in lines), lines
    assert _auto(root, SCRATCH, "snoop")["test_double"] == (1, 1), "the rest is graded"


def test_without_sandbox_the_same_code_reads_them(root):
    """The control for the test above: a plain nbgrader setup leaks the secrets."""
    lines = _snoop_lines(root, "snoop-unsandboxed")
    read = [line for line in lines if line.startswith("READ")]
    assert any("gradebook.db" in line for line in read), lines
    assert any(f"solutions/{SCRATCH}" in line for line in read), lines


def test_hand_grading_feedback_and_csv_export(root):
    for student in ("good", "loop", "tamper"):
        assert (root / "feedback" / student / SCRATCH / f"{SCRATCH}.html").exists()
    # "good" scored 3 autograded points, and 1 more for the written answer graded by hand
    assert HAND_COMMENT in (root / "feedback" / "good" / SCRATCH / f"{SCRATCH}.html").read_text()
    rows = list(csv.DictReader((root / "grades.csv").open()))
    by = {(r["assignment"], r["student_id"]): r for r in rows}
    assert float(by[(SCRATCH, "good")]["score"]) == 4.0
    assert float(by[(SCRATCH, "good")]["max_score"]) == 4.0
    assert float(by[(SCRATCH, "broken")]["score"]) == 0.0
    for a, _ in GRADED:
        assert (a, "solution") in by


def test_pending_hand_grading_is_shown_apart_in_table_feedback_and_csv(run, root):
    table = run["runs"]["hardening"]["stdout"]
    assert re.search(r"autograded\s+by hand\s+total", table), table
    assert re.search(r"2 / 3\s+0 / 1 \(1 pending\)\s+2 / 4", _table_line(table, "loop")), table
    assert "point(s) of answers to grade by hand" in table
    fb = run["runs"]["feedback"]
    assert re.search(rf"WARNING {SCRATCH}: \d+ written answer\(s\) of \d+ student\(s\) are not "
                     "graded yet", fb["stdout"]), fb["stdout"]
    assert re.search(rf"feedback {SCRATCH}: 100%", fb["stderr"]), "a progress bar on stderr"
    waiting = (root / "feedback" / "loop" / SCRATCH / f"{SCRATCH}.html").read_text()
    assert "autograd-lab-pending" in waiting and "Not graded yet" in waiting
    assert re.search(r'class="pending">1 point\(s\)', waiting)
    assert re.search(r'class="autograded">2 / 3<', waiting)
    graded = (root / "feedback" / "good" / SCRATCH / f"{SCRATCH}.html").read_text()
    assert "autograd-lab-pending" not in graded and re.search(r'class="hand">1 / 1<', graded)
    rows = {r["student_id"]: r for r in csv.DictReader((root / "grades.csv").open())
            if r["assignment"] == SCRATCH}
    parts = ("auto_score", "auto_max_score", "hand_score", "hand_max_score",
             "pending_hand_points", "pending_hand_answers")
    assert [float(rows["good"][k]) for k in parts] == [3, 3, 1, 1, 0, 0]
    assert [float(rows["loop"][k]) for k in parts] == [2, 3, 0, 1, 1, 1]
    assert float(rows["loop"]["score"]) == 2.0


@pytest.mark.browser
def test_feedback_math_renders_offline_in_chromium(root):
    """MathJax is in the page: with every request but the file itself refused, no TeX is left."""
    if not Path("/usr/bin/chromium").exists():
        pytest.skip("Chromium is not installed at /usr/bin/chromium")
    sync_api = pytest.importorskip("playwright.sync_api")
    html = root / "feedback" / "good" / SCRATCH / f"{SCRATCH}.html"
    assert "cdnjs" not in html.read_text() and "mathjax@" not in html.read_text()
    refused: list[str] = []

    def route(r):
        if r.request.url.startswith("file:"):
            r.continue_()
        else:
            refused.append(r.request.url)
            r.abort()

    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True,
                                    args=["--no-sandbox"])
        try:
            page = browser.new_page()
            page.route("**/*", route)
            page.goto(html.as_uri())
            page.wait_for_function("() => window.MathJax && MathJax.startup && "
                                   "MathJax.startup.promise", timeout=30_000)
            page.evaluate("() => MathJax.startup.promise")
            text = page.locator("#notebook").inner_text()
            typeset = page.locator("mjx-container").count()
        finally:
            browser.close()
    assert not refused, f"the page asked the network for {refused}"
    assert typeset >= 3, "the three formulas of the notebook are typeset"
    raw = [t for t in ("$$", "$x^2$", "\\frac", "\\partial") if t in text]
    assert not raw, f"raw TeX left on the page: {raw}"


# --- small parts, no kernel -----------------------------------------------------------------

def _tiny_course(tmp_path: Path) -> pipeline.Course:
    (tmp_path / "course" / "01_x").mkdir(parents=True)
    nbformat.write(h.notebook([h.code("1")]), tmp_path / "course" / "01_x" / "01_x.ipynb")
    return pipeline.Course(tmp_path)


def test_collect_matches_renamed_downloads_and_names_broken_files(tmp_path):
    course = _tiny_course(tmp_path)
    inbox = tmp_path / "inbox"
    (inbox / "ann").mkdir(parents=True)
    (inbox / "bob" / "nested").mkdir(parents=True)
    nbformat.write(h.notebook([h.code("2")]), inbox / "ann" / "01_x (1).ipynb")
    (inbox / "bob" / "nested" / "01_x.ipynb").write_text("{oops")
    (inbox / "bob" / "notes.ipynb").write_text("{}")
    messages = []
    report = pipeline.collect(course, inbox, log=messages.append)
    assert (course.submitted / "ann" / "01_x" / "01_x.ipynb").exists()
    assert (course.submitted / "ann" / "01_x" / "timestamp.txt").exists()
    assert (course.submitted / "bob" / "01_x" / "01_x.ipynb").exists()
    assert len(report.errors) == 1 and "nested/01_x.ipynb" in report.errors[0]
    assert any("notes.ipynb" in s for s in report.skipped)


def test_strip_removes_outputs(tmp_path):
    nb = h.notebook([h.code("print(1)")])
    nb.cells[0].outputs = [nbformat.v4.new_output("stream", text="1\n")]
    nb.cells[0].execution_count = 3
    path = tmp_path / "n.ipynb"
    nbformat.write(nb, path)
    assert pipeline.strip([tmp_path], check=True, log=lambda m: None) == [path]
    assert pipeline.strip([tmp_path], log=lambda m: None) == [path]
    assert pipeline.strip([tmp_path], check=True, log=lambda m: None) == []
    assert nbformat.read(path, 4).cells[0].outputs == []


def test_read_notebook_names_the_file(tmp_path):
    bad = tmp_path / "x.ipynb"
    bad.write_text('{"cells": [1, 2')
    with pytest.raises(nbtools.InvalidNotebook, match=r"x\.ipynb.*malformed JSON"):
        nbtools.read_notebook(bad)


def test_leak_check_finds_copied_solution_code(tmp_path):
    sol = h.scratch_notebook()
    released = h.notebook([h.md("def square(x):\n    return x * x")])
    path = tmp_path / "r.ipynb"
    nbformat.write(released, path)
    assert nbtools.leaked_secrets(sol, nbtools.visible_text(path)) == ["return x * x"]
    hidden = h.notebook([h.code("assert square(-5) == 25")])
    nbformat.write(hidden, path)
    assert nbtools.leaked_secrets(sol, nbtools.visible_text(path)) == ["assert square(-5) == 25"]
    nbformat.write(h.notebook([h.code("y = x * x")]), path)
    assert nbtools.leaked_secrets(sol, nbtools.visible_text(path)) == []


def test_locked_cells_changed():
    rel = h.notebook([h.tests("t1", 1, "assert f() == 1"), h.tests("t2", 1, "assert g()")])
    sub = nbformat.from_dict(json.loads(json.dumps(rel)))
    sub.cells[0].source = "pass"
    del sub.cells[1]
    assert pipeline.locked_cells_changed(rel, sub) == ["t1", "t2 (deleted)"]


def test_grading_package_is_not_inside_autograd_lab():
    assert not (REPO / "autograd_lab" / "grading").exists()
    text = "\n".join(p.read_text() for p in (REPO / "autograd_lab").rglob("*.py"))
    assert "nbgrader" not in text and "import grading" not in text


def test_environment_has_python_on_path():
    env = pipeline.subprocess_env()
    assert os.path.dirname(sys.executable) in env["PATH"].split(os.pathsep)
