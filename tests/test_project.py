"""The skeleton agrees with itself: pyproject.toml, environment.yml, README, .ci/run, ruff."""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parents[1]

# PyPI name -> conda-forge name, where they differ.
CONDA_NAME = {"graphviz": "python-graphviz"}
# Dependencies that conda-forge does not have and environment.yml leaves to pip.
PIP_ONLY: set[str] = {"django-static-mathjax"}


def normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def split_requirement(req: str) -> tuple[str, str, set[str]]:
    """'name[extra]>=1.0' -> ('name', '>=1.0', {'extra'}); works for pip and conda specs."""
    m = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[([^\]]*)\])?\s*(.*)", req)
    assert m, f"cannot parse requirement {req!r}"
    extras = {normalise(e) for e in (m[2] or "").split(",") if e.strip()}
    return normalise(m[1]), m[3].strip(), extras


def pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def project_requirements(extras: list[str]) -> dict[str, str]:
    """Runtime requirements plus those of `extras` (following self-references): name -> spec."""
    project = pyproject()["project"]
    own = normalise(project["name"])
    optional = {normalise(k): v for k, v in project["optional-dependencies"].items()}
    reqs: dict[str, str] = {}
    todo, seen = list(project["dependencies"]), set()
    for extra in extras:
        todo += optional[extra]
    while todo:
        name, spec, sub = split_requirement(todo.pop())
        if name == own:
            for extra in sub - seen:
                seen.add(extra)
                todo += optional[extra]
        else:
            reqs[name] = spec
    return reqs


def parse_conda_dependencies_by_lines(text: str) -> list[str]:
    """The string items of `dependencies:` in an environment.yml (no PyYAML needed)."""
    items: list[str] = []
    indent = None
    in_deps = False
    for line in text.splitlines():
        line = re.sub(r"\s+#.*", "", line).rstrip()
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if not line.startswith((" ", "-")):
            in_deps = line.startswith("dependencies:")
            continue
        m = re.match(r"( *)- (.*)", line)
        if in_deps and m:
            indent = len(m[1]) if indent is None else indent
            if len(m[1]) == indent and not m[2].endswith(":"):
                items.append(m[2].strip())
    return items


def conda_dependencies() -> list[str]:
    text = (ROOT / "environment.yml").read_text()
    try:
        import yaml
    except ModuleNotFoundError:
        return parse_conda_dependencies_by_lines(text)
    return [d for d in yaml.safe_load(text)["dependencies"] if isinstance(d, str)]


def conda_specs() -> dict[str, str]:
    """environment.yml's dependencies: name -> version spec."""
    return {name: spec for name, spec, _ in map(split_requirement, conda_dependencies())}


def test_line_parser_agrees_with_yaml():
    yaml = pytest.importorskip("yaml")
    text = (ROOT / "environment.yml").read_text()
    expected = [d for d in yaml.safe_load(text)["dependencies"] if isinstance(d, str)]
    assert parse_conda_dependencies_by_lines(text) == expected


def test_environment_yml_has_runtime_and_course_dependencies():
    conda = conda_specs()
    missing = [
        f"{name} (as {CONDA_NAME.get(name, name)})"
        for name in project_requirements(["course"])
        if name not in PIP_ONLY and CONDA_NAME.get(name, name) not in conda
    ]
    assert not missing, f"environment.yml lacks pyproject dependencies: {missing}"
    assert "graphviz" in conda, "environment.yml needs the Graphviz program (package graphviz)"


def test_nbgrader_pin_agrees():
    pip_spec = project_requirements(["course"])["nbgrader"]
    conda_spec = conda_specs()["nbgrader"]
    version = re.compile(r"\d+(?:\.\d+)*")
    assert pip_spec.startswith("=="), f"pyproject should pin nbgrader exactly, has {pip_spec!r}"
    assert version.search(pip_spec)[0] == version.search(conda_spec)[0], (pip_spec, conda_spec)


def readme_setup_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    section = re.search(r"^## Set-up\n(.*?)(?=^## |\Z)", readme, re.S | re.M)
    assert section, "README.md needs a '## Set-up' section"
    block = re.search(r"^```[a-z]*\n(.*?)^```", section[1], re.S | re.M)
    assert block, "the README's set-up section needs a fenced block of commands"
    lines = (re.sub(r"\s+#.*", "", line).strip() for line in block[1].splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def test_readme_setup_is_two_commands():
    commands = readme_setup_commands()
    assert len(commands) == 2, f"the set-up should be two commands, is {commands}"


def test_ci_runs_the_readme_test_command():
    tests = [c for c in readme_setup_commands() if "test" in c.split()]
    assert len(tests) == 1, f"expected one test command in the README's set-up, got {tests}"
    command = re.compile(rf"(^|\s){re.escape(tests[0])}(\s|;|$)")
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    code = [line for line in ci if not line.lstrip().startswith("#")]
    assert any(command.search(line) for line in code), f".ci/run does not run {tests[0]!r}"


def test_ruff_is_clean():
    if importlib.util.find_spec("ruff") is None:
        pytest.skip("ruff is not installed")
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "."],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_readme_shows_the_benchmark_results():
    """The README's table is benchmarks/RESULTS.md's: `python -m benchmarks` writes both."""
    sys.path.insert(0, str(ROOT))
    try:
        from benchmarks.__main__ import END, START
    finally:
        sys.path.remove(str(ROOT))
    readme = (ROOT / "README.md").read_text()
    assert START in readme and END in readme, "README.md lost its benchmark markers"
    shown = readme.split(START, 1)[1].split(END, 1)[0].strip()
    results = (ROOT / "benchmarks" / "RESULTS.md").read_text().strip().split("\n", 2)[2].strip()
    assert shown == results, "README's benchmark table differs from benchmarks/RESULTS.md"
    assert shown.count("\n| ") >= 10, "the table has too few rows: run `python -m benchmarks`"


def test_benchmark_table_rewrite_keeps_the_rest():
    sys.path.insert(0, str(ROOT))
    try:
        from benchmarks.__main__ import END, START, with_table
    finally:
        sys.path.remove(str(ROOT))
    text = f"intro\n{START}\nold\n{END}\noutro\n"
    assert with_table(text, "| new |") == f"intro\n{START}\n| new |\n{END}\noutro\n"


def test_make_test_installs_the_oracles_and_make_course_does_not():
    """On a fresh clone `make test` runs every test: it installs PyTorch (CPU) and scikit-learn first;
    a learner's `make course` installs neither. (``make -n -B``: what make would run, from scratch.)"""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")

    def plan(target: str) -> str:
        # --no-print-directory: under another make (CI's), make -n prints "Entering directory" lines.
        result = subprocess.run(["make", "--no-print-directory", "-n", "-B", target], cwd=ROOT,
                                capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
        return result.stdout

    test, course = plan("test"), plan("course")
    install = [line for line in test.splitlines() if "pip install" in line and "torch==2.13.0" in line]
    assert install and "scikit-learn" in install[0], test
    assert "download.pytorch.org/whl/cpu" in test, "PyTorch's CPU index is tried first"
    last = test.rstrip().splitlines()[-1]
    assert "-m pytest" in last, "the oracles are installed before the tests run"
    assert "-n auto" in last, "the tests run on every core (pytest-xdist)"
    assert "torch" not in course and "scikit-learn" not in course
