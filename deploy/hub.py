#!/usr/bin/env python3
"""Run Autograd Lab for a class on one machine: JupyterHub, nbgrader's exchange, one shared venv.

    sudo python3 deploy/hub.py setup --instructor alice        # once; again after changing settings
    sudo python3 deploy/hub.py add-student bob carol           # prints each new student's password
    sudo python3 deploy/hub.py start | stop | status           # the hub in the background
    sudo python3 deploy/hub.py run                             # the hub in the foreground (systemd)
    sudo python3 deploy/hub.py autograde 01_tensors            # grade as root, give files back
    python3 deploy/hub.py systemd-unit                         # print a unit file for this prefix
    sudo python3 deploy/hub.py install-proxy                   # configurable-http-proxy from npm

Everything the hub needs lives under one prefix (``--prefix``, default ``/srv/autograd-lab``, or
``$AUTOGRAD_LAB_HUB_PREFIX``), owned by root::

    hub.ini                     the class's settings (written by setup; edit, then run setup again)
    venv/                       the shared virtualenv: JupyterHub, JupyterLab, nbgrader, autograd_lab
    exchange/                   nbgrader's exchange (release, submit, collect, feedback)
    etc/jupyterhub_config.py    the hub's configuration (copied from deploy/)
    etc/jupyterhub_config.d/    local additions to it (*.py, loaded in name order)
    etc/jupyter/                nbgrader and Jupyter settings of every user's server
    etc/jupyter-student/        ... of students' servers only (no formgrader)
    etc/jupyter-instructor/     ... of the instructor's server only (the course directory)
    share/course/               the course's nbgrader_config.py and grading/, readable by all
    hub/                        the hub's state and log (root only)

Standard library only: setup runs before the venv exists. Linux, as root (users, file owners).
See "A class on JupyterHub" in docs/instructor-guide.md.
"""

from __future__ import annotations

import argparse
import configparser
import grp
import json
import os
import pwd
import re
import secrets
import shutil
import signal
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

DEPLOY = Path(__file__).resolve().parent
CHECKOUT = DEPLOY.parent
DEFAULT_PREFIX = "/srv/autograd-lab"
# nbgrader names a submission "<student>+<assignment>+<timestamp>": no "+" in a user name.
USER_NAME = re.compile(r"^[a-z_][a-z0-9_-]{0,31}$")
# What the instructor's copy of the course leaves out: environments, VCS data, grading data.
COURSE_IGNORE = shutil.ignore_patterns(
    ".venv", ".git", "__pycache__", ".ipynb_checkpoints", ".pytest_cache", ".ruff_cache",
    "artifacts", "submitted", "autograded", "feedback", "exchange", "gradebook.db*", "*.egg-info",
    "deploy")
# chp 5 needs a newer Node.js than many distributions ship (its commander needs Node 22).
PROXY_PACKAGE = {True: "configurable-http-proxy@5", False: "configurable-http-proxy@4.6.3"}
SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

DEFAULTS = {
    "hub": {
        "ip": "127.0.0.1", "port": "8000", "hub_port": "8081", "proxy_api_port": "8001",
        "ssl_cert": "", "ssl_key": "", "insecure_http": "no", "proxy": "",
    },
    "course": {"id": "autograd-lab", "instructor": "", "course_dir": "", "venv": ""},
    "users": {"students_group": "autograd-lab-students", "home_base": "/home"},
}


class HubError(Exception):
    """A problem the administrator can fix; printed without a traceback."""


# --- settings -------------------------------------------------------------------------------

class Settings:
    """``PREFIX/hub.ini`` and the paths derived from it."""

    def __init__(self, prefix: str | os.PathLike):
        self.prefix = Path(prefix).resolve()
        self.ini = self.prefix / "hub.ini"
        self.cfg = configparser.ConfigParser(interpolation=None)
        self.cfg.read_dict(DEFAULTS)
        if self.ini.exists():
            self.cfg.read(self.ini)

    def get(self, section: str, key: str) -> str:
        return self.cfg.get(section, key).strip()

    def set(self, section: str, key: str, value: object) -> None:
        self.cfg.set(section, key, str(value))

    @property
    def venv(self) -> Path:
        return Path(self.get("course", "venv") or self.prefix / "venv")

    @property
    def instructor(self) -> str:
        name = self.get("course", "instructor")
        if not name:
            raise HubError(f"no instructor in {self.ini}: run `hub.py setup --instructor NAME`")
        return name

    @property
    def course_dir(self) -> Path:
        d = self.get("course", "course_dir")
        return Path(d) if d else Path(pwd.getpwnam(self.instructor).pw_dir) / "autograd-lab"

    @property
    def exchange(self) -> Path:
        return self.prefix / "exchange"

    @property
    def state(self) -> Path:
        return self.prefix / "hub"

    @property
    def etc(self) -> Path:
        return self.prefix / "etc"

    def url(self, host: str | None = None) -> str:
        scheme = "https" if self.get("hub", "ssl_cert") else "http"
        return f"{scheme}://{host or self.get('hub', 'ip')}:{self.get('hub', 'port')}"

    def write(self) -> None:
        self.prefix.mkdir(parents=True, exist_ok=True)
        with open(self.ini, "w") as f:
            f.write("# Autograd Lab hub settings: edit, then run `hub.py setup` again.\n")
            self.cfg.write(f)


# --- small helpers --------------------------------------------------------------------------

def require_root() -> None:
    if not sys.platform.startswith("linux"):
        raise HubError("the hub set-up is for Linux (system users, PAM)")
    if os.geteuid() != 0:
        raise HubError("run this as root (sudo): it creates users and sets file owners")


def run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    """Run a command, raising HubError with its output when it fails."""
    kw.setdefault("capture_output", True)
    kw.setdefault("text", True)
    proc = subprocess.run(cmd, **kw)
    if proc.returncode != 0:
        out = ((proc.stdout or "") + (proc.stderr or "")).strip()
        raise HubError(f"`{' '.join(cmd)}` failed ({proc.returncode}):\n{out[-3000:]}")
    return proc


def course_env(settings: Settings) -> dict[str, str]:
    """What the course's tools need to know on the hub, for every user and for root: the shared
    venv first on PATH (and in the terminals: grading/jupyter/), the hub's exchange (read by the
    course's nbgrader_config.py), the hub's lab extensions."""
    return {"PATH": f"{settings.venv / 'bin'}:{SYSTEM_PATH}", "LANG": os.environ.get("LANG", "C.UTF-8"),
            "AUTOGRAD_LAB_VENV": str(settings.venv), "AUTOGRAD_LAB_EXCHANGE": str(settings.exchange),
            "JUPYTER_PATH": str(settings.prefix / "share" / "jupyter")}


def user_env(settings: Settings, name: str, config_path: str) -> dict[str, str]:
    """The environment of a command run as `name`, like its hub server's."""
    home = pwd.getpwnam(name).pw_dir
    return {**course_env(settings), "HOME": home, "USER": name, "LOGNAME": name,
            "JUPYTER_CONFIG_PATH": config_path}


def run_as(settings: Settings, name: str, cmd: list[str], cwd: Path, config_path: str,
           **kw) -> subprocess.CompletedProcess:
    """Run `cmd` as the system user `name` (its groups, its home, the shared venv on PATH)."""
    pw = pwd.getpwnam(name)
    return run(cmd, cwd=cwd, env=user_env(settings, name, config_path), user=pw.pw_uid,
               group=pw.pw_gid, extra_groups=os.getgrouplist(name, pw.pw_gid), **kw)


def chown_tree(path: Path, name: str) -> None:
    """Give `path` and everything below it to user `name` (symbolic links are not followed)."""
    pw = pwd.getpwnam(name)
    os.lchown(path, pw.pw_uid, pw.pw_gid)
    for d, dirs, files in os.walk(path):
        for entry in dirs + files:
            os.lchown(os.path.join(d, entry), pw.pw_uid, pw.pw_gid)


def config_path(settings: Settings, role: str) -> str:
    """JUPYTER_CONFIG_PATH of a server: its role's settings, everyone's, the course's
    (grading/jupyter/: terminals, Validate), as jupyterhub_config.py gives them."""
    course = settings.prefix / "share" / "course" / "grading" / "jupyter"
    return f"{settings.etc / f'jupyter-{role}'}:{settings.etc / 'jupyter'}:{course}"


def readable_by_all(path: Path) -> None:
    """Folders 755 and files 644 below `path`: root writes, everyone reads."""
    for d, _dirs, files in os.walk(path):
        os.chmod(d, 0o755)
        for f in files:
            os.chmod(os.path.join(d, f), 0o644)


def make_dir(path: Path, mode: int, owner: str = "root") -> None:
    path.mkdir(parents=True, exist_ok=True)
    pw = pwd.getpwnam(owner)
    os.chown(path, pw.pw_uid, pw.pw_gid)
    os.chmod(path, mode)  # mkdir's mode is masked by the umask and ignores set-gid and sticky


def write_file(path: Path, text: str, mode: int = 0o644) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    os.chmod(path, mode)


def ensure_group(name: str) -> None:
    try:
        grp.getgrnam(name)
    except KeyError:
        run(["groupadd", name])


def ensure_user(settings: Settings, name: str, groups: list[str]) -> bool:
    """Create system user `name` (home mode 700) if missing; add it to `groups`. True if created."""
    if not USER_NAME.match(name):
        raise HubError(f"{name!r} is not a usable user name: lower-case letters, digits, '_' and "
                       "'-', starting with a letter or '_', at most 32 characters")
    created = False
    try:
        pwd.getpwnam(name)
    except KeyError:
        cmd = ["useradd", "--create-home", "--shell", "/bin/bash",
               "--base-dir", settings.get("users", "home_base")]
        run(cmd + (["--groups", ",".join(groups)] if groups else []) + [name])
        created = True
    else:
        for g in groups:
            run(["usermod", "--append", "--groups", g, name])
    # Homes are private: a student must not read another's work, nor the instructor's solutions.
    os.chmod(pwd.getpwnam(name).pw_dir, 0o700)
    return created


def set_password(name: str, password: str) -> None:
    if ":" in password or "\n" in password:
        raise HubError("a password cannot contain ':' or a line break")
    run(["chpasswd"], input=f"{name}:{password}\n")


# --- setup ----------------------------------------------------------------------------------

def node_major() -> int:
    try:
        out = run(["node", "--version"]).stdout.strip()  # "v20.11.1"
    except (HubError, FileNotFoundError):
        return 0
    m = re.match(r"v(\d+)", out)
    return int(m.group(1)) if m else 0


def install_proxy() -> str:
    """Path of configurable-http-proxy; installs it with npm (and npm with apt-get) if missing."""
    found = shutil.which("configurable-http-proxy")
    if found:
        return found
    if shutil.which("npm") is None:
        if shutil.which("apt-get") is None:
            raise HubError("configurable-http-proxy needs Node.js and npm: install them, then run "
                           "`npm install -g configurable-http-proxy`")
        print("installing Node.js and npm with apt-get ...")
        run(["apt-get", "update", "-qq"])
        run(["apt-get", "install", "-y", "-qq", "nodejs", "npm"],
            env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))
    package = PROXY_PACKAGE[node_major() >= 22]
    print(f"installing {package} with npm ...")
    run(["npm", "install", "--global", "--no-fund", "--no-audit", package])
    found = shutil.which("configurable-http-proxy")
    if not found:
        prefix = run(["npm", "prefix", "--global"]).stdout.strip()
        candidate = Path(prefix) / "bin" / "configurable-http-proxy"
        if not candidate.exists():
            raise HubError("npm installed configurable-http-proxy but it is not on PATH")
        found = str(candidate)
    return found


def install_bubblewrap() -> None:
    """bubblewrap, the sandbox of each autograded kernel (grading/sandbox.py), with apt-get if
    missing; elsewhere, say how."""
    if shutil.which("bwrap"):
        return
    if shutil.which("apt-get") is None:
        print("WARNING: bubblewrap (bwrap) is missing: install it with your package manager, or "
              "autograde warns that students' code is not sandboxed")
        return
    print("installing bubblewrap with apt-get ...")
    run(["apt-get", "update", "-qq"])
    run(["apt-get", "install", "-y", "-qq", "bubblewrap"],
        env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))


def runs_for(user: str, cmd: list[str]) -> subprocess.CompletedProcess:
    """Run `cmd` as the system user `user`: can an ordinary user use this interpreter or venv?"""
    pw = pwd.getpwnam(user)
    try:
        return subprocess.run(cmd, capture_output=True, text=True, cwd="/", user=pw.pw_uid,
                              group=pw.pw_gid, extra_groups=[], env={"PATH": SYSTEM_PATH})
    except OSError as e:  # the program itself is out of reach
        return subprocess.CompletedProcess(cmd, 126, "", str(e))


def shared_python(user: str) -> str:
    """A Python >= 3.10 that `user` can run: the shared venv is made from it.

    The interpreter running this script may not do: a pyenv or conda Python under /root is
    out of other users' reach, and so would be every kernel of a venv made from it.
    """
    candidates = [sys.executable, shutil.which("python3"), "/usr/bin/python3"]
    probe = "import sys, venv; assert sys.version_info >= (3, 10)"
    for python in dict.fromkeys(os.path.realpath(c) for c in candidates if c):
        if runs_for(user, [python, "-c", probe]).returncode == 0:
            return python
    raise HubError("no Python >= 3.10 that every user can run (this one is "
                   f"{os.path.realpath(sys.executable)}): install one, e.g. `apt-get install "
                   "python3 python3-venv`, and run setup with it")


def check_venv(venv: Path, user: str) -> None:
    """The shared venv has what the hub needs, and `user` (an ordinary user) can use it."""
    python = venv / "bin" / "python"
    if not python.exists():
        raise HubError(f"{venv} is not a virtualenv (no bin/python)")
    probe = "import autograd_lab, jupyterhub, jupyterlab, nbgrader"
    proc = runs_for(user, [str(python), "-c", probe])
    if proc.returncode != 0:
        raise HubError(
            f"user {user} cannot use the venv {venv} ({probe}):\n{proc.stderr.strip()[-800:]}\n"
            "Every user must be able to run it: its interpreter and its folders must be readable "
            "by all (a venv made from a Python under /root is not), and it needs the course: "
            f"`{python} -m pip install '{CHECKOUT}[course,hub]'`")


def create_venv(venv: Path, user: str) -> None:
    """A virtualenv owned by root and usable by every user, with the course installed."""
    if not (venv / "bin" / "python").exists():
        python = shared_python(user)
        print(f"creating the shared virtualenv {venv} with {python} ...")
        run([python, "-m", "venv", str(venv)])
    print("installing JupyterHub, JupyterLab, nbgrader and autograd_lab into it ...")
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet"]
    run(pip + ["--upgrade", "pip"])
    # Not editable: the students' kernels must not depend on this checkout staying put.
    run(pip + [f"{CHECKOUT}[course,hub]"])


def copy_course(settings: Settings) -> None:
    """The instructor's course directory: a copy of this checkout, unless one is there."""
    dest = settings.course_dir
    if (dest / "nbgrader_config.py").exists():
        print(f"course directory {dest} exists: left as it is")
    else:
        if dest.exists() and any(dest.iterdir()):
            raise HubError(f"{dest} exists but holds no nbgrader_config.py: move it away, or set "
                           "course_dir in hub.ini to the course's clone")
        print(f"copying the course to {dest} ...")
        shutil.copytree(CHECKOUT, dest, ignore=COURSE_IGNORE, dirs_exist_ok=True)
        chown_tree(dest, settings.instructor)
    os.chmod(dest, 0o700)


def make_exchange(settings: Settings) -> None:
    """nbgrader's exchange, with the course's folder owned by the instructor.

    The root must be writable by everyone (nbgrader checks it for every user); the sticky bit
    keeps users from removing what others made there. The course folder is made now, owned by
    the instructor, so that no student can claim the course's name first. The modes below are
    those nbgrader itself gives these folders.
    """
    make_dir(settings.exchange, 0o1777)
    course = settings.exchange / settings.get("course", "id")
    inst = settings.instructor
    if course.exists() and pwd.getpwuid(course.stat().st_uid).pw_name != inst:
        raise HubError(f"{course} is owned by {pwd.getpwuid(course.stat().st_uid).pw_name}, not "
                       f"the instructor {inst}: remove it (a user made it) and run setup again")
    make_dir(course, 0o755, inst)
    make_dir(course / "outbound", 0o755, inst)   # released assignments: everyone reads
    make_dir(course / "inbound", 0o2733, inst)   # submissions: everyone writes, only inst lists
    make_dir(course / "feedback", 0o711, inst)   # feedback: read by secret file name only


def write_jupyter_config(settings: Settings) -> None:
    """The hub's config, the settings of every server, and a readable copy of the course's."""
    etc = settings.etc
    make_dir(etc, 0o755)
    shutil.copy2(DEPLOY / "jupyterhub_config.py", etc / "jupyterhub_config.py")
    os.chmod(etc / "jupyterhub_config.py", 0o644)
    make_dir(etc / "jupyterhub_config.d", 0o755)
    # The course's nbgrader settings (ignored files, time limits, ...) for the students' servers:
    # their Validate and Submit behave as on a laptop. No solution is in these files.
    if (settings.prefix / "share").exists():  # made anew from the course each time
        shutil.rmtree(settings.prefix / "share")
    share = settings.prefix / "share" / "course"
    share.mkdir(parents=True)
    shutil.copy2(settings.course_dir / "nbgrader_config.py", share / "nbgrader_config.py")
    shutil.copytree(settings.course_dir / "grading", share / "grading",
                    ignore=shutil.ignore_patterns("__pycache__"))
    # The course's own JupyterLab extension (the readable Validate dialog), which `make install`
    # links into a laptop's venv: here on every server's JUPYTER_PATH.
    labext = settings.course_dir / "grading" / "labextension"
    if (labext / "package.json").exists():
        name = json.loads((labext / "package.json").read_text())["name"]
        shutil.copytree(labext, settings.prefix / "share" / "jupyter" / "labextensions" / name)
    readable_by_all(settings.prefix / "share")
    course_id, exchange = settings.get("course", "id"), str(settings.exchange)
    header = '"""Written by deploy/hub.py setup from {ini}: edit that file, not this one."""\n\n'
    header = header.format(ini=settings.ini)
    write_file(etc / "jupyter" / "nbgrader_config.py", header + (
        "c = get_config()  # noqa: F821\n"
        "# The course's own settings, as in its repository.\n"
        f"load_subconfig('nbgrader_config.py', path={str(share)!r})  # noqa: F821\n"
        f"c.CourseDirectory.course_id = {course_id!r}\n"
        f"c.Exchange.root = {exchange!r}\n"
    ))
    course_dir = str(settings.course_dir)
    write_file(etc / "jupyter-instructor" / "nbgrader_config.py", header + (
        "import os\nimport sys\n\n"
        "c = get_config()  # noqa: F821\n"
        f"COURSE = {course_dir!r}\n"
        "if not os.path.exists(os.path.join(COURSE, 'nbgrader_config.py')):\n"
        "    print(f'nbgrader: no nbgrader_config.py in the course directory {COURSE}',"
        " file=sys.stderr)\n"
        "# The live course settings (the formgrader autogrades with its sandbox), then the hub's.\n"
        "load_subconfig('nbgrader_config.py', path=COURSE)  # noqa: F821\n"
        "c.CourseDirectory.root = COURSE\n"
        f"c.CourseDirectory.course_id = {course_id!r}\n"
        f"c.Exchange.root = {exchange!r}\n"
    ))
    # JupyterLab's defaults for the class: no "news?" prompt, no update check (root updates).
    shutil.copytree(DEPLOY / "lab-settings", etc / "lab-settings", dirs_exist_ok=True)
    write_file(etc / "jupyter" / "jupyter_server_config.json", json.dumps(
        {"LabApp": {"app_settings_dir": str(etc / "lab-settings")}}, indent=2) + "\n")
    student = etc / "jupyter-student"
    shutil.copytree(DEPLOY / "jupyter-student", student, dirs_exist_ok=True)
    for d in (student, etc / "lab-settings"):
        readable_by_all(d)


def cmd_setup(args: argparse.Namespace) -> int:
    require_root()
    os.umask(0o022)
    settings = Settings(args.prefix)
    options = {
        ("course", "instructor"): args.instructor, ("course", "venv"): args.venv,
        ("course", "course_dir"): args.course_dir, ("course", "id"): args.course_id,
        ("hub", "ip"): args.ip, ("hub", "port"): args.port, ("hub", "hub_port"): args.hub_port,
        ("hub", "proxy_api_port"): args.proxy_api_port, ("hub", "ssl_cert"): args.ssl_cert,
        ("hub", "ssl_key"): args.ssl_key, ("users", "students_group"): args.students_group,
        ("users", "home_base"): args.home_base,
    }
    for (section, key), value in options.items():
        if value is not None:
            settings.set(section, key, value)
    if bool(settings.get("hub", "ssl_cert")) != bool(settings.get("hub", "ssl_key")):
        raise HubError("give both --ssl-cert and --ssl-key, or neither")
    make_dir(settings.prefix, 0o755)
    make_dir(settings.state, 0o700)
    settings.set("hub", "proxy", install_proxy())
    install_bubblewrap()
    group = settings.get("users", "students_group")
    ensure_group(group)
    created = ensure_user(settings, settings.instructor, [])
    if not settings.get("course", "venv"):
        create_venv(settings.venv, settings.instructor)
    check_venv(settings.venv, settings.instructor)
    copy_course(settings)
    make_exchange(settings)
    settings.write()
    os.chmod(settings.ini, 0o644)
    write_jupyter_config(settings)
    print(f"set up the hub in {settings.prefix} for course {settings.get('course', 'id')!r}, "
          f"instructor {settings.instructor} (course directory {settings.course_dir})")
    if created:
        print(f"created the user {settings.instructor}: give it a password with "
              f"`passwd {settings.instructor}`")
    print(f"next: `{Path(sys.argv[0]).name} add-student NAME ...`, then `start` "
          f"(the hub will answer at {settings.url()})")
    return 0


# --- students -------------------------------------------------------------------------------

def cmd_add_student(args: argparse.Namespace) -> int:
    require_root()
    settings = Settings(args.prefix)
    group = settings.get("users", "students_group")
    ensure_group(group)
    for name in args.names:
        if name == settings.instructor:
            raise HubError(f"{name} is the instructor")
        password = sys.stdin.readline().rstrip("\n") if args.password_stdin else None
        created = ensure_user(settings, name, [group])
        if created and password is None:
            password = secrets.token_urlsafe(9)
        if password:
            set_password(name, password)
        shown = f"password {password}" if password and not args.password_stdin else (
            "password set" if password else "password unchanged")
        print(f"{name}: {'created' if created else 'exists'}, in group {group}, {shown}")
    # The gradebook knows the class (export lists a student who submitted nothing): one nbgrader
    # run for all of them, as the instructor, who owns the gradebook.
    with tempfile.NamedTemporaryFile("w", suffix=".csv", prefix="students-") as csv:
        csv.write("id\n" + "".join(f"{name}\n" for name in args.names))
        csv.flush()
        os.chmod(csv.name, 0o644)
        run_as(settings, settings.instructor,
               [str(settings.venv / "bin" / "nbgrader"), "db", "student", "import", csv.name],
               cwd=settings.course_dir, config_path=config_path(settings, "instructor"))
    print(f"added {len(args.names)} student(s) to the gradebook of {settings.course_dir}")
    return 0


# --- the hub process ------------------------------------------------------------------------

def hub_command(settings: Settings) -> tuple[list[str], dict[str, str]]:
    cmd = [str(settings.venv / "bin" / "jupyterhub"), "-f",
           str(settings.etc / "jupyterhub_config.py")]
    env = {**course_env(settings), "AUTOGRAD_LAB_HUB_PREFIX": str(settings.prefix)}
    return cmd, env


def hub_pid(settings: Settings) -> int | None:
    """The running hub's pid, from its pid file, or None."""
    pid_file = settings.state / "jupyterhub.pid"
    try:
        pid = int(pid_file.read_text().strip())
        os.kill(pid, 0)
    except (OSError, ValueError):
        return None
    return pid


def health(settings: Settings, timeout: float = 2) -> bool:
    """Does the hub answer through its proxy?"""
    url = settings.url("127.0.0.1") + "/hub/health"
    context = ssl._create_unverified_context()  # noqa: S323  (loopback, maybe a self-signed cert)
    try:
        with urllib.request.urlopen(url, timeout=timeout, context=context) as reply:
            return reply.status == 200
    except OSError:
        return False


def cmd_run(args: argparse.Namespace) -> int:
    require_root()
    settings = Settings(args.prefix)
    cmd, env = hub_command(settings)
    os.chdir(settings.state)
    os.execve(cmd[0], cmd, env)


def cmd_start(args: argparse.Namespace) -> int:
    require_root()
    settings = Settings(args.prefix)
    if not settings.ini.exists():
        raise HubError(f"no {settings.ini}: run `hub.py setup` first")
    if hub_pid(settings):
        print(f"the hub is already running (pid {hub_pid(settings)}) at {settings.url()}")
        return 0
    cmd, env = hub_command(settings)
    log_path = settings.state / "jupyterhub.log"
    with open(log_path, "ab") as log:
        proc = subprocess.Popen(cmd, cwd=settings.state, env=env, stdin=subprocess.DEVNULL,
                                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.monotonic() + args.timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            tail = log_path.read_text(errors="replace")[-3000:]
            raise HubError(f"the hub exited ({proc.returncode}); the end of {log_path}:\n{tail}")
        if health(settings):
            print(f"the hub is running (pid {proc.pid}) at {settings.url()}; log: {log_path}")
            return 0
        time.sleep(0.3)
    raise HubError(f"the hub did not answer within {args.timeout:.0f} s; see {log_path}")


def cmd_stop(args: argparse.Namespace) -> int:
    require_root()
    settings = Settings(args.prefix)
    pid = hub_pid(settings)
    if pid is None:
        print("the hub is not running")
        return 0
    # JupyterHub stops the users' servers and the proxy on its way out.
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + args.timeout
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except OSError:
            print("the hub stopped, with the users' servers and the proxy")
            return 0
        time.sleep(0.2)
    raise HubError(f"the hub (pid {pid}) did not stop within {args.timeout:.0f} s")


def cmd_status(args: argparse.Namespace) -> int:
    require_root()  # the pid file is in the root-only state folder
    settings = Settings(args.prefix)
    pid = hub_pid(settings)
    if pid is None:
        print("the hub is not running")
        return 3  # the LSB code for "not running"
    print(f"the hub is running (pid {pid}) at {settings.url()}: "
          f"{'answers' if health(settings) else 'does NOT answer'}")
    return 0


def cmd_systemd_unit(args: argparse.Namespace) -> int:
    prefix = Path(args.prefix).resolve()
    print(f"""[Unit]
Description=Autograd Lab JupyterHub ({prefix})
After=network.target

[Service]
User=root
ExecStart={sys.executable} {Path(__file__).resolve()} --prefix {prefix} run
WorkingDirectory={prefix / 'hub'}
Restart=on-failure
KillMode=mixed

[Install]
WantedBy=multi-user.target""")
    return 0


# --- grading --------------------------------------------------------------------------------

def cmd_autograde(args: argparse.Namespace) -> int:
    """`python -m grading autograde ARGS` in the instructor's course directory, as root (students'
    code then runs as throw-away user ids), then the instructor owns the results again."""
    require_root()
    settings = Settings(args.prefix)
    course = settings.course_dir
    cmd = [str(settings.venv / "bin" / "python"), "-m", "grading", "--root", str(course),
           "autograde", *args.grading_args]
    env = dict(os.environ, **course_env(settings))
    try:
        code = subprocess.run(cmd, cwd=course, env=env).returncode
    finally:
        chown_tree(course, settings.instructor)
    return code


# --- command line ---------------------------------------------------------------------------

def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="hub.py", description=__doc__.split("\n")[0])
    p.add_argument("--prefix", default=os.environ.get("AUTOGRAD_LAB_HUB_PREFIX", DEFAULT_PREFIX),
                   help=f"where the hub lives (default {DEFAULT_PREFIX})")
    sub = p.add_subparsers(dest="command", required=True)

    s = sub.add_parser("setup", help="install or update the hub (idempotent)")
    s.add_argument("--instructor", help="the instructor's user name (created if missing)")
    s.add_argument("--venv", help="use this existing virtualenv instead of creating PREFIX/venv")
    s.add_argument("--course-dir", help="the instructor's course directory "
                   "(default ~INSTRUCTOR/autograd-lab, a copy of this checkout)")
    s.add_argument("--course-id", help="nbgrader's course id (default autograd-lab)")
    s.add_argument("--ip", help="address the hub listens on (default 127.0.0.1)")
    s.add_argument("--port", type=int, help="its port (default 8000)")
    s.add_argument("--hub-port", type=int, help="the hub's internal API port (default 8081)")
    s.add_argument("--proxy-api-port", type=int, help="the proxy's API port (default 8001)")
    s.add_argument("--ssl-cert", help="TLS certificate (with --ssl-key): serve https")
    s.add_argument("--ssl-key", help="TLS key")
    s.add_argument("--students-group", help="Unix group of the students "
                   "(default autograd-lab-students)")
    s.add_argument("--home-base", help="where new users' homes are made (default /home)")
    s.set_defaults(func=cmd_setup)

    a = sub.add_parser("add-student", help="create students (or add users to the class)")
    a.add_argument("names", nargs="+")
    a.add_argument("--password-stdin", action="store_true",
                   help="read one password per name, a line each, from standard input")
    a.set_defaults(func=cmd_add_student)

    for name, func, text in [("start", cmd_start, "start the hub in the background"),
                             ("stop", cmd_stop, "stop the hub, its proxy and the users' servers")]:
        c = sub.add_parser(name, help=text)
        c.add_argument("--timeout", type=float, default=60, help="seconds to wait (default 60)")
        c.set_defaults(func=func)
    sub.add_parser("status", help="is the hub running and answering?").set_defaults(func=cmd_status)
    sub.add_parser("run", help="run the hub in the foreground").set_defaults(func=cmd_run)
    sub.add_parser("systemd-unit", help="print a systemd unit for this prefix").set_defaults(
        func=cmd_systemd_unit)
    sub.add_parser("install-proxy", help="install configurable-http-proxy if missing").set_defaults(
        func=lambda args: print(install_proxy()) or 0)

    g = sub.add_parser("autograde", help="python -m grading autograde, as root, in the course")
    g.add_argument("grading_args", nargs=argparse.REMAINDER,
                   help="arguments of `python -m grading autograde` (assignments, --force, ...)")
    g.set_defaults(func=cmd_autograde)
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return args.func(args)
    except HubError as e:
        print(f"hub.py {args.command}: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
