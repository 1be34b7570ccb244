"""The autograde step, hardened: a sandboxed kernel, and a dead kernel scores zero.

``nbgrader_config.py`` puts :class:`SafeExecute` in place of nbgrader's ``Execute`` in
``Autograde.autograde_preprocessors`` (validate keeps nbgrader's own ``Execute``).

* :class:`SandboxKernelManager` starts each kernel through ``grading/sandbox.py``: from a copy
  of the notebook's folder outside the course tree, with the course root and the gradebook
  hidden, as a throw-away user when grading as root, with a memory limit.
* :class:`SafeExecute`: when the kernel dies (``os._exit``, a segfault, killed for memory) or
  stops answering after a timeout, the notebook's graded cells all get an error output and so
  score zero, and autograding goes on with the next notebook. nbgrader alone would abort that
  submission and leave no autograded notebook and no feedback.

Lines starting with ``[grading]`` in the log are read by ``grading.pipeline``.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import signal
import sys
import tempfile
from typing import Any
from urllib.parse import urlparse

from jupyter_client.manager import AsyncKernelManager
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbformat import NotebookNode
from nbgrader.preprocessors import Execute
from nbgrader.preprocessors.execute import UnresponsiveKernelError
from traitlets import Enum, Integer, List, Unicode

SANDBOX_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sandbox.py")
EVENT = "[grading]"


def _sqlite_path(db_url: str) -> str | None:
    if not db_url.startswith("sqlite:"):
        return None
    path = urlparse(db_url).path
    # sqlite:///relative.db -> "/relative.db"; sqlite:////abs.db -> "//abs.db"
    if db_url.startswith("sqlite:////"):
        return "/" + path.lstrip("/")
    return os.path.abspath(path[1:]) if path else None


class SandboxKernelManager(AsyncKernelManager):
    """A kernel manager that starts the kernel in ``grading/sandbox.py``'s sandbox."""

    mode = Enum(
        ["auto", "strict", "off"],
        "auto",
        help="auto: isolate where Linux allows it, else warn; strict: refuse to run without "
        "isolation; off: run the kernel like plain nbgrader does (for debugging only).",
    ).tag(config=True)
    memory_limit_mb = Integer(
        6144, help="Address-space limit of a kernel in MiB (0: none)."
    ).tag(config=True)
    uid_base = Integer(
        200000, help="As root, the kernel runs as user id uid_base + its pid."
    ).tag(config=True)
    hide = List(
        Unicode(), help="Paths hidden from the kernel besides the course root and gradebook."
    ).tag(config=True)
    expose = List(
        Unicode(), help="Paths inside a hidden one that the kernel may read (read-only)."
    ).tag(config=True)
    packages = List(
        Unicode(),
        ["autograd_lab"],
        help="Packages the notebooks import: exposed (read-only) and put on PYTHONPATH.",
    ).tag(config=True)
    course_root = Unicode(help="Course root to hide (default: the current directory).").tag(
        config=True
    )

    _staging: str | None = None

    def _hidden_and_exposed(self) -> tuple[list[str], list[str], list[str]]:
        coursedir = self.config.get("CourseDirectory", {})
        root = self.course_root or coursedir.get("root") or os.getcwd()
        # The instructor's home too: it may hold the interpreter (pyenv), keys, other courses.
        home = os.path.expanduser("~")
        hide = [os.path.abspath(root), *([home] if home not in ("", "/") else []), *self.hide]
        db_url = coursedir.get("db_url") or f"sqlite:///{os.path.join(root, 'gradebook.db')}"
        db = _sqlite_path(db_url)
        if db:
            hide += [db, db + "-journal", db + "-wal"]
        expose = [sys.prefix, sys.base_prefix, *self.expose]
        pythonpath = []
        for name in self.packages:
            spec = importlib.util.find_spec(name)
            if spec and spec.submodule_search_locations:
                pkg_dir = list(spec.submodule_search_locations)[0]
                expose.append(pkg_dir)
                pythonpath.append(os.path.dirname(pkg_dir))
        return hide, expose, pythonpath

    async def _async_launch_kernel(self, kernel_cmd: list[str], **kw: Any) -> None:
        # "Run it from a copy outside the course tree": the kernel works in a fresh folder
        # holding the assignment's data files, never the notebooks (its own or others').
        self._staging = tempfile.mkdtemp(prefix="grading-kernel-")
        work = os.path.join(self._staging, "work")
        src = kw.get("cwd") or os.getcwd()
        shutil.copytree(src, work, ignore=shutil.ignore_patterns("*.ipynb", ".*"))
        hide, expose, pythonpath = self._hidden_and_exposed()
        args = [sys.executable, SANDBOX_SCRIPT, "--mode", self.mode, "--workdir", work,
                "--connection-file", os.path.realpath(self.connection_file),
                "--uid-base", str(self.uid_base), "--memory-mb", str(self.memory_limit_mb)]
        for p in hide:
            args += ["--hide", p]
        for p in expose:
            args += ["--expose", p]
        env = dict(kw.get("env") or os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            pythonpath + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
        )
        env.pop("JPY_SESSION_NAME", None)
        kw["env"] = env
        kw["cwd"] = self._staging
        await super()._async_launch_kernel([*args, "--", *kernel_cmd], **kw)

    async def _async_cleanup_resources(self, restart: bool = False) -> None:
        await super()._async_cleanup_resources(restart=restart)
        if self._staging:
            self._kill_leftovers()
            shutil.rmtree(self._staging, ignore_errors=True)
            self._staging = None

    cleanup_resources = _async_cleanup_resources  # nbclient calls it by this name

    def _kill_leftovers(self) -> None:
        """As root: end whatever the learner's code left running under the kernel's user id."""
        if self.mode == "off" or os.geteuid() != 0 or not self._staging:
            return
        try:
            uid = os.stat(os.path.join(self._staging, "work")).st_uid
        except OSError:
            return
        if uid < self.uid_base:  # never signal anything but a throw-away sandbox user
            return
        pid = os.fork()
        if pid == 0:  # pragma: no cover - child
            try:
                os.setgroups([])
                os.setgid(uid)
                os.setuid(uid)
                if os.getuid() == uid and os.geteuid() == uid:
                    os.kill(-1, signal.SIGKILL)  # every process of this user id, and no other
            except OSError:
                pass
            os._exit(0)
        os.waitpid(pid, 0)


def _error_output(ename: str, message: str) -> NotebookNode:
    return NotebookNode(
        output_type="error", ename=ename, evalue=message,
        traceback=[f"\x1b[0;31m{ename}\x1b[0m: {message}"],
    )


class SafeExecute(Execute):
    """nbgrader's Execute, but a dead or unresponsive kernel zeroes the notebook."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("kernel_manager_class", SandboxKernelManager)
        super().__init__(*args, **kwargs)

    def on_cell_executed(self, **kwargs: Any) -> None:
        super().on_cell_executed(**kwargs)
        reply = kwargs["execute_reply"]
        if reply["content"].get("ename") == "CellTimeoutError":
            cell = kwargs["cell"]
            grade_id = cell.metadata.get("nbgrader", {}).get("grade_id", f"#{kwargs['cell_index']}")
            self.log.warning("%s TIMEOUT cell=%s after %ss", EVENT, grade_id, self.timeout)

    def preprocess(self, nb: NotebookNode, resources: Any = None, km: Any = None):
        self._started = False
        try:
            return super().preprocess(nb, resources, km)
        except (DeadKernelError, CellTimeoutError, UnresponsiveKernelError, RuntimeError) as e:
            if not self._started:
                raise  # the kernel never started: an infrastructure problem, not the learner's
            if isinstance(e, DeadKernelError):
                kind, why = "KERNEL-DIED", (
                    "The kernel died while running this notebook (os._exit, a crash, or it ran "
                    "out of memory), so the notebook scores zero. Make it run top to bottom "
                    "with Restart & Run All, then submit again."
                )
            else:
                kind, why = "KERNEL-UNRESPONSIVE", (
                    f"A cell ran longer than {self.timeout} s and the kernel did not stop when "
                    "interrupted, so the notebook scores zero. Look for an endless loop."
                )
            self.log.error("%s %s %s", EVENT, kind, e)
            for cell in nb.cells:
                if cell.cell_type == "code" and cell.metadata.get("nbgrader", {}).get("grade"):
                    cell.outputs = [*cell.get("outputs", []), _error_output(kind, why)]
            return nb, resources

    def preprocess_cell(self, cell: NotebookNode, resources: Any, index: int):
        self._started = True  # cells run only once the kernel is up
        return super().preprocess_cell(cell, resources, index)
