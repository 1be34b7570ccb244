"""The gradebook works without the virtualenv on PATH, and a half-made one is repaired.

nbgrader 0.9.6 ran the program `alembic` to stamp a new gradebook; with `.venv/bin` not on PATH
(JupyterLab started as `.venv/bin/jupyter lab`) Formgrader's first request failed and left a
gradebook.db without `alembic_version`, on which `nbgrader db upgrade` failed ("duplicate
column name"). grading/gradebook_schema.py, installed by nbgrader_config.py, fixes both.
"""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import pipeline_helpers as h  # noqa: E402

# A PATH without the virtualenv's bin/: what `.venv/bin/jupyter lab` runs with when the
# virtualenv is not activated.
BARE_PATH = os.pathsep.join(p for p in os.environ.get("PATH", "/usr/bin:/bin").split(os.pathsep)
                            if p and Path(p).resolve() != Path(sys.executable).parent.resolve())


def _bare_env() -> dict[str, str]:
    return dict(os.environ, PATH=BARE_PATH)


def _tables(db: Path) -> set[str]:
    with sqlite3.connect(db) as conn:
        return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}


def _version(db: Path) -> list[str]:
    with sqlite3.connect(db) as conn:
        return [r[0] for r in conn.execute("SELECT version_num FROM alembic_version")]


def _head() -> str:
    from grading import gradebook_schema

    return gradebook_schema.alembic_head()


def _course(tmp_path: Path) -> Path:
    return h.make_course_copy(tmp_path / "course", with_solutions=False)


def _run(root: Path, code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], cwd=root, env=_bare_env(),
                          capture_output=True, text=True, timeout=120)


def _half_made(root: Path) -> Path:
    """What nbgrader's own Gradebook leaves when `alembic` is not on PATH."""
    if shutil.which("alembic", path=BARE_PATH):
        pytest.skip("an `alembic` program outside the virtualenv is on PATH")
    r = _run(root, "from nbgrader.api import Gradebook\nGradebook('sqlite:///gradebook.db')")
    assert re.search(r"(FileNotFoundError|PermissionError).*alembic", r.stderr), r.stderr[-2000:]
    db = root / "gradebook.db"
    assert "assignment" in _tables(db) and "alembic_version" not in _tables(db)
    return db


def test_new_gradebook_without_alembic_on_path(tmp_path):
    """nbgrader_config.py's fix: a first Gradebook is stamped with no `alembic` program."""
    root = _course(tmp_path)
    r = _run(root, "from traitlets.config.loader import PyFileConfigLoader\n"
             "PyFileConfigLoader('nbgrader_config.py', path='.').load_config()\n"
             "from nbgrader.api import Gradebook\n"
             "with Gradebook('sqlite:///gradebook.db') as gb:\n"
             "    gb.add_assignment('a1')\n")
    assert r.returncode == 0, r.stderr[-3000:]
    assert _version(root / "gradebook.db") == [_head()]


def test_half_made_gradebook_is_repaired_and_db_upgrade_works(tmp_path):
    root = _course(tmp_path)
    db = _half_made(root)
    r = subprocess.run([sys.executable, "-m", "nbgrader", "db", "upgrade"], cwd=root,
                       env=_bare_env(), capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    assert "duplicate column" not in r.stderr
    assert _version(db) == [_head()]
    assert "no schema version" in r.stderr, "the repair says what it did"


def test_gradebook_of_an_older_schema_is_left_to_db_upgrade(tmp_path):
    from grading import gradebook_schema

    db = tmp_path / "gradebook.db"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE assignment (id VARCHAR(32) PRIMARY KEY, name VARCHAR(128))")
    assert not gradebook_schema.repair(f"sqlite:///{db}")
    assert "alembic_version" not in _tables(db)
