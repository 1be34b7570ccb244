"""Students' outputs made inert: no script, event handler or ``javascript:`` link survives.

A submission's kernel decides what its outputs are (``display(HTML("<script>..."))``, an
``<img onerror=...>``, JavaScript outputs, an SVG with a script, raw HTML in a written answer).
Shown unsanitized, they run in the feedback page of the learner who opens it and, worse, in the
instructor's JupyterLab when Formgrader shows the submission (with the instructor's rights on
the server). Two layers, both with ``nh3`` (PyPI; the Rust sanitizer ammonia):

* :class:`SanitizeOutputs`, an autograde preprocessor (``nbgrader_config.py``): the autograded
  notebook stored on disk has its HTML, Markdown and SVG outputs cleaned, its JavaScript and
  widget outputs (and widget state) removed, each replaced by a note;
* when a notebook is shown, by the feedback pages and Formgrader (``nbgrader_config.py``):
  ``HTMLExporter.sanitize_html`` leaves out JavaScript and widgets and passes HTML outputs
  through :func:`clean_html` (in place of nbconvert's own cleaner, bleach with a minimal list of
  tags, which would also remove headings, paragraphs and images), and :class:`SanitizeMarkdown`
  cleans Markdown cells with raw HTML (a written answer), which nbgrader's templates render
  without cleaning.
"""

from __future__ import annotations

import nh3
from nbconvert.preprocessors import Preprocessor
from nbformat import NotebookNode
from traitlets import Bool

TAGS = nh3.ALLOWED_TAGS | {"div", "span", "pre", "code", "table", "thead", "tbody", "tr", "td",
                           "th", "img", "hr", "br", "sub", "sup", "details", "summary", "figure",
                           "figcaption", "caption", "colgroup", "col"}
ATTRIBUTES = {**{k: set(v) for k, v in nh3.ALLOWED_ATTRIBUTES.items()},
              "*": {"class", "id", "title", "align", "lang", "dir"},
              "img": {"src", "alt", "width", "height"},
              "td": {"colspan", "rowspan", "align"}, "th": {"colspan", "rowspan", "align", "scope"}}
URL_SCHEMES = {"http", "https", "mailto", "data", "attachment"}
SVG_TAGS = {"svg", "g", "path", "polygon", "polyline", "ellipse", "circle", "rect", "line",
            "text", "tspan", "title", "desc", "defs", "marker", "lineargradient",
            "radialgradient", "stop", "clippath"}
SVG_ATTRIBUTES = {"*": {
    "id", "class", "width", "height", "viewbox", "viewBox", "xmlns", "version", "transform",
    "fill", "fill-opacity", "stroke", "stroke-width", "stroke-opacity", "stroke-dasharray",
    "stroke-linecap", "stroke-linejoin", "d", "points", "x", "y", "x1", "y1", "x2", "y2", "cx",
    "cy", "r", "rx", "ry", "dx", "dy", "text-anchor", "font-family", "font-size", "font-weight",
    "font-style", "opacity", "offset", "stop-color", "stop-opacity", "preserveaspectratio",
    "markerwidth", "markerheight", "refx", "refy", "orient", "clip-path", "style"}}


def _no_data_links(tag: str, attribute: str, value: str) -> str | None:
    # data: URLs only as images; a link to one could open a page of the kernel's making
    if attribute == "href" and value.strip().lower().startswith("data:"):
        return None
    return value


def clean_html(html: str | bytes) -> str:
    """HTML with scripts, styles, event handlers and script URLs removed (nh3); the rest of
    what a notebook shows (headings, paragraphs, tables, images, code) kept."""
    html = html.decode() if isinstance(html, bytes) else str(html)
    return nh3.clean(html, tags=TAGS, attributes=ATTRIBUTES, url_schemes=URL_SCHEMES,
                     attribute_filter=_no_data_links, link_rel="noopener noreferrer")


def clean_svg(svg: str) -> str:
    """An SVG drawing without scripts, event handlers, links or foreign content."""
    return nh3.clean(svg, tags=SVG_TAGS, attributes=SVG_ATTRIBUTES, url_schemes=set(),
                     link_rel=None, clean_content_tags={"script", "style", "foreignobject"})


REMOVED = {
    "application/javascript": "[a JavaScript output was removed by the grader]",
    "application/vnd.jupyter.widget-view+json": "[an interactive widget was removed]",
}


def _text(value) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


def sanitize_output(out: NotebookNode) -> NotebookNode:
    """One output made inert, in place."""
    data = out.get("data")
    if not data:
        return out
    for mime in list(data):
        if mime in REMOVED or mime.startswith("application/vnd.") and mime.endswith("+json") \
                and "widget" in mime:
            del data[mime]
            data.setdefault("text/plain", REMOVED.get(mime, "[removed]"))
        elif mime == "text/html":
            data[mime] = clean_html(_text(data[mime]))
        elif mime == "text/markdown":
            data[mime] = clean_html(_text(data[mime]))
        elif mime == "image/svg+xml":
            data[mime] = clean_svg(_text(data[mime]))
    if not data:
        data["text/plain"] = "[removed]"
    return out


class SanitizeMarkdown(Preprocessor):
    """Before a notebook is shown (feedback, Formgrader: ``HTMLExporter.preprocessors``), each
    Markdown cell with raw HTML in it (a written answer with ``<script>``) is replaced by its
    rendering, cleaned: nbgrader's templates render Markdown cells without nbconvert's cleaning,
    and HTML in Markdown is passed through as it is. Cells without ``<`` are left as they are."""

    enabled = Bool(True).tag(config=True)

    def preprocess(self, nb, resources):
        from nbconvert.filters.markdown_mistune import markdown2html_mistune

        for cell in nb.cells:
            if cell.cell_type == "markdown" and "<" in cell.source:
                html = clean_html(markdown2html_mistune(cell.source))
                cell.source = html.replace("\n\n", "\n")  # one raw HTML block
        return nb, resources


class SanitizeOutputs(Preprocessor):
    """Autograde: every output of the notebook made inert (see the module's docstring)."""

    enabled = Bool(True).tag(config=True)

    def preprocess(self, nb, resources):
        for cell in nb.cells:
            for out in cell.get("outputs", []):
                sanitize_output(out)
        nb.metadata.pop("widgets", None)
        return nb, resources
