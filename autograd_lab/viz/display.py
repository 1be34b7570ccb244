"""Showing drawings: the optional ``graphviz`` package, and what happens when Graphviz's ``dot`` is missing.

``graphviz`` (the Python package) writes DOT source; the ``dot`` program (Graphviz itself) lays it out
and renders SVG. Either may be missing on a learner's machine. Without the package, viz raises an
ImportError saying what to install. Without ``dot``, drawings are still made (their ``.source`` is the
DOT text), and showing one in Jupyter prints how to install Graphviz and the source instead of a
traceback; ``.pipe()`` raises :class:`GraphvizNotFoundError` with the same advice.
"""

from __future__ import annotations

import html
import re
from typing import Any

INSTALL_HELP = (
    "Graphviz's `dot` program, which lays out and draws the graph, was not found on this machine.\n"
    "Install it, then restart the kernel:\n"
    "    conda install -c conda-forge graphviz    # with conda\n"
    "    sudo apt-get install graphviz            # Debian, Ubuntu\n"
    "    brew install graphviz                    # macOS\n"
    "Meanwhile the graph's DOT source is below (it is also in `.source`); any Graphviz viewer draws it."
)

PACKAGE_HELP = (
    "autograd_lab.viz needs the Python package `graphviz`: pip install 'autograd-lab[viz]' "
    "(or pip install graphviz). Drawing also needs Graphviz's `dot` program: "
    "conda install -c conda-forge graphviz, sudo apt-get install graphviz, or brew install graphviz."
)

_classes: dict[str, type] = {}


def import_graphviz() -> Any:
    try:
        import graphviz
    except ImportError as e:
        raise ImportError(PACKAGE_HELP) from e
    return graphviz


def missing_dot_bundle(source: str) -> dict[str, str]:
    """What Jupyter shows instead of the drawing when ``dot`` is missing."""
    return {
        "text/plain": INSTALL_HELP + "\n\n" + source,
        "text/markdown": INSTALL_HELP.replace("\n", "  \n") + "\n\n```dot\n" + source + "\n```\n",
        "text/html": (
            '<div style="border-left:4px solid #f08c00;padding:6px 10px;background:#fff9db">'
            f"<pre style='white-space:pre-wrap;margin:0'>{html.escape(INSTALL_HELP)}</pre></div>"
            f"<details open><summary>DOT source</summary><pre>{html.escape(source)}</pre></details>"
        ),
    }


# How a drawing fits a notebook column: at most this high (a 1280x720 laptop shows about 600 px of
# notebook), but never below MIN_SCALE of Graphviz's size, where its 9-11 pt labels stay readable
# (9-11 px). A larger drawing scrolls inside its box; "open full size" shows it whole in a new tab.
MAX_HEIGHT_PX = 500
MIN_SCALE = 0.75
_PX_PER_PT = 96 / 72

# Opens the drawing at Graphviz's own size in a new tab (where the browser zooms and scrolls). In an
# inline handler a bare `URL` is document.URL: hence window.URL.
_OPEN_FULL_SIZE = (
    "var g=this.closest('.autograd-lab-graph'),s=g.querySelector('svg').cloneNode(true);"
    "s.setAttribute('width',g.dataset.width);s.setAttribute('height',g.dataset.height);"
    "s.removeAttribute('style');window.open(window.URL.createObjectURL(new Blob([s.outerHTML],"
    "{type:'image/svg+xml'})),'_blank');"
)


def _size_px(svg: str) -> tuple[float, float] | None:
    tag = re.search(r"<svg\b[^>]*>", svg)
    if not tag:
        return None
    w = re.search(r'\swidth="([\d.]+)(pt|px)?"', tag[0])
    h = re.search(r'\sheight="([\d.]+)(pt|px)?"', tag[0])
    if not (w and h):
        return None
    return tuple(float(m[1]) * (_PX_PER_PT if m[2] in (None, "pt") else 1.0) for m in (w, h))


def svg_html(svg: str) -> str:
    """The SVG inline in HTML, sized to fit a notebook column (JupyterLab shows ``image/svg+xml`` as an
    <img>; inline SVG keeps the tooltips and lets pages find the drawing).

    The drawing is scaled to at most :data:`MAX_HEIGHT_PX` high and the column's width, never below
    :data:`MIN_SCALE`; what does not fit scrolls in its box, and a link opens it at full size."""
    svg = re.sub(r"^<\?xml[^>]*>\s*(<!DOCTYPE[^>]*>\s*)?", "", svg.lstrip())
    svg = re.sub(r"<!--.*?-->\s*", "", svg, count=2, flags=re.S)
    size = _size_px(svg)
    if size is None:
        return f'<div class="autograd-lab-graph" style="max-width:100%;overflow:auto">{svg}</div>'
    width, height = size
    scale = max(MIN_SCALE, min(1.0, MAX_HEIGHT_PX / height))
    style = (f"display:block;width:{width * scale:.0f}px;min-width:{width * MIN_SCALE:.0f}px;"
             "max-width:100%;height:auto")
    tag = re.search(r"<svg\b[^>]*>", svg)[0]
    sized = re.sub(r'\s(width|height)="[^"]*"', "", tag, count=2).replace("<svg", f'<svg style="{style}"', 1)
    svg = svg.replace(tag, sized, 1)
    scrolls = height * scale > MAX_HEIGHT_PX
    note = f"drawn at {scale:.0%}" + ("; scroll to see it all" if scrolls else "")
    return (
        f'<div class="autograd-lab-graph" data-width="{width:.0f}px" data-height="{height:.0f}px">'
        f'<div class="autograd-lab-graph-view" style="max-height:{MAX_HEIGHT_PX}px;max-width:100%;'
        f'overflow:auto">{svg}</div>'
        '<div style="font-size:12px;color:#868e96;margin-top:2px">'
        f'{note} &middot; <button type="button" class="autograd-lab-graph-full" '
        'style="border:none;background:none;padding:0;color:#1971c2;cursor:pointer;font:inherit" '
        f'title="Open the drawing at full size in a new tab" onclick="{_OPEN_FULL_SIZE}">'
        "open full size</button></div></div>"
    )


def _filter(bundle: dict[str, Any], include: Any, exclude: Any) -> dict[str, Any]:
    if include is not None:
        bundle = {k: v for k, v in bundle.items() if k in set(include)}
    if exclude is not None:
        bundle = {k: v for k, v in bundle.items() if k not in set(exclude)}
    return bundle


def drawing_class() -> type:
    """``Drawing``: a ``graphviz.Digraph`` that explains a missing ``dot`` instead of failing."""
    if "Drawing" in _classes:
        return _classes["Drawing"]
    graphviz = import_graphviz()

    class GraphvizNotFoundError(graphviz.ExecutableNotFound):
        """``dot`` is missing: the message says how to install Graphviz."""

        def __init__(self, source: str) -> None:
            RuntimeError.__init__(self, INSTALL_HELP + "\n\n" + source)

    class Drawing(graphviz.Digraph):
        """A ``graphviz.Digraph`` drawn by :func:`autograd_lab.viz.draw`.

        In Jupyter it shows as inline SVG. Where ``dot`` is missing it shows how to install Graphviz
        and the DOT source (``.source``), and ``.pipe()`` raises :class:`GraphvizNotFoundError`.
        """

        def pipe(self, *args: Any, **kwargs: Any) -> Any:
            try:
                return super().pipe(*args, **kwargs)
            except graphviz.ExecutableNotFound as e:
                if isinstance(e, GraphvizNotFoundError):
                    raise
                raise GraphvizNotFoundError(self.source) from e

        def _repr_mimebundle_(self, include: Any = None, exclude: Any = None, **_: Any) -> dict:
            try:
                svg = self.pipe(format="svg", encoding="utf-8")
            except graphviz.ExecutableNotFound:
                return _filter(missing_dot_bundle(self.source), include, exclude)
            return _filter({"image/svg+xml": svg, "text/html": svg_html(svg)}, include, exclude)

        def _repr_svg_(self) -> str | None:
            try:
                return self.pipe(format="svg", encoding="utf-8")
            except graphviz.ExecutableNotFound:
                return None

        def svg(self) -> str:
            """The rendered SVG text (needs ``dot``)."""
            return self.pipe(format="svg", encoding="utf-8")

    for cls in (Drawing, GraphvizNotFoundError):
        cls.__qualname__ = cls.__name__
        cls.__module__ = "autograd_lab.viz"
    _classes["Drawing"] = Drawing
    _classes["GraphvizNotFoundError"] = GraphvizNotFoundError
    return Drawing


def new_drawing(**kwargs: Any) -> Any:
    return drawing_class()(**kwargs)


def render_svg_or_none(drawing: Any) -> str | None:
    """The SVG of a drawing, or None where ``dot`` is missing."""
    graphviz = import_graphviz()
    try:
        return drawing.pipe(format="svg", encoding="utf-8")
    except graphviz.ExecutableNotFound:
        return None


def __getattr__(name: str) -> Any:  # GraphvizNotFoundError is made with the graphviz package
    if name == "GraphvizNotFoundError":
        drawing_class()
        return _classes[name]
    raise AttributeError(name)
