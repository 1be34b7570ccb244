"""The README's first command, `make course`, starts a JupyterLab that answers (as root too)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_course_starts_a_server_that_answers(tmp_path):
    port, token = free_port(), "autograd-lab-test"
    env = dict(os.environ, JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"))
    lab_args = f"--no-browser --ip=127.0.0.1 --port={port} --ServerApp.token={token}"
    proc = subprocess.Popen(
        ["make", "--no-print-directory", "course", f"LAB_ARGS={lab_args}"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}/api/status?token={token}"
    status, deadline = None, time.monotonic() + 180
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                with urllib.request.urlopen(url, timeout=5) as reply:
                    status = json.load(reply)
                    break
            except OSError:
                time.sleep(0.5)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            output = proc.communicate(timeout=30)[0]
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            output = proc.communicate()[0]
    who = "root" if os.geteuid() == 0 else "an ordinary user"
    assert status is not None, (
        f"`make course` (run as {who}) did not start a JupyterLab answering on port {port} "
        f"within 180 s; its output:\n{output[-3000:]}"
    )
    assert "started" in status, f"unexpected /api/status reply: {status}"
