"""JupyterLab as `make course` starts it (its JUPYTER_CONFIG_PATH names this folder).

Its terminals keep the course's virtualenv first on PATH, so that `nbgrader validate` (00_welcome
tells learners to type it), `python` and `jupyter` are the course's. JupyterLab would otherwise
start a login shell when its own output is not a terminal, and /etc/profile resets PATH.
"""

import os
import shutil

c = get_config()  # noqa: F821  (provided by traitlets when it loads this file)

_HERE = os.path.dirname(os.path.realpath(__file__))
_shell = os.environ.get("SHELL") or shutil.which("bash") or "sh"
if os.environ.get("AUTOGRAD_LAB_VENV"):
    if os.path.basename(_shell) == "bash":
        # The learner's usual bash set-up, then the virtualenv (grading/jupyter/terminal.bashrc).
        _cmd = [_shell, "--rcfile", os.path.join(_HERE, "terminal.bashrc"), "-i"]
    else:
        _cmd = [_shell]  # not a login shell: it keeps the PATH `make course` set
    c.ServerApp.terminado_settings = {"shell_command": _cmd}
