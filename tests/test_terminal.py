"""00_welcome's way to validate from a terminal works where the learner types it: in the terminal of
the JupyterLab that `make course` starts (as root and as an ordinary user alike).

The test starts `make course`, opens a terminal through JupyterLab's own API, types the commands
that 00_welcome gives, exactly as written there, and reads what the terminal prints.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lab_helpers import free_port, stop, wait_until_answers  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "autograd-lab-terminal-test"


def welcome_terminal_commands() -> list[str]:
    """The commands (code spans) of 00_welcome's sentence about validating from a terminal."""
    nb = json.loads((ROOT / "course" / "00_welcome" / "00_welcome.ipynb").read_text(encoding="utf-8"))
    text = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    line = next((ln for ln in re.split(r"\n(?=\s*-)", text) if "terminal" in ln.lower()
                 and "nbgrader validate" in ln), None)
    assert line, "00_welcome says how to validate from a terminal"
    return [c for c in re.findall(r"`([^`]+)`", " ".join(line.split()))
            if c.split()[0] in ("cd", "nbgrader")]


@pytest.fixture(scope="module")
def course_server(tmp_path_factory):
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    pytest.importorskip("websocket")
    tmp = tmp_path_factory.mktemp("make-course")
    port = free_port()
    env = dict(os.environ, JUPYTER_RUNTIME_DIR=str(tmp / "runtime"))
    lab_args = f"--no-browser --ip=127.0.0.1 --port={port} --ServerApp.token={TOKEN}"
    log = tmp / "server.log"
    with open(log, "w") as out:
        proc = subprocess.Popen(["make", "--no-print-directory", "course", f"LAB_ARGS={lab_args}"],
                                cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_answers(proc, f"{url}/api/status?token={TOKEN}", log, 180)
        yield url
    finally:
        stop(proc)


def run_in_terminal(url: str, commands: list[str], until: re.Pattern, timeout: float = 240) -> str:
    """Type `commands` in a new JupyterLab terminal; return its output once `until` matches it."""
    import websocket

    req = urllib.request.Request(f"{url}/api/terminals?token={TOKEN}", data=b"{}", method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as reply:
        name = json.load(reply)["name"]
    ws = websocket.create_connection(
        f"{url.replace('http', 'ws')}/terminals/websocket/{name}?token={TOKEN}", timeout=5)
    out, deadline = "", time.monotonic() + timeout
    try:
        ws.send(json.dumps(["stdin", "\r".join(commands) + "\r"]))
        while time.monotonic() < deadline and not until.search(out):
            try:
                msg = json.loads(ws.recv())
            except websocket.WebSocketTimeoutException:
                continue
            if msg[0] == "stdout":
                out += msg[1]
    finally:
        ws.close()
        urllib.request.urlopen(urllib.request.Request(
            f"{url}/api/terminals/{name}?token={TOKEN}", method="DELETE"), timeout=30).close()
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07", "", out)


@pytest.mark.slow
def test_welcome_validate_instruction_works_in_the_jupyterlab_terminal(course_server):
    commands = welcome_terminal_commands()
    assert any(c.startswith("nbgrader validate") for c in commands), commands
    out = run_in_terminal(course_server, [*commands, "echo DONE-$?"],
                          re.compile(r"DONE-\d|command not found|No such file"))
    assert "command not found" not in out and "No such file" not in out, out[-3000:]
    assert "VALIDATION FAILED" in out and "NotImplementedError" in out, out[-3000:]
    assert not any(ln.rstrip().endswith("...") for ln in out.splitlines()), "whole messages"
