"""The autograde step, hardened: a sandboxed kernel, bounded output, canaries, a dead kernel
scores zero.

``nbgrader_config.py`` puts :class:`SafeExecute` in place of nbgrader's ``Execute`` in
``Autograde.autograde_preprocessors`` (validate keeps nbgrader's own ``Execute``).

* :class:`SandboxKernelManager` starts each kernel in a bubblewrap sandbox (grading/sandbox.py),
  with limits on the whole sandbox; the kernel's sockets are Unix sockets inside the sandbox,
  reached through ``/proc/<pid>/root``; afterwards every process of the sandbox is gone.
* :class:`SafeExecute`:
  - outputs are capped while they are received: a message larger than ``max_message_mb`` is
    refused by ZeroMQ itself, and a cell's (notebook's) outputs beyond ``max_cell_output_kb``
    (``max_notebook_output_kb``) are replaced by a note; an error, a stderr stream or a result
    is never dropped (they decide the cell's score), only shortened;
  - canary test cells (grading/tamper.py) run among the real tests; a canary that "passes"
    means the kernel lies about its tests: the notebook scores zero and is flagged;
  - what a submission does to the grader (hooks, ``run_cell``, ``sys.settrace``, patched
    builtins or libraries) is flagged from its source, for the instructor;
  - when the kernel dies (``os._exit``, a segfault, out of memory) or stops answering after a
    timeout, the notebook's graded cells all get an error output and so score zero, and
    autograding goes on with the next notebook (nbgrader alone would abort the submission).

Lines starting with ``[grading]`` in the log are read by ``grading.pipeline``.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import os
import select
import shutil
import sys
import tempfile
import threading
import time
from typing import Any

import zmq
from jupyter_client.manager import AsyncKernelManager
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbformat import NotebookNode
from nbgrader.preprocessors import Execute
from nbgrader.preprocessors.execute import UnresponsiveKernelError
from nbgrader.utils import determine_grade
from traitlets import Enum, Float, Integer, List, Unicode

from . import sandbox, tamper

SANDBOX_SCRIPT = os.path.abspath(sandbox.__file__)
EVENT = "[grading]"
STDERR_KEPT = 64 * 1024  # bytes of a kernel's own stderr kept for the log


class SandboxKernelManager(AsyncKernelManager):
    """A kernel manager that starts the kernel in a bubblewrap sandbox (grading/sandbox.py)."""

    mode = Enum(
        ["auto", "strict", "off"],
        "auto",
        help="auto: sandbox where bubblewrap works, else warn and run with limits only; strict: "
        "refuse to run without the sandbox; off: run the kernel like plain nbgrader does "
        "(for debugging only).",
    ).tag(config=True)
    memory_limit_mb = Integer(6144, help="Memory of the whole sandbox, MiB.").tag(config=True)
    process_memory_limit_mb = Integer(
        0, help="Address space of each process, MiB (0: memory_limit_mb); beyond it an "
        "allocation raises MemoryError in the learner's cell."
    ).tag(config=True)
    tasks_limit = Integer(256, help="Processes and threads of the sandbox.").tag(config=True)
    file_size_limit_mb = Integer(256, help="Largest file a kernel may write, MiB.").tag(config=True)
    disk_limit_mb = Integer(
        512, help="Size of each writable folder (home, /tmp, /dev/shm; in memory), MiB."
    ).tag(config=True)
    cpu_time_limit = Integer(900, help="CPU seconds of each process.").tag(config=True)
    cpus = Float(1.0, help="Cores of the whole sandbox, where a cgroup can limit them.").tag(
        config=True)
    uid_base = Integer(
        200000, help="As root, the kernel runs as user id uid_base + the grader's pid."
    ).tag(config=True)
    expose = List(
        Unicode(), help="More paths the kernel may read (read-only), e.g. a shared data folder."
    ).tag(config=True)
    packages = List(
        Unicode(),
        ["autograd_lab"],
        help="Packages the notebooks import: exposed (read-only) and put on PYTHONPATH.",
    ).tag(config=True)

    max_message_mb = Integer(
        32, help="A kernel message larger than this is refused (by ZeroMQ, unread)."
    ).tag(config=True)

    _use_sandbox = False
    _staging: str | None = None
    _cgroup: sandbox.Cgroup | None = None
    _watchdog: sandbox.MemoryWatchdog | None = None
    _child: int | None = None
    _pidns: int | None = None
    stderr_text: str = ""

    @property
    def limits(self) -> sandbox.Limits:
        return sandbox.Limits(memory_mb=self.memory_limit_mb,
                              process_mb=self.process_memory_limit_mb or self.memory_limit_mb,
                              tasks=self.tasks_limit,
                              file_mb=self.file_size_limit_mb, disk_mb=self.disk_limit_mb,
                              cpu_seconds=self.cpu_time_limit, cpus=self.cpus)

    def _sandboxed(self) -> bool:
        if self.mode == "off":
            return False
        ok, why = sandbox.bwrap_works()
        if ok:
            return True
        if self.mode == "strict":
            raise RuntimeError(f"cannot sandbox the kernel ({why}); mode is 'strict'")
        self.log.warning("%s UNSANDBOXED %s", EVENT, why)
        return False

    async def _async_pre_start_kernel(self, **kw: Any):
        self._use_sandbox = self._sandboxed()
        if self._use_sandbox:
            # Unix sockets in the sandbox's own /run/kernel: no network is needed.
            self.transport = "ipc"
            self.ip = f"{sandbox.KERNEL_RUN}/ipc"
        return await super()._async_pre_start_kernel(**kw)

    def _rlimits(self) -> dict[str, int]:
        lim = self.limits
        return {"AS": lim.process_mb * 2**20, "NPROC": lim.tasks, "FSIZE": lim.file_mb * 2**20,
                "CPU": lim.cpu_seconds, "CORE": 0}

    def _pythonpath_and_binds(self) -> tuple[list[str], list[str]]:
        paths = [sys.prefix, sys.base_prefix, *self.expose]
        pythonpath = []
        for name in self.packages:
            spec = importlib.util.find_spec(name)
            if spec and spec.submodule_search_locations:
                pkg_dir = list(spec.submodule_search_locations)[0]
                paths.append(pkg_dir)
                pythonpath.append(os.path.dirname(pkg_dir))
        return pythonpath, sandbox.python_binds(paths)

    async def _async_launch_kernel(self, kernel_cmd: list[str], **kw: Any) -> None:
        if not self._use_sandbox:
            await super()._async_launch_kernel(kernel_cmd, **kw)
            return
        self._staging = tempfile.mkdtemp(prefix="grading-kernel-")
        st = self._staging
        with open(self.connection_file) as f:
            info = json.load(f)
        info["ip"] = f"{sandbox.KERNEL_RUN}/ipc"
        conn = os.path.join(st, "connection.json")
        with open(conn, "w") as f:
            json.dump(info, f)
        passwd, group = os.path.join(st, "passwd"), os.path.join(st, "group")
        root_uid = self.uid_base + os.getpid() if os.geteuid() == 0 else None
        uid = sandbox.sandbox_uid(root_uid)
        with open(passwd, "w") as f:
            f.write(f"student:x:{uid}:{uid}:student:{sandbox.HOME}:/bin/sh\n")
        with open(group, "w") as f:
            f.write(f"student:x:{uid}:\n")
        for path in (conn, passwd, group):
            os.chmod(path, 0o644)  # readable by the kernel's user; the folder is private
        # The assignment's data files (never notebooks), bound read-only into the work folder.
        src = kw.get("cwd") or os.getcwd()
        # A link is never followed: bwrap would resolve it on the machine, with the grader's
        # rights (links inside a bound folder resolve inside the sandbox, where little exists).
        data = [(os.path.join(src, n), n) for n in sorted(os.listdir(src))
                if not n.startswith(".") and not n.endswith(".ipynb")
                and not os.path.islink(os.path.join(src, n))]
        pythonpath, binds = self._pythonpath_and_binds()
        env = sandbox.kernel_environment(pythonpath, dict(kw.get("env") or os.environ))
        info_r, info_w = os.pipe()
        err_r, err_w = os.pipe()
        args = sandbox.bwrap_args(binds=binds, data=data, connection_file=conn, passwd=passwd,
                                  group=group, env=env, limits=self.limits, info_fd=info_w,
                                  root_uid=root_uid)
        inside = f"{sandbox.KERNEL_RUN}/connection.json"
        command = sandbox.command(
            [inside if a == self.connection_file else a for a in kernel_cmd], root_uid)
        self._cgroup = sandbox.Cgroup.create(os.path.basename(st)[len("grading-kernel-"):], self.limits)
        spec = {"parent": os.getpid(), "bwrap": args, "command": command,
                "rlimits": self._rlimits(),
                "cgroup_procs": self._cgroup.procs_files if self._cgroup else []}
        kw["env"] = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
        kw["cwd"] = st
        kw["pass_fds"] = (info_w,)
        kw["stdout"] = kw["stderr"] = err_w
        try:
            await super()._async_launch_kernel(
                [sys.executable, SANDBOX_SCRIPT, json.dumps(spec)], **kw)
        finally:
            os.close(info_w)
            os.close(err_w)
        threading.Thread(target=self._read_stderr, args=(err_r,), daemon=True).start()
        child, pidns = self._read_info(info_r)
        self._child, self._pidns = child, pidns
        # The grader reaches the kernel's sockets through the sandbox's root.
        self.ip = f"/proc/{child}/root{sandbox.KERNEL_RUN}/ipc"
        if not (self._cgroup and self._cgroup.limits_memory):
            self._watchdog = sandbox.MemoryWatchdog(child, self.memory_limit_mb * 2**20)
            self._watchdog.start()

    def client(self, **kwargs: Any):
        kc = super().client(**kwargs)
        # Set before the client's sockets exist: ZeroMQ refuses larger messages unread.
        kc.context.setsockopt(zmq.MAXMSGSIZE, self.max_message_mb * 2**20)
        return kc

    def _read_stderr(self, fd: int) -> None:
        kept = []
        size = 0
        with os.fdopen(fd, "rb") as f:
            for chunk in iter(lambda: f.read(8192), b""):
                if size < STDERR_KEPT:
                    kept.append(chunk[: STDERR_KEPT - size])
                    size += len(kept[-1])
                    self.stderr_text = b"".join(kept).decode("utf-8", "replace")

    def _read_info(self, fd: int, timeout: float = 60) -> tuple[int, int]:
        buf = b""
        deadline = time.monotonic() + timeout
        with os.fdopen(fd, "rb", buffering=0) as f:
            while time.monotonic() < deadline:
                ready, _, _ = select.select([f], [], [], max(0.0, deadline - time.monotonic()))
                chunk = f.read(4096) if ready else b""
                if not chunk:
                    break
                buf += chunk
        try:
            info = json.loads(buf)
            return int(info["child-pid"]), int(info.get("pid-namespace", 0))
        except (ValueError, KeyError):
            time.sleep(0.2)  # let bwrap's message arrive
            raise RuntimeError("the kernel's sandbox did not start: "
                               + (self.stderr_text.strip() or "bwrap said nothing")) from None

    async def _async_interrupt_kernel(self) -> None:
        if not self._use_sandbox:
            await super()._async_interrupt_kernel()
            return
        # The kernel is in its own session inside the sandbox: ask it by message (it then
        # signals its own process group, as a signal from outside would have).
        if self.has_kernel:
            msg = self.session.msg("interrupt_request", content={})
            self._connect_control_socket()
            self.session.send(self._control_socket, msg)

    interrupt_kernel = _async_interrupt_kernel  # nbclient calls it by this name

    def _end_sandbox(self) -> None:
        if self._watchdog:
            self._watchdog.stop()
        if self._child and self._pidns:
            try:  # pid 1 of the sandbox: its end takes every process of the sandbox with it
                if os.readlink(f"/proc/{self._child}/ns/pid") == f"pid:[{self._pidns}]":
                    os.kill(self._child, 9)
            except OSError:
                pass
        if self._cgroup:
            self._cgroup.kill()

    async def _async_cleanup_resources(self, restart: bool = False) -> None:
        self._end_sandbox()
        await super()._async_cleanup_resources(restart=restart)
        if self._cgroup:
            self._cgroup.remove()
        if self._staging:
            shutil.rmtree(self._staging, ignore_errors=True)
            self._staging = None

    cleanup_resources = _async_cleanup_resources  # nbclient calls it by this name

    def died_of(self) -> str:
        """Why the sandbox's kernel died, where the sandbox knows: memory, or ''."""
        if self._watchdog and self._watchdog.exceeded:
            return "its processes used " + self._watchdog.exceeded
        if self._cgroup and self._cgroup.out_of_memory():
            return f"its processes used more than {self.memory_limit_mb} MiB together"
        return ""


def _error_output(ename: str, message: str) -> NotebookNode:
    return NotebookNode(
        output_type="error", ename=ename, evalue=message,
        traceback=[f"\x1b[0;31m{ename}\x1b[0m: {message}"],
    )


def _output_size(out: dict) -> int:
    if out.get("output_type") == "stream":
        return len(out.get("text", ""))
    if out.get("output_type") == "error":
        return len(out.get("evalue", "")) + sum(len(t) for t in out.get("traceback", []))
    return sum(len(v) if isinstance(v, str) else len(json.dumps(v))
               for v in (out.get("data") or {}).values())


def _shorten(out: NotebookNode, chars: int) -> NotebookNode:
    """The same kind of output (it decides the cell's grade), its text cut to `chars`."""
    kind = out.get("output_type")
    if kind == "stream":
        out.text = out.get("text", "")[:chars] + "\n[output cut]\n"
    elif kind == "error":
        out.evalue = out.get("evalue", "")[:chars]
        tb = out.get("traceback", [])
        out.traceback = [t[:chars] for t in tb[:20]] + (["[traceback cut]"] if len(tb) > 20 else [])
    else:
        data = out.get("data") or {}
        text = data.get("text/plain", "")
        if isinstance(text, list):
            text = "".join(text)
        out.data = NotebookNode({"text/plain": str(text)[:chars] + " [output cut]"})
        out.metadata = NotebookNode()
    return out


class SafeExecute(Execute):
    """nbgrader's Execute, hardened (see the module's docstring)."""

    max_cell_output_kb = Integer(256, help="Outputs kept per cell, KiB.").tag(config=True)
    max_notebook_output_kb = Integer(2048, help="Outputs kept per notebook, KiB.").tag(config=True)
    canaries = Integer(2, help="Canary test cells per notebook (0: none).").tag(config=True)
    canary_file = Unicode("", help="Verified canaries (JSON) written by grading.pipeline.").tag(
        config=True)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("kernel_manager_class", SandboxKernelManager)
        super().__init__(*args, **kwargs)

    # -- bounded output --------------------------------------------------------------------

    def output(self, outs: list, msg: dict, display_id: str | None, cell_index: int):
        out = super().output(outs, msg, display_id, cell_index)
        if out is None or not outs or outs[-1] is not out:
            return out
        size = _output_size(out)
        cell_cap, nb_cap = self.max_cell_output_kb * 1024, self.max_notebook_output_kb * 1024
        used = self._cell_output.get(cell_index, 0)
        room = max(0, min(cell_cap - used, nb_cap - self._nb_output))
        if size <= room:
            self._cell_output[cell_index] = used + size
            self._nb_output += size
            return out
        outs.pop()
        kind = (out.get("output_type"), out.get("name"))
        if kind[0] in ("error", "execute_result") or kind == ("stream", "stderr"):
            # these decide the score: kept, shortened, once per kind and cell
            if kind not in self._kept_kinds.setdefault(cell_index, set()):
                self._kept_kinds[cell_index].add(kind)
                outs.append(_shorten(out, max(200, room)))
        elif not self._noted.get(cell_index):
            self._noted[cell_index] = True
            cap = "notebook" if nb_cap - self._nb_output <= cell_cap - used else "cell"
            outs.append(NotebookNode(output_type="stream", name="stdout", text=(
                f"\n[grading: more output than the {cap} may keep "
                f"({(cell_cap if cap == 'cell' else nb_cap) // 1024} KiB); the rest was "
                "dropped]\n")))
            self.log.warning("%s OUTPUT-CUT cell=#%d (%s limit)", EVENT, cell_index, cap)
        return None

    def _update_display_id(self, display_id: str, msg: dict) -> None:
        # An update replaces an earlier output's data wherever it is shown: capped as well.
        data = msg.get("content", {}).get("data") or {}
        if _output_size({"data": data}) > self.max_cell_output_kb * 1024:
            msg["content"]["data"] = {"text/plain": "[grading: an update larger than a cell may "
                                                    "keep was dropped]"}
            msg["content"]["metadata"] = {}
        super()._update_display_id(display_id, msg)

    # -- the run ---------------------------------------------------------------------------

    def on_cell_executed(self, **kwargs: Any) -> None:
        super().on_cell_executed(**kwargs)
        reply = kwargs["execute_reply"]
        if reply["content"].get("ename") == "CellTimeoutError":
            cell = kwargs["cell"]
            grade_id = cell.metadata.get("nbgrader", {}).get("grade_id", f"#{kwargs['cell_index']}")
            self.log.warning("%s TIMEOUT cell=%s after %ss", EVENT, grade_id, self.timeout)

    def _zero(self, nb: NotebookNode, kind: str, why: str) -> None:
        for cell in nb.cells:
            if cell.cell_type == "code" and cell.metadata.get("nbgrader", {}).get("grade"):
                cell.outputs = [*cell.get("outputs", []), _error_output(kind, why)]

    def preprocess(self, nb: NotebookNode, resources: Any = None, km: Any = None):
        self._started = False
        self._cell_output: dict[int, int] = {}
        self._nb_output = 0
        self._kept_kinds: dict[int, set] = {}
        self._noted: dict[int, bool] = {}
        name = (resources or {}).get("unique_key") or ""
        planted = tamper.plant_canaries(nb, tamper.load_verified(self.canary_file, name),
                                        self.canaries)
        try:
            super().preprocess(nb, resources, km)
        except (DeadKernelError, CellTimeoutError, UnresponsiveKernelError, RuntimeError) as e:
            if not self._started:
                raise  # the kernel never started: an infrastructure problem, not the learner's
            tamper.remove_canaries(nb, planted)
            if isinstance(e, DeadKernelError):
                died_of = self.km.died_of() if isinstance(self.km, SandboxKernelManager) else ""
                kind, why = "KERNEL-DIED", (
                    "The kernel died while running this notebook ("
                    + (died_of or "os._exit, a crash, or it ran out of memory")
                    + "), so the notebook scores zero. Make it run top to bottom with Restart & "
                    "Run All, then submit again.")
            elif "IOPub" in str(e):
                kind, why = "KERNEL-UNRESPONSIVE", (
                    "The kernel's outputs stopped arriving (an output too large to receive, or "
                    "an endless stream), so the notebook scores zero. Print less.")
            else:
                kind, why = "KERNEL-UNRESPONSIVE", (
                    f"A cell ran longer than {self.timeout} s and the kernel did not stop when "
                    "interrupted, so the notebook scores zero. Look for an endless loop.")
            self.log.error("%s %s %s", EVENT, kind, why)
            said = getattr(self.km, "stderr_text", "")
            if said:
                self.log.info("the kernel's last words (stderr):\n%s", said[-2000:])
            self._zero(nb, kind, why)
            return nb, resources
        passed = tamper.remove_canaries(nb, planted)
        for cell in nb.cells:
            _only_a_test_s_own_result(cell)
        for canary in passed:
            self.log.error("%s CANARY-PASSED %s", EVENT, canary.evidence())
        if passed:
            self._zero(nb, "GradingTampered", (
                "A check that every correct notebook fails passed in this notebook's kernel: "
                "the notebook changed how its tests run or report. The notebook scores zero; "
                "the instructor has the details."))
        return nb, resources

    def preprocess_cell(self, cell: NotebookNode, resources: Any, index: int):
        self._started = True  # cells run only once the kernel is up
        return super().preprocess_cell(cell, resources, index)


def _only_a_test_s_own_result(cell: NotebookNode) -> None:
    """nbgrader scores a test cell by its FIRST result or error, and a result that is not a
    number as full marks; one above the cell's points makes nbgrader fail the whole submission.
    A test's own result (partial credit) is its last output, a number within the points; any
    other result (sent by a kernel hook) is dropped, so the cell scores by its errors."""
    meta = cell.get("metadata", {}).get("nbgrader", {}) or {}
    if cell.cell_type != "code" or not meta.get("grade") or meta.get("solution"):
        return
    outs = cell.get("outputs", [])
    results = [o for o in outs if o.get("output_type") == "execute_result"]
    if not results:
        return
    keep = None
    if len(results) == 1 and outs[-1] is results[0]:
        text = (results[0].get("data") or {}).get("text/plain", "")
        try:
            value = float("".join(text) if isinstance(text, list) else text)
            if 0 <= value <= float(meta.get("points", 0)):
                keep = results[0]
        except ValueError:
            pass
    cell.outputs = [o for o in outs if o.get("output_type") != "execute_result" or o is keep]


def canary_failed(cell: NotebookNode) -> bool:
    """As nbgrader scores a test cell: does this (canary) cell lose its points?"""
    probe = copy.deepcopy(cell)
    probe.metadata["nbgrader"] = {"grade": True, "solution": False, "points": 1,
                                  "grade_id": "canary"}
    _only_a_test_s_own_result(probe)
    score, _ = determine_grade(probe)
    return score is not None and score < 1
