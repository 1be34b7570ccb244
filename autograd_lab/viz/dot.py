"""Turn a drawing model (:mod:`autograd_lab.viz.graph`) into a Graphviz ``Digraph``: shapes, colours,
HTML-like labels, module clusters and the legend."""

from __future__ import annotations

import html
from typing import Any

from .display import new_drawing
from .graph import Model, VNode

FONT = "Helvetica,Arial,sans-serif"

# kind -> (legend text, node attributes)
STYLES: dict[str, tuple[str, dict[str, str]]] = {
    "leaf": ("leaf tensor", {"shape": "box", "style": "rounded,filled", "fillcolor": "#d0ebff",
                             "color": "#1c7ed6"}),
    "output": ("output", {"shape": "box", "style": "rounded,filled", "fillcolor": "#d3f9d8",
                          "color": "#2f9e44", "penwidth": "2"}),
    "tensor": ("intermediate tensor", {"shape": "box", "style": "rounded,filled", "fillcolor": "#fff3bf",
                                       "color": "#e6a700"}),
    "op": ("grad_fn node", {"shape": "ellipse", "style": "filled", "fillcolor": "#f1f3f5",
                            "color": "#868e96"}),
    "acc": ("AccumulateGrad: writes .grad", {"shape": "ellipse", "style": "filled", "fillcolor": "#e5dbff",
                                            "color": "#7048e8"}),
    "saved": ("saved for backward", {"shape": "note", "style": "filled", "fillcolor": "#fff4e6",
                                     "color": "#f76707", "fontsize": "10"}),
    "summary": ("collapsed nodes", {"shape": "box", "style": "rounded,dashed,filled",
                                    "fillcolor": "#f8f9fa", "color": "#868e96"}),
}
STATES: dict[str, tuple[str, dict[str, str]]] = {
    "current": ("running now", {"fillcolor": "#ffc9c9", "color": "#e03131", "penwidth": "3"}),
    "done": ("already run", {"color": "#2f9e44", "penwidth": "2.5"}),
}
LINE_FONTS = {
    "shape": '<font point-size="9" color="#495057">{}</font>',
    "value": '<font point-size="10">{}</font>',
    "grad": '<font point-size="10" color="#c92a2a"><b>{}</b></font>',
    "none": '<font point-size="9" color="#868e96">{}</font>',
}
GRAD_COLOR = "#c92a2a"
ARROWS = "arrows: the way gradients flow"


def label(v: VNode) -> str:
    parts = []
    if v.title:
        title = html.escape(v.title)
        if v.order is not None:
            title = f'<font color="{GRAD_COLOR}" point-size="10"><b>{v.order}</b></font>  {title}'
        parts.append(f"<b>{title}</b>" if v.kind not in ("op", "acc") else title)
    elif v.order is not None:
        parts.append(f'<font color="{GRAD_COLOR}"><b>{v.order}</b></font>')
    for text, role in v.lines:
        parts.append(LINE_FONTS[role].format(html.escape(text)))
    return "<" + "<br/>".join(parts) + ">"


def node_attrs(v: VNode) -> dict[str, str]:
    attrs = dict(STYLES[v.kind][1])
    if v.state in STATES:
        attrs.update(STATES[v.state][1])
    attrs["tooltip"] = v.tooltip or v.title
    attrs["class"] = v.kind + (f" {v.state}" if v.state else "")  # SVG: <g class="node leaf">
    return attrs


def legend_label(kinds: list[str], states: list[str], note: str = "") -> str:
    rows = []
    for kind in kinds:
        text, a = STYLES[kind]
        rows.append((a["fillcolor"], a["color"], text))
    for state in states:
        text, a = STATES[state]
        rows.append((a.get("fillcolor", "#ffffff"), a["color"], text))
    cells = "".join(
        f'<tr><td width="18" height="11" bgcolor="{fill}" color="{border}" border="1"></td>'
        f'<td align="left"><font point-size="9">{html.escape(text)}</font></td></tr>'
        for fill, border, text in rows
    )
    if note:
        cells += f'<tr><td colspan="2" align="left"><font point-size="9">{html.escape(note)}</font></td></tr>'
    return ('<<table border="1" color="#dee2e6" cellborder="0" cellspacing="2" cellpadding="1">'
            f"{cells}</table>>")


def to_digraph(model: Model, *, legend: bool = True, legend_note: str = ARROWS) -> Any:
    """The Graphviz drawing of ``model``.

    Edges are written input -> consumer, so that dot ranks the leaves on top and the outputs at the
    bottom, and drawn with ``dir=back``: the arrows follow ``next_functions``, the way gradients flow.
    """
    g = new_drawing(name="autograd graph")
    g.attr(rankdir=model.rankdir, bgcolor="white", fontname=FONT, fontsize="11", nodesep="0.3",
           ranksep="0.4", pad="0.2")
    g.attr("node", fontname=FONT, fontsize="11", penwidth="1.3", margin="0.12,0.05", height="0.3")
    g.attr("edge", color="#495057", arrowsize="0.7", fontname=FONT, fontsize="9", penwidth="1.1")

    clusters: dict[str, list[VNode]] = {}
    for v in model.nodes.values():
        if v.cluster is None:
            g.node(v.key, label(v), **node_attrs(v))
        else:
            clusters.setdefault(v.cluster, []).append(v)
    for i, (name, members) in enumerate(sorted(clusters.items())):
        with g.subgraph(name=f"cluster_{i}") as c:
            c.attr(label=name, style="rounded,dashed", color="#adb5bd", fontcolor="#495057", fontsize="10",
                   labeljust="l")
            for v in members:
                c.node(v.key, label(v), **node_attrs(v))

    for e in model.edges:
        attrs: dict[str, str] = {}
        if e.kind == "saved":
            attrs = {"style": "dashed", "color": "#f76707", "fontcolor": "#d9480f", "arrowhead": "odot"}
            if model.nodes[e.src].kind != "saved":  # an edge across the graph must not bend the layout
                attrs["constraint"] = "false"
        if e.kind == "flow":  # drawn forward (leaves on top), arrows along next_functions
            attrs["dir"] = "back"
        if e.state == "current":
            attrs.update(color=GRAD_COLOR, fontcolor=GRAD_COLOR, penwidth="2.2")
        elif e.state == "done":
            attrs.update(color="#868e96", fontcolor="#495057")
        if e.label:
            text = html.escape(e.label)
            if e.state == "current":
                text = f"<b>{text}</b>"
            attrs["label"] = f"< {text} >"
        g.edge(e.src, e.dst, **attrs)

    if legend:
        kinds = [k for k in STYLES if any(v.kind == k for v in model.nodes.values())]
        states = [s for s in STATES if any(v.state == s for v in model.nodes.values())]
        with g.subgraph(name="legend") as lg:
            lg.attr(rank="sink")
            lg.node("legend", legend_label(kinds, states, legend_note), shape="plain", tooltip="legend")
    if model.caption:
        g.attr(label=model.caption, labelloc="b", labeljust="c", fontsize="11", fontcolor="#495057")
    return g
