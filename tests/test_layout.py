"""The package's layout: the core reads on its own, and the parts depend on each other one way.

These tests read the source (imports, names, sizes); what the code does is tested elsewhere.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "autograd_lab"


# The names of viz's documented protocol (viz/protocol.py) that start with an underscore: micrograd's
# ``_prev`` and ``_op``, PyTorch's ``_saved_<name>`` and ``_sequence_nr``; public by convention there.
PROTOCOL_NAMES = {"_prev", "_op", "_sequence_nr"}


def test_viz_reads_the_graph_through_public_attributes():
    """viz reads a graph as torchviz reads PyTorch's: grad_fn, next_functions, variable, saved_items(),
    grad; never a private attribute of a node or a tensor (``._data``, ``._grad``, ``._retained``),
    but the names of its documented protocol."""
    for name in ("graph.py", "dot.py", "__init__.py", "protocol.py"):
        source = (PACKAGE / "viz" / name).read_text()
        private = set(re.findall(r"\b(?:t|node|n|var|g|v|fn|nxt|value|p)\.(_[a-z]\w*)", source))
        assert sorted(private - PROTOCOL_NAMES) == [], f"viz/{name} reads private attributes: {private}"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_type_checking(node: ast.If) -> bool:
    return isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"


def import_graph() -> dict[str, set[str]]:
    """Module -> the package's modules it names in an import, anywhere in the file (function-local
    imports count; ``if TYPE_CHECKING:`` imports do not). ``from .x import y`` is an edge to ``x``,
    ``from . import x`` to the module ``x``."""
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        tree = ast.parse(path.read_text())
        skip = {id(n) for t in ast.walk(tree) if isinstance(t, ast.If) and _is_type_checking(t)
                for n in ast.walk(t)}
        targets: set[str] = set()
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            if isinstance(node, ast.Import):
                targets |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(up + ([node.module] if node.module else []))
                submodules = {f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in modules}
                targets |= submodules if len(submodules) == len(node.names) else submodules | {base}
        graph[name] = {t for t in targets if t in modules and t != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(component)
    return found


def test_the_import_graph_has_no_cycle():
    """tensor.py imports no operation (the methods that hand off come from ops/methods.py), so no
    import cycle runs through it; nor through any other module: the parts depend on each other one way
    (core <- ops <- nn, optim, viz)."""
    graph = import_graph()
    assert graph["autograd_lab.tensor"] <= {"autograd_lab.dtypes", "autograd_lab._tensor_str"}
    assert not any(m.startswith("autograd_lab.ops") for m in graph["autograd_lab.function"]
                   | graph["autograd_lab.engine"] | graph["autograd_lab.grad_mode"])
    assert [sorted(c) for c in cycles(graph)] == []


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [{"a", "b", "c"}]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_tensor_py_is_the_data_and_the_autograd_state_not_a_catalogue():
    source = (PACKAGE / "tensor.py").read_text()
    assert len(source.splitlines()) < 500
    assert "import ops" not in source and "from .ops" not in source


def test_the_methods_that_hand_off_come_from_one_table():
    import autograd_lab as torch
    from autograd_lab.ops.methods import ALIASES, METHODS

    for name, fn in METHODS.items():
        assert vars(torch.Tensor)[name] is fn, name
    for alias, name in ALIASES.items():
        assert vars(torch.Tensor)[alias] is METHODS[name], alias
    tensor_py = (PACKAGE / "tensor.py").read_text()
    defined = set(re.findall(r"^    def (\w+)\(", tensor_py, re.M))
    assert not defined & set(METHODS), "a method is both in tensor.py and in the table"


def _top_level(path: Path) -> list[ast.stmt]:
    return ast.parse(path.read_text()).body


def test_files_and_tests_are_named_by_concept_not_by_history():
    """No ``*_more.py`` half, no "more" in a module, test file or test name."""
    root = PACKAGE.parent
    paths = [*PACKAGE.rglob("*.py"), *(root / "tests").glob("*.py")]
    assert [p.name for p in paths if "more" in p.stem] == []
    tests = [n.name for p in (root / "tests").glob("test_*.py") for n in _top_level(p)
             if isinstance(n, ast.FunctionDef) and n.name.startswith("test_") and "more" in n.name]
    assert tests == []


def _node_names() -> list[tuple[str, str]]:
    found = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            targets = [getattr(t, "id", None) for t in getattr(node, "targets", ())]
            if isinstance(node, ast.Assign) and "node_name" in targets:
                if isinstance(node.value, ast.Constant):
                    found.append((node.value.value, path.relative_to(PACKAGE).as_posix()))
    return found


def test_each_node_is_implemented_once():
    """One op, one Function: a PyTorch node name is defined by one class (the same op written twice
    drifts apart). PyTorch's ConvolutionBackwardBackward0 is one node for two derivatives; here two."""
    names = [name for name, _ in _node_names()]
    twice = sorted({n for n in names if names.count(n) > 1} - {"ConvolutionBackwardBackward0"})
    assert twice == [], [(n, p) for n, p in _node_names() if n in twice]
    assert len(names) > 150


def test_each_public_op_function_sits_beside_its_function():
    """In ops/, the public function that applies a Function follows it closely (no "functional forms"
    section at the end of a file)."""
    far = []
    for path in sorted((PACKAGE / "ops").glob("*.py")):
        body = _top_level(path)
        where = {n.name: i for i, n in enumerate(body) if isinstance(n, ast.ClassDef)}
        for i, node in enumerate(body):
            if not isinstance(node, ast.FunctionDef) or node.name.startswith("_"):
                continue
            applied = {c.value.id for c in ast.walk(node)
                       if isinstance(c, ast.Attribute) and c.attr == "apply"
                       and isinstance(c.value, ast.Name) and c.value.id in where}
            nearest = min((i - where[c] for c in applied if where[c] < i), default=0)
            if nearest > 8:
                far.append(f"{path.name}:{node.name}")
    assert far == []


def test_no_import_inside_a_function_but_of_an_optional_package():
    """Imports stand at the top of each module; inside a function only optional packages
    (graphviz, ipywidgets, PyTorch, threadpoolctl) are imported, where they are needed."""
    optional = {"graphviz", "ipywidgets", "torch", "torch.distributed", "threadpoolctl"}
    local = []
    # testing.py, for the notebooks' test cells, imports the package lazily by its own design
    for path in set(PACKAGE.rglob("*.py")) - {PACKAGE / "testing.py"}:
        for fn in ast.walk(ast.parse(path.read_text())):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for node in ast.walk(fn):
                    if isinstance(node, ast.ImportFrom) and (node.level or node.module not in optional):
                        local.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
                    elif isinstance(node, ast.Import) and any(a.name not in optional for a in node.names):
                        local.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert local == []


def test_one_optimizer_per_file_and_the_parameter_loop_once():
    """Each algorithm in its own file defines its state and its update; the loop over the
    parameters (state, maximize, weight decay) is Optimizer.step alone."""
    for path in sorted((PACKAGE / "optim").glob("*.py")):
        if path.stem in ("__init__", "optimizer", "lr_scheduler"):
            continue
        classes = [n for n in _top_level(path) if isinstance(n, ast.ClassDef)]
        assert len(classes) == 1 and classes[0].name.lower() == path.stem, path.name
        methods = {f.name for f in classes[0].body if isinstance(f, ast.FunctionDef)}
        assert "step" not in methods, f"{path.name} writes the parameter loop again"
        assert '"maximize"]' not in ast.unparse(classes[0]), f"{path.name} applies maximize itself"


def test_the_tests_mirror_the_modules():
    """Each module of the core, of ops/, of nn/functional/ and of optim/ has its test file (its name
    after the module's path: ops/view.py -> test_ops_view.py), beside the cross-cutting suites."""
    tests = {p.stem for p in (PACKAGE.parent / "tests").glob("test_*.py")}
    modules = ["tensor", "function", "engine", "grad_mode", "creation", "autograd/gradcheck",
               "autograd/functional", "optim/lr_scheduler"]
    modules += [f"ops/{p.stem}" for p in (PACKAGE / "ops").glob("*.py") if p.stem != "__init__"]
    modules += [f"nn/{p.stem}" for p in (PACKAGE / "nn" / "functional").glob("[a-z]*.py")
                if p.stem != "__init__"]
    missing = [m for m in modules if "test_" + m.replace("/", "_") not in tests]
    assert missing == []
    assert {"test_optim", "test_gradcheck_ops", "test_torch_differential", "test_errors",
            "test_memory"} <= tests


def test_the_readmes_reading_order_counts_the_lines_right():
    """The README's reading order names each file with its length: the lengths are the files'."""
    readme = (PACKAGE.parent / "README.md").read_text()
    section = readme.split("### Reading order", 1)[1].split("\n## ", 1)[0]
    named = re.findall(r"`autograd_lab/([\w/]+\.py)` \((\d+) lines\)|`(ops/methods\.py)` \((\d+) lines\)",
                       section)
    assert len(named) >= 5
    for path, count, path2, count2 in named:
        path, count = path or path2, int(count or count2)
        lines = len((PACKAGE / path).read_text().splitlines())
        assert lines == count, f"{path} has {lines} lines, the README says {count}"
    for core in ("tensor.py", "function.py", "engine.py", "grad_mode.py"):
        assert f"autograd_lab/{core}" in section
    assert "my_backward" in section
