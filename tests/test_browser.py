"""What learners and the instructor see in a real browser: JupyterLab on a copy of the repository made
like a fresh clone (tracked files only: no gradebook.db, nothing collected), started as
`.venv/bin/jupyter lab` at its root without the virtualenv on PATH; headless Chromium (Debian's,
driven by Playwright) opens it. One server for the whole module.

- the course notebooks that draw a graph run, and the drawing's SVG appears in the output area
  (screenshots in ``artifacts/browser/``);
- Formgrader lists the assignments on its first open, with no warning about the exchange, and its
  Release button puts an assignment in the course's exchange.

Needs ``/usr/bin/chromium`` and Graphviz's ``dot`` (``.ci/run`` installs both); skipped without them.
"""

from __future__ import annotations

import json
import os
import platform
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lab_helpers import free_port, stop, wait_until_answers  # noqa: E402

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "artifacts" / "browser"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-background-networking", "--disable-gpu",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
DRAWS = re.compile(r"autograd_lab\.viz|viz\.draw|backward_steps")
TIMEOUT_MS = 90_000  # a loaded 2-core machine: first page load and kernel start take a while


BIN = Path(sys.executable).parent
# A PATH without the virtualenv's bin/: `.venv/bin/jupyter lab` started without activating it.
BARE_PATH = os.pathsep.join(p for p in os.environ.get("PATH", "/usr/bin:/bin").split(os.pathsep)
                            if p and Path(p).resolve() != BIN.resolve())


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


def fresh_clone(dest: Path) -> Path:
    """The repository's files as a fresh clone has them (tracked, or new and not ignored), copied."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            cwd=ROOT, capture_output=True, check=True).stdout.decode().split("\0")
    for rel in filter(None, listed):
        src = ROOT / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
    return dest


def prepare_run_all(root: Path, notebooks: list[Path]) -> list[str]:
    """Copy the notebooks' folders into ``root/run-all/``. Every code cell gets the ``raises-exception``
    tag, so that Run All goes past the exercises a learner has not done yet (NotImplementedError)."""
    paths = []
    for nb_path in notebooks:
        folder = root / "run-all" / nb_path.parent.name
        if not folder.exists():
            shutil.copytree(nb_path.parent, folder, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
        nb = json.loads((folder / nb_path.name).read_text(encoding="utf-8"))
        for cell in nb["cells"]:
            if cell["cell_type"] == "code":
                tags = cell.setdefault("metadata", {}).setdefault("tags", [])
                if "raises-exception" not in tags:
                    tags.append("raises-exception")
        (folder / nb_path.name).write_text(json.dumps(nb, indent=1), encoding="utf-8")
        paths.append(f"run-all/{folder.name}/{nb_path.name}")
    return paths


class Lab:
    """The running server: its URL, the clone it serves, its log."""

    def __init__(self, url: str, root: Path, tmp: Path, log: Path):
        self.url, self.root, self.tmp, self.log = url, root, tmp, log

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """JupyterLab on 127.0.0.1 at the root of a fresh clone, as `.venv/bin/jupyter lab` without the
    virtualenv on PATH; killed afterwards."""
    if not Path(CHROMIUM).exists():
        pytest.skip(f"Chromium is not installed at {CHROMIUM} (apt-get install chromium)")
    if shutil.which("dot") is None:
        pytest.skip("Graphviz's dot is not installed (apt-get install graphviz)")
    pytest.importorskip("playwright.sync_api")
    tmp = tmp_path_factory.mktemp("lab")
    root = fresh_clone(tmp / "clone")
    settings = tmp / "settings"
    (settings / "@jupyterlab" / "apputils-extension").mkdir(parents=True)
    (settings / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false"}))  # no "Jupyter news?" toast over the screenshot
    env = dict(os.environ, PATH=BARE_PATH, JUPYTERLAB_SETTINGS_DIR=str(settings),
               JUPYTERLAB_WORKSPACES_DIR=str(tmp / "workspaces"), JUPYTER_RUNTIME_DIR=str(tmp / "runtime"))
    port = free_port()
    cmd = [str(BIN / "jupyter"), "lab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
           "--ServerApp.port_retries=0", "--ServerApp.token=", "--ServerApp.password=",
           "--ServerApp.disable_check_xsrf=True"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")
    log_path = tmp / "server.log"
    with open(log_path, "w") as log:
        proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)
    try:
        wait_until_answers(proc, f"http://127.0.0.1:{port}/api/status", log_path, 90)
        yield Lab(f"http://127.0.0.1:{port}", root, tmp, log_path)
    finally:
        stop(proc)


@pytest.fixture(scope="module")
def browser(lab):
    """One headless Chromium for the module (a laptop's 1280x720 window)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(lab.tmp / "chromium-profile"), executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS,
            viewport={"width": 1280, "height": 720})
        context.set_default_timeout(TIMEOUT_MS)
        try:
            yield context
        finally:
            context.close()


def open_notebook(browser, lab: Lab, path: str):
    """A new page with the notebook at ``path`` open and its kernel idle; (page, notebook panel)."""
    page = browser.new_page()
    page.goto(f"{lab.url}/lab/tree/{path}?reset", wait_until="domcontentloaded")
    notebook = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
    notebook.locator(".jp-Cell").first.wait_for()
    page.get_by_text(re.compile(r"\| Idle$")).first.wait_for()  # the kernel is ready
    return page, notebook


def menu(page, top: str, item: str) -> None:
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(f"^{re.escape(top)}$")).click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(f"^{re.escape(item)}$")).click()


def test_course_graphs_render_in_chromium(lab, browser):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for path in prepare_run_all(lab.root, course_notebooks()):
        name = Path(path).stem
        page, notebook = open_notebook(browser, lab, path)
        page.set_viewport_size({"width": 1280, "height": 1000})
        menu(page, "Run", "Run All Cells")
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


def test_formgrader_lists_assignments_on_first_open(lab, browser):
    """On the fresh clone (no gradebook.db yet), without .venv/bin on the server's PATH."""
    assert not (lab.root / "gradebook.db").exists(), "the clone must start without a gradebook"
    assignments = sorted(p.name for p in (ROOT / "solutions").iterdir()
                         if p.is_dir() and any(p.glob("*.ipynb")))
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page = browser.new_page()
    page.goto(f"{lab.url}/formgrader", wait_until="domcontentloaded")
    try:
        page.wait_for_function("() => !document.body.innerText.includes('Loading, please wait')",
                               timeout=30_000)
    except Exception:
        pytest.fail("Formgrader's assignment list stays on 'Loading, please wait...'; the server "
                    "log:\n" + lab.log_text()[-3000:])
    rows = page.locator("tbody tr td:first-child")
    names = sorted(rows.all_inner_texts())
    page.screenshot(path=str(ARTIFACTS / "formgrader.png"), full_page=True)
    assert [n.strip() for n in names] == assignments, page.locator("body").inner_text()[:3000]
    assert " 500 " not in lab.log_text(), lab.log_text()[-3000:]
    with sqlite3.connect(lab.root / "gradebook.db") as conn:
        assert conn.execute("SELECT count(*) FROM alembic_version").fetchone() == (1,)

    # The exchange: no warning, every assignment a draft (generated, not in the exchange), and the
    # Release button works (the exchange is a folder of the course root: no root needed).
    assert page.locator("#warning-exchange").count() == 0, page.locator("#warning-exchange").inner_text()
    status = {n.strip(): s.strip() for n, s in zip(rows.all_inner_texts(),
                                                   page.locator("tbody tr td.status").all_inner_texts())}
    assert set(status.values()) == {"draft"}, status
    row = page.locator("tbody tr", has=page.locator("td:first-child", has_text="01_tensors"))
    row.locator(".glyphicon-cloud-upload").click()
    row.locator("td.status", has_text="released").wait_for(timeout=30_000)
    released = lab.root / "exchange" / "autograd-lab" / "outbound" / "01_tensors" / "01_tensors.ipynb"
    assert released.is_file(), "Release copied the notebook into the course's exchange"
    page.screenshot(path=str(ARTIFACTS / "formgrader-released.png"), full_page=True)
    page.close()


def test_validate_dialog_shows_the_whole_error_first_and_wrapped(lab, browser):
    """nbgrader's dialog listed the test's source first and let long lines run off its edge."""
    import nbformat
    from test_validate import HINT, long_message_notebook

    (lab.root / "validate").mkdir(exist_ok=True)
    nbformat.write(long_message_notebook(), lab.root / "validate" / "long.ipynb")
    page, notebook = open_notebook(browser, lab, "validate/long.ipynb")
    page.screenshot(path=str(ARTIFACTS / "validate-before.png"))
    page.get_by_text("Validate", exact=True).first.click(timeout=20_000)
    dialog = page.locator(".nbgrader-ErrorDialog #validation-message")
    dialog.wait_for(timeout=120_000)
    page.wait_for_timeout(200)
    page.screenshot(path=str(ARTIFACTS / "validate-dialog.png"))
    children = dialog.evaluate("m => Array.from(m.children).map(c => c.className + '|' + c.tagName)")
    error = dialog.locator(".autograd-lab-error pre").first
    source = dialog.locator("details.autograd-lab-test")
    text = error.inner_text()
    assert HINT[-60:] in " ".join(text.split()), text
    assert children.index(next(c for c in children if "autograd-lab-error" in c)) < \
        children.index(next(c for c in children if "autograd-lab-test" in c)), children
    assert source.count() == 1 and source.evaluate("d => !d.open"), "the test's source is folded"
    widths = error.evaluate("p => [p.scrollWidth, p.clientWidth]")
    assert widths[0] <= widths[1] + 1, f"the error runs past the dialog's edge: {widths}"
    box = dialog.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 1280
    page.close()


def test_opening_and_saving_a_course_notebook_changes_nothing(lab, browser):
    """JupyterLab keeps the notebook's metadata as it is: Validate's save leaves no diff (with the
    Python recorded in the notebooks; with another, only language_info.version changes)."""
    path = "course/01_tensors/01_tensors.ipynb"
    before = (lab.root / path).read_bytes()
    page, notebook = open_notebook(browser, lab, path)
    page.wait_for_timeout(1000)  # JupyterLab writes the kernel's metadata once it is connected
    tab = page.locator(".lm-TabBar-tab.jp-mod-current")
    dirty = "jp-mod-dirty" in (tab.get_attribute("class") or "")
    notebook.locator(".jp-Cell").first.click()
    page.keyboard.press("Control+s")
    page.wait_for_function("() => !document.querySelector('.lm-TabBar-tab.jp-mod-current.jp-mod-dirty')")
    page.wait_for_timeout(500)
    after = (lab.root / path).read_bytes()
    page.close()
    recorded = json.loads(before)["metadata"]["language_info"]["version"]
    if recorded != platform.python_version():
        # The one change left where the kernel's Python is another than the one recorded.
        b, a = json.loads(before), json.loads(after)
        assert a["metadata"]["language_info"].pop("version") == platform.python_version()
        b["metadata"]["language_info"].pop("version")
        assert a == b, "saving changed more than language_info.version"
        return
    assert not dirty, "opening the notebook marked it modified"
    if after != before:
        import difflib

        diff = difflib.unified_diff(before.decode().splitlines(), after.decode().splitlines(), lineterm="")
        pytest.fail("saving changed the file:\n" + "\n".join(list(diff)[:40]))


SIZES_NOTEBOOK = [
    "import autograd_lab as torch\nfrom autograd_lab import nn, viz\ntorch.manual_seed(0)\n"
    "model = nn.Sequential(nn.Linear(2, 3), nn.Tanh(), nn.Linear(3, 1))\n"
    "loss = model(torch.randn(4, 2)).sum()\nviz.draw(loss, params=model)",
    "a = torch.tensor(1.0, requires_grad=True)\nz = a\nfor _ in range(8):\n    z = z * 2 + 1\n"
    "viz.draw(z, rankdir='LR')",
]

MEASURE = """g => {
  const svg = g.querySelector('svg'), view = g.querySelector('.autograd-lab-graph-view');
  const box = svg.getBoundingClientRect(), vb = svg.viewBox.baseVal;
  const px = box.width / vb.width;  // rendered px per SVG unit (pt)
  const sizes = Array.from(svg.querySelectorAll('text'))
    .map(t => parseFloat(t.getAttribute('font-size')) * px);
  const out = g.closest('.jp-OutputArea-output').getBoundingClientRect();
  return {svgW: box.width, svgH: box.height, viewW: view.getBoundingClientRect().width,
          viewH: view.getBoundingClientRect().height, naturalW: parseFloat(g.dataset.width),
          naturalH: parseFloat(g.dataset.height), outW: out.width,
          minFont: Math.min(...sizes), maxFont: Math.max(...sizes)};
}"""


def test_graphs_fit_a_laptop_notebook_column_readable_and_open_full_size(lab, browser):
    """At 1280x720: a tall network graph and a wide left-to-right chain, measured as rendered."""
    import nbformat

    (lab.root / "graphs").mkdir(exist_ok=True)
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in SIZES_NOTEBOOK])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, lab.root / "graphs" / "sizes.ipynb")
    page, notebook = open_notebook(browser, lab, "graphs/sizes.ipynb")
    menu(page, "Run", "Run All Cells")
    graphs = notebook.locator(".jp-OutputArea-output .autograd-lab-graph")
    graphs.nth(1).wait_for()
    area = notebook.locator(".jp-WindowedPanel-outer").first.evaluate("e => e.clientHeight")
    tall, wide = (graphs.nth(i).evaluate(MEASURE) for i in range(2))
    graphs.nth(0).scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "graph-sizes.png"))
    print(f"notebook area {area}px high; tall: {tall}; wide: {wide}")
    assert tall["naturalH"] > area, "the tall graph is taller than the notebook area at full size"
    assert tall["viewH"] <= min(area, 520), (area, tall)
    assert wide["viewW"] <= wide["outW"] + 1, wide
    for g in (tall, wide):
        assert g["svgH"] >= 0.74 * g["naturalH"], f"shrunk below readable: {g}"
        assert g["minFont"] >= 8.9 and g["maxFont"] >= 10.9, f"labels too small: {g}"
    with browser.expect_page(timeout=30_000) as new:
        graphs.nth(0).locator(".autograd-lab-graph-full").click()
    full = new.value
    full.wait_for_load_state()
    size = full.locator("svg").evaluate("s => [s.getBoundingClientRect().width, "
                                         "s.getBoundingClientRect().height]")
    full.close()
    page.close()
    assert abs(size[1] - tall["naturalH"]) < 2, (size, tall)


STEPS_NOTEBOOK = [
    "import autograd_lab as torch\nfrom autograd_lab import viz\n"
    "w = torch.tensor(2.0, requires_grad=True)\nb = torch.tensor(3.0, requires_grad=True)\ny = w * w + b\n"
    "viz.backward_steps(y)",
]


def _step_shown(widget) -> str:
    """The caption of the drawing the slider shows: 'step 3 of 4: MulBackward0 gets 1.0, ...'."""
    texts = widget.locator(".widget-html-content svg text")
    return " ".join(texts.evaluate_all("ts => ts.map(t => t.textContent)"))


def test_backward_steps_slider_redraws_the_step_in_chromium(lab, browser):
    """viz.backward_steps shows a slider (ipywidgets) in JupyterLab: moving it draws another step."""
    import nbformat

    (lab.root / "steps").mkdir(exist_ok=True)
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in STEPS_NOTEBOOK])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, lab.root / "steps" / "steps.ipynb")
    page, notebook = open_notebook(browser, lab, "steps/steps.ipynb")
    menu(page, "Run", "Run All Cells")
    widget = notebook.locator(".jp-OutputArea-output .autograd-lab-steps")
    widget.locator(".widget-html-content svg").wait_for()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    assert "step 1 of 4: AddBackward0" in _step_shown(widget), _step_shown(widget)
    first = widget.locator(".widget-html-content").inner_html()
    handle = widget.locator(".widget-slider .noUi-handle")
    handle.focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.wait_for_function("el => el.textContent.includes('step 3 of 4')",
                           arg=widget.locator(".widget-html-content").element_handle(), timeout=30_000)
    shown = _step_shown(widget)
    widget.screenshot(path=str(ARTIFACTS / "backward-steps-slider.png"))
    assert "step 3 of 4: MulBackward0 gets 1.0" in shown, shown
    assert widget.locator(".widget-readout").inner_text().strip() == "3"
    assert widget.locator(".widget-html-content g.node.op.current").count() == 1, "the running node is red"
    assert widget.locator(".widget-html-content").inner_html() != first
    page.close()
