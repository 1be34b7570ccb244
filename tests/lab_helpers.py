"""Helpers for the tests that start a JupyterLab server: a free port, waiting for it, stopping it."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until_answers(proc: subprocess.Popen, url: str, log: Path, seconds: float) -> None:
    """Wait until `url` answers; fail the test with the server's log if it exits or takes too long."""
    deadline = time.monotonic() + seconds
    while True:
        if proc.poll() is not None:
            pytest.fail("the server exited:\n" + log.read_text(errors="replace")[-3000:])
        try:
            with urllib.request.urlopen(url, timeout=5):
                return
        except OSError:
            if time.monotonic() > deadline:
                pytest.fail(f"the server did not answer within {seconds:.0f} s:\n"
                            + log.read_text(errors="replace")[-3000:])
            time.sleep(0.3)


def stop(proc: subprocess.Popen) -> None:
    """End a server started with start_new_session=True, and its kernels (its process group)."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(timeout=5)
