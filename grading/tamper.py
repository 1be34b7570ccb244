"""Tamper detection: canary test cells, and what a submission's source does to the grader.

A submission's kernel can rewrite anything in itself (IPython's hooks and transformers,
``run_cell``, the test helpers, NumPy, ``builtins``), so whether its tests "passed" is the
kernel's word. Two checks do not take it:

**Canaries.** A canary is a copy of one of the notebook's real test cells with one expectation
perturbed (a literal argument of a top-level check changed: ``assert square(-5) == 25`` becomes
``... == 26``), preferably in the hidden tests, so that its source differs from the real test
in one value the learner does not know. Every correct notebook fails it: each candidate is first
run against the instructor's solution, right before or right after its test (at random), and
kept only if it failed there while every real test passed (:func:`verify`, once per version of
the notebook, cached). At grading, two verified canaries are put where they were verified and
run like any cell; afterwards they are taken out of the notebook. A kernel in which a canary
"passes" is lying about its tests: the notebook scores zero and the evidence goes to the
instructor. A notebook with no verified candidate gets a standalone failing check through the
tests' helpers instead (catches every generic tampering, but a kernel that reads its cells can
recognise it).

What canaries cannot do: a kernel written to recognise canaries (compare each cell with the
released notebook, and run twins honestly) can still tell a pair apart half of the time per
canary; that takes code the static flags below report.

**Static flags** (:func:`static_flags`): the learner's cells are parsed and every use of what
changes how cells run or report is listed for the instructor: IPython hooks, transformers,
``run_cell`` and the kernel's internals, ``sys.settrace``/``setprofile``, frame tampering,
``builtins``, ``sys.modules``, assignments to attributes of imported modules or classes
(``np.allclose = ...``, ``Tensor.__eq__ = ...``), names that shadow builtins (``isinstance``,
``all``), magics and shell escapes, dynamic code (``exec``, ``eval``, ``__import__``).
"""

from __future__ import annotations

import ast
import builtins
import copy
import hashlib
import json
import os
import random
import re
from dataclasses import dataclass

from nbformat import NotebookNode

HIDDEN_BEGIN = "### BEGIN HIDDEN TESTS"
MESSAGE_ARGS = {"what", "hint", "why", "match", "mistakes", "reveal", "rtol", "atol", "dtype"}
CANDIDATES_PER_TEST = 2
TESTS_VERIFIED_PER_NOTEBOOK = 4
VERSION = 1  # of the candidate maker: a change makes verify run again


def _is_test(cell: NotebookNode) -> bool:
    m = cell.get("metadata", {}).get("nbgrader", {}) or {}
    return cell.cell_type == "code" and bool(m.get("grade")) and not m.get("solution")


def _grade_id(cell: NotebookNode) -> str:
    return (cell.get("metadata", {}).get("nbgrader", {}) or {}).get("grade_id") or ""


def source_key(source: str) -> str:
    return hashlib.sha256(f"{VERSION}\n{source}".encode()).hexdigest()[:24]


# --- making candidates ----------------------------------------------------------------------

def _perturbed(value):
    """A literal value changed so that it compares unequal (numbers well outside a tolerance)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1 if value >= 0 else value - 1
    if isinstance(value, float):
        return value + 0.5 + 0.5 * abs(value)
    if isinstance(value, str):
        return value + "_" if value else "_"
    if isinstance(value, tuple):
        return value[:-1] + (_perturbed(value[-1]),) if value else (0,)
    if isinstance(value, list):
        return value[:-1] + [_perturbed(value[-1])] if value else [0]
    return None


def _literals(node: ast.AST) -> list[ast.AST]:
    """Literal sub-expressions of a check's arguments (not its message arguments)."""
    found = []
    if isinstance(node, ast.Call):
        parts = list(node.args) + [k.value for k in node.keywords if k.arg not in MESSAGE_ARGS]
    elif isinstance(node, ast.Assert):
        parts = [node.test]
    else:
        return found
    for part in parts:
        for sub in ast.walk(part):
            if isinstance(sub, (ast.Constant, ast.Tuple, ast.List, ast.UnaryOp)):
                try:
                    value = ast.literal_eval(sub)
                except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                    continue
                if value is None or isinstance(value, (bytes, complex)):
                    continue
                found.append(sub)
    # the outermost literal of each nest only (a tuple, not also its elements)
    return [n for n in found if not any(n is not m and n in list(ast.walk(m)) for m in found)]


def _offset(lines: list[str], lineno: int, col: int) -> int:
    return sum(len(ln) for ln in lines[: lineno - 1]) + len(lines[lineno - 1].encode()[:col].decode())


def candidates(source: str, rng: random.Random, limit: int = CANDIDATES_PER_TEST) -> list[str]:
    """Up to `limit` copies of a test cell's source, each with one literal of a top-level check
    (a call or an assert) changed; literals in the hidden tests first."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    lines = source.splitlines(keepends=True)
    hidden = next((i + 1 for i, ln in enumerate(lines) if ln.strip().startswith(HIDDEN_BEGIN)),
                  None)
    found = []
    for stmt in tree.body:
        node = stmt.value if isinstance(stmt, ast.Expr) else stmt
        if isinstance(node, (ast.Call, ast.Assert)):
            for lit in _literals(node):
                found.append((hidden is not None and lit.lineno > hidden, lit))
    rng.shuffle(found)
    found.sort(key=lambda f: not f[0])  # hidden ones first, in random order
    out = []
    for _, lit in found:
        new = _perturbed(ast.literal_eval(lit))
        if new is None:
            continue
        start = _offset(lines, lit.lineno, lit.col_offset)
        end = _offset(lines, lit.end_lineno, lit.end_col_offset)
        text = source[:start] + repr(new) + source[end:]
        if text != source and text not in out:
            out.append(text)
        if len(out) >= limit:
            break
    return out


def fallback_canary(rng: random.Random) -> str:
    """A check that always fails, through the tests' helpers (when no candidate was verified):
    it runs none of the test's code, so it changes nothing for the cells after it."""
    a = rng.randrange(2, 10**6)
    return ("from autograd_lab.testing import expect_equal\n\n"
            f"expect_equal({a}, {a + rng.randrange(1, 99)}, what='the result', "
            "hint='compare the values')\n")


# --- verifying candidates against the instructor's solution ---------------------------------

def verify(solution_nb: NotebookNode, run, rng: random.Random | None = None) -> dict[str, list]:
    """{source_key(test source): [{"source": canary, "before": placed before its test}]}: the
    candidates that the solution fails, where they were placed (at random).

    `run(nb)` executes a notebook and returns it with its outputs (grading.worker runs it in the
    sandbox). Up to TESTS_VERIFIED_PER_NOTEBOOK test cells, CANDIDATES_PER_TEST candidates each,
    are put right before or right after their test in one run; a candidate is kept if it failed
    while every real test passed (so it also left the cells after it as they were)."""
    from .execute import canary_failed

    rng = rng or random.Random()
    nb = copy.deepcopy(solution_nb)
    tests = [c for c in nb.cells if _is_test(c)]
    rng.shuffle(tests)
    planned: list[tuple[NotebookNode, NotebookNode, bool]] = []  # (test, canary, before it)
    for test in tests:
        if len({id(t) for t, _, _ in planned}) >= TESTS_VERIFIED_PER_NOTEBOOK:
            break
        for text in candidates(test.source, rng):
            planned.append((test, _plain_cell(text), rng.random() < 0.5))
    cells = []
    for cell in nb.cells:
        cells += [c for t, c, before in planned if t is cell and before]
        cells.append(cell)
        cells += [c for t, c, before in planned if t is cell and not before]
    nb.cells = cells
    out = run(nb)
    if any(c.get("outputs") and _zeroed(c) for c in out.cells):
        return {}  # the solution's kernel died or hung: nothing is verified
    verified: dict[str, list[dict]] = {}
    by_id = {id(c): i for i, c in enumerate(nb.cells)}
    executed = out.cells
    all_pass = all(not canary_failed(c) for c in executed if _is_test(c))
    for test, canary, before in planned:
        real, twin = executed[by_id[id(test)]], executed[by_id[id(canary)]]
        if all_pass and not canary_failed(real) and canary_failed(twin):
            verified.setdefault(source_key(test.source), []).append(
                {"source": canary.source, "before": before})
    return verified


def _zeroed(cell: NotebookNode) -> bool:
    return any(o.get("ename") in ("KERNEL-DIED", "KERNEL-UNRESPONSIVE")
               for o in cell.get("outputs", []))


def _plain_cell(source: str) -> NotebookNode:
    return NotebookNode(cell_type="code", source=source, metadata=NotebookNode(), outputs=[],
                        execution_count=None, id=f"{random.getrandbits(64):016x}"[:8])


def load_verified(path: str, _name: str = "") -> dict[str, list[dict]]:
    if not path or not os.path.exists(path):
        return {}
    try:
        with open(path) as f:
            return json.load(f).get("verified", {})
    except (OSError, ValueError, AttributeError):
        return {}


# --- planting and reading canaries ----------------------------------------------------------

@dataclass
class Planted:
    cell: NotebookNode
    test_id: str
    kind: str  # "perturbed" | "fallback"

    def evidence(self) -> str:
        outputs = self.cell.get("outputs", [])
        shown = "; ".join(f"{o.get('output_type')}"
                          + (f" {o.get('ename')}: {str(o.get('evalue'))[:80]}"
                             if o.get("output_type") == "error" else "")
                          for o in outputs) or "no output, no error"
        first = next((ln for ln in self.cell.source.splitlines() if ln.strip()), "")[:80]
        return (f"cell={self.test_id} kind={self.kind}: a copy of the test with a wrong "
                f"expectation reported success ({shown}); it starts {first!r}")


def plant_canaries(nb: NotebookNode, verified: dict[str, list[dict]], k: int,
                   rng: random.Random | None = None) -> list[Planted]:
    """Put up to `k` canaries right before or after their real test cells (in place)."""
    rng = rng or random.SystemRandom()
    tests = [c for c in nb.cells if _is_test(c)]
    if k <= 0 or not tests:
        return []
    usable = [(t, verified[source_key(t.source)]) for t in tests
              if verified.get(source_key(t.source))]
    planted: list[tuple[NotebookNode, Planted, bool]] = []
    if usable:
        for test, entries in rng.sample(usable, min(k, len(usable))):
            entry = rng.choice(entries)
            planted.append((test, Planted(_plain_cell(entry["source"]), _grade_id(test),
                                          "perturbed"), bool(entry.get("before"))))
    else:
        test = rng.choice(tests)
        planted.append((test, Planted(_plain_cell(fallback_canary(rng)), _grade_id(test),
                                      "fallback"), False))
    cells = []
    for cell in nb.cells:  # where it was verified: right before or right after its test
        cells += [p.cell for t, p, before in planted if t is cell and before]
        cells.append(cell)
        cells += [p.cell for t, p, before in planted if t is cell and not before]
    nb.cells = cells
    return [p for _, p, _ in planted]


def remove_canaries(nb: NotebookNode, planted: list[Planted]) -> list[Planted]:
    """Take the canaries out of the notebook; return those that did NOT fail."""
    from .execute import canary_failed

    ids = {id(p.cell) for p in planted}
    executed = {id(c): c for c in nb.cells if id(c) in ids}
    nb.cells = [c for c in nb.cells if id(c) not in ids]
    passed = []
    for p in planted:
        cell = executed.get(id(p.cell), p.cell)
        p.cell = cell
        if cell.get("execution_count") is not None or cell.get("outputs"):
            if not canary_failed(cell):
                passed.append(p)
    return passed


# --- static flags ---------------------------------------------------------------------------

SHELL_ATTRS = {
    "events": "IPython's events (pre/post_run_cell hooks)",
    "input_transformers_cleanup": "IPython's input transformers",
    "input_transformers_post": "IPython's input transformers",
    "ast_transformers": "IPython's AST transformers",
    "run_cell": "IPython's run_cell", "run_cell_async": "IPython's run_cell",
    "run_ast_nodes": "IPython's run_ast_nodes", "transform_cell": "IPython's transform_cell",
    "set_custom_exc": "IPython's exception handler", "showtraceback": "IPython's traceback",
    "custom_exceptions": "IPython's exception handler", "displayhook": "the display hook",
    "display_pub": "the display publisher", "kernel": "the kernel object",
    "shell_handlers": "the kernel's message handlers", "do_execute": "the kernel's execute",
    "execute_request": "the kernel's execute", "iopub_socket": "the kernel's output socket",
    "excepthook": "the exception hook", "f_globals": "another frame's globals",
    "f_locals": "another frame's locals", "f_back": "the calling frame",
    "settrace": "a trace function", "setprofile": "a profile function",
    "_getframe": "the interpreter's frames", "modules": "sys.modules",
}
SUSPECT_CALLS = {"exec": "dynamic code (exec)", "eval": "dynamic code (eval)",
                 "compile": "dynamic code (compile)", "__import__": "a computed import",
                 "setattr": "setattr", "get_ipython": "the IPython shell",
                 "globals": "the notebook's globals()", "delattr": "delattr"}
SUSPECT_MODULES = {"builtins", "ctypes", "gc", "inspect", "IPython", "ipykernel",
                   "importlib", "sys", "traceback", "atexit", "signal", "threading"}
MAGIC = re.compile(r"^\s*(%{1,2}|!)\w")


def _imported(tree: ast.AST) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            names |= {a.asname or a.name for a in node.names}
    return names


def _root_name(node: ast.AST) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _flags_in(source: str, modules: set[str]) -> list[tuple[int, str]]:
    found = []
    for i, line in enumerate(source.splitlines(), 1):
        if MAGIC.match(line):
            found.append((i, "an IPython magic or shell escape"))
    text = "\n".join("pass" if MAGIC.match(ln) else ln for ln in source.splitlines())
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return found
    shadowable = set(dir(builtins)) - {"_", "__doc__", "__name__", "copyright", "credits",
                                       "license", "exit", "quit", "help"}
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Attribute) and node.attr in SHELL_ATTRS:
            found.append((line, SHELL_ATTRS[node.attr]))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id in SUSPECT_CALLS:
            found.append((line, SUSPECT_CALLS[node.func.id]))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            mods = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            for m in mods:
                if m.split(".")[0] in SUSPECT_MODULES:
                    found.append((line, f"imports {m}"))
        elif isinstance(node, ast.Name) and node.id in ("__builtins__", "__builtin__"):
            found.append((line, "builtins"))
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            for t in targets:
                for sub in ast.walk(t) if isinstance(t, (ast.Tuple, ast.List)) else [t]:
                    root = _root_name(sub)
                    if isinstance(sub, ast.Attribute) and (root in modules
                                                           or sub.attr.startswith("__")):
                        found.append((line, f"patches {ast.unparse(sub)}"))
                    elif isinstance(sub, ast.Name) and sub.id in shadowable:
                        found.append((line, f"shadows the builtin {sub.id}"))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) \
                and node.name in shadowable:
            found.append((line, f"shadows the builtin {node.name}"))
    return sorted(set(found))


def static_flags(nb: NotebookNode) -> list[str]:
    """What the learner's code cells do to the grader: 'cell=<id> line N: what: code'."""
    learner = [(i, c) for i, c in enumerate(nb.cells) if c.cell_type == "code" and not _is_test(c)
               and not (c.get("metadata", {}).get("nbgrader", {}) or {}).get("locked")]
    modules = set()
    for _, c in learner:
        try:
            modules |= _imported(ast.parse(c.source))
        except SyntaxError:
            pass
    modules |= {"np", "numpy", "torch", "autograd_lab", "testing", "sys", "os", "builtins"}
    flags = []
    for i, c in learner:
        lines = c.source.splitlines()
        for line, what in _flags_in(c.source, modules):
            code = lines[line - 1].strip()[:100] if 0 < line <= len(lines) else ""
            flags.append(f"cell={_grade_id(c) or '#' + str(i)} line {line}: {what}: {code}")
    return flags
