"""The instructor's pipeline: release, collect, autograde, feedback, export (see __main__.py).

Everything works on a course root laid out as nbgrader expects (``nbgrader_config.py``)::

    solutions/<assignment>/<notebook>.ipynb      the instructor's version (source)
    course/<assignment>/<notebook>.ipynb         the learner's version (release)
    submitted/<student>/<assignment>/...         collected submissions
    autograded/<student>/<assignment>/...        executed and scored
    feedback/<student>/<assignment>/...html      what goes back to the learner
    gradebook.db                                 scores
"""

from __future__ import annotations

import hashlib
import json
import os
import select
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from . import notebooks as nbt
from . import scores
from .scores import Scores

PACKAGE_PARENT = Path(__file__).resolve().parents[1]
LOG_DIR = ".grading-logs"
Log = Callable[[str], None]


def _print(msg: str) -> None:
    print(msg, flush=True)


class Course:
    """Paths of a course root."""

    def __init__(self, root: Path | str):
        self.root = Path(root).resolve()
        self.source = self.root / "solutions"
        self.release = self.root / "course"
        self.submitted = self.root / "submitted"
        self.autograded = self.root / "autograded"
        self.feedback = self.root / "feedback"
        self.db = self.root / "gradebook.db"
        self.db_url = f"sqlite:///{self.db}"

    def assignments(self) -> list[str]:
        """Assignment folders in solutions/ (those holding at least one notebook)."""
        if not self.source.is_dir():
            return []
        return sorted(p.name for p in self.source.iterdir()
                      if p.is_dir() and nbt.notebook_name_ok(p.name) and any(p.glob("*.ipynb")))

    def source_notebooks(self, assignment: str) -> list[Path]:
        return sorted((self.source / assignment).glob("*.ipynb"))

    def released_notebooks(self, assignment: str) -> list[Path]:
        return sorted((self.release / assignment).glob("*.ipynb"))

    def students(self, assignment: str) -> list[str]:
        if not self.submitted.is_dir():
            return []
        return sorted(p.name for p in self.submitted.iterdir()
                      if (p / assignment).is_dir() and not p.name.startswith("."))

    def log_dir(self, assignment: str) -> Path:
        return self.autograded / LOG_DIR / assignment


def subprocess_env() -> dict[str, str]:
    """Environment for nbgrader: the interpreter's bin/ on PATH (nbgrader runs `alembic`),
    this package importable."""
    env = dict(os.environ)
    bindir = os.path.dirname(sys.executable)
    env["PATH"] = os.pathsep.join([bindir, env.get("PATH", "")])
    paths = [str(PACKAGE_PARENT), *[p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]]
    env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
    env.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    return env


def sandbox_limits(course: Course):
    """The sandbox's limits as the course's nbgrader_config.py sets them."""
    from .execute import SandboxKernelManager

    return SandboxKernelManager(config=nbgrader_api(course.root).config).limits


def nbgrader_api(root: Path | str, overrides: dict | None = None):
    """nbgrader's Python API on a course root, configured by its nbgrader_config.py and then
    `overrides` ({"Execute": {"timeout": 5}, ...})."""
    from nbgrader.apps.api import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory
    from traitlets.config import Config
    from traitlets.config.loader import PyFileConfigLoader

    root = Path(root)
    os.environ["PATH"] = subprocess_env()["PATH"]
    cfg = Config()
    if (root / "nbgrader_config.py").exists():
        cfg = PyFileConfigLoader("nbgrader_config.py", path=str(root)).load_config()
    cfg.merge(Config(overrides or {}))
    cfg.CourseDirectory.root = str(root)
    coursedir = CourseDirectory(config=cfg)
    return NbGraderAPI(coursedir=coursedir, config=cfg)


def _gradebook_fixes(course: Course) -> None:
    """Every use of the gradebook in this process: locked, and without the `alembic` program."""
    from . import gradebook_lock, gradebook_schema

    gradebook_schema.install()
    gradebook_lock.install(course.root)


def _result_error(result: dict) -> str:
    text = (result.get("error") or "") + (result.get("log") or "")
    lines = [ln for ln in text.splitlines() if "ERROR" in ln or "Error" in ln]
    return "\n".join(lines[-8:]) or text[-2000:]


# --- release --------------------------------------------------------------------------------

def release(course: Course, assignments: Iterable[str] | None = None, log: Log = _print) -> int:
    """generate_assignment for each assignment: solutions/<a>/ -> course/<a>/. Returns #errors."""
    _gradebook_fixes(course)
    api = nbgrader_api(course.root)
    errors = 0
    for a in assignments or course.assignments():
        result = api.generate_assignment(a, force=True, create=True)
        if result["success"]:
            for nb in course.released_notebooks(a):
                nbt.strip_file(nb)
            log(f"released {a}: {', '.join(p.name for p in course.released_notebooks(a))}")
        else:
            errors += 1
            log(f"ERROR releasing {a}:\n{_result_error(result)}")
    return errors


def _copy_for_release(course: Course, dest: Path) -> Course:
    dest.mkdir(parents=True, exist_ok=True)
    if (course.root / "nbgrader_config.py").exists():
        shutil.copy2(course.root / "nbgrader_config.py", dest / "nbgrader_config.py")
    shutil.copytree(course.source, dest / "solutions",
                    ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
    return Course(dest)


def release_differences(course: Course, assignments: Iterable[str] | None = None) -> list[str]:
    """How course/ differs from a fresh generate_assignment of solutions/ (empty: equal)."""
    assignments = list(assignments or course.assignments())
    diffs: list[str] = []
    with tempfile.TemporaryDirectory(prefix="grading-release-") as tmp:
        fresh = _copy_for_release(course, Path(tmp))
        if release(fresh, assignments, log=lambda m: None):
            return ["generate_assignment failed on a fresh copy of solutions/"]
        for a in assignments:
            want_dir, have_dir = fresh.release / a, course.release / a
            want = {p.relative_to(want_dir) for p in want_dir.rglob("*") if p.is_file()}
            have = {p.relative_to(have_dir) for p in have_dir.rglob("*") if p.is_file()
                    and ".ipynb_checkpoints" not in p.parts and "__pycache__" not in p.parts}
            for rel in sorted(want - have):
                diffs.append(f"course/{a}/{rel}: missing (run `python -m grading release`)")
            for rel in sorted(have - want):
                diffs.append(f"course/{a}/{rel}: not made from solutions/{a}/ (remove it)")
            for rel in sorted(want & have):
                if rel.suffix == ".ipynb":
                    for d in nbt.release_differences(nbt.read_notebook(want_dir / rel),
                                                     nbt.read_notebook(have_dir / rel)):
                        diffs.append(f"course/{a}/{rel}: {d}")
                elif (want_dir / rel).read_bytes() != (have_dir / rel).read_bytes():
                    diffs.append(f"course/{a}/{rel}: differs from solutions/{a}/{rel}")
    return diffs


# --- strip ----------------------------------------------------------------------------------

def notebooks_under(paths: Iterable[Path]) -> list[Path]:
    found = []
    for p in paths:
        p = Path(p)
        if p.is_file() and p.suffix == ".ipynb":
            found.append(p)
        elif p.is_dir():
            found += [q for q in sorted(p.rglob("*.ipynb")) if ".ipynb_checkpoints" not in q.parts]
    return found


def strip(paths: Iterable[Path], check: bool = False, log: Log = _print) -> list[Path]:
    """Strip outputs of the notebooks under `paths`; return those that had outputs."""
    changed = []
    for nb in notebooks_under(paths):
        if nbt.strip_file(nb, check=check):
            changed.append(nb)
            log(f"{'not stripped' if check else 'stripped'}: {nb}")
    return changed


# --- collect --------------------------------------------------------------------------------

@dataclass
class CollectReport:
    copied: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def _notebook_index(course: Course, assignment: str | None) -> dict[str, str]:
    """{notebook name: assignment} over the released notebooks."""
    index = {}
    assignments = [assignment] if assignment else sorted(
        p.name for p in course.release.iterdir() if p.is_dir()) if course.release.is_dir() else []
    for a in assignments:
        for nb in course.released_notebooks(a):
            index[nb.stem] = a
    return index


def _canonical_stem(stem: str, known: dict[str, str]) -> str | None:
    """'01_tensors (1)', '01_tensors-Copy1' -> '01_tensors' (LMS downloads rename files)."""
    import re

    if stem in known:
        return stem
    base = re.sub(r"[\s_-]*(\(\d+\)|copy\d*)$", "", stem, flags=re.IGNORECASE)
    return base if base in known else None


MAX_NOTEBOOK_MB = 8  # a submitted notebook larger than this is refused


class Refused(Exception):
    """A submitted file that is not collected or graded; the message says why."""


def read_submitted(path: Path) -> bytes:
    """The bytes of a submitted file, read safely: a symbolic link, a file that is not a
    regular file (a FIFO would block forever) or one larger than MAX_NOTEBOOK_MB is Refused."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as e:
        if os.path.islink(path):
            raise Refused("a symbolic link (not followed; submit the file itself)") from None
        raise Refused(f"cannot be read ({e.strerror})") from None
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise Refused("not a regular file")
        limit = MAX_NOTEBOOK_MB * 2**20
        if st.st_size > limit:
            raise Refused(f"too large ({st.st_size / 2**20:.1f} MiB; the limit is "
                          f"{MAX_NOTEBOOK_MB} MiB)")
        data = f.read(limit + 1)
    if len(data) > limit:
        raise Refused(f"too large (more than {MAX_NOTEBOOK_MB} MiB)")
    return data


def _inbox_files(student_dir: Path, report: CollectReport) -> list[Path]:
    """The notebook files under a student's folder; links, other files and unreadable folders
    are reported (never followed)."""
    found = []

    def unreadable(e: OSError) -> None:
        report.skipped.append(f"{e.filename}: cannot be read ({e.strerror})")

    for folder, dirs, files in os.walk(student_dir, onerror=unreadable):
        for d in sorted(dirs):
            if os.path.islink(os.path.join(folder, d)):
                report.errors.append(f"{os.path.join(folder, d)}: a symbolic link (not followed)")
        dirs[:] = sorted(d for d in dirs if d != ".ipynb_checkpoints"
                         and not os.path.islink(os.path.join(folder, d)))
        for name in sorted(files):
            path = Path(folder) / name
            if name.lower().endswith(".ipynb"):
                found.append(path)
            elif not name.startswith("."):
                report.skipped.append(f"{path}: not a notebook (.ipynb)")
    return found


def collect(course: Course, inbox: Path, assignment: str | None = None,
            log: Log = _print) -> CollectReport:
    """Copy INBOX/<student>/**/<notebook>.ipynb to submitted/<student>/<assignment>/.

    A notebook is matched to its assignment by its name (as released in course/). A symbolic
    link, a file that is not a regular file, or one larger than MAX_NOTEBOOK_MB is refused (not
    copied) with a message naming it; a broken notebook (not UTF-8, malformed JSON, not the
    notebook format) is copied (autograde scores it zero and says why) and reported here. One
    bad entry never stops the others.
    """
    report = CollectReport()
    inbox = Path(inbox)
    index = _notebook_index(course, assignment)
    if not index:
        raise SystemExit(f"no released notebooks in {course.release} (run `release` first)")
    broken: set[str] = set()
    for entry in sorted(inbox.iterdir()):
        if entry.is_symlink():
            report.errors.append(f"{entry}: a symbolic link (not followed)")
            continue
        if not entry.is_dir():
            if not entry.name.startswith("."):
                report.skipped.append(f"{entry}: not a student folder")
            continue
        student = entry.name
        if not nbt.notebook_name_ok(student):
            report.skipped.append(f"{entry}: not a usable student id")
            continue
        chosen: dict[str, tuple[Path, bytes, float]] = {}
        for path in _inbox_files(entry, report):
            stem = _canonical_stem(path.stem, index)
            if stem is None:
                report.skipped.append(f"{path}: no released notebook of that name")
                continue
            try:
                data = read_submitted(path)
                mtime = path.lstat().st_mtime
            except Refused as e:
                report.errors.append(f"{path}: {e}")
                continue
            if stem in chosen:
                newer = max(chosen[stem], (path, data, mtime), key=lambda c: c[2])
                report.skipped.append(f"{path}: two files for {stem}.ipynb; using {newer[0]}")
                chosen[stem] = newer
            else:
                chosen[stem] = (path, data, mtime)
        for stem, (path, data, mtime) in sorted(chosen.items()):
            a = index[stem]
            dest = course.submitted / student / a / f"{stem}.ipynb"
            dest.parent.mkdir(parents=True, exist_ok=True)
            if dest.is_symlink():
                dest.unlink()
            dest.write_bytes(data)
            stamp = datetime.fromtimestamp(mtime, timezone.utc)
            (dest.parent / "timestamp.txt").write_text(stamp.strftime("%Y-%m-%d %H:%M:%S.%f %Z"))
            report.copied.append(str(dest.relative_to(course.root)))
            try:
                nbt.read_notebook(dest)
            except nbt.InvalidNotebook as e:
                report.errors.append(f"{path}: {e.reason}")
                broken.add(report.errors[-1])
                log(f"ERROR {path}: {e.reason} (it will score zero)")
    for e in report.errors:
        if e not in broken:
            log(f"REFUSED {e}")
    for s in report.skipped:
        log(f"skipped {s}")
    log(f"collected {len(report.copied)} notebook(s) into {course.submitted}"
        + (f"; {len(report.errors)} refused or broken" if report.errors else ""))
    return report


# --- autograde ------------------------------------------------------------------------------

@dataclass
class Submission:
    """What autograde did with one student's assignment."""

    assignment: str
    student: str
    status: str = "ok"  # ok | skipped | invalid | error | tampered
    notes: list[str] = field(default_factory=list)
    events: list[str] = field(default_factory=list)
    edited_locked_cells: list[str] = field(default_factory=list)
    invalid_notebooks: list[str] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)  # what the learner's code does to the grader
    score: float | None = None
    max_score: float | None = None
    seconds: float = 0.0
    scores: dict | None = None  # Scores.as_dict(): autograded, by hand, pending
    files: dict[str, str] = field(default_factory=dict)  # name -> SHA-256, when it was graded
    regraded: bool = False
    log: str = ""


def submission_files(course: Course, assignment: str, student: str) -> dict[str, str]:
    """{file name: SHA-256 of its content} of a collected submission (its notebooks and
    timestamp.txt): what a resubmission changes."""
    folder = course.submitted / student / assignment
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*"))
            if p.is_file() and ".ipynb_checkpoints" not in p.parts}


def changed_files(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """Names of the files added, removed or changed between two submission_files()."""
    return [name + ("" if name in before and name in after else
                    " (new)" if name in after else " (removed)")
            for name in sorted(set(before) | set(after)) if before.get(name) != after.get(name)]


def locked_cells_changed(release_nb, submitted_nb) -> list[str]:
    """grade_ids of locked cells (tests, read-only) that the submission changed or deleted."""
    submitted = {nbt.grade_id(c): c for c in submitted_nb.cells if nbt.grade_id(c)}
    changed = []
    for cell in release_nb.cells:
        gid = nbt.grade_id(cell)
        if not gid or not nbt.is_locked(cell):
            continue
        other = submitted.get(gid)
        if other is None:
            changed.append(f"{gid} (deleted)")
        elif other.source.rstrip() != cell.source.rstrip() or other.cell_type != cell.cell_type:
            changed.append(gid)
    return changed


def looks_like(release_nb, submitted_nb) -> bool:
    """Does the submission hold at least one of the release's graded or answer cells (by
    grade_id)? A notebook of another assignment under this name holds none."""
    wanted = {nbt.grade_id(c) for c in release_nb.cells
              if nbt.grade_id(c) and (nbt.is_solution(c) or nbt.nbgrader_meta(c).get("grade"))}
    have = {nbt.grade_id(c) for c in submitted_nb.cells}
    return not wanted or bool(wanted & have)


def changed_code(release_nb, submitted_nb):
    """The submission's code cells whose source is not one of the release's (the learner's
    code), with their index."""
    released = {c.source.strip() for c in release_nb.cells if c.cell_type == "code"}
    return [(i, c) for i, c in enumerate(submitted_nb.cells)
            if c.cell_type == "code" and c.source.strip() not in released]


def _precheck(course: Course, sub: Submission) -> list[str]:
    """Read the submitted notebooks; return the names of those that can be autograded. What
    the learner's code does to the grader is listed in sub.flags."""
    from . import tamper

    valid = []
    for rel_path in course.released_notebooks(sub.assignment):
        path = course.submitted / sub.student / sub.assignment / rel_path.name
        if not os.path.lexists(path):
            sub.notes.append(f"{rel_path.name} not submitted (scores zero)")
            continue
        shown = path.relative_to(course.root)
        try:
            read_submitted(path)
            nb = nbt.read_notebook(path)
        except (Refused, nbt.InvalidNotebook) as e:
            reason = e.reason if isinstance(e, nbt.InvalidNotebook) else str(e)
            sub.invalid_notebooks.append(rel_path.stem)
            sub.notes.append(f"ERROR {shown}: not a valid notebook: {reason}; scored zero")
            continue
        release_nb = nbt.read_notebook(rel_path)
        if not looks_like(release_nb, nb):
            sub.invalid_notebooks.append(rel_path.stem)
            sub.notes.append(f"ERROR {shown}: none of the cells of {rel_path.name} is in it "
                             "(another assignment's notebook?); scored zero")
            continue
        known = {nbt.grade_id(c) for c in release_nb.cells if nbt.grade_id(c)}
        unknown = sorted({str(nbt.grade_id(c)) for c in nb.cells if nbt.nbgrader_meta(c)
                          and (nbt.nbgrader_meta(c).get("grade") or nbt.is_solution(c))
                          and nbt.grade_id(c) not in known})
        if unknown:
            sub.invalid_notebooks.append(rel_path.stem)
            sub.notes.append(f"ERROR {shown}: graded cells that are not in {rel_path.name}: "
                             f"{', '.join(unknown)}; scored zero")
            continue
        edited = locked_cells_changed(release_nb, nb)
        if edited:
            sub.edited_locked_cells += edited
            sub.notes.append("locked cell(s) edited: " + ", ".join(edited)
                             + " (graded with the released version)")
        mine = nbt.new_notebook_like(nb, [c for _, c in changed_code(release_nb, nb)])
        sub.flags += [f"{rel_path.stem}: {f}" for f in tamper.static_flags(mine)]
        valid.append(rel_path.stem)
    if sub.flags:
        sub.notes.append(f"FLAGGED: {len(sub.flags)} thing(s) the code does to the grader "
                         "(see report.json)")
    return valid


KERNEL_START_ATTEMPTS = 3
KERNEL_START_FAILURES = ("Kernel didn't respond in", "Kernel died before replying to kernel_info")


def _wall_clock_limit(course: Course, assignment: str, cell_timeout: float) -> float:
    cells = sum(sum(1 for c in nbt.read_notebook(p).cells if c.cell_type == "code")
                for p in course.released_notebooks(assignment))
    return cell_timeout * (cells + 4) + 180


class Worker:
    """A `python -m grading.worker` process: autogrades the jobs it is sent, one at a time."""

    def __init__(self, course: Course, overrides: dict):
        self.course, self.overrides = course, overrides
        self.proc: subprocess.Popen | None = None

    def _start(self) -> None:
        log = self.course.autograded / LOG_DIR / "workers.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        with open(log, "a") as err:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "grading.worker", str(self.course.root),
                 json.dumps(self.overrides)],
                cwd=self.course.root, env=subprocess_env(), stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=err, text=True, start_new_session=True)

    def request(self, job: dict, limit: float) -> dict:
        """Send one job; the worker's reply ({"success", "log", ...}). A worker that takes
        longer than `limit` seconds or dies is killed (the next job gets a new one)."""
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        assert self.proc and self.proc.stdin and self.proc.stdout
        try:
            self.proc.stdin.write(json.dumps(job) + "\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            self.stop()
            return {"success": False, "log": "[grading] WORKER-DIED before the job started\n"}
        ready, _, _ = select.select([self.proc.stdout], [], [], limit)
        line = self.proc.stdout.readline() if ready else ""
        if not line:
            why = "died" if ready else f"took longer than {limit:.0f} s"
            self.stop()
            return {"success": False, "log": f"[grading] WORKER-KILLED: it {why}\n"}
        return json.loads(line)

    def run(self, job: dict, limit: float) -> tuple[bool, str]:
        """Autograde one job; (success, log)."""
        reply = self.request(job, limit)
        return reply["success"], reply["log"]

    def stop(self) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.proc.wait()
        for f in (self.proc.stdin, self.proc.stdout):
            if f:
                f.close()
        self.proc = None

    def close(self) -> None:
        """Let the worker finish (end of its input), or kill it."""
        if self.proc is not None and self.proc.poll() is None and self.proc.stdin:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                pass
        self.stop()


def zero_notebooks(course: Course, assignment: str, student: str, notebooks: Iterable[str],
                   reason: str) -> None:
    """Record zero (with `reason` as the comment) for these notebooks of a submission."""
    from nbgrader.api import Gradebook

    _gradebook_fixes(course)
    with Gradebook(course.db_url) as gb, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SQLAlchemy's autoflush notes from nbgrader's own code
        gb.update_or_create_student(student)
        gb.update_or_create_submission(assignment, student)
        for name in notebooks:
            nb = gb.find_submission_notebook(name, assignment, student)
            for grade in nb.grades:
                grade.auto_score = 0
                grade.manual_score = None
                grade.needs_manual_grade = False
            for comment in nb.comments:
                comment.auto_comment = reason
        gb.db.commit()


def _grade_one(course: Course, sub: Submission, worker: Worker,
               cell_timeout: float) -> Submission:
    start = time.monotonic()
    valid = _precheck(course, sub)
    released = [p.stem for p in course.released_notebooks(sub.assignment)]
    logs = []
    if valid:
        runs = ["*"] if len(valid) == len(released) else valid
        limit = _wall_clock_limit(course, sub.assignment, cell_timeout)
        for notebook in runs:
            for attempt in range(1, KERNEL_START_ATTEMPTS + 1):
                ok, out = worker.run({"assignment": sub.assignment, "student": sub.student,
                                      "notebook": notebook}, limit)
                logs.append(out)
                if ok or not any(m in out for m in KERNEL_START_FAILURES):
                    break
                # The kernel never started: nothing the learner did; try again.
                sub.notes.append(f"kernel did not start (attempt {attempt})")
            for line in out.splitlines():
                if "[grading]" in line:
                    sub.events.append(line.split("[grading]", 1)[1].strip())
            if not ok:
                sub.status = "error"
                sub.notes.append("ERROR nbgrader failed; see the log; scored zero")
                zero_notebooks(course, sub.assignment, sub.student, valid,
                               "Could not be autograded; the instructor will look at it.")
    if sub.invalid_notebooks:
        sub.status = "invalid" if sub.status == "ok" else sub.status
        zero_notebooks(course, sub.assignment, sub.student, sub.invalid_notebooks,
                       "This file is not a valid notebook, so it scored zero.")
    for e in sub.events:
        if e.startswith("CANARY-PASSED"):
            sub.status = "tampered"
            sub.notes.append("TAMPERED: a canary test passed in its kernel; notebook scored "
                             "zero (" + e.split(" ", 1)[1][:160] + ")")
        elif e.startswith("OUTPUT-CUT"):
            if not any(n.startswith("output cut") for n in sub.notes):
                sub.notes.append("output cut at the limit")
        elif e.startswith("UNSANDBOXED"):
            sub.notes.append("NOT SANDBOXED: " + e.split(" ", 1)[1])
        elif e.startswith("KERNEL-DIED"):
            sub.notes.append("kernel died: notebook scored zero")
        elif e.startswith("KERNEL-UNRESPONSIVE"):
            sub.notes.append("kernel stopped responding after a timeout: notebook scored zero")
        elif e.startswith("TIMEOUT"):
            sub.notes.append("timeout: " + e.split(" ", 1)[1])
    sub.log = "\n".join(logs)
    sub.seconds = time.monotonic() - start
    return sub


def submission_scores(course: Course, assignment: str) -> dict[str, Scores]:
    """{student: Scores (autograded, by hand, pending)} from the gradebook."""
    from nbgrader.api import Gradebook

    _gradebook_fixes(course)
    with Gradebook(course.db_url) as gb:
        return scores.assignment_scores(gb, assignment)


def autograde(course: Course, assignments: Iterable[str] | None = None,
              students: Iterable[str] | None = None, jobs: int | None = None,
              timeout: float | None = None, force: bool = False, sandbox: str | None = None,
              progress: bool = True, log: Log = _print,
              canaries: int | None = None) -> list[Submission]:
    """Autograde every collected submission, `jobs` students at a time: first the canaries of
    each notebook are verified against its solution (once per version), then the students."""
    from tqdm import tqdm

    _gradebook_fixes(course)
    jobs = jobs or os.cpu_count() or 1
    overrides: dict = {}
    if timeout:
        overrides["Execute"] = {"timeout": int(timeout)}
    if sandbox:
        overrides["SandboxKernelManager"] = {"mode": sandbox}
    overrides["SafeExecute"] = {"canary_file": str(_canary_file(course))}
    if canaries is not None:
        overrides["SafeExecute"]["canaries"] = canaries
    cell_timeout = timeout or nbgrader_api(course.root).config.Execute.get("timeout", 60)
    todo: list[Submission] = []
    done: list[Submission] = []
    wanted = set(students or [])
    for a in assignments or course.assignments():
        if not course.released_notebooks(a):
            log(f"ERROR {a}: not released (run `python -m grading release {a}`)")
            continue
        recorded = _read_report(course, a)  # what the last runs said, with the files they graded
        for s in course.students(a):
            if wanted and s not in wanted:
                continue
            sub = Submission(a, s, files=submission_files(course, a, s))
            if (course.autograded / s / a).exists() and not force:
                before = recorded.get(s, {}).get("files")
                if before == sub.files:
                    sub.status = "skipped"
                    sub.notes.append("unchanged since it was graded (use --force to grade again)")
                    done.append(sub)
                    continue
                sub.regraded = True
                sub.notes.append("regraded: " + (
                    "graded before its files were recorded" if before is None else
                    "the resubmission changed " + ", ".join(changed_files(before, sub.files))))
            todo.append(sub)
    bar = tqdm(total=len(todo), desc="autograde", unit="nb", disable=not progress,
               file=sys.stderr)
    workers: list[Worker] = []
    local = threading.local()

    def grade(sub: Submission) -> Submission:
        if not hasattr(local, "worker"):  # one worker process per thread, reused
            local.worker = Worker(course, overrides)
            workers.append(local.worker)
        return _grade_one(course, sub, local.worker, cell_timeout)

    def verify(item: tuple[str, Path]) -> tuple[str, Path, dict]:
        if not hasattr(local, "worker"):
            local.worker = Worker(course, overrides)
            workers.append(local.worker)
        limit = _wall_clock_limit(course, item[0], cell_timeout) * 3
        return (*item, local.worker.request({"verify": str(item[1])}, limit))

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        pending = _canaries_to_verify(course, {s.assignment for s in todo}) if canaries != 0 else []
        for a, path, reply in pool.map(verify, pending):
            _store_canaries(course, a, path, reply.get("verified") or {})
            if not reply.get("success"):
                log(f"WARNING {a}/{path.name}: canaries not verified ({reply.get('log')}); its "
                    "submissions get the fallback canary")
        futures = {pool.submit(grade, sub): sub for sub in todo}
        for fut in as_completed(futures):
            sub = futures[fut]
            try:
                fut.result()
            except Exception as e:  # the pipeline itself failed on this one: report, go on
                sub.status = "error"
                sub.notes.append(f"ERROR {type(e).__name__}: {e}")
            done.append(sub)
            bar.set_postfix_str(f"{sub.student}: {sub.status}"
                                + (f" ({sub.events[-1].split()[0].lower()})" if sub.events else ""))
            bar.update()
    bar.close()
    for w in workers:
        w.close()
    for a in sorted({s.assignment for s in done}):
        got = submission_scores(course, a)
        mine = sorted((s for s in done if s.assignment == a), key=lambda s: s.student)
        for sub in mine:
            if sub.student in got:
                sub.scores = got[sub.student].as_dict()
                sub.score, sub.max_score = got[sub.student].total, got[sub.student].total_max
        _write_report(course, a, mine)
        log(_format_report(a, mine))
    return done


def _canary_file(course: Course) -> Path:
    return course.autograded / LOG_DIR / "canaries.json"


def _canary_record(course: Course) -> dict:
    path = _canary_file(course)
    try:
        return json.loads(path.read_text()).get("notebooks", {}) if path.exists() else {}
    except ValueError:
        return {}


def _canaries_to_verify(course: Course, assignments: Iterable[str]) -> list[tuple[str, Path]]:
    """Solution notebooks whose canaries were not verified against this version of them."""
    record = _canary_record(course)
    todo = []
    for a in sorted(assignments):
        for path in course.source_notebooks(a):
            if not nbt.is_graded(nbt.read_notebook(path)):
                continue
            sha = hashlib.sha256(path.read_bytes()).hexdigest()
            if record.get(f"{a}/{path.name}", {}).get("sha") != sha:
                todo.append((a, path))
    return todo


def _store_canaries(course: Course, assignment: str, path: Path, verified: dict) -> None:
    """Record the verified canaries of a solution notebook; grading.tamper.load_verified reads
    the merged {test source key: [canaries]} under "verified"."""
    record = _canary_record(course)
    record[f"{assignment}/{path.name}"] = {"sha": hashlib.sha256(path.read_bytes()).hexdigest(),
                                           "verified": verified}
    merged = {k: v for r in record.values() for k, v in r["verified"].items()}
    out = _canary_file(course)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"notebooks": record, "verified": merged}, indent=1))


def _read_report(course: Course, assignment: str) -> dict[str, dict]:
    """What the runs so far recorded about each submission: {student: Submission as a dict}."""
    path = course.log_dir(assignment) / "report.json"
    return json.loads(path.read_text()) if path.exists() else {}


def _write_report(course: Course, assignment: str, subs: list[Submission]) -> None:
    d = course.log_dir(assignment)
    d.mkdir(parents=True, exist_ok=True)
    for sub in subs:
        if sub.log:
            (d / f"{sub.student}.log").write_text(sub.log)
    path = d / "report.json"
    report = _read_report(course, assignment)
    for s in subs:  # a submission skipped this time keeps what the last run said about it
        if s.status != "skipped" or s.student not in report:
            report[s.student] = {k: v for k, v in asdict(s).items() if k != "log"}
    path.write_text(json.dumps(dict(sorted(report.items())), indent=1))


def _format_report(assignment: str, subs: list[Submission]) -> str:
    """The table: per student the autograded points, those graded by hand (and how many wait to
    be), the total so far, and what happened."""
    lines = [f"autograde {assignment}: {len(subs)} submission(s)"]
    width = max([len(s.student) for s in subs] + [7])
    rows = []
    for s in subs:
        sc = Scores.from_dict(s.scores) if s.scores else None
        rows.append((s.student,
                     f"{sc.auto:g} / {sc.auto_max:g}" if sc else "-",
                     sc.hand_text() if sc else "-",
                     f"{sc.total:g} / {sc.total_max:g}" if sc else "-",
                     "; ".join(s.notes) or ("ok" if s.status == "ok" else s.status)))
    hand_w = max([len(r[2]) for r in rows] + [7])
    lines.append(f"  {'student':<{width}}  {'autograded':>10}  {'by hand':<{hand_w}}  "
                 f"{'total':>9}  notes")
    for student, auto, hand, total, notes in rows:
        lines.append(f"  {student:<{width}}  {auto:>10}  {hand:<{hand_w}}  {total:>9}  {notes}")
    pending = [s for s in subs if s.scores and s.scores["pending"]]
    if pending:
        points = sum(s.scores["pending"] for s in pending)
        lines.append(f"  {len(pending)} submission(s) have {points:g} point(s) of answers to grade "
                     "by hand (Formgrader, Manual Grading); the totals do not count them yet")
    regraded = [s.student for s in subs if s.regraded]
    unchanged = [s.student for s in subs if s.status == "skipped"]
    if regraded:
        lines.append(f"  regraded, changed since graded: {', '.join(regraded)}")
    if unchanged:
        lines.append(f"  not regraded, unchanged: {', '.join(unchanged)}")
    return "\n".join(lines)


# --- feedback and export --------------------------------------------------------------------

def ungraded_answers(course: Course, assignment: str) -> dict[str, Scores]:
    """{student: Scores} of the submissions that have answers still to be graded by hand."""
    return {s: sc for s, sc in submission_scores(course, assignment).items() if sc.pending}


def feedback(course: Course, assignments: Iterable[str] | None = None, progress: bool = True,
             log: Log = _print, students: Iterable[str] | None = None) -> int:
    """generate_feedback for every autograded submission, one at a time with a progress bar.
    Warns first about answers not graded by hand yet (their feedback says so). Returns #errors."""
    from tqdm import tqdm

    _gradebook_fixes(course)
    api = nbgrader_api(course.root)
    errors = 0
    for a in assignments or course.assignments():
        wanted = set(students or [])
        graded = sorted(p.parent.name for p in course.autograded.glob(f"*/{a}")
                        if p.is_dir() and not p.parent.name.startswith(".")
                        and (not wanted or p.parent.name in wanted))
        if not graded:
            continue
        waiting = ungraded_answers(course, a)
        if waiting:
            answers = sum(len(sc.pending_cells) for sc in waiting.values())
            log(f"WARNING {a}: {answers} written answer(s) of {len(waiting)} student(s) are not "
                f"graded yet ({', '.join(sorted(waiting))}): their feedback shows them as not "
                "graded. Grade them in Formgrader (Manual Grading), then run feedback again.")
        failed = []
        for student in tqdm(graded, desc=f"feedback {a}", unit="student", disable=not progress,
                            file=sys.stderr):
            result = api.generate_feedback(a, student, force=True)
            if not result["success"]:
                failed.append(student)
                log(f"ERROR feedback {a} {student}:\n{_result_error(result)}")
        errors += len(failed)
        n = len(list(course.feedback.glob(f"*/{a}/*.html")))
        log(f"feedback {a}: {n} file(s) in {course.feedback}"
            + (f"; {len(failed)} failed: {', '.join(failed)}" if failed else ""))
    return errors


def export(course: Course, out: Path, log: Log = _print) -> Path:
    """Write grades as CSV: nbgrader's columns (one row per student and assignment), then the
    autograded points, those graded by hand and those still to be graded by hand."""
    from nbgrader.api import Gradebook

    _gradebook_fixes(course)
    out = Path(out).resolve()
    with Gradebook(course.db_url) as gb:
        scores.export_csv(gb, out)
    log(f"grades written to {out}")
    return out
