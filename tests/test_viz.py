"""autograd_lab.viz: the DOT structure of the course's seed graphs, gradients, execution order, saved
tensors, large graphs, SVG rendered by ``dot``, backward stepping, and what happens without Graphviz."""

from __future__ import annotations

import html
import re
import shutil
import sys
import warnings
from collections import Counter

import numpy as np
import pytest

import autograd_lab as torch
from autograd_lab import engine

pytest.importorskip("graphviz")
from autograd_lab import viz
from autograd_lab.viz import display
from autograd_lab.viz.graph import format_array

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")


# ------------------------------------------------------------------ reading DOT back
class Dot:
    """A drawing's DOT source read back: node id -> (kind, text lines); edges (src, dst, attrs)."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.nodes: dict[str, tuple[str, list[str]]] = {}
        self.edges: list[tuple[str, str, str]] = []
        for line in source.splitlines():
            line = line.strip()
            m = re.match(r"(\w+) -> (\w+)(?: \[(.*)\])?$", line)
            if m:
                self.edges.append((m[1], m[2], m[3] or ""))
                continue
            m = re.match(r"(\w+) \[label=<(.*)> (.*)\]$", line)
            if m and m[1] != "legend":
                kind = re.search(r'class="?([\w ]+?)"?(?: \w+=|$)', m[3])[1]
                text = html.unescape(re.sub(r"<[^>]+>", "", m[2].replace("<br/>", "\n")))
                self.nodes[m[1]] = (kind, [t.strip() for t in text.split("\n")])

    def kind(self, key: str) -> str:
        return self.nodes[key][0].split()[0]

    def title(self, key: str) -> str:
        """The node's name without its order number: 'AddBackward0', 'w'."""
        return re.sub(r"^\d+\s+", "", self.nodes[key][1][0])

    def of_kind(self, kind: str) -> list[str]:
        return [k for k in self.nodes if self.kind(k) == kind]

    def titles(self, kind: str) -> Counter:
        return Counter(self.title(k) for k in self.of_kind(kind))

    def key(self, title: str) -> str:
        (key,) = [k for k in self.nodes if self.title(k) == title]
        return key

    def flow(self) -> list[tuple[str, str]]:
        return [(s, d) for s, d, attrs in self.edges if "saved" not in attrs]

    def inputs(self, key: str) -> list[str]:
        return [s for s, d in self.flow() if d == key]

    def consumers(self, key: str) -> list[str]:
        return [d for s, d in self.flow() if s == key]

    def acc_of(self, leaf: str) -> str:
        (acc,) = self.consumers(self.key(leaf))
        assert self.title(acc) == "AccumulateGrad"
        return acc

    def lines(self, title: str) -> list[str]:
        return self.nodes[self.key(title)][1]


def seed_simple():
    """y = w*w + b with w = 2, b = 3 (notebook 02)."""
    w = torch.tensor(2.0, requires_grad=True, name="w")
    b = torch.tensor(3.0, requires_grad=True, name="b")
    return w, b, w * w + b


def seed_network():
    """Notebook 03's 'very simple neural network': b = w1*a, c = w2*a, d = w3*b + w4*c, L = 10 - d."""
    a = torch.tensor(2.0, requires_grad=True, name="a")
    w1 = torch.tensor(3.0, requires_grad=True, name="w1")
    w2 = torch.tensor(-1.0, requires_grad=True, name="w2")
    w3 = torch.tensor(0.5, requires_grad=True, name="w3")
    w4 = torch.tensor(2.0, requires_grad=True, name="w4")
    b = w1 * a
    c = w2 * a
    d = w3 * b + w4 * c
    L = 10 - d
    return (a, w1, w2, w3, w4), (b, c, d), L


# ------------------------------------------------------------------ structure
def test_seed_w_times_w_plus_b():
    w, b, y = seed_simple()
    g = viz.draw(y, names_from_caller=False)
    dot = Dot(g.source)
    assert dot.titles("op") == Counter({"AddBackward0": 1, "MulBackward0": 1})
    assert dot.titles("acc") == Counter({"AccumulateGrad": 2})
    assert dot.titles("leaf") == Counter({"w": 1, "b": 1}), "each leaf once, w although the mul uses it twice"
    assert dot.lines("w") == ["w", "()", "2.0"]
    assert dot.lines("b") == ["b", "()", "3.0"]
    (out,) = dot.of_kind("output")
    assert dot.nodes[out][1] == ["output", "()", "7.0"]
    add, mul = dot.key("AddBackward0"), dot.key("MulBackward0")
    acc_w, acc_b = dot.acc_of("w"), dot.acc_of("b")
    assert sorted(dot.flow()) == sorted([
        (dot.key("w"), acc_w), (dot.key("b"), acc_b),
        (acc_w, mul), (acc_w, mul),  # w*w: two edges from w's AccumulateGrad
        (mul, add), (acc_b, add), (add, out),
    ])
    assert len(dot.nodes) == 7


def test_caller_names_label_tensors():
    w = torch.tensor(2.0, requires_grad=True)
    b = torch.tensor(3.0, requires_grad=True)
    y = w * w + b
    dot = Dot(viz.draw(y).source)
    assert dot.titles("leaf") == Counter({"w": 1, "b": 1})
    assert dot.titles("output") == Counter({"y": 1})


def test_seed_network_structure():
    (a, w1, w2, w3, w4), (b, c, d), L = seed_network()
    dot = Dot(viz.draw(L, names_from_caller=False).source)
    assert dot.titles("leaf") == Counter({n: 1 for n in ["a", "w1", "w2", "w3", "w4"]})
    assert dot.titles("op") == Counter({"MulBackward0": 4, "AddBackward0": 1, "RsubBackward1": 1})
    assert dot.titles("acc") == Counter({"AccumulateGrad": 5})
    acc = {n: dot.acc_of(n) for n in ["a", "w1", "w2", "w3", "w4"]}
    mul = {}
    for key in dot.of_kind("op"):
        if dot.title(key) == "MulBackward0":
            mul[frozenset(dot.inputs(key))] = key
    mul_b = mul.pop(frozenset({acc["w1"], acc["a"]}))  # b = w1*a
    mul_c = mul.pop(frozenset({acc["w2"], acc["a"]}))  # c = w2*a
    mul_w3b = mul.pop(frozenset({acc["w3"], mul_b}))  # w3*b
    mul_w4c = mul.pop(frozenset({acc["w4"], mul_c}))  # w4*c
    assert not mul
    add, rsub = dot.key("AddBackward0"), dot.key("RsubBackward1")
    assert sorted(dot.inputs(add)) == sorted([mul_w3b, mul_w4c])
    assert dot.inputs(rsub) == [add]
    (out,) = dot.of_kind("output")
    assert dot.inputs(out) == [rsub]
    assert sorted(dot.consumers(acc["a"])) == sorted([mul_b, mul_c]), "a is drawn once and feeds two muls"
    assert len(dot.flow()) == 5 + 2 * 4 + 2 + 1 + 1


def test_named_intermediates_sit_between_ops():
    (a, w1, w2, w3, w4), (b, c, d), L = seed_network()
    dot = Dot(viz.draw(L, params={"b": b, "c": c, "d": d}, names_from_caller=False).source)
    assert dot.titles("tensor") == Counter({"b": 1, "c": 1, "d": 1})
    assert dot.lines("b") == ["b", "()", "6.0"]
    (mul_b,) = dot.inputs(dot.key("b"))
    assert sorted(dot.title(k) for k in dot.inputs(mul_b)) == ["AccumulateGrad", "AccumulateGrad"]
    (mul_w3b,) = dot.consumers(dot.key("b"))
    assert dot.title(mul_w3b) == "MulBackward0"
    assert dot.consumers(dot.key("d")) == [dot.key("RsubBackward1")]
    # the caller's variable names do the same
    dot2 = Dot(viz.draw(L).source)
    assert dot2.titles("tensor") == Counter({"b": 1, "c": 1, "d": 1})
    assert dot2.titles("output") == Counter({"L": 1})


def test_params_forms_and_precedence():
    w = torch.tensor([1.0, 2.0], requires_grad=True, name="given")
    v = torch.tensor(3.0, requires_grad=True)
    y = (w * v).sum()
    for params in ({"weight": w}, [("weight", w)], iter([("weight", w)])):
        dot = Dot(viz.draw(y, params=params, names_from_caller=False).source)
        assert dot.titles("leaf") == Counter({"weight": 1, "()": 1})  # v has no name: shape first
    dot = Dot(viz.draw(y, names_from_caller=False).source)
    assert dot.lines("given") == ["given", "(2,)", "[1.0, 2.0]"]

    class Module:  # duck-typed nn.Module
        def named_parameters(self):
            yield "layer1.weight", w
            yield "layer1.bias", v

    dot = Dot(viz.draw(y, params=Module()).source)
    assert dot.titles("leaf") == Counter({"layer1.weight": 1, "layer1.bias": 1})
    assert re.search(r"subgraph cluster_\d+ \{[^}]*label=layer1", dot.source), "parameters grouped by module"
    with pytest.raises(TypeError, match="params must be"):
        viz.draw(y, params=[w])


def test_value_formatting():
    assert format_array(np.array(2.0, dtype=np.float32)) == "2.0"
    assert format_array(np.array(1 / 3)) == "0.3333"
    assert format_array(np.array([1.0, 2.0])) == "[1.0, 2.0]"
    assert format_array(np.array([[1.0, 2.0], [3.0, 4.0]])) == "[[1.0, 2.0], [3.0, 4.0]]"
    assert format_array(np.arange(6.0)) == "[0.0 … 5.0]"
    assert format_array(np.array(3)) == "3"
    x = torch.zeros(64, 10, requires_grad=True)
    dot = Dot(viz.draw(x.sum(), names_from_caller=False).source)
    assert dot.nodes[dot.of_kind("leaf")[0]][1] == ["(64, 10)", "[0.0 … 0.0]"]


def test_draw_only_reads_the_graph():
    w, b, y = seed_simple()
    mul = y.grad_fn.next_functions[0][0]
    saved_before = [t for _, t in mul.saved_items()]
    viz.draw(y, show_saved=True, show_order=True, show_grads=True)
    leaf = torch.tensor(1.0, requires_grad=True)
    viz.draw(leaf)
    assert leaf._accumulate_ref is None, "drawing a leaf must not create its AccumulateGrad node"
    assert [t for _, t in mul.saved_items()] == saved_before
    y.backward()
    assert w.grad.item() == 4.0 and b.grad.item() == 1.0


def test_rankdir_and_errors():
    w, b, y = seed_simple()
    assert "rankdir=LR" in viz.draw(y, rankdir="LR").source
    with pytest.raises(ValueError, match="rankdir"):
        viz.draw(y, rankdir="sideways")
    with pytest.raises(TypeError):
        viz.draw(3.0)
    x = torch.tensor([1.0, 2.0])  # no grad: a lone box
    dot = Dot(viz.draw(x, names_from_caller=False).source)
    assert list(dot.nodes.values()) == [("output", ["output", "(2,)", "[1.0, 2.0]"])]


# ------------------------------------------------------------------ gradients, order, saved tensors
def test_show_grads_after_backward():
    w, b, y = seed_simple()
    y.backward()
    dot = Dot(viz.draw(y, show_grads=True).source)
    assert dot.lines("w") == ["w", "()", "2.0", "grad 4.0"]
    assert dot.lines("b") == ["b", "()", "3.0", "grad 1.0"]

    (a, w1, w2, w3, w4), (b, c, d), L = seed_network()
    b.retain_grad()
    L.backward()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # reading non-leaf grads must not warn
        dot = Dot(viz.draw(L, show_grads=True).source)
    for name, leaf in zip(["a", "w1", "w2", "w3", "w4"], [a, w1, w2, w3, w4]):
        assert dot.lines(name)[-1] == f"grad {leaf.grad.item():.1f}", name
    assert [dot.lines(n)[-1] for n in ["a", "w1", "w2", "w3", "w4"]] == [
        "grad 0.5", "grad -1.0", "grad -4.0", "grad -6.0", "grad 2.0"]
    assert dot.lines("b")[-1] == "grad -0.5", "a retained tensor shows its gradient dL/db = -w3"
    assert dot.lines("c")[-1] == "grad None", "a non-leaf that does not retain grad has grad None"


def test_show_grads_before_backward_says_none():
    w, b, y = seed_simple()
    dot = Dot(viz.draw(y, show_grads=True).source)
    assert dot.lines("w")[-1] == "grad None"


def test_show_order_numbers_nodes_as_backward_runs_them():
    (a, w1, w2, w3, w4), (b, c, d), L = seed_network()
    g = viz.draw(L, show_order=True, names_from_caller=False)
    order = engine.execution_order(L)
    numbers = {}
    for _, lines in Dot(g.source).nodes.values():
        m = re.match(r"(\d+)\s+(\w+)$", lines[0])
        if m:
            numbers[int(m[1])] = m[2]
    assert sorted(numbers) == list(range(1, len(order) + 1))
    assert [numbers[i + 1] for i in range(len(order))] == [type(n).__name__ for n in order]
    assert numbers[1] == "RsubBackward1"


def test_show_saved():
    w, b, y = seed_simple()
    dot = Dot(viz.draw(y, show_saved=True).source)
    saved = [(s, d, attrs) for s, d, attrs in dot.edges if "saved" in attrs]
    assert saved == [(dot.key("w"), dot.key("MulBackward0"), saved[0][2])]
    assert "saved self, other" in saved[0][2], "MulBackward0 keeps both factors: w and w"
    # a saved tensor that is not drawn otherwise gets a note; a saved output links to its box
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    e = x.exp()
    z = (e * torch.tensor([3.0, 4.0])).sum()
    dot = Dot(viz.draw(z, e, show_saved=True, names_from_caller=False).source)
    exp_key = dot.key("ExpBackward0")
    (src,) = [s for s, d, attrs in dot.edges if d == exp_key and "saved" in attrs]
    assert dot.kind(src) == "output" and dot.nodes[src][1][1:] == ["(2,)", "[2.718, 7.389]"], \
        "ExpBackward0 saves its result e, drawn once"
    notes = dot.of_kind("saved")
    assert [dot.nodes[n][1][1:] for n in notes] == [["(2,)", "[3.0, 4.0]"]]
    z.backward()
    dot = Dot(viz.draw(z, show_saved=True).source)
    assert not [e for e in dot.edges if "saved" in e[2]], "backward freed what was saved"


# ------------------------------------------------------------------ large graphs
def loop_graph(n: int):
    x = torch.tensor(1.0, requires_grad=True, name="x")
    w = torch.tensor(0.9, requires_grad=True, name="w")
    b = torch.tensor(0.1, requires_grad=True, name="b")
    h = x
    for _ in range(n):
        h = h * w + b
    return h


def svg_nodes(svg: str) -> int:
    return len(re.findall(r'<g id="node\d+" class="node', svg))


@needs_dot
def test_large_chain_is_collapsed():
    h = loop_graph(250)  # 500 ops, 3 leaves
    g = viz.draw(h)
    svg = g.svg()
    assert svg_nodes(svg) <= 200
    m = re.search(r"(\d+) of (\d+) nodes collapsed", svg)
    assert m and int(m[2]) == 500 + 3 * 2 + 1
    assert int(m[1]) >= 400
    dot = Dot(g.source)
    assert dot.titles("leaf") == Counter({"x": 1, "w": 1, "b": 1}), "shared leaves stay drawn"
    assert dot.titles("output") == Counter({"h": 1})
    (summary,) = dot.of_kind("summary")
    assert "AddBackward0 ×" in " ".join(dot.nodes[summary][1])
    full = Dot(viz.draw(h, max_nodes=None).source)
    assert len(full.nodes) == 507


@needs_dot
def test_large_wide_graph_is_collapsed():
    xs = [torch.tensor(float(i), requires_grad=True) for i in range(300)]
    s = xs[0] * 2.0
    for x in xs[1:]:
        s = s + x * 2.0
    svg = viz.draw(s, names_from_caller=False).svg()
    assert svg_nodes(svg) <= 200
    assert re.search(r"\d+ of \d+ nodes collapsed", svg)
    # a graph that is not a chain at all: the nodes nearest the output are kept
    leaves = [torch.tensor(1.0, requires_grad=True) for i in range(256)]
    level = leaves
    while len(level) > 1:
        level = [p * q for p, q in zip(level[0::2], level[1::2])]
    g = viz.draw(level[0], names_from_caller=False)
    svg = g.svg()
    assert svg_nodes(svg) <= 200
    assert "nodes collapsed" in svg
    assert Dot(g.source).titles("output") == Counter({"output": 1})


# ------------------------------------------------------------------ rendering
@needs_dot
def test_svg_rendered_by_dot():
    (a, w1, w2, w3, w4), (b, c, d), L = seed_network()
    L.backward(retain_graph=True)
    g = viz.draw(L, show_grads=True, show_order=True, show_saved=True)
    svg = g.pipe(format="svg", encoding="utf-8")
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    for text in ["w1", "w4", "AddBackward0", "MulBackward0", "RsubBackward1", "AccumulateGrad", "grad -6.0",
                 "leaf tensor"]:
        assert text in html.unescape(svg), text
    assert svg_nodes(svg) == len(Dot(g.source).nodes) + 1  # + the legend
    bundle = g._repr_mimebundle_()
    assert bundle["image/svg+xml"] == svg
    assert bundle["text/html"].startswith('<div class="autograd-lab-graph"')
    assert "<svg" in bundle["text/html"] and "<?xml" not in bundle["text/html"]
    assert g._repr_mimebundle_(include=["image/svg+xml"]).keys() == {"image/svg+xml"}
    assert g._repr_svg_() == svg


def test_missing_dot_explains_and_keeps_the_source(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # no dot on PATH
    w, b, y = seed_simple()
    g = viz.draw(y)
    assert "AddBackward0" in g.source
    bundle = g._repr_mimebundle_()
    assert "image/svg+xml" not in bundle
    for mime in ("text/plain", "text/markdown", "text/html"):
        text = html.unescape(bundle[mime])
        for advice in ("conda install -c conda-forge graphviz", "apt-get install graphviz",
                       "brew install graphviz"):
            assert advice in text, (mime, advice)
        assert "AddBackward0" in text and "digraph" in text, "the DOT source is shown"
    assert g._repr_svg_() is None
    from graphviz import ExecutableNotFound

    with pytest.raises(ExecutableNotFound, match="brew install graphviz"):
        g.pipe(format="svg")

    # IPython shows it without a traceback
    from IPython.core.formatters import DisplayFormatter

    data, _ = DisplayFormatter().format(g)
    assert "conda install" in data["text/plain"]
    stepper = viz.backward_steps(y)
    assert "brew install graphviz" in stepper._static_html()


def test_missing_graphviz_package(monkeypatch):
    monkeypatch.setitem(sys.modules, "graphviz", None)
    monkeypatch.setattr(display, "_classes", {})
    w, b, y = seed_simple()
    with pytest.raises(ImportError, match=r"pip install 'autograd-lab\[viz\]'"):
        viz.draw(y)


# ------------------------------------------------------------------ stepping through backward
def test_backward_steps_follow_the_engine():
    (a, w1, w2, w3, w4), (b, c, d), L = seed_network()
    w1.grad = torch.tensor(100.0)
    kept = w1.grad
    steps = viz.backward_steps(L)
    assert [s.node for s in steps] == engine.execution_order(L)
    assert w1.grad is kept and w1.grad.item() == 100.0, "stepping puts .grad back as it was"
    assert a.grad is None
    w1.grad = None
    L.backward()  # the graph was retained
    for leaf in (a, w1, w2, w3, w4):
        (step,) = [s for s in steps if getattr(s.node, "variable", None) is leaf]
        assert step.grads_in[0].item() == pytest.approx(leaf.grad.item())
    first = steps[0]
    assert first.name == "RsubBackward1"
    assert first.grads_in[0].item() == 1.0 and first.grads_out[0].item() == -1.0
    assert steps.describe(0) == "step 1 of 11: RsubBackward1 gets 1.0, sends -1.0 to AddBackward0"
    assert steps.describe(10).endswith("AccumulateGrad(a) adds 0.5 into .grad")


def test_backward_step_drawings():
    w, b, y = seed_simple()
    steps = viz.backward_steps(y)
    assert [s.name for s in steps] == ["AddBackward0", "AccumulateGrad", "MulBackward0", "AccumulateGrad"]
    dot = Dot(steps.draw(2).source)
    mul = dot.key("MulBackward0")
    assert dot.nodes[mul][0] == "op current"
    assert dot.nodes[dot.key("AddBackward0")][0] == "op done"
    assert "gets 1.0" in dot.nodes[mul][1]
    labelled = [(s, d, attrs) for s, d, attrs in dot.edges if d == mul and "label" in attrs]
    assert len(labelled) == 2 and all("2.0" in attrs and "dir=back" in attrs for _, _, attrs in labelled)
    assert "step 3 of 4: MulBackward0 gets 1.0" in dot.source
    dot = Dot(steps.draw(-1).source)
    assert dot.lines("w")[-1] == "grad 4.0" and dot.lines("b")[-1] == "grad 1.0"
    with pytest.raises(IndexError):
        steps.draw(4)


def test_backward_steps_on_freed_graph_says_why():
    w, b, y = seed_simple()
    y.backward()
    with pytest.raises(RuntimeError, match="freed by an earlier backward"):
        viz.backward_steps(y)


@needs_dot
def test_stepper_widget_and_fallback(monkeypatch):
    pytest.importorskip("ipywidgets")
    w, b, y = seed_simple()
    steps = viz.backward_steps(y)
    box = steps.widget()
    assert "AddBackward0" in box.html.value and "<svg" in box.html.value
    box.slider.value = 3  # the slider counts from 1
    assert "step 3 of 4: MulBackward0 gets 1.0" in box.html.value
    assert 'class="node op current"' in box.html.value
    from autograd_lab.viz import widgets

    monkeypatch.setattr(widgets, "widgets_available", lambda: True)  # as in a kernel: test_viz_widgets.py
    bundle = steps._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    monkeypatch.undo()
    monkeypatch.setitem(sys.modules, "ipywidgets", None)
    bundle = steps._repr_mimebundle_()
    assert bundle["text/html"].count("<svg") == 4


# ------------------------------------------------------------------ foreign graphs (viz.protocol)
class Value:
    """micrograd's Value, as its README writes it: a scalar that records ``_prev`` and ``_op``."""

    def __init__(self, data, _children=(), _op="", label=""):
        self.data, self.grad = data, 0.0
        self._prev, self._op, self.label = set(_children), _op, label

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        return Value(self.data + other.data, (self, other), "+")

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        return Value(self.data * other.data, (self, other), "*")


class Leaf:
    """A tensor of the node protocol that is none of autograd_lab's or PyTorch's."""

    def __init__(self, value, requires_grad=True):
        self.data, self.shape, self.grad_fn, self.grad = np.asarray(value), np.shape(value), None, None
        self.requires_grad = requires_grad


class AccumulateGrad:
    def __init__(self, variable):
        self.variable, self.next_functions = variable, ()


class MyMulBackward:
    def __init__(self, *inputs):
        self.next_functions = tuple((AccumulateGrad(t), 0) if t.requires_grad else (None, 0) for t in inputs)
        self._saved_self, self._saved_other = inputs


def my_mul(a, b):
    out = Leaf(a.data * b.data)
    out.grad_fn = MyMulBackward(a, b)
    return out


def test_a_graph_of_values_micrograd_style():
    a, b = Value(2.0, label="a"), Value(-3.0, label="b")
    e = a * b
    d = e + Value(10.0)
    dot = Dot(viz.draw(d, names_from_caller=False).source)
    assert dot.titles("op") == Counter({"*": 1, "+": 1}), "a value's node is titled by its _op"
    assert dot.titles("acc") == Counter(), "a graph of values has no AccumulateGrad: leaves feed the ops"
    assert dot.titles("leaf") == Counter({"a": 1, "b": 1, "()": 1}), "labels name the leaves (10 has none)"
    assert dot.lines("a") == ["a", "()", "2.0"], "a Python float: shape (), NumPy's float64 not printed"
    mul, add = dot.key("*"), dot.key("+")
    (out,) = dot.of_kind("output")
    assert dot.nodes[out][1] == ["output", "()", "4.0"]
    assert sorted(dot.inputs(mul)) == sorted([dot.key("a"), dot.key("b")])
    assert dot.inputs(out) == [add] and mul in dot.inputs(add)


def test_values_constants_names_grads_and_order():
    x = Leaf(np.array([1.0, 2.0]))
    x._prev, x._op = (), ""              # a value too: _prev, _op, data
    const = Leaf(3.0, requires_grad=False)
    const._prev, const._op = (), ""

    class V:
        def __init__(self, data, prev, op):
            self.data, self._prev, self._op, self.requires_grad, self.grad = data, prev, op, True, None

    h = V(x.data * 3.0, (x, const), "mul")
    y = V(h.data.sum(), (h, h), "sum-twice")
    x.grad = np.array([6.0, 6.0])
    dot = Dot(viz.draw(y, show_grads=True, show_order=True).source)
    assert dot.titles("leaf") == Counter({"x": 1}), "a constant (requires_grad=False) is not drawn"
    assert dot.titles("tensor") == Counter({"h": 1}), "a variable of the caller sits between op and users"
    assert dot.lines("x")[-1] == "grad [6.0, 6.0]", "show_grads reads .grad, an ndarray here"
    numbers = {}
    for _, lines in dot.nodes.values():
        m = re.match(r"(\d+)\s+(.+)$", lines[0])
        if m:
            numbers[m[2]] = int(m[1])
    assert numbers == {"sum-twice": 1, "mul": 2, "x": 3}, "a topological order: each node after its users"
    h_box = dot.key("h")
    assert dot.consumers(h_box) == [dot.key("sum-twice")] * 2, "both edges of y lead to h"
    with pytest.raises(TypeError, match="A graph of values"):
        viz.backward_steps(y)


def test_a_long_chain_of_values_is_collapsed():
    x, w = Value(1.0, label="x"), Value(0.5, label="w")
    h = x
    for _ in range(300):
        h = h * w + 1.0
    dot = Dot(viz.draw(h, names_from_caller=False).source)
    assert len(dot.nodes) < 40 and "nodes collapsed" in dot.source, "a loop's chain becomes one summary node"
    assert dot.titles("leaf")["x"] == 1 and dot.titles("leaf")["w"] == 1, "the leaves stay drawn"


def test_a_graph_of_nodes_of_ones_own():
    a, b = Leaf(2.0), Leaf(np.array([1.0, 2.0]), requires_grad=False)
    y = my_mul(a, b)
    dot = Dot(viz.draw(y, show_saved=True, show_order=True, names_from_caller=True).source)
    assert Counter(dot.title(k) for k in dot.of_kind("op")) == Counter({"MyMulBackward": 1})
    assert dot.titles("acc") == Counter({"AccumulateGrad": 1}), "a node with .variable ends a leaf's path"
    assert dot.titles("leaf") == Counter({"a": 1}), "b requires no grad: edge (None, 0)"
    saved = [(s, d, attrs) for s, d, attrs in dot.edges if "saved" in attrs]
    assert len(saved) == 2 and "saved self" in dot.source and "saved other" in dot.source, \
        "_saved_<name> attributes are what the node saved"
    assert dot.titles("output") == Counter({"y": 1})


def test_draw_refuses_what_is_no_tensor_with_the_protocol_named():
    with pytest.raises(TypeError, match="autograd_lab.viz.protocol"):
        viz.draw(np.ones(3))


def _pt_order(pt, loss):
    """The nodes in the order PyTorch's engine runs them, watched through node hooks."""
    ran, handles, todo, seen = [], [], [loss.grad_fn], {loss.grad_fn}
    while todo:
        node = todo.pop()
        handles.append(node.register_hook(lambda gi, go, node=node: ran.append(node)))
        for nxt, _ in node.next_functions:
            if nxt is not None and nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    loss.backward(retain_graph=True)
    for h in handles:
        h.remove()
    return ran


def test_pytorch_graphs_are_drawn_like_autograd_labs(torch):  # noqa: F811 (the fixture: real PyTorch)
    pt = torch

    def network(lib):
        a, w1, w2, w3, w4 = (lib.tensor(v, requires_grad=True) for v in (2.0, 3.0, -1.0, 0.5, 2.0))
        L = 10 - (w3 * (w1 * a) + w4 * (w2 * a))
        return {"a": a, "w1": w1, "w2": w2, "w3": w3, "w4": w4}, L

    import autograd_lab

    for show in ({}, {"show_order": True}, {"show_saved": True}):
        leaves_pt, L_pt = network(pt)
        leaves_al, L_al = network(autograd_lab)
        ours = Dot(viz.draw(L_al, params=leaves_al, names_from_caller=False, **show).source)
        theirs = Dot(viz.draw(L_pt, params=leaves_pt, names_from_caller=False, **show).source)
        assert ours.source == theirs.source, f"PyTorch's graph drawn as autograd_lab's ({show})"
    leaves_pt, L_pt = network(pt)
    dot = Dot(viz.draw(L_pt, params=leaves_pt, show_order=True).source)
    numbers = {}
    for key, (_, lines) in dot.nodes.items():
        m = re.match(r"(\d+)\s+", lines[0])
        if m:
            numbers[key] = int(m[1])
    ran = _pt_order(pt, L_pt)
    by_title = [dot.title(k) for k in sorted(numbers, key=numbers.get)]
    assert by_title == [type(n).__name__ for n in ran], "show_order: the order PyTorch's engine runs them"
    for leaf in leaves_pt.values():
        leaf.grad = None
    L_pt.backward()
    dot = Dot(viz.draw(L_pt, params=leaves_pt, show_grads=True, show_saved=True).source)
    assert dot.lines("a")[-1] == "grad 0.5", "dL/da = -(w3 w1 + w4 w2), read from PyTorch's .grad"
    assert not [e for e in dot.edges if "saved" in e[2]], "PyTorch freed what was saved: nothing to draw"


def test_pytorch_backward_steps(torch):  # noqa: F811
    pt = torch
    import autograd_lab

    w_pt, b_pt = pt.tensor(2.0, requires_grad=True), pt.tensor(3.0, requires_grad=True)
    y_pt = w_pt * w_pt + b_pt
    w_pt.grad = pt.tensor(100.0)
    kept = w_pt.grad
    steps = viz.backward_steps(y_pt, params={"w": w_pt, "b": b_pt}, names_from_caller=False)
    assert w_pt.grad is kept and b_pt.grad is None, "stepping puts .grad back as it was"
    w, b, y = seed_simple()
    ours = viz.backward_steps(y, names_from_caller=False)
    assert [steps.describe(i) for i in range(len(steps))] == [ours.describe(i) for i in range(len(ours))]
    assert Dot(steps.draw(2).source).source == Dot(ours.draw(2).source).source
    assert type(steps[0].node) is type(y_pt.grad_fn), "the steps hold PyTorch's own nodes"
    assert not isinstance(steps[0].node, autograd_lab.autograd.Node)
    # a retained intermediate's .grad is put back too, and a freed graph is explained
    x = pt.tensor([1.0, 2.0], requires_grad=True)
    mid = x * 2
    mid.retain_grad()
    out = (mid * 3).sum()
    viz.backward_steps(out)
    assert mid.grad is None and x.grad is None
    out.backward()
    with pytest.raises(RuntimeError, match="freed by an earlier backward"):
        viz.backward_steps(out)
