"""nbgrader configuration for Autograd Lab.

The instructor's notebooks (with solutions and hidden tests) live in ``solutions/``;
``nbgrader generate_assignment`` (or ``python -m grading release``) writes the learner's
version of each to ``course/``:

    solutions/01_tensors/01_tensors.ipynb  ->  course/01_tensors/01_tensors.ipynb

``submitted/``, ``autograded/``, ``feedback/``, ``exchange/`` and ``gradebook.db`` are an instructor's
working data, created next to this file and ignored by git.
See docs/instructor-guide.md.
"""

import os
import sys

c = get_config()  # noqa: F821  (provided by traitlets when it loads this file)

# nbgrader imports the hardened autograde step below from the `grading` package beside this file.
_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

# nbgrader runs some tools by name (`alembic`): find this environment's, however the server or
# command was started (`.venv/bin/jupyter lab` does not put .venv/bin on PATH). The gradebook no
# longer needs PATH at all (grading/gradebook_schema.py), which also repairs a gradebook.db
# left half-made by a failed first start.
_BIN = os.path.dirname(sys.executable)
if _BIN not in os.environ.get("PATH", "").split(os.pathsep):
    os.environ["PATH"] = os.pathsep.join([_BIN, os.environ.get("PATH", "")])

from grading import gradebook_schema  # noqa: E402

gradebook_schema.install()

c.CourseDirectory.course_id = "autograd-lab"

# The exchange: the folder through which nbgrader's release, fetch, submit and collect pass
# assignments (Formgrader's Release and Collect buttons, the learners' Assignment List). nbgrader's
# default, /usr/local/share/nbgrader/exchange, must exist beforehand and takes root to create; a
# shared machine or a JupyterHub sets one up, and then it is used. Otherwise: `exchange/` in the
# course root (ignored by git). AUTOGRAD_LAB_EXCHANGE names another. See the instructor guide.
_SHARED_EXCHANGE = "/usr/local/share/nbgrader/exchange"
_EXCHANGE = os.environ.get("AUTOGRAD_LAB_EXCHANGE") or (
    _SHARED_EXCHANGE if os.path.isdir(_SHARED_EXCHANGE) else os.path.join(_HERE, "exchange"))
try:
    os.makedirs(_EXCHANGE, exist_ok=True)
except OSError:
    pass  # read-only: nbgrader says the exchange is missing, which is then true
c.Exchange.root = _EXCHANGE
c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = "course"
# Files in solutions/<assignment>/ that are never released nor copied next to a submission.
# wrong_answers.py holds each notebook's "typical wrong answer", used by the project's tests.
c.CourseDirectory.ignore = [
    ".ipynb_checkpoints",
    "*.pyc",
    "__pycache__",
    "feedback",
    "wrong_answers.py",
]

# What the learner sees in place of a solution.
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"

# What learners' Validate and autograde share (time limits, whole messages from Validate).
load_subconfig("nbgrader_config.py", path=os.path.join(_HERE, "grading", "jupyter"))  # noqa: F821

# Autograde runs each kernel in a bubblewrap sandbox (grading/sandbox.py): only the system's
# libraries, Python, the virtualenv, autograd_lab and the assignment's data are visible; a
# throw-away user id when grading as root; memory, processes, CPU, files and disk limited.
# Outputs are capped while received, canary tests catch a kernel that lies about its tests
# (grading/tamper.py), and outputs are made inert (grading/sanitize.py). A dead kernel
# (os._exit, segfault, out of memory) scores zero for that notebook instead of aborting the
# run. Validate (the learner's button) is unchanged. Limits: c.SandboxKernelManager.* and
# c.SafeExecute.* (docs/instructor-guide.md).
c.Autograde.autograde_preprocessors = [
    "grading.execute.SafeExecute",
    "grading.sanitize.SanitizeOutputs",
    "nbgrader.preprocessors.IgnorePattern",
    "nbconvert.preprocessors.ClearMetadataPreprocessor",
    "nbgrader.preprocessors.LimitOutput",
    "nbgrader.preprocessors.SaveAutoGrades",
    "nbgrader.preprocessors.AssignLatePenalties",
    "nbgrader.preprocessors.CheckCellMetadata",
]

# Feedback (grading/feedback.py): the score in its parts (autograded, graded by hand, not graded
# yet), and math typeset offline by MathJax embedded in the page.
# (Classes, not names: nbconvert would not construct preprocessors given by name here.)
from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor  # noqa: E402
from nbgrader.preprocessors import GetGrades  # noqa: E402

from grading import feedback  # noqa: E402

c.GenerateFeedback.exporter_class = feedback.FeedbackExporter
# Feedback pages and Formgrader (both nbconvert's HTMLExporter) leave out students' JavaScript
# and widgets and pass their HTML outputs and Markdown cells through grading/sanitize.py's
# cleaner (nh3).
c.HTMLExporter.sanitize_html = True
c.HTMLExporter.filters = {"clean_html": "grading.sanitize.clean_html"}
c.HTMLExporter.preprocessors = ["grading.sanitize.SanitizeMarkdown"]
c.GenerateFeedback.preprocessors = [GetGrades, CSSHTMLHeaderPreprocessor, feedback.FeedbackScores]
