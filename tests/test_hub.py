"""A class on JupyterHub, the whole round, as deploy/ sets it up (docs/instructor-guide.md).

As root, ``deploy/hub.py`` sets up a hub in a temporary prefix, listening on 127.0.0.1 (free
ports): PAM login, each user's JupyterLab spawned as that user, nbgrader's exchange. The test
creates the system users ``alhub-inst`` (instructor) and ``alhub-s1..3`` (students) and removes
them, with their homes, afterwards. Then, as the Assignment List and Formgrader do it, through
each user's own server and its nbgrader REST handlers (authenticated with a hub token):

* the instructor generates 01_tensors (``python -m grading release``, in the course directory)
  and releases it to the exchange (Formgrader's Release);
* a student logs in with its password in Chromium and sees the assignment in its Assignment List;
* each student fetches it, saves its work (s1: every answer from the solutions; s2: nothing;
  s3: two exercises of five), s1 validates, and each submits;
* the instructor collects (Formgrader's Collect), ``deploy/hub.py autograde`` grades as root, and
  the scores are full, zero and in between; feedback goes back through the exchange.

Nothing global is written: no /etc/jupyter, no /usr/local/share/nbgrader. The users' servers
and the hub only listen on 127.0.0.1. Skipped unless run as root on Linux with
configurable-http-proxy. The users' servers run from this venv; where other users cannot reach
it, see ``MountNamespace``.
"""

from __future__ import annotations

import grp
import importlib.util
import json
import os
import pwd
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lab_helpers import free_port  # noqa: E402

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
HUB_PY = ROOT / "deploy" / "hub.py"
ASSIGNMENT, NOTEBOOK, COURSE_ID = "01_tensors", "01_tensors.ipynb", "autograd-lab"
INSTRUCTOR, STUDENTS, GROUP = "alhub-inst", ["alhub-s1", "alhub-s2", "alhub-s3"], "alhub-students"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-background-networking", "--disable-gpu",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
ARTIFACTS = ROOT / "artifacts" / "hub"
SOLVED_BY_S3 = 2  # s3 answers this many of the exercises


def load_hub_module():
    spec = importlib.util.spec_from_file_location("deploy_hub", HUB_PY)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


hubctl = load_hub_module()


def skip_reason() -> str | None:
    if not sys.platform.startswith("linux"):
        return "the hub set-up is for Linux"
    if os.geteuid() != 0:
        return "needs root: creates system users and runs JupyterHub, which logs in with PAM"
    for tool in ("useradd", "userdel", "groupdel", "chpasswd"):
        if shutil.which(tool) is None:
            return f"{tool} is missing"
    if importlib.util.find_spec("jupyterhub") is None:
        return "JupyterHub is not installed: pip install -e '.[dev]' (the `hub` extra)"
    if shutil.which("configurable-http-proxy") is None:
        return "configurable-http-proxy is missing: python3 deploy/hub.py install-proxy"
    return None


def blocking_dir(path: Path) -> Path | None:
    """The first folder on the way to `path` that other users cannot pass, or None."""
    for folder in [*reversed(path.parents), path]:
        if folder.is_dir() and not folder.stat().st_mode & 0o001:
            return folder
    return None


class MountNamespace:
    """Where this interpreter or the repository is out of other users' reach (a pyenv Python
    under /root, mode 700), the hub runs in a private mount namespace in which the blocking
    folder is covered by an empty tmpfs that anyone may pass, with just those paths bound back.
    Nothing changes outside it. Elsewhere (a system Python, a checkout in /srv) there is no
    namespace and commands run as they are."""

    def __init__(self, tmp: Path):
        self.proc: subprocess.Popen | None = None
        needed = [Path(os.path.realpath(p)) for p in (sys.base_prefix, sys.prefix, ROOT)]
        blocked = {p: b for p in needed if (b := blocking_dir(p)) is not None}
        if not blocked:
            return
        lines = ["set -e", "mount --make-rprivate /"]
        for i, path in enumerate(sorted(blocked, key=lambda q: len(q.parts))):
            stash = tmp / f"ns-stash-{i}"
            stash.mkdir()
            lines.append(f"mount --bind '{path}' '{stash}'")
        for folder in sorted(set(blocked.values()), key=lambda q: len(q.parts)):
            lines.append(f"mount -t tmpfs -o mode=755,size=1m tmpfs '{folder}'")
        for i, path in enumerate(sorted(blocked, key=lambda q: len(q.parts))):
            lines.append(f"mkdir -p '{path}' && mount --move '{tmp / f'ns-stash-{i}'}' '{path}'")
        lines.append("echo ready && exec sleep 3600")
        self.proc = subprocess.Popen(["unshare", "--mount", "sh", "-c", "\n".join(lines)],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if self.proc.stdout.readline().strip() != "ready":
            error = self.proc.stderr.read()
            self.proc.wait()
            pytest.skip(f"{', '.join(map(str, blocked))} cannot be reached by other users, and "
                        f"no mount namespace could expose it ({error.strip()})")

    @property
    def enter(self) -> list[str]:
        return [] if self.proc is None else ["nsenter", f"--mount=/proc/{self.proc.pid}/ns/mnt",
                                             "--"]

    def close(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()


def remove_users() -> None:
    """Remove the test's users (their processes first), homes and group; also leftovers of a
    killed earlier run: these names are the test's own."""
    import psutil

    names = [INSTRUCTOR, *STUDENTS]
    uids = set()
    for name in names:
        try:
            uids.add(pwd.getpwnam(name).pw_uid)
        except KeyError:
            pass
    for proc in psutil.process_iter(["uids"]):
        if proc.info["uids"] and proc.info["uids"].real in uids:
            try:
                proc.kill()
            except psutil.Error:
                pass
    for name in names:
        if name in {p.pw_name for p in pwd.getpwall()}:
            subprocess.run(["userdel", "--remove", name], capture_output=True)
    try:
        grp.getgrnam(GROUP)
        subprocess.run(["groupdel", GROUP], capture_output=True)
    except KeyError:
        pass


class Hub:
    """The running hub: its URL, the driver's service token, the users' tokens and passwords."""

    def __init__(self, tmp: Path, prefix: Path, port: int, driver_token: str,
                 passwords: dict[str, str], namespace: MountNamespace):
        self.tmp, self.prefix, self.port = tmp, prefix, port
        self.enter = namespace.enter
        self.url = f"http://127.0.0.1:{port}"
        self.driver_token = driver_token
        self.passwords = passwords
        self.tokens: dict[str, str] = {}
        self.settings = hubctl.Settings(prefix)

    def request(self, method: str, path: str, token: str | None = None, body=None,
                timeout: float = 180):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(
            self.url + path, data=data, method=method,
            headers={"Authorization": f"token {token or self.driver_token}",
                     "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as reply:
                text = reply.read()
        except urllib.error.HTTPError as e:
            raise AssertionError(f"{method} {path}: HTTP {e.code}: {e.read()[:2000]!r}") from None
        return json.loads(text) if text.strip() else None

    def user(self, name: str, method: str, path: str, body=None):
        """A request to `name`'s own server, with `name`'s token (as its browser tab would)."""
        return self.request(method, f"/user/{name}/{path.lstrip('/')}", self.tokens[name], body)

    def nbgrader_result(self, name: str, path: str, body=None):
        reply = self.user(name, "POST" if body is not None else "GET", path, body)
        assert reply["success"], f"{name}: {path} failed:\n{reply.get('value') or reply.get('log')}"
        return reply.get("value")

    def terminal(self, name: str, line: str, until: re.Pattern, timeout: float = 120) -> str:
        """Type `line` in a new terminal of `name`'s JupyterLab; its output once `until` matches."""
        import websocket

        term = self.user(name, "POST", "api/terminals", {})["name"]
        ws = websocket.create_connection(
            f"ws://127.0.0.1:{self.port}/user/{name}/terminals/websocket/{term}", timeout=5,
            header=[f"Authorization: token {self.tokens[name]}"])
        out, deadline = "", time.monotonic() + timeout
        try:
            ws.send(json.dumps(["stdin", line + "\r"]))
            while time.monotonic() < deadline and not until.search(out):
                try:
                    msg = json.loads(ws.recv())
                except websocket.WebSocketTimeoutException:
                    continue
                out += msg[1] if msg[0] == "stdout" else ""
        finally:
            ws.close()
            self.user(name, "DELETE", f"api/terminals/{term}")
        return out

    def run(self, *args: str, check: bool = True, stdin: str | None = None
            ) -> subprocess.CompletedProcess:
        """`deploy/hub.py ARGS`, as the administrator runs it (as root)."""
        proc = subprocess.run(
            [*self.enter, sys.executable, str(HUB_PY), "--prefix", str(self.prefix), *args],
            input=stdin, capture_output=True, text=True, timeout=600)
        if check:
            assert proc.returncode == 0, f"hub.py {' '.join(args)}:\n{proc.stdout}\n{proc.stderr}"
        return proc

    def as_user(self, name: str, *cmd: str, cwd: Path = Path("/"),
                role: str = "student") -> subprocess.CompletedProcess:
        """`cmd` as the system user `name`, with its hub server's environment."""
        env = hubctl.user_env(self.settings, name, hubctl.config_path(self.settings, role))
        return subprocess.run(
            [*self.enter, "runuser", "-u", name, "--", "env", "-i",
             *(f"{k}={v}" for k, v in env.items()),
             "sh", "-c", 'cd "$1" && shift && exec "$@"', "sh", str(cwd), *cmd],
            capture_output=True, text=True, timeout=600)

    def as_instructor(self, *cmd: str) -> subprocess.CompletedProcess:
        """A command in the instructor's course directory, as in its JupyterLab terminal."""
        proc = self.as_user(INSTRUCTOR, *cmd, cwd=self.settings.course_dir, role="instructor")
        assert proc.returncode == 0, f"{' '.join(cmd)}:\n{proc.stdout}\n{proc.stderr}"
        return proc

    def log(self) -> str:
        return (self.prefix / "hub" / "jupyterhub.log").read_text(errors="replace")[-6000:]


@pytest.fixture(scope="module")
def hub():
    reason = skip_reason()
    if reason:
        pytest.skip(reason)
    remove_users()
    tmp = Path(tempfile.mkdtemp(prefix="alhub-", dir="/tmp"))
    tmp.chmod(0o755)  # the users' homes are below it
    (tmp / "home").mkdir(mode=0o755)
    prefix = tmp / "prefix"
    ports = [free_port() for _ in range(3)]
    driver_token = secrets.token_hex(24)
    passwords = {s: secrets.token_urlsafe(12) for s in STUDENTS}
    namespace = h = None
    try:
        namespace = MountNamespace(tmp)
        h = Hub(tmp, prefix, ports[0], driver_token, passwords, namespace)
        h.run("setup", "--instructor", INSTRUCTOR, "--venv", sys.prefix, "--port", str(ports[0]),
              "--hub-port", str(ports[1]), "--proxy-api-port", str(ports[2]),
              "--home-base", str(tmp / "home"), "--students-group", GROUP)
        h.settings = hubctl.Settings(prefix)
        add = h.run("add-student", *STUDENTS, "--password-stdin",
                    stdin="".join(f"{passwords[s]}\n" for s in STUDENTS))
        assert not any(p in add.stdout for p in passwords.values()), "passwords were printed"
        # The test drives the hub as a service (an admin script would do the same): it starts
        # the users' servers and makes tokens for them.
        (prefix / "etc" / "jupyterhub_config.d" / "50-test-driver.py").write_text(
            f"c.JupyterHub.services = [{{'name': 'round-test', 'api_token': {driver_token!r}}}]\n"
            "c.JupyterHub.load_roles = [{'name': 'round-test', 'services': ['round-test'],\n"
            "    'scopes': ['admin:users', 'admin:servers', 'tokens']}]\n")
        h.run("start", "--timeout", "120")
        yield h
    finally:
        stopped = h.run("stop", check=False) if h else None
        if namespace:
            namespace.close()
        remove_users()
        shutil.rmtree(tmp, ignore_errors=True)
    assert stopped.returncode == 0, stopped.stdout + stopped.stderr


@pytest.fixture(scope="module")
def released(hub):
    """Every user's server started, a token for each, and 01_tensors released to the exchange."""
    users = [INSTRUCTOR, *STUDENTS]
    for name in users:
        hub.request("POST", f"/hub/api/users/{name}/server")
    deadline = time.monotonic() + 240
    for name in users:
        while not (hub.request("GET", f"/hub/api/users/{name}")["servers"].get("") or {}).get(
                "ready"):
            assert time.monotonic() < deadline, f"{name}'s server did not start:\n{hub.log()}"
            time.sleep(0.5)
        hub.tokens[name] = hub.request("POST", f"/hub/api/users/{name}/tokens",
                                       body={"note": "round test", "expires_in": 3600})["token"]
    gen = hub.as_instructor("python", "-m", "grading", "release", ASSIGNMENT)
    assert f"released {ASSIGNMENT}" in gen.stdout, gen.stdout + gen.stderr
    fg = f"formgrader/api/assignment/{ASSIGNMENT}"
    assert hub.user(INSTRUCTOR, "GET", fg)["status"] == "draft"
    result = hub.user(INSTRUCTOR, "POST", f"{fg}/release", body={})
    assert result["success"], result["log"]
    assert hub.user(INSTRUCTOR, "GET", fg)["status"] == "released"
    return hub


def answers(nb: dict, solutions: dict, count: int | None) -> dict:
    """`nb` with its answers taken from `solutions`: every answer (code and written) when
    `count` is None, else the first `count` code answers."""
    solved = {c["metadata"]["nbgrader"]["grade_id"]: c for c in solutions["cells"]
              if c["metadata"].get("nbgrader", {}).get("solution")}
    done = 0
    for cell in nb["cells"]:
        grade_id = cell["metadata"].get("nbgrader", {}).get("grade_id")
        if grade_id not in solved or (count is not None and (
                cell["cell_type"] != "code" or done == count)):
            continue
        cell["source"] = solved[grade_id]["source"]
        done += 1
    assert done == (len(solved) if count is None else count), f"answered {done} cells"
    return nb


def listed(hub: Hub, name: str) -> dict[str, str]:
    """{status: assignment} as the Assignment List shows them to `name`."""
    value = hub.nbgrader_result(name, f"assignments?course_id={COURSE_ID}")
    return {a["status"]: a["assignment_id"] for a in value}


def assignment_list_in_chromium(hub: Hub, student: str) -> None:
    """`student` logs in with its password and opens its Assignment List: the release is there,
    with a Fetch button, and the Nbgrader menu has no Formgrader."""
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch_persistent_context(
            str(hub.tmp / "chromium"), executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS,
            viewport={"width": 1280, "height": 800})
        try:
            page = browser.new_page()
            page.set_default_timeout(90_000)
            for password in ("not-" + hub.passwords[student], hub.passwords[student]):
                page.goto(f"{hub.url}/hub/login")
                page.fill("#username_input", student)
                page.fill("#password_input", password)  # checked by PAM
                page.click("#login_submit")
                if password.startswith("not-"):
                    page.get_by_text("Invalid username or password").wait_for()
            page.wait_for_url(re.compile(rf"/user/{student}/lab"))
            page.locator(".lm-MenuBar-itemLabel", has_text=re.compile("^Nbgrader$")).click()
            menu = page.locator(".lm-Menu-content").last
            menu.locator(".lm-Menu-itemLabel", has_text="Assignment List").click()
            released_list = page.locator("#released_assignments_list")
            released_list.get_by_text(ASSIGNMENT).wait_for()
            page.screenshot(path=str(ARTIFACTS / "assignment-list.png"))
            assert released_list.get_by_role("button", name="Fetch").count() == 1
            # The instructor's tools are not in a student's menu.
            page.locator(".lm-MenuBar-itemLabel", has_text=re.compile("^Nbgrader$")).click()
            items = page.locator(".lm-Menu-content").last.locator(".lm-Menu-itemLabel")
            labels = [t.strip() for t in items.all_inner_texts() if t.strip()]
            assert "Assignment List" in labels and not any("Formgrader" in t for t in labels), labels
            # The course's own extension (the readable Validate dialog) is served, from the hub.
            served = page.evaluate("JSON.parse(document.getElementById('jupyter-config-data')"
                                   ".textContent).federated_extensions.map(e => e.name)")
            assert "@autograd-lab/validate-dialog" in served, served
        finally:
            browser.close()


def test_a_class_round_on_the_hub(released):
    """One test, not several: the hub and its users are one fixture that parallel workers must not
    each make (same user names)."""
    hub = released
    browser = Path(CHROMIUM).exists()
    if browser:
        assignment_list_in_chromium(hub, STUDENTS[0])
    solutions = json.loads((ROOT / "solutions" / ASSIGNMENT / NOTEBOOK).read_text())
    plan = {STUDENTS[0]: None, STUDENTS[1]: 0, STUDENTS[2]: SOLVED_BY_S3}  # exercises answered
    path = f"{ASSIGNMENT}/{NOTEBOOK}"
    # add-student put the class in the gradebook, as Formgrader's Manage Students shows.
    known = hub.user(INSTRUCTOR, "GET", "formgrader/api/students")
    assert sorted(s["id"] for s in known) == STUDENTS, known
    for student, count in plan.items():
        assert listed(hub, student) == {"released": ASSIGNMENT}
        hub.nbgrader_result(student, "assignments/fetch",
                            {"course_id": COURSE_ID, "assignment_id": ASSIGNMENT})
        home = Path(pwd.getpwnam(student).pw_dir)
        fetched = home / path
        assert fetched.stat().st_uid == pwd.getpwnam(student).pw_uid, "not fetched as the student"
        if count != 0:  # work saved the way JupyterLab saves it: the server's contents API
            nb = hub.user(student, "GET", f"api/contents/{path}?content=1")["content"]
            hub.user(student, "PUT", f"api/contents/{path}",
                     {"type": "notebook", "format": "json", "content": answers(nb, solutions, count)})
    # A student's terminal has the course's python and nbgrader (00_welcome's instruction).
    out = hub.terminal(STUDENTS[1], "command -v nbgrader; python -c 'import autograd_lab' && echo AL-$?",
                       re.compile(r"AL-\d|rror"))
    assert f"{hub.settings.venv}/bin/nbgrader" in out and "AL-0" in out, out
    # Validate in the student's own server: its kernel runs the course with autograd_lab.
    assert hub.nbgrader_result(STUDENTS[0], "assignments/validate", {"path": path}) == {}
    for student in plan:
        after = hub.nbgrader_result(student, "assignments/submit",
                                    {"course_id": COURSE_ID, "assignment_id": ASSIGNMENT})
        assert "submitted" in {a["status"] for a in after}, after

    # The exchange keeps submissions apart: each belongs to its student, and students cannot list
    # the inbound folder; nor read a classmate's home or the instructor's solutions.
    inbound = hub.prefix / "exchange" / COURSE_ID / "inbound"
    owners = sorted(pwd.getpwuid(p.stat().st_uid).pw_name for p in inbound.iterdir())
    assert owners == sorted(plan), owners
    course = hub.settings.course_dir
    s1_home = Path(pwd.getpwnam(STUDENTS[0]).pw_dir)
    assert hub.as_user(STUDENTS[0], "ls", str(s1_home)).returncode == 0  # the helper itself works
    for who, target in [(STUDENTS[1], inbound), (STUDENTS[1], s1_home),
                        *((s, course / "solutions" / path) for s in STUDENTS)]:
        denied = hub.as_user(who, "cat" if target.suffix else "ls", str(target))
        assert denied.returncode != 0 and "Permission denied" in denied.stderr, (who, target, denied)

    collected = hub.user(INSTRUCTOR, "POST", f"formgrader/api/assignment/{ASSIGNMENT}/collect", {})
    assert collected["success"], collected["log"]
    assert sorted(p.name for p in (course / "submitted").iterdir()) == sorted(plan)

    graded = hub.run("autograde", ASSIGNMENT, "--no-progress")
    inst_uid = pwd.getpwnam(INSTRUCTOR).pw_uid
    assert all(p.lstat().st_uid == inst_uid for p in course.rglob("*")), \
        "autograde as root left files the instructor does not own"
    subs = {s["student"]: s for s in hub.user(INSTRUCTOR, "GET",
                                              f"formgrader/api/submissions/{ASSIGNMENT}")}
    report = graded.stdout + graded.stderr
    full = subs[STUDENTS[0]]["max_code_score"]
    assert full == 10, subs
    assert subs[STUDENTS[0]]["code_score"] == full, report
    assert subs[STUDENTS[1]]["code_score"] == 0, report
    assert 0 < subs[STUDENTS[2]]["code_score"] < full, report

    # Feedback back through the exchange: the instructor writes and releases it, s3 fetches it.
    fb = hub.as_instructor("python", "-m", "grading", "feedback", ASSIGNMENT)
    assert fb.returncode == 0, fb.stdout + fb.stderr
    # ... from the instructor's terminal this time: nbgrader finds the course and the exchange.
    sent = hub.as_instructor("nbgrader", "release_feedback", ASSIGNMENT)
    assert "Feedback released" in sent.stdout + sent.stderr, sent.stdout + sent.stderr
    hub.nbgrader_result(STUDENTS[2], "assignments/fetch_feedback",
                        {"course_id": COURSE_ID, "assignment_id": ASSIGNMENT})
    pages = list((Path(pwd.getpwnam(STUDENTS[2]).pw_dir) / ASSIGNMENT / "feedback").rglob("*.html"))
    assert [p.name for p in pages] == [NOTEBOOK.replace(".ipynb", ".html")], pages
    # The hub's exchange was used everywhere, the course's fallback never (root's autograde too).
    assert not (course / "exchange").exists()
    if not browser:
        pytest.skip(f"the round passed, but the Assignment List was not seen: no {CHROMIUM}")
