"""Each autograde kernel in its own bubblewrap sandbox, with limits on the whole sandbox.

The isolation is bubblewrap's (``bwrap``, Debian's ``bubblewrap``; the tool Flatpak runs its
apps in), not code of ours. :func:`bwrap_args` writes its command line:

* **A whitelist of what is visible**, all read-only: the system's programs and libraries
  (``/usr``, merged-/usr links, a few files of ``/etc``: the dynamic linker's cache, fonts), the
  Python installation, the virtualenv, the packages the notebooks import (``autograd_lab``) and
  the assignment's data files. Nothing else of the machine exists in the sandbox: no course
  tree, no gradebook, no home folder, no other submission, no ``/srv``, no ``/root``.
* **Private, size-limited, writable folders** (tmpfs): the kernel's home and working folder,
  ``/tmp``, ``/dev/shm``. They vanish with the sandbox: no file of a submission outlives it.
* Its own **user, PID, network (none: loopback only), IPC, UTS and cgroup namespaces**; no
  capabilities; no nested user namespaces (``--disable-userns``); a new session (no terminal
  to inject keys into); ``--die-with-parent``; a **clean environment** (only what
  :func:`kernel_environment` sets: no instructor variable reaches the kernel).
* The kernel talks to the grader through Unix sockets in its own ``/run/kernel`` tmpfs, which
  the grader reaches through ``/proc/<pid>/root`` (a network namespace has no way out, and no
  writable folder of the machine is handed to the kernel).

The limits (:class:`Limits`) are set by the launcher (this file run as a script, standard library
only, between the kernel manager and ``bwrap``): it joins the sandbox's cgroup, sets resource
limits, drops root's rights, and executes ``bwrap``:

* **As root** (a grading server, CI, ``deploy/hub.py autograde``): ``bwrap`` builds the sandbox
  with root's rights (so a Python under ``/root`` can be exposed), and inside it ``setpriv``
  (util-linux) makes the kernel a throw-away user id (``uid_base`` + the grader's pid) that owns
  nothing on the machine, with no capabilities and ``no_new_privs``. Memory, processes and CPU
  are limited for the whole process tree by a cgroup (v1 or v2, made under the grader's own
  cgroup) where the machine has one; the kernel's processes are killed through it afterwards.
* **As an ordinary user**: the sandbox keeps the user's id (mapped in its user namespace). Where
  no cgroup can be made (cgroup v1, or v2 without delegation), memory is limited per process
  (``RLIMIT_AS``) and for the whole sandbox by :class:`MemoryWatchdog`, which adds up the resident
  memory of every process in it several times a second and kills the sandbox above the limit:
  a burst faster than the polling (at most ``tasks`` processes of ``memory_mb`` each) is not
  caught in between. Processes are limited by ``RLIMIT_NPROC``, which counts per user namespace
  (only the sandbox's own processes). See :func:`guarantees`.

File size (``RLIMIT_FSIZE``), CPU time per process (``RLIMIT_CPU``) and core dumps (none) are
limited in both cases. Linux only.
"""

from __future__ import annotations

import ctypes
import functools
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field

BWRAP = "bwrap"
KERNEL_RUN = "/run/kernel"  # the kernel's sockets and connection file, inside the sandbox
HOME = "/home/student"
WORKDIR = f"{HOME}/work"
SANDBOX_UID = 1000  # the kernel's user id as seen inside the sandbox
CGROUP_PREFIX = "autograd-lab-kernel-"
# Files of /etc a Python kernel, Matplotlib and Graphviz read; the rest of /etc is not visible.
ETC_FILES = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "fonts", "alternatives", "localtime",
             "nsswitch.conf", "mime.types", "matplotlibrc")
# Variables of the grader's environment that a kernel is given; any other stays outside.
ENV_PASSED = ("NBGRADER_EXECUTION", "NBGRADER_VALIDATING", "PYDEVD_DISABLE_FILE_VALIDATION")
PR_SET_PDEATHSIG = 1


@dataclass(frozen=True)
class Limits:
    """What one sandbox (a kernel and every process it starts) may use."""

    memory_mb: int = 6144  # the whole sandbox: cgroup, else the watchdog
    process_mb: int = 6144  # each process's address space (RLIMIT_AS): a MemoryError beyond
    tasks: int = 256  # processes and threads together
    file_mb: int = 256  # the largest file it may write (RLIMIT_FSIZE)
    disk_mb: int = 512  # each writable folder (home, /tmp, /dev/shm; tmpfs, in memory)
    cpu_seconds: int = 900  # CPU time of each process (RLIMIT_CPU)
    cpus: float = 1.0  # cores, where a cgroup limits CPU


# --- what this machine allows ---------------------------------------------------------------

def bwrap_path() -> str | None:
    return shutil.which(BWRAP)


def bwrap_version() -> str:
    path = bwrap_path()
    if not path:
        return "not installed"
    r = subprocess.run([path, "--version"], capture_output=True, text=True)
    return (r.stdout or r.stderr).strip() or "unknown version"


@functools.lru_cache(maxsize=1)
def bwrap_works() -> tuple[bool, str]:
    """Can this user start a bubblewrap sandbox here? (ok, why not)."""
    path = bwrap_path()
    if not path:
        return False, ("bubblewrap is not installed: `sudo apt-get install bubblewrap` "
                       "(make install does it)")
    if os.geteuid() == 0:
        if not shutil.which("setpriv"):
            return False, "setpriv (util-linux) is missing"
        namespaces = ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts"]
    else:
        namespaces = ["--unshare-all", "--unshare-user", "--disable-userns"]
    args = [path, *namespaces, "--die-with-parent", "--ro-bind", "/", "/", "--proc", "/proc",
            "--dev", "/dev", "true"]
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        return False, (f"bwrap cannot create its namespaces ({r.stderr.strip()}); unprivileged "
                       "user namespaces may be switched off (sysctl kernel.unprivileged_userns_clone "
                       "or user.max_user_namespaces)")
    return True, ""


def _cgroup_mounts() -> dict[str, str]:
    """{controller or 'unified': mount point} of the cgroup file systems."""
    mounts = {}
    try:
        with open("/proc/self/mountinfo") as f:
            lines = f.read().splitlines()
    except OSError:
        return mounts
    for line in lines:
        left, _, right = line.partition(" - ")
        fstype, _, options = right.split(" ", 2) if right.count(" ") >= 2 else (right, "", "")
        point = left.split(" ")[4]
        if fstype == "cgroup2":
            mounts.setdefault("unified", point)
        elif fstype == "cgroup":
            for opt in options.split(","):
                if opt in ("memory", "pids", "cpu"):
                    mounts.setdefault(opt, point)
    return mounts


def _own_cgroups() -> dict[str, str]:
    """{controller or 'unified': this process's cgroup path} from /proc/self/cgroup."""
    own = {}
    try:
        with open("/proc/self/cgroup") as f:
            for line in f:
                _, controllers, path = line.rstrip("\n").split(":", 2)
                if controllers == "":
                    own["unified"] = path
                for c in controllers.split(","):
                    own[c] = path
    except OSError:
        pass
    return own


class Cgroup:
    """One sandbox's cgroup: memory, processes and CPU of the whole process tree.

    Made under the grader's own cgroup (the grader's accounting still covers it) and removed
    after the kernel. cgroup v1: one folder per controller (memory, pids, cpu); v2: one folder.
    """

    def __init__(self, dirs: dict[str, str], version: int):
        self.dirs, self.version = dirs, version

    @classmethod
    def create(cls, name: str, limits: Limits) -> Cgroup | None:
        """A new cgroup with `limits`, or None where this machine or user cannot make one."""
        mounts, own = _cgroup_mounts(), _own_cgroups()
        if "memory" in mounts and "memory" in own:  # v1 (or hybrid with v1 controllers)
            dirs = {}
            try:
                for c in ("memory", "pids", "cpu"):
                    if c in mounts and c in own:
                        parent = os.path.join(mounts[c], own[c].lstrip("/"))
                        _sweep(parent)
                        path = os.path.join(parent, f"{CGROUP_PREFIX}{os.getpid()}-{name}")
                        os.mkdir(path)
                        dirs[c] = path
                group = cls(dirs, 1)
                group._write("memory", "memory.limit_in_bytes", limits.memory_mb * 2**20)
                group._write("memory", "memory.memsw.limit_in_bytes", limits.memory_mb * 2**20,
                             optional=True)  # no swap beyond the limit, where swap is accounted
                if "pids" in dirs:
                    group._write("pids", "pids.max", limits.tasks)
                if "cpu" in dirs:
                    group._write("cpu", "cpu.cfs_period_us", 100000, optional=True)
                    group._write("cpu", "cpu.cfs_quota_us", int(limits.cpus * 100000), optional=True)
                return group
            except OSError:
                cls(dirs, 1).remove()
                return None
        if "unified" in mounts and "unified" in own:  # v2: needs a delegated subtree
            parent = os.path.join(mounts["unified"], own["unified"].lstrip("/"))
            try:
                with open(os.path.join(parent, "cgroup.subtree_control")) as f:
                    enabled = f.read().split()
                if "memory" not in enabled or "pids" not in enabled:
                    return None
                _sweep(parent)
                path = os.path.join(parent, f"{CGROUP_PREFIX}{os.getpid()}-{name}")
                os.mkdir(path)
            except OSError:
                return None
            group = cls({"unified": path}, 2)
            try:
                group._write("unified", "memory.max", limits.memory_mb * 2**20)
                group._write("unified", "memory.swap.max", 0, optional=True)
                group._write("unified", "pids.max", limits.tasks)
                if "cpu" in enabled:
                    group._write("unified", "cpu.max", f"{int(limits.cpus * 100000)} 100000")
                return group
            except OSError:
                group.remove()
                return None
        return None

    def _write(self, controller: str, name: str, value, optional: bool = False) -> None:
        try:
            with open(os.path.join(self.dirs[controller], name), "w") as f:
                f.write(str(value))
        except OSError:
            if not optional:
                raise

    @property
    def procs_files(self) -> list[str]:
        """The files a process writes its pid into to join (the launcher does)."""
        return [os.path.join(d, "cgroup.procs") for d in self.dirs.values()]

    @property
    def limits_memory(self) -> bool:
        return "memory" in self.dirs or self.version == 2

    def pids(self) -> set[int]:
        found = set()
        for path in self.procs_files:
            try:
                with open(path) as f:
                    found |= {int(x) for x in f.read().split()}
            except OSError:
                pass
        return found

    def out_of_memory(self) -> bool:
        """Did the kernel's processes hit the memory limit (and one get killed for it)?"""
        try:
            if self.version == 2:
                with open(os.path.join(self.dirs["unified"], "memory.events")) as f:
                    events = dict(line.split() for line in f if line.strip())
                return int(events.get("oom_kill", 0)) > 0
            with open(os.path.join(self.dirs["memory"], "memory.oom_control")) as f:
                control = dict(line.split() for line in f if line.strip())
            return int(control.get("oom_kill", 0)) > 0
        except (OSError, KeyError, ValueError):
            return False

    def kill(self) -> None:
        """SIGKILL every process in the cgroup (until none is left, or 2 s)."""
        if self.version == 2:
            self._write("unified", "cgroup.kill", 1, optional=True)
        deadline = time.monotonic() + 2
        while time.monotonic() < deadline:
            pids = self.pids()
            if not pids:
                return
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            time.sleep(0.02)

    def remove(self) -> None:
        for path in self.dirs.values():
            for _ in range(50):  # the killed processes take a moment to leave
                try:
                    os.rmdir(path)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.02)


def _sweep(parent: str) -> None:
    """Remove empty sandbox cgroups left by a grader that was killed (its pid is in the name)."""
    try:
        names = [n for n in os.listdir(parent) if n.startswith(CGROUP_PREFIX)]
    except OSError:
        return
    for n in names:
        pid = n[len(CGROUP_PREFIX):].split("-")[0]
        if not pid.isdigit() or os.path.exists(f"/proc/{pid}"):
            continue
        try:
            os.rmdir(os.path.join(parent, n))
        except OSError:
            pass


def guarantees(limits: Limits | None = None) -> tuple[str, list[str], list[str]]:
    """(summary, what is guaranteed, what is weaker here) for the user running this."""
    limits = limits or Limits()
    ok, why = bwrap_works()
    root = os.geteuid() == 0
    who = "root" if root else f"an ordinary user ({os.getuid()})"
    if not ok:
        return (f"NOT ISOLATED: {why}", [], [
            "students' code runs with your rights and sees your files; use --sandbox strict "
            "to refuse grading without the sandbox"])
    probe = Cgroup.create(f"probe-{os.getpid()}", limits)
    cgroup = probe is not None
    if probe:
        probe.remove()
    strong = [
        f"each kernel in its own bubblewrap sandbox ({bwrap_version()}): only the system's "
        "libraries, Python, the virtualenv, the course's packages and the assignment's data are "
        "visible, read-only",
        f"private home, /tmp and /dev/shm of {limits.disk_mb} MiB each, gone after the notebook",
        "no network, own PID namespace, clean environment, no capabilities, --die-with-parent",
        f"files up to {limits.file_mb} MiB, {limits.cpu_seconds} s of CPU per process, "
        f"{limits.tasks} processes and threads",
    ]
    weak = []
    if root:
        strong.append("kernels run as a throw-away user id that owns nothing on the machine")
    else:
        weak.append("the kernel keeps your user id (in its own user namespace): it sees none "
                    "of your files, but grading as root also gives it a user id of its own")
    if cgroup:
        strong.append(f"memory {limits.memory_mb} MiB, {limits.tasks} tasks and "
                      f"{limits.cpus:g} core(s) for the whole sandbox (a cgroup)")
    else:
        weak.append(
            f"no cgroup can be made here as {who}: memory is limited to {limits.process_mb} MiB "
            f"per process and to {limits.memory_mb} MiB for the whole sandbox by a watchdog that "
            "polls every "
            f"{MemoryWatchdog.interval * 1000:.0f} ms (a faster burst is not caught in between); "
            "CPU is not shared out between sandboxes (a CPU hog slows a neighbour, which the "
            "per-cell timeout bounds)")
    return f"sandboxed with bubblewrap, as {who}", strong, weak


# --- the command line -----------------------------------------------------------------------

def _inside(path: str, parent: str) -> bool:
    return path == parent or path.startswith(parent.rstrip("/") + "/")


def system_binds() -> list[str]:
    """bwrap arguments for the system's programs and libraries, read-only."""
    args = ["--ro-bind", "/usr", "/usr"]
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        path = f"/{name}"
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    for name in ETC_FILES:
        args += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    args += ["--ro-bind-try", "/var/cache/fontconfig", "/var/cache/fontconfig"]
    return args


def python_binds(paths: list[str]) -> list[str]:
    """bwrap arguments binding `paths` (the Python installation, the virtualenv, packages)
    read-only at the same place, skipping those already under /usr or under another one."""
    real = sorted({os.path.realpath(p) for p in paths if os.path.exists(p)}, key=len)
    kept: list[str] = []
    for p in real:
        if _inside(p, "/usr") or any(_inside(p, q) for q in kept):
            continue
        kept.append(p)
    args = []
    for p in kept:
        args += ["--ro-bind", p, p]
    return args


def kernel_environment(pythonpath: list[str], outer: dict[str, str]) -> dict[str, str]:
    """The kernel's whole environment: fixed values, and only ENV_PASSED from `outer`."""
    bindir = os.path.dirname(sys.executable)
    env = {
        "PATH": f"{bindir}:/usr/local/bin:/usr/bin:/bin",
        "HOME": HOME,
        "USER": "student",
        "LOGNAME": "student",
        "LANG": "C.UTF-8",
        "TMPDIR": "/tmp",
        "PYTHONPATH": os.pathsep.join(pythonpath),
        "PYTHONDONTWRITEBYTECODE": "1",
        "MPLCONFIGDIR": f"{HOME}/.config/matplotlib",
        "XDG_CACHE_HOME": f"{HOME}/.cache",
        "XDG_CONFIG_HOME": f"{HOME}/.config",
        "IPYTHONDIR": f"{HOME}/.ipython",
        "JUPYTER_RUNTIME_DIR": f"{HOME}/.local/share/jupyter/runtime",
    }
    for name in ENV_PASSED:
        if name in outer:
            env[name] = outer[name]
    return env


def bwrap_args(*, binds: list[str], data: list[tuple[str, str]], connection_file: str,
               passwd: str, group: str, env: dict[str, str], limits: Limits, info_fd: int,
               root_uid: int | None) -> list[str]:
    """The whole ``bwrap`` command line before the kernel's command (see :func:`command`).

    `binds`: :func:`python_binds` (and any other read-only paths); `data`: (host file, name)
    of the assignment's data files, bound read-only into the working folder; `connection_file`:
    the kernel's connection file (ipc transport, sockets in /run/kernel). `root_uid`: run as
    root, the throw-away user id the kernel gets (bwrap then runs with root's rights and
    :func:`command` drops them inside); None: an ordinary user's sandbox, in a user namespace."""
    disk = str(limits.disk_mb * 2**20)
    if root_uid is None:
        namespaces = ["--unshare-all", "--unshare-user", "--disable-userns",
                      "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID), "--cap-drop", "ALL"]
    else:  # no user namespace: the kernel becomes root_uid of the machine, by setpriv
        namespaces = ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
                      "--unshare-cgroup-try", "--cap-drop", "ALL",
                      *[a for c in ("CAP_SETUID", "CAP_SETGID", "CAP_SETPCAP")
                        for a in ("--cap-add", c)]]
    args = [BWRAP, *namespaces, "--die-with-parent", "--new-session", "--hostname", "sandbox",
            "--proc", "/proc", "--dev", "/dev",
            "--perms", "1777", "--size", disk, "--tmpfs", "/dev/shm",
            "--perms", "1777", "--size", disk, "--tmpfs", "/tmp",
            "--perms", "0777", "--size", disk, "--tmpfs", HOME,
            "--perms", "0777", "--dir", WORKDIR,
            *_parents(binds), *system_binds(), *binds,
            "--perms", "0777", "--size", str(2**20), "--tmpfs", KERNEL_RUN,
            "--ro-bind", connection_file, f"{KERNEL_RUN}/connection.json",
            "--ro-bind", passwd, "/etc/passwd",
            "--ro-bind", group, "/etc/group"]
    for src, name in data:
        args += ["--ro-bind", src, f"{WORKDIR}/{name}"]
    args += ["--remount-ro", "/", "--chdir", WORKDIR, "--clearenv"]
    for k, v in sorted(env.items()):
        args += ["--setenv", k, v]
    args += ["--info-fd", str(info_fd)]
    return args


def _parents(binds: list[str]) -> list[str]:
    """--dir for the folders above each bind's destination, readable by all (bwrap makes them
    0700 when it runs with root's rights)."""
    dests = [binds[i + 2] for i, a in enumerate(binds) if a in ("--ro-bind", "--ro-bind-try")]
    parents = sorted({os.path.dirname(d.rstrip("/")) for d in dests}, key=len)
    folders = sorted({p for d in parents for p in _ancestors(d)}, key=lambda p: p.count("/"))
    return [a for p in folders for a in ("--perms", "0755", "--dir", p)]


def _ancestors(path: str) -> list[str]:
    out = []
    while path not in ("/", ""):
        out.append(path)
        path = os.path.dirname(path)
    return out


def command(kernel_cmd: list[str], root_uid: int | None) -> list[str]:
    """What bwrap runs: the kernel, leader of its own process group (an interrupt reaches it and
    its children, not bwrap's init), after setpriv drops root's rights (as root)."""
    kernel = ["setsid", "--", *kernel_cmd]
    if root_uid is None:
        return kernel
    uid = str(root_uid)
    return ["setpriv", "--reuid", uid, "--regid", uid, "--clear-groups", "--inh-caps=-all",
            "--bounding-set=-all", "--no-new-privs", "--", *kernel]


def sandbox_uid(root_uid: int | None) -> int:
    """The kernel's user id as the sandbox's /etc/passwd names it."""
    return SANDBOX_UID if root_uid is None else root_uid


# --- the memory watchdog (where no cgroup limits memory) ------------------------------------

def descendants(pid: int) -> list[int]:
    """`pid` and every process below it (through /proc/<pid>/task/*/children)."""
    seen, todo = [], [pid]
    while todo:
        p = todo.pop()
        seen.append(p)
        try:
            tasks = os.listdir(f"/proc/{p}/task")
        except OSError:
            continue
        for t in tasks:
            try:
                with open(f"/proc/{p}/task/{t}/children") as f:
                    todo += [int(c) for c in f.read().split()]
            except OSError:
                pass
    return seen


def resident_bytes(pids: list[int]) -> int:
    page = os.sysconf("SC_PAGE_SIZE")
    total = 0
    for p in pids:
        try:
            with open(f"/proc/{p}/statm") as f:
                total += int(f.read().split()[1]) * page
        except (OSError, IndexError, ValueError):
            pass
    return total


@dataclass
class MemoryWatchdog:
    """Kills a sandbox whose processes together hold more than `limit` bytes of memory."""

    root_pid: int
    limit: int
    interval = 0.1
    exceeded: str = ""
    _stop: threading.Event = field(default_factory=threading.Event)

    def start(self) -> None:
        threading.Thread(target=self._run, name="sandbox-memory-watchdog", daemon=True).start()

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            pids = descendants(self.root_pid)
            used = resident_bytes(pids)
            if used > self.limit:
                self.exceeded = (f"{used / 2**20:.0f} MiB in {len(pids)} process(es), over the "
                                 f"limit of {self.limit / 2**20:.0f} MiB")
                try:
                    os.kill(self.root_pid, signal.SIGKILL)
                except OSError:
                    pass
                return
            if not os.path.exists(f"/proc/{self.root_pid}"):
                return


# --- the launcher: python sandbox.py SPEC_JSON ----------------------------------------------

def _set_limits(limits: dict[str, int]) -> None:
    for name, value in limits.items():
        which = getattr(resource, f"RLIMIT_{name}")
        _, hard = resource.getrlimit(which)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        resource.setrlimit(which, (value, value))


def launch(spec: dict) -> None:
    """Join the cgroup, set the limits, execute bwrap. Never returns."""
    parent = spec["parent"]
    args = spec["bwrap"]
    for path in spec.get("cgroup_procs", []):
        with open(path, "w") as f:
            f.write(str(os.getpid()))
    _set_limits(spec["rlimits"])
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:
        sys.exit("sandbox: the grader is gone")
    os.execvp(args[0], [*args, "--", *spec["command"]])


if __name__ == "__main__":
    launch(json.loads(sys.argv[1]))
