"""One writer at a time: a file lock around every use of nbgrader's gradebook.

Parallel autograde runs one nbgrader process per student, all on one SQLite gradebook.
SQLite alone answers "database is locked" when two of them write at once; so every process of
``grading`` takes an exclusive ``flock`` while it holds a :class:`nbgrader.api.Gradebook`
open (nbgrader opens it for a moment at a time, never while a kernel runs).

The lock file of ``<dir>/gradebook.db`` is ``<dir>/autograded/.gradebook.lock`` (the
instructor's working data, ignored by git).
"""

from __future__ import annotations

import fcntl
import os
import threading
import time
from pathlib import Path

from nbgrader.api import Gradebook

_held: dict[str, tuple[int, int]] = {}  # lock path -> (descriptor, depth)
_thread_lock = threading.RLock()


def lock_path(db_url: str) -> str | None:
    """The lock file of a SQLite gradebook URL (None for other databases)."""
    if not db_url.startswith("sqlite:///") or ":memory:" in db_url:
        return None
    db = db_url[len("sqlite:///"):].split("?")[0]
    folder = Path(db).resolve().parent / "autograded"
    folder.mkdir(parents=True, exist_ok=True)
    return str(folder / ".gradebook.lock")


def _acquire(path: str, timeout: float = 600.0) -> None:
    _thread_lock.acquire()
    fd, depth = _held.get(path, (None, 0))
    if depth == 0:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    os.close(fd)
                    _thread_lock.release()
                    raise TimeoutError(f"gradebook lock {path} held too long") from None
                time.sleep(0.05)
    _held[path] = (fd, depth + 1)


def _release(path: str) -> None:
    fd, depth = _held[path]
    if depth == 1:
        os.close(fd)  # closing the descriptor drops the flock
        del _held[path]
    else:
        _held[path] = (fd, depth - 1)
    _thread_lock.release()


def install(root: Path | str | None = None) -> None:
    """Make every Gradebook opened in this process hold its lock file (idempotent)."""
    if getattr(Gradebook, "_grading_locked", False):
        return
    original_init, original_close = Gradebook.__init__, Gradebook.close

    def __init__(self, db_url, *args, **kwargs):
        path = lock_path(db_url)
        if path:
            _acquire(path)
        try:
            original_init(self, db_url, *args, **kwargs)
        except BaseException:
            if path:
                _release(path)
            raise
        self._grading_lock_path = path

    def close(self):
        try:
            original_close(self)
        finally:
            path = getattr(self, "_grading_lock_path", None)
            if path:
                self._grading_lock_path = None
                _release(path)

    Gradebook.__init__ = __init__
    Gradebook.close = close
    Gradebook._grading_locked = True
