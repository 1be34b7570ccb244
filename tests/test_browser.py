"""The graphs are seen in a real browser: JupyterLab serves the course notebooks that draw a graph, headless
Chromium (Debian's, driven by Playwright) runs all their cells, and the drawing's SVG must appear in the
notebook's output area. A screenshot of each is saved to ``artifacts/browser/<notebook>.png``.

Needs ``/usr/bin/chromium`` and Graphviz's ``dot`` (``.ci/run`` installs both); skipped without them.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "artifacts" / "browser"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-background-networking", "--disable-gpu",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
DRAWS = re.compile(r"autograd_lab\.viz|viz\.draw|backward_steps")
TIMEOUT_MS = 90_000  # a loaded 2-core machine: first page load and kernel start take a while


def course_notebooks() -> list[Path]:
    """The released notebooks to open: 00_welcome (its first graph) when it draws one, else every
    notebook that draws one. ``AUTOGRAD_LAB_BROWSER_NOTEBOOKS=all`` opens every drawing notebook
    (about 30 s each on a 2-core machine)."""
    drawing = sorted(p for p in (ROOT / "course").glob("*/*.ipynb")
                     if ".ipynb_checkpoints" not in p.parts and DRAWS.search(p.read_text(encoding="utf-8")))
    welcome = [p for p in drawing if p.stem == "00_welcome"]
    if os.environ.get("AUTOGRAD_LAB_BROWSER_NOTEBOOKS") == "all" or not welcome:
        return drawing
    return welcome


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def prepare(root: Path, notebooks: list[Path]) -> list[str]:
    """Copy the notebooks' folders into ``root``. Every code cell gets the ``raises-exception`` tag, so
    that Run All goes past the exercises a learner has not done yet (they raise NotImplementedError)."""
    paths = []
    for nb_path in notebooks:
        folder = root / nb_path.parent.name
        if not folder.exists():
            shutil.copytree(nb_path.parent, folder, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
        nb = json.loads((folder / nb_path.name).read_text(encoding="utf-8"))
        for cell in nb["cells"]:
            if cell["cell_type"] == "code":
                tags = cell.setdefault("metadata", {}).setdefault("tags", [])
                if "raises-exception" not in tags:
                    tags.append("raises-exception")
        (folder / nb_path.name).write_text(json.dumps(nb, indent=1), encoding="utf-8")
        paths.append(f"{folder.name}/{nb_path.name}")
    return paths


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """A JupyterLab server on 127.0.0.1 serving a temporary copy of the notebooks; killed afterwards."""
    if not Path(CHROMIUM).exists():
        pytest.skip(f"Chromium is not installed at {CHROMIUM} (apt-get install chromium)")
    if shutil.which("dot") is None:
        pytest.skip("Graphviz's dot is not installed (apt-get install graphviz)")
    pytest.importorskip("playwright.sync_api")
    notebooks = course_notebooks()
    assert notebooks, "no course notebook draws a graph with autograd_lab.viz (course/*/*.ipynb)"
    tmp = tmp_path_factory.mktemp("lab")
    root = tmp / "course"
    root.mkdir()
    paths = prepare(root, notebooks)
    settings = tmp / "settings"
    (settings / "@jupyterlab" / "apputils-extension").mkdir(parents=True)
    (settings / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false"}))  # no "Jupyter news?" toast over the screenshot
    env = dict(os.environ, JUPYTERLAB_SETTINGS_DIR=str(settings),
               JUPYTERLAB_WORKSPACES_DIR=str(tmp / "workspaces"), JUPYTER_RUNTIME_DIR=str(tmp / "runtime"))
    port = free_port()
    cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
           "--ServerApp.port_retries=0", "--ServerApp.token=", "--ServerApp.password=",
           "--ServerApp.disable_check_xsrf=True", f"--ServerApp.root_dir={root}"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")
    log = open(tmp / "server.log", "w")  # closed in the finally below
    proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 90
        while True:
            if proc.poll() is not None:
                log.flush()
                pytest.fail("JupyterLab exited:\n" + (tmp / "server.log").read_text()[-3000:])
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status", timeout=2):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail("JupyterLab did not answer within 90 s")
                time.sleep(0.3)
        yield f"http://127.0.0.1:{port}", paths, tmp
    finally:
        try:
            os.killpg(proc.pid, signal.SIGTERM)  # the server and its kernels: their own process group
            proc.wait(timeout=15)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=5)
        log.close()


def test_course_graphs_render_in_chromium(lab):
    from playwright.sync_api import sync_playwright

    url, paths, tmp = lab
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch_persistent_context(
            str(tmp / "chromium-profile"), executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS,
            viewport={"width": 1280, "height": 1000})
        try:
            for path in paths:
                name = Path(path).stem
                page = browser.new_page()
                page.set_default_timeout(TIMEOUT_MS)
                page.goto(f"{url}/lab/tree/{path}?reset", wait_until="domcontentloaded")
                notebook = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
                notebook.locator(".jp-Cell").first.wait_for()
                page.get_by_text(re.compile(r"\| Idle$")).first.wait_for()  # the kernel is ready
                page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
                page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Run All Cells$")).click()
                svg = notebook.locator(".jp-OutputArea-output svg").first
                svg.wait_for()
                svg.scroll_into_view_if_needed()
                text = svg.inner_html()
                page.wait_for_timeout(300)  # let the scroll settle
                page.screenshot(path=str(ARTIFACTS / f"{name}.png"))
                svg.screenshot(path=str(ARTIFACTS / f"{name}-graph.png"))
                assert "Backward" in text, f"{path}: the SVG in the output is not a graph of grad_fn nodes"
                assert svg.bounding_box()["width"] > 50
                page.close()
        finally:
            browser.close()
