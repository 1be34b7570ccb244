"""nbgrader settings that learners' Validate and the instructor's autograde share.

Loaded by the course's nbgrader_config.py, and, wherever `make course` started JupyterLab (its
JUPYTER_CONFIG_PATH names this folder), by `nbgrader validate` typed in any folder of the
JupyterLab terminal, so that it checks a notebook exactly as the Validate button does.
"""

import os
import sys

c = get_config()  # noqa: F821  (provided by traitlets when it loads this file)

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

# Per-cell time limit (seconds) for validate and autograde: an infinite loop is interrupted
# and that cell fails; the rest of the notebook still runs.
c.Execute.timeout = 60
c.Execute.interrupt_on_timeout = True
# A kernel holds nothing worth a graceful shutdown: stop it at once (saves a second a notebook).
c.Execute.shutdown_kernel = "immediate"

# Validate shows whole messages (nbgrader cuts lines at 90 characters): grading/validate.py.
from grading import validate  # noqa: E402

validate.install()
