"""A hostile class against autograde, as root and as an ordinary user (issue 13).

One course (``98_hostile``, tests/hostile.py) is collected and autograded once per user, with
every attacking submission of tests/hostile.py, broken inbox entries, an honest student and a
blank one in the same run (two jobs at a time, 4 s per cell). The tests then read what came of
each: points not earned (canaries, checks of concrete types), secrets not reached, limits held,
nothing left behind, output bounded, feedback inert. A control run of the tampering attacks with
the canaries off shows that they do earn points without them.

As an ordinary user (``alhostile``, created and removed here, root only): the same grading,
inside a mount namespace in which a Python under /root is reachable (tests/test_hub.py's
MountNamespace), run with ``runuser``. Skipped unless run as root on Linux with bubblewrap.
``HOSTILE_ONLY=name,name`` submits only those attacks (for working on one).
"""

from __future__ import annotations

import fcntl
import json
import os
import pwd
import re
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import hostile  # noqa: E402
import pipeline_helpers as h  # noqa: E402
from hostile import ASSIGNMENT, ATTACKS, MARK  # noqa: E402
from pipeline_helpers import REPO, nbtools  # noqa: E402

from grading import sandbox  # noqa: E402

USER = "alhostile"
CELL_TIMEOUT = 4
NB = f"{ASSIGNMENT}.ipynb"
# What the course's own nbgrader_config.py gets on top, for this test: small limits, so that the
# memory and disk attacks reach them fast and the machine is never at risk.
LIMITS = ("\nc.SandboxKernelManager.memory_limit_mb = 1024\n"
          "c.SandboxKernelManager.process_memory_limit_mb = 2048\n"
          "c.SandboxKernelManager.disk_limit_mb = 64\n"
          "c.SandboxKernelManager.file_size_limit_mb = 32\n")
OUTPUT_CAP = 2048 * 1024  # SafeExecute.max_notebook_output_kb
NOTEBOOK_CAP = 4 * 2**20  # an autograded notebook of this assignment stays below this
FEEDBACK_CAP = 8 * 2**20  # and its feedback page (MathJax is ~2 MB of it)
FEEDBACK_FOR = ["honest", "script-and-handlers-in-outputs", "script-in-written-answer",
                "prints-20-mib", "displays-one-40-mib-output", "displays-many-images",
                "writes-20-mib-to-its-own-stderr-fd", "updates-displays-to-10-mib"]


def _skip_reason() -> str | None:
    if not sys.platform.startswith("linux"):
        return "the sandbox is Linux-only"
    ok, why = sandbox.bwrap_works()
    return None if ok else why


pytestmark = [pytest.mark.slow, pytest.mark.skipif(_skip_reason() is not None,
                                                    reason=str(_skip_reason()))]


# --- building one run -----------------------------------------------------------------------

def _inbox_entries(root: Path, inbox: Path, release) -> dict[str, str]:
    """Broken or malicious inbox entries: {student: what collect or autograde must say}."""
    nb_name = NB
    sol = root / "solutions" / ASSIGNMENT / NB

    def folder(student: str) -> Path:
        path = inbox / student
        path.mkdir(parents=True)
        return path

    (folder("symlinked-notebook") / nb_name).symlink_to(sol)
    target = root / "elsewhere"
    target.mkdir()
    shutil.copy2(sol, target / nb_name)
    (inbox / "symlinked-folder").symlink_to(target)
    big = nbtools.answer(release, hostile.BLANK)
    big.cells.append(nbformat.v4.new_markdown_cell("x" * (9 * 2**20)))
    nbformat.write(big, folder("huge") / nb_name)
    (folder("not-utf8") / nb_name).write_bytes(b'{"cells": [], "x": "\xff\xfe\xfa"}')
    (folder("malformed") / nb_name).write_text('{"cells": [{"cell_type": "code",')
    shutil.copy2(REPO / "course" / "01_tensors" / "01_tensors.ipynb",
                 folder("wrong-assignment") / nb_name)
    (folder("not-a-notebook") / nb_name).write_bytes(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    (inbox / "not-a-notebook" / "essay.pdf").write_bytes(b"%PDF-1.4\n")
    os.mkfifo(folder("fifo") / nb_name)
    fake = nbtools.answer(release, hostile.BLANK)
    fake.cells.append(h.tests("bonus", 100, "pass"))
    nbformat.write(fake, folder("fake-grade-cell") / nb_name)
    gone = nbtools.answer(release, hostile.BLANK)
    gone.cells = [c for c in gone.cells if not (nbtools.grade_id(c) or "").startswith("test_")]
    nbformat.write(gone, folder("deleted-tests") / nb_name)
    edited = nbtools.answer(release, hostile.BLANK)
    for c in edited.cells:
        if (nbtools.grade_id(c) or "").startswith("test_"):
            c.source = "pass  # the tests were in the way"
    nbformat.write(edited, folder("edited-tests") / nb_name)
    return {"symlinked-notebook": "a symbolic link", "symlinked-folder": "a symbolic link",
            "huge": "too large", "not-utf8": "not a valid notebook",
            "malformed": "malformed JSON", "wrong-assignment": "none of the cells",
            "not-a-notebook": "not a valid notebook", "fifo": "not a regular file"}


def build(root: Path, as_user: str | None, enter: list[str]) -> dict:
    """Release, submit, collect, autograde (and a control run), feedback; as `as_user` (None:
    root) through `enter` (a command prefix). Returns what the tests read."""
    h.make_course_copy(root, with_solutions=False)
    with open(root / "nbgrader_config.py", "a") as f:
        f.write(LIMITS)
    (root / "solutions" / ASSIGNMENT).mkdir(parents=True)
    nbformat.write(hostile.notebook(), root / "solutions" / ASSIGNMENT / NB)
    home = root / "home"
    home.mkdir()
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(5)
    tmp = root / "tmp"  # the grader's own temporary files (the kernels' staging folders)
    tmp.mkdir()
    env = {**os.environ, hostile.ENV_SECRET: "instructor-secret-1234",
           "HOSTILE_PORT": str(listener.getsockname()[1]), "HOME": str(home), "TMPDIR": str(tmp),
           "PYTHONPATH": str(REPO)}  # entering a mount namespace puts the cwd at /
    if as_user:
        subprocess.run(["chown", "-R", as_user, str(root)], check=True)
    out = {"root": str(root), "runs": {}, "user": as_user}

    def cli(name: str, *args: str) -> subprocess.CompletedProcess:
        r = subprocess.run([*enter, sys.executable, "-m", "grading", "--root", str(root), *args],
                           cwd=REPO, capture_output=True, text=True, timeout=1200, env=env)
        out["runs"][name] = {"code": r.returncode, "stdout": r.stdout, "stderr": r.stderr[-20000:]}
        return r

    r = cli("release", "release")
    assert r.returncode == 0, r.stdout + r.stderr
    release = nbtools.read_notebook(root / "course" / ASSIGNMENT / NB)
    inbox = root / "inbox"
    only = set(filter(None, os.environ.get("HOSTILE_ONLY", "").split(",")))
    attacks = [a for a in ATTACKS if (a.user or not as_user) and (not only or a.name in only)]
    for a in attacks:
        h.submit(root, a.name, ASSIGNMENT, ASSIGNMENT, nbtools.answer(release, a.answers()))
    h.submit(root, "honest", ASSIGNMENT, ASSIGNMENT, nbtools.answer(release, hostile.GOOD))
    h.submit(root, "blank", ASSIGNMENT, ASSIGNMENT, release)
    markdown = nbtools.answer(release, hostile.GOOD)
    for c in markdown.cells:
        if nbtools.grade_id(c) == "why":
            c.source = hostile.MARKDOWN_ATTACK
    h.submit(root, "script-in-written-answer", ASSIGNMENT, ASSIGNMENT, markdown)
    out["entries"] = _inbox_entries(root, inbox, release) if not as_user else {}
    if as_user:
        subprocess.run(["chown", "-R", "-h", as_user, str(inbox)], check=True)
    cli("collect", "collect", str(inbox))
    cli("autograde", "autograde", "--jobs", "2", "--timeout", str(CELL_TIMEOUT))
    cli("feedback", "feedback", "--no-progress", *[f"--student={s}" for s in FEEDBACK_FOR])
    out["leftovers"] = leftovers(tmp)
    listener.close()
    if not as_user:  # control: the tampering attacks with the canaries off, in another course
        control = root / "control"
        control.mkdir()
        tampering = [a for a in attacks if "tampered" in a.expect]
        for a in tampering:
            h.submit(control, f"control-{a.name}", ASSIGNMENT, ASSIGNMENT,
                     nbtools.answer(release, a.answers()))
        if tampering:
            cli("collect-control", "collect", str(control / "inbox"))
            cli("control", "autograde", *[f"--student=control-{a.name}" for a in tampering],
                "--jobs", "2", "--timeout", str(CELL_TIMEOUT), "--canaries", "0")
    return out


def leftovers(tmp: Path) -> dict[str, list[str]]:
    """Processes and files with the attacks' mark, sandbox cgroups and staging folders."""
    procs = []
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                cmd = Path(f"/proc/{p}/cmdline").read_bytes()
            except OSError:
                continue
            if MARK.encode() in cmd and b"pytest" not in cmd:
                procs.append(f"{p}: {cmd[:120]!r}")
    files = [str(p) for d in ("/tmp", "/dev/shm", "/var/tmp") for p in Path(d).glob(f"*{MARK}*")]
    staging = [str(p) for p in tmp.glob("grading-kernel-*")]
    # a sandbox cgroup that outlived its grader (whose pid its name holds); a live grader's is another
    # grading's still at work (a pytest-xdist worker's)
    cgroups = [str(p) for p in Path("/sys/fs/cgroup").glob(f"**/{sandbox.CGROUP_PREFIX}*")
               if not Path("/proc", p.name[len(sandbox.CGROUP_PREFIX):].split("-")[0]).exists()]
    return {"processes": procs, "files": files, "staging": staging, "cgroups": cgroups}


def _shared(request, tmp_path_factory, name: str, make) -> dict:
    """Build once per session, also under pytest-xdist (as test_pipeline does)."""
    if not hasattr(request.config, "workerinput"):
        return make(tmp_path_factory.mktemp(name))
    base = tmp_path_factory.getbasetemp().parent
    with open(base / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = base / f"{name}.json"
        if done.exists():
            return json.loads(done.read_text())
        result = make(base / name)
        done.write_text(json.dumps(result))
        return result


@pytest.fixture(scope="session")
def as_root(request, tmp_path_factory) -> dict:
    if os.geteuid() != 0:
        pytest.skip("grading as root needs root")
    return _shared(request, tmp_path_factory, "hostile-root", lambda p: build(p, None, []))


@pytest.fixture(scope="session")
def as_user(request, tmp_path_factory) -> dict:
    if os.geteuid() != 0:
        pytest.skip("creating the ordinary user needs root")
    if shutil.which("useradd") is None or shutil.which("runuser") is None:
        pytest.skip("useradd or runuser is missing")

    def make(path: Path) -> dict:
        from test_hub import MountNamespace

        subprocess.run(["userdel", USER], capture_output=True)
        subprocess.run(["useradd", "--no-create-home", "--shell", "/usr/sbin/nologin", USER],
                       check=True, capture_output=True)
        path.mkdir(parents=True, exist_ok=True)
        os.chmod(path, 0o755)
        for parent in path.parents:  # pytest's folders are 0700: let the user pass
            if str(parent).startswith("/tmp/") and parent.stat().st_uid == 0:
                os.chmod(parent, parent.stat().st_mode | 0o711)
        namespace = MountNamespace(path)
        try:
            return build(path / "course", USER, [*namespace.enter, "runuser", "-u", USER, "--"])
        finally:
            namespace.close()
            subprocess.run(["pkill", "-KILL", "-u", USER], capture_output=True)
            subprocess.run(["userdel", USER], capture_output=True)

    return _shared(request, tmp_path_factory, "hostile-user", make)


@pytest.fixture(params=["root", "user"])
def run(request) -> dict:
    return request.getfixturevalue("as_root" if request.param == "root" else "as_user")


# --- reading results ------------------------------------------------------------------------

def report(run: dict) -> dict:
    path = Path(run["root"]) / "autograded" / ".grading-logs" / ASSIGNMENT / "report.json"
    return json.loads(path.read_text())


def auto(run: dict, student: str) -> float:
    sc = report(run)[student]["scores"]
    return sc["auto"] if sc else 0.0


def outputs(run: dict, student: str) -> str:
    path = Path(run["root"]) / "autograded" / student / ASSIGNMENT / NB
    nb = nbformat.read(path, 4)
    texts = []
    for c in nb.cells:
        for o in c.get("outputs", []):
            texts.append(o.get("text", "") + str(o.get("evalue", "")) + str(o.get("data", "")))
    return "\n".join(texts)


def _table(run: dict) -> str:
    return run["runs"]["autograde"]["stdout"]


# --- the honest and the blank student, in the same run --------------------------------------

def test_honest_student_full_marks_and_blank_zero(run):
    rep = report(run)
    assert auto(run, "honest") == hostile.AUTO_MAX, (rep["honest"], _table(run))
    assert rep["honest"]["status"] == "ok" and not rep["honest"]["flags"], rep["honest"]
    assert auto(run, "blank") == 0, rep["blank"]
    assert len(rep) >= len([a for a in ATTACKS if a.user or not run["user"]]) + 2


def test_autograde_says_what_the_sandbox_guarantees(run):
    out = _table(run)
    who = "root" if run["user"] is None else "an ordinary user"
    assert f"sandbox: sandboxed with bubblewrap, as {who}" in out, out[:2000]
    if run["user"]:
        assert "WEAKER HERE" in out and "kernel keeps your user id" in out, out[:2000]


# --- every attack ---------------------------------------------------------------------------

def _ids(attacks):
    return [f"{a.kind}:{a.name}" for a in attacks]


@pytest.mark.parametrize("attack", ATTACKS, ids=_ids(ATTACKS))
def test_attack(run, attack):
    if run["user"] and not attack.user:
        pytest.skip("root run only")
    rep = report(run)[attack.name]
    got = auto(run, attack.name)
    text = outputs(run, attack.name)
    why = f"{rep}\n{text[:3000]}"
    if "zero" in attack.expect:
        assert got == 0, f"earned {got} points: {why}"
    if "full" in attack.expect:
        assert got == hostile.AUTO_MAX, f"earned {got} of {hostile.AUTO_MAX}: {why}"
    if "tampered" in attack.expect:
        assert rep["status"] == "tampered", why
        assert any(e.startswith("CANARY-PASSED") for e in rep["events"]), why
    if "flagged" in attack.expect:
        assert rep["flags"], f"not flagged: {why}"
    if "died" in attack.expect:
        assert any(e.startswith("KERNEL-DIED") for e in rep["events"]), why
    if "graded" in attack.expect:
        assert rep["scores"] is not None and rep["status"] in ("ok", "tampered"), why
    leaks = [ln for ln in text.splitlines() if ln.startswith("LEAK")]
    assert not leaks, f"{attack.name} reached secrets: {leaks}"


def test_canaries_are_what_stops_the_tampering(as_root):
    """Control: the same tampering with the canaries off earns points; with them, none."""
    rep = report(as_root)
    tampering = [a.name for a in hostile.POINTS if "tampered" in a.expect]
    earned = {n: rep[f"control-{n}"]["scores"]["auto"] for n in tampering}
    assert all(v == hostile.AUTO_MAX for v in earned.values()), earned
    assert all(rep[n]["scores"]["auto"] == 0 for n in tampering)


def test_canaries_were_verified_against_the_solution(run):
    path = Path(run["root"]) / "autograded" / ".grading-logs" / "canaries.json"
    record = json.loads(path.read_text())
    verified = record["notebooks"][f"{ASSIGNMENT}/{NB}"]["verified"]
    assert sum(len(v) for v in verified.values()) >= 3, record


def test_forked_children_never_hold_beyond_the_limit(run):
    rep = report(run)["forked-children-exceed-memory"]
    text = outputs(run, "forked-children-exceed-memory")
    died = any(e.startswith("KERNEL-DIED") for e in rep["events"])
    kept = re.findall(r"EVIDENCE children that kept 600 MiB: (\d)", text)
    # 3 x 600 MiB at once (2048 MiB each may) against 1024 MiB for the whole sandbox: the
    # cgroup kills children, or the watchdog the whole sandbox
    assert died or (kept and int(kept[0]) <= 1 and "running: 0" in text), f"{rep}\n{text[:2000]}"


def test_fork_bomb_stops_at_the_task_limit(run):
    text = outputs(run, "fork-bomb")
    n = re.findall(r"EVIDENCE forked (\d+)", text)
    rep = report(run)["fork-bomb"]
    assert (n and int(n[0]) < 256) or any("KERNEL" in e for e in rep["events"]), (rep, text[:500])


def test_disk_is_limited(run):
    text = outputs(run, "fills-the-disk")
    stopped = re.findall(r"EVIDENCE stopped (\S+)", text)
    assert {"/tmp", "/dev/shm"} <= set(stopped), text[:2000]


def test_nothing_of_a_submission_survives_its_grading(run):
    left = run["leftovers"]
    assert not left["processes"], left["processes"]
    assert not left["files"], left["files"]
    assert not left["staging"], left["staging"]
    assert not left["cgroups"], left["cgroups"]


# --- bounded output -------------------------------------------------------------------------

@pytest.mark.parametrize("student", ["prints-20-mib", "displays-one-40-mib-output",
                                     "displays-many-images", "writes-20-mib-to-its-own-stderr-fd",
                                     "updates-displays-to-10-mib"])
def test_output_is_bounded(run, student):
    root = Path(run["root"])
    graded = root / "autograded" / student / ASSIGNMENT / NB
    assert graded.stat().st_size < NOTEBOOK_CAP, graded.stat().st_size
    page = root / "feedback" / student / ASSIGNMENT / f"{ASSIGNMENT}.html"
    assert page.stat().st_size < FEEDBACK_CAP, page.stat().st_size
    if student in ("prints-20-mib", "displays-many-images"):
        assert "[grading: more output than the" in page.read_text(), "the feedback says so"
    log = root / "autograded" / ".grading-logs" / "workers.log"
    assert log.stat().st_size < 8 * 2**20, log.stat().st_size


# --- the run always finishes ----------------------------------------------------------------

def test_broken_inbox_entries_are_refused_by_name(as_root):
    collect = as_root["runs"]["collect"]
    assert collect["code"] == 0, collect["stderr"]
    said = collect["stdout"] + _table(as_root)
    rep = report(as_root)
    for student, reason in as_root["entries"].items():
        lines = [ln for ln in said.splitlines() if student in ln and reason in ln]
        assert lines, f"{student}: nothing says {reason!r}:\n{said[-4000:]}"
        if student in rep:
            assert rep[student]["status"] == "invalid" and auto(as_root, student) == 0
    assert "essay.pdf: not a notebook" in collect["stdout"]


@pytest.mark.parametrize("student", ["fake-grade-cell", "deleted-tests", "edited-tests"])
def test_test_cells_cannot_be_faked_deleted_or_edited(as_root, student):
    rep = report(as_root)[student]
    assert rep["scores"]["auto"] == 0 and rep["scores"]["auto_max"] == hostile.AUTO_MAX, rep


# --- feedback and Formgrader ----------------------------------------------------------------

SCRIPTED = ["script-and-handlers-in-outputs", "script-in-written-answer"]


def _inert(html: str) -> list[str]:
    """What of the attacks' payloads (each sets window.PWNED) could still run in this page: a
    script element, an event handler or a javascript: URL that holds one (as text, escaped in a
    code listing, they are harmless)."""
    from html.parser import HTMLParser

    found: list[str] = []

    class Finder(HTMLParser):
        in_script = False

        def handle_starttag(self, tag, attrs):
            self.in_script = tag == "script"
            for name, value in attrs:
                value = value or ""
                if "PWNED" in value and (name.startswith("on") or "javascript:" in value):
                    found.append(f"<{tag} {name}={value!r}>")

        def handle_endtag(self, tag):
            self.in_script = False

        def handle_data(self, data):
            if self.in_script and "PWNED" in data:
                found.append(f"<script>{data[:80]}")

    Finder().feed(html)
    return found


@pytest.mark.parametrize("student", SCRIPTED)
def test_feedback_is_inert(as_root, student):
    page = Path(as_root["root"]) / "feedback" / student / ASSIGNMENT / f"{ASSIGNMENT}.html"
    html = page.read_text()
    assert not _inert(html), _inert(html)
    assert "<b>bold</b>" in html or student != SCRIPTED[0], "harmless HTML is kept"


@pytest.mark.parametrize("student", SCRIPTED)
def test_formgrader_shows_the_submission_inert(as_root, student):
    """Render the autograded notebook as Formgrader's Manual Grading page does."""
    from nbconvert.exporters import HTMLExporter
    from nbgrader.server_extensions.formgrader import handlers

    from grading import pipeline

    root = Path(as_root["root"])
    config = pipeline.nbgrader_api(root).config
    config.HTMLExporter.template_name = "formgrade"
    config.HTMLExporter.extra_template_basedirs = [handlers.template_path]
    exporter = HTMLExporter(config=config)
    resources = {"assignment_id": ASSIGNMENT, "notebook_id": ASSIGNMENT, "submission_id": "s",
                 "index": 0, "total": 1, "base_url": "", "student": student, "last_name": "",
                 "first_name": "", "notebook_path": "/x.ipynb"}  # as formgrader's handler
    html, _ = exporter.from_filename(str(root / "autograded" / student / ASSIGNMENT / NB),
                                     resources=resources)
    assert not _inert(html), _inert(html)
    nb = nbformat.read(root / "autograded" / student / ASSIGNMENT / NB, 4)
    stored = json.dumps([c.get("outputs", []) for c in nb.cells])
    assert "PWNED" not in stored, "the outputs stored in the autograded notebook are clean"


def test_the_user_is_removed_afterwards(as_user):
    with pytest.raises(KeyError):
        pwd.getpwnam(USER)
