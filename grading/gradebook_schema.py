"""nbgrader's gradebook without the ``alembic`` program on PATH, and a half-made one repaired.

nbgrader 0.9.6 stamps a new gradebook with its schema version by running the program
``alembic heads`` (found on PATH), and ``nbgrader db upgrade`` runs ``alembic upgrade`` the
same way. A JupyterLab started as ``.venv/bin/jupyter lab`` (the virtualenv not activated) has
no ``alembic`` on PATH: Formgrader's first request fails (``FileNotFoundError: 'alembic'``)
after the tables were created, and leaves a ``gradebook.db`` without its ``alembic_version``
table, on which ``nbgrader db upgrade`` then fails ("duplicate column name: kernelspec": it
replays every migration from the first).

:func:`install` (called by ``nbgrader_config.py``) makes both use alembic's Python API in this
process, so that no PATH is needed, and makes every Gradebook opened in this process first
repair such a half-made database: one whose tables hold every column of nbgrader's current
schema but that records no version is stamped with the current version. A database of an
older schema is left alone (``nbgrader db upgrade`` is the way for it).
"""

from __future__ import annotations

import logging
import os
from urllib.parse import unquote

log = logging.getLogger(__name__)


def _alembic_config(db_url: str | None = None):
    from alembic.config import Config
    from nbgrader import dbutil

    cfg = Config()
    cfg.set_main_option("script_location", dbutil.ALEMBIC_DIR)
    if db_url:
        cfg.set_main_option("sqlalchemy.url", db_url)
    return cfg


def alembic_head() -> str:
    """The revision of nbgrader's current gradebook schema (what ``alembic heads`` prints)."""
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(_alembic_config()).get_current_head()


def upgrade(db_url: str, revision: str = "head") -> None:
    """``nbgrader db upgrade``'s migration, run in this process (nbgrader runs ``alembic``),
    after :func:`repair`."""
    from alembic import command
    from nbgrader import dbutil

    repair(db_url)
    with dbutil._temp_alembic_ini(db_url) as ini:
        from alembic.config import Config

        command.upgrade(Config(ini), revision)


def _sqlite_file(db_url: str) -> str | None:
    if not db_url.startswith("sqlite:///") or ":memory:" in db_url:
        return None
    return unquote(db_url[len("sqlite:///"):].split("?")[0])


def repair(db_url: str) -> bool:
    """Stamp a gradebook that has nbgrader's current tables but no schema version (what a
    failed first start leaves). Returns True if it did; anything else is left as it is."""
    path = _sqlite_file(db_url)
    if path is None or not os.path.isfile(path) or os.path.getsize(path) == 0:
        return False
    from nbgrader.api import Base
    from sqlalchemy import create_engine, inspect, text

    engine = create_engine(db_url)
    try:
        insp = inspect(engine)
        tables = set(insp.get_table_names())
        if not tables or "alembic_version" in tables:
            return False
        for table in Base.metadata.sorted_tables:
            if table.name not in tables:
                return False
            have = {c["name"] for c in insp.get_columns(table.name)}
            if not {c.name for c in table.columns} <= have:
                return False
        head = alembic_head()
        with engine.begin() as conn:
            # Two processes may repair at once: neither fails, one row is written.
            conn.execute(text("CREATE TABLE IF NOT EXISTS alembic_version "
                              "(version_num VARCHAR(32) NOT NULL)"))
            conn.execute(text("INSERT INTO alembic_version (version_num) SELECT :v WHERE NOT "
                              "EXISTS (SELECT 1 FROM alembic_version)"), {"v": head})
    finally:
        engine.dispose()
    log.warning("%s had no schema version (left by a failed first start): stamped it with "
                "nbgrader's current schema, %s", path, head)
    return True


def install() -> None:
    """Apply the above to nbgrader in this process (idempotent)."""
    from nbgrader import api, dbutil

    if getattr(api.Gradebook, "_grading_schema_fixed", False):
        return
    api.get_alembic_version = alembic_head
    dbutil.upgrade = upgrade
    original_init = api.Gradebook.__init__

    def __init__(self, db_url, *args, **kwargs):
        repair(db_url)
        original_init(self, db_url, *args, **kwargs)

    api.Gradebook.__init__ = __init__
    api.Gradebook._grading_schema_fixed = True
