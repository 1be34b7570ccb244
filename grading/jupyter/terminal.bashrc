# The terminal of `make course` (grading/jupyter/jupyter_server_config.py): your usual bash set-up,
# then the course's virtualenv first on PATH, as `source .venv/bin/activate` does.
if [ -f /etc/bash.bashrc ]; then . /etc/bash.bashrc; fi
if [ -f ~/.bashrc ]; then . ~/.bashrc; fi
if [ -n "${AUTOGRAD_LAB_VENV:-}" ]; then
    export VIRTUAL_ENV="$AUTOGRAD_LAB_VENV"
    PATH="$VIRTUAL_ENV/bin:$PATH"
    export PATH
fi
