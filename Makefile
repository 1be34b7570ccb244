# Autograd Lab. The set-up is two commands: `make course` and `make test` (see README.md).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# nbgrader's Validate dialog, made readable (grading/labextension), linked into the virtualenv.
LABEXT := $(VENV)/share/jupyter/labextensions/@autograd-lab/validate-dialog

.PHONY: venv install graphviz course test lint bench torch release grade feedback

venv install: $(STAMP) graphviz $(LABEXT)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# Re-installs only when pyproject.toml changes.
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -e ".[dev]"
	touch $@

$(LABEXT): | $(BIN)/python
	mkdir -p $(dir $@)
	ln -sfn "$(CURDIR)/grading/labextension" $@

# The Graphviz program `dot` draws the graphs; the Python package alone cannot.
graphviz:
	@command -v dot >/dev/null 2>&1 && exit 0; \
	if command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then SUDO=; \
	elif command -v apt-get >/dev/null 2>&1 && command -v sudo >/dev/null 2>&1; then SUDO=sudo; \
	else echo "Graphviz ('dot') is missing: install it with 'conda install -c conda-forge graphviz'"; \
	     echo "or 'brew install graphviz', then re-run make. Continuing without it."; exit 0; fi; \
	echo "Installing Graphviz with apt-get..."; \
	$$SUDO apt-get update -qq && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq graphviz \
	  || echo "Could not install Graphviz; graphs will not be drawn. Continuing."

# JupyterLab refuses to start as root unless told: containers, cloud VMs and CI run as root.
# LAB_ARGS passes more options (e.g. LAB_ARGS="--no-browser --port=8890").
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root)

# Started in course/, where its terminals open too; .venv/bin first on PATH for the server, the tools
# nbgrader runs and the terminals (whose shell grading/jupyter/ sets up); Validate and nbgrader typed
# in a terminal read the same settings (grading/jupyter/nbgrader_config.py).
course: install
	cd course && PATH="$(abspath $(BIN)):$$PATH" AUTOGRAD_LAB_VENV="$(abspath $(VENV))" \
	JUPYTER_CONFIG_PATH="$(CURDIR)/grading/jupyter$${JUPYTER_CONFIG_PATH:+:$$JUPYTER_CONFIG_PATH}" \
	"$(abspath $(BIN))/jupyter" lab $(ROOT_FLAG) $(LAB_ARGS)

test: install
	$(BIN)/python -m pytest

lint: install
	$(BIN)/python -m ruff check .

bench: install
	$(BIN)/python -m benchmarks

# Optional: PyTorch as the oracle the course compares against (CPU build).
torch: install
	$(BIN)/python -m pip install torch==2.13.0

# Instructors (docs/instructor-guide.md): release solutions/ to course/; grade a folder of
# submissions (`make grade INBOX=~/Downloads/submissions`: collect and autograde); grade the written
# answers in formgrader; then `make feedback` (feedback HTML and grades.csv).
release: install
	$(BIN)/python -m grading strip
	$(BIN)/python -m grading release

grade: install
	@test -n "$(INBOX)" || { echo "usage: make grade INBOX=folder-of-student-folders"; exit 2; }
	$(BIN)/python -m grading collect "$(INBOX)"
	$(BIN)/python -m grading autograde

feedback: install
	$(BIN)/python -m grading feedback
	$(BIN)/python -m grading export --out grades.csv
