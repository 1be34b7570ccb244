"""Start a kernel in a sandbox: the course tree and the gradebook hidden, an unprivileged user.

Run as a script (standard library only) by ``grading.execute.SandboxKernelManager``, in front
of the kernel's own command line::

    python grading/sandbox.py --hide /course --expose /course/.venv --workdir /tmp/k/work \\
        --connection-file /root/.../kernel-1.json -- python -m ipykernel_launcher -f ...

Linux only. In a new mount namespace, every ``--hide`` directory is covered by an empty
read-only tmpfs (a ``--hide`` file by an empty file), then every ``--expose`` path inside a
hidden one (the virtualenv, the course's own package) is bound back, read-only. So
``open("../../solutions/...")`` or the gradebook's absolute path fails with
FileNotFoundError.

* Started as root (a grading server, CI): the kernel then runs as a throw-away user id
  (``--uid-base`` + its pid), which owns nothing but its work directory, cannot read root's
  files, cannot undo the mounts (no capabilities left) and cannot signal other kernels.
* Started as an ordinary user: an unprivileged user namespace does the mounts; a second one
  locks them (mounts inherited from a more privileged namespace cannot be unmounted), and the
  kernel keeps the instructor's user id. Weaker: see docs/instructor-guide.md.

Resource limits (address space, processes, file size, no core dumps) turn a runaway
allocation into a MemoryError in the learner's cell rather than an out-of-memory kill.
"""

from __future__ import annotations

import argparse
import ctypes
import ctypes.util
import os
import resource
import shutil
import sys

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
MS_RDONLY = 0x1
MS_NOSUID = 0x2
MS_NODEV = 0x4
MS_REMOUNT = 0x20
MS_BIND = 0x1000
MS_REC = 0x4000
MS_PRIVATE = 1 << 18

_libc = None


def _c() -> ctypes.CDLL:
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    return _libc


def _check(ret: int, what: str) -> None:
    if ret != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _unshare(flags: int) -> None:
    _check(_c().unshare(flags), "unshare")


def _enc(s: str | None) -> bytes | None:
    return None if s is None else s.encode()


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None):
    enc = _enc
    ret = _c().mount(enc(source), enc(target), enc(fstype), ctypes.c_ulong(flags), enc(data))
    _check(ret, f"mount {target}")


def _write(path: str, text: str) -> None:
    with open(path, "w") as f:
        f.write(text)


def _map_ids(inner_uid: int, outer_uid: int, inner_gid: int, outer_gid: int) -> None:
    _write("/proc/self/setgroups", "deny")
    _write("/proc/self/uid_map", f"{inner_uid} {outer_uid} 1")
    _write("/proc/self/gid_map", f"{inner_gid} {outer_gid} 1")


def _inside(path: str, parent: str) -> bool:
    return path == parent or path.startswith(parent.rstrip("/") + "/")


def hide_paths(hide: list[str], expose: list[str]) -> None:
    """In the current (new, private) mount namespace, hide `hide` except `expose`."""
    hide = sorted({os.path.realpath(p) for p in hide if os.path.exists(p)}, key=len)
    expose = sorted({os.path.realpath(p) for p in expose if os.path.exists(p)}, key=len)
    # A hidden path inside another is already hidden; an exposed one must be inside a hidden one.
    hide = [p for i, p in enumerate(hide) if not any(_inside(p, q) for q in hide[:i])]
    expose = [p for p in expose if any(_inside(p, h) for h in hide)]
    # Handles to what will be exposed, taken before the tmpfs covers it.
    handles = {p: os.open(p, os.O_PATH) for p in expose}
    _mount(None, "/", None, MS_REC | MS_PRIVATE, None)
    hidden_dirs = []
    for path in hide:
        if os.path.isdir(path):
            _mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k,mode=755")
            hidden_dirs.append(path)
        else:
            _mount("/dev/null", path, None, MS_BIND, None)
    for path in expose:
        if os.path.isdir(f"/proc/self/fd/{handles[path]}"):
            os.makedirs(path, exist_ok=True)
        else:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            open(path, "a").close()
        _mount(f"/proc/self/fd/{handles[path]}", path, None, MS_BIND | MS_REC, None)
        _mount(None, path, None, MS_BIND | MS_REMOUNT | MS_RDONLY, None)
        os.close(handles[path])
    for path in hidden_dirs:
        _mount(None, path, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, "size=64k")


def set_limits(memory_mb: int, nproc: int | None) -> None:
    def lower(which: int, value: int) -> None:
        soft, hard = resource.getrlimit(which)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        resource.setrlimit(which, (value, value))

    if memory_mb > 0:
        lower(resource.RLIMIT_AS, memory_mb * 2**20)
    if nproc:
        lower(resource.RLIMIT_NPROC, nproc)
    lower(resource.RLIMIT_CORE, 0)
    lower(resource.RLIMIT_FSIZE, 2**30)


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if "--" not in argv:
        sys.exit("sandbox.py: missing '--' before the kernel command")
    split = argv.index("--")
    p = argparse.ArgumentParser(prog="sandbox.py")
    p.add_argument("--mode", choices=["auto", "strict", "off"], default="auto")
    p.add_argument("--hide", action="append", default=[])
    p.add_argument("--expose", action="append", default=[])
    p.add_argument("--workdir", required=True)
    p.add_argument("--connection-file", required=True)
    p.add_argument("--uid-base", type=int, default=200000)
    p.add_argument("--memory-mb", type=int, default=0)
    p.add_argument("--nproc", type=int, default=256)
    opts = p.parse_args(argv[:split])
    cmd = argv[split + 1 :]

    # The connection file lives in the instructor's private runtime directory: copy it to
    # where the kernel's user can read it.
    staged = os.path.join(os.path.dirname(opts.workdir), "kernel.json")
    shutil.copyfile(opts.connection_file, staged)
    os.chmod(staged, 0o600)
    cmd = [staged if a == opts.connection_file else a for a in cmd]
    home = os.path.join(os.path.dirname(opts.workdir), "home")
    os.makedirs(home, exist_ok=True)
    env = dict(os.environ, HOME=home, MPLCONFIGDIR=os.path.join(home, ".mpl"),
               IPYTHONDIR=os.path.join(home, ".ipython"), XDG_CACHE_HOME=home,
               TMPDIR=os.path.join(os.path.dirname(opts.workdir), "tmp"))
    os.makedirs(env["TMPDIR"], exist_ok=True)

    is_root = os.geteuid() == 0
    uid = gid = None
    if opts.mode != "off":
        try:
            if is_root:
                _unshare(CLONE_NEWNS)
                hide_paths(opts.hide, opts.expose)
                uid = gid = opts.uid_base + os.getpid()
                base = os.path.dirname(opts.workdir)
                for d, _, files in os.walk(base):
                    os.chown(d, uid, gid)
                    for f in files:
                        os.chown(os.path.join(d, f), uid, gid)
                set_limits(opts.memory_mb, opts.nproc)
                os.setgroups([])
                os.setgid(gid)
                os.setuid(uid)
                if os.getuid() != uid or os.geteuid() != uid:
                    raise OSError("could not drop privileges")
            else:
                my_uid, my_gid = os.getuid(), os.getgid()
                _unshare(CLONE_NEWUSER | CLONE_NEWNS)
                _map_ids(0, my_uid, 0, my_gid)
                hide_paths(opts.hide, opts.expose)
                # A second user namespace locks the mounts above: they cannot be undone.
                _unshare(CLONE_NEWUSER | CLONE_NEWNS)
                _map_ids(my_uid, 0, my_gid, 0)
                set_limits(opts.memory_mb, None)
            env["GRADING_SANDBOX"] = "root" if is_root else "userns"
        except OSError as e:
            if opts.mode == "strict":
                sys.exit(f"sandbox.py: cannot isolate the kernel ({e}); mode is 'strict'")
            print(f"sandbox.py: WARNING: kernel NOT isolated ({e})", file=sys.stderr)
            env["GRADING_SANDBOX"] = "none"
            set_limits(opts.memory_mb, None)
    else:
        env["GRADING_SANDBOX"] = "off"
    os.chdir(opts.workdir)
    os.execvpe(cmd[0], cmd, env)


if __name__ == "__main__":
    main()
