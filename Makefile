# Autograd Lab. The set-up is two commands: `make course` and `make test` (see README.md).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# nbgrader's Validate dialog, made readable (grading/labextension), linked into the virtualenv.
LABEXT := $(VENV)/share/jupyter/labextensions/@autograd-lab/validate-dialog

.PHONY: venv install graphviz bubblewrap course test lint bench torch release grade feedback

venv install: $(STAMP) graphviz bubblewrap $(LABEXT)

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

# Autograde runs each student's kernel in a bubblewrap sandbox (grading/sandbox.py); without
# `bwrap`, autograde warns that students' code is not isolated (--sandbox strict refuses).
bubblewrap:
	@command -v bwrap >/dev/null 2>&1 && exit 0; \
	if command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then SUDO=; \
	elif command -v apt-get >/dev/null 2>&1 && command -v sudo >/dev/null 2>&1; then SUDO=sudo; \
	else echo "bubblewrap ('bwrap') is missing: install it with your system's package manager"; \
	     echo "(dnf/pacman/zypper install bubblewrap) to autograde in a sandbox. Continuing without it."; exit 0; fi; \
	echo "Installing bubblewrap with apt-get..."; \
	$$SUDO apt-get update -qq && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap \
	  || echo "Could not install bubblewrap; autograde will warn that kernels are not sandboxed. Continuing."

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

# The tests compare with PyTorch (the CPU build) and read scikit-learn's digits: the test set-up installs
# both once (`make course` does not), so every test runs; pytest's summary says why any still skips.
ORACLES     := $(VENV)/.oracles
TORCH_INDEX ?= https://download.pytorch.org/whl/cpu

# PyTorch's CPU index (small wheels) is used when it answers within 5 s; offline, pip's own indexes.
$(ORACLES): $(STAMP)
	@$(BIN)/python -c "import sklearn, torch; assert torch.__version__.startswith('2.13.0')" 2>/dev/null \
	  || { idx=; $(BIN)/python -c "import urllib.request as u; u.urlopen('$(TORCH_INDEX)/torch/', timeout=5)" \
	         2>/dev/null && idx="--extra-index-url $(TORCH_INDEX)"; \
	       $(BIN)/python -m pip install $$idx torch==2.13.0 scikit-learn; }
	touch $@

# pytest-xdist: one worker per core (at most 4); the slow fixtures (the course graded once, the hostile
# submissions) are built by the first worker that needs them and shared.
test: install $(ORACLES)
	$(BIN)/python -m pytest -n auto --maxprocesses 4

lint: install
	$(BIN)/python -m ruff check .

# The benchmarks' optional rows: mygrad, JAX and HIPS autograd beside PyTorch (each row says when absent).
BENCH_ORACLES := $(VENV)/.bench-oracles
$(BENCH_ORACLES): $(ORACLES)
	$(BIN)/python -m pip install mygrad "jax[cpu]" autograd \
	  || echo "optional benchmark oracles not installed: their rows say so"
	touch $@

bench: install $(ORACLES) $(BENCH_ORACLES)
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
