"""The feedback HTML: nbgrader's, with the score in its parts and math that renders offline.

``nbgrader_config.py`` makes ``GenerateFeedback`` use :class:`FeedbackExporter` and run
:class:`FeedbackScores` after nbgrader's own preprocessors. The template,
``grading/templates/feedback/index.html.j2``, extends nbgrader's feedback template:

* the top of the page shows the autograded points, the points graded by hand, those not graded
  yet and the total so far (grading/scores.py); an answer still to be graded by hand says so
  instead of showing "0 / 1";
* math (``$...$``, ``$$...$$``) is typeset by MathJax 3 embedded in the page, so the file renders
  offline and on its own (nbgrader's template loads MathJax 2 from a CDN). It comes from the
  ``django-static-mathjax`` package (MathJax 3.2.2's own files, no Django needed).
"""

from __future__ import annotations

import functools
import os
from importlib import resources as importlib_resources

from nbconvert.exporters import HTMLExporter
from nbconvert.preprocessors import Preprocessor
from traitlets import Bool, default

from . import scores

TEMPLATES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "templates", "feedback")


def _nbgrader_templates() -> str:
    import nbgrader

    return os.path.join(os.path.dirname(nbgrader.__file__), "server_extensions", "formgrader",
                        "templates")


@functools.lru_cache(maxsize=1)
def mathjax_js() -> str:
    """MathJax 3's single-file TeX-to-SVG build (fonts included), as text safe inside <script>."""
    try:
        es5 = importlib_resources.files("mathjax") / "static" / "mathjax" / "es5"
        code = (es5 / "tex-svg.js").read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError) as e:
        raise RuntimeError("the feedback needs MathJax: pip install django-static-mathjax "
                           "(make install does)") from e
    # "<!--" inside a script element changes how HTML parsers find its end; "\!" means "!" in
    # JavaScript strings and regular expressions alike.
    return code.replace("<!--", "<\\!--").replace("</script", "<\\/script")


class FeedbackExporter(HTMLExporter):
    """nbgrader's feedback HTML exporter, with this course's template in front of nbgrader's."""

    @default("template_paths")
    def _template_paths(self, prune: bool = True, root_dirs=None) -> list[str]:
        return [TEMPLATES, _nbgrader_templates(), *super()._template_paths(prune, root_dirs)]


class FeedbackScores(Preprocessor):
    """Put the score's parts in ``resources["autograd_lab"]`` and mark the answers still to be
    graded by hand (``cell.metadata.nbgrader.pending``); also MathJax's code for the page."""

    enabled = Bool(True)

    def preprocess(self, nb, resources):
        from nbgrader.api import Gradebook

        info = resources["nbgrader"]
        with Gradebook(info["db_url"]) as gb:
            submitted = gb.find_submission_notebook(info["notebook"], info["assignment"],
                                                    info["student"])
            sc = scores.notebook_scores(submitted)
        pending = {name.split(": ", 1)[1] for name in sc.pending_cells}
        for cell in nb.cells:
            meta = cell.get("metadata", {}).get("nbgrader", {})
            if meta.get("grade_id") in pending:
                meta["pending"] = True
        resources["autograd_lab"] = {"scores": sc.as_dict(), "mathjax_js": mathjax_js()}
        return nb, resources
