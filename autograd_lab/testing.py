"""What the course's exercise tests use: checks that explain, and switches for shortcuts.

Every test cell of the notebooks imports what it needs from here itself (never a helper the
notebook defined, which a learner's cell could have replaced)::

    from autograd_lab.testing import expect_equal, forbid

* ``expect_equal``, ``expect_close``, ``expect_raises``, ``call``: compare concrete values of
  concrete types (a tuple is a tuple, an array an ``ndarray``; an object that claims to equal
  everything fails), floats within a tolerance, and fail with a message saying what was expected,
  what came, and a hint. ``mistakes=`` names a typical wrong result when the answer matches it.
* ``forbid``: while a block runs, the library's own version of what an exercise builds raises
  :class:`ForbiddenCall` with the exercise's reason, however the learner reached it (``np.x``,
  ``from numpy import x``, ``torch.Tensor.x``). Restored on leaving the block, always.
* ``spy``, ``watch_hooks``, ``graph_freed``, ``expect_not_alias``, ``expect_written_out``:
  checks on *how* a result was made, where the result alone cannot tell.
* ``random_graph``: a random backward graph to run graph code on (shared subexpressions,
  broadcasting, leaves that need no grad).
* ``expect_function``, ``numerical_vjp``: a learner's ``autograd.Function`` checked from the
  outside, its ``backward`` called directly and compared with central differences.

This module is not PyTorch's ``torch.testing``; it holds no exercise's solution. How to write
tests with it: ``docs/exercise-authoring.md``.
"""

from __future__ import annotations

import ast
import functools
import gc
import importlib
import inspect
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, NoReturn

# Taken when this module is imported (the notebooks' locked setup cell imports it, before any
# learner code runs), so that replacing ``numpy.allclose`` or ``numpy.asarray`` later does not
# change what the checks compute.
from numpy import abs as _np_abs
from numpy import array as _array
from numpy import array2string as _array2string
from numpy import asarray as _asarray
from numpy import dtype as _np_dtype
from numpy import errstate as _errstate
from numpy import float64 as _float64
from numpy import generic as _np_generic
from numpy import isfinite as _isfinite
from numpy import isnan as _isnan
from numpy import ndarray as _ndarray
from numpy import ndindex as _ndindex
from numpy import shares_memory as _shares_memory
from numpy import unravel_index as _unravel_index
from numpy import zeros as _zeros
from numpy.random import default_rng as _default_rng

__all__ = [
    "Call", "ForbiddenCall", "HookWatch", "Spy", "call", "describe", "expect_close", "expect_equal",
    "expect_function", "expect_not_alias", "expect_raises", "expect_type", "expect_written_out", "fail",
    "forbid", "graph_freed", "numerical_vjp", "random_graph", "show", "spy", "watch_hooks",
]

_MAX_SHOWN = 240


# --- messages -----------------------------------------------------------------------------

def show(x: Any) -> str:
    """A short, readable description of a value for a failure message."""
    numbers = _buffer(x)
    if numbers is not None and numbers.size > 12:
        kind = "array" if type(x) is _ndarray else "tensor"
        first = ", ".join(f"{v:.4g}" for v in numbers.ravel()[:4].tolist())
        return f"<{kind} of shape {tuple(numbers.shape)}, {numbers.dtype}: {first}, ...>"
    if type(x) is _ndarray:
        body = _array2string(x, precision=4, separator=", ")
        text = f"array({body}, dtype={x.dtype})"
    elif type(x) in (set, frozenset) and x:  # sorted: the same message in every process
        body = "{" + ", ".join(sorted(map(repr, x))) + "}"
        text = body if type(x) is set else f"frozenset({body})"
    else:
        try:
            text = repr(x)
        except Exception as e:  # a learner's object may not even print
            text = f"<{_type_name(x)} whose repr() raised {type(e).__name__}>"
    text = " ".join(text.split())
    return text if len(text) <= _MAX_SHOWN else text[:_MAX_SHOWN - 5] + " ...>"


def _type_name(x: Any) -> str:
    t = type(x)
    if t.__module__ == "builtins":
        return t.__qualname__
    if t.__module__.startswith("autograd_lab."):  # its public name, not the file it lives in
        return f"autograd_lab.{t.__qualname__}"
    return f"{t.__module__}.{t.__qualname__}"


def fail(what: str, expected: str, got: str, hint: str = "") -> NoReturn:
    """Raise AssertionError("<what>: expected <expected>, got <got>. Hint: <hint>")."""
    message = f"{what}: expected {expected}, got {got}."
    if hint:
        message += f" Hint: {hint}"
    raise AssertionError(message)


def describe(fn: Callable, *args: Any, **kwargs: Any) -> str:
    """``describe(f, (4, 3), x)`` -> ``"f((4, 3), <array of shape (2, 3)>)"``: a call, for messages."""
    def arg(a: Any) -> str:
        if hasattr(a, "shape") and not isinstance(a, tuple | int | float):
            return f"<{type(a).__name__} of shape {tuple(a.shape)}>"
        return show(a)

    parts = [arg(a) for a in args] + [f"{k}={arg(v)}" for k, v in kwargs.items()]
    return f"{getattr(fn, '__name__', 'function')}({', '.join(parts)})"


# --- values of concrete types --------------------------------------------------------------

def _items(n: int) -> str:
    return f"{n} item" if n == 1 else f"{n} items"


_SCALARS = (bool, int, float, str, bytes, type(None), complex)


def _first_difference(got: Any, expected: Any, path: str = "") -> str | None:
    """Where `got` differs from `expected` in type or value (None: equal, exactly)."""
    if type(got) is not type(expected):
        where = f" at {path}" if path else ""
        return f"a {_type_name(got)}{where} where a {_type_name(expected)} is expected"
    if type(expected) in (tuple, list):
        if len(got) != len(expected):
            where = f" at {path}" if path else ""
            return f"{_items(len(got))}{where} where {_items(len(expected))} are expected"
        for i, (g, e) in enumerate(zip(got, expected)):
            d = _first_difference(g, e, f"{path}[{i}]")
            if d:
                return d
        return None
    if type(expected) in (set, frozenset):
        if got != expected:
            extra, missing = sorted(map(repr, got - expected)), sorted(map(repr, expected - got))
            return ", ".join(([f"{', '.join(extra)} not expected"] if extra else [])
                             + ([f"{', '.join(missing)} missing"] if missing else []))
        return None
    if type(expected) is dict:
        if set(got) != set(expected):
            return f"keys {sorted(map(repr, got))} where {sorted(map(repr, expected))} are expected"
        for k in expected:
            d = _first_difference(got[k], expected[k], f"{path}[{k!r}]")
            if d:
                return d
        return None
    if type(expected) in _SCALARS:
        return None if got == expected else "a different value"
    raise TypeError(f"expect_equal compares tuples, lists, dicts and scalars, not {_type_name(expected)}")


def expect_equal(got: Any, expected: Any, *, what: str, hint: str = "",
                 mistakes: dict[str, Any] | None = None, reveal: bool = True) -> None:
    """Fail unless `got` equals `expected` exactly, with the same types all the way down.

    For tuples, lists, sets, dicts and Python scalars (int, float, bool, str, None): a list is
    not a tuple, a ``numpy.int64`` is not an ``int``, and an object whose ``__eq__`` always says
    True fails. `mistakes` maps a description of a typical mistake to the value it produces: when
    `got` is that value, the description is the hint. ``reveal=False`` keeps the expected value
    out of the message (a prediction the learner is to make).
    """
    diff = _first_difference(got, expected)
    if diff is None:
        return
    for text, wrong in (mistakes or {}).items():
        if _first_difference(got, wrong) is None:
            hint = text
            break
    if diff == "a different value" or not reveal and " where a " not in diff:
        got_text = show(got)  # a wrong value; unrevealed, even its length would be a clue
    else:
        got_text = f"{show(got)} ({diff})"
    fail(what, show(expected) if reveal else "another value", got_text, hint)


def expect_type(got: Any, types: type | tuple[type, ...], *, what: str, hint: str = "") -> None:
    """Fail unless ``type(got)`` is one of `types` exactly (no subclass of them)."""
    types = types if isinstance(types, tuple) else (types,)
    if type(got) not in types:
        names = " or ".join(t.__qualname__ for t in types)
        fail(what, f"a {names}", f"{show(got)} (of type {_type_name(got)})", hint)


def _tensor_types() -> tuple[type, ...]:
    from . import Tensor
    from .nn import Parameter

    return (Tensor, Parameter)


def _numbers_of(x: Any, kind: str) -> Any:
    """The numbers of a value of `kind` ("array", "tensor", "number"), as float64 ndarray."""
    if kind == "tensor":
        x = x.detach().numpy()
    return _asarray(x, dtype=_float64) if kind != "number" else _asarray(float(x))


def _numpy_scalar(x: Any) -> bool:
    return isinstance(x, _np_generic) and type(x).__module__ == "numpy"


def _kind(x: Any) -> str:
    if type(x) is _ndarray:
        return "array"
    if type(x) in _tensor_types():
        return "tensor"
    if type(x) in (int, float) or _numpy_scalar(x):
        return "number"
    raise TypeError(f"expect_close compares arrays, tensors and numbers, not {_type_name(x)}")


def _check_kind(got: Any, expected: Any, what: str, hint: str) -> str:
    kind = _kind(expected)
    if kind == "array":
        ok = type(got) is _ndarray or (expected.ndim == 0 and _numpy_scalar(got))
        wanted = "a NumPy array (numpy.ndarray)"
    elif kind == "tensor":
        ok = type(got) in _tensor_types()
        wanted = "an autograd_lab Tensor"
    else:
        ok = type(got) in (int, float) or (_numpy_scalar(got) and type(got).__name__ != "bool")
        wanted = "a number (int or float)"
    if not ok:
        fail(what, wanted, f"{show(got)} (of type {_type_name(got)})", hint)
    return kind


def _close_mask(g: Any, e: Any, rtol: float, atol: float) -> Any:
    both_nan = _isnan(g) & _isnan(e)
    with _errstate(invalid="ignore"):  # an infinity matches only itself (rtol * inf is no tolerance)
        near = _isfinite(e) & (_np_abs(g - e) <= atol + rtol * _np_abs(e))
    return both_nan | (g == e) | near


def expect_close(got: Any, expected: Any, *, what: str, hint: str = "", rtol: float = 1e-6,
                 atol: float = 1e-8, mistakes: dict[str, Any] | None = None,
                 dtype: Any = None) -> None:
    """Fail unless `got` is of `expected`'s kind and shape, with values within a tolerance.

    `expected` is a NumPy array (then `got` must be an ``ndarray``; a NumPy scalar passes for a
    0-d one), an autograd_lab Tensor (`got` must be a Tensor or Parameter) or a number (`got` an
    int or float, Python's or NumPy's). Values match when ``|got - expected| <= atol + rtol *
    |expected|`` everywhere (NaN matches NaN, an infinity the same infinity): any correct method
    passes, not only one algorithm's rounding. `dtype` (a NumPy dtype or an autograd_lab dtype):
    `got` must have it. `mistakes` maps a description of a typical mistake to the value it produces.
    """
    kind = _check_kind(got, expected, what, hint)
    if kind != "number":
        gshape, eshape = tuple(got.shape), tuple(expected.shape)
        if gshape != eshape:
            for text, wrong in (mistakes or {}).items():
                if tuple(getattr(wrong, "shape", ())) == gshape:
                    hint = text
                    break
            fail(what, f"shape {eshape}", f"shape {gshape}: {show(got)}", hint)
        if dtype is not None:
            want = _np_dtype(dtype) if isinstance(got.dtype, _np_dtype) else dtype
            if got.dtype != want:
                fail(what, f"dtype {want}", f"dtype {got.dtype}", hint)
    g, e = _numbers_of(got, kind), _numbers_of(expected, _kind(expected))
    ok = _close_mask(g, e, rtol, atol)
    if bool(ok.all()):
        return
    for text, wrong in (mistakes or {}).items():
        w = _numbers_of(wrong, _kind(wrong))
        if w.shape == g.shape and bool(_close_mask(g, w, rtol, atol).all()):
            hint = text
            break
    detail = show(got)
    if g.ndim:
        at = tuple(int(i) for i in _unravel_index(int((~ok).argmax()), g.shape))
        detail += f" (first difference at index {at}: {g[at]:.6g} instead of {e[at]:.6g})"
    fail(what, show(expected), detail, hint)


def call(fn: Callable, *args: Any, hint: str = "", **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)``; if it raises, fail with a message naming the call and the error.

    A :class:`ForbiddenCall` passes unchanged (its message already says what to do).
    """
    return _labelled_call(None, fn, args, kwargs, hint)


def _labelled_call(label: str | None, fn: Callable, args: tuple, kwargs: dict, hint: str) -> Any:
    """:func:`call`, naming the call `label` in the message (default: ``describe(fn, *args)``)."""
    try:
        return fn(*args, **kwargs)
    except ForbiddenCall:
        raise
    except Exception as e:
        text = str(e).rstrip(". ")
        label = label or describe(fn, *args, **kwargs)
        message = f"{label} raised {type(e).__name__}" + (f": {text}" if text else "")
        raise AssertionError(message + (f". Hint: {hint}" if hint else "")) from e


def expect_raises(exc: type[BaseException], fn: Callable, *args: Any, match: tuple[str, ...] = (),
                  what: str | None = None, hint: str = "", **kwargs: Any) -> BaseException:
    """Fail unless ``fn(*args, **kwargs)`` raises `exc` whose message contains each of `match`.

    Returns the exception. Another exception, or a return value, fails with a message saying so.
    """
    what = what or describe(fn, *args, **kwargs)
    try:
        value = fn(*args, **kwargs)
    except ForbiddenCall:
        raise
    except exc as e:
        missing = [m for m in match if m not in str(e)]
        if missing:
            fail(f"the {exc.__name__} of {what}", "a message containing "
                 + " and ".join(repr(m) for m in match), repr(str(e)), hint)
        return e
    except Exception as e:
        fail(what, f"{exc.__name__}", f"{type(e).__name__}: {e}", hint)
    fail(what, f"{exc.__name__} to be raised", f"the return value {show(value)}", hint)


# --- switching public names off, and watching them ----------------------------------------

class ForbiddenCall(AssertionError):
    """Raised by a name that :class:`forbid` switched off, when the code under test calls it."""


def _resolve(name: str) -> tuple[Any, str, Any]:
    """'numpy.linalg.norm' -> (owner, 'norm', raw attribute); raises LookupError if missing."""
    parts = name.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for part in parts[cut:-1]:
            if not hasattr(obj, part):
                raise LookupError(f"{name}: {'.'.join(parts[:-1])} has no attribute {part!r}")
            obj = getattr(obj, part)
        attr = parts[-1]
        if isinstance(obj, type):
            try:
                raw = inspect.getattr_static(obj, attr)
            except AttributeError:
                raise LookupError(f"{name}: {obj.__qualname__} has no attribute {attr!r}") from None
        elif attr in getattr(obj, "__dict__", {}):
            raw = vars(obj)[attr]
        else:
            raise LookupError(f"{name}: {'.'.join(parts[:-1])} has no attribute {attr!r}")
        return obj, attr, raw
    raise LookupError(f"{name}: no module of that name can be imported")


def _caller_module(depth: int) -> str:
    frame = sys._getframe(depth + 1)
    return frame.f_globals.get("__name__", "") or ""


def _allowed(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def _code_namespace() -> dict:
    """The globals of the nearest caller outside this module: the notebook's namespace."""
    frame = sys._getframe(1)
    while frame.f_back is not None and frame.f_globals.get("__name__") == __name__:
        frame = frame.f_back
    return frame.f_globals


Handler = Callable[[str, Callable, tuple, dict], Any]
_CODE_NAMESPACE = "<the code's namespace>"


@dataclass
class _Target:
    name: str
    owner: Any
    attr: str
    raw: Any
    own: bool  # the attribute is in owner's own __dict__ (else inherited or a module's)
    guard: Any = None
    bound: list[tuple[dict, str]] = field(default_factory=list)


class _Patch:
    """Replace public names by guards while a block runs; put them back when it ends.

    A module-level function is replaced wherever it is bound: its module, every loaded module
    that imported it by name, and the namespace the block runs in (the notebook's), so that
    ``from numpy import broadcast_shapes`` is covered too. A class attribute (method, static or
    class method, property) is replaced on that class. Calls from modules named in
    `allow_from` pass through; all others go to `handler(name, original, args, kwargs)`.
    """

    def __init__(self, names: tuple[str, ...], handler: Handler, allow_from: tuple[str, ...]):
        if not names:
            raise ValueError("name at least one public name, e.g. 'numpy.broadcast_shapes'")
        self.names = names
        self.handler = handler
        self.allow_from = tuple(allow_from)
        self._targets: list[_Target] | None = None
        self._scanned: dict[str, list[str]] = {}  # module name -> keys bound to a target
        self._depth = 0

    def _make_guard(self, name: str, fn: Callable) -> Callable:
        handler, allow_from = self.handler, self.allow_from

        @functools.wraps(fn)
        def guard(*args: Any, **kwargs: Any) -> Any:
            if allow_from and _allowed(_caller_module(1), allow_from):
                return fn(*args, **kwargs)
            return handler(name, fn, args, kwargs)

        return guard

    def _wrap(self, name: str, raw: Any) -> Any:
        if isinstance(raw, staticmethod | classmethod):
            return type(raw)(self._make_guard(name, raw.__func__))
        if isinstance(raw, property):
            return property(*(self._make_guard(name, f) if f else None
                              for f in (raw.fget, raw.fset, raw.fdel)), raw.__doc__)
        if not callable(raw):
            raise TypeError(f"{name} is a {_type_name(raw)}, not a function, method or property")
        return self._make_guard(name, raw)

    def _targets_now(self) -> list[_Target]:
        if self._targets is None:
            targets = []
            for name in self.names:
                owner, attr, raw = _resolve(name)
                own = not isinstance(owner, type) or attr in vars(owner)
                targets.append(_Target(name, owner, attr, raw, own))
            for t in targets:
                t.guard = self._wrap(t.name, t.raw)
            self._targets = targets
        return self._targets

    def _namespaces(self, frame_globals: dict) -> Iterator[tuple[str, dict]]:
        for mod_name, module in list(sys.modules.items()):
            if isinstance(module, ModuleType) and mod_name != __name__:
                try:
                    yield mod_name, vars(module)
                except TypeError:
                    continue
        yield _CODE_NAMESPACE, frame_globals

    def start(self, namespace: dict) -> None:
        """Put the guards in place (nested starts count; only the outermost patches)."""
        self._depth += 1
        if self._depth > 1:
            return
        targets = self._targets_now()
        by_id = {id(t.raw): t for t in targets
                 if not isinstance(t.raw, property | staticmethod | classmethod)}
        for t in targets:
            t.bound = []
            if isinstance(t.owner, type):
                setattr(t.owner, t.attr, t.guard)
        for mod_name, ns in self._namespaces(namespace):
            keys = self._scanned.get(mod_name)
            if keys is None:
                keys = [k for k, v in list(ns.items()) if id(v) in by_id and by_id[id(v)].raw is v]
                if mod_name != _CODE_NAMESPACE:
                    self._scanned[mod_name] = keys
            for k in keys:
                v = ns.get(k)
                t = by_id.get(id(v))
                if t is not None and t.raw is v:
                    ns[k] = t.guard
                    t.bound.append((ns, k))

    def stop(self) -> None:
        """Put every original back (after the outermost start)."""
        self._depth -= 1
        if self._depth:
            return
        for t in reversed(self._targets or []):
            for ns, k in t.bound:
                if ns.get(k) is t.guard:
                    ns[k] = t.raw
            t.bound = []
            if isinstance(t.owner, type) and vars(t.owner).get(t.attr) is t.guard:
                if t.own:
                    setattr(t.owner, t.attr, t.raw)
                else:
                    delattr(t.owner, t.attr)


class forbid:
    """Switch public names off while a block (or a function) runs.

    ``with forbid("numpy.broadcast_shapes", why="this exercise builds the broadcasting rule"):``
    makes every call of ``numpy.broadcast_shapes`` inside the block raise :class:`ForbiddenCall`
    saying ``numpy.broadcast_shapes is switched off while these tests run: <why>.``, however the
    code got hold of it (see :class:`_Patch`). A forbidden call that the code caught still fails
    the block when it ends. ``forbid(...)(fn)`` returns `fn` wrapped so that every call runs inside.
    `allow_from`: module-name prefixes whose own calls pass (e.g. ``("autograd_lab",)`` when only
    the learner's direct calls are shortcuts, not the library's internal ones).

    Run only the learner's code inside: expected values computed with the forbidden names must
    be computed outside the block. The names are restored when the block ends, however it ends.
    """

    def __init__(self, *names: str, why: str, allow_from: tuple[str, ...] = ()):
        if not why:
            raise ValueError("say why the name is switched off: why='this exercise builds ...'")
        self.why = why.rstrip(". ")
        self.violations: list[str] = []
        self._patch = _Patch(names, self._refuse, allow_from)

    def _refuse(self, name: str, fn: Callable, args: tuple, kwargs: dict) -> Any:
        self.violations.append(name)
        raise ForbiddenCall(f"{name} is switched off while these tests run: {self.why}.")

    def __enter__(self) -> forbid:
        if self._patch._depth == 0:
            self.violations = []
        self._patch.start(_code_namespace())
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        self._patch.stop()
        if exc_type is None and self._patch._depth == 0 and self.violations:
            name = self.violations[0]
            raise ForbiddenCall(f"{name} was called while these tests ran (and the error it "
                                f"raised was caught): {self.why}.")

    def __call__(self, fn: Callable) -> Callable:
        @functools.wraps(fn)
        def inside(*args: Any, **kwargs: Any) -> Any:
            with self:
                return fn(*args, **kwargs)

        return inside


@dataclass
class Call:
    """One call that a :class:`Spy` saw."""

    args: tuple
    kwargs: dict
    shapes: tuple  # the shape of each positional argument that has one, else None
    result: Any = None
    error: BaseException | None = None


class Spy:
    """The calls of a public name while a block runs (see :func:`spy`)."""

    def __init__(self, name: str, keep: bool, allow_from: tuple[str, ...], copy: bool = False):
        self.name = name
        self.keep = keep
        self.copy = copy
        self.calls: list[Call] = []
        self._patch = _Patch((name,), self._record, allow_from)

    def _record(self, name: str, fn: Callable, args: tuple, kwargs: dict) -> Any:
        shapes = tuple(tuple(a.shape) if hasattr(a, "shape") and not isinstance(a, type) else None
                       for a in args)
        if self.copy:  # as they are now: the call may write into them (all_reduce)
            kept_args, kept_kwargs = tuple(map(_snapshot, args)), {k: _snapshot(v) for k, v in kwargs.items()}
        else:
            kept_args, kept_kwargs = args, kwargs
        call_ = Call(kept_args if self.keep else (), kept_kwargs if self.keep else {}, shapes)
        self.calls.append(call_)
        try:
            result = fn(*args, **kwargs)
        except BaseException as e:
            call_.error = e
            raise
        call_.result = result if self.keep else None
        return result

    @property
    def count(self) -> int:
        return len(self.calls)

    def __len__(self) -> int:
        return len(self.calls)

    def __iter__(self) -> Iterator[Call]:
        return iter(self.calls)

    def __getitem__(self, i: int) -> Call:
        return self.calls[i]

    def __enter__(self) -> Spy:
        self.calls = []
        self._patch.start(_code_namespace())
        return self

    def __exit__(self, *exc: Any) -> None:
        self._patch.stop()


def spy(name: str, *, keep: bool = True, copy: bool = False, allow_from: tuple[str, ...] = ()) -> Spy:
    """Record the calls of a public name while a block runs; the calls still happen.

    ``with spy("autograd_lab.parallel.all_reduce") as s: ...`` then ``s.count``, ``s[0].args``,
    ``s[0].shapes`` (the shape of each positional argument). ``keep=False`` records only shapes,
    so that the spy keeps no argument (and no graph) alive. ``copy=True`` records copies of the
    array and tensor arguments taken when the call starts (for a function that writes into its
    arguments, such as ``all_reduce``: what it was given, not what it left). Calls from
    `allow_from` modules are not recorded.
    """
    return Spy(name, keep, allow_from, copy)


def _snapshot(x: Any) -> Any:
    """A copy of an ndarray or tensor (without its graph); anything else as it is."""
    if type(x) is _ndarray:
        return x.copy()
    if type(x) in _tensor_types():
        return x.detach().clone()
    return x


class HookWatch(Spy):
    """The hooks registered while a block ran, and whether they still run after it."""

    def __init__(self, name: str):
        super().__init__(name, keep=False, allow_from=())
        self.fired_after: list[int] = []
        self._closed = False

    def _record(self, name: str, fn: Callable, args: tuple, kwargs: dict) -> Any:
        index = len(self.calls)
        args = list(args)
        if "hook" in kwargs:
            kwargs = {**kwargs, "hook": self._watched(kwargs["hook"], index)}
        elif "fn" in kwargs:
            kwargs = {**kwargs, "fn": self._watched(kwargs["fn"], index)}
        elif len(args) >= 2:
            args[1] = self._watched(args[1], index)
        return super()._record(name, fn, tuple(args), kwargs)

    def _watched(self, hook: Callable, index: int) -> Callable:
        watch = self

        @functools.wraps(hook)
        def watched(*a: Any, **k: Any) -> Any:
            if watch._closed:
                watch.fired_after.append(index)
            return hook(*a, **k)

        return watched

    def __enter__(self) -> HookWatch:
        self.fired_after, self._closed = [], False
        super().__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        super().__exit__(*exc)
        self._closed = True

    def expect_removed(self, trigger: Callable[[], Any], *, what: str, hint: str = "") -> None:
        """Run `trigger` (e.g. another backward); fail if a hook registered in the block runs."""
        self.fired_after = []
        trigger()
        if self.fired_after:
            fail(what, "every hook it registered to be removed before it returned",
                 f"{len(set(self.fired_after))} of the {self.count} hooks it registered still "
                 "running on a later backward", hint)


def watch_hooks(name: str = "autograd_lab.Tensor.register_hook") -> HookWatch:
    """Watch the hooks registered through `name` while a block runs (see :class:`HookWatch`)."""
    return HookWatch(name)


class graph_freed:
    """Fail if backward-graph nodes created while the block ran are still alive after it.

    ``with graph_freed(what="train_epoch(model, loader, opt)", hint="..."): train_epoch(...)``.
    A graph stays alive when something keeps a tensor that has a ``grad_fn`` (a loss summed over
    batches as a tensor, a list of outputs). Leaves' ``AccumulateGrad`` nodes are not counted.
    """

    def __init__(self, *, what: str, hint: str = ""):
        self.what, self.hint = what, hint
        self._before: dict[int, Any] = {}

    @staticmethod
    def _nodes() -> list[Any]:
        from .autograd import AccumulateGrad, Node

        gc.collect()
        # type(), not isinstance(): an object's __class__ property could lie (or warn)
        return [o for o in gc.get_objects()
                if issubclass(type(o), Node) and not issubclass(type(o), AccumulateGrad)]

    def __enter__(self) -> graph_freed:
        self._before = {id(o): o for o in self._nodes()}
        return self

    def __exit__(self, exc_type: Any, *exc: Any) -> None:
        before, self._before = self._before, {}
        if exc_type is not None:
            return
        alive = [o for o in self._nodes() if id(o) not in before]
        if alive:
            names = sorted({type(o).__name__ for o in alive})
            fail(self.what, "no graph node left alive once it returned",
                 f"{len(alive)} nodes of its graphs still alive ({', '.join(names[:5])})", self.hint)


def _buffer(x: Any) -> Any:
    if type(x) in _tensor_types():
        return x.detach().numpy()
    return x if type(x) is _ndarray else None


def expect_not_alias(got: Any, source: Any, *, what: str, hint: str = "") -> None:
    """Fail if `got` is `source`, or shares its memory (a view): a copy was asked for."""
    if got is source:
        fail(what, "a copy", "the same object", hint)
    a, b = _buffer(got), _buffer(source)
    if a is not None and b is not None and _shares_memory(a, b):
        fail(what, "a copy", "a view of the same memory (changing one changes the other)", hint)


# --- a Function's backward, checked from the outside ----------------------------------------

def numerical_vjp(f: Callable[..., Any], args: list | tuple, v: Any, index: int,
                  h: float = 1e-6) -> Any:
    """The gradient of ``sum(v * f(*args))`` with respect to ``args[index]``, by central differences.

    `f` computes an operation in NumPy; `args` are its arguments (arrays, taken in float64, and
    anything else, passed unchanged); `v` an array of `f`'s output shape. Each element of
    ``args[index]`` is moved by ``+h`` and ``-h`` in turn (``h`` is gradcheck's eps): 2 * size
    evaluations of `f`. Returns a float64 array of ``args[index]``'s shape: vᵀJ, the vector–Jacobian
    product that a backward computes (PyTorch: ``torch.autograd.gradcheck`` builds J column by
    column the same way).
    """
    inputs = [_asarray(a, dtype=_float64).copy() if type(a) is _ndarray else a for a in args]
    x, w = inputs[index], _asarray(v, dtype=_float64)
    out = _zeros(x.shape)
    for i in _ndindex(x.shape):
        old = x[i]
        x[i] = old + h
        plus = _array(f(*inputs), dtype=_float64)      # a copy: f may return a view of x
        x[i] = old - h
        minus = _array(f(*inputs), dtype=_float64)
        x[i] = old
        # the difference first, then the sum: outputs that do not depend on x[i] cancel exactly,
        # however large they are
        out[i] = float((w * (plus - minus)).sum()) / (2 * h)
    return out


def _arg_text(a: Any) -> str:
    if type(a) in _tensor_types():
        grad = ", requires_grad" if a.requires_grad else ""
        return f"<{str(a.dtype).replace('torch.', '')} tensor of shape {tuple(a.shape)}{grad}>"
    return show(a)


def _gradient_like(shape: tuple, dtype: Any, seed: int) -> Any:
    """Random numbers of `shape` and `dtype`, laid out transposed when 2-d or more (not contiguous):
    a gradient may reach a backward as any tensor, a view included."""
    from .creation import tensor

    order = tuple(range(len(shape)))[::-1]
    numbers = _default_rng(seed).normal(size=tuple(shape[d] for d in order))
    return tensor(numbers, dtype=dtype).permute(order) if len(shape) > 1 else tensor(numbers, dtype=dtype)


def expect_function(fn: Any, args: tuple, reference: Callable[..., Any], *, what: str | None = None,
                    hint: str = "", shortcuts: forbid | None = None, rtol: float = 1e-6,
                    atol: float = 1e-8, seed: int = 0,
                    forward_mistakes: dict[str, Any] | None = None,
                    backward_mistakes: Callable[[Any], dict[str, tuple]] | None = None,
                    vjp: Callable[[Any], tuple] | None = None) -> Any:
    """Check one call of a learner's ``autograd.Function`` from the outside; return its result.

    ``fn.apply(*args)`` must give an autograd_lab Tensor with the values, shape and dtype (that of
    the first tensor argument) of ``reference(*args)`` — the same operation in NumPy, each tensor
    replaced by its float64 array — leave its inputs as they were, and record a node named
    ``<fn>Backward`` that holds its inputs and output through ``ctx.save_for_backward``, not as
    attributes of ``ctx``. Then ``fn.backward(node, v)`` is called directly, with grad mode off,
    for a random gradient ``v`` of the result's shape that is not contiguous. It must return one
    gradient per argument of ``apply`` (None for each non-tensor one), leave ``v`` unchanged, and
    give for each tensor argument that requires grad a tensor of exactly its shape and dtype,
    equal to vᵀJ by central differences of `reference` (:func:`numerical_vjp`).

    The engine is not involved, so it cannot sum a broadcast gradient back for the Function
    (PyTorch's engine and autograd_lab's do, when they can). PyTorch's counterpart,
    ``torch.autograd.gradcheck``, runs the Function through the engine and differentiates the
    Function's own forward. `shortcuts` (a :class:`forbid`) is active while forward and backward
    run. `forward_mistakes`: as `mistakes` of :func:`expect_close`. `backward_mistakes(v)`, given
    the gradient ``v`` as a float64 array, maps a description of each typical mistake to the
    gradients it gives, one array per tensor argument (None where not known). `vjp(v)` gives the
    expected gradients (one array per tensor argument) where central differences cannot: at a
    point where the derivative is a convention (ReLU's at 0).
    """
    from . import Tensor, no_grad
    from .creation import tensor

    tensors = [a for a in args if isinstance(a, Tensor)]
    if not tensors:
        raise ValueError("expect_function needs at least one tensor argument")
    name = getattr(fn, "__name__", "Function")
    what = what or f"{name}.apply({', '.join(_arg_text(a) for a in args)})"
    before = [t.detach().numpy().copy() for t in tensors]
    arrays = [_asarray(a.detach().numpy(), dtype=_float64) if isinstance(a, Tensor) else a for a in args]
    expected = _asarray(reference(*arrays), dtype=_float64)
    forward = shortcuts(fn.apply) if shortcuts is not None else fn.apply
    result = _labelled_call(what, forward, args, {}, hint)
    expect_close(result, tensor(expected), what=what, hint=hint, rtol=rtol, atol=atol,
                 mistakes=forward_mistakes, dtype=tensors[0].dtype)

    def unchanged(when: str) -> None:
        for k, (t, old) in enumerate(zip(tensors, before)):
            now = t.detach().numpy()
            if now.shape != old.shape or not bool(_close_mask(now, old, 0.0, 0.0).all()):
                fail(f"tensor argument {k} of {what}, {when}", "unchanged", "changed in place",
                     "compute new tensors; never write into an input (or a saved tensor) in place")

    unchanged(f"after {name}.apply")
    node = result.grad_fn
    if node is None:
        fail(f"{what}.grad_fn", f"a {name}Backward node", "None",
             "call the Function with .apply, and return a floating-point tensor from forward")
    if type(node).__name__ != f"{name}Backward":
        fail(f"{what}.grad_fn", f"a {name}Backward node", type(node).__name__,
             f"{name}.apply records a {name}Backward node for the result of forward")
    for key, value in vars(node).items():
        if not key.startswith("_") and any(value is t for t in [*tensors, result]):
            fail(f"what {name}.forward kept for backward", "tensors saved with ctx.save_for_backward(...)",
                 f"ctx.{key}, an input or the output kept as an attribute of ctx",
                 "save inputs and outputs with ctx.save_for_backward and read them with ctx.saved_tensors "
                 "(PyTorch then checks that they were not changed in place before backward); "
                 "attributes of ctx are for other things: shapes, dims")
    v = _gradient_like(tuple(result.shape), result.dtype, seed)
    v_before = v.detach().numpy().copy()
    backward = shortcuts(fn.backward) if shortcuts is not None else fn.backward
    what_back = f"{name}.backward(ctx, grad) after {what}"
    with no_grad():
        grads = _labelled_call(f"{name}.backward(ctx, grad of shape {tuple(v.shape)}) after {what}",
                               backward, (node, v), {}, hint)
    if type(grads) in _tensor_types():
        grads = (grads,)
    if type(grads) is not tuple:
        fail(f"the result of {what_back}", "a tuple of gradients (or one tensor)",
             f"{show(grads)} (of type {_type_name(grads)})",
             "return one gradient per argument of forward, as a tuple: return grad_a, grad_b")
    if len(grads) < len(args) or any(g is not None for g in grads[len(args):]):
        fail(f"the number of gradients {what_back} returned", f"{len(args)}, one per argument of forward",
             f"{len(grads)}", "return one gradient per argument of forward, None for an argument that is not "
             "a tensor (dim, keepdim, shape): return grad_x, None")
    if not bool(_close_mask(v.detach().numpy(), v_before, 0.0, 0.0).all()):
        fail(f"the grad that {what_back} received", "unchanged", "changed in place",
             "the incoming grad may be read by other nodes too: compute a new tensor "
             "(grad * y, not grad *= y)")
    unchanged(f"after {name}.backward")
    typical = backward_mistakes(v_before.astype(_float64)) if backward_mistakes is not None else {}
    given = vjp(v_before.astype(_float64)) if vjp is not None else None
    k = -1  # the position of `a` among the tensor arguments
    for i, a in enumerate(args):
        g = grads[i]
        if not isinstance(a, Tensor):
            if g is not None:
                fail(f"gradient {i} from {what_back}", f"None: argument {i} ({show(a)}) is not a tensor",
                     show(g), "return None for each argument that is not a tensor")
            continue
        k += 1
        if not a.requires_grad:
            continue
        wrong = {text: tensor(_asarray(wrong_grads[k], dtype=_float64))
                 for text, wrong_grads in typical.items() if wrong_grads[k] is not None}
        want = _asarray(given[k], dtype=_float64) if given is not None else numerical_vjp(
            reference, arrays, v_before, i)
        if g is None:
            fail(f"gradient {i} from {what_back}", f"a tensor of shape {tuple(a.shape)}", "None",
                 f"argument {i} requires grad: return its gradient")
        expect_close(g, tensor(want), what=f"gradient {i} (of the argument of shape {tuple(a.shape)}) from "
                     f"{what_back}", hint=hint, rtol=rtol, atol=atol, mistakes=wrong, dtype=a.dtype)
    return result


# --- graphs to run graph code on ----------------------------------------------------------

def random_graph(seed: int, n_ops: int = 30) -> tuple[list[Any], Any]:
    """A random backward graph, for code that walks or runs one: ``(tensors, out)``.

    ``tensors[:4]`` are float64 leaves of shape (3,), some not requiring grad (``tensors[0]``
    always does); each later tensor comes from one random operation on two earlier ones, so
    subexpressions are shared (nodes reached along several edges) and some operations broadcast
    (a scalar against a vector). ``out`` is a scalar built from them. The same seed builds the
    same graph again, from new tensors: build it twice to compare two ways of running backward.
    """
    from .creation import tensor

    rng = _default_rng(seed)
    pool = [tensor(rng.normal(size=3), requires_grad=bool(rng.random() < 0.7)) for _ in range(4)]
    pool[0].requires_grad_(True)
    for _ in range(n_ops):
        u, v = (pool[int(k)] for k in rng.integers(len(pool), size=2))
        op = int(rng.integers(6))
        if op == 0:
            pool.append(u + v)
        elif op == 1:
            pool.append(u - 0.5 * v)
        elif op == 2:
            pool.append((u * v).tanh())
        elif op == 3:
            pool.append(u.sin())
        elif op == 4:
            pool.append(u * v.sigmoid())
        else:
            pool.append((u * v).sum() * 0.1 + u)  # a scalar broadcast against a vector
    out = pool[0].sum()
    for t in pool[-6:]:
        out = out + t.sum()
    return pool, out


# --- answers that must be written out -------------------------------------------------------

def _binds(stmt: ast.stmt, name: str) -> bool:
    targets = stmt.targets if isinstance(stmt, ast.Assign) else (
        [stmt.target] if isinstance(stmt, ast.AnnAssign | ast.AugAssign) else [])
    for t in targets:
        if isinstance(t, ast.Name) and t.id == name:
            return True
        if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id == name:
            return True
    return False


def _literal(node: ast.AST | None) -> bool:
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


def _cell_binding(name: str) -> str:
    """The source of the last executed cell that assigns `name` at its top level (IPython)."""
    from IPython import get_ipython

    shell = get_ipython()
    if shell is None:
        raise RuntimeError("expect_written_out reads the notebook's cells: it runs under IPython")
    for source in reversed(shell.history_manager.input_hist_raw):
        try:
            tree = ast.parse(shell.transform_cell(source))
        except SyntaxError:
            continue
        if any(_binds(s, name) for s in tree.body):
            return source
    return ""


def expect_written_out(name: str, *, what: str, hint: str = "") -> None:
    """Fail unless the cell that set `name` wrote its value out as literals (a prediction).

    Every top-level statement of that cell that assigns `name` (or ``name[key]``) must assign a
    literal (numbers, strings, tuples, dicts of them): values computed by running the code are not
    predictions. Reads the cell from IPython's history.
    """
    source = _cell_binding(name)
    if not source:
        fail(what, f"a cell that sets {name}", "no such cell ran", hint)
    for stmt in ast.parse(source).body:
        if _binds(stmt, name):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            targets_ok = all(_literal(t.slice) for t in targets if isinstance(t, ast.Subscript))
            if not (targets_ok and _literal(stmt.value)) or isinstance(stmt, ast.AugAssign):
                line = ast.get_source_segment(source, stmt) or ""
                fail(what, f"{name} written out as literal values (your prediction)",
                     f"a computed value: {' '.join(line.split())[:160]}", hint)
        elif any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(stmt)) and any(
                isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                and isinstance(n.func.value, ast.Name) and n.func.value.id == name
                for n in ast.walk(stmt)):
            line = ast.get_source_segment(source, stmt) or ""
            fail(what, f"{name} written out as literal values (your prediction)",
                 f"a computed value: {' '.join(line.split())[:160]}", hint)
